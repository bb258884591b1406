package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// TestFusedHalfBinary runs one binary operation on bf16 and f16 operands
// through Fused, where views read and written in place take the one-pass
// kernels (oneBinary): in one block and over several workers, with the
// inputs and the result at offsets into their buffers, with both operands
// the same input, and with a transposed input (the blocked path), against
// float32 arithmetic on the dtype package's conversions rounded once
// (NaN as NaN).
func TestFusedHalfBinary(t *testing.T) {
	d := New()
	ops := []struct {
		op device.BinaryOp
		f  func(a, b float32) float32
	}{
		{device.Add, func(a, b float32) float32 { return a + b }},
		{device.Sub, func(a, b float32) float32 { return a - b }},
		{device.Mul, func(a, b float32) float32 { return a * b }},
		{device.Div, func(a, b float32) float32 { return a / b }},
		{device.Maximum, func(a, b float32) float32 { return maxNaN(a, b, true) }},
		{device.Minimum, func(a, b float32) float32 { return maxNaN(a, b, false) }},
	}
	for _, dt := range []dtype.DType{dtype.BF16, dtype.F16} {
		round := func(x float32) float64 {
			if dt == dtype.BF16 {
				return float64(dtype.BF16FromFloat32(x).Float32())
			}
			return float64(dtype.F16FromFloat32(x).Float32())
		}
		for _, shape := range [][2]int{{1, 37}, {3, 700}, {61, 1501}} {
			r, c := shape[0], shape[1]
			n, off := r*c, 5
			alloc := func() *Buffer {
				b, err := d.Alloc(dt, n+off)
				if err != nil {
					t.Fatal(err)
				}
				return b.(*Buffer)
			}
			rng := rand.New(rand.NewPCG(3, uint64(n)))
			ab, bb, out := alloc(), alloc(), alloc()
			specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e-6, 65504, 3e38}
			for i := range n + off {
				va, vb := rng.NormFloat64()*100, rng.NormFloat64()
				if i%17 == 0 {
					va = specials[rng.IntN(len(specials))]
				}
				if i%13 == 0 {
					vb = specials[rng.IntN(len(specials))]
				}
				setF(ab, i, va)
				setF(bb, i, vb)
			}
			at := func(o int) layout.Layout {
				return layout.Layout{Shape: []int{r, c}, Strides: []int{c, 1}, Offset: o}
			}
			trans := layout.Layout{Shape: []int{r, c}, Strides: []int{1, r}, Offset: off}
			for _, o := range ops {
				for _, k := range []struct {
					name     string
					a, b     device.Operand
					ia, ib   func(i, j int) int // element positions read
					sameSelf bool
				}{
					{"in place", device.Operand{Buf: ab, Layout: at(off)}, device.Operand{Buf: bb, Layout: at(1)},
						func(i, j int) int { return off + i*c + j }, func(i, j int) int { return 1 + i*c + j }, false},
					{"a op a", device.Operand{Buf: ab, Layout: at(2)}, device.Operand{Buf: ab, Layout: at(2)},
						func(i, j int) int { return 2 + i*c + j }, func(i, j int) int { return 2 + i*c + j }, true},
					{"b transposed", device.Operand{Buf: ab, Layout: at(0)}, device.Operand{Buf: bb, Layout: trans},
						func(i, j int) int { return i*c + j }, func(i, j int) int { return off + j*r + i }, false},
				} {
					steps := []device.Step{{Kind: device.StepInput, Input: 0}, {Kind: device.StepInput, Input: 1},
						{Kind: device.StepBinary, Binary: o.op, A: 0, B: 1}}
					ins := []device.Operand{k.a, k.b}
					if k.sameSelf {
						steps[1].Input = 0
						ins = ins[:1]
					}
					p := device.Program{DType: dt, Steps: steps}
					if err := d.Fused(device.Operand{Buf: out, Layout: at(3)}, p, ins); err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("%v %v %v %s", dt, shape, o.op, k.name)
					for i := range r {
						for j := range c {
							x := float32(getF(ab, k.ia(i, j)))
							y := float32(getF(bb, k.ib(i, j)))
							if k.sameSelf {
								y = x
							}
							want, got := round(o.f(x, y)), getF(out, 3+i*c+j)
							if !(got == want && math.Signbit(got) == math.Signbit(want) || got != got && want != want ||
								got == 0 && want == 0 && (o.op == device.Maximum || o.op == device.Minimum)) {
								t.Fatalf("%s [%d,%d]: %v op %v = %v, want %v", name, i, j, x, y, got, want)
							}
						}
					}
				}
			}
			for _, b := range []*Buffer{ab, bb, out} {
				d.Free(b)
			}
		}
	}
}

// maxNaN is the larger (max) or smaller of a and b, NaN if either is.
func maxNaN(a, b float32, max bool) float32 {
	switch {
	case a != a || b != b:
		return float32(math.NaN())
	case max == (a > b):
		return a
	}
	return b
}
