package tensor

import (
	"math"
	"slices"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Layer normalisation, RMS normalisation and scaled dot-product attention,
// composed of existing operations (reductions, elementwise operations,
// Matmul, Where, Softmax), so they run on every device and their gradients
// come from those operations' rules.

// LayerNorm normalises x over its trailing len(normalizedShape) axes to
// zero mean and unit variance, then scales by weight and shifts by bias:
// PyTorch's F.layer_norm. The trailing axes of x must equal
// normalizedShape (one or more extents); weight and bias may each be nil
// and otherwise have exactly the shape normalizedShape and x's dtype. The
// variance is the biased one (divided by N), computed as the mean of the
// squared deviations from the mean (two passes, so it does not cancel the
// way E[x^2] - E[x]^2 would), and eps (finite, not negative) is added to it
// before the reciprocal square root. Floats only.
func LayerNorm(x *Tensor, normalizedShape []int, weight, bias *Tensor, eps float64) *Tensor {
	const op = "LayerNorm"
	axes, err := normCheck(op, x, normalizedShape, eps, map[string]*Tensor{"weight": weight, "bias": bias})
	if err != nil {
		return failed(err)
	}
	xc := x.Sub(x.MeanKeepDims(axes...))
	y := xc.Mul(xc.Square().MeanKeepDims(axes...).AddScalar(eps).Rsqrt())
	if weight != nil {
		y = y.Mul(weight)
	}
	if bias != nil {
		y = y.Add(bias)
	}
	return retag(op, y)
}

// RMSNorm scales x by the reciprocal root mean square of its trailing
// len(normalizedShape) axes, x / sqrt(mean(x^2) + eps), then by weight:
// PyTorch's F.rms_norm (whose eps=None default is the dtype's machine
// epsilon; here eps is explicit). The shape, weight (nil for none) and eps
// rules are those of LayerNorm. Floats only.
func RMSNorm(x *Tensor, normalizedShape []int, weight *Tensor, eps float64) *Tensor {
	const op = "RMSNorm"
	axes, err := normCheck(op, x, normalizedShape, eps, map[string]*Tensor{"weight": weight})
	if err != nil {
		return failed(err)
	}
	y := x.Mul(x.Square().MeanKeepDims(axes...).AddScalar(eps).Rsqrt())
	if weight != nil {
		y = y.Mul(weight)
	}
	return retag(op, y)
}

// normCheck validates the operands of LayerNorm and RMSNorm and returns the
// normalised axes, counted from the end (-k..-1).
func normCheck(op string, x *Tensor, shape []int, eps float64, affine map[string]*Tensor) ([]int, error) {
	if err := x.checkOperand(op); err != nil {
		return nil, err
	}
	if !x.DType().IsFloat() {
		return nil, errs.New("tensor", op, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", x.DType())
	}
	k := len(shape)
	s := x.lay.Shape
	if k == 0 {
		return nil, errs.New("tensor", op, errs.ErrShape, "the normalised shape must have at least one axis")
	}
	if len(s) < k || !slices.Equal(s[len(s)-k:], shape) {
		return nil, errs.New("tensor", op, errs.ErrShape, "input %v must end in the normalised shape %v", s, shape)
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return nil, errs.New("tensor", op, errs.ErrValue, "eps %v must be finite and not negative", eps)
	}
	for _, name := range []string{"weight", "bias"} {
		p := affine[name]
		if p == nil {
			continue
		}
		if err := p.checkOperand(op); err != nil {
			return nil, err
		}
		if p.DType() != x.DType() {
			return nil, errs.New("tensor", op, errs.ErrDType, "%s is %v, input %v", name, p.DType(), x.DType())
		}
		if !slices.Equal(p.lay.Shape, shape) {
			return nil, errs.New("tensor", op, errs.ErrShape, "%s has shape %v, want the normalised shape %v", name, p.lay.Shape, shape)
		}
	}
	axes := make([]int, k)
	for i := range axes {
		axes[i] = i - k
	}
	return axes, nil
}

// SDPAOptions are the options of ScaledDotProductAttention.
type SDPAOptions struct {
	// Causal lets query i attend to keys j <= i only (the lower triangle,
	// aligned at the top left as in PyTorch's is_causal, also when L != S).
	// It cannot be combined with an explicit mask.
	Causal bool
	// Scale multiplies the scores q k^T; 0 means 1/sqrt(E), E the
	// query's last extent.
	Scale float64
}

// ScaledDotProductAttention returns softmax(q k^T * scale + mask) v, the
// attention of PyTorch's F.scaled_dot_product_attention without dropout:
// q is [..., L, E], k [..., S, E] and v [..., S, Ev], with batch axes that
// broadcast together, giving [..., L, Ev]. q, k and v share a floating
// dtype. mask (nil for none) must broadcast to the scores' shape
// [..., L, S]: a Bool mask says which scores take part (true) and sets the
// others to -Inf, as PyTorch's boolean attn_mask; a mask of q's dtype is
// added to the scores. opt.Causal masks the scores of keys j > i.
//
// A query row whose scores are all masked (every mask entry false, or
// -Inf) has no keys to attend to: its output is 0, as PyTorch gives since
// 2.5, not the 0/0 of the bare formula. NaN in q, k or v still propagates.
func ScaledDotProductAttention(q, k, v, mask *Tensor, opt SDPAOptions) *Tensor {
	const op = "ScaledDotProductAttention"
	for _, t := range []*Tensor{q, k, v} {
		if err := t.checkOperand(op); err != nil {
			return failed(err)
		}
	}
	qs, ks, vs := q.lay.Shape, k.lay.Shape, v.lay.Shape
	if len(qs) < 2 || len(ks) < 2 || len(vs) < 2 {
		return fail(op, errs.ErrShape, "q %v, k %v and v %v need at least 2 axes each", qs, ks, vs)
	}
	if !q.DType().IsFloat() || k.DType() != q.DType() || v.DType() != q.DType() {
		return fail(op, errs.ErrDType, "q, k and v must share a floating dtype, have %v, %v and %v", q.DType(), k.DType(), v.DType())
	}
	L, E := qs[len(qs)-2], qs[len(qs)-1]
	S := ks[len(ks)-2]
	if ks[len(ks)-1] != E || vs[len(vs)-2] != S {
		return fail(op, errs.ErrShape, "q %v, k %v and v %v must be [..., L, E], [..., S, E] and [..., S, Ev]", qs, ks, vs)
	}
	batch, err := layout.BroadcastShapes(qs[:len(qs)-2], ks[:len(ks)-2], vs[:len(vs)-2])
	if err != nil {
		return fail(op, errs.ErrShape, "the batch axes of q %v, k %v and v %v do not broadcast", qs, ks, vs)
	}
	scores := append(slices.Clone(batch), L, S)
	scale := opt.Scale
	if math.IsNaN(scale) || math.IsInf(scale, 0) {
		return fail(op, errs.ErrValue, "scale %v must be finite", scale)
	}
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(E))
	}
	if mask != nil {
		if opt.Causal {
			return fail(op, errs.ErrValue, "an explicit mask and Causal cannot be combined")
		}
		if err := mask.checkOperand(op); err != nil {
			return failed(err)
		}
		if mask.DType() != dtype.Bool && mask.DType() != q.DType() {
			return fail(op, errs.ErrDType, "mask must be bool or %v like q, have %v", q.DType(), mask.DType())
		}
		if s, err := layout.BroadcastShapes(mask.lay.Shape, scores); err != nil || !slices.Equal(s, scores) {
			return fail(op, errs.ErrShape, "mask %v does not broadcast to the scores' shape %v", mask.lay.Shape, scores)
		}
	}
	w := q.Matmul(k.T()).MulScalar(scale)
	if opt.Causal {
		dev := q.Device()
		rows := Arange(dtype.I32, 0, float64(L), 1).Reshape(L, 1).To(dev)
		cols := Arange(dtype.I32, 0, float64(S), 1).To(dev)
		defer rows.Release()
		defer cols.Release()
		mask = cols.Le(rows) // key j <= query i
		defer mask.Release()
	}
	var attends *Tensor // per query row: some key takes part (explicit masks only)
	if mask != nil && mask.DType() == dtype.Bool {
		ninf := q.scalarLike(op, math.Inf(-1))
		defer ninf.Release()
		w = Where(mask, w, ninf)
		if !opt.Causal { // a causal row always keeps key 0
			attends = mask.AnyKeepDims(-1)
		}
	} else if mask != nil {
		w = w.Add(mask)
		attends = mask.MaxKeepDims(-1).GtScalar(math.Inf(-1))
	}
	p := w.Softmax(-1)
	if attends != nil {
		zero := q.scalarLike(op, 0)
		defer zero.Release()
		p = Where(attends, p, zero)
	}
	return retag(op, p.Matmul(v))
}
