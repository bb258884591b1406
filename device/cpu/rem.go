package cpu

import (
	"math"

	"github.com/tessera-go/tessera/device"
)

// The float remainders and floored quotient. The op table's reference
// for Fmod is math.Mod, which divides one quotient bit per step through
// Frexp and Ldexp (about 40-100 ns an element for quotients of a few
// dozen). The same exact remainder is one float64 division for float32
// operands (24-bit significands) below a quotient of 2^29, or else a few
// 64-bit integer modulo operations, and one division and one fused
// multiply-add for float64 ones below 2^52 (math.Mod above). Results
// equal the reference bit for bit (TestRemainders), so which path an
// element takes never shows.

// fastBinary returns a kernel for op on T that matches the op table's
// float64 reference rounded to T, or nil: Fmod on an exact fmod (fmod32,
// fmod64), and Mod and FloorDiv on the table's rules after it
// (device.FloorModRem, device.FloorDivRem), in float64 and rounded once,
// where the reference takes math.Mod's remainder, which is the same value.
func fastBinary[T float](op device.BinaryOp) func(a, b T) T {
	// The fmod of T as a plain function value: a generic one chosen per
	// element ran float32 Fmod at 0.6x.
	fmod, ok := any(fmod64).(func(a, b T) T)
	if !ok {
		fmod = any(fmod32).(func(a, b T) T)
	}
	switch op {
	case device.Fmod:
		return fmod
	case device.Mod:
		return func(a, b T) T {
			return T(device.FloorModRem(float64(b), float64(fmod(a, b))))
		}
	case device.FloorDiv:
		return func(a, b T) T {
			if b == 0 {
				return T(float64(a) / float64(b))
			}
			return T(device.FloorDivRem(float64(a), float64(b), float64(fmod(a, b))))
		}
	}
	return nil
}

// fmod32 is C's fmodf, exact: |a| mod |b| computed on the significands as
// integers, with the sign of a; NaN when a is infinite or b is zero or
// either is NaN.
func fmod32(a, b float32) float32 {
	ua, ub := math.Float32bits(a), math.Float32bits(b)
	sign := ua & 0x80000000
	xa, xb := ua&0x7fffffff, ub&0x7fffffff
	if xa >= 0x7f800000 || xb > 0x7f800000 || xb == 0 {
		return float32(math.NaN())
	}
	if xa < xb { // |a| < |b|, b = ±Inf included
		return a
	}
	// A quotient below 2^29 takes one float64 division. Its rounding is
	// under 2^-24, while an exact quotient that is not an integer lies at
	// least 1/mb > 2^-24 below the next one (mb < 2^24 is |b|'s integer
	// significand, and |a| a multiple of |b|'s unit), so the truncated
	// quotient t is the exact one's integer part; t*|b| is exact (29 + 24
	// bits), and so is |a| - t*|b|, a multiple of |b|'s unit below |b|.
	fa, fb := float64(math.Float32frombits(xa)), float64(math.Float32frombits(xb))
	if q := fa / fb; q < 1<<29 {
		r := fa - math.Trunc(q)*fb
		return math.Float32frombits(sign | math.Float32bits(float32(r)))
	}
	ma, ea := unpack32(xa)
	mb, eb := unpack32(xb)
	// |a| = ma·2^ea, |b| = mb·2^eb (in units of the smallest subnormal),
	// ea >= eb: the remainder is ((ma·2^(ea-eb)) mod mb)·2^eb. ma, mb <
	// 2^24, so shifting by 40 bits at a time stays within 64 bits.
	m, d := uint64(ma)%uint64(mb), uint64(mb)
	for e := ea - eb; e > 0; {
		s := min(e, 40)
		m = (m << s) % d
		e -= s
	}
	if m == 0 {
		return math.Float32frombits(sign)
	}
	// m·2^eb with m < mb < 2^24: normalise it back to a float32.
	for m < 1<<23 && eb > 1 {
		m <<= 1
		eb--
	}
	if m < 1<<23 { // subnormal: exponent field 0
		return math.Float32frombits(sign | uint32(m))
	}
	return math.Float32frombits(sign | uint32(eb)<<23 | uint32(m)&0x7fffff)
}

// fmod64 is C's fmod, exact, the value of math.Mod. For a quotient below
// 2^52 the truncation t of one division is the exact quotient's integer
// part, or one above it where the exact quotient lies just below an
// integer and rounds up to it (3b - b's unit over b, for one); never
// below, as rounding is monotonic and that integer part is a float. Then
// |a| - t*|b| in one fused multiply-add is exact: a multiple of |b|'s
// unit below |b| in magnitude, in [0, |b|) when t is right and in (-|b|,
// 0) when t is one above, where adding |b| (exactly) mends it. Larger
// quotients take math.Mod.
func fmod64(a, b float64) float64 {
	fa, fb := math.Abs(a), math.Abs(b)
	if !(fa < math.Inf(1)) || !(fb <= math.Inf(1)) || fb == 0 {
		return math.NaN()
	}
	if fa < fb { // b = ±Inf included
		return a
	}
	q := fa / fb
	if !(q < 1<<52) {
		return math.Mod(a, b)
	}
	t := math.Trunc(q)
	r := math.FMA(-t, fb, fa)
	if r < 0 {
		r += fb
	}
	return math.Copysign(r, a)
}

// unpack32 splits the bits x of a finite nonzero |f| into an integer
// significand and the biased exponent that goes with it: |f| = m·2^(e-150)
// with e >= 1 (subnormals keep e = 1 and a significand below 2^23).
func unpack32(x uint32) (m uint32, e int) {
	if e = int(x >> 23); e == 0 {
		return x, 1
	}
	return x&0x7fffff | 1<<23, e
}
