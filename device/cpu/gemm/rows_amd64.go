//go:build amd64 && !purego

package gemm

// haveRowsZ says copyRowsZ exists (it runs only where the AVX-512 kernels
// are active).
const haveRowsZ = true

// copyRowsZ copies rows rows of bytes from src (srcStride bytes apart) to
// dst (dstStride bytes apart), each row the bytes of masks lo (bytes
// 0-63) and hi (64-127), with AVX512BW byte-masked moves (one each way
// per row when hi is empty); masked-off bytes are neither read nor
// written.
//
//go:noescape
func copyRowsZ(dst, src *byte, dstStride, srcStride, rows int, lo, hi uint64)
