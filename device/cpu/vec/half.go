package vec

import (
	"math"
	"sync"
	"unsafe"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// halfKernels are one kernel set's half-precision conversions and sums.
// Callers have checked that dst and src have the same length.
type halfKernels struct {
	widenBF16, widenF16   func(dst []float32, src []uint16)
	narrowBF16, narrowF16 func(dst []uint16, src []float32)
	roundBF16, roundF16   func(dst, x []float32)
	sumBF16, sumF16       func(x []uint16) float32 // SumHalf
	// binBF16 and binF16 compute a binary operation on half values in one
	// pass over whole vectors of lanes elements (n a multiple of it), and
	// unBF16 and unF16 a unary one; where nil, and for the rest,
	// binaryHalf and unaryHalf run the set's own widening, float32
	// operation and narrowing over pooled blocks.
	binBF16, binF16 [numBinOps]func(dst, a, b *uint16, n int)
	unBF16, unF16   [numUnOps]func(dst, x *uint16, n int)
	lanes           int
}

// halfGo is the generic set's: the dtype package's scalar conversions,
// which every assembly kernel matches bit for bit, and sumF32Go's order
// over them.
var halfGo = halfKernels{
	widenBF16: widenBF16Go,
	widenF16:  widenF16Go,
	sumBF16:   func(x []uint16) float32 { return sumWidenedGo(x, widenBF16Go) },
	sumF16:    func(x []uint16) float32 { return sumWidenedGo(x, widenF16Go) },
	narrowBF16: func(dst []uint16, src []float32) {
		src = src[:len(dst)]
		for i, v := range src {
			dst[i] = uint16(dtype.BF16FromFloat32(v))
		}
	},
	narrowF16: func(dst []uint16, src []float32) {
		src = src[:len(dst)]
		for i, v := range src {
			dst[i] = uint16(dtype.F16FromFloat32(v))
		}
	},
	roundBF16: func(dst, x []float32) {
		x = x[:len(dst)]
		for i, v := range x {
			dst[i] = dtype.BF16FromFloat32(v).Float32()
		}
	},
	roundF16: func(dst, x []float32) {
		x = x[:len(dst)]
		for i, v := range x {
			dst[i] = dtype.F16FromFloat32(v).Float32()
		}
	},
}

func widenBF16Go(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = math.Float32frombits(uint32(v) << 16)
	}
}

func widenF16Go(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = dtype.Float16(v).Float32()
	}
}

// Half is the constraint of the half-precision conversions: bfloat16 and
// IEEE binary16.
type Half interface{ dtype.BFloat16 | dtype.Float16 }

func isBF16[H Half]() bool {
	var z H
	_, ok := any(z).(dtype.BFloat16)
	return ok
}

func bits16[H Half](s []H) []uint16 {
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// Widen sets dst[i] to src[i] as a float32, exactly (as
// dtype.BFloat16.Float32 and dtype.Float16.Float32 do, NaN payloads
// included). Half-precision tensors compute in float32, so every
// operation on them starts here; the vector kernels make that a pass at
// memory speed instead of a scalar loop.
func Widen[H Half](dst []float32, src []H) error {
	if len(src) != len(dst) {
		return errs.New("vec", "Widen", errs.ErrShape, "lengths differ: len(dst)=%d, len(src)=%d", len(dst), len(src))
	}
	if isBF16[H]() {
		active.halves.widenBF16(dst, bits16(src))
	} else {
		active.halves.widenF16(dst, bits16(src))
	}
	return nil
}

// WidenF32 sets dst[i] to src[i] as a float64, exactly, as Go's
// float64(src[i]) does (a signalling NaN comes out quiet, as there).
// Casts of tensors and float32 kernels that compute in float64 start
// here. dst and src must not overlap.
func WidenF32(dst []float64, src []float32) error {
	return convertChecked("WidenF32", dst, src, active.widenF32)
}

// NarrowF64 sets dst[i] to src[i] rounded to float32, ties to even, as
// Go's float32(src[i]) does: overflow gives ±Inf, a NaN stays a NaN
// (quiet, the high bits of its payload kept). dst and src must not
// overlap.
func NarrowF64(dst []float32, src []float64) error {
	return convertChecked("NarrowF64", dst, src, active.narrowF64)
}

// TruncF32ToI32 sets dst[i] to src[i] truncated toward zero as an int32,
// saturating: values from 2^31 up give MaxInt32, values below -2^31 give
// MinInt32, and NaN gives 0 (the CPU backend's rule for casts from floats
// to integers; Go's own conversion leaves those cases to the platform).
// dst and src must not overlap.
func TruncF32ToI32(dst []int32, src []float32) error {
	return convertChecked("TruncF32ToI32", dst, src, active.truncF32I32)
}

// WidenU8F32 sets dst[i] to src[i] as a float32, exactly: the CPU
// backend's cast of U8 and Bool tensors (masks) to float32. dst and src
// must not overlap.
func WidenU8F32(dst []float32, src []uint8) error {
	return convertChecked("WidenU8F32", dst, src, active.widenU8F32)
}

// widenU8F32Go is the generic set's WidenU8F32 (and the vector sets'
// tail).
func widenU8F32Go(dst []float32, src []uint8) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = float32(v)
	}
}

// truncF32I32Go is the generic set's TruncF32ToI32 (and the vector sets'
// tail).
func truncF32I32Go(dst []int32, src []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		switch {
		case v != v:
			dst[i] = 0
		case v >= 1<<31:
			dst[i] = math.MaxInt32
		case v < -(1 << 31):
			dst[i] = math.MinInt32
		default:
			dst[i] = int32(v)
		}
	}
}

// convertChecked checks op's arguments (equal lengths, no overlap) and
// runs the conversion kernel k: WidenF32, NarrowF64, TruncF32ToI32 and
// WidenU8F32.
func convertChecked[D, S any](op string, dst []D, src []S, k func([]D, []S)) error {
	if len(src) != len(dst) {
		return errs.New("vec", op, errs.ErrShape, "lengths differ: len(dst)=%d, len(src)=%d", len(dst), len(src))
	}
	if bytesOverlap(dst, src) {
		return errs.New("vec", op, errs.ErrValue, "dst and src overlap")
	}
	k(dst, src)
	return nil
}

// convertGo is the generic set's WidenF32 and NarrowF64: Go's
// conversion, element by element.
func convertGo[D, S float32 | float64](dst []D, src []S) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = D(v)
	}
}

var widenF32Go, narrowF64Go = convertGo[float64, float32], convertGo[float32, float64]

// Narrow sets dst[i] to src[i] rounded to the half type, ties to even, as
// dtype.BF16FromFloat32 and dtype.F16FromFloat32 round: overflow gives
// ±Inf, a NaN stays a NaN (quiet), binary16 keeps its subnormals.
func Narrow[H Half](dst []H, src []float32) error {
	if len(src) != len(dst) {
		return errs.New("vec", "Narrow", errs.ErrShape, "lengths differ: len(dst)=%d, len(src)=%d", len(dst), len(src))
	}
	if isBF16[H]() {
		active.halves.narrowBF16(bits16(dst), src)
	} else {
		active.halves.narrowF16(bits16(dst), src)
	}
	return nil
}

// SumHalf returns the sum of x's values as float32s, in Sum's order and
// with its error bound: the bits of Widen followed by Sum, NaNs included,
// from one pass over the 16-bit values without the float32 copy (0 for an
// empty x). Half-precision tensors sum in float32 this way.
func SumHalf[H Half](x []H) float32 {
	if isBF16[H]() {
		return active.halves.sumBF16(bits16(x))
	}
	return active.halves.sumF16(bits16(x))
}

// RoundBF16 sets dst[i] to x[i] rounded to bfloat16 and widened back to
// float32 (Narrow then Widen, in one pass): a computation in float32 on
// bfloat16 values rounds each result this way. dst may be x.
func RoundBF16(dst, x []float32) error {
	if err := roundCheck("RoundBF16", dst, x); err != nil {
		return err
	}
	active.halves.roundBF16(dst, x)
	return nil
}

// RoundF16 is RoundBF16 for IEEE binary16.
func RoundF16(dst, x []float32) error {
	if err := roundCheck("RoundF16", dst, x); err != nil {
		return err
	}
	active.halves.roundF16(dst, x)
	return nil
}

func roundCheck(op string, dst, x []float32) error {
	if len(x) != len(dst) {
		return errs.New("vec", op, errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d", len(dst), len(x))
	}
	return checkAlias(op, dst, x)
}

// AddHalf sets dst[i] = a[i] + b[i] for bfloat16 or binary16 values,
// computed in float32 and rounded once to the half type: the bits of Widen,
// Add and Narrow in turn, in one pass over the 16-bit values. dst may be a
// or b.
func AddHalf[H Half](dst, a, b []H) error { return binaryHalf("AddHalf", opAdd, dst, a, b) }

// SubHalf sets dst[i] = a[i] - b[i] as AddHalf adds.
func SubHalf[H Half](dst, a, b []H) error { return binaryHalf("SubHalf", opSub, dst, a, b) }

// MulHalf sets dst[i] = a[i] * b[i] as AddHalf adds.
func MulHalf[H Half](dst, a, b []H) error { return binaryHalf("MulHalf", opMul, dst, a, b) }

// DivHalf sets dst[i] = a[i] / b[i] as AddHalf adds.
func DivHalf[H Half](dst, a, b []H) error { return binaryHalf("DivHalf", opDiv, dst, a, b) }

// MaximumHalf sets dst[i] to Maximum of a[i] and b[i] (NaN if either is
// NaN) as AddHalf adds.
func MaximumHalf[H Half](dst, a, b []H) error { return binaryHalf("MaximumHalf", opMax, dst, a, b) }

// MinimumHalf sets dst[i] to Minimum of a[i] and b[i] as AddHalf adds.
func MinimumHalf[H Half](dst, a, b []H) error { return binaryHalf("MinimumHalf", opMin, dst, a, b) }

// halfBlock is the float32 block binaryHalf widens into where it has no
// one-pass kernel: two blocks of 1 KiB, from halfBlocks (passed to the
// kernel set's functions, arrays on the stack would escape to the heap on
// every call).
const halfBlock = 256

var halfBlocks = sync.Pool{New: func() any { return new([2][halfBlock]float32) }}

func binaryHalf[H Half](op string, k binOp, dst, a, b []H) error {
	if len(a) != len(dst) || len(b) != len(dst) {
		return errs.New("vec", op, errs.ErrShape, "lengths differ: len(dst)=%d, len(a)=%d, len(b)=%d", len(dst), len(a), len(b))
	}
	if err := checkAlias(op, dst, a, b); err != nil {
		return err
	}
	d, x, y := bits16(dst), bits16(a), bits16(b)
	hk := &active.halves
	one := hk.binF16[k]
	if isBF16[H]() {
		one = hk.binBF16[k]
	}
	halfPasses[H](len(d), func(m int) {
		one(unsafe.SliceData(d), unsafe.SliceData(x), unsafe.SliceData(y), m)
	}, one != nil, func(lo, m int, u, v []float32, widen func([]float32, []uint16), narrow func([]uint16, []float32)) {
		widen(u, x[lo:lo+m])
		widen(v, y[lo:lo+m])
		active.bin32[k](u, u, v)
		narrow(d[lo:lo+m], u)
	})
	return nil
}

// halfPasses runs a half-precision operation over n values: the one-pass
// kernel (one, where has) over the longest run of whole vectors, then
// block over the rest in pooled float32 blocks u and v of m values from
// lo, with the active set's conversions of type H.
func halfPasses[H Half](n int, one func(m int), has bool, block func(lo, m int, u, v []float32, widen func([]float32, []uint16), narrow func([]uint16, []float32))) {
	hk := &active.halves
	lo := 0
	if has {
		if lo = n / hk.lanes * hk.lanes; lo > 0 {
			one(lo)
		}
	}
	if lo == n {
		return
	}
	widen, narrow := hk.widenF16, hk.narrowF16
	if isBF16[H]() {
		widen, narrow = hk.widenBF16, hk.narrowBF16
	}
	blocks := halfBlocks.Get().(*[2][halfBlock]float32)
	for ; lo < n; lo += halfBlock {
		m := min(n-lo, halfBlock)
		block(lo, m, blocks[0][:m], blocks[1][:m], widen, narrow)
	}
	halfBlocks.Put(blocks)
}

// ReluHalf sets dst[i] = x[i] > 0 ? x[i] : 0 (NaN kept) for bfloat16 or
// binary16 values, in one pass over the 16-bit values: the bits of Widen,
// Relu and Narrow in turn. dst may be x.
func ReluHalf[H Half](dst, x []H) error { return unaryHalf("ReluHalf", unRelu, dst, x) }

// SqrtHalf sets dst[i] = sqrt(x[i]) as ExpHalf computes Exp. The result
// is the correctly rounded root: float32's root is, and float32 has more
// than twice the half types' significant bits plus two, so rounding it
// again gives what rounding the exact root once would.
func SqrtHalf[H Half](dst, x []H) error { return unaryHalf("SqrtHalf", unSqrt, dst, x) }

// SignHalf sets dst[i] to Sign of x[i] (1, -1, +0 for ±0, NaN for NaN)
// for bfloat16 or binary16 values, exactly, in one pass.
func SignHalf[H Half](dst, x []H) error { return unaryHalf("SignHalf", unSign, dst, x) }

// ExpHalf sets dst[i] = e**x[i] for bfloat16 or binary16 values, computed
// in float32 by Exp's kernel and rounded once to the half type: the bits of
// Widen, Exp and Narrow in turn, in one pass over the 16-bit values. dst
// may be x.
func ExpHalf[H Half](dst, x []H) error { return unaryHalf("ExpHalf", unExp, dst, x) }

// LogHalf sets dst[i] = ln(x[i]) as ExpHalf computes Exp.
func LogHalf[H Half](dst, x []H) error { return unaryHalf("LogHalf", unLog, dst, x) }

// Log2Half sets dst[i] = log2(x[i]) as ExpHalf computes Exp.
func Log2Half[H Half](dst, x []H) error { return unaryHalf("Log2Half", unLog2, dst, x) }

// Log10Half sets dst[i] = log10(x[i]) as ExpHalf computes Exp.
func Log10Half[H Half](dst, x []H) error { return unaryHalf("Log10Half", unLog10, dst, x) }

// Log1pHalf sets dst[i] = log(1+x[i]) as ExpHalf computes Exp.
func Log1pHalf[H Half](dst, x []H) error { return unaryHalf("Log1pHalf", unLog1p, dst, x) }

// Expm1Half sets dst[i] = e^x[i] - 1 as ExpHalf computes Exp.
func Expm1Half[H Half](dst, x []H) error { return unaryHalf("Expm1Half", unExpm1, dst, x) }

// TanhHalf sets dst[i] = tanh(x[i]) as ExpHalf computes Exp.
func TanhHalf[H Half](dst, x []H) error { return unaryHalf("TanhHalf", unTanh, dst, x) }

// SigmoidHalf sets dst[i] = 1/(1+e**-x[i]) as ExpHalf computes Exp.
func SigmoidHalf[H Half](dst, x []H) error { return unaryHalf("SigmoidHalf", unSigmoid, dst, x) }

// GeluTanhHalf sets dst[i] to GeluTanh of x[i] as ExpHalf computes Exp.
func GeluTanhHalf[H Half](dst, x []H) error { return unaryHalf("GeluTanhHalf", unGeluTanh, dst, x) }

// GeluErfHalf sets dst[i] to GeluErf of x[i] as ExpHalf computes Exp.
func GeluErfHalf[H Half](dst, x []H) error { return unaryHalf("GeluErfHalf", unGeluErf, dst, x) }

// ErfHalf sets dst[i] = erf(x[i]) as ExpHalf computes Exp.
func ErfHalf[H Half](dst, x []H) error { return unaryHalf("ErfHalf", unErf, dst, x) }

// SiluHalf sets dst[i] to Silu of x[i] as ExpHalf computes Exp.
func SiluHalf[H Half](dst, x []H) error { return unaryHalf("SiluHalf", unSilu, dst, x) }

// NegHalf sets dst[i] = -x[i] as ExpHalf computes Exp (which for Neg is
// exact: the sign bit flipped).
func NegHalf[H Half](dst, x []H) error { return unaryHalf("NegHalf", unNeg, dst, x) }

// AbsHalf sets dst[i] = |x[i]| as NegHalf computes Neg.
func AbsHalf[H Half](dst, x []H) error { return unaryHalf("AbsHalf", unAbs, dst, x) }

// FloorHalf sets dst[i] to Floor of x[i] as ExpHalf computes Exp; the
// result is exact.
func FloorHalf[H Half](dst, x []H) error { return unaryHalf("FloorHalf", unFloor, dst, x) }

// CeilHalf sets dst[i] to Ceil of x[i] as FloorHalf computes Floor.
func CeilHalf[H Half](dst, x []H) error { return unaryHalf("CeilHalf", unCeil, dst, x) }

// TruncHalf sets dst[i] to Trunc of x[i] as FloorHalf computes Floor.
func TruncHalf[H Half](dst, x []H) error { return unaryHalf("TruncHalf", unTrunc, dst, x) }

// RoundEvenHalf sets dst[i] to RoundEven of x[i] as FloorHalf computes
// Floor.
func RoundEvenHalf[H Half](dst, x []H) error {
	return unaryHalf("RoundEvenHalf", unRoundEven, dst, x)
}

// ReciprocalHalf sets dst[i] = 1/x[i] as ExpHalf computes Exp: the float32
// quotient rounded to the half type.
func ReciprocalHalf[H Half](dst, x []H) error {
	return unaryHalf("ReciprocalHalf", unRecip, dst, x)
}

// RsqrtHalf sets dst[i] = 1/sqrt(x[i]) as ExpHalf computes Exp: Rsqrt's
// float32 result rounded once more to the half type.
func RsqrtHalf[H Half](dst, x []H) error { return unaryHalf("RsqrtHalf", unRsqrt, dst, x) }

// HardswishHalf sets dst[i] = Hardswish(x[i]) as ExpHalf computes Exp:
// Hardswish's float32 result rounded once more to H.
func HardswishHalf[H Half](dst, x []H) error {
	return unaryHalf("HardswishHalf", unHardswish, dst, x)
}

func unaryHalf[H Half](op string, k unOp, dst, x []H) error {
	if len(x) != len(dst) {
		return errs.New("vec", op, errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d", len(dst), len(x))
	}
	if err := checkAlias(op, dst, x); err != nil {
		return err
	}
	d, s := bits16(dst), bits16(x)
	hk := &active.halves
	one := hk.unF16[k]
	if isBF16[H]() {
		one = hk.unBF16[k]
	}
	halfPasses[H](len(d), func(m int) {
		one(unsafe.SliceData(d), unsafe.SliceData(s), m)
	}, one != nil, func(lo, m int, u, _ []float32, widen func([]float32, []uint16), narrow func([]uint16, []float32)) {
		widen(u, s[lo:lo+m])
		active.un32[k](u, u)
		narrow(d[lo:lo+m], u)
	})
	return nil
}
