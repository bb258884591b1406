package gemm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// Tolerances, relative to the magnitude of the terms summed into each
// element, scale_ij = |alpha| * sum_p |a_ip||b_pj| + |beta||c_ij|:
//
//	float32: 1e-5 * sqrt(k)  (about 100 ulps at k=1, generous for
//	                          reassociated and fused sums)
//	float64: 1e-13 * sqrt(k)
func tolerance[T float](k int) float64 {
	s := math.Sqrt(float64(max(k, 1)))
	var zero T
	if any(zero) == any(float32(0)) {
		return 1e-5 * s
	}
	return 1e-13 * s
}

// kernelNames lists every implementation this binary can run; in a -race
// build only the one the library picked (the tiers differ in their
// kernels, not in the Go code that shares the work among goroutines, which
// is what the detector watches; the stages without -race run every tier).
func kernelNames() []string {
	if raceEnabled {
		return []string{Kernel()}
	}
	names := []string{genericImpl.name}
	for _, im := range tiers {
		names = append(names, im.name)
	}
	return names
}

// hasTier reports whether the named assembly implementation can run here.
func hasTier(name string) bool {
	for _, im := range tiers {
		if im.name == name {
			return true
		}
	}
	return false
}

// withKernel runs f with the named implementation active.
func withKernel(t testing.TB, name string, f func()) {
	t.Helper()
	prev := active.Load()
	defer active.Store(prev)
	if !useKernel(name) {
		t.Fatalf("kernel %q not available", name)
	}
	f()
}

// gemmCase is one product to check.
type gemmCase struct {
	transA, transB   bool
	m, n, k          int
	padA, padB, padC int // extra leading-dimension elements
	offA, offB, offC int // slices start this far into their backing array
	alpha, beta      float64
	nanC             bool // fill C with NaN (meaningful with beta == 0)
	nanPad           bool // fill ld padding of A and B with NaN
	seed             uint64
}

func (tc gemmCase) String() string {
	return fmt.Sprintf("tA=%t tB=%t m=%d n=%d k=%d pad=%d/%d/%d off=%d/%d/%d alpha=%g beta=%g",
		tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.padA, tc.padB, tc.padC,
		tc.offA, tc.offB, tc.offC, tc.alpha, tc.beta)
}

// operands holds the generated storage of one case.
type operands[T float] struct {
	a, b, c       []T // full backing arrays
	lda, ldb, ldc int
}

// fill makes a stored rows x cols matrix with leading dimension ld, starting
// off elements into its backing array; padding holds pad.
func fill[T float](rng *rand.Rand, rows, cols, ld, off int, pad T) []T {
	n := off
	if rows > 0 && cols > 0 {
		n += (rows-1)*ld + cols
	}
	s := make([]T, n)
	for i := range s {
		s[i] = pad
	}
	for i := range rows {
		for j := range cols {
			s[off+i*ld+j] = T(rng.Float64()*2 - 1)
		}
	}
	return s
}

func makeOperands[T float](tc gemmCase) operands[T] {
	rng := rand.New(rand.NewPCG(tc.seed, uint64(tc.m*1000003+tc.n*1009+tc.k)))
	ra, ca := stored(tc.transA, tc.m, tc.k)
	rb, cb := stored(tc.transB, tc.k, tc.n)
	var o operands[T]
	o.lda = max(1, ca) + tc.padA
	o.ldb = max(1, cb) + tc.padB
	o.ldc = max(1, tc.n) + tc.padC
	padVal := T(7) // finite but wrong: reading padding changes results
	if tc.nanPad {
		padVal = T(math.NaN())
	}
	o.a = fill(rng, ra, ca, o.lda, tc.offA, padVal)
	o.b = fill(rng, rb, cb, o.ldb, tc.offB, padVal)
	o.c = fill(rng, tc.m, tc.n, o.ldc, tc.offC, T(-3))
	if tc.nanC {
		for i := range o.c {
			o.c[i] = T(math.NaN())
		}
	}
	return o
}

// reference computes the expected C and the per-element error scale in
// float64 straight from the storage rules: op(A) and op(B) are gathered into
// dense float64 matrices, then multiplied with a plain i-p-j loop.
func reference[T float](tc gemmCase, o operands[T]) (want, scale []float64) {
	m, n, k := tc.m, tc.n, tc.k
	opA := make([]float64, m*k)
	for i := range m {
		for p := range k {
			if tc.transA {
				opA[i*k+p] = float64(o.a[tc.offA+p*o.lda+i])
			} else {
				opA[i*k+p] = float64(o.a[tc.offA+i*o.lda+p])
			}
		}
	}
	opB := make([]float64, k*n)
	for p := range k {
		for j := range n {
			if tc.transB {
				opB[p*n+j] = float64(o.b[tc.offB+j*o.ldb+p])
			} else {
				opB[p*n+j] = float64(o.b[tc.offB+p*o.ldb+j])
			}
		}
	}
	want = make([]float64, m*n)
	scale = make([]float64, m*n)
	for i := range m {
		w := want[i*n : i*n+n]
		sc := scale[i*n : i*n+n]
		for p := range k {
			x := opA[i*k+p]
			ax := math.Abs(x)
			brow := opB[p*n : p*n+n]
			for j, y := range brow {
				w[j] += x * y
				sc[j] += ax * math.Abs(y)
			}
		}
		for j := range w {
			w[j] *= tc.alpha
			sc[j] *= math.Abs(tc.alpha)
			if tc.beta != 0 {
				cv := float64(o.c[tc.offC+i*o.ldc+j])
				w[j] += tc.beta * cv
				sc[j] += math.Abs(tc.beta * cv)
			}
		}
	}
	return want, scale
}

// call runs F32 or F64 on the operands.
func call[T float](tc gemmCase, o operands[T]) error {
	switch a := any(o.a).(type) {
	case []float32:
		b := any(o.b).([]float32)
		c := any(o.c).([]float32)
		return F32(tc.transA, tc.transB, tc.m, tc.n, tc.k, float32(tc.alpha), a[tc.offA:], o.lda,
			b[tc.offB:], o.ldb, float32(tc.beta), c[tc.offC:], o.ldc)
	case []float64:
		b := any(o.b).([]float64)
		c := any(o.c).([]float64)
		return F64(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a[tc.offA:], o.lda,
			b[tc.offB:], o.ldb, tc.beta, c[tc.offC:], o.ldc)
	}
	panic("unreachable")
}

// checkCase runs one case under every kernel and compares every element of
// C with the reference; it also checks that A, B and the padding of C are
// untouched. It returns false after reporting the first mismatch.
func checkCase[T float](t testing.TB, tc gemmCase) bool {
	t.Helper()
	if !raceWatches(tc.m, tc.n, tc.k) {
		return true
	}
	o := makeOperands[T](tc)
	want, scale := reference(tc, o)
	for _, name := range kernelNames() {
		ok := true
		withKernel(t, name, func() {
			oc := o
			oc.c = append([]T(nil), o.c...)
			ok = checkResult(t, name, tc, oc, o.c, want, scale)
		})
		if !ok {
			return false
		}
	}
	return true
}

// checkActive runs one case under the active kernel only, without
// switching kernels, so it may run concurrently with other checks.
func checkActive[T float](t testing.TB, tc gemmCase) bool {
	t.Helper()
	o := makeOperands[T](tc)
	want, scale := reference(tc, o)
	oc := o
	oc.c = append([]T(nil), o.c...)
	return checkResult(t, Kernel(), tc, oc, o.c, want, scale)
}

// checkResult runs the case on o (whose C is a fresh copy of c0) and
// compares with want.
func checkResult[T float](t testing.TB, kernel string, tc gemmCase, o operands[T], c0 []T, want, scale []float64) bool {
	t.Helper()
	a0 := append([]T(nil), o.a...)
	b0 := append([]T(nil), o.b...)
	if err := call(tc, o); err != nil {
		t.Errorf("%s %v: unexpected error %v", kernel, tc, err)
		return false
	}
	if !sameBits(a0, o.a) || !sameBits(b0, o.b) {
		t.Errorf("%s %v: inputs A or B were modified", kernel, tc)
		return false
	}
	tol := tolerance[T](tc.k)
	inC := make([]bool, len(o.c))
	for i := range tc.m {
		for j := range tc.n {
			idx := tc.offC + i*o.ldc + j
			inC[idx] = true
			got := float64(o.c[idx])
			w := want[i*tc.n+j]
			if math.IsNaN(w) || math.IsInf(w, 0) {
				if !(math.IsNaN(w) && math.IsNaN(got)) && got != w {
					t.Errorf("%s %v: C[%d,%d] = %v, want %v", kernel, tc, i, j, got, w)
					return false
				}
				continue
			}
			if d := math.Abs(got - w); !(d <= tol*scale[i*tc.n+j]+1e-300) {
				t.Errorf("%s %v: C[%d,%d] = %v, want %v (|diff| %.3g > tol %.3g * scale %.3g)",
					kernel, tc, i, j, got, w, d, tol, scale[i*tc.n+j])
				return false
			}
		}
	}
	for idx := range o.c {
		if !inC[idx] && math.Float64bits(float64(o.c[idx])) != math.Float64bits(float64(c0[idx])) {
			t.Errorf("%s %v: element %d of C outside the matrix was written", kernel, tc, idx)
			return false
		}
	}
	return true
}

func sameBits[T float](x, y []T) bool {
	for i := range x {
		if math.Float64bits(float64(x[i])) != math.Float64bits(float64(y[i])) {
			return false
		}
	}
	return true
}

// forEachType runs f as a subtest per element type; check runs a case under
// every kernel.
func forEachType(t *testing.T, f func(t *testing.T, check func(gemmCase) bool)) {
	for _, typ := range []string{"f32", "f64"} {
		t.Run(typ, func(t *testing.T) {
			f(t, func(tc gemmCase) bool {
				if typ == "f32" {
					return checkCase[float32](t, tc)
				}
				return checkCase[float64](t, tc)
			})
		})
	}
}

var transCombos = [4][2]bool{{false, false}, {false, true}, {true, false}, {true, true}}

// raceWatches reports whether a case is worth running in a -race build:
// one the library may split among goroutines (packed or unpacked, by the
// rules it uses, for 8-byte elements, whose byte count is the larger), or
// any case without -race. A product computed on one goroutine gives the
// detector nothing to watch, and its instrumented reference takes most of
// the -race stage's time; the stages without -race run every case.
func raceWatches(m, n, k int) bool {
	return !raceEnabled || skinnyWorkers(m, n, k, 8) > 1
}

// TestAllMN checks every m, n in 1..70 at a few k, cycling through the four
// transpose combinations, paddings and offsets.
func TestAllMN(t *testing.T) {
	ks := []int{1, 5, 37, 70}
	if testing.Short() {
		ks = []int{5, 37}
	}
	forEachType(t, func(t *testing.T, check func(gemmCase) bool) {
		for m := 1; m <= 70; m++ {
			for n := 1; n <= 70; n++ {
				for ki, k := range ks {
					tr := transCombos[(m+n+ki)%4]
					tc := gemmCase{
						transA: tr[0], transB: tr[1], m: m, n: n, k: k,
						padA: (m + ki) % 3, padB: (n + ki) % 2, padC: (m * n) % 3,
						offA: m % 2, offB: n % 2, offC: (m + n) % 2,
						alpha: 1, beta: 0.5, seed: 1,
					}
					if !check(tc) {
						return
					}
				}
			}
		}
	})
}

// TestAllK checks every k in 1..70 and block-boundary k at a few m, n.
func TestAllK(t *testing.T) {
	var ks []int
	for k := 1; k <= 70; k++ {
		ks = append(ks, k)
	}
	ks = append(ks, 255, 256, 257, 511, 513)
	dims := [][2]int{{1, 1}, {6, 16}, {7, 17}, {16, 8}, {24, 40}, {37, 70}, {70, 9}, {13, 64}}
	forEachType(t, func(t *testing.T, check func(gemmCase) bool) {
		for _, k := range ks {
			for di, d := range dims {
				tr := transCombos[(k+di)%4]
				tc := gemmCase{
					transA: tr[0], transB: tr[1], m: d[0], n: d[1], k: k,
					padA: 1, padB: 2, padC: 3, offA: 1, offB: 1, offC: 1,
					alpha: -1.25, beta: 1, seed: 2,
				}
				if !check(tc) {
					return
				}
			}
		}
	})
}

// TestShapes checks prime, block-crossing and large shapes (these take the
// parallel path) under every transpose combination.
func TestShapes(t *testing.T) {
	shapes := [][3]int{
		{97, 101, 103}, {131, 67, 257}, {5, 300, 17}, {300, 5, 17},
		{1, 1000, 50}, {1000, 1, 50}, {1, 1, 1000}, {149, 151, 263},
		{289, 64, 513}, {64, 289, 300},
	}
	if !testing.Short() {
		shapes = append(shapes, [3]int{150, 4100, 300}, [3]int{600, 130, 520})
	}
	forEachType(t, func(t *testing.T, check func(gemmCase) bool) {
		for si, s := range shapes {
			for ti, tr := range transCombos {
				if s[0]*s[1]*s[2] > 10_000_000 && ti != si%4 {
					continue // the big ones take one combination each
				}
				tc := gemmCase{
					transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2],
					padA: ti, padB: 3 - ti, padC: si % 3, offA: ti % 2, offB: 1, offC: si % 2,
					alpha: 0.75, beta: -0.5, seed: 3, nanPad: true,
				}
				if !check(tc) {
					return
				}
			}
		}
	})
}

// TestAlphaBeta covers the alpha and beta special cases, including beta == 0
// over a C full of NaN (C must not be read) and alpha == 0 (A and B must not
// be read; their padding is NaN and would show).
func TestAlphaBeta(t *testing.T) {
	alphas := []float64{1, -1, 0.5, 2.5, 0}
	betas := []float64{0, 1, -1, 0.5, -2}
	shapes := [][3]int{{3, 5, 7}, {20, 33, 9}, {64, 64, 64}, {71, 45, 130}, {4, 100, 20}, {3, 700, 300}, {700, 3, 300}}
	forEachType(t, func(t *testing.T, check func(gemmCase) bool) {
		for _, s := range shapes {
			for ai, alpha := range alphas {
				for bi, beta := range betas {
					tr := transCombos[(ai+bi)%4]
					tc := gemmCase{
						transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2],
						padA: 1, padB: 1, padC: 2, offA: 1, offB: 0, offC: 1,
						alpha: alpha, beta: beta, seed: 4, nanPad: true,
						nanC: beta == 0,
					}
					if !check(tc) {
						return
					}
				}
			}
		}
	})
}

// TestZeroSizes checks m, n or k == 0: nothing happens, or C = beta*C.
func TestZeroSizes(t *testing.T) {
	forEachType(t, func(t *testing.T, check func(gemmCase) bool) {
		for _, s := range [][3]int{{0, 5, 3}, {5, 0, 3}, {0, 0, 0}, {4, 5, 0}, {30, 40, 0}} {
			for _, beta := range []float64{0, 1, 2} {
				for _, tr := range transCombos {
					tc := gemmCase{transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2],
						padC: 1, alpha: 1, beta: beta, seed: 5, nanC: beta == 0}
					if !check(tc) {
						return
					}
				}
			}
		}
	})
}

// TestParallelPartitions runs mid-size products under several GOMAXPROCS
// values so every way of splitting the work (row blocks, column chunks,
// uneven counts) is exercised.
func TestParallelPartitions(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	shapes := [][3]int{
		{50, 500, 100}, {200, 90, 100}, {12, 700, 64}, {97, 97, 300}, {400, 40, 40},
		// skinny: the unpacked path split by rows or columns
		{1, 3000, 200}, {3, 2000, 100}, {2000, 3, 100}, {700, 1, 900}, {4, 300, 2000},
		// many row blocks
		{1250, 40, 30},
	}
	for _, procs := range []int{1, 2, 3, 5, 8} {
		runtime.GOMAXPROCS(procs)
		forEachType(t, func(t *testing.T, check func(gemmCase) bool) {
			for si, s := range shapes {
				for ti, tr := range transCombos {
					if ti != (si+procs)%4 && s[0] > 4 && s[1] > 4 {
						continue // skinny shapes take all four, the rest one each
					}
					tc := gemmCase{transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2],
						padA: 2, padB: 1, padC: 1, offA: 1, offC: 1, alpha: 1.5, beta: 0.25, seed: 6}
					if !check(tc) {
						return
					}
				}
			}
		})
	}
}

// TestNaNInfPropagation puts a NaN in A and an Inf in B and checks that they
// reach exactly the row and column of C they should, on the unpacked and the
// packed paths.
func TestNaNInfPropagation(t *testing.T) {
	for _, name := range kernelNames() {
		withKernel(t, name, func() {
			for _, s := range [][3]int{{5, 9, 4}, {3, 40, 20}, {40, 3, 20}, {33, 47, 29}, {130, 70, 300}} {
				for _, tr := range transCombos {
					testNaNInf[float32](t, name, tr[0], tr[1], s[0], s[1], s[2])
					testNaNInf[float64](t, name, tr[0], tr[1], s[0], s[1], s[2])
				}
			}
		})
	}
}

func testNaNInf[T float](t *testing.T, kernel string, transA, transB bool, m, n, k int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, uint64(m*n*k)))
	ra, ca := stored(transA, m, k)
	rb, cb := stored(transB, k, n)
	a := fill[T](rng, ra, ca, ca, 0, 0)
	b := fill[T](rng, rb, cb, cb, 0, 0)
	// Keep every product nonzero so Inf*x never becomes NaN by 0*Inf.
	for i := range a {
		a[i] = T(0.5 + rng.Float64())
	}
	for i := range b {
		b[i] = T(0.5 + rng.Float64())
	}
	nanRow, infCol, p := m/2, n-1, k/3
	if transA {
		a[p*ca+nanRow] = T(math.NaN())
	} else {
		a[nanRow*ca+p] = T(math.NaN())
	}
	if transB {
		b[infCol*cb+p] = T(math.Inf(1))
	} else {
		b[p*cb+infCol] = T(math.Inf(1))
	}
	c := make([]T, m*n)
	tc := gemmCase{transA: transA, transB: transB, m: m, n: n, k: k, alpha: 1, beta: 0}
	if err := call(tc, operands[T]{a: a, b: b, c: c, lda: ca, ldb: cb, ldc: n}); err != nil {
		t.Fatal(err)
	}
	for i := range m {
		for j := range n {
			v := float64(c[i*n+j])
			switch {
			case i == nanRow:
				if !math.IsNaN(v) {
					t.Fatalf("%s %T %v: C[%d,%d] = %v, want NaN", kernel, c[0], tc, i, j, v)
				}
			case j == infCol:
				if !math.IsInf(v, 1) {
					t.Fatalf("%s %T %v: C[%d,%d] = %v, want +Inf", kernel, c[0], tc, i, j, v)
				}
			default:
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s %T %v: C[%d,%d] = %v, want finite", kernel, c[0], tc, i, j, v)
				}
			}
		}
	}
}

// TestErrors checks that bad arguments return errors of the right kind and
// leave C untouched, for both element types.
func TestErrors(t *testing.T) {
	type args struct {
		name             string
		tA, tB           bool
		m, n, k          int
		la, lda, lb, ldb int
		lc, ldc          int
		kind             error
	}
	cases := []args{
		{"negative m", false, false, -1, 2, 2, 4, 2, 4, 2, 4, 2, errs.ErrShape},
		{"negative n", false, false, 2, -1, 2, 4, 2, 4, 2, 4, 2, errs.ErrShape},
		{"negative k", false, false, 2, 2, -3, 4, 2, 4, 2, 4, 2, errs.ErrShape},
		{"lda < k", false, false, 2, 2, 3, 6, 2, 6, 2, 4, 2, errs.ErrValue},
		{"lda < m (transA)", true, false, 3, 2, 2, 6, 2, 4, 2, 6, 2, errs.ErrValue},
		{"ldb < n", false, false, 2, 3, 2, 4, 2, 6, 2, 6, 3, errs.ErrValue},
		{"ldb < k (transB)", false, true, 2, 2, 3, 6, 3, 6, 2, 4, 2, errs.ErrValue},
		{"ldc < n", false, false, 2, 3, 2, 4, 2, 6, 3, 6, 2, errs.ErrValue},
		{"lda = 0", false, false, 0, 0, 0, 0, 0, 0, 1, 0, 1, errs.ErrValue},
		{"short a", false, false, 2, 2, 2, 3, 2, 4, 2, 4, 2, errs.ErrShape},
		{"short a with lda", false, false, 2, 2, 2, 5, 4, 4, 2, 4, 2, errs.ErrShape},
		{"short b", false, false, 2, 2, 2, 4, 2, 3, 2, 4, 2, errs.ErrShape},
		{"short b (transB)", false, true, 2, 3, 2, 4, 2, 5, 2, 6, 3, errs.ErrShape},
		{"short c", false, false, 2, 2, 2, 4, 2, 4, 2, 3, 2, errs.ErrShape},
		{"short c with ldc", false, false, 2, 2, 2, 4, 2, 4, 2, 4, 5, errs.ErrShape},
		{"huge ld overflows", false, false, 3, 2, 2, 4, math.MaxInt / 2, 4, 2, 6, 2, errs.ErrShape},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c32 := make([]float32, tc.lc)
			err := F32(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, make([]float32, tc.la), tc.lda,
				make([]float32, tc.lb), tc.ldb, 0, c32, tc.ldc)
			if !errors.Is(err, tc.kind) {
				t.Errorf("F32: err = %v, want kind %v", err, tc.kind)
			}
			c64 := make([]float64, tc.lc)
			err = F64(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, make([]float64, tc.la), tc.lda,
				make([]float64, tc.lb), tc.ldb, 0, c64, tc.ldc)
			if !errors.Is(err, tc.kind) {
				t.Errorf("F64: err = %v, want kind %v", err, tc.kind)
			}
		})
	}
	// Exactly long enough is fine, including nil slices for empty matrices.
	if err := F32(false, false, 0, 0, 0, 1, nil, 1, nil, 1, 0, nil, 1); err != nil {
		t.Errorf("empty product: %v", err)
	}
	if err := F64(true, true, 2, 3, 0, 1, nil, 2, nil, 1, 0, make([]float64, 8), 4); err != nil {
		t.Errorf("k = 0 with padded C: %v", err)
	}
}

// TestKernelName checks Kernel and the TESSERA_CPU selection rule.
func TestKernelName(t *testing.T) {
	// The kernel init chose from TESSERA_CPU; reading it here, in a test,
	// also makes go test's cache key on it (reads in init are not
	// recorded), so a cached run under another tier is never reused.
	if env := os.Getenv("TESSERA_CPU"); active.Load() != implFor(env) {
		t.Errorf("TESSERA_CPU=%q: init chose %q, want %q", env, active.Load().name, implFor(env).name)
	}
	prev := active.Load()
	defer active.Store(prev)
	chooseImpl("generic")
	if got := Kernel(); got != "generic" {
		t.Errorf("TESSERA_CPU=generic: Kernel() = %q", got)
	}
	chooseImpl("")
	want := "generic"
	if fastImpl != nil {
		want = fastImpl.name
	}
	if got := Kernel(); got != want {
		t.Errorf("default: Kernel() = %q, want %q", got, want)
	}
	// TESSERA_CPU=avx2 stops at the AVX2 tier (or generic without it).
	want = "generic"
	for _, im := range tiers {
		if im.name == "avx2-fma" {
			want = im.name
		}
	}
	for _, env := range []string{"avx2", " AVX2 "} {
		chooseImpl(env)
		if got := Kernel(); got != want {
			t.Errorf("TESSERA_CPU=%q: Kernel() = %q, want %q", env, got, want)
		}
	}
	if hasTier("avx512") && tiers[0].name != "avx512" {
		t.Errorf("avx512 is available but not the first tier: %q", tiers[0].name)
	}
	if useKernel("no-such-kernel") {
		t.Errorf("useKernel accepted an unknown name")
	}
}

// FuzzF32 drives shapes, layouts and scalars through F32 under every kernel
// and compares with the float64 reference.
func FuzzF32(f *testing.F) {
	f.Add(uint8(3), uint8(5), uint8(7), uint8(0), uint8(0), uint8(0), false, false, uint8(1), float32(1), float32(0), uint64(1))
	f.Add(uint8(17), uint8(33), uint8(65), uint8(1), uint8(2), uint8(3), true, false, uint8(0), float32(-0.5), float32(1), uint64(2))
	f.Add(uint8(70), uint8(6), uint8(16), uint8(0), uint8(5), uint8(1), false, true, uint8(3), float32(2), float32(-1), uint64(3))
	f.Add(uint8(1), uint8(90), uint8(200), uint8(3), uint8(0), uint8(0), true, true, uint8(2), float32(1), float32(0.5), uint64(4))
	f.Fuzz(func(t *testing.T, m, n, k, padA, padB, padC uint8, tA, tB bool, off uint8, alpha, beta float32, seed uint64) {
		if math.IsNaN(float64(alpha)) || math.IsInf(float64(alpha), 0) || math.Abs(float64(alpha)) > 1e6 ||
			math.IsNaN(float64(beta)) || math.IsInf(float64(beta), 0) || math.Abs(float64(beta)) > 1e6 {
			t.Skip()
		}
		tc := gemmCase{
			transA: tA, transB: tB, m: int(m % 130), n: int(n % 130), k: int(k),
			padA: int(padA % 8), padB: int(padB % 8), padC: int(padC % 8),
			offA: int(off & 1), offB: int(off>>1) & 1, offC: int(off>>2) & 1,
			alpha: float64(alpha), beta: float64(beta), seed: seed,
			nanC: beta == 0,
		}
		if !checkCase[float32](t, tc) {
			t.FailNow()
		}
	})
}

// TestPack checks every kernel set's packer against the definition
// dst[p*width+r] = src[off+r*rs+p*cs] (zero for r >= rows), for both
// storage orders, full and edge panels, and step counts around the
// assembly block sizes.
func TestPack(t *testing.T) {
	impls := append([]*impl{genericImpl}, tiers...)
	for _, im := range impls {
		testPack(t, im.name, im.f32)
		testPack(t, im.name, im.f64)
	}
}

func testPack[T float](t *testing.T, name string, ks *kernels[T]) {
	for _, width := range []int{ks.mr, ks.nr} {
		for _, rows := range []int{width, width - 1, 1} {
			for kc := 1; kc <= 70; kc++ {
				for _, colMajor := range []bool{false, true} {
					// colMajor: rows are contiguous along p (cs == 1).
					rs, cs := 1, width+3
					if colMajor {
						rs, cs = kc+2, 1
					}
					off := 5
					n := off + (rows-1)*rs + (kc-1)*cs + 1
					src := make([]T, n)
					for i := range src {
						src[i] = T(i + 1)
					}
					dst := make([]T, kc*width+3)
					for i := range dst {
						dst[i] = -1
					}
					ks.pack(dst[:kc*width], src, off, rs, cs, rows, width, kc)
					for p := range kc {
						for r := range width {
							want := T(0)
							if r < rows {
								want = src[off+r*rs+p*cs]
							}
							if got := dst[p*width+r]; got != want {
								t.Fatalf("%s %T width=%d rows=%d kc=%d rs=%d cs=%d: dst[%d*%d+%d] = %v, want %v",
									name, got, width, rows, kc, rs, cs, p, width, r, got, want)
							}
						}
					}
					for i := kc * width; i < len(dst); i++ {
						if dst[i] != -1 {
							t.Fatalf("%s width=%d rows=%d kc=%d: wrote past the panel", name, width, rows, kc)
						}
					}
				}
			}
		}
	}
}

// TestConcurrentCalls runs products from several goroutines at once (each
// itself parallel), as the CPU backend will; run it with -race.
func TestConcurrentCalls(t *testing.T) {
	shapes := []gemmCase{
		{m: 130, n: 70, k: 300, alpha: 1, beta: 0.5, seed: 8},
		{m: 3, n: 900, k: 100, alpha: 1, beta: 0, seed: 9, transB: true},
		{m: 64, n: 200, k: 64, alpha: -1, beta: 1, seed: 10, transA: true},
		{m: 500, n: 5, k: 200, alpha: 2, beta: 0, seed: 11, transA: true},
	}
	before := active.Load()
	done := make(chan bool)
	for g := range 8 {
		go func() {
			ok := true
			for r := range 3 {
				tc := shapes[(g+r)%len(shapes)]
				if g%2 == 0 {
					ok = ok && checkActive[float32](t, tc)
				} else {
					ok = ok && checkActive[float64](t, tc)
				}
			}
			done <- ok
		}()
	}
	for range 8 {
		<-done
	}
	if after := active.Load(); after != before {
		t.Errorf("active kernel changed from %q to %q", before.name, after.name)
	}
}

// TestVectorKernels checks axpy, axpy4, dot and dot4 of every kernel set against
// float64 loops, for lengths around the vector and unroll widths.
func TestVectorKernels(t *testing.T) {
	impls := append([]*impl{genericImpl}, tiers...)
	for _, im := range impls {
		testVectorKernels(t, im.name, im.f32)
		testVectorKernels(t, im.name, im.f64)
	}
}

func testVectorKernels[T float](t *testing.T, name string, ks *kernels[T]) {
	rng := rand.New(rand.NewPCG(12, 13))
	for n := 1; n <= 70; n++ {
		ldy := n + n%3
		x := make([]T, n)
		y := make([]T, 3*ldy+n)
		for i := range x {
			x[i] = T(rng.Float64()*2 - 1)
		}
		for i := range y {
			y[i] = T(rng.Float64()*2 - 1)
		}
		tol := tolerance[T](n) * float64(n)
		var out [4]T
		ks.dot4(n, &x[0], &y[0], ldy, &out)
		for r := range 4 {
			var want float64
			for i := range n {
				want += float64(x[i]) * float64(y[r*ldy+i])
			}
			if d := math.Abs(float64(out[r]) - want); d > tol {
				t.Fatalf("%s %T dot4 n=%d row %d: %v, want %v", name, out[0], n, r, out[r], want)
			}
			if got := ks.dot(n, &x[0], &y[r*ldy]); math.Abs(float64(got)-want) > tol {
				t.Fatalf("%s %T dot n=%d: %v, want %v", name, got, n, got, want)
			}
		}
		y4 := append([]T(nil), x...)
		s4 := [4]T{0.5, -1, 2, 0.25}
		ks.axpy4(n, &s4, &y[0], ldy, &y4[0])
		for i := range n {
			want := float64(x[i])
			for r := range 4 {
				want += float64(s4[r]) * float64(y[r*ldy+i])
			}
			if math.Abs(float64(y4[i])-want) > tol*4 {
				t.Fatalf("%s %T axpy4 n=%d: y[%d] = %v, want %v", name, y4[0], n, i, y4[i], want)
			}
		}
		y0 := append([]T(nil), y...)
		ks.axpy(n, 0.5, &x[0], &y[1])
		for i := range y {
			want := float64(y0[i])
			if i >= 1 && i <= n {
				want += 0.5 * float64(x[i-1])
			}
			if math.Abs(float64(y[i])-want) > tol {
				t.Fatalf("%s %T axpy n=%d: y[%d] = %v, want %v", name, y[0], n, i, y[i], want)
			}
		}
	}
}

// TestTileEdges checks, for every assembly tier (AVX-512 included where the
// CPU has it), products whose sizes sit on and around that tier's register
// tile (mr, nr) and cache blocks (kc, mc, nc): full tiles, one short, one
// over, k = 1, under all four transpose combinations, with leading
// dimensions larger than the columns, offset slices, and alpha/beta
// (including beta = 0 over a C of NaN), on the packed path (packedOnly:
// the tile edges are its). Every case runs on every kernel and is compared
// with the float64 reference within tolerance (see tolerance).
func TestTileEdges(t *testing.T) {
	defer packedOnly()()
	for _, im := range tiers {
		t.Run(im.name, func(t *testing.T) {
			t.Run("f32", func(t *testing.T) { testTileEdges(t, im.f32) })
			t.Run("f64", func(t *testing.T) { testTileEdges(t, im.f64) })
		})
	}
}

// packedOnly turns the axpy form's extra rows off on every tier (axpyM),
// so that products of a few dozen rows take the packed path, whose edge
// tiles a test is after, and returns the function that turns them on.
func packedOnly() (restore func()) {
	saved := make([][2]int, len(tiers))
	for i, im := range tiers {
		saved[i] = [2]int{im.f32.axpyM, im.f64.axpyM}
		im.f32.axpyM, im.f64.axpyM = 0, 0
	}
	return func() {
		for i, im := range tiers {
			im.f32.axpyM, im.f64.axpyM = saved[i][0], saved[i][1]
		}
	}
}

func testTileEdges[T float](t *testing.T, ks *kernels[T]) {
	mr, nr, kc := ks.mr, ks.nr, ks.kc
	ms := []int{mr - 1, mr, mr + 1, 2*mr + 3, 5*mr - 1}
	ns := []int{nr - 1, nr, nr + 1, 2*nr + 5, 3*nr - 1}
	kks := []int{1, 2, 3, 4, 5, 15, 16, 17, 33}
	scalars := [][2]float64{{1, 0}, {-0.5, 1}, {2, -0.75}, {1, 0.5}}
	i := 0
	for _, m := range ms {
		for _, n := range ns {
			for _, k := range kks {
				i++
				tr := transCombos[i%4]
				sc := scalars[(i/4)%len(scalars)]
				tc := gemmCase{
					transA: tr[0], transB: tr[1], m: m, n: n, k: k,
					padA: 1 + i%3, padB: 2 + i%2, padC: 3, offA: i % 2, offB: (i / 2) % 2, offC: 1,
					alpha: sc[0], beta: sc[1], nanC: sc[1] == 0, nanPad: true, seed: uint64(20 + i),
				}
				if !checkCase[T](t, tc) {
					return
				}
			}
		}
	}
	// k around the cache block: one k block, a sliver over, several blocks.
	for j, k := range []int{kc - 1, kc, kc + 1, 2*kc + 3} {
		for ti, tr := range transCombos {
			tc := gemmCase{
				transA: tr[0], transB: tr[1], m: 2*mr + 1 + ti, n: 2*nr - 1 + j, k: k,
				padA: 2, padB: 1, padC: 2, offA: 1, offC: 1,
				alpha: 1.5, beta: -1, nanPad: true, seed: uint64(60 + 4*j + ti),
			}
			if !checkCase[T](t, tc) {
				return
			}
		}
	}
	// m and n around the row and column blocks (small k keeps it cheap).
	for j, s := range [][2]int{{ks.mc - 1, nr + 3}, {ks.mc + 1, 2*nr - 1}, {mr + 2, ks.nc + 1}} {
		tr := transCombos[j%4]
		tc := gemmCase{
			transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: 7,
			padA: 1, padB: 3, padC: 1, alpha: -1, beta: 0.25, seed: uint64(80 + j),
		}
		if !checkCase[T](t, tc) {
			return
		}
	}
}

// TestMicroKernels calls every micro-kernel directly for k = 0..70 on
// random panels, with beta 0 (C full of NaN must not be read), 1 and -0.5,
// and a leading dimension larger than the tile, and compares each element
// with a float64 sum, also checking that nothing outside the tile is
// written.
func TestMicroKernels(t *testing.T) {
	for _, im := range append([]*impl{genericImpl}, tiers...) {
		testMicro(t, im.name, im.f32)
		testMicro(t, im.name, im.f64)
	}
}

func testMicro[T float](t *testing.T, name string, ks *kernels[T]) {
	rng := rand.New(rand.NewPCG(30, 31))
	mr, nr := ks.mr, ks.nr
	ldc := nr + 5
	for k := 0; k <= 70; k++ {
		ap := make([]T, mr*k+1)
		bp := make([]T, nr*k+1)
		for i := range ap {
			ap[i] = T(rng.Float64()*2 - 1)
		}
		for i := range bp {
			bp[i] = T(rng.Float64()*2 - 1)
		}
		for _, beta := range []T{0, 1, -0.5} {
			c := make([]T, mr*ldc+3)
			for i := range c {
				c[i] = T(rng.Float64()*2 - 1)
				if beta == 0 && i%ldc < nr && i < mr*ldc {
					c[i] = T(math.NaN())
				}
			}
			c0 := append([]T(nil), c...)
			const alpha = 0.75
			ks.micro(k, &ap[0], &bp[0], &c[0], ldc, alpha, beta)
			for idx := range c {
				r, j := idx/ldc, idx%ldc
				if r >= mr || j >= nr {
					if math.Float64bits(float64(c[idx])) != math.Float64bits(float64(c0[idx])) {
						t.Fatalf("%s %T k=%d: wrote C[%d] outside the tile", name, c[0], k, idx)
					}
					continue
				}
				var want, scale float64
				for p := range k {
					x, y := float64(ap[p*mr+r]), float64(bp[p*nr+j])
					want += x * y
					scale += math.Abs(x * y)
				}
				want *= alpha
				scale *= alpha
				if beta != 0 {
					want += float64(beta) * float64(c0[idx])
					scale += math.Abs(float64(beta) * float64(c0[idx]))
				}
				if d := math.Abs(float64(c[idx]) - want); !(d <= tolerance[T](k)*scale+1e-300) {
					t.Fatalf("%s %T k=%d beta=%v: C[%d,%d] = %v, want %v", name, c[0], k, beta, r, j, c[idx], want)
				}
			}
		}
	}
}
