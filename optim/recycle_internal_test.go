package optim

import (
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// TestStateBuffersRecycled: from the second step on, an update's net new
// device memory is at most the new parameter value (the old value is left
// to the collector, since user code may hold it): the state buffers it
// replaces are freed during the step itself, not at the next collection.
func TestStateBuffersRecycled(t *testing.T) {
	const n = 100_000
	be := device.CPU().Backend()
	makers := map[string]func([]*nn.Parameter) (interface{ update(update) error }, error){
		"SGD/momentum": func(ps []*nn.Parameter) (interface{ update(update) error }, error) {
			return NewSGD(ps, 0.1, SGDOptions{Momentum: 0.9, WeightDecay: 0.1, Nesterov: true})
		},
		"AdamW/amsgrad": func(ps []*nn.Parameter) (interface{ update(update) error }, error) {
			o := DefaultAdam()
			o.AMSGrad, o.WeightDecay, o.Maximize = true, 0.1, true
			return NewAdamW(ps, 0.1, o)
		},
		"RMSprop/centered-momentum": func(ps []*nn.Parameter) (interface{ update(update) error }, error) {
			o := DefaultRMSprop()
			o.Centered, o.Momentum, o.WeightDecay = true, 0.9, 0.1
			return NewRMSprop(ps, 0.1, o)
		},
	}
	for name, mk := range makers {
		p := nn.NewParameter("p", tensor.RandN(dtype.F32, 1, n))
		g := tensor.RandN(dtype.F32, 2, n)
		if err := g.Err(); err != nil {
			t.Fatal(err)
		}
		o, err := mk([]*nn.Parameter{p})
		if err != nil {
			t.Fatal(err)
		}
		for step := range 5 {
			before := be.MemoryInUse()
			if err := o.update(update{i: 0, p: p, w: p.Value.Detach(), g: g}); err != nil {
				t.Fatal(err)
			}
			grew := be.MemoryInUse() - before
			if step >= 2 && grew > 4*n {
				t.Errorf("%s: step %d: memory in use grew by %d bytes, want at most one value (%d)", name, step, grew, 4*n)
			}
		}
	}
}
