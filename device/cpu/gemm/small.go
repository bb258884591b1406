package gemm

// Limits of the unpacked path.
const (
	// axpyMinN: the axpy form needs C rows at least this long to keep its
	// vectors full; below it the dot form runs.
	axpyMinN = 32
	// smallColChunk is the fewest columns one goroutine of the axpy form
	// takes.
	smallColChunk = 64
)

// useSmall reports whether an m x n product should take the unpacked path.
// Below a few rows or columns most of each register tile would be padding,
// and packing the long operand costs as much as the product itself; the
// limits per kernel set come from measured crossovers.
func useSmall[T float](ks *kernels[T], m, n int) bool {
	return m < ks.skinnyM || n < ks.skinnyN
}

// smallJob is one unpacked product: C = alpha*op(A)*op(B) + beta*C computed
// with vectorised axpy (C row += a_ip * B row) or dot (c_ij = A row . B
// column) kernels, whichever reads contiguous memory for the layouts. Large
// skinny products are split over goroutines by rows or columns of C.
type smallJob[T float] struct {
	ks          *kernels[T]
	transA      bool
	m, n, k     int
	alpha, beta T
	a, b, c     []T
	lda, ldb    int
	ldc         int
	bt          []T // columns of op(B) as contiguous rows (dot form)
	ldbt        int
	axpyForm    bool
	parts       int  // goroutines
	byRows      bool // dot form: goroutines split rows (else columns)
	width       int  // axpy form: columns per goroutine
}

func small[T float](ks *kernels[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	j := smallJob[T]{ks: ks, transA: transA, m: m, n: n, k: k, alpha: alpha, beta: beta,
		a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc}
	procs := workers(m, n, k)
	if !transB && n >= axpyMinN {
		j.axpyForm = true
		// Goroutines take column ranges, so each reads only its part of B.
		chunks := min(procs, ceilDiv(n, smallColChunk))
		j.width = roundUp(ceilDiv(n, chunks), 16)
		j.parts = ceilDiv(n, j.width)
	} else {
		// The dot form needs the columns of op(B) contiguous: they are rows
		// of the stored B^T, or a copy when B is stored untransposed (then n
		// is small, so the copy is too).
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
		// Split rows when there are enough, else columns.
		j.byRows = m >= procs
		j.parts = procs
		if !j.byRows {
			j.parts = min(procs, n)
		}
	}
	if j.parts <= 1 {
		j.run(0)
		return
	}
	parallel(j.parts, j.run)
}

// rowA returns row i of op(A) as a contiguous k-vector: in place, or
// gathered into buf when A is stored transposed.
func (j *smallJob[T]) rowA(i int, buf []T) []T {
	if !j.transA {
		return j.a[i*j.lda : i*j.lda+j.k]
	}
	for p := range buf {
		buf[p] = j.a[p*j.lda+i]
	}
	return buf
}

// run computes part w of the product.
func (j *smallJob[T]) run(w int) {
	var buf []T
	if j.transA {
		g := getBuf[T](j.k)
		defer putBuf(g)
		buf = g.data
	}
	if j.axpyForm {
		// C row i = beta*C row i + sum_p (alpha*a_ip) * B row p, on columns
		// [j0, j0+nw).
		j0 := w * j.width
		nw := min(j.width, j.n-j0)
		for i := range j.m {
			ar := j.rowA(i, buf)
			crow := j.c[i*j.ldc+j0 : i*j.ldc+j0+nw]
			scaleRow(crow, j.beta)
			for p, v := range ar {
				j.ks.axpy(nw, j.alpha*v, &j.b[p*j.ldb+j0], &crow[0])
			}
		}
		return
	}
	// c_ij = beta*c_ij + alpha * (A row i . B column j).
	i0, i1, j0, j1 := 0, j.m, 0, j.n
	if j.byRows {
		i0, i1 = w*j.m/j.parts, (w+1)*j.m/j.parts
	} else {
		j0, j1 = w*j.n/j.parts, (w+1)*j.n/j.parts
	}
	for i := i0; i < i1; i++ {
		ar := j.rowA(i, buf)
		crow := j.c[i*j.ldc+j0 : i*j.ldc+j1]
		for jj := range crow {
			d := j.alpha * j.ks.dot(j.k, &ar[0], &j.bt[(j0+jj)*j.ldbt])
			if j.beta == 0 {
				crow[jj] = d
			} else {
				crow[jj] = j.beta*crow[jj] + d
			}
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
