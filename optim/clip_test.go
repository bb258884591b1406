package optim_test

import (
	"errors"
	"math"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

// withGrads returns two parameters on dev whose gradients are g1 and g2,
// and a third without one.
func withGrads(t *testing.T, dev device.Device, g1, g2 []float64) []*nn.Parameter {
	t.Helper()
	var ps []*nn.Parameter
	for i, g := range [][]float64{g1, g2, nil} {
		n := max(len(g), 1)
		p := nn.NewParameter(string(rune('a'+i)), tensor.Zeros(dtype.F32, n).To(dev))
		if g != nil {
			if err := p.Value.SetGrad(onDevice(t, dev, dtype.F32, g, n)); err != nil {
				t.Fatal(err)
			}
		}
		ps = append(ps, p)
	}
	return ps
}

// TestClipGradNorm checks PyTorch's clip_grad_norm_ rule on every device:
// the 2-norm, the 1-norm and the largest element over two gradients, the
// scale min(1, max/(norm+1e-6)) applied to both, gradients under the
// bound left as they were, a parameter without a gradient skipped, and a
// non-finite norm reported or left.
func TestClipGradNorm(t *testing.T) {
	g1, g2 := []float64{3, 0}, []float64{0, 4, 0}
	for _, dev := range testDevices(t) {
		for _, c := range []struct {
			norm, max, total float64
		}{{2, 1, 5}, {1, 14, 7}, {math.Inf(1), 2, 4}, {2, 10, 5}} {
			ps := withGrads(t, dev, g1, g2)
			total, err := optim.ClipGradNorm(ps, c.max, c.norm, false)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "total norm on "+dev.Name(), values(t, total), []float64{c.total}, tol{1e-6, 1e-6})
			s := math.Min(1, c.max/(c.total+1e-6))
			closeTo(t, "first gradient", values(t, ps[0].Grad()), []float64{3 * s, 0}, tol{1e-6, 1e-7})
			closeTo(t, "second gradient", values(t, ps[1].Grad()), []float64{0, 4 * s, 0}, tol{1e-6, 1e-7})
			if ps[2].Grad() != nil {
				t.Errorf("a parameter without a gradient got one")
			}
		}
		ps := withGrads(t, dev, []float64{math.Inf(1), 1}, g2)
		if _, err := optim.ClipGradNorm(ps, 1, 2, true); !errors.Is(err, errs.ErrValue) {
			t.Errorf("non-finite norm with errorIfNonfinite: %v, want ErrValue", err)
		}
		if total, err := optim.ClipGradNorm(ps, 1, 2, false); err != nil || !math.IsInf(values(t, total)[0], 1) {
			t.Errorf("non-finite norm: %v, %v", total, err)
		}
		closeTo(t, "gradients left with a non-finite norm", values(t, ps[1].Grad()), g2, tol{0, 0})
	}
	if _, err := optim.ClipGradNorm(nil, -1, 2, false); !errors.Is(err, errs.ErrValue) {
		t.Errorf("negative maxNorm: %v", err)
	}
	if total, err := optim.ClipGradNorm([]*nn.Parameter{nn.NewParameter("x", tensor.Zeros(dtype.F32, 2))}, 1, 2, false); total != nil || err != nil {
		t.Errorf("no gradients: %v, %v", total, err)
	}
}

// TestClipGradValue checks that every gradient element is clamped.
func TestClipGradValue(t *testing.T) {
	for _, dev := range testDevices(t) {
		ps := withGrads(t, dev, []float64{-3, 0.5}, []float64{2, -0.25, 9})
		if err := optim.ClipGradValue(ps, 1); err != nil {
			t.Fatal(err)
		}
		closeTo(t, "clamped on "+dev.Name(), values(t, ps[0].Grad()), []float64{-1, 0.5}, tol{0, 0})
		closeTo(t, "clamped on "+dev.Name(), values(t, ps[1].Grad()), []float64{1, -0.25, 1}, tol{0, 0})
	}
	if err := optim.ClipGradValue(nil, math.NaN()); !errors.Is(err, errs.ErrValue) {
		t.Errorf("NaN clip: %v", err)
	}
}

// TestClipNilParameter checks that a nil parameter is an ErrValue and that
// no gradient changes before it is found.
func TestClipNilParameter(t *testing.T) {
	ps := withGrads(t, device.CPU(), []float64{3, 4}, []float64{1})
	ps = append(ps, nil)
	if _, err := optim.ClipGradNorm(ps, 1, 2, false); !errors.Is(err, errs.ErrValue) {
		t.Errorf("ClipGradNorm: %v, want ErrValue", err)
	}
	if err := optim.ClipGradValue(ps, 1); !errors.Is(err, errs.ErrValue) {
		t.Errorf("ClipGradValue: %v, want ErrValue", err)
	}
	closeTo(t, "gradient kept", values(t, ps[0].Grad()), []float64{3, 4}, tol{0, 0})
}
