package pow64

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/internal/bigmath"
)

// exact is x**y for a finite x != 0 and a finite y to about 170 bits
// (C99's sign for a negative x with an integer y; ok false for a negative
// x with any other y): e^(y*ln|x|), the product carried in 220 bits.
func exact(x, y float64) (p *big.Float, ok bool) {
	if x < 0 && y != math.Trunc(y) {
		return nil, false
	}
	l := bigmath.Log(new(big.Float).SetPrec(220).SetFloat64(math.Abs(x)))
	l.Mul(l, new(big.Float).SetPrec(220).SetFloat64(y))
	p = bigmath.Exp(l)
	if x < 0 && math.Mod(y, 2) != 0 {
		p.Neg(p)
	}
	return p, true
}

// ulpErr is |got - want| in ulps of want rounded to float64 (2^-1074
// where that is subnormal), as a real number.
func ulpErr(got float64, want *big.Float) float64 {
	w, _ := want.Float64()
	a := math.Abs(w)
	if a > math.MaxFloat64 {
		a = math.MaxFloat64
	}
	ulp := math.Nextafter(a, math.Inf(1)) - a
	d := new(big.Float).SetPrec(220).SetFloat64(got)
	d.Sub(d, want)
	d.Quo(d, new(big.Float).SetFloat64(ulp))
	e, _ := d.Float64()
	return math.Abs(e)
}

// TestPowAccuracy holds Pow to 1 ulp of the exact power (2^-1074 where
// the result is subnormal) on every kind of SamplePairs, a negative base
// with a non-integer exponent to math.NaN's bits (any NaN for ±0.5, the
// square root's shortcut), and an overflowing one
// to the infinity of its sign; it logs math.Pow's error on the same pairs
// as the yardstick (not held to anything).
func TestPowAccuracy(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 800
	}
	r := rand.New(rand.NewPCG(5, 7))
	for _, kind := range SampleKinds {
		xs, ys := SamplePairs(r, kind, n)
		var worst, mathWorst, sub float64
		var at [2]float64
		for i, x := range xs {
			y := ys[i]
			got := Pow(x, y)
			if kind == "huge" { // y*ln x beyond ±1e7: 0 or +Inf
				if want := math.Inf(1); (y > 0) != (x > 1) && got != 0 || (y > 0) == (x > 1) && got != want {
					t.Errorf("%s: Pow(%v, %v) = %v, want 0 or +Inf", kind, x, y, got)
				}
				continue
			}
			want, ok := exact(x, y)
			if !ok {
				if math.Float64bits(got) != math.Float64bits(math.NaN()) && !(got != got && math.Abs(y) == 0.5) {
					t.Errorf("%s: Pow(%v, %v) = %v (%#x), want math.NaN()", kind, x, y, got, math.Float64bits(got))
				}
				continue
			}
			w, _ := want.Float64()
			if math.IsInf(w, 0) {
				if got != w {
					t.Errorf("%s: Pow(%v, %v) = %v, want %v", kind, x, y, got, w)
				}
				continue
			}
			e := ulpErr(got, want)
			if math.Abs(w) < 0x1p-1022 {
				sub = max(sub, e)
				continue
			}
			if e > worst || e != e {
				worst, at = e, [2]float64{x, y}
			}
			mathWorst = max(mathWorst, ulpErr(math.Pow(x, y), want))
		}
		t.Logf("%s: Pow %.3f ulp at (%v, %v), subnormal results %.2f x 2^-1074; math.Pow %.3g ulp", kind, worst, at[0], at[1], sub, mathWorst)
		if !(worst <= 1) || sub > 1 {
			t.Errorf("%s: %.3f ulp at Pow(%v, %v), subnormal results %.2f x 2^-1074: limit 1", kind, worst, at[0], at[1], sub)
		}
	}
}

// TestPowSpecial checks Pow against math.Pow, bit for bit, wherever C99
// fixes the value (a zero, infinite or NaN operand of either sign, x = ±1
// with any y, y = ±0 with any x) and at the shortcuts' exponents: ±0.5 and
// 1 as math.Pow, 2 as x*x, -1 as 1/x.
func TestPowSpecial(t *testing.T) {
	sp := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 2, -2, 0.5, -0.5, 3, -3, 1e-310, -1e-310, 1e300, 2.5, -2.5, 0.1, -1.7e-5}
	for _, x := range sp {
		for _, y := range sp {
			fixed := x == 0 || x-x != 0 || y-y != 0 || x == 1 || y == 0 || x == -1 && y == math.Trunc(y) || y == 0.5 || y == -0.5 || y == 1
			want := math.Pow(x, y)
			switch {
			case fixed:
			case y == 2:
				want = x * x
			case y == -1:
				want = 1 / x
			default:
				continue
			}
			got := Pow(x, y)
			if math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
				t.Errorf("Pow(%v, %v) = %v, want %v", x, y, got, want)
			}
		}
	}
}

// TestTables checks the generated tables against the properties the steps
// rely on: every log bin's invc leaves r = m*invc - 1 exact and within
// [-0.0205, 1/32] over the bin (checked at both ends), and Thi + Tlo is
// -log(invc) (+ ln2 for bins 16-31) to 2^-85 (Tlo's rounding: it holds
// ln2's low part, about 2^-33, in bins 16-31).
func TestTables(t *testing.T) {
	ln2 := bigmath.Ln2
	for j := range 32 {
		a, width := 1+float64(j)/32, 1.0/32
		if j >= 16 {
			a, width = (1+float64(j)/32)/2, 1.0/64
		}
		for _, m := range []float64{a, math.Nextafter(a+width, 0)} {
			r := math.FMA(m, logInvC[j], -1)
			e := new(big.Float).SetPrec(200).SetFloat64(m)
			e.Mul(e, big.NewFloat(logInvC[j])).Sub(e, big.NewFloat(1))
			if e.Cmp(big.NewFloat(r)) != 0 || r < -0.0205078125 || r > 1.0/32 {
				t.Errorf("bin %d: m = %v: r = %v, outside [-0.0205, 1/32] or inexact", j, m, r)
			}
		}
		want := bigmath.Log(new(big.Float).SetPrec(220).SetFloat64(logInvC[j]))
		want.Neg(want)
		if j >= 16 {
			want.Add(want, ln2)
		}
		got := new(big.Float).SetPrec(220).SetFloat64(logTHi[j])
		got.Add(got, new(big.Float).SetFloat64(logTLo[j]))
		d, _ := got.Sub(got, want).Float64()
		if math.Abs(d) > 0x1p-85 {
			t.Errorf("bin %d: Thi + Tlo off -log(invc) by %g", j, d)
		}
	}
}

// BenchmarkPow times Pow and math.Pow on positive bases and exponents
// drawn as N(0,1), GOMAXPROCS irrelevant (one goroutine).
func BenchmarkPow(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 4096
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = math.Abs(r.NormFloat64()), r.NormFloat64()
	}
	for _, c := range []struct {
		name string
		f    func(x, y float64) float64
	}{{"Pow", Pow}, {"math.Pow", math.Pow}} {
		b.Run(c.name, func(b *testing.B) {
			s := 0.0
			for b.Loop() {
				for i, x := range xs {
					s += c.f(x, ys[i])
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			_ = s
		})
	}
}
