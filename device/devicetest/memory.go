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
	prev := int64(-1)
	for range 50 {
		runtime.GC()
		if err := be.Sync(); err != nil {
			tb.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
		now := be.MemoryInUse()
		if now == prev {
			return now
		}
		prev = now
	}
	return prev
}
