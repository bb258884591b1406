//go:build cgo

package webgpu

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/errs"
)

// The operations come from gpucore.Ops, which the device embeds: each
// names its operands' roles, asks the planner for a plan, and calls Run.

// Run is every operation's prologue and epilogue (gpucore.Executor): under
// the lock, it checks the device is usable, validates each operand (roles
// name them in errors), plans, and runs the plan.
func (g *gpu) Run(op string, roles []string, plan func([]gpucore.Operand) (*gpucore.Plan, error), operands ...device.Operand) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usableLocked(op); err != nil {
		return err
	}
	ops := make([]gpucore.Operand, len(operands))
	for i, o := range operands {
		b, err := g.ownLocked(op, roles[i], o.Buf)
		if err != nil {
			return err
		}
		if ops[i], err = g.plan.NewOperand(op, roles[i], b, o.Layout); err != nil {
			return err
		}
	}
	pl, err := plan(ops)
	if err != nil {
		return err
	}
	return g.runLocked(op, pl)
}

// ownLocked checks that buf is a live buffer of this device.
func (g *gpu) ownLocked(op, role string, buf device.Buffer) (*gbuf, error) {
	if buf == nil {
		return nil, errs.New("webgpu", op, errs.ErrDevice, "%s buffer is nil", role)
	}
	b, ok := buf.(*gbuf)
	if !ok || b == nil {
		return nil, errs.New("webgpu", op, errs.ErrDevice, "%s buffer (%T) does not belong to device %q", role, buf, g.name)
	}
	if b.g != g {
		return nil, errs.New("webgpu", op, errs.ErrDevice, "%s buffer belongs to device %q, not %q", role, b.g.name, g.name)
	}
	if b.freed {
		return nil, errs.New("webgpu", op, errs.ErrReleased, "%s buffer was freed", role)
	}
	return b, nil
}
