//go:build unix

package proctime

import (
	"syscall"
	"time"
)

// CPU is the processor time (user and system, all threads) the process
// has used so far; 0 if the system does not say.
func CPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
