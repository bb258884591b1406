package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/devicetest"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// fusionChains are elementwise programs over inputs x [3,5,7] (read
// contiguous, transposed or narrowed), b [7] (broadcast) and s (a scalar
// tensor), covering unary and binary steps, the Scalar forms, Clamp, shared
// subexpressions and operands reused several times.
var fusionChains = []struct {
	name string
	f    func(x, b, s *tensor.Tensor) *tensor.Tensor
}{
	{"add-mul-tanh", func(x, b, s *tensor.Tensor) *tensor.Tensor { return x.Add(b).Mul(b).Tanh() }},
	{"scalars", func(x, b, s *tensor.Tensor) *tensor.Tensor {
		return x.MulScalar(3).AddScalar(-1).DivScalar(7).SubScalar(0.25).PowScalar(2)
	}},
	{"clamp-relu", func(x, b, s *tensor.Tensor) *tensor.Tensor { return x.Clamp(-0.5, 0.75).Relu().Add(s) }},
	{"shared", func(x, b, s *tensor.Tensor) *tensor.Tensor {
		e := x.Exp()
		return e.Mul(e).Add(e).Sub(b.Sigmoid().Mul(e))
	}},
	{"transcendental", func(x, b, s *tensor.Tensor) *tensor.Tensor {
		return x.Sin().Add(x.Cos()).Mul(x.Abs().Log1p()).Add(x.Gelu()).Add(x.Silu()).Maximum(b.Erf())
	}},
	{"broadcast-first", func(x, b, s *tensor.Tensor) *tensor.Tensor { return b.Add(x).Minimum(s.Add(b)) }},
	{"scalar-only", func(x, b, s *tensor.Tensor) *tensor.Tensor { return s.Exp().AddScalar(1).Log() }},
	{"input-only", func(x, b, s *tensor.Tensor) *tensor.Tensor { return x.AddScalar(0).Sub(x) }},
	{"remainders-activations", func(x, b, s *tensor.Tensor) *tensor.Tensor {
		return x.Mod(b).Add(x.Fmod(s)).Add(x.Atan2(b)).LeakyRelu(0.1).Elu(0.7).Add(x.RemainderScalar(-0.4))
	}},
}

// TestFusionMatchesEager runs every chain on every device and float dtype
// with fusion on and off and requires the same values (bit for bit on the
// CPU, whose fused blocks use the same kernels; within the dtype's
// tolerance on a GPU), and checks both against a float64 reference.
func TestFusionMatchesEager(t *testing.T) {
	vals := make([]float64, 3*5*7*2)
	for i := range vals {
		vals[i] = math.Sin(float64(i)*0.37) * 1.5
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16} {
			if !computes(dev, dt) {
				continue
			}
			base := tensor.FromSlice(vals, 3, 5, 14).Cast(dt).To(dev)
			views := map[string]*tensor.Tensor{
				"contiguous": base.Narrow(2, 0, 7).Contiguous(),
				"narrowed":   base.Narrow(2, 3, 7),
				"transposed": base.Narrow(2, 0, 7).Contiguous().Reshape(7, 5, 3).Permute(2, 1, 0),
			}
			b := tensor.FromSlice(vals[:7], 7).Cast(dt).To(dev)
			s := tensor.Scalar(0.3).Cast(dt).To(dev)
			for vname, x := range views {
				for _, c := range fusionChains {
					name := fmt.Sprintf("%s/%v/%s/%s", dev.Name(), dt, vname, c.name)
					restore := tensor.SetFusion(false)
					eager := c.f(x, b, s)
					restore()
					restore = tensor.SetFusion(true)
					fused := c.f(x, b, s)
					if dev.Info().Type == "cpu" && !tensor.IsPending(fused) {
						t.Errorf("%s: the fused chain ran eagerly", name)
					}
					restore()
					ev, err1 := tensor.ToSlice[float64](eager.To(device.CPU()).Cast(dtype.F64))
					fv, err2 := tensor.ToSlice[float64](fused.To(device.CPU()).Cast(dtype.F64))
					if err1 != nil || err2 != nil {
						t.Fatalf("%s: %v, %v", name, err1, err2)
					}
					if !slices.Equal(eager.Shape(), fused.Shape()) {
						t.Fatalf("%s: shapes %v and %v", name, eager.Shape(), fused.Shape())
					}
					// The CPU's fused blocks run the kernels the eager path
					// runs on contiguous rows: equal bits, but for
					// transposed inputs, which eager code reads with the
					// scalar loop (a few ulps apart); F16/BF16 round every
					// step in both paths.
					tol := 0.0
					if dev.Info().Type != "cpu" || vname == "transposed" {
						tol = map[dtype.DType]float64{dtype.F32: 2e-6, dtype.F64: 1e-14, dtype.F16: 2e-3, dtype.BF16: 1.6e-2}[dt]
					}
					for i := range ev {
						e, f := ev[i], fv[i]
						if math.IsNaN(e) && math.IsNaN(f) {
							continue
						}
						if math.Abs(e-f) > tol*math.Max(1, math.Abs(e)) {
							t.Errorf("%s: element %d fused %v, eager %v", name, i, f, e)
							break
						}
					}
				}
			}
		}
	}
}

// TestFusionReference checks a fused chain against float64 math directly,
// so that fused and eager cannot agree on a wrong answer.
func TestFusionReference(t *testing.T) {
	defer tensor.SetFusion(true)()
	n := 5000 // more than one block, and a partial last one
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%97)/31 - 1.5
	}
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice(xs).To(dev)
		b := tensor.FromSlice([]float32{0.5}).To(dev)
		y := x.Add(b).Mul(b).Tanh().MulScalar(2).Exp()
		got, err := tensor.ToSlice[float32](y.To(device.CPU()))
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range xs {
			want := math.Exp(2 * math.Tanh((float64(v)+0.5)*0.5))
			if math.Abs(float64(got[i])-want) > 4e-6*want {
				t.Fatalf("%s: element %d = %v, want %v", dev.Name(), i, got[i], want)
			}
		}
	}
}

// TestFusionLongLoop runs a loop far longer than one graph's budget: the
// graph is realised piecewise, and the result is exact (each step maps the
// value to itself).
func TestFusionLongLoop(t *testing.T) {
	defer tensor.SetFusion(true)()
	for _, dev := range testDevices(t) {
		x := tensor.Full(dtype.F32, 2, 1000).To(dev)
		one := tensor.Ones(dtype.F32, 1000).To(dev)
		for range 1000 {
			x = x.Add(one).Sub(one).MulScalar(0.5).MulScalar(2)
		}
		got, err := tensor.ToSlice[float32](x)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != 2 {
				t.Fatalf("%s: element %d = %v after the loop, want 2", dev.Name(), i, v)
			}
		}
	}
}

// TestFusionReleaseInputs releases every input (and intermediate) before
// the pending result is read: the graph keeps what it needs, and once the
// result is read and released, device memory is back to its baseline.
func TestFusionReleaseInputs(t *testing.T) {
	defer tensor.SetFusion(true)()
	for _, dev := range testDevices(t) {
		be := dev.Backend()
		base := devicetest.SettledMemory(t, be)
		onDev := func(v float64) *tensor.Tensor {
			h := tensor.Full(dtype.F32, v, 64)
			defer h.Release()
			return h.To(dev)
		}
		x, b := onDev(1.5), onDev(0.5)
		e := x.Add(b)
		y := e.Mul(b)
		x.Release()
		b.Release()
		e.Release()
		got, err := tensor.ToSlice[float32](y)
		if err != nil || got[0] != 1 || got[63] != 1 {
			t.Fatalf("%s: %v %v", dev.Name(), got, err)
		}
		y.Release()
		// A pending tensor released unread, with its inputs, frees everything too.
		x = onDev(1.5)
		ex := x.Exp()
		z := ex.Mul(x)
		x.Release()
		z.Release()
		ex.Release()
		if err := be.Sync(); err != nil {
			t.Fatal(err)
		}
		if in := be.MemoryInUse(); in != base {
			t.Errorf("%s: memory in use %d after releasing everything, baseline %d", dev.Name(), in, base)
		}
		if _, err := tensor.ToSlice[float32](z); !errors.Is(err, tensor.ErrReleased) {
			t.Errorf("%s: reading a released pending tensor: %v", dev.Name(), err)
		}
	}
}

// TestFusionConcurrentRealise reads one pending tensor from many
// goroutines: it is computed once and every reader sees the same values.
func TestFusionConcurrentRealise(t *testing.T) {
	defer tensor.SetFusion(true)()
	for _, dev := range testDevices(t) {
		x := tensor.Arange(dtype.F32, 0, 4096, 1).To(dev)
		y := x.MulScalar(0.001).Sin().AddScalar(1)
		var wg sync.WaitGroup
		res := make([][]float32, 8)
		errs := make([]error, 8)
		for g := range 8 {
			wg.Go(func() {
				z := y.Mul(y) // records on a shared pending operand
				res[g], errs[g] = tensor.ToSlice[float32](z)
			})
		}
		wg.Wait()
		for g := range 8 {
			if errs[g] != nil {
				t.Fatal(errs[g])
			}
			for i := range res[g] {
				if res[g][i] != res[0][i] {
					t.Fatalf("%s: goroutine %d element %d differs", dev.Name(), g, i)
				}
			}
		}
	}
}

// TestFusionErrorsAtRecording: shape, dtype and device errors are returned
// when an operation is recorded, not later.
func TestFusionErrorsAtRecording(t *testing.T) {
	defer tensor.SetFusion(true)()
	x := tensor.Ones(dtype.F32, 2, 3)
	if err := x.Add(tensor.Ones(dtype.F32, 4)).Err(); !errors.Is(err, tensor.ErrShape) {
		t.Errorf("shape: %v", err)
	}
	if err := x.Atan2(tensor.Ones(dtype.I32, 3)).Sqrt().Cast(dtype.Bool).Neg().Err(); !errors.Is(err, tensor.ErrDType) {
		t.Errorf("dtype: %v", err)
	}
	p := x.Exp()
	if !tensor.IsPending(p) {
		t.Fatal("Exp of an f32 tensor was not recorded")
	}
	if err := p.Add(tensor.Ones(dtype.F32, 5)).Err(); !errors.Is(err, tensor.ErrShape) {
		t.Errorf("shape on a pending operand: %v", err)
	}
	p.Release()
	if err := p.Exp().Err(); !errors.Is(err, tensor.ErrReleased) {
		t.Errorf("released pending operand: %v", err)
	}
}

// TestFusionRecordingAllocs holds recording an operation to at most two
// allocations: the tensor, and a leaf handle the first time a computed
// tensor is read by a graph (here reused). Twenty operations stay within
// one graph's budget, so nothing is computed.
func TestFusionRecordingAllocs(t *testing.T) {
	defer tensor.SetFusion(true)()
	x := tensor.Ones(dtype.F32, 1024)
	b := tensor.Ones(dtype.F32, 1024)
	_ = x.Add(b).Err() // create the leaf handles
	var y *tensor.Tensor
	allocs := testing.AllocsPerRun(50, func() {
		y = x.Add(b)
		for range 19 {
			y = y.Mul(b)
		}
	})
	if !tensor.IsPending(y) {
		t.Fatal("the chain was computed while recording")
	}
	if per := allocs / 20; per > 2 {
		t.Errorf("recording: %.2f allocations per operation, want at most 2", per)
	}
}

// TestFusionManyInputs builds graphs over more distinct inputs than one
// graph may hold (maxGraphInputs, 6: a fused WebGPU kernel binds them all),
// as a chain (each operation adds an input) and as a tree (sets of inputs
// merged), with inputs read several times: the budget must count each
// input once and split the graph where it overflows, and the values must
// be those of float64 arithmetic (small integers, exact in f32).
func TestFusionManyInputs(t *testing.T) {
	defer tensor.SetFusion(true)()
	for _, dev := range testDevices(t) {
		in := make([]*tensor.Tensor, 10)
		for i := range in {
			in[i] = tensor.Full(dtype.F32, float64(i+1), 33).To(dev)
		}
		cases := []struct {
			name string
			y    *tensor.Tensor
			want float64
		}{
			{"chain", func() *tensor.Tensor {
				y := in[0]
				for i := 1; i < len(in); i++ {
					y = y.Add(in[i]).Sub(in[0]).Add(in[0]) // in[0] read again: no new input
				}
				return y
			}(), 55},
			{"tree", in[0].Add(in[1]).Mul(in[2].Add(in[3])).Add(in[4].Add(in[5]).Mul(in[6].Add(in[7]))).Sub(in[8].Mul(in[9])),
				3*7 + 11*15 - 90},
			{"repeat", func() *tensor.Tensor {
				y := in[0]
				for range 40 {
					y = y.Mul(in[1]).Sub(in[2]).Add(in[2]).Div(in[1]) // four inputs in all, read over and over
				}
				return y
			}(), 1},
		}
		for _, c := range cases {
			got, err := tensor.ToSlice[float32](c.y)
			if err != nil {
				t.Fatalf("%s %s: %v", dev.Name(), c.name, err)
			}
			for i, v := range got {
				if float64(v) != c.want {
					t.Fatalf("%s %s: element %d = %v, want %v", dev.Name(), c.name, i, v, c.want)
				}
			}
		}
	}
}

// TestRealiseAllocs holds computing a small result on the CPU to a known
// number of allocations. Fused, an elementwise result costs four: the
// tensor, its storage, the buffer and the buffer's memory (the CPU's
// collected buffers need no cleanup per tensor, and small ones settle
// their accounting per batch). Run at once (fusion off), the layouts and
// operand slices handed to the backend and the row walk add eight more; a
// 2-D Matmul adds nine (layouts, the operand slices, one offset per
// operand). More than that is a regression.
func TestRealiseAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under -race")
	}
	x := tensor.Ones(dtype.F32, 16)
	b := tensor.Ones(dtype.F32, 16)
	m := tensor.Ones(dtype.F32, 8, 8)
	for _, tc := range []struct {
		name  string
		fused bool
		op    func() *tensor.Tensor
		max   float64
	}{
		{"fused Add", true, func() *tensor.Tensor { return x.Add(b) }, 4},
		{"Add", false, func() *tensor.Tensor { return x.Add(b) }, 12},
		{"Matmul 8x8", true, func() *tensor.Tensor { return m.Matmul(m) }, 13},
	} {
		restore := tensor.SetFusion(tc.fused)
		_ = tc.op().Err() // create the leaf handles
		allocs := testing.AllocsPerRun(200, func() {
			if err := tc.op().Err(); err != nil {
				t.Fatal(err)
			}
		})
		restore()
		if allocs > tc.max {
			t.Errorf("%s: realised in %.2f allocations, want at most %v", tc.name, allocs, tc.max)
		}
	}
}
