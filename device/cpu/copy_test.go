package cpu

import (
	"runtime"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// TestSlabsCover checks that slabs visits every element exactly once, in
// order, in pieces of at most the limit, for contiguous, transposed and
// broadcast layouts.
func TestSlabsCover(t *testing.T) {
	base, _ := layout.Contiguous(3, 4, 5)
	trans, _ := base.Permute(2, 0, 1)
	bcast, _ := layout.Contiguous(4, 1)
	bcast, _ = bcast.BroadcastTo(2, 4, 7)
	for _, l := range []layout.Layout{base, trans, bcast} {
		for _, limit := range []int{1, 2, 3, 7, 20, 21, 1000} {
			var seen []int
			err := slabs(l, l, limit, func(dl, sl layout.Layout) error {
				if n := sl.Numel(); n > limit && n > 1 {
					t.Errorf("%v limit %d: a slab of %d elements", l.Shape, limit, n)
				}
				walkOffsets(sl, func(off int) { seen = append(seen, off) })
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []int
			walkOffsets(l, func(off int) { want = append(want, off) })
			if len(seen) != len(want) {
				t.Fatalf("%v limit %d: visited %d elements, want %d", l.Shape, limit, len(seen), len(want))
			}
			for i := range want {
				if seen[i] != want[i] {
					t.Fatalf("%v limit %d: element %d at offset %d, want %d", l.Shape, limit, i, seen[i], want[i])
				}
			}
		}
	}
}

// walkOffsets calls f with the storage offset of every element of l in row-major
// index order.
func walkOffsets(l layout.Layout, f func(int)) {
	idx := make([]int, l.Rank())
	for range l.Numel() {
		f(l.OffsetOf(idx))
		for a := l.Rank() - 1; a >= 0; a-- {
			if idx[a]++; idx[a] < l.Shape[a] {
				break
			}
			idx[a] = 0
		}
	}
}

// TestHalfCopyBoundedTemp converts a 4 Mi-element f16 view (transposed, so
// strided) to f32 and an f64 one to bf16, checks every value, and checks
// that the conversion's scratch stays far below the operands' size (it
// was a full-size temporary outside the device's accounting).
func TestHalfCopyBoundedTemp(t *testing.T) {
	const rows, cols = 2048, 2048
	d := New()
	src, _ := d.Alloc(dtype.F16, rows*cols)
	h := slice[dtype.Float16](src.(*Buffer))
	for i := range h {
		h[i] = dtype.F16FromFloat64(float64(i%4099) - 2049.5)
	}
	sl, _ := layout.Contiguous(rows, cols)
	sl, _ = sl.Transpose(0, 1)
	dl, _ := layout.Contiguous(cols, rows)
	dst, _ := d.Alloc(dtype.F32, rows*cols)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := d.Copy(device.Operand{Buf: dst, Layout: dl}, device.Operand{Buf: src, Layout: sl}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("f16→f32 copy of %d MiB allocated %d MiB of scratch", rows*cols*4>>20, grew>>20)
	}
	f := slice[float32](dst.(*Buffer))
	for i := range cols {
		for j := range rows {
			if got, want := f[i*rows+j], h[j*cols+i].Float32(); got != want {
				t.Fatalf("f16→f32 [%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}

	src64, _ := d.Alloc(dtype.F64, rows*cols)
	x := slice[float64](src64.(*Buffer))
	for i := range x {
		x[i] = (float64(i) + 0.3) * 1.0001
	}
	dst16, _ := d.Alloc(dtype.BF16, rows*cols)
	runtime.ReadMemStats(&before)
	if err := d.Copy(device.Operand{Buf: dst16, Layout: dl}, device.Operand{Buf: src64, Layout: sl}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("f64→bf16 copy of %d MiB allocated %d MiB of scratch", rows*cols*8>>20, grew>>20)
	}
	b := slice[dtype.BFloat16](dst16.(*Buffer))
	for i := range cols {
		for j := range rows {
			if got, want := b[i*rows+j], dtype.BF16FromFloat64(x[j*cols+i]); got != want {
				t.Fatalf("f64→bf16 [%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}

// TestCopyStridedViews checks Copy from permuted, transposed, flipped
// (reversed rows: vec's Reverse) and broadcast views into contiguous and
// strided destinations against an element-by-element walk (walkOffsets),
// for 1, 2, 4 and 8-byte elements, on
// shapes around copyTiles' 16-element tiles and large enough to be split
// between workers, so the tiled, blocked and per-row paths all run.
func TestCopyStridedViews(t *testing.T) {
	d := New()
	defer d.Close()
	views := []struct {
		name  string
		shape []int
		view  func(l layout.Layout) (layout.Layout, error)
	}{
		{"transpose 37x53", []int{37, 53}, func(l layout.Layout) (layout.Layout, error) { return l.Permute(1, 0) }},
		{"transpose 300x260", []int{300, 260}, func(l layout.Layout) (layout.Layout, error) { return l.Permute(1, 0) }},
		{"permute 3x41x19", []int{3, 41, 19}, func(l layout.Layout) (layout.Layout, error) { return l.Permute(2, 0, 1) }},
		{"flipped transpose 33x17", []int{33, 17}, func(l layout.Layout) (layout.Layout, error) {
			f, err := l.Slice(0, 32, -34, -1)
			if err != nil {
				return f, err
			}
			return f.Permute(1, 0)
		}},
		{"narrowed transpose 70x90", []int{70, 90}, func(l layout.Layout) (layout.Layout, error) {
			n, err := l.Narrow(1, 5, 80)
			if err != nil {
				return n, err
			}
			return n.Permute(1, 0)
		}},
		{"flip 3x70", []int{3, 70}, func(l layout.Layout) (layout.Layout, error) { return l.Slice(1, 69, -71, -1) }},
		{"broadcast 1x50 to 40x50", []int{1, 50}, func(l layout.Layout) (layout.Layout, error) { return l.BroadcastTo(40, 50) }},
		{"broadcast 40x1 to 40x50", []int{40, 1}, func(l layout.Layout) (layout.Layout, error) { return l.BroadcastTo(40, 50) }},
		{"broadcast 1x300 to 3x280x300", []int{1, 300}, func(l layout.Layout) (layout.Layout, error) { return l.BroadcastTo(3, 280, 300) }},
		{"broadcast 1x50 to 40x50, transposed", []int{1, 50}, func(l layout.Layout) (layout.Layout, error) {
			b, err := l.BroadcastTo(40, 50)
			if err != nil {
				return b, err
			}
			return b.Permute(1, 0)
		}},
	}
	for _, dt := range []dtype.DType{dtype.U8, dtype.F16, dtype.F32, dtype.F64} {
		for _, v := range views {
			base, err := layout.Contiguous(v.shape...)
			if err != nil {
				t.Fatal(err)
			}
			sl, err := v.view(base)
			if err != nil {
				t.Fatal(err)
			}
			src, _ := d.Alloc(dt, base.Numel())
			sb := src.(*Buffer)
			for i := range base.Numel() {
				setSmallInt(sb, i, i%251)
			}
			// Contiguous destination, and one whose rows are padded (a
			// narrowed view of a wider buffer).
			dense, _ := layout.Contiguous(sl.Shape...)
			wideShape := slices.Clone(sl.Shape)
			wideShape[len(wideShape)-1] += 3
			wide, _ := layout.Contiguous(wideShape...)
			padded, _ := wide.Narrow(len(wideShape)-1, 1, sl.Shape[len(sl.Shape)-1])
			for _, dl := range []layout.Layout{dense, padded} {
				dst, _ := d.Alloc(dt, wide.Numel())
				if err := d.Copy(device.Operand{Buf: dst, Layout: dl}, device.Operand{Buf: src, Layout: sl}); err != nil {
					t.Fatal(err)
				}
				var want, got []int
				walkOffsets(sl, func(off int) { want = append(want, off%251) })
				walkOffsets(dl, func(off int) { got = append(got, smallIntAt(dst.(*Buffer), off)) })
				if !slices.Equal(got, want) {
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%v %s into %v: element %d = %d, want %d", dt, v.name, dl.Strides, i, got[i], want[i])
						}
					}
				}
				d.Free(dst)
			}
			d.Free(src)
		}
	}
}

// setSmallInt and getElem write and read element i of a U8, F32 or F64 buffer
// as a small integer.
func setSmallInt(b *Buffer, i, v int) {
	switch b.dt {
	case dtype.U8:
		slice[uint8](b)[i] = uint8(v)
	case dtype.F16: // the value's bits, which Copy moves unchanged
		slice[uint16](b)[i] = uint16(v)
	case dtype.F32:
		slice[float32](b)[i] = float32(v)
	default:
		slice[float64](b)[i] = float64(v)
	}
}

func smallIntAt(b *Buffer, i int) int {
	switch b.dt {
	case dtype.U8:
		return int(slice[uint8](b)[i])
	case dtype.F16:
		return int(slice[uint16](b)[i])
	case dtype.F32:
		return int(slice[float32](b)[i])
	}
	return int(slice[float64](b)[i])
}
