package cpu

import (
	endian "encoding/binary"
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/layout"
)

// integer is the element types of the integer dtypes (I32, I64, and U8,
// which Bool shares).
type integer interface{ ~int32 | ~int64 | ~uint8 }

// The operation table's integer rules (device.Op.Int) are written once on
// int64 and called per element through a function value, two indirect
// calls an element. The rows here are the same rules written inline for
// the operations ordinary code runs on integers (index arithmetic, masks,
// label comparisons), on rows whose elements are adjacent or one repeated
// element (int32 and int64 Neg and Abs through vec's kernels, which wrap
// the same way); every other case still takes the table's rule. Wrapping
// arithmetic in T equals the table's int64 arithmetic narrowed to T, so
// the results are the same bits.

// intUnaryRow sets d[i] to op(x[i]) with an inline loop, or reports false
// for an op without one.
func intUnaryRow[T integer](op device.UnaryOp, d, x []T) bool {
	x = x[:len(d)]
	switch op {
	case device.Neg:
		if vecIntUnary(vec.NegInt[int32], vec.NegInt[int64], d, x) {
			break
		}
		for i, v := range x {
			d[i] = -v
		}
	case device.Abs:
		if ^T(0) > 0 { // U8: Abs is the identity
			copy(d, x)
			break
		}
		if vecIntUnary(vec.AbsInt[int32], vec.AbsInt[int64], d, x) {
			break
		}
		for i, v := range x {
			d[i] = max(v, -v) // without a branch; MinInt stays MinInt, as -MinInt wraps
		}
	case device.Square:
		for i, v := range x {
			d[i] = v * v
		}
	case device.Relu:
		for i, v := range x {
			d[i] = max(v, 0)
		}
	case device.Sign:
		for i, v := range x {
			d[i] = b2t[T](v > 0) - b2t[T](v < 0)
		}
	default:
		return false
	}
	return true
}

// vecIntUnary runs on32 or on64 (vec's AbsInt or NegInt, whose wrapping
// is the table's) on int32 or int64 rows and reports whether it did:
// false for U8, and for rows vec refuses (a partial overlap).
func vecIntUnary[T integer](on32 func(dst, x []int32) error, on64 func(dst, x []int64) error, d, x []T) bool {
	switch dv := any(d).(type) {
	case []int32:
		return on32(dv, any(x).([]int32)) == nil
	case []int64:
		return on64(dv, any(x).([]int64)) == nil
	}
	return false
}

// b2t is 1 for true and 0 for false, in T.
func b2t[T integer](c bool) T {
	var v T
	if c {
		v = 1
	}
	return v
}

// intUnaryRows applies op to src into dst: adjacent rows through
// intUnaryRow, the rest (and ops without a row) through f, the table's
// rule.
func intUnaryRows[T integer](op device.UnaryOp, dst []T, dl layout.Layout, src []T, sl layout.Layout, f func(T) T) {
	mapRuns(dst, dl, src, sl, func(d, s []T) {
		if !intUnaryRow(op, d, s) {
			for k := range d {
				d[k] = f(s[k])
			}
		}
	}, f)
}

// intBinaryRows applies an arithmetic op to a and b into dst: rows whose
// destination is adjacent and whose operands are each adjacent or one
// repeated element go through intBinaryRow, the rest through f, the
// table's rule.
func intBinaryRows[T integer](op device.BinaryOp, dst []T, dl layout.Layout, a []T, al layout.Layout, b []T, bl layout.Layout, f func(T, T) T) {
	binaryRows(dst, dl, a, al, b, bl, func(d, x []T, xs int, y []T, ys int) bool {
		return intBinaryRow(op, d, x, xs, y, ys)
	}, nil, f)
}

// intBinaryRow sets d[i] to x[i] op y[i], x and y each a row (step 1) or
// one element (step 0), with an inline loop, or reports false for an op
// without one (or two repeated elements, which the caller's loop does as
// fast).
func intBinaryRow[T integer](op device.BinaryOp, d, x []T, xs int, y []T, ys int) bool {
	n := len(d)
	switch {
	case xs == 1 && ys == 1:
		x, y := x[:n], y[:n]
		switch op {
		case device.Add:
			for i := range d {
				d[i] = x[i] + y[i]
			}
		case device.Sub:
			for i := range d {
				d[i] = x[i] - y[i]
			}
		case device.Mul:
			for i := range d {
				d[i] = x[i] * y[i]
			}
		case device.Maximum:
			for i := range d {
				d[i] = max(x[i], y[i])
			}
		case device.Minimum:
			for i := range d {
				d[i] = min(x[i], y[i])
			}
		default:
			return false
		}
	case xs == 1 && ys == 0:
		return intScalarRow(op, d, x[:n], y[0], false)
	case xs == 0 && ys == 1:
		return intScalarRow(op, d, y[:n], x[0], true)
	default:
		return false
	}
	return true
}

// intScalarRow sets d[i] to x[i] op s, or to s op x[i] when left is set
// (the scalar was the left operand).
func intScalarRow[T integer](op device.BinaryOp, d, x []T, s T, left bool) bool {
	d = d[:len(x)] // one length for both: no bounds checks in the loops
	switch op {
	case device.Add:
		for i, v := range x {
			d[i] = v + s
		}
	case device.Sub:
		if left {
			for i, v := range x {
				d[i] = s - v
			}
		} else {
			for i, v := range x {
				d[i] = v - s
			}
		}
	case device.Mul:
		for i, v := range x {
			d[i] = v * s
		}
	case device.Maximum:
		for i, v := range x {
			d[i] = max(v, s)
		}
	case device.Minimum:
		for i, v := range x {
			d[i] = min(v, s)
		}
	default:
		return false
	}
	return true
}

// predicateRows runs a unary test of src into the Bool dst: adjacent rows
// through predicateRow, the rest through f, the table's rule.
func predicateRows[T num](op device.UnaryOp, dst []uint8, dl layout.Layout, src []T, sl layout.Layout, f func(T) uint8) {
	mapRuns(dst, dl, src, sl, func(d []uint8, s []T) {
		if !predicateRow(op, d, s) {
			for k := range d {
				d[k] = f(s[k])
			}
		}
	}, f)
}

// predicateRow writes the test op of x into d (0 or 1) with an inline loop
// (for integers the float tests are constants), or reports false for an
// op without one.
func predicateRow[T num](op device.UnaryOp, d []uint8, x []T) bool {
	x = x[:len(d)]
	float := isFloat[T]()
	switch {
	case op == device.Not:
		if bs, ok := any(x).([]uint8); ok {
			notBytes(d, bs)
			break
		}
		for i, v := range x {
			d[i] = b2u8(v == 0) // NaN is nonzero, so Not(NaN) is false
		}
	case op == device.IsNaN && float:
		// Only NaN is unequal to itself: the vector comparison of the row
		// with itself.
		switch xv := any(x).(type) {
		case []float32:
			_ = vec.Compare(vec.CmpNe, d, xv, xv)
		case []float64:
			_ = vec.Compare(vec.CmpNe, d, xv, xv)
		default:
			for i, v := range x {
				d[i] = b2u8(v != v)
			}
		}
	case !float && (op == device.IsNaN || op == device.IsInf || op == device.IsFinite):
		fill := b2u8(op == device.IsFinite)
		for i := range d {
			d[i] = fill
		}
	case op == device.IsInf:
		for i, v := range x {
			f := float64(v)
			d[i] = b2u8(f > math.MaxFloat64 || f < -math.MaxFloat64)
		}
	case op == device.IsFinite:
		for i, v := range x {
			d[i] = b2u8(v-v == 0) // Inf - Inf and NaN - NaN are NaN
		}
	default:
		return false
	}
	return true
}

// nonzeroBytes returns, for each byte of v, 1 where that byte is nonzero
// and 0 where it is zero: ((v & 0x7f..) + 0x7f..) | v has a byte's high
// bit set exactly where that byte is nonzero (the sum cannot carry into
// the next byte), and the high bits, moved down, are the result.
func nonzeroBytes(v uint64) uint64 {
	const lows, highs = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	return ((v&lows + lows) | v) & highs >> 7
}

// notBytes sets d[i] to 1 where x[i] is zero and to 0 elsewhere: vec's
// NotBytes (32 bytes a vector), or, for rows it refuses (a partial
// overlap), a byte at a time in order, as the table's loop would.
func notBytes(d, x []uint8) {
	x = x[:len(d)]
	if vec.NotBytes(d, x) == nil {
		return
	}
	for i, v := range x {
		d[i] = b2u8(v == 0)
	}
}

// logicBytes sets d[i] to x[i] op y[i] for the logical And, Or and Xor of
// bytes (nonzero is true), eight bytes a word.
func logicBytes(op device.BinaryOp, d, x, y []uint8) {
	x, y = x[:len(d)], y[:len(d)]
	w := len(d) &^ 7
	for i := 0; i < w; i += 8 {
		a, b := endian.LittleEndian.Uint64(x[i:]), endian.LittleEndian.Uint64(y[i:])
		var v uint64
		switch op {
		case device.And:
			v = nonzeroBytes(a) & nonzeroBytes(b)
		case device.Or:
			v = nonzeroBytes(a | b)
		default:
			v = nonzeroBytes(a) ^ nonzeroBytes(b)
		}
		endian.LittleEndian.PutUint64(d[i:], v)
	}
	for i := w; i < len(d); i++ {
		a, b := b2u8(x[i] != 0), b2u8(y[i] != 0)
		switch op {
		case device.And:
			d[i] = a & b
		case device.Or:
			d[i] = a | b
		default:
			d[i] = a ^ b
		}
	}
}
