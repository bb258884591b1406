package cpu

import (
	"math"
	"runtime"
	"slices"
	"unsafe"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

// storage types: every dtype is computed as one of these Go types. Bool is
// uint8 (0 or 1); F16 and BF16 are widened to float32 for arithmetic.
type num interface {
	~float32 | ~float64 | ~int32 | ~int64 | ~uint8
}

type float interface{ ~float32 | ~float64 }

func slice[T any](b *Buffer) []T {
	if b.n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b.data[0])), b.n)
}

// operand checks that o is a live buffer of this device with a layout that
// stays inside it, and returns the buffer.
func (d *Device) operand(op string, o device.Operand) (*Buffer, error) {
	b, err := d.own(op, o.Buf)
	if err != nil {
		return nil, err
	}
	if err := o.Layout.Validate(b.n); err != nil {
		return nil, errs.Retag("cpu", op, err)
	}
	return b, nil
}

// operands checks each operand as operand does and returns their buffers.
func (d *Device) operands(op string, ops ...device.Operand) ([]*Buffer, error) {
	bufs := make([]*Buffer, len(ops))
	for i, o := range ops {
		b, err := d.operand(op, o)
		if err != nil {
			return nil, err
		}
		bufs[i] = b
	}
	return bufs, nil
}

func sameShape(op string, ops ...device.Operand) error {
	for _, o := range ops[1:] {
		if !slices.Equal(o.Layout.Shape, ops[0].Layout.Shape) {
			return errs.New("cpu", op, errs.ErrShape, "operand shapes differ: %v and %v", ops[0].Layout.Shape, o.Layout.Shape)
		}
	}
	return nil
}

// grain is the number of elements below which work stays on one goroutine.
const grain = 1 << 15

// runRows walks rows with fn, splitting the work across cores when it is
// large: whole rows when there are enough of them, else pieces of each row.
func runRows(rows layout.Rows, fn func(offs []int, n int, inner []int)) {
	runRowsCost(rows, 1, fn)
}

// runRowsCost is runRows for work that costs about cost elementwise steps
// per element walked (a reduction folding cost elements into each output).
func runRowsCost(rows layout.Rows, cost int, fn func(offs []int, n int, inner []int)) {
	workers := rowWorkers(rows, cost)
	if workers < 2 {
		rows.Each(0, rows.Count(), fn) // no closure to allocate
		return
	}
	if rows.Count() >= workers {
		splitRows(rows.Count(), workers, func(lo, hi int) { rows.Each(lo, hi, fn) })
		return
	}
	rows.Each(0, rows.Count(), func(offs []int, n int, inner []int) {
		per := (n + workers - 1) / workers
		par.Run(ceilDiv(n, per), func(w int) {
			lo := w * per
			o := make([]int, len(offs))
			for i := range offs {
				o[i] = offs[i] + lo*inner[i]
			}
			fn(o, min(per, n-lo), inner)
		})
	})
}

// runRowBlocks is runRows for kernels that take consecutive rows in one
// call (layout.Rows.EachBlock): the same split of the rows between
// workers, and where there are fewer rows than workers, runRows's split
// of each row, one row a block.
func runRowBlocks(rows layout.Rows, fn func(offs []int, n int, inner []int, m int, step []int)) {
	workers := rowWorkers(rows, 1)
	if workers < 2 {
		rows.EachBlock(0, rows.Count(), fn)
		return
	}
	if rows.Count() >= workers {
		splitRows(rows.Count(), workers, func(lo, hi int) { rows.EachBlock(lo, hi, fn) })
		return
	}
	runRows(rows, func(offs []int, n int, inner []int) {
		fn(offs, n, inner, 1, make([]int, len(offs)))
	})
}

// splitRows walks rows [0, count) with walk, in workers (two or more)
// consecutive ranges run in parallel; its callers walk on one goroutine
// themselves, with no closure to allocate.
func splitRows(count, workers int, walk func(lo, hi int)) {
	per := (count + workers - 1) / workers
	par.Run(ceilDiv(count, per), func(w int) {
		walk(w*per, min((w+1)*per, count))
	})
}

// rowWorkers is the number of goroutines a walk of rows at cost steps an
// element takes: one below two grains of work, else one per grain, at
// most GOMAXPROCS and the number of elements.
func rowWorkers(rows layout.Rows, cost int) int {
	elems := rows.Count() * rows.Len()
	total := elems * cost
	workers := runtime.GOMAXPROCS(0)
	if total < 2*grain || workers == 1 {
		return 1
	}
	return min(workers, total/grain, elems)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// map1 applies f to each element of src into dst (same shape).
func map1[D, S any](dst []D, dl layout.Layout, src []S, sl layout.Layout, f func(S) D) {
	mapRuns(dst, dl, src, sl, func(d []D, s []S) {
		for k := range d {
			d[k] = f(s[k])
		}
	}, f)
}

// mapRuns applies f to each element of src into dst (same shape), and
// run to each row whose elements are adjacent on both sides: run converts
// a whole contiguous run at once (a vector kernel, or a loop of f).
func mapRuns[D, S any](dst []D, dl layout.Layout, src []S, sl layout.Layout, run func(d []D, s []S), f func(S) D) {
	runRows(layout.NewRowsOf(dl, sl), func(offs []int, n int, inner []int) {
		i, j, di, dj := offs[0], offs[1], inner[0], inner[1]
		if di == 1 && dj == 1 {
			run(dst[i:i+n], src[j:j+n])
			return
		}
		for range n {
			dst[i] = f(src[j])
			i += di
			j += dj
		}
	})
}

// copyFromHalf is copyInto from a half-precision source h: widened in
// vector runs straight into a float32 destination, else through a float32
// temporary.
func copyFromHalf[S any](d *Device, db *Buffer, dl layout.Layout, h []S, sl layout.Layout, cv conv[float32, S]) error {
	if db.dt == dtype.F32 {
		mapRuns(slice[float32](db), dl, h, sl, cv.widen, cv.load)
		return nil
	}
	return d.viaTemp(dtype.F32, dl, sl, func(t *Buffer, tl, sl layout.Layout) error {
		mapRuns(slice[float32](t), tl, h, sl, cv.widen, cv.load)
		return nil
	}, func(t *Buffer, tl, dl layout.Layout) error { return d.copyInto(db, dl, t, tl) })
}

// map2 applies f to pairs of elements of a and b into dst, short rows
// walked along a longer axis (layout.Rows.LongRows: f is per element, so
// the order does not matter).
func map2[D, S any](dst []D, dl layout.Layout, a []S, al layout.Layout, b []S, bl layout.Layout, f func(S, S) D) {
	runRows(layout.NewRowsOf(dl, al, bl).LongRows(), func(offs []int, n int, inner []int) {
		i, j, k := offs[0], offs[1], offs[2]
		di, dj, dk := inner[0], inner[1], inner[2]
		if di == 1 && dj == 1 && dk == 1 {
			d, x, y := dst[i:i+n], a[j:j+n], b[k:k+n]
			for t := range d {
				d[t] = f(x[t], y[t])
			}
			return
		}
		for range n {
			dst[i] = f(a[j], b[k])
			i += di
			j += dj
			k += dk
		}
	})
}

// bitsOf returns the buffer as the unsigned type of its element size, for
// kernels that only move elements (same-dtype copy, where).
func withBits(b *Buffer, f8 func([]uint8), f16 func([]uint16), f32 func([]uint32), f64 func([]uint64)) {
	switch b.dt.Size() {
	case 1:
		f8(slice[uint8](b))
	case 2:
		f16(slice[uint16](b))
	case 4:
		f32(slice[uint32](b))
	case 8:
		f64(slice[uint64](b))
	}
}

func ident[T any](x T) T { return x }

// copyRows copies the view sl of src into the view dl of dst (same shape):
// rows adjacent in both move with copy (memmove), the others element by
// element.
func copyRows[T vec.Word](dst []T, dl layout.Layout, src []T, sl layout.Layout) {
	runRowBlocks(layout.NewRowsOf(dl, sl), func(offs []int, n int, inner []int, m int, step []int) {
		i0, j0, di, dj := offs[0], offs[1], inner[0], inner[1]
		if m > 1 && di == 1 && step[1] != 0 && abs(step[1]) < abs(dj) {
			// A transpose-like block: the source's rows lie closer
			// together than its elements along a row, so tiles keep the
			// lines they read in cache. A true transpose (the source's
			// rows adjacent) is vec's, which moves 4-byte elements in
			// blocks through registers. (Rows 0 apart are one source
			// row repeated, a broadcast: copied row by row below.)
			if step[1] == 1 && dj > 0 && step[0] >= n &&
				vec.Transpose(dst[i0:], step[0], src[j0:], dj, n, m) == nil {
				return
			}
			copyTiles(dst, src, i0, j0, n, m, step[0], step[1], dj)
			return
		}
		for r := range m {
			i, j := i0+r*step[0], j0+r*step[1]
			if di == 1 && dj == 1 {
				copy(dst[i:i+n], src[j:j+n])
				continue
			}
			if di == 1 && dj == -1 && n > 0 {
				// A reversed row (Flip): vec's Reverse, unless the rows
				// overlap (it refuses those), then both rows as slices, so
				// the loop runs without bounds checks or index steps.
				d, s := dst[i:i+n], src[j-n+1:j+1]
				if vec.Reverse(d, s) == nil {
					continue
				}
				for k := range d {
					d[k] = s[len(s)-1-k]
				}
				continue
			}
			if di == 1 && dj == 0 && n > 0 {
				// One source element repeated along the row (a broadcast).
				fillRow(dst[i:i+n], src[j])
				continue
			}
			for range n {
				dst[i] = src[j]
				i += di
				j += dj
			}
		}
	})
}

// fillRow sets every element of d to v. Zeros are cleared and other
// values copied from a first stretch of at most fillStretch elements, so
// a long row fills at memmove's speed; a loop storing one element at a
// time ran at about 1 ns an element.
func fillRow[T vec.Word](d []T, v T) {
	if zeroBits(v) { // not v == 0, which a float -0 passes
		clear(d)
		return
	}
	const fillStretch = 512
	c := min(len(d), fillStretch)
	d[0] = v
	for k := 1; k < c; k *= 2 {
		copy(d[k:c], d[:k])
	}
	for k := c; k < len(d); k += c {
		copy(d[k:], d[:c])
	}
}

// zeroBits reports whether every bit of v is zero.
func zeroBits[T vec.Word](v T) bool {
	for _, b := range unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v)) {
		if b != 0 {
			return false
		}
	}
	return true
}

// copyTiles copies m rows of n elements, dst's adjacent (rows di apart),
// src's dj apart along a row and sj between rows, in tiles of 16 rows by
// 16 elements, a column of tiles at a time: where sj is small (a
// transposed source: sj = 1, dj the row length), a tile reads 16 source
// lines 16 times each while they are in cache, and touches 32 pages at
// most, which the first-level TLB holds (tiles of 16 by 64 touch 80 and
// ran 1.5x slower on a transposed 4096x4096 float32 matrix; row after
// row, a new source line and page for every element, 3.5x).
func copyTiles[T any](dst, src []T, i0, j0, n, m, di, sj, dj int) {
	const tileRows, tileCols = 16, 16
	for c0 := 0; c0 < n; c0 += tileCols {
		c1 := min(c0+tileCols, n)
		for r0 := 0; r0 < m; r0 += tileRows {
			for r := r0; r < min(r0+tileRows, m); r++ {
				d := dst[i0+r*di+c0 : i0+r*di+c1]
				j := j0 + r*sj + c0*dj
				for c := range d {
					d[c] = src[j]
					j += dj
				}
			}
		}
	}
}

// Fill writes v to every element of dst.
func (d *Device) Fill(dst device.Operand, v float64) error {
	db, err := d.operand("Fill", dst)
	if err != nil {
		return err
	}
	// v is converted once, by Copy's rules, into one element of dst's
	// dtype, which is then broadcast over dst as bits: a same-type copy,
	// whose contiguous rows are filled at memory speed (fillRow).
	f64 := &Buffer{dt: dtype.F64, n: 1, data: make([]byte, 8), dev: d}
	slice[float64](f64)[0] = v
	one := layout.Layout{Shape: []int{1}, Strides: []int{1}}
	elem := &Buffer{dt: db.dt, n: 1, data: make([]byte, 8), dev: d}
	if err := d.copyInto(elem, one, f64, one); err != nil {
		return err
	}
	sl := layout.Layout{Shape: dst.Layout.Shape, Strides: make([]int, dst.Layout.Rank())}
	return d.copyInto(db, dst.Layout, elem, sl)
}

// Copy writes src into dst, converting the dtype.
func (d *Device) Copy(dst, src device.Operand) error {
	bufs, err := d.operands("Copy", dst, src)
	if err != nil {
		return err
	}
	db, sb := bufs[0], bufs[1]
	if err := sameShape("Copy", dst, src); err != nil {
		return err
	}
	return d.copyInto(db, dst.Layout, sb, src.Layout)
}

func (d *Device) copyInto(db *Buffer, dl layout.Layout, sb *Buffer, sl layout.Layout) error {
	if db.dt == sb.dt {
		withBits(db,
			func(x []uint8) { copyRows(x, dl, slice[uint8](sb), sl) },
			func(x []uint16) { copyRows(x, dl, slice[uint16](sb), sl) },
			func(x []uint32) { copyRows(x, dl, slice[uint32](sb), sl) },
			func(x []uint64) { copyRows(x, dl, slice[uint64](sb), sl) })
		return nil
	}
	switch sb.dt {
	case dtype.F16:
		return copyFromHalf(d, db, dl, slice[dtype.Float16](sb), sl, convF16)
	case dtype.BF16:
		return copyFromHalf(d, db, dl, slice[dtype.BFloat16](sb), sl, convBF16)
	}
	switch db.dt {
	case dtype.F16, dtype.BF16:
		if sb.dt == dtype.F32 {
			// Rounding float32 straight to the half type is the one
			// rounding that going through float64 makes: vector runs.
			src := slice[float32](sb)
			if db.dt == dtype.F16 {
				mapRuns(slice[dtype.Float16](db), dl, src, sl, convF16.narrow, convF16.store)
			} else {
				mapRuns(slice[dtype.BFloat16](db), dl, src, sl, convBF16.narrow, convBF16.store)
			}
			return nil
		}
		// Round once, from float64, so no value is rounded twice.
		return d.viaTemp(dtype.F64, dl, sl, func(t *Buffer, tl, sl layout.Layout) error {
			return d.copyInto(t, tl, sb, sl)
		}, func(t *Buffer, tl, dl layout.Layout) error {
			if db.dt == dtype.F16 {
				map1(slice[dtype.Float16](db), dl, slice[float64](t), tl, dtype.F16FromFloat64)
			} else {
				map1(slice[dtype.BFloat16](db), dl, slice[float64](t), tl, dtype.BF16FromFloat64)
			}
			return nil
		})
	case dtype.F32:
		convertFrom(slice[float32](db), dl, sb, sl, false)
	case dtype.F64:
		convertFrom(slice[float64](db), dl, sb, sl, false)
	case dtype.I32:
		convertFrom(slice[int32](db), dl, sb, sl, false)
	case dtype.I64:
		convertFrom(slice[int64](db), dl, sb, sl, false)
	case dtype.U8:
		convertFrom(slice[uint8](db), dl, sb, sl, false)
	case dtype.Bool:
		convertFrom(slice[uint8](db), dl, sb, sl, true)
	}
	return nil
}

// viaTemp converts through a contiguous temporary of dtype dt: fill writes
// the source's values into it and use reads them into the destination. The
// work goes in slabs of at most tempElems elements, so the temporary stays
// small whatever the size of the operands (it is scratch outside the
// device's accounting and must not grow with them).
func (d *Device) viaTemp(dt dtype.DType, dl, sl layout.Layout, fill func(t *Buffer, tl, sl layout.Layout) error, use func(t *Buffer, tl, dl layout.Layout) error) error {
	t := newTemp(d, dt, min(sl.Numel(), tempElems))
	return slabs(dl, sl, tempElems, func(dl, sl layout.Layout) error {
		tl, _ := layout.Contiguous(sl.Shape...)
		if err := fill(t, tl, sl); err != nil {
			return err
		}
		return use(t, tl, dl)
	})
}

// tempElems bounds the elements of one conversion slab: 512 KiB of f64.
const tempElems = 1 << 16

// slabs calls f on pieces of the same-shaped layouts dl and sl, each of at
// most limit elements (a single element always counts as one piece), covering
// them in order: runs of the leading axis when one index of it fits, else
// each index of it in turn, recursively.
func slabs(dl, sl layout.Layout, limit int, f func(dl, sl layout.Layout) error) error {
	n := sl.Numel()
	if n <= limit || sl.Rank() == 0 {
		return f(dl, sl)
	}
	rows := sl.Shape[0]
	inner := n / rows
	step := limit / inner
	for i := 0; i < rows; i += max(step, 1) {
		k := min(max(step, 1), rows-i)
		d, err := dl.Narrow(0, i, k)
		if err != nil {
			return err
		}
		s, err := sl.Narrow(0, i, k)
		if err != nil {
			return err
		}
		if step == 0 {
			if d, err = d.Squeeze(0); err != nil {
				return err
			}
			if s, err = s.Squeeze(0); err != nil {
				return err
			}
			err = slabs(d, s, limit, f)
		} else {
			err = f(d, s)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// newTemp allocates scratch memory outside the device's accounting.
func newTemp(d *Device, dt dtype.DType, n int) *Buffer {
	return tempOf(d, dt, n, make([]uint64, (n*dt.Size()+7)/8))
}

// newUninitTemp is newTemp whose memory is not cleared (uninitWords), for
// a caller that writes every element.
func newUninitTemp(d *Device, dt dtype.DType, n int) *Buffer {
	nw := (n*dt.Size() + 7) / 8
	return tempOf(d, dt, n, uninitWords(nw, nw))
}

// tempOf is a temporary buffer of n elements of dt over words.
func tempOf(d *Device, dt dtype.DType, n int, words []uint64) *Buffer {
	var data []byte
	if len(words) > 0 {
		data = unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n*dt.Size())
	}
	return &Buffer{dt: dt, n: n, data: data, dev: d}
}

func convertFrom[D num](dst []D, dl layout.Layout, sb *Buffer, sl layout.Layout, toBool bool) {
	if !toBool && (isFloat[D]() || !sb.dt.IsFloat()) {
		// Go's own conversion is the rule (converter's last case).
		switch sb.dt {
		case dtype.F32:
			convertPlain(dst, dl, slice[float32](sb), sl)
		case dtype.F64:
			convertPlain(dst, dl, slice[float64](sb), sl)
		case dtype.I32:
			convertPlain(dst, dl, slice[int32](sb), sl)
		case dtype.I64:
			convertPlain(dst, dl, slice[int64](sb), sl)
		case dtype.U8, dtype.Bool:
			convertPlain(dst, dl, slice[uint8](sb), sl)
		}
		return
	}
	switch sb.dt {
	case dtype.F32:
		convertRows(dst, dl, slice[float32](sb), sl, toBool)
	case dtype.F64:
		convertRows(dst, dl, slice[float64](sb), sl, toBool)
	case dtype.I32:
		convertRows(dst, dl, slice[int32](sb), sl, toBool)
	case dtype.I64:
		convertRows(dst, dl, slice[int64](sb), sl, toBool)
	case dtype.U8, dtype.Bool:
		convertRows(dst, dl, slice[uint8](sb), sl, toBool)
	}
}

// convertRows is map1 with converter's rule: the saturating float to
// integer conversions and the Bool tests, written inline on adjacent rows
// (a func value per element cost several times the conversion) and
// through converter's func elsewhere.
func convertRows[D, S num](dst []D, dl layout.Layout, src []S, sl layout.Layout, toBool bool) {
	f := converter[S, D](isFloat[S](), toBool)
	lo, hi, saturating := int64(0), int64(0), false
	if !toBool && isFloat[S]() {
		switch any(*new(D)).(type) {
		case int32:
			lo, hi, saturating = math.MinInt32, math.MaxInt32, true
		case int64:
			lo, hi, saturating = math.MinInt64, math.MaxInt64, true
		case uint8:
			lo, hi, saturating = 0, math.MaxUint8, true
		}
	}
	// float32 to int32 has a vector kernel for the same rule.
	_, toI32 := any(*new(D)).(int32)
	_, fromF32 := any(*new(S)).(float32)
	trunc32 := saturating && toI32 && fromF32
	mapRuns(dst, dl, src, sl, func(d []D, s []S) {
		s = s[:len(d)]
		switch {
		case trunc32:
			_ = vec.TruncF32ToI32(any(d).([]int32), any(s).([]float32))
		case toBool:
			for i, v := range s {
				d[i] = D(b2u8(v != 0))
			}
		case saturating:
			for i, v := range s {
				d[i] = D(saturate(float64(v), lo, hi))
			}
		default:
			for i, v := range s {
				d[i] = f(v)
			}
		}
	}, f)
}

// convertPlain is map1 with Go's conversion D(s) written in the loop, not
// called through a func value per element: the conversions that need no
// saturation (integer to anything, float to float) and no Bool test.
// Contiguous rows between float32 and float64, and from bytes to float32,
// take vec's kernels, which give the same bits.
func convertPlain[D, S num](dst []D, dl layout.Layout, src []S, sl layout.Layout) {
	runRows(layout.NewRowsOf(dl, sl), func(offs []int, n int, inner []int) {
		i, j, di, dj := offs[0], offs[1], inner[0], inner[1]
		if di == 1 && dj == 1 {
			d, s := dst[i:i+n], src[j:j+n]
			if convertOnVec(d, s) {
				return
			}
			for k := range d {
				d[k] = D(s[k])
			}
			return
		}
		for range n {
			dst[i] = D(src[j])
			i += di
			j += dj
		}
	})
}

// convertOnVec converts a contiguous row between float32 and float64, or
// from bytes (U8, Bool) to float32, on vec's kernels and reports whether
// it did (other types, or rows that overlap, are left to the caller).
func convertOnVec[D, S num](d []D, s []S) bool {
	switch dv := any(d).(type) {
	case []float64:
		if sv, ok := any(s).([]float32); ok {
			return vec.WidenF32(dv, sv) == nil
		}
	case []float32:
		switch sv := any(s).(type) {
		case []float64:
			return vec.NarrowF64(dv, sv) == nil
		case []uint8: // U8 and Bool (masks)
			return vec.WidenU8F32(dv, sv) == nil
		}
	}
	return false
}

// converter implements Copy's conversion rules from S to D.
func converter[S, D num](srcFloat, toBool bool) func(S) D {
	if toBool {
		return func(s S) D {
			if s != 0 {
				return 1
			}
			return 0
		}
	}
	var z D
	if srcFloat {
		switch any(z).(type) {
		case int32:
			return func(s S) D { return D(saturate(float64(s), math.MinInt32, math.MaxInt32)) }
		case int64:
			return func(s S) D { return D(saturate(float64(s), math.MinInt64, math.MaxInt64)) }
		case uint8:
			return func(s S) D { return D(saturate(float64(s), 0, math.MaxUint8)) }
		}
	}
	return func(s S) D { return D(s) }
}

// saturate truncates f toward zero and clamps it to [lo, hi]; NaN gives 0.
func saturate(f float64, lo, hi int64) int64 {
	switch {
	case f != f:
		return 0
	case f <= float64(lo):
		return lo
	case f >= float64(hi):
		return hi
	}
	return int64(f)
}

// Where picks a where cond is true, else b.
func (d *Device) Where(dst, cond, a, b device.Operand) error {
	bufs, err := d.operands("Where", dst, cond, a, b)
	if err != nil {
		return err
	}
	db, cb, ab, bb := bufs[0], bufs[1], bufs[2], bufs[3]
	if err := sameShape("Where", dst, cond, a, b); err != nil {
		return err
	}
	if cb.dt != dtype.Bool || ab.dt != db.dt || bb.dt != db.dt {
		return errs.New("cpu", "Where", errs.ErrDType, "want bool condition and equal dtypes, have %v, %v, %v -> %v", cb.dt, ab.dt, bb.dt, db.dt)
	}
	c := slice[uint8](cb)
	withBits(db,
		func(x []uint8) {
			where(x, dst.Layout, c, cond.Layout, slice[uint8](ab), a.Layout, slice[uint8](bb), b.Layout)
		},
		func(x []uint16) {
			where(x, dst.Layout, c, cond.Layout, slice[uint16](ab), a.Layout, slice[uint16](bb), b.Layout)
		},
		func(x []uint32) {
			where(x, dst.Layout, c, cond.Layout, slice[uint32](ab), a.Layout, slice[uint32](bb), b.Layout)
		},
		func(x []uint64) {
			where(x, dst.Layout, c, cond.Layout, slice[uint64](ab), a.Layout, slice[uint64](bb), b.Layout)
		})
	return nil
}

// where selects a's element where c is nonzero and b's elsewhere. A row
// whose destination and condition are adjacent, with a and b each adjacent
// or one repeated element (Tril's zero, a masked fill's value), takes the
// vec select kernels (branch-free: random conditions would defeat the
// branch predictor); the others step through the four views one element
// at a time.
func where[T uint8 | uint16 | uint32 | uint64](dst []T, dl layout.Layout, c []uint8, cl layout.Layout, a []T, al layout.Layout, b []T, bl layout.Layout) {
	runRows(layout.NewRowsOf(dl, cl, al, bl), func(offs []int, n int, inner []int) {
		i, j, k, m := offs[0], offs[1], offs[2], offs[3]
		if inner[0] == 1 && inner[1] == 1 {
			// The rows' lengths agree; a kernel refuses only a shifted
			// overlap of dst with a row it reads, which the element loop
			// below then takes.
			d, cr := dst[i:i+n], c[j:j+n]
			var err error = errs.ErrUnsupported
			switch {
			case inner[2] == 1 && inner[3] == 1:
				err = vec.Select(d, cr, a[k:k+n], b[m:m+n])
			case inner[2] == 1 && inner[3] == 0:
				err = vec.SelectElse(d, cr, a[k:k+n], b[m])
			case inner[2] == 0 && inner[3] == 1:
				err = vec.SelectThen(d, cr, a[k], b[m:m+n])
			}
			if err == nil {
				return
			}
		}
		for range n {
			if c[j] != 0 {
				dst[i] = a[k]
			} else {
				dst[i] = b[m]
			}
			i += inner[0]
			j += inner[1]
			k += inner[2]
			m += inner[3]
		}
	})
}
