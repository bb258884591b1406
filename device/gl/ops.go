//go:build cgo && linux

package gl

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
)

// The operations come from gpucore.Ops, which the device embeds: each
// names its operands' roles, asks the planner for a plan, and calls Run.

// Run is every operation's prologue and epilogue (gpucore.Executor): on
// the owner goroutine it checks each operand is a live buffer of this
// device, validates its view (roles name them in errors), plans, and runs
// the plan.
func (g *gpu) Run(op string, roles []string, plan func([]gpucore.Operand) (*gpucore.Plan, error), operands ...device.Operand) error {
	return g.call(op, func() error {
		ops := make([]gpucore.Operand, len(operands))
		for i, o := range operands {
			b, err := g.own(op, roles[i], o.Buf)
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
		return g.run(op, pl)
	})
}
