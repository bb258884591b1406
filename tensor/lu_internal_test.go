package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// luCase is a test matrix: n x n standard normal, with column zeroCol set
// to zero when it is >= 0 (singular, the zero pivot at zeroCol).
type luCase struct{ n, zeroCol int }

func luMatrix(c luCase, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, uint64(c.n)))
	a := make([]float64, c.n*c.n)
	for i := range a {
		a[i] = r.NormFloat64()
		if i%c.n == c.zeroCol {
			a[i] = 0
		}
	}
	return a
}

// TestLUFactor: luFactor's factors rebuild the row-permuted matrix in
// float64 (|P·A - L·U| within 8·n·eps·max|A|, the recursion's products
// included: sizes around the panel width, luCompactMin and odd large ones,
// where the panels are factored in a copy and the triangular solves run
// through the inverse), its pivots are
// gonum's LAPACK getrf's on the same f64 matrix, and the singular index is
// the first exactly zero pivot, as getrf's info.
func TestLUFactor(t *testing.T) {
	cases := []luCase{{0, -1}, {1, -1}, {2, -1}, {15, -1}, {16, -1}, {17, -1}, {31, -1}, {64, -1}, {100, -1},
		{127, -1}, {128, -1}, {129, -1}, {200, -1}, {257, -1}, {40, 0}, {40, 23}, {100, 99}, {130, 0}, {130, 17}, {200, 129}, {300, 299},
		{luCompactMin - 1, -1}, {luCompactMin, -1}, {luCompactMin + 1, -1}, {luCompactMin + 1, 0}, {luCompactMin + 1, 100}, {luCompactMin + 1, luCompactMin}}
	if !testing.Short() {
		cases = append(cases, luCase{1000, -1}, luCase{1023, -1}, luCase{1025, -1}, luCase{1025, 600})
	}
	for _, c := range cases {
		a := luMatrix(c, 1)
		ref, refPiv := slices.Clone(a), make([]int, c.n)
		refOK := c.n == 0 || lapack64.Getrf(laGeneral(c.n, c.n, ref), refPiv)
		t.Run("f64", func(t *testing.T) { checkLU(t, c, a, refPiv, refOK, 1e-16) })
		a32 := make([]float32, len(a))
		for i, v := range a {
			a32[i] = float32(v)
		}
		t.Run("f32", func(t *testing.T) { checkLU(t, c, a32, nil, refOK, 6e-8) })
	}
}

func checkLU[T luFloat](t *testing.T, c luCase, a []T, refPiv []int, refOK bool, eps float64) {
	n := c.n
	lu, piv := slices.Clone(a), make([]int, n)
	sing := luFactor(lu, n, piv)
	if sing != c.zeroCol || (sing < 0) != refOK {
		t.Fatalf("n=%d: singular at %d, want %d (getrf ok=%v)", n, sing, c.zeroCol, refOK)
	}
	if refPiv != nil && c.zeroCol < 0 && !slices.Equal(piv, refPiv) {
		t.Fatalf("n=%d: pivots %v, getrf's %v", n, piv, refPiv)
	}
	pa := make([]float64, n*n) // P·A in float64: the recorded swaps in order
	for i, v := range a {
		pa[i] = float64(v)
	}
	for i, p := range piv {
		for j := range n {
			pa[i*n+j], pa[p*n+j] = pa[p*n+j], pa[i*n+j]
		}
	}
	amax := 0.0
	for _, v := range a {
		amax = max(amax, math.Abs(float64(v)))
	}
	// Row i of L·U, summed over q in ascending order as a dot product of
	// L's row and U's column would be, but a row of U at a time, so the
	// check reads memory in order (column by column, it took most of the
	// test's time at n = 1025).
	row := make([]float64, n)
	for i := range n {
		clear(row)
		for q := range i + 1 {
			l := 1.0
			if q < i {
				l = float64(lu[i*n+q])
			}
			for j, u := range lu[q*n+q : q*n+n] {
				row[q+j] += l * float64(u)
			}
		}
		for j, s := range row {
			if d := math.Abs(s - pa[i*n+j]); d > 8*float64(n)*eps*amax {
				t.Fatalf("n=%d: (L·U - P·A)[%d,%d] = %g", n, i, j, d)
			}
		}
	}
}

// TestLUSolve: luSolve's solution of A·X = B for one, a few and many
// right-hand sides (k = 40 takes the blocked triangular solves, k = 70
// their products with the small triangles' inverses) matches
// gonum's getrs on the same factors in float64, within n·eps·|X|·cond
// (the matrices are diagonally dominant: n is added on the diagonal), and
// f32 is within f32's rounding of the f64 solution.
func TestLUSolve(t *testing.T) {
	for _, n := range []int{1, 5, 16, 17, 70, 200} {
		for _, k := range []int{1, 3, 40, luInvCols + 6} {
			a := luMatrix(luCase{n, -1}, 2)
			for i := range n {
				a[i*n+i] += float64(n)
			}
			b := luMatrix(luCase{max(n, k), -1}, 3)[:n*k]
			ref, piv, want := slices.Clone(a), make([]int, n), slices.Clone(b)
			lapack64.Getrf(laGeneral(n, n, ref), piv)
			lapack64.Getrs(blas.NoTrans, laGeneral(n, n, ref), laGeneral(n, k, want), piv)

			lu, p64, got := slices.Clone(a), make([]int, n), slices.Clone(b)
			luFactor(lu, n, p64)
			luSolve(lu, n, p64, got, k, k)
			a32, g32, p32 := make([]float32, n*n), make([]float32, n*k), make([]int, n)
			for i, v := range a {
				a32[i] = float32(v)
			}
			for i, v := range b {
				g32[i] = float32(v)
			}
			luFactor(a32, n, p32)
			luSolve(a32, n, p32, g32, k, k)
			for i, w := range want {
				if d := math.Abs(got[i] - w); d > 1e-14*float64(n)*(1+math.Abs(w)) {
					t.Fatalf("n=%d k=%d f64: x[%d] = %v, getrs %v", n, k, i, got[i], w)
				}
				if d := math.Abs(float64(g32[i]) - w); d > 1e-6*float64(n)*(1+math.Abs(w)) {
					t.Fatalf("n=%d k=%d f32: x[%d] = %v, f64 %v", n, k, i, g32[i], w)
				}
			}
		}
	}
}

// BenchmarkLUFactor times luFactor alone (no tensor plumbing) in f64;
// best-ns is the fastest single call.
func BenchmarkLUFactor(b *testing.B) {
	for _, n := range []int{16, 64, 256, 1024} {
		a := luMatrix(luCase{n, -1}, 4)
		w, piv := make([]float64, len(a)), make([]int, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			best := time.Duration(math.MaxInt64)
			for b.Loop() {
				copy(w, a)
				t0 := time.Now()
				luFactor(w, n, piv)
				best = min(best, time.Since(t0))
			}
			b.ReportMetric(2*math.Pow(float64(n), 3)/3*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			b.ReportMetric(float64(best.Nanoseconds()), "best-ns")
		})
	}
}
