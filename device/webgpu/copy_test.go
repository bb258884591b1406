//go:build cgo

package webgpu

import (
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// castRef converts v (a value of dtype from) to dtype to, as Copy must:
// floats truncate toward zero and saturate (NaN is 0), integers wrap, any
// nonzero is true.
func castRef(from, to dtype.DType, v float64) float64 {
	switch to {
	case dtype.F32:
		return float64(float32(v))
	case dtype.F16:
		return float64(dtype.F16FromFloat64(float64(float32(v))).Float32())
	case dtype.Bool:
		if v != 0 || math.IsNaN(v) {
			return 1
		}
		return 0
	}
	if from.IsFloat() {
		if math.IsNaN(v) {
			return 0
		}
		v = math.Trunc(v)
		lo, hi := map[dtype.DType][2]float64{
			dtype.I32: {math.MinInt32, math.MaxInt32},
			dtype.I64: {math.MinInt64, math.MaxInt64},
			dtype.U8:  {0, 255},
		}[to][0], map[dtype.DType][2]float64{
			dtype.I32: {math.MinInt32, math.MaxInt32},
			dtype.I64: {math.MinInt64, math.MaxInt64},
			dtype.U8:  {0, 255},
		}[to][1]
		return math.Min(math.Max(v, lo), hi)
	}
	i := int64(v)
	switch to {
	case dtype.I32:
		return float64(int32(i))
	case dtype.U8:
		return float64(uint8(i))
	}
	return float64(i)
}

var castInputs = map[dtype.DType][]float64{
	dtype.F32: {0, math.Copysign(0, -1), 1.5, -1.5, 2.5, -2.7, 255.9, 256, -1, 1e10, -1e10, 3e9, -3e9, 1e19, -1e19,
		math.NaN(), math.Inf(1), math.Inf(-1), 65504, 65520, 65519, 1e-3, 70000, 0.1, 5.960464477539063e-08, 3e-8},
	dtype.F16:  {0, 1.5, -2.5, 65504, -65504, math.Inf(1), math.Inf(-1), math.NaN(), 5.960464477539063e-08, 300, -300, 0.333251953125},
	dtype.I32:  {0, 1, -1, 255, 256, -129, math.MaxInt32, math.MinInt32, 16777217, 300, 65519, 65520},
	dtype.I64:  {0, 1, -1, 5e9, -5e9, 255, 1 << 40, -(1 << 40), math.MaxInt32 + 1, math.MinInt32 - 1},
	dtype.U8:   {0, 1, 127, 200, 255},
	dtype.Bool: {0, 1, 1, 0},
}

func TestCopyCast(t *testing.T) {
	g := dev(t)
	all := []dtype.DType{dtype.F32, dtype.F16, dtype.I32, dtype.I64, dtype.U8, dtype.Bool}
	for _, from := range all {
		for _, to := range all {
			in := castInputs[from]
			src := upload(t, g, from, in)
			dst := alloc(t, g, to, len(in))
			if err := g.Copy(op(dst, contig(len(in))), op(src, contig(len(in)))); err != nil {
				t.Fatalf("Copy %s->%s: %v", from, to, err)
			}
			got := download(t, g, dst)
			want := make([]float64, len(in))
			for i, v := range decode(from, encode(from, in)) {
				want[i] = castRef(from, to, v)
			}
			rel := 0.0
			if from == dtype.I64 && to.IsFloat() {
				rel = 1.2e-7 // I64 beyond 32 bits converts within one ulp
			}
			checkClose(t, from.String()+"->"+to.String(), got, want, rel, 0)
		}
	}
}

func TestCopySubnormalBits(t *testing.T) {
	g := dev(t)
	// Same-dtype copies move bits: a subnormal and a NaN payload survive.
	bits := []uint32{0x00000001, 0x7fc12345, 0x80000000, 0x3f800000}
	raw := make([]byte, 16)
	for i, b := range bits {
		raw[4*i], raw[4*i+1], raw[4*i+2], raw[4*i+3] = byte(b), byte(b>>8), byte(b>>16), byte(b>>24)
	}
	src := alloc(t, g, dtype.F32, 4)
	if err := g.Upload(src, 0, raw); err != nil {
		t.Fatal(err)
	}
	dst := alloc(t, g, dtype.F32, 4)
	if err := g.Copy(op(dst, contig(4)), op(src, contig(4))); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 16)
	if err := g.Download(out, dst, 0); err != nil {
		t.Fatal(err)
	}
	if string(out) != string(raw) {
		t.Errorf("bits changed: %x -> %x", raw, out)
	}
}

// viewCase is a source view over a buffer of n elements.
type viewCase struct {
	name string
	n    int
	l    layout.Layout
}

func views() []viewCase {
	c35 := contig(3, 5)
	tr, _ := contig(5, 3).Transpose(0, 1)
	rev, _ := contig(3, 5).Slice(1, -1, -6, -1)
	rev2, _ := contig(4, 6).Slice(0, -1, -5, -2)
	bc, _ := contig(3, 1).BroadcastTo(3, 5)
	bc2, _ := contig(5).BroadcastTo(2, 3, 5)
	nar, _ := contig(4, 7).Narrow(1, 2, 5)
	nar, _ = nar.Narrow(0, 1, 3)
	perm, _ := contig(2, 3, 2, 3, 2, 2, 3).Permute(6, 0, 5, 1, 4, 2, 3)
	return []viewCase{
		{"contiguous", 15, c35},
		{"offset", 20, layout.Layout{Shape: []int{3, 5}, Strides: []int{5, 1}, Offset: 4}},
		{"transposed", 15, tr},
		{"reversed", 15, rev},
		{"reversed-step", 24, rev2},
		{"broadcast", 3, bc},
		{"broadcast-lead", 5, bc2},
		{"narrowed", 28, nar},
		{"rank7-permuted", 432, perm},
		{"scalar", 3, layout.Layout{Shape: []int{}, Strides: []int{}, Offset: 2}},
		{"size1-axes", 6, layout.Layout{Shape: []int{1, 3, 1, 2}, Strides: []int{99, 2, -7, 1}, Offset: 0}},
		{"empty", 4, layout.Layout{Shape: []int{3, 0, 2}, Strides: []int{2, 1, 1}, Offset: 0}},
	}
}

func TestCopyViews(t *testing.T) {
	g := dev(t)
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16, dtype.U8} {
		for _, vc := range views() {
			vals := make([]float64, vc.n)
			for i := range vals {
				vals[i] = float64(i%200 + 1)
			}
			src := upload(t, g, dt, vals)
			n := vc.l.Numel()
			dst := alloc(t, g, dtype.F32, n)
			dl := contig(vc.l.Shape...)
			if err := g.Copy(op(dst, dl), op(src, vc.l)); err != nil {
				t.Fatalf("%s %s: %v", dt, vc.name, err)
			}
			checkClose(t, dt.String()+" "+vc.name, download(t, g, dst), gather(vals, vc.l), 0, 0)
		}
	}
}

func TestCopyIntoView(t *testing.T) {
	g := dev(t)
	// Concat builds its result by copying each part into a strided view of a
	// fresh buffer: here [4,3] and [4,2] into a [4,5] buffer.
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16, dtype.Bool} {
		out := alloc(t, g, dt, 20)
		a := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
		b := []float64{13, 14, 15, 16, 17, 18, 19, 20}
		if dt == dtype.Bool {
			for i := range a {
				a[i] = float64(i % 2)
			}
			for i := range b {
				b[i] = float64((i + 1) % 2)
			}
		}
		la := layout.Layout{Shape: []int{4, 3}, Strides: []int{5, 1}, Offset: 0}
		lb := layout.Layout{Shape: []int{4, 2}, Strides: []int{5, 1}, Offset: 3}
		if err := g.Copy(op(out, la), op(upload(t, g, dt, a), contig(4, 3))); err != nil {
			t.Fatal(err)
		}
		if err := g.Copy(op(out, lb), op(upload(t, g, dt, b), contig(4, 2))); err != nil {
			t.Fatal(err)
		}
		want := make([]float64, 20)
		for i := 0; i < 4; i++ {
			copy(want[5*i:], a[3*i:3*i+3])
			copy(want[5*i+3:], b[2*i:2*i+2])
		}
		checkClose(t, "concat "+dt.String(), download(t, g, out), want, 0, 0)
	}
}

func TestCopyErrors(t *testing.T) {
	g := dev(t)
	a := alloc(t, g, dtype.F32, 6)
	b := alloc(t, g, dtype.F32, 6)
	wantKind(t, "shape mismatch", g.Copy(op(a, contig(2, 3)), op(b, contig(3, 2))), errs.ErrShape)
	wantKind(t, "alias", g.Copy(op(a, contig(3)), op(a, layout.Layout{Shape: []int{3}, Strides: []int{1}, Offset: 3})), errs.ErrValue)
	wantKind(t, "out of range", g.Copy(op(a, contig(6)), op(b, layout.Layout{Shape: []int{6}, Strides: []int{2}})), errs.ErrShape)
	wantKind(t, "negative out of range", g.Copy(op(a, contig(2)), op(b, layout.Layout{Shape: []int{2}, Strides: []int{-1}})), errs.ErrShape)
	wantKind(t, "overflowing strides", g.Copy(op(a, contig(2)), op(b, layout.Layout{Shape: []int{2}, Strides: []int{math.MaxInt64}})), errs.ErrShape)
	wantKind(t, "negative extent", g.Copy(op(a, layout.Layout{Shape: []int{-1}, Strides: []int{1}}), op(b, contig(1))), errs.ErrShape)
	big := alloc(t, g, dtype.F32, 1<<9)
	nine := make([]int, 9)
	for i := range nine {
		nine[i] = 2
	}
	l9 := contig(nine...)
	p9, _ := l9.Permute(8, 7, 6, 5, 4, 3, 2, 1, 0)
	big2 := alloc(t, g, dtype.F32, 1<<9)
	// Rank 9 that does not merge runs too (issue 7, item 10).
	if err := g.Copy(op(big2, l9), op(big, p9)); err != nil {
		t.Errorf("rank 9: %v", err)
	}
	// Rank 9 that merges to rank 1 is fine.
	if err := g.Copy(op(big2, l9), op(big, l9)); err != nil {
		t.Errorf("mergeable rank 9: %v", err)
	}
}
