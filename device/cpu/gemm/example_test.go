package gemm_test

import (
	"fmt"

	"github.com/tessera-go/tessera/device/cpu/gemm"
)

// A 2x3 by 3x2 product into a fresh C (beta = 0).
func ExampleF32() {
	a := []float32{
		1, 2, 3,
		4, 5, 6,
	}
	b := []float32{
		7, 8,
		9, 10,
		11, 12,
	}
	c := make([]float32, 2*2)
	if err := gemm.F32(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Output: [58 64 139 154]
}

// A transposed, narrowed operand is passed in place: here B is the first
// two columns of a 2x4 matrix, used transposed, and the product is added to
// C (beta = 1).
func ExampleF64() {
	a := []float64{
		1, 2,
		3, 4,
	}
	store := []float64{
		1, 0, 99, 99,
		0, 1, 99, 99,
	}
	c := []float64{10, 10, 10, 10}
	// C = 2 * A * B^T + C, with B the 2x2 identity stored in a 2x4 array
	// (ldb = 4).
	if err := gemm.F64(false, true, 2, 2, 2, 2, a, 2, store, 4, 1, c, 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Output: [12 14 16 18]
}

// Bad arguments are errors, never panics.
func ExampleF32_error() {
	a := make([]float32, 5) // too short for a 2x3 matrix
	b := make([]float32, 6)
	c := make([]float32, 4)
	err := gemm.F32(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2)
	fmt.Println(err)
	// Output: gemm: F32: len(a)=5 is too short for a stored 2x3 A with lda=3 (needs 6)
}
