package gemm

import "sync/atomic"

// shares hands out the indices [0, n) to p workers without a barrier:
// worker w first takes, in order, its own contiguous share
// [w*n/p, (w+1)*n/p), then what is left of the others' shares. A product
// run again on the same data thus gives each worker the same part of the
// long operand as last time, still in its core's cache where it fits,
// while a worker that is late or never starts (runTeam) has its share
// taken over by the others.
type shares struct {
	n, p int
	next []paddedCounter
}

type paddedCounter struct {
	v atomic.Int64
	_ [56]byte
}

// reset prepares s for n indices over p workers.
func (s *shares) reset(n, p int) {
	s.n, s.p = n, max(p, 1)
	if cap(s.next) < s.p {
		s.next = make([]paddedCounter, s.p)
	}
	s.next = s.next[:s.p]
	for i := range s.next {
		s.next[i].v.Store(0)
	}
}

// take returns the next index for worker w, or false when none is left.
func (s *shares) take(w int) (int, bool) {
	for d := range s.p {
		o := (w + d) % s.p
		lo, hi := o*s.n/s.p, (o+1)*s.n/s.p
		if s.next[o].v.Load() >= int64(hi-lo) {
			continue
		}
		if i := lo + int(s.next[o].v.Add(1)-1); i < hi {
			return i, true
		}
	}
	return 0, false
}
