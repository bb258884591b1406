package cpu

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// TestConvErrors checks that Conv2d and Conv2dFilter refuse operands that
// do not fit each other or the parameters with typed errors, without
// panicking or writing, and accept a well-formed call.
func TestConvErrors(t *testing.T) {
	d := New()
	op := func(dt dtype.DType, shape ...int) device.Operand { return newOperand(t, d, dt, shape...) }
	ok := device.Conv2dParams{Stride: [2]int{1, 1}, Dilation: [2]int{1, 1}, Groups: 1}
	x, w, y := op(dtype.F32, 2, 4, 5, 5), op(dtype.F32, 3, 4, 3, 3), op(dtype.F32, 2, 3, 3, 3)
	if err := d.Conv2d(y, x, w, ok); err != nil {
		t.Fatalf("well-formed Conv2d: %v", err)
	}
	if err := d.Conv2dFilter(w, x, y, ok); err != nil {
		t.Fatalf("well-formed Conv2dFilter: %v", err)
	}
	bad := func(mod func(p *device.Conv2dParams)) device.Conv2dParams {
		p := ok
		mod(&p)
		return p
	}
	transposed, _ := y.Layout.Permute(0, 1, 3, 2)
	for name, c := range map[string]struct {
		err  error
		kind error
	}{
		"rank":          {d.Conv2d(op(dtype.F32, 2, 3, 9), x, w, ok), errs.ErrShape},
		"dtype":         {d.Conv2d(op(dtype.F64, 2, 3, 3, 3), x, w, ok), errs.ErrDType},
		"ints":          {d.Conv2d(op(dtype.I32, 2, 3, 3, 3), op(dtype.I32, 2, 4, 5, 5), op(dtype.I32, 3, 4, 3, 3), ok), errs.ErrUnsupported},
		"output extent": {d.Conv2d(op(dtype.F32, 2, 3, 4, 3), x, w, ok), errs.ErrShape},
		"batch":         {d.Conv2d(op(dtype.F32, 1, 3, 3, 3), x, w, ok), errs.ErrShape},
		"groups":        {d.Conv2d(y, x, w, bad(func(p *device.Conv2dParams) { p.Groups = 2 })), errs.ErrShape},
		"zero stride":   {d.Conv2d(y, x, w, bad(func(p *device.Conv2dParams) { p.Stride[0] = 0 })), errs.ErrShape},
		"huge padding":  {d.Conv2d(y, x, w, bad(func(p *device.Conv2dParams) { p.Padding = [2]int{1 << 62, 1 << 62} })), errs.ErrShape},
		"huge dilation": {d.Conv2d(y, x, w, bad(func(p *device.Conv2dParams) { p.Dilation[1] = 1 << 62 })), errs.ErrShape},
		"strided out":   {d.Conv2d(device.Operand{Buf: y.Buf, Layout: transposed}, x, w, ok), errs.ErrShape},
		"filter shape":  {d.Conv2dFilter(op(dtype.F32, 3, 4, 4, 4), x, y, ok), errs.ErrShape},
		"filter dtype":  {d.Conv2dFilter(w, x, op(dtype.F64, 2, 3, 3, 3), ok), errs.ErrDType},
	} {
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%s: %v, want %v", name, c.err, c.kind)
		}
	}
}
