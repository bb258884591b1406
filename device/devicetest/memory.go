package devicetest

import (
	"runtime"
	"testing"
	"time"

	"github.com/tessera-go/tessera/device"
)

// SettledMemory collects garbage and waits until be's memory in use stops
// falling, then returns it: a baseline taken this way is not lowered later
// by the cleanups of garbage that earlier tests left, which tests of
// memory growth (loops written without Release) need on every device.
func SettledMemory(tb testing.TB, be device.Backend) int64 {
	tb.Helper()
	prev, same := int64(-1), 0
	for range 100 {
		runtime.GC()
		if err := be.Sync(); err != nil {
			tb.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
		now := be.MemoryInUse()
		if now != prev {
			prev, same = now, 0
			continue
		}
		// Three equal readings in a row: one can come from a finalizer
		// goroutine that did not run during a single short wait.
		if same++; same == 2 {
			return now
		}
	}
	return prev
}

// MemoryBackTo collects garbage until be's memory in use is at most base,
// or until about ten seconds have passed, and returns the last reading.
// Finalizers run on their own goroutine, one link of a chain of finalized
// objects per collection, so two equal readings in a row do not prove
// that nothing more will come back: on a loaded machine (two cores under
// -race) the finalizer goroutine can miss a few short waits. A test that
// memory comes back after a loop written without Release waits on this
// and fails only when the memory has not come back by the deadline.
func MemoryBackTo(tb testing.TB, be device.Backend, base int64) int64 {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if err := be.Sync(); err != nil {
			tb.Fatal(err)
		}
		now := be.MemoryInUse()
		if now <= base || time.Now().After(deadline) {
			return now
		}
		time.Sleep(5 * time.Millisecond)
	}
}
