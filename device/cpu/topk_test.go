package cpu

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// TestTopKErrors checks that TopK answers bad calls with typed errors: k
// beyond the extent (ErrValue), results of the wrong shape (ErrShape), a
// bad axis (ErrAxis) and the 64-bit dtypes it leaves to the sort (ErrDType).
func TestTopKErrors(t *testing.T) {
	d := New()
	op := func(dt dtype.DType, shape ...int) device.Operand { return newOperand(t, d, dt, shape...) }
	src := op(dtype.F32, 2, 5)
	cases := []struct {
		name      string
		vals, idx device.Operand
		src       device.Operand
		axis, k   int
		want      error
	}{
		{"k too large", op(dtype.F32, 2, 6), op(dtype.I64, 2, 6), src, 1, 6, errs.ErrValue},
		{"negative k", op(dtype.F32, 2, 0), op(dtype.I64, 2, 0), src, 1, -1, errs.ErrValue},
		{"wrong shape", op(dtype.F32, 2, 3), op(dtype.I64, 2, 2), src, 1, 2, errs.ErrShape},
		{"bad axis", op(dtype.F32, 2, 2), op(dtype.I64, 2, 2), src, 2, 2, errs.ErrAxis},
		{"f64", op(dtype.F64, 2, 2), op(dtype.I64, 2, 2), op(dtype.F64, 2, 5), 1, 2, errs.ErrDType},
		{"i32 indices", op(dtype.F32, 2, 2), op(dtype.I32, 2, 2), src, 1, 2, errs.ErrDType},
	}
	for _, c := range cases {
		if err := d.TopK(c.vals, c.idx, c.src, c.axis, c.k, true); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
}
