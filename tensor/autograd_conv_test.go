package tensor_test

import (
	"testing"

	"github.com/tessera-go/tessera/tensor"
)

// TestGradConvPool: convolution, pooling and padding are built from views,
// Concat/Stack, Matmul and reductions, so their gradients come from those
// operations' rules; checked here against finite differences like the
// rest.
func TestGradConvPool(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "Conv2d", in: []gcIn{gstd(2, 2, 4, 4), gstd(3, 2, 2, 2), gstd(3)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv2d(x[0], x[1], x[2], tensor.Conv2dOptions{})
		}},
		{name: "Conv2d/stride-padding", in: []gcIn{gstd(1, 2, 5, 4), gstd(2, 2, 3, 2)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv2d(x[0], x[1], nil, tensor.Conv2dOptions{Stride: [2]int{2, 1}, Padding: [2]int{1, 1}})
		}},
		{name: "Conv2d/groups-dilation", in: []gcIn{gstd(1, 4, 5, 5), gstd(2, 2, 2, 2)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv2d(x[0], x[1], nil, tensor.Conv2dOptions{Groups: 2, Dilation: [2]int{2, 1}})
		}},
		{name: "Conv1d", in: []gcIn{gstd(2, 2, 6), gstd(3, 2, 3)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv1d(x[0], x[1], nil, tensor.Conv2dOptions{Stride: [2]int{2, 0}})
		}},
		{name: "MaxPool2d", in: []gcIn{gstd(1, 2, 4, 4)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.MaxPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{2, 2}})
		}},
		{name: "MaxPool2d/padded", in: []gcIn{gstd(1, 1, 5, 5)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.MaxPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}})
		}},
		{name: "AvgPool2d", in: []gcIn{gstd(2, 1, 4, 6)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AvgPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{2, 3}})
		}},
		{name: "Pad/reflect", in: []gcIn{gstd(2, 4)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].Pad([][2]int{{1, 0}, {2, 3}}, tensor.PadReflect, 0)
		}},
		{name: "Pad/replicate", in: []gcIn{gstd(3, 2)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].Pad([][2]int{{2, 1}, {0, 2}}, tensor.PadReplicate, 0)
		}},
	})
}
