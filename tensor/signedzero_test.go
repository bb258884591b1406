package tensor_test

import (
	"math"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestSignedZeroResults pins the sign of zero results, which tolerance
// comparisons cannot see, on every device and float dtype, for contiguous
// operands (the vector kernels) and transposed ones (the strided loops):
// Relu(-0) is +0 (max(x, 0)), Gelu(-Inf) and Gelu of very negative x are
// -0 (the limit from below), Tanh(-0) is -0.
func TestSignedZeroResults(t *testing.T) {
	negZero := math.Copysign(0, -1)
	cases := []struct {
		name string
		f    func(*tensor.Tensor) *tensor.Tensor
		x    float64
		want float64
	}{
		{"Relu", (*tensor.Tensor).Relu, negZero, 0},
		{"Relu", (*tensor.Tensor).Relu, -3, 0},
		{"Gelu", (*tensor.Tensor).Gelu, math.Inf(-1), negZero},
		{"GeluTanh", (*tensor.Tensor).GeluTanh, math.Inf(-1), negZero},
		{"Gelu", (*tensor.Tensor).Gelu, -1000, negZero},
		{"GeluTanh", (*tensor.Tensor).GeluTanh, -1000, negZero},
		{"Tanh", (*tensor.Tensor).Tanh, negZero, negZero},
		{"Neg", (*tensor.Tensor).Neg, 0, negZero},
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16} {
			if !computes(dev, dt) {
				continue
			}
			for _, c := range cases {
				// A 2x2 block of x, read contiguous and transposed.
				base := tensor.Full(dtype.F64, c.x, 2, 2).Cast(dt).To(dev)
				for _, view := range []struct {
					name string
					x    *tensor.Tensor
				}{{"contiguous", base}, {"transposed", base.T()}} {
					got, err := tensor.ToSlice[float64](c.f(view.x).To(device.CPU()).Cast(dtype.F64))
					if err != nil {
						t.Fatalf("%s %s %s(%v) %s: %v", dev.Name(), dt, c.name, c.x, view.name, err)
					}
					for i, g := range got {
						if g != c.want || math.Signbit(g) != math.Signbit(c.want) {
							t.Errorf("%s %s %s(%v) %s [%d] = %v (sign bit %v), want %v (sign bit %v)",
								dev.Name(), dt, c.name, c.x, view.name, i, g, math.Signbit(g), c.want, math.Signbit(c.want))
						}
					}
				}
			}
		}
	}
}

// TestSoftmaxInfinities pins softmax's special rows on every device, as
// PyTorch defines them: a +Inf or NaN in a row makes the whole row NaN; a
// row of -Inf but one finite entry puts all the mass there.
func TestSoftmaxInfinities(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	rows := []struct {
		in, soft, logsoft []float64
	}{
		{[]float64{inf, 1, 2}, []float64{nan, nan, nan}, []float64{nan, nan, nan}},
		{[]float64{inf, inf, 0}, []float64{nan, nan, nan}, []float64{nan, nan, nan}},
		{[]float64{nan, 1, 2}, []float64{nan, nan, nan}, []float64{nan, nan, nan}},
		{[]float64{-inf, 3, -inf}, []float64{0, 1, 0}, []float64{-inf, 0, -inf}},
	}
	for _, dev := range testDevices(t) {
		for _, r := range rows {
			x := tensor.FromSlice(r.in).Cast(dtype.F32).To(dev)
			for _, c := range []struct {
				name string
				got  *tensor.Tensor
				want []float64
			}{{"Softmax", x.Softmax(0), r.soft}, {"LogSoftmax", x.LogSoftmax(0), r.logsoft}} {
				got, err := tensor.ToSlice[float32](c.got)
				if err != nil {
					t.Fatalf("%s %s(%v): %v", dev.Name(), c.name, r.in, err)
				}
				for i, g := range got {
					w := c.want[i]
					if !(math.IsNaN(w) && math.IsNaN(float64(g))) && float64(g) != w {
						t.Errorf("%s %s(%v) = %v, want %v", dev.Name(), c.name, r.in, got, c.want)
						break
					}
				}
			}
		}
	}
}
