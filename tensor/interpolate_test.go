package tensor_test

import (
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/tensor"
)

// TestGradInterpolate checks Interpolate's gradients against finite
// differences: bilinear up and down with and without align_corners, a
// scale factor, and nearest (each input gathers the gradients of the
// outputs that read it).
func TestGradInterpolate(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "Interpolate/bilinear-up", in: []gcIn{gstd(1, 2, 3, 3)},
			f: func(x gcTs) *tensor.Tensor {
				return tensor.Interpolate(x[0], tensor.InterpolateOptions{Size: [2]int{5, 4}, Mode: "bilinear"})
			}},
		{name: "Interpolate/bilinear-align-down", in: []gcIn{gstd(1, 1, 5, 4)},
			f: func(x gcTs) *tensor.Tensor {
				return tensor.Interpolate(x[0], tensor.InterpolateOptions{Size: [2]int{3, 2}, Mode: "bilinear", AlignCorners: true})
			}},
		{name: "Interpolate/linear-scale", in: []gcIn{gstd(2, 1, 4)},
			f: func(x gcTs) *tensor.Tensor {
				return tensor.Interpolate(x[0], tensor.InterpolateOptions{Scale: [2]float64{1.5}, Mode: "linear"})
			}},
		{name: "Interpolate/nearest", in: []gcIn{gstd(1, 2, 2, 3)},
			f: func(x gcTs) *tensor.Tensor {
				return tensor.Interpolate(x[0], tensor.InterpolateOptions{Scale: [2]float64{2, 1.5}, Mode: "nearest"})
			}},
	})
}

// ExampleInterpolate doubles a 2x2 image, by repeating pixels and by
// bilinear interpolation with the corners aligned.
func ExampleInterpolate() {
	x := tensor.FromSlice([]float32{0, 1, 2, 3}, 1, 1, 2, 2)
	fmt.Println(tensor.Interpolate(x, tensor.InterpolateOptions{Scale: [2]float64{2, 2}, Mode: "nearest"}))
	fmt.Println(tensor.Interpolate(x, tensor.InterpolateOptions{Size: [2]int{3, 3}, Mode: "bilinear", AlignCorners: true}))
	// Output:
	// tensor([[[[0., 0., 1., 1.],
	//           [0., 0., 1., 1.],
	//           [2., 2., 3., 3.],
	//           [2., 2., 3., 3.]]]], dtype=f32, device=cpu)
	// tensor([[[[0.0000, 0.5000, 1.0000],
	//           [1.0000, 1.5000, 2.0000],
	//           [2.0000, 2.5000, 3.0000]]]], dtype=f32, device=cpu)
}
