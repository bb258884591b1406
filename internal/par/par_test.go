package par

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestForVisitsEachIndexOnce(t *testing.T) {
	for _, c := range []struct{ n, procs int }{{0, 4}, {1, 4}, {7, 1}, {1000, 3}, {5, 16}} {
		seen := make([]atomic.Int32, max(c.n, 1))
		For(c.n, c.procs, func(i int) { seen[i].Add(1) })
		for i := range c.n {
			if got := seen[i].Load(); got != 1 {
				t.Fatalf("n=%d procs=%d: index %d visited %d times", c.n, c.procs, i, got)
			}
		}
	}
}

func TestRunCallsEveryWorkerAndReraisesPanics(t *testing.T) {
	var calls atomic.Int32
	Run(5, func(int) { calls.Add(1) })
	if calls.Load() != 5 {
		t.Fatalf("Run(5) made %d calls", calls.Load())
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want the worker's panic", r)
		}
	}()
	Run(3, func(w int) {
		if w == 2 {
			panic("boom")
		}
	})
	t.Fatal("Run returned normally after a worker panicked")
}

// TestRunTeamCallsEachWorkerOnce checks Run on the team (p within
// GOMAXPROCS): every fn(w) runs exactly once, fn(0) on the caller, whether
// or not a helper is awake to take its call, and a helper's panic reaches
// the caller.
func TestRunTeamCallsEachWorkerOnce(t *testing.T) {
	p := runtime.GOMAXPROCS(0)
	if p < 2 {
		t.Skip("needs two processors")
	}
	for trial := range 200 {
		var calls [64]atomic.Int32
		var onCaller atomic.Bool
		caller := goid()
		if trial%50 == 49 {
			time.Sleep(2 * teamSpin) // let the helpers park
		}
		Run(p, func(w int) {
			calls[w].Add(1)
			if w == 0 && goid() == caller {
				onCaller.Store(true)
			}
		})
		for w := range p {
			if n := calls[w].Load(); n != 1 {
				t.Fatalf("trial %d: fn(%d) called %d times, want 1", trial, w, n)
			}
		}
		if !onCaller.Load() {
			t.Fatalf("trial %d: fn(0) did not run on the caller", trial)
		}
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want the worker's panic", r)
		}
	}()
	Run(2, func(w int) {
		if w == 1 {
			panic("boom")
		}
	})
	t.Fatal("Run returned normally after a worker panicked")
}

// TestRunClaimed checks that RunClaimed calls fn(0) on the caller, that
// every call that starts finishes before it returns, that the calls
// together do all the work when it is claimed from a counter, and that a
// panic in a helper reaches the caller.
func TestRunClaimed(t *testing.T) {
	for _, p := range []int{1, 2, 3, 5} {
		for range 50 {
			var next, done atomic.Int64
			var started [8]atomic.Bool
			RunClaimed(p, func(w int) {
				started[w].Store(true)
				for next.Add(1) <= 1000 {
					done.Add(1)
				}
			})
			if !started[0].Load() {
				t.Fatalf("p=%d: fn(0) did not run", p)
			}
			if done.Load() != 1000 {
				t.Fatalf("p=%d: %d of 1000 items done", p, done.Load())
			}
		}
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want the helper's panic", r)
		}
	}()
	var helperIn atomic.Bool
	RunClaimed(2, func(w int) {
		if w == 1 {
			helperIn.Store(true)
			panic("boom")
		}
		for !helperIn.Load() {
			runtime.Gosched()
		}
	})
	t.Fatal("RunClaimed returned normally after a helper panicked")
}

// TestNestedRun checks that a Run inside a worker of another (the team is
// then in use) runs on goroutines and completes.
func TestNestedRun(t *testing.T) {
	var total atomic.Int32
	Run(2, func(int) {
		Run(2, func(int) { total.Add(1) })
	})
	if got := total.Load(); got != 4 {
		t.Fatalf("nested Run made %d inner calls, want 4", got)
	}
}

// goid returns the current goroutine's id, read from its stack header.
func goid() string {
	buf := make([]byte, 32)
	buf = buf[:runtime.Stack(buf, false)]
	f := strings.Fields(string(buf))
	if len(f) < 2 {
		return ""
	}
	return f[1]
}
