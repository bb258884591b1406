package tensor_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// refSoftmaxLine is softmax (or log-softmax) of one line in float64 by its
// definition: NaN for a line holding NaN or +Inf or only -Inf, else
// exp(x - max) / sum (log: x - max - log(sum)).
func refSoftmaxLine(x []float64, log bool) []float64 {
	out := make([]float64, len(x))
	m := math.Inf(-1)
	for _, v := range x {
		if v != v || math.IsInf(v, 1) {
			m = math.NaN()
			break
		}
		m = math.Max(m, v)
	}
	if m != m || math.IsInf(m, -1) {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	for i, v := range x {
		if log {
			out[i] = v - m - math.Log(s)
		} else {
			out[i] = math.Exp(v-m) / s
		}
	}
	return out
}

// TestSoftmaxCPUKernel checks the CPU's Softmax and LogSoftmax kernel on
// F32 and F64 along the last axis, along axis 0, through a transposed and
// a flipped view, with lines holding NaN, +Inf, only -Inf, some -Inf and
// large values, against refSoftmaxLine: NaN exactly where the reference
// is NaN, else within 2e-6 (F32) or 1e-13 (F64) of it, relative to
// max(1, |reference|).
func TestSoftmaxCPUKernel(t *testing.T) {
	const rows, n = 6, 300
	rng := rand.New(rand.NewPCG(4, 4))
	vals := make([]float64, rows*n)
	for i := range vals {
		vals[i] = rng.NormFloat64() * 4
	}
	vals[0*n+17] = math.NaN()
	vals[1*n+250] = math.Inf(1)
	for i := range n {
		vals[2*n+i] = math.Inf(-1) // all -Inf
	}
	vals[3*n+5], vals[3*n+6] = math.Inf(-1), math.Inf(-1)
	vals[4*n+9] = 1e30 // one dominant element
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
		tol := map[dtype.DType]float64{dtype.F32: 2e-6, dtype.F64: 1e-13}[dt]
		x := tensor.FromSlice(vals, rows, n).Cast(dt)
		for _, log := range []bool{false, true} {
			for _, view := range []string{"rows", "axis0", "transposed", "flipped"} {
				name := fmt.Sprintf("%v/log=%v/%s", dt, log, view)
				sm := func(t *tensor.Tensor, ax int) *tensor.Tensor {
					if log {
						return t.LogSoftmax(ax)
					}
					return t.Softmax(ax)
				}
				var y *tensor.Tensor
				at := func(r, i int) int { return r*n + i }
				switch view {
				case "rows":
					y = sm(x, 1)
				case "axis0":
					y = sm(x.T().Contiguous(), 0)
					at = func(r, i int) int { return i*rows + r }
				case "transposed":
					y = sm(x.T(), 0).Contiguous()
					at = func(r, i int) int { return i*rows + r }
				case "flipped": // a negative stride along the axis
					y = sm(x.Flip(1), 1)
					at = func(r, i int) int { return r*n + (n - 1 - i) }
				}
				got, err := y.Float64s()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for r := range rows {
					line := make([]float64, n)
					for i := range n {
						line[i] = float64(float32(vals[r*n+i]))
						if dt == dtype.F64 {
							line[i] = vals[r*n+i]
						}
					}
					want := refSoftmaxLine(line, log)
					for i := range n {
						g, w := got[at(r, i)], want[i]
						if (g != g) != (w != w) || (w == w && math.Abs(g-w) > tol*math.Max(1, math.Abs(w))) {
							t.Fatalf("%s: line %d element %d = %v, want %v", name, r, i, g, w)
						}
					}
				}
			}
		}
	}
}
