//go:build cgo

package webgpu

import (
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/shaders"
)

// maxFusedKernels bounds the fused kernels a device keeps compiled: the
// program structures a process realises are few in practice (a loop
// repeats one), but nothing else bounds them.
var maxFusedKernels = 128

// fusedKernelLocked returns the kernel of a structural key from the
// device's cache (gpucore.KernelCache), building it on first use; an
// evicted kernel's pipeline, which lives in g.kernels like every other
// kernel's, is released.
func (g *gpu) fusedKernelLocked(key string, build func() *gpucore.Kernel) *gpucore.Kernel {
	return g.fused.Get(key, maxFusedKernels, build, func(old *gpucore.Kernel) {
		skey := shaders.Key(old.Template, old.Vars)
		if k, ok := g.kernels[skey]; ok {
			// The open pass may use the pipeline: submit it first.
			g.flushLocked()
			k.pipe.Release()
			delete(g.kernels, skey)
		}
	})
}
