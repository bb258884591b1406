package tensor

// Cholesky factorisation written for tessera's own GEMM (package gemm), as
// lu.go is for LU: the matrix is halved recursively, so that nearly all
// the arithmetic is in the products of the off-diagonal solve and the
// trailing update, which run in the GEMM's vector kernels on every core.
// With A = [A11 ·; A21 A22] (only the lower triangle is read):
//
//	L11 = chol(A11)
//	L21 = A21·L11⁻ᵀ          (cholTrsm: a triangular solve from the right)
//	A22 = A22 - L21·L21ᵀ     (cholSyrk: the lower triangle of the product)
//	L22 = chol(A22)
//
// Diagonal blocks of at most cholBase, and whole matrices of at most
// cholDirect, are factored by gonum's unblocked Potrf; narrow triangular
// solves by gonum's Trsm or, with many rows, by one GEMM with the
// triangle's inverse.

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// cholBase is the widest diagonal block of the recursion factored by
// gonum's Potrf, and the widest triangle a solve is not halved against.
const cholBase = 32

// cholDirect is the largest matrix factored by gonum's Potrf as a whole:
// below it the recursion's small products cost more than they save.
const cholDirect = 96

// cholInvRows is the fewest rows for which a solve against a triangle of
// at most cholBase runs as a product with the triangle's inverse (one GEMM,
// twice the multiply-adds of substitution but in vector kernels) rather
// than by substitution (gonum's Trsm).
const cholInvRows = 64

// cholSyrkFull is the widest diagonal block of the trailing update computed
// as a full product (its upper half is computed and discarded); wider
// blocks are halved so that only the lower triangle is multiplied.
const cholSyrkFull = 128

// cholWork is one factorisation's scratch: the GEMM and a buffer reused by
// every inverse-based solve.
type cholWork struct {
	mm  luGemm[float64]
	buf []float64
}

// cholFactor factorises the row-major n x n matrix a (leading dimension
// lda) in place as A = L·Lᵀ, reading and writing only the lower triangle
// and the diagonal except that diagonal blocks of the trailing update may
// leave arbitrary values above the diagonal (the caller zeroes them). It
// reports false when A is not positive definite: a pivot that is not
// positive, or NaN (a NaN anywhere in the lower triangle reaches a pivot
// of its row).
func cholFactor(a []float64, n, lda int) bool {
	if n <= cholDirect {
		return cholBlock(a, n, lda)
	}
	w := &cholWork{mm: gemmFor[float64]()}
	return cholRec(a, n, lda, w)
}

// cholRec is cholFactor's recursion (the formulas in the file comment).
func cholRec(a []float64, n, lda int, w *cholWork) bool {
	if n <= cholBase {
		return cholBlock(a, n, lda)
	}
	h := (n/2 + 7) &^ 7 // the products' edges on whole vector widths
	if !cholRec(a, h, lda, w) {
		return false
	}
	a21, a22 := a[h*lda:], a[h*lda+h:]
	cholTrsm(n-h, h, a, lda, a21, lda, w)
	cholSyrk(n-h, h, a21, lda, a22, lda, w)
	return cholRec(a22, n-h, lda, w)
}

// cholBlock factors an n x n block with gonum's LAPACK (Potrf: unblocked
// at these sizes, its dot products and matrix-vector products in gonum's
// assembly), reporting false when it is not positive definite.
func cholBlock(a []float64, n, lda int) bool {
	if n == 0 {
		return true
	}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: lda, Data: a[:(n-1)*lda+n]})
	return ok
}

// cholTrsm solves X·Lᵀ = B in place of B, B m x k (leading dimension ldb)
// and L the k x k lower triangle of l (diagonal included, above it not
// read). Each row of B is solved on its own, so rows are independent:
// wide triangles are halved (the left half's solution updates the right
// half's right-hand sides in one GEMM); a triangle of at most cholBase is
// solved by multiplying with its inverse when B has at least cholInvRows
// rows, by gonum's Trsm (substitution) otherwise.
func cholTrsm(m, k int, l []float64, ldl int, b []float64, ldb int, w *cholWork) {
	if m == 0 || k == 0 {
		return
	}
	if k > cholBase {
		h := (k/2 + 7) &^ 7
		cholTrsm(m, h, l, ldl, b, ldb, w)
		_ = w.mm(false, true, m, k-h, h, -1, b, ldb, l[h*ldl:], ldl, 1, b[h:], ldb)
		cholTrsm(m, k-h, l[h*ldl+h:], ldl, b[h:], ldb, w)
		return
	}
	if m >= cholInvRows {
		// X = B·(L⁻¹)ᵀ: B is copied out (the product cannot run in place),
		// the k x k inverse follows it in the same buffer.
		buf := grow(&w.buf, m*k+k*k)
		tmp, inv := copyOut(buf, b, ldb, m, k), buf[m*k:]
		triInvLower(k, l, ldl, inv)
		_ = w.mm(false, true, m, k, k, 1, tmp, k, inv, k, 0, b, ldb)
		return
	}
	blas64.Trsm(blas.Right, blas.Trans, 1, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: k, Stride: ldl, Data: l[:(k-1)*ldl+k]},
		blas64.General{Rows: m, Cols: k, Stride: ldb, Data: b[:(m-1)*ldb+k]})
}

// triInvLower writes the inverse of the k x k lower triangle of l
// (diagonal included) into inv (k x k, leading dimension k; zero above the
// diagonal), column by column by forward substitution:
// M[i,j] = -(Σ_j<=q<i L[i,q]·M[q,j]) / L[i,i], M[j,j] = 1/L[j,j].
func triInvLower(k int, l []float64, ldl int, inv []float64) {
	clear(inv[:k*k])
	for j := range k {
		inv[j*k+j] = 1 / l[j*ldl+j]
		for i := j + 1; i < k; i++ {
			li := l[i*ldl : i*ldl+i]
			s := 0.0
			for q := j; q < i; q++ {
				s += li[q] * inv[q*k+j]
			}
			inv[i*k+j] = -s / l[i*ldl+i]
		}
	}
}

// cholSyrk computes C -= A·Aᵀ on the lower triangle of the n x n C
// (leading dimension ldc), A n x k (leading dimension lda). Diagonal blocks
// of at most cholSyrkFull are one full product (their strict upper triangle
// is overwritten too); wider ones are halved: the off-diagonal quarter is
// one GEMM and the two diagonal halves recurse.
func cholSyrk(n, k int, a []float64, lda int, c []float64, ldc int, w *cholWork) {
	if n == 0 || k == 0 {
		return
	}
	if n <= cholSyrkFull {
		_ = w.mm(false, true, n, n, k, -1, a, lda, a, lda, 1, c, ldc)
		return
	}
	h := (n/2 + 7) &^ 7
	cholSyrk(h, k, a, lda, c, ldc, w)
	_ = w.mm(false, true, n-h, h, k, -1, a[h*lda:], lda, a, lda, 1, c[h*ldc:], ldc)
	cholSyrk(n-h, k, a[h*lda:], lda, c[h*ldc+h:], ldc, w)
}

// cholBatch factors count matrices of n x n stored one after another in
// data, concurrently, zeroing each L's strict upper triangle; it returns
// the index of the first that is not positive definite, or -1.
func cholBatch(data []float64, count, n int) int {
	return laEach(count, n*n*n, func(i int) bool {
		m := data[i*n*n : (i+1)*n*n]
		if !cholFactor(m, n, n) {
			return false
		}
		for r := range n {
			clear(m[r*n+r+1 : r*n+n])
		}
		return true
	})
}
