package vec

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// benchSizes are the lengths the per-tier benchmarks run: 2048 is one block
// of the CPU backend's fused evaluator (device/cpu, fuseBlock; operands in
// L1), 64 Ki a cache-resident tensor (L2), 16 Mi one streamed from memory.
var benchSizes = []int{2048, 1 << 16, 1 << 24}

// bestRate runs fn for b.N iterations and reports per elements/s and,
// when bytes > 0, bytes/s of its fastest call: on a machine shared with
// other work the fastest of many calls is the kernel's own speed, where a
// mean would mostly measure the neighbours. (A call of the smallest size
// takes microseconds, far below a scheduler time slice.)
func bestRate(b *testing.B, n, bytes int, fn func()) {
	best := time.Duration(math.MaxInt64)
	fn()
	for b.Loop() {
		t0 := time.Now()
		fn()
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	b.ReportMetric(float64(n)/best.Seconds()/1e9, "Gelem/s")
	if bytes > 0 {
		b.ReportMetric(float64(bytes)/best.Seconds()/1e9, "GB/s")
	}
}

// tierUnaries are the float32 kernels BenchmarkTiersUnary times.
var tierUnaries = []struct {
	name string
	fn   func(dst, x []float32) error
}{
	{"exp", Exp[float32]}, {"log", Log[float32]}, {"tanh", Tanh[float32]},
	{"sigmoid", Sigmoid[float32]}, {"erf", Erf[float32]},
	{"gelu_tanh", GeluTanh[float32]}, {"gelu_erf", GeluErf[float32]},
	{"relu", Relu[float32]}, {"silu", Silu[float32]},
	{"neg", Neg[float32]}, {"abs", Abs[float32]}, {"floor", Floor[float32]},
	{"round_even", RoundEven[float32]}, {"recip", Reciprocal[float32]},
	{"softplus", Softplus[float32]}, {"log1p", Log1p[float32]}, {"expm1", Expm1[float32]},
	{"exp2", Exp2[float32]}, {"log2", Log2[float32]}, {"sinh", Sinh[float32]}, {"cosh", Cosh[float32]},
	{"sin", Sin[float32]}, {"cos", Cos[float32]}, {"tan", Tan[float32]}, {"rsqrt", Rsqrt[float32]},
	{"asin", Asin[float32]}, {"acos", Acos[float32]}, {"atan", Atan[float32]},
	// tanh on |x| < 0.6 only, the values of the issue 9 chain: every
	// vector takes the polynomial branch alone.
	{"tanh_small", Tanh[float32]},
}

// BenchmarkTiersUnary reports Gelem/s of every float32 unary kernel, and
// of the float64 transcendentals, on every kernel tier this machine
// has, side by side
// (Unary/op/n=/tier), so `benchstat` or a plain grep compares tiers in one
// run. ci/bench-vec.sh prints them next to NumPy.
func BenchmarkTiersUnary(b *testing.B) {
	for _, f := range tierUnaries {
		for _, n := range benchSizes[:2] {
			x, dst := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i] = float32(i%2000)*0.01 - 10
				switch f.name {
				case "log", "log1p", "log2", "rsqrt":
					x[i] = float32(i%2000)*0.01 + 0.005
				case "tanh_small":
					x[i] = float32(i%2000)*0.0006 - 0.6
				case "asin":
					x[i] = float32(i%2000)*0.001 - 0.9995
				}
			}
			for _, k := range available() {
				b.Run(fmt.Sprintf("%s/n=%d/%s", f.name, n, k.name), func(b *testing.B) {
					defer useKernels(k)()
					bestRate(b, n, 0, func() { f.fn(dst, x) })
				})
			}
		}
	}
	// float64 Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sinh, Cosh, Tanh,
	// Sigmoid, GeluTanh and Erf (vector kernels on the avx512 tier only; package math
	// elsewhere)
	// and Sin, Cos, Tan, Asin, Acos and Atan (vector kernels on both
	// tiers), on the float32 cases' inputs.
	for _, f := range []struct {
		name string
		fn   func(dst, x []float64) error
		x    func(i int) float64
	}{
		{"exp_f64", Exp[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"log_f64", Log[float64], func(i int) float64 { return float64(i%2000)*0.01 + 0.005 }},
		{"exp2_f64", Exp2[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"expm1_f64", Expm1[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"sinh_f64", Sinh[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"cosh_f64", Cosh[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"log2_f64", Log2[float64], func(i int) float64 { return float64(i%2000)*0.01 + 0.005 }},
		{"log10_f64", Log10[float64], func(i int) float64 { return float64(i%2000)*0.01 + 0.005 }},
		{"log1p_f64", Log1p[float64], func(i int) float64 { return float64(i%2000)*0.01 - 0.995 }},
		{"tanh_f64", Tanh[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"sigmoid_f64", Sigmoid[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"geluTanh_f64", GeluTanh[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"erf_f64", Erf[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		// GeluErf on [-5, 5): the vector kernels' range (below -6.7 and from
		// 6.7 to 8.49 they leave the elements to the generic geluErf64).
		{"geluErf_f64", GeluErf[float64], func(i int) float64 { return float64(i%2000)*0.005 - 5 }},
		{"silu_f64", Silu[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"sin_f64", Sin[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"cos_f64", Cos[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"tan_f64", Tan[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
		{"asin_f64", Asin[float64], func(i int) float64 { return float64(i%2000)*0.001 - 0.9995 }},
		{"acos_f64", Acos[float64], func(i int) float64 { return float64(i%2000)*0.001 - 0.9995 }},
		{"atan_f64", Atan[float64], func(i int) float64 { return float64(i%2000)*0.01 - 10 }},
	} {
		for _, n := range benchSizes[:2] {
			x, dst := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i] = f.x(i)
			}
			for _, k := range available() {
				b.Run(fmt.Sprintf("%s/n=%d/%s", f.name, n, k.name), func(b *testing.B) {
					defer useKernels(k)()
					bestRate(b, n, 0, func() { f.fn(dst, x) })
				})
			}
		}
	}
}

// BenchmarkTiersBinary reports Gelem/s and GB/s (bytes read and written)
// of the float32 and float64 Add, Mul, scalar Mul, Div and Axpy, the
// comparisons and the selects per tier.
func BenchmarkTiersBinary(b *testing.B) {
	for _, n := range benchSizes {
		x32, y32, d32 := make([]float32, n), make([]float32, n), make([]float32, n)
		x64, y64, d64 := make([]float64, n), make([]float64, n), make([]float64, n)
		db, cond := make([]uint8, n), make([]uint8, n)
		xi32, yi32, xi64 := make([]int32, n), make([]int32, n), make([]int64, n)
		h, dh := make([]uint16, n), make([]uint16, n) // half-precision bits
		for i := range x32 {
			x32[i], y32[i] = float32(i%100)+1, 1.5
			x64[i], y64[i] = float64(i%100)+1, 1.5
			cond[i] = b2u8(i%3 == 0)
			xi32[i], yi32[i], xi64[i] = int32(i%100), 50, int64(i%100)
			h[i] = uint16(0x3c00 + i%100)
		}
		ops := []struct {
			name  string
			bytes int // per element
			fn    func()
		}{
			{"add_f32", 12, func() { Add(d32, x32, y32) }},
			{"mul_f32", 12, func() { Mul(d32, x32, y32) }},
			{"div_f32", 12, func() { Div(d32, x32, y32) }},
			{"mulscalar_f32", 8, func() { MulScalar(d32, x32, 1.5) }},
			{"axpy_f32", 12, func() { Axpy(d32, 1.5, x32, y32) }},
			{"maximum_f32", 12, func() { Maximum(d32, x32, y32) }},
			{"gt_f32", 9, func() { Compare(CmpGt, db, x32, y32) }},
			{"gtscalar_f32", 5, func() { CompareScalar(CmpGt, db, x32, 1.5) }},
			{"gt_f64", 17, func() { Compare(CmpGt, db, x64, y64) }},
			{"gt_i32", 9, func() { CompareInt(CmpGt, db, xi32, yi32) }},
			{"eqscalar_i64", 9, func() { CompareIntScalar(CmpEq, db, xi64, 7) }},
			{"where_f32", 13, func() { Select(d32, cond, x32, y32) }},
			{"whereelse_f32", 9, func() { SelectElse(d32, cond, x32, 0) }},
			{"whereelse_f16", 5, func() { SelectElse(dh, cond, h, 0) }},
			{"where_f64", 25, func() { Select(d64, cond, x64, y64) }},
			{"add_f64", 24, func() { Add(d64, x64, y64) }},
			{"div_f64", 24, func() { Div(d64, x64, y64) }},
			{"atan2_f32", 12, func() { Atan2(d32, y32, x32) }},
		}
		for _, op := range ops {
			for _, k := range available() {
				b.Run(fmt.Sprintf("%s/n=%d/%s", op.name, n, k.name), func(b *testing.B) {
					defer useKernels(k)()
					bestRate(b, n, op.bytes*n, op.fn)
				})
			}
		}
	}
}

// BenchmarkTiersReduce reports GB/s of Sum, Dot and Max per tier.
func BenchmarkTiersReduce(b *testing.B) {
	for _, n := range benchSizes {
		x32, y32 := make([]float32, n), make([]float32, n)
		x64 := make([]float64, n)
		for i := range x32 {
			x32[i], y32[i], x64[i] = float32(i%100), 0.5, float64(i%100)
		}
		var sink float64
		ops := []struct {
			name  string
			bytes int
			fn    func()
		}{
			{"sum_f32", 4, func() { sink += float64(Sum(x32)) }},
			{"dot_f32", 8, func() { d, _ := Dot(x32, y32); sink += float64(d) }},
			{"max_f32", 4, func() { m, _ := Max(x32); sink += float64(m) }},
			{"sum_f64", 8, func() { sink += Sum(x64) }},
		}
		for _, op := range ops {
			for _, k := range available() {
				b.Run(fmt.Sprintf("%s/n=%d/%s", op.name, n, k.name), func(b *testing.B) {
					defer useKernels(k)()
					bestRate(b, n, op.bytes*n, op.fn)
				})
			}
		}
		_ = sink
	}
}
