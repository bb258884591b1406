package tensor_test

import (
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// BenchmarkVocab times the remainders, Atan2 and LeakyRelu on 1 Mi f32
// elements on the CPU, each beside its anchor: a plain Go loop over
// []float32 calling package math (what a hand-written kernel would do).
// GB/s counts the bytes read and written (12 per element for binary
// operations, 8 for LeakyRelu).
func BenchmarkVocab(b *testing.B) {
	const n = 1 << 20
	x := tensor.RandN(dtype.F32, 1, n).MulScalar(10)
	y := tensor.Rand(dtype.F32, 2, n).AddScalar(0.5)
	xs, _ := tensor.ToSlice[float32](x)
	ys, _ := tensor.ToSlice[float32](y)
	out := make([]float32, n)
	cases := []struct {
		name  string
		bytes float64
		op    func() *tensor.Tensor
		loop  func()
	}{
		{"Mod", 12, func() *tensor.Tensor { return x.Mod(y) }, func() {
			for i := range out {
				m := math.Mod(float64(xs[i]), float64(ys[i]))
				if m != 0 && (m < 0) != (ys[i] < 0) {
					m += float64(ys[i])
				}
				out[i] = float32(m)
			}
		}},
		{"Fmod", 12, func() *tensor.Tensor { return x.Fmod(y) }, func() {
			for i := range out {
				out[i] = float32(math.Mod(float64(xs[i]), float64(ys[i])))
			}
		}},
		{"Atan2", 12, func() *tensor.Tensor { return x.Atan2(y) }, func() {
			for i := range out {
				out[i] = float32(math.Atan2(float64(xs[i]), float64(ys[i])))
			}
		}},
		{"LeakyRelu", 8, func() *tensor.Tensor { return x.LeakyRelu(0.01) }, func() {
			for i, v := range xs {
				if v <= 0 {
					v *= 0.01
				}
				out[i] = v
			}
		}},
	}
	for _, c := range cases {
		b.Run(c.name+"/tessera", func(b *testing.B) {
			for b.Loop() {
				z := c.op()
				if err := z.Err(); err != nil {
					b.Fatal(err)
				}
				z.Release()
			}
			b.ReportMetric(c.bytes*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
		b.Run(c.name+"/go-loop", func(b *testing.B) {
			for b.Loop() {
				c.loop()
			}
			b.ReportMetric(c.bytes*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}
