package vec

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// TestAbsNegInt checks AbsInt and NegInt on every kernel set against Go's
// wrapping arithmetic, for int32 and int64: the ends of the range (whose
// most negative value stays as it is), neighbours of zero and random
// values, on lengths that cover whole vectors, unrolled loops and the Go
// tail, out of place (with a guard past the end) and in place.
func TestAbsNegInt(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			checkAbsNeg[int32](t, []int32{math.MinInt32, math.MinInt32 + 1, math.MaxInt32, -1, 0, 1, -2})
			checkAbsNeg[int64](t, []int64{math.MinInt64, math.MinInt64 + 1, math.MaxInt64, -1, 0, 1, math.MinInt32})
		})
	}
	for _, f := range []func(dst, x []int32) error{AbsInt[int32], NegInt[int32]} {
		if err := f(make([]int32, 3), make([]int32, 4)); !errors.Is(err, errs.ErrShape) {
			t.Errorf("lengths: %v, want ErrShape", err)
		}
		buf := make([]int32, 9)
		if err := f(buf[1:9], buf[:8]); !errors.Is(err, errs.ErrValue) {
			t.Errorf("shifted overlap: %v, want ErrValue", err)
		}
	}
}

func checkAbsNeg[T Int](t *testing.T, edges []T) {
	t.Helper()
	ops := []struct {
		name string
		f    func(dst, x []T) error
		want func(T) T
	}{
		{"AbsInt", AbsInt[T], func(v T) T {
			if v < 0 {
				return -v
			}
			return v
		}},
		{"NegInt", NegInt[T], func(v T) T { return -v }},
	}
	for _, op := range ops {
		for _, n := range []int{0, 1, 7, 8, 15, 16, 17, 31, 33, 64, 65, 100, 1000} {
			rng := rand.New(rand.NewPCG(uint64(n), 4))
			x := make([]T, n)
			for i := range x {
				if rng.IntN(3) == 0 {
					x[i] = edges[rng.IntN(len(edges))]
				} else {
					x[i] = T(rng.Int64())
				}
			}
			dst := make([]T, n+1)
			dst[n] = 42
			if err := op.f(dst[:n], x); err != nil {
				t.Fatal(err)
			}
			for i, v := range x {
				if w := op.want(v); dst[i] != w {
					t.Fatalf("%s n=%d: element %d of %d = %d, want %d", op.name, n, i, v, dst[i], w)
				}
			}
			if dst[n] != 42 {
				t.Fatalf("%s n=%d: wrote past the end", op.name, n)
			}
			in := append([]T(nil), x...)
			if err := op.f(in, in); err != nil {
				t.Fatal(err)
			}
			for i, v := range x {
				if w := op.want(v); in[i] != w {
					t.Fatalf("%s in place n=%d: element %d of %d = %d, want %d", op.name, n, i, v, in[i], w)
				}
			}
		}
	}
}

// TestNotBytes checks NotBytes on every kernel set: every byte value
// (nonzero ones other than 1 count as true), lengths that cover whole
// vectors, the unrolled loop and the Go tail, out of place with a guard
// past the end, and in place; and the errors.
func TestNotBytes(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, n := range []int{0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 256, 1000} {
				rng := rand.New(rand.NewPCG(uint64(n), 5))
				x := make([]uint8, n)
				for i := range x {
					if rng.IntN(2) == 0 {
						x[i] = uint8(rng.IntN(256))
					}
				}
				want := make([]uint8, n)
				for i, v := range x {
					if v == 0 {
						want[i] = 1
					}
				}
				dst := make([]uint8, n+1)
				dst[n] = 42
				if err := NotBytes(dst[:n], x); err != nil {
					t.Fatal(err)
				}
				for i := range x {
					if dst[i] != want[i] {
						t.Fatalf("n=%d: element %d of %d = %d, want %d", n, i, x[i], dst[i], want[i])
					}
				}
				if dst[n] != 42 {
					t.Fatalf("n=%d: wrote past the end", n)
				}
				if err := NotBytes(x, x); err != nil {
					t.Fatal(err)
				}
				for i := range x {
					if x[i] != want[i] {
						t.Fatalf("in place n=%d: element %d = %d, want %d", n, i, x[i], want[i])
					}
				}
			}
		})
	}
	if err := NotBytes(make([]uint8, 3), make([]uint8, 4)); !errors.Is(err, errs.ErrShape) {
		t.Errorf("lengths: %v, want ErrShape", err)
	}
	buf := make([]uint8, 40)
	if err := NotBytes(buf[1:40], buf[:39]); !errors.Is(err, errs.ErrValue) {
		t.Errorf("shifted overlap: %v, want ErrValue", err)
	}
}
