package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The team is a set of persistent helper goroutines for parallel work.
//
// Starting a goroutine for every call costs little, but waking an idle
// core to run it costs several microseconds on a virtual machine: as much
// as a whole 128^3 product on two cores. A helper of the team instead
// keeps spinning for teamSpin after each piece of work, so in a run of
// parallel calls (a training step: GEMMs, fused elementwise programs,
// reductions, the optimiser's update) every call after the first finds its
// helpers awake and hands them work through one atomic store. After
// teamSpin without work a helper parks on a channel and costs nothing; the
// next call wakes it as a new goroutine would be.
//
// All parallel work goes through the one team: a goroutine started per
// call while a helper spins waits on the caller's processor until the
// caller blocks, because the spinning helper, yielding, takes itself back
// from the global run queue before any processor steals the new goroutine;
// the work that followed a GEMM then ran on one core.
//
// Work handed to a helper that has not started it by the time the caller
// has finished its own share is taken back (the task is removed with a
// CAS): Run does it on the caller, RunClaimed skips it because the others
// have claimed its pieces. Nobody waits for a helper that is late or
// descheduled.
//
// One call uses the team at a time; a call that finds it busy (work from
// several goroutines, or a parallel call made inside another's worker)
// starts goroutines instead.

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
	mu      sync.Mutex // held by the call using the team
	helpers []*helper
	tasks   []teamTask
	pending atomic.Int32
	fault   atomic.Pointer[any]
}

// What runOnTeam does with a task that no helper has started when fn(0)
// returns.
const (
	runLate  = iota // the caller runs it
	skipLate        // nobody runs it
)

// runOnTeam calls fn(w) for w in [0, p), fn(0) on the calling goroutine
// and the rest on the team's helpers (fn(w) on helper w-1, so a worker
// index keeps its goroutine, and mostly its core and caches, from one call
// to the next), and returns when every call that started has returned; a
// call no helper started in time is run by the caller or skipped, as late
// says. It reports false, having called nothing, when the team is in use.
// A panic in any call is re-raised here after the others have returned.
func runOnTeam(p int, fn func(w int), late int) bool {
	if !team.mu.TryLock() {
		return false
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
	call(fn, 0, &team.fault)
	// Take back what no helper has started.
	for i := range tasks {
		if team.helpers[i].slot.CompareAndSwap(&tasks[i], nil) {
			if late == runLate {
				tasks[i].run()
			} else {
				team.pending.Add(-1)
			}
		}
	}
	for spins := 0; team.pending.Load() != 0; spins++ {
		if spins > 1000 {
			runtime.Gosched()
		}
	}
	for i := range tasks {
		tasks[i].fn = nil // do not keep the work alive
	}
	if f := team.fault.Load(); f != nil {
		panic(*f)
	}
	return true
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

// run calls the task, recording a panic for the caller, and counts it
// finished.
func (t *teamTask) run() {
	defer t.pending.Add(-1)
	call(t.fn, t.w, t.fault)
}

// call calls fn(w), recording a panic in fault.
func call(fn func(w int), w int, fault *atomic.Pointer[any]) {
	defer func() {
		if r := recover(); r != nil {
			keepFault(fault, r)
		}
	}()
	fn(w)
}

// keepFault records r in fault unless a panic is recorded already. It is
// not inlined, so only a panic pays for moving r to the heap.
//
//go:noinline
func keepFault(fault *atomic.Pointer[any], r any) {
	fault.CompareAndSwap(nil, &r)
}
