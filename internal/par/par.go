// Package par holds tessera's one parallel-for: the CPU backend, its GEMM
// and its vector kernels all split work across cores through it, so the
// rules (the caller's goroutine works too; a panic in a worker reaches the
// caller after every worker has stopped) are written once. (The GEMM hands
// its work first to a team of persistent helpers that spin between
// products, gemm/team.go, and comes here when another product holds it.)
package par

import (
	"sync"
	"sync/atomic"
)

// Run calls fn(w) for every w in [0, p) concurrently, fn(0) on the calling
// goroutine, and returns when all have finished. If any call panics, the
// first panic is re-raised in the caller after the others have returned.
// p <= 1 calls fn(0) alone.
func Run(p int, fn func(w int)) {
	if p <= 1 {
		fn(0)
		return
	}
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
	Run(min(procs, n), func(int) {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			fn(i)
		}
	})
}
