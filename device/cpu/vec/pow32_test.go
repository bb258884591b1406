package vec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/internal/pow64"
)

// pow32Kinds are the float32 Pow's sample kinds (pow32Pairs).
var pow32Kinds = []string{"wide", "near1", "range", "subnormal", "negative", "integer"}

// pow32Pairs returns n float32 pairs of one kind: "wide" bases over 2^±40
// and N(0, 4) exponents; "near1" bases within 1/8 of 1 and exponents to
// ±3000 (a small log times a large y); "range" y*log2 x over [-155, 130],
// results that overflow, underflow and are subnormal included; "subnormal"
// subnormal bases; "negative" negative bases with integer exponents, odd
// and even, to 2^25, and some others; "integer" bases of few bits (1 to
// 64) with small integer exponents, exact powers and ties among them.
func pow32Pairs(r *rand.Rand, kind string, n int) (xs, ys []float32) {
	for range n {
		var x, y float64
		switch kind {
		case "wide":
			x, y = math.Ldexp(r.Float64()+0.5, r.IntN(80)-40), r.NormFloat64()*4
		case "near1":
			x, y = 1+(r.Float64()-0.5)/4, (r.Float64()-0.5)*6000
		case "range":
			x = math.Ldexp(r.Float64()+0.5, r.IntN(250)-125)
			y = (r.Float64()*285 - 155) / math.Log2(x)
		case "subnormal":
			x, y = math.Ldexp(r.Float64(), -126-r.IntN(23)), r.NormFloat64()*2
		case "negative":
			x, y = -math.Ldexp(r.Float64()+0.5, r.IntN(8)-4), float64(r.IntN(41)-20)
			switch r.IntN(4) {
			case 0:
				x, y = -(1 + (r.Float64()-0.5)*0x1p-20), float64(r.IntN(1<<25)-1<<24)
			case 1:
				y += 0.5
			}
		case "integer":
			x, y = float64(1+r.IntN(64)), float64(r.IntN(13)-6)
		}
		xs, ys = append(xs, float32(x)), append(ys, float32(y))
	}
	return xs, ys
}

// TestPowF32Kernels checks every vector set's float32 Pow against the
// generic set's (powOne: powF32Lane and pow64.Pow) on every sample kind
// with special lanes mixed in, and again with every base made positive
// and ordinary,
// through the vector form and the scalar form over whole rows, bit for
// bit.
func TestPowF32Kernels(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 800
	}
	for _, k := range available() {
		if k.name == "generic" {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 8))
			inf, nan := float32(math.Inf(1)), float32(math.NaN())
			for _, kind := range pow32Kinds {
				xs, ys := pow32Pairs(r, kind, n)
				for i := 0; i < n; i += 97 {
					ys[i] = []float32{0.5, -0.5, inf, nan, 0, 1, -1, 2}[i%8]
					if i%3 == 0 {
						xs[i] = []float32{0, -inf, nan}[i%2]
					}
				}
				testPowF32On(t, k, kind, xs, ys)
				pos := make([]float32, n)
				for i, x := range xs {
					if pos[i] = float32(math.Abs(float64(x))); !(pos[i] > 0 && pos[i] < inf) {
						pos[i] = 1.5
					}
				}
				testPowF32On(t, k, kind+" (positive bases)", pos, ys)
			}
		})
	}
}

// testPowF32On checks k's float32 Pow of xs and ys, and of xs and each of
// ys' first eight, against powOne (see TestPowF32Kernels).
func testPowF32On(t *testing.T, k *kernels, kind string, xs, ys []float32) {
	t.Helper()
	same := func(g, x, y float32) bool { return math.Float32bits(g) == math.Float32bits(powOne(x, y)) }
	got := make([]float32, len(xs))
	for _, y := range ys[:8] {
		k.pow32(got, xs, nil, y)
		for i, x := range xs {
			if !same(got[i], x, y) {
				t.Fatalf("%s: %v**%v = %v (scalar form), want %v", kind, x, y, got[i], powOne(x, y))
			}
		}
	}
	k.pow32(got, xs, ys, 0)
	for i, x := range xs {
		if !same(got[i], x, ys[i]) {
			t.Errorf("%s: %v**%v = %v, want %v", kind, x, ys[i], got[i], powOne(x, ys[i]))
		}
	}
}

// TestPowF32Special checks PowF32 and PowScalarF32 on every set against
// powOne, bit for bit, at C99's special values (zeros, infinities, NaN,
// negative bases, x = 1, y = 0, the shortcut exponents) mixed into
// ordinary lanes, over lengths that leave every tail, into another slice
// and in place over either operand; and against the op table's value
// (float32 of pow64.Pow) where pow64.Ordinary turns the pair away.
func TestPowF32Special(t *testing.T) {
	inf := math.Inf(1)
	sp := []float64{0, math.Copysign(0, -1), inf, -inf, math.NaN(), 1, -1, 2, -2, 0.5, -0.5, 3, -3, 1e-40, -1e-40, 1e30, 2.5, -2.5, 1 << 24, 1<<24 + 2}
	var xs, ys []float32
	for _, x := range sp {
		for _, y := range sp {
			xs, ys = append(xs, float32(x), float32(1.5+float64(len(xs))/64)), append(ys, float32(y), 0.75)
		}
	}
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, n := range []int{1, 3, 15, 16, 17, 33, len(xs)} {
				x, y := xs[:n], ys[:n]
				check := func(how string, got, y []float32) {
					for i, g := range got {
						w := powOne(x[i], y[i])
						if !pow64.Ordinary(float64(x[i]), float64(y[i])) {
							if o := float32(pow64.Pow(float64(x[i]), float64(y[i]))); math.Float32bits(o) != math.Float32bits(w) {
								t.Fatalf("powOne(%v, %v) = %v, the op table's %v", x[i], y[i], w, o)
							}
						}
						if math.Float32bits(g) != math.Float32bits(w) {
							t.Errorf("%s n=%d: %v**%v = %v, want %v", how, n, x[i], y[i], g, w)
						}
					}
				}
				got := make([]float32, n)
				if err := PowF32(got, x, y); err != nil {
					t.Fatal(err)
				}
				check("PowF32", got, y)
				xc, yc := slices.Clone(x), slices.Clone(y)
				_ = PowF32(xc, xc, y)
				check("PowF32 in place over x", xc, y)
				_ = PowF32(yc, x, yc)
				check("PowF32 in place over y", yc, y)
				for _, s := range []float32{0.75, 3, -2, 0.5, 1, float32(math.NaN())} {
					ss := slices.Repeat([]float32{s}, n)
					_ = PowScalarF32(got, x, s)
					check("PowScalarF32", got, ss)
					xc := slices.Clone(x)
					_ = PowScalarF32(xc, xc, s)
					check("PowScalarF32 in place", xc, ss)
				}
			}
		})
	}
}

// TestPowF32Accuracy holds powF32Wide (the float32 Pow's value before its
// one rounding, but for the AVX2 set's) within 2^-37.5 of pow64.Pow's
// (itself within 2^-52 of the exact power) on every sample kind, where the
// power is a normal float32: its 2^-40 or so, and the rounding to a
// multiple of 2^-37 of a value in [0.97, 2.05) that keeps exact ties
// (the "integer" kind has many). So the rounded result is pow64.Pow's
// rounded but where the power lies within that distance of a float32 tie
// without being one (then 1 ulp off at most), which the test counts.
func TestPowF32Accuracy(t *testing.T) {
	n := 200000
	if testing.Short() {
		n = 20000
	}
	r := rand.New(rand.NewPCG(9, 2))
	const limit = 0x1.6ap-38 // 2^-37.5
	for _, kind := range pow32Kinds {
		xs, ys := pow32Pairs(r, kind, n)
		worst, ties := 0.0, 0
		for i, x := range xs {
			y := ys[i]
			if !pow64.Ordinary(float64(x), float64(y)) {
				continue
			}
			ax := math.Abs(float64(x))
			want := pow64.Pow(ax, float64(y))
			if want < 0x1p-126 || want > math.MaxFloat32 {
				continue
			}
			rel := math.Abs(powF32Wide(ax, float64(y))-want) / want
			if rel > worst {
				worst = rel
			}
			if rel > limit {
				t.Errorf("%s: %v**%v: relative error %.3g before rounding", kind, x, y, rel)
			}
			if float32(powF32Wide(ax, float64(y))) != float32(want) {
				ties++
				if !nearTie(x, y) {
					t.Errorf("%s: %v**%v = %v, not pow64.Pow's %v rounded, which is no near tie", kind, x, y, float32(powF32Wide(ax, float64(y))), want)
				}
			}
		}
		t.Logf("%-9s worst relative error 2^%.1f; %d of %d results not pow64.Pow's rounded (near ties)", kind, math.Log2(worst), ties, n)
	}
}

// nearTie reports whether |x|**y (pow64.Pow's value) lies within 2^-37 of
// itself of a float32 tie without being one (exact ties are exact), or
// beyond float32's normal range (where the grid is coarser).
func nearTie(x, y float32) bool {
	w := pow64.Pow(math.Abs(float64(x)), float64(y))
	if w < 0x1p-126 || float32(w) > math.MaxFloat32 || w != w {
		return true
	}
	return pow64.NearFloat32Tie(w, 0x1p-37)
}
