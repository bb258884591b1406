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

// halfOperand is one operand of a test program: its step (an input or a
// constant), its view when it is an input, and the value it gives at
// [i, j] of the result.
type halfOperand struct {
	name  string
	step  device.Step
	view  *device.Operand
	value func(i, j int) float32
}

// TestFusedHalfBinary runs one binary operation on bf16 and f16 operands
// through Fused, where the one-pass kernels run (planChain, chainWorker),
// against float32 arithmetic on the dtype package's conversions rounded
// once (NaN as NaN; Maximum and Minimum may give either zero of ±0). The
// operands cover each kind of halfSource and the blocked path's: in place
// at an offset, the same input twice, a row broadcast over the rows (a
// bias), rows of a wider buffer (a narrowed view), a constant step on
// either side, an input broadcast from one element, and a transposed input
// (the blocked path), at sizes of one block, several blocks and several
// workers, with rows shorter than minHalfRow.
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
		round := func(x float32) float32 {
			if dt == dtype.BF16 {
				return dtype.BF16FromFloat32(x).Float32()
			}
			return dtype.F16FromFloat32(x).Float32()
		}
		for _, shape := range [][2]int{{1, 37}, {3, 700}, {61, 1501}, {700, 20}} {
			r, c := shape[0], shape[1]
			n, off, wide := r*c, 5, c+3
			alloc := func(size int) *Buffer {
				b, err := d.Alloc(dt, size)
				if err != nil {
					t.Fatal(err)
				}
				return b.(*Buffer)
			}
			size := r*wide + off
			rng := rand.New(rand.NewPCG(3, uint64(n)))
			ab, bb, out := alloc(size), alloc(size), alloc(size)
			specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e-6, 65504, 3e38}
			for i := range size {
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
			view := func(buf *Buffer, l layout.Layout) *device.Operand { return &device.Operand{Buf: buf, Layout: l} }
			at := func(buf *Buffer, pos func(i, j int) int) func(i, j int) float32 {
				return func(i, j int) float32 { return float32(getF(buf, pos(i, j))) }
			}
			grid := func(rs, cs, o int) layout.Layout {
				return layout.Layout{Shape: []int{r, c}, Strides: []int{rs, cs}, Offset: o}
			}
			input := func(name string, buf *Buffer, rs, cs, o int) halfOperand {
				return halfOperand{name, device.Step{Kind: device.StepInput}, view(buf, grid(rs, cs, o)),
					at(buf, func(i, j int) int { return o + i*rs + j*cs })}
			}
			konst := func(v float64) halfOperand {
				k := round(float32(v))
				return halfOperand{fmt.Sprint("const ", v), device.Step{Kind: device.StepConst, Const: v}, nil,
					func(int, int) float32 { return k }}
			}
			pairs := [][2]halfOperand{
				{input("a in place", ab, c, 1, off), input("b in place", bb, c, 1, 1)},
				{input("a", ab, c, 1, 2), {name: "the same input"}},
				{input("a", ab, c, 1, 0), input("bias row", bb, 0, 1, 1)},
				{input("bias row", ab, 0, 1, 3), input("b", bb, c, 1, 0)},
				{input("narrowed rows", ab, wide, 1, 1), input("b", bb, c, 1, off)},
				{input("a", ab, c, 1, 0), konst(0.3)},
				{konst(-2.5), input("b", bb, c, 1, 1)},
				{input("a", ab, c, 1, 0), input("one element", bb, 0, 0, 4)},
				{input("a", ab, c, 1, 0), input("transposed", bb, 1, r, off)},
			}
			for _, o := range ops {
				for _, pair := range pairs {
					var steps []device.Step
					var ins []device.Operand
					var vals []func(i, j int) float32
					for _, h := range pair {
						if h.name == "the same input" {
							vals = append(vals, vals[0])
							steps = append(steps, steps[0])
							continue
						}
						s := h.step
						if h.view != nil {
							s.Input = len(ins)
							ins = append(ins, *h.view)
						}
						steps = append(steps, s)
						vals = append(vals, h.value)
					}
					steps = append(steps, device.Step{Kind: device.StepBinary, Binary: o.op, A: 0, B: 1})
					p := device.Program{DType: dt, Steps: steps}
					if err := d.Fused(device.Operand{Buf: out, Layout: grid(c, 1, 3)}, p, ins); err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("%v %v %v (%s, %s)", dt, shape, o.op, pair[0].name, pair[1].name)
					for i := range r {
						for j := range c {
							x, y := vals[0](i, j), vals[1](i, j)
							want, got := round(o.f(x, y)), float32(getF(out, 3+i*c+j))
							if !sameHalf(got, want, o.op == device.Maximum || o.op == device.Minimum) {
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

// TestFusedHalfBinaryScalar runs the one-pass path on rank-0 operands.
func TestFusedHalfBinaryScalar(t *testing.T) {
	d := New()
	for _, dt := range []dtype.DType{dtype.BF16, dtype.F16} {
		bufs := make([]*Buffer, 3)
		for k := range bufs {
			b, err := d.Alloc(dt, 1)
			if err != nil {
				t.Fatal(err)
			}
			bufs[k] = b.(*Buffer)
		}
		setF(bufs[0], 0, 1.5)
		setF(bufs[1], 0, -4)
		scalar := layout.Layout{}
		p := device.Program{DType: dt, Steps: []device.Step{{Kind: device.StepInput, Input: 0}, {Kind: device.StepInput, Input: 1},
			{Kind: device.StepBinary, Binary: device.Mul, A: 0, B: 1}}}
		ins := []device.Operand{{Buf: bufs[0], Layout: scalar}, {Buf: bufs[1], Layout: scalar}}
		if err := d.Fused(device.Operand{Buf: bufs[2], Layout: scalar}, p, ins); err != nil {
			t.Fatal(err)
		}
		if got := getF(bufs[2], 0); got != -6 {
			t.Errorf("%v: 1.5 * -4 = %v", dt, got)
		}
	}
}

// sameHalf reports whether got is want, the sign of zero included unless
// anyZero, or both are NaN.
func sameHalf(got, want float32, anyZero bool) bool {
	switch {
	case got != got || want != want:
		return got != got && want != want
	case got == 0 && want == 0 && anyZero:
		return true
	}
	return got == want && math.Signbit(float64(got)) == math.Signbit(float64(want))
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

// TestRowStart checks rowStart against the position of each row's first
// element from its logical index (flatPosition), on views of rank 1 to 4
// with permuted, broadcast and offset strides.
func TestRowStart(t *testing.T) {
	for _, l := range walkLayouts() {
		c := l.Shape[l.Rank()-1]
		if c == 0 {
			continue
		}
		for row := range l.Numel() / c {
			if got, want := rowStart(l, row), flatPosition(l, row*c); got != want {
				t.Errorf("%v: row %d starts at %d, want %d", l, row, got, want)
			}
		}
	}
}

// TestWalkRuns checks walkRuns on merged views (layout.Layout.Merged, as
// gather and scatter hand it them) against flatPosition on the view
// itself, for every element of ranges that start and end anywhere, on
// views whose axes merge (a contiguous tail, extent-1 axes) and views
// whose do not (broadcast, transposed, narrowed).
func TestWalkRuns(t *testing.T) {
	for _, l := range walkLayouts() {
		total := l.Numel()
		for _, span := range [][2]int{{0, total}, {1, total - 1}, {total / 3, total / 2}, {total - 1, total}} {
			lo, hi := span[0], span[1]
			if lo < 0 || hi < lo {
				continue
			}
			seen := 0
			walkRuns(l.Merged(nil, nil), lo, hi-lo, func(k, pos, cnt, stride int) {
				if k != seen {
					t.Fatalf("%v [%d, %d): run at %d, want %d", l, lo, hi, k, seen)
				}
				for e := range cnt {
					if got, want := pos+e*stride, flatPosition(l, lo+k+e); got != want {
						t.Fatalf("%v [%d, %d): element %d at %d, want %d", l, lo, hi, lo+k+e, got, want)
					}
				}
				seen += cnt
			})
			if seen != hi-lo {
				t.Errorf("%v [%d, %d): %d elements walked", l, lo, hi, seen)
			}
		}
	}
}

// TestGather checks gather against flatPosition on every walkLayouts view
// and on views whose innermost axis is a short broadcast one (the repeated
// path, gatherRepeated: a max-pool tile's maximum, repeats of 3 and of
// maxRepeat, and one longer that it leaves to the plain walk) or a long
// one (a bias over planes, filled by fillRow from minFillRun), over ranges
// that start and end on a whole repeat and ranges that do not.
func TestGather(t *testing.T) {
	views := append(walkLayouts(),
		layout.Layout{Shape: []int{3, 5, 2}, Strides: []int{7, 1, 0}, Offset: 2},
		layout.Layout{Shape: []int{4, 3}, Strides: []int{2, 0}, Offset: 1},
		layout.Layout{Shape: []int{2, 3, maxRepeat}, Strides: []int{1, 2, 0}},
		layout.Layout{Shape: []int{3, maxRepeat + 1}, Strides: []int{1, 0}},
		layout.Layout{Shape: []int{2, 3, 50}, Strides: []int{0, 1, 0}, Offset: 7}, // a bias over planes: fillRow's runs
		layout.Layout{Shape: []int{3, minFillRun}, Strides: []int{1, 0}},
		layout.Layout{Shape: []int{2, minFillRun - 1}, Strides: []int{1, 0}},
	)
	src := make([]float32, 1000)
	for i := range src {
		src[i] = float32(i) + 0.5
	}
	for _, l := range views {
		total := l.Numel()
		for _, span := range [][2]int{{0, total}, {2, total - 2}, {1, total - 1}, {3, total}} {
			lo, hi := span[0], span[1]
			if lo < 0 || hi < lo {
				continue
			}
			out := make([]float32, hi-lo)
			gather(out, src, l, lo, conv32)
			for i, v := range out {
				if want := src[flatPosition(l, lo+i)]; v != want {
					t.Fatalf("%v [%d, %d): element %d = %v, want %v", l, lo, hi, lo+i, v, want)
				}
			}
		}
	}
}

// walkLayouts are the views TestRowStart and TestWalkRuns walk.
func walkLayouts() []layout.Layout {
	return []layout.Layout{
		{Shape: []int{7}, Strides: []int{1}, Offset: 3},
		{Shape: []int{4, 5}, Strides: []int{9, 1}, Offset: 2},
		{Shape: []int{3, 4, 5}, Strides: []int{0, 7, 1}, Offset: 1},
		{Shape: []int{2, 3, 4, 5}, Strides: []int{5, 40, 10, 1}},
		{Shape: []int{3, 1, 2, 6}, Strides: []int{100, 55, 20, 1}, Offset: 4},
		{Shape: []int{2, 3, 7, 2}, Strides: []int{42, 14, 2, 1}},                       // contiguous: one run
		{Shape: []int{2, 3, 1, 4, 1, 2}, Strides: []int{12, 4, 0, 1, 0, 0}, Offset: 5}, // a max-pool tile's broadcast maximum
		{Shape: []int{1, 1}, Strides: []int{3, 3}, Offset: 6},
		{Shape: []int{5, 0, 3}, Strides: []int{3, 3, 1}},
	}
}

// flatPosition is the storage position of l's element at row-major flat
// index i.
func flatPosition(l layout.Layout, i int) int {
	pos := l.Offset
	for a := l.Rank() - 1; a >= 0; a-- {
		pos += i % l.Shape[a] * l.Strides[a]
		i /= l.Shape[a]
	}
	return pos
}

// TestFusedHalfBinaryAllocs holds a one-pass realisation on one worker to
// no allocation, with a constant operand (its block is pooled) and with
// rows whose length leaves a remainder (vec's float32 blocks are pooled).
func TestFusedHalfBinaryAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	d := New()
	const r, c = 4, 1000
	bufs := make([]*Buffer, 3)
	for k := range bufs {
		b, err := d.Alloc(dtype.BF16, r*c)
		if err != nil {
			t.Fatal(err)
		}
		bufs[k] = b.(*Buffer)
	}
	grid := layout.Layout{Shape: []int{r, c}, Strides: []int{c, 1}}
	bias := layout.Layout{Shape: []int{r, c}, Strides: []int{0, 1}}
	for _, k := range []struct {
		name string
		p    device.Program
		ins  []device.Operand
	}{
		{"times a constant", device.Program{DType: dtype.BF16, Steps: []device.Step{{Kind: device.StepInput}, {Kind: device.StepConst, Const: 0.5},
			{Kind: device.StepBinary, Binary: device.Mul, A: 0, B: 1}}}, []device.Operand{{Buf: bufs[0], Layout: grid}}},
		{"plus a bias row", device.Program{DType: dtype.BF16, Steps: []device.Step{{Kind: device.StepInput}, {Kind: device.StepInput, Input: 1},
			{Kind: device.StepBinary, Binary: device.Add, A: 0, B: 1}}}, []device.Operand{{Buf: bufs[0], Layout: grid}, {Buf: bufs[1], Layout: bias}}},
	} {
		dst := device.Operand{Buf: bufs[2], Layout: grid}
		if n := testing.AllocsPerRun(20, func() {
			if err := d.Fused(dst, k.p, k.ins); err != nil {
				t.Fatal(err)
			}
		}); n > 0 {
			t.Errorf("%s: %.1f allocations a call, want 0", k.name, n)
		}
	}
}

// TestFusedHalfUnary runs one unary operation on a bf16 or f16 input
// through Fused: in place at an offset and as rows of a wider buffer (the
// one-pass kernels where vec has them), and transposed (the blocked path),
// at sizes of one block, several workers, and rows shorter than
// minHalfRow, against the float32 kernel of the operation on the widened
// values, rounded to the type (NaN as NaN).
func TestFusedHalfUnary(t *testing.T) {
	d := New()
	ops := []device.UnaryOp{device.Exp, device.Log, device.Tanh, device.Sigmoid, device.GeluTanh, device.GeluErf, device.Erf, device.Relu,
		device.Sqrt, device.Sign, device.Square, device.Abs, device.Silu, device.Neg, device.Floor, device.Ceil, device.Trunc,
		device.Round, device.Reciprocal, device.Exp2}
	for _, dt := range []dtype.DType{dtype.BF16, dtype.F16} {
		for _, shape := range [][2]int{{1, 37}, {61, 1501}, {700, 20}} {
			r, c := shape[0], shape[1]
			n, off, wide := r*c, 5, c+3
			size := r*wide + off
			alloc := func() *Buffer {
				b, err := d.Alloc(dt, size)
				if err != nil {
					t.Fatal(err)
				}
				return b.(*Buffer)
			}
			in, out := alloc(), alloc()
			rng := rand.New(rand.NewPCG(5, uint64(n)))
			specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e-6, 60000, -20}
			for i := range size {
				v := rng.NormFloat64() * 4
				if i%11 == 0 {
					v = specials[rng.IntN(len(specials))]
				}
				setF(in, i, v)
			}
			views := []struct {
				name string
				l    layout.Layout
				pos  func(i, j int) int
			}{
				{"in place", layout.Layout{Shape: []int{r, c}, Strides: []int{c, 1}, Offset: off}, func(i, j int) int { return off + i*c + j }},
				{"narrowed rows", layout.Layout{Shape: []int{r, c}, Strides: []int{wide, 1}, Offset: 1}, func(i, j int) int { return 1 + i*wide + j }},
				{"transposed", layout.Layout{Shape: []int{r, c}, Strides: []int{1, r}, Offset: 2}, func(i, j int) int { return 2 + j*r + i }},
			}
			for _, op := range ops {
				f32 := unaryKernel[float32](op)
				for _, v := range views {
					p := device.Program{DType: dt, Steps: []device.Step{{Kind: device.StepInput}, {Kind: device.StepUnary, Unary: op, A: 0}}}
					dst := device.Operand{Buf: out, Layout: layout.Layout{Shape: []int{r, c}, Strides: []int{c, 1}, Offset: 3}}
					if err := d.Fused(dst, p, []device.Operand{{Buf: in, Layout: v.l}}); err != nil {
						t.Fatal(err)
					}
					x := make([]float32, n)
					for i := range r {
						for j := range c {
							x[i*c+j] = float32(getF(in, v.pos(i, j)))
						}
					}
					want := make([]float32, n)
					if err := f32(want, x); err != nil {
						t.Fatal(err)
					}
					for k := range n {
						w := float32(math.NaN())
						if want[k] == want[k] {
							w = dtype.F16FromFloat32(want[k]).Float32()
							if dt == dtype.BF16 {
								w = dtype.BF16FromFloat32(want[k]).Float32()
							}
						}
						if got := float32(getF(out, 3+k)); !sameHalf(got, w, false) {
							t.Fatalf("%v %v %v %s [%d]: %v(%v) = %v, want %v", dt, shape, op, v.name, k, op, x[k], got, w)
						}
					}
				}
			}
			d.Free(in)
			d.Free(out)
		}
	}
}

// TestFusedHalfChain runs programs of several steps on bf16 and f16
// through Fused and FusedMulti, where every step has a one-pass kernel
// (planChain): each step reads and writes 16-bit values. The reference
// evaluates each element step by step in float32 (a binary step by the op
// table's float64 reference rounded to float32, a unary step by the
// operation's float32 kernel on that one value), rounding every step to
// the type, as the blocked path does. The inputs are in place, a bias row and
// a transposed view (the blocked path), at sizes of one run, several
// blocks and workers, and rows shorter than minHalfRow.
func TestFusedHalfChain(t *testing.T) {
	d := New()
	in := func(k int) device.Step { return device.Step{Kind: device.StepInput, Input: k} }
	bin := func(op device.BinaryOp, a, b int) device.Step {
		return device.Step{Kind: device.StepBinary, Binary: op, A: a, B: b}
	}
	un := func(op device.UnaryOp, a int) device.Step {
		return device.Step{Kind: device.StepUnary, Unary: op, A: a}
	}
	konst := func(v float64) device.Step { return device.Step{Kind: device.StepConst, Const: v} }
	programs := []struct {
		name  string
		steps []device.Step
		outs  []int
	}{
		{"relu(x*y + x)", []device.Step{in(0), in(1), bin(device.Mul, 0, 1), bin(device.Add, 2, 0), un(device.Relu, 3)}, []int{4}},
		{"gelu(x + y)", []device.Step{in(0), in(1), bin(device.Add, 0, 1), un(device.GeluErf, 2)}, []int{3}},
		{"0.5*x - y, tanh of it", []device.Step{in(0), konst(0.5), bin(device.Mul, 1, 0), in(1), bin(device.Sub, 2, 3), un(device.Tanh, 4)}, []int{5, 4}},
		{"max(x, y) / 3, and exp", []device.Step{in(0), in(1), bin(device.Maximum, 0, 1), konst(3), bin(device.Div, 2, 3), un(device.Exp, 4)}, []int{2, 5}},
	}
	for _, dt := range []dtype.DType{dtype.BF16, dtype.F16} {
		round := func(x float32) float32 {
			if x != x {
				return x
			}
			if dt == dtype.BF16 {
				return dtype.BF16FromFloat32(x).Float32()
			}
			return dtype.F16FromFloat32(x).Float32()
		}
		for _, shape := range [][2]int{{1, 37}, {61, 1501}, {700, 20}} {
			r, c := shape[0], shape[1]
			n, off := r*c, 3
			alloc := func() *Buffer {
				b, err := d.Alloc(dt, n+off)
				if err != nil {
					t.Fatal(err)
				}
				return b.(*Buffer)
			}
			xb, yb := alloc(), alloc()
			rng := rand.New(rand.NewPCG(9, uint64(n)))
			for i := range n + off {
				setF(xb, i, rng.NormFloat64()*3)
				setF(yb, i, rng.NormFloat64())
				if i%29 == 0 {
					setF(yb, i, math.NaN())
				}
			}
			grid := func(rs, cs, o int) layout.Layout {
				return layout.Layout{Shape: []int{r, c}, Strides: []int{rs, cs}, Offset: o}
			}
			ys := []struct {
				name string
				l    layout.Layout
				pos  func(i, j int) int
			}{
				{"y in place", grid(c, 1, off), func(i, j int) int { return off + i*c + j }},
				{"y a bias row", grid(0, 1, 1), func(i, j int) int { return 1 + j }},
				{"y transposed", grid(1, r, 0), func(i, j int) int { return j*r + i }},
			}
			for _, pr := range programs {
				for _, yv := range ys {
					dsts := make([]device.Operand, len(pr.outs))
					bufs := make([]*Buffer, len(pr.outs))
					for k := range dsts {
						bufs[k] = alloc()
						dsts[k] = device.Operand{Buf: bufs[k], Layout: grid(c, 1, 2)}
					}
					p := device.Program{DType: dt, Steps: pr.steps}
					ins := []device.Operand{{Buf: xb, Layout: grid(c, 1, 0)}, {Buf: yb, Layout: yv.l}}
					var err error
					if len(dsts) == 1 {
						err = d.Fused(dsts[0], p, ins)
					} else {
						err = d.FusedMulti(dsts, p, pr.outs, ins)
					}
					if err != nil {
						t.Fatal(err)
					}
					for i := range r {
						for j := range c {
							vals := make([]float32, len(pr.steps))
							for s, st := range pr.steps {
								var v float32
								switch st.Kind {
								case device.StepInput:
									if st.Input == 0 {
										v = float32(getF(xb, i*c+j))
									} else {
										v = float32(getF(yb, yv.pos(i, j)))
									}
								case device.StepConst:
									v = round(float32(st.Const))
								case device.StepBinary:
									def, _ := st.Binary.Def() // float64 of two float32 values, rounded: the float32 operation
									v = round(float32(def.F64(float64(vals[st.A]), float64(vals[st.B]))))
								case device.StepUnary:
									one := []float32{vals[st.A]}
									if err := unaryKernel[float32](st.Unary)(one, one); err != nil {
										t.Fatal(err)
									}
									v = round(one[0])
								}
								vals[s] = v
							}
							for k, o := range pr.outs {
								got := float32(getF(bufs[k], 2+i*c+j))
								if !sameHalf(got, vals[o], true) {
									t.Fatalf("%v %v %s, %s [%d,%d] result %d: got %v, want %v", dt, shape, pr.name, yv.name, i, j, k, got, vals[o])
								}
							}
						}
					}
					for _, b := range bufs {
						d.Free(b)
					}
				}
			}
			d.Free(xb)
			d.Free(yb)
		}
	}
}
