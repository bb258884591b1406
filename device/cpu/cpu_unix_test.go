//go:build unix

package cpu

import (
	"syscall"
	"time"
)

// cpuSeconds is the processor time (user and system, all threads) the
// process has used: on a shared machine it measures the work of a kernel
// where the wall clock also counts the wait for a core.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
