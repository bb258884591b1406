package tensor

import (
	"slices"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Rearrangements of NumPy's and PyTorch's vocabulary, each a view or a
// join of views.

// Movedim moves axes src to positions dst, the others keeping their order
// (numpy.moveaxis, torch.movedim): a view. src and dst have one length and
// no repeats; negative axes count from the end.
func (t *Tensor) Movedim(src, dst []int) *Tensor {
	const op = "Movedim"
	if err := t.checkOperand(op); err != nil {
		return failed(err)
	}
	if len(src) != len(dst) {
		return fail(op, errs.ErrValue, "%d source axes for %d destinations", len(src), len(dst))
	}
	s, err := normAxesOrdered(op, src, t.Rank())
	if err != nil {
		return failed(err)
	}
	d, err := normAxesOrdered(op, dst, t.Rank())
	if err != nil {
		return failed(err)
	}
	order := rest(s, t.Rank()) // the axes that stay, in order
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return d[a] - d[b] })
	for _, i := range idx {
		order = slices.Insert(order, d[i], s[i])
	}
	return retag(op, t.Permute(order...))
}

// Unflatten splits axis into the extents sizes (one may be -1, inferred):
// torch.unflatten, a reshape of that axis alone.
func (t *Tensor) Unflatten(axis int, sizes ...int) *Tensor {
	const op = "Unflatten"
	if err := t.checkOperand(op); err != nil {
		return failed(err)
	}
	ax, err := layout.NormalizeAxis(op, axis, t.Rank())
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	if len(sizes) == 0 {
		return fail(op, errs.ErrShape, "no sizes to split axis %d of %v into", axis, t.lay.Shape)
	}
	// The other axes are fixed, so Reshape accepts exactly the sizes whose
	// product is the axis's extent (with -1 inferred).
	return retag(op, t.Reshape(slices.Concat(t.lay.Shape[:ax], sizes, t.lay.Shape[ax+1:])...))
}

// Unbind returns the slices of t along axis, each without that axis
// (torch.unbind): views.
func (t *Tensor) Unbind(axis int) []*Tensor {
	const op = "Unbind"
	if err := t.checkOperand(op); err != nil {
		return []*Tensor{failed(err)}
	}
	ax, err := layout.NormalizeAxis(op, axis, t.Rank())
	if err != nil {
		return []*Tensor{failed(errs.Retag("tensor", op, err))}
	}
	out := make([]*Tensor, t.lay.Shape[ax])
	for i := range out {
		out[i] = retag(op, t.Narrow(ax, i, 1).Squeeze(ax))
	}
	return out
}

// Hstack joins tensors along their second axis, or their first when all
// are 1-D, 0-d ones taken as 1-D (numpy.hstack, torch.hstack).
func Hstack(ts []*Tensor) *Tensor {
	const op = "Hstack"
	if len(ts) == 0 {
		return fail(op, errs.ErrValue, "no tensors to join")
	}
	flat := true
	parts := make([]*Tensor, len(ts))
	for i, t := range ts {
		if err := t.checkOperand(op); err != nil {
			return failed(err)
		}
		parts[i] = t
		if t.Rank() == 0 {
			parts[i] = t.Reshape(1)
		}
		flat = flat && parts[i].Rank() == 1
	}
	axis := 1
	if flat {
		axis = 0
	}
	return retag(op, Concat(parts, axis))
}

// Vstack joins tensors along their first axis, a 1-D [n] (or 0-d) taken as
// [1, n] (numpy.vstack, torch.vstack).
func Vstack(ts []*Tensor) *Tensor {
	const op = "Vstack"
	if len(ts) == 0 {
		return fail(op, errs.ErrValue, "no tensors to join")
	}
	parts := make([]*Tensor, len(ts))
	for i, t := range ts {
		if err := t.checkOperand(op); err != nil {
			return failed(err)
		}
		switch t.Rank() {
		case 0:
			parts[i] = t.Reshape(1, 1)
		case 1:
			parts[i] = t.Unsqueeze(0)
		default:
			parts[i] = t
		}
	}
	return retag(op, Concat(parts, 0))
}

// Rot90 rotates t by 90 degrees k times in the plane of axes (a, b), from
// the first towards the second (numpy.rot90, torch.rot90): a view, for any
// k (negative turns the other way).
func (t *Tensor) Rot90(k, a, b int) *Tensor {
	const op = "Rot90"
	if err := t.checkOperand(op); err != nil {
		return failed(err)
	}
	if t.Rank() < 2 {
		return fail(op, errs.ErrShape, "a rotation needs two axes, have %v", t.lay.Shape)
	}
	ax, err := normAxesOrdered(op, []int{a, b}, t.Rank())
	if err != nil {
		return failed(err)
	}
	switch ((k % 4) + 4) % 4 {
	case 1:
		return retag(op, t.Flip(ax[1]).Transpose(ax[0], ax[1]))
	case 2:
		return retag(op, t.Flip(ax[0], ax[1]))
	case 3:
		return retag(op, t.Transpose(ax[0], ax[1]).Flip(ax[1]))
	}
	return retag(op, t.Transpose(ax[0], ax[0])) // k ≡ 0: a view of t as it is
}
