package optim_test

import (
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

// TestAdamStateDictKeepsValues: Adam's moments may be updated over their
// own storage (tensor.FusedAdam), but a state dict taken between steps
// shares that storage and must keep the values it had when taken, as must
// a gradient the caller still holds; and the steps after it must equal
// those of an optimiser no one looked into.
func TestAdamStateDictKeepsValues(t *testing.T) {
	run := func(peek bool) ([]float32, []float32) {
		p := nn.NewParameter("w", tensor.RandN(dtype.F32, 1, 64, 600)) // above the CPU's parallel split
		o, err := optim.NewAdam([]*nn.Parameter{p}, 1e-2, optim.DefaultAdam())
		if err != nil {
			t.Fatal(err)
		}
		target := tensor.RandN(dtype.F32, 2, 64, 600)
		var snap []float32
		var sd map[string]*tensor.Tensor
		for step := range 5 {
			if err := p.Value.Sub(target).Square().Mean().Backward(); err != nil {
				t.Fatal(err)
			}
			if err := o.Step(); err != nil {
				t.Fatal(err)
			}
			if peek && step == 2 {
				sd = o.StateDict()
				if snap, err = tensor.ToSlice[float32](sd["0.exp_avg"]); err != nil {
					t.Fatal(err)
				}
			}
		}
		if peek {
			later, err := tensor.ToSlice[float32](sd["0.exp_avg"])
			if err != nil {
				t.Fatal(err)
			}
			for i := range snap {
				if later[i] != snap[i] {
					t.Fatalf("state dict entry changed at %d after later steps: %v, was %v", i, later[i], snap[i])
				}
			}
		}
		w, err := tensor.ToSlice[float32](p.Value)
		if err != nil {
			t.Fatal(err)
		}
		return w, snap
	}
	plain, _ := run(false)
	peeked, _ := run(true)
	for i := range plain {
		if plain[i] != peeked[i] {
			t.Fatalf("value %d differs after taking a state dict: %v vs %v", i, peeked[i], plain[i])
		}
	}
}
