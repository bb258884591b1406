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

// TestConv1dLayer checks Conv1d's shapes, PyTorch's initialisation bound
// (1/sqrt(in/groups·K)), its Forward against tensor.Conv1d, and its
// errors.
func TestConv1dLayer(t *testing.T) {
	l := nn.NewConv1d(4, 6, 3, tensor.Conv2dOptions{Padding: [2]int{1}, Groups: 2}, nn.DType(dtype.F64), nn.Seed(3))
	if s := l.Weight.Value.Shape(); len(s) != 3 || s[0] != 6 || s[1] != 2 || s[2] != 3 {
		t.Fatalf("weight %v", s)
	}
	bound := 1 / math.Sqrt(2*3)
	for _, v := range append(vals(t, l.Weight.Value), vals(t, l.Bias.Value)...) {
		if math.Abs(v) > bound {
			t.Fatalf("initial value %v outside ±%v", v, bound)
		}
	}
	x, _ := randn(t, 4, 2, 4, 7)
	near(t, "Conv1d", vals(t, l.Forward(x)), vals(t, tensor.Conv1d(x, l.Weight.Value, l.Bias.Value, l.Opt)), 0, 0)
	for _, c := range []struct {
		name string
		y    *tensor.Tensor
		kind error
	}{
		{"channels", l.Forward(tensor.Ones(dtype.F64, 2, 3, 7)), errs.ErrShape},
		{"rank", l.Forward(tensor.Ones(dtype.F64, 2, 4, 7, 1)), errs.ErrShape},
		{"groups", nn.NewConv1d(3, 6, 3, tensor.Conv2dOptions{Groups: 2}).Forward(tensor.Ones(dtype.F32, 1, 3, 5)), errs.ErrShape},
		{"zero value", (&nn.Conv1d{}).Forward(x), errs.ErrValue},
	} {
		if err := c.y.Err(); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
		}
	}
}

// TestMoreActivations checks the activation modules against their
// formulas (with PyTorch's defaults for zero fields).
func TestMoreActivations(t *testing.T) {
	xv := []float64{-3, -0.5, 0, 0.7, 2.5}
	x := tensor.FromSlice(xv, 5)
	softplus := func(v float64) float64 { return math.Log1p(math.Exp(v)) }
	for _, c := range []struct {
		name string
		m    nn.Module
		f    func(float64) float64
	}{
		{"LeakyReLU default", nn.LeakyReLU{}, func(v float64) float64 { return math.Max(v, 0.01*v) }},
		{"LeakyReLU 0.2", nn.LeakyReLU{Slope: 0.2}, func(v float64) float64 { return math.Max(v, 0.2*v) }},
		{"ELU default", nn.ELU{}, func(v float64) float64 {
			if v > 0 {
				return v
			}
			return math.Expm1(v)
		}},
		{"Softplus", nn.Softplus{}, softplus},
		{"Mish", nn.Mish{}, func(v float64) float64 { return v * math.Tanh(softplus(v)) }},
		{"Hardswish", nn.Hardswish{}, func(v float64) float64 { return v * math.Min(math.Max(v+3, 0), 6) / 6 }},
		{"Identity", nn.Identity{}, func(v float64) float64 { return v }},
	} {
		want := make([]float64, len(xv))
		for i, v := range xv {
			want[i] = c.f(v)
		}
		near(t, c.name, vals(t, c.m.Forward(x)), want, 1e-12, 1e-14)
	}
	sum := 0.0
	for _, v := range xv {
		sum += math.Exp(v)
	}
	want := make([]float64, len(xv))
	for i, v := range xv {
		want[i] = math.Exp(v) / sum
	}
	near(t, "Softmax", vals(t, nn.Softmax{}.Forward(x)), want, 1e-12, 1e-14)
	for i := range want {
		want[i] = math.Log(want[i])
	}
	near(t, "LogSoftmax", vals(t, nn.LogSoftmax{Axis: -1}.Forward(x)), want, 1e-12, 1e-14)
}
