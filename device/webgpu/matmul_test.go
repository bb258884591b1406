//go:build cgo

package webgpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// matmulRef computes dst = a x b over views in float64 and, per output, the
// sum of |a_ip * b_pj| that bounds the rounding error.
func matmulRef(av []float64, al layout.Layout, bv []float64, bl layout.Layout) (out, mag []float64) {
	r := len(al.Shape)
	m, k, n := al.Shape[r-2], al.Shape[r-1], bl.Shape[r-1]
	batchShape := al.Shape[:r-2]
	each(batchShape, func(bi []int) {
		idx := func(i, j int) []int { return append(append([]int(nil), bi...), i, j) }
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				s, a := 0.0, 0.0
				for p := 0; p < k; p++ {
					x := av[al.OffsetOf(idx(i, p))] * bv[bl.OffsetOf(idx(p, j))]
					s += x
					a += math.Abs(x)
				}
				out = append(out, s)
				mag = append(mag, a)
			}
		}
	})
	return out, mag
}

// mmView builds an operand layout of logical shape (batch..., rows, cols)
// in one of several storage arrangements, and the storage length it needs.
func mmView(kind string, batch []int, rows, cols int) (layout.Layout, int) {
	full := append(append([]int(nil), batch...), rows, cols)
	r := len(full)
	switch kind {
	case "trans": // a transposed view of (batch..., cols, rows)
		st := append(append([]int(nil), batch...), cols, rows)
		l := contig(st...)
		t, _ := l.Transpose(r-2, r-1)
		return t, l.Numel()
	case "narrow": // rows of a wider matrix, starting at column 3
		st := append(append([]int(nil), batch...), rows, cols+5)
		l := contig(st...)
		nl, _ := l.Narrow(r-1, 3, cols)
		return nl, l.Numel()
	case "transnarrow":
		st := append(append([]int(nil), batch...), cols, rows+3)
		l := contig(st...)
		nl, _ := l.Narrow(r-1, 1, rows)
		t, _ := nl.Transpose(r-2, r-1)
		return t, l.Numel()
	case "reversed": // general: a negative row stride
		l := contig(full...)
		rv, _ := l.Slice(r-2, -1, -rows-1, -1)
		return rv, l.Numel()
	case "bcast": // batch broadcast from one matrix
		one := contig(rows, cols)
		b, _ := one.BroadcastTo(full...)
		return b, one.Numel()
	}
	l := contig(full...)
	return l, l.Numel()
}

func TestMatmul(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(13, 14))
	type tc struct {
		m, k, n int
		batch   []int
		ak, bk  string
	}
	var cases []tc
	for _, m := range []int{1, 3, 17, 33, 65} {
		for _, k := range []int{1, 3, 17, 33} {
			for _, n := range []int{1, 5, 17, 65} {
				cases = append(cases, tc{m, k, n, nil, "rows", "rows"})
			}
		}
	}
	for _, ak := range []string{"rows", "trans", "narrow", "transnarrow", "reversed"} {
		for _, bk := range []string{"rows", "trans", "narrow", "transnarrow", "reversed"} {
			cases = append(cases, tc{19, 13, 22, nil, ak, bk}, tc{32, 16, 36, nil, ak, bk})
		}
	}
	cases = append(cases,
		tc{64, 64, 64, nil, "rows", "rows"},
		tc{100, 37, 81, nil, "trans", "rows"},
		tc{9, 7, 11, []int{2, 3}, "rows", "rows"},
		tc{9, 7, 11, []int{2, 3}, "trans", "narrow"},
		tc{9, 7, 11, []int{4}, "bcast", "rows"},
		tc{9, 7, 11, []int{2, 2}, "rows", "bcast"},
		tc{8, 8, 8, []int{3}, "reversed", "trans"},
	)
	for _, variant := range []string{"regblock", "shared", "naive"} {
		for _, c := range cases {
			al, an := mmView(c.ak, c.batch, c.m, c.k)
			bl, bn := mmView(c.bk, c.batch, c.k, c.n)
			av := randVals(r, dtype.F32, an, -1, 1)
			bv := randVals(r, dtype.F32, bn, -1, 1)
			a := upload(t, g, dtype.F32, av)
			b := upload(t, g, dtype.F32, bv)
			dshape := append(append([]int(nil), c.batch...), c.m, c.n)
			dl := contig(dshape...)
			dst := alloc(t, g, dtype.F32, dl.Numel())
			name := fmt.Sprintf("%s %dx%dx%d batch %v %s/%s", variant, c.m, c.k, c.n, c.batch, c.ak, c.bk)
			if err := g.MatmulWith("Matmul", op2(dst, dl), op2(a, al), op2(b, bl), variant); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want, mag := matmulRef(av, al, bv, bl)
			got := download(t, g, dst)
			for i := range want {
				// f32 accumulation: |error| <= 1e-6 * sum |a_ip b_pj| (k <= 100).
				if math.Abs(got[i]-want[i]) > 1e-6*mag[i]+1e-7 {
					t.Fatalf("%s: [%d] = %v, want %v", name, i, got[i], want[i])
				}
			}
		}
	}
}

func TestMatmulF16AndDstView(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(15, 16))
	for _, variant := range []string{"regblock", "shared", "naive"} {
		al, an := mmView("trans", []int{2}, 13, 21)
		bl, bn := mmView("rows", []int{2}, 21, 7)
		av := randVals(r, dtype.F16, an, -1, 1)
		bv := randVals(r, dtype.F16, bn, -1, 1)
		a := upload(t, g, dtype.F16, av)
		b := upload(t, g, dtype.F16, bv)
		// A transposed destination view goes through a temporary.
		dl0 := contig(2, 7, 13)
		dl, _ := dl0.Transpose(1, 2)
		dst := alloc(t, g, dtype.F16, dl.Numel())
		if err := g.MatmulWith("Matmul", op2(dst, dl), op2(a, al), op2(b, bl), variant); err != nil {
			t.Fatalf("%s: %v", variant, err)
		}
		want, mag := matmulRef(av, al, bv, bl)
		got := gather(download(t, g, dst), dl)
		for i := range want {
			// f16 output: one rounding of an f32 accumulation.
			if math.Abs(got[i]-want[i]) > 1e-3*math.Abs(want[i])+1e-5*mag[i]+1e-4 {
				t.Fatalf("f16 %s: [%d] = %v, want %v", variant, i, got[i], want[i])
			}
		}
	}
}

func TestMatmulZeroCopy(t *testing.T) {
	g := dev(t)
	for _, kinds := range [][2]string{{"trans", "rows"}, {"narrow", "trans"}, {"transnarrow", "narrow"}, {"bcast", "rows"}} {
		al, an := mmView(kinds[0], []int{3}, 10, 12)
		bl, bn := mmView(kinds[1], []int{3}, 12, 9)
		a := alloc(t, g, dtype.F32, an)
		b := alloc(t, g, dtype.F32, bn)
		dst := alloc(t, g, dtype.F32, 3*10*9)
		before := g.stats.tempAllocs.Load()
		if err := g.Matmul(op2(dst, contig(3, 10, 9)), op2(a, al), op2(b, bl)); err != nil {
			t.Fatal(err)
		}
		if d := g.stats.tempAllocs.Load() - before; d != 0 {
			t.Errorf("%v: matmul allocated %d temporaries, want 0", kinds, d)
		}
	}
	// A general operand is copied once, on the GPU.
	al, an := mmView("reversed", nil, 10, 12)
	a := alloc(t, g, dtype.F32, an)
	b := alloc(t, g, dtype.F32, 12*9)
	dst := alloc(t, g, dtype.F32, 90)
	before := g.stats.tempAllocs.Load()
	if err := g.Matmul(op2(dst, contig(10, 9)), op2(a, al), op2(b, contig(12, 9))); err != nil {
		t.Fatal(err)
	}
	if d := g.stats.tempAllocs.Load() - before; d != 1 {
		t.Errorf("general operand: %d temporaries, want 1", d)
	}
}

func TestMatmulErrors(t *testing.T) {
	g := dev(t)
	a := alloc(t, g, dtype.F32, 12)
	b := alloc(t, g, dtype.F32, 12)
	d := alloc(t, g, dtype.F32, 16)
	wantKind(t, "inner mismatch", g.Matmul(op2(d, contig(3, 3)), op2(a, contig(3, 4)), op2(b, contig(3, 4))), errs.ErrShape)
	wantKind(t, "rank 1", g.Matmul(op2(d, contig(1)), op2(a, contig(4)), op2(b, contig(4))), errs.ErrShape)
	wantKind(t, "batch mismatch", g.Matmul(op2(d, contig(2, 2, 2)), op2(a, contig(2, 2, 3)), op2(b, contig(3, 3, 2))), errs.ErrShape)
	ai := alloc(t, g, dtype.I32, 12)
	bi := alloc(t, g, dtype.I32, 12)
	di := alloc(t, g, dtype.I32, 9)
	wantKind(t, "i32", g.Matmul(op2(di, contig(3, 3)), op2(ai, contig(3, 4)), op2(bi, contig(4, 3))), errs.ErrUnsupported)
	wantKind(t, "dtype mix", g.Matmul(op2(d, contig(3, 3)), op2(a, contig(3, 4)), op2(bi, contig(4, 3))), errs.ErrDType)
	// k == 0 writes zeros; empty outputs do nothing.
	z := alloc(t, g, dtype.F32, 6)
	if err := g.Matmul(op2(z, contig(2, 3)), op2(a, contig(2, 0)), op2(b, contig(0, 3))); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "k=0", download(t, g, z), make([]float64, 6), 0, 0)
	if err := g.Matmul(op2(z, contig(0, 3)), op2(a, contig(0, 4)), op2(b, contig(4, 3))); err != nil {
		t.Errorf("m=0: %v", err)
	}
}

// TestMatmulLongK checks every kernel variant with inner dimensions above
// gpucore.MatmulChunk, which are split into chunks accumulated in C: past the naive
// kernel's old loop limit (65,535) and the 4x4 kernel's (262,140), with
// transposed, narrowed, general and batched operands, vec4-aligned ones,
// views as destination, and f16 (accumulated in f32, rounded once). Values
// are small integers, so f32 sums are exact in any order and must equal the
// float64 reference exactly.
func TestMatmulLongK(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(17, 18))
	ints := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(r.IntN(7) - 3)
		}
		return v
	}
	type tc struct {
		m, k, n int
		batch   []int
		ak, bk  string
		dt      dtype.DType
		dstT    bool // a transposed destination view
	}
	cases := []tc{
		{5, gpucore.MatmulChunk + 1, 6, nil, "rows", "rows", dtype.F32, false},
		{8, 70004, 8, nil, "rows", "rows", dtype.F32, false}, // vec4 loads and stores
		{4, 262147, 4, nil, "rows", "rows", dtype.F32, false},
		{3, 70001, 5, nil, "trans", "transnarrow", dtype.F32, false},
		{3, 40001, 5, nil, "narrow", "reversed", dtype.F32, true},
		{3, 40001, 4, []int{2}, "trans", "rows", dtype.F32, false},
		{2, 40001, 3, []int{3}, "bcast", "trans", dtype.F32, false},
		{3, 70001, 5, nil, "rows", "trans", dtype.F16, false},
		{3, 40001, 5, []int{2}, "trans", "rows", dtype.F16, true},
	}
	for _, c := range cases {
		al, an := mmView(c.ak, c.batch, c.m, c.k)
		bl, bn := mmView(c.bk, c.batch, c.k, c.n)
		av, bv := ints(an), ints(bn)
		a := upload(t, g, c.dt, av)
		b := upload(t, g, c.dt, bv)
		want, _ := matmulRef(av, al, bv, bl)
		if c.dt == dtype.F16 {
			for i, w := range want {
				want[i] = float64(dtype.F16FromFloat64(w).Float32())
			}
		}
		dshape := append(append([]int(nil), c.batch...), c.m, c.n)
		dl := contig(dshape...)
		if c.dstT {
			tshape := append(append([]int(nil), c.batch...), c.n, c.m)
			r := len(tshape)
			dl, _ = contig(tshape...).Transpose(r-2, r-1)
		}
		for _, variant := range []string{"regblock", "shared", "naive"} {
			dst := alloc(t, g, c.dt, dl.Numel())
			name := fmt.Sprintf("%s %s %dx%dx%d batch %v %s/%s dstT=%v", variant, c.dt, c.m, c.k, c.n, c.batch, c.ak, c.bk, c.dstT)
			if err := g.MatmulWith("Matmul", op2(dst, dl), op2(a, al), op2(b, bl), variant); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got := gather(download(t, g, dst), dl)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s: [%d] = %v, want %v", name, i, got[i], want[i])
				}
			}
		}
	}
}

// TestMatmulChunkDispatches checks that k up to gpucore.MatmulChunk takes one dispatch,
// as before chunking, and a longer k one per chunk.
func TestMatmulChunkDispatches(t *testing.T) {
	g := dev(t)
	for _, c := range []struct{ k, want int }{{gpucore.MatmulChunk - 1, 1}, {gpucore.MatmulChunk, 1}, {gpucore.MatmulChunk + 1, 2}, {3*gpucore.MatmulChunk + 5, 4}} {
		a := alloc(t, g, dtype.F32, 2*c.k)
		b := alloc(t, g, dtype.F32, c.k*3)
		d := alloc(t, g, dtype.F32, 6)
		before := g.stats.dispatches.Load()
		if err := g.Matmul(op2(d, contig(2, 3)), op2(a, contig(2, c.k)), op2(b, contig(c.k, 3))); err != nil {
			t.Fatal(err)
		}
		if got := int(g.stats.dispatches.Load() - before); got != c.want {
			t.Errorf("k = %d: %d dispatches, want %d", c.k, got, c.want)
		}
	}
}
