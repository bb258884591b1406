package vec

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// TestTwoSumAdd accumulates rows of values of very different magnitudes
// (so that plain float64 sums lose digits) with every kernel set, checks
// that all sets give the same bits as the Go loop, and that s+c equals the
// exact sum (math/big) to within float64 rounding of the result.
func TestTwoSumAdd(t *testing.T) {
	for _, n := range []int{1, 7, 8, 9, 16, 23, 256} {
		const rows = 50
		var all [][]float64
		for r := range rows {
			x := make([]float64, n)
			for k := range x {
				x[k] = math.Sin(float64(r*n+k+1)) * math.Pow(10, float64((r*7+k)%17-8))
			}
			all = append(all, x)
		}
		row := func(r int) []float64 { return all[r] }
		type result struct{ s, c []float64 }
		var got []result
		for _, ks := range available() {
			restore := useKernels(ks)
			s32, c32 := make([]float64, n), make([]float64, n)
			s64, c64 := make([]float64, n), make([]float64, n)
			for r := range rows {
				x := row(r)
				x32 := make([]float32, n)
				for k, v := range x {
					x32[k] = float32(v)
				}
				if err := TwoSumAdd(s32, c32, x32); err != nil {
					t.Fatal(err)
				}
				if err := TwoSumAdd(s64, c64, x); err != nil {
					t.Fatal(err)
				}
			}
			restore()
			got = append(got, result{s32, c32}, result{s64, c64})
			// exact sums of the float64 rows
			for k := range n {
				exact := new(big.Float).SetPrec(2000)
				for r := range rows {
					exact.Add(exact, big.NewFloat(row(r)[k]))
				}
				want, _ := exact.Float64()
				if sum := s64[k] + c64[k]; math.Abs(sum-want) > 1e-16*math.Abs(want) {
					t.Fatalf("%s n=%d column %d: s+c = %v, exact %v", ks.name, n, k, sum, want)
				}
			}
		}
		for i := 2; i < len(got); i++ {
			for k := range n {
				if math.Float64bits(got[i].s[k]) != math.Float64bits(got[i%2].s[k]) || math.Float64bits(got[i].c[k]) != math.Float64bits(got[i%2].c[k]) {
					t.Fatalf("n=%d kernel set %d column %d differs from the generic loop", n, i/2, k)
				}
			}
		}
	}
	s := make([]float64, 4)
	if err := TwoSumAdd(s, s, make([]float32, 4)); !errors.Is(err, errs.ErrValue) {
		t.Errorf("aliased: %v", err)
	}
	if err := TwoSumAdd(s, make([]float64, 3), make([]float32, 4)); !errors.Is(err, errs.ErrShape) {
		t.Errorf("lengths: %v", err)
	}
}

// TestTwoSumAddRows checks TwoSumAddRows on every kernel set, bit for bit,
// against TwoSumAdd of each row in turn with the generic loop: column
// counts around the kernel's blocks (32, 8, the masked tail), rows apart
// by more than their length, by exactly it and by 0 (one row again),
// starting from sums and compensations that are not zero; and its errors.
func TestTwoSumAddRows(t *testing.T) {
	for _, n := range []int{1, 7, 8, 9, 31, 32, 33, 40, 64, 100, 257} {
		for _, rows := range []int{1, 3, 17} {
			for _, ldx := range []int{n + 5, n, 0} {
				x := make([]float64, max(1, (rows-1)*ldx+n))
				for k := range x {
					x[k] = math.Sin(float64(k+1)) * math.Pow(10, float64(k%19-9))
				}
				x32 := make([]float32, len(x))
				for k, v := range x {
					x32[k] = float32(v)
				}
				start := func() (s, c []float64) {
					s, c = make([]float64, n), make([]float64, n)
					for k := range s {
						s[k], c[k] = float64(k)*1e8+0.25, float64(k)*1e-9
					}
					return s, c
				}
				// The reference: the generic loop, one row at a time.
				restore := useKernels(genericKernels)
				ws32, wc32 := start()
				ws64, wc64 := start()
				for r := range rows {
					_ = TwoSumAdd(ws32, wc32, x32[r*ldx:r*ldx+n])
					_ = TwoSumAdd(ws64, wc64, x[r*ldx:r*ldx+n])
				}
				restore()
				for _, ks := range available() {
					restore := useKernels(ks)
					s32, c32 := start()
					s64, c64 := start()
					err32 := TwoSumAddRows(s32, c32, x32, ldx, rows)
					err64 := TwoSumAddRows(s64, c64, x, ldx, rows)
					restore()
					if err32 != nil || err64 != nil {
						t.Fatalf("%s: %v, %v", ks.name, err32, err64)
					}
					for k := range n {
						if !sameBits64(s32[k], ws32[k]) || !sameBits64(c32[k], wc32[k]) || !sameBits64(s64[k], ws64[k]) || !sameBits64(c64[k], wc64[k]) {
							t.Fatalf("%s n=%d rows=%d ldx=%d column %d: (%v %v, %v %v), want (%v %v, %v %v)", ks.name, n, rows, ldx, k,
								s32[k], c32[k], s64[k], c64[k], ws32[k], wc32[k], ws64[k], wc64[k])
						}
					}
				}
			}
		}
	}
	s, c := make([]float64, 4), make([]float64, 4)
	x := make([]float32, 12)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"lengths", TwoSumAddRows(s, c[:3], x, 4, 3), errs.ErrShape},
		{"rows past x", TwoSumAddRows(s, c, x, 4, 4), errs.ErrShape},
		{"huge rows", TwoSumAddRows(s, c, x, 4, math.MaxInt), errs.ErrShape},
		{"negative ldx", TwoSumAddRows(s, c, x, -4, 2), errs.ErrValue},
		{"negative rows", TwoSumAddRows(s, c, x, 4, -1), errs.ErrValue},
		{"aliased", TwoSumAddRows(s, s, x, 4, 3), errs.ErrValue},
		{"rows over the sums", TwoSumAddRows(s, c, s, 0, 3), errs.ErrValue},
	}
	for _, tc := range cases {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if err := TwoSumAddRows(s, c, x, 4, 0); err != nil {
		t.Errorf("no rows: %v", err)
	}
}

func sameBits64(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
