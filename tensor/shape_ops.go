package tensor

import (
	"slices"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Composite shape and masking operations, built from views, comparisons,
// Where, Concat and broadcasting, so that they run on every device and are
// differentiable through those operations' own rules.

// Flip reverses the order of the elements along the given axes (all axes
// when none are given, as NumPy's flip). It is a view with negative
// strides: nothing is copied.
func (t *Tensor) Flip(axes ...int) *Tensor {
	const op = "Flip"
	if err := t.check(op); err != nil {
		return failed(err)
	}
	ax, err := normAxes(op, axes, t.Rank())
	if err != nil {
		return failed(err)
	}
	y := t.reshapeGrad(op, t.view(op, t.lay)) // a view of its own, released below
	for _, a := range ax {
		d := t.lay.Shape[a]
		next := y.Slice(a, d-1, -d-1, -1)
		y.Release()
		y = next
	}
	return y
}

// Split cuts t along axis into consecutive pieces of the given sizes,
// which must add up to the axis' extent (PyTorch's split with a list of
// sizes; NumPy's split takes cut points instead). The pieces are views.
// On bad arguments every piece carries the error, so indexing the result
// by len(sizes) is always safe.
func (t *Tensor) Split(sizes []int, axis int) []*Tensor {
	const op = "Split"
	fails := func(err error) []*Tensor {
		out := make([]*Tensor, max(len(sizes), 1))
		for i := range out {
			out[i] = failed(err)
		}
		return out
	}
	if err := t.check(op); err != nil {
		return fails(err)
	}
	ax, err := layout.NormalizeAxis(op, axis, t.Rank())
	if err != nil {
		return fails(errs.Retag("tensor", op, err))
	}
	if len(sizes) == 0 {
		return fails(errs.New("tensor", op, errs.ErrValue, "no sizes given"))
	}
	d, total := t.lay.Shape[ax], 0
	for _, s := range sizes {
		if s < 0 || s > d-total {
			return fails(errs.New("tensor", op, errs.ErrShape, "sizes %v do not split extent %d of axis %d (shape %v)", sizes, d, axis, t.lay.Shape))
		}
		total += s
	}
	if total != d {
		return fails(errs.New("tensor", op, errs.ErrShape, "sizes %v add up to %d, axis %d has extent %d (shape %v)", sizes, total, axis, d, t.lay.Shape))
	}
	out := make([]*Tensor, len(sizes))
	at := 0
	for i, s := range sizes {
		out[i] = t.Narrow(ax, at, s)
		at += s
	}
	return out
}

// Chunk cuts t along axis into at most n views of equal extent
// ceil(extent/n), the last one shorter when the extent does not divide, as
// PyTorch's chunk: a 6-long axis in 4 chunks gives 3 pieces of 2, so fewer
// than n may come back. An empty axis gives n empty pieces. An n below 1 is
// an ErrValue (one failed piece).
func (t *Tensor) Chunk(n, axis int) []*Tensor {
	const op = "Chunk"
	if err := t.check(op); err != nil {
		return []*Tensor{failed(err)}
	}
	if n < 1 {
		return []*Tensor{fail(op, errs.ErrValue, "chunk count %d must be at least 1", n)}
	}
	ax, err := layout.NormalizeAxis(op, axis, t.Rank())
	if err != nil {
		return []*Tensor{failed(errs.Retag("tensor", op, err))}
	}
	d := t.lay.Shape[ax]
	if d == 0 {
		return t.Split(make([]int, n), ax)
	}
	size := d/n + min(d%n, 1) // ceil(d/n) without overflow
	var sizes []int
	for at := 0; at < d; at += size {
		sizes = append(sizes, min(size, d-at))
	}
	return t.Split(sizes, ax)
}

// Roll shifts the elements along the given axes by shift positions,
// wrapping around: element i moves to (i+shift) mod extent, so a negative
// shift moves towards the start (NumPy's roll). With no axes t is rolled as
// if flattened and the shape restored; with several, each is rolled by
// shift. The result is a copy (two slices joined).
func (t *Tensor) Roll(shift int, axes ...int) *Tensor {
	const op = "Roll"
	if err := t.check(op); err != nil {
		return failed(err)
	}
	if len(axes) == 0 {
		flat := t.Reshape(-1)
		defer flat.Release()
		r := flat.Roll(shift, 0)
		defer r.Release()
		return r.Reshape(t.lay.Shape...)
	}
	ax := make([]int, len(axes))
	for i, a := range axes {
		n, err := layout.NormalizeAxis(op, a, t.Rank())
		if err != nil {
			return failed(errs.Retag("tensor", op, err))
		}
		ax[i] = n
	}
	y := t.reshapeGrad(op, t.view(op, t.lay))
	for _, a := range ax {
		d := y.lay.Shape[a]
		if d == 0 {
			continue
		}
		s := shift % d
		if s < 0 {
			s += d
		}
		if s == 0 {
			continue
		}
		tail, head := y.Narrow(a, d-s, s), y.Narrow(a, 0, d-s)
		next := Concat([]*Tensor{tail, head}, a)
		tail.Release()
		head.Release()
		y.Release()
		y = next
	}
	return y
}

// Tile repeats the whole of t reps[i] times along axis i, as NumPy's tile
// (and PyTorch's tile): with fewer reps than axes, the reps are padded
// with leading 1s; with more, t gains leading axes of extent 1. Tile([2])
// of [a b] is [a b a b]; for [a a b b] use RepeatInterleave.
func (t *Tensor) Tile(reps ...int) *Tensor { return t.tile("Tile", reps, false) }

// Repeat is PyTorch's Tensor.repeat: Tile with at least one rep per axis
// (fewer is an ErrShape, as in PyTorch). NumPy users note: np.repeat
// repeats each element in place, which is RepeatInterleave here; Repeat
// repeats the whole tensor, which is np.tile.
func (t *Tensor) Repeat(reps ...int) *Tensor { return t.tile("Repeat", reps, true) }

func (t *Tensor) tile(op string, reps []int, strict bool) *Tensor {
	if err := t.check(op); err != nil {
		return failed(err)
	}
	if strict && len(reps) < t.Rank() {
		return fail(op, errs.ErrShape, "%d repeats for a rank-%d tensor of shape %v: give one per axis", len(reps), t.Rank(), t.lay.Shape)
	}
	for _, r := range reps {
		if r < 0 {
			return fail(op, errs.ErrValue, "negative repeat count in %v", reps)
		}
	}
	rank := max(len(reps), t.Rank())
	shape := slices.Concat(make([]int, rank-t.Rank()), t.lay.Shape)
	rs := slices.Concat(make([]int, rank-len(reps)), reps)
	// View t as [1, s0, 1, s1, ...], broadcast to [r0, s0, r1, s1, ...]
	// and merge each pair: the reshape of the broadcast copies once.
	in, out, wide := make([]int, 0, 2*rank), make([]int, rank), make([]int, 0, 2*rank)
	for i := range rank {
		if i < rank-t.Rank() {
			shape[i] = 1
		}
		if i < rank-len(reps) {
			rs[i] = 1
		}
		in = append(in, 1, shape[i])
		wide = append(wide, rs[i], shape[i])
		if shape[i] != 0 && rs[i] > layout.MaxElements/shape[i] {
			return fail(op, errs.ErrShape, "repeating shape %v by %v overflows", t.lay.Shape, reps)
		}
		out[i] = rs[i] * shape[i]
	}
	if _, err := layout.Numel(out); err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	v := t.Reshape(in...)
	defer v.Release()
	b := v.BroadcastTo(wide...)
	defer b.Release()
	return b.Reshape(out...)
}

// RepeatInterleave repeats each element repeats times in place along axis:
// [a b] gives [a a b b] (NumPy's repeat, PyTorch's repeat_interleave, with
// one count for every element). A 0-d t with axis 0 or -1 repeats as a
// 1-element vector, as in NumPy. The result is a copy.
func (t *Tensor) RepeatInterleave(repeats, axis int) *Tensor {
	const op = "RepeatInterleave"
	if err := t.check(op); err != nil {
		return failed(err)
	}
	if repeats < 0 {
		return fail(op, errs.ErrValue, "negative repeat count %d", repeats)
	}
	if t.Rank() == 0 && (axis == 0 || axis == -1) {
		// A 0-d tensor repeats as a 1-element vector, as NumPy's repeat.
		v := t.Reshape(1)
		defer v.Release()
		return v.RepeatInterleave(repeats, 0)
	}
	ax, err := layout.NormalizeAxis(op, axis, t.Rank())
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	d := t.lay.Shape[ax]
	if d != 0 && repeats > layout.MaxElements/d {
		return fail(op, errs.ErrShape, "repeating extent %d by %d overflows", d, repeats)
	}
	wide := slices.Insert(slices.Clone(t.lay.Shape), ax+1, repeats)
	out := slices.Clone(t.lay.Shape)
	out[ax] = d * repeats
	if _, err := layout.Numel(out); err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	u := t.Unsqueeze(ax + 1)
	defer u.Release()
	b := u.BroadcastTo(wide...)
	defer b.Release()
	return b.Reshape(out...)
}

// triangle keeps the elements of the last two axes where keep(col - row)
// holds and writes zeros elsewhere; leading axes are a batch.
func (t *Tensor) triangle(op string, k int, lower bool) *Tensor {
	if err := t.check(op); err != nil {
		return failed(err)
	}
	if t.Rank() < 2 {
		return fail(op, errs.ErrShape, "needs at least 2 axes, have shape %v", t.lay.Shape)
	}
	n, m := t.lay.Shape[t.Rank()-2], t.lay.Shape[t.Rank()-1]
	// Clamping k to [-n, m] changes no result and keeps row+k in range.
	k = min(max(k, -n), m)
	dev := t.Device()
	rows := Arange(dtype.I32, float64(k), float64(n+k), 1).Reshape(n, 1).To(dev) // row + k
	cols := Arange(dtype.I32, 0, float64(m), 1).To(dev)
	defer rows.Release()
	defer cols.Release()
	var mask *Tensor
	if lower {
		mask = cols.Le(rows) // col <= row + k
	} else {
		mask = cols.Ge(rows) // col >= row + k
	}
	defer mask.Release()
	zero := t.scalarLike(op, 0)
	defer zero.Release()
	y := Where(mask, t, zero)
	if err := y.Err(); err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	return y
}

// Tril keeps the lower triangle of the last two axes: the elements with
// col - row <= k, zeros elsewhere (NumPy's and PyTorch's tril: k = 0 is
// the main diagonal, k > 0 keeps k diagonals above it, k < 0 drops that
// many below it). Leading axes are a batch. It is how a causal attention
// mask is built.
func (t *Tensor) Tril(k int) *Tensor { return t.triangle("Tril", k, true) }

// Triu keeps the upper triangle of the last two axes: the elements with
// col - row >= k, zeros elsewhere (NumPy's and PyTorch's triu).
func (t *Tensor) Triu(k int) *Tensor { return t.triangle("Triu", k, false) }

// MaskedFill returns t with value wherever mask is true (PyTorch's
// masked_fill). mask must be Bool and broadcast to t's shape (the result
// has t's shape; a mask that would enlarge it is an ErrShape, as in
// PyTorch), and value is converted to t's dtype. The gradient flows to
// the elements that are kept.
func (t *Tensor) MaskedFill(mask *Tensor, value float64) *Tensor {
	const op = "MaskedFill"
	if err := t.check(op); err != nil {
		return failed(err)
	}
	if err := mask.check(op); err != nil {
		return failed(err)
	}
	if mask.DType() != dtype.Bool {
		return fail(op, errs.ErrDType, "mask must be bool, have %v (compare first, e.g. Ne)", mask.DType())
	}
	if bs, err := layout.BroadcastShapes(mask.lay.Shape, t.lay.Shape); err != nil || !slices.Equal(bs, t.lay.Shape) {
		return fail(op, errs.ErrShape, "mask of shape %v does not broadcast to the tensor's shape %v", mask.lay.Shape, t.lay.Shape)
	}
	v := t.scalarLike(op, value)
	defer v.Release()
	y := Where(mask, v, t)
	if err := y.Err(); err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	return y
}

// OneHot encodes integer class labels as F32 vectors along a new last
// axis of extent classes: out[..., c] is 1 where labels == c (PyTorch's
// one_hot, which gives int64; OneHotAs picks the dtype). A label outside
// [0, classes) is an ErrValue naming it: checking reads the labels'
// minimum and maximum back to the host, which waits for them on a GPU.
func OneHot(labels *Tensor, classes int) *Tensor { return labels.OneHotAs(classes, dtype.F32) }

// OneHotAs is OneHot with a result of dtype dt.
func (t *Tensor) OneHotAs(classes int, dt dtype.DType) *Tensor {
	const op = "OneHot"
	if err := t.check(op); err != nil {
		return failed(err)
	}
	if !t.DType().IsInt() {
		return fail(op, errs.ErrDType, "labels must be integers, have %v (Cast first)", t.DType())
	}
	if !dt.Valid() {
		return fail(op, errs.ErrDType, "invalid result dtype %v", dt)
	}
	if classes < 0 {
		return fail(op, errs.ErrValue, "class count %d is negative", classes)
	}
	if t.Numel() > 0 {
		lo, hi := t.Min(), t.Max()
		defer lo.Release()
		defer hi.Release()
		l, err := lo.Item()
		if err != nil {
			return failed(errs.Retag("tensor", op, err))
		}
		h, err := hi.Item()
		if err != nil {
			return failed(errs.Retag("tensor", op, err))
		}
		if l < 0 || h >= float64(classes) {
			bad := l
			if l >= 0 {
				bad = h
			}
			return fail(op, errs.ErrValue, "label %v outside [0, %d)", bad, classes)
		}
	}
	lab := t
	if t.DType() == dtype.U8 { // classes may exceed 255
		lab = t.Cast(dtype.I32)
		defer lab.Release()
	}
	u := lab.Unsqueeze(-1)
	defer u.Release()
	ids := Arange(lab.DType(), 0, float64(classes), 1).To(t.Device())
	defer ids.Release()
	eq := u.Eq(ids)
	defer eq.Release()
	return eq.Cast(dt)
}
