//go:build cgo

package webgpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// fusedInput is one input of a fused test: a buffer, a view of it with the
// program's shape, and the buffer's host values.
type fusedInput struct {
	buf  device.Buffer
	lay  layout.Layout
	vals []float64
}

// fusedView makes a view of kind over shape in a fresh buffer of dt holding
// random values in [-2, 2): contiguous, offset, transposed, narrowed,
// reversed, broadcast (some axes stride 0) or scalar (every stride 0).
func fusedView(t *testing.T, g *gpu, r *rand.Rand, dt dtype.DType, shape []int, kind string) fusedInput {
	t.Helper()
	rank := len(shape)
	var l layout.Layout
	var n int
	switch kind {
	case "offset":
		l = contig(shape...).Rebase(5)
		n = prodInts(shape) + 9
	case "transposed":
		rev := make([]int, rank)
		perm := make([]int, rank)
		for i := range shape {
			rev[i], perm[i] = shape[rank-1-i], rank-1-i
		}
		l, _ = contig(rev...).Permute(perm...)
		n = prodInts(shape)
	case "narrowed":
		big := make([]int, rank)
		for i, d := range shape {
			big[i] = d + 2
		}
		l = contig(big...)
		for i, d := range shape {
			l, _ = l.Narrow(i, 1, d)
		}
		n = prodInts(big)
	case "reversed":
		l, _ = contig(shape...).Slice(0, -1, -shape[0]-1, -1)
		n = prodInts(shape)
	case "broadcast":
		small := append([]int(nil), shape...)
		for i := range small {
			if i%2 == 0 || rank == 1 {
				small[i] = 1
			}
		}
		l, _ = contig(small...).BroadcastTo(shape...)
		n = prodInts(small)
	case "scalar":
		l = layout.Layout{Shape: shape, Strides: make([]int, rank), Offset: 2}
		n = 3
	default:
		l = contig(shape...)
		n = prodInts(shape)
	}
	vals := randVals(r, dt, n, -2, 2)
	return fusedInput{buf: upload(t, g, dt, vals), lay: l, vals: vals}
}

var viewKinds = []string{"contig", "offset", "transposed", "narrowed", "reversed", "broadcast", "scalar"}

// The ops of random programs: bounded derivatives (so errors propagate
// predictably) and no NaN-producing domains.
var (
	fusedUnaries  = []device.UnaryOp{device.Neg, device.Abs, device.Relu, device.Tanh, device.Sigmoid, device.Sin, device.Cos}
	fusedBinaries = []device.BinaryOp{device.Add, device.Sub, device.Mul, device.Maximum, device.Minimum}
)

// randomProgram builds a program over nin inputs: the inputs, a few
// constants and ops picking earlier steps (so subexpressions are shared),
// keeping every value's magnitude below 64.
func randomProgram(r *rand.Rand, dt dtype.DType, nin int) device.Program {
	p := device.Program{DType: dt}
	var bound []float64
	push := func(s device.Step, b float64) {
		p.Steps = append(p.Steps, s)
		bound = append(bound, b)
	}
	for i := range nin {
		push(device.Step{Kind: device.StepInput, Input: i}, 2)
	}
	pick := func() int {
		n := len(p.Steps)
		if r.IntN(3) > 0 {
			return n - 1 - r.IntN(min(n, 3))
		}
		return r.IntN(n)
	}
	ops := 2 + r.IntN(12)
	for len(p.Steps) < nin+ops {
		if r.IntN(6) == 0 {
			push(device.Step{Kind: device.StepConst, Const: -2 + 4*r.Float64()}, 2)
			continue
		}
		if r.IntN(2) == 0 {
			op := fusedUnaries[r.IntN(len(fusedUnaries))]
			a := pick()
			b := bound[a]
			if op == device.Tanh || op == device.Sigmoid || op == device.Sin || op == device.Cos {
				b = 1
			}
			push(device.Step{Kind: device.StepUnary, Unary: op, A: a}, b)
			continue
		}
		op := fusedBinaries[r.IntN(len(fusedBinaries))]
		a, b := pick(), pick()
		nb := max(bound[a], bound[b])
		switch op {
		case device.Add, device.Sub:
			nb = bound[a] + bound[b]
		case device.Mul:
			nb = bound[a] * bound[b]
		}
		if nb > 64 {
			continue
		}
		push(device.Step{Kind: device.StepBinary, Binary: op, A: a, B: b}, nb)
	}
	return p
}

// refProgram evaluates p at one element in float64 with each op's F64
// reference, each step rounded to dt as the unfused operations round, and
// returns the result with a bound on the error a device may have there:
// each step's own tolerance (unaryTol, or a rounding for arithmetic), plus
// the operands' errors carried through the op (linearised).
func refProgram(p device.Program, dt dtype.DType, in []float64) (float64, float64) {
	val := make([]float64, len(p.Steps))
	errb := make([]float64, len(p.Steps))
	u := 0x1p-23 // one f32 ulp, relative
	if dt == dtype.F16 {
		u = 0x1p-10 + 0x1p-22 // a flipped f16 rounding
	}
	for i, s := range p.Steps {
		switch s.Kind {
		case device.StepInput:
			val[i] = in[s.Input]
		case device.StepConst:
			val[i] = roundTo(dt, s.Const)
		case device.StepUnary:
			def, _ := s.Unary.Def()
			x := val[s.A]
			val[i] = roundTo(dt, def.F64(x))
			rel, abs := unaryTol(s.Unary)
			errb[i] = errb[s.A] + rel*math.Abs(val[i]) + abs + u*math.Abs(val[i])
		case device.StepBinary:
			def, _ := s.Binary.Def()
			a, b := val[s.A], val[s.B]
			val[i] = roundTo(dt, def.F64(a, b))
			ea, eb := errb[s.A], errb[s.B]
			switch s.Binary {
			case device.Mul:
				errb[i] = math.Abs(b)*ea + math.Abs(a)*eb + ea*eb
			case device.Maximum, device.Minimum:
				errb[i] = max(ea, eb)
			default:
				errb[i] = ea + eb
			}
			errb[i] += u * math.Abs(val[i])
		}
	}
	last := len(p.Steps) - 1
	return val[last], errb[last]
}

// eagerProgram runs p on g one Unary/Binary call per step, as the tensor
// layer does without a Fuser, into contiguous temporaries.
func eagerProgram(t *testing.T, g *gpu, p device.Program, dst device.Operand, ins []device.Operand) {
	t.Helper()
	shape := dst.Layout.Shape
	vals := make([]device.Operand, len(p.Steps))
	for i, s := range p.Steps {
		out := dst
		if i != len(p.Steps)-1 {
			out = op(alloc(t, g, p.DType, prodInts(shape)), contig(shape...))
		}
		var err error
		switch s.Kind {
		case device.StepInput:
			vals[i] = ins[s.Input]
			if i == len(p.Steps)-1 {
				err = g.Copy(dst, ins[s.Input])
			}
		case device.StepConst:
			err = g.Fill(out, s.Const)
			vals[i] = out
		case device.StepUnary:
			err = g.Unary(s.Unary, out, vals[s.A])
			vals[i] = out
		case device.StepBinary:
			err = g.Binary(s.Binary, out, vals[s.A], vals[s.B])
			vals[i] = out
		}
		if err != nil {
			t.Fatalf("eager step %d: %v", i, err)
		}
	}
}

// TestFusedRandomPrograms runs random programs over every kind of view, in
// f32 and f16, into NaN-filled destinations of several layouts, and
// compares every element with the float64 evaluation; f16 results must
// equal the unfused operations' bit for bit. Inputs stay unchanged and
// elements outside the destination view keep their NaN.
func TestFusedRandomPrograms(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(9, 1))
	shapes := [][]int{{1}, {37}, {5, 7}, {3, 4, 5}, {2, 3, 2, 4}, {300, 7}}
	for trial := range 48 {
		dt := dtype.F32
		if trial%2 == 1 {
			dt = dtype.F16
		}
		shape := shapes[trial%len(shapes)]
		nin := 1 + r.IntN(6)
		if trial < 6 {
			nin = 6
		}
		p := randomProgram(r, dt, nin)
		ins := make([]fusedInput, nin)
		ops := make([]device.Operand, nin)
		for i := range ins {
			kind := viewKinds[r.IntN(len(viewKinds))]
			if len(shape) == 1 && kind == "transposed" {
				kind = "contig"
			}
			ins[i] = fusedView(t, g, r, dt, shape, kind)
			ops[i] = op(ins[i].buf, ins[i].lay)
		}
		dkind := []string{"contig", "offset", "transposed", "narrowed"}[trial%4]
		if len(shape) == 1 && dkind == "transposed" {
			dkind = "reversed"
		}
		dv := fusedView(t, g, r, dt, shape, dkind)
		dbuf := alloc(t, g, dt, dv.buf.Len())
		if err := g.Fused(op(dbuf, dv.lay), p, ops); err != nil {
			t.Fatalf("trial %d (%s, %d inputs): %v", trial, dt, nin, err)
		}
		all := download(t, g, dbuf)
		got := gather(all, dv.lay)
		logical := make([][]float64, nin)
		for i, in := range ins {
			logical[i] = gather(in.vals, in.lay)
		}
		bad := 0
		elem := make([]float64, nin)
		for k := range got {
			for i := range elem {
				elem[i] = logical[i][k]
			}
			want, tol := refProgram(p, dt, elem)
			if !closeEnough(got[k], want, 0, 4*tol+1e-30) {
				if bad < 3 {
					t.Errorf("trial %d (%s, %d inputs, %d steps): [%d] = %v, want %v ± %g", trial, dt, nin, len(p.Steps), k, got[k], want, 4*tol)
				}
				bad++
			}
		}
		covered := map[int]bool{}
		each(dv.lay.Shape, func(idx []int) { covered[dv.lay.OffsetOf(idx)] = true })
		for i, v := range all {
			if !covered[i] && !math.IsNaN(v) {
				t.Fatalf("trial %d: element %d outside the destination view was written (%v)", trial, i, v)
			}
		}
		for _, in := range ins {
			checkClose(t, "input unchanged", download(t, g, in.buf), in.vals, 0, 0)
		}
		if dt == dtype.F16 {
			ebuf := alloc(t, g, dt, dv.buf.Len())
			eagerProgram(t, g, p, op(ebuf, dv.lay), ops)
			eager := gather(download(t, g, ebuf), dv.lay)
			for k := range got {
				if math.Float64bits(got[k]) != math.Float64bits(eager[k]) && !(math.IsNaN(got[k]) && math.IsNaN(eager[k])) {
					t.Fatalf("trial %d: f16 fused [%d] = %v, unfused %v", trial, k, got[k], eager[k])
				}
			}
		}
	}
}

// TestFusedEveryOp fuses each float op of the table (unary on an input,
// binary between an input and a constant or a second input) and compares
// with its float64 reference within the op's tolerance.
func TestFusedEveryOp(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(9, 2))
	const n = 512
	for _, u := range device.UnaryOps() {
		if _, err := u.Result("test", dtype.F32); err != nil || u.IsPredicate() {
			continue
		}
		xs := unaryInputs(r, u)
		for i := range xs {
			xs[i] = roundTo(dtype.F32, xs[i])
		}
		x := upload(t, g, dtype.F32, xs)
		d := alloc(t, g, dtype.F32, len(xs))
		p := device.Program{DType: dtype.F32, Steps: []device.Step{{Kind: device.StepInput}, {Kind: device.StepUnary, Unary: u, A: 0}}}
		if err := g.Fused(op(d, contig(len(xs))), p, []device.Operand{op(x, contig(len(xs)))}); err != nil {
			t.Fatalf("%v: %v", u, err)
		}
		def, _ := u.Def()
		want := make([]float64, len(xs))
		for i, v := range xs {
			want[i] = float64(float32(def.F64(v)))
		}
		rel, abs := unaryTol(u)
		checkClose(t, "fused "+u.String(), download(t, g, d), want, rel, abs)
	}
	xs, ys := randVals(r, dtype.F32, n, -4, 4), randVals(r, dtype.F32, n, 0.25, 4)
	x, y := upload(t, g, dtype.F32, xs), upload(t, g, dtype.F32, ys)
	for _, b := range device.BinaryOps() {
		if _, err := b.Result("test", dtype.F32, dtype.F32); err != nil || b.IsComparison() {
			continue
		}
		def, _ := b.Def()
		for _, konst := range []bool{false, true} {
			p := device.Program{DType: dtype.F32, Steps: []device.Step{{Kind: device.StepInput}, {Kind: device.StepInput, Input: 1}, {Kind: device.StepBinary, Binary: b, A: 0, B: 1}}}
			ins := []device.Operand{op(x, contig(n)), op(y, contig(n))}
			c := 1.75
			if konst {
				p.Steps[1] = device.Step{Kind: device.StepConst, Const: c}
				ins = ins[:1]
			}
			d := alloc(t, g, dtype.F32, n)
			if err := g.Fused(op(d, contig(n)), p, ins); err != nil {
				t.Fatalf("%v: %v", b, err)
			}
			want := make([]float64, n)
			for i := range want {
				yv := ys[i]
				if konst {
					yv = c
				}
				want[i] = float64(float32(def.F64(xs[i], yv)))
			}
			checkClose(t, "fused "+b.String(), download(t, g, d), want, 2e-6, 1e-6)
		}
	}
}

// fusedPipelines counts the compiled fused pipelines of g.
func fusedPipelines(g *gpu) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for k := range g.kernels {
		if strings.HasPrefix(k, "fused.wgsl") {
			n++
		}
	}
	return n
}

// TestFusedKernelCache: one structure with different constants and shapes
// compiles one pipeline; the cache is bounded and evicts the least recently
// used kernel (and its pipeline).
func TestFusedKernelCache(t *testing.T) {
	g := openOrSkip(t, Options{})
	prog := func(c float64, u device.UnaryOp) device.Program {
		return device.Program{DType: dtype.F32, Steps: []device.Step{
			{Kind: device.StepInput}, {Kind: device.StepConst, Const: c},
			{Kind: device.StepBinary, Binary: device.Mul, A: 0, B: 1}, {Kind: device.StepUnary, Unary: u, A: 2}}}
	}
	run := func(c float64, u device.UnaryOp, n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i%7) - 3
		}
		x := upload(t, g, dtype.F32, xs)
		d := alloc(t, g, dtype.F32, n)
		if err := g.Fused(op(d, contig(n)), prog(c, u), []device.Operand{op(x, contig(n))}); err != nil {
			t.Fatal(err)
		}
		return download(t, g, d)
	}
	if got := run(0.5, device.Neg, 10); got[0] != 1.5 {
		t.Fatalf("-(-3*0.5) = %v", got[0])
	}
	if got := run(2, device.Neg, 1000); got[0] != 6 || got[999] != -(float64(999%7)-3)*2 {
		t.Fatalf("-(-3*2) = %v", got[0])
	}
	if g.fused.Builds() != 1 || fusedPipelines(g) != 1 {
		t.Fatalf("one structure, two constants and shapes: %d kernels built, %d pipelines", g.fused.Builds(), fusedPipelines(g))
	}

	defer func(n int) { maxFusedKernels = n }(maxFusedKernels)
	maxFusedKernels = 2
	run(1, device.Abs, 4)  // second structure
	run(1, device.Neg, 4)  // first again: most recently used
	run(1, device.Relu, 4) // third: evicts Abs
	if g.fused.Len() != 2 || fusedPipelines(g) != 2 || g.fused.Builds() != 3 {
		t.Fatalf("bounded cache: %d entries, %d pipelines, %d builds", g.fused.Len(), fusedPipelines(g), g.fused.Builds())
	}
	if got := run(1, device.Neg, 4); got[0] != 3 || g.fused.Builds() != 3 {
		t.Errorf("kept kernel rebuilt (%d builds) or wrong (%v)", g.fused.Builds(), got[0])
	}
	if got := run(-1, device.Abs, 4); got[0] != 3 || g.fused.Builds() != 4 {
		t.Errorf("evicted kernel: %d builds, result %v", g.fused.Builds(), got[0])
	}
}

// TestFusedBindingLimit: operands larger than a shrunken binding limit
// (and a grid limit that folds) split into several dispatches with the same
// results, transposed and broadcast inputs included.
func TestFusedBindingLimit(t *testing.T) {
	g := openOrSkip(t, Options{MaxBindingSize: 1 << 20, MaxWorkgroupsPerDim: 16})
	r := rand.New(rand.NewPCG(9, 3))
	shape := []int{1024, 700} // 2.8 MB of f32
	p := device.Program{DType: dtype.F32, Steps: []device.Step{
		{Kind: device.StepInput, Input: 0}, {Kind: device.StepInput, Input: 1}, {Kind: device.StepInput, Input: 2},
		{Kind: device.StepBinary, Binary: device.Add, A: 0, B: 1}, {Kind: device.StepConst, Const: 0.5},
		{Kind: device.StepBinary, Binary: device.Mul, A: 3, B: 4}, {Kind: device.StepBinary, Binary: device.Sub, A: 5, B: 2},
		{Kind: device.StepUnary, Unary: device.Tanh, A: 6}}}
	ins := []fusedInput{fusedView(t, g, r, dtype.F32, shape, "contig"), fusedView(t, g, r, dtype.F32, shape, "transposed"), fusedView(t, g, r, dtype.F32, shape, "broadcast")}
	ops := []device.Operand{op(ins[0].buf, ins[0].lay), op(ins[1].buf, ins[1].lay), op(ins[2].buf, ins[2].lay)}
	d := alloc(t, g, dtype.F32, prodInts(shape))
	before := g.stats.dispatches.Load()
	if err := g.Fused(op(d, contig(shape...)), p, ops); err != nil {
		t.Fatal(err)
	}
	got := download(t, g, d)
	if n := g.stats.dispatches.Load() - before; n < 3 {
		t.Errorf("%d dispatches for 2.8 MB under a 1 MiB binding limit", n)
	}
	logical := [][]float64{gather(ins[0].vals, ins[0].lay), gather(ins[1].vals, ins[1].lay), gather(ins[2].vals, ins[2].lay)}
	for k := range got {
		want, tol := refProgram(p, dtype.F32, []float64{logical[0][k], logical[1][k], logical[2][k]})
		if !closeEnough(got[k], want, 0, 4*tol) {
			t.Fatalf("[%d] = %v, want %v ± %g", k, got[k], want, 4*tol)
		}
	}
}

// TestFusedErrors: malformed programs, dtypes WebGPU does not compute,
// foreign buffers, aliasing and too many inputs are typed errors, and
// nothing is written.
func TestFusedErrors(t *testing.T) {
	g := dev(t)
	x := upload(t, g, dtype.F32, []float64{1, 2, 3, 4})
	d := alloc(t, g, dtype.F32, 4)
	l := contig(4)
	ins := []device.Operand{op(x, l)}
	good := []device.Step{{Kind: device.StepInput}, {Kind: device.StepUnary, Unary: device.Neg, A: 0}}
	cases := []struct {
		name string
		p    device.Program
		ins  []device.Operand
		kind error
	}{
		{"empty", device.Program{DType: dtype.F32}, ins, errs.ErrValue},
		{"forward reference", device.Program{DType: dtype.F32, Steps: []device.Step{{Kind: device.StepInput}, {Kind: device.StepUnary, Unary: device.Neg, A: 1}}}, ins, errs.ErrValue},
		{"missing input", device.Program{DType: dtype.F32, Steps: []device.Step{{Kind: device.StepInput, Input: 1}}}, ins, errs.ErrValue},
		{"comparison", device.Program{DType: dtype.F32, Steps: []device.Step{{Kind: device.StepInput}, {Kind: device.StepBinary, Binary: device.Lt, A: 0, B: 0}}}, ins, errs.ErrValue},
		{"unknown op", device.Program{DType: dtype.F32, Steps: []device.Step{{Kind: device.StepInput}, {Kind: device.StepUnary, Unary: device.UnaryOp(250), A: 0}}}, ins, errs.ErrUnsupported},
		{"unknown kind", device.Program{DType: dtype.F32, Steps: []device.Step{{Kind: 9}}}, ins, errs.ErrValue},
		{"int program", device.Program{DType: dtype.I32, Steps: good}, ins, errs.ErrDType},
		{"f64 program", device.Program{DType: dtype.F64, Steps: good}, ins, errs.ErrDType},
		{"bf16 program", device.Program{DType: dtype.BF16, Steps: good}, ins, errs.ErrDType},
		{"f16 program over f32", device.Program{DType: dtype.F16, Steps: good}, ins, errs.ErrDType},
		{"aliased", device.Program{DType: dtype.F32, Steps: good}, []device.Operand{op(d, l)}, errs.ErrValue},
		{"shape", device.Program{DType: dtype.F32, Steps: good}, []device.Operand{op(x, contig(2))}, errs.ErrShape},
		{"too many inputs", device.Program{DType: dtype.F32, Steps: good}, []device.Operand{ins[0], ins[0], ins[0], ins[0], ins[0], ins[0], ins[0]}, errs.ErrUnsupported},
	}
	for _, c := range cases {
		err := g.Fused(op(d, l), c.p, c.ins)
		wantKind(t, c.name, err, c.kind)
	}
	// F64 is refused as every WebGPU operation refuses it.
	_, allocErr := g.Alloc(dtype.F64, 4)
	err := g.Fused(op(d, l), device.Program{DType: dtype.F64, Steps: good}, ins)
	wantKind(t, "f64 alloc", allocErr, errs.ErrDType)
	if err == nil || !strings.Contains(err.Error(), "Cast to f32 first") {
		t.Errorf("f64 program: %v", err)
	}
	// Buffers of another device.
	c := cpu.New()
	cb, _ := c.Backend().Alloc(dtype.F32, 4)
	wantKind(t, "cpu input", g.Fused(op(d, l), device.Program{DType: dtype.F32, Steps: good}, []device.Operand{op(cb, l)}), errs.ErrDevice)
	for i, v := range download(t, g, d) {
		if !math.IsNaN(v) {
			t.Fatalf("refused calls wrote element %d", i)
		}
	}
}
