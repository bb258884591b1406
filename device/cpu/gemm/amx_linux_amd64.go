//go:build amd64 && !purego

package gemm

import "syscall"

// requestAMX asks Linux for permission to use the AMX tile data state
// (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); without it the
// first tile instruction faults. The kernel grows signal frames for it and
// refuses when a thread's alternate signal stack is too small for them.
func requestAMX() error {
	const archReqXcompPerm, xfeatureXtiledata = 0x1023, 18
	if _, _, e := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXtiledata, 0); e != 0 {
		return e
	}
	return nil
}
