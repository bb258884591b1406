package tensor

import (
	"math"

	"github.com/tessera-go/tessera/errs"
)

// Convolution, pooling and padding, built from views, Concat, Stack and
// Matmul: they run on every device, read their input through strided views
// (the im2col matrix is assembled by one Stack of the kernel's shifted
// windows), and are differentiable wherever those primitives are.

// PadMode says how Pad fills the border.
type PadMode int

// The padding modes, as NumPy's np.pad and PyTorch's F.pad name them.
const (
	PadConstant  PadMode = iota // a constant value
	PadReflect                  // the mirror image, not repeating the edge: [a b c] -> b | a b c | b
	PadReplicate                // the edge repeated: [a b c] -> a | a b c | c
)

// Pad widens each axis i by widths[i][0] elements before and widths[i][1]
// after (NumPy's per-axis pairs; len(widths) must be the rank), filling them
// by mode: PadConstant with value, PadReflect with the mirror image (each
// width below the axis extent), PadReplicate with the edge element.
func (t *Tensor) Pad(widths [][2]int, mode PadMode, value float64) *Tensor {
	const name = "Pad"
	if err := t.checkOperand(name); err != nil {
		return failed(err)
	}
	if len(widths) != t.Rank() {
		return fail(name, errs.ErrShape, "%d width pairs for a rank-%d tensor", len(widths), t.Rank())
	}
	for ax, w := range widths {
		n := t.lay.Shape[ax]
		switch {
		case w[0] < 0 || w[1] < 0:
			return fail(name, errs.ErrValue, "negative width %v on axis %d", w, ax)
		case mode == PadReflect && (w[0] >= n || w[1] >= n) && (w[0] > 0 || w[1] > 0):
			return fail(name, errs.ErrValue, "reflect width %v on axis %d needs an extent above it, have %d", w, ax, n)
		case mode == PadReplicate && n == 0 && (w[0] > 0 || w[1] > 0):
			return fail(name, errs.ErrValue, "replicate padding of an empty axis %d", ax)
		case mode < PadConstant || mode > PadReplicate:
			return fail(name, errs.ErrValue, "unknown mode %d", mode)
		}
	}
	y := t
	for ax, w := range widths {
		if w[0] == 0 && w[1] == 0 {
			continue
		}
		parts := make([]*Tensor, 0, 3)
		side := func(before bool, width int) *Tensor {
			shape := append([]int(nil), y.lay.Shape...)
			shape[ax] = width
			n := y.lay.Shape[ax]
			switch mode {
			case PadReflect:
				if before { // elements width..1, in that order
					return y.Slice(ax, width, 0, -1)
				}
				end := n - 2 - width
				if end < 0 {
					end = -n - 1 // through element 0 (a negative end counts from the end)
				}
				return y.Slice(ax, n-2, end, -1)
			case PadReplicate:
				at := 0
				if !before {
					at = n - 1
				}
				return y.Narrow(ax, at, 1).BroadcastTo(shape...)
			}
			return Full(y.DType(), value, shape...).To(y.Device())
		}
		if w[0] > 0 {
			parts = append(parts, side(true, w[0]))
		}
		parts = append(parts, y)
		if w[1] > 0 {
			parts = append(parts, side(false, w[1]))
		}
		y = Concat(parts, ax)
	}
	if y == t {
		return t.Contiguous()
	}
	return retag(name, y)
}

// Conv2dOptions are the hyper-parameters of Conv2d and Conv1d, as PyTorch
// names them. Zero values mean stride 1, padding 0, dilation 1, one group.
type Conv2dOptions struct {
	Stride   [2]int
	Padding  [2]int // zeros added on both sides of each spatial axis
	Dilation [2]int
	Groups   int
}

func (o Conv2dOptions) norm() Conv2dOptions {
	for i := range 2 {
		if o.Stride[i] == 0 {
			o.Stride[i] = 1
		}
		if o.Dilation[i] == 0 {
			o.Dilation[i] = 1
		}
	}
	if o.Groups == 0 {
		o.Groups = 1
	}
	return o
}

// Conv2d is the 2-D cross-correlation of PyTorch's conv2d: x [N, C, H, W]
// with weights w [O, C/groups, KH, KW], plus bias [O] when bias is not nil,
// giving [N, O, OH, OW] with OH = (H + 2*pad - dil*(KH-1) - 1)/stride + 1.
// It gathers the kernel's shifted windows of x into each image's im2col
// matrix (one Stack of strided views) and multiplies the weights by it with
// the GEMM, batched over the images.
func Conv2d(x, w, bias *Tensor, opt Conv2dOptions) *Tensor {
	const name = "Conv2d"
	for _, t := range []*Tensor{x, w} {
		if err := t.checkOperand(name); err != nil {
			return failed(err)
		}
	}
	o := opt.norm()
	if x.Rank() != 4 || w.Rank() != 4 {
		return fail(name, errs.ErrShape, "input %v and weights %v must be [N, C, H, W] and [O, C/groups, KH, KW]", x.lay.Shape, w.lay.Shape)
	}
	if x.DType() != w.DType() || !x.DType().IsFloat() {
		return fail(name, errs.ErrDType, "input %v and weights %v must share a float dtype", x.DType(), w.DType())
	}
	n, c, h, wd := x.lay.Shape[0], x.lay.Shape[1], x.lay.Shape[2], x.lay.Shape[3]
	oc, cg, kh, kw := w.lay.Shape[0], w.lay.Shape[1], w.lay.Shape[2], w.lay.Shape[3]
	g := o.Groups
	for i := range 2 {
		if o.Stride[i] < 0 || o.Padding[i] < 0 || o.Dilation[i] < 0 {
			return fail(name, errs.ErrValue, "stride %v, padding %v and dilation %v must not be negative", o.Stride, o.Padding, o.Dilation)
		}
	}
	if g < 1 || c%g != 0 || oc%g != 0 || cg != c/g {
		return fail(name, errs.ErrShape, "%d groups do not divide input channels %d and output channels %d into weights %v", g, c, oc, w.lay.Shape)
	}
	oh := (h+2*o.Padding[0]-o.Dilation[0]*(kh-1)-1)/o.Stride[0] + 1
	ow := (wd+2*o.Padding[1]-o.Dilation[1]*(kw-1)-1)/o.Stride[1] + 1
	if oh <= 0 || ow <= 0 || kh == 0 || kw == 0 {
		return fail(name, errs.ErrShape, "a %dx%d kernel (dilation %v) does not fit the %dx%d input padded by %v", kh, kw, o.Dilation, h, wd, o.Padding)
	}
	if bias != nil {
		if err := bias.checkOperand(name); err != nil {
			return failed(err)
		}
		if bias.Rank() != 1 || bias.lay.Shape[0] != oc {
			return fail(name, errs.ErrShape, "bias %v must be [%d]", bias.lay.Shape, oc)
		}
	}
	xp := x
	if o.Padding != [2]int{} {
		xp = x.Pad([][2]int{{0, 0}, {0, 0}, {o.Padding[0], o.Padding[0]}, {o.Padding[1], o.Padding[1]}}, PadConstant, 0)
	}
	// cols [N, C, KH*KW, OH, OW]: the KH*KW shifted windows [N, C, OH, OW]
	// stacked in one copy whose rows (OW elements) are read with the
	// stride's step; read as [N, C*KH*KW, OH*OW] it is each image's im2col
	// matrix, and the weights [O, C*KH*KW] multiply it batch by batch into
	// [N, O, OH*OW], already in NCHW order.
	wins := shiftedWindows(xp, [2]int{kh, kw}, o.Stride, o.Dilation, oh, ow)
	cols := Stack(wins, 2) // [N, C, KH*KW, OH, OW]
	var outs []*Tensor
	for gi := range g {
		cgi := cols.Narrow(1, gi*cg, cg).Reshape(n, cg*kh*kw, oh*ow)
		wg := w.Narrow(0, gi*(oc/g), oc/g).Reshape(oc/g, cg*kh*kw)
		outs = append(outs, wg.Matmul(cgi)) // [N, O/g, OH*OW]
	}
	y := outs[0]
	if g > 1 {
		y = Concat(outs, 1)
	}
	if bias != nil {
		y = y.Add(bias.Reshape(oc, 1))
	}
	return retag(name, y.Reshape(n, oc, oh, ow))
}

// Conv1d is Conv2d over one spatial axis: x [N, C, L] with weights
// [O, C/groups, K]; the options' first entries apply.
func Conv1d(x, w, bias *Tensor, opt Conv2dOptions) *Tensor {
	const name = "Conv1d"
	for _, t := range []*Tensor{x, w} {
		if err := t.checkOperand(name); err != nil {
			return failed(err)
		}
	}
	if x.Rank() != 3 || w.Rank() != 3 {
		return fail(name, errs.ErrShape, "input %v and weights %v must be [N, C, L] and [O, C/groups, K]", x.lay.Shape, w.lay.Shape)
	}
	o := opt.norm()
	o.Stride[1], o.Padding[1], o.Dilation[1] = 1, 0, 1
	y := Conv2d(x.Unsqueeze(3), w.Unsqueeze(3), bias, o)
	return retag(name, y.Squeeze(3))
}

// Pool2dOptions are the hyper-parameters of MaxPool2d and AvgPool2d, as
// PyTorch names them. A zero Stride means the kernel size; zero Dilation 1.
type Pool2dOptions struct {
	Kernel   [2]int
	Stride   [2]int
	Padding  [2]int
	Dilation [2]int // MaxPool2d only
}

// MaxPool2d takes the maximum of each window of x [N, C, H, W]; padding is
// -Inf, so it never wins (PyTorch's semantics), and NaN propagates.
func MaxPool2d(x *Tensor, opt Pool2dOptions) *Tensor {
	wins, err := poolWindows("MaxPool2d", x, opt, math.Inf(-1))
	if err != nil {
		return failed(err)
	}
	return retag("MaxPool2d", Stack(wins, 0).Max(0))
}

// AvgPool2d averages each window of x [N, C, H, W]; padded zeros count in
// the average (PyTorch's default count_include_pad).
func AvgPool2d(x *Tensor, opt Pool2dOptions) *Tensor {
	if opt.Dilation != [2]int{} && opt.Dilation != [2]int{1, 1} {
		return fail("AvgPool2d", errs.ErrValue, "dilation %v: average pooling has none", opt.Dilation)
	}
	wins, err := poolWindows("AvgPool2d", x, opt, 0)
	if err != nil {
		return failed(err)
	}
	return retag("AvgPool2d", Stack(wins, 0).Mean(0))
}

// poolWindows returns the kernel's shifted windows of x padded with pad,
// each [N, C, OH, OW].
func poolWindows(name string, x *Tensor, opt Pool2dOptions, pad float64) ([]*Tensor, error) {
	if err := x.checkOperand(name); err != nil {
		return nil, err
	}
	if x.Rank() != 4 {
		return nil, errs.New("tensor", name, errs.ErrShape, "input %v must be [N, C, H, W]", x.lay.Shape)
	}
	if !x.DType().IsFloat() {
		return nil, errs.New("tensor", name, errs.ErrDType, "needs a floating dtype, have %v", x.DType())
	}
	k, s, p, d := opt.Kernel, opt.Stride, opt.Padding, opt.Dilation
	for i := range 2 {
		if s[i] == 0 {
			s[i] = k[i]
		}
		if d[i] == 0 {
			d[i] = 1
		}
		if k[i] <= 0 || s[i] <= 0 || p[i] < 0 || d[i] <= 0 || 2*p[i] > k[i] {
			return nil, errs.New("tensor", name, errs.ErrValue, "kernel %v, stride %v, padding %v, dilation %v: kernel, stride, dilation positive, padding at most half the kernel", opt.Kernel, opt.Stride, p, opt.Dilation)
		}
	}
	h, w := x.lay.Shape[2], x.lay.Shape[3]
	oh := (h+2*p[0]-d[0]*(k[0]-1)-1)/s[0] + 1
	ow := (w+2*p[1]-d[1]*(k[1]-1)-1)/s[1] + 1
	if oh <= 0 || ow <= 0 {
		return nil, errs.New("tensor", name, errs.ErrShape, "a %v kernel does not fit the %dx%d input padded by %v", k, h, w, p)
	}
	xp := x
	if p != [2]int{} {
		xp = x.Pad([][2]int{{0, 0}, {0, 0}, {p[0], p[0]}, {p[1], p[1]}}, PadConstant, pad)
	}
	return shiftedWindows(xp, k, s, d, oh, ow), nil
}

// shiftedWindows returns, for each kernel position (i, j) in row-major
// order, the strided view [N, C, oh, ow] of xp [N, C, H, W] that the kernel
// element (i, j) meets at every output position.
func shiftedWindows(xp *Tensor, k, stride, dil [2]int, oh, ow int) []*Tensor {
	wins := make([]*Tensor, 0, k[0]*k[1])
	for i := range k[0] {
		for j := range k[1] {
			r0, c0 := i*dil[0], j*dil[1]
			wins = append(wins, xp.Slice(2, r0, r0+(oh-1)*stride[0]+1, stride[0]).Slice(3, c0, c0+(ow-1)*stride[1]+1, stride[1]))
		}
	}
	return wins
}
