package gemm

import (
	"math"
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

// PadPlanes writes planes planes of rows rows of n elements into dst, back
// to back, each plane with padRows rows of zeros above and below it and
// each row with padCols zeros on either side: plane q's row r is
// src[q*ldp+r*lds:][:n], and lands at dst[(q*hp+padRows+r)*wp+padCols:]
// (hp = rows+2*padRows, wp = n+2*padCols). It is a batch of images'
// planes with their padding written out, every element of the first
// planes*hp*wp of dst written, so dst need not be cleared first. With
// the AVX-512 kernels active and padded rows of at most 128 bytes, it is
// one assembly loop: each row one or two byte-masked zmm loads (zeros
// where masked off) and stores; otherwise row by row with copy and clear.
// Negative sizes or leading dimensions, or slices too short, write
// nothing and return false.
func PadPlanes[T ~float32 | ~float64 | ~uint32 | ~uint64](dst, src []T, ldp, lds, planes, rows, n, padRows, padCols int) bool {
	if planes < 0 || rows < 0 || n < 0 || padRows < 0 || padCols < 0 || ldp < 0 || lds < 0 {
		return false
	}
	if planes == 0 {
		return true
	}
	hp, ok1 := addMul(rows, 2, padRows)
	wp, ok2 := addMul(n, 2, padCols)
	size, ok3 := mulInts(hp, wp)
	total, ok4 := mulInts(planes, size)
	if !ok1 || !ok2 || !ok3 || !ok4 || total > len(dst) {
		return false
	}
	if rows > 0 && n > 0 {
		// The last plane's last row ends inside src.
		last, ok5 := mulInts(planes-1, ldp)
		lastRow, ok6 := mulInts(rows-1, lds)
		if !ok5 || !ok6 || last > len(src) || lastRow > len(src)-last || n > len(src)-last-lastRow {
			return false
		}
	}
	var zero T
	elem := int(unsafe.Sizeof(zero))
	if bytes := wp * elem; haveRowsZ && bytes <= 128 && active.Load().name == "avx512" {
		// Loads start padCols elements before each row, so the row lands
		// at its place in the vector; the lanes outside it are masked off
		// (never read: masked loads do not fault) and come out zero.
		lead := padCols * elem
		lo, hi := rowMasks(lead + n*elem)
		skipLo, skipHi := rowMasks(lead)
		storeLo, storeHi := rowMasks(bytes)
		padPlanesZ((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), (*byte)(unsafe.Pointer(unsafe.SliceData(src))),
			&padGeom{bytes, lds * elem, ldp * elem, planes, rows, padRows, lead},
			lo&^skipLo, hi&^skipHi, storeLo, storeHi)
		return true
	}
	for q := range planes {
		plane := dst[q*size : (q+1)*size]
		clear(plane[:padRows*wp])
		clear(plane[(padRows+rows)*wp:])
		for r := range rows {
			out := plane[(padRows+r)*wp : (padRows+r+1)*wp]
			clear(out[:padCols])
			if n > 0 { // empty rows may lie past src's end: nothing is read
				copy(out[padCols:padCols+n], src[q*ldp+r*lds:][:n])
			}
			clear(out[padCols+n:])
		}
	}
	return true
}

// padGeom is PadPlanes's geometry as padPlanesZ reads it: bytes a padded
// row (and a row of dst), a row and a plane of src apart in bytes, the
// planes, their rows, the zero rows above and below each, and the bytes
// of zeros before each row.
type padGeom struct {
	rowBytes, srcRow, srcPlane, planes, rows, padRows, lead int
}

// addMul returns a+b*c for non-negative a, b and c, and false where it
// overflows.
func addMul(a, b, c int) (int, bool) {
	p, ok := mulInts(b, c)
	if !ok || p > math.MaxInt-a {
		return 0, false
	}
	return a + p, true
}

// mulInts returns a*b for non-negative a and b, and false where it
// overflows.
func mulInts(a, b int) (int, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt {
		return 0, false
	}
	return int(lo), true
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

// Run is one contiguous piece of the rows GatherRuns copies: N elements
// from Src past a row's source offset to Dst in that row of dst.
type Run struct{ Dst, Src, N int }

// GatherRuns copies, for every row p < len(offs) and every run r,
// dst[p*ldd+r.Dst+i] = src[offs[p]+r.Src+i] for i < r.N: rows that are
// each a few contiguous pieces of src at a per-row offset, such as the
// panel of an im2col matrix over a padded image (one row per kernel tap
// and channel, one run per output row the panel's pixels span). With the
// AVX-512 kernels active the whole gather is one assembly loop (64-byte
// moves, the last of each run byte-masked); otherwise run by run with
// copy. Negative offsets, runs or ldd, or slices too short for them, copy
// nothing and return false.
func GatherRuns[T ~float32 | ~float64](dst []T, ldd int, src []T, offs []int, runs []Run) bool {
	if len(offs) == 0 || len(runs) == 0 {
		return true
	}
	lo, hi := minMax(offs)
	if lo < 0 || hi > len(src) || ldd < 0 {
		return false
	}
	for _, r := range runs {
		// Every row's piece lies in src past the largest offset, and in dst
		// across all rows.
		if r.Dst < 0 || r.Src < 0 || r.N < 0 || r.Src > len(src)-hi || r.N > len(src)-hi-r.Src ||
			r.Dst > len(dst) || !spans(len(dst)-r.Dst, ldd, len(offs), r.N) {
			return false
		}
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	if haveRowsZ && active.Load().name == "avx512" {
		var buf [8]runZ
		rz := buf[:0]
		if len(runs) > len(buf) {
			rz = make([]runZ, 0, len(runs))
		}
		for _, r := range runs {
			bytes := r.N * size
			tail, _ := rowMasks(bytes % 64)
			rz = append(rz, runZ{dst: r.Dst * size, src: r.Src * size, chunks: bytes / 64, mask: tail})
		}
		gatherRunsZ((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), ldd*size,
			(*byte)(unsafe.Pointer(unsafe.SliceData(src))), &offs[0], size, len(offs), &rz[0], len(rz))
		return true
	}
	for p, o := range offs {
		row := dst[p*ldd:]
		for _, r := range runs {
			copy(row[r.Dst:r.Dst+r.N], src[o+r.Src:o+r.Src+r.N])
		}
	}
	return true
}

// runZ is a Run as gatherRunsZ reads it, in bytes: where it goes in a row
// of dst, where it starts past the row's source offset, its whole 64-byte
// chunks, and the byte mask of the rest.
type runZ struct {
	dst, src, chunks int
	mask             uint64
}
