package vec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/internal/bigmath"
)

// atan64Inputs returns float64 Atan test inputs: n each uniform on [-8,
// 8] and spread over every binade from 2^-40 to 2^70 (both signs), the
// values next to each region bound and centre (where the reduction
// switches formula) and next to 1, the clamp, the smallest and largest
// doubles.
func atan64Inputs(n int) []float64 {
	r := rand.New(rand.NewPCG(47, 1))
	var xs []float64
	for range n {
		xs = append(xs, (r.Float64()*2-1)*8, math.Copysign(math.Ldexp(1+r.Float64(), r.IntN(110)-40), r.Float64()-0.5))
	}
	for i, from := range atanFrom[1:] {
		xs = steps(xs, from, 20)
		xs = steps(xs, -atanQ[i+1], 20)
	}
	for _, c := range []float64{1, atanClamp, 0x1p54, 1e-300} {
		xs = steps(xs, c, 20)
	}
	return append(xs, 5e-324, -5e-324, 0x1p-1022, math.MaxFloat64, -math.MaxFloat64)
}

// asin64Inputs returns float64 Asin and Acos test inputs in [-1, 1]: n
// uniform, n spread over every binade from 2^-40 to 1/2, n within 2^-20
// of ±1 (where acos is small and z = (1-a)/2 tiny), and the values next
// to ±1/2 (the switch of formula), ±1, 0 and the subnormals.
func asin64Inputs(n int) []float64 {
	r := rand.New(rand.NewPCG(47, 2))
	var xs []float64
	for range n {
		s := r.Float64() - 0.5
		xs = append(xs, r.Float64()*2-1, math.Copysign(math.Ldexp(1+r.Float64(), r.IntN(40)-41), s),
			math.Copysign(1-math.Ldexp(r.Float64(), -20), s))
	}
	for _, c := range []float64{0.5, -0.5, 1e-300} {
		xs = steps(xs, c, 20)
	}
	for k := range uint64(40) {
		xs = append(xs, math.Float64frombits(math.Float64bits(1)-k), -math.Float64frombits(math.Float64bits(1)-k))
	}
	return append(xs, 0, negZ, 5e-324, -5e-324, 0x1p-1022)
}

// TestArc64Exact holds every set's float64 Atan, Asin and Acos to values
// computed with math/big (bigmath.Atan, Asin and Acos, about 280 bits):
// within 0.75 ulp, where 60,000 inputs per kind and the bounds measured
// 0.519 (Atan), 0.613 (Asin) and 0.592 (Acos). Package math, for
// comparison, is logged: its Asin and Acos are up to 1e3 and 2.5e7 ulp off
// next to ±1.
func TestArc64Exact(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	at, as := atan64Inputs(n), asin64Inputs(n)
	exact := func(xs []float64, f func(*big.Float) *big.Float) []*big.Float {
		var w []*big.Float
		for _, x := range xs {
			w = append(w, f(new(big.Float).SetFloat64(x)))
		}
		return w
	}
	for _, f := range []struct {
		name string
		op   unOp
		ref  func(float64) float64
		xs   []float64
		want []*big.Float
	}{
		{"Atan", unAtan, math.Atan, at, exact(at, bigmath.Atan)},
		{"Asin", unAsin, math.Asin, as, exact(as, bigmath.Asin)},
		{"Acos", unAcos, math.Acos, as, exact(as, bigmath.Acos)},
	} {
		holdExact64(t, f.name, f.op, f.ref, f.xs, f.want, 0.75)
	}
}

// TestArc64TiersIdentical checks that every set gives the generic set's
// float64 Atan, Asin and Acos bits (sameAsGeneric64) on TestArc64Exact's
// inputs mixed with special values (±0, ±Inf, NaN, |x| > 1).
func TestArc64TiersIdentical(t *testing.T) {
	specials := []float64{0, negZ, inf, -inf, nan, 1, -1, 1.5, -2, math.MaxFloat64, math.Nextafter(1, 2)}
	mix := func(xs []float64) []float64 {
		for i := range xs {
			if i%5 == 2 {
				xs[i] = specials[(i/5)%len(specials)]
			}
		}
		return xs
	}
	for _, c := range []struct {
		op unOp
		xs []float64
	}{{unAtan, mix(atan64Inputs(500))}, {unAsin, mix(asin64Inputs(500))}, {unAcos, mix(asin64Inputs(500))}} {
		sameAsGeneric64(t, c.op, c.xs)
	}
}

// TestArc64Special checks the float64 Atan, Asin and Acos of every set at
// their special values: atan ±0 = ±0, atan ±Inf = ±pi/2, asin ±0 = ±0,
// asin ±1 = ±pi/2, acos 1 = +0, acos -1 = pi, acos ±0 = pi/2, NaN for NaN
// and for |x| > 1 (asin, acos), tiny x giving x for Atan and Asin.
func TestArc64Special(t *testing.T) {
	halfPi := math.Pi / 2
	cases := []struct {
		op      unOp
		x, want float64
	}{
		{unAtan, 0, 0}, {unAtan, negZ, negZ}, {unAtan, inf, halfPi}, {unAtan, -inf, -halfPi}, {unAtan, nan, nan},
		{unAtan, 1e-300, 1e-300}, {unAtan, -5e-324, -5e-324}, {unAtan, 1e300, halfPi}, {unAtan, 1, math.Pi / 4},
		{unAsin, 0, 0}, {unAsin, negZ, negZ}, {unAsin, 1, halfPi}, {unAsin, -1, -halfPi}, {unAsin, nan, nan},
		{unAsin, 1.0000000000000002, nan}, {unAsin, -inf, nan}, {unAsin, 1e-300, 1e-300}, {unAsin, 0.5, math.Pi / 6},
		{unAcos, 1, 0}, {unAcos, -1, math.Pi}, {unAcos, 0, halfPi}, {unAcos, negZ, halfPi}, {unAcos, nan, nan},
		{unAcos, -1.5, nan}, {unAcos, inf, nan}, {unAcos, 0.5, math.Pi / 3},
	}
	for _, k := range available() {
		for _, c := range cases {
			xs := []float64{c.x, c.x, c.x, c.x, c.x} // a whole vector and a tail
			got := make([]float64, len(xs))
			k.un64[c.op](got, xs)
			for _, g := range got {
				if math.Float64bits(g) != math.Float64bits(c.want) && !(g != g && c.want != c.want) {
					t.Errorf("%s op %d: f(%v) = %v, want %v", k.name, c.op, c.x, g, c.want)
				}
			}
		}
	}
}

// TestAtan2F32 checks every set's float32 Atan2 against float64
// math.Atan2 rounded: within 0.501 ulp of the float64 value on random
// pairs over every binade (both signs, subnormals, and pairs of one
// magnitude, where the angle is near a multiple of pi/4), bit for bit at
// C99's special values (signed zeros, infinities, NaN), the same bits on
// every vector set, into another slice and in place over either input,
// at every length up to 40 (the kernels' tails).
func TestAtan2F32(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 3))
	var ys, xs []float32
	rnd := func() float32 {
		return float32(math.Copysign(math.Ldexp(1+r.Float64(), r.IntN(280)-150), r.Float64()-0.5))
	}
	for range 20000 {
		y, x := rnd(), rnd()
		ys, xs = append(ys, y), append(xs, x)
		ys, xs = append(ys, y), append(xs, y*float32(1+r.IntN(3)-1)) // |y| = |x| or x = 0
	}
	sp := []float32{0, float32(negZ), float32(inf), float32(-inf), float32(nan), 1, -1, 1e-45, -3.4e38}
	for _, y := range sp {
		for _, x := range sp {
			ys, xs = append(ys, y), append(xs, x)
		}
	}
	want := make([]float32, len(ys))
	for i := range ys {
		want[i] = float32(math.Atan2(float64(ys[i]), float64(xs[i])))
	}
	var first []float32
	for _, k := range available() {
		defer useKernels(k)()
		got := make([]float32, len(ys))
		if err := Atan2(got, ys, xs); err != nil {
			t.Fatal(err)
		}
		worst, at := 0.0, 0
		for i, w := range want {
			e := ulpErr32(got[i], float64(math.Atan2(float64(ys[i]), float64(xs[i]))))
			special := slices.Contains(sp, ys[i]) && slices.Contains(sp, xs[i]) || ys[i] != ys[i] || xs[i] != xs[i]
			if special && math.Float32bits(got[i]) != math.Float32bits(w) && !(got[i] != got[i] && w != w) {
				t.Errorf("%s: Atan2(%v, %v) = %v, want %v", k.name, ys[i], xs[i], got[i], w)
			}
			if e > worst || e != e {
				worst, at = e, i
			}
		}
		t.Logf("%s: %d pairs, max %.4f ulp at (%v, %v)", k.name, len(ys), worst, ys[at], xs[at])
		if worst > 0.501 {
			t.Errorf("%s: Atan2(%v, %v) = %v is %.4f ulp from math.Atan2; limit 0.501", k.name, ys[at], xs[at], got[at], worst)
		}
		if first == nil {
			first = got
		} else if k.name != "generic" {
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(first[i]) && !(got[i] != got[i]) {
					t.Errorf("%s: Atan2(%v, %v) = %v, another vector set %v", k.name, ys[i], xs[i], got[i], first[i])
					break
				}
			}
		}
		for n := range 41 {
			d := make([]float32, n)
			if err := Atan2(d, ys[:n], xs[:n]); err != nil {
				t.Fatal(err)
			}
			yc, xc := slices.Clone(ys[:n]), slices.Clone(xs[:n])
			_ = Atan2(yc, yc, xs[:n])
			_ = Atan2(xc, ys[:n], xc)
			for i := range n {
				if !same(float64(d[i]), float64(got[i]), false) || !same(float64(yc[i]), float64(got[i]), false) || !same(float64(xc[i]), float64(got[i]), false) {
					t.Fatalf("%s: length %d, element %d: %v, in place %v and %v, want %v", k.name, n, i, d[i], yc[i], xc[i], got[i])
				}
			}
		}
		if k.name == "generic" {
			first = nil // the vector sets are compared with each other
		}
	}
}

// exactAtan2 is atan2(y, x) for finite y, x not both zero, from math/big:
// atan of min(|y|,|x|)/max(|y|,|x|) (bigmath.Atan, about 280 bits), placed
// in its octant with bigmath.Pi, with y's sign.
func exactAtan2(y, x float64) *big.Float {
	const prec = 300
	ay, ax := new(big.Float).SetPrec(prec).SetFloat64(math.Abs(y)), new(big.Float).SetPrec(prec).SetFloat64(math.Abs(x))
	swap := ay.Cmp(ax) > 0
	num, den := ay, ax
	if swap {
		num, den = ax, ay
	}
	r := bigmath.Atan(new(big.Float).SetPrec(prec).Quo(num, den))
	pi := bigmath.Pi
	halfPi := new(big.Float).SetPrec(prec).Quo(pi, big.NewFloat(2))
	switch {
	case swap && x < 0:
		r.Add(halfPi, r)
	case swap:
		r.Sub(halfPi, r)
	case x < 0:
		r.Sub(pi, r)
	}
	if math.Signbit(y) {
		r.Neg(r)
	}
	return r
}

// TestAtan2F64 holds every set's float64 Atan2 to 1.6 ulp of math/big's
// atan2 (exactAtan2) on random pairs over every binade (both signs,
// subnormals), pairs of one magnitude and ones next to the octant bounds
// (|y| = |x|, where the quotient reaches 1 and the formula switches), and
// to math.Atan2's bits at C99's special values (signed zeros, infinities,
// NaN); every set gives the generic set's bits, into another slice and in
// place over either input, at every length up to 40 and across a block.
func TestAtan2F64(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 4))
	var ys, xs []float64
	rnd := func() float64 { return math.Copysign(math.Ldexp(1+r.Float64(), r.IntN(600)-300), r.Float64()-0.5) }
	n := 5000
	if testing.Short() {
		n = 1000
	}
	for range n {
		y, x := rnd(), rnd()
		ys, xs = append(ys, y, y, y, (r.Float64()*2-1)*8), append(xs, x, y*float64(1+r.IntN(3)-1), math.Nextafter(-y, r.Float64()), (r.Float64()*2-1)*8)
	}
	ys, xs = append(ys, 5e-324, -5e-324, 1, 1e-310, math.MaxFloat64), append(xs, 1, -3, 5e-324, -1e300, math.MaxFloat64)
	sp := []float64{0, negZ, inf, -inf, nan, 1, -1, 5e-324, -math.MaxFloat64}
	first := len(ys)
	for _, y := range sp {
		for _, x := range sp {
			ys, xs = append(ys, y), append(xs, x)
		}
	}
	special := func(i int) bool {
		y, x := ys[i], xs[i]
		return i >= first || y != y || x != x || math.IsInf(y, 0) || math.IsInf(x, 0) || (y == 0 && x == 0)
	}
	exact := make([]*big.Float, len(ys))
	mathWorst, my, mx := 0.0, 0.0, 0.0
	for i := range ys {
		if !special(i) {
			exact[i] = exactAtan2(ys[i], xs[i])
			if e := exactErr(math.Atan2(ys[i], xs[i]), exact[i]); e > mathWorst {
				mathWorst, my, mx = e, ys[i], xs[i]
			}
		}
	}
	for _, k := range available() {
		got := make([]float64, len(ys))
		k.atan264(got, ys, xs)
		worst, wy, wx := 0.0, 0.0, 0.0
		for i := range got {
			if special(i) {
				w := math.Atan2(ys[i], xs[i])
				if math.Float64bits(got[i]) != math.Float64bits(w) && !(got[i] != got[i] && w != w) {
					t.Errorf("%s: Atan2(%v, %v) = %v, want %v", k.name, ys[i], xs[i], got[i], w)
				}
				continue
			}
			if e := exactErr(got[i], exact[i]); e > worst || e != e {
				worst, wy, wx = e, ys[i], xs[i]
			}
		}
		t.Logf("%s: %d pairs, max %.3f ulp at (%v, %v); math.Atan2 %.3g at (%v, %v)", k.name, len(ys), worst, wy, wx, mathWorst, my, mx)
		if worst > 1.6 {
			t.Errorf("%s: Atan2 %.3f ulp at (%v, %v), limit 1.6", k.name, worst, wy, wx)
		}
	}
	want := make([]float64, len(ys))
	genericKernels.atan264(want, ys, xs)
	for _, k := range available()[1:] {
		defer useKernels(k)()
		for _, m := range []int{1, 2, 3, 7, 8, 9, 16, 17, 40, f64Block + 3, len(ys)} {
			for _, alias := range []int{0, 1, 2} {
				y, x := append([]float64(nil), ys[:m]...), append([]float64(nil), xs[:m]...)
				got := make([]float64, m)
				switch alias {
				case 1:
					got = y
				case 2:
					got = x
				}
				if err := Atan2(got, y, x); err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("%s length %d alias %d: Atan2(%v, %v) = %v, generic %v", k.name, m, alias, ys[i], xs[i], got[i], want[i])
					}
				}
			}
		}
	}
}
