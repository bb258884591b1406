package cpu

import (
	"github.com/tessera-go/tessera/internal/pow64"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
)

// activationInputs returns n random values of both signs over several
// binades, the special values (both zeros, both infinities, NaN of both
// signs) and subnormals, mixed so that blocks hold every kind; n crosses
// selectBlock.
func activationInputs(n int) []float64 {
	r := rand.New(rand.NewPCG(3, 9))
	sp := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(), 5e-324, -5e-324, 1, -1}
	xs := make([]float64, n)
	for i := range xs {
		if i%7 == 3 {
			xs[i] = sp[(i/7)%len(sp)]
			continue
		}
		xs[i] = math.Copysign(math.Ldexp(r.Float64()+0.5, r.IntN(12)-6), r.Float64()-0.5)
	}
	return xs
}

// sameBits reports whether a and b are the same value: equal bits, or
// both NaN.
func sameBits[T vec.Float](a, b T) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	if is32[T]() {
		return math.Float32bits(float32(a)) == math.Float32bits(float32(b))
	}
	return math.Float64bits(float64(a)) == math.Float64bits(float64(b))
}

// TestVectorScalarForms checks the vector-scalar LeakyRelu, Elu and Pow
// of the float fast path against the op table's formulas element by
// element, for float32 and float64, into another slice and in place:
// LeakyRelu and Pow bit for bit (Pow's float64 subnormal results within
// 1 ulp; its float32 powers within 2^-37 of a float32 tie, and no tie,
// within 1 ulp: vec.PowF32 computes them to about 2^-38),
// Elu within 1 ulp of the formula (its e^x - 1 is vec.Expm1's) and bit
// for bit where x > 0, for zeros (the sign kept: alpha*expm1(-0) = -0),
// infinities and NaN.
func TestVectorScalarForms(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testActivations[float32](t) })
	t.Run("float64", func(t *testing.T) { testActivations[float64](t) })
}

func testActivations[T vec.Float](t *testing.T) {
	xs64 := activationInputs(1500)
	// finite: no NaN or infinity, for the forms that look for them first;
	// positive: finite and above zero, and 1 (1**Inf is 1), for Pow's
	// blocks of ordinary bases.
	var all, finite []T
	positive := []T{1}
	for _, v := range xs64 {
		all = append(all, T(v))
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			finite = append(finite, T(v))
			if T(v) > 0 { // 5e-324 is 0 in float32
				positive = append(positive, T(v))
			}
		}
	}
	for _, xs := range [][]T{all, finite, positive} {
		testActivationsOn(t, xs)
	}
}

func testActivationsOn[T vec.Float](t *testing.T, xs []T) {
	for _, c := range []struct {
		op     device.BinaryOp
		params []float64
		run    func(dst, a []T, s T) error
	}{
		{device.LeakyRelu, []float64{0.01, 0, 1, 2, -0.5, math.NaN()}, leakyReluScalar[T]},
		{device.Elu, []float64{1, 0.5, 2, 0}, eluScalar[T]},
		{device.Pow, []float64{2, -1, 0.5, -0.5, 1, 0, 3, 1.5, 4, -3, -2.5, 1e9 + 1, math.Inf(1), math.NaN()}, powScalar[T]},
	} {
		ref := floatBinary[T](c.op)
		for _, p := range c.params {
			s := T(p)
			for _, inPlace := range []bool{false, true} {
				got := make([]T, len(xs))
				src := xs
				if inPlace {
					copy(got, xs)
					src = got
				}
				if err := c.run(got, src, s); err != nil {
					t.Fatal(err)
				}
				for i, x := range xs {
					want := ref(x, s)
					if sameBits(got[i], want) {
						continue
					}
					exact := c.op != device.Elu || !(x < 0) || math.IsInf(float64(x), 0) || want == 0 || want != want
					if c.op == device.Pow && is32[T]() && powNearTie32(float64(x), p) {
						exact = false // within 2^-37 of a float32 tie: vec.PowF32 may round it either way
					}
					if exact || math.Abs(float64(got[i])-float64(want)) > ulpOf(want) {
						t.Errorf("%v(%v, %v) in place %v = %v, want %v", c.op, x, s, inPlace, got[i], want)
					}
				}
			}
		}
	}
}

// ulpOf is the spacing of T's values at v.
func ulpOf[T vec.Float](v T) float64 {
	if is32[T]() {
		f := float32(v)
		return float64(math.Nextafter32(float32(math.Abs(float64(f))), float32(math.Inf(1))) - float32(math.Abs(float64(f))))
	}
	a := math.Abs(float64(v))
	return math.Nextafter(a, math.Inf(1)) - a
}

// TestPowRowsF32 checks the float32 Pow of two rows (powRows, vec.PowF32:
// the power in float64 to about 2^-38, rounded once) against math.Pow
// rounded to float32: bit for bit on these pairs (they can differ only
// where the power lies within about 2^-38 of a float32 tie),
// with x of both signs (negative x: NaN, or a signed power for integer
// y, up to exponents of 2^24 and beyond), zeros, infinities, NaN and
// subnormals, y integral and not, results that overflow and underflow;
// into another slice and in place over either input.
func TestPowRowsF32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 10))
	sp := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1, -1, 2, 0.5, 1e-45, 3e38}
	var xs, ys []float32
	for i := range 3000 {
		x := float32(math.Ldexp(r.Float64()+0.5, r.IntN(40)-20))
		if i%3 == 0 {
			x = -x
		}
		y := float32(r.NormFloat64() * 8)
		if i%4 == 0 {
			y = float32(math.Round(float64(y)))
		}
		if i%11 == 0 {
			x, y = sp[(i/11)%len(sp)], sp[(i/7)%len(sp)]
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	// Every pair of the special values.
	for _, x := range sp {
		for _, y := range sp {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	// Negative bases with large exponents: odd integers up to 2^24 (the
	// last that float32 holds with a unit bit), even ones from there, past
	// int32's range too.
	for _, y := range []float32{1<<23 + 1, -(1<<24 - 1), 1 << 24, -(1<<24 + 2), 3e9, -5e20, 1<<23 + 0.5} {
		for _, x := range []float32{-1, -1.0000001, -0.99999994} {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	// The pairs whose base is neither negative nor NaN too, and those
	// with a positive finite base and a finite exponent: blocks of each
	// take a path of their own.
	var px, py, ox, oy []float32
	inf := float32(math.Inf(1))
	for i, x := range xs {
		if x >= 0 {
			px, py = append(px, x), append(py, ys[i])
		}
		if y := ys[i]; x > 0 && x < inf && y > -inf && y < inf {
			ox, oy = append(ox, x), append(oy, y)
		}
	}
	// And those with a zero base here and there (0**0 is 1, which e^(0 *
	// ln 0) is not).
	zx, zy := slices.Clone(ox), slices.Clone(oy)
	for i := 0; i < len(zx); i += 97 {
		zx[i], zy[i] = 0, float32(i%3)
	}
	for _, set := range [][2][]float32{{xs, ys}, {px, py}, {ox, oy}, {zx, zy}} {
		xs, ys := set[0], set[1]
		want := make([]float32, len(xs))
		for i := range xs {
			want[i] = float32(math.Pow(float64(xs[i]), float64(ys[i])))
		}
		got := make([]float32, len(xs))
		_ = powRows(got, xs, ys)
		xc, yc := slices.Clone(xs), slices.Clone(ys)
		_ = powRows(xc, xc, ys)
		_ = powRows(yc, xs, yc)
		for i, w := range want {
			for _, g := range []float32{got[i], xc[i], yc[i]} {
				if !sameBits(g, w) {
					t.Errorf("Pow(%v, %v) = %v, want %v", xs[i], ys[i], g, w)
					break
				}
			}
		}
	}
}

// powNearTie32 reports whether |x|**y (pow64.Pow's value, within 2^-52 of
// the exact power) lies within 2^-37 of itself of a float32 tie without
// being one, where vec.PowF32's result (the power to about 2^-38, rounded
// once) may round the other way than the op table's float32 of pow64.Pow.
func powNearTie32(x, y float64) bool {
	return pow64.NearFloat32Tie(pow64.Pow(math.Abs(x), y), 0x1p-37)
}
