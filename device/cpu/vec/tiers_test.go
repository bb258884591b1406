package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestUnaryLaneMix checks that a float32 unary kernel's result for an
// element does not depend on its neighbours: the kernels take branches
// per vector (tanh skips a path no lane needs), so the same inputs in
// sorted order (vectors of one kind) and shuffled (mixed vectors) must
// give bitwise the same outputs, on every tier.
func TestUnaryLaneMix(t *testing.T) {
	var xs []float32
	for i := -3000; i <= 3000; i++ {
		xs = append(xs, float32(i)*0.001, float32(i)*0.01)
	}
	xs = append(xs, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0, float32(math.Copysign(0, -1)))
	rng := rand.New(rand.NewPCG(1, 2))
	perm := rng.Perm(len(xs))
	shuf := make([]float32, len(xs))
	for i, p := range perm {
		shuf[i] = xs[p]
	}
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, f := range unaries32 {
				a, b := make([]float32, len(xs)), make([]float32, len(xs))
				if err := f.fn(a, xs); err != nil {
					t.Fatal(err)
				}
				if err := f.fn(b, shuf); err != nil {
					t.Fatal(err)
				}
				for i, p := range perm {
					if math.Float32bits(b[i]) != math.Float32bits(a[p]) && !(a[p] != a[p] && b[i] != b[i]) {
						t.Errorf("%s(%g): %g in sorted input, %g shuffled", f.name, xs[p], a[p], b[i])
						break
					}
				}
			}
		})
	}
}
