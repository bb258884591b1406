package tensor_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/gemm"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// BenchmarkMatmulOverhead times a square matmul through the tensor API on
// the CPU next to the GEMM package called directly on the same values
// (its output allocated once), in one run: the ratio of the two GFLOP/s
// figures is what the tensor layer (output allocation, layout
// classification, dispatch) costs on top of the kernel. Each side makes
// one untimed call first, so -benchtime 1x -count N gives single calls in
// the steady state, interleaved.
func BenchmarkMatmulOverhead(b *testing.B) {
	for _, n := range []int{128, 1024} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		x32, y32 := make([]float32, n*n), make([]float32, n*n)
		x64, y64 := make([]float64, n*n), make([]float64, n*n)
		xh, yh := make([]dtype.BFloat16, n*n), make([]dtype.BFloat16, n*n)
		for i := range x32 {
			x32[i], y32[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
			x64[i], y64[i] = float64(x32[i]), float64(y32[i])
			xh[i], yh[i] = dtype.BF16FromFloat32(x32[i]), dtype.BF16FromFloat32(y32[i])
		}
		flops := 2 * float64(n) * float64(n) * float64(n)
		report := func(b *testing.B) {
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		for _, typ := range []string{"f32", "f64", "bf16"} {
			var x, y *tensor.Tensor
			switch typ {
			case "f32":
				x, y = tensor.FromSlice(x32, n, n), tensor.FromSlice(y32, n, n)
			case "f64":
				x, y = tensor.FromSlice(x64, n, n), tensor.FromSlice(y64, n, n)
			default:
				x, y = tensor.FromSlice(xh, n, n), tensor.FromSlice(yh, n, n)
			}
			b.Run(fmt.Sprintf("%d/%s/tensor", n, typ), func(b *testing.B) {
				call := func() {
					z := x.Matmul(y)
					if err := z.Err(); err != nil {
						b.Fatal(err)
					}
					if err := device.CPU().Backend().Sync(); err != nil {
						b.Fatal(err)
					}
					z.Release()
				}
				call() // untimed: pools warm, so -benchtime 1x times steady state
				for b.Loop() {
					call()
				}
				report(b)
			})
			b.Run(fmt.Sprintf("%d/%s/gemm", n, typ), func(b *testing.B) {
				c32, c64, ch := make([]float32, n*n), make([]float64, n*n), make([]dtype.BFloat16, n*n)
				call := func() {
					var err error
					switch typ {
					case "f32":
						err = gemm.F32(false, false, n, n, n, 1, x32, n, y32, n, 0, c32, n)
					case "f64":
						err = gemm.F64(false, false, n, n, n, 1, x64, n, y64, n, 0, c64, n)
					default:
						// The bf16 result, as the tensor side returns it.
						err = gemm.BF16To(false, false, n, n, n, xh, n, yh, n, ch, n)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				call()
				for b.Loop() {
					call()
				}
				report(b)
			})
		}
	}
}
