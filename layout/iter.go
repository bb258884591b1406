package layout

import "slices"

// Rows walks the elements of one or more same-shaped operands in row-major
// logical order, one innermost row at a time. Kernels use it to read any
// strided view directly: each call hands them the storage position of the
// row's first element in every operand, the row length, and each operand's
// stride along the row.
//
// Axes that are contiguous with each other in every operand are merged
// first, so a contiguous view is walked as one long row.
type Rows struct {
	outer   []int   // extents of the outer (non-row) axes
	strides [][]int // per operand, strides of the outer axes
	base    []int   // per operand, position of the first element
	inner   []int   // per operand, stride along the row
	n       int     // row length
	count   int     // number of rows (0 when the shape is empty)
}

// NewRows prepares a walk over shape for operands given as (offset, strides)
// pairs: NewRows(shape, offA, stridesA, offB, stridesB, ...). Every strides
// slice must have len(shape) entries.
func NewRows(shape []int, operands ...any) Rows {
	k := len(operands) / 2
	base := make([]int, k)
	strides := make([][]int, k)
	for i := range k {
		base[i] = operands[2*i].(int)
		strides[i] = operands[2*i+1].([]int)
	}
	return newRows(shape, base, strides)
}

// NewRowsOf is NewRows for operands given as layouts of the same shape.
func NewRowsOf(ls ...Layout) Rows {
	base := make([]int, len(ls))
	strides := make([][]int, len(ls))
	for i, l := range ls {
		base[i], strides[i] = l.Offset, l.Strides
	}
	var shape []int
	if len(ls) > 0 {
		shape = ls[0].Shape
	}
	return newRows(shape, base, strides)
}

func newRows(shape []int, base []int, strides [][]int) Rows {
	k := len(base)
	// Drop extent-1 axes, then merge neighbours contiguous in all operands.
	var sh []int
	st := make([][]int, k)
	for a, d := range shape {
		if d == 1 {
			continue
		}
		if len(sh) > 0 {
			last := len(sh) - 1
			merge := true
			for i := range k {
				if st[i][last] != strides[i][a]*d {
					merge = false
					break
				}
			}
			if merge {
				sh[last] *= d
				for i := range k {
					st[i][last] = strides[i][a]
				}
				continue
			}
		}
		sh = append(sh, d)
		for i := range k {
			st[i] = append(st[i], strides[i][a])
		}
	}
	r := Rows{base: base, inner: make([]int, k), n: 1, count: 1}
	for _, d := range shape {
		if d == 0 {
			r.count, r.n = 0, 0
			return r
		}
	}
	if len(sh) == 0 {
		return r
	}
	last := len(sh) - 1
	r.n = sh[last]
	r.outer = sh[:last]
	r.strides = make([][]int, k)
	for i := range k {
		r.inner[i] = st[i][last]
		r.strides[i] = st[i][:last]
	}
	for _, d := range r.outer {
		r.count *= d
	}
	return r
}

// Count is the number of rows.
func (r Rows) Count() int { return r.count }

// Len is the length of every row.
func (r Rows) Len() int { return r.n }

// Each calls fn for rows [start, end) in order with the first position of the
// row in each operand, the row length, and each operand's stride along the
// row. The offs slice is reused between calls; fn must not keep it.
// Disjoint ranges may be walked concurrently. The range is clipped to
// [0, Count()), so no call ever sees a position outside the operands.
func (r Rows) Each(start, end int, fn func(offs []int, n int, inner []int)) {
	start, end = max(start, 0), min(end, r.count)
	if start >= end {
		return
	}
	k := len(r.base)
	idx, offs := r.seek(start)
	for row := start; row < end; row++ {
		fn(offs, r.n, r.inner)
		for a := len(r.outer) - 1; a >= 0; a-- {
			idx[a]++
			for i := range k {
				offs[i] += r.strides[i][a]
			}
			if idx[a] < r.outer[a] {
				break
			}
			for i := range k {
				offs[i] -= r.outer[a] * r.strides[i][a]
			}
			idx[a] = 0
		}
	}
}

// seek returns the outer index of row start and the operands' positions
// of its first element, the state Each and EachBlock walk on from.
func (r Rows) seek(start int) (idx, offs []int) {
	idx = make([]int, len(r.outer))
	offs = slices.Clone(r.base)
	for a := len(r.outer) - 1; a >= 0; a-- {
		idx[a] = start % r.outer[a]
		start /= r.outer[a]
		for i := range offs {
			offs[i] += idx[a] * r.strides[i][a]
		}
	}
	return idx, offs
}

// EachBlock is Each for callers that walk consecutive rows in one call:
// fn gets m >= 1 rows, the first at offs, operand i's rows step[i] apart
// (the stride of the innermost outer axis), never past that axis's end,
// so a kernel on short rows pays one call per block instead of one per
// row. It visits rows [start, end) in Each's order; offs and step are
// reused between calls, and fn must not keep them. A walk without outer
// axes has one block of one row, with steps 0.
func (r Rows) EachBlock(start, end int, fn func(offs []int, n int, inner []int, m int, step []int)) {
	start, end = max(start, 0), min(end, r.count)
	if start >= end {
		return
	}
	k := len(r.base)
	step := make([]int, k)
	if len(r.outer) == 0 {
		fn(slices.Clone(r.base), r.n, r.inner, 1, step)
		return
	}
	last := len(r.outer) - 1
	for i := range k {
		step[i] = r.strides[i][last]
	}
	idx, offs := r.seek(start)
	for row := start; row < end; {
		m := min(r.outer[last]-idx[last], end-row)
		fn(offs, r.n, r.inner, m, step)
		row += m
		idx[last] += m
		for i := range k {
			offs[i] += m * step[i]
		}
		// Carry into the outer axes as Each does, one row at a time past
		// the innermost one.
		for a := last; a >= 0 && idx[a] == r.outer[a]; a-- {
			for i := range k {
				offs[i] -= r.outer[a] * r.strides[i][a]
			}
			idx[a] = 0
			if a == 0 {
				break
			}
			idx[a-1]++
			for i := range k {
				offs[i] += r.strides[i][a-1]
			}
		}
	}
}
