package bigmath

import (
	"math"
	"math/big"
	"testing"
)

// erfcWithTerms is Erfc's continued-fraction branch with n terms,
// evaluated from its tail (a division at every term): an independent
// check of cfDenominator's forward recurrence.
func erfcWithTerms(a *big.Float, n int) *big.Float {
	t := new(big.Float).SetPrec(300).Set(a)
	for k := n; k >= 1; k-- {
		q := new(big.Float).SetPrec(300).Quo(big.NewFloat(float64(k)/2), t)
		t = q.Add(q, a)
	}
	a2 := new(big.Float).SetPrec(300).Mul(a, a)
	e := Exp(a2.Neg(a2))
	e.Quo(e, SqrtPi)
	return e.Quo(e, t)
}

// TestErfcTerms checks that Erfc's continued fraction, at the length
// cfTerms gives, agrees with 8,000 terms to 2^-170 relative from a = 2 to
// 27.
func TestErfcTerms(t *testing.T) {
	for _, af := range []float64{2, 2.5, 3, 4, 6, 9, 14, 20, 27} {
		a := new(big.Float).SetPrec(300).SetFloat64(af)
		got, want := Erfc(a), erfcWithTerms(a, 8000)
		d := new(big.Float).SetPrec(300).Sub(got, want)
		d.Quo(d, want)
		if d.Sign() != 0 && d.MantExp(nil) > -170 {
			df, _ := d.Float64()
			t.Errorf("erfc(%v) with %d terms: relative difference %g from 8,000 terms", af, cfTerms(a), df)
		}
	}
}

// TestKnownValues checks Exp, Erf and Erfc against published values, to 40
// digits (Exp is good to about 160 bits, 48 digits).
func TestKnownValues(t *testing.T) {
	for _, c := range []struct {
		name string
		got  *big.Float
		want string
	}{
		{"e", Exp(big.NewFloat(1)), "2.71828182845904523536028747135266249775724709369995957496696762772407663"},
		{"erf(1)", Erf(big.NewFloat(1)), "0.842700792949714869341220635082609259296066997966302908459937897834717"},
		{"erfc(3)", Erfc(big.NewFloat(3)), "0.0000220904969985854413727761295823203798477070873992019286760668"},
		{"erf(-0.5)", Erf(big.NewFloat(-0.5)), "-0.520499877813046537682746653891964528736451575757963700058805725647"},
	} {
		want, _, _ := big.ParseFloat(c.want, 10, 300, big.ToNearestEven)
		d := new(big.Float).SetPrec(300).Sub(c.got, want)
		d.Quo(d, want)
		if df, _ := d.Float64(); math.Abs(df) > 1e-40 {
			t.Errorf("%s = %s, want %s (relative %g)", c.name, c.got.Text('g', 40), c.want, df)
		}
	}
}

// TestSinCosKnownValues checks SinCos against published values to 40
// digits, in each quadrant and at a large argument.
func TestSinCosKnownValues(t *testing.T) {
	for _, c := range []struct {
		x        float64
		sin, cos string
	}{
		{1, "0.8414709848078965066525023216302989996225630607983710656727517099", "0.5403023058681397174009366074429766037323104206179222276700972553"},
		{2, "0.9092974268256816953960198659117448427022549714478902683789730115", "-0.4161468365471423869975682295007621897660007710755448907551499737"},
		{-4, "0.7568024953079282513726390945118290941359128873364725714854167734", "-0.6536436208636119146391681830977503814241335966462182470070102838"},
		{5, "-0.9589242746631384688931544061559939733524615439646017781316724542", "0.2836621854632262644666391715135573083344225922522159449303590665"},
		{1e22, "-0.8522008497671888017727058937530293682618", "0.5232147853951389454975944733847094921409"},
	} {
		s, co := SinCos(big.NewFloat(c.x))
		for _, v := range []struct {
			what string
			got  *big.Float
			want string
		}{{"sin", s, c.sin}, {"cos", co, c.cos}} {
			want, _, _ := big.ParseFloat(v.want, 10, 300, big.ToNearestEven)
			d := new(big.Float).SetPrec(300).Sub(v.got, want)
			d.Quo(d, want)
			if df, _ := d.Float64(); math.Abs(df) > 1e-39 {
				t.Errorf("%s(%g) = %s, want %s (relative %g)", v.what, c.x, v.got.Text('g', 40), v.want, df)
			}
		}
	}
}

// tenToMinus10 is 10^-10 in 300 bits (no float64 holds it).
var tenToMinus10, _, _ = big.ParseFloat("1e-10", 10, 300, big.ToNearestEven)

// TestLogKnownValues checks Log and Log1p against published and
// series-derived values to 40 digits.
func TestLogKnownValues(t *testing.T) {
	for _, c := range []struct {
		name string
		got  *big.Float
		want string
	}{
		{"ln 10", Log(big.NewFloat(10)), "2.302585092994045684017991454684364207601101488628772976033"},
		{"ln 2", Log(big.NewFloat(2)), "0.693147180559945309417232121458176568075500134360255254120680009"},
		{"ln 0.5", Log(big.NewFloat(0.5)), "-0.693147180559945309417232121458176568075500134360255254120680009"},
		// 1e-10 - 5e-21 + (1/3)e-30 - 2.5e-41 + 2e-51 - ...
		{"log1p(1e-10)", Log1p(tenToMinus10), "9.999999999500000000033333333330833333333533333333316666666668e-11"},
		{"log1p(1)", Log1p(big.NewFloat(1)), "0.693147180559945309417232121458176568075500134360255254120680009"},
		{"log1p(-0.5)", Log1p(big.NewFloat(-0.5)), "-0.693147180559945309417232121458176568075500134360255254120680009"},
	} {
		want, _, _ := big.ParseFloat(c.want, 10, 300, big.ToNearestEven)
		d := new(big.Float).SetPrec(300).Sub(c.got, want)
		d.Quo(d, want)
		if df, _ := d.Float64(); math.Abs(df) > 1e-39 {
			t.Errorf("%s = %s, want %s (relative %g)", c.name, c.got.Text('g', 40), c.want, df)
		}
	}
}
