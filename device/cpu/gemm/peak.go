package gemm

import (
	"runtime"
	"sync"
	"time"
)

// PeakF32 measures this machine's float32 FMA throughput in GFLOP/s with
// the vectors the active kernels use ("512-bit" or "256-bit"): chains of
// independent FMAs on registers only, on GOMAXPROCS goroutines at once,
// best of five runs of about a millisecond each. It is the ceiling GEMM
// figures are compared with (float64: half); `tessera bench` prints it
// next to its matmul figures. It returns 0 and "" where the kernels are
// portable Go.
func PeakF32() (gflops float64, vectors string) {
	loop, flops, vectors := fmaLoop()
	if loop == nil {
		return 0, ""
	}
	threads := runtime.GOMAXPROCS(0)
	const iters = 1 << 19        // about a millisecond at 3 GHz
	runFMA(loop, threads, iters) // warm up the vector units
	best := time.Duration(1<<63 - 1)
	for range 5 {
		t := time.Now()
		runFMA(loop, threads, iters)
		best = min(best, time.Since(t))
	}
	return flops * iters * float64(threads) / best.Seconds() / 1e9, vectors
}

// runFMA runs loop(iters) on threads goroutines at once and waits for
// them: each is a register-only FMA loop, so they share nothing.
func runFMA(loop func(n int), threads, iters int) {
	var wg sync.WaitGroup
	for range threads {
		wg.Go(func() { loop(iters) })
	}
	wg.Wait()
}
