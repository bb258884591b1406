package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
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
			k := floatKey32(float32(r.NormFloat64()))
			or, and = or|k, and&k
			src[i] = uint64(k)<<32 | uint64(i)
		}
		w, tmp := make([]uint64, n), make([]uint64, n)
		var h sortHist
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			best := time.Duration(math.MaxInt64)
			for b.Loop() {
				copy(w, src)
				t0 := time.Now()
				sortWords(w, tmp, 0, or&^and, runtime.GOMAXPROCS(0), &h, func(int, []uint64) {})
				best = min(best, time.Since(t0))
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
			b.ReportMetric(float64(best.Nanoseconds()), "best-ns")
		})
	}
}
