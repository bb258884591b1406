//go:build cgo

package webgpu

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/shaders"
)

// BenchmarkMatmul compares the tiled kernel the device picks (regblock on
// software adapters) with the naive one-invocation-per-output kernel, side
// by side, on square f32 matrices. Run with -benchtime=1x or 2x: the naive
// 1024 case takes seconds per multiplication on lavapipe.
func BenchmarkMatmul(b *testing.B) {
	g := dev(b)
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{256, 512, 1024} {
		vals := randVals(r, dtype.F32, n*n, -1, 1)
		a := upload(b, g, dtype.F32, vals)
		c := upload(b, g, dtype.F32, vals)
		d := alloc(b, g, dtype.F32, n*n)
		l := contig(n, n)
		for _, variant := range []string{g.plan.MatmulVariant, "shared", "naive"} {
			b.Run(fmt.Sprintf("%s/%d", variant, n), func(b *testing.B) {
				if err := g.MatmulWith("Matmul", op2(d, l), op2(a, l), op2(c, l), variant); err != nil {
					b.Fatal(err)
				}
				if err := g.Sync(); err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				iters := 0
				for b.Loop() {
					if err := g.MatmulWith("Matmul", op2(d, l), op2(a, l), op2(c, l), variant); err != nil {
						b.Fatal(err)
					}
					if err := g.Sync(); err != nil {
						b.Fatal(err)
					}
					iters++
				}
				sec := time.Since(start).Seconds()
				b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(iters)/sec/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkOpOverhead measures the cost of one tiny elementwise op (Neg of
// 256 f32) through the backend, against a hand-written go-webgpu dispatch
// of the same shader (pipeline and bind group made once), each waited for
// one by one ("sync") or submitted in batches of 64 ("batched"; by hand
// with a compute pass per dispatch or one pass for all, as the backend
// does).
func BenchmarkOpOverhead(b *testing.B) {
	g := dev(b)
	const n = 256
	src := upload(b, g, dtype.F32, make([]float64, n))
	dst := alloc(b, g, dtype.F32, n)
	l := contig(n)
	b.Run("backend/sync", func(b *testing.B) {
		for b.Loop() {
			if err := g.Unary(device.Neg, op2(dst, l), op2(src, l)); err != nil {
				b.Fatal(err)
			}
			if err := g.Sync(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "us/op")
	})
	b.Run("backend/batched", func(b *testing.B) {
		for b.Loop() {
			for range 64 {
				if err := g.Unary(device.Neg, op2(dst, l), op2(src, l)); err != nil {
					b.Fatal(err)
				}
			}
			if err := g.Sync(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*64), "us/op")
	})

	// The same kernel dispatched by hand: pipeline, uniform and bind group
	// made once, outside the loop, so only the per-dispatch work is timed.
	vars := map[string]string{"OP_EXPR": "-x", "OP_T": "f32", "OP_R": "f32", "DC": "f32", "SC": "f32"}
	code, err := shaders.Render("unary.wgsl", vars)
	if err != nil {
		b.Fatal(err)
	}
	mod, err := g.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: code}})
	if err != nil {
		b.Fatal(err)
	}
	defer mod.Release()
	pipe, err := g.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: "main"}})
	if err != nil {
		b.Fatal(err)
	}
	defer pipe.Release()
	params := gpucore.EWParams{N: n}
	params.W.Rank = 1
	params.W.Shape[0][0] = n
	params.W.St[0][0], params.W.St[2][0] = 1, 1
	ub, err := g.dev.CreateBufferInit(&wgpu.BufferInitDescriptor{Contents: gpucore.Pack(nil, params), Usage: wgpu.BufferUsage_Uniform})
	if err != nil {
		b.Fatal(err)
	}
	defer ub.Release()
	bgl := pipe.GetBindGroupLayout(0)
	defer bgl.Release()
	db, sb := dst.(*gbuf), src.(*gbuf)
	bg, err := g.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Layout: bgl, Entries: []wgpu.BindGroupEntry{
		{Binding: 0, Buffer: ub, Size: wgpu.WholeSize},
		{Binding: 1, Buffer: db.b, Size: wgpu.WholeSize},
		{Binding: 2, Buffer: sb.b, Size: wgpu.WholeSize},
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer bg.Release()
	run := func(b *testing.B, per int, onePass bool) {
		for b.Loop() {
			enc, err := g.dev.CreateCommandEncoder(nil)
			if err != nil {
				b.Fatal(err)
			}
			var pass *wgpu.ComputePassEncoder
			for i := range per {
				if pass == nil {
					pass = enc.BeginComputePass(nil)
				}
				pass.SetPipeline(pipe)
				pass.SetBindGroup(0, bg, nil)
				pass.DispatchWorkgroups(1, 1, 1)
				if !onePass || i == per-1 {
					if err := pass.End(); err != nil {
						b.Fatal(err)
					}
					pass.Release()
					pass = nil
				}
			}
			cb, err := enc.Finish(nil)
			if err != nil {
				b.Fatal(err)
			}
			enc.Release()
			g.mu.Lock()
			g.queue.Submit(cb)
			var done atomic.Bool
			onSubmittedWorkDone(g.queue, func(wgpu.QueueWorkDoneStatus) { done.Store(true) })
			g.mu.Unlock()
			cb.Release()
			if err := g.waitUntil("bench", done.Load, false); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*per), "us/op")
	}
	b.Run("handwritten/sync", func(b *testing.B) { run(b, 1, true) })
	b.Run("handwritten/batched-pass-per-op", func(b *testing.B) { run(b, 64, false) })
	b.Run("handwritten/batched-one-pass", func(b *testing.B) { run(b, 64, true) })
}

// BenchmarkTransfer uploads 64 MiB as the span of a contiguous view and as
// the span of a transposed view (the same bytes, sent as they are: no host
// reordering), and reads 64 MiB back.
func BenchmarkTransfer(b *testing.B) {
	g := dev(b)
	const side = 4096 // 4096x4096 f32 = 64 MiB
	buf := alloc(b, g, dtype.F32, side*side)
	host := make([]byte, side*side*4)
	for i := range host {
		host[i] = byte(i * 7)
	}
	contiguous := contig(side, side)
	transposed, _ := contiguous.Transpose(0, 1)
	for _, c := range []struct {
		name string
		lo   int
		hi   int
	}{{"upload/contiguous", 0, side * side}, {"upload/transposed", spanLo(transposed), spanHi(transposed)}} {
		b.Run(c.name, func(b *testing.B) {
			span := host[c.lo*4 : c.hi*4]
			b.SetBytes(int64(len(span)))
			for b.Loop() {
				if err := g.Upload(buf, c.lo, span); err != nil {
					b.Fatal(err)
				}
				if err := g.Sync(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(span))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
	b.Run("readback", func(b *testing.B) {
		b.SetBytes(int64(len(host)))
		for b.Loop() {
			if err := g.Download(host, buf, 0); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(host))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
}

func spanLo(l interface{ Span() (int, int) }) int { lo, _ := l.Span(); return lo }
func spanHi(l interface{ Span() (int, int) }) int { _, hi := l.Span(); return hi }
