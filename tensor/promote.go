package tensor

import (
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// PromoteTypes returns the dtype a binary operation computes in when its
// operands have dtypes a and b. The rule is PyTorch's (torch.promote_types),
// which agrees with NumPy's within a category:
//
//   - equal dtypes stay as they are;
//   - Bool promotes to the other operand's dtype;
//   - two integers give the wider one (U8 with I32 gives I32, anything
//     with I64 gives I64);
//   - two floats give the wider one, and F16 with BF16 gives F32;
//   - an integer with a float gives the float dtype (NumPy would widen
//     I32 with F32 to F64; tessera keeps the float operand's dtype, as
//     PyTorch does, so a GPU that computes F32 only can run the result).
func PromoteTypes(a, b dtype.DType) dtype.DType {
	switch {
	case a == b || !a.Valid() || !b.Valid():
		return a
	case a == dtype.Bool:
		return b
	case b == dtype.Bool:
		return a
	case a.IsFloat() && b.IsFloat():
		if (a == dtype.F16 && b == dtype.BF16) || (a == dtype.BF16 && b == dtype.F16) {
			return dtype.F32
		}
		if a.Size() >= b.Size() {
			return a
		}
		return b
	case a.IsFloat():
		return a
	case b.IsFloat():
		return b
	case a.Size() >= b.Size(): // two integers: U8 < I32 < I64
		return a
	}
	return b
}

// ResultType returns the dtype a binary operation of a and b computes in,
// PyTorch's torch.result_type: PromoteTypes of the two dtypes, except that
// a 0-d operand (a Scalar) does not widen an operand with axes in its own
// category or a lower one. So F32 plus a 0-d F64 stays F32, I32 plus a
// 0-d I64 stays I32, and U8 plus a 0-d I32 stays U8, while I32 plus a 0-d
// F64 gives F64 (the 0-d operand's category is higher). NumPy 1.24's
// value-based casting agrees for the floats and for integers whose value
// fits. A failed operand's dtype is returned as is.
func ResultType(a, b *Tensor) dtype.DType {
	if a == nil || b == nil || a.err != nil || b.err != nil {
		if a != nil && a.err == nil {
			return a.DType()
		}
		if b != nil && b.err == nil {
			return b.DType()
		}
		return dtype.Invalid
	}
	da, db := a.DType(), b.DType()
	za, zb := a.Rank() == 0, b.Rank() == 0
	switch {
	case za == zb:
		return PromoteTypes(da, db)
	case za && category(da) <= category(db):
		return db
	case zb && category(db) <= category(da):
		return da
	}
	return PromoteTypes(da, db)
}

// category orders the dtype kinds for ResultType: Bool, integers, floats.
func category(dt dtype.DType) int {
	switch {
	case dt == dtype.Bool:
		return 0
	case dt.IsFloat():
		return 2
	}
	return 1
}

// trueDivType is the dtype Div and the float-only functions (Atan2)
// compute in for operands promoted to dt: integer and Bool operands give
// F32 (PyTorch's default float dtype; NumPy gives F64, which GPUs do not
// compute).
func trueDivType(dt dtype.DType) dtype.DType {
	if dt.IsFloat() {
		return dt
	}
	return dtype.F32
}

// promoteBinary casts a and b to the dtype op computes in (ResultType, and
// true division for Div). It returns the operands to use: a or b itself
// when no cast was needed, else a cast the caller releases. Failed
// operands pass through, so the operation reports their error.
func promoteBinary(op device.BinaryOp, a, b *Tensor) (*Tensor, *Tensor) {
	if a == nil || b == nil || a.err != nil || b.err != nil {
		return a, b
	}
	if da := a.DType(); da == b.DType() && da.IsFloat() {
		return a, b // the common case: nothing to promote, and no division rule applies
	}
	dt := ResultType(a, b)
	if def, ok := op.Def(); op == device.Div || (ok && def.Accepts == device.Floats) {
		dt = trueDivType(dt) // true division, and float functions (Atan2) of integers: F32
	}
	if a.DType() != dt {
		a = a.Cast(dt)
	}
	if b.DType() != dt {
		b = b.Cast(dt)
	}
	return a, b
}

// intRange returns the smallest and largest value of an integer or Bool
// dtype, as float64 (the largest I64 rounds up to 2^63, which is why
// representable compares with < for the upper end).
func intRange(dt dtype.DType) (lo, hi float64) {
	switch dt {
	case dtype.Bool:
		return 0, 1
	case dtype.U8:
		return 0, math.MaxUint8
	case dtype.I32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// representable reports whether v is exactly a value of the integer or Bool
// dtype dt, so that filling dt with v loses nothing.
func representable(dt dtype.DType, v float64) bool {
	lo, hi := intRange(dt)
	if v != math.Trunc(v) || v < lo { // NaN and ±Inf fail the first test or the range
		return false
	}
	if dt == dtype.I64 {
		return v < hi // hi is 2^63 after rounding
	}
	return v <= hi
}

// scalarOnInt applies op with the scalar v to an integer or Bool tensor t
// when v is not a value of t's dtype, op is Div or Atan2, or t is Bool and
// v an integer; ok is false when the ordinary path (v converted to t's
// dtype) is exact. The results follow PyTorch's rule for a Python scalar:
// arithmetic with a fraction, NaN or ±Inf computes in F32 (the tensor is
// cast, v is not truncated), Div is true division and Atan2 a float
// function (both in F32, as their tensor forms on integers), ordered
// comparisons and equality are decided exactly against the real value
// (Lt(1.5) on 1 is true; Eq(0.5) is false everywhere), and the logical
// operations see only whether v is nonzero (NaN is). A Bool t with an
// integer v computes in I64 (NumPy and PyTorch make a Python int operand
// int64 there). An integer v outside the dtype's range wraps in Add, Sub
// and Mul (u8 + (-1) is u8 + 255, exactly what wrapping arithmetic gives),
// is no bound in Maximum and Minimum when it never binds (Clamp(0, 1e10)
// of I32 is the tensor itself), and is an ErrValue elsewhere (PyTorch's
// overflow check).
func (t *Tensor) scalarOnInt(op device.BinaryOp, v float64) (r *Tensor, ok bool) {
	dt := t.DType()
	if dt.IsFloat() || t.err != nil {
		return nil, false
	}
	switch op {
	case device.And, device.Or, device.Xor:
		if v == 0 || v == 1 {
			return nil, false
		}
		return t.binaryScalar(op, 1), true // nonzero, NaN included
	case device.Eq, device.Ne, device.Lt, device.Le, device.Gt, device.Ge:
		if representable(dt, v) {
			return nil, false
		}
		return t.compareInexact(op, v), true
	case device.Div, device.Atan2:
	default:
		if dt == dtype.Bool && v == math.Trunc(v) && !math.IsInf(v, 0) {
			// A Bool tensor with an integer scalar computes in I64, as
			// NumPy's and PyTorch's Python int operand makes it: True + 2
			// is 3, Maximum(False, 1) is 1 (the I64 path wraps or refuses
			// an integer outside its range).
			if def, _ := op.Def(); !def.Accepts.Has(dtype.I64) || def.Param != "" {
				return nil, false // the ordinary path reports the dtype error
			}
			w := t.Cast(dtype.I64)
			defer w.Release()
			return w.binaryScalar(op, v), true
		}
		if representable(dt, v) {
			return nil, false
		}
		if v == math.Trunc(v) && !math.IsInf(v, 0) { // an integer outside the dtype
			lo, _ := intRange(dt)
			switch {
			case op == device.Add || op == device.Sub || op == device.Mul:
				// Integer arithmetic wraps, so v reduced modulo 2^bits gives
				// the same result exactly: u8 + (-1) is u8 + 255.
				return t.binaryScalar(op, wrapScalar(dt, v)), true
			case (op == device.Minimum && v > lo) || (op == device.Maximum && v < lo):
				return t.Clone(), true // a bound that never binds: Clamp(0, 1e10)
			}
			return fail(op.String()+"Scalar", errs.ErrValue, "scalar %v is outside the range of %v (Cast first)", v, dt), true
		}
	}
	def, _ := op.Def()
	if !def.Accepts.Has(dtype.F32) || def.Param != "" {
		return nil, false // the ordinary path reports the dtype error (LeakyRelu and Elu are float activations)
	}
	f := t.Cast(dtype.F32)
	defer f.Release()
	return f.binaryScalar(op, v), true
}

// wrapScalar reduces the integer v modulo 2^bits of the integer dtype dt
// into dt's range. Exact: float64 holds v, and for I64 an out-of-range v is
// a multiple of 2^11, as are the steps below.
func wrapScalar(dt dtype.DType, v float64) float64 {
	m := math.Ldexp(1, 8*dt.Size())
	r := math.Mod(v, m)
	if r < 0 {
		r += m
	}
	if dt.IsSigned() && r >= m/2 {
		r -= m
	}
	return r
}

// compareInexact compares the integer tensor t with a v that is not a
// value of its dtype (NaN, ±Inf, a fraction, or out of range), exactly.
func (t *Tensor) compareInexact(op device.BinaryOp, v float64) *Tensor {
	lo, hi := intRange(t.DType())
	all := func(truth bool) *Tensor {
		e := t.binaryScalar(device.Eq, 0)
		defer e.Release()
		n := t.binaryScalar(device.Ne, 0)
		defer n.Release()
		if truth {
			return e.Or(n) // true everywhere
		}
		return e.And(n) // false everywhere
	}
	switch {
	case v != v: // NaN: only Ne holds
		return all(op == device.Ne)
	case op == device.Eq:
		return all(false)
	case op == device.Ne:
		return all(true)
	case v > hi || (t.DType() == dtype.I64 && v >= hi): // above every value
		return all(op == device.Lt || op == device.Le)
	case v < lo: // below every value
		return all(op == device.Gt || op == device.Ge)
	}
	// A fraction inside the range: x < v and x <= v mean x <= floor(v);
	// x > v and x >= v mean x > floor(v), which is a value of the dtype.
	f := math.Floor(v)
	if op == device.Lt || op == device.Le {
		return t.binaryScalar(device.Le, f)
	}
	return t.binaryScalar(device.Gt, f)
}
