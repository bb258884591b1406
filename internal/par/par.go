// Package par holds tessera's one parallel-for: the CPU backend, its GEMM
// and its vector kernels all split work across cores through it, so the
// rules (the caller's goroutine works too; a panic in a worker reaches the
// caller after every worker has stopped) are written once. Work goes first
// to a team of persistent helper goroutines that spin between calls
// (team.go), so the GEMMs, fused elementwise programs, reductions and
// optimiser steps of a training step hand their work to a core that is
// already awake; a call that finds the team busy starts goroutines.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Run calls fn(w) for every w in [0, p) exactly once, concurrently, fn(0)
// on the calling goroutine, and returns when all have finished. The other
// calls go to the team's helpers; one that no helper has started by the
// time fn(0) returns is run by the caller itself, after fn(0), so a helper
// that is late or descheduled does not hold the caller up by more than the
// work it would have done. If any call panics, the first panic is
// re-raised in the caller after the others have returned. p <= 1 calls
// fn(0) alone.
func Run(p int, fn func(w int)) { dispatch(p, fn, runLate) }

// RunClaimed is Run for work that fn splits through shared counters (each
// call claims pieces until none is left), so that any subset of the calls
// that includes fn(0) completes it: a call that no helper has started by
// the time fn(0) returns is skipped instead of run by the caller.
func RunClaimed(p int, fn func(w int)) { dispatch(p, fn, skipLate) }

// dispatch runs fn(0..p-1) on the team, treating a call no helper started
// as late says (runLate or skipLate), or on goroutines when the team is
// in use or p exceeds the cores.
func dispatch(p int, fn func(w int), late int) {
	if p <= 1 {
		fn(0)
		return
	}
	if p <= runtime.GOMAXPROCS(0) && runOnTeam(p, fn, late) {
		return
	}
	goroutines(p, fn)
}

// goroutines is Run on p-1 new goroutines and the caller's, for a call
// that finds the team in use (by another goroutine, or by the caller
// itself in a nested call) or wants more workers than there are cores.
func goroutines(p int, fn func(w int)) {
	var (
		wg    sync.WaitGroup
		once  sync.Once
		fault any
	)
	guarded := func(w int) {
		defer func() {
			if r := recover(); r != nil {
				once.Do(func() { fault = r })
			}
		}()
		fn(w)
	}
	for w := 1; w < p; w++ {
		wg.Go(func() { guarded(w) })
	}
	guarded(0)
	wg.Wait()
	if fault != nil {
		panic(fault)
	}
}

// For calls fn(i) for every i in [0, n) on up to procs goroutines, the
// caller's among them, which claim indices in increasing order from a shared
// counter, so uneven items balance themselves. Panics behave as in Run.
func For(n, procs int, fn func(i int)) {
	if n <= 0 {
		return
	}
	var next atomic.Int64
	RunClaimed(min(procs, n), func(int) {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			fn(i)
		}
	})
}
