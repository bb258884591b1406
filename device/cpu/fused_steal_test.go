package cpu

import (
	"sync"
	"testing"
)

// TestFusedClaim checks the fused workers' block claims (blockClaimer):
// whatever the interleaving, every block is computed exactly once, and a
// worker that finds its own run done takes the blocks another has not
// started, so one worker alone (the others' goroutines never scheduled)
// still covers the whole range.
func TestFusedClaim(t *testing.T) {
	newRun := func(nblocks, workers int) *fusedRun[float32, float32] {
		f := &fusedRun[float32, float32]{nblocks: nblocks, workers: workers, runs: make([]blockRun, workers)}
		for w := range f.runs {
			f.runs[w].next.Store(int64(nblocks * w / workers))
			f.runs[w].end = int64(nblocks * (w + 1) / workers)
		}
		return f
	}
	for _, c := range []struct{ nblocks, workers int }{{1, 2}, {2, 2}, {7, 2}, {32, 2}, {33, 3}, {5, 8}, {100, 2}, {1001, 3}} {
		// One worker alone: its own run first, in order, then the others'.
		f := newRun(c.nblocks, c.workers)
		seen := make([]int, c.nblocks)
		var order []int
		alone := f.blocks(0)
		for {
			b, ok := alone.next()
			if !ok {
				break
			}
			seen[b]++
			order = append(order, b)
		}
		for b, k := range seen {
			if k != 1 {
				t.Fatalf("%+v, one worker: block %d claimed %d times", c, b, k)
			}
		}
		if own := c.nblocks / c.workers; own > 0 && order[own-1] != own-1 {
			t.Errorf("%+v, one worker: claims %v do not start with its own run in order", c, order)
		}
		// All workers at once.
		f = newRun(c.nblocks, c.workers)
		var mu sync.Mutex
		counts := make([]int, c.nblocks)
		var wg sync.WaitGroup
		for w := range c.workers {
			wg.Go(func() {
				blocks := f.blocks(w)
				for {
					b, ok := blocks.next()
					if !ok {
						return
					}
					mu.Lock()
					counts[b]++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		for b, k := range counts {
			if k != 1 {
				t.Fatalf("%+v, all workers: block %d claimed %d times", c, b, k)
			}
		}
	}
}

// TestBlockClaimerAlone checks that a claimer without runs (one worker)
// hands out every block once, in order.
func TestBlockClaimerAlone(t *testing.T) {
	for _, nblocks := range []int{0, 1, 9, 100} {
		blocks := newBlockClaimer(nil, 0, nblocks)
		want := 0
		for b, ok := blocks.next(); ok; b, ok = blocks.next() {
			if b != want {
				t.Fatalf("nblocks %d: block %d, want %d", nblocks, b, want)
			}
			want++
		}
		if want != nblocks {
			t.Fatalf("nblocks %d: %d blocks handed out", nblocks, want)
		}
	}
}
