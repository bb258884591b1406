//go:build !unix

package proctime

import "time"

// CPU is the processor time the process has used; not measured off unix,
// where it is 0.
func CPU() time.Duration { return 0 }
