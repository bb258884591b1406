package tensor

import (
	"math"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/transfer"
)

// To returns t on dev. On the same device it is a view sharing storage;
// otherwise the storage span the view touches is moved (a transposed or
// narrowed view is not materialised first) and the result keeps t's layout.
func (t *Tensor) To(dev device.Device) *Tensor {
	const op = "To"
	if err := t.check(op); err != nil {
		return failed(err)
	}
	if dev == nil {
		return fail(op, errs.ErrDevice, "nil device")
	}
	if dev == t.st.dev {
		return t.view(op, t.lay)
	}
	if err := t.settleChecks(); err != nil {
		return failed(err)
	}
	if !t.st.acquire() {
		return fail(op, errs.ErrReleased, "tensor storage was released")
	}
	defer t.st.release()
	lo, hi := t.lay.Span()
	if err := withinBudget(op, dev, int64(hi-lo)*int64(t.DType().Size())); err != nil {
		return failed(err)
	}
	buf, l, err := transfer.Move(dev, t.st.dev, t.operand())
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	st := &storage{dev: dev, buf: buf}
	st.refs.Store(1)
	return wrap(st, l)
}

// hostContiguous returns t's elements as a contiguous CPU tensor.
func (t *Tensor) hostContiguous(op string) (*Tensor, error) {
	if err := t.check(op); err != nil {
		return nil, err
	}
	h := t.To(device.CPU())
	if h.err != nil {
		return nil, errs.Retag("tensor", op, h.err)
	}
	defer h.Release()
	c := h.Contiguous()
	if c.err != nil {
		return nil, errs.Retag("tensor", op, c.err)
	}
	return c, nil
}

// hostBytes returns the bytes of a contiguous CPU tensor's elements.
func (t *Tensor) hostBytes() []byte {
	hb := t.st.buf.(device.HostBuffer).Bytes()
	sz := t.DType().Size()
	return hb[t.lay.Offset*sz : (t.lay.Offset+t.lay.Numel())*sz]
}

// ToSlice copies t's elements, in logical row-major order, into a new Go
// slice. T must match the dtype (int reads I64); it waits for pending device
// work and reports the first error of t's chain.
func ToSlice[T dtype.Elem](t *Tensor) ([]T, error) {
	const op = "ToSlice"
	if err := t.check(op); err != nil {
		return nil, err
	}
	if want := dtype.Of[T](); want != t.DType() {
		return nil, errs.New("tensor", op, errs.ErrDType, "tensor holds %v, not %v (Cast first)", t.DType(), want)
	}
	c, err := t.hostContiguous(op)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	b := c.hostBytes()
	out := make([]T, c.Numel())
	switch o := any(out).(type) {
	case []int:
		for i, v := range view[int64](b) {
			o[i] = int(v)
		}
	case []bool:
		for i, v := range view[uint8](b) {
			o[i] = v != 0
		}
	default:
		copy(out, view[T](b))
	}
	return out, nil
}

// Float64s reads t's values, converted to float64, in row-major order; it
// accepts any dtype (bool reads as 0 and 1; i64 beyond 2^53 rounds).
func (t *Tensor) Float64s() ([]float64, error) {
	c, err := t.hostContiguous("Float64s")
	if err != nil {
		return nil, err
	}
	defer c.Release()
	f := c.cast("Float64s", dtype.F64)
	defer f.Release()
	if f.err != nil {
		return nil, f.err
	}
	return append([]float64{}, view[float64](f.hostBytes())...), nil
}

// Item returns the single element of a one-element tensor as float64.
func (t *Tensor) Item() (float64, error) {
	if err := t.check("Item"); err != nil {
		return 0, err
	}
	if n := t.Numel(); n != 1 {
		return 0, errs.New("tensor", "Item", errs.ErrShape, "tensor of shape %v has %d elements, not 1", t.lay.Shape, n)
	}
	v, err := t.Float64s()
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// Equal reports whether t and u have the same shape, dtype and values (NaN
// is unequal to everything, as in IEEE 754), whatever their layouts. It
// returns an error when either tensor failed or they are on different
// devices.
func Equal(t, u *Tensor) (bool, error) {
	if err := t.check("Equal"); err != nil {
		return false, err
	}
	if err := u.check("Equal"); err != nil {
		return false, err
	}
	if t.DType() != u.DType() || !slices.Equal(t.lay.Shape, u.lay.Shape) {
		return false, nil
	}
	eq := t.Eq(u)
	defer eq.Release()
	vals, err := ToSlice[bool](eq)
	if err != nil {
		return false, errs.Retag("tensor", "Equal", err)
	}
	for _, v := range vals {
		if !v {
			return false, nil
		}
	}
	return true, nil
}

// AllClose reports whether t and u have the same shape and every pair of
// elements satisfies |t - u| <= atol + rtol*|u| (NaNs are never close;
// equal infinities are). Values are compared in float64 on the host, a
// block of allCloseBlock elements at a time, so the first pair that is
// not close ends the comparison before the rest is converted.
func AllClose(t, u *Tensor, rtol, atol float64) (bool, error) {
	if err := t.check("AllClose"); err != nil {
		return false, err
	}
	if err := u.check("AllClose"); err != nil {
		return false, err
	}
	if !slices.Equal(t.lay.Shape, u.lay.Shape) {
		return false, nil
	}
	tc, err := t.hostContiguous("AllClose")
	if err != nil {
		return false, err
	}
	defer tc.Release()
	uc, err := u.hostContiguous("AllClose")
	if err != nil {
		return false, err
	}
	defer uc.Release()
	n := tc.lay.Numel()
	tf, uf := tc.Reshape(n), uc.Reshape(n) // views of the contiguous copies
	defer tf.Release()
	defer uf.Release()
	for at := 0; at < n; at += allCloseBlock {
		m := min(allCloseBlock, n-at)
		a, err := float64Block(tf, at, m)
		if err != nil {
			return false, err
		}
		b, err := float64Block(uf, at, m)
		if err != nil {
			a.Release()
			return false, err
		}
		close := allClose(view[float64](a.hostBytes()), view[float64](b.hostBytes()), rtol, atol)
		a.Release()
		b.Release()
		if !close {
			return false, nil
		}
	}
	return true, nil
}

// allCloseBlock is how many elements of each tensor AllClose widens to
// float64 at a time: the two blocks (512 KiB) stay in L2 while they are
// compared.
const allCloseBlock = 1 << 15

// float64Block returns elements [at, at+m) of the contiguous 1-D CPU
// tensor flat as a contiguous F64 CPU tensor: a view of flat when it is
// F64, else a converted copy. The caller releases it.
func float64Block(flat *Tensor, at, m int) (*Tensor, error) {
	part := flat.Narrow(0, at, m)
	if part.err != nil || part.DType() == dtype.F64 {
		return part, errs.Retag("tensor", "AllClose", part.err)
	}
	defer part.Release()
	f := part.cast("AllClose", dtype.F64)
	return f, f.err
}

// allClose reports whether every pair a[i], b[i] is close in AllClose's
// sense.
func allClose(a, b []float64, rtol, atol float64) bool {
	b = b[:len(a)]
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) ||
			math.Abs(a[i]-b[i]) > atol+rtol*math.Abs(b[i]) {
			return false
		}
	}
	return true
}
