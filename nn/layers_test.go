package nn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// The float64 references below are written as loops over slices, not with
// tensor operations, so they check the layers independently.

// refLinear is y[r][o] = b[o] + Σ_i x[r][i]·w[o][i].
func refLinear(x, w, b []float64, rows, in, out int) []float64 {
	y := make([]float64, rows*out)
	for r := range rows {
		for o := range out {
			s := 0.0
			if b != nil {
				s = b[o]
			}
			for i := range in {
				s += x[r*in+i] * w[o*in+i]
			}
			y[r*out+o] = s
		}
	}
	return y
}

// refConv2d is PyTorch's conv2d written out, zero padding included.
func refConv2d(x, w, b []float64, n, c, h, wd, oc, kh, kw int, o tensor.Conv2dOptions) ([]float64, int, int) {
	s, p, d, g := o.Stride, o.Padding, o.Dilation, max(o.Groups, 1)
	for i := range 2 {
		s[i], d[i] = max(s[i], 1), max(d[i], 1)
	}
	oh := (h+2*p[0]-d[0]*(kh-1)-1)/s[0] + 1
	ow := (wd+2*p[1]-d[1]*(kw-1)-1)/s[1] + 1
	cg, og := c/g, oc/g
	y := make([]float64, n*oc*oh*ow)
	for ni := range n {
		for co := range oc {
			grp := co / og
			for yi := range oh {
				for xi := range ow {
					sum := 0.0
					if b != nil {
						sum = b[co]
					}
					for ci := range cg {
						for ki := range kh {
							for kj := range kw {
								r := yi*s[0] - p[0] + ki*d[0]
								q := xi*s[1] - p[1] + kj*d[1]
								if r < 0 || r >= h || q < 0 || q >= wd {
									continue
								}
								cin := grp*cg + ci
								sum += x[((ni*c+cin)*h+r)*wd+q] * w[((co*cg+ci)*kh+ki)*kw+kj]
							}
						}
					}
					y[((ni*oc+co)*oh+yi)*ow+xi] = sum
				}
			}
		}
	}
	return y, oh, ow
}

func TestLinearValues(t *testing.T) {
	l := nn.NewLinear(4, 3, nn.DType(dtype.F64), nn.Seed(7))
	x, xv := randn(t, 1, 2, 5, 4) // two leading batch axes
	y := l.Forward(x)
	shapeOf(t, y, 2, 5, 3)
	want := refLinear(xv, vals(t, l.Weight.Value), vals(t, l.Bias.Value), 10, 4, 3)
	near(t, "Linear", vals(t, y), want, 1e-12, 1e-12)

	nb := nn.NewLinear(4, 3, nn.DType(dtype.F64), nn.NoBias())
	if nb.Bias != nil || len(nb.Parameters()) != 1 {
		t.Fatal("NoBias left a bias")
	}
	x1, x1v := randn(t, 2, 4) // a single sample without batch axis
	y1 := nb.Forward(x1)
	shapeOf(t, y1, 3)
	near(t, "Linear rank 1", vals(t, y1), refLinear(x1v, vals(t, nb.Weight.Value), nil, 1, 4, 3), 1e-12, 1e-12)
}

func TestConv2dValues(t *testing.T) {
	cases := []struct {
		c, oc, h, w, kh, kw int
		opt                 tensor.Conv2dOptions
		bias                bool
	}{
		{1, 2, 5, 5, 3, 3, tensor.Conv2dOptions{}, true},
		{3, 4, 6, 7, 3, 2, tensor.Conv2dOptions{Stride: [2]int{2, 1}, Padding: [2]int{1, 2}}, true},
		{2, 2, 7, 7, 3, 3, tensor.Conv2dOptions{Dilation: [2]int{2, 2}, Padding: [2]int{1, 1}}, false},
		{4, 6, 5, 5, 1, 3, tensor.Conv2dOptions{Groups: 2, Stride: [2]int{1, 2}}, true},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			opts := []nn.Option{nn.DType(dtype.F64), nn.Seed(uint64(i))}
			if !tc.bias {
				opts = append(opts, nn.NoBias())
			}
			l := nn.NewConv2d(tc.c, tc.oc, [2]int{tc.kh, tc.kw}, tc.opt, opts...)
			x, xv := randn(t, uint64(10+i), 2, tc.c, tc.h, tc.w)
			var bv []float64
			if tc.bias {
				bv = vals(t, l.Bias.Value)
			}
			want, oh, ow := refConv2d(xv, vals(t, l.Weight.Value), bv, 2, tc.c, tc.h, tc.w, tc.oc, tc.kh, tc.kw, tc.opt)
			y := l.Forward(x)
			shapeOf(t, y, 2, tc.oc, oh, ow)
			near(t, "Conv2d", vals(t, y), want, 1e-12, 1e-12)
		})
	}
}

func TestPoolValues(t *testing.T) {
	x, xv := randn(t, 3, 2, 3, 6, 5)
	// Reference: 2x2 windows, stride 2, no padding (the last column drops).
	wantMax, wantAvg := make([]float64, 0), make([]float64, 0)
	for nc := range 6 {
		for i := range 3 {
			for j := range 2 {
				m, s := math.Inf(-1), 0.0
				for a := range 2 {
					for b := range 2 {
						v := xv[nc*30+(2*i+a)*5+2*j+b]
						m, s = math.Max(m, v), s+v
					}
				}
				wantMax, wantAvg = append(wantMax, m), append(wantAvg, s/4)
			}
		}
	}
	mp := nn.MaxPool2d{Kernel: [2]int{2, 2}}.Forward(x)
	shapeOf(t, mp, 2, 3, 3, 2)
	near(t, "MaxPool2d", vals(t, mp), wantMax, 0, 0)
	ap := nn.AvgPool2d{Kernel: [2]int{2, 2}}.Forward(x)
	shapeOf(t, ap, 2, 3, 3, 2)
	near(t, "AvgPool2d", vals(t, ap), wantAvg, 1e-15, 1e-15)

	f := nn.Flatten{}.Forward(mp)
	shapeOf(t, f, 2, 18)
	near(t, "Flatten", vals(t, f), wantMax, 0, 0)
}

func TestLayerNormValues(t *testing.T) {
	ln := nn.NewLayerNorm([]int{3, 4}, nn.DType(dtype.F64), nn.Eps(1e-3))
	// Non-trivial affine parameters, so that the test sees them.
	w, wv := randn(t, 5, 3, 4)
	b, bv := randn(t, 6, 3, 4)
	ln.Weight.Set(w)
	ln.Bias.Set(b)
	x, xv := randn(t, 4, 2, 3, 4)
	want := make([]float64, len(xv))
	for r := range 2 {
		row := xv[r*12 : r*12+12]
		mean, v := 0.0, 0.0
		for _, e := range row {
			mean += e / 12
		}
		for _, e := range row {
			v += (e - mean) * (e - mean) / 12
		}
		for i, e := range row {
			want[r*12+i] = (e-mean)/math.Sqrt(v+1e-3)*wv[i] + bv[i]
		}
	}
	near(t, "LayerNorm", vals(t, ln.Forward(x)), want, 1e-12, 1e-12)

	plain := nn.NewLayerNorm([]int{4}, nn.DType(dtype.F64), nn.NoAffine())
	if len(plain.Parameters()) != 0 {
		t.Fatal("NoAffine left parameters")
	}
	y := vals(t, plain.Forward(x).Mean(-1))
	near(t, "LayerNorm mean", y, make([]float64, 6), 0, 1e-12)
}

func TestEmbeddingValues(t *testing.T) {
	e := nn.NewEmbedding(5, 3, nn.DType(dtype.F64), nn.Seed(1))
	wv := vals(t, e.Weight.Value)
	for _, dt := range []dtype.DType{dtype.I64, dtype.I32, dtype.U8} {
		idx := tensor.FromSlice([]int64{4, 0, 4, 2, 1, 3}, 2, 3).Cast(dt)
		y := e.Forward(idx)
		shapeOf(t, y, 2, 3, 3)
		var want []float64
		for _, i := range []int{4, 0, 4, 2, 1, 3} {
			want = append(want, wv[i*3:i*3+3]...)
		}
		near(t, "Embedding "+dt.String(), vals(t, y), want, 0, 0)
	}
}

func TestActivations(t *testing.T) {
	x, xv := randn(t, 9, 4, 8)
	x = x.MulScalar(3)
	for i := range xv {
		xv[i] *= 3
	}
	cases := []struct {
		m   nn.Module
		ref func(float64) float64
	}{
		{nn.ReLU{}, func(v float64) float64 { return math.Max(v, 0) }},
		{nn.GELU{}, func(v float64) float64 { return v * (1 + math.Erf(v/math.Sqrt2)) / 2 }},
		{nn.GELU{Approximate: true}, func(v float64) float64 {
			return v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v))) / 2
		}},
		{nn.SiLU{}, func(v float64) float64 { return v / (1 + math.Exp(-v)) }},
		{nn.Tanh{}, math.Tanh},
		{nn.Sigmoid{}, func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }},
	}
	for _, tc := range cases {
		want := make([]float64, len(xv))
		for i, v := range xv {
			want[i] = tc.ref(v)
		}
		near(t, fmt.Sprintf("%T", tc.m), vals(t, tc.m.Forward(x)), want, 1e-13, 1e-14)
		if tc.m.Parameters() != nil {
			t.Errorf("%T has parameters", tc.m)
		}
	}
}

func TestDropout(t *testing.T) {
	x := tensor.Ones(dtype.F64, 100, 100)
	d := nn.NewDropout(0.25, 42)
	a := vals(t, d.Forward(x))
	zeros := 0
	for _, v := range a {
		switch v {
		case 0:
			zeros++
		case 1 / 0.75:
		default:
			t.Fatalf("dropout produced %v, want 0 or %v", v, 1/0.75)
		}
	}
	// 10,000 Bernoulli(0.25) draws: the count is within 5 standard deviations.
	if math.Abs(float64(zeros)-2500) > 5*math.Sqrt(10000*0.25*0.75) {
		t.Errorf("dropped %d of 10000 at p = 0.25", zeros)
	}
	b := vals(t, d.Forward(x))
	if fmt.Sprint(a) == fmt.Sprint(b) {
		t.Error("two training passes drew the same mask")
	}
	again := nn.NewDropout(0.25, 42)
	near(t, "Dropout seeded", vals(t, again.Forward(x)), a, 0, 0)

	seq := nn.NewSequential(nn.NewLinear(100, 100, nn.DType(dtype.F64)), d)
	nn.SetTraining(seq, false)
	near(t, "Dropout eval", vals(t, d.Forward(x)), vals(t, x), 0, 0)
	nn.SetTraining(seq, true)
	if got := vals(t, d.Forward(x)); fmt.Sprint(got) == fmt.Sprint(vals(t, x)) {
		t.Error("Dropout back in training mode dropped nothing")
	}
	near(t, "Dropout p=0", vals(t, nn.NewDropout(0, 1).Forward(x)), vals(t, x), 0, 0)
}

func TestSequentialNames(t *testing.T) {
	inner := nn.NewSequential(nn.NewLinear(2, 3), nn.Tanh{})
	m := nn.NewSequential(nn.NewLinear(4, 2), nn.ReLU{}, inner, nn.NewLayerNorm([]int{3}))
	var names []string
	for _, p := range m.Parameters() {
		names = append(names, p.Name)
	}
	want := "[0.weight 0.bias 2.0.weight 2.0.bias 3.weight 3.bias]"
	if fmt.Sprint(names) != want {
		t.Errorf("names %v, want %s", names, want)
	}
	if n := nn.NumParams(m); n != 4*2+2+2*3+3+3+3 {
		t.Errorf("NumParams %d", n)
	}
	if len(m.Layers()) != 4 {
		t.Errorf("%d layers", len(m.Layers()))
	}
}
