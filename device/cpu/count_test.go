package cpu

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// TestCountNonzero checks the eight-bytes-at-a-time count against a byte
// loop on every byte value (0x80 and 0x7f, the carries' edge cases, among
// them) and on random bytes at every length and offset up to 40.
func TestCountNonzero(t *testing.T) {
	for v := range 256 {
		b := make([]uint8, 19)
		for i := range b {
			if i%3 != 1 {
				b[i] = uint8(v)
			}
		}
		want := int64(0)
		if v != 0 {
			want = 13
		}
		if got := countNonzero(b); got != want {
			t.Fatalf("byte %#x: %d, want %d", v, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 5))
	buf := make([]uint8, 48)
	for i := range buf {
		if rng.IntN(2) == 0 {
			buf[i] = uint8(rng.IntN(256))
		}
	}
	for off := range 8 {
		for n := 0; off+n <= 40; n++ {
			var want int64
			for _, v := range buf[off : off+n] {
				if v != 0 {
					want++
				}
			}
			if got := countNonzero(buf[off : off+n]); got != want {
				t.Fatalf("offset %d length %d: %d, want %d", off, n, got, want)
			}
		}
	}
}

// TestCountTrueErrors checks CountTrue's typed errors: a source that is not
// Bool, a destination that is not I64, and a destination of the wrong shape.
func TestCountTrueErrors(t *testing.T) {
	d := New()
	defer d.Close()
	op := func(dt dtype.DType, shape ...int) device.Operand { return newOperand(t, d, dt, shape...) }
	cases := []struct {
		name     string
		dst, src device.Operand
		axes     []int
		want     error
	}{
		{"u8 source", op(dtype.I64), op(dtype.U8, 4), []int{0}, errs.ErrDType},
		{"i32 destination", op(dtype.I32), op(dtype.Bool, 4), []int{0}, errs.ErrDType},
		{"wrong shape", op(dtype.I64, 3), op(dtype.Bool, 4, 2), []int{1}, errs.ErrShape},
		{"bad axis", op(dtype.I64, 4), op(dtype.Bool, 4, 2), []int{2}, errs.ErrAxis},
	}
	for _, c := range cases {
		if err := d.CountTrue(c.dst, c.src, c.axes); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// newOperand allocates a contiguous operand of shape on d for the error
// tests' calls, failing t if it cannot.
func newOperand(t testing.TB, d *Device, dt dtype.DType, shape ...int) device.Operand {
	t.Helper()
	l, err := layout.Contiguous(shape...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(dt, l.Numel())
	if err != nil {
		t.Fatal(err)
	}
	return device.Operand{Buf: b, Layout: l}
}
