package vec

import (
	"sync"
	"unsafe"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/pow64"
)

// PowF64 sets dst[i] = x[i]**y[i], within 1 ulp of the exact power, with
// C99's values for zeros, infinities, NaN and negative bases: the values
// of internal/pow64's Pow, the op table's float64 Pow (not math.Pow, which
// drifts from the exact power as |y| grows). On the AVX2 and AVX-512 sets
// a vector kernel computes every lane whose x is finite and not zero and
// whose y is finite (and not a shortcut exponent), with the same steps and
// bits as pow64.Pow (TestPowF64Kernels); the other lanes, and every lane
// on the generic set, call pow64.Pow. dst may be x or y, or overlap
// neither.
func PowF64(dst, x, y []float64) error {
	if len(x) != len(dst) || len(y) != len(dst) {
		return errs.New("vec", "PowF64", errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d, len(y)=%d", len(dst), len(x), len(y))
	}
	if err := checkAlias("PowF64", dst, x, y); err != nil {
		return err
	}
	active.pow64(dst, x, y, 0)
	return nil
}

// PowScalarF64 sets dst[i] = x[i]**y, as PowF64 with every exponent y.
func PowScalarF64(dst, x []float64, y float64) error {
	if len(x) != len(dst) {
		return errs.New("vec", "PowScalarF64", errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d", len(dst), len(x))
	}
	if err := checkAlias("PowScalarF64", dst, x); err != nil {
		return err
	}
	active.pow64(dst, x, nil, y)
	return nil
}

// powGo is the generic set's pow64: pow64.Pow element by element (ys the
// exponent where y is nil).
func powGo(dst, x, y []float64, ys float64) {
	x = x[:len(dst)]
	if y == nil {
		for i, v := range x {
			dst[i] = pow64.Pow(v, ys)
		}
		return
	}
	y = y[:len(dst)]
	for i, v := range x {
		dst[i] = pow64.Pow(v, y[i])
	}
}

// powBlock is how many elements powVia takes at a time when dst is one of
// the inputs: the kernel writes a scratch block, so that the lanes it
// leaves can still read their operands.
const powBlock = 512

var powPool = sync.Pool{New: func() any { return new([powBlock]float64) }}

// powVia returns a set's pow64 on kernels of ordinary lanes (vector and
// scalar exponent): a call whose kernel reports a lane it did not compute
// (ok false) computes every such lane again with pow64.Pow (C99's special
// values).
func powVia(vv func(dst, x, y *float64, n int) bool, vs func(dst, x *float64, y float64, n int) bool) func(dst, x, y []float64, ys float64) {
	run := func(dst, x, y []float64, ys float64) {
		var ok bool
		if y == nil {
			ok = vs(unsafe.SliceData(dst), unsafe.SliceData(x), ys, len(dst))
		} else {
			ok = vv(unsafe.SliceData(dst), unsafe.SliceData(x), unsafe.SliceData(y), len(dst))
		}
		if ok {
			return
		}
		for i, v := range x {
			e := ys
			if y != nil {
				e = y[i]
			}
			if !pow64.Ordinary(v, e) {
				dst[i] = pow64.Pow(v, e)
			}
		}
	}
	return func(dst, x, y []float64, ys float64) {
		if len(dst) == 0 {
			return
		}
		if y == nil && !pow64.Ordinary(1, ys) {
			powGo(dst, x, nil, ys) // no lane is ordinary, or a shortcut exponent
			return
		}
		if &dst[0] != &x[0] && (y == nil || &dst[0] != &y[0]) {
			run(dst, x, y, ys)
			return
		}
		buf := powPool.Get().(*[powBlock]float64)
		defer powPool.Put(buf)
		for len(dst) > 0 {
			n := min(len(dst), powBlock)
			var yb []float64
			if y != nil {
				yb, y = y[:n], y[n:]
			}
			run(buf[:n], x[:n], yb, ys)
			copy(dst[:n], buf[:n])
			dst, x = dst[n:], x[n:]
		}
	}
}
