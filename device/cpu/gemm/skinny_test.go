package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestSkinnyPaths checks the unpacked path's forms (axpy, axpyT, dot by
// rows, dot by columns, the four-row GEMV) on every kernel against the
// float64 reference, with the short side 1..9 (the axpy4x4 groups of four
// output rows and their remainders), the long side and k around the
// AVX-512 vector and double-vector lengths (16 and 32 float32, 8 and 16
// float64, where the masked tails start) and around the groups of four
// rows of L, under all transpose combinations, with padded leading
// dimensions, offset slices and beta 0 (over NaN), 1 and -0.5.
func TestSkinnyPaths(t *testing.T) {
	shorts := []int{1, 2, 3, 4, 5, 7, 8, 9}
	longs := []int{15, 16, 17, 31, 32, 33, 64, 100, 130}
	ks := []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 130}
	if testing.Short() {
		shorts = []int{1, 4, 5}
		ks = []int{1, 4, 5, 16, 17, 33}
	}
	betas := []float64{0, 1, -0.5}
	forEachType(t, func(t *testing.T, check func(gemmCase) bool) {
		i := 0
		for _, s := range shorts {
			for _, l := range longs {
				for _, k := range ks {
					for _, d := range [][2]int{{s, l}, {l, s}} {
						i++
						tr := transCombos[i%4]
						beta := betas[i%3]
						tc := gemmCase{
							transA: tr[0], transB: tr[1], m: d[0], n: d[1], k: k,
							padA: i % 3, padB: (i + 1) % 3, padC: i % 2, offA: i % 2, offB: (i + 1) % 2, offC: 1,
							alpha: 1.5, beta: beta, nanC: beta == 0, nanPad: true, seed: 20,
						}
						if !check(tc) {
							return
						}
					}
				}
			}
		}
	})
}

// TestGEMV checks true matrix-vector products (m = 1 or n = 1) and the
// benchmarked skinny shapes at full size, under all transpose
// combinations and on one and three goroutines (the parallel split of the
// k range with partial sums, and of rows and columns).
func TestGEMV(t *testing.T) {
	shapes := [][3]int{{1, 1037, 1029}, {1037, 1, 1029}, {1, 1, 1029}, {4, 1024, 1024}, {1024, 4, 1024}, {3, 515, 2000},
		{9, 1000, 300}, {1000, 9, 300}} // two strips of four rows and one more row; whole strips and a remainder
	if testing.Short() {
		shapes = shapes[:3]
	}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	for _, procs := range []int{1, 3} {
		runtime.GOMAXPROCS(procs)
		forEachType(t, func(t *testing.T, check func(gemmCase) bool) {
			for si, s := range shapes {
				for ti, tr := range transCombos {
					tc := gemmCase{transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2],
						padA: ti, padB: si % 2, padC: 1, offA: 1, offB: ti % 2, offC: si % 2,
						alpha: -0.75, beta: 0.5, nanPad: true, seed: 21}
					if !check(tc) {
						return
					}
				}
			}
		})
	}
}

// TestAxpy4x4 checks the four-row axpy4 of every kernel set that has one
// against float64 loops, for lengths around the vector widths, and that
// nothing around the four output rows is written.
func TestAxpy4x4(t *testing.T) {
	for _, im := range append([]*impl{genericImpl}, tiers...) {
		testAxpy4x4(t, im.name, im.f32)
		testAxpy4x4(t, im.name, im.f64)
	}
}

func testAxpy4x4[T float](t *testing.T, name string, ks *kernels[T]) {
	if ks.axpy4x4 == nil {
		return
	}
	rng := rand.New(rand.NewPCG(22, 23))
	// Coefficient layouts: s[q*srs+p*scs] with p along a row (the axpy
	// form, A row-major) or down a column (the axpyT form), and alpha
	// other than 1 so that a kernel which skips the scaling fails.
	layouts := []struct {
		scs, srs int
		alpha    float64
	}{{1, 13, 1}, {7, 1, -0.75}}
	for _, lay := range layouts {
		for _, groups := range []int{0, 1, 2, 3, 4} {
			for n := 1; n <= 70; n++ {
				rowsX := 4 * groups
				ldx, ldy := n+n%3, n+2
				x := uniform[T](rng, max(rowsX, 1)*ldx, 1)
				// y: four rows of ldy with a sentinel before and after.
				y := uniform[T](rng, 4*ldy+2, 1)
				y0 := append([]T(nil), y...)
				s := uniform[T](rng, 3*lay.srs+max(rowsX-1, 0)*lay.scs+1, 2)
				alpha := T(lay.alpha)
				ks.axpy4x4(n, groups, &s[0], lay.scs, lay.srs, alpha, &x[0], ldx, &y[1], ldy)
				tol := tolerance[T](rowsX) * 8
				for idx := range y {
					want := float64(y0[idx])
					q, i := (idx-1)/ldy, (idx-1)%ldy
					if idx >= 1 && q < 4 && i < n {
						for p := range rowsX {
							want += float64(alpha*s[q*lay.srs+p*lay.scs]) * float64(x[p*ldx+i])
						}
					}
					if math.Abs(float64(y[idx])-want) > tol {
						t.Fatalf("%s %T axpy4x4 n=%d groups=%d scs=%d alpha=%v: y[%d] = %v, want %v", name, y[0], n, groups, lay.scs, alpha, idx, y[idx], want)
					}
				}
			}
		}
	}
}

// TestAxpyStrip checks the strip kernel of every kernel set that has one
// against float64 loops: k from 0 (y += 0) past a few steps, coefficients
// strided both ways (the axpy form's rows of A and the axpyT form's
// columns of B), alpha applied once at the end, padded rows of x and y, and
// nothing beside the four output rows' strip written.
func TestAxpyStrip(t *testing.T) {
	for _, im := range append([]*impl{genericImpl}, tiers...) {
		testAxpyStrip(t, im.name, im.f32)
		testAxpyStrip(t, im.name, im.f64)
	}
}

func testAxpyStrip[T float](t *testing.T, name string, ks *kernels[T]) {
	if ks.axpyStrip == nil {
		return
	}
	rng := rand.New(rand.NewPCG(24, 25))
	w := ks.stripWidth
	for _, k := range []int{0, 1, 2, 5, 17} {
		for _, st := range [][2]int{{1, 19}, {6, 1}} { // scs, srs
			scs, srs := st[0], st[1]
			ldx, ldy := w+3, w+5
			x := uniform[T](rng, k*ldx+w, 1)
			s := uniform[T](rng, 3*srs+max(k-1, 0)*scs+1, 2)
			// y: four rows of ldy with a sentinel before and after.
			y := uniform[T](rng, 4*ldy+2, 1)
			y0 := append([]T(nil), y...)
			const alpha = -1.25
			pf := 64 * ldx // bytes, past the end of x: prefetches never fault
			ks.axpyStrip(k, &s[0], scs, srs, &x[0], ldx, &y[1], ldy, pf, alpha)
			tol := tolerance[T](k+1) * 8
			for idx := range y {
				want := float64(y0[idx])
				q, j := (idx-1)/ldy, (idx-1)%ldy
				if idx >= 1 && q < 4 && j < w {
					sum := 0.0
					for p := range k {
						sum += float64(s[q*srs+p*scs]) * float64(x[p*ldx+j])
					}
					want += alpha * sum
				}
				if math.Abs(float64(y[idx])-want) > tol {
					t.Fatalf("%s %T axpyStrip k=%d scs=%d srs=%d: y[%d] = %v, want %v", name, y[0], k, scs, srs, idx, y[idx], want)
				}
			}
		}
	}
}

// TestStripShapes runs the axpy form (few rows of C, B untransposed; few
// columns, A transposed) under each CPU's strip shape (see stripShape), on
// whatever machine the test runs: the strip kernel from four or from five
// output rows, in calls of 32 or 256 rows of the long operand, so k spans
// one partial call, several calls and a partial last one, on one goroutine
// and on three (pieces of the k range that end inside a call).
func TestStripShapes(t *testing.T) {
	rows, ks := []int{4, 7, 8, 9, 12}, []int{31, 300, 600}
	if testing.Short() {
		rows, ks = []int{4, 9}, []int{300}
	}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	for _, im := range tiers {
		if im.f32.axpyStrip == nil {
			continue
		}
		if im.f32.stripMinRows < 4 || im.f32.stripRows <= 0 || im.f64.stripMinRows < 4 || im.f64.stripRows <= 0 {
			t.Fatalf("%s: strip shape %d/%d rows (f32), %d/%d (f64): the strips need at least four output rows and a positive call height",
				im.name, im.f32.stripMinRows, im.f32.stripRows, im.f64.stripMinRows, im.f64.stripRows)
		}
		withKernel(t, im.name, func() {
			f32, f64 := *im.f32, *im.f64
			defer func() { *im.f32, *im.f64 = f32, f64 }()
			for _, shape := range [][3]int{{4, 32, 0}, {5, 256, 0}, {4, 32, 8192}} {
				im.f32.stripMinRows, im.f32.stripRows = shape[0], shape[1]
				im.f64.stripMinRows, im.f64.stripRows = shape[0], shape[1]
				im.f32.axpyRowBytes, im.f64.axpyRowBytes = shape[2], shape[2]
				for _, procs := range []int{1, 3} {
					runtime.GOMAXPROCS(procs)
					i := 0
					for _, r := range rows {
						for _, k := range ks {
							i++
							tc := gemmCase{m: r, n: 1000, k: k, padA: i % 2, padB: 1, padC: i % 3, offB: 1,
								alpha: 1.5, beta: 0.5, seed: uint64(30 + i)}
							if i%2 == 1 { // few columns of C, A transposed
								tc.transA, tc.m, tc.n = true, 1000, r
							}
							if !checkActive[float32](t, tc) || !checkActive[float64](t, tc) {
								t.Fatalf("%s, strip shape %v, %d goroutines", im.name, shape, procs)
							}
						}
					}
				}
			}
		})
	}
}

// TestNoAllocations checks that, once the pools are warm, products on the
// packed path (single and multi-goroutine) and on every unpacked form
// allocate nothing.
func TestNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	shapes := []benchShape{
		{m: 128, n: 128, k: 128}, {m: 40, n: 40, k: 40},
		{m: 4, n: 512, k: 512}, {m: 512, n: 4, k: 512}, {m: 4, n: 512, k: 512, transB: true},
		{m: 512, n: 4, k: 512, transA: true}, {m: 1, n: 512, k: 512}, {m: 512, n: 1, k: 512},
		{m: 3, n: 200, k: 300, transA: true, transB: true},
	}
	for _, s := range shapes {
		a, b, c, lda, ldb := benchOperands[float32](s)
		a64, b64, c64, _, _ := benchOperands[float64](s)
		f := func() {
			_ = F32(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, b, ldb, 0, c, s.n)
			_ = F64(s.transA, s.transB, s.m, s.n, s.k, 1, a64, lda, b64, ldb, 0.5, c64, s.n)
		}
		f()
		if n := testing.AllocsPerRun(50, f); n > 0 {
			t.Errorf("%v: %v allocations per call", s, n)
		}
	}
}

// TestPartitionBalance checks the row split of the packed path: every
// goroutine gets the same number of row panels where the panels divide
// evenly (128 rows of 14 on two goroutines: ten blocks of one panel), and
// the usual split stands where it is already balanced.
func TestPartitionBalance(t *testing.T) {
	cases := []struct{ m, mr, mc, procs, blocks, chunks int }{
		{128, 14, 140, 2, 10, 1}, // ten panels, five each
		{1024, 14, 1022, 2, 8, 1},
		{128, 14, 140, 1, 1, 1},
		{14, 14, 140, 2, 1, 8}, // one panel: split the columns
	}
	for _, c := range cases {
		b, ch := partition(c.m, c.mr, c.mc, c.procs)
		if b != c.blocks || ch != c.chunks {
			t.Errorf("partition(m=%d, mr=%d, mc=%d, procs=%d) = %d blocks, %d chunks; want %d, %d",
				c.m, c.mr, c.mc, c.procs, b, ch, c.blocks, c.chunks)
		}
	}
}

// TestEdgeMicroKernels runs the micro-kernel checks (testMicro: every k up
// to 70, beta 0 over NaN, 1 and -0.5, nothing written outside the tile) on
// each tier's edge kernels, the narrower tiles of short last row panels.
func TestEdgeMicroKernels(t *testing.T) {
	for _, im := range tiers {
		testEdges(t, im.name, im.f32)
		testEdges(t, im.name, im.f64)
	}
}

func testEdges[T float](t *testing.T, name string, ks *kernels[T]) {
	for _, e := range ks.edges {
		ek := *ks
		ek.mr, ek.micro = e.mr, e.micro
		testMicro(t, fmt.Sprintf("%s edge %dx%d", name, e.mr, ks.nr), &ek)
	}
}

// TestDot4x4 checks the four-by-four dot products of every kernel set that
// has them against float64 sums, for lengths around the vector widths and
// the masked tail and beyond several of dot4x4Y's stretches (1 KiB of
// each row, taken by one pair of rows of x and then the other),
// with leading dimensions larger than n, fetching ahead or not.
func TestDot4x4(t *testing.T) {
	for _, im := range append([]*impl{genericImpl}, tiers...) {
		testDot4x4(t, im.name, im.f32)
		testDot4x4(t, im.name, im.f64)
	}
}

func testDot4x4[T float](t *testing.T, name string, ks *kernels[T]) {
	if ks.dot4x4 == nil {
		return
	}
	rng := rand.New(rand.NewPCG(24, 25))
	// Past 70, lengths around one to three 1 KiB stretches of float32 (two
	// to six of float64), ending in every kind of tail.
	lengths := []int{255, 256, 264, 516, 764, 780}
	for n := 1; n <= 70; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		ldx, ldy := n+1, n+n%5
		x := uniform[T](rng, 3*ldx+n, 1)
		y := uniform[T](rng, 3*ldy+n, 1)
		var out [16]T
		// Every other length fetches ahead, from rows spaced unlike x's
		// and y's, so that the fetch's registers must not leak into the
		// products.
		var pf *T
		if n%2 == 1 {
			pf = &y[n/2]
		}
		ks.dot4x4(n, &x[0], ldx, &y[0], ldy, &out, pf, 3+n%4)
		for q := range 4 {
			for r := range 4 {
				var want, scale float64
				for i := range n {
					p := float64(x[q*ldx+i]) * float64(y[r*ldy+i])
					want += p
					scale += math.Abs(p)
				}
				if d := math.Abs(float64(out[q*4+r]) - want); !(d <= tolerance[T](n)*scale+1e-300) {
					t.Fatalf("%s %T dot4x4 n=%d: out[%d,%d] = %v, want %v", name, out[0], n, q, r, out[q*4+r], want)
				}
			}
		}
	}
}

// uniform returns n values drawn uniformly from [-r, r).
func uniform[T float](rng *rand.Rand, n int, r float64) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = T(rng.Float64()*2*r - r)
	}
	return v
}

// TestGatherColumns checks every kernel set's column gathering (the
// assembly gather4 where a set has it, then the Go remainder) against
// direct indexing: columns 1..9, rows around the kernels' steps (4 and 8),
// padded leading dimensions, and dst entries past the gathered rows left
// alone.
func TestGatherColumns(t *testing.T) {
	for _, im := range append([]*impl{genericImpl}, tiers...) {
		testGatherColumns(t, im.name, im.f32)
		testGatherColumns(t, im.name, im.f64)
	}
}

func testGatherColumns[T float](t *testing.T, name string, ks *kernels[T]) {
	for cols := 1; cols <= 9; cols++ {
		for _, rows := range []int{0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33} {
			for _, pad := range []int{0, 3} {
				ld := cols + pad
				src := make([]T, max(rows*ld-pad, 0))
				for i := range src {
					src[i] = T(i + 1)
				}
				const sentinel = -7
				dst := make([]T, rows*cols+1)
				for i := range dst {
					dst[i] = sentinel
				}
				gatherColumns(ks, dst[:rows*cols], src, ld, rows, cols)
				for c := range cols {
					for p := range rows {
						if got, want := dst[c*rows+p], src[p*ld+c]; got != want {
							t.Fatalf("%s %T rows=%d cols=%d ld=%d: dst[%d] = %v, want %v", name, got, rows, cols, ld, c*rows+p, got, want)
						}
					}
				}
				if dst[rows*cols] != sentinel {
					t.Fatalf("%s %T rows=%d cols=%d ld=%d: wrote past the gathered rows", name, dst[0], rows, cols, ld)
				}
			}
		}
	}
}

// TestDotFormWithoutDot4x4 runs the dot form's four-row blocks through
// dot4 per row, as a kernel set without dot4x4 would (every assembly tier
// has one, and the generic tier's limits never give it a block): a copy of
// the best tier without dot4x4, on the shapes whose blocks stream A's rows
// (1024x4) or B's columns (4x1024, 9x100), against the float64 reference.
func TestDotFormWithoutDot4x4(t *testing.T) {
	if len(tiers) == 0 {
		t.Skip("no assembly tier")
	}
	best := tiers[len(tiers)-1]
	f32, f64 := *best.f32, *best.f64
	f32.dot4x4, f64.dot4x4 = nil, nil
	saved := tiers
	tiers = append(tiers[:len(tiers):len(tiers)], &impl{name: "no-dot4x4", f32: &f32, f64: &f64})
	defer func() { tiers = saved }()
	forEachType(t, func(t *testing.T, check func(gemmCase) bool) {
		for i, d := range [][3]int{{1024, 4, 64}, {1027, 8, 33}, {4, 1024, 64}, {9, 100, 17}} {
			tc := gemmCase{transA: i%2 == 1, transB: true, m: d[0], n: d[1], k: d[2],
				padA: 1, padB: 2, padC: 1, offA: 1, alpha: 1.5, beta: -0.5, nanPad: true, seed: 22}
			if !check(tc) {
				return
			}
		}
	})
}
