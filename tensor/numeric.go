package tensor

import (
	"math"
	"slices"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Small numerical operations of NumPy's and PyTorch's vocabulary, each a
// composition of operations every backend has: they run on every device
// and are differentiable where their operands are floats.

// floatOperands checks that each of ts is usable and of a floating dtype.
func floatOperands(op string, ts ...*Tensor) error {
	for _, t := range ts {
		if err := t.checkOperand(op); err != nil {
			return err
		}
		if !t.DType().IsFloat() {
			return errs.New("tensor", op, errs.ErrDType, "needs floating operands, have %v", t.DType())
		}
	}
	return nil
}

// broadcastPair broadcasts a and b together and normalises axis against
// their common shape (a 0-d pair takes axis 0 or -1).
func broadcastPair(op string, a, b *Tensor, axis int) (ab, bb *Tensor, ax int, err error) {
	for _, t := range []*Tensor{a, b} {
		if err := t.checkOperand(op); err != nil {
			return nil, nil, 0, err
		}
	}
	shape, err := layout.BroadcastShapes(a.lay.Shape, b.lay.Shape)
	if err != nil {
		return nil, nil, 0, errs.New("tensor", op, errs.ErrShape, "shapes %v and %v are not broadcastable", a.lay.Shape, b.lay.Shape)
	}
	if ax, err = layout.NormalizeAxis(op, axis, max(len(shape), 1)); err != nil {
		return nil, nil, 0, errs.Retag("tensor", op, err)
	}
	return a.BroadcastTo(shape...), b.BroadcastTo(shape...), ax, nil
}

// Lerp returns start + weight·(end - start), the three broadcast together:
// torch.lerp, with its formula (end - (end-start)·(1-weight) where
// |weight| >= 0.5, so weight 1 gives end exactly). Floats only.
func Lerp(start, end, weight *Tensor) *Tensor {
	const op = "Lerp"
	if err := floatOperands(op, start, end, weight); err != nil {
		return failed(err)
	}
	diff := end.Sub(start)
	low := start.Add(weight.Mul(diff))
	high := end.Sub(diff.Mul(weight.Neg().AddScalar(1)))
	return retag(op, Where(weight.Abs().LtScalar(0.5), low, high))
}

// Diff returns the n-th discrete difference along axis (numpy.diff,
// torch.diff): out[i] = t[i+1] - t[i], applied n times, so the axis
// shrinks by n (to 0 when n reaches its extent). Bool tensors take the
// exclusive or, as both libraries do. n must not be negative.
func (t *Tensor) Diff(n, axis int) *Tensor {
	const op = "Diff"
	if err := t.checkOperand(op); err != nil {
		return failed(err)
	}
	if n < 0 {
		return fail(op, errs.ErrValue, "order %d must not be negative", n)
	}
	if t.Rank() == 0 {
		return fail(op, errs.ErrShape, "a 0-d tensor has no axis to difference")
	}
	ax, err := layout.NormalizeAxis(op, axis, t.Rank())
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	y := t
	for range n {
		m := y.lay.Shape[ax]
		if m == 0 {
			break
		}
		hi, lo := y.Narrow(ax, 1, m-1), y.Narrow(ax, 0, m-1)
		if y.DType() == dtype.Bool {
			y = hi.Xor(lo)
		} else {
			y = hi.Sub(lo)
		}
	}
	if y == t {
		return t.Clone()
	}
	return retag(op, y)
}

// Cross returns the cross product of 3-vectors along axis, a and b
// broadcast together (torch.linalg.cross, numpy.cross on 3-vectors).
func Cross(a, b *Tensor, axis int) *Tensor {
	const op = "Cross"
	ab, bb, ax, err := broadcastPair(op, a, b, axis)
	if err != nil {
		return failed(err)
	}
	if ab.Rank() == 0 {
		return fail(op, errs.ErrShape, "needs vectors, have 0-d operands")
	}
	for _, t := range []*Tensor{a, b} {
		if at := ax - (ab.Rank() - t.Rank()); at < 0 || t.lay.Shape[at] != 3 {
			return fail(op, errs.ErrShape, "axis %d of %v and %v must have extent 3 in both", axis, a.lay.Shape, b.lay.Shape)
		}
	}
	c := func(x *Tensor, i int) *Tensor { return x.Narrow(ax, i, 1) }
	comp := func(i, j int) *Tensor { return c(ab, i).Mul(c(bb, j)).Sub(c(ab, j).Mul(c(bb, i))) }
	return retag(op, Concat([]*Tensor{comp(1, 2), comp(2, 0), comp(0, 1)}, ax))
}

// Kron returns the Kronecker product of a and b (numpy.kron, torch.kron):
// the operand of fewer axes gets leading axes of extent 1, and element
// (i·q + k, …) of the result is a[i, …]·b[k, …] for b's extents q.
func Kron(a, b *Tensor) *Tensor {
	const op = "Kron"
	for _, t := range []*Tensor{a, b} {
		if err := t.checkOperand(op); err != nil {
			return failed(err)
		}
	}
	r := max(a.Rank(), b.Rank())
	pad := func(s []int) []int {
		out := slices.Repeat([]int{1}, r-len(s))
		return append(out, s...)
	}
	as, bs := pad(a.lay.Shape), pad(b.lay.Shape)
	var ai, bi, out []int // a as [a0, 1, a1, 1, …], b as [1, b0, 1, b1, …]
	for i := range r {
		ai = append(ai, as[i], 1)
		bi = append(bi, 1, bs[i])
		out = append(out, as[i]*bs[i])
	}
	return retag(op, a.Reshape(ai...).Mul(b.Reshape(bi...)).Reshape(out...))
}

// Meshgrid returns coordinate grids from 1-D tensors: with "ij" indexing
// result i varies along axis i (numpy.meshgrid(indexing="ij"),
// torch.meshgrid's default), with "xy" the first two axes are swapped
// (NumPy's default). The grids are broadcast views of the inputs.
func Meshgrid(indexing string, xs ...*Tensor) []*Tensor {
	const op = "Meshgrid"
	fails := func(err error) []*Tensor {
		out := make([]*Tensor, max(len(xs), 1))
		for i := range out {
			out[i] = failed(err)
		}
		return out
	}
	if indexing != "ij" && indexing != "xy" {
		return fails(errs.New("tensor", op, errs.ErrValue, "indexing %q must be \"ij\" or \"xy\"", indexing))
	}
	shape := make([]int, len(xs))
	for i, x := range xs {
		if err := x.checkOperand(op); err != nil {
			return fails(err)
		}
		if x.Rank() != 1 {
			return fails(errs.New("tensor", op, errs.ErrShape, "input %d must be 1-D, have %v", i, x.lay.Shape))
		}
		shape[i] = x.lay.Shape[0]
	}
	swap := indexing == "xy" && len(xs) >= 2
	if swap {
		shape[0], shape[1] = shape[1], shape[0]
	}
	out := make([]*Tensor, len(xs))
	for i, x := range xs {
		at := i
		if swap && i < 2 {
			at = 1 - i
		}
		v := slices.Repeat([]int{1}, len(xs))
		v[at] = shape[at]
		out[i] = retag(op, x.Reshape(v...).BroadcastTo(shape...))
	}
	return out
}

// Cdist returns the p-norm distances between the rows of x1 [..., P, M]
// and of x2 [..., R, M]: [..., P, R], batch axes broadcast (torch.cdist,
// scipy's cdist with "minkowski"). p is positive or +Inf (math.Inf(1): the
// largest absolute difference); p = 0 counts the differing coordinates.
// It forms the [..., P, R, M] differences, so it suits moderate sizes.
// Floats only.
func Cdist(x1, x2 *Tensor, p float64) *Tensor {
	const op = "Cdist"
	if err := floatOperands(op, x1, x2); err != nil {
		return failed(err)
	}
	for _, t := range []*Tensor{x1, x2} {
		if t.Rank() < 2 {
			return fail(op, errs.ErrShape, "operands must be [..., rows, M], have %v", t.lay.Shape)
		}
	}
	if m1, m2 := x1.lay.Shape[x1.Rank()-1], x2.lay.Shape[x2.Rank()-1]; m1 != m2 {
		return fail(op, errs.ErrShape, "rows of %v and %v differ in length", x1.lay.Shape, x2.lay.Shape)
	}
	if !(p >= 0) {
		return fail(op, errs.ErrValue, "p %v must not be negative", p)
	}
	d := x1.Unsqueeze(-2).Sub(x2.Unsqueeze(-3)).Abs() // [..., P, R, M]
	// root takes the p-th root of the sums, with a zero gradient where a
	// sum is 0 (a point's distance to itself), as torch.cdist's: the
	// root's own derivative is infinite there.
	root := func(s *Tensor, p float64) *Tensor {
		zero := s.EqScalar(0)
		one := filled(op, s.Device(), s.DType(), 1, []int{})
		safe := Where(zero, one, s)
		r := safe.Sqrt()
		if p != 2 {
			r = safe.PowScalar(1 / p)
		}
		return Where(zero, s, r)
	}
	var y *Tensor
	switch {
	case math.IsInf(p, 1):
		y = d.Max(-1)
	case p == 0:
		y = d.NeScalar(0).Cast(x1.DType()).Sum(-1)
	case p == 1:
		y = d.Sum(-1)
	case p == 2:
		y = root(d.Square().Sum(-1), 2)
	default:
		y = root(d.PowScalar(p).Sum(-1), p)
	}
	return retag(op, y)
}

// NanSum is Sum with NaN counted as zero (numpy.nansum, torch.nansum);
// all-NaN or empty extents give 0. Floats only.
func (t *Tensor) NanSum(axes ...int) *Tensor {
	z, err := t.nanZeroed("NanSum")
	if err != nil {
		return failed(err)
	}
	return retag("NanSum", z.Sum(axes...))
}

// NanMean is Mean over the elements that are not NaN (numpy.nanmean,
// torch.nanmean); an all-NaN or empty extent gives NaN. Floats only.
func (t *Tensor) NanMean(axes ...int) *Tensor {
	const op = "NanMean"
	z, err := t.nanZeroed(op)
	if err != nil {
		return failed(err)
	}
	count := t.IsNaN().Not().Cast(t.DType()).Sum(axes...)
	return retag(op, z.Sum(axes...).Div(count))
}

// nanZeroed returns t with its NaNs replaced by zeros.
func (t *Tensor) nanZeroed(op string) (*Tensor, error) {
	if err := t.checkOperand(op); err != nil {
		return nil, err
	}
	if !t.DType().IsFloat() {
		return nil, errs.New("tensor", op, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", t.DType())
	}
	zero := filled(op, t.Device(), t.DType(), 0, []int{})
	return Where(t.IsNaN(), zero, t), nil
}

// Logit returns log(p/(1-p)) (torch.logit); with eps > 0, p is first
// clamped to [eps, 1-eps], as PyTorch's eps. eps must be in [0, 0.5].
// Floats only.
func (t *Tensor) Logit(eps float64) *Tensor {
	const op = "Logit"
	if err := t.checkOperand(op); err != nil {
		return failed(err)
	}
	if !t.DType().IsFloat() {
		return fail(op, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", t.DType())
	}
	if !(eps >= 0 && eps <= 0.5) {
		return fail(op, errs.ErrValue, "eps %v must be in [0, 0.5]", eps)
	}
	p := t
	if eps > 0 {
		p = t.Clamp(eps, 1-eps)
	}
	return retag(op, p.Div(p.Neg().AddScalar(1)).Log())
}

// Xlogy returns x·log(y), and 0 where x is 0 and y is not NaN
// (torch.special.xlogy, scipy.special.xlogy), x and y broadcast. Floats,
// as ResultType promotes them.
func Xlogy(x, y *Tensor) *Tensor {
	const op = "Xlogy"
	for _, t := range []*Tensor{x, y} {
		if err := t.checkOperand(op); err != nil {
			return failed(err)
		}
	}
	prod := x.Mul(y.Log())
	if prod.err != nil {
		return retag(op, prod)
	}
	zero := filled(op, prod.Device(), prod.DType(), 0, []int{})
	return retag(op, Where(x.EqScalar(0).And(y.IsNaN().Not()), zero, prod))
}

// Logaddexp returns log(exp(a) + exp(b)) without overflow
// (numpy.logaddexp, torch.logaddexp): max(a, b) + log1p(exp(-|a-b|)), and
// a + log 2 where a equals b (so two infinities of one sign give that
// infinity). Floats only.
func Logaddexp(a, b *Tensor) *Tensor {
	const op = "Logaddexp"
	if err := floatOperands(op, a, b); err != nil {
		return failed(err)
	}
	apart := a.Maximum(b).Add(a.Sub(b).Abs().Neg().Exp().Log1p())
	return retag(op, Where(a.Eq(b), a.AddScalar(math.Ln2), apart))
}

// IsClose reports elementwise whether a and b are equal within atol +
// rtol·|b| (numpy.isclose, torch.isclose), a and b broadcast: infinities
// are close only to themselves, NaN to nothing unless equalNaN. The result
// is Bool.
func IsClose(a, b *Tensor, rtol, atol float64, equalNaN bool) *Tensor {
	const op = "IsClose"
	for _, t := range []*Tensor{a, b} {
		if err := t.checkOperand(op); err != nil {
			return failed(err)
		}
	}
	if !(rtol >= 0) || !(atol >= 0) {
		return fail(op, errs.ErrValue, "rtol %v and atol %v must not be negative", rtol, atol)
	}
	near := a.Sub(b).Abs().Le(b.Abs().MulScalar(rtol).AddScalar(atol)).And(a.IsFinite()).And(b.IsFinite())
	r := near.Or(a.Eq(b))
	if equalNaN {
		r = r.Or(a.IsNaN().And(b.IsNaN()))
	}
	return retag(op, r)
}

// CountNonzero counts the nonzero elements over the given axes (all when
// none are given), NaN included (numpy.count_nonzero, torch's): I64.
func (t *Tensor) CountNonzero(axes ...int) *Tensor {
	const op = "CountNonzero"
	if err := t.checkOperand(op); err != nil {
		return failed(err)
	}
	return retag(op, t.NeScalar(0).Sum(axes...))
}
