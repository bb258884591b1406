package vec

import (
	"os"
	"strings"
)

type binOp int

const (
	opAdd binOp = iota
	opSub
	opMul
	opDiv
	opMax
	opMin
	numBinOps
)

type unOp int

const (
	unRelu unOp = iota
	unExp
	unLog
	unTanh
	unSigmoid
	unGeluTanh
	unGeluErf
	unErf
	unSqrt
	unSign
	unSilu
	unNeg
	unAbs
	unFloor
	unCeil
	unTrunc
	unRoundEven
	unRecip
	unSoftplus
	unLog1p
	unExpm1
	unExp2
	unLog2
	unLog10
	unSinh
	unCosh
	unSin
	unCos
	unTan
	unRsqrt
	unHardswish
	unAsin
	unAcos
	unAtan
	numUnOps
)

// kernels is one complete implementation. Callers have checked lengths:
// every slice argument of one call has the same length (for max/min, >= 1).
type kernels struct {
	name         string
	bin32        [numBinOps]func(dst, a, b []float32)
	bin64        [numBinOps]func(dst, a, b []float64)
	sc32         [numBinOps]func(dst, a []float32, s float32) // a op s
	sc64         [numBinOps]func(dst, a []float64, s float64)
	rsc32        [numBinOps]func(dst, a []float32, s float32) // s op a; sub and div only
	rsc64        [numBinOps]func(dst, a []float64, s float64)
	axpy32       func(dst []float32, alpha float32, x, y []float32)
	axpy64       func(dst []float64, alpha float64, x, y []float64)
	un32         [numUnOps]func(dst, x []float32)
	un64         [numUnOps]func(dst, x []float64)
	sum32        func(x []float32) float32
	sum64        func(x []float64) float64
	dot32        func(a, b []float32) float32
	dot64        func(a, b []float64) float64
	max32, min32 func(x []float32) float32
	max64, min64 func(x []float64) float64
	// maxI32 and minI32 are MaxInt's and MinInt's int32 kernels (len(x) >=
	// 1); nil where Go folds the elements.
	maxI32, minI32 func(x []int32) int32
	// adam32 is Adam's one-pass float32 update (c: AdamCoeffs in order);
	// nil where only the generic loop exists.
	adam32 func(w, g, m, v, nw, nm, nv []float32, c *[7]float32)
	// twoSum32 and twoSum64 are TwoSumAdd's kernels for float32 and
	// float64 sources; nil where only the generic loop exists.
	twoSum32 func(s, c []float64, x []float32)
	twoSum64 func(s, c []float64, x []float64)
	// twoSumRows32 and twoSumRows64 are TwoSumAddRows' kernels (x holds
	// the rows, ldx >= 0 apart); nil where it calls the row kernel per row.
	twoSumRows32 func(s, c []float64, x []float32, ldx, rows int)
	twoSumRows64 func(s, c []float64, x []float64, ldx, rows int)
	// maxPool2 and maxPool2Grad are MaxPool2's and MaxPool2Grad's kernels
	// for float32 (validated operands; see those); nil where the Go loops
	// serve.
	maxPool2     func(dst, x []float32, rows, ow, kh, ldr, ldl int)
	maxPool2Grad func(dx, x, y, g []float32, rows, ow, kh, ldr, ldl int)
	// atan232 and atan264 are Atan2's kernels (dst = atan2(y, x)).
	atan232 func(dst, y, x []float32)
	atan264 func(dst, y, x []float64)
	// pow64 is PowF64's and PowScalarF64's kernel: dst = x**y, with y nil
	// for the scalar ys (the same exponent everywhere).
	pow64 func(dst, x, y []float64, ys float64)
	// pow32 is PowF32's and PowScalarF32's, likewise.
	pow32 func(dst, x, y []float32, ys float32)
	// halves are the half-precision conversions (see half.go).
	halves halfKernels
	// widenF32 and narrowF64 convert float32 to float64 and back
	// (WidenF32, NarrowF64).
	widenF32  func(dst []float64, src []float32)
	narrowF64 func(dst []float32, src []float64)
	// truncF32I32 is TruncF32ToI32's kernel.
	truncF32I32 func(dst []int32, src []float32)
	// widenU8F32 is WidenU8F32's kernel.
	widenU8F32 func(dst []float32, src []uint8)
	// absI32 and negI32 are AbsInt's and NegInt's int32 kernels.
	absI32, negI32 func(dst, x []int32)
	// notU8 is NotBytes's kernel.
	notU8 func(dst, x []uint8)
	// rev32 and rev64 are Reverse's kernels for 4- and 8-byte elements.
	rev32 func(dst, x []uint32)
	rev64 func(dst, x []uint64)
	// transpose32 is Transpose's kernel for 8 by n blocks of 4-byte
	// elements (transposeTiles' block8); nil where Go moves every element.
	transpose32 func(dst *uint32, ldd int, src *uint32, lds int, n int)
	// cmp has Compare's and CompareScalar's kernels.
	cmp cmpKernels
	// sel has Select's, SelectElse's and SelectThen's kernels.
	sel selectKernels
}

// active is the kernel set every exported function uses, chosen once at
// init; tests switch it with useKernels.
var active = pick(os.Getenv("TESSERA_CPU"))

// pick returns the widest set this build has and the CPU supports (AVX-512,
// then AVX2+FMA, then generic), unless env (the TESSERA_CPU variable, case
// and surrounding space ignored, as package gemm reads it) caps it:
// "generic" selects the pure Go set and "avx2" stops at the AVX2 set, so
// the lower tiers stay testable on an AVX-512 machine. Any other value
// ("", "avx512", "auto") picks the widest.
func pick(env string) *kernels {
	ks := available()
	switch strings.ToLower(strings.TrimSpace(env)) {
	case "generic":
		return genericKernels
	case "avx2":
		for i := len(ks) - 1; i >= 0; i-- {
			if ks[i] != avx512Kernels {
				return ks[i]
			}
		}
	}
	return ks[len(ks)-1]
}

// available lists the kernel sets that can run on this machine, narrowest
// (generic) first.
func available() []*kernels {
	ks := []*kernels{genericKernels}
	if avx2Kernels != nil && cpuHasAVX2FMA() {
		ks = append(ks, avx2Kernels)
		if avx512Kernels != nil && cpuHasAVX512() {
			ks = append(ks, avx512Kernels)
		}
	}
	return ks
}

// useKernels makes k the active set and returns a function restoring the
// previous one; it is the tests' hook for running both paths in one process.
func useKernels(k *kernels) (restore func()) {
	prev := active
	active = k
	return func() { active = prev }
}
