package tensor_test

import (
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/tensor"
)

// TestGradEinsum checks Einsum's gradients against finite differences
// through each of its paths: a pair contracted by Matmul with batch
// labels, a diagonal (repeated label), a sum over a label only one
// operand has, broadcast axes behind "...", and three operands.
func TestGradEinsum(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "Einsum/batched-matmul", in: []gcIn{gstd(2, 3, 4), gstd(2, 4, 2)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Einsum("bij,bjk->bik", x[0], x[1]) }},
		{name: "Einsum/diagonal-and-sum", in: []gcIn{gstd(3, 3, 2)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Einsum("iij->i", x[0]) }},
		{name: "Einsum/ellipsis-broadcast", in: []gcIn{gstd(2, 1, 3, 2), gstd(3, 2, 4)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Einsum("...ij,...jk->...ik", x[0], x[1]) }},
		{name: "Einsum/bilinear", in: []gcIn{gstd(3), gstd(3, 4), gstd(4)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Einsum("i,ij,j->", x[0], x[1], x[2]) }},
		{name: "Einsum/outer-transposed", in: []gcIn{gstd(3), gstd(2)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Einsum("i,j->ji", x[0], x[1]) }},
	})
}

// ExampleEinsum writes a matrix product, a trace and a batched
// row-by-row dot product in Einstein notation.
func ExampleEinsum() {
	a := tensor.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	b := tensor.FromSlice([]float32{5, 6, 7, 8}, 2, 2)
	fmt.Println(tensor.Einsum("ij,jk->ik", a, b))
	fmt.Println(tensor.Einsum("ii", a))
	fmt.Println(tensor.Einsum("ij,ij->i", a, b))
	// Output:
	// tensor([[19., 22.],
	//         [43., 50.]], dtype=f32, device=cpu)
	// tensor(5., dtype=f32, device=cpu)
	// tensor([17., 53.], dtype=f32, device=cpu)
}
