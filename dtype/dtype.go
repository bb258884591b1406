// Package dtype names the element types a tessera tensor can hold and maps
// them to Go types.
//
// F16 and BF16 have no native Go type; Float16 and BFloat16 hold their bit
// patterns and convert to and from float32 with round-to-nearest-even, so a
// value computed on the CPU rounds exactly as IEEE 754 says.
package dtype

import (
	"fmt"
	"math"

	"github.com/tessera-go/tessera/errs"
)

// DType is an element type. The zero value is Invalid, so an uninitialised
// dtype is never mistaken for a real one.
type DType uint8

// The element types tessera supports.
const (
	Invalid DType = iota
	F32           // IEEE 754 binary32
	F64           // IEEE 754 binary64
	F16           // IEEE 754 binary16, stored as Float16
	BF16          // bfloat16 (binary32's top half), stored as BFloat16
	I32           // two's-complement int32
	I64           // two's-complement int64
	U8            // uint8
	Bool          // one byte, 0 or 1
)

// All lists every valid dtype, in declaration order; tests range over it.
var All = []DType{F32, F64, F16, BF16, I32, I64, U8, Bool}

var names = [...]string{"invalid", "f32", "f64", "f16", "bf16", "i32", "i64", "u8", "bool"}
var sizes = [...]int{0, 4, 8, 2, 2, 4, 8, 1, 1}

// Valid reports whether d is one of the supported dtypes.
func (d DType) Valid() bool { return d > Invalid && d <= Bool }

// Size is the number of bytes one element occupies (0 for Invalid).
func (d DType) Size() int {
	if !d.Valid() {
		return 0
	}
	return sizes[d]
}

// String is the short lower-case name used in printing: "f32", "bool".
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return names[d]
}

// IsFloat reports whether d is a floating-point dtype.
func (d DType) IsFloat() bool { return d == F32 || d == F64 || d == F16 || d == BF16 }

// IsInt reports whether d is an integer dtype (Bool excluded).
func (d DType) IsInt() bool { return d == I32 || d == I64 || d == U8 }

// IsSigned reports whether d can hold negative values.
func (d DType) IsSigned() bool { return d.IsFloat() || d == I32 || d == I64 }

// Parse returns the dtype with the given name ("f32", "bool", ...); an
// unknown name is an ErrDType.
func Parse(name string) (DType, error) {
	for _, d := range All {
		if d.String() == name {
			return d, nil
		}
	}
	return Invalid, errs.New("dtype", "Parse", errs.ErrDType, "unknown dtype %q", name)
}

// Elem is the set of Go types that map to a dtype; the tensor package's
// generic constructors and readback accept exactly these. int maps to I64.
type Elem interface {
	float32 | float64 | int32 | int64 | int | uint8 | bool | Float16 | BFloat16
}

// Of returns the dtype that holds values of Go type T.
func Of[T Elem]() DType {
	var z T
	switch any(z).(type) {
	case float32:
		return F32
	case float64:
		return F64
	case int32:
		return I32
	case int64, int:
		return I64
	case uint8:
		return U8
	case bool:
		return Bool
	case Float16:
		return F16
	case BFloat16:
		return BF16
	}
	return Invalid
}

// Float16 holds the bits of an IEEE 754 binary16 value.
type Float16 uint16

// BFloat16 holds the bits of a bfloat16 value.
type BFloat16 uint16

// F16FromFloat32 rounds f to the nearest binary16 value, ties to even.
// Values beyond the largest finite binary16 become ±Inf; NaN stays NaN.
func F16FromFloat32(f float32) Float16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if man != 0 {
			return Float16(sign | 0x7e00 | uint16(man>>13))
		}
		return Float16(sign | 0x7c00)
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return Float16(sign | 0x7c00)
	}
	if e <= 0 {
		// Subnormal or zero in binary16.
		if e < -10 {
			return Float16(sign)
		}
		m := man | 0x800000 // implicit bit
		shift := uint32(14 - e)
		rest := m & ((uint32(1) << shift) - 1)
		r := m >> shift
		// Ties to even without a branch: rest + half - 1 + lsb reaches
		// 1<<shift exactly when rest > half, or rest == half and r is odd.
		r += (rest + uint32(1)<<(shift-1) - 1 + r&1) >> shift
		return Float16(sign | uint16(r))
	}
	r := uint32(e)<<10 | man>>13
	// Ties to even, as above (a data-dependent branch here mispredicts on
	// real data and cost 4-6x): the carry may reach the exponent, and Inf;
	// both are correct.
	r += (man&0x1fff + 0x0fff + r&1) >> 13
	return Float16(sign | uint16(r))
}

// Float32 widens h exactly.
func (h Float16) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: value = man * 2^-24.
		v := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// F16FromFloat64 rounds f to binary16 in one step (no double rounding through
// float32), ties to even.
func F16FromFloat64(f float64) Float16 {
	h := F16FromFloat32(float32(f))
	return Float16(fixDoubleRounding(f, uint16(h), func(b uint16) float64 {
		return float64(Float16(b).Float32())
	}, 65536))
}

// fixDoubleRounding corrects a 16-bit rounding of f made through float32. The
// float32 step can land exactly on a 16-bit midpoint and then tie the wrong
// way; the 16-bit neighbours of the first guess bracket f, so picking the
// nearer (ties to the even pattern) gives the one-step rounding. overflow is
// the magnitude the format's infinity stands in for when measuring distance.
func fixDoubleRounding(f float64, h uint16, value func(uint16) float64, overflow float64) uint16 {
	if math.IsNaN(f) || math.IsInf(f, 0) || float64(float32(f)) == f {
		return h
	}
	val := func(b uint16) float64 {
		v := value(b)
		if math.IsInf(v, 0) {
			return math.Copysign(overflow, v)
		}
		return v
	}
	v := val(h)
	if v == f {
		return h
	}
	up := func(x uint16) uint16 { // next pattern toward +Inf
		if x&0x8000 != 0 {
			if x == 0x8000 {
				return 1
			}
			return x - 1
		}
		return x + 1
	}
	down := func(x uint16) uint16 { // next pattern toward -Inf
		if x&0x8000 == 0 {
			if x == 0 {
				return 0x8001
			}
			return x - 1
		}
		return x + 1
	}
	lo, hi := h, up(h)
	if v > f {
		lo, hi = down(h), h
	}
	mid := val(lo) + (val(hi)-val(lo))/2
	switch {
	case f < mid:
		return lo
	case f > mid:
		return hi
	case lo&1 == 0:
		return lo
	}
	return hi
}

// BF16FromFloat32 rounds f to the nearest bfloat16 value, ties to even.
func BF16FromFloat32(f float32) BFloat16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN: keep it quiet and NaN
		return BFloat16(b>>16 | 0x40)
	}
	// Ties to even without a branch (one on the low half mispredicts on
	// real data, and cost 4-6x in bulk conversions): the low half plus
	// 0x7fff plus the kept lsb carries exactly when it is above the tie,
	// or at it with an odd lsb; the carry may reach the exponent, and
	// Inf, both correct. NaN was handled above, so b+0x8000 cannot wrap.
	return BFloat16((b + 0x7fff + (b>>16)&1) >> 16)
}

// BF16FromFloat64 rounds f to bfloat16 in one step, ties to even.
func BF16FromFloat64(f float64) BFloat16 {
	h := BF16FromFloat32(float32(f))
	return BFloat16(fixDoubleRounding(f, uint16(h), func(b uint16) float64 {
		return float64(BFloat16(b).Float32())
	}, 0x1p128))
}

// Float32 widens h exactly.
func (h BFloat16) Float32() float32 { return math.Float32frombits(uint32(h) << 16) }

// String prints the value, not the bits.
func (h Float16) String() string { return fmt.Sprint(h.Float32()) }

// String prints the value, not the bits.
func (h BFloat16) String() string { return fmt.Sprint(h.Float32()) }
