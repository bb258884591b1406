package nn_test

import (
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// checkGrads compares the gradients Backward puts into ps (all F64, on the
// CPU) with central finite differences of loss, element by element.
func checkGrads(t *testing.T, what string, ps []*nn.Parameter, loss func() *tensor.Tensor) {
	t.Helper()
	for _, p := range ps {
		p.ZeroGrad()
	}
	if err := loss().Backward(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	eval := func() float64 {
		v, err := loss().Item()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	const h = 1e-6
	for _, p := range ps {
		if p.Grad() == nil {
			t.Fatalf("%s: %s got no gradient", what, p.Name)
		}
		got := vals(t, p.Grad())
		orig, shape := p.Value, p.Value.Shape()
		v := vals(t, orig)
		want := make([]float64, len(v))
		for i := range v {
			x := v[i]
			v[i] = x + h
			p.Set(tensor.FromSlice(v, shape...))
			up := eval()
			v[i] = x - h
			p.Set(tensor.FromSlice(v, shape...))
			down := eval()
			v[i] = x
			want[i] = (up - down) / (2 * h)
		}
		p.Set(orig)
		near(t, what+" d/d"+p.Name, got, want, 1e-6, 1e-7)
	}
}

func TestGradients(t *testing.T) {
	f64 := nn.DType(dtype.F64)
	// Weighted sums, so each output element has its own gradient.
	wsum := func(y *tensor.Tensor, seed uint64) *tensor.Tensor {
		return y.Mul(tensor.RandN(dtype.F64, seed, y.Shape()...)).Sum()
	}

	lin := nn.NewLinear(4, 3, f64, nn.Seed(1))
	xl, _ := randn(t, 2, 2, 3, 4)
	checkGrads(t, "Linear", lin.Parameters(), func() *tensor.Tensor { return wsum(lin.Forward(xl), 3) })

	conv := nn.NewConv2d(4, 4, [2]int{3, 2}, tensor.Conv2dOptions{Stride: [2]int{2, 1}, Padding: [2]int{1, 1}, Groups: 2}, f64, nn.Seed(2))
	xc, _ := randn(t, 4, 2, 4, 5, 4)
	checkGrads(t, "Conv2d", conv.Parameters(), func() *tensor.Tensor { return wsum(conv.Forward(xc), 5) })

	ln := nn.NewLayerNorm([]int{2, 3}, f64)
	w, _ := randn(t, 6, 2, 3)
	ln.Weight.Set(w)
	xn := nn.NewParameter("x", tensor.RandN(dtype.F64, 7, 4, 2, 3))
	checkGrads(t, "LayerNorm", append(ln.Parameters(), xn), func() *tensor.Tensor { return wsum(ln.Forward(xn.Value), 8) })

	emb := nn.NewEmbedding(5, 3, f64, nn.Seed(3))
	idx := tensor.FromSlice([]int32{1, 4, 1, 1, 0}, 5) // repeats add up; row 2 and 3 get zero
	checkGrads(t, "Embedding", emb.Parameters(), func() *tensor.Tensor { return wsum(emb.Forward(idx), 9) })

	logits := nn.NewParameter("logits", tensor.RandN(dtype.F64, 10, 6, 5).MulScalar(3))
	labels := tensor.FromSlice([]int64{0, 4, 2, 2, 1, 3}, 6)
	checkGrads(t, "CrossEntropy", []*nn.Parameter{logits}, func() *tensor.Tensor { return nn.CrossEntropy(logits.Value, labels) })
	checkGrads(t, "CrossEntropySmoothed", []*nn.Parameter{logits}, func() *tensor.Tensor {
		return nn.CrossEntropySmoothed(logits.Value, labels, 0.1)
	})

	pred := nn.NewParameter("pred", tensor.RandN(dtype.F64, 11, 3, 4))
	target := nn.NewParameter("target", tensor.RandN(dtype.F64, 12, 3, 4))
	checkGrads(t, "MSE", []*nn.Parameter{pred, target}, func() *tensor.Tensor { return nn.MSE(pred.Value, target.Value) })

	// A whole model: gradients flow through every layer kind in a chain.
	mlp := nn.NewSequential(
		nn.NewConv2d(1, 2, [2]int{3, 3}, tensor.Conv2dOptions{Padding: [2]int{1, 1}}, f64, nn.Seed(4)),
		nn.GELU{}, nn.MaxPool2d{Kernel: [2]int{2, 2}}, nn.Flatten{},
		nn.NewLayerNorm([]int{8}, f64), nn.NewLinear(8, 3, f64, nn.Seed(5)), nn.SiLU{},
	)
	xm, _ := randn(t, 13, 3, 1, 4, 4)
	ym := tensor.FromSlice([]int64{2, 0, 1}, 3)
	checkGrads(t, "Sequential", mlp.Parameters(), func() *tensor.Tensor { return nn.CrossEntropy(mlp.Forward(xm), ym) })
}

// TestLossValues checks both losses against float64 loops, including
// logits far beyond exp's range.
func TestLossValues(t *testing.T) {
	refCE := func(z []float64, y []int, c int, s float64) float64 {
		total := 0.0
		for r, lab := range y {
			row := z[r*c : r*c+c]
			m := math.Inf(-1)
			for _, v := range row {
				m = math.Max(m, v)
			}
			se := 0.0
			for _, v := range row {
				se += math.Exp(v - m)
			}
			lse := m + math.Log(se)
			for k, v := range row {
				wt := s / float64(c)
				if k == lab {
					wt += 1 - s
				}
				total -= wt * (v - lse)
			}
		}
		return total / float64(len(y))
	}
	z, zv := randn(t, 1, 4, 7)
	labels := []int{6, 0, 3, 3}
	y := tensor.FromSlice([]int32{6, 0, 3, 3}, 4)
	for _, s := range []float64{0, 0.2, 1} {
		got, err := nn.CrossEntropySmoothed(z, y, s).Item()
		if err != nil {
			t.Fatal(err)
		}
		near(t, "CrossEntropy", []float64{got}, []float64{refCE(zv, labels, 7, s)}, 1e-13, 0)
	}

	// Stability: logits of ±1e4 in f32, whose exp overflows.
	big := []float32{1e4, -1e4, 0, 5e3, 1e4, 9999}
	bigv := make([]float64, len(big))
	for i, v := range big {
		bigv[i] = float64(v)
	}
	for _, dev := range testDevices(t) {
		lz := tensor.FromSlice(big, 2, 3).To(dev).RequiresGrad()
		loss := nn.CrossEntropy(lz, tensor.FromSlice([]int32{1, 2}, 2).To(dev))
		got, err := loss.Item()
		if err != nil {
			t.Fatal(err)
		}
		want := refCE(bigv, []int{1, 2}, 3, 0)
		near(t, "CrossEntropy at 1e4 on "+dev.Name(), []float64{got}, []float64{want}, 1e-6, 0)
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		for _, g := range vals(t, lz.Grad()) {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				t.Fatalf("%s: gradient %v at logits 1e4", dev.Name(), vals(t, lz.Grad()))
			}
		}
	}

	p, pv := randn(t, 2, 3, 5)
	q, qv := randn(t, 3, 3, 5)
	want := 0.0
	for i := range pv {
		want += (pv[i] - qv[i]) * (pv[i] - qv[i]) / 15
	}
	got, err := nn.MSE(p, q).Item()
	if err != nil {
		t.Fatal(err)
	}
	near(t, "MSE", []float64{got}, []float64{want}, 1e-14, 0)
}
