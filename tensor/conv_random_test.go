package tensor_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestConv2dRandom checks Conv2d and both of its gradients on the CPU
// against float64 sums written out, over 300 random shapes, groups,
// strides, paddings and dilations in float32 and float64: the CPU
// chooses among several paths by these (the shifted product and the
// in-place weight gradient for strides 1, gathered panels for few
// channels, packed panels otherwise, depthwise stencils), and a table
// names only some of their boundaries. The tolerance is relative to the
// sum of the terms' magnitudes, since a gradient's sum over many pixels
// may cancel far below them (2e-6 in float32, 33 units of its rounding;
// 1e-14 in float64).
func TestConv2dRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	for it := 0; it < 300; it++ {
		g := []int{1, 1, 1, 2, 3}[rng.IntN(5)]
		cg := 1 + rng.IntN(10)
		og := 1 + rng.IntN(20)
		c, oc := cg*g, og*g
		n := 1 + rng.IntN(3)
		kh, kw := 1+rng.IntN(5), 1+rng.IntN(5)
		h, w := kh+rng.IntN(12), kw+rng.IntN(40)
		o := tensor.Conv2dOptions{Groups: g}
		if rng.IntN(4) == 0 {
			o.Stride = [2]int{1 + rng.IntN(2), 1 + rng.IntN(2)}
		}
		if rng.IntN(3) > 0 {
			o.Padding = [2]int{rng.IntN(kh), rng.IntN(kw)}
			if rng.IntN(6) == 0 { // as wide as the kernel or wider: the output is wider than the input
				o.Padding[1] = kw + rng.IntN(2)
			}
		}
		if rng.IntN(4) == 0 {
			o.Dilation = [2]int{1 + rng.IntN(2), 1 + rng.IntN(2)}
			if (kh-1)*o.Dilation[0]+1 > h+2*o.Padding[0] || (kw-1)*o.Dilation[1]+1 > w+2*o.Padding[1] {
				o.Dilation = [2]int{1, 1}
			}
		}
		xs, ks := seq(n*c*h*w, float64(it)), seq(oc*cg*kh*kw, float64(it)+0.25)
		want, oh, ow := refConv2d(xs, n, c, h, w, ks, oc, kh, kw, nil, o)
		gs := seq(n*oc*oh*ow, float64(it)+0.75)
		wantX, wantW := refConv2dGrads(xs, ks, gs, n, c, h, w, oc, kh, kw, oh, ow, o)
		// The same sums of the terms' magnitudes, for the tolerances.
		absY, _, _ := refConv2d(abs(xs), n, c, h, w, abs(ks), oc, kh, kw, nil, o)
		absX, absW := refConv2dGrads(abs(xs), abs(ks), abs(gs), n, c, h, w, oc, kh, kw, oh, ow, o)
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			tol := map[dtype.DType]float64{dtype.F32: 2e-6, dtype.F64: 1e-14}[dt]
			name := fmt.Sprintf("it %d %v n=%d c=%d oc=%d g=%d %dx%d k=%dx%d %+v", it, dt, n, c, oc, g, h, w, kh, kw, o)
			x := tensor.FromSlice(xs, n, c, h, w).Cast(dt).RequiresGrad()
			k := tensor.FromSlice(ks, oc, cg, kh, kw).Cast(dt).RequiresGrad()
			y := tensor.Conv2d(x, k, nil, o)
			got := readF64(t, y)
			for i := range want {
				if math.Abs(got[i]-want[i]) > tol*(1e-3+absY[i]) {
					t.Fatalf("%s: y[%d] = %v, want %v", name, i, got[i], want[i])
				}
			}
			if err := y.BackwardWith(tensor.FromSlice(gs, n, oc, oh, ow).Cast(dt)); err != nil {
				t.Fatal(err)
			}
			for nm, pair := range map[string][3][]float64{"dX": {readF64(t, x.Grad()), wantX, absX}, "dW": {readF64(t, k.Grad()), wantW, absW}} {
				for i := range pair[1] {
					if math.Abs(pair[0][i]-pair[1][i]) > tol*(1e-3+pair[2][i]) {
						t.Fatalf("%s %s[%d] = %v, want %v", name, nm, i, pair[0][i], pair[1][i])
					}
				}
			}
		}
	}
}

// abs returns the magnitudes of xs.
func abs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = math.Abs(v)
	}
	return out
}
