//go:build !amd64 || purego

package gemm

// amxKernels reports that this build has no AMX kernel.
func amxKernels(*impl) *kernels[float32] { return nil }

// widenFast reports that this build has no assembly widening packers.
func widenFast(bool, []float32, []uint16, int, int, int, int, int) bool { return false }

// amxOffSet is the AMX test hook; without AMX there is nothing to turn off.
func amxOffSet(bool) bool { return false }

// amxPackAFast and amxPackBFast pack nothing without assembly (and AMX).
func amxPackAFast(d, src []uint16, ld, groups int) int { return 0 }
func amxPackBFast(d, src []uint16, ld, groups int) int { return 0 }
