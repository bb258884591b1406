package vec

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// cmpRef is each relation written out with the IEEE rules spelled
// explicitly (unordered operands: only != holds), independent of the
// kernels' holds.
func cmpRef(op CmpOp, a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return op == CmpNe
	}
	switch op {
	case CmpEq:
		return !(a < b) && !(b < a)
	case CmpNe:
		return a < b || b < a
	case CmpLt:
		return b-a > 0 || (a == math.Inf(-1) && b != a)
	case CmpLe:
		return !(b < a)
	case CmpGt:
		return b < a
	}
	return !(a < b)
}

// cmpInputs returns n pairs that mix ordinary values, equal pairs, signed
// zeros, infinities, NaNs and neighbours one ulp apart, for float32 or
// float64 (narrow).
func cmpInputs(n int, narrow bool, seed uint64) (a, b []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 1e-40, -3.5}
	pick := func() float64 {
		if rng.IntN(3) == 0 {
			return special[rng.IntN(len(special))]
		}
		return rng.NormFloat64() * 4
	}
	a, b = make([]float64, n), make([]float64, n)
	for i := range a {
		a[i] = pick()
		switch rng.IntN(4) {
		case 0:
			b[i] = a[i]
		case 1:
			if narrow {
				b[i] = float64(math.Nextafter32(float32(a[i]), float32(math.Inf(1))))
			} else {
				b[i] = math.Nextafter(a[i], math.Inf(1))
			}
		default:
			b[i] = pick()
		}
		if narrow {
			a[i], b[i] = float64(float32(a[i])), float64(float32(b[i]))
		}
	}
	return a, b
}

func to32(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

// TestCompare checks Compare and CompareScalar on every kernel set, for
// each relation and both float types, against cmpRef, on lengths that
// cover the vector kernels' whole vectors, unrolled loops and Go tails.
func TestCompare(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, n := range []int{0, 1, 7, 8, 15, 16, 17, 31, 33, 64, 65, 130, 1000} {
				a, b := cmpInputs(n, true, uint64(n))
				a32, b32 := to32(a), to32(b)
				a64, b64 := cmpInputs(n, false, uint64(n)+99)
				for op := range numCmpOps {
					check := func(form string, got []uint8, x []float64, y func(i int) float64) {
						t.Helper()
						for i := range got {
							want := b2u8(cmpRef(op, x[i], y(i)))
							if got[i] != want {
								t.Fatalf("%s %s n=%d: [%d] %g %s %g = %d, want %d", form, op, n, i, x[i], op, y(i), got[i], want)
							}
						}
					}
					got := make([]uint8, n)
					for i := range got {
						got[i] = 7 // every byte must be written
					}
					if err := Compare(op, got, a32, b32); err != nil {
						t.Fatal(err)
					}
					check("float32", got, a, func(i int) float64 { return b[i] })
					if err := Compare(op, got, a64, b64); err != nil {
						t.Fatal(err)
					}
					check("float64", got, a64, func(i int) float64 { return b64[i] })
					for _, s := range []float64{0, -1.25, math.Inf(1), math.NaN()} {
						if err := CompareScalar(op, got, a32, float32(s)); err != nil {
							t.Fatal(err)
						}
						check(fmt.Sprintf("float32 scalar %g", s), got, a, func(int) float64 { return s })
						if err := CompareScalar(op, got, a64, s); err != nil {
							t.Fatal(err)
						}
						check(fmt.Sprintf("float64 scalar %g", s), got, a64, func(int) float64 { return s })
					}
				}
			}
		})
	}
}

// TestCompareErrors checks the typed errors of bad lengths and relations.
func TestCompareErrors(t *testing.T) {
	dst := make([]uint8, 4)
	if err := Compare(CmpLt, dst, make([]float32, 4), make([]float32, 3)); !errors.Is(err, errs.ErrShape) {
		t.Errorf("short b: %v, want ErrShape", err)
	}
	if err := CompareScalar(CmpLt, dst, make([]float64, 5), 1); !errors.Is(err, errs.ErrShape) {
		t.Errorf("long a: %v, want ErrShape", err)
	}
	for _, op := range []CmpOp{-1, numCmpOps} {
		if err := Compare(op, dst, make([]float64, 4), make([]float64, 4)); !errors.Is(err, errs.ErrValue) {
			t.Errorf("relation %d: %v, want ErrValue", int(op), err)
		}
		if err := CompareScalar(op, dst, make([]float32, 4), 0); !errors.Is(err, errs.ErrValue) {
			t.Errorf("scalar relation %d: %v, want ErrValue", int(op), err)
		}
	}
}
