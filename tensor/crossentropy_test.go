package tensor_test

import (
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestSoftmaxCrossEntropy checks the one-pass loss and its gradient
// against float64 references (the log-sum-exp of each row, and
// (softmax - target)/N scaled by the seed), for both float dtypes, with
// and without label smoothing, at large logits; and that other dtypes,
// ranks, devices and label counts report ok false.
func TestSoftmaxCrossEntropy(t *testing.T) {
	const n, c = 5, 4
	labels := []int64{0, 3, 1, 1, 2}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
		for _, s := range []float64{0, 0.2} {
			for _, scale := range []float64{1, 1e4} {
				raw := make([]float64, n*c)
				for i := range raw {
					raw[i] = math.Sin(float64(3*i+1)) * scale
				}
				x := tensor.FromSlice(raw, n, c).Cast(dt).RequiresGrad()
				xs, _ := x.Float64s() // the logits as rounded to dt
				loss, ok := tensor.SoftmaxCrossEntropy(x, labels, s)
				if !ok {
					t.Fatalf("%v: no kernel", dt)
				}
				if err := loss.BackwardWith(tensor.Full(dt, 2, []int{}...)); err != nil {
					t.Fatal(err)
				}
				got, err := loss.Item()
				if err != nil {
					t.Fatal(err)
				}
				grad, err := x.Grad().Float64s()
				if err != nil {
					t.Fatal(err)
				}
				want := 0.0
				tol := map[dtype.DType]float64{dtype.F32: 2e-7, dtype.F64: 1e-14}[dt]
				for i := range n {
					row := xs[i*c : (i+1)*c]
					mx := math.Inf(-1)
					for _, v := range row {
						mx = math.Max(mx, v)
					}
					sum := 0.0
					for _, v := range row {
						sum += math.Exp(v - mx)
					}
					lse := mx + math.Log(sum)
					for j, v := range row {
						target := s / c
						if int64(j) == labels[i] {
							target += 1 - s
						}
						want -= target * (v - lse) / n
						g := 2 * (math.Exp(v-lse) - target) / n
						if math.Abs(grad[i*c+j]-g) > tol*(math.Abs(g)+1) {
							t.Fatalf("%v s=%v scale=%v grad[%d,%d] = %v, want %v", dt, s, scale, i, j, grad[i*c+j], g)
						}
					}
				}
				if math.Abs(got-want) > tol*math.Abs(want) {
					t.Fatalf("%v s=%v scale=%v loss %v, want %v", dt, s, scale, got, want)
				}
			}
		}
	}
	for name, x := range map[string]*tensor.Tensor{
		"f16":      tensor.Zeros(dtype.F16, 5, 4),
		"rank 1":   tensor.Zeros(dtype.F32, 5),
		"4 rows":   tensor.Zeros(dtype.F32, 4, 4),
		"failed":   tensor.Zeros(dtype.F32, 5, 4).Reshape(3),
		"no class": tensor.Zeros(dtype.F32, 5, 0),
	} {
		if _, ok := tensor.SoftmaxCrossEntropy(x, labels, 0); ok {
			t.Errorf("%s: ok", name)
		}
	}
	for _, dev := range testDevices(t)[1:] {
		if _, ok := tensor.SoftmaxCrossEntropy(tensor.Zeros(dtype.F32, 5, 4).To(dev), labels, 0); ok {
			t.Errorf("%s: ok", dev.Name())
		}
	}
}
