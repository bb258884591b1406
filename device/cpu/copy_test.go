package cpu

import (
	"runtime"
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
