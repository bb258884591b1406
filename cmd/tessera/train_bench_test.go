package main

import (
	"testing"

	"github.com/tessera-go/tessera/datasets/mnist"
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
)

// BenchmarkTrainStep times one training step of the MLP 784-256-128-10 on
// the CPU: forward, cross-entropy, backward and an Adam update, on the
// first 128 MNIST training images, reading the loss back each step as a
// training loop does. ci/bench-train.sh runs it next to the same step in
// NumPy (ci/train_step_numpy.py).
func BenchmarkTrainStep(b *testing.B) { benchTrainStep(b, "mlp") }

// BenchmarkTrainStepCNN is BenchmarkTrainStep for the CNN of
// `tessera train --model cnn` (two 5x5 convolutions, pools, a linear
// layer), whose step is mostly Conv2d forward and backward.
func BenchmarkTrainStepCNN(b *testing.B) { benchTrainStep(b, "cnn") }

// benchTrainStep times the training step of each model on the CPU.
func benchTrainStep(b *testing.B, models ...string) {
	trainSet, _, err := mnist.LoadDefault()
	if err != nil {
		b.Fatal(err)
	}
	for _, model := range models {
		b.Run(model+"/batch=128", func(b *testing.B) {
			m, err := newModel(model, 7)
			if err != nil {
				b.Fatal(err)
			}
			if err := nn.To(m, device.CPU()); err != nil {
				b.Fatal(err)
			}
			opt, err := optim.NewAdam(m.Parameters(), 1e-3, optim.DefaultAdam())
			if err != nil {
				b.Fatal(err)
			}
			idx := make([]int, 128)
			for i := range idx {
				idx[i] = i
			}
			x, y, err := trainSet.Batch(idx, mnist.BatchOptions{Normalize: true, NCHW: model == "cnn"})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				loss := nn.CrossEntropy(m.Forward(x), y)
				if err := loss.Backward(); err != nil {
					b.Fatal(err)
				}
				if err := opt.Step(); err != nil {
					b.Fatal(err)
				}
				opt.ZeroGrad()
				if _, err := loss.Item(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/step")
		})
	}
}
