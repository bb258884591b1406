package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// seq returns n deterministic values in [-1, 1).
func seq(n int, seed float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Sin(float64(i)*0.713+seed) * 0.999
	}
	return v
}

// refConv2d is a direct float64 cross-correlation loop, the reference.
func refConv2d(x []float64, n, c, h, w int, k []float64, oc, kh, kw int, bias []float64, o tensor.Conv2dOptions) ([]float64, int, int) {
	for i := range 2 {
		if o.Stride[i] == 0 {
			o.Stride[i] = 1
		}
		if o.Dilation[i] == 0 {
			o.Dilation[i] = 1
		}
	}
	if o.Groups == 0 {
		o.Groups = 1
	}
	cg := c / o.Groups
	oh := (h+2*o.Padding[0]-o.Dilation[0]*(kh-1)-1)/o.Stride[0] + 1
	ow := (w+2*o.Padding[1]-o.Dilation[1]*(kw-1)-1)/o.Stride[1] + 1
	out := make([]float64, n*oc*oh*ow)
	for b := range n {
		for q := range oc {
			g := q / (oc / o.Groups)
			for i := range oh {
				for j := range ow {
					s := 0.0
					if bias != nil {
						s = bias[q]
					}
					for ci := range cg {
						for u := range kh {
							for v := range kw {
								r := i*o.Stride[0] - o.Padding[0] + u*o.Dilation[0]
								col := j*o.Stride[1] - o.Padding[1] + v*o.Dilation[1]
								if r < 0 || r >= h || col < 0 || col >= w {
									continue
								}
								s += x[((b*c+g*cg+ci)*h+r)*w+col] * k[((q*cg+ci)*kh+u)*kw+v]
							}
						}
					}
					out[((b*oc+q)*oh+i)*ow+j] = s
				}
			}
		}
	}
	return out, oh, ow
}

// refConv2dGrads returns the gradients of refConv2d's input and kernel
// given the output's gradient gs ([n, oc, oh, ow]), as float64 sums
// written out: each output element's gradient times the input element and
// the kernel tap it met.
func refConv2dGrads(xs, ks, gs []float64, n, c, h, w, oc, kh, kw, oh, ow int, o tensor.Conv2dOptions) (dx, dk []float64) {
	g := max(o.Groups, 1)
	cg, og := c/g, oc/g
	s, p, d := o.Stride, o.Padding, o.Dilation
	for i := range 2 {
		s[i], d[i] = max(s[i], 1), max(d[i], 1)
	}
	dx, dk = make([]float64, len(xs)), make([]float64, len(ks))
	for b := range n {
		for q := range oc {
			gi := q / og
			for i := range oh {
				for j := range ow {
					gv := gs[((b*oc+q)*oh+i)*ow+j]
					for cc := range cg {
						for u := range kh {
							for v := range kw {
								r, col := i*s[0]-p[0]+u*d[0], j*s[1]-p[1]+v*d[1]
								if r < 0 || r >= h || col < 0 || col >= w {
									continue
								}
								xi := ((b*c+gi*cg+cc)*h+r)*w + col
								wi := ((q*cg+cc)*kh+u)*kw + v
								dk[wi] += gv * xs[xi]
								dx[xi] += gv * ks[wi]
							}
						}
					}
				}
			}
		}
	}
	return dx, dk
}

func readF64(t *testing.T, y *tensor.Tensor) []float64 {
	t.Helper()
	v, err := tensor.ToSlice[float64](y.To(device.CPU()).Cast(dtype.F64))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestConv2d compares Conv2d with the direct loop on every device and float
// dtype, over strides, padding, dilation, groups, bias and a transposed
// input view.
func TestConv2d(t *testing.T) {
	cases := []struct {
		n, c, h, w, oc, kh, kw int
		opt                    tensor.Conv2dOptions
		bias                   bool
	}{
		{1, 1, 5, 5, 1, 3, 3, tensor.Conv2dOptions{}, false},
		{2, 3, 7, 6, 4, 3, 3, tensor.Conv2dOptions{Padding: [2]int{1, 1}}, true},
		{2, 4, 9, 8, 6, 3, 2, tensor.Conv2dOptions{Stride: [2]int{2, 1}, Padding: [2]int{1, 0}, Dilation: [2]int{2, 1}}, true},
		{1, 4, 6, 6, 4, 3, 3, tensor.Conv2dOptions{Groups: 2, Padding: [2]int{1, 1}}, false},
		{1, 4, 6, 6, 4, 1, 1, tensor.Conv2dOptions{Groups: 4}, true},
		{3, 2, 4, 4, 5, 4, 4, tensor.Conv2dOptions{}, true},
		// The CPU's implicit GEMM at its boundaries: K = 270 spans two k
		// blocks, 15 output channels end in a partial row panel, 63
		// pixels a partial column panel whose panels span several rows.
		{2, 30, 9, 7, 15, 3, 3, tensor.Conv2dOptions{Padding: [2]int{1, 1}}, true},
		// 33 pixels to a row: a panel of 32 ends one short of a row.
		{1, 2, 20, 33, 3, 3, 3, tensor.Conv2dOptions{Padding: [2]int{1, 1}}, false},
		// Stride 2 with dilation 2 and padding 2.
		{1, 3, 11, 10, 5, 3, 3, tensor.Conv2dOptions{Stride: [2]int{2, 2}, Padding: [2]int{2, 2}, Dilation: [2]int{2, 2}}, true},
		// 1x1 kernels, stride 1 and 2.
		{2, 8, 6, 6, 16, 1, 1, tensor.Conv2dOptions{}, false},
		{1, 8, 7, 7, 4, 1, 1, tensor.Conv2dOptions{Stride: [2]int{2, 2}}, true},
		// Groups with stride and padding; depthwise.
		{2, 6, 8, 8, 9, 3, 3, tensor.Conv2dOptions{Groups: 3, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}}, true},
		{1, 5, 6, 6, 5, 3, 3, tensor.Conv2dOptions{Groups: 5, Padding: [2]int{1, 1}}, false},
		// Depthwise (the CPU's direct stencil): a channel multiplier of 2
		// with stride, padding and dilation; 5x5 over 40-pixel rows.
		{2, 4, 9, 8, 8, 3, 3, tensor.Conv2dOptions{Groups: 4, Stride: [2]int{2, 1}, Padding: [2]int{1, 2}, Dilation: [2]int{1, 2}}, true},
		{1, 3, 7, 40, 3, 5, 5, tensor.Conv2dOptions{Groups: 3, Padding: [2]int{2, 2}}, false},
		// Padding wider than the kernel: whole rows and runs of zeros.
		{1, 2, 4, 4, 3, 2, 2, tensor.Conv2dOptions{Padding: [2]int{3, 3}}, false},
		// One-pixel-wide rows: every pixel of a panel is its own run.
		{2, 3, 40, 1, 4, 3, 1, tensor.Conv2dOptions{Padding: [2]int{1, 0}}, true},
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			if !computes(dev, dt) {
				continue
			}
			tol := map[dtype.DType]float64{dtype.F32: 2e-5, dtype.F64: 1e-12}[dt]
			for ci, c := range cases {
				xs := seq(c.n*c.c*c.h*c.w, float64(ci))
				g := max(c.opt.Groups, 1)
				ks := seq(c.oc*(c.c/g)*c.kh*c.kw, float64(ci)+0.5)
				var bs []float64
				var bias *tensor.Tensor
				if c.bias {
					bs = seq(c.oc, 3)
					bias = tensor.FromSlice(bs).Cast(dt).To(dev)
				}
				want, oh, ow := refConv2d(xs, c.n, c.c, c.h, c.w, ks, c.oc, c.kh, c.kw, bs, c.opt)
				x := tensor.FromSlice(xs, c.n, c.c, c.h, c.w).Cast(dt).To(dev)
				// The same input read through a transposed view.
				xt := tensor.FromSlice(xs, c.n, c.c, c.h, c.w).Permute(0, 1, 3, 2).Contiguous().Cast(dt).To(dev).Permute(0, 1, 3, 2)
				// And through a view whose rows are longer than its width
				// (a narrowed wider input: row stride w+3).
				xn := tensor.Concat([]*tensor.Tensor{tensor.Zeros(dt, c.n, c.c, c.h, 1).To(dev), x, tensor.Zeros(dt, c.n, c.c, c.h, 2).To(dev)}, 3).Narrow(3, 1, c.w)
				k := tensor.FromSlice(ks, c.oc, c.c/g, c.kh, c.kw).Cast(dt).To(dev)
				for vi, in := range []*tensor.Tensor{x, xt, xn} {
					y := tensor.Conv2d(in, k, bias, c.opt)
					name := fmt.Sprintf("%s %v case %d view %d", dev.Name(), dt, ci, vi)
					if s := y.Shape(); len(s) != 4 || s[0] != c.n || s[1] != c.oc || s[2] != oh || s[3] != ow {
						t.Fatalf("%s: shape %v (%v), want [%d %d %d %d]", name, s, y.Err(), c.n, c.oc, oh, ow)
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
	x := tensor.Ones(dtype.F32, 1, 2, 4, 4)
	for name, err := range map[string]error{
		"rank":     tensor.Conv2d(tensor.Ones(dtype.F32, 2, 4, 4), tensor.Ones(dtype.F32, 1, 2, 3, 3), nil, tensor.Conv2dOptions{}).Err(),
		"channels": tensor.Conv2d(x, tensor.Ones(dtype.F32, 1, 3, 3, 3), nil, tensor.Conv2dOptions{}).Err(),
		"groups":   tensor.Conv2d(x, tensor.Ones(dtype.F32, 3, 1, 3, 3), nil, tensor.Conv2dOptions{Groups: 2}).Err(),
		"too big":  tensor.Conv2d(x, tensor.Ones(dtype.F32, 1, 2, 5, 5), nil, tensor.Conv2dOptions{}).Err(),
		"bias":     tensor.Conv2d(x, tensor.Ones(dtype.F32, 1, 2, 3, 3), tensor.Ones(dtype.F32, 2), tensor.Conv2dOptions{}).Err(),
		"dtype":    tensor.Conv2d(x, tensor.Ones(dtype.F64, 1, 2, 3, 3), nil, tensor.Conv2dOptions{}).Err(),
		"ints":     tensor.Conv2d(tensor.Ones(dtype.I32, 1, 2, 4, 4), tensor.Ones(dtype.I32, 1, 2, 3, 3), nil, tensor.Conv2dOptions{}).Err(),
		"negative": tensor.Conv2d(x, tensor.Ones(dtype.F32, 1, 2, 3, 3), nil, tensor.Conv2dOptions{Padding: [2]int{-1, 0}}).Err(),
		// Sizes whose products would overflow: typed errors, no panic.
		"huge dilation":      tensor.Conv2d(x, tensor.Ones(dtype.F32, 1, 2, 5, 5), nil, tensor.Conv2dOptions{Dilation: [2]int{1 << 62, 1}, Padding: [2]int{2, 2}}).Err(),
		"huge padding":       tensor.Conv2d(x, tensor.Ones(dtype.F32, 1, 2, 3, 3), nil, tensor.Conv2dOptions{Padding: [2]int{1 << 40, 1 << 40}}).Err(),
		"pool huge dilation": tensor.MaxPool2d(x, tensor.Pool2dOptions{Kernel: [2]int{3, 3}, Dilation: [2]int{1 << 62, 1}}).Err(),
		"pool huge padding":  tensor.AvgPool2d(x, tensor.Pool2dOptions{Kernel: [2]int{1 << 40, 1 << 40}, Padding: [2]int{1 << 39, 1 << 39}}).Err(),
		"pool rank":          tensor.MaxPool2d(tensor.Ones(dtype.F32, 4, 4), tensor.Pool2dOptions{Kernel: [2]int{2, 2}}).Err(),
		"pool zero":          tensor.MaxPool2d(x, tensor.Pool2dOptions{}).Err(),
		"pad pairs":          x.Pad([][2]int{{1, 1}}, tensor.PadConstant, 0).Err(),
		"reflect":            x.Pad([][2]int{{0, 0}, {0, 0}, {4, 0}, {0, 0}}, tensor.PadReflect, 0).Err(),
	} {
		if err == nil || !(errors.Is(err, tensor.ErrShape) || errors.Is(err, tensor.ErrDType) || errors.Is(err, tensor.ErrValue)) {
			t.Errorf("%s: %v, want a typed error", name, err)
		}
	}
}

// TestConv1d checks Conv1d against the 2-D loop with a unit second axis.
func TestConv1d(t *testing.T) {
	for _, dev := range testDevices(t) {
		xs, ks := seq(2*3*11, 1), seq(4*3*3, 2)
		opt := tensor.Conv2dOptions{Stride: [2]int{2, 0}, Padding: [2]int{1, 0}, Dilation: [2]int{2, 0}}
		want, _, _ := refConv2d(xs, 2, 3, 11, 1, ks, 4, 3, 1, nil, opt)
		y := tensor.Conv1d(tensor.FromSlice(xs, 2, 3, 11).Cast(dtype.F32).To(dev), tensor.FromSlice(ks, 4, 3, 3).Cast(dtype.F32).To(dev), nil, opt)
		got := readF64(t, y)
		if len(got) != len(want) {
			t.Fatalf("%s: %d values (%v), want %d", dev.Name(), len(got), y.Err(), len(want))
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 2e-5*(1+math.Abs(want[i])) {
				t.Fatalf("%s: element %d = %v, want %v", dev.Name(), i, got[i], want[i])
			}
		}
	}
}

// TestPool2dAndPad checks MaxPool2d, AvgPool2d and every Pad mode against
// direct loops on every device.
func TestPool2dAndPad(t *testing.T) {
	n, c, h, w := 2, 3, 7, 6
	xs := seq(n*c*h*w, 4)
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice(xs, n, c, h, w).Cast(dtype.F32).To(dev)
		for _, opt := range []tensor.Pool2dOptions{
			{Kernel: [2]int{2, 2}},
			{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}},
			{Kernel: [2]int{3, 2}, Stride: [2]int{1, 2}, Dilation: [2]int{2, 1}},
			// Windows that tile the input (the view-and-fold path): padded,
			// and with rows left over.
			{Kernel: [2]int{2, 2}, Padding: [2]int{1, 1}},
			{Kernel: [2]int{3, 2}, Padding: [2]int{1, 0}},
		} {
			k, s, p, d := opt.Kernel, opt.Stride, opt.Padding, opt.Dilation
			if s == [2]int{} {
				s = k
			}
			if d == [2]int{} {
				d = [2]int{1, 1}
			}
			oh := (h+2*p[0]-d[0]*(k[0]-1)-1)/s[0] + 1
			ow := (w+2*p[1]-d[1]*(k[1]-1)-1)/s[1] + 1
			gotMax := readF64(t, tensor.MaxPool2d(x, opt))
			var gotAvg []float64
			if d == [2]int{1, 1} {
				gotAvg = readF64(t, tensor.AvgPool2d(x, opt))
			}
			for b := range n * c {
				for i := range oh {
					for j := range ow {
						mx, sum := math.Inf(-1), 0.0
						for u := range k[0] {
							for v := range k[1] {
								r, col := i*s[0]-p[0]+u*d[0], j*s[1]-p[1]+v*d[1]
								if r < 0 || r >= h || col < 0 || col >= w {
									continue
								}
								val := float64(float32(xs[(b*h+r)*w+col]))
								mx = math.Max(mx, val)
								sum += val
							}
						}
						at := (b*oh+i)*ow + j
						if gotMax[at] != mx {
							t.Fatalf("%s MaxPool2d %+v: element %d = %v, want %v", dev.Name(), opt, at, gotMax[at], mx)
						}
						if gotAvg != nil && math.Abs(gotAvg[at]-sum/float64(k[0]*k[1])) > 1e-6 {
							t.Fatalf("%s AvgPool2d %+v: element %d = %v, want %v", dev.Name(), opt, at, gotAvg[at], sum/float64(k[0]*k[1]))
						}
					}
				}
			}
		}
		row := tensor.FromSlice([]float32{1, 2, 3, 4}).To(dev)
		for _, c := range []struct {
			mode  tensor.PadMode
			width [2]int
			want  []float64
		}{
			{tensor.PadConstant, [2]int{2, 1}, []float64{9, 9, 1, 2, 3, 4, 9}},
			{tensor.PadReflect, [2]int{2, 3}, []float64{3, 2, 1, 2, 3, 4, 3, 2, 1}},
			{tensor.PadReplicate, [2]int{1, 2}, []float64{1, 1, 2, 3, 4, 4, 4}},
		} {
			got := readF64(t, row.Pad([][2]int{c.width}, c.mode, 9))
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s Pad mode %d %v = %v, want %v", dev.Name(), c.mode, c.width, got, c.want)
			}
		}
	}
}

// BenchmarkConv2d times the reference convolution on the CPU (batch
// 32, 64 to 64 channels, 56x56, 3x3, stride 1, padding 1, f32) next to the
// GEMM of its im2col shape (100352x576 times 576x64) in the same run, and
// reports both rates and their ratio: forward alone against one GEMM, and
// forward plus backward (input and weight gradients) against three, one
// per pass of the same size. stride2 is a downsampling layer (64 to 128
// channels, 56x56 to 28x28, 3x3, stride 2, padding 1) against its GEMM
// (25088x576 times 576x128).
func BenchmarkConv2d(b *testing.B) {
	const n, c, h, w = 32, 64, 56, 56
	x := tensor.RandN(dtype.F32, 1, n, c, h, w)
	for _, pass := range []struct {
		name       string
		oc, stride int
		passes     int
	}{{"forward", 64, 1, 1}, {"train", 64, 1, 3}, {"stride2", 128, 2, 1}} {
		b.Run(pass.name, func(b *testing.B) {
			oc, oh, ow := pass.oc, h/pass.stride, w/pass.stride
			k := tensor.RandN(dtype.F32, 2, oc, c, 3, 3)
			a := tensor.RandN(dtype.F32, 3, n*oh*ow, c*9)
			m := tensor.RandN(dtype.F32, 4, c*9, oc)
			gy := tensor.RandN(dtype.F32, 5, n, oc, oh, ow) // the output's gradient
			opt := tensor.Conv2dOptions{Padding: [2]int{1, 1}, Stride: [2]int{pass.stride, pass.stride}}
			flop := float64(pass.passes) * 2.0 * float64(n*oh*ow*oc*c*9)
			var convT, gemmT, convCPU, gemmCPU float64
			for b.Loop() {
				start, cpu0 := time.Now(), cpuSeconds()
				convPass(b, x, k, gy, opt, pass.passes > 1)
				convT += time.Since(start).Seconds()
				convCPU += cpuSeconds() - cpu0
				start, cpu0 = time.Now(), cpuSeconds()
				for range pass.passes {
					if err := a.Matmul(m).Err(); err != nil {
						b.Fatal(err)
					}
				}
				gemmT += time.Since(start).Seconds()
				gemmCPU += cpuSeconds() - cpu0
			}
			b.ReportMetric(flop*float64(b.N)/convT/1e9, "conv-GFLOP/s")
			b.ReportMetric(flop*float64(b.N)/gemmT/1e9, "gemm-GFLOP/s")
			b.ReportMetric(gemmT/convT, "conv/gemm")
			// The same ratio in processor time (all threads), which other
			// work on a shared machine disturbs less than wall time.
			b.ReportMetric(gemmCPU/convCPU, "conv/gemm-cpu")
			b.ReportMetric(convCPU/float64(b.N)*1e3, "cpu-ms/op")
		})
	}
}

// convPass runs one convolution of a benchmark: the forward pass, or with
// train the forward pass and both gradients for the seed gy.
func convPass(b *testing.B, x, k, gy *tensor.Tensor, opt tensor.Conv2dOptions, train bool) {
	if !train {
		y := tensor.Conv2d(x, k, nil, opt)
		if err := y.Err(); err != nil {
			b.Fatal(err)
		}
		y.Release()
		return
	}
	xg, kg := x.Detach().RequiresGrad(), k.Detach().RequiresGrad()
	if err := tensor.Conv2d(xg, kg, nil, opt).BackwardWith(gy); err != nil {
		b.Fatal(err)
	}
	if err := errors.Join(xg.Grad().Err(), kg.Grad().Err()); err != nil {
		b.Fatal(err)
	}
	xg.Grad().Release()
	kg.Grad().Release()
}

// BenchmarkConv2dDepthwise times a depthwise 3x3 convolution (batch 32, 64
// channels, 56x56, padding 1; the CPU's direct stencil), forward, forward
// with both gradients, and at stride 2, against the anchor such a memory-
// bound stencil has: copying the bytes it must move (the input read and
// the output written, per pass) in the same iterations. GB/s counts those
// bytes; x-copy is the copy's time over the convolution's (1 would be a
// stencil as fast as a copy of its operands).
func BenchmarkConv2dDepthwise(b *testing.B) {
	const n, c, h, w = 32, 64, 56, 56
	x := tensor.RandN(dtype.F32, 1, n, c, h, w)
	k := tensor.RandN(dtype.F32, 2, c, 1, 3, 3)
	for _, pass := range []struct {
		name           string
		stride, passes int
	}{{"forward", 1, 1}, {"train", 1, 3}, {"stride2", 2, 1}} {
		b.Run(pass.name, func(b *testing.B) {
			oh, ow := h/pass.stride, w/pass.stride
			gy := tensor.RandN(dtype.F32, 5, n, c, oh, ow)
			opt := tensor.Conv2dOptions{Padding: [2]int{1, 1}, Stride: [2]int{pass.stride, pass.stride}, Groups: c}
			elems := pass.passes * (n*c*h*w + n*c*oh*ow)
			src, dst := make([]float32, elems/2), make([]float32, elems/2)
			var convT, copyT float64
			for b.Loop() {
				start := time.Now()
				convPass(b, x, k, gy, opt, pass.passes > 1)
				convT += time.Since(start).Seconds()
				start = time.Now()
				copy(dst, src)
				copyT += time.Since(start).Seconds()
			}
			b.ReportMetric(float64(4*elems)*float64(b.N)/convT/1e9, "GB/s")
			b.ReportMetric(2*9*float64(pass.passes*n*c*oh*ow)*float64(b.N)/convT/1e9, "GFLOP/s")
			b.ReportMetric(copyT/convT, "x-copy")
		})
	}
}

// TestMaxPool2dTies checks the gradient of a max pool whose windows tile
// the input where a window's maximum is reached more than once: as in
// PyTorch, it goes whole to the first element (row-major) equal to the
// maximum; a NaN in a window wins the forward pass, and the window's
// gradient goes to its last NaN.
func TestMaxPool2dTies(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			if !computes(dev, dt) {
				continue
			}
			x := tensor.FromSlice([]float64{
				1, 1, 5, 4, 7, 7,
				0, 1, 2, 3, 7, 7,
			}, 1, 1, 2, 6).Cast(dt).To(dev).RequiresGrad()
			y := tensor.MaxPool2d(x, tensor.Pool2dOptions{Kernel: [2]int{2, 2}})
			if got := readF64(t, y); fmt.Sprint(got) != "[1 5 7]" {
				t.Fatalf("%s %v MaxPool2d = %v, want [1 5 7]", dev.Name(), dt, got)
			}
			seed := tensor.FromSlice([]float64{3, 2, 4}, 1, 1, 1, 3).Cast(dt).To(dev)
			if err := y.BackwardWith(seed); err != nil {
				t.Fatal(err)
			}
			want := []float64{3, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0}
			got := readF64(t, x.Grad())
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-6 {
					t.Fatalf("%s %v: gradient %v, want %v", dev.Name(), dt, got, want)
				}
			}
		}
		nan := float32(math.NaN())
		x := tensor.FromSlice([]float32{1, nan, 2, nan, nan, 9, 4, 4}, 1, 1, 2, 4).To(dev).RequiresGrad()
		y := tensor.MaxPool2d(x, tensor.Pool2dOptions{Kernel: [2]int{2, 2}})
		if got := readF64(t, y); !math.IsNaN(got[0]) || !math.IsNaN(got[1]) {
			t.Errorf("%s: MaxPool2d of windows holding NaN = %v, want NaN", dev.Name(), got)
		}
		if err := y.BackwardWith(tensor.FromSlice([]float32{5, -6}, 1, 1, 1, 2).To(dev)); err != nil {
			t.Fatal(err)
		}
		// The first window's NaNs are its elements 1 and 2 (row-major):
		// the last is x's element 4. The second's only NaN is x's 3.
		if got, want := readF64(t, x.Grad()), []float64{0, 0, 0, -6, 5, 0, 0, 0}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: gradient through NaN windows %v, want %v", dev.Name(), got, want)
		}
	}
}

// TestMaxPool2dOverlapTies checks the gradient of max pools whose windows
// overlap (3x3, stride 1 and stride 2 with padding; the fused fold over
// shifted windows) on values full of ties, against a float64 loop that
// scans each window as PyTorch's max_pool2d does (the first strict
// maximum of the window's input elements, row-major, gets the output's
// gradient), an element in several windows adding them up. A NaN wins
// every window it is in.
func TestMaxPool2dOverlapTies(t *testing.T) {
	const h, w = 5, 6
	ties := make([]float64, h*w)
	for i := range ties {
		ties[i] = float64((i * 7) % 4) // values 0..3: many ties
	}
	// -Inf over the top-left 3x3 and the bottom row: windows of nothing
	// but -Inf and padding, whose gradient PyTorch sends to their first
	// input element (its scan starts there), not to the padding.
	negInf := slices.Clone(ties)
	for r := range h {
		for c := range w {
			if r < 3 && c < 3 || r == h-1 {
				negInf[r*w+c] = math.Inf(-1)
			}
		}
	}
	outSize := func(n, k, s, p, d int, ceil bool) int {
		span := n + 2*p - d*(k-1) - 1
		o := span/s + 1
		if ceil && span%s != 0 {
			if o++; (o-1)*s >= n+p {
				o--
			}
		}
		return o
	}
	for _, dev := range testDevices(t) {
		for _, opt := range []tensor.Pool2dOptions{
			{Kernel: [2]int{3, 3}, Stride: [2]int{1, 1}},
			{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}},
			{Kernel: [2]int{2, 2}, Padding: [2]int{1, 1}}, // tiles with padding
			{Kernel: [2]int{3, 2}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, CeilMode: true},
			{Kernel: [2]int{2, 3}, Stride: [2]int{1, 1}, Padding: [2]int{1, 1}, Dilation: [2]int{2, 1}},
		} {
			for _, xs := range [][]float64{ties, negInf} {
				k, st, p, d := opt.Kernel, opt.Stride, opt.Padding, opt.Dilation
				if st == [2]int{} {
					st = k
				}
				if d == [2]int{} {
					d = [2]int{1, 1}
				}
				oh, ow := outSize(h, k[0], st[0], p[0], d[0], opt.CeilMode), outSize(w, k[1], st[1], p[1], d[1], opt.CeilMode)
				gs := seq(oh*ow, 2)
				want := make([]float64, h*w)
				for i := range oh {
					for j := range ow {
						mx, at := math.Inf(-1), -1
						for u := range k[0] {
							for v := range k[1] {
								r, c := i*st[0]-p[0]+u*d[0], j*st[1]-p[1]+v*d[1]
								if r < 0 || r >= h || c < 0 || c >= w {
									continue
								}
								if x := xs[r*w+c]; x > mx || math.IsNaN(x) || at < 0 {
									mx, at = x, r*w+c
								}
							}
						}
						want[at] += gs[i*ow+j]
					}
				}
				x := tensor.FromSlice(xs, 1, 1, h, w).Cast(dtype.F32).To(dev).RequiresGrad()
				y := tensor.MaxPool2d(x, opt)
				if err := y.BackwardWith(tensor.FromSlice(gs, 1, 1, oh, ow).Cast(dtype.F32).To(dev)); err != nil {
					t.Fatal(err)
				}
				got := readF64(t, x.Grad())
				for i := range want {
					if math.Abs(got[i]-want[i]) > 1e-5*(1+math.Abs(want[i])) {
						t.Fatalf("%s %+v: gradient element %d = %v, want %v", dev.Name(), opt, i, got[i], want[i])
					}
				}
			}
			k, st, p := opt.Kernel, opt.Stride, opt.Padding
			if st == [2]int{} {
				st = k
			}
			if opt.Dilation != [2]int{} || opt.CeilMode {
				continue // the NaN check below reads plain windows
			}
			oh, ow := (h+2*p[0]-k[0])/st[0]+1, (w+2*p[1]-k[1])/st[1]+1
			nan := slices.Clone(ties)
			nan[2*w+2] = math.NaN()
			got := readF64(t, tensor.MaxPool2d(tensor.FromSlice(nan, 1, 1, h, w).Cast(dtype.F32).To(dev), opt))
			for i := range oh {
				for j := range ow {
					r0, c0 := i*st[0]-p[0], j*st[1]-p[1]
					if in := r0 <= 2 && 2 < r0+k[0] && c0 <= 2 && 2 < c0+k[1]; in != math.IsNaN(got[i*ow+j]) {
						t.Fatalf("%s %v: output (%d, %d) = %v, NaN in its window: %v", dev.Name(), opt, i, j, got[i*ow+j], in)
					}
				}
			}
		}
	}
}

// TestConv2dGradients checks Conv2d's input and weight gradients, for a
// seed gradient gy, against float64 loops (dW = sum gy·x over images and
// pixels, dX the adjoint scatter) on every device, in F32 and F64: a
// case large enough for the CPU's weight gradient to gather each image's
// im2col matrix in several blocks, groups with stride, dilation and
// padding, 1x1 kernels, batch 1 with 33-pixel rows, and depthwise
// convolutions (the CPU's direct stencil and its own weight gradient).
func TestConv2dGradients(t *testing.T) {
	cases := []struct {
		n, c, h, w, oc, kh, kw int
		opt                    tensor.Conv2dOptions
	}{
		{2, 3, 52, 50, 4, 3, 3, tensor.Conv2dOptions{Padding: [2]int{1, 1}}},
		{2, 6, 9, 9, 4, 3, 3, tensor.Conv2dOptions{Groups: 2, Stride: [2]int{2, 2}, Dilation: [2]int{2, 2}, Padding: [2]int{2, 2}}},
		{3, 8, 5, 6, 16, 1, 1, tensor.Conv2dOptions{}},
		{1, 2, 6, 33, 15, 3, 3, tensor.Conv2dOptions{Padding: [2]int{1, 1}}},
		// Stride 1 with padding and 4 or more channels a group: the CPU's
		// weight gradient reads the padded rows in place (gemm.F32RowsA),
		// rows of 4 and 8 channels, with groups and dilation.
		{2, 8, 7, 9, 6, 3, 3, tensor.Conv2dOptions{Groups: 2, Padding: [2]int{1, 1}}},
		{2, 16, 6, 7, 8, 3, 2, tensor.Conv2dOptions{Padding: [2]int{2, 1}, Dilation: [2]int{2, 1}}},
		// Depthwise: a channel multiplier of 2 with stride and dilation,
		// and a plain 3x3 one.
		{2, 4, 10, 9, 8, 3, 3, tensor.Conv2dOptions{Groups: 4, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, Dilation: [2]int{1, 2}}},
		{1, 3, 12, 12, 3, 3, 3, tensor.Conv2dOptions{Groups: 3, Padding: [2]int{1, 1}}},
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			if !computes(dev, dt) {
				continue
			}
			tol := map[dtype.DType]float64{dtype.F32: 1e-4, dtype.F64: 1e-11}[dt]
			for ci, c := range cases {
				cg := c.c / max(c.opt.Groups, 1)
				xs, ks := seq(c.n*c.c*c.h*c.w, float64(ci)), seq(c.oc*cg*c.kh*c.kw, float64(ci)+0.25)
				_, oh, ow := refConv2d(xs[:c.c*c.h*c.w], 1, c.c, c.h, c.w, ks, c.oc, c.kh, c.kw, nil, c.opt)
				gs := seq(c.n*c.oc*oh*ow, float64(ci)+0.75)
				wantX, wantW := refConv2dGrads(xs, ks, gs, c.n, c.c, c.h, c.w, c.oc, c.kh, c.kw, oh, ow, c.opt)
				x := tensor.FromSlice(xs, c.n, c.c, c.h, c.w).Cast(dt).To(dev).RequiresGrad()
				k := tensor.FromSlice(ks, c.oc, cg, c.kh, c.kw).Cast(dt).To(dev).RequiresGrad()
				seed := tensor.FromSlice(gs, c.n, c.oc, oh, ow).Cast(dt).To(dev)
				if err := tensor.Conv2d(x, k, nil, c.opt).BackwardWith(seed); err != nil {
					t.Fatalf("%s %v case %d: %v", dev.Name(), dt, ci, err)
				}
				for name, pair := range map[string][2][]float64{"dX": {readF64(t, x.Grad()), wantX}, "dW": {readF64(t, k.Grad()), wantW}} {
					got, want := pair[0], pair[1]
					if len(got) != len(want) {
						t.Fatalf("%s %v case %d %s: %d values, want %d", dev.Name(), dt, ci, name, len(got), len(want))
					}
					for i := range want {
						if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
							t.Fatalf("%s %v case %d %s: element %d = %v, want %v", dev.Name(), dt, ci, name, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
