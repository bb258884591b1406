package cpu

import (
	"math"
	"slices"

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
// the matching line of dst, lines spread over the cores.
func softmaxLines[T vec.Float](dst []T, dl layout.Layout, src []T, sl layout.Layout, axis int, log bool) {
	n := sl.Shape[axis]
	ls := lines(sl.Shape, axis, sl, dl)
	if n == 0 || len(ls) == 0 {
		return
	}
	ss, ds := sl.Strides[axis], dl.Strides[axis]
	vec.Parallel(len(ls), max(1, softmaxGrain/n), func(lo, hi int) {
		scratch := make([]T, 2*n)
		row, tmp := scratch[:n], scratch[n:]
		for _, b := range ls[lo:hi] {
			x := row
			if ss == 1 {
				x = src[b[0] : b[0]+n]
			} else {
				for i := range row {
					row[i] = src[b[0]+i*ss]
				}
			}
			out := row
			if ds == 1 {
				out = dst[b[1] : b[1]+n]
			}
			softmaxLine(out, x, tmp, log)
			if ds != 1 {
				for i, v := range out {
					dst[b[1]+i*ds] = v
				}
			}
		}
	})
}

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
		ls := [1]T{T(rowSum(tmp))}
		_ = vec.Log(ls[:], ls[:])
		_ = vec.SubScalar(out, out, ls[0])
		return
	}
	_ = vec.Exp(out, out)
	_ = vec.DivScalar(out, out, T(rowSum(out)))
}
