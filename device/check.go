package device

import (
	"slices"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// The argument rules of the Backend methods that every backend shares,
// written once: a backend (or the GPU planner) calls these first and keeps
// only its own capability checks (dtypes it cannot compute, limits).

// Arg is what the argument rules read of an operand: its dtype and shape.
type Arg struct {
	DType dtype.DType
	Shape []int
}

// Arg describes o for the argument rules.
func (o Operand) Arg() Arg { return Arg{DType: o.DType(), Shape: o.Layout.Shape} }

// CheckReduce validates a Reduce call: the op and dtypes by the op table,
// axes sorted, distinct and in range (exactly one for ArgMax/ArgMin), the
// destination shaped as src without the reduced axes, and an empty extent
// only for reductions with an identity or into an empty destination.
func CheckReduce(pkg string, op ReduceOp, dst, src Arg, axes []int) error {
	name := op.String()
	want, err := op.Result(pkg, src.DType)
	if err != nil {
		return err
	}
	if dst.DType != want {
		return errs.New(pkg, name, errs.ErrDType, "writes %v for a %v source, destination is %v", want, src.DType, dst.DType)
	}
	shape := src.Shape
	for i, a := range axes {
		if a < 0 || a >= len(shape) || (i > 0 && axes[i-1] >= a) {
			return errs.New(pkg, name, errs.ErrAxis, "axes %v must be sorted, distinct and in [0, %d)", axes, len(shape))
		}
	}
	def, _ := op.Def()
	if def.Arg && len(axes) != 1 {
		return errs.New(pkg, name, errs.ErrAxis, "reduces exactly one axis, have %v", axes)
	}
	kept, count := []int{}, 1
	for i, d := range shape {
		if slices.Contains(axes, i) {
			count *= d
		} else {
			kept = append(kept, d)
		}
	}
	if !slices.Equal(kept, dst.Shape) {
		return errs.New(pkg, name, errs.ErrShape, "destination shape %v, want %v", dst.Shape, kept)
	}
	if count == 0 && !def.EmptyOK && !slices.Contains(dst.Shape, 0) {
		return errs.New(pkg, name, errs.ErrShape, "reduction over an empty extent of shape %v", shape)
	}
	return nil
}

// CheckMatmul validates a Matmul call: a [..., m, k] times b [..., k, n]
// into dst [..., m, n], one rank >= 2 with equal batch axes (broadcasting
// happens above the backends), and one dtype for all three.
func CheckMatmul(pkg string, dst, a, b Arg) error {
	as, bs, ds := a.Shape, b.Shape, dst.Shape
	r := len(as)
	if r < 2 || len(bs) != r || len(ds) != r ||
		!slices.Equal(as[:r-2], bs[:r-2]) || !slices.Equal(as[:r-2], ds[:r-2]) ||
		as[r-1] != bs[r-2] || ds[r-2] != as[r-2] || ds[r-1] != bs[r-1] {
		return errs.New(pkg, "Matmul", errs.ErrShape, "cannot multiply %v by %v into %v", as, bs, ds)
	}
	if a.DType != b.DType || a.DType != dst.DType {
		return errs.New(pkg, "Matmul", errs.ErrDType, "operands %v and %v into %v", a.DType, b.DType, dst.DType)
	}
	if a.DType == dtype.Bool {
		return errs.New(pkg, "Matmul", errs.ErrDType, "not defined for bool")
	}
	return nil
}
