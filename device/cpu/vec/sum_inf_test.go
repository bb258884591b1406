package vec

import (
	"math"
	"testing"
)

// TestSumDotOverflow: Sum and Dot have no compensation term that could turn
// an infinite total into NaN: a +Inf element, or float32 lanes that
// overflow, give +Inf in every kernel set, and only opposite infinities or
// a NaN give NaN.
func TestSumDotOverflow(t *testing.T) {
	inf := float32(math.Inf(1))
	for _, k := range available() {
		restore := useKernels(k)
		for _, n := range []int{2, 9, 64, 100, 2049, 5000} {
			x := make([]float32, n)
			ones := make([]float32, n)
			for i := range x {
				x[i], ones[i] = 1, 1
			}
			x[n/2] = inf
			if s := Sum(x); !math.IsInf(float64(s), 1) {
				t.Errorf("%s n=%d: float32 Sum with +Inf = %v", k.name, n, s)
			}
			if s, _ := Dot(x, ones); !math.IsInf(float64(s), 1) {
				t.Errorf("%s n=%d: float32 Dot with +Inf = %v", k.name, n, s)
			}
			for i := range x {
				x[i] = 3e38 // every lane overflows float32
			}
			if s := Sum(x); !math.IsInf(float64(s), 1) {
				t.Errorf("%s n=%d: float32 Sum of 3e38s = %v", k.name, n, s)
			}
			x[0] = -inf
			x[n-1] = inf
			if s := Sum(x); !math.IsNaN(float64(s)) {
				t.Errorf("%s n=%d: float32 Sum with ±Inf = %v", k.name, n, s)
			}
			y := make([]float64, n)
			for i := range y {
				y[i] = 1e308
			}
			if s := Sum(y); !math.IsInf(s, 1) {
				t.Errorf("%s n=%d: float64 Sum of 1e308s = %v", k.name, n, s)
			}
		}
		restore()
	}
}
