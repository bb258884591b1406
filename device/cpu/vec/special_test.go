package vec

import (
	"math"
	"testing"
)

var (
	inf  = math.Inf(1)
	nan  = math.NaN()
	negZ = math.Copysign(0, -1)
)

// special is one input with its exact expected output (sign of zero
// included) or, with approx, checked against the float64 reference of the
// input rounded to the element type, to the function's ulp bound.
type special struct {
	x, want float64
	approx  bool
}

var specials = map[string][]special{
	"Exp": {{nan, nan, false}, {inf, inf, false}, {-inf, 0, false}, {0, 1, false}, {negZ, 1, false},
		{89, inf, false}, {1e30, inf, false}, {-104, 0, false}, {-1e30, 0, false},
		{88.72, 0, true}, {-87.5, 0, true}, {-100, 0, true}, {1, 0, true}},
	"Log": {{nan, nan, false}, {inf, inf, false}, {-inf, nan, false}, {0, -inf, false}, {negZ, -inf, false},
		{-1, nan, false}, {-1e-40, nan, false}, {1, 0, false}, {math.E, 0, true},
		{math.MaxFloat32, 0, true}, {0x1p-149, 0, true}, {1e-40, 0, true}},
	"Tanh": {{nan, nan, false}, {inf, 1, false}, {-inf, -1, false}, {0, 0, false}, {negZ, negZ, false},
		{20, 1, false}, {-20, -1, false}, {1e-30, 0, true}, {-0.5, 0, true}, {3, 0, true}},
	"Sigmoid": {{nan, nan, false}, {inf, 1, false}, {-inf, 0, false}, {0, 0.5, false}, {negZ, 0.5, false},
		{100, 1, false}, {-200, 0, false}, {-80, 0, true}, {-50, 0, true}},
	"GeluTanh": {{nan, nan, false}, {inf, inf, false}, {-inf, negZ, false}, {0, 0, false}, {negZ, negZ, false},
		{1e30, 0, true}, {-1e30, negZ, false}, {-5, 0, true}, {1, 0, true}},
	"GeluErf": {{nan, nan, false}, {inf, inf, false}, {-inf, negZ, false}, {0, 0, false}, {negZ, negZ, false},
		{1e30, 0, true}, {-1e30, negZ, false}, {-5, 0, true}, {1, 0, true}},
	"Erf": {{nan, nan, false}, {inf, 1, false}, {-inf, -1, false}, {0, 0, false}, {negZ, negZ, false},
		{10, 1, false}, {-10, -1, false}, {1e-30, 0, true}, {0.5, 0, true}},
	"Relu": {{nan, nan, false}, {inf, inf, false}, {-inf, 0, false}, {negZ, 0, false}, {-1, 0, false}, {2, 2, false}},
}

var refs = map[string]func(float64) float64{
	"Exp": math.Exp, "Log": math.Log, "Tanh": math.Tanh, "Sigmoid": refSigmoid,
	"GeluTanh": refGeluTanh, "GeluErf": refGeluErf, "Erf": math.Erf,
}

func unaryByName[T Float](name string) func(dst, x []T) error {
	return map[string]func(dst, x []T) error{
		"Exp": Exp[T], "Log": Log[T], "Tanh": Tanh[T], "Sigmoid": Sigmoid[T],
		"GeluTanh": GeluTanh[T], "GeluErf": GeluErf[T], "Erf": Erf[T], "Relu": Relu[T],
	}[name]
}

func testSpecials[T Float](t *testing.T, ulps func(got T, want float64) float64) {
	for name, cases := range specials {
		limit := 1.0
		for _, f := range unaries32 {
			if f.name == name {
				limit = f.maxULP
			}
		}
		// Each value alone, and each inside a full vector and in a tail.
		for _, n := range []int{1, 8, 19} {
			x := make([]T, n*len(cases))
			for i := range x {
				x[i] = T(cases[i%len(cases)].x)
			}
			dst := make([]T, len(x))
			if err := unaryByName[T](name)(dst, x); err != nil {
				t.Fatal(err)
			}
			for i := range x {
				c := cases[i%len(cases)]
				got := dst[i]
				want := roundTo[T](c.want)
				if c.approx {
					w := refs[name](float64(T(c.x)))
					if e := ulps(got, w); e > limit {
						t.Errorf("%s(%v) = %v, want %v (%.2f ulp)", name, c.x, got, w, e)
					}
				} else if !same(float64(got), want, false) {
					t.Errorf("%s(%v) = %v, want %v", name, c.x, got, want)
				}
			}
		}
	}
}

func TestSpecialValues(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			t.Run("float32", func(t *testing.T) {
				testSpecials(t, func(got float32, want float64) float64 { return ulpErr32(got, want) })
			})
			t.Run("float64", func(t *testing.T) {
				testSpecials(t, func(got float64, want float64) float64 {
					if got == want {
						return 0
					}
					return math.Abs(got-want) / (math.Nextafter(math.Abs(want), inf) - math.Abs(want))
				})
			})
		})
	}
}
