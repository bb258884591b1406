package optim

import (
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// RMSpropOptions are RMSprop's hyperparameters besides the learning rate.
// DefaultRMSprop returns PyTorch's defaults.
type RMSpropOptions struct {
	Alpha       float64 // smoothing constant of the squared-gradient average, in [0, 1)
	Eps         float64 // added to the denominator for stability (>= 0)
	WeightDecay float64 // L2 penalty added to the gradient (>= 0)
	Momentum    float64 // momentum factor (>= 0)
	Centered    bool    // divide by the estimated variance of the gradient instead of its second moment
	Maximize    bool    // ascend the objective instead of descending it
}

// DefaultRMSprop returns PyTorch's defaults: alpha 0.99, eps 1e-8, no
// weight decay, no momentum, not centered.
func DefaultRMSprop() RMSpropOptions { return RMSpropOptions{Alpha: 0.99, Eps: 1e-8} }

// RMSprop is the RMSprop optimiser with PyTorch's torch.optim.RMSprop
// rule. For each parameter p with gradient g, on each step:
//
//	d = g (or -g with Maximize) + λ·p
//	s = α·s + (1-α)·d²                      (s, a, b start at zero)
//	a = lerp(a, d, 1-α), and q = √(s - a²) + ε   (Centered)
//	q = √s + ε                              (otherwise)
//	b = μ·b + d/q, p = p - lr·b             (Momentum > 0)
//	p = p - lr·d/q                          (otherwise)
//
// Each update is one fused expression per tensor it produces, realised
// together (one kernel on a backend that computes several results at
// once: the CPU).
type RMSprop struct {
	base
	opt     RMSpropOptions
	step    []int
	s, a, b []*tensor.Tensor // square_avg, grad_avg, momentum_buffer: nil before the first step
}

// NewRMSprop returns an RMSprop optimiser for params (each at most once)
// with learning rate lr (PyTorch's default is 0.01). A negative or
// non-finite lr or option, or an alpha outside [0, 1), is an ErrValue
// error naming it.
func NewRMSprop(params []*nn.Parameter, lr float64, opt RMSpropOptions) (*RMSprop, error) {
	const op = "RMSprop"
	b, err := newBase(op, params, lr)
	if err != nil {
		return nil, err
	}
	if err := checkRates(op, rate{"eps", opt.Eps}, rate{"weight decay", opt.WeightDecay}, rate{"momentum", opt.Momentum}); err != nil {
		return nil, err
	}
	if err := checkBeta(op, "alpha", opt.Alpha); err != nil {
		return nil, err
	}
	n := len(b.params)
	return &RMSprop{base: b, opt: opt, step: make([]int, n),
		s: make([]*tensor.Tensor, n), a: make([]*tensor.Tensor, n), b: make([]*tensor.Tensor, n)}, nil
}

// Options returns the hyperparameters besides the learning rate.
func (o *RMSprop) Options() RMSpropOptions { return o.opt }

// Step updates every parameter that has a gradient (see Optimizer.Step).
func (o *RMSprop) Step() error {
	return o.stepAll(func(i int) []*tensor.Tensor { return []*tensor.Tensor{o.s[i], o.a[i], o.b[i]} }, o.update)
}

// update applies one step to one parameter.
func (o *RMSprop) update(u update) error {
	var sc scratch
	defer sc.release()
	alpha, eps, wd, mu := o.opt.Alpha, o.opt.Eps, o.opt.WeightDecay, o.opt.Momentum
	i, w, d := u.i, sc.t(u.w), u.g
	if o.opt.Maximize {
		d = sc.t(d.Neg())
	}
	if wd != 0 {
		d = sc.t(d.Add(sc.t(w.MulScalar(wd))))
	}
	s := sc.t(d.Mul(d)).MulScalar(1 - alpha)
	if o.s[i] != nil {
		s = sc.t(o.s[i].MulScalar(alpha)).Add(sc.t(s))
	}
	results := []*tensor.Tensor{s}
	var a *tensor.Tensor
	q := s
	if o.opt.Centered {
		// PyTorch's lerp of a towards d by 1-α, in its two forms (a starts
		// at zero, which drops out exactly).
		if prev := o.a[i]; 1-alpha < 0.5 {
			a = d.MulScalar(1 - alpha)
			if prev != nil {
				a = prev.Add(sc.t(sc.t(d.Sub(prev)).MulScalar(1 - alpha)))
			}
		} else {
			a = d.Sub(sc.t(d.MulScalar(alpha)))
			if prev != nil {
				a = d.Sub(sc.t(sc.t(d.Sub(prev)).MulScalar(alpha)))
			}
		}
		q = sc.t(s.Sub(sc.t(a.Mul(a))))
		results = append(results, a)
	}
	q = sc.t(sc.t(q.Sqrt()).AddScalar(eps))
	step := sc.t(d.Div(q))
	var b *tensor.Tensor
	if mu > 0 {
		b = step
		if o.b[i] != nil {
			b = sc.t(o.b[i].MulScalar(mu)).Add(step)
		} else {
			b = step.Detach() // the buffer's own reference; the scratch releases step
		}
		step = b
		results = append(results, b)
	}
	nw := sc.t(w.Sub(sc.t(step.MulScalar(o.lr))))
	_ = tensor.Realize(append(results, nw)...)
	o.step[i]++
	if err := o.keepState(u.p.Name, o.s, i, s); err != nil {
		return err
	}
	if a != nil {
		if err := o.keepState(u.p.Name, o.a, i, a); err != nil {
			return err
		}
	}
	if b != nil {
		if err := o.keepState(u.p.Name, o.b, i, b); err != nil {
			return err
		}
	}
	return put(o.op, u.p, nw)
}

// StateDict returns the learning rate and PyTorch's per-parameter state:
// "i.step", "i.square_avg", and "i.grad_avg" (Centered) and
// "i.momentum_buffer" (Momentum > 0).
func (o *RMSprop) StateDict() map[string]*tensor.Tensor {
	sd := map[string]*tensor.Tensor{"lr": tensor.Scalar(o.lr)}
	for i := range o.params {
		if o.step[i] == 0 {
			continue
		}
		sd[key(i, "step")] = tensor.Scalar(int64(o.step[i]))
		sd[key(i, "square_avg")] = view(o.s[i])
		if o.a[i] != nil {
			sd[key(i, "grad_avg")] = view(o.a[i])
		}
		if o.b[i] != nil {
			sd[key(i, "momentum_buffer")] = view(o.b[i])
		}
	}
	return sd
}

// LoadStateDict restores a state saved by StateDict (see Stateful). Each
// parameter with a step count needs square_avg, and grad_avg and
// momentum_buffer when the options use them.
func (o *RMSprop) LoadStateDict(sd map[string]*tensor.Tensor) error {
	lr, err := o.loadLR(sd)
	if err != nil {
		return err
	}
	per, err := o.stateKeys(sd, "step", "square_avg", "grad_avg", "momentum_buffer")
	if err != nil {
		return err
	}
	n := len(o.params)
	step, s, a, b := make([]int, n), make([]*tensor.Tensor, n), make([]*tensor.Tensor, n), make([]*tensor.Tensor, n)
	for i, st := range per {
		need := []string{"step", "square_avg"}
		if o.opt.Centered {
			need = append(need, "grad_avg")
		}
		if o.opt.Momentum > 0 {
			need = append(need, "momentum_buffer")
		}
		if step[i], err = o.stepOf(i, st, need); err != nil {
			return err
		}
		if s[i], err = o.stateFor(i, key(i, "square_avg"), st["square_avg"]); err != nil {
			return err
		}
		if o.opt.Centered {
			if a[i], err = o.stateFor(i, key(i, "grad_avg"), st["grad_avg"]); err != nil {
				return err
			}
		}
		if o.opt.Momentum > 0 {
			if b[i], err = o.stateFor(i, key(i, "momentum_buffer"), st["momentum_buffer"]); err != nil {
				return err
			}
		}
	}
	o.lr, o.step, o.s, o.a, o.b = lr, step, s, a, b
	return nil
}
