//go:build cgo

package webgpu

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// reduceRef reduces the view l of vals over axes in float64, with the
// kernels' semantics (NaN propagation, first occurrence for arg, integer
// wrap-around applied by the caller's rounding).
func reduceRef(op device.ReduceOp, dt dtype.DType, vals []float64, l layout.Layout, axes []int) []float64 {
	red := map[int]bool{}
	for _, a := range axes {
		red[a] = true
	}
	var kshape []int
	for i, d := range l.Shape {
		if !red[i] {
			kshape = append(kshape, d)
		}
	}
	nk := 1
	for _, d := range kshape {
		nk *= d
	}
	type accT struct {
		v, best float64
		n, bi   int
		seen    bool
	}
	acc := make([]accT, nk)
	for i := range acc {
		switch op {
		case device.Prod, device.All:
			acc[i].v = 1
		case device.Max:
			acc[i].v = math.Inf(-1)
		case device.Min:
			acc[i].v = math.Inf(1)
		}
	}
	each(l.Shape, func(idx []int) {
		k, ri := 0, 0
		for i, x := range idx {
			if red[i] {
				ri = ri*l.Shape[i] + x
			} else {
				k = k*l.Shape[i] + x
			}
		}
		x := vals[l.OffsetOf(idx)]
		a := &acc[k]
		switch op {
		case device.Sum, device.Mean:
			a.v += x
		case device.Prod:
			a.v *= x
		case device.Any:
			a.v = max(a.v, x)
		case device.All:
			a.v = min(a.v, x)
		case device.Max:
			if math.IsNaN(x) || x > a.v {
				if !math.IsNaN(a.v) {
					a.v = x
				}
			}
		case device.Min:
			if math.IsNaN(x) || x < a.v {
				if !math.IsNaN(a.v) {
					a.v = x
				}
			}
		case device.ArgMax, device.ArgMin:
			better := !a.seen
			if a.seen && !math.IsNaN(a.best) {
				better = math.IsNaN(x) || (op == device.ArgMax && x > a.best) || (op == device.ArgMin && x < a.best)
			}
			if better {
				a.best, a.bi, a.seen = x, ri, true
			}
		}
		a.n++
	})
	out := make([]float64, nk)
	for i, a := range acc {
		switch op {
		case device.Mean:
			out[i] = a.v / float64(a.n)
		case device.ArgMax, device.ArgMin:
			out[i] = float64(a.bi)
		default:
			out[i] = a.v
		}
		if !op.IsArg() {
			switch dt {
			case dtype.I32:
				out[i] = float64(int32(int64(out[i])))
			case dtype.U8:
				out[i] = float64(uint8(int64(out[i])))
			default:
				out[i] = roundTo(dt, out[i])
			}
		}
	}
	return out
}

func keptShape(shape []int, axes []int) []int {
	red := map[int]bool{}
	for _, a := range axes {
		red[a] = true
	}
	out := []int{}
	for i, d := range shape {
		if !red[i] {
			out = append(out, d)
		}
	}
	return out
}

func reduceTol(op device.ReduceOp, dt dtype.DType, n int) (float64, float64) {
	switch {
	case op.IsArg() || op == device.Max || op == device.Min || !dt.IsFloat():
		return 0, 0
	case dt == dtype.F16:
		return 2e-3, 1e-3
	}
	// f32 sums in a tree: relative error grows like log2(n) ulps; inputs
	// are O(1), so an absolute bound covers cancellation.
	return 2e-6, 1e-6 * math.Sqrt(float64(n))
}

func TestReduce(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(7, 8))
	type tc struct {
		name string
		n    int
		l    layout.Layout
		axes [][]int
	}
	tr, _ := contig(6, 5, 4).Permute(2, 0, 1)
	rev, _ := contig(7, 9).Slice(1, -1, -10, -1)
	bc, _ := contig(5, 1).BroadcastTo(5, 6)
	cases := []tc{
		{"vector", 1000, contig(1000), [][]int{{0}, {}}},
		{"matrix", 35, contig(5, 7), [][]int{{0}, {1}, {0, 1}}},
		{"rank3", 120, contig(4, 5, 6), [][]int{{0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}}},
		{"permuted", 120, tr, [][]int{{0}, {1}, {2}, {0, 2}}},
		{"reversed", 63, rev, [][]int{{0}, {1}}},
		{"broadcast", 5, bc, [][]int{{0}, {1}}},
		{"offset", 40, layout.Layout{Shape: []int{3, 4}, Strides: []int{8, 2}, Offset: 5}, [][]int{{0}, {1}}},
		{"size1", 6, contig(1, 6, 1), [][]int{{0}, {1}, {2}, {0, 2}}},
		{"scalar", 1, layout.Layout{Shape: []int{}, Strides: []int{}}, [][]int{{}}},
		{"long", 70000, contig(70000), [][]int{{0}}},
		{"long-rows", 3 * 20000, contig(3, 20000), [][]int{{1}, {0}}},
		{"many-rows", 3000 * 7, contig(3000, 7), [][]int{{1}, {0}}},
	}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16, dtype.I32, dtype.U8, dtype.Bool} {
		for _, c := range cases {
			lo, hi := -2.0, 2.0
			if !dt.IsFloat() {
				lo, hi = -20, 20
			}
			vals := randVals(r, dt, c.n, lo, hi)
			src := upload(t, g, dt, vals)
			for _, axes := range c.axes {
				for _, op := range device.ReduceOps() {
					if op.IsArg() && len(axes) != 1 {
						continue
					}
					if def, _ := op.Def(); !def.Accepts.Has(dt) {
						continue
					}
					if op == device.Prod && c.n > 100 && dt.IsFloat() {
						continue // the product of many values leaves f32 range
					}
					kshape := keptShape(c.l.Shape, axes)
					odt := dt
					if op.IsArg() {
						odt = dtype.I64
					}
					nout := 1
					for _, d := range kshape {
						nout *= d
					}
					dst := alloc(t, g, odt, nout)
					if err := g.Reduce(op, op2(dst, contig(kshape...)), op2(src, c.l), axes); err != nil {
						t.Fatalf("%s %s %s axes %v: %v", op, dt, c.name, axes, err)
					}
					want := reduceRef(op, dt, decode(dt, encode(dt, vals)), c.l, axes)
					rel, abs := reduceTol(op, dt, c.l.Numel()/max(nout, 1))
					checkClose(t, op.String()+" "+dt.String()+" "+c.name+" "+fmtShape(axes), download(t, g, dst), want, rel, abs)
				}
			}
		}
	}
}

func TestReduceNaNAndTies(t *testing.T) {
	g := dev(t)
	nan, inf := math.NaN(), math.Inf(1)
	rows := [][]float64{
		{1, 3, 3, 2},
		{nan, 1, nan, 5},
		{2, nan, 7, 7},
		{-inf, -inf, -inf, -inf},
		{inf, 1, inf, 0},
	}
	var vals []float64
	for _, r := range rows {
		vals = append(vals, r...)
	}
	src := upload(t, g, dtype.F32, vals)
	l := contig(5, 4)
	for _, op := range []device.ReduceOp{device.Max, device.Min, device.ArgMax, device.ArgMin, device.Sum} {
		odt := dtype.F32
		if op.IsArg() {
			odt = dtype.I64
		}
		dst := alloc(t, g, odt, 5)
		if err := g.Reduce(op, op2(dst, contig(5)), op2(src, l), []int{1}); err != nil {
			t.Fatal(err)
		}
		checkClose(t, op.String()+" NaN/ties", download(t, g, dst), reduceRef(op, dtype.F32, vals, l, []int{1}), 0, 0)
	}
	// A long row whose NaNs land in different chunks and workgroups: the
	// first NaN wins.
	long := make([]float64, 50000)
	for i := range long {
		long[i] = float64(i % 100)
	}
	long[31000], long[40000], long[45000] = nan, nan, 99
	src = upload(t, g, dtype.F32, long)
	for _, op := range []device.ReduceOp{device.ArgMax, device.ArgMin, device.Max} {
		odt := dtype.F32
		if op.IsArg() {
			odt = dtype.I64
		}
		dst := alloc(t, g, odt, 1)
		if err := g.Reduce(op, op2(dst, layout.Layout{Shape: []int{}, Strides: []int{}}), op2(src, contig(50000)), []int{0}); err != nil {
			t.Fatal(err)
		}
		checkClose(t, op.String()+" long NaN", download(t, g, dst), reduceRef(op, dtype.F32, long, contig(50000), []int{0}), 0, 0)
	}
}

func TestReduceEmptyAndErrors(t *testing.T) {
	g := dev(t)
	src := alloc(t, g, dtype.F32, 1)
	l := layout.Layout{Shape: []int{3, 0}, Strides: []int{1, 1}}
	for _, c := range []struct {
		op   device.ReduceOp
		want float64
	}{{device.Sum, 0}, {device.Prod, 1}} {
		dst := alloc(t, g, dtype.F32, 3)
		if err := g.Reduce(c.op, op2(dst, contig(3)), op2(src, l), []int{1}); err != nil {
			t.Fatal(err)
		}
		checkClose(t, c.op.String()+" empty", download(t, g, dst), []float64{c.want, c.want, c.want}, 0, 0)
	}
	dst := alloc(t, g, dtype.F32, 3)
	wantKind(t, "Max empty", g.Reduce(device.Max, op2(dst, contig(3)), op2(src, l), []int{1}), errs.ErrShape)
	// Empty output: nothing to do.
	if err := g.Reduce(device.Max, op2(dst, contig(0)), op2(src, layout.Layout{Shape: []int{0, 3}, Strides: []int{1, 1}}), []int{1}); err != nil {
		t.Errorf("empty output: %v", err)
	}
	s2 := alloc(t, g, dtype.F32, 12)
	d3 := alloc(t, g, dtype.F32, 4)
	wantKind(t, "unsorted", g.Reduce(device.Sum, op2(d3, contig()), op2(s2, contig(3, 4)), []int{1, 0}), errs.ErrAxis)
	wantKind(t, "out of range", g.Reduce(device.Sum, op2(d3, contig(3)), op2(s2, contig(3, 4)), []int{2}), errs.ErrAxis)
	wantKind(t, "dup", g.Reduce(device.Sum, op2(d3, contig()), op2(s2, contig(3, 4)), []int{1, 1}), errs.ErrAxis)
	wantKind(t, "bad dst shape", g.Reduce(device.Sum, op2(d3, contig(4)), op2(s2, contig(3, 4)), []int{1}), errs.ErrShape)
	wantKind(t, "arg two axes", g.Reduce(device.ArgMax, op2(alloc(t, g, dtype.I64, 1), contig()), op2(s2, contig(3, 4)), []int{0, 1}), errs.ErrAxis)
	wantKind(t, "arg dst dtype", g.Reduce(device.ArgMax, op2(d3, contig(3)), op2(s2, contig(3, 4)), []int{1}), errs.ErrDType)
	wantKind(t, "mean int", g.Reduce(device.Mean, op2(alloc(t, g, dtype.I32, 3), contig(3)), op2(alloc(t, g, dtype.I32, 12), contig(3, 4)), []int{1}), errs.ErrDType)
	wantKind(t, "bad op", g.Reduce(device.ReduceOp(99), op2(d3, contig(3)), op2(s2, contig(3, 4)), []int{1}), errs.ErrUnsupported)
	wantKind(t, "bool", g.Reduce(device.Max, op2(alloc(t, g, dtype.Bool, 3), contig(3)), op2(alloc(t, g, dtype.Bool, 12), contig(3, 4)), []int{1}), errs.ErrDType)
}

func softmaxRef(vals []float64, l layout.Layout, axis int, logOut bool) []float64 {
	n := l.Numel()
	out := make([]float64, n)
	// Index of each element in row-major order of l.
	pos := map[int]int{}
	k := 0
	each(l.Shape, func(idx []int) { pos[k] = l.OffsetOf(idx); k++ })
	stride := 1
	for i := axis + 1; i < len(l.Shape); i++ {
		stride *= l.Shape[i]
	}
	L := l.Shape[axis]
	for start := 0; start < n; start++ {
		if (start/stride)%L != 0 {
			continue
		}
		m := math.Inf(-1)
		for i := 0; i < L; i++ {
			x := vals[pos[start+i*stride]]
			if math.IsNaN(x) || x > m {
				m = x
				if math.IsNaN(x) {
					break
				}
			}
		}
		s := 0.0
		for i := 0; i < L; i++ {
			s += math.Exp(vals[pos[start+i*stride]] - m)
		}
		for i := 0; i < L; i++ {
			x := vals[pos[start+i*stride]]
			if logOut {
				out[start+i*stride] = x - m - math.Log(s)
			} else {
				out[start+i*stride] = math.Exp(x-m) / s
			}
		}
	}
	return out
}

func TestSoftmax(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(11, 12))
	tr, _ := contig(30, 7).Transpose(0, 1)
	cases := []struct {
		name string
		n    int
		l    layout.Layout
		axes []int
	}{
		{"rows", 40, contig(4, 10), []int{1, 0, -1}},
		{"long", 3 * 5000, contig(3, 5000), []int{1}},
		{"many", 500 * 9, contig(500, 9), []int{1, 0}},
		{"transposed", 210, tr, []int{0, 1}},
		{"rank3", 120, contig(4, 5, 6), []int{0, 1, 2}},
		{"single", 5, contig(5), []int{0}},
	}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16} {
		for _, c := range cases {
			vals := randVals(r, dt, c.n, -30, 30)
			if c.n > 10 {
				vals[3] = 80 // large values stay finite
			}
			src := upload(t, g, dt, vals)
			for _, ax := range c.axes {
				for _, lg := range []bool{false, true} {
					dst := alloc(t, g, dt, c.l.Numel())
					if err := g.Softmax(op2(dst, contig(c.l.Shape...)), op2(src, c.l), ax, lg); err != nil {
						t.Fatalf("%s axis %d: %v", c.name, ax, err)
					}
					a := ax
					if a < 0 {
						a += len(c.l.Shape)
					}
					want := softmaxRef(decode(dt, encode(dt, vals)), c.l, a, lg)
					for i := range want {
						want[i] = roundTo(dt, want[i])
					}
					rel, abs := 5e-6, 1e-7
					if lg {
						abs = 2e-5 // log-softmax: absolute error of x - m - log(s)
					}
					if dt == dtype.F16 {
						rel, abs = 2e-3, 1e-3
					}
					checkClose(t, "Softmax "+dt.String()+" "+c.name, download(t, g, dst), want, rel, abs)
				}
			}
		}
	}
	// NaN and -inf rows.
	nan, inf := math.NaN(), math.Inf(1)
	vals := []float64{1, nan, 2, -inf, -inf, -inf, 0, -inf, 1}
	src := upload(t, g, dtype.F32, vals)
	dst := alloc(t, g, dtype.F32, 9)
	if err := g.Softmax(op2(dst, contig(3, 3)), op2(src, contig(3, 3)), 1, false); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "Softmax special", download(t, g, dst), softmaxRef(vals, contig(3, 3), 1, false), 1e-6, 0)
	_ = inf
	wantKind(t, "axis", g.Softmax(op2(dst, contig(3, 3)), op2(src, contig(3, 3)), 2, false), errs.ErrAxis)
	wantKind(t, "int", g.Softmax(op2(alloc(t, g, dtype.I32, 9), contig(9)), op2(alloc(t, g, dtype.I32, 9), contig(9)), 0, false), errs.ErrDType)
}

// BenchmarkSoftmaxReduce times ordinary softmax and reduction shapes (rows
// short enough for the single-dispatch kernels), so changes to the
// long-row plans can be checked for regressions.
func BenchmarkSoftmaxReduce(b *testing.B) {
	g := dev(b)
	const n = 1 << 20
	src := upload(b, g, dtype.F32, make([]float64, n))
	dst := alloc(b, g, dtype.F32, n)
	idx := alloc(b, g, dtype.I64, 1024)
	run := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
				if err := g.Sync(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	sq := contig(1024, 1024)
	sqT, _ := sq.Transpose(0, 1)
	for _, c := range []struct {
		name string
		l    layout.Layout
		axis int
	}{
		{"1024x1024/axis1", sq, 1},
		{"1024x1024/axis0", sq, 0},
		{"1024x1024T/axis1", sqT, 1},
		{"16384x64/axis1", contig(16384, 64), 1},
		{"16x65536/axis1", contig(16, 65536), 1},
	} {
		run("softmax/"+c.name, func() error { return g.Softmax(op(dst, contig(c.l.Shape...)), op(src, c.l), c.axis, false) })
	}
	run("sum/all", func() error { return g.Reduce(device.Sum, op(dst, contig()), op(src, contig(n)), []int{0}) })
	run("sum/1024x1024/axis0", func() error { return g.Reduce(device.Sum, op(dst, contig(1024)), op(src, sq), []int{0}) })
	run("sum/1024x1024/axis1", func() error { return g.Reduce(device.Sum, op(dst, contig(1024)), op(src, sq), []int{1}) })
	run("max/16384x64/axis1", func() error {
		return g.Reduce(device.Max, op(dst, contig(16384)), op(src, contig(16384, 64)), []int{1})
	})
	run("argmax/1024x1024/axis1", func() error { return g.Reduce(device.ArgMax, op(idx, contig(1024)), op(src, sq), []int{1}) })
}

// TestSoftmaxLongPlan runs the multi-pass plan for long rows on small rows
// (shrunk chunk sizes, so the combine pass runs several levels) and checks
// it against the reference and, for NaN and infinities, against the
// one-dispatch kernel.
func TestSoftmaxLongPlan(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(13, 14))
	run := func(dst, src device.Operand, axis int, lg, long bool) error {
		if long {
			pl := g.plan
			defer func(a, b, c int) { pl.SoftmaxRowMax, pl.SoftmaxChunk, pl.SoftmaxCombine = a, b, c }(pl.SoftmaxRowMax, pl.SoftmaxChunk, pl.SoftmaxCombine)
			pl.SoftmaxRowMax, pl.SoftmaxChunk, pl.SoftmaxCombine = 16, 100, 3
		}
		return g.Softmax(dst, src, axis, lg)
	}
	tr, _ := contig(300, 7).Transpose(0, 1)
	rev, _ := contig(3, 5000).Slice(1, -1, -5001, -1)
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16} {
		for _, c := range []struct {
			name string
			l    layout.Layout
			axes []int
		}{
			{"long", contig(3, 5000), []int{1, 0}},
			{"reversed", rev, []int{1}},
			{"transposed", tr, []int{1, 0}},
			{"rank3", contig(4, 50, 6), []int{1}},
		} {
			vals := randVals(r, dt, 3*5000, -30, 30)
			vals[3] = 80
			src := upload(t, g, dt, vals)
			for _, ax := range c.axes {
				for _, lg := range []bool{false, true} {
					dst := alloc(t, g, dt, c.l.Numel())
					if err := run(op2(dst, contig(c.l.Shape...)), op2(src, c.l), ax, lg, true); err != nil {
						t.Fatalf("%s axis %d: %v", c.name, ax, err)
					}
					want := softmaxRef(decode(dt, encode(dt, vals)), c.l, ax, lg)
					for i := range want {
						want[i] = roundTo(dt, want[i])
					}
					rel, abs := 1e-5, 1e-7
					if lg {
						abs = 2e-5
					}
					if dt == dtype.F16 {
						rel, abs = 2e-3, 1e-3
					}
					checkClose(t, "long plan "+dt.String()+" "+c.name, download(t, g, dst), want, rel, abs)
				}
			}
		}
	}
	// Rows of 400 (4 chunks) with NaN, +Inf, -Inf chunks and all -Inf.
	nan, inf := math.NaN(), math.Inf(1)
	const L = 400
	rows := [][2]int{} // (position, kind) per row; kind 0 NaN, 1 +Inf, 2 -Inf chunk, 3 all -Inf, 4 none
	vals := make([]float64, 0, 5*L)
	for k := 0; k < 5; k++ {
		row := randVals(r, dtype.F32, L, -3, 3)
		switch k {
		case 0:
			row[250] = nan
		case 1:
			row[7] = inf
		case 2:
			for i := 100; i < 200; i++ {
				row[i] = -inf
			}
		case 3:
			for i := range row {
				row[i] = -inf
			}
		}
		rows = append(rows, [2]int{k, k})
		vals = append(vals, row...)
	}
	src := upload(t, g, dtype.F32, vals)
	for _, lg := range []bool{false, true} {
		a := alloc(t, g, dtype.F32, len(vals))
		b := alloc(t, g, dtype.F32, len(vals))
		l := contig(len(rows), L)
		if err := run(op2(a, l), op2(src, l), 1, lg, false); err != nil {
			t.Fatal(err)
		}
		if err := run(op2(b, l), op2(src, l), 1, lg, true); err != nil {
			t.Fatal(err)
		}
		checkClose(t, "specials: long plan vs one dispatch", download(t, g, b), download(t, g, a), 1e-5, 1e-6)
		if !lg {
			checkClose(t, "specials: long plan vs reference", download(t, g, b), softmaxRef(vals, l, 1, false), 1e-5, 1e-7)
		}
	}
}

// TestSoftmaxRowBeyondBinding: with a 1 MiB binding limit, one column of a
// [600, 1024] f32 matrix spans 2.4 MB; Softmax(0) splits the rows into
// windows instead of refusing. Views that keep more than 8 axes run too.
func TestSoftmaxRowBeyondBinding(t *testing.T) {
	g := openOrSkip(t, Options{MaxBindingSize: 1 << 20, MaxWorkgroupsPerDim: 16})
	r := rand.New(rand.NewPCG(15, 16))
	l := contig(600, 1024)
	vals := randVals(r, dtype.F32, l.Numel(), -5, 5)
	src := upload(t, g, dtype.F32, vals)
	for _, ax := range []int{0, 1} {
		for _, lg := range []bool{false, true} {
			dst := alloc(t, g, dtype.F32, l.Numel())
			if err := g.Softmax(op2(dst, l), op2(src, l), ax, lg); err != nil {
				t.Fatalf("axis %d: %v", ax, err)
			}
			abs := 1e-7
			if lg {
				abs = 2e-5
			}
			checkClose(t, "softmax beyond binding", download(t, g, dst), softmaxRef(vals, l, ax, lg), 1e-5, abs)
		}
	}
	// Rank 10, reversed axes: kept axes beyond the kernels' 8.
	ten := make([]int, 10)
	perm := make([]int, 10)
	for i := range ten {
		ten[i], perm[i] = 2, 9-i
	}
	p10, _ := contig(ten...).Permute(perm...)
	v10 := randVals(r, dtype.F32, 1024, -5, 5)
	s10 := upload(t, g, dtype.F32, v10)
	for _, ax := range []int{0, 4, 9} {
		dst := alloc(t, g, dtype.F32, 1024)
		if err := g.Softmax(op2(dst, contig(ten...)), op2(s10, p10), ax, false); err != nil {
			t.Fatalf("rank 10 axis %d: %v", ax, err)
		}
		checkClose(t, "softmax rank 10", download(t, g, dst), softmaxRef(v10, p10, ax, false), 1e-5, 1e-7)
	}
}

// TestReduceHighRankAndPlan: reductions keeping or reducing more than 8
// axes after merging (the plan's bound on the work of one invocation is
// checked without a GPU in package gpucore).
func TestReduceHighRankAndPlan(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(17, 18))
	eleven := make([]int, 11)
	perm := make([]int, 11)
	for i := range eleven {
		eleven[i], perm[i] = 2, 10-i
	}
	// A [3]*11 tensor narrowed to [2]*11 (no two axes merge, in any order)
	// with its axes reversed.
	threes := make([]int, 11)
	for i := range threes {
		threes[i] = 3
	}
	pl := contig(threes...)
	for i := range threes {
		pl, _ = pl.Narrow(i, 0, 2)
	}
	pl, _ = pl.Permute(perm...)
	vals := randVals(r, dtype.I32, 177147, -50, 50)
	src := upload(t, g, dtype.I32, vals)
	for _, axes := range [][]int{{0}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {5}} {
		for _, op := range []device.ReduceOp{device.Sum, device.Max, device.ArgMin} {
			if op.IsArg() && len(axes) != 1 {
				continue
			}
			ks := keptShape(eleven, axes)
			dt := dtype.I32
			if op.IsArg() {
				dt = dtype.I64
			}
			dst := alloc(t, g, dt, prodInts(ks))
			if err := g.Reduce(op, op2(dst, contig(ks...)), op2(src, pl), axes); err != nil {
				t.Fatalf("%s over %v: %v", op, axes, err)
			}
			checkClose(t, op.String()+" rank 11", download(t, g, dst), reduceRef(op, dtype.I32, vals, pl, axes), 0, 0)
		}
	}
}

// TestReduceI64 checks Sum and Prod of I64 sources (the W64 variant of
// reduce.wgsl: (lo, hi) pairs, 64-bit partial results) exactly against
// Go's wrapping int64 arithmetic: values with carries between the halves
// and signs, long reductions split into several passes, strided views,
// and products that wrap modulo 2^64; and Max, Min, ArgMax and ArgMin of
// I64 (signed 64-bit comparisons of the pairs) on values that tie and
// differ in either half, where the arg reductions must give the first
// occurrence.
func TestReduceI64(t *testing.T) {
	g := dev(t)
	tr, _ := contig(6, 5, 4).Permute(2, 0, 1)
	rev, _ := contig(7, 9).Slice(1, -1, -10, -1)
	bc, _ := contig(5, 1).BroadcastTo(5, 6)
	cases := []struct {
		name string
		n    int
		l    layout.Layout
		axes [][]int
	}{
		{"vector", 1000, contig(1000), [][]int{{0}, {}}},
		{"rank3", 120, contig(4, 5, 6), [][]int{{1}, {0, 2}, {0, 1, 2}}},
		{"permuted", 120, tr, [][]int{{0}, {2}, {0, 2}}},
		{"reversed", 63, rev, [][]int{{0}, {1}}},
		{"broadcast", 5, bc, [][]int{{0}, {1}}},
		{"long", 70000, contig(70000), [][]int{{0}}},
		{"long-rows", 3 * 20000, contig(3, 20000), [][]int{{1}, {0}}},
		{"many-rows", 3000 * 7, contig(3000, 7), [][]int{{1}, {0}}},
	}
	factors := []int64{1, -1, 3, 1, 2, 65537, 1, -(1 << 33) - 1, 1, 1}
	for _, c := range cases {
		sums := make([]int64, c.n)
		prods := make([]int64, c.n)
		ties := make([]int64, c.n)
		for i := range sums {
			sums[i] = int64(uint64(i)*2654435761%(1<<41)) - 1<<40 // |v| < 2^40: exact in float64
			prods[i] = factors[i%len(factors)]
			ties[i] = int64(i*7919%61-30)<<32 + int64(i*31%5) // 305 values: ties, and both halves differ
		}
		for _, axes := range c.axes {
			for _, op := range []device.ReduceOp{device.Sum, device.Prod, device.Max, device.Min, device.ArgMax, device.ArgMin} {
				if op.IsArg() && len(axes) != 1 {
					continue
				}
				vals := sums
				switch op {
				case device.Prod:
					vals = prods
				case device.Max, device.Min, device.ArgMax, device.ArgMin:
					vals = ties
				}
				fv := make([]float64, len(vals))
				for i, v := range vals {
					fv[i] = float64(v)
				}
				src := upload(t, g, dtype.I64, fv)
				kshape := keptShape(c.l.Shape, axes)
				nout := prodInts(kshape)
				dst := alloc(t, g, dtype.I64, nout)
				if err := g.Reduce(op, op2(dst, contig(kshape...)), op2(src, c.l), axes); err != nil {
					t.Fatalf("%s i64 %s axes %v: %v", op, c.name, axes, err)
				}
				want := make([]int64, nout)
				best := make([]int64, nout) // the extreme so far, for the arg reductions
				seen := make([]bool, nout)
				if op == device.Prod {
					for i := range want {
						want[i] = 1
					}
				}
				red := map[int]bool{}
				for _, a := range axes {
					red[a] = true
				}
				each(c.l.Shape, func(idx []int) {
					k := 0
					for i, x := range idx {
						if !red[i] {
							k = k*c.l.Shape[i] + x
						}
					}
					v := vals[c.l.OffsetOf(idx)]
					first := !seen[k]
					seen[k] = true
					switch op {
					case device.Sum:
						want[k] += v
					case device.Prod:
						want[k] *= v
					case device.Max:
						if first || v > want[k] {
							want[k] = v
						}
					case device.Min:
						if first || v < want[k] {
							want[k] = v
						}
					case device.ArgMax, device.ArgMin: // row-major walk: the first occurrence wins
						if first || op == device.ArgMax && v > best[k] || op == device.ArgMin && v < best[k] {
							best[k], want[k] = v, int64(idx[axes[0]])
						}
					}
				})
				raw := make([]byte, 8*nout)
				if err := g.Download(raw, dst, 0); err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if got := int64(binary.LittleEndian.Uint64(raw[8*i:])); got != want[i] {
						t.Fatalf("%s i64 %s axes %v: output %d = %d, want %d", op, c.name, axes, i, got, want[i])
					}
				}
			}
		}
	}
}
