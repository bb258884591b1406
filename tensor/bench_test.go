package tensor_test

import (
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// BenchmarkMatmul times a square f32 matmul through the tensor API on every
// device, with a contiguous and a transposed right operand.
func BenchmarkMatmul(b *testing.B) {
	for _, dev := range testDevices(b) {
		for _, n := range []int{128, 256} {
			x := tensor.RandN(dtype.F32, 1, n, n).To(dev)
			y := tensor.RandN(dtype.F32, 2, n, n).To(dev)
			for _, tr := range []bool{false, true} {
				rhs := y
				if tr {
					rhs = y.T()
				}
				b.Run(fmt.Sprintf("%s/%d/transposed=%v", dev.Name(), n, tr), func(b *testing.B) {
					for b.Loop() {
						z := x.Matmul(rhs)
						if err := dev.Backend().Sync(); err != nil {
							b.Fatal(err)
						}
						z.Release()
					}
					b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// BenchmarkAdd times an elementwise add of 1 Mi f32 on every device.
func BenchmarkAdd(b *testing.B) {
	const n = 1 << 20
	for _, dev := range testDevices(b) {
		x := tensor.RandN(dtype.F32, 1, n).To(dev)
		y := tensor.RandN(dtype.F32, 2, n).To(dev)
		b.Run(dev.Name(), func(b *testing.B) {
			for b.Loop() {
				z := x.Add(y)
				if err := dev.Backend().Sync(); err != nil {
					b.Fatal(err)
				}
				z.Release()
			}
			b.ReportMetric(12*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}
