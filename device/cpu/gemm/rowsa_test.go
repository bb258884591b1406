package gemm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// TestRowsA checks F32RowsA and F64RowsA against the sum written out in
// float64 on every kernel tier: rows in groups of 8, a last group of 1 to
// 7 (the 4-row kernel and the 8-row one with its last offset repeated),
// at the offsets of a convolution's channels and kernel taps and out of
// order; column panels of the kernels' width and of half of it, whole
// and partial; one and several k blocks; more items than goroutines;
// elsewhere that they report false. C's gaps between rows (ldc > n) must
// stay untouched.
func TestRowsA(t *testing.T) {
	taps := func(cg, kh, kw, plane, pitch int) []int { // one channel a tap, as Conv2d orders them
		var rows []int
		for ty := range kh {
			for tx := range kw {
				for c := range cg {
					rows = append(rows, c*plane+ty*pitch+tx)
				}
			}
		}
		return rows
	}
	layouts := map[string][]int{
		"channels": {0, 40, 80, 120, 160, 200, 240, 280, 3, 43, 83, 123, 163, 203, 243, 283}, // two groups of 8
		"5x5":      taps(1, 5, 5, 0, 20),                                                     // 8, 8, 8, 1
		"3ch3x3":   taps(3, 3, 3, 100, 11),                                                   // 8, 8, 8, 3
		"2ch2x3":   taps(2, 2, 3, 100, 11),                                                   // 8, 4
		"mixed":    {7, 5, 0, 11, 13, 15, 17, 2, 9, 30, 1, 4, 6},                             // 8, 5
		"seven":    {3, 1, 4, 1, 5, 9, 2},                                                    // one of 7, a row twice
	}
	for _, kern := range kernelNames() {
		withKernel(t, kern, func() {
			for name, rows := range layouts {
				for _, nk := range [][2]int{{32, 30}, {16, 9}, {40, 700}, {50, 13}, {8, 5}, {1, 1}} {
					tag := fmt.Sprintf("%s/%s/n=%d/k=%d", kern, name, nk[0], nk[1])
					testRowsA[float32](t, tag, rows, nk[0], nk[1], 1e-5)
					testRowsA[float64](t, tag, rows, nk[0], nk[1], 1e-13)
				}
			}
		})
	}
}

func testRowsA[T float](t *testing.T, name string, rows []int, n, k int, tol float64) {
	t.Helper()
	m := len(rows)
	rng := rand.New(rand.NewPCG(uint64(m*n), uint64(k)))
	origins := []int{0, 301, 17, 650, 999}
	a := make([]T, 999+300+k)
	for i := range a {
		a[i] = T(rng.Float64()*2 - 1)
	}
	ldb := n + 1
	b := make([]T, len(origins)*k*ldb)
	for i := range b {
		b[i] = T(rng.Float64()*2 - 1)
	}
	src := storedPanels[T]{b: b, ldb: ldb, off: k * ldb}
	ldc := n + 2
	const guard = -7
	c := make([]T, m*ldc)
	for i := range c {
		c[i] = guard
	}
	var ok bool
	var err error
	switch a := any(a).(type) {
	case []float32:
		ok, err = F32RowsA(m, n, k, a, rows, origins, any(src).(storedPanels[float32]), any(c).([]float32), ldc)
	case []float64:
		ok, err = F64RowsA(m, n, k, a, rows, origins, any(src).(storedPanels[float64]), any(c).([]float64), ldc)
	}
	if err != nil {
		t.Fatalf("%s %T: %v", name, a[0], err)
	}
	if has := len(active.Load().f32.rowsA) > 0; ok != has {
		t.Fatalf("%s %T: reported %v with kernels %v", name, a[0], ok, has)
	}
	for r := range m {
		for j := range ldc {
			got, want := float64(c[r*ldc+j]), float64(guard)
			if ok && j < n {
				want = 0
				for i, o := range origins {
					for p := range k {
						want += float64(a[o+rows[r]+p]) * float64(b[i*k*ldb+p*ldb+j])
					}
				}
			}
			if math.Abs(got-want) > tol*(1+math.Abs(want))*float64(k) {
				t.Fatalf("%s %T: C[%d][%d] = %v, want %v", name, a[0], r, j, got, want)
			}
		}
	}
}

// TestRowsARefusals checks F32RowsA's errors: nothing written.
func TestRowsARefusals(t *testing.T) {
	a, b, c := make([]float32, 64), make([]float32, 64), make([]float32, 16)
	src := storedPanels[float32]{b: b, ldb: 4, off: 0}
	for name, err := range map[string]error{
		"negative k":      second(F32RowsA(2, 4, -1, a, []int{0, 1}, []int{0}, src, c, 4)),
		"rows count":      second(F32RowsA(2, 4, 4, a, []int{0}, []int{0}, src, c, 4)),
		"short c":         second(F32RowsA(4, 4, 4, a, []int{0, 1, 2, 3}, []int{0}, src, c[:10], 4)),
		"row before a":    second(F32RowsA(2, 4, 4, a, []int{0, -3}, []int{2}, src, c, 4)),
		"row past a":      second(F32RowsA(2, 4, 4, a, []int{0, 58}, []int{3}, src, c, 4)),
		"origin past a":   second(F32RowsA(2, 4, 4, a, []int{0, 1}, []int{61}, src, c, 4)),
		"huge offsets":    second(F32RowsA(2, 4, 4, a, []int{0, 1 << 62}, []int{1 << 62}, src, c, 4)),
		"negative ldc":    second(F32RowsA(2, 4, 4, a, []int{0, 1}, []int{0}, src, c, -4)),
		"negative origin": second(F32RowsA(2, 4, 4, a, []int{4, 5}, []int{-1}, src, c, 4)),
	} {
		if !errors.Is(err, errs.ErrShape) && !errors.Is(err, errs.ErrValue) {
			t.Errorf("%s: %v, want a shape or value error", name, err)
		}
	}
	for i, v := range c {
		if v != 0 {
			t.Fatalf("c[%d] = %v after refusals", i, v)
		}
	}
}
