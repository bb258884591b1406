package vec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/internal/bigmath"
)

// trig64Inputs returns the float64 Sin, Cos and Tan test inputs below
// trigBound: n each uniform on [-pi, pi] and [-1e6, 1e6] and spread over
// every binade from 2^-30 to 2^30, n next to multiples of pi/2 (the
// nearest double to k*pi/2 and its neighbours, k up to 2^29, where the
// reduction cancels most bits), and fixed points: the ends of the range,
// pi/4 (where the reduction may pick either quadrant), tiny values.
func trig64Inputs(n int) []float64 {
	r := rand.New(rand.NewPCG(46, 2))
	var xs []float64
	for range n {
		xs = append(xs, (r.Float64()*2-1)*math.Pi, (r.Float64()*2-1)*1e6,
			math.Copysign(math.Ldexp(1+r.Float64(), r.IntN(60)-30), r.Float64()-0.5))
		k := float64(r.Int64N(1 << 29))
		if r.IntN(4) == 0 {
			k = float64(r.IntN(1000))
		}
		b := math.Float64bits(k*math.Pi/2) + uint64(r.IntN(5)) - 2
		xs = append(xs, math.Copysign(math.Float64frombits(b), r.Float64()-0.5))
	}
	for _, c := range []float64{math.Nextafter(trigBound, 0), math.Pi / 4, math.Pi / 2, math.Pi, 1, 0x1p-26, 1e-300} {
		xs = steps(xs, c, 20)
		xs = steps(xs, -c, 20)
	}
	xs = append(xs, 5e-324, -5e-324, 0x1p-1022, -0x1p-1022)
	return slices.DeleteFunc(xs, func(x float64) bool { return math.Abs(x) >= trigBound })
}

// TestTrig64Exact holds every set's float64 Sin, Cos and Tan below 2^30
// to values computed with math/big (bigmath.SinCos, about 250 bits):
// within 0.8 ulp (Sin, Cos) and 0.9 ulp (Tan), where 300,000 inputs on
// [-pi, pi] and [-2000, 2000] measured 0.736, 0.722 and 0.818. Package math, for
// comparison, is logged: near multiples of pi/2 its reduction is far off.
func TestTrig64Exact(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	xs := trig64Inputs(n)
	want := [3][]*big.Float{}
	for _, x := range xs {
		s, c := bigmath.SinCos(new(big.Float).SetFloat64(x))
		want[0] = append(want[0], s)
		want[1] = append(want[1], c)
		want[2] = append(want[2], new(big.Float).SetPrec(300).Quo(s, c))
	}
	ops := []struct {
		name  string
		op    unOp
		ref   func(float64) float64
		limit float64
	}{{"Sin", unSin, math.Sin, 0.8}, {"Cos", unCos, math.Cos, 0.8}, {"Tan", unTan, math.Tan, 0.9}}
	for i, f := range ops {
		holdExact64(t, f.name, f.op, f.ref, xs, want[i], f.limit)
	}
}

// holdExact64 holds every set's float64 unary op to limit ulps of the
// exact values want on xs (exactErrors; subnormal results to limit x
// 2^-1074), logging each set's worst and, for comparison, ref's (package
// math).
func holdExact64(t *testing.T, name string, op unOp, ref func(float64) float64, xs []float64, want []*big.Float, limit float64) {
	t.Helper()
	mathWorst, mathAt, _ := exactErrors(map64(ref), xs, want)
	for _, k := range available() {
		worst, at, sub := exactErrors(k.un64[op], xs, want)
		t.Logf("%s %s over %d inputs: %.3f ulp at %v (subnormal results %.3f x 2^-1074); package math %.3g ulp at %v",
			k.name, name, len(xs), worst, at, sub, mathWorst, mathAt)
		if worst > limit || sub > limit {
			t.Errorf("%s %s: %.3f ulp at x=%v (%#016x), subnormal %.3f; limit %g", k.name, name, worst, at, math.Float64bits(at), sub, limit)
		}
	}
}

// TestTrig64TiersIdentical checks that every set gives the same float64
// Sin, Cos and Tan bits (any NaN for NaN) on TestTrig64Exact's inputs and
// on ones at and above 2^30 (left to package math), infinities, NaN and
// ±0, mixed so that each vector holds both kinds, and on a ramp whose
// vectors mostly lie in one quadrant, into another slice and in place;
// the generic set is the reference.
func TestTrig64TiersIdentical(t *testing.T) {
	xs := trig64Inputs(500)
	r := rand.New(rand.NewPCG(46, 3))
	for i := range xs {
		if i%7 == 3 {
			xs[i] = math.Copysign(math.Ldexp(1+r.Float64(), 30+r.IntN(990)), r.Float64()-0.5)
		}
	}
	xs = append(xs, trigBound, -trigBound, inf, -inf, nan, 0, negZ, 1e22, math.MaxFloat64, 0x1p30+1)
	for i := range 4000 { // a ramp: most vectors in one quadrant, where Sin and Cos compute one series
		xs = append(xs, float64(i)*0.01-20)
	}
	for _, op := range []unOp{unSin, unCos, unTan} {
		sameAsGeneric64(t, op, xs)
	}
}

// sameAsGeneric64 checks that every vector set's float64 unary op gives
// the generic set's bits (any NaN for NaN) on xs, into another slice and
// in place.
func sameAsGeneric64(t *testing.T, op unOp, xs []float64) {
	t.Helper()
	want := make([]float64, len(xs))
	genericKernels.un64[op](want, xs)
	for _, k := range available()[1:] {
		for _, inPlace := range []bool{false, true} {
			got := make([]float64, len(xs))
			src := xs
			if inPlace {
				copy(got, xs)
				src = got
			}
			k.un64[op](got, src)
			for i, w := range want {
				if math.Float64bits(got[i]) != math.Float64bits(w) && !(got[i] != got[i] && w != w) {
					t.Errorf("%s op %d in place %v: x=%v gives %v, generic %v", k.name, op, inPlace, xs[i], got[i], w)
				}
			}
		}
	}
}

// TestTan64InPlaceLargeResults runs the float64 Tan in place on inputs
// whose results pass 2^30 (next to odd multiples of pi/2), mixed with
// inputs the kernel leaves to package math: the large results must stay
// the kernel's (trigVia tells the two apart by x, which in place survives
// only through inPlaceVia's copy).
func TestTan64InPlaceLargeResults(t *testing.T) {
	near := []float64{math.Pi / 2, -math.Pi / 2, 3 * math.Pi / 2, math.Nextafter(math.Pi/2, 0), 1e6*math.Pi + math.Pi/2}
	var xs []float64
	for i := range 1100 { // past inPlaceVia's block of 512
		xs = append(xs, near[i%len(near)], 0x1p31+float64(i), float64(i)*0.01)
	}
	for _, k := range available() {
		defer useKernels(k)()
		got := append([]float64(nil), xs...)
		if err := Tan(got, got); err != nil {
			t.Fatal(err)
		}
		for i, x := range xs {
			if want := tan64(x); math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Errorf("%s: Tan(%v) in place = %v, want %v", k.name, x, got[i], want)
			}
			if i%3 == 0 && (i/3)%len(near) < 4 && math.Abs(got[i]) < 0x1p30 {
				t.Errorf("%s: Tan(%v) = %v, want beyond 2^30", k.name, x, got[i])
			}
		}
	}
}
