package layout_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/layout"
)

func TestRowsShape(t *testing.T) {
	tests := []struct {
		name       string
		ls         []layout.Layout
		count, len int
		inner      []int
	}{
		{"contiguous merges to one row", []layout.Layout{contig(t, 2, 3, 4)}, 1, 24, []int{1}},
		{"scalar", []layout.Layout{contig(t)}, 1, 1, []int{0}},
		{"extent-1 axes dropped", []layout.Layout{mk([]int{1, 3, 1}, []int{50, 2, 70}, 0)}, 1, 3, []int{2}},
		{"empty", []layout.Layout{contig(t, 2, 0, 3)}, 0, 0, []int{0}},
		{"transposed", []layout.Layout{must(contig(t, 2, 3).Transpose(0, 1))}, 3, 2, []int{3}},
		{"narrowed", []layout.Layout{must(contig(t, 3, 5).Narrow(1, 1, 2))}, 3, 2, []int{1}},
		{"narrowed outer axes merge", []layout.Layout{must(contig(t, 2, 3, 4).Narrow(2, 0, 2))}, 6, 2, []int{1}},
		{"broadcast scalar merges", []layout.Layout{mk([]int{2, 3}, []int{0, 0}, 4)}, 1, 6, []int{0}},
		{"broadcast rows", []layout.Layout{must(contig(t, 3).BroadcastTo(4, 3))}, 4, 3, []int{1}},
		{"reversed merges", []layout.Layout{must(contig(t, 6).Slice(0, -1, -7, -1))}, 1, 6, []int{-1}},
		{"merge only where all operands allow", []layout.Layout{
			contig(t, 2, 3), must(contig(t, 3, 2).Transpose(0, 1)),
		}, 2, 3, []int{1, 2}},
		{"three contiguous operands", []layout.Layout{
			contig(t, 2, 3), contig(t, 2, 3).Rebase(6), contig(t, 2, 3).Rebase(12),
		}, 1, 6, []int{1, 1, 1}},
	}
	for _, tc := range tests {
		r := layout.NewRowsOf(tc.ls...)
		if r.Count() != tc.count || r.Len() != tc.len {
			t.Errorf("%s: %d rows of %d, want %d of %d", tc.name, r.Count(), r.Len(), tc.count, tc.len)
		}
		calls := 0
		r.Each(0, r.Count(), func(offs []int, n int, inner []int) {
			calls++
			if !slices.Equal(inner, tc.inner) || n != tc.len {
				t.Errorf("%s: row of %d with inner strides %v, want %d, %v", tc.name, n, inner, tc.len, tc.inner)
			}
		})
		if calls != tc.count {
			t.Errorf("%s: Each made %d calls, want %d", tc.name, calls, tc.count)
		}
	}
}

// rowsOperand is one way of building a layout of a given shape, with the
// model built the same way.
type rowsOperand struct {
	name  string
	build func(shape []int) (layout.Layout, refTensor, error)
}

func reversedShape(shape []int) []int {
	out := slices.Clone(shape)
	slices.Reverse(out)
	return out
}

var rowsOperands = []rowsOperand{
	{"contiguous", func(shape []int) (layout.Layout, refTensor, error) {
		l, err := layout.Contiguous(shape...)
		return l.Rebase(3), refBase(3, shape...), err
	}},
	{"all axes reversed in storage", func(shape []int) (layout.Layout, refTensor, error) {
		rs := reversedShape(shape)
		perm := make([]int, len(shape))
		for i := range perm {
			perm[i] = len(shape) - 1 - i
		}
		l, err := layout.Contiguous(rs...)
		if err != nil {
			return l, refTensor{}, err
		}
		l, err = l.Permute(perm...)
		r, _ := refPermute(refBase(0, rs...), perm)
		return l, r, err
	}},
	{"every other element of a wider last axis, backwards", func(shape []int) (layout.Layout, refTensor, error) {
		if len(shape) == 0 {
			return layout.Layout{Shape: []int{}, Strides: []int{}}, refBase(0), nil
		}
		wide := slices.Clone(shape)
		wide[len(wide)-1] = 2*wide[len(wide)-1] + 1
		l, err := layout.Contiguous(wide...)
		if err != nil {
			return l, refTensor{}, err
		}
		l, err = l.Slice(-1, -2, -2*wide[len(wide)-1], -2)
		r, _ := refSlice(refBase(0, wide...), -1, -2, -2*wide[len(wide)-1], -2)
		return l, r, err
	}},
	{"broadcast from the last axis", func(shape []int) (layout.Layout, refTensor, error) {
		last := []int{}
		if len(shape) > 0 {
			last = shape[len(shape)-1:]
		}
		l, err := layout.Contiguous(last...)
		if err != nil {
			return l, refTensor{}, err
		}
		l, err = l.BroadcastTo(shape...)
		r, _ := refBroadcastTo(refBase(0, last...), shape)
		return l, r, err
	}},
	{"narrowed first axis", func(shape []int) (layout.Layout, refTensor, error) {
		if len(shape) == 0 {
			return layout.Layout{Shape: []int{}, Strides: []int{}, Offset: 1}, refBase(1), nil
		}
		wide := slices.Clone(shape)
		wide[0] += 2
		l, err := layout.Contiguous(append(wide[:1:1], append([]int{3}, wide[1:]...)...)...)
		if err != nil {
			return l, refTensor{}, err
		}
		// [d0+2, 3, rest...] -> element 1 of axis 1, rows 1..d0 of axis 0.
		r := refBase(0, l.Shape...)
		l, err = l.Narrow(1, 1, 1)
		r, _ = refNarrow(r, 1, 1, 1)
		if err == nil {
			l, err = l.Narrow(0, 1, shape[0])
			r, _ = refNarrow(r, 0, 1, shape[0])
		}
		if err == nil {
			l, err = l.Squeeze(1)
			r, _ = refSqueeze(r, []int{1})
		}
		return l, r, err
	}},
}

// TestRowsSplits walks several operands together over every split of the
// rows into two and three ranges, and checks every position against the
// model.
func TestRowsSplits(t *testing.T) {
	shapes := [][]int{{}, {0}, {1}, {5}, {2, 3}, {3, 1, 2}, {2, 0, 2}, {2, 3, 4}, {1, 2, 1, 3}, {2, 2, 2, 2}}
	for _, shape := range shapes {
		var ls []layout.Layout
		var refs []refTensor
		for _, op := range rowsOperands {
			l, r, err := op.build(shape)
			if err != nil {
				t.Fatalf("%s of %v: %v", op.name, shape, err)
			}
			if !slices.Equal(l.Shape, shape) || !slices.Equal(r.shape, shape) {
				t.Fatalf("%s of %v built %v / %v", op.name, shape, l.Shape, r.shape)
			}
			ls = append(ls, l)
			refs = append(refs, r)
		}
		for k := 1; k <= len(ls); k++ {
			rows := layout.NewRowsOf(ls[:k]...)
			n := rows.Count()
			if n*rows.Len() != len(refs[0].pos) {
				t.Fatalf("%v: %d rows of %d", shape, n, rows.Len())
			}
			for a := 0; a <= n; a++ {
				for b := a; b <= n; b++ {
					for i := 0; i < k; i++ {
						got := walkRows(rows, i, 0, a)
						got = append(got, walkRows(rows, i, a, b)...)
						got = append(got, walkRows(rows, i, b, n)...)
						want := refs[i].pos
						if !slices.Equal(got, want) {
							t.Fatalf("%v, %d operands, split at %d, %d: operand %s walked %v, want %v",
								shape, k, a, b, rowsOperands[i].name, got, want)
						}
						// A sub-range gives exactly its share of the positions.
						l := rows.Len()
						if part := walkRows(rows, i, a, b); !slices.Equal(part, want[a*l:b*l]) {
							t.Fatalf("%v: rows [%d, %d) of %s = %v, want %v", shape, a, b, rowsOperands[i].name, part, want[a*l:b*l])
						}
						if part := walkBlocks(rows, i, a, b); !slices.Equal(part, want[a*l:b*l]) {
							t.Fatalf("%v: blocks of rows [%d, %d) of %s = %v, want %v", shape, a, b, rowsOperands[i].name, part, want[a*l:b*l])
						}
					}
				}
			}
		}
	}
}

// TestRowsBadRanges checks that ranges outside [0, Count()) are clipped, so
// a kernel never sees a position outside its operands.
func TestRowsBadRanges(t *testing.T) {
	l := must(contig(t, 3, 4).Narrow(1, 1, 2)) // 3 rows of 2
	rows := layout.NewRowsOf(l)
	want := []int{1, 2, 5, 6, 9, 10}
	for _, tc := range []struct {
		start, end int
		want       []int
	}{
		{-5, 100, want},
		{-1, 1, want[:2]},
		{2, 9, want[4:]},
		{3, 9, nil},
		{2, 1, nil},
		{-9, -1, nil},
	} {
		got := walkRows(rows, 0, tc.start, tc.end)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Each(%d, %d) walked %v, want %v", tc.start, tc.end, got, tc.want)
		}
	}
}

// TestRowsConcurrent walks disjoint ranges from several goroutines, as the
// CPU kernels do.
func TestRowsConcurrent(t *testing.T) {
	l := must(must(contig(t, 4, 6, 5).Transpose(0, 2)).Slice(1, -1, -7, -2)) // [5 3 4]
	r, _ := refTranspose(refBase(0, 4, 6, 5), 0, 2)
	r, _ = refSlice(r, 1, -1, -7, -2)
	rows := layout.NewRowsOf(l)
	parts := make([][]int, rows.Count())
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() { parts[i] = walkRows(rows, 0, i, i+1) })
	}
	wg.Wait()
	if got := slices.Concat(parts...); !slices.Equal(got, r.pos) {
		t.Errorf("concurrent walk %v, want %v", got, r.pos)
	}
}

func ExampleRows() {
	src, _ := layout.Contiguous(2, 3)
	tr, _ := src.Transpose(0, 1) // [3 2] with strides [1 3]
	dst, _ := layout.Contiguous(3, 2)
	rows := layout.NewRowsOf(dst, tr)
	fmt.Println(rows.Count(), "rows of", rows.Len())
	rows.Each(0, rows.Count(), func(offs []int, n int, inner []int) {
		for k := range n {
			fmt.Printf("dst[%d] = src[%d]\n", offs[0]+k*inner[0], offs[1]+k*inner[1])
		}
	})
	// Output:
	// 3 rows of 2
	// dst[0] = src[0]
	// dst[1] = src[3]
	// dst[2] = src[1]
	// dst[3] = src[4]
	// dst[4] = src[2]
	// dst[5] = src[5]
}

// TestLongRows checks that LongRows visits the same elements as the walk
// it is made from, each once, with the same positions in every operand,
// and that it makes rows longer where it should: a max-pool tile view
// against its broadcast maximum (rows of 2 become rows of 14), and not for
// rows of shortRow or more, rows no shorter than the axis above, or walks
// without outer axes.
func TestLongRows(t *testing.T) {
	tile := contig(t, 3, 4, 7, 2, 14, 2)                                   // [N, C, OH, KH, OW, KW]
	maxima := mk([]int{3, 4, 7, 2, 14, 2}, []int{392, 98, 14, 0, 1, 0}, 5) // [N, C, OH, 1, OW, 1], broadcast
	cases := []struct {
		name    string
		ls      []layout.Layout
		wantLen int
	}{
		{"pool tiles", []layout.Layout{tile, tile.Rebase(2000), maxima}, 14},
		{"rows of 8 stay", []layout.Layout{must(contig(t, 5, 40).Narrow(1, 0, 8))}, 8},
		{"longer rows than the axis above stay", []layout.Layout{must(contig(t, 3, 10).Narrow(1, 0, 4))}, 4},
		{"one row", []layout.Layout{contig(t, 5)}, 5},
		{"transposed short rows", []layout.Layout{must(contig(t, 12, 3).Transpose(0, 1))}, 12},
		{"empty", []layout.Layout{contig(t, 4, 0, 2)}, 0},
	}
	for _, tc := range cases {
		r := layout.NewRowsOf(tc.ls...)
		l := r.LongRows()
		if l.Len() != tc.wantLen {
			t.Errorf("%s: rows of %d, want %d", tc.name, l.Len(), tc.wantLen)
		}
		if l.Count()*l.Len() != r.Count()*r.Len() {
			t.Errorf("%s: %d elements, want %d", tc.name, l.Count()*l.Len(), r.Count()*r.Len())
		}
		visit := func(w layout.Rows) []string {
			var got []string
			w.Each(0, w.Count(), func(offs []int, n int, inner []int) {
				for e := range n {
					p := make([]int, len(offs))
					for i := range offs {
						p[i] = offs[i] + e*inner[i]
					}
					got = append(got, fmt.Sprint(p))
				}
			})
			slices.Sort(got)
			return got
		}
		if a, b := visit(r), visit(l); !slices.Equal(a, b) {
			t.Errorf("%s: LongRows visits %d positions, the walk %d, and they differ", tc.name, len(b), len(a))
		}
	}
}

// TestMerged checks Layout.Merged's axes: extent-1 axes dropped,
// contiguous ones merged (a narrowed inner axis and a broadcast one stop
// the merge), an empty view's extent-0 axis kept, a scalar left without
// axes, and the offset kept.
func TestMerged(t *testing.T) {
	cases := []struct {
		l              layout.Layout
		shape, strides []int
	}{
		{contig(t, 2, 3, 4), []int{24}, []int{1}},
		{mk([]int{2, 1, 3, 2}, []int{6, 9, 2, 1}, 5), []int{12}, []int{1}},
		{must(contig(t, 3, 5).Narrow(1, 1, 2)), []int{3, 2}, []int{5, 1}},
		{mk([]int{3, 4, 2}, []int{4, 1, 0}, 0), []int{12, 2}, []int{1, 0}},
		{contig(t, 2, 0, 3), []int{2, 0, 3}, []int{3, 3, 1}},
		{contig(t), nil, nil},
	}
	for _, c := range cases {
		m := c.l.Merged(nil, nil)
		if !slices.Equal(m.Shape, c.shape) || !slices.Equal(m.Strides, c.strides) || m.Offset != c.l.Offset {
			t.Errorf("%v: merged to %v, want shape %v strides %v", c.l, m, c.shape, c.strides)
		}
	}
}
