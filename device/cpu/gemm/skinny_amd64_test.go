//go:build amd64 && !purego

package gemm

import (
	"math/rand/v2"
	"testing"
)

// TestAxpy8x4ZMatchesAxpy4x4Z checks that the eight-row axpy kernels, and
// those that fetch ahead, give the four-row ones' results bit for bit
// (each output value takes the rows of x in the same order, with the same
// roundings), across the masked tail, with strided coefficients, and on
// rows shorter and longer than the fetch distance.
func TestAxpy8x4ZMatchesAxpy4x4Z(t *testing.T) {
	if !hasAVX512() {
		t.Skip("no AVX-512")
	}
	testAxpy8x4Z(t, saxpy8x4Z, saxpy4x4Z)
	testAxpy8x4Z(t, daxpy8x4Z, daxpy4x4Z)
	testAxpy8x4Z(t, saxpy8x4ZFetch, saxpy4x4Z)
	testAxpy8x4Z(t, daxpy8x4ZFetch, daxpy4x4Z)
}

func testAxpy8x4Z[T float](t *testing.T, eight, four axpyGrouped[T]) {
	rng := rand.New(rand.NewPCG(26, 27))
	var ns []int
	for n := 1; n <= 40; n++ {
		ns = append(ns, n)
	}
	// About the fetch distance (axpyFetchAhead bytes: 128 float32, 64
	// float64): vectors up to it take no fetching steps, beyond it some.
	ns = append(ns, 63, 64, 65, 72, 127, 128, 129, 136, 143, 144, 145, 200, 257)
	for _, blocks := range []int{1, 2, 3} {
		for _, n := range ns {
			ldx, ldy, scs, srs := n+3, n+1, 3, 1
			x := uniform[T](rng, 8*blocks*ldx, 1)
			s := uniform[T](rng, 8*blocks*scs+4, 2)
			y8 := uniform[T](rng, 4*ldy, 1)
			y4 := append([]T(nil), y8...)
			alpha := T(-0.375)
			eight(n, blocks, &s[0], scs, srs, alpha, &x[0], ldx, &y8[0], ldy)
			four(n, 2*blocks, &s[0], scs, srs, alpha, &x[0], ldx, &y4[0], ldy)
			for i := range y8 {
				if y8[i] != y4[i] {
					t.Fatalf("%T blocks=%d n=%d: y[%d] = %v, axpy4x4Z gives %v", y8[0], blocks, n, i, y8[i], y4[i])
				}
			}
		}
	}
}
