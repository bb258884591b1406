// Package layout describes how a tensor's logical elements map to positions in
// its storage: a shape, signed strides in elements, and an offset.
//
// Every view operation (Permute, Transpose, Narrow, Slice, BroadcastTo,
// Unsqueeze, Squeeze, Flatten, and Reshape where strides allow) is a pure
// function from a Layout to a Layout; none touches data. Offset is the one
// place an index becomes a storage position. Classify2D tells BLAS and GPU
// kernels whether the last two axes can be used in place.
//
// The package has no dependencies beyond errs and is safe for concurrent use:
// a Layout is a value and its slices are never modified after construction.
package layout

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/tessera-go/tessera/errs"
)

// MaxElements bounds the element count of any layout, so that byte sizes of
// every dtype (up to 8 bytes) and stride products fit in an int.
const MaxElements = math.MaxInt64 / 16

// Layout maps a logical index to a storage position:
// position = Offset + sum(index[i] * Strides[i]).
//
// Treat a Layout as immutable: the view methods return new Layouts and never
// modify Shape or Strides, which may be shared between layouts.
type Layout struct {
	Shape   []int // extent of each axis; rank 0 is a scalar with one element
	Strides []int // step in elements along each axis; 0 means broadcast
	Offset  int   // storage position of the first element
}

func fail(op string, kind error, format string, args ...any) error {
	return errs.New("layout", op, kind, format, args...)
}

// Numel returns the element count of shape; a rank-0 shape has one element.
// It reports ErrShape for a negative extent, or when the product of the
// nonzero extents exceeds MaxElements: like NumPy, an empty shape must still
// have representable strides.
func Numel(shape []int) (int, error) {
	n, empty := 1, false
	for _, d := range shape {
		if d < 0 {
			return 0, fail("Numel", errs.ErrShape, "negative extent in shape %v", shape)
		}
		if d == 0 {
			empty = true
			continue
		}
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > MaxElements {
			return 0, fail("Numel", errs.ErrShape, "shape %v has more than %d elements", shape, int64(MaxElements))
		}
		n = int(lo)
	}
	if empty {
		return 0, nil
	}
	return n, nil
}

// RowMajorStrides returns the C-order strides of shape (last axis fastest).
// The shape must already be valid (see Numel).
func RowMajorStrides(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		if shape[i] > 1 {
			acc *= shape[i]
		}
	}
	return s
}

// Contiguous returns the row-major layout of shape at offset 0.
func Contiguous(shape ...int) (Layout, error) {
	if _, err := Numel(shape); err != nil {
		return Layout{}, err
	}
	return Layout{Shape: clone(shape), Strides: RowMajorStrides(shape)}, nil
}

// Rank is the number of axes.
func (l Layout) Rank() int { return len(l.Shape) }

// Numel is the number of logical elements. A Layout built by this package
// always has a valid shape, so the count cannot fail.
func (l Layout) Numel() int {
	n, _ := Numel(l.Shape)
	return n
}

// OffsetOf returns the storage position of the element at index. It is the
// only place an index becomes a position; index must have one in-range entry
// per axis (it is not checked, as in image.RGBA.PixOffset).
func (l Layout) OffsetOf(index []int) int {
	p := l.Offset
	for i, x := range index {
		p += x * l.Strides[i]
	}
	return p
}

// Equal reports whether two layouts describe the same mapping.
func (l Layout) Equal(m Layout) bool {
	return l.Offset == m.Offset && equalInts(l.Shape, m.Shape) && equalInts(l.Strides, m.Strides)
}

// IsContiguous reports whether the elements are laid out in row-major order
// without gaps, so the view is the storage range [Offset, Offset+Numel).
// Axes of extent 1 are ignored, and an empty layout is contiguous. A
// layout whose strides do not match its shape in rank is not.
func (l Layout) IsContiguous() bool {
	if len(l.Strides) != len(l.Shape) {
		return false
	}
	if l.Numel() == 0 {
		return true
	}
	want := 1
	for i := len(l.Shape) - 1; i >= 0; i-- {
		if l.Shape[i] == 1 {
			continue
		}
		if l.Strides[i] != want {
			return false
		}
		want *= l.Shape[i]
	}
	return true
}

// Span returns the half-open storage range [lo, hi) that the view touches.
// An empty view spans nothing (lo == hi == Offset). Uploading a view sends
// exactly this range. A malformed layout (see Validate) whose strides do not
// match its shape in rank spans nothing.
func (l Layout) Span() (lo, hi int) {
	if l.Numel() == 0 || len(l.Strides) != len(l.Shape) {
		return l.Offset, l.Offset
	}
	lo, hi = l.Offset, l.Offset
	for i, d := range l.Shape {
		s := l.Strides[i] * (d - 1)
		if s < 0 {
			lo += s
		} else {
			hi += s
		}
	}
	return lo, hi + 1
}

// Rebase returns the same view with its offset moved by delta, for storage
// that now starts elsewhere (a span uploaded to a new buffer).
func (l Layout) Rebase(delta int) Layout {
	return Layout{Shape: l.Shape, Strides: l.Strides, Offset: l.Offset + delta}
}

// check reports a receiver that no view op can work on: strides that do not
// match the shape in rank, an invalid shape, or (for a non-empty view) a span
// that overflows an int. Layouts built by this package always pass; the check
// keeps hand-built ones from panicking or wrapping around.
func (l Layout) check(op string) error {
	if len(l.Shape) != len(l.Strides) {
		return fail(op, errs.ErrShape, "shape %v and strides %v differ in rank", l.Shape, l.Strides)
	}
	if _, err := Numel(l.Shape); err != nil {
		return errs.Retag("layout", op, err)
	}
	if _, _, ok := l.checkedSpan(); !ok {
		return fail(op, errs.ErrShape, "offset %d and strides %v of shape %v overflow an int", l.Offset, l.Strides, l.Shape)
	}
	return nil
}

// checkedSpan is Span with overflow detection; ok is false when some
// position of a non-empty view does not fit in an int. The shape must be
// valid and match the strides in rank.
func (l Layout) checkedSpan() (lo, hi int, ok bool) {
	if l.Numel() == 0 {
		return l.Offset, l.Offset, true
	}
	lo, hi = l.Offset, l.Offset
	for i, d := range l.Shape {
		if d <= 1 {
			continue
		}
		s, ok := mulInt(l.Strides[i], d-1)
		if !ok {
			return 0, 0, false
		}
		if s < 0 {
			lo, ok = addInt(lo, s)
		} else {
			hi, ok = addInt(hi, s)
		}
		if !ok {
			return 0, 0, false
		}
	}
	hi, ok = addInt(hi, 1)
	return lo, hi, ok
}

func mulInt(a, b int) (int, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt) || (b == -1 && a == math.MinInt) {
		return 0, false
	}
	return p, true
}

func addInt(a, b int) (int, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// NormalizeAxis maps a possibly negative axis (-1 is the last) into
// [0, rank), reporting ErrAxis when out of range.
func NormalizeAxis(op string, axis, rank int) (int, error) {
	if axis < -rank || axis >= rank {
		return 0, fail(op, errs.ErrAxis, "axis %d out of range for rank %d", axis, rank)
	}
	if axis < 0 {
		axis += rank
	}
	return axis, nil
}

// Permute reorders the axes: result axis i is input axis perm[i].
func (l Layout) Permute(perm ...int) (Layout, error) {
	if err := l.check("Permute"); err != nil {
		return Layout{}, err
	}
	r := l.Rank()
	if len(perm) != r {
		return Layout{}, fail("Permute", errs.ErrAxis, "permutation %v has %d axes, layout has %d", perm, len(perm), r)
	}
	seen := make([]bool, r)
	shape, strides := make([]int, r), make([]int, r)
	for i, p := range perm {
		a, err := NormalizeAxis("Permute", p, r)
		if err != nil {
			return Layout{}, err
		}
		if seen[a] {
			return Layout{}, fail("Permute", errs.ErrAxis, "axis %d repeated in permutation %v", p, perm)
		}
		seen[a] = true
		shape[i], strides[i] = l.Shape[a], l.Strides[a]
	}
	return Layout{Shape: shape, Strides: strides, Offset: l.Offset}, nil
}

// Transpose swaps two axes.
func (l Layout) Transpose(a, b int) (Layout, error) {
	if err := l.check("Transpose"); err != nil {
		return Layout{}, err
	}
	r := l.Rank()
	a, err := NormalizeAxis("Transpose", a, r)
	if err != nil {
		return Layout{}, err
	}
	b, err = NormalizeAxis("Transpose", b, r)
	if err != nil {
		return Layout{}, err
	}
	perm := make([]int, r)
	for i := range perm {
		perm[i] = i
	}
	perm[a], perm[b] = b, a
	return l.Permute(perm...)
}

// Narrow keeps length elements of axis starting at start.
func (l Layout) Narrow(axis, start, length int) (Layout, error) {
	if err := l.check("Narrow"); err != nil {
		return Layout{}, err
	}
	a, err := NormalizeAxis("Narrow", axis, l.Rank())
	if err != nil {
		return Layout{}, err
	}
	d := l.Shape[a]
	if start < 0 || length < 0 || start > d || length > d-start {
		return Layout{}, fail("Narrow", errs.ErrAxis, "range [%d, %d+%d) out of bounds for axis %d of extent %d", start, start, length, axis, d)
	}
	shape := clone(l.Shape)
	shape[a] = length
	off := l.Offset
	if length > 0 {
		off += start * l.Strides[a]
	}
	return Layout{Shape: shape, Strides: l.Strides, Offset: off}, nil
}

// Slice keeps the elements start, start+step, ... below end along axis, in
// Python's manner: negative start and end count from the end, out-of-range
// bounds are clipped, and a negative step walks backwards (a negative stride).
// A step of 0 is an ErrValue.
func (l Layout) Slice(axis, start, end, step int) (Layout, error) {
	if err := l.check("Slice"); err != nil {
		return Layout{}, err
	}
	a, err := NormalizeAxis("Slice", axis, l.Rank())
	if err != nil {
		return Layout{}, err
	}
	if step == 0 {
		return Layout{}, fail("Slice", errs.ErrValue, "step must not be 0")
	}
	d := l.Shape[a]
	clip := func(x, lo, hi int) int { return min(max(x, lo), hi) }
	if start < 0 {
		start += d
	}
	if end < 0 {
		end += d
	}
	// Count in unsigned arithmetic: step may be as large as MaxInt or as
	// small as MinInt, and the distance is at most d.
	var n int
	if step > 0 {
		start, end = clip(start, 0, d), clip(end, 0, d)
		if end > start {
			n = 1 + int(uint(end-start-1)/uint(step))
		}
	} else {
		start, end = clip(start, -1, d-1), clip(end, -1, d-1)
		if start > end {
			n = 1 + int(uint(start-end-1)/uint(-step))
		}
	}
	shape, strides := clone(l.Shape), clone(l.Strides)
	shape[a] = n
	if n > 1 {
		// |step| < d here, so the product stays inside the span.
		strides[a] = l.Strides[a] * step
	}
	off := l.Offset
	if n > 0 {
		off += start * l.Strides[a]
	}
	return Layout{Shape: shape, Strides: strides, Offset: off}, nil
}

// BroadcastShapes returns the NumPy broadcast of the given shapes: axes align
// from the right, and an extent of 1 stretches to match the other.
func BroadcastShapes(shapes ...[]int) ([]int, error) {
	r := 0
	for _, s := range shapes {
		r = max(r, len(s))
	}
	out := make([]int, r)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i, d := range s {
			j := r - len(s) + i
			switch {
			case d == out[j] || d == 1:
			case out[j] == 1:
				out[j] = d
			default:
				return nil, fail("BroadcastShapes", errs.ErrShape, "shapes %v are not broadcastable", fmtShapes(shapes))
			}
		}
	}
	if _, err := Numel(out); err != nil {
		return nil, errs.Retag("layout", "BroadcastShapes", err)
	}
	return out, nil
}

// BroadcastTo views the layout as shape, NumPy's way: new leading axes and
// axes of extent 1 get stride 0.
func (l Layout) BroadcastTo(shape ...int) (Layout, error) {
	if err := l.check("BroadcastTo"); err != nil {
		return Layout{}, err
	}
	if _, err := Numel(shape); err != nil {
		return Layout{}, fail("BroadcastTo", errs.ErrShape, "invalid target shape %v", shape)
	}
	if len(shape) < l.Rank() {
		return Layout{}, fail("BroadcastTo", errs.ErrShape, "cannot broadcast %v to fewer axes %v", l.Shape, shape)
	}
	if slices.Equal(shape, l.Shape) {
		return l, nil // nothing to broadcast, and nothing to allocate
	}
	lead := len(shape) - l.Rank()
	strides := make([]int, len(shape))
	for i := range shape {
		if i < lead {
			continue
		}
		d := l.Shape[i-lead]
		switch {
		case d == shape[i]:
			strides[i] = l.Strides[i-lead]
		case d == 1:
			strides[i] = 0
		default:
			return Layout{}, fail("BroadcastTo", errs.ErrShape, "cannot broadcast %v to %v", l.Shape, shape)
		}
	}
	return Layout{Shape: clone(shape), Strides: strides, Offset: l.Offset}, nil
}

// Unsqueeze inserts an axis of extent 1 at position axis (in [-rank-1, rank]).
func (l Layout) Unsqueeze(axis int) (Layout, error) {
	if err := l.check("Unsqueeze"); err != nil {
		return Layout{}, err
	}
	a, err := NormalizeAxis("Unsqueeze", axis, l.Rank()+1)
	if err != nil {
		return Layout{}, err
	}
	// The stride of a size-1 axis never matters; pick the one that keeps a
	// contiguous layout's strides row-major.
	// On overflow (a hand-built layout with a huge stride) any stride will
	// do.
	st := 1
	if a < l.Rank() {
		if s, ok := mulInt(l.Strides[a], max(l.Shape[a], 1)); ok {
			st = s
		}
	}
	return Layout{Shape: insert(l.Shape, a, 1), Strides: insert(l.Strides, a, st), Offset: l.Offset}, nil
}

// Squeeze removes the given axes, each of which must have extent 1; with no
// axes it removes every axis of extent 1.
func (l Layout) Squeeze(axes ...int) (Layout, error) {
	if err := l.check("Squeeze"); err != nil {
		return Layout{}, err
	}
	drop := make([]bool, l.Rank())
	if len(axes) == 0 {
		for i, d := range l.Shape {
			drop[i] = d == 1
		}
	}
	for _, ax := range axes {
		a, err := NormalizeAxis("Squeeze", ax, l.Rank())
		if err != nil {
			return Layout{}, err
		}
		if l.Shape[a] != 1 {
			return Layout{}, fail("Squeeze", errs.ErrShape, "axis %d has extent %d, not 1, in shape %v", ax, l.Shape[a], l.Shape)
		}
		drop[a] = true
	}
	var shape, strides []int
	for i := range l.Shape {
		if !drop[i] {
			shape = append(shape, l.Shape[i])
			strides = append(strides, l.Strides[i])
		}
	}
	return Layout{Shape: nonNil(shape), Strides: nonNil(strides), Offset: l.Offset}, nil
}

// Flatten merges axes start..end (inclusive) into one. It is a view when
// those axes are mutually contiguous; otherwise it reports ErrNeedsCopy like
// Reshape. A scalar flattens to shape [1], with its axes numbered as for
// rank 1 (PyTorch's rule), so only 0 and -1 are valid there.
func (l Layout) Flatten(start, end int) (Layout, error) {
	if err := l.check("Flatten"); err != nil {
		return Layout{}, err
	}
	// A scalar flattens to one axis of one element; like PyTorch, its axes
	// are numbered as if it had rank 1, so only 0 and -1 are accepted.
	rank := max(l.Rank(), 1)
	s, err := NormalizeAxis("Flatten", start, rank)
	if err != nil {
		return Layout{}, err
	}
	e, err := NormalizeAxis("Flatten", end, rank)
	if err != nil {
		return Layout{}, err
	}
	if l.Rank() == 0 {
		return l.Reshape(1)
	}
	if s > e {
		return Layout{}, fail("Flatten", errs.ErrAxis, "start axis %d after end axis %d", start, end)
	}
	n := 1
	for _, d := range l.Shape[s : e+1] {
		n *= d
	}
	shape := append(append(clone(l.Shape[:s]), n), l.Shape[e+1:]...)
	return l.Reshape(shape...)
}

// ErrNeedsCopy is returned by Reshape and Flatten when the new shape cannot
// be expressed as strides over the same storage; the caller materialises a
// contiguous copy first (the tensor package does so automatically).
var ErrNeedsCopy = errors.New("layout: reshape needs a copy")

// Reshape views the same elements, in row-major logical order, with a new
// shape. One extent may be -1 and is inferred. It succeeds without copying
// whenever the strides allow (contiguous layouts always, and strided ones
// whose merged axes are contiguous with each other); otherwise it returns
// ErrNeedsCopy.
func (l Layout) Reshape(shape ...int) (Layout, error) {
	if err := l.check("Reshape"); err != nil {
		return Layout{}, err
	}
	shape, err := inferShape(l.Shape, shape)
	if err != nil {
		return Layout{}, err
	}
	n := l.Numel()
	if n <= 1 || l.IsContiguous() {
		st, _ := Contiguous(shape...)
		st.Offset = l.Offset
		return st, nil
	}
	// Walk the old axes from the innermost, cutting them into chunks whose
	// axes are contiguous with each other. Each chunk must be covered exactly
	// by a run of new axes, which then take strides inside that chunk.
	strides := make([]int, len(shape))
	v := len(shape) - 1
	last := l.Rank() - 1
	base := l.Strides[last]
	chunk, covered := 1, 1
	for d := last; d >= 0; d-- {
		chunk *= l.Shape[d]
		endOfChunk := d == 0 || (l.Shape[d-1] != 1 && l.Strides[d-1] != chunk*base)
		if !endOfChunk {
			continue
		}
		for v >= 0 && (covered < chunk || shape[v] == 1) {
			strides[v] = covered * base
			covered *= shape[v]
			v--
		}
		if covered != chunk {
			return Layout{}, ErrNeedsCopy
		}
		if d > 0 {
			base = l.Strides[d-1]
			chunk, covered = 1, 1
		}
	}
	if v != -1 {
		return Layout{}, ErrNeedsCopy
	}
	return Layout{Shape: shape, Strides: strides, Offset: l.Offset}, nil
}

func inferShape(old, shape []int) ([]int, error) {
	shape = clone(shape)
	n, _ := Numel(old)
	infer := -1
	for i, d := range shape {
		switch {
		case d == -1 && infer < 0:
			infer = i
			shape[i] = 1
		case d < 0:
			return nil, fail("Reshape", errs.ErrShape, "invalid target shape %v", shape)
		}
	}
	known, err := Numel(shape)
	if err != nil {
		return nil, fail("Reshape", errs.ErrShape, "target shape %v is too large", shape)
	}
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			shape[infer] = -1
			return nil, fail("Reshape", errs.ErrShape, "cannot infer -1 in %v for %d elements of %v", shape, n, old)
		}
		shape[infer] = n / known
		known = n
	}
	if known != n {
		return nil, fail("Reshape", errs.ErrShape, "cannot reshape %v (%d elements) to %v (%d elements)", old, n, shape, known)
	}
	return shape, nil
}

// Validate checks that a hand-built layout is well formed: matching lengths,
// a valid shape, and (for non-empty views) a span inside [0, storageLen).
func (l Layout) Validate(storageLen int) error {
	if err := l.check("Validate"); err != nil {
		return err
	}
	if l.Numel() == 0 {
		return nil
	}
	lo, hi, _ := l.checkedSpan()
	if lo < 0 || hi > storageLen {
		return fail("Validate", errs.ErrShape, "view spans [%d, %d) outside storage of %d elements", lo, hi, storageLen)
	}
	return nil
}

func clone(s []int) []int { return append([]int{}, s...) }

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func insert(s []int, at, v int) []int {
	out := make([]int, 0, len(s)+1)
	out = append(out, s[:at]...)
	out = append(out, v)
	return append(out, s[at:]...)
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func fmtShapes(shapes [][]int) string {
	s := ""
	for i, sh := range shapes {
		if i > 0 {
			s += " and "
		}
		s += fmt.Sprint(sh)
	}
	return s
}
