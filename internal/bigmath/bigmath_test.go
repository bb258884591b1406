package bigmath

import (
	"fmt"
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

// TestArcKnownValues checks Atan against Machin's formula, 4*atan(1/5) -
// atan(1/239) = pi/4, and against published values; and Asin and Acos at
// points where they are known exactly (asin 1/2 = pi/6, acos -1/2 =
// 2pi/3, asin 1 = pi/2, acos 1 = 0); and all of them through SinCos, which
// shares no step with them: tan(atan x) = x and sin(asin x) = x.
func TestArcKnownValues(t *testing.T) {
	const prec = 340
	near := func(what string, got, want *big.Float, tol float64) {
		t.Helper()
		d := new(big.Float).SetPrec(prec).Sub(got, want)
		if want.Sign() != 0 {
			d.Quo(d, want)
		}
		if df, _ := d.Float64(); math.Abs(df) > tol {
			t.Errorf("%s = %s, want %s (relative %g)", what, got.Text('g', 50), want.Text('g', 50), df)
		}
	}
	fifth := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1), big.NewFloat(5))
	inv239 := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1), big.NewFloat(239))
	machin := new(big.Float).SetPrec(prec).Mul(Atan(fifth), big.NewFloat(4))
	machin.Sub(machin, Atan(inv239))
	piOver := func(num, den int64) *big.Float {
		v := new(big.Float).SetPrec(prec).Mul(Pi, big.NewFloat(float64(num)))
		return v.Quo(v, big.NewFloat(float64(den)))
	}
	near("4atan(1/5) - atan(1/239)", machin, piOver(1, 4), 1e-80)
	for _, c := range []struct {
		x    float64
		want string
	}{
		{1, "0.7853981633974483096156608458198757210492923498437764552437361481"},
		{0.5, "0.4636476090008061162142562314612144020285370542861202638109330887"},
		{-2, "-1.107148717794090503017065460178537040070047645401432646676539207"},
	} {
		want, _, _ := big.ParseFloat(c.want, 10, prec, big.ToNearestEven)
		near(fmt.Sprintf("Atan(%g)", c.x), Atan(big.NewFloat(c.x)), want, 1e-38)
	}
	near("Asin(1/2)", Asin(big.NewFloat(0.5)), piOver(1, 6), 1e-80)
	near("Acos(-1/2)", Acos(big.NewFloat(-0.5)), piOver(2, 3), 1e-80)
	near("Asin(1)", Asin(big.NewFloat(1)), piOver(1, 2), 1e-80)
	near("Asin(-1)", Asin(big.NewFloat(-1)), piOver(-1, 2), 1e-80)
	if a := Acos(big.NewFloat(1)); a.Sign() != 0 {
		t.Errorf("Acos(1) = %v, want 0", a)
	}
	if Asin(big.NewFloat(1.5)) != nil || Acos(big.NewFloat(-1.0000001)) != nil {
		t.Errorf("Asin or Acos outside [-1, 1] did not return nil")
	}
	for _, x := range []float64{0.3, -0.7, 0.999999, 1 - 0x1p-53, 1e-200} {
		s, _ := SinCos(Asin(big.NewFloat(x)))
		near(fmt.Sprintf("sin(Asin(%g))", x), s, big.NewFloat(x), 1e-70)
	}
	for _, x := range []float64{1e-5, 0.2, -0.99, 1.01, 3, -1e10, 1e30} {
		s, c := SinCos(Atan(big.NewFloat(x)))
		near(fmt.Sprintf("tan(Atan(%g))", x), s.Quo(s, c), big.NewFloat(x), 1e-70)
	}
}
