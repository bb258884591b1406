package tensor_test

import (
	"testing"
	"time"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// BenchmarkConvMNIST times the convolutional part of the MNIST CNN of
// package nn (batch 128, f32, on every device): Conv2d(1->16, 5x5, padding 2),
// ReLU, MaxPool2d(2), Conv2d(16->32, 5x5, padding 2), ReLU, MaxPool2d(2),
// forward alone and forward plus backward (the gradients of both weights
// and biases and of the second convolution's input). Each iteration also
// runs the GEMMs of the two im2col shapes ([N*OH*OW, C*KH*KW] times
// [C*KH*KW, O]) once per pass the convolutions make (forward: one each;
// backward: one for every weight gradient, one for the input gradient of
// the second), so conv/gemm compares the whole pass with the matrix
// products it cannot avoid, in the same run.
func BenchmarkConvMNIST(b *testing.B) {
	for _, dev := range testDevices(b) {
		benchConvMNIST(b, dev)
	}
}

func benchConvMNIST(b *testing.B, dev device.Device) {
	const n = 128
	rand := func(seed uint64, scale float64, shape ...int) *tensor.Tensor {
		return tensor.RandN(dtype.F32, seed, shape...).MulScalar(scale).To(dev)
	}
	x := rand(1, 1, n, 1, 28, 28)
	w1, b1 := rand(2, 0.2, 16, 1, 5, 5), rand(3, 1, 16)
	w2, b2 := rand(4, 0.05, 32, 16, 5, 5), rand(5, 1, 32)
	// The im2col GEMMs: [rows, k] x [k, o].
	type gemm struct{ a, m *tensor.Tensor }
	g1 := gemm{rand(6, 1, n*28*28, 25), rand(7, 1, 25, 16)}
	g2 := gemm{rand(8, 1, n*14*14, 400), rand(9, 1, 400, 32)}
	flop1 := 2.0 * n * 28 * 28 * 25 * 16
	flop2 := 2.0 * n * 14 * 14 * 400 * 32
	pad := tensor.Conv2dOptions{Padding: [2]int{2, 2}}
	pool := tensor.Pool2dOptions{Kernel: [2]int{2, 2}}
	net := func(w1, b1, w2, b2 *tensor.Tensor) *tensor.Tensor {
		h := tensor.MaxPool2d(tensor.Conv2d(x, w1, b1, pad).Relu(), pool)
		return tensor.MaxPool2d(tensor.Conv2d(h, w2, b2, pad).Relu(), pool)
	}
	for _, c := range []struct {
		name     string
		backward bool
		passes   [2]int // GEMM-sized passes of each convolution
	}{
		{"forward", false, [2]int{1, 1}},
		{"train", true, [2]int{2, 3}},
	} {
		b.Run(dev.Name()+"/"+c.name, func(b *testing.B) {
			var convT, gemmT, convCPU float64
			for b.Loop() {
				start, cpu0 := time.Now(), cpuSeconds()
				if c.backward {
					ws := []*tensor.Tensor{w1.Detach().RequiresGrad(), b1.Detach().RequiresGrad(), w2.Detach().RequiresGrad(), b2.Detach().RequiresGrad()}
					if err := net(ws[0], ws[1], ws[2], ws[3]).Sum().Backward(); err != nil {
						b.Fatal(err)
					}
					for _, w := range ws {
						if err := w.Grad().Err(); err != nil {
							b.Fatal(err)
						}
					}
				} else if err := net(w1, b1, w2, b2).Err(); err != nil {
					b.Fatal(err)
				}
				if err := dev.Backend().Sync(); err != nil {
					b.Fatal(err)
				}
				convT += time.Since(start).Seconds()
				convCPU += cpuSeconds() - cpu0
				start = time.Now()
				for i, g := range []gemm{g1, g2} {
					for range c.passes[i] {
						if err := g.a.Matmul(g.m).Err(); err != nil {
							b.Fatal(err)
						}
					}
				}
				if err := dev.Backend().Sync(); err != nil {
					b.Fatal(err)
				}
				gemmT += time.Since(start).Seconds()
			}
			flop := float64(c.passes[0])*flop1 + float64(c.passes[1])*flop2
			b.ReportMetric(float64(n*b.N)/convT, "samples/s")
			b.ReportMetric(flop*float64(b.N)/convT/1e9, "conv-GFLOP/s")
			b.ReportMetric(flop*float64(b.N)/gemmT/1e9, "gemm-GFLOP/s")
			b.ReportMetric(gemmT/convT, "conv/gemm")
			b.ReportMetric(convCPU/float64(b.N)*1e3, "cpu-ms/op")
		})
	}
}
