package tensor_test

import (
	"math"
	"testing"
	"time"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// opsBenchCase is one row of BenchmarkOps: an op on the CPU and the bytes
// it must read and write at the least (its inputs once, its output once),
// which the GB/s metric divides by the time.
type opsBenchCase struct {
	name  string
	bytes float64
	run   func() *tensor.Tensor
}

// BenchmarkOps times common f32 tensor ops on the CPU, one sub-benchmark
// per op, on the shapes that ci/bench-ops.sh hands NumPy in the same run
// (so that the script can print the ratios): Softmax and TopK(10) along
// the rows of [1024, 1024], Where(a > b, a, b) on [1024, 1024], Tril of
// [2048, 2048], reflect Pad by 2 of a [32, 64, 56, 56] image batch,
// ArgMax along the rows of [2048, 2048] and the sum of a [1024, 1024]
// comparison; and on [1024, 1024]: Softmax over axis 0, MaskedFill, Any,
// Not and IsNaN, Max over axis 0, CumSum over either axis, the int32 Add
// and Abs, the cast to int32, a flipped copy, ArgMax over axis 0,
// Gather along axis 0 with random int64 indices, the cast of a Bool mask
// to float32, a row broadcast to [1024, 1024] and copied, the standard
// deviation over axis 0, a bias added to a [64, 128] batch (a small
// training step's size, where the fixed cost of an op counts), a batched
// 256 x [16, 16] @ [16, 16] matmul, the float32 and int32 sums over axis
// 0, the int32 Max along rows, the image batch permuted to channels
// last and made contiguous, the constructors Arange and Linspace of 2^20
// float32 values, Eye(1024), Rand and RandN of [1024, 1024], and Atan2 on
// [1024, 1024]. best-ns is the fastest single
// call, which the script compares with NumPy's best of its calls.
func BenchmarkOps(b *testing.B) {
	a := tensor.RandN(dtype.F32, 1, 1024, 1024)
	c := tensor.RandN(dtype.F32, 2, 1024, 1024)
	big := tensor.RandN(dtype.F32, 4, 2048, 2048)
	img := tensor.RandN(dtype.F32, 5, 32, 64, 56, 56)
	const n, nb = 1024 * 1024, 2048 * 2048
	padOut := 32 * 64 * 60 * 60
	// Integer operands and a Bool mask, computed before the timing.
	ai, ci := a.MulScalar(100).Cast(dtype.I32), c.MulScalar(100).Cast(dtype.I32)
	mask := a.Gt(c)
	rows := make([]int64, n)
	for i := range rows {
		rows[i] = int64(uint64(i)*0x9E3779B97F4A7C15>>54) % 1024 // scattered rows
	}
	ridx := tensor.FromSlice(rows, 1024, 1024)
	row, small, bias := tensor.RandN(dtype.F32, 6, 1, 1024), tensor.RandN(dtype.F32, 7, 64, 128), tensor.RandN(dtype.F32, 8, 128)
	x16, y16 := tensor.RandN(dtype.F32, 9, 256, 16, 16), tensor.RandN(dtype.F32, 10, 256, 16, 16)
	if err := tensor.Realize(ai, ci, mask, ridx, row, small, bias, x16, y16); err != nil {
		b.Fatal(err)
	}
	cases := []opsBenchCase{
		{"softmax", 8 * n, func() *tensor.Tensor { return a.Softmax(1) }},
		{"logsoftmax", 8 * n, func() *tensor.Tensor { return a.LogSoftmax(1) }},
		{"where", 12 * n, func() *tensor.Tensor { return tensor.Where(a.Gt(c), a, c) }},
		{"tril", 8 * nb, func() *tensor.Tensor { return big.Tril(0) }},
		{"topk", 4 * n, func() *tensor.Tensor { v, _ := a.TopK(10, 1, true); return v }},
		{"padreflect", 4 * float64(img.Numel()+padOut), func() *tensor.Tensor {
			return img.Pad([][2]int{{0, 0}, {0, 0}, {2, 2}, {2, 2}}, tensor.PadReflect, 0)
		}},
		{"argmax", 4 * nb, func() *tensor.Tensor { return big.ArgMax(1) }},
		{"gtsum", 8 * n, func() *tensor.Tensor { return a.Gt(c).Sum() }},
		{"softmax0", 8 * n, func() *tensor.Tensor { return a.Softmax(0) }},
		{"maskedfill", 9 * n, func() *tensor.Tensor { return a.MaskedFill(mask, -1e30) }},
		{"any", n, func() *tensor.Tensor { return mask.Any() }},
		{"not", 2 * n, func() *tensor.Tensor { return mask.Not() }},
		{"isnan", 5 * n, func() *tensor.Tensor { return a.IsNaN() }},
		{"max0", 4 * n, func() *tensor.Tensor { return a.Max(0) }},
		{"cumsum0", 8 * n, func() *tensor.Tensor { return a.CumSum(0) }},
		{"cumsum1", 8 * n, func() *tensor.Tensor { return a.CumSum(1) }},
		{"addi32", 12 * n, func() *tensor.Tensor { return ai.Add(ci) }},
		{"absi32", 8 * n, func() *tensor.Tensor { return ai.Abs() }},
		{"casti32", 8 * n, func() *tensor.Tensor { return a.Cast(dtype.I32) }},
		{"flip", 8 * n, func() *tensor.Tensor { return a.Flip(1).Contiguous() }},
		{"argmax0", 4*n + 8*1024, func() *tensor.Tensor { return a.ArgMax(0) }},
		{"gather0", 16 * n, func() *tensor.Tensor { return a.Gather(0, ridx) }},
		{"castbool", 5 * n, func() *tensor.Tensor { return mask.Cast(dtype.F32) }},
		{"bcast", 4 * n, func() *tensor.Tensor { return row.BroadcastTo(1024, 1024).Contiguous() }},
		{"std0", 4 * n, func() *tensor.Tensor { return a.Std(0, 0) }},
		{"addsmall", 8 * 64 * 128, func() *tensor.Tensor { return small.Add(bias) }},
		{"bmm16", 12 * 256 * 16 * 16, func() *tensor.Tensor { return x16.Matmul(y16) }},
		{"sum0", 4*n + 4*1024, func() *tensor.Tensor { return a.Sum(0) }},
		{"sumi32_0", 4*n + 8*1024, func() *tensor.Tensor { return ai.Sum(0) }},
		{"maxi32_1", 4*n + 4*1024, func() *tensor.Tensor { return ai.Max(1) }},
		{"nhwc", 8 * float64(img.Numel()), func() *tensor.Tensor { return img.Permute(0, 2, 3, 1).Contiguous() }},
		{"arange", 4 * n, func() *tensor.Tensor { return tensor.Arange(dtype.F32, 0, n, 1) }},
		{"linspace", 4 * n, func() *tensor.Tensor { return tensor.Linspace(dtype.F32, 0, 1, n) }},
		{"eye", 4 * n, func() *tensor.Tensor { return tensor.Eye(dtype.F32, 1024) }},
		{"rand", 4 * n, func() *tensor.Tensor { return tensor.Rand(dtype.F32, 11, 1024, 1024) }},
		{"randn", 4 * n, func() *tensor.Tensor { return tensor.RandN(dtype.F32, 12, 1024, 1024) }},
		{"atan2", 12 * n, func() *tensor.Tensor { return a.Atan2(c) }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			best := time.Duration(math.MaxInt64)
			for b.Loop() {
				t0 := time.Now()
				y := tc.run()
				if err := y.Err(); err != nil {
					b.Fatal(err)
				}
				best = min(best, time.Since(t0))
				y.Release()
			}
			b.ReportMetric(tc.bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			b.ReportMetric(float64(best.Nanoseconds()), "best-ns")
		})
	}
}
