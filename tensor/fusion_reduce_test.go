package tensor_test

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// refReduce reduces vals (row-major over shape) over axes in float64:
// the reference the fused reductions are checked against.
func refReduce(op string, vals []float64, shape, axes []int) []float64 {
	red := make([]bool, len(shape))
	for _, a := range axes {
		red[a] = true
	}
	outIndex := func(flat int) int {
		o, rem := 0, flat
		idx := make([]int, len(shape))
		for a := len(shape) - 1; a >= 0; a-- {
			idx[a] = rem % shape[a]
			rem /= shape[a]
		}
		for a, d := range shape {
			if !red[a] {
				o = o*d + idx[a]
			}
		}
		return o
	}
	outs, count := 1, 1
	for a, d := range shape {
		if red[a] {
			count *= d
		} else {
			outs *= d
		}
	}
	res := make([]float64, outs)
	seen := make([]bool, outs)
	for i := range res {
		switch op {
		case "Prod":
			res[i] = 1
		}
	}
	for flat, v := range vals {
		o := outIndex(flat)
		switch op {
		case "Sum", "Mean":
			res[o] += v
		case "Prod":
			res[o] *= v
		case "Max", "Min":
			if !seen[o] || math.IsNaN(v) || (!math.IsNaN(res[o]) && ((op == "Max" && v > res[o]) || (op == "Min" && v < res[o]))) {
				if !(seen[o] && math.IsNaN(res[o])) {
					res[o] = v
				}
			}
			seen[o] = true
		}
	}
	if op == "Mean" {
		for i := range res {
			res[i] /= float64(count)
		}
	}
	return res
}

// fusedReductions are reductions over pending elementwise graphs.
var fusedReductions = []struct {
	op   string
	f    func(x *tensor.Tensor, axes ...int) *tensor.Tensor
	axes []int
}{
	{"Sum", (*tensor.Tensor).Sum, nil},
	{"Sum", (*tensor.Tensor).Sum, []int{0}},
	{"Sum", (*tensor.Tensor).Sum, []int{2}},
	{"Mean", (*tensor.Tensor).Mean, []int{0, 2}},
	{"Mean", (*tensor.Tensor).Mean, nil},
	{"Max", (*tensor.Tensor).Max, []int{1}},
	{"Max", (*tensor.Tensor).Max, nil},
	{"Min", (*tensor.Tensor).Min, []int{-1}},
	{"Prod", (*tensor.Tensor).Prod, []int{1}},
}

// TestFusedReduceValues reduces pending chains (over contiguous,
// transposed and broadcast inputs) on every device and float dtype, with
// fusion on and off, against a float64 reference; with fusion on the
// chain must still be pending afterwards (it was never materialised). On
// the CPU, F16 and BF16 results must match bit for bit with fusion on and
// off: the fused prologue rounds every step, as the materialised chain
// does, and both reductions then run the same code.
func TestFusedReduceValues(t *testing.T) {
	shape := []int{6, 5, 9}
	n := 6 * 5 * 9
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = math.Sin(float64(i)*0.37) * 1.5
		ys[i] = math.Cos(float64(i)*0.11) * 0.5
	}
	bs := []float64{0.5, -0.25, 1, 0.125, -1, 0.75, 0.3, -0.6, 0.2}
	chains := []struct {
		name string
		f    func(x, y, b *tensor.Tensor) *tensor.Tensor
		ref  func(x, y, b float64) float64
	}{
		{"square", func(x, y, b *tensor.Tensor) *tensor.Tensor { return x.Square() }, func(x, y, b float64) float64 { return x * x }},
		{"abs-diff", func(x, y, b *tensor.Tensor) *tensor.Tensor { return x.Sub(y).Abs() }, func(x, y, b float64) float64 { return math.Abs(x - y) }},
		{"bias-tanh", func(x, y, b *tensor.Tensor) *tensor.Tensor { return x.Add(b).Tanh().MulScalar(0.9).AddScalar(1.05) },
			func(x, y, b float64) float64 { return math.Tanh(x+b)*0.9 + 1.05 }},
		// Four walked inputs (a view of x is an input of its own): the
		// GPU kernel's second walk.
		{"four-inputs", func(x, y, b *tensor.Tensor) *tensor.Tensor { return x.Mul(y).Add(b).Sub(x.Detach().MulScalar(0.5)) },
			func(x, y, b float64) float64 { return x*y + b - x*0.5 }},
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16} {
			if !computes(dev, dt) {
				continue
			}
			tol := map[dtype.DType]float64{dtype.F32: 2e-5, dtype.F64: 1e-12, dtype.F16: 4e-3, dtype.BF16: 3e-2}[dt]
			exact := dev.Info().Type == "cpu" && (dt == dtype.F16 || dt == dtype.BF16)
			x := tensor.FromSlice(xs, shape...).Cast(dt).To(dev)
			y := tensor.FromSlice(ys, 9, 5, 6).Cast(dt).To(dev).Permute(2, 1, 0) // a transposed view
			b := tensor.FromSlice(bs, 9).Cast(dt).To(dev)                        // broadcast
			// The reference reads the inputs as rounded to dt.
			xr, _ := tensor.ToSlice[float64](x.To(device.CPU()).Cast(dtype.F64))
			yr, _ := tensor.ToSlice[float64](y.Contiguous().To(device.CPU()).Cast(dtype.F64))
			br, _ := tensor.ToSlice[float64](b.To(device.CPU()).Cast(dtype.F64))
			for _, c := range chains {
				want := make([]float64, n)
				for i := range want {
					want[i] = c.ref(xr[i], yr[i], br[i%9])
				}
				for _, r := range fusedReductions {
					var fusedVals []float64
					for _, fuse := range []bool{true, false} {
						name := fmt.Sprintf("%s/%v/%s/%s%v/fusion=%v", dev.Name(), dt, c.name, r.op, r.axes, fuse)
						restore := tensor.SetFusion(fuse)
						e := c.f(x, y, b)
						got := r.f(e, r.axes...)
						if fuse && !tensor.IsPending(e) {
							t.Errorf("%s: the elementwise graph was materialised", name)
						}
						restore()
						gv, err := tensor.ToSlice[float64](got.To(device.CPU()).Cast(dtype.F64))
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						axes := r.axes
						if axes == nil {
							axes = []int{0, 1, 2}
						}
						for i, a := range axes {
							if a < 0 {
								axes = append([]int(nil), axes...)
								axes[i] = a + len(shape)
							}
						}
						if fuse {
							fusedVals = gv
						} else if exact && !slices.EqualFunc(gv, fusedVals, func(a, b float64) bool { return a == b || a != a && b != b }) {
							t.Errorf("%s: %v with fusion off, %v with it on", name, gv, fusedVals)
						}
						ref := refReduce(r.op, want, shape, axes)
						if len(gv) != len(ref) {
							t.Fatalf("%s: %d values, want %d", name, len(gv), len(ref))
						}
						scale := 1.0
						if r.op == "Sum" || r.op == "Prod" {
							scale = float64(n) // relative to a sum of many terms
						}
						for i := range ref {
							if d := math.Abs(gv[i] - ref[i]); d > tol*scale*math.Max(1, math.Abs(ref[i])) && !(math.IsNaN(gv[i]) && math.IsNaN(ref[i])) {
								t.Errorf("%s: [%d] = %v, want %v", name, i, gv[i], ref[i])
								break
							}
						}
					}
				}
			}
		}
	}
}

// TestFusedReduceAllocatesOnlyItsResult proves that a reduction of a
// pending chain allocates no intermediate: device memory grows by the
// result only with fusion on, by the whole square with fusion off (which
// shows the test can fail).
func TestFusedReduceAllocatesOnlyItsResult(t *testing.T) {
	const n = 1 << 20
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(i%1000) / 1000
	}
	var want float64
	for _, v := range vals {
		want += float64(v) * float64(v)
	}
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice(vals, n).To(dev)
		for _, fuse := range []bool{true, false} {
			restore := tensor.SetFusion(fuse)
			runtime.GC()
			base := dev.Backend().MemoryInUse()
			sq := x.Square()
			s := sq.Sum()
			got, err := s.Item()
			grew := dev.Backend().MemoryInUse() - base
			restore()
			if err != nil {
				t.Fatalf("%s: %v", dev.Name(), err)
			}
			if math.Abs(got-want) > 1e-4*want {
				t.Errorf("%s fusion=%v: sum of squares %v, want %v", dev.Name(), fuse, got, want)
			}
			if fuse && grew >= n*4 {
				t.Errorf("%s: x.Square().Sum() grew device memory by %d bytes: the square was materialised", dev.Name(), grew)
			}
			if !fuse && grew < n*4 {
				t.Errorf("%s: without fusion the square (%d bytes) should be held, memory grew by %d", dev.Name(), n*4, grew)
			}
			runtime.KeepAlive(sq)
			sq.Release()
			s.Release()
		}
		x.Release()
	}
}
