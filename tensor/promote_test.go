package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestPromoteTypes pins the whole promotion table, written out by hand
// from PyTorch's torch.promote_types (rows and columns in the order of
// order below).
func TestPromoteTypes(t *testing.T) {
	order := []dtype.DType{dtype.Bool, dtype.U8, dtype.I32, dtype.I64, dtype.F16, dtype.BF16, dtype.F32, dtype.F64}
	b, u8, i32, i64, f16, bf, f32, f64 := dtype.Bool, dtype.U8, dtype.I32, dtype.I64, dtype.F16, dtype.BF16, dtype.F32, dtype.F64
	want := [][]dtype.DType{
		/* bool */ {b, u8, i32, i64, f16, bf, f32, f64},
		/* u8   */ {u8, u8, i32, i64, f16, bf, f32, f64},
		/* i32  */ {i32, i32, i32, i64, f16, bf, f32, f64},
		/* i64  */ {i64, i64, i64, i64, f16, bf, f32, f64},
		/* f16  */ {f16, f16, f16, f16, f16, f32, f32, f64},
		/* bf16 */ {bf, bf, bf, bf, f32, bf, f32, f64},
		/* f32  */ {f32, f32, f32, f32, f32, f32, f32, f64},
		/* f64  */ {f64, f64, f64, f64, f64, f64, f64, f64},
	}
	for i, a := range order {
		for j, c := range order {
			if got := tensor.PromoteTypes(a, c); got != want[i][j] {
				t.Errorf("PromoteTypes(%v, %v) = %v, want %v", a, c, got, want[i][j])
			}
		}
	}
}

// TestResultType pins the 0-d rule of ResultType on dtype pairs, and runs
// the common case on every device: a tensor plus a Go scalar made with
// Scalar (F64 or I64) keeps the tensor's dtype, with the exact value.
func TestResultType(t *testing.T) {
	vec := func(dt dtype.DType) *tensor.Tensor { return tensor.Ones(dtype.F32, 2).Cast(dt) }
	zd := func(dt dtype.DType) *tensor.Tensor { return tensor.Scalar[float32](1).Cast(dt) }
	for _, c := range []struct {
		a, b *tensor.Tensor
		want dtype.DType
	}{
		{vec(dtype.F32), zd(dtype.F64), dtype.F32},
		{zd(dtype.F64), vec(dtype.F16), dtype.F16},
		{vec(dtype.BF16), zd(dtype.F16), dtype.BF16},
		{vec(dtype.U8), zd(dtype.I64), dtype.U8},
		{vec(dtype.I32), zd(dtype.F64), dtype.F64},
		{vec(dtype.Bool), zd(dtype.U8), dtype.U8},
		{vec(dtype.I32), zd(dtype.Bool), dtype.I32},
		{vec(dtype.F16), vec(dtype.F32), dtype.F32},
		{zd(dtype.F16), zd(dtype.F32), dtype.F32},
		{zd(dtype.I32), vec(dtype.F32), dtype.F32},
	} {
		if got := tensor.ResultType(c.a, c.b); got != c.want {
			t.Errorf("ResultType(%v%v, %v%v) = %v, want %v", c.a.DType(), c.a.Shape(), c.b.DType(), c.b.Shape(), got, c.want)
		}
	}
	for _, dev := range testDevices(t) {
		f := tensor.FromSlice([]float32{1, 2}, 2).To(dev)
		i := tensor.FromSlice([]int32{1, 2}, 2).To(dev)
		type result struct {
			got  *tensor.Tensor
			dt   dtype.DType
			want []float64
		}
		cases := map[string]result{
			"f32*Scalar(int64)": {f.Mul(tensor.Scalar(int64(3)).To(dev)), dtype.F32, []float64{3, 6}},
			"i32-Scalar(int64)": {i.Sub(tensor.Scalar(int64(5)).To(dev)), dtype.I32, []float64{-4, -3}},
		}
		if supports(dev, dtype.F64) { // GPUs hold no F64: a float64 Scalar cannot move there
			cases["f32+Scalar(float64)"] = result{f.Add(tensor.Scalar(0.25).To(dev)), dtype.F32, []float64{1.25, 2.25}}
			cases["Where(f32, 0-d f64)"] = result{tensor.Where(i.GtScalar(1), f, tensor.Scalar(-1.0).To(dev)), dtype.F32, []float64{-1, 2}}
		}
		for name, c := range cases {
			if err := c.got.Err(); err != nil {
				t.Errorf("%s %s: %v", dev.Name(), name, err)
				continue
			}
			got, _ := c.got.Float64s()
			if c.got.DType() != c.dt || fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s %s = %v %v, want %v %v", dev.Name(), name, c.got.DType(), got, c.dt, c.want)
			}
		}
	}
}

// TestPromotedHalfArithmetic checks F16 and BF16 operands against float64
// on the CPU (the one device that holds BF16): the result takes the
// promoted dtype and is the correctly rounded sum of the exact operands.
func TestPromotedHalfArithmetic(t *testing.T) {
	h := tensor.FromSlice([]float32{1.5, -2.25, 1000}, 3).Cast(dtype.F16)
	bf := tensor.FromSlice([]float32{0.125, 3, 1}, 3).Cast(dtype.BF16)
	f := tensor.FromSlice([]float32{1e-3, 0.5, 1e6}, 3)
	for _, c := range []struct {
		name string
		got  *tensor.Tensor
		dt   dtype.DType
		want []float64
	}{
		{"f16+bf16", h.Add(bf), dtype.F32, []float64{1.625, 0.75, 1001}},
		{"f16*f32", h.Mul(f), dtype.F32, []float64{float64(float32(1.5 * 1e-3)), -1.125, 1e9}},
		{"bf16<f16", bf.Lt(h), dtype.Bool, []float64{1, 0, 1}},
	} {
		if c.got.DType() != c.dt {
			t.Errorf("%s: dtype %v, want %v", c.name, c.got.DType(), c.dt)
			continue
		}
		got, err := c.got.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if float32(got[i]) != float32(c.want[i]) {
				t.Errorf("%s[%d] = %v, want %v", c.name, i, got[i], c.want[i])
			}
		}
	}
}

// TestScalarOnIntegers compares the scalar forms on I32 and U8 tensors
// with float64 arithmetic on every device, for scalars that are values of
// the dtype, fractions, NaN, ±Inf and integers out of range: comparisons
// must be exact; arithmetic with a fraction, NaN or ±Inf computes in F32
// (PyTorch's rule for a Python float), Div always; an integer out of range
// wraps in Add and Mul as the dtype's arithmetic does.
func TestScalarOnIntegers(t *testing.T) {
	xs := []float64{-3, -1, 0, 1, 2, 200}
	scalars := []float64{2, -1, 0.5, -2.5, 1.5, 1e10, -1e10, 3e9, math.NaN(), math.Inf(1), math.Inf(-1)}
	type sop struct {
		name string
		f    func(*tensor.Tensor, float64) *tensor.Tensor
		ref  func(x, v float64) float64
		cmp  bool
	}
	ops := []sop{
		{"Lt", (*tensor.Tensor).LtScalar, func(x, v float64) float64 { return b2f(x < v) }, true},
		{"Le", (*tensor.Tensor).LeScalar, func(x, v float64) float64 { return b2f(x <= v) }, true},
		{"Gt", (*tensor.Tensor).GtScalar, func(x, v float64) float64 { return b2f(x > v) }, true},
		{"Ge", (*tensor.Tensor).GeScalar, func(x, v float64) float64 { return b2f(x >= v) }, true},
		{"Eq", (*tensor.Tensor).EqScalar, func(x, v float64) float64 { return b2f(x == v) }, true},
		{"Ne", (*tensor.Tensor).NeScalar, func(x, v float64) float64 { return b2f(x != v) }, true},
		{"And", (*tensor.Tensor).AndScalar, func(x, v float64) float64 { return b2f(x != 0 && v != 0) }, true},
		{"Add", (*tensor.Tensor).AddScalar, func(x, v float64) float64 { return x + v }, false},
		{"Mul", (*tensor.Tensor).MulScalar, func(x, v float64) float64 { return x * v }, false},
		{"Div", (*tensor.Tensor).DivScalar, func(x, v float64) float64 { return x / v }, false},
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.I32, dtype.U8} {
			vals := xs
			if dt == dtype.U8 {
				vals = []float64{0, 1, 2, 200, 255}
			}
			x := tensor.FromSlice(vals, len(vals)).Cast(dt).To(dev)
			for _, o := range ops {
				for _, v := range scalars {
					name := fmt.Sprintf("%s/%v/%s(%v)", dev.Name(), dt, o.name, v)
					integral := v == math.Trunc(v) && !math.IsInf(v, 0)
					inRange := integral && math.Abs(v) < 1e9 && (dt != dtype.U8 || (v >= 0 && v <= 255))
					if !o.cmp && inRange && o.name != "Div" {
						continue // integer arithmetic in the dtype: the conformance table's
					}
					wraps := !o.cmp && integral && o.name != "Div" // out of range: Add and Mul wrap
					got := o.f(x, v)
					if err := got.Err(); err != nil {
						t.Errorf("%s: %v", name, err)
						continue
					}
					wantDT := dtype.F32
					switch {
					case o.cmp:
						wantDT = dtype.Bool
					case wraps:
						wantDT = dt
					}
					if got.DType() != wantDT {
						t.Errorf("%s: dtype %v, want %v", name, got.DType(), wantDT)
						continue
					}
					g, _ := got.Float64s()
					for i, xv := range vals {
						w := o.ref(xv, v)
						switch {
						case wraps:
							w = wrapInt(dt, w)
						case !o.cmp:
							w = float64(float32(o.ref(xv, float64(float32(v)))))
						}
						if g[i] != w && !(math.IsNaN(g[i]) && math.IsNaN(w)) {
							t.Errorf("%s at x=%v: %v, want %v", name, xv, g[i], w)
						}
					}
				}
			}
		}
	}
}

// TestReductionErrorKinds: a reduction without identity over an empty
// extent is both ErrShape and ErrValue (NumPy raises ValueError), on every
// device, and the reductions with one (Sum, Prod, Mean, Var, LogSumExp,
// Any, All) give values instead.
func TestReductionErrorKinds(t *testing.T) {
	for _, dev := range testDevices(t) {
		x := tensor.Zeros(dtype.F32, 2, 0).To(dev)
		for name, r := range map[string]*tensor.Tensor{
			"Max": x.Max(1), "Min": x.MinKeepDims(-1), "ArgMax": x.ArgMax(-1), "ArgMin": x.ArgMin(1), "Norm(Inf)": x.Norm(math.Inf(1), 1),
		} {
			err := r.Err()
			if !errors.Is(err, tensor.ErrShape) || !errors.Is(err, tensor.ErrValue) {
				t.Errorf("%s %s: %v, want ErrShape and ErrValue", dev.Name(), name, err)
			}
		}
		for name, c := range map[string]struct {
			r    *tensor.Tensor
			want float64
		}{
			"Sum": {x.Sum(1), 0}, "Prod": {x.Prod(-1), 1}, "Mean": {x.Mean(1), math.NaN()},
			"Var": {x.Var(0, 1), math.NaN()}, "Std": {x.Std(1, 1), math.NaN()},
			"LogSumExp": {x.LogSumExp(1), math.Inf(-1)}, "Norm(2)": {x.Norm(2, 1), 0},
		} {
			got, err := c.r.Float64s()
			if err != nil {
				t.Errorf("%s %s: %v", dev.Name(), name, err)
				continue
			}
			if len(got) != 2 {
				t.Errorf("%s %s: %d values, want 2", dev.Name(), name, len(got))
				continue
			}
			for _, g := range got {
				if g != c.want && !(math.IsNaN(g) && math.IsNaN(c.want)) {
					t.Errorf("%s %s = %v, want %v", dev.Name(), name, got, c.want)
				}
			}
		}
	}
}

// TestLayerNormEmptyExtent: normalising over an empty extent gives an
// empty result, as PyTorch's layer_norm, not an error.
func TestLayerNormEmptyExtent(t *testing.T) {
	y := tensor.LayerNorm(tensor.Zeros(dtype.F32, 2, 0), []int{0}, nil, nil, 1e-5)
	if err := y.Err(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(y.Shape()) != "[2 0]" {
		t.Fatalf("shape %v, want [2 0]", y.Shape())
	}
}

// TestFloorDivGradIsZero: FloorDiv is piecewise constant, so both
// gradients are zero (PyTorch's floor_divide), of the operands' shapes.
func TestFloorDivGradIsZero(t *testing.T) {
	a := tensor.FromSlice([]float32{7, -7, 2.5}, 3).RequiresGrad()
	b := tensor.FromSlice([]float32{2}, 1).RequiresGrad()
	gs, err := tensor.Grads(a.FloorDiv(b).Sum(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range gs {
		v, err := g.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		if len(v) != []int{3, 1}[i] {
			t.Fatalf("gradient %d has %d values", i, len(v))
		}
		for _, x := range v {
			if x != 0 {
				t.Errorf("gradient %d = %v, want zeros", i, v)
			}
		}
	}
}

// ExamplePromoteTypes shows mixed-dtype arithmetic: operands are cast to
// the promoted dtype (an integer with a float computes in the float's
// dtype), integer division is true division, and a fraction scalar
// promotes an integer tensor as a Python float would in PyTorch.
func ExamplePromoteTypes() {
	i := tensor.FromSlice([]int32{1, 2, 7}, 3)
	f := tensor.FromSlice([]float32{0.5, 0.5, 0.5}, 3)
	fmt.Println(tensor.PromoteTypes(dtype.I32, dtype.F32), tensor.PromoteTypes(dtype.F16, dtype.BF16))
	fmt.Println(i.Add(f))
	fmt.Println(i.Div(tensor.FromSlice([]int32{2, 2, 2}, 3)))
	fmt.Println(i.FloorDivScalar(-2))
	fmt.Println(i.LtScalar(1.5))
	// Output:
	// f32 f32
	// tensor([1.5000, 2.5000, 7.5000], dtype=f32, device=cpu)
	// tensor([0.5000, 1.0000, 3.5000], dtype=f32, device=cpu)
	// tensor([-1, -1, -4], dtype=i32, device=cpu)
	// tensor([ true, false, false], dtype=bool, device=cpu)
}
