package tensor_test

import (
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/tensor"
)

// TestGradQuantile checks the gradients of Quantile and Median against
// finite differences: the gradient reaches the one or two sorted values
// interpolated, with weights 1-w and w, over one axis, several axes and
// all of them.
func TestGradQuantile(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "Quantile/axis", in: []gcIn{gstd(3, 5)},
			f: func(x gcTs) *tensor.Tensor { return x[0].Quantile(0.3, 1) }},
		{name: "Quantile/axes-keepdims", in: []gcIn{gstd(2, 3, 4)},
			f: func(x gcTs) *tensor.Tensor { return x[0].QuantileKeepDims(0.85, 0, 2) }},
		{name: "Median/all-even", in: []gcIn{gstd(2, 3)},
			f: func(x gcTs) *tensor.Tensor { return x[0].Median() }},
	})
}

// ExampleTensor_Quantile takes NumPy's median and a quartile of each row.
func ExampleTensor_Quantile() {
	x := tensor.FromSlice([]float32{3, 1, 4, 1, 5, 9, 2, 6}, 2, 4)
	fmt.Println(x.Median(1))
	fmt.Println(x.Quantile(0.25, 1))
	// Output:
	// tensor([2.0000, 5.5000], dtype=f32, device=cpu)
	// tensor([1.0000, 4.2500], dtype=f32, device=cpu)
}
