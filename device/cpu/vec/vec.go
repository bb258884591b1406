package vec

import (
	"unsafe"

	"github.com/tessera-go/tessera/errs"
)

// Float is the element constraint of every kernel: float32 and float64 and
// types defined on them. float32-sized types run the float32 kernels.
type Float interface{ ~float32 | ~float64 }

// Implementation names the active kernel set: "avx512" (AVX-512 assembly),
// "avx2" (AVX2+FMA assembly) or
// "generic" (pure Go), so callers and benchmarks can report what ran.
func Implementation() string { return active.name }

func is32[T Float]() bool {
	var z T
	return unsafe.Sizeof(z) == 4
}

func as32[T Float](s []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func as64[T Float](s []T) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// bytesOverlap reports whether the memory of a and b, slices of any
// element types, overlaps.
func bytesOverlap[A, B any](a []A, b []B) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	var za A
	var zb B
	pa := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	pb := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b))*unsafe.Sizeof(zb) && pb < pa+uintptr(len(a))*unsafe.Sizeof(za)
}

// partialOverlap reports whether out and in share memory without starting
// at the same element.
func partialOverlap[T any](out, in []T) bool {
	return unsafe.SliceData(out) != unsafe.SliceData(in) && bytesOverlap(out, in)
}

func checkAlias[T any](op string, dst []T, ins ...[]T) error {
	for _, in := range ins {
		if partialOverlap(dst, in) {
			return errs.New("vec", op, errs.ErrValue, "dst overlaps an input at a different offset (only dst == input is allowed)")
		}
	}
	return nil
}

// Atan2 sets dst[i] = atan2(y[i], x[i]), the angle of the point (x[i],
// y[i]) in [-pi, pi], with C99's values at signed zeros and infinities
// (C99's: math.Atan2's, but with y's sign where y/x underflows). float32
// runs on the vector sets' kernels in float64 lanes (the float64 result
// rounded once: within 0.501 ulp, TestAtan2F32); float64 on the sets'
// Div and Atan kernels and a kernel placing the angle, within 1.6 ulp
// (TestAtan2F64; see the package doc).
func Atan2[T Float](dst, y, x []T) error {
	if len(y) != len(dst) || len(x) != len(dst) {
		return errs.New("vec", "Atan2", errs.ErrShape, "lengths differ: len(dst)=%d, len(y)=%d, len(x)=%d", len(dst), len(y), len(x))
	}
	if err := checkAlias("Atan2", dst, y, x); err != nil {
		return err
	}
	if is32[T]() {
		active.atan232(as32(dst), as32(y), as32(x))
	} else {
		active.atan264(as64(dst), as64(y), as64(x))
	}
	return nil
}

func binary[T Float](op string, k binOp, dst, a, b []T) error {
	if len(a) != len(dst) || len(b) != len(dst) {
		return errs.New("vec", op, errs.ErrShape, "lengths differ: len(dst)=%d, len(a)=%d, len(b)=%d", len(dst), len(a), len(b))
	}
	if err := checkAlias(op, dst, a, b); err != nil {
		return err
	}
	if is32[T]() {
		active.bin32[k](as32(dst), as32(a), as32(b))
	} else {
		active.bin64[k](as64(dst), as64(a), as64(b))
	}
	return nil
}

func scalar[T Float](op string, k binOp, reversed bool, dst, a []T, s T) error {
	if len(a) != len(dst) {
		return errs.New("vec", op, errs.ErrShape, "lengths differ: len(dst)=%d, len(a)=%d", len(dst), len(a))
	}
	if err := checkAlias(op, dst, a); err != nil {
		return err
	}
	switch {
	case is32[T]() && reversed:
		active.rsc32[k](as32(dst), as32(a), float32(s))
	case is32[T]():
		active.sc32[k](as32(dst), as32(a), float32(s))
	case reversed:
		active.rsc64[k](as64(dst), as64(a), float64(s))
	default:
		active.sc64[k](as64(dst), as64(a), float64(s))
	}
	return nil
}

func unary[T Float](op string, k unOp, dst, x []T) error {
	if len(x) != len(dst) {
		return errs.New("vec", op, errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d", len(dst), len(x))
	}
	if err := checkAlias(op, dst, x); err != nil {
		return err
	}
	if is32[T]() {
		active.un32[k](as32(dst), as32(x))
	} else {
		active.un64[k](as64(dst), as64(x))
	}
	return nil
}

// Add sets dst[i] = a[i] + b[i].
func Add[T Float](dst, a, b []T) error { return binary("Add", opAdd, dst, a, b) }

// Sub sets dst[i] = a[i] - b[i].
func Sub[T Float](dst, a, b []T) error { return binary("Sub", opSub, dst, a, b) }

// Mul sets dst[i] = a[i] * b[i].
func Mul[T Float](dst, a, b []T) error { return binary("Mul", opMul, dst, a, b) }

// Div sets dst[i] = a[i] / b[i].
func Div[T Float](dst, a, b []T) error { return binary("Div", opDiv, dst, a, b) }

// Maximum sets dst[i] to the larger of a[i] and b[i], or NaN if either is
// NaN (PyTorch's maximum, not Go's max, which also propagates NaN but orders
// zeros differently: of +0 and -0 either may be returned).
func Maximum[T Float](dst, a, b []T) error { return binary("Maximum", opMax, dst, a, b) }

// Minimum sets dst[i] to the smaller of a[i] and b[i], or NaN if either is
// NaN; of +0 and -0 either may be returned.
func Minimum[T Float](dst, a, b []T) error { return binary("Minimum", opMin, dst, a, b) }

// AddScalar sets dst[i] = a[i] + s.
func AddScalar[T Float](dst, a []T, s T) error { return scalar("AddScalar", opAdd, false, dst, a, s) }

// SubScalar sets dst[i] = a[i] - s.
func SubScalar[T Float](dst, a []T, s T) error { return scalar("SubScalar", opSub, false, dst, a, s) }

// RSubScalar sets dst[i] = s - a[i] (the reversed form of SubScalar).
func RSubScalar[T Float](dst, a []T, s T) error { return scalar("RSubScalar", opSub, true, dst, a, s) }

// MulScalar sets dst[i] = a[i] * s.
func MulScalar[T Float](dst, a []T, s T) error { return scalar("MulScalar", opMul, false, dst, a, s) }

// DivScalar sets dst[i] = a[i] / s. It divides, rather than multiplying by
// 1/s, so results match Div exactly.
func DivScalar[T Float](dst, a []T, s T) error { return scalar("DivScalar", opDiv, false, dst, a, s) }

// RDivScalar sets dst[i] = s / a[i] (the reversed form of DivScalar).
func RDivScalar[T Float](dst, a []T, s T) error { return scalar("RDivScalar", opDiv, true, dst, a, s) }

// MaximumScalar sets dst[i] to the larger of a[i] and s, NaN-propagating
// like Maximum; it is clamp-from-below when s is not NaN.
func MaximumScalar[T Float](dst, a []T, s T) error {
	return scalar("MaximumScalar", opMax, false, dst, a, s)
}

// MinimumScalar sets dst[i] to the smaller of a[i] and s, NaN-propagating
// like Minimum; it is clamp-from-above when s is not NaN.
func MinimumScalar[T Float](dst, a []T, s T) error {
	return scalar("MinimumScalar", opMin, false, dst, a, s)
}

// Axpy sets dst[i] = alpha*x[i] + y[i], rounded once (a fused multiply-add),
// the update step of BLAS axpy and of most optimisers. dst may be y (or x)
// for an in-place update.
func Axpy[T Float](dst []T, alpha T, x, y []T) error {
	if len(x) != len(dst) || len(y) != len(dst) {
		return errs.New("vec", "Axpy", errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d, len(y)=%d", len(dst), len(x), len(y))
	}
	if err := checkAlias("Axpy", dst, x, y); err != nil {
		return err
	}
	if is32[T]() {
		active.axpy32(as32(dst), float32(alpha), as32(x), as32(y))
	} else {
		active.axpy64(as64(dst), float64(alpha), as64(x), as64(y))
	}
	return nil
}

// Relu sets dst[i] = x[i] if x[i] > 0, else +0; NaN stays NaN.
func Relu[T Float](dst, x []T) error { return unary("Relu", unRelu, dst, x) }

// Sqrt sets dst[i] to the square root of x[i], correctly rounded (the
// hardware's IEEE square root, which float64 math.Sqrt rounded to float32
// equals): NaN for negative x, -0 for -0.
func Sqrt[T Float](dst, x []T) error { return unary("Sqrt", unSqrt, dst, x) }

// Sign sets dst[i] to 1 for positive x[i], -1 for negative x[i], +0 for
// ±0 and NaN for NaN (the op table's Sign, and NumPy's sign).
func Sign[T Float](dst, x []T) error { return unary("Sign", unSign, dst, x) }

// Exp sets dst[i] = e**x[i]; it overflows to +Inf and underflows to 0.
func Exp[T Float](dst, x []T) error { return unary("Exp", unExp, dst, x) }

// Log sets dst[i] to the natural logarithm of x[i]: -Inf for ±0, NaN for
// negative x.
func Log[T Float](dst, x []T) error { return unary("Log", unLog, dst, x) }

// Log2 sets dst[i] to the base-2 logarithm of x[i] (math.Log2). For
// float32 the vector sets have kernels of their own (Log's reduction and
// polynomial, times 1/ln2 carried as an exact product, plus the exponent:
// within 1 ulp, and exact at powers of two). float64 has kernels on both
// vector sets and log2_64 on the generic one (math.Log2 with the exponent
// split off first; see the package documentation).
func Log2[T Float](dst, x []T) error { return unary("Log2", unLog2, dst, x) }

// Log10 sets dst[i] to the base-10 logarithm of x[i] (math.Log10), as Log2
// computes the base-2 one (exact at 1, 10, ..., 1e10).
func Log10[T Float](dst, x []T) error { return unary("Log10", unLog10, dst, x) }

// Log1p sets dst[i] = log(1+x[i]), accurate for small x (math.Log1p).
// For float32 the vector sets have kernels of their own: Log's on u = 1+x
// rounded, plus (x - (u-1))/u, the rounding of u to first order, so tiny
// x gives x; within 1 ulp. float64 has kernels on both vector sets and
// is package math's on the generic one.
func Log1p[T Float](dst, x []T) error { return unary("Log1p", unLog1p, dst, x) }

// Expm1 sets dst[i] = e^x[i] - 1, accurate for small x (math.Expm1). For
// float32 the vector sets have kernels of their own: exp's reduction x =
// k*ln2 + r, e^r - 1 = r + r^2*q(r) with the leading r exact, and
// 2^k*(1+p) - 1 rounded once. float64 has kernels on both vector sets
// and is package math's, mended where it is wrong, on the generic one.
func Expm1[T Float](dst, x []T) error { return unary("Expm1", unExpm1, dst, x) }

// Exp2 sets dst[i] = 2^x[i] (math.Exp2). For float32 both vector sets
// have kernels of their own (2^r by a polynomial fitted for it on the
// exact r = x - round(x), the power of two applied with one rounding:
// within 0.800 ulp); float64 has kernels on both vector sets and is
// package math's on the generic one.
func Exp2[T Float](dst, x []T) error { return unary("Exp2", unExp2, dst, x) }

// Exp2Half sets dst[i] = 2^x[i] as ExpHalf computes Exp (one pass on
// the AVX-512 set, through float32 blocks on the others).
func Exp2Half[H Half](dst, x []H) error { return unaryHalf("Exp2Half", unExp2, dst, x) }

// Sinh sets dst[i] to the hyperbolic sine of x[i] (math.Sinh). For
// float32 the vector sets have kernels in float64 lanes (e^|x| and
// e^-|x| from one reduction, the odd series alone below |x| = ln2/2, the
// sign of x copied, rounded once). float64 has kernels on both vector
// sets and is package math's, mended above |x| = 709, on the generic one.
func Sinh[T Float](dst, x []T) error { return unary("Sinh", unSinh, dst, x) }

// Cosh sets dst[i] to the hyperbolic cosine of x[i] (math.Cosh), for
// float32 as Sinh computes it, from the same two exponentials.
func Cosh[T Float](dst, x []T) error { return unary("Cosh", unCosh, dst, x) }

// Tanh sets dst[i] = tanh(x[i]).
func Tanh[T Float](dst, x []T) error { return unary("Tanh", unTanh, dst, x) }

// Sigmoid sets dst[i] = 1/(1+e**-x[i]), the logistic function, accurate in
// relative terms also where it is tiny (large negative x).
func Sigmoid[T Float](dst, x []T) error { return unary("Sigmoid", unSigmoid, dst, x) }

// GeluTanh sets dst[i] to the tanh approximation of GELU,
// 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))) (PyTorch's approximate="tanh"),
// computed as x*sigmoid(2*sqrt(2/pi)(x+0.044715x^3)), an identity that keeps
// the relative accuracy for negative x.
func GeluTanh[T Float](dst, x []T) error { return unary("GeluTanh", unGeluTanh, dst, x) }

// GeluErf sets dst[i] to the exact GELU, 0.5x(1+erf(x/sqrt2)) (PyTorch's
// default), computed as 0.5x*erfc(-x/sqrt2) so it keeps its relative accuracy
// for negative x.
func GeluErf[T Float](dst, x []T) error { return unary("GeluErf", unGeluErf, dst, x) }

// Erf sets dst[i] to the error function of x[i].
func Erf[T Float](dst, x []T) error { return unary("Erf", unErf, dst, x) }

// Silu sets dst[i] = x[i]*sigmoid(x[i]) (SiLU, also called swish, the
// gate of SwiGLU), computed as x*e^x/(1+e^x) for negative x with e^x's
// power of two applied last, so that results near the underflow keep
// their accuracy; Silu(-Inf) is -0, the limit.
func Silu[T Float](dst, x []T) error { return unary("Silu", unSilu, dst, x) }

// Neg sets dst[i] = -x[i]: the sign bit flipped, so -0 for +0 and a NaN
// of the other sign for NaN.
func Neg[T Float](dst, x []T) error { return unary("Neg", unNeg, dst, x) }

// Abs sets dst[i] = |x[i]|: the sign bit cleared, NaN included.
func Abs[T Float](dst, x []T) error { return unary("Abs", unAbs, dst, x) }

// Floor sets dst[i] to x[i] rounded toward -Inf (math.Floor: ±0, ±Inf
// and NaN unchanged, -0.5 to -1).
func Floor[T Float](dst, x []T) error { return unary("Floor", unFloor, dst, x) }

// Ceil sets dst[i] to x[i] rounded toward +Inf (math.Ceil: -0.5 to -0).
func Ceil[T Float](dst, x []T) error { return unary("Ceil", unCeil, dst, x) }

// Trunc sets dst[i] to x[i] rounded toward zero (math.Trunc).
func Trunc[T Float](dst, x []T) error { return unary("Trunc", unTrunc, dst, x) }

// RoundEven sets dst[i] to x[i] rounded to the nearest integer, halves to
// even (math.RoundToEven, NumPy's round and PyTorch's).
func RoundEven[T Float](dst, x []T) error { return unary("RoundEven", unRoundEven, dst, x) }

// Reciprocal sets dst[i] = 1/x[i], correctly rounded (±Inf for ±0).
func Reciprocal[T Float](dst, x []T) error { return unary("Reciprocal", unRecip, dst, x) }

// Rsqrt sets dst[i] = 1/sqrt(x[i]) as float64 1/math.Sqrt rounded to T,
// bit for bit on every set: the vector sets take the square root and the
// quotient in float64 lanes, each correctly rounded, and round once more
// for float32 (NaN for x < 0, +Inf for +0, -Inf for -0, 0 for +Inf).
func Rsqrt[T Float](dst, x []T) error { return unary("Rsqrt", unRsqrt, dst, x) }

// Hardswish sets dst[i] = x[i] * min(max(x[i]+3, 0), 6) / 6, computed in
// float64 and rounded to T (the op table's formula bit for bit: the
// vector sets widen float32 to float64 lanes and take the same IEEE steps
// in the same order); NaN stays NaN and -Inf gives NaN (-Inf * 0).
func Hardswish[T Float](dst, x []T) error { return unary("Hardswish", unHardswish, dst, x) }

// Sum returns the sum of x (0 for an empty x), deterministically: the same
// x gives the same bits on every run and every implementation. The package
// documentation states its error bound.
func Sum[T Float](x []T) T {
	if is32[T]() {
		return T(active.sum32(as32(x)))
	}
	return T(active.sum64(as64(x)))
}

// Dot returns the sum of a[i]*b[i], with the same deterministic blocked
// order and error bound as Sum (each product is fused into its lane).
func Dot[T Float](a, b []T) (T, error) {
	if len(a) != len(b) {
		return 0, errs.New("vec", "Dot", errs.ErrShape, "lengths differ: len(a)=%d, len(b)=%d", len(a), len(b))
	}
	if is32[T]() {
		return T(active.dot32(as32(a), as32(b))), nil
	}
	return T(active.dot64(as64(a), as64(b))), nil
}

// Max returns the largest element of x, or NaN if any element is NaN
// (PyTorch's max). An empty x is an error, because it has no maximum.
func Max[T Float](x []T) (T, error) {
	if len(x) == 0 {
		return 0, errs.New("vec", "Max", errs.ErrShape, "empty input has no maximum")
	}
	if is32[T]() {
		return T(active.max32(as32(x))), nil
	}
	return T(active.max64(as64(x))), nil
}

// Min returns the smallest element of x, or NaN if any element is NaN. An
// empty x is an error.
func Min[T Float](x []T) (T, error) {
	if len(x) == 0 {
		return 0, errs.New("vec", "Min", errs.ErrShape, "empty input has no minimum")
	}
	if is32[T]() {
		return T(active.min32(as32(x))), nil
	}
	return T(active.min64(as64(x))), nil
}
