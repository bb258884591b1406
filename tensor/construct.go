package tensor

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
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

// generate builds a contiguous CPU tensor of dt and shape whose elements, in
// row-major order, are the values gen writes, converted with Copy's rules.
// The destination is allocated first, so a size over the allocation limit
// is refused before any value is computed; values pass through a scratch
// of at most genBlock float64s, never a full-size copy (F64 is written in
// place, and F32 converted by Go's conversion, which rounds as Copy does).
// gen is called on consecutive blocks in order; at is the index of the
// block's first element.
func generate(op string, dt dtype.DType, shape []int, gen func(dst []float64, at int)) *Tensor {
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
	switch dt {
	case dtype.F64:
		vals := view[float64](out.Bytes())
		for at := 0; at < n; at += genBlock {
			gen(vals[at:at+min(genBlock, n-at)], at)
		}
		return t
	case dtype.F32:
		var scratch [genBlock]float64
		dst := view[float32](out.Bytes())
		for at := 0; at < n; at += genBlock {
			vals := scratch[:min(genBlock, n-at)]
			gen(vals, at)
			for j, v := range vals {
				dst[at+j] = float32(v)
			}
		}
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
	for at := 0; at < n; at += genBlock {
		m := min(genBlock, n-at)
		gen(vals[:m], at)
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
	return generate(op, dt, []int{n}, func(dst []float64, at int) {
		// The index counted in float64 (exact below 2^53, and n <= 2^40),
		// which saves an integer conversion per element.
		i := float64(at)
		for j := range dst {
			dst[j] = start + i*step
			i++
		}
	})
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
	return generate(op, dt, []int{n}, func(dst []float64, at int) {
		for j := range dst {
			i := at + j
			switch {
			case n == 1:
				dst[j] = start
			case i == n-1:
				dst[j] = stop
			case isInt:
				// NumPy's start + i*step, so that the floor below falls
				// where NumPy's does.
				dst[j] = start + float64(i)*((stop-start)/float64(n-1))
			default:
				// Interpolate from both ends so the values are symmetric.
				f := float64(i) / float64(n-1)
				dst[j] = start*(1-f) + stop*f
			}
			if isInt {
				dst[j] = math.Floor(dst[j])
			}
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
	// The largest value below 1 in dt, so rounding never produces 1.
	below1 := map[dtype.DType]float64{dtype.F32: 1 - 0x1p-24, dtype.F16: 1 - 0x1p-11, dtype.BF16: 1 - 0x1p-8}[dt]
	if below1 == 0 {
		below1 = 1 // F64: Float64 is below 1 already
	}
	return random("Rand", dt, seed, shape, func(src *rand.PCG, _ *rand.Rand, dst []float64) {
		for j := range dst {
			// rand.Rand.Float64's value, from the generator without the
			// interface call: 53 random bits over 2^53.
			dst[j] = min(float64(src.Uint64()<<11>>11)/(1<<53), below1)
		}
	})
}

// RandN builds a tensor of standard normal values from a seeded generator.
// A shape that does not fit the allocation limit is an ErrOutOfMemory,
// reported before any value is generated.
func RandN(dt dtype.DType, seed uint64, shape ...int) *Tensor {
	return random("RandN", dt, seed, shape, func(_ *rand.PCG, r *rand.Rand, dst []float64) {
		for j := range dst {
			dst[j] = r.NormFloat64()
		}
	})
}

// random builds a tensor of dt and shape whose values fill writes, block
// after block, from one PCG generator seeded by seed (src, and r over it).
func random(op string, dt dtype.DType, seed uint64, shape []int, fill func(src *rand.PCG, r *rand.Rand, dst []float64)) *Tensor {
	if !dt.IsFloat() {
		return fail(op, errs.ErrDType, "needs a floating dtype, have %v", dt)
	}
	src := rand.NewPCG(seed, 0x7e55e7a)
	r := rand.New(src)
	// Blocks are generated in order, so element i is the generator's i-th
	// value whatever the block size.
	return generate(op, dt, shape, func(dst []float64, _ int) { fill(src, r, dst) })
}
