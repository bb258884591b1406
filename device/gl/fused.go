//go:build cgo && linux

package gl

import "github.com/tessera-go/tessera/device/gpucore"

// maxFusedKernels bounds the fused-program kernels a device keeps
// compiled: a process realises few program structures (a loop repeats
// one), but nothing else bounds them.
var maxFusedKernels = 128

// fusedKernel returns the kernel of a structural key from the device's
// cache (gpucore.KernelCache), building it on first use; an evicted
// kernel's program, which lives in g.programs, is deleted (owner thread;
// gpucore.Planner.Fused calls it while planning).
func (g *gpu) fusedKernel(key string, build func() *gpucore.Kernel) *gpucore.Kernel {
	return g.fused.Get(key, maxFusedKernels, build, g.dropProgram)
}
