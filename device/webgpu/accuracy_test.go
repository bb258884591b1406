//go:build cgo

package webgpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// accuracyBound is the stated f32 accuracy of one unary op on a WebGPU
// device, over the input domain [lo, hi]: at most ulps units in the last
// place of the float32 result for normal results, or, for ops whose result
// crosses zero inside the domain (sin, cos), at most abs absolute error.
// Results below the smallest normal float32 may be flushed to zero (WGSL
// lets an implementation flush subnormals, and lavapipe does). The package
// documentation repeats this table; keep the two in step.
type accuracyBound struct {
	lo, hi float64
	ulps   float64
	abs    float64
}

var gpuAccuracy = map[device.UnaryOp]accuracyBound{
	device.Neg:        {-1e38, 1e38, 0, 0},
	device.Abs:        {-1e38, 1e38, 0, 0},
	device.Square:     {-1e19, 1e19, 0.5, 0},
	device.Relu:       {-1e38, 1e38, 0, 0},
	device.Floor:      {-1e9, 1e9, 0, 0},
	device.Ceil:       {-1e9, 1e9, 0, 0},
	device.Round:      {-1e9, 1e9, 0, 0},
	device.Exp:        {-87, 88.7, 2, 0},
	device.Expm1:      {-87, 88.7, 3, 0},
	device.Log:        {1e-37, 1e38, 3, 0},
	device.Log1p:      {-0.999, 1e38, 3, 0},
	device.Sqrt:       {0, 1e38, 1, 0},
	device.Rsqrt:      {1e-37, 1e38, 2, 0},
	device.Reciprocal: {1e-37, 1e37, 1, 0},
	device.Tanh:       {-20, 20, 3.5, 0},
	device.Sigmoid:    {-87, 40, 3, 0},
	device.GeluTanh:   {-5, 20, 40, 0},
	device.GeluErf:    {-5, 20, 26, 0},
	device.Erf:        {-5, 5, 3, 0},
	device.Tan:        {-1.5, 1.5, 4, 0},
	device.Asin:       {-1, 1, 4, 0},
	device.Acos:       {-1, 1, 4, 0},
	device.Atan:       {-1e30, 1e30, 4, 0},
	device.Sinh:       {-20, 20, 5, 0},
	device.Cosh:       {-20, 20, 4, 0},
	device.Exp2:       {-126, 127.9, 2, 0},
	device.Log2:       {1e-37, 1e38, 4, 0},
	device.Log10:      {1e-37, 1e38, 4, 0},
	device.Trunc:      {-1e9, 1e9, 0, 0},
	device.Sin:        {-100, 100, 0, 1.5e-7},
	device.Cos:        {-100, 100, 0, 1.5e-7},
}

// defaultAccuracy holds an op that gpuAccuracy does not list yet.
var defaultAccuracy = accuracyBound{-20, 20, 4, 0}

// gpuAccuracyTails are further domains of ops whose error grows there. Gelu
// of negative x exponentiates an argument of magnitude up to ~60 that is
// rounded in float32 (WGSL has no wider type), so its relative error grows
// with |x|: tens of ulp on [-5, 0) and up to ~200 ulp below -5, where the
// results are under 3e-6 in magnitude (absolute error under 6e-7 overall).
var gpuAccuracyTails = []struct {
	op device.UnaryOp
	accuracyBound
}{
	{device.GeluTanh, accuracyBound{-10, -5, 240, 0}},
	{device.GeluErf, accuracyBound{-10, -5, 100, 0}},
}

// accuracyInputs spreads n float32 values over [lo, hi]: half uniform in
// value, half uniform in bit pattern (so every binade is visited), plus the
// ends.
func accuracyInputs(r *rand.Rand, lo, hi float64, n int) []float64 {
	lo, hi = float64(float32(lo)), float64(float32(hi))
	out := []float64{lo, hi}
	for len(out) < n/2 {
		out = append(out, float64(float32(lo+(hi-lo)*r.Float64())))
	}
	for len(out) < n {
		v := float64(math.Float32frombits(r.Uint32() & 0x7fffffff))
		if r.IntN(2) == 0 {
			v = -v
		}
		if v >= lo && v <= hi {
			out = append(out, v)
		}
	}
	return out
}

// ulpsOff returns |got - want| in units in the last place of want rounded
// to float32, and whether the comparison counts (normal results only).
func ulpsOff(got, want float64) (float64, bool) {
	w := math.Abs(want)
	if w < 0x1p-126 || w > math.MaxFloat32 {
		return 0, false
	}
	_, e := math.Frexp(float64(float32(w))) // w = f * 2^e, 0.5 <= f < 1
	return math.Abs(got-want) / math.Ldexp(1, e-24), true
}

// TestUnaryAccuracyF32 measures every float unary op's error on the device
// against float64 math over its stated domain and holds it to the bound in
// gpuAccuracy; `go test -v -run UnaryAccuracy` prints the measured table.
func TestUnaryAccuracyF32(t *testing.T) {
	g := dev(t)
	n := 1 << 16
	if testing.Short() {
		n = 1 << 12
	}
	type job struct {
		op device.UnaryOp
		b  accuracyBound
	}
	var jobs []job
	for _, op := range device.UnaryOps() {
		if op == device.Sign || op.IsPredicate() {
			continue // exact by construction, covered by TestUnaryFloat
		}
		b, ok := gpuAccuracy[op]
		if !ok {
			b = defaultAccuracy // a new op, until its figures are measured and stated
		}
		jobs = append(jobs, job{op, b})
	}
	for _, tail := range gpuAccuracyTails {
		jobs = append(jobs, job{tail.op, tail.accuracyBound})
	}
	for _, j := range jobs {
		op, b := j.op, j.b
		r := rand.New(rand.NewPCG(uint64(op), 11))
		in := accuracyInputs(r, b.lo, b.hi, n)
		src := upload(t, g, dtype.F32, in)
		dst := alloc(t, g, dtype.F32, len(in))
		l := contig(len(in))
		if err := g.Unary(op, op2(dst, l), op2(src, l)); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		got := download(t, g, dst)
		var worstUlp, worstAbs, worstAt float64
		for i, x := range in {
			want := unaryRef(op, x)
			switch {
			case math.IsNaN(want) || math.IsInf(want, 0) || math.Abs(want) > math.MaxFloat32:
				w := float64(float32(want))
				if !(math.IsNaN(w) && math.IsNaN(got[i])) && got[i] != w {
					t.Errorf("%s(%v) = %v, want %v", op, x, got[i], w)
				}
				continue
			case math.Abs(want) < 0x1p-126:
				if math.Abs(got[i]-want) > 0x1p-126 {
					t.Errorf("%s(%v) = %v, want %v (below the normal range: flush allowed)", op, x, got[i], want)
				}
				continue
			}
			if d := math.Abs(got[i] - want); d > worstAbs {
				worstAbs = d
				if b.abs > 0 {
					worstAt = x
				}
			}
			if u, ok := ulpsOff(got[i], want); ok && u > worstUlp {
				worstUlp = u
				if b.abs == 0 {
					worstAt = x
				}
			}
		}
		t.Logf("%-10s domain [%g, %g]: max %.2f ulp, max abs %.3g (at %v)", op, b.lo, b.hi, worstUlp, worstAbs, worstAt)
		if b.abs > 0 {
			if worstAbs > b.abs {
				t.Errorf("%s: max absolute error %.3g at %v exceeds the stated %.3g", op, worstAbs, worstAt, b.abs)
			}
		} else if worstUlp > b.ulps {
			t.Errorf("%s: max error %.2f ulp at %v exceeds the stated %.2f ulp", op, worstUlp, worstAt, b.ulps)
		}
	}
}

// TestUnarySignedZeros pins the sign of zero results, which tolerance
// comparisons cannot see, to the CPU backend's answers.
func TestUnarySignedZeros(t *testing.T) {
	g := dev(t)
	negZero := math.Copysign(0, -1)
	cases := []struct {
		op   device.UnaryOp
		x    float64
		want float64
	}{
		{device.Relu, negZero, 0},
		{device.Relu, -1, 0},
		{device.Relu, math.Inf(-1), 0},
		{device.Neg, 0, negZero},
		{device.Abs, negZero, 0},
		{device.GeluTanh, math.Inf(-1), negZero},
		{device.GeluErf, math.Inf(-1), negZero},
		{device.GeluTanh, -1000, negZero},
		{device.GeluErf, -1000, negZero},
		{device.Tanh, negZero, negZero},
		{device.Sin, negZero, negZero},
		{device.Expm1, negZero, negZero},
		{device.Log1p, negZero, negZero},
		{device.Sqrt, negZero, negZero},
		{device.Floor, -0.5, -1},
		{device.Ceil, -0.5, negZero},
		{device.Round, -0.5, negZero},
		{device.Erf, negZero, negZero},
	}
	for _, c := range cases {
		src := upload(t, g, dtype.F32, []float64{c.x})
		dst := alloc(t, g, dtype.F32, 1)
		if err := g.Unary(c.op, op2(dst, contig(1)), op2(src, contig(1))); err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		got := download(t, g, dst)[0]
		if got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("%s(%v) = %v (sign bit %v), want %v (sign bit %v)", c.op, c.x, got, math.Signbit(got), c.want, math.Signbit(c.want))
		}
	}
}
