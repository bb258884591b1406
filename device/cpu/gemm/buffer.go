package gemm

import (
	"math/bits"
	"sync"
	"unsafe"
)

// align is the byte alignment of packed buffers: one cache line, so every B
// panel step (NR values, 64 bytes) sits on its own line.
const align = 64

// buffer is a reusable, aligned scratch slice. raw keeps the allocation;
// data is the aligned window handed out.
type buffer[T float] struct {
	raw  []T
	data []T
}

// Pools of scratch buffers by element size and power-of-two capacity class,
// so that products of mixed sizes reuse buffers instead of allocating.
var pools [2][64]sync.Pool

// sizeClass returns the class of a request for n elements: buffers in class
// c hold 1<<c elements.
func sizeClass(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

func poolFor[T float](class int) *sync.Pool {
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		return &pools[0][class]
	}
	return &pools[1][class]
}

// getBuf returns a buffer whose data holds n elements and starts on an
// align-byte boundary. Its contents are unspecified.
func getBuf[T float](n int) *buffer[T] {
	class := sizeClass(n)
	if v, ok := poolFor[T](class).Get().(*buffer[T]); ok {
		v.data = v.data[:n]
		return v
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	c := 1 << class
	raw := make([]T, c+align/size)
	off := 0
	if mis := int(uintptr(unsafe.Pointer(unsafe.SliceData(raw))) % align); mis != 0 {
		off = (align - mis) / size
	}
	return &buffer[T]{raw: raw, data: raw[off : off+n : off+c]}
}

// putBuf returns a buffer to the pool of its class.
func putBuf[T float](b *buffer[T]) {
	if b != nil {
		poolFor[T](sizeClass(cap(b.data))).Put(b)
	}
}
