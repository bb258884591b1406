package optim_test

import (
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

// mlp is the golden's model written with raw tensor operations: a 2-layer
// MLP in PyTorch's Linear convention (y = x·Wᵀ + b) with ReLU, and the
// mean cross-entropy of its logits against integer labels.
type mlp struct {
	params []*nn.Parameter // W1, b1, W2, b2
	x      *tensor.Tensor  // [batch, in]
	onehot *tensor.Tensor  // [batch, classes], built from the labels
}

var mlpNames = []string{"W1", "b1", "W2", "b2"}

func newMLP(t *testing.T, g map[string]*tensor.Tensor, dev device.Device, dt dtype.DType) *mlp {
	t.Helper()
	m := &mlp{x: g["x"].Cast(dt).To(dev)}
	for _, n := range mlpNames {
		m.params = append(m.params, nn.NewParameter(n, g[n].Cast(dt).To(dev)))
	}
	// One-hot labels through a comparison against Arange: [batch, 1] == [classes].
	classes := g["b2"].Shape()[0]
	labels := g["y"].Cast(dtype.I32).To(dev).Unsqueeze(1)
	m.onehot = labels.Eq(tensor.Arange(dtype.I32, 0, float64(classes), 1).To(dev)).Cast(dt)
	if err := m.onehot.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *mlp) loss() *tensor.Tensor {
	w1, b1, w2, b2 := m.params[0].Value, m.params[1].Value, m.params[2].Value, m.params[3].Value
	h := m.x.Matmul(w1.T()).Add(b1).Relu()
	logp := h.Matmul(w2.T()).Add(b2).LogSoftmax(-1)
	return logp.Mul(m.onehot).Sum(1).Mean().Neg()
}

// TestMLPAdamGolden checks, against testdata/mlp_adam.npz (made by
// testdata/gen_mlp_adam.py in float64 NumPy), the loss and every gradient
// of the MLP, and the parameters and losses of 3 Adam and 3 AdamW steps:
// in f64 on the CPU to 1e-12, in f32 on every device to f32 tolerance.
func TestMLPAdamGolden(t *testing.T) {
	g, err := tensor.LoadNPZ(filepath.Join("..", "testdata", "mlp_adam.npz"))
	if err != nil {
		t.Fatal(err)
	}
	gold := func(name string) []float64 {
		t.Helper()
		x, ok := g[name]
		if !ok {
			t.Fatalf("golden has no %q", name)
		}
		return values(t, x)
	}
	hyper := gold("hyper")
	lr, o := hyper[0], optim.AdamOptions{Beta1: hyper[1], Beta2: hyper[2], Eps: hyper[3]}
	for _, dc := range ruleCases(t) {
		dev, dt := dc.dev, dc.dt
		tl := tolFor(dt)
		if dt == dtype.F32 {
			tl = tol{1e-5, 1e-6} // a forward and backward pass through two matmuls and a softmax (measured: within 1e-6, 1e-7)
		}
		t.Run(dev.Name()+"/"+dt.String(), func(t *testing.T) {
			m := newMLP(t, g, dev, dt)
			loss := m.loss()
			if err := loss.Backward(); err != nil {
				t.Fatal(err)
			}
			closeTo(t, "loss", values(t, loss), gold("loss0"), tl)
			for _, p := range m.params {
				closeTo(t, "grad "+p.Name, values(t, p.Grad()), gold("g"+p.Name), tl)
			}
			for _, run := range []struct {
				prefix string
				wd     float64
				make   func([]*nn.Parameter, float64, optim.AdamOptions) (*optim.Adam, error)
			}{{"adam", hyper[4], optim.NewAdam}, {"adamw", hyper[5], optim.NewAdamW}} {
				m := newMLP(t, g, dev, dt)
				oo := o
				oo.WeightDecay = run.wd
				opt, err := run.make(m.params, lr, oo)
				if err != nil {
					t.Fatal(err)
				}
				var losses []float64
				for range 3 {
					loss := m.loss()
					if err := loss.Backward(); err != nil {
						t.Fatal(err)
					}
					v, err := loss.Item()
					if err != nil {
						t.Fatal(err)
					}
					losses = append(losses, v)
					if err := opt.Step(); err != nil {
						t.Fatal(err)
					}
					opt.ZeroGrad()
				}
				closeTo(t, run.prefix+" losses", losses, gold(run.prefix+"_loss"), tl)
				for _, p := range m.params {
					closeTo(t, run.prefix+" "+p.Name, values(t, p.Value), gold(run.prefix+"_"+p.Name), tl)
				}
			}
		})
	}
}
