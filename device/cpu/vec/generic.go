package vec

import "math"

// The pure-Go kernel set. It is the fallback off amd64, the reference the
// assembly is tested against, and, for Sum and Dot, the specification of the
// summation order: the assembly must give the same bits.

var genericKernels = &kernels{
	name:   "generic",
	bin32:  [numBinOps]func(dst, a, b []float32){addGo[float32], subGo[float32], mulGo[float32], divGo[float32], maximumGo[float32], minimumGo[float32]},
	bin64:  [numBinOps]func(dst, a, b []float64){addGo[float64], subGo[float64], mulGo[float64], divGo[float64], maximumGo[float64], minimumGo[float64]},
	sc32:   [numBinOps]func(dst, a []float32, s float32){addSGo[float32], subSGo[float32], mulSGo[float32], divSGo[float32], maximumSGo[float32], minimumSGo[float32]},
	sc64:   [numBinOps]func(dst, a []float64, s float64){addSGo[float64], subSGo[float64], mulSGo[float64], divSGo[float64], maximumSGo[float64], minimumSGo[float64]},
	rsc32:  [numBinOps]func(dst, a []float32, s float32){opSub: rsubSGo[float32], opDiv: rdivSGo[float32]},
	rsc64:  [numBinOps]func(dst, a []float64, s float64){opSub: rsubSGo[float64], opDiv: rdivSGo[float64]},
	axpy32: axpyF32Go,
	axpy64: axpyF64Go,
	un32: [numUnOps]func(dst, x []float32){
		unRelu:      reluGo[float32],
		unExp:       map32(math.Exp),
		unLog:       map32(math.Log),
		unTanh:      map32(math.Tanh),
		unSigmoid:   map32(sigmoid64),
		unGeluTanh:  map32(geluTanh64),
		unGeluErf:   map32(geluErf64),
		unErf:       map32(math.Erf),
		unSqrt:      map32(math.Sqrt),
		unSign:      signGo[float32],
		unSilu:      map32(silu64),
		unNeg:       map32(neg64),
		unAbs:       map32(math.Abs),
		unFloor:     map32(math.Floor),
		unCeil:      map32(math.Ceil),
		unTrunc:     map32(math.Trunc),
		unRoundEven: map32(math.RoundToEven),
		unRecip:     map32(recip64),
		unSoftplus:  map32(softplus64),
		unLog1p:     map32(math.Log1p),
		unExpm1:     map32(math.Expm1),
		unExp2:      map32(math.Exp2),
		unLog2:      map32(math.Log2),
		unLog10:     map32(math.Log10),
		unSinh:      map32(math.Sinh),
		unCosh:      map32(math.Cosh),
		unSin:       map32(sin64),
		unCos:       map32(cos64),
		unTan:       map32(tan64),
		unRsqrt:     map32(rsqrt64),
		unHardswish: map32(hardswish64),
		unAsin:      map32(math.Asin),
		unAcos:      map32(math.Acos),
		unAtan:      map32(math.Atan),
	},
	un64: [numUnOps]func(dst, x []float64){
		unRelu:      reluGo[float64],
		unExp:       map64(exp64),
		unLog:       map64(log64),
		unTanh:      map64(math.Tanh),
		unSigmoid:   map64(sigmoid64),
		unGeluTanh:  map64(geluTanh64),
		unGeluErf:   map64(geluErf64),
		unErf:       map64(math.Erf),
		unSqrt:      map64(math.Sqrt),
		unSign:      signGo[float64],
		unSilu:      map64(silu64),
		unNeg:       map64(neg64),
		unAbs:       map64(math.Abs),
		unFloor:     map64(math.Floor),
		unCeil:      map64(math.Ceil),
		unTrunc:     map64(math.Trunc),
		unRoundEven: map64(math.RoundToEven),
		unRecip:     map64(recip64),
		unSoftplus:  map64(softplus64),
		unLog1p:     map64(math.Log1p),
		unExpm1:     map64(expm1_64),
		unExp2:      map64(math.Exp2),
		unLog2:      map64(log2_64),
		unLog10:     map64(log10_64),
		unSinh:      map64(sinh64),
		unCosh:      map64(cosh64),
		unSin:       map64(sin64),
		unCos:       map64(cos64),
		unTan:       map64(tan64),
		unRsqrt:     map64(rsqrt64),
		unHardswish: map64(hardswish64),
		unAsin:      map64(asin64),
		unAcos:      map64(acos64),
		unAtan:      map64(atan64),
	},
	halves:      halfGo,
	widenF32:    widenF32Go,
	narrowF64:   narrowF64Go,
	truncF32I32: truncF32I32Go,
	widenU8F32:  widenU8F32Go,
	absI32:      absIntGo[int32],
	negI32:      negIntGo[int32],
	notU8:       notBytesGo,
	rev32:       reverseGo[uint32],
	rev64:       reverseGo[uint64],
	cmp:         cmpGoKernels,
	sel:         selectGoKernels,
	sum32:       sumF32Go,
	sum64:       sumF64Go,
	dot32:       dotF32Go,
	dot64:       dotF64Go,
	max32:       maxGo[float32],
	min32:       minGo[float32],
	max64:       maxGo[float64],
	min64:       minGo[float64],
	atan232: func(dst, y, x []float32) {
		for i := range dst {
			dst[i] = float32(math.Atan2(float64(y[i]), float64(x[i])))
		}
	},
	atan264: atan2Via(atan2Kernels{abs: map64(math.Abs), atan: map64(atan64),
		minimum: minimumGo[float64], maximum: maximumGo[float64], div: divGo[float64], place: atan2Place}),
	pow64: powGo[float64],
	pow32: powGo[float32],
}

func addGo[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

func subGo[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] - b[i]
	}
}

func mulGo[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

func divGo[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] / b[i]
	}
}

// maximum1 is the elementwise maximum exactly as the AVX2 kernel computes
// it: b unless a > b, and a whenever a is NaN (so NaN in either wins).
func maximum1[T Float](a, b T) T {
	if a > b || a != a {
		return a
	}
	return b
}

func minimum1[T Float](a, b T) T {
	if a < b || a != a {
		return a
	}
	return b
}

func maximumGo[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = maximum1(a[i], b[i])
	}
}

func minimumGo[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = minimum1(a[i], b[i])
	}
}

func addSGo[T Float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + s
	}
}

func subSGo[T Float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] - s
	}
}

func rsubSGo[T Float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = s - a[i]
	}
}

func mulSGo[T Float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * s
	}
}

func divSGo[T Float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] / s
	}
}

func rdivSGo[T Float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = s / a[i]
	}
}

func maximumSGo[T Float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = maximum1(a[i], s)
	}
}

func minimumSGo[T Float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = minimum1(a[i], s)
	}
}

func axpyF32Go(dst []float32, alpha float32, x, y []float32) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = fma32(alpha, x[i], y[i])
	}
}

func axpyF64Go(dst []float64, alpha float64, x, y []float64) {
	x, y = x[:len(dst)], y[:len(dst)]
	for i := range dst {
		dst[i] = math.FMA(alpha, x[i], y[i])
	}
}

func reluGo[T Float](dst, x []T) {
	x = x[:len(dst)]
	for i, v := range x {
		if v <= 0 {
			v = 0
		}
		dst[i] = v
	}
}

// map32 applies a float64 function to each float32 element, rounding once.
func map32(f func(float64) float64) func(dst, x []float32) {
	return func(dst, x []float32) {
		x = x[:len(dst)]
		for i, v := range x {
			dst[i] = float32(f(float64(v)))
		}
	}
}

func map64(f func(float64) float64) func(dst, x []float64) {
	return func(dst, x []float64) {
		x = x[:len(dst)]
		for i, v := range x {
			dst[i] = f(v)
		}
	}
}

// exp64 is math.Exp, mended where package math on amd64 overflows early:
// for x in (709, 709.79) its assembly gives +Inf from x = 709.4361, where
// e^x is 1.27e308; there the result is e^(x-1)*e, the product rounded once
// (x-1 is exact), so exp64(709.782712893384) = 1.7976931348622732e308 as
// correctly rounded. Elsewhere it is math.Exp bit for bit.
func exp64(x float64) float64 {
	if x > 709 && x < 709.79 {
		h := math.Exp(x - 1)
		const eLo = 1.4456468917292502e-16 // e - float64(e)
		return math.FMA(h, math.E, h*eLo)
	}
	return math.Exp(x)
}

// expm1_64 is math.Expm1, mended near the overflow, where it is up to 214
// ulp off (at x = 709.782712893384): from x = 38 on, e^x - 1 rounds to
// e^x, which exp64 gives within 2 ulp.
func expm1_64(x float64) float64 {
	if x > 38 {
		return exp64(x)
	}
	return math.Expm1(x)
}

// sinh64 and cosh64 are math.Sinh and math.Cosh, mended where those
// overflow early (they take e^|x| through math.Exp, which gives +Inf from
// 709.4361 on, where sinh and cosh stay finite up to 710.4758): from |x| =
// 709 on the result is e^(|x|-1) times e/2 (|x|-1 exact), signed for
// Sinh, the product rounded once. Elsewhere they are package math's bit
// for bit.
func sinh64(x float64) float64 {
	if a := math.Abs(x); a > 709 && a <= math.MaxFloat64 {
		return math.Copysign(halfExp64(a), x)
	}
	return math.Sinh(x)
}

func cosh64(x float64) float64 {
	if a := math.Abs(x); a > 709 && a <= math.MaxFloat64 {
		return halfExp64(a)
	}
	return math.Cosh(x)
}

// halfExp64 is e^a/2 for a > 709: exp64(a-1) (itself mended above 709)
// times e/2, rounded once.
func halfExp64(a float64) float64 {
	h := exp64(a - 1)
	const halfE, halfELo = math.E / 2, 0.7228234458646251e-16 // (e - float64(e))/2
	return math.FMA(h, halfE, h*halfELo)
}

// log64 is math.Log, mended for subnormal x, where package math on amd64
// takes the exponent field as if x were normal (math.Log(5e-324) =
// -709.09, not -744.44; golang/go#56600): there it is
// math.Log(x*2^54) - 54*ln2. Elsewhere it is math.Log bit for bit.
func log64(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// log2_64 and log10_64 are the generic set's float64 Log2 and Log10: x =
// m*2^e with m in [sqrt(1/2), sqrt(2)), then e plus ln m/ln 2, or e*log10(2)
// (as a pair whose high part times e is exact) plus ln m/ln 10, so the
// result keeps its relative accuracy near x = 1 and powers of two give
// Log2 exactly, as 1000 gives Log10 3 (math.Log2 subtracts 1 from about 1
// there and is off by up to 10^14 ulp; math.Log10(1000) is 2.9999999999999996,
// and both are wrong for subnormal x through math.Log).
func log2_64(x float64) float64 {
	m, e := logSplit(x)
	return float64(e) + math.Log(m)*(1/math.Ln2)
}

func log10_64(x float64) float64 {
	m, e := logSplit(x)
	fe := float64(e)
	return fe*log10Of2Hi + (math.Log(m)*(1/math.Ln10) + fe*log10Of2Lo)
}

// log10Of2Hi + log10Of2Lo is log10(2), the high part with its last 11 bits
// clear so that e*log10Of2Hi is exact for every exponent e of a float64.
// TestLog10Of2 checks both against math/big.
const (
	log10Of2Hi = 0x1.34413509f78p-02
	log10Of2Lo = 0x1.fef311f12b358p-46 // log10(2) - log10Of2Hi, rounded
)

// logSplit returns m and e with x = m*2^e, m in [sqrt(1/2), sqrt(2)) for
// finite x > 0 (subnormal x included); otherwise m = x and e = 0, so that
// math.Log(m) gives the special value.
func logSplit(x float64) (m float64, e int) {
	m, e = math.Frexp(x)
	if m > 0 && m < math.Sqrt2/2 {
		m, e = 2*m, e-1
	}
	return m, e
}

// sigmoid64 is 1/(1+e^-x), evaluated as e^x/(1+e^x) for x < 0 so that it
// neither overflows nor loses relative accuracy.
func sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// neg64 is -x, recip64 1/x: the exact unaries of the generic set (the
// others are package math's), rounded to float32 for float32 results,
// which for a quotient is the correctly rounded float32 quotient.
func neg64(x float64) float64   { return -x }
func recip64(x float64) float64 { return 1 / x }

// rsqrt64 is Rsqrt's generic element: float64 1/math.Sqrt(x).
func rsqrt64(x float64) float64 { return 1 / math.Sqrt(x) }

// hardswish64 is Hardswish's generic element, the op table's formula.
func hardswish64(x float64) float64 { return x * min(max(x+3, 0), 6) / 6 }

// silu64 is x*sigmoid(x). Below x = -700 sigmoid(x) is e^x to within
// 2^-1000, itself near the underflow, so the result is x*e^(x+128ln2)
// scaled by 2^-128 last (one rounding where it is subnormal), as
// geluTanh64 does; from x = -800 down it is -0 (-Inf gives -0, not
// -Inf*0 = NaN). For float32 results the float64 value is rounded once.
func silu64(x float64) float64 {
	if x < -700 {
		x = max(x, -800)
		e := math.Exp(x+geluScaleHi) * (1 + geluScaleLo)
		return math.Ldexp(x*e, -128)
	}
	return x * sigmoid64(x)
}

// geluTanhArg returns v = x*(c1 + c2*x^2) as vh+vl (the pairs c1 and c2
// are in the generated geluconst.go), carried in
// double-double: sigmoid(v) for v << 0 is about e^v, whose relative error
// is |v| times v's, so a plain float64 v would cost up to |v|/2 ulp
// (hundreds near the underflow).
func geluTanhArg(x float64) (vh, vl float64) {
	x2h := x * x
	x2l := math.FMA(x, x, -x2h)
	ph := geluTanhC2Hi * x2h
	pl := math.FMA(geluTanhC2Hi, x2h, -ph) + geluTanhC2Hi*x2l + geluTanhC2Lo*x2h
	sh := geluTanhC1Hi + ph // TwoSum
	bb := sh - geluTanhC1Hi
	sl := (geluTanhC1Hi - (sh - bb)) + (ph - bb) + pl + geluTanhC1Lo
	vh = x * sh
	vl = math.FMA(x, sh, -vh) + x*sl
	return vh, vl
}

// geluScaleHi + geluScaleLo is 128*ln2, the high part a multiple of 2^-43
// so that adding it to v in [-1024, -512) is exact: that holds wherever the
// result is not 0 (v above about -749).
const (
	geluScaleHi = 0x1.62e42fefa39fp+06
	geluScaleLo = -0x1.950d871319ffp-47
)

// geluTanh64 is x*sigmoid(v) with v's low part applied to first order
// (sigmoid' = s*(1-s)). Below v = -700 sigmoid(v) is e^v to within
// 2^-1000 and the result nears the underflow, so it is computed as
// x*e^(v+128ln2) scaled by 2^-128 last (one rounding where the result is
// subnormal). From x = -30 down the result is -0 (and -Inf gives -0, not
// -Inf*0 = NaN); v's argument stops at 30, where sigmoid is 1, so that
// x^2 cannot overflow.
func geluTanh64(x float64) float64 {
	x = max(x, -30)
	vh, vl := geluTanhArg(min(x, 30))
	if vh < -700 {
		e := math.Exp(vh+geluScaleHi) * (1 + (vl + geluScaleLo))
		return math.Ldexp(x*e, -128)
	}
	s := sigmoid64(vh)
	s += s * (1 - s) * vl
	return x * s
}

// invSqrt2Hi + invSqrt2Lo is 1/sqrt(2) (TestGeluErfF64 checks the pair).
const (
	invSqrt2Hi = 0x1.6a09e667f3bcdp-01
	invSqrt2Lo = -0x1.bdd3413b26456p-55
)

// geluErf64 is 0.5x*erfc(a), a = -x/sqrt2. erfc(a) for a >> 0 is about
// e^-a^2/(a*sqrt(pi)), whose relative error is 2a^2 times a's, so a
// rounded to float64 would cost up to a^2 ulp (hundreds from x = -20);
// a is carried as ah+al (FMA) and al applied to first order,
// erfc' = -2/sqrt(pi)*e^-a^2. From x = -40 down the result is -0 (erfc(28)
// underflows; -Inf gives -0, not -Inf*0 = NaN); above x = 40 it is x.
func geluErf64(x float64) float64 {
	if x > 40 {
		return x
	}
	x = max(x, -40)
	ah := -x * invSqrt2Hi
	al := math.FMA(-x, invSqrt2Hi, -ah) - x*invSqrt2Lo
	e := math.Erfc(ah) - al*(2/math.SqrtPi)*math.Exp(-ah*ah)
	return 0.5 * x * e
}

func maxGo[T Float](x []T) T {
	m := x[0]
	for _, v := range x {
		if v != v {
			return v
		}
		if v > m {
			m = v
		}
	}
	return m
}

func minGo[T Float](x []T) T {
	m := x[0]
	for _, v := range x {
		if v != v {
			return v
		}
		if v < m {
			m = v
		}
	}
	return m
}

// Summation order shared with the assembly (see the package documentation).
const (
	sumBlock32 = 2048 // float32 elements per block
	sumLanes32 = 64   // 8 YMM accumulators of 8 lanes
	sumBlock64 = 1024
	sumLanes64 = 32 // 8 YMM accumulators of 4 lanes
)

// sumF32Go defines the float32 summation order: per block, lane l of 64
// accumulates elements i with i%64 == l (the final partial group of 64 goes
// to lanes 0..7 in groups of 8); the 8 YMM-sized groups of lanes are added
// in the tree ((g0+g1)+(g2+g3))+((g4+g5)+(g6+g7)), giving 8 values that are
// added into 8 float64 totals; the totals are combined as
// ((t0+t4)+(t2+t6))+((t1+t5)+(t3+t7)) and rounded to float32.
func sumF32Go(x []float32) float32 {
	var tot [8]float64
	for len(x) > 0 {
		nb := min(len(x), sumBlock32)
		sumBlock(x[:nb], tot[:])
		x = x[nb:]
	}
	return sumF32Total(&tot)
}

// sumBlock adds one block of sumF32Go's or sumF64Go's order (at most
// sumBlock32 or sumBlock64 values) into its float64 totals, one per lane
// of a YMM group (8 for float32, 4 for float64): 8*len(tot) lanes, the
// last partial round in groups of len(tot) into the first group, the 8
// groups added in the fixed tree.
func sumBlock[T Float](blk []T, tot []float64) {
	w := len(tot)
	nb, lanes := len(blk), 8*w
	var accs [sumLanes32]T
	acc := accs[:lanes]
	i := 0
	for ; i+lanes <= nb; i += lanes {
		c := blk[i : i+lanes]
		for l := range acc {
			acc[l] += c[l]
		}
	}
	for ; i < nb; i += w {
		for l, v := range blk[i:min(i+w, nb)] {
			acc[l] += v
		}
	}
	for l := range w {
		g := func(k int) T { return acc[w*k+l] }
		s := ((g(0) + g(1)) + (g(2) + g(3))) + ((g(4) + g(5)) + (g(6) + g(7)))
		tot[l] += float64(s)
	}
}

// sumF32Total combines sumF32Go's eight totals and rounds them to float32.
func sumF32Total(tot *[8]float64) float32 {
	return float32(((tot[0] + tot[4]) + (tot[2] + tot[6])) + ((tot[1] + tot[5]) + (tot[3] + tot[7])))
}

// sumWidenedGo is sumF32Go over src widened to float32 by widen, a block
// at a time through a buffer on the stack.
func sumWidenedGo(src []uint16, widen func(dst []float32, src []uint16)) float32 {
	var tot [8]float64
	var buf [sumBlock32]float32
	for len(src) > 0 {
		nb := min(len(src), sumBlock32)
		widen(buf[:nb], src[:nb])
		sumBlock(buf[:nb], tot[:])
		src = src[nb:]
	}
	return sumF32Total(&tot)
}

// dotF32Go is sumF32Go's order with acc[l] = fma(a_i, b_i, acc[l]).
func dotF32Go(a, b []float32) float32 {
	b = b[:len(a)]
	var tot [8]float64
	for len(a) > 0 {
		nb := min(len(a), sumBlock32)
		ba, bb := a[:nb], b[:nb]
		a, b = a[nb:], b[nb:]
		var acc [sumLanes32]float32
		i := 0
		for ; i+sumLanes32 <= nb; i += sumLanes32 {
			ca, cb := ba[i:i+sumLanes32], bb[i:i+sumLanes32]
			for l := range acc {
				acc[l] = fma32(ca[l], cb[l], acc[l])
			}
		}
		for ; i < nb; i += 8 {
			cb := bb[i:min(i+8, nb)]
			for l, v := range ba[i:min(i+8, nb)] {
				acc[l] = fma32(v, cb[l], acc[l])
			}
		}
		for l := range 8 {
			g := func(k int) float32 { return acc[8*k+l] }
			s := ((g(0) + g(1)) + (g(2) + g(3))) + ((g(4) + g(5)) + (g(6) + g(7)))
			tot[l] += float64(s)
		}
	}
	return float32(((tot[0] + tot[4]) + (tot[2] + tot[6])) + ((tot[1] + tot[5]) + (tot[3] + tot[7])))
}

// sumF64Go defines the float64 order: per block of 1024, 32 lanes (the
// final partial group of 32 goes to lanes 0..3 in groups of 4), the 8 groups
// of 4 lanes added in the same tree into 4 running totals, combined as
// (t0+t2)+(t1+t3).
func sumF64Go(x []float64) float64 {
	var tot [4]float64
	for len(x) > 0 {
		nb := min(len(x), sumBlock64)
		sumBlock(x[:nb], tot[:])
		x = x[nb:]
	}
	return (tot[0] + tot[2]) + (tot[1] + tot[3])
}

// dotF64Go is sumF64Go's order with acc[l] = fma(a_i, b_i, acc[l]).
func dotF64Go(a, b []float64) float64 {
	b = b[:len(a)]
	var tot [4]float64
	for len(a) > 0 {
		nb := min(len(a), sumBlock64)
		ba, bb := a[:nb], b[:nb]
		a, b = a[nb:], b[nb:]
		var acc [sumLanes64]float64
		i := 0
		for ; i+sumLanes64 <= nb; i += sumLanes64 {
			ca, cb := ba[i:i+sumLanes64], bb[i:i+sumLanes64]
			for l := range acc {
				acc[l] = math.FMA(ca[l], cb[l], acc[l])
			}
		}
		for ; i < nb; i += 4 {
			cb := bb[i:min(i+4, nb)]
			for l, v := range ba[i:min(i+4, nb)] {
				acc[l] = math.FMA(v, cb[l], acc[l])
			}
		}
		for l := range 4 {
			g := func(k int) float64 { return acc[4*k+l] }
			tot[l] += ((g(0) + g(1)) + (g(2) + g(3))) + ((g(4) + g(5)) + (g(6) + g(7)))
		}
	}
	return (tot[0] + tot[2]) + (tot[1] + tot[3])
}

// fma32 returns x*y + z rounded once to float32, as VFMADD does. The
// product is exact in float64 and the float64 sum s is rounded; rounding s
// to float32 is then correct unless s lies exactly halfway between two
// float32 values while the exact sum does not, in which case the rounding
// error of s (recovered by TwoSum) decides the direction.
func fma32(x, y, z float32) float32 {
	p := float64(x) * float64(y)
	s := p + float64(z)
	// Fast path: s is not a float32 halfway point in the normal range.
	if math.Float64bits(s)&(1<<29-1) != 1<<28 && math.Abs(s) >= 0x1p-126 {
		return float32(s)
	}
	bv := s - p
	e := (p - (s - bv)) + (float64(z) - bv)
	r := float32(s)
	if e == 0 || float64(r) == s {
		return r
	}
	// r2 is r's neighbour on the other side of s.
	var r2 float32
	if float64(r) < s {
		r2 = math.Nextafter32(r, float32(math.Inf(1)))
	} else {
		r2 = math.Nextafter32(r, float32(math.Inf(-1)))
	}
	if mid(r, r2) != s {
		return r
	}
	if (e > 0) == (r2 > r) {
		return r2
	}
	return r
}

// mid is the exact midpoint of two adjacent float32 values, treating an
// infinity as the next power of two past MaxFloat32.
func mid(a, b float32) float64 {
	f := func(v float32) float64 {
		if math.IsInf(float64(v), 0) {
			return math.Copysign(0x1p128, float64(v))
		}
		return float64(v)
	}
	return (f(a) + f(b)) / 2
}

// signGo is 1 for positive x, -1 for negative x, and x itself for ±0 and
// NaN.
func signGo[T Float](dst, x []T) {
	x = x[:len(dst)]
	for i, v := range x {
		switch {
		case v > 0:
			dst[i] = 1
		case v < 0:
			dst[i] = -1
		case v == 0:
			dst[i] = 0 // -0 too, as NumPy's sign
		default:
			dst[i] = v // NaN
		}
	}
}
