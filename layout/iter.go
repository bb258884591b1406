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
	outer   []int // extents of the outer (non-row) axes
	strides []int // operand i's stride along outer axis a at i*len(outer)+a
	base    []int // per operand, position of the first element
	inner   []int // per operand, stride along the row
	n       int   // row length
	count   int   // number of rows (0 when the shape is empty)
}

// maxInlineOperands is how many operands NewRows and NewRowsOf gather on
// the stack; more cost an allocation.
const maxInlineOperands = 4

// NewRows prepares a walk over shape for operands given as (offset, strides)
// pairs: NewRows(shape, offA, stridesA, offB, stridesB, ...). Every strides
// slice must have len(shape) entries.
func NewRows(shape []int, operands ...any) Rows {
	k := len(operands) / 2
	var barr [maxInlineOperands]int
	var sarr [maxInlineOperands][]int
	base, strides := barr[:0], sarr[:0]
	for i := range k {
		base = append(base, operands[2*i].(int))
		strides = append(strides, operands[2*i+1].([]int))
	}
	return newRows(shape, base, strides)
}

// NewRowsOf is NewRows for operands given as layouts of the same shape.
func NewRowsOf(ls ...Layout) Rows {
	var barr [maxInlineOperands]int
	var sarr [maxInlineOperands][]int
	base, strides := barr[:0], sarr[:0]
	for _, l := range ls {
		base, strides = append(base, l.Offset), append(strides, l.Strides)
	}
	var shape []int
	if len(ls) > 0 {
		shape = ls[0].Shape
	}
	return newRows(shape, base, strides)
}

// newRows builds the walk in one allocation (the slices of Rows are parts
// of one array), reading base and strides without keeping them.
func newRows(shape []int, base []int, strides [][]int) Rows {
	k := len(base)
	r := Rows{n: 1, count: 1}
	// Drop extent-1 axes and merge each axis into the one before it
	// where they are contiguous in every operand: count the merged axes
	// first, then fill them in.
	rank, prev := 0, -1
	for a, d := range shape {
		if d == 0 {
			r.count, r.n = 0, 0
		}
		if d == 1 {
			continue
		}
		if prev < 0 || !mergeable(strides, prev, a, d) {
			rank++
		}
		prev = a
	}
	if r.count == 0 {
		rank = 0
	}
	outer := max(rank-1, 0)
	mem := make([]int, 2*k+outer+k*outer)
	r.base, r.inner = mem[:k:k], mem[k:2*k:2*k]
	r.outer, r.strides = mem[2*k:2*k+outer:2*k+outer], mem[2*k+outer:]
	copy(r.base, base)
	if r.count == 0 || rank == 0 {
		return r
	}
	ax, ext := -1, 0 // the merged axis being built, and its extent
	flush := func() {
		if ax < outer {
			r.outer[ax] = ext
			r.count *= ext
		} else {
			r.n = ext
		}
	}
	prev = -1
	for a, d := range shape {
		if d == 1 {
			continue
		}
		if prev >= 0 && mergeable(strides, prev, a, d) {
			ext *= d
		} else {
			if ax >= 0 {
				flush()
			}
			ax, ext = ax+1, d
		}
		// A merged axis steps by the stride of its last axis.
		for i := range k {
			if ax < outer {
				r.strides[i*outer+ax] = strides[i][a]
			} else {
				r.inner[i] = strides[i][a]
			}
		}
		prev = a
	}
	flush()
	return r
}

// mergeable reports whether axis a (extent d) merges into axis prev, the
// last one before it not of extent 1: in every operand prev's stride is d
// times a's.
func mergeable(strides [][]int, prev, a, d int) bool {
	for _, st := range strides {
		if st[prev] != st[a]*d {
			return false
		}
	}
	return true
}

// shortRow is the row length below which LongRows makes a longer
// innermost outer axis the row.
const shortRow = 8

// LongRows returns r, or, when r's rows have fewer than shortRow elements
// and its innermost outer axis is longer than they are, a walk of the same
// elements with the two swapped: the rows then run along that axis, and
// the old rows' axis becomes the innermost outer one. Such a walk is not in
// row-major logical order, so it is for kernels whose elements do not
// depend on one another (elementwise maps), where a call per row costs
// more than the row: a [N, C, 14, 2] source against a [N, C, 14, 1] one,
// say, walked as rows of 14 rather than of 2.
func (r Rows) LongRows() Rows {
	last := len(r.outer) - 1
	if r.count == 0 || last < 0 || r.n >= shortRow || r.outer[last] <= r.n {
		return r
	}
	k, outer := len(r.base), len(r.outer)
	mem := make([]int, 2*k+outer+k*outer)
	s := Rows{
		base: mem[:k:k], inner: mem[k : 2*k : 2*k],
		outer: mem[2*k : 2*k+outer : 2*k+outer], strides: mem[2*k+outer:],
		n: r.outer[last], count: r.count / r.outer[last] * r.n,
	}
	copy(s.base, r.base)
	copy(s.outer, r.outer)
	copy(s.strides, r.strides)
	s.outer[last] = r.n
	for i := range k {
		s.inner[i] = r.stride(i, last)
		s.strides[i*outer+last] = r.inner[i]
	}
	return s
}

// Merged returns l with its extent-1 axes dropped and each axis merged
// into the one before it where the two are contiguous (the rule Rows
// merges by, for one operand): the same elements in the same row-major
// order, on fewer and longer axes. Its shape and strides are appended to
// shape and strides, which may be a caller's stack arrays, so that the
// merge does not allocate. An empty l keeps its extent-0 axis.
func (l Layout) Merged(shape, strides []int) Layout {
	one := [1][]int{l.Strides}
	prev := -1
	for a, d := range l.Shape {
		if d == 1 {
			continue
		}
		if last := len(shape) - 1; prev >= 0 && d != 0 && shape[last] != 0 && mergeable(one[:], prev, a, d) {
			shape[last] *= d
			strides[last] = l.Strides[a]
		} else {
			shape, strides = append(shape, d), append(strides, l.Strides[a])
		}
		prev = a
	}
	return Layout{Shape: shape, Strides: strides, Offset: l.Offset}
}

// stride is operand i's stride along outer axis a.
func (r Rows) stride(i, a int) int { return r.strides[i*len(r.outer)+a] }

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
				offs[i] += r.stride(i, a)
			}
			if idx[a] < r.outer[a] {
				break
			}
			for i := range k {
				offs[i] -= r.outer[a] * r.stride(i, a)
			}
			idx[a] = 0
		}
	}
}

// seek returns the outer index of row start and the operands' positions
// of its first element, the state Each and EachBlock walk on from.
func (r Rows) seek(start int) (idx, offs []int) {
	mem := make([]int, len(r.outer)+len(r.base))
	idx, offs = mem[:len(r.outer)], mem[len(r.outer):]
	copy(offs, r.base)
	for a := len(r.outer) - 1; a >= 0; a-- {
		idx[a] = start % r.outer[a]
		start /= r.outer[a]
		for i := range offs {
			offs[i] += idx[a] * r.stride(i, a)
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
		step[i] = r.stride(i, last)
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
				offs[i] -= r.outer[a] * r.stride(i, a)
			}
			idx[a] = 0
			if a == 0 {
				break
			}
			idx[a-1]++
			for i := range k {
				offs[i] += r.stride(i, a-1)
			}
		}
	}
}
