package gemm

import (
	"sync/atomic"

	"github.com/tessera-go/tessera/internal/par"
)

// Limits of the unpacked path.
const (
	// axpyMinN: the axpy form needs C rows at least this long to keep its
	// vectors full; below it the dot form runs.
	axpyMinN = 32
)

// useSmall reports whether an m x n product should take the unpacked path.
// Below a few rows or columns most of each register tile would be padding,
// and packing the long operand costs as much as the product itself; the
// limits per kernel set come from measured crossovers.
func useSmall[T float](ks *kernels[T], m, n int) bool {
	return m < ks.skinnyM || n < ks.skinnyN
}

// smallJob is an unpacked product in dot form: c_ij = A row i . B column j,
// four columns at a time (dot4). The loops run so that the long operand is
// streamed once while the short one stays in cache, and large products are
// split over goroutines along the long dimension of C.
type smallJob[T float] struct {
	ks          *kernels[T]
	m, n, k     int
	alpha, beta T
	a, b, c     []T
	ars, acs    int // element (i,p) of op(A) is a[i*ars+p*acs]
	ldb, ldc    int
	at          []T // dot form, few rows: op(A) rows, contiguous
	bt          []T // dot form: op(B) columns, contiguous rows of length k
	ldbt        int
	brs, bcs    int  // element (p,j) of op(B) is b[p*brs+j*bcs]
	byRows      bool // dot form: many rows (else many columns)
	parts       int  // chunks of work: row or column ranges of C
	next        atomic.Int64
}

// small computes C = alpha*op(A)*op(B) + beta*C for a skinny product
// without packing, in the form whose long operand is read contiguously:
// axpy form (streamJob) when the long operand's rows run along the long
// side of C, dot form (smallJob) otherwise.
func small[T float](ks *kernels[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	j := smallJob[T]{ks: ks, m: m, n: n, k: k, alpha: alpha, beta: beta,
		a: a, b: b, c: c, ars: lda, acs: 1, ldb: ldb, ldc: ldc}
	if transA {
		j.ars, j.acs = 1, lda
	}
	j.brs, j.bcs = ldb, 1
	if transB {
		j.brs, j.bcs = 1, ldb
	}
	procs := workers(m, n, k)
	// With several goroutines, cut the work into more chunks than
	// goroutines, claimed in turn: a goroutine that starts late then leaves
	// only a small tail to the others, instead of half the work.
	want := 1
	if procs > 1 {
		want = unitsPerProc * procs
	}
	switch {
	case !transB && n >= axpyMinN:
		// axpy form (m is the short side): stream B.
		sj := streamJob[T]{ks: ks, r: m, lenL: n, k: k, long: b, ldl: ldb,
			coef: a, crs: j.ars, ccs: j.acs, out: c, ors: ldc, ocs: 1, alpha: alpha, beta: beta}
		sj.run(procs)
		return
	case transA && m >= axpyMinN:
		// axpyT form (n is the short side): C^T = op(B)^T op(A)^T, whose
		// long operand is A's k x m storage; stream it.
		sj := streamJob[T]{ks: ks, r: n, lenL: m, k: k, long: a, ldl: lda,
			coef: b, crs: j.bcs, ccs: j.brs, out: c, ors: 1, ocs: ldc, alpha: alpha, beta: beta}
		sj.run(procs)
		return
	default:
		// dot form. The columns of op(B) must be contiguous: they are the
		// rows of a stored B^T, or a copy when B is untransposed (then n is
		// small, so the copy is too).
		j.bt, j.ldbt = b, ldb
		if !transB {
			buf := getBuf[T](n * k)
			defer putBuf(buf)
			j.bt, j.ldbt = buf.data, k
			for p := range k {
				brow := b[p*ldb : p*ldb+n]
				for jj, v := range brow {
					j.bt[jj*k+p] = v
				}
			}
		}
		j.byRows = m >= n
		if j.byRows {
			j.parts = min(want, m)
		} else {
			// Few rows: gather them once (when A is stored transposed) and
			// stream the columns of B past them.
			if transA {
				buf := getBuf[T](m * k)
				defer putBuf(buf)
				j.at = buf.data
				for i := range m {
					for p := range k {
						j.at[i*k+p] = a[p*lda+i]
					}
				}
			}
			j.parts = min(want, ceilDiv(n, 4))
		}
	}
	if procs <= 1 || j.parts <= 1 {
		for w := range j.parts {
			j.chunk(w)
		}
		return
	}
	par.Run(min(procs, j.parts), j.run)
}

// run claims and computes chunks until none are left.
func (j *smallJob[T]) run(int) {
	for {
		w := int(j.next.Add(1) - 1)
		if w >= j.parts {
			return
		}
		j.chunk(w)
	}
}

// rowA returns row i of op(A) as a contiguous k-vector: in place, gathered
// earlier into at, or gathered now into buf.
func (j *smallJob[T]) rowA(i int, buf []T) []T {
	switch {
	case j.acs == 1:
		return j.a[i*j.ars : i*j.ars+j.k]
	case j.at != nil:
		return j.at[i*j.k : (i+1)*j.k]
	}
	for p := range buf {
		buf[p] = j.a[i+p*j.acs]
	}
	return buf
}

// chunk computes part w of the product.
func (j *smallJob[T]) chunk(w int) {
	// c_ij = beta*c_ij + alpha * (A row i . B column j).
	store := func(i, jj int, d T) {
		cp := &j.c[i*j.ldc+jj]
		if j.beta == 0 {
			*cp = j.alpha * d
		} else {
			*cp = j.beta**cp + j.alpha*d
		}
	}
	if j.byRows {
		var buf []T
		if j.acs != 1 {
			g := getBuf[T](j.k)
			defer putBuf(g)
			buf = g.data
		}
		for i := w * j.m / j.parts; i < (w+1)*j.m/j.parts; i++ {
			ar := &j.rowA(i, buf)[0]
			jj := 0
			for ; jj+4 <= j.n; jj += 4 {
				var d [4]T
				j.ks.dot4(j.k, ar, &j.bt[jj*j.ldbt], j.ldbt, &d)
				for r, v := range d {
					store(i, jj+r, v)
				}
			}
			for ; jj < j.n; jj++ {
				store(i, jj, j.ks.dot(j.k, ar, &j.bt[jj*j.ldbt]))
			}
		}
		return
	}
	j0, j1 := w*j.n/j.parts, (w+1)*j.n/j.parts
	jj := j0
	for ; jj+4 <= j1; jj += 4 {
		bc := &j.bt[jj*j.ldbt]
		for i := range j.m {
			var d [4]T
			j.ks.dot4(j.k, &j.rowA(i, nil)[0], bc, j.ldbt, &d)
			for r, v := range d {
				store(i, jj+r, v)
			}
		}
	}
	for ; jj < j1; jj++ {
		bc := &j.bt[jj*j.ldbt]
		for i := range j.m {
			store(i, jj, j.ks.dot(j.k, &j.rowA(i, nil)[0], bc))
		}
	}
}

// scaleRow computes row = beta*row, writing zeros without reading when beta
// is 0.
func scaleRow[T float](row []T, beta T) {
	switch beta {
	case 0:
		clear(row)
	case 1:
	default:
		for j := range row {
			row[j] *= beta
		}
	}
}
