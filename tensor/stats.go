package tensor

import (
	"math"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Var returns the variance over the given axes (all when none are given)
// with ddof delta degrees of freedom: sum((t - mean)^2) / (N - ddof). ddof 0
// is NumPy's default (the population variance), ddof 1 PyTorch's (the
// unbiased sample variance); the argument is explicit because the two
// libraries differ. It is computed in two passes (the mean first, then the
// squared deviations), which stays accurate where E[x^2] - E[x]^2 would
// cancel. A negative ddof divides by more than N, as NumPy's does (and
// PyTorch's correction). N - ddof <= 0 gives +Inf or NaN, as in NumPy, and
// so does an empty extent (NaN: the mean of nothing is NaN). Floats only.
func (t *Tensor) Var(ddof int, axes ...int) *Tensor {
	return t.variance("Var", ddof, false, false, axes)
}

// VarKeepDims is Var keeping the reduced axes with extent 1.
func (t *Tensor) VarKeepDims(ddof int, axes ...int) *Tensor {
	return t.variance("VarKeepDims", ddof, true, false, axes)
}

// Std returns the standard deviation, the square root of Var with the same
// ddof and axes.
func (t *Tensor) Std(ddof int, axes ...int) *Tensor {
	return t.variance("Std", ddof, false, true, axes)
}

// StdKeepDims is Std keeping the reduced axes with extent 1.
func (t *Tensor) StdKeepDims(ddof int, axes ...int) *Tensor {
	return t.variance("StdKeepDims", ddof, true, true, axes)
}

func (t *Tensor) variance(name string, ddof int, keep, root bool, axes []int) *Tensor {
	if err := t.checkOperand(name); err != nil {
		return failed(err)
	}
	if !t.DType().IsFloat() {
		return fail(name, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", t.DType())
	}
	ax, err := normAxes(name, axes, t.Rank())
	if err != nil {
		return failed(err)
	}
	n := 1
	for _, a := range ax {
		n *= t.lay.Shape[a]
	}
	mean := t.MeanKeepDims(ax...)
	dev := t.Sub(mean)
	ss := dev.Square().SumKeepDims(ax...)
	denom := float64(n) - float64(ddof) // in float64: no int overflow for any ddof
	if denom <= 0 {
		denom = 0 // +Inf, or NaN where every deviation is 0
	}
	v := ss.DivScalar(denom)
	if root {
		v = v.Sqrt()
	}
	if !keep {
		v = v.Squeeze(ax...)
	}
	return retag(name, v)
}

// Norm returns the vector norm of order ord over the given axes (all when
// none are given), as NumPy's linalg.norm of a vector and PyTorch's
// linalg.vector_norm: ord 1 is sum |t|, ord 2 is sqrt(sum t^2), ord +Inf
// is max |t| and -Inf min |t| (math.Inf), ord 0 counts the nonzero
// elements, and any other ord is (sum |t|^ord)^(1/ord) (a negative ord
// gives 0 when an element is 0). Over an empty extent the sums give 0 and
// ±Inf is an ErrShape, as NumPy's max of nothing. Floats only.
func (t *Tensor) Norm(ord float64, axes ...int) *Tensor {
	const name = "Norm"
	if err := t.checkOperand(name); err != nil {
		return failed(err)
	}
	if !t.DType().IsFloat() {
		return fail(name, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", t.DType())
	}
	if ord != ord {
		return fail(name, errs.ErrValue, "order is NaN")
	}
	switch {
	case ord == 1:
		return retag(name, t.Abs().Sum(axes...))
	case ord == 2:
		return retag(name, t.Square().Sum(axes...).Sqrt())
	case math.IsInf(ord, 1):
		return retag(name, t.Abs().Max(axes...))
	case math.IsInf(ord, -1):
		return retag(name, t.Abs().Min(axes...))
	case ord == 0:
		nz := t.NeScalar(0)
		defer nz.Release()
		return retag(name, nz.Cast(t.DType()).Sum(axes...))
	}
	return retag(name, t.Abs().PowScalar(ord).Sum(axes...).PowScalar(1/ord))
}

// Normalize divides t by its p-norm along axis, floored at eps: t /
// max(‖t‖_p, eps), PyTorch's F.normalize (whose defaults are p 2 and eps
// 1e-12), so a zero slice stays zero. eps must not be negative. Floats
// only; differentiable.
func (t *Tensor) Normalize(p float64, axis int, eps float64) *Tensor {
	const op = "Normalize"
	if err := t.checkOperand(op); err != nil {
		return failed(err)
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return fail(op, errs.ErrValue, "eps %v must be finite and not negative", eps)
	}
	ax, err := layout.NormalizeAxis(op, axis, max(t.Rank(), 1))
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	n := t.Norm(p, ax)
	if t.Rank() > 0 {
		n = n.Unsqueeze(ax)
	}
	return retag(op, t.Div(n.MaximumScalar(eps)))
}

// CosineSimilarity returns the cosine of the angle between a and b along
// axis, the two broadcast together: the sum over axis of (a/max(‖a‖,
// eps))·(b/max(‖b‖, eps)), PyTorch's F.cosine_similarity (eps 1e-8 by
// default there). Floats only; differentiable.
func CosineSimilarity(a, b *Tensor, axis int, eps float64) *Tensor {
	const op = "CosineSimilarity"
	ab, bb, ax, err := broadcastPair(op, a, b, axis)
	if err != nil {
		return failed(err)
	}
	return retag(op, ab.Normalize(2, ax, eps).Mul(bb.Normalize(2, ax, eps)).Sum(ax))
}
