package vec

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
)

// exactCases are the unaries whose every result must equal the float64
// reference rounded to the element type, bit for bit (NaN as any NaN).
var exactCases = []struct {
	name string
	f32  func(dst, x []float32) error
	f64  func(dst, x []float64) error
	ref  func(float64) float64
}{
	{"Neg", Neg[float32], Neg[float64], func(x float64) float64 { return -x }},
	{"Abs", Abs[float32], Abs[float64], math.Abs},
	{"Floor", Floor[float32], Floor[float64], math.Floor},
	{"Ceil", Ceil[float32], Ceil[float64], math.Ceil},
	{"Trunc", Trunc[float32], Trunc[float64], math.Trunc},
	{"RoundEven", RoundEven[float32], RoundEven[float64], math.RoundToEven},
	{"Reciprocal", Reciprocal[float32], Reciprocal[float64], func(x float64) float64 { return 1 / x }},
	{"Rsqrt", Rsqrt[float32], Rsqrt[float64], rsqrt64},
	{"Hardswish", Hardswish[float32], Hardswish[float64], func(x float64) float64 { return x * min(max(x+3, 0), 6) / 6 }},
}

// exactInputs returns n values for the exact unaries: randVals with
// specials, plus halves and near-halves (where the roundings differ),
// values around 2^23 and 2^52 (where float32 and float64 stop having a
// fraction), subnormals and values whose reciprocal overflows.
func exactInputs[T Float](r *rand.Rand, n int) []T {
	x := withSpecials(r, randVals[T](r, n))
	for i := range x {
		switch i % 7 {
		case 1:
			x[i] = T(float64(r.IntN(11)-5) + 0.5) // ±0.5, ±1.5, ... : ties
		case 3:
			x[i] = T(math.Ldexp(float64(r.IntN(1<<20)), r.IntN(40)) * float64(1-2*r.IntN(2)))
		case 5:
			tiny := []float64{1e-40, -1e-40, 1e-310, -1e-310, 0.49999997, -0.49999997, 2.5, -2.5, 1e-39}
			x[i] = T(tiny[r.IntN(len(tiny))])
		}
	}
	return x
}

func checkExact[T Float](t *testing.T, name string, fn func(dst, x []T) error, ref func(float64) float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(21, uint64(len(name))))
	for _, n := range testLens {
		for _, off := range []int{0, 1} {
			x := exactInputs[T](r, n)
			all, dst := guarded[T](n, off)
			if err := fn(dst, x); err != nil {
				t.Fatal(err)
			}
			checkGuards(t, name, all, off, n)
			for i, v := range x {
				if want := float64(T(ref(float64(v)))); !same(float64(dst[i]), want, false) {
					t.Fatalf("%s(%v) = %v, want %v (n=%d)", name, v, dst[i], want, n)
				}
			}
			in := append([]T(nil), x...)
			if err := fn(in, in); err != nil {
				t.Fatal(err)
			}
			for i := range in {
				if !same(float64(in[i]), float64(dst[i]), false) {
					t.Fatalf("%s in place: [%d] = %v, want %v", name, i, in[i], dst[i])
				}
			}
		}
	}
}

// TestExactUnaries checks Neg, Abs, Floor, Ceil, Trunc, RoundEven and
// Reciprocal on every tier, in float32 and float64, bit for bit against
// package math rounded to the type, over every test length at two
// offsets, in place, and with the non-temporal store path forced; then
// the float32 kernels on 2^20 random bit patterns (every binade, NaN
// payloads, subnormals).
func TestExactUnaries(t *testing.T) {
	for _, nt := range []bool{false, true} {
		if nt {
			defer setNTBytes(0)()
		}
		for _, k := range available() {
			t.Run(k.name, func(t *testing.T) {
				defer useKernels(k)()
				for _, c := range exactCases {
					checkExact(t, c.name, c.f32, c.ref)
					checkExact(t, c.name, c.f64, c.ref)
				}
			})
		}
	}
	r := rand.New(rand.NewPCG(22, 23))
	x := make([]float32, 1<<20)
	for i := range x {
		x[i] = math.Float32frombits(r.Uint32())
	}
	dst := make([]float32, len(x))
	for _, k := range available() {
		defer useKernels(k)()
		for _, c := range exactCases {
			if err := c.f32(dst, x); err != nil {
				t.Fatal(err)
			}
			for i, v := range x {
				if want := float64(float32(c.ref(float64(v)))); !same(float64(dst[i]), want, false) {
					t.Fatalf("%s: %s(%v) = %v, want %v", k.name, c.name, v, dst[i], want)
				}
			}
		}
	}
}

// TestExhaustiveExactF32 checks every exact unary on all 2^32 float32
// inputs on every kernel set, bit for bit against its reference: the
// AVX2 and AVX-512 float32 Rsqrt refine an estimate rather than compute
// 1/math.Sqrt (rsqrtRefinedAVX2 and rsqrtRefined in asmgen.go) and are
// exact only because no input lands near enough to a tie, which only all
// of them can show. Runs only with TESSERA_EXHAUSTIVE=1 (Rsqrt ten to
// thirty seconds a tier on two cores, most of it the reference); -run
// 'TestExhaustiveExactF32/avx512/Rsqrt' picks one.
func TestExhaustiveExactF32(t *testing.T) {
	if os.Getenv("TESSERA_EXHAUSTIVE") != "1" {
		t.Skip("set TESSERA_EXHAUSTIVE=1 to check all 2^32 inputs")
	}
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, c := range exactCases {
				t.Run(c.name, func(t *testing.T) { exhaustiveExact(t, c.f32, c.ref) })
			}
		})
	}
}

// exhaustiveExact runs fn over all 2^32 bit patterns, in chunks shared
// among the cores, and reports the first input per core whose result is
// not ref's rounded to float32 (NaN as any NaN) and how many differ.
func exhaustiveExact(t *testing.T, fn func(dst, x []float32) error, ref func(float64) float64) {
	workers := runtime.GOMAXPROCS(0)
	bad := make([]int, workers)
	first := make([]float32, workers)
	dsts := make([][]float32, workers)
	allFloat32s(func(w int, xs []float32) {
		if dsts[w] == nil {
			dsts[w] = make([]float32, len(xs))
		}
		dst := dsts[w]
		if err := fn(dst, xs); err != nil {
			t.Error(err)
			return
		}
		for i, v := range xs {
			if !same(float64(dst[i]), float64(float32(ref(float64(v)))), false) {
				if bad[w] == 0 {
					first[w] = v
				}
				bad[w]++
			}
		}
	})
	for w, n := range bad {
		if n > 0 {
			t.Errorf("%d inputs differ, the first of them %g (%#08x)", n, first[w], math.Float32bits(first[w]))
		}
	}
}
