package vec

import (
	"math"

	"github.com/tessera-go/tessera/errs"
)

// AdamCoeffs are the scalars of one Adam update (Kingma and Ba, in
// PyTorch's formulation), each already in the element type: the decay
// rates and their complements, the square root of the second moment's bias
// correction, epsilon, and the step size lr/(1-beta1^t).
type AdamCoeffs[T Float] struct {
	B1, OneMinusB1 T // beta1, 1-beta1
	B2, OneMinusB2 T // beta2, 1-beta2
	SqrtBC2        T // sqrt(1 - beta2^t)
	Eps            T
	Step           T // lr / (1 - beta1^t)
}

// Adam computes one Adam update of n = len(w) elements in one pass over
// memory, from the value w, the gradient g and the moments m and v, into
// nw, nm and nv:
//
//	nm = m*B1 + g*OneMinusB1
//	nv = v*B2 + (g*g)*OneMinusB2
//	nw = w - (nm / (sqrt(nv)/SqrtBC2 + Eps)) * Step
//
// Every operation is rounded to T in this order, without fused
// multiply-adds, so the result equals the same update written as separate
// elementwise operations (the optimiser's expression) bit for bit; the
// AVX-512 kernel keeps it, and replaces the dozen passes of the fused
// expression over the parameter's memory by one. An output may be the
// same slice as an input (an in-place update); outputs must not overlap
// each other, nor overlap an input at a different offset.
func Adam[T Float](w, g, m, v, nw, nm, nv []T, c AdamCoeffs[T]) error {
	n := len(w)
	for _, s := range [][]T{g, m, v, nw, nm, nv} {
		if len(s) != n {
			return errs.New("vec", "Adam", errs.ErrShape, "lengths differ: len(w)=%d, len(g)=%d, len(m)=%d, len(v)=%d, len(nw)=%d, len(nm)=%d, len(nv)=%d",
				n, len(g), len(m), len(v), len(nw), len(nm), len(nv))
		}
	}
	outs := [][]T{nw, nm, nv}
	for i, o := range outs {
		if err := checkAlias("Adam", o, w, g, m, v); err != nil {
			return err
		}
		for _, p := range outs[i+1:] {
			if bytesOverlap(o, p) {
				return errs.New("vec", "Adam", errs.ErrValue, "two outputs overlap")
			}
		}
	}
	if n == 0 {
		return nil
	}
	if is32[T]() && active.adam32 != nil {
		c32 := [7]float32{float32(c.B1), float32(c.OneMinusB1), float32(c.B2), float32(c.OneMinusB2), float32(c.SqrtBC2), float32(c.Eps), float32(c.Step)}
		active.adam32(as32(w), as32(g), as32(m), as32(v), as32(nw), as32(nm), as32(nv), &c32)
		return nil
	}
	adamGo(w, g, m, v, nw, nm, nv, c)
	return nil
}

// adamGo is Adam's loop in Go. The conversions T(...) round each product
// to T, so that the compiler may not fuse a multiply and an add.
func adamGo[T Float](w, g, m, v, nw, nm, nv []T, c AdamCoeffs[T]) {
	for i := range w {
		d := g[i]
		mi := T(m[i]*c.B1) + T(d*c.OneMinusB1)
		vi := T(v[i]*c.B2) + T(T(d*d)*c.OneMinusB2)
		den := T(T(math.Sqrt(float64(vi)))/c.SqrtBC2) + c.Eps
		wi := w[i] - T(T(mi/den)*c.Step)
		nm[i], nv[i], nw[i] = mi, vi, wi
	}
}
