package nn

import (
	"math"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// CrossEntropy is the mean over the batch of -log softmax(logits)[label],
// PyTorch's F.cross_entropy with integer class labels: logits [N, C] of a
// floating dtype, labels [N] of an integer dtype, on the same device. It is
// computed from max-shifted logits (through LogSoftmax; on the CPU, for
// float32 and float64, in one pass by tensor.SoftmaxCrossEntropy, which
// also forms the gradient), so logits of any magnitude are fine, and is
// differentiable in logits.
//
// The labels select their classes on the device, by comparison with the
// class numbers, never read back to the host from a GPU. On the CPU a label
// outside [0, C) is an ErrAxis error naming it; on other devices it makes
// the loss NaN (checking would cost a read-back each step), as PyTorch's
// CUDA kernels leave the check to a device-side assert.
func CrossEntropy(logits, labels *tensor.Tensor) *tensor.Tensor {
	return crossEntropy("CrossEntropy", logits, labels, 0)
}

// CrossEntropySmoothed is CrossEntropy against targets smoothed by s in
// [0, 1] (PyTorch's label_smoothing): the label's class weighs 1-s+s/C,
// every other class s/C.
func CrossEntropySmoothed(logits, labels *tensor.Tensor, s float64) *tensor.Tensor {
	return crossEntropy("CrossEntropySmoothed", logits, labels, s)
}

func crossEntropy(op string, logits, labels *tensor.Tensor, smooth float64) *tensor.Tensor {
	if !(smooth >= 0 && smooth <= 1) {
		return fail(op, errs.ErrValue, "label smoothing %v must be in [0, 1]", smooth)
	}
	if bad := classCheck(op, "logits", logits, labels); bad != nil {
		return bad
	}
	n, c := logits.Shape()[0], logits.Shape()[1]
	dev, dt := logits.Device(), logits.DType()
	if labels.DType() == dtype.U8 {
		labels = labels.Cast(dtype.I32) // class numbers above 255 must compare
	}
	cpu := dev == device.CPU()
	if cpu {
		ys, err := tensor.ToSlice[int64](labels.Cast(dtype.I64))
		if err != nil {
			return tensor.Failed(errs.Retag("nn", op, err))
		}
		if i := slices.IndexFunc(ys, func(y int64) bool { return y < 0 || y >= int64(c) }); i >= 0 {
			return fail(op, errs.ErrAxis, "label %d of sample %d is outside the %d classes [0, %d)", ys[i], i, c, c)
		}
		// The same loss as the expression below, and its gradient, in
		// one pass each (float32 and float64 logits).
		if loss, ok := tensor.SoftmaxCrossEntropy(logits, ys, smooth); ok {
			return loss
		}
	}
	classes := tensor.Arange(labels.DType(), 0, float64(c), 1).To(dev)
	hot := labels.Unsqueeze(1).Eq(classes).Cast(dt) // [N, C] one-hot
	target := hot
	if smooth > 0 {
		target = hot.MulScalar(1 - smooth).AddScalar(smooth / float64(c))
	}
	rows := logits.LogSoftmax(1).Mul(target).Sum(1).Neg() // [N]
	if !cpu && n > 0 {
		// A row whose label matched no class has hits 0, so its loss
		// becomes 0/0 = NaN; every other row is multiplied and divided by 1.
		hits := hot.Sum(1)
		rows = rows.Mul(hits).Div(hits)
	}
	return rows.Mean()
}

// classCheck checks scores [N, C] (a floating dtype, C > 0) and integer
// labels [N] on one device, as the classification losses want, and
// returns a failed tensor naming what is wrong, or nil.
func classCheck(op, what string, scores, labels *tensor.Tensor) *tensor.Tensor {
	if !valid(scores) || !valid(labels) {
		return scores.Add(labels) // the error of whichever failed
	}
	ls, ys := scores.Shape(), labels.Shape()
	switch {
	case !scores.DType().IsFloat():
		return fail(op, errs.ErrDType, "%s must be floating, have %v", what, scores.DType())
	case !labels.DType().IsInt():
		return fail(op, errs.ErrDType, "labels must be integer class indices, have %v", labels.DType())
	case len(ls) != 2 || len(ys) != 1 || ls[0] != ys[0] || ls[1] == 0:
		return fail(op, errs.ErrShape, "%s %v and labels %v must be [N, C] and [N] with C > 0", what, ls, ys)
	case scores.Device() != labels.Device():
		return fail(op, errs.ErrDevice, "%s on %s, labels on %s", what, scores.Device().Name(), labels.Device().Name())
	}
	return nil
}

// MSE is the mean squared difference between pred and target, PyTorch's
// F.mse_loss with mean reduction. The two must have the same shape (no
// broadcasting: a mismatch is a bug PyTorch only warns about) and the same
// floating dtype; the loss is differentiable in both.
func MSE(pred, target *tensor.Tensor) *tensor.Tensor {
	const op = "MSE"
	if valid(pred) && valid(target) {
		switch {
		case !slices.Equal(pred.Shape(), target.Shape()):
			return fail(op, errs.ErrShape, "prediction %v and target %v differ in shape", pred.Shape(), target.Shape())
		case pred.DType() != target.DType() || !pred.DType().IsFloat():
			return fail(op, errs.ErrDType, "prediction %v and target %v must share a floating dtype", pred.DType(), target.DType())
		}
	}
	return pred.Sub(target).Square().Mean()
}

// pairCheck checks that pred and target share a shape and a floating
// dtype, as PyTorch's elementwise losses want (no broadcasting).
func pairCheck(op string, pred, target *tensor.Tensor) *tensor.Tensor {
	if !valid(pred) || !valid(target) {
		return pred.Add(target) // the error of whichever failed
	}
	switch {
	case !slices.Equal(pred.Shape(), target.Shape()):
		return fail(op, errs.ErrShape, "prediction %v and target %v differ in shape", pred.Shape(), target.Shape())
	case pred.DType() != target.DType() || !pred.DType().IsFloat():
		return fail(op, errs.ErrDType, "prediction %v and target %v must share a floating dtype", pred.DType(), target.DType())
	}
	return nil
}

// L1 is the mean absolute difference between pred and target, PyTorch's
// F.l1_loss with mean reduction (shapes and dtypes as MSE's).
func L1(pred, target *tensor.Tensor) *tensor.Tensor {
	if bad := pairCheck("L1", pred, target); bad != nil {
		return bad
	}
	return pred.Sub(target).Abs().Mean()
}

// SmoothL1 is PyTorch's F.smooth_l1_loss with mean reduction: for d =
// pred - target, 0.5·d²/beta where |d| < beta, else |d| - 0.5·beta; beta 0
// is L1. beta must not be negative.
func SmoothL1(pred, target *tensor.Tensor, beta float64) *tensor.Tensor {
	const op = "SmoothL1"
	if !(beta >= 0) || math.IsInf(beta, 0) {
		return fail(op, errs.ErrValue, "beta %v must be finite and not negative", beta)
	}
	if bad := pairCheck(op, pred, target); bad != nil {
		return bad
	}
	if beta == 0 {
		return L1(pred, target)
	}
	d := pred.Sub(target)
	a := d.Abs()
	return tensor.Where(a.LtScalar(beta), d.Square().MulScalar(0.5/beta), a.AddScalar(-0.5*beta)).Mean()
}

// Huber is PyTorch's F.huber_loss with mean reduction: for d = pred -
// target, 0.5·d² where |d| <= delta, else delta·(|d| - 0.5·delta). delta
// must be positive.
func Huber(pred, target *tensor.Tensor, delta float64) *tensor.Tensor {
	const op = "Huber"
	if !(delta > 0) || math.IsInf(delta, 0) {
		return fail(op, errs.ErrValue, "delta %v must be finite and positive", delta)
	}
	if bad := pairCheck(op, pred, target); bad != nil {
		return bad
	}
	d := pred.Sub(target)
	a := d.Abs()
	return tensor.Where(a.LeScalar(delta), d.Square().MulScalar(0.5), a.AddScalar(-0.5*delta).MulScalar(delta)).Mean()
}

// BCE is the binary cross-entropy of probabilities p against targets y
// (PyTorch's F.binary_cross_entropy, mean reduction): -(y·log p +
// (1-y)·log(1-p)), each logarithm clamped at -100 as PyTorch's, so p of 0
// or 1 gives a finite loss, and a gradient that is finite there too (0
// through a clamped logarithm, where PyTorch's is large but finite).
// Shapes and dtypes as MSE's; p outside [0, 1] gives NaN (PyTorch raises).
func BCE(p, y *tensor.Tensor) *tensor.Tensor {
	if bad := pairCheck("BCE", p, y); bad != nil {
		return bad
	}
	logP, log1mP := clampedLog(p), clampedLog(p.Neg().AddScalar(1))
	return y.Mul(logP).Add(y.Neg().AddScalar(1).Mul(log1mP)).Neg().Mean()
}

// clampedLog is max(log x, -100), PyTorch's clamp in BCE, written so that
// its gradient stays finite where x is 0 (a sigmoid saturated at 1 in
// float32): there the logarithm is taken of 1 instead and not selected,
// so no 0/0 reaches the gradient.
func clampedLog(x *tensor.Tensor) *tensor.Tensor {
	pos := x.GtScalar(0)
	one := tensor.Scalar(1.0).Cast(x.DType()).To(x.Device())
	negInf := tensor.Scalar(math.Inf(-1)).Cast(x.DType()).To(x.Device())
	return tensor.Where(pos, tensor.Where(pos, x, one).Log(), negInf).MaximumScalar(-100)
}

// BCEWithLogits is BCE of sigmoid(x) computed from the logits x in a
// stable form (PyTorch's F.binary_cross_entropy_with_logits, mean
// reduction): (1-y)·x + softplus(-x), finite for logits of any size, with
// the gradient sigmoid(x) - y everywhere (a form with max(x, 0) and |x|
// would lose it at x = 0, where both kinks' subgradients are taken as 0).
func BCEWithLogits(x, y *tensor.Tensor) *tensor.Tensor {
	if bad := pairCheck("BCEWithLogits", x, y); bad != nil {
		return bad
	}
	return y.Neg().AddScalar(1).Mul(x).Add(x.Neg().Softplus()).Mean()
}

// NLL is the negative log-likelihood loss of log-probabilities logp [N, C]
// for integer labels [N] (PyTorch's F.nll_loss, mean reduction):
// CrossEntropy without its LogSoftmax, with CrossEntropy's label checks.
func NLL(logp, labels *tensor.Tensor) *tensor.Tensor {
	if bad := classCheck("NLL", "log-probabilities", logp, labels); bad != nil {
		return bad
	}
	idx := labels.Cast(dtype.I64).Unsqueeze(1)
	return logp.Gather(1, idx).Mean().Neg()
}
