package vec

import (
	"math"
	"sync"
)

// Sin sets dst[i] = sin(x[i]). For float32 the vector sets reduce x by
// pi/2 and evaluate the series in float64 lanes, rounding once (the exact
// value correctly rounded but within about 2^-12 ulp of a tie, so at most
// 0.501 ulp off), and hand |x| >= 2^30 to package math. For float64 every
// set reduces x by pi/2 carried to about 160 bits, so the result stays
// within 0.8 ulp also next to multiples of pi/2, where math.Sin's
// reduction loses most bits (the vector sets in kernels, the generic set
// in Go with the same steps and bits, sin64), and hands |x| >= 2^30 to
// package math, whose reduction from 2^29 on is Payne-Hanek's.
func Sin[T Float](dst, x []T) error { return unary("Sin", unSin, dst, x) }

// Cos sets dst[i] = cos(x[i]), as Sin computes the sine.
func Cos[T Float](dst, x []T) error { return unary("Cos", unCos, dst, x) }

// Tan sets dst[i] = tan(x[i]), for float32 as the quotient of Sin's two
// series in float64, rounded once, for float64 as the quotient of the two
// series each kept as a hi+lo pair (within 0.9 ulp), reduced as Sin
// reduces x.
func Tan[T Float](dst, x []T) error { return unary("Tan", unTan, dst, x) }

// Asin sets dst[i] = asin(x[i]) (math.Asin; NaN outside [-1, 1]). For
// float32 the vector sets compute in float64 lanes a polynomial of |x|
// below 1/2 and of sqrt((1-|x|)/2) above it (asin |x| = pi/2 - 2 asin of
// that), rounding once (at most 0.501 ulp off); float64 is package math's
// on every set.
func Asin[T Float](dst, x []T) error { return unary("Asin", unAsin, dst, x) }

// Acos sets dst[i] = acos(x[i]) (math.Acos), for float32 from Asin's
// polynomial: pi/2 - asin x below 1/2 in magnitude, 2 asin(sqrt((1-x)/2))
// above (pi minus that for negative x).
func Acos[T Float](dst, x []T) error { return unary("Acos", unAcos, dst, x) }

// Atan sets dst[i] = atan(x[i]) (math.Atan), for float32 in float64 lanes:
// one reducing division to |t| <= tan(pi/8) and a series, rounded once.
func Atan[T Float](dst, x []T) error { return unary("Atan", unAtan, dst, x) }

// trigBound is the magnitude from which the Sin, Cos and Tan kernels leave
// an element to package math (trigVia; asmgen.go's trigBound), and the
// generic sin64, cos64 and tan64 call it.
const trigBound = 0x1p30

// sin64, cos64 and tan64 are the generic set's float64 Sin, Cos and Tan
// (and, rounded, its float32 ones): below 2^30 in magnitude the vector
// kernels' algorithm step for step (asmgen.go's trigs64), so every set
// gives the same bits, within 0.74 ulp (Tan 0.82) where package math's
// reduction loses most of its bits next to multiples of pi/2 (up to 1e9
// ulp off next to large ones, TestTrig64Exact); from 2^30 on, and for
// infinities, package math (NaN stays NaN either way).
func sin64(x float64) float64 { return trig64(x, unSin) }
func cos64(x float64) float64 { return trig64(x, unCos) }
func tan64(x float64) float64 { return trig64(x, unTan) }

// trig64 computes op (unSin, unCos or unTan) of x as sin64 describes.
func trig64(x float64, op unOp) float64 {
	if !(math.Abs(x) < trigBound) {
		switch op {
		case unSin:
			return math.Sin(x)
		case unCos:
			return math.Cos(x)
		}
		return math.Tan(x)
	}
	if x == 0 && op != unCos {
		return x
	}
	// The explicit float64 conversions keep the compiler from fusing a
	// product into a following sum (it may on some architectures), which
	// would change the bits.
	const shifter = 0x1.8p52
	t := math.FMA(x, 2/math.Pi, shifter)
	n := t - shifter
	quadrant := math.Float64bits(t)
	r0 := math.FMA(-n, trigHalfPi[0], x)
	p := float64(n * trigHalfPi[1])
	pe := math.FMA(n, trigHalfPi[1], -p)
	rh := r0 - p
	bb := rh - r0
	e := (r0 - (rh - bb)) - (bb + p)
	rl := math.FMA(-n, trigHalfPi[2], e-pe)
	z := float64(rh * rh)
	h := float64(z * 0.5)
	// sinPart and cosPart return sin r and cos r as hi + lo (lo is the
	// final sum's rounding error, for Tan); Sin and Cos need only the one
	// their quadrant picks.
	sinPart := func() (hi, lo float64) {
		cs := math.FMA(-h, rl, rl)
		cs = math.FMA(float64(z*rh), estrin64(trigSin[:], z), cs)
		hi = rh + cs
		return hi, (rh - hi) + cs
	}
	cosPart := func() (hi, lo float64) {
		zl := math.FMA(rh, rh, -z)
		w := 1 - h
		co := (1 - w) - h
		co = math.FMA(-0.5, zl, co)
		co = math.FMA(-rl, rh, co)
		co = math.FMA(float64(z*z), estrin64(trigCos[:], z), co)
		hi = w + co
		return hi, (w - hi) + co
	}
	if op == unTan {
		nh, nl := sinPart()
		dh, dl := cosPart()
		odd := quadrant&1 != 0
		if odd {
			nh, nl, dh, dl = dh, dl, nh, nl
		}
		inv := 1 / dh
		q := float64(nh * inv)
		rm := math.FMA(-q, dh, nh) + nl
		rm = math.FMA(-q, dl, rm)
		q = math.FMA(rm, inv, q)
		if odd {
			q = -q
		}
		return q
	}
	if op == unCos {
		quadrant++
	}
	var v float64
	if quadrant&1 == 0 {
		v, _ = sinPart()
	} else {
		v, _ = cosPart()
	}
	if quadrant&2 != 0 {
		v = -v
	}
	return v
}

// estrin64 returns sum c[k] u^k evaluated as the kernels' estrinPDOn does:
// pairs c[2i] + c[2i+1]*u combined by Horner's rule in u^2 (which the
// kernels compute as u*u, as the callers' z*z).
func estrin64(c []float64, u float64) float64 {
	u2 := float64(u * u)
	last := (len(c) - 1) / 2 * 2
	sum := c[last]
	if last+1 < len(c) {
		sum = math.FMA(u, c[last+1], c[last])
	}
	for i := last - 2; i >= 0; i -= 2 {
		sum = math.FMA(u2, sum, math.FMA(u, c[i+1], c[i]))
	}
	return sum
}

// atan64, asin64 and acos64 are the generic set's float64 Atan, Asin and
// Acos: the vector kernels' algorithm step for step (asmgen.go's arcs64,
// constants in trigconst.go), so every set gives the same bits.
func atan64(x float64) float64 {
	// The explicit float64 conversions keep the compiler from fusing a
	// product into a following sum, which would change the bits.
	a := min(math.Abs(x), atanClamp)
	region := 0
	for i, from := range atanFrom {
		if a >= from {
			region = i
		}
	}
	p, q := atanP[region], atanQ[region]
	num := math.FMA(a, p, -q)
	ph := float64(q * a)
	pl := math.FMA(q, a, -ph)
	dh := p + ph
	bb := dh - p
	dl := ((p - (dh - bb)) + (ph - bb)) + pl
	inv := 1 / dh
	th := float64(num * inv)
	rm := math.FMA(-th, dh, num)
	rm = math.FMA(-th, dl, rm)
	tl := float64(rm * inv)
	s := float64(th * th)
	bh, bl := atanHi[region], atanLo[region]
	r := bh + th
	e := (bh - r) + th
	return math.Copysign(r+(((e+bl)+tl)+float64(float64(th*s)*estrin64(atanPoly[:], s))), x)
}

func asin64(x float64) float64 { return asinAcos64(x, false) }
func acos64(x float64) float64 { return asinAcos64(x, true) }

// asinAcos64 computes asin x, or acos x if acos is set, as asin64
// describes.
func asinAcos64(x float64, acos bool) float64 {
	a := math.Abs(x)
	z := float64(a * a)
	large := a > 0.5
	if large {
		z = float64(1-a) * 0.5
	}
	yh := math.Sqrt(z)
	u, ul := a, 0.0
	if large {
		u, ul = yh+yh, math.FMA(-yh, yh, z)/max(yh, asinTiny)
	}
	vh := u
	vl := ul + float64(float64(u*z)*estrin64(asinPoly[:], z))
	var bh, bl float64
	var neg bool
	switch {
	case !acos:
		if large {
			bh, bl, neg = trigHalfPi[0], trigHalfPi[1], true
		}
	case !large:
		bh, bl, neg = trigHalfPi[0], trigHalfPi[1], !math.Signbit(x)
	default:
		neg = math.Signbit(x)
		if x < 0 {
			bh, bl = 2*trigHalfPi[0], 2*trigHalfPi[1]
		}
	}
	if neg {
		vh, vl = -vh, -vl
	}
	r := bh + vh
	e := (bh - r) + vh
	res := r + ((e + bl) + vl)
	if acos {
		return res
	}
	return math.Copysign(res, x)
}

// atan2Via returns the float64 Atan2 on a set's kernels (atan2Kernels),
// in blocks of f64Block: q = min(|y|, |x|) / max(|y|, |x|) (one
// rounding), then r = atan q (the set's Atan: 0.52 ulp measured), then the
// octant's base and sign, (b ± r) + b_lo with b = 0, pi/2 or pi as a pair
// (atan2Place), with y's sign. The quotient's rounding (relative 2^-53)
// moves atan q by at most as much relatively, so the result is within
// about 1.5 ulp (1.239 measured on 80,000 pairs, TestAtan2F64). Where q is
// NaN (0/0 and Inf/Inf, or a NaN input) package math's Atan2 gives the C99
// value. Every set's kernels give the same bits, so every set's Atan2
// does too.
func atan2Via(k atan2Kernels) func(dst, y, x []float64) {
	return func(dst, y, x []float64) {
		blocks := atan2Blocks.Get().(*[3][f64Block]float64)
		defer atan2Blocks.Put(blocks)
		for len(dst) > 0 {
			n := min(len(dst), f64Block)
			ay, ax, q := blocks[0][:n], blocks[1][:n], blocks[2][:n]
			k.abs(ay, y[:n])
			k.abs(ax, x[:n])
			k.minimum(q, ay, ax)
			k.maximum(ay, ay, ax)
			k.div(q, q, ay)
			k.atan(q, q)
			k.place(dst[:n], q, y[:n], x[:n])
			y, x, dst = y[n:], x[n:], dst[n:]
		}
	}
}

// atan2Kernels are the kernels atan2Via runs on; place is atan2Place or
// a kernel of the same steps (placeVia).
type atan2Kernels struct {
	abs, atan             func(dst, x []float64)
	minimum, maximum, div func(dst, a, b []float64)
	place                 func(dst, q, y, x []float64)
}

// atan2Blocks holds atan2Via's scratch: |y|, |x| and the quotient.
var atan2Blocks = sync.Pool{New: func() any { return new([3][f64Block]float64) }}

// atan2Place sets dst to atan2(y, x) from q = atan(min/max): the octant's
// base and q's sign (atan2Octants), then y's sign; where q is NaN, to
// math.Atan2(y, x) with y's sign. It is the generic set's step; the
// vector sets run asmgen.go's atan2Place64, the same operations in
// vectors (placeVia). The octant is picked from the bits, without
// branches (on random signs two branches an element mispredicted half the
// time).
func atan2Place(dst, q, y, x []float64) {
	const abs = 1<<63 - 1
	q, y, x = q[:len(dst)], y[:len(dst)], x[:len(dst)]
	for i, r := range q {
		yb, xb := math.Float64bits(y[i]), math.Float64bits(x[i])
		o := &atan2Octants[(xb&abs-yb&abs)>>63<<1|xb>>63]
		v := (o.hi + math.Float64frombits(math.Float64bits(r)^o.flip)) + o.lo
		if r != r {
			v = atan2Math(y[i], x[i])
		}
		dst[i] = math.Float64frombits(math.Float64bits(v)&abs | yb&^abs)
	}
}

// atan2Math is math.Atan2 with y's sign, which C99 gives every result
// (math.Atan2 loses it where y/x underflows): the Atan2 of the lanes the
// kernels leave, NaN quotients.
func atan2Math(y, x float64) float64 { return math.Copysign(math.Atan2(y, x), y) }

// placeVia returns atan2Place on a kernel of its steps (asmgen.go's
// atan2Place64), which writes into q and reports NaN lanes: those are
// taken from math.Atan2 (with y's sign) before dst is written, so dst
// may be y or x.
func placeVia(kernel func(dst, q, y, x []float64) bool) func(dst, q, y, x []float64) {
	return func(dst, q, y, x []float64) {
		if !kernel(q, q, y, x) {
			for i, v := range q {
				if v != v {
					q[i] = atan2Math(y[i], x[i])
				}
			}
		}
		copy(dst, q)
	}
}

// atan2Octants are atan2's base (hi + lo) and the sign of atan q for
// |y| <= |x| and |y| > |x| (the index's bit 1) and x's sign (bit 0): r,
// pi - r, pi/2 - r and pi/2 + r.
var atan2Octants = [4]struct {
	hi, lo float64
	flip   uint64 // XORed into r's bits
}{
	{0, 0, 0},
	{2 * trigHalfPi[0], 2 * trigHalfPi[1], 1 << 63},
	{trigHalfPi[0], trigHalfPi[1], 1 << 63},
	{trigHalfPi[0], trigHalfPi[1], 0},
}
