package tensor

import (
	"errors"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// scanArgs validates a scan or sort of t along axis (a rank-0 tensor is
// treated as one element along axis 0 or -1) and returns the axis.
func scanArgs(op string, t *Tensor, axis int) (int, error) {
	if err := t.check(op); err != nil {
		return 0, err
	}
	ax, err := layout.NormalizeAxis(op, axis, max(t.Rank(), 1))
	if err != nil {
		return 0, errs.Retag("tensor", op, err)
	}
	return ax, nil
}

// CumSum returns the running sum of t along axis (numpy.cumsum): out[i] =
// t[0] + ... + t[i]. Floats keep their dtype and add in order (F16 and BF16
// in F32, each output rounded once); integers and Bool give I64 on every
// device, as NumPy does for signed integers and bool on 64-bit platforms
// and PyTorch for all integers (NumPy gives uint64 for u8, a dtype tessera
// does not have), accumulated exactly in 64 bits (GPUs in (lo, hi) pairs
// of u32) and wrapping only past the int64 range. Its gradient is the
// reversed running sum of the incoming gradient.
func (t *Tensor) CumSum(axis int) *Tensor { return t.scanOp(device.CumSum, axis) }

// CumProd returns the running product of t along axis (numpy.cumprod),
// with CumSum's dtype rule. Its gradient is computed as the reversed
// running sum of g*out divided by t, exact where t has no zeros; at a zero
// of t the gradient is not finite (PyTorch's zero-safe formula is not
// implemented).
func (t *Tensor) CumProd(axis int) *Tensor { return t.scanOp(device.CumProd, axis) }

func (t *Tensor) scanOp(op device.ScanOp, axis int) *Tensor {
	name := op.String()
	ax, err := scanArgs(name, t, axis)
	if err != nil {
		return failed(err)
	}
	if t.Rank() == 0 {
		u := t.Unsqueeze(0)
		defer u.Release()
		y := u.scanOp(op, 0)
		defer y.Release()
		return retag(name, y.Squeeze(0))
	}
	y := t.scan(op, ax, false)
	if t.wantsGrad() {
		y = gradScan(op, t, y, ax)
	}
	return y
}

// scan runs the backend scan along ax (from the end when reverse is set,
// through reversed views of the operand and result), without gradient.
func (t *Tensor) scan(op device.ScanOp, ax int, reverse bool) *Tensor {
	name := op.String()
	if err := t.check(name); err != nil {
		return failed(err)
	}
	be, ok := t.st.dev.Backend().(device.Scanner)
	if !ok {
		return fail(name, errs.ErrUnsupported, "device %s has no scan", t.st.dev.Name())
	}
	wd := workDType(t.DType())
	x := asWork(t, wd)
	defer x.Release()
	y := compute(name, device.ScanResult(wd), t.lay.Shape, []*Tensor{x}, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
		d, s := dst, src[0]
		if reverse {
			d.Layout, s.Layout = reversedAxis(d.Layout, ax), reversedAxis(s.Layout, ax)
		}
		return be.Scan(op, d, s, ax)
	})
	if out := device.ScanResult(t.DType()); out != y.DType() && y.err == nil {
		defer y.Release()
		return y.Cast(out)
	}
	return y
}

// Sort returns t sorted along axis and the positions (I64) the sorted
// elements came from: stable, so equal elements keep their order. Ascending
// order is numpy.sort's: NaN last, -0 equal to +0. Descending order is the
// reverse of it with ties still in source order, so NaN comes first, as in
// PyTorch's sort(descending=True). F16 and BF16 are sorted as F32 (exact).
// The values' gradient is scattered back to the source positions.
func (t *Tensor) Sort(axis int, descending bool) (values, indices *Tensor) {
	const op = "Sort"
	ax, err := scanArgs(op, t, axis)
	if err != nil {
		return failed(err), failed(err)
	}
	if t.Rank() == 0 {
		u := t.Unsqueeze(0)
		defer u.Release()
		v, i := u.Sort(0, descending)
		defer v.Release()
		defer i.Release()
		return retag(op, v.Squeeze(0)), retag(op, i.Squeeze(0))
	}
	v, i := t.sort(op, ax, descending)
	if t.wantsGrad() && v.err == nil {
		v = gradGather(t, v, ax, i)
	}
	return v, i
}

// ArgSort returns the positions that sort t along axis (Sort's indices):
// numpy.argsort(kind="stable") for ascending order.
func (t *Tensor) ArgSort(axis int, descending bool) *Tensor {
	v, i := t.Detach().Sort(axis, descending)
	v.Release()
	return retag("ArgSort", i)
}

// sort runs the backend sort along ax, without gradient.
func (t *Tensor) sort(op string, ax int, descending bool) (*Tensor, *Tensor) {
	be, ok := t.st.dev.Backend().(device.Sorter)
	if !ok {
		e := fail(op, errs.ErrUnsupported, "device %s has no sort", t.st.dev.Name())
		return e, e
	}
	wd := workDType(t.DType())
	x := asWork(t, wd)
	defer x.Release()
	// The indices' buffer is only allocated here: the backend's Sort below
	// writes every element of it (device.Sorter's contract).
	idx := compute(op, dtype.I64, t.lay.Shape, []*Tensor{x}, func(device.Backend, device.Operand, []device.Operand) error {
		return nil
	})
	if idx.err != nil {
		return idx, idx
	}
	v := compute(op, wd, t.lay.Shape, []*Tensor{x, idx}, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
		return be.Sort(dst, src[1], src[0], ax, descending)
	})
	if v.err != nil && wd == dtype.I64 && errors.Is(v.err, errs.ErrDType) {
		// A device whose sort has 32-bit keys only (the GPUs).
		idx.Release()
		v.Release()
		return x.sortI64Digits(ax, descending)
	}
	if v.err != nil {
		idx.Release()
		return v, v
	}
	if wd != t.DType() {
		defer v.Release()
		v = v.Cast(t.DType())
	}
	return v, idx
}

// sortI64Digits sorts an I64 t along ax on a device whose sort takes 32-bit
// keys, as two stable sorts of 32-bit digits, least significant first:
// the low words (read unsigned, biased into I32 order), then, carrying that
// order, the high words (signed). Stability makes the second sort keep the
// first one's order among equal high words, so the result is the 64-bit
// order with ties in source order, ascending or descending alike. The
// digits come from FloorDiv and Mod by 2^32, which the GPUs compute on
// (lo, hi) pairs.
func (t *Tensor) sortI64Digits(ax int, descending bool) (*Tensor, *Tensor) {
	base := Scalar[int64](1 << 32).To(t.st.dev)
	defer base.Release()
	bias := Scalar[int64](1 << 31).To(t.st.dev)
	defer bias.Release()
	m := t.Mod(base)
	defer m.Release()
	lo64 := m.Sub(bias)
	defer lo64.Release()
	lo := lo64.Cast(dtype.I32)
	defer lo.Release()
	hi64 := t.FloorDiv(base)
	defer hi64.Release()
	hi := hi64.Cast(dtype.I32)
	defer hi.Release()
	lv, p1 := lo.sort("Sort", ax, descending)
	lv.Release()
	defer p1.Release()
	h1 := hi.Gather(ax, p1)
	defer h1.Release()
	hv, p2 := h1.sort("Sort", ax, descending)
	hv.Release()
	defer p2.Release()
	idx := p1.Gather(ax, p2)
	return retag("Sort", t.Gather(ax, idx)), retag("Sort", idx)
}

// TopK returns the k largest (or, with largest false, smallest) elements of
// t along axis, sorted, and their positions (I64): torch.topk with
// sorted=True. Ties keep source order; NaN counts as the largest value, as
// in PyTorch. k must lie in [0, extent]. The result is the first k of
// Sort's order: for k up to topKSelectMax on a device with a partial
// selection (device.TopKer: the CPU) that selection, else the whole axis
// sorted. The values' gradient is scattered back to their positions.
func (t *Tensor) TopK(k, axis int, largest bool) (values, indices *Tensor) {
	const op = "TopK"
	ax, err := scanArgs(op, t, axis)
	if err != nil {
		return failed(err), failed(err)
	}
	n := 1
	if t.Rank() > 0 {
		n = t.lay.Shape[ax]
	}
	if k < 0 || k > n {
		e := fail(op, errs.ErrValue, "k = %d out of range for an axis of extent %d", k, n)
		return e, e
	}
	if t.Rank() > 0 && k > 0 && k <= topKSelectMax && k < n {
		if v, i, ok := t.topKSelect(ax, k, largest); ok {
			if t.wantsGrad() && v.err == nil {
				v = gradGather(t, v, ax, i)
			}
			return v, i
		}
	}
	v, i := t.Sort(axis, largest)
	if t.Rank() == 0 {
		return retag(op, v), retag(op, i)
	}
	defer v.Release()
	defer i.Release()
	return retag(op, v.Narrow(ax, 0, k)), retag(op, i.Narrow(ax, 0, k))
}

// topKSelectMax is the largest k that TopK selects rather than sorts: the
// CPU's selection keeps a heap of k words, cheap beside a sort of the line
// while k is small.
const topKSelectMax = 64

// topKSelect runs the backend's partial selection of the first k elements
// of Sort's order along ax, without gradient; ok is false when the device
// has none or declines the dtype or the line (the caller then sorts).
func (t *Tensor) topKSelect(ax, k int, largest bool) (values, indices *Tensor, ok bool) {
	const op = "TopK"
	be, ok := t.st.dev.Backend().(device.TopKer)
	wd := workDType(t.DType())
	if !ok || wd.Size() == 8 {
		return nil, nil, false
	}
	x := asWork(t, wd)
	defer x.Release()
	shape := slices.Clone(t.lay.Shape)
	shape[ax] = k
	// As in sort: the indices are allocated here and written by TopK.
	idx := compute(op, dtype.I64, shape, []*Tensor{x}, func(device.Backend, device.Operand, []device.Operand) error {
		return nil
	})
	if idx.err != nil {
		return idx, idx, true
	}
	v := compute(op, wd, shape, []*Tensor{x, idx}, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
		return be.TopK(dst, src[1], src[0], ax, k, largest)
	})
	if v.err != nil {
		idx.Release()
		if errors.Is(v.err, errs.ErrDType) || errors.Is(v.err, errs.ErrShape) {
			v.Release()
			return nil, nil, false
		}
		return v, v, true
	}
	if wd != t.DType() {
		defer v.Release()
		v = v.Cast(t.DType())
	}
	return v, idx, true
}

// reversedAxis is l read from the end along ax (a negative stride).
func reversedAxis(l layout.Layout, ax int) layout.Layout {
	n := l.Shape[ax]
	if n == 0 {
		return l
	}
	st := slices.Clone(l.Strides)
	off := l.Offset + (n-1)*st[ax]
	st[ax] = -st[ax]
	return layout.Layout{Shape: l.Shape, Strides: st, Offset: off}
}
