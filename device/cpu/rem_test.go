package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
)

// TestRemainder32 checks the float32 remainders and floored quotient bit
// for bit against the op table's float64 references rounded to float32
// (math.Mod for Fmod), on
// random bit patterns of every class (subnormals, infinities, NaN, both
// signs, exponents far apart) and on hand-picked edges.
func TestRemainder32(t *testing.T) {
	edges := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.1, -2.5, 3, 7.5, 1e30, -1e30, 3.4e38,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1.1754942e-38, 1.1754944e-38, 5e-39,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 16777216, 16777217, 0x1p-126, 0x1p127}
	var as, bs []float32
	for _, a := range edges {
		for _, b := range edges {
			as, bs = append(as, a), append(bs, b)
		}
	}
	r := rand.New(rand.NewPCG(3, 5))
	for range 400000 {
		as = append(as, math.Float32frombits(r.Uint32()))
		bs = append(bs, math.Float32frombits(r.Uint32()))
		// Nearby exponents too, where the quotient is small.
		x := math.Float32frombits(r.Uint32())
		as = append(as, x)
		bs = append(bs, x*float32(r.Float64()*8-4))
	}
	for _, op := range []device.BinaryOp{device.Fmod, device.Mod, device.FloorDiv} {
		def, _ := op.Def()
		fast := fast32Binary(op)
		bad := 0
		for i, a := range as {
			b := bs[i]
			got, want := fast(a, b), float32(def.F64(float64(a), float64(b)))
			if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
				if bad < 5 {
					t.Errorf("%v(%g, %g) = %g (%#x), want %g (%#x)", op, a, b, got, math.Float32bits(got), want, math.Float32bits(want))
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%v: %d of %d differ", op, bad, len(as))
		}
	}
}

func BenchmarkFmod32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	xs, ys := make([]float32, 4096), make([]float32, 4096)
	for i := range xs {
		xs[i], ys[i] = float32(r.NormFloat64()*10), float32(r.Float64()+0.5)
	}
	var sink float32
	b.Run("fmod32", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				sink += fmod32(x, ys[i])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/elem")
	})
	b.Run("math.Mod", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				sink += float32(math.Mod(float64(x), float64(ys[i])))
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/elem")
	})
	_ = sink
}
