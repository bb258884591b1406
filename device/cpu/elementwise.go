package cpu

import (
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Unary applies op elementwise.
func (d *Device) Unary(op device.UnaryOp, dst, src device.Operand) error {
	name := op.String()
	bufs, err := d.operands(name, dst, src)
	if err != nil {
		return err
	}
	db, sb := bufs[0], bufs[1]
	if err := sameShape(name, dst, src); err != nil {
		return err
	}
	if db.dt != sb.dt {
		return errs.New("cpu", name, errs.ErrDType, "source %v and destination %v differ", sb.dt, db.dt)
	}
	if err := unaryDTypeOK(name, op, sb.dt); err != nil {
		return err
	}
	switch sb.dt {
	case dtype.F32:
		floatUnaryRows(op, slice[float32](db), dst.Layout, slice[float32](sb), src.Layout)
	case dtype.F64:
		floatUnaryRows(op, slice[float64](db), dst.Layout, slice[float64](sb), src.Layout)
	case dtype.F16, dtype.BF16:
		return d.widened(dst, []device.Operand{src}, func(o *Buffer, ol layout.Layout, in []*Buffer, il []layout.Layout) {
			floatUnaryRows(op, slice[float32](o), ol, slice[float32](in[0]), il[0])
		})
	case dtype.I32:
		map1(slice[int32](db), dst.Layout, slice[int32](sb), src.Layout, intUnary[int32](op))
	case dtype.I64:
		map1(slice[int64](db), dst.Layout, slice[int64](sb), src.Layout, intUnary[int64](op))
	case dtype.U8:
		map1(slice[uint8](db), dst.Layout, slice[uint8](sb), src.Layout, intUnary[uint8](op))
	}
	return nil
}

func unaryDTypeOK(name string, op device.UnaryOp, dt dtype.DType) error {
	switch {
	case dt == dtype.Bool:
		return errs.New("cpu", name, errs.ErrDType, "not defined for bool")
	case op.FloatOnly() && !dt.IsFloat():
		return errs.New("cpu", name, errs.ErrDType, "needs a floating dtype, have %v", dt)
	case op >= device.UnaryOp(len(device.UnaryOps())):
		return errs.New("cpu", name, errs.ErrUnsupported, "unknown unary op %d", op)
	}
	return nil
}

// widened runs a float32 kernel for F16/BF16 operands: inputs are widened to
// contiguous float32, the kernel writes a float32 result, and that is rounded
// once into dst.
func (d *Device) widened(dst device.Operand, ins []device.Operand, kernel func(out *Buffer, ol layout.Layout, in []*Buffer, il []layout.Layout)) error {
	bufs, lays, err := d.widen(ins...)
	if err != nil {
		return err
	}
	ol, _ := layout.Contiguous(dst.Layout.Shape...)
	out := newTemp(d, dtype.F32, dst.Layout.Numel())
	kernel(out, ol, bufs, lays)
	db, _ := d.own("widen", dst.Buf)
	return d.copyInto(db, dst.Layout, out, ol)
}

// widen copies each operand into a float32 scratch buffer (exact for F16
// and BF16): the view itself, made contiguous, or, when the view repeats
// elements (a broadcast) and so spans fewer storage elements than it has,
// just that storage span, read through the view's own strides. The scratch
// never holds more elements than the smaller of the two.
func (d *Device) widen(ins ...device.Operand) ([]*Buffer, []layout.Layout, error) {
	bufs := make([]*Buffer, len(ins))
	lays := make([]layout.Layout, len(ins))
	for i, in := range ins {
		b, _ := d.own("widen", in.Buf)
		src, dst := in.Layout, layout.Layout{}
		if lo, hi := in.Layout.Span(); hi-lo < in.Layout.Numel() {
			src = layout.Layout{Shape: []int{hi - lo}, Strides: []int{1}, Offset: lo}
			dst = in.Layout.Rebase(-lo)
		} else {
			dst, _ = layout.Contiguous(in.Layout.Shape...)
		}
		cl, _ := layout.Contiguous(src.Shape...)
		bufs[i] = newTemp(d, dtype.F32, cl.Numel())
		if err := d.copyInto(bufs[i], cl, b, src); err != nil {
			return nil, nil, err
		}
		lays[i] = dst
	}
	return bufs, lays, nil
}

const (
	sqrt2OverPi = 0.7978845608028654 // sqrt(2/pi)
	invSqrt2    = 0.7071067811865476
)

// floatUnary returns op as a function on one element, computed in float64 so
// that float32 results are correctly rounded wherever math's are.
func floatUnary[T float](op device.UnaryOp) func(T) T {
	f := unaryF64(op)
	return func(x T) T { return T(f(float64(x))) }
}

func unaryF64(op device.UnaryOp) func(float64) float64 {
	switch op {
	case device.Neg:
		return func(x float64) float64 { return -x }
	case device.Abs:
		return math.Abs
	case device.Sign:
		return func(x float64) float64 {
			switch {
			case x > 0:
				return 1
			case x < 0:
				return -1
			}
			return x // 0, -0 and NaN stay as they are
		}
	case device.Square:
		return func(x float64) float64 { return x * x }
	case device.Relu:
		return func(x float64) float64 {
			if x <= 0 {
				return 0 // -0 too, as the vec kernels' max(x, 0) gives
			}
			return x // NaN stays NaN
		}
	case device.Exp:
		return math.Exp
	case device.Log:
		return math.Log
	case device.Sqrt:
		return math.Sqrt
	case device.Rsqrt:
		return func(x float64) float64 { return 1 / math.Sqrt(x) }
	case device.Sin:
		return math.Sin
	case device.Cos:
		return math.Cos
	case device.Tanh:
		return math.Tanh
	case device.Sigmoid:
		return sigmoid
	case device.GeluTanh:
		return func(x float64) float64 {
			if math.IsInf(x, -1) {
				return math.Copysign(0, -1) // the limit, where the formula gives -Inf*0
			}
			return 0.5 * x * (1 + math.Tanh(sqrt2OverPi*(x+0.044715*x*x*x)))
		}
	case device.GeluErf:
		return func(x float64) float64 {
			if math.IsInf(x, -1) {
				return math.Copysign(0, -1)
			}
			return 0.5 * x * (1 + math.Erf(x*invSqrt2))
		}
	case device.Erf:
		return math.Erf
	case device.Log1p:
		return math.Log1p
	case device.Expm1:
		return math.Expm1
	case device.Floor:
		return math.Floor
	case device.Ceil:
		return math.Ceil
	case device.Round:
		return math.RoundToEven
	case device.Reciprocal:
		return func(x float64) float64 { return 1 / x }
	}
	return func(x float64) float64 { return math.NaN() }
}

// sigmoid is 1/(1+exp(-x)), evaluated without overflow for any x.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func intUnary[T ~int32 | ~int64 | ~uint8](op device.UnaryOp) func(T) T {
	switch op {
	case device.Neg:
		return func(x T) T { return -x }
	case device.Abs:
		return func(x T) T {
			if x < 0 {
				return -x
			}
			return x
		}
	case device.Sign:
		return func(x T) T {
			switch {
			case x > 0:
				return 1
			case x < 0:
				var minusOne T
				return minusOne - 1
			}
			return 0
		}
	case device.Square:
		return func(x T) T { return x * x }
	case device.Relu:
		return func(x T) T { return max(x, 0) }
	}
	return ident[T]
}

// Binary applies op to a and b elementwise.
func (d *Device) Binary(op device.BinaryOp, dst, a, b device.Operand) error {
	name := op.String()
	bufs, err := d.operands(name, dst, a, b)
	if err != nil {
		return err
	}
	db, ab, bb := bufs[0], bufs[1], bufs[2]
	if err := sameShape(name, dst, a, b); err != nil {
		return err
	}
	want := ab.dt
	if op.IsComparison() {
		want = dtype.Bool
	}
	if ab.dt != bb.dt || db.dt != want {
		return errs.New("cpu", name, errs.ErrDType, "operands %v and %v into %v", ab.dt, bb.dt, db.dt)
	}
	if op >= device.BinaryOp(len(device.BinaryOps())) {
		return errs.New("cpu", name, errs.ErrUnsupported, "unknown binary op %d", op)
	}
	if op == device.Pow && !ab.dt.IsFloat() {
		return errs.New("cpu", name, errs.ErrDType, "needs a floating dtype, have %v", ab.dt)
	}
	if ab.dt == dtype.Bool && !(op == device.Eq || op == device.Ne) {
		return errs.New("cpu", name, errs.ErrDType, "not defined for bool")
	}
	switch ab.dt {
	case dtype.F32:
		binary(op, db, dst.Layout, slice[float32](ab), a.Layout, slice[float32](bb), b.Layout, floatBinary[float32](op))
	case dtype.F64:
		binary(op, db, dst.Layout, slice[float64](ab), a.Layout, slice[float64](bb), b.Layout, floatBinary[float64](op))
	case dtype.F16, dtype.BF16:
		if op.IsComparison() {
			// Widening is exact, so compare the float32 values.
			return d.widenedCompare(op, db, dst.Layout, a, b)
		}
		return d.widened(dst, []device.Operand{a, b}, func(o *Buffer, ol layout.Layout, in []*Buffer, il []layout.Layout) {
			floatBinaryRows(op, slice[float32](o), ol, slice[float32](in[0]), il[0], slice[float32](in[1]), il[1])
		})
	case dtype.I32:
		binary(op, db, dst.Layout, slice[int32](ab), a.Layout, slice[int32](bb), b.Layout, intBinary[int32](op))
	case dtype.I64:
		binary(op, db, dst.Layout, slice[int64](ab), a.Layout, slice[int64](bb), b.Layout, intBinary[int64](op))
	case dtype.U8, dtype.Bool:
		binary(op, db, dst.Layout, slice[uint8](ab), a.Layout, slice[uint8](bb), b.Layout, intBinary[uint8](op))
	}
	return nil
}

func (d *Device) widenedCompare(op device.BinaryOp, db *Buffer, dl layout.Layout, a, b device.Operand) error {
	bufs, lays, err := d.widen(a, b)
	if err != nil {
		return err
	}
	binary(op, db, dl, slice[float32](bufs[0]), lays[0], slice[float32](bufs[1]), lays[1], nil)
	return nil
}

// binary runs an arithmetic op through f (float dtypes through the
// vectorised rows), or a comparison into Bool.
func binary[T num](op device.BinaryOp, db *Buffer, dl layout.Layout, a []T, al layout.Layout, b []T, bl layout.Layout, f func(T, T) T) {
	if op.IsComparison() {
		map2(slice[uint8](db), dl, a, al, b, bl, compare[T](op))
		return
	}
	switch x := any(a).(type) {
	case []float32:
		floatBinaryRows(op, slice[float32](db), dl, x, al, any(b).([]float32), bl)
		return
	case []float64:
		floatBinaryRows(op, slice[float64](db), dl, x, al, any(b).([]float64), bl)
		return
	}
	map2(slice[T](db), dl, a, al, b, bl, f)
}

func compare[T num](op device.BinaryOp) func(T, T) uint8 {
	b := func(v bool) uint8 {
		if v {
			return 1
		}
		return 0
	}
	switch op {
	case device.Eq:
		return func(x, y T) uint8 { return b(x == y) }
	case device.Ne:
		return func(x, y T) uint8 { return b(x != y) }
	case device.Lt:
		return func(x, y T) uint8 { return b(x < y) }
	case device.Le:
		return func(x, y T) uint8 { return b(x <= y) }
	case device.Gt:
		return func(x, y T) uint8 { return b(x > y) }
	}
	return func(x, y T) uint8 { return b(x >= y) }
}

// arithBinary returns the operations that read the same for every dtype.
func arithBinary[T num](op device.BinaryOp) func(T, T) T {
	switch op {
	case device.Add:
		return func(x, y T) T { return x + y }
	case device.Sub:
		return func(x, y T) T { return x - y }
	case device.Mul:
		return func(x, y T) T { return x * y }
	}
	return nil
}

func floatBinary[T float](op device.BinaryOp) func(T, T) T {
	if f := arithBinary[T](op); f != nil {
		return f
	}
	switch op {
	case device.Div:
		return func(x, y T) T { return x / y }
	case device.Pow:
		return func(x, y T) T { return T(math.Pow(float64(x), float64(y))) }
	case device.Maximum:
		return func(x, y T) T {
			if x != x || x > y {
				return x
			}
			return y
		}
	case device.Minimum:
		return func(x, y T) T {
			if x != x || x < y {
				return x
			}
			return y
		}
	}
	return nil
}

func intBinary[T ~int32 | ~int64 | ~uint8](op device.BinaryOp) func(T, T) T {
	if f := arithBinary[T](op); f != nil {
		return f
	}
	switch op {
	case device.Div:
		return func(x, y T) T {
			if y == 0 {
				return x
			}
			return x / y
		}
	case device.Maximum:
		return func(x, y T) T { return max(x, y) }
	case device.Minimum:
		return func(x, y T) T { return min(x, y) }
	}
	return nil
}
