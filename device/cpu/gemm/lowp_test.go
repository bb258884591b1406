package gemm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// lowpVariants lists every way this binary can run BF16 and F16: each
// kernel tier and, on the AVX-512 tier, each forced bf16 path the CPU
// supports ("avx512/widen", "avx512/vdpbf16ps"; plain "avx512" is the
// default path, AMX where available); in a -race build only the default
// (see kernelNames).
func lowpVariants() []string {
	names := kernelNames()
	if raceEnabled || !hasTier("avx512") {
		return names
	}
	for _, p := range []string{"widen", "vdpbf16ps"} {
		withLowpPath("avx512", p, func() {
			if p == "widen" || LowPrecisionKernel() == p {
				names = append(names, "avx512/"+p)
			}
		})
	}
	return names
}

// withLowp runs f with a variant of lowpVariants active.
func withLowp(t testing.TB, variant string, f func()) {
	t.Helper()
	name, path, _ := strings.Cut(variant, "/")
	withKernel(t, name, func() { withLowpPath(name, path, f) })
}

func withLowpPath(name, path string, f func()) {
	prevImpl := active.Load()
	defer active.Store(prevImpl)
	useKernel(name)
	prev := setBF16Path(path)
	defer setBF16Path(prev)
	f()
}

// lowpCase is one product in bf16 or f16.
type lowpCase struct {
	transA, transB bool
	m, n, k        int
	pad            int // extra leading-dimension elements of A, B and C
	alpha, beta    float32
}

func (c lowpCase) String() string {
	return fmt.Sprintf("tA=%t tB=%t %dx%dx%d pad=%d alpha=%g beta=%g", c.transA, c.transB, c.m, c.n, c.k, c.pad, c.alpha, c.beta)
}

// lowpCases covers tile edges (m, n not multiples of 14, 32 or 2), odd k
// (a half-filled last bf16 pair), k past one cache block (several k
// blocks, so C accumulates across them), the skinny path, every transpose
// combination and alpha/beta other than 1/0.
func lowpCases() []lowpCase {
	var cs []lowpCase
	shapes := [][3]int{
		{1, 1, 1}, {3, 5, 7}, {2, 300, 17}, {300, 3, 18}, // skinny: unpacked path (mostly packed on AVX-512: lowpSkinnyPacked)
		{14, 32, 1}, {32, 32, 32}, {33, 35, 3}, {45, 70, 33},
		{64, 64, 64}, {100, 37, 129}, {31, 97, 600}, {130, 66, 1100},
	}
	for i, s := range shapes {
		for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			cs = append(cs, lowpCase{transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2], pad: i % 3, alpha: 1, beta: 0})
		}
	}
	for _, ab := range [][2]float32{{1, 1}, {0.5, -2}, {-1, 0}, {2, 0.25}} {
		cs = append(cs, lowpCase{m: 70, n: 45, k: 77, pad: 1, alpha: ab[0], beta: ab[1]},
			lowpCase{transA: true, m: 40, n: 66, k: 700, alpha: ab[0], beta: ab[1]})
	}
	return cs
}

// halfOps are the conversions of one 16-bit format.
type halfOps[H dtype.Float16 | dtype.BFloat16] struct {
	name  string
	round func(float64) H
	value func(H) float32
	gemm  func(transA, transB bool, m, n, k int, alpha float32, a []H, lda int, b []H, ldb int, beta float32, c []float32, ldc int) error
}

var (
	bf16Ops = halfOps[dtype.BFloat16]{"BF16", dtype.BF16FromFloat64, dtype.BFloat16.Float32, BF16}
	f16Ops  = halfOps[dtype.Float16]{"F16", dtype.F16FromFloat64, dtype.Float16.Float32, F16}
)

// checkLowp runs one case and compares every element of C with the float64
// product of the rounded inputs. Tolerance: a float32 sum of k products
// (exact in float32) rounds at most k times, plus alpha and beta, so
// |err| <= (k+3) * 2^-24 * scale with scale = |alpha| sum |a||b| + |beta||c|;
// the bound used is twice that (the tile unit may round each pair's two
// products separately).
func checkLowp[H dtype.Float16 | dtype.BFloat16](t *testing.T, ops halfOps[H], variant string, tc lowpCase) bool {
	t.Helper()
	if !raceWatches(tc.m, tc.n, tc.k) {
		return true
	}
	rng := rand.New(rand.NewPCG(uint64(tc.m*1000003+tc.n*1009+tc.k), 7))
	ra, ca := stored(tc.transA, tc.m, tc.k)
	rb, cb := stored(tc.transB, tc.k, tc.n)
	lda, ldb, ldc := ca+tc.pad, cb+tc.pad, tc.n+tc.pad
	mk := func(rows, cols, ld int) []H {
		s := make([]H, max(rows*ld, 1))
		for i := range s {
			if i%ld < cols {
				s[i] = ops.round(rng.Float64()*2 - 1)
			} else {
				s[i] = ops.round(math.NaN()) // padding must not be read
			}
		}
		return s
	}
	a, b := mk(ra, ca, lda), mk(rb, cb, ldb)
	c := make([]float32, max(tc.m*ldc, 1))
	for i := range c {
		c[i] = float32(rng.Float64()*2 - 1)
	}
	c0 := append([]float32(nil), c...)
	at := func(i, p int) float64 {
		if tc.transA {
			return float64(ops.value(a[p*lda+i]))
		}
		return float64(ops.value(a[i*lda+p]))
	}
	bt := func(p, j int) float64 {
		if tc.transB {
			return float64(ops.value(b[j*ldb+p]))
		}
		return float64(ops.value(b[p*ldb+j]))
	}
	if err := ops.gemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc); err != nil {
		t.Errorf("%s %s %v: %v", ops.name, variant, tc, err)
		return false
	}
	bound := 2 * float64(tc.k+3) * 0x1p-24
	for i := range tc.m {
		for j := range tc.n {
			var sum, scale float64
			for p := range tc.k {
				x := at(i, p) * bt(p, j)
				sum += x
				scale += math.Abs(x)
			}
			al, be := float64(tc.alpha), float64(tc.beta)
			want := al * sum
			scale *= math.Abs(al)
			if be != 0 {
				want += be * float64(c0[i*ldc+j])
				scale += math.Abs(be * float64(c0[i*ldc+j]))
			}
			got := float64(c[i*ldc+j])
			if !(math.Abs(got-want) <= bound*scale) {
				t.Errorf("%s %s %v: C[%d,%d] = %g, want %g (tolerance %.3g)", ops.name, variant, tc, i, j, got, want, bound*scale)
				return false
			}
		}
		for j := tc.n; j < ldc; j++ {
			if c[i*ldc+j] != c0[i*ldc+j] {
				t.Errorf("%s %s %v: padding C[%d,%d] written", ops.name, variant, tc, i, j)
				return false
			}
		}
	}
	return true
}

// TestLowp checks BF16 and F16 against a float64 reference on every kernel
// tier (and AMX on and off) for every case.
func TestLowp(t *testing.T) {
	for _, v := range lowpVariants() {
		t.Run(v, func(t *testing.T) {
			withLowp(t, v, func() {
				for _, tc := range lowpCases() {
					if !checkLowp(t, bf16Ops, v, tc) || !checkLowp(t, f16Ops, v, tc) {
						return
					}
				}
			})
		})
	}
}

// TestLowpKernelName checks that LowPrecisionKernel follows the tier.
func TestLowpKernelName(t *testing.T) {
	for _, v := range lowpVariants() {
		withLowp(t, v, func() {
			got := LowPrecisionKernel()
			switch {
			case v == "avx512/vdpbf16ps":
				if got != "vdpbf16ps" {
					t.Errorf("variant %s: LowPrecisionKernel = %q", v, got)
				}
			case v == "avx512" && (got == "amx" || got == "vdpbf16ps"):
			case got != Kernel():
				t.Errorf("variant %s: LowPrecisionKernel = %q, want %q", v, got, Kernel())
			}
		})
	}
}

// TestLowpErrors checks that bad arguments give typed errors naming the op
// and that C is untouched.
func TestLowpErrors(t *testing.T) {
	a := make([]dtype.BFloat16, 12)
	h := make([]dtype.Float16, 12)
	c := make([]float32, 12)
	cases := []struct {
		name string
		err  error
		call func() error
	}{
		{"negative m", errs.ErrShape, func() error { return BF16(false, false, -1, 3, 4, 1, a, 4, a, 3, 0, c, 3) }},
		{"lda too small", errs.ErrValue, func() error { return BF16(false, false, 3, 3, 4, 1, a, 3, a, 3, 0, c, 3) }},
		{"short B", errs.ErrShape, func() error { return BF16(false, true, 3, 4, 4, 1, a, 4, a[:10], 4, 0, c, 4) }},
		{"short C", errs.ErrShape, func() error { return F16(false, false, 3, 4, 3, 1, h, 3, h, 4, 0, c[:11], 4) }},
		{"ldc too small", errs.ErrValue, func() error { return F16(false, false, 3, 4, 3, 1, h, 3, h, 4, 0, c, 3) }},
	}
	for _, tc := range cases {
		err := tc.call()
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.err)
		}
	}
	for _, v := range c {
		if v != 0 {
			t.Fatalf("C written on error: %v", c)
		}
	}
}

// TestLowpZeroK checks k == 0 and alpha == 0: C = beta*C, A and B unread.
func TestLowpZeroK(t *testing.T) {
	c := []float32{1, 2, 3, 4}
	if err := BF16(false, false, 2, 2, 0, 1, nil, 1, nil, 2, 0.5, c, 2); err != nil {
		t.Fatal(err)
	}
	a := []dtype.Float16{dtype.F16FromFloat64(math.NaN()), 0}
	if err := F16(false, false, 2, 2, 1, 0, a, 1, a[:2], 2, 2, c, 2); err != nil {
		t.Fatal(err)
	}
	if want := []float32{1, 2, 3, 4}; fmt.Sprint(c) != fmt.Sprint(want) {
		t.Errorf("C = %v, want %v", c, want)
	}
}

// TestLowpConcurrent runs BF16, F16, BF16To and F16To products from several
// goroutines at once on the default path (AMX where available: every call
// configures and releases the tiles itself, so calls on any thread are
// independent; BF16To's scratch and rounding are per call).
func TestLowpConcurrent(t *testing.T) {
	cases := []lowpCase{
		{m: 130, n: 70, k: 300, alpha: 1, beta: 0.5},
		{transB: true, m: 64, n: 96, k: 1025, alpha: 1},
		{transA: true, m: 45, n: 200, k: 64, alpha: -1, beta: 1},
	}
	done := make(chan bool)
	for g := range 8 {
		go func() {
			ok := true
			for r := range 2 {
				tc := cases[(g+r)%len(cases)]
				switch g % 4 {
				case 0:
					ok = ok && checkLowp(t, bf16Ops, "default", tc)
				case 1:
					ok = ok && checkLowp(t, f16Ops, "default", tc)
				case 2:
					tc.alpha, tc.beta = 1, 0
					ok = ok && checkLowpTo(t, bf16Ops, BF16To, dtype.BF16FromFloat32, "default", tc)
				default:
					tc.alpha, tc.beta = 1, 0
					ok = ok && checkLowpTo(t, f16Ops, F16To, dtype.F16FromFloat32, "default", tc)
				}
			}
			done <- ok
		}()
	}
	for range 8 {
		<-done
	}
}

// TestAMXSwitch checks which TESSERA_CPU values keep BF16 off the AMX
// tiles, and, in a process started with a capping value (CI runs this
// test with TESSERA_CPU=avx512 on AMX machines), that the switch holds.
func TestAMXSwitch(t *testing.T) {
	for _, c := range []struct {
		env  string
		want bool
	}{
		{"", true}, {"auto", true}, {"bogus", true},
		{"avx512", false}, {" AVX512 ", false}, {"avx2", false}, {"generic", false},
	} {
		if got := amxAllowed(c.env); got != c.want {
			t.Errorf("amxAllowed(%q) = %v, want %v", c.env, got, c.want)
		}
	}
	if !amxAllowed(os.Getenv("TESSERA_CPU")) && LowPrecisionKernel() == "amx" {
		t.Errorf("TESSERA_CPU=%q: BF16 runs on AMX tiles", os.Getenv("TESSERA_CPU"))
	}
}

// TestLowpTo checks BF16To and F16To on every variant and case with
// alpha = 1, beta = 0: each element of C must be exactly the float32
// result of BF16/F16 (itself checked against float64 by TestLowp) rounded
// once to the format, ties to even, and the padding between C's rows must
// be left alone.
func TestLowpTo(t *testing.T) {
	for _, v := range lowpVariants() {
		withLowp(t, v, func() {
			for _, tc := range lowpCases() {
				if tc.alpha != 1 || tc.beta != 0 {
					continue
				}
				checkLowpTo(t, bf16Ops, BF16To, dtype.BF16FromFloat32, v, tc)
				checkLowpTo(t, f16Ops, F16To, dtype.F16FromFloat32, v, tc)
			}
			// Small cache blocks, so C's regions are finished across
			// several column blocks, row blocks and k blocks (the float32
			// kernel set's blocks: the widening path's).
			ks := active.Load().f32
			saved := *ks
			ks.mc, ks.kc, ks.nc = 2*ks.mr, 64, 2*ks.nr
			tc := lowpCase{m: 5*ks.mr + 3, n: 7*ks.nr + 5, k: 150, pad: 2, alpha: 1}
			checkLowpTo(t, bf16Ops, BF16To, dtype.BF16FromFloat32, v, tc)
			checkLowpTo(t, f16Ops, F16To, dtype.F16FromFloat32, v, tc)
			*ks = saved
		})
	}
}

// checkLowpTo runs one case of BF16To or F16To (to) against ops.gemm's
// float32 result rounded by round, reporting mismatches with t.Errorf (so
// it may run on other goroutines) and whether there were none.
func checkLowpTo[H dtype.Float16 | dtype.BFloat16](t *testing.T, ops halfOps[H], to func(transA, transB bool, m, n, k int, a []H, lda int, b []H, ldb int, c []H, ldc int) error, round func(float32) H, variant string, tc lowpCase) bool {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(tc.m*31+tc.n*7+tc.k), 3))
	ra, ca := stored(tc.transA, tc.m, tc.k)
	rb, cb := stored(tc.transB, tc.k, tc.n)
	lda, ldb, ldc := ca+tc.pad, cb+tc.pad, tc.n+tc.pad
	mk := func(n int) []H {
		s := make([]H, max(n, 1))
		for i := range s {
			s[i] = ops.round(rng.Float64()*8 - 4)
		}
		return s
	}
	a, b := mk(ra*lda), mk(rb*ldb)
	want32 := make([]float32, max(tc.m*ldc, 1))
	if err := ops.gemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, 1, a, lda, b, ldb, 0, want32, ldc); err != nil {
		t.Errorf("%s %s %v: %v", variant, ops.name, tc, err)
		return false
	}
	const sentinel = 12345
	c := make([]H, max(tc.m*ldc, 1))
	for i := range c {
		c[i] = sentinel
	}
	if err := to(tc.transA, tc.transB, tc.m, tc.n, tc.k, a, lda, b, ldb, c, ldc); err != nil {
		t.Errorf("%s %sTo %v: %v", variant, ops.name, tc, err)
		return false
	}
	for i := range tc.m * ldc {
		want := H(sentinel)
		if i%ldc < tc.n {
			want = round(want32[i])
		}
		if c[i] != want {
			t.Errorf("%s %sTo %v: C[%d][%d] = %#04x, want %#04x (float32 %g)", variant, ops.name, tc, i/ldc, i%ldc, uint16(c[i]), uint16(want), want32[i])
			return false
		}
	}
	return true
}

// TestLowpToErrors checks that BF16To and F16To reject bad sizes and
// leading dimensions with typed errors naming the op, leaving C as it was.
func TestLowpToErrors(t *testing.T) {
	a, c := make([]dtype.BFloat16, 12), make([]dtype.BFloat16, 12)
	h, hc := make([]dtype.Float16, 12), make([]dtype.Float16, 12)
	for _, tc := range []struct {
		err  error
		kind error
	}{
		{BF16To(false, false, 4, 4, 4, a, 4, a, 4, c, 4), errs.ErrShape}, // A too short
		{BF16To(false, false, -1, 3, 3, a, 3, a, 3, c, 3), errs.ErrShape},
		{BF16To(false, false, 3, 3, 3, a, 2, a, 3, c, 3), errs.ErrValue}, // lda < k
		{F16To(false, false, 4, 4, 4, h, 4, h, 4, hc, 4), errs.ErrShape},
		{F16To(false, false, 3, 3, 3, h, 3, h, 3, hc, 2), errs.ErrValue}, // ldc < n
	} {
		if !errors.Is(tc.err, tc.kind) || !strings.Contains(tc.err.Error(), "16To") {
			t.Errorf("got %v, want %v naming BF16To/F16To", tc.err, tc.kind)
		}
	}
	for i := range c {
		if c[i] != 0 || hc[i] != 0 {
			t.Fatalf("C written on error: %v %v", c, hc)
		}
	}
}

// TestLowpNoAllocations checks that, once the pools are warm, BF16, F16,
// BF16To and F16To allocate nothing per call, on the packed path (whose
// operand source and rounding state are pooled) and the skinny one, in
// every variant of lowpVariants (each tier, and on AVX-512 each bf16 path).
func TestLowpNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	for _, s := range []benchShape{{m: 128, n: 128, k: 128}, {m: 40, n: 72, k: 64, transA: true}, {m: 4, n: 512, k: 512}} {
		rowsA, colsA := stored(s.transA, s.m, s.k)
		a := make([]dtype.BFloat16, rowsA*colsA)
		b := make([]dtype.BFloat16, s.k*s.n)
		c := make([]float32, s.m*s.n)
		ch := make([]dtype.BFloat16, s.m*s.n)
		ah := make([]dtype.Float16, len(a))
		bh := make([]dtype.Float16, len(b))
		chh := make([]dtype.Float16, len(ch))
		for i := range a {
			a[i], ah[i] = dtype.BF16FromFloat32(float32(i%7)-3), dtype.F16FromFloat32(float32(i%5)-2)
		}
		for i := range b {
			b[i], bh[i] = dtype.BF16FromFloat32(float32(i%3)-1), dtype.F16FromFloat32(float32(i%9)-4)
		}
		f := func() {
			_ = BF16(s.transA, false, s.m, s.n, s.k, 1, a, colsA, b, s.n, 0, c, s.n)
			_ = F16(s.transA, false, s.m, s.n, s.k, 1, ah, colsA, bh, s.n, 0.5, c, s.n)
			_ = BF16To(s.transA, false, s.m, s.n, s.k, a, colsA, b, s.n, ch, s.n)
			_ = F16To(s.transA, false, s.m, s.n, s.k, ah, colsA, bh, s.n, chh, s.n)
		}
		for _, v := range lowpVariants() {
			withLowp(t, v, func() {
				f()
				if n := testing.AllocsPerRun(20, f); n > 0 {
					t.Errorf("%s %v: %v allocations per call", v, s, n)
				}
			})
		}
	}
}
