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
		in := &fuzzInput{data: data}
		next := in.next
		shape, dt := in.shapeAndDType()
		x := tensor.Full(dt, float64(next()), shape...)
		y := tensor.Arange(dtype.F32, 0, float64(next()%50), 1).Cast(dt)
		for step := 0; step < 12 && len(in.data) > 0; step++ {
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
			checkNumel(t, x)
		}
		_ = x.String()
		_ = x.GoString()
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], uint64(x.Numel()))
	})
}

// fuzzInput hands out a fuzz input's bytes as small signed integers (0
// once they run out).
type fuzzInput struct{ data []byte }

func (in *fuzzInput) next() int {
	if len(in.data) == 0 {
		return 0
	}
	v := int(int8(in.data[0]))
	in.data = in.data[1:]
	return v
}

// shapeAndDType reads a rank below 5, extents from -4 to 4 (a negative one
// is an error, not a panic) and a dtype.
func (in *fuzzInput) shapeAndDType() ([]int, dtype.DType) {
	shape := make([]int, (in.next()&0xff)%5)
	for i := range shape {
		shape[i] = in.next() % 5
	}
	return shape, dtype.All[(in.next()&0xff)%len(dtype.All)]
}

// checkNumel fails t when x succeeded with a Numel its Shape does not give.
func checkNumel(t *testing.T, x *tensor.Tensor) {
	t.Helper()
	if x.Err() != nil {
		return
	}
	n := 1
	for _, d := range x.Shape() {
		n *= d
	}
	if n != x.Numel() {
		t.Fatalf("shape %v but Numel %d", x.Shape(), x.Numel())
	}
}

// shrink narrows x's axes, as views, until it has at most 1 Mi elements.
func shrink(x *tensor.Tensor) *tensor.Tensor { return shrinkTo(x, 1<<20) }

// shrinkTo narrows x's axes, as views, until it has at most limit elements
// (or every axis has extent 1).
func shrinkTo(x *tensor.Tensor, limit int) *tensor.Tensor {
	for axis := 0; x.Err() == nil && x.Numel() > limit && axis < x.Rank(); axis++ {
		x = x.Narrow(axis, 0, 1)
	}
	return x
}

// FuzzVocab drives the wider vocabulary with arbitrary arguments: padding,
// tiling, scans, sorting, searching, indexing, triangles, statistics,
// Einsum, convolution, unfolding, pooling, normalisation (layer and batch)
// and linear algebra, on a tensor of arbitrary shape and dtype, with x's own
// values as indices where an op takes them. Nothing may panic; a failure
// must be an error value; a success must keep Numel consistent with Shape.
func FuzzVocab(f *testing.F) {
	f.Add([]byte{4, 2, 3, 4, 4, 1, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{2, 3, 3, 0, 7, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 255, 254, 128, 127})
	f.Add([]byte{1, 0, 6, 200, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 250, 251, 252, 253, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{data: data}
		next := in.next
		shape, dt := in.shapeAndDType()
		rank := len(shape)
		x := tensor.Arange(dtype.F32, 0, 1+float64(next()&0x3f), 1).Cast(dt)
		if rank > 0 {
			x = tensor.Full(dt, float64(next()), shape...).Add(tensor.Arange(dtype.F32, 0, float64(max(1, shape[rank-1])), 1).Cast(dt))
		}
		idx := tensor.FromSlice([]int64{int64(next()), int64(next())}, 2)
		for step := 0; step < 10 && len(in.data) > 0; step++ {
			x = shrink(x)
			a, b, c := next(), next(), next()
			var aux *tensor.Tensor
			switch (next() & 0xff) % 32 {
			case 0:
				// The last two axes only: padding every unit axis of a
				// high-rank tensor multiplies its size by 2^rank.
				w := make([][2]int, x.Rank())
				for i := max(0, len(w)-2); i < len(w); i++ {
					w[i] = [2]int{a % 3, b % 3}
				}
				x = x.Pad(w, tensor.PadMode(c%4), float64(c))
			case 1:
				x = x.Roll(a, b)
			case 2:
				x = x.Repeat(a%3, b%3)
			case 3:
				x = x.Tile(a % 3)
			case 4:
				x = x.RepeatInterleave(a%4, b)
			case 5:
				x = x.Gather(a, x.Cast(dtype.I64))
			case 6:
				if c&1 != 0 {
					x = x.IndexAdd(a, idx, x.IndexSelect(a, idx))
					break
				}
				x = x.ScatterAdd(a, x.Cast(dtype.I64), x)
			case 7:
				x, aux = x.TopK(a, b, c&1 == 0)
			case 8:
				x, aux = x.Sort(a, c&1 == 0)
			case 9:
				x = x.ArgSort(a, c&1 == 0)
			case 10:
				x = x.CumSum(a)
			case 11:
				x = x.CumProd(a)
			case 12:
				x = x.Tril(a).Triu(b)
			case 13:
				x = tensor.Diag(x, a)
			case 14:
				// Its result has (n+|k|)^2 elements per row of n: a small operand
				// keeps the result small too.
				x = tensor.DiagEmbed(shrinkTo(x, 1<<10), a)
			case 15:
				x = x.Var(a, b)
			case 16:
				x = x.Std(a)
			case 17:
				x = x.Norm(float64(a), b)
			case 18:
				x = x.Clamp(float64(a), float64(b))
			case 19:
				if c&1 != 0 {
					// Subscripts from the bytes: letters of a four-letter
					// alphabet, a "..." and an output, right or wrong.
					letters := []byte{'i', 'j', 'k', 'i'}
					sub := []byte{}
					for i := range x.Rank() {
						sub = append(sub, letters[((a+i*b)%4+4)%4])
					}
					if c&2 != 0 {
						sub = append([]byte("..."), sub[min(len(sub), 1):]...)
					}
					if c&4 != 0 {
						sub = append(sub, "->"+string(letters[(b%3+3)%3])...)
					}
					x = tensor.Einsum(string(sub), x)
					break
				}
				x = x.Maximum(x.Flip(a)).Minimum(x)
			case 20:
				parts := x.Split([]int{a, b}, c)
				x = parts[len(parts)-1]
			case 21:
				parts := x.Chunk(a, b)
				x = parts[0]
			case 22:
				x = tensor.OneHot(x.Cast(dtype.I64), a)
			case 23:
				x = x.MaskedFill(x.GtScalar(float64(a)), float64(b))
			case 24:
				if c&128 != 0 {
					o := tensor.UnfoldOptions{Kernel: [2]int{a % 4, b % 4}, Stride: [2]int{c % 3, 1}, Padding: [2]int{a % 2, b % 3}, Dilation: [2]int{1 + c%2, 1}}
					if c&64 != 0 && x.Rank() == 4 {
						x = tensor.Fold(tensor.Unfold(x, o), [2]int{x.Shape()[2], x.Shape()[3]}, o)
					} else if c&64 != 0 {
						x = tensor.Fold(x, [2]int{a % 7, b % 7}, o)
					} else {
						x = tensor.Unfold(x, o)
					}
					break
				}
				w := tensor.Full(dt, 1, max(1, a%3), max(1, b%3), 1+c%3, 1+c%2)
				x = tensor.Conv2d(x, w, nil, tensor.Conv2dOptions{Stride: [2]int{a % 3, b % 3}, Padding: [2]int{c % 2, a % 2}, Groups: b % 3})
			case 25:
				x = tensor.MaxPool2d(x, tensor.Pool2dOptions{Kernel: [2]int{a % 4, b % 4}, Stride: [2]int{c % 3, 1}, Padding: [2]int{a % 2, 0},
					CeilMode: c&8 != 0, ExcludePad: c&64 != 0})
			case 26:
				if c&128 != 0 {
					if c&64 != 0 {
						x = tensor.AdaptiveMaxPool2d(x, [2]int{a % 9, b % 9})
					} else {
						x = tensor.AdaptiveAvgPool2d(x, [2]int{a % 9, b % 9})
					}
					break
				}
				x = tensor.AvgPool2d(x, tensor.Pool2dOptions{Kernel: [2]int{a % 4, b % 4}, Stride: [2]int{1, c % 3}, Padding: [2]int{c % 3, 0},
					CeilMode: c&8 != 0, ExcludePad: c&16 != 0, DivisorOverride: (c >> 5) % 3})
			case 27:
				if c&1 != 0 {
					// Statistics of a%5 channels, right or wrong for x.
					var rm, rv *tensor.Tensor
					if c&2 != 0 {
						rm, rv = tensor.Zeros(dtype.F32, a%5), tensor.Ones(dtype.F32, a%5)
					}
					x, aux, _ = tensor.BatchNorm(x, rm, rv, nil, nil, c&4 != 0, float64(b)/256, float64(c&8))
					break
				}
				x = tensor.LayerNorm(x, []int{a % 5}, nil, nil, 1e-5)
			case 28:
				if c&1 != 0 {
					x = tensor.LogDet(x)
					break
				}
				x = tensor.Det(x)
			case 29:
				x = tensor.Solve(x, x.Transpose(a, b))
			case 30:
				switch c % 9 {
				case 1:
					x = x.Diff(a%4, b)
				case 2:
					x, aux, _ = x.Unique()
				case 3:
					x = tensor.Nonzero(x)
				case 4:
					x = tensor.Searchsorted(x, x.Flip(a), c&8 != 0)
				case 5:
					x = tensor.Bincount(x, nil, a)
				case 6:
					x = tensor.Cdist(x, x.Flip(a), float64(b%4))
				case 7:
					x = tensor.Kron(shrinkTo(x, 64), shrinkTo(x, 64)).Quantile(float64(c)/255, a)
				case 8:
					modes := []string{"nearest", "nearest-exact", "bilinear", "linear"}
					x = tensor.Interpolate(x, tensor.InterpolateOptions{Size: [2]int{a % 9, b % 9}, Scale: [2]float64{float64(c) / 37, float64(a) / 29},
						Mode: modes[(c/8)%4], AlignCorners: c&64 != 0})
				default:
					x = x.FloorDiv(x.AddScalar(float64(a))).Pow(x)
				}
			case 31:
				x = x.IndexSelect(a, idx).Atan2(x)
			}
			checkNumel(t, x)
			if aux != nil {
				checkNumel(t, aux)
			}
		}
		_ = x.String()
	})
}
