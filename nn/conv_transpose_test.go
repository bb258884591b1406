package nn_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// TestConvTranspose2dLayer checks the layer's PyTorch initialisation
// (fan_in from the weight [in, out/groups, KH, KW] is out/groups·KH·KW),
// its forward pass against tensor.ConvTranspose2d with its own parameters,
// that the gradient reaches both parameters, and its typed errors.
func TestConvTranspose2dLayer(t *testing.T) {
	opt := tensor.ConvTranspose2dOptions{Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, OutputPadding: [2]int{1, 0}, Groups: 2}
	l := nn.NewConvTranspose2d(64, 8, [2]int{3, 5}, opt, nn.Seed(3), nn.DType(dtype.F64))
	if s := l.Weight.Value.Shape(); fmt.Sprint(s) != "[64 4 3 5]" {
		t.Fatalf("weight %v, want [64 4 3 5]", s)
	}
	if s := l.Bias.Value.Shape(); fmt.Sprint(s) != "[8]" {
		t.Fatalf("bias %v, want [8]", s)
	}
	bound := 1 / math.Sqrt(4*3*5)
	for _, p := range l.Parameters() {
		if _, _, maxAbs := moments(vals(t, p.Value)); maxAbs > bound || maxAbs < 0.8*bound {
			t.Errorf("%s: largest %v, want uniform in ±%v", p.Name, maxAbs, bound)
		}
	}
	x := tensor.Rand(dtype.F64, 7, 2, 64, 3, 4)
	y := l.Forward(x)
	// OH = (3-1)*2 - 2 + 2 + 1 + 1 = 6, OW = (4-1)*2 - 2 + 4 + 0 + 1 = 9.
	if s := y.Shape(); fmt.Sprint(s) != "[2 8 6 9]" {
		t.Fatalf("output %v (%v), want [2 8 6 9]", s, y.Err())
	}
	near(t, "forward", vals(t, y), vals(t, tensor.ConvTranspose2d(x, l.Weight.Value, l.Bias.Value, opt)), 0, 0)
	if err := l.Forward(x).Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	// The bias gradient is the output's element count per channel.
	near(t, "bias grad", vals(t, l.Bias.Grad()), []float64{108, 108, 108, 108, 108, 108, 108, 108}, 1e-12, 0)
	if l.Weight.Grad() == nil {
		t.Error("no weight gradient")
	}
	small := nn.NewConvTranspose2d(2, 4, [2]int{2, 3}, tensor.ConvTranspose2dOptions{Stride: [2]int{2, 1}, Groups: 2}, nn.Seed(5), nn.DType(dtype.F64))
	xs := tensor.Rand(dtype.F64, 8, 2, 2, 3, 2)
	checkGrads(t, "ConvTranspose2d layer", small.Parameters(), func() *tensor.Tensor {
		y := small.Forward(xs)
		return y.Mul(y).Sum()
	})
	f32 := func(shape ...int) *tensor.Tensor { return tensor.Zeros(dtype.F32, shape...) }
	for _, c := range []struct {
		name string
		err  error
		kind error
	}{
		{"channels", nn.NewConvTranspose2d(3, 2, [2]int{3, 3}, tensor.ConvTranspose2dOptions{}).Forward(f32(1, 2, 5, 5)).Err(), tensor.ErrShape},
		{"rank", nn.NewConvTranspose2d(3, 2, [2]int{3, 3}, tensor.ConvTranspose2dOptions{}).Forward(f32(3, 5, 5)).Err(), tensor.ErrShape},
		{"groups", nn.NewConvTranspose2d(3, 2, [2]int{3, 3}, tensor.ConvTranspose2dOptions{Groups: 2}).Forward(f32(1, 3, 5, 5)).Err(), tensor.ErrShape},
		{"zero size", nn.NewConvTranspose2d(0, 2, [2]int{3, 3}, tensor.ConvTranspose2dOptions{}).Forward(f32(1, 0, 5, 5)).Err(), tensor.ErrShape},
		{"output padding", nn.NewConvTranspose2d(1, 1, [2]int{3, 3}, tensor.ConvTranspose2dOptions{OutputPadding: [2]int{1, 1}}).Forward(f32(1, 1, 5, 5)).Err(), tensor.ErrValue},
		{"zero layer", (&nn.ConvTranspose2d{}).Forward(f32(1, 1, 3, 3)).Err(), tensor.ErrValue},
	} {
		if c.err == nil || !errors.Is(c.err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.kind)
		}
	}
}
