package tensor_test

import "github.com/tessera-go/tessera/internal/proctime"

// cpuSeconds is the processor time (user and system, all threads) the
// process has used: on a shared machine it measures the work of a kernel
// where the wall clock also counts the wait for a core.
func cpuSeconds() float64 { return proctime.CPU().Seconds() }
