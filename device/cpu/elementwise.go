package cpu

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
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
	want, err := op.Result("cpu", sb.dt)
	if err != nil {
		return err
	}
	if db.dt != want {
		return errs.New("cpu", name, errs.ErrDType, "a %v source writes %v, destination is %v", sb.dt, want, db.dt)
	}
	if op.IsPredicate() {
		return d.predicate(op, db, dst.Layout, sb, src)
	}
	switch sb.dt {
	case dtype.F32:
		floatUnaryRows(op, slice[float32](db), dst.Layout, slice[float32](sb), src.Layout)
	case dtype.F64:
		floatUnaryRows(op, slice[float64](db), dst.Layout, slice[float64](sb), src.Layout)
	case dtype.F16, dtype.BF16:
		return d.widened(dst, []device.Operand{src}, func(o *Buffer, ol layout.Layout, in []*Buffer, il []layout.Layout) error {
			floatUnaryRows(op, slice[float32](o), ol, slice[float32](in[0]), il[0])
			return nil
		})
	case dtype.I32:
		intUnaryRows(op, slice[int32](db), dst.Layout, slice[int32](sb), src.Layout, intUnary[int32](op))
	case dtype.I64:
		intUnaryRows(op, slice[int64](db), dst.Layout, slice[int64](sb), src.Layout, intUnary[int64](op))
	case dtype.U8:
		intUnaryRows(op, slice[uint8](db), dst.Layout, slice[uint8](sb), src.Layout, intUnary[uint8](op))
	}
	return nil
}

// predicate runs a unary test into a Bool destination: floats through the
// descriptor's float64 reference (F16/BF16 widened first, which is exact),
// integers and Bool through its integer rule.
func (d *Device) predicate(op device.UnaryOp, db *Buffer, dl layout.Layout, sb *Buffer, src device.Operand) error {
	out := slice[uint8](db)
	switch sb.dt {
	case dtype.F32:
		predicateRows(op, out, dl, slice[float32](sb), src.Layout, test[float32](op))
	case dtype.F64:
		predicateRows(op, out, dl, slice[float64](sb), src.Layout, test[float64](op))
	case dtype.F16, dtype.BF16:
		bufs, lays, err := d.widen(src)
		if err != nil {
			return err
		}
		predicateRows(op, out, dl, slice[float32](bufs[0]), lays[0], test[float32](op))
	case dtype.I32:
		predicateRows(op, out, dl, slice[int32](sb), src.Layout, test[int32](op))
	case dtype.I64:
		predicateRows(op, out, dl, slice[int64](sb), src.Layout, test[int64](op))
	case dtype.U8, dtype.Bool:
		predicateRows(op, out, dl, slice[uint8](sb), src.Layout, test[uint8](op))
	}
	return nil
}

// test returns a predicate's rule on T as a Bool (0 or 1) result.
func test[T num](op device.UnaryOp) func(T) uint8 {
	def, _ := op.Def()
	if isFloat[T]() {
		f := def.F64
		return func(x T) uint8 { return uint8(f(float64(x))) }
	}
	f := def.Int
	return func(x T) uint8 { return uint8(f(int64(x))) }
}

// widened runs a float32 kernel for F16/BF16 operands: inputs are widened to
// contiguous float32, the kernel writes a float32 result, and that is rounded
// once into dst.
func (d *Device) widened(dst device.Operand, ins []device.Operand, kernel func(out *Buffer, ol layout.Layout, in []*Buffer, il []layout.Layout) error) error {
	bufs, lays, err := d.widen(ins...)
	if err != nil {
		return err
	}
	ol, _ := layout.Contiguous(dst.Layout.Shape...)
	out := newTemp(d, dtype.F32, dst.Layout.Numel())
	if err := kernel(out, ol, bufs, lays); err != nil {
		return err
	}
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

// floatUnary returns op as a function on one element: its descriptor's
// float64 reference, rounded once to T, so float32 results are correctly
// rounded wherever package math's are.
func floatUnary[T float](op device.UnaryOp) func(T) T {
	def, _ := op.Def()
	f := def.F64
	return func(x T) T { return T(f(float64(x))) }
}

// intUnary returns op's integer semantics on T: computed in int64 and
// truncated, which wraps exactly as arithmetic in T does.
func intUnary[T ~int32 | ~int64 | ~uint8](op device.UnaryOp) func(T) T {
	def, _ := op.Def()
	f := def.Int
	return func(x T) T { return T(f(int64(x))) }
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
	want, err := op.Result("cpu", ab.dt, bb.dt)
	if err != nil {
		return err
	}
	if db.dt != want {
		return errs.New("cpu", name, errs.ErrDType, "operands %v and %v write %v, destination is %v", ab.dt, bb.dt, want, db.dt)
	}
	switch ab.dt {
	case dtype.F32:
		binary(op, db, dst.Layout, slice[float32](ab), a.Layout, slice[float32](bb), b.Layout, nil)
	case dtype.F64:
		binary(op, db, dst.Layout, slice[float64](ab), a.Layout, slice[float64](bb), b.Layout, nil)
	case dtype.F16, dtype.BF16:
		if op.IsComparison() {
			// Widening is exact, so compare the float32 values.
			return d.widenedCompare(op, db, dst.Layout, a, b)
		}
		return d.widened(dst, []device.Operand{a, b}, func(o *Buffer, ol layout.Layout, in []*Buffer, il []layout.Layout) error {
			floatBinaryRows(op, slice[float32](o), ol, slice[float32](in[0]), il[0], slice[float32](in[1]), il[1])
			return nil
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
// vectorised rows, with f nil), or a comparison into Bool.
func binary[T num](op device.BinaryOp, db *Buffer, dl layout.Layout, a []T, al layout.Layout, b []T, bl layout.Layout, f func(T, T) T) {
	if op.IsComparison() {
		compareRows(op, slice[uint8](db), dl, a, al, b, bl)
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
	switch x := any(a).(type) {
	case []int32:
		intBinaryRows(op, slice[int32](db), dl, x, al, any(b).([]int32), bl, any(f).(func(int32, int32) int32))
	case []int64:
		intBinaryRows(op, slice[int64](db), dl, x, al, any(b).([]int64), bl, any(f).(func(int64, int64) int64))
	case []uint8:
		intBinaryRows(op, slice[uint8](db), dl, x, al, any(b).([]uint8), bl, any(f).(func(uint8, uint8) uint8))
	default:
		map2(slice[T](db), dl, a, al, b, bl, f)
	}
}

// isFloat reports whether T is a floating type.
func isFloat[T num]() bool {
	var one T = 1
	return one/2 != 0
}

// compareRows writes the comparison op of a and b into dst as Bool (0 or
// 1). Rows whose destination is adjacent and whose operands are adjacent
// or broadcast (a scalar operand) go through cmpRow, whose loops compare
// inline: Go's comparisons are the table's rules for the six relations
// (IEEE for floats: NaN is unordered, so only Ne holds for it), and x !=
// 0 is the logical ops' truth (NaN counts as true). Other rows take the
// table's rule per element.
func compareRows[T num](op device.BinaryOp, dst []uint8, dl layout.Layout, a []T, al layout.Layout, b []T, bl layout.Layout) {
	binaryRows(dst, dl, a, al, b, bl, func(d []uint8, x []T, xs int, y []T, ys int) bool {
		return cmpRow(op, d, x, xs, y, ys)
	}, func(i, di, j, dj, k, dk, n int) bool {
		return cmpStrided(op, dst, i, di, a, j, dj, b, k, dk, n)
	}, compare[T](op))
}

// cmpStrided sets n elements of d, from i and di apart, to the relation op
// of x's (from j, dj apart) and y's (from k, dk apart) with an inline
// comparison, as cmpRow does for adjacent rows, or reports false for an op
// that is not one of the six relations.
func cmpStrided[T num](op device.BinaryOp, d []uint8, i, di int, x []T, j, dj int, y []T, k, dk int, n int) bool {
	switch op {
	case device.Eq:
		for range n {
			d[i] = b2u8(x[j] == y[k])
			i, j, k = i+di, j+dj, k+dk
		}
	case device.Ne:
		for range n {
			d[i] = b2u8(x[j] != y[k])
			i, j, k = i+di, j+dj, k+dk
		}
	case device.Lt:
		for range n {
			d[i] = b2u8(x[j] < y[k])
			i, j, k = i+di, j+dj, k+dk
		}
	case device.Le:
		for range n {
			d[i] = b2u8(x[j] <= y[k])
			i, j, k = i+di, j+dj, k+dk
		}
	case device.Gt:
		for range n {
			d[i] = b2u8(x[j] > y[k])
			i, j, k = i+di, j+dj, k+dk
		}
	case device.Ge:
		for range n {
			d[i] = b2u8(x[j] >= y[k])
			i, j, k = i+di, j+dj, k+dk
		}
	default:
		return false
	}
	return true
}

// binaryRows applies a binary rule to a and b into dst: rows whose
// destination is adjacent and whose operands are each adjacent (step 1)
// or one repeated element (step 0) go to row, which reports false where it
// has no loop for them; the other rows go to strided, when it is set,
// with their positions and steps (dst's, a's, b's), and where that too
// reports false take f per element. Rows of a few elements under a longer
// axis are walked along that axis instead (layout.Rows.LongRows): a call
// per row would cost more than it.
func binaryRows[D, S any](dst []D, dl layout.Layout, a []S, al layout.Layout, b []S, bl layout.Layout, row func(d []D, x []S, xs int, y []S, ys int) bool, strided func(i, di, j, dj, k, dk, n int) bool, f func(S, S) D) {
	runRows(layout.NewRowsOf(dl, al, bl).LongRows(), func(offs []int, n int, inner []int) {
		i, j, k := offs[0], offs[1], offs[2]
		if inner[0] == 1 && inner[1] >= 0 && inner[1] <= 1 && inner[2] >= 0 && inner[2] <= 1 &&
			row(dst[i:i+n], a[j:j+(n-1)*inner[1]+1], inner[1], b[k:k+(n-1)*inner[2]+1], inner[2]) {
			return
		}
		if strided != nil && strided(i, inner[0], j, inner[1], k, inner[2], n) {
			return
		}
		for range n {
			dst[i] = f(a[j], b[k])
			i += inner[0]
			j += inner[1]
			k += inner[2]
		}
	})
}

// cmpRow compares a row of x and y, each adjacent (step 1) or one element
// (step 0), into d with an inline relation, or reports false for an op
// that is not one of isRelation's. A scalar on the left is moved to the
// right by the mirrored relation (x < y is y > x, NaN making both false),
// so only two loop forms exist: row with row, and row with scalar.
func cmpRow[T num](op device.BinaryOp, d []uint8, x []T, xs int, y []T, ys int) bool {
	n := len(d)
	switch {
	case n == 0:
		return isRelation(op)
	case xs == 1 && ys == 1:
		return cmpRows(op, d, x[:n], y[:n])
	case xs == 1:
		return cmpScalar(op, d, x[:n], y[0])
	case ys == 1:
		return cmpScalar(mirror(op), d, y[:n], x[0])
	}
	// Two scalars: one comparison, repeated.
	if !cmpScalar(op, d[:1], x[:1], y[0]) {
		return false
	}
	for t := 1; t < n; t++ {
		d[t] = d[0]
	}
	return true
}

// isRelation reports whether op is one of the nine operations cmpRow
// inlines: the six relations and the logical And, Or and Xor.
func isRelation(op device.BinaryOp) bool {
	switch op {
	case device.Eq, device.Ne, device.Lt, device.Le, device.Gt, device.Ge, device.And, device.Or, device.Xor:
		return true
	}
	return false
}

// mirror is the relation with its operands swapped: x op y is y mirror(op) x
// (the logical ops are symmetric).
func mirror(op device.BinaryOp) device.BinaryOp {
	switch op {
	case device.Lt:
		return device.Gt
	case device.Le:
		return device.Ge
	case device.Gt:
		return device.Lt
	case device.Ge:
		return device.Le
	}
	return op
}

// vecRelation maps the six relations to the vec package's, whose Compare
// and CompareScalar run the float32 and float64 rows on vector kernels.
func vecRelation(op device.BinaryOp) (vec.CmpOp, bool) {
	switch op {
	case device.Eq:
		return vec.CmpEq, true
	case device.Ne:
		return vec.CmpNe, true
	case device.Lt:
		return vec.CmpLt, true
	case device.Le:
		return vec.CmpLe, true
	case device.Gt:
		return vec.CmpGt, true
	case device.Ge:
		return vec.CmpGe, true
	}
	return 0, false
}

// cmpRows sets d[t] to x[t] op y[t] (all of d's length).
func cmpRows[T num](op device.BinaryOp, d []uint8, x, y []T) bool {
	x, y = x[:len(d)], y[:len(d)]
	if c, ok := vecRelation(op); ok {
		switch xv := any(x).(type) {
		case []float32:
			return vec.Compare(c, d, xv, any(y).([]float32)) == nil
		case []float64:
			return vec.Compare(c, d, xv, any(y).([]float64)) == nil
		case []int32:
			return vec.CompareInt(c, d, xv, any(y).([]int32)) == nil
		case []int64:
			return vec.CompareInt(c, d, xv, any(y).([]int64)) == nil
		}
	}
	if xb, ok := any(x).([]uint8); ok && (op == device.And || op == device.Or || op == device.Xor) {
		logicBytes(op, d, xb, any(y).([]uint8))
		return true
	}
	switch op {
	case device.Eq:
		for t := range d {
			d[t] = b2u8(x[t] == y[t])
		}
	case device.Ne:
		for t := range d {
			d[t] = b2u8(x[t] != y[t])
		}
	case device.Lt:
		for t := range d {
			d[t] = b2u8(x[t] < y[t])
		}
	case device.Le:
		for t := range d {
			d[t] = b2u8(x[t] <= y[t])
		}
	case device.Gt:
		for t := range d {
			d[t] = b2u8(x[t] > y[t])
		}
	case device.Ge:
		for t := range d {
			d[t] = b2u8(x[t] >= y[t])
		}
	case device.And:
		for t := range d {
			d[t] = b2u8(x[t] != 0) & b2u8(y[t] != 0)
		}
	case device.Or:
		for t := range d {
			d[t] = b2u8(x[t] != 0) | b2u8(y[t] != 0)
		}
	case device.Xor:
		for t := range d {
			d[t] = b2u8(x[t] != 0) ^ b2u8(y[t] != 0)
		}
	default:
		return false
	}
	return true
}

// cmpScalar sets d[t] to x[t] op s (all of d's length).
func cmpScalar[T num](op device.BinaryOp, d []uint8, x []T, s T) bool {
	x = x[:len(d)]
	if c, ok := vecRelation(op); ok {
		switch xv := any(x).(type) {
		case []float32:
			return vec.CompareScalar(c, d, xv, any(s).(float32)) == nil
		case []float64:
			return vec.CompareScalar(c, d, xv, any(s).(float64)) == nil
		case []int32:
			return vec.CompareIntScalar(c, d, xv, any(s).(int32)) == nil
		case []int64:
			return vec.CompareIntScalar(c, d, xv, any(s).(int64)) == nil
		}
	}
	switch op {
	case device.Eq:
		for t := range d {
			d[t] = b2u8(x[t] == s)
		}
	case device.Ne:
		for t := range d {
			d[t] = b2u8(x[t] != s)
		}
	case device.Lt:
		for t := range d {
			d[t] = b2u8(x[t] < s)
		}
	case device.Le:
		for t := range d {
			d[t] = b2u8(x[t] <= s)
		}
	case device.Gt:
		for t := range d {
			d[t] = b2u8(x[t] > s)
		}
	case device.Ge:
		for t := range d {
			d[t] = b2u8(x[t] >= s)
		}
	case device.And:
		sb := b2u8(s != 0)
		for t := range d {
			d[t] = b2u8(x[t] != 0) & sb
		}
	case device.Or:
		sb := b2u8(s != 0)
		for t := range d {
			d[t] = b2u8(x[t] != 0) | sb
		}
	case device.Xor:
		sb := b2u8(s != 0)
		for t := range d {
			d[t] = b2u8(x[t] != 0) ^ sb
		}
	default:
		return false
	}
	return true
}

// b2u8 is 1 for true and 0 for false.
func b2u8(c bool) uint8 {
	var r uint8
	if c {
		r = 1
	}
	return r
}

// compare returns a comparison's rule on T as a Bool (0 or 1) result.
func compare[T num](op device.BinaryOp) func(T, T) uint8 {
	def, _ := op.Def()
	if isFloat[T]() {
		f := def.F64
		return func(x, y T) uint8 { return uint8(f(float64(x), float64(y))) }
	}
	f := def.Int
	return func(x, y T) uint8 { return uint8(f(int64(x), int64(y))) }
}

// floatBinary returns op on one pair of elements: the descriptor's float64
// reference rounded once to T (exact for the four arithmetic operations).
func floatBinary[T float](op device.BinaryOp) func(T, T) T {
	if f := fastBinary[T](op); f != nil {
		return f // the same values, faster (rem.go)
	}
	def, _ := op.Def()
	f := def.F64
	return func(x, y T) T { return T(f(float64(x), float64(y))) }
}

// intBinary returns op's integer semantics on T, computed in int64 and
// truncated, which wraps exactly as arithmetic in T does.
func intBinary[T ~int32 | ~int64 | ~uint8](op device.BinaryOp) func(T, T) T {
	def, _ := op.Def()
	f := def.Int
	return func(x, y T) T { return T(f(int64(x), int64(y))) }
}
