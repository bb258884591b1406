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
