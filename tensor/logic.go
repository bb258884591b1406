package tensor

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// The logical reductions and the aliases of the op table's operations.
// And, Or, Xor, Not, IsNaN, IsInf, IsFinite, Mod, Fmod, Atan2, LeakyRelu
// and Elu are generated from the op table (ops_gen.go).

// truth returns t as Bool: t itself when it is Bool, else t != 0 (NaN
// counts as true), NumPy's rule for any and all.
func (t *Tensor) truth() *Tensor {
	if t.err == nil && t.DType() == dtype.Bool {
		return t
	}
	return t.NeScalar(0)
}

func (t *Tensor) logical(op device.ReduceOp, keep bool, axes []int) *Tensor {
	b := t.truth()
	if b != t {
		defer b.Release()
	}
	return b.reduce(op, keep, axes)
}

// Any reports, as Bool, whether any element over the given axes (all when
// none are given) is true or nonzero (NaN counts as true), as NumPy's any;
// over an empty extent it is false.
func (t *Tensor) Any(axes ...int) *Tensor { return t.logical(device.Any, false, axes) }

// AnyKeepDims is Any keeping the reduced axes with extent 1.
func (t *Tensor) AnyKeepDims(axes ...int) *Tensor { return t.logical(device.Any, true, axes) }

// All reports, as Bool, whether every element over the given axes (all
// when none are given) is true or nonzero, as NumPy's all; over an empty
// extent it is true.
func (t *Tensor) All(axes ...int) *Tensor { return t.logical(device.All, false, axes) }

// AllKeepDims is All keeping the reduced axes with extent 1.
func (t *Tensor) AllKeepDims(axes ...int) *Tensor { return t.logical(device.All, true, axes) }

// Remainder is Mod, the floored remainder with the sign of u, under the
// name NumPy (remainder) and PyTorch (remainder) also give it. For the
// truncated remainder with the sign of t (C's fmod) use Fmod.
func (t *Tensor) Remainder(u *Tensor) *Tensor { return t.Mod(u) }

// RemainderScalar is Remainder with a scalar divisor: ModScalar.
func (t *Tensor) RemainderScalar(v float64) *Tensor { return t.ModScalar(v) }

// checkIntB enforces a NonNegativeIntB rule (integer Pow): for an integer
// a, every element of b must be >= 0. It reads b's minimum back to the
// host, which waits for b on a GPU.
func checkIntB(op device.BinaryOp, a, b *Tensor) error {
	def, ok := op.Def()
	if !ok || !def.NonNegativeIntB || a.err != nil || b.err != nil || !device.Ints.Has(a.DType()) ||
		a.DType() != b.DType() || b.Numel() == 0 {
		return nil
	}
	m := b.Min()
	defer m.Release()
	v, err := m.Item()
	if err != nil {
		return err
	}
	return negativeIntB(op, v)
}

func negativeIntB(op device.BinaryOp, v float64) error {
	if v < 0 {
		return errs.New("tensor", op.String(), errs.ErrValue, "integers to negative integer powers are not allowed (exponent %v); Cast to a float dtype first", v)
	}
	return nil
}
