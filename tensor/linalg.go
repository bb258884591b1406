package tensor

import (
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Matmul is the matrix product with NumPy's matmul semantics: 2-D operands
// multiply as matrices; a 1-D left operand is a row vector and a 1-D right
// operand a column vector (the added axis is removed from the result);
// higher ranks are stacks of matrices whose batch axes broadcast.
// Transposed and narrowed operands are used in place, without a copy.
func (t *Tensor) Matmul(u *Tensor) *Tensor {
	const op = "Matmul"
	if err := t.check(op); err != nil {
		return failed(err)
	}
	if err := u.check(op); err != nil {
		return failed(err)
	}
	if t.Rank() == 0 || u.Rank() == 0 {
		return fail(op, errs.ErrShape, "operands must have at least one axis: %v x %v", t.lay.Shape, u.lay.Shape)
	}
	if t.DType() != u.DType() {
		return fail(op, errs.ErrDType, "dtypes differ: %v and %v (Cast one first)", t.DType(), u.DType())
	}
	if t.DType() == dtype.Bool {
		return fail(op, errs.ErrDType, "not defined for bool (Cast first)")
	}
	al, bl := t.lay, u.lay
	if al.Rank() == 1 {
		al, _ = al.Unsqueeze(0)
	}
	if bl.Rank() == 1 {
		bl, _ = bl.Unsqueeze(1)
	}
	ra, rb := al.Rank(), bl.Rank()
	m, k, k2, n := al.Shape[ra-2], al.Shape[ra-1], bl.Shape[rb-2], bl.Shape[rb-1]
	if k != k2 {
		return fail(op, errs.ErrShape, "inner dimensions differ: %v x %v", t.lay.Shape, u.lay.Shape)
	}
	batch, err := layout.BroadcastShapes(al.Shape[:ra-2], bl.Shape[:rb-2])
	if err != nil {
		return fail(op, errs.ErrShape, "batch axes do not broadcast: %v x %v", t.lay.Shape, u.lay.Shape)
	}
	// Operands whose batch axes already are the result's keep their
	// layouts: BroadcastTo would return them too, but only after the
	// target shape was built (a 2-D product allocates nothing here).
	if !slices.Equal(al.Shape[:ra-2], batch) {
		al, _ = al.BroadcastTo(append(slices.Clone(batch), m, k)...)
	}
	if !slices.Equal(bl.Shape[:rb-2], batch) {
		bl, _ = bl.BroadcastTo(append(slices.Clone(batch), k, n)...)
	}
	shape := append(slices.Clone(batch), m, n)
	r := compute(op, t.DType(), shape, []*Tensor{t, u}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		s := withLayouts(src, al, bl)
		return be.Matmul(dst, s[0], s[1])
	})
	if t.wantsGrad() || u.wantsGrad() {
		r = gradMatmul(t, u, r)
	}
	if r.err != nil || (t.Rank() > 1 && u.Rank() > 1) {
		return r
	}
	defer r.Release()
	var drop []int
	if t.Rank() == 1 {
		drop = append(drop, len(shape)-2)
	}
	if u.Rank() == 1 {
		drop = append(drop, len(shape)-1)
	}
	return r.Squeeze(drop...)
}

// Outer returns the outer product of two 1-D tensors: [m] x [n] -> [m, n].
func (t *Tensor) Outer(u *Tensor) *Tensor {
	if err := t.check("Outer"); err != nil {
		return failed(err)
	}
	if err := u.check("Outer"); err != nil {
		return failed(err)
	}
	if t.Rank() != 1 || u.Rank() != 1 {
		return fail("Outer", errs.ErrShape, "operands must be 1-D: %v and %v", t.lay.Shape, u.lay.Shape)
	}
	a := t.Unsqueeze(1)
	defer a.Release()
	b := u.Unsqueeze(0)
	defer b.Release()
	r := a.Mul(b)
	return retag("Outer", r)
}

// Tensordot contracts axes aAxes of t with axes bAxes of u (pairwise, same
// extents); the result has t's remaining axes followed by u's.
func (t *Tensor) Tensordot(u *Tensor, aAxes, bAxes []int) *Tensor {
	const op = "Tensordot"
	if err := t.check(op); err != nil {
		return failed(err)
	}
	if err := u.check(op); err != nil {
		return failed(err)
	}
	if len(aAxes) != len(bAxes) {
		return fail(op, errs.ErrAxis, "axis lists differ in length: %v and %v", aAxes, bAxes)
	}
	na, err := normAxesOrdered(op, aAxes, t.Rank())
	if err != nil {
		return failed(err)
	}
	nb, err := normAxesOrdered(op, bAxes, u.Rank())
	if err != nil {
		return failed(err)
	}
	k := 1
	for i := range na {
		if t.lay.Shape[na[i]] != u.lay.Shape[nb[i]] {
			return fail(op, errs.ErrShape, "contracted extents differ: axis %d of %v and axis %d of %v", aAxes[i], t.lay.Shape, bAxes[i], u.lay.Shape)
		}
		k *= t.lay.Shape[na[i]]
	}
	freeA, freeB := rest(na, t.Rank()), rest(nb, u.Rank())
	var outShape []int
	m, n := 1, 1
	for _, a := range freeA {
		outShape = append(outShape, t.lay.Shape[a])
		m *= t.lay.Shape[a]
	}
	for _, b := range freeB {
		outShape = append(outShape, u.lay.Shape[b])
		n *= u.lay.Shape[b]
	}
	pa := t.Permute(append(slices.Clone(freeA), na...)...)
	defer pa.Release()
	a2 := pa.Reshape(m, k)
	defer a2.Release()
	pb := u.Permute(append(slices.Clone(nb), freeB...)...)
	defer pb.Release()
	b2 := pb.Reshape(k, n)
	defer b2.Release()
	p := a2.Matmul(b2)
	defer p.Release()
	return retag(op, p.Reshape(append([]int{}, outShape...)...))
}

func normAxesOrdered(op string, axes []int, rank int) ([]int, error) {
	out := make([]int, len(axes))
	seen := map[int]bool{}
	for i, a := range axes {
		n, err := layout.NormalizeAxis(op, a, rank)
		if err != nil {
			return nil, errs.Retag("tensor", op, err)
		}
		if seen[n] {
			return nil, errs.New("tensor", op, errs.ErrAxis, "axis %d repeated in %v", a, axes)
		}
		seen[n] = true
		out[i] = n
	}
	return out, nil
}

func rest(axes []int, rank int) []int {
	var out []int
	for i := range rank {
		if !slices.Contains(axes, i) {
			out = append(out, i)
		}
	}
	return out
}

// retag relabels a failed result with the public operation's name.
func retag(op string, t *Tensor) *Tensor {
	if t.err != nil {
		return failed(errs.Retag("tensor", op, t.err))
	}
	return t
}
