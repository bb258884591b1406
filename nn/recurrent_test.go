package nn_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// matVec returns w·v + b for w [rows, len(v)] row-major (b may be nil).
func matVec(w, v, b []float64) []float64 {
	out := make([]float64, len(w)/len(v))
	for r := range out {
		acc := 0.0
		if b != nil {
			acc = b[r]
		}
		for c, x := range v {
			acc += w[r*len(v)+c] * x
		}
		out[r] = acc
	}
	return out
}

// recurrentRef runs a stacked LSTM (gates 4) or GRU (gates 3) over x
// [T, N, in] in float64 with the layers' weights, from zero states, and
// returns the output [T, N, H] and the final h of each layer.
func recurrentRef(t *testing.T, ps []*nn.Parameter, gates, layers, hid int, x []float64, steps, n, in int) ([]float64, []float64) {
	w := func(i int) []float64 { return vals(t, ps[i].Value) }
	seq, width := x, in
	var finals []float64
	for l := range layers {
		wih, whh, bih, bhh := w(4*l), w(4*l+1), w(4*l+2), w(4*l+3)
		out := make([]float64, steps*n*hid)
		for b := range n {
			h, c := make([]float64, hid), make([]float64, hid)
			for s := range steps {
				xi := seq[(s*n+b)*width : (s*n+b+1)*width]
				gx, gh := matVec(wih, xi, bih), matVec(whh, h, bhh)
				nh := make([]float64, hid)
				for k := range hid {
					if gates == 4 {
						i, f := sigmoid(gx[k]+gh[k]), sigmoid(gx[hid+k]+gh[hid+k])
						g, o := math.Tanh(gx[2*hid+k]+gh[2*hid+k]), sigmoid(gx[3*hid+k]+gh[3*hid+k])
						c[k] = f*c[k] + i*g
						nh[k] = o * math.Tanh(c[k])
					} else {
						r, z := sigmoid(gx[k]+gh[k]), sigmoid(gx[hid+k]+gh[hid+k])
						cand := math.Tanh(gx[2*hid+k] + r*gh[2*hid+k])
						nh[k] = (1-z)*cand + z*h[k]
					}
				}
				h = nh
				copy(out[(s*n+b)*hid:], h)
			}
			finals = append(finals, h...) // [layers, N, H]
		}
		seq, width = out, hid
	}
	return seq, finals
}

// recurrentCase is a recurrent layer, its gate count and its Run giving
// the output and the final h.
type recurrentCase struct {
	name  string
	gates int
	m     nn.Module
	run   func(x *tensor.Tensor) (y, hn *tensor.Tensor)
}

// TestRecurrentValues checks two-layer LSTM and GRU layers against the
// cells written out, PyTorch's parameter names and shapes, the final
// states, batch-first and unbatched inputs, and the gradients against
// finite differences.
func TestRecurrentValues(t *testing.T) {
	const steps, n, in, hid = 4, 2, 3, 5
	x, xv := randn(t, 90, steps, n, in)
	lstm, gru := nn.NewLSTM(in, hid, 2, nn.DType(dtype.F64), nn.Seed(4)), nn.NewGRU(in, hid, 2, nn.DType(dtype.F64), nn.Seed(5))
	for _, c := range []recurrentCase{
		{"LSTM", 4, lstm, func(x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) { y, h, _ := lstm.Run(x, nil, nil); return y, h }},
		{"GRU", 3, gru, func(x *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) { return gru.Run(x, nil) }},
	} {
		ps := c.m.Parameters()
		var names []string
		for _, p := range ps {
			names = append(names, p.Name)
		}
		want := []string{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1"}
		if !slices.Equal(names, want) {
			t.Fatalf("%s: parameters %v, want %v", c.name, names, want)
		}
		if s := ps[4].Value.Shape(); !slices.Equal(s, []int{c.gates * hid, hid}) {
			t.Errorf("%s: weight_ih_l1 is %v", c.name, s)
		}
		wantY, wantH := recurrentRef(t, ps, c.gates, 2, hid, xv, steps, n, in)
		y, h := c.run(x)
		near(t, c.name+" output", vals(t, y), wantY, 1e-10, 1e-12)
		near(t, c.name+" final states", vals(t, h), wantH, 1e-10, 1e-12)
		// Unbatched: sample 0 alone.
		y0, _ := c.run(x.Narrow(1, 0, 1).Squeeze(1))
		near(t, c.name+" unbatched", vals(t, y0), vals(t, y.Narrow(1, 0, 1).Squeeze(1)), 0, 1e-12)
		w, _ := randn(t, 91, steps, n, hid)
		checkGrads(t, c.name, ps, func() *tensor.Tensor { y, _ := c.run(x); return y.Mul(w).Sum() })
	}

	bf := nn.NewLSTM(in, hid, 1, nn.DType(dtype.F64), nn.Seed(4), nn.BatchFirst())
	tf := nn.NewLSTM(in, hid, 1, nn.DType(dtype.F64), nn.Seed(4))
	near(t, "batch first", vals(t, bf.Forward(x.Transpose(0, 1)).Transpose(0, 1)), vals(t, tf.Forward(x)), 0, 0)

	plain := nn.NewLSTM(in, hid, 2)
	for _, e := range []struct {
		name string
		y    *tensor.Tensor
		kind error
	}{
		{"width", plain.Forward(tensor.Ones(dtype.F32, 4, 2, 7)), errs.ErrShape},
		{"rank", plain.Forward(tensor.Ones(dtype.F32, 4)), errs.ErrShape},
		{"h0 shape", first(plain.Run(tensor.Ones(dtype.F32, 4, 2, in), tensor.Zeros(dtype.F32, 1, 2, hid), nil)), errs.ErrShape},
		{"sizes", nn.NewGRU(0, 3, 1).Forward(tensor.Ones(dtype.F32, 4, 2, 1)), errs.ErrShape},
		{"zero value", (&nn.GRU{}).Forward(tensor.Ones(dtype.F32, 4, 2, 1)), errs.ErrValue},
	} {
		if err := e.y.Err(); !errors.Is(err, e.kind) {
			t.Errorf("%s: %v, want %v", e.name, err, e.kind)
		}
	}
}

func first(y, _, _ *tensor.Tensor) *tensor.Tensor { return y }

// TestGPUMatchesCPURecurrent trains a GRU-and-LSTM model one step on the
// CPU and the software WebGPU device.
func TestGPUMatchesCPURecurrent(t *testing.T) {
	dev := gpu(t)
	m := nn.NewSequential(nn.NewGRU(3, 4, 1, nn.Seed(1), nn.BatchFirst()), nn.NewLSTM(4, 4, 2, nn.Seed(2), nn.BatchFirst()), nn.Flatten{}, nn.NewLinear(5*4, 3, nn.Seed(3)))
	matchOnDevice(t, m, dev, tensor.RandN(dtype.F32, 8, 2, 5, 3), tensor.FromSlice([]int32{2, 0}, 2))
}
