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
				if err := z.Err(); err != nil { // realises a pending (fused) result
					b.Fatal(err)
				}
				if err := dev.Backend().Sync(); err != nil {
					b.Fatal(err)
				}
				z.Release()
			}
			b.ReportMetric(12*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkChain times the loop x = x.Add(b).Mul(b).Tanh(), written as
// natural code (no Release), per operation, with fusion on and off, on
// every device. peak-MiB is the device memory in use at its highest during
// the run, above what was in use before. ci/bench-chain.sh runs it beside
// NumPy.
func BenchmarkChain(b *testing.B) {
	for _, dev := range testDevices(b) {
		for _, n := range []int{16, 1024, 65536, 1 << 20} {
			for _, fused := range []bool{true, false} {
				b.Run(fmt.Sprintf("%s/%d/fused=%v", dev.Name(), n, fused), func(b *testing.B) {
					defer tensor.SetFusion(fused)()
					x := tensor.Full(dtype.F32, 0.5, n).To(dev)
					y := tensor.Full(dtype.F32, 0.25, n).To(dev)
					be := dev.Backend()
					base := be.MemoryInUse()
					var peak int64
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						x = x.Add(y).Mul(y).Tanh()
						if i%64 == 0 {
							peak = max(peak, be.MemoryInUse())
						}
					}
					if err := x.Err(); err != nil {
						b.Fatal(err)
					}
					if err := be.Sync(); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(3*b.N), "ns/op-each")
					b.ReportMetric(float64(max(peak, be.MemoryInUse())-base)/(1<<20), "peak-MiB")
				})
			}
		}
	}
}

// BenchmarkSort times Sort (values and indices) of 1 Mi random f32 along
// one row, and of 1024 rows of 1024, on every device; ci/bench-sort.sh
// compares the CPU with NumPy's np.sort in the same run.
func BenchmarkSort(b *testing.B) {
	for _, dev := range testDevices(b) {
		for _, shape := range [][]int{{1 << 20}, {1024, 1024}} {
			x := tensor.RandN(dtype.F32, 3, shape...).To(dev)
			b.Run(fmt.Sprintf("%s/%v", dev.Name(), shape), func(b *testing.B) {
				for b.Loop() {
					v, i := x.Sort(-1, false)
					if err := i.Err(); err != nil {
						b.Fatal(err)
					}
					if err := dev.Backend().Sync(); err != nil {
						b.Fatal(err)
					}
					v.Release()
					i.Release()
				}
				b.ReportMetric(float64(x.Numel())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
			})
		}
	}
}
