package cpu

import (
	"runtime"

	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/internal/par"
)

// Depthwise convolutions (one input channel per group, as in MobileNet's
// separable blocks) are computed directly rather than as GEMMs: each
// (image, output channel) plane is a KH*KW-tap stencil over one input
// plane, a GEMM of one row whose packing would cost more than its
// arithmetic (the implicit GEMM ran a [32, 64, 56, 56] depthwise 3x3 at
// 0.1 GFLOP/s). Output channel o reads input channel o/m, m = O/groups
// being the channel multiplier. The input gradient of a depthwise
// convolution is again a depthwise convolution (transposed's adjoint), so
// it takes this path too; the weights' gradient has its own loop,
// depthwiseFilter.

// depthwise reports whether geo has one input channel per group.
func (g *convGeom) depthwise() bool { return g.cg == 1 && g.c > 1 }

// depthwiseConv writes dst (contiguous [N, O, OH, OW] from offset 0 of
// dst) from x, read through geo (xOff, strides), and the weights w
// ([O, KH, KW] contiguous). Planes are shared out among the cores.
func depthwiseConv[T float32 | float64](geo convGeom, x, w, dst []T) {
	planes := geo.n * geo.oc
	plane := geo.oh * geo.ow
	taps := geo.kh * geo.kw
	m := geo.oc / geo.c // output channels per input channel
	flat := geo.flatStencil()
	par.For(planes, runtime.GOMAXPROCS(0), func(i int) {
		img, o := i/geo.oc, i%geo.oc
		out := dst[i*plane : (i+1)*plane]
		clear(out)
		base := geo.xOff[img*geo.c+o/m]
		wo := w[o*taps : (o+1)*taps]
		if flat {
			var save []T
			for ki := range geo.kh {
				for kj := range geo.kw {
					save = flatTap(geo, out, x[base:], wo[ki*geo.kw+kj], ki, kj, save)
				}
			}
			return
		}
		geo.rowTaps(func(r, tap, y, shift int) {
			depthwiseRow(out[r*geo.ow:(r+1)*geo.ow], x[base+y*geo.sH:], wo[tap], shift, geo.stride[1], geo.sW, geo.w)
		})
	})
}

// rowTaps calls fn for every output row r and kernel tap (row-major tap
// index) whose input row y lies inside the image, with the column shift
// of the tap's input columns: output column s reads input column
// s*stride + shift.
func (g *convGeom) rowTaps(fn func(r, tap, y, shift int)) {
	for r := range g.oh {
		for ki := range g.kh {
			y := r*g.stride[0] - g.pad[0] + ki*g.dil[0]
			if y < 0 || y >= g.h {
				continue
			}
			for kj := range g.kw {
				fn(r, ki*g.kw+kj, y, kj*g.dil[1]-g.pad[1])
			}
		}
	}
}

// flatStencil reports whether each tap of geo's stencil can be applied to
// a whole plane as one vector operation: stride 1 along both axes,
// adjacent columns and rows in x (one contiguous plane), and output rows
// as wide as input rows, so that output element q and the input element
// a tap reads are a fixed distance apart in both planes, rows included.
func (g *convGeom) flatStencil() bool {
	return g.stride == [2]int{1, 1} && g.sW == 1 && g.sH == g.w && g.ow == g.w
}

// flatSpan is what one tap of a flat stencil covers in a plane: outputs
// [lo, hi) read the input element at q + off, and in each output row r of
// [r0, r1-1) the k outputs from wrap(r) are the ones the column shift
// carries across a row end (the last shift columns of row r, or the first
// -shift columns of row r+1), which the tap does not reach.
type flatSpan struct {
	lo, hi, off  int
	r0, r1, k    int
	ow, shift, b int
}

// span returns tap (ki, kj)'s flatSpan, and false when the tap reaches no
// output.
func (g *convGeom) span(ki, kj int) (flatSpan, bool) {
	ow := g.ow
	dy := ki*g.dil[0] - g.pad[0] // input row of output row r: r + dy
	r0, r1 := max(0, -dy), min(g.oh, g.h-dy)
	shift := kj*g.dil[1] - g.pad[1]
	if r0 >= r1 || shift >= ow || -shift >= ow {
		return flatSpan{}, false
	}
	// Outputs [r0*ow + a, r1*ow - b) read inside rows [r0+dy, r1+dy).
	a, b := max(0, -shift), max(0, shift)
	return flatSpan{lo: r0*ow + a, hi: r1*ow - b, off: dy*ow + shift, r0: r0, r1: r1, k: a + b, ow: ow, shift: shift, b: b}, true
}

// wrap is the first of row r's wrapped outputs (see flatSpan).
func (f flatSpan) wrap(r int) int {
	if f.shift < 0 {
		return (r + 1) * f.ow
	}
	return r*f.ow + f.ow - f.b
}

// flatTap adds v times tap (ki, kj) of the stencil to the output plane out
// (contiguous, OH x OW) from the input plane at x[0:] as one Axpy over the
// output rows the tap reaches (flatSpan). The wrapped outputs are saved
// before the Axpy and restored after it, bit for bit. save is scratch,
// returned for reuse.
func flatTap[T float32 | float64](geo convGeom, out, x []T, v T, ki, kj int, save []T) []T {
	f, ok := geo.span(ki, kj)
	if !ok {
		return save
	}
	save = save[:0]
	for r := f.r0; r < f.r1-1; r++ {
		save = append(save, out[f.wrap(r):f.wrap(r)+f.k]...)
	}
	dst := out[f.lo:f.hi]
	_ = vec.Axpy(dst, v, x[f.lo+f.off:f.hi+f.off], dst) // lengths agree, dst is y
	for i, r := 0, f.r0; r < f.r1-1; i, r = i+1, r+1 {
		copy(out[f.wrap(r):f.wrap(r)+f.k], save[i*f.k:(i+1)*f.k])
	}
	return save
}

// flatTapDot is flatTap's counterpart for the weights' gradient: the sum
// of g (the output gradient plane) times the input elements tap (ki, kj)
// met, as one dot product over the flatSpan, less the products of the
// wrapped outputs, which the tap never met.
func flatTapDot[T float32 | float64](geo convGeom, g, x []T, ki, kj int) float64 {
	f, ok := geo.span(ki, kj)
	if !ok {
		return 0
	}
	d, _ := vec.Dot(g[f.lo:f.hi], x[f.lo+f.off:f.hi+f.off]) // lengths agree
	sum := float64(d)
	for r := f.r0; r < f.r1-1; r++ {
		for q := f.wrap(r); q < f.wrap(r)+f.k; q++ {
			sum -= float64(g[q]) * float64(x[q+f.off])
		}
	}
	return sum
}

// depthwiseRow adds v times input row xr (width w, column stride sw) to
// the output row: out[s] += v * xr[(s*stride + shift)*sw] for the columns
// s*stride + shift inside [0, w).
func depthwiseRow[T float32 | float64](out, xr []T, v T, shift, stride, sw, w int) {
	lo, hi := colRange(len(out), shift, stride, w)
	if lo >= hi {
		return
	}
	if stride == 1 && sw == 1 {
		dst := out[lo:hi]
		_ = vec.Axpy(dst, v, xr[lo+shift:hi+shift], dst) // lengths agree, dst is y
		return
	}
	step := stride * sw
	src := xr[(lo*stride+shift)*sw:]
	dst := out[lo:hi]
	src = src[:(len(dst)-1)*step+1]
	for s := range dst {
		dst[s] += v * src[s*step]
	}
}

// colRange returns the output columns [lo, hi) of n whose input column
// s*stride + shift lies in [0, w).
func colRange(n, shift, stride, w int) (int, int) {
	lo := 0
	if shift < 0 {
		lo = (-shift + stride - 1) / stride
	}
	if w-1-shift < 0 {
		return 0, 0
	}
	return lo, min(n, (w-1-shift)/stride+1)
}

// depthwiseFilter writes the weights' gradient of a depthwise convolution,
// dw[o, ki, kj] = the sum over images and output pixels of dy times the
// input pixel that tap met, into dw ([O, KH, KW] contiguous) from dy
// (contiguous [N, O, OH, OW]). Each output channel is one work item; a
// tap's sum gathers one dot product per output row in T and adds the rows
// in float64.
func depthwiseFilter[T float32 | float64](geo convGeom, x, dy, dw []T) {
	plane := geo.oh * geo.ow
	taps := geo.kh * geo.kw
	m := geo.oc / geo.c
	flat := geo.flatStencil()
	par.For(geo.oc, runtime.GOMAXPROCS(0), func(o int) {
		acc := make([]float64, taps)
		for img := range geo.n {
			g := dy[(img*geo.oc+o)*plane : (img*geo.oc+o+1)*plane]
			base := geo.xOff[img*geo.c+o/m]
			if flat {
				for ki := range geo.kh {
					for kj := range geo.kw {
						acc[ki*geo.kw+kj] += flatTapDot(geo, g, x[base:], ki, kj)
					}
				}
				continue
			}
			geo.rowTaps(func(r, tap, y, shift int) {
				acc[tap] += float64(depthwiseDot(g[r*geo.ow:(r+1)*geo.ow], x[base+y*geo.sH:], shift, geo.stride[1], geo.sW, geo.w))
			})
		}
		for t, v := range acc {
			dw[o*taps+t] = T(v)
		}
	})
}

// depthwiseDot returns the sum of g[s] * xr[(s*stride + shift)*sw] over
// the columns s*stride + shift inside [0, w), in four partial sums.
func depthwiseDot[T float32 | float64](g, xr []T, shift, stride, sw, w int) T {
	lo, hi := colRange(len(g), shift, stride, w)
	if lo >= hi {
		return 0
	}
	step := stride * sw
	src := xr[(lo*stride+shift)*sw:]
	gs := g[lo:hi]
	if step == 1 {
		d, _ := vec.Dot(gs, src[:len(gs)]) // lengths agree
		return d
	}
	src = src[:(len(gs)-1)*step+1]
	var s0, s1, s2, s3 T
	s := 0
	for ; s+3 < len(gs); s += 4 {
		s0 += gs[s] * src[s*step]
		s1 += gs[s+1] * src[(s+1)*step]
		s2 += gs[s+2] * src[(s+2)*step]
		s3 += gs[s+3] * src[(s+3)*step]
	}
	for ; s < len(gs); s++ {
		s0 += gs[s] * src[s*step]
	}
	return (s0 + s1) + (s2 + s3)
}
