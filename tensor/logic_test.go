package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestLogicSpecialValues runs the predicates, the logical operations and
// Any/All on NaN, infinities and signed zeros (which the golden files,
// holding no NaN, cannot carry) on every device and float dtype, against
// float64 definitions written here.
func TestLogicSpecialValues(t *testing.T) {
	nan, inf, nz := math.NaN(), math.Inf(1), math.Copysign(0, -1)
	xs := []float64{nan, inf, -inf, 0, nz, 1, -2.5}
	ys := []float64{0, nan, 1, nz, inf, 0, nz}
	truth := func(v float64) bool { return v != 0 } // NaN is nonzero
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16} {
			if !computes(dev, dt) {
				continue
			}
			x := tensor.FromSlice(xs).Cast(dt).To(dev)
			y := tensor.FromSlice(ys).Cast(dt).To(dev)
			cases := []struct {
				name string
				got  *tensor.Tensor
				f    func(a, b float64) bool
			}{
				{"IsNaN", x.IsNaN(), func(a, _ float64) bool { return math.IsNaN(a) }},
				{"IsInf", x.IsInf(), func(a, _ float64) bool { return math.IsInf(a, 0) }},
				{"IsFinite", x.IsFinite(), func(a, _ float64) bool { return !math.IsNaN(a) && !math.IsInf(a, 0) }},
				{"Not", x.Not(), func(a, _ float64) bool { return !truth(a) }},
				{"And", x.And(y), func(a, b float64) bool { return truth(a) && truth(b) }},
				{"Or", x.Or(y), func(a, b float64) bool { return truth(a) || truth(b) }},
				{"Xor", x.Xor(y), func(a, b float64) bool { return truth(a) != truth(b) }},
				{"And(transposed)", x.Reshape(7, 1).T().And(y.Reshape(1, 7)).Reshape(7), func(a, b float64) bool { return truth(a) && truth(b) }},
			}
			for _, c := range cases {
				got, err := tensor.ToSlice[bool](c.got.To(device.CPU()))
				if err != nil {
					t.Fatalf("%s %v %s: %v", dev.Name(), dt, c.name, err)
				}
				if c.got.DType() != dtype.Bool {
					t.Errorf("%s %v %s: dtype %v, want bool", dev.Name(), dt, c.name, c.got.DType())
				}
				for i := range xs {
					if want := c.f(xs[i], ys[i]); got[i] != want {
						t.Errorf("%s %v %s(%v, %v) = %v, want %v", dev.Name(), dt, c.name, xs[i], ys[i], got[i], want)
					}
				}
			}
			// Any/All of numbers: NaN counts as true, -0 as false.
			for _, c := range []struct {
				name string
				got  *tensor.Tensor
				want bool
			}{
				{"Any(NaN, 0)", tensor.FromSlice([]float64{nan, 0}).Cast(dt).To(dev).Any(), true},
				{"All(NaN, 1)", tensor.FromSlice([]float64{nan, 1}).Cast(dt).To(dev).All(), true},
				{"Any(-0, 0)", tensor.FromSlice([]float64{nz, 0}).Cast(dt).To(dev).Any(), false},
				{"All(inf, -0)", tensor.FromSlice([]float64{inf, nz}).Cast(dt).To(dev).All(), false},
			} {
				v, err := tensor.ToSlice[bool](c.got.To(device.CPU()))
				if err != nil || len(v) != 1 || v[0] != c.want {
					t.Errorf("%s %v %s = %v, %v; want %v", dev.Name(), dt, c.name, v, err, c.want)
				}
			}
		}
	}
}

// TestAnyAll checks the reductions over axes, KeepDims, empty extents (Any
// false, All true, as NumPy) and integer inputs, against loops written here.
func TestAnyAll(t *testing.T) {
	vals := []float64{0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 3, 0}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.Bool, dtype.I32, dtype.U8, dtype.F32} {
			x := tensor.FromSlice(vals, 2, 3, 4).Cast(dt).To(dev)
			for _, axes := range [][]int{nil, {0}, {1}, {2}, {-1}, {0, 2}} {
				for _, all := range []bool{false, true} {
					got := x.Any(axes...)
					if all {
						got = x.All(axes...)
					}
					want := anyAllRef(vals, []int{2, 3, 4}, axes, all)
					name := fmt.Sprintf("%s %v all=%v axes %v", dev.Name(), dt, all, axes)
					g, err := got.Float64s()
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if got.DType() != dtype.Bool || !slices.Equal(g, want) {
						t.Errorf("%s = %v (%v), want %v", name, g, got.DType(), want)
					}
				}
			}
			if s := x.AnyKeepDims(1).Shape(); !slices.Equal(s, []int{2, 1, 4}) {
				t.Errorf("%s AnyKeepDims(1) shape %v", dev.Name(), s)
			}
			if s := x.AllKeepDims().Shape(); !slices.Equal(s, []int{1, 1, 1}) {
				t.Errorf("%s AllKeepDims() shape %v", dev.Name(), s)
			}
		}
		empty := tensor.Zeros(dtype.Bool, 3, 0).To(dev)
		for _, c := range []struct {
			got  *tensor.Tensor
			want []float64
		}{{empty.Any(1), []float64{0, 0, 0}}, {empty.All(1), []float64{1, 1, 1}}, {empty.Any(), []float64{0}}, {empty.All(), []float64{1}}} {
			g, err := c.got.Float64s()
			if err != nil || !slices.Equal(g, c.want) {
				t.Errorf("%s empty Any/All = %v, %v; want %v", dev.Name(), g, err, c.want)
			}
		}
	}
}

// TestAnyAllLongRows checks Any and All over rows long enough for the CPU's
// word-at-a-time scan (256 bytes a block) and the other devices' loops,
// with one deciding element at the start, in the middle, at the end of a
// block, just past it and last, and with none, for Bool and U8 (whose
// nonzero bytes other than 1 are true too).
func TestAnyAllLongRows(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, n := range []int{255, 256, 257, 1000, 4096} {
			for _, all := range []bool{false, true} {
				for _, at := range []int{-1, 0, 7, 255, 256, n / 2, n - 1} {
					if at >= n {
						continue
					}
					// Any: all zeros but one element; All: all ones but one.
					vals := make([]float64, 3*n)
					for i := range vals {
						if all {
							vals[i] = float64(1 + i%3) // 1, 2, 3: all true
						}
					}
					if at >= 0 {
						vals[n+at] = 0 // row 1 only
						if !all {
							vals[n+at] = 2
						}
					}
					for _, dt := range []dtype.DType{dtype.Bool, dtype.U8} {
						x := tensor.FromSlice(vals, 3, n).Cast(dt).To(dev)
						name := fmt.Sprintf("%s %v n=%d all=%v at=%d", dev.Name(), dt, n, all, at)
						for _, axes := range [][]int{nil, {1}} {
							got := x.Any(axes...)
							if all {
								got = x.All(axes...)
							}
							want := anyAllRef(vals, []int{3, n}, axes, all)
							g, err := got.Float64s()
							if err != nil || !slices.Equal(g, want) {
								t.Errorf("%s axes %v = %v, %v; want %v", name, axes, g, err, want)
							}
						}
					}
				}
			}
		}
	}
}

func anyAllRef(vals []float64, shape, axes []int, all bool) []float64 {
	red := make([]bool, len(shape))
	if len(axes) == 0 {
		for i := range red {
			red[i] = true
		}
	}
	for _, a := range axes {
		red[(a+len(shape))%len(shape)] = true
	}
	var outShape []int
	for i, d := range shape {
		if !red[i] {
			outShape = append(outShape, d)
		}
	}
	n := 1
	for _, d := range outShape {
		n *= d
	}
	out := make([]float64, n)
	if all {
		for i := range out {
			out[i] = 1
		}
	}
	for i, v := range vals {
		idx := unravel(i, shape)
		var kept []int
		for k, x := range idx {
			if !red[k] {
				kept = append(kept, x)
			}
		}
		o := ravel(kept, outShape)
		if all && v == 0 {
			out[o] = 0
		}
		if !all && v != 0 {
			out[o] = 1
		}
	}
	return out
}

// TestIntPowAndRemainders pins integer Pow (exact, wrapping) and its typed
// error for negative exponents, and the integer remainders by zero (0, as
// NumPy), on every device.
func TestIntPowAndRemainders(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.I32, dtype.I64, dtype.U8} {
			if !computes(dev, dt) {
				continue
			}
			a := tensor.FromSlice([]float64{2, 3, 0, 1, 5, 7}).Cast(dt).To(dev)
			b := tensor.FromSlice([]float64{10, 4, 0, 9, 3, 2}).Cast(dt).To(dev)
			want := []float64{1024, 81, 1, 1, 125, 49}
			if dt == dtype.U8 {
				want = []float64{0, 81, 1, 1, 125, 49} // 1024 wraps to 0
			}
			g, err := a.Pow(b).Float64s()
			if err != nil || !slices.Equal(g, want) {
				t.Errorf("%s %v Pow = %v, %v; want %v", dev.Name(), dt, g, err, want)
			}
			w := []float64{8, 27, 0, 1, 125, 343}
			if dt == dtype.U8 {
				w[5] = 343 % 256
			}
			g, err = a.PowScalar(3).Float64s()
			if err != nil || !slices.Equal(g, w) {
				t.Errorf("%s %v PowScalar(3) = %v, %v; want %v", dev.Name(), dt, g, err, w)
			}
			z := tensor.FromSlice([]float64{0, 3, 0, 1, 0, 2}).Cast(dt).To(dev)
			for _, c := range []struct {
				name string
				got  *tensor.Tensor
				want []float64
			}{
				{"Mod", b.Mod(z), []float64{0, 1, 0, 0, 0, 0}},
				{"Fmod", b.Fmod(z), []float64{0, 1, 0, 0, 0, 0}},
				{"Remainder", b.RemainderScalar(3), []float64{1, 1, 0, 0, 0, 2}},
			} {
				g, err := c.got.Float64s()
				if err != nil || !slices.Equal(g, c.want) {
					t.Errorf("%s %v %s = %v, %v; want %v", dev.Name(), dt, c.name, g, err, c.want)
				}
			}
			if dt == dtype.U8 {
				continue
			}
			neg := tensor.FromSlice([]float64{1, -1, 2}).Cast(dt).To(dev)
			for _, got := range []*tensor.Tensor{a.Narrow(0, 0, 3).Pow(neg), a.PowScalar(-2)} {
				if err := got.Err(); !errors.Is(err, tensor.ErrValue) {
					t.Errorf("%s %v Pow with a negative integer exponent: %v, want ErrValue", dev.Name(), dt, err)
				}
			}
			// Negative operands: floored (Mod) vs truncated (Fmod).
			n := tensor.FromSlice([]float64{-7, 7, -7, 7}).Cast(dt).To(dev)
			d := tensor.FromSlice([]float64{3, -3, -3, 3}).Cast(dt).To(dev)
			for _, c := range []struct {
				name string
				got  *tensor.Tensor
				want []float64
			}{{"Mod", n.Mod(d), []float64{2, -2, -1, 1}}, {"Fmod", n.Fmod(d), []float64{-1, 1, -1, 1}}} {
				g, err := c.got.Float64s()
				if err != nil || !slices.Equal(g, c.want) {
					t.Errorf("%s %v %s = %v, %v; want %v", dev.Name(), dt, c.name, g, err, c.want)
				}
			}
		}
	}
}

// TestVocabBadInput: wrong dtypes and axes are typed errors naming the op.
func TestVocabBadInput(t *testing.T) {
	f := tensor.Ones(dtype.F32, 2, 3)
	i := tensor.Ones(dtype.I32, 2, 3)
	b := tensor.Ones(dtype.Bool, 2, 3)
	for _, c := range []struct {
		name string
		got  *tensor.Tensor
		kind error
	}{
		{"Sub bool bool", b.Sub(b), tensor.ErrDType},
		{"Elu int", i.Elu(1), tensor.ErrDType},
		{"LeakyRelu int", i.LeakyRelu(0.1), tensor.ErrDType},
		{"Elu bool", b.Elu(1), tensor.ErrDType},
		{"Mod bool", b.Mod(b), tensor.ErrDType},
		{"Neg bool", b.Neg(), tensor.ErrDType},
		{"Pow bool", b.Pow(b), tensor.ErrDType},
		{"Any axis", f.Any(2), tensor.ErrAxis},
		{"All repeated axis", f.All(0, 0), tensor.ErrAxis},
		{"Xor shapes", f.Xor(tensor.Ones(dtype.F32, 4)), tensor.ErrShape},
		{"Any released", released().Any(), tensor.ErrReleased},
	} {
		if err := c.got.Err(); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
		}
	}
}

func released() *tensor.Tensor {
	x := tensor.Ones(dtype.F32, 2)
	x.Release()
	return x
}

// ExampleTensor_Mod shows the two remainders: Mod (floored, NumPy's mod
// and PyTorch's remainder) takes the divisor's sign, Fmod (truncated, C's
// fmod) the dividend's.
func ExampleTensor_Mod() {
	x := tensor.FromSlice([]float32{-7, 7, -7, 7})
	y := tensor.FromSlice([]float32{3, -3, -3, 3})
	fmt.Println(tensor.ToSlice[float32](x.Mod(y)))
	fmt.Println(tensor.ToSlice[float32](x.Fmod(y)))
	// Output:
	// [2 -2 -1 1] <nil>
	// [-1 1 -1 1] <nil>
}
