package tensor

import (
	"math"
	"slices"

	"github.com/tessera-go/tessera/errs"
)

// BatchNorm normalises x [N, C, ...] per channel (axis 1) to zero mean and
// unit variance, then scales by weight and shifts by bias (each [C], nil
// for none): PyTorch's F.batch_norm, with its argument order.
//
// In training mode the statistics are the batch's: the mean and the biased
// variance over every axis but 1, and the gradient flows through them.
// When runningMean and runningVar are given (both [C], or both nil), the
// result's mean and variance are their updated values, as PyTorch writes
// them in place: momentum*batch + (1-momentum)*running, with the unbiased
// variance (divided by the count less one); tensors are immutable here, so
// the caller keeps the returned pair. A channel of a single value cannot
// be trained on (ErrValue, as PyTorch), and an empty x gives an empty y
// and leaves the statistics as they were.
//
// In evaluation mode (training false) x is normalised by runningMean and
// runningVar, which are then required and returned unchanged.
//
// x, weight and bias share a floating dtype; the running statistics may
// be of any floating dtype (float32 statistics for a bfloat16 model) and
// keep it. eps must be finite and not negative, momentum finite. mean and
// variance are nil when no running statistics are given. The statistics
// never require grad.
func BatchNorm(x, runningMean, runningVar, weight, bias *Tensor, training bool, momentum, eps float64) (y, mean, variance *Tensor) {
	const op = "BatchNorm"
	c, err := batchNormCheck(op, x, runningMean, runningVar, weight, bias, training, momentum, eps)
	if err != nil {
		if runningMean != nil || runningVar != nil {
			return failed(err), failed(err), failed(err)
		}
		return failed(err), nil, nil
	}
	shape := x.lay.Shape
	// Statistics broadcast as [1, C, 1, ...].
	stat := make([]int, len(shape))
	for i := range stat {
		stat[i] = 1
	}
	stat[1] = c
	axes := []int{0}
	for i := 2; i < len(shape); i++ {
		axes = append(axes, i)
	}
	n := x.Numel() / max(c, 1)
	mean, variance = runningMean, runningVar
	var xc, invstd *Tensor
	switch {
	case x.Numel() == 0:
		// PyTorch's rule: an empty batch gives an empty result of x's
		// shape, through weight and bias so the graph stays connected.
		xc, invstd = x, nil
	case training:
		m := x.MeanKeepDims(axes...)
		xc = x.Sub(m)
		sq := xc.Square().SumKeepDims(axes...)
		invstd = sq.DivScalar(float64(n)).AddScalar(eps).Rsqrt()
		if runningMean != nil {
			bv := sq.Detach().Reshape(c).DivScalar(float64(n - 1))
			mean = runningUpdate(runningMean, m.Detach().Reshape(c), momentum)
			variance = runningUpdate(runningVar, bv, momentum)
		}
	default:
		rm := runningMean.Detach().Cast(x.DType()).Reshape(stat...)
		rv := runningVar.Detach().Cast(x.DType()).Reshape(stat...)
		xc = x.Sub(rm)
		invstd = rv.AddScalar(eps).Rsqrt()
	}
	scale := invstd
	if weight != nil {
		w := weight.Reshape(stat...)
		if scale == nil {
			scale = w
		} else {
			scale = scale.Mul(w)
		}
	}
	y = xc
	if scale != nil {
		y = y.Mul(scale)
	}
	if bias != nil {
		y = y.Add(bias.Reshape(stat...))
	}
	if y == x {
		y = x.Clone()
	}
	return retag(op, y), mean, variance
}

// runningUpdate returns momentum*batch + (1-momentum)*running in running's
// dtype, computed and realised now so that a training loop's statistics
// never pile up as a pending chain.
func runningUpdate(running, batch *Tensor, momentum float64) *Tensor {
	r := running.Detach()
	u := batch.Cast(r.DType()).MulScalar(momentum).Add(r.MulScalar(1 - momentum))
	if err := Realize(u); err != nil {
		return failed(errs.Retag("tensor", "BatchNorm", err))
	}
	return u
}

// batchNormCheck checks BatchNorm's arguments and returns the channel
// count.
func batchNormCheck(op string, x, runningMean, runningVar, weight, bias *Tensor, training bool, momentum, eps float64) (int, error) {
	if err := x.checkOperand(op); err != nil {
		return 0, err
	}
	if !x.DType().IsFloat() {
		return 0, errs.New("tensor", op, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", x.DType())
	}
	shape := x.lay.Shape
	if len(shape) < 2 {
		return 0, errs.New("tensor", op, errs.ErrShape, "input %v must be [N, C, ...]: two or more axes", shape)
	}
	c := shape[1]
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return 0, errs.New("tensor", op, errs.ErrValue, "eps %v must be finite and not negative", eps)
	}
	if math.IsNaN(momentum) || math.IsInf(momentum, 0) {
		return 0, errs.New("tensor", op, errs.ErrValue, "momentum %v must be finite", momentum)
	}
	if (runningMean == nil) != (runningVar == nil) {
		return 0, errs.New("tensor", op, errs.ErrValue, "running mean and variance go together: give both or neither")
	}
	if !training && runningMean == nil {
		return 0, errs.New("tensor", op, errs.ErrValue, "evaluation mode needs the running mean and variance")
	}
	for _, a := range []struct {
		name  string
		t     *Tensor
		stats bool
	}{{"running mean", runningMean, true}, {"running variance", runningVar, true}, {"weight", weight, false}, {"bias", bias, false}} {
		if a.t == nil {
			continue
		}
		if err := a.t.checkOperand(op); err != nil {
			return 0, err
		}
		switch {
		case a.stats && !a.t.DType().IsFloat():
			return 0, errs.New("tensor", op, errs.ErrDType, "%s is %v, want a floating dtype", a.name, a.t.DType())
		case !a.stats && a.t.DType() != x.DType():
			return 0, errs.New("tensor", op, errs.ErrDType, "%s is %v, input %v", a.name, a.t.DType(), x.DType())
		case !slices.Equal(a.t.lay.Shape, []int{c}):
			return 0, errs.New("tensor", op, errs.ErrShape, "%s has shape %v, want [%d] for input %v", a.name, a.t.lay.Shape, c, shape)
		case a.t.Device() != x.Device():
			return 0, errs.New("tensor", op, errs.ErrDevice, "%s is on %v, input on %v", a.name, a.t.Device(), x.Device())
		}
	}
	if training && x.Numel() > 0 && x.Numel()/c <= 1 {
		return 0, errs.New("tensor", op, errs.ErrValue, "training needs more than one value per channel, input %v has one", shape)
	}
	return c, nil
}

// GroupNorm normalises x [N, C, ...] over groups of channels: the C
// channels split into groups of C/groups, and each sample's group (its
// channels and every position) is brought to zero mean and unit variance
// (the biased variance, plus eps), then scaled by weight and shifted by
// bias ([C] each, nil for none): PyTorch's F.group_norm. One group is a
// LayerNorm over everything but the batch; C groups is instance norm.
// groups must divide C. Floats only; it runs on LayerNorm's kernels and is
// differentiable.
func GroupNorm(x *Tensor, groups int, weight, bias *Tensor, eps float64) *Tensor {
	const op = "GroupNorm"
	if err := x.checkOperand(op); err != nil {
		return failed(err)
	}
	s := x.lay.Shape
	if len(s) < 2 {
		return fail(op, errs.ErrShape, "input %v must be [N, C, ...]: two or more axes", s)
	}
	c := s[1]
	if groups <= 0 || c%groups != 0 {
		return fail(op, errs.ErrValue, "%d groups must be positive and divide the %d channels", groups, c)
	}
	if !x.DType().IsFloat() {
		return fail(op, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", x.DType())
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return fail(op, errs.ErrValue, "eps %v must be finite and not negative", eps)
	}
	for _, a := range []struct {
		name string
		t    *Tensor
	}{{"weight", weight}, {"bias", bias}} {
		if a.t == nil {
			continue
		}
		if err := a.t.checkOperand(op); err != nil {
			return failed(err)
		}
		if a.t.DType() != x.DType() {
			return fail(op, errs.ErrDType, "%s is %v, input %v", a.name, a.t.DType(), x.DType())
		}
		if !slices.Equal(a.t.lay.Shape, []int{c}) {
			return fail(op, errs.ErrShape, "%s has shape %v, want [%d] for input %v", a.name, a.t.lay.Shape, c, s)
		}
	}
	n := s[0]
	per := 1
	if n*c > 0 {
		per = x.Numel() / (n * groups)
	}
	var y *Tensor
	if x.Numel() == 0 {
		y = x
	} else {
		y = LayerNorm(x.Reshape(n, groups, per), []int{per}, nil, nil, eps).Reshape(s...)
	}
	stat := make([]int, len(s))
	for i := range stat {
		stat[i] = 1
	}
	stat[1] = c
	if weight != nil {
		y = y.Mul(weight.Reshape(stat...))
	}
	if bias != nil {
		y = y.Add(bias.Reshape(stat...))
	}
	if y == x {
		y = x.Clone()
	}
	return retag(op, y)
}
