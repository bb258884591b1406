package tensor_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// padSource is NumPy's np.pad index rule for one axis: the input index an
// output index i of a padding by before maps to on an axis of n elements,
// or -1 for PadConstant's value.
func padSource(mode tensor.PadMode, i, before, n int) int {
	j := i - before
	if j >= 0 && j < n {
		return j
	}
	switch mode {
	case tensor.PadReflect: // mirror about the edge elements, which repeat not
		if j < 0 {
			return -j
		}
		return 2*(n-1) - j
	case tensor.PadReplicate:
		return min(max(j, 0), n-1)
	}
	return -1
}

// refPad pads x (row-major, shape) elementwise by padSource.
func refPad(x []float64, shape []int, widths [][2]int, mode tensor.PadMode, value float64) ([]float64, []int) {
	out := slices.Clone(shape)
	for ax, w := range widths {
		out[ax] += w[0] + w[1]
	}
	n := 1
	for _, d := range out {
		n *= d
	}
	y := make([]float64, n)
	idx := make([]int, len(out))
	for k := range y {
		r, src, inside := k, 0, true
		for ax := len(out) - 1; ax >= 0; ax-- {
			idx[ax] = r % out[ax]
			r /= out[ax]
		}
		for ax := range out {
			s := padSource(mode, idx[ax], widths[ax][0], shape[ax])
			if s < 0 {
				inside = false
				break
			}
			src = src*shape[ax] + s
		}
		if inside {
			y[k] = x[src]
		} else {
			y[k] = value
		}
	}
	return y, out
}

// TestPadModes checks Pad against NumPy's np.pad rule on every device:
// each mode, one to three padded axes of ranks 2 to 4 (widths up to n-1
// for reflect, zero on some sides), float and integer dtypes, a transposed
// (strided) input and an empty axis.
func TestPadModes(t *testing.T) {
	cases := []struct {
		shape  []int
		widths [][2]int
		trans  bool
	}{
		{[]int{3, 5}, [][2]int{{1, 2}, {4, 0}}, false},
		{[]int{2, 3, 4, 5}, [][2]int{{0, 0}, {0, 0}, {2, 2}, {2, 2}}, false},
		{[]int{2, 3, 4, 5}, [][2]int{{1, 0}, {0, 2}, {3, 1}, {0, 0}}, false},
		{[]int{4, 6}, [][2]int{{2, 3}, {1, 1}}, true},
		{[]int{3, 1, 4}, [][2]int{{0, 0}, {0, 0}, {3, 3}}, false},
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.I32} {
			for _, mode := range []tensor.PadMode{tensor.PadConstant, tensor.PadReflect, tensor.PadReplicate} {
				for ci, c := range cases {
					name := fmt.Sprintf("%s/%v/mode%d/%d", dev.Name(), dt, mode, ci)
					n := 1
					for _, d := range c.shape {
						n *= d
					}
					xs := make([]float64, n)
					for i := range xs {
						xs[i] = float64(i*37%101 - 50)
					}
					x := tensor.FromSlice(xs, c.shape...).Cast(dt).To(dev)
					shape, vals := c.shape, xs
					if c.trans { // pad the transposed view: strided, not contiguous
						x = x.T()
						shape = []int{c.shape[1], c.shape[0]}
						vals = make([]float64, n)
						for i := range c.shape[0] {
							for j := range c.shape[1] {
								vals[j*c.shape[0]+i] = xs[i*c.shape[1]+j]
							}
						}
					}
					want, wantShape := refPad(vals, shape, c.widths, mode, 7)
					y := x.Pad(c.widths, mode, 7)
					if y.Err() != nil {
						t.Fatalf("%s: %v", name, y.Err())
					}
					if !slices.Equal(y.Shape(), wantShape) || y.DType() != dt {
						t.Fatalf("%s: %v %v, want %v %v", name, y.DType(), y.Shape(), dt, wantShape)
					}
					got := readF64(t, y)
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("%s: element %d = %v, want %v", name, i, got[i], want[i])
						}
					}
				}
			}
		}
		// An empty axis pads to the constant.
		e := tensor.Zeros(dtype.F32, 0, 3).To(dev).Pad([][2]int{{1, 1}, {0, 0}}, tensor.PadConstant, 2)
		if got := readF64(t, e); !slices.Equal(e.Shape(), []int{2, 3}) || !slices.Equal(got, []float64{2, 2, 2, 2, 2, 2}) {
			t.Errorf("%s: empty axis padded: %v %v", dev.Name(), e.Shape(), got)
		}
	}
}
