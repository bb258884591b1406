package layout_test

import (
	"slices"
	"testing"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

func TestClassify2D(t *testing.T) {
	type want struct {
		kind        layout.MatrixKind
		rows, cols  int
		ld, offset  int
		batch       int
		batchStride int
		collapsed   bool
		offsets     []int
	}
	// Every case is built by view ops on a contiguous base, so the model
	// follows the same ops; storage is the base's element count.
	type op func(layout.Layout, refTensor) (layout.Layout, refTensor)
	narrow := func(axis, start, n int) op {
		return func(l layout.Layout, r refTensor) (layout.Layout, refTensor) {
			rr, _ := refNarrow(r, axis, start, n)
			return must(l.Narrow(axis, start, n)), rr
		}
	}
	transpose := func(a, b int) op {
		return func(l layout.Layout, r refTensor) (layout.Layout, refTensor) {
			rr, _ := refTranspose(r, a, b)
			return must(l.Transpose(a, b)), rr
		}
	}
	permute := func(p ...int) op {
		return func(l layout.Layout, r refTensor) (layout.Layout, refTensor) {
			rr, _ := refPermute(r, p)
			return must(l.Permute(p...)), rr
		}
	}
	slice := func(axis, start, end, step int) op {
		return func(l layout.Layout, r refTensor) (layout.Layout, refTensor) {
			rr, _ := refSlice(r, axis, start, end, step)
			return must(l.Slice(axis, start, end, step)), rr
		}
	}
	broadcast := func(shape ...int) op {
		return func(l layout.Layout, r refTensor) (layout.Layout, refTensor) {
			rr, _ := refBroadcastTo(r, shape)
			return must(l.BroadcastTo(shape...)), rr
		}
	}
	tests := []struct {
		name string
		base []int
		ops  []op
		want want
	}{
		{"contiguous", []int{3, 4}, nil,
			want{layout.RowMajor, 3, 4, 4, 0, 1, 0, true, []int{0}}},
		{"transposed", []int{3, 4}, []op{transpose(0, 1)},
			want{layout.ColMajor, 4, 3, 4, 0, 1, 0, true, []int{0}}},
		{"narrowed cols: ld > cols", []int{3, 8}, []op{narrow(1, 2, 4)},
			want{layout.RowMajor, 3, 4, 8, 2, 1, 0, true, []int{2}}},
		{"narrowed rows", []int{5, 4}, []op{narrow(0, 1, 3)},
			want{layout.RowMajor, 3, 4, 4, 4, 1, 0, true, []int{4}}},
		{"narrowed then transposed", []int{4, 6}, []op{narrow(1, 1, 3), transpose(0, 1)},
			want{layout.ColMajor, 3, 4, 6, 1, 1, 0, true, []int{1}}},
		{"broadcast rows", []int{4}, []op{broadcast(3, 4)},
			want{layout.General, 3, 4, 0, 0, 1, 0, true, []int{0}}},
		{"broadcast cols", []int{3, 1}, []op{broadcast(3, 4)},
			want{layout.General, 3, 4, 0, 0, 1, 0, true, []int{0}}},
		{"reversed cols", []int{3, 4}, []op{slice(1, -1, -5, -1)},
			want{layout.General, 3, 4, 0, 3, 1, 0, true, []int{3}}},
		{"reversed rows", []int{3, 4}, []op{slice(0, -1, -4, -1)},
			want{layout.General, 3, 4, 0, 8, 1, 0, true, []int{8}}},
		{"every other col", []int{3, 8}, []op{slice(1, 0, 8, 2)},
			want{layout.General, 3, 4, 0, 0, 1, 0, true, []int{0}}},
		{"every other row", []int{6, 4}, []op{slice(0, 1, 6, 2)},
			want{layout.RowMajor, 3, 4, 8, 4, 1, 0, true, []int{4}}},
		{"one row", []int{1, 5}, nil,
			want{layout.RowMajor, 1, 5, 5, 0, 1, 0, true, []int{0}}},
		{"one row of a wider matrix", []int{5, 8}, []op{narrow(0, 2, 1)},
			want{layout.RowMajor, 1, 8, 8, 16, 1, 0, true, []int{16}}},
		{"one row of a transposed matrix", []int{5, 7}, []op{narrow(1, 3, 1), transpose(0, 1)},
			want{layout.ColMajor, 1, 5, 7, 3, 1, 0, true, []int{3}}},
		{"one column", []int{5, 1}, nil,
			want{layout.RowMajor, 5, 1, 1, 0, 1, 0, true, []int{0}}},
		{"one column of a wider matrix", []int{5, 4}, []op{narrow(1, 2, 1)},
			want{layout.RowMajor, 5, 1, 4, 2, 1, 0, true, []int{2}}},
		{"one element", []int{1, 1}, nil,
			want{layout.RowMajor, 1, 1, 1, 0, 1, 0, true, []int{0}}},
		{"one reversed row", []int{1, 5}, []op{slice(1, 4, -6, -1)},
			want{layout.General, 1, 5, 0, 4, 1, 0, true, []int{4}}},
		{"empty rows", []int{0, 4}, nil,
			want{layout.RowMajor, 0, 4, 4, 0, 1, 0, true, []int{0}}},
		{"empty matrices keep their offsets", []int{3, 2, 0}, nil,
			want{layout.RowMajor, 2, 0, 1, 0, 3, 2, true, []int{0, 2, 4}}},
		{"batch", []int{2, 3, 4, 5}, nil,
			want{layout.RowMajor, 4, 5, 5, 0, 6, 20, true, []int{0, 20, 40, 60, 80, 100}}},
		{"batch of transposed", []int{3, 4, 5}, []op{transpose(1, 2)},
			want{layout.ColMajor, 5, 4, 5, 0, 3, 20, true, []int{0, 20, 40}}},
		{"batch with extent-1 axes", []int{2, 1, 3, 1, 2, 2}, nil,
			want{layout.RowMajor, 2, 2, 2, 0, 6, 4, true, []int{0, 4, 8, 12, 16, 20}}},
		{"broadcast batch", []int{4, 5}, []op{broadcast(2, 3, 4, 5)},
			want{layout.RowMajor, 4, 5, 5, 0, 6, 0, true, []int{0, 0, 0, 0, 0, 0}}},
		{"narrowed outer batch axis", []int{4, 3, 2, 2}, []op{narrow(0, 1, 2)},
			want{layout.RowMajor, 2, 2, 2, 12, 6, 4, true, []int{12, 16, 20, 24, 28, 32}}},
		{"narrowed inner batch axis", []int{2, 3, 4, 5}, []op{narrow(1, 0, 2)},
			want{layout.RowMajor, 4, 5, 5, 0, 4, 20, false, []int{0, 20, 60, 80}}},
		{"permuted batch", []int{2, 3, 4, 5}, []op{permute(1, 0, 2, 3)},
			want{layout.RowMajor, 4, 5, 5, 0, 6, 60, false, []int{0, 60, 20, 80, 40, 100}}},
		{"half-broadcast batch", []int{3, 1, 4, 5}, []op{broadcast(3, 2, 4, 5)},
			want{layout.RowMajor, 4, 5, 5, 0, 6, 0, false, []int{0, 0, 20, 20, 40, 40}}},
		{"batch stepping by 2", []int{6, 2, 2}, []op{slice(0, 0, 6, 2)},
			want{layout.RowMajor, 2, 2, 2, 0, 3, 8, true, []int{0, 8, 16}}},
		{"reversed batch", []int{3, 2, 2}, []op{slice(0, -1, -4, -1)},
			want{layout.RowMajor, 2, 2, 2, 8, 3, -4, true, []int{8, 4, 0}}},
		{"empty batch", []int{0, 2, 3}, nil,
			want{layout.RowMajor, 2, 3, 3, 0, 0, 0, true, []int{}}},
		{"empty batch among others", []int{2, 0, 2, 3}, nil,
			want{layout.RowMajor, 2, 3, 3, 0, 0, 0, true, []int{}}},
	}
	for _, tc := range tests {
		l := contig(t, tc.base...)
		r := refBase(0, tc.base...)
		for _, o := range tc.ops {
			l, r = o(l, r)
		}
		m, err := l.Classify2D()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		w := tc.want
		got := want{m.Kind, m.Rows, m.Cols, m.LD, m.Offset, m.Batch, m.BatchStride, m.Collapsed, l.BatchOffsets()}
		if w.kind == layout.General {
			got.ld = 0 // not meaningful
		}
		if got.kind != w.kind || got.rows != w.rows || got.cols != w.cols || got.ld != w.ld ||
			got.offset != w.offset || got.batch != w.batch || got.batchStride != w.batchStride ||
			got.collapsed != w.collapsed || !slices.Equal(got.offsets, w.offsets) {
			t.Errorf("%s: %+v:\n got %+v\nwant %+v", tc.name, l, got, w)
		}
		checkView(t, tc.name, l, r, len(refBase(0, tc.base...).pos))
	}
}

func TestClassify2DErrors(t *testing.T) {
	for _, shape := range [][]int{{}, {5}, {0}} {
		_, err := contig(t, shape...).Classify2D()
		checkErr(t, "Classify2D", err, errs.ErrShape)
	}
}

func TestClassify2DHandBuilt(t *testing.T) {
	tests := []struct {
		l    layout.Layout
		kind layout.MatrixKind
		ld   int
	}{
		{mk([]int{3, 4}, []int{2, 1}, 0), layout.General, 0},  // rows overlap
		{mk([]int{3, 4}, []int{1, 2}, 0), layout.General, 0},  // columns overlap
		{mk([]int{3, 4}, []int{1, 1}, 0), layout.General, 0},  // both unit
		{mk([]int{3, 4}, []int{4, 1}, 0), layout.RowMajor, 4}, // ld == cols
		{mk([]int{3, 4}, []int{9, 1}, 0), layout.RowMajor, 9},
		{mk([]int{3, 4}, []int{1, 3}, 0), layout.ColMajor, 3}, // ld == rows
		{mk([]int{3, 4}, []int{1, 10}, 0), layout.ColMajor, 10},
		{mk([]int{1, 4}, []int{-7, 1}, 0), layout.RowMajor, 4}, // row stride unused
		{mk([]int{3, 1}, []int{1, -7}, 0), layout.RowMajor, 1}, // col stride unused
		{mk([]int{1, 4}, []int{1, 6}, 0), layout.ColMajor, 6},  // a row of a column-major matrix
		{mk([]int{2, 2}, []int{0, 1}, 0), layout.General, 0},   // broadcast rows
		{mk([]int{2, 2}, []int{1, 0}, 0), layout.General, 0},   // broadcast cols
		{mk([]int{1, 3}, []int{0, 0}, 0), layout.General, 0},   // broadcast along the row
		{mk([]int{1, 1}, []int{0, 0}, 0), layout.RowMajor, 1},  // a single element
		{mk([]int{2, 3}, []int{-3, 1}, 3), layout.General, 0},  // rows reversed
		{mk([]int{2, 3}, []int{3, 1}, 1), layout.RowMajor, 3},  // offset kept
		{mk([]int{2, 3, 3}, []int{0, 3, 1}, 0), layout.RowMajor, 3},
	}
	for _, tc := range tests {
		m, err := tc.l.Classify2D()
		if err != nil {
			t.Errorf("%+v: %v", tc.l, err)
			continue
		}
		if m.Kind != tc.kind || (tc.kind != layout.General && m.LD != tc.ld) || m.Offset != tc.l.Offset {
			t.Errorf("%+v: Classify2D = %+v, want %v ld %d", tc.l, m, tc.kind, tc.ld)
		}
	}
}

func TestMatrixKindString(t *testing.T) {
	for k, want := range map[layout.MatrixKind]string{
		layout.General: "General", layout.RowMajor: "RowMajor", layout.ColMajor: "ColMajor", 9: "General",
	} {
		if got := k.String(); got != want {
			t.Errorf("MatrixKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}
