package tensor

import (
	"github.com/tessera-go/tessera/errs"
)

// UnfoldOptions are the sliding-block geometry of Unfold and Fold,
// PyTorch's F.unfold and F.fold: a zero Stride or Dilation entry means 1
// (PyTorch's defaults; unlike the pools', the stride does not default to
// the kernel).
type UnfoldOptions struct {
	Kernel   [2]int // the block's height and width, positive
	Stride   [2]int
	Padding  [2]int // implicit zeros on both sides, not negative
	Dilation [2]int
}

// blocks checks the options for a padded h x w input and returns them
// with defaults filled in, and the number of block rows and columns.
func (o UnfoldOptions) blocks(op string, h, w int) (UnfoldOptions, int, int, error) {
	for i := range 2 {
		if o.Stride[i] == 0 {
			o.Stride[i] = 1
		}
		if o.Dilation[i] == 0 {
			o.Dilation[i] = 1
		}
		if o.Kernel[i] <= 0 || o.Stride[i] < 0 || o.Dilation[i] < 0 || o.Padding[i] < 0 {
			return o, 0, 0, errs.New("tensor", op, errs.ErrValue, "kernel %v, stride %v, dilation %v must be positive and padding %v not negative", o.Kernel, o.Stride, o.Dilation, o.Padding)
		}
	}
	n := [2]int{h, w}
	var out [2]int
	for i := range 2 {
		span := o.Dilation[i]*(o.Kernel[i]-1) + 1
		room := n[i] + 2*o.Padding[i] - span
		if room < 0 {
			return o, 0, 0, errs.New("tensor", op, errs.ErrShape, "a %v kernel (dilation %v) does not fit the %dx%d input padded by %v", o.Kernel, o.Dilation, h, w, o.Padding)
		}
		out[i] = room/o.Stride[i] + 1
	}
	return o, out[0], out[1], nil
}

// Unfold extracts the sliding blocks of x [N, C, H, W] as columns:
// [N, C*KH*KW, L], L the number of blocks, with column l holding block l's
// elements channel by channel, each channel's in row-major kernel order
// (PyTorch's F.unfold, im2col). An unbatched [C, H, W] gives
// [C*KH*KW, L]. The values are copied exactly (padding reads zeros), so it
// takes any dtype; it is differentiable, and its gradient is Fold.
func Unfold(x *Tensor, opt UnfoldOptions) *Tensor {
	const op = "Unfold"
	if err := x.checkOperand(op); err != nil {
		return failed(err)
	}
	switch x.Rank() {
	case 3:
		u := x.Unsqueeze(0)
		defer u.Release()
		return retag(op, Unfold(u, opt).Squeeze(0))
	case 4:
	default:
		return fail(op, errs.ErrShape, "input %v must be [N, C, H, W] or [C, H, W]", x.lay.Shape)
	}
	s := x.lay.Shape
	o, oh, ow, err := opt.blocks(op, s[2], s[3])
	if err != nil {
		return failed(err)
	}
	xp := x
	if p := o.Padding; p != [2]int{} {
		xp = x.Pad([][2]int{{0, 0}, {0, 0}, {p[0], p[0]}, {p[1], p[1]}}, PadConstant, 0)
		defer xp.Release()
	}
	wins := shiftedWindows(xp, o.Kernel, o.Stride, o.Dilation, oh, ow)
	st := Stack(wins, 2) // [N, C, KH*KW, OH, OW]
	for _, w := range wins {
		w.Release()
	}
	defer st.Release()
	return retag(op, st.Reshape(s[0], s[1]*o.Kernel[0]*o.Kernel[1], oh*ow))
}

// Fold sums columns of sliding blocks back into an image of size out:
// cols [N, C*KH*KW, L] gives [N, C, out[0], out[1]], each block's elements
// added at the positions Unfold with the same options took them from, so
// overlapping blocks add up and positions in the padding are dropped
// (PyTorch's F.fold, col2im; Fold(Unfold(x)) is x times the number of
// blocks covering each element). An unbatched [C*KH*KW, L] gives
// [C, out[0], out[1]]. L must be the number of blocks that fit out.
// Floats and integers as ScatterAdd takes them; differentiable, with
// Unfold its gradient. On a GPU overlapping float additions happen in an
// unspecified order, as ScatterAdd's.
func Fold(cols *Tensor, out [2]int, opt UnfoldOptions) *Tensor {
	const op = "Fold"
	if err := cols.checkOperand(op); err != nil {
		return failed(err)
	}
	switch cols.Rank() {
	case 2:
		u := cols.Unsqueeze(0)
		defer u.Release()
		return retag(op, Fold(u, out, opt).Squeeze(0))
	case 3:
	default:
		return fail(op, errs.ErrShape, "input %v must be [N, C*KH*KW, L] or [C*KH*KW, L]", cols.lay.Shape)
	}
	if out[0] <= 0 || out[1] <= 0 {
		return fail(op, errs.ErrValue, "output size %v must be positive", out)
	}
	o, oh, ow, err := opt.blocks(op, out[0], out[1])
	if err != nil {
		return failed(err)
	}
	s := cols.lay.Shape
	k := o.Kernel[0] * o.Kernel[1]
	if s[1]%k != 0 {
		return fail(op, errs.ErrShape, "input %v: %d rows are not a multiple of the kernel's %d elements", s, s[1], k)
	}
	if s[2] != oh*ow {
		return fail(op, errs.ErrShape, "input %v has %d blocks; an output of %v with these options has %dx%d", s, s[2], out, oh, ow)
	}
	n, c := s[0], s[1]/k
	hp, wp := out[0]+2*o.Padding[0], out[1]+2*o.Padding[1]
	if float64(n)*float64(c)*float64(hp)*float64(wp) > maxFoldElems {
		return fail(op, errs.ErrOutOfMemory, "a padded output of %dx%dx%dx%d elements", n, c, hp, wp)
	}
	// Where each block element lands in the padded image, flattened.
	pos := make([]int64, 0, k*oh*ow)
	for i := range o.Kernel[0] {
		for j := range o.Kernel[1] {
			for r := range oh {
				for q := range ow {
					y := i*o.Dilation[0] + r*o.Stride[0]
					x := j*o.Dilation[1] + q*o.Stride[1]
					pos = append(pos, int64(y*wp+x))
				}
			}
		}
	}
	idx := FromSlice(pos, len(pos)).To(cols.Device())
	defer idx.Release()
	src := cols.Reshape(n, c, k*oh*ow)
	defer src.Release()
	ix := idx.broadcastAlong(src.lay.Shape, 2)
	defer ix.Release()
	zero := filled(op, cols.Device(), cols.DType(), 0, []int{n, c, hp * wp})
	defer zero.Release()
	y := zero.ScatterAdd(2, ix, src)
	if y.err != nil {
		return retag(op, y)
	}
	img := y.Reshape(n, c, hp, wp)
	if o.Padding != [2]int{} {
		img = img.Narrow(2, o.Padding[0], out[0]).Narrow(3, o.Padding[1], out[1])
	}
	return retag(op, img)
}

// maxFoldElems bounds Fold's padded output in elements before its
// positions are computed: its size comes from the caller's numbers, which
// int arithmetic could overflow; the allocator checks what passes.
const maxFoldElems = 1 << 50
