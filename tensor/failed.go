package tensor

import "github.com/tessera-go/tessera/errs"

// Failed returns a tensor that carries err, as the result of a failed
// operation does: Err reports it and every operation on it returns it.
// Packages built on tensor (nn, optim) use it to return their own typed
// errors where a tensor is expected, so model code still checks once. A
// nil err gives an ErrValue tensor (a tensor is either valid or failed).
func Failed(err error) *Tensor {
	if err == nil {
		err = errs.New("tensor", "Failed", errs.ErrValue, "no error given")
	}
	return failed(err)
}
