package cpu

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// adamLike is a program with three results, two of which later steps read
// (the shape of an optimiser update): over inputs a and b,
//
//	m = a·0.5          (step 3)
//	v = m + b·b        (step 5)
//	w = m / √v         (step 7)
var adamLike = []device.Step{
	{Kind: device.StepInput, Input: 0},
	{Kind: device.StepInput, Input: 1},
	{Kind: device.StepConst, Const: 0.5},
	{Kind: device.StepBinary, Binary: device.Mul, A: 0, B: 2},
	{Kind: device.StepBinary, Binary: device.Mul, A: 1, B: 1},
	{Kind: device.StepBinary, Binary: device.Add, A: 3, B: 4},
	{Kind: device.StepUnary, Unary: device.Sqrt, A: 5},
	{Kind: device.StepBinary, Binary: device.Div, A: 3, B: 6},
}

// adamLikeRef computes the three results of adamLike in float64, each
// step rounded to the dtype (every step is correctly rounded, so the
// fused kernel must match bit for bit).
func adamLikeRef(a, b float64, round func(float64) float64) (m, v, w float64) {
	m = round(a * 0.5)
	v = round(m + round(b*b))
	w = round(m / round(math.Sqrt(v)))
	return m, v, w
}

// TestFusedMulti runs adamLike with its results in a shuffled order, in
// float32, float64 and float16, at sizes of one block, several blocks and
// several workers, with b broadcast along the rows (gathered) and one
// destination transposed (scattered), against adamLikeRef.
func TestFusedMulti(t *testing.T) {
	d := New()
	p := device.Program{Steps: adamLike}
	outs := []int{7, 3, 5} // w, m, v
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16} {
		for _, shape := range [][2]int{{1, 5}, {3, 1500}, {64, 1500}} {
			r, c := shape[0], shape[1]
			n := r * c
			p.DType = dt
			alloc := func() *Buffer {
				b, err := d.Alloc(dt, n)
				if err != nil {
					t.Fatal(err)
				}
				return b.(*Buffer)
			}
			contig := contiguous(r, c)
			row := layout.Layout{Shape: []int{r, c}, Strides: []int{0, 1}} // b: one row, broadcast
			trans := layout.Layout{Shape: []int{r, c}, Strides: []int{1, r}}
			ab, bb := alloc(), alloc()
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			av, bv := make([]float64, n), make([]float64, c)
			for i := range av {
				av[i] = rng.NormFloat64()
				setF(ab, i, av[i])
				av[i] = getF(ab, i)
			}
			for j := range bv {
				bv[j] = rng.NormFloat64()
				setF(bb, j, bv[j])
				bv[j] = getF(bb, j)
			}
			wb, mb, vb := alloc(), alloc(), alloc()
			dsts := []device.Operand{{Buf: wb, Layout: contig}, {Buf: mb, Layout: trans}, {Buf: vb, Layout: contig}}
			ins := []device.Operand{{Buf: ab, Layout: contig}, {Buf: bb, Layout: row}}
			if err := d.FusedMulti(dsts, p, outs, ins); err != nil {
				t.Fatal(err)
			}
			round := func(x float64) float64 {
				switch dt {
				case dtype.F32:
					return float64(float32(x))
				case dtype.F16:
					return float64(dtype.F16FromFloat32(float32(x)).Float32())
				}
				return x
			}
			for i := range r {
				for j := range c {
					m, v, w := adamLikeRef(av[i*c+j], bv[j], round)
					got := [3]float64{getF(wb, i*c+j), getF(mb, j*r+i), getF(vb, i*c+j)}
					if want := [3]float64{w, m, v}; !sameVals(got[:], want[:]) {
						t.Fatalf("%v %v [%d,%d]: w, m, v = %v, want %v", dt, shape, i, j, got, want)
					}
				}
			}
			for _, b := range []*Buffer{ab, bb, wb, mb, vb} {
				d.Free(b)
			}
		}
	}
}

// TestFusedMultiErrors checks that malformed calls are ErrValue errors.
func TestFusedMultiErrors(t *testing.T) {
	d := New()
	p := device.Program{DType: dtype.F32, Steps: adamLike}
	bufs := make([]device.Buffer, 5)
	for i := range bufs {
		bufs[i], _ = d.Alloc(dtype.F32, 4)
	}
	l := contiguous(4)
	op := func(i int) device.Operand { return device.Operand{Buf: bufs[i], Layout: l} }
	ins := []device.Operand{op(0), op(1)}
	cases := []struct {
		name string
		dsts []device.Operand
		outs []int
	}{
		{"fewer outputs than destinations", []device.Operand{op(2), op(3)}, []int{7}},
		{"no destinations", nil, nil},
		{"output twice", []device.Operand{op(2), op(3)}, []int{7, 7}},
		{"output out of range", []device.Operand{op(2)}, []int{8}},
		{"input step as output", []device.Operand{op(2)}, []int{0}},
		{"destination is an input", []device.Operand{op(2), op(1)}, []int{7, 3}},
		{"destinations share a buffer", []device.Operand{op(2), op(2)}, []int{7, 3}},
	}
	for _, c := range cases {
		err := d.FusedMulti(c.dsts, p, c.outs, ins)
		if !errors.Is(err, errs.ErrValue) {
			t.Errorf("%s: err = %v, want ErrValue", c.name, err)
		}
	}
}

func setF(b *Buffer, i int, x float64) {
	switch b.dt {
	case dtype.F32:
		slice[float32](b)[i] = float32(x)
	case dtype.F64:
		slice[float64](b)[i] = x
	case dtype.F16:
		slice[dtype.Float16](b)[i] = dtype.F16FromFloat32(float32(x))
	case dtype.BF16:
		slice[dtype.BFloat16](b)[i] = dtype.BF16FromFloat32(float32(x))
	default:
		panic(fmt.Sprintf("setF: %v", b.dt))
	}
}

func getF(b *Buffer, i int) float64 {
	switch b.dt {
	case dtype.F32:
		return float64(slice[float32](b)[i])
	case dtype.F64:
		return slice[float64](b)[i]
	case dtype.F16:
		return float64(slice[dtype.Float16](b)[i].Float32())
	case dtype.BF16:
		return float64(slice[dtype.BFloat16](b)[i].Float32())
	}
	panic(fmt.Sprintf("getF: %v", b.dt))
}

func contiguous(shape ...int) layout.Layout {
	l, err := layout.Contiguous(shape...)
	if err != nil {
		panic(err)
	}
	return l
}

// sameVals reports whether got and want hold the same values, NaN
// matching NaN (w is NaN where v < 0).
func sameVals(got, want []float64) bool {
	for i := range got {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			return false
		}
	}
	return true
}
