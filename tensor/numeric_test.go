package tensor_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/tensor"
)

// TestGradNumeric checks the gradients of Lerp (both sides of its
// formula), Diff, Cross, Kron, Meshgrid, Cdist and NanMean against finite
// differences.
func TestGradNumeric(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "Lerp/both-sides", in: []gcIn{gstd(2, 3), gstd(2, 3), gin(-1, 2, 3)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Lerp(x[0], x[1], x[2]) }},
		{name: "Diff/second-order", in: []gcIn{gstd(3, 5)},
			f: func(x gcTs) *tensor.Tensor { return x[0].Diff(2, 1) }},
		{name: "Cross/broadcast", in: []gcIn{gstd(2, 3), gstd(3)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Cross(x[0], x[1], -1) }},
		{name: "Kron", in: []gcIn{gstd(2, 2), gstd(3)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Kron(x[0], x[1]) }},
		{name: "Meshgrid/xy", in: []gcIn{gstd(3), gstd(2)},
			f: func(x gcTs) *tensor.Tensor {
				g := tensor.Meshgrid("xy", x[0], x[1])
				return g[0].Mul(g[1])
			}},
		{name: "Cdist/p2", in: []gcIn{gstd(3, 2), gstd(4, 2)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Cdist(x[0], x[1], 2) }},
		{name: "Cdist/p3", in: []gcIn{gstd(3, 2), gstd(2, 2)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Cdist(x[0], x[1], 3) }},
		{name: "NanMean", in: []gcIn{gstd(3, 4)},
			f: func(x gcTs) *tensor.Tensor { return x[0].NanMean(0) }},
	})
}

// TestCdistSelfGradient checks that a point's zero distance to itself
// gives a zero gradient, not NaN (the root's derivative is infinite at 0),
// as torch.cdist's, on every device.
func TestCdistSelfGradient(t *testing.T) {
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice([]float32{0, 0, 3, 4}, 2, 2).To(dev).RequiresGrad()
		for _, p := range []float64{2, 3} {
			x.ZeroGrad()
			if err := tensor.Cdist(x, x, p).Sum().Backward(); err != nil {
				t.Fatal(err)
			}
			g, err := tensor.ToSlice[float32](x.Grad())
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range g {
				if math.IsNaN(float64(v)) {
					t.Fatalf("%s, p %v: gradient %v has NaN at %d", dev.Name(), p, g, i)
				}
			}
		}
	}
}

// ExampleTensor_Unique counts the distinct values of a tensor.
func ExampleTensor_Unique() {
	x := tensor.FromSlice([]int32{3, 1, 3, 2, 1, 3}, 6)
	values, inverse, counts := x.Unique()
	fmt.Println(values)
	fmt.Println(inverse)
	fmt.Println(counts)
	// Output:
	// tensor([1, 2, 3], dtype=i32, device=cpu)
	// tensor([2, 0, 2, 1, 0, 2], dtype=i64, device=cpu)
	// tensor([2, 1, 3], dtype=i64, device=cpu)
}

// ExampleSearchsorted bins values by sorted edges.
func ExampleSearchsorted() {
	edges := tensor.FromSlice([]float32{0, 10, 20}, 3)
	fmt.Println(tensor.Searchsorted(edges, tensor.FromSlice([]float32{-5, 0, 15, 25}, 4), true))
	// Output:
	// tensor([0, 1, 2, 3], dtype=i64, device=cpu)
}

// TestGradMoreNumeric checks the gradients of Logit, Xlogy, Logaddexp and
// the view rearrangements (Rot90, Movedim, Unflatten, Unbind, Hstack,
// Vstack) against finite differences.
func TestGradMoreNumeric(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "Logit", in: []gcIn{gin(0.1, 0.9, 2, 3)},
			f: func(x gcTs) *tensor.Tensor { return x[0].Logit(0) }},
		{name: "Xlogy", in: []gcIn{gstd(2, 3), gin(0.2, 3, 3)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Xlogy(x[0], x[1]) }},
		{name: "Logaddexp", in: []gcIn{gstd(2, 3), gstd(3)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Logaddexp(x[0], x[1]) }},
		{name: "Rearrangements", in: []gcIn{gstd(2, 3, 4), gstd(3)},
			f: func(x gcTs) *tensor.Tensor {
				r := x[0].Rot90(1, 1, 2).Movedim([]int{0}, []int{2})       // [4, 3, 2]
				parts := r.Unflatten(0, 2, 2).Unbind(0)                    // two [2, 3, 2]
				h := tensor.Hstack([]*tensor.Tensor{parts[0], parts[1]})   // [2, 6, 2]
				row := tensor.Hstack([]*tensor.Tensor{x[1], x[1].Flip(0)}) // [6]
				return tensor.Vstack([]*tensor.Tensor{h.Sum(2), row})      // [3, 6]
			}},
	})
}

// TestGradNormalize checks the gradients of Normalize and
// CosineSimilarity against finite differences (norms well above eps).
func TestGradNormalize(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "Normalize/p2", in: []gcIn{gin(0.5, 2, 3, 4)},
			f: func(x gcTs) *tensor.Tensor { return x[0].Normalize(2, 1, 1e-12) }},
		{name: "CosineSimilarity/broadcast", in: []gcIn{gstd(3, 4), gstd(4)},
			f: func(x gcTs) *tensor.Tensor { return tensor.CosineSimilarity(x[0], x[1], -1, 1e-8) }},
	})
}
