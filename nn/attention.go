package nn

import (
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

var _ Module = (*MultiheadAttention)(nil)

// MultiheadAttention is PyTorch's nn.MultiheadAttention without dropout,
// with keys and values of the embedding's width: the inputs are projected
// by the three blocks of InProjWeight [3E, E] (and InProjBias), split
// into Heads heads of E/Heads, attended by tensor.ScaledDotProductAttention
// and joined through OutProj. Its state dict keys are PyTorch's
// (in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias), so a
// PyTorch checkpoint loads into it. Inputs are [L, N, E] (PyTorch's
// default) or, with the BatchFirst option, [N, L, E]; an unbatched
// [L, E] works either way.
type MultiheadAttention struct {
	InProjWeight, InProjBias *Parameter // InProjBias nil with NoBias
	OutProj                  *Linear
	Embed, Heads             int
	BatchFirst               bool
}

// AttentionMasks are the masks of MultiheadAttention.Attend, with
// PyTorch's meanings: in a Bool mask true marks a position that may NOT
// be attended to (the opposite of ScaledDotProductAttention's Bool mask);
// a float mask is added to the scores.
type AttentionMasks struct {
	// Attn is [L, S] or [N·Heads, L, S] (attn_mask).
	Attn *tensor.Tensor
	// KeyPadding is [N, S] (or [S] unbatched): keys to ignore
	// (key_padding_mask).
	KeyPadding *tensor.Tensor
	// Causal lets query i attend to keys j <= i only (is_causal, here
	// applied as a mask, so it combines with the others).
	Causal bool
}

// NewMultiheadAttention returns a layer of heads heads over embed
// features (heads must divide embed), initialised as PyTorch's: the input
// projection Xavier-uniform with zero bias, the output projection a
// Linear's default with zero bias. Options: Seed, DType, NoBias,
// BatchFirst.
func NewMultiheadAttention(embed, heads int, opts ...Option) *MultiheadAttention {
	c, err := newConfig("MultiheadAttention", opts)
	if err == nil && (embed <= 0 || heads <= 0 || embed%heads != 0) {
		err = errs.New("nn", "MultiheadAttention", errs.ErrShape, "%d heads must be positive and divide the embedding's %d features", heads, embed)
	}
	m := &MultiheadAttention{Embed: embed, Heads: heads, BatchFirst: c.batchFirst}
	var w, b *tensor.Tensor
	e := max(embed, 1)
	if err == nil {
		w = XavierUniform(c.dt, subSeed(c.seed, 0), 1, 3*e, e)
		b = tensor.Zeros(c.dt, 3*e)
	}
	m.InProjWeight = newParam("in_proj_weight", w, err)
	if c.bias {
		m.InProjBias = newParam("in_proj_bias", b, err)
	}
	outOpts := []Option{Seed(subSeed(c.seed, 1)), DType(c.dt)}
	if !c.bias {
		outOpts = append(outOpts, NoBias())
	}
	m.OutProj = NewLinear(e, e, outOpts...)
	if m.OutProj.Bias != nil && err == nil {
		m.OutProj.Bias.Set(tensor.Zeros(c.dt, e))
	}
	if err != nil {
		m.OutProj.Weight.Set(tensor.Failed(err))
	}
	for _, p := range m.OutProj.Parameters() {
		p.Name = "out_proj." + p.Name
	}
	return m
}

// Forward is self-attention: Attend(x, x, x) without masks.
func (m *MultiheadAttention) Forward(x *tensor.Tensor) *tensor.Tensor {
	return m.Attend(x, x, x, AttentionMasks{})
}

// Attend returns the attention of query over key and value ([L, N, E],
// [S, N, E] and [S, N, E], or batch first, or unbatched), projected back
// to [L, N, E] (PyTorch's attn_output; the attention weights are not
// returned, as with need_weights=False).
func (m *MultiheadAttention) Attend(query, key, value *tensor.Tensor, masks AttentionMasks) *tensor.Tensor {
	const op = "MultiheadAttention"
	if m.InProjWeight == nil || m.OutProj == nil {
		return fail(op, errs.ErrValue, "build the layer with NewMultiheadAttention")
	}
	if err := m.InProjWeight.Value.Err(); err != nil {
		return tensor.Failed(err)
	}
	for _, x := range []*tensor.Tensor{query, key, value} {
		if !valid(x) {
			return x
		}
	}
	r := query.Rank()
	if (r != 2 && r != 3) || key.Rank() != r || value.Rank() != r {
		return fail(op, errs.ErrShape, "query %v, key %v and value %v must all be [L, N, E], [N, L, E] or unbatched [L, E]", query.Shape(), key.Shape(), value.Shape())
	}
	unbatched := r == 2
	if unbatched {
		query, key, value = query.Unsqueeze(0), key.Unsqueeze(0), value.Unsqueeze(0)
		if masks.KeyPadding != nil {
			masks.KeyPadding = masks.KeyPadding.Unsqueeze(0)
		}
	} else if !m.BatchFirst {
		query, key, value = query.Transpose(0, 1), key.Transpose(0, 1), value.Transpose(0, 1)
	}
	e, h := m.Embed, m.Heads
	n, l, s := query.Shape()[0], query.Shape()[1], key.Shape()[1]
	for _, x := range []*tensor.Tensor{query, key, value} {
		if x.Shape()[2] != e || x.Shape()[0] != n {
			return fail(op, errs.ErrShape, "query %v, key %v and value %v: want batches of %d and %d features", query.Shape(), key.Shape(), value.Shape(), n, e)
		}
	}
	if value.Shape()[1] != s {
		return fail(op, errs.ErrShape, "key %v and value %v must have as many positions", key.Shape(), value.Shape())
	}
	w := m.InProjWeight.Value
	project := func(x *tensor.Tensor, i int) *tensor.Tensor {
		y := x.Matmul(w.Narrow(0, i*e, e).Transpose(0, 1))
		if m.InProjBias != nil {
			y = y.Add(m.InProjBias.Value.Narrow(0, i*e, e))
		}
		// [N, T, E] -> [N, H, T, E/H]
		return y.Reshape(n, x.Shape()[1], h, e/h).Transpose(1, 2)
	}
	q, k, v := project(query, 0), project(key, 1), project(value, 2)
	mask, err := m.scoreMask(masks, query.DType(), query.Device(), n, l, s)
	if err != nil {
		return tensor.Failed(err)
	}
	a := tensor.ScaledDotProductAttention(q, k, v, mask, tensor.SDPAOptions{})
	out := m.OutProj.Forward(a.Transpose(1, 2).Reshape(n, l, e))
	switch {
	case unbatched:
		out = out.Squeeze(0)
	case !m.BatchFirst:
		out = out.Transpose(0, 1)
	}
	return out
}

// scoreMask merges the masks into one additive mask of the scores
// [N, H, L, S] (or one that broadcasts to it), -Inf where a Bool mask
// forbids, as PyTorch merges them; nil without masks.
func (m *MultiheadAttention) scoreMask(masks AttentionMasks, dt dtype.DType, dev device.Device, n, l, s int) (*tensor.Tensor, error) {
	const op = "MultiheadAttention"
	additive := func(x *tensor.Tensor) *tensor.Tensor {
		if x.DType() != dtype.Bool {
			return x.Cast(dt)
		}
		return tensor.Zeros(dt, x.Shape()...).To(x.Device()).MaskedFill(x, math.Inf(-1))
	}
	var mask *tensor.Tensor
	add := func(x *tensor.Tensor) {
		if mask == nil {
			mask = x
		} else {
			mask = mask.Add(x)
		}
	}
	if a := masks.Attn; a != nil {
		if err := a.Err(); err != nil {
			return nil, err
		}
		switch sh := a.Shape(); {
		case len(sh) == 2 && sh[0] == l && sh[1] == s:
			add(additive(a))
		case len(sh) == 3 && sh[0] == n*m.Heads && sh[1] == l && sh[2] == s:
			add(additive(a).Reshape(n, m.Heads, l, s))
		default:
			return nil, errs.New("nn", op, errs.ErrShape, "attn_mask %v must be [%d, %d] or [%d, %d, %d]", sh, l, s, n*m.Heads, l, s)
		}
	}
	if kp := masks.KeyPadding; kp != nil {
		if err := kp.Err(); err != nil {
			return nil, err
		}
		if sh := kp.Shape(); len(sh) != 2 || sh[0] != n || sh[1] != s {
			return nil, errs.New("nn", op, errs.ErrShape, "key_padding_mask %v must be [%d, %d]", sh, n, s)
		}
		add(additive(kp).Reshape(n, 1, 1, s))
	}
	if masks.Causal {
		add(additive(tensor.Ones(dtype.Bool, l, s).Triu(1).To(dev)))
	}
	return mask, nil
}

// Parameters returns in_proj_weight, in_proj_bias, out_proj.weight and
// out_proj.bias (the biases unless NoBias), PyTorch's order.
func (m *MultiheadAttention) Parameters() []*Parameter {
	ps := params(m.InProjWeight, m.InProjBias)
	if m.OutProj != nil {
		ps = append(ps, m.OutProj.Parameters()...)
	}
	return ps
}
