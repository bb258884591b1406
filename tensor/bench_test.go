package tensor_test

import (
	"fmt"
	"math"
	"testing"
	"time"

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

// BenchmarkSumSquares times x.Square().Sum() on f32, with fusion on (the
// square is the reduction's prologue and is never stored) and off (the
// square is materialised, then summed), on every device. GB/s counts the
// bytes of x read once. ci/bench-reduce.sh runs it beside NumPy's
// np.sum(np.square(x)).
func BenchmarkSumSquares(b *testing.B) {
	for _, dev := range testDevices(b) {
		for _, n := range []int{1024, 65536, 1 << 20, 1 << 24} {
			x := tensor.RandN(dtype.F32, 1, n).To(dev)
			for _, fused := range []bool{true, false} {
				b.Run(fmt.Sprintf("%s/%d/fused=%v", dev.Name(), n, fused), func(b *testing.B) {
					defer tensor.SetFusion(fused)()
					for b.Loop() {
						sq := x.Square()
						s := sq.Sum()
						if err := s.Err(); err != nil {
							b.Fatal(err)
						}
						if err := dev.Backend().Sync(); err != nil {
							b.Fatal(err)
						}
						s.Release()
						sq.Release()
					}
					b.ReportMetric(4*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
				})
			}
			x.Release()
		}
	}
}

// BenchmarkHostCost times the host work around an operation on the CPU, on
// 16 elements, where nothing else counts: recording one elementwise node
// (and dropping it), realising a graph of three operations as one fused
// call, the same three operations run eagerly (TESSERA_FUSION=0), and a
// fused reduction x.Square().Sum(). allocs/op counts Go allocations.
func BenchmarkHostCost(b *testing.B) {
	x := tensor.Full(dtype.F32, 0.5, 16)
	y := tensor.Full(dtype.F32, 0.25, 16)
	if err := x.Err(); err != nil {
		b.Fatal(err)
	}
	b.Run("record", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x.Add(y).Release()
		}
	})
	for _, fused := range []bool{true, false} {
		b.Run(fmt.Sprintf("3ops/fused=%v", fused), func(b *testing.B) {
			defer tensor.SetFusion(fused)()
			b.ReportAllocs()
			for b.Loop() {
				z := x.Add(y).Mul(y).Tanh()
				if err := z.Err(); err != nil {
					b.Fatal(err)
				}
				z.Release()
			}
		})
	}
	b.Run("sum-squares", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := x.Square().Sum()
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
			s.Release()
		}
	})
}

// BenchmarkAdd64MiB times x.Add(y) on 64 MiB f32 tensors through the
// tensor API on the CPU (realised and released each time, as a loop
// would), next to Go's copy of the same 64 MiB timed in the same run:
// GB/s counts 12 bytes per element (two reads, one write), copy-GB/s 8
// (one read, one write), and of-copy is their ratio (target 0.80).
func BenchmarkAdd64MiB(b *testing.B) {
	const n = 1 << 24
	x := tensor.RandN(dtype.F32, 1, n)
	y := tensor.RandN(dtype.F32, 2, n)
	src, dst := make([]byte, 4*n), make([]byte, 4*n)
	copy(dst, src) // fault the pages in
	var add, cp time.Duration
	for b.Loop() {
		t0 := time.Now()
		z := x.Add(y)
		if err := z.Err(); err != nil {
			b.Fatal(err)
		}
		z.Release()
		t1 := time.Now()
		copy(dst, src)
		add, cp = add+t1.Sub(t0), cp+time.Since(t1)
	}
	addGBs := 12 * float64(n) * float64(b.N) / add.Seconds() / 1e9
	copyGBs := 8 * float64(n) * float64(b.N) / cp.Seconds() / 1e9
	b.ReportMetric(addGBs, "GB/s")
	b.ReportMetric(copyGBs, "copy-GB/s")
	b.ReportMetric(addGBs/copyGBs, "of-copy")
}

// BenchmarkBiasRelu times z.Add(bias).Relu() on a [256, 128] f32 z with a
// broadcast [128] bias on the CPU: the epilogue of every dense layer, as
// one fused realisation whose bias is gathered a row at a time. GB/s
// counts z read and the result written.
func BenchmarkBiasRelu(b *testing.B) {
	z := tensor.RandN(dtype.F32, 1, 256, 128)
	bias := tensor.RandN(dtype.F32, 3, 128)
	if err := z.Err(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r := z.Add(bias).Relu()
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		r.Release()
	}
	b.ReportMetric(8*256*128*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// BenchmarkSort times Sort (values and indices) of 1 Mi random f32 along
// one row, and of 1024 rows of 1024, on every device; ci/bench-sort.sh
// compares the CPU with NumPy's np.sort in the same run.
func BenchmarkSort(b *testing.B) {
	for _, dev := range testDevices(b) {
		for _, shape := range [][]int{{1 << 20}, {1024, 1024}} {
			x := tensor.RandN(dtype.F32, 3, shape...).To(dev)
			b.Run(fmt.Sprintf("%s/%v", dev.Name(), shape), func(b *testing.B) {
				c0, best := cpuSeconds(), time.Duration(math.MaxInt64)
				for b.Loop() {
					t0 := time.Now()
					v, i := x.Sort(-1, false)
					if err := i.Err(); err != nil {
						b.Fatal(err)
					}
					if err := dev.Backend().Sync(); err != nil {
						b.Fatal(err)
					}
					best = min(best, time.Since(t0))
					v.Release()
					i.Release()
				}
				b.ReportMetric(float64(x.Numel())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
				b.ReportMetric((cpuSeconds()-c0)/float64(b.N)*1e3, "cpu-ms/op")
				b.ReportMetric(float64(best.Nanoseconds()), "best-ns")
			})
		}
	}
}

// BenchmarkArgSort times ArgSort of 1 Mi f32 (one line) on each device:
// the stable positions alone, which ci/bench-sort.sh compares with
// numpy.argsort(kind="stable").
func BenchmarkArgSort(b *testing.B) {
	for _, dev := range testDevices(b) {
		x := tensor.RandN(dtype.F32, 3, 1<<20).To(dev)
		b.Run(dev.Name(), func(b *testing.B) {
			c0, best := cpuSeconds(), time.Duration(math.MaxInt64)
			for b.Loop() {
				t0 := time.Now()
				i := x.ArgSort(-1, false)
				if err := i.Err(); err != nil {
					b.Fatal(err)
				}
				if err := dev.Backend().Sync(); err != nil {
					b.Fatal(err)
				}
				best = min(best, time.Since(t0))
				i.Release()
			}
			b.ReportMetric(float64(x.Numel())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N)*1e3, "cpu-ms/op")
			b.ReportMetric(float64(best.Nanoseconds()), "best-ns")
		})
	}
}
