package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// bnConst is a [3] constant of x's dtype and device: running statistics
// that the finite differences must not vary.
func bnConst(x *tensor.Tensor, v ...float64) *tensor.Tensor {
	return tensor.FromSlice(v, len(v)).Cast(x.DType()).To(x.Device())
}

// TestGradBatchNorm checks BatchNorm's gradients against finite
// differences: in training mode through the batch statistics, with and
// without weight and bias, on 2-D, 3-D and 4-D inputs and a transposed
// view; in evaluation mode through weight and bias with the running
// statistics held constant.
func TestGradBatchNorm(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "BatchNorm/train-4d-affine", in: []gcIn{gstd(2, 3, 2, 2), gstd(3), gstd(3)},
			f: func(x gcTs) *tensor.Tensor {
				y, _, _ := tensor.BatchNorm(x[0], nil, nil, x[1], x[2], true, 0.1, 1e-5)
				return y
			}},
		{name: "BatchNorm/train-2d-plain", in: []gcIn{gstd(5, 3)},
			f: func(x gcTs) *tensor.Tensor {
				y, _, _ := tensor.BatchNorm(x[0], nil, nil, nil, nil, true, 0.1, 1e-5)
				return y
			}},
		{name: "BatchNorm/train-3d-running-transposed", in: []gcIn{gstd(2, 4, 3), gstd(3)},
			f: func(x gcTs) *tensor.Tensor {
				rm, rv := bnConst(x[0], 0.5, -1, 2), bnConst(x[0], 1, 4, 0.25)
				y, _, _ := tensor.BatchNorm(x[0].Transpose(1, 2), rm, rv, x[1], nil, true, 0.1, 0.5)
				return y
			}},
		{name: "BatchNorm/eval-4d", in: []gcIn{gstd(2, 3, 2, 1), gstd(3), gstd(3)},
			f: func(x gcTs) *tensor.Tensor {
				rm, rv := bnConst(x[0], 0.5, -1, 2), bnConst(x[0], 1, 4, 0.25)
				y, _, _ := tensor.BatchNorm(x[0], rm, rv, x[1], x[2], false, 0.1, 1e-5)
				return y
			}},
	})
}

// TestBatchNormRunningStats checks the running statistics' contract: the
// given tensors are not changed, the returned ones are detached and keep
// their own dtype, evaluation returns them as given, and a training loop
// that feeds each step's statistics to the next matches the closed form.
func TestBatchNormRunningStats(t *testing.T) {
	for _, dev := range testDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 7, -1, 0}, 4, 2).To(dev).RequiresGrad()
			rm := tensor.FromSlice([]float32{0, 1}, 2).To(dev)
			rv := tensor.FromSlice([]float32{1, 1}, 2).To(dev)
			_, m, v := tensor.BatchNorm(x, rm, rv, nil, nil, true, 0.25, 1e-5)
			// channel 0: 1, 3, 5, -1 (mean 2, squares 20, unbiased 20/3);
			// channel 1: 2, 4, 7, 0 (mean 3.25, squares 26.75, unbiased 26.75/3)
			checkClose(t, "mean", m, []float64{0.25 * 2, 0.25*3.25 + 0.75}, 1e-6)
			checkClose(t, "var", v, []float64{0.25*20/3 + 0.75, 0.25*26.75/3 + 0.75}, 1e-6)
			checkClose(t, "running mean as given", rm, []float64{0, 1}, 0)
			checkClose(t, "running var as given", rv, []float64{1, 1}, 0)
			for _, st := range []*tensor.Tensor{m, v} {
				if err := st.Sum().Backward(); !errors.Is(err, errs.ErrValue) {
					t.Errorf("Backward through an updated statistic: %v, want ErrValue (no graph)", err)
				}
			}
			_, em, ev := tensor.BatchNorm(x, m, v, nil, nil, false, 0.25, 1e-5)
			if em != m || ev != v {
				t.Errorf("evaluation returned new statistics")
			}
			// Float64 statistics for a float32 input stay float64.
			_, m64, _ := tensor.BatchNorm(x, rm.Cast(dtype.F64), rv.Cast(dtype.F64), nil, nil, true, 0.25, 1e-5)
			if dev.Name() == "cpu" && m64.DType() != dtype.F64 {
				t.Errorf("float64 statistics came back %v", m64.DType())
			}
			// Forty steps of the same batch: running = mean + (r0 - mean)*(1-m)^k.
			m, v = rm, rv
			for range 40 {
				_, m, v = tensor.BatchNorm(x.Detach(), m, v, nil, nil, true, 0.25, 1e-5)
			}
			k := math.Pow(0.75, 40)
			checkClose(t, "mean after 40 steps", m, []float64{2 + (0-2)*k, 3.25 + (1-3.25)*k}, 1e-5)
			checkClose(t, "var after 40 steps", v, []float64{20.0/3 + (1-20.0/3)*k, 26.75/3 + (1-26.75/3)*k}, 1e-5)
		})
	}
}

// TestBatchNormErrors checks that a failed BatchNorm reports one typed
// error in all three results when statistics were given, and leaves mean
// and variance nil when not.
func TestBatchNormErrors(t *testing.T) {
	x := tensor.Ones(dtype.F32, 2, 3)
	rm, rv := tensor.Zeros(dtype.F32, 3), tensor.Ones(dtype.F32, 3)
	for _, c := range []struct {
		name       string
		x, rm, rv  *tensor.Tensor
		w          *tensor.Tensor
		train      bool
		mom, eps   float64
		kind       error
		statsNil   bool
		wantInText string
	}{
		{name: "only a mean", x: x, rm: rm, train: true, mom: 0.1, kind: errs.ErrValue, wantInText: "both or neither"},
		{name: "integer stats", x: x, rm: rm.Cast(dtype.I32), rv: rv, train: true, mom: 0.1, kind: errs.ErrDType, wantInText: "running mean"},
		{name: "inf momentum", x: x, rm: rm, rv: rv, train: true, mom: math.Inf(1), kind: errs.ErrValue, wantInText: "momentum"},
		{name: "eval without stats", x: x, kind: errs.ErrValue, statsNil: true, wantInText: "evaluation"},
		{name: "weight shape", x: x, w: tensor.Ones(dtype.F32, 2), train: true, kind: errs.ErrShape, statsNil: true, wantInText: "weight has shape [2]"},
		{name: "failed input", x: tensor.Failed(errs.New("test", "x", errs.ErrReleased, "gone")), rm: rm, rv: rv, train: true, kind: errs.ErrReleased},
		{name: "zero-d input", x: tensor.Scalar(float32(1)), train: true, kind: errs.ErrShape, statsNil: true},
	} {
		y, m, v := tensor.BatchNorm(c.x, c.rm, c.rv, c.w, nil, c.train, c.mom, 1e-5)
		err := y.Err()
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
			continue
		}
		if !strings.Contains(fmt.Sprint(err), c.wantInText) {
			t.Errorf("%s: %q does not mention %q", c.name, err, c.wantInText)
		}
		if c.statsNil != (m == nil && v == nil) {
			t.Errorf("%s: statistics %v, %v", c.name, m, v)
		}
		if !c.statsNil && (!errors.Is(m.Err(), c.kind) || !errors.Is(v.Err(), c.kind)) {
			t.Errorf("%s: statistics errors %v, %v", c.name, m.Err(), v.Err())
		}
	}
}

// ExampleBatchNorm normalises a batch of two-channel samples in training
// mode, then a new sample with the running statistics training left.
func ExampleBatchNorm() {
	x := tensor.FromSlice([]float32{1, 10, 3, 30}, 2, 2) // two samples, two channels
	rm, rv := tensor.Zeros(dtype.F32, 2), tensor.Ones(dtype.F32, 2)
	y, rm, rv := tensor.BatchNorm(x, rm, rv, nil, nil, true, 0.5, 0)
	fmt.Println(y)
	fmt.Println(rm, rv)
	z, _, _ := tensor.BatchNorm(tensor.FromSlice([]float32{2, 20}, 1, 2), rm, rv, nil, nil, false, 0.5, 0)
	fmt.Println(z)
	// Output:
	// tensor([[-1., -1.],
	//         [ 1.,  1.]], dtype=f32, device=cpu)
	// tensor([ 1., 10.], dtype=f32, device=cpu) tensor([  1.5000, 100.5000], dtype=f32, device=cpu)
	// tensor([[0.8165, 0.9975]], dtype=f32, device=cpu)
}

// TestGradGroupNorm checks GroupNorm's gradients against finite
// differences, with two groups and with one channel a group.
func TestGradGroupNorm(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "GroupNorm/two-groups-affine", in: []gcIn{gstd(2, 4, 3), gstd(4), gstd(4)},
			f: func(x gcTs) *tensor.Tensor { return tensor.GroupNorm(x[0], 2, x[1], x[2], 1e-5) }},
		{name: "GroupNorm/instance", in: []gcIn{gstd(2, 3, 2, 2)},
			f: func(x gcTs) *tensor.Tensor { return tensor.GroupNorm(x[0], 3, nil, nil, 1e-3) }},
	})
}
