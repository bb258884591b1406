package gpucore

import (
	"math/bits"

	"github.com/tessera-go/tessera/dtype"
)

// Limits are the device sizes a plan must respect.
type Limits struct {
	MaxBinding   uint64 // bytes one storage binding may cover
	MaxBuffer    uint64 // bytes of one buffer
	MaxWG        uint32 // workgroups per grid dimension
	StorageAlign uint64 // storage binding offset alignment, bytes
}

// ElemBytes is the bytes one element of dt occupies on the GPU: U8 and
// Bool are widened to a u32, F16 is packed in pairs, I64 is a (lo, hi)
// u32 pair.
func ElemBytes(dt dtype.DType) int {
	switch dt {
	case dtype.F16:
		return 2
	case dtype.I64:
		return 8
	}
	return 4
}

// SizeClass rounds a byte count up to one of four classes per power of
// two, so freed buffers are reused by requests of similar size.
func SizeClass(n uint64) uint64 {
	if n <= 256 {
		return 256
	}
	p := bits.Len64(n - 1) // 2^p >= n
	step := uint64(1) << (p - 3)
	return (n + step - 1) &^ (step - 1)
}

// AllocBytes is the size of the device buffer that holds n elements of
// dt: its size class, or the exact (16-byte rounded) size when the class
// would exceed the buffer limit. It is 0 for n == 0.
func (l Limits) AllocBytes(dt dtype.DType, n int) uint64 {
	if n == 0 {
		return 0
	}
	need := (uint64(n)*uint64(ElemBytes(dt)) + 15) &^ 15
	size := SizeClass(need)
	if size > l.MaxBuffer {
		size = need
	}
	return size
}

// Grid folds a count of workgroups into a grid whose dimensions stay
// within the device limit; kernels recover the linear workgroup index and
// ignore the surplus.
func (l Limits) Grid(groups uint64) [3]uint32 {
	if groups == 0 {
		return [3]uint32{0, 1, 1}
	}
	m := uint64(l.MaxWG)
	x := min(groups, m)
	y := (groups + x - 1) / x
	z := uint64(1)
	if y > m {
		z = (y + m - 1) / m
		y = m
	}
	return [3]uint32{uint32(x), uint32(y), uint32(z)}
}

// Fits reports whether a view spanning [lo, hi) positions of a buffer with
// elements of esz bytes fits in one binding, allowing for alignment slack.
func (l Limits) Fits(lo, hi int64, esz int) bool {
	bytes := uint64(hi-lo)*uint64(esz) + max(l.StorageAlign, 16) + 16
	return bytes <= l.MaxBinding
}

// PieceElems is how many contiguous elements of esz bytes one binding
// surely holds, whatever their alignment: a multiple of 1024 when the
// binding holds that many, and never less than one.
func (l Limits) PieceElems(esz int) int {
	slack := max(l.StorageAlign, 16) + 32
	if l.MaxBinding < slack+uint64(esz) {
		return 1 // a binding too small for the slack: one element at a time, never none
	}
	n := int((l.MaxBinding - slack) / uint64(esz))
	if n >= 1024 {
		return n &^ 1023
	}
	return n
}

// Window returns a binding covering positions [lo, hi) of b, aligned as
// the device requires, and the element position its first byte holds
// (positions in the kernel are relative to it). A buffer that fits one
// binding is bound whole.
func (l Limits) Window(b Buffer, lo, hi int64, write bool) (Binding, int) {
	size := b.Bytes()
	if size <= l.MaxBinding {
		return Binding{Buf: b, Off: 0, Size: size, Write: write}, 0
	}
	esz := uint64(ElemBytes(b.DType()))
	align := max(l.StorageAlign, esz, 16)
	start := (uint64(lo) * esz) &^ (align - 1)
	end := (uint64(hi)*esz + 15) &^ 15
	if end > size {
		end = size
	}
	return Binding{Buf: b, Off: start, Size: end - start, Write: write}, int(start / esz)
}
