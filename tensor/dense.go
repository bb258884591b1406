package tensor

import (
	"gonum.org/v1/gonum/mat"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// FromDense builds an F64 CPU tensor of shape [rows, cols] holding a copy
// of m's elements (a view of a larger matrix, with a stride, included).
// Tensor storage is immutable and a mat.Dense is not, so the two never
// share memory. An empty m (mat's zero value) gives shape [0, 0]; a nil m
// is an ErrValue tensor.
func FromDense(m *mat.Dense) *Tensor {
	const op = "FromDense"
	if m == nil {
		return fail(op, errs.ErrValue, "nil *mat.Dense")
	}
	if m.IsEmpty() {
		return hostTensor(op, dtype.F64, []int{0, 0}, nil)
	}
	raw := m.RawMatrix()
	return hostTensor(op, dtype.F64, []int{raw.Rows, raw.Cols}, func(b []byte) error {
		dst := view[float64](b)
		for i := range raw.Rows {
			copy(dst[i*raw.Cols:(i+1)*raw.Cols], raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols])
		}
		return nil
	})
}

// FromVecDense builds an F64 CPU tensor of shape [n] holding a copy of v's
// elements (a strided view included). An empty v gives shape [0]; a nil v
// is an ErrValue tensor.
func FromVecDense(v *mat.VecDense) *Tensor {
	const op = "FromVecDense"
	if v == nil {
		return fail(op, errs.ErrValue, "nil *mat.VecDense")
	}
	if v.IsEmpty() {
		return hostTensor(op, dtype.F64, []int{0}, nil)
	}
	raw := v.RawVector()
	return hostTensor(op, dtype.F64, []int{raw.N}, func(b []byte) error {
		dst := view[float64](b)
		for i := range raw.N {
			dst[i] = raw.Data[i*raw.Inc]
		}
		return nil
	})
}

// Dense copies a rank-2 float tensor (f32, f64, f16 or bf16, on any
// device, any view) into a new *mat.Dense, converting the elements to
// float64 exactly. Another rank is an ErrShape, as is an axis of extent 0
// (a mat.Dense cannot be empty); an integer or bool tensor is an ErrDType
// (Cast it first).
func (t *Tensor) Dense() (*mat.Dense, error) {
	const op = "Dense"
	vals, err := t.float64sOf(op, 2)
	if err != nil {
		return nil, err
	}
	sh := t.Shape()
	return mat.NewDense(sh[0], sh[1], vals), nil
}

// VecDense copies a rank-1 float tensor into a new *mat.VecDense, as Dense
// does for matrices.
func (t *Tensor) VecDense() (*mat.VecDense, error) {
	const op = "VecDense"
	vals, err := t.float64sOf(op, 1)
	if err != nil {
		return nil, err
	}
	return mat.NewVecDense(len(vals), vals), nil
}

// float64sOf checks that t is a non-empty float tensor of the given rank
// and returns its values as float64.
func (t *Tensor) float64sOf(op string, rank int) ([]float64, error) {
	if err := t.check(op); err != nil {
		return nil, err
	}
	sh := t.Shape()
	if len(sh) != rank {
		return nil, errs.New("tensor", op, errs.ErrShape, "tensor of shape %v has rank %d, want %d", sh, len(sh), rank)
	}
	for _, d := range sh {
		if d == 0 {
			return nil, errs.New("tensor", op, errs.ErrShape, "tensor of shape %v is empty, which gonum cannot hold", sh)
		}
	}
	if dt := t.DType(); !dt.IsFloat() {
		return nil, errs.New("tensor", op, errs.ErrDType, "tensor holds %v, want a float dtype (Cast first)", dt)
	}
	vals, err := t.Float64s()
	if err != nil {
		return nil, errs.Retag("tensor", op, err)
	}
	return vals, nil
}
