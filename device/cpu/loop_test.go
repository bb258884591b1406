package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
)

// TestExactKernelsMatchTable checks the unary kernels whose results must
// be the op table's float64 formula rounded once to the type (vec's
// Hardswish, Rsqrt, Neg, Abs, roundings, Reciprocal, Sqrt,
// Sign and the Square product) against that formula, bit for bit (NaN
// payloads and signs too), on special values and a spread of random ones
// in f32 and f64.
func TestExactKernelsMatchTable(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-45, 1e-310, 3.4e38, 1e300,
		math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat32, math.SmallestNonzeroFloat32}
	r := rand.New(rand.NewPCG(1, 2))
	xs := append([]float64(nil), special...)
	for range 4096 {
		xs = append(xs, math.Ldexp(r.Float64()*2-1, r.IntN(200)-100))
	}
	checked := 0
	for _, op := range []device.UnaryOp{device.Rsqrt, device.Hardswish, device.Neg, device.Abs, device.Floor, device.Ceil, device.Trunc,
		device.Round, device.Reciprocal, device.Sqrt, device.Sign, device.Square} {
		def, _ := op.Def()
		k32, k64 := unaryKernel[float32](op), unaryKernel[float64](op)
		if k32 == nil {
			continue
		}
		checked++
		x32 := make([]float32, len(xs))
		for i, v := range xs {
			x32[i] = float32(v)
		}
		got32 := make([]float32, len(xs))
		if err := k32(got32, x32); err != nil {
			t.Fatal(err)
		}
		got64 := make([]float64, len(xs))
		if err := k64(got64, xs); err != nil {
			t.Fatal(err)
		}
		for i := range xs {
			if want := float32(def.F64(float64(x32[i]))); math.Float32bits(got32[i]) != math.Float32bits(want) {
				t.Fatalf("%v f32(%v) = %v, want %v", op, x32[i], got32[i], want)
			}
			if want := def.F64(xs[i]); math.Float64bits(got64[i]) != math.Float64bits(want) {
				t.Fatalf("%v f64(%v) = %v, want %v", op, xs[i], got64[i], want)
			}
		}
	}
	if checked != 12 {
		t.Errorf("%d ops have exact kernels, want 12", checked)
	}
}
