package optim

import (
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// AdamOptions are the hyperparameters of Adam and AdamW besides the
// learning rate. DefaultAdam returns PyTorch's defaults.
type AdamOptions struct {
	Beta1, Beta2 float64 // decay rates of the moment estimates, each in [0, 1)
	Eps          float64 // added to the denominator for stability (>= 0)
	WeightDecay  float64 // Adam: L2 penalty added to the gradient; AdamW: decoupled decay (>= 0)
	AMSGrad      bool    // use the running maximum of the second moment
	Maximize     bool    // ascend the objective instead of descending it
}

// DefaultAdam returns PyTorch's defaults: betas (0.9, 0.999), eps 1e-8,
// no weight decay. (AdamW's default decay is 0.01; set it explicitly.)
func DefaultAdam() AdamOptions { return AdamOptions{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8} }

// Adam is the Adam optimiser with PyTorch's torch.optim.Adam rule (and
// AdamW's, when made by NewAdamW). For each parameter p with gradient g, at
// its step t = 1, 2, ...:
//
//	d = g (or -g with Maximize), + λ·p for Adam's L2 weight decay
//	p = p·(1 - lr·λ)                      (AdamW's decoupled decay instead)
//	m = β1·m + (1-β1)·d                   (m, v start at zero)
//	v = β2·v + (1-β2)·d²                  (v̂ = max(v̂, v) with AMSGrad)
//	p = p - (lr / (1-β1^t)) · m / (√v / √(1-β2^t) + ε)
//
// Each step runs, per parameter, one fused kernel computing the moments
// (and AMSGrad's maximum) and the new value together on a backend that
// computes several results in one kernel (device.MultiFuser: the CPU);
// elsewhere one kernel for each moment and one for the new value, plus one
// for AMSGrad's maximum after the first step.
type Adam struct {
	base
	opt       AdamOptions
	decoupled bool
	step      []int            // steps taken by each parameter
	m, v, vm  []*tensor.Tensor // moments (vm: AMSGrad's maximum), nil before the first step
}

// NewAdam returns an Adam optimiser for params (each at most once) with
// learning rate lr; weight decay is an L2 penalty added to the gradient.
// A negative or non-finite lr, eps or weight decay, or a beta outside
// [0, 1), is an ErrValue error naming it.
func NewAdam(params []*nn.Parameter, lr float64, opt AdamOptions) (*Adam, error) {
	return newAdam("Adam", params, lr, opt, false)
}

// NewAdamW returns an AdamW optimiser: Adam whose weight decay is
// decoupled from the gradient (p ← p − lr·λ·p before the Adam update),
// as PyTorch's torch.optim.AdamW. Its options are checked as NewAdam's.
func NewAdamW(params []*nn.Parameter, lr float64, opt AdamOptions) (*Adam, error) {
	return newAdam("AdamW", params, lr, opt, true)
}

func newAdam(op string, params []*nn.Parameter, lr float64, opt AdamOptions, decoupled bool) (*Adam, error) {
	b, err := newBase(op, params, lr)
	if err != nil {
		return nil, err
	}
	if err := checkRates(op, rate{"eps", opt.Eps}, rate{"weight decay", opt.WeightDecay}); err != nil {
		return nil, err
	}
	if err := checkBeta(op, "beta1", opt.Beta1); err != nil {
		return nil, err
	}
	if err := checkBeta(op, "beta2", opt.Beta2); err != nil {
		return nil, err
	}
	n := len(b.params)
	return &Adam{base: b, opt: opt, decoupled: decoupled, step: make([]int, n),
		m: make([]*tensor.Tensor, n), v: make([]*tensor.Tensor, n), vm: make([]*tensor.Tensor, n)}, nil
}

// Options returns the hyperparameters besides the learning rate.
func (o *Adam) Options() AdamOptions { return o.opt }

// Step updates every parameter that has a gradient (see Optimizer.Step).
func (o *Adam) Step() error {
	return o.stepAll(func(i int) []*tensor.Tensor { return []*tensor.Tensor{o.m[i], o.v[i], o.vm[i]} }, o.update)
}

// update applies one step to one parameter.
func (o *Adam) update(u update) error {
	var s scratch
	defer s.release()
	b1, b2, eps, wd, lr := o.opt.Beta1, o.opt.Beta2, o.opt.Eps, o.opt.WeightDecay, o.lr
	i, w, d := u.i, s.t(u.w), u.g
	if o.opt.Maximize {
		d = s.t(d.Neg())
	}
	if wd != 0 {
		if o.decoupled {
			w = s.t(w.MulScalar(1 - lr*wd))
		} else {
			d = s.t(d.Add(s.t(w.MulScalar(wd))))
		}
	}
	o.step[i]++
	t := float64(o.step[i])
	bc1 := 1 - math.Pow(b1, t)
	bc2 := 1 - math.Pow(b2, t)
	if !o.opt.AMSGrad && o.m[i] != nil && o.v[i] != nil {
		// The same update as the expression below, in one kernel where
		// the device has one (the CPU's: one pass over memory instead of
		// a dozen); bit for bit equal to it.
		c := device.AdamCoeffs{B1: b1, B2: b2, Eps: eps, SqrtBC2: math.Sqrt(bc2), Step: lr / bc1}
		if nw, m, v, ok := tensor.FusedAdam(w, d, o.m[i], o.v[i], c); ok {
			if err := o.keepState(u.p.Name, o.m, i, m); err != nil {
				return err
			}
			if err := o.keepState(u.p.Name, o.v, i, v); err != nil {
				return err
			}
			return put(o.op, u.p, nw)
		}
	}
	m := d.MulScalar(1 - b1)
	if o.m[i] != nil {
		m = s.t(o.m[i].MulScalar(b1)).Add(s.t(m))
	}
	v := s.t(d.Mul(d)).MulScalar(1 - b2) // d·d runs the vector multiply (Square has no vector kernel)
	if o.v[i] != nil {
		v = s.t(o.v[i].MulScalar(b2)).Add(s.t(v))
	}
	vmax := v
	if o.opt.AMSGrad {
		if o.vm[i] != nil {
			vmax = o.vm[i].Maximum(v)
		} else {
			vmax = v.Detach() // a view with its own reference: keepState releases o.v[i] later
		}
	}
	denom := s.t(s.t(s.t(vmax.Sqrt()).DivScalar(math.Sqrt(bc2))).AddScalar(eps))
	nw := s.t(w.Sub(s.t(s.t(m.Div(denom)).MulScalar(lr / bc1))))
	// The moments and the value in one kernel where the backend can
	// (tensor.Realize); keepState and put report any error.
	_ = tensor.Realize(m, v, vmax, nw)
	if err := o.keepState(u.p.Name, o.m, i, m); err != nil {
		return err
	}
	if err := o.keepState(u.p.Name, o.v, i, v); err != nil {
		return err
	}
	if o.opt.AMSGrad {
		if err := o.keepState(u.p.Name, o.vm, i, vmax); err != nil {
			return err
		}
	}
	return put(o.op, u.p, nw)
}
