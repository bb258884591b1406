package tensor_test

import (
	"errors"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

func TestFromDense(t *testing.T) {
	m := mat.NewDense(3, 4, []float64{
		0, 1, 2, 3,
		4, 5, 6, 7,
		8, 9, 10, 11,
	})
	sub := m.Slice(1, 3, 1, 3).(*mat.Dense) // a strided view: [[5 6] [9 10]]
	x := tensor.FromDense(sub)
	if v, err := x.Float64s(); err != nil || x.DType() != dtype.F64 || !slices.Equal(x.Shape(), []int{2, 2}) || !slices.Equal(v, []float64{5, 6, 9, 10}) {
		t.Fatalf("FromDense(slice) = %v %v %v, %v", x.DType(), x.Shape(), v, err)
	}
	m.Set(1, 1, -1) // the tensor holds a copy
	if v, _ := x.Float64s(); v[0] != 5 {
		t.Errorf("FromDense shares memory with the matrix: %v", v)
	}
	if x := tensor.FromDense(&mat.Dense{}); x.Err() != nil || !slices.Equal(x.Shape(), []int{0, 0}) {
		t.Errorf("FromDense(empty) = %v, %v", x.Shape(), x.Err())
	}
	if err := tensor.FromDense(nil).Err(); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("FromDense(nil): %v", err)
	}
	v := mat.NewVecDense(6, []float64{0, 1, 2, 3, 4, 5})
	sv := mat.NewDense(2, 3, v.RawVector().Data).ColView(1).(*mat.VecDense) // stride 3: [1 4]
	if got, err := tensor.FromVecDense(sv).Float64s(); err != nil || !slices.Equal(got, []float64{1, 4}) {
		t.Errorf("FromVecDense(strided) = %v, %v", got, err)
	}
	if x := tensor.FromVecDense(&mat.VecDense{}); x.Err() != nil || !slices.Equal(x.Shape(), []int{0}) {
		t.Errorf("FromVecDense(empty) = %v, %v", x.Shape(), x.Err())
	}
	if err := tensor.FromVecDense(nil).Err(); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("FromVecDense(nil): %v", err)
	}
}

func TestDense(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16} {
			if !supports(dev, dt) {
				continue
			}
			// A transposed view: [[0 3] [1 4] [2 5]].
			x := tensor.Arange(dtype.F32, 0, 6, 1).Reshape(2, 3).Cast(dt).To(dev).Transpose(0, 1)
			m, err := x.Dense()
			if err != nil {
				t.Fatalf("%s %v: %v", dev.Name(), dt, err)
			}
			if r, c := m.Dims(); r != 3 || c != 2 || !mat.Equal(m, mat.NewDense(3, 2, []float64{0, 3, 1, 4, 2, 5})) {
				t.Errorf("%s %v: Dense = %v", dev.Name(), dt, mat.Formatted(m))
			}
			v, err := x.Narrow(1, 1, 1).Reshape(3).VecDense()
			if err != nil || v.Len() != 3 || v.AtVec(0) != 3 || v.AtVec(2) != 5 {
				t.Errorf("%s %v: VecDense = %v, %v", dev.Name(), dt, v, err)
			}
		}
	}
	// Round trip through gonum.
	m := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	var inv mat.Dense
	if err := inv.Inverse(m); err != nil {
		t.Fatal(err)
	}
	back, err := tensor.FromDense(&inv).Matmul(tensor.FromDense(m)).Dense()
	if err != nil || !mat.EqualApprox(back, mat.NewDense(2, 2, []float64{1, 0, 0, 1}), 1e-12) {
		t.Errorf("inv(m) @ m = %v, %v", back, err)
	}
	for _, c := range []struct {
		name string
		x    *tensor.Tensor
		kind error
	}{
		{"rank 1", tensor.Ones(dtype.F64, 3), tensor.ErrShape},
		{"rank 3", tensor.Ones(dtype.F64, 1, 2, 3), tensor.ErrShape},
		{"empty", tensor.Ones(dtype.F64, 0, 3), tensor.ErrShape},
		{"int", tensor.Ones(dtype.I64, 2, 2), tensor.ErrDType},
		{"bool", tensor.Ones(dtype.Bool, 2, 2), tensor.ErrDType},
		{"failed", tensor.Ones(dtype.F64, 2).Reshape(3), tensor.ErrShape},
		{"nil", nil, tensor.ErrValue},
	} {
		if _, err := c.x.Dense(); !errors.Is(err, c.kind) {
			t.Errorf("Dense of %s: %v, want %v", c.name, err, c.kind)
		}
	}
	if _, err := tensor.Ones(dtype.F64, 2, 2).VecDense(); !errors.Is(err, tensor.ErrShape) {
		t.Errorf("VecDense of a matrix: %v", err)
	}
	if _, err := tensor.Ones(dtype.F64, 0).VecDense(); !errors.Is(err, tensor.ErrShape) {
		t.Errorf("VecDense of an empty vector: %v", err)
	}
}
