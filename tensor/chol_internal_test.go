package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// spdMatrix is a row-major n x n symmetric positive-definite matrix:
// G·Gᵀ/n + I for a standard normal G (condition number of a few units),
// with NaN written over its strict upper triangle when junkUpper is set
// (the factorisation must not read it).
func spdMatrix(n int, seed uint64, junkUpper bool) []float64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	g := make([]float64, n*n)
	for i := range g {
		g[i] = r.NormFloat64()
	}
	a := make([]float64, n*n)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1/float64(max(n, 1)), laGeneral(n, n, g), laGeneral(n, n, g), 0, laGeneral(n, n, a))
	for i := range n {
		a[i*n+i]++
		if junkUpper {
			for j := i + 1; j < n; j++ {
				a[i*n+j] = math.NaN()
			}
		}
	}
	return a
}

// potrf is gonum's Cholesky of the lower triangle of a row-major n x n
// matrix, in place; false when it is not positive definite.
func potrf(n int, a []float64) bool {
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: a})
	return ok
}

// TestCholFactor: cholFactor's L matches gonum's Potrf on the same f64
// matrix entry by entry within 64·n·eps (the matrices are well
// conditioned), for sizes around every threshold (cholBase,
// cholInvRows, cholSyrkFull and the halvings) and odd large ones, with
// NaN above the diagonal (never read); a matrix that is not positive
// definite at any position, or with NaN or Inf in its lower triangle, is
// reported as not positive definite, as Potrf reports it.
func TestCholFactor(t *testing.T) {
	sizes := []int{0, 1, 2, 7, 31, 32, 33, 40, 63, 64, 65, 96, 100, 127, 128, 129, 200, 257, 300}
	if !testing.Short() {
		sizes = append(sizes, 1000, 1023, 1025)
	}
	for _, n := range sizes {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			a := spdMatrix(n, 1, true)
			ref := slices.Clone(a)
			if !potrf(n, ref) && n > 0 {
				t.Fatal("Potrf rejects the test matrix")
			}
			got := slices.Clone(a)
			if !cholFactor(got, n, n) {
				t.Fatal("cholFactor reports not positive definite")
			}
			for i := range n {
				for j := range i + 1 {
					if d := math.Abs(got[i*n+j] - ref[i*n+j]); !(d <= 64*float64(n)*0x1p-52) {
						t.Fatalf("L[%d,%d] = %v, Potrf %v", i, j, got[i*n+j], ref[i*n+j])
					}
				}
			}
			if n == 0 {
				return
			}
			// Not positive definite, or NaN/Inf in the lower triangle, at the
			// start, around the thresholds and at the end.
			for _, p := range []int{0, n / 3, min(cholBase, n-1), min(cholBase+1, n-1), n - 1} {
				for _, c := range []struct {
					col int
					v   float64
				}{{p, -1}, {p, 0}, {p, math.NaN()}, {p / 2, math.NaN()}, {p / 2, math.Inf(-1)}} {
					bad := slices.Clone(a)
					bad[p*n+c.col] = c.v
					refOK := potrf(n, slices.Clone(bad))
					if ok := cholFactor(bad, n, n); ok || refOK {
						t.Fatalf("entry [%d,%d] spoilt with %v: cholFactor ok=%v, Potrf ok=%v", p, c.col, c.v, ok, refOK)
					}
				}
			}
		})
	}
}

// TestCholBatch: in a batch of matrices around the plain-loop size, the
// first one that is not positive definite is named wherever it is, and
// the good ones' strict upper triangles are zeroed.
func TestCholBatch(t *testing.T) {
	for _, n := range []int{1, 16, cholBase, cholBase + 1, 70} {
		for _, badAt := range []int{-1, 0, 3, 9} {
			const count = 10
			data := make([]float64, 0, count*n*n)
			for i := range count {
				m := spdMatrix(n, uint64(i), true)
				if badAt >= 0 && (i == badAt || i == badAt+1) {
					m[(n-1)*n+(n-1)] = -1
				}
				data = append(data, m...)
			}
			got := cholBatch(data, count, n)
			if got != badAt {
				t.Fatalf("n=%d: first bad %d, want %d", n, got, badAt)
			}
			if badAt >= 0 {
				continue
			}
			for i := range count {
				m := data[i*n*n : (i+1)*n*n]
				for r := range n {
					for c := r + 1; c < n; c++ {
						if m[r*n+c] != 0 {
							t.Fatalf("n=%d matrix %d: L[%d,%d] = %v above the diagonal", n, i, r, c, m[r*n+c])
						}
					}
				}
			}
		}
	}
}

// BenchmarkCholFactor times cholFactor alone against gonum's Potrf on the
// same f64 matrix; best-ns is the fastest single call.
func BenchmarkCholFactor(b *testing.B) {
	for _, n := range []int{16, 64, 96, 128, 192, 256, 1024} {
		a := spdMatrix(n, 4, false)
		w := make([]float64, len(a))
		for _, impl := range []string{"tessera", "gonum"} {
			b.Run(impl+"/"+strconv.Itoa(n), func(b *testing.B) {
				best := time.Duration(math.MaxInt64)
				for b.Loop() {
					copy(w, a)
					t0 := time.Now()
					if impl == "tessera" {
						cholFactor(w, n, n)
					} else {
						potrf(n, w)
					}
					best = min(best, time.Since(t0))
				}
				b.ReportMetric(math.Pow(float64(n), 3)/3*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				b.ReportMetric(float64(best.Nanoseconds()), "best-ns")
			})
		}
	}
}
