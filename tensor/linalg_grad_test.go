package tensor_test

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// wellConditioned adds 5·I to each matrix of x: the inputs' entries lie in
// [-2, 2], so the sum is diagonally dominant enough to invert accurately in
// float32 and has a positive determinant.
func wellConditioned(x *tensor.Tensor) *tensor.Tensor {
	n := x.Shape()[x.Rank()-1]
	return x.Add(tensor.Eye(x.DType(), n).To(x.Device()).MulScalar(5))
}

// TestGradLinalg checks the gradients of Inv, Solve (vectors, matrices,
// broadcast batches), Det, SlogDet's log|det|, LogDet and Cholesky against
// finite differences, and their float32 values on every device.
func TestGradLinalg(t *testing.T) {
	checkGradCases(t, []gradCase{
		{name: "Inv/batch", in: []gcIn{gstd(2, 3, 3)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Inv(wellConditioned(x[0])) }},
		{name: "Solve/matrix", in: []gcIn{gstd(3, 3), gstd(3, 2)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Solve(wellConditioned(x[0]), x[1]) }},
		{name: "Solve/vector-broadcast-batch", in: []gcIn{gstd(2, 3, 3), gstd(3)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Solve(wellConditioned(x[0]), x[1]) }},
		{name: "Solve/matrix-broadcast-a", in: []gcIn{gstd(1, 3, 3), gstd(2, 3, 2)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Solve(wellConditioned(x[0]), x[1]) }},
		{name: "Det/batch", in: []gcIn{gstd(2, 3, 3)},
			f: func(x gcTs) *tensor.Tensor { return tensor.Det(x[0]) }},
		{name: "SlogDet/logabs", in: []gcIn{gstd(2, 3, 3)},
			f: func(x gcTs) *tensor.Tensor {
				_, l := tensor.SlogDet(wellConditioned(x[0]).Neg())
				return l
			}},
		{name: "LogDet", in: []gcIn{gstd(3, 3)},
			f: func(x gcTs) *tensor.Tensor { return tensor.LogDet(wellConditioned(x[0])) }},
		{name: "Cholesky/batch", in: []gcIn{gstd(2, 3, 3)},
			f: func(x gcTs) *tensor.Tensor {
				// x·xᵀ + 5·I: symmetric positive definite for any x, as
				// the finite differences need (Cholesky reads the lower
				// triangle only, so its gradient is the symmetric one).
				return tensor.Cholesky(wellConditioned(x[0].Matmul(x[0].Transpose(-2, -1))))
			}},
	})
}

// TestDetGradSingular checks Det's gradient at singular matrices, where
// A⁻ᵀ does not exist but the cofactor matrix (PyTorch's gradient) does:
// rank one, rank n-1 and zero, beside an invertible matrix of the same
// batch.
func TestDetGradSingular(t *testing.T) {
	for _, c := range []struct {
		name string
		a    []float64 // 2x2 matrices, a batch of two
		want []float64
	}{
		// cof([[a, b], [c, d]]) = [[d, -c], [-b, a]]
		{"rank one and invertible", []float64{1, 2, 2, 4, 3, 1, 1, 2}, []float64{4, -2, -2, 1, 2, -1, -1, 3}},
		{"zero", []float64{0, 0, 0, 0, 1, 0, 0, 1}, []float64{0, 0, 0, 0, 1, 0, 0, 1}},
	} {
		for _, dt := range []dtype.DType{dtype.F64, dtype.F32} {
			for _, dev := range testDevices(t) {
				if dt == dtype.F64 && dev.Name() != "cpu" {
					continue // the GPUs' kernels have no float64
				}
				a := tensor.FromSlice(c.a, 2, 2, 2).Cast(dt).To(dev).RequiresGrad()
				if err := tensor.Det(a).Sum().Backward(); err != nil {
					t.Fatalf("%s %v on %s: %v", c.name, dt, dev.Name(), err)
				}
				checkClose(t, c.name+" on "+dev.Name(), a.Grad(), c.want, 1e-5)
			}
		}
	}
	// 3x3 of rank two: the cofactors of diag(2, 3, 0) are diag(0, 0, 6).
	a := tensor.FromSlice([]float64{2, 0, 0, 0, 3, 0, 0, 0, 0}, 3, 3).RequiresGrad()
	if err := tensor.Det(a).Backward(); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "diag(2, 3, 0)", a.Grad(), []float64{0, 0, 0, 0, 0, 0, 0, 0, 6}, 1e-12)
}

// TestLinalgNoGradient checks that Backward through the operations without
// a gradient rule reports ErrUnsupported instead of ending the graph there
// silently.
func TestLinalgNoGradient(t *testing.T) {
	a := tensor.FromSlice([]float64{2, 1, 1, 3}, 2, 2).RequiresGrad()
	w, _ := tensor.Eigh(a)
	_, s, _ := tensor.SVD(a)
	q, _ := tensor.QR(a)
	x := tensor.Lstsq(a, tensor.Ones(dtype.F64, 2))
	for name, y := range map[string]*tensor.Tensor{"Eigh": w, "SVD": s, "QR": q, "Lstsq": x} {
		if err := y.Sum().Backward(); !errors.Is(err, errs.ErrUnsupported) {
			t.Errorf("%s: Backward gave %v, want ErrUnsupported", name, err)
		}
	}
}
