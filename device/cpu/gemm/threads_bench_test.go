//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

// BenchmarkWorkers times square products of 64 to 512 with the goroutine
// rule's workScale swept from 2^11 to 2^21 multiply-adds, so that one run
// on a machine with many cores shows how many goroutines each size pays
// for there ("p" in the name: the goroutines the setting gives at this
// GOMAXPROCS). Every call follows the last at once, so the team's helpers
// are awake, as in a training step.
func BenchmarkWorkers(b *testing.B) {
	defer func(v int) { workScale = v }(workScale)
	for _, n := range []int{64, 96, 128, 192, 256, 384, 512} {
		s := benchShape{m: n, n: n, k: n}
		benchWorkers[float32](b, s)
		benchWorkers[float64](b, s)
	}
}

func benchWorkers[T float](b *testing.B, s benchShape) {
	sets := skinnySets[T](s, 0)
	var zero T
	last := -1
	for e := 11; e <= 21; e++ {
		workScale = 1 << e
		p := workers(s.m, s.n, s.k)
		if p == last {
			continue // the same split as the last setting
		}
		last = p
		b.Run(fmt.Sprintf("%s/%T/scale=2^%d/p=%d", s, zero, e, p), func(b *testing.B) {
			call := skinnyProduct(s, sets, 0)
			if err := call(); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := call(); err != nil {
					b.Fatal(err)
				}
			}
			reportGFLOPS(b, s)
		})
	}
}

// BenchmarkSkinnyThreads times the skinny products and GEMVs with the
// unpacked path's bytesScale swept from off (the multiply-add rule alone)
// down to 16 KiB, on operands reused from call to call (in the caches
// where they fit): how many goroutines a bandwidth-bound product pays for
// on this machine. GB/s of the bytes the product must move.
func BenchmarkSkinnyThreads(b *testing.B) {
	if !hasAVX512() {
		b.Skip("the skinny kernels measured are AVX-512")
	}
	defer func(v int) { bytesScale = v }(bytesScale)
	shapes := append([]benchShape{{m: 1, n: 512, k: 256}, {m: 1, n: 512, k: 512}, {m: 512, n: 1, k: 512, transA: true}}, skinnyShapes...)
	for _, s := range shapes {
		benchSkinnyThreads[float32](b, s)
		benchSkinnyThreads[float64](b, s)
	}
}

func benchSkinnyThreads[T float](b *testing.B, s benchShape) {
	sets := skinnySets[T](s, 0)
	var zero T
	size := int(unsafe.Sizeof(zero))
	bytes := skinnyBytes(s, size)
	last := -1
	for _, v := range []int{1 << 62, 4 << 20, 1 << 20, 512 << 10, 256 << 10, 128 << 10, 64 << 10, 32 << 10, 16 << 10} {
		bytesScale = v
		p := min(skinnyWorkers(s.m, s.n, s.k, size), runtime.GOMAXPROCS(0))
		if p == last {
			continue
		}
		last = p
		name := "off"
		if v < 1<<62 {
			name = fmt.Sprintf("%dK", v>>10)
		}
		b.Run(fmt.Sprintf("%s/%T/bytes=%s/p=%d", s, zero, name, p), func(b *testing.B) {
			call := skinnyProduct(s, sets, 0)
			if err := call(); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := call(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}
