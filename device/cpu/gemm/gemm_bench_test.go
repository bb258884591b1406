package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// benchShape is one product to time: op(A) is m x k, op(B) is k x n.
type benchShape struct {
	m, n, k        int
	transA, transB bool
}

func (s benchShape) String() string {
	name := fmt.Sprintf("%dx%dx%d", s.m, s.n, s.k)
	if s.transA {
		name += "_tA"
	}
	if s.transB {
		name += "_tB"
	}
	return name
}

var benchShapes = []benchShape{
	{m: 64, n: 64, k: 64},
	{m: 128, n: 128, k: 128},
	{m: 256, n: 256, k: 256},
	{m: 512, n: 512, k: 512},
	{m: 1024, n: 1024, k: 1024},
	{m: 2048, n: 2048, k: 2048},
	{m: 1024, n: 4096, k: 1024},
	{m: 1024, n: 1024, k: 1024, transA: true},
	{m: 1024, n: 1024, k: 1024, transB: true},
	{m: 1024, n: 1024, k: 1024, transA: true, transB: true},
	// A few rows: the axpy form on Intel's AVX-512 tier (axpyLimits).
	{m: 12, n: 256, k: 256},
	{m: 16, n: 1024, k: 1024},
	{m: 24, n: 512, k: 512},
	// Tens of rows: the packed path, whose copy of B is most of the call.
	{m: 48, n: 1024, k: 1024},
	{m: 96, n: 1024, k: 1024},
	{m: 192, n: 1024, k: 1024},
	// Skinny shapes take the unpacked path.
	{m: 4, n: 1024, k: 1024},
	{m: 1024, n: 4, k: 1024, transB: true},
}

// benchOperands makes the stored A (ra x ca), B (rb x cb) and C for a shape.
func benchOperands[T float](s benchShape) (a, b, c []T, lda, ldb int) {
	rng := rand.New(rand.NewPCG(1, 2))
	ra, ca := stored(s.transA, s.m, s.k)
	rb, cb := stored(s.transB, s.k, s.n)
	a = make([]T, ra*ca)
	b = make([]T, rb*cb)
	c = make([]T, s.m*s.n)
	for i := range a {
		a[i] = T(rng.Float64() - 0.5)
	}
	for i := range b {
		b[i] = T(rng.Float64() - 0.5)
	}
	return a, b, c, ca, cb
}

func reportGFLOPS(b *testing.B, s benchShape) {
	flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func gonumTrans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// BenchmarkF32 times F32 (sub-benchmark named after the active kernel) and
// gonum's blas32.Gemm on the same data, side by side.
func BenchmarkF32(b *testing.B) { benchF32(b, benchShapes) }

// benchF32 times F32 and gonum's blas32.Gemm on each shape.
func benchF32(b *testing.B, shapes []benchShape) {
	for _, s := range shapes {
		a, bm, c, lda, ldb := benchOperands[float32](s)
		b.Run(s.String()+"/tessera-"+Kernel(), func(b *testing.B) {
			// One untimed call first (b.Loop starts the clock): it fills
			// the buffer pools, so -benchtime 3x measures steady state.
			_ = F32(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			for b.Loop() {
				if err := F32(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n); err != nil {
					b.Fatal(err)
				}
			}
			reportGFLOPS(b, s)
		})
		b.Run(s.String()+"/gonum", func(b *testing.B) {
			ra, ca := stored(s.transA, s.m, s.k)
			rb, cb := stored(s.transB, s.k, s.n)
			ga := blas32.General{Rows: ra, Cols: ca, Stride: lda, Data: a}
			gb := blas32.General{Rows: rb, Cols: cb, Stride: ldb, Data: bm}
			gc := blas32.General{Rows: s.m, Cols: s.n, Stride: s.n, Data: c}
			blas32.Gemm(gonumTrans(s.transA), gonumTrans(s.transB), 1, ga, gb, 0, gc)
			for b.Loop() {
				blas32.Gemm(gonumTrans(s.transA), gonumTrans(s.transB), 1, ga, gb, 0, gc)
			}
			reportGFLOPS(b, s)
		})
	}
}

// BenchmarkF64 times F64 and gonum's blas64.Gemm on the same data.
func BenchmarkF64(b *testing.B) {
	for _, s := range benchShapes {
		a, bm, c, lda, ldb := benchOperands[float64](s)
		b.Run(s.String()+"/tessera-"+Kernel(), func(b *testing.B) {
			_ = F64(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			for b.Loop() {
				if err := F64(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n); err != nil {
					b.Fatal(err)
				}
			}
			reportGFLOPS(b, s)
		})
		b.Run(s.String()+"/gonum", func(b *testing.B) {
			ra, ca := stored(s.transA, s.m, s.k)
			rb, cb := stored(s.transB, s.k, s.n)
			ga := blas64.General{Rows: ra, Cols: ca, Stride: lda, Data: a}
			gb := blas64.General{Rows: rb, Cols: cb, Stride: ldb, Data: bm}
			gc := blas64.General{Rows: s.m, Cols: s.n, Stride: s.n, Data: c}
			blas64.Gemm(gonumTrans(s.transA), gonumTrans(s.transB), 1, ga, gb, 0, gc)
			for b.Loop() {
				blas64.Gemm(gonumTrans(s.transA), gonumTrans(s.transB), 1, ga, gb, 0, gc)
			}
			reportGFLOPS(b, s)
		})
	}
}

// BenchmarkGeneric times the portable kernels on one mid-size product, to
// show what machines without AVX2+FMA (or TESSERA_CPU=generic) get.
func BenchmarkGeneric(b *testing.B) {
	s := benchShape{m: 512, n: 512, k: 512}
	a32, b32, c32, lda, ldb := benchOperands[float32](s)
	a64, b64, c64, _, _ := benchOperands[float64](s)
	withKernel(b, genericImpl.name, func() {
		b.Run("F32/"+s.String(), func(b *testing.B) {
			for b.Loop() {
				if err := F32(false, false, s.m, s.n, s.k, 1, a32, lda, b32, ldb, 0, c32, s.n); err != nil {
					b.Fatal(err)
				}
			}
			reportGFLOPS(b, s)
		})
		b.Run("F64/"+s.String(), func(b *testing.B) {
			for b.Loop() {
				if err := F64(false, false, s.m, s.n, s.k, 1, a64, lda, b64, ldb, 0, c64, s.n); err != nil {
					b.Fatal(err)
				}
			}
			reportGFLOPS(b, s)
		})
	})
}

// BenchmarkMicroKernel times the active micro-kernel alone on one core,
// with its panels in cache: the ceiling the packed path can reach per core.
func BenchmarkMicroKernel(b *testing.B) {
	b.Run("F32", func(b *testing.B) { benchMicro(b, active.Load().f32) })
	b.Run("F64", func(b *testing.B) { benchMicro(b, active.Load().f64) })
}

func benchMicro[T float](b *testing.B, ks *kernels[T]) {
	const k = 256
	ap := make([]T, ks.mr*k)
	bp := make([]T, ks.nr*k)
	for i := range ap {
		ap[i] = T(i%7) * 0.125
	}
	for i := range bp {
		bp[i] = T(i%5) * 0.25
	}
	c := make([]T, ks.mr*ks.nr)
	const calls = 2000 // per iteration, so that -benchtime 3x is long enough
	for b.Loop() {
		for range calls {
			ks.micro(k, &ap[0], &bp[0], &c[0], ks.nr, 1, 1)
		}
	}
	b.ReportMetric(2*float64(ks.mr*ks.nr*k*calls)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkMicroKernelStream times the active micro-kernel on one core as
// the packed path runs it in a 2048-wide product, without the packing: one
// row block of 19 A panels (in L2) times every B panel of a kc x 2048 block
// (from L3), accumulating into a 2048-wide C whose row block moves on each
// iteration (C from memory; every page of C is written before the timing
// starts, so first-touch page faults are not counted), with the kernel
// set's kc. Against
// BenchmarkMicroKernel (everything in L1) it shows what streaming the
// panels and C costs; it is how the C prefetch and kc were chosen.
func BenchmarkMicroKernelStream(b *testing.B) {
	b.Run("F32", func(b *testing.B) { benchMicroStream(b, active.Load().f32) })
	b.Run("F64", func(b *testing.B) { benchMicroStream(b, active.Load().f64) })
}

func benchMicroStream[T float](b *testing.B, ks *kernels[T]) {
	const n, panels, crows = 2048, 19, 2048
	mr, nr, kc := ks.mr, ks.nr, ks.kc
	ap := getBuf[T](panels * mr * kc)
	bp := getBuf[T](n * kc)
	defer putBuf(ap)
	defer putBuf(bp)
	for i := range ap.data {
		ap.data[i] = T(i%7) * 0.125
	}
	for i := range bp.data {
		bp.data[i] = T(i%5) * 0.25
	}
	c := make([]T, crows*n)
	for i := range c {
		c[i] = 1
	}
	blocks := crows / (panels * mr)
	pass := func(blk int) {
		c0 := blk * panels * mr * n
		for jp := range n / nr {
			for ip := range panels {
				ks.micro(kc, &ap.data[ip*mr*kc], &bp.data[jp*nr*kc], &c[c0+ip*mr*n+jp*nr], n, 1, 1)
			}
		}
	}
	pass(0)
	blk := 0
	for b.Loop() {
		blk = (blk + 1) % blocks
		pass(blk)
	}
	b.ReportMetric(2*float64(panels*mr*n*kc)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkPack times each kernel set's packer against the portable
// packPanel on full panels of its own widths (mr for A, nr for B), in both
// storage orders: "copy" when each step is contiguous, "transpose" when
// each row is contiguous along k. The panel source is 256 steps of a
// 1024-wide matrix, as in a large product.
func BenchmarkPack(b *testing.B) {
	for _, im := range append([]*impl{genericImpl}, tiers...) {
		benchPack(b, im.name, im.f32)
		benchPack(b, im.name, im.f64)
	}
}

func benchPack[T float](b *testing.B, name string, ks *kernels[T]) {
	const kc, ld = 256, 1024
	src := make([]T, ld*ld)
	for i := range src {
		src[i] = T(i % 13)
	}
	var zero T
	typ := fmt.Sprintf("%T", zero)
	for _, width := range []int{ks.mr, ks.nr} {
		dst := make([]T, kc*width)
		for _, order := range []string{"copy", "transpose"} {
			rs, cs := 1, ld
			if order == "transpose" {
				rs, cs = ld, 1
			}
			for _, packer := range []string{name, "packPanel"} {
				pack := ks.pack
				if packer == "packPanel" {
					if name == genericImpl.name {
						continue
					}
					pack = packPanel[T]
				}
				b.Run(fmt.Sprintf("%s/%s/w%d/%s/%s", name, typ, width, order, packer), func(b *testing.B) {
					for b.Loop() {
						pack(dst, src, 0, rs, cs, width, width, kc)
					}
					b.ReportMetric(float64(kc*width*int(unsafe.Sizeof(zero)))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
				})
			}
		}
	}
}
