package layout

import "github.com/tessera-go/tessera/errs"

// MatrixKind says how the last two axes of a view sit in storage.
type MatrixKind uint8

const (
	// General views (negative or zero strides, overlapping rows, no unit
	// stride) must be made contiguous before BLAS or the GPU matmul.
	General MatrixKind = iota
	// RowMajor: unit stride along columns; row i starts at Offset + i*LD.
	RowMajor
	// ColMajor: unit stride along rows (a transposed view); column j starts
	// at Offset + j*LD.
	ColMajor
)

// String names the kind, for messages and tests.
func (k MatrixKind) String() string {
	switch k {
	case RowMajor:
		return "RowMajor"
	case ColMajor:
		return "ColMajor"
	}
	return "General"
}

// Matrix classifies the last two axes of a layout for matmul and upload, and
// describes its batch axes. A RowMajor or ColMajor operand feeds BLAS as
// (trans, LD) and the GPU matmul as (offset, LD, transposed) with no copy.
type Matrix struct {
	Kind       MatrixKind
	Rows, Cols int
	// LD is the leading dimension: the row stride for RowMajor (>= Cols), the
	// column stride for ColMajor (>= Rows). It is at least 1.
	LD int
	// Offset is the storage position of element (0, 0) of the first matrix.
	Offset int
	// Batch is the number of matrices (the product of the batch axes).
	Batch int
	// BatchStride is the distance between consecutive matrices when
	// Collapsed; 0 for a broadcast batch.
	BatchStride int
	// Collapsed reports whether the batch axes reduce to one BatchStride;
	// when false, use BatchOffsets.
	Collapsed bool
}

// Classify2D classifies the last two axes of l (rank >= 2).
func (l Layout) Classify2D() (Matrix, error) {
	if err := l.check("Classify2D"); err != nil {
		return Matrix{}, err
	}
	r := l.Rank()
	if r < 2 {
		return Matrix{}, fail("Classify2D", errs.ErrShape, "need rank >= 2, have shape %v", l.Shape)
	}
	rows, cols := l.Shape[r-2], l.Shape[r-1]
	rs, cs := l.Strides[r-2], l.Strides[r-1]
	m := Matrix{Rows: rows, Cols: cols, Offset: l.Offset, Batch: 1}
	// Strides of axes with extent <= 1 are never used, so they constrain
	// nothing; prefer RowMajor when both readings hold.
	rowOK := (cols <= 1 || cs == 1) && (rows <= 1 || rs >= max(cols, 1))
	colOK := (rows <= 1 || rs == 1) && (cols <= 1 || cs >= max(rows, 1))
	switch {
	case rowOK:
		m.Kind, m.LD = RowMajor, max(cols, 1)
		if rows > 1 {
			m.LD = rs
		}
	case colOK:
		m.Kind, m.LD = ColMajor, max(rows, 1)
		if cols > 1 {
			m.LD = cs
		}
	}
	// Batch axes.
	m.Collapsed = true
	inner := -1 // index of the innermost batch axis with extent > 1
	for i := r - 3; i >= 0; i-- {
		d := l.Shape[i]
		m.Batch *= d
		if d == 1 {
			continue
		}
		if inner < 0 {
			inner = i
			m.BatchStride = l.Strides[i]
			continue
		}
		if l.Strides[i] != m.BatchStride*prodExtents(l.Shape[i+1:inner+1]) {
			m.Collapsed = false
		}
	}
	if m.Batch == 0 {
		// No matrices: any stride describes them.
		m.BatchStride, m.Collapsed = 0, true
	}
	return m, nil
}

func prodExtents(shape []int) int {
	p := 1
	for _, d := range shape {
		p *= d
	}
	return p
}

// BatchOffsets returns the storage position of element (0, 0) of each matrix
// of a rank >= 2 layout, in row-major order over the batch axes: one entry
// per matrix (Classify2D's Batch), even when the matrices are empty, as the
// k = 0 operands of a matmul are. It allocates one int per matrix, so a
// caller with nothing to compute (an empty result) should not ask. A
// malformed layout, which Validate rejects, gets an empty slice.
func (l Layout) BatchOffsets() []int {
	if l.check("BatchOffsets") != nil {
		return []int{}
	}
	r := l.Rank()
	if r <= 2 {
		return []int{l.Offset}
	}
	batch := Layout{Shape: l.Shape[:r-2], Strides: l.Strides[:r-2], Offset: l.Offset}
	out := make([]int, 0, batch.Numel())
	it := NewRows(batch.Shape, batch.Offset, batch.Strides)
	it.Each(0, it.Count(), func(offs []int, n int, inner []int) {
		for k := range n {
			out = append(out, offs[0]+k*inner[0])
		}
	})
	return out
}
