package vec

import "github.com/tessera-go/tessera/errs"

// TwoSumAdd adds x[k] to the float64 running sum s[k] for every k, and
// adds the rounding error of that addition (Knuth's TwoSum, exact) to the
// compensation c[k]: s[k]+c[k] is then the sum of everything added, as if
// summed with twice float64's precision. A compensated column sum calls it
// once per source row. The AVX-512 kernel runs eight columns at a time
// with the same operations as the scalar loop, so both give the same bits.
func TwoSumAdd[T Float](s, c []float64, x []T) error {
	if len(c) != len(s) || len(x) != len(s) {
		return errs.New("vec", "TwoSumAdd", errs.ErrShape, "lengths differ: len(s)=%d, len(c)=%d, len(x)=%d", len(s), len(c), len(x))
	}
	if len(s) == 0 {
		return nil
	}
	if bytesOverlap(s, c) {
		return errs.New("vec", "TwoSumAdd", errs.ErrValue, "the sums and compensations overlap")
	}
	if is32[T]() {
		if f := active.twoSum32; f != nil {
			f(s, c, as32(x))
			return nil
		}
	} else if f := active.twoSum64; f != nil {
		f(s, c, as64(x))
		return nil
	}
	twoSumGo(s, c, x)
	return nil
}

// TwoSumAddRows is TwoSumAdd of rows rows of x in turn, row r being
// x[r*ldx : r*ldx+len(s)]: a compensated sum of the columns of a strided
// matrix (ldx >= 0; 0 adds one row rows times). The AVX-512 kernel keeps
// the sums and compensations of 32 columns in registers down all the
// rows, where TwoSumAdd per row loads and stores them for every row; the
// bits are the same. x must hold every row, and must not overlap s or c.
func TwoSumAddRows[T Float](s, c []float64, x []T, ldx, rows int) error {
	const op = "TwoSumAddRows"
	if len(c) != len(s) {
		return errs.New("vec", op, errs.ErrShape, "lengths differ: len(s)=%d, len(c)=%d", len(s), len(c))
	}
	if ldx < 0 || rows < 0 {
		return errs.New("vec", op, errs.ErrValue, "ldx=%d and rows=%d must not be negative", ldx, rows)
	}
	if rows == 0 || len(s) == 0 {
		return nil
	}
	// The rows end at (rows-1)*ldx + len(s), which must not pass len(x)
	// (asked without a product that could overflow).
	if len(x) < len(s) || (ldx > 0 && rows-1 > (len(x)-len(s))/ldx) {
		return errs.New("vec", op, errs.ErrShape, "%d rows of %d, %d apart, need more than len(x)=%d", rows, len(s), ldx, len(x))
	}
	span := x[:(rows-1)*ldx+len(s)]
	if bytesOverlap(s, c) || bytesOverlap(s, span) || bytesOverlap(c, span) {
		return errs.New("vec", op, errs.ErrValue, "the sums, compensations and rows overlap")
	}
	switch {
	case is32[T]() && active.twoSumRows32 != nil:
		active.twoSumRows32(s, c, as32(span), ldx, rows)
	case !is32[T]() && active.twoSumRows64 != nil:
		active.twoSumRows64(s, c, as64(span), ldx, rows)
	default:
		for r := range rows {
			_ = TwoSumAdd(s, c, span[r*ldx:r*ldx+len(s)])
		}
	}
	return nil
}

// twoSumGo is TwoSumAdd's loop in Go.
func twoSumGo[T Float](s, c []float64, x []T) {
	c = c[:len(s)]
	x = x[:len(s)]
	for k, v := range x {
		a, b := s[k], float64(v)
		t := a + b
		z := t - a
		c[k] += (a - (t - z)) + (b - z)
		s[k] = t
	}
}
