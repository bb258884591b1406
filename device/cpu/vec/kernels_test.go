package vec

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// Lengths cover every tail (0..70 spans all remainders of the 32-element
// unrolled loops and the 8-element vectors) and a few that cross the
// summation blocks.
var testLens = func() []int {
	var ls []int
	for n := 0; n <= 70; n++ {
		ls = append(ls, n)
	}
	return append(ls, 127, 128, 129, 1000, 2047, 2048, 2049, 4096+77, 3*2048+1023)
}()

const guard = 12345.5 // sentinel around every output

// guarded returns a slice of n elements starting at element off of a larger
// buffer whose other elements hold guard, so writes outside the slice and
// alignment-dependent bugs show up.
func guarded[T Float](n, off int) (all, s []T) {
	all = make([]T, n+off+16)
	for i := range all {
		all[i] = guard
	}
	return all, all[off : off+n]
}

func checkGuards[T Float](t *testing.T, what string, all []T, off, n int) {
	t.Helper()
	for i, v := range all {
		if (i < off || i >= off+n) && v != guard {
			t.Fatalf("%s: wrote outside the output at index %d (offset %d, n %d)", what, i-off, off, n)
		}
	}
}

// randVals fills n values: mostly moderate normals, with a few large, tiny,
// zero and integral values.
func randVals[T Float](r *rand.Rand, n int) []T {
	v := make([]T, n)
	for i := range v {
		switch r.IntN(10) {
		case 0:
			v[i] = T(r.NormFloat64() * 1e6)
		case 1:
			v[i] = T(r.NormFloat64() * 1e-6)
		case 2:
			v[i] = T(r.IntN(5) - 2)
		default:
			v[i] = T(r.NormFloat64() * 10)
		}
	}
	return v
}

// withSpecials puts NaN, ±Inf and ±0 at a few places, including the tail.
func withSpecials[T Float](r *rand.Rand, v []T) []T {
	sp := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
	for k := 0; k < len(v)/5+1 && len(v) > 0; k++ {
		v[r.IntN(len(v))] = T(sp[r.IntN(len(sp))])
	}
	if len(v) > 0 {
		v[len(v)-1] = T(sp[r.IntN(len(sp))])
	}
	return v
}

// same reports whether got equals want exactly, NaN matching NaN; zeros of
// either sign match when anyZero is set.
func same(got, want float64, anyZero bool) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if got != want {
		return false
	}
	return anyZero || got != 0 || math.Signbit(got) == math.Signbit(want)
}

func refMax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

func refMin(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Min(a, b)
}

// binCase is one binary operation: its exported function and a float64
// reference rounded to the element type (exact for + - * /, since float64
// has more than twice float32's precision).
type binCase[T Float] struct {
	name    string
	fn      func(dst, a, b []T) error
	ref     func(a, b float64) float64
	anyZero bool
}

func binCases[T Float]() []binCase[T] {
	return []binCase[T]{
		{"Add", Add[T], func(a, b float64) float64 { return a + b }, false},
		{"Sub", Sub[T], func(a, b float64) float64 { return a - b }, false},
		{"Mul", Mul[T], func(a, b float64) float64 { return a * b }, false},
		{"Div", Div[T], func(a, b float64) float64 { return a / b }, false},
		{"Maximum", Maximum[T], refMax, true},
		{"Minimum", Minimum[T], refMin, true},
		{"AddScalar", scalarAsBinary(AddScalar[T]), func(a, b float64) float64 { return a + b }, false},
		{"SubScalar", scalarAsBinary(SubScalar[T]), func(a, b float64) float64 { return a - b }, false},
		{"RSubScalar", scalarAsBinary(RSubScalar[T]), func(a, b float64) float64 { return b - a }, false},
		{"MulScalar", scalarAsBinary(MulScalar[T]), func(a, b float64) float64 { return a * b }, false},
		{"DivScalar", scalarAsBinary(DivScalar[T]), func(a, b float64) float64 { return a / b }, false},
		{"RDivScalar", scalarAsBinary(RDivScalar[T]), func(a, b float64) float64 { return b / a }, false},
		{"MaximumScalar", scalarAsBinary(MaximumScalar[T]), refMax, true},
		{"MinimumScalar", scalarAsBinary(MinimumScalar[T]), refMin, true},
	}
}

// scalarAsBinary runs a vector-scalar function with s = b[0] broadcast: the
// test then fills b with b[0] so the reference sees the same operand.
func scalarAsBinary[T Float](f func(dst, a []T, s T) error) func(dst, a, b []T) error {
	return func(dst, a, b []T) error {
		var s T = 3.25
		if len(b) > 0 {
			s = b[0]
			for i := range b {
				b[i] = s
			}
		}
		return f(dst, a, s)
	}
}

func roundTo[T Float](v float64) float64 { return float64(T(v)) }

func testBinary[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range binCases[T]() {
		for _, specials := range []bool{false, true} {
			for _, n := range testLens {
				for _, off := range []int{0, 1, 3} {
					a := randVals[T](r, n)
					b := randVals[T](r, n)
					if specials {
						withSpecials(r, a)
						withSpecials(r, b)
					}
					all, dst := guarded[T](n, off)
					for i := range dst {
						dst[i] = T(math.NaN())
					}
					if err := c.fn(dst, a, b); err != nil {
						t.Fatalf("%s n=%d: %v", c.name, n, err)
					}
					checkGuards(t, c.name, all, off, n)
					for i := range dst {
						want := roundTo[T](c.ref(float64(a[i]), float64(b[i])))
						if !same(float64(dst[i]), want, c.anyZero) {
							t.Fatalf("%s n=%d off=%d: [%d] %v op %v = %v, want %v", c.name, n, off, i, a[i], b[i], dst[i], want)
						}
					}
					// In place: dst is a.
					if err := c.fn(a, a, b); err != nil {
						t.Fatal(err)
					}
					for i := range a {
						if !same(float64(a[i]), float64(dst[i]), true) {
							t.Fatalf("%s in place n=%d: [%d] = %v, want %v", c.name, n, i, a[i], dst[i])
						}
					}
				}
			}
		}
	}
}

func TestBinary(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			t.Run("float32", testBinary[float32])
			t.Run("float64", testBinary[float64])
		})
	}
}

// TestStreamingStores reruns the arithmetic tests with the non-temporal
// store path (normally only for outputs larger than the last-level cache)
// enabled for every length, covering its alignment head.
func TestStreamingStores(t *testing.T) {
	defer setNTBytes(0)()
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			t.Run("binary32", testBinary[float32])
			t.Run("binary64", testBinary[float64])
			testAxpy(t, fma32)
			testAxpy(t, math.FMA)
			testRelu[float32](t)
			testRelu[float64](t)
			testSqrt[float32](t)
			testSqrt[float64](t)
			testSign[float32](t)
			testSign[float64](t)
		})
	}
}

// TestInputsUnchanged checks that no kernel writes to its inputs.
func TestInputsUnchanged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, k := range available() {
		defer useKernels(k)()
		a := withSpecials(r, randVals[float32](r, 133))
		b := withSpecials(r, randVals[float32](r, 133))
		a0, b0 := append([]float32(nil), a...), append([]float32(nil), b...)
		dst := make([]float32, len(a))
		for _, c := range binCases[float32]()[:6] {
			c.fn(dst, a, b)
		}
		for _, f := range unaries32 {
			f.fn(dst, a)
		}
		Axpy(dst, 2, a, b)
		Relu(dst, a)
		Sqrt(dst, a)
		Sign(dst, a)
		for _, c := range exactCases {
			c.f32(dst, a)
		}
		Sum(a)
		Dot(a, b)
		Max(a)
		Min(a)
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(a0[i]) || math.Float32bits(b[i]) != math.Float32bits(b0[i]) {
				t.Fatalf("%s: input changed at %d", k.name, i)
			}
		}
	}
}

func testAxpy[T Float](t *testing.T, fma func(a, x, y T) T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range testLens {
		for _, off := range []int{0, 1} {
			x := withSpecials(r, randVals[T](r, n))
			y := randVals[T](r, n)
			alpha := T(r.NormFloat64())
			all, dst := guarded[T](n, off)
			if err := Axpy(dst, alpha, x, y); err != nil {
				t.Fatal(err)
			}
			checkGuards(t, "Axpy", all, off, n)
			for i := range dst {
				want := fma(alpha, x[i], y[i])
				if !same(float64(dst[i]), float64(want), false) {
					t.Fatalf("Axpy n=%d: [%d] %v*%v+%v = %v, want %v", n, i, alpha, x[i], y[i], dst[i], want)
				}
			}
			// In place on y.
			Axpy(y, alpha, x, y)
			for i := range y {
				if !same(float64(y[i]), float64(dst[i]), false) {
					t.Fatalf("Axpy in place: [%d] = %v, want %v", i, y[i], dst[i])
				}
			}
		}
	}
}

func TestAxpy(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			testAxpy(t, fma32)
			testAxpy(t, math.FMA)
		})
	}
}

func testRelu[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range testLens {
		x := withSpecials(r, randVals[T](r, n))
		all, dst := guarded[T](n, 1)
		if err := Relu(dst, x); err != nil {
			t.Fatal(err)
		}
		checkGuards(t, "Relu", all, 1, n)
		for i, v := range x {
			want := float64(v)
			if !(want > 0) && !math.IsNaN(want) {
				want = 0 // +0, also for -0
			}
			if !same(float64(dst[i]), want, false) {
				t.Fatalf("Relu(%v) = %v, want %v", v, dst[i], want)
			}
		}
	}
}

// testSqrt checks Sqrt bit for bit against float64 math.Sqrt rounded to T
// (exact for float32: the float64 root of a float32 rounds to the
// correctly rounded float32 root), over every test length, in a buffer
// with guards, and in place.
func testSqrt[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range testLens {
		x := withSpecials(r, randVals[T](r, n))
		for i := range x {
			if i%3 != 0 {
				x[i] = T(math.Abs(float64(x[i]))) // mostly valid inputs; every third may be negative
			}
		}
		all, dst := guarded[T](n, 1)
		if err := Sqrt(dst, x); err != nil {
			t.Fatal(err)
		}
		checkGuards(t, "Sqrt", all, 1, n)
		for i, v := range x {
			want := float64(T(math.Sqrt(float64(v))))
			if !same(float64(dst[i]), want, false) {
				t.Fatalf("Sqrt(%v) = %v, want %v", v, dst[i], want)
			}
		}
		Sqrt(x, x)
		for i := range x {
			if !same(float64(x[i]), float64(dst[i]), false) {
				t.Fatalf("Sqrt in place: [%d] = %v, want %v", i, x[i], dst[i])
			}
		}
	}
}

// testSign checks Sign against NumPy's definition (1, -1, +0 for both
// zeros, NaN for NaN; the sign of zero checked) over every test length,
// with guards.
func testSign[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range testLens {
		x := withSpecials(r, randVals[T](r, n))
		for i := range x {
			if i%5 == 0 {
				x[i] = T(math.Copysign(0, float64(x[i]))) // zeros of both signs
			}
		}
		all, dst := guarded[T](n, 1)
		if err := Sign(dst, x); err != nil {
			t.Fatal(err)
		}
		checkGuards(t, "Sign", all, 1, n)
		for i, v := range x {
			want := float64(v)
			switch {
			case v > 0:
				want = 1
			case v < 0:
				want = -1
			case v == 0:
				want = 0
			}
			if !same(float64(dst[i]), want, false) {
				t.Fatalf("Sign(%v) = %v, want %v", v, dst[i], want)
			}
		}
	}
}

func TestSign(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			testSign[float32](t)
			testSign[float64](t)
		})
	}
}

func TestSqrt(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			testSqrt[float32](t)
			testSqrt[float64](t)
		})
	}
}

func TestRelu(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			testRelu[float32](t)
			testRelu[float64](t)
		})
	}
}

// TestUnaryLengths runs every float32 and float64 unary function over all
// test lengths and offsets, against the generic kernel of the same element
// (float64 functions are identical in both sets; float32 transcendentals are
// within their stated ulps).
func TestUnaryLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, f := range unaries32 {
				for _, n := range testLens {
					for _, off := range []int{0, 1, 5} {
						x := withSpecials(r, randVals[float32](r, n))
						all, dst := guarded[float32](n, off)
						for i := range dst {
							dst[i] = float32(math.NaN())
						}
						if err := f.fn(dst, x); err != nil {
							t.Fatal(err)
						}
						checkGuards(t, f.name, all, off, n)
						for i, v := range x {
							want := f.ref(float64(v))
							if e := ulpErr32(dst[i], want); e > f.maxULP && math.Abs(want) >= 0x1p-126 {
								t.Fatalf("%s(%v) = %v, want %v (%.2f ulp)", f.name, v, dst[i], want, e)
							}
						}
					}
				}
			}
		})
	}
}

// TestErrors checks that bad arguments are errors of the documented kind.
func TestErrors(t *testing.T) {
	buf := make([]float32, 10)
	a, b := make([]float32, 4), make([]float32, 5)
	cases := []struct {
		name string
		err  error
		kind error
	}{
		{"Add lengths", Add(a, a, b), errs.ErrShape},
		{"Sub dst length", Sub(b, a, a), errs.ErrShape},
		{"AddScalar lengths", AddScalar(a, b, 1), errs.ErrShape},
		{"Axpy lengths", Axpy(a, 1, a, b), errs.ErrShape},
		{"Exp lengths", Exp(a, b), errs.ErrShape},
		{"Dot lengths", second(Dot(a, b)), errs.ErrShape},
		{"Max empty", second(Max([]float32{})), errs.ErrShape},
		{"Min empty", second(Min[float64](nil)), errs.ErrShape},
		{"Add overlap", Add(buf[1:5], buf[0:4], a), errs.ErrValue},
		{"Exp overlap", Exp(buf[0:4], buf[2:6]), errs.ErrValue},
		{"Axpy overlap", Axpy(buf[3:7], 2, a, buf[0:4]), errs.ErrValue},
		{"Add exact alias ok", Add(buf[0:4], buf[0:4], buf[0:4]), nil},
		{"Add disjoint ok", Add(buf[0:4], buf[4:8], a), nil},
		{"empty ok", Add[float64](nil, nil, nil), nil},
	}
	for _, c := range cases {
		if c.kind == nil {
			if c.err != nil {
				t.Errorf("%s: unexpected error %v", c.name, c.err)
			}
			continue
		}
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%s: got %v, want kind %v", c.name, c.err, c.kind)
		}
	}
	if err := Add(a, a, b); err == nil || err.Error() != "vec: Add: lengths differ: len(dst)=4, len(a)=4, len(b)=5" {
		t.Errorf("message: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

// TestDefinedTypes runs the generic entry points on types defined over
// float32 and float64.
func TestDefinedTypes(t *testing.T) {
	type f32 float32
	type f64 float64
	a := []f32{1, 2, 3}
	d := make([]f32, 3)
	if err := Add(d, a, a); err != nil || d[2] != 6 {
		t.Fatalf("Add: %v %v", d, err)
	}
	b := []f64{1, 2, 3}
	if s := Sum(b); s != 6 {
		t.Fatalf("Sum = %v", s)
	}
}

func TestPick(t *testing.T) {
	ks := available()
	best := ks[len(ks)-1]
	belowAVX512 := best
	if best == avx512Kernels && len(ks) > 1 {
		belowAVX512 = ks[len(ks)-2]
	}
	for _, c := range []struct {
		env  string
		want *kernels
	}{
		{"generic", genericKernels},
		{" Generic ", genericKernels},
		{"avx2", belowAVX512},
		{"AVX2", belowAVX512},
		{"", best},
		{"avx512", best},
		{"auto", best},
	} {
		if k := pick(c.env); k != c.want {
			t.Errorf("TESSERA_CPU=%q picked %s, want %s", c.env, k.name, c.want.name)
		}
	}
	// The tiers this machine has, by what cpuid reports.
	want := []string{"generic"}
	if avx2Kernels != nil && cpuHasAVX2FMA() {
		want = append(want, "avx2")
		if avx512Kernels != nil && cpuHasAVX512() {
			want = append(want, "avx512")
		}
	}
	var got []string
	for _, k := range ks {
		got = append(got, k.name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("available() = %v, want %v", got, want)
	}
	// Reading TESSERA_CPU in a test also makes go test's cache key on it
	// (the read in init is not recorded), so a cached run under another
	// tier is never reused.
	if env := os.Getenv("TESSERA_CPU"); Implementation() != pick(env).name {
		t.Errorf("TESSERA_CPU=%q: active set %s, want %s", env, Implementation(), pick(env).name)
	}
	t.Logf("active: %s; available: %v", Implementation(), got)
}

// skipSweepUnderRace skips an accuracy sweep in a -race build. vec's
// kernels start no goroutines (only Parallel does, and its tests still run
// under -race), so the detector has nothing to watch in a sweep that calls
// them from one goroutine; instrumented, the sweeps' references take
// minutes. The test stages without -race run them on every tier.
func skipSweepUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("single-goroutine accuracy sweep: runs in the stages without -race")
	}
}
