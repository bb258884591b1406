package gemm

import (
	"sync"
	"unsafe"
)

// streamJob is the skinny product in axpy form, O = alpha * S^T L + beta*O,
// where L is long (k rows of length lenL, contiguous, leading dimension ldl)
// and there are few output rows r:
//
//   - few rows of C with B untransposed: O = C, L = B, s(i,p) = A(i,p);
//   - few columns of C with A transposed: O = C^T, L = A's k x m storage,
//     s(j,p) = op(B)(p,j).
//
// L is streamed once: in strips of columns whose four output rows stay in
// registers (axpyStrip) where the kernels have it and there are at least
// stripMinRows output rows (see stripShape) and not just four on rows of
// L of at most axpyRowBytes (see wholeRows), else four rows of L at a
// time (axpy4, so each output vector is loaded and stored once per four
// rows; eight at a time where the kernels' axpy4x4 takes pairs of groups,
// axpy8x4Z on AVX-512, axpy8x4ZFetch on Intel's) in blocks of lenL that
// keep the r output rows in L1. Goroutines split the k rows of L (each
// then reads one contiguous stretch of memory).
// When the output rows are contiguous (O = C) the caller's goroutine
// accumulates straight into them and the others into private buffers
// added in at the end; otherwise (O = C^T) every goroutine accumulates
// into a private buffer and the sum is written to C at the end.
type streamJob[T float] struct {
	ks       *kernels[T]
	r, lenL  int
	k        int
	long     []T
	ldl      int
	coef     []T
	crs, ccs int // s(rr,p) = coef[rr*crs+p*ccs]
	out      []T
	ors, ocs int // O(rr,x) = out[rr*ors+x*ocs]
	alpha    T
	beta     T
	chunks   int // pieces of the k range, claimed in turn
	pchunk   int // rows of L per piece (a multiple of 4)
	pieces   shares
	acc      []*buffer[T]  // per goroutine: r x lenL partial sums, nil if it never ran
	scratch  []paged[[4]T] // per goroutine: scaled coefficients for axpy4
	direct   bool          // O = C: goroutine 0 accumulates into out, the others into acc, all scaled by alpha

	runFn func(w int) // j.work, bound once (jobs are pooled)
}

var (
	streams32 sync.Pool
	streams64 sync.Pool
)

// getStream returns a pooled streamJob, so that a call allocates nothing in
// the steady state.
func getStream[T float]() *streamJob[T] {
	p := &streams64
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		p = &streams32
	}
	j, _ := p.Get().(*streamJob[T])
	if j == nil {
		j = new(streamJob[T])
		j.runFn = j.work
	}
	return j
}

// putStream drops the job's references to the operands and pools it.
func putStream[T float](j *streamJob[T]) {
	j.long, j.coef, j.out = nil, nil, nil
	p := &streams64
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		p = &streams32
	}
	p.Put(j)
}

// streamMinRows is the fewest rows of L a piece of the k range gets.
const streamMinRows = 32

// streamBlockBytes is the size of the block of the r output rows kept in L1
// while L streams past: half of a 32 KiB L1, the rest for L.
const streamBlockBytes = 16384

func (j *streamJob[T]) run(procs int) {
	j.chunks = 1
	if procs > 1 {
		j.chunks = min(unitsPerProc*procs, max(1, j.k/streamMinRows))
	}
	j.pchunk = roundUp(ceilDiv(j.k, j.chunks), 4)
	j.chunks = ceilDiv(j.k, j.pchunk)
	procs = min(procs, j.chunks)
	j.pieces.reset(j.chunks, procs)
	if cap(j.scratch) < procs {
		j.scratch = make([]paged[[4]T], procs)
	}
	j.scratch = j.scratch[:procs]

	j.direct = j.ocs == 1
	if j.direct {
		// O = beta*O, then O += (alpha*s) L.
		for rr := range j.r {
			scaleRow(j.out[rr*j.ors:rr*j.ors+j.lenL], j.beta)
		}
		if procs <= 1 {
			j.accumulate(0, &j.scratch[0].v, j.out, j.ors, j.alpha)
			return
		}
	}
	if cap(j.acc) < procs {
		j.acc = make([]*buffer[T], procs)
	}
	j.acc = j.acc[:procs]
	clear(j.acc)
	runTeam(procs, j.runFn)
	j.combine()
	for i, b := range j.acc {
		putBuf(b)
		j.acc[i] = nil
	}
}

// work is goroutine w's share: pieces of the k range accumulated into out
// (goroutine 0 when direct) or into its own buffer.
func (j *streamJob[T]) work(w int) {
	dst, ld, scale := j.out, j.ors, j.alpha // the caller, when direct
	if !j.direct || w > 0 {
		buf := getBuf[T](j.r * j.lenL)
		j.acc[w] = buf
		clear(buf.data)
		dst, ld = buf.data, j.lenL
		if !j.direct {
			scale = 1 // combine applies alpha and beta
		}
	}
	for {
		c, ok := j.pieces.take(w)
		if !ok {
			return
		}
		j.accumulate(c, &j.scratch[w].v, dst, ld, scale)
	}
}

// stripPrefetchRows is how many rows of L ahead the strip kernel fetches:
// with L in L2 four rows ahead ran fastest on a Sapphire Rapids class Xeon
// (83 GB/s of L against 80 with two and 69 with eight; 71 without); with L
// in L3, sixteen or more rows ahead ran slower. On a Zen 5 EPYC no
// prefetch ran 2-16 % faster with L in cache and 4-11 % slower with it in
// memory, and prefetching farther ahead was slower in both.
const stripPrefetchRows = 4

// accumulate adds (scale*s) L over rows [c*pchunk, (c+1)*pchunk) of L into
// acc, whose output row rr starts at acc[rr*ld]: whole strips of four
// output rows with the strip kernel where the kernels have it, the
// product has at least stripMinRows rows and wholeRows is false, the rest
// (remaining rows and columns) four rows of L at a time with axpy4x4 and
// axpy4. s holds the axpy kernels' scaled coefficients.
func (j *streamJob[T]) accumulate(c int, s *[4]T, acc []T, ld int, scale T) {
	p0 := c * j.pchunk
	p1 := min(p0+j.pchunk, j.k)
	rows, cols := 0, 0 // what the strip kernel covers
	if j.ks.axpyStrip != nil && j.r >= j.ks.stripMinRows && j.lenL >= j.ks.stripWidth && !j.wholeRows() {
		rows, cols = j.r&^3, j.lenL-j.lenL%j.ks.stripWidth
		j.strips(p0, p1, rows, cols, acc, ld, scale)
	}
	j.axpyRows(p0, p1, 0, rows, cols, j.lenL, s, acc, ld, scale)
	j.axpyRows(p0, p1, rows, j.r, 0, j.lenL, s, acc, ld, scale)
}

// wholeRows reports whether the product's four output rows take whole rows
// of L in axpy4x4 rather than strips: where the kernels set axpyRowBytes
// and a row of L takes no more.
func (j *streamJob[T]) wholeRows() bool {
	var zero T
	return j.r == 4 && j.lenL*int(unsafe.Sizeof(zero)) <= j.ks.axpyRowBytes
}

// strips runs the strip kernel over output rows [0, rows) (a multiple of
// four) and columns [0, cols) (a multiple of the strip width), rows
// [p0, p1) of L.
func (j *streamJob[T]) strips(p0, p1, rows, cols int, acc []T, ld int, scale T) {
	w := j.ks.stripWidth
	pf := stripPrefetchRows * j.ldl * int(unsafe.Sizeof(scale))
	for pb := p0; pb < p1; pb += j.ks.stripRows {
		n := min(j.ks.stripRows, p1-pb)
		for x := 0; x < cols; x += w {
			for rr := 0; rr < rows; rr += 4 {
				j.ks.axpyStrip(n, &j.coef[rr*j.crs+pb*j.ccs], j.ccs, j.crs, &j.long[pb*j.ldl+x], j.ldl, &acc[rr*ld+x], ld, pf, scale)
			}
		}
	}
}

// axpyRows adds (scale*s) L over rows [p0, p1) of L into output rows
// [r0, r1) and columns [x0, x1) of acc, four rows of L at a time: into
// four output rows at once with axpy4x4 where the kernels have it (all the
// groups of four rows of L in one call), else row by row with axpy4, in
// column blocks that keep the output rows in L1. Each output value takes
// the rows of L in order either way.
func (j *streamJob[T]) axpyRows(p0, p1, r0, r1, x0, x1 int, s *[4]T, acc []T, ld int, scale T) {
	if r0 >= r1 || x0 >= x1 {
		return
	}
	var zero T
	blk := max(64, streamBlockBytes/((r1-r0)*int(unsafe.Sizeof(zero))))
	groups := (p1 - p0) / 4
	pEnd := p0 + 4*groups // rows [pEnd, p1) go one at a time
	for lb := x0; lb < x1; lb += blk {
		bl := min(blk, x1-lb)
		rr := r0
		if j.ks.axpy4x4 != nil && groups > 0 {
			for ; rr+4 <= r1; rr += 4 {
				j.ks.axpy4x4(bl, groups, &j.coef[rr*j.crs+p0*j.ccs], j.ccs, j.crs, scale, &j.long[p0*j.ldl+lb], j.ldl, &acc[rr*ld+lb], ld)
			}
		}
		for p := p0; p < pEnd; p += 4 {
			for q := rr; q < r1; q++ {
				for t := range 4 {
					s[t] = scale * j.coef[q*j.crs+(p+t)*j.ccs]
				}
				j.ks.axpy4(bl, s, &j.long[p*j.ldl+lb], j.ldl, &acc[q*ld+lb])
			}
		}
		for p := pEnd; p < p1; p++ {
			for q := r0; q < r1; q++ {
				j.ks.axpy(bl, scale*j.coef[q*j.crs+p*j.ccs], &j.long[p*j.ldl+lb], &acc[q*ld+lb])
			}
		}
	}
}

// combine finishes the product from the goroutines' buffers: when direct,
// it adds them (already scaled by alpha) to out; otherwise it computes
// O = alpha * their sum + beta*O, writing without reading O when beta is 0.
func (j *streamJob[T]) combine() {
	if j.direct {
		for _, b := range j.acc[1:] {
			if b == nil {
				continue
			}
			for rr := range j.r {
				j.ks.axpy(j.lenL, 1, &b.data[rr*j.lenL], &j.out[rr*j.ors])
			}
		}
		return
	}
	total := j.acc[0].data[:j.r*j.lenL] // worker 0 is the caller: it ran
	for _, b := range j.acc[1:] {
		if b != nil {
			j.ks.axpy(len(total), 1, &b.data[0], &total[0])
		}
	}
	// O is C^T (ors == 1): walk C row by row.
	alpha, beta := j.alpha, j.beta
	for x := range j.lenL {
		o := j.out[x*j.ocs : x*j.ocs+j.r]
		for rr := range o {
			v := total[rr*j.lenL+x]
			if beta == 0 {
				o[rr] = alpha * v
			} else {
				o[rr] = beta*o[rr] + alpha*v
			}
		}
	}
}
