package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// The fused kernels behind LayerNorm, RMSNorm (device.Normer) and
// ScaledDotProductAttention (device.Attender) against the float64
// references of norm_test.go, on every device and dtype, over strided
// views, long rows, many rows, several key and query blocks, and the edge
// cases the composites define (NaN, fully masked rows).

// fusedTol is the tolerance (relative to 1 + |want|) of a result in dt:
// a few roundings of the result's dtype (F16 and BF16 compute in F32 and
// round once).
func fusedTol(dt dtype.DType) float64 {
	switch dt {
	case dtype.F64:
		return 1e-12
	case dtype.F32:
		return normTol32
	case dtype.F16:
		return 2e-3
	}
	return 1.6e-2 // bf16: 8 bits of mantissa
}

// fusedPrecisions are the (device, dtype) pairs the device holds and
// computes.
func fusedPrecisions(t *testing.T) []struct {
	dev device.Device
	dt  dtype.DType
} {
	var out []struct {
		dev device.Device
		dt  dtype.DType
	}
	for _, d := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F64, dtype.F32, dtype.F16, dtype.BF16} {
			if computes(d, dt) {
				out = append(out, struct {
					dev device.Device
					dt  dtype.DType
				}{d, dt})
			}
		}
	}
	return out
}

// exact returns v as dt holds it (the reference then sees the rounded
// inputs the kernel sees).
func exact(t *testing.T, v []float64, dt dtype.DType) []float64 {
	t.Helper()
	if dt == dtype.F64 {
		return v
	}
	r, err := tensor.FromSlice(v, len(v)).Cast(dt).Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNormFusedValues(t *testing.T) {
	cases := []struct {
		name      string
		shape, ns []int
		transpose bool // x is the transpose of a contiguous tensor (last-axis stride != 1)
		weight    bool
		bias      bool
		rms       bool
		lo, hi    float64
	}{
		{name: "LN/rows", shape: []int{7, 33}, ns: []int{33}, weight: true, bias: true, lo: -3, hi: 3},
		{name: "LN/long-row", shape: []int{3, 5000}, ns: []int{5000}, weight: true, bias: true, lo: -1, hi: 2},
		{name: "LN/many-rows", shape: []int{300, 130}, ns: []int{130}, bias: true, lo: -2, hi: 2},
		{name: "LN/transposed", shape: []int{6, 9}, ns: []int{9}, transpose: true, weight: true, lo: -2, hi: 2},
		{name: "LN/offset", shape: []int{4, 64}, ns: []int{64}, lo: 99.5, hi: 100.5},
		{name: "LN/two-axes", shape: []int{2, 3, 5}, ns: []int{3, 5}, weight: true, bias: true, lo: -2, hi: 2},
		{name: "RMS/rows", shape: []int{5, 40}, ns: []int{40}, weight: true, rms: true, lo: -2, hi: 2},
		{name: "RMS/transposed", shape: []int{4, 17}, ns: []int{17}, transpose: true, rms: true, lo: -2, hi: 2},
		{name: "RMS/long-row", shape: []int{2, 4099}, ns: []int{4099}, weight: true, rms: true, lo: -3, hi: 3},
	}
	for ci, c := range cases {
		n := numel(c.ns)
		x0 := normRand(uint64(ci)+500, numel(c.shape), c.lo, c.hi)
		var w0, b0 []float64
		if c.weight {
			w0 = normRand(uint64(ci)+600, n, 0.5, 1.5)
		}
		if c.bias {
			b0 = normRand(uint64(ci)+700, n, -1, 1)
		}
		for _, p := range fusedPrecisions(t) {
			x, w, b := exact(t, x0, p.dt), w0, b0
			if w != nil {
				w = exact(t, w0, p.dt)
			}
			if b != nil {
				b = exact(t, b0, p.dt)
			}
			var xt *tensor.Tensor
			if c.transpose { // store the transpose, view it back
				r, cols := c.shape[0], c.shape[1]
				tr := make([]float64, len(x))
				for i := range r {
					for j := range cols {
						tr[j*r+i] = x[i*cols+j]
					}
				}
				xt = normOn(t, tr, []int{cols, r}, p.dev, p.dt).T()
			} else {
				xt = normOn(t, x, c.shape, p.dev, p.dt)
			}
			var wt, bt *tensor.Tensor
			if w != nil {
				wt = normOn(t, w, c.ns, p.dev, p.dt)
			}
			if b != nil {
				bt = normOn(t, b, c.ns, p.dev, p.dt)
			}
			var y *tensor.Tensor
			if c.rms {
				y = tensor.RMSNorm(xt, c.ns, wt, 1e-5)
			} else {
				y = tensor.LayerNorm(xt, c.ns, wt, bt, 1e-5)
			}
			if y.DType() != p.dt || !slices.Equal(y.Shape(), c.shape) {
				t.Fatalf("%s %v on %s: %v %v (%v)", c.name, p.dt, p.dev.Name(), y.DType(), y.Shape(), y.Err())
			}
			want := refNorm(x, n, w, b, 1e-5, !c.rms)
			normClose(t, c.name+" "+p.dt.String()+" on "+p.dev.Name(), normRead(t, y), want, fusedTol(p.dt))
		}
	}
}

// The statistics the kernel saves for the gradient are the row mean and
// 1/sqrt(var + eps) of device.NormOp.Ref, and a NaN stays in its row.
func TestNormKernelStats(t *testing.T) {
	const rows, n, eps = 5, 12, 1e-3
	x := normRand(41, rows*n, -2, 3)
	x[2*n+3] = math.NaN() // row 2
	for _, p := range fusedPrecisions(t) {
		xe := exact(t, x, p.dt)
		for _, op := range []device.NormOp{device.LayerNorm, device.RMSNorm} {
			y, stats := tensor.NormKernel(op, normOn(t, xe, []int{rows, n}, p.dev, p.dt), nil, nil, eps)
			if err := y.Err(); err != nil {
				t.Fatalf("%v %v on %s: %v", op, p.dt, p.dev.Name(), err)
			}
			if want := device.NormStats(p.dt); stats.DType() != want || !slices.Equal(stats.Shape(), []int{rows, 2}) {
				t.Fatalf("%v %v on %s: statistics %v %v, want %v [%d 2]", op, p.dt, p.dev.Name(), stats.DType(), stats.Shape(), want, rows)
			}
			got, ys := normRead(t, stats), normRead(t, y)
			tol := fusedTol(device.NormStats(p.dt))
			for r := range rows {
				ref := make([]float64, n)
				mean, rstd := op.Ref(ref, xe[r*n:(r+1)*n], nil, nil, eps)
				if r == 2 {
					if (op == device.LayerNorm && !math.IsNaN(got[2*r])) || !math.IsNaN(got[2*r+1]) || !math.IsNaN(ys[r*n]) {
						t.Errorf("%v %v on %s: the NaN row gave mean %v rstd %v y %v", op, p.dt, p.dev.Name(), got[2*r], got[2*r+1], ys[r*n])
					}
					continue
				}
				normClose(t, op.String()+" stats "+p.dt.String()+" on "+p.dev.Name(), got[2*r:2*r+2], []float64{mean, rstd}, tol)
				normClose(t, op.String()+" row "+p.dt.String()+" on "+p.dev.Name(), ys[r*n:(r+1)*n], ref, fusedTol(p.dt))
			}
		}
	}
}

// The device rule refuses malformed calls with typed errors.
func TestNormKernelErrors(t *testing.T) {
	f := func(s ...int) *tensor.Tensor { return tensor.Zeros(dtype.F32, s...) }
	cases := []struct {
		name string
		y    *tensor.Tensor
		kind error
	}{
		{"rank", firstOf(tensor.NormKernel(device.LayerNorm, f(2, 3, 4), nil, nil, 1e-5)), tensor.ErrShape},
		{"weight", firstOf(tensor.NormKernel(device.LayerNorm, f(2, 3), f(4), nil, 1e-5)), tensor.ErrShape},
		{"rms-bias", firstOf(tensor.NormKernel(device.RMSNorm, f(2, 3), nil, f(3), 1e-5)), tensor.ErrValue},
		{"eps", firstOf(tensor.NormKernel(device.LayerNorm, f(2, 3), nil, nil, math.Inf(1))), tensor.ErrValue},
		{"op", firstOf(tensor.NormKernel(device.NormOp(9), f(2, 3), nil, nil, 1e-5)), tensor.ErrUnsupported},
		{"int", firstOf(tensor.NormKernel(device.LayerNorm, tensor.Zeros(dtype.I32, 2, 3), nil, nil, 1e-5)), tensor.ErrDType},
	}
	for _, c := range cases {
		if err := c.y.Err(); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
		}
	}
}

func firstOf(a, _ *tensor.Tensor) *tensor.Tensor { return a }

func TestGradNormFused(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "LayerNorm/bias-only", in: []gcIn{gstd(3, 6), gstd(6)},
			f: func(x gcTs) *tensor.Tensor { return tensor.LayerNorm(x[0], []int{6}, nil, x[1], 1e-5) }},
		{name: "LayerNorm/transposed", in: []gcIn{gstd(5, 4), gstd(5)},
			f: func(x gcTs) *tensor.Tensor { return tensor.LayerNorm(x[0].T(), []int{5}, x[1], nil, 1e-5) }},
		{name: "RMSNorm/three-axes", in: []gcIn{gstd(2, 2, 3), gstd(2, 2, 3)},
			f: func(x gcTs) *tensor.Tensor { return tensor.RMSNorm(x[0], []int{2, 2, 3}, x[1], 1e-6) }},
		{name: "LayerNorm/weight-only-grad", in: []gcIn{gstd(4, 3)},
			f: func(x gcTs) *tensor.Tensor {
				c := tensor.FromSlice([]float64{1, -2, 0.5, 3, 1, 1, -1, 2, 0, 0.25, 4, -3}, 4, 3).Cast(x[0].DType()).To(x[0].Device())
				return tensor.LayerNorm(c, []int{3}, x[0].Sum(0), nil, 1e-5)
			}},
	})
}

// attCase is one attention configuration; kT stores k transposed (a view
// the CPU kernel does not read in place, so it is copied first).
type attCase struct {
	name string
	in   sdpaIn
	kT   bool
	nanV bool // a NaN in v at a key every query masks out
}

func attCases() []attCase {
	return []attCase{
		{name: "blocks", in: sdpaIn{qs: []int{2, 130, 16}, ks: []int{2, 300, 16}, vs: []int{2, 300, 24}}},
		{name: "causal-blocks", in: sdpaIn{qs: []int{1, 150, 8}, ks: []int{1, 290, 8}, vs: []int{1, 290, 8}, opt: tensor.SDPAOptions{Causal: true}}},
		{name: "causal-L>S", in: sdpaIn{qs: []int{140, 8}, ks: []int{70, 8}, vs: []int{70, 4}, opt: tensor.SDPAOptions{Causal: true, Scale: 0.3}}},
		{name: "bool-mask", in: sdpaIn{qs: []int{2, 60, 8}, ks: []int{2, 270, 8}, vs: []int{2, 270, 5}, ms: []int{60, 270}, boolMask: true}},
		{name: "float-mask-batch", in: sdpaIn{qs: []int{2, 2, 20, 8}, ks: []int{2, 1, 200, 8}, vs: []int{1, 200, 8}, ms: []int{2, 1, 1, 200}}},
		{name: "k-transposed", in: sdpaIn{qs: []int{3, 10, 6}, ks: []int{3, 40, 6}, vs: []int{3, 40, 6}}, kT: true},
		{name: "nan-in-masked-v", in: sdpaIn{qs: []int{1, 6, 4}, ks: []int{1, 280, 4}, vs: []int{1, 280, 3}, opt: tensor.SDPAOptions{Causal: true}}, nanV: true},
	}
}

func TestAttentionFusedValues(t *testing.T) {
	for ci, c := range attCases() {
		in := c.in
		q0 := normRand(uint64(ci)+800, numel(in.qs), -2, 2)
		k0 := normRand(uint64(ci)+810, numel(in.ks), -2, 2)
		v0 := normRand(uint64(ci)+820, numel(in.vs), -2, 2)
		if c.nanV {
			v0[len(v0)-1] = math.NaN() // the last key: masked for every query (causal, L < S)
		}
		var m0 []float64
		if in.ms != nil {
			m0 = normRand(uint64(ci)+830, numel(in.ms), -1, 1)
			S := in.ms[len(in.ms)-1]
			for r := 0; r < len(m0); r += S {
				if in.boolMask {
					m0[r+(r/S*7)%S] = 1 // a key for every row ...
					if r/S == 3 {
						clear(m0[r : r+S]) // ... but row 3, fully masked
					}
				} else if r/S == 1 {
					for j := range S {
						m0[r+j] = math.Inf(-1) // a float mask row of -Inf
					}
				}
			}
		}
		batch := normBatch(t, in.qs, in.ks, in.vs)
		for _, p := range fusedPrecisions(t) {
			q, k, v, m := exact(t, q0, p.dt), exact(t, k0, p.dt), exact(t, v0, p.dt), m0
			if m != nil && !in.boolMask {
				m = exact(t, m0, p.dt)
			}
			want := refSDPA(in, batch, q, k, v, m)
			if in.boolMask || in.ms != nil { // fully masked rows give 0
				L, Ev := in.qs[len(in.qs)-2], in.vs[len(in.vs)-1]
				for i := 0; i < len(want); i += Ev {
					if math.IsNaN(want[i]) && !c.nanV {
						_ = L
						clear(want[i : i+Ev])
					}
				}
			}
			qt, kt, vt := normOn(t, q, in.qs, p.dev, p.dt), normOn(t, k, in.ks, p.dev, p.dt), normOn(t, v, in.vs, p.dev, p.dt)
			if c.kT {
				kt = kt.Transpose(-1, -2).Contiguous().Transpose(-1, -2)
			}
			var mt *tensor.Tensor
			if m != nil {
				mdt := p.dt
				if in.boolMask {
					mdt = dtype.Bool
				}
				mt = normOn(t, m, in.ms, p.dev, mdt)
			}
			y := tensor.ScaledDotProductAttention(qt, kt, vt, mt, in.opt)
			what := c.name + " " + p.dt.String() + " on " + p.dev.Name()
			if err := y.Err(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			got := normRead(t, y)
			if c.nanV { // the unfused formula multiplies the masked key's NaN by 0
				for i, g := range got {
					if !math.IsNaN(g) && i%3 == 2 {
						t.Fatalf("%s: [%d] = %v, want NaN (0 * NaN of a masked key)", what, i, g)
					}
				}
				continue
			}
			normClose(t, what, got, want, 2*fusedTol(p.dt))
		}
	}
}

// Every device runs attention through its own fused kernel (no fallback
// to the composite) and agrees with the composite.
func TestAttentionKernelEveryDevice(t *testing.T) {
	for ci, c := range attCases() {
		in := c.in
		q0 := normRand(uint64(ci)+900, numel(in.qs), -2, 2)
		k0 := normRand(uint64(ci)+910, numel(in.ks), -2, 2)
		v0 := normRand(uint64(ci)+920, numel(in.vs), -2, 2)
		var m0 []float64
		if in.ms != nil {
			m0 = normRand(uint64(ci)+930, numel(in.ms), -1, 1)
		}
		scale := in.opt.Scale
		if scale == 0 {
			scale = 1 / math.Sqrt(float64(in.qs[len(in.qs)-1]))
		}
		for _, p := range fusedPrecisions(t) {
			if p.dt == dtype.BF16 {
				continue
			}
			qt, kt, vt := normOn(t, q0, in.qs, p.dev, p.dt), normOn(t, k0, in.ks, p.dev, p.dt), normOn(t, v0, in.vs, p.dev, p.dt)
			var mt *tensor.Tensor
			if m0 != nil {
				mdt := p.dt
				if in.boolMask {
					mdt = dtype.Bool
				}
				mt = normOn(t, m0, in.ms, p.dev, mdt)
			}
			what := c.name + " " + p.dt.String() + " on " + p.dev.Name()
			y := tensor.AttentionKernel(qt, kt, vt, mt, scale, in.opt.Causal)
			if err := y.Err(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			want := normRead(t, tensor.SDPAComposite(qt, kt, vt, mt, scale, in.opt.Causal))
			got := normRead(t, y)
			for i := range want {
				if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 4*fusedTol(p.dt)*(1+math.Abs(want[i]))) {
					t.Fatalf("%s: [%d] fused %v, composite %v", what, i, got[i], want[i])
				}
			}
		}
	}
}

// The fused and composite paths agree, NaN for NaN, on the edge cases.
func TestAttentionFusedMatchesComposite(t *testing.T) {
	inf := math.Inf(-1)
	q := tensor.FromSlice([]float64{1, 1, math.NaN(), 1, 0.5, -1}, 3, 2)
	k := tensor.FromSlice([]float64{1, 0, 0, 1, 1, 1}, 3, 2)
	v := tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	vNaN := tensor.FromSlice([]float64{1, 2, 3, math.NaN(), 5, 6}, 3, 2)
	masks := map[string]*tensor.Tensor{
		"none":  nil,
		"bool":  tensor.FromSlice([]bool{false, false, false, true, false, true, true, true, false}, 3, 3),
		"float": tensor.FromSlice([]float64{inf, inf, inf, 0, inf, 0, 1, math.NaN(), 2}, 3, 3),
	}
	for _, dev := range testDevices(t) {
		for name, mask := range masks {
			for _, vv := range []*tensor.Tensor{v, vNaN} {
				for _, dt := range []dtype.DType{dtype.F64, dtype.F32} {
					if !computes(dev, dt) {
						continue
					}
					on := func(x *tensor.Tensor) *tensor.Tensor {
						if x == nil {
							return nil
						}
						if x.DType() != dtype.Bool {
							x = x.Cast(dt)
						}
						return x.To(dev)
					}
					got := normRead(t, tensor.ScaledDotProductAttention(on(q), on(k), on(vv), on(mask), tensor.SDPAOptions{}))
					want := normRead(t, tensor.SDPAComposite(on(q), on(k), on(vv), on(mask), 1/math.Sqrt2, false))
					for i := range want {
						if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-5) {
							t.Errorf("%s mask, %v on %s: fused %v, composite %v", name, dt, dev.Name(), got, want)
							break
						}
					}
				}
			}
		}
	}
}

// The fused kernel never stores the [L, S] scores: attention with L = S =
// 2048 allocates far less than the 16 MiB those would take.
func TestAttentionFusedMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("-race: sync.Pool drops items on purpose, so allocations are not the kernel's")
	}
	const L, E = 2048, 16
	q := tensor.Ones(dtype.F32, 1, L, E)
	k := tensor.Ones(dtype.F32, 1, L, E)
	v := tensor.Ones(dtype.F32, 1, L, E)
	tensor.ScaledDotProductAttention(q, k, v, nil, tensor.SDPAOptions{Causal: true}).Release() // warm pools
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	y := tensor.ScaledDotProductAttention(q, k, v, nil, tensor.SDPAOptions{Causal: true})
	if err := y.Err(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("attention over %d keys allocated %d bytes; the scores alone are %d", L, grew, L*L*4)
	}
	got, _ := y.Float64s()
	if got[0] != 1 || got[len(got)-1] != 1 {
		t.Errorf("attention of ones over ones: %v ... %v, want 1", got[0], got[len(got)-1])
	}
}

// refNormGrad is the float64 gradient of a normalised row: with
// xhat = (x - mean) rstd and gw = g w, dx = rstd (gw - mean(gw) -
// xhat mean(gw xhat)) (no mean(gw) term for RMSNorm); it adds the row's
// g xhat to dw and g to db.
func refNormGrad(op device.NormOp, g, x, w []float64, eps float64, dw, db []float64) []float64 {
	n := len(x)
	y := make([]float64, n)
	mean, rstd := op.Ref(y, x, nil, nil, eps)
	var sg, sgx float64
	gw, xh := make([]float64, n), make([]float64, n)
	for j := range n {
		xh[j] = (x[j] - mean) * rstd
		gw[j] = g[j]
		if w != nil {
			gw[j] *= w[j]
		}
		sg += gw[j]
		sgx += gw[j] * xh[j]
		dw[j] += g[j] * xh[j]
		db[j] += g[j]
	}
	dx := make([]float64, n)
	for j := range n {
		d := gw[j] - xh[j]*sgx/float64(n)
		if op == device.LayerNorm {
			d -= sg / float64(n)
		}
		dx[j] = rstd * d
	}
	return dx
}

// The fused gradient kernel (device.NormBackwarder) against refNormGrad,
// with and without a weight, over a transposed g and enough rows for
// several workers.
func TestNormGradKernel(t *testing.T) {
	const rows, n, eps = 700, 45, 1e-4
	x0 := normRand(61, rows*n, -2, 2)
	g0 := normRand(62, rows*n, -1, 1)
	w0 := normRand(63, n, 0.5, 1.5)
	for _, p := range fusedPrecisions(t) {
		for _, op := range []device.NormOp{device.LayerNorm, device.RMSNorm} {
			for _, withW := range []bool{false, true} {
				x, g := exact(t, x0, p.dt), exact(t, g0, p.dt)
				var w []float64
				var wt *tensor.Tensor
				if withW {
					w = exact(t, w0, p.dt)
					wt = normOn(t, w, []int{n}, p.dev, p.dt)
				}
				xt := normOn(t, x, []int{rows, n}, p.dev, p.dt)
				gT := make([]float64, len(g)) // g stored transposed
				for i := range rows {
					for j := range n {
						gT[j*rows+i] = g[i*n+j]
					}
				}
				gt := normOn(t, gT, []int{n, rows}, p.dev, p.dt).T()
				_, stats := tensor.NormKernel(op, xt, wt, nil, eps)
				grads, err := tensor.NormGradKernel(op, gt, xt, stats, wt, [3]bool{true, true, op == device.LayerNorm})
				what := op.String() + " " + p.dt.String() + " on " + p.dev.Name()
				if errors.Is(err, tensor.ErrUnsupported) {
					continue // this backend composes the gradient
				}
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				dw, db := make([]float64, n), make([]float64, n)
				var dx []float64
				for r := range rows {
					dx = append(dx, refNormGrad(op, g[r*n:(r+1)*n], x[r*n:(r+1)*n], w, eps, dw, db)...)
				}
				tol := fusedTol(p.dt)
				if p.dt == dtype.F32 {
					tol = 1e-4 // sums over 700 rows in f32
				}
				normClose(t, what+" dx", normRead(t, grads[0]), dx, tol)
				normClose(t, what+" dweight", normRead(t, grads[1]), dw, tol*10)
				if op == device.LayerNorm {
					normClose(t, what+" dbias", normRead(t, grads[2]), db, tol*10)
				}
			}
		}
	}
}

// LayerNorm of one row [1, 2, 3, 6]: mean 3, biased variance 3.5, so with
// eps 0.5 every deviation is halved; RMSNorm divides by the root of the
// mean square 12.5 plus eps 3.5, that is by 4.
func ExampleLayerNorm() {
	x := tensor.FromSlice([]float32{1, 2, 3, 6}, 1, 4)
	ln, err := tensor.LayerNorm(x, []int{4}, nil, nil, 0.5).Float64s()
	if err != nil {
		fmt.Println(err)
		return
	}
	rms, _ := tensor.RMSNorm(x, []int{4}, nil, 3.5).Float64s()
	fmt.Println(ln)
	fmt.Println(rms)
	// Output:
	// [-1 -0.5 0 1.5]
	// [0.25 0.5 0.75 1.5]
}
