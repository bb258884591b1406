package tensor

import (
	"math"
	"math/bits"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Convolution, pooling and padding, built from the backend's primitives
// (strided copies, Matmul, elementwise operations and reductions), so they
// run on every device. A convolution is one call on a backend with a
// direct convolution (device.Convolver: the CPU's implicit GEMM);
// elsewhere it copies one overlapping strided view of its padded input
// into the im2col matrix and multiplies the weights by it. Its gradient is
// one rule of its own (the weights' a GEMM of dY by the im2col matrix, or
// the backend's Conv2dFilter; the input's a convolution). Pools whose windows tile the input are one
// view and fused elementwise passes, with a rule of their own; other pools
// and Pad are differentiated through their pieces.

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
	if !t.wantsGrad() {
		return t.padOnce(widths, mode, value)
	}
	// With gradients, as a chain of views and Concats, whose rules give
	// the gradient.
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
				start, end := reflectSlice(before, width, n)
				return y.Slice(ax, start, end, -1)
			case PadReplicate:
				return y.Narrow(ax, edgeAt(before, n), 1).BroadcastTo(shape...)
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
		if y.err != nil { // e.g. a border too large to allocate
			return retag(name, y)
		}
	}
	if y == t {
		return t.Contiguous()
	}
	return retag(name, y)
}

// reflectSlice is the Slice (start, end, step -1) of an axis of n
// elements that PadReflect places before or after it, width elements:
// elements width down to 1 before, n-2 down to n-1-width after (an end of
// -n-1 reaches element 0, as a negative end counts from the end).
func reflectSlice(before bool, width, n int) (start, end int) {
	if before {
		return width, 0
	}
	if end = n - 2 - width; end < 0 {
		end = -n - 1
	}
	return n - 2, end
}

// edgeAt is the element PadReplicate repeats before or after an axis of n.
func edgeAt(before bool, n int) int {
	if before {
		return 0
	}
	return n - 1
}

// padOnce is Pad (its arguments checked) without gradients: the result
// allocated once and written region by region. The padded axes split it
// into up to 3^k regions (before, interior and after on each); each is
// one Copy from a view of t (on each axis the whole extent, a reversed
// slice for PadReflect, the edge element broadcast for PadReplicate), so
// t is read and the result written once, where a Concat per axis would
// write the whole result once per padded axis. PadConstant fills the
// result first and copies the interior.
func (t *Tensor) padOnce(widths [][2]int, mode PadMode, value float64) *Tensor {
	const name = "Pad"
	shape := slices.Clone(t.lay.Shape)
	var axes []int
	for ax, w := range widths {
		if w[0] == 0 && w[1] == 0 {
			continue
		}
		axes = append(axes, ax)
		if shape[ax] > layout.MaxElements-w[0]-w[1] {
			return fail(name, errs.ErrShape, "axis %d of %d padded by %v exceeds %d elements", ax, shape[ax], w, int64(layout.MaxElements))
		}
		shape[ax] += w[0] + w[1]
	}
	if len(axes) == 0 {
		return t.Contiguous()
	}
	in := t.lay.Shape
	return compute(name, t.DType(), shape, []*Tensor{t}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		if dst.Layout.Numel() == 0 {
			return nil
		}
		if mode == PadConstant {
			if err := be.Fill(dst, value); err != nil {
				return err
			}
		}
		// region copies the part of dst at d from the view s of t, where
		// the choices on axes[k:] are still open; border is set once a
		// choice fell outside the interior.
		var region func(k int, d, s layout.Layout, border bool) error
		region = func(k int, d, s layout.Layout, border bool) error {
			if k == len(axes) {
				if d.Numel() == 0 || (border && mode == PadConstant) {
					return nil
				}
				return be.Copy(device.Operand{Buf: dst.Buf, Layout: d}, device.Operand{Buf: src[0].Buf, Layout: s})
			}
			ax, w, n := axes[k], widths[axes[k]], in[axes[k]]
			mid, err := d.Narrow(ax, w[0], n)
			if err != nil {
				return err
			}
			if err := region(k+1, mid, s, border); err != nil {
				return err
			}
			for side, width := range w {
				if width == 0 {
					continue
				}
				at := 0
				if side == 1 {
					at = w[0] + n
				}
				part, err := d.Narrow(ax, at, width)
				if err != nil {
					return err
				}
				from := s // PadConstant: not read
				switch mode {
				case PadReflect:
					start, end := reflectSlice(side == 0, width, n)
					from, err = s.Slice(ax, start, end, -1)
				case PadReplicate:
					if from, err = s.Narrow(ax, edgeAt(side == 0, n), 1); err == nil {
						edge := slices.Clone(from.Shape)
						edge[ax] = width
						from, err = from.BroadcastTo(edge...)
					}
				}
				if err != nil {
					return err
				}
				if err := region(k+1, part, from, true); err != nil {
					return err
				}
			}
			return nil
		}
		return region(0, dst.Layout, src[0].Layout, false)
	})
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
// with weights w [O, C/groups, KH, KW] of x's (float) dtype, plus bias [O]
// of that dtype when bias is not nil, giving [N, O, OH, OW] with
// OH = (H + 2*pad - dil*(KH-1) - 1)/stride + 1.
// On the CPU (F32, F64) it is an implicit GEMM: the weights times each
// image's im2col matrix, whose panels the GEMM gathers from x as it packs
// them, so the matrix is never written out. Elsewhere it copies the
// kernel's windows of x into each image's im2col matrix (one copy of an
// overlapping strided view) and multiplies the weights by it with the
// GEMM, batched over the images. Backward is one rule: the weights'
// gradient is dY times the im2col matrix (saved, or gathered again per
// image by the CPU), the input's a convolution of dY (see transposed): no
// pass per kernel element.
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
	if !windowsFit(h, kh, o.Padding[0], o.Dilation[0]) || !windowsFit(wd, kw, o.Padding[1], o.Dilation[1]) {
		return fail(name, errs.ErrShape, "a %dx%d kernel (dilation %v) does not fit the %dx%d input padded by %v", kh, kw, o.Dilation, h, wd, o.Padding)
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
		if bias.DType() != x.DType() {
			return fail(name, errs.ErrDType, "bias %v must have the input's dtype %v", bias.DType(), x.DType())
		}
	}
	geo := convGeom{n: n, c: c, h: h, w: wd, oc: oc, kh: kh, kw: kw, oh: oh, ow: ow, opt: o}
	wantX, wantW, wantB := x.wantsGrad(), w.wantsGrad(), bias.wantsGrad()
	// The forward pass runs on detached operands (it records nothing);
	// the whole convolution is one node of the graph, with the rule below.
	xd, wdt := x.Detach(), w.Detach()
	defer xd.Release()
	defer wdt.Release()
	var bd *Tensor
	if bias != nil {
		bd = bias.Detach()
		defer bd.Release()
	}
	y, cols := geo.forward(name, xd, wdt, bd)
	defer cols.Release()
	if y.err != nil || !(wantX || wantW || wantB) {
		return retag(name, y)
	}
	// Saved: for the weights' gradient the im2col matrix, or the input
	// when the forward pass never wrote the matrix out (the backend's
	// Conv2dFilter gathers it again); the weights for the input's.
	var save []*Tensor
	if wantW {
		if cols != nil {
			save = append(save, cols)
		} else {
			save = append(save, xd)
		}
	}
	if wantX {
		save = append(save, wdt)
	}
	return attach(y, name, func(gy *Tensor, s []*Tensor) []*Tensor {
		out := make([]*Tensor, 3)
		if wantB {
			// Over each image's pixels (contiguous rows), then the images.
			out[2] = gy.Reshape(geo.n, geo.oc, geo.oh*geo.ow).Sum(2).Sum(0)
		}
		if wantW {
			if cols == nil {
				out[1] = geo.filterGrad("Backward", s[0], gy)
			} else {
				out[1] = geo.weightGrad(gy, s[0])
			}
			s = s[1:]
		}
		if wantX {
			out[0] = geo.transposed("Backward", gy, s[0])
		}
		return out
	}, save, x, w, bias)
}

// windowsFit reports whether a kernel of k taps dil apart fits an axis of
// extent n padded by p on both sides. It is checked before the output
// extent is computed, so that no product in it (or in the strides of the
// window views) can overflow.
func windowsFit(n, k, p, dil int) bool {
	if k < 1 || dil < 1 || p < 0 || p > math.MaxInt32 || n < 0 || n > math.MaxInt/4 {
		return false
	}
	return k-1 <= (n+2*p-1)/dil
}

// convGeom is the geometry of one Conv2d: input [n, c, h, w], weights
// [oc, c/groups, kh, kw], output [n, oc, oh, ow], and the normalised
// options.
type convGeom struct {
	n, c, h, w, oc, kh, kw, oh, ow int
	opt                            Conv2dOptions
}

// forward computes the convolution of x by w (plus bias when not nil).
// On a backend with a direct convolution (device.Convolver: the CPU's
// implicit GEMM, which gathers the im2col matrix inside its packing) it
// is one call for F32 and F64, and cols is nil. Otherwise it returns the
// im2col matrix it multiplied, [N, C*KH*KW, OH*OW] (see im2col), too: the
// product is the GEMM of each group's weights [O/g, C/g*KH*KW] by it,
// batched over the images, and lands in NCHW order.
func (geo convGeom) forward(op string, x, w, bias *Tensor) (y, cols *Tensor) {
	o := geo.opt
	if cv := convolver(x); cv != nil {
		y = compute(op, x.DType(), []int{geo.n, geo.oc, geo.oh, geo.ow}, []*Tensor{x, w}, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
			return cv.Conv2d(dst, src[0], src[1], geo.params())
		})
		if bias != nil {
			y = y.Add(bias.Reshape(geo.oc, 1, 1))
		}
		return y, nil
	}
	cols = geo.im2col(op, x)
	if cols.err != nil {
		return cols, cols
	}
	k := geo.c * geo.kh * geo.kw
	g, og, kg := o.Groups, geo.oc/o.Groups, k/o.Groups
	if g == 1 {
		y = w.Reshape(geo.oc, kg).Matmul(cols) // [N, O, OH*OW]
	} else {
		outs := make([]*Tensor, g)
		for gi := range g {
			outs[gi] = w.Narrow(0, gi*og, og).Reshape(og, kg).Matmul(cols.Narrow(1, gi*kg, kg))
		}
		y = Concat(outs, 1)
		for _, t := range outs {
			t.Release()
		}
	}
	if bias != nil {
		y = y.Add(bias.Reshape(geo.oc, 1))
	}
	return y.Reshape(geo.n, geo.oc, geo.oh, geo.ow), cols
}

// convolver returns x's backend as a device.Convolver when it is one and
// x's dtype is one it convolves (F32, F64), or nil.
func convolver(x *Tensor) device.Convolver {
	dev := x.Device()
	if dev == nil || (x.DType() != dtype.F32 && x.DType() != dtype.F64) {
		return nil
	}
	cv, _ := dev.Backend().(device.Convolver)
	return cv
}

// params are geo's options as a device.Convolver takes them.
func (geo convGeom) params() device.Conv2dParams {
	o := geo.opt
	return device.Conv2dParams{Stride: o.Stride, Padding: o.Padding, Dilation: o.Dilation, Groups: o.Groups}
}

// filterGrad is the gradient of the weights of the convolution geo of x,
// given the output's gradient gy: one device.Convolver call where the
// backend has it (no im2col matrix is written out), otherwise x's im2col
// matrix and weightGrad.
func (geo convGeom) filterGrad(op string, x, gy *Tensor) *Tensor {
	if cv := convolver(x); cv != nil {
		shape := []int{geo.oc, geo.c / geo.opt.Groups, geo.kh, geo.kw}
		return compute(op, x.DType(), shape, []*Tensor{x, gy}, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
			return cv.Conv2dFilter(dst, src[0], src[1], geo.params())
		})
	}
	cols := geo.im2col(op, x)
	defer cols.Release()
	return geo.weightGrad(gy, cols)
}

// im2col returns the im2col matrix of x, [N, C*KH*KW, OH*OW]: the padded
// input is one fill and one copy, the matrix one copy of an overlapping
// strided view of it (windowLayout).
func (geo convGeom) im2col(op string, x *Tensor) *Tensor {
	o := geo.opt
	xp := x
	if o.Padding != [2]int{} {
		p := o.Padding
		xp = embed(op, x, [2]int{geo.h + 2*p[0], geo.w + 2*p[1]}, p, [2]int{1, 1}, 0)
		defer xp.Release()
	}
	k, p := geo.c*geo.kh*geo.kw, geo.oh*geo.ow
	return compute(op, x.DType(), []int{geo.n, k, p}, []*Tensor{xp}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		win := windowLayout(src[0].Layout, [2]int{geo.kh, geo.kw}, o.Stride, o.Dilation, geo.oh, geo.ow)
		dl, err := layout.Contiguous(win.Shape...)
		if err != nil {
			return err
		}
		return be.Copy(device.Operand{Buf: dst.Buf, Layout: dl}, device.Operand{Buf: src[0].Buf, Layout: win})
	})
}

// weightGrad is the gradient of the weights, dY times the im2col matrix
// transposed, summed over the images: per group, [N, O/g, OH*OW] by
// [N, OH*OW, C/g*KH*KW] (a transposed view of cols, read in place by the
// GEMM), then a sum over N.
func (geo convGeom) weightGrad(gy, cols *Tensor) *Tensor {
	g := geo.opt.Groups
	og, kg := geo.oc/g, geo.c*geo.kh*geo.kw/g
	gy = gy.Reshape(geo.n, geo.oc, geo.oh*geo.ow)
	parts := make([]*Tensor, g)
	for gi := range g {
		gyg, cg := gy, cols
		if g > 1 {
			gyg, cg = gy.Narrow(1, gi*og, og), cols.Narrow(1, gi*kg, kg)
		}
		parts[gi] = gyg.Matmul(cg.T()).Sum(0)
	}
	dw := parts[0]
	if g > 1 {
		dw = Concat(parts, 0)
	}
	return dw.Reshape(geo.oc, geo.c/g, geo.kh, geo.kw)
}

// transposed is the transposed convolution of gy [N, OC, OH, OW] by w
// [OC, C/groups, KH, KW], giving [N, C, H, W]: each element of gy scatters
// its products with the kernel into the output at the positions the
// convolution geo gathers it from. It is Conv2d's input gradient and
// ConvTranspose2d's forward pass (one source of truth for both). It runs
// as a convolution (the fast forward path: the implicit GEMM on the CPU,
// one im2col copy and one GEMM elsewhere):
// the stride-1 correlation, with the forward dilation, of gy spread out by
// the stride (zeros between its elements) and framed by KH-1 dilated rows
// and columns less the padding, with the kernel flipped in both spatial
// axes and its input and output channels swapped within each group. Rows
// and columns of the result that no element of gy reaches (ConvTranspose2d's
// output padding) are zero.
//
// With a stride above 1 the spread gy would be mostly zeros (s² times the
// work at stride s), so it is split instead by output phase: the rows r
// with (r + pad) mod s = ph receive only the kernel taps u with u*dil mod
// s = ph, so each phase is a stride-1 transposed convolution of gy by
// those taps (evenly spaced, so a strided view of the kernel), and the
// phases are interleaved into the output by one fill and one strided copy
// each. Beyond maxPhases phases (large strides, as in a patch embedding)
// the many small passes would cost more than the zeros; those take the
// spread path.
func (geo convGeom) transposed(op string, gy, w *Tensor) *Tensor {
	o := geo.opt
	if o.Stride == [2]int{1, 1} || o.Stride[0] > maxPhases || o.Stride[1] > maxPhases || o.Stride[0]*o.Stride[1] > maxPhases {
		return geo.transposedUnit(op, gy, w)
	}
	var phases [2][]transposedPhase
	for a, d := range [2][2]int{{geo.h, geo.kh}, {geo.w, geo.kw}} {
		phases[a] = splitPhases(d[0], d[1], o.Stride[a], o.Padding[a], o.Dilation[a])
	}
	var parts []*Tensor
	var firsts [][2]int
	defer func() {
		for _, t := range parts {
			t.Release()
		}
	}()
	for _, p0 := range phases[0] {
		for _, p1 := range phases[1] {
			ws := w.Slice(2, p0.u0, p0.u0+(p0.taps-1)*p0.step+1, p0.step).
				Slice(3, p1.u0, p1.u0+(p1.taps-1)*p1.step+1, p1.step).Contiguous()
			sub := convGeom{n: geo.n, c: geo.c, h: p0.count, w: p1.count, oc: geo.oc, kh: p0.taps, kw: p1.taps, oh: geo.oh, ow: geo.ow,
				opt: Conv2dOptions{Stride: [2]int{1, 1}, Padding: [2]int{p0.pad, p1.pad}, Dilation: [2]int{p0.dil, p1.dil}, Groups: o.Groups}}
			parts = append(parts, sub.transposedUnit(op, gy, ws))
			firsts = append(firsts, [2]int{p0.first, p1.first})
			ws.Release()
		}
	}
	if len(parts) == 0 { // no tap reaches the output: all zeros
		return geo.transposedUnit(op, gy, w)
	}
	return compute(op, gy.DType(), []int{geo.n, geo.c, geo.h, geo.w}, parts, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		if err := be.Fill(dst, 0); err != nil {
			return err
		}
		dl := dst.Layout
		for i, sp := range src {
			sub := layout.Layout{Shape: sp.Layout.Shape, Strides: slices.Clone(dl.Strides), Offset: dl.Offset}
			sub.Offset += firsts[i][0]*dl.Strides[2] + firsts[i][1]*dl.Strides[3]
			sub.Strides[2] *= o.Stride[0]
			sub.Strides[3] *= o.Stride[1]
			if err := be.Copy(device.Operand{Buf: dst.Buf, Layout: sub}, sp); err != nil {
				return err
			}
		}
		return nil
	})
}

// maxPhases is the most output phases (stride[0]*stride[1]) transposed
// splits a strided transposed convolution into.
const maxPhases = 16

// transposedPhase is one output phase of a strided transposed
// convolution along one axis: the count output rows first, first+s, ...
// receive the taps u0, u0+step, ... (taps of them) of the kernel, which
// act on gy as a stride-1 transposed convolution with dilation dil and
// padding pad (negative when the phase starts past gy's first element).
type transposedPhase struct {
	first, count, u0, step, taps, pad, dil int
}

// splitPhases returns the phases of an axis of out output rows, kernel k,
// stride s, padding p and dilation d that have rows and taps. Output row r
// is gy's element i times tap u where r = i*s - p + u*d, so its phase
// ph = (r+p) mod s takes the taps with u*d mod s = ph, and gy's element
// m - t_u with t_u = (u*d - ph)/s, where r = ph - p + m*s.
func splitPhases(out, k, s, p, d int) []transposedPhase {
	var ps []transposedPhase
	// The first s rows are each the first row of its phase.
	for first := range min(s, out) {
		ph, m0 := (first+p)%s, (first+p)/s
		u0 := -1
		for u := range min(k, s) {
			if u*d%s == ph {
				u0 = u
				break
			}
		}
		if u0 < 0 {
			continue
		}
		step := s / gcd(s, d)
		taps := (k-1-u0)/step + 1
		t0 := (u0*d - ph) / s
		ps = append(ps, transposedPhase{first: first, count: (out-1-first)/s + 1, u0: u0, step: step, taps: taps,
			pad: m0 - t0, dil: step * d / s})
	}
	return ps
}

// gcd is the greatest common divisor of two positive integers.
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// transposedUnit is transposed computed directly on the spread gy (any
// stride; transposed sends only stride 1 here, and the all-zero case). At
// stride 1 with the same frame on both sides (gy's full extent) the frame
// is passed as the convolution's padding instead of being copied.
func (geo convGeom) transposedUnit(op string, gy, w *Tensor) *Tensor {
	o := geo.opt
	g, og, cg := o.Groups, geo.oc/o.Groups, geo.c/o.Groups
	// Per axis, dY's element i lands at lo + i*stride of the spread
	// gradient, an axis of extent in + (k-1)*dil; elements outside it only
	// met padding and are dropped.
	var off, ext, first, count [2]int
	for a, d := range [2][3]int{{geo.h, geo.kh, geo.oh}, {geo.w, geo.kw, geo.ow}} {
		in, k, out := d[0], d[1], d[2]
		s, span := o.Stride[a], (k-1)*o.Dilation[a]
		lo := span - o.Padding[a]
		ext[a] = in + span
		i0 := 0
		if lo < 0 {
			i0 = (-lo + s - 1) / s
		}
		i1 := min(out, (ext[a]-1-lo)/s+1)
		if i1 <= i0 {
			return filled(op, gy.Device(), gy.DType(), 0, []int{geo.n, geo.c, geo.h, geo.w})
		}
		first[a], count[a], off[a] = i0, i1-i0, lo+i0*s
	}
	wt := w.Reshape(g, og, cg, geo.kh, geo.kw).Permute(0, 2, 1, 3, 4).
		Slice(3, -1, -geo.kh-1, -1).Slice(4, -1, -geo.kw-1, -1).
		Contiguous().Reshape(geo.c, og, geo.kh, geo.kw)
	defer wt.Release()
	back := convGeom{n: geo.n, c: geo.oc, h: ext[0], w: ext[1], oc: geo.c, kh: geo.kh, kw: geo.kw, oh: geo.h, ow: geo.w,
		opt: Conv2dOptions{Stride: [2]int{1, 1}, Dilation: o.Dilation, Groups: g}}
	if o.Stride == [2]int{1, 1} && count == [2]int{geo.oh, geo.ow} &&
		ext[0]-off[0]-count[0] == off[0] && ext[1]-off[1]-count[1] == off[1] {
		// The frame is the same on both sides: it is the convolution's
		// own padding, and gy is read in place (a direct convolution pads
		// as it packs, without the framing copy).
		back.h, back.w, back.opt.Padding = geo.oh, geo.ow, off
		dx, cols := back.forward(op, gy, wt, nil)
		cols.Release()
		return dx
	}
	src := gy
	if count != [2]int{geo.oh, geo.ow} {
		src = gy.Narrow(2, first[0], count[0]).Narrow(3, first[1], count[1])
	}
	spread := embed(op, src, ext, off, o.Stride, 0)
	defer spread.Release()
	dx, cols := back.forward(op, spread, wt, nil)
	cols.Release()
	return dx
}

// windowLayout is the overlapping strided view [N, C, KH, KW, OH, OW] of
// the padded input xp [N, C, H, W] whose element (n, c, i, j, r, s) is the
// one kernel element (i, j) meets at output position (r, s): its rows in
// this order are the im2col matrix [N, C*KH*KW, OH*OW].
func windowLayout(xp layout.Layout, k, stride, dil [2]int, oh, ow int) layout.Layout {
	st := xp.Strides
	return layout.Layout{
		Shape:   []int{xp.Shape[0], xp.Shape[1], k[0], k[1], oh, ow},
		Strides: []int{st[0], st[1], dil[0] * st[2], dil[1] * st[3], stride[0] * st[2], stride[1] * st[3]},
		Offset:  xp.Offset,
	}
}

// embed returns x [..., h, w] placed in a tensor [..., hw[0], hw[1]]
// filled with v: x's element (i, j) of the last two axes lands at
// (off[0] + i*step[0], off[1] + j*step[1]). One fill and one strided copy;
// x must fit. It pads (step 1) and spreads (step > 1) images.
func embed(op string, x *Tensor, hw, off, step [2]int, v float64) *Tensor {
	r := x.Rank()
	shape := slices.Clone(x.lay.Shape)
	shape[r-2], shape[r-1] = hw[0], hw[1]
	return compute(op, x.DType(), shape, []*Tensor{x}, func(be device.Backend, dst device.Operand, src []device.Operand) error {
		if err := be.Fill(dst, v); err != nil {
			return err
		}
		dl := dst.Layout
		sub := layout.Layout{Shape: src[0].Layout.Shape, Strides: slices.Clone(dl.Strides), Offset: dl.Offset}
		sub.Offset += off[0]*dl.Strides[r-2] + off[1]*dl.Strides[r-1]
		sub.Strides[r-2] *= step[0]
		sub.Strides[r-1] *= step[1]
		return be.Copy(device.Operand{Buf: dst.Buf, Layout: sub}, src[0])
	})
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
// The zero value of each of the last three fields is PyTorch's default.
type Pool2dOptions struct {
	Kernel   [2]int
	Stride   [2]int
	Padding  [2]int
	Dilation [2]int // MaxPool2d only

	// CeilMode rounds the output size up (PyTorch's ceil_mode): a last
	// window that runs past the padded input still counts, provided it
	// starts inside the input or its left padding. What it covers past the
	// padding is padding too: -Inf for the maximum; for the mean, not
	// counted in the divisor.
	CeilMode bool
	// ExcludePad leaves padding out of AvgPool2d's divisor, so each window
	// is the mean of its input elements (PyTorch's count_include_pad=False).
	// AvgPool2d only.
	ExcludePad bool
	// DivisorOverride, when not 0, divides every window's sum by it instead
	// (PyTorch's divisor_override). AvgPool2d only.
	DivisorOverride int
}

// MaxPool2d takes the maximum of each window of x [N, C, H, W]; padding is
// -Inf, so it never wins (PyTorch's semantics), and NaN propagates. Of
// equal elements the first in row-major order is the result, as in
// PyTorch's scan (a window of -0 then +0 gives -0). Its gradient goes, as
// PyTorch's does, to one element of each window: the first in row-major
// order equal to the maximum (of a window of nothing but -Inf, its first
// input element, not padding), or a window's last NaN; windows that
// overlap add up.
func MaxPool2d(x *Tensor, opt Pool2dOptions) *Tensor {
	if opt.ExcludePad || opt.DivisorOverride != 0 {
		return fail("MaxPool2d", errs.ErrValue, "ExcludePad %v and DivisorOverride %d are AvgPool2d's options", opt.ExcludePad, opt.DivisorOverride)
	}
	tiles, wins, g, err := poolWindows("MaxPool2d", x, opt, math.Inf(-1))
	if err != nil {
		return failed(err)
	}
	var inInput func() []*Tensor
	if g.p != [2]int{} {
		// Top or left padding comes before a window's first input
		// element; bottom or right padding (a CeilMode window's too)
		// after it, where the routing never reaches it.
		dev := x.Device()
		inInput = func() []*Tensor { return g.inInput(dev) }
	}
	if tiles != nil {
		return tilePool("MaxPool2d", tiles, true, poolDivisor{}, inInput)
	}
	return windowPool("MaxPool2d", wins, true, poolDivisor{}, inInput)
}

// AvgPool2d averages each window of x [N, C, H, W]. As in PyTorch's
// avg_pool2d, padded zeros count in the divisor (count_include_pad) unless
// opt.ExcludePad, what a CeilMode window covers past the padding does not,
// and a DivisorOverride replaces the divisor.
func AvgPool2d(x *Tensor, opt Pool2dOptions) *Tensor {
	if opt.Dilation != [2]int{} && opt.Dilation != [2]int{1, 1} {
		return fail("AvgPool2d", errs.ErrValue, "dilation %v: average pooling has none", opt.Dilation)
	}
	tiles, wins, g, err := poolWindows("AvgPool2d", x, opt, 0)
	if err != nil {
		return failed(err)
	}
	mean := g.divisor(opt)
	if mean.perWindow != nil {
		mean.perWindow = mean.perWindow.Cast(x.DType()).To(x.Device())
	}
	if tiles != nil {
		return tilePool("AvgPool2d", tiles, false, mean, nil)
	}
	return windowPool("AvgPool2d", wins, false, mean, nil)
}

// MaxPool1d is MaxPool2d over one spatial axis, as PyTorch's max_pool1d:
// x [N, C, L]; the options' first entries apply (Kernel[0], Stride[0],
// Padding[0], Dilation[0]), and CeilMode.
func MaxPool1d(x *Tensor, opt Pool2dOptions) *Tensor {
	return pool1d("MaxPool1d", x, opt, MaxPool2d)
}

// AvgPool1d is AvgPool2d over one spatial axis, as PyTorch's avg_pool1d:
// x [N, C, L]; the options' first entries apply (Kernel[0], Stride[0],
// Padding[0]), and CeilMode, ExcludePad and DivisorOverride.
func AvgPool1d(x *Tensor, opt Pool2dOptions) *Tensor {
	return pool1d("AvgPool1d", x, opt, AvgPool2d)
}

// pool1d runs pool2d on x [N, C, L] seen as [N, C, L, 1], with a kernel
// of one column.
func pool1d(name string, x *Tensor, opt Pool2dOptions, pool2d func(*Tensor, Pool2dOptions) *Tensor) *Tensor {
	if err := x.checkOperand(name); err != nil {
		return failed(err)
	}
	if x.Rank() != 3 {
		return fail(name, errs.ErrShape, "input %v must be [N, C, L]", x.lay.Shape)
	}
	o := opt
	o.Kernel[1], o.Stride[1], o.Padding[1], o.Dilation[1] = 1, 1, 0, 0
	return retag(name, pool2d(x.Unsqueeze(3), o).Squeeze(3))
}

// AdaptiveAvgPool2d averages x [N, C, H, W] into an output of size[0] x
// size[1], as PyTorch's adaptive_avg_pool2d: output row i averages input
// rows floor(i*H/OH) up to ceil((i+1)*H/OH), and columns alike, so the
// windows nearly split the input evenly; they overlap where OH does not
// divide H, and repeat rows where OH > H. Size {1, 1} is global average
// pooling. Where the sizes divide H and W it is AvgPool2d with the
// quotients as kernel; otherwise each axis is averaged window by window
// (a mean over a narrowed view each, joined), so a NaN or an infinity
// reaches only the windows that hold it. A zero size gives an empty
// result; an empty H or W (with a nonzero size) has nothing to average
// (ErrShape), and more than maxAdaptiveWindows windows along an axis are
// refused (ErrValue).
func AdaptiveAvgPool2d(x *Tensor, size [2]int) *Tensor {
	return adaptivePool("AdaptiveAvgPool2d", x, size, AvgPool2d, func() *Tensor {
		return adaptiveMean(adaptiveMean(x, 2, size[0]), 3, size[1])
	})
}

// adaptivePool checks adaptive pooling's operand x and output size, and
// returns an empty result for an empty size, pool with the quotients as
// kernel where the size divides H and W, and general's result otherwise.
func adaptivePool(name string, x *Tensor, size [2]int, pool func(*Tensor, Pool2dOptions) *Tensor, general func() *Tensor) *Tensor {
	if err := x.checkOperand(name); err != nil {
		return failed(err)
	}
	if x.Rank() != 4 {
		return fail(name, errs.ErrShape, "input %v must be [N, C, H, W]", x.lay.Shape)
	}
	if !x.DType().IsFloat() {
		return fail(name, errs.ErrDType, "needs a floating dtype, have %v", x.DType())
	}
	n, c, h, w := x.lay.Shape[0], x.lay.Shape[1], x.lay.Shape[2], x.lay.Shape[3]
	oh, ow := size[0], size[1]
	if oh < 0 || ow < 0 || oh > maxAdaptiveWindows || ow > maxAdaptiveWindows {
		return fail(name, errs.ErrValue, "output size %v: each at least 0 and at most %d", size, maxAdaptiveWindows)
	}
	if oh == 0 || ow == 0 {
		return retag(name, Zeros(x.DType(), n, c, oh, ow).To(x.Device()))
	}
	if h == 0 || w == 0 {
		return fail(name, errs.ErrShape, "input %v: an empty H or W has no windows to pool into %v", x.lay.Shape, size)
	}
	if h%oh == 0 && w%ow == 0 {
		return retag(name, pool(x, Pool2dOptions{Kernel: [2]int{h / oh, w / ow}}))
	}
	return retag(name, general())
}

// maxAdaptiveWindows bounds adaptive pooling's output size along an axis:
// AdaptiveAvgPool2d runs one mean a window, AdaptiveMaxPool2d builds index
// tables of that length times the longest window.
const maxAdaptiveWindows = 1 << 16

// AdaptiveMaxPool2d takes the maximum of x [N, C, H, W] over the windows
// of AdaptiveAvgPool2d (PyTorch's adaptive_max_pool2d, its values): NaN
// propagates, and of equal elements the first in row-major order is the
// result and takes the gradient, as PyTorch's scan does. Where the sizes
// divide H and W it is MaxPool2d with the quotients as kernel; otherwise
// the windows are gathered (IndexSelect along each axis, windows shorter
// than the longest filled with -Inf after their elements) into tiles
// [N, C, OH, KH, OW, KW], which max pooling reduces, so overlapping windows
// add their gradients up through the gathers. Sizes are checked as for
// AdaptiveAvgPool2d.
func AdaptiveMaxPool2d(x *Tensor, size [2]int) *Tensor {
	const name = "AdaptiveMaxPool2d"
	return adaptivePool(name, x, size, MaxPool2d, func() *Tensor { return adaptiveMaxTiles(name, x, size) })
}

// adaptiveMaxTiles is AdaptiveMaxPool2d where the sizes do not divide H
// and W: the windows gathered into tiles, reduced by max pooling.
func adaptiveMaxTiles(name string, x *Tensor, size [2]int) *Tensor {
	n, c, h, w := x.lay.Shape[0], x.lay.Shape[1], x.lay.Shape[2], x.lay.Shape[3]
	oh, ow := size[0], size[1]
	rows, kh, err := adaptiveIndex(name, h, oh)
	if err != nil {
		return failed(err)
	}
	cols, kw, err := adaptiveIndex(name, w, ow)
	if err != nil {
		return failed(err)
	}
	// Index h (w) reads the -Inf row (column) padded after the input.
	xp := x.Pad([][2]int{{0, 0}, {0, 0}, {0, 1}, {0, 1}}, PadConstant, math.Inf(-1))
	tiles := xp.IndexSelect(2, rows).IndexSelect(3, cols).Reshape(n, c, oh, kh, ow, kw)
	if err := tiles.Err(); err != nil {
		return failed(errs.Retag("tensor", name, err))
	}
	// A short window's -Inf fill comes after its elements: no masks.
	return tilePool(name, tiles, true, poolDivisor{}, nil)
}

// adaptiveIndex returns the positions adaptive pooling's out windows read
// along an axis of n, window i's at [i*k, (i+1)*k) for the longest
// window's length k: its elements (adaptiveWindow), then n (a position
// past the axis) for the rest, as an I64 tensor of out*k. More
// than maxAdaptiveIndex positions are refused (ErrOutOfMemory): a
// broadcast view's axis can be long.
func adaptiveIndex(name string, n, out int) (*Tensor, int, error) {
	bounds := make([][2]int, out)
	k := 0
	for i := range bounds {
		start, end := adaptiveWindow(i, n, out)
		bounds[i] = [2]int{start, end}
		k = max(k, end-start)
	}
	if k > maxAdaptiveIndex/out {
		return nil, 0, errs.New("tensor", name, errs.ErrOutOfMemory, "%d windows of up to %d elements along an axis of %d: over the %d gathered positions allowed", out, k, n, maxAdaptiveIndex)
	}
	idx := make([]int64, 0, out*k)
	for _, b := range bounds {
		for j := range k {
			p := int64(n)
			if b[0]+j < b[1] {
				p = int64(b[0] + j)
			}
			idx = append(idx, p)
		}
	}
	return FromSlice(idx, out*k), k, nil
}

// maxAdaptiveIndex bounds AdaptiveMaxPool2d's index tables (2^26
// positions, 512 MiB of I64 on the host).
const maxAdaptiveIndex = 1 << 26

// adaptiveWindow returns adaptive pooling's window i of out along an axis
// of n: floor(i*n/out) up to ceil((i+1)*n/out). The products are taken in
// 128 bits: a broadcast view's axis may be long enough for them to
// overflow; the quotients, at most n, do not.
func adaptiveWindow(i, n, out int) (start, end int) {
	div := func(i int) (q int, exact bool) {
		hi, lo := bits.Mul64(uint64(i), uint64(n))
		qu, r := bits.Div64(hi, lo, uint64(out))
		return int(qu), r == 0
	}
	start, _ = div(i)
	end, exact := div(i + 1)
	if !exact {
		end++
	}
	return start, end
}

// adaptiveMean averages axis of x into out windows (adaptiveWindow): one
// mean over a narrowed view a window, joined along the axis.
func adaptiveMean(x *Tensor, axis, out int) *Tensor {
	n := x.lay.Shape[axis]
	if n == out {
		return x // every window is one element
	}
	parts := make([]*Tensor, out)
	for i := range parts {
		start, end := adaptiveWindow(i, n, out)
		parts[i] = x.Narrow(axis, start, end-start).MeanKeepDims(axis)
	}
	return Concat(parts, axis)
}

// poolDivisor is what AvgPool2d divides each window's sum by: k for all
// windows, or where perWindow is set, its element for each window
// ([OH, OW], broadcast over N and C).
type poolDivisor struct {
	k         float64
	perWindow *Tensor
}

// divide returns sum (or a gradient, [.., OH, OW]) divided by d.
func (d poolDivisor) divide(sum *Tensor) *Tensor {
	if d.perWindow != nil {
		return sum.Div(d.perWindow)
	}
	return sum.DivScalar(d.k)
}

// poolGeom is the geometry of a pooling: input [.., h, w], kernel,
// stride, padding and dilation normalised, output oh x ow.
type poolGeom struct {
	h, w, oh, ow int
	k, s, p, d   [2]int
}

// inInput returns, for each kernel position in row-major order, a Bool
// [OH, OW] mask on dev of the windows whose element at that position is
// in the input rather than the padding; nil for a position where every
// window's is.
func (g poolGeom) inInput(dev device.Device) []*Tensor {
	masks := make([]*Tensor, 0, g.k[0]*g.k[1])
	for i := range g.k[0] {
		for j := range g.k[1] {
			m := make([]bool, 0, g.oh*g.ow)
			all := true
			for oh := range g.oh {
				r := oh*g.s[0] - g.p[0] + i*g.d[0]
				for ow := range g.ow {
					c := ow*g.s[1] - g.p[1] + j*g.d[1]
					in := r >= 0 && r < g.h && c >= 0 && c < g.w
					m = append(m, in)
					all = all && in
				}
			}
			if all {
				masks = append(masks, nil)
			} else {
				masks = append(masks, FromSlice(m, g.oh, g.ow).To(dev))
			}
		}
	}
	return masks
}

// poolOutSize is the number of windows along an axis of n elements,
// padded by p on both sides, of a kernel k with dilation d and stride s,
// as PyTorch's pooling counts them: rounded down, or with ceil up, then
// less one if the last window would start past the input and its left
// padding. The caller has checked that one window fits (windowsFit).
func poolOutSize(n, k, s, p, d int, ceil bool) int {
	span := n + 2*p - d*(k-1) - 1
	out := span/s + 1
	if ceil && span%s != 0 {
		out++
		if (out-1)*s >= n+p {
			out--
		}
	}
	return out
}

// divisor returns what AvgPool2d divides each window's sum by: one number
// when every window has the same (the kernel's area, or the override),
// else (CeilMode windows that run past the padding, or ExcludePad where
// there is padding) a float64 [OH, OW] tensor of each window's divisor,
// PyTorch's: the window clipped to the padded input (to the input itself
// with ExcludePad).
func (g poolGeom) divisor(opt Pool2dOptions) poolDivisor {
	if opt.DivisorOverride != 0 {
		return poolDivisor{k: float64(opt.DivisorOverride)}
	}
	counts := func(n, oh, k, s, p int) ([]float64, bool) {
		c := make([]float64, oh)
		same := true
		for i := range c {
			start := i*s - p
			end := min(start+k, n+p)
			if opt.ExcludePad {
				start, end = max(start, 0), min(end, n)
			}
			c[i] = float64(end - start)
			same = same && c[i] == float64(k)
		}
		return c, same
	}
	rows, sameRows := counts(g.h, g.oh, g.k[0], g.s[0], g.p[0])
	cols, sameCols := counts(g.w, g.ow, g.k[1], g.s[1], g.p[1])
	if sameRows && sameCols {
		return poolDivisor{k: float64(g.k[0] * g.k[1])}
	}
	d := make([]float64, 0, g.oh*g.ow)
	for _, r := range rows {
		for _, c := range cols {
			d = append(d, r*c)
		}
	}
	return poolDivisor{perWindow: FromSlice(d, g.oh, g.ow)}
}

// poolWindows returns the windows of x padded with pad: when they tile it
// (the stride is the kernel, dilation 1), as one view tiles
// [N, C, OH, KH, OW, KW] for tilePool; otherwise as the kernel's shifted
// windows, each [N, C, OH, OW], which the caller stacks and reduces.
func poolWindows(name string, x *Tensor, opt Pool2dOptions, pad float64) (tiles *Tensor, wins []*Tensor, g poolGeom, err error) {
	if err := x.checkOperand(name); err != nil {
		return nil, nil, g, err
	}
	if x.Rank() != 4 {
		return nil, nil, g, errs.New("tensor", name, errs.ErrShape, "input %v must be [N, C, H, W]", x.lay.Shape)
	}
	if !x.DType().IsFloat() {
		return nil, nil, g, errs.New("tensor", name, errs.ErrDType, "needs a floating dtype, have %v", x.DType())
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
			return nil, nil, g, errs.New("tensor", name, errs.ErrValue, "kernel %v, stride %v, padding %v, dilation %v: kernel, stride, dilation positive, padding at most half the kernel", opt.Kernel, opt.Stride, p, opt.Dilation)
		}
	}
	h, w := x.lay.Shape[2], x.lay.Shape[3]
	if !windowsFit(h, k[0], p[0], d[0]) || !windowsFit(w, k[1], p[1], d[1]) {
		return nil, nil, g, errs.New("tensor", name, errs.ErrShape, "a %v kernel (dilation %v) does not fit the %dx%d input padded by %v", k, d, h, w, p)
	}
	oh := poolOutSize(h, k[0], s[0], p[0], d[0], opt.CeilMode)
	ow := poolOutSize(w, k[1], s[1], p[1], d[1], opt.CeilMode)
	g = poolGeom{h: h, w: w, oh: oh, ow: ow, k: k, s: s, p: p, d: d}
	// The padded extent the windows read: a CeilMode window may run past
	// the padding, and more padding stands in for what it reads there.
	needH := (oh-1)*s[0] + d[0]*(k[0]-1) + 1
	needW := (ow-1)*s[1] + d[1]*(k[1]-1) + 1
	xp := x
	if padH, padW := max(p[0], needH-h-p[0]), max(p[1], needW-w-p[1]); p != [2]int{} || padH > p[0] || padW > p[1] {
		xp = x.Pad([][2]int{{0, 0}, {0, 0}, {p[0], padH}, {p[1], padW}}, PadConstant, pad)
		if xp.err != nil {
			return nil, nil, g, errs.Retag("tensor", name, xp.err)
		}
	}
	if s == k && d == [2]int{1, 1} {
		// Rows and columns past the last whole tile are never read.
		if xp.lay.Shape[2] != oh*k[0] {
			xp = xp.Narrow(2, 0, oh*k[0])
		}
		if xp.lay.Shape[3] != ow*k[1] {
			xp = xp.Narrow(3, 0, ow*k[1])
		}
		n, c := x.lay.Shape[0], x.lay.Shape[1]
		return xp.Reshape(n, c, oh, k[0], ow, k[1]), nil, g, nil
	}
	return nil, shiftedWindows(xp, k, s, d, oh, ow), g, nil
}

// useTilePooler lets tilePool take a backend's device.TilePooler; tests
// turn it off to compare with the fused passes.
var useTilePooler = true

// tilePool reduces each tile of tiles [N, C, OH, KH, OW, KW] to its
// maximum (max) or mean: the result is the elementwise Maximum (or sum) of
// the KH*KW strided slices [N, C, OH, OW], one fused pass rather than a
// reduction over two short strided axes. Its gradient is fused passes
// too: the maximum's goes to one element of each tile, where PyTorch's
// max_pool2d sends it (routeMax); the mean's is spread evenly over the
// tile. For the maximum in F32 and F64 on a backend that is a
// device.TilePooler (the CPU), its direct kernels compute both, with the
// same bits, unless inInput is set (tiles with padding before their input
// elements, see routeMax), which they do not know of.
func tilePool(name string, tiles *Tensor, max bool, mean poolDivisor, inInput func() []*Tensor) *Tensor {
	sh := tiles.lay.Shape
	n, c, oh, kh, ow, kw := sh[0], sh[1], sh[2], sh[3], sh[4], sh[5]
	td := tiles.Detach()
	defer td.Release()
	// slicesOf returns t's slices [N, C, OH, OW], one a kernel position,
	// in row-major kernel order.
	slicesOf := func(t *Tensor) []*Tensor {
		slices := make([]*Tensor, 0, kh*kw)
		for i := range kh {
			for j := range kw {
				slices = append(slices, t.Narrow(3, i, 1).Narrow(5, j, 1).Reshape(n, c, oh, ow))
			}
		}
		return slices
	}
	perTile := []int{n, c, oh, 1, ow, 1}
	var y *Tensor
	if pooler, ok := td.st.dev.Backend().(device.TilePooler); ok && max && useTilePooler && inInput == nil &&
		(td.DType() == dtype.F32 || td.DType() == dtype.F64) {
		// The backend's direct kernels: the bits of the fused passes
		// below, without their walks of runs KW elements long.
		y = compute(name, td.DType(), []int{n, c, oh, ow}, []*Tensor{td}, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
			return pooler.MaxTiles(dst, src[0])
		})
		y = attach(y, name, func(g *Tensor, s []*Tensor) []*Tensor {
			return []*Tensor{compute(name, g.DType(), sh, []*Tensor{s[0], s[1], g}, func(_ device.Backend, dst device.Operand, src []device.Operand) error {
				return pooler.MaxTilesGrad(dst, src[0], src[1], src[2])
			})}
		}, []*Tensor{td, y}, tiles)
	} else if max {
		y = foldSlices(slicesOf(td), scanMax)
		y = attach(y, name, func(g *Tensor, s []*Tensor) []*Tensor {
			// The elements each tile's gradient goes to, one slice of
			// the tiles a kernel position, stacked back into the
			// tiles' order [N, C, OH, KH, OW, KW].
			mask := Stack(routeMax(slicesOf(s[0]), s[1], masksOf(inInput)), 0).Reshape(kh, kw, n, c, oh, ow).Permute(2, 3, 4, 0, 5, 1)
			return []*Tensor{Where(mask, g.Reshape(perTile...), g.scalarLike(name, 0))}
		}, []*Tensor{td, y}, tiles)
	} else {
		y = mean.divide(foldSlices(slicesOf(td), (*Tensor).Add))
		y = attach(y, name, func(g *Tensor, _ []*Tensor) []*Tensor {
			return []*Tensor{mean.divide(g).Reshape(perTile...).BroadcastTo(sh...)}
		}, nil, tiles)
	}
	return retag(name, y)
}

// scanMax is one step of max pooling's fold, as PyTorch's max_pool2d scans
// a window: the next element where it is greater than the running maximum
// or NaN, else the running maximum (Maximum(next, running)). Of equal
// elements the first stays, so a window of -0 then +0 gives -0; a NaN
// wins.
func scanMax(running, next *Tensor) *Tensor { return next.Maximum(running) }

// masksOf returns f's masks, or nil when f is nil.
func masksOf(f func() []*Tensor) []*Tensor {
	if f == nil {
		return nil
	}
	return f()
}

// routeMax returns where max pooling sends each window's gradient, given
// the windows' elements (slices, each one kernel position's element of
// every window, in row-major kernel order) and the windows' maximum y: a
// Bool mask a slice, true at the first element equal to y or, where y is
// NaN, at the last NaN. It is PyTorch's max_pool2d routing, whose scan
// keeps the first strict maximum and any later NaN. Where inInput is not
// nil (a pool with padding before its windows' input elements), an
// element counts as equal only where its slice's mask (nil: everywhere)
// says it is input: padding (-Inf) equals y only in a window of nothing
// but -Inf, whose gradient PyTorch's scan sends to the first input
// element.
func routeMax(slices []*Tensor, y *Tensor, inInput []*Tensor) []*Tensor {
	masks := make([]*Tensor, len(slices))
	var seen *Tensor // windows whose first equal element has gone by
	for i, s := range slices {
		eq := s.Eq(y)
		if inInput != nil && inInput[i] != nil {
			eq = eq.And(inInput[i]) // padding equals y only where y is -Inf
		}
		if seen == nil {
			masks[i], seen = eq, eq
			continue
		}
		masks[i] = eq.And(seen.Not())
		seen = seen.Or(eq)
	}
	seen = nil // windows with a NaN after this slice
	for i := len(slices) - 1; i >= 0; i-- {
		nan := slices[i].IsNaN()
		last := nan
		if seen == nil {
			seen = nan
		} else {
			last = nan.And(seen.Not())
			seen = seen.Or(nan)
		}
		masks[i] = masks[i].Or(last)
	}
	return masks
}

// windowPool reduces the shifted windows of a pool whose windows overlap
// or leave gaps (shiftedWindows, each [N, C, OH, OW]) to their elementwise
// maximum (max) or mean: one fused pass over the KH*KW strided views,
// where stacking them and reducing the stack wrote KH*KW copies of the
// output first. The maximum's gradient goes to one element of each
// window, where PyTorch's max_pool2d sends it (routeMax); the mean's is
// Stack-then-Mean's. The views carry it back into the input, overlapping
// windows adding up.
func windowPool(name string, wins []*Tensor, max bool, mean poolDivisor, inInput func() []*Tensor) *Tensor {
	det := make([]*Tensor, len(wins))
	for i, w := range wins {
		det[i] = w.Detach()
	}
	defer func() {
		for _, d := range det {
			d.Release()
		}
	}()
	var y *Tensor
	if max {
		y = foldSlices(det, scanMax)
		save := append([]*Tensor{y}, det...)
		y = attach(y, name, func(g *Tensor, s []*Tensor) []*Tensor {
			zero := g.scalarLike(name, 0)
			grads := routeMax(s[1:], s[0], masksOf(inInput))
			for i, m := range grads {
				grads[i] = Where(m, g, zero)
			}
			return grads
		}, save, wins...)
	} else {
		y = mean.divide(foldSlices(det, (*Tensor).Add))
		y = attach(y, name, func(g *Tensor, _ []*Tensor) []*Tensor {
			share := mean.divide(g)
			grads := make([]*Tensor, len(wins))
			for i := range grads {
				grads[i] = share
			}
			return grads
		}, nil, wins...)
	}
	return retag(name, y)
}

// foldSlices combines same-shaped tensors with op, left to right.
func foldSlices(ts []*Tensor, op func(a, b *Tensor) *Tensor) *Tensor {
	acc := ts[0]
	for _, t := range ts[1:] {
		acc = op(acc, t)
	}
	return acc
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
