//go:build amd64 && !purego

package gemm

// fmaLoop returns the generated FMA loop of the widest vectors the active
// kernels use, with its float32 flops per iteration (12 FMAs of 16 or 8
// lanes, two flops each), or nil for the portable kernels.
func fmaLoop() (loop func(n int), flops float64, vectors string) {
	switch active.Load().name {
	case "avx512":
		return fmaPeak512, 12 * 16 * 2, "512-bit"
	case "avx2-fma":
		return fmaPeak256, 12 * 8 * 2, "256-bit"
	}
	return nil, 0, ""
}
