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
