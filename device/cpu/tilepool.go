package cpu

import (
	"runtime"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

var _ device.TilePooler = (*Device)(nil)

// MaxTiles writes the maximum of each tile of tiles into dst: a plane
// (image and channel) at a time, on every core, with vec.MaxPool2 where
// the tiles are pairs of adjacent elements side by side (a 2-wide pool on
// rows with unit stride), else element by element.
func (d *Device) MaxTiles(dst, tiles device.Operand) error {
	const op = "MaxTiles"
	bufs, err := d.tileOperands(op, dst, tiles)
	if err != nil {
		return err
	}
	switch bufs[0].dt {
	case dtype.F32:
		maxTiles(slice[float32](bufs[0])[dst.Layout.Offset:], slice[float32](bufs[1]), tiles.Layout)
	case dtype.F64:
		maxTiles(slice[float64](bufs[0])[dst.Layout.Offset:], slice[float64](bufs[1]), tiles.Layout)
	}
	return nil
}

// MaxTilesGrad writes the gradient of MaxTiles into dst, as MaxTiles
// walks (vec.MaxPool2Grad), with y and g copied contiguous first where
// they are not (a sum's gradient is a broadcast).
func (d *Device) MaxTilesGrad(dst, tiles, y, g device.Operand) error {
	const op = "MaxTilesGrad"
	bufs, err := d.tileOperands(op, dst, tiles, y, g)
	if err != nil {
		return err
	}
	yb, yl, gb, gl := bufs[2], y.Layout, bufs[3], g.Layout
	if !yl.IsContiguous() {
		if yb, yl, err = d.contiguous(yb, yl); err != nil {
			return err
		}
	}
	if !gl.IsContiguous() {
		if gb, gl, err = d.contiguous(gb, gl); err != nil {
			return err
		}
	}
	switch bufs[0].dt {
	case dtype.F32:
		maxTilesGrad(slice[float32](bufs[0])[dst.Layout.Offset:], slice[float32](bufs[1]), tiles.Layout,
			slice[float32](yb)[yl.Offset:], slice[float32](gb)[gl.Offset:])
	case dtype.F64:
		maxTilesGrad(slice[float64](bufs[0])[dst.Layout.Offset:], slice[float64](bufs[1]), tiles.Layout,
			slice[float64](yb)[yl.Offset:], slice[float64](gb)[gl.Offset:])
	}
	return nil
}

// tileOperands resolves a tile pooling's operands: dst, tiles of rank 6
// and the pooled operands of rank 4 matching its N, C, OH and OW (dst
// itself when there are none, else dst has the tiles' shape); one dtype,
// F32 or F64, and dst contiguous.
func (d *Device) tileOperands(op string, dst, tiles device.Operand, pooled ...device.Operand) ([]*Buffer, error) {
	bufs, err := d.operands(op, append([]device.Operand{dst, tiles}, pooled...)...)
	if err != nil {
		return nil, err
	}
	sh := tiles.Layout.Shape
	if len(sh) != 6 {
		return nil, errs.New("cpu", op, errs.ErrShape, "tiles %v must be [N, C, OH, KH, OW, KW]", sh)
	}
	want := []int{sh[0], sh[1], sh[2], sh[4]}
	outs := []device.Operand{dst}
	if len(pooled) > 0 {
		outs = pooled
		if !slices.Equal(dst.Layout.Shape, sh) {
			return nil, errs.New("cpu", op, errs.ErrShape, "output %v, want the tiles' shape %v", dst.Layout.Shape, sh)
		}
	}
	for _, o := range outs {
		if !slices.Equal(o.Layout.Shape, want) {
			return nil, errs.New("cpu", op, errs.ErrShape, "pooled operand %v, want %v for tiles %v", o.Layout.Shape, want, sh)
		}
	}
	for _, b := range bufs[1:] {
		if b.dt != bufs[0].dt {
			return nil, errs.New("cpu", op, errs.ErrDType, "operands differ: %v and %v", bufs[0].dt, b.dt)
		}
	}
	if dt := bufs[0].dt; dt != dtype.F32 && dt != dtype.F64 {
		return nil, errs.New("cpu", op, errs.ErrUnsupported, "not defined for %v (F32 and F64 only)", dt)
	}
	if !dst.Layout.IsContiguous() {
		return nil, errs.New("cpu", op, errs.ErrShape, "output layout %v must be contiguous", dst.Layout.Strides)
	}
	return bufs, nil
}

// eachPlane calls walk for every image and channel of tiles, sharing the
// planes out among the cores when there is enough work.
func eachPlane(tl layout.Layout, walk func(n, c int)) {
	sh := tl.Shape
	planes := sh[0] * sh[1]
	elems := planes * sh[2] * sh[3] * sh[4] * sh[5]
	workers := 1
	if elems >= 2*grain {
		workers = min(runtime.GOMAXPROCS(0), planes, elems/grain)
	}
	each := func(lo, hi int) {
		for p := lo; p < hi; p++ {
			walk(p/sh[1], p%sh[1])
		}
	}
	if workers < 2 {
		each(0, planes)
		return
	}
	splitRows(planes, workers, each)
}

// pairTiles reports whether tiles are vec.MaxPool2's: two adjacent
// elements wide, side by side along the row.
func pairTiles(tl layout.Layout) bool {
	return tl.Shape[5] == 2 && tl.Strides[5] == 1 && (tl.Strides[4] == 2 || tl.Shape[4] == 1) &&
		tl.Strides[2] >= 0 && tl.Strides[3] >= 0
}

// maxTiles is MaxTiles on one dtype; out is contiguous [N, C, OH, OW].
func maxTiles[T float32 | float64](out, x []T, tl layout.Layout) {
	sh, s := tl.Shape, tl.Strides
	C, OH, KH, OW, KW := sh[1], sh[2], sh[3], sh[4], sh[5]
	pairs := pairTiles(tl)
	eachPlane(tl, func(n, c int) {
		base := tl.Offset + n*s[0] + c*s[1]
		plane := out[(n*C+c)*OH*OW:][:OH*OW]
		// The operands were checked against their buffers, so the sizes
		// and strides hold and the vector kernel does not refuse them.
		if pairs && vec.MaxPool2(plane, x[base:], OH, OW, KH, s[2], s[3]) == nil {
			return
		}
		for oh := range OH {
			for ow := range OW {
				t := base + oh*s[2] + ow*s[4]
				acc := x[t]
				for i := range KH {
					for j := range KW {
						// PyTorch's scan (the first element against
						// itself changes nothing).
						if v := x[t+i*s[3]+j*s[5]]; vec.MaxScanTakes(acc, v) {
							acc = v
						}
					}
				}
				plane[oh*OW+ow] = acc
			}
		}
	})
}

// maxTilesGrad is MaxTilesGrad on one dtype; out is contiguous with the
// tiles' shape, y and g contiguous [N, C, OH, OW].
func maxTilesGrad[T float32 | float64](out, x []T, tl layout.Layout, y, g []T) {
	sh, s := tl.Shape, tl.Strides
	C, OH, KH, OW, KW := sh[1], sh[2], sh[3], sh[4], sh[5]
	pairs := pairTiles(tl)
	eachPlane(tl, func(n, c int) {
		base := tl.Offset + n*s[0] + c*s[1]
		plane := out[(n*C+c)*OH*KH*OW*KW:][:OH*KH*OW*KW]
		yp, gp := y[(n*C+c)*OH*OW:][:OH*OW], g[(n*C+c)*OH*OW:][:OH*OW]
		if pairs && vec.MaxPool2Grad(plane, x[base:], yp, gp, OH, OW, KH, s[2], s[3]) == nil {
			return
		}
		for oh := range OH {
			for ow := range OW {
				// The element the gradient goes to: the first equal to
				// the maximum, or the last NaN.
				t, m := base+oh*s[2]+ow*s[4], yp[oh*OW+ow]
				ai, aj := -1, 0
				for i := range KH {
					for j := range KW {
						if v := x[t+i*s[3]+j*s[5]]; vec.MaxRouteTakes(m, v, ai >= 0) {
							ai, aj = i, j
						}
					}
				}
				for i := range KH {
					line := plane[((oh*KH+i)*OW+ow)*KW:][:KW]
					clear(line)
					if i == ai {
						line[aj] = gp[oh*OW+ow]
					}
				}
			}
		}
	})
}
