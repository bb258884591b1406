// Package gemm is tessera's packed matrix multiply for the CPU backend.
//
// F32 and F64 compute C = alpha*op(A)*op(B) + beta*C on row-major storage,
// with BLAS-like arguments (transpose flags and leading dimensions), so a
// transposed or narrowed view is multiplied in place, without a copy.
//
// The implementation follows the BLIS design: the operands are cut into
// cache-sized blocks (MC x KC of A, KC x NC of B), each block is packed into
// contiguous, 64-byte aligned panels (MR rows of A, NR columns of B), and a
// register-blocked micro-kernel multiplies one A panel by one B panel while
// the MR x NR tile of C stays in registers. Packing reads either storage
// order directly (in assembly, transposing 8x8 or 4x4 blocks in registers),
// so a transposed operand runs at about the same speed.
//
// Work is spread over runtime.GOMAXPROCS(0) goroutines without barriers:
// they claim B panels and (row block, column chunk) units from atomic
// counters and wait only on real data dependencies, so a goroutine that is
// late or descheduled on a busy machine holds nobody up. Products with only
// a few rows or columns skip packing and run vectorised axpy and dot
// kernels, streaming the long operand once.
//
// On amd64 with AVX2 and FMA the micro-kernels are written in assembly
// (6x16 for float32, 6x8 for float64). Everywhere else, with the purego build
// tag, or with TESSERA_CPU=generic in the environment at start-up, portable
// Go kernels (2x4) are used. Kernel reports which one is active.
package gemm

import (
	"math"
	"os"
	"strings"
	"sync/atomic"

	"github.com/tessera-go/tessera/errs"
)

// float is the element types the kernels are written for.
type float interface {
	~float32 | ~float64
}

// kernels is one complete implementation for an element type: the
// micro-kernel with its register tile (mr x nr), the cache blocking it is
// tuned for, and the vector helpers of the unpacked path.
type kernels[T float] struct {
	mr, nr     int // register tile of the micro-kernel
	mc, kc, nc int // cache blocks: A block mc x kc (L2), B block kc x nc (L3)

	// Products with m < skinnyM or n < skinnyN take the unpacked path.
	skinnyM, skinnyN int

	// micro computes the mr x nr tile C = alpha*Apanel*Bpanel + beta*C, where
	// Apanel holds k steps of mr values and Bpanel k steps of nr values. With
	// beta == 0 it never reads C.
	micro func(k int, a, b, c *T, ldc int, alpha, beta T)
	// pack is packPanel, possibly with faster paths for the widths above.
	pack func(dst, src []T, off, rs, cs, rows, width, kc int)
	// axpy computes y[i] += alpha*x[i] for i < n.
	axpy func(n int, alpha T, x, y *T)
	// axpy4 computes y[i] += sum_r s[r]*x[r*ldx+i] for r < 4 and i < n:
	// four axpys into one y, loading and storing y once.
	axpy4 func(n int, s *[4]T, x *T, ldx int, y *T)
	// dot returns sum x[i]*y[i] for i < n.
	dot func(n int, x, y *T) T
	// dot4 computes out[r] = sum_i x[i]*y[r*ldy+i] for r < 4 and i < n:
	// four dot products sharing x.
	dot4 func(n int, x, y *T, ldy int, out *[4]T)
}

// impl is a named pair of kernel sets, one per element type.
type impl struct {
	name string
	f32  *kernels[float32]
	f64  *kernels[float64]
}

// genericImpl is the portable implementation, available on every platform.
var genericImpl = &impl{
	name: "generic",
	f32:  genericKernels[float32](),
	f64:  genericKernels[float64](),
}

// fastImpl is the best assembly implementation this CPU supports, or nil.
// archImpl is defined per architecture (gemm_amd64.go, gemm_generic.go).
var fastImpl = archImpl()

// active is the implementation F32 and F64 use.
var active atomic.Pointer[impl]

func init() {
	chooseImpl(os.Getenv("TESSERA_CPU"))
}

// chooseImpl selects the implementation from the value of TESSERA_CPU:
// "generic" forces the portable kernels, anything else picks the fastest.
func chooseImpl(env string) {
	if fastImpl != nil && !strings.EqualFold(strings.TrimSpace(env), "generic") {
		active.Store(fastImpl)
		return
	}
	active.Store(genericImpl)
}

// useKernel switches the active implementation by name ("generic" or the
// assembly one) and reports whether it is available. It is a test hook, so
// one test binary can check every kernel.
func useKernel(name string) bool {
	switch {
	case name == genericImpl.name:
		active.Store(genericImpl)
		return true
	case fastImpl != nil && name == fastImpl.name:
		active.Store(fastImpl)
		return true
	}
	return false
}

// Kernel reports which micro-kernel F32 and F64 use: "avx2-fma" or
// "generic". Benchmarks and `tessera bench` print it next to their figures.
func Kernel() string { return active.Load().name }

// F32 computes C = alpha*op(A)*op(B) + beta*C for row-major float32
// matrices, where op(X) is X or X^T and op(A) is m x k, op(B) is k x n and
// C is m x n.
//
// With transA false, element (i,p) of A is a[i*lda+p] and lda >= max(1,k);
// with transA true, A is stored k x m, element (i,p) is a[p*lda+i] and
// lda >= max(1,m). B and ldb follow the same rule with k x n, and
// element (i,j) of C is c[i*ldc+j] with ldc >= max(1,n). When beta is zero C
// is only written, so it may hold NaN or garbage; when alpha is zero or k is
// zero A and B are not read. Bad sizes, leading dimensions or slices too
// short for them are reported as an error wrapping errs.ErrShape or
// errs.ErrValue, and nothing is written.
func F32(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	if err := check("F32", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		return err
	}
	gemm(active.Load().f32, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	return nil
}

// F64 is F32 for float64: it computes C = alpha*op(A)*op(B) + beta*C with
// the same storage rules, arguments and errors.
func F64(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) error {
	if err := check("F64", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		return err
	}
	gemm(active.Load().f64, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	return nil
}

// check validates every size against the slices, so the kernels below can
// index without further checks.
func check(op string, transA, transB bool, m, n, k, lenA, lda, lenB, ldb, lenC, ldc int) error {
	if m < 0 || n < 0 || k < 0 {
		return errs.New("gemm", op, errs.ErrShape, "negative size: m=%d n=%d k=%d", m, n, k)
	}
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	if err := checkMatrix(op, "A", transA, rowsA, colsA, lenA, lda); err != nil {
		return err
	}
	if err := checkMatrix(op, "B", transB, rowsB, colsB, lenB, ldb); err != nil {
		return err
	}
	return checkMatrix(op, "C", false, m, n, lenC, ldc)
}

// checkMatrix validates one stored rows x cols matrix with leading dimension
// ld held in a slice of length n.
func checkMatrix(op, name string, trans bool, rows, cols, n, ld int) error {
	if ld < max(1, cols) {
		return errs.New("gemm", op, errs.ErrValue,
			"ld%s=%d is less than max(1, %d), the columns of the stored %dx%d %s (trans=%t)",
			strings.ToLower(name), ld, cols, rows, cols, name, trans)
	}
	if rows == 0 || cols == 0 {
		return nil
	}
	if rows-1 > (math.MaxInt-cols)/ld {
		return errs.New("gemm", op, errs.ErrShape,
			"stored %dx%d %s with ld%s=%d spans more than MaxInt elements",
			rows, cols, name, strings.ToLower(name), ld)
	}
	if need := (rows-1)*ld + cols; n < need {
		return errs.New("gemm", op, errs.ErrShape,
			"len(%s)=%d is too short for a stored %dx%d %s with ld%s=%d (needs %d)",
			strings.ToLower(name), n, rows, cols, name, strings.ToLower(name), ld, need)
	}
	return nil
}

// gemm runs a validated product with kernel set ks.
func gemm[T float](ks *kernels[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	if useSmall(ks, m, n) {
		small(ks, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	packed(ks, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// scaleC computes C = beta*C, writing zeros without reading C when beta is 0.
func scaleC[T float](m, n int, beta T, c []T, ldc int) {
	for i := range m {
		scaleRow(c[i*ldc:i*ldc+n], beta)
	}
}
