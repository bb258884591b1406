package cpu

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// TestMaxTilesErrors checks that malformed tile poolings are typed errors:
// ranks, shapes that do not match the tiles, mixed or integer dtypes, and
// a strided output.
func TestMaxTilesErrors(t *testing.T) {
	d := New()
	op := func(dt dtype.DType, shape ...int) device.Operand { return newOperand(t, d, dt, shape...) }
	tiles := op(dtype.F32, 2, 3, 4, 2, 5, 2)
	y, g, dx := op(dtype.F32, 2, 3, 4, 5), op(dtype.F32, 2, 3, 4, 5), op(dtype.F32, 2, 3, 4, 2, 5, 2)
	if err := d.MaxTiles(y, tiles); err != nil {
		t.Fatalf("well-formed MaxTiles: %v", err)
	}
	if err := d.MaxTilesGrad(dx, tiles, y, g); err != nil {
		t.Fatalf("well-formed MaxTilesGrad: %v", err)
	}
	transposed, _ := y.Layout.Permute(0, 1, 3, 2)
	for name, c := range map[string]struct {
		err  error
		kind error
	}{
		"tiles rank":    {d.MaxTiles(y, op(dtype.F32, 2, 3, 8, 10)), errs.ErrShape},
		"output shape":  {d.MaxTiles(op(dtype.F32, 2, 3, 4, 4), tiles), errs.ErrShape},
		"dtype":         {d.MaxTiles(op(dtype.F64, 2, 3, 4, 5), tiles), errs.ErrDType},
		"ints":          {d.MaxTiles(op(dtype.I32, 2, 3, 4, 5), op(dtype.I32, 2, 3, 4, 2, 5, 2)), errs.ErrUnsupported},
		"strided out":   {d.MaxTiles(device.Operand{Buf: y.Buf, Layout: transposed}, op(dtype.F32, 2, 3, 5, 2, 4, 2)), errs.ErrShape},
		"grad shape":    {d.MaxTilesGrad(y, tiles, y, g), errs.ErrShape},
		"grad y shape":  {d.MaxTilesGrad(dx, tiles, op(dtype.F32, 2, 3, 5, 4), g), errs.ErrShape},
		"grad g dtype":  {d.MaxTilesGrad(dx, tiles, y, op(dtype.F64, 2, 3, 4, 5)), errs.ErrDType},
		"grad tiles 4d": {d.MaxTilesGrad(dx, y, y, g), errs.ErrShape},
	} {
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%s: %v, want %v", name, c.err, c.kind)
		}
	}
}
