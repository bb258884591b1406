package vec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactSoftplus is max(x,0) + log1p(e^-|x|) in 200-bit arithmetic
// (|x| <= 800): log1p(E) = 2*atanh(s), s = E/(2+E) <= 1/3, summed until
// the terms fall 170 bits below the first.
func exactSoftplus(x float64) *big.Float {
	const prec = 200
	e := exactExp(-math.Abs(x))
	s := new(big.Float).SetPrec(prec).Add(e, big.NewFloat(2))
	s.Quo(e, s)
	s2 := new(big.Float).SetPrec(prec).Mul(s, s)
	sum := new(big.Float).SetPrec(prec)
	pow := new(big.Float).SetPrec(prec).Set(s)
	stop := s.MantExp(nil) - 170
	for i := int64(0); pow.Sign() != 0 && pow.MantExp(nil) > stop; i++ {
		sum.Add(sum, new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetInt64(2*i+1)))
		pow.Mul(pow, s2)
	}
	sum.Mul(sum, big.NewFloat(2))
	return sum.Add(sum, new(big.Float).SetPrec(prec).SetFloat64(max(x, 0)))
}

// softplusInputs are uniform values over the range where the result is
// neither x nor 0 in float64, around the ends of float32's and float64's
// normal results (x near -87.3 and -708.4) and of their underflow (-103.3
// and -745.1), and small |x|, where e^-|x| is near 1.
func softplusInputs(n int) []float64 {
	r := rand.New(rand.NewPCG(31, 32))
	var xs []float64
	for range n {
		xs = append(xs, -750+r.Float64()*790, -30+r.Float64()*60, (r.Float64()-0.5)*1e-3,
			-87.5+r.Float64(), -104+r.Float64()*2, -708.9+r.Float64(), -745.5+r.Float64())
	}
	return append(xs, 0, math.Copysign(0, -1), 1, -1, 40, -40, 1e-300, -1e-300)
}

// TestSoftplus holds every tier's Softplus to 2.5 ulp of math/big values
// in float64 (1.98 measured) and to 0.51 ulp in float32 (where the float64 computation is
// rounded once; 0.500 measured), subnormal results to 3 x 2^-1074 and 0.51 x 2^-149.
func TestSoftplus(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 400
	}
	xs := softplusInputs(n)
	want := make([]*big.Float, len(xs))
	for i, x := range xs {
		want[i] = exactSoftplus(x)
	}
	x32 := make([]float32, len(xs))
	for i, x := range xs {
		x32[i] = float32(x)
	}
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			worst, at, sub := exactErrors(k.un64[unSoftplus], xs, want)
			t.Logf("float64: %d inputs, max %.3f ulp at %v; subnormal results %.3f x 2^-1074", len(xs), worst, at, sub)
			if worst > 2.5 || sub > 3 {
				t.Errorf("float64 Softplus: %.3f ulp at %v, subnormal %.3f; limits 2.5 and 3", worst, at, sub)
			}
			got32 := make([]float32, len(x32))
			k.un32[unSoftplus](got32, x32)
			worst, at, sub = 0, 0, 0
			for i, x := range x32 {
				w, _ := exactSoftplus(float64(x)).Float64()
				e := ulpErr32(got32[i], w)
				if math.Abs(w) < 0x1p-126 {
					sub = max(sub, e)
				} else if e > worst || e != e {
					worst, at = e, float64(x)
				}
			}
			t.Logf("float32: max %.3f ulp at %v; subnormal results %.3f x 2^-149", worst, at, sub)
			if worst > 0.51 || sub > 0.51 {
				t.Errorf("float32 Softplus: %.3f ulp at %v, subnormal %.3f; limit 0.51", worst, at, sub)
			}
		})
	}
}

// TestSoftplusSpecial checks NaN, the infinities, the zeros, values whose
// result is x itself or underflows to 0, in both types, on every tier,
// over lengths that cross the block of softplusVia, in place too.
func TestSoftplusSpecial(t *testing.T) {
	in := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e300, -1e300, 800, -800, 37, -746}
	out := []float64{math.NaN(), math.Inf(1), 0, math.Ln2, math.Ln2, 1e300, 0, 800, 0, 37, 0}
	for _, k := range available() {
		for _, n := range []int{len(in), f64Block + 3} {
			x := make([]float64, n)
			for i := range x {
				x[i] = in[i%len(in)]
			}
			x32 := make([]float32, n)
			for i, v := range x {
				x32[i] = float32(v)
			}
			k.un64[unSoftplus](x, x)
			k.un32[unSoftplus](x32, x32)
			for i := range x {
				w := out[i%len(in)]
				if !same(x[i], w, false) {
					t.Errorf("%s: float64 Softplus(%v) = %v, want %v", k.name, in[i%len(in)], x[i], w)
				}
				if w32 := float64(float32(w)); !same(float64(x32[i]), w32, false) {
					t.Errorf("%s: float32 Softplus(%v) = %v, want %v", k.name, float32(in[i%len(in)]), x32[i], w32)
				}
			}
		}
	}
}
