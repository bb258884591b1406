package gemm_test

import (
	"fmt"

	"github.com/tessera-go/tessera/device/cpu/gemm"
	"github.com/tessera-go/tessera/dtype"
)

// bfloat16 operands, a float32 result rounded to bfloat16 once at the end:
// 1.01 is not a bfloat16 (it rounds to 1.0078125), and the float32 sum of
// 300 products keeps digits that a bfloat16 accumulator would lose.
func ExampleBF16() {
	const k = 300
	a := make([]dtype.BFloat16, k) // 1 x k
	b := make([]dtype.BFloat16, k) // k x 1
	for i := range k {
		a[i] = dtype.BF16FromFloat32(1.01)
		b[i] = dtype.BF16FromFloat32(1)
	}
	c := make([]float32, 1)
	if err := gemm.BF16(false, false, 1, 1, k, 1, a, k, b, 1, 0, c, 1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a[0], c[0], dtype.BF16FromFloat32(c[0]))
	// Output: 1.0078125 302.34375 302
}

// IEEE half operands, here B used transposed (stored 2x3, one row per
// column of op(B)).
func ExampleF16() {
	h := func(v ...float32) []dtype.Float16 {
		s := make([]dtype.Float16, len(v))
		for i, x := range v {
			s[i] = dtype.F16FromFloat32(x)
		}
		return s
	}
	a := h(1, 2, 3, 4, 5, 6)  // 2x3
	bt := h(1, 0, 1, 0, 1, 0) // op(B) = bt^T, 3x2
	c := make([]float32, 4)
	if err := gemm.F16(false, true, 2, 2, 3, 1, a, 3, bt, 3, 0, c, 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Output: [4 2 10 5]
}

// A bfloat16 result straight from the product: each element is the float32
// sum rounded once to bfloat16 (here 302.34375 to 302, ties to even), with
// no float32 matrix for the caller to convert.
func ExampleBF16To() {
	const k = 300
	a := make([]dtype.BFloat16, 2*k) // 2 x k
	b := make([]dtype.BFloat16, k)   // k x 1
	for i := range k {
		a[i] = dtype.BF16FromFloat32(1.01)
		a[k+i] = dtype.BF16FromFloat32(-0.5)
		b[i] = dtype.BF16FromFloat32(1)
	}
	c := make([]dtype.BFloat16, 2)
	if err := gemm.BF16To(false, false, 2, 1, k, a, k, b, 1, c, 1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	// Output: [302 -150]
}
