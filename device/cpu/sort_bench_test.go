package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// BenchmarkSortWords: the radix sort of packed (key, position) words of
// normal f32 keys alone, without key extraction and output: rows of 1024
// (in-cache LSD passes) and 1 Mi (most-significant-digit split on every
// core, then in-cache buckets); best-ns is the fastest single sort.
func BenchmarkSortWords(b *testing.B) {
	for _, n := range []int{1024, 1 << 20} {
		r := rand.New(rand.NewPCG(1, 2))
		src := make([]uint64, n)
		var or, and uint32 = 0, math.MaxUint32
		for i := range src {
			k, _ := floatKey(math.Float32bits(float32(r.NormFloat64())))
			or, and = or|k, and&k
			src[i] = uint64(k)<<32 | uint64(i)
		}
		w, tmp := make([]uint64, n), make([]uint64, n)
		var h sortHist
		out := wordsInto(make([]uint64, n), func(int, int) {})
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			best := time.Duration(math.MaxInt64)
			for b.Loop() {
				copy(w, src)
				t0 := time.Now()
				sortWords(w, tmp, 0, or&^and, runtime.GOMAXPROCS(0), &h, out)
				best = min(best, time.Since(t0))
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
			b.ReportMetric(float64(best.Nanoseconds()), "best-ns")
		})
	}
}

// BenchmarkDeviceSort: the backend's Sort of normal f32 (values and I64
// positions) along the last axis of [1 Mi] (one long line: the split on
// both cores) and [1024, 1024] (rows in cache, one per core); best-ns is
// the fastest single sort, cpu-ms/op the mean processor time of a sort
// (all threads). ci/bench-sort.sh times the same through the
// tensor layer against NumPy.
func BenchmarkDeviceSort(b *testing.B) {
	d := New()
	for _, shape := range [][]int{{1 << 20}, {1024, 1024}} {
		n := 1 << 20
		src, _ := d.Alloc(dtype.F32, n)
		vals, _ := d.Alloc(dtype.F32, n)
		idx, _ := d.Alloc(dtype.I64, n)
		r := rand.New(rand.NewPCG(3, 4))
		s := slice[float32](src.(*Buffer))
		for i := range s {
			s[i] = float32(r.NormFloat64())
		}
		l, _ := layout.Contiguous(shape...)
		b.Run(fmt.Sprint(shape), func(b *testing.B) {
			c0, best := cpuSeconds(), time.Duration(math.MaxInt64)
			for b.Loop() {
				t0 := time.Now()
				if err := d.Sort(device.Operand{Buf: vals, Layout: l}, device.Operand{Buf: idx, Layout: l}, device.Operand{Buf: src, Layout: l}, len(shape)-1, false); err != nil {
					b.Fatal(err)
				}
				best = min(best, time.Since(t0))
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N)*1e3, "cpu-ms/op")
			b.ReportMetric(float64(best.Nanoseconds()), "best-ns")
		})
	}
}
