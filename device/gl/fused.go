//go:build cgo && linux

package gl

import (
	"container/list"

	"github.com/tessera-go/tessera/device/gpucore"
)

// maxFusedKernels bounds the fused-program kernels a device keeps
// compiled: a process realises few program structures (a loop repeats
// one), but nothing else bounds them.
var maxFusedKernels = 128

// fusedCache keeps fused kernel specialisations by structural key
// (gpucore.FusedKey), least recently used at the back. Their programs
// live in g.programs; evicting an entry deletes its program.
type fusedCache struct {
	byKey map[string]*list.Element // of *gpucore.Kernel, keyed by structure
	keys  map[*gpucore.Kernel]string
	lru   list.List
}

// fusedKernel returns the kernel of a structural key, building it on first
// use and evicting the least recently used beyond maxFusedKernels (owner
// thread; gpucore.Planner.Fused calls it while planning).
func (g *gpu) fusedKernel(key string, build func() *gpucore.Kernel) *gpucore.Kernel {
	c := g.fused
	if c == nil {
		c = &fusedCache{byKey: map[string]*list.Element{}, keys: map[*gpucore.Kernel]string{}}
		g.fused = c
	}
	if e, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*gpucore.Kernel)
	}
	for c.lru.Len() >= maxFusedKernels {
		old := c.lru.Remove(c.lru.Back()).(*gpucore.Kernel)
		delete(c.byKey, c.keys[old])
		delete(c.keys, old)
		g.dropProgram(old)
	}
	k := build()
	c.byKey[key] = c.lru.PushFront(k)
	c.keys[k] = key
	return k
}
