//go:build amd64 && !purego

#include "textflag.h"

// Micro-kernels for AVX2 + FMA. The C tile lives in Y0..Y11 for the whole k
// loop; Y12/Y13 hold one step of the B panel and Y14/Y15 broadcast values of
// the A panel. Register roles:
//   CX  k (steps left)      SI  A panel      DX  B panel
//   DI  C row 0             R8  ldc in bytes
//   R10 C row 2             R11 C row 4      AX/BX scratch

// ---------------------------------------------------------------------------
// float32: 6x16 tile, A panel 6 floats (24 bytes) per step, B panel 16 floats
// (64 bytes) per step.

#define S_STEP(ao, bo) \
	VMOVUPS      (bo)(DX), Y12;        \
	VMOVUPS      (bo+32)(DX), Y13;     \
	VBROADCASTSS (ao)(SI), Y14;        \
	VBROADCASTSS (ao+4)(SI), Y15;      \
	VFMADD231PS  Y12, Y14, Y0;         \
	VFMADD231PS  Y13, Y14, Y1;         \
	VFMADD231PS  Y12, Y15, Y2;         \
	VFMADD231PS  Y13, Y15, Y3;         \
	VBROADCASTSS (ao+8)(SI), Y14;      \
	VBROADCASTSS (ao+12)(SI), Y15;     \
	VFMADD231PS  Y12, Y14, Y4;         \
	VFMADD231PS  Y13, Y14, Y5;         \
	VFMADD231PS  Y12, Y15, Y6;         \
	VFMADD231PS  Y13, Y15, Y7;         \
	VBROADCASTSS (ao+16)(SI), Y14;     \
	VBROADCASTSS (ao+20)(SI), Y15;     \
	VFMADD231PS  Y12, Y14, Y8;         \
	VFMADD231PS  Y13, Y14, Y9;         \
	VFMADD231PS  Y12, Y15, Y10;        \
	VFMADD231PS  Y13, Y15, Y11

// Store one row: acc = alpha*acc (+ beta*C), then write.
#define S_STORE_ROW(ptr, lo, hi) \
	VMOVUPS lo, (ptr);            \
	VMOVUPS hi, 32(ptr)

#define S_BETA_ROW(ptr, lo, hi) \
	VFMADD231PS (ptr), Y15, lo;     \
	VFMADD231PS 32(ptr), Y15, hi;   \
	VMOVUPS     lo, (ptr);          \
	VMOVUPS     hi, 32(ptr)

// func sgemm6x16(k int, a, b, c *float32, ldc int, alpha, beta float32)
TEXT ·sgemm6x16(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	LEAQ (DI)(R8*2), R10
	LEAQ (R10)(R8*2), R11

	// Start fetching the C tile; it is needed only after the k loop.
	PREFETCHT0 (DI)
	PREFETCHT0 60(DI)
	PREFETCHT0 (DI)(R8*1)
	PREFETCHT0 60(DI)(R8*1)
	PREFETCHT0 (R10)
	PREFETCHT0 60(R10)
	PREFETCHT0 (R10)(R8*1)
	PREFETCHT0 60(R10)(R8*1)
	PREFETCHT0 (R11)
	PREFETCHT0 60(R11)
	PREFETCHT0 (R11)(R8*1)
	PREFETCHT0 60(R11)(R8*1)

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

	MOVQ CX, BX
	SHRQ $2, BX
	JZ   s_tail

s_loop4:
	S_STEP(0, 0)
	S_STEP(24, 64)
	S_STEP(48, 128)
	S_STEP(72, 192)
	ADDQ $96, SI
	ADDQ $256, DX
	DECQ BX
	JNZ  s_loop4

s_tail:
	ANDQ $3, CX
	JZ   s_done

s_loop1:
	S_STEP(0, 0)
	ADDQ $24, SI
	ADDQ $64, DX
	DECQ CX
	JNZ  s_loop1

s_done:
	VBROADCASTSS alpha+40(FP), Y14
	VMULPS       Y14, Y0, Y0
	VMULPS       Y14, Y1, Y1
	VMULPS       Y14, Y2, Y2
	VMULPS       Y14, Y3, Y3
	VMULPS       Y14, Y4, Y4
	VMULPS       Y14, Y5, Y5
	VMULPS       Y14, Y6, Y6
	VMULPS       Y14, Y7, Y7
	VMULPS       Y14, Y8, Y8
	VMULPS       Y14, Y9, Y9
	VMULPS       Y14, Y10, Y10
	VMULPS       Y14, Y11, Y11

	// beta == +0 or -0: overwrite C without reading it.
	MOVL  beta+44(FP), AX
	ANDL  $0x7fffffff, AX
	JZ    s_store

	VBROADCASTSS beta+44(FP), Y15
	S_BETA_ROW(DI, Y0, Y1)
	LEAQ         (DI)(R8*1), AX
	S_BETA_ROW(AX, Y2, Y3)
	S_BETA_ROW(R10, Y4, Y5)
	LEAQ         (R10)(R8*1), AX
	S_BETA_ROW(AX, Y6, Y7)
	S_BETA_ROW(R11, Y8, Y9)
	LEAQ         (R11)(R8*1), AX
	S_BETA_ROW(AX, Y10, Y11)
	VZEROUPPER
	RET

s_store:
	S_STORE_ROW(DI, Y0, Y1)
	LEAQ (DI)(R8*1), AX
	S_STORE_ROW(AX, Y2, Y3)
	S_STORE_ROW(R10, Y4, Y5)
	LEAQ (R10)(R8*1), AX
	S_STORE_ROW(AX, Y6, Y7)
	S_STORE_ROW(R11, Y8, Y9)
	LEAQ (R11)(R8*1), AX
	S_STORE_ROW(AX, Y10, Y11)
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// float64: 6x8 tile, A panel 6 doubles (48 bytes) per step, B panel 8
// doubles (64 bytes) per step.

#define D_STEP(ao, bo) \
	VMOVUPD      (bo)(DX), Y12;        \
	VMOVUPD      (bo+32)(DX), Y13;     \
	VBROADCASTSD (ao)(SI), Y14;        \
	VBROADCASTSD (ao+8)(SI), Y15;      \
	VFMADD231PD  Y12, Y14, Y0;         \
	VFMADD231PD  Y13, Y14, Y1;         \
	VFMADD231PD  Y12, Y15, Y2;         \
	VFMADD231PD  Y13, Y15, Y3;         \
	VBROADCASTSD (ao+16)(SI), Y14;     \
	VBROADCASTSD (ao+24)(SI), Y15;     \
	VFMADD231PD  Y12, Y14, Y4;         \
	VFMADD231PD  Y13, Y14, Y5;         \
	VFMADD231PD  Y12, Y15, Y6;         \
	VFMADD231PD  Y13, Y15, Y7;         \
	VBROADCASTSD (ao+32)(SI), Y14;     \
	VBROADCASTSD (ao+40)(SI), Y15;     \
	VFMADD231PD  Y12, Y14, Y8;         \
	VFMADD231PD  Y13, Y14, Y9;         \
	VFMADD231PD  Y12, Y15, Y10;        \
	VFMADD231PD  Y13, Y15, Y11

#define D_STORE_ROW(ptr, lo, hi) \
	VMOVUPD lo, (ptr);            \
	VMOVUPD hi, 32(ptr)

#define D_BETA_ROW(ptr, lo, hi) \
	VFMADD231PD (ptr), Y15, lo;     \
	VFMADD231PD 32(ptr), Y15, hi;   \
	VMOVUPD     lo, (ptr);          \
	VMOVUPD     hi, 32(ptr)

// func dgemm6x8(k int, a, b, c *float64, ldc int, alpha, beta float64)
TEXT ·dgemm6x8(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), R8
	SHLQ $3, R8
	LEAQ (DI)(R8*2), R10
	LEAQ (R10)(R8*2), R11

	PREFETCHT0 (DI)
	PREFETCHT0 60(DI)
	PREFETCHT0 (DI)(R8*1)
	PREFETCHT0 60(DI)(R8*1)
	PREFETCHT0 (R10)
	PREFETCHT0 60(R10)
	PREFETCHT0 (R10)(R8*1)
	PREFETCHT0 60(R10)(R8*1)
	PREFETCHT0 (R11)
	PREFETCHT0 60(R11)
	PREFETCHT0 (R11)(R8*1)
	PREFETCHT0 60(R11)(R8*1)

	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11

	MOVQ CX, BX
	SHRQ $2, BX
	JZ   d_tail

d_loop4:
	D_STEP(0, 0)
	D_STEP(48, 64)
	D_STEP(96, 128)
	D_STEP(144, 192)
	ADDQ $192, SI
	ADDQ $256, DX
	DECQ BX
	JNZ  d_loop4

d_tail:
	ANDQ $3, CX
	JZ   d_done

d_loop1:
	D_STEP(0, 0)
	ADDQ $48, SI
	ADDQ $64, DX
	DECQ CX
	JNZ  d_loop1

d_done:
	VBROADCASTSD alpha+40(FP), Y14
	VMULPD       Y14, Y0, Y0
	VMULPD       Y14, Y1, Y1
	VMULPD       Y14, Y2, Y2
	VMULPD       Y14, Y3, Y3
	VMULPD       Y14, Y4, Y4
	VMULPD       Y14, Y5, Y5
	VMULPD       Y14, Y6, Y6
	VMULPD       Y14, Y7, Y7
	VMULPD       Y14, Y8, Y8
	VMULPD       Y14, Y9, Y9
	VMULPD       Y14, Y10, Y10
	VMULPD       Y14, Y11, Y11

	// beta == +0 or -0: overwrite C without reading it.
	MOVQ beta+48(FP), AX
	SHLQ $1, AX
	JZ   d_store

	VBROADCASTSD beta+48(FP), Y15
	D_BETA_ROW(DI, Y0, Y1)
	LEAQ         (DI)(R8*1), AX
	D_BETA_ROW(AX, Y2, Y3)
	D_BETA_ROW(R10, Y4, Y5)
	LEAQ         (R10)(R8*1), AX
	D_BETA_ROW(AX, Y6, Y7)
	D_BETA_ROW(R11, Y8, Y9)
	LEAQ         (R11)(R8*1), AX
	D_BETA_ROW(AX, Y10, Y11)
	VZEROUPPER
	RET

d_store:
	D_STORE_ROW(DI, Y0, Y1)
	LEAQ (DI)(R8*1), AX
	D_STORE_ROW(AX, Y2, Y3)
	D_STORE_ROW(R10, Y4, Y5)
	LEAQ (R10)(R8*1), AX
	D_STORE_ROW(AX, Y6, Y7)
	D_STORE_ROW(R11, Y8, Y9)
	LEAQ (R11)(R8*1), AX
	D_STORE_ROW(AX, Y10, Y11)
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Vector helpers for the unpacked path.

// func saxpy(n int, alpha float32, x, y *float32)
TEXT ·saxpy(SB), NOSPLIT, $0-32
	MOVQ         n+0(FP), CX
	VBROADCASTSS alpha+8(FP), Y0
	MOVQ         x+16(FP), SI
	MOVQ         y+24(FP), DI
	MOVQ         CX, BX
	SHRQ         $5, BX
	JZ           saxpy_8

saxpy_loop32:
	VMOVUPS     (SI), Y1
	VMOVUPS     32(SI), Y2
	VMOVUPS     64(SI), Y3
	VMOVUPS     96(SI), Y4
	VFMADD213PS (DI), Y0, Y1
	VFMADD213PS 32(DI), Y0, Y2
	VFMADD213PS 64(DI), Y0, Y3
	VFMADD213PS 96(DI), Y0, Y4
	VMOVUPS     Y1, (DI)
	VMOVUPS     Y2, 32(DI)
	VMOVUPS     Y3, 64(DI)
	VMOVUPS     Y4, 96(DI)
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        BX
	JNZ         saxpy_loop32

saxpy_8:
	ANDQ $31, CX
	MOVQ CX, BX
	SHRQ $3, BX
	JZ   saxpy_1

saxpy_loop8:
	VMOVUPS     (SI), Y1
	VFMADD213PS (DI), Y0, Y1
	VMOVUPS     Y1, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        BX
	JNZ         saxpy_loop8

saxpy_1:
	ANDQ $7, CX
	JZ   saxpy_done

saxpy_loop1:
	VMOVSS      (SI), X1
	VFMADD213SS (DI), X0, X1
	VMOVSS      X1, (DI)
	ADDQ        $4, SI
	ADDQ        $4, DI
	DECQ        CX
	JNZ         saxpy_loop1

saxpy_done:
	VZEROUPPER
	RET

// func daxpy(n int, alpha float64, x, y *float64)
TEXT ·daxpy(SB), NOSPLIT, $0-32
	MOVQ         n+0(FP), CX
	VBROADCASTSD alpha+8(FP), Y0
	MOVQ         x+16(FP), SI
	MOVQ         y+24(FP), DI
	MOVQ         CX, BX
	SHRQ         $4, BX
	JZ           daxpy_4

daxpy_loop16:
	VMOVUPD     (SI), Y1
	VMOVUPD     32(SI), Y2
	VMOVUPD     64(SI), Y3
	VMOVUPD     96(SI), Y4
	VFMADD213PD (DI), Y0, Y1
	VFMADD213PD 32(DI), Y0, Y2
	VFMADD213PD 64(DI), Y0, Y3
	VFMADD213PD 96(DI), Y0, Y4
	VMOVUPD     Y1, (DI)
	VMOVUPD     Y2, 32(DI)
	VMOVUPD     Y3, 64(DI)
	VMOVUPD     Y4, 96(DI)
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        BX
	JNZ         daxpy_loop16

daxpy_4:
	ANDQ $15, CX
	MOVQ CX, BX
	SHRQ $2, BX
	JZ   daxpy_1

daxpy_loop4:
	VMOVUPD     (SI), Y1
	VFMADD213PD (DI), Y0, Y1
	VMOVUPD     Y1, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        BX
	JNZ         daxpy_loop4

daxpy_1:
	ANDQ $3, CX
	JZ   daxpy_done

daxpy_loop1:
	VMOVSD      (SI), X1
	VFMADD213SD (DI), X0, X1
	VMOVSD      X1, (DI)
	ADDQ        $8, SI
	ADDQ        $8, DI
	DECQ        CX
	JNZ         daxpy_loop1

daxpy_done:
	VZEROUPPER
	RET

// func sdot(n int, x, y *float32) float32
TEXT ·sdot(SB), NOSPLIT, $0-28
	MOVQ   n+0(FP), CX
	MOVQ   x+8(FP), SI
	MOVQ   y+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   CX, BX
	SHRQ   $5, BX
	JZ     sdot_8

sdot_loop32:
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        BX
	JNZ         sdot_loop32

sdot_8:
	ANDQ $31, CX
	MOVQ CX, BX
	SHRQ $3, BX
	JZ   sdot_sum

sdot_loop8:
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        BX
	JNZ         sdot_loop8

sdot_sum:
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X1, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	ANDQ         $7, CX
	JZ           sdot_done

sdot_loop1:
	VMOVSS      (SI), X4
	VFMADD231SS (DI), X4, X0
	ADDQ        $4, SI
	ADDQ        $4, DI
	DECQ        CX
	JNZ         sdot_loop1

sdot_done:
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func ddot(n int, x, y *float64) float64
TEXT ·ddot(SB), NOSPLIT, $0-32
	MOVQ   n+0(FP), CX
	MOVQ   x+8(FP), SI
	MOVQ   y+16(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   CX, BX
	SHRQ   $4, BX
	JZ     ddot_4

ddot_loop16:
	VMOVUPD     (SI), Y4
	VMOVUPD     32(SI), Y5
	VMOVUPD     64(SI), Y6
	VMOVUPD     96(SI), Y7
	VFMADD231PD (DI), Y4, Y0
	VFMADD231PD 32(DI), Y5, Y1
	VFMADD231PD 64(DI), Y6, Y2
	VFMADD231PD 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        BX
	JNZ         ddot_loop16

ddot_4:
	ANDQ $15, CX
	MOVQ CX, BX
	SHRQ $2, BX
	JZ   ddot_sum

ddot_loop4:
	VMOVUPD     (SI), Y4
	VFMADD231PD (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        BX
	JNZ         ddot_loop4

ddot_sum:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	ANDQ         $3, CX
	JZ           ddot_done

ddot_loop1:
	VMOVSD      (SI), X4
	VFMADD231SD (DI), X4, X0
	ADDQ        $8, SI
	ADDQ        $8, DI
	DECQ        CX
	JNZ         ddot_loop1

ddot_done:
	VMOVSD X0, ret+24(FP)
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Packing. The transposing packers read 8 (float32) or 4 (float64) steps of
// every row at once and transpose them in registers; the caller packs the
// remaining steps and edge panels in Go.
//   SI  row 0 + p     R10 row 4 + p     R11 row 8 + p     R12 row 12 + p
//   R8  ld in bytes   R9  3*ld in bytes DI  destination   CX  blocks left

// func spack6T(dst, src *float32, ld, blocks int)
// dst[p*6+r] = src[r*ld+p] for r < 6, p < 8*blocks.
TEXT ·spack6T(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	MOVQ blocks+24(FP), CX
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	LEAQ (SI)(R8*4), R10
	TESTQ CX, CX
	JZ    sp6_done

sp6_loop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (SI)(R9*1), Y3
	VMOVUPS (R10), Y4
	VMOVUPS (R10)(R8*1), Y5
	VUNPCKLPS Y1, Y0, Y6         // r0p0 r1p0 r0p1 r1p1 | p4 p5
	VUNPCKHPS Y1, Y0, Y7         // r0p2 r1p2 r0p3 r1p3 | p6 p7
	VUNPCKLPS Y3, Y2, Y8
	VUNPCKHPS Y3, Y2, Y9
	VUNPCKLPS Y5, Y4, Y10        // r4p0 r5p0 r4p1 r5p1 | r4p4 r5p4 r4p5 r5p5
	VUNPCKHPS Y5, Y4, Y11        // r4p2 r5p2 r4p3 r5p3 | r4p6 r5p6 r4p7 r5p7
	VSHUFPS   $0x44, Y8, Y6, Y0  // rows 0-3 of p0 | p4
	VSHUFPS   $0xEE, Y8, Y6, Y1  // p1 | p5
	VSHUFPS   $0x44, Y9, Y7, Y2  // p2 | p6
	VSHUFPS   $0xEE, Y9, Y7, Y3  // p3 | p7
	VEXTRACTF128 $1, Y10, X12
	VEXTRACTF128 $1, Y11, X13
	VMOVUPS   X0, 0(DI)
	VMOVQ     X10, 16(DI)
	VMOVUPS   X1, 24(DI)
	VMOVHPS   X10, 40(DI)
	VMOVUPS   X2, 48(DI)
	VMOVQ     X11, 64(DI)
	VMOVUPS   X3, 72(DI)
	VMOVHPS   X11, 88(DI)
	VEXTRACTF128 $1, Y0, 96(DI)
	VMOVQ     X12, 112(DI)
	VEXTRACTF128 $1, Y1, 120(DI)
	VMOVHPS   X12, 136(DI)
	VEXTRACTF128 $1, Y2, 144(DI)
	VMOVQ     X13, 160(DI)
	VEXTRACTF128 $1, Y3, 168(DI)
	VMOVHPS   X13, 184(DI)
	ADDQ $192, DI
	ADDQ $32, SI
	ADDQ $32, R10
	DECQ CX
	JNZ  sp6_loop

sp6_done:
	VZEROUPPER
	RET

// TRANS8x8 transposes the 8x8 float32 block whose rows start at the
// addresses r0..r7 and stores its columns as 8 rows of 8 at dst, dst+64, ...,
// dst+448 (so two calls fill the two halves of 16-wide steps).
#define TRANS8x8_PS(b0, b1, dst) \
	VMOVUPS   (b0), Y0;                 \
	VMOVUPS   (b0)(R8*1), Y1;           \
	VMOVUPS   (b0)(R8*2), Y2;           \
	VMOVUPS   (b0)(R9*1), Y3;           \
	VMOVUPS   (b1), Y4;                 \
	VMOVUPS   (b1)(R8*1), Y5;           \
	VMOVUPS   (b1)(R8*2), Y6;           \
	VMOVUPS   (b1)(R9*1), Y7;           \
	VUNPCKLPS Y1, Y0, Y8;               \
	VUNPCKHPS Y1, Y0, Y9;               \
	VUNPCKLPS Y3, Y2, Y10;              \
	VUNPCKHPS Y3, Y2, Y11;              \
	VUNPCKLPS Y5, Y4, Y12;              \
	VUNPCKHPS Y5, Y4, Y13;              \
	VUNPCKLPS Y7, Y6, Y14;              \
	VUNPCKHPS Y7, Y6, Y15;              \
	VSHUFPS   $0x44, Y10, Y8, Y0;       \
	VSHUFPS   $0xEE, Y10, Y8, Y1;       \
	VSHUFPS   $0x44, Y11, Y9, Y2;       \
	VSHUFPS   $0xEE, Y11, Y9, Y3;       \
	VSHUFPS   $0x44, Y14, Y12, Y4;      \
	VSHUFPS   $0xEE, Y14, Y12, Y5;      \
	VSHUFPS   $0x44, Y15, Y13, Y6;      \
	VSHUFPS   $0xEE, Y15, Y13, Y7;      \
	VPERM2F128 $0x20, Y4, Y0, Y8;       \
	VPERM2F128 $0x20, Y5, Y1, Y9;       \
	VPERM2F128 $0x20, Y6, Y2, Y10;      \
	VPERM2F128 $0x20, Y7, Y3, Y11;      \
	VPERM2F128 $0x31, Y4, Y0, Y12;      \
	VPERM2F128 $0x31, Y5, Y1, Y13;      \
	VPERM2F128 $0x31, Y6, Y2, Y14;      \
	VPERM2F128 $0x31, Y7, Y3, Y15;      \
	VMOVUPS   Y8, (0*64)(dst);          \
	VMOVUPS   Y9, (1*64)(dst);          \
	VMOVUPS   Y10, (2*64)(dst);         \
	VMOVUPS   Y11, (3*64)(dst);         \
	VMOVUPS   Y12, (4*64)(dst);         \
	VMOVUPS   Y13, (5*64)(dst);         \
	VMOVUPS   Y14, (6*64)(dst);         \
	VMOVUPS   Y15, (7*64)(dst)

// func spack16T(dst, src *float32, ld, blocks int)
// dst[p*16+r] = src[r*ld+p] for r < 16, p < 8*blocks.
TEXT ·spack16T(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	MOVQ blocks+24(FP), CX
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	LEAQ (SI)(R8*4), R10
	LEAQ (R10)(R8*4), R11
	LEAQ (R11)(R8*4), R12
	LEAQ 32(DI), AX
	TESTQ CX, CX
	JZ    sp16_done

sp16_loop:
	TRANS8x8_PS(SI, R10, DI)
	TRANS8x8_PS(R11, R12, AX)
	ADDQ $512, DI
	ADDQ $512, AX
	ADDQ $32, SI
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $32, R12
	DECQ CX
	JNZ  sp16_loop

sp16_done:
	VZEROUPPER
	RET

// TRANS4x4_PD transposes the 4x4 float64 block whose rows start at b0,
// b0+ld, b0+2ld, b0+3ld into Y0..Y3 (Y0 = column 0, ...).
#define TRANS4x4_PD(b0) \
	VMOVUPD    (b0), Y0;            \
	VMOVUPD    (b0)(R8*1), Y1;      \
	VMOVUPD    (b0)(R8*2), Y2;      \
	VMOVUPD    (b0)(R9*1), Y3;      \
	VUNPCKLPD  Y1, Y0, Y4;          \
	VUNPCKHPD  Y1, Y0, Y5;          \
	VUNPCKLPD  Y3, Y2, Y6;          \
	VUNPCKHPD  Y3, Y2, Y7;          \
	VPERM2F128 $0x20, Y6, Y4, Y0;   \
	VPERM2F128 $0x20, Y7, Y5, Y1;   \
	VPERM2F128 $0x31, Y6, Y4, Y2;   \
	VPERM2F128 $0x31, Y7, Y5, Y3

// func dpack6T(dst, src *float64, ld, blocks int)
// dst[p*6+r] = src[r*ld+p] for r < 6, p < 4*blocks.
TEXT ·dpack6T(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	MOVQ blocks+24(FP), CX
	SHLQ $3, R8
	LEAQ (R8)(R8*2), R9
	LEAQ (SI)(R8*4), R10
	TESTQ CX, CX
	JZ    dp6_done

dp6_loop:
	TRANS4x4_PD(SI)
	VMOVUPD    (R10), Y8
	VMOVUPD    (R10)(R8*1), Y9
	VUNPCKLPD  Y9, Y8, Y10       // r4p0 r5p0 | r4p2 r5p2
	VUNPCKHPD  Y9, Y8, Y11       // r4p1 r5p1 | r4p3 r5p3
	VMOVUPD    Y0, 0(DI)
	VMOVUPD    X10, 32(DI)
	VMOVUPD    Y1, 48(DI)
	VMOVUPD    X11, 80(DI)
	VMOVUPD    Y2, 96(DI)
	VEXTRACTF128 $1, Y10, 128(DI)
	VMOVUPD    Y3, 144(DI)
	VEXTRACTF128 $1, Y11, 176(DI)
	ADDQ $192, DI
	ADDQ $32, SI
	ADDQ $32, R10
	DECQ CX
	JNZ  dp6_loop

dp6_done:
	VZEROUPPER
	RET

// func dpack8T(dst, src *float64, ld, blocks int)
// dst[p*8+r] = src[r*ld+p] for r < 8, p < 4*blocks.
TEXT ·dpack8T(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	MOVQ blocks+24(FP), CX
	SHLQ $3, R8
	LEAQ (R8)(R8*2), R9
	LEAQ (SI)(R8*4), R10
	TESTQ CX, CX
	JZ    dp8_done

dp8_loop:
	TRANS4x4_PD(SI)
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 64(DI)
	VMOVUPD Y2, 128(DI)
	VMOVUPD Y3, 192(DI)
	TRANS4x4_PD(R10)
	VMOVUPD Y0, 32(DI)
	VMOVUPD Y1, 96(DI)
	VMOVUPD Y2, 160(DI)
	VMOVUPD Y3, 224(DI)
	ADDQ $256, DI
	ADDQ $32, SI
	ADDQ $32, R10
	DECQ CX
	JNZ  dp8_loop

dp8_done:
	VZEROUPPER
	RET

// The contiguous packers copy one step of width bytes per source row:
// dst[p*width : (p+1)*width] = src[p*stride : p*stride+width], p < n.

// func copy24(dst, src *byte, stride, n int)
TEXT ·copy24(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), R8
	MOVQ n+24(FP), CX
	TESTQ CX, CX
	JZ    c24_done

c24_loop:
	VMOVUPS (SI), X0
	VMOVQ   16(SI), X1
	VMOVUPS X0, (DI)
	VMOVQ   X1, 16(DI)
	ADDQ    R8, SI
	ADDQ    $24, DI
	DECQ    CX
	JNZ     c24_loop

c24_done:
	RET

// func copy48(dst, src *byte, stride, n int)
TEXT ·copy48(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), R8
	MOVQ n+24(FP), CX
	TESTQ CX, CX
	JZ    c48_done

c48_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), X1
	VMOVUPS Y0, (DI)
	VMOVUPS X1, 32(DI)
	ADDQ    R8, SI
	ADDQ    $48, DI
	DECQ    CX
	JNZ     c48_loop

c48_done:
	VZEROUPPER
	RET

// func copy64(dst, src *byte, stride, n int)
TEXT ·copy64(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), R8
	MOVQ n+24(FP), CX
	TESTQ CX, CX
	JZ    c64_done

c64_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    R8, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     c64_loop

c64_done:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Four dot products at once for the unpacked path: one x against the four
// rows y, y+ldy, y+2*ldy, y+3*ldy. x is loaded once per four FMAs.
//   SI x   DI y row 0   R8 ldy in bytes   R9 3*ldy   CX blocks left
//   Y0-Y3 and Y4-Y7: two accumulators per row (two blocks in flight).

// func sdot4(n int, x, y *float32, ldy int, out *[4]float32)
// n must be a multiple of 8.
TEXT ·sdot4(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	MOVQ ldy+24(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   CX, BX
	SHRQ   $4, BX
	JZ     sd4_8

sd4_loop16:
	VMOVUPS     (SI), Y8
	VMOVUPS     32(SI), Y9
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS (DI)(R8*1), Y8, Y1
	VFMADD231PS (DI)(R8*2), Y8, Y2
	VFMADD231PS (DI)(R9*1), Y8, Y3
	VFMADD231PS 32(DI), Y9, Y4
	VFMADD231PS 32(DI)(R8*1), Y9, Y5
	VFMADD231PS 32(DI)(R8*2), Y9, Y6
	VFMADD231PS 32(DI)(R9*1), Y9, Y7
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        BX
	JNZ         sd4_loop16

sd4_8:
	TESTQ $8, CX
	JZ    sd4_sum
	VMOVUPS     (SI), Y8
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS (DI)(R8*1), Y8, Y1
	VFMADD231PS (DI)(R8*2), Y8, Y2
	VFMADD231PS (DI)(R9*1), Y8, Y3

sd4_sum:
	VADDPS       Y4, Y0, Y0
	VADDPS       Y5, Y1, Y1
	VADDPS       Y6, Y2, Y2
	VADDPS       Y7, Y3, Y3
	VHADDPS      Y1, Y0, Y0      // per lane: r0 r0 r1 r1
	VHADDPS      Y3, Y2, Y2      // per lane: r2 r2 r3 r3
	VHADDPS      Y2, Y0, Y0      // per lane: r0 r1 r2 r3
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	MOVQ         out+32(FP), AX
	VMOVUPS      X0, (AX)
	VZEROUPPER
	RET

// func ddot4(n int, x, y *float64, ldy int, out *[4]float64)
// n must be a multiple of 4.
TEXT ·ddot4(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	MOVQ ldy+24(FP), R8
	SHLQ $3, R8
	LEAQ (R8)(R8*2), R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ   CX, BX
	SHRQ   $3, BX
	JZ     dd4_4

dd4_loop8:
	VMOVUPD     (SI), Y8
	VMOVUPD     32(SI), Y9
	VFMADD231PD (DI), Y8, Y0
	VFMADD231PD (DI)(R8*1), Y8, Y1
	VFMADD231PD (DI)(R8*2), Y8, Y2
	VFMADD231PD (DI)(R9*1), Y8, Y3
	VFMADD231PD 32(DI), Y9, Y4
	VFMADD231PD 32(DI)(R8*1), Y9, Y5
	VFMADD231PD 32(DI)(R8*2), Y9, Y6
	VFMADD231PD 32(DI)(R9*1), Y9, Y7
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        BX
	JNZ         dd4_loop8

dd4_4:
	TESTQ $4, CX
	JZ    dd4_sum
	VMOVUPD     (SI), Y8
	VFMADD231PD (DI), Y8, Y0
	VFMADD231PD (DI)(R8*1), Y8, Y1
	VFMADD231PD (DI)(R8*2), Y8, Y2
	VFMADD231PD (DI)(R9*1), Y8, Y3

dd4_sum:
	VADDPD     Y4, Y0, Y0
	VADDPD     Y5, Y1, Y1
	VADDPD     Y6, Y2, Y2
	VADDPD     Y7, Y3, Y3
	VHADDPD    Y1, Y0, Y0        // r0(01) r1(01) | r0(23) r1(23)
	VHADDPD    Y3, Y2, Y2        // r2(01) r3(01) | r2(23) r3(23)
	VPERM2F128 $0x20, Y2, Y0, Y4 // r0 r1 r2 r3, low halves
	VPERM2F128 $0x31, Y2, Y0, Y5 // r0 r1 r2 r3, high halves
	VADDPD     Y5, Y4, Y4
	MOVQ       out+32(FP), AX
	VMOVUPD    Y4, (AX)
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// y[i] += s[0]*x[i] + s[1]*x[ldx+i] + s[2]*x[2*ldx+i] + s[3]*x[3*ldx+i]:
// four axpys into one y, which is loaded and stored once instead of four
// times.
//   SI x row 0   R8 ldx in bytes   R9 3*ldx   DI y   CX count
//   Y0-Y3 the broadcast scalars.

// func saxpy4(n int, s *[4]float32, x *float32, ldx int, y *float32)
// n must be a multiple of 8.
TEXT ·saxpy4(SB), NOSPLIT, $0-40
	MOVQ         n+0(FP), CX
	MOVQ         s+8(FP), AX
	MOVQ         x+16(FP), SI
	MOVQ         ldx+24(FP), R8
	MOVQ         y+32(FP), DI
	SHLQ         $2, R8
	LEAQ         (R8)(R8*2), R9
	VBROADCASTSS (AX), Y0
	VBROADCASTSS 4(AX), Y1
	VBROADCASTSS 8(AX), Y2
	VBROADCASTSS 12(AX), Y3
	MOVQ         CX, BX
	SHRQ         $4, BX
	JZ           sa4_8

sa4_loop16:
	VMOVUPS     (DI), Y4
	VMOVUPS     32(DI), Y5
	VFMADD231PS (SI), Y0, Y4
	VFMADD231PS 32(SI), Y0, Y5
	VFMADD231PS (SI)(R8*1), Y1, Y4
	VFMADD231PS 32(SI)(R8*1), Y1, Y5
	VFMADD231PS (SI)(R8*2), Y2, Y4
	VFMADD231PS 32(SI)(R8*2), Y2, Y5
	VFMADD231PS (SI)(R9*1), Y3, Y4
	VFMADD231PS 32(SI)(R9*1), Y3, Y5
	VMOVUPS     Y4, (DI)
	VMOVUPS     Y5, 32(DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        BX
	JNZ         sa4_loop16

sa4_8:
	TESTQ $8, CX
	JZ    sa4_done
	VMOVUPS     (DI), Y4
	VFMADD231PS (SI), Y0, Y4
	VFMADD231PS (SI)(R8*1), Y1, Y4
	VFMADD231PS (SI)(R8*2), Y2, Y4
	VFMADD231PS (SI)(R9*1), Y3, Y4
	VMOVUPS     Y4, (DI)

sa4_done:
	VZEROUPPER
	RET

// func daxpy4(n int, s *[4]float64, x *float64, ldx int, y *float64)
// n must be a multiple of 4.
TEXT ·daxpy4(SB), NOSPLIT, $0-40
	MOVQ         n+0(FP), CX
	MOVQ         s+8(FP), AX
	MOVQ         x+16(FP), SI
	MOVQ         ldx+24(FP), R8
	MOVQ         y+32(FP), DI
	SHLQ         $3, R8
	LEAQ         (R8)(R8*2), R9
	VBROADCASTSD (AX), Y0
	VBROADCASTSD 8(AX), Y1
	VBROADCASTSD 16(AX), Y2
	VBROADCASTSD 24(AX), Y3
	MOVQ         CX, BX
	SHRQ         $3, BX
	JZ           da4_4

da4_loop8:
	VMOVUPD     (DI), Y4
	VMOVUPD     32(DI), Y5
	VFMADD231PD (SI), Y0, Y4
	VFMADD231PD 32(SI), Y0, Y5
	VFMADD231PD (SI)(R8*1), Y1, Y4
	VFMADD231PD 32(SI)(R8*1), Y1, Y5
	VFMADD231PD (SI)(R8*2), Y2, Y4
	VFMADD231PD 32(SI)(R8*2), Y2, Y5
	VFMADD231PD (SI)(R9*1), Y3, Y4
	VFMADD231PD 32(SI)(R9*1), Y3, Y5
	VMOVUPD     Y4, (DI)
	VMOVUPD     Y5, 32(DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        BX
	JNZ         da4_loop8

da4_4:
	TESTQ $4, CX
	JZ    da4_done
	VMOVUPD     (DI), Y4
	VFMADD231PD (SI), Y0, Y4
	VFMADD231PD (SI)(R8*1), Y1, Y4
	VFMADD231PD (SI)(R8*2), Y2, Y4
	VFMADD231PD (SI)(R9*1), Y3, Y4
	VMOVUPD     Y4, (DI)

da4_done:
	VZEROUPPER
	RET
