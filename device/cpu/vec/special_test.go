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
	only32  bool // the expected value holds for float32 only
}

var specials = map[string][]special{
	"Exp": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, 0, false, false}, {0, 1, false, false}, {negZ, 1, false, false},
		{89, inf, false, true}, {1e30, inf, false, false}, {-104, 0, false, true}, {-1e30, 0, false, false},
		{88.72, 0, true, false}, {-87.5, 0, true, false}, {-100, 0, true, false}, {1, 0, true, false}},
	"Log": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, nan, false, false}, {0, -inf, false, false}, {negZ, -inf, false, false},
		{-1, nan, false, false}, {-1e-40, nan, false, false}, {1, 0, false, false}, {math.E, 0, true, false},
		{math.MaxFloat32, 0, true, false}, {0x1p-149, 0, true, false}, {1e-40, 0, true, false}},
	"Tanh": {{nan, nan, false, false}, {inf, 1, false, false}, {-inf, -1, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{20, 1, false, false}, {-20, -1, false, false}, {1e-30, 0, true, false}, {-0.5, 0, true, false}, {3, 0, true, false}},
	"Sigmoid": {{nan, nan, false, false}, {inf, 1, false, false}, {-inf, 0, false, false}, {0, 0.5, false, false}, {negZ, 0.5, false, false},
		{100, 1, false, false}, {-200, 0, false, true}, {-80, 0, true, false}, {-50, 0, true, false}},
	"GeluTanh": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, negZ, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{1e30, 0, true, false}, {-1e30, negZ, false, false}, {-5, 0, true, false}, {1, 0, true, false}},
	"GeluErf": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, negZ, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{1e30, 0, true, false}, {-1e30, negZ, false, false}, {-5, 0, true, false}, {1, 0, true, false}},
	"Erf": {{nan, nan, false, false}, {inf, 1, false, false}, {-inf, -1, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{10, 1, false, false}, {-10, -1, false, false}, {1e-30, 0, true, false}, {0.5, 0, true, false}},
	"Silu": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, negZ, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{1e30, 1e30, false, true}, {-1e30, negZ, false, false}, {-200, negZ, false, true}, {-100, 0, true, false}, {-90, 0, true, false},
		{-5, 0, true, false}, {1, 0, true, false}, {30, 0, true, false}},
	"Sqrt": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, nan, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{-1, nan, false, false}, {4, 2, false, false}, {0x1p-149, 0, true, false}, {2, 0, true, false}},
	"Sign": {{nan, nan, false, false}, {inf, 1, false, false}, {-inf, -1, false, false}, {0, 0, false, false}, {negZ, 0, false, false},
		{1e-45, 1, false, true}, {-3, -1, false, false}, {0.5, 1, false, false}},
	"Relu": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, 0, false, false}, {negZ, 0, false, false}, {-1, 0, false, false}, {2, 2, false, false}},
	"Softplus": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, 0, false, false}, {0, math.Ln2, true, false}, {negZ, math.Ln2, true, false},
		{1e30, 1e30, false, false}, {-1e30, 0, false, false}, {-200, 0, false, true}, {-100, 0, true, false}, {20, 0, true, false}},
	"Log1p": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, nan, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{-1, -inf, false, false}, {-2, nan, false, false}, {1e-30, 0, true, false}, {-1e-10, 0, true, false}, {1e30, 0, true, false}, {3, 0, true, false}},
	"Expm1": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, -1, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{100, inf, false, true}, {-200, -1, false, false}, {1e-30, 0, true, false}, {-1e-5, 0, true, false}, {0.01, 0, true, false}, {20, 0, true, false}},
	"Exp2": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, 0, false, false}, {0, 1, false, false}, {negZ, 1, false, false},
		{3, 8, false, false}, {-149, 0x1p-149, false, true}, {127, 0x1p127, false, false}, {128, inf, false, true}, {-151, 0, false, true},
		{0.5, 0, true, false}, {-130.3, 0, true, false}},
	"Log2": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, nan, false, false}, {0, -inf, false, false}, {negZ, -inf, false, false},
		{-1, nan, false, false}, {1, 0, false, false}, {8, 3, false, false}, {0x1p-149, -149, false, false}, {3, 0, true, false}},
	"Sinh": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, -inf, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{90, inf, false, true}, {-90, -inf, false, true}, {1e-30, 0, true, false}, {-0.003, 0, true, false}, {-0.5, 0, true, false}, {20, 0, true, false}},
	"Cosh": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, inf, false, false}, {0, 1, false, false}, {negZ, 1, false, false},
		{90, inf, false, true}, {-90, inf, false, true}, {1e-30, 1, false, false}, {-0.5, 0, true, false}, {20, 0, true, false}},
	"Log10": {{nan, nan, false, false}, {inf, inf, false, false}, {-inf, nan, false, false}, {0, -inf, false, false}, {negZ, -inf, false, false},
		{-1, nan, false, false}, {1, 0, false, false}, {1000, 3, false, false}, {1e-40, 0, true, false}, {7, 0, true, false}},
	"Sin": {{nan, nan, false, false}, {inf, nan, false, false}, {-inf, nan, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{1e-30, 1e-30, false, false}, {-1e-30, -1e-30, false, false}, {1, 0, true, false}, {-2.5, 0, true, false}, {1e5, 0, true, false}},
	"Cos": {{nan, nan, false, false}, {inf, nan, false, false}, {-inf, nan, false, false}, {0, 1, false, false}, {negZ, 1, false, false},
		{1e-30, 1, false, false}, {1, 0, true, false}, {-2.5, 0, true, false}, {1e5, 0, true, false}},
	"Tan": {{nan, nan, false, false}, {inf, nan, false, false}, {-inf, nan, false, false}, {0, 0, false, false}, {negZ, negZ, false, false},
		{1e-30, 1e-30, false, false}, {-1e-30, -1e-30, false, false}, {1, 0, true, false}, {-1.5, 0, true, false}, {1e5, 0, true, false}},
}

var refs = map[string]func(float64) float64{
	"Exp": math.Exp, "Log": math.Log, "Tanh": math.Tanh, "Sigmoid": refSigmoid,
	"GeluTanh": refGeluTanh, "GeluErf": refGeluErf, "Erf": math.Erf, "Sqrt": math.Sqrt, "Silu": refSilu,
	"Softplus": refSoftplus, "Log1p": math.Log1p, "Expm1": math.Expm1, "Exp2": math.Exp2, "Log2": math.Log2, "Log10": math.Log10,
	"Sinh": math.Sinh, "Cosh": math.Cosh, "Sin": math.Sin, "Cos": math.Cos, "Tan": math.Tan,
}

func unaryByName[T Float](name string) func(dst, x []T) error {
	return map[string]func(dst, x []T) error{
		"Exp": Exp[T], "Log": Log[T], "Tanh": Tanh[T], "Sigmoid": Sigmoid[T],
		"GeluTanh": GeluTanh[T], "GeluErf": GeluErf[T], "Erf": Erf[T], "Relu": Relu[T], "Sqrt": Sqrt[T], "Sign": Sign[T],
		"Silu": Silu[T], "Softplus": Softplus[T], "Log1p": Log1p[T], "Expm1": Expm1[T], "Exp2": Exp2[T], "Log2": Log2[T], "Log10": Log10[T],
		"Sinh": Sinh[T], "Cosh": Cosh[T], "Sin": Sin[T], "Cos": Cos[T], "Tan": Tan[T],
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
				if c.only32 && !is32[T]() {
					continue
				}
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
				// float64 results are package math; the references here use
				// other (equivalent) formulas, so allow 1e-12 relative.
				testSpecials(t, func(got float64, want float64) float64 {
					if got == want {
						return 0
					}
					return math.Abs(got-want) / math.Abs(want) / 1e-12
				})
			})
		})
	}
}

// TestEdgeValuesMatchGeneric runs every unary of every tier on ±0, ±Inf,
// NaN and values that are subnormal or tiny in one of the types, and
// holds each to the generic (package math) set: float32 results bit for
// bit (any NaN for NaN), float64 results in the sign of a zero, the
// infinities and NaN-ness (their other values may differ by an ulp, see
// the package doc). The value list repeats to fill vectors and tails.
func TestEdgeValuesMatchGeneric(t *testing.T) {
	vals := []float64{negZ, 0, inf, -inf, nan, 1e-310, -1e-310, 1e-40, -1e-40, 0x1p-1074, -0x1p-149}
	var xs []float64
	for range 3 {
		xs = append(xs, vals...)
	}
	x32 := make([]float32, len(xs))
	for i, v := range xs {
		x32[i] = float32(v)
	}
	g := genericKernels
	for _, k := range available() {
		for op := range numUnOps {
			got32, want32 := make([]float32, len(xs)), make([]float32, len(xs))
			k.un32[op](got32, x32)
			g.un32[op](want32, x32)
			for i, w := range want32 {
				if got := got32[i]; math.Float32bits(got) != math.Float32bits(w) && !(got != got && w != w) {
					t.Errorf("%s float32 op %d (%v): %g, want %g", k.name, op, x32[i], got, w)
				}
			}
			got64, want64 := make([]float64, len(xs)), make([]float64, len(xs))
			k.un64[op](got64, xs)
			g.un64[op](want64, xs)
			for i, w := range want64 {
				got := got64[i]
				zeroSign := w == 0 && (got != 0 || math.Signbit(got) != math.Signbit(w))
				infinite := math.IsInf(w, 0) && got != w
				if zeroSign || infinite || (got != got) != (w != w) {
					t.Errorf("%s float64 op %d (%v): %g, want %g", k.name, op, xs[i], got, w)
				}
			}
		}
	}
}
