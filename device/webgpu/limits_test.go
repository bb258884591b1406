//go:build cgo

package webgpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// TestSmallBindingLimit runs work several times larger than a 1 MiB
// storage binding limit (and a 16-workgroup grid limit, so grids fold):
// results must match as if there were no limit.
func TestSmallBindingLimit(t *testing.T) {
	g := openOrSkip(t, Options{MaxBindingSize: 1 << 20, MaxWorkgroupsPerDim: 16})
	r := rand.New(rand.NewPCG(21, 22))
	const rows, cols = 1024, 700 // 2.8 MB of f32
	n := rows * cols
	av := randVals(r, dtype.F32, n, -2, 2)
	bv := randVals(r, dtype.F32, n, -2, 2)
	a := upload(t, g, dtype.F32, av)
	b := upload(t, g, dtype.F32, bv)
	checkClose(t, "round trip", download(t, g, a), av, 0, 0)

	// Elementwise with a transposed operand: a[i,j] + b^T viewed as [cols, rows].
	la := contig(rows, cols)
	lbT0 := contig(cols, rows)
	lbT, _ := lbT0.Transpose(0, 1)
	dst := alloc(t, g, dtype.F32, n)
	if err := g.Binary(device.Add, op2(dst, la), op2(a, la), op2(b, lbT)); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, n)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			want[i*cols+j] = float64(float32(av[i*cols+j] + bv[j*rows+i]))
		}
	}
	checkClose(t, "add transposed", download(t, g, dst), want, 0, 0)

	// Copy with a cast into a reversed view.
	rev, _ := la.Slice(0, -1, -rows-1, -1)
	h := alloc(t, g, dtype.F16, n)
	if err := g.Copy(op2(h, rev), op2(a, la)); err != nil {
		t.Fatal(err)
	}
	got := gather(download(t, g, h), rev)
	for i := range want {
		want[i] = roundTo(dtype.F16, av[i])
	}
	checkClose(t, "copy to reversed f16", got, want, 0, 0)

	// Reductions: everything, rows, columns (strided), and arg along rows.
	for _, c := range []struct {
		op   device.ReduceOp
		axes []int
	}{{device.Sum, []int{0, 1}}, {device.Max, []int{1}}, {device.Mean, []int{0}}, {device.ArgMin, []int{0}}, {device.ArgMax, []int{1}}} {
		ks := keptShape(la.Shape, c.axes)
		odt := dtype.F32
		if c.op.IsArg() {
			odt = dtype.I64
		}
		d := alloc(t, g, odt, max(1, prodInts(ks)))
		if err := g.Reduce(c.op, op2(d, contig(ks...)), op2(a, la), c.axes); err != nil {
			t.Fatalf("%s %v: %v", c.op, c.axes, err)
		}
		rel, abs := reduceTol(c.op, dtype.F32, n)
		checkClose(t, "reduce "+c.op.String(), download(t, g, d), reduceRef(c.op, dtype.F32, av, la, c.axes), rel, abs)
	}
	// Reduce a transposed view over its rows: every output reads a column.
	d := alloc(t, g, dtype.F32, rows)
	if err := g.Reduce(device.Sum, op2(d, contig(rows)), op2(b, lbT), []int{1}); err != nil {
		t.Fatal(err)
	}
	rel, abs := reduceTol(device.Sum, dtype.F32, cols)
	checkClose(t, "reduce transposed", download(t, g, d), reduceRef(device.Sum, dtype.F32, bv, lbT, []int{1}), rel, abs)

	// Softmax along rows of the big matrix.
	sm := alloc(t, g, dtype.F32, n)
	if err := g.Softmax(op2(sm, la), op2(a, la), 1, false); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "softmax", download(t, g, sm), softmaxRef(av, la, 1, false), 5e-6, 1e-8)

	// U8 upload and download widen and narrow in pieces (4 MiB on the GPU).
	u := randVals(r, dtype.U8, 1<<20+3, 0, 255)
	ub := upload(t, g, dtype.U8, u)
	checkClose(t, "u8 round trip", download(t, g, ub), u, 0, 0)
	part := randVals(r, dtype.U8, 700001, 0, 255)
	if err := g.Upload(ub, 12345, encode(dtype.U8, part)); err != nil {
		t.Fatal(err)
	}
	copy(u[12345:], part)
	out := make([]byte, 900001)
	if err := g.Download(out, ub, 777); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "u8 unaligned pieces", decode(dtype.U8, out), u[777:777+900001], 0, 0)
	hv := randVals(r, dtype.F16, 700001, -9, 9)
	hb := alloc(t, g, dtype.F16, 700003)
	if err := g.Upload(hb, 1, encode(dtype.F16, hv)); err != nil {
		t.Fatal(err)
	}
	hout := make([]byte, 2*700001)
	if err := g.Download(hout, hb, 1); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "f16 unaligned pieces", decode(dtype.F16, hout), hv, 0, 0)

	// Matmul: one matrix beyond the limit is refused, naming it; a batch of
	// matrices that fit one by one runs.
	big := alloc(t, g, dtype.F32, 600*600)
	bd := alloc(t, g, dtype.F32, 600*600)
	err := g.Matmul(op2(bd, contig(600, 600)), op2(big, contig(600, 600)), op2(big2(t, g), contig(600, 600)))
	wantKind(t, "matmul beyond limit", err, errs.ErrOutOfMemory)
	if err != nil && !strings.Contains(err.Error(), "maxStorageBufferBindingSize") {
		t.Errorf("error %q should name the limit", err)
	}
	bl := contig(6, 100, 120)
	ma := randVals(r, dtype.F32, 6*100*120, -1, 1)
	mb := randVals(r, dtype.F32, 6*120*90, -1, 1)
	mA := upload(t, g, dtype.F32, ma)
	mB := upload(t, g, dtype.F32, mb)
	mC := alloc(t, g, dtype.F32, 6*100*90)
	if err := g.Matmul(op2(mC, contig(6, 100, 90)), op2(mA, bl), op2(mB, contig(6, 120, 90))); err != nil {
		t.Fatal(err)
	}
	wantM, mag := matmulRef(ma, bl, mb, contig(6, 120, 90))
	gotM := download(t, g, mC)
	for i := range wantM {
		if math.Abs(gotM[i]-wantM[i]) > 1e-6*mag[i]+1e-7 {
			t.Fatalf("batched matmul [%d] = %v, want %v", i, gotM[i], wantM[i])
		}
	}
	if g.stats.submits.Load() == 0 || g.stats.dispatches.Load() < 20 {
		t.Errorf("expected chunked work: %d dispatches", g.stats.dispatches.Load())
	}
}

func big2(t *testing.T, g *gpu) device.Buffer { return alloc(t, g, dtype.F32, 600*600) }

func TestGridFolding(t *testing.T) {
	g := openOrSkip(t, Options{MaxWorkgroupsPerDim: 3})
	n := 256*3*3*2 + 17 // needs a 3-D grid
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(i)
	}
	a := upload(t, g, dtype.F32, vals)
	d := alloc(t, g, dtype.F32, n)
	if err := g.Unary(device.Neg, op2(d, contig(n)), op2(a, contig(n))); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, n)
	for i := range want {
		want[i] = -vals[i]
	}
	checkClose(t, "folded grid", download(t, g, d), want, 0, 0)
	if grid := g.plan.Lim.Grid(uint64(n+255) / 256); grid[2] < 2 {
		t.Errorf("grid %v not folded into 3-D", grid)
	}
	s := alloc(t, g, dtype.F32, 1)
	if err := g.Reduce(device.Sum, op2(s, layout.Layout{Shape: []int{}, Strides: []int{}}), op2(a, contig(n)), []int{0}); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "folded reduce", download(t, g, s), []float64{float64(float32(float64(n-1) * float64(n) / 2))}, 1e-6, 0)
}

func TestOversizedViews(t *testing.T) {
	g := openOrSkip(t, Options{MaxBufferSize: 1 << 20})
	_, err := g.Alloc(dtype.F32, 1<<18+1)
	wantKind(t, "alloc past MaxBufferSize", err, errs.ErrOutOfMemory)
	if _, err := g.Alloc(dtype.F32, 1<<18); err != nil {
		t.Errorf("alloc at the limit: %v", err)
	}
	_, err = g.Alloc(dtype.U8, 1<<18+1) // widened to 4 bytes each
	wantKind(t, "u8 alloc past the limit", err, errs.ErrOutOfMemory)
}

// TestTinyBindingTransfers checks U8 and Bool transfers under a binding
// limit smaller than one 1,024-element piece: they used to loop forever
// with a piece of zero elements. A watchdog turns a hang into a failure.
func TestTinyBindingTransfers(t *testing.T) {
	g := openOrSkip(t, Options{MaxBindingSize: 4096})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := rand.New(rand.NewPCG(5, 6))
		for _, dt := range []dtype.DType{dtype.U8, dtype.Bool} {
			u := randVals(r, dt, 10007, 0, 1)
			if dt == dtype.U8 {
				u = randVals(r, dt, 10007, 0, 255)
			}
			b := upload(t, g, dt, u)
			checkClose(t, dt.String()+" round trip", download(t, g, b), u, 0, 0)
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("U8/Bool transfers under a 4 KiB binding limit did not finish in 2 minutes")
	}
}
