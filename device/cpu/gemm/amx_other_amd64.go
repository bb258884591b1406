//go:build amd64 && !purego && !linux

package gemm

import "errors"

// requestAMX reports that this OS is not asked for the AMX tile state: only
// Linux's arch_prctl permission protocol is implemented.
func requestAMX() error { return errors.New("AMX permission is only requested on Linux") }
