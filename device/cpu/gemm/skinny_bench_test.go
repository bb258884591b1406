//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
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
// same run: "read" streams the same A, B and C with the widest loads the
// machine has (readLines) on one goroutine and on GOMAXPROCS goroutines of the same
// team the products use, each reading the same fixed share every time: the
// machine's read bandwidth over those bytes wherever they sit in the cache
// hierarchy. The ratio of the two GB/s figures is how close the product
// comes to the bandwidth its bytes need. Every call here reuses one set of
// operands, so those of 16 MiB or less come from the caches;
// BenchmarkSkinnyPaired times the four-row and four-column products on
// operands in memory too, and pairs each call with a read.
func BenchmarkSkinny(b *testing.B) {
	if readLines == nil {
		b.Skip("the read anchor needs AVX2 or AVX-512")
	}
	for _, s := range skinnyShapes {
		benchSkinny(b, s, skinnySets[float32](s, 0))
		benchSkinny(b, s, skinnySets[float64](s, 0))
	}
}

// coldBytes is how many bytes of distinct operands BenchmarkSkinnyPaired's
// "mem" runs cycle through: more than twice the largest last-level cache of the
// machines this project has run on (105 MiB on a Sapphire Rapids socket),
// so that no call finds its operands in a cache from an earlier one.
const coldBytes = 256 << 20

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

// skinnyProduct returns a function that runs s's product once, on the
// next of sets each call, starting at sets[start].
func skinnyProduct[T float](s benchShape, sets []operandSet[T], start int) func() error {
	_, lda := stored(s.transA, s.m, s.k)
	_, ldb := stored(s.transB, s.k, s.n)
	next := start % len(sets)
	return func() error {
		o := &sets[next]
		next = (next + 1) % len(sets)
		switch x := any(o.a).(type) {
		case []float32:
			return F32(s.transA, s.transB, s.m, s.n, s.k, 1, x, lda, any(o.b).([]float32), ldb, 0, any(o.c).([]float32), s.n)
		case []float64:
			return F64(s.transA, s.transB, s.m, s.n, s.k, 1, x, lda, any(o.b).([]float64), ldb, 0, any(o.c).([]float64), s.n)
		}
		return nil
	}
}

// readLines reads lines 64-byte lines from p and returns a checksum, with
// zmm loads (readLinesZ) where the machine has AVX-512, else ymm loads
// (readLinesY) where it has AVX2, else it is nil: the read anchor. Both
// read the lines as four streams, each fetched ahead of its loads, the
// fastest way of reading memory measured (docs/benchmarks.md, "A stronger
// read anchor").
var readLines = func() func(p *byte, lines int) uint64 {
	switch {
	case hasAVX512():
		return readLinesZ
	case cpuid.CPU.Supports(cpuid.AVX2):
		return readLinesY
	}
	return nil
}()

// TestReadLines checks that the read anchor's two widths read every line
// they are given and nothing else: their checksums are the sum of the
// lines' 64-bit words.
func TestReadLines(t *testing.T) {
	if !cpuid.CPU.Supports(cpuid.AVX2) {
		t.Skip("no AVX2")
	}
	// Up to 41 lines: quarters of none to ten lines, with every remainder.
	words := make([]uint64, 8*41)
	for i := range words {
		words[i] = uint64(i*i + 1)
	}
	for lines := range 42 {
		var want uint64
		for _, w := range words[:8*lines] {
			want += w
		}
		p := (*byte)(unsafe.Pointer(&words[0]))
		if got := readLinesY(p, lines); got != want {
			t.Errorf("readLinesY(%d lines) = %d, want %d", lines, got, want)
		}
		if hasAVX512() {
			if got := readLinesZ(p, lines); got != want {
				t.Errorf("readLinesZ(%d lines) = %d, want %d", lines, got, want)
			}
		}
	}
}

// skinnyRead returns a function that streams the next of sets' A, B and C
// (starting at sets[start]) once with the widest loads (readLines) on
// threads goroutines of the team the products use, each reading the same
// fixed share every time: the read anchor of the skinny benchmarks.
func skinnyRead[T float](threads int, sets []operandSet[T], start int) func() {
	var zero T
	size := int(unsafe.Sizeof(zero))
	sums := make([]uint64, threads)
	var parts [3][]T
	read := func(w int) {
		for _, p := range parts {
			lines := len(p) * size / 64
			l0, l1 := w*lines/threads, (w+1)*lines/threads
			if l1 > l0 {
				sums[w] += readLines((*byte)(unsafe.Pointer(&p[l0*64/size])), l1-l0)
			}
		}
	}
	next := start % len(sets)
	return func() {
		o := &sets[next]
		next = (next + 1) % len(sets)
		parts = [3][]T{o.a, o.b, o.c}
		runTeamAll(threads, read)
	}
}

func benchSkinny[T float](b *testing.B, s benchShape, sets []operandSet[T]) {
	var zero T
	typ := fmt.Sprintf("%T", zero)
	bytes := skinnyBytes(s, int(unsafe.Sizeof(zero)))
	b.Run(fmt.Sprintf("%s/%s/tessera-%s", s, typ, Kernel()), func(b *testing.B) {
		b.ReportAllocs()
		call := skinnyProduct(s, sets, 0)
		if err := call(); err != nil { // untimed: start warm
			b.Fatal(err)
		}
		for b.Loop() {
			if err := call(); err != nil {
				b.Fatal(err)
			}
		}
		reportGFLOPS(b, s)
		b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
	for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("%s/%s/read/threads=%d", s, typ, threads), func(b *testing.B) {
			call := skinnyRead(threads, sets, 0)
			call() // untimed: as the product, start warm
			for b.Loop() {
				call()
			}
			b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkSkinnyPaired times the four-row and four-column products of
// BenchmarkSkinny against the read anchor (on GOMAXPROCS goroutines) in
// pairs: every iteration runs one product and one read of the same bytes
// back to back, in alternating order, and "x-read" is the median over the
// iterations of the pair's ratio, product GB/s over read GB/s (with
// "GB/s" and "read-GB/s" the medians of each side). On a shared virtual
// machine the memory bandwidth moves by half within seconds, so best-of
// figures taken apart compare the drift; the pairs see the same moment.
// "cache" reuses one set of operands (4-16 MiB, from the caches); "mem"
// takes each call's operands from the next of as many copies as fill
// coldBytes: the products as they run when their long operand comes from
// memory (a model's weights larger than the cache).
func BenchmarkSkinnyPaired(b *testing.B) {
	if readLines == nil {
		b.Skip("the read anchor needs AVX2 or AVX-512")
	}
	for _, s := range skinnyShapes {
		if s.m != 4 && s.n != 4 {
			continue
		}
		for _, where := range []string{"cache", "mem"} {
			total := 0
			if where == "mem" {
				total = coldBytes
			}
			benchSkinnyPaired(b, s, where, skinnySets[float32](s, total))
			benchSkinnyPaired(b, s, where, skinnySets[float64](s, total))
		}
	}
}

func benchSkinnyPaired[T float](b *testing.B, s benchShape, where string, sets []operandSet[T]) {
	var zero T
	bytes := skinnyBytes(s, int(unsafe.Sizeof(zero)))
	b.Run(fmt.Sprintf("%s/%T/%s", s, zero, where), func(b *testing.B) {
		// The read walks the copies half a cycle away from the product's,
		// so that neither finds the other's bytes in the cache.
		product := skinnyProduct(s, sets, 0)
		read := skinnyRead(runtime.GOMAXPROCS(0), sets, len(sets)/2)
		timed := func(f func()) float64 {
			t0 := time.Now()
			f()
			return bytes / time.Since(t0).Seconds() / 1e9
		}
		var err error
		run := func() {
			if e := product(); e != nil {
				err = e
			}
		}
		run() // untimed: start warm
		read()
		var prod, rd, ratio []float64
		for i := 0; b.Loop(); i++ {
			var p, r float64
			if i%2 == 0 {
				p, r = timed(run), timed(read)
			} else {
				r, p = timed(read), timed(run)
			}
			prod, rd, ratio = append(prod, p), append(rd, r), append(ratio, p/r)
		}
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(median(prod), "GB/s")
		b.ReportMetric(median(rd), "read-GB/s")
		b.ReportMetric(median(ratio), "x-read")
	})
}

// median returns the middle of v (the mean of the two middle values when
// their count is even), sorting v in place.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
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
