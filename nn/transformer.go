package nn

import (
	"slices"
	"strconv"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

var (
	_ Module  = (*TransformerEncoderLayer)(nil)
	_ Trainer = (*TransformerEncoderLayer)(nil)
)

// TransformerOptions are the options of NewTransformerEncoderLayer
// besides the widths. DefaultTransformer gives PyTorch's defaults.
type TransformerOptions struct {
	FeedForward int     // the hidden width of the feed-forward block (dim_feedforward)
	Dropout     float64 // the probability of each of the layer's dropouts
	// Activation is the feed-forward block's (ReLU{} when nil; GELU{} is
	// PyTorch's other choice).
	Activation Module
	// NormFirst normalises before each block instead of after its
	// residual sum (norm_first).
	NormFirst bool
}

// DefaultTransformer returns PyTorch's defaults: a feed-forward width of
// 2048, dropout 0.1, ReLU, normalisation after each block.
func DefaultTransformer() TransformerOptions {
	return TransformerOptions{FeedForward: 2048, Dropout: 0.1, Activation: ReLU{}}
}

// TransformerEncoderLayer is PyTorch's nn.TransformerEncoderLayer:
// self-attention and a two-layer feed-forward block, each with a residual
// connection, dropout and LayerNorm. Its parameters have PyTorch's names
// (self_attn.in_proj_weight, linear1.weight, norm2.bias, …), so a PyTorch
// checkpoint loads into it, and it takes [L, N, E] or, with BatchFirst,
// [N, L, E]. A new layer is in training mode (its dropouts drop), as in
// PyTorch; SetTraining(false) for evaluation.
type TransformerEncoderLayer struct {
	SelfAttn                    *MultiheadAttention
	Linear1, Linear2            *Linear
	Norm1, Norm2                *LayerNorm
	Dropout, Dropout1, Dropout2 *Dropout
	Activation                  Module
	NormFirst                   bool
	err                         error
}

// NewTransformerEncoderLayer returns a layer over dModel features with
// heads attention heads, initialised as PyTorch's (each sub-layer's own
// initialisation). Options: Seed, DType, Eps (the LayerNorms'), NoBias,
// BatchFirst.
func NewTransformerEncoderLayer(dModel, heads int, o TransformerOptions, opts ...Option) *TransformerEncoderLayer {
	b := newTransformerBuild("TransformerEncoderLayer", dModel, o, opts)
	l := &TransformerEncoderLayer{
		SelfAttn:   NewMultiheadAttention(dModel, heads, b.sub(0)...),
		Linear1:    NewLinear(dModel, b.ff, b.sub(1)...),
		Linear2:    NewLinear(b.ff, dModel, b.sub(2)...),
		Norm1:      NewLayerNorm([]int{dModel}, opts...),
		Norm2:      NewLayerNorm([]int{dModel}, opts...),
		Dropout:    b.dropout(3),
		Dropout1:   b.dropout(4),
		Dropout2:   b.dropout(5),
		Activation: b.act,
		NormFirst:  o.NormFirst,
		err:        b.err,
	}
	prefixNames(map[string]Module{"self_attn.": l.SelfAttn, "linear1.": l.Linear1, "linear2.": l.Linear2, "norm1.": l.Norm1, "norm2.": l.Norm2})
	return l
}

// transformerBuild is what the Transformer layers' constructors share:
// the checked options, the activation, and seeds for the sub-layers.
type transformerBuild struct {
	c    config
	err  error
	act  Module
	ff   int
	o    TransformerOptions
	opts []Option
}

func newTransformerBuild(name string, dModel int, o TransformerOptions, opts []Option) transformerBuild {
	c, err := newConfig(name, opts)
	if err == nil && o.FeedForward <= 0 {
		err = errs.New("nn", name, errs.ErrShape, "feed-forward width %d must be positive", o.FeedForward)
	}
	if err == nil && !(o.Dropout >= 0 && o.Dropout < 1) {
		err = errs.New("nn", name, errs.ErrValue, "dropout %v must be in [0, 1)", o.Dropout)
	}
	act := o.Activation
	if act == nil {
		act = ReLU{}
	}
	return transformerBuild{c: c, err: err, act: act, ff: max(o.FeedForward, 1), o: o, opts: opts}
}

// sub is the options of sub-layer i: the layer's, with a seed of its own.
func (b transformerBuild) sub(i uint64) []Option {
	return append(slices.Clone(b.opts), Seed(subSeed(b.c.seed, i)))
}

// dropout is a Dropout of the options' probability with seed i.
func (b transformerBuild) dropout(i uint64) *Dropout {
	return NewDropout(b.o.Dropout, subSeed(b.c.seed, i))
}

// prefixNames puts each prefix before its module's parameter names.
func prefixNames(parts map[string]Module) {
	for prefix, m := range parts {
		for _, p := range m.Parameters() {
			p.Name = prefix + p.Name
		}
	}
}

// feedForward is the Transformer layers' feed-forward block:
// drop2(linear2(drop(act(linear1(x))))).
func feedForward(x *tensor.Tensor, linear1, linear2 *Linear, act Module, drop, drop2 *Dropout) *tensor.Tensor {
	h := drop.Forward(act.Forward(linear1.Forward(x)))
	return drop2.Forward(linear2.Forward(h))
}

// SetTraining switches the dropouts between training and evaluation.
func (l *TransformerEncoderLayer) SetTraining(on bool) {
	for _, d := range []*Dropout{l.Dropout, l.Dropout1, l.Dropout2} {
		if d != nil {
			d.SetTraining(on)
		}
	}
}

// Forward encodes x without masks.
func (l *TransformerEncoderLayer) Forward(x *tensor.Tensor) *tensor.Tensor {
	return l.Encode(x, AttentionMasks{})
}

// Encode runs the layer on src with the self-attention's masks
// (PyTorch's src_mask, src_key_padding_mask and is_causal).
func (l *TransformerEncoderLayer) Encode(src *tensor.Tensor, masks AttentionMasks) *tensor.Tensor {
	if l.err != nil {
		return tensor.Failed(l.err)
	}
	if l.Parameters() == nil || l.Dropout == nil || l.Dropout1 == nil || l.Dropout2 == nil || l.Activation == nil {
		return fail("TransformerEncoderLayer", errs.ErrValue, "build the layer with NewTransformerEncoderLayer")
	}
	attend := func(x *tensor.Tensor) *tensor.Tensor {
		return l.Dropout1.Forward(l.SelfAttn.Attend(x, x, x, masks))
	}
	feed := func(x *tensor.Tensor) *tensor.Tensor {
		return feedForward(x, l.Linear1, l.Linear2, l.Activation, l.Dropout, l.Dropout2)
	}
	x := src
	if l.NormFirst {
		x = x.Add(attend(l.Norm1.Forward(x)))
		return x.Add(feed(l.Norm2.Forward(x)))
	}
	x = l.Norm1.Forward(x.Add(attend(x)))
	return l.Norm2.Forward(x.Add(feed(x)))
}

// Parameters lists PyTorch's order: self_attn, linear1, linear2 (its
// dropout has none), norm1, norm2.
func (l *TransformerEncoderLayer) Parameters() []*Parameter {
	if l.SelfAttn == nil || l.Linear1 == nil || l.Linear2 == nil || l.Norm1 == nil || l.Norm2 == nil {
		return nil // a zero value: Forward reports it
	}
	var ps []*Parameter
	for _, m := range []Module{l.SelfAttn, l.Linear1, l.Linear2, l.Norm1, l.Norm2} {
		ps = append(ps, m.Parameters()...)
	}
	return ps
}

var (
	_ Module  = (*TransformerEncoder)(nil)
	_ Trainer = (*TransformerEncoder)(nil)
)

// TransformerEncoder is PyTorch's nn.TransformerEncoder: a stack of
// encoder layers, each built as NewTransformerEncoderLayer builds one
// (with its own seed), and optionally a final LayerNorm. Parameter names
// are PyTorch's: layers.0.self_attn.in_proj_weight, …, norm.weight.
type TransformerEncoder struct {
	Layers []*TransformerEncoderLayer
	Norm   *LayerNorm // nil for none
}

// NewTransformerEncoder returns numLayers encoder layers over dModel
// features with heads heads, and a final LayerNorm when finalNorm is set
// (PyTorch's norm argument). The options apply to every layer.
func NewTransformerEncoder(dModel, heads, numLayers int, o TransformerOptions, finalNorm bool, opts ...Option) *TransformerEncoder {
	c, err := newConfig("TransformerEncoder", opts)
	if err == nil && numLayers <= 0 {
		err = errs.New("nn", "TransformerEncoder", errs.ErrShape, "%d layers: want at least one", numLayers)
	}
	e := &TransformerEncoder{}
	for i := range max(numLayers, 1) {
		l := NewTransformerEncoderLayer(dModel, heads, o, append(slices.Clone(opts), Seed(subSeed(c.seed, uint64(i))))...)
		if err != nil {
			l.err = err
		}
		for _, p := range l.Parameters() {
			p.Name = "layers." + strconv.Itoa(i) + "." + p.Name
		}
		e.Layers = append(e.Layers, l)
	}
	if finalNorm {
		e.Norm = NewLayerNorm([]int{dModel}, opts...)
		for _, p := range e.Norm.Parameters() {
			p.Name = "norm." + p.Name
		}
	}
	return e
}

// SetTraining sets every layer's mode.
func (e *TransformerEncoder) SetTraining(on bool) {
	for _, l := range e.Layers {
		l.SetTraining(on)
	}
}

// Forward encodes x without masks.
func (e *TransformerEncoder) Forward(x *tensor.Tensor) *tensor.Tensor {
	return e.Encode(x, AttentionMasks{})
}

// Encode runs the layers in turn with the same masks, then the final norm.
func (e *TransformerEncoder) Encode(src *tensor.Tensor, masks AttentionMasks) *tensor.Tensor {
	if len(e.Layers) == 0 {
		return fail("TransformerEncoder", errs.ErrValue, "no layers (build it with NewTransformerEncoder)")
	}
	x := src
	for _, l := range e.Layers {
		x = l.Encode(x, masks)
	}
	if e.Norm != nil {
		x = e.Norm.Forward(x)
	}
	return x
}

// Parameters lists the layers' parameters in order, then the norm's.
func (e *TransformerEncoder) Parameters() []*Parameter {
	var ps []*Parameter
	for _, l := range e.Layers {
		ps = append(ps, l.Parameters()...)
	}
	if e.Norm != nil {
		ps = append(ps, e.Norm.Parameters()...)
	}
	return ps
}

var (
	_ Module  = (*TransformerDecoderLayer)(nil)
	_ Trainer = (*TransformerDecoderLayer)(nil)
)

// TransformerDecoderLayer is PyTorch's nn.TransformerDecoderLayer:
// self-attention over the target, attention from the target to the
// encoder's output (the memory), and the feed-forward block, each with a
// residual connection, dropout and LayerNorm, in PyTorch's two orders.
// Parameter names are PyTorch's (self_attn.*, multihead_attn.*,
// linear1.*, norm3.*, …). Its Forward has no memory to attend to, so it
// reports an error: call Decode.
type TransformerDecoderLayer struct {
	SelfAttn, CrossAttn                   *MultiheadAttention
	Linear1, Linear2                      *Linear
	Norm1, Norm2, Norm3                   *LayerNorm
	Dropout, Dropout1, Dropout2, Dropout3 *Dropout
	Activation                            Module
	NormFirst                             bool
	err                                   error
}

// NewTransformerDecoderLayer returns a decoder layer over dModel features
// with heads heads, initialised as PyTorch's. Options as
// NewTransformerEncoderLayer's.
func NewTransformerDecoderLayer(dModel, heads int, o TransformerOptions, opts ...Option) *TransformerDecoderLayer {
	b := newTransformerBuild("TransformerDecoderLayer", dModel, o, opts)
	l := &TransformerDecoderLayer{
		SelfAttn:   NewMultiheadAttention(dModel, heads, b.sub(0)...),
		CrossAttn:  NewMultiheadAttention(dModel, heads, b.sub(6)...),
		Linear1:    NewLinear(dModel, b.ff, b.sub(1)...),
		Linear2:    NewLinear(b.ff, dModel, b.sub(2)...),
		Norm1:      NewLayerNorm([]int{dModel}, opts...),
		Norm2:      NewLayerNorm([]int{dModel}, opts...),
		Norm3:      NewLayerNorm([]int{dModel}, opts...),
		Dropout:    b.dropout(3),
		Dropout1:   b.dropout(4),
		Dropout2:   b.dropout(5),
		Dropout3:   b.dropout(7),
		Activation: b.act,
		NormFirst:  o.NormFirst,
		err:        b.err,
	}
	prefixNames(map[string]Module{"self_attn.": l.SelfAttn, "multihead_attn.": l.CrossAttn, "linear1.": l.Linear1, "linear2.": l.Linear2,
		"norm1.": l.Norm1, "norm2.": l.Norm2, "norm3.": l.Norm3})
	return l
}

// SetTraining switches the dropouts between training and evaluation.
func (l *TransformerDecoderLayer) SetTraining(on bool) {
	for _, d := range []*Dropout{l.Dropout, l.Dropout1, l.Dropout2, l.Dropout3} {
		if d != nil {
			d.SetTraining(on)
		}
	}
}

// Forward reports an ErrValue: a decoder layer needs the memory (Decode).
func (l *TransformerDecoderLayer) Forward(*tensor.Tensor) *tensor.Tensor {
	return fail("TransformerDecoderLayer", errs.ErrValue, "a decoder layer attends to an encoder's output: call Decode(tgt, memory, ...)")
}

// Decode runs the layer on tgt, attending to memory, with the target's
// self-attention masks (tgt_mask, tgt_key_padding_mask, tgt_is_causal)
// and the cross-attention's (memory_mask, memory_key_padding_mask).
func (l *TransformerDecoderLayer) Decode(tgt, memory *tensor.Tensor, tgtMasks, memoryMasks AttentionMasks) *tensor.Tensor {
	if l.err != nil {
		return tensor.Failed(l.err)
	}
	if l.Parameters() == nil || l.Dropout == nil || l.Dropout1 == nil || l.Dropout2 == nil || l.Dropout3 == nil || l.Activation == nil {
		return fail("TransformerDecoderLayer", errs.ErrValue, "build the layer with NewTransformerDecoderLayer")
	}
	self := func(x *tensor.Tensor) *tensor.Tensor { return l.Dropout1.Forward(l.SelfAttn.Attend(x, x, x, tgtMasks)) }
	cross := func(x *tensor.Tensor) *tensor.Tensor {
		return l.Dropout2.Forward(l.CrossAttn.Attend(x, memory, memory, memoryMasks))
	}
	feed := func(x *tensor.Tensor) *tensor.Tensor {
		return feedForward(x, l.Linear1, l.Linear2, l.Activation, l.Dropout, l.Dropout3)
	}
	x := tgt
	if l.NormFirst {
		x = x.Add(self(l.Norm1.Forward(x)))
		x = x.Add(cross(l.Norm2.Forward(x)))
		return x.Add(feed(l.Norm3.Forward(x)))
	}
	x = l.Norm1.Forward(x.Add(self(x)))
	x = l.Norm2.Forward(x.Add(cross(x)))
	return l.Norm3.Forward(x.Add(feed(x)))
}

// Parameters lists PyTorch's order: self_attn, multihead_attn, linear1,
// linear2, norm1, norm2, norm3.
func (l *TransformerDecoderLayer) Parameters() []*Parameter {
	parts := []Module{l.SelfAttn, l.CrossAttn, l.Linear1, l.Linear2, l.Norm1, l.Norm2, l.Norm3}
	if l.SelfAttn == nil || l.CrossAttn == nil || l.Linear1 == nil || l.Linear2 == nil || l.Norm1 == nil || l.Norm2 == nil || l.Norm3 == nil {
		return nil // a zero value: Decode reports it
	}
	var ps []*Parameter
	for _, m := range parts {
		ps = append(ps, m.Parameters()...)
	}
	return ps
}
