package tensor

import (
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
		return failed(err)
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

// fromFloats builds a CPU tensor of dt from float64 values, with Copy's
// conversion rules.
func fromFloats(op string, dt dtype.DType, vals []float64, shape ...int) *Tensor {
	src := hostTensor(op, dtype.F64, shape, func(b []byte) error {
		copy(view[float64](b), vals)
		return nil
	})
	if dt == dtype.F64 || src.err != nil {
		return src
	}
	defer src.Release()
	return src.cast(op, dt)
}

// Arange builds the 1-D tensor start, start+step, ... up to but excluding
// stop, as NumPy's arange.
func Arange(dt dtype.DType, start, stop, step float64) *Tensor {
	if step == 0 || math.IsNaN(start) || math.IsNaN(stop) || math.IsNaN(step) || math.IsInf(start, 0) || math.IsInf(stop, 0) || math.IsInf(step, 0) {
		return fail("Arange", errs.ErrValue, "invalid range start=%v stop=%v step=%v", start, stop, step)
	}
	c := math.Ceil((stop - start) / step)
	if c > layout.MaxElements || c > 1<<40 {
		return fail("Arange", errs.ErrShape, "range start=%v stop=%v step=%v has too many elements", start, stop, step)
	}
	n := max(int(c), 0)
	if !dt.Valid() {
		return fail("Arange", errs.ErrDType, "invalid dtype %v", dt)
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = start + float64(i)*step
	}
	return fromFloats("Arange", dt, vals, n)
}

// Linspace builds n evenly spaced values from start to stop inclusive.
func Linspace(dt dtype.DType, start, stop float64, n int) *Tensor {
	if n < 0 || n > 1<<40 {
		return fail("Linspace", errs.ErrShape, "invalid count %d", n)
	}
	if !dt.Valid() {
		return fail("Linspace", errs.ErrDType, "invalid dtype %v", dt)
	}
	vals := make([]float64, n)
	for i := range vals {
		if n == 1 {
			vals[i] = start
			break
		}
		// Interpolate from both ends so the last value is exactly stop.
		f := float64(i) / float64(n-1)
		vals[i] = start*(1-f) + stop*f
	}
	if n > 1 {
		vals[n-1] = stop
	}
	return fromFloats("Linspace", dt, vals, n)
}

// Eye builds the n x n identity matrix.
func Eye(dt dtype.DType, n int) *Tensor {
	if n < 0 || n > 1<<20 {
		return fail("Eye", errs.ErrShape, "invalid size %d", n)
	}
	if !dt.Valid() {
		return fail("Eye", errs.ErrDType, "invalid dtype %v", dt)
	}
	vals := make([]float64, n*n)
	for i := range n {
		vals[i*n+i] = 1
	}
	return fromFloats("Eye", dt, vals, n, n)
}

// Rand builds a tensor of values uniform in [0, 1) from a seeded generator:
// the same seed gives the same values on every run and platform.
func Rand(dt dtype.DType, seed uint64, shape ...int) *Tensor {
	// The largest value below 1 in dt, so rounding never produces 1.
	below1 := map[dtype.DType]float64{dtype.F32: 1 - 0x1p-24, dtype.F16: 1 - 0x1p-11, dtype.BF16: 1 - 0x1p-8}[dt]
	return random("Rand", dt, seed, shape, func(r *rand.Rand) float64 {
		v := r.Float64()
		if below1 > 0 {
			v = min(v, below1)
		}
		return v
	})
}

// RandN builds a tensor of standard normal values from a seeded generator.
func RandN(dt dtype.DType, seed uint64, shape ...int) *Tensor {
	return random("RandN", dt, seed, shape, func(r *rand.Rand) float64 { return r.NormFloat64() })
}

func random(op string, dt dtype.DType, seed uint64, shape []int, next func(*rand.Rand) float64) *Tensor {
	if !dt.IsFloat() {
		return fail(op, errs.ErrDType, "needs a floating dtype, have %v", dt)
	}
	n, err := layout.Numel(shape)
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	if n > 1<<32 {
		return fail(op, errs.ErrOutOfMemory, "shape %v is too large to generate", shape)
	}
	r := rand.New(rand.NewPCG(seed, 0x7e55e7a))
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = next(r)
	}
	return fromFloats(op, dt, vals, shape...)
}
