package par

import (
	"sync/atomic"
	"testing"
	"time"
)

// spinFor keeps the processor busy for d (work that does not touch memory).
func spinFor(d time.Duration) {
	for s := time.Now(); time.Since(s) < d; {
	}
}

// BenchmarkRunAfterProduct times 100 µs of work in 100 pieces claimed
// from a counter by two workers (as a fused program or Adam's update
// splits its blocks), issued right after a GEMM-like RunClaimed has left a
// helper spinning, as in a training step: through the team (RunClaimed)
// and through new goroutines (what par.Run did before the team, the
// anchor). Two free cores take ~50 µs; the anchor's goroutine waits on the
// caller's processor while the helper spins, so it tends to ~100 µs.
func BenchmarkRunAfterProduct(b *testing.B) {
	for _, c := range []struct {
		name string
		run  func(p int, fn func(w int))
	}{{"team", RunClaimed}, {"goroutines", goroutines}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				RunClaimed(2, func(int) {}) // a product: the helper spins after it
				b.StartTimer()
				var next atomic.Int32
				c.run(2, func(int) {
					for next.Add(1) <= 100 {
						spinFor(time.Microsecond)
					}
				})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(b.N), "µs/op")
		})
	}
}
