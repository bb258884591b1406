package tensor

import (
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

//go:generate go run ../internal/opgen/gen

// The elementwise methods (Neg ... Softplus, Add ... Ge and their Scalar
// forms) are generated from the op table into ops_gen.go.

// Unary applies a unary elementwise operation by its op-table entry; the
// named methods (Tanh, Relu, ...) call it. Useful for code that ranges over
// device.UnaryOps().
func (t *Tensor) Unary(op device.UnaryOp) *Tensor { return t.unary(op) }

func (t *Tensor) unary(op device.UnaryOp) *Tensor {
	y := t.unaryNoGrad(op)
	if t.wantsGrad() {
		y = gradUnary(op, t, y)
	}
	return y
}

func (t *Tensor) unaryNoGrad(op device.UnaryOp) *Tensor {
	name := op.String()
	if err := t.checkOperand(name); err != nil {
		return failed(err)
	}
	def, ok := op.Def()
	if ok && def.IntegerIdentity && t.DType().IsInt() {
		return t.Clone() // rounding an integer leaves it as it is
	}
	if ok && def.Accepts == device.Floats && !t.DType().IsFloat() {
		// A float function of integers or Bool computes in F32, as PyTorch's
		// (Sqrt of I32 is F32; NumPy gives F64).
		f := t.Cast(dtype.F32)
		defer f.Release()
		return f.unaryNoGrad(op)
	}
	dt, err := op.Result("tensor", t.DType())
	if err != nil {
		return failed(err)
	}
	if fusible(dt) {
		lay, err := layoutFor(t.lay.Shape, t)
		if err != nil {
			return failed(errs.Retag("tensor", name, err))
		}
		return record(name, t.Device(), dt, lay, node{kind: device.StepUnary, unary: op}, t)
	}
	return compute(name, dt, t.lay.Shape, []*Tensor{t}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		return be.Unary(op, dst, src[0])
	})
}

// binary broadcasts a and b by NumPy's rule, casts them to the dtype op
// computes in (PromoteTypes; true division for Div) and applies op.
func binary(op device.BinaryOp, a, b *Tensor) *Tensor {
	if pa, pb := promoteBinary(op, a, b); pa != a || pb != b {
		if pa != a {
			defer pa.Release()
		}
		if pb != b {
			defer pb.Release()
		}
		a, b = pa, pb
	}
	if err := checkIntB(op, a, b); err != nil {
		return failed(err)
	}
	if a.DType() == dtype.Bool && b.DType() == dtype.Bool {
		// NumPy's maximum, minimum, add and multiply of two Bool arrays
		// (and PyTorch's): the logical or and and, which the backends
		// have for Bool. Subtraction and the rest stay ErrDType, as there.
		switch op {
		case device.Maximum, device.Add:
			return retag(op.String(), binaryChecked(device.Or, a, b))
		case device.Minimum, device.Mul:
			return retag(op.String(), binaryChecked(device.And, a, b))
		}
	}
	return binaryChecked(op, a, b)
}

// binaryChecked is binary once b's values are known to be in op's domain.
func binaryChecked(op device.BinaryOp, a, b *Tensor) *Tensor {
	y := binaryNoGrad(op, a, b)
	if a.wantsGrad() || b.wantsGrad() {
		y = gradBinary(op, a, b, 0, y)
	}
	return y
}

func binaryNoGrad(op device.BinaryOp, a, b *Tensor) *Tensor {
	name := op.String()
	if err := a.checkOperand(name); err != nil {
		return failed(err)
	}
	if err := b.checkOperand(name); err != nil {
		return failed(err)
	}
	out, err := op.Result("tensor", a.DType(), b.DType())
	if err != nil {
		return failed(err)
	}
	shape := a.lay.Shape
	if !slices.Equal(a.lay.Shape, b.lay.Shape) {
		if shape, err = layout.BroadcastShapes(a.lay.Shape, b.lay.Shape); err != nil {
			return fail(name, errs.ErrShape, "shapes %v and %v are not broadcastable", a.lay.Shape, b.lay.Shape)
		}
	}
	if fusible(out) && !op.IsComparison() {
		if a.Device() != b.Device() {
			return fail(name, errs.ErrDevice, "operands on different devices: %s and %s (move one with To)", a.Device().Name(), b.Device().Name())
		}
		lay, err := layoutFor(shape, a, b)
		if err != nil {
			return failed(errs.Retag("tensor", name, err))
		}
		return record(name, a.Device(), out, lay, node{kind: device.StepBinary, binary: op}, a, b)
	}
	for _, x := range []*Tensor{a, b} {
		if err := x.check(name); err != nil {
			return failed(err)
		}
	}
	al, _ := a.lay.BroadcastTo(shape...)
	bl, _ := b.lay.BroadcastTo(shape...)
	return compute(name, out, shape, []*Tensor{a, b}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		s := withLayouts(src, al, bl)
		return be.Binary(op, dst, s[0], s[1])
	})
}

// scalarLike builds a rank-0 tensor of t's dtype holding v on t's device.
func (t *Tensor) scalarLike(op string, v float64) *Tensor {
	if err := t.check(op); err != nil {
		return failed(err)
	}
	st, err := newStorage(op, t.st.dev, t.DType(), 1)
	if err != nil {
		return failed(err)
	}
	l := layout.Layout{Shape: []int{}, Strides: []int{}}
	if err := t.st.dev.Backend().Fill(device.Operand{Buf: st.buf, Layout: l}, v); err != nil {
		st.release()
		return failed(errs.Retag("tensor", op, err))
	}
	return wrap(st, l)
}

func (t *Tensor) binaryScalar(op device.BinaryOp, v float64) *Tensor {
	if r, ok := t.scalarOnInt(op, v); ok {
		return r
	}
	if fusible(t.DType()) && !op.IsComparison() {
		name := op.String()
		if err := t.checkOperand(name); err != nil {
			return failed(err)
		}
		if _, err := op.Result("tensor", t.DType(), t.DType()); err != nil {
			return failed(err)
		}
		lay, err := layoutFor(t.lay.Shape, t)
		if err != nil {
			return failed(errs.Retag("tensor", name, err))
		}
		n := node{kind: device.StepBinary, binary: op}
		n.ops[1] = operandRef{c: v} // the constant operand
		y := record(name, t.Device(), t.DType(), lay, n, t)
		if t.wantsGrad() {
			y = gradBinary(op, t, nil, v, y)
		}
		return y
	}
	if def, _ := op.Def(); def.NonNegativeIntB && t.err == nil && device.Ints.Has(t.DType()) {
		if err := negativeIntB(op, v); err != nil {
			return failed(err)
		}
	}
	s := t.scalarLike(op.String(), v)
	defer s.Release()
	return binaryChecked(op, t, s)
}

// Clamp limits every element to [lo, hi]: min(max(t, lo), hi), as NumPy's
// clip and PyTorch's clamp. NaN stays NaN, a NaN bound is no bound (NumPy's
// clip), and lo > hi gives hi everywhere (as both libraries). Integer t
// with a bound that is not one of its values computes in F32 (see
// PromoteTypes).
func (t *Tensor) Clamp(lo, hi float64) *Tensor {
	switch {
	case lo != lo && hi != hi:
		return t.Clone()
	case lo != lo:
		return t.MinimumScalar(hi)
	case hi != hi:
		return t.MaximumScalar(lo)
	}
	m := t.MaximumScalar(lo)
	defer m.Release()
	return m.MinimumScalar(hi)
}

// Where returns a where cond is true and b elsewhere; the three broadcast
// together. As in NumPy, cond of any dtype counts nonzero (NaN included)
// as true, and a and b of different dtypes are cast to ResultType of the
// two (a 0-d operand does not widen the other within its category).
func Where(cond, a, b *Tensor) *Tensor {
	for _, x := range []*Tensor{cond, a, b} {
		if err := x.check("Where"); err != nil {
			return failed(err)
		}
	}
	if cond.DType() != dtype.Bool {
		c := cond.NeScalar(0)
		defer c.Release()
		return Where(c, a, b)
	}
	if a.DType() != b.DType() {
		dt := ResultType(a, b)
		ca, cb := a.Cast(dt), b.Cast(dt)
		defer ca.Release()
		defer cb.Release()
		return Where(cond, ca, cb)
	}
	shape, err := layout.BroadcastShapes(cond.lay.Shape, a.lay.Shape, b.lay.Shape)
	if err != nil {
		return fail("Where", errs.ErrShape, "shapes %v, %v and %v are not broadcastable", cond.lay.Shape, a.lay.Shape, b.lay.Shape)
	}
	cl, _ := cond.lay.BroadcastTo(shape...)
	al, _ := a.lay.BroadcastTo(shape...)
	bl, _ := b.lay.BroadcastTo(shape...)
	y := compute("Where", a.DType(), shape, []*Tensor{cond, a, b}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		s := withLayouts(src, cl, al, bl)
		return be.Where(dst, s[0], s[1], s[2])
	})
	if a.wantsGrad() || b.wantsGrad() {
		y = gradWhere(cond, a, b, y)
	}
	return y
}

// Where is the method form of the package function: t.Where(cond, other)
// picks t where cond holds, else other.
func (t *Tensor) Where(cond, other *Tensor) *Tensor { return Where(cond, t, other) }
