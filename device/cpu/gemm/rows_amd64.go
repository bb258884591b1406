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

// gatherRunsZ is GatherRuns's loop for checked operands: for each of rows
// rows p, with source offset offs[p] elements of size bytes each, it
// copies every run of runs[:nruns] from src to dst+p*ldd (ldd in bytes),
// 64 bytes at a time and the rest under the run's byte mask.
//
//go:noescape
func gatherRunsZ(dst *byte, ldd int, src *byte, offs *int, size, rows int, runs *runZ, nruns int)

// padPlanesZ is PadPlanes's loop for checked operands (geom in bytes): for
// each plane, geom.padRows rows of zeros, then each row of src's plane (the
// bytes from the row's start less geom.lead, under the load masks lo for
// bytes 0-63 and hi for 64-127, zero where masked off), then geom.padRows
// rows of zeros; every row stored under storeLo and storeHi, back to back.
// Masked-off bytes are neither read nor written.
//
//go:noescape
func padPlanesZ(dst, src *byte, geom *padGeom, lo, hi, storeLo, storeHi uint64)
