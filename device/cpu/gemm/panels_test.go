package gemm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// storedPanels is a Panels over stored row-major B matrices (one per
// item, ldb apart), packed by the portable packPanel: the reference
// source the panel path is checked with.
type storedPanels[T float] struct {
	b        []T
	ldb, off int // item i's B starts at b[i*off]
}

func (s storedPanels[T]) PackB(dst []T, item, k0, j0, kc, cols, width int) {
	packPanel(dst, s.b, item*s.off+k0*s.ldb+j0, 1, s.ldb, cols, width, kc)
}

// TestPanels checks F32Panels and F64Panels against a float64 loop on
// every kernel tier, over tile edges in m, n and k (one and several k
// blocks), shared and distinct A matrices, and C written with ldc > n
// (the padding must stay untouched).
func TestPanels(t *testing.T) {
	cases := []struct{ m, n, k, items, distinctA int }{
		{1, 1, 1, 1, 1},
		{14, 32, 7, 1, 1},
		{15, 33, 300, 2, 1},  // edge row and column panels, two k blocks
		{64, 100, 576, 3, 3}, // the convolution's shape, trimmed
		{5, 200, 9, 4, 2},
		{29, 3, 1030, 2, 2}, // several k blocks on every tier
		{3, 0, 4, 1, 1},
		{3, 5, 0, 2, 1},
	}
	for _, kern := range kernelNames() {
		withKernel(t, kern, func() {
			for ci, c := range cases {
				name := fmt.Sprintf("%s case %d %+v", kern, ci, c)
				testPanels[float32](t, name, c.m, c.n, c.k, c.items, c.distinctA, uint64(ci))
				testPanels[float64](t, name, c.m, c.n, c.k, c.items, c.distinctA, uint64(ci))
			}
		})
	}
}

func testPanels[T float](t *testing.T, name string, m, n, k, items, distinctA int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	lda, ldb, ldc := k+3, n+1, n+2
	a := make([]T, distinctA*m*lda+1)
	b := make([]T, items*k*ldb+1)
	for i := range a {
		a[i] = T(rng.Float64() - 0.5)
	}
	for i := range b {
		b[i] = T(rng.Float64() - 0.5)
	}
	const guard = -7
	c := make([]T, items*m*ldc+1)
	for i := range c {
		c[i] = guard
	}
	its := make([]Item, items)
	for i := range its {
		its[i] = Item{A: (i % distinctA) * m * lda, C: i * m * ldc}
	}
	src := storedPanels[T]{b: b, ldb: ldb, off: k * ldb}
	var err error
	switch cs := any(c).(type) {
	case []float32:
		err = F32Panels(m, n, k, any(a).([]float32), lda, any(src).(storedPanels[float32]), its, cs, ldc)
	case []float64:
		err = F64Panels(m, n, k, any(a).([]float64), lda, any(src).(storedPanels[float64]), its, cs, ldc)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tol := tolerance[T](k)
	for it := range items {
		for i := range m {
			for j := range ldc {
				got := float64(c[it*m*ldc+i*ldc+j])
				if j >= n {
					if got != guard {
						t.Fatalf("%s: item %d wrote padding (%d,%d) = %v", name, it, i, j, got)
					}
					continue
				}
				want, scale := 0.0, 0.0
				for p := range k {
					x := float64(a[its[it].A+i*lda+p]) * float64(b[it*k*ldb+p*ldb+j])
					want += x
					scale += math.Abs(x)
				}
				if math.Abs(got-want) > tol*scale+1e-30 {
					t.Fatalf("%s: item %d C(%d,%d) = %v, want %v", name, it, i, j, got, want)
				}
			}
		}
	}
	if c[len(c)-1] != guard {
		t.Fatalf("%s: wrote past the last item", name)
	}
}

// TestPanelsErrors checks that bad sizes and offsets are typed errors.
func TestPanelsErrors(t *testing.T) {
	a, c := make([]float32, 12), make([]float32, 12)
	src := storedPanels[float32]{b: make([]float32, 12), ldb: 3}
	for name, err := range map[string]error{
		"negative": F32Panels(-1, 3, 4, a, 4, src, []Item{{}}, c, 3),
		"lda":      F32Panels(3, 3, 4, a, 3, src, []Item{{}}, c, 3),
		"short A":  F32Panels(3, 3, 4, a, 4, src, []Item{{A: 4}}, c, 3),
		"short C":  F32Panels(3, 3, 4, a, 4, src, []Item{{C: 4}}, c, 3),
		"offset":   F32Panels(3, 3, 4, a, 4, src, []Item{{A: -1}}, c, 3),
	} {
		if !errors.Is(err, errs.ErrShape) && !errors.Is(err, errs.ErrValue) {
			t.Errorf("%s: %v, want a shape or value error", name, err)
		}
	}
}

// TestCopyRows checks CopyRows on every kernel tier against a plain loop,
// for every row length up to past the vector path's 128 bytes, with the
// bytes around each row left untouched, and its refusals.
func TestCopyRows(t *testing.T) {
	for _, kern := range kernelNames() {
		withKernel(t, kern, func() {
			for n := 0; n <= 40; n++ {
				testCopyRows[float32](t, kern, n)
				testCopyRows[float64](t, kern, n)
			}
		})
	}
	d, s := make([]float32, 10), make([]float32, 10)
	for name, ok := range map[string]bool{
		"negative ldd": CopyRows(d, -1, s, 1, 2, 2),
		"short dst":    CopyRows(d, 5, s, 1, 3, 2),
		"short src":    CopyRows(d, 1, s, 9, 2, 2),
		"huge ldd":     CopyRows(d, 1<<62, s, 1, 5, 2), // (rows-1)*ldd wraps to 0 in 64 bits
		"huge lds":     CopyRows(d, 1, s, 1<<61+1, 9, 1),
	} {
		if ok {
			t.Errorf("%s: CopyRows accepted it", name)
		}
	}
}

func testCopyRows[T float](t *testing.T, kern string, n int) {
	t.Helper()
	const rows, guard = 5, -3
	ldd, lds := n+3, 2*n+1
	src := make([]T, (rows-1)*lds+n)
	for i := range src {
		src[i] = T(i + 1)
	}
	dst := make([]T, rows*ldd)
	for i := range dst {
		dst[i] = guard
	}
	if !CopyRows(dst, ldd, src, lds, rows, n) {
		t.Fatalf("%s n=%d: refused", kern, n)
	}
	for r := range rows {
		for i := range ldd {
			want := T(guard)
			if i < n {
				want = src[r*lds+i]
			}
			if got := dst[r*ldd+i]; got != want {
				t.Fatalf("%s %T n=%d: dst[%d][%d] = %v, want %v", kern, got, n, r, i, got, want)
			}
		}
	}
}

// TestPadPlanes checks PadPlanes on every kernel tier against a plain
// loop: every row length and column padding up to past the vector path's
// 128 bytes, zero rows above and below or none, several planes read from
// a source with gaps between rows and planes, every element of the padded
// planes written (dst starts as a guard value) and nothing past them; and
// its refusals.
func TestPadPlanes(t *testing.T) {
	for _, kern := range kernelNames() {
		withKernel(t, kern, func() {
			for n := 0; n <= 36; n++ {
				for pad := 0; pad <= 3; pad++ {
					g := padCase{planes: 3, rows: 4, n: n, padRows: pad % 3, padCols: pad}
					testPadPlanes[float32](t, kern, g)
					testPadPlanes[float64](t, kern, g)
					testPadPlanes[uint32](t, kern, g)
				}
			}
			testPadPlanes[float32](t, kern, padCase{planes: 2, rows: 0, n: 5, padRows: 1, padCols: 1})
			testPadPlanes[float32](t, kern, padCase{planes: 1, rows: 3, n: 4, padRows: 0, padCols: 0})
		})
	}
	d, s := make([]float32, 12), make([]float32, 12)
	for name, ok := range map[string]bool{
		"negative lds":             PadPlanes(d, s, 12, -1, 1, 2, 2, 0, 1),
		"negative ldp":             PadPlanes(d, s, -12, 1, 1, 2, 2, 0, 1),
		"negative pad":             PadPlanes(d, s, 12, 2, 1, 2, 2, 0, -1),
		"negative n":               PadPlanes(d, s, 12, 2, 1, 2, -2, 0, 1),
		"negative rows":            PadPlanes(d, s, 12, 2, 1, -2, 2, 0, 1),
		"no planes, negative rows": PadPlanes(d, s, 12, 2, 0, -2, 2, 0, 1),
		"short dst":                PadPlanes(d, s, 12, 2, 1, 2, 2, 1, 1), // 4 rows of 4
		"short src":                PadPlanes(d, s, 9, 2, 2, 2, 2, 0, 0),  // the second plane's last row ends at 9+2+2
		"huge pad":                 PadPlanes(d, s, 1, 1, 1, 1, 1, 0, 1<<62),
		"huge rows":                PadPlanes(d, s, 1, 1, 1, 1, 1, 1<<62, 0),
		"huge lds":                 PadPlanes(d, s, 1, 1<<61+1, 1, 3, 1, 0, 0),
		"huge ldp":                 PadPlanes(d, s, 1<<61+1, 1, 3, 1, 1, 0, 0),
	} {
		if ok {
			t.Errorf("%s: PadPlanes accepted it", name)
		}
	}
	for i, v := range d {
		if v != 0 {
			t.Fatalf("d[%d] = %v after refusals", i, v)
		}
	}
}

// FuzzPadPlanes drives any sizes, leading dimensions and slice lengths
// (negative and huge ones among them) through PadPlanes: it must never
// panic or write out of bounds, leave dst untouched when it refuses, and
// when it accepts, match the plain loop.
func FuzzPadPlanes(f *testing.F) {
	f.Add(int64(20), int64(5), int64(3), int64(4), int64(4), int64(1), int64(2), uint16(400), uint16(80))
	f.Add(int64(0), int64(0), int64(1), int64(1), int64(30), int64(0), int64(1), uint16(40), uint16(40))
	f.Add(int64(-1), int64(1<<40), int64(2), int64(3), int64(-2), int64(1<<62), int64(3), uint16(10), uint16(10))
	f.Fuzz(func(t *testing.T, ldp, lds, planes, rows, n, padRows, padCols int64, dstLen, srcLen uint16) {
		const guard = 7
		dst := make([]float32, int(dstLen)%2048+3)
		src := make([]float32, int(srcLen)%2048)
		for i := range src {
			src[i] = float32(i + 100)
		}
		for i := range dst {
			dst[i] = guard
		}
		g := padCase{planes: int(planes), rows: int(rows), n: int(n), padRows: int(padRows), padCols: int(padCols)}
		body := dst[:len(dst)-3] // the last 3 must stay guards whatever happens
		if !PadPlanes(body, src, int(ldp), int(lds), g.planes, g.rows, g.n, g.padRows, g.padCols) {
			for i, v := range dst {
				if v != guard {
					t.Fatalf("%+v ldp=%d lds=%d: refused but wrote dst[%d] = %v", g, ldp, lds, i, v)
				}
			}
			return
		}
		checkPadded(t, fmt.Sprintf("ldp=%d lds=%d", ldp, lds), g, dst, src, int(ldp), int(lds), guard)
	})
}

// padCase is one geometry of TestPadPlanes.
type padCase struct{ planes, rows, n, padRows, padCols int }

// checkPadded checks dst against PadPlanes's definition for geometry g
// over src (planes ldp apart, rows lds apart): each plane's rows at their
// place, zeros around them, guard past the padded planes.
func checkPadded[T float32 | float64 | uint32](t *testing.T, name string, g padCase, dst, src []T, ldp, lds int, guard T) {
	t.Helper()
	hp, wp := g.rows+2*g.padRows, g.n+2*g.padCols
	for i, got := range dst {
		want := guard
		if i < g.planes*hp*wp {
			want = 0
			q, r, c := i/(hp*wp), i%(hp*wp)/wp-g.padRows, i%wp-g.padCols
			if r >= 0 && r < g.rows && c >= 0 && c < g.n {
				want = src[q*ldp+r*lds+c]
			}
		}
		if got != want {
			t.Fatalf("%s %T %+v: dst[%d] = %v, want %v", name, got, g, i, got, want)
		}
	}
}

func testPadPlanes[T float32 | float64 | uint32](t *testing.T, kern string, g padCase) {
	t.Helper()
	const guard = 7
	lds := g.n + 2
	ldp := g.rows*lds + 5
	src := make([]T, g.planes*ldp)
	for i := range src {
		src[i] = T(i + 100)
	}
	hp, wp := g.rows+2*g.padRows, g.n+2*g.padCols
	dst := make([]T, g.planes*hp*wp+3)
	for i := range dst {
		dst[i] = guard
	}
	if !PadPlanes(dst, src, ldp, lds, g.planes, g.rows, g.n, g.padRows, g.padCols) {
		t.Fatalf("%s %+v: refused", kern, g)
	}
	checkPadded(t, kern, g, dst, src, ldp, lds, guard)
}

// TestGatherRuns checks GatherRuns on every kernel tier against a plain
// loop: runs of every length up to past two 64-byte chunks, rows at
// offsets out of order, the elements between and around the runs left
// untouched; and its refusals.
func TestGatherRuns(t *testing.T) {
	for _, kern := range kernelNames() {
		withKernel(t, kern, func() {
			for n := 0; n <= 40; n++ {
				testGatherRuns[float32](t, kern, n)
				testGatherRuns[float64](t, kern, n)
			}
		})
	}
	d, s := make([]float32, 10), make([]float32, 10)
	one := []Run{{N: 2}}
	for name, ok := range map[string]bool{
		"negative offset": GatherRuns(d, 2, s, []int{0, -1}, one),
		"offset past src": GatherRuns(d, 2, s, []int{9}, one),
		"negative ldd":    GatherRuns(d, -2, s, []int{0, 1}, one),
		"negative run":    GatherRuns(d, 2, s, []int{0}, []Run{{N: -1}}),
		"run past src":    GatherRuns(d, 2, s, []int{0}, []Run{{Src: 9, N: 2}}),
		"run past dst":    GatherRuns(d, 4, s, []int{0, 0, 0}, []Run{{Dst: 1, N: 2}}),
		"huge ldd":        GatherRuns(d, 1<<62, s, []int{0, 0, 0, 0, 0}, one),
		"huge src":        GatherRuns(d, 2, s, []int{1}, []Run{{Src: 1<<63 - 1, N: 2}}),
	} {
		if ok {
			t.Errorf("%s: GatherRuns accepted it", name)
		}
	}
}

func testGatherRuns[T float](t *testing.T, kern string, n int) {
	t.Helper()
	const guard = -3
	offs := []int{7, 0, 3*n + 5, 2}
	runs := []Run{{Dst: 1, Src: 0, N: n}, {Dst: n + 2, Src: n + 1, N: n / 2}, {Dst: n + n/2 + 3, Src: 1, N: 1}}
	ldd := n + n/2 + 5
	src := make([]T, max(7, 3*n+5)+2*n+2)
	for i := range src {
		src[i] = T(i + 1)
	}
	dst := make([]T, len(offs)*ldd)
	for i := range dst {
		dst[i] = guard
	}
	if !GatherRuns(dst, ldd, src, offs, runs) {
		t.Fatalf("%s n=%d: refused", kern, n)
	}
	want := make([]T, len(dst))
	for i := range want {
		want[i] = guard
	}
	for p, o := range offs {
		for _, r := range runs {
			for i := range r.N {
				want[p*ldd+r.Dst+i] = src[o+r.Src+i]
			}
		}
	}
	for i := range dst {
		if dst[i] != want[i] {
			t.Fatalf("%s %T n=%d: dst[%d][%d] = %v, want %v", kern, dst[i], n, i/ldd, i%ldd, dst[i], want[i])
		}
	}
}
