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

// TestMaxMinInt checks MaxInt and MinInt on every kernel set against a
// plain loop, for int32, int64 and uint8: lengths around the int32
// kernel's vectors (8) and its unrolled loop (32), with the single
// largest and smallest elements at every position, once the types'
// extremes and once values with the types' extremes just outside the
// slice (which a kernel reading past either end would find); and the
// empty input's error.
func TestMaxMinInt(t *testing.T) {
	for _, ks := range available() {
		restore := useKernels(ks)
		for _, n := range []int{1, 3, 7, 8, 9, 31, 32, 33, 40, 64, 71} {
			for p := range n {
				g32 := func(i int) int32 { return int32(i*7919%1000 - 500) }
				g64 := func(i int) int64 { return int64(i*7919%1000-500) << 33 }
				g8 := func(i int) uint8 { return uint8(i*31%200 + 20) }
				checkExtremes(t, ks.name, n, p, g32, math.MinInt32, math.MaxInt32, 0, 0)
				checkExtremes(t, ks.name, n, p, g32, -1000, 1000, math.MinInt32, math.MaxInt32)
				checkExtremes(t, ks.name, n, p, g64, math.MinInt64, math.MaxInt64, 0, 0)
				checkExtremes(t, ks.name, n, p, g64, -1<<50, 1<<50, math.MinInt64, math.MaxInt64)
				checkExtremes(t, ks.name, n, p, g8, 0, 255, 0, 0)
				checkExtremes(t, ks.name, n, p, g8, 10, 230, 0, 255)
			}
		}
		restore()
	}
	if _, err := MaxInt([]int32{}); !errors.Is(err, errs.ErrShape) {
		t.Errorf("empty MaxInt: %v", err)
	}
	if _, err := MinInt([]int64(nil)); !errors.Is(err, errs.ErrShape) {
		t.Errorf("empty MinInt: %v", err)
	}
}

// checkExtremes fills n elements with gen, puts hi at position p and lo
// at position n-1-p, sets the elements just before and after the slice
// to above (for MaxInt) and below (for MinInt), and checks both against
// a plain loop.
func checkExtremes[T Integer](t *testing.T, set string, n, p int, gen func(int) T, lo, hi, below, above T) {
	t.Helper()
	backing := make([]T, n+2)
	x := backing[1 : n+1]
	for i := range x {
		x[i] = gen(i)
	}
	x[n-1-p], x[p] = lo, hi
	wmax, wmin := x[0], x[0]
	for _, v := range x {
		wmax, wmin = max(wmax, v), min(wmin, v)
	}
	backing[0], backing[n+1] = above, above
	gmax, err1 := MaxInt(x)
	backing[0], backing[n+1] = below, below
	gmin, err2 := MinInt(x)
	if err1 != nil || err2 != nil || gmax != wmax || gmin != wmin {
		t.Fatalf("%s %T n=%d p=%d: max %v min %v (%v, %v), want %v %v", set, x[0], n, p, gmax, gmin, err1, err2, wmax, wmin)
	}
}
