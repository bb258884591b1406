//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

// skinnyShapes are the bandwidth-bound products: a few rows or columns
// against a long operand, and true GEMV (m = 1 or n = 1).
var skinnyShapes = []benchShape{
	{m: 4, n: 1024, k: 1024},
	{m: 4, n: 1024, k: 1024, transB: true},
	{m: 1024, n: 4, k: 1024},
	{m: 1024, n: 4, k: 1024, transB: true},
	{m: 1, n: 1024, k: 1024},
	{m: 1, n: 1024, k: 1024, transB: true},
	{m: 1024, n: 1, k: 1024},
	{m: 1024, n: 1, k: 1024, transA: true},
	{m: 1, n: 4096, k: 4096},
	{m: 4096, n: 1, k: 4096},
}

// skinnyBytes is what a product must move at least: A and B read once, C
// written once (beta = 0).
func skinnyBytes(s benchShape, size int) float64 {
	return float64(size) * float64(s.m*s.k+s.k*s.n+s.m*s.n)
}

// BenchmarkSkinny times the skinny and GEMV shapes as GB/s of the bytes
// they must move (skinnyBytes) and GFLOP/s, each next to its anchor in the
// same run: "read" streams the same A, B and C with AVX-512 loads
// (readLinesZ) on one goroutine and on GOMAXPROCS goroutines of the same
// team the products use, each reading the same fixed share every time: the
// machine's read bandwidth over those bytes wherever they sit in the cache
// hierarchy. The ratio of the two GB/s figures is how close the product
// comes to the bandwidth its bytes need. Every call here reuses one set of
// operands, so those of 16 MiB or less come from the caches;
// BenchmarkSkinnyCold times the same products on operands in memory.
func BenchmarkSkinny(b *testing.B) {
	if !hasAVX512() {
		b.Skip("the read anchor needs AVX-512")
	}
	for _, s := range skinnyShapes {
		benchSkinny(b, s, skinnySets[float32](s, 0))
		benchSkinny(b, s, skinnySets[float64](s, 0))
	}
}

// coldBytes is how many bytes of distinct operands BenchmarkSkinnyCold
// cycles through: more than twice the largest last-level cache of the
// machines this project has run on (105 MiB on a Sapphire Rapids socket),
// so that no call finds its operands in a cache from an earlier one.
const coldBytes = 256 << 20

// BenchmarkSkinnyCold times the four-row and four-column products of
// BenchmarkSkinny, and the same read anchor, with each call on the next of
// as many copies of the operands as fit in coldBytes: the products as they
// run when their long operand comes from memory (a model's weights larger
// than the cache), against the read bandwidth of memory over the same bytes.
func BenchmarkSkinnyCold(b *testing.B) {
	if !hasAVX512() {
		b.Skip("the read anchor needs AVX-512")
	}
	for _, s := range skinnyShapes {
		if s.m != 4 && s.n != 4 {
			continue // the GEMVs at 4096 already stream from memory in BenchmarkSkinny
		}
		benchSkinny(b, s, skinnySets[float32](s, coldBytes))
		benchSkinny(b, s, skinnySets[float64](s, coldBytes))
	}
}

// operandSet is one product's operands, as benchOperands makes them.
type operandSet[T float] struct {
	a, b, c []T
}

// skinnySets returns as many copies of s's operands as fit in total bytes
// (at least one), each starting on a cache line of one arena; the copies
// hold the same values.
func skinnySets[T float](s benchShape, total int) []operandSet[T] {
	a, bm, c, _, _ := benchOperands[T](s)
	var zero T
	size := int(unsafe.Sizeof(zero))
	line := 64 / size
	stride := (len(a)+line-1)/line*line + (len(bm)+line-1)/line*line + (len(c)+line-1)/line*line
	n := max(1, total/(stride*size))
	if n == 1 {
		return []operandSet[T]{{a, bm, c}}
	}
	arena := make([]T, n*stride+line)
	off := (line - int(uintptr(unsafe.Pointer(&arena[0]))%64)/size) % line
	sets := make([]operandSet[T], n)
	for i := range sets {
		carve := func(src []T) []T {
			dst := arena[off : off+len(src) : off+len(src)]
			copy(dst, src)
			off += (len(src) + line - 1) / line * line
			return dst
		}
		sets[i] = operandSet[T]{carve(a), carve(bm), carve(c)}
	}
	return sets
}

func benchSkinny[T float](b *testing.B, s benchShape, sets []operandSet[T]) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	typ := fmt.Sprintf("%T", zero)
	_, lda := stored(s.transA, s.m, s.k)
	_, ldb := stored(s.transB, s.k, s.n)
	bytes := skinnyBytes(s, size)
	b.Run(fmt.Sprintf("%s/%s/tessera-%s", s, typ, Kernel()), func(b *testing.B) {
		b.ReportAllocs()
		next := 0
		call := func() {
			o := &sets[next]
			next = (next + 1) % len(sets)
			var err error
			switch x := any(o.a).(type) {
			case []float32:
				err = F32(s.transA, s.transB, s.m, s.n, s.k, 1, x, lda, any(o.b).([]float32), ldb, 0, any(o.c).([]float32), s.n)
			case []float64:
				err = F64(s.transA, s.transB, s.m, s.n, s.k, 1, x, lda, any(o.b).([]float64), ldb, 0, any(o.c).([]float64), s.n)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		call()
		for b.Loop() {
			call()
		}
		reportGFLOPS(b, s)
		b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
	for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("%s/%s/read/threads=%d", s, typ, threads), func(b *testing.B) {
			sums := make([]uint64, threads)
			var parts [3][]T
			read := func(w int) {
				for _, p := range parts {
					lines := len(p) * size / 64
					l0, l1 := w*lines/threads, (w+1)*lines/threads
					if l1 > l0 {
						sums[w] += readLinesZ((*byte)(unsafe.Pointer(&p[l0*64/size])), l1-l0)
					}
				}
			}
			next := 0
			call := func() {
				o := &sets[next]
				next = (next + 1) % len(sets)
				parts = [3][]T{o.a, o.b, o.c}
				runTeamAll(threads, read)
			}
			call() // untimed: as the product, start warm
			for b.Loop() {
				call()
			}
			b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkAxpy4x4 times each kernel set's four-row axpy (the inner loop
// of a product with a few rows of C and B untransposed) on one core with
// its operands in L1: 4 rows of x times 16 coefficients into 4 rows of y,
// 256 values long. GFLOP/s against BenchmarkFMAPeak's one-thread figure is
// the ceiling the streaming path can reach per core.
func BenchmarkAxpy4x4(b *testing.B) {
	for _, im := range append([]*impl{genericImpl}, tiers...) {
		benchAxpy4x4(b, im.name, im.f32)
		benchAxpy4x4(b, im.name, im.f64)
	}
}

func benchAxpy4x4[T float](b *testing.B, name string, ks *kernels[T]) {
	if ks.axpy4x4 == nil {
		return
	}
	const n, calls = 256, 1000
	var zero T
	b.Run(fmt.Sprintf("%s/%T", name, zero), func(b *testing.B) {
		x := make([]T, 4*n)
		y := make([]T, 4*n)
		var s [16]T
		for i := range s {
			s[i] = T(i%5) * 0.125
		}
		for b.Loop() {
			for range calls {
				ks.axpy4x4(n, 1, &s[0], 1, 4, 1, &x[0], n, &y[0], n)
			}
		}
		b.ReportMetric(2*16*n*calls*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
