//go:build !amd64 || purego

package gemm

// haveRowsZ says copyRowsZ exists: not on this platform.
const haveRowsZ = false

func copyRowsZ(dst, src *byte, dstStride, srcStride, rows int, lo, hi uint64) {
	panic("gemm: copyRowsZ without assembly")
}

// prefetchLead4 fetches nothing here: there is no prefetch instruction to
// reach from Go.
func prefetchLead4(p *byte, ld, nbytes int) {}
