//go:build !amd64 || purego

package gemm

// haveRowsZ says copyRowsZ exists: not on this platform.
const haveRowsZ = false

func copyRowsZ(dst, src *byte, dstStride, srcStride, rows int, lo, hi uint64) {
	panic("gemm: copyRowsZ without assembly")
}
