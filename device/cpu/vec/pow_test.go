package vec

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/pow64"
)

// TestPowF64Kernels checks the AVX2 and AVX-512 float64 Pow kernels
// (vector and scalar exponent, through powVia) against pow64.Pow, whose
// steps they repeat, bit for bit, on every kind of pow64.SamplePairs
// (pow64's tests hold Pow to 1 ulp of the exact power on the same kinds),
// with shortcut exponents and special values mixed into the vector form.
func TestPowF64Kernels(t *testing.T) {
	for _, k := range available() {
		if k.name != "generic" {
			t.Run(k.name, func(t *testing.T) { testPowF64Kernels(t, k) })
		}
	}
}

func testPowF64Kernels(t *testing.T, k *kernels) {
	n := 4000
	if testing.Short() {
		n = 800
	}
	r := rand.New(rand.NewPCG(5, 7))
	for _, kind := range pow64.SampleKinds {
		xs, ys := pow64.SamplePairs(r, kind, n)
		for i := 0; i < n; i += 97 {
			ys[i] = []float64{0.5, -0.5, math.Inf(1), math.NaN(), 0, 1, -1, 2}[i%8]
			if i%3 == 0 {
				xs[i] = []float64{0, math.Inf(-1), math.NaN()}[i%2]
			}
		}
		got := make([]float64, n)
		k.pow64(got, xs, ys, 0)
		// The scalar form over whole rows (its main loop), for a few of
		// the kind's exponents.
		for _, y := range ys[:8] {
			k.pow64(got, xs, nil, y)
			for i, x := range xs {
				if want := pow64.Pow(x, y); math.Float64bits(got[i]) != math.Float64bits(want) {
					t.Fatalf("%s: %v**%v = %v (scalar form), want %v", kind, x, y, got[i], want)
				}
			}
		}
		k.pow64(got, xs, ys, 0)
		scalar := make([]float64, 1)
		for i, x := range xs {
			want := pow64.Pow(x, ys[i])
			k.pow64(scalar, xs[i:i+1], nil, ys[i])
			for _, g := range []float64{got[i], scalar[0]} {
				if math.Float64bits(g) != math.Float64bits(want) {
					t.Errorf("%s: %v**%v = %v (vector form), %v (scalar form), want %v", kind, x, ys[i], got[i], scalar[0], want)
					break
				}
			}
		}
	}
}

// TestPowF64Special checks PowF64 and PowScalarF64 on every set against
// pow64.Pow, bit for bit, at C99's special values (zeros, infinities,
// NaN, negative bases, x = 1, y = 0, y = ±0.5) mixed into ordinary lanes,
// over lengths that leave every tail, into another slice and in place
// over either operand.
func TestPowF64Special(t *testing.T) {
	sp := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, 2, -2, 0.5, -0.5, 3, -3, 1e-310, -1e-310, 1e300, 2.5, -2.5}
	var xs, ys []float64
	for _, x := range sp {
		for _, y := range sp {
			xs, ys = append(xs, x, 1.5+float64(len(xs))/64), append(ys, y, 0.75)
		}
	}
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, n := range []int{1, 3, 8, 9, 17, len(xs)} {
				x, y := xs[:n], ys[:n]
				// check holds every lane to pow64.Pow's bits.
				check := func(how string, got, y []float64) {
					for i, g := range got {
						if w := pow64.Pow(x[i], y[i]); math.Float64bits(g) != math.Float64bits(w) {
							t.Errorf("%s n=%d: %v**%v = %v, want %v", how, n, x[i], y[i], g, w)
						}
					}
				}
				got := make([]float64, n)
				if err := PowF64(got, x, y); err != nil {
					t.Fatal(err)
				}
				check("PowF64", got, y)
				xc, yc := slices.Clone(x), slices.Clone(y)
				_ = PowF64(xc, xc, y)
				_ = PowF64(yc, x, yc)
				check("PowF64 in place over x", xc, y)
				check("PowF64 in place over y", yc, y)
				for _, s := range sp {
					if err := PowScalarF64(got, x, s); err != nil {
						t.Fatal(err)
					}
					xc = slices.Clone(x)
					_ = PowScalarF64(xc, xc, s)
					sy := slices.Repeat([]float64{s}, n)
					check("PowScalarF64", got, sy)
					check("PowScalarF64 in place", xc, sy)
				}
			}
		})
	}
}

// TestPowF64Errors checks the length and overlap errors.
func TestPowF64Errors(t *testing.T) {
	a := make([]float64, 8)
	if err := PowF64(a[:3], a[5:8], a[1:4]); !errors.Is(err, errs.ErrValue) {
		t.Errorf("dst overlapping y at another offset: %v, want ErrValue", err)
	}
	if err := PowF64(a[:3], a[3:6], a[5:7]); !errors.Is(err, errs.ErrShape) {
		t.Errorf("lengths 3, 3, 2: %v, want ErrShape", err)
	}
	if err := PowScalarF64(a[:3], a[1:4], 2); !errors.Is(err, errs.ErrValue) {
		t.Errorf("overlap at another offset: %v, want ErrValue", err)
	}
	if err := PowScalarF64(a[:3], a[:2], 2); !errors.Is(err, errs.ErrShape) {
		t.Errorf("lengths 3, 2: %v, want ErrShape", err)
	}
}
