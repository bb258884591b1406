package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tessera-go/tessera/internal/par"
)

// The team is a set of persistent helper goroutines for parallel products.
//
// Starting a goroutine for every product (par.Run) costs little, but waking
// an idle core to run it costs several microseconds on a virtual machine:
// as much as a whole 128^3 product on two cores. A helper of the team
// instead keeps spinning for teamSpin after each piece of work, so in a run
// of products (a training step, a benchmark loop) every product after the
// first finds its helpers awake and hands them work through one atomic
// store. After teamSpin without work a helper parks on a channel and costs
// nothing; the next product wakes it as par.Run would.
//
// Work handed to a helper that has not started it by the time the caller
// has finished its own share is taken back: the products split their work
// into units claimed from shared counters, so the caller did that share
// itself, and nobody waits for a helper that is late or descheduled.
//
// One product uses the team at a time; a product that finds it busy (the
// backend multiplies from several goroutines) runs on par.Run instead.

// teamSpin is how long an idle helper spins before parking.
const teamSpin = 100 * time.Microsecond

// teamTask is one call of fn(w) handed to a helper.
type teamTask struct {
	fn      func(w int)
	w       int
	pending *atomic.Int32 // tasks handed out and not yet finished
	fault   *atomic.Pointer[any]
}

// helper is one persistent goroutine.
type helper struct {
	slot     atomic.Pointer[teamTask] // work handed over, not yet taken
	sleeping atomic.Bool              // parked, or about to park, on wake
	wake     chan struct{}
	_        [40]byte // keep helpers' hot fields on separate cache lines
}

var team struct {
	mu      sync.Mutex // held by the product using the team
	helpers []*helper
	tasks   []teamTask
	pending atomic.Int32
	fault   atomic.Pointer[any]
}

// runTeam calls fn(w) for w in [0, p), fn(0) on the calling goroutine and
// the rest on the team's helpers (fn(w) on helper w-1, so a worker index
// keeps its goroutine, and mostly its core and caches, from one product to
// the next), and returns when every call that started has returned. A call
// whose helper had not started it when fn(0) returned is skipped: fn must
// split its work through shared counters (see shares) so that any subset
// of the calls completes it. A panic in a helper is re-raised here.
func runTeam(p int, fn func(w int)) { runOnTeam(p, fn, true) }

// runTeamAll is runTeam without taking work back: every fn(w) runs, for
// work split statically (the read-bandwidth anchor of the benchmarks).
func runTeamAll(p int, fn func(w int)) { runOnTeam(p, fn, false) }

func runOnTeam(p int, fn func(w int), takeBack bool) {
	if p <= 1 {
		fn(0)
		return
	}
	if !team.mu.TryLock() {
		par.Run(p, fn)
		return
	}
	defer team.mu.Unlock()
	for len(team.helpers) < p-1 {
		h := &helper{wake: make(chan struct{}, 1)}
		team.helpers = append(team.helpers, h)
		go h.loop()
	}
	if cap(team.tasks) < p-1 {
		team.tasks = make([]teamTask, p-1)
	}
	tasks := team.tasks[:p-1]
	team.fault.Store(nil)
	team.pending.Store(int32(p - 1))
	for i := range tasks {
		tasks[i] = teamTask{fn: fn, w: i + 1, pending: &team.pending, fault: &team.fault}
		h := team.helpers[i]
		h.slot.Store(&tasks[i])
		if h.sleeping.Load() {
			select {
			case h.wake <- struct{}{}:
			default:
			}
		}
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				keepFault(&team.fault, r)
			}
		}()
		fn(0)
	}()
	// Take back what no helper has started.
	for i := range tasks {
		if takeBack && team.helpers[i].slot.CompareAndSwap(&tasks[i], nil) {
			team.pending.Add(-1)
		}
	}
	for spins := 0; team.pending.Load() != 0; spins++ {
		if spins > 1000 {
			runtime.Gosched()
		}
	}
	for i := range tasks {
		tasks[i].fn = nil // do not keep the product alive
	}
	if f := team.fault.Load(); f != nil {
		panic(*f)
	}
}

// loop runs the helper: take work, spin for teamSpin, park.
func (h *helper) loop() {
	for {
		if t := h.slot.Swap(nil); t != nil {
			t.run()
			continue
		}
		if h.spin() {
			continue
		}
		h.sleeping.Store(true)
		if h.slot.Load() == nil {
			<-h.wake
		}
		h.sleeping.Store(false)
	}
}

// spin waits up to teamSpin for work and reports whether some arrived. It
// yields the processor now and then, so runnable goroutines are not held up
// by a spinning helper.
func (h *helper) spin() bool {
	start := time.Now()
	for i := 1; ; i++ {
		if h.slot.Load() != nil {
			return true
		}
		if i%128 == 0 {
			if time.Since(start) > teamSpin {
				return false
			}
			runtime.Gosched()
		}
	}
}

// run calls the task, recording a panic for the caller.
func (t *teamTask) run() {
	defer func() {
		if r := recover(); r != nil {
			keepFault(t.fault, r)
		}
		t.pending.Add(-1)
	}()
	t.fn(t.w)
}

// keepFault records r in fault unless a panic is recorded already. It is
// not inlined, so only a panic pays for moving r to the heap.
//
//go:noinline
func keepFault(fault *atomic.Pointer[any], r any) {
	fault.CompareAndSwap(nil, &r)
}

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
