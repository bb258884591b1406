package cpu

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/gemm"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

var _ device.Convolver = (*Device)(nil)

// Conv2d is the implicit-GEMM convolution: for each image and group, the
// weights [O/g, KH*KW*C/g] times the image's im2col matrix
// [KH*KW*C/g, OH*OW], which is never written out; the products land in
// dst in NCHW order. F32 and F64 only. The weights are copied once into
// the matrix's k order (tapMajor). With strides 1 (shiftable) x is copied
// with its padding written out (paddedInput) and each row of the matrix
// is that copy moved by one kernel tap, which the GEMM's micro-kernel
// reads in place (gemm.F32Shifted: no panels packed). Otherwise the
// matrix's panels are gathered from x as the GEMM packs them
// (gemm.F32Panels), x copied first where its columns are not adjacent
// (rowsInput). A depthwise convolution (one input channel per group) is a
// direct stencil instead (depthwiseConv, conv_depthwise.go).
func (d *Device) Conv2d(dst, x, w device.Operand, p device.Conv2dParams) error {
	const op = "Conv2d"
	c, err := d.convOperands(op, x, w, dst, p)
	if err != nil {
		return err
	}
	db, xb, wb := c.y, c.x, c.w
	dl, wl := c.yl, c.wl
	g, geo := c.g, c.geo
	if !dl.IsContiguous() {
		return errs.New("cpu", op, errs.ErrShape, "output layout %v must be contiguous", dl.Strides)
	}
	if dl.Numel() == 0 {
		return nil
	}
	// The weights in the panels' k order, [O, KH, KW, C/g] (a small copy).
	t := newTemp(d, wb.dt, wl.Numel())
	if err := d.copyInto(t, tapMajor(wl.Shape), wb, wl); err != nil {
		return err
	}
	wb, wl = t, layout.Layout{Shape: wl.Shape}
	if geo.depthwise() {
		switch xb.dt {
		case dtype.F32:
			depthwiseConv(geo, slice[float32](xb), slice[float32](wb), slice[float32](db)[dl.Offset:])
		case dtype.F64:
			depthwiseConv(geo, slice[float64](xb), slice[float64](wb), slice[float64](db)[dl.Offset:])
		}
		return nil
	}
	m, k := geo.oc/g, wl.Numel()/geo.oc
	n := geo.oh * geo.ow
	if c.shift && geo.kOff != nil {
		sitems := make([]gemm.ShiftedItem, geo.n*g)
		for i := range sitems {
			img, gi := i/g, i%g
			sitems[i] = gemm.ShiftedItem{A: gi * m * k, B: geo.xOff[i], C: dl.Offset + (img*geo.oc+gi*m)*n}
		}
		s := gemm.Shifted{Offs: geo.kOff, Rows: geo.oh, Width: geo.ow, Pitch: geo.sH}
		var ok bool
		switch xb.dt {
		case dtype.F32:
			ok, err = gemm.F32Shifted(m, slice[float32](wb), k, slice[float32](xb), s, sitems, slice[float32](db), n)
		case dtype.F64:
			ok, err = gemm.F64Shifted(m, slice[float64](wb), k, slice[float64](xb), s, sitems, slice[float64](db), n)
		}
		if ok || err != nil {
			return errs.Retag("cpu", op, err)
		}
	}
	items := make([]gemm.Item, geo.n*g)
	for i := range items {
		img, gi := i/g, i%g
		items[i] = gemm.Item{A: gi * m * k, C: dl.Offset + (img*geo.oc+gi*m)*n}
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

// convCall is what convOperands resolves for a convolution: the input x,
// the weights-shaped operand w (the weights, or their gradient) and the
// output-shaped operand y (the output, or its gradient), with their
// layouts, the number of groups and the panels' geometry.
type convCall struct {
	x, w, y    *Buffer
	xl, wl, yl layout.Layout
	g          int
	geo        convGeom
	shift      bool // x is padded for the shifted GEMMs (shiftable)
}

// convOperands is the prologue Conv2d and Conv2dFilter share: it resolves
// the three operands, checks that they have one dtype, F32 or F64, and
// that their shapes fit the parameters, makes x's rows copyable
// (rowsInput), and records where each (image, group) item starts in x.
func (d *Device) convOperands(op string, x, w, y device.Operand, p device.Conv2dParams) (convCall, error) {
	bufs, err := d.operands(op, x, w, y)
	if err != nil {
		return convCall{}, err
	}
	c := convCall{x: bufs[0], w: bufs[1], y: bufs[2], xl: x.Layout, wl: w.Layout, yl: y.Layout}
	if c.x.dt != c.w.dt || c.x.dt != c.y.dt {
		return c, errs.New("cpu", op, errs.ErrDType, "input %v, weights %v and output %v differ", c.x.dt, c.w.dt, c.y.dt)
	}
	if c.x.dt != dtype.F32 && c.x.dt != dtype.F64 {
		return c, errs.New("cpu", op, errs.ErrUnsupported, "not defined for %v (F32 and F64 only)", c.x.dt)
	}
	if c.g, c.geo, err = convGeometry(c.xl, c.wl, c.yl, p); err != nil {
		return c, errs.Retag("cpu", op, err)
	}
	c.shift = c.geo.shiftable(c.x.dt)
	if c.x, c.xl, err = d.rowsInput(c.x, c.xl, &c.geo, c.shift); err != nil {
		return c, err
	}
	c.geo.kOff = c.geo.tapOffsets()
	c.geo.xOff = make([]int, c.geo.n*c.g)
	for i := range c.geo.xOff {
		img, gi := i/c.g, i%c.g
		c.geo.xOff[i] = c.xl.Offset + img*c.xl.Strides[0] + gi*c.geo.cg*c.geo.sC
	}
	return c, nil
}

// contiguous returns a contiguous copy of the operand (b, l).
func (d *Device) contiguous(b *Buffer, l layout.Layout) (*Buffer, layout.Layout, error) {
	cl, _ := layout.Contiguous(l.Shape...)
	t := newTemp(d, b.dt, cl.Numel())
	return t, cl, d.copyInto(t, cl, b, l)
}

// rowsInput returns the input (b, l) of geo with rows that the panels can
// copy whole. For the shifted GEMM (shift), and for padded convolutions of
// at most gatherChannels channels a group with column stride 1, that is
// the padded copy (paddedInput). Otherwise it is the input itself when its
// columns are adjacent (or there is one) and its channel stride is not
// negative, a contiguous copy otherwise (a transposed or broadcast view,
// such as the gradient of a sum; one copy of the input costs less than
// gathering it element by element for every kernel tap). It updates geo.
func (d *Device) rowsInput(b *Buffer, l layout.Layout, geo *convGeom, shift bool) (*Buffer, layout.Layout, error) {
	if shift || (geo.cg <= gatherChannels && geo.pad != [2]int{} && geo.paddable()) {
		return d.paddedInput(b, l, geo)
	}
	if (l.Strides[3] != 1 && geo.w > 1) || l.Strides[1] < 0 {
		var err error
		if b, l, err = d.contiguous(b, l); err != nil {
			return nil, l, err
		}
	}
	geo.sC, geo.sH, geo.sW = l.Strides[1], l.Strides[2], 1
	return b, l, nil
}

// gatherChannels is the most channels per group for which PackB gathers
// from a padded copy of the input (paddedInput, gemm.GatherRuns). With
// more, it keeps its strided copies (a tap's channels, one gemm.CopyRows
// per run and tap): that many rows per call make the call cheap, and the
// padded copy costs as much as it saves (docs/benchmarks.md, 2026-12-06).
const gatherChannels = 4

// paddedInput returns a contiguous copy of the input (b, l) of geo with
// its padding written out as zeros, and makes geo the convolution of that
// copy without padding, so that every kernel tap of a panel's pixels
// reads whole runs of the copy (tapOffsets: the shifted GEMM's rows,
// PackB's gather) and nothing is clipped; shiftSlack zeros follow it. It
// is taken where geo is paddable (padding no wider than the input bounds
// the copy at 9 times the input). The copy is made even without padding
// for the shifted GEMM, whose reads run past the input's end.
func (d *Device) paddedInput(b *Buffer, l layout.Layout, geo *convGeom) (*Buffer, layout.Layout, error) {
	hp, wp := geo.h+2*geo.pad[0], geo.w+2*geo.pad[1]
	pl, err := layout.Contiguous(geo.n, geo.c, hp, wp)
	if err != nil {
		return nil, l, err
	}
	// The padding, and shiftSlack elements past the end for the shifted
	// GEMM's reads, are zeros.
	if l.Strides[3] == 1 || geo.w == 1 {
		// Rows copied whole: every element is written once (padPlanes),
		// into memory that is not cleared first.
		t := newUninitTemp(d, b.dt, pl.Numel()+shiftSlack)
		withBits(t,
			func(x []uint8) { padPlanes(x, slice[uint8](b), l, geo.pad) },
			func(x []uint16) { padPlanes(x, slice[uint16](b), l, geo.pad) },
			func(x []uint32) { padPlanes(x, slice[uint32](b), l, geo.pad) },
			func(x []uint64) { padPlanes(x, slice[uint64](b), l, geo.pad) })
		geo.h, geo.w, geo.pad = hp, wp, [2]int{}
		geo.sC, geo.sH, geo.sW = pl.Strides[1], pl.Strides[2], 1
		return t, pl, nil
	}
	t := newTemp(d, b.dt, pl.Numel()+shiftSlack)
	inner := layout.Layout{Shape: l.Shape, Strides: pl.Strides, Offset: geo.pad[0]*wp + geo.pad[1]}
	if err := d.copyInto(t, inner, b, l); err != nil {
		return nil, l, err
	}
	geo.h, geo.w, geo.pad = hp, wp, [2]int{}
	geo.sC, geo.sH, geo.sW = pl.Strides[1], pl.Strides[2], 1
	return t, pl, nil
}

// padPlanes writes x (layout l, [N, C, H, W] with adjacent columns or one
// column) into dst, contiguous [N, C, H+2*pad[0], W+2*pad[1]] followed by
// zeros to its end, with zeros around each plane: every element of dst is
// written once, so dst need not be cleared first (a fresh buffer's
// clearing had cost about as much as the copy, on one core). The planes
// are shared out among the cores, each taking its planes an image at a
// time (gemm.PadPlanes for 4- and 8-byte elements, one call for all when
// the images' planes are evenly spaced).
func padPlanes[T any](dst, x []T, l layout.Layout, pad [2]int) {
	n, c, h, w := l.Shape[0], l.Shape[1], l.Shape[2], l.Shape[3]
	s := l.Strides
	ph, pw := pad[0], pad[1]
	wp := w + 2*pw
	size := (h + 2*ph) * wp
	planes := n * c
	workers := 1
	if planes*size >= 2*grain {
		workers = min(runtime.GOMAXPROCS(0), planes, planes*size/grain)
	}
	// span pads planes [lo, hi) of one image, or of several when their
	// planes are evenly spaced.
	span := func(lo, hi int) {
		out := dst[lo*size : hi*size]
		first := l.Offset + lo/c*s[0] + lo%c*s[1] // strides may be negative
		if s[1] >= 0 && s[2] >= 0 && padPlanesOf(out, x[first:], s[1], s[2], hi-lo, h, w, ph, pw) {
			return
		}
		for p := lo; p < hi; p++ {
			plane := out[(p-lo)*size : (p-lo+1)*size]
			clear(plane[:ph*wp])
			clear(plane[(ph+h)*wp:])
			row := l.Offset + p/c*s[0] + p%c*s[1]
			for y := range h {
				out := plane[(ph+y)*wp : (ph+y+1)*wp]
				clear(out[:pw])
				copy(out[pw:pw+w], x[row+y*s[2]:][:w])
				clear(out[pw+w:])
			}
		}
	}
	each := func(lo, hi int) {
		if s[0] == c*s[1] || n == 1 {
			span(lo, hi)
			return
		}
		for lo < hi {
			end := min(hi, (lo/c+1)*c)
			span(lo, end)
			lo = end
		}
	}
	if workers < 2 {
		each(0, planes)
	} else {
		splitRows(planes, workers, each)
	}
	clear(dst[planes*size:])
}

// padPlanesOf is gemm.PadPlanes on 4- and 8-byte elements; false for
// other sizes or where PadPlanes declines.
func padPlanesOf[T any](dst, src []T, ldp, lds, planes, rows, n, padRows, padCols int) bool {
	switch d := any(dst).(type) {
	case []uint32:
		return gemm.PadPlanes(d, any(src).([]uint32), ldp, lds, planes, rows, n, padRows, padCols)
	case []uint64:
		return gemm.PadPlanes(d, any(src).([]uint64), ldp, lds, planes, rows, n, padRows, padCols)
	}
	return false
}

// shiftSlack is how many elements past a padded input the shifted GEMM
// may read: one micro-tile's width (gemm.F32Shifted).
const shiftSlack = 32

// shiftable reports whether Conv2d of geo, of dtype dt, runs as the
// shifted GEMM (gemm.F32Shifted): the active kernels have it, the strides
// are 1 (each tap's row of the im2col matrix is the padded image moved),
// the padding is no wider than the input (paddedInput), and the padded
// rows are no more than half again as wide as the output's (the columns
// between are computed and dropped).
func (geo convGeom) shiftable(dt dtype.DType) bool {
	if !gemm.HasShifted() || geo.stride[0] != 1 || !geo.paddable() {
		return false
	}
	return 2*(geo.w+2*geo.pad[1]-geo.ow) <= geo.ow && (dt == dtype.F32 || dt == dtype.F64)
}

// paddable reports whether paddedInput takes geo's input: column stride 1
// (runs of adjacent pixels read adjacent columns), padding no wider than
// the input, not depthwise (its stencils pad as they go).
func (geo convGeom) paddable() bool {
	return geo.stride[1] == 1 && !geo.depthwise() && geo.pad[0] <= geo.h && geo.pad[1] <= geo.w
}

// tapOffsets returns, for convolutions whose panels gather whole runs
// (column stride 1, no padding left to clip, strides not negative), the
// offset in x of each k step (kernel row, kernel column, channel) from
// the input position of kernel tap (0, 0): the rows' offsets of
// gemm.GatherRuns, gemm.F32Shifted and gemm.F32RowsA. It returns nil for
// the others, which PackB gathers with clipping.
func (geo convGeom) tapOffsets() []int {
	if geo.stride[1] != 1 || geo.pad != [2]int{} || geo.sC < 0 || geo.sH < 0 || geo.depthwise() {
		return nil
	}
	offs := make([]int, 0, geo.kh*geo.kw*geo.cg)
	for ty := range geo.kh {
		for tx := range geo.kw {
			for c := range geo.cg {
				offs = append(offs, c*geo.sC+ty*geo.dil[0]*geo.sH+tx*geo.dil[1])
			}
		}
	}
	return offs
}

// convGeom is the geometry a convolution's panels are gathered with:
// input extent h x w with channel, row and column strides sC, sH, sW,
// kernel kh x kw, output extent oh x ow, and the options; xOff[i] is where
// item i's image and group start in x.
type convGeom struct {
	n, c, h, w, oc, kh, kw, oh, ow int
	cg                             int // channels per group
	sC, sH, sW                     int
	stride, pad, dil               [2]int
	xOff                           []int
	kOff                           []int // tapOffsets, or nil
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
	geo.cg = geo.c / g
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

// tapMajor is the layout of weights of shape [O, C/g, KH, KW] stored in
// the panels' k order, [O, KH, KW, C/g], contiguous.
func tapMajor(shape []int) layout.Layout {
	cg, kh, kw := shape[1], shape[2], shape[3]
	return layout.Layout{Shape: shape, Strides: []int{kh * kw * cg, 1, kw * cg, cg}}
}

// convPanels is the im2col matrix of each item (image and group) of a
// convolution as a gemm.Panels: B(k, q) with k = (kernel row, kernel
// column, channel) and q = (output row, output column) is the input
// element that kernel tap meets at that output pixel, or 0 in the
// padding. The channel is the fastest of k, so that a run of k steps of
// one tap reads the input at a fixed stride (the channel stride).
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
// Each output row the panel's pixels span is one run. The k steps are
// taken a tap at a time: for each run, the steps of one tap read the same
// input row and columns of successive channels, so a run of a stride-1
// row with unit column stride is one strided copy for all of them
// (gemm.CopyRows), with zeros where the run meets the padding; other runs
// are gathered element by element.
func (s convPanels[T]) PackB(dst []T, item, k0, j0, kc, cols, width int) {
	dst = dst[:kc*width]
	if s.cg <= gatherChannels && s.kOff != nil && s.gatherRuns(dst, item, k0, j0, kc, cols, width) {
		return
	}
	// With padding, the panel is cleared whole first (at memclr's speed)
	// and the runs' parts in the padding are left as they are, where
	// clearing each of them was a strided copy of zeros per tap and run.
	padded := s.pad != [2]int{}
	if cols < width || padded {
		clear(dst)
	}
	// clearRows clears the parts of runs in the padding, unless the panel
	// is clear already.
	clearRows := func(blk []T, width, j, n, rows int) {
		if !padded {
			zeroRows(blk, width, j, n, rows)
		}
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
	base := s.xOff[item]
	contiguous := s.stride[1] == 1
	// The kernel row ty, column tx and channel c0 of step k0+p, advanced
	// step by step rather than divided out each time (with one channel,
	// every step is a tap, and four divisions a step cost more than the
	// step's copy).
	tap, c0 := k0/s.cg, k0%s.cg
	ty, tx := tap/s.kw, tap%s.kw
	for p := 0; p < kc; {
		steps := min(kc-p, s.cg-c0)
		dy, dx := ty*s.dil[0], tx*s.dil[1]
		blk := dst[p*width:]
		chOff := base + c0*s.sC
		for _, r := range runs {
			iy := r.iy + dy
			if iy < 0 || iy >= s.h {
				clearRows(blk, width, r.j, r.n, steps)
				continue
			}
			off := chOff + iy*s.sH
			ix := r.ix + dx
			if contiguous {
				lo, hi := max(0, -ix), min(r.n, s.w-ix)
				if steps == 1 {
					// One row (one channel per group, as in a network's
					// first layer): plain slices, no strided copies.
					d := blk[r.j : r.j+r.n]
					if lo >= hi {
						if !padded {
							clear(d)
						}
						continue
					}
					if !padded {
						clear(d[:lo])
						clear(d[hi:])
					}
					copy(d[lo:hi], s.x[off+ix+lo:off+ix+hi])
					continue
				}
				if lo >= hi {
					clearRows(blk, width, r.j, r.n, steps)
					continue
				}
				if lo > 0 {
					clearRows(blk, width, r.j, lo, steps)
				}
				if hi < r.n {
					clearRows(blk, width, r.j+hi, r.n-hi, steps)
				}
				gemm.CopyRows(blk[r.j+lo:], width, s.x[off+ix+lo:], s.sC, steps, hi-lo)
				continue
			}
			// Columns ix + t*stride for t in [lo, hi) lie in the row.
			st := s.stride[1]
			lo, hi := 0, 0
			if ix < 0 {
				lo = (-ix + st - 1) / st
			}
			if s.w-1-ix >= 0 {
				hi = min(r.n, (s.w-1-ix)/st+1)
			}
			if lo >= hi {
				clearRows(blk, width, r.j, r.n, steps)
				continue
			}
			if lo > 0 {
				clearRows(blk, width, r.j, lo, steps)
			}
			if hi < r.n {
				clearRows(blk, width, r.j+hi, r.n-hi, steps)
			}
			step := st * s.sW
			for q := range steps {
				d := blk[q*width+r.j+lo : q*width+r.j+hi]
				src := s.x[off+q*s.sC+(ix+lo*st)*s.sW:]
				src = src[:(len(d)-1)*step+1]
				for t := range d {
					d[t] = src[t*step]
				}
			}
		}
		p += steps
		if c0 += steps; c0 == s.cg {
			c0 = 0
			if tx++; tx == s.kw {
				tx, ty = 0, ty+1
			}
		}
	}
}

// gatherRuns is PackB for a geometry with tap offsets: each k step's row
// of the panel is the same runs (one per output row the pixels span) at
// that step's offset, one gemm.GatherRuns for the panel. It reports false,
// having written nothing but zeros, where GatherRuns refuses the operands.
func (s convPanels[T]) gatherRuns(dst []T, item, k0, j0, kc, cols, width int) bool {
	var buf [maxRuns]gemm.Run
	runs := buf[:0]
	base := s.xOff[item]
	for j := 0; j < cols; {
		oy, ox := (j0+j)/s.ow, (j0+j)%s.ow
		n := min(cols-j, s.ow-ox)
		runs = append(runs, gemm.Run{Dst: j, Src: base + oy*s.stride[0]*s.sH + ox, N: n})
		j += n
	}
	if cols < width {
		clear(dst)
	}
	return gemm.GatherRuns(dst, width, s.x, s.kOff[k0:k0+kc], runs)
}

// zeroRow is a row of zeros, the source zeroRows copies from.
var zeroRow [maxRuns]float64

// zeroRows clears n elements at column j of rows rows of a panel block
// width elements wide: one strided copy from a row of zeros when it is
// that short (the AVX-512 path stores all rows in one loop), else row by
// row.
func zeroRows[T float32 | float64](blk []T, width, j, n, rows int) {
	if n <= maxRuns && gemm.CopyRows(blk[j:], width, unsafe.Slice((*T)(unsafe.Pointer(&zeroRow[0])), n), 0, rows, n) {
		return
	}
	for q := range rows {
		clear(blk[q*width+j:][:n])
	}
}

// Conv2dFilter is the weights' gradient of Conv2d: per group, the sum
// over the images of dy [O/g, OH*OW] times the image's im2col matrix
// transposed. The images are shared out among the cores, each adding its
// products to a gradient of its own, and the gradients are summed at the
// end. With strides 1 (shiftable), the im2col matrix is read in place
// from the padded copy of x (rowsAFilter); otherwise each core gathers
// its image's matrix a block of pixels at a time (convPanels, the forward
// pass's gather) into a buffer that stays in cache (convFilter). dy that
// is not contiguous is copied first.
func (d *Device) Conv2dFilter(dw, x, dy device.Operand, p device.Conv2dParams) error {
	const op = "Conv2dFilter"
	c, err := d.convOperands(op, x, dw, dy, p)
	if err != nil {
		return err
	}
	wb, xb, yb := c.w, c.x, c.y
	wl, yl := c.wl, c.yl
	g, geo := c.g, c.geo
	if !wl.IsContiguous() {
		return errs.New("cpu", op, errs.ErrShape, "weights' gradient layout %v must be contiguous", wl.Strides)
	}
	if wl.Numel() == 0 {
		return nil
	}
	if !yl.IsContiguous() {
		if yb, yl, err = d.contiguous(yb, yl); err != nil {
			return err
		}
	}
	// The gradient comes out in the panels' k order, [O, KH, KW, C/g],
	// and is copied into dw's.
	t := newTemp(d, wb.dt, wl.Numel())
	switch {
	case geo.depthwise() && xb.dt == dtype.F32:
		depthwiseFilter(geo, slice[float32](xb), slice[float32](yb)[yl.Offset:], slice[float32](t))
	case geo.depthwise():
		depthwiseFilter(geo, slice[float64](xb), slice[float64](yb)[yl.Offset:], slice[float64](t))
	case c.shift && geo.kOff != nil && xb.dt == dtype.F32:
		err = rowsAFilter(geo, g, slice[float32](xb), slice[float32](yb)[yl.Offset:], slice[float32](t), gemm.F32RowsA)
	case c.shift && geo.kOff != nil:
		err = rowsAFilter(geo, g, slice[float64](xb), slice[float64](yb)[yl.Offset:], slice[float64](t), gemm.F64RowsA)
	case xb.dt == dtype.F32:
		err = convFilter(geo, g, convPanels[float32]{geo, slice[float32](xb)}, slice[float32](yb)[yl.Offset:], slice[float32](t), gemm.F32)
	default:
		err = convFilter(geo, g, convPanels[float64]{geo, slice[float64](xb)}, slice[float64](yb)[yl.Offset:], slice[float64](t), gemm.F64)
	}
	if err != nil {
		return errs.Retag("cpu", op, err)
	}
	return d.copyInto(wb, wl, t, tapMajor(wl.Shape))
}

// rowsAFilter computes the weights' gradient of the shiftable
// convolution geo (x padded) into dw ([O, KH, KW, C/g]), one
// gemm.F32RowsA (mul) per group: the im2col matrix's rows, one per kernel
// tap and channel, are windows of each image's padded planes (the tap
// offsets), read in place over the rows' extent; dy's panels, transposed,
// put zeros at the columns between rows (dyPanels). The product,
// [KH*KW*C/g, O/g] per group, is transposed into dw.
func rowsAFilter[T float32 | float64](geo convGeom, g int, x, dy, dw []T,
	mul func(m, n, k int, a []T, rows, origins []int, src gemm.Panels[T], c []T, ldc int) (bool, error)) error {
	og, kg := geo.oc/g, geo.cg*geo.kh*geo.kw
	ext := (geo.oh-1)*geo.sH + geo.ow
	ct := make([]T, kg*og)
	origins := make([]int, geo.n)
	for gi := range g {
		for img := range origins {
			origins[img] = geo.xOff[img*g+gi]
		}
		src := dyPanels[T]{dy: dy, np: geo.oh * geo.ow, oc: geo.oc, base: gi * og, ow: geo.ow, pitch: geo.sH}
		ok, err := mul(kg, og, ext, x, geo.kOff, origins, src, ct, og)
		if err != nil {
			return err
		}
		if !ok {
			return errs.New("cpu", "Conv2dFilter", errs.ErrUnsupported, "the kernels in use have no form for rows of A in place")
		}
		if err := vec.Transpose(dw[gi*og*kg:], kg, ct, og, kg, og); err != nil {
			return err
		}
	}
	return nil
}

// dyPanels is the B operand of rowsAFilter: for item (image) i, the
// output's gradient of channels base.. of that image, transposed, over
// the rows' extent of the padded input: B(q, o) = dy of channel base+o at
// output row q/pitch and column q%pitch, or 0 where that column is past
// the output's ow (the columns the windows span between two rows).
type dyPanels[T float32 | float64] struct {
	dy                      []T // contiguous [N, OC, OH*OW]
	np, oc, base, ow, pitch int
}

// PackB packs B's kc x width panel at (k0, j0): zeros, then one
// transposing copy (vec.Transpose) per output row the steps meet.
func (s dyPanels[T]) PackB(dst []T, item, k0, j0, kc, cols, width int) {
	dst = dst[:kc*width]
	clear(dst)
	src := s.dy[(item*s.oc+s.base+j0)*s.np:]
	for q := k0; q < k0+kc; {
		oy, ox := q/s.pitch, q%s.pitch
		if ox >= s.ow {
			q += s.pitch - ox
			continue
		}
		run := min(s.ow-ox, k0+kc-q)
		// In bounds by construction: cols <= width, run <= np.
		_ = vec.Transpose(dst[(q-k0)*width:], width, src[oy*s.ow+ox:], s.np, cols, run)
		q += run
	}
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
