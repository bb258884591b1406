package vec

import (
	"unsafe"

	"github.com/tessera-go/tessera/errs"
)

// CmpOp names the relation of Compare and CompareScalar.
type CmpOp int

// The relations, in the order of the kernels (asmgen.go's cmpPreds).
const (
	CmpEq CmpOp = iota // a == b
	CmpNe              // a != b (true where either is NaN)
	CmpLt              // a < b
	CmpLe              // a <= b
	CmpGt              // a > b
	CmpGe              // a >= b
	numCmpOps
)

var cmpNames = [numCmpOps]string{"==", "!=", "<", "<=", ">", ">="}

// String returns the relation's Go operator.
func (op CmpOp) String() string {
	if op < 0 || op >= numCmpOps {
		return "CmpOp(?)"
	}
	return cmpNames[op]
}

// cmpKernels are one set's comparison kernels, by relation.
type cmpKernels struct {
	vv32  [numCmpOps]func(dst []uint8, a, b []float32)
	vv64  [numCmpOps]func(dst []uint8, a, b []float64)
	vs32  [numCmpOps]func(dst []uint8, a []float32, s float32)
	vs64  [numCmpOps]func(dst []uint8, a []float64, s float64)
	vvI32 [numCmpOps]func(dst []uint8, a, b []int32)
	vvI64 [numCmpOps]func(dst []uint8, a, b []int64)
	vsI32 [numCmpOps]func(dst []uint8, a []int32, s int32)
	vsI64 [numCmpOps]func(dst []uint8, a []int64, s int64)
}

// Int is the element constraint of the integer comparisons: int32 and
// int64 and types defined on them.
type Int interface{ ~int32 | ~int64 }

// Compare sets dst[i] to 1 where a[i] op b[i] holds and to 0 where it does
// not: the comparisons of Go, NumPy and PyTorch, so a NaN operand makes
// every relation false but CmpNe, which it makes true, and -0 == +0. The
// vector sets compare whole vectors (VCMPPS/VCMPPD) and turn the lanes'
// results into bytes without a branch.
func Compare[T Float](op CmpOp, dst []uint8, a, b []T) error {
	if op < 0 || op >= numCmpOps {
		return errs.New("vec", "Compare", errs.ErrValue, "unknown relation %d", int(op))
	}
	if len(a) != len(dst) || len(b) != len(dst) {
		return errs.New("vec", "Compare", errs.ErrShape, "lengths differ: len(dst)=%d, len(a)=%d, len(b)=%d", len(dst), len(a), len(b))
	}
	if is32[T]() {
		active.cmp.vv32[op](dst, as32(a), as32(b))
	} else {
		active.cmp.vv64[op](dst, as64(a), as64(b))
	}
	return nil
}

// CompareScalar sets dst[i] to 1 where a[i] op s holds and to 0 where it
// does not, as Compare.
func CompareScalar[T Float](op CmpOp, dst []uint8, a []T, s T) error {
	if op < 0 || op >= numCmpOps {
		return errs.New("vec", "CompareScalar", errs.ErrValue, "unknown relation %d", int(op))
	}
	if len(a) != len(dst) {
		return errs.New("vec", "CompareScalar", errs.ErrShape, "lengths differ: len(dst)=%d, len(a)=%d", len(dst), len(a))
	}
	if is32[T]() {
		active.cmp.vs32[op](dst, as32(a), float32(s))
	} else {
		active.cmp.vs64[op](dst, as64(a), float64(s))
	}
	return nil
}

// CompareInt is Compare for signed integers: dst[i] is 1 where a[i] op
// b[i] holds, else 0. The vector sets compare whole vectors (VPCMPD and
// VPCMPQ on AVX-512; VPCMPEQ and VPCMPGT, negated where the relation needs
// it, on AVX2).
func CompareInt[T Int](op CmpOp, dst []uint8, a, b []T) error {
	if op < 0 || op >= numCmpOps {
		return errs.New("vec", "CompareInt", errs.ErrValue, "unknown relation %d", int(op))
	}
	if len(a) != len(dst) || len(b) != len(dst) {
		return errs.New("vec", "CompareInt", errs.ErrShape, "lengths differ: len(dst)=%d, len(a)=%d, len(b)=%d", len(dst), len(a), len(b))
	}
	if unsafe.Sizeof(*new(T)) == 4 {
		active.cmp.vvI32[op](dst, words[int32](a), words[int32](b))
	} else {
		active.cmp.vvI64[op](dst, words[int64](a), words[int64](b))
	}
	return nil
}

// CompareIntScalar is CompareScalar for signed integers: dst[i] is 1 where
// a[i] op s holds, else 0.
func CompareIntScalar[T Int](op CmpOp, dst []uint8, a []T, s T) error {
	if op < 0 || op >= numCmpOps {
		return errs.New("vec", "CompareIntScalar", errs.ErrValue, "unknown relation %d", int(op))
	}
	if len(a) != len(dst) {
		return errs.New("vec", "CompareIntScalar", errs.ErrShape, "lengths differ: len(dst)=%d, len(a)=%d", len(dst), len(a))
	}
	if unsafe.Sizeof(s) == 4 {
		active.cmp.vsI32[op](dst, words[int32](a), int32(s))
	} else {
		active.cmp.vsI64[op](dst, words[int64](a), int64(s))
	}
	return nil
}

// holds reports a op b, the generic set's comparison.
func holds[T Float | int32 | int64](op CmpOp, a, b T) bool {
	switch op {
	case CmpEq:
		return a == b
	case CmpNe:
		return a != b
	case CmpLt:
		return a < b
	case CmpLe:
		return a <= b
	case CmpGt:
		return a > b
	}
	return a >= b
}

// cmpGo and cmpScalarGo are the generic set's kernels (and the vector
// sets' tails).
func cmpGo[T Float | int32 | int64](op CmpOp) func(dst []uint8, a, b []T) {
	return func(dst []uint8, a, b []T) {
		a, b = a[:len(dst)], b[:len(dst)]
		for i := range dst {
			dst[i] = b2u8(holds(op, a[i], b[i]))
		}
	}
}

func cmpScalarGo[T Float | int32 | int64](op CmpOp) func(dst []uint8, a []T, s T) {
	return func(dst []uint8, a []T, s T) {
		a = a[:len(dst)]
		for i := range dst {
			dst[i] = b2u8(holds(op, a[i], s))
		}
	}
}

func b2u8(v bool) uint8 {
	if v {
		return 1
	}
	return 0
}

// cmpGoKernels is the generic set's cmpKernels.
var cmpGoKernels = func() cmpKernels {
	var k cmpKernels
	for op := range numCmpOps {
		k.vv32[op], k.vv64[op] = cmpGo[float32](op), cmpGo[float64](op)
		k.vs32[op], k.vs64[op] = cmpScalarGo[float32](op), cmpScalarGo[float64](op)
		k.vvI32[op], k.vvI64[op] = cmpGo[int32](op), cmpGo[int64](op)
		k.vsI32[op], k.vsI64[op] = cmpScalarGo[int32](op), cmpScalarGo[int64](op)
	}
	return k
}()
