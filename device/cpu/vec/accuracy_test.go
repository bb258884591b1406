package vec

import (
	"math"
	"os"
	"runtime"
	"sync"
	"testing"
)

// ulp32 is the spacing of float32 values at |v| (v a float64), 2^-149 in
// the subnormal range.
func ulp32(v float64) float64 {
	a := math.Abs(v)
	if a < 0x1p-126 {
		return 0x1p-149
	}
	_, e := math.Frexp(a)
	return math.Ldexp(1, e-24)
}

// ulpErr32 is |got - want| in float32 ulps of want; infinities count as
// 2^128 so that a wrong overflow costs about one ulp, a NaN mismatch +Inf.
func ulpErr32(got float32, want float64) float64 {
	if math.IsNaN(want) || got != got {
		if math.IsNaN(want) && got != got {
			return 0
		}
		return math.Inf(1)
	}
	g := float64(got)
	fin := func(v float64) float64 {
		if math.Abs(v) > 0x1p128 {
			return math.Copysign(0x1p128, v)
		}
		return v
	}
	if math.IsInf(want, 0) && g == want {
		return 0
	}
	w := fin(want)
	return math.Abs(fin(g)-w) / ulp32(math.Min(math.Abs(w), math.MaxFloat32))
}

// unary32 is one float32 function under test with its float64 reference
// and the largest error allowed (in ulps) for the AVX2 kernel on normal
// results. Generic kernels round a float64 result once: 1 ulp.
type unary32 struct {
	name   string
	op     unOp // the kernel table entry fn dispatches to
	fn     func(dst, x []float32) error
	ref    func(float64) float64
	maxULP float64
}

var geluC = math.Sqrt(2 / math.Pi)

func refSigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// refGeluTanh uses 0.5(1+tanh(u)) = 1/(1+e^(-2u)), exact in exact
// arithmetic, because 1+tanh(u) cancels in float64 for u << 0.
func refGeluTanh(x float64) float64 {
	if math.IsInf(x, -1) {
		return math.Copysign(0, -1) // the limit; the formula gives -Inf/Inf
	}
	u := geluC * (x + 0.044715*x*x*x)
	return x / (1 + math.Exp(-2*u))
}

func refGeluErf(x float64) float64 {
	if math.IsInf(x, -1) {
		return math.Copysign(0, -1) // the limit; the formula gives -Inf*0
	}
	return 0.5 * x * math.Erfc(-x/math.Sqrt2)
}

// refSilu is x/(1+e^-x), the limit -0 at -Inf (the formula gives NaN).
func refSilu(x float64) float64 {
	if math.IsInf(x, -1) {
		return math.Copysign(0, -1)
	}
	return x / (1 + math.Exp(-x))
}

var unaries32 = []unary32{
	{"Exp", unExp, Exp[float32], math.Exp, 1},
	{"Log", unLog, Log[float32], math.Log, 1},
	{"Tanh", unTanh, Tanh[float32], math.Tanh, 1.5},
	{"Sigmoid", unSigmoid, Sigmoid[float32], refSigmoid, 2},
	{"GeluTanh", unGeluTanh, GeluTanh[float32], refGeluTanh, 2.5},
	{"GeluErf", unGeluErf, GeluErf[float32], refGeluErf, 5},
	{"Erf", unErf, Erf[float32], math.Erf, 2},
	{"Silu", unSilu, Silu[float32], refSilu, 2.5},
	{"Softplus", unSoftplus, Softplus[float32], refSoftplus, 0.51},
	{"Log1p", unLog1p, Log1p[float32], math.Log1p, 1},
	{"Expm1", unExpm1, Expm1[float32], math.Expm1, 1},
	{"Exp2", unExp2, Exp2[float32], math.Exp2, 0.85},
	{"Log2", unLog2, Log2[float32], math.Log2, 1},
	{"Log10", unLog10, Log10[float32], math.Log10, 1},
	{"Sinh", unSinh, Sinh[float32], math.Sinh, 0.51},
	{"Cosh", unCosh, Cosh[float32], math.Cosh, 0.51},
	{"Sin", unSin, Sin[float32], math.Sin, 0.501},
	{"Cos", unCos, Cos[float32], math.Cos, 0.501},
	{"Tan", unTan, Tan[float32], math.Tan, 0.501},
	{"Asin", unAsin, Asin[float32], math.Asin, 0.501},
	{"Acos", unAcos, Acos[float32], math.Acos, 0.501},
	{"Atan", unAtan, Atan[float32], math.Atan, 0.501},
}

// refSoftplus is log(1+e^x) as max(x,0) + log1p(e^-|x|), NaN kept.
func refSoftplus(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x)))
}

// sweep32 returns test inputs: every 997th float32 bit pattern of both
// signs (about 4.3 million values, every binade densely covered), plus
// uniform grids over [-20, 20] and around every threshold the kernels use.
func sweep32(stride uint32) []float32 {
	var xs []float32
	for b := uint64(0); b < 0x7f800000; b += uint64(stride) {
		v := math.Float32frombits(uint32(b))
		xs = append(xs, v, -v)
	}
	for i := -200000; i <= 200000; i++ {
		xs = append(xs, float32(i)*1e-4)
	}
	for _, c := range []float32{0.625, 0.875, 88.72284, -87.33655, -103.97208, 1, 0.70710677, 1.4142135, 3.92, 9.1, 120, 108.5, 0x1p-29, 0x1p-12, 0x1p-8, 127, -126, -149, 89.4} {
		for _, s := range []float32{c, -c} {
			b := math.Float32bits(s)
			for d := uint32(0); d < 2000; d++ {
				xs = append(xs, math.Float32frombits(b+d), math.Float32frombits(b-d))
			}
		}
	}
	return xs
}

// measure returns the largest ulp error of f over xs among normal results,
// the input where it occurs, and the largest error among subnormal results
// in units of 2^-149.
func measure(f unary32, xs []float32) (worst float64, at float32, sub float64) {
	got := make([]float32, len(xs))
	if err := f.fn(got, xs); err != nil {
		panic(err)
	}
	for i, x := range xs {
		want := f.ref(float64(x))
		e := ulpErr32(got[i], want)
		if !math.IsInf(want, 0) && math.Abs(want) < 0x1p-126 {
			sub = math.Max(sub, e)
			continue
		}
		if e > worst || e != e {
			worst, at = e, x
		}
	}
	return worst, at, sub
}

func TestAccuracyF32(t *testing.T) {
	skipSweepUnderRace(t)
	stride := uint32(997)
	if testing.Short() {
		stride = 9973
	}
	xs := sweep32(stride)
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, f := range unaries32 {
				worst, at, sub := measure(f, xs)
				limit := f.maxULP
				if k == genericKernels {
					limit = 1
				}
				t.Logf("%-8s max %.3f ulp at %g (subnormal results: %.2f x 2^-149)", f.name, worst, at, sub)
				if worst > limit {
					t.Errorf("%s: %.3f ulp at x=%g (%#08x), limit %g", f.name, worst, at, math.Float32bits(at), limit)
				}
				if sub > 2*limit {
					t.Errorf("%s: subnormal results off by %.2f x 2^-149", f.name, sub)
				}
			}
		})
	}
}

// TestExhaustiveF32 checks every float32 input; it takes minutes, so it
// runs only with TESSERA_EXHAUSTIVE=1.
func TestExhaustiveF32(t *testing.T) {
	if os.Getenv("TESSERA_EXHAUSTIVE") != "1" {
		t.Skip("set TESSERA_EXHAUSTIVE=1 to check all 2^32 inputs")
	}
	for _, f := range unaries32 {
		t.Run(f.name, func(t *testing.T) { exhaustive(t, f) })
	}
}

func exhaustive(t *testing.T, f unary32) {
	type res struct {
		worst, sub float64
		at         float32
	}
	out := make([]res, runtime.GOMAXPROCS(0))
	allFloat32s(func(w int, xs []float32) {
		worst, at, sub := measure(f, xs)
		if worst > out[w].worst || worst != worst {
			out[w].worst, out[w].at = worst, at
		}
		out[w].sub = math.Max(out[w].sub, sub)
	})
	var r res
	for _, o := range out {
		if o.worst > r.worst || o.worst != o.worst {
			r.worst, r.at = o.worst, o.at
		}
		r.sub = math.Max(r.sub, o.sub)
	}
	t.Logf("%s (%s): max %.3f ulp at %g (%#08x); subnormal results %.2f x 2^-149", f.name, Implementation(), r.worst, r.at, math.Float32bits(r.at), r.sub)
	if r.worst > f.maxULP {
		t.Errorf("%s: %.3f ulp > %g", f.name, r.worst, f.maxULP)
	}
}

// allFloat32s calls fn(w, xs) for all 2^32 float32 bit patterns, in chunks
// of 2^20 on GOMAXPROCS goroutines: worker w takes every GOMAXPROCS-th
// chunk, and xs is its own buffer, reused from one call to the next.
func allFloat32s(fn func(w int, xs []float32)) {
	const chunk = 1 << 20
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			xs := make([]float32, chunk)
			for base := uint64(w) * chunk; base < 1<<32; base += uint64(workers) * chunk {
				for i := range xs {
					xs[i] = math.Float32frombits(uint32(base + uint64(i)))
				}
				fn(w, xs)
			}
		}()
	}
	wg.Wait()
}

// TestLogExactPowers checks that Log2 of every power of two and Log10 of
// every power of ten a float32 holds exactly (1 to 1e10) are exact, on
// every tier: NumPy gives np.log10(np.float32(1000)) == 3, and so must we.
func TestLogExactPowers(t *testing.T) {
	var x2, w2, x10, w10 []float32
	for k := -149; k <= 127; k++ {
		x2, w2 = append(x2, float32(math.Ldexp(1, k))), append(w2, float32(k))
	}
	for k, p := 0, 1.0; k <= 10; k, p = k+1, p*10 {
		x10, w10 = append(x10, float32(p)), append(w10, float32(k))
	}
	for _, k := range available() {
		defer useKernels(k)()
		for _, c := range []struct {
			name    string
			fn      func(dst, x []float32) error
			x, want []float32
		}{{"Log2", Log2[float32], x2, w2}, {"Log10", Log10[float32], x10, w10}} {
			got := make([]float32, len(c.x))
			if err := c.fn(got, c.x); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("%s: %s(%g) = %g, want %g", k.name, c.name, c.x[i], got[i], c.want[i])
				}
			}
		}
	}
}

// TestLog1pSpecial checks Log1p's special values on every tier, sign of
// zero included: log1p(±0) = ±0, log1p(-1) = -Inf, log1p(x < -1) = NaN,
// log1p(+Inf) = +Inf, NaN stays NaN, and x itself for tiny x.
func TestLog1pSpecial(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct{ x, want float64 }{
		{0, 0}, {math.Copysign(0, -1), math.Copysign(0, -1)}, {-1, -inf}, {-1.5, nan}, {-inf, nan},
		{inf, inf}, {nan, nan}, {1e-30, 1e-30}, {-1e-30, -1e-30}, {0x1p-149, 0x1p-149}, {-0x1p-149, -0x1p-149},
		{3e38, math.Log1p(float64(float32(3e38)))}, {-1 + 0x1p-24, -24 * math.Ln2},
	}
	x := make([]float32, 0, 3*len(cases))
	for range 3 { // 39 elements: body and tail
		for _, c := range cases {
			x = append(x, float32(c.x))
		}
	}
	for _, k := range available() {
		defer useKernels(k)()
		got := make([]float32, len(x))
		if err := Log1p(got, x); err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			want := float32(cases[i%len(cases)].want)
			if math.Float32bits(g) != math.Float32bits(want) && !(g != g && want != want) {
				t.Errorf("%s: Log1p(%g) = %g, want %g", k.name, x[i], g, want)
			}
		}
	}
}

// TestExpm1Special checks Expm1's special values on every tier, sign of
// zero included: expm1(±0) = ±0, expm1(-Inf) = -1, expm1(+Inf) = +Inf, NaN
// stays NaN, x itself for tiny x, -1 far below zero, and the overflow
// threshold (88.72284 finite, 88.72285 +Inf, as float64 math rounds).
func TestExpm1Special(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ref := func(x float32) float64 { return math.Expm1(float64(x)) }
	cases := []struct{ x, want float64 }{
		{0, 0}, {math.Copysign(0, -1), math.Copysign(0, -1)}, {-inf, -1}, {inf, inf}, {nan, nan},
		{1e-30, 1e-30}, {-1e-30, -1e-30}, {0x1p-149, 0x1p-149}, {-0x1p-149, -0x1p-149}, {-30, -1}, {-17.5, ref(-17.5)},
		{88.72283, ref(88.72283)}, {88.72284, ref(88.72284)}, {88.7229, inf}, {1000, inf},
	}
	x := make([]float32, 0, 3*len(cases))
	for range 3 { // 45 elements: body and tail
		for _, c := range cases {
			x = append(x, float32(c.x))
		}
	}
	for _, k := range available() {
		defer useKernels(k)()
		got := make([]float32, len(x))
		if err := Expm1(got, x); err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			want := float32(cases[i%len(cases)].want)
			if math.Float32bits(g) != math.Float32bits(want) && !(g != g && want != want) {
				t.Errorf("%s: Expm1(%g) = %g, want %g", k.name, x[i], g, want)
			}
		}
	}
}
