package nn_test

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// bnRef is BatchNorm written out in float64 for x [n, c, s] (s values a
// sample and channel): the normalised output and the channel means and
// biased and unbiased variances of the batch.
func bnRef(x []float64, n, c, s int, mean, variance, w, b []float64, eps float64) (y, bm, bvB, bvU []float64) {
	bm, bvB, bvU = make([]float64, c), make([]float64, c), make([]float64, c)
	cnt := float64(n * s)
	for ch := range c {
		for i := range n {
			for k := range s {
				bm[ch] += x[(i*c+ch)*s+k] / cnt
			}
		}
		for i := range n {
			for k := range s {
				d := x[(i*c+ch)*s+k] - bm[ch]
				bvB[ch] += d * d / cnt
				bvU[ch] += d * d / (cnt - 1)
			}
		}
	}
	if mean == nil {
		mean, variance = bm, bvB
	}
	y = make([]float64, len(x))
	for i := range n {
		for ch := range c {
			for k := range s {
				j := (i*c+ch)*s + k
				y[j] = (x[j]-mean[ch])/math.Sqrt(variance[ch]+eps)*w[ch] + b[ch]
			}
		}
	}
	return y, bm, bvB, bvU
}

// TestBatchNormValues trains a BatchNorm2d for two steps and checks the
// outputs against the formula, the running statistics after each step
// (momentum 0.3, the unbiased variance), the count of batches, evaluation
// with the running statistics, and the modes without them.
func TestBatchNormValues(t *testing.T) {
	const n, c, h, w = 3, 2, 2, 3
	bn := nn.NewBatchNorm2d(c, nn.DType(dtype.F64), nn.Momentum(0.3), nn.Eps(1e-3))
	wt, wv := randn(t, 11, c)
	bt, bv := randn(t, 12, c)
	bn.Weight.Set(wt)
	bn.Bias.Set(bt)
	rm, rv := []float64{0, 0}, []float64{1, 1}
	for step := range 2 {
		x, xv := randn(t, uint64(20+step), n, c, h, w)
		y := vals(t, bn.Forward(x))
		want, bm, _, bvU := bnRef(xv, n, c, h*w, nil, nil, wv, bv, 1e-3)
		near(t, fmt.Sprintf("step %d output", step), y, want, 1e-12, 1e-12)
		for ch := range c {
			rm[ch] = 0.3*bm[ch] + 0.7*rm[ch]
			rv[ch] = 0.3*bvU[ch] + 0.7*rv[ch]
		}
		near(t, fmt.Sprintf("step %d running mean", step), vals(t, bn.RunningMean.Value), rm, 1e-12, 1e-12)
		near(t, fmt.Sprintf("step %d running var", step), vals(t, bn.RunningVar.Value), rv, 1e-12, 1e-12)
		near(t, fmt.Sprintf("step %d batches", step), vals(t, bn.BatchesTracked.Value), []float64{float64(step + 1)}, 0, 0)
	}
	if dt := bn.BatchesTracked.Value.DType(); dt != dtype.I64 {
		t.Errorf("num_batches_tracked is %v, want I64", dt)
	}

	// Evaluation: the running statistics, which stay as they are.
	nn.SetTraining(bn, false)
	kept := vals(t, bn.RunningMean.Value)
	x, xv := randn(t, 30, n, c, h, w)
	want, _, _, _ := bnRef(xv, n, c, h*w, rm, rv, wv, bv, 1e-3)
	near(t, "evaluation", vals(t, bn.Forward(x)), want, 1e-12, 1e-12)
	near(t, "running mean after evaluation", vals(t, bn.RunningMean.Value), kept, 0, 0)
	near(t, "batches after evaluation", vals(t, bn.BatchesTracked.Value), []float64{2}, 0, 0)

	// Without running statistics the batch's normalise in both modes.
	plain := nn.NewBatchNorm1d(c, nn.DType(dtype.F64), nn.NoRunningStats(), nn.NoAffine())
	if len(plain.Parameters()) != 0 || len(nn.Buffers(plain)) != 0 {
		t.Fatalf("NoAffine and NoRunningStats left %d parameters and %d buffers", len(plain.Parameters()), len(nn.Buffers(plain)))
	}
	nn.SetTraining(plain, false)
	x1, x1v := randn(t, 31, 5, c, 4)
	want, _, _, _ = bnRef(x1v, 5, c, 4, nil, nil, []float64{1, 1}, []float64{0, 0}, 1e-5)
	near(t, "evaluation without running statistics", vals(t, plain.Forward(x1)), want, 1e-12, 1e-12)

	// The cumulative average: batch k weighs 1/k, so after three batches
	// the running mean is the mean of the three batches' means.
	cum := nn.NewBatchNorm1d(c, nn.DType(dtype.F64), nn.CumulativeAverage())
	avg := make([]float64, c)
	for k := range 3 {
		xk, xkv := randn(t, uint64(40+k), 4, c)
		_ = vals(t, cum.Forward(xk))
		_, bm, _, _ := bnRef(xkv, 4, c, 1, nil, nil, []float64{1, 1}, []float64{0, 0}, 1e-5)
		for ch := range c {
			avg[ch] += bm[ch] / 3
		}
	}
	near(t, "cumulative running mean", vals(t, cum.RunningMean.Value), avg, 1e-12, 1e-12)
}

// TestBatchNormState checks that a Sequential names BatchNorm's buffers
// as PyTorch's state dict does, that Save and Load carry them, that To
// moves them, and that LoadStateDict wants every buffer.
func TestBatchNormState(t *testing.T) {
	m := nn.NewSequential(nn.NewLinear(3, 4, nn.Seed(1)), nn.NewBatchNorm1d(4), nn.ReLU{})
	var names []string
	for _, b := range nn.Buffers(m) {
		names = append(names, b.Name)
	}
	if want := []string{"1.running_mean", "1.running_var", "1.num_batches_tracked"}; !slices.Equal(names, want) {
		t.Fatalf("buffers %v, want %v", names, want)
	}
	sd := nn.StateDict(m)
	for _, k := range []string{"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var", "1.num_batches_tracked"} {
		if _, ok := sd[k]; !ok {
			t.Errorf("state dict has no %q", k)
		}
	}
	if nn.NumParams(m) != 3*4+4+4+4 {
		t.Errorf("NumParams %d counts the buffers", nn.NumParams(m))
	}

	x := tensor.RandN(dtype.F32, 2, 6, 3)
	_ = vals(t, m.Forward(x))
	_ = vals(t, m.Forward(x.MulScalar(2)))
	path := filepath.Join(t.TempDir(), "bn.safetensors")
	if err := nn.Save(m, path); err != nil {
		t.Fatal(err)
	}
	fresh := nn.NewSequential(nn.NewLinear(3, 4, nn.Seed(1)), nn.NewBatchNorm1d(4), nn.ReLU{})
	if err := nn.Load(fresh, path); err != nil {
		t.Fatal(err)
	}
	for i, b := range nn.Buffers(fresh) {
		near(t, "loaded "+b.Name, vals(t, b.Value), vals(t, nn.Buffers(m)[i].Value), 0, 0)
	}
	nn.SetTraining(m, false)
	nn.SetTraining(fresh, false)
	near(t, "evaluation after Load", vals(t, fresh.Forward(x)), vals(t, m.Forward(x)), 0, 0)

	delete(sd, "1.running_var")
	if err := nn.LoadStateDict(fresh, sd); !errors.Is(err, errs.ErrValue) || !strings.Contains(err.Error(), "running_var") {
		t.Errorf("LoadStateDict without a buffer: %v, want ErrValue naming it", err)
	}

	for _, dev := range testDevices(t) {
		if err := nn.To(m, dev); err != nil {
			t.Fatal(err)
		}
		for _, b := range nn.Buffers(m) {
			if b.Value.Device() != dev {
				t.Errorf("%s is on %s after To(%s)", b.Name, b.Value.Device().Name(), dev.Name())
			}
		}
	}
}

// TestBatchNormErrors checks the layer's typed errors: a constructor's
// bad argument surfaces at Forward, and a wrong input leaves the running
// statistics as they were.
func TestBatchNormErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		bn   *nn.BatchNorm
		x    *tensor.Tensor
		kind error
	}{
		{"zero features", nn.NewBatchNorm2d(0), tensor.Ones(dtype.F32, 2, 0, 1, 1), errs.ErrShape},
		{"negative eps", nn.NewBatchNorm1d(2, nn.Eps(-1), nn.NoAffine(), nn.NoRunningStats()), tensor.Ones(dtype.F32, 2, 2), errs.ErrValue},
		{"NaN momentum", nn.NewBatchNorm1d(2, nn.Momentum(math.NaN())), tensor.Ones(dtype.F32, 2, 2), errs.ErrValue},
		{"integer parameters", nn.NewBatchNorm1d(2, nn.DType(dtype.I32)), tensor.Ones(dtype.F32, 2, 2), errs.ErrDType},
		{"channels", nn.NewBatchNorm1d(3), tensor.Ones(dtype.F32, 2, 2), errs.ErrShape},
		{"rank of 1d", nn.NewBatchNorm1d(2), tensor.Ones(dtype.F32, 2, 2, 2, 2), errs.ErrShape},
		{"rank of 2d", nn.NewBatchNorm2d(2), tensor.Ones(dtype.F32, 2, 2, 2), errs.ErrShape},
		{"one value a channel", nn.NewBatchNorm1d(2), tensor.Ones(dtype.F32, 1, 2), errs.ErrValue},
		{"dtype", nn.NewBatchNorm1d(2), tensor.Ones(dtype.F64, 3, 2), errs.ErrDType},
		{"zero value", &nn.BatchNorm{}, tensor.Ones(dtype.F32, 3, 2), errs.ErrValue},
	} {
		var before []float64
		if c.bn.RunningMean != nil && c.bn.RunningMean.Value.Err() == nil {
			before = vals(t, c.bn.RunningMean.Value)
		}
		err := c.bn.Forward(c.x).Err()
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
		}
		if before != nil {
			near(t, c.name+": running mean", vals(t, c.bn.RunningMean.Value), before, 0, 0)
		}
	}
}

// TestGPUMatchesCPUBatchNorm runs a convolutional model with BatchNorm2d
// and BatchNorm1d forward and backward on the CPU and the software WebGPU
// device, then compares the running statistics each device kept.
func TestGPUMatchesCPUBatchNorm(t *testing.T) {
	dev := gpu(t)
	mk := func() *nn.Sequential {
		return nn.NewSequential(
			nn.NewConv2d(2, 4, [2]int{3, 3}, tensor.Conv2dOptions{Padding: [2]int{1, 1}}, nn.Seed(5)),
			nn.NewBatchNorm2d(4), nn.ReLU{}, nn.Flatten{},
			nn.NewLinear(4*6*6, 5, nn.Seed(7)), nn.NewBatchNorm1d(5, nn.Momentum(0.5)),
		)
	}
	x := tensor.RandN(dtype.F32, 8, 3, 2, 6, 6)
	labels := tensor.FromSlice([]int32{4, 0, 2}, 3)
	matchOnDevice(t, mk(), dev, x, labels)

	cpuM, devM := mk(), mk()
	if err := nn.To(devM, dev); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_ = vals(t, cpuM.Forward(x))
		_ = vals(t, devM.Forward(x.To(dev)))
	}
	for i, b := range nn.Buffers(devM) {
		near(t, b.Name+" on "+dev.Name(), vals(t, b.Value), vals(t, nn.Buffers(cpuM)[i].Value), 1e-4, 1e-5)
	}
}

// TestGroupNormLayer checks that nn.GroupNorm is tensor.GroupNorm with its
// parameters, the same in both modes, and reports bad arguments.
func TestGroupNormLayer(t *testing.T) {
	g := nn.NewGroupNorm(2, 4, nn.DType(dtype.F64))
	wt, _ := randn(t, 3, 4)
	bt, _ := randn(t, 4, 4)
	g.Weight.Set(wt)
	g.Bias.Set(bt)
	x, _ := randn(t, 5, 3, 4, 5)
	want := vals(t, tensor.GroupNorm(x, 2, wt, bt, 1e-5))
	near(t, "GroupNorm", vals(t, g.Forward(x)), want, 0, 0)
	if n := nn.NumParams(g); n != 8 {
		t.Errorf("NumParams %d", n)
	}
	for _, c := range []struct {
		name string
		m    nn.Module
		x    *tensor.Tensor
		kind error
	}{
		{"groups not dividing", nn.NewGroupNorm(3, 4), tensor.Ones(dtype.F32, 2, 4), errs.ErrValue},
		{"channels", nn.NewGroupNorm(2, 4), tensor.Ones(dtype.F32, 2, 6), errs.ErrShape},
	} {
		if err := c.m.Forward(c.x).Err(); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
		}
	}
}

// TestUpsampleLayer checks that nn.Upsample is tensor.Interpolate with its
// options, on the CPU and the GPU.
func TestUpsampleLayer(t *testing.T) {
	u := nn.Upsample{InterpolateOptions: tensor.InterpolateOptions{Scale: [2]float64{2, 2}, Mode: "bilinear"}}
	x, _ := randn(t, 6, 1, 2, 3, 3)
	x = x.Cast(dtype.F32)
	want := vals(t, tensor.Interpolate(x, u.InterpolateOptions))
	for _, dev := range testDevices(t) {
		near(t, "Upsample on "+dev.Name(), vals(t, u.Forward(x.To(dev))), want, 1e-6, 1e-6)
	}
	if len(u.Parameters()) != 0 {
		t.Error("Upsample has parameters")
	}
}
