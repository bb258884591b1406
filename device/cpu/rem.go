package cpu

import (
	"math"

	"github.com/tessera-go/tessera/device"
)

// The float32 remainders. The op table's reference for Fmod is math.Mod,
// which divides one quotient bit per step through Frexp and Ldexp (about
// 100 ns an element for quotients of a few dozen); float32 operands have
// 24-bit significands, so the same exact remainder is a few 64-bit integer
// modulo operations. Results equal the reference bit for bit
// (TestRemainder32), so which path an element takes never shows.

// fast32Binary returns a float32 kernel for op that matches its float64
// reference rounded to float32, or nil.
func fast32Binary(op device.BinaryOp) func(a, b float32) float32 {
	switch op {
	case device.Fmod:
		return fmod32
	case device.Mod:
		return mod32
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

// unpack32 splits the bits x of a finite nonzero |f| into an integer
// significand and the biased exponent that goes with it: |f| = m·2^(e-150)
// with e >= 1 (subnormals keep e = 1 and a significand below 2^23).
func unpack32(x uint32) (m uint32, e int) {
	if e = int(x >> 23); e == 0 {
		return x, 1
	}
	return x&0x7fffff | 1<<23, e
}

// mod32 is the floored remainder (NumPy's mod): fmod moved by b when the
// signs differ, a zero taking b's sign; the sum is formed in float64 and
// rounded once, as the reference does.
func mod32(a, b float32) float32 {
	m := fmod32(a, b)
	switch {
	case m == 0:
		return float32(math.Copysign(0, float64(b)))
	case (m < 0) != (b < 0) && b == b:
		return float32(float64(m) + float64(b))
	}
	return m
}
