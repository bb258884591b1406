package optim_test

import (
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

// countingBackend is the CPU backend with a count of the kernels it runs:
// fused programs, and every other compute call.
type countingBackend struct {
	device.Backend
	fused, other atomic.Int64
}

func (b *countingBackend) Fused(dst device.Operand, p device.Program, ins []device.Operand) error {
	b.fused.Add(1)
	return b.Backend.(device.Fuser).Fused(dst, p, ins)
}

func (b *countingBackend) FusedMulti(dsts []device.Operand, p device.Program, outs []int, ins []device.Operand) error {
	b.fused.Add(1)
	return b.Backend.(device.MultiFuser).FusedMulti(dsts, p, outs, ins)
}

func (b *countingBackend) Fill(dst device.Operand, v float64) error {
	b.other.Add(1)
	return b.Backend.Fill(dst, v)
}

func (b *countingBackend) Copy(dst, src device.Operand) error {
	b.other.Add(1)
	return b.Backend.Copy(dst, src)
}

func (b *countingBackend) Unary(op device.UnaryOp, dst, src device.Operand) error {
	b.other.Add(1)
	return b.Backend.Unary(op, dst, src)
}

func (b *countingBackend) Binary(op device.BinaryOp, dst, x, y device.Operand) error {
	b.other.Add(1)
	return b.Backend.Binary(op, dst, x, y)
}

func (b *countingBackend) Where(dst, c, x, y device.Operand) error {
	b.other.Add(1)
	return b.Backend.Where(dst, c, x, y)
}

func (b *countingBackend) Reduce(op device.ReduceOp, dst, src device.Operand, axes []int) error {
	b.other.Add(1)
	return b.Backend.Reduce(op, dst, src, axes)
}

func (b *countingBackend) Matmul(dst, x, y device.Operand) error {
	b.other.Add(1)
	return b.Backend.Matmul(dst, x, y)
}

// countingDevice is the CPU device seen through a countingBackend.
type countingDevice struct {
	device.Device
	be *countingBackend
}

func (d *countingDevice) Name() string            { return "counting" }
func (d *countingDevice) Backend() device.Backend { return d.be }
func (d *countingDevice) Close() error            { return nil }

type countingDriver struct{ dev *countingDevice }

func (d countingDriver) Name() string                       { return "counting" }
func (d countingDriver) Enumerate() ([]device.Info, error)  { return nil, nil }
func (d countingDriver) Open(string) (device.Device, error) { return d.dev, nil }

var (
	countingOnce sync.Once
	counting     *countingDevice
)

func countingCPU() *countingDevice {
	countingOnce.Do(func() {
		counting = &countingDevice{Device: device.CPU(), be: &countingBackend{Backend: device.CPU().Backend()}}
		device.Register(countingDriver{counting})
	})
	return counting
}

// TestKernelsPerStep counts the kernels one Step runs per parameter on a
// backend that computes several results in one kernel (the CPU's
// FusedMulti): the tensors an update produces (momentum buffer, moments,
// new value) are one fused kernel, and nothing else runs. AMSGrad's first
// step realises the second moment alone first (its running maximum starts
// as a view of it), and SGD's first momentum buffer is the gradient.
func TestKernelsPerStep(t *testing.T) {
	if os.Getenv("TESSERA_FUSION") == "0" {
		t.Skip("TESSERA_FUSION=0 runs one backend call per operation")
	}
	dev := countingCPU()
	def := optim.DefaultAdam()
	ams := def
	ams.AMSGrad, ams.WeightDecay = true, 0.1
	cases := []struct {
		name          string
		make          func([]*nn.Parameter) (optim.Optimizer, error)
		first, second int64 // fused kernels per parameter on the first and second step
	}{
		{"SGD", func(ps []*nn.Parameter) (optim.Optimizer, error) {
			return optim.NewSGD(ps, 0.1, optim.SGDOptions{WeightDecay: 0.01})
		}, 1, 1},
		// The first momentum buffer is the gradient itself: no kernel.
		{"SGD/momentum", func(ps []*nn.Parameter) (optim.Optimizer, error) {
			return optim.NewSGD(ps, 0.1, optim.SGDOptions{Momentum: 0.9, Nesterov: true})
		}, 1, 1},
		{"Adam", func(ps []*nn.Parameter) (optim.Optimizer, error) { return optim.NewAdam(ps, 0.1, def) }, 1, 1},
		{"AdamW/amsgrad", func(ps []*nn.Parameter) (optim.Optimizer, error) { return optim.NewAdamW(ps, 0.1, ams) }, 2, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ps []*nn.Parameter
			for i, shape := range [][]int{{64, 32}, {32}, {10, 64}} {
				ps = append(ps, nn.NewParameter("p", tensor.RandN(dtype.F32, uint64(i+1), shape...).To(dev)))
			}
			opt, err := c.make(ps)
			if err != nil {
				t.Fatal(err)
			}
			for step, want := range []int64{c.first, c.second} {
				loss := ps[0].Value.Square().Sum().Add(ps[1].Value.Square().Sum()).Add(ps[2].Value.Square().Sum())
				if err := loss.Backward(); err != nil {
					t.Fatal(err)
				}
				dev.be.fused.Store(0)
				dev.be.other.Store(0)
				if err := opt.Step(); err != nil {
					t.Fatal(err)
				}
				fused, other := dev.be.fused.Load(), dev.be.other.Load()
				t.Logf("step %d: %d fused kernels, %d other calls for %d parameters", step, fused, other, len(ps))
				if fused != want*int64(len(ps)) || other != 0 {
					t.Errorf("step %d: %d fused kernels and %d other calls, want %d fused (%d per parameter) and none else",
						step, fused, other, want*int64(len(ps)), want)
				}
			}
		})
	}
}
