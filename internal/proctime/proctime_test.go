package proctime

import (
	"runtime"
	"testing"
	"time"
)

// TestCPUAdvances checks that busy work shows up as processor time on unix
// (and that CPU is 0 elsewhere).
func TestCPUAdvances(t *testing.T) {
	t0 := CPU()
	x := 0.0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		for i := range 1000 {
			x += float64(i)
		}
	}
	_ = x
	d := CPU() - t0
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		return
	}
	if d < 20*time.Millisecond {
		t.Fatalf("50 ms of busy work used %v of processor time", d)
	}
}
