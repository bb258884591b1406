package tensor

import (
	"math"
	"slices"

	"github.com/tessera-go/tessera/errs"
)

// Quantile returns the q-th quantile (q in [0, 1]) over the given axes
// (all when none are given): the sorted values' linear interpolation at
// position q·(n-1), numpy.quantile's default method and torch.quantile's,
// with their interpolation formula (from the lower value below the middle,
// from the upper one above). A line holding NaN gives NaN, as in both. An
// empty extent is an ErrShape (nothing to interpolate), a q outside
// [0, 1] an ErrValue. Floats only; differentiable through the sort (the
// gradient goes to the one or two values interpolated, as PyTorch's).
func (t *Tensor) Quantile(q float64, axes ...int) *Tensor {
	return t.quantile("Quantile", q, false, axes)
}

// QuantileKeepDims is Quantile keeping the reduced axes with extent 1.
func (t *Tensor) QuantileKeepDims(q float64, axes ...int) *Tensor {
	return t.quantile("QuantileKeepDims", q, true, axes)
}

// Median is numpy.median: Quantile(0.5), the mean of the two middle values
// of an even count. PyTorch's torch.median returns the lower of the two
// instead; that is Quantile with q = (n/2 - 1)/(n - 1) for an even n.
func (t *Tensor) Median(axes ...int) *Tensor { return t.quantile("Median", 0.5, false, axes) }

// MedianKeepDims is Median keeping the reduced axes with extent 1.
func (t *Tensor) MedianKeepDims(axes ...int) *Tensor {
	return t.quantile("MedianKeepDims", 0.5, true, axes)
}

func (t *Tensor) quantile(name string, q float64, keep bool, axes []int) *Tensor {
	if err := t.checkOperand(name); err != nil {
		return failed(err)
	}
	if !t.DType().IsFloat() {
		return fail(name, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", t.DType())
	}
	if !(q >= 0 && q <= 1) {
		return fail(name, errs.ErrValue, "q %v must be in [0, 1]", q)
	}
	ax, err := normAxes(name, axes, t.Rank())
	if err != nil {
		return failed(err)
	}
	shape := t.lay.Shape
	n := 1
	for _, a := range ax {
		n *= shape[a]
	}
	if n == 0 {
		return fail(name, errs.ErrShape, "no values to take a quantile of over axes %v of %v", ax, shape)
	}
	// The reduced axes last, as one.
	others := rest(ax, len(shape))
	var outer, kept []int
	for i, d := range shape {
		switch {
		case !slices.Contains(ax, i):
			outer = append(outer, d)
			kept = append(kept, d)
		case keep:
			kept = append(kept, 1)
		}
	}
	x := t
	if perm := append(slices.Clone(others), ax...); !slices.IsSorted(perm) {
		x = x.Permute(perm...)
	}
	x = x.Reshape(append(slices.Clone(outer), n)...)
	v, idx := x.Sort(-1, false)
	idx.Release()
	pos := q * float64(n-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, n-1)
	w := pos - float64(lo)
	a, b := v.Narrow(-1, lo, 1), v.Narrow(-1, hi, 1)
	diff := b.Sub(a)
	var r *Tensor
	if w < 0.5 {
		r = a.Add(diff.MulScalar(w))
	} else {
		r = b.Sub(diff.MulScalar(1 - w))
	}
	// NaN sorts last: a line holding one gives NaN.
	nan := filled(name, t.Device(), t.DType(), math.NaN(), []int{})
	r = Where(v.Narrow(-1, n-1, 1).IsNaN(), nan, r)
	return retag(name, r.Reshape(kept...))
}
