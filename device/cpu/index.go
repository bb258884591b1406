package cpu

import (
	"runtime"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

// Gather, ScatterAdd, Scan and Sort: the device.Indexer, device.Scanner and
// device.Sorter capabilities of the CPU backend.

var (
	_ device.Indexer = (*Device)(nil)
	_ device.Scanner = (*Device)(nil)
	_ device.Sorter  = (*Device)(nil)
)

// lines returns, for every line of shape along axis (every position of the
// other axes), the storage position of its first element in each layout;
// none when the lines are empty (shape[axis] is 0), since there is nothing
// on them to visit, however many the other axes make (an empty [2^20, 0,
// 2^20] has 2^40 of them).
func lines(shape []int, axis int, ls ...layout.Layout) [][]int {
	if shape[axis] == 0 {
		return nil
	}
	var kept []int
	args := []any{}
	for _, l := range ls {
		var st []int
		for i, s := range l.Strides {
			if i != axis {
				st = append(st, s)
			}
		}
		args = append(args, l.Offset, st)
	}
	for i, d := range shape {
		if i != axis {
			kept = append(kept, d)
		}
	}
	rows := layout.NewRows(kept, args...)
	count := rows.Count() * rows.Len()
	// One backing array for every line's positions: a line costs no
	// allocation of its own (a softmax over [64, 10] made 64 of them).
	out, flat := make([][]int, 0, count), make([]int, count*len(ls))
	rows.Each(0, rows.Count(), func(offs []int, n int, inner []int) {
		for j := range n {
			b := flat[:len(offs):len(offs)]
			flat = flat[len(offs):]
			for k := range offs {
				b[k] = offs[k] + j*inner[k]
			}
			out = append(out, b)
		}
	})
	return out
}

// badIndex records an out-of-range index in the status operand.
func badIndex(st []int32, off int, v int64) {
	if st[off] == 0 {
		st[off], st[off+1], st[off+2] = 1, int32(uint32(v)), int32(uint32(uint64(v)>>32))
	}
}

// axisView is l with the stride of axis set to 0: the positions of
// element p of the indices' shape with its axis coordinate at 0.
func axisView(l layout.Layout, shape []int, axis int) layout.Layout {
	st := slices.Clone(l.Strides)
	st[axis] = 0
	return layout.Layout{Shape: slices.Clone(shape), Strides: st, Offset: l.Offset}
}

// Gather writes dst[p] = src[p with axis coordinate idx[p]], moving the
// elements' bits.
func (d *Device) Gather(dst, src, idx, status device.Operand, axis int) error {
	bufs, err := d.operands("Gather", dst, src, idx, status)
	if err != nil {
		return err
	}
	if err := device.CheckGather("cpu", false, src.Arg(), dst.Arg(), idx.Arg(), status.Arg(), axis); err != nil {
		return err
	}
	switch src.DType().Size() {
	case 1:
		gatherAxis[uint8](bufs, dst, src, idx, status, axis)
	case 2:
		gatherAxis[uint16](bufs, dst, src, idx, status, axis)
	case 4:
		gatherAxis[uint32](bufs, dst, src, idx, status, axis)
	default:
		gatherAxis[uint64](bufs, dst, src, idx, status, axis)
	}
	return nil
}

func gatherAxis[T uint8 | uint16 | uint32 | uint64](bufs []*Buffer, dst, src, idx, status device.Operand, axis int) {
	if bufs[2].dt == dtype.I32 {
		gatherIndexed[T](bufs, slice[int32](bufs[2]), dst, src, idx, status, axis)
	} else {
		gatherIndexed[T](bufs, slice[int64](bufs[2]), dst, src, idx, status, axis)
	}
}

// gatherIndexed is gatherAxis with the indices' type known, so that the
// rows' loops read them inline.
func gatherIndexed[T uint8 | uint16 | uint32 | uint64, I int32 | int64](bufs []*Buffer, is []I, dst, src, idx, status device.Operand, axis int) {
	ds, ss, st := slice[T](bufs[0]), slice[T](bufs[1]), slice[int32](bufs[3])
	ext, sa := int64(src.Layout.Shape[axis]), src.Layout.Strides[axis]
	shape := idx.Layout.Shape
	rows := layout.NewRowsOf(dst.Layout, axisView(src.Layout, shape, axis), idx.Layout)
	rows.Each(0, rows.Count(), func(offs []int, n int, inner []int) {
		if inner[2] == 0 { // one index for the row (IndexSelect's broadcast indices)
			gatherRow(ds[offs[0]:], inner[0], ss, offs[1], inner[1], n, int64(is[offs[2]]), ext, sa, st, status.Layout.Offset)
			return
		}
		if inner[0] == 1 && inner[1] == 1 && inner[2] == 1 { // Gather's common case: adjacent rows
			d, ix, so := ds[offs[0]:offs[0]+n], is[offs[2]:offs[2]+n], offs[1]
			for j, v := range ix {
				var x T
				if uint64(v) < uint64(ext) { // also false for a negative v
					x = ss[so+j+int(v)*sa]
				} else {
					badIndex(st, status.Layout.Offset, int64(v))
				}
				d[j] = x
			}
			return
		}
		for j := range n {
			v := int64(is[offs[2]+j*inner[2]])
			var x T
			if v >= 0 && v < ext {
				x = ss[offs[1]+j*inner[1]+int(v)*sa]
			} else {
				badIndex(st, status.Layout.Offset, v)
			}
			ds[offs[0]+j*inner[0]] = x
		}
	})
}

// gatherRow writes n elements of the row at src[so + v*sa], step ss, to
// dst (step ds): one copy when both rows are adjacent. An index v outside
// [0, ext) is recorded in the status and gives zeros.
func gatherRow[T uint8 | uint16 | uint32 | uint64](dst []T, ds int, src []T, so, ss, n int, v, ext int64, sa int, st []int32, statusOff int) {
	if v < 0 || v >= ext {
		badIndex(st, statusOff, v)
		for j := range n {
			dst[j*ds] = 0
		}
		return
	}
	so += int(v) * sa
	if ds == 1 && ss == 1 {
		copy(dst[:n], src[so:so+n])
		return
	}
	for j := range n {
		dst[j*ds] = src[so+j*ss]
	}
}

// ScatterAdd adds src[p] into dst at p with axis coordinate idx[p], in the
// order of p (so float results are deterministic). F16, BF16 and Bool are
// refused: the tensor layer accumulates half floats in F32.
func (d *Device) ScatterAdd(dst, idx, src, status device.Operand, axis int) error {
	bufs, err := d.operands("ScatterAdd", dst, idx, src, status)
	if err != nil {
		return err
	}
	if err := device.CheckGather("cpu", true, dst.Arg(), src.Arg(), idx.Arg(), status.Arg(), axis); err != nil {
		return err
	}
	switch dst.DType() {
	case dtype.F32:
		scatterAdd[float32](bufs, dst, idx, src, status, axis)
	case dtype.F64:
		scatterAdd[float64](bufs, dst, idx, src, status, axis)
	case dtype.I32:
		scatterAdd[int32](bufs, dst, idx, src, status, axis)
	case dtype.I64:
		scatterAdd[int64](bufs, dst, idx, src, status, axis)
	case dtype.U8:
		scatterAdd[uint8](bufs, dst, idx, src, status, axis)
	default:
		return errs.New("cpu", "ScatterAdd", errs.ErrDType, "accumulates f32, f64, i32, i64 or u8, have %v (Cast first)", dst.DType())
	}
	return nil
}

func scatterAdd[T num](bufs []*Buffer, dst, idx, src, status device.Operand, axis int) {
	if bufs[1].dt == dtype.I32 {
		scatterAddIndexed[T](bufs, slice[int32](bufs[1]), dst, idx, src, status, axis)
	} else {
		scatterAddIndexed[T](bufs, slice[int64](bufs[1]), dst, idx, src, status, axis)
	}
}

// scatterAddIndexed is scatterAdd with the indices' type known, so that
// the loop reads them inline.
func scatterAddIndexed[T num, I int32 | int64](bufs []*Buffer, is []I, dst, idx, src, status device.Operand, axis int) {
	ds, ss, st := slice[T](bufs[0]), slice[T](bufs[2]), slice[int32](bufs[3])
	ext, da := int64(dst.Layout.Shape[axis]), dst.Layout.Strides[axis]
	shape := idx.Layout.Shape
	rows := layout.NewRowsOf(axisView(dst.Layout, shape, axis), idx.Layout, src.Layout)
	rows.Each(0, rows.Count(), func(offs []int, n int, inner []int) {
		for j := range n {
			v := int64(is[offs[1]+j*inner[1]])
			if v < 0 || v >= ext {
				badIndex(st, status.Layout.Offset, v)
				continue
			}
			ds[offs[0]+j*inner[0]+int(v)*da] += ss[offs[2]+j*inner[2]]
		}
	})
}

// Scan writes the inclusive running sum or product along axis. Floats
// accumulate in their own dtype, in order (NumPy's cumsum does the same);
// integers and Bool in int64, wrapping. F16 and BF16 are refused: the
// tensor layer scans them in F32.
func (d *Device) Scan(op device.ScanOp, dst, src device.Operand, axis int) error {
	bufs, err := d.operands(op.String(), dst, src)
	if err != nil {
		return err
	}
	if err := device.CheckScan("cpu", op, dst.Arg(), src.Arg(), axis); err != nil {
		return err
	}
	prod := op == device.CumProd
	switch src.DType() {
	case dtype.F32:
		scan(slice[float32](bufs[0]), slice[float32](bufs[1]), dst, src, axis, prod)
	case dtype.F64:
		scan(slice[float64](bufs[0]), slice[float64](bufs[1]), dst, src, axis, prod)
	case dtype.I32:
		scan(slice[int64](bufs[0]), slice[int32](bufs[1]), dst, src, axis, prod)
	case dtype.I64:
		scan(slice[int64](bufs[0]), slice[int64](bufs[1]), dst, src, axis, prod)
	case dtype.U8, dtype.Bool:
		scan(slice[int64](bufs[0]), slice[uint8](bufs[1]), dst, src, axis, prod)
	default:
		return errs.New("cpu", op.String(), errs.ErrDType, "scans f32, f64 and integers, have %v (Cast to f32 first)", src.DType())
	}
	return nil
}

// scan writes the running sums (or products) of src along axis into dst,
// each output element acc(i) = acc(i-1) + x(i) in order, in D (the source
// converted, as D(x)). Contiguous operands with axis not the last take
// scanBlocks, which walks whole rows of the axis across all the lines at
// once (the lines are columns there, and one at a time would stride
// through memory); the other lines are split among the cores, each walked
// in turn. Either way every line's sums are taken in the same order, so
// the results do not depend on the path or the cores.
func scan[D, S num](ds []D, ss []S, dst, src device.Operand, axis int, prod bool) {
	shape := src.Layout.Shape
	n, sa, da := shape[axis], src.Layout.Strides[axis], dst.Layout.Strides[axis]
	inner := 1
	for _, e := range shape[axis+1:] {
		inner *= e
	}
	if inner > 1 && src.Layout.IsContiguous() && dst.Layout.IsContiguous() {
		scanBlocks(ds[dst.Layout.Offset:], ss[src.Layout.Offset:], src.Layout.Numel()/max(n*inner, 1), n, inner, prod)
		return
	}
	lns := lines(shape, axis, src.Layout, dst.Layout)
	one := func(b []int) {
		var acc D
		if prod {
			acc = 1
		}
		i, o := b[0], b[1]
		for range n {
			if prod {
				acc *= D(ss[i])
			} else {
				acc += D(ss[i])
			}
			ds[o] = acc
			i += sa
			o += da
		}
	}
	// Lines in contiguous chunks, so that many short lines cost no
	// claim each.
	vec.Parallel(len(lns), max(1, scanSplitAbove/max(n, 1)), func(lo, hi int) {
		for _, b := range lns[lo:hi] {
			one(b)
		}
	})
}

// scanSplitAbove is about how many elements one core of a scan takes at
// the least, from which its lines or column chunks are split among the
// cores.
const scanSplitAbove = 1 << 15

// scanBlocks is scan on contiguous operands: outer blocks of n rows of
// inner elements, each row the previous row's sums plus its own source
// row (vec's Add and Mul for floats, which give the scalar loop's bits),
// the blocks' columns split among the cores in chunks.
func scanBlocks[D, S num](ds []D, ss []S, outer, n, inner int, prod bool) {
	const chunk = 4096 // columns a task: a row of them stays in L1
	chunks := (inner + chunk - 1) / chunk
	run := func(t int) {
		o, c0 := t/chunks, t%chunks*chunk
		c1 := min(c0+chunk, inner)
		base := o * n * inner
		prev := []D(nil)
		for i := range n {
			off := base + i*inner
			d, x := ds[off+c0:off+c1], ss[off+c0:off+c1]
			if prev == nil {
				for k, v := range x {
					d[k] = D(v)
				}
			} else if !scanRowVec(d, prev, x, prod) {
				x = x[:len(d)]
				prev = prev[:len(d)]
				if prod {
					for k, v := range x {
						d[k] = prev[k] * D(v)
					}
				} else {
					for k, v := range x {
						d[k] = prev[k] + D(v)
					}
				}
			}
			prev = d
		}
	}
	tasks := outer * chunks
	if workers := runtime.GOMAXPROCS(0); tasks > 1 && outer*n*inner >= scanSplitAbove && workers > 1 {
		par.For(tasks, workers, run)
		return
	}
	for t := range tasks {
		run(t)
	}
}

// scanRowVec sets d to prev + x (or prev * x) with vec's kernels where D
// and S are the same float type, reporting whether it did.
func scanRowVec[D, S num](d, prev []D, x []S, prod bool) bool {
	switch dv := any(d).(type) {
	case []float32:
		return vecAddMul(dv, any(prev).([]float32), x, prod)
	case []float64:
		return vecAddMul(dv, any(prev).([]float64), x, prod)
	}
	return false
}

// vecAddMul sets d to p + x (or p * x) when x is a row of T, reporting
// whether it was.
func vecAddMul[T vec.Float](d, p []T, x any, prod bool) bool {
	xv, ok := x.([]T)
	switch {
	case !ok:
		return false
	case prod:
		return vec.Mul(d, p, xv) == nil
	}
	return vec.Add(d, p, xv) == nil
}
