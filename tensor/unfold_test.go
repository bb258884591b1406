package tensor_test

import (
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestGradUnfoldFold checks the gradients of Unfold, Fold and IndexAdd
// against finite differences, on overlapping, strided, padded and dilated
// blocks and repeated indices.
func TestGradUnfoldFold(t *testing.T) {
	over := tensor.UnfoldOptions{Kernel: [2]int{2, 3}}
	odd := tensor.UnfoldOptions{Kernel: [2]int{3, 2}, Stride: [2]int{2, 1}, Padding: [2]int{1, 0}, Dilation: [2]int{1, 2}}
	checkGradCases(t, []gradCase{
		{name: "Unfold/overlapping", in: []gcIn{gstd(2, 2, 4, 4)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Unfold(x[0], over) }},
		{name: "Unfold/strided-padded-dilated", in: []gcIn{gstd(1, 2, 5, 4)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Unfold(x[0], odd) }},
		{name: "Fold/overlapping", in: []gcIn{gstd(2, 12, 6)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Fold(x[0], [2]int{3, 5}, over) }},
		{name: "Fold/strided-padded-dilated", in: []gcIn{gstd(12, 6)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Fold(x[0], [2]int{5, 4}, odd) }},
		{name: "IndexAdd/repeats", in: []gcIn{gstd(3, 4), gstd(3, 5)},
			f: func(x gcTs) *tensor.Tensor {
				idx := tensor.FromSlice([]int64{3, 0, 3, 1, 3}, 5).To(x[0].Device())
				return x[0].IndexAdd(1, idx, x[1])
			}},
	})
}

// TestFoldOfUnfold checks Fold's documented identity: folding the blocks
// Unfold took gives each element times the number of blocks covering it,
// on every device, with that number written out for overlapping blocks
// and for strided, padded ones.
func TestFoldOfUnfold(t *testing.T) {
	for _, c := range []struct {
		opt   tensor.UnfoldOptions
		cover []float32 // of each element of a 3x4 image
	}{
		{tensor.UnfoldOptions{Kernel: [2]int{2, 2}}, []float32{1, 2, 2, 1, 2, 4, 4, 2, 1, 2, 2, 1}},
		// Width: padded columns 0-5 in blocks 0-1, 2-3, 4-5, each real
		// column in one; height: every row in two of the four blocks.
		{tensor.UnfoldOptions{Kernel: [2]int{2, 2}, Stride: [2]int{1, 2}, Padding: [2]int{1, 1}}, []float32{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
	} {
		for _, dev := range testDevices(t) {
			x := tensor.Arange(dtype.F32, 1, 25, 1).Reshape(1, 2, 3, 4).To(dev)
			got, err := tensor.ToSlice[float32](tensor.Fold(tensor.Unfold(x, c.opt), [2]int{3, 4}, c.opt))
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if want := float32(i+1) * c.cover[i%12]; got[i] != want {
					t.Fatalf("%s, %+v: Fold(Unfold(x))[%d] = %v, want %v", dev.Name(), c.opt, i, got[i], want)
				}
			}
		}
	}
}

// ExampleUnfold takes the 2x2 blocks of a 3x3 image as columns (im2col),
// then folds them back: each element comes back once for every block it
// was in.
func ExampleUnfold() {
	x := tensor.Arange(dtype.F32, 1, 10, 1).Reshape(1, 1, 3, 3)
	opt := tensor.UnfoldOptions{Kernel: [2]int{2, 2}}
	cols := tensor.Unfold(x, opt)
	fmt.Println(cols)
	fmt.Println(tensor.Fold(cols, [2]int{3, 3}, opt))
	// Output:
	// tensor([[[1., 2., 4., 5.],
	//          [2., 3., 5., 6.],
	//          [4., 5., 7., 8.],
	//          [5., 6., 8., 9.]]], dtype=f32, device=cpu)
	// tensor([[[[ 1.,  4.,  3.],
	//           [ 8., 20., 12.],
	//           [ 7., 16.,  9.]]]], dtype=f32, device=cpu)
}
