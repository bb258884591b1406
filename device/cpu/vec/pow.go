package vec

import (
	"math"
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

// PowF32 sets dst[i] = x[i]**y[i] for float32, with C99's values for
// zeros, infinities, NaN and negative bases. Where internal/pow64's
// Ordinary holds (x finite and not zero, y finite and not ±0.5, ±1 or 2)
// it is the power computed in float64 to within about 2^-38 of itself
// and rounded once, so the correctly rounded power but where it lies
// within 2^-38 of a float32 tie without being one (TestPowF32Accuracy),
// with exact ties (small integer powers of bases of few bits) exact: on
// the AVX2 and AVX-512 sets vector kernels', on the generic set
// powF32Lane's, the same steps and bits (TestPowF32Kernels). Every other
// lane is the op table's float32 Pow, pow64.Pow's value rounded to
// float32. dst may be x or y, or overlap neither.
func PowF32(dst, x, y []float32) error {
	if len(x) != len(dst) || len(y) != len(dst) {
		return errs.New("vec", "PowF32", errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d, len(y)=%d", len(dst), len(x), len(y))
	}
	if err := checkAlias("PowF32", dst, x, y); err != nil {
		return err
	}
	active.pow32(dst, x, y, 0)
	return nil
}

// PowScalarF32 sets dst[i] = x[i]**y, as PowF32 with every exponent y.
func PowScalarF32(dst, x []float32, y float32) error {
	if len(x) != len(dst) {
		return errs.New("vec", "PowScalarF32", errs.ErrShape, "lengths differ: len(dst)=%d, len(x)=%d", len(dst), len(x))
	}
	if err := checkAlias("PowScalarF32", dst, x); err != nil {
		return err
	}
	active.pow32(dst, x, nil, y)
	return nil
}

// powOne is one lane of Pow: for float32, powF32Lane where pow64.Ordinary
// holds; otherwise pow64.Pow's value (rounded to float32 for float32).
func powOne[T float32 | float64](x, y T) T {
	if unsafe.Sizeof(x) == 4 && pow64.Ordinary(float64(x), float64(y)) {
		return T(powF32Lane(float32(x), float32(y)))
	}
	return T(pow64.Pow(float64(x), float64(y)))
}

// powGo is the generic set's Pow, powOne element by element (ys the
// exponent where y is nil).
func powGo[T float32 | float64](dst, x, y []T, ys T) {
	x = x[:len(dst)]
	if y == nil {
		for i, v := range x {
			dst[i] = powOne(v, ys)
		}
		return
	}
	y = y[:len(dst)]
	for i, v := range x {
		dst[i] = powOne(v, y[i])
	}
}

// powF32Lane returns x**y for a lane pow64.Ordinary accepts, by the
// AVX-512 kernel's steps (asmgen.go's pow512F32): powF32Wide's value of
// |x| rounded to float32 once, and for a negative x the sign where y is an
// odd integer, NaN where y is no integer.
func powF32Lane(x, y float32) float32 {
	r := math.Float32bits(float32(powF32Wide(math.Abs(float64(x)), float64(y))))
	return math.Float32frombits(withNegBase(r, x, y))
}

// withNegBase returns r, the bits of |x|**y for finite x and y, mended
// for a negative x by negBaseBits, without a branch (random signs would
// mispredict half the time): the sign bit ORed in, or NaN's bits in place
// of r's.
func withNegBase(r uint32, x, y float32) uint32 {
	f := negBaseBits(y) & -(math.Float32bits(x) >> 31)
	return r&^-(f>>30&1) | f // f's bit 30 is set only in NaN's bits
}

// negBaseBits returns the bits a finite negative base's power takes from
// the finite exponent y (C99's pow): the sign bit for an odd integer y,
// none for an even one, float32(math.NaN())'s bits (0x7fc00000, as the
// kernels write) for any other. Every float32 of magnitude 2^24 or more
// is an even integer.
func negBaseBits(y float32) uint32 {
	i := int32(y) // exact where |y| < 2^24
	bits := uint32(i&1) << 31
	if float32(i) != y {
		bits = 0x7fc00000
	}
	if math.Abs(float64(y)) >= 1<<24 {
		bits = 0
	}
	return bits
}

// powF32Wide returns x**y in float64 for a positive finite x and a finite
// y, within about 2^-38 of itself where the power is in float32's range
// and exact where it is a float32 tie (25 significant bits), as small
// integer powers of bases of few bits are,
// by the AVX-512 float32 kernel's steps (constants in pow32const.go): each
// math.FMA stands for one of its fused multiply-adds, each other operation
// rounds as its instruction does (the explicit conversions keep a compiler
// from fusing more). x = 2^k*z with z in [pow32Off, 2*pow32Off) and z's
// bin i; r = z*invc[i] - 1, exact for a float32 x; log2 x = (k + log2 c) +
// r*P(r); t = y*log2 x, clamped to ±160; m = round(16t)/16, r = t - m,
// exact; 2^t = (T + T*r*Q(r))*2^floor(m) with T = 2^(16m mod 16/16),
// the first factor, in [0.97, 2.05), rounded to a multiple of 2^-37 (its
// error is below 2^-39, so an exact tie lands on the tie).
func powF32Wide(x, y float64) float64 {
	ix := math.Float64bits(x)
	tmp := ix - pow32Off
	k := float64(int64(tmp) >> 52)
	i := tmp >> 48 & 15
	z := math.Float64frombits(ix - tmp&(0xfff<<52))
	kl := k + pow32LogC[i]
	r := math.FMA(z, pow32InvC[i], -1)
	r2 := float64(r * r)
	c := &pow32P
	pe := math.FMA(math.FMA(math.FMA(c[6], r2, c[4]), r2, c[2]), r2, c[0])
	po := math.FMA(math.FMA(math.FMA(c[7], r2, c[5]), r2, c[3]), r2, c[1])
	l := math.FMA(r, math.FMA(r, po, pe), kl)
	t := float64(y * l)
	t = min(max(t, -160), 160) // t is not NaN
	m := math.RoundToEven(t*16) / 16
	r = t - m
	tj := pow32Exp2[int64(m*16)&15]
	r2 = float64(r * r)
	d := &pow32Q
	q := math.FMA(math.FMA(r2, d[4], math.FMA(d[3], r, d[2])), r2, math.FMA(d[1], r, d[0]))
	v := math.FMA(float64(tj*r), q, tj)
	v = float64(v+pow32Snap) - pow32Snap // to a multiple of 2^-37: exact ties stay ties
	// 2^floor(m), normal, so the product is exact, as VSCALEFPD's.
	return v * math.Float64frombits(uint64(int64(math.Floor(m))+1023)<<52)
}

// powBlock is how many elements powVia takes at a time when dst is one of
// the inputs: the kernel writes a scratch block, so that the lanes it
// leaves can still read their operands.
const powBlock = 512

var (
	pow64Pool = sync.Pool{New: func() any { return new([powBlock]float64) }}
	pow32Pool = sync.Pool{New: func() any { return new([powBlock]float32) }}
)

// powVia returns a set's Pow on kernels of ordinary lanes (vector and
// scalar exponent; pool holds *[powBlock]T): a call whose kernel reports a
// lane it did not compute (ok false) computes every such lane again with
// powOne (pow64.Pow: C99's special values).
func powVia[T float32 | float64](vv func(dst, x, y *T, n int) bool, vs func(dst, x *T, y T, n int) bool, pool *sync.Pool) func(dst, x, y []T, ys T) {
	run := func(dst, x, y []T, ys T) {
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
			if !pow64.Ordinary(float64(v), float64(e)) {
				dst[i] = powOne(v, e)
			}
		}
	}
	return func(dst, x, y []T, ys T) {
		if len(dst) == 0 {
			return
		}
		if y == nil && !pow64.Ordinary(1, float64(ys)) {
			powGo(dst, x, nil, ys) // no lane is ordinary, or a shortcut exponent
			return
		}
		if &dst[0] != &x[0] && (y == nil || &dst[0] != &y[0]) {
			run(dst, x, y, ys)
			return
		}
		buf := pool.Get().(*[powBlock]T)
		defer pool.Put(buf)
		for len(dst) > 0 {
			n := min(len(dst), powBlock)
			var yb []T
			if y != nil {
				yb, y = y[:n], y[n:]
			}
			run(buf[:n], x[:n], yb, ys)
			copy(dst[:n], buf[:n])
			dst, x = dst[n:], x[n:]
		}
	}
}
