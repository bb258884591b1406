package nn

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// Compile-time checks that every layer is a Module.
var (
	_ Module = (*Linear)(nil)
	_ Module = (*Conv2d)(nil)
	_ Module = (*ConvTranspose2d)(nil)
	_ Module = (*Embedding)(nil)
	_ Module = (*LayerNorm)(nil)
	_ Module = (*Dropout)(nil)
	_ Module = (*BatchNorm)(nil)
	_ Module = (*GroupNorm)(nil)
	_ Module = (*Conv1d)(nil)
	_ Module = Upsample{}
	_ Module = MaxPool2d{}
	_ Module = AvgPool2d{}
	_ Module = AdaptiveAvgPool2d{}
	_ Module = AdaptiveMaxPool2d{}
	_ Module = MaxPool1d{}
	_ Module = AvgPool1d{}
	_ Module = Flatten{}
)

// newParam makes the parameter name holding v; a constructor error err
// (when not nil) takes the value's place, so Forward reports it.
func newParam(name string, v *tensor.Tensor, err error) *Parameter {
	if err != nil {
		v = tensor.Failed(err)
	}
	return NewParameter(name, v)
}

// params lists the non-nil parameters among ps.
func params(ps ...*Parameter) []*Parameter {
	out := make([]*Parameter, 0, len(ps))
	for _, p := range ps {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// Linear is the affine map y = x Wᵀ + b of PyTorch's nn.Linear: Weight is
// [out, in], Bias [out] (nil with NoBias). The input is [..., in], any
// number of leading batch axes, and the output [..., out].
type Linear struct {
	Weight, Bias *Parameter
}

// NewLinear returns a Linear layer from in to out features, initialised as
// PyTorch's: weight and bias uniform in ±1/sqrt(in).
func NewLinear(in, out int, opts ...Option) *Linear {
	c, err := newConfig("Linear", opts)
	if err == nil && (in <= 0 || out <= 0) {
		err = errs.New("nn", "Linear", errs.ErrShape, "features in %d and out %d must be positive", in, out)
	}
	l := &Linear{}
	var w, b *tensor.Tensor
	if err == nil {
		w, b = defaultInit(c, c.bias, out, out, in)
	}
	l.Weight = newParam("weight", w, err)
	if c.bias {
		l.Bias = newParam("bias", b, err)
	}
	return l
}

// Forward computes x Wᵀ + b.
func (l *Linear) Forward(x *tensor.Tensor) *tensor.Tensor {
	if l.Weight == nil {
		return fail("Linear", errs.ErrValue, "no weight (build the layer with NewLinear)")
	}
	w := l.Weight.Value
	if valid(x) && valid(w) {
		in := w.Shape()[1]
		if x.Rank() == 0 || x.Shape()[x.Rank()-1] != in {
			return fail("Linear", errs.ErrShape, "input %v must end in %d features", x.Shape(), in)
		}
	}
	y := x.Matmul(w.T())
	if l.Bias != nil {
		y = y.Add(l.Bias.Value)
	}
	return y
}

// Parameters returns the weight and, unless NoBias, the bias.
func (l *Linear) Parameters() []*Parameter { return params(l.Weight, l.Bias) }

// Conv2d is PyTorch's nn.Conv2d: a 2-D cross-correlation of x [N, C, H, W]
// with Weight [out, C/groups, KH, KW], plus Bias [out] (nil with NoBias),
// computed by tensor.Conv2d with the options Opt.
type Conv2d struct {
	Weight, Bias *Parameter
	Opt          tensor.Conv2dOptions
}

// NewConv2d returns a Conv2d layer from in to out channels with the given
// kernel size and options, initialised as PyTorch's: weight and bias
// uniform in ±1/sqrt(fan_in), fan_in = in/groups·KH·KW.
func NewConv2d(in, out int, kernel [2]int, opt tensor.Conv2dOptions, opts ...Option) *Conv2d {
	w, b := convParams("Conv2d", in, out, kernel[:], opt.Groups, opts)
	return &Conv2d{Weight: w, Bias: b, Opt: opt}
}

// convParams makes a convolution's weight [out, in/groups, kernel...] and
// bias (nil with NoBias), initialised as PyTorch's.
func convParams(name string, in, out int, kernel []int, groups int, opts []Option) (w, b *Parameter) {
	c, err := newConfig(name, opts)
	g := max(groups, 1)
	if err == nil && (in <= 0 || out <= 0 || slices.ContainsFunc(kernel, func(k int) bool { return k <= 0 }) || groups < 0 || in%g != 0 || out%g != 0) {
		err = errs.New("nn", name, errs.ErrShape, "channels in %d and out %d, kernel %v and groups %d must be positive, the groups dividing the channels", in, out, kernel, groups)
	}
	var wt, bt *tensor.Tensor
	if err == nil {
		wt, bt = defaultInit(c, c.bias, out, append([]int{out, in / g}, kernel...)...)
	}
	w = newParam("weight", wt, err)
	if c.bias {
		b = newParam("bias", bt, err)
	}
	return w, b
}

// Conv1d is PyTorch's nn.Conv1d: Weight [out, in/groups, K], Bias [out],
// the options' first entries (stride, padding, dilation) and groups
// applying to the one spatial axis (see tensor.Conv1d).
type Conv1d struct {
	Weight, Bias *Parameter
	Opt          tensor.Conv2dOptions
}

// NewConv1d returns a Conv1d layer from in to out channels with kernel
// size k, initialised as PyTorch's (as NewConv2d's).
func NewConv1d(in, out, k int, opt tensor.Conv2dOptions, opts ...Option) *Conv1d {
	w, b := convParams("Conv1d", in, out, []int{k}, opt.Groups, opts)
	return &Conv1d{Weight: w, Bias: b, Opt: opt}
}

// Forward convolves x [N, C, L] into [N, out, OL].
func (l *Conv1d) Forward(x *tensor.Tensor) *tensor.Tensor {
	return convForward("Conv1d", l.Weight, l.Bias, l.Opt.Groups, x, 3, "[N, %d, L]", func(w, b *tensor.Tensor) *tensor.Tensor {
		return tensor.Conv1d(x, w, b, l.Opt)
	})
}

// convForward checks x against a convolution layer's weight (rank axes,
// in/groups·groups channels, as layout describes) and runs conv.
func convForward(name string, weight, bias *Parameter, groups int, x *tensor.Tensor, rank int, layout string, conv func(w, b *tensor.Tensor) *tensor.Tensor) *tensor.Tensor {
	if weight == nil {
		return fail(name, errs.ErrValue, "no weight (build the layer with New%s)", name)
	}
	var b *tensor.Tensor
	if bias != nil {
		b = bias.Value
	}
	w := weight.Value
	if valid(x) && valid(w) {
		want := w.Shape()[1] * max(groups, 1)
		if x.Rank() != rank || x.Shape()[1] != want {
			return fail(name, errs.ErrShape, "input %v must be "+layout, x.Shape(), want)
		}
	}
	return conv(w, b)
}

// Parameters returns the weight and, unless NoBias, the bias.
func (l *Conv1d) Parameters() []*Parameter { return params(l.Weight, l.Bias) }

// Forward convolves x [N, C, H, W] into [N, out, OH, OW].
func (l *Conv2d) Forward(x *tensor.Tensor) *tensor.Tensor {
	return convForward("Conv2d", l.Weight, l.Bias, l.Opt.Groups, x, 4, "[N, %d, H, W]", func(w, b *tensor.Tensor) *tensor.Tensor {
		return tensor.Conv2d(x, w, b, l.Opt)
	})
}

// Parameters returns the weight and, unless NoBias, the bias.
func (l *Conv2d) Parameters() []*Parameter { return params(l.Weight, l.Bias) }

// ConvTranspose2d is PyTorch's nn.ConvTranspose2d: the transposed
// convolution (the adjoint of Conv2d, used to upsample in decoders) of x
// [N, in, H, W] by Weight [in, out/groups, KH, KW], plus Bias [out] (nil
// with NoBias), computed by tensor.ConvTranspose2d with the options Opt.
type ConvTranspose2d struct {
	Weight, Bias *Parameter
	Opt          tensor.ConvTranspose2dOptions
}

// NewConvTranspose2d returns a ConvTranspose2d layer from in to out
// channels with the given kernel size and options, initialised as
// PyTorch's: weight and bias uniform in ±1/sqrt(fan_in), where fan_in is
// taken from the weight's dimensions as PyTorch does, out/groups·KH·KW.
func NewConvTranspose2d(in, out int, kernel [2]int, opt tensor.ConvTranspose2dOptions, opts ...Option) *ConvTranspose2d {
	c, err := newConfig("ConvTranspose2d", opts)
	g := max(opt.Groups, 1)
	if err == nil && (in <= 0 || out <= 0 || kernel[0] <= 0 || kernel[1] <= 0 || opt.Groups < 0 || in%g != 0 || out%g != 0) {
		err = errs.New("nn", "ConvTranspose2d", errs.ErrShape, "channels in %d and out %d, kernel %v and groups %d must be positive, the groups dividing the channels", in, out, kernel, opt.Groups)
	}
	l := &ConvTranspose2d{Opt: opt}
	var w, b *tensor.Tensor
	if err == nil {
		w, b = defaultInit(c, c.bias, out, in, out/g, kernel[0], kernel[1])
	}
	l.Weight = newParam("weight", w, err)
	if c.bias {
		l.Bias = newParam("bias", b, err)
	}
	return l
}

// Forward maps x [N, in, H, W] to [N, out, OH, OW] (see
// tensor.ConvTranspose2d for OH and OW).
func (l *ConvTranspose2d) Forward(x *tensor.Tensor) *tensor.Tensor {
	if l.Weight == nil {
		return fail("ConvTranspose2d", errs.ErrValue, "no weight (build the layer with NewConvTranspose2d)")
	}
	var b *tensor.Tensor
	if l.Bias != nil {
		b = l.Bias.Value
	}
	w := l.Weight.Value
	if valid(x) && valid(w) {
		want := w.Shape()[0]
		if x.Rank() != 4 || x.Shape()[1] != want {
			return fail("ConvTranspose2d", errs.ErrShape, "input %v must be [N, %d, H, W]", x.Shape(), want)
		}
	}
	return tensor.ConvTranspose2d(x, w, b, l.Opt)
}

// Parameters returns the weight and, unless NoBias, the bias.
func (l *ConvTranspose2d) Parameters() []*Parameter { return params(l.Weight, l.Bias) }

// MaxPool2d takes the maximum of each window of x [N, C, H, W], as
// PyTorch's nn.MaxPool2d: nn.MaxPool2d{Kernel: [2]int{2, 2}} halves H and
// W (a zero Stride is the kernel size).
type MaxPool2d tensor.Pool2dOptions

// Forward pools x.
func (m MaxPool2d) Forward(x *tensor.Tensor) *tensor.Tensor {
	return tensor.MaxPool2d(x, tensor.Pool2dOptions(m))
}

// Parameters is empty: pooling learns nothing.
func (MaxPool2d) Parameters() []*Parameter { return nil }

// AvgPool2d averages each window of x [N, C, H, W], as PyTorch's
// nn.AvgPool2d: padding counts in the average unless ExcludePad
// (count_include_pad=False); CeilMode and DivisorOverride as PyTorch's.
type AvgPool2d tensor.Pool2dOptions

// Forward pools x.
func (m AvgPool2d) Forward(x *tensor.Tensor) *tensor.Tensor {
	return tensor.AvgPool2d(x, tensor.Pool2dOptions(m))
}

// Parameters is empty: pooling learns nothing.
func (AvgPool2d) Parameters() []*Parameter { return nil }

// MaxPool1d takes the maximum of each window of x [N, C, L], as PyTorch's
// nn.MaxPool1d; the options' first entries apply (tensor.MaxPool1d).
type MaxPool1d tensor.Pool2dOptions

// Forward pools x.
func (m MaxPool1d) Forward(x *tensor.Tensor) *tensor.Tensor {
	return tensor.MaxPool1d(x, tensor.Pool2dOptions(m))
}

// Parameters is empty: pooling learns nothing.
func (MaxPool1d) Parameters() []*Parameter { return nil }

// AvgPool1d averages each window of x [N, C, L], as PyTorch's
// nn.AvgPool1d; the options' first entries apply (tensor.AvgPool1d).
type AvgPool1d tensor.Pool2dOptions

// Forward pools x.
func (m AvgPool1d) Forward(x *tensor.Tensor) *tensor.Tensor {
	return tensor.AvgPool1d(x, tensor.Pool2dOptions(m))
}

// Parameters is empty: pooling learns nothing.
func (AvgPool1d) Parameters() []*Parameter { return nil }

// AdaptiveAvgPool2d averages x [N, C, H, W] into Size[0] x Size[1]
// nearly even windows, as PyTorch's nn.AdaptiveAvgPool2d:
// AdaptiveAvgPool2d{Size: [2]int{1, 1}} is global average pooling, the
// head of most classification networks, whatever the input's size.
type AdaptiveAvgPool2d struct{ Size [2]int }

// Forward pools x (tensor.AdaptiveAvgPool2d).
func (m AdaptiveAvgPool2d) Forward(x *tensor.Tensor) *tensor.Tensor {
	return tensor.AdaptiveAvgPool2d(x, m.Size)
}

// Parameters is empty: pooling learns nothing.
func (AdaptiveAvgPool2d) Parameters() []*Parameter { return nil }

// AdaptiveMaxPool2d takes the maximum of x [N, C, H, W] over Size[0] x
// Size[1] nearly even windows, as PyTorch's nn.AdaptiveMaxPool2d (its
// values; tensor.AdaptiveMaxPool2d).
type AdaptiveMaxPool2d struct{ Size [2]int }

// Forward pools x.
func (m AdaptiveMaxPool2d) Forward(x *tensor.Tensor) *tensor.Tensor {
	return tensor.AdaptiveMaxPool2d(x, m.Size)
}

// Parameters is empty: pooling learns nothing.
func (AdaptiveMaxPool2d) Parameters() []*Parameter { return nil }

// Flatten turns x [N, ...] into [N, product of the rest], as PyTorch's
// nn.Flatten() with its defaults: the bridge from convolutions to Linear.
type Flatten struct{}

// Forward flattens every axis but the first (a view when x's strides
// allow).
func (Flatten) Forward(x *tensor.Tensor) *tensor.Tensor {
	if valid(x) && x.Rank() < 1 {
		return fail("Flatten", errs.ErrShape, "input %v has no batch axis", x.Shape())
	}
	if valid(x) && x.Rank() == 1 {
		return x.Reshape(x.Shape()[0], 1)
	}
	return x.Flatten(1, -1)
}

// Parameters is empty.
func (Flatten) Parameters() []*Parameter { return nil }

// Embedding is a lookup table, PyTorch's nn.Embedding: Forward maps an
// integer index tensor of any shape S to the rows of Weight [num, dim] it
// names, shape S + [dim]. The gradient flows into the rows looked up.
type Embedding struct {
	Weight *Parameter
}

// NewEmbedding returns a table of num rows of dim features, initialised
// standard normal as PyTorch's.
func NewEmbedding(num, dim int, opts ...Option) *Embedding {
	c, err := newConfig("Embedding", opts)
	if err == nil && (num <= 0 || dim <= 0) {
		err = errs.New("nn", "Embedding", errs.ErrShape, "rows %d and features %d must be positive", num, dim)
	}
	var w *tensor.Tensor
	if err == nil {
		w = Normal(c.dt, subSeed(c.seed, 0), 1, num, dim)
	}
	return &Embedding{Weight: newParam("weight", w, err)}
}

// Forward looks up the rows idx names. A floating or bool idx is an
// ErrDType error; an index outside [0, num) an ErrAxis error (the indices
// are read on the host, as IndexSelect reads them).
func (e *Embedding) Forward(idx *tensor.Tensor) *tensor.Tensor {
	if e.Weight == nil {
		return fail("Embedding", errs.ErrValue, "no table (build the layer with NewEmbedding)")
	}
	w := e.Weight.Value
	if !valid(idx) || !valid(w) {
		return w.IndexSelect(0, idx)
	}
	if !idx.DType().IsInt() {
		return fail("Embedding", errs.ErrDType, "indices must be integers, have %v", idx.DType())
	}
	if idx.DType() == dtype.U8 {
		idx = idx.Cast(dtype.I32)
	}
	shape := append(idx.Shape(), w.Shape()[1])
	y := w.IndexSelect(0, idx.Reshape(-1))
	if err := y.Err(); err != nil {
		return tensor.Failed(errs.Retag("nn", "Embedding", err))
	}
	return y.Reshape(shape...)
}

// Parameters returns the table.
func (e *Embedding) Parameters() []*Parameter { return []*Parameter{e.Weight} }

// LayerNorm normalises each sample over its trailing axes to zero mean and
// unit variance (the biased variance, plus Eps), then scales by Weight and
// shifts by Bias, of the normalised shape: PyTorch's nn.LayerNorm.
type LayerNorm struct {
	Weight, Bias *Parameter // nil with NoAffine (Bias also with NoBias)
	Shape        []int      // the normalised trailing shape
	Eps          float64
}

// NewLayerNorm returns a LayerNorm over the trailing axes of shape, with
// the weight ones and the bias zeros.
func NewLayerNorm(shape []int, opts ...Option) *LayerNorm {
	c, err := newConfig("LayerNorm", opts)
	if err == nil && (len(shape) == 0 || slices.ContainsFunc(shape, func(n int) bool { return n <= 0 })) {
		err = errs.New("nn", "LayerNorm", errs.ErrShape, "normalised shape %v must be one or more positive extents", shape)
	}
	if err == nil && (!(c.eps >= 0) || math.IsInf(c.eps, 0)) {
		err = errs.New("nn", "LayerNorm", errs.ErrValue, "eps %v must be finite and not negative", c.eps)
	}
	l := &LayerNorm{Shape: slices.Clone(shape), Eps: c.eps}
	if c.noAfine && err == nil {
		return l
	}
	var w, b *tensor.Tensor
	if err == nil {
		w, b = tensor.Ones(c.dt, shape...), tensor.Zeros(c.dt, shape...)
	}
	l.Weight = newParam("weight", w, err)
	if c.bias {
		l.Bias = newParam("bias", b, err)
	}
	return l
}

// Forward normalises x [..., Shape...].
func (l *LayerNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	if len(l.Shape) == 0 {
		return fail("LayerNorm", errs.ErrShape, "no normalised shape (build the layer with NewLayerNorm)")
	}
	// tensor.LayerNorm checks the input's trailing axes and the affine
	// parameters, and has the formula.
	var w, b *tensor.Tensor
	if l.Weight != nil {
		w = l.Weight.Value
	}
	if l.Bias != nil {
		b = l.Bias.Value
	}
	return tensor.LayerNorm(x, l.Shape, w, b, l.Eps)
}

// Parameters returns the weight and bias (none with NoAffine).
func (l *LayerNorm) Parameters() []*Parameter { return params(l.Weight, l.Bias) }

// Upsample resizes its input's spatial axes with tensor.Interpolate's
// options: PyTorch's nn.Upsample. It has no parameters.
type Upsample struct {
	tensor.InterpolateOptions
}

// Forward resizes x [N, C, L] or [N, C, H, W].
func (u Upsample) Forward(x *tensor.Tensor) *tensor.Tensor {
	return tensor.Interpolate(x, u.InterpolateOptions)
}

// Parameters is empty.
func (Upsample) Parameters() []*Parameter { return nil }

// GroupNorm normalises each sample over groups of channels, then scales by
// Weight and shifts by Bias ([C] each): PyTorch's nn.GroupNorm (see
// tensor.GroupNorm). It keeps no running statistics, so training and
// evaluation compute the same.
type GroupNorm struct {
	Weight, Bias *Parameter // nil with NoAffine
	Groups       int
	Channels     int
	Eps          float64
}

// NewGroupNorm returns a GroupNorm of groups groups over channels
// channels (groups must divide channels), weight ones and bias zeros.
func NewGroupNorm(groups, channels int, opts ...Option) *GroupNorm {
	c, err := newConfig("GroupNorm", opts)
	if err == nil && (groups <= 0 || channels <= 0 || channels%groups != 0) {
		err = errs.New("nn", "GroupNorm", errs.ErrValue, "%d groups must be positive and divide the %d channels", groups, channels)
	}
	l := &GroupNorm{Groups: groups, Channels: channels, Eps: c.eps}
	if c.noAfine && err == nil {
		return l
	}
	var w, b *tensor.Tensor
	if err == nil {
		w, b = tensor.Ones(c.dt, channels), tensor.Zeros(c.dt, channels)
	}
	l.Weight = newParam("weight", w, err)
	l.Bias = newParam("bias", b, err)
	return l
}

// Forward normalises x [N, C, ...].
func (l *GroupNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	if l.Groups <= 0 || l.Channels <= 0 {
		return fail("GroupNorm", errs.ErrValue, "%d groups of %d channels (build the layer with NewGroupNorm)", l.Groups, l.Channels)
	}
	var w, b *tensor.Tensor
	if l.Weight != nil {
		if err := l.Weight.Value.Err(); err != nil {
			return tensor.Failed(err)
		}
		w = l.Weight.Value
	}
	if l.Bias != nil {
		b = l.Bias.Value
	}
	if valid(x) && (x.Rank() < 2 || x.Shape()[1] != l.Channels) {
		return fail("GroupNorm", errs.ErrShape, "input %v must be [N, %d, ...]", x.Shape(), l.Channels)
	}
	return tensor.GroupNorm(x, l.Groups, w, b, l.Eps)
}

// Parameters returns the weight and bias (none with NoAffine).
func (l *GroupNorm) Parameters() []*Parameter { return params(l.Weight, l.Bias) }

// BatchNorm normalises each channel (axis 1) of its input to zero mean and
// unit variance, then scales by Weight and shifts by Bias ([C] each):
// PyTorch's nn.BatchNorm1d (input [N, C] or [N, C, L]) and nn.BatchNorm2d
// ([N, C, H, W]).
//
// While training it normalises by the batch's statistics and updates its
// running ones; in evaluation mode it normalises by the running ones (see
// tensor.BatchNorm). Its buffers are PyTorch's: running_mean (zeros),
// running_var (ones) and num_batches_tracked (an I64 scalar), so a
// PyTorch state dict saved as safetensors loads into it. A new BatchNorm
// is in training mode, as in PyTorch; one goroutine runs a model's
// training Forward at a time.
type BatchNorm struct {
	Weight, Bias *Parameter // nil with NoAffine
	// RunningMean, RunningVar and BatchesTracked are nil with
	// NoRunningStats.
	RunningMean, RunningVar, BatchesTracked *Buffer
	Features                                int
	Eps                                     float64
	// Momentum is the weight of a batch's statistics in the running ones,
	// unless CumulativeAverage, which weighs batch k by 1/k.
	Momentum          float64
	CumulativeAverage bool

	name  string
	ranks []int // the input ranks the layer takes
	err   error // the constructor's
	eval  atomic.Bool
}

// NewBatchNorm1d returns a BatchNorm of features channels for [N, C] or
// [N, C, L] inputs: weight ones, bias zeros, running mean zeros and
// running variance ones, as PyTorch's nn.BatchNorm1d.
func NewBatchNorm1d(features int, opts ...Option) *BatchNorm {
	return newBatchNorm("BatchNorm1d", features, []int{2, 3}, opts)
}

// NewBatchNorm2d returns a BatchNorm of features channels for [N, C, H, W]
// inputs, as PyTorch's nn.BatchNorm2d.
func NewBatchNorm2d(features int, opts ...Option) *BatchNorm {
	return newBatchNorm("BatchNorm2d", features, []int{4}, opts)
}

func newBatchNorm(name string, features int, ranks []int, opts []Option) *BatchNorm {
	c, err := newConfig(name, opts)
	if err == nil && features <= 0 {
		err = errs.New("nn", name, errs.ErrShape, "features %d must be positive", features)
	}
	if err == nil && (!(c.eps >= 0) || math.IsInf(c.eps, 0)) {
		err = errs.New("nn", name, errs.ErrValue, "eps %v must be finite and not negative", c.eps)
	}
	if err == nil && !c.cumulative && (math.IsNaN(c.momentum) || math.IsInf(c.momentum, 0)) {
		err = errs.New("nn", name, errs.ErrValue, "momentum %v must be finite", c.momentum)
	}
	b := &BatchNorm{Features: features, Eps: c.eps, Momentum: c.momentum, CumulativeAverage: c.cumulative, name: name, ranks: ranks, err: err}
	n := max(features, 1)
	if !c.noAfine {
		var w, bias *tensor.Tensor
		if err == nil {
			w, bias = tensor.Ones(c.dt, n), tensor.Zeros(c.dt, n)
		}
		b.Weight = newParam("weight", w, err)
		b.Bias = newParam("bias", bias, err)
	}
	if !c.noStats {
		rm, rv, nb := tensor.Zeros(c.dt, n), tensor.Ones(c.dt, n), tensor.Scalar(int64(0))
		if err != nil {
			rm, rv, nb = tensor.Failed(err), tensor.Failed(err), tensor.Failed(err)
		}
		b.RunningMean = &Buffer{Name: "running_mean", Value: rm}
		b.RunningVar = &Buffer{Name: "running_var", Value: rv}
		b.BatchesTracked = &Buffer{Name: "num_batches_tracked", Value: nb}
	}
	return b
}

// SetTraining switches between training (batch statistics, running ones
// updated) and evaluation (running statistics).
func (b *BatchNorm) SetTraining(on bool) { b.eval.Store(!on) }

// Forward normalises x.
func (b *BatchNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	name := b.name
	if name == "" {
		return fail("BatchNorm", errs.ErrValue, "build the layer with NewBatchNorm1d or NewBatchNorm2d")
	}
	if b.err != nil {
		return tensor.Failed(b.err)
	}
	if !valid(x) {
		return x
	}
	if s := x.Shape(); !slices.Contains(b.ranks, len(s)) || s[1] != b.Features {
		want := "[N, C, H, W]"
		if len(b.ranks) == 2 {
			want = "[N, C] or [N, C, L]"
		}
		return fail(name, errs.ErrShape, "input %v must be %s with C = %d", s, want, b.Features)
	}
	var w, bias, rm, rv *tensor.Tensor
	if b.Weight != nil {
		w = b.Weight.Value
	}
	if b.Bias != nil {
		bias = b.Bias.Value
	}
	training := !b.eval.Load()
	tracked := b.RunningMean != nil && b.RunningVar != nil
	if tracked {
		rm, rv = b.RunningMean.Value, b.RunningVar.Value
	}
	momentum := b.Momentum
	if training && tracked && b.CumulativeAverage {
		n, err := batchesTracked(b.BatchesTracked)
		if err != nil {
			return tensor.Failed(errs.Wrap("nn", name, nil, err, "num_batches_tracked"))
		}
		momentum = 1 / float64(n+1)
	}
	// Without running statistics the batch's normalise in both modes.
	y, m, v := tensor.BatchNorm(x, rm, rv, w, bias, training || !tracked, momentum, b.Eps)
	if err := y.Err(); err != nil {
		return tensor.Failed(errs.Retag("nn", name, err))
	}
	if training && tracked && m.Err() == nil && v.Err() == nil {
		b.RunningMean.Value, b.RunningVar.Value = m, v
		if nb := b.BatchesTracked; nb != nil && nb.Value.Err() == nil {
			nb.Value = nb.Value.AddScalar(1)
			_ = tensor.Realize(nb.Value) // a pending chain of counts would grow a step at a time
		}
	}
	return y
}

// batchesTracked reads the count of batches a BatchNorm has trained on
// (a readback; only the cumulative average needs it).
func batchesTracked(nb *Buffer) (int64, error) {
	if nb == nil {
		return 0, nil
	}
	v, err := nb.Value.Float64s()
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, errs.New("nn", "BatchNorm", errs.ErrShape, "num_batches_tracked has %d values, want one", len(v))
	}
	return int64(v[0]), nil
}

// Parameters returns the weight and bias (none with NoAffine).
func (b *BatchNorm) Parameters() []*Parameter { return params(b.Weight, b.Bias) }

// Buffers returns running_mean, running_var and num_batches_tracked (none
// with NoRunningStats).
func (b *BatchNorm) Buffers() []*Buffer {
	var bs []*Buffer
	for _, x := range []*Buffer{b.RunningMean, b.RunningVar, b.BatchesTracked} {
		if x != nil {
			bs = append(bs, x)
		}
	}
	return bs
}

// Dropout zeroes each element with probability P while training and scales
// the rest by 1/(1-P), so the expected value is unchanged; in evaluation
// mode it is the identity. Its masks come from a seeded generator (drawn
// on the host and moved to the input's device): the k-th training Forward
// of a Dropout built with one seed draws the same mask on every run and
// every device. A new Dropout is in training mode, as in PyTorch.
type Dropout struct {
	P    float64
	seed uint64
	eval atomic.Bool
	n    atomic.Uint64
}

// NewDropout returns a Dropout of probability p (in [0, 1); other values
// make Forward fail with ErrValue) drawing its masks from seed.
func NewDropout(p float64, seed uint64) *Dropout { return &Dropout{P: p, seed: seed} }

// SetTraining switches between training (dropping) and evaluation
// (identity).
func (d *Dropout) SetTraining(on bool) { d.eval.Store(!on) }

// Forward applies the mode's map to x.
func (d *Dropout) Forward(x *tensor.Tensor) *tensor.Tensor {
	if !(d.P >= 0 && d.P < 1) {
		return fail("Dropout", errs.ErrValue, "probability %v must be in [0, 1)", d.P)
	}
	if d.eval.Load() || d.P == 0 || !valid(x) {
		return x
	}
	if !x.DType().IsFloat() {
		return fail("Dropout", errs.ErrDType, "needs a floating input, have %v", x.DType())
	}
	seed := subSeed(d.seed, d.n.Add(1)-1)
	keep := tensor.Rand(dtype.F32, seed, x.Shape()...).To(x.Device()).GeScalar(d.P).Cast(x.DType())
	return x.Mul(keep).MulScalar(1 / (1 - d.P))
}

// Parameters is empty.
func (d *Dropout) Parameters() []*Parameter { return nil }
