package par

import (
	"sync/atomic"
	"testing"
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
