package tensor_test

import (
	"errors"
	"math"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// refVar is the two-pass variance of v with ddof, in float64.
func refVar(v []float64, ddof int) float64 {
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(v)-ddof)
}

// TestVarStdNorm checks Var, Std and Norm against float64 references on
// every device, over all axes and over one, with ddof 0 (NumPy's default)
// and 1 (PyTorch's), including data with a large mean where E[x^2]-E[x]^2
// would lose every digit.
func TestVarStdNorm(t *testing.T) {
	rows, cols := 3, 5
	base := make([]float64, rows*cols)
	for i := range base {
		base[i] = 1e4 + math.Sin(float64(i))*0.5 // large mean, small spread
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			if !computes(dev, dt) {
				continue
			}
			x := tensor.FromSlice(base, rows, cols).Cast(dt).To(dev)
			stored, _ := tensor.ToSlice[float64](x.To(device.CPU()).Cast(dtype.F64))
			rtol := map[dtype.DType]float64{dtype.F32: 2e-3, dtype.F64: 1e-9}[dt]
			read := func(y *tensor.Tensor) []float64 {
				v, err := tensor.ToSlice[float64](y.To(device.CPU()).Cast(dtype.F64))
				if err != nil {
					t.Fatalf("%s %v: %v", dev.Name(), dt, err)
				}
				return v
			}
			near := func(what string, got, want float64) {
				if math.Abs(got-want) > rtol*math.Abs(want)+1e-12 {
					t.Errorf("%s %v %s = %v, want %v", dev.Name(), dt, what, got, want)
				}
			}
			for _, ddof := range []int{0, 1} {
				near("Var(all)", read(x.Var(ddof))[0], refVar(stored, ddof))
				near("Std(all)", read(x.Std(ddof))[0], math.Sqrt(refVar(stored, ddof)))
				got := read(x.Var(ddof, 1))
				for r := range rows {
					near("Var(axis 1)", got[r], refVar(stored[r*cols:(r+1)*cols], ddof))
				}
				col := make([]float64, rows)
				got = read(x.VarKeepDims(ddof, 0))
				if s := x.VarKeepDims(ddof, 0).Shape(); len(s) != 2 || s[0] != 1 || s[1] != cols {
					t.Errorf("VarKeepDims shape %v", s)
				}
				for c := range cols {
					for r := range rows {
						col[r] = stored[r*cols+c]
					}
					near("Var(axis 0)", got[c], refVar(col, ddof))
				}
			}
			var l1, l2, linf float64
			for _, v := range stored {
				l1 += math.Abs(v)
				l2 += v * v
				linf = math.Max(linf, math.Abs(v))
			}
			near("Norm(1)", read(x.Norm(1))[0], l1)
			near("Norm(2)", read(x.Norm(2))[0], math.Sqrt(l2))
			near("Norm(Inf)", read(x.Norm(math.Inf(1)))[0], linf)
		}
	}
	x := tensor.Ones(dtype.F32, 3)
	for name, err := range map[string]error{
		"Var of ints":    tensor.Ones(dtype.I32, 3).Var(0).Err(),
		"bad axis":       x.Var(0, 4).Err(),
		"Norm order NaN": x.Norm(math.NaN()).Err(),
	} {
		if err == nil || !(errors.Is(err, tensor.ErrDType) || errors.Is(err, tensor.ErrValue) || errors.Is(err, tensor.ErrAxis)) {
			t.Errorf("%s: %v, want a typed error", name, err)
		}
	}
	// A negative ddof divides by N - ddof > N, as NumPy: [1, 2, 4, 7, -3]
	// has 54.8 of squared deviations, so ddof -1 gives 54.8/6; a ddof that
	// would overflow N - ddof as an int still divides in float64.
	d := tensor.FromSlice([]float32{1, 2, 4, 7, -3}, 5)
	for _, c := range []struct {
		ddof int
		want float64
	}{{-1, 54.8 / 6}, {-5, 54.8 / 10}, {math.MinInt, 54.8 / (5 - float64(math.MinInt))}} {
		v, err := tensor.ToSlice[float32](d.Var(c.ddof))
		if err != nil || math.Abs(float64(v[0])-c.want) > 1e-6*c.want {
			t.Errorf("Var(%d) = %v, %v, want %v", c.ddof, v, err, c.want)
		}
	}
	if v, _ := tensor.ToSlice[float32](tensor.Ones(dtype.F32, 1).Var(1)); !math.IsNaN(float64(v[0])) {
		t.Errorf("Var with N - ddof = 0 of equal values = %v, want NaN as NumPy", v)
	}
}
