package gemm

import (
	"math/bits"
	"unsafe"
)

// CopyRows copies rows rows of n elements, dst[r*ldd+i] = src[r*lds+i]
// for r < rows and i < n: the strided copy a Panels source packs with
// (one row per k step of a panel). With the AVX-512 kernels active, rows
// of up to 128 bytes are moved by byte-masked zmm loads and stores, one
// loop for all rows; otherwise row by row with copy. Negative leading
// dimensions, or slices too short for the rows, copy nothing and return
// false.
func CopyRows[T ~float32 | ~float64](dst []T, ldd int, src []T, lds int, rows, n int) bool {
	if rows <= 0 || n <= 0 {
		return true
	}
	if ldd < 0 || lds < 0 || !spans(len(dst), ldd, rows, n) || !spans(len(src), lds, rows, n) {
		return false
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	if bytes := n * size; haveRowsZ && bytes <= 128 && active.Load().name == "avx512" {
		lo, hi := rowMasks(bytes)
		copyRowsZ((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), (*byte)(unsafe.Pointer(unsafe.SliceData(src))), ldd*size, lds*size, rows, lo, hi)
		return true
	}
	for r := range rows {
		copy(dst[r*ldd:r*ldd+n], src[r*lds:r*lds+n])
	}
	return true
}

// spans reports whether rows rows of n elements, ld apart, fit in length
// elements.
func spans(length, ld, rows, n int) bool {
	if n > length {
		return false
	}
	// (rows-1)*ld <= length-n without a division (this runs for every
	// strided copy of a convolution's gather), and without overflow: the
	// product is taken to 128 bits.
	hi, lo := bits.Mul64(uint64(rows-1), uint64(ld))
	return hi == 0 && lo <= uint64(length-n)
}

// rowMasks returns the byte masks of a row of bytes (at most 128) split
// over two 64-byte vectors.
func rowMasks(bytes int) (lo, hi uint64) {
	mask := func(b int) uint64 {
		if b >= 64 {
			return ^uint64(0)
		}
		return 1<<uint(max(b, 0)) - 1
	}
	return mask(bytes), mask(bytes - 64)
}
