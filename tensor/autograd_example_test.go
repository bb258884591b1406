package tensor_test

import (
	"fmt"

	"github.com/tessera-go/tessera/tensor"
)

// Gradients of a small least-squares loss: y = sum((x w - t)^2).
func ExampleTensor_Backward() {
	x := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2)
	w := tensor.FromSlice([]float64{0.5, -1}, 2).RequiresGrad()
	target := tensor.FromSlice([]float64{1, 0}, 2)

	loss := x.Matmul(w).Sub(target).Square().Sum()
	if err := loss.Backward(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(loss)
	fmt.Println(w.Grad())

	w.ZeroGrad()
	fmt.Println(w.Grad() == nil)
	// Output:
	// tensor(12.5000, dtype=f64, device=cpu)
	// tensor([-20., -30.], dtype=f64, device=cpu)
	// true
}
