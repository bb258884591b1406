package tensor_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/tessera-go/tessera/tensor"
)

// Gather picks along an axis with indices that stay on the device;
// ScatterAdd is its adjoint, adding values back at the indices.
func ExampleTensor_Gather() {
	x := tensor.FromSlice([]float32{10, 11, 12, 20, 21, 22}, 2, 3)
	idx := tensor.FromSlice([]int64{2, 0, 1, 1}, 2, 2)
	fmt.Println(tensor.ToSlice[float32](x.Gather(1, idx)))

	acc := tensor.FromSlice([]float32{0, 0, 0, 0, 0, 0}, 2, 3)
	fmt.Println(tensor.ToSlice[float32](acc.ScatterAdd(1, idx, tensor.FromSlice([]float32{1, 2, 3, 4}, 2, 2))))

	// A bad index is a typed error (found by the kernel on a GPU, and
	// reported when the result is read or checked).
	bad := x.Gather(1, tensor.FromSlice([]int64{3, 0}, 1, 2))
	fmt.Println(errors.Is(bad.Err(), tensor.ErrAxis), bad.Err())
	// Output:
	// [12 10 21 21] <nil>
	// [2 0 1 0 7 0] <nil>
	// true tensor: Gather: index 3 out of range for axis 1 of extent 3
}

// Sort is stable with NaN last (NumPy's order); TopK returns the largest
// values and where they came from.
func ExampleTensor_Sort() {
	x := tensor.FromSlice([]float64{3, math.NaN(), 1, 3, -0.5})
	v, i := x.Sort(0, false)
	fmt.Println(tensor.ToSlice[float64](v))
	fmt.Println(tensor.ToSlice[int64](i))
	tv, ti := x.Narrow(0, 2, 3).TopK(2, 0, true)
	fmt.Println(tensor.ToSlice[float64](tv))
	fmt.Println(tensor.ToSlice[int64](ti))
	// Output:
	// [-0.5 1 3 3 NaN] <nil>
	// [4 2 0 3 1] <nil>
	// [3 1] <nil>
	// [1 0] <nil>
}

// CumSum of integers accumulates in int64, as NumPy's does.
func ExampleTensor_CumSum() {
	x := tensor.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	y := x.CumSum(1)
	vals, err := tensor.ToSlice[int64](y)
	fmt.Println(y.DType(), vals, err)
	fmt.Println(tensor.ToSlice[float32](tensor.FromSlice([]float32{1, 2, 3, 4}).CumProd(0)))
	// Output:
	// i64 [1 3 6 4 9 15] <nil>
	// [1 2 6 24] <nil>
}
