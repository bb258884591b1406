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
