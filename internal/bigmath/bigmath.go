// Package bigmath evaluates e^x, ln x, ln(1+x), erf, erfc, sine, cosine,
// arctangent, arcsine and arccosine in math/big arithmetic, to far
// more bits than a float64 holds. It is the independent reference that the
// vec package's float64 accuracy tests compare the kernels with, and the
// function its coefficient fitter (device/cpu/vec/fitcoeffs.go) fits: one
// implementation serves both, so a fitted polynomial and the test that
// checks it cannot drift apart.
package bigmath

import (
	"math"
	"math/big"
)

// Ln2, Pi and SqrtPi are shared values: callers read them and never pass
// them as a receiver.

// Ln2 is ln 2 to 60 digits (about 200 bits).
var Ln2, _, _ = big.ParseFloat("0.693147180559945309417232121458176568075500134360255254120680009", 10, 200, big.ToNearestEven)

// Pi is pi to 200 digits (about 660 bits).
var Pi, _, _ = big.ParseFloat("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196", 10, 600, big.ToNearestEven)

// SqrtPi is sqrt(pi) in 300 bits.
var SqrtPi = new(big.Float).SetPrec(300).Sqrt(Pi)

// Exp returns e^x to about 160 bits for |x| below 2^60: x = k*ln2 + r,
// |r| <= ln2/2 (the reduction carried in 200 bits), then the Taylor series
// of e^r summed until its terms fall below 2^-170, scaled by 2^k exactly.
func Exp(x *big.Float) *big.Float {
	const prec = 200
	xf, _ := x.Float64()
	k := math.Round(xf * math.Log2E)
	r := new(big.Float).SetPrec(prec).SetFloat64(k)
	r.Mul(r, Ln2)
	r.Sub(x, r)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for i := int64(1); term.Sign() != 0 && term.MantExp(nil) > -170; i++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(i))
		sum.Add(sum, term)
	}
	return sum.SetMantExp(sum, int(k))
}

// Erf returns erf(a) to about 250 bits relative for |a| < 2, where it sums
// erf's Taylor series (whose terms grow by at most e^4), and 1 - Erfc(a)
// beyond (both signs).
func Erf(a *big.Float) *big.Float {
	const prec = 300
	if af, _ := a.Float64(); math.Abs(af) >= 2 {
		r := Erfc(a)
		return r.Sub(big.NewFloat(1), r)
	}
	a2 := new(big.Float).SetPrec(prec).Mul(a, a)
	sum := new(big.Float).SetPrec(prec)
	pow := new(big.Float).SetPrec(prec).Set(a) // (-1)^n a^(2n+1)/n!
	stop := a.MantExp(nil) - 280
	for n := int64(0); pow.Sign() != 0 && pow.MantExp(nil) > stop; n++ {
		sum.Add(sum, new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetInt64(2*n+1)))
		pow.Mul(pow, a2).Quo(pow, new(big.Float).SetInt64(n+1)).Neg(pow)
	}
	return sum.Mul(sum, big.NewFloat(2)).Quo(sum, SqrtPi)
}

// Erfc returns erfc(a) to about 170 bits: 1 - Erf(a) for |a| < 2; from 2
// on, e^-a^2/sqrt(pi) divided by the continued fraction a+ (1/2)/(a+
// 1/(a+ (3/2)/(a+ ...))) (cfDenominator, cfTerms terms); erfc(-a) = 2 -
// erfc(a). a^2 must be within Exp's range (|a| below 2^30).
func Erfc(a *big.Float) *big.Float {
	const prec = 300
	if a.Sign() < 0 {
		r := Erfc(new(big.Float).SetPrec(prec).Neg(a))
		return r.Sub(big.NewFloat(2), r)
	}
	if af, _ := a.Float64(); af < 2 {
		r := Erf(a)
		return r.Sub(big.NewFloat(1), r)
	}
	t := cfDenominator(a, cfTerms(a))
	a2 := new(big.Float).SetPrec(prec).Mul(a, a)
	e := Exp(a2.Neg(a2))
	e.Quo(e, SqrtPi)
	return e.Quo(e, t)
}

// cfTerms is how many terms of erfc's continued fraction Erfc evaluates
// at a >= 2: 1100/a, at least 40. Measured against 8,000 terms, the
// fewest that reach 2^-170 relative fall about as 1/a (500 at a = 2, 150
// at 4, 100 at 6, 60 at 9, 40 at 14); TestErfcTerms checks this count.
func cfTerms(a *big.Float) int {
	af, _ := a.Float64()
	return max(40, int(math.Ceil(1100/af)))
}

// cfDenominator returns the n-term convergent of a+ (1/2)/(a+ 1/(a+
// (3/2)/(a+ ...))) as A_n/B_n by the forward recurrence X_k = a*X_(k-1) +
// (k/2)*X_(k-2) (A_(-1) = 1, A_0 = a, B_(-1) = 0, B_0 = 1): multiplications
// by short numbers and one division, where evaluating the fraction from
// its tail divides at every term. Every quantity is positive, so nothing
// cancels; 200 bits carry the 2^-170 the term count aims at.
func cfDenominator(a *big.Float, n int) *big.Float {
	const prec = 200
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	a2, a1 := nf().SetInt64(1), nf().Set(a) // A_(k-2), A_(k-1)
	b2, b1 := nf(), nf().SetInt64(1)        // B_(k-2), B_(k-1)
	ta, tb, h := nf(), nf(), nf()
	for k := 1; k <= n; k++ {
		h.SetFloat64(float64(k) / 2)
		ta.Mul(a, a1).Add(ta, a2.Mul(a2, h))
		tb.Mul(a, b1).Add(tb, b2.Mul(b2, h))
		a2, a1, ta = a1, ta, a2
		b2, b1, tb = b1, tb, b2
	}
	return a1.Quo(a1, b1)
}

// SinCos returns sin x and cos x to about 250 bits relative for |x| below
// 2^100: x = k*pi/2 + r with k = round(x/(pi/2)) and |r| <= pi/4, carried
// in 600 bits, which leaves r's absolute error below 2^-480, while no
// float64 comes within 2^-62 of a multiple of pi/2 (the closest is about
// 2^-61 away, at 6381956970095103*2^797, as tabulated by Muller in
// "Elementary Functions"); then the Taylor series of sin r and cos r
// summed until their terms fall below 2^-300 of the leading one, picked
// and signed by k mod 4.
func SinCos(x *big.Float) (sin, cos *big.Float) {
	const prec, rprec = 300, 600
	halfPi := new(big.Float).SetPrec(rprec).Quo(Pi, big.NewFloat(2))
	q := new(big.Float).SetPrec(rprec).Quo(x, halfPi)
	if q.Sign() < 0 {
		q.Sub(q, big.NewFloat(0.5))
	} else {
		q.Add(q, big.NewFloat(0.5))
	}
	k, _ := q.Int(nil) // toward zero: the nearest integer to x/(pi/2)
	r := new(big.Float).SetPrec(rprec).SetInt(k)
	r.Mul(r, halfPi)
	r.Sub(new(big.Float).SetPrec(rprec).Set(x), r)
	r2 := new(big.Float).SetPrec(prec).Mul(r, r)
	series := func(term *big.Float, first int64) *big.Float {
		sum := new(big.Float).SetPrec(prec).Set(term)
		stop := term.MantExp(nil) - 300
		for n := first; term.Sign() != 0 && term.MantExp(nil) > stop; n += 2 {
			term.Mul(term, r2).Quo(term, new(big.Float).SetInt64(n*(n+1))).Neg(term)
			sum.Add(sum, term)
		}
		return sum
	}
	s := series(new(big.Float).SetPrec(prec).Set(r), 2)
	c := series(new(big.Float).SetPrec(prec).SetInt64(1), 1)
	switch new(big.Int).And(k, big.NewInt(3)).Int64() {
	case 1:
		s, c = c, s.Neg(s)
	case 2:
		s, c = s.Neg(s), c.Neg(c)
	case 3:
		s, c = c.Neg(c), s
	}
	return s, c
}

// Log returns ln x for finite x > 0 to about 190 bits: x = m*2^e with m
// in [sqrt(1/2), sqrt(2)), ln m = 2*atanh(s), s = (m-1)/(m+1) (|s| <
// 0.172), summed until its terms fall below 2^-200, plus e*ln2.
func Log(x *big.Float) *big.Float {
	const prec = 220
	m := new(big.Float).SetPrec(prec)
	e := x.MantExp(m) // m in [0.5, 1)
	if m.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	s := new(big.Float).SetPrec(prec).Sub(m, big.NewFloat(1))
	s.Quo(s, new(big.Float).SetPrec(prec).Add(m, big.NewFloat(1)))
	sum := atanh2(s)
	el := new(big.Float).SetPrec(prec).SetInt64(int64(e))
	return sum.Add(sum, el.Mul(el, Ln2))
}

// Log1p returns ln(1+x) for finite x > -1 to about 190 bits relative:
// 2*atanh(x/(2+x)) for |x| < 1/4 (no cancellation for tiny x), else Log of
// 1+x formed exactly.
func Log1p(x *big.Float) *big.Float {
	const prec = 220
	if a := new(big.Float).Abs(x); a.Cmp(big.NewFloat(0.25)) < 0 {
		s := new(big.Float).SetPrec(prec).Add(x, big.NewFloat(2))
		s.Quo(x, s)
		return atanh2(s)
	}
	u := new(big.Float).SetPrec(x.Prec()+2200).Add(x, big.NewFloat(1))
	return Log(u)
}

// atanh2 returns 2*atanh(s) = 2*(s + s^3/3 + s^5/5 + ...) for |s| < 0.2,
// summed until its terms fall below 2^-200 of s.
func atanh2(s *big.Float) *big.Float {
	const prec = 220
	s2 := new(big.Float).SetPrec(prec).Mul(s, s)
	sum := new(big.Float).SetPrec(prec)
	pow := new(big.Float).SetPrec(prec).Set(s)
	if s.Sign() == 0 {
		return sum
	}
	stop := s.MantExp(nil) - 200
	for i := int64(0); pow.Sign() != 0 && pow.MantExp(nil) > stop; i++ {
		sum.Add(sum, new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetInt64(2*i+1)))
		pow.Mul(pow, s2)
	}
	return sum.Mul(sum, big.NewFloat(2))
}

// Atan returns atan x to about 280 bits relative for finite x: for |x| >
// 1, pi/2 - atan(1/|x|) with x's sign; then the argument halved, atan u
// = 2*atan(u/(1 + sqrt(1 + u^2))), until |u| < 2^-8, and the Taylor series
// u - u^3/3 + u^5/5 - ... summed until its terms fall below 2^-320 of u.
func Atan(x *big.Float) *big.Float {
	const prec = 340
	u := new(big.Float).SetPrec(prec).Abs(x)
	one := big.NewFloat(1)
	var flip bool
	if u.Cmp(one) > 0 {
		u.Quo(one, u)
		flip = true
	}
	doublings := 0
	for u.Sign() != 0 && u.MantExp(nil) > -8 {
		w := new(big.Float).SetPrec(prec).Mul(u, u)
		w.Add(w, one).Sqrt(w).Add(w, one)
		u.Quo(u, w)
		doublings++
	}
	sum := new(big.Float).SetPrec(prec)
	if u.Sign() != 0 {
		u2 := new(big.Float).SetPrec(prec).Mul(u, u)
		pow := new(big.Float).SetPrec(prec).Set(u) // (-1)^n u^(2n+1)
		stop := u.MantExp(nil) - 320
		for n := int64(0); pow.Sign() != 0 && pow.MantExp(nil) > stop; n++ {
			sum.Add(sum, new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetInt64(2*n+1)))
			pow.Mul(pow, u2).Neg(pow)
		}
	}
	sum.SetMantExp(sum, doublings)
	if flip {
		sum.Sub(new(big.Float).SetPrec(prec).Quo(Pi, big.NewFloat(2)), sum)
	}
	if x.Sign() < 0 {
		sum.Neg(sum)
	}
	return sum
}

// Asin returns asin x for x in [-1, 1] to about 280 bits relative: atan(x
// / sqrt(1 - x^2)) (1 - x^2 exact for a float64 x), and ±pi/2 at ±1. It
// returns nil for |x| > 1.
func Asin(x *big.Float) *big.Float {
	const prec = 340
	one := big.NewFloat(1)
	switch new(big.Float).Abs(x).Cmp(one) {
	case 1:
		return nil
	case 0:
		h := new(big.Float).SetPrec(prec).Quo(Pi, big.NewFloat(2))
		if x.Sign() < 0 {
			h.Neg(h)
		}
		return h
	}
	d := new(big.Float).SetPrec(2*x.Prec()+8).Mul(x, x)
	d.Sub(one, d)
	d.SetPrec(prec).Sqrt(d)
	return Atan(d.Quo(x, d))
}

// Acos returns acos x = pi/2 - asin x for x in [-1, 1] (about 280 bits
// absolute, which is relative but next to x = 1, where acos x is at least
// sqrt(2*2^-53) for a float64 x below 1), and nil for |x| > 1.
func Acos(x *big.Float) *big.Float {
	a := Asin(x)
	if a == nil {
		return nil
	}
	return a.Sub(new(big.Float).SetPrec(a.Prec()).Quo(Pi, big.NewFloat(2)), a)
}
