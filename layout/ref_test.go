package layout_test

// A brute-force model of views, independent of the Layout arithmetic. A
// refTensor lists the storage position of every element in row-major logical
// order; each view op is applied to that list straight from its definition
// (index maps, Python slicing, NumPy broadcasting), never through strides.
// The checks below compare a Layout with such a list element by element.

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// refLimit bounds the element count the model enumerates.
const refLimit = 1 << 14

// errTooBig marks a valid result too large for the model to enumerate.
var errTooBig = errors.New("ref: too many elements to enumerate")

type refTensor struct {
	shape []int
	pos   []int // storage position of each element, row-major logical order
}

// refCount multiplies extents, reporting whether the shape is valid in the
// documented sense: no negative extent, and the product of the nonzero
// extents at most layout.MaxElements.
func refCount(shape []int) (int, bool) {
	n, zero := uint64(1), false
	for _, d := range shape {
		if d < 0 {
			return 0, false
		}
		if d == 0 {
			zero = true
			continue
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > layout.MaxElements {
			return 0, false
		}
		n = lo
	}
	if zero {
		return 0, true
	}
	return int(n), true
}

// refEach calls fn with every index of shape in row-major order.
func refEach(shape []int, fn func(k int, idx []int)) {
	n, ok := refCount(shape)
	if !ok || n == 0 {
		return
	}
	idx := make([]int, len(shape))
	for k := 0; k < n; k++ {
		fn(k, idx)
		for a := len(shape) - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < shape[a] {
				break
			}
			idx[a] = 0
		}
	}
}

// refLinear is the row-major rank of idx in shape.
func refLinear(shape, idx []int) int {
	k := 0
	for a, d := range shape {
		k = k*d + idx[a]
	}
	return k
}

func refBase(offset int, shape ...int) refTensor {
	n, _ := refCount(shape)
	pos := make([]int, n)
	for k := range pos {
		pos[k] = offset + k
	}
	return refTensor{shape: slices.Clone(shape), pos: pos}
}

// refGather builds a tensor of the given shape whose element at idx is the
// element of t at src(idx).
func refGather(t refTensor, shape []int, src func(idx []int) []int) (refTensor, error) {
	n, ok := refCount(shape)
	if !ok {
		return refTensor{}, errs.ErrShape
	}
	if n > refLimit {
		return refTensor{}, errTooBig
	}
	out := refTensor{shape: slices.Clone(shape), pos: make([]int, n)}
	refEach(shape, func(k int, idx []int) {
		out.pos[k] = t.pos[refLinear(t.shape, src(idx))]
	})
	return out, nil
}

// refReshaped keeps the positions and their order under a new shape.
func refReshaped(t refTensor, shape []int) refTensor {
	return refTensor{shape: slices.Clone(shape), pos: t.pos}
}

func refAxis(axis, rank int) (int, bool) {
	if axis < -rank || axis >= rank {
		return 0, false
	}
	if axis < 0 {
		return axis + rank, true
	}
	return axis, true
}

func refPermute(t refTensor, perm []int) (refTensor, error) {
	r := len(t.shape)
	if len(perm) != r {
		return refTensor{}, errs.ErrAxis
	}
	p := make([]int, r)
	used := map[int]bool{}
	for i, x := range perm {
		a, ok := refAxis(x, r)
		if !ok || used[a] {
			return refTensor{}, errs.ErrAxis
		}
		used[a] = true
		p[i] = a
	}
	shape := make([]int, r)
	for i := range p {
		shape[i] = t.shape[p[i]]
	}
	return refGather(t, shape, func(idx []int) []int {
		old := make([]int, r)
		for i := range p {
			old[p[i]] = idx[i]
		}
		return old
	})
}

func refTranspose(t refTensor, a, b int) (refTensor, error) {
	r := len(t.shape)
	a, okA := refAxis(a, r)
	b, okB := refAxis(b, r)
	if !okA || !okB {
		return refTensor{}, errs.ErrAxis
	}
	shape := slices.Clone(t.shape)
	shape[a], shape[b] = shape[b], shape[a]
	return refGather(t, shape, func(idx []int) []int {
		old := slices.Clone(idx)
		old[a], old[b] = idx[b], idx[a]
		return old
	})
}

func refNarrow(t refTensor, axis, start, length int) (refTensor, error) {
	a, ok := refAxis(axis, len(t.shape))
	if !ok {
		return refTensor{}, errs.ErrAxis
	}
	d := t.shape[a]
	if start < 0 || length < 0 || start > d || length > d-start {
		return refTensor{}, errs.ErrAxis
	}
	shape := slices.Clone(t.shape)
	shape[a] = length
	return refGather(t, shape, func(idx []int) []int {
		old := slices.Clone(idx)
		old[a] += start
		return old
	})
}

// refSliceIndices is Python's slice(start, end, step).indices(d) expanded
// into the list of selected indices (CPython's PySlice_AdjustIndices).
func refSliceIndices(d, start, end, step int) []int {
	adjust := func(x int) int {
		if x < 0 {
			x += d
			if x < 0 {
				if step < 0 {
					return -1
				}
				return 0
			}
		} else if x >= d {
			if step < 0 {
				return d - 1
			}
			return d
		}
		return x
	}
	start, end = adjust(start), adjust(end)
	var out []int
	for i := start; (step > 0 && i < end) || (step < 0 && i > end); {
		out = append(out, i)
		// Stop before i+step could overflow: past the end means done.
		if (step > 0 && step >= end-i) || (step < 0 && step <= end-i) {
			break
		}
		i += step
	}
	return out
}

func refSlice(t refTensor, axis, start, end, step int) (refTensor, error) {
	a, ok := refAxis(axis, len(t.shape))
	if !ok {
		return refTensor{}, errs.ErrAxis
	}
	if step == 0 {
		return refTensor{}, errs.ErrValue
	}
	sel := refSliceIndices(t.shape[a], start, end, step)
	shape := slices.Clone(t.shape)
	shape[a] = len(sel)
	return refGather(t, shape, func(idx []int) []int {
		old := slices.Clone(idx)
		old[a] = sel[idx[a]]
		return old
	})
}

func refBroadcastTo(t refTensor, shape []int) (refTensor, error) {
	if _, ok := refCount(shape); !ok {
		return refTensor{}, errs.ErrShape
	}
	r := len(t.shape)
	lead := len(shape) - r
	if lead < 0 {
		return refTensor{}, errs.ErrShape
	}
	for i, d := range t.shape {
		if d != shape[lead+i] && d != 1 {
			return refTensor{}, errs.ErrShape
		}
	}
	return refGather(t, shape, func(idx []int) []int {
		old := make([]int, r)
		for i, d := range t.shape {
			if d == shape[lead+i] {
				old[i] = idx[lead+i]
			} // else d == 1 and the index is 0
		}
		return old
	})
}

func refUnsqueeze(t refTensor, axis int) (refTensor, error) {
	a, ok := refAxis(axis, len(t.shape)+1)
	if !ok {
		return refTensor{}, errs.ErrAxis
	}
	return refReshaped(t, slices.Insert(slices.Clone(t.shape), a, 1)), nil
}

func refSqueeze(t refTensor, axes []int) (refTensor, error) {
	drop := make([]bool, len(t.shape))
	for _, x := range axes {
		a, ok := refAxis(x, len(t.shape))
		if !ok {
			return refTensor{}, errs.ErrAxis
		}
		if t.shape[a] != 1 {
			return refTensor{}, errs.ErrShape
		}
		drop[a] = true
	}
	shape := []int{}
	for i, d := range t.shape {
		if !drop[i] && (len(axes) > 0 || d != 1) {
			shape = append(shape, d)
		}
	}
	return refReshaped(t, shape), nil
}

func refFlatten(t refTensor, start, end int) (refTensor, error) {
	r := max(len(t.shape), 1) // a scalar counts as rank 1, as in PyTorch
	s, okS := refAxis(start, r)
	e, okE := refAxis(end, r)
	if !okS || !okE || s > e {
		return refTensor{}, errs.ErrAxis
	}
	if len(t.shape) == 0 {
		return refReshaped(t, []int{1}), nil
	}
	shape := slices.Clone(t.shape[:s])
	n := 1
	for _, d := range t.shape[s : e+1] {
		n *= d
	}
	shape = append(shape, n)
	shape = append(shape, t.shape[e+1:]...)
	return refReshaped(t, shape), nil
}

func refReshape(t refTensor, shape []int) (refTensor, error) {
	shape = slices.Clone(shape)
	n := len(t.pos)
	infer := -1
	for i, d := range shape {
		if d == -1 && infer < 0 {
			infer = i
			shape[i] = 1
		} else if d < 0 {
			return refTensor{}, errs.ErrShape
		}
	}
	known, ok := refCount(shape)
	if !ok {
		return refTensor{}, errs.ErrShape
	}
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			return refTensor{}, errs.ErrShape
		}
		shape[infer] = n / known
		known = n
	}
	if known != n {
		return refTensor{}, errs.ErrShape
	}
	return refReshaped(t, shape), nil
}

// refViewStrides finds strides (and the offset) that reproduce t's
// positions, if any exist: the stride of an axis of extent > 1 can only be the
// distance between its first two elements. Axes of extent <= 1 get stride 0.
func refViewStrides(t refTensor) ([]int, bool) {
	strides := make([]int, len(t.shape))
	if len(t.pos) == 0 {
		return strides, true
	}
	for a, d := range t.shape {
		if d > 1 {
			unit := make([]int, len(t.shape))
			unit[a] = 1
			strides[a] = t.pos[refLinear(t.shape, unit)] - t.pos[0]
		}
	}
	ok := true
	refEach(t.shape, func(k int, idx []int) {
		p := t.pos[0]
		for a, x := range idx {
			p += x * strides[a]
		}
		ok = ok && p == t.pos[k]
	})
	return strides, ok
}

// checkView compares every observable of l with the model t: shape, every
// OffsetOf, the Rows walk (alone and beside a second operand, whole and
// split), Span (contains every position and is tight), IsContiguous,
// Validate against the storage, and for rank >= 2 Classify2D and
// BatchOffsets.
func checkView(t *testing.T, what string, l layout.Layout, ref refTensor, storageLen int) {
	t.Helper()
	if !slices.Equal(l.Shape, ref.shape) || len(l.Strides) != len(l.Shape) {
		t.Fatalf("%s: layout %+v, want shape %v", what, l, ref.shape)
	}
	if l.Numel() != len(ref.pos) {
		t.Fatalf("%s: Numel %d, want %d", what, l.Numel(), len(ref.pos))
	}
	if err := l.Validate(storageLen); err != nil {
		t.Fatalf("%s: %+v: Validate(%d): %v", what, l, storageLen, err)
	}
	refEach(ref.shape, func(k int, idx []int) {
		if got := l.OffsetOf(idx); got != ref.pos[k] {
			t.Fatalf("%s: %+v: OffsetOf(%v) = %d, want %d", what, l, idx, got, ref.pos[k])
		}
	})
	checkRows(t, what, l, ref)
	checkSpan(t, what, l, ref)
	contiguous := true
	for k, p := range ref.pos {
		contiguous = contiguous && p == ref.pos[0]+k
	}
	if l.IsContiguous() != contiguous {
		t.Fatalf("%s: %+v: IsContiguous = %v, want %v", what, l, !contiguous, contiguous)
	}
	if l.Rank() >= 2 {
		checkClassify(t, what, l, ref)
	}
}

// walkRows collects the positions of operand i of r over rows [lo, hi).
func walkRows(r layout.Rows, i, lo, hi int) []int {
	var out []int
	r.Each(lo, hi, func(offs []int, n int, inner []int) {
		for k := range n {
			out = append(out, offs[i]+k*inner[i])
		}
	})
	return out
}

// walkBlocks is walkRows through EachBlock: each block's m rows expanded
// by its steps, so it must list what Each does.
func walkBlocks(r layout.Rows, i, lo, hi int) []int {
	var out []int
	r.EachBlock(lo, hi, func(offs []int, n int, inner []int, m int, step []int) {
		if m < 1 {
			out = append(out, -1<<40) // never a position: fails the comparison
		}
		for row := range m {
			for k := range n {
				out = append(out, offs[i]+row*step[i]+k*inner[i])
			}
		}
	})
	return out
}

func checkRows(t *testing.T, what string, l layout.Layout, ref refTensor) {
	t.Helper()
	r := layout.NewRowsOf(l)
	if r.Count()*r.Len() != len(ref.pos) {
		t.Fatalf("%s: %+v: Rows has %d rows of %d, want %d elements", what, l, r.Count(), r.Len(), len(ref.pos))
	}
	want := ref.pos
	if len(want) == 0 {
		want = nil
	}
	if got := walkRows(r, 0, 0, r.Count()); !slices.Equal(got, want) {
		t.Fatalf("%s: %+v: Rows walk %v, want %v", what, l, got, want)
	}
	// Beside a contiguous operand of the same shape, split in three ranges
	// (clipped ends included).
	c, err := layout.Contiguous(l.Shape...)
	if err != nil {
		t.Fatalf("%s: Contiguous(%v): %v", what, l.Shape, err)
	}
	r2 := layout.NewRows(l.Shape, l.Offset, l.Strides, c.Offset, c.Strides)
	n := r2.Count()
	cuts := []int{-1, n / 3, (2*n + 1) / 3, n + 2}
	var gotL, gotC []int
	for i := 0; i+1 < len(cuts); i++ {
		gotL = append(gotL, walkRows(r2, 0, cuts[i], cuts[i+1])...)
		gotC = append(gotC, walkRows(r2, 1, cuts[i], cuts[i+1])...)
	}
	if !slices.Equal(gotL, want) {
		t.Fatalf("%s: %+v: two-operand Rows walk %v, want %v", what, l, gotL, want)
	}
	for k, p := range gotC {
		if p != k {
			t.Fatalf("%s: %+v: contiguous operand walked to %v", what, l, gotC)
		}
	}
}

func checkSpan(t *testing.T, what string, l layout.Layout, ref refTensor) {
	t.Helper()
	lo, hi := l.Span()
	if len(ref.pos) == 0 {
		if lo != hi {
			t.Fatalf("%s: %+v: empty view spans [%d, %d)", what, l, lo, hi)
		}
		return
	}
	if want := slices.Min(ref.pos); lo != want {
		t.Fatalf("%s: %+v: Span lo %d, want %d", what, l, lo, want)
	}
	if want := slices.Max(ref.pos) + 1; hi != want {
		t.Fatalf("%s: %+v: Span hi %d, want %d", what, l, hi, want)
	}
}

// refMatrixFits reports whether the positions of matrix 0 of ref (rows x
// cols, non-empty) follow p(i, j) = p(0, 0) + i*rowStep + j*colStep with
// unit colStep (row-major) or unit rowStep (column-major) and a leading
// dimension large enough that rows (columns) do not overlap.
func refMatrixFits(ref refTensor, rows, cols int, colMajor bool) bool {
	at := func(i, j int) int { return ref.pos[i*cols+j] }
	rs, cs := 0, 0
	if rows > 1 {
		rs = at(1, 0) - at(0, 0)
	}
	if cols > 1 {
		cs = at(0, 1) - at(0, 0)
	}
	if colMajor {
		if rows > 1 && rs != 1 || cols > 1 && cs < rows {
			return false
		}
	} else if cols > 1 && cs != 1 || rows > 1 && rs < cols {
		return false
	}
	for i := range rows {
		for j := range cols {
			if at(i, j) != at(0, 0)+i*rs+j*cs {
				return false
			}
		}
	}
	return true
}

func checkClassify(t *testing.T, what string, l layout.Layout, ref refTensor) {
	t.Helper()
	m, err := l.Classify2D()
	if err != nil {
		t.Fatalf("%s: %+v: Classify2D: %v", what, l, err)
	}
	r := l.Rank()
	rows, cols := ref.shape[r-2], ref.shape[r-1]
	batch, _ := refCount(ref.shape[:r-2])
	if m.Rows != rows || m.Cols != cols || m.Batch != batch || m.Offset != l.Offset || (m.Kind != layout.General && m.LD < 1) {
		t.Fatalf("%s: %+v: Classify2D = %+v", what, l, m)
	}
	if batch > refLimit {
		return // an empty layout with a huge batch: too many offsets to list
	}
	offs := l.BatchOffsets()
	if len(offs) != batch {
		t.Fatalf("%s: %+v: %d BatchOffsets, want %d", what, l, len(offs), batch)
	}
	// Collapsed exactly when the matrices start at evenly spaced positions.
	even := true
	for b := range offs {
		even = even && offs[b] == offs[0]+b*(offs[min(1, len(offs)-1)]-offs[0])
	}
	if m.Collapsed != even {
		t.Fatalf("%s: %+v: Collapsed = %v, batch offsets %v", what, l, m.Collapsed, offs)
	}
	if m.Collapsed {
		for b, o := range offs {
			if o != m.Offset+b*m.BatchStride {
				t.Fatalf("%s: %+v: batch stride %d, batch offsets %v", what, l, m.BatchStride, offs)
			}
		}
	}
	if rows*cols == 0 || batch == 0 {
		return
	}
	for b := range batch {
		for i := range rows {
			for j := range cols {
				p := ref.pos[(b*rows+i)*cols+j]
				if i == 0 && j == 0 && p != offs[b] {
					t.Fatalf("%s: %+v: BatchOffsets[%d] = %d, want %d", what, l, b, offs[b], p)
				}
				switch m.Kind {
				case layout.RowMajor:
					if p != offs[b]+i*m.LD+j || (rows > 1 && m.LD < cols) {
						t.Fatalf("%s: %+v: RowMajor ld %d does not give element (%d, %d, %d) at %d", what, l, m.LD, b, i, j, p)
					}
				case layout.ColMajor:
					if p != offs[b]+i+j*m.LD || (cols > 1 && m.LD < rows) {
						t.Fatalf("%s: %+v: ColMajor ld %d does not give element (%d, %d, %d) at %d", what, l, m.LD, b, i, j, p)
					}
				}
			}
		}
	}
	rowFits := refMatrixFits(ref, rows, cols, false)
	colFits := refMatrixFits(ref, rows, cols, true)
	want := layout.General
	switch {
	case rowFits:
		want = layout.RowMajor
	case colFits:
		want = layout.ColMajor
	}
	if m.Kind != want {
		t.Fatalf("%s: %+v: Classify2D kind %v, want %v", what, l, m.Kind, want)
	}
}

// checkErr checks that err is an *errs.Error (or ErrNeedsCopy) of the given
// kind, with the package prefix in its message.
func checkErr(t *testing.T, what string, err, kind error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %v", what, kind)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("%s: error %q is not %v", what, err, kind)
	}
	if kind == layout.ErrNeedsCopy {
		return
	}
	var e *errs.Error
	if !errors.As(err, &e) || e.Pkg != "layout" {
		t.Fatalf("%s: error %q (%T) is not a layout *errs.Error", what, err, err)
	}
}

func (r refTensor) String() string { return fmt.Sprintf("ref%v%v", r.shape, r.pos) }
