package vec

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/tessera-go/tessera/errs"
)

// intRef is each relation read off cmp.Compare's three-way result,
// independent of the kernels' holds.
func intRef[T Int](op CmpOp, a, b T) bool {
	c := cmp.Compare(a, b)
	switch op {
	case CmpEq:
		return c == 0
	case CmpNe:
		return c != 0
	case CmpLt:
		return c < 0
	case CmpLe:
		return c <= 0
	case CmpGt:
		return c > 0
	}
	return c >= 0
}

// intInputs returns n pairs mixing small and full-range values, the
// extremes, equal pairs and neighbours one apart (where a signed
// comparison done as an unsigned one, or a > b taken for b > a, differs).
func intInputs[T Int](n int, seed uint64) (a, b []T) {
	rng := rand.New(rand.NewPCG(seed, 11))
	lo, hi := extremes[T]()
	special := []T{0, -1, 1, lo, hi, lo + 1, hi - 1}
	pick := func() T {
		switch rng.IntN(3) {
		case 0:
			return special[rng.IntN(len(special))]
		case 1:
			return T(rng.IntN(11) - 5)
		}
		return T(rng.Uint64())
	}
	a, b = make([]T, n), make([]T, n)
	for i := range a {
		a[i] = pick()
		switch rng.IntN(4) {
		case 0:
			b[i] = a[i]
		case 1:
			b[i] = a[i] + 1 // wraps at hi: then b is lo
		default:
			b[i] = pick()
		}
	}
	return a, b
}

// extremes returns T's least and greatest values.
func extremes[T Int]() (lo, hi T) {
	var l, h int64 = math.MinInt32, math.MaxInt32
	if unsafe.Sizeof(lo) == 8 {
		l, h = math.MinInt64, math.MaxInt64
	}
	return T(l), T(h)
}

// TestCompareInt checks CompareInt and CompareIntScalar on every kernel
// set, for each relation and both widths, against intRef, on lengths that
// cover the vector kernels' whole vectors, unrolled loops and Go tails.
func TestCompareInt(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			t.Run("int32", func(t *testing.T) { checkCompareInt[int32](t) })
			t.Run("int64", func(t *testing.T) { checkCompareInt[int64](t) })
		})
	}
}

func checkCompareInt[T Int](t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 130, 1000} {
		a, b := intInputs[T](n, uint64(n))
		lo, hi := extremes[T]()
		scalars := []T{0, -3, lo, hi}
		if n > 0 {
			scalars = append(scalars, a[n/2])
		}
		got := make([]uint8, n)
		for op := range numCmpOps {
			for i := range got {
				got[i] = 7 // every byte must be written
			}
			if err := CompareInt(op, got, a, b); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if want := b2u8(intRef(op, a[i], b[i])); got[i] != want {
					t.Fatalf("n=%d: [%d] %d %s %d = %d, want %d", n, i, a[i], op, b[i], got[i], want)
				}
			}
			for _, s := range scalars {
				for i := range got {
					got[i] = 7
				}
				if err := CompareIntScalar(op, got, a, s); err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if want := b2u8(intRef(op, a[i], s)); got[i] != want {
						t.Fatalf("scalar n=%d: [%d] %d %s %d = %d, want %d", n, i, a[i], op, s, got[i], want)
					}
				}
			}
		}
	}
}

// TestCompareIntErrors checks the typed errors of bad lengths and
// relations.
func TestCompareIntErrors(t *testing.T) {
	dst := make([]uint8, 4)
	if err := CompareInt(CmpLt, dst, make([]int32, 4), make([]int32, 3)); !errors.Is(err, errs.ErrShape) {
		t.Errorf("short b: %v, want ErrShape", err)
	}
	if err := CompareIntScalar(CmpLt, dst, make([]int64, 5), 1); !errors.Is(err, errs.ErrShape) {
		t.Errorf("long a: %v, want ErrShape", err)
	}
	for _, op := range []CmpOp{-1, numCmpOps} {
		if err := CompareInt(op, dst, make([]int64, 4), make([]int64, 4)); !errors.Is(err, errs.ErrValue) {
			t.Errorf("relation %d: %v, want ErrValue", int(op), err)
		}
		if err := CompareIntScalar(op, dst, make([]int32, 4), 0); !errors.Is(err, errs.ErrValue) {
			t.Errorf("scalar relation %d: %v, want ErrValue", int(op), err)
		}
	}
}
