package cpu

import (
	"math"
	"slices"
	"unsafe"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

var _ device.Softmaxer = (*Device)(nil)

// softmaxGrain is about how many elements one goroutine of Softmax takes
// at the least (whole lines).
const softmaxGrain = 1 << 14

// Softmax implements device.Softmaxer for F32 and F64: the tensor
// package's composite (t - max, with a -Inf maximum taken as 0; exp; sum;
// divide, or for log-softmax the shifted values less the log of the sum)
// done line by line with the vector kernels while the line is in cache.
// Lines along any axis and of any strides are gathered into scratch and
// written back. F16 and BF16 are ErrUnsupported: the tensor package then
// composes them as before.
func (d *Device) Softmax(dst, src device.Operand, axis int, log bool) error {
	bufs, err := d.operands("Softmax", dst, src)
	if err != nil {
		return err
	}
	db, sb := bufs[0], bufs[1]
	if db.dt != sb.dt {
		return errs.New("cpu", "Softmax", errs.ErrDType, "writes the source's dtype %v, have %v", sb.dt, db.dt)
	}
	if !slices.Equal(dst.Layout.Shape, src.Layout.Shape) {
		return errs.New("cpu", "Softmax", errs.ErrShape, "destination %v must have the source's shape %v", dst.Layout.Shape, src.Layout.Shape)
	}
	if axis < 0 || axis >= len(src.Layout.Shape) {
		return errs.New("cpu", "Softmax", errs.ErrAxis, "axis %d out of range for rank %d", axis, len(src.Layout.Shape))
	}
	switch sb.dt {
	case dtype.F32:
		softmaxLines(slice[float32](db), dst.Layout, slice[float32](sb), src.Layout, axis, log)
	case dtype.F64:
		softmaxLines(slice[float64](db), dst.Layout, slice[float64](sb), src.Layout, axis, log)
	default:
		return errs.New("cpu", "Softmax", errs.ErrUnsupported, "has no %v kernel (the tensor package composes it)", sb.dt)
	}
	return nil
}

// softmaxLines runs softmaxLine over every line of src along axis into
// the matching line of dst, lines spread over the cores. Lines that are
// not adjacent in memory (softmax over a leading axis) are taken up to
// softmaxGroup at a time when their starts are neighbours (columns):
// gathered row by row into scratch, so that each source line of cache
// serves the whole group, and scattered back the same way.
func softmaxLines[T vec.Float](dst []T, dl layout.Layout, src []T, sl layout.Layout, axis int, log bool) {
	n := sl.Shape[axis]
	ls := lines(sl.Shape, axis, sl, dl)
	if n == 0 || len(ls) == 0 {
		return
	}
	ss, ds := sl.Strides[axis], dl.Strides[axis]
	// The gathered lines lie w apart: a cache line more than n, so that
	// when n is a multiple of 1024 they do not all fall in one L1 set.
	w := n + 64/int(unsafe.Sizeof(T(0)))
	vec.Parallel(len(ls), max(1, softmaxGrain/n), func(lo, hi int) {
		// The gathered group's scratch only where lines are strided; tmp
		// (log-softmax's exponentials) always.
		size := n
		if ss != 1 || ds != 1 {
			size += softmaxGroup * w
		}
		scratch := make([]T, size)
		tmp := scratch[size-n:]
		for k := lo; k < hi; {
			if ss == 1 && ds == 1 {
				b := ls[k]
				softmaxLine(dst[b[1]:b[1]+n], src[b[0]:b[0]+n], tmp, log)
				k++
				continue
			}
			// g lines whose starts follow one another on both sides.
			g := 1
			for g < softmaxGroup && k+g < hi && ls[k+g][0] == ls[k][0]+g && ls[k+g][1] == ls[k][1]+g {
				g++
			}
			// Gathered by vec.Transpose (the g columns of n rows become
			// g lines, w apart) and scattered back the same way; by
			// element where it refuses (a stride shorter than the group).
			s0, d0 := ls[k][0], ls[k][1]
			if vec.Transpose(scratch, w, src[s0:], ss, n, g) != nil {
				for i := range n {
					row := src[s0+i*ss : s0+i*ss+g]
					for c, v := range row {
						scratch[c*w+i] = v
					}
				}
			}
			for c := range g {
				line := scratch[c*w : c*w+n]
				softmaxLine(line, line, tmp, log)
			}
			if vec.Transpose(dst[d0:], ds, scratch, w, g, n) != nil {
				for i := range n {
					row := dst[d0+i*ds : d0+i*ds+g]
					for c := range row {
						row[c] = scratch[c*w+i]
					}
				}
			}
			k += g
		}
	})
}

// softmaxGroup is how many neighbouring strided lines softmaxLines takes
// at once: two 64-byte lines of float32 columns (32 ran 10-20 % ahead of
// 16 on [1024, 1024] over axis 0, and alike with 64).
const softmaxGroup = 32

// softmaxLine writes the softmax (or log-softmax) of the adjacent elements
// x into out (which may be x), using tmp (x's length) for log-softmax's
// exponentials. A NaN or +Inf in x makes the line NaN and an all -Inf
// line is NaN (0/0; -Inf - -Inf), as the composite gives.
func softmaxLine[T vec.Float](out, x, tmp []T, log bool) {
	m, _ := vec.Max(x)
	if math.IsInf(float64(m), -1) {
		m = 0
	}
	_ = vec.SubScalar(out, x, m)
	if log {
		_ = vec.Exp(tmp, out)
		// The log of the sum in tmp's first element, which is spent: a
		// local array would escape to the heap through vec's kernel table.
		lse := tmp[:1]
		lse[0] = T(rowSum(tmp))
		_ = vec.Log(lse, lse)
		_ = vec.SubScalar(out, out, lse[0])
		return
	}
	_ = vec.Exp(out, out)
	_ = vec.DivScalar(out, out, T(rowSum(out)))
}
