package device

import (
	"slices"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// AttentionOptions are the options of a fused attention call.
type AttentionOptions struct {
	// Scale multiplies q k^T (the caller resolves the 1/sqrt(E) default).
	Scale float64
	// Causal masks the scores of keys j > i (top-left aligned).
	Causal bool
	// Force runs the fused kernel even where the backend would decline it
	// as slower than the composite (a GPU whose scores fit its bindings);
	// tests use it to exercise the kernel at small sizes.
	Force bool
}

// Attender is implemented by backends with a fused scaled dot-product
// attention (forward only) that never stores the [L, S] scores.
type Attender interface {
	// Attention writes softmax(q k^T * scale + mask) v into dst: q is
	// [..., L, E], k [..., S, E], v [..., S, Ev] and dst [..., L, Ev], all
	// with one batch shape (a broadcast batch axis has stride 0). mask (Buf
	// nil for none) is [..., L, S]: Bool says which scores take part (false
	// is -Inf), a mask of q's dtype is added. A row whose mask leaves no
	// key gives 0 times v (0 for finite v); NaN in the inputs propagates.
	// A backend may decline with ErrUnsupported views it cannot read in
	// place, sizes beyond its limits, or (without opt.Force) work for
	// which the composite is faster.
	Attention(dst, q, k, v, mask Operand, opt AttentionOptions) error
}

// CheckAttention validates an Attention call; mask is nil when absent.
func CheckAttention(pkg string, dst, q, k, v Arg, mask *Arg, opt AttentionOptions) error {
	const name = "Attention"
	r := len(q.Shape)
	if r < 2 || len(k.Shape) != r || len(v.Shape) != r || len(dst.Shape) != r {
		return errs.New(pkg, name, errs.ErrShape, "q %v, k %v, v %v and dst %v need one rank of at least 2", q.Shape, k.Shape, v.Shape, dst.Shape)
	}
	if !q.DType.IsFloat() || k.DType != q.DType || v.DType != q.DType || dst.DType != q.DType {
		return errs.New(pkg, name, errs.ErrDType, "q, k, v and dst must share a floating dtype, have %v, %v, %v and %v", q.DType, k.DType, v.DType, dst.DType)
	}
	batch := q.Shape[:r-2]
	L, E := q.Shape[r-2], q.Shape[r-1]
	S, Ev := k.Shape[r-2], v.Shape[r-1]
	if !slices.Equal(k.Shape, append(slices.Clone(batch), S, E)) || !slices.Equal(v.Shape, append(slices.Clone(batch), S, Ev)) ||
		!slices.Equal(dst.Shape, append(slices.Clone(batch), L, Ev)) {
		return errs.New(pkg, name, errs.ErrShape, "q %v, k %v, v %v and dst %v must be [..., L, E], [..., S, E], [..., S, Ev] and [..., L, Ev]", q.Shape, k.Shape, v.Shape, dst.Shape)
	}
	if mask != nil {
		if mask.DType != dtype.Bool && mask.DType != q.DType {
			return errs.New(pkg, name, errs.ErrDType, "mask must be bool or %v, have %v", q.DType, mask.DType)
		}
		if !slices.Equal(mask.Shape, append(slices.Clone(batch), L, S)) {
			return errs.New(pkg, name, errs.ErrShape, "mask %v must be [..., L, S] = %v", mask.Shape, append(slices.Clone(batch), L, S))
		}
		if opt.Causal {
			return errs.New(pkg, name, errs.ErrValue, "an explicit mask and Causal cannot be combined")
		}
	}
	return nil
}
