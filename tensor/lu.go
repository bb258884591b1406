package tensor

// LU factorisation with partial pivoting and the triangular solves that use
// it, written for tessera's own GEMM (package gemm) so that nearly all the
// arithmetic runs in its vector kernels on every core. The factorisation is
// recursive (the matrix's columns are halved until a panel is luBase wide):
// the left half is factored, the top right block is solved against the
// left half's unit lower triangle and the bottom right block is updated by
// one matrix product, then the right half is factored. A panel (at most
// luBase columns, all rows from its diagonal down) of a matrix of at least
// luCompactMin is copied into a contiguous buffer and factored there, its
// rows swapped as pivots are chosen; then it is copied back and the same
// row interchanges are applied to the columns left and right of it
// (LAPACK's laswp). Smaller matrices' panels are factored in place,
// swapping whole rows. The result is either way exactly what swapping
// whole rows at each pivot gives, and what LAPACK's
// getrf leaves: L (unit lower, below the diagonal) and U in place,
// row-major, and ipiv[i] the row that was swapped with row i (0-based,
// gonum's convention), so gonum's getrs and getri accept it.

import (
	"math"

	"github.com/tessera-go/tessera/device/cpu/gemm"
)

// luFloat is the element type of the factorisation.
type luFloat interface{ float32 | float64 }

// luBase is the panel width factored by plain loops, and the block
// height solved without halving (by plain loops or, with many columns,
// by the triangle's inverse); wider panels and taller blocks recurse.
const luBase = 16

// luInvCols is the fewest right-hand sides for which a solve against a
// unit lower triangle of at most luBase rows runs as one product with the
// triangle's inverse (twice the multiply-adds of substitution, in the
// GEMM's vector kernels) rather than by substitution in plain loops.
const luInvCols = 64

// luCompactMin is the smallest matrix whose panels are factored in a
// column-major copy (luPanelCompact).
const luCompactMin = 512

// luWork is one factorisation's GEMM and scratch: the panel buffer and
// the inverse-based solves' buffer, grown as needed and reused.
type luWork[T luFloat] struct {
	mm         luGemm[T]
	panel, buf []T
}

// grow returns (*s)[:k], reallocating *s when it is shorter.
func grow[T luFloat](s *[]T, k int) []T {
	if cap(*s) < k {
		*s = make([]T, k)
	}
	return (*s)[:k]
}

// luGemm is gemm.F32 or gemm.F64: C = alpha·op(A)·op(B) + beta·C, row-major.
type luGemm[T luFloat] func(transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) error

// gemmFor returns the GEMM of T.
func gemmFor[T luFloat]() luGemm[T] {
	var g any = luGemm[float64](gemm.F64)
	if _, ok := any(T(0)).(float32); ok {
		g = luGemm[float32](gemm.F32)
	}
	return g.(luGemm[T])
}

// luFactor factorises the row-major n x n matrix a (leading dimension n)
// in place as P·A = L·U and fills ipiv (n entries). It returns the first
// i with U[i, i] exactly zero (a singular matrix, as LAPACK's info), or -1.
func luFactor[T luFloat](a []T, n int, ipiv []int) int {
	if n == 0 {
		return -1
	}
	luRec(a, n, 0, n, ipiv, &luWork[T]{mm: gemmFor[T]()})
	for i := range n {
		if a[i*n+i] == 0 {
			return i
		}
	}
	return -1
}

// luRec factors columns [c0, c1) of rows [c0, n), the columns before c0
// being factored and their updates applied to these columns.
func luRec[T luFloat](a []T, n, c0, c1 int, ipiv []int, w *luWork[T]) {
	wd := c1 - c0
	if wd <= luBase {
		luPanelCompact(a, n, c0, c1, ipiv, w)
		return
	}
	cm := c0 + wd/2
	if h := (wd/2 + 7) &^ 7; h < wd { // keep the products' edges on whole vector widths
		cm = c0 + h
	}
	luRec(a, n, c0, cm, ipiv, w)
	// Rows [c0, cm) of columns [cm, c1): U12 = L11⁻¹·A12.
	trsmLower(cm-c0, c1-cm, a[c0*n+c0:], n, a[c0*n+cm:], n, w)
	// Rows [cm, n) of columns [cm, c1): A22 -= L21·U12.
	if n > cm {
		_ = w.mm(false, false, n-cm, c1-cm, cm-c0, -1, a[cm*n+c0:], n, a[c0*n+cm:], n, 1, a[cm*n+cm:], n)
	}
	luRec(a, n, cm, c1, ipiv, w)
}

// luPanelCompact factors columns [c0, c1) of rows [c0, n) in a contiguous
// column-major copy (each column's rows one after another, so that every
// step of the factorisation streams through memory rather than touching
// one row of the matrix, n entries apart, at a time), copies it back and
// applies its row interchanges, in order, to the other columns (as
// LAPACK's laswp): the same as swapping whole rows at each pivot. Below
// luCompactMin the panel is factored in place (luPanelRows).
func luPanelCompact[T luFloat](a []T, n, c0, c1 int, ipiv []int, w *luWork[T]) {
	if n < luCompactMin {
		luPanelRows(a, n, n, c0, c1, ipiv)
		return
	}
	wd, rows := c1-c0, n-c0
	p := grow(&w.panel, rows*wd)
	for r := range rows {
		src := a[(c0+r)*n+c0 : (c0+r)*n+c1]
		for j, v := range src {
			p[j*rows+r] = v
		}
	}
	piv := ipiv[c0:c1]
	luPanel(p, rows, wd, piv)
	for r := range rows {
		dst := a[(c0+r)*n+c0 : (c0+r)*n+c1]
		for j := range dst {
			dst[j] = p[j*rows+r]
		}
	}
	for i := range piv {
		piv[i] += c0
		c, q := c0+i, piv[i]
		if q == c {
			continue
		}
		for _, span := range [2][2]int{{0, c0}, {c1, n}} {
			x, y := a[c*n+span[0]:c*n+span[1]], a[q*n+span[0]:q*n+span[1]]
			for j := range x {
				x[j], y[j] = y[j], x[j]
			}
		}
	}
}

// luPanel factors the column-major rows x wd panel p (column j at
// p[j*rows:]) one column at a time (LAPACK's getf2): the largest magnitude
// on or below the diagonal is the pivot (the first of equals), its row is
// swapped with the diagonal's across the panel, the column below is
// divided by the pivot (left as it is when the pivot is zero: the column
// is then zero) and each later column's part below the diagonal is
// updated by an axpy with it, two columns at a time sharing its loads.
// ipiv gets the pivot rows (0-based within the panel).
func luPanel[T luFloat](p []T, rows, wd int, ipiv []int) {
	for c := range wd {
		col := p[c*rows : (c+1)*rows]
		pr, best := c, -1.0
		for r := c; r < rows; r++ {
			if v := math.Abs(float64(col[r])); v > best {
				pr, best = r, v
			}
		}
		ipiv[c] = pr
		if pr != c {
			for j := range wd {
				p[j*rows+c], p[j*rows+pr] = p[j*rows+pr], p[j*rows+c]
			}
		}
		piv := col[c]
		scale, inv := piv != 0, T(1)
		divide := scale && math.Abs(float64(piv)) < minNormal[T]()
		if scale && !divide {
			inv = 1 / piv
		}
		below := col[c+1:]
		for r, l := range below {
			below[r] = luScale(l, piv, inv, scale, divide)
		}
		j := c + 1
		for ; j+1 < wd; j += 2 {
			c0, c1 := p[j*rows:(j+1)*rows], p[(j+1)*rows:(j+2)*rows]
			u0, u1 := c0[c], c1[c]
			d0, d1 := c0[c+1:], c1[c+1:]
			d0, d1 = d0[:len(below)], d1[:len(below)] // one bounds check for the loop
			for r, l := range below {
				d0[r] -= l * u0
				d1[r] -= l * u1
			}
		}
		if j < wd {
			cj := p[j*rows : (j+1)*rows]
			u := cj[c]
			d := cj[c+1:]
			d = d[:len(below)]
			for r, l := range below {
				d[r] -= l * u
			}
		}
	}
}

// luPanelRows factors columns [c0, c1) of rows [c0, rows) of the row-major
// matrix a (leading dimension ld) one column at a time (LAPACK's getf2):
// the largest magnitude on or below the diagonal is the pivot (the first
// of equals), its row is swapped whole (ld entries) with the diagonal's,
// the column below is divided by the pivot (left as it is when the pivot
// is zero: the column is then zero) and the rest of the panel is updated.
// One pass over the rows does a column's division and update and finds
// the next column's pivot. It is luPanel's rule on row-major storage, in
// place: for matrices below luCompactMin, where a copy costs more than the
// strided rows (all in cache) do.
func luPanelRows[T luFloat](a []T, ld, rows, c0, c1 int, ipiv []int) {
	p := c0 // the pivot row of column c
	best := -1.0
	for r := c0; r < rows; r++ {
		if v := math.Abs(float64(a[r*ld+c0])); v > best {
			p, best = r, v
		}
	}
	for c := c0; c < c1; c++ {
		ipiv[c] = p
		if p != c {
			x, y := a[c*ld:(c+1)*ld], a[p*ld:(p+1)*ld]
			for j := range x {
				x[j], y[j] = y[j], x[j]
			}
		}
		piv := a[c*ld+c]
		scale, inv := piv != 0, T(1)
		divide := scale && math.Abs(float64(piv)) < minNormal[T]()
		if scale && !divide {
			inv = 1 / piv
		}
		row := a[c*ld+c+1 : c*ld+c1]
		p, best = c+1, -1.0
		// Two rows at a time share the loads of the pivot row.
		r := c + 1
		for ; r+1 < rows; r += 2 {
			l0, l1 := luScale(a[r*ld+c], piv, inv, scale, divide), luScale(a[(r+1)*ld+c], piv, inv, scale, divide)
			a[r*ld+c], a[(r+1)*ld+c] = l0, l1
			d0 := a[r*ld+c+1 : r*ld+c1]
			d1 := a[(r+1)*ld+c+1 : (r+1)*ld+c1]
			d0, d1 = d0[:len(row)], d1[:len(row)] // one bounds check for the loop
			for j, u := range row {
				d0[j] -= l0 * u
				d1[j] -= l1 * u
			}
			if len(row) > 0 {
				if v := math.Abs(float64(d0[0])); v > best {
					p, best = r, v
				}
				if v := math.Abs(float64(d1[0])); v > best {
					p, best = r+1, v
				}
			}
		}
		if r < rows {
			l := luScale(a[r*ld+c], piv, inv, scale, divide)
			a[r*ld+c] = l
			dst := a[r*ld+c+1 : r*ld+c1]
			dst = dst[:len(row)]
			for j, u := range row {
				dst[j] -= l * u
			}
			if len(row) > 0 {
				if v := math.Abs(float64(dst[0])); v > best {
					p = r
				}
			}
		}
	}
}

// luScale is an entry of the column below a pivot divided by the pivot:
// by multiplying with inv = 1/piv, dividing when the pivot is below the
// smallest normal, left as it is when the pivot is zero (scale false).
func luScale[T luFloat](l, piv, inv T, scale, divide bool) T {
	switch {
	case divide:
		return l / piv
	case scale:
		return l * inv
	}
	return l
}

// minNormal is T's smallest normal magnitude: dividing by a pivot below it
// is exact where multiplying by its reciprocal would overflow.
func minNormal[T luFloat]() float64 {
	if _, ok := any(T(0)).(float32); ok {
		return 0x1p-126
	}
	return 0x1p-1022
}

// trsmLower solves L·X = B in place of B, L the m x m unit lower triangle of
// l (leading dimension ldl; the diagonal and above are not read) and B
// m x k (leading dimension ldb). Triangles taller than luBase are halved
// (the top half's solution updates the bottom half's right-hand sides in
// one GEMM); a small one with at least luInvCols right-hand sides is
// solved as X = L⁻¹·B in one GEMM, others by substitution.
func trsmLower[T luFloat](m, k int, l []T, ldl int, b []T, ldb int, w *luWork[T]) {
	if m > luBase && k > 1 {
		h := m / 2
		trsmLower(h, k, l, ldl, b, ldb, w)
		_ = w.mm(false, false, m-h, k, h, -1, l[h*ldl:], ldl, b, ldb, 1, b[h*ldb:], ldb)
		trsmLower(m-h, k, l[h*ldl+h:], ldl, b[h*ldb:], ldb, w)
		return
	}
	if k >= luInvCols && m > 1 {
		buf := grow(&w.buf, m*k+m*m)
		tmp, inv := copyOut(buf, b, ldb, m, k), buf[m*k:]
		unitLowerInv(m, l, ldl, inv)
		_ = w.mm(false, false, m, k, m, 1, inv, m, tmp, k, 0, b, ldb)
		return
	}
	for r := 1; r < m; r++ {
		lr := l[r*ldl : r*ldl+r]
		if k == 1 {
			b[r*ldb] -= dot(lr, b, ldb)
			continue
		}
		dst := b[r*ldb : r*ldb+k]
		for q, f := range lr {
			src := b[q*ldb : q*ldb+k]
			src = src[:len(dst)]
			for j, v := range src {
				dst[j] -= f * v
			}
		}
	}
}

// unitLowerInv writes the inverse of the m x m unit lower triangle of l
// (the diagonal taken as 1, not read) into inv (m x m, leading dimension
// m; unit lower too), row by row: M[i,j] = -(L[i,j] + Σ_j<q<i L[i,q]·M[q,j]).
func unitLowerInv[T luFloat](m int, l []T, ldl int, inv []T) {
	clear(inv[:m*m])
	for i := range m {
		li, mi := l[i*ldl:i*ldl+i], inv[i*m:i*m+i+1]
		mi[i] = 1
		for q, f := range li { // mi[:i] -= L[i,q]·M[q, :i]
			mq := inv[q*m : q*m+q+1]
			for j, v := range mq {
				mi[j] -= f * v
			}
		}
	}
}

// trsmUpper solves U·X = B in place of B, U the m x m upper triangle of u
// (diagonal included; below it is not read) and B m x k.
func trsmUpper[T luFloat](m, k int, u []T, ldu int, b []T, ldb int, w *luWork[T]) {
	if m <= luBase || k == 1 {
		for r := m - 1; r >= 0; r-- {
			ur := u[r*ldu+r+1 : r*ldu+m]
			d := u[r*ldu+r]
			if k == 1 {
				b[r*ldb] = (b[r*ldb] - dot(ur, b[(r+1)*ldb:], ldb)) / d
				continue
			}
			dst := b[r*ldb : r*ldb+k]
			for q, f := range ur {
				src := b[(r+1+q)*ldb : (r+1+q)*ldb+k]
				src = src[:len(dst)]
				for j, v := range src {
					dst[j] -= f * v
				}
			}
			for j := range dst {
				dst[j] /= d
			}
		}
		return
	}
	h := m / 2
	trsmUpper(m-h, k, u[h*ldu+h:], ldu, b[h*ldb:], ldb, w)
	_ = w.mm(false, false, h, k, m-h, -1, u[h:], ldu, b[h*ldb:], ldb, 1, b, ldb)
	trsmUpper(h, k, u, ldu, b, ldb, w)
}

// dot returns Σ x[q]·b[q*ldb] in four interleaved partial sums.
func dot[T luFloat](x []T, b []T, ldb int) T {
	var s0, s1, s2, s3 T
	q := 0
	if ldb == 1 {
		b = b[:len(x)]
		for ; q+4 <= len(x); q += 4 {
			s0 += x[q] * b[q]
			s1 += x[q+1] * b[q+1]
			s2 += x[q+2] * b[q+2]
			s3 += x[q+3] * b[q+3]
		}
	}
	for ; q < len(x); q++ {
		s0 += x[q] * b[q*ldb]
	}
	return (s0 + s1) + (s2 + s3)
}

// luSolve solves A·X = B in place of B (n x k, leading dimension ldb) from
// luFactor's factors of A: the rows of B are swapped as ipiv says, then
// L·Y = P·B and U·X = Y are solved.
func luSolve[T luFloat](lu []T, n int, ipiv []int, b []T, k, ldb int) {
	if n == 0 || k == 0 {
		return
	}
	for i, p := range ipiv[:n] {
		if p != i {
			x, y := b[i*ldb:i*ldb+k], b[p*ldb:p*ldb+k]
			for j := range x {
				x[j], y[j] = y[j], x[j]
			}
		}
	}
	w := &luWork[T]{mm: gemmFor[T]()}
	trsmLower(n, k, lu, n, b, ldb, w)
	trsmUpper(n, k, lu, n, b, ldb, w)
}

// copyOut copies the m x k matrix b (leading dimension ldb) into the start
// of buf, contiguous, and returns that part of buf: the operand a product
// reads while it writes over b.
func copyOut[T luFloat](buf, b []T, ldb, m, k int) []T {
	tmp := buf[:m*k]
	for r := range m {
		copy(tmp[r*k:(r+1)*k], b[r*ldb:r*ldb+k])
	}
	return tmp
}
