package tensor_test

import (
	"errors"
	"fmt"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// The quick start: build on the CPU, move to a device, chain operations,
// check the error once, read back.
func Example() {
	dev := device.CPU() // or device.Default() for the best available device
	x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3).To(dev)
	w := tensor.FromSlice([]float32{1, 0, -1, 0, 1, 0, 0, 0, 1, 1, 1, 1}, 3, 4).To(dev)
	b := tensor.Ones(dtype.F32, 4).To(dev)

	y := x.Matmul(w).Add(b).Relu()
	if err := y.Err(); err != nil {
		fmt.Println("error:", err)
		return
	}
	vals, _ := tensor.ToSlice[float32](y)
	fmt.Println(vals)
	fmt.Println(y)
	// Output:
	// [7 4 3 4 16 7 3 7]
	// tensor([[ 7.,  4.,  3.,  4.],
	//         [16.,  7.,  3.,  7.]], dtype=f32, device=cpu)
}

// Views share storage: transposing, narrowing and broadcasting copy nothing.
func Example_views() {
	x := tensor.Arange(dtype.I64, 0, 6, 1).Reshape(2, 3)
	t := x.T()                    // [3, 2], strides [1, 3]
	col := x.Narrow(1, 1, 1)      // the middle column, [2, 1]
	row := x.Slice(1, 0, 3, 2)    // columns 0 and 2
	rev := x.Slice(0, -1, -3, -1) // rows reversed (a negative stride)
	fmt.Println(t.Shape(), t.Strides(), t.IsContiguous())
	fmt.Println(col)
	fmt.Println(row)
	fmt.Println(rev)
	fmt.Printf("%#v\n", t)
	// Output:
	// [3 2] [1 3] false
	// tensor([[1],
	//         [4]], dtype=i64, device=cpu)
	// tensor([[0, 2],
	//         [3, 5]], dtype=i64, device=cpu)
	// tensor([[3, 4, 5],
	//         [0, 1, 2]], dtype=i64, device=cpu)
	// tensor.Tensor{shape: [3 2], strides: [1 3], offset: 0, dtype: i64, device: cpu}
}

// Binary operations broadcast by NumPy's rule: axes align from the right and
// extent 1 stretches.
func Example_broadcasting() {
	col := tensor.FromSlice([]float64{1, 2, 3}, 3, 1)
	row := tensor.FromSlice([]float64{10, 20}, 2)
	fmt.Println(col.Add(row))
	fmt.Println(col.Mul(row).Sum(0))
	_, err := tensor.ToSlice[float64](col.Add(tensor.Ones(dtype.F64, 4)).Add(row))
	fmt.Println(errors.Is(err, tensor.ErrShape), err)
	// Output:
	// tensor([[11., 21.],
	//         [12., 22.],
	//         [13., 23.]], dtype=f64, device=cpu)
	// tensor([ 60., 120.], dtype=f64, device=cpu)
	// true tensor: Add: shapes [3 4] and [2] are not broadcastable
}

// Devices are picked by name, or device.Default picks the best available
// one (TESSERA_DEVICE overrides it). Operands of one operation must share a
// device; To moves them.
func Example_deviceSelection() {
	cpu, err := device.Open("cpu")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cpu.Name(), cpu.Info().Type)
	x := tensor.Linspace(dtype.F32, 0, 1, 5).To(cpu)
	fmt.Println(x.Device().Name(), x)
	if _, err := device.Open("tpu"); errors.Is(err, tensor.ErrDevice) {
		fmt.Println("no tpu")
	}
	// Output:
	// cpu cpu
	// cpu tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000], dtype=f32, device=cpu)
	// no tpu
}

// Softmax and its relatives are computed stably, even for large inputs.
func ExampleTensor_Softmax() {
	x := tensor.FromSlice([]float32{1000, 1001, 1002})
	fmt.Printf("%.4v\n", x.Softmax(0))
	fmt.Printf("%.4v\n", x.LogSumExp())
	// Output:
	// tensor([0.0900, 0.2447, 0.6652], dtype=f32, device=cpu)
	// tensor(1002.4076, dtype=f32, device=cpu)
}

// Matmul follows NumPy: 1-D operands are vectors and batch axes broadcast.
func ExampleTensor_Matmul() {
	a := tensor.Arange(dtype.F32, 0, 12, 1).Reshape(2, 2, 3) // two 2x3 matrices
	v := tensor.FromSlice([]float32{1, 0, -1})
	fmt.Println(a.Matmul(v)) // [2, 2]
	fmt.Println(a.Matmul(a.T()).Shape())
	// Output:
	// tensor([[-2., -2.],
	//         [-2., -2.]], dtype=f32, device=cpu)
	// [2 2 2]
}

// Pooling takes PyTorch's options: CeilMode keeps a last, partial window,
// ExcludePad averages only the input under a window, and
// AdaptiveAvgPool2d picks the windows that give an output size.
func ExampleAvgPool2d() {
	x := tensor.Arange(dtype.F32, 1, 6, 1).Reshape(1, 1, 1, 5) // [1 2 3 4 5]
	fmt.Println(tensor.AvgPool2d(x, tensor.Pool2dOptions{Kernel: [2]int{1, 2}}))
	fmt.Println(tensor.AvgPool2d(x, tensor.Pool2dOptions{Kernel: [2]int{1, 2}, CeilMode: true}))
	fmt.Println(tensor.AvgPool2d(x, tensor.Pool2dOptions{Kernel: [2]int{1, 3}, Stride: [2]int{1, 2}, Padding: [2]int{0, 1}, ExcludePad: true}))
	fmt.Println(tensor.AdaptiveAvgPool2d(x, [2]int{1, 3}))
	// Output:
	// tensor([[[[1.5000, 3.5000]]]], dtype=f32, device=cpu)
	// tensor([[[[1.5000, 3.5000, 5.0000]]]], dtype=f32, device=cpu)
	// tensor([[[[1.5000, 3.0000, 4.5000]]]], dtype=f32, device=cpu)
	// tensor([[[[1.5000, 3.0000, 4.5000]]]], dtype=f32, device=cpu)
}
