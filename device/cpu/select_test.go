package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// specials are the values the comparison and selection tests mix: NaN,
// both infinities, both zeros and ties.
var specials = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, 1, -2.5, 3, math.NaN(), 3}

// refRelation is op on float64 values, with NaN spelled out as unordered
// (only Ne holds for it) and, for the logical ops, as true; -0 equals +0.
func refRelation(op device.BinaryOp, x, y float64) uint8 {
	unordered := x != x || y != y
	var r bool
	switch op {
	case device.Eq:
		r = !unordered && x == y
	case device.Ne:
		r = unordered || x != y
	case device.Lt:
		r = !unordered && x < y
	case device.Le:
		r = !unordered && x <= y
	case device.Gt:
		r = !unordered && x > y
	case device.Ge:
		r = !unordered && x >= y
	case device.And: // nonzero, NaN included, is true
		r = !(x == 0) && !(y == 0)
	case device.Or:
		r = !(x == 0) || !(y == 0)
	case device.Xor:
		r = !(x == 0) != !(y == 0)
	}
	if r {
		return 1
	}
	return 0
}

// TestCmpRowForms checks the four row forms of cmpRow (row with row, row
// with scalar, scalar with row by the mirrored relation, scalar with
// scalar) for the six relations and the logical And, Or and Xor on
// float32, float64 and int32 against refRelation.
func TestCmpRowForms(t *testing.T) {
	ops := []device.BinaryOp{device.Eq, device.Ne, device.Lt, device.Le, device.Gt, device.Ge, device.And, device.Or, device.Xor}
	n := len(specials)
	for _, op := range ops {
		for _, form := range [][2]int{{1, 1}, {1, 0}, {0, 1}, {0, 0}} {
			for s := range n { // the scalar's value, or the rotation of y
				x, y := make([]float64, n), make([]float64, n)
				for i := range n {
					x[i] = specials[i]
					y[i] = specials[(i+s)%n]
					if form[0] == 0 {
						x[i] = specials[s]
					}
					if form[1] == 0 {
						y[i] = specials[s]
					}
				}
				want := make([]uint8, n)
				for i := range n {
					want[i] = refRelation(op, x[i], y[i])
				}
				name := fmt.Sprintf("%v/steps=%v/s=%d", op, form, s)
				cmpCheck(t, "f64", name, op, x, y, form, want, func(v float64) float64 { return v })
				cmpCheck(t, "f32", name, op, x, y, form, want, func(v float64) float32 { return float32(v) })
				// Integers: NaN and the infinities replaced by finite values.
				xi, yi := make([]float64, n), make([]float64, n)
				wi := make([]uint8, n)
				fin := func(v float64) float64 {
					switch {
					case v != v:
						return 7
					case math.IsInf(v, 0):
						return math.Copysign(100, v)
					}
					return math.Trunc(v)
				}
				for i := range n {
					xi[i], yi[i] = fin(x[i]), fin(y[i])
					wi[i] = refRelation(op, xi[i], yi[i])
				}
				cmpCheck(t, "i32", name, op, xi, yi, form, wi, func(v float64) int32 { return int32(v) })
			}
		}
	}
}

func cmpCheck[T num](t *testing.T, dt, name string, op device.BinaryOp, x, y []float64, steps [2]int, want []uint8, conv func(float64) T) {
	t.Helper()
	xs, ys := make([]T, len(x)), make([]T, len(y))
	for i := range x {
		xs[i], ys[i] = conv(x[i]), conv(y[i])
	}
	if steps[0] == 0 {
		xs = xs[:1]
	}
	if steps[1] == 0 {
		ys = ys[:1]
	}
	got := make([]uint8, len(want))
	if !cmpRow(op, got, xs, steps[0], ys, steps[1]) {
		t.Fatalf("%s/%s: cmpRow declined a relation", dt, name)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s/%s: element %d (%v vs %v) = %d, want %d", dt, name, i, x[i], y[i], got[i], want[i])
		}
	}
}

// TestWhereForms runs Where with b a full row, a repeated scalar (Tril's
// zero) and a strided view (the element-by-element walk) on 1-, 2-, 4-
// and 8-byte dtypes, checking every element's bits against the selection
// done by hand: NaN payloads and -0 pass through untouched.
func TestWhereForms(t *testing.T) {
	d := New()
	const m, n = 3, 37
	for _, dt := range []dtype.DType{dtype.U8, dtype.F16, dtype.F32, dtype.F64} {
		for _, form := range []string{"row", "scalar", "strided"} {
			name := fmt.Sprintf("%v/%s", dt, form)
			size := dt.Size()
			cb, _ := d.Alloc(dtype.Bool, m*n)
			ab, _ := d.Alloc(dt, m*n)
			bb, _ := d.Alloc(dt, 2*m*n)
			c, a, b := slice[uint8](cb.(*Buffer)), ab.(*Buffer).data, bb.(*Buffer).data
			for i := range c {
				c[i] = uint8((i*7 + i/5) % 3 % 2 * (1 + i%3)) // nonzero values other than 1 too
			}
			for i := range a {
				a[i] = byte(i*13 + 1)
			}
			for i := range b {
				b[i] = byte(i*29 + 200)
			}
			bl := contiguous(m, n)
			bAt := func(r, k int) int { return r*n + k }
			switch form {
			case "scalar":
				bl = layout.Layout{Shape: []int{m, n}, Strides: []int{0, 0}}
				bAt = func(int, int) int { return 0 }
			case "strided":
				bl = layout.Layout{Shape: []int{m, n}, Strides: []int{2 * n, 2}, Offset: 1}
				bAt = func(r, k int) int { return 1 + r*2*n + 2*k }
			}
			ob, _ := d.Alloc(dt, m*n)
			err := d.Where(device.Operand{Buf: ob, Layout: contiguous(m, n)}, device.Operand{Buf: cb, Layout: contiguous(m, n)},
				device.Operand{Buf: ab, Layout: contiguous(m, n)}, device.Operand{Buf: bb, Layout: bl})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out := ob.(*Buffer).data
			for r := range m {
				for k := range n {
					i := r*n + k
					src, at := b, bAt(r, k)
					if c[i] != 0 {
						src, at = a, i
					}
					for q := range size {
						if out[i*size+q] != src[at*size+q] {
							t.Fatalf("%s: element (%d, %d) byte %d = %d, want %d", name, r, k, q, out[i*size+q], src[at*size+q])
						}
					}
				}
			}
			for _, x := range []device.Buffer{cb, ab, bb, ob} {
				d.Free(x)
			}
		}
	}
}

// TestConvertPlain checks the conversions that take convertPlain (integer
// and Bool sources, float to float) through Copy, contiguous and from a
// transposed source, against Go's conversion done by hand in float64 or
// int64.
func TestConvertPlain(t *testing.T) {
	d := New()
	vals := []float64{0, 1, -1, 2, 127, -128, 255, 1 << 20, -(1 << 20), 3}
	fvals := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1.5, -2.25, 1e30, 1e-40, 3}
	cases := []struct {
		from, to dtype.DType
		vals     []float64
		want     func(float64) float64
	}{
		{dtype.Bool, dtype.I64, []float64{0, 1, 1, 0, 1, 0, 0, 1, 1, 1}, func(v float64) float64 { return v }},
		{dtype.U8, dtype.F32, []float64{0, 1, 255, 128, 7, 9, 200, 3, 4, 5}, func(v float64) float64 { return v }},
		{dtype.I32, dtype.F64, vals, func(v float64) float64 { return v }},
		{dtype.I64, dtype.I32, vals, func(v float64) float64 { return float64(int32(int64(v))) }},
		{dtype.I32, dtype.U8, vals, func(v float64) float64 { return float64(uint8(int32(v))) }},
		{dtype.F32, dtype.F64, fvals, func(v float64) float64 { return float64(float32(v)) }},
		{dtype.F64, dtype.F32, fvals, func(v float64) float64 { return float64(float32(v)) }},
	}
	for _, c := range cases {
		for _, transposed := range []bool{false, true} {
			name := fmt.Sprintf("%v->%v/transposed=%v", c.from, c.to, transposed)
			sb, _ := d.Alloc(c.from, 10)
			for i, v := range c.vals {
				putAny(sb.(*Buffer), i, v)
			}
			sl, dl := contiguous(2, 5), contiguous(2, 5)
			at := func(i int) int { return i }
			if transposed {
				sl = layout.Layout{Shape: []int{5, 2}, Strides: []int{1, 5}}
				dl = contiguous(5, 2)
				at = func(i int) int { return (i%2)*5 + i/2 }
			}
			db, _ := d.Alloc(c.to, 10)
			if err := d.Copy(device.Operand{Buf: db, Layout: dl}, device.Operand{Buf: sb, Layout: sl}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i := range 10 {
				got, want := getAny(db.(*Buffer), i), c.want(c.vals[at(i)])
				if math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
					t.Errorf("%s: element %d = %v, want %v", name, i, got, want)
				}
			}
			d.Free(sb)
			d.Free(db)
		}
	}
}

func putAny(b *Buffer, i int, v float64) {
	switch b.dt {
	case dtype.Bool, dtype.U8:
		slice[uint8](b)[i] = uint8(v)
	case dtype.I32:
		slice[int32](b)[i] = int32(v)
	case dtype.I64:
		slice[int64](b)[i] = int64(v)
	default:
		setF(b, i, v)
	}
}

func getAny(b *Buffer, i int) float64 {
	switch b.dt {
	case dtype.Bool, dtype.U8:
		return float64(slice[uint8](b)[i])
	case dtype.I32:
		return float64(slice[int32](b)[i])
	case dtype.I64:
		return float64(slice[int64](b)[i])
	}
	return getF(b, i)
}
