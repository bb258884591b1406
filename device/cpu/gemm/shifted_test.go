package gemm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// TestShifted checks F32Shifted and F64Shifted against the sum written
// out in float64 on every kernel tier: where the tier has shifted kernels
// (AVX-512) for every row count up to past two 14-row panels (the 4- and
// 8-row edge kernels and the 14-row one), widths and pitches with and
// without dropped columns, tiles that start mid-row, and items that share
// their A or not; elsewhere that it reports false and leaves C alone. C's
// gaps between rows (ldc > n) must stay untouched.
func TestShifted(t *testing.T) {
	for _, kern := range kernelNames() {
		withKernel(t, kern, func() {
			for _, m := range []int{1, 3, 4, 5, 8, 9, 14, 16, 29, 32} {
				for _, g := range []struct{ rows, width, pitch, k int }{
					{3, 5, 7, 4}, {14, 14, 18, 37}, {2, 40, 44, 9}, {1, 1, 1, 1}, {7, 28, 28, 3},
				} {
					name := fmt.Sprintf("%s/m=%d/%dx%d/pitch=%d/k=%d", kern, m, g.rows, g.width, g.pitch, g.k)
					testShifted[float32](t, name, m, g.rows, g.width, g.pitch, g.k, 1e-5)
					testShifted[float64](t, name, m, g.rows, g.width, g.pitch, g.k, 1e-13)
				}
			}
		})
	}
}

func testShifted[T float](t *testing.T, name string, m, rows, width, pitch, k int, tol float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(m), uint64(k)))
	offs := make([]int, k)
	for p := range offs {
		offs[p] = rng.IntN(50)
	}
	lda, ldc, n := k+2, rows*width+3, rows*width
	a := make([]T, 2*m*lda)
	for i := range a {
		a[i] = T(rng.Float64()*2 - 1)
	}
	// Five items (enough for whole items as units of work): three share
	// the first A; origins apart, b long enough for the last tile's reads.
	items := []ShiftedItem{{A: 0, B: 0, C: 0}, {A: m * lda, B: 61, C: m * ldc}, {A: 0, B: 130, C: 2 * m * ldc},
		{A: m * lda, B: 7, C: 3 * m * ldc}, {A: 0, B: 99, C: 4 * m * ldc}}
	b := make([]T, 130+50+rows*pitch+64)
	for i := range b {
		b[i] = T(rng.Float64()*2 - 1)
	}
	const guard = -7
	c := make([]T, len(items)*m*ldc)
	for i := range c {
		c[i] = guard
	}
	var ok bool
	var err error
	switch a := any(a).(type) {
	case []float32:
		ok, err = F32Shifted(m, a, lda, any(b).([]float32), Shifted{offs, rows, width, pitch}, items, any(c).([]float32), ldc)
	case []float64:
		ok, err = F64Shifted(m, a, lda, any(b).([]float64), Shifted{offs, rows, width, pitch}, items, any(c).([]float64), ldc)
	}
	if err != nil {
		t.Fatalf("%s %T: %v", name, a[0], err)
	}
	hasShifted := active.Load().f32.shifted != nil
	if ok != hasShifted {
		t.Fatalf("%s %T: reported %v with shifted kernels %v", name, a[0], ok, hasShifted)
	}
	for i, it := range items {
		for r := range m {
			for j := range ldc {
				got := float64(c[it.C+r*ldc+j])
				want := float64(guard)
				if ok && j < n {
					want = 0
					for p := range k {
						want += float64(a[it.A+r*lda+p]) * float64(b[it.B+offs[p]+(j/width)*pitch+j%width])
					}
				}
				if math.Abs(got-want) > tol*(1+math.Abs(want))*float64(k) {
					t.Fatalf("%s %T: item %d C[%d][%d] = %v, want %v", name, a[0], i, r, j, got, want)
				}
			}
		}
	}
}

// TestShiftedRefusals checks F32Shifted's errors and the operands it
// declines (false, nothing written).
func TestShiftedRefusals(t *testing.T) {
	a, b, c := make([]float32, 64), make([]float32, 256), make([]float32, 64)
	s := Shifted{Offs: []int{0, 1}, Rows: 2, Width: 3, Pitch: 4}
	one := []ShiftedItem{{}}
	for name, err := range map[string]error{
		"negative m":      second(F32Shifted(-1, a, 2, b, s, one, c, 6)),
		"pitch below":     second(F32Shifted(2, a, 2, b, Shifted{s.Offs, 2, 3, 2}, one, c, 6)),
		"negative offset": second(F32Shifted(2, a, 2, b, Shifted{[]int{0, -1}, 2, 3, 4}, one, c, 6)),
		"item offset":     second(F32Shifted(2, a, 2, b, s, []ShiftedItem{{B: -1}}, c, 6)),
		"short lda":       second(F32Shifted(2, a, 1, b, s, one, c, 6)),
		"short c":         second(F32Shifted(2, a, 2, b, s, []ShiftedItem{{C: 60}}, c, 6)),
	} {
		if !errors.Is(err, errs.ErrShape) && !errors.Is(err, errs.ErrValue) {
			t.Errorf("%s: %v, want a shape or value error", name, err)
		}
	}
	for name, ok := range map[string]bool{
		"short b":      first(F32Shifted(2, a, 2, b[:30], s, one, c, 6)),
		"far origin":   first(F32Shifted(2, a, 2, b, s, []ShiftedItem{{B: 250}}, c, 6)),
		"wide pitch":   first(F32Shifted(2, a, 2, b, Shifted{s.Offs, 2, 3, 5}, one, c, 6)),
		"huge rows":    first(F32Shifted(2, a, 2, b, Shifted{s.Offs, 1 << 62, 3, 4}, one, c, 1<<63-1)),
		"huge pitch":   first(F32Shifted(2, a, 2, b, Shifted{s.Offs, 2, 3, 1 << 62}, one, c, 6)),
		"huge offsets": first(F32Shifted(2, a, 2, b, Shifted{[]int{1 << 62}, 2, 3, 4}, one, c, 6)),
	} {
		if ok {
			t.Errorf("%s: F32Shifted accepted it", name)
		}
	}
	for i, v := range c {
		if v != 0 {
			t.Fatalf("c[%d] = %v after refusals", i, v)
		}
	}
}

func first(ok bool, _ error) bool    { return ok }
func second(_ bool, err error) error { return err }
