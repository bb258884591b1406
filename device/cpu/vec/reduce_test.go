package vec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactSum returns sum(x) (or sum(a*b)) exactly, rounded to float64.
func exactSum[T Float](a, b []T) float64 {
	// 1200 bits hold any sum of products of the test's values exactly.
	s := new(big.Float).SetPrec(1200)
	for i := range a {
		v := new(big.Float).SetFloat64(float64(a[i]))
		if b != nil {
			v.SetPrec(1200).Mul(v, new(big.Float).SetFloat64(float64(b[i])))
		}
		s.Add(s, v)
	}
	f, _ := s.Float64()
	return f
}

// sumBound is the documented error bound of Sum/Dot for n terms whose
// absolute values add up to abs and whose exact sum is exact.
func sumBound[T Float](n int, abs, exact float64) float64 {
	if is32[T]() {
		u := 0x1p-24
		return 41*u*abs + u*math.Abs(exact) + (float64(n)/2048+3)*0x1p-53*abs
	}
	return (43 + float64(n)/1024) * 0x1p-53 * abs
}

func testSum[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	lens := append(append([]int(nil), testLens...), 100_003)
	for _, n := range lens {
		for _, off := range []int{0, 1} {
			buf := randVals[T](r, n+off)
			x := buf[off:]
			b := randVals[T](r, n)
			got := Sum(x)
			gotDot, err := Dot(x, b)
			if err != nil {
				t.Fatal(err)
			}
			var abs, absDot float64
			for i := range x {
				abs += math.Abs(float64(x[i]))
				absDot += math.Abs(float64(x[i]) * float64(b[i]))
			}
			if want := exactSum(x, nil); math.Abs(float64(got)-want) > sumBound[T](n, abs, want) {
				t.Fatalf("Sum n=%d: %v, exact %v, bound %g", n, got, want, sumBound[T](n, abs, want))
			}
			if want := exactSum(x, b); math.Abs(float64(gotDot)-want) > sumBound[T](n, absDot, want) {
				t.Fatalf("Dot n=%d: %v, exact %v", n, gotDot, want)
			}
			// Determinism: same bits again, and the same bits as the
			// generic order, whatever the alignment.
			if again := Sum(x); math.Float64bits(float64(again)) != math.Float64bits(float64(got)) {
				t.Fatalf("Sum n=%d not repeatable: %v then %v", n, got, again)
			}
			moved := append(make([]T, 0, n+3)[:3], x...)[3:]
			if m := Sum(moved); m != got {
				t.Fatalf("Sum n=%d depends on alignment: %v vs %v", n, got, m)
			}
			var gen, genDot T
			func() {
				defer useKernels(genericKernels)()
				gen = Sum(x)
				genDot, _ = Dot(x, b)
			}()
			if gen != got || genDot != gotDot {
				t.Fatalf("n=%d: Sum %v / Dot %v, generic order gives %v / %v", n, got, gotDot, gen, genDot)
			}
		}
	}
	if s := Sum([]T{}); s != 0 {
		t.Fatalf("Sum(empty) = %v", s)
	}
}

func TestSum(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			t.Run("float32", testSum[float32])
			t.Run("float64", testSum[float64])
		})
	}
}

// TestSumAccuracy compares against a plain float32 loop on a sum where the
// plain loop stalls: 2^24+ ones and a large first term.
func TestSumAccuracy(t *testing.T) {
	x := make([]float32, 1<<25)
	for i := range x {
		x[i] = 1
	}
	for _, k := range available() {
		defer useKernels(k)()
		if s := Sum(x); s != 1<<25 {
			t.Errorf("%s: Sum of 2^25 ones = %v", k.name, s)
		}
	}
}

func TestSumSpecials(t *testing.T) {
	for _, k := range available() {
		defer useKernels(k)()
		for _, n := range []int{1, 7, 8, 64, 100, 2048, 2049, 5000} {
			for _, pos := range []int{0, n / 2, n - 1} {
				x := make([]float64, n)
				for i := range x {
					x[i] = 1
				}
				x[pos] = math.Inf(1)
				if s := Sum(x); !math.IsInf(s, 1) {
					t.Errorf("%s: Sum with +Inf = %v", k.name, s)
				}
				x[n-1-pos] = math.Inf(-1)
				if n > 1 && pos != n-1-pos {
					if s := Sum(x); !math.IsNaN(s) {
						t.Errorf("%s: Sum with ±Inf = %v", k.name, s)
					}
				}
				x[pos] = math.NaN()
				if s := Sum(x); !math.IsNaN(s) {
					t.Errorf("%s: Sum with NaN = %v", k.name, s)
				}
			}
		}
	}
}

func testMaxMin[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range testLens[1:] {
		for _, off := range []int{0, 1} {
			x := randVals[T](r, n+off)[off:]
			wantMax, wantMin := math.Inf(-1), math.Inf(1)
			for _, v := range x {
				wantMax = math.Max(wantMax, float64(v))
				wantMin = math.Min(wantMin, float64(v))
			}
			gotMax, err1 := Max(x)
			gotMin, err2 := Min(x)
			if err1 != nil || err2 != nil || float64(gotMax) != wantMax || float64(gotMin) != wantMin {
				t.Fatalf("n=%d: Max %v Min %v, want %v %v (%v %v)", n, gotMax, gotMin, wantMax, wantMin, err1, err2)
			}
			// A NaN anywhere, including every tail position, wins.
			for _, pos := range []int{0, n / 3, n - 1} {
				y := append([]T(nil), x...)
				y[pos] = T(math.NaN())
				if m, _ := Max(y); !math.IsNaN(float64(m)) {
					t.Fatalf("Max n=%d NaN at %d: %v", n, pos, m)
				}
				if m, _ := Min(y); !math.IsNaN(float64(m)) {
					t.Fatalf("Min n=%d NaN at %d: %v", n, pos, m)
				}
			}
			// Infinities are ordinary values.
			if n < 2 {
				continue
			}
			y := append([]T(nil), x...)
			y[n-1] = T(math.Inf(1))
			y[0] = T(math.Inf(-1))
			if m, _ := Max(y); !math.IsInf(float64(m), 1) {
				t.Fatalf("Max with +Inf: %v", m)
			}
			if m, _ := Min(y); !math.IsInf(float64(m), -1) {
				t.Fatalf("Min with -Inf: %v", m)
			}
		}
	}
}

func TestMaxMin(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			t.Run("float32", testMaxMin[float32])
			t.Run("float64", testMaxMin[float64])
		})
	}
}

// TestFMA32 checks the float32 fused multiply-add emulation against exact
// arithmetic, on random operands and on constructed halfway cases.
func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	exact := func(x, y, z float32) float32 {
		p := new(big.Float).SetPrec(400).SetFloat64(float64(x))
		p.Mul(p, new(big.Float).SetFloat64(float64(y)))
		p.Add(p, new(big.Float).SetFloat64(float64(z)))
		f, _ := p.Float32()
		return f
	}
	type tc struct{ x, y, z float32 }
	cases := []tc{
		// x*y = 1 + 2^-11 + 2^-24 is halfway; z decides the direction.
		{1 + 0x1p-12, 1 + 0x1p-12, 0x1p-60},
		{1 + 0x1p-12, 1 + 0x1p-12, -0x1p-60},
		{1 + 0x1p-12, 1 + 0x1p-12, 0},
		{-(1 + 0x1p-12), 1 + 0x1p-12, 0x1p-60},
		{math.MaxFloat32, 1, math.MaxFloat32},
		{0x1p-75, 0x1p-75, 0x1p-149},
		{0x1p-100, 0x1p-49, -0x1p-149},
		{3, 0x1p-150, 0x1p-149},
	}
	for range 200000 {
		x := math.Float32frombits(r.Uint32())
		y := math.Float32frombits(r.Uint32())
		z := math.Float32frombits(r.Uint32())
		cases = append(cases, tc{x, y, z}, tc{1 + float32(r.IntN(1<<12))*0x1p-23, 1 + float32(r.IntN(1<<12))*0x1p-23, float32(r.NormFloat64()) * 0x1p-40})
	}
	for _, c := range cases {
		got := fma32(c.x, c.y, c.z)
		p := float64(c.x) * float64(c.y)
		if math.IsNaN(float64(got)) || math.IsInf(p, 0) || math.IsNaN(p+float64(c.z)) {
			continue
		}
		if want := exact(c.x, c.y, c.z); math.Float32bits(got) != math.Float32bits(want) && !(got == 0 && want == 0) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", c.x, c.y, c.z, got, want)
		}
	}
}
