package tensor

import (
	"io"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/npy"
)

// ReadNPY reads one array in NumPy's .npy format from r into a CPU tensor
// (any of NumPy's byte orders and memory orders; see package npy). A
// malformed or unsupported file is an error of kind ErrValue, ErrDType or
// ErrShape, never a panic. The tensor's storage is allocated as soon as the
// header is read, so an array over the CPU allocation limit is an
// ErrOutOfMemory before any of its data is read, and the data is read
// straight into the storage, without a second full-size copy.
func ReadNPY(r io.Reader) *Tensor {
	const op = "ReadNPY"
	var t *Tensor
	_, err := npy.ReadInto(r, func(dt dtype.DType, shape []int, nbytes int64) ([]byte, error) {
		t = hostTensor(op, dt, shape, nil)
		if t.err != nil {
			return nil, t.err
		}
		return t.hostBytes(), nil
	})
	if err != nil {
		t.Release() // a truncated file frees the storage at once
		return failed(errs.Retag("tensor", op, err))
	}
	return t
}

// WriteNPY writes t's values, in row-major order, to w in NumPy's .npy
// format (version 1.0, little-endian). BF16 has no .npy type: Cast first.
func (t *Tensor) WriteNPY(w io.Writer) error {
	if t.DType() == dtype.BF16 {
		return errs.New("tensor", "WriteNPY", errs.ErrDType, "%v has no .npy type (Cast to f32 first)", t.DType())
	}
	c, err := t.hostContiguous("WriteNPY")
	if err != nil {
		return err
	}
	defer c.Release()
	if err := npy.Write(w, &npy.Array{DType: c.DType(), Shape: c.Shape(), Data: c.hostBytes()}); err != nil {
		return errs.Retag("tensor", "WriteNPY", err)
	}
	return nil
}
