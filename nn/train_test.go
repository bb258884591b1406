package nn_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/devicetest"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// sgdStep replaces every parameter p by p - lr·grad, as an optimiser does.
func sgdStep(m nn.Module, lr float64) {
	for _, p := range m.Parameters() {
		p.Set(p.Value.Sub(p.Grad().MulScalar(lr)))
	}
}

// TestTrainingMemoryBounded: 200 training steps that never call Release
// keep the device's memory and the Go heap flat, and learn, for an MLP and
// a small CNN.
func TestTrainingMemoryBounded(t *testing.T) {
	models := []struct {
		name  string
		build func() nn.Module
		input []int
	}{
		{"mlp", func() nn.Module {
			return nn.NewSequential(
				nn.NewLinear(64, 128, nn.Seed(1)), nn.GELU{}, nn.NewDropout(0.1, 2),
				nn.NewLayerNorm([]int{128}), nn.NewLinear(128, 10, nn.Seed(3)),
			)
		}, []int{32, 64}},
		{"cnn", func() nn.Module {
			return nn.NewSequential(
				nn.NewConv2d(1, 4, [2]int{3, 3}, tensor.Conv2dOptions{Padding: [2]int{1, 1}}, nn.Seed(1)),
				nn.ReLU{}, nn.MaxPool2d{Kernel: [2]int{2, 2}}, nn.Flatten{}, nn.NewLinear(4*4*4, 10, nn.Seed(2)),
			)
		}, []int{32, 1, 8, 8}},
	}
	for _, dev := range testDevices(t) {
		for _, mc := range models {
			t.Run(mc.name+"/"+dev.Name(), func(t *testing.T) { trainBounded(t, dev, mc.build(), mc.input) })
		}
	}
}

// trainBounded trains m on dev for 200 steps of SGD on one fixed batch.
func trainBounded(t *testing.T, dev device.Device, m nn.Module, input []int) {
	const steps = 200
	be := dev.Backend()
	base := devicetest.SettledMemory(t, be)
	if err := nn.To(m, dev); err != nil {
		t.Fatal(err)
	}
	x := tensor.RandN(dtype.F32, 4, input...).To(dev)
	classes := make([]int32, 32)
	for i := range classes {
		classes[i] = int32(i % 10)
	}
	y := tensor.FromSlice(classes, 32).To(dev)
	var first, last float64
	var mid, peak int64
	var heapMid uint64
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for i := range steps {
		loss := nn.CrossEntropy(m.Forward(x), y)
		if err := loss.Backward(); err != nil {
			t.Fatalf("%s: step %d: %v", dev.Name(), i, err)
		}
		sgdStep(m, 0.05)
		if i == 0 || i == steps-1 {
			v, err := loss.Item()
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = v
			} else {
				last = v
			}
		}
		use := be.MemoryInUse()
		if i == steps/2 {
			mid, heapMid = use, heap()
		}
		if i > steps/2 {
			peak = max(peak, use)
		}
	}
	if !(last < first/2) {
		t.Errorf("%s: loss went from %v to %v in %d steps", dev.Name(), first, last, steps)
	}
	if peak > mid+8<<20 {
		t.Errorf("%s: memory in use rose from %d to %d KiB over the second half", dev.Name(), mid>>10, peak>>10)
	}
	if h := heap(); h > heapMid+16<<20 {
		t.Errorf("%s: the Go heap grew from %d to %d KiB over the second half", dev.Name(), heapMid>>10, h>>10)
	}
	m, x, y = nil, nil, nil
	if after := devicetest.MemoryBackTo(t, be, base); after > base {
		t.Errorf("%s: %d bytes in use after the loop and a collection (baseline %d)", dev.Name(), after, base)
	}
	t.Logf("%s: loss %.4f -> %.4f; memory in use at half %d KiB, peak after %d KiB", dev.Name(), first, last, mid>>10, peak>>10)
}

// ExampleSequential builds a small MLP and takes one training step by
// hand: forward, loss, Backward, and p ← p − lr·∇p for every parameter.
func ExampleSequential() {
	model := nn.NewSequential(
		nn.NewLinear(4, 8, nn.Seed(1)),
		nn.ReLU{},
		nn.NewLinear(8, 3, nn.Seed(2)),
	)
	for _, p := range model.Parameters() {
		fmt.Println(p.Name, p.Value.Shape())
	}
	fmt.Println("parameters:", nn.NumParams(model))

	x := tensor.FromSlice([]float32{
		1, 0, 0, 0,
		0, 1, 0, 0,
		0, 0, 1, 1,
	}, 3, 4)
	labels := tensor.FromSlice([]int32{0, 1, 2}, 3)

	lossBefore := nn.CrossEntropy(model.Forward(x), labels)
	if err := lossBefore.Backward(); err != nil {
		fmt.Println(err)
		return
	}
	const lr = 0.5
	for _, p := range model.Parameters() {
		p.Set(p.Value.Sub(p.Grad().MulScalar(lr)))
	}
	lossAfter := nn.CrossEntropy(model.Forward(x), labels)
	before, _ := lossBefore.Item()
	after, _ := lossAfter.Item()
	fmt.Println("the step lowered the loss:", after < before)
	// Output:
	// 0.weight [8 4]
	// 0.bias [8]
	// 2.weight [3 8]
	// 2.bias [3]
	// parameters: 67
	// the step lowered the loss: true
}

// ExampleCrossEntropy: logits far beyond exp's range are fine.
func ExampleCrossEntropy() {
	logits := tensor.FromSlice([]float32{1e4, 0, -1e4}, 1, 3)
	loss := nn.CrossEntropy(logits, tensor.FromSlice([]int64{1}, 1))
	v, err := loss.Item()
	fmt.Println(v, err)
	// Output: 10000 <nil>
}

// ExampleLoadStateDict shows the typed error for a mismatched state.
func ExampleLoadStateDict() {
	m := nn.NewLinear(3, 2)
	sd := nn.StateDict(m)
	sd["weight"] = tensor.Zeros(dtype.F32, 2, 4)
	fmt.Println(nn.LoadStateDict(m, sd))
	// Output: nn: LoadStateDict: key "weight": shape [2 4], the parameter is [2 3]
}
