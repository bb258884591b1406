package tensor

import (
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Concat joins tensors along an existing axis; all must share device,
// rank and every other extent. Tensors of different dtypes are cast to
// PromoteTypes of them all first, as NumPy's concatenate and PyTorch's cat.
func Concat(ts []*Tensor, axis int) *Tensor {
	const op = "Concat"
	if len(ts) == 0 {
		return fail(op, errs.ErrValue, "no tensors to join")
	}
	for _, t := range ts {
		if err := t.check(op); err != nil {
			return failed(err)
		}
	}
	dt := ts[0].DType()
	for _, t := range ts[1:] {
		dt = PromoteTypes(dt, t.DType())
	}
	for i, t := range ts {
		if t.DType() != dt {
			cs := slices.Clone(ts)
			for j := i; j < len(cs); j++ {
				if cs[j].DType() != dt {
					cs[j] = cs[j].Cast(dt)
					defer cs[j].Release()
				}
			}
			return Concat(cs, axis)
		}
	}
	first := ts[0]
	ax, err := layout.NormalizeAxis(op, axis, first.Rank())
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	shape := slices.Clone(first.lay.Shape)
	shape[ax] = 0
	for _, t := range ts {
		if t.DType() != first.DType() {
			return fail(op, errs.ErrDType, "dtypes differ: %v and %v", first.DType(), t.DType())
		}
		if t.Rank() != first.Rank() {
			return fail(op, errs.ErrShape, "ranks differ: %v and %v", first.lay.Shape, t.lay.Shape)
		}
		for i, d := range t.lay.Shape {
			if i != ax && d != first.lay.Shape[i] {
				return fail(op, errs.ErrShape, "shapes %v and %v differ off axis %d", first.lay.Shape, t.lay.Shape, axis)
			}
		}
		// Extents and the running total are at most layout.MaxElements, so
		// the check cannot wrap around (64 broadcast views of 2^58 would).
		d := t.lay.Shape[ax]
		if shape[ax] > layout.MaxElements-d {
			return fail(op, errs.ErrShape, "total length along axis %d of %d tensors overflows: %d + %d exceeds %d elements", axis, len(ts), shape[ax], d, int64(layout.MaxElements))
		}
		shape[ax] += d
	}
	y := compute(op, first.DType(), shape, ts, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		at := 0
		for _, s := range src {
			d := s.Layout.Shape[ax]
			part, err := dst.Layout.Narrow(ax, at, d)
			if err != nil {
				return err
			}
			if err := be.Copy(device.Operand{Buf: dst.Buf, Layout: part}, s); err != nil {
				return err
			}
			at += d
		}
		return nil
	})
	for _, t := range ts {
		if t.wantsGrad() {
			return gradConcat(ts, y, ax)
		}
	}
	return y
}

// Stack joins same-shaped tensors along a new axis (dtypes promoted as by
// Concat).
func Stack(ts []*Tensor, axis int) *Tensor {
	const op = "Stack"
	if len(ts) == 0 {
		return fail(op, errs.ErrValue, "no tensors to stack")
	}
	us := make([]*Tensor, len(ts))
	for i, t := range ts {
		if err := t.check(op); err != nil {
			return failed(err)
		}
		if !slices.Equal(t.lay.Shape, ts[0].lay.Shape) {
			return fail(op, errs.ErrShape, "shapes differ: %v and %v", ts[0].lay.Shape, t.lay.Shape)
		}
		us[i] = t.Unsqueeze(axis)
		defer us[i].Release()
		if us[i].err != nil {
			return retag(op, us[i])
		}
	}
	return retag(op, Concat(us, axis))
}
