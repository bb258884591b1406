package nn_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// TestTransformerEncoderLayer checks PyTorch's parameter names, the two
// orders of normalisation against the sub-layers composed by hand in
// evaluation mode, that training mode drops (the same way for the same
// seed), and the parameters' gradients against finite differences.
func TestTransformerEncoderLayer(t *testing.T) {
	o := nn.TransformerOptions{FeedForward: 5, Dropout: 0.25, Activation: nn.GELU{}}
	l := nn.NewTransformerEncoderLayer(4, 2, o, nn.DType(dtype.F64), nn.Seed(8))
	var names []string
	for _, p := range l.Parameters() {
		names = append(names, p.Name)
	}
	want := []string{"self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
		"linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"}
	if !slices.Equal(names, want) {
		t.Fatalf("parameters %v, want %v", names, want)
	}
	// Non-trivial norms, so the test sees them.
	for i, p := range []*nn.Parameter{l.Norm1.Weight, l.Norm1.Bias, l.Norm2.Weight, l.Norm2.Bias} {
		v, _ := randn(t, uint64(50+i), 4)
		p.Set(v)
	}
	x, _ := randn(t, 60, 3, 2, 4)
	pad := tensor.FromSlice([]bool{false, true, false, false, false, false}, 2, 3)
	masks := nn.AttentionMasks{KeyPadding: pad}
	ff := func(y *tensor.Tensor) *tensor.Tensor {
		return l.Linear2.Forward(l.Activation.Forward(l.Linear1.Forward(y)))
	}
	att := func(y *tensor.Tensor) *tensor.Tensor { return l.SelfAttn.Attend(y, y, y, masks) }
	nn.SetTraining(l, false)
	h := l.Norm1.Forward(x.Add(att(x)))
	near(t, "post-norm", vals(t, l.Encode(x, masks)), vals(t, l.Norm2.Forward(h.Add(ff(h)))), 1e-12, 1e-12)
	l.NormFirst = true
	h = x.Add(att(l.Norm1.Forward(x)))
	near(t, "pre-norm", vals(t, l.Encode(x, masks)), vals(t, h.Add(ff(l.Norm2.Forward(h)))), 1e-12, 1e-12)
	l.NormFirst = false

	// Training mode drops: two layers of one seed agree, evaluation differs.
	a := nn.NewTransformerEncoderLayer(4, 2, o, nn.DType(dtype.F64), nn.Seed(8))
	b := nn.NewTransformerEncoderLayer(4, 2, o, nn.DType(dtype.F64), nn.Seed(8))
	ya, yb := vals(t, a.Forward(x)), vals(t, b.Forward(x))
	near(t, "training mode, same seed", ya, yb, 0, 0)
	nn.SetTraining(a, false)
	if slices.Equal(ya, vals(t, a.Forward(x))) {
		t.Error("training and evaluation mode gave the same output: no dropout happened")
	}

	w, _ := randn(t, 61, 3, 2, 4)
	g := nn.NewTransformerEncoderLayer(4, 2, nn.TransformerOptions{FeedForward: 3}, nn.DType(dtype.F64), nn.Seed(9))
	checkGrads(t, "TransformerEncoderLayer", g.Parameters(), func() *tensor.Tensor {
		return g.Encode(x, nn.AttentionMasks{Causal: true}).Mul(w).Sum()
	})
}

// TestGPUMatchesCPUTransformer runs a batch-first encoder layer (in
// evaluation mode) forward and backward on the CPU and the software
// WebGPU device.
func TestGPUMatchesCPUTransformer(t *testing.T) {
	dev := gpu(t)
	enc := nn.NewTransformerEncoderLayer(8, 2, nn.TransformerOptions{FeedForward: 16, NormFirst: true}, nn.Seed(3), nn.BatchFirst())
	nn.SetTraining(enc, false)
	m := nn.NewSequential(enc, nn.Flatten{}, nn.NewLinear(5*8, 4, nn.Seed(4)))
	matchOnDevice(t, m, dev, tensor.RandN(dtype.F32, 7, 3, 5, 8), tensor.FromSlice([]int32{1, 0, 3}, 3))
}

// TestNewLayersRefuseBadUse checks that the attention, transformer and
// normalisation layers report a zero value, a nil input or a wrong shape
// as an error, and that their Parameters, Buffers and StateDict work on
// zero values, without a panic.
func TestNewLayersRefuseBadUse(t *testing.T) {
	var none *tensor.Tensor
	for _, m := range []nn.Module{
		&nn.BatchNorm{}, &nn.GroupNorm{}, &nn.MultiheadAttention{}, &nn.TransformerEncoderLayer{}, nn.Upsample{},
		nn.NewBatchNorm1d(2), nn.NewGroupNorm(1, 2), nn.NewMultiheadAttention(4, 2), nn.NewTransformerEncoderLayer(4, 2, nn.DefaultTransformer()),
	} {
		for _, x := range []*tensor.Tensor{none, tensor.Ones(dtype.F32, 2, 3)} {
			if err := m.Forward(x).Err(); err == nil {
				t.Errorf("%T on %v: no error", m, x)
			}
		}
		_ = m.Parameters()
		_ = nn.Buffers(m)
		_ = nn.StateDict(m)
		nn.SetTraining(m, false)
	}
}

// TestTransformerEncoder checks PyTorch's names for a stack, that its
// layers differ (each its own seed), and that it is its layers in turn
// and the final norm.
func TestTransformerEncoder(t *testing.T) {
	enc := nn.NewTransformerEncoder(4, 2, 2, nn.TransformerOptions{FeedForward: 6}, true, nn.DType(dtype.F64), nn.Seed(1))
	ps := enc.Parameters()
	if first, last := ps[0].Name, ps[len(ps)-1].Name; first != "layers.0.self_attn.in_proj_weight" || last != "norm.bias" {
		t.Errorf("names from %q to %q", first, last)
	}
	if len(ps) != 2*12+2 {
		t.Errorf("%d parameters", len(ps))
	}
	if slices.Equal(vals(t, enc.Layers[0].Linear1.Weight.Value), vals(t, enc.Layers[1].Linear1.Weight.Value)) {
		t.Error("the two layers start with the same weights")
	}
	x, _ := randn(t, 80, 3, 2, 4)
	want := enc.Norm.Forward(enc.Layers[1].Forward(enc.Layers[0].Forward(x)))
	near(t, "stack", vals(t, enc.Forward(x)), vals(t, want), 0, 0)
	if err := nn.NewTransformerEncoder(4, 2, 0, nn.DefaultTransformer(), false).Forward(x).Err(); err == nil {
		t.Error("zero layers accepted")
	}
}

// TestTransformerDecoderLayer checks PyTorch's parameter names, both
// orders of normalisation against the sub-layers composed by hand (with
// a causal target and a memory padding mask), the gradients against
// finite differences, and that Forward asks for Decode.
func TestTransformerDecoderLayer(t *testing.T) {
	l := nn.NewTransformerDecoderLayer(4, 2, nn.TransformerOptions{FeedForward: 5}, nn.DType(dtype.F64), nn.Seed(12))
	ps := l.Parameters()
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	if len(ps) != 18 || names[4] != "multihead_attn.in_proj_weight" || names[17] != "norm3.bias" {
		t.Fatalf("parameters %v", names)
	}
	for i, p := range []*nn.Parameter{l.Norm1.Weight, l.Norm2.Bias, l.Norm3.Weight} {
		v, _ := randn(t, uint64(100+i), 4)
		p.Set(v)
	}
	tgt, _ := randn(t, 101, 3, 2, 4)
	mem, _ := randn(t, 102, 5, 2, 4)
	tm := nn.AttentionMasks{Causal: true}
	mm := nn.AttentionMasks{KeyPadding: tensor.FromSlice([]bool{false, false, true, false, true, false, false, false, false, false}, 2, 5)}
	self := func(x *tensor.Tensor) *tensor.Tensor { return l.SelfAttn.Attend(x, x, x, tm) }
	cross := func(x *tensor.Tensor) *tensor.Tensor { return l.CrossAttn.Attend(x, mem, mem, mm) }
	ff := func(x *tensor.Tensor) *tensor.Tensor { return l.Linear2.Forward(l.Linear1.Forward(x).Relu()) }
	x := l.Norm1.Forward(tgt.Add(self(tgt)))
	x = l.Norm2.Forward(x.Add(cross(x)))
	near(t, "post-norm", vals(t, l.Decode(tgt, mem, tm, mm)), vals(t, l.Norm3.Forward(x.Add(ff(x)))), 1e-12, 1e-12)
	l.NormFirst = true
	x = tgt.Add(self(l.Norm1.Forward(tgt)))
	x = x.Add(cross(l.Norm2.Forward(x)))
	near(t, "pre-norm", vals(t, l.Decode(tgt, mem, tm, mm)), vals(t, x.Add(ff(l.Norm3.Forward(x)))), 1e-12, 1e-12)
	w, _ := randn(t, 103, 3, 2, 4)
	checkGrads(t, "TransformerDecoderLayer", ps, func() *tensor.Tensor { return l.Decode(tgt, mem, tm, mm).Mul(w).Sum() })
	if err := l.Forward(tgt).Err(); !errors.Is(err, errs.ErrValue) {
		t.Errorf("Forward: %v, want ErrValue", err)
	}
	if err := (&nn.TransformerDecoderLayer{}).Decode(tgt, mem, tm, mm).Err(); !errors.Is(err, errs.ErrValue) {
		t.Errorf("zero value: %v, want ErrValue", err)
	}
}
