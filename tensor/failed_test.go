package tensor_test

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// TestFailed: a caller's error travels through later operations unchanged.
func TestFailed(t *testing.T) {
	mine := errs.New("nn", "Linear", errs.ErrShape, "input [2 3] must end in 4 features")
	x := tensor.Failed(mine)
	y := x.Add(tensor.Ones(dtype.F32, 3)).Relu().Sum()
	if err := y.Err(); err != mine || !errors.Is(err, tensor.ErrShape) {
		t.Errorf("after three operations: %v, want the original %v", err, mine)
	}
	if _, err := y.Float64s(); err != mine {
		t.Errorf("readback: %v", err)
	}
	if err := tensor.Failed(nil).Err(); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("Failed(nil): %v, want ErrValue", err)
	}
}
