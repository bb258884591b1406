package gpucore

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
	"github.com/tessera-go/tessera/shaders"
)

// TestFusedParamsWGSL: the FParams declaration in shaders/fused.wgsl is the
// one generated from FusedParams, and the packed bytes are the struct's
// encoding/binary form.
func TestFusedParamsWGSL(t *testing.T) {
	want, err := FusedParamsWGSL()
	if err != nil {
		t.Fatal(err)
	}
	src, err := shaders.Raw("fused.wgsl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(src, "\n"+want) {
		t.Errorf("shaders/fused.wgsl does not declare FParams as generated from gpucore.FusedParams; paste:\n%s", want)
	}
	var f FusedParams
	f.N, f.Off[1][2], f.C[3][1], f.WA.Shape[1][0], f.WB.St[7][3] = 7, -5, 1.5, 9, -11
	portable, err := binary.Append(nil, binary.LittleEndian, f)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.bytes(); string(got) != string(portable) || Size(got) != len(portable) || string(Pack(nil, got)) != string(portable) {
		t.Errorf("packed FusedParams differ from its encoding/binary form")
	}
}

func fusedProg(dt dtype.DType, c float64) device.Program {
	return device.Program{DType: dt, Steps: []device.Step{
		{Kind: device.StepInput, Input: 0},
		{Kind: device.StepInput, Input: 1},
		{Kind: device.StepBinary, Binary: device.Add, A: 0, B: 1},
		{Kind: device.StepConst, Const: c},
		{Kind: device.StepBinary, Binary: device.Mul, A: 2, B: 3},
		{Kind: device.StepUnary, Unary: device.Tanh, A: 4},
	}}
}

// TestFusedPlan: the kernel is keyed by structure only (constants are
// parameters), scalars are not walked, and limits split the work.
func TestFusedPlan(t *testing.T) {
	l := bigLimits
	l.MaxBinding = 1 << 20
	p := planner(l)
	const n = 1 << 19 // 2 MiB of f32
	d, a := buffer(p, dtype.F32, n), buffer(p, dtype.F32, n)
	s := buffer(p, dtype.F32, 1)
	dst := operand(t, p, d, contig(n))
	ins := []Operand{operand(t, p, a, contig(n)), operand(t, p, s, layout.Layout{Shape: []int{n}, Strides: []int{0}})}
	builds := 0
	cache := map[string]*Kernel{}
	get := func(key string, build func() *Kernel) *Kernel {
		if k, ok := cache[key]; ok {
			return k
		}
		builds++
		cache[key] = build()
		return cache[key]
	}
	var first *Plan
	for _, c := range []float64{0.5, 2} {
		pl, err := p.Fused("Fused", dst, fusedProg(dtype.F32, c), ins, get)
		if err != nil {
			t.Fatal(err)
		}
		if len(pl.Steps) < 2 {
			t.Fatalf("%d dispatches for 2 MiB under a 1 MiB binding limit", len(pl.Steps))
		}
		for _, st := range pl.Steps {
			for _, b := range st.Binds {
				if b.Size > l.MaxBinding {
					t.Errorf("binding of %d bytes exceeds the limit", b.Size)
				}
			}
		}
		if first == nil {
			first = pl
		}
	}
	if builds != 1 {
		t.Errorf("%d kernels built for one structure with two constants", builds)
	}
	k := first.Steps[0].Kernel
	if k.RO != 2 || k.Vars["WALK_B"] != "" || !strings.Contains(k.Vars["BODY"], "load_in1(P.off[0][2]);") {
		t.Errorf("scalar input walked or miscounted: RO=%d vars=%v", k.RO, k.Vars)
	}
	for _, v := range k.Vars {
		if strings.Contains(v, "0.5") {
			t.Errorf("a constant's value is in the kernel text: %q", v)
		}
	}

	// Errors: malformed programs, dtypes, too many inputs, shapes.
	bad := fusedProg(dtype.F32, 1)
	bad.Steps[2].A = 5
	if _, err := p.Fused("Fused", dst, bad, ins, nil); !errors.Is(err, errs.ErrValue) {
		t.Errorf("forward reference: %v", err)
	}
	if _, err := p.Fused("Fused", dst, fusedProg(dtype.F64, 1), ins, nil); !errors.Is(err, errs.ErrDType) || !strings.Contains(fmtErr(err), "Cast to f32 first") {
		t.Errorf("f64 program: %v", err)
	}
	if _, err := p.Fused("Fused", dst, fusedProg(dtype.F16, 1), ins, nil); !errors.Is(err, errs.ErrDType) {
		t.Errorf("f16 program over f32 operands: %v", err)
	}
	short := operand(t, p, a, contig(n/2))
	if _, err := p.Fused("Fused", dst, fusedProg(dtype.F32, 1), []Operand{short, ins[1]}, nil); !errors.Is(err, errs.ErrShape) {
		t.Errorf("shape mismatch: %v", err)
	}
	if _, err := p.Fused("Fused", ins[0], fusedProg(dtype.F32, 1), ins, nil); !errors.Is(err, errs.ErrValue) {
		t.Errorf("aliased dst: %v", err)
	}
	many := make([]Operand, MaxFusedInputs+1)
	for i := range many {
		many[i] = ins[0]
	}
	if _, err := p.Fused("Fused", dst, fusedProg(dtype.F32, 1), many, nil); !errors.Is(err, errs.ErrUnsupported) {
		t.Errorf("too many inputs: %v", err)
	}
}

// TestFusedKernelWalks: inputs beyond three walked take the second walk.
func TestFusedKernelWalks(t *testing.T) {
	prog := device.Program{DType: dtype.F16}
	for i := range 6 {
		prog.Steps = append(prog.Steps, device.Step{Kind: device.StepInput, Input: i})
		if i > 0 {
			prog.Steps = append(prog.Steps, device.Step{Kind: device.StepBinary, Binary: device.Add, A: len(prog.Steps) - 2, B: len(prog.Steps) - 1})
		}
	}
	k := FusedKernel(prog, []bool{false, true, false, false, false, false})
	if k.Vars["WALK_B"] != "1" || !strings.Contains(k.Vars["BODY"], "pb[1]") || strings.Contains(k.Vars["BODY"], "pb[2]") {
		t.Errorf("walks: %v", k.Vars)
	}
	if !strings.Contains(k.Vars["BODY"], "r16(bin_") {
		t.Errorf("f16 steps not rounded: %s", k.Vars["BODY"])
	}
	src, err := shaders.Render(k.Template, k.Vars)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fn load_in5", "@binding(7)", "fn walk_b", "fn bin_"} {
		if !strings.Contains(src, want) {
			t.Errorf("rendered kernel lacks %q", want)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestFusedReducePlan: a fused reduction is one generated kernel writing
// partial results plus the reduce kernel combining them; it declines (with
// ErrUnsupported, so the caller realises the program) the arg reductions
// and inputs beyond one binding, and checks the reduction's shapes.
func TestFusedReducePlan(t *testing.T) {
	p := planner(bigLimits)
	const rows, cols = 64, 3000
	a, b := buffer(p, dtype.F32, rows*cols), buffer(p, dtype.F32, cols)
	ins := []Operand{
		operand(t, p, a, contig(rows, cols)),
		operand(t, p, b, layout.Layout{Shape: []int{rows, cols}, Strides: []int{0, 1}}),
	}
	d := buffer(p, dtype.F32, rows)
	dst := operand(t, p, d, contig(rows))
	pl, err := p.FusedReduce("FusedReduce", device.Sum, dst, fusedProg(dtype.F32, 0.5), ins, []int{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Steps) != 2 || pl.Steps[0].Kernel.Template != "fused.wgsl" || pl.Steps[0].Kernel.Vars["REDUCE"] != "1" ||
		pl.Steps[1].Kernel.Template != "reduce.wgsl" {
		t.Fatalf("plan: %d steps, want the fused partial pass and the reduce pass", len(pl.Steps))
	}
	if len(pl.Scratch) != 1 || pl.Scratch[0].N != rows*3 { // 3000 elements: 3 chunks of at most 1024
		t.Errorf("partials: %+v, want %d", pl.Scratch, rows*3)
	}
	if k1, k2 := FusedReduceKey(fusedProg(dtype.F32, 1), []bool{false, false}, device.Sum),
		FusedReduceKey(fusedProg(dtype.F32, 1), []bool{false, false}, device.Max); k1 == k2 || k1 == FusedKey(fusedProg(dtype.F32, 1), []bool{false, false}) {
		t.Errorf("reduction keys do not name the reduction: %q %q", k1, k2)
	}
	for _, c := range []struct {
		name string
		op   device.ReduceOp
		dst  Operand
		axes []int
		want error
	}{
		{"argmax", device.ArgMax, operand(t, p, buffer(p, dtype.I64, rows), contig(rows)), []int{1}, errs.ErrUnsupported},
		{"wrong dst shape", device.Sum, operand(t, p, buffer(p, dtype.F32, cols), contig(cols)), []int{1}, errs.ErrShape},
		{"bad axis", device.Sum, dst, []int{2}, errs.ErrAxis},
	} {
		if _, err := p.FusedReduce("FusedReduce", c.op, c.dst, fusedProg(dtype.F32, 1), ins, c.axes, nil); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	small := bigLimits
	small.MaxBinding = 1 << 16
	ps := planner(small)
	a2 := buffer(ps, dtype.F32, rows*cols)
	in2 := []Operand{operand(t, ps, a2, contig(rows, cols)), operand(t, ps, buffer(ps, dtype.F32, cols), layout.Layout{Shape: []int{rows, cols}, Strides: []int{0, 1}})}
	if _, err := ps.FusedReduce("FusedReduce", device.Sum, operand(t, ps, buffer(ps, dtype.F32, rows), contig(rows)), fusedProg(dtype.F32, 1), in2, []int{1}, nil); !errors.Is(err, errs.ErrUnsupported) {
		t.Errorf("input beyond one binding: %v, want ErrUnsupported", err)
	}
}
