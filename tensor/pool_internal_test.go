package tensor

import (
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
)

// TestTilePoolerMatchesFused checks that MaxPool2d over tiles through the
// backend's device.TilePooler gives the fused passes' values and gradient
// bit for bit (any NaN matching any NaN): ties within tiles (values from a
// small set), signed zeros, NaN, padding, kernels of 2x2 (the vector
// kernels), 3x2 and 1x3, with an odd width, a gradient of its own and a
// broadcast one (a sum's), in F32 and F64.
func TestTilePoolerMatchesFused(t *testing.T) {
	cases := []struct {
		shape   [4]int
		k, pad  [2]int
		special bool
		strided bool // x every other column of a wider tensor
	}{
		{[4]int{2, 3, 8, 8}, [2]int{2, 2}, [2]int{}, false, false},
		{[4]int{2, 2, 6, 38}, [2]int{2, 2}, [2]int{}, true, false}, // 19 tiles a row: a group of 16 and a tail
		{[4]int{1, 2, 9, 6}, [2]int{3, 2}, [2]int{}, true, false},
		{[4]int{2, 1, 5, 7}, [2]int{2, 2}, [2]int{1, 1}, true, false},
		{[4]int{3, 2, 4, 9}, [2]int{1, 3}, [2]int{0, 1}, false, false},
		{[4]int{2, 2, 4, 2}, [2]int{2, 2}, [2]int{}, false, true}, // one tile a row, its pair not adjacent
		{[4]int{1, 3, 6, 12}, [2]int{2, 2}, [2]int{}, true, true}, // pairs two apart
	}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
		for ci, c := range cases {
			full := c.shape
			if c.strided {
				full[3] *= 2
			}
			numel := full[0] * full[1] * full[2] * full[3]
			vals := make([]float64, numel)
			for i := range vals {
				vals[i] = float64((i*7919)%5) - 2 // many ties
				if c.special {
					switch i % 23 {
					case 3:
						vals[i] = math.Copysign(0, -1)
					case 4:
						vals[i] = 0
					case 11:
						vals[i] = math.NaN()
					}
				}
			}
			opt := Pool2dOptions{Kernel: c.k, Padding: c.pad}
			run := func(direct, ownGrad bool) (y, dx []float64) {
				useTilePooler = direct
				defer func() { useTilePooler = true }()
				x := FromSlice(vals, full[:]...).Cast(dt).RequiresGrad()
				in := x
				if c.strided {
					in = x.Slice(3, 0, full[3], 2)
				}
				out := MaxPool2d(in, opt)
				loss := out.Sum()
				if ownGrad {
					w := Arange(dt, 0, float64(out.Numel()), 1).Reshape(out.Shape()...).MulScalar(0.37).SubScalar(3)
					loss = out.Mul(w).Sum()
				}
				if err := loss.Backward(); err != nil {
					t.Fatal(err)
				}
				yv, err := out.Float64s()
				if err != nil {
					t.Fatal(err)
				}
				gv, err := x.Grad().Float64s()
				if err != nil {
					t.Fatal(err)
				}
				return yv, gv
			}
			for _, own := range []bool{false, true} {
				name := fmt.Sprintf("%v case %d own gradient %v", dt, ci, own)
				y1, g1 := run(true, own)
				y0, g0 := run(false, own)
				sameFloats(t, name+" forward", y1, y0)
				sameFloats(t, name+" gradient", g1, g0)
			}
		}
	}
}

// sameFloats fails t unless got and want hold the same values bit for
// bit, any NaN matching any NaN.
func sameFloats(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g != g && w != w {
			continue
		}
		if math.Float64bits(g) != math.Float64bits(w) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, g, w)
		}
	}
}
