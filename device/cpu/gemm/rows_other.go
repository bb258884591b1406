//go:build !amd64 || purego

package gemm

// haveRowsZ says copyRowsZ exists: not on this platform.
const haveRowsZ = false

func copyRowsZ(dst, src *byte, dstStride, srcStride, rows int, lo, hi uint64) {
	panic("gemm: copyRowsZ without assembly")
}

func gatherRunsZ(dst *byte, ldd int, src *byte, offs *int, size, rows int, runs *runZ, nruns int) {
	panic("gemm: gatherRunsZ without assembly")
}

func padPlanesZ(dst, src *byte, geom *padGeom, lo, hi, storeLo, storeHi uint64) {
	panic("gemm: padPlanesZ without assembly")
}
