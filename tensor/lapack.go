package tensor

// Dense linear algebra through gonum's LAPACK (package lapack64, so a
// program that installs another implementation with lapack64.Use, such as
// gonum.org/v1/netlib's, gets it here too), except for the LU factorisation
// (Solve, Inv, Det, SlogDet), Solve's triangular solves and the Cholesky
// factorisation of matrices larger than 96, which are tessera's own (lu.go,
// chol.go) so that their products run in the CPU GEMM.
//
// Every function takes F32 or F64 tensors whose last two axes are the
// matrices and whose leading axes are a batch (an empty batch, shape
// [0, n, n], gives empty results). The work is done on the host in float64:
// an F32 input is widened exactly, and each result is rounded once back to
// F32. A tensor on a GPU is moved to the CPU for the computation and the
// results are moved back to its device. Matrices of a batch are computed
// concurrently on the CPU's cores.
//
// Errors are typed as everywhere in tessera: a dtype other than F32/F64 is
// ErrDType; a rank or extent that does not fit is ErrShape naming the
// shapes; a singular matrix (Solve, Inv), one that is not positive definite
// (Cholesky), one with NaN or Inf where an iteration cannot run on it (Eigh,
// SVD, Lstsq) or an iteration that does not converge is ErrValue, and the
// message names the matrix's index in the batch. Results are never silently
// NaN for those cases.

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

// Cholesky returns the lower-triangular L with L·Lᵀ = a for each symmetric
// positive-definite matrix of a ([..., n, n] -> [..., n, n]), as
// numpy.linalg.cholesky and torch.linalg.cholesky: only the lower triangle
// of a is read, and the strict upper triangle of L is zero. A matrix that
// is not positive definite (or holds NaN) is an ErrValue naming its index
// in the batch. The factorisation is tessera's own recursive one on the
// CPU GEMM (chol.go) above 96, gonum's Potrf below. On a GPU the data is
// moved to the CPU and back.
func Cholesky(a *Tensor) *Tensor {
	const op = "Cholesky"
	x, err := laReadSquare(op, "a", a)
	if err != nil {
		return failed(err)
	}
	bad := cholBatch(x.data, x.count(), x.n)
	if bad >= 0 {
		return fail(op, errs.ErrValue, "%s is not positive definite", x.name(bad))
	}
	return gradCholesky(a, laResult(op, x.dt, x.dev, x.data, x.shape))
}

// Solve returns x with a·x = b for each square matrix of a, by LU
// factorisation with partial pivoting, as torch.linalg.solve. a is
// [..., n, n]; b is a batch of vectors [..., n] when it is 1-D or its shape
// is a's without the last axis, and otherwise a batch of matrices
// [..., n, k]. The batch axes of a and b broadcast; x has the broadcast
// batch followed by [n] or [n, k]. a and b must share dtype and device.
//
// The factorisation and the triangular solves are tessera's own (lu.go),
// their products run in the CPU GEMM. A singular matrix (an exactly zero
// pivot, as LAPACK reports it) is an ErrValue naming its index in a's
// batch; an ill-conditioned but regular one is solved with the accuracy
// its condition number allows. On a GPU the data is moved to the CPU and
// back.
func Solve(a, b *Tensor) *Tensor {
	const op = "Solve"
	x, err := laReadSquare(op, "a", a)
	if err != nil {
		return failed(err)
	}
	y, err := laRead(op, "b", b)
	if err != nil {
		return failed(err)
	}
	if err := laSameKind(op, x, y); err != nil {
		return failed(err)
	}
	rhs, err := laRHSShape(op, x, y)
	if err != nil {
		return failed(err)
	}
	n, k := x.n, rhs.k
	ipiv, _, bad := laLU(x)
	if bad >= 0 {
		return fail(op, errs.ErrValue, "%s is singular", x.name(bad))
	}
	total := laProd(rhs.batch)
	out := make([]float64, total*n*k)
	fromA, fromB := laBroadcastIndex(rhs.batch, x.batch), laBroadcastIndex(rhs.batch, rhs.bBatch)
	laEach(total, n*n*k, func(i int) bool {
		ai := fromA(i)
		dst := out[i*n*k : (i+1)*n*k]
		copy(dst, y.data[fromB(i)*n*k:])
		luSolve(x.mat(ai), n, ipiv[ai*n:(ai+1)*n], dst, k, k)
		return true
	})
	return gradSolve(a, b, laResult(op, x.dt, x.dev, out, rhs.outShape), len(rhs.outShape) == len(rhs.batch)+1)
}

// Inv returns the inverse of each square matrix of a ([..., n, n] ->
// [..., n, n]), by LU factorisation with partial pivoting. A singular matrix
// is an ErrValue naming its index in the batch. On a GPU the data is moved
// to the CPU and back.
func Inv(a *Tensor) *Tensor {
	const op = "Inv"
	x, err := laReadSquare(op, "a", a)
	if err != nil {
		return failed(err)
	}
	n := x.n
	ipiv, _, bad := laLU(x)
	if bad >= 0 {
		return fail(op, errs.ErrValue, "%s is singular", x.name(bad))
	}
	if n > 0 && x.count() > 0 {
		work := []float64{0}
		lapack64.Getri(laGeneral(n, n, x.mat(0)), ipiv[:n], work, -1)
		lwork := max(n, int(work[0]))
		bad = laEach(x.count(), n*n*n, func(i int) bool {
			return lapack64.Getri(laGeneral(n, n, x.mat(i)), ipiv[i*n:(i+1)*n], make([]float64, lwork), lwork)
		})
		if bad >= 0 {
			return fail(op, errs.ErrValue, "%s is singular", x.name(bad))
		}
	}
	return gradInv(a, laResult(op, x.dt, x.dev, x.data, x.shape))
}

// Det returns the determinant of each square matrix of a ([..., n, n] ->
// [...]; a 2-D a gives a rank-0 tensor), from an LU factorisation. A
// singular matrix has determinant 0 (not an error); the product of the
// pivots is formed with separate exponents, so it overflows or underflows
// only when the determinant itself does. The determinant of a 0x0 matrix
// is 1. On a GPU the data is moved to the CPU and back.
func Det(a *Tensor) *Tensor {
	const op = "Det"
	x, err := laReadSquare(op, "a", a)
	if err != nil {
		return failed(err)
	}
	ipiv, singular, _ := laLU(x)
	out := make([]float64, x.count())
	for i := range out {
		if singular[i] {
			continue // 0
		}
		frac, exp := 1.0, 0
		u, piv := x.mat(i), ipiv[i*x.n:(i+1)*x.n]
		for j := range x.n {
			f, e := math.Frexp(u[j*x.n+j])
			frac, exp = frac*f, exp+e
			f, e = math.Frexp(frac) // keep frac in [0.5, 1): no overflow or underflow
			frac, exp = f, exp+e
			if piv[j] != j {
				frac = -frac
			}
		}
		out[i] = math.Ldexp(frac, exp)
	}
	return gradDet(a, laResult(op, x.dt, x.dev, out, x.batch))
}

// LogDet returns the natural logarithm of each square matrix's determinant
// ([..., n, n] -> [...]): PyTorch's logdet, which is NaN where the
// determinant is negative and -Inf where it is zero. It is SlogDet's
// logarithm of the absolute value plus the logarithm of its sign, so it
// never overflows where Det would.
func LogDet(a *Tensor) *Tensor {
	sign, logabs := SlogDet(a)
	defer sign.Release()
	defer logabs.Release()
	ls := sign.Detach().Log()
	defer ls.Release()
	return retag("LogDet", logabs.Add(ls))
}

// SlogDet returns the sign and the natural logarithm of the absolute value
// of each square matrix's determinant ([..., n, n] -> two tensors [...]), as
// numpy.linalg.slogdet: det = sign·exp(logabsdet) without overflow. A
// singular matrix gives sign 0 and logabsdet -Inf; a 0x0 matrix gives 1 and
// 0. Both results have a's dtype. On a GPU the data is moved to the CPU and
// back.
func SlogDet(a *Tensor) (sign, logabsdet *Tensor) {
	const op = "SlogDet"
	x, err := laReadSquare(op, "a", a)
	if err != nil {
		return failed(err), failed(err)
	}
	ipiv, singular, _ := laLU(x)
	signs, logs := make([]float64, x.count()), make([]float64, x.count())
	for i := range signs {
		if singular[i] {
			signs[i], logs[i] = 0, math.Inf(-1)
			continue
		}
		s, l := 1.0, 0.0
		u, piv := x.mat(i), ipiv[i*x.n:(i+1)*x.n]
		for j := range x.n {
			d := u[j*x.n+j]
			if d < 0 {
				s = -s
			} else if math.IsNaN(d) {
				s = math.NaN()
			}
			if piv[j] != j {
				s = -s
			}
			l += math.Log(math.Abs(d))
		}
		signs[i], logs[i] = s, l
	}
	return laResult(op, x.dt, x.dev, signs, x.batch), gradLogAbsDet(a, laResult(op, x.dt, x.dev, logs, x.batch))
}

// Eigh returns the eigenvalues w (ascending, [..., n]) and the orthonormal
// eigenvectors v (as columns, [..., n, n]: a·v[..., :, j] = w[..., j]·v[..., :, j])
// of each symmetric matrix of a, as numpy.linalg.eigh with its default
// UPLO='L': only the lower triangle of a is read. Each eigenvector's sign
// is whatever LAPACK's Dsyev produces, which may differ from NumPy's for
// the same matrix. A matrix with NaN or Inf, or one on which the iteration
// does not converge, is an ErrValue naming its index in the batch. On a GPU
// the data is moved to the CPU and back.
func Eigh(a *Tensor) (w, v *Tensor) {
	const op = "Eigh"
	x, err := laReadSquare(op, "a", a)
	if err != nil {
		return failed(err), failed(err)
	}
	if bad := x.nonFinite(true); bad >= 0 {
		err := errs.New("tensor", op, errs.ErrValue, "%s holds NaN or Inf in its lower triangle", x.name(bad))
		return failed(err), failed(err)
	}
	n := x.n
	vals := make([]float64, x.count()*n)
	if n > 0 && x.count() > 0 {
		work := []float64{0}
		lapack64.Syev(lapack.EVCompute, laSymLower(n, x.mat(0)), vals[:n], work, -1)
		lwork := max(3*n-1, int(work[0]))
		bad := laEach(x.count(), n*n*n, func(i int) bool {
			return lapack64.Syev(lapack.EVCompute, laSymLower(n, x.mat(i)), vals[i*n:(i+1)*n], make([]float64, lwork), lwork)
		})
		if bad >= 0 {
			err := errs.New("tensor", op, errs.ErrValue, "the eigenvalue iteration did not converge for %s", x.name(bad))
			return failed(err), failed(err)
		}
	}
	return noGrad(op, laResult(op, x.dt, x.dev, vals, append(slices.Clone(x.batch), n)), a), noGrad(op, laResult(op, x.dt, x.dev, x.data, x.shape), a)
}

// SVD returns the reduced singular value decomposition a = u·diag(s)·vh of
// each matrix of a ([..., m, n]), as numpy.linalg.svd(a,
// full_matrices=False) and torch.linalg.svd(a, full_matrices=False): with
// k = min(m, n), u is [..., m, k] and vh is [..., k, n] with orthonormal
// columns and rows, and s is [..., k], non-negative and descending. The
// signs of paired singular vectors are whatever LAPACK's Dgesvd produces
// (NumPy's may differ; u[:, j] and vh[j, :] flip together). A matrix with
// NaN or Inf, or one on which the iteration does not converge, is an
// ErrValue naming its index in the batch. On a GPU the data is moved to the
// CPU and back.
func SVD(a *Tensor) (u, s, vh *Tensor) {
	const op = "SVD"
	x, err := laReadMatrices(op, "a", a)
	if err != nil {
		return failed(err), failed(err), failed(err)
	}
	us, ss, vs, err := laSVD(op, x)
	if err != nil {
		return failed(err), failed(err), failed(err)
	}
	m, n, k := x.m, x.n, min(x.m, x.n)
	return noGrad(op, laResult(op, x.dt, x.dev, us, append(slices.Clone(x.batch), m, k)), a),
		noGrad(op, laResult(op, x.dt, x.dev, ss, append(slices.Clone(x.batch), k)), a),
		noGrad(op, laResult(op, x.dt, x.dev, vs, append(slices.Clone(x.batch), k, n)), a)
}

// QR returns the reduced QR decomposition a = q·r of each matrix of a
// ([..., m, n]), as numpy.linalg.qr(a, mode="reduced") and torch.linalg.qr:
// with k = min(m, n), q is [..., m, k] with orthonormal columns and r is
// [..., k, n], upper triangular (zero below the diagonal). Signs follow
// LAPACK's Householder convention (Dgeqrf then Dorgqr, as NumPy): the
// diagonal of r is not forced positive, and r[j, j] is negative when the
// column it eliminates starts with a positive entry. A rank-deficient a is
// decomposed (r then has zeros, or tiny values, on its diagonal). NaN
// propagates. On a GPU the data is moved to the CPU and back.
func QR(a *Tensor) (q, r *Tensor) {
	const op = "QR"
	x, err := laReadMatrices(op, "a", a)
	if err != nil {
		return failed(err), failed(err)
	}
	m, n, k := x.m, x.n, min(x.m, x.n)
	qs, rs := make([]float64, x.count()*m*k), make([]float64, x.count()*k*n)
	if k > 0 && x.count() > 0 {
		work := []float64{0}
		lapack64.Geqrf(laGeneral(m, n, x.mat(0)), make([]float64, k), work, -1)
		lwork := max(n, int(work[0]))
		lapack64.Orgqr(blas64.General{Rows: m, Cols: k, Stride: n, Data: x.mat(0)}, make([]float64, k), work, -1)
		lwork = max(lwork, int(work[0]))
		laEach(x.count(), m*n*k, func(i int) bool {
			am, tau, work := x.mat(i), make([]float64, k), make([]float64, lwork)
			lapack64.Geqrf(laGeneral(m, n, am), tau, work, lwork)
			rm := rs[i*k*n : (i+1)*k*n]
			for row := range k {
				copy(rm[row*n+row:row*n+n], am[row*n+row:row*n+n])
			}
			lapack64.Orgqr(blas64.General{Rows: m, Cols: k, Stride: n, Data: am}, tau, work, lwork)
			qm := qs[i*m*k : (i+1)*m*k]
			for row := range m {
				copy(qm[row*k:row*k+k], am[row*n:row*n+k])
			}
			return true
		})
	}
	return noGrad(op, laResult(op, x.dt, x.dev, qs, append(slices.Clone(x.batch), m, k)), a),
		noGrad(op, laResult(op, x.dt, x.dev, rs, append(slices.Clone(x.batch), k, n)), a)
}

// Lstsq returns the x minimising ‖a·x - b‖₂ for each matrix of a
// ([..., m, n], any m and n), with b a batch of vectors [..., m] (when b is
// 1-D or its shape is a's without the last axis) or of matrices
// [..., m, k]; batch axes broadcast, and x is [..., n] or [..., n, k]. It is
// computed from the SVD of a, as numpy.linalg.lstsq(a, b, rcond=None) (the
// gelsd driver): singular values at or below rcond·σmax, rcond =
// ε·max(m, n) with ε the float64 machine epsilon, count as zero. So a
// full-rank a gives the least-squares solution (the exact solution when a
// is square and regular, the minimum-norm one when m < n), and a
// rank-deficient a the minimum-norm least-squares solution, as NumPy
// (torch.linalg.lstsq's default CPU driver, gelsy, returns another solution
// then). A matrix of a holding NaN or Inf, or an SVD that does not
// converge, is an ErrValue naming its index in a's batch. On a GPU the data
// is moved to the CPU and back.
func Lstsq(a, b *Tensor) *Tensor {
	const op = "Lstsq"
	x, err := laReadMatrices(op, "a", a)
	if err != nil {
		return failed(err)
	}
	y, err := laRead(op, "b", b)
	if err != nil {
		return failed(err)
	}
	if err := laSameKind(op, x, y); err != nil {
		return failed(err)
	}
	rhs, err := laRHSShape(op, x, y)
	if err != nil {
		return failed(err)
	}
	us, ss, vs, err := laSVD(op, x)
	if err != nil {
		return failed(err)
	}
	m, n, r, k := x.m, x.n, min(x.m, x.n), rhs.k
	total := laProd(rhs.batch)
	out := make([]float64, total*n*k)
	fromA, fromB := laBroadcastIndex(rhs.batch, x.batch), laBroadcastIndex(rhs.batch, rhs.bBatch)
	rcond := float64(max(m, n)) * 0x1p-52
	if r > 0 && k > 0 {
		laEach(total, (m+n)*r*k, func(i int) bool {
			ai := fromA(i)
			s := ss[ai*r : (ai+1)*r]
			// x = V · diag(1/s, truncated) · Uᵀ · b
			c := make([]float64, r*k)
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, laGeneral(m, r, us[ai*m*r:(ai+1)*m*r]), laGeneral(m, k, y.data[fromB(i)*m*k:(fromB(i)+1)*m*k]), 0, laGeneral(r, k, c))
			for j := range r {
				inv := 0.0
				if s[j] > rcond*s[0] {
					inv = 1 / s[j]
				}
				for col := range k {
					c[j*k+col] *= inv
				}
			}
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, laGeneral(r, n, vs[ai*r*n:(ai+1)*r*n]), laGeneral(r, k, c), 0, laGeneral(n, k, out[i*n*k:(i+1)*n*k]))
			return true
		})
	}
	return noGrad(op, laResult(op, x.dt, x.dev, out, rhs.outShape), a, b)
}

// Diag is numpy.diag: for a 1-D t of length n it returns the square matrix
// [n+|k|, n+|k|] with t on diagonal k (k > 0 above the main diagonal, k < 0
// below) and zeros elsewhere; for a 2-D t it returns diagonal k of t as a
// 1-D tensor (empty when k lies outside the matrix). Other ranks are an
// ErrShape (DiagEmbed and Trace work on batches). Any dtype; it runs on t's
// device.
func Diag(t *Tensor, k int) *Tensor {
	const op = "Diag"
	if err := t.Err(); err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	switch t.Rank() {
	case 1:
		return retag(op, DiagEmbed(t, k))
	case 2:
		return retag(op, laDiagonal(t, k))
	}
	return fail(op, errs.ErrShape, "input must be 1-D or 2-D, have shape %v (DiagEmbed and Trace take batches)", t.Shape())
}

// DiagEmbed is torch.diag_embed over the last axis: t of shape [..., n]
// gives [..., n+|k|, n+|k|] whose last two axes hold t[...] on diagonal k
// (k > 0 above the main diagonal, k < 0 below) and zeros elsewhere. Any
// dtype; it runs on t's device.
func DiagEmbed(t *Tensor, k int) *Tensor {
	const op = "DiagEmbed"
	if err := t.Err(); err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	if t.Rank() < 1 {
		return fail(op, errs.ErrShape, "input must have at least one axis, have shape %v", t.Shape())
	}
	shape := t.Shape()
	n, p := shape[len(shape)-1], laAbs(k)
	if n > layout.MaxElements-p {
		return fail(op, errs.ErrShape, "diagonal %d of length %d overflows", k, n)
	}
	size := n + p
	mask := make([]bool, size*size)
	for i := range n {
		r, c := i, i
		if k > 0 {
			c += k
		} else {
			r -= k
		}
		mask[r*size+c] = true
	}
	dev := t.Device()
	cond := FromSlice(mask, size, size).To(dev)
	defer cond.Release()
	zero := Zeros(t.DType()).To(dev)
	defer zero.Release()
	vals := t
	if p > 0 {
		pad := Zeros(t.DType(), append(shape[:len(shape)-1:len(shape)-1], p)...).To(dev)
		defer pad.Release()
		vals = Concat([]*Tensor{t, pad}, -1) // v padded to size: indexed by row (k >= 0) or column (k < 0)
		defer vals.Release()
	}
	axis := -1 // value i of a row-indexed diagonal sits in row i
	if k < 0 {
		axis = -2
	}
	col := vals.Unsqueeze(axis)
	defer col.Release()
	return retag(op, Where(cond, col, zero))
}

// Trace sums the main diagonal of the last two axes: t of shape [..., m, n]
// gives [...] (a rank-0 tensor for a matrix), as numpy.trace(t, axis1=-2,
// axis2=-1) and, for a matrix, torch.trace; the matrices need not be
// square. The sum has Sum's dtype: floats keep theirs, integers give I64
// (as numpy.trace and torch.trace). It runs on t's device.
func Trace(t *Tensor) *Tensor {
	const op = "Trace"
	if err := t.Err(); err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	if t.Rank() < 2 {
		return fail(op, errs.ErrShape, "input must have at least two axes, have shape %v", t.Shape())
	}
	d := laDiagonal(t, 0)
	defer d.Release()
	return retag(op, d.Sum(-1))
}

// laDiagonal returns diagonal k of the last two axes of t ([..., m, n] ->
// [..., d]) as a strided view of a contiguous copy (t itself when it is
// contiguous): element i of the diagonal is element k + i·(n+1) (k >= 0)
// or -k·n + i·(n+1) (k < 0) of the flattened matrix.
func laDiagonal(t *Tensor, k int) *Tensor {
	shape := t.Shape()
	r := len(shape)
	m, n := shape[r-2], shape[r-1]
	var start, count int
	if k >= 0 {
		start, count = k, max(0, min(m, n-k))
	} else {
		start, count = -k*n, max(0, min(m+k, n))
	}
	c := t.Contiguous()
	defer c.Release()
	flat := c.Reshape(append(shape[:r-2:r-2], m*n)...)
	defer flat.Release()
	if count == 0 {
		return flat.Narrow(-1, 0, 0)
	}
	return flat.Slice(-1, start, start+(count-1)*(n+1)+1, n+1)
}

// ---------------------------------------------------------------- helpers

// laInput is an input read to the host as float64: a batch of m x n
// matrices (or, for a right-hand side, any shape), row-major.
type laInput struct {
	shape []int         // the tensor's shape
	batch []int         // shape without the matrix axes
	m, n  int           // the matrix axes (0 for inputs not read as matrices)
	dt    dtype.DType   // F32 or F64: the results' dtype
	dev   device.Device // the input's device: the results' device
	data  []float64     // owned: the functions compute in it in place
}

func (h *laInput) count() int { return laProd(h.batch) }

// mat returns matrix i of the batch.
func (h *laInput) mat(i int) []float64 { return h.data[i*h.m*h.n : (i+1)*h.m*h.n] }

// name names matrix i of the batch for an error message.
func (h *laInput) name(i int) string {
	switch len(h.batch) {
	case 0:
		return "the matrix"
	case 1:
		return fmt.Sprintf("matrix %d of the batch", i)
	}
	return fmt.Sprintf("matrix %d of the batch (index %v of batch shape %v)", i, laUnravel(i, h.batch), h.batch)
}

// nonFinite returns the index of the first matrix holding NaN or Inf (in
// its lower triangle only, when lower is set), or -1.
func (h *laInput) nonFinite(lower bool) int {
	for i, v := range h.data {
		if (math.IsNaN(v) || math.IsInf(v, 0)) && (!lower || i%h.n <= i/h.n%h.m) {
			return i / (h.m * h.n)
		}
	}
	return -1
}

// laRead validates t as an operand of op (not failed, released or of
// another dtype than F32/F64) and reads its values to the host in float64.
func laRead(op, what string, t *Tensor) (*laInput, error) {
	if t == nil {
		return nil, errs.New("tensor", op, errs.ErrValue, "%s is a nil tensor", what)
	}
	if err := t.Err(); err != nil { // realises a pending tensor
		return nil, errs.Retag("tensor", op, err)
	}
	if dt := t.DType(); dt != dtype.F32 && dt != dtype.F64 {
		return nil, errs.New("tensor", op, errs.ErrDType, "%s is %v; linear algebra takes f32 or f64 (Cast first)", what, dt)
	}
	// Read as stored (one copy; a GPU tensor moves to the CPU, a released
	// one is ErrReleased), F32 widened exactly on the host.
	var data []float64
	var err error
	if t.DType() == dtype.F64 {
		data, err = ToSlice[float64](t)
	} else {
		var f []float32
		if f, err = ToSlice[float32](t); err == nil {
			data = make([]float64, len(f))
			for i, v := range f {
				data[i] = float64(v)
			}
		}
	}
	if err != nil {
		return nil, errs.Retag("tensor", op, err)
	}
	shape := t.Shape()
	return &laInput{shape: shape, batch: shape, dt: t.DType(), dev: t.Device(), data: data}, nil
}

// laReadMatrices is laRead for a batch of matrices [..., m, n].
func laReadMatrices(op, what string, t *Tensor) (*laInput, error) {
	if t != nil && t.Err() == nil && t.Rank() < 2 {
		return nil, errs.New("tensor", op, errs.ErrShape, "%s must have at least two axes (a batch of matrices), have shape %v", what, t.Shape())
	}
	h, err := laRead(op, what, t)
	if err != nil {
		return nil, err
	}
	r := len(h.shape)
	h.batch, h.m, h.n = h.shape[:r-2:r-2], h.shape[r-2], h.shape[r-1]
	return h, nil
}

// laReadSquare is laReadMatrices for a batch of square matrices.
func laReadSquare(op, what string, t *Tensor) (*laInput, error) {
	if t != nil && t.Err() == nil && t.Rank() >= 2 {
		if s := t.Shape(); s[len(s)-1] != s[len(s)-2] {
			return nil, errs.New("tensor", op, errs.ErrShape, "%s must be a batch of square matrices, have shape %v", what, s)
		}
	}
	return laReadMatrices(op, what, t)
}

// laSameKind checks that a and b share dtype and device.
func laSameKind(op string, a, b *laInput) error {
	if a.dev != b.dev {
		return errs.New("tensor", op, errs.ErrDevice, "operands on different devices: %s and %s (move one with To)", a.dev.Name(), b.dev.Name())
	}
	if a.dt != b.dt {
		return errs.New("tensor", op, errs.ErrDType, "dtypes differ: %v and %v (Cast one first)", a.dt, b.dt)
	}
	return nil
}

// laRHS describes the right-hand side b of Solve or Lstsq against a [..., m, n].
type laRHS struct {
	k        int   // columns of each right-hand side (1 for vectors)
	bBatch   []int // b's batch axes
	batch    []int // the broadcast batch
	outShape []int // the solution's shape
}

// laRHSShape applies torch.linalg.solve's rule: b is a batch of vectors
// [..., m] when it is 1-D or its shape is a's without the last axis, and a
// batch of matrices [..., m, k] otherwise.
func laRHSShape(op string, a, b *laInput) (laRHS, error) {
	var r laRHS
	rb := len(b.shape)
	vector := rb == 1 || (rb == len(a.shape)-1 && slices.Equal(b.shape, a.shape[:len(a.shape)-1]))
	switch {
	case rb == 0:
		return r, errs.New("tensor", op, errs.ErrShape, "b must have at least one axis: a %v, b %v", a.shape, b.shape)
	case vector:
		r.k, r.bBatch = 1, b.shape[:rb-1]
	case b.shape[rb-2] == a.m:
		r.k, r.bBatch = b.shape[rb-1], b.shape[:rb-2]
	}
	if vector && b.shape[rb-1] != a.m || !vector && (rb < 2 || b.shape[rb-2] != a.m) {
		return r, errs.New("tensor", op, errs.ErrShape, "b does not match a: a %v needs b [..., %d] or [..., %d, k], have %v", a.shape, a.m, a.m, b.shape)
	}
	batch, err := layout.BroadcastShapes(a.batch, r.bBatch)
	if err != nil {
		return r, errs.New("tensor", op, errs.ErrShape, "batch axes do not broadcast: a %v, b %v", a.shape, b.shape)
	}
	r.batch = batch
	r.outShape = append(slices.Clone(batch), a.n)
	if !vector {
		r.outShape = append(r.outShape, r.k)
	}
	return r, nil
}

// laLU factorises every matrix of x in place (P·L·U, partial pivoting, by
// luFactor: LAPACK's layout and pivots) and returns the pivots (n per
// matrix), whether each matrix is singular (an exactly zero pivot) and the
// index of the first singular one, or -1.
func laLU(x *laInput) (ipiv []int, singular []bool, bad int) {
	n := x.n
	ipiv, singular = make([]int, x.count()*n), make([]bool, x.count())
	if n == 0 {
		return ipiv, singular, -1
	}
	bad = laEach(x.count(), n*n*n, func(i int) bool {
		singular[i] = luFactor(x.mat(i), n, ipiv[i*n:(i+1)*n]) >= 0
		return !singular[i]
	})
	return ipiv, singular, bad
}

// laSVD computes the reduced SVD of every matrix of x: u (m x k), s (k)
// and vt (k x n) per matrix, k = min(m, n).
func laSVD(op string, x *laInput) (u, s, vt []float64, err error) {
	if bad := x.nonFinite(false); bad >= 0 {
		return nil, nil, nil, errs.New("tensor", op, errs.ErrValue, "%s holds NaN or Inf", x.name(bad))
	}
	m, n, k := x.m, x.n, min(x.m, x.n)
	u, s, vt = make([]float64, x.count()*m*k), make([]float64, x.count()*k), make([]float64, x.count()*k*n)
	if k == 0 || x.count() == 0 {
		return u, s, vt, nil
	}
	work := []float64{0}
	lapack64.Gesvd(lapack.SVDStore, lapack.SVDStore, laGeneral(m, n, x.mat(0)), laGeneral(m, k, u[:m*k]), laGeneral(k, n, vt[:k*n]), s[:k], work, -1)
	lwork := max(3*k+max(m, n), 5*k, int(work[0]))
	bad := laEach(x.count(), m*n*k, func(i int) bool {
		return lapack64.Gesvd(lapack.SVDStore, lapack.SVDStore, laGeneral(m, n, x.mat(i)),
			laGeneral(m, k, u[i*m*k:(i+1)*m*k]), laGeneral(k, n, vt[i*k*n:(i+1)*k*n]), s[i*k:(i+1)*k], make([]float64, lwork), lwork)
	})
	if bad >= 0 {
		return nil, nil, nil, errs.New("tensor", op, errs.ErrValue, "the SVD iteration did not converge for %s", x.name(bad))
	}
	return u, s, vt, nil
}

// laEach calls fn(i) for every i in [0, count), concurrently when the
// batch holds enough work (flops is about the work per call), and returns
// the smallest i for which fn returned false, or -1.
func laEach(count, flops int, fn func(i int) bool) int {
	bad := make([]bool, count)
	procs := 1
	if count > 1 && count*flops >= 1<<16 {
		procs = runtime.GOMAXPROCS(0)
	}
	par.For(count, procs, func(i int) { bad[i] = !fn(i) })
	return slices.Index(bad, true)
}

// laResult builds the result of op from float64 values: a tensor of dt
// (rounded once from float64 for F32) on dev.
func laResult(op string, dt dtype.DType, dev device.Device, data []float64, shape []int) *Tensor {
	var t *Tensor
	if dt == dtype.F64 {
		t = FromSlice(data, shape...)
	} else {
		f := make([]float32, len(data))
		for i, v := range data {
			f[i] = float32(v) // round to nearest even, as Cast
		}
		t = FromSlice(f, shape...)
	}
	if dev != t.Device() {
		d := t.To(dev)
		t.Release()
		t = d
	}
	return retag(op, t)
}

// laGeneral views data as a row-major r x c matrix.
func laGeneral(r, c int, data []float64) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: max(1, c), Data: data}
}

// laSymLower views data as a row-major symmetric n x n matrix stored in its
// lower triangle.
func laSymLower(n int, data []float64) blas64.Symmetric {
	return blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: max(1, n), Data: data}
}

// laBroadcastIndex maps flat indices of batch shape out to flat indices of
// batch shape in, which broadcasts to out.
func laBroadcastIndex(out, in []int) func(int) int {
	strides := make([]int, len(out)) // in's strides aligned to out's axes, 0 where in broadcasts
	s := 1
	for i := len(in) - 1; i >= 0; i-- {
		if in[i] != 1 {
			strides[len(out)-len(in)+i] = s
		}
		s *= in[i]
	}
	return func(f int) int {
		at := 0
		for ax := len(out) - 1; ax >= 0; ax-- {
			at += (f % out[ax]) * strides[ax]
			f /= out[ax]
		}
		return at
	}
}

func laUnravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for ax := len(shape) - 1; ax >= 0; ax-- {
		idx[ax] = i % shape[ax]
		i /= shape[ax]
	}
	return idx
}

func laProd(shape []int) int {
	p := 1
	for _, d := range shape {
		p *= d
	}
	return p
}

func laAbs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}
