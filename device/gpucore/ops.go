package gpucore

import (
	"fmt"

	"github.com/tessera-go/tessera/device"
)

// Executor is the part of a GPU backend that differs between APIs: it runs
// plans. Everything else about an operation (its operands' roles, which
// planner call makes its plan) is the same on every GPU backend, and Ops
// supplies it once.
type Executor interface {
	// Run validates operands under the device's lock or on its owner
	// thread (each must be a live buffer of the device, seen through a
	// valid layout; roles name them in errors), asks plan for a plan over
	// them, and runs it.
	Run(op string, roles []string, plan func(ops []Operand) (*Plan, error), operands ...device.Operand) error
}

// Ops implements the backend operations of a GPU device by planning with
// Planner and running with Executor: device.Backend's elementwise, reduce
// and matmul calls and the optional Softmaxer, Fuser, FusedReducer,
// Indexer, Scanner and Sorter. A backend embeds it, so its methods are the
// backend's.
type Ops struct {
	Executor Executor
	Planner  *Planner
	// FusedKernel returns the kernel of a fused program's structural key,
	// building it on first use (a KernelCache of the executor's, whose
	// evictions release compiled programs).
	FusedKernel func(key string, build func() *Kernel) *Kernel
}

var (
	rolesD       = []string{"dst"}
	rolesDS      = []string{"dst", "src"}
	rolesDAB     = []string{"dst", "a", "b"}
	rolesDCAB    = []string{"dst", "cond", "a", "b"}
	rolesGather  = []string{"dst", "src", "idx", "status"}
	rolesScatter = []string{"dst", "idx", "src", "status"}
	rolesSort    = []string{"vals", "idx", "src"}
	rolesFused   = []string{"dst", "input 0", "input 1", "input 2", "input 3", "input 4", "input 5"}
)

// Fill writes v, converted to the operand's dtype, to every element (I64
// included: its outputs are pre-filled by callers).
func (o Ops) Fill(dst device.Operand, v float64) error {
	return o.Executor.Run("Fill", rolesD, func(x []Operand) (*Plan, error) {
		return o.Planner.Fill("Fill", x[0], v)
	}, dst)
}

// Copy writes src into dst element by element, converting the dtype.
// Same-dtype copies move bits (NaN payloads and subnormals survive).
func (o Ops) Copy(dst, src device.Operand) error {
	return o.Executor.Run("Copy", rolesDS, func(x []Operand) (*Plan, error) {
		return o.Planner.Copy("Copy", x[0], x[1])
	}, dst, src)
}

// Unary applies op elementwise; dst has src's dtype.
func (o Ops) Unary(op device.UnaryOp, dst, src device.Operand) error {
	return o.Executor.Run("Unary", rolesDS, func(x []Operand) (*Plan, error) {
		return o.Planner.Unary("Unary", op, x[0], x[1])
	}, dst, src)
}

// Binary applies op elementwise to a and b, which have dst's shape
// (broadcasting is a zero stride). Comparisons write Bool; Bool operands
// take only Eq and Ne.
func (o Ops) Binary(op device.BinaryOp, dst, a, b device.Operand) error {
	return o.Executor.Run("Binary", rolesDAB, func(x []Operand) (*Plan, error) {
		return o.Planner.Binary("Binary", op, x[0], x[1], x[2])
	}, dst, a, b)
}

// Where writes a where cond (Bool) is true, else b.
func (o Ops) Where(dst, cond, a, b device.Operand) error {
	return o.Executor.Run("Where", rolesDCAB, func(x []Operand) (*Plan, error) {
		return o.Planner.Where("Where", x[0], x[1], x[2], x[3])
	}, dst, cond, a, b)
}

// Reduce reduces src over axes (sorted, distinct) into dst, whose shape is
// src's without those axes (see Planner.Reduce for the rules).
func (o Ops) Reduce(op device.ReduceOp, dst, src device.Operand, axes []int) error {
	return o.Executor.Run("Reduce", rolesDS, func(x []Operand) (*Plan, error) {
		return o.Planner.Reduce("Reduce", op, x[0], x[1], axes)
	}, dst, src)
}

// Softmax writes softmax (log-softmax when log is set) of src along axis
// into dst; both are F32 or F16 views of the same shape.
func (o Ops) Softmax(dst, src device.Operand, axis int, log bool) error {
	return o.Executor.Run("Softmax", rolesDS, func(x []Operand) (*Plan, error) {
		return o.Planner.Softmax("Softmax", x[0], x[1], axis, log)
	}, dst, src)
}

// Norm normalises the rows of src (device.Normer; see Planner.Norm).
// weight and bias are absent when their Buf is nil.
func (o Ops) Norm(op device.NormOp, dst, stats, src, weight, bias device.Operand, eps float64) error {
	roles, ops := []string{"dst", "stats", "src"}, []device.Operand{dst, stats, src}
	hasW, hasB := weight.Buf != nil, bias.Buf != nil
	if hasW {
		roles, ops = append(roles, "weight"), append(ops, weight)
	}
	if hasB {
		roles, ops = append(roles, "bias"), append(ops, bias)
	}
	return o.Executor.Run(op.String(), roles, func(x []Operand) (*Plan, error) {
		var w, b *Operand
		i := 3
		if hasW {
			w, i = &x[i], i+1
		}
		if hasB {
			b = &x[i]
		}
		return o.Planner.Norm(op.String(), op, x[0], x[1], x[2], w, b, eps)
	}, ops...)
}

// Attention is fused scaled dot-product attention (device.Attender; see
// Planner.Attention); mask is absent when its Buf is nil.
func (o Ops) Attention(dst, q, k, v, mask device.Operand, opt device.AttentionOptions) error {
	roles, ops := []string{"dst", "q", "k", "v"}, []device.Operand{dst, q, k, v}
	if mask.Buf != nil {
		roles, ops = append(roles, "mask"), append(ops, mask)
	}
	return o.Executor.Run("Attention", roles, func(x []Operand) (*Plan, error) {
		var m *Operand
		if len(x) > 4 {
			m = &x[4]
		}
		return o.Planner.Attention("Attention", x[0], x[1], x[2], x[3], m, opt)
	}, ops...)
}

// Matmul multiplies a [..., m, k] by b [..., k, n] into dst [..., m, n];
// all share the batch shape (a broadcast batch has stride 0). Row-major,
// transposed and narrowed operands are read in place (see
// Planner.Matmul).
func (o Ops) Matmul(dst, a, b device.Operand) error {
	return o.MatmulWith("Matmul", dst, a, b, "")
}

// MatmulWith runs Matmul with a kernel variant ("" for the device's
// choice); tests and benchmarks compare the variants with it.
func (o Ops) MatmulWith(name string, dst, a, b device.Operand, variant string) error {
	return o.Executor.Run(name, rolesDAB, func(x []Operand) (*Plan, error) {
		return o.Planner.Matmul(name, x[0], x[1], x[2], variant)
	}, dst, a, b)
}

// Fused runs a fused elementwise program as one kernel (one dispatch per
// box when the operands exceed the binding limits; see Planner.Fused).
func (o Ops) Fused(dst device.Operand, p device.Program, inputs []device.Operand) error {
	return o.Executor.Run("Fused", fusedRoles(len(inputs)), func(x []Operand) (*Plan, error) {
		return o.Planner.Fused("Fused", x[0], p, x[1:], o.FusedKernel)
	}, append([]device.Operand{dst}, inputs...)...)
}

// FusedReduce reduces a fused program's values without storing them: one
// generated kernel evaluates the program and folds it into partial
// results, the reduce kernel combines them (Planner.FusedReduce, which
// says what it declines with ErrUnsupported).
func (o Ops) FusedReduce(op device.ReduceOp, dst device.Operand, p device.Program, inputs []device.Operand, axes []int) error {
	return o.Executor.Run("FusedReduce", fusedRoles(len(inputs)), func(x []Operand) (*Plan, error) {
		return o.Planner.FusedReduce("FusedReduce", op, x[0], p, x[1:], axes, o.FusedKernel)
	}, append([]device.Operand{dst}, inputs...)...)
}

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

// Gather writes dst[p] = src[p with axis coordinate idx[p]]; bad indices
// go to status (see device.Indexer and Planner.Gather).
func (o Ops) Gather(dst, src, idx, status device.Operand, axis int) error {
	return o.Executor.Run("Gather", rolesGather, func(x []Operand) (*Plan, error) {
		return o.Planner.Gather("Gather", x[0], x[1], x[2], x[3], axis)
	}, dst, src, idx, status)
}

// ScatterAdd adds src into dst at the positions idx names along axis (see
// device.Indexer and Planner.ScatterAdd).
func (o Ops) ScatterAdd(dst, idx, src, status device.Operand, axis int) error {
	return o.Executor.Run("ScatterAdd", rolesScatter, func(x []Operand) (*Plan, error) {
		return o.Planner.ScatterAdd("ScatterAdd", x[0], x[1], x[2], x[3], axis)
	}, dst, idx, src, status)
}

// Scan writes the inclusive running sum or product along axis (see
// Planner.Scan).
func (o Ops) Scan(op device.ScanOp, dst, src device.Operand, axis int) error {
	return o.Executor.Run(op.String(), rolesDS, func(x []Operand) (*Plan, error) {
		return o.Planner.Scan(op, x[0], x[1], axis)
	}, dst, src)
}

// Sort sorts src along axis into vals and idx (see Planner.Sort).
func (o Ops) Sort(vals, idx, src device.Operand, axis int, descending bool) error {
	return o.Executor.Run("Sort", rolesSort, func(x []Operand) (*Plan, error) {
		return o.Planner.Sort("Sort", x[0], x[1], x[2], axis, descending)
	}, vals, idx, src)
}

// The optional capabilities every GPU backend gets by embedding Ops.
var (
	_ device.Softmaxer    = Ops{}
	_ device.Normer       = Ops{}
	_ device.Attender     = Ops{}
	_ device.Fuser        = Ops{}
	_ device.FusedReducer = Ops{}
	_ device.Indexer      = Ops{}
	_ device.Scanner      = Ops{}
	_ device.Sorter       = Ops{}
)
