package cpu

import (
	"math"
	"slices"
	"sync"
	"unsafe"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/layout"
)

// The fast paths: rows whose elements are adjacent in every operand go to
// the vectorised kernels of package vec (AVX2 assembly where the processor
// has it); other rows take the strided loops. Rows come from layout.Rows,
// which merges contiguous axes, so a contiguous tensor is one long row, and a
// scalar broadcast along a row (stride 0) uses the scalar form of a kernel.

// binaryKernels returns op's vector-vector kernel, its vector-scalar kernel
// (a op s) and its scalar-vector kernel (s op b), each nil where there is
// none (Atan2 has only the vector-vector one; LeakyRelu and Elu only the
// vector-scalar one).
func binaryKernels[T vec.Float](op device.BinaryOp) (vv func(dst, a, b []T) error, vs, sv func(dst, a []T, s T) error) {
	switch op {
	case device.Add:
		return vec.Add[T], vec.AddScalar[T], vec.AddScalar[T]
	case device.Sub:
		return vec.Sub[T], vec.SubScalar[T], vec.RSubScalar[T]
	case device.Mul:
		return vec.Mul[T], vec.MulScalar[T], vec.MulScalar[T]
	case device.Div:
		return vec.Div[T], vec.DivScalar[T], vec.RDivScalar[T]
	case device.Maximum:
		return vec.Maximum[T], vec.MaximumScalar[T], vec.MaximumScalar[T]
	case device.Minimum:
		return vec.Minimum[T], vec.MinimumScalar[T], vec.MinimumScalar[T]
	case device.Atan2:
		return vec.Atan2[T], nil, nil
	case device.Pow:
		if is32[T]() {
			return powRows[T], powScalar[T], nil
		}
		return powRows64[T], powScalar[T], nil
	case device.LeakyRelu: // a constant second operand only
		return nil, leakyReluScalar[T], nil
	case device.Elu:
		return nil, eluScalar[T], nil
	}
	return nil, nil, nil
}

// selectBlock is how many elements leakyReluScalar and eluScalar take at a
// time: their blocks stay in L1 between the kernel calls and
// the final pass.
const selectBlock = 512

// blockPool holds the scratch blocks of those loops. An array declared in
// them moves to the heap (the vec kernels it is passed to are reached
// through function values), so every call allocated and cleared its
// block, once per fused block of a chain.
var blockPool = sync.Pool{New: func() any { return new([selectBlock]float64) }}

// blockScratch returns a block of selectBlock elements of T from
// blockPool, and the array to put back when done.
func blockScratch[T vec.Float]() (x []T, p *[selectBlock]float64) {
	p = blockPool.Get().(*[selectBlock]float64)
	return unsafe.Slice((*T)(unsafe.Pointer(p)), selectBlock), p
}

// leakyReluScalar sets dst = a where a > 0, else s*a (the op table's
// formula, bit for bit: the product rounds once either way), the products
// from vec.MulScalar a block at a time. With 0 < s <= 1 that is max(a,
// s*a), with s > 1 min(a, s*a), on vec's Maximum and Minimum (NaN stays
// NaN, and a zero's product is the same zero); other slopes (0, where
// 0*Inf is NaN, negative ones, NaN) select by a's sign.
func leakyReluScalar[T vec.Float](dst, a []T, s T) error {
	buf, p := blockScratch[T]()
	defer blockPool.Put(p)
	for len(a) > 0 {
		n := min(len(a), selectBlock)
		c, x, d := buf[:n], a[:n], dst[:n]
		_ = vec.MulScalar(c, x, s)
		switch {
		case s > 0 && s <= 1:
			_ = vec.Maximum(d, x, c)
		case s > 1:
			_ = vec.Minimum(d, x, c)
		default:
			selectPositive(d, x, c)
		}
		a, dst = a[n:], dst[n:]
	}
	return nil
}

// eluScalar sets dst = a where a > 0, else alpha*(e^a - 1), with e^a - 1
// from vec.Expm1 (within 1 ulp, as the Expm1 op's fast path) a block at a
// time.
func eluScalar[T vec.Float](dst, a []T, alpha T) error {
	buf, p := blockScratch[T]()
	defer blockPool.Put(p)
	for len(a) > 0 {
		n := min(len(a), selectBlock)
		c, x, d := buf[:n], a[:n], dst[:n]
		_ = vec.Expm1(c, x)
		_ = vec.MulScalar(c, c, alpha)
		selectPositive(d, x, c)
		a, dst = a[n:], dst[n:]
	}
	return nil
}

// powScalar sets dst = a**s, with the exponents models use most on
// kernels: 2 as a*a, -1 as 1/a, 0.5 and -0.5 as the square root and its
// reciprocal (the op table's 1/sqrt, as math.Pow computes it), 1 and 0 as
// a copy and ones. Those forms are the op table's values (internal/pow64
// takes the same shortcuts; float32 rounds its float64 value, which a*a
// and 1/a match exactly) and NumPy's, whose power takes them too. Other
// exponents: vec.PowScalarF32 (the power in float64 to about 2^-38,
// rounded once) and vec.PowScalarF64 (pow64.Pow's values, within 1 ulp of
// the exact power).
func powScalar[T vec.Float](dst, a []T, s T) error {
	if len(a) == 0 {
		return nil
	}
	dst = dst[:len(a)]
	switch s {
	case 2:
		return vec.Mul(dst, a, a)
	case -1:
		return vec.RDivScalar(dst, a, 1)
	case 1:
		copy(dst, a)
		return nil
	case 0:
		for i := range dst {
			dst[i] = 1
		}
		return nil
	case 0.5, -0.5:
		// Data holding -Inf (or NaN, which a min reduction also returns)
		// goes per element below: math.Pow(-Inf, ±0.5) is +Inf and +0,
		// where the kernels give NaN. Otherwise the kernels, and a sign
		// mend for -0: sqrt(-0) + 0 = +0 and |1/sqrt(-0)| = +Inf, as
		// math.Pow gives.
		if m, _ := vec.Min(a); m > T(math.Inf(-1)) {
			if s == 0.5 {
				_ = vec.Sqrt(dst, a)
				return vec.AddScalar(dst, dst, 0)
			}
			_ = vec.Rsqrt(dst, a)
			return vec.Abs(dst, dst)
		}
	}
	if is32[T]() {
		return vec.PowScalarF32(unsafeSlice[float32](dst), unsafeSlice[float32](a), float32(s))
	}
	return vec.PowScalarF64(unsafeSlice[float64](dst), unsafeSlice[float64](a), float64(s))
}

// powRows64 is Pow's float64 vector-vector form (vec.PowF64).
func powRows64[T vec.Float](dst, a, b []T) error {
	return vec.PowF64(unsafeSlice[float64](dst), unsafeSlice[float64](a), unsafeSlice[float64](b))
}

// powRows is Pow's float32 vector-vector form (vec.PowF32).
func powRows[T vec.Float](dst, a, b []T) error {
	return vec.PowF32(unsafeSlice[float32](dst), unsafeSlice[float32](a), unsafeSlice[float32](b))
}

// selectPositive sets dst[i] = x[i] where x[i] > 0, else c[i]; dst may
// be x. It compares and selects the bit patterns as signed integers,
// which the compiler turns into conditional moves (a branch on the sign
// of random data mispredicts half the time): a float is above 0 exactly
// where its bits are, but for a NaN of clear sign bit, which selects x[i]
// (a NaN) where the formula gives c[i] (a NaN too).
func selectPositive[T vec.Float](dst, x, c []T) {
	if is32[T]() {
		selectPositiveBits(unsafeSlice[int32](dst), unsafeSlice[int32](x), unsafeSlice[int32](c))
		return
	}
	selectPositiveBits(unsafeSlice[int64](dst), unsafeSlice[int64](x), unsafeSlice[int64](c))
}

func selectPositiveBits[I int32 | int64](dst, x, c []I) {
	c, dst = c[:len(x)], dst[:len(x)]
	for i, v := range x {
		r := c[i]
		if v > 0 {
			r = v
		}
		dst[i] = r
	}
}

// unsafeSlice views a float slice as a slice of another same-sized type
// (its integers, or float32 itself where T is known to be float32).
func unsafeSlice[I int32 | int64 | float32 | float64, T vec.Float](s []T) []I {
	return unsafe.Slice((*I)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// floatBinaryRows runs an arithmetic op on float operands.
func floatBinaryRows[T vec.Float](op device.BinaryOp, dst []T, dl layout.Layout, a []T, al layout.Layout, b []T, bl layout.Layout) {
	k := &fusedKernels[T]().binary[op]
	vv, vs, sv, f := k.vv, k.vs, k.sv, k.binF
	if vv == nil && vs == nil {
		map2(dst, dl, a, al, b, bl, f)
		return
	}
	runRows(layout.NewRowsOf(dl, al, bl), func(offs []int, n int, inner []int) {
		i, j, k := offs[0], offs[1], offs[2]
		di, dj, dk := inner[0], inner[1], inner[2]
		if di == 1 {
			switch {
			case dj == 1 && dk == 1 && vv != nil:
				_ = vv(dst[i:i+n], a[j:j+n], b[k:k+n])
				return
			case dj == 1 && dk == 0 && vs != nil:
				_ = vs(dst[i:i+n], a[j:j+n], b[k])
				return
			case dj == 0 && dk == 1 && sv != nil:
				_ = sv(dst[i:i+n], b[k:k+n], a[j])
				return
			}
		}
		for range n {
			dst[i] = f(a[j], b[k])
			i += di
			j += dj
			k += dk
		}
	})
}

// unaryKernel returns op's contiguous kernel, or nil.
func unaryKernel[T vec.Float](op device.UnaryOp) func(dst, x []T) error {
	switch op {
	case device.Relu:
		return vec.Relu[T]
	case device.Exp:
		return vec.Exp[T]
	case device.Log:
		return vec.Log[T]
	case device.Tanh:
		return vec.Tanh[T]
	case device.Sigmoid:
		return vec.Sigmoid[T]
	case device.GeluTanh:
		return vec.GeluTanh[T]
	case device.GeluErf:
		return vec.GeluErf[T]
	case device.Erf:
		return vec.Erf[T]
	case device.Silu:
		return vec.Silu[T]
	case device.Log1p:
		return vec.Log1p[T]
	case device.Expm1:
		return vec.Expm1[T]
	case device.Exp2:
		return vec.Exp2[T]
	case device.Log2:
		return vec.Log2[T]
	case device.Log10:
		return vec.Log10[T]
	case device.Sinh:
		return vec.Sinh[T]
	case device.Cosh:
		return vec.Cosh[T]
	case device.Sin:
		return vec.Sin[T]
	case device.Cos:
		return vec.Cos[T]
	case device.Tan:
		return vec.Tan[T]
	case device.Asin:
		return vec.Asin[T]
	case device.Acos:
		return vec.Acos[T]
	case device.Atan:
		return vec.Atan[T]
	case device.Softplus:
		// Within 2.5 float64 ulps of the exact value (vec.Softplus), as
		// the op table's math.Log1p(math.Exp(-|x|)) is within a few.
		return vec.Softplus[T]
	case device.Neg:
		return vec.Neg[T]
	case device.Abs:
		return vec.Abs[T]
	case device.Floor:
		return vec.Floor[T]
	case device.Ceil:
		return vec.Ceil[T]
	case device.Trunc:
		return vec.Trunc[T]
	case device.Round:
		return vec.RoundEven[T]
	case device.Reciprocal:
		// Correctly rounded, as the reference's float64 1/x rounded to T.
		return vec.Reciprocal[T]
	case device.Sign:
		// Two compares and two blends (ReLU's gradient mask is a Sign).
		return vec.Sign[T]
	case device.Sqrt:
		// The hardware root is correctly rounded, as math.Sqrt rounded to T.
		return vec.Sqrt[T]
	case device.Rsqrt:
		// float64 1/math.Sqrt rounded to T, bit for bit (vec.Rsqrt).
		return vec.Rsqrt[T]
	case device.Square:
		// x*x rounded once, as the reference's float64 square rounded to T.
		return func(dst, x []T) error { return vec.Mul(dst, x, x) }
	case device.Hardswish:
		// The op table's formula in float64 lanes, rounded once to T,
		// bit for bit (vec.Hardswish).
		return vec.Hardswish[T]
	}
	return nil
}

// floatUnaryRows applies op to float operands.
func floatUnaryRows[T vec.Float](op device.UnaryOp, dst []T, dl layout.Layout, src []T, sl layout.Layout) {
	k := &fusedKernels[T]().unary[op]
	kernel, f := k.un, k.unF
	if kernel == nil {
		map1(dst, dl, src, sl, f)
		return
	}
	runRows(layout.NewRowsOf(dl, sl), func(offs []int, n int, inner []int) {
		i, j := offs[0], offs[1]
		if inner[0] == 1 && inner[1] == 1 {
			_ = kernel(dst[i:i+n], src[j:j+n])
			return
		}
		for range n {
			dst[i] = f(src[j])
			i += inner[0]
			j += inner[1]
		}
	})
}

// rowSum adds one contiguous row with vec.Sum, splitting a long row across
// cores; the pieces are combined in index order, so the result is the same
// on every run with the same GOMAXPROCS.
//
// vec adds float32 in float32 lanes; if that overflows (the sum is infinite
// or NaN), the row is added again in float64, so that only a true infinity,
// NaN or an overflow of the float64 total shows, as it would for a float64
// accumulator.
func rowSum[T vec.Float](x []T) float64 {
	s := rowSumVec(x)
	if finite(s) {
		return s
	}
	if _, f32 := any(x).([]float32); f32 {
		s = 0
		for _, v := range x {
			s += float64(v)
		}
	}
	return s
}

func rowSumVec[T vec.Float](x []T) float64 {
	if len(x) < 4*grain {
		return float64(vec.Sum(x))
	}
	var mu sync.Mutex
	partial := map[int]float64{}
	vec.Parallel(len(x), 2*grain, func(lo, hi int) {
		s := float64(vec.Sum(x[lo:hi]))
		mu.Lock()
		partial[lo] = s
		mu.Unlock()
	})
	los := make([]int, 0, len(partial))
	for lo := range partial {
		los = append(los, lo)
	}
	slices.Sort(los)
	total := 0.0
	for _, lo := range los {
		total += partial[lo]
	}
	return total
}
