package tensor_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

func TestFormat(t *testing.T) {
	big := tensor.Arange(dtype.I64, 0, 2000, 1).Reshape(2, 1000)
	cases := []struct {
		name string
		x    *tensor.Tensor
		want string
	}{
		{"scalar", tensor.Scalar(float32(3.5)), "tensor(3.5000, dtype=f32, device=cpu)"},
		{"integral floats", tensor.FromSlice([]float64{1, -2, 30}), "tensor([ 1., -2., 30.], dtype=f64, device=cpu)"},
		{"empty", tensor.Zeros(dtype.F32, 2, 0), "tensor([], shape=[2, 0], dtype=f32, device=cpu)"},
		{"bool", tensor.FromSlice([]bool{true, false}), "tensor([ true, false], dtype=bool, device=cpu)"},
		{"specials", tensor.FromSlice([]float32{float32(math.NaN()), float32(math.Inf(-1)), 0.5}), "tensor([   nan,   -inf, 0.5000], dtype=f32, device=cpu)"},
		{"scientific", tensor.FromSlice([]float64{1e-6, 1, 1e9}), "tensor([1.0000e-06, 1.0000e+00, 1.0000e+09], dtype=f64, device=cpu)"},
		{"i64 exact", tensor.FromSlice([]int64{1<<62 + 1}), "tensor([4611686018427387905], dtype=i64, device=cpu)"},
		{"summarised", big, "tensor([[   0,    1,    2, ...,  997,  998,  999],\n        [1000, 1001, 1002, ..., 1997, 1998, 1999]], dtype=i64, device=cpu)"},
		{"summarised view", big.T(), "tensor([[   0, 1000],\n        [   1, 1001],\n        [   2, 1002],\n        ...,\n        [ 997, 1997],\n        [ 998, 1998],\n        [ 999, 1999]], dtype=i64, device=cpu)"},
		{"3-D", tensor.Arange(dtype.I32, 0, 8, 1).Reshape(2, 2, 2), "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]], dtype=i32, device=cpu)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.x.String(); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
	// A huge broadcast view prints without materialising it.
	huge := tensor.Ones(dtype.F32, 1).BroadcastTo(100000, 100000, 100)
	if s := huge.String(); !strings.Contains(s, "...") || len(s) > 2000 {
		t.Errorf("huge view printed as %q", s)
	}
	if got := fmt.Sprintf("%.2v", tensor.FromSlice([]float32{0.125, 1})); got != "tensor([0.12, 1.00], dtype=f32, device=cpu)" {
		t.Errorf("precision: %s", got)
	}
	if got := fmt.Sprintf("%#v", big); got != "tensor.Tensor{shape: [2 1000], strides: [1000 1], offset: 0, dtype: i64, device: cpu}" {
		t.Errorf("GoString: %s", got)
	}
}

// TestFormatOnDevices prints the same summarised view from every device.
func TestFormatOnDevices(t *testing.T) {
	x := tensor.Arange(dtype.I32, 0, 3000, 1).Reshape(30, 100).T().Narrow(0, 1, 98)
	want := strings.Replace(x.String(), "device=cpu", "device=%s", 1)
	for _, dev := range testDevices(t) {
		if got := x.To(dev).String(); got != fmt.Sprintf(want, dev.Name()) {
			t.Errorf("%s printed\n%s\nwant\n%s", dev.Name(), got, fmt.Sprintf(want, dev.Name()))
		}
	}
	if !strings.Contains(want, "...") || !strings.Contains(want, "[   1,  101,  201, ..., 2701, 2801, 2901]") {
		t.Errorf("unexpected summary:\n%s", want)
	}
}

// TestFormatHighRank prints metadata alone when even the summary of a
// tensor would be too large to show.
func TestFormatHighRank(t *testing.T) {
	x := tensor.Ones(dtype.F32, 1).BroadcastTo(10, 10, 10, 10, 10, 10, 10, 10)
	if got, want := x.String(), "tensor(..., shape=[10, 10, 10, 10, 10, 10, 10, 10], dtype=f32, device=cpu)"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
