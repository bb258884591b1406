package cpu

import (
	"errors"
	"fmt"
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

// TestSumWideErrors checks SumWide's typed errors: a source that is not
// Bool, U8 or I32, a destination that is not I64, and a destination of the
// wrong shape or an axis out of range.
func TestSumWideErrors(t *testing.T) {
	d := New()
	defer d.Close()
	op := func(dt dtype.DType, shape ...int) device.Operand { return newOperand(t, d, dt, shape...) }
	cases := []struct {
		name     string
		dst, src device.Operand
		axes     []int
		want     error
	}{
		{"f32 source", op(dtype.I64), op(dtype.F32, 4), []int{0}, errs.ErrDType},
		{"i64 source", op(dtype.I64), op(dtype.I64, 4), []int{0}, errs.ErrDType},
		{"i32 destination", op(dtype.I32), op(dtype.Bool, 4), []int{0}, errs.ErrDType},
		{"wrong shape", op(dtype.I64, 3), op(dtype.I32, 4, 2), []int{1}, errs.ErrShape},
		{"bad axis", op(dtype.I64, 4), op(dtype.U8, 4, 2), []int{2}, errs.ErrAxis},
	}
	for _, c := range cases {
		if err := d.SumWide(c.dst, c.src, c.axes); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestIntegerSums checks SumWide (Bool, U8 and I32 into I64) and the
// integer Sum and Prod of Reduce (I32 and I64, wrapping) against a walk of
// every output's elements by their logical index, on views that take each
// path: rows (contiguous reduced axes), columns (neighbouring outputs
// adjacent: reducer.cols and cols64), strided walks (a transposed and a
// narrowed view), a broadcast source, an empty extent, and a long row that
// reduceInto splits over several cores. Values reach the types' extremes,
// so a sum narrowed anywhere along the way would differ.
func TestIntegerSums(t *testing.T) {
	d := New()
	defer d.Close()
	type view struct {
		name    string
		storage []int                                        // the contiguous storage's shape
		view    func(l layout.Layout) (layout.Layout, error) // nil: the storage itself
		axes    []int
	}
	same := func(l layout.Layout) (layout.Layout, error) { return l, nil }
	views := []view{
		{"rows", []int{6, 300}, nil, []int{1}},
		{"all", []int{6, 300}, nil, []int{0, 1}},
		{"columns", []int{37, 300}, nil, []int{0}},
		{"columns over a kept axis", []int{3, 9, 300}, nil, []int{1}},
		{"columns of two axes", []int{4, 5, 270}, nil, []int{0, 1}},
		{"transposed", []int{40, 33}, func(l layout.Layout) (layout.Layout, error) { return l.Transpose(0, 1) }, []int{1}},
		{"narrowed", []int{9, 41}, func(l layout.Layout) (layout.Layout, error) { return l.Narrow(1, 3, 30) }, []int{0}},
		{"broadcast", []int{1, 70}, func(l layout.Layout) (layout.Layout, error) { return l.BroadcastTo(5, 70) }, []int{0}},
		{"empty extent", []int{0, 7}, same, []int{0}},
		{"long row", []int{1 << 19}, nil, []int{0}},
	}
	rng := rand.New(rand.NewPCG(9, 4))
	for _, dt := range []dtype.DType{dtype.Bool, dtype.U8, dtype.I32, dtype.I64} {
		for _, v := range views {
			sl := contiguous(v.storage...)
			src := sl
			if v.view != nil {
				var err error
				if src, err = v.view(sl); err != nil {
					t.Fatal(err)
				}
			}
			sb, err := d.Alloc(dt, sl.Numel())
			if err != nil {
				t.Fatal(err)
			}
			vals := make([]int64, sl.Numel())
			for i := range vals {
				switch dt {
				case dtype.Bool:
					vals[i] = int64(rng.IntN(2))
					slice[uint8](sb.(*Buffer))[i] = uint8(vals[i] * int64(1+rng.IntN(200))) // any nonzero byte is true
				case dtype.U8:
					vals[i] = int64(rng.IntN(256))
					slice[uint8](sb.(*Buffer))[i] = uint8(vals[i])
				case dtype.I32:
					vals[i] = int64(rng.Int32()) * int64(1-2*rng.IntN(2))
					slice[int32](sb.(*Buffer))[i] = int32(vals[i])
				case dtype.I64:
					vals[i] = int64(rng.Uint64())
					slice[int64](sb.(*Buffer))[i] = vals[i]
				}
			}
			red := map[int]bool{}
			for _, a := range v.axes {
				red[a] = true
			}
			var outShape []int
			for i, n := range src.Shape {
				if !red[i] {
					outShape = append(outShape, n)
				}
			}
			ol := contiguous(outShape...)
			// The reference: each output's elements by logical index.
			sums := make([]int64, ol.Numel())
			prods := make([]int64, ol.Numel())
			for i := range prods {
				prods[i] = 1
			}
			idx := make([]int, src.Rank())
			for range src.Numel() {
				o, stride := 0, 1
				for a := src.Rank() - 1; a >= 0; a-- {
					if !red[a] {
						o += idx[a] * stride
						stride *= src.Shape[a]
					}
				}
				x := vals[src.OffsetOf(idx)]
				sums[o] += x
				prods[o] *= x
				for a := src.Rank() - 1; a >= 0; a-- {
					if idx[a]++; idx[a] < src.Shape[a] {
						break
					}
					idx[a] = 0
				}
			}
			run := func(what string, dst dtype.DType, want []int64, call func(dst, src device.Operand) error) {
				name := fmt.Sprintf("%v/%s/%s", dt, v.name, what)
				ob, err := d.Alloc(dst, max(ol.Numel(), 1))
				if err != nil {
					t.Fatal(err)
				}
				defer d.Free(ob)
				if err := call(device.Operand{Buf: ob, Layout: ol}, device.Operand{Buf: sb, Layout: src}); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for i, w := range want {
					var got int64
					if dst == dtype.I32 {
						got, w = int64(slice[int32](ob.(*Buffer))[i]), int64(int32(w))
					} else {
						got = slice[int64](ob.(*Buffer))[i]
					}
					if got != w {
						t.Fatalf("%s: output %d = %d, want %d", name, i, got, w)
					}
				}
			}
			if dt != dtype.I64 {
				run("SumWide", dtype.I64, sums, func(dst, src device.Operand) error { return d.SumWide(dst, src, v.axes) })
			}
			if dt == dtype.I32 || dt == dtype.I64 {
				for _, op := range []device.ReduceOp{device.Sum, device.Prod} {
					want := sums
					if op == device.Prod {
						want = prods
					}
					run(op.String(), dt, want, func(dst, src device.Operand) error { return d.Reduce(op, dst, src, v.axes) })
				}
			}
			d.Free(sb)
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
