//go:build cgo && linux

package gl

import (
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// BenchmarkMatmul compares the matmul kernels on square f32 matrices, side
// by side: the device's default (regblock, 4x4 register blocking, on
// software rasterisers), the shared-memory tiled one, and the naive
// one-invocation-per-output baseline. Run with -benchtime=2x: a naive
// 1024 product takes seconds on llvmpipe.
func BenchmarkMatmul(b *testing.B) {
	g := dev(b)
	for _, n := range []int{256, 512, 1024} {
		a := upload(b, g, ramp(n*n, 0.001))
		c := upload(b, g, ramp(n*n, 0.002))
		d, _ := g.Alloc(dtype.F32, n*n)
		l := contig(n, n)
		for _, variant := range []string{"regblock", "shared", "naive"} {
			b.Run(fmt.Sprintf("%s/%d", variant, n), func(b *testing.B) {
				mm := func() {
					if err := g.MatmulWith("Matmul", op(d, l), op(a, l), op(c, l), variant); err != nil {
						b.Fatal(err)
					}
					if err := g.Sync(); err != nil {
						b.Fatal(err)
					}
				}
				mm() // compile outside the timing
				b.ResetTimer()
				for b.Loop() {
					mm()
				}
				b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
		g.Free(a)
		g.Free(c)
		g.Free(d)
	}
}

// BenchmarkOpOverhead measures the cost of one tiny op (Neg of 256 f32)
// through the backend: each waited for ("sync"), and 64 issued before one
// wait ("batched64").
func BenchmarkOpOverhead(b *testing.B) {
	g := dev(b)
	const n = 256
	src := upload(b, g, make([]float64, n))
	dst, _ := g.Alloc(dtype.F32, n)
	l := contig(n)
	if err := g.Unary(device.Neg, op(dst, l), op(src, l)); err != nil { // compile outside the timing
		b.Fatal(err)
	}
	for _, per := range []int{1, 64} {
		name := "sync"
		if per > 1 {
			name = fmt.Sprintf("batched%d", per)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for i := 0; i < per; i++ {
					if err := g.Unary(device.Neg, op(dst, l), op(src, l)); err != nil {
						b.Fatal(err)
					}
				}
				if err := g.Sync(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(b.N*per), "us/op")
		})
	}
}

// BenchmarkTransfer uploads 64 MiB (one glBufferSubData straight from Go
// memory) and reads 64 MiB back (a fence, then glGetBufferSubData into the
// destination slice), beside a Go copy of the same bytes as the anchor.
func BenchmarkTransfer(b *testing.B) {
	g := dev(b)
	const n = 16 << 20 // f32 elements: 64 MiB
	buf, err := g.Alloc(dtype.F32, n)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Free(buf)
	host := make([]byte, 4*n)
	for i := range host {
		host[i] = byte(i * 7)
	}
	other := make([]byte, len(host))
	gbs := func(b *testing.B) {
		b.ReportMetric(float64(len(host))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	}
	b.Run("upload", func(b *testing.B) {
		for b.Loop() {
			if err := g.Upload(buf, 0, host); err != nil {
				b.Fatal(err)
			}
			if err := g.Sync(); err != nil {
				b.Fatal(err)
			}
		}
		gbs(b)
	})
	b.Run("readback", func(b *testing.B) {
		for b.Loop() {
			if err := g.Download(other, buf, 0); err != nil {
				b.Fatal(err)
			}
		}
		gbs(b)
	})
	b.Run("memcpy", func(b *testing.B) {
		for b.Loop() {
			copy(other, host)
		}
		gbs(b)
	})
}
