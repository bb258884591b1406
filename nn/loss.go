package nn

import (
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
	if !valid(logits) || !valid(labels) {
		return logits.Add(labels) // the error of whichever failed
	}
	ls, ys := logits.Shape(), labels.Shape()
	switch {
	case !logits.DType().IsFloat():
		return fail(op, errs.ErrDType, "logits must be floating, have %v", logits.DType())
	case !labels.DType().IsInt():
		return fail(op, errs.ErrDType, "labels must be integer class indices, have %v", labels.DType())
	case len(ls) != 2 || len(ys) != 1 || ls[0] != ys[0] || ls[1] == 0:
		return fail(op, errs.ErrShape, "logits %v and labels %v must be [N, C] and [N] with C > 0", ls, ys)
	case logits.Device() != labels.Device():
		return fail(op, errs.ErrDevice, "logits on %s, labels on %s", logits.Device().Name(), labels.Device().Name())
	}
	n, c := ls[0], ls[1]
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
