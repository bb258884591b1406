package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
)

// TestRemainders checks the float32 and float64 remainders and floored
// quotients bit for bit against the op table's float64 references
// (rounded to float32; math.Mod for Fmod), on random bit patterns of
// every class (subnormals, infinities, NaN, both signs, exponents far
// apart), on pairs of nearby exponents (small quotients, where the fast
// paths run) and on hand-picked edges.
func TestRemainders(t *testing.T) {
	if raceEnabled {
		t.Skip("single-goroutine check of the scalar rules: runs in the stages without -race")
	}
	t.Run("f32", func(t *testing.T) {
		edges := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.1, -2.5, 3, 7.5, 1e30, -1e30, 3.4e38,
			math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 1.1754942e-38, 1.1754944e-38, 5e-39,
			float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 16777216, 16777217, 0x1p-126, 0x1p127}
		r := rand.New(rand.NewPCG(3, 5))
		checkRemainders(t, edges, nil, 400000, func() float32 { return math.Float32frombits(r.Uint32()) }, r, fastBinary[float32])
	})
	t.Run("f64", func(t *testing.T) {
		edges := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, -2.5, 3, 7.5, 1e300, -1e300, math.MaxFloat64,
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, 0x1.fffffffffffffp-1023, 5e-320,
			math.Inf(1), math.Inf(-1), math.NaN(), 0x1p53, 0x1p53 + 2, 0x1p52 + 1, 0x1p1023, 1 - 0x1p-53}
		r := rand.New(rand.NewPCG(3, 6))
		// Quotients just below 3 that round up to it: b's significand
		// mb = 3 mod 4 in [2^52*4/3, 2^53), a = 3b - b's unit (which a
		// holds: 3mb - 1 is a multiple of 4), at scales from subnormal
		// up.
		var pairs [][2]float64
		for range 200 {
			mb := (uint64(6004799503160661)+r.Uint64N(1<<51))&^3 | 3
			for _, e := range []int{-1074, -1000, -52, 0, 900} {
				b := math.Ldexp(float64(mb), e)
				pairs = append(pairs, [2]float64{math.FMA(3, b, -math.Ldexp(1, e)), b})
			}
		}
		// Fewer: math.Mod takes a step per bit of quotient, up to 2000.
		checkRemainders(t, edges, pairs, 100000, func() float64 { return math.Float64frombits(r.Uint64()) }, r, fastBinary[float64])
	})
}

// checkRemainders runs TestRemainders for one type: every pair of edges,
// the given pairs, and n random pairs of each kind drawn with bits.
func checkRemainders[T float](t *testing.T, edges []T, pairs [][2]T, n int, bits func() T, r *rand.Rand, fast func(device.BinaryOp) func(a, b T) T) {
	var as, bs []T
	for _, p := range pairs {
		as, bs = append(as, p[0]), append(bs, p[1])
	}
	for _, a := range edges {
		for _, b := range edges {
			as, bs = append(as, a), append(bs, b)
		}
	}
	for range n {
		as, bs = append(as, bits()), append(bs, bits())
		// Nearby exponents too, where the quotient is small.
		x := bits()
		as, bs = append(as, x), append(bs, x*T(r.Float64()*8-4))
		// Next to a multiple of b, where the quotient's rounding can
		// cross an integer (quotients up to 2^20, and near 2^52).
		b := bits()
		q := T(r.IntN(1<<20) + 2)
		if r.IntN(8) == 0 {
			q = T(math.Ldexp(1, 52) - float64(r.IntN(1<<10)))
		}
		p := q * b
		for _, a := range []T{p, nextAway(p, 1), nextAway(p, -1)} {
			as, bs = append(as, a), append(bs, b)
		}
	}
	for _, op := range []device.BinaryOp{device.Fmod, device.Mod, device.FloorDiv} {
		def, _ := op.Def()
		f := fast(op)
		bad := 0
		for i, a := range as {
			b := bs[i]
			got, want := f(a, b), T(def.F64(float64(a), float64(b)))
			if !sameBits(got, want) {
				if bad < 5 {
					t.Errorf("%v(%g, %g) = %g, want %g", op, a, b, got, want)
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

// nextAway returns the float of T next to x towards +Inf (dir 1) or -Inf.
func nextAway[T float](x T, dir float64) T {
	if is32[T]() {
		return T(math.Nextafter32(float32(x), float32(math.Inf(int(dir)))))
	}
	return T(math.Nextafter(float64(x), math.Inf(int(dir))))
}
