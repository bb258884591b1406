// Package pow64 computes the float64 power x**y within 1 ulp of the exact
// value. It is the op table's float64 Pow (package device) and the
// generic kernel set's (device/cpu/vec), and it repeats the steps of
// vec's AVX-512 and AVX2 Pow kernels (asmgen.go's pow512F64 and powAVX2)
// in Go, on the tables
// and coefficients the generator writes into tables.go, so that every
// device and kernel set computes the same bits.
//
// math.Pow is not used for ordinary operands: it multiplies y's integer
// part in by repeated squaring, which loses accuracy as |y| grows (20 ulp
// at moderate exponents, 10^5 ulp and more where y*ln x nears 700 with
// |y| large; TestPowAccuracy logs it), and it is wrong for subnormal
// bases (2.4e-313**-0.371 gives 2.29e114 where the power is 1.24e116).
// Here ln|x| is carried as a pair to about 2^-68, y*ln|x| as a pair too,
// and e to that power is rounded once.
package pow64

import "math"

// Pow returns x**y with C99's special values: those of math.Pow where x
// is zero, infinite or NaN or y is infinite or NaN (exact there), and for
// a finite negative x, -|x|**y for an odd integer y, |x|**y for an even
// one and NaN (math.NaN's bits) otherwise. For other operands it is
// within 1 ulp of the exact power (TestPowAccuracy measures 0.92 at
// most). The exponents the CPU's fast paths, NumPy's and PyTorch's take
// shortcuts for give the shortcuts' values: y = 1 gives x, 2 x*x, -1 1/x
// and 0.5 sqrt(x) (each correctly rounded), -0.5 1/sqrt(x) (PyTorch's
// rsqrt and math.Pow's; two roundings, within 1.5 ulp).
func Pow(x, y float64) float64 {
	if !Ordinary(x, y) {
		if x != 0 && x-x == 0 && y == 2 {
			return x * x
		}
		if x != 0 && x-x == 0 && y == -1 {
			return 1 / x
		}
		return math.Pow(x, y)
	}
	r := magnitude(math.Abs(x), y)
	if x < 0 {
		if h := y * 0.5; h != math.RoundToEven(h) {
			r = -r // y odd (every float64 of 2^53 and above is even)
		}
		if y != math.RoundToEven(y) {
			r = math.NaN()
		}
	}
	return r
}

// Ordinary reports whether Pow computes x**y by its own steps, which vec's
// Pow kernels repeat: x finite and not zero, y finite and none of the
// shortcut exponents ±0.5, ±1 and 2. The kernels leave every other pair to
// Pow, so this is the one statement of where the two split.
func Ordinary(x, y float64) bool {
	a := math.Abs(y)
	return x != 0 && x-x == 0 && y-y == 0 && a != 0.5 && a != 1 && y != 2
}

// magnitude returns x**y for a positive finite x and a finite y, by the
// AVX-512 kernel's steps: each math.FMA stands for one of its fused
// multiply-adds, each other operation rounds as its instruction does.
func magnitude(x, y float64) float64 {
	hi, lo := logPair(x)
	// The pair normalised (Fast2Sum): lo alone can reach r^2/2.
	h := hi + lo
	l := (hi - h) + lo
	// y*(h + l) = ph + pl, ph rounded, pl its error plus y*l.
	ph := y * h
	pl := math.FMA(h, y, -ph)
	pl = math.FMA(l, y, pl)
	// Beyond [-746, 710] e^ph rounds to 0 or +Inf, as the clamped value's
	// does; pl is dropped there.
	c := max(min(ph, 710), -746)
	if c != ph {
		pl = 0
	}
	// k = round(c*16/ln2) by the shifter, j = k mod 16 in its low bits; r =
	// c - k*ln2/16 in two parts, plus pl.
	ks := math.FMA(c, log2e16, shifter)
	k := ks - shifter
	r := math.FMA(-k, ln2Hi16, c)
	r = math.FMA(-k, ln2Lo16, r)
	r += pl
	// q = e^r - 1 = r + r^2*P(r); T = 2^(j/16) = Thi + Tlo; T*e^r = Thi +
	// (Thi*q + Tlo), scaled by 2^floor(k/16) and rounded once.
	q := horner(expQ[:], r)
	q = math.FMA(r*r, q, r)
	j := math.Float64bits(ks) & 15
	s := exp2Hi[j] + math.FMA(q, exp2Hi[j], exp2Lo[j])
	return math.Ldexp(s, int(math.Floor(k*(1.0/16))))
}

// logPair returns ln x as an unrounded pair hi + lo to about 2^-68, for a
// positive finite x: x = m*2^k, m in [0.75, 1.5), bin j of m (its top five
// fraction bits), r = m*invc[j] - 1 exactly, ln x = k*ln2 - log(invc[j]) +
// log1p(r), with log1p(r) = r - r^2/2 + r^3*P(r), r^2 carried exactly and
// the sums by Fast2Sum, so that only r^3*P(r) (below 2^-16) is rounded.
func logPair(x float64) (hi, lo float64) {
	k := 0
	if x < 0x1p-1022 { // subnormal: scaled exactly into the normal range
		x *= 0x1p54
		k = -54
	}
	bits := math.Float64bits(x)
	k += int(bits>>52) - 1023
	m := math.Float64frombits(bits&(1<<52-1) | 1023<<52) // [1, 2)
	if m >= 1.5 {
		m *= 0.5 // bins 16-31, whose table entries add the ln2 that k lacks
	}
	j := math.Float64bits(m) >> 47 & 31
	r := math.FMA(m, logInvC[j], -1)
	r2 := r * r
	kf := float64(k)
	r2lo := math.FMA(r, r, -r2)
	th := math.FMA(kf, ln2Hi, logTHi[j])
	lo = math.FMA(kf, ln2Lo, logTLo[j])
	lo = math.FMA(-r2lo, 0.5, lo)
	t := th + r
	lo += (th - t) + r
	b := r2 * -0.5
	t2 := t + b
	lo += (t - t2) + b
	// P by its even and odd halves in r^2, as the kernel evaluates it.
	p := math.FMA(horner(logFineOdd[:], r2), r, horner(logFineEven[:], r2))
	p *= r
	return t2, math.FMA(p, r2, lo)
}

// logFineEven and logFineOdd are logFine's even and odd coefficients: P(r)
// = Pe(r^2) + r*Po(r^2).
var logFineEven, logFineOdd = func() (ev, od [(len(logFine) + 1) / 2]float64) {
	for i, c := range logFine {
		if i%2 == 0 {
			ev[i/2] = c
		} else {
			od[i/2] = c
		}
	}
	return ev, od
}()

// horner returns sum c[i] u^i by Horner's rule with fused steps.
func horner(c []float64, u float64) float64 {
	acc := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		acc = math.FMA(acc, u, c[i])
	}
	return acc
}
