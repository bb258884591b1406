package tensor_test

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// Gradient checks: every differentiable operation and view, against
// central finite differences in float64 on the CPU, then the same
// gradients in float32 on every device against the float64 ones.
//
// A case's loss is sum(f(xs) * w) with fixed random weights w, so that
// every element of the result gets a different gradient.

const (
	fdStep = 1e-5 // the finite-difference step
	// fdTol bounds |analytic - numeric| / (1 + |numeric|) in float64: the
	// central difference's error is about step^2 f'''/6 + eps |L| / step,
	// below 1e-8 for the domains below.
	fdTol = 1e-6
	// devTol bounds |float32 on a device - float64 on the CPU| / (1 +
	// |float64|): float32 rounding through a few operations and the GPU's
	// transcendentals. Every case is within 1e-5 on cpu and
	// webgpu:software; the bound leaves a factor of ten.
	devTol = 1e-4
)

// gcIn describes one input: its shape and the range of its values, which
// stay at least 0.05 away from multiples of 0.5 (the kinks of Relu, Abs,
// Sign, Floor, Round, Hardswish, Clamp's bounds...), so the finite
// difference never straddles one.
type gcIn struct {
	shape  []int
	lo, hi float64
	// offset: values on the grid offset + k/4 instead (Maximum and
	// Minimum take their operands on two interleaved grids, so they never
	// tie).
	offset float64
}

type gradCase struct {
	name string
	in   []gcIn
	f    func(x []*tensor.Tensor) *tensor.Tensor
	step float64 // finite-difference step, fdStep when 0
	tol  float64 // fdTol when 0
	cpu  bool    // the float64 check only (an f64-specific case)
}

func gin(lo, hi float64, shape ...int) gcIn { return gcIn{shape: shape, lo: lo, hi: hi} }
func gstd(shape ...int) gcIn                { return gin(-2, 2, shape...) }

func (c gradCase) values() [][]float64 {
	h := fnv.New64a()
	h.Write([]byte(c.name))
	r := rand.New(rand.NewPCG(h.Sum64(), 7))
	vals := make([][]float64, len(c.in))
	for i, s := range c.in {
		n := 1
		for _, d := range s.shape {
			n *= d
		}
		v := make([]float64, n)
		for j := range v {
			if s.offset != 0 {
				steps := int((s.hi - s.lo) * 4)
				v[j] = s.lo + s.offset + float64(r.IntN(steps))/4
				continue
			}
			for {
				x := s.lo + r.Float64()*(s.hi-s.lo)
				if d := math.Abs(x*2 - math.Round(x*2)); d >= 0.1 {
					v[j] = x
					break
				}
			}
		}
		vals[i] = v
	}
	return vals
}

// gcBuild makes the inputs on dev in dt.
func gcBuild(t testing.TB, c gradCase, vals [][]float64, dev device.Device, dt dtype.DType, grad bool) []*tensor.Tensor {
	xs := make([]*tensor.Tensor, len(vals))
	for i, v := range vals {
		x := tensor.FromSlice(v, c.in[i].shape...).Cast(dt).To(dev)
		if grad {
			x = x.RequiresGrad()
		}
		if err := x.Err(); err != nil {
			t.Fatalf("%s: input %d: %v", c.name, i, err)
		}
		xs[i] = x
	}
	return xs
}

// gcWeights returns the fixed weights of the case's loss for a result of n
// elements.
func gcWeights(n int) []float64 {
	r := rand.New(rand.NewPCG(42, 42))
	w := make([]float64, n)
	for i := range w {
		w[i] = 0.5 + r.Float64()
		if i%2 == 1 {
			w[i] = -w[i]
		}
	}
	return w
}

func caseLoss(c gradCase, xs []*tensor.Tensor) (*tensor.Tensor, error) {
	y := c.f(xs)
	if err := y.Err(); err != nil {
		return nil, err
	}
	w := tensor.FromSlice(gcWeights(y.Numel()), y.Shape()...).Cast(y.DType()).To(y.Device())
	return y.Mul(w).Sum(), nil
}

// gcAnalytic returns the gradients of the case's loss on dev in dt, as
// float64 slices.
func gcAnalytic(t testing.TB, c gradCase, vals [][]float64, dev device.Device, dt dtype.DType) [][]float64 {
	t.Helper()
	xs := gcBuild(t, c, vals, dev, dt, true)
	loss, err := caseLoss(c, xs)
	if err != nil {
		t.Fatalf("%s on %s: forward: %v", c.name, dev.Name(), err)
	}
	gs, err := tensor.Grads(loss, xs...)
	if err != nil {
		t.Fatalf("%s on %s: Grads: %v", c.name, dev.Name(), err)
	}
	out := make([][]float64, len(gs))
	for i, g := range gs {
		if !slices.Equal(g.Shape(), xs[i].Shape()) || g.DType() != dt || g.Device() != dev {
			t.Fatalf("%s on %s: gradient %d is %v %v on %s, want %v %v", c.name, dev.Name(), i, g.DType(), g.Shape(), g.Device().Name(), dt, xs[i].Shape())
		}
		v, err := g.To(device.CPU()).Float64s()
		if err != nil {
			t.Fatalf("%s on %s: gradient %d: %v", c.name, dev.Name(), i, err)
		}
		out[i] = v
	}
	return out
}

// fdGrads returns the central-difference gradients in float64 on the CPU.
func fdGrads(t testing.TB, c gradCase, vals [][]float64) [][]float64 {
	t.Helper()
	h := c.step
	if h == 0 {
		h = fdStep
	}
	eval := func() float64 {
		xs := gcBuild(t, c, vals, device.CPU(), dtype.F64, false)
		loss, err := caseLoss(c, xs)
		if err != nil {
			t.Fatalf("%s: forward: %v", c.name, err)
		}
		v, err := loss.Item()
		if err != nil {
			t.Fatalf("%s: forward: %v", c.name, err)
		}
		return v
	}
	out := make([][]float64, len(vals))
	for i, v := range vals {
		out[i] = make([]float64, len(v))
		for j := range v {
			x := v[j]
			v[j] = x + h
			up := eval()
			v[j] = x - h
			down := eval()
			v[j] = x
			out[i][j] = (up - down) / (2 * h)
		}
	}
	return out
}

func compareGrads(t testing.TB, what string, got, want [][]float64, tol float64) {
	t.Helper()
	for i := range want {
		for j := range want[i] {
			g, w := got[i][j], want[i][j]
			if !(math.Abs(g-w) <= tol*(1+math.Abs(w))) {
				t.Errorf("%s: d/dx%d[%d] = %.9g, want %.9g", what, i, j, g, w)
				return
			}
		}
	}
}

// checkGradCases runs the float64 finite-difference check of every case, then
// the float32 comparison on every device.
func checkGradCases(t *testing.T, cases []gradCase) {
	devs := testDevices(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vals := c.values()
			ref := gcAnalytic(t, c, vals, device.CPU(), dtype.F64)
			tol := c.tol
			if tol == 0 {
				tol = fdTol
			}
			compareGrads(t, "f64 vs finite differences", ref, fdGrads(t, c, vals), tol)
			if c.cpu {
				return
			}
			for _, dev := range devs {
				got := gcAnalytic(t, c, vals, dev, dtype.F32)
				compareGrads(t, "f32 on "+dev.Name()+" vs f64", got, ref, devTol)
			}
		})
	}
}

// unaryDomains gives the input range of the unary operations not defined
// (or not smooth enough for a finite difference) on [-2, 2]; any other
// operation, a new one included, is checked on [-2, 2].
var unaryDomains = map[string][2]float64{
	"Log": {0.2, 3}, "Log2": {0.2, 3}, "Log10": {0.2, 3}, "Sqrt": {0.2, 3}, "Rsqrt": {0.2, 3},
	"Log1p": {-0.7, 2}, "Asin": {-0.9, 0.9}, "Acos": {-0.9, 0.9}, "Reciprocal": {0.3, 2},
	"Tan": {-1.2, 1.2},
}

// unaryGradCases builds, for every float unary operation of the op table, the
// check on a contiguous, a transposed, a reversed and a broadcast input,
// and on a chain that stays pending (fused) through the operation.
func unaryGradCases() []gradCase {
	var cases []gradCase
	for _, op := range device.UnaryOps() {
		def, _ := op.Def()
		if def.Accepts&device.Floats == 0 || def.Predicate { // predicates yield Bool
			continue
		}
		lo, hi := -2.0, 2.0
		if d, ok := unaryDomains[def.Name]; ok {
			lo, hi = d[0], d[1]
		}
		cases = append(cases,
			gradCase{name: def.Name + "/contiguous", in: []gcIn{gin(lo, hi, 2, 3)},
				f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Unary(op) }},
			gradCase{name: def.Name + "/transposed", in: []gcIn{gin(lo, hi, 3, 2)},
				f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].T().Unary(op) }},
			gradCase{name: def.Name + "/reversed", in: []gcIn{gin(lo, hi, 5)},
				f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Slice(0, -1, -6, -1).Unary(op) }},
			gradCase{name: def.Name + "/broadcast", in: []gcIn{gin(lo, hi, 3)},
				f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].BroadcastTo(2, 3).Unary(op) }},
			gradCase{name: def.Name + "/fused", in: []gcIn{gin(lo, hi, 2, 3), gin(0.9, 1.1, 3)},
				// x*s stays in the domain (s near 1): a pending operand
				// and a pending result.
				f: func(x []*tensor.Tensor) *tensor.Tensor { return x[0].Mul(x[1]).Unary(op).MulScalar(1.5) }},
		)
	}
	return cases
}

// binaryDomains gives the operands' ranges where [-2, 2] will not do.
var binaryDomains = map[string][2]gcIn{
	"Div":     {gstd(), gin(0.6, 2)},
	"Pow":     {gin(0.6, 2), gin(-1.5, 1.5)},
	"Atan2":   {gstd(), gin(0.5, 2)},
	"Mod":     {gstd(), gin(0.6, 2)},
	"Fmod":    {gstd(), gin(0.6, 2)},
	"Maximum": {{lo: -2, hi: 2, offset: 0.1}, {lo: -2, hi: 2, offset: 0.2}},
	"Minimum": {{lo: -2, hi: 2, offset: 0.1}, {lo: -2, hi: 2, offset: 0.2}},
}

func gcShaped(s gcIn, shape ...int) gcIn { s.shape = shape; return s }

// binaryGradMethod calls the tensor method of a binary operation (its Scalar
// form when scalar is set), found by the name the op table gives it.
func binaryGradMethod(op device.BinaryOp, scalar bool) func(a *tensor.Tensor, b any) *tensor.Tensor {
	def, _ := op.Def()
	name := def.Method
	if name == "" {
		name = def.Name
	}
	switch {
	case def.Param != "" && !scalar: // no public tensor-tensor method
		return func(a *tensor.Tensor, b any) *tensor.Tensor { return tensor.BinaryTensors(op, a, b.(*tensor.Tensor)) }
	case scalar && def.Param == "":
		name += "Scalar"
	}
	return func(a *tensor.Tensor, b any) *tensor.Tensor {
		m := reflect.ValueOf(a).MethodByName(name)
		if !m.IsValid() {
			panic("no method " + name)
		}
		return m.Call([]reflect.Value{reflect.ValueOf(b)})[0].Interface().(*tensor.Tensor)
	}
}

// binaryGradCases: every float binary operation of the op table (comparisons
// give Bool and are not differentiable), same shapes, broadcasting each
// way, a transposed operand, pending operands and the Scalar form.
func binaryGradCases() []gradCase {
	var cases []gradCase
	for _, op := range device.BinaryOps() {
		def, _ := op.Def()
		if def.Accepts&device.Floats == 0 || op.IsComparison() {
			continue
		}
		da, db := gstd(), gstd()
		if d, ok := binaryDomains[def.Name]; ok {
			da, db = d[0], d[1]
		}
		call, scalar := binaryGradMethod(op, false), binaryGradMethod(op, true)
		two := func(x []*tensor.Tensor) *tensor.Tensor { return call(x[0], x[1]) }
		c := 0.7
		if def.Name == "Maximum" || def.Name == "Minimum" {
			c = 0.05 // off the operand's grid
		}
		cases = append(cases,
			gradCase{name: def.Name + "/same", in: []gcIn{gcShaped(da, 2, 3), gcShaped(db, 2, 3)}, f: two},
			gradCase{name: def.Name + "/broadcast-b", in: []gcIn{gcShaped(da, 2, 3), gcShaped(db, 3)}, f: two},
			gradCase{name: def.Name + "/broadcast-a", in: []gcIn{gcShaped(da, 2, 1), gcShaped(db, 2, 3)}, f: two},
			gradCase{name: def.Name + "/broadcast-both", in: []gcIn{gcShaped(da, 1, 3), gcShaped(db, 2, 1)}, f: two},
			gradCase{name: def.Name + "/transposed", in: []gcIn{gcShaped(da, 2, 3), gcShaped(db, 3, 2)},
				f: func(x []*tensor.Tensor) *tensor.Tensor { return call(x[0], x[1].T()) }},
			gradCase{name: def.Name + "/pending", in: []gcIn{gcShaped(da, 2, 3), gcShaped(db, 2, 3)},
				f: func(x []*tensor.Tensor) *tensor.Tensor {
					return call(x[0].MulScalar(1), x[1].AddScalar(0)).MulScalar(2)
				}},
			gradCase{name: def.Name + "/scalar", in: []gcIn{gcShaped(da, 2, 3)},
				f: func(x []*tensor.Tensor) *tensor.Tensor { return scalar(x[0], c) }},
			gradCase{name: def.Name + "/scalar-transposed", in: []gcIn{gcShaped(da, 3, 2)},
				f: func(x []*tensor.Tensor) *tensor.Tensor { return scalar(x[0].T(), c) }},
		)
	}
	return cases
}

func TestGradUnaryOps(t *testing.T)  { checkGradCases(t, unaryGradCases()) }
func TestGradBinaryOps(t *testing.T) { checkGradCases(t, binaryGradCases()) }

func TestGradFusionOff(t *testing.T) {
	defer tensor.SetFusion(false)()
	checkGradCases(t, append(unaryGradCases()[:10], binaryGradCases()[:16]...))
}

type gcTs = []*tensor.Tensor

func TestGradViews(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "Transpose", in: []gcIn{gstd(2, 3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Transpose(0, 2) }},
		{name: "Permute", in: []gcIn{gstd(2, 3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Permute(1, -1, 0) }},
		{name: "T", in: []gcIn{gstd(2, 3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].T() }},
		{name: "T-1d", in: []gcIn{gstd(3)}, f: func(x gcTs) *tensor.Tensor { return x[0].T() }},
		{name: "Narrow", in: []gcIn{gstd(3, 5)}, f: func(x gcTs) *tensor.Tensor { return x[0].Narrow(1, 1, 3) }},
		{name: "Narrow-start", in: []gcIn{gstd(4, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].Narrow(-2, 0, 2) }},
		{name: "Slice-step2", in: []gcIn{gstd(2, 7)}, f: func(x gcTs) *tensor.Tensor { return x[0].Slice(1, 1, 7, 2) }},
		{name: "Slice-step3-clipped", in: []gcIn{gstd(8, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].Slice(0, 0, 100, 3) }},
		{name: "Slice-reversed", in: []gcIn{gstd(2, 5)}, f: func(x gcTs) *tensor.Tensor { return x[0].Slice(1, -1, -6, -1) }},
		{name: "Slice-step-2-back", in: []gcIn{gstd(7, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].Slice(0, 5, 0, -2) }},
		{name: "Slice-empty", in: []gcIn{gstd(3, 2)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].Slice(0, 2, 1, 1).Sum().Add(x[0].Sum())
		}},
		{name: "Slice-of-transposed", in: []gcIn{gstd(5, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].T().Slice(1, 4, 0, -3) }},
		{name: "Reshape", in: []gcIn{gstd(2, 6)}, f: func(x gcTs) *tensor.Tensor { return x[0].Reshape(3, -1, 2) }},
		{name: "Reshape-copies", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].T().Reshape(2, 6) }},
		{name: "Flatten", in: []gcIn{gstd(2, 3, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].Permute(2, 0, 1).Flatten(0, 1) }},
		{name: "BroadcastTo", in: []gcIn{gstd(3, 1)}, f: func(x gcTs) *tensor.Tensor { return x[0].BroadcastTo(2, 3, 4) }},
		{name: "Unsqueeze", in: []gcIn{gstd(2, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].Unsqueeze(1).Mul(x[0].Unsqueeze(0)) }},
		{name: "Squeeze", in: []gcIn{gstd(2, 1, 3, 1)}, f: func(x gcTs) *tensor.Tensor { return x[0].Squeeze() }},
		{name: "Squeeze-axis", in: []gcIn{gstd(2, 1, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].Squeeze(1).Exp() }},
		{name: "Contiguous", in: []gcIn{gstd(3, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].T().Contiguous() }},
		{name: "Contiguous-view", in: []gcIn{gstd(3, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].Contiguous() }},
		{name: "Clone", in: []gcIn{gstd(3, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].Slice(0, -1, -4, -1).Clone() }},
		{name: "Cast", in: []gcIn{gstd(2, 3)}, step: 1e-2, tol: 1e-5, cpu: true,
			f: func(x gcTs) *tensor.Tensor { return x[0].Cast(dtype.F32).Square().Cast(dtype.F64) }},
		{name: "chain", in: []gcIn{gstd(2, 3, 4)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].Permute(2, 0, 1).Narrow(0, 1, 2).Slice(2, 2, 0, -1).Reshape(2, 4).T()
		}},
	})
	// Cast between float dtypes on every device: float32 -> float16.
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice([]float32{1, 2, 3}, 3).To(dev).RequiresGrad()
		y := x.Cast(dtype.F16).Square().Cast(dtype.F32).Sum()
		gs, err := tensor.Grads(y, x)
		if err != nil {
			t.Fatalf("%s: %v", dev.Name(), err)
		}
		got, _ := tensor.ToSlice[float32](gs[0])
		if !reflect.DeepEqual(got, []float32{2, 4, 6}) {
			t.Errorf("%s: f16 cast gradient %v, want [2 4 6]", dev.Name(), got)
		}
	}
}

func TestGradMatmul(t *testing.T) {
	mm := func(x gcTs) *tensor.Tensor { return x[0].Matmul(x[1]) }
	checkGradCases(t, []gradCase{
		{name: "2d", in: []gcIn{gstd(2, 3), gstd(3, 4)}, f: mm},
		{name: "vec-mat", in: []gcIn{gstd(3), gstd(3, 4)}, f: mm},
		{name: "mat-vec", in: []gcIn{gstd(2, 3), gstd(3)}, f: mm},
		{name: "dot", in: []gcIn{gstd(3), gstd(3)}, f: mm},
		{name: "batched", in: []gcIn{gstd(2, 2, 3), gstd(2, 3, 4)}, f: mm},
		{name: "broadcast-batch", in: []gcIn{gstd(2, 1, 2, 3), gstd(3, 3, 2)}, f: mm},
		{name: "batch-mat", in: []gcIn{gstd(2, 2, 3), gstd(3, 2)}, f: mm},
		{name: "vec-batch", in: []gcIn{gstd(3), gstd(2, 3, 2)}, f: mm},
		{name: "transposed", in: []gcIn{gstd(3, 2), gstd(4, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].T().Matmul(x[1].T()) }},
		{name: "reversed", in: []gcIn{gstd(2, 3), gstd(3, 2)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].Slice(1, -1, -4, -1).Matmul(x[1])
		}},
		{name: "same-operand", in: []gcIn{gstd(3, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].Matmul(x[0].T()) }},
		{name: "Outer", in: []gcIn{gstd(3), gstd(2)}, f: func(x gcTs) *tensor.Tensor { return x[0].Outer(x[1]) }},
		{name: "Tensordot", in: []gcIn{gstd(2, 3, 2), gstd(3, 2, 2)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].Tensordot(x[1], []int{1, 2}, []int{0, 1})
		}},
		{name: "mlp", in: []gcIn{gstd(4, 3), gin(-1, 1, 3, 5), gstd(5), gin(-1, 1, 5, 2)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].Matmul(x[1]).Add(x[2]).Tanh().Matmul(x[3]).LogSoftmax(-1)
		}},
	})
}

func TestGradReductions(t *testing.T) {
	var cases []gradCase
	type red struct {
		name string
		dom  gcIn
		f    func(x *tensor.Tensor, keep bool, axes ...int) *tensor.Tensor
	}
	pick := func(plain, keep func(*tensor.Tensor, ...int) *tensor.Tensor) func(*tensor.Tensor, bool, ...int) *tensor.Tensor {
		return func(x *tensor.Tensor, k bool, axes ...int) *tensor.Tensor {
			if k {
				return keep(x, axes...)
			}
			return plain(x, axes...)
		}
	}
	reds := []red{
		{"Sum", gstd(), pick((*tensor.Tensor).Sum, (*tensor.Tensor).SumKeepDims)},
		{"Mean", gstd(), pick((*tensor.Tensor).Mean, (*tensor.Tensor).MeanKeepDims)},
		{"Prod", gin(-1.5, 1.5), pick((*tensor.Tensor).Prod, (*tensor.Tensor).ProdKeepDims)},
		{"Max", gstd(), pick((*tensor.Tensor).Max, (*tensor.Tensor).MaxKeepDims)},
		{"Min", gstd(), pick((*tensor.Tensor).Min, (*tensor.Tensor).MinKeepDims)},
		{"LogSumExp", gstd(), func(x *tensor.Tensor, k bool, axes ...int) *tensor.Tensor {
			r := x.LogSumExp(axes...)
			if k {
				r = r.Unsqueeze(0)
			}
			return r
		}},
	}
	for _, r := range reds {
		for _, axes := range [][]int{nil, {1}, {0, 2}, {-1}} {
			for _, keep := range []bool{false, true} {
				name := fmt.Sprintf("%s/%v/keep=%v", r.name, axes, keep)
				cases = append(cases, gradCase{name: name, in: []gcIn{gcShaped(r.dom, 2, 3, 4)},
					f: func(x gcTs) *tensor.Tensor { return r.f(x[0], keep, axes...) }})
			}
		}
		cases = append(cases, gradCase{name: r.name + "/permuted", in: []gcIn{gcShaped(r.dom, 3, 4, 2)},
			f: func(x gcTs) *tensor.Tensor { return r.f(x[0].Permute(2, 0, 1), false, 1) }})
		cases = append(cases, gradCase{name: r.name + "/pending", in: []gcIn{gcShaped(r.dom, 3, 4)},
			f: func(x gcTs) *tensor.Tensor { return r.f(x[0].MulScalar(0.5), false, 0) }})
	}
	cases = append(cases, gradCase{name: "Sum/empty", in: []gcIn{gstd(2, 3)}, f: func(x gcTs) *tensor.Tensor {
		return x[0].Narrow(0, 0, 0).Sum(0).Add(x[0].Sum(0))
	}})
	checkGradCases(t, cases)
	// Ties: the gradient of a maximum is split between the elements equal
	// to it (no finite difference exists there).
	x := tensor.FromSlice([]float64{1, 3, 3, 2}, 4).RequiresGrad()
	gs, err := tensor.Grads(x.Max(), x)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := gs[0].Float64s()
	if !reflect.DeepEqual(got, []float64{0, 0.5, 0.5, 0}) {
		t.Errorf("Max with a tie: gradient %v, want [0 0.5 0.5 0]", got)
	}
}

func TestGradSoftmaxAndStats(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "Softmax/last", in: []gcIn{gstd(2, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].Softmax(-1) }},
		{name: "Softmax/first", in: []gcIn{gstd(3, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].Softmax(0) }},
		{name: "Softmax/transposed", in: []gcIn{gstd(3, 2, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].Transpose(0, 2).Softmax(1) }},
		{name: "Softmax/scalar", in: []gcIn{gstd()}, f: func(x gcTs) *tensor.Tensor { return x[0].Softmax(0).Add(x[0]) }},
		{name: "LogSoftmax/last", in: []gcIn{gstd(2, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].LogSoftmax(-1) }},
		{name: "LogSoftmax/middle", in: []gcIn{gstd(2, 3, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].LogSoftmax(1) }},
		{name: "LogSoftmax/pending", in: []gcIn{gstd(2, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].MulScalar(3).LogSoftmax(1) }},
		{name: "Var/ddof0", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Var(0, 1) }},
		{name: "Var/ddof1/all", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Var(1) }},
		{name: "VarKeepDims", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].VarKeepDims(1, 0) }},
		{name: "Std", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].T().Std(1, 0) }},
		{name: "StdKeepDims", in: []gcIn{gstd(2, 3, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].StdKeepDims(0, 0, 2) }},
		{name: "Norm/1", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Norm(1, 1) }},
		{name: "Norm/2", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Norm(2) }},
		{name: "Norm/inf", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Norm(math.Inf(1), 0) }},
	})
}

func TestGradSelectJoin(t *testing.T) {
	mask := func() *tensor.Tensor { return tensor.FromSlice([]bool{true, false, true}, 3) }
	checkGradCases(t, []gradCase{
		{name: "Where", in: []gcIn{gstd(2, 3), gstd(2, 3)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Where(mask().To(x[0].Device()), x[0], x[1])
		}},
		{name: "Where/broadcast", in: []gcIn{gstd(2, 1), gstd(3)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Where(mask().To(x[0].Device()), x[0], x[1])
		}},
		{name: "Where/method", in: []gcIn{gstd(3, 2)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].T().Where(mask().To(x[0].Device()), x[0].T().Exp())
		}},
		{name: "Clamp", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Clamp(-1, 1) }},
		{name: "Clamp/transposed", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].T().Clamp(-1.2, 0.7) }},
		{name: "IndexSelect", in: []gcIn{gstd(2, 4)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].IndexSelect(1, tensor.FromSlice([]int64{2, 0, 2, 1, 2}, 5))
		}},
		{name: "IndexSelect/rows", in: []gcIn{gstd(4, 2)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].T().IndexSelect(-1, tensor.FromSlice([]int32{3, 1}, 2))
		}},
		{name: "IndexSelect/none", in: []gcIn{gstd(4, 2)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].IndexSelect(0, tensor.FromSlice([]int64{}, 0)).Sum().Add(x[0])
		}},
		{name: "Gather", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].T().Gather(1, tensor.FromSlice([]int64{2, 0, 2, 1, 1, 1, 0, 0}, 4, 2).To(x[0].Device()))
		}},
		{name: "ScatterAdd", in: []gcIn{gstd(3, 4), gstd(2, 4)}, f: func(x gcTs) *tensor.Tensor {
			ix := tensor.FromSlice([]int32{2, 0, 2, 1, 2, 2, 0, 1}, 2, 4).To(x[0].Device())
			return x[0].ScatterAdd(0, ix, x[1].Exp())
		}},
		{name: "CumSum", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].CumSum(1) }},
		{name: "CumSum/transposed", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].T().CumSum(-1).Exp() }},
		{name: "CumProd", in: []gcIn{gin(0.5, 2, 3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].CumProd(0) }},
		{name: "Sort", in: []gcIn{gstd(3, 5)}, f: func(x gcTs) *tensor.Tensor { v, _ := x[0].Sort(1, false); return v }},
		{name: "TopK", in: []gcIn{gstd(3, 5)}, f: func(x gcTs) *tensor.Tensor { v, _ := x[0].TopK(2, 0, true); return v.Exp() }},
		{name: "Concat", in: []gcIn{gstd(2, 1), gstd(2, 3), gstd(2, 2)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Concat([]*tensor.Tensor{x[0], x[1].Exp(), x[2].T().T()}, 1)
		}},
		{name: "Concat/same", in: []gcIn{gstd(2, 2)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Concat([]*tensor.Tensor{x[0], x[0].T()}, 0)
		}},
		{name: "Stack", in: []gcIn{gstd(2, 3), gstd(2, 3)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Stack([]*tensor.Tensor{x[0], x[1]}, 1)
		}},
	})
}
