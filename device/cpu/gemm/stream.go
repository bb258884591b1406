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
// L is streamed once, four rows at a time (axpy4, so each output vector is
// loaded and stored once per four rows), in blocks of lenL that keep the r
// output rows in L1. Goroutines split the k rows of L (each then reads one
// contiguous stretch of memory) and accumulate into private buffers that
// are summed at the end; on one goroutine the output is accumulated in
// place when it is contiguous.
type streamJob[T float] struct {
	ks        *kernels[T]
	r, lenL   int
	k         int
	long      []T
	ldl       int
	coef      []T
	crs, ccs  int // s(rr,p) = coef[rr*crs+p*ccs]
	out       []T
	ors, ocs  int // O(rr,x) = out[rr*ors+x*ocs]
	alpha     T
	beta      T
	chunks    int // pieces of the k range, claimed in turn
	pchunk    int // rows of L per piece (a multiple of 4)
	pieces    shares
	acc       []*buffer[T] // per goroutine: r x lenL partial sums, nil if it never ran
	scratch   [][16]T      // per goroutine: scaled coefficients for axpy4 and axpy4x4
	accDirect bool         // one goroutine, accumulate straight into out

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
		j.scratch = make([][16]T, procs)
	}
	j.scratch = j.scratch[:procs]

	if procs <= 1 && j.ocs == 1 {
		// In place: O = beta*O, then O += (alpha*s) L.
		j.accDirect = true
		for rr := range j.r {
			scaleRow(j.out[rr*j.ors:rr*j.ors+j.lenL], j.beta)
		}
		j.accumulate(0, &j.scratch[0], j.out, j.ors, j.alpha)
		return
	}
	j.accDirect = false
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

// work is goroutine w's share: pieces of the k range accumulated into its
// own buffer.
func (j *streamJob[T]) work(w int) {
	buf := getBuf[T](j.r * j.lenL)
	j.acc[w] = buf
	clear(buf.data)
	for {
		c, ok := j.pieces.take(w)
		if !ok {
			return
		}
		j.accumulate(c, &j.scratch[w], buf.data, j.lenL, 1)
	}
}

// accumulate adds (scale*s) L over rows [c*pchunk, (c+1)*pchunk) of L into
// acc, whose output row rr starts at acc[rr*ld], four rows of L at a time:
// into four output rows at once with axpy4x4 where the kernels have it,
// else row by row with axpy4. s holds the scaled coefficients.
func (j *streamJob[T]) accumulate(c int, s *[16]T, acc []T, ld int, scale T) {
	var zero T
	blk := max(64, streamBlockBytes/(j.r*int(unsafe.Sizeof(zero))))
	p0 := c * j.pchunk
	p1 := min(p0+j.pchunk, j.k)
	s4 := (*[4]T)(s[:4])
	for lb := 0; lb < j.lenL; lb += blk {
		bl := min(blk, j.lenL-lb)
		p := p0
		for ; p+4 <= p1; p += 4 {
			rr := 0
			if j.ks.axpy4x4 != nil {
				for ; rr+4 <= j.r; rr += 4 {
					for q := range 4 {
						for t := range 4 {
							s[q*4+t] = scale * j.coef[(rr+q)*j.crs+(p+t)*j.ccs]
						}
					}
					j.ks.axpy4x4(bl, s, &j.long[p*j.ldl+lb], j.ldl, &acc[rr*ld+lb], ld)
				}
			}
			for ; rr < j.r; rr++ {
				for t := range 4 {
					s4[t] = scale * j.coef[rr*j.crs+(p+t)*j.ccs]
				}
				j.ks.axpy4(bl, s4, &j.long[p*j.ldl+lb], j.ldl, &acc[rr*ld+lb])
			}
		}
		for ; p < p1; p++ {
			for rr := range j.r {
				j.ks.axpy(bl, scale*j.coef[rr*j.crs+p*j.ccs], &j.long[p*j.ldl+lb], &acc[rr*ld+lb])
			}
		}
	}
}

// combine computes O = alpha * sum of the partial sums + beta*O, writing
// without reading O when beta is 0.
func (j *streamJob[T]) combine() {
	total := j.acc[0].data[:j.r*j.lenL] // worker 0 is the caller: it ran
	for _, b := range j.acc[1:] {
		if b != nil {
			j.ks.axpy(len(total), 1, &b.data[0], &total[0])
		}
	}
	alpha, beta := j.alpha, j.beta
	if j.ocs == 1 {
		for rr := range j.r {
			o := j.out[rr*j.ors : rr*j.ors+j.lenL]
			v := total[rr*j.lenL : (rr+1)*j.lenL]
			if beta == 0 {
				for x := range o {
					o[x] = alpha * v[x]
				}
			} else {
				for x := range o {
					o[x] = beta*o[x] + alpha*v[x]
				}
			}
		}
		return
	}
	// O is C^T (ors == 1): walk C row by row.
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
