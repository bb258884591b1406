package tensor

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// Operations whose result's shape depends on the values (Nonzero, Unique,
// Bincount) or that search sorted data (Searchsorted). Nonzero, Unique and
// Searchsorted read their operands to the host, as PyTorch's do from a GPU
// (a synchronisation), compute there in a Go type that holds every value
// exactly (int64 for the integer and Bool dtypes, float64 for the floats)
// and move the result to the operand's device; Bincount reads back only
// its input's extremes and counts on the device. None is differentiable:
// their results are integers, or, for Unique's values, a selection whose
// gradient PyTorch does not define either.

// hostOrdered reads t's values in row-major order as int64 (integer and
// Bool dtypes) or float64 (floats); exactly one of the two is non-nil.
func hostOrdered(op string, t *Tensor) ([]int64, []float64, error) {
	if t.DType().IsFloat() {
		f, err := t.Float64s()
		return nil, f, errs.Retag("tensor", op, err)
	}
	if t.DType() == dtype.I64 {
		v, err := ToSlice[int64](t)
		return v, nil, errs.Retag("tensor", op, err)
	}
	f, err := t.Float64s() // I32, U8, Bool: exact in float64
	if err != nil {
		return nil, nil, errs.Retag("tensor", op, err)
	}
	v := make([]int64, len(f))
	for i, x := range f {
		v[i] = int64(x)
	}
	return v, nil, nil
}

// nanLast orders floats as NumPy's sort does: NaN after everything.
func nanLast(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}

// sameKey reports whether two floats are one value for Unique: equal, or
// both NaN (NumPy's equal_nan).
func sameKey(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// Nonzero returns the indices of t's nonzero elements (NaN counts as
// nonzero, false as zero) as an I64 tensor [k, rank], one row per element
// in row-major order: torch.nonzero, numpy.argwhere. It reads t to the
// host.
func Nonzero(t *Tensor) *Tensor {
	const op = "Nonzero"
	if err := t.check(op); err != nil {
		return failed(err)
	}
	nz := t.NeScalar(0) // NaN != 0 holds
	flags, err := ToSlice[bool](nz)
	nz.Release()
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	shape := t.lay.Shape
	r := len(shape)
	var out []int64
	idx := make([]int, r)
	for _, f := range flags {
		if f {
			for _, i := range idx {
				out = append(out, int64(i))
			}
		}
		for a := r - 1; a >= 0; a-- { // the next row-major index
			idx[a]++
			if idx[a] < shape[a] {
				break
			}
			idx[a] = 0
		}
	}
	k := 0
	if r > 0 {
		k = len(out) / r
	} else if len(flags) == 1 && flags[0] {
		k = 1
	}
	return FromSlice(out, k, r).To(t.Device())
}

// Unique returns the sorted distinct values of t, flattened
// (numpy.unique, torch.unique with sorted=True): values has t's dtype;
// inverse (I64, t's shape) holds each element's index in values, and
// counts (I64) each value's number of elements. NaNs are one value,
// sorted last, as NumPy's default (equal_nan). It reads t to the host.
func (t *Tensor) Unique() (values, inverse, counts *Tensor) {
	const op = "Unique"
	if err := t.check(op); err != nil {
		return failed(err), failed(err), failed(err)
	}
	iv, fv, err := hostOrdered(op, t)
	if err != nil {
		return failed(err), failed(err), failed(err)
	}
	dev, dt := t.Device(), t.DType()
	var inv, cnt []int64
	if fv != nil {
		var u []float64
		u, inv, cnt = uniqueOf(fv, nanLast, sameKey)
		values = FromSlice(u).Cast(dt).To(dev)
	} else {
		var u []int64
		u, inv, cnt = uniqueOf(iv, cmp.Compare[int64], func(a, b int64) bool { return a == b })
		values = FromSlice(u).Cast(dt).To(dev)
	}
	return values, FromSlice(inv, slices.Clone(t.lay.Shape)...).To(dev), FromSlice(cnt).To(dev)
}

// uniqueOf sorts v's distinct values by order, with same deciding which
// are one, and returns them, each element's index among them and their
// counts.
func uniqueOf[T any](v []T, order func(a, b T) int, same func(a, b T) bool) (u []T, inverse, counts []int64) {
	perm := make([]int, len(v))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(i, j int) int { return order(v[i], v[j]) })
	inverse = make([]int64, len(v))
	for _, p := range perm {
		if len(u) == 0 || !same(u[len(u)-1], v[p]) {
			u = append(u, v[p])
			counts = append(counts, 0)
		}
		inverse[p] = int64(len(u) - 1)
		counts[len(counts)-1]++
	}
	if u == nil {
		u = []T{}
	}
	return u, inverse, counts
}

// Searchsorted returns, for each of values, the index at which it would
// be inserted into sorted to keep it sorted: the first such index, or
// with right the last (numpy.searchsorted's side="left"/"right",
// torch.searchsorted's right). sorted is 1-D, or [..., M] with values
// [..., K] sharing its leading axes (PyTorch's batched form); NaN sorts
// after every number, as NumPy's sort puts it. The result is I64 with
// values' shape. sorted must be sorted (not checked, as in both
// libraries). Both are read to the host.
func Searchsorted(sorted, values *Tensor, right bool) *Tensor {
	const op = "Searchsorted"
	for _, x := range []*Tensor{sorted, values} {
		if err := x.check(op); err != nil {
			return failed(err)
		}
	}
	ss, vs := sorted.lay.Shape, values.lay.Shape
	switch {
	case len(ss) == 0:
		return fail(op, errs.ErrShape, "sorted must have at least one axis, have %v", ss)
	case len(ss) > 1 && (len(vs) != len(ss) || !slices.Equal(ss[:len(ss)-1], vs[:len(vs)-1])):
		return fail(op, errs.ErrShape, "sorted %v and values %v must share their leading axes (or sorted be 1-D)", ss, vs)
	case sorted.DType().IsFloat() != values.DType().IsFloat() && (sorted.DType() == dtype.I64 || values.DType() == dtype.I64):
		// int64 beyond 2^53 has no float64 to compare in
		return fail(op, errs.ErrDType, "sorted %v and values %v: an I64 operand needs an integer partner", sorted.DType(), values.DType())
	}
	if sorted.Device() != values.Device() {
		return fail(op, errs.ErrDevice, "sorted is on %v, values on %v", sorted.Device(), values.Device())
	}
	m := ss[len(ss)-1]
	k := 1
	if len(vs) > 0 {
		k = vs[len(vs)-1]
	}
	si, sf, err := hostOrdered(op, sorted)
	if err != nil {
		return failed(err)
	}
	vi, vf, err := hostOrdered(op, values)
	if err != nil {
		return failed(err)
	}
	if sf == nil && vf != nil {
		sf = toFloats(si)
	}
	if vf == nil && sf != nil {
		vf = toFloats(vi)
	}
	n := max(len(vi), len(vf))
	out := make([]int64, n)
	for i := range out {
		row := 0
		if len(ss) > 1 {
			row = i / k
		}
		var at int
		if sf != nil {
			s := sf[row*m : (row+1)*m]
			at = sort.Search(m, func(j int) bool { c := nanLast(s[j], vf[i]); return c > 0 || !right && c == 0 })
		} else {
			s := si[row*m : (row+1)*m]
			at = sort.Search(m, func(j int) bool { return s[j] > vi[i] || !right && s[j] == vi[i] })
		}
		out[i] = int64(at)
	}
	return FromSlice(out, slices.Clone(vs)...).To(values.Device())
}

func toFloats(v []int64) []float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return f
}

// Bincount counts the occurrences of each value of x, a 1-D tensor of
// non-negative integers: out[v] is the number of elements equal to v, or
// with weights (1-D, x's length, a float dtype) the sum of their weights;
// out has max(x)+1 entries, at least minLength (numpy.bincount,
// torch.bincount). The counts are I64; the sums have weights' dtype
// (PyTorch's rule; NumPy's are float64). Only x's extremes are read back
// (for the length and the check that none is negative, an ErrValue): the
// counting is a ScatterAdd on x's device, whose allocation checks the
// length against the device's memory.
func Bincount(x, weights *Tensor, minLength int) *Tensor {
	const op = "Bincount"
	if err := x.check(op); err != nil {
		return failed(err)
	}
	if x.DType().IsFloat() || x.DType() == dtype.Bool {
		return fail(op, errs.ErrDType, "x must hold integers, have %v", x.DType())
	}
	if x.Rank() != 1 {
		return fail(op, errs.ErrShape, "x must be 1-D, have %v", x.lay.Shape)
	}
	if minLength < 0 {
		return fail(op, errs.ErrValue, "minLength %d must not be negative", minLength)
	}
	src := Ones(dtype.I64, x.lay.Shape...).To(x.Device())
	if weights != nil {
		if err := weights.check(op); err != nil {
			return failed(err)
		}
		if !weights.DType().IsFloat() {
			return fail(op, errs.ErrDType, "weights must be floats, have %v", weights.DType())
		}
		if !slices.Equal(weights.lay.Shape, x.lay.Shape) {
			return fail(op, errs.ErrShape, "weights %v must have x's shape %v", weights.lay.Shape, x.lay.Shape)
		}
		src = weights
	}
	n := int64(minLength)
	if x.Numel() > 0 {
		// Both extremes in one readback.
		ext, err := ToSlice[int64](Stack([]*Tensor{x.Min(), x.Max()}, 0).Cast(dtype.I64))
		if err != nil {
			return failed(errs.Retag("tensor", op, err))
		}
		if ext[0] < 0 {
			return fail(op, errs.ErrValue, "x holds %d; values must not be negative", ext[0])
		}
		n = max(n, ext[1]+1)
	}
	if n > math.MaxInt32 {
		return fail(op, errs.ErrOutOfMemory, "%d bins", n)
	}
	zero := Zeros(src.DType(), int(n)).To(x.Device())
	return retag(op, zero.ScatterAdd(0, x.Cast(dtype.I64), src))
}
