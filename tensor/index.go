package tensor

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Index checks on the device. Gather and ScatterAdd hand the backend a small
// status buffer (device.StatusLen I32 words, zeroed) in which the kernel
// records an out-of-range index instead of following it. Reading it would
// stall a GPU, so the result carries the check unread (Tensor.chk) and
// passes it on to every tensor computed from it (compute, views, pending
// elementwise nodes); it is read once, when values leave the device (To
// another device, so every readback) or at Err, and then becomes the
// tensor's error. On the CPU the status is host memory and is read at once,
// so the error is immediate there.

// idxCheck is one pending index check.
type idxCheck struct {
	once   sync.Once
	passed atomic.Bool // read, and no bad index was recorded
	stat   *Tensor     // the status words, on the result's device
	op     string
	axis   int
	extent int
	err    error
}

// settle reads the status (once) and returns the error it records.
func (c *idxCheck) settle() error {
	c.once.Do(func() {
		st := c.stat
		c.stat = nil
		h := st.To(device.CPU())
		st.Release()
		defer h.Release()
		w, err := ToSlice[int32](h)
		switch {
		case err != nil:
			c.err = errs.Retag("tensor", c.op, err)
		case w[0] != 0:
			v := int64(uint64(uint32(w[1])) | uint64(uint32(w[2]))<<32)
			c.err = errs.New("tensor", c.op, errs.ErrAxis, "index %d out of range for axis %d of extent %d", v, c.axis, c.extent)
		default:
			c.passed.Store(true)
		}
	})
	return c.err
}

// settleChecks reads t's pending index checks (each once; later calls
// return the stored outcome) and returns the first failure.
func (t *Tensor) settleChecks() error {
	for _, c := range t.chk {
		if err := c.settle(); err != nil {
			return err
		}
	}
	return nil
}

// maxChecks bounds the pending checks one tensor carries: a loop that
// keeps folding gathered values into one running tensor would otherwise
// grow its list (and the status buffers it holds) without end. Past the
// bound the checks are read, which waits for the device once.
const maxChecks = 16

// inheritChecks returns the pending checks of xs, without repeats and
// without those already read and passed.
func inheritChecks(xs []*Tensor) []*idxCheck {
	var out []*idxCheck
	for _, x := range xs {
		if x == nil {
			continue
		}
		for _, c := range x.chk {
			if !c.passed.Load() && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	if len(out) > maxChecks {
		kept := out[:0]
		for _, c := range out {
			if c.settle() != nil {
				kept = append(kept, c) // failed: the error travels on
			}
		}
		out = kept
	}
	return out
}

// withCheck attaches a new check on status stat to y; on a device whose
// memory is the host's it is settled at once.
func withCheck(y, stat *Tensor, op string, axis, extent int) *Tensor {
	if y.err != nil {
		stat.Release()
		return y
	}
	c := &idxCheck{stat: stat, op: op, axis: axis, extent: extent}
	y.chk = append(y.chk, c)
	if _, host := stat.st.buf.(device.HostBuffer); host {
		if err := y.settleChecks(); err != nil {
			y.Release()
			return failed(err)
		}
	}
	return y
}

// newStatus returns zeroed index status words on t's device.
func newStatus(op string, t *Tensor) *Tensor {
	return compute(op, dtype.I32, []int{device.StatusLen}, []*Tensor{t}, func(be device.Backend, dst device.Operand, _ []device.Operand) error {
		return be.Fill(dst, 0)
	})
}

// workDType is the dtype the backends compute an indexing, scan or sort of
// dt in: F16 and BF16 are widened to F32 (exactly), so every backend needs
// kernels for the 32- and 64-bit types only.
func workDType(dt dtype.DType) dtype.DType {
	if dt == dtype.F16 || dt == dtype.BF16 {
		return dtype.F32
	}
	return dt
}

// asWork returns t in workDType (t itself, with a reference of its own,
// when no cast is needed).
func asWork(t *Tensor, dt dtype.DType) *Tensor {
	if t.DType() == dt {
		return t.view("Cast", t.lay)
	}
	return t.Cast(dt)
}

// indexArgs validates the common arguments of Gather and ScatterAdd and
// returns the normalised axis.
func indexArgs(op string, t, idx *Tensor, axis int) (int, error) {
	if err := t.check(op); err != nil {
		return 0, err
	}
	if err := idx.check(op); err != nil {
		return 0, err
	}
	if idx.DType() != dtype.I32 && idx.DType() != dtype.I64 {
		return 0, errs.New("tensor", op, errs.ErrDType, "indices must be i32 or i64, have %v", idx.DType())
	}
	if idx.Rank() != t.Rank() {
		return 0, errs.New("tensor", op, errs.ErrShape, "indices of rank %d for a tensor of rank %d (they must match)", idx.Rank(), t.Rank())
	}
	ax, err := layout.NormalizeAxis(op, axis, max(t.Rank(), 1))
	if err != nil {
		return 0, errs.Retag("tensor", op, err)
	}
	return ax, nil
}

// Gather returns t's elements picked along axis by idx (torch.gather):
// out[i][j][k] = t[idx[i][j][k]][j][k] for axis 0, and likewise for the
// other axes. idx is an I32 or I64 tensor on t's device with t's rank and at
// most t's extent on every other axis; the result has idx's shape and t's
// dtype. The indices stay on the device: an index outside [0, extent)
// (negative ones too, as in PyTorch) is an ErrAxis error that the device
// records and that surfaces when the result, or anything computed from it,
// is read back or checked with Err (at once on the CPU).
func (t *Tensor) Gather(axis int, idx *Tensor) *Tensor { return t.gatherOp("Gather", axis, idx) }

// gatherOp is Gather reporting as op.
func (t *Tensor) gatherOp(op string, axis int, idx *Tensor) *Tensor {
	ax, err := indexArgs(op, t, idx, axis)
	if err != nil {
		return failed(err)
	}
	if t.Rank() == 0 {
		u, ui := t.Unsqueeze(0), idx.Unsqueeze(0)
		defer u.Release()
		defer ui.Release()
		y := u.gatherOp(op, 0, ui)
		defer y.Release()
		return retag(op, y.Squeeze(0))
	}
	y := t.gather(op, ax, idx)
	if t.wantsGrad() {
		y = gradGather(t, y, ax, idx)
	}
	return y
}

// gather is Gather on validated arguments, without gradient.
func (t *Tensor) gather(op string, ax int, idx *Tensor) *Tensor {
	for _, x := range []*Tensor{t, idx} {
		if err := x.check(op); err != nil {
			return failed(err)
		}
	}
	be, ok := t.st.dev.Backend().(device.Indexer)
	if !ok {
		return fail(op, errs.ErrUnsupported, "device %s has no gather", t.st.dev.Name())
	}
	if t.Numel() == 0 && idx.Numel() > 0 {
		// idx is no longer than t on the other axes, so t's axis is empty
		// and every index is out of range: no kernel need look (a GPU
		// cannot bind t's empty buffer).
		return fail(op, errs.ErrAxis, "index out of range for axis %d of extent 0", ax)
	}
	wd := workDType(t.DType())
	x := asWork(t, wd)
	defer x.Release()
	stat := newStatus(op, t)
	if stat.err != nil {
		return stat
	}
	y := compute(op, wd, idx.lay.Shape, []*Tensor{x, idx, stat}, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
		return be.Gather(dst, src[0], src[1], src[2], ax)
	})
	y = withCheck(y, stat, op, ax, t.lay.Shape[ax])
	if wd != t.DType() {
		defer y.Release()
		return y.Cast(t.DType())
	}
	return y
}

// scatterDType is the dtype ScatterAdd accumulates dt in: half floats in
// F32, U8 in I32 (the sum wraps back to u8 when cast); Bool is refused.
func scatterDType(dt dtype.DType) (dtype.DType, bool) {
	switch dt {
	case dtype.Bool:
		return 0, false
	case dtype.U8:
		return dtype.I32, true
	}
	return workDType(dt), true
}

// ScatterAdd returns a copy of t to which src's elements are added at the
// positions idx names along axis (torch.scatter_add, not in place):
// out[idx[i][j][k]][j][k] += src[i][j][k] for axis 0. idx (I32 or I64) and
// src have one shape, t's rank and at most t's extent on every axis but
// axis; src has t's dtype. Indices stay on the device, and an out-of-range
// one is an ErrAxis error reported as for Gather. Repeated indices
// accumulate; on a GPU, into an axis longer than 64, colliding float
// additions happen in an unspecified order (as with PyTorch's CUDA kernel),
// so the last bits may vary between runs. F16 and BF16 accumulate in F32
// and round once; U8 wraps.
func (t *Tensor) ScatterAdd(axis int, idx, src *Tensor) *Tensor {
	const op = "ScatterAdd"
	ax, err := indexArgs(op, t, idx, axis)
	if err != nil {
		return failed(err)
	}
	if err := src.check(op); err != nil {
		return failed(err)
	}
	if src.DType() != t.DType() {
		return fail(op, errs.ErrDType, "src is %v, tensor %v (Cast first)", src.DType(), t.DType())
	}
	if !slices.Equal(src.lay.Shape, idx.lay.Shape) {
		return fail(op, errs.ErrShape, "src shape %v differs from the indices' %v", src.lay.Shape, idx.lay.Shape)
	}
	if t.Rank() == 0 {
		u, ui, us := t.Unsqueeze(0), idx.Unsqueeze(0), src.Unsqueeze(0)
		defer u.Release()
		defer ui.Release()
		defer us.Release()
		y := u.ScatterAdd(0, ui, us)
		defer y.Release()
		return retag(op, y.Squeeze(0))
	}
	y := t.scatterAdd(op, ax, idx, src)
	if t.wantsGrad() || src.wantsGrad() {
		y = gradScatterAdd(t, src, y, ax, idx)
	}
	return y
}

// scatterAdd is ScatterAdd on validated arguments, without gradient.
func (t *Tensor) scatterAdd(op string, ax int, idx, src *Tensor) *Tensor {
	for _, x := range []*Tensor{t, idx, src} {
		if err := x.check(op); err != nil {
			return failed(err)
		}
	}
	be, ok := t.st.dev.Backend().(device.Indexer)
	if !ok {
		return fail(op, errs.ErrUnsupported, "device %s has no scatter", t.st.dev.Name())
	}
	wd, ok := scatterDType(t.DType())
	if !ok {
		return fail(op, errs.ErrDType, "not defined for %v (Cast first)", t.DType())
	}
	for i, d := range idx.lay.Shape {
		if i != ax && d > t.lay.Shape[i] {
			return fail(op, errs.ErrShape, "indices %v exceed the tensor's %v on axis %d", idx.lay.Shape, t.lay.Shape, i)
		}
	}
	if t.Numel() == 0 && idx.Numel() > 0 {
		// as in gather: t's axis is empty, every index out of range (and
		// a GPU would skip the empty result's kernel, with its check)
		return fail(op, errs.ErrAxis, "index out of range for axis %d of extent 0", ax)
	}
	x, s := asWork(t, wd), asWork(src, wd)
	defer x.Release()
	defer s.Release()
	stat := newStatus(op, t)
	if stat.err != nil {
		return stat
	}
	y := compute(op, wd, t.lay.Shape, []*Tensor{x, idx, s, stat}, func(b device.Backend, dst device.Operand, in []device.Operand) error {
		if err := b.Copy(dst, in[0]); err != nil {
			return err
		}
		return be.ScatterAdd(dst, in[1], in[2], in[3], ax)
	})
	y = withCheck(y, stat, op, ax, t.lay.Shape[ax])
	if wd != t.DType() {
		defer y.Release()
		return y.Cast(t.DType())
	}
	return y
}

// IndexAdd returns a copy of t to which src's slices along axis are added
// at the positions idx (a 1-D I32 or I64 tensor) names: for axis 0,
// out[idx[i]] += src[i] (PyTorch's index_add, not in place; scale src
// first for its alpha). src has t's dtype and shape except along axis,
// where its extent is idx's length. Repeated indices accumulate; an index
// outside [0, extent) is an ErrAxis error, reported as ScatterAdd's, on
// whose kernels and gradient it runs (indices on another device are moved
// to t's first, as IndexSelect's).
func (t *Tensor) IndexAdd(axis int, idx, src *Tensor) *Tensor {
	const op = "IndexAdd"
	for _, x := range []*Tensor{t, idx, src} {
		if err := x.checkOperand(op); err != nil {
			return failed(err)
		}
	}
	if idx.DType() != dtype.I64 && idx.DType() != dtype.I32 {
		return fail(op, errs.ErrDType, "indices must be a 1-D i32 or i64 tensor, have %v %v", idx.DType(), idx.lay.Shape)
	}
	if idx.Rank() > 1 {
		return fail(op, errs.ErrShape, "indices must be a 1-D i32 or i64 tensor, have %v %v", idx.DType(), idx.lay.Shape)
	}
	if t.Rank() == 0 {
		// PyTorch treats a 0-d tensor as one of a single element.
		u, us, ui := t.Unsqueeze(0), src, idx
		if src.Rank() == 0 {
			us = src.Unsqueeze(0)
			defer us.Release()
		}
		if idx.Rank() == 0 {
			ui = idx.Unsqueeze(0)
			defer ui.Release()
		}
		defer u.Release()
		y := u.IndexAdd(axis, ui, us)
		defer y.Release()
		return retag(op, y.Squeeze(0))
	}
	if idx.Rank() == 0 {
		ui := idx.Unsqueeze(0)
		defer ui.Release()
		return t.IndexAdd(axis, ui, src)
	}
	ax, err := layout.NormalizeAxis(op, axis, t.Rank())
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	want := slices.Clone(t.lay.Shape)
	want[ax] = idx.lay.Shape[0]
	if !slices.Equal(src.lay.Shape, want) {
		return fail(op, errs.ErrShape, "src has shape %v; for a tensor %v and %d indices along axis %d it must be %v", src.lay.Shape, t.lay.Shape, idx.lay.Shape[0], ax, want)
	}
	if src.DType() != t.DType() {
		return fail(op, errs.ErrDType, "src is %v, tensor %v (Cast first)", src.DType(), t.DType())
	}
	if idx.Device() != t.Device() {
		idx = idx.To(t.Device()) // as IndexSelect
		defer idx.Release()
	}
	ix := idx.broadcastAlong(want, ax)
	defer ix.Release()
	return retag(op, t.ScatterAdd(ax, ix, src))
}

// IndexSelect picks the entries idx (a 1-D I32 or I64 tensor) along axis,
// in order and with repeats allowed. It is a Gather with idx broadcast over
// the other axes, so indices on t's device never leave it (indices on
// another device are moved to t's first); an index outside [0, extent) is
// an ErrAxis error, reported as Gather's.
func (t *Tensor) IndexSelect(axis int, idx *Tensor) *Tensor {
	const op = "IndexSelect"
	if err := t.check(op); err != nil {
		return failed(err)
	}
	if err := idx.check(op); err != nil {
		return failed(err)
	}
	if idx.DType() != dtype.I64 && idx.DType() != dtype.I32 {
		return fail(op, errs.ErrDType, "indices must be a 1-D i32 or i64 tensor, have %v %v", idx.DType(), idx.lay.Shape)
	}
	if idx.Rank() != 1 {
		return fail(op, errs.ErrShape, "indices must be a 1-D i32 or i64 tensor, have %v %v", idx.DType(), idx.lay.Shape)
	}
	ax, err := layout.NormalizeAxis(op, axis, t.Rank())
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	if idx.st.dev != t.st.dev {
		idx = idx.To(t.st.dev)
		defer idx.Release()
	}
	ix := idx.broadcastAlong(t.lay.Shape, ax)
	defer ix.Release()
	return t.gatherOp(op, ax, ix)
}

// broadcastAlong views the 1-D idx as a tensor of shape with idx's extent
// along ax (a stride-0 view over the other axes).
func (idx *Tensor) broadcastAlong(shape []int, ax int) *Tensor {
	vs := make([]int, len(shape))
	for i := range vs {
		vs[i] = 1
	}
	vs[ax] = idx.lay.Shape[0]
	full := slices.Clone(shape)
	full[ax] = idx.lay.Shape[0]
	r := idx.Reshape(vs...)
	defer r.Release()
	return r.BroadcastTo(full...)
}
