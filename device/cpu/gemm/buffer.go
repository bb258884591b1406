package gemm

import (
	"math/bits"
	"sync"
	"unsafe"
)

// align is the byte alignment of packed buffers: one cache line, so every B
// panel step (NR values, 64 bytes) sits on its own line.
const align = 64

// guard is how many bytes before and after a buffer's data hold nothing
// else, so that no 4 KiB page holds both a buffer's data and another
// object. Goroutines on different cores write their own buffers (the
// partial outputs of a skinny product, each one's packed panels), and two
// cores that write neighbouring memory slow each other down even when no
// cache line is shared: a core's prefetchers run on past the end of what it
// writes and pull the neighbour's first lines away from the core that is
// writing them (the likeliest cause; the VM the effect was measured on
// exposes no counters). On a Zen 5 EPYC a two-core 4x1024x1024 float32
// product whose two partial outputs touched ran at 83-90 GB/s against
// 123-151 with 1-32 KiB between them (docs/benchmarks.md, "Neighbouring
// scratch"). Hardware prefetchers do not cross a 4 KiB page, so a page of
// guard on each side is enough whatever the neighbour is.
const guard = 4096

// paged holds a value that one goroutine rewrites often (the axpy form's
// scaled coefficients), with guard bytes on either side, so that no page
// holds it and anything else: see guard.
type paged[V any] struct {
	_ [guard]byte
	v V
	_ [guard]byte
}

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

// getBuf returns a buffer whose data holds n elements, starts on an
// align-byte boundary and has guard bytes of its own on either side. Its
// contents are unspecified.
func getBuf[T float](n int) *buffer[T] {
	class := sizeClass(n)
	if v, ok := poolFor[T](class).Get().(*buffer[T]); ok {
		v.data = v.data[:n]
		return v
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	c := 1 << class
	raw := make([]T, c+(2*guard+align)/size)
	off := guard / size
	if mis := int((uintptr(unsafe.Pointer(unsafe.SliceData(raw))) + guard) % align); mis != 0 {
		off += (align - mis) / size
	}
	return &buffer[T]{raw: raw, data: raw[off : off+n : off+c]}
}

// putBuf returns a buffer to the pool of its class.
func putBuf[T float](b *buffer[T]) {
	if b != nil {
		poolFor[T](sizeClass(cap(b.data))).Put(b)
	}
}
