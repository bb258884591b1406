// Package nn builds neural networks from tessera tensors: layers that own
// trainable parameters, activations, losses and seeded initialisers.
//
// A Parameter is a mutable slot that holds an immutable tensor. Tensors in
// tessera never change once computed (views share their storage), so a
// training step does not write into a weight: the optimiser computes the
// new value and puts it in the slot with Set. Layers read their parameters'
// current values each time Forward runs, so a model sees every update, and
// tensors computed from an older value keep that value.
//
// The pieces are PyTorch's: layers (Linear, Conv1d, Conv2d, the pools,
// Flatten, Embedding, LayerNorm, GroupNorm, BatchNorm, Upsample,
// MultiheadAttention, the Transformer encoder, LSTM, GRU, Dropout and
// the activations) chained by Sequential, whose parameter and buffer names
// are PyTorch's state-dict keys; the losses (CrossEntropy, NLL, MSE, L1,
// SmoothL1, Huber, BCE, BCEWithLogits); seeded initialisers (Kaiming,
// Xavier) that the layers use for PyTorch's default initialisation; and
// To, StateDict, LoadStateDict, Save and Load for a model's state. Bad
// arguments and inputs give failed tensors carrying typed errors, as
// tensor operations do, so a forward pass is checked once, at its end.
package nn

import (
	"github.com/tessera-go/tessera/tensor"
)

// Parameter is a named, trainable tensor of a module. Value is always a
// leaf that requires grad, so Backward accumulates into it. A Parameter is
// not safe for concurrent mutation: one goroutine trains a model at a time
// (separate models train concurrently without restriction).
type Parameter struct {
	Name  string         // dotted path inside the model, e.g. "0.weight"
	Value *tensor.Tensor // the current value: a leaf that requires grad
}

// NewParameter returns a parameter holding v, detached from any graph and
// marked as requiring grad.
func NewParameter(name string, v *tensor.Tensor) *Parameter {
	return &Parameter{Name: name, Value: v.Detach().RequiresGrad()}
}

// Set replaces the parameter's value with v, detached and marked as
// requiring grad. The gradient accumulated so far stays with the
// parameter, as PyTorch keeps p.grad when p is updated, so a training loop
// clears it with ZeroGrad (the optimisers' ZeroGrad) before the next
// Backward; a v of another shape, dtype or device starts with none.
func (p *Parameter) Set(v *tensor.Tensor) {
	old := p.Value
	p.Value = v.Detach().RequiresGrad()
	if old == nil {
		return
	}
	if g := old.Grad(); g != nil && p.Value.Err() == nil {
		_ = p.Value.SetGrad(g) // refused (and dropped) when it no longer fits
	}
}

// Grad is the gradient accumulated into the current value, or nil.
func (p *Parameter) Grad() *tensor.Tensor { return p.Value.Grad() }

// ZeroGrad clears the accumulated gradient.
func (p *Parameter) ZeroGrad() { p.Value.ZeroGrad() }

// Module is a layer or a model: it maps an input batch to an output and
// exposes the parameters it trains, in a fixed order with unique names.
type Module interface {
	// Forward computes the module's output for x. Errors are sticky in
	// the returned tensor, as with every tensor operation.
	Forward(x *tensor.Tensor) *tensor.Tensor
	// Parameters lists the module's trainable parameters (none for an
	// activation), the same slots on every call.
	Parameters() []*Parameter
}

// Buffer is a named tensor of a module's state that gradients do not
// train: BatchNorm's running statistics and its count of batches. Like a
// parameter it is a slot holding an immutable tensor; the module puts a
// new value in it as it runs. StateDict saves it, LoadStateDict loads it
// and To moves it, but it is not given to an optimiser (PyTorch's
// register_buffer).
type Buffer struct {
	Name  string         // dotted path inside the model, e.g. "1.running_mean"
	Value *tensor.Tensor // the current value, detached
}

// Stateful is a module with buffers (BatchNorm, and containers of such
// modules).
type Stateful interface {
	// Buffers lists the module's buffers, the same slots on every call.
	Buffers() []*Buffer
}

// Buffers lists m's buffers, none when m has none.
func Buffers(m Module) []*Buffer {
	if s, ok := m.(Stateful); ok {
		return s.Buffers()
	}
	return nil
}
