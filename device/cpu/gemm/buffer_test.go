package gemm

import (
	"testing"
	"unsafe"
)

// page is the span that no two goroutines' scratch may share (see guard);
// the tests state it on their own, so that shrinking guard fails them.
const page = 4096

// TestBufferGuard checks that every pooled buffer's data is aligned and has
// at least a page of its own allocation on either side.
func TestBufferGuard(t *testing.T) {
	for _, n := range []int{1, 3, 16, 1000, 4096, 1 << 16} {
		checkGuard(t, getBuf[float32](n))
		checkGuard(t, getBuf[float64](n))
	}
}

func checkGuard[T float](t *testing.T, b *buffer[T]) {
	t.Helper()
	size := uintptr(unsafe.Sizeof(b.raw[0]))
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b.raw)))
	data := uintptr(unsafe.Pointer(unsafe.SliceData(b.data)))
	end := start + uintptr(len(b.raw))*size
	dataEnd := data + uintptr(cap(b.data))*size
	if data%align != 0 {
		t.Errorf("%T n=%d: data at %#x, not %d-byte aligned", b.raw[0], len(b.data), data, align)
	}
	if data-start < page || end-dataEnd < page {
		t.Errorf("%T n=%d: %d bytes before the data and %d after, want at least %d", b.raw[0], len(b.data), data-start, end-dataEnd, page)
	}
	putBuf(b)
}

// TestPagedGuard checks that consecutive paged values (one per goroutine
// or chunk) are at least two pages apart, with a page before the first.
func TestPagedGuard(t *testing.T) {
	var a paged[[4]float32]
	var b paged[[16]float64]
	if off := unsafe.Offsetof(a.v); off < page {
		t.Errorf("value at offset %d, want at least %d", off, page)
	}
	if gap := unsafe.Sizeof(a) - unsafe.Sizeof(a.v); gap < 2*page {
		t.Errorf("[4]float32 values %d bytes apart, want at least %d", gap, 2*page)
	}
	if gap := unsafe.Sizeof(b) - unsafe.Sizeof(b.v); gap < 2*page {
		t.Errorf("[16]float64 values %d bytes apart, want at least %d", gap, 2*page)
	}
}
