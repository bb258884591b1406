//go:build !amd64 || purego

package vec

// avx2Kernels is nil where the assembly is not built.
var avx2Kernels *kernels

func cpuHasAVX2FMA() bool { return false }

// avx512Kernels is nil where the assembly is not built.
var avx512Kernels *kernels

func cpuHasAVX512() bool { return false }

// setNTBytes is a no-op without the assembly, which alone streams.
func setNTBytes(int) (restore func()) { return func() {} }
