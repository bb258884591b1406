//go:build amd64 && !purego

#include "textflag.h"

// func copyRowsZ(dst, src *byte, dstStride, srcStride, rows int, lo, hi uint64)
TEXT ·copyRowsZ(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ dstStride+16(FP), R8
	MOVQ srcStride+24(FP), R9
	MOVQ rows+32(FP), CX
	MOVQ lo+40(FP), AX
	KMOVQ AX, K1
	MOVQ hi+48(FP), AX
	KMOVQ AX, K2
	TESTQ CX, CX
	JLE copyRowsZ_done
	// Rows of at most 64 bytes (hi empty): one move each way per row.
	TESTQ AX, AX
	JNZ copyRowsZ_loop
copyRowsZ_short:
	VMOVDQU8.Z 0(SI), K1, Z0
	VMOVDQU8 Z0, K1, 0(DI)
	ADDQ R9, SI
	ADDQ R8, DI
	DECQ CX
	JNZ copyRowsZ_short
	JMP copyRowsZ_done
copyRowsZ_loop:
	VMOVDQU8.Z 0(SI), K1, Z0
	VMOVDQU8.Z 64(SI), K2, Z1
	VMOVDQU8 Z0, K1, 0(DI)
	VMOVDQU8 Z1, K2, 64(DI)
	ADDQ R9, SI
	ADDQ R8, DI
	DECQ CX
	JNZ copyRowsZ_loop
copyRowsZ_done:
	VZEROUPPER
	RET

// func gatherRunsZ(dst *byte, ldd int, src *byte, offs *int, size, rows int, runs *runZ, nruns int)
//
// Run by run (the run's mask set once), row by row within a run.
TEXT ·gatherRunsZ(SB), NOSPLIT, $0-64
	MOVQ ldd+8(FP), R8
	MOVQ rows+40(FP), CX
	MOVQ runs+48(FP), BX
	MOVQ nruns+56(FP), R11
	TESTQ CX, CX
	JLE gatherRunsZ_done
	TESTQ R11, R11
	JLE gatherRunsZ_done
	// R11: the end of the runs (32 bytes each).
	SHLQ $5, R11
	ADDQ BX, R11
gatherRunsZ_run:
	// DI: the run's first destination; SI: its source before the row's
	// offset; R9: the offsets; R10: rows left; K1: the tail's mask.
	MOVQ dst+0(FP), DI
	ADDQ 0(BX), DI
	MOVQ src+16(FP), SI
	ADDQ 8(BX), SI
	MOVQ offs+24(FP), R9
	MOVQ CX, R10
	KMOVQ 24(BX), K1
	MOVQ 16(BX), R12
gatherRunsZ_row:
	MOVQ (R9), AX
	IMULQ size+32(FP), AX
	ADDQ SI, AX
	MOVQ DI, DX
	MOVQ R12, R13
	TESTQ R13, R13
	JZ gatherRunsZ_tail
gatherRunsZ_chunk:
	VMOVDQU64 (AX), Z0
	VMOVDQU64 Z0, (DX)
	ADDQ $64, AX
	ADDQ $64, DX
	DECQ R13
	JNZ gatherRunsZ_chunk
gatherRunsZ_tail:
	VMOVDQU8.Z (AX), K1, Z0
	VMOVDQU8 Z0, K1, (DX)
	ADDQ $8, R9
	ADDQ R8, DI
	DECQ R10
	JNZ gatherRunsZ_row
	ADDQ $32, BX
	CMPQ BX, R11
	JNE gatherRunsZ_run
gatherRunsZ_done:
	VZEROUPPER
	RET

// func padPlanesZ(dst, src *byte, geom *padGeom, lo, hi, storeLo, storeHi uint64)
//
// DI dst   SI the plane's first row less lead   BX the row   R8 row bytes
// R9 src row   R10 src plane   R11 planes left   R12 rows   R13 zero rows
// CX rows left   K1/K2 load masks   K3/K4 store masks   Z2 zeros
TEXT ·padPlanesZ(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ geom+16(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ 32(AX), R12
	MOVQ 40(AX), R13
	SUBQ 48(AX), SI
	MOVQ lo+24(FP), AX
	KMOVQ AX, K1
	MOVQ hi+32(FP), AX
	KMOVQ AX, K2
	MOVQ storeLo+40(FP), AX
	KMOVQ AX, K3
	MOVQ storeHi+48(FP), AX
	KMOVQ AX, K4
	VPXORD Z2, Z2, Z2
	TESTQ R11, R11
	JLE padPlanesZ_done
	// One loop writes every run of zero rows: the first plane's top
	// rows, then after each plane its bottom rows and the next plane's
	// top rows together.
	MOVQ R13, CX
padPlanesZ_zeros:
	TESTQ CX, CX
	JZ padPlanesZ_rows
padPlanesZ_zero:
	VMOVDQU8 Z2, K3, 0(DI)
	VMOVDQU8 Z2, K4, 64(DI)
	ADDQ R8, DI
	DECQ CX
	JNZ padPlanesZ_zero
padPlanesZ_rows:
	TESTQ R11, R11
	JZ padPlanesZ_done
	MOVQ SI, BX
	MOVQ R12, CX
	TESTQ CX, CX
	JZ padPlanesZ_next
padPlanesZ_row:
	VMOVDQU8.Z 0(BX), K1, Z0
	VMOVDQU8.Z 64(BX), K2, Z1
	VMOVDQU8 Z0, K3, 0(DI)
	VMOVDQU8 Z1, K4, 64(DI)
	ADDQ R9, BX
	ADDQ R8, DI
	DECQ CX
	JNZ padPlanesZ_row
padPlanesZ_next:
	ADDQ R10, SI
	MOVQ R13, CX
	DECQ R11
	JZ padPlanesZ_zeros // the last plane's bottom rows
	ADDQ R13, CX
	JMP padPlanesZ_zeros
padPlanesZ_done:
	VZEROUPPER
	RET
