package gemm

import (
	"sync/atomic"
	"unsafe"

	"github.com/tessera-go/tessera/internal/par"
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
	next      atomic.Int64
	acc       []*buffer[T] // per goroutine: r x lenL partial sums
	accDirect bool         // one goroutine, accumulate straight into out
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

	if procs <= 1 && j.ocs == 1 {
		// In place: O = beta*O, then O += (alpha*s) L.
		j.accDirect = true
		for rr := range j.r {
			scaleRow(j.out[rr*j.ors:rr*j.ors+j.lenL], j.beta)
		}
		j.accumulate(0, j.out, j.ors, j.alpha)
		return
	}
	j.acc = make([]*buffer[T], procs)
	par.Run(procs, func(w int) {
		buf := getBuf[T](j.r * j.lenL)
		j.acc[w] = buf
		clear(buf.data)
		for {
			c := int(j.next.Add(1) - 1)
			if c >= j.chunks {
				return
			}
			j.accumulate(c, buf.data, j.lenL, 1)
		}
	})
	j.combine()
	for _, b := range j.acc {
		putBuf(b)
	}
}

// accumulate adds (scale*s) L over rows [c*pchunk, (c+1)*pchunk) of L into
// acc, whose output row rr starts at acc[rr*ld].
func (j *streamJob[T]) accumulate(c int, acc []T, ld int, scale T) {
	var zero T
	blk := max(64, streamBlockBytes/(j.r*int(unsafe.Sizeof(zero))))
	p0 := c * j.pchunk
	p1 := min(p0+j.pchunk, j.k)
	for lb := 0; lb < j.lenL; lb += blk {
		bl := min(blk, j.lenL-lb)
		p := p0
		for ; p+4 <= p1; p += 4 {
			for rr := range j.r {
				var s [4]T
				for q := range s {
					s[q] = scale * j.coef[rr*j.crs+(p+q)*j.ccs]
				}
				j.ks.axpy4(bl, &s, &j.long[p*j.ldl+lb], j.ldl, &acc[rr*ld+lb])
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
	total := j.acc[0].data[:j.r*j.lenL]
	for _, b := range j.acc[1:] {
		j.ks.axpy(len(total), 1, &b.data[0], &total[0])
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
