// Package optim updates the parameters of an nn model from their
// gradients: SGD (with momentum, dampening, Nesterov and weight decay),
// Adam, AdamW and RMSprop, each following PyTorch's torch.optim update
// rule, learning rate schedules (StepLR, ExponentialLR, MultiStepLR,
// cosine annealing with linear warm-up, OneCycleLR, and the metric-driven
// ReduceLROnPlateau), and PyTorch's gradient clipping (ClipGradNorm,
// ClipGradValue).
//
// A training step is ordinary tensor code:
//
//	loss := lossFn(model.Forward(x), y)
//	if err := loss.Backward(); err != nil { ... }
//	if err := opt.Step(); err != nil { ... }
//	opt.ZeroGrad()
//
// Tensors in tessera are immutable, so an optimiser does not write into a
// weight: it computes the new value with tensor operations on the
// parameter's device and dtype and puts it in the parameter's slot with
// nn.Parameter.Set. Its state (momentum buffers, Adam's moments) lives on
// the same device and dtype. Each update is written as one elementwise
// expression per tensor it produces; the lazy executor fuses each into one
// kernel (a momentum buffer, a moment, the new value), and Step realises
// every result before it returns, so state never chains into a growing
// graph and a loop of steps runs in bounded memory without Release.
//
// As in PyTorch, a gradient survives a step until ZeroGrad clears it
// (nn.Parameter.Set carries it to the new value), so a loop calls
// ZeroGrad once per step, and Backward calls between two ZeroGrads add
// up (gradient accumulation). A parameter that no Backward has reached
// since the last ZeroGrad has no gradient, and Step skips it, as PyTorch
// skips parameters whose grad is None.
//
// Every optimiser here is Stateful: StateDict and LoadStateDict save and
// restore its state (PyTorch's state_dict keys) to resume training, on the
// same device or another.
package optim

import (
	"errors"
	"math"
	"slices"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// Optimizer updates a fixed list of parameters from their gradients.
// An Optimizer is used by one goroutine at a time, like the model it
// trains.
type Optimizer interface {
	// Step updates every parameter that has a gradient. It checks all of
	// them before changing any: a gradient or state whose shape, dtype or
	// device differs from the parameter's value, a value or gradient that
	// carries an error, or an invalid learning rate is a typed error
	// (errors.Is with errs.ErrShape, ErrDType, ErrDevice, ErrValue...)
	// naming the parameter, and then no parameter changes. (A failure
	// while computing the updates, such as ErrOutOfMemory or
	// ErrDeviceLost, can leave the parameters before it updated.)
	Step() error
	// ZeroGrad clears the gradient of every parameter.
	ZeroGrad()
	// LR is the learning rate the next Step uses.
	LR() float64
	// SetLR changes the learning rate (the hook schedules use). A
	// negative or non-finite rate makes the next Step fail with ErrValue.
	SetLR(lr float64)
	// Params lists the parameters, in the order they were given.
	Params() []*nn.Parameter
}

// Every optimiser here is an Optimizer and Stateful.
var (
	_ Optimizer = (*SGD)(nil)
	_ Optimizer = (*Adam)(nil)
	_ Optimizer = (*RMSprop)(nil)
	_ Optimizer = (*ScheduledOptimizer)(nil)
	_ Stateful  = (*SGD)(nil)
	_ Stateful  = (*Adam)(nil)
	_ Stateful  = (*RMSprop)(nil)
	_ Stateful  = (*ScheduledOptimizer)(nil)
)

// base holds what every optimiser shares: its name (the op in errors),
// the parameters and the learning rate.
type base struct {
	op     string
	params []*nn.Parameter
	lr     float64
}

func newBase(op string, params []*nn.Parameter, lr float64) (base, error) {
	if err := checkRate(op, "learning rate", lr); err != nil {
		return base{}, err
	}
	seen := make(map[*nn.Parameter]bool, len(params))
	for i, p := range params {
		if p == nil {
			return base{}, errs.New("optim", op, errs.ErrValue, "parameter %d is nil", i)
		}
		if seen[p] {
			return base{}, errs.New("optim", op, errs.ErrValue, "parameter %d (%q) appears more than once", i, p.Name)
		}
		seen[p] = true
	}
	return base{op: op, params: slices.Clone(params), lr: lr}, nil
}

// Params lists the parameters, in the order they were given.
func (b *base) Params() []*nn.Parameter { return slices.Clone(b.params) }

// LR is the learning rate the next Step uses.
func (b *base) LR() float64 { return b.lr }

// SetLR changes the learning rate; Step checks it.
func (b *base) SetLR(lr float64) { b.lr = lr }

// ZeroGrad clears the gradient of every parameter.
func (b *base) ZeroGrad() {
	for _, p := range b.params {
		p.ZeroGrad()
	}
}

// checkRate refuses a negative, NaN or infinite hyperparameter.
func checkRate(op, what string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return errs.New("optim", op, errs.ErrValue, "invalid %s %v: want a finite value >= 0", what, v)
	}
	return nil
}

// rate names a hyperparameter for checkRates.
type rate struct {
	what string
	v    float64
}

// checkRates applies checkRate to each of rates in turn.
func checkRates(op string, rates ...rate) error {
	for _, r := range rates {
		if err := checkRate(op, r.what, r.v); err != nil {
			return err
		}
	}
	return nil
}

// checkBeta refuses a coefficient outside [0, 1).
func checkBeta(op, what string, v float64) error {
	if !(v >= 0 && v < 1) {
		return errs.New("optim", op, errs.ErrValue, "invalid %s %v: want 0 <= %s < 1", what, v, what)
	}
	return nil
}

// update is one parameter's part of a Step, found by gather.
type update struct {
	i    int            // index in params (and in the state slices)
	p    *nn.Parameter  // the parameter
	w, g *tensor.Tensor // its value (detached) and gradient
}

// stepAll is every optimiser's Step: it checks all parameters first (gather),
// so a bad one changes nothing, then applies update to each parameter that
// has a gradient.
func (b *base) stepAll(state func(i int) []*tensor.Tensor, update func(update) error) error {
	ups, err := b.gather(state)
	if err != nil {
		return err
	}
	for _, u := range ups {
		if err := update(u); err != nil {
			return err
		}
	}
	return nil
}

// gather checks every parameter and returns the ones with a gradient.
// state(i) lists parameter i's state tensors (nil where not yet made),
// which must match its value as the gradient must.
func (b *base) gather(state func(i int) []*tensor.Tensor) ([]update, error) {
	if err := checkRate(b.op, "learning rate", b.lr); err != nil {
		return nil, err
	}
	var ups []update
	for i, p := range b.params {
		v := p.Value
		if v == nil {
			return nil, errs.New("optim", b.op, errs.ErrValue, "parameter %q has no value", p.Name)
		}
		if err := v.Err(); err != nil {
			return nil, wrap(b.op, err, "parameter %q", p.Name)
		}
		g := p.Grad()
		if g == nil {
			continue
		}
		if err := g.Err(); err != nil {
			return nil, wrap(b.op, err, "the gradient of parameter %q", p.Name)
		}
		if err := matches(b.op, p.Name, "gradient", v, g); err != nil {
			return nil, err
		}
		for _, s := range state(i) {
			if s == nil {
				continue
			}
			if err := matches(b.op, p.Name, "optimiser state", v, s); err != nil {
				return nil, err
			}
		}
		w := v.Detach() // the value outside the graph: the update records nothing
		if err := w.Err(); err != nil {
			return nil, wrap(b.op, err, "parameter %q", p.Name)
		}
		ups = append(ups, update{i: i, p: p, w: w, g: g})
	}
	return ups, nil
}

// matches checks that x (a gradient or a state tensor of parameter name)
// has the shape, dtype and device of the parameter's value v.
func matches(op, name, what string, v, x *tensor.Tensor) error {
	switch {
	case !slices.Equal(x.Shape(), v.Shape()):
		return errs.New("optim", op, errs.ErrShape, "parameter %q: %s shape %v differs from the value's %v", name, what, x.Shape(), v.Shape())
	case x.DType() != v.DType():
		return errs.New("optim", op, errs.ErrDType, "parameter %q: %s dtype %v differs from the value's %v", name, what, x.DType(), v.DType())
	case x.Device() != v.Device():
		return errs.New("optim", op, errs.ErrDevice, "parameter %q: %s on %s, value on %s", name, what, x.Device().Name(), v.Device().Name())
	}
	return nil
}

// settle realises t (one fused kernel for a pending expression), so the
// next step reads it as a plain input instead of extending its graph.
func settle(op, name string, t *tensor.Tensor) error {
	if err := t.Err(); err != nil {
		return wrap(op, err, "updating parameter %q", name)
	}
	return nil
}

// keepState realises x as state[i], releasing the value it replaces
// (state tensors are the optimiser's own; what still reads the old one,
// the update's scratch, holds references of its own until released).
func (b *base) keepState(name string, state []*tensor.Tensor, i int, x *tensor.Tensor) error {
	if err := settle(b.op, name, x); err != nil {
		return err
	}
	if prev := state[i]; prev != nil {
		prev.Release()
	}
	state[i] = x
	return nil
}

// put realises the new value w of parameter p and stores it (Set keeps a
// view of its own; w is left to the caller's scratch).
func put(op string, p *nn.Parameter, w *tensor.Tensor) error {
	if err := settle(op, p.Name, w); err != nil {
		return err
	}
	p.Set(w)
	return nil
}

// scratch collects the tensors an update makes and does not keep: the
// pending intermediates of its expressions, its view of the old value,
// the computed new value (the parameter holds its own view). A pending
// intermediate that is never realised keeps a reference to its inputs'
// storage until it is released or collected, so releasing them once the
// update's results are computed is what lets a replaced state buffer go
// back to the device's pool at once (TestStateBuffersRecycled) instead of
// at the next garbage collection.
type scratch []*tensor.Tensor

// t records x as scratch and returns it.
func (s *scratch) t(x *tensor.Tensor) *tensor.Tensor {
	*s = append(*s, x)
	return x
}

// release releases every scratch tensor.
func (s *scratch) release() {
	for _, x := range *s {
		x.Release()
	}
	*s = (*s)[:0]
}

// wrap names the parameter an error from the tensor package concerns,
// keeping its kind (ErrReleased, ErrOutOfMemory...) for errors.Is.
func wrap(op string, err error, format string, args ...any) error {
	kind := errs.ErrValue
	var e *errs.Error
	if errors.As(err, &e) && e.Kind != nil {
		kind = e.Kind
	}
	return errs.Wrap("optim", op, kind, err, format, args...)
}
