package gpucore

// Pool keeps freed device buffers of type T by size class for reuse, up
// to a bound on their total bytes: the pool policy every GPU backend
// shares. The executor creates and destroys the buffers; the pool only
// decides which to keep. It is not safe for concurrent use.
type Pool[T any] struct {
	max   int64 // bytes kept at most; negative disables pooling, 0 is unbounded
	bytes int64
	free  map[uint64][]T
}

// NewPool returns a pool keeping at most max bytes (negative: none; 0:
// unbounded).
func NewPool[T any](max int64) *Pool[T] {
	return &Pool[T]{max: max, free: map[uint64][]T{}}
}

// Get takes a buffer of exactly size bytes (a size class), if one is kept.
func (p *Pool[T]) Get(size uint64) (T, bool) {
	l := p.free[size]
	if len(l) == 0 {
		var zero T
		return zero, false
	}
	b := l[len(l)-1]
	var zero T
	l[len(l)-1] = zero
	p.free[size] = l[:len(l)-1]
	p.bytes -= int64(size)
	return b, true
}

// Put offers a buffer of size bytes back. It reports false when the bound
// leaves no room: the caller then destroys the buffer.
func (p *Pool[T]) Put(b T, size uint64) bool {
	if p.max < 0 || (p.max > 0 && p.bytes+int64(size) > p.max) {
		return false
	}
	p.free[size] = append(p.free[size], b)
	p.bytes += int64(size)
	return true
}

// Bytes is the total size of the kept buffers.
func (p *Pool[T]) Bytes() int64 { return p.bytes }

// Drain empties the pool, calling fn with every kept buffer.
func (p *Pool[T]) Drain(fn func(b T, size uint64)) {
	for size, l := range p.free {
		for _, b := range l {
			fn(b, size)
		}
		delete(p.free, size)
	}
	p.bytes = 0
}
