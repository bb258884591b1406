package gpucore

import (
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// fakeBuf is a device buffer for planning without a device.
type fakeBuf struct {
	dt   dtype.DType
	n    int
	size uint64
}

func (b *fakeBuf) DType() dtype.DType { return b.dt }
func (b *fakeBuf) Len() int           { return b.n }
func (b *fakeBuf) Bytes() uint64      { return b.size }

var bigLimits = Limits{MaxBinding: 128 << 20, MaxBuffer: 1 << 30, MaxWG: 65535, StorageAlign: 256}

func planner(l Limits) *Planner { return NewPlanner("test", "Test", l, "regblock") }

func buffer(p *Planner, dt dtype.DType, n int) *fakeBuf {
	return &fakeBuf{dt: dt, n: n, size: p.Lim.AllocBytes(dt, n)}
}

func operand(t *testing.T, p *Planner, b *fakeBuf, l layout.Layout) Operand {
	t.Helper()
	o, err := p.NewOperand("test", "x", b, l)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func contig(shape ...int) layout.Layout {
	l, _ := layout.Contiguous(shape...)
	return l
}

// TestBindingLimitSplits: a copy whose buffers exceed the binding limit
// becomes several dispatches, each binding a window within the limit, and
// together covering every element once.
func TestBindingLimitSplits(t *testing.T) {
	l := bigLimits
	l.MaxBinding = 1 << 20
	p := planner(l)
	const n = 1 << 20 // 4 MiB of f32
	d, s := buffer(p, dtype.F32, n), buffer(p, dtype.F32, n)
	pl, err := p.Copy("Copy", operand(t, p, d, contig(n)), operand(t, p, s, contig(n)))
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Steps) < 4 {
		t.Fatalf("%d dispatches for 4 MiB under a 1 MiB binding limit", len(pl.Steps))
	}
	total := 0
	for _, st := range pl.Steps {
		for _, b := range st.Binds {
			if b.Size > l.MaxBinding || b.Off%l.StorageAlign != 0 {
				t.Errorf("binding window [%d, +%d) breaks the limits", b.Off, b.Size)
			}
		}
		if !st.Binds[0].Write || st.Binds[1].Write {
			t.Errorf("binding access: %+v", st.Binds)
		}
		prm := st.Params.(EWParams)
		total += int(prm.N)
		if int(prm.Off[0])*4+int(prm.N)*4 > int(st.Binds[0].Size) {
			t.Errorf("dispatch reaches past its window")
		}
	}
	if total != n {
		t.Errorf("dispatches cover %d elements, want %d", total, n)
	}
}

// TestGridFolds: more workgroups than one dimension allows fold into 2-D
// and 3-D grids that cover them.
func TestGridFolds(t *testing.T) {
	for _, c := range []struct {
		max    uint32
		groups uint64
		want   [3]uint32
	}{
		{65535, 10, [3]uint32{10, 1, 1}},
		{65535, 65536, [3]uint32{65535, 2, 1}},
		{65535, 200000, [3]uint32{65535, 4, 1}},
		{16, 1000, [3]uint32{16, 16, 4}},
		{65535, 0, [3]uint32{0, 1, 1}},
	} {
		g := Limits{MaxWG: c.max}.Grid(c.groups)
		if g != c.want {
			t.Errorf("Grid(%d) with %d per dimension = %v, want %v", c.groups, c.max, g, c.want)
		}
		if uint64(g[0])*uint64(g[1])*uint64(g[2]) < c.groups {
			t.Errorf("grid %v does not cover %d", g, c.groups)
		}
	}
}

// TestHighRankSplits: a view keeping 9 axes after merging runs as several
// dispatches, each with at most 8 axes in its walk.
func TestHighRankSplits(t *testing.T) {
	p := planner(bigLimits)
	shape := []int{2, 3, 2, 3, 2, 3, 2, 3, 2}
	wide := make([]int, len(shape))
	for i := range wide {
		wide[i] = 4
	}
	n := prodInts(shape)
	src := buffer(p, dtype.F32, prodInts(wide))
	big, _ := contig(wide...).Slice(0, 0, 2, 1)
	for ax, d := range shape {
		big, _ = big.Slice(ax, 0, d, 1)
	}
	d := buffer(p, dtype.F32, n)
	pl, err := p.Unary("Unary", device.Neg, operand(t, p, d, contig(shape...)), operand(t, p, src, big))
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Steps) != 2 {
		t.Errorf("%d dispatches, want 2 (the smallest axis walked by the host)", len(pl.Steps))
	}
	total := 0
	for _, st := range pl.Steps {
		prm := st.Params.(EWParams)
		if prm.W.Rank > maxRank {
			t.Errorf("walk of rank %d", prm.W.Rank)
		}
		total += int(prm.N)
	}
	if total != n {
		t.Errorf("dispatches cover %d elements, want %d", total, n)
	}
}

// TestMatmulLongKChunks: k up to MatmulChunk is one dispatch; longer k is
// split into chunks whose later dispatches accumulate.
func TestMatmulLongKChunks(t *testing.T) {
	p := planner(bigLimits)
	for _, c := range []struct {
		k, want int
	}{{MatmulChunk, 1}, {MatmulChunk + 1, 2}, {3*MatmulChunk + 5, 4}} {
		a, b, d := buffer(p, dtype.F32, 4*c.k), buffer(p, dtype.F32, c.k*4), buffer(p, dtype.F32, 16)
		pl, err := p.Matmul("Matmul", operand(t, p, d, contig(4, 4)), operand(t, p, a, contig(4, c.k)), operand(t, p, b, contig(c.k, 4)), "")
		if err != nil {
			t.Fatal(err)
		}
		if len(pl.Steps) != c.want || len(pl.Scratch) != 0 {
			t.Errorf("k = %d: %d dispatches, %d scratch; want %d, 0", c.k, len(pl.Steps), len(pl.Scratch), c.want)
		}
		sum := 0
		for i, st := range pl.Steps {
			prm := st.Params.(MatmulParams)
			if prm.K > MatmulChunk {
				t.Errorf("k = %d: a dispatch loops over %d", c.k, prm.K)
			}
			sum += int(prm.K)
			if acc := st.Kernel.Vars["ACCUM"] == "1"; acc != (i > 0) {
				t.Errorf("k = %d: dispatch %d ACCUM = %v", c.k, i, acc)
			}
		}
		if sum != c.k {
			t.Errorf("chunks cover k = %d, want %d", sum, c.k)
		}
	}
	// An f16 product with a long k accumulates in an f32 scratch and is
	// rounded once by a final copy.
	k := MatmulChunk + 1
	a, b, d := buffer(p, dtype.F16, 4*k), buffer(p, dtype.F16, k*4), buffer(p, dtype.F16, 16)
	pl, err := p.Matmul("Matmul", operand(t, p, d, contig(4, 4)), operand(t, p, a, contig(4, k)), operand(t, p, b, contig(k, 4)), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Scratch) != 1 || pl.Scratch[0].DT != dtype.F32 || pl.Steps[len(pl.Steps)-1].Kernel.Template != "copy.wgsl" {
		t.Errorf("f16 long k: scratch %v, last kernel %s", pl.Scratch, pl.Steps[len(pl.Steps)-1].Kernel.Template)
	}
}

// TestSoftmaxLongRowPlan: a row longer than SoftmaxRowMax takes the
// stats, combine and emit passes over a pair scratch.
func TestSoftmaxLongRowPlan(t *testing.T) {
	p := planner(bigLimits)
	const n = 1 << 20
	d, s := buffer(p, dtype.F32, n), buffer(p, dtype.F32, n)
	pl, err := p.Softmax("Softmax", operand(t, p, d, contig(1, n)), operand(t, p, s, contig(1, n)), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	var passes []string
	for _, st := range pl.Steps {
		for _, sw := range []string{"STATS", "COMBINE", "EMIT"} {
			if st.Kernel.Vars[sw] == "1" && (len(passes) == 0 || passes[len(passes)-1] != sw) {
				passes = append(passes, sw)
			}
		}
	}
	if !slices.Equal(passes, []string{"STATS", "EMIT"}) && !slices.Equal(passes, []string{"STATS", "COMBINE", "EMIT"}) {
		t.Errorf("passes %v", passes)
	}
	if len(pl.Scratch) == 0 {
		t.Errorf("no pair scratch")
	}
	short, err := p.Softmax("Softmax", operand(t, p, d, contig(1024, 1024)), operand(t, p, s, contig(1024, 1024)), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(short.Steps) != 1 || len(short.Scratch) != 0 {
		t.Errorf("short rows: %d dispatches, %d scratch", len(short.Steps), len(short.Scratch))
	}
}

// TestReducePlanBounds: no invocation of a reduction loops over more than
// 2048 elements (512 when it walks several axes), and long reductions use
// a partial pass into scratch.
func TestReducePlanBounds(t *testing.T) {
	for _, outs := range []int64{1, 3, 255, 256, 1024, 1 << 20} {
		for _, n := range []int64{1, 33, 512, 4097, 1 << 20, 1 << 25, 1 << 31} {
			for _, rr := range []int{1, 3} {
				serial, P := planReduce(outs, n, rr)
				per := (n + P - 1) / P
				if !serial {
					per = (per + redWG - 1) / redWG
				}
				if per > 2048 || (rr > 1 && per > 512) {
					t.Errorf("planReduce(%d, %d, %d): %d iterations per invocation", outs, n, rr, per)
				}
			}
		}
	}
	p := planner(bigLimits)
	const n = 1 << 22
	s, d := buffer(p, dtype.F32, n), buffer(p, dtype.F32, 1)
	pl, err := p.Reduce("Reduce", device.Sum, operand(t, p, d, contig()), operand(t, p, s, contig(n)), []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Scratch) != 1 || len(pl.Steps) != 2 || pl.Steps[0].Kernel.Vars["DST_PARTIAL"] != "1" || pl.Steps[1].Kernel.Vars["SRC_PARTIAL"] != "1" {
		t.Errorf("sum of %d: %d scratch, %d dispatches", n, len(pl.Scratch), len(pl.Steps))
	}
	// An empty Sum fills the identity.
	e := buffer(p, dtype.F32, 0)
	pl, err = p.Reduce("Reduce", device.Sum, operand(t, p, d, contig()), operand(t, p, e, contig(0)), []int{0})
	if err != nil || len(pl.Steps) != 1 || pl.Steps[0].Kernel.Template != "fill.wgsl" {
		t.Errorf("empty sum: %v", err)
	}
}

// TestPlannerErrors: validation happens in the planner.
func TestPlannerErrors(t *testing.T) {
	p := planner(bigLimits)
	a, b := buffer(p, dtype.F32, 6), buffer(p, dtype.I32, 6)
	if _, err := p.NewOperand("Copy", "src", a, contig(7)); err == nil {
		t.Errorf("view outside its buffer accepted")
	}
	if _, err := p.Binary("Binary", device.Add, operand(t, p, a, contig(6)), operand(t, p, a, contig(6)), operand(t, p, b, contig(6))); err == nil {
		t.Errorf("mixed dtypes accepted")
	}
	if _, err := p.Unary("Unary", device.Neg, operand(t, p, a, contig(6)), operand(t, p, a, contig(6))); err == nil {
		t.Errorf("aliased destination accepted")
	}
	if _, err := p.Copy("Copy", operand(t, p, a, contig(2, 3)), operand(t, p, b, contig(3, 2))); err == nil {
		t.Errorf("shape mismatch accepted")
	}
}

// TestPoolPolicy: the pool keeps buffers by size class within its bound.
func TestPoolPolicy(t *testing.T) {
	if SizeClass(1000) != 1024 || SizeClass(1100) != 1280 || SizeClass(10) != 256 {
		t.Errorf("size classes %d %d %d", SizeClass(1000), SizeClass(1100), SizeClass(10))
	}
	p := NewPool[int](2048)
	if !p.Put(1, 1024) || !p.Put(2, 1024) || p.Put(3, 256) {
		t.Errorf("bound not kept")
	}
	if v, ok := p.Get(1024); !ok || v != 2 || p.Bytes() != 1024 {
		t.Errorf("Get = %d, %v; %d bytes kept", v, ok, p.Bytes())
	}
	if _, ok := p.Get(256); ok {
		t.Errorf("got a buffer of a class never put")
	}
	n := 0
	p.Drain(func(int, uint64) { n++ })
	if n != 1 || p.Bytes() != 0 {
		t.Errorf("drained %d", n)
	}
	if NewPool[int](-1).Put(1, 256) {
		t.Errorf("disabled pool kept a buffer")
	}
}

// TestPieceElemsNeverZero checks that a small binding limit still gives
// transfers a positive piece (a zero piece made a U8 download loop
// forever), and that large limits keep pieces in whole 1,024s that fit.
func TestPieceElemsNeverZero(t *testing.T) {
	for _, maxBinding := range []uint64{1, 64, 300, 4096, 65536, 1 << 27} {
		l := Limits{MaxBinding: maxBinding, StorageAlign: 256}
		for _, esz := range []int{1, 2, 4, 8} {
			n := l.PieceElems(esz)
			if n < 1 {
				t.Fatalf("MaxBinding %d, %d-byte elements: piece %d", maxBinding, esz, n)
			}
			if n > 1 && uint64(n*esz) > maxBinding {
				t.Errorf("MaxBinding %d, %d-byte elements: piece of %d elements overflows the binding", maxBinding, esz, n)
			}
			if n >= 1024 && n%1024 != 0 {
				t.Errorf("MaxBinding %d, %d-byte elements: piece %d not a multiple of 1024", maxBinding, esz, n)
			}
		}
	}
}
