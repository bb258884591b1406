//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// BenchmarkFMAPeak measures the machine's float32 FMA throughput, the
// ceiling the micro-kernels are compared with: chains of independent FMAs
// on registers only (fmaPeak512 and fmaPeak256 in the generated assembly),
// on one goroutine and on GOMAXPROCS goroutines at once. float64 peaks are
// half the figures (half the lanes).
func BenchmarkFMAPeak(b *testing.B) {
	type peak struct {
		name  string
		ok    bool
		f     func(n int)
		flops float64 // per iteration: 12 FMAs x lanes x 2
	}
	peaks := []peak{
		{"zmm", hasAVX512(), fmaPeak512, 12 * 16 * 2},
		{"ymm", cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3), fmaPeak256, 12 * 8 * 2},
		// VDPBF16PS: 16 lanes x 2 bf16 products, each added (asmgen_lowp.go).
		{"vdpbf16ps-zmm", hasAVX512() && cpuid.CPU.Supports(cpuid.AVX512BF16), dpbf16Peak512, 12 * 16 * 4},
	}
	const iters = 1 << 20
	for _, p := range peaks {
		for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/threads=%d", p.name, threads), func(b *testing.B) {
				if !p.ok {
					b.Skip("not supported by this CPU")
				}
				for b.Loop() {
					runFMA(p.f, threads, iters)
				}
				b.ReportMetric(p.flops*iters*float64(threads)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestPeakF32 checks PeakF32 against the tier: a positive figure with the
// active kernels' vector width, and nothing for the portable kernels.
func TestPeakF32(t *testing.T) {
	for _, name := range kernelNames() {
		withKernel(t, name, func() {
			g, v := PeakF32()
			want := map[string]string{"avx512": "512-bit", "avx2-fma": "256-bit", "generic": ""}[name]
			if v != want || (v == "") != (g == 0) || g < 0 {
				t.Errorf("%s: PeakF32() = %g, %q; want a positive figure for %q", name, g, v, want)
			}
		})
	}
}
