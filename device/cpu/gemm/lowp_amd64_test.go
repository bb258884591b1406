//go:build amd64 && !purego

package gemm

import "testing"

// BenchmarkLowpMicro times the bf16 micro-kernels alone on one core with
// their panels in cache (k = 256 steps, each a pair of bf16 values, so
// 512 multiply-adds per C element per call), next to the float32 one
// (256 steps): the ceilings of the packed paths per core.
func BenchmarkLowpMicro(b *testing.B) {
	if !hasAVX512() {
		b.Skip("no AVX-512")
	}
	const k = 256
	run := func(name string, ks *kernels[float32], valuesPerStep int) {
		b.Run(name, func(b *testing.B) {
			ap := make([]float32, ks.mr*k)
			bp := make([]float32, ks.nr*k)
			for i := range ap {
				ap[i] = float32(i%7) * 0.125
			}
			for i := range bp {
				bp[i] = float32(i%5) * 0.25
			}
			c := make([]float32, ks.mr*ks.nr)
			const calls = 1000
			for b.Loop() {
				for range calls {
					ks.micro(k, &ap[0], &bp[0], &c[0], ks.nr, 1, 1)
				}
			}
			flops := 2 * float64(ks.mr*ks.nr*k*valuesPerStep*calls)
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
	run("f32-14x32", avx512Impl().f32, 1)
	if hasBF16() {
		run("bf16-vdpbf16ps-14x32", dpSet, 2)
	}
	if amxReady() {
		run("bf16-amx-32x32", amxSet, 2)
	}
}
