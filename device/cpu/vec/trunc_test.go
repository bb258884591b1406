package vec

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/tessera-go/tessera/errs"
)

// truncRef is TruncF32ToI32's rule in float64: NaN to 0, else truncated
// toward zero and clamped to int32's range.
func truncRef(v float32) int32 {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(math.Trunc(f))
}

// TestTruncF32ToI32 checks every kernel set against truncRef on the edges
// of int32's range (2^31 and the float32 just below it, -2^31 and the one
// just below that), NaN, infinities, signed zeros, fractions either side
// of zero, subnormals and random values of every magnitude, on lengths
// that cover whole vectors, unrolled loops and the Go tail.
func TestTruncF32ToI32(t *testing.T) {
	special := []float32{
		float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		1 << 31, math.Nextafter32(1<<31, 0), -(1 << 31), math.Nextafter32(-(1 << 31), float32(math.Inf(-1))),
		0.5, -0.5, 1.9999, -1.9999, 1e10, -1e10, 1e-40, -1e-40, math.MaxFloat32, -math.MaxFloat32,
	}
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, n := range []int{0, 1, 7, 8, 15, 16, 17, 31, 33, 64, 65, 100, 1000} {
				rng := rand.New(rand.NewPCG(uint64(n), 9))
				src := make([]float32, n)
				for i := range src {
					if rng.IntN(3) == 0 {
						src[i] = special[rng.IntN(len(special))]
					} else {
						src[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(22)-6)))
					}
				}
				dst := make([]int32, n)
				if err := TruncF32ToI32(dst, src); err != nil {
					t.Fatal(err)
				}
				for i, v := range src {
					if w := truncRef(v); dst[i] != w {
						t.Fatalf("n=%d: TruncF32ToI32(%g) = %d, want %d", n, v, dst[i], w)
					}
				}
			}
		})
	}
	if err := TruncF32ToI32(make([]int32, 3), make([]float32, 4)); !errors.Is(err, errs.ErrShape) {
		t.Errorf("lengths: %v, want ErrShape", err)
	}
}

// TestWidenU8F32 checks every kernel set on every byte value at every
// position of a vector, on lengths that cover whole vectors, unrolled
// loops and the Go tail, with a guard element past the end that must stay
// as it was; and the errors for unequal lengths and overlap.
func TestWidenU8F32(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, n := range []int{0, 1, 7, 8, 15, 16, 17, 31, 33, 64, 65, 100, 256, 1000} {
				src := make([]uint8, n)
				for i := range src {
					src[i] = uint8(i*37 + n)
				}
				dst := make([]float32, n+1)
				dst[n] = -1
				if err := WidenU8F32(dst[:n], src); err != nil {
					t.Fatal(err)
				}
				for i, v := range src {
					if dst[i] != float32(int(v)) {
						t.Fatalf("n=%d: element %d = %g, want %d", n, i, dst[i], v)
					}
				}
				if dst[n] != -1 {
					t.Fatalf("n=%d: wrote past the end: %g", n, dst[n])
				}
			}
		})
	}
	if err := WidenU8F32(make([]float32, 3), make([]uint8, 4)); !errors.Is(err, errs.ErrShape) {
		t.Errorf("lengths: %v, want ErrShape", err)
	}
	buf := make([]float32, 8)
	bytes := unsafe.Slice((*uint8)(unsafe.Pointer(&buf[2])), 4) // inside buf[:4]
	if err := WidenU8F32(buf[:4], bytes); !errors.Is(err, errs.ErrValue) {
		t.Errorf("overlap: %v, want ErrValue", err)
	}
}
