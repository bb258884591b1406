package nn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// moments returns the mean, the standard deviation and the largest
// magnitude of v.
func moments(v []float64) (mean, std, maxAbs float64) {
	for _, x := range v {
		mean += x / float64(len(v))
		maxAbs = math.Max(maxAbs, math.Abs(x))
	}
	for _, x := range v {
		std += (x - mean) * (x - mean) / float64(len(v))
	}
	return mean, math.Sqrt(std), maxAbs
}

func TestFans(t *testing.T) {
	for _, tc := range []struct {
		shape   []int
		in, out int
	}{
		{[]int{10, 20}, 20, 10},
		{[]int{64, 32, 3, 3}, 288, 576},
		{[]int{8, 2, 5}, 10, 40},
	} {
		in, out, err := nn.Fans(tc.shape...)
		if err != nil || in != tc.in || out != tc.out {
			t.Errorf("Fans%v = %d, %d, %v; want %d, %d", tc.shape, in, out, err, tc.in, tc.out)
		}
	}
}

func TestInitialisers(t *testing.T) {
	cases := []struct {
		name    string
		make    func(seed uint64) *tensor.Tensor
		std     float64
		bound   float64 // the largest magnitude allowed; 0 for a normal
		uniform bool
	}{
		{"KaimingUniform", func(s uint64) *tensor.Tensor { return nn.KaimingUniform(dtype.F64, s, 0, nn.FanIn, 256, 128) },
			math.Sqrt(2.0 / 128), math.Sqrt(6.0 / 128), true},
		{"KaimingUniform leaky FanOut", func(s uint64) *tensor.Tensor {
			return nn.KaimingUniform(dtype.F32, s, 0.1, nn.FanOut, 64, 32, 3, 3)
		}, math.Sqrt(2/1.01) / math.Sqrt(576), math.Sqrt(3) * math.Sqrt(2/1.01) / math.Sqrt(576), true},
		{"KaimingNormal", func(s uint64) *tensor.Tensor { return nn.KaimingNormal(dtype.F64, s, 0, nn.FanOut, 64, 32, 3, 3) },
			math.Sqrt(2.0 / 576), 0, false},
		{"XavierUniform", func(s uint64) *tensor.Tensor { return nn.XavierUniform(dtype.F64, s, 1, 100, 200) },
			math.Sqrt(2.0 / 300), math.Sqrt(6.0 / 300), true},
		{"XavierNormal", func(s uint64) *tensor.Tensor { return nn.XavierNormal(dtype.F32, s, 2, 100, 200) },
			2 * math.Sqrt(2.0/300), 0, false},
	}
	for _, tc := range cases {
		a, b, c := vals(t, tc.make(1)), vals(t, tc.make(1)), vals(t, tc.make(2))
		near(t, tc.name+" reproducible", a, b, 0, 0)
		if fmt.Sprint(a[:8]) == fmt.Sprint(c[:8]) {
			t.Errorf("%s: seeds 1 and 2 gave the same values", tc.name)
		}
		mean, std, maxAbs := moments(a)
		// 18,000 or more samples: the estimates are within a few tenths of a percent.
		if math.Abs(std/tc.std-1) > 0.03 || math.Abs(mean) > 0.03*tc.std {
			t.Errorf("%s: mean %v std %v, want 0 and %v", tc.name, mean, std, tc.std)
		}
		if tc.uniform && (maxAbs > tc.bound || maxAbs < 0.99*tc.bound) {
			t.Errorf("%s: largest magnitude %v, want just below %v", tc.name, maxAbs, tc.bound)
		}
		if !tc.uniform && maxAbs < 3*tc.std {
			t.Errorf("%s: largest magnitude %v is not normal-like for std %v", tc.name, maxAbs, tc.std)
		}
	}
}

// TestLayerInit: layers start as PyTorch's do, from their seed.
func TestLayerInit(t *testing.T) {
	l := nn.NewLinear(300, 200, nn.Seed(3))
	if l.Weight.Value.DType() != dtype.F32 {
		t.Errorf("default dtype %v, want f32", l.Weight.Value.DType())
	}
	bound := 1 / math.Sqrt(300)
	for _, p := range l.Parameters() {
		_, std, maxAbs := moments(vals(t, p.Value))
		if maxAbs > bound || maxAbs < 0.95*bound || math.Abs(std*math.Sqrt(3)/bound-1) > 0.1 {
			t.Errorf("Linear %s: largest %v std %v, want uniform in ±%v", p.Name, maxAbs, std, bound)
		}
	}
	c := nn.NewConv2d(8, 64, [2]int{3, 5}, tensor.Conv2dOptions{Groups: 2}, nn.Seed(3), nn.DType(dtype.F64))
	cb := 1 / math.Sqrt(4*3*5) // fan_in = in/groups·KH·KW
	for _, p := range c.Parameters() {
		if _, _, maxAbs := moments(vals(t, p.Value)); maxAbs > cb || maxAbs < 0.8*cb {
			t.Errorf("Conv2d %s: largest %v, want uniform in ±%v", p.Name, maxAbs, cb)
		}
	}
	if s := c.Weight.Value.Shape(); fmt.Sprint(s) != "[64 4 3 5]" {
		t.Errorf("Conv2d weight %v", s)
	}
	near(t, "Linear seeded", vals(t, nn.NewLinear(300, 200, nn.Seed(3)).Weight.Value), vals(t, l.Weight.Value), 0, 0)
	a, b := nn.NewLinear(4, 4), nn.NewLinear(4, 4)
	if fmt.Sprint(vals(t, a.Weight.Value)) == fmt.Sprint(vals(t, b.Weight.Value)) {
		t.Error("two unseeded layers got the same weights")
	}
	if fmt.Sprint(vals(t, l.Weight.Value)[:200]) == fmt.Sprint(vals(t, l.Bias.Value)) {
		t.Error("weight and bias drew the same values")
	}
	_, std, _ := moments(vals(t, nn.NewEmbedding(100, 100, nn.Seed(1)).Weight.Value))
	if math.Abs(std-1) > 0.03 {
		t.Errorf("Embedding std %v, want 1", std)
	}
	ln := nn.NewLayerNorm([]int{5})
	near(t, "LayerNorm weight", vals(t, ln.Weight.Value), []float64{1, 1, 1, 1, 1}, 0, 0)
	near(t, "LayerNorm bias", vals(t, ln.Bias.Value), []float64{0, 0, 0, 0, 0}, 0, 0)
}
