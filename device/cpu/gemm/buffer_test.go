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

// TestCoefScratchGuard checks that consecutive goroutines' coefficients
// are at least two pages apart, with a page before the first.
func TestCoefScratchGuard(t *testing.T) {
	var s32 coefScratch[float32]
	var s64 coefScratch[float64]
	if off := unsafe.Offsetof(s32.s); off < page {
		t.Errorf("float32 coefficients at offset %d, want at least %d", off, page)
	}
	if gap := unsafe.Sizeof(s32) - unsafe.Sizeof(s32.s); gap < 2*page {
		t.Errorf("float32 coefficients %d bytes from the next goroutine's, want at least %d", gap, 2*page)
	}
	if gap := unsafe.Sizeof(s64) - unsafe.Sizeof(s64.s); gap < 2*page {
		t.Errorf("float64 coefficients %d bytes from the next goroutine's, want at least %d", gap, 2*page)
	}
}
