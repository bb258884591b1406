package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkLSDWords: the in-cache radix passes alone on rows of normal f32
// keys.
func BenchmarkLSDWords(b *testing.B) {
	for _, n := range []int{1024, 1 << 16} {
		r := rand.New(rand.NewPCG(1, 2))
		src := make([]uint64, n)
		for i := range src {
			src[i] = uint64(floatKey32(float32(r.NormFloat64())))<<32 | uint64(i)
		}
		w, tmp := make([]uint64, n), make([]uint64, n)
		var h sortHist
		b.Run(string(rune('0'+len(src)%10)), func(b *testing.B) {
			for b.Loop() {
				copy(w, src)
				lsdWords(w, tmp, math.MaxUint32, &h)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
		})
	}
}

func BenchmarkAnchorSum(b *testing.B) {
	w := make([]uint64, 1024)
	var s uint64
	for b.Loop() {
		for _, x := range w {
			s += x
		}
	}
	b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Melem/s")
	_ = s
}
