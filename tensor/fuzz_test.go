package tensor_test

import (
	"encoding/binary"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// FuzzOps drives the public API with arbitrary shapes, axes, dtypes and
// operation sequences. Nothing may panic; every failure must be an error
// value, and every success must keep Numel consistent with Shape.
func FuzzOps(f *testing.F) {
	f.Add([]byte{2, 3, 4, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{0, 0, 0, 255, 254, 253, 128, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25})
	f.Add([]byte{5, 1, 1, 1, 1, 1, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51})
	// Joins of broadcast views and of the Arange operand (issue 7 item 11).
	f.Add([]byte{1, 1, 0, 3, 5, 127, 0, 4, 0, 0, 15, 0, 0, 16, 1, 0, 16, 255, 0, 15})
	f.Add([]byte{2, 1, 4, 2, 7, 49, 100, 0, 4, 127, 0, 4, 1, 0, 16, 0, 0, 15, 2, 0, 19})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			v := int(int8(data[0]))
			data = data[1:]
			return v
		}
		rank := (next() & 0xff) % 5
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = next() % 5 // may be negative: an error, not a panic
		}
		dt := dtype.All[(next()&0xff)%len(dtype.All)]
		x := tensor.Full(dt, float64(next()), shape...)
		y := tensor.Arange(dtype.F32, 0, float64(next()%50), 1).Cast(dt)
		for step := 0; step < 12 && len(data) > 0; step++ {
			// Views may be enormous (broadcasting is free); computing on them
			// is legal but would take the fuzzer minutes, so operands are
			// narrowed (a view) to at most 1 Mi elements first.
			x = shrink(x)
			a, b := next(), next()
			switch (next() & 0xff) % 24 {
			case 0:
				x = x.Reshape(a, b)
			case 1:
				x = x.Transpose(a, b)
			case 2:
				x = x.Narrow(a, b, next())
			case 3:
				x = x.Slice(a, b, next(), next())
			case 4:
				x = x.BroadcastTo(append(x.Shape(), a)...)
			case 5:
				x = x.Unsqueeze(a)
			case 6:
				x = x.Squeeze(a)
			case 7:
				x = x.Sum(a)
			case 8:
				x = x.MaxKeepDims(a, b)
			case 9:
				x = x.ArgMin(a)
			case 10:
				x = x.Add(y)
			case 11:
				x = x.Matmul(y)
			case 12:
				x = x.Softmax(a)
			case 13:
				x = x.Exp()
			case 14:
				x = x.Cast(dtype.All[(a&0xff)%len(dtype.All)])
			case 15:
				x = tensor.Concat([]*tensor.Tensor{x, y}, a)
			case 16:
				x = tensor.Stack([]*tensor.Tensor{x, x}, a)
			case 17:
				x = x.IndexSelect(a, tensor.FromSlice([]int64{int64(b)}))
			case 18:
				x = tensor.Where(x.GtScalar(float64(a)), x, y)
			case 19:
				x = x.Flatten(a, b)
			case 20:
				x = x.Permute(a, b)
			case 21:
				x = x.Tensordot(y, []int{a}, []int{b})
			case 22:
				x = x.LogSumExp(a)
			case 23:
				x.Release()
			}
			if x.Err() == nil {
				n := 1
				for _, d := range x.Shape() {
					n *= d
				}
				if n != x.Numel() {
					t.Fatalf("shape %v but Numel %d", x.Shape(), x.Numel())
				}
			}
		}
		_ = x.String()
		_ = x.GoString()
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], uint64(x.Numel()))
	})
}

// shrink narrows x's axes, as views, until it has at most 1 Mi elements.
func shrink(x *tensor.Tensor) *tensor.Tensor {
	for axis := 0; x.Err() == nil && x.Numel() > 1<<20 && axis < x.Rank(); axis++ {
		x = x.Narrow(axis, 0, 1)
	}
	return x
}
