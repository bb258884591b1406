package vec

import (
	"unsafe"

	"github.com/tessera-go/tessera/errs"
)

// Word is the element types the select kernels move: the floats and
// integers of 1, 2, 4 or 8 bytes, each taken as its bits, so one kernel
// per size serves them all and copies NaN payloads and -0 exactly.
type Word interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// bitsOf returns the bits of v, a Word of U's size.
func bitsOf[U uword, T Word](v T) U { return *(*U)(unsafe.Pointer(&v)) }

// uword is the unsigned words the kernels take.
type uword interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// selectKernels are one set's select kernels, by element width.
type selectKernels struct {
	vv8    func(dst []uint8, c []uint8, a, b []uint8)
	vv16   func(dst []uint16, c []uint8, a, b []uint16)
	else8  func(dst []uint8, c []uint8, a []uint8, s uint8)
	else16 func(dst []uint16, c []uint8, a []uint16, s uint16)
	then8  func(dst []uint8, c []uint8, s uint8, b []uint8)
	then16 func(dst []uint16, c []uint8, s uint16, b []uint16)
	vv32   func(dst []uint32, c []uint8, a, b []uint32)
	vv64   func(dst []uint64, c []uint8, a, b []uint64)
	else32 func(dst []uint32, c []uint8, a []uint32, s uint32)
	else64 func(dst []uint64, c []uint8, a []uint64, s uint64)
	then32 func(dst []uint32, c []uint8, s uint32, b []uint32)
	then64 func(dst []uint64, c []uint8, s uint64, b []uint64)
}

// Select sets dst[i] to a[i] where cond[i] is nonzero and to b[i] where it
// is zero: NumPy's where and PyTorch's torch.where on one row. dst may be
// a or b itself, or cond itself for 1-byte elements; any other overlap is
// an ErrValue. The vector sets widen
// the condition bytes to lane masks and blend whole vectors, without a
// branch, so the speed does not depend on the condition's pattern.
func Select[T Word](dst []T, cond []uint8, a, b []T) error {
	if len(cond) != len(dst) || len(a) != len(dst) || len(b) != len(dst) {
		return errs.New("vec", "Select", errs.ErrShape, "lengths differ: len(dst)=%d, len(cond)=%d, len(a)=%d, len(b)=%d", len(dst), len(cond), len(a), len(b))
	}
	if err := checkSelectAlias("Select", dst, cond, a, b); err != nil {
		return err
	}
	switch unsafe.Sizeof(*new(T)) {
	case 1:
		active.sel.vv8(words[uint8](dst), cond, words[uint8](a), words[uint8](b))
	case 2:
		active.sel.vv16(words[uint16](dst), cond, words[uint16](a), words[uint16](b))
	case 4:
		active.sel.vv32(words[uint32](dst), cond, words[uint32](a), words[uint32](b))
	default:
		active.sel.vv64(words[uint64](dst), cond, words[uint64](a), words[uint64](b))
	}
	return nil
}

// SelectElse is Select with one value s in place of b: dst[i] = a[i] where
// cond[i] is nonzero, else s (a row of where(cond, a, s), as Tril's zeros
// or a masked fill of the unselected elements).
func SelectElse[T Word](dst []T, cond []uint8, a []T, s T) error {
	if len(cond) != len(dst) || len(a) != len(dst) {
		return errs.New("vec", "SelectElse", errs.ErrShape, "lengths differ: len(dst)=%d, len(cond)=%d, len(a)=%d", len(dst), len(cond), len(a))
	}
	if err := checkSelectAlias("SelectElse", dst, cond, a); err != nil {
		return err
	}
	switch unsafe.Sizeof(s) {
	case 1:
		active.sel.else8(words[uint8](dst), cond, words[uint8](a), bitsOf[uint8](s))
	case 2:
		active.sel.else16(words[uint16](dst), cond, words[uint16](a), bitsOf[uint16](s))
	case 4:
		active.sel.else32(words[uint32](dst), cond, words[uint32](a), bitsOf[uint32](s))
	default:
		active.sel.else64(words[uint64](dst), cond, words[uint64](a), bitsOf[uint64](s))
	}
	return nil
}

// SelectThen is Select with one value s in place of a: dst[i] = s where
// cond[i] is nonzero, else b[i] (PyTorch's masked_fill on one row).
func SelectThen[T Word](dst []T, cond []uint8, s T, b []T) error {
	if len(cond) != len(dst) || len(b) != len(dst) {
		return errs.New("vec", "SelectThen", errs.ErrShape, "lengths differ: len(dst)=%d, len(cond)=%d, len(b)=%d", len(dst), len(cond), len(b))
	}
	if err := checkSelectAlias("SelectThen", dst, cond, b); err != nil {
		return err
	}
	switch unsafe.Sizeof(s) {
	case 1:
		active.sel.then8(words[uint8](dst), cond, bitsOf[uint8](s), words[uint8](b))
	case 2:
		active.sel.then16(words[uint16](dst), cond, bitsOf[uint16](s), words[uint16](b))
	case 4:
		active.sel.then32(words[uint32](dst), cond, bitsOf[uint32](s), words[uint32](b))
	default:
		active.sel.then64(words[uint64](dst), cond, bitsOf[uint64](s), words[uint64](b))
	}
	return nil
}

// checkSelectAlias reports an ErrValue where dst overlaps a row it reads
// other than exactly: the kernels read each element of a slot before they
// write that slot, so dst may be a row itself (or cond, for 1-byte
// elements), but a shifted overlap would read elements already written.
func checkSelectAlias[T Word](op string, dst []T, cond []uint8, rows ...[]T) error {
	if err := checkAlias(op, dst, rows...); err != nil {
		return err
	}
	same := unsafe.Sizeof(*new(T)) == 1 && unsafe.Pointer(unsafe.SliceData(dst)) == unsafe.Pointer(unsafe.SliceData(cond))
	if bytesOverlap(dst, cond) && !same {
		return errs.New("vec", op, errs.ErrValue, "dst overlaps cond (only dst == cond, for 1-byte elements, is allowed)")
	}
	return nil
}

// words reinterprets a row of Words as a row of another Word type of the
// same size (the callers switch on the size first).
func words[U, T Word](s []T) []U {
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// mask returns all ones where c is nonzero and zero elsewhere: the
// generic loops' branch-free selection (a random condition would defeat
// the branch predictor).
func mask[T uword](c uint8) T {
	var m T
	if c != 0 {
		m = ^T(0)
	}
	return m
}

// selectGo, selectElseGo and selectThenGo are the generic set's select
// kernels (and the vector sets' tails).
func selectGo[T uword](dst []T, c []uint8, a, b []T) {
	c, a, b = c[:len(dst)], a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = b[i] ^ (a[i]^b[i])&mask[T](c[i])
	}
}

func selectElseGo[T uword](dst []T, c []uint8, a []T, s T) {
	c, a = c[:len(dst)], a[:len(dst)]
	for i := range dst {
		m := mask[T](c[i])
		dst[i] = a[i]&m | s&^m
	}
}

func selectThenGo[T uword](dst []T, c []uint8, s T, b []T) {
	c, b = c[:len(dst)], b[:len(dst)]
	for i := range dst {
		m := mask[T](c[i])
		dst[i] = s&m | b[i]&^m
	}
}

// selectGoKernels is the generic set's selectKernels.
var selectGoKernels = selectKernels{
	vv8: selectGo[uint8], vv16: selectGo[uint16], vv32: selectGo[uint32], vv64: selectGo[uint64],
	else8: selectElseGo[uint8], else16: selectElseGo[uint16], else32: selectElseGo[uint32], else64: selectElseGo[uint64],
	then8: selectThenGo[uint8], then16: selectThenGo[uint16], then32: selectThenGo[uint32], then64: selectThenGo[uint64],
}

// Reverse sets dst[i] = x[len(x)-1-i]: a row flipped end to end, the
// elements moved as bits (any type of 1, 2, 4 or 8 bytes). The vector
// sets reverse 4- and 8-byte elements a vector at a time (VPERMD,
// VPERMQ); narrower ones take a Go loop. dst and x must not overlap, not
// even as the same slice.
func Reverse[T Word](dst, x []T) error {
	if len(x) != len(dst) {
		return errs.New("vec", "Reverse", errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d", len(dst), len(x))
	}
	if bytesOverlap(dst, x) {
		return errs.New("vec", "Reverse", errs.ErrValue, "dst and x overlap")
	}
	switch unsafe.Sizeof(*new(T)) {
	case 4:
		active.rev32(words[uint32](dst), words[uint32](x))
	case 8:
		active.rev64(words[uint64](dst), words[uint64](x))
	default:
		reverseGo(dst, x)
	}
	return nil
}

// reverseGo is the generic set's Reverse (and the vector sets' tail).
func reverseGo[T any](dst, x []T) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = x[len(x)-1-i]
	}
}
