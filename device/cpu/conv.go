package cpu

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/gemm"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

var _ device.Convolver = (*Device)(nil)

// Conv2d is the implicit-GEMM convolution: for each image and group, the
// weights [O/g, C/g*KH*KW] times the image's im2col matrix
// [C/g*KH*KW, OH*OW], with the matrix's panels gathered from x as the GEMM
// packs them (gemm.F32Panels), so it is never written out; the products
// land in dst in NCHW order. F32 and F64 only; x may have any strides,
// weights that are not contiguous are copied first.
func (d *Device) Conv2d(dst, x, w device.Operand, p device.Conv2dParams) error {
	const op = "Conv2d"
	bufs, err := d.operands(op, dst, x, w)
	if err != nil {
		return err
	}
	db, xb, wb := bufs[0], bufs[1], bufs[2]
	dl, xl, wl := dst.Layout, x.Layout, w.Layout
	if xb.dt != wb.dt || xb.dt != db.dt {
		return errs.New("cpu", op, errs.ErrDType, "input %v, weights %v and output %v differ", xb.dt, wb.dt, db.dt)
	}
	if xb.dt != dtype.F32 && xb.dt != dtype.F64 {
		return errs.New("cpu", op, errs.ErrUnsupported, "not defined for %v (F32 and F64 only)", xb.dt)
	}
	g, geo, err := convGeometry(xl, wl, dl, p)
	if err != nil {
		return err
	}
	if !dl.IsContiguous() {
		return errs.New("cpu", op, errs.ErrShape, "output layout %v must be contiguous", dl.Strides)
	}
	if dl.Numel() == 0 {
		return nil
	}
	if !wl.IsContiguous() {
		cl, _ := layout.Contiguous(wl.Shape...)
		t := newTemp(d, wb.dt, cl.Numel())
		if err := d.copyInto(t, cl, wb, wl); err != nil {
			return err
		}
		wb, wl = t, cl
	}
	m, k := geo.oc/g, wl.Numel()/geo.oc
	n := geo.oh * geo.ow
	items := make([]gemm.Item, geo.n*g)
	for i := range items {
		img, gi := i/g, i%g
		items[i] = gemm.Item{A: wl.Offset + gi*m*k, C: dl.Offset + (img*geo.oc+gi*m)*n}
	}
	geo.xOff = make([]int, len(items))
	for i := range items {
		img, gi := i/g, i%g
		geo.xOff[i] = xl.Offset + img*xl.Strides[0] + gi*(geo.c/g)*geo.sC
	}
	var gerr error
	switch xb.dt {
	case dtype.F32:
		gerr = gemm.F32Panels(m, n, k, slice[float32](wb), k, convPanels[float32]{geo, slice[float32](xb)}, items, slice[float32](db), n)
	case dtype.F64:
		gerr = gemm.F64Panels(m, n, k, slice[float64](wb), k, convPanels[float64]{geo, slice[float64](xb)}, items, slice[float64](db), n)
	}
	return errs.Retag("cpu", op, gerr)
}

// convGeom is the geometry a convolution's panels are gathered with:
// input extent h x w with channel, row and column strides sC, sH, sW,
// kernel kh x kw, output extent oh x ow, and the options; xOff[i] is where
// item i's image and group start in x.
type convGeom struct {
	n, c, h, w, oc, kh, kw, oh, ow int
	sC, sH, sW                     int
	stride, pad, dil               [2]int
	xOff                           []int
}

// convGeometry checks the operands' shapes against each other and the
// parameters, and returns the groups and the geometry.
func convGeometry(xl, wl, dl layout.Layout, p device.Conv2dParams) (int, convGeom, error) {
	const op = "Conv2d"
	if xl.Rank() != 4 || wl.Rank() != 4 || dl.Rank() != 4 {
		return 0, convGeom{}, errs.New("cpu", op, errs.ErrShape, "input %v, weights %v and output %v must have rank 4", xl.Shape, wl.Shape, dl.Shape)
	}
	geo := convGeom{
		n: xl.Shape[0], c: xl.Shape[1], h: xl.Shape[2], w: xl.Shape[3],
		oc: wl.Shape[0], kh: wl.Shape[2], kw: wl.Shape[3], oh: dl.Shape[2], ow: dl.Shape[3],
		sC: xl.Strides[1], sH: xl.Strides[2], sW: xl.Strides[3],
		stride: p.Stride, pad: p.Padding, dil: p.Dilation,
	}
	g := p.Groups
	if g < 1 || geo.c%g != 0 || geo.oc%g != 0 || wl.Shape[1] != geo.c/g {
		return 0, geo, errs.New("cpu", op, errs.ErrShape, "%d groups do not split input %v and weights %v", g, xl.Shape, wl.Shape)
	}
	for a, e := range [2][3]int{{geo.h, geo.kh, geo.oh}, {geo.w, geo.kw, geo.ow}} {
		s, pd, dil := p.Stride[a], p.Padding[a], p.Dilation[a]
		if s < 1 || pd < 0 || pd > math.MaxInt32 || dil < 1 || dil > math.MaxInt32 || e[0] > math.MaxInt/4 || e[1] < 1 || e[1]-1 > (e[0]+2*pd-1)/dil || e[2] < 1 || e[2] > (e[0]+2*pd-dil*(e[1]-1)-1)/s+1 {
			return 0, geo, errs.New("cpu", op, errs.ErrShape, "input %v, kernel %v and output %v do not match stride %v, padding %v, dilation %v",
				xl.Shape, wl.Shape, dl.Shape, p.Stride, p.Padding, p.Dilation)
		}
	}
	if dl.Shape[0] != geo.n || dl.Shape[1] != geo.oc {
		return 0, geo, errs.New("cpu", op, errs.ErrShape, "output %v, want [%d %d %d %d]", dl.Shape, geo.n, geo.oc, geo.oh, geo.ow)
	}
	return g, geo, nil
}

// convPanels is the im2col matrix of each item (image and group) of a
// convolution as a gemm.Panels: B(k, q) with k = (channel, kernel row,
// kernel column) and q = (output row, output column) is the input element
// that kernel tap meets at that output pixel, or 0 in the padding.
type convPanels[T float32 | float64] struct {
	convGeom
	x []T
}

// maxRuns bounds the row runs one panel spans (a panel is at most this
// many pixels wide, each run at least one).
const maxRuns = 64

// run is the part of a panel's pixels that lies in one output row: panel
// columns j..j+n, whose input row at kernel row 0 is iy and input column
// at kernel column 0 is ix.
type run struct{ j, n, iy, ix int }

// PackB gathers the kc x width panel at (k0, j0) of item's im2col matrix.
// Each output row the panel's pixels span is one run; per kernel tap, a
// run of a stride-1 row with unit column stride is one copy with zeros at
// the padded ends, other runs are gathered element by element.
func (s convPanels[T]) PackB(dst []T, item, k0, j0, kc, cols, width int) {
	dst = dst[:kc*width]
	if cols < width {
		clear(dst)
	}
	var buf [maxRuns]run
	runs := buf[:0]
	if cols > maxRuns {
		runs = make([]run, 0, cols)
	}
	for j := 0; j < cols; {
		oy, ox := (j0+j)/s.ow, (j0+j)%s.ow
		n := min(cols-j, s.ow-ox)
		runs = append(runs, run{j: j, n: n, iy: oy*s.stride[0] - s.pad[0], ix: ox*s.stride[1] - s.pad[1]})
		j += n
	}
	taps := s.kh * s.kw
	c, u, v := k0/taps, k0%taps/s.kw, k0%s.kw
	base := s.xOff[item]
	contiguous := s.stride[1] == 1 && s.sW == 1
	for p := range kc {
		chOff := base + c*s.sC
		dy, dx := u*s.dil[0], v*s.dil[1]
		row := dst[p*width:]
		for _, r := range runs {
			d := row[r.j : r.j+r.n]
			iy := r.iy + dy
			if iy < 0 || iy >= s.h {
				clear(d)
				continue
			}
			off := chOff + iy*s.sH
			ix := r.ix + dx
			if contiguous {
				lo, hi := max(0, -ix), min(r.n, s.w-ix)
				if lo >= hi {
					clear(d)
					continue
				}
				if lo > 0 {
					clear(d[:lo])
				}
				copy(d[lo:hi], s.x[off+ix+lo:off+ix+hi])
				if hi < r.n {
					clear(d[hi:])
				}
				continue
			}
			for t := range d {
				if xx := ix + t*s.stride[1]; xx >= 0 && xx < s.w {
					d[t] = s.x[off+xx*s.sW]
				} else {
					d[t] = 0
				}
			}
		}
		if v++; v == s.kw {
			v = 0
			if u++; u == s.kh {
				u = 0
				c++
			}
		}
	}
}

// Conv2dFilter is the weights' gradient of Conv2d: per group, the sum
// over the images of dy [O/g, OH*OW] times the image's im2col matrix
// transposed. The images are shared out among the cores; each gathers
// its image's im2col matrix a block of pixels at a time (convPanels, the
// forward pass's gather) into a buffer that stays in cache and adds its
// product to a gradient of its own, and the gradients are summed at the
// end. dy that is not contiguous is copied first.
func (d *Device) Conv2dFilter(dw, x, dy device.Operand, p device.Conv2dParams) error {
	const op = "Conv2dFilter"
	bufs, err := d.operands(op, dw, x, dy)
	if err != nil {
		return err
	}
	wb, xb, yb := bufs[0], bufs[1], bufs[2]
	wl, xl, yl := dw.Layout, x.Layout, dy.Layout
	if xb.dt != wb.dt || xb.dt != yb.dt {
		return errs.New("cpu", op, errs.ErrDType, "input %v, gradient %v and weights %v differ", xb.dt, yb.dt, wb.dt)
	}
	if xb.dt != dtype.F32 && xb.dt != dtype.F64 {
		return errs.New("cpu", op, errs.ErrUnsupported, "not defined for %v (F32 and F64 only)", xb.dt)
	}
	g, geo, err := convGeometry(xl, wl, yl, p)
	if err != nil {
		return errs.Retag("cpu", op, err)
	}
	if !wl.IsContiguous() {
		return errs.New("cpu", op, errs.ErrShape, "weights' gradient layout %v must be contiguous", wl.Strides)
	}
	if wl.Numel() == 0 {
		return nil
	}
	if !yl.IsContiguous() {
		cl, _ := layout.Contiguous(yl.Shape...)
		t := newTemp(d, yb.dt, cl.Numel())
		if err := d.copyInto(t, cl, yb, yl); err != nil {
			return err
		}
		yb, yl = t, cl
	}
	geo.xOff = make([]int, geo.n*g)
	for i := range geo.xOff {
		img, gi := i/g, i%g
		geo.xOff[i] = xl.Offset + img*xl.Strides[0] + gi*(geo.c/g)*geo.sC
	}
	switch xb.dt {
	case dtype.F32:
		err = convFilter(geo, g, convPanels[float32]{geo, slice[float32](xb)}, slice[float32](yb)[yl.Offset:], slice[float32](wb)[wl.Offset:], gemm.F32)
	case dtype.F64:
		err = convFilter(geo, g, convPanels[float64]{geo, slice[float64](xb)}, slice[float64](yb)[yl.Offset:], slice[float64](wb)[wl.Offset:], gemm.F64)
	}
	return errs.Retag("cpu", op, err)
}

// filterBlock is the most elements of im2col matrix convFilter gathers
// at a time (256 KiB of f32), so that the block stays in L2 while it is
// multiplied.
const filterBlock = 64 << 10

// convFilter computes dw = sum over items (image, group) of dy's group
// rows times the item's im2col matrix transposed, for contiguous dy and
// dw, with mul the GEMM.
func convFilter[T float32 | float64](geo convGeom, g int, src convPanels[T], dy, dw []T,
	mul func(transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) error) error {
	og, kg, np := geo.oc/g, geo.c/g*geo.kh*geo.kw, geo.oh*geo.ow
	dw = dw[:geo.oc*kg]
	items := geo.n * g
	block := max(1, min(np, filterBlock/max(kg, 1)))
	procs := max(1, min(runtime.GOMAXPROCS(0), geo.n))
	sums := make([][]T, procs)
	sums[0] = dw
	clear(dw)
	var next atomic.Int64
	var first error
	var once sync.Once
	par.Run(procs, func(w int) {
		if sums[w] == nil {
			sums[w] = make([]T, len(dw))
		}
		cols := make([]T, kg*block)
		for {
			it := int(next.Add(1) - 1)
			if it >= items {
				return
			}
			img, gi := it/g, it%g
			for q0 := 0; q0 < np; q0 += block {
				qc := min(block, np-q0)
				src.PackB(cols[:kg*qc], it, 0, q0, kg, qc, qc)
				a := dy[(img*geo.oc+gi*og)*np+q0:]
				if err := mul(false, true, og, kg, qc, 1, a, np, cols[:kg*qc], qc, 1, sums[w][gi*og*kg:], kg); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		}
	})
	for _, s := range sums[1:] {
		for i, v := range s {
			dw[i] += v
		}
	}
	return first
}
