package vec

import (
	"runtime"

	"github.com/tessera-go/tessera/internal/par"
)

// parallelAlign is the granularity of Parallel's chunk boundaries in
// elements: a multiple of every vector width and, for float32 and float64,
// of a 64-byte cache line, so neighbouring chunks never write one line.
const parallelAlign = 64

// Parallel runs fn over [0, n) split into contiguous chunks [lo, hi), one
// per goroutine, and returns when all have finished. It splits only when
// n >= grain and GOMAXPROCS > 1: into k = min(GOMAXPROCS, n/grain) chunks
// of about n/k elements, rounded up to a multiple of 64 (so chunks never
// share a cache line and every kernel runs whole vectors up to the last
// chunk); otherwise it calls fn(0, n) on the calling goroutine. The
// boundaries are a pure function of n, grain and GOMAXPROCS, so a per-chunk
// reduction combined in chunk order gives the same bits on every run with
// the same GOMAXPROCS. The first chunk runs on the caller's goroutine. If fn
// panics, the panic is re-raised in the caller after every chunk has
// finished. n <= 0 or a nil fn does nothing; grain < 1 counts as 1.
func Parallel(n, grain int, fn func(lo, hi int)) {
	if n <= 0 || fn == nil {
		return
	}
	cs := chunks(n, grain, runtime.GOMAXPROCS(0))
	if len(cs) == 1 {
		fn(0, n)
		return
	}
	par.Run(len(cs), func(w int) { fn(cs[w][0], cs[w][1]) })
}

// chunks returns Parallel's split of [0, n) for procs workers.
func chunks(n, grain, procs int) [][2]int {
	grain = max(grain, 1)
	k := min(procs, n/grain)
	if k <= 1 {
		return [][2]int{{0, n}}
	}
	size := (n + k - 1) / k
	size = (size + parallelAlign - 1) / parallelAlign * parallelAlign
	var cs [][2]int
	for lo := 0; lo < n; lo += size {
		cs = append(cs, [2]int{lo, min(lo+size, n)})
	}
	return cs
}
