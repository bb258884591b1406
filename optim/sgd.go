package optim

import (
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// SGDOptions are SGD's hyperparameters besides the learning rate; the
// zero value is plain gradient descent.
type SGDOptions struct {
	Momentum    float64 // momentum factor μ (>= 0)
	Dampening   float64 // dampening τ of the gradient added to the buffer (>= 0)
	WeightDecay float64 // L2 penalty λ added to the gradient (>= 0)
	Nesterov    bool    // Nesterov momentum; needs Momentum > 0 and Dampening 0
	Maximize    bool    // ascend the objective instead of descending it
}

// SGD is stochastic gradient descent with PyTorch's torch.optim.SGD rule.
// For each parameter p with gradient g, on each step:
//
//	d = g (or -g with Maximize) + λ·p
//	b = d on the first step, else μ·b + (1-τ)·d   (when μ != 0)
//	d = d + μ·b with Nesterov, else b            (when μ != 0)
//	p = p - lr·d
//
// A parameter's first step puts d itself (the gradient, with any decay)
// in its momentum buffer, without dampening, as PyTorch does.
type SGD struct {
	base
	opt SGDOptions
	buf []*tensor.Tensor // momentum buffers, nil until a parameter's first step
	own []bool           // buf[i] was computed here (not the gradient itself)
}

// NewSGD returns an SGD optimiser for params (each at most once) with
// learning rate lr. A negative or non-finite lr or option, or Nesterov
// without momentum or with dampening, is an ErrValue error naming it.
func NewSGD(params []*nn.Parameter, lr float64, opt SGDOptions) (*SGD, error) {
	const op = "SGD"
	b, err := newBase(op, params, lr)
	if err != nil {
		return nil, err
	}
	if err := checkRates(op, rate{"momentum", opt.Momentum}, rate{"dampening", opt.Dampening}, rate{"weight decay", opt.WeightDecay}); err != nil {
		return nil, err
	}
	if opt.Nesterov && (opt.Momentum == 0 || opt.Dampening != 0) {
		return nil, errs.New("optim", op, errs.ErrValue, "Nesterov momentum requires a momentum > 0 and zero dampening, have momentum %v and dampening %v", opt.Momentum, opt.Dampening)
	}
	return &SGD{base: b, opt: opt, buf: make([]*tensor.Tensor, len(b.params)), own: make([]bool, len(b.params))}, nil
}

// Options returns the hyperparameters besides the learning rate.
func (o *SGD) Options() SGDOptions { return o.opt }

// Step updates every parameter that has a gradient (see Optimizer.Step).
// It runs one fused kernel per parameter, also with momentum on a backend
// that computes several results in one kernel (device.MultiFuser: the
// CPU), and two with momentum elsewhere (one on a parameter's first step,
// whose buffer is the gradient itself).
func (o *SGD) Step() error {
	return o.stepAll(func(i int) []*tensor.Tensor { return []*tensor.Tensor{o.buf[i]} }, o.update)
}

// update applies one step to one parameter.
func (o *SGD) update(u update) error {
	var s scratch
	defer s.release()
	mu, damp, wd := o.opt.Momentum, o.opt.Dampening, o.opt.WeightDecay
	w, d := s.t(u.w), u.g
	if o.opt.Maximize {
		d = s.t(d.Neg())
	}
	if wd != 0 {
		d = s.t(d.Add(s.t(w.MulScalar(wd))))
	}
	var b, prev *tensor.Tensor
	if mu != 0 {
		prev = o.buf[u.i]
		if prev == nil {
			// The first buffer is d itself: the gradient (kept, not
			// owned), or a view of our own of the computed d.
			if err := settle(o.op, u.p.Name, d); err != nil {
				return err
			}
			b = d
			if d != u.g {
				b = d.Detach()
			}
		} else {
			b = s.t(prev.MulScalar(mu)).Add(s.t(d.MulScalar(1 - damp)))
		}
		if o.opt.Nesterov {
			d = s.t(d.Add(s.t(b.MulScalar(mu))))
		} else {
			d = b
		}
	}
	nw := s.t(w.Sub(s.t(d.MulScalar(o.lr))))
	if prev != nil {
		// The new buffer and the value it updates in one kernel where the
		// backend can (tensor.Realize); settle and put report any error.
		_ = tensor.Realize(b, nw)
		if err := settle(o.op, u.p.Name, b); err != nil {
			return err
		}
		if o.own[u.i] {
			prev.Release() // ours; the scratch that read it holds its own references
		}
	}
	if mu != 0 {
		o.buf[u.i], o.own[u.i] = b, b != u.g
	}
	return put(o.op, u.p, nw)
}
