package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// TestFusedReduceDirect checks the Sum and Mean of a program that is its
// one contiguous input, which fold the storage in place (directSource),
// bit for bit against the same reduction of input+0, which evaluates the
// program block by block first, on every float dtype and on shapes whose
// outputs are cut by the blocks and by the workers' chunks; and against a
// float64 reference. A bfloat16 run whose float32 sum overflows must take
// rowSum's float64 fallback, where the values cancel.
func TestFusedReduceDirect(t *testing.T) {
	d := New()
	direct := device.Program{Steps: []device.Step{{Kind: device.StepInput}}}
	general := device.Program{Steps: []device.Step{{Kind: device.StepInput}, {Kind: device.StepConst}, {Kind: device.StepBinary, Binary: device.Add, A: 0, B: 1}}}
	cases := []struct {
		shape []int
		axes  []int
		big   bool // values that overflow a float32 sum, not a float64 one
	}{
		{[]int{100_003}, []int{0}, false},
		{[]int{37, 2049}, []int{1}, false},  // outputs cut by blocks and chunks
		{[]int{3, 40_000}, []int{1}, false}, // outputs longer than a chunk
		{[]int{5, 7}, []int{1}, false},      // runs shorter than shortRow
		{[]int{4, 8, 9}, []int{1, 2}, false},
		{[]int{2, 300}, []int{1}, true},
		// Column sums (sumColumns for half precision).
		{[]int{300, 70}, []int{0}, false},
		{[]int{4, 5, 600}, []int{0, 1}, false},
		{[]int{1000, 2, 33}, []int{0}, false},
		{[]int{300_000, 1}, []int{0}, false}, // one column: Reduce's row sum
		{[]int{300_000, 2}, []int{0}, false}, // long columns, split over cores
		{[]int{3, 40, 300}, []int{1}, false}, // column sums in blocks
		{[]int{2, 3, 5, 7, 300}, []int{2, 3}, false},
		{[]int{5, 3, 4, 1}, []int{1}, false},
	}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16} {
		for _, op := range []device.ReduceOp{device.Sum, device.Mean} {
			for _, c := range cases {
				if c.big && dt != dtype.BF16 {
					continue
				}
				name := fmt.Sprintf("%v/%v/%v/axes=%v", dt, op, c.shape, c.axes)
				l := contiguous(c.shape...)
				sb, _ := d.Alloc(dt, l.Numel())
				rng := rand.New(rand.NewPCG(5, uint64(l.Numel())))
				for i := range l.Numel() {
					v := rng.NormFloat64()
					if j := i % c.shape[len(c.shape)-1]; c.big && j%64 < 2 && j < 128 {
						// ±3e38 twice in the same float32 lane of a
						// run: its float32 sum is NaN, the float64 one
						// of the same values finite.
						v = 3e38 * float64(1-2*(j%64))
					}
					setF(sb.(*Buffer), i, v)
				}
				outs := 1
				red := map[int]bool{}
				for _, a := range c.axes {
					red[a] = true
				}
				var outShape []int
				for i, n := range c.shape {
					if !red[i] {
						outShape = append(outShape, n)
						outs *= n
					}
				}
				ol := contiguous(outShape...)
				in := []device.Operand{{Buf: sb, Layout: l}}
				var got [2]*Buffer
				for k, p := range []device.Program{direct, general} {
					p.DType = dt
					ob, _ := d.Alloc(dt, outs)
					if err := d.FusedReduce(op, device.Operand{Buf: ob, Layout: ol}, p, in, c.axes); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					got[k] = ob.(*Buffer)
				}
				count := l.Numel() / outs
				rb, _ := d.Alloc(dt, 1)
				for o := range outs {
					a, b := getF(got[0], o), getF(got[1], o)
					if math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("%s: [%d] = %v in place, %v through the program", name, o, a, b)
					}
					// The reference: a compensated float64 sum of the
					// stored values (a plain one is off by more than
					// float64's tolerance over 300000 terms).
					ref, comp, abs := 0.0, 0.0, 0.0
					for i := range count {
						v := getF(sb.(*Buffer), outFlat(c.shape, red, o, i))
						ref, comp = neumaier(ref, comp, v)
						abs += math.Abs(v)
					}
					ref += comp
					if op == device.Mean {
						ref /= float64(count)
						abs /= float64(count)
					}
					// Rounded to dt: a sum beyond its range is an infinity.
					setF(rb.(*Buffer), 0, ref)
					ref = getF(rb.(*Buffer), 0)
					tol := map[dtype.DType]float64{dtype.F32: 1e-5, dtype.F64: 1e-12, dtype.F16: 2e-3, dtype.BF16: 1e-2}[dt]
					// Beyond tol, float64's own rounding over the terms'
					// magnitudes: a float64 sum that cancels ±3e38 (the
					// big case) keeps none of the small terms' bits.
					if !(math.Abs(a-ref) <= tol*math.Max(1, math.Abs(ref))+0x1p-50*abs || a == ref) {
						t.Fatalf("%s: [%d] = %v, want %v", name, o, a, ref)
					}
				}
			}
		}
	}
}

// outFlat is the flat index in shape of the i-th element (in row-major
// order over the reduced axes red) of output o (row-major over the kept
// axes).
func outFlat(shape []int, red map[int]bool, o, i int) int {
	flat, stride := 0, 1
	for a := len(shape) - 1; a >= 0; a-- {
		var c int
		if red[a] {
			c, i = i%shape[a], i/shape[a]
		} else {
			c, o = o%shape[a], o/shape[a]
		}
		flat += c * stride
		stride *= shape[a]
	}
	return flat
}

// TestColumnSums checks which column sums sumColumns takes: only those
// that Reduce folds column by column in row order, so that its results
// are Reduce's bits.
func TestColumnSums(t *testing.T) {
	in := device.Program{Steps: []device.Step{{Kind: device.StepInput}}}
	procs := runtime.GOMAXPROCS(0)
	type want struct{ outer, rows int } // zero: not taken
	cases := []struct {
		op    device.ReduceOp
		p     device.Program
		shape []int
		axes  []int
		want  want
	}{
		{device.Sum, in, []int{300, 70}, []int{0}, want{1, 300}},
		{device.Mean, in, []int{4, 5, 600}, []int{0, 1}, want{1, 20}},
		{device.Sum, in, []int{4, 5, 600}, []int{1}, want{4, 5}},
		{device.Sum, in, []int{2, 3, 5, 7, 300}, []int{2, 3}, want{6, 35}},
		{device.Sum, in, []int{4, 5, 600}, []int{0, 2}, want{}}, // not one run
		{device.Sum, in, []int{4, 5, 600}, []int{1, 2}, want{}}, // the run ends the shape
		{device.Max, in, []int{300, 70}, []int{0}, want{}},      // not a sum
		{device.Sum, in, []int{300_000, 1}, []int{0}, want{}},   // one column: a row sum in Reduce
		{device.Sum, in, []int{1000, 1, 1}, []int{0}, want{}},   // the same
		{device.Sum, in, []int{5, 1000, 1}, []int{1}, want{}},   // the same, in blocks
		{device.Sum, in, []int{splitAbove, 1 + procs}, []int{0}, want{1, splitAbove}},
		{device.Sum, device.Program{Steps: []device.Step{{Kind: device.StepInput}, {Kind: device.StepUnary, Unary: device.Neg}}}, []int{300, 70}, []int{0}, want{}},
	}
	if procs > 2 {
		// Long columns, fewer than cores: Reduce splits each column.
		cases = append(cases, struct {
			op    device.ReduceOp
			p     device.Program
			shape []int
			axes  []int
			want  want
		}{device.Sum, in, []int{splitAbove, procs - 1}, []int{0}, want{}})
	}
	for _, c := range cases {
		ops := []device.Operand{{Layout: contiguous(c.shape...)}}
		outer, rows, ok := columnSums(c.op, c.p, ops, c.axes)
		if ok != (c.want.rows > 0) || (want{outer, rows}) != c.want {
			t.Errorf("%v %v axes %v: outer %d rows %d, %v; want %+v", c.op, c.shape, c.axes, outer, rows, ok, c.want)
		}
	}
	// A transposed view is not contiguous.
	l, _ := contiguous(70, 300).Transpose(0, 1)
	if _, _, ok := columnSums(device.Sum, in, []device.Operand{{Layout: l}}, []int{0}); ok {
		t.Error("a transposed input taken as contiguous")
	}
}

// TestScratchBounded checks which broadcast programs FusedReduce evaluates
// into a scratch (at most twice the bytes of the inputs) and which it folds
// in place: a variance's program (x and its broadcast mean) takes the
// scratch; a scalar broadcast over a large shape, alone or beside a small
// input, does not.
func TestScratchBounded(t *testing.T) {
	d := New()
	defer d.Close()
	op := func(dt dtype.DType, n int, l layout.Layout) device.Operand {
		b, err := d.Alloc(dt, n)
		if err != nil {
			t.Fatal(err)
		}
		return device.Operand{Buf: b, Layout: l}
	}
	x := contiguous(1024, 1024)
	row := layout.Layout{Shape: []int{1024, 1024}, Strides: []int{0, 1}}
	scalar := layout.Layout{Shape: []int{1024, 1024}, Strides: []int{0, 0}}
	small := layout.Layout{Shape: []int{1024, 1024}, Strides: []int{1, 0}}
	cases := []struct {
		name string
		ins  []device.Operand
		dt   dtype.DType
		want bool
	}{
		{"x and its mean, f32", []device.Operand{op(dtype.F32, 1<<20, x), op(dtype.F32, 1024, row)}, dtype.F32, true},
		{"x and its mean, bf16 into f32", []device.Operand{op(dtype.BF16, 1<<20, x), op(dtype.BF16, 1024, row)}, dtype.BF16, true},
		{"x and its mean, f64", []device.Operand{op(dtype.F64, 1<<20, x), op(dtype.F64, 1024, row)}, dtype.F64, true},
		{"a broadcast scalar", []device.Operand{op(dtype.F32, 1, scalar)}, dtype.F32, false},
		{"a broadcast column beside a scalar", []device.Operand{op(dtype.F32, 1024, small), op(dtype.F32, 1, scalar)}, dtype.F32, false},
		{"a bool mask and a broadcast row", []device.Operand{op(dtype.Bool, 1<<20, x), op(dtype.F32, 1024, row)}, dtype.F32, false},
	}
	for _, tc := range cases {
		if got := scratchBounded(tc.ins, tc.dt); got != tc.want {
			t.Errorf("%s: scratchBounded = %v, want %v", tc.name, got, tc.want)
		}
	}
}
