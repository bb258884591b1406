//go:build amd64 && !purego

package gemm

import (
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
)

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

// TestNarrowFast checks the AVX-512 narrowing stores against dtype's
// scalar conversions bit for bit: a stride through every float32 bit
// pattern (both signs, NaNs with every payload class, subnormals, the
// overflow edges), the rounding ties of each format, and every tail
// length, with the words past n left alone.
func TestNarrowFast(t *testing.T) {
	if !narrowFast(true, nil, nil) {
		t.Skip("the AVX-512 kernels are not active")
	}
	var src []float32
	for b := uint64(0); b < 1<<32; b += 65521 {
		src = append(src, math.Float32frombits(uint32(b)))
	}
	for _, b := range []uint32{
		0, 0x80000000, 0x7f800000, 0xff800000, 0x7f800001, 0x7fc00000, 0xffffffff, 0x7f7fffff,
		0x3f808000, 0x3f818000, 0x3f808001, 0x3f807fff, // bf16 ties and neighbours
		0x00008000, 0x00018000, 0x007fffff, 0x00800000, // subnormal ties
		0x477fe000, 0x477fefff, 0x477ff000, 0x33000000, 0x33000001, 0x387fc000, // f16 edges
	} {
		src = append(src, math.Float32frombits(b), math.Float32frombits(b^0x80000000))
	}
	for _, bf := range []bool{true, false} {
		for _, n := range []int{len(src), 0, 1, 7, 15, 16, 17, 31, 33} {
			got := make([]uint16, n+3)
			for i := range got {
				got[i] = 0xabcd
			}
			if !narrowFast(bf, got[:n], src[:n]) {
				t.Fatal("narrowFast declined")
			}
			for i := range got {
				want := uint16(0xabcd)
				if i < n {
					if bf {
						want = uint16(dtype.BF16FromFloat32(src[i]))
					} else {
						want = uint16(dtype.F16FromFloat32(src[i]))
					}
				}
				if got[i] != want {
					t.Fatalf("bf=%t n=%d: [%d] of %#08x = %#04x, want %#04x", bf, n, i, math.Float32bits(src[min(i, n-1)]), got[i], want)
				}
			}
		}
	}
}

// TestLowpSkinnyRoutes pins which skinny half-precision products run
// packed on each tier (lowpSkinnyPacked): none on the AVX2 and generic
// tiers, on AVX-512 bf16 unless it runs on AMX tiles, and f16 except with
// at most 4 columns and 1 Mi elements of A, or at most 2^18 multiply-adds.
func TestLowpSkinnyRoutes(t *testing.T) {
	type route struct {
		bf      bool
		m, n, k int
	}
	f16 := map[route]bool{ // packed on AVX-512
		{false, 1024, 4, 1024}: false, {false, 1024, 8, 1024}: true, {false, 4096, 4, 1024}: true,
		{false, 4, 1024, 1024}: true, {false, 10, 128, 128}: false, {false, 10, 256, 256}: true,
	}
	bf16 := []route{{true, 1024, 4, 1024}, {true, 4, 1024, 1024}, {true, 10, 128, 128}}
	for _, im := range []*impl{genericImpl, avx2Impl} {
		for r := range f16 {
			if lowpSkinnyPacked(im, r.bf, r.m, r.n, r.k) {
				t.Errorf("%s: %+v runs packed, want unpacked", im.name, r)
			}
		}
		for _, r := range bf16 {
			if lowpSkinnyPacked(im, r.bf, r.m, r.n, r.k) {
				t.Errorf("%s: %+v runs packed, want unpacked", im.name, r)
			}
		}
	}
	im := fastImpl
	if im == nil || im.name != "avx512" {
		t.Skip("no AVX-512 tier on this machine")
	}
	_, path := bf16Kernels(im)
	for r, want := range f16 {
		if got := lowpSkinnyPacked(im, r.bf, r.m, r.n, r.k); got != want {
			t.Errorf("avx512: %+v packed %v, want %v", r, got, want)
		}
	}
	for _, r := range bf16 {
		if got := lowpSkinnyPacked(im, r.bf, r.m, r.n, r.k); got != (path != "amx") {
			t.Errorf("avx512: %+v packed %v, want %v", r, got, path != "amx")
		}
	}
}
