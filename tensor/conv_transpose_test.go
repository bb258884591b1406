package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// refConvTranspose2d is the direct float64 scatter loop, the reference:
// every input element adds its product with every kernel tap into the
// output element that tap lands on.
func refConvTranspose2d(x []float64, n, c, h, w int, k []float64, cog, kh, kw int, bias []float64, o tensor.ConvTranspose2dOptions) ([]float64, int, int) {
	for i := range 2 {
		if o.Stride[i] == 0 {
			o.Stride[i] = 1
		}
		if o.Dilation[i] == 0 {
			o.Dilation[i] = 1
		}
	}
	g := max(o.Groups, 1)
	cg, oc := c/g, cog*g
	oh := (h-1)*o.Stride[0] - 2*o.Padding[0] + o.Dilation[0]*(kh-1) + o.OutputPadding[0] + 1
	ow := (w-1)*o.Stride[1] - 2*o.Padding[1] + o.Dilation[1]*(kw-1) + o.OutputPadding[1] + 1
	out := make([]float64, n*oc*oh*ow)
	for b := range n {
		for q := range oc {
			for p := range oh * ow {
				if bias != nil {
					out[(b*oc+q)*oh*ow+p] = bias[q]
				}
			}
		}
		for ci := range c {
			gi := ci / cg
			for i := range h {
				for j := range w {
					xv := x[((b*c+ci)*h+i)*w+j]
					for q := range cog {
						for u := range kh {
							for v := range kw {
								r := i*o.Stride[0] - o.Padding[0] + u*o.Dilation[0]
								col := j*o.Stride[1] - o.Padding[1] + v*o.Dilation[1]
								if r < 0 || r >= oh || col < 0 || col >= ow {
									continue
								}
								out[((b*oc+gi*cog+q)*oh+r)*ow+col] += xv * k[((ci*cog+q)*kh+u)*kw+v]
							}
						}
					}
				}
			}
		}
	}
	return out, oh, ow
}

// convTransposeCases cover strides 1-5 (both of transposed's paths),
// padding, output padding (below the stride, and below the dilation only),
// dilation, groups and bias.
var convTransposeCases = []struct {
	n, c, h, w, cog, kh, kw int
	opt                     tensor.ConvTranspose2dOptions
	bias                    bool
}{
	{1, 1, 4, 4, 1, 3, 3, tensor.ConvTranspose2dOptions{}, false},
	{2, 3, 5, 4, 2, 3, 3, tensor.ConvTranspose2dOptions{Padding: [2]int{1, 1}}, true},
	{2, 2, 4, 5, 3, 3, 2, tensor.ConvTranspose2dOptions{Stride: [2]int{2, 2}, Padding: [2]int{1, 0}, OutputPadding: [2]int{1, 0}}, true},
	{1, 3, 3, 4, 2, 2, 3, tensor.ConvTranspose2dOptions{Stride: [2]int{3, 2}, OutputPadding: [2]int{2, 1}}, false},
	{1, 2, 4, 4, 2, 3, 3, tensor.ConvTranspose2dOptions{Dilation: [2]int{2, 2}, Padding: [2]int{2, 1}, OutputPadding: [2]int{1, 0}}, true},
	{2, 4, 3, 5, 3, 3, 3, tensor.ConvTranspose2dOptions{Groups: 2, Stride: [2]int{2, 1}, Padding: [2]int{1, 1}}, true},
	{1, 4, 4, 3, 1, 2, 2, tensor.ConvTranspose2dOptions{Groups: 4, Stride: [2]int{2, 3}, Dilation: [2]int{2, 1}, OutputPadding: [2]int{1, 2}}, false},
	{1, 2, 2, 2, 2, 1, 1, tensor.ConvTranspose2dOptions{Stride: [2]int{3, 3}, Padding: [2]int{1, 0}}, true},
	// 20 phases: past the phase split, through the spread input.
	{2, 2, 3, 2, 2, 3, 2, tensor.ConvTranspose2dOptions{Stride: [2]int{5, 4}, Padding: [2]int{1, 0}, OutputPadding: [2]int{3, 1}}, true},
	// Stride 2, dilation 2: the odd rows and columns get no tap.
	{1, 2, 3, 3, 2, 2, 2, tensor.ConvTranspose2dOptions{Stride: [2]int{2, 2}, Dilation: [2]int{2, 2}, OutputPadding: [2]int{1, 1}}, false},
}

// TestConvTranspose2d compares ConvTranspose2d with the scatter loop on
// every device and float dtype, on contiguous and transposed-view inputs.
func TestConvTranspose2d(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			if !computes(dev, dt) {
				continue
			}
			tol := map[dtype.DType]float64{dtype.F32: 2e-5, dtype.F64: 1e-12}[dt]
			for ci, c := range convTransposeCases {
				g := max(c.opt.Groups, 1)
				xs := seq(c.n*c.c*c.h*c.w, float64(ci))
				ks := seq(c.c*c.cog*c.kh*c.kw, float64(ci)+0.5)
				var bs []float64
				var bias *tensor.Tensor
				if c.bias {
					bs = seq(c.cog*g, 3)
					bias = tensor.FromSlice(bs).Cast(dt).To(dev)
				}
				want, oh, ow := refConvTranspose2d(xs, c.n, c.c, c.h, c.w, ks, c.cog, c.kh, c.kw, bs, c.opt)
				x := tensor.FromSlice(xs, c.n, c.c, c.h, c.w).Cast(dt).To(dev)
				xt := tensor.FromSlice(xs, c.n, c.c, c.h, c.w).Permute(0, 1, 3, 2).Contiguous().Cast(dt).To(dev).Permute(0, 1, 3, 2)
				k := tensor.FromSlice(ks, c.c, c.cog, c.kh, c.kw).Cast(dt).To(dev)
				for vi, in := range []*tensor.Tensor{x, xt} {
					y := tensor.ConvTranspose2d(in, k, bias, c.opt)
					name := fmt.Sprintf("%s %v case %d view %d", dev.Name(), dt, ci, vi)
					if s := y.Shape(); len(s) != 4 || s[0] != c.n || s[1] != c.cog*g || s[2] != oh || s[3] != ow {
						t.Fatalf("%s: shape %v (%v), want [%d %d %d %d]", name, s, y.Err(), c.n, c.cog*g, oh, ow)
					}
					got := readF64(t, y)
					for i := range want {
						if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
							t.Fatalf("%s: element %d = %v, want %v", name, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestConvTranspose2dIsConvInputGradient checks the adjoint identity: the
// gradient of sum(Conv2d(x, w) * g) with respect to x is
// ConvTranspose2d(g, w) with the same options, the output padding making
// up the rows and columns the strided Conv2d dropped.
func TestConvTranspose2dIsConvInputGradient(t *testing.T) {
	for ci, c := range []struct {
		h, w int
		opt  tensor.Conv2dOptions
	}{
		{7, 6, tensor.Conv2dOptions{Stride: [2]int{2, 2}, Padding: [2]int{1, 1}}},
		{8, 7, tensor.Conv2dOptions{Stride: [2]int{3, 2}, Dilation: [2]int{1, 2}, Groups: 2}},
	} {
		x := tensor.FromSlice(seq(2*4*c.h*c.w, 1), 2, 4, c.h, c.w).RequiresGrad()
		cg := 4 / max(c.opt.Groups, 1)
		w := tensor.FromSlice(seq(6*cg*3*3, 2), 6, cg, 3, 3)
		y := tensor.Conv2d(x, w, nil, c.opt)
		if y.Err() != nil {
			t.Fatalf("case %d: %v", ci, y.Err())
		}
		s := y.Shape()
		g := tensor.FromSlice(seq(s[0]*s[1]*s[2]*s[3], 3), s...)
		if err := y.Mul(g).Sum().Backward(); err != nil {
			t.Fatal(err)
		}
		want := readF64(t, x.Grad())
		var op [2]int
		for a, ext := range [2]int{c.h, c.w} {
			op[a] = (ext + 2*c.opt.Padding[a] - max(c.opt.Dilation[a], 1)*2 - 1) % c.opt.Stride[a]
		}
		got := tensor.ConvTranspose2d(g, w, nil, tensor.ConvTranspose2dOptions{
			Stride: c.opt.Stride, Padding: c.opt.Padding, Dilation: c.opt.Dilation, Groups: c.opt.Groups, OutputPadding: op})
		if gs := got.Shape(); len(gs) != 4 || gs[2] != c.h || gs[3] != c.w {
			t.Fatalf("case %d: shape %v (%v), want H, W %d, %d", ci, gs, got.Err(), c.h, c.w)
		}
		gv := readF64(t, got)
		for i := range want {
			if math.Abs(gv[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("case %d: element %d = %v, want %v", ci, i, gv[i], want[i])
			}
		}
	}
}

// TestGradConvTranspose2d checks the rule (input: Conv2d of dY; weights:
// x times its im2col matrix; bias: dY summed) against finite differences
// in float64, then float32 on every device.
func TestGradConvTranspose2d(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "ConvTranspose2d", in: []gcIn{gstd(2, 2, 3, 3), gstd(2, 3, 2, 2), gstd(3)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.ConvTranspose2d(x[0], x[1], x[2], tensor.ConvTranspose2dOptions{})
		}},
		{name: "ConvTranspose2d/stride2-padding-outpad", in: []gcIn{gstd(1, 2, 3, 4), gstd(2, 2, 3, 2), gstd(2)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.ConvTranspose2d(x[0], x[1], x[2], tensor.ConvTranspose2dOptions{Stride: [2]int{2, 2}, Padding: [2]int{1, 0}, OutputPadding: [2]int{1, 1}})
		}},
		{name: "ConvTranspose2d/stride3-dilation2", in: []gcIn{gstd(1, 2, 3, 2), gstd(2, 1, 2, 3)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.ConvTranspose2d(x[0], x[1], nil, tensor.ConvTranspose2dOptions{Stride: [2]int{3, 1}, Dilation: [2]int{2, 2}, OutputPadding: [2]int{2, 1}})
		}},
		{name: "ConvTranspose2d/groups2", in: []gcIn{gstd(2, 4, 3, 3), gstd(4, 2, 2, 2), gstd(4)}, f: func(x gcTs) *tensor.Tensor {
			return tensor.ConvTranspose2d(x[0], x[1], x[2], tensor.ConvTranspose2dOptions{Groups: 2, Stride: [2]int{2, 1}, Padding: [2]int{1, 1}})
		}},
	})
}

// TestConvTranspose2dErrors: bad shapes, dtypes and values give typed
// errors, never a panic.
func TestConvTranspose2dErrors(t *testing.T) {
	x := tensor.Ones(dtype.F32, 1, 2, 4, 4)
	w := tensor.Ones(dtype.F32, 2, 3, 3, 3)
	ct := func(x, w, b *tensor.Tensor, o tensor.ConvTranspose2dOptions) error {
		return tensor.ConvTranspose2d(x, w, b, o).Err()
	}
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"rank", ct(tensor.Ones(dtype.F32, 2, 4, 4), w, nil, tensor.ConvTranspose2dOptions{}), tensor.ErrShape},
		{"channels", ct(x, tensor.Ones(dtype.F32, 3, 3, 3, 3), nil, tensor.ConvTranspose2dOptions{}), tensor.ErrShape},
		{"groups", ct(x, w, nil, tensor.ConvTranspose2dOptions{Groups: 3}), tensor.ErrShape},
		{"negative groups", ct(x, w, nil, tensor.ConvTranspose2dOptions{Groups: -1}), tensor.ErrShape},
		{"bias shape", ct(x, w, tensor.Ones(dtype.F32, 2), tensor.ConvTranspose2dOptions{}), tensor.ErrShape},
		{"bias dtype", ct(x, w, tensor.Ones(dtype.F64, 3), tensor.ConvTranspose2dOptions{}), tensor.ErrDType},
		{"dtype", ct(x, tensor.Ones(dtype.F64, 2, 3, 3, 3), nil, tensor.ConvTranspose2dOptions{}), tensor.ErrDType},
		{"ints", ct(tensor.Ones(dtype.I32, 1, 2, 4, 4), tensor.Ones(dtype.I32, 2, 3, 3, 3), nil, tensor.ConvTranspose2dOptions{}), tensor.ErrDType},
		{"negative padding", ct(x, w, nil, tensor.ConvTranspose2dOptions{Padding: [2]int{-1, 0}}), tensor.ErrValue},
		{"negative stride", ct(x, w, nil, tensor.ConvTranspose2dOptions{Stride: [2]int{1, -2}}), tensor.ErrValue},
		{"negative output padding", ct(x, w, nil, tensor.ConvTranspose2dOptions{OutputPadding: [2]int{-1, 0}}), tensor.ErrValue},
		{"output padding = stride", ct(x, w, nil, tensor.ConvTranspose2dOptions{Stride: [2]int{2, 2}, OutputPadding: [2]int{0, 2}}), tensor.ErrValue},
		{"output padding unit stride", ct(x, w, nil, tensor.ConvTranspose2dOptions{OutputPadding: [2]int{1, 0}}), tensor.ErrValue},
		{"padding eats output", ct(x, w, nil, tensor.ConvTranspose2dOptions{Padding: [2]int{3, 0}}), tensor.ErrShape},
		{"empty kernel", ct(x, tensor.Ones(dtype.F32, 2, 3, 0, 3), nil, tensor.ConvTranspose2dOptions{}), tensor.ErrShape},
		{"empty input", ct(tensor.Ones(dtype.F32, 1, 2, 0, 4), w, nil, tensor.ConvTranspose2dOptions{}), tensor.ErrShape},
		// Sizes whose products would overflow: typed errors, no panic.
		{"huge stride", ct(x, w, nil, tensor.ConvTranspose2dOptions{Stride: [2]int{1 << 62, 1}}), tensor.ErrShape},
		{"huge dilation", ct(x, w, nil, tensor.ConvTranspose2dOptions{Dilation: [2]int{1, 1 << 40}}), tensor.ErrShape},
		{"huge padding", ct(x, w, nil, tensor.ConvTranspose2dOptions{Padding: [2]int{1 << 62, 0}}), tensor.ErrShape},
	} {
		if c.err == nil || !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
}

// ExampleConvTranspose2d doubles a 2x2 image with a stride-2, 2x2 kernel
// of ones: each input pixel becomes a 2x2 block.
func ExampleConvTranspose2d() {
	x := tensor.FromSlice([]float32{1, 2, 3, 4}, 1, 1, 2, 2)
	w := tensor.Ones(dtype.F32, 1, 1, 2, 2)
	y := tensor.ConvTranspose2d(x, w, nil, tensor.ConvTranspose2dOptions{Stride: [2]int{2, 2}})
	fmt.Println(y.Shape())
	v, _ := tensor.ToSlice[float32](y)
	fmt.Println(v)
	// Output:
	// [1 1 4 4]
	// [1 1 2 2 1 1 2 2 3 3 4 4 3 3 4 4]
}

// BenchmarkConvTranspose2d times a decoder's upsampling step on the CPU
// (batch 8, 64 to 32 channels, 28x28 to 56x56, 3x3, stride 2, padding 1,
// output padding 1, f32) next to the GEMM of the same useful work
// (6272x64 times 64x288, the product a col2im formulation would multiply)
// in the same run, and reports both rates, counting useful
// multiply-adds only, and their ratio.
func BenchmarkConvTranspose2d(b *testing.B) {
	const n, c, h, w, oc = 8, 64, 28, 28, 32
	opt := tensor.ConvTranspose2dOptions{Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, OutputPadding: [2]int{1, 1}}
	x := tensor.RandN(dtype.F32, 1, n, c, h, w)
	k := tensor.RandN(dtype.F32, 2, c, oc, 3, 3)
	a := tensor.RandN(dtype.F32, 3, n*h*w, c)
	m := tensor.RandN(dtype.F32, 4, c, oc*9)
	flop := 2.0 * n * h * w * oc * c * 9
	var convT, gemmT float64
	for b.Loop() {
		start := time.Now()
		if err := tensor.ConvTranspose2d(x, k, nil, opt).Err(); err != nil {
			b.Fatal(err)
		}
		convT += time.Since(start).Seconds()
		start = time.Now()
		if err := a.Matmul(m).Err(); err != nil {
			b.Fatal(err)
		}
		gemmT += time.Since(start).Seconds()
	}
	b.ReportMetric(flop*float64(b.N)/convT/1e9, "convT-GFLOP/s")
	b.ReportMetric(flop*float64(b.N)/gemmT/1e9, "gemm-GFLOP/s")
	b.ReportMetric(gemmT/convT, "convT/gemm")
}
