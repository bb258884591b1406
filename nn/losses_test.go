package nn_test

import (
	"errors"
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// elementLoss is an elementwise loss and its per-element formula.
type elementLoss struct {
	name string
	f    func(p, y *tensor.Tensor) *tensor.Tensor
	ref  func(p, y float64) float64
}

func elementLosses() []elementLoss {
	return []elementLoss{
		{"L1", nn.L1, func(p, y float64) float64 { return math.Abs(p - y) }},
		{"SmoothL1/beta0.7", func(p, y *tensor.Tensor) *tensor.Tensor { return nn.SmoothL1(p, y, 0.7) }, func(p, y float64) float64 {
			if d := math.Abs(p - y); d < 0.7 {
				return 0.5 * d * d / 0.7
			} else {
				return d - 0.35
			}
		}},
		{"Huber/delta0.7", func(p, y *tensor.Tensor) *tensor.Tensor { return nn.Huber(p, y, 0.7) }, func(p, y float64) float64 {
			if d := math.Abs(p - y); d <= 0.7 {
				return 0.5 * d * d
			} else {
				return 0.7 * (d - 0.35)
			}
		}},
		{"BCEWithLogits", nn.BCEWithLogits, func(x, y float64) float64 {
			s := 1 / (1 + math.Exp(-x))
			return -(y*math.Log(s) + (1-y)*math.Log(1-s))
		}},
	}
}

// TestElementLosses checks the elementwise losses against their formulas
// in float64, their gradients against finite differences, and their
// float32 values on the GPU against the CPU.
func TestElementLosses(t *testing.T) {
	pv := []float64{-2.5, -0.3, 0, 0.4, 1.2, 3}
	yv := []float64{-1, 0.1, 0.9, 0.2, 0, 1}
	for _, l := range elementLosses() {
		want := 0.0
		for i := range pv {
			want += l.ref(pv[i], yv[i]) / float64(len(pv))
		}
		p := tensor.FromSlice(pv, 2, 3)
		y := tensor.FromSlice(yv, 2, 3)
		near(t, l.name, vals(t, l.f(p, y)), []float64{want}, 1e-12, 1e-14)
		param := nn.NewParameter("p", p)
		checkGrads(t, l.name, []*nn.Parameter{param}, func() *tensor.Tensor { return l.f(param.Value, y) })
		for _, dev := range testDevices(t) {
			p32, y32 := p.Cast(dtype.F32).To(dev), y.Cast(dtype.F32).To(dev)
			near(t, l.name+" on "+dev.Name(), vals(t, l.f(p32, y32)), []float64{want}, 1e-5, 1e-6)
		}
	}
}

// TestBCE checks binary cross-entropy against its formula, PyTorch's
// clamp of the logarithms at -100 where p is 0 or 1 (finite loss and
// gradient), and that BCEWithLogits stays finite for huge logits.
func TestBCE(t *testing.T) {
	pv := []float64{0.1, 0.5, 0.99, 0.3}
	yv := []float64{0, 1, 1, 0.25}
	want := 0.0
	for i := range pv {
		want -= (yv[i]*math.Log(pv[i]) + (1-yv[i])*math.Log(1-pv[i])) / 4
	}
	near(t, "BCE", vals(t, nn.BCE(tensor.FromSlice(pv, 4), tensor.FromSlice(yv, 4))), []float64{want}, 1e-12, 1e-14)
	param := nn.NewParameter("p", tensor.FromSlice(pv, 4))
	checkGrads(t, "BCE", []*nn.Parameter{param}, func() *tensor.Tensor { return nn.BCE(param.Value, tensor.FromSlice(yv, 4)) })

	for _, dev := range testDevices(t) {
		p := tensor.FromSlice([]float32{0, 1, 1}, 3).To(dev).RequiresGrad()
		y := tensor.FromSlice([]float32{1, 0, 1}, 3).To(dev)
		loss := nn.BCE(p, y)
		// -(1·max(log 0, -100)) and -(1·max(log 0, -100)) and 0, over 3
		near(t, "BCE at 0 and 1 on "+dev.Name(), vals(t, loss), []float64{200.0 / 3}, 1e-6, 1e-6)
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		for i, g := range vals(t, p.Grad()) {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				t.Errorf("BCE gradient %d on %s is %v", i, dev.Name(), g)
			}
		}
		big := nn.BCEWithLogits(tensor.FromSlice([]float32{-200, 200}, 2).To(dev), tensor.FromSlice([]float32{1, 0}, 2).To(dev))
		near(t, "BCEWithLogits of huge logits on "+dev.Name(), vals(t, big), []float64{200}, 1e-6, 0)
	}
}

// TestNLL checks NLL against CrossEntropy on log-softmax outputs, its
// gradient, and its errors.
func TestNLL(t *testing.T) {
	logits, _ := randn(t, 70, 4, 3)
	labels := tensor.FromSlice([]int32{2, 0, 1, 2}, 4)
	near(t, "NLL of LogSoftmax", vals(t, nn.NLL(logits.LogSoftmax(1), labels)), vals(t, nn.CrossEntropy(logits, labels)), 1e-12, 1e-14)
	param := nn.NewParameter("logp", logits)
	checkGrads(t, "NLL", []*nn.Parameter{param}, func() *tensor.Tensor { return nn.NLL(param.Value, labels) })
	for _, c := range []struct {
		name string
		y    *tensor.Tensor
		kind error
	}{
		{"float labels", nn.NLL(logits, labels.Cast(dtype.F64)), errs.ErrDType},
		{"shape", nn.NLL(logits, labels.Narrow(0, 0, 3)), errs.ErrShape},
		{"label out of range", nn.NLL(logits, tensor.FromSlice([]int32{3, 0, 0, 0}, 4)), errs.ErrAxis},
		{"L1 shapes", nn.L1(logits, logits.T()), errs.ErrShape},
		{"SmoothL1 negative beta", nn.SmoothL1(logits, logits, -1), errs.ErrValue},
		{"Huber zero delta", nn.Huber(logits, logits, 0), errs.ErrValue},
		{"BCE dtypes", nn.BCE(logits, logits.Cast(dtype.F32)), errs.ErrDType},
	} {
		if err := c.y.Err(); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
		}
	}
}
