package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/internal/hugepage"
)

const benchBytes = 64 << 20 // 64 MiB per operand

// sideBySide runs kernel and reference alternately inside one benchmark and
// reports both bandwidths and their ratio, so machine noise hits both alike.
// kBytes and rBytes are the bytes each moves per call.
func sideBySide(b *testing.B, kernel, reference func(), kBytes, rBytes float64, kName string) {
	var tk, tr time.Duration
	kernel()
	reference()
	for b.Loop() {
		t0 := time.Now()
		reference()
		t1 := time.Now()
		kernel()
		t2 := time.Now()
		tr += t1.Sub(t0)
		tk += t2.Sub(t1)
	}
	gk := kBytes * float64(b.N) / tk.Seconds() / 1e9
	gr := rBytes * float64(b.N) / tr.Seconds() / 1e9
	b.ReportMetric(gk, kName+"_GB/s")
	b.ReportMetric(gr, "copy_GB/s")
	b.ReportMetric(gk/gr, "ratio")
}

// BenchmarkAddVsCopy: Add reads two 64 MiB operands and writes a third
// (192 MiB moved); copy reads and writes 64 MiB (128 MiB moved).
func BenchmarkAddVsCopy(b *testing.B) {
	n := benchBytes / 4
	x, y, dst, c := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), 1
	}
	for _, k := range available() {
		b.Run(k.name, func(b *testing.B) {
			defer useKernels(k)()
			sideBySide(b, func() { Add(dst, x, y) }, func() { copy(c, x) }, 3*benchBytes, 2*benchBytes, "add")
		})
	}
	// The same kernel with ordinary stores, to show what streaming buys.
	if avx2Kernels != nil && cpuHasAVX2FMA() {
		b.Run("avx2-nostream", func(b *testing.B) {
			defer useKernels(avx2Kernels)()
			defer setNTBytes(math.MaxInt)()
			sideBySide(b, func() { Add(dst, x, y) }, func() { copy(c, x) }, 3*benchBytes, 2*benchBytes, "add")
		})
	}
}

// BenchmarkSumVsCopy: Sum reads 64 MiB; copy moves 128 MiB. One core's
// read bandwidth is the limit of a single-threaded Sum (see
// BenchmarkReadCeiling); "parallel" splits it with Parallel over
// GOMAXPROCS goroutines, as the CPU backend does for large inputs.
func BenchmarkSumVsCopy(b *testing.B) {
	n := benchBytes / 4
	x, c := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(i % 100)
	}
	var sink float32
	for _, k := range available() {
		b.Run(k.name, func(b *testing.B) {
			defer useKernels(k)()
			sideBySide(b, func() { sink += Sum(x) }, func() { copy(c, x) }, benchBytes, 2*benchBytes, "sum")
		})
		b.Run(k.name+"-parallel", func(b *testing.B) {
			defer useKernels(k)()
			cs := chunks(n, 1<<20, runtime.GOMAXPROCS(0))
			part := make([]float32, len(cs))
			sum := func() {
				Parallel(n, 1<<20, func(lo, hi int) { part[lo/cs[0][1]] = Sum(x[lo:hi]) })
				sink += Sum(part)
			}
			sideBySide(b, sum, func() { copy(c, x) }, benchBytes, 2*benchBytes, "sum")
		})
	}
	_ = sink
}

// BenchmarkReadCeiling reads one float32 per 64-byte line of 64 MiB with
// four independent sums: about the fastest one goroutine can stream memory,
// the yardstick for single-threaded reductions.
func BenchmarkReadCeiling(b *testing.B) {
	n := benchBytes / 4
	x, c := make([]float32, n), make([]float32, n)
	var sink float32
	sideBySide(b, func() {
		var s0, s1, s2, s3 float32
		for i := 0; i+64 <= len(x); i += 64 {
			s0 += x[i]
			s1 += x[i+16]
			s2 += x[i+32]
			s3 += x[i+48]
		}
		sink += s0 + s1 + s2 + s3
	}, func() { copy(c, x) }, benchBytes, 2*benchBytes, "touch")
	_ = sink
}

// benchUnary reports elements/s of f and of a plain math loop, and their
// ratio, on 64 Ki float32 (256 KiB, cache resident).
func benchUnary(b *testing.B, f func(dst, x []float32) error, ref func(float64) float64) {
	const n = 1 << 16
	x, dst := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(i%2000)*0.01 - 10
	}
	for _, k := range available() {
		b.Run(k.name, func(b *testing.B) {
			defer useKernels(k)()
			var tk, tr time.Duration
			for b.Loop() {
				t0 := time.Now()
				for i, v := range x {
					dst[i] = float32(ref(float64(v)))
				}
				t1 := time.Now()
				f(dst, x)
				t2 := time.Now()
				tr += t1.Sub(t0)
				tk += t2.Sub(t1)
			}
			ek := n * float64(b.N) / tk.Seconds()
			er := n * float64(b.N) / tr.Seconds()
			b.ReportMetric(ek/1e9, "Gelem/s")
			b.ReportMetric(er/1e9, "math_Gelem/s")
			b.ReportMetric(ek/er, "x_math")
		})
	}
}

func BenchmarkExp(b *testing.B)     { benchUnary(b, Exp[float32], math.Exp) }
func BenchmarkTanh(b *testing.B)    { benchUnary(b, Tanh[float32], math.Tanh) }
func BenchmarkLog(b *testing.B)     { benchUnary(b, Log[float32], math.Log) }
func BenchmarkGeluErf(b *testing.B) { benchUnary(b, GeluErf[float32], refGeluErf) }
func BenchmarkGeluTanh(b *testing.B) {
	benchUnary(b, GeluTanh[float32], refGeluTanh)
}

// benchUnary64 reports elements/s and GB/s (8 bytes read, 8 written per
// element) of the float64 f on every kernel tier, and of a plain loop of
// ref (package math; for Sigmoid the generic tier's sigmoid64) as the
// sub-benchmark "math", on 1 Mi float64 (8 MiB per operand, the size the
// NumPy figures in docs/benchmarks.md use). Each reports its fastest call
// (bestRate); the calls are not interleaved with the reference's, because
// a vector kernel called right after 8 ms of scalar code measured up to a
// third slower than in a run of its own calls.
func benchUnary64(b *testing.B, f func(dst, x []float64) error, ref func(float64) float64, gen func(i int) float64) {
	const n = 1 << 20
	x, dst := make([]float64, n), make([]float64, n)
	// on huge pages, as the CPU device's buffers of this size (and NumPy's
	// arrays) are
	hugepage.Advise(unsafe.Pointer(&x[0]), 8*n)
	hugepage.Advise(unsafe.Pointer(&dst[0]), 8*n)
	for i := range x {
		x[i] = gen(i)
	}
	for _, k := range available() {
		b.Run(k.name, func(b *testing.B) {
			defer useKernels(k)()
			bestRate(b, n, 16*n, func() { f(dst, x) })
		})
	}
	b.Run("math", func(b *testing.B) {
		bestRate(b, n, 16*n, func() {
			for i, v := range x {
				dst[i] = ref(v)
			}
		})
	})
}

func BenchmarkExpF64(b *testing.B) {
	benchUnary64(b, Exp[float64], math.Exp, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

// BenchmarkSinF64, BenchmarkCosF64 and BenchmarkTanF64 run on [-10, 10)
// in order (steps of 0.01, so most vectors lie in one quadrant and Sin and
// Cos compute one series; BenchmarkTrigF64Scattered has the other case),
// the vector kernels against the generic set (their algorithm in Go) and
// a package math loop.
func BenchmarkSinF64(b *testing.B) {
	benchUnary64(b, Sin[float64], math.Sin, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

func BenchmarkCosF64(b *testing.B) {
	benchUnary64(b, Cos[float64], math.Cos, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

func BenchmarkTanF64(b *testing.B) {
	benchUnary64(b, Tan[float64], math.Tan, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

// BenchmarkTrigF64Scattered runs Sin and Cos on BenchmarkSinF64's values
// with consecutive elements 7919 steps apart, so most vectors mix
// quadrants and compute both series.
func BenchmarkTrigF64Scattered(b *testing.B) {
	gen := func(i int) float64 { return float64(i*7919%2000)*0.01 - 10 }
	b.Run("sin", func(b *testing.B) { benchUnary64(b, Sin[float64], math.Sin, gen) })
	b.Run("cos", func(b *testing.B) { benchUnary64(b, Cos[float64], math.Cos, gen) })
}

func BenchmarkLogF64(b *testing.B) {
	benchUnary64(b, Log[float64], math.Log, func(i int) float64 { return float64(i%2000)*0.01 + 0.005 })
}

// BenchmarkExp2F64, BenchmarkExpm1F64, BenchmarkSinhF64, BenchmarkCoshF64, BenchmarkLog2F64,
// BenchmarkLog10F64 and BenchmarkLog1pF64 run on BenchmarkTiersUnary's
// float64 inputs of the same functions.
func BenchmarkExp2F64(b *testing.B) {
	benchUnary64(b, Exp2[float64], math.Exp2, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

func BenchmarkExpm1F64(b *testing.B) {
	benchUnary64(b, Expm1[float64], math.Expm1, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

func BenchmarkSinhF64(b *testing.B) {
	benchUnary64(b, Sinh[float64], math.Sinh, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

func BenchmarkCoshF64(b *testing.B) {
	benchUnary64(b, Cosh[float64], math.Cosh, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

func BenchmarkLog2F64(b *testing.B) {
	benchUnary64(b, Log2[float64], math.Log2, func(i int) float64 { return float64(i%2000)*0.01 + 0.005 })
}

func BenchmarkLog10F64(b *testing.B) {
	benchUnary64(b, Log10[float64], math.Log10, func(i int) float64 { return float64(i%2000)*0.01 + 0.005 })
}

func BenchmarkLog1pF64(b *testing.B) {
	benchUnary64(b, Log1p[float64], math.Log1p, func(i int) float64 { return float64(i%2000)*0.01 - 0.995 })
}

func BenchmarkTanhF64(b *testing.B) {
	benchUnary64(b, Tanh[float64], math.Tanh, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

func BenchmarkSigmoidF64(b *testing.B) {
	benchUnary64(b, Sigmoid[float64], sigmoid64, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

func BenchmarkGeluTanhF64(b *testing.B) {
	benchUnary64(b, GeluTanh[float64], geluTanh64, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

// BenchmarkAsinF64, BenchmarkAcosF64 and BenchmarkAtanF64 run on
// BenchmarkTiersUnary's float64 inputs of the same functions (Asin and
// Acos on [-0.9995, 0.9995], both of their formulas in most vectors' runs;
// Atan on [-10, 10), every region).
func BenchmarkAsinF64(b *testing.B) {
	benchUnary64(b, Asin[float64], math.Asin, func(i int) float64 { return float64(i%2000)*0.001 - 0.9995 })
}

func BenchmarkAcosF64(b *testing.B) {
	benchUnary64(b, Acos[float64], math.Acos, func(i int) float64 { return float64(i%2000)*0.001 - 0.9995 })
}

func BenchmarkAtanF64(b *testing.B) {
	benchUnary64(b, Atan[float64], math.Atan, func(i int) float64 { return float64(i%2000)*0.01 - 10 })
}

// BenchmarkGeluErfF64 runs GeluErf on [-5, 5) in order, inside the
// AVX-512 kernel's range (|x| < 6.7; the elements it leaves to Go run at
// the generic set's speed), against the generic geluErf64.
func BenchmarkGeluErfF64(b *testing.B) {
	benchUnary64(b, GeluErf[float64], geluErf64, func(i int) float64 { return float64(i%2000)*0.005 - 5 })
}

// BenchmarkErfF64 runs Erf on [-5, 5) in order (neighbouring lanes mostly
// on one side of the kernel's cut at |x| = 0.75, so a vector computes one
// branch) and scattered (the same values, consecutive elements 7919
// steps apart, so most vectors compute both).
func BenchmarkErfF64(b *testing.B) {
	b.Run("ramp", func(b *testing.B) {
		benchUnary64(b, Erf[float64], math.Erf, func(i int) float64 { return float64(i%2000)*0.005 - 5 })
	})
	b.Run("scattered", func(b *testing.B) {
		benchUnary64(b, Erf[float64], math.Erf, func(i int) float64 { return float64(i*7919%2000)*0.005 - 5 })
	})
}

// BenchmarkHalfConvert times the half-precision conversions on one core,
// side by side with copy over the float32 side's bytes: n elements in
// cache (64 Ki: 128 KiB of halves, 256 KiB of float32) and from memory
// (16 Mi). Widen and Narrow move 6 bytes an element (2 one way, 4 the
// other), RoundBF16 8, copy 8; the ratio compares GB/s.
//
//	go test ./device/cpu/vec -run XXX -bench HalfConvert
func BenchmarkHalfConvert(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 24} {
		x, c := make([]float32, n), make([]float32, n)
		bf, h := make([]dtype.BFloat16, n), make([]dtype.Float16, n)
		for i := range x {
			x[i] = float32(math.Sin(float64(i))) * 100
		}
		_ = Narrow(bf, x)
		_ = Narrow(h, x)
		e := float64(n)
		for _, k := range available() {
			for _, op := range []struct {
				name  string
				f     func()
				bytes float64
			}{
				{"widen-bf16", func() { _ = Widen(c, bf) }, 6 * e},
				{"widen-f16", func() { _ = Widen(c, h) }, 6 * e},
				{"narrow-bf16", func() { _ = Narrow(bf, x) }, 6 * e},
				{"narrow-f16", func() { _ = Narrow(h, x) }, 6 * e},
				{"round-bf16", func() { _ = RoundBF16(c, x) }, 8 * e},
			} {
				b.Run(fmt.Sprintf("%s/%d/%s", k.name, n, op.name), func(b *testing.B) {
					defer useKernels(k)()
					sideBySide(b, op.f, func() { copy(c, x) }, op.bytes, 8*e, "conv")
				})
			}
		}
	}
}

// BenchmarkSumHalf times SumHalf on one core against what it replaces,
// Widen into a float32 buffer then Sum ("widen+sum"), and against Sum of
// the same count of float32 values, in cache (64 Ki elements) and from
// memory (16 Mi), the three interleaved in one loop. Figures are Gelem/s;
// ratio_f32 is SumHalf's over float32's.
//
//	go test ./device/cpu/vec -run XXX -bench SumHalf
func BenchmarkSumHalf(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 24} {
		x, w := make([]float32, n), make([]float32, n)
		bf, h := make([]dtype.BFloat16, n), make([]dtype.Float16, n)
		for i := range x {
			x[i] = float32(math.Sin(float64(i))) * 100
		}
		_ = Narrow(bf, x)
		_ = Narrow(h, x)
		var sink float32
		for _, k := range available() {
			for _, c := range []struct {
				name       string
				sum, widen func()
			}{
				{"bf16", func() { sink += SumHalf(bf) }, func() { _ = Widen(w, bf); sink += Sum(w) }},
				{"f16", func() { sink += SumHalf(h) }, func() { _ = Widen(w, h); sink += Sum(w) }},
			} {
				b.Run(fmt.Sprintf("%s/%d/%s", k.name, n, c.name), func(b *testing.B) {
					defer useKernels(k)()
					fs := []func(){c.sum, c.widen, func() { sink += Sum(x) }}
					var ts [3]time.Duration
					for b.Loop() {
						for i, f := range fs {
							t0 := time.Now()
							f()
							ts[i] += time.Since(t0)
						}
					}
					rate := func(i int) float64 { return float64(n) * float64(b.N) / ts[i].Seconds() / 1e9 }
					b.ReportMetric(rate(0), "Gelem/s")
					b.ReportMetric(rate(1), "widen+sum_Gelem/s")
					b.ReportMetric(rate(2), "f32_Gelem/s")
					b.ReportMetric(rate(0)/rate(2), "ratio_f32")
				})
			}
		}
		_ = sink
	}
}

// BenchmarkPowF64 runs PowF64 (y a vector) and PowScalarF64 (y = 1.7) on
// 1 Mi elements on every set, against a math.Pow loop: "positive" bases
// are |N(0,1)| draws, which NumPy's np.power takes through its AVX-512
// kernel too (ci/bench-pow.sh sets the two side by side); "mixed" bases
// have either sign, whose negative half gives NaN for a non-integer y
// (the vector sets' kernels compute those lanes too, NumPy's leaves them
// to its scalar loop).
func BenchmarkPowF64(b *testing.B) { benchPow(b, PowF64, PowScalarF64, 1.7) }

// BenchmarkPowF32 is BenchmarkPowF64 for float32 (PowF32, PowScalarF32).
func BenchmarkPowF32(b *testing.B) { benchPow(b, PowF32, PowScalarF32, 1.7) }

func benchPow[T float32 | float64](b *testing.B, vector func(dst, x, y []T) error, scalar func(dst, x []T, y T) error, ys T) {
	const n = 1 << 20
	size := int(unsafe.Sizeof(T(0)))
	r := rand.New(rand.NewPCG(1, 2))
	x, y, dst := make([]T, n), make([]T, n), make([]T, n)
	for i := range x {
		x[i], y[i] = T(r.NormFloat64()), T(r.NormFloat64())
	}
	mixed := slices.Clone(x)
	for i := range x {
		x[i] = T(math.Abs(float64(x[i])))
	}
	for _, c := range []struct {
		name string
		x    []T
	}{{"positive", x}, {"mixed", mixed}} {
		for _, k := range available() {
			b.Run(c.name+"/vector/"+k.name, func(b *testing.B) {
				defer useKernels(k)()
				bestRate(b, n, 3*size*n, func() { _ = vector(dst, c.x, y) })
			})
			b.Run(c.name+"/scalar/"+k.name, func(b *testing.B) {
				defer useKernels(k)()
				bestRate(b, n, 2*size*n, func() { _ = scalar(dst, c.x, ys) })
			})
		}
		b.Run(c.name+"/vector/math", func(b *testing.B) {
			bestRate(b, n, 3*size*n, func() {
				for i, v := range c.x {
					dst[i] = T(math.Pow(float64(v), float64(y[i])))
				}
			})
		})
	}
}
