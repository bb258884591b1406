package layout_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// contig is Contiguous for shapes the test knows to be valid.
func contig(t *testing.T, shape ...int) layout.Layout {
	t.Helper()
	l, err := layout.Contiguous(shape...)
	if err != nil {
		t.Fatalf("Contiguous(%v): %v", shape, err)
	}
	return l
}

// must unwraps a view op's result in a table literal.
func must(l layout.Layout, err error) layout.Layout {
	if err != nil {
		panic(err)
	}
	return l
}

func mk(shape, strides []int, offset int) layout.Layout {
	return layout.Layout{Shape: shape, Strides: strides, Offset: offset}
}

func TestNumel(t *testing.T) {
	tests := []struct {
		shape []int
		want  int
		err   error
	}{
		{nil, 1, nil},
		{[]int{}, 1, nil},
		{[]int{1}, 1, nil},
		{[]int{0}, 0, nil},
		{[]int{7}, 7, nil},
		{[]int{2, 3, 4}, 24, nil},
		{[]int{3, 0, 2}, 0, nil},
		{[]int{1, 1, 1}, 1, nil},
		{[]int{0, layout.MaxElements}, 0, nil},
		{[]int{layout.MaxElements}, layout.MaxElements, nil},
		{[]int{2, layout.MaxElements / 2}, layout.MaxElements - 1, nil},
		{[]int{-1}, 0, errs.ErrShape},
		{[]int{2, -3}, 0, errs.ErrShape},
		{[]int{0, -1}, 0, errs.ErrShape},
		{[]int{math.MinInt}, 0, errs.ErrShape},
		{[]int{layout.MaxElements + 1}, 0, errs.ErrShape},
		{[]int{3, layout.MaxElements / 2}, 0, errs.ErrShape},
		{[]int{1 << 32, 1 << 32}, 0, errs.ErrShape},
		{[]int{math.MaxInt, math.MaxInt}, 0, errs.ErrShape},
		{[]int{math.MaxInt}, 0, errs.ErrShape},
		// Like NumPy, a zero extent does not excuse an overflowing product:
		// such a shape has no representable strides.
		{[]int{0, 1 << 40, 1 << 40}, 0, errs.ErrShape},
		{[]int{3, 0x5555555555555555, 0}, 0, errs.ErrShape},
	}
	for _, tc := range tests {
		got, err := layout.Numel(tc.shape)
		if tc.err != nil {
			checkErr(t, "Numel", err, tc.err)
			_, cerr := layout.Contiguous(tc.shape...)
			checkErr(t, "Contiguous", cerr, tc.err)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Numel(%v) = %d, %v; want %d", tc.shape, got, err, tc.want)
		}
	}
}

func TestRowMajorStrides(t *testing.T) {
	tests := []struct {
		shape, want []int
	}{
		{[]int{}, []int{}},
		{[]int{5}, []int{1}},
		{[]int{2, 3, 4}, []int{12, 4, 1}},
		{[]int{4, 1, 3}, []int{3, 3, 1}},
		{[]int{1, 1}, []int{1, 1}},
		{[]int{3, 0, 2}, []int{2, 2, 1}},
	}
	for _, tc := range tests {
		if got := layout.RowMajorStrides(tc.shape); !slices.Equal(got, tc.want) {
			t.Errorf("RowMajorStrides(%v) = %v, want %v", tc.shape, got, tc.want)
		}
	}
}

func TestContiguous(t *testing.T) {
	for _, shape := range [][]int{{}, {1}, {5}, {2, 3}, {2, 1, 3}, {3, 0, 2}, {2, 2, 2, 2, 2}} {
		l := contig(t, shape...)
		if l.Offset != 0 || !l.IsContiguous() {
			t.Errorf("Contiguous(%v) = %+v", shape, l)
		}
		checkView(t, "Contiguous", l, refBase(0, shape...), len(refBase(0, shape...).pos))
	}
	// The shape is copied, not aliased.
	shape := []int{2, 3}
	l := contig(t, shape...)
	shape[0] = 9
	if l.Shape[0] != 2 {
		t.Errorf("Contiguous aliases its argument: %v", l.Shape)
	}
}

func TestIsContiguous(t *testing.T) {
	tests := []struct {
		l    layout.Layout
		want bool
	}{
		{mk([]int{}, []int{}, 3), true},
		{mk([]int{2, 3}, []int{3, 1}, 0), true},
		{mk([]int{2, 3}, []int{3, 1}, 5), true},
		{mk([]int{2, 3}, []int{1, 2}, 0), false},
		{mk([]int{2, 1, 3}, []int{3, 99, 1}, 0), true}, // extent-1 stride ignored
		{mk([]int{3, 1}, []int{1, -4}, 0), true},
		{mk([]int{1, 1}, []int{5, 7}, 0), true},
		{mk([]int{0, 3}, []int{7, 7}, 0), true}, // empty
		{mk([]int{3, 0}, []int{-1, 0}, 2), true},
		{mk([]int{3}, []int{2}, 0), false},
		{mk([]int{3}, []int{-1}, 2), false},
		{mk([]int{2, 3}, []int{0, 1}, 0), false}, // broadcast
		{mk([]int{2, 3}, []int{4, 1}, 0), false}, // narrowed
		{must(contig(t, 4, 6).Narrow(0, 1, 2)), true},
		{must(contig(t, 4, 6).Narrow(1, 1, 2)), false},
		{must(contig(t, 2, 3).Transpose(0, 1)), false},
		{must(contig(t, 1, 3).Transpose(0, 1)), true},
	}
	for _, tc := range tests {
		if got := tc.l.IsContiguous(); got != tc.want {
			t.Errorf("%+v.IsContiguous() = %v, want %v", tc.l, got, tc.want)
		}
	}
}

func TestSpan(t *testing.T) {
	tests := []struct {
		name   string
		l      layout.Layout
		lo, hi int
	}{
		{"scalar", mk([]int{}, []int{}, 3), 3, 4},
		{"contiguous", contig(t, 2, 3).Rebase(4), 4, 10},
		{"empty", mk([]int{0, 3}, []int{3, 1}, 5), 5, 5},
		{"empty with negative stride", mk([]int{3, 0}, []int{-4, 1}, 9), 9, 9},
		{"negative stride", mk([]int{3}, []int{-2}, 6), 2, 7},
		{"mixed", mk([]int{2, 2}, []int{-3, 1}, 3), 0, 5},
		{"broadcast", mk([]int{4, 3}, []int{0, 1}, 0), 0, 3},
		{"broadcast scalar", mk([]int{4, 3}, []int{0, 0}, 7), 7, 8},
		{"narrowed", must(contig(t, 4, 6).Narrow(1, 2, 3)), 2, 23},
		{"reversed", must(contig(t, 5).Slice(0, -1, -6, -1)), 0, 5},
		{"reversed step 2", must(contig(t, 10).Slice(0, 8, 0, -2)), 2, 9},
		{"extent-1 axis with any stride", mk([]int{1, 3}, []int{-100, 1}, 0), 0, 3},
	}
	for _, tc := range tests {
		lo, hi := tc.l.Span()
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: %+v.Span() = [%d, %d), want [%d, %d)", tc.name, tc.l, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestNormalizeAxis(t *testing.T) {
	tests := []struct {
		axis, rank, want int
		ok               bool
	}{
		{0, 3, 0, true},
		{2, 3, 2, true},
		{-1, 3, 2, true},
		{-3, 3, 0, true},
		{3, 3, 0, false},
		{-4, 3, 0, false},
		{0, 0, 0, false},
		{-1, 0, 0, false},
		{math.MaxInt, 3, 0, false},
		{math.MinInt, 3, 0, false},
	}
	for _, tc := range tests {
		got, err := layout.NormalizeAxis("Op", tc.axis, tc.rank)
		if !tc.ok {
			checkErr(t, "NormalizeAxis", err, errs.ErrAxis)
			if !strings.HasPrefix(err.Error(), "layout: Op: ") {
				t.Errorf("NormalizeAxis error %q lacks its prefix", err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeAxis(%d, %d) = %d, %v; want %d", tc.axis, tc.rank, got, err, tc.want)
		}
	}
}

// viewCase is one row of the view-op tables: a layout computed by the op
// under test, the model's result for the same op, and the expected strides
// and offset (nil strides: do not pin them, the model check suffices).
type viewCase struct {
	name    string
	got     func() (layout.Layout, error)
	ref     func() (refTensor, error)
	strides []int
	offset  int
	err     error
}

func runViewCases(t *testing.T, storageLen int, tests []viewCase) {
	t.Helper()
	for _, tc := range tests {
		l, err := tc.got()
		ref, refErr := tc.ref()
		if tc.err != nil {
			checkErr(t, tc.name, err, tc.err)
			if tc.err != layout.ErrNeedsCopy && !errors.Is(refErr, tc.err) {
				t.Errorf("%s: the model says %v, the table %v", tc.name, refErr, tc.err)
			}
			if tc.err == layout.ErrNeedsCopy {
				if _, ok := refViewStrides(ref); ok || refErr != nil {
					t.Errorf("%s: the model finds a view (%v)", tc.name, refErr)
				}
			}
			continue
		}
		if err != nil || refErr != nil {
			t.Errorf("%s: %v (model: %v)", tc.name, err, refErr)
			continue
		}
		if tc.strides != nil && (!slices.Equal(l.Strides, tc.strides) || l.Offset != tc.offset) {
			t.Errorf("%s: got strides %v offset %d, want %v offset %d", tc.name, l.Strides, l.Offset, tc.strides, tc.offset)
		}
		checkView(t, tc.name, l, ref, storageLen)
	}
}

func TestPermuteTranspose(t *testing.T) {
	l := contig(t, 2, 3, 4)
	r := refBase(0, 2, 3, 4)
	perm := func(p ...int) viewCase {
		return viewCase{
			got: func() (layout.Layout, error) { return l.Permute(p...) },
			ref: func() (refTensor, error) { return refPermute(r, p) },
		}
	}
	tr := func(a, b int) viewCase {
		return viewCase{
			got: func() (layout.Layout, error) { return l.Transpose(a, b) },
			ref: func() (refTensor, error) { return refTranspose(r, a, b) },
		}
	}
	with := func(c viewCase, name string, strides []int, err error) viewCase {
		c.name, c.strides, c.err = name, strides, err
		return c
	}
	runViewCases(t, 24, []viewCase{
		with(perm(0, 1, 2), "identity", []int{12, 4, 1}, nil),
		with(perm(2, 0, 1), "rotate", []int{1, 12, 4}, nil),
		with(perm(-1, 0, -2), "negative axes", []int{1, 12, 4}, nil),
		with(perm(2, 1, 0), "reverse", []int{1, 4, 12}, nil),
		with(perm(0, 1), "too short", nil, errs.ErrAxis),
		with(perm(0, 1, 2, 3), "too long", nil, errs.ErrAxis),
		with(perm(0, 0, 1), "repeated", nil, errs.ErrAxis),
		with(perm(0, -3, 1), "repeated via negative", nil, errs.ErrAxis),
		with(perm(0, 1, 3), "out of range", nil, errs.ErrAxis),
		with(perm(0, 1, math.MinInt), "MinInt", nil, errs.ErrAxis),
		with(tr(0, 2), "transpose", []int{1, 4, 12}, nil),
		with(tr(-1, -2), "transpose negative", []int{12, 1, 4}, nil),
		with(tr(1, 1), "transpose same axis", []int{12, 4, 1}, nil),
		with(tr(0, 3), "transpose out of range", nil, errs.ErrAxis),
		with(tr(-4, 0), "transpose out of range below", nil, errs.ErrAxis),
	})
	s, err := contig(t).Permute()
	if err != nil || s.Rank() != 0 {
		t.Errorf("scalar Permute() = %+v, %v", s, err)
	}
}

func TestNarrow(t *testing.T) {
	l := contig(t, 4, 6).Rebase(1)
	r := refBase(1, 4, 6)
	nar := func(name string, axis, start, length int, strides []int, off int, err error) viewCase {
		return viewCase{name: name, strides: strides, offset: off, err: err,
			got: func() (layout.Layout, error) { return l.Narrow(axis, start, length) },
			ref: func() (refTensor, error) { return refNarrow(r, axis, start, length) },
		}
	}
	runViewCases(t, 25, []viewCase{
		nar("rows", 0, 1, 2, []int{6, 1}, 7, nil),
		nar("cols", 1, 2, 3, []int{6, 1}, 3, nil),
		nar("last col", -1, 5, 1, []int{6, 1}, 6, nil),
		nar("all", 0, 0, 4, []int{6, 1}, 1, nil),
		nar("empty at end", 1, 6, 0, []int{6, 1}, 1, nil),
		nar("empty in middle", 0, 2, 0, []int{6, 1}, 1, nil),
		nar("past end", 1, 4, 3, nil, 0, errs.ErrAxis),
		nar("start past end", 1, 7, 0, nil, 0, errs.ErrAxis),
		nar("negative start", 0, -1, 2, nil, 0, errs.ErrAxis),
		nar("negative length", 0, 1, -1, nil, 0, errs.ErrAxis),
		nar("huge length", 0, 1, math.MaxInt, nil, 0, errs.ErrAxis),
		nar("huge start", 0, math.MaxInt, 1, nil, 0, errs.ErrAxis),
		nar("bad axis", 2, 0, 1, nil, 0, errs.ErrAxis),
	})
}

func TestSlice(t *testing.T) {
	l := contig(t, 10)
	r := refBase(0, 10)
	m := contig(t, 3, 4)
	rm := refBase(0, 3, 4)
	sl := func(name string, axis, start, end, step int, strides []int, off int, err error) viewCase {
		return viewCase{name: name, strides: strides, offset: off, err: err,
			got: func() (layout.Layout, error) { return l.Slice(axis, start, end, step) },
			ref: func() (refTensor, error) { return refSlice(r, axis, start, end, step) },
		}
	}
	sm := func(name string, axis, start, end, step int, strides []int, off int, err error) viewCase {
		return viewCase{name: name, strides: strides, offset: off, err: err,
			got: func() (layout.Layout, error) { return m.Slice(axis, start, end, step) },
			ref: func() (refTensor, error) { return refSlice(rm, axis, start, end, step) },
		}
	}
	runViewCases(t, 12, []viewCase{
		sl("all", 0, 0, 10, 1, []int{1}, 0, nil),
		sl("step 3", 0, 2, 8, 3, []int{3}, 2, nil),
		sl("negative start, clipped end", 0, -3, 100, 1, []int{1}, 7, nil),
		sl("clipped start", 0, -100, 3, 2, []int{2}, 0, nil),
		sl("reverse all", 0, 100, -100, -1, []int{-1}, 9, nil),
		sl("reverse from -1", 0, -1, -11, -3, []int{-3}, 9, nil),
		sl("reverse stops above end", 0, 8, 2, -2, []int{-2}, 8, nil),
		sl("empty forward", 0, 5, 5, 1, nil, 0, nil),
		sl("empty backward order", 0, 2, 5, -1, nil, 0, nil),
		sl("empty forward order", 0, 5, 2, 1, nil, 0, nil),
		sl("start past end", 0, 20, 30, 1, nil, 0, nil),
		sl("huge step", 0, 0, 10, math.MaxInt, nil, 0, nil),
		sl("huge step from 9", 0, 9, 10, math.MaxInt, nil, 0, nil),
		sl("MinInt step", 0, 9, -100, math.MinInt, nil, 0, nil),
		sl("MinInt bounds", 0, math.MinInt, math.MaxInt, 4, []int{4}, 0, nil),
		sl("MaxInt bounds backward", 0, math.MaxInt, math.MinInt, -4, []int{-4}, 9, nil),
		sl("zero step", 0, 0, 10, 0, nil, 0, errs.ErrValue),
		sl("bad axis", 1, 0, 10, 1, nil, 0, errs.ErrAxis),
		sl("bad negative axis", -2, 0, 10, 1, nil, 0, errs.ErrAxis),
		sm("reversed columns", 1, 3, 0, -2, []int{4, -2}, 3, nil),
		sm("reversed rows", 0, -1, -4, -1, []int{-4, 1}, 8, nil),
		sm("every other row", -2, 0, 3, 2, []int{8, 1}, 0, nil),
	})
	// Lengths pinned against Python's len(range(10)[start:end:step]).
	for _, tc := range []struct{ start, end, step, n int }{
		{0, 10, 3, 4}, {1, 10, 3, 3}, {-1, 0, -1, 9}, {-1, -11, -1, 10}, {3, -3, 2, 2},
		{math.MinInt, math.MaxInt, math.MaxInt, 1}, {5, 5, -1, 0}, {9, 0, -4, 3},
	} {
		s, err := l.Slice(0, tc.start, tc.end, tc.step)
		if err != nil || s.Shape[0] != tc.n {
			t.Errorf("range(10)[%d:%d:%d] has %v, %v; want %d elements", tc.start, tc.end, tc.step, s.Shape, err, tc.n)
		}
	}
}

func TestBroadcastShapes(t *testing.T) {
	tests := []struct {
		shapes [][]int
		want   []int
		err    error
	}{
		{nil, []int{}, nil},
		{[][]int{{3}}, []int{3}, nil},
		{[][]int{{}, {}}, []int{}, nil},
		{[][]int{{}, {2, 3}}, []int{2, 3}, nil},
		{[][]int{{2, 1}, {3}}, []int{2, 3}, nil},
		{[][]int{{5, 1, 4}, {3, 1}}, []int{5, 3, 4}, nil},
		{[][]int{{8, 1, 6, 1}, {7, 1, 5}}, []int{8, 7, 6, 5}, nil},
		{[][]int{{1, 0}, {5, 1}}, []int{5, 0}, nil},
		{[][]int{{0}, {1}}, []int{0}, nil},
		{[][]int{{1}, {1}, {4}, {1}}, []int{4}, nil},
		{[][]int{{2, 1}, {1, 3}, {2, 3}}, []int{2, 3}, nil},
		{[][]int{{0}, {3}}, nil, errs.ErrShape},
		{[][]int{{2}, {3}}, nil, errs.ErrShape},
		{[][]int{{2, 3}, {3, 2}}, nil, errs.ErrShape},
		{[][]int{{2, 1}, {1, 3}, {3, 3}}, nil, errs.ErrShape},
		{[][]int{{-1}, {1}}, nil, errs.ErrShape},
		{[][]int{{-1}, {-1}}, nil, errs.ErrShape},
		{[][]int{{layout.MaxElements, 1}, {1, 2}}, nil, errs.ErrShape},
	}
	for _, tc := range tests {
		got, err := layout.BroadcastShapes(tc.shapes...)
		if tc.err != nil {
			checkErr(t, "BroadcastShapes", err, tc.err)
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("BroadcastShapes(%v) = %v, %v; want %v", tc.shapes, got, err, tc.want)
		}
		// Every input must broadcast to the result.
		for _, s := range tc.shapes {
			l := contig(t, s...)
			if _, err := l.BroadcastTo(got...); err != nil {
				t.Errorf("%v does not broadcast to BroadcastShapes result %v: %v", s, got, err)
			}
		}
	}
}

func TestBroadcastTo(t *testing.T) {
	col := contig(t, 3, 1)
	rcol := refBase(0, 3, 1)
	vec := contig(t, 3).Rebase(2)
	rvec := refBase(2, 3)
	bc := func(name string, l layout.Layout, r refTensor, shape []int, strides []int, off int, err error) viewCase {
		return viewCase{name: name, strides: strides, offset: off, err: err,
			got: func() (layout.Layout, error) { return l.BroadcastTo(shape...) },
			ref: func() (refTensor, error) { return refBroadcastTo(r, shape) },
		}
	}
	runViewCases(t, 5, []viewCase{
		bc("same", col, rcol, []int{3, 1}, []int{1, 1}, 0, nil),
		bc("stretch cols", col, rcol, []int{3, 4}, []int{1, 0}, 0, nil),
		bc("new axes", col, rcol, []int{2, 3, 4}, []int{0, 1, 0}, 0, nil),
		bc("to empty", col, rcol, []int{3, 0}, []int{1, 0}, 0, nil),
		bc("vector rows", vec, rvec, []int{4, 3}, []int{0, 1}, 2, nil),
		bc("vector to empty batch", vec, rvec, []int{0, 3}, []int{0, 1}, 2, nil),
		bc("mismatch", vec, rvec, []int{4}, nil, 0, errs.ErrShape),
		bc("fewer axes", col, rcol, []int{3}, nil, 0, errs.ErrShape),
		bc("3 to 0", vec, rvec, []int{0}, nil, 0, errs.ErrShape),
		bc("negative", col, rcol, []int{3, -1}, nil, 0, errs.ErrShape),
		bc("overflow", col, rcol, []int{layout.MaxElements, 3, 2}, nil, 0, errs.ErrShape),
	})
	s, err := contig(t).BroadcastTo(2, 2)
	if err != nil || !slices.Equal(s.Strides, []int{0, 0}) {
		t.Errorf("scalar BroadcastTo(2, 2) = %+v, %v", s, err)
	}
}

func TestUnsqueezeSqueeze(t *testing.T) {
	l := contig(t, 2, 3)
	r := refBase(0, 2, 3)
	unsq := func(name string, axis int, strides []int, err error) viewCase {
		return viewCase{name: name, strides: strides, err: err,
			got: func() (layout.Layout, error) { return l.Unsqueeze(axis) },
			ref: func() (refTensor, error) { return refUnsqueeze(r, axis) },
		}
	}
	o := contig(t, 1, 2, 1, 3)
	ro := refBase(0, 1, 2, 1, 3)
	sq := func(name string, axes []int, strides []int, err error) viewCase {
		return viewCase{name: name, strides: strides, err: err,
			got: func() (layout.Layout, error) { return o.Squeeze(axes...) },
			ref: func() (refTensor, error) { return refSqueeze(ro, axes) },
		}
	}
	runViewCases(t, 6, []viewCase{
		unsq("front", 0, []int{6, 3, 1}, nil),
		unsq("middle", 1, []int{3, 3, 1}, nil),
		unsq("back", 2, []int{3, 1, 1}, nil),
		unsq("back negative", -1, []int{3, 1, 1}, nil),
		unsq("front negative", -3, []int{6, 3, 1}, nil),
		unsq("too far", 3, nil, errs.ErrAxis),
		unsq("too far negative", -4, nil, errs.ErrAxis),
		sq("all", nil, []int{3, 1}, nil),
		sq("first", []int{0}, []int{3, 3, 1}, nil),
		sq("negative", []int{-2}, []int{6, 3, 1}, nil),
		sq("both, repeated", []int{0, 2, 0}, []int{3, 1}, nil),
		sq("not 1", []int{1}, nil, errs.ErrShape),
		sq("out of range", []int{4}, nil, errs.ErrAxis),
		sq("out of range negative", []int{-5}, nil, errs.ErrAxis),
	})
	// Unsqueeze keeps contiguous layouts contiguous, even around extent 0
	// and on a scalar.
	for _, shape := range [][]int{{}, {0}, {2, 0, 3}, {4}} {
		c := contig(t, shape...)
		for a := -c.Rank() - 1; a <= c.Rank(); a++ {
			u, err := c.Unsqueeze(a)
			if err != nil || !u.IsContiguous() || u.Rank() != c.Rank()+1 {
				t.Errorf("Contiguous%v.Unsqueeze(%d) = %+v, %v", shape, a, u, err)
			}
		}
	}
	s, err := contig(t, 1).Squeeze()
	if err != nil || s.Shape == nil || s.Strides == nil || s.Rank() != 0 {
		t.Errorf("[1].Squeeze() = %#v, %v; want a non-nil rank-0 layout", s, err)
	}
}

func TestFlatten(t *testing.T) {
	l := contig(t, 2, 3, 4)
	r := refBase(0, 2, 3, 4)
	narrowed := must(l.Narrow(2, 1, 2)) // [2 3 2], strides [12 4 1]
	rn, _ := refNarrow(r, 2, 1, 2)
	tr := must(l.Transpose(0, 2)) // [4 3 2], strides [1 4 12]
	rt, _ := refTranspose(r, 0, 2)
	sc := contig(t)
	rs := refBase(0)
	fl := func(name string, l layout.Layout, r refTensor, s, e int, strides []int, off int, err error) viewCase {
		return viewCase{name: name, strides: strides, offset: off, err: err,
			got: func() (layout.Layout, error) { return l.Flatten(s, e) },
			ref: func() (refTensor, error) { return refFlatten(r, s, e) },
		}
	}
	runViewCases(t, 24, []viewCase{
		fl("all", l, r, 0, -1, []int{1}, 0, nil),
		fl("front", l, r, 0, 1, []int{4, 1}, 0, nil),
		fl("back", l, r, 1, 2, []int{12, 1}, 0, nil),
		fl("one axis", l, r, 1, 1, []int{12, 4, 1}, 0, nil),
		fl("reversed", l, r, 2, 1, nil, 0, errs.ErrAxis),
		fl("out of range", l, r, 0, 3, nil, 0, errs.ErrAxis),
		fl("out of range start", l, r, -4, 0, nil, 0, errs.ErrAxis),
		fl("narrowed, merge contiguous outer axes", narrowed, rn, 0, 1, []int{4, 1}, 1, nil),
		fl("narrowed, merge across the gap", narrowed, rn, 1, 2, nil, 0, layout.ErrNeedsCopy),
		fl("transposed", tr, rt, 0, 1, nil, 0, layout.ErrNeedsCopy),
		fl("transposed, one axis", tr, rt, 2, 2, []int{1, 4, 12}, 0, nil),
		fl("scalar", sc, rs, 0, 0, []int{1}, 0, nil),
		fl("scalar, -1", sc, rs, 0, -1, []int{1}, 0, nil),
		fl("scalar, bad axis", sc, rs, 1, 1, nil, 0, errs.ErrAxis),
		fl("scalar, bad negative axis", sc, rs, -2, 0, nil, 0, errs.ErrAxis),
	})
}

func TestReshape(t *testing.T) {
	l := contig(t, 2, 3, 4)
	r := refBase(0, 2, 3, 4)
	// [4 4] at offset 1 with row stride 6: a narrowed matrix.
	nm := must(contig(t, 4, 6).Narrow(1, 1, 4))
	rnm, _ := refNarrow(refBase(0, 4, 6), 1, 1, 4)
	// [2 3 2] with strides [12 4 1]: axes 0 and 1 are contiguous together.
	n3 := must(l.Narrow(2, 0, 2))
	rn3, _ := refNarrow(r, 2, 0, 2)
	// [4 3] with strides [1 4]: a transposed matrix.
	tm := must(contig(t, 3, 4).Transpose(0, 1))
	rtm, _ := refTranspose(refBase(0, 3, 4), 0, 1)
	// [2 3] broadcast from [3].
	bv := must(contig(t, 3).BroadcastTo(2, 3))
	rbv, _ := refBroadcastTo(refBase(0, 3), []int{2, 3})
	// [2 3] broadcast from a scalar.
	bs := must(contig(t).BroadcastTo(2, 3))
	rbs, _ := refBroadcastTo(refBase(0), []int{2, 3})
	// [6] reversed.
	rev := must(contig(t, 6).Slice(0, -1, -7, -1))
	rrev, _ := refSlice(refBase(0, 6), 0, -1, -7, -1)
	// [2 3] with both axes reversed.
	rev2 := must(must(contig(t, 2, 3).Slice(0, 1, -3, -1)).Slice(1, 2, -4, -1))
	rrev2, _ := refSlice(refBase(0, 2, 3), 0, 1, -3, -1)
	rrev2, _ = refSlice(rrev2, 1, 2, -4, -1)
	// [2 0 3] empty.
	em := contig(t, 2, 0, 3)
	rem := refBase(0, 2, 0, 3)
	sc := contig(t).Rebase(5)
	rsc := refBase(5)
	rs := func(name string, l layout.Layout, r refTensor, shape []int, strides []int, off int, err error) viewCase {
		return viewCase{name: name, strides: strides, offset: off, err: err,
			got: func() (layout.Layout, error) { return l.Reshape(shape...) },
			ref: func() (refTensor, error) { return refReshape(r, shape) },
		}
	}
	runViewCases(t, 24, []viewCase{
		rs("flat", l, r, []int{24}, []int{1}, 0, nil),
		rs("infer last", l, r, []int{4, -1}, []int{6, 1}, 0, nil),
		rs("infer first", l, r, []int{-1, 2, 3}, []int{6, 3, 1}, 0, nil),
		rs("infer alone", l, r, []int{-1}, []int{1}, 0, nil),
		rs("with ones", l, r, []int{1, 6, 1, 4}, []int{24, 4, 4, 1}, 0, nil),
		rs("two -1", l, r, []int{-1, -1}, nil, 0, errs.ErrShape),
		rs("-2", l, r, []int{-2, -12}, nil, 0, errs.ErrShape),
		rs("indivisible", l, r, []int{5, -1}, nil, 0, errs.ErrShape),
		rs("infer next to 0", l, r, []int{0, -1}, nil, 0, errs.ErrShape),
		rs("wrong count", l, r, []int{2, 3, 5}, nil, 0, errs.ErrShape),
		rs("overflow", l, r, []int{math.MaxInt, math.MaxInt}, nil, 0, errs.ErrShape),
		rs("overflow with 0", l, r, []int{0, 1 << 40, 1 << 40}, nil, 0, errs.ErrShape),
		rs("overflow with -1", l, r, []int{-1, 1 << 40, 1 << 40}, nil, 0, errs.ErrShape),
		rs("rank 0 from 24", l, r, []int{}, nil, 0, errs.ErrShape),
		rs("narrowed: split rows", nm, rnm, []int{2, 2, 4}, []int{12, 6, 1}, 1, nil),
		rs("narrowed: split cols", nm, rnm, []int{4, 2, 2}, []int{6, 2, 1}, 1, nil),
		rs("narrowed: both, ones", nm, rnm, []int{2, 1, 2, 2, 1, 2}, nil, 0, nil),
		rs("narrowed: flat", nm, rnm, []int{16}, nil, 0, layout.ErrNeedsCopy),
		rs("narrowed: across", nm, rnm, []int{8, 2}, nil, 0, layout.ErrNeedsCopy),
		rs("narrowed: merge outer axes", n3, rn3, []int{6, 2}, []int{4, 1}, 0, nil),
		rs("narrowed: merge, split", n3, rn3, []int{3, 2, 2}, []int{8, 4, 1}, 0, nil),
		rs("narrowed: merge inner", n3, rn3, []int{2, 6}, nil, 0, layout.ErrNeedsCopy),
		rs("transposed: flat", tm, rtm, []int{12}, nil, 0, layout.ErrNeedsCopy),
		rs("transposed: split rows", tm, rtm, []int{2, 2, 3}, []int{2, 1, 4}, 0, nil),
		rs("transposed: trailing 1", tm, rtm, []int{4, 3, 1}, nil, 0, nil),
		rs("transposed: middle 1", tm, rtm, []int{4, 1, 3}, nil, 0, nil),
		rs("broadcast vector: flat", bv, rbv, []int{6}, nil, 0, layout.ErrNeedsCopy),
		rs("broadcast vector: ones", bv, rbv, []int{1, 2, 1, 3}, nil, 0, nil),
		rs("broadcast vector: split", bv, rbv, []int{3, 2}, nil, 0, layout.ErrNeedsCopy),
		rs("broadcast scalar: flat", bs, rbs, []int{6}, []int{0}, 0, nil),
		rs("broadcast scalar: regroup", bs, rbs, []int{3, 2}, []int{0, 0}, 0, nil),
		rs("reversed: split", rev, rrev, []int{2, 3}, []int{-3, -1}, 5, nil),
		rs("both reversed: flat", rev2, rrev2, []int{6}, []int{-1}, 5, nil),
		rs("both reversed: regroup", rev2, rrev2, []int{3, 2}, []int{-2, -1}, 5, nil),
		rs("empty: regroup", em, rem, []int{3, 0, 5}, nil, 0, nil),
		rs("empty: infer", em, rem, []int{-1, 3}, nil, 0, nil),
		rs("empty: infer next to 0", em, rem, []int{0, -1}, nil, 0, errs.ErrShape),
		rs("empty: non-empty target", em, rem, []int{1}, nil, 0, errs.ErrShape),
		rs("scalar to [1 1]", sc, rsc, []int{1, 1}, []int{1, 1}, 5, nil),
		rs("scalar to [-1]", sc, rsc, []int{-1}, []int{1}, 5, nil),
		rs("scalar to []", sc, rsc, []int{}, []int{}, 5, nil),
		rs("scalar to [2]", sc, rsc, []int{2}, nil, 0, errs.ErrShape),
	})
	// A reshape that succeeds as a view reads the same elements, in the same
	// row-major order, as reshaping a contiguous copy would.
	back, err := must(nm.Reshape(2, 2, 2, 2)).Reshape(4, 4)
	if err != nil || !back.Equal(nm) {
		t.Errorf("reshape there and back = %+v, %v; want %+v", back, err, nm)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name       string
		l          layout.Layout
		storageLen int
		ok         bool
	}{
		{"contiguous", mk([]int{2, 3}, []int{3, 1}, 0), 6, true},
		{"contiguous with room", mk([]int{2, 3}, []int{3, 1}, 2), 10, true},
		{"scalar", mk([]int{}, []int{}, 4), 5, true},
		{"nil scalar", layout.Layout{}, 1, true},
		{"empty anywhere", mk([]int{0, 3}, []int{3, 1}, -50), 0, true},
		{"negative stride inside", mk([]int{3}, []int{-1}, 2), 3, true},
		{"broadcast", mk([]int{5, 3}, []int{0, 1}, 0), 3, true},
		{"too short", mk([]int{2, 3}, []int{3, 1}, 1), 6, false},
		{"negative offset", mk([]int{2}, []int{1}, -1), 6, false},
		{"negative stride below 0", mk([]int{3}, []int{-1}, 1), 3, false},
		{"scalar past end", mk([]int{}, []int{}, 5), 5, false},
		{"rank mismatch", mk([]int{2, 3}, []int{1}, 0), 100, false},
		{"nil strides", mk([]int{2}, nil, 0), 100, false},
		{"negative extent", mk([]int{-2}, []int{1}, 0), 100, false},
		{"overflowing shape", mk([]int{1 << 32, 1 << 32}, []int{1, 1}, 0), math.MaxInt, false},
		// The span wraps around: 4 * 2^62 == 0 mod 2^64.
		{"wrapping stride", mk([]int{5}, []int{1 << 62}, 0), 1, false},
		{"wrapping negative stride", mk([]int{5}, []int{-(1 << 62)}, 0), 1, false},
		{"MinInt stride", mk([]int{2}, []int{math.MinInt}, 0), 1, false},
		{"offset at MaxInt", mk([]int{2}, []int{1}, math.MaxInt), math.MaxInt, false},
		{"sum wraps", mk([]int{3, 3}, []int{math.MaxInt / 2, math.MaxInt / 2}, 0), math.MaxInt, false},
	}
	for _, tc := range tests {
		err := tc.l.Validate(tc.storageLen)
		if tc.ok {
			if err != nil {
				t.Errorf("%s: Validate(%d) = %v", tc.name, tc.storageLen, err)
			}
			continue
		}
		checkErr(t, tc.name, err, errs.ErrShape)
	}
}

// TestMalformedReceiver runs every error-returning method on hand-built
// layouts that Validate rejects: none may panic, all report ErrShape.
func TestMalformedReceiver(t *testing.T) {
	bad := []layout.Layout{
		mk([]int{2, 3}, []int{1}, 0),
		mk([]int{2, 3}, nil, 0),
		mk([]int{2}, []int{1, 1}, 0),
		mk([]int{-1, 3}, []int{3, 1}, 0),
		mk([]int{1 << 40, 1 << 40}, []int{1, 1}, 0),
		mk([]int{5, 2}, []int{1 << 62, 1}, 0),
		mk([]int{2, 2}, []int{1, 1}, math.MaxInt),
	}
	ops := map[string]func(l layout.Layout) error{
		"Permute":     func(l layout.Layout) error { _, err := l.Permute(1, 0); return err },
		"Transpose":   func(l layout.Layout) error { _, err := l.Transpose(0, -1); return err },
		"Narrow":      func(l layout.Layout) error { _, err := l.Narrow(0, 0, 1); return err },
		"Slice":       func(l layout.Layout) error { _, err := l.Slice(-1, 0, 1, 1); return err },
		"BroadcastTo": func(l layout.Layout) error { _, err := l.BroadcastTo(2, 2, 3); return err },
		"Unsqueeze":   func(l layout.Layout) error { _, err := l.Unsqueeze(1); return err },
		"Squeeze":     func(l layout.Layout) error { _, err := l.Squeeze(); return err },
		"Flatten":     func(l layout.Layout) error { _, err := l.Flatten(0, -1); return err },
		"Reshape":     func(l layout.Layout) error { _, err := l.Reshape(-1); return err },
		"Classify2D":  func(l layout.Layout) error { _, err := l.Classify2D(); return err },
		"Validate":    func(l layout.Layout) error { return l.Validate(math.MaxInt) },
	}
	for _, l := range bad {
		for name, op := range ops {
			checkErr(t, name, op(l), errs.ErrShape)
		}
		if got := l.BatchOffsets(); len(got) != 0 {
			t.Errorf("%+v.BatchOffsets() = %v, want none", l, got)
		}
		// The methods without an error result must not panic either.
		l.Span()
		l.IsContiguous()
		l.Numel()
		if len(l.Shape) != len(l.Strides) && l.IsContiguous() {
			t.Errorf("%+v.IsContiguous() = true", l)
		}
	}
}

// TestErrorMessages checks the "layout: Op: ..." form of a few errors.
func TestErrorMessages(t *testing.T) {
	l := contig(t, 2, 3)
	for _, tc := range []struct {
		err    error
		prefix string
	}{
		{func() error { _, err := l.Permute(0); return err }(), "layout: Permute: "},
		{func() error { _, err := l.Narrow(5, 0, 0); return err }(), "layout: Narrow: "},
		{func() error { _, err := l.Slice(0, 0, 1, 0); return err }(), "layout: Slice: "},
		{func() error { _, err := l.Reshape(7); return err }(), "layout: Reshape: "},
		{func() error { _, err := layout.BroadcastShapes([]int{-1}); return err }(), "layout: BroadcastShapes: "},
		{func() error { _, err := layout.Numel([]int{-1}); return err }(), "layout: Numel: "},
		{mk([]int{2}, []int{1}, 0).Validate(1), "layout: Validate: "},
	} {
		if tc.err == nil || !strings.HasPrefix(tc.err.Error(), tc.prefix) {
			t.Errorf("error %v, want prefix %q", tc.err, tc.prefix)
		}
	}
}

// TestViewsShareNothingMutable checks that view ops never write into the
// receiver's slices.
func TestViewsShareNothingMutable(t *testing.T) {
	l := must(contig(t, 2, 3, 4).Narrow(2, 1, 2))
	shape, strides := slices.Clone(l.Shape), slices.Clone(l.Strides)
	l.Permute(2, 0, 1)
	l.Transpose(0, 1)
	l.Narrow(1, 1, 1)
	l.Slice(2, -1, -3, -1)
	l.BroadcastTo(5, 2, 3, 2)
	l.Unsqueeze(1)
	l.Squeeze()
	l.Flatten(0, 1)
	l.Reshape(3, 2, 2)
	l.Classify2D()
	l.BatchOffsets()
	if !slices.Equal(l.Shape, shape) || !slices.Equal(l.Strides, strides) {
		t.Errorf("view ops modified their receiver: %+v", l)
	}
}

func TestEqualRebase(t *testing.T) {
	a := contig(t, 2, 3)
	if !a.Equal(contig(t, 2, 3)) || a.Equal(a.Rebase(1)) || !a.Rebase(3).Rebase(-3).Equal(a) {
		t.Error("Equal/Rebase disagree")
	}
	if a.Equal(must(a.Transpose(0, 1))) || a.Equal(contig(t, 6)) {
		t.Error("Equal ignores shape or strides")
	}
	if got := a.Rebase(7); got.Offset != 7 || !slices.Equal(got.Shape, a.Shape) {
		t.Errorf("Rebase(7) = %+v", got)
	}
}
