package nn_test

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// stepGrads runs one forward and backward pass of m on (x, labels) on the
// model's device, returning the loss and every parameter's gradient, read
// back to the host.
func stepGrads(t *testing.T, m nn.Module, x, labels *tensor.Tensor) (float64, [][]float64) {
	t.Helper()
	for _, p := range m.Parameters() {
		p.ZeroGrad()
	}
	loss := nn.CrossEntropy(m.Forward(x), labels)
	l, err := loss.Item()
	if err != nil {
		t.Fatal(err)
	}
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	var gs [][]float64
	for _, p := range m.Parameters() {
		if p.Grad() == nil {
			t.Fatalf("%s got no gradient", p.Name)
		}
		gs = append(gs, vals(t, p.Grad()))
	}
	return l, gs
}

// matchOnDevice runs m (on the CPU) forward and backward on (x, labels),
// moves it to dev, runs it there on the same data, and checks that the
// outputs, the loss and every gradient agree.
func matchOnDevice(t *testing.T, m nn.Module, dev device.Device, x, labels *tensor.Tensor) {
	t.Helper()
	outCPU := vals(t, m.Forward(x))
	lossCPU, gradsCPU := stepGrads(t, m, x, labels)
	if err := nn.To(m, dev); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Parameters() {
		if p.Value.Device() != dev {
			t.Fatalf("%s is on %s after To", p.Name, p.Value.Device().Name())
		}
	}
	xg, lg := x.To(dev), labels.To(dev)
	near(t, "forward on "+dev.Name(), vals(t, m.Forward(xg)), outCPU, 1e-4, 1e-5)
	lossGPU, gradsGPU := stepGrads(t, m, xg, lg)
	near(t, "loss on "+dev.Name(), []float64{lossGPU}, []float64{lossCPU}, 1e-5, 1e-6)
	for i, p := range m.Parameters() {
		near(t, "gradient of "+p.Name+" on "+dev.Name(), gradsGPU[i], gradsCPU[i], 1e-3, 1e-5)
	}
}

// TestGPUMatchesCPU runs the same model forward and backward on the CPU
// and on the software WebGPU device, in f32.
func TestGPUMatchesCPU(t *testing.T) {
	dev := gpu(t)
	m := nn.NewSequential(
		nn.NewConv2d(2, 4, [2]int{3, 3}, tensor.Conv2dOptions{Padding: [2]int{1, 1}}, nn.Seed(1)),
		nn.ReLU{}, nn.MaxPool2d{Kernel: [2]int{2, 2}},
		nn.NewConv2d(4, 4, [2]int{3, 3}, tensor.Conv2dOptions{Padding: [2]int{1, 1}, Groups: 2}, nn.Seed(2)),
		nn.Tanh{}, nn.AvgPool2d{Kernel: [2]int{2, 2}}, nn.Flatten{},
		nn.NewLinear(16, 12, nn.Seed(3)), nn.NewLayerNorm([]int{12}), nn.GELU{},
		nn.NewLinear(12, 5, nn.Seed(4)), nn.Sigmoid{},
	)
	x := tensor.RandN(dtype.F32, 5, 3, 2, 8, 8)
	labels := tensor.FromSlice([]int32{4, 0, 2}, 3)
	matchOnDevice(t, m, dev, x, labels)

	// The state of a model on the device saves and loads as on the CPU.
	path := filepath.Join(t.TempDir(), "gpu.safetensors")
	if err := nn.Save(m, path); err != nil {
		t.Fatal(err)
	}
	back := nn.StateDict(m)
	for _, p := range m.Parameters() {
		p.Set(p.Value.MulScalar(0))
	}
	if err := nn.Load(m, path); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Parameters() {
		if p.Value.Device() != dev {
			t.Fatalf("%s loaded onto %s", p.Name, p.Value.Device().Name())
		}
		near(t, "loaded "+p.Name, vals(t, p.Value), vals(t, back[p.Name]), 0, 0)
	}

	// Embedding and MSE on the device.
	e := nn.NewEmbedding(6, 4, nn.Seed(9))
	idx := tensor.FromSlice([]int32{5, 1, 1, 0}, 4)
	target := tensor.RandN(dtype.F32, 10, 4, 4)
	lossOf := func() (float64, []float64) {
		e.Weight.ZeroGrad()
		loss := nn.MSE(e.Forward(idx.To(e.Weight.Value.Device())), target.To(e.Weight.Value.Device()))
		l, err := loss.Item()
		if err != nil {
			t.Fatal(err)
		}
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		return l, vals(t, e.Weight.Grad())
	}
	lc, gc := lossOf()
	if err := nn.To(e, dev); err != nil {
		t.Fatal(err)
	}
	lgpu, ggpu := lossOf()
	near(t, "MSE of Embedding on "+dev.Name(), []float64{lgpu}, []float64{lc}, 1e-5, 1e-6)
	near(t, "Embedding gradient on "+dev.Name(), ggpu, gc, 1e-5, 1e-6)

	// Dropout draws its mask on the host and applies it on the device.
	d := nn.NewDropout(0.5, 3)
	ones := tensor.Ones(dtype.F32, 64).To(dev)
	for _, v := range vals(t, d.Forward(ones)) {
		if v != 0 && v != 2 {
			t.Fatalf("Dropout on %s produced %v", dev.Name(), v)
		}
	}

	// An out-of-range label is not read back from the GPU: it makes the loss NaN.
	bad := nn.CrossEntropy(tensor.Zeros(dtype.F32, 2, 3).To(dev), tensor.FromSlice([]int32{1, 3}, 2).To(dev))
	if v, err := bad.Item(); err != nil || !math.IsNaN(v) {
		t.Errorf("out-of-range label on %s: loss %v, %v; want NaN", dev.Name(), v, err)
	}
}

// TestToRoundTrip moves a model to every device and back: the values are
// unchanged, and a dtype a device cannot hold leaves the model in place.
func TestToRoundTrip(t *testing.T) {
	for _, dev := range testDevices(t) {
		m := nn.NewSequential(nn.NewLinear(3, 4, nn.Seed(1)), nn.ReLU{}, nn.NewLayerNorm([]int{4}))
		before := nn.StateDict(m)
		if err := nn.To(m, dev); err != nil {
			t.Fatal(err)
		}
		if err := nn.To(m, device.CPU()); err != nil {
			t.Fatal(err)
		}
		for k, v := range nn.StateDict(m) {
			if v.Device() != device.CPU() {
				t.Fatalf("%s on %s", k, v.Device().Name())
			}
			near(t, k+" through "+dev.Name(), vals(t, v), vals(t, before[k]), 0, 0)
		}
	}
	dev := gpu(t)
	m := nn.NewLinear(2, 2, nn.DType(dtype.F64))
	err := nn.To(m, dev)
	if !errors.Is(err, tensor.ErrDType) && !errors.Is(err, tensor.ErrUnsupported) {
		t.Fatalf("moving f64 to %s: %v, want a dtype error", dev.Name(), err)
	}
	if m.Weight.Value.Device() != device.CPU() || m.Bias.Value.Device() != device.CPU() {
		t.Error("a failed To moved some parameters")
	}
}

// TestGPUMatchesCPUPools runs a model through every pooling layer and
// option (ceil mode, exclude-pad, adaptive windows that overlap and that
// upsample, the 1-D pools) forward and backward on the CPU and on the
// software WebGPU device, in f32: the pools are built from the backends'
// common operations, so the two must agree.
func TestGPUMatchesCPUPools(t *testing.T) {
	dev := gpu(t)
	m := nn.NewSequential(
		nn.NewConv2d(2, 4, [2]int{3, 3}, tensor.Conv2dOptions{Padding: [2]int{1, 1}}, nn.Seed(5)),
		nn.ReLU{},
		nn.MaxPool2d{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, CeilMode: true}, // 10x10 -> 6x6
		nn.NewConv2d(4, 4, [2]int{3, 3}, tensor.Conv2dOptions{}, nn.Seed(6)),                            // -> 4x4
		nn.AdaptiveAvgPool2d{Size: [2]int{3, 3}},                                                        // overlapping windows
		nn.AvgPool2d{Kernel: [2]int{2, 2}, Padding: [2]int{1, 1}, CeilMode: true, ExcludePad: true},     // -> 2x2
		nn.AdaptiveMaxPool2d{Size: [2]int{3, 3}},                                                        // upsampling windows
		nn.Flatten{},
		nn.NewLinear(36, 5, nn.Seed(7)),
	)
	matchOnDevice(t, m, dev, tensor.RandN(dtype.F32, 8, 3, 2, 10, 10), tensor.FromSlice([]int32{4, 0, 2}, 3))

	// The 1-D pools on [N, C, L].
	seq := tensor.RandN(dtype.F32, 9, 2, 3, 11)
	for _, pool := range []nn.Module{
		nn.MaxPool1d{Kernel: [2]int{3}, Stride: [2]int{2}, Padding: [2]int{1}, CeilMode: true},
		nn.AvgPool1d{Kernel: [2]int{4}, Stride: [2]int{3}, Padding: [2]int{2}, ExcludePad: true},
	} {
		near(t, "1-D pool on "+dev.Name(), vals(t, pool.Forward(seq.To(dev))), vals(t, pool.Forward(seq)), 1e-6, 1e-7)
	}
}
