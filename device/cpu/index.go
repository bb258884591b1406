package cpu

import (
	"math"
	"runtime"
	"slices"

	"github.com/tessera-go/tessera/device"
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
// other axes), the storage position of its first element in each layout.
func lines(shape []int, axis int, ls ...layout.Layout) [][]int {
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
	var out [][]int
	rows := layout.NewRows(kept, args...)
	rows.Each(0, rows.Count(), func(offs []int, n int, inner []int) {
		for j := range n {
			b := make([]int, len(offs))
			for k := range offs {
				b[k] = offs[k] + j*inner[k]
			}
			out = append(out, b)
		}
	})
	return out
}

// indexReader returns a function reading an I32 or I64 index at a storage
// position.
func indexReader(b *Buffer) func(p int) int64 {
	if b.dt == dtype.I32 {
		s := slice[int32](b)
		return func(p int) int64 { return int64(s[p]) }
	}
	s := slice[int64](b)
	return func(p int) int64 { return s[p] }
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
	ds, ss, st := slice[T](bufs[0]), slice[T](bufs[1]), slice[int32](bufs[3])
	at := indexReader(bufs[2])
	ext, sa := int64(src.Layout.Shape[axis]), src.Layout.Strides[axis]
	shape := idx.Layout.Shape
	rows := layout.NewRowsOf(dst.Layout, axisView(src.Layout, shape, axis), idx.Layout)
	rows.Each(0, rows.Count(), func(offs []int, n int, inner []int) {
		for j := range n {
			v := at(offs[2] + j*inner[2])
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
	ds, ss, st := slice[T](bufs[0]), slice[T](bufs[2]), slice[int32](bufs[3])
	at := indexReader(bufs[1])
	ext, da := int64(dst.Layout.Shape[axis]), dst.Layout.Strides[axis]
	shape := idx.Layout.Shape
	rows := layout.NewRowsOf(axisView(dst.Layout, shape, axis), idx.Layout, src.Layout)
	rows.Each(0, rows.Count(), func(offs []int, n int, inner []int) {
		for j := range n {
			v := at(offs[1] + j*inner[1])
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
		scan(slice[float32](bufs[0]), slice[float32](bufs[1]), dst, src, axis, prod, func(x float32) float32 { return x })
	case dtype.F64:
		scan(slice[float64](bufs[0]), slice[float64](bufs[1]), dst, src, axis, prod, func(x float64) float64 { return x })
	case dtype.I32:
		scan(slice[int64](bufs[0]), slice[int32](bufs[1]), dst, src, axis, prod, func(x int32) int64 { return int64(x) })
	case dtype.I64:
		scan(slice[int64](bufs[0]), slice[int64](bufs[1]), dst, src, axis, prod, func(x int64) int64 { return x })
	case dtype.U8, dtype.Bool:
		scan(slice[int64](bufs[0]), slice[uint8](bufs[1]), dst, src, axis, prod, func(x uint8) int64 { return int64(x) })
	default:
		return errs.New("cpu", op.String(), errs.ErrDType, "scans f32, f64 and integers, have %v (Cast to f32 first)", src.DType())
	}
	return nil
}

func scan[D num, S any](ds []D, ss []S, dst, src device.Operand, axis int, prod bool, conv func(S) D) {
	n, sa, da := src.Layout.Shape[axis], src.Layout.Strides[axis], dst.Layout.Strides[axis]
	for _, b := range lines(src.Layout.Shape, axis, src.Layout, dst.Layout) {
		var acc D
		if prod {
			acc = 1
		}
		for i := range n {
			x := conv(ss[b[0]+i*sa])
			if prod {
				acc *= x
			} else {
				acc += x
			}
			ds[b[1]+i*da] = acc
		}
	}
}

// Sort sorts every line along axis, stably, by an unsigned key per element
// (sortKey) whose order is the documented one: a radix sort for lines of
// 64 elements or more, slices.SortStableFunc below. Lines are spread over
// the cores.
func (d *Device) Sort(vals, idx, src device.Operand, axis int, descending bool) error {
	bufs, err := d.operands("Sort", vals, idx, src)
	if err != nil {
		return err
	}
	if err := device.CheckSort("cpu", vals.Arg(), idx.Arg(), src.Arg(), axis); err != nil {
		return err
	}
	var key func(p int) uint64
	var width int // significant key bytes
	switch sb := bufs[2]; sb.dt {
	case dtype.F32:
		s := slice[float32](sb)
		key, width = func(p int) uint64 { return uint64(floatKey32(s[p])) }, 4
	case dtype.F64:
		s := slice[float64](sb)
		key, width = func(p int) uint64 { return floatKey64(s[p]) }, 8
	case dtype.F16, dtype.BF16:
		s := slice[uint16](sb)
		widen := func(h uint16) float32 { return dtype.Float16(h).Float32() }
		if sb.dt == dtype.BF16 {
			widen = func(h uint16) float32 { return dtype.BFloat16(h).Float32() }
		}
		key, width = func(p int) uint64 { return uint64(floatKey32(widen(s[p]))) }, 4
	case dtype.I32:
		s := slice[int32](sb)
		key, width = func(p int) uint64 { return uint64(uint32(s[p]) ^ 1<<31) }, 4
	case dtype.I64:
		s := slice[int64](sb)
		key, width = func(p int) uint64 { return uint64(s[p]) ^ 1<<63 }, 8
	default: // U8, Bool
		s := slice[uint8](sb)
		key, width = func(p int) uint64 { return uint64(s[p]) }, 1
	}
	if descending {
		asc, mask := key, uint64(1)<<(8*width)-1
		if width == 8 {
			mask = math.MaxUint64
		}
		key = func(p int) uint64 { return ^asc(p) & mask }
	}
	n := src.Layout.Shape[axis]
	sa, va, ia := src.Layout.Strides[axis], vals.Layout.Strides[axis], idx.Layout.Strides[axis]
	ls := lines(src.Layout.Shape, axis, src.Layout, vals.Layout, idx.Layout)
	emit := permuter(bufs[0], bufs[2])
	ib := slice[int64](bufs[1])
	par.For(len(ls), runtime.GOMAXPROCS(0), func(r int) {
		b := ls[r]
		order := make([]int32, n)
		if width <= 4 {
			// Key and position packed in one word: the radix passes move
			// 8 bytes an element, and the position breaks no ties itself
			// (the sort is stable), it only rides along.
			packed := make([]uint64, n)
			for i := range n {
				packed[i] = key(b[0]+i*sa)<<32 | uint64(i)
			}
			radixPacked(packed)
			for j, w := range packed {
				order[j] = int32(uint32(w))
			}
		} else {
			keys := make([]uint64, n)
			for i := range n {
				keys[i], order[i] = key(b[0]+i*sa), int32(i)
			}
			sortLine(keys, order, width)
		}
		emit(order, b[1], va, b[0], sa)
		for j, i := range order {
			ib[b[2]+j*ia] = int64(i)
		}
	})
	return nil
}

// permuter returns a function writing dst[d0 + j*ds] = src[s0 + order[j]*ss]
// for every j, moving elements of the buffers' size as raw bits.
func permuter(dst, src *Buffer) func(order []int32, d0, ds, s0, ss int) {
	switch src.dt.Size() {
	case 1:
		return permute(slice[uint8](dst), slice[uint8](src))
	case 2:
		return permute(slice[uint16](dst), slice[uint16](src))
	case 4:
		return permute(slice[uint32](dst), slice[uint32](src))
	}
	return permute(slice[uint64](dst), slice[uint64](src))
}

func permute[T uint8 | uint16 | uint32 | uint64](d, s []T) func(order []int32, d0, ds, s0, ss int) {
	return func(order []int32, d0, ds, s0, ss int) {
		for j, i := range order {
			d[d0+j*ds] = s[s0+int(i)*ss]
		}
	}
}

// floatKey32 maps f32 to an unsigned key in the sort order: -Inf first,
// -0 equal to +0, every NaN equal and last.
func floatKey32(x float32) uint32 {
	b := math.Float32bits(x)
	switch {
	case x != x:
		return math.MaxUint32
	case x == 0:
		b = 0
	}
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// floatKey64 is floatKey32 for f64.
func floatKey64(x float64) uint64 {
	b := math.Float64bits(x)
	switch {
	case x != x:
		return math.MaxUint64
	case x == 0:
		b = 0
	}
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// radixPacked sorts words by their upper 32 bits, stably: a least-
// significant-digit radix sort in three passes of 11 bits, skipping a pass
// whose digit every word shares. Short slices take a comparison sort.
func radixPacked(w []uint64) {
	n := len(w)
	if n < 256 {
		slices.SortStableFunc(w, func(a, b uint64) int {
			switch {
			case a>>32 < b>>32:
				return -1
			case a>>32 > b>>32:
				return 1
			}
			return 0
		})
		return
	}
	const bitsPer, buckets = 11, 1 << 11
	var counts [3][buckets]int
	for _, x := range w {
		k := x >> 32
		counts[0][k&(buckets-1)]++
		counts[1][(k>>bitsPer)&(buckets-1)]++
		counts[2][k>>(2*bitsPer)]++
	}
	tmp := make([]uint64, n)
	src, dst := w, tmp
	for pass := range 3 {
		c := &counts[pass]
		sh := 32 + uint(pass)*bitsPer
		if c[(src[0]>>sh)&(buckets-1)] == n {
			continue
		}
		sum := 0
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		for _, x := range src {
			d := (x >> sh) & (buckets - 1)
			dst[c[d]] = x
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &w[0] {
		copy(w, src)
	}
}

// sortLine orders keys (and order alongside) stably: a least-significant-
// digit radix sort over the key's width bytes, skipping bytes every key
// shares, or a stable comparison sort for short lines.
func sortLine(keys []uint64, order []int32, width int) {
	n := len(keys)
	if n < 64 {
		type kv struct {
			k uint64
			i int32
		}
		t := make([]kv, n)
		for i := range t {
			t[i] = kv{keys[i], order[i]}
		}
		slices.SortStableFunc(t, func(a, b kv) int {
			switch {
			case a.k < b.k:
				return -1
			case a.k > b.k:
				return 1
			}
			return 0
		})
		for i := range t {
			keys[i], order[i] = t[i].k, t[i].i
		}
		return
	}
	var counts [8][256]int
	for _, k := range keys {
		for by := range width {
			counts[by][byte(k>>(8*by))]++
		}
	}
	k2, o2 := make([]uint64, n), make([]int32, n)
	src, dst, so, do := keys, k2, order, o2
	for by := range width {
		c := &counts[by]
		if c[byte(src[0]>>(8*by))] == n {
			continue // every key shares this byte
		}
		sum := 0
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		sh := 8 * by
		for i, k := range src {
			bk := byte(k >> sh)
			dst[c[bk]], do[c[bk]] = k, so[i]
			c[bk]++
		}
		src, dst, so, do = dst, src, do, so
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
		copy(order, so)
	}
}
