package tensor

import (
	"errors"

	"github.com/tessera-go/tessera/errs"
)

// Gradients of the LAPACK-backed operations, written with tensor
// operations (so they run wherever the forward did) from the matrix
// identities PyTorch's derivatives use for real inputs:
//
//	Y = A⁻¹:           gA = -Yᵀ·g·Yᵀ
//	X = A⁻¹·B:         gB = A⁻ᵀ·g, gA = -gB·Xᵀ
//	y = det A:         gA = g·cof(A), the cofactor matrix: y·A⁻ᵀ when A is
//	                   invertible, from the SVD otherwise
//	y = log|det A|:    gA = g·A⁻ᵀ
//	L = chol(A):       gA = L⁻ᵀ·Φ·L⁻¹, Φ = ½(P + tril(P,-1)ᵀ), P = tril(Lᵀ·gL)
//
// A gradient that needs an inverse that does not exist (log|det| and the
// inverse's own at a singular matrix) is an ErrValue from Backward.
// Eigh, SVD, QR and Lstsq have no gradient yet: Backward through them
// reports ErrUnsupported.

// mT is t with its last two axes swapped (a view).
func mT(t *Tensor) *Tensor { return t.Transpose(-2, -1) }

// asMatrixScale views a batch of scalars [...] as [..., 1, 1], to scale a
// batch of matrices.
func asMatrixScale(t *Tensor) *Tensor { return t.Unsqueeze(-1).Unsqueeze(-1) }

func gradInv(a, y *Tensor) *Tensor {
	return attach(y, "Inv", func(g *Tensor, s []*Tensor) []*Tensor {
		yt := mT(s[0])
		return []*Tensor{yt.Matmul(g).Matmul(yt).Neg()}
	}, []*Tensor{y}, a)
}

// gradSolve records x = Solve(a, b); vector says b (and x) are batches of
// vectors rather than of matrices. Batch axes that broadcast are summed
// back to each operand's shape.
func gradSolve(a, b, x *Tensor, vector bool) *Tensor {
	aShape, bShape := a.lay.Shape, b.lay.Shape
	wa, wb := a.wantsGrad(), b.wantsGrad()
	return attach(x, "Solve", func(g *Tensor, s []*Tensor) []*Tensor {
		av, xv := s[0], s[1]
		gb := Solve(mT(av), g)
		out := []*Tensor{nil, nil}
		if wa {
			var ga *Tensor
			if vector {
				ga = gb.Unsqueeze(-1).Mul(xv.Unsqueeze(-2))
			} else {
				ga = gb.Matmul(mT(xv))
			}
			out[0] = sumTo(ga.Neg(), aShape)
		}
		if wb {
			out[1] = sumTo(gb, bShape)
		}
		return out
	}, []*Tensor{a, x}, a, b)
}

func gradDet(a, y *Tensor) *Tensor {
	return attach(y, "Det", func(g *Tensor, s []*Tensor) []*Tensor {
		av, yv := s[0], s[1]
		return []*Tensor{asMatrixScale(g).Mul(cofactors(av, yv))}
	}, []*Tensor{a, y}, a)
}

// cofactors returns the cofactor matrix of each matrix of a, whose
// determinants are det: det·A⁻ᵀ when every matrix is invertible, else,
// for the whole batch, sign·U·diag(π)·Vᵀ from A = U·diag(s)·Vᵀ, with π_i the
// product of the singular values other than s_i and sign = det(U)·det(Vᵀ):
// finite, and what PyTorch's det gradient gives, at singular matrices.
func cofactors(a, det *Tensor) *Tensor {
	inv := Inv(a)
	if err := inv.Err(); err == nil {
		return asMatrixScale(det).Mul(mT(inv))
	} else if !errors.Is(err, errs.ErrValue) {
		return inv
	}
	u, sv, vh := SVD(a)
	n := sv.lay.Shape[sv.Rank()-1]
	// π_i = (s_0···s_{i-1})·(s_{i+1}···s_{n-1}): exclusive products from
	// both ends, so a zero singular value divides nothing.
	ones := filled("Backward", a.Device(), a.DType(), 1, append(append([]int(nil), sv.lay.Shape[:sv.Rank()-1]...), 1))
	pre := Concat([]*Tensor{ones, sv.CumProd(-1).Narrow(-1, 0, n-1)}, -1)
	suf := Concat([]*Tensor{ones, sv.Flip(-1).CumProd(-1).Narrow(-1, 0, n-1)}, -1) // reversed
	pi := pre.Mul(suf.Flip(-1))
	sign := Det(u).Mul(Det(vh))
	return asMatrixScale(sign).Mul(u.Mul(pi.Unsqueeze(-2)).Matmul(vh))
}

func gradLogAbsDet(a, logabs *Tensor) *Tensor {
	return attach(logabs, "SlogDet", func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{asMatrixScale(g).Mul(mT(Inv(s[0])))}
	}, []*Tensor{a}, a)
}

func gradCholesky(a, l *Tensor) *Tensor {
	return attach(l, "Cholesky", func(g *Tensor, s []*Tensor) []*Tensor {
		lv := s[0]
		lt := mT(lv)
		p := lt.Matmul(g).Tril(0)
		phi := p.Add(mT(p.Tril(-1))).MulScalar(0.5)
		z := Solve(lt, phi)                    // L⁻ᵀ·Φ
		return []*Tensor{mT(Solve(lt, mT(z)))} // (L⁻ᵀ·(L⁻ᵀ·Φ)ᵀ)ᵀ = L⁻ᵀ·Φ·L⁻¹
	}, []*Tensor{l}, a)
}

// noGrad records a result of op whose gradient is not implemented:
// Backward through it reports ErrUnsupported (missingRule's error) rather
// than a graph that silently ends there.
func noGrad(op string, y *Tensor, ins ...*Tensor) *Tensor {
	rule := missingRule(op)
	return attach(y, op, func(g *Tensor, s []*Tensor) []*Tensor {
		out := make([]*Tensor, len(ins))
		for i := range out {
			out[i] = rule(g, s)[0]
		}
		return out
	}, nil, ins...)
}
