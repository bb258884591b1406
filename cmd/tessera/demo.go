package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// mlp is a 2-layer perceptron: softmax(relu(x W1 + b1) W2 + b2).
type mlp struct{ w1, b1, w2, b2 *tensor.Tensor }

func newMLP(seed uint64, in, hidden, out int) mlp {
	scale1, scale2 := 1/math.Sqrt(float64(in)), 1/math.Sqrt(float64(hidden))
	return mlp{
		w1: tensor.RandN(dtype.F32, seed+1, in, hidden).MulScalar(scale1),
		b1: tensor.Rand(dtype.F32, seed+2, hidden).SubScalar(0.5),
		w2: tensor.RandN(dtype.F32, seed+3, hidden, out).MulScalar(scale2),
		b2: tensor.Rand(dtype.F32, seed+4, out).SubScalar(0.5),
	}
}

func (m mlp) to(dev device.Device) mlp {
	return mlp{m.w1.To(dev), m.b1.To(dev), m.w2.To(dev), m.b2.To(dev)}
}

func (m mlp) forward(x *tensor.Tensor) *tensor.Tensor {
	return x.Matmul(m.w1).Add(m.b1).Relu().Matmul(m.w2).Add(m.b2).Softmax(-1)
}

func demo(w io.Writer, devName string, seed uint64) error {
	dev, err := openDevice(devName)
	if err != nil {
		return err
	}
	const batch, in, hidden, out = 64, 256, 512, 10
	model := newMLP(seed, in, hidden, out)
	x := tensor.RandN(dtype.F32, seed, batch, in)
	fmt.Fprintf(w, "tessera demo: 2-layer MLP %d -> %d -> %d, batch %d, seed %d\n", in, hidden, out, batch, seed)
	fmt.Fprintf(w, "device: %s (%s, %s)\n", dev.Name(), dev.Info().Type, dev.Info().Adapter)

	start := time.Now()
	onDev := model.to(dev)
	xd := x.To(dev)
	if err := xd.Err(); err != nil {
		return err
	}
	upload := time.Since(start)

	var y *tensor.Tensor
	var first, warm time.Duration
	for i := range 3 {
		t0 := time.Now()
		y = onDev.forward(xd)
		if _, err := tensor.ToSlice[float32](y); err != nil { // waits for the device
			return err
		}
		d := time.Since(t0)
		if i == 0 {
			first = d
		} else if warm == 0 || d < warm {
			warm = d
		}
	}

	// The reference: the same model on the CPU in float64.
	cpu := device.CPU()
	ref := mlp{model.w1.Cast(dtype.F64), model.b1.Cast(dtype.F64), model.w2.Cast(dtype.F64), model.b2.Cast(dtype.F64)}.
		forward(x.Cast(dtype.F64).To(cpu)).Cast(dtype.F32)
	ok, err := tensor.AllClose(y, ref, 1e-4, 1e-5)
	if err != nil {
		return err
	}
	pred := y.ArgMax(-1)
	classes, err := tensor.ToSlice[int64](pred)
	if err != nil {
		return err
	}
	rows := y.Narrow(0, 0, 3)
	fmt.Fprintf(w, "first 3 rows of the output probabilities:\n%.4v\n", rows)
	fmt.Fprintf(w, "predicted classes of the first 16 inputs: %v\n", classes[:16])
	fmt.Fprintf(w, "timing: upload %v, first forward %v, warm forward %v\n", upload.Round(time.Microsecond), first.Round(time.Microsecond), warm.Round(time.Microsecond))
	if !ok {
		return fmt.Errorf("result on %s differs from the float64 CPU reference", dev.Name())
	}
	fmt.Fprintf(w, "check: matches the float64 CPU reference (rtol 1e-4, atol 1e-5)\n")
	return nil
}
