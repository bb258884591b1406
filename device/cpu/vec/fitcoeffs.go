//go:build ignore

// fitcoeffs fits the polynomial coefficients that asmgen.go bakes into the
// float32 transcendental kernels, and prints them with their float32 bit
// patterns. Run `go run fitcoeffs.go NAME` with NAME one of exp, exp2, log, tanh,
// erf, q (erfc for Erf, variable t = 2/(2+a)), g (erfc for GeluErf,
// t = c/(c+|x|)), logtab64 (the float64 log's log1p polynomial beside its
// tables, coefficients rounded to float64), tanh64 (the float64 tanh's
// odd polynomial), asin64 (the float32 Asin/Acos polynomial in float64
// lanes), erf64 (the float64 erf's polynomials, see fitErf64, fitted to
// math/big values from internal/bigmath), gelu64 (the float64 GeluErf's
// bins, fitGeluBins64), atanF64 or asinF64 (the float64 Atan's and
// Asin's polynomials), pow32 (the float32 Pow's log2 and exp2
// polynomials in float64 lanes, fitPow32).
//
// Each fit minimises the maximum weighted error on a Chebyshev-spaced grid
// by Lawson's iteratively reweighted least squares (Householder QR for each
// solve); the coefficients are then rounded to float32 one at a time from
// the lowest order, refitting the others after each, and the error after
// rounding is printed in units of 2^-24.
package main

import (
	"fmt"
	"math"
	"math/big"
	"os"

	"github.com/tessera-go/tessera/internal/bigmath"
)

// lsq solves min ||A x - b|| by Householder QR.
func lsq(A [][]float64, b []float64) []float64 {
	m, n := len(A), len(A[0])
	a := make([][]float64, m)
	for i := range a {
		a[i] = append([]float64(nil), A[i]...)
	}
	bb := append([]float64(nil), b...)
	for k := 0; k < n; k++ {
		var norm float64
		for i := k; i < m; i++ {
			norm += a[i][k] * a[i][k]
		}
		norm = math.Sqrt(norm)
		if a[k][k] > 0 {
			norm = -norm
		}
		v := make([]float64, m)
		v[k] = a[k][k] - norm
		for i := k + 1; i < m; i++ {
			v[i] = a[i][k]
		}
		var vv float64
		for i := k; i < m; i++ {
			vv += v[i] * v[i]
		}
		if vv == 0 {
			continue
		}
		for j := k; j < n; j++ {
			var s float64
			for i := k; i < m; i++ {
				s += v[i] * a[i][j]
			}
			s = 2 * s / vv
			for i := k; i < m; i++ {
				a[i][j] -= s * v[i]
			}
		}
		var s float64
		for i := k; i < m; i++ {
			s += v[i] * bb[i]
		}
		s = 2 * s / vv
		for i := k; i < m; i++ {
			bb[i] -= s * v[i]
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := bb[i]
		for j := i + 1; j < n; j++ {
			s -= a[i][j] * x[j]
		}
		x[i] = s / a[i][i]
	}
	return x
}

// fit finds coefficients c[0..deg] of sum c_k u^k approximating g(u) on the
// grid, minimising max |w(u)(p(u)-g(u))| by Lawson's iteration; fixed holds
// coefficients already fixed (prefix), which are kept.
func fit(us []float64, g, w func(float64) float64, deg int, fixed []float64) ([]float64, float64) {
	m := len(us)
	lw := make([]float64, m)
	for i := range lw {
		lw[i] = 1
	}
	nf := len(fixed)
	var c []float64
	var maxe float64
	for it := 0; it < 300; it++ {
		A := make([][]float64, m)
		b := make([]float64, m)
		for i, u := range us {
			s := math.Sqrt(lw[i]) * w(u)
			row := make([]float64, deg+1-nf)
			pw := 1.0
			rhs := g(u)
			for k := 0; k <= deg; k++ {
				if k < nf {
					rhs -= fixed[k] * pw
				} else {
					row[k-nf] = s * pw
				}
				pw *= u
			}
			A[i] = row
			b[i] = s * rhs
		}
		x := lsq(A, b)
		ci := append(append([]float64(nil), fixed...), x...)
		var me, sum float64
		for i, u := range us {
			e := math.Abs(w(u) * (eval(ci, u) - g(u)))
			me = math.Max(me, e)
			lw[i] *= e + 1e-300
			sum += lw[i]
		}
		for i := range lw {
			lw[i] /= sum
		}
		// The best iterate: at high degree the weights can collapse onto a
		// few points and later solves degrade.
		if c == nil || me < maxe {
			c, maxe = ci, me
		}
	}
	return c, maxe
}

func eval(c []float64, u float64) float64 {
	var p float64
	for k := len(c) - 1; k >= 0; k-- {
		p = p*u + c[k]
	}
	return p
}

// fitRounded fits, then rounds coefficients to float32 one at a time from
// the lowest order, refitting the rest after each.
func fitRounded(us []float64, g, w func(float64) float64, deg int, fixed []float64) []float64 {
	fx := append([]float64(nil), fixed...)
	for len(fx) <= deg {
		c, e := fit(us, g, w, deg, fx)
		_ = e
		fx = append(fx, float64(float32(c[len(fx)])))
	}
	maxe := 0.0
	for _, u := range us {
		maxe = math.Max(maxe, math.Abs(w(u)*(eval(fx, u)-g(u))))
	}
	fmt.Printf("deg %d maxerr after rounding %.3g (%.3f ulp24)\n", deg, maxe, maxe/math.Pow(2, -24))
	return fx
}

func grid(a, b float64, n int) []float64 {
	us := make([]float64, n)
	for i := range us {
		// Chebyshev-like clustering plus endpoints
		th := math.Pi * float64(i) / float64(n-1)
		us[i] = (a+b)/2 - (b-a)/2*math.Cos(th)
	}
	return us
}

func show(name string, c []float64) {
	fmt.Printf("%s:", name)
	for _, v := range c {
		fmt.Printf(" %.9g (0x%08x)", float32(v), math.Float32bits(float32(v)))
	}
	fmt.Println()
}
func main() {
	which := os.Args[1]
	switch which {
	case "exp":
		for deg := 4; deg <= 5; deg++ {
			us := grid(-math.Ln2/2, math.Ln2/2, 2001)
			g := func(r float64) float64 {
				if math.Abs(r) < 1e-6 {
					return 1 + r/2 + r*r/6
				}
				return math.Expm1(r) / r
			}
			w := func(r float64) float64 { return math.Abs(r) / math.Exp(r) }
			c := fitRounded(us, g, w, deg, nil)
			show("exp", c)
		}
	case "exp2":
		// 2^r = 1 + r*Q(r) on |r| <= 1/2 (the float32 Exp2's r = x -
		// round(x), exact), Q weighted as exp's: its error times r
		// relative to 2^r.
		for deg := 5; deg <= 6; deg++ {
			us := grid(-0.5, 0.5, 2001)
			g := func(r float64) float64 {
				if r == 0 {
					return math.Ln2
				}
				return math.Expm1(r*math.Ln2) / r
			}
			w := func(r float64) float64 { return math.Abs(r) / math.Exp2(r) }
			show("exp2", fitRounded(us, g, w, deg, nil))
		}
	case "log":
		for deg := 6; deg <= 10; deg++ {
			us := grid(math.Sqrt(0.5)-1, math.Sqrt2-1, 3001)
			g := func(f float64) float64 {
				if math.Abs(f) < 0.01 {
					s, p := 0.0, 1.0
					for k := 3; k < 30; k++ {
						sg := 1.0
						if k%2 == 0 {
							sg = -1
						}
						s += sg * p / float64(k)
						p *= f
					}
					return s
				}
				return (math.Log1p(f) - f + f*f/2) / (f * f * f)
			}
			w := func(f float64) float64 {
				if f == 0 {
					return 0
				}
				return math.Abs(f * f * f / math.Log1p(f))
			}
			c := fitRounded(us, g, w, deg, nil)
			show("log", c)
		}
	case "logtab64":
		// float64 log by table (logTables64 in asmgen.go): log1p(r) =
		// r + r^2*(-1/2 + r/3 + r^2*H(r)) for r in [logRMin, logRMax] =
		// [-0.0205078125, 1/32] (a hair wider), H(r) = sum (-1)^(k+1)
		// r^(k-4)/k from k = 4, fitted in u = r/rhi for conditioning,
		// weighted by |r|^3: H's error enters the result times r^4, and the
		// result is about r itself in the two bins beside 1, where it is
		// smallest. The kernel takes degree 7.
		const rlo, rhi = -0.0205078125 * 1.0001, 1.0 / 32 * 1.0001
		H := func(r float64) float64 {
			var s float64
			for k := 60; k >= 4; k-- {
				sg := 1.0
				if k%2 == 0 {
					sg = -1
				}
				s = s*r + sg/float64(k)
			}
			return s
		}
		w := func(u float64) float64 { r := u * rhi; return math.Abs(r * r * r) }
		for deg := 4; deg <= 6; deg++ {
			us := grid(rlo/rhi, 1, 3001)
			c, _ := fit(us, func(u float64) float64 { return H(u * rhi) }, w, deg, nil)
			maxe := 0.0
			for _, u := range us {
				maxe = math.Max(maxe, math.Abs(w(u)*(eval(c, u)-H(u*rhi))))
			}
			fmt.Printf("deg %d: max |r^3*(P-H)| = %.3g (%.3f x 2^-53)\nlogtab64: -1/2 1/3", deg+2, maxe, maxe/0x1p-53)
			for i, v := range c {
				fmt.Printf(" 0x%016x", math.Float64bits(v/math.Pow(rhi, float64(i))))
			}
			fmt.Println()
		}
	case "erf64":
		fitErf64()
	case "gelu64":
		fitGeluBins64()
	case "tanh64":
		// float64 tanh below |x| = cut (default 0.25, the kernel's; `go
		// run fitcoeffs.go tanh64 0.5` tries another): tanh a = a +
		// a^3*P(s), s = a^2. The reference G(s) = (tanh a - a)/a^3 is
		// tanh's Taylor series (coefficients from tanh' = 1 - tanh^2, to
		// a^119: at s = 0.25 a term is below 0.11 of the one before),
		// so no cancellation. P's error enters the result times about s,
		// the weight; the fit is in u = s/smax for conditioning, on a range
		// a hair wider than cut^2. The kernel takes degree 7.
		const terms = 120
		t := make([]float64, terms+2)
		t[1] = 1
		for k := 1; k <= terms; k++ {
			var sq float64
			for i := 0; i <= k; i++ {
				sq += t[i] * t[k-i]
			}
			t[k+1] = -sq / float64(k+1)
		}
		G := func(s float64) float64 {
			var v float64
			for k := terms - 1; k >= 3; k -= 2 {
				v = v*s + t[k]
			}
			return v
		}
		cut := 0.25
		if len(os.Args) > 2 {
			fmt.Sscan(os.Args[2], &cut)
		}
		fitWeighted64("tanh64", G, cut*cut*1.0001, 4, 8)
	case "asin64":
		// asin y = y + y*z*P(z), z = y^2 <= 1/4 (|y| <= 1/2), for the
		// float32 Asin and Acos in float64 lanes. The reference G(z) =
		// (asin y - y)/(y z) is asin's series, c_n = (2n)!/(4^n (n!)^2
		// (2n+1)) for z^(n-1), summed to z^119 (each term below a quarter
		// of the one before), so no cancellation. P's error enters the
		// result (about y) times about z, the weight; the fit is in u =
		// z/zmax. The kernel takes degree 8.
		fitWeighted64("asin64", asinSeries, 0.25*1.0001, 7, 11)
	case "atanF64":
		// atan t = t + t*s*P(s), s = t^2 <= 0.0431 (|t| <= 0.2076, the
		// float64 Atan's reduced argument, asmgen.go's atanRegions), for
		// the float64 Atan. The reference G(s) = (atan t - t)/(t s) is
		// atan's series, (-1)^k s^(k-1)/(2k+1), summed to s^119 (each term
		// below a twentieth of the one before), so no cancellation. P's
		// error enters the result (about t) times about s, the weight. The
		// kernel takes degree 7.
		fitWeighted64("atanF64", atanSeries, 0.0431*1.0001, 6, 11)
	case "atan32":
		// The float32 Atan in float64 lanes: atan t = t + t*s*P(s), s =
		// t^2 <= tan(pi/8)^2 = 0.1716 (asmgen.go's atanCore), P's error
		// below 2^-40 of the result, as atanF64's reference (the series to
		// s^119; each term below a fifth of the one before).
		fitWeighted64("atan32", atanSeries, (3-2*math.Sqrt2)*1.0001, 5, 10)
	case "sin32":
		// The float32 Sin and Cos in float64 lanes: sin r = r + r*z*S(z),
		// z = r^2 <= (pi/2)^2 (asmgen.go's sinCosCore, r reduced by pi).
		// The reference is sin's series (trigSeries). S's error enters
		// the result (at least 2r/pi) times about z, the weight.
		fitWeighted64("sin32", trigSeries(1), math.Pi*math.Pi/4*1.0001, 4, 7)
	case "tan32":
		// The float32 Tan in float64 lanes: sin r = r + r*z*S(z) and cos r
		// = 1 - z/2 + z^2*C(z), z = r^2 <= (pi/4)^2 (asmgen.go's trigCore,
		// r reduced by pi/2), their quotient the result. S as sin32's, C
		// against cos's series (trigSeries), whose error enters the
		// result (cos r >= 0.7) times z^2, the weight.
		zmax := math.Pi * math.Pi / 16 * 1.0001
		fitWeighted64("tan32sin", trigSeries(1), zmax, 2, 5)
		fitWeightedPow64("tan32cos", trigSeries(0), zmax, 2, 2, 5)
	case "pow32":
		fitPow32()
	case "asinF64":
		// The float64 Asin and Acos: asin y = y + y*z*P(z), z = y^2 <=
		// 1/4, as asin64 but to float64's precision (P's error below 2^-58
		// of the result). The kernel takes degree 13.
		fitWeighted64("asinF64", asinSeries, 0.25*1.0001, 9, 14)
	case "tanh":
		for _, cut := range []float64{0.55, 0.625} {
			for deg := 3; deg <= 5; deg++ {
				us := grid(0, cut*cut, 2001)
				g := func(s float64) float64 {
					a := math.Sqrt(s)
					if a < 0.05 {
						return -1.0/3 + s*(2.0/15+s*(-17.0/315+s*(62.0/2835+s*(-1382.0/155925+s*21844.0/6081075))))
					}
					return (math.Tanh(a) - a) / (a * a * a)
				}
				w := func(s float64) float64 {
					a := math.Sqrt(s)
					if a == 0 {
						return 0
					}
					return a * a * a / math.Tanh(a)
				}
				fmt.Println("cut", cut)
				c := fitRounded(us, g, w, deg, nil)
				show("tanh", c)
			}
		}
	case "erf":
		for _, cut := range []float64{0.75, 0.875, 1.0} {
			for deg := 5; deg <= 7; deg++ {
				us := grid(0, cut*cut, 2001)
				g := func(s float64) float64 {
					a := math.Sqrt(s)
					if a == 0 {
						return 2/math.SqrtPi - 1
					}
					return math.Erf(a)/a - 1
				}
				w := func(s float64) float64 { return 1 / (g(s) + 1) }
				fmt.Println("cut", cut)
				c := fitRounded(us, g, w, deg, nil)
				show("erf", c)
			}
		}
	case "g":
		c := float64(float32(2 * math.Sqrt2))
		fmt.Printf("c=%.9g 0x%08x\n", c, math.Float32bits(float32(c)))
		lo := 0.15
		ctr := (lo + 1) / 2
		us := grid(lo-ctr, 1-ctr, 3001)
		g := func(u float64) float64 {
			t := u + ctr
			w := c * (1/t - 1)
			z := w / math.Sqrt2
			return math.Log(math.Erfc(z)/t) + z*z
		}
		for deg := 9; deg <= 11; deg++ {
			cs := fitRounded(us, g, func(float64) float64 { return 1 }, deg, nil)
			show("g", cs)
		}
	case "q":
		var lo float64
		fmt.Sscan(os.Args[2], &lo)
		for deg := 8; deg <= 12; deg++ {
			ctr := (lo + 1) / 2
			us := grid(lo-ctr, 1-ctr, 3001)
			g := func(u float64) float64 {
				t := u + ctr
				z := 2/t - 2
				return math.Log(math.Erfc(z)/t) + z*z
			}
			w := func(t float64) float64 { return 1 }
			c := fitRounded(us, g, w, deg, nil)
			show("q", c)
		}
	}
}

// The float64 erf kernel's shape (asmgen.go states the same and checks
// its R0 table against it): below |x| = erf64Cut, x + x*Q(x^2), Q of
// degree erf64QDeg; from there on, 1 - erfc(a), a = |x|, erfc(a) =
// e^-a^2 * (R0_i + u*P_i(u)) in bin i = min(floor((a -
// erf64Cut)/erf64Width), erf64Bins-1), P_i of degree erf64PDeg, u = a -
// c_i, c_i the bin's centre (the last bin reaches to erf64Top, past which
// erf rounds to 1).
const (
	erf64Cut   = 0.75
	erf64Width = 0.5
	erf64Bins  = 8
	erf64Top   = 6.0
	erf64QDeg  = 10
	erf64PDeg  = 12
)

// asinSeries is G(z) = (asin y - y)/(y z), z = y^2: asin's series,
// c_n = (2n)!/(4^n (n!)^2 (2n+1)) for z^(n-1), summed to z^119 (for z <=
// 1/4 each term is below a quarter of the one before), so no cancellation.
func asinSeries(z float64) float64 {
	var v float64
	for n := len(asinTerms) - 1; n >= 1; n-- {
		v = v*z + asinTerms[n]
	}
	return v
}

// asinTerms are asinSeries's coefficients, c_n for n < 120 (c_0 unused).
var asinTerms = func() []float64 {
	c := make([]float64, 120)
	ratio := 1.0 // (2n)!/(4^n (n!)^2)
	for n := 1; n < len(c); n++ {
		ratio *= float64(2*n-1) / float64(2*n)
		c[n] = ratio / float64(2*n+1)
	}
	return c
}()

// bigFloat is v in 300 bits.
func bigFloat(v float64) *big.Float { return new(big.Float).SetPrec(300).SetFloat64(v) }

// bigErfcx is erfc(a)*e^(a^2) in 300 bits.
func bigErfcx(a float64) *big.Float {
	ba := bigFloat(a)
	a2 := new(big.Float).SetPrec(300).Mul(ba, ba)
	return a2.Mul(bigmath.Erfc(ba), bigmath.Exp(a2))
}

// fitErf64 fits the float64 erf kernel's polynomials and prints them as
// Go float64 literals for asmgen.go, with their largest weighted errors in
// units of 2^-53 (about an ulp of an erf in [0.5, 1)). The errors are
// measured in float64 on the fit's grid, so a figure below about 0.3 is
// partly that evaluation's own rounding; TestExactF64 measures the kernel.
func fitErf64() {
	fitErfQ64()
	fitErfBins64()
}

// fitErfQ64 fits Q(t) = erf(x)/x - 1 for t = x^2 < erf64Cut^2 as c0 +
// t*G(t): c0 = 2/sqrt(pi) - 1 rounded, G fitted to its own 300-bit values
// and weighted by t*x/erf(x) (its error enters erf(x) relatively times
// that), so near x = 0, where t*G is tiny, the result's error is c0's
// rounding alone.
func fitErfQ64() {
	one := bigFloat(1)
	c0 := 2/math.SqrtPi - 1
	ts := grid(0, erf64Cut*erf64Cut*1.0001, 2000)
	gv := make(map[float64]float64) // G(t)
	qv := make(map[float64]float64) // Q(t)
	for _, t := range ts {
		if t == 0 {
			gv[t], _ = new(big.Float).SetPrec(300).Quo(big.NewFloat(-2.0/3), bigmath.SqrtPi).Float64()
			qv[t] = c0
			continue
		}
		bt := bigFloat(t)
		bx := new(big.Float).SetPrec(300).Sqrt(bt) // x = sqrt(t) exactly, not rounded
		q := new(big.Float).SetPrec(300).Sub(one, bigmath.Erfc(bx))
		q.Quo(q, bx).Sub(q, one)
		qv[t], _ = q.Float64()
		gv[t], _ = q.Sub(q, bigFloat(c0)).Quo(q, bt).Float64()
	}
	g, e := fit(ts, func(t float64) float64 { return gv[t] }, func(t float64) float64 { return t / (1 + qv[t]) }, erf64QDeg-1, nil)
	fmt.Printf("Q, degree %d: max %.4f x 2^-53\n", erf64QDeg, e/0x1p-53)
	show64("erfQ64", append([]float64{c0}, g...))
}

// fitErfBins64 fits each bin's R0 = R(c) rounded to float64 and P(u) =
// (R(c+u) - R0)/u, R = erfc*e^(a^2) from 300-bit values, weighted by
// e^-a^2*|u|: P's error enters erf as e^-a^2*u times it (erf is at least
// 0.7 here, its ulp 2^-53). P is fitted in v = sc*u, within [-1, 1] but in
// the last bin, sc a power of two, so its coefficients in u are exact.
func fitErfBins64() { fitBins64("erf", false, erf64Top) }

// fitGeluBins64 fits the float64 GeluErf kernel's bins: erf64Bins bins of
// erf64Width from erf64Cut as fitErfBins64's, the last one not widened
// (up to geluBinsTop), weighted by |u|/R0: GeluErf needs erfc(a) to
// within a fraction of its own ulp, not of erf's.
func fitGeluBins64() { fitBins64("gelu", true, geluBinsTop) }

// geluBinsTop is where the GeluErf kernel's bins end (asmgen.go's).
const geluBinsTop = erf64Cut + erf64Width*erf64Bins

// fitBins64 fits bins for fitErfBins64 (absolute weights, the last bin
// widened to top) or fitGeluBins64 (relative weights, top the last bin's
// own end), printing them as name+"R064" and name+"P64".
func fitBins64(name string, relative bool, top float64) {
	worst := 0.0
	var r0s []float64
	var ps [][]float64
	for i := range erf64Bins {
		lo := erf64Cut + erf64Width*float64(i)
		c, hi, sc := lo+erf64Width/2, lo+erf64Width, 2/erf64Width
		if i == erf64Bins-1 && top != hi {
			hi, sc = top, 1
		}
		r0, _ := bigErfcx(c).Float64()
		vs := grid((lo-c)*sc*1.001, (hi-c)*sc*1.001, 1000) // even: v = 0 is not a point
		pv := make(map[float64]float64, len(vs))
		for j, v := range vs {
			// a = c + u exactly: u = fl(c + u) - c (Sterbenz), else a's
			// rounding would enter P as R'(a)*2^-53/u
			u := (c + v/sc) - c
			vs[j] = u * sc
			d := new(big.Float).SetPrec(300).Sub(bigErfcx(c+u), bigFloat(r0))
			pv[vs[j]], _ = d.Quo(d, bigFloat(u)).Float64()
		}
		w := func(v float64) float64 { a := c + v/sc; return math.Exp(-a*a) * math.Abs(v/sc) }
		if relative {
			w = func(v float64) float64 { return math.Abs(v/sc) / r0 }
		}
		cs, e := fit(vs, func(v float64) float64 { return pv[v] }, w, erf64PDeg, nil)
		for k := range cs {
			cs[k] *= math.Pow(sc, float64(k))
		}
		worst = math.Max(worst, e/0x1p-53)
		r0s, ps = append(r0s, r0), append(ps, cs)
		fmt.Printf("  bin %d [%.3g, %.3g]: %.4f x 2^-53\n", i, lo, hi, e/0x1p-53)
	}
	fmt.Printf("P, degree %d: worst %.4f x 2^-53\n", erf64PDeg, worst)
	show64(name+"R064", r0s)
	fmt.Println(name + "P64 = [][]float64{")
	for _, c := range ps {
		show64("", c)
	}
	fmt.Println("}")
}

// fitWeighted64 fits P(s) to G(s) on [0, smax] for each degree from lo to
// hi, minimising max |s*(P-G)| (P's error enters the result times about
// s), in u = s/smax for conditioning, and prints the error in units of
// 2^-53 and the float64 coefficients (in s) as bit patterns.
func fitWeighted64(name string, G func(float64) float64, smax float64, lo, hi int) {
	fitWeightedPow64(name, G, smax, 1, lo, hi)
}

// fitWeightedPow64 is fitWeighted64 with the weight s^pow.
func fitWeightedPow64(name string, G func(float64) float64, smax float64, pow, lo, hi int) {
	w := func(u float64) float64 { return math.Pow(u*smax, float64(pow)) }
	for deg := lo; deg <= hi; deg++ {
		us := grid(0, 1, 3001)
		c, _ := fit(us, func(u float64) float64 { return G(u * smax) }, w, deg, nil)
		maxe := 0.0
		for _, u := range us {
			maxe = math.Max(maxe, math.Abs(w(u)*(eval(c, u)-G(u*smax))))
		}
		fmt.Printf("deg %d: max |s^%d*(P-G)| = %.3g (%.3f x 2^-53)\n%s:", deg, pow, maxe, maxe/0x1p-53, name)
		for i, v := range c {
			fmt.Printf(" 0x%016x", math.Float64bits(v/math.Pow(smax, float64(i))))
		}
		fmt.Println()
	}
}

// atanSeries is (atan t - t)/(t s), s = t^2: atan's series (-1)^k
// s^(k-1)/(2k+1) summed to s^119, for s up to tan(pi/8)^2, where each
// term is below a fifth of the one before, so without cancellation.
func atanSeries(s float64) float64 {
	var v float64
	for k := 120; k >= 1; k-- {
		c := 1 / float64(2*k+1)
		if k%2 == 1 {
			c = -c
		}
		v = v*s + c
	}
	return v
}

// trigSeries returns sin's (odd 1: (sin r - r)/(r z), z = r^2, terms
// (-1)^k z^(k-1)/(2k+1)! from k = 1) or cos's (odd 0: (cos r - 1 +
// z/2)/z^2, terms (-1)^k z^(k-2)/(2k)! from k = 2) series, summed to k =
// 40, for z up to (pi/2)^2, where each term is below a fifth of the one
// before.
func trigSeries(odd int) func(z float64) float64 {
	return func(z float64) float64 {
		var v float64
		for k := 40; k >= 2-odd; k-- {
			f := 1.0
			for i := 2; i <= 2*k+odd; i++ {
				f *= float64(i)
			}
			c := 1 / f
			if k%2 == 1 {
				c = -c
			}
			v = v*z + c
		}
		return v
	}
}

// show64 prints vs as a Go slice literal (shortest exact decimals).
func show64(name string, vs []float64) {
	if name != "" {
		fmt.Printf("%s = ", name)
	}
	fmt.Print("[]float64{")
	for i, v := range vs {
		if i > 0 {
			fmt.Print(", ")
		}
		fmt.Printf("%v", v)
	}
	fmt.Println("},")
}

// fitPow32 fits the float32 Pow kernel's polynomials (asmgen.go's
// pow512F32), float64 coefficients: log2(1+r) = r*P(r) for |r| <= 1/32
// (a hair wider; the tables' bins keep r within it), P fitted for its
// relative error, which is the result's near x = 1; and 2^r = 1 + r*Q(r)
// for |r| <= 1/32, Q's error weighted by |r|, as it enters the result.
// Both fits run in u = r/rmax for conditioning.
func fitPow32() {
	const rmax = 1.0 / 32 * 1.0001
	us := grid(-1, 1, 3001)
	scale := func(c []float64) []float64 {
		out := make([]float64, len(c))
		for i, v := range c {
			out[i] = v / math.Pow(rmax, float64(i))
		}
		return out
	}
	logG := func(u float64) float64 {
		r := u * rmax
		if r == 0 {
			return 1 / math.Ln2
		}
		return math.Log1p(r) / r / math.Ln2
	}
	for deg := 6; deg <= 8; deg++ {
		c, e := fit(us, logG, func(float64) float64 { return math.Ln2 }, deg, nil)
		fmt.Printf("log2 P degree %d: relative error 2^%.1f\n", deg, math.Log2(e))
		show64("pow32P", scale(c))
	}
	expG := func(u float64) float64 {
		r := u * rmax
		if r == 0 {
			return math.Ln2
		}
		return math.Expm1(r*math.Ln2) / r
	}
	for deg := 3; deg <= 5; deg++ {
		c, e := fit(us, expG, func(u float64) float64 { return math.Abs(u * rmax) }, deg, nil)
		fmt.Printf("exp2 Q degree %d: error 2^%.1f\n", deg, math.Log2(e))
		show64("pow32Q", scale(c))
	}
}
