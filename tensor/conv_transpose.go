package tensor

import (
	"github.com/tessera-go/tessera/errs"
)

// ConvTranspose2dOptions are the hyper-parameters of ConvTranspose2d, as
// PyTorch's conv_transpose2d names them. Zero values mean stride 1,
// padding 0, output padding 0, dilation 1, one group.
type ConvTranspose2dOptions struct {
	Stride  [2]int
	Padding [2]int // rows and columns removed from both sides of the full output
	// OutputPadding adds rows and columns at the bottom and right of the
	// output, so that it can match the input extent of a strided Conv2d
	// (which maps several extents to the same output); each must be
	// below the stride or the dilation of its axis.
	OutputPadding [2]int
	Dilation      [2]int
	Groups        int
}

// maxTransposedDim bounds every extent and hyper-parameter of
// ConvTranspose2d, so that the output extent (a sum of two products of
// them) cannot overflow an int.
const maxTransposedDim = 1 << 30

// ConvTranspose2d is PyTorch's conv_transpose2d (the "deconvolution" of
// decoders and upsampling layers): x [N, Cin, H, W] with weights w
// [Cin, Cout/groups, KH, KW], plus bias [Cout] when bias is not nil, gives
// [N, Cout, OH, OW] with OH = (H-1)*stride - 2*pad + dil*(KH-1) +
// output_padding + 1. Each input element adds its products with the
// kernel into the output at (i*stride - pad + u*dil, ...). It is the
// adjoint of Conv2d with the same weights and options: the same code
// computes Conv2d's input gradient (see transposed: a convolution, per
// output phase when strided). Backward is one rule: the input's gradient
// is Conv2d of dY by w, and the weights' gradient is x times dY's im2col
// matrix (the one that convolution wrote out, or on the CPU gathered
// again per image by the backend's Conv2dFilter).
func ConvTranspose2d(x, w, bias *Tensor, opt ConvTranspose2dOptions) *Tensor {
	const name = "ConvTranspose2d"
	for _, t := range []*Tensor{x, w} {
		if err := t.checkOperand(name); err != nil {
			return failed(err)
		}
	}
	o := Conv2dOptions{Stride: opt.Stride, Padding: opt.Padding, Dilation: opt.Dilation, Groups: opt.Groups}.norm()
	op := opt.OutputPadding
	if x.Rank() != 4 || w.Rank() != 4 {
		return fail(name, errs.ErrShape, "input %v and weights %v must be [N, Cin, H, W] and [Cin, Cout/groups, KH, KW]", x.lay.Shape, w.lay.Shape)
	}
	if x.DType() != w.DType() || !x.DType().IsFloat() {
		return fail(name, errs.ErrDType, "input %v and weights %v must share a float dtype", x.DType(), w.DType())
	}
	for i := range 2 {
		if o.Stride[i] < 1 || o.Padding[i] < 0 || o.Dilation[i] < 1 || op[i] < 0 {
			return fail(name, errs.ErrValue, "stride %v, padding %v, output padding %v and dilation %v must not be negative", o.Stride, o.Padding, op, o.Dilation)
		}
		if op[i] >= o.Stride[i] && op[i] >= o.Dilation[i] {
			return fail(name, errs.ErrValue, "output padding %v must be smaller than the stride %v or the dilation %v", op, o.Stride, o.Dilation)
		}
	}
	n, c, h, wd := x.lay.Shape[0], x.lay.Shape[1], x.lay.Shape[2], x.lay.Shape[3]
	wc, cog, kh, kw := w.lay.Shape[0], w.lay.Shape[1], w.lay.Shape[2], w.lay.Shape[3]
	g := o.Groups
	if g < 1 || wc != c || c%g != 0 || cog < 1 || cog > maxTransposedDim/g {
		return fail(name, errs.ErrShape, "weights %v must be [%d, Cout/groups, KH, KW] with %d groups dividing the input channels %d", w.lay.Shape, c, g, c)
	}
	cout := cog * g
	oh, okH := transposedExtent(h, kh, o.Stride[0], o.Padding[0], o.Dilation[0], op[0])
	ow, okW := transposedExtent(wd, kw, o.Stride[1], o.Padding[1], o.Dilation[1], op[1])
	if !okH || !okW {
		return fail(name, errs.ErrShape, "a %dx%d kernel (stride %v, padding %v, output padding %v, dilation %v) on the %dx%d input gives no output (or one too large)", kh, kw, o.Stride, o.Padding, op, o.Dilation, h, wd)
	}
	if bias != nil {
		if err := bias.checkOperand(name); err != nil {
			return failed(err)
		}
		if bias.Rank() != 1 || bias.lay.Shape[0] != cout {
			return fail(name, errs.ErrShape, "bias %v must be [%d]", bias.lay.Shape, cout)
		}
		if bias.DType() != x.DType() {
			return fail(name, errs.ErrDType, "bias %v must have the input's dtype %v", bias.DType(), x.DType())
		}
	}
	// geo is the Conv2d whose input gradient this is: input [N, Cout, OH,
	// OW] to output [N, Cin, H, W] with the same weights.
	geo := convGeom{n: n, c: cout, h: oh, w: ow, oc: c, kh: kh, kw: kw, oh: h, ow: wd, opt: o}
	wantX, wantW, wantB := x.wantsGrad(), w.wantsGrad(), bias.wantsGrad()
	xd, wdt := x.Detach(), w.Detach()
	defer xd.Release()
	defer wdt.Release()
	y := geo.transposed(name, xd, wdt)
	if bias != nil && y.err == nil {
		bd := bias.Detach()
		defer bd.Release()
		yb := y.Add(bd.Reshape(cout, 1, 1))
		y.Release()
		y = yb
	}
	if y.err != nil || !(wantX || wantW || wantB) {
		return retag(name, y)
	}
	// Saved: the weights for both gradients (the convolution of dY), the
	// input for the weights'.
	var save []*Tensor
	if wantX || wantW {
		save = append(save, wdt)
	}
	if wantW {
		save = append(save, xd)
	}
	return attach(y, name, func(gy *Tensor, s []*Tensor) []*Tensor {
		out := make([]*Tensor, 3)
		if wantB {
			out[2] = gy.Reshape(geo.n, geo.c, geo.h*geo.w).Sum(2).Sum(0)
		}
		if wantX || wantW {
			// The input's gradient is the convolution of dY; the weights'
			// multiplies x by dY's im2col matrix, which that convolution
			// wrote out unless the backend convolves directly (then the
			// backend's Conv2dFilter gathers it again).
			var dx, cols *Tensor
			if wantX {
				dx, cols = geo.forward("Backward", gy, s[0], nil)
			}
			if wantW {
				if cols == nil {
					out[1] = geo.filterGrad("Backward", gy, s[1])
				} else {
					out[1] = geo.weightGrad(s[1], cols)
				}
			}
			cols.Release()
			out[0] = dx
		}
		return out
	}, save, x, w, bias)
}

// transposedExtent is ConvTranspose2d's output extent along one axis,
// (in-1)*s - 2*p + d*(k-1) + op + 1, and whether it is positive; every
// argument is first bounded by maxTransposedDim so that it cannot overflow.
func transposedExtent(in, k, s, p, d, op int) (int, bool) {
	for _, v := range []int{in, k, s, p, d, op} {
		if v < 0 || v > maxTransposedDim {
			return 0, false
		}
	}
	if in < 1 || k < 1 {
		return 0, false
	}
	out := (in-1)*s - 2*p + d*(k-1) + op + 1
	return out, out >= 1
}
