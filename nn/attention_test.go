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

// mhaRef is multi-head attention written out in float64 for inputs
// [L, N, E] (query) and [S, N, E] (key, value) in row-major order: the
// projections, per-head softmax(q·kᵀ/sqrt(d) + mask) v, the output
// projection. mask(n, h, i, j) is added to the scores.
func mhaRef(q, k, v, win, bin, wout, bout []float64, l, s, n, e, heads int, mask func(n, h, i, j int) float64) []float64 {
	proj := func(x []float64, rows, blk int) []float64 { // [rows, N, E] -> [rows, N, E]
		y := make([]float64, rows*n*e)
		for r := range rows * n {
			for o := range e {
				acc := bin[blk*e+o]
				for c := range e {
					acc += x[r*e+c] * win[(blk*e+o)*e+c]
				}
				y[r*e+o] = acc
			}
		}
		return y
	}
	qp, kp, vp := proj(q, l, 0), proj(k, s, 1), proj(v, s, 2)
	d := e / heads
	cat := make([]float64, l*n*e)
	for b := range n {
		for h := range heads {
			for i := range l {
				sc := make([]float64, s)
				mx := math.Inf(-1)
				for j := range s {
					acc := 0.0
					for c := range d {
						acc += qp[(i*n+b)*e+h*d+c] * kp[(j*n+b)*e+h*d+c]
					}
					sc[j] = acc/math.Sqrt(float64(d)) + mask(b, h, i, j)
					mx = math.Max(mx, sc[j])
				}
				sum := 0.0
				for j := range sc {
					sc[j] = math.Exp(sc[j] - mx)
					sum += sc[j]
				}
				for c := range d {
					acc := 0.0
					for j := range s {
						acc += sc[j] / sum * vp[(j*n+b)*e+h*d+c]
					}
					cat[(i*n+b)*e+h*d+c] = acc
				}
			}
		}
	}
	out := make([]float64, l*n*e)
	for r := range l * n {
		for o := range e {
			acc := bout[o]
			for c := range e {
				acc += cat[r*e+c] * wout[o*e+c]
			}
			out[r*e+o] = acc
		}
	}
	return out
}

// mhaWithRandomBiases is a float64 layer whose biases are not zero, so
// the test sees them, and its parameter values.
func mhaWithRandomBiases(t *testing.T, e, heads int, opts ...nn.Option) (*nn.MultiheadAttention, [4][]float64) {
	m := nn.NewMultiheadAttention(e, heads, append([]nn.Option{nn.DType(dtype.F64), nn.Seed(3)}, opts...)...)
	bin, binv := randn(t, 21, 3*e)
	bout, boutv := randn(t, 22, e)
	m.InProjBias.Set(bin)
	m.OutProj.Bias.Set(bout)
	return m, [4][]float64{vals(t, m.InProjWeight.Value), binv, vals(t, m.OutProj.Weight.Value), boutv}
}

// TestMultiheadAttentionValues checks self- and cross-attention against
// the formula written out, with each kind of mask (a Bool attn_mask whose
// true entries forbid, a float one added, a key padding mask, causal
// masking), batch-first and unbatched inputs, and PyTorch's state dict
// names.
func TestMultiheadAttentionValues(t *testing.T) {
	const l, s, n, e, heads = 3, 4, 2, 6, 3
	m, p := mhaWithRandomBiases(t, e, heads)
	var names []string
	for _, q := range m.Parameters() {
		names = append(names, q.Name)
	}
	if want := []string{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}; !slices.Equal(names, want) {
		t.Fatalf("parameters %v, want %v", names, want)
	}
	x, xv := randn(t, 30, l, n, e)
	kv, kvv := randn(t, 31, s, n, e)
	none := func(int, int, int, int) float64 { return 0 }
	near(t, "self-attention", vals(t, m.Forward(x)), mhaRef(xv, xv, xv, p[0], p[1], p[2], p[3], l, l, n, e, heads, none), 1e-10, 1e-12)
	near(t, "cross-attention", vals(t, m.Attend(x, kv, kv, nn.AttentionMasks{})), mhaRef(xv, kvv, kvv, p[0], p[1], p[2], p[3], l, s, n, e, heads, none), 1e-10, 1e-12)

	forbid := []bool{false, true, false, false, true, false, false, true, false, false, false, true} // [L, S]
	pad := []bool{false, false, true, false, true, false, false, false}                              // [N, S]
	fm, fmv := randn(t, 32, n*heads, l, s)
	inf := math.Inf(-1)
	masks := nn.AttentionMasks{
		Attn:       tensor.FromSlice(forbid, l, s),
		KeyPadding: tensor.FromSlice(pad, n, s),
	}
	want := mhaRef(xv, kvv, kvv, p[0], p[1], p[2], p[3], l, s, n, e, heads, func(b, h, i, j int) float64 {
		if forbid[i*s+j] || pad[b*s+j] {
			return inf
		}
		return 0
	})
	near(t, "Bool masks", vals(t, m.Attend(x, kv, kv, masks)), want, 1e-10, 1e-12)
	want = mhaRef(xv, kvv, kvv, p[0], p[1], p[2], p[3], l, s, n, e, heads, func(b, h, i, j int) float64 {
		if j > i {
			return inf
		}
		return fmv[((b*heads+h)*l+i)*s+j]
	})
	near(t, "float mask and causal", vals(t, m.Attend(x, kv, kv, nn.AttentionMasks{Attn: fm, Causal: true})), want, 1e-10, 1e-12)

	// Batch first: the same layer on [N, L, E] gives the transposed result.
	bf := *m
	bf.BatchFirst = true
	got := bf.Attend(x.Transpose(0, 1), kv.Transpose(0, 1), kv.Transpose(0, 1), nn.AttentionMasks{})
	near(t, "batch first", vals(t, got.Transpose(0, 1)), vals(t, m.Attend(x, kv, kv, nn.AttentionMasks{})), 0, 1e-12)
	// Unbatched [L, E]: batch 0 alone.
	x0 := x.Narrow(1, 0, 1).Squeeze(1)
	near(t, "unbatched", vals(t, m.Forward(x0)), vals(t, m.Forward(x.Narrow(1, 0, 1)).Squeeze(1)), 0, 1e-12)

	for _, c := range []struct {
		name string
		y    *tensor.Tensor
		kind error
	}{
		{"heads not dividing", nn.NewMultiheadAttention(6, 4).Forward(tensor.Ones(dtype.F32, 2, 1, 6)), errs.ErrShape},
		{"width", m.Forward(tensor.Ones(dtype.F64, 2, 1, 5)), errs.ErrShape},
		{"attn_mask shape", m.Attend(x, kv, kv, nn.AttentionMasks{Attn: tensor.FromSlice(forbid[:8], 2, 4)}), errs.ErrShape},
		{"key padding shape", m.Attend(x, kv, kv, nn.AttentionMasks{KeyPadding: tensor.FromSlice(pad[:4], 1, 4)}), errs.ErrShape},
		{"rank", m.Forward(tensor.Ones(dtype.F64, 6)), errs.ErrShape},
	} {
		if err := c.y.Err(); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
		}
	}
}

// TestMultiheadAttentionGradients checks the parameters' gradients
// against finite differences, with a key padding mask.
func TestMultiheadAttentionGradients(t *testing.T) {
	m, _ := mhaWithRandomBiases(t, 4, 2)
	x, _ := randn(t, 40, 3, 2, 4)
	pad := tensor.FromSlice([]bool{false, false, true, false, false, false}, 2, 3)
	w, _ := randn(t, 41, 3, 2, 4)
	checkGrads(t, "MultiheadAttention", m.Parameters(), func() *tensor.Tensor {
		return m.Attend(x, x, x, nn.AttentionMasks{KeyPadding: pad}).Mul(w).Sum()
	})
}

// TestGPUMatchesCPUAttention runs a batch-first attention layer forward
// and backward on the CPU and the software WebGPU device.
func TestGPUMatchesCPUAttention(t *testing.T) {
	dev := gpu(t)
	m := nn.NewSequential(
		nn.NewMultiheadAttention(8, 2, nn.Seed(5), nn.BatchFirst()),
		nn.Flatten{}, nn.NewLinear(5*8, 4, nn.Seed(6)),
	)
	matchOnDevice(t, m, dev, tensor.RandN(dtype.F32, 7, 3, 5, 8), tensor.FromSlice([]int32{1, 0, 3}, 3))
}
