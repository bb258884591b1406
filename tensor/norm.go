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

// Layer normalisation, RMS normalisation and scaled dot-product attention.
// Each runs the backend's fused kernel when it has one (device.Normer,
// device.NormBackwarder, device.Attender) and otherwise, or where the
// backend declines, the composition of existing operations (reductions,
// elementwise operations, Matmul, Where, Softmax) that every device runs.
// The normalisations' gradients read the statistics the forward kernel
// saved; attention with an input that requires grad runs the composite,
// whose operations' rules differentiate it.

// LayerNorm normalises x over its trailing len(normalizedShape) axes to
// zero mean and unit variance, then scales by weight and shifts by bias:
// PyTorch's F.layer_norm. The trailing axes of x must equal
// normalizedShape (one or more extents); weight and bias may each be nil
// and otherwise have exactly the shape normalizedShape and x's dtype. The
// variance is the biased one (divided by N), computed as the mean of the
// squared deviations from the mean (two passes, so it does not cancel the
// way E[x^2] - E[x]^2 would), and eps (finite, not negative) is added to it
// before the reciprocal square root. Floats only; F16 and BF16 compute in
// F32 in the fused kernels and round once.
func LayerNorm(x *Tensor, normalizedShape []int, weight, bias *Tensor, eps float64) *Tensor {
	const op = "LayerNorm"
	if _, err := normCheck(op, x, normalizedShape, eps, map[string]*Tensor{"weight": weight, "bias": bias}); err != nil {
		return failed(err)
	}
	return normalize(device.LayerNorm, x, normalizedShape, weight, bias, eps)
}

// layerNormComposite is LayerNorm composed of reductions and elementwise
// operations: the path of a backend without a device.Normer (or one that
// declines the call), and the baseline the fused kernel is measured and
// tested against. The arguments are checked.
func layerNormComposite(x *Tensor, normalizedShape []int, weight, bias *Tensor, eps float64) *Tensor {
	axes := normAxesFor(normalizedShape)
	xc := x.Sub(x.MeanKeepDims(axes...))
	y := xc.Mul(xc.Square().MeanKeepDims(axes...).AddScalar(eps).Rsqrt())
	if weight != nil {
		y = y.Mul(weight)
	}
	if bias != nil {
		y = y.Add(bias)
	}
	return retag("LayerNorm", y)
}

// RMSNorm scales x by the reciprocal root mean square of its trailing
// len(normalizedShape) axes, x / sqrt(mean(x^2) + eps), then by weight:
// PyTorch's F.rms_norm (whose eps=None default is the dtype's machine
// epsilon; here eps is explicit). The shape, weight (nil for none) and eps
// rules are those of LayerNorm. Floats only.
func RMSNorm(x *Tensor, normalizedShape []int, weight *Tensor, eps float64) *Tensor {
	const op = "RMSNorm"
	if _, err := normCheck(op, x, normalizedShape, eps, map[string]*Tensor{"weight": weight}); err != nil {
		return failed(err)
	}
	return normalize(device.RMSNorm, x, normalizedShape, weight, nil, eps)
}

// rmsNormComposite is RMSNorm composed of other operations (see
// layerNormComposite).
func rmsNormComposite(x *Tensor, normalizedShape []int, weight *Tensor, eps float64) *Tensor {
	axes := normAxesFor(normalizedShape)
	y := x.Mul(x.Square().MeanKeepDims(axes...).AddScalar(eps).Rsqrt())
	if weight != nil {
		y = y.Mul(weight)
	}
	return retag("RMSNorm", y)
}

// normAxesFor returns the last len(shape) axes, counted from the end.
func normAxesFor(shape []int) []int {
	k := len(shape)
	axes := make([]int, k)
	for i := range axes {
		axes[i] = i - k
	}
	return axes
}

// normalize runs a checked LayerNorm or RMSNorm: the backend's fused
// kernel (device.Normer) over x seen as [rows, n], n the product of the
// normalised shape, or the composite where the backend has none, declines
// the call (ErrUnsupported: a GPU row beyond its limits) or x is empty
// (then so is the result, as in PyTorch).
// With an input that requires grad, the kernel runs on detached values and
// the gradient rule reads the per-row mean and rstd it saved, so the
// backward pass recomputes no statistic.
func normalize(op device.NormOp, x *Tensor, ns []int, weight, bias *Tensor, eps float64) *Tensor {
	composite := func() *Tensor {
		if op == device.LayerNorm {
			return layerNormComposite(x, ns, weight, bias, eps)
		}
		return rmsNormComposite(x, ns, weight, eps)
	}
	name := op.String()
	shape := x.lay.Shape
	n, rows := 1, 1
	for _, e := range ns {
		n *= e
	}
	for _, e := range shape[:len(shape)-len(ns)] {
		rows *= e
	}
	be, ok := x.Device().Backend().(device.Normer)
	if !ok || rows*n == 0 {
		return composite()
	}
	xd, wd, bd := x.Detach(), weight.detachOrNil(), bias.detachOrNil()
	defer xd.Release()
	defer wd.Release()
	defer bd.Release()
	x2 := xd.Reshape(rows, n)
	defer x2.Release()
	w1, b1 := wd.reshapeOrNil(n), bd.reshapeOrNil(n)
	defer w1.Release()
	defer b1.Release()
	y2, stats := normRun(be, op, x2, w1, b1, eps)
	if y2.err != nil {
		if errors.Is(y2.err, errs.ErrUnsupported) {
			return composite()
		}
		return failed(y2.err)
	}
	defer y2.Release()
	defer stats.Release()
	y := y2.Reshape(shape...)
	if !x.wantsGrad() && !weight.wantsGrad() && !bias.wantsGrad() {
		return retag(name, y)
	}
	centred := op == device.LayerNorm
	save := []*Tensor{x2, stats}
	if w1 != nil {
		save = append(save, w1)
	}
	return attach(retag(name, y), name, func(g *Tensor, s []*Tensor) []*Tensor {
		return normGrad(g, s, centred, shape, ns, rows, n, weight.wantsGrad(), bias.wantsGrad(), x.wantsGrad())
	}, save, x, weight, bias)
}

// normGrad is the gradient of LayerNorm (centred) and RMSNorm from the
// saved x [rows, n], statistics [rows, 2] (mean, rstd) and weight [n] (when
// there is one): with xhat = (x - mean) rstd and gw = g weight,
//
//	dx = rstd (gw - mean(gw) - xhat mean(gw xhat))   (RMSNorm: no mean(gw) term)
//	dweight = sum over rows of g xhat, dbias = sum over rows of g.
func normGrad(g *Tensor, s []*Tensor, centred bool, shape, ns []int, rows, n int, wantW, wantB, wantX bool) []*Tensor {
	x2, stats := s[0], s[1]
	if be, ok := x2.Device().Backend().(device.NormBackwarder); ok {
		var w *Tensor
		if len(s) > 2 {
			w = s[2]
		}
		out, err := normGradFused(be, centred, g, x2, stats, w, [3]bool{wantX, wantW, wantB}, shape, ns)
		if !errors.Is(err, errs.ErrUnsupported) {
			if err != nil {
				return []*Tensor{failed(err), failed(err), failed(err)}
			}
			return out
		}
	}
	dt := x2.DType()
	asDT := func(t *Tensor) *Tensor {
		if t.DType() == dt {
			return t
		}
		return t.Cast(dt)
	}
	rstd := asDT(stats.Narrow(1, 1, 1))
	g2 := g.Reshape(rows, n)
	xhat := x2.Mul(rstd)
	if centred {
		mean := asDT(stats.Narrow(1, 0, 1))
		xhat = x2.Sub(mean).Mul(rstd)
	}
	out := make([]*Tensor, 3)
	if wantX {
		gw := g2
		if len(s) > 2 {
			gw = g2.Mul(s[2])
		}
		inner := gw.Sub(xhat.Mul(gw.Mul(xhat).MeanKeepDims(1)))
		if centred {
			inner = inner.Sub(gw.MeanKeepDims(1))
		}
		out[0] = inner.Mul(rstd).Reshape(shape...)
	}
	if wantW {
		out[1] = g2.Mul(xhat).Sum(0).Reshape(ns...)
	}
	if wantB {
		out[2] = g2.Sum(0).Reshape(ns...)
	}
	return out
}

// normGradFused computes the wanted gradients (dx, dweight, dbias) with
// the backend's fused kernel; ErrUnsupported says to compose them instead.
func normGradFused(be device.NormBackwarder, centred bool, g, x2, stats, w *Tensor, want [3]bool, shape, ns []int) ([]*Tensor, error) {
	op := device.RMSNorm
	if centred {
		op = device.LayerNorm
	}
	name := op.String()
	rows, n := x2.lay.Shape[0], x2.lay.Shape[1]
	g2 := g.Reshape(rows, n)
	defer g2.Release()
	shapes := [3][]int{{rows, n}, {n}, {n}}
	last := -1
	for i, ok := range want {
		if ok {
			last = i
		}
	}
	out := make([]*Tensor, 3)
	if last < 0 {
		return out, nil
	}
	release := func() {
		for _, t := range out {
			t.Release()
		}
	}
	// Every wanted output but the last is allocated first and handed to
	// the kernel as an operand; the last is the call's own result.
	for i := range last {
		if want[i] {
			out[i] = compute(name, x2.DType(), shapes[i], []*Tensor{x2}, func(device.Backend, device.Operand, []device.Operand) error {
				return nil // written by NormBackward below
			})
			if out[i].err != nil {
				err := out[i].err
				release()
				return nil, err
			}
		}
	}
	ins := []*Tensor{g2, x2, stats}
	if w != nil {
		ins = append(ins, w)
	}
	for i := range last {
		if want[i] {
			ins = append(ins, out[i])
		}
	}
	r := compute(name, x2.DType(), shapes[last], ins, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
		var o [3]device.Operand
		var wo device.Operand
		j := 3
		if w != nil {
			wo, j = src[3], 4
		}
		for i := range last {
			if want[i] {
				o[i], j = src[j], j+1
			}
		}
		o[last] = dst
		return be.NormBackward(op, o[0], o[1], o[2], src[0], src[1], src[2], wo)
	})
	if r.err != nil {
		release()
		return nil, r.err
	}
	out[last] = r
	if out[0] != nil {
		x := out[0].Reshape(shape...)
		out[0].Release()
		out[0] = x
	}
	for i := 1; i < 3; i++ {
		if out[i] != nil {
			x := out[i].Reshape(ns...)
			out[i].Release()
			out[i] = x
		}
	}
	return out, nil
}

// normRun calls the backend's Norm on x2 [rows, n] with weight and bias
// [n] (nil for none) and returns the result and the statistics.
func normRun(be device.Normer, op device.NormOp, x2, w, b *Tensor, eps float64) (y, stats *Tensor) {
	name := op.String()
	rows := x2.lay.Shape[0]
	stats = compute(name, device.NormStats(x2.DType()), []int{rows, 2}, []*Tensor{x2}, func(device.Backend, device.Operand, []device.Operand) error {
		return nil // written by Norm below
	})
	if stats.err != nil {
		return stats, stats
	}
	ins := []*Tensor{x2, stats}
	if w != nil {
		ins = append(ins, w)
	}
	if b != nil {
		ins = append(ins, b)
	}
	y = compute(name, x2.DType(), x2.lay.Shape, ins, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
		var wo, bo device.Operand
		i := 2
		if w != nil {
			wo, i = src[i], i+1
		}
		if b != nil {
			bo = src[i]
		}
		return be.Norm(op, dst, src[1], src[0], wo, bo, eps)
	})
	if y.err != nil {
		stats.Release()
		return y, y
	}
	return y, stats
}

// detachOrNil is Detach that keeps nil as nil.
func (t *Tensor) detachOrNil() *Tensor {
	if t == nil {
		return nil
	}
	return t.Detach()
}

// reshapeOrNil is Reshape that keeps nil as nil.
func (t *Tensor) reshapeOrNil(shape ...int) *Tensor {
	if t == nil {
		return nil
	}
	return t.Reshape(shape...)
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
//
// When no input requires grad, a backend with a fused kernel
// (device.Attender: the CPU's, flash-attention style) computes it without
// storing the [..., L, S] scores, F16 and BF16 in F32 rounded once;
// otherwise the scores are materialised.
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
	if !q.wantsGrad() && !k.wantsGrad() && !v.wantsGrad() && !mask.wantsGrad() && S > 0 {
		if at, ok := q.Device().Backend().(device.Attender); ok {
			if y := attentionFused(at, q, k, v, mask, batch, scale, opt.Causal, false); y != nil {
				return y
			}
		}
	}
	return sdpaComposite(q, k, v, mask, L, S, scale, opt.Causal)
}

// attentionFused runs checked attention through the backend's fused
// kernel (forward only: the caller has made sure nothing requires grad).
// F16 and BF16 compute in F32 and round once. Operands the kernel cannot
// read in place along their last two axes are copied first; batch axes are
// broadcast as views. It returns nil when the backend declines the call
// (ErrUnsupported), and the caller runs the composite; force asks the
// backend not to decline for speed (device.AttentionOptions.Force).
func attentionFused(at device.Attender, q, k, v, mask *Tensor, batch []int, scale float64, causal, force bool) *Tensor {
	const op = "ScaledDotProductAttention"
	wd := q.DType()
	if wd != dtype.F32 && wd != dtype.F64 {
		wd = dtype.F32
	}
	// prep casts t to the compute dtype (a Bool mask stays Bool), copies it
	// when its rows cannot be read in place, and broadcasts it to the batch
	// shape followed by its last two extents (or last2, for the mask).
	prep := func(t *Tensor, rowsInPlace bool, last2 ...int) *Tensor {
		if t.DType() != wd && t.DType() != dtype.Bool {
			t = t.Cast(wd)
		} else {
			t = t.Detach()
		}
		if rowsInPlace && !gemmRowsLayout(t.lay) {
			defer t.Release()
			t = t.Contiguous()
		}
		defer t.Release()
		if last2 == nil {
			last2 = t.lay.Shape[t.lay.Rank()-2:]
		}
		return t.BroadcastTo(append(slices.Clone(batch), last2...)...)
	}
	qb, kb, vb := prep(q, true), prep(k, true), prep(v, true)
	defer qb.Release()
	defer kb.Release()
	defer vb.Release()
	nb := len(batch)
	L, S, Ev := qb.lay.Shape[nb], kb.lay.Shape[nb], vb.lay.Shape[nb+1]
	ins := []*Tensor{qb, kb, vb}
	if mask != nil {
		mb := prep(mask, false, L, S)
		defer mb.Release()
		ins = append(ins, mb)
	}
	out := append(slices.Clone(batch), L, Ev)
	y := compute(op, wd, out, ins, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
		var m device.Operand
		if len(src) > 3 {
			m = src[3]
		}
		return at.Attention(dst, src[0], src[1], src[2], m, device.AttentionOptions{Scale: scale, Causal: causal, Force: force})
	})
	if y.err != nil {
		if errors.Is(y.err, errs.ErrUnsupported) {
			return nil
		}
		return y
	}
	if wd != q.DType() {
		defer y.Release()
		return retag(op, y.Cast(q.DType()))
	}
	return y
}

// gemmRowsLayout reports whether the matrices of l ([..., rows, cols])
// are row major with unit stride along a row and a row stride of at least
// cols, the views a CPU GEMM reads in place.
func gemmRowsLayout(l layout.Layout) bool {
	r := l.Rank()
	rows, cols := l.Shape[r-2], l.Shape[r-1]
	if cols > 1 && l.Strides[r-1] != 1 {
		return false
	}
	return rows <= 1 || l.Strides[r-2] >= max(cols, 1)
}

// sdpaComposite is attention composed of Matmul, Where and Softmax, with
// the [..., L, S] scores materialised: the path autograd differentiates,
// and the one every backend without a device.Attender takes. Its
// arguments are checked and scale resolved.
func sdpaComposite(q, k, v, mask *Tensor, L, S int, scale float64, causal bool) *Tensor {
	const op = "ScaledDotProductAttention"
	opt := SDPAOptions{Causal: causal}
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
