package tensor

import (
	"slices"
	"sync"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Reverse-mode automatic differentiation, dynamic as PyTorch's: the graph
// is recorded by the operations a program runs on tensors that require
// grad, and only by them.
//
// A tensor takes part in a graph when its ag field is set: a leaf marked
// with RequiresGrad (ag.fn nil), or the result of a differentiable
// operation with at least one such input (ag.fn says how to send a
// gradient back to the inputs). Every other tensor has ag == nil, and the
// operations test exactly that before doing anything else, so code without
// gradients pays one pointer comparison per operation and allocates
// nothing more. There is no tape and no global mode: the graph hangs off
// the tensors themselves, so goroutines may train separate models at once,
// and a graph nobody refers to is collected like any other value.
//
// Gradients are computed with the tensor operations themselves (on detached
// values, so the backward pass records nothing): they run on the tensors'
// device and their elementwise chains are recorded and fused like any
// other code. Backward frees the graph it walked (its saved values and the
// links to its inputs) unless asked to retain it.

// gradInfo is a tensor's place in an autograd graph.
type gradInfo struct {
	fn *gradFn // how the tensor was computed; nil for a leaf

	mu   sync.Mutex
	grad *Tensor // a leaf's accumulated gradient
}

// backFn maps the gradient of an operation's result to the gradients of
// its inputs (one per input, nil where none is wanted), given the values
// the operation saved, in the order it saved them. Every returned gradient
// has its input's shape and dtype.
type backFn func(g *Tensor, saved []*Tensor) []*Tensor

// gradFn is one recorded differentiable operation.
type gradFn struct {
	op string

	mu    sync.Mutex
	ins   []*Tensor // inputs that require grad (nil elsewhere)
	back  backFn
	saved []savedValue
	freed bool
}

// savedValue is a value a gradient rule needs. A computed tensor is held
// through a view of its own (a storage reference), so releasing the
// original does not take it from the graph. A pending tensor is held
// pending (counted as a reader, so releasing it does not drop its
// operation) and computed when the backward pass asks for it: the forward
// chain stays fused, and an intermediate that was never materialised is
// recomputed from its graph.
type savedValue struct {
	t       *Tensor
	pending bool
	owned   bool // t is a view of the graph's own, released with it
}

func holdValue(x *Tensor) savedValue {
	if x.isLazy() && !x.lz.done.Load() {
		x.use()
		return savedValue{t: x, pending: true}
	}
	if x.err != nil || x.st == nil || !x.st.acquire() {
		return savedValue{t: x} // value reports the error
	}
	return savedValue{t: wrapUntracked(x.st, x.lay), owned: true}
}

// value returns the saved tensor, computed. The caller holds fn.mu.
func (s *savedValue) value(op string) (*Tensor, error) {
	if !s.pending {
		if err := s.t.checkOperand(op); err != nil {
			return nil, err
		}
		return s.t, nil
	}
	x := s.t
	if err := x.realize(); err != nil {
		return nil, err
	}
	if x.st == nil || !x.st.acquire() {
		return nil, errs.New("tensor", op, errs.ErrReleased, "a value %v saved for the gradient was released before Backward", x.lay.Shape)
	}
	s.t, s.pending, s.owned = wrapUntracked(x.st, x.lay), false, true
	x.unuse()
	return s.t, nil
}

func (s *savedValue) free() {
	if s.pending {
		s.t.unuse()
	} else if s.owned {
		s.t.Release()
	}
	s.t = nil
}

// wantsGrad reports whether t takes part in an autograd graph.
func (t *Tensor) wantsGrad() bool { return t != nil && t.ag != nil }

// attach records out as the result of op on ins when one of them requires
// grad, with back as its gradient rule and save as the values back needs
// (passed to back in this order). Non-float results are not
// differentiable and are left out of the graph.
func attach(out *Tensor, op string, back backFn, save []*Tensor, ins ...*Tensor) *Tensor {
	if out == nil || out.err != nil || !out.DType().IsFloat() {
		return out
	}
	fn := &gradFn{op: op, back: back, ins: make([]*Tensor, len(ins))}
	wanted := false
	for i, in := range ins {
		if in.wantsGrad() {
			fn.ins[i], wanted = in, true
		}
	}
	if !wanted {
		return out
	}
	fn.saved = make([]savedValue, len(save))
	for i, s := range save {
		fn.saved[i] = holdValue(s)
	}
	out.ag = &gradInfo{fn: fn}
	return out
}

// inputs returns the recorded inputs (nil once the graph is freed).
func (fn *gradFn) inputs() []*Tensor {
	fn.mu.Lock()
	defer fn.mu.Unlock()
	return fn.ins
}

// apply runs the rule for gradient g.
func (fn *gradFn) apply(g *Tensor) ([]*Tensor, []*Tensor, error) {
	fn.mu.Lock()
	defer fn.mu.Unlock()
	if fn.freed {
		return nil, nil, errs.New("tensor", "Backward", errs.ErrReleased, "the graph through %s was freed by an earlier Backward (use BackwardRetain to run backward twice)", fn.op)
	}
	vals := make([]*Tensor, len(fn.saved))
	for i := range fn.saved {
		v, err := fn.saved[i].value(fn.op)
		if err != nil {
			return nil, nil, errs.Retag("tensor", "Backward", err)
		}
		vals[i] = v
	}
	return fn.ins, fn.back(g, vals), nil
}

// free drops the saved values and the links to the inputs.
func (fn *gradFn) free() {
	fn.mu.Lock()
	defer fn.mu.Unlock()
	if fn.freed {
		return
	}
	for i := range fn.saved {
		fn.saved[i].free()
	}
	fn.freed, fn.saved, fn.ins, fn.back = true, nil, nil, nil
}

// RequiresGrad marks t as a leaf whose gradient Backward computes, and
// returns t. Only floating dtypes are differentiable: an integer or bool
// tensor gives an ErrDType tensor (t is left unchanged). A tensor that is
// already part of a graph is returned as it is. Mark a tensor before
// sharing it between goroutines.
func (t *Tensor) RequiresGrad() *Tensor {
	if err := t.checkOperand("RequiresGrad"); err != nil {
		return failed(err)
	}
	if !t.DType().IsFloat() {
		return fail("RequiresGrad", errs.ErrDType, "only floating tensors are differentiable, have %v", t.DType())
	}
	if t.ag == nil {
		t.ag = &gradInfo{}
	}
	return t
}

// Detach returns a view of t that is not part of any graph: operations on
// it record nothing, and no gradient flows back through it. A pending
// tensor is computed first, as for every view.
func (t *Tensor) Detach() *Tensor {
	return t.viewOp("Detach", func(l layout.Layout) (layout.Layout, error) { return l, nil })
}

// Grad returns the gradient accumulated into leaf t by Backward, or nil
// when none has been (t does not require grad, or no Backward reached it
// since the last ZeroGrad).
func (t *Tensor) Grad() *Tensor {
	if !t.wantsGrad() {
		return nil
	}
	t.ag.mu.Lock()
	defer t.ag.mu.Unlock()
	return t.ag.grad
}

// ZeroGrad clears t's accumulated gradient (Grad returns nil until the
// next Backward).
func (t *Tensor) ZeroGrad() {
	if !t.wantsGrad() {
		return
	}
	t.ag.mu.Lock()
	t.ag.grad = nil
	t.ag.mu.Unlock()
}

// SetGrad replaces leaf t's accumulated gradient with g, as assigning a
// PyTorch tensor's grad does; a nil g clears it, as ZeroGrad. g must have
// t's shape, dtype and device, and t must be a leaf that requires grad.
// t keeps a detached view of g (tensors are immutable, so later Backward
// calls add to it into a new tensor and never change g).
func (t *Tensor) SetGrad(g *Tensor) error {
	const op = "SetGrad"
	if err := t.checkOperand(op); err != nil {
		return err
	}
	if !t.wantsGrad() || t.ag.fn != nil {
		return errs.New("tensor", op, errs.ErrValue, "t is not a leaf that requires grad (call RequiresGrad on a leaf first)")
	}
	if g == nil {
		t.ZeroGrad()
		return nil
	}
	if err := g.checkOperand(op); err != nil {
		return err
	}
	switch {
	case !slices.Equal(g.lay.Shape, t.lay.Shape):
		return errs.New("tensor", op, errs.ErrShape, "gradient %v for a tensor of shape %v", g.lay.Shape, t.lay.Shape)
	case g.DType() != t.DType():
		return errs.New("tensor", op, errs.ErrDType, "gradient %v for a %v tensor", g.DType(), t.DType())
	case g.Device() != t.Device():
		return errs.New("tensor", op, errs.ErrDevice, "gradient on %s for a tensor on %s", g.Device().Name(), t.Device().Name())
	}
	d := g.Detach()
	if err := d.Err(); err != nil {
		return errs.Retag("tensor", op, err)
	}
	d.escaped.Store(true) // the leaf's, whatever Scope is open
	t.ag.mu.Lock()
	t.ag.grad = d
	t.ag.mu.Unlock()
	return nil
}

// Backward computes the gradient of the scalar t (one element) with respect
// to every leaf that requires grad and that t depends on, and adds it to
// the leaf's Grad. The graph is freed afterwards: a second Backward
// through it is an ErrReleased error (BackwardRetain keeps it). A
// non-scalar t is an ErrShape error (BackwardWith takes the seed
// gradient); an integer or bool t, or one that does not depend on any
// tensor requiring grad, is an ErrDType or ErrValue error.
func (t *Tensor) Backward() error { return t.backward("Backward", nil, false) }

// BackwardWith is Backward seeded with d(something)/dt = seed, which has
// t's shape, dtype and device: for a non-scalar t.
func (t *Tensor) BackwardWith(seed *Tensor) error { return t.backward("BackwardWith", seed, false) }

// BackwardRetain is BackwardWith (seed nil meaning 1 for a scalar t) that
// keeps the graph, so that Backward may run through it again.
func (t *Tensor) BackwardRetain(seed *Tensor) error {
	return t.backward("BackwardRetain", seed, true)
}

func (t *Tensor) backward(op string, seed *Tensor, retain bool) error {
	seed, err := t.seedFor(op, seed)
	if err != nil {
		return err
	}
	leaves, _, err := runBackward(op, t, seed, retain, nil)
	if err != nil {
		return err
	}
	for _, l := range leaves {
		if err := l.t.accumulate(op, l.g); err != nil {
			return err
		}
	}
	return nil
}

// accumulate adds g to leaf t's gradient and computes the sum.
func (t *Tensor) accumulate(op string, g *Tensor) error {
	t.ag.mu.Lock()
	defer t.ag.mu.Unlock()
	var sum *Tensor
	if t.ag.grad == nil {
		sum = g
		if !g.isLazy() && !g.IsContiguous() {
			sum = g.Contiguous() // a broadcast gradient becomes a tensor of its own
		}
	} else {
		sum = t.ag.grad.Add(g)
	}
	if err := sum.Err(); err != nil {
		return errs.Retag("tensor", op, err)
	}
	sum.escaped.Store(true) // the leaf's, whatever Scope is open
	t.ag.grad = sum
	return nil
}

// Grads returns the gradients of the scalar y with respect to xs (leaves or
// intermediate results that require grad), without touching any leaf's
// Grad and without freeing the graph: a functional form for tests and
// higher-level code. A tensor y does not depend on has a zero gradient; an
// x that does not require grad is an error (ErrDType for an integer or bool
// x, which is never differentiable).
func Grads(y *Tensor, xs ...*Tensor) ([]*Tensor, error) {
	const op = "Grads"
	for i, x := range xs {
		if err := x.checkOperand(op); err != nil {
			return nil, err
		}
		if !x.DType().IsFloat() {
			return nil, errs.New("tensor", op, errs.ErrDType, "input %d: a %v tensor is not differentiable", i, x.DType())
		}
		if x.ag == nil {
			return nil, errs.New("tensor", op, errs.ErrValue, "input %d does not require grad (call RequiresGrad before the forward pass)", i)
		}
	}
	seed, err := y.seedFor(op, nil)
	if err != nil {
		return nil, err
	}
	_, gs, err := runBackward(op, y, seed, true, xs)
	if err != nil {
		return nil, err
	}
	for i, g := range gs {
		if g == nil {
			gs[i] = filled(op, xs[i].Device(), xs[i].DType(), 0, xs[i].lay.Shape)
		}
		if err := gs[i].Err(); err != nil {
			return nil, errs.Retag("tensor", op, err)
		}
	}
	return gs, nil
}

// seedFor checks that backward may start from t and returns the seed
// gradient: ones for a scalar t when seed is nil.
func (t *Tensor) seedFor(op string, seed *Tensor) (*Tensor, error) {
	if err := t.checkOperand(op); err != nil {
		return nil, err
	}
	if !t.DType().IsFloat() {
		return nil, errs.New("tensor", op, errs.ErrDType, "a %v result is not differentiable", t.DType())
	}
	if t.ag == nil {
		return nil, errs.New("tensor", op, errs.ErrValue, "the tensor does not depend on any tensor that requires grad")
	}
	if seed == nil {
		if t.lay.Numel() != 1 {
			return nil, errs.New("tensor", op, errs.ErrShape, "the gradient can be seeded implicitly only for a scalar, have shape %v (use BackwardWith)", t.lay.Shape)
		}
		return filled(op, t.Device(), t.DType(), 1, t.lay.Shape), nil
	}
	if err := seed.checkOperand(op); err != nil {
		return nil, err
	}
	switch {
	case !slices.Equal(seed.lay.Shape, t.lay.Shape):
		return nil, errs.New("tensor", op, errs.ErrShape, "seed shape %v differs from the result's %v", seed.lay.Shape, t.lay.Shape)
	case seed.DType() != t.DType():
		return nil, errs.New("tensor", op, errs.ErrDType, "seed dtype %v differs from the result's %v", seed.DType(), t.DType())
	case seed.Device() != t.Device():
		return nil, errs.New("tensor", op, errs.ErrDevice, "seed on %s, result on %s", seed.Device().Name(), t.Device().Name())
	}
	return seed.Detach(), nil
}

type leafGrad struct{ t, g *Tensor }

// runBackward walks the graph below root in reverse topological order,
// sending seed back. It returns the gradient of every leaf reached, and
// of each of want (nil for those not reached).
func runBackward(op string, root, seed *Tensor, retain bool, want []*Tensor) ([]leafGrad, []*Tensor, error) {
	order := topoOrder(root)
	if !retain {
		defer func() {
			for _, t := range order {
				if t.ag.fn != nil {
					t.ag.fn.free()
				}
			}
		}()
	}
	grads := map[*Tensor]*Tensor{root: seed}
	var leaves []leafGrad
	wanted := make([]*Tensor, len(want))
	for i := len(order) - 1; i >= 0; i-- {
		t := order[i]
		g := grads[t]
		delete(grads, t)
		if g == nil {
			continue
		}
		for k, w := range want {
			if w == t {
				wanted[k] = g
			}
		}
		fn := t.ag.fn
		if fn == nil {
			leaves = append(leaves, leafGrad{t, g})
			continue
		}
		ins, gs, err := fn.apply(g)
		if err != nil {
			return nil, nil, err
		}
		for j, in := range ins {
			if in == nil || gs[j] == nil {
				continue
			}
			gj := gs[j]
			if gj.err != nil {
				return nil, nil, errs.Retag("tensor", op, gj.err)
			}
			if !slices.Equal(gj.lay.Shape, in.lay.Shape) || gj.DType() != in.DType() {
				return nil, nil, errs.New("tensor", op, errs.ErrShape, "internal: the gradient rule of %s gave %v %v for an input %v %v", fn.op, gj.DType(), gj.lay.Shape, in.DType(), in.lay.Shape)
			}
			if prev := grads[in]; prev != nil {
				gj = prev.Add(gj)
			}
			grads[in] = gj
		}
	}
	return leaves, wanted, nil
}

// topoOrder lists the graph below root (tensors that require grad) in
// post-order: every tensor after all of its inputs. The walk is iterative,
// so a graph of any depth is fine.
func topoOrder(root *Tensor) []*Tensor {
	type frame struct {
		t   *Tensor
		ins []*Tensor
		i   int
	}
	inputs := func(t *Tensor) []*Tensor {
		if t.ag.fn == nil {
			return nil
		}
		return t.ag.fn.inputs()
	}
	seen := map[*Tensor]bool{root: true}
	var order []*Tensor
	stack := []frame{{t: root, ins: inputs(root)}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i < len(f.ins) {
			in := f.ins[f.i]
			f.i++
			if in != nil && in.ag != nil && !seen[in] {
				seen[in] = true
				stack = append(stack, frame{t: in, ins: inputs(in)})
			}
			continue
		}
		order = append(order, f.t)
		stack = stack[:len(stack)-1]
	}
	return order
}

// filled returns a tensor of shape on dev holding v everywhere: one
// element, broadcast (a zero or one gradient costs no memory).
func filled(op string, dev device.Device, dt dtype.DType, v float64, shape []int) *Tensor {
	st, err := newStorage(op, dev, dt, 1)
	if err != nil {
		return failed(err)
	}
	one := layout.Layout{Shape: []int{}, Strides: []int{}}
	if err := dev.Backend().Fill(device.Operand{Buf: st.buf, Layout: one}, v); err != nil {
		st.release()
		return failed(errs.Retag("tensor", op, err))
	}
	l, err := one.BroadcastTo(shape...)
	if err != nil {
		st.release()
		return failed(errs.Retag("tensor", op, err))
	}
	return wrap(st, l)
}

// reshapeGrad records y, a view of t with the same elements in the same
// order (Reshape, Flatten, Squeeze, Unsqueeze, Contiguous): its gradient
// is g reshaped to t's shape.
func (t *Tensor) reshapeGrad(op string, y *Tensor) *Tensor {
	if !t.wantsGrad() {
		return y
	}
	shape := t.lay.Shape
	return gradView(op, t, y, func(g *Tensor) *Tensor { return g.Reshape(shape...) })
}
