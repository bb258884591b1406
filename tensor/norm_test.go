package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// LayerNorm, RMSNorm and ScaledDotProductAttention against float64
// references written as plain loops: f64 on the CPU within 1e-12, f32 on
// every device within normTol32 (relative to 1 + |want|).

const normTol32 = 2e-5

func normRand(seed uint64, n int, lo, hi float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + r.Float64()*(hi-lo)
	}
	return v
}

// refNorm normalises each run of n consecutive elements of x: LayerNorm
// (centred) or RMSNorm, then weight and bias (nil for none).
func refNorm(x []float64, n int, w, b []float64, eps float64, centred bool) []float64 {
	out := make([]float64, len(x))
	for o := 0; o < len(x); o += n {
		mean := 0.0
		if centred {
			for i := 0; i < n; i++ {
				mean += x[o+i]
			}
			mean /= float64(n)
		}
		ss := 0.0
		for i := 0; i < n; i++ {
			d := x[o+i] - mean
			ss += d * d
		}
		r := 1 / math.Sqrt(ss/float64(n)+eps)
		for i := 0; i < n; i++ {
			y := (x[o+i] - mean) * r
			if w != nil {
				y *= w[i]
			}
			if b != nil {
				y += b[i]
			}
			out[o+i] = y
		}
	}
	return out
}

// normGet reads data of shape at the right-aligned index idx, broadcasting
// axes of extent 1.
func normGet(data []float64, shape, idx []int) float64 {
	off, stride := 0, 1
	for a := len(shape) - 1; a >= 0; a-- {
		i := idx[len(idx)-len(shape)+a]
		if shape[a] == 1 {
			i = 0
		}
		off += i * stride
		stride *= shape[a]
	}
	return data[off]
}

type sdpaIn struct {
	qs, ks, vs, ms []int // shapes; ms nil for no mask
	boolMask       bool  // the mask is Bool (values > 0 are true)
	opt            tensor.SDPAOptions
}

// refSDPA computes attention with batch shape batch; mask values m (bool:
// m > 0 takes part).
func refSDPA(c sdpaIn, batch []int, q, k, v, m []float64) []float64 {
	L, E := c.qs[len(c.qs)-2], c.qs[len(c.qs)-1]
	S, Ev := c.ks[len(c.ks)-2], c.vs[len(c.vs)-1]
	scale := c.opt.Scale
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(E))
	}
	nb := numel(batch)
	out := make([]float64, 0, nb*L*Ev)
	for b := 0; b < nb; b++ {
		bi := unravel(b, batch)
		for i := 0; i < L; i++ {
			s := make([]float64, S)
			mx := math.Inf(-1)
			for j := 0; j < S; j++ {
				dot := 0.0
				for e := 0; e < E; e++ {
					dot += normGet(q, c.qs, append(append([]int{}, bi...), i, e)) * normGet(k, c.ks, append(append([]int{}, bi...), j, e))
				}
				s[j] = dot * scale
				if m != nil {
					mv := normGet(m, c.ms, append(append([]int{}, bi...), i, j))
					if c.boolMask && mv <= 0 {
						s[j] = math.Inf(-1)
					} else if !c.boolMask {
						s[j] += mv
					}
				}
				if c.opt.Causal && j > i {
					s[j] = math.Inf(-1)
				}
				mx = math.Max(mx, s[j])
			}
			sum := 0.0
			for j := range s {
				s[j] = math.Exp(s[j] - mx)
				sum += s[j]
			}
			for e := 0; e < Ev; e++ {
				acc := 0.0
				for j := 0; j < S; j++ {
					acc += s[j] / sum * normGet(v, c.vs, append(append([]int{}, bi...), j, e))
				}
				out = append(out, acc)
			}
		}
	}
	return out
}

func normBatch(t *testing.T, shapes ...[]int) []int {
	t.Helper()
	r := 0
	for _, s := range shapes {
		r = max(r, len(s)-2)
	}
	out := make([]int, r)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		b := s[:len(s)-2]
		for a := range b {
			if d := b[a]; d != 1 {
				out[r-len(b)+a] = d
			}
		}
	}
	return out
}

func normClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= tol*(1+math.Abs(want[i]))) {
			t.Fatalf("%s: [%d] = %.9g, want %.9g (tol %g)", what, i, got[i], want[i], tol)
		}
	}
}

// normOn makes v of shape on dev in dt (Bool: v > 0).
func normOn(t *testing.T, v []float64, shape []int, dev device.Device, dt dtype.DType) *tensor.Tensor {
	t.Helper()
	var x *tensor.Tensor
	if dt == dtype.Bool {
		b := make([]bool, len(v))
		for i := range v {
			b[i] = v[i] > 0
		}
		x = tensor.FromSlice(b, shape...).To(dev)
	} else {
		x = tensor.FromSlice(v, shape...).Cast(dt).To(dev)
	}
	if err := x.Err(); err != nil {
		t.Fatal(err)
	}
	return x
}

func normRead(t *testing.T, y *tensor.Tensor) []float64 {
	t.Helper()
	v, err := y.To(device.CPU()).Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// normPrecisions are the (device, dtype, tolerance) triples a value test runs.
func normPrecisions(t *testing.T) []struct {
	dev device.Device
	dt  dtype.DType
	tol float64
} {
	out := []struct {
		dev device.Device
		dt  dtype.DType
		tol float64
	}{{device.CPU(), dtype.F64, 1e-12}}
	for _, d := range testDevices(t) {
		out = append(out, struct {
			dev device.Device
			dt  dtype.DType
			tol float64
		}{d, dtype.F32, normTol32})
	}
	return out
}

func TestLayerNormRMSNormValues(t *testing.T) {
	cases := []struct {
		name       string
		shape, ns  []int
		weight     bool
		bias       bool
		eps        float64
		lo, hi     float64
		rms        bool
		tol32Scale float64 // multiplies normTol32 (1 when 0)
	}{
		{name: "LN/last/affine", shape: []int{2, 3, 4}, ns: []int{4}, weight: true, bias: true, eps: 1e-5, lo: -2, hi: 2},
		{name: "LN/two-axes/bias-only", shape: []int{2, 3, 4}, ns: []int{3, 4}, bias: true, eps: 1e-5, lo: -2, hi: 2},
		{name: "LN/1-D/plain", shape: []int{5}, ns: []int{5}, eps: 0.1, lo: -3, hi: 1},
		// A large offset: E[x^2] - E[x]^2 would lose the variance in f32.
		{name: "LN/offset", shape: []int{3, 8}, ns: []int{8}, weight: true, eps: 1e-5, lo: 999, hi: 1001, tol32Scale: 100},
		{name: "RMS/last/weight", shape: []int{2, 3, 4}, ns: []int{4}, weight: true, eps: 1e-6, lo: -2, hi: 2, rms: true},
		{name: "RMS/two-axes/plain", shape: []int{2, 3, 4}, ns: []int{3, 4}, eps: 1e-6, lo: -2, hi: 2, rms: true},
	}
	for ci, c := range cases {
		n := numel(c.ns)
		x := normRand(uint64(ci), numel(c.shape), c.lo, c.hi)
		var w, b []float64
		if c.weight {
			w = normRand(uint64(ci)+100, n, 0.5, 1.5)
		}
		if c.bias {
			b = normRand(uint64(ci)+200, n, -1, 1)
		}
		want := refNorm(x, n, w, b, c.eps, !c.rms)
		for _, p := range normPrecisions(t) {
			tol := p.tol
			if p.dt == dtype.F32 && c.tol32Scale != 0 {
				tol *= c.tol32Scale
			}
			xt := normOn(t, x, c.shape, p.dev, p.dt)
			var wt, bt *tensor.Tensor
			if w != nil {
				wt = normOn(t, w, c.ns, p.dev, p.dt)
			}
			if b != nil {
				bt = normOn(t, b, c.ns, p.dev, p.dt)
			}
			var y *tensor.Tensor
			if c.rms {
				y = tensor.RMSNorm(xt, c.ns, wt, c.eps)
			} else {
				y = tensor.LayerNorm(xt, c.ns, wt, bt, c.eps)
			}
			if y.DType() != p.dt || fmt.Sprint(y.Shape()) != fmt.Sprint(c.shape) {
				t.Fatalf("%s on %s: %v %v, want %v %v (%v)", c.name, p.dev.Name(), y.DType(), y.Shape(), p.dt, c.shape, y.Err())
			}
			normClose(t, c.name+" "+p.dt.String()+" on "+p.dev.Name(), normRead(t, y), want, tol)
		}
	}
}

func TestScaledDotProductAttentionValues(t *testing.T) {
	cases := []struct {
		name string
		in   sdpaIn
	}{
		{"plain", sdpaIn{qs: []int{2, 3, 4}, ks: []int{2, 5, 4}, vs: []int{2, 5, 6}}},
		{"unbatched", sdpaIn{qs: []int{3, 4}, ks: []int{5, 4}, vs: []int{5, 2}}},
		{"broadcast-batch", sdpaIn{qs: []int{2, 1, 3, 4}, ks: []int{1, 2, 5, 4}, vs: []int{2, 5, 3}}},
		{"bool-mask", sdpaIn{qs: []int{2, 3, 4}, ks: []int{2, 5, 4}, vs: []int{2, 5, 6}, ms: []int{3, 5}, boolMask: true}},
		{"bool-mask-batched", sdpaIn{qs: []int{2, 3, 4}, ks: []int{5, 4}, vs: []int{5, 6}, ms: []int{2, 1, 5}, boolMask: true}},
		{"float-mask", sdpaIn{qs: []int{2, 3, 4}, ks: []int{2, 5, 4}, vs: []int{2, 5, 6}, ms: []int{2, 1, 5}}},
		{"causal-L<S", sdpaIn{qs: []int{2, 3, 4}, ks: []int{2, 5, 4}, vs: []int{2, 5, 6}, opt: tensor.SDPAOptions{Causal: true}}},
		{"causal-L>S", sdpaIn{qs: []int{4, 3}, ks: []int{2, 3}, vs: []int{2, 2}, opt: tensor.SDPAOptions{Causal: true}}},
		{"scale", sdpaIn{qs: []int{2, 3, 4}, ks: []int{2, 5, 4}, vs: []int{2, 5, 6}, opt: tensor.SDPAOptions{Scale: 0.7}}},
		{"causal-scale", sdpaIn{qs: []int{1, 3, 3, 2}, ks: []int{3, 3, 2}, vs: []int{3, 3, 2}, opt: tensor.SDPAOptions{Causal: true, Scale: -1.3}}},
	}
	for ci, c := range cases {
		in := c.in
		q := normRand(uint64(ci), numel(in.qs), -2, 2)
		k := normRand(uint64(ci)+10, numel(in.ks), -2, 2)
		v := normRand(uint64(ci)+20, numel(in.vs), -2, 2)
		var m []float64
		if in.ms != nil {
			m = normRand(uint64(ci)+30, numel(in.ms), -1, 1)
			if in.boolMask { // at least one key per row takes part
				S := in.ms[len(in.ms)-1]
				for r := 0; r < len(m); r += S {
					m[r+(r/S)%S] = 1
				}
			}
		}
		batch := normBatch(t, in.qs, in.ks, in.vs)
		want := refSDPA(in, batch, q, k, v, m)
		wantShape := append(append([]int{}, batch...), in.qs[len(in.qs)-2], in.vs[len(in.vs)-1])
		for _, p := range normPrecisions(t) {
			qt, kt, vt := normOn(t, q, in.qs, p.dev, p.dt), normOn(t, k, in.ks, p.dev, p.dt), normOn(t, v, in.vs, p.dev, p.dt)
			var mt *tensor.Tensor
			if m != nil {
				mdt := p.dt
				if in.boolMask {
					mdt = dtype.Bool
				}
				mt = normOn(t, m, in.ms, p.dev, mdt)
			}
			y := tensor.ScaledDotProductAttention(qt, kt, vt, mt, in.opt)
			if err := y.Err(); err != nil {
				t.Fatalf("%s on %s: %v", c.name, p.dev.Name(), err)
			}
			if fmt.Sprint(y.Shape()) != fmt.Sprint(wantShape) {
				t.Fatalf("%s on %s: shape %v, want %v", c.name, p.dev.Name(), y.Shape(), wantShape)
			}
			normClose(t, c.name+" "+p.dt.String()+" on "+p.dev.Name(), normRead(t, y), want, p.tol)
		}
	}
}

// A fully masked query row (a false bool mask, or a float mask of -Inf)
// has no keys: its output is 0, as PyTorch's since 2.5; the other rows
// are unaffected, and NaN in the inputs still propagates.
func TestScaledDotProductAttentionFullyMasked(t *testing.T) {
	inf := float32(math.Inf(-1))
	for _, dev := range testDevices(t) {
		q := tensor.Ones(dtype.F32, 2, 2).To(dev)
		k := tensor.Ones(dtype.F32, 3, 2).To(dev)
		v := tensor.FromSlice([]float32{1, 2, 3}, 3, 1).To(dev)
		masks := map[string]*tensor.Tensor{
			"bool":  tensor.FromSlice([]bool{false, false, false, true, false, true}, 2, 3).To(dev),
			"float": tensor.FromSlice([]float32{inf, inf, inf, 0, inf, 0}, 2, 3).To(dev),
		}
		for name, mask := range masks {
			got := normRead(t, tensor.ScaledDotProductAttention(q, k, v, mask, tensor.SDPAOptions{}))
			if got[0] != 0 || math.Abs(got[1]-2) > 1e-6 {
				t.Errorf("%s mask on %s: %v, want [0 2]", name, dev.Name(), got)
			}
		}
		qNaN := tensor.FromSlice([]float32{1, 1, float32(math.NaN()), 1}, 2, 2).To(dev)
		got := normRead(t, tensor.ScaledDotProductAttention(qNaN, k, v, masks["bool"], tensor.SDPAOptions{}))
		if got[0] != 0 || !math.IsNaN(got[1]) {
			t.Errorf("NaN in the second query on %s: %v, want [0 NaN]", dev.Name(), got)
		}
	}
}

func TestGradNormAttention(t *testing.T) {
	boolMask := func(x *tensor.Tensor) *tensor.Tensor {
		return tensor.FromSlice([]bool{true, false, true, true, true, false, false, true, true, true, true, false}, 3, 4).To(x.Device())
	}
	checkGradCases(t, []gradCase{
		{name: "LayerNorm/affine", in: []gcIn{gstd(2, 3, 4), gstd(4), gstd(4)},
			f: func(x gcTs) *tensor.Tensor { return tensor.LayerNorm(x[0], []int{4}, x[1], x[2], 1e-5) }},
		{name: "LayerNorm/two-axes", in: []gcIn{gstd(2, 3, 4), gstd(3, 4)},
			f: func(x gcTs) *tensor.Tensor { return tensor.LayerNorm(x[0], []int{3, 4}, x[1], nil, 0.1) }},
		{name: "LayerNorm/plain", in: []gcIn{gstd(3, 5)},
			f: func(x gcTs) *tensor.Tensor { return tensor.LayerNorm(x[0], []int{5}, nil, nil, 1e-5) }},
		{name: "RMSNorm/weight", in: []gcIn{gstd(2, 3, 4), gstd(4)},
			f: func(x gcTs) *tensor.Tensor { return tensor.RMSNorm(x[0], []int{4}, x[1], 1e-6) }},
		{name: "RMSNorm/plain", in: []gcIn{gstd(2, 6)},
			f: func(x gcTs) *tensor.Tensor { return tensor.RMSNorm(x[0], []int{2, 6}, nil, 1e-6) }},
		{name: "SDPA/float-mask", in: []gcIn{gstd(2, 3, 2), gstd(2, 4, 2), gstd(2, 4, 3), gstd(3, 4)},
			f: func(x gcTs) *tensor.Tensor {
				return tensor.ScaledDotProductAttention(x[0], x[1], x[2], x[3], tensor.SDPAOptions{})
			}},
		{name: "SDPA/bool-mask-broadcast", in: []gcIn{gstd(2, 1, 3, 2), gstd(2, 4, 2), gstd(4, 3)},
			f: func(x gcTs) *tensor.Tensor {
				return tensor.ScaledDotProductAttention(x[0], x[1], x[2], boolMask(x[0]), tensor.SDPAOptions{Scale: 0.8})
			}},
		{name: "SDPA/causal", in: []gcIn{gstd(2, 4, 2), gstd(2, 3, 2), gstd(2, 3, 2)},
			f: func(x gcTs) *tensor.Tensor {
				return tensor.ScaledDotProductAttention(x[0], x[1], x[2], nil, tensor.SDPAOptions{Causal: true})
			}},
	})
}

func TestNormAttentionErrors(t *testing.T) {
	f := func(s ...int) *tensor.Tensor { return tensor.Zeros(dtype.F32, s...) }
	x := f(2, 3, 4)
	ints := tensor.Zeros(dtype.I32, 2, 3, 4)
	q, k, v := f(2, 3, 4), f(2, 5, 4), f(2, 5, 6)
	released := f(4)
	released.Release()
	cases := []struct {
		name string
		got  *tensor.Tensor
		kind error
		says string
	}{
		{"LN/int", tensor.LayerNorm(ints, []int{4}, nil, nil, 1e-5), tensor.ErrDType, "i32"},
		{"LN/empty-shape", tensor.LayerNorm(x, nil, nil, nil, 1e-5), tensor.ErrShape, "at least one axis"},
		{"LN/trailing", tensor.LayerNorm(x, []int{3}, nil, nil, 1e-5), tensor.ErrShape, "[2 3 4]"},
		{"LN/too-long", tensor.LayerNorm(f(4), []int{1, 4}, nil, nil, 1e-5), tensor.ErrShape, "[1 4]"},
		{"LN/weight-shape", tensor.LayerNorm(x, []int{4}, f(3), nil, 1e-5), tensor.ErrShape, "weight"},
		{"LN/bias-shape", tensor.LayerNorm(x, []int{3, 4}, nil, f(4), 1e-5), tensor.ErrShape, "bias"},
		{"LN/weight-dtype", tensor.LayerNorm(x, []int{4}, tensor.Ones(dtype.F64, 4), nil, 1e-5), tensor.ErrDType, "weight"},
		{"LN/eps-negative", tensor.LayerNorm(x, []int{4}, nil, nil, -1), tensor.ErrValue, "-1"},
		{"LN/eps-NaN", tensor.LayerNorm(x, []int{4}, nil, nil, math.NaN()), tensor.ErrValue, "NaN"},
		{"LN/released-weight", tensor.LayerNorm(x, []int{4}, released, nil, 1e-5), tensor.ErrReleased, "LayerNorm"},
		{"RMS/int", tensor.RMSNorm(ints, []int{4}, nil, 1e-5), tensor.ErrDType, "RMSNorm"},
		{"RMS/weight-shape", tensor.RMSNorm(x, []int{4}, f(2, 4), 1e-5), tensor.ErrShape, "weight"},
		{"RMS/eps-NaN", tensor.RMSNorm(x, []int{4}, nil, math.NaN()), tensor.ErrValue, "eps"},
		{"SDPA/nil-q", tensor.ScaledDotProductAttention(nil, k, v, nil, tensor.SDPAOptions{}), tensor.ErrValue, "nil tensor"},
		{"SDPA/released-mask", tensor.ScaledDotProductAttention(q, k, v, released, tensor.SDPAOptions{}), tensor.ErrReleased, "ScaledDotProductAttention"},
		{"SDPA/rank", tensor.ScaledDotProductAttention(f(4), k, v, nil, tensor.SDPAOptions{}), tensor.ErrShape, "at least 2 axes"},
		{"SDPA/E", tensor.ScaledDotProductAttention(q, f(2, 5, 3), v, nil, tensor.SDPAOptions{}), tensor.ErrShape, "[2 5 3]"},
		{"SDPA/S", tensor.ScaledDotProductAttention(q, k, f(2, 4, 6), nil, tensor.SDPAOptions{}), tensor.ErrShape, "[2 4 6]"},
		{"SDPA/batch", tensor.ScaledDotProductAttention(q, f(3, 5, 4), v, nil, tensor.SDPAOptions{}), tensor.ErrShape, "broadcast"},
		{"SDPA/dtype", tensor.ScaledDotProductAttention(q, tensor.Zeros(dtype.F64, 2, 5, 4), v, nil, tensor.SDPAOptions{}), tensor.ErrDType, "f64"},
		{"SDPA/int", tensor.ScaledDotProductAttention(tensor.Zeros(dtype.I32, 3, 4), tensor.Zeros(dtype.I32, 5, 4), tensor.Zeros(dtype.I32, 5, 6), nil, tensor.SDPAOptions{}), tensor.ErrDType, "i32"},
		{"SDPA/mask-shape", tensor.ScaledDotProductAttention(q, k, v, f(3, 4), tensor.SDPAOptions{}), tensor.ErrShape, "mask [3 4]"},
		{"SDPA/mask-grows", tensor.ScaledDotProductAttention(q, k, v, f(3, 2, 3, 5), tensor.SDPAOptions{}), tensor.ErrShape, "[2 3 5]"},
		{"SDPA/mask-dtype", tensor.ScaledDotProductAttention(q, k, v, tensor.Zeros(dtype.I32, 3, 5), tensor.SDPAOptions{}), tensor.ErrDType, "i32"},
		{"SDPA/mask-and-causal", tensor.ScaledDotProductAttention(q, k, v, f(3, 5), tensor.SDPAOptions{Causal: true}), tensor.ErrValue, "Causal"},
		{"SDPA/scale-NaN", tensor.ScaledDotProductAttention(q, k, v, nil, tensor.SDPAOptions{Scale: math.NaN()}), tensor.ErrValue, "scale"},
		{"SDPA/scale-Inf", tensor.ScaledDotProductAttention(q, k, v, nil, tensor.SDPAOptions{Scale: math.Inf(1)}), tensor.ErrValue, "scale"},
	}
	for _, c := range cases {
		err := c.got.Err()
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.kind)
			continue
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: error %q does not say %q", c.name, err, c.says)
		}
	}
}

// Causal attention of two queries over two keys: the first query sees only
// the first key; the second weighs both by softmax(q k^T / sqrt(2)).
func ExampleScaledDotProductAttention() {
	q := tensor.FromSlice([]float64{1, 0, 0, 1}, 2, 2)
	k := tensor.FromSlice([]float64{1, 0, 0, 1}, 2, 2)
	v := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2)
	y := tensor.ScaledDotProductAttention(q, k, v, nil, tensor.SDPAOptions{Causal: true})
	vals, err := y.Float64s()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(y.Shape())
	fmt.Printf("%.4f\n", vals)
	// Output:
	// [2 2]
	// [1.0000 2.0000 2.3395 3.3395]
}
