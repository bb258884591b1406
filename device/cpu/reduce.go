package cpu

import (
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Reduce reduces src over axes into dst.
func (d *Device) Reduce(op device.ReduceOp, dst, src device.Operand, axes []int) error {
	name := op.String()
	bufs, err := d.operands(name, dst, src)
	if err != nil {
		return err
	}
	db, sb := bufs[0], bufs[1]
	plan, err := planReduce(name, src.Layout, axes)
	if err != nil {
		return err
	}
	if !equalShape(plan.outShape, dst.Layout.Shape) {
		return errs.New("cpu", name, errs.ErrShape, "destination shape %v, want %v", dst.Layout.Shape, plan.outShape)
	}
	if op.IsArg() {
		if len(axes) != 1 {
			return errs.New("cpu", name, errs.ErrAxis, "reduces exactly one axis, have %v", axes)
		}
		if db.dt != dtype.I64 {
			return errs.New("cpu", name, errs.ErrDType, "writes i64 indices, destination is %v", db.dt)
		}
	} else if db.dt != sb.dt {
		return errs.New("cpu", name, errs.ErrDType, "source %v and destination %v differ", sb.dt, db.dt)
	}
	if plan.count == 0 && op != device.Sum && op != device.Prod && dst.Layout.Numel() > 0 {
		return errs.New("cpu", name, errs.ErrShape, "reduction over an empty extent of shape %v", src.Layout.Shape)
	}
	switch {
	case sb.dt == dtype.Bool:
		return errs.New("cpu", name, errs.ErrDType, "not defined for bool")
	case op == device.Mean && !sb.dt.IsFloat():
		return errs.New("cpu", name, errs.ErrDType, "needs a floating dtype, have %v", sb.dt)
	case op >= device.ReduceOp(len(device.ReduceOps())):
		return errs.New("cpu", name, errs.ErrUnsupported, "unknown reduction %d", op)
	}
	switch sb.dt {
	case dtype.F32:
		reduceInto(op, db, dst.Layout, slice[float32](sb), plan, floatReducer[float32](op))
	case dtype.F64:
		reduceInto(op, db, dst.Layout, slice[float64](sb), plan, floatReducer[float64](op))
	case dtype.F16, dtype.BF16:
		bufs, lays, err := d.widen(src)
		if err != nil {
			return err
		}
		tmp, w := bufs[0], lays[0]
		wplan, _ := planReduce(name, w, axes)
		if op.IsArg() {
			reduceInto(op, db, dst.Layout, slice[float32](tmp), wplan, floatReducer[float32](op))
			return nil
		}
		ol, _ := layout.Contiguous(dst.Layout.Shape...)
		out := newTemp(d, dtype.F32, ol.Numel())
		reduceInto(op, out, ol, slice[float32](tmp), wplan, floatReducer[float32](op))
		return d.copyInto(db, dst.Layout, out, ol)
	case dtype.I32:
		reduceInto(op, db, dst.Layout, slice[int32](sb), plan, intReducer[int32](op))
	case dtype.I64:
		reduceInto(op, db, dst.Layout, slice[int64](sb), plan, intReducer[int64](op))
	case dtype.U8:
		reduceInto(op, db, dst.Layout, slice[uint8](sb), plan, intReducer[uint8](op))
	}
	return nil
}

// reducePlan splits a source layout into kept axes (walked once per output)
// and reduced axes (walked for each output, as relative row starts).
type reducePlan struct {
	outShape   []int
	keptStride []int
	offset     int
	rowStarts  []int // relative storage position of each reduced row
	rowLen     int
	rowStride  int
	count      int // elements reduced per output
}

func planReduce(name string, l layout.Layout, axes []int) (reducePlan, error) {
	reduced := make([]bool, l.Rank())
	for i, a := range axes {
		if a < 0 || a >= l.Rank() || (i > 0 && axes[i-1] >= a) {
			return reducePlan{}, errs.New("cpu", name, errs.ErrAxis, "axes %v must be sorted, distinct and in [0, %d)", axes, l.Rank())
		}
		reduced[a] = true
	}
	p := reducePlan{offset: l.Offset, outShape: []int{}, keptStride: []int{}}
	var redShape, redStride []int
	for i, dim := range l.Shape {
		if reduced[i] {
			redShape = append(redShape, dim)
			redStride = append(redStride, l.Strides[i])
		} else {
			p.outShape = append(p.outShape, dim)
			p.keptStride = append(p.keptStride, l.Strides[i])
		}
	}
	red := layout.NewRows(redShape, 0, redStride)
	p.rowLen = red.Len()
	p.count = red.Count() * red.Len()
	red.Each(0, red.Count(), func(offs []int, n int, inner []int) {
		p.rowStarts = append(p.rowStarts, offs[0])
		p.rowStride = inner[0]
	})
	return p, nil
}

// reducer folds one output's elements. Arg reducers return the flat index
// (in the reduced axes' row-major order) as a float64 bit-exact integer.
type reducer[T num] func(src []T, base int, p *reducePlan) (T, int64)

func reduceInto[T num](op device.ReduceOp, db *Buffer, dl layout.Layout, src []T, p reducePlan, f reducer[T]) {
	rows := layout.NewRows(p.outShape, dl.Offset, dl.Strides, p.offset, p.keptStride)
	if op.IsArg() {
		out := slice[int64](db)
		runRows(rows, func(offs []int, n int, inner []int) {
			i, j := offs[0], offs[1]
			for range n {
				_, out[i] = f(src, j, &p)
				i += inner[0]
				j += inner[1]
			}
		})
		return
	}
	out := slice[T](db)
	runRows(rows, func(offs []int, n int, inner []int) {
		i, j := offs[0], offs[1]
		for range n {
			out[i], _ = f(src, j, &p)
			i += inner[0]
			j += inner[1]
		}
	})
}

func floatReducer[T float](op device.ReduceOp) reducer[T] {
	switch op {
	case device.Sum, device.Mean:
		mean := op == device.Mean
		return func(src []T, base int, p *reducePlan) (T, int64) {
			// Neumaier's compensated sum in float64 (of whole rows' sums
			// when rows are contiguous, which vec adds in fixed-order lanes):
			// accurate and the same on every run.
			var s, c float64
			add := func(x float64) {
				t := s + x
				if math.Abs(s) >= math.Abs(x) {
					c += (s - t) + x
				} else {
					c += (x - t) + s
				}
				s = t
			}
			if p.rowStride == 1 {
				for _, r := range p.rowStarts {
					add(rowSumAny(src[base+r : base+r+p.rowLen]))
				}
				s += c
				if mean {
					s /= float64(p.count)
				}
				return T(s), 0
			}
			for _, r := range p.rowStarts {
				j := base + r
				for range p.rowLen {
					x := float64(src[j])
					t := s + x
					if math.Abs(s) >= math.Abs(x) {
						c += (s - t) + x
					} else {
						c += (x - t) + s
					}
					s = t
					j += p.rowStride
				}
			}
			s += c
			if mean {
				s /= float64(p.count)
			}
			return T(s), 0
		}
	case device.Prod:
		return func(src []T, base int, p *reducePlan) (T, int64) {
			prod := 1.0
			for _, r := range p.rowStarts {
				j := base + r
				for range p.rowLen {
					prod *= float64(src[j])
					j += p.rowStride
				}
			}
			return T(prod), 0
		}
	}
	// Max, Min, ArgMax, ArgMin: NaN wins, first occurrence wins ties.
	better := func(x, best T) bool { return x > best }
	if op == device.Min || op == device.ArgMin {
		better = func(x, best T) bool { return x < best }
	}
	return func(src []T, base int, p *reducePlan) (T, int64) {
		var best T
		var at, k int64
		first := true
		for _, r := range p.rowStarts {
			j := base + r
			for range p.rowLen {
				x := src[j]
				if first || (best == best && (x != x || better(x, best))) {
					best, at, first = x, k, false
				}
				k++
				j += p.rowStride
			}
		}
		return best, at
	}
}

func intReducer[T ~int32 | ~int64 | ~uint8](op device.ReduceOp) reducer[T] {
	switch op {
	case device.Sum:
		return func(src []T, base int, p *reducePlan) (T, int64) {
			var s T // wraps, as integer sums do in every dtype-preserving library
			for _, r := range p.rowStarts {
				j := base + r
				for range p.rowLen {
					s += src[j]
					j += p.rowStride
				}
			}
			return s, 0
		}
	case device.Prod:
		return func(src []T, base int, p *reducePlan) (T, int64) {
			var s T = 1
			for _, r := range p.rowStarts {
				j := base + r
				for range p.rowLen {
					s *= src[j]
					j += p.rowStride
				}
			}
			return s, 0
		}
	}
	better := func(x, best T) bool { return x > best }
	if op == device.Min || op == device.ArgMin {
		better = func(x, best T) bool { return x < best }
	}
	return func(src []T, base int, p *reducePlan) (T, int64) {
		var best T
		var at, k int64
		for _, r := range p.rowStarts {
			j := base + r
			for range p.rowLen {
				if k == 0 || better(src[j], best) {
					best, at = src[j], k
				}
				k++
				j += p.rowStride
			}
		}
		return best, at
	}
}

// rowSumAny sums a contiguous row of float32 or float64 with vec.
func rowSumAny[T float](x []T) float64 {
	switch v := any(x).(type) {
	case []float32:
		return rowSum(v)
	case []float64:
		return rowSum(v)
	}
	return 0
}
