package tensor

import (
	"slices"

	"errors"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// viewOp applies a layout transformation as a view sharing t's storage.
func (t *Tensor) viewOp(op string, f func(layout.Layout) (layout.Layout, error)) *Tensor {
	if err := t.check(op); err != nil {
		return failed(err)
	}
	l, err := f(t.lay)
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	return t.view(op, l)
}

// Reshape returns the elements in row-major order with a new shape; one
// extent may be -1 and is inferred. It is a view whenever the strides allow
// (always for contiguous tensors); otherwise it copies, as PyTorch's reshape.
func (t *Tensor) Reshape(shape ...int) *Tensor {
	if err := t.check("Reshape"); err != nil {
		return failed(err)
	}
	l, err := t.lay.Reshape(shape...)
	if errors.Is(err, layout.ErrNeedsCopy) {
		c := t.Contiguous()
		defer c.Release()
		return c.Reshape(shape...)
	}
	if err != nil {
		return failed(errs.Retag("tensor", "Reshape", err))
	}
	return t.reshapeGrad("Reshape", t.view("Reshape", l))
}

// Flatten merges axes start..end (inclusive, negative counts from the end)
// into one, copying only when they cannot be merged as a view.
func (t *Tensor) Flatten(start, end int) *Tensor {
	if err := t.check("Flatten"); err != nil {
		return failed(err)
	}
	l, err := t.lay.Flatten(start, end)
	if errors.Is(err, layout.ErrNeedsCopy) {
		c := t.Contiguous()
		defer c.Release()
		return c.Flatten(start, end)
	}
	if err != nil {
		return failed(errs.Retag("tensor", "Flatten", err))
	}
	return t.reshapeGrad("Flatten", t.view("Flatten", l))
}

// Permute reorders the axes: axis i of the result is axis perm[i] of t.
func (t *Tensor) Permute(perm ...int) *Tensor {
	y := t.viewOp("Permute", func(l layout.Layout) (layout.Layout, error) { return l.Permute(perm...) })
	if t.wantsGrad() {
		inv := inversePerm(perm)
		y = gradView("Permute", t, y, func(g *Tensor) *Tensor { return g.Permute(inv...) })
	}
	return y
}

// Transpose swaps axes a and b.
func (t *Tensor) Transpose(a, b int) *Tensor {
	y := t.viewOp("Transpose", func(l layout.Layout) (layout.Layout, error) { return l.Transpose(a, b) })
	if t.wantsGrad() {
		y = gradView("Transpose", t, y, func(g *Tensor) *Tensor { return g.Transpose(a, b) })
	}
	return y
}

// T swaps the last two axes (the matrix transpose); a 1-D or 0-D tensor is
// returned as a view of itself.
func (t *Tensor) T() *Tensor {
	y := t.viewOp("T", func(l layout.Layout) (layout.Layout, error) {
		if l.Rank() < 2 {
			return l, nil
		}
		return l.Transpose(-2, -1)
	})
	if t.wantsGrad() {
		y = gradView("T", t, y, (*Tensor).T)
	}
	return y
}

// Narrow keeps length elements of axis starting at start; a negative
// start counts from the end of the axis, as in PyTorch's narrow.
func (t *Tensor) Narrow(axis, start, length int) *Tensor {
	if start < 0 && t.err == nil { // from the end, as PyTorch's narrow
		if a, err := layout.NormalizeAxis("Narrow", axis, t.Rank()); err == nil {
			start += t.lay.Shape[a]
		}
	}
	y := t.viewOp("Narrow", func(l layout.Layout) (layout.Layout, error) { return l.Narrow(axis, start, length) })
	if t.wantsGrad() {
		y = gradNarrow(t, y, axis, start)
	}
	return y
}

// Slice keeps elements start, start+step, ... before end along axis, with
// Python's rules: negative bounds count from the end, bounds are clipped,
// and a negative step walks backwards.
func (t *Tensor) Slice(axis, start, end, step int) *Tensor {
	y := t.viewOp("Slice", func(l layout.Layout) (layout.Layout, error) { return l.Slice(axis, start, end, step) })
	if t.wantsGrad() {
		y = gradSlice(t, y, axis, start, step)
	}
	return y
}

// BroadcastTo views t with a larger shape by NumPy's rule, without copying.
// As in PyTorch's expand, -1 keeps the extent of an existing axis (it is
// an ErrShape for a new leading axis).
func (t *Tensor) BroadcastTo(shape ...int) *Tensor {
	if lead := len(shape) - t.Rank(); t.err == nil && lead >= 0 && slices.Contains(shape, -1) {
		shape = slices.Clone(shape)
		for i := lead; i < len(shape); i++ {
			if shape[i] == -1 {
				shape[i] = t.lay.Shape[i-lead]
			}
		}
	}
	y := t.viewOp("BroadcastTo", func(l layout.Layout) (layout.Layout, error) { return l.BroadcastTo(shape...) })
	if t.wantsGrad() {
		xs := t.lay.Shape
		y = gradView("BroadcastTo", t, y, func(g *Tensor) *Tensor { return sumTo(g, xs) })
	}
	return y
}

// Unsqueeze inserts an axis of extent 1 at position axis.
func (t *Tensor) Unsqueeze(axis int) *Tensor {
	return t.reshapeGrad("Unsqueeze", t.viewOp("Unsqueeze", func(l layout.Layout) (layout.Layout, error) { return l.Unsqueeze(axis) }))
}

// Squeeze removes the given axes of extent 1, or all of them when none are
// given.
func (t *Tensor) Squeeze(axes ...int) *Tensor {
	return t.reshapeGrad("Squeeze", t.viewOp("Squeeze", func(l layout.Layout) (layout.Layout, error) { return l.Squeeze(axes...) }))
}

// Contiguous returns t itself (as a new view) when it is already contiguous,
// and otherwise a row-major copy on the same device.
func (t *Tensor) Contiguous() *Tensor {
	if err := t.check("Contiguous"); err != nil {
		return failed(err)
	}
	if t.lay.IsContiguous() {
		return t.reshapeGrad("Contiguous", t.view("Contiguous", t.lay))
	}
	return t.cast("Contiguous", t.DType())
}

// Clone returns a contiguous copy with storage of its own.
func (t *Tensor) Clone() *Tensor {
	if err := t.check("Clone"); err != nil {
		return failed(err)
	}
	return t.cast("Clone", t.DType())
}

// Cast converts the elements to dt: floats to integers truncate toward zero
// and saturate (NaN becomes 0), integers wrap, nonzero becomes true, and
// narrowing floats round to nearest even.
func (t *Tensor) Cast(dt dtype.DType) *Tensor { return t.cast("Cast", dt) }

func (t *Tensor) cast(op string, dt dtype.DType) *Tensor {
	if !dt.Valid() {
		return fail(op, errs.ErrDType, "invalid dtype %v", dt)
	}
	y := compute(op, dt, t.Shape(), []*Tensor{t}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		return be.Copy(dst, src[0])
	})
	if t.wantsGrad() && dt.IsFloat() {
		from := t.DType()
		y = gradView(op, t, y, func(g *Tensor) *Tensor { return g.Cast(from) })
	}
	return y
}
