//go:build cgo

package webgpu

import (
	"fmt"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/shaders"
)

var _ device.Fuser = (*gpu)(nil)

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

// Fused runs a fused elementwise program as one kernel (one dispatch per
// box when the operands exceed the binding limits; see
// gpucore.Planner.Fused).
func (g *gpu) Fused(dst device.Operand, p device.Program, inputs []device.Operand) error {
	operands := make([]device.Operand, 0, 1+len(inputs))
	operands = append(operands, dst)
	operands = append(operands, inputs...)
	return g.do("Fused", fusedRoles(len(inputs)), func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Fused("Fused", o[0], p, o[1:], g.fusedKernelLocked)
	}, operands...)
}

var rolesFused = []string{"dst", "input 0", "input 1", "input 2", "input 3", "input 4", "input 5"}

// fusedRoles names the operands of a fused call with n inputs in errors.
func fusedRoles(n int) []string {
	if 1+n <= len(rolesFused) {
		return rolesFused[:1+n]
	}
	r := append([]string(nil), rolesFused...)
	for i := len(r) - 1; i < n; i++ {
		r = append(r, fmt.Sprintf("input %d", i))
	}
	return r
}

var _ device.FusedReducer = (*gpu)(nil)

// FusedReduce reduces a fused program's values without storing them: one
// generated kernel evaluates the program and folds it into partial
// results, the reduce kernel combines them (gpucore.Planner.FusedReduce,
// which says what it declines with ErrUnsupported).
func (g *gpu) FusedReduce(op device.ReduceOp, dst device.Operand, p device.Program, inputs []device.Operand, axes []int) error {
	operands := make([]device.Operand, 0, 1+len(inputs))
	operands = append(operands, dst)
	operands = append(operands, inputs...)
	return g.do("FusedReduce", fusedRoles(len(inputs)), func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.FusedReduce("FusedReduce", op, o[0], p, o[1:], axes, g.fusedKernelLocked)
	}, operands...)
}
