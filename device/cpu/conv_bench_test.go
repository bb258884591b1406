package cpu

import (
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// BenchmarkConvLayers times Conv2d and Conv2dFilter on the backend alone
// for the convolutions of the MNIST CNN (cmd/tessera's cnn, batch 128,
// float32, 5x5 kernels, padding 2): l1 (1 -> 16 channels, 28x28), l2 (16
// -> 32, 14x14), l2in (32 -> 16, 14x14: the shape of l2's input
// gradient, a convolution of its output's gradient), and rgb (3 -> 16,
// 32x32) for a colour first layer. It reports the products' GFLOP/s
// (2 * N * O * C * KH * KW * OH * OW).
func BenchmarkConvLayers(b *testing.B) {
	d := New()
	p := device.Conv2dParams{Stride: [2]int{1, 1}, Dilation: [2]int{1, 1}, Groups: 1, Padding: [2]int{2, 2}}
	const n = 128
	for _, c := range []struct {
		name          string
		cin, cout, hw int
	}{{"l1", 1, 16, 28}, {"l2", 16, 32, 14}, {"l2in", 32, 16, 14}, {"rgb", 3, 16, 32}} {
		op := func(shape ...int) device.Operand { return newOperand(b, d, dtype.F32, shape...) }
		x, w, y := op(n, c.cin, c.hw, c.hw), op(c.cout, c.cin, 5, 5), op(n, c.cout, c.hw, c.hw)
		flop := 2.0 * n * float64(c.cout*c.cin*25*c.hw*c.hw)
		for _, pass := range []struct {
			name string
			run  func() error
		}{
			{"forward", func() error { return d.Conv2d(y, x, w, p) }},
			{"filter", func() error { return d.Conv2dFilter(w, x, y, p) }},
		} {
			b.Run(c.name+"/"+pass.name, func(b *testing.B) {
				for b.Loop() {
					if err := pass.run(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
