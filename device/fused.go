package device

import (
	"fmt"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// A Program is a fused elementwise expression: a list of steps in
// dependency order whose last step is the result. The tensor layer records
// chains of elementwise operations (lazily) and hands them to a backend as
// one Program, so that the chain reads each input once and writes one
// output, with no intermediate tensors.
//
// Every step computes in DType (a float dtype); F16 and BF16 programs may
// compute in float32 and round once into the result, as the unfused
// operations do.
type Program struct {
	DType dtype.DType
	Steps []Step
}

// StepKind says what a Step computes.
type StepKind uint8

// The step kinds.
const (
	StepInput  StepKind = iota // the element of input Input (an Operand of dst's shape)
	StepConst                  // the constant Const, converted to the program's dtype
	StepUnary                  // Unary applied to step A
	StepBinary                 // Binary applied to steps A and B
)

// Step is one node of a Program. A and B index earlier steps.
type Step struct {
	Kind   StepKind
	Input  int
	Const  float64
	Unary  UnaryOp
	Binary BinaryOp
	A, B   int
}

// Fuser is implemented by backends that run a Program as one kernel. The
// inputs have dst's shape (broadcasting is a zero stride) and the
// program's dtype; dst does not alias them. Backends without it get the
// Program run as one Unary/Binary call per step.
type Fuser interface {
	Fused(dst Operand, p Program, inputs []Operand) error
}

// MultiFuser is implemented by backends that compute several results of
// one Program in one kernel: dsts[k] receives step outs[k] (distinct
// unary or binary steps, in any order). A step that is an output may be
// read by later steps, which see its value as stored (rounded to the
// dtype). Every dst has the inputs' shape and the program's dtype, and no
// dst shares its buffer with an input or another dst. An optimiser's
// update (a moment and the value that reads it) is one pass over memory
// this way instead of one per result. Backends without it get one Fused
// call per result, each later one reading the results already computed.
type MultiFuser interface {
	FusedMulti(dsts []Operand, p Program, outs []int, inputs []Operand) error
}

// ValidateOutputs checks outs, the result steps of a MultiFuser call with
// n destinations: as many as the destinations, distinct, each an existing
// unary or binary step of p.
func (p Program) ValidateOutputs(pkg string, outs []int, n int) error {
	if len(outs) != n || n == 0 {
		return errs.New(pkg, "FusedMulti", errs.ErrValue, "%d outputs for %d destinations", len(outs), n)
	}
	for k, o := range outs {
		if o < 0 || o >= len(p.Steps) {
			return errs.New(pkg, "FusedMulti", errs.ErrValue, "output %d is step %d of %d", k, o, len(p.Steps))
		}
		if kind := p.Steps[o].Kind; kind != StepUnary && kind != StepBinary {
			return errs.New(pkg, "FusedMulti", errs.ErrValue, "output %d (step %d) is not an operation", k, o)
		}
		for _, q := range outs[:k] {
			if q == o {
				return errs.New(pkg, "FusedMulti", errs.ErrValue, "step %d is output twice", o)
			}
		}
	}
	return nil
}

// LastUses returns, for each step, the index of the last step that reads
// it (0 for a step nothing reads): after that step its value may be
// dropped or its storage reused.
func (p Program) LastUses() []int { return p.LastUsesInto(nil) }

// LastUsesInto is LastUses written into buf's storage when it is large
// enough, so that a caller planning many programs allocates nothing.
func (p Program) LastUsesInto(buf []int) []int {
	last := buf[:0]
	if cap(last) < len(p.Steps) {
		last = make([]int, len(p.Steps))
	}
	last = last[:len(p.Steps)]
	clear(last)
	for i, s := range p.Steps {
		switch s.Kind {
		case StepUnary:
			last[s.A] = i
		case StepBinary:
			last[s.A], last[s.B] = i, i
		}
	}
	return last
}

// Validate checks that p is well formed for n inputs: steps refer only to
// earlier steps and existing inputs, every op exists and accepts the
// program's dtype, and no step is a comparison, logical operation or
// predicate (whose Bool result would change the dtype mid-program).
func (p Program) Validate(pkg string, n int) error {
	bad := func(i int, format string, args ...any) error {
		return errs.New(pkg, "Fused", errs.ErrValue, "step %d: %s", i, fmt.Sprintf(format, args...))
	}
	if len(p.Steps) == 0 {
		return errs.New(pkg, "Fused", errs.ErrValue, "empty program")
	}
	if !p.DType.IsFloat() {
		return errs.New(pkg, "Fused", errs.ErrDType, "programs compute in a float dtype, have %v", p.DType)
	}
	for i, s := range p.Steps {
		switch s.Kind {
		case StepInput:
			if s.Input < 0 || s.Input >= n {
				return bad(i, "input %d of %d", s.Input, n)
			}
		case StepConst:
		case StepUnary:
			if s.A < 0 || s.A >= i {
				return bad(i, "operand %d is not an earlier step", s.A)
			}
			if s.Unary.IsPredicate() {
				return bad(i, "predicate %v changes the dtype", s.Unary)
			}
			if _, err := s.Unary.Result(pkg, p.DType); err != nil {
				return err
			}
		case StepBinary:
			if s.A < 0 || s.A >= i || s.B < 0 || s.B >= i {
				return bad(i, "operands %d, %d are not earlier steps", s.A, s.B)
			}
			if s.Binary.IsComparison() {
				return bad(i, "comparison %v changes the dtype", s.Binary)
			}
			if _, err := s.Binary.Result(pkg, p.DType, p.DType); err != nil {
				return err
			}
		default:
			return bad(i, "unknown kind %d", s.Kind)
		}
	}
	return nil
}

// FusedReducer is implemented by backends that reduce the result of a
// Program without materialising it: x.Square().Sum() reads x once and
// writes only the sum. The inputs have the program's (common) shape, dst
// that shape without axes (sorted, distinct). Sum, Mean, Prod, Max and Min
// are fused; a backend returns an error wrapping errs.ErrUnsupported for
// what it cannot fuse (the arg reductions, work beyond its limits), and
// the caller then realises the program and reduces its result.
type FusedReducer interface {
	FusedReduce(op ReduceOp, dst Operand, p Program, inputs []Operand, axes []int) error
}

// ReduceOrder returns the permutation of a rank-r shape that puts the
// kept axes first and the reduced axes (sorted) last, both in their
// original order. Walked in row-major order of the permuted shape, the
// elements folded into one output are consecutive, and the outputs come
// in dst's row-major order: the order both backends evaluate a fused
// reduction's program in.
func ReduceOrder(rank int, axes []int) []int {
	perm := make([]int, 0, rank)
	red := make([]bool, rank)
	for _, a := range axes {
		red[a] = true
	}
	for i := range rank {
		if !red[i] {
			perm = append(perm, i)
		}
	}
	return append(perm, axes...)
}

// FusesReduce reports whether op may take a fused prologue: every
// reduction but the arg ones, whose index would need the program's
// logical order.
func FusesReduce(op ReduceOp) bool { return !op.IsArg() }
