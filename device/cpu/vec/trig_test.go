package vec

import (
	"math"
	"testing"
)

// refCase32 is a float32 function under test and its float64 reference.
type refCase32 struct {
	name string
	fn   func(dst, x []float32) error
	ref  func(float64) float64
}

// TestTrigLargeArguments mixes the elements the float32 Sin, Cos and Tan
// kernels leave to package math (|x| >= 2^30 and infinities) with ones
// they compute, in the vector body and in the tail, into a separate dst
// and in place, on every tier. It includes Tan's largest result below
// 2^30 (x = 252.89821, 0x437ce5f1, tan = -2.39e8), which must not be
// taken for an element left to math, and the neighbours of 2^30.
func TestTrigLargeArguments(t *testing.T) {
	special := []float32{0x1p30, -0x1p30, math.Nextafter32(0x1p30, 0), 3e38, -1e10,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.Float32frombits(0x437ce5f1), -math.Float32frombits(0x437ce5f1), float32(math.Copysign(0, -1)), 0x1p-149, 1}
	var xs []float32
	for i := range 53 { // 53: three 16-lane vectors and a tail of 5
		xs = append(xs, float32(i)*0.37-9, special[i%len(special)])
	}
	ops := []refCase32{{"Sin", Sin[float32], math.Sin}, {"Cos", Cos[float32], math.Cos}, {"Tan", Tan[float32], math.Tan}}
	for _, k := range available() {
		defer useKernels(k)()
		for _, op := range ops {
			for _, inPlace := range []bool{false, true} {
				got := make([]float32, len(xs))
				src := xs
				if inPlace {
					copy(got, xs)
					src = got
				}
				if err := op.fn(got, src); err != nil {
					t.Fatal(err)
				}
				for i, x := range xs {
					if e := ulpErr32(got[i], op.ref(float64(x))); e > 0.501 {
						t.Errorf("%s %s in place %v: %s(%g) = %g, want %g (%.3f ulp)", k.name, op.name, inPlace, op.name, x, got[i], op.ref(float64(x)), e)
					}
				}
			}
		}
	}
}

// TestArcSpecial checks Asin, Acos and Atan at their special values on
// every tier, bit for bit against package math rounded to float32 (NaN as
// any NaN, the sign of zero kept): ±0, ±1, beyond ±1, ±Inf and NaN.
func TestArcSpecial(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 1.5, -1.5, math.Nextafter(1, 2), math.Inf(1), math.Inf(-1), math.NaN(),
		0x1p-149, -0x1p-149, 1e-30, 0.5, -0.5, 1e30, -1e30}
	var xs []float32
	for range 3 { // 51 elements: body and tail
		for _, v := range vals {
			xs = append(xs, float32(v))
		}
	}
	ops := []refCase32{{"Asin", Asin[float32], math.Asin}, {"Acos", Acos[float32], math.Acos}, {"Atan", Atan[float32], math.Atan}}
	for _, k := range available() {
		defer useKernels(k)()
		for _, op := range ops {
			got := make([]float32, len(xs))
			if err := op.fn(got, xs); err != nil {
				t.Fatal(err)
			}
			for i, x := range xs {
				want := float32(op.ref(float64(x)))
				if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
					t.Errorf("%s: %s(%g) = %g, want %g", k.name, op.name, x, got[i], want)
				}
			}
		}
	}
}
