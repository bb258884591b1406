package vec

import (
	"fmt"
	"math"
	"testing"
)

// pool2Ref is MaxPool2 and MaxPool2Grad written out from their
// definitions, element by element, for the tests.
func pool2Ref[T Float](x, g []T, rows, ow, kh, ldr, ldl int) (y, dx []T) {
	y, dx = make([]T, rows*ow), make([]T, rows*kh*2*ow)
	for r := range rows {
		for o := range ow {
			var tile []T
			for i := range kh {
				for j := range 2 {
					tile = append(tile, x[r*ldr+i*ldl+2*o+j])
				}
			}
			acc := tile[0]
			for _, v := range tile[1:] {
				if v > acc || math.IsNaN(float64(v)) {
					acc = v
				}
			}
			y[r*ow+o] = acc
			// PyTorch's routing: the first element equal to the maximum,
			// or the last NaN.
			at := -1
			for k, v := range tile {
				if math.IsNaN(float64(acc)) && math.IsNaN(float64(v)) {
					at = k
				} else if v == acc && at < 0 {
					at = k
				}
			}
			for k := range tile {
				d := T(0)
				if k == at {
					d = g[r*ow+o]
				}
				dx[(r*kh+k/2)*2*ow+2*o+k%2] = d
			}
		}
	}
	return y, dx
}

// TestMaxPool2 checks MaxPool2 and MaxPool2Grad on every kernel set
// against pool2Ref, bit for bit: rows of 1 to 40 tiles (the AVX-512
// kernels' groups of sixteen and every tail), one to three lines, strides
// with gaps, values with ties, signed zeros, infinities and NaN, and
// gradients with zeros and a NaN; the elements past the outputs stay
// untouched.
func TestMaxPool2(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	special := []float32{0, float32(math.Copysign(0, -1)), nan, inf, -inf, 3, 3, -2}
	for _, k := range available() {
		defer useKernels(k)()
		for _, ow := range []int{1, 2, 7, 8, 14, 15, 16, 17, 28, 31, 32, 33, 40} {
			for kh := 1; kh <= 3; kh++ {
				rows, ldl := 3, 2*ow+3
				ldr := kh*ldl + 5
				x := make([]float32, (rows-1)*ldr+(kh-1)*ldl+2*ow)
				for i := range x {
					x[i] = float32((i*7919)%9) - 4 // many ties
					if i%13 == 5 {
						x[i] = special[(i/13)%len(special)]
					}
				}
				// Ties of signed zeros in either order (PyTorch's scan
				// keeps the first), and NaN first and last in a tile.
				pin := []float32{0, float32(math.Copysign(0, -1)), float32(math.Copysign(0, -1)), 0, nan, 1, 2, nan}
				copy(x[:min(len(pin), 2*ow)], pin)
				g := make([]float32, rows*ow)
				for i := range g {
					g[i] = float32(i%7) - 3.5
				}
				g[len(g)/2] = nan
				wantY, wantDx := pool2Ref(x, g, rows, ow, kh, ldr, ldl)
				const guard = 1234.5
				y := make([]float32, rows*ow+3)
				dx := make([]float32, rows*kh*2*ow+3)
				for i := range y {
					y[i] = guard
				}
				for i := range dx {
					dx[i] = guard
				}
				name := fmt.Sprintf("%s ow=%d kh=%d", k.name, ow, kh)
				if err := MaxPool2(y[:rows*ow], x, rows, ow, kh, ldr, ldl); err != nil {
					t.Fatal(err)
				}
				if err := MaxPool2Grad(dx[:len(dx)-3], x, wantY, g, rows, ow, kh, ldr, ldl); err != nil {
					t.Fatal(err)
				}
				for i, w := range wantY {
					if math.Float32bits(y[i]) != math.Float32bits(w) {
						t.Fatalf("%s: y[%d] = %v (%#x), want %v (%#x)", name, i, y[i], math.Float32bits(y[i]), w, math.Float32bits(w))
					}
				}
				for i, w := range wantDx {
					if math.Float32bits(dx[i]) != math.Float32bits(w) {
						t.Fatalf("%s: dx[%d] = %v (%#x), want %v (%#x)", name, i, dx[i], math.Float32bits(dx[i]), w, math.Float32bits(w))
					}
				}
				if y[rows*ow] != guard || dx[len(dx)-3] != guard {
					t.Fatalf("%s: wrote past the outputs", name)
				}
			}
		}
	}
}

// TestMaxPool2Float64 checks the float64 path (Go on every set) the same
// way on one shape.
func TestMaxPool2Float64(t *testing.T) {
	rows, ow, kh, ldr, ldl := 2, 5, 2, 25, 11
	x := make([]float64, (rows-1)*ldr+(kh-1)*ldl+2*ow)
	for i := range x {
		x[i] = float64((i*31)%5) - 2
	}
	x[3] = math.NaN()
	g := []float64{1, -2, 3, -4, 5, -6, 7, -8, 9, -10}
	wantY, wantDx := pool2Ref(x, g, rows, ow, kh, ldr, ldl)
	y, dx := make([]float64, rows*ow), make([]float64, rows*kh*2*ow)
	if err := MaxPool2(y, x, rows, ow, kh, ldr, ldl); err != nil {
		t.Fatal(err)
	}
	if err := MaxPool2Grad(dx, x, wantY, g, rows, ow, kh, ldr, ldl); err != nil {
		t.Fatal(err)
	}
	for i := range wantY {
		if math.Float64bits(y[i]) != math.Float64bits(wantY[i]) {
			t.Fatalf("y[%d] = %v, want %v", i, y[i], wantY[i])
		}
	}
	for i := range wantDx {
		if math.Float64bits(dx[i]) != math.Float64bits(wantDx[i]) {
			t.Fatalf("dx[%d] = %v, want %v", i, dx[i], wantDx[i])
		}
	}
}

// TestMaxPool2Errors checks the refusals: negative sizes and strides, x
// too short, strides whose products overflow, dst too short or
// overlapping x, and an empty tile.
func TestMaxPool2Errors(t *testing.T) {
	x := make([]float32, 64)
	y, g, dx := make([]float32, 8), make([]float32, 8), make([]float32, 64)
	cases := map[string]error{
		"negative rows":   MaxPool2(y, x, -1, 2, 2, 8, 4),
		"negative stride": MaxPool2(y, x, 2, 2, 2, -8, 4),
		"x too short":     MaxPool2(y, x, 4, 4, 2, 16, 8),
		"overflow":        MaxPool2(y, x, 3, 2, 2, 1<<62, 4),
		"dst too short":   MaxPool2(y[:3], x, 2, 2, 2, 8, 4),
		"overlap":         MaxPool2(x[:4], x, 2, 2, 2, 8, 4),
		"empty tile":      MaxPool2(y, x, 2, 2, 0, 8, 4),
		"grad y short":    MaxPool2Grad(dx, x, y[:3], g, 2, 2, 2, 8, 4),
		"grad dx short":   MaxPool2Grad(dx[:15], x, y, g, 2, 2, 2, 8, 4),
		"grad overlap":    MaxPool2Grad(x[:16], x, y, g, 2, 2, 2, 8, 4),
	}
	for name, err := range cases {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
