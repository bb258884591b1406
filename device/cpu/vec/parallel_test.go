package vec

import (
	"runtime"
	"sync/atomic"
	"testing"
)

func TestChunks(t *testing.T) {
	cases := []struct {
		n, grain, procs int
		want            [][2]int
	}{
		{100, 1000, 8, [][2]int{{0, 100}}},
		{1000, 100, 1, [][2]int{{0, 1000}}},
		{1000, 100, 2, [][2]int{{0, 512}, {512, 1000}}},
		{1000, 400, 8, [][2]int{{0, 512}, {512, 1000}}},
		{10, 0, 4, [][2]int{{0, 10}}},
		{1 << 20, 1 << 16, 4, [][2]int{{0, 1 << 18}, {1 << 18, 2 << 18}, {2 << 18, 3 << 18}, {3 << 18, 4 << 18}}},
	}
	for _, c := range cases {
		got := chunks(c.n, c.grain, c.procs)
		if len(got) != len(c.want) {
			t.Errorf("chunks(%d, %d, %d) = %v, want %v", c.n, c.grain, c.procs, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("chunks(%d, %d, %d) = %v, want %v", c.n, c.grain, c.procs, got, c.want)
			}
		}
	}
	// Every split covers [0, n) once, in order, with aligned boundaries.
	for n := 1; n < 3000; n += 37 {
		for _, procs := range []int{2, 3, 7, 16} {
			cs := chunks(n, 10, procs)
			lo := 0
			for _, c := range cs {
				if c[0] != lo || c[1] <= c[0] || c[0]%parallelAlign != 0 {
					t.Fatalf("chunks(%d, 10, %d) = %v", n, procs, cs)
				}
				lo = c[1]
			}
			if lo != n || len(cs) > procs {
				t.Fatalf("chunks(%d, 10, %d) = %v", n, procs, cs)
			}
		}
	}
}

func TestParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const n = 100_000
	seen := make([]int32, n)
	var calls atomic.Int32
	Parallel(n, 1000, func(lo, hi int) {
		calls.Add(1)
		for i := lo; i < hi; i++ {
			atomic.AddInt32(&seen[i], 1)
		}
	})
	for i, s := range seen {
		if s != 1 {
			t.Fatalf("element %d visited %d times", i, s)
		}
	}
	if calls.Load() != 4 {
		t.Errorf("%d chunks, want 4", calls.Load())
	}
	// Below the grain: one inline call.
	calls.Store(0)
	Parallel(999, 1000, func(lo, hi int) {
		if lo != 0 || hi != 999 {
			t.Errorf("inline call got [%d, %d)", lo, hi)
		}
		calls.Add(1)
	})
	if calls.Load() != 1 {
		t.Errorf("%d calls below the grain", calls.Load())
	}
	Parallel(0, 1, func(lo, hi int) { t.Error("called for n = 0") })
	Parallel(10, 1, nil)
}

func TestParallelPanic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want boom", r)
		}
	}()
	Parallel(1<<16, 1, func(lo, hi int) {
		if lo > 0 {
			panic("boom")
		}
	})
	t.Fatal("Parallel returned after a panic")
}

// TestParallelSum shows the intended use: a reduction over Parallel's
// chunks combined in chunk order is the same on every run.
func TestParallelSum(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	x := make([]float32, 1<<20)
	for i := range x {
		x[i] = float32(i%1000) * 0.001
	}
	sum := func() float32 {
		cs := chunks(len(x), 1<<16, runtime.GOMAXPROCS(0))
		part := make([]float32, len(cs))
		Parallel(len(x), 1<<16, func(lo, hi int) { part[lo/(cs[0][1])] = Sum(x[lo:hi]) })
		return Sum(part)
	}
	first := sum()
	for range 10 {
		if s := sum(); s != first {
			t.Fatalf("parallel sum changed: %v then %v", first, s)
		}
	}
}
