package nn

import (
	"strconv"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// Trainer is a module whose computation differs between training and
// evaluation (Dropout, and containers of such modules). PyTorch calls
// the switch model.train() and model.eval().
type Trainer interface {
	// SetTraining selects training (true) or evaluation (false) mode.
	SetTraining(on bool)
}

// SetTraining puts m in training (on) or evaluation mode when m has a
// mode, and does nothing otherwise. Sequential passes it to its layers.
func SetTraining(m Module, on bool) {
	if t, ok := m.(Trainer); ok {
		t.SetTraining(on)
	}
}

// Sequential chains modules: its Forward feeds x through each in order.
// Its parameters and buffers are its layers', renamed by position as
// PyTorch's state_dict keys are: "0.weight", "0.bias", "2.weight",
// "3.running_mean", … (nested Sequentials give "1.0.weight"). A module
// belongs to one Sequential: adding it to a second would prefix its names
// again.
type Sequential struct {
	layers []Module
}

var (
	_ Module   = (*Sequential)(nil)
	_ Trainer  = (*Sequential)(nil)
	_ Trainer  = (*Dropout)(nil)
	_ Trainer  = (*BatchNorm)(nil)
	_ Stateful = (*Sequential)(nil)
	_ Stateful = (*BatchNorm)(nil)
)

// NewSequential returns the chain of layers, naming their parameters and
// buffers by position.
func NewSequential(layers ...Module) *Sequential {
	for i, l := range layers {
		if l == nil {
			continue // Forward reports it
		}
		for _, p := range l.Parameters() {
			p.Name = prefixed(i, p.Name)
		}
		for _, b := range Buffers(l) {
			b.Name = prefixed(i, b.Name)
		}
	}
	return &Sequential{layers: append([]Module(nil), layers...)}
}

// prefixed is name inside the layer at position i of a Sequential.
func prefixed(i int, name string) string {
	if name == "" {
		return strconv.Itoa(i)
	}
	return strconv.Itoa(i) + "." + name
}

// Layers returns the chained modules, in order (a copy of the list).
func (s *Sequential) Layers() []Module { return append([]Module(nil), s.layers...) }

// Forward applies the layers in order.
func (s *Sequential) Forward(x *tensor.Tensor) *tensor.Tensor {
	for i, l := range s.layers {
		if l == nil {
			return fail("Sequential", errs.ErrValue, "layer %d is nil", i)
		}
		x = l.Forward(x)
	}
	return x
}

// Parameters lists the layers' parameters in layer order.
func (s *Sequential) Parameters() []*Parameter {
	var ps []*Parameter
	for _, l := range s.layers {
		if l != nil {
			ps = append(ps, l.Parameters()...)
		}
	}
	return ps
}

// Buffers lists the layers' buffers in layer order.
func (s *Sequential) Buffers() []*Buffer {
	var bs []*Buffer
	for _, l := range s.layers {
		if l != nil {
			bs = append(bs, Buffers(l)...)
		}
	}
	return bs
}

// SetTraining sets the mode of every layer that has one.
func (s *Sequential) SetTraining(on bool) {
	for _, l := range s.layers {
		SetTraining(l, on)
	}
}
