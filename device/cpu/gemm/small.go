package gemm

import (
	"sync"
	"unsafe"
)

// Limits of the unpacked path.
const (
	// axpyMinN: the axpy form needs C rows at least this long to keep its
	// vectors full; below it the dot form runs. A kernel set may take the
	// axpy form from fewer columns (kernels.axpyN).
	axpyMinN = 32
)

// useSmall reports whether an m x n product is skinny enough for the
// unpacked path whatever its layout (unpacked adds the axpy form's rows for
// F32 and F64; the half-precision GEMM asks this alone). Below a few rows
// or columns most of each register tile would be padding, and packing the
// long operand costs as much as the product itself; the limits per kernel
// set come from measured crossovers.
func useSmall[T float](ks *kernels[T], m, n int) bool {
	return m < ks.skinnyM || n < ks.skinnyN
}

// unpacked reports whether F32 and F64 run an m x n product on the
// unpacked path: useSmall's shapes, and those with fewer than ks.axpyM
// rows whose B is not transposed and whose rows of C fill the axpy form's
// vectors. The axpy form reads B once per few rows of C, in place; the
// packed path first copies all of B into panels, which for a few dozen
// rows costs more than the product (axpyLimits has the measurements).
func unpacked[T float](ks *kernels[T], transB bool, m, n int) bool {
	return useSmall(ks, m, n) || (!transB && n >= ks.axpyColumns() && m < ks.axpyM)
}

// axpyColumns is the fewest columns of C for which an unpacked product
// with B in place takes the axpy form rather than the dot form.
func (ks *kernels[T]) axpyColumns() int {
	if ks.axpyN > 0 {
		return ks.axpyN
	}
	return axpyMinN
}

// smallJob is an unpacked product in dot form: c_ij = A row i . B column j,
// four at a time (dot4). The loops run so that the long operand is
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
	bt          []T // dot form: op(B) columns, contiguous rows of length k; nil: each goroutine gathers its own (run)
	ldbt        int
	byRows      bool // dot form: many rows (else many columns)
	parts       int  // chunks of work: row or column ranges of C
	chunks      shares
	out         [][16]T // per chunk: dot4 and dot4x4 results

	runFn func(w int) // j.run, bound once (jobs are pooled)
}

var (
	smalls32 sync.Pool
	smalls64 sync.Pool
)

func smallPool[T float]() *sync.Pool {
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		return &smalls32
	}
	return &smalls64
}

// bytesScale sets how many goroutines an unpacked product uses from the
// bytes of its operands (A and B): sqrt(bytes / bytesScale), or as many as
// workers gives for its multiply-adds if that is more. Those products are
// bound by the bytes they read rather than their multiply-adds (one or a
// few per element read), and the same trade as workers' (each goroutine
// saves its share of the reading, and costs a hand-over and a part of the
// final sum) puts the best count near the square root of the bytes. It is
// a variable so that the benchmarks can sweep it (BenchmarkSkinnyThreads).
// On 16 vCPUs of a Xeon (Emerald Rapids) with the operands in cache, GB/s:
// a 1x1024x1024 float32 GEMV (4 MiB) ran at 95-107 on four goroutines,
// 89-96 on eight and 59-62 on 16; its float64 twin (8 MiB) at 119-125 on
// eight, 104-106 on four and 87-91 on 16; 1x512x512 float32 (1 MiB) at
// 88-94 on two and 52-73 on one; 1x512x256 float32 (512 KiB) at 66-70 on
// one and 58-65 on two. 256 KiB gives them 4, 5, 2 and 1 goroutines.
var bytesScale = 256 << 10

// skinnyWorkers returns how many goroutines an unpacked m x n x k product
// of size-byte elements uses (see bytesScale).
func skinnyWorkers(m, n, k, size int) int {
	bytes := (float64(m)*float64(k) + float64(k)*float64(n)) * float64(size)
	return max(workers(m, n, k), scaledWorkers(bytes, float64(bytesScale)))
}

// small computes C = alpha*op(A)*op(B) + beta*C for a skinny product
// without packing, in the form whose long operand is read contiguously:
// axpy form (streamJob) when the long operand's rows run along the long
// side of C, dot form (smallJob) otherwise. Jobs and scratch are pooled, so
// a call allocates nothing in the steady state.
func small[T float](ks *kernels[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	ars, acs := lda, 1
	if transA {
		ars, acs = 1, lda
	}
	brs, bcs := ldb, 1
	if transB {
		brs, bcs = 1, ldb
	}
	var zero T
	procs := skinnyWorkers(m, n, k, int(unsafe.Sizeof(zero)))
	switch {
	case !transB && n >= ks.axpyColumns():
		// axpy form (m is the short side): stream B.
		sj := getStream[T]()
		*sj = streamJob[T]{ks: ks, r: m, lenL: n, k: k, long: b, ldl: ldb,
			coef: a, crs: ars, ccs: acs, out: c, ors: ldc, ocs: 1, alpha: alpha, beta: beta,
			acc: sj.acc, scratch: sj.scratch, pieces: sj.pieces, runFn: sj.runFn}
		sj.run(procs)
		putStream(sj)
		return
	case transA && m >= axpyMinN:
		// axpyT form (n is the short side): C^T = op(B)^T op(A)^T, whose
		// long operand is A's k x m storage; stream it.
		sj := getStream[T]()
		*sj = streamJob[T]{ks: ks, r: n, lenL: m, k: k, long: a, ldl: lda,
			coef: b, crs: bcs, ccs: brs, out: c, ors: 1, ocs: ldc, alpha: alpha, beta: beta,
			acc: sj.acc, scratch: sj.scratch, pieces: sj.pieces, runFn: sj.runFn}
		sj.run(procs)
		putStream(sj)
		return
	}

	// dot form.
	j, _ := smallPool[T]().Get().(*smallJob[T])
	if j == nil {
		j = new(smallJob[T])
		j.runFn = j.run
	}
	defer func() {
		j.a, j.b, j.c, j.bt, j.at = nil, nil, nil, nil, nil
		smallPool[T]().Put(j)
	}()
	j.ks, j.m, j.n, j.k = ks, m, n, k
	j.alpha, j.beta = alpha, beta
	j.a, j.b, j.c = a, b, c
	j.ars, j.acs, j.ldb, j.ldc = ars, acs, ldb, ldc
	j.at = nil
	// With several goroutines, cut the work into more chunks than
	// goroutines, claimed in turn: a goroutine that starts late then leaves
	// only a small tail to the others, instead of half the work.
	want := 1
	if procs > 1 {
		want = unitsPerProc * procs
	}
	j.byRows = m >= n
	if j.byRows {
		j.parts = min(want, ceilDiv(m, 4))
	} else {
		// Few rows: gather them once (when A is stored transposed) and
		// stream the columns of B past them.
		if transA {
			buf := getBuf[T](m * k)
			defer putBuf(buf)
			j.at = buf.data
			gatherColumns(ks, j.at, a, lda, k, m)
		}
		j.parts = min(want, ceilDiv(n, 4))
	}
	// The columns of op(B) must be contiguous: they are the rows of a
	// stored B^T, or a copy when B is untransposed (then n is small, so the
	// copy is too). When several goroutines split the rows of C, each
	// gathers a copy of its own (see run).
	j.bt, j.ldbt = b, ldb
	if !transB {
		j.bt, j.ldbt = nil, k
		if procs <= 1 || !j.byRows || j.parts <= 1 {
			buf := getBuf[T](n * k)
			defer putBuf(buf)
			j.bt = buf.data
			gatherColumns(ks, j.bt, b, ldb, k, n)
		}
	}
	if cap(j.out) < j.parts {
		j.out = make([][16]T, j.parts)
	}
	j.out = j.out[:j.parts]
	if procs <= 1 || j.parts <= 1 {
		for w := range j.parts {
			j.chunk(w, j.bt)
		}
		return
	}
	procs = min(procs, j.parts)
	j.chunks.reset(j.parts, procs)
	runTeam(procs, j.runFn)
}

// run is worker w's share: it claims and computes chunks until none are
// left. When the job has no bt it first gathers op(B)'s columns into a
// buffer of its own: a copy gathered by the caller would be rewritten on every call
// while the other cores hold the last call's lines, and taking each line
// back made the caller's gather 3.0 µs of a 47 µs 1024x4x1024 float32
// product on two cores, against 0.23 µs for a gather into a buffer only
// one core touches.
func (j *smallJob[T]) run(w int) {
	bt := j.bt
	if bt == nil {
		buf := getBuf[T](j.n * j.k)
		defer putBuf(buf)
		bt = buf.data
		gatherColumns(j.ks, bt, j.b, j.ldb, j.k, j.n)
	}
	for {
		c, ok := j.chunks.take(w)
		if !ok {
			return
		}
		j.chunk(c, bt)
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

// store writes c_ij = beta*c_ij + alpha*d, without reading c_ij when beta
// is 0.
func (j *smallJob[T]) store(i, jj int, d T) {
	cp := &j.c[i*j.ldc+jj]
	if j.beta == 0 {
		*cp = j.alpha * d
	} else {
		*cp = j.beta**cp + j.alpha*d
	}
}

// rowsA returns where the rows of op(A) lie contiguously, row i at
// base[i*stride:]: in A itself or in the gathered copy. ok is false when
// they do not (A transposed and not gathered).
func (j *smallJob[T]) rowsA() (base []T, stride int, ok bool) {
	switch {
	case j.acs == 1:
		return j.a, j.ars, true
	case j.at != nil:
		return j.at, j.k, true
	}
	return nil, 0, false
}

// block4 computes the 4 x 4 block of C at rows i + q*di and columns jj +
// r*dj (q, r < 4) from four rows of op(A) (contiguous, at base[i*stride:],
// di*stride apart) and four columns of op(B) (rows of bt, dj*ldbt apart),
// with dot4x4 where the kernels have it (which, unless pf is nil, fetches
// the first lines of the four rows at pf, ld apart, ahead), else dot4 per
// row.
func (j *smallJob[T]) block4(d *[16]T, bt, base []T, stride, i, di, jj, dj int, pf *T, ld int) {
	if j.ks.dot4x4 != nil {
		// dot4x4's x is the operand that streams (its y may be read twice):
		// A's rows when they are the many, else bt's, with d transposed.
		if j.byRows {
			j.ks.dot4x4(j.k, &base[i*stride], di*stride, &bt[jj*j.ldbt], dj*j.ldbt, d, pf, ld)
		} else {
			j.ks.dot4x4(j.k, &bt[jj*j.ldbt], dj*j.ldbt, &base[i*stride], di*stride, d, pf, ld)
		}
		qs, rs := 4, 1 // d[q*qs+r*rs] is C's (i+q*di, jj+r*dj)
		if !j.byRows {
			qs, rs = 1, 4
		}
		for q := range 4 {
			for r := range 4 {
				j.store(i+q*di, jj+r*dj, d[q*qs+r*rs])
			}
		}
		return
	}
	d4 := (*[4]T)(d[:4])
	for q := range 4 {
		j.ks.dot4(j.k, &base[(i+q*di)*stride], &bt[jj*j.ldbt], dj*j.ldbt, d4)
		for r, v := range d4 {
			j.store(i+q*di, jj+r*dj, v)
		}
	}
}

// chunk computes part w of the product, with op(B)'s columns as the rows
// of bt: a range of rows of C (byRows) or of columns, in 4 x 4 blocks where
// both sides allow, then the remainders. The streamed rows (of A, or of
// bt) go four at a time, one from each quarter of the range: group g is
// rows g, g+q, g+2q and g+3q of the range's 4q, so memory sees four long
// sequential streams, each moving on by a row per group, rather than four
// neighbouring rows of one short stretch. On the Zen 5 EPYC, with dot4x4Z
// fetching each stream 1 KiB ahead (dotFetchAhead), 1024x4x1024 and its
// transposed twins from memory ran at 0.75-0.83x of a read against
// 0.61-0.69x with neighbouring rows; the GEMVs (dot4 on each group) ran
// alike either way (docs/benchmarks.md, "Four streams for the dot form").
func (j *smallJob[T]) chunk(w int, bt []T) {
	d := &j.out[w]
	d4 := (*[4]T)(d[:4])
	base, stride, contiguous := j.rowsA()
	if j.byRows {
		i0, i1 := w*j.m/j.parts, (w+1)*j.m/j.parts
		if contiguous {
			// Four rows of A at a time, q apart: against four columns of
			// B, then each remaining column (GEMV: n = 1) against the
			// four rows.
			q := (i1 - i0) / 4
			for i := i0; i < i0+q; i++ {
				// The first block fetches the first lines of the next
				// four rows ahead.
				var pf *T
				if i+1 < i0+q {
					pf = &base[(i+1)*stride]
				}
				jj := 0
				for ; jj+4 <= j.n; jj += 4 {
					j.block4(d, bt, base, stride, i, q, jj, 1, pf, q*stride)
					pf = nil
				}
				for ; jj < j.n; jj++ {
					j.ks.dot4(j.k, &bt[jj*j.ldbt], &base[i*stride], q*stride, d4)
					for r, v := range d4 {
						j.store(i+r*q, jj, v)
					}
				}
			}
			i0 += 4 * q
		}
		var buf []T
		if !contiguous {
			g := getBuf[T](j.k)
			defer putBuf(g)
			buf = g.data
		}
		for i := i0; i < i1; i++ {
			ar := &j.rowA(i, buf)[0]
			jj := 0
			for ; jj+4 <= j.n; jj += 4 {
				j.ks.dot4(j.k, ar, &bt[jj*j.ldbt], j.ldbt, d4)
				for r, v := range d4 {
					j.store(i, jj+r, v)
				}
			}
			for ; jj < j.n; jj++ {
				j.store(i, jj, j.ks.dot(j.k, ar, &bt[jj*j.ldbt]))
			}
		}
		return
	}
	// Few rows (contiguous: in place or gathered), a range of columns.
	j0, j1 := w*j.n/j.parts, (w+1)*j.n/j.parts
	// B's columns (rows of bt) stream, four at a time, q apart; the first
	// block fetches the first lines of the next four ahead.
	q := (j1 - j0) / 4
	for jj := j0; jj < j0+q; jj++ {
		var pf *T
		if jj+1 < j0+q {
			pf = &bt[(jj+1)*j.ldbt]
		}
		i := 0
		for ; i+4 <= j.m; i += 4 {
			j.block4(d, bt, base, stride, i, 1, jj, q, pf, q*j.ldbt)
			pf = nil
		}
		for ; i < j.m; i++ {
			j.ks.dot4(j.k, &base[i*stride], &bt[jj*j.ldbt], q*j.ldbt, d4)
			for r, v := range d4 {
				j.store(i, jj+r*q, v)
			}
		}
	}
	jj := j0 + 4*q
	for ; jj < j1; jj++ {
		bc := &bt[jj*j.ldbt]
		for i := range j.m {
			j.store(i, jj, j.ks.dot(j.k, &base[i*stride], bc))
		}
	}
}

// gatherColumns writes the cols columns of the rows x cols matrix src
// (leading dimension ld) as the rows of dst, one after another: B's
// columns (on the caller, or on each goroutine into a copy of its own), or
// the few rows of an A stored transposed. Four columns at a time go through
// the kernels' gather4 where they have it, the rest in Go, four columns
// per pass over src, each a slice of its own so that the writes need no
// bounds checks. 1024 x 4 float32 on a Zen 5 EPYC: 0.23 against 1.09 µs
// with both buffers in the caller's cache, 3.0 against 4.3 µs in a
// two-core product run again and again, where the other core read the
// last call's dst and each line written must first be taken back from it.
func gatherColumns[T float](ks *kernels[T], dst, src []T, ld, rows, cols int) {
	j := 0
	for ; j+4 <= cols; j += 4 {
		p0 := 0
		if ks.gather4 != nil && rows > 0 {
			p0 = ks.gather4(rows, &src[j], ld, &dst[j*rows], rows)
		}
		d0 := dst[j*rows : (j+1)*rows]
		d1 := dst[(j+1)*rows : (j+2)*rows][:len(d0)]
		d2 := dst[(j+2)*rows : (j+3)*rows][:len(d0)]
		d3 := dst[(j+3)*rows : (j+4)*rows][:len(d0)]
		for p := p0; p < len(d0); p++ {
			r := src[p*ld+j : p*ld+j+4 : p*ld+j+4]
			d0[p], d1[p], d2[p], d3[p] = r[0], r[1], r[2], r[3]
		}
	}
	for ; j < cols; j++ {
		d := dst[j*rows : (j+1)*rows]
		for p := range d {
			d[p] = src[p*ld+j]
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
