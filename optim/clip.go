package optim

import (
	"math"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// ClipGradNorm scales the gradients of params together so that their
// norm of order normType (the norm of the parameters' gradient norms;
// math.Inf(1) for the largest absolute element) is at most maxNorm, and
// returns the norm they had: PyTorch's torch.nn.utils.clip_grad_norm_,
// with its rule (every gradient times min(1, maxNorm/(norm + 1e-6))).
// Parameters without a gradient are skipped. The norm is a 0-d tensor on
// the first gradient's device (reading it is a synchronisation), nil when
// no parameter has a gradient. A non-finite norm is returned and the
// gradients are left alone when errorIfNonfinite is false; with true it is
// an ErrValue, as PyTorch's error_if_nonfinite. maxNorm must not be
// negative, normType must be positive.
func ClipGradNorm(params []*nn.Parameter, maxNorm, normType float64, errorIfNonfinite bool) (*tensor.Tensor, error) {
	const op = "ClipGradNorm"
	if !(maxNorm >= 0) {
		return nil, errs.New("optim", op, errs.ErrValue, "maxNorm %v must not be negative", maxNorm)
	}
	if !(normType > 0) {
		return nil, errs.New("optim", op, errs.ErrValue, "normType %v must be positive", normType)
	}
	var grads []*tensor.Tensor
	var owners []*nn.Parameter
	for i, p := range params {
		if p == nil {
			return nil, errs.New("optim", op, errs.ErrValue, "parameter %d is nil", i)
		}
		if g := p.Grad(); g != nil {
			if err := g.Err(); err != nil {
				return nil, wrap(op, err, "gradient of %q", p.Name)
			}
			grads, owners = append(grads, g), append(owners, p)
		}
	}
	if len(grads) == 0 {
		return nil, nil
	}
	dev, dt := grads[0].Device(), grads[0].DType()
	norms := make([]*tensor.Tensor, len(grads))
	for i, g := range grads {
		norms[i] = g.Norm(normType).Cast(dt).To(dev) // in each gradient's dtype, as PyTorch's
	}
	total := tensor.Stack(norms, 0).Norm(normType)
	n, err := total.Item()
	if err != nil {
		return nil, wrap(op, err, "total norm")
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		if errorIfNonfinite {
			return total, errs.New("optim", op, errs.ErrValue, "the total norm of order %v of the gradients is %v", normType, n)
		}
		return total, nil
	}
	coef := maxNorm / (n + 1e-6)
	if coef >= 1 {
		return total, nil
	}
	for i, g := range grads {
		if err := owners[i].Value.SetGrad(g.MulScalar(coef)); err != nil {
			return total, wrap(op, err, "gradient of %q", owners[i].Name)
		}
	}
	return total, nil
}

// ClipGradValue clamps every element of the gradients of params to
// [-clip, clip] (torch.nn.utils.clip_grad_value_). clip must not be
// negative. NaN stays NaN.
func ClipGradValue(params []*nn.Parameter, clip float64) error {
	const op = "ClipGradValue"
	if !(clip >= 0) {
		return errs.New("optim", op, errs.ErrValue, "clip %v must not be negative", clip)
	}
	for i, p := range params {
		if p == nil {
			return errs.New("optim", op, errs.ErrValue, "parameter %d is nil", i)
		}
	}
	for _, p := range params {
		g := p.Grad()
		if g == nil {
			continue
		}
		if err := p.Value.SetGrad(g.Clamp(-clip, clip)); err != nil {
			return wrap(op, err, "gradient of %q", p.Name)
		}
	}
	return nil
}
