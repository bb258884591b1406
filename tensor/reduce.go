package tensor

import (
	"errors"
	"math"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// normAxes maps axes (negative counts from the end) to sorted distinct
// axes; none means every axis. A 0-d tensor takes axis 0 or -1 as its
// every-axis (none), as PyTorch does and NumPy's sum, prod, max, min and
// argmax do.
func normAxes(op string, axes []int, rank int) ([]int, error) {
	if rank == 0 && len(axes) == 1 && (axes[0] == 0 || axes[0] == -1) {
		return []int{}, nil
	}
	if len(axes) == 0 {
		all := make([]int, rank)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	out := make([]int, len(axes))
	for i, a := range axes {
		n, err := layout.NormalizeAxis(op, a, rank)
		if err != nil {
			return nil, errs.Retag("tensor", op, err)
		}
		out[i] = n
	}
	slices.Sort(out)
	for i := 1; i < len(out); i++ {
		if out[i] == out[i-1] {
			return nil, errs.New("tensor", op, errs.ErrAxis, "axis %d repeated in %v", out[i], axes)
		}
	}
	return out, nil
}

func (t *Tensor) reduce(op device.ReduceOp, keep bool, axes []int) *Tensor {
	name := op.String()
	if keep {
		name += "KeepDims"
	}
	if err := t.checkOperand(name); err != nil {
		return failed(err)
	}
	ax, err := normAxes(name, axes, t.Rank())
	if err != nil {
		return failed(err)
	}
	if ws, ok := t.Device().Backend().(device.WideSummer); ok && op == device.Sum && sumsWide(t.DType()) {
		return t.sumWide(ws, name, keep, ax)
	}
	if t.DType() == dtype.Bool {
		if r, ok := t.reduceBool(op, name, keep, axes, ax); ok {
			return r
		}
	}
	if wideIntReduction(op, t.DType()) {
		// NumPy's and PyTorch's rule: integer sums and products are I64,
		// accumulated exactly in 64 bits on every device.
		w := t.Cast(dtype.I64)
		defer w.Release()
		return retag(name, w.reduce(op, keep, axes))
	}
	out, err := op.Result("tensor", t.DType())
	if err != nil {
		return failed(errs.Retag("tensor", name, err))
	}
	if op.IsArg() && len(ax) == 0 { // a 0-d tensor: its one element is at index 0
		if err := t.check(name); err != nil {
			return failed(err)
		}
		return filled(name, t.Device(), out, 0, []int{})
	}
	outShape, keptShape := reducedShapes(t.lay.Shape, ax)
	if op == device.Mean && emptyExtent(t.lay.Shape, ax) {
		// The mean of nothing is NaN (0/0), as in NumPy and PyTorch.
		s := t.reduce(device.Sum, keep, axes)
		defer s.Release()
		return s.MulScalar(math.NaN())
	}
	if def, _ := op.Def(); emptyExtent(t.lay.Shape, ax) && !def.EmptyOK {
		return failed(emptyReduction(name, ax, t.lay.Shape))
	}
	r, fused := t.reducePending(name, op, ax, out, outShape)
	if !fused {
		r = compute(name, out, outShape, []*Tensor{t}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
			if dst.Layout.Numel() == 0 {
				return nil // an empty result, whatever the extent: as NumPy
			}
			return be.Reduce(op, dst, src[0], ax)
		})
	}
	if t.wantsGrad() {
		r = gradReduce(op, t, ax, r)
	}
	return keptDims(r, keep, keptShape)
}

// keptDims is a reduction's result r, reshaped to kept (the reduced axes
// at extent 1) for the KeepDims forms.
func keptDims(r *Tensor, keep bool, kept []int) *Tensor {
	if !keep || r.err != nil {
		return r
	}
	defer r.Release()
	return r.Reshape(kept...)
}

// wideIntReduction reports whether reduction op of dt is an integer Sum or
// Prod narrower than 64 bits, which gives I64 (NumPy's and PyTorch's
// rule; tessera has no unsigned 64-bit dtype, so U8 widens to I64 as in
// PyTorch, where NumPy gives uint64).
func wideIntReduction(op device.ReduceOp, dt dtype.DType) bool {
	return (op == device.Sum || op == device.Prod) && (dt == dtype.I32 || dt == dtype.U8)
}

// Sum adds the elements over the given axes (all when none are given).
// Integer and Bool sums are I64, as in NumPy and PyTorch: I32 and U8 are
// widened and added exactly in 64 bits on every device (GPUs hold I64 as
// (lo, hi) pairs and carry between them), wrapping only past 2^63; a Bool
// sum counts the true elements. The sum over an empty extent is 0.
func (t *Tensor) Sum(axes ...int) *Tensor { return t.reduce(device.Sum, false, axes) }

// SumKeepDims is Sum keeping the reduced axes with extent 1.
func (t *Tensor) SumKeepDims(axes ...int) *Tensor { return t.reduce(device.Sum, true, axes) }

// Mean averages over the given axes (floating dtypes only: integers are an
// ErrDType, as in PyTorch; Cast first). The mean over an empty extent is
// NaN, as in NumPy and PyTorch.
func (t *Tensor) Mean(axes ...int) *Tensor { return t.reduce(device.Mean, false, axes) }

// MeanKeepDims is Mean keeping the reduced axes with extent 1.
func (t *Tensor) MeanKeepDims(axes ...int) *Tensor { return t.reduce(device.Mean, true, axes) }

// Prod multiplies the elements over the given axes; over an empty extent it
// is 1. Integer products are I64, as in NumPy and PyTorch, multiplied
// modulo 2^64 on every device (exact until they pass the int64 range,
// then wrapping as NumPy's int64 does); a Bool product is I64 (1 where
// every element is true).
func (t *Tensor) Prod(axes ...int) *Tensor { return t.reduce(device.Prod, false, axes) }

// ProdKeepDims is Prod keeping the reduced axes with extent 1.
func (t *Tensor) ProdKeepDims(axes ...int) *Tensor { return t.reduce(device.Prod, true, axes) }

// Max returns the largest element over the given axes; NaN wins (NumPy's
// max, PyTorch's amax). Over an empty extent it is an error that is both
// ErrShape and ErrValue (NumPy's ValueError). Of Bool it is Any.
func (t *Tensor) Max(axes ...int) *Tensor { return t.reduce(device.Max, false, axes) }

// MaxKeepDims is Max keeping the reduced axes with extent 1.
func (t *Tensor) MaxKeepDims(axes ...int) *Tensor { return t.reduce(device.Max, true, axes) }

// Min returns the smallest element over the given axes; NaN wins; empty
// extents as Max. Of Bool it is All.
func (t *Tensor) Min(axes ...int) *Tensor { return t.reduce(device.Min, false, axes) }

// MinKeepDims is Min keeping the reduced axes with extent 1.
func (t *Tensor) MinKeepDims(axes ...int) *Tensor { return t.reduce(device.Min, true, axes) }

// ArgMax returns the I64 index of the largest element along axis (the first
// one on ties; a NaN counts as largest, so the first NaN wins, as NumPy's
// argmax). A 0-d tensor takes axis 0 or -1 and gives 0; an empty extent
// is an error, as Max.
func (t *Tensor) ArgMax(axis int) *Tensor { return t.reduce(device.ArgMax, false, []int{axis}) }

// ArgMin returns the I64 index of the smallest element along axis.
func (t *Tensor) ArgMin(axis int) *Tensor { return t.reduce(device.ArgMin, false, []int{axis}) }

// ArgMaxKeepDims is ArgMax keeping the axis with extent 1.
func (t *Tensor) ArgMaxKeepDims(axis int) *Tensor {
	return t.reduce(device.ArgMax, true, []int{axis})
}

// ArgMinKeepDims is ArgMin keeping the axis with extent 1.
func (t *Tensor) ArgMinKeepDims(axis int) *Tensor {
	return t.reduce(device.ArgMin, true, []int{axis})
}

// Softmax returns exp(t) normalised to sum to 1 along axis, computed
// stably (the maximum is subtracted first).
func (t *Tensor) Softmax(axis int) *Tensor { return t.softmax("Softmax", axis, false) }

// LogSoftmax returns log(Softmax(t)) along axis, without forming the
// softmax (stable for large negative values).
func (t *Tensor) LogSoftmax(axis int) *Tensor { return t.softmax("LogSoftmax", axis, true) }

func (t *Tensor) softmax(name string, axis int, log bool) *Tensor {
	if err := t.check(name); err != nil {
		return failed(err)
	}
	if t.wantsGrad() {
		return gradSoftmax(name, t, axis, log)
	}
	if !t.DType().IsFloat() {
		return fail(name, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", t.DType())
	}
	ax, err := layout.NormalizeAxis(name, axis, max(t.Rank(), 1))
	if err != nil {
		return failed(errs.Retag("tensor", name, err))
	}
	if t.Rank() == 0 {
		// A scalar is its own axis: softmax is 1, log-softmax 0.
		u := t.Unsqueeze(0)
		defer u.Release()
		s := u.softmax(name, 0, log)
		defer s.Release()
		return s.Squeeze(0)
	}
	if sm, ok := t.st.dev.Backend().(device.Softmaxer); ok {
		y := compute(name, t.DType(), t.lay.Shape, []*Tensor{t}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
			return sm.Softmax(dst, src[0], ax, log)
		})
		if !errors.Is(y.err, errs.ErrUnsupported) {
			return y
		}
		y.Release() // a dtype the kernel leaves to the composite (the CPU's F16, BF16)
	}
	if t.Numel() == 0 {
		return t.Clone()
	}
	shifted := t.shiftByMax(ax)
	defer shifted.Release()
	e := shifted.Exp()
	defer e.Release()
	s := e.SumKeepDims(ax)
	defer s.Release()
	if !log {
		return e.Div(s)
	}
	ls := s.Log()
	defer ls.Release()
	return shifted.Sub(ls)
}

// shiftByMax returns t - max(t, axis), with a maximum of -Inf replaced by 0
// so that the shifted row of an all -Inf row stays -Inf; its softmax is then
// 0/0 = NaN and its log-softmax -Inf - -Inf = NaN, as PyTorch's (and the GPU
// kernels') are. A row holding +Inf or NaN gives NaN everywhere too.
func (t *Tensor) shiftByMax(axis int) *Tensor {
	m := t.MaxKeepDims(axis)
	defer m.Release()
	masked := m.EqScalar(math.Inf(-1))
	defer masked.Release()
	zero := m.scalarLike("Max", 0)
	defer zero.Release()
	s := Where(masked, zero, m)
	defer s.Release()
	return t.Sub(s)
}

func (t *Tensor) finiteMax(axes ...int) *Tensor {
	m := t.MaxKeepDims(axes...)
	defer m.Release()
	abs := m.Abs()
	defer abs.Release()
	finite := abs.LtScalar(math.Inf(1))
	defer finite.Release()
	zero := m.scalarLike("Max", 0)
	defer zero.Release()
	return Where(finite, m, zero)
}

// LogSumExp returns log(sum(exp(t))) over the given axes (all when none
// are given), computed stably: the maximum is factored out first, and a
// slice of -Inf gives -Inf rather than NaN.
func (t *Tensor) LogSumExp(axes ...int) *Tensor {
	if err := t.check("LogSumExp"); err != nil {
		return failed(err)
	}
	if t.wantsGrad() {
		return gradLogSumExp(t, axes)
	}
	if !t.DType().IsFloat() {
		return fail("LogSumExp", errs.ErrDType, "needs a floating dtype, have %v (Cast first)", t.DType())
	}
	ax, err := normAxes("LogSumExp", axes, t.Rank())
	if err != nil {
		return failed(err)
	}
	if emptyExtent(t.lay.Shape, ax) {
		// log(0) = -Inf, as scipy's and PyTorch's logsumexp of nothing.
		e := t.Exp()
		defer e.Release()
		s := e.Sum(ax...)
		defer s.Release()
		return retag("LogSumExp", s.Log())
	}
	m := t.finiteMax(ax...)
	defer m.Release()
	d := t.Sub(m)
	defer d.Release()
	e := d.Exp()
	defer e.Release()
	s := e.SumKeepDims(ax...)
	defer s.Release()
	l := s.Log()
	defer l.Release()
	r := l.Add(m)
	defer r.Release()
	return retag("LogSumExp", r.Squeeze(ax...))
}

// emptyReduction is the error of a reduction with no identity (Max, Min,
// their Arg forms) over an empty extent. It is an ErrShape and also an
// ErrValue, the kind NumPy's ValueError maps to, so either test holds.
func emptyReduction(op string, axes, shape []int) error {
	return errs.Wrap("tensor", op, errs.ErrShape, errs.ErrValue, "reduction over an empty extent: axes %v of shape %v", axes, shape)
}

// reduceBool gives the reductions of a Bool tensor NumPy's and PyTorch's
// meaning: Sum counts the true elements and Prod is 1 where all are true,
// both in I64; Max is Any and Min is All (Bool); ArgMax and ArgMin index
// the first true or false element. Mean stays an ErrDType (ok false), as
// for integers. name is the method's name, axes as the caller gave them
// and ax normalised.
func (t *Tensor) reduceBool(op device.ReduceOp, name string, keep bool, axes, ax []int) (*Tensor, bool) {
	switch op {
	case device.Sum: // on a backend without SumWide
		c := t.Cast(dtype.I64)
		defer c.Release()
		return c.reduce(device.Sum, keep, axes), true
	case device.Prod:
		a := t.reduce(device.All, keep, axes)
		defer a.Release()
		return a.Cast(dtype.I64), true
	case device.Max:
		return t.reduce(device.Any, keep, axes), true
	case device.Min:
		return t.reduce(device.All, keep, axes), true
	case device.ArgMax, device.ArgMin:
		u := t.Cast(dtype.U8)
		defer u.Release()
		return u.reduce(op, keep, axes), true
	}
	return nil, false
}

// reducedShapes is a reduction's result shape over axes ax of shape, and
// the same with the reduced axes kept at extent 1 (the KeepDims forms).
func reducedShapes(shape, ax []int) (out, kept []int) {
	out, kept = []int{}, []int{}
	for i, d := range shape {
		if slices.Contains(ax, i) {
			kept = append(kept, 1)
		} else {
			out = append(out, d)
			kept = append(kept, d)
		}
	}
	return out, kept
}

// sumsWide reports whether the Sum of dt is an I64 that a
// device.WideSummer adds from the source itself: Bool (a count), U8 and
// I32.
func sumsWide(dt dtype.DType) bool {
	return dt == dtype.Bool || dt == dtype.U8 || dt == dtype.I32
}

// sumWide is the Sum (named name) of a Bool, U8 or I32 tensor over its
// normalised axes ax on a backend that adds such elements into I64 itself
// (device.WideSummer), without the I64 copy of the source that the other
// backends sum.
func (t *Tensor) sumWide(ws device.WideSummer, name string, keep bool, ax []int) *Tensor {
	outShape, keptShape := reducedShapes(t.lay.Shape, ax)
	r := compute(name, dtype.I64, outShape, []*Tensor{t}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		if dst.Layout.Numel() == 0 {
			return nil
		}
		return ws.SumWide(dst, src[0], ax)
	})
	return keptDims(r, keep, keptShape)
}

// emptyExtent reports whether reducing axes of shape folds zero elements
// into each of a non-empty set of outputs (an error for every reduction but
// Sum and Prod; an empty output is never one).
func emptyExtent(shape, axes []int) bool {
	count, out := 1, 1
	for i, d := range shape {
		if slices.Contains(axes, i) {
			count *= d
		} else {
			out *= d
		}
	}
	return count == 0 && out > 0
}
