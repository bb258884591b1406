package tensor

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"unsafe"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

// hostTensor allocates a contiguous CPU tensor and lets fill write its bytes.
func hostTensor(op string, dt dtype.DType, shape []int, fill func(b []byte) error) *Tensor {
	if !dt.Valid() {
		return fail(op, errs.ErrDType, "invalid dtype %v", dt)
	}
	l, err := layout.Contiguous(shape...)
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	cpu, err := device.Open("cpu")
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	st, err := newStorage(op, cpu, dt, l.Numel())
	if err != nil {
		return failed(withShape(err, dt, shape))
	}
	if fill != nil {
		hb, ok := st.buf.(device.HostBuffer)
		if !ok {
			st.release()
			return fail(op, errs.ErrDevice, "CPU buffer is not host memory")
		}
		if err := fill(hb.Bytes()); err != nil {
			st.release()
			return failed(err)
		}
	}
	return wrap(st, l)
}

// withShape prefixes an allocation error's message with the dtype and shape
// that were asked for, keeping its kind, package and operation.
func withShape(err error, dt dtype.DType, shape []int) error {
	var e *errs.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Msg = fmt.Sprintf("%v %v: %s", dt, shape, c.Msg)
	return &c
}

func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// FromSlice builds a CPU tensor holding a copy of data with the given shape
// (default: one axis of len(data)). The dtype follows T: float32 is F32, int
// is I64, dtype.Float16 is F16, and so on.
func FromSlice[T dtype.Elem](data []T, shape ...int) *Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	n, err := layout.Numel(shape)
	if err != nil {
		return failed(errs.Retag("tensor", "FromSlice", err))
	}
	if n != len(data) {
		return fail("FromSlice", errs.ErrShape, "%d values do not fill shape %v (%d elements)", len(data), shape, n)
	}
	dt := dtype.Of[T]()
	return hostTensor("FromSlice", dt, shape, func(b []byte) error {
		storeHost(b, data)
		return nil
	})
}

// storeHost writes Go values into host bytes of their dtype.
func storeHost[T dtype.Elem](b []byte, data []T) {
	switch v := any(data).(type) {
	case []int:
		dst := view[int64](b)
		for i, x := range v {
			dst[i] = int64(x)
		}
	case []bool:
		dst := view[uint8](b)
		for i, x := range v {
			if x {
				dst[i] = 1
			} else {
				dst[i] = 0
			}
		}
	default:
		copy(view[T](b), data)
	}
}

// Scalar builds a rank-0 CPU tensor holding v.
func Scalar[T dtype.Elem](v T) *Tensor { return FromSlice([]T{v}, []int{}...) }

// Zeros builds a CPU tensor of zeros.
func Zeros(dt dtype.DType, shape ...int) *Tensor { return full("Zeros", dt, 0, shape) }

// Ones builds a CPU tensor of ones.
func Ones(dt dtype.DType, shape ...int) *Tensor { return full("Ones", dt, 1, shape) }

// Full builds a CPU tensor with every element v, converted to dt (floats
// to integers truncate and saturate; nonzero is true).
func Full(dt dtype.DType, v float64, shape ...int) *Tensor { return full("Full", dt, v, shape) }

func full(op string, dt dtype.DType, v float64, shape []int) *Tensor {
	t := hostTensor(op, dt, shape, nil) // uninitialised until Fill
	if t.err != nil {
		return t
	}
	if err := t.st.dev.Backend().Fill(t.operand(), v); err != nil {
		t.Release()
		return failed(errs.Retag("tensor", op, err))
	}
	return t
}

// genBlock is how many values the generating constructors compute at a time
// into their fixed-size float64 scratch before converting them into the
// destination dtype: 16 KiB, which stays in the first-level cache between
// the generator writing it and the conversion reading it.
const genBlock = 1 << 11

// genChunk is the fewest elements for each goroutine when generate splits
// a tensor among goroutines: 16 blocks, 64 KiB of float32.
const genChunk = 16 * genBlock

// generate builds a contiguous CPU tensor of dt and shape whose elements, in
// row-major order, are the values gen writes, converted with Copy's rules.
// The destination is allocated first, so a size over the allocation limit
// is refused before any value is computed; values pass through a scratch
// of at most genBlock float64s, never a full-size copy (F64 is written in
// place, and F32 converted by the vector kernel that rounds as Go's
// conversion and Copy do). at is the index of the block's first element.
// spare is a block of dst's length that gen may use as it likes. With
// inOrder, gen is called on consecutive blocks in order on one
// goroutine (a random generator's state runs through them); without it,
// gen's values depend on at alone, and F32 and F64 tensors of more than
// one chunk are split between the cores in spans of whole blocks.
func generate(op string, dt dtype.DType, shape []int, inOrder bool, gen func(dst, spare []float64, at int)) *Tensor {
	t := hostTensor(op, dt, shape, nil)
	if t.err != nil {
		return t
	}
	n := t.lay.Numel()
	if n == 0 {
		return t
	}
	out, ok := t.st.buf.(device.HostBuffer)
	if !ok {
		t.Release()
		return fail(op, errs.ErrDevice, "CPU buffer is not host memory")
	}
	var span func(lo, hi int)
	switch dt {
	case dtype.F64:
		vals := view[float64](out.Bytes())
		span = func(lo, hi int) {
			var spare [genBlock]float64
			for at := lo; at < hi; at += genBlock {
				m := min(genBlock, hi-at)
				gen(vals[at:at+m], spare[:m], at)
			}
		}
	case dtype.F32:
		dst := view[float32](out.Bytes())
		span = func(lo, hi int) {
			var scratch, spare [genBlock]float64
			for at := lo; at < hi; at += genBlock {
				m := min(genBlock, hi-at)
				vals := scratch[:m]
				gen(vals, spare[:m], at)
				// The lengths are equal, so it cannot fail.
				_ = vec.NarrowF64(dst[at:at+len(vals)], vals)
			}
		}
	}
	if span != nil {
		if inOrder || n <= genChunk {
			span(0, n)
			return t
		}
		// One span per goroutine, whole blocks each, so each allocates its
		// scratch once.
		p := min(runtime.GOMAXPROCS(0), (n+genChunk-1)/genChunk)
		blocks := (n + genBlock - 1) / genBlock
		per := (blocks + p - 1) / p * genBlock
		par.Run(p, func(w int) { span(min(w*per, n), min(w*per+per, n)) })
		return t
	}
	be := t.st.dev.Backend()
	scratch, err := be.Alloc(dtype.F64, min(n, genBlock))
	if err != nil {
		t.Release()
		return failed(errs.Retag("tensor", op, err))
	}
	defer be.Free(scratch)
	hb, ok := scratch.(device.HostBuffer)
	if !ok {
		t.Release()
		return fail(op, errs.ErrDevice, "CPU buffer is not host memory")
	}
	vals := view[float64](hb.Bytes())
	var spare [genBlock]float64
	for at := 0; at < n; at += genBlock {
		m := min(genBlock, n-at)
		gen(vals[:m], spare[:m], at)
		dst := device.Operand{Buf: t.st.buf, Layout: layout.Layout{Shape: []int{m}, Strides: []int{1}, Offset: at}}
		src := device.Operand{Buf: scratch, Layout: layout.Layout{Shape: []int{m}, Strides: []int{1}}}
		if err := be.Copy(dst, src); err != nil {
			t.Release()
			return failed(errs.Retag("tensor", op, err))
		}
	}
	return t
}

// Arange builds the 1-D tensor start, start+step, ... up to but excluding
// stop, as NumPy's arange. A zero, NaN or infinite argument is an ErrValue;
// a range of more than 2^40 elements is an ErrShape, and one that does not
// fit the allocation limit an ErrOutOfMemory.
func Arange(dt dtype.DType, start, stop, step float64) *Tensor {
	const op = "Arange"
	if step == 0 || math.IsNaN(start) || math.IsNaN(stop) || math.IsNaN(step) || math.IsInf(start, 0) || math.IsInf(stop, 0) || math.IsInf(step, 0) {
		return fail(op, errs.ErrValue, "invalid range start=%v stop=%v step=%v", start, stop, step)
	}
	c := math.Ceil((stop - start) / step) // may be ±Inf when stop-start overflows
	if c > layout.MaxElements || c > 1<<40 {
		return fail(op, errs.ErrShape, "range start=%v stop=%v step=%v has too many elements (%v)", start, stop, step, c)
	}
	n := 0
	if c > 0 {
		n = int(c)
	}
	if !dt.Valid() {
		return fail(op, errs.ErrDType, "invalid dtype %v", dt)
	}
	return generate(op, dt, []int{n}, false, func(dst, _ []float64, at int) { steps(dst, at, start, step) })
}

// blockIndices holds 0, 1, ..., genBlock-1: the offsets within a block
// that the generating constructors add to the block's first index.
var blockIndices = sync.OnceValue(func() *[genBlock]float64 {
	var b [genBlock]float64
	for i := range b {
		b[i] = float64(i)
	}
	return &b
})

// steps sets dst[j] = start + i*step for the indices i = at+j, rounding
// the product and then the sum, on every platform (Go's compiler may fuse
// a scalar x*y + z into one rounding on some; the kernels never do). The
// index is exact in float64 (at+j < 2^40). The three
// passes run in vector kernels over a block in the first-level cache: a
// scalar loop, which carries its running index from one element to the
// next, took about 1 ns an element. dst is at most genBlock long, so the
// vec calls' lengths always agree and they cannot fail.
func steps(dst []float64, at int, start, step float64) {
	_ = vec.AddScalar(dst, blockIndices()[:len(dst)], float64(at))
	_ = vec.MulScalar(dst, dst, step)
	_ = vec.AddScalar(dst, dst, start)
}

// Linspace builds n evenly spaced values from start to stop inclusive. For
// an integer dtype each value is the floor of the evenly spaced real one,
// as NumPy's linspace (PyTorch's truncates toward zero instead). A
// negative count or one above 2^40 is an ErrShape, a NaN or infinite bound
// an ErrValue, and a count that does not fit the allocation limit an
// ErrOutOfMemory.
func Linspace(dt dtype.DType, start, stop float64, n int) *Tensor {
	const op = "Linspace"
	if n < 0 || n > 1<<40 {
		return fail(op, errs.ErrShape, "invalid count %d", n)
	}
	if math.IsNaN(start) || math.IsNaN(stop) || math.IsInf(start, 0) || math.IsInf(stop, 0) {
		return fail(op, errs.ErrValue, "invalid bounds start=%v stop=%v", start, stop)
	}
	if !dt.Valid() {
		return fail(op, errs.ErrDType, "invalid dtype %v", dt)
	}
	isInt := dt.IsInt()
	return generate(op, dt, []int{n}, false, func(dst, spare []float64, at int) {
		// The vec calls' lengths agree (dst is at most genBlock long), so
		// they cannot fail.
		switch {
		case n == 1:
			dst[0] = start
		case isInt:
			// NumPy's start + i*step, so that the floor below falls where
			// NumPy's does.
			steps(dst, at, start, (stop-start)/float64(n-1))
		default:
			// Interpolate from both ends so the values are symmetric:
			// start*(1-f) + stop*f with f = i/(n-1).
			f, w := dst, spare // w: start's weights, 1-f
			_ = vec.AddScalar(f, blockIndices()[:len(dst)], float64(at))
			_ = vec.DivScalar(f, f, float64(n-1))
			_ = vec.RSubScalar(w, f, 1)
			_ = vec.MulScalar(w, w, start)
			_ = vec.MulScalar(f, f, stop)
			_ = vec.Add(dst, w, f)
		}
		if last := n - 1 - at; n > 1 && last < len(dst) {
			dst[last] = stop
		}
		if isInt {
			_ = vec.Floor(dst, dst)
		}
	})
}

// Eye builds the n x n identity matrix. A negative n or one above 2^20 is an
// ErrShape, and a matrix that does not fit the allocation limit an
// ErrOutOfMemory.
func Eye(dt dtype.DType, n int) *Tensor {
	const op = "Eye"
	if n < 0 || n > 1<<20 {
		return fail(op, errs.ErrShape, "invalid size %d", n)
	}
	if !dt.Valid() {
		return fail(op, errs.ErrDType, "invalid dtype %v", dt)
	}
	t := full(op, dt, 0, []int{n, n})
	if t.err != nil || n == 0 {
		return t
	}
	// The diagonal is a strided view of the storage: n elements n+1 apart.
	diag := device.Operand{Buf: t.st.buf, Layout: layout.Layout{Shape: []int{n}, Strides: []int{n + 1}}}
	if err := t.st.dev.Backend().Fill(diag, 1); err != nil {
		t.Release()
		return failed(errs.Retag("tensor", op, err))
	}
	return t
}

// Rand builds a tensor of values uniform in [0, 1) from a seeded generator:
// the same seed gives the same values on every run and platform. Values
// are never 1 after rounding to F32, F16 or BF16. A shape that does not fit
// the allocation limit is an ErrOutOfMemory, reported before any value is
// generated.
func Rand(dt dtype.DType, seed uint64, shape ...int) *Tensor {
	const op = "Rand"
	if !dt.IsFloat() {
		return fail(op, errs.ErrDType, "needs a floating dtype, have %v", dt)
	}
	// The largest value below 1 in dt, so rounding never produces 1.
	below1 := map[dtype.DType]float64{dtype.F32: 1 - 0x1p-24, dtype.F16: 1 - 0x1p-11, dtype.BF16: 1 - 0x1p-8}[dt]
	if below1 == 0 {
		below1 = 1 // F64: Float64 is below 1 already
	}
	// unit is rand.Rand.Float64's value from the generator's next output,
	// without its interface call: 53 random bits over 2^53.
	unit := func(p *rand.PCG) float64 {
		v := float64(int64(p.Uint64()<<11>>11)) / (1 << 53)
		if v > below1 {
			v = below1
		}
		return v
	}
	seeded, ok := pcgState(newPCG(seed))
	if !ok { // no access to the state: one generator, in order
		src := newPCG(seed)
		return generate(op, dt, shape, true, func(dst, _ []float64, _ int) {
			for j := range dst {
				dst[j] = unit(src)
			}
		})
	}
	// Element i is the generator's i-th value, as one generator run in
	// order gives. Each block starts its own copy of the generator at its
	// first element (so blocks can be generated on several cores), and
	// splits into four quarters, each from a copy moved a quarter further
	// on: their four chains of 128-bit multiplications overlap in the core,
	// where one chain ran about 1.3x slower.
	return generate(op, dt, shape, false, func(dst, _ []float64, at int) {
		q := len(dst) / 4
		var g [4]rand.PCG
		s, jump := pcgSteps(uint64(at)).apply(seeded), pcgSteps(uint64(q))
		for i := range g {
			setPCG(&g[i], s)
			s = jump.apply(s)
		}
		d0, d1, d2, d3 := dst[:q], dst[q:2*q], dst[2*q:3*q], dst[3*q:4*q]
		for j := range d0 {
			d0[j], d1[j], d2[j], d3[j] = unit(&g[0]), unit(&g[1]), unit(&g[2]), unit(&g[3])
		}
		for j := 4 * q; j < len(dst); j++ { // the last copy is at element at+4q now
			dst[j] = unit(&g[3])
		}
	})
}

// newPCG is the generator Rand and RandN draw from for a seed.
func newPCG(seed uint64) *rand.PCG { return rand.NewPCG(seed, 0x7e55e7a) }

// RandN builds a tensor of standard normal values from a seeded generator.
// A shape that does not fit the allocation limit is an ErrOutOfMemory,
// reported before any value is generated.
func RandN(dt dtype.DType, seed uint64, shape ...int) *Tensor {
	const op = "RandN"
	if !dt.IsFloat() {
		return fail(op, errs.ErrDType, "needs a floating dtype, have %v", dt)
	}
	// A normal value takes a varying count of the generator's outputs, so
	// the blocks are generated in order, one generator through them all:
	// element i is the i-th value whatever the block size.
	r := rand.New(newPCG(seed))
	return generate(op, dt, shape, true, func(dst, _ []float64, _ int) {
		for j := range dst {
			dst[j] = r.NormFloat64()
		}
	})
}
