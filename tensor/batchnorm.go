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
	stat := channelShape(len(shape), c) // statistics broadcast as [1, C, 1, ...]
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
	scale := invstd // (x - mean)·(invstd·weight) + bias
	if weight != nil {
		if scale == nil {
			scale = weight
		} else {
			scale = scale.Mul(weight.Reshape(stat...))
		}
	}
	return retag(op, scaleShift(xc, x, scale, bias, c)), mean, variance
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
	c, err := channelInput(op, x, eps)
	if err != nil {
		return 0, err
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
	err = checkPerChannel(op, x, c, perChannel{"running mean", runningMean, true}, perChannel{"running variance", runningVar, true},
		perChannel{"weight", weight, false}, perChannel{"bias", bias, false})
	if err != nil {
		return 0, err
	}
	if training && x.Numel() > 0 && x.Numel()/c <= 1 {
		return 0, errs.New("tensor", op, errs.ErrValue, "training needs more than one value per channel, input %v has one", x.lay.Shape)
	}
	return c, nil
}

// channelInput checks the input of a per-channel normalisation: a
// floating [N, C, ...] and a finite eps >= 0. It returns C.
func channelInput(op string, x *Tensor, eps float64) (int, error) {
	if err := x.checkOperand(op); err != nil {
		return 0, err
	}
	if !x.DType().IsFloat() {
		return 0, errs.New("tensor", op, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", x.DType())
	}
	if len(x.lay.Shape) < 2 {
		return 0, errs.New("tensor", op, errs.ErrShape, "input %v must be [N, C, ...]: two or more axes", x.lay.Shape)
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return 0, errs.New("tensor", op, errs.ErrValue, "eps %v must be finite and not negative", eps)
	}
	return x.lay.Shape[1], nil
}

// perChannel is an optional [C] operand of a normalisation: weight and
// bias have the input's dtype, running statistics (anyFloat) any floating
// dtype.
type perChannel struct {
	name     string
	t        *Tensor
	anyFloat bool
}

// checkPerChannel checks each given per-channel operand: usable, [c], on
// x's device, of the dtype its kind wants.
func checkPerChannel(op string, x *Tensor, c int, ps ...perChannel) error {
	for _, p := range ps {
		if p.t == nil {
			continue
		}
		if err := p.t.checkOperand(op); err != nil {
			return err
		}
		switch {
		case p.anyFloat && !p.t.DType().IsFloat():
			return errs.New("tensor", op, errs.ErrDType, "%s is %v, want a floating dtype", p.name, p.t.DType())
		case !p.anyFloat && p.t.DType() != x.DType():
			return errs.New("tensor", op, errs.ErrDType, "%s is %v, input %v", p.name, p.t.DType(), x.DType())
		case !slices.Equal(p.t.lay.Shape, []int{c}):
			return errs.New("tensor", op, errs.ErrShape, "%s has shape %v, want [%d] for input %v", p.name, p.t.lay.Shape, c, x.lay.Shape)
		case p.t.Device() != x.Device():
			return errs.New("tensor", op, errs.ErrDevice, "%s is on %v, input on %v", p.name, p.t.Device(), x.Device())
		}
	}
	return nil
}

// channelShape is [1, C, 1, ...] of the given rank: a per-channel
// operand's shape for broadcasting against [N, C, ...].
func channelShape(rank, c int) []int {
	s := slices.Repeat([]int{1}, rank)
	s[1] = c
	return s
}

// scaleShift returns y·scale + shift with per-channel scale and shift
// ([C] or [1, C, 1, ...]; nil for none), and never the input x itself (x
// unscaled and unshifted is cloned, as the functional forms return new
// tensors).
func scaleShift(y, x, scale, shift *Tensor, c int) *Tensor {
	st := channelShape(x.Rank(), c)
	if scale != nil {
		y = y.Mul(scale.Reshape(st...))
	}
	if shift != nil {
		y = y.Add(shift.Reshape(st...))
	}
	if y == x {
		y = x.Clone()
	}
	return y
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
	c, err := channelInput(op, x, eps)
	if err != nil {
		return failed(err)
	}
	if groups <= 0 || c%groups != 0 {
		return fail(op, errs.ErrValue, "%d groups must be positive and divide the %d channels", groups, c)
	}
	if err := checkPerChannel(op, x, c, perChannel{"weight", weight, false}, perChannel{"bias", bias, false}); err != nil {
		return failed(err)
	}
	s := x.lay.Shape
	y := x
	if x.Numel() > 0 {
		per := x.Numel() / (s[0] * groups)
		y = LayerNorm(x.Reshape(s[0], groups, per), []int{per}, nil, nil, eps).Reshape(s...)
	}
	return retag(op, scaleShift(y, x, weight, bias, c))
}
