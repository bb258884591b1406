package vec

import (
	"unsafe"

	"github.com/tessera-go/tessera/errs"
)

// AbsInt sets dst[i] = |x[i]| for signed integers, wrapping as Go's
// arithmetic does: the most negative value has no positive twin and stays
// as it is (NumPy's and PyTorch's abs do the same). int32 runs on the
// vector sets' kernels (VPABSD); int64 on a Go loop. dst may be x itself,
// but not overlap it otherwise.
func AbsInt[T Int](dst, x []T) error {
	return intUnary("AbsInt", dst, x, active.absI32, absIntGo[T])
}

// NegInt sets dst[i] = -x[i] for signed integers, wrapping (the most
// negative value is its own negation). int32 runs on the vector sets'
// kernels; int64 on a Go loop. dst may be x itself, but not overlap it
// otherwise.
func NegInt[T Int](dst, x []T) error {
	return intUnary("NegInt", dst, x, active.negI32, negIntGo[T])
}

// intUnary checks an integer unary op's arguments and runs the int32
// kernel k32, or wide for int64.
func intUnary[T Int](op string, dst, x []T, k32 func(dst, x []int32), wide func(dst, x []T)) error {
	if len(x) != len(dst) {
		return errs.New("vec", op, errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d", len(dst), len(x))
	}
	if err := checkAlias(op, dst, x); err != nil {
		return err
	}
	if unsafe.Sizeof(*new(T)) == 4 {
		k32(words[int32](dst), words[int32](x))
	} else {
		wide(dst, x)
	}
	return nil
}

// absIntGo is the generic set's AbsInt (and the vector sets' tail):
// max(v, -v) has no branch, and -MinInt wraps to MinInt.
func absIntGo[T Int](dst, x []T) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = max(v, -v)
	}
}

// negIntGo is the generic set's NegInt (and the vector sets' tail).
func negIntGo[T Int](dst, x []T) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = -v
	}
}

// NotBytes sets dst[i] to 1 where x[i] is 0 and to 0 elsewhere: Bool's
// logical Not (any nonzero byte counts as true, as NumPy's logical_not
// treats it). The vector sets compare 32 bytes at a time (VPCMPEQB). dst
// may be x itself, but not overlap it otherwise.
func NotBytes(dst, x []uint8) error {
	if len(x) != len(dst) {
		return errs.New("vec", "NotBytes", errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d", len(dst), len(x))
	}
	if err := checkAlias("NotBytes", dst, x); err != nil {
		return err
	}
	active.notU8(dst, x)
	return nil
}

// notBytesGo is the generic set's NotBytes (and the vector sets' tail).
func notBytesGo(dst, x []uint8) {
	x = x[:len(dst)]
	for i, v := range x {
		var b uint8
		if v == 0 {
			b = 1
		}
		dst[i] = b
	}
}

// Integer is the integer element types MaxInt and MinInt take: int32,
// int64 and uint8 (the bytes of U8 and Bool).
type Integer interface{ ~int32 | ~int64 | ~uint8 }

// MaxInt returns the largest element of x; an empty x is an error. int32
// runs on the vector sets' kernels (VPMAXSD, eight lanes in four running
// vectors), int64 and uint8 on extremeGo.
func MaxInt[T Integer](x []T) (T, error) { return extremeInt("MaxInt", x, true) }

// MinInt returns the smallest element of x; an empty x is an error. The
// kernels are MaxInt's.
func MinInt[T Integer](x []T) (T, error) { return extremeInt("MinInt", x, false) }

func extremeInt[T Integer](op string, x []T, isMax bool) (T, error) {
	if len(x) == 0 {
		return 0, errs.New("vec", op, errs.ErrShape, "empty input has no extreme")
	}
	if unsafe.Sizeof(*new(T)) == 4 {
		k := active.minI32
		if isMax {
			k = active.maxI32
		}
		if k != nil {
			return T(k(words[int32](x))), nil
		}
	}
	return extremeGo(x, isMax), nil
}

// extremeGo is the generic set's MaxInt (isMax) and MinInt on a non-empty
// x, and the vector sets' for short rows and other widths: four running
// extremes without a branch (the compiler turns max and min into
// conditional moves), where a compare-and-branch per element is
// mispredicted on random data.
func extremeGo[T Integer](x []T, isMax bool) T {
	m0 := x[0]
	m1, m2, m3 := m0, m0, m0
	if isMax {
		for len(x) >= 4 {
			m0, m1, m2, m3 = max(m0, x[0]), max(m1, x[1]), max(m2, x[2]), max(m3, x[3])
			x = x[4:]
		}
		for _, v := range x {
			m0 = max(m0, v)
		}
		return max(m0, m1, m2, m3)
	}
	for len(x) >= 4 {
		m0, m1, m2, m3 = min(m0, x[0]), min(m1, x[1]), min(m2, x[2]), min(m3, x[3])
		x = x[4:]
	}
	for _, v := range x {
		m0 = min(m0, v)
	}
	return min(m0, m1, m2, m3)
}
