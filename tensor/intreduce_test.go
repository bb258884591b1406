package tensor_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// intRef reduces the row-major values of shape over axes (sorted, distinct;
// none: all) in int64 with Go's wrapping arithmetic, which is NumPy's
// int64 sum and prod: the independent reference of TestIntReductions.
func intRef(vals []int64, shape, axes []int, prod bool) (out []int64, outShape []int) {
	if len(axes) == 0 {
		for i := range shape {
			axes = append(axes, i)
		}
	}
	for i, d := range shape {
		if !slices.Contains(axes, i) {
			outShape = append(outShape, d)
		}
	}
	n := 1
	for _, d := range outShape {
		n *= d
	}
	out = make([]int64, n)
	if prod {
		for i := range out {
			out[i] = 1
		}
	}
	idx := make([]int, len(shape))
	for _, v := range vals {
		o := 0
		for i, d := range shape {
			if !slices.Contains(axes, i) {
				o = o*d + idx[i]
			}
		}
		if prod {
			out[o] *= v
		} else {
			out[o] += v
		}
		for i := len(shape) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out, outShape
}

// TestIntReductions checks integer Sum and Prod on every device against
// wrapping int64 arithmetic (NumPy's int64 semantics), exactly: I64
// results past 2^31 (values near the int32 limits), long reductions that
// the GPU splits into several passes of 64-bit partial results, strided
// views, negative axes, keepdims, and products that wrap modulo 2^64.
func TestIntReductions(t *testing.T) {
	type tc struct {
		name  string
		dt    dtype.DType
		shape []int
		gen   func(i int) int64
		axes  []int // as passed (negative counts from the end)
		keep  bool
		prod  bool
		trans bool // reduce the transposed view
	}
	nearMax := func(i int) int64 { return 1<<31 - 1 - int64(i%7) }
	nearMin := func(i int) int64 { return -1<<31 + int64(i%5) }
	mixed := func(i int) int64 { return int64((i*7919)%4001) * int64(1-2*(i%2)) * 500000 }
	cases := []tc{
		{name: "i32_near_max_all", dt: dtype.I32, shape: []int{300001}, gen: nearMax},
		{name: "i32_near_min_all", dt: dtype.I32, shape: []int{70000}, gen: nearMin},
		{name: "i32_rows_neg1", dt: dtype.I32, shape: []int{3, 20011}, gen: nearMax, axes: []int{-1}},
		{name: "i32_cols_axis0_keep", dt: dtype.I32, shape: []int{5000, 7}, gen: nearMin, axes: []int{0}, keep: true},
		{name: "i32_many_short", dt: dtype.I32, shape: []int{2048, 9}, gen: nearMax, axes: []int{-1}},
		{name: "i32_mixed_3d", dt: dtype.I32, shape: []int{6, 257, 5}, gen: mixed, axes: []int{-3, -1}},
		{name: "i32_transposed", dt: dtype.I32, shape: []int{301, 40}, gen: nearMax, axes: []int{1}, trans: true},
		{name: "u8_all", dt: dtype.U8, shape: []int{70003}, gen: func(i int) int64 { return int64(255 - i%3) }},
		{name: "u8_axis0", dt: dtype.U8, shape: []int{4099, 3}, gen: func(i int) int64 { return int64(200 + i%50) }, axes: []int{0}},
		{name: "bool_all", dt: dtype.Bool, shape: []int{10007}, gen: func(i int) int64 { return int64(i % 3 % 2) }},
		// Long single rows: split into chunks folded on several cores
		// (a power-of-two length) or folded whole (a prime one).
		{name: "bool_long_split", dt: dtype.Bool, shape: []int{1 << 19}, gen: func(i int) int64 { return int64(i * 7919 % 13 % 2) }},
		{name: "bool_long_prime", dt: dtype.Bool, shape: []int{300007}, gen: func(i int) int64 { return int64(i % 5 % 2) }},
		{name: "bool_rows_keep", dt: dtype.Bool, shape: []int{7, 5003}, gen: func(i int) int64 { return int64(i % 7 % 3 % 2) }, axes: []int{1}, keep: true},
		{name: "bool_3d", dt: dtype.Bool, shape: []int{6, 257, 5}, gen: func(i int) int64 { return int64(i % 11 % 2) }, axes: []int{-3, -1}},
		{name: "bool_transposed", dt: dtype.Bool, shape: []int{301, 40}, gen: func(i int) int64 { return int64(i % 9 % 2) }, axes: []int{1}, trans: true},
		{name: "bool_empty_axis", dt: dtype.Bool, shape: []int{4, 0}, gen: func(i int) int64 { return 1 }, axes: []int{1}},
		{name: "i64_long_split", dt: dtype.I64, shape: []int{1 << 19}, gen: mixed},
		{name: "i32_long_split_rows", dt: dtype.I32, shape: []int{2, 3 << 17}, gen: nearMax, axes: []int{1}},
		{name: "i64_wraps_2p63", dt: dtype.I64, shape: []int{4}, gen: func(i int) int64 { return 1 << 62 }},
		{name: "prod_i32_past_2p31", dt: dtype.I32, shape: []int{2, 3}, gen: func(i int) int64 { return []int64{65536, -65536, 3, 46341, 46341, -1}[i] }, axes: []int{-1}, prod: true},
		// 3^n modulo 2^64, with signs: wraps many times, as NumPy's int64 prod.
		{name: "prod_i32_wraps_2p64", dt: dtype.I32, shape: []int{9000}, gen: func(i int) int64 { return []int64{3, -3, 1, 1, 1, 1, 1, 1, 1, 1}[i%10] }, prod: true},
		{name: "prod_i32_rows_keep", dt: dtype.I32, shape: []int{3, 5000}, gen: func(i int) int64 { return []int64{1, 2, -1, 1, 1, 7, 1}[i%7] }, axes: []int{1}, keep: true, prod: true},
		{name: "prod_u8_all", dt: dtype.U8, shape: []int{50}, gen: func(i int) int64 { return int64(250 + i%6) }, prod: true},
		{name: "prod_i64_large", dt: dtype.I64, shape: []int{3}, gen: func(i int) int64 { return []int64{1 << 40, -(1 << 20) - 3, 5}[i] }, prod: true},
	}
	for _, dev := range testDevices(t) {
		for _, c := range cases {
			t.Run(dev.Name()+"/"+c.name, func(t *testing.T) {
				onDev, vals, release := intInput(dev, c.dt, c.shape, c.gen)
				defer release()
				n := len(vals)
				in, shape := onDev, c.shape
				if c.trans {
					in = onDev.T()
					defer in.Release()
					shape = []int{c.shape[1], c.shape[0]}
					tv := make([]int64, n)
					for i := range c.shape[0] {
						for j := range c.shape[1] {
							tv[j*c.shape[0]+i] = vals[i*c.shape[1]+j]
						}
					}
					vals = tv
				}
				axes := make([]int, len(c.axes))
				for i, a := range c.axes {
					axes[i] = (a + len(shape)) % len(shape)
				}
				slices.Sort(axes)
				want, wantShape := intRef(vals, shape, axes, c.prod)
				var got *tensor.Tensor
				switch {
				case c.prod && c.keep:
					got = in.ProdKeepDims(c.axes...)
				case c.prod:
					got = in.Prod(c.axes...)
				case c.keep:
					got = in.SumKeepDims(c.axes...)
				default:
					got = in.Sum(c.axes...)
				}
				defer got.Release()
				if c.keep {
					wantShape = slices.Clone(shape)
					for _, a := range axes {
						wantShape[a] = 1
					}
				}
				if got.DType() != dtype.I64 || !slices.Equal(got.Shape(), wantShape) {
					t.Fatalf("dtype %v shape %v (err %v), want i64 %v", got.DType(), got.Shape(), got.Err(), wantShape)
				}
				g, err := tensor.ToSlice[int64](got)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(g, want) {
					for i := range g {
						if g[i] != want[i] {
							t.Fatalf("element %d = %d, want %d (of %d)", i, g[i], want[i], len(g))
						}
					}
				}
			})
		}
	}
}

// TestIntReductionsFused checks that integer sums of pending elementwise
// results (the fused-reduction path when fusion is on) are I64 and exact,
// as the accuracy count of a classifier computes them: Sum of Eq cast to
// I32, and Sum of an I32 sum of two tensors past 2^31.
func TestIntReductionsFused(t *testing.T) {
	for _, dev := range testDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			a := tensor.FromSlice([]int32{1<<31 - 1, 1<<31 - 2, 5, 7}, 2, 2).To(dev)
			defer a.Release()
			b := tensor.FromSlice([]int32{0, 1, 5, 8}, 2, 2).To(dev)
			defer b.Release()
			eq := a.Eq(b)
			defer eq.Release()
			eqi := eq.Cast(dtype.I32)
			defer eqi.Release()
			hits := eqi.Sum()
			defer hits.Release()
			m := a.Mul(a.Sign())
			defer m.Release()
			s := m.Sum(-1)
			defer s.Release()
			for _, r := range []struct {
				got  *tensor.Tensor
				want []int64
			}{{hits, []int64{1}}, {s, []int64{1<<32 - 3, 12}}} {
				g, err := tensor.ToSlice[int64](r.got)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(g, r.want) {
					t.Errorf("got %v, want %v", g, r.want)
				}
			}
		})
	}
}

// TestIntReductionsNotDifferentiable: integer tensors take no gradient, so
// their sums are plain I64 results, and asking for a gradient is an
// ErrDType.
func TestIntReductionsNotDifferentiable(t *testing.T) {
	x := tensor.FromSlice([]int32{1, 2}, 2).RequiresGrad()
	if !errors.Is(x.Err(), tensor.ErrDType) {
		t.Fatalf("RequiresGrad of i32: %v, want ErrDType", x.Err())
	}
	if s := x.Sum(); !errors.Is(s.Err(), tensor.ErrDType) {
		t.Fatalf("Sum of the failed tensor: %v, want its ErrDType", s.Err())
	}
}

// TestIntReductionI64MaxOnGPU: Max of I64 is 9 on every device that
// computes I64 (the GPUs compare (lo, hi) pairs), and a device that only
// holds I64 must refuse it with a typed error rather than a wrong answer.
func TestIntReductionI64MaxOnGPU(t *testing.T) {
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice([]int64{3, 9, -2}, 3).To(dev)
		m := x.Max()
		if err := m.Err(); err != nil {
			if !errors.Is(err, tensor.ErrDType) || computesI64(dev) {
				t.Errorf("%s: Max of i64: %v", dev.Name(), err)
			}
		} else if v, _ := m.Item(); v != 9 {
			t.Errorf("%s: Max of i64 = %v, want 9", dev.Name(), v)
		}
		m.Release()
		x.Release()
	}
}

// intInput is the tensor of shape whose row-major elements gen gives,
// cast to dt and on dev, with those values; release frees the tensors
// made on the way.
func intInput(dev device.Device, dt dtype.DType, shape []int, gen func(int) int64) (*tensor.Tensor, []int64, func()) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = gen(i)
	}
	host := tensor.FromSlice(vals, shape...)
	x := host.Cast(dt)
	in := x.To(dev)
	return in, vals, func() {
		in.Release()
		x.Release()
		host.Release()
	}
}

func computesI64(dev device.Device) bool { return slices.Contains(dev.Info().Compute, dtype.I64) }

// Integer sums and products are I64 and exact past the int32 range, as in
// NumPy and PyTorch.
func ExampleTensor_Sum_integers() {
	x := tensor.FromSlice([]int32{2147483647, 2147483647, 2}, 3)
	s := x.Sum()
	p := x.Prod()
	fmt.Println(s.DType(), s)
	fmt.Println(p.DType(), p)
	// Output:
	// i64 tensor(4294967296, dtype=i64, device=cpu)
	// i64 tensor(9223372028264841218, dtype=i64, device=cpu)
}

// TestIntScans checks CumSum and CumProd of integers on every device:
// I64 results exact in 64 bits against Go's wrapping int64 arithmetic
// (NumPy's int64 cumsum and cumprod), for I32 near its limits, U8, I64
// sources with carries between the 32-bit halves, negative axes, a long
// row, and products that wrap modulo 2^64.
func TestIntScans(t *testing.T) {
	type tc struct {
		name  string
		dt    dtype.DType
		shape []int
		gen   func(i int) int64
		axis  int
		prod  bool
	}
	cases := []tc{
		{name: "i32_near_max", dt: dtype.I32, shape: []int{3, 1000}, gen: func(i int) int64 { return 1<<31 - 1 - int64(i%3) }, axis: -1},
		{name: "i32_near_min_axis0", dt: dtype.I32, shape: []int{700, 3}, gen: func(i int) int64 { return -1 << 31 }, axis: 0},
		{name: "u8_long", dt: dtype.U8, shape: []int{70000}, gen: func(i int) int64 { return int64(255 - i%2) }, axis: 0},
		{name: "i64_carries", dt: dtype.I64, shape: []int{2, 500}, gen: func(i int) int64 { return int64(uint64(i)*2654435761%(1<<41)) - 1<<40 }, axis: -1},
		{name: "prod_i32_wraps", dt: dtype.I32, shape: []int{2, 90}, gen: func(i int) int64 { return []int64{3, -3, 1}[i%3] }, axis: 1, prod: true},
		{name: "prod_i64_wraps", dt: dtype.I64, shape: []int{40, 2}, gen: func(i int) int64 { return []int64{1<<33 + 1, -7}[i%2] }, axis: -2, prod: true},
	}
	for _, dev := range testDevices(t) {
		for _, c := range cases {
			t.Run(dev.Name()+"/"+c.name, func(t *testing.T) {
				in, vals, release := intInput(dev, c.dt, c.shape, c.gen)
				defer release()
				var got *tensor.Tensor
				if c.prod {
					got = in.CumProd(c.axis)
				} else {
					got = in.CumSum(c.axis)
				}
				defer got.Release()
				// Reference: element k of a line combines element k-1's
				// result (the shapes are 1-D or 2-D; step is the axis' stride).
				rows, cols := 1, c.shape[len(c.shape)-1]
				if len(c.shape) == 2 {
					rows = c.shape[0]
				}
				lines, length, step, lineStep := rows, cols, 1, cols
				if len(c.shape) == 2 && (c.axis+2)%2 == 0 {
					lines, length, step, lineStep = cols, rows, cols, 1
				}
				want := slices.Clone(vals)
				for l := range lines {
					for k := 1; k < length; k++ {
						at := l*lineStep + k*step
						if c.prod {
							want[at] *= want[at-step]
						} else {
							want[at] += want[at-step]
						}
					}
				}
				if got.DType() != dtype.I64 || !slices.Equal(got.Shape(), c.shape) {
					t.Fatalf("dtype %v shape %v (err %v), want i64 %v", got.DType(), got.Shape(), got.Err(), c.shape)
				}
				g, err := tensor.ToSlice[int64](got)
				if err != nil {
					t.Fatal(err)
				}
				for i := range g {
					if g[i] != want[i] {
						t.Fatalf("element %d = %d, want %d", i, g[i], want[i])
					}
				}
			})
		}
	}
}

// BenchmarkSumI32 times the exact I64 sum of 1 Mi int32 values on every
// device (source GB/s: 4 bytes an element), next to the anchor, a raw Go
// loop adding the same values into an int64 on the host.
func BenchmarkSumI32(b *testing.B) {
	const n = 1 << 20
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(i*2654435761) | 1<<30
	}
	b.Run("loop", func(b *testing.B) {
		var s int64
		for b.Loop() {
			s = 0
			for _, v := range vals {
				s += int64(v)
			}
		}
		b.ReportMetric(4*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		_ = s
	})
	for _, dev := range testDevices(b) {
		x := tensor.FromSlice(vals, n).To(dev)
		b.Run(dev.Name(), func(b *testing.B) {
			for b.Loop() {
				s := x.Sum()
				if _, err := s.Item(); err != nil {
					b.Fatal(err)
				}
				s.Release()
			}
			b.ReportMetric(4*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
		x.Release()
	}
}
