package vec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestSiluF64 holds every tier's float64 Silu (the generic silu64: x times
// sigmoid64, and x*e^x scaled last below x = -700) to 3 ulp of x*sigmoid(x)
// computed with math/big: sigmoid64's relative error (up to 2.2 of its
// own ulps, see unary64) carries into the product, whose rounding adds
// half an ulp; these inputs reach 2.9. Subnormal results (from about x = -708 to
// -751) are held to 3 x 2^-1074, and the inputs cover the switch at -700,
// the last nonzero result and the clamp at -800.
func TestSiluF64(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var xs []float64
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		xs = append(xs, -760+r.Float64()*800, -20+r.Float64()*40, -751.5+r.Float64()*60)
	}
	for _, c := range []float64{-700, -708.4, -745.13, -751.1, -800, 1e-300, -1e-300, 30, 710, 1e300, -1} {
		xs = steps(xs, c, 200)
	}
	xs = append(xs, 0, math.Copysign(0, -1))
	want := make([]*big.Float, len(xs))
	for i, x := range xs {
		bx := new(big.Float).SetPrec(200).SetFloat64(x)
		switch {
		case x > 800: // sigmoid(x) is 1 within 2^-1150: x*sigmoid(x) rounds to x
			want[i] = bx
		case x < -800: // |x*sigmoid(x)| < 2^-1100 rounds to -0
			want[i] = new(big.Float)
		default:
			want[i] = bx.Mul(bx, exactSigmoid(x))
		}
	}
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			worst, at, sub := exactErrors(k.un64[unSilu], xs, want)
			t.Logf("%d inputs: max %.3f ulp at %v; subnormal results %.3f x 2^-1074", len(xs), worst, at, sub)
			if worst > 3 || sub > 3 {
				t.Errorf("Silu: %.3f ulp at x=%v, subnormal %.3f; limit 3", worst, at, sub)
			}
		})
	}
}

// TestSiluSpecialF64 checks the float64 Silu where its formula breaks
// down: -Inf gives -0 (the limit, where x*sigmoid(x) is -Inf*0 = NaN), far
// negative x -0, +Inf and NaN themselves.
func TestSiluSpecialF64(t *testing.T) {
	for _, k := range available() {
		x := []float64{math.Inf(-1), -1e300, -900, math.Inf(1), math.NaN(), math.Copysign(0, -1)}
		got := make([]float64, len(x))
		k.un64[unSilu](got, x)
		negZ := math.Copysign(0, -1)
		for i, w := range []float64{negZ, negZ, negZ, math.Inf(1), math.NaN(), negZ} {
			if math.Float64bits(got[i]) != math.Float64bits(w) && !(math.IsNaN(w) && math.IsNaN(got[i])) {
				t.Errorf("%s: Silu(%v) = %v, want %v", k.name, x[i], got[i], w)
			}
		}
	}
}
