package tensor

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

func (t *Tensor) unary(op device.UnaryOp) *Tensor {
	name := op.String()
	if err := t.check(name); err != nil {
		return failed(err)
	}
	dt := t.DType()
	switch {
	case dt == dtype.Bool:
		return fail(name, errs.ErrDType, "not defined for bool (Cast first)")
	case op.FloatOnly() && !dt.IsFloat():
		return fail(name, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", dt)
	}
	return compute(name, dt, t.lay.Shape, []*Tensor{t}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		return be.Unary(op, dst, src[0])
	})
}

// Neg returns -t.
func (t *Tensor) Neg() *Tensor { return t.unary(device.Neg) }

// Abs returns |t|.
func (t *Tensor) Abs() *Tensor { return t.unary(device.Abs) }

// Sign returns -1, 0 or 1 for each element (NaN stays NaN).
func (t *Tensor) Sign() *Tensor { return t.unary(device.Sign) }

// Square returns t*t.
func (t *Tensor) Square() *Tensor { return t.unary(device.Square) }

// Relu returns max(t, 0); NaN stays NaN.
func (t *Tensor) Relu() *Tensor { return t.unary(device.Relu) }

// Exp returns e^t.
func (t *Tensor) Exp() *Tensor { return t.unary(device.Exp) }

// Log returns the natural logarithm.
func (t *Tensor) Log() *Tensor { return t.unary(device.Log) }

// Sqrt returns the square root.
func (t *Tensor) Sqrt() *Tensor { return t.unary(device.Sqrt) }

// Rsqrt returns 1/sqrt(t).
func (t *Tensor) Rsqrt() *Tensor { return t.unary(device.Rsqrt) }

// Sin returns the sine.
func (t *Tensor) Sin() *Tensor { return t.unary(device.Sin) }

// Cos returns the cosine.
func (t *Tensor) Cos() *Tensor { return t.unary(device.Cos) }

// Tanh returns the hyperbolic tangent.
func (t *Tensor) Tanh() *Tensor { return t.unary(device.Tanh) }

// Sigmoid returns 1/(1+e^-t), without overflow for large |t|.
func (t *Tensor) Sigmoid() *Tensor { return t.unary(device.Sigmoid) }

// Gelu returns the Gaussian error linear unit in its exact erf form,
// x/2 * (1 + erf(x/sqrt 2)).
func (t *Tensor) Gelu() *Tensor { return t.unary(device.GeluErf) }

// GeluTanh returns Gelu's tanh approximation,
// x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
func (t *Tensor) GeluTanh() *Tensor { return t.unary(device.GeluTanh) }

// Erf returns the error function.
func (t *Tensor) Erf() *Tensor { return t.unary(device.Erf) }

// Log1p returns log(1+t), accurate for small t.
func (t *Tensor) Log1p() *Tensor { return t.unary(device.Log1p) }

// Expm1 returns e^t - 1, accurate for small t.
func (t *Tensor) Expm1() *Tensor { return t.unary(device.Expm1) }

// Floor rounds toward -Inf.
func (t *Tensor) Floor() *Tensor { return t.unary(device.Floor) }

// Ceil rounds toward +Inf.
func (t *Tensor) Ceil() *Tensor { return t.unary(device.Ceil) }

// Round rounds to the nearest integer, halves to even (as NumPy and PyTorch).
func (t *Tensor) Round() *Tensor { return t.unary(device.Round) }

// Reciprocal returns 1/t.
func (t *Tensor) Reciprocal() *Tensor { return t.unary(device.Reciprocal) }

// binary broadcasts a and b by NumPy's rule and applies op.
func binary(op device.BinaryOp, a, b *Tensor) *Tensor {
	name := op.String()
	if err := a.check(name); err != nil {
		return failed(err)
	}
	if err := b.check(name); err != nil {
		return failed(err)
	}
	adt, bdt := a.DType(), b.DType()
	if adt != bdt {
		return fail(name, errs.ErrDType, "dtypes differ: %v and %v (Cast one first)", adt, bdt)
	}
	switch {
	case adt == dtype.Bool && op != device.Eq && op != device.Ne:
		return fail(name, errs.ErrDType, "not defined for bool (Cast first)")
	case op == device.Pow && !adt.IsFloat():
		return fail(name, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", adt)
	}
	shape, err := layout.BroadcastShapes(a.lay.Shape, b.lay.Shape)
	if err != nil {
		return fail(name, errs.ErrShape, "shapes %v and %v are not broadcastable", a.lay.Shape, b.lay.Shape)
	}
	al, _ := a.lay.BroadcastTo(shape...)
	bl, _ := b.lay.BroadcastTo(shape...)
	out := adt
	if op.IsComparison() {
		out = dtype.Bool
	}
	return compute(name, out, shape, []*Tensor{a, b}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		s := withLayouts(src, al, bl)
		return be.Binary(op, dst, s[0], s[1])
	})
}

// Add returns t + u, broadcasting by NumPy's rule.
func (t *Tensor) Add(u *Tensor) *Tensor { return binary(device.Add, t, u) }

// Sub returns t - u, broadcasting.
func (t *Tensor) Sub(u *Tensor) *Tensor { return binary(device.Sub, t, u) }

// Mul returns t * u elementwise, broadcasting.
func (t *Tensor) Mul(u *Tensor) *Tensor { return binary(device.Mul, t, u) }

// Div returns t / u, broadcasting. Integer division truncates toward zero,
// and an integer divided by zero gives the dividend (as WGSL defines it), so
// the result is the same on every device.
func (t *Tensor) Div(u *Tensor) *Tensor { return binary(device.Div, t, u) }

// Pow returns t raised to u (floating dtypes), broadcasting.
func (t *Tensor) Pow(u *Tensor) *Tensor { return binary(device.Pow, t, u) }

// Maximum returns the elementwise maximum; NaN in either operand wins.
func (t *Tensor) Maximum(u *Tensor) *Tensor { return binary(device.Maximum, t, u) }

// Minimum returns the elementwise minimum; NaN in either operand wins.
func (t *Tensor) Minimum(u *Tensor) *Tensor { return binary(device.Minimum, t, u) }

// Eq returns t == u as Bool, broadcasting.
func (t *Tensor) Eq(u *Tensor) *Tensor { return binary(device.Eq, t, u) }

// Ne returns t != u as Bool, broadcasting.
func (t *Tensor) Ne(u *Tensor) *Tensor { return binary(device.Ne, t, u) }

// Lt returns t < u as Bool, broadcasting.
func (t *Tensor) Lt(u *Tensor) *Tensor { return binary(device.Lt, t, u) }

// Le returns t <= u as Bool, broadcasting.
func (t *Tensor) Le(u *Tensor) *Tensor { return binary(device.Le, t, u) }

// Gt returns t > u as Bool, broadcasting.
func (t *Tensor) Gt(u *Tensor) *Tensor { return binary(device.Gt, t, u) }

// Ge returns t >= u as Bool, broadcasting.
func (t *Tensor) Ge(u *Tensor) *Tensor { return binary(device.Ge, t, u) }

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
	s := t.scalarLike(op.String(), v)
	defer s.Release()
	return binary(op, t, s)
}

// AddScalar returns t + v, with v converted to t's dtype.
func (t *Tensor) AddScalar(v float64) *Tensor { return t.binaryScalar(device.Add, v) }

// SubScalar returns t - v.
func (t *Tensor) SubScalar(v float64) *Tensor { return t.binaryScalar(device.Sub, v) }

// MulScalar returns t * v.
func (t *Tensor) MulScalar(v float64) *Tensor { return t.binaryScalar(device.Mul, v) }

// DivScalar returns t / v.
func (t *Tensor) DivScalar(v float64) *Tensor { return t.binaryScalar(device.Div, v) }

// PowScalar returns t raised to v.
func (t *Tensor) PowScalar(v float64) *Tensor { return t.binaryScalar(device.Pow, v) }

// MaximumScalar returns max(t, v) elementwise.
func (t *Tensor) MaximumScalar(v float64) *Tensor { return t.binaryScalar(device.Maximum, v) }

// MinimumScalar returns min(t, v) elementwise.
func (t *Tensor) MinimumScalar(v float64) *Tensor { return t.binaryScalar(device.Minimum, v) }

// EqScalar returns t == v as Bool.
func (t *Tensor) EqScalar(v float64) *Tensor { return t.binaryScalar(device.Eq, v) }

// NeScalar returns t != v as Bool.
func (t *Tensor) NeScalar(v float64) *Tensor { return t.binaryScalar(device.Ne, v) }

// LtScalar returns t < v as Bool.
func (t *Tensor) LtScalar(v float64) *Tensor { return t.binaryScalar(device.Lt, v) }

// LeScalar returns t <= v as Bool.
func (t *Tensor) LeScalar(v float64) *Tensor { return t.binaryScalar(device.Le, v) }

// GtScalar returns t > v as Bool.
func (t *Tensor) GtScalar(v float64) *Tensor { return t.binaryScalar(device.Gt, v) }

// GeScalar returns t >= v as Bool.
func (t *Tensor) GeScalar(v float64) *Tensor { return t.binaryScalar(device.Ge, v) }

// Clamp limits every element to [lo, hi]; NaN stays NaN.
func (t *Tensor) Clamp(lo, hi float64) *Tensor {
	if lo > hi {
		return fail("Clamp", errs.ErrValue, "lower bound %v above upper bound %v", lo, hi)
	}
	m := t.MaximumScalar(lo)
	defer m.Release()
	return m.MinimumScalar(hi)
}

// Where returns a where cond is true and b elsewhere; the three broadcast
// together, cond must be Bool and a and b share a dtype.
func Where(cond, a, b *Tensor) *Tensor {
	for _, x := range []*Tensor{cond, a, b} {
		if err := x.check("Where"); err != nil {
			return failed(err)
		}
	}
	if cond.DType() != dtype.Bool {
		return fail("Where", errs.ErrDType, "condition must be bool, have %v", cond.DType())
	}
	if a.DType() != b.DType() {
		return fail("Where", errs.ErrDType, "dtypes differ: %v and %v", a.DType(), b.DType())
	}
	shape, err := layout.BroadcastShapes(cond.lay.Shape, a.lay.Shape, b.lay.Shape)
	if err != nil {
		return fail("Where", errs.ErrShape, "shapes %v, %v and %v are not broadcastable", cond.lay.Shape, a.lay.Shape, b.lay.Shape)
	}
	cl, _ := cond.lay.BroadcastTo(shape...)
	al, _ := a.lay.BroadcastTo(shape...)
	bl, _ := b.lay.BroadcastTo(shape...)
	return compute("Where", a.DType(), shape, []*Tensor{cond, a, b}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		s := withLayouts(src, cl, al, bl)
		return be.Where(dst, s[0], s[1], s[2])
	})
}

// Where is the method form of the package function: t.Where(cond, other)
// picks t where cond holds, else other.
func (t *Tensor) Where(cond, other *Tensor) *Tensor { return Where(cond, t, other) }
