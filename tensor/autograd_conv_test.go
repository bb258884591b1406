package tensor_test

import (
	"testing"

	"github.com/tessera-go/tessera/device/devicetest"
	"github.com/tessera-go/tessera/dtype"
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
		// The convolution's own rule (weights: dY times the im2col matrix;
		// input: the flipped, channel-swapped kernel run over the spread
		// dY) in the geometries that exercise it.
		{name: "Conv2d/stride2", in: []gcIn{gstd(2, 2, 7, 6), gstd(3, 2, 3, 3), gstd(3)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv2d(x[0], x[1], x[2], tensor.Conv2dOptions{Stride: [2]int{2, 2}})
		}},
		{name: "Conv2d/stride3-past-kernel", in: []gcIn{gstd(1, 2, 8, 7), gstd(2, 2, 2, 2)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv2d(x[0], x[1], nil, tensor.Conv2dOptions{Stride: [2]int{3, 3}})
		}},
		{name: "Conv2d/dilation2-padding2", in: []gcIn{gstd(1, 2, 6, 6), gstd(2, 2, 3, 3)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv2d(x[0], x[1], nil, tensor.Conv2dOptions{Dilation: [2]int{2, 2}, Padding: [2]int{2, 2}})
		}},
		{name: "Conv2d/stride2-dilation2-padding1", in: []gcIn{gstd(2, 2, 7, 8), gstd(2, 2, 3, 2), gstd(2)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv2d(x[0], x[1], x[2], tensor.Conv2dOptions{Stride: [2]int{2, 2}, Dilation: [2]int{2, 2}, Padding: [2]int{1, 1}})
		}},
		{name: "Conv2d/groups2-stride2-padding1", in: []gcIn{gstd(2, 4, 5, 5), gstd(4, 2, 3, 3), gstd(4)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv2d(x[0], x[1], x[2], tensor.Conv2dOptions{Groups: 2, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}})
		}},
		{name: "Conv2d/padding-past-kernel", in: []gcIn{gstd(1, 2, 3, 4), gstd(3, 2, 1, 2)}, f: func(x gcTs) *tensor.Tensor {
			// Outputs that meet only padding send nothing back.
			return tensor.Conv2d(x[0], x[1], nil, tensor.Conv2dOptions{Padding: [2]int{2, 3}, Stride: [2]int{1, 2}})
		}},
		{name: "Conv2d/5x5-padding2", in: []gcIn{gstd(2, 3, 6, 6), gstd(2, 3, 5, 5), gstd(2)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv2d(x[0], x[1], x[2], tensor.Conv2dOptions{Padding: [2]int{2, 2}})
		}},
		{name: "Conv2d/non-contiguous", in: []gcIn{gstd(5, 2, 4, 3), gstd(4, 2, 3, 2)}, f: func(x gcTs) *tensor.Tensor {
			// A permuted input and a transposed kernel: strided operands.
			return tensor.Conv2d(x[0].Permute(3, 1, 2, 0), x[1].Transpose(2, 3), nil, tensor.Conv2dOptions{Padding: [2]int{1, 0}})
		}},
		{name: "Conv2d/chained", in: []gcIn{gstd(1, 1, 6, 6), gstd(2, 1, 3, 3), gstd(2, 2, 2, 2)}, f: func(x gcTs) *tensor.Tensor {
			// A convolution of a convolution: the inner one's input
			// gradient flows through the outer's.
			h := tensor.Conv2d(x[0], x[1], nil, tensor.Conv2dOptions{Padding: [2]int{1, 1}}).Tanh()
			return tensor.Conv2d(h, x[2], nil, tensor.Conv2dOptions{Stride: [2]int{2, 2}})
		}},
		{name: "Conv1d/stride2-dilation2-padding1", in: []gcIn{gstd(2, 2, 9), gstd(3, 2, 3), gstd(3)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.Conv1d(x[0], x[1], x[2], tensor.Conv2dOptions{Stride: [2]int{2, 0}, Dilation: [2]int{2, 0}, Padding: [2]int{1, 0}})
		}},
		// Pools whose windows tile the input: one view, one reduction.
		{name: "MaxPool2d/tiles-odd", in: []gcIn{gstd(2, 2, 5, 7)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.MaxPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{2, 3}})
		}},
		{name: "MaxPool2d/tiles-padded", in: []gcIn{gstd(1, 2, 5, 5)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.MaxPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{2, 2}, Padding: [2]int{1, 1}})
		}},
		{name: "MaxPool2d/tiles-non-contiguous", in: []gcIn{gstd(4, 6, 2, 1)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.MaxPool2d(x[0].Permute(3, 2, 1, 0), tensor.Pool2dOptions{Kernel: [2]int{2, 2}})
		}},
		{name: "AvgPool2d/tiles-padded-odd", in: []gcIn{gstd(2, 1, 5, 7)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AvgPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{2, 2}, Padding: [2]int{1, 0}})
		}},
		// PyTorch's ceil_mode, count_include_pad=False and
		// divisor_override: windows past the padding, divisors that vary
		// by window, on both the tiled and the overlapping paths.
		{name: "MaxPool2d/ceil", in: []gcIn{gstd(1, 2, 5, 7)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.MaxPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{3, 2}, Stride: [2]int{2, 2}, CeilMode: true})
		}},
		{name: "MaxPool2d/tiles-ceil", in: []gcIn{gstd(1, 2, 5, 7)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.MaxPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{2, 3}, CeilMode: true})
		}},
		{name: "AvgPool2d/ceil-padded", in: []gcIn{gstd(2, 1, 6, 7)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AvgPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, CeilMode: true})
		}},
		{name: "AvgPool2d/tiles-ceil-exclude-pad", in: []gcIn{gstd(1, 2, 5, 7)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AvgPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{2, 2}, Padding: [2]int{1, 0}, CeilMode: true, ExcludePad: true})
		}},
		{name: "AvgPool2d/exclude-pad", in: []gcIn{gstd(1, 2, 4, 5)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AvgPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{3, 3}, Stride: [2]int{1, 1}, Padding: [2]int{1, 1}, ExcludePad: true})
		}},
		{name: "AvgPool2d/divisor-override", in: []gcIn{gstd(1, 1, 4, 6)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AvgPool2d(x[0], tensor.Pool2dOptions{Kernel: [2]int{2, 3}, Stride: [2]int{1, 2}, DivisorOverride: 5})
		}},
		// Adaptive average pooling: tiles where the sizes divide, else
		// one mean a window (overlapping, and repeated when upsampling).
		{name: "AdaptiveAvgPool2d/divides", in: []gcIn{gstd(1, 2, 4, 6)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AdaptiveAvgPool2d(x[0], [2]int{2, 3})
		}},
		{name: "AdaptiveAvgPool2d/overlap", in: []gcIn{gstd(2, 1, 5, 7)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AdaptiveAvgPool2d(x[0], [2]int{3, 4})
		}},
		{name: "AdaptiveAvgPool2d/upsample", in: []gcIn{gstd(1, 1, 3, 2)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AdaptiveAvgPool2d(x[0], [2]int{4, 5})
		}},
		{name: "MaxPool1d/ceil", in: []gcIn{gstd(2, 2, 7)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.MaxPool1d(x[0], tensor.Pool2dOptions{Kernel: [2]int{3}, Stride: [2]int{2}, Padding: [2]int{1}, CeilMode: true})
		}},
		{name: "AvgPool1d/exclude-pad", in: []gcIn{gstd(1, 3, 6)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AvgPool1d(x[0], tensor.Pool2dOptions{Kernel: [2]int{2}, Padding: [2]int{1}, ExcludePad: true})
		}},
		// Adaptive max pooling: tiles where the sizes divide, else
		// gathered windows (overlapping ones share input elements).
		{name: "AdaptiveMaxPool2d/divides", in: []gcIn{gstd(1, 2, 4, 6)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AdaptiveMaxPool2d(x[0], [2]int{2, 3})
		}},
		{name: "AdaptiveMaxPool2d/overlap", in: []gcIn{gstd(2, 1, 5, 7)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AdaptiveMaxPool2d(x[0], [2]int{3, 4})
		}},
		{name: "AdaptiveMaxPool2d/upsample", in: []gcIn{gstd(1, 1, 3, 2)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.AdaptiveMaxPool2d(x[0], [2]int{4, 5})
		}},
		{name: "Pad/reflect", in: []gcIn{gstd(2, 4)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].Pad([][2]int{{1, 0}, {2, 3}}, tensor.PadReflect, 0)
		}},
		{name: "Pad/replicate", in: []gcIn{gstd(3, 2)}, f: func(x gcTs) *tensor.Tensor {
			return x[0].Pad([][2]int{{2, 1}, {0, 2}}, tensor.PadReplicate, 0)
		}},
	})
}

// TestConvMemoryBounded runs forward and backward through two
// convolutions' rules (the input's gradient included, strided and
// grouped), a strided ConvTranspose2d with output padding and both tiling
// pools 100 times on each device with no Release
// anywhere: memory in use stays bounded, and comes back after a
// collection.
func TestConvMemoryBounded(t *testing.T) {
	const iters = 100
	for _, dev := range testDevices(t) {
		be := dev.Backend()
		base := devicetest.SettledMemory(t, be)
		x := tensor.RandN(dtype.F32, 1, 8, 2, 12, 12).To(dev).RequiresGrad()
		w1 := tensor.RandN(dtype.F32, 2, 4, 2, 3, 3).MulScalar(0.3).To(dev).RequiresGrad()
		b1 := tensor.Zeros(dtype.F32, 4).To(dev).RequiresGrad()
		w2 := tensor.RandN(dtype.F32, 3, 4, 2, 3, 3).MulScalar(0.3).To(dev).RequiresGrad()
		w3 := tensor.RandN(dtype.F32, 4, 4, 2, 3, 3).MulScalar(0.3).To(dev).RequiresGrad()
		b3 := tensor.Zeros(dtype.F32, 2).To(dev).RequiresGrad()
		var mid, peak int64
		for i := range iters {
			h := tensor.Conv2d(x, w1, b1, tensor.Conv2dOptions{Padding: [2]int{1, 1}}).Relu()
			h = tensor.MaxPool2d(h, tensor.Pool2dOptions{Kernel: [2]int{2, 2}})
			h = tensor.Conv2d(h, w2, nil, tensor.Conv2dOptions{Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, Groups: 2})
			h = tensor.ConvTranspose2d(h, w3, b3, tensor.ConvTranspose2dOptions{Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, OutputPadding: [2]int{1, 1}})
			loss := tensor.AvgPool2d(h, tensor.Pool2dOptions{Kernel: [2]int{3, 3}}).Square().Mean()
			if err := loss.Backward(); err != nil {
				t.Fatalf("%s: iteration %d: %v", dev.Name(), i, err)
			}
			use := be.MemoryInUse()
			if i == iters/2 {
				mid = use
			}
			if i > iters/2 {
				peak = max(peak, use)
			}
		}
		for _, p := range []*tensor.Tensor{x, w1, b1, w2, w3, b3} {
			if err := p.Grad().Err(); err != nil {
				t.Fatalf("%s: %v", dev.Name(), err)
			}
		}
		if peak > mid+8<<20 {
			t.Errorf("%s: memory in use rose from %d to %d KiB over the second half", dev.Name(), mid>>10, peak>>10)
		}
		x, w1, b1, w2, w3, b3 = nil, nil, nil, nil, nil, nil
		if after := devicetest.MemoryBackTo(t, be, base); after > base {
			t.Errorf("%s: %d bytes still in use after the loop and a collection (baseline %d)", dev.Name(), after, base)
		}
		t.Logf("%s: %d steps, memory in use at half %d KiB, peak after %d KiB", dev.Name(), iters, mid>>10, peak>>10)
	}
}
