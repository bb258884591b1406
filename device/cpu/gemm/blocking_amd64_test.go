//go:build amd64 && !purego

package gemm

import "testing"

// TestBlockSizes pins the AVX-512 cache blocks that the comments of
// panelCache and docs/benchmarks.md quote: the L1 rule (Intel) and the
// quarter-of-L2 rule (AMD) on the caches of the Zen 5 EPYC these were
// measured on (48 KiB L1, 1 MiB L2, no L3 reported), for both tiles, and the
// floors on small caches.
func TestBlockSizes(t *testing.T) {
	zen5 := cacheSizes{l1: 48 << 10, l2: 1 << 20, l3: 8 << 20, amd: true}
	l1Rule := zen5
	l1Rule.amd = false
	small := cacheSizes{l1: 16 << 10, l2: 256 << 10, l3: 1 << 20}
	for _, tc := range []struct {
		name       string
		c          cacheSizes
		mr, nr     int
		size       int
		mc, kc, nc int
	}{
		{"L1 rule f32", l1Rule, 14, 32, 4, 490, 264, 1984},
		{"L1 rule f64", l1Rule, 14, 16, 8, 322, 200, 1296},
		{"AMD f32", zen5, 14, 32, 4, 252, 512, 1024},
		{"AMD f64", zen5, 14, 16, 8, 126, 512, 512},
		{"small caches f64", small, 14, 16, 8, 252, 64, 512},
	} {
		mc, kc, nc := blockSizes(tc.mr, tc.nr, tc.size, tc.c)
		if mc != tc.mc || kc != tc.kc || nc != tc.nc {
			t.Errorf("%s: blockSizes = mc %d, kc %d, nc %d; want %d, %d, %d", tc.name, mc, kc, nc, tc.mc, tc.kc, tc.nc)
		}
	}
	// This CPU's blocks: whole panels, and steps of eight in [64, 512].
	im := avx512Impl()
	checkBlocks(t, im.f32)
	checkBlocks(t, im.f64)
}

func checkBlocks[T float](t *testing.T, ks *kernels[T]) {
	t.Helper()
	if ks.mc%ks.mr != 0 || ks.nc%ks.nr != 0 || ks.kc%8 != 0 || ks.kc < 64 || ks.kc > 512 {
		t.Errorf("%T: blocks mc %d, kc %d, nc %d for a %dx%d tile: want mc a multiple of mr, nc of nr, kc of 8 in [64, 512]", *new(T), ks.mc, ks.kc, ks.nc, ks.mr, ks.nr)
	}
}
