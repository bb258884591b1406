//go:build cgo && linux

package gl

import (
	"fmt"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
)

// The operations: each validates its operands, asks the planner for a plan
// and runs it, on the owner goroutine. Shape, dtype and limit rules live
// in gpucore, shared with the WebGPU backend.

// planFunc plans an operation over validated operands (in the order the
// entry point passed them).
type planFunc func(ops []gpucore.Operand) (*gpucore.Plan, error)

// do is every operation's prologue and epilogue: on the owner goroutine it
// checks each operand is a live buffer of this device, validates its view
// (roles name them in errors), plans, and runs the plan.
func (g *gpu) do(op string, roles []string, plan planFunc, operands ...device.Operand) error {
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

var (
	rolesD    = []string{"dst"}
	rolesDS   = []string{"dst", "src"}
	rolesDAB  = []string{"dst", "a", "b"}
	rolesDCAB = []string{"dst", "cond", "a", "b"}
)

// Fill writes v, converted to the operand's dtype, to every element.
func (g *gpu) Fill(dst device.Operand, v float64) error {
	return g.do("Fill", rolesD, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Fill("Fill", o[0], v)
	}, dst)
}

// Copy writes src into dst element by element, converting the dtype.
// Same-dtype copies move bits (NaN payloads and subnormals survive).
func (g *gpu) Copy(dst, src device.Operand) error {
	return g.do("Copy", rolesDS, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Copy("Copy", o[0], o[1])
	}, dst, src)
}

// Unary applies op elementwise; dst has src's dtype.
func (g *gpu) Unary(op device.UnaryOp, dst, src device.Operand) error {
	return g.do("Unary", rolesDS, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Unary("Unary", op, o[0], o[1])
	}, dst, src)
}

// Binary applies op elementwise to a and b, which have dst's shape
// (broadcasting is a zero stride). Comparisons write Bool.
func (g *gpu) Binary(op device.BinaryOp, dst, a, b device.Operand) error {
	return g.do("Binary", rolesDAB, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Binary("Binary", op, o[0], o[1], o[2])
	}, dst, a, b)
}

// Where writes a where cond (Bool) is true, else b.
func (g *gpu) Where(dst, cond, a, b device.Operand) error {
	return g.do("Where", rolesDCAB, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Where("Where", o[0], o[1], o[2], o[3])
	}, dst, cond, a, b)
}

// Reduce reduces src over axes (sorted, distinct) into dst, whose shape is
// src's without those axes (see gpucore.Planner.Reduce).
func (g *gpu) Reduce(op device.ReduceOp, dst, src device.Operand, axes []int) error {
	return g.do("Reduce", rolesDS, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Reduce("Reduce", op, o[0], o[1], axes)
	}, dst, src)
}

// Softmax writes softmax (log-softmax when log is set) of src along axis
// into dst; both are F32 or F16 views of the same shape.
func (g *gpu) Softmax(dst, src device.Operand, axis int, log bool) error {
	return g.do("Softmax", rolesDS, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Softmax("Softmax", o[0], o[1], axis, log)
	}, dst, src)
}

// Matmul multiplies a [..., m, k] by b [..., k, n] into dst [..., m, n].
// Row-major, transposed and narrowed operands are read in place (see
// gpucore.Planner.Matmul).
func (g *gpu) Matmul(dst, a, b device.Operand) error {
	return g.matmulWith("Matmul", dst, a, b, "")
}

// matmulWith runs Matmul with a kernel variant ("" for the device's
// choice); benchmarks compare the variants with it.
func (g *gpu) matmulWith(name string, dst, a, b device.Operand, variant string) error {
	return g.do(name, rolesDAB, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Matmul(name, o[0], o[1], o[2], variant)
	}, dst, a, b)
}

// Fused runs a fused elementwise program as one kernel (one dispatch per
// box when the operands exceed the binding limits; see
// gpucore.Planner.Fused).
func (g *gpu) Fused(dst device.Operand, p device.Program, inputs []device.Operand) error {
	operands := make([]device.Operand, 0, 1+len(inputs))
	operands = append(operands, dst)
	operands = append(operands, inputs...)
	roles := make([]string, len(operands))
	roles[0] = "dst"
	for i := range inputs {
		roles[i+1] = fmt.Sprintf("input %d", i)
	}
	return g.do("Fused", roles, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Fused("Fused", o[0], p, o[1:], g.fusedKernel)
	}, operands...)
}

var (
	_ device.Indexer = (*gpu)(nil)
	_ device.Scanner = (*gpu)(nil)
	_ device.Sorter  = (*gpu)(nil)

	rolesGather  = []string{"dst", "src", "idx", "status"}
	rolesScatter = []string{"dst", "idx", "src", "status"}
	rolesSort    = []string{"vals", "idx", "src"}
)

// Gather writes dst[p] = src[p with axis coordinate idx[p]]; bad indices
// go to status (see device.Indexer and gpucore.Planner.Gather).
func (g *gpu) Gather(dst, src, idx, status device.Operand, axis int) error {
	return g.do("Gather", rolesGather, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Gather("Gather", o[0], o[1], o[2], o[3], axis)
	}, dst, src, idx, status)
}

// ScatterAdd adds src into dst at the positions idx names along axis (see
// device.Indexer and gpucore.Planner.ScatterAdd).
func (g *gpu) ScatterAdd(dst, idx, src, status device.Operand, axis int) error {
	return g.do("ScatterAdd", rolesScatter, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.ScatterAdd("ScatterAdd", o[0], o[1], o[2], o[3], axis)
	}, dst, idx, src, status)
}

// Scan writes the inclusive running sum or product along axis (see
// gpucore.Planner.Scan).
func (g *gpu) Scan(op device.ScanOp, dst, src device.Operand, axis int) error {
	return g.do(op.String(), rolesDS, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Scan(op, o[0], o[1], axis)
	}, dst, src)
}

// Sort sorts src along axis into vals and idx (see gpucore.Planner.Sort).
func (g *gpu) Sort(vals, idx, src device.Operand, axis int, descending bool) error {
	return g.do("Sort", rolesSort, func(o []gpucore.Operand) (*gpucore.Plan, error) {
		return g.plan.Sort("Sort", o[0], o[1], o[2], axis, descending)
	}, vals, idx, src)
}
