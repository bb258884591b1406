//go:build cgo

package webgpu

import (
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

const ewWG = 256 // workgroup size of the elementwise kernels

// ewArg is one operand of an elementwise kernel over a common shape.
type ewArg struct {
	b       *gbuf
	strides []int
	off     int
}

func argOf(o opnd) ewArg { return ewArg{b: o.b, strides: o.strides, off: o.off} }

// ewLocked runs an elementwise kernel over shape. args[0] is the
// destination. Work whose bindings exceed the device limit is split into
// boxes that fit, one dispatch each; so are views that keep more than
// maxRank axes after merging (see hostAxes).
func (g *gpu) ewLocked(op string, k *kernel, shape []int, args []ewArg, ex [4]uint32) error {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if n == 0 {
		return nil
	}
	strides := make([][]int, len(args))
	esz := make([]int, len(args))
	for i, a := range args {
		strides[i] = a.strides
		esz[i] = gpuElemBytes(a.b.dt)
	}
	sh, st := coalesce(shape, strides)
	bext := append([]int(nil), sh...)
	hostAxes(bext, 0, len(sh), maxRank)
	bext, ok := g.tileFrom(bext, st, esz, math.MaxInt32, len(sh))
	if !ok {
		return errs.New("webgpu", op, errs.ErrUnsupported, "a single element does not fit the %d-byte storage binding limit", g.lim.maxBinding)
	}
	var calls []call
	err := boxes(sh, bext, func(origin, ext []int) error {
		cnt := 1
		for _, d := range ext {
			cnt *= d
		}
		kext, kst := squeezeBox(ext, st...)
		p := make([]uint32, 52)
		p[0] = uint32(cnt)
		p[1] = uint32(len(kext))
		for i, d := range kext {
			p[4+i] = uint32(d)
		}
		binds := make([]bind, len(args))
		for o, a := range args {
			boff := a.off
			for i, x := range origin {
				boff += x * st[o][i]
			}
			lo, hi, _ := spanOf(ext, st[o], boff)
			w := g.windowFor(a.b, lo, hi)
			binds[o] = w.bind
			p[12+o] = uint32(int32(boff - w.base))
			for i := range kext {
				p[16+8*o+i] = uint32(int32(kst[o][i]))
			}
		}
		copy(p[48:], ex[:])
		calls = append(calls, call{k: k, params: p, binds: binds, grid: g.gridFor((uint64(cnt) + ewWG - 1) / ewWG)})
		return nil
	})
	if err != nil {
		return err
	}
	return g.runLocked(op, calls)
}

// Storage kinds: how a dtype sits in a binding and what type kernels
// compute in. Raw kinds move stored bits without interpreting them.

func dstVars(v map[string]string, dt dtype.DType, raw bool) {
	switch {
	case dt == dtype.F16:
		v["D_PACKED"] = "1"
		if raw {
			v["DC"], v["D_ENC"] = "u32", "u32"
		} else {
			v["DC"], v["D_ENC"] = "f32", "f32_to_f16"
		}
	case dt == dtype.I64:
		v["D_WIDE"] = "1"
	case raw:
		v["DC"] = "u32"
	default:
		v["DC"] = computeType(dt)
	}
}

func srcVars(v map[string]string, dt dtype.DType, raw bool) {
	switch {
	case dt == dtype.F16:
		v["S_PACKED"] = "1"
		if raw {
			v["SC"], v["S_DEC"] = "u32", "u32"
		} else {
			v["SC"], v["S_DEC"] = "f32", "f16_to_f32"
		}
	case dt == dtype.I64:
		v["S_WIDE"] = "1"
	case raw:
		v["SC"] = "u32"
	default:
		v["SC"] = computeType(dt)
	}
}

// computeType is the WGSL type a kernel computes a dtype in.
func computeType(dt dtype.DType) string {
	switch dt {
	case dtype.F32, dtype.F16:
		return "f32"
	case dtype.I32:
		return "i32"
	}
	return "u32"
}

// shaderExpr picks an op's shader expression for the type dt computes in.
func shaderExpr(s device.Shader, dt dtype.DType) string {
	switch dt {
	case dtype.F32, dtype.F16:
		return s.F32
	case dtype.I32:
		return s.I32
	}
	return s.U8
}

func cvtFrom(dt dtype.DType) string {
	switch dt {
	case dtype.F32, dtype.F16:
		return "f"
	case dtype.I32:
		return "i"
	case dtype.I64:
		return "l"
	}
	return "u"
}

func cvtTo(dt dtype.DType) string {
	switch dt {
	case dtype.Bool:
		return "b"
	case dtype.U8:
		return "u8"
	}
	return cvtFrom(dt)
}

// noAlias refuses a destination that shares its buffer with a source: one
// dispatch may not bind a buffer both writable and readable.
func noAlias(op string, dst opnd, srcs ...opnd) error {
	for _, s := range srcs {
		if s.b == dst.b {
			return errs.New("webgpu", op, errs.ErrValue, "destination shares its buffer with a source; write to a fresh buffer")
		}
	}
	return nil
}

func shapeErr(op string, what string, a, b []int) error {
	return errs.New("webgpu", op, errs.ErrShape, "%s: shapes %v and %v differ", what, a, b)
}

// fillBits converts v to dt's stored bits: floats round to nearest even,
// integers truncate toward zero and saturate (NaN gives 0), Bool is v != 0.
func fillBits(dt dtype.DType, v float64) uint32 {
	switch dt {
	case dtype.F32:
		return math.Float32bits(float32(v))
	case dtype.F16:
		return uint32(dtype.F16FromFloat64(v))
	case dtype.I32:
		switch {
		case math.IsNaN(v):
			return 0
		case v >= math.MaxInt32:
			return math.MaxInt32
		case v <= math.MinInt32:
			return uint32(1) << 31
		}
		return uint32(int32(v))
	case dtype.U8:
		switch {
		case math.IsNaN(v) || v <= 0:
			return 0
		case v >= 255:
			return 255
		}
		return uint32(v)
	case dtype.Bool:
		if v != 0 {
			return 1
		}
	}
	return 0
}

// Fill writes v, converted to the operand's dtype, to every element (I64
// included: its outputs are pre-filled by callers).
func (g *gpu) Fill(dst device.Operand, v float64) error {
	const op = "Fill"
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usableLocked(op); err != nil {
		return err
	}
	d, err := g.operandLocked(op, "dst", dst)
	if err != nil {
		return err
	}
	if d.b.dt == dtype.I64 {
		return g.fillWordsLocked(op, d, i64Bits(v))
	}
	return g.fillLocked(op, d, fillBits(d.b.dt, v))
}

// i64Bits converts v to int64 as Copy does (truncate, saturate, NaN is 0)
// and returns its (lo, hi) words.
func i64Bits(v float64) [2]uint32 {
	var x int64
	switch {
	case math.IsNaN(v):
	case v >= math.MaxInt64:
		x = math.MaxInt64
	case v <= math.MinInt64:
		x = math.MinInt64
	default:
		x = int64(v)
	}
	return [2]uint32{uint32(uint64(x)), uint32(uint64(x) >> 32)}
}

func (g *gpu) fillLocked(op string, d opnd, bits uint32) error {
	return g.fillWordsLocked(op, d, [2]uint32{bits})
}

func (g *gpu) fillWordsLocked(op string, d opnd, bits [2]uint32) error {
	if d.numel == 0 {
		return nil
	}
	vars := map[string]string{}
	dstVars(vars, d.b.dt, true)
	k, err := g.kernelLocked(op, "fill.wgsl", vars, 1, 0)
	if err != nil {
		return err
	}
	return g.ewLocked(op, k, d.shape, []ewArg{argOf(d)}, [4]uint32{bits[0], bits[1]})
}

// Copy writes src into dst element by element, converting the dtype.
// Same-dtype copies move bits (NaN payloads and subnormals survive).
func (g *gpu) Copy(dst, src device.Operand) error {
	const op = "Copy"
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usableLocked(op); err != nil {
		return err
	}
	d, err := g.operandLocked(op, "dst", dst)
	if err != nil {
		return err
	}
	s, err := g.operandLocked(op, "src", src)
	if err != nil {
		return err
	}
	if !sameShape(d.shape, s.shape) {
		return shapeErr(op, "dst and src", d.shape, s.shape)
	}
	if err := noAlias(op, d, s); err != nil {
		return err
	}
	return g.copyLocked(op, d, s)
}

func (g *gpu) copyLocked(op string, d, s opnd) error {
	if d.numel == 0 {
		return nil
	}
	vars := map[string]string{}
	raw := d.b.dt == s.b.dt
	dstVars(vars, d.b.dt, raw)
	srcVars(vars, s.b.dt, raw)
	switch {
	case raw && d.b.dt == dtype.I64:
		vars["CVT"] = "cvt_l_l"
	case raw:
		vars["CVT"] = "cvt_raw"
	default:
		vars["CVT"] = "cvt_" + cvtFrom(s.b.dt) + "_" + cvtTo(d.b.dt)
	}
	k, err := g.kernelLocked(op, "copy.wgsl", vars, 1, 1)
	if err != nil {
		return err
	}
	return g.ewLocked(op, k, d.shape, []ewArg{argOf(d), argOf(s)}, [4]uint32{})
}

// Unary applies op elementwise; dst has src's dtype.
func (g *gpu) Unary(op device.UnaryOp, dst, src device.Operand) error {
	const name = "Unary"
	def, ok := op.Def()
	if !ok {
		return errs.New("webgpu", name, errs.ErrUnsupported, "unknown unary op %v", op)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usableLocked(name); err != nil {
		return err
	}
	d, err := g.operandLocked(name, "dst", dst)
	if err != nil {
		return err
	}
	s, err := g.operandLocked(name, "src", src)
	if err != nil {
		return err
	}
	if !sameShape(d.shape, s.shape) {
		return shapeErr(name+" "+op.String(), "dst and src", d.shape, s.shape)
	}
	if d.b.dt != s.b.dt {
		return errs.New("webgpu", name, errs.ErrDType, "%s: dst is %s but src is %s", op, d.b.dt, s.b.dt)
	}
	dt := s.b.dt
	if _, err := op.Result("webgpu", dt); err != nil {
		return err
	}
	if dt == dtype.I64 {
		return errs.New("webgpu", name, errs.ErrDType, "%s is not defined for i64 on WebGPU", op)
	}
	if err := noAlias(name, d, s); err != nil {
		return err
	}
	if d.numel == 0 {
		return nil
	}
	vars := map[string]string{"OP_EXPR": shaderExpr(def.Shader, dt), "OP_T": computeType(dt)}
	dstVars(vars, dt, false)
	srcVars(vars, dt, false)
	k, err := g.kernelLocked(name, "unary.wgsl", vars, 1, 1)
	if err != nil {
		return err
	}
	return g.ewLocked(name, k, d.shape, []ewArg{argOf(d), argOf(s)}, [4]uint32{})
}

// Binary applies op elementwise to a and b, which have dst's shape
// (broadcasting is a zero stride). Comparisons write Bool; Bool operands
// take only Eq and Ne.
func (g *gpu) Binary(op device.BinaryOp, dst, a, b device.Operand) error {
	const name = "Binary"
	def, ok := op.Def()
	if !ok {
		return errs.New("webgpu", name, errs.ErrUnsupported, "unknown binary op %v", op)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usableLocked(name); err != nil {
		return err
	}
	d, err := g.operandLocked(name, "dst", dst)
	if err != nil {
		return err
	}
	x, err := g.operandLocked(name, "a", a)
	if err != nil {
		return err
	}
	y, err := g.operandLocked(name, "b", b)
	if err != nil {
		return err
	}
	if !sameShape(d.shape, x.shape) {
		return shapeErr(name+" "+op.String(), "dst and a", d.shape, x.shape)
	}
	if !sameShape(d.shape, y.shape) {
		return shapeErr(name+" "+op.String(), "dst and b", d.shape, y.shape)
	}
	dt := x.b.dt
	want, err := op.Result("webgpu", dt, y.b.dt)
	if err != nil {
		return err
	}
	if d.b.dt != want {
		return errs.New("webgpu", name, errs.ErrDType, "%s of %s writes %s, dst is %s", op, dt, want, d.b.dt)
	}
	if dt == dtype.I64 {
		return errs.New("webgpu", name, errs.ErrDType, "%s is not defined for i64 on WebGPU", op)
	}
	if err := noAlias(name, d, x, y); err != nil {
		return err
	}
	if d.numel == 0 {
		return nil
	}
	vars := map[string]string{"OP_EXPR": shaderExpr(def.Shader, dt), "OP_T": computeType(dt), "OP_R": computeType(dt)}
	if def.Compare {
		vars["OP_R"] = "u32"
	}
	dstVars(vars, d.b.dt, false)
	srcVars(vars, dt, false)
	k, err := g.kernelLocked(name, "binary.wgsl", vars, 1, 2)
	if err != nil {
		return err
	}
	return g.ewLocked(name, k, d.shape, []ewArg{argOf(d), argOf(x), argOf(y)}, [4]uint32{})
}

// Where writes a where cond (Bool) is true, else b.
func (g *gpu) Where(dst, cond, a, b device.Operand) error {
	const name = "Where"
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usableLocked(name); err != nil {
		return err
	}
	d, err := g.operandLocked(name, "dst", dst)
	if err != nil {
		return err
	}
	c, err := g.operandLocked(name, "cond", cond)
	if err != nil {
		return err
	}
	x, err := g.operandLocked(name, "a", a)
	if err != nil {
		return err
	}
	y, err := g.operandLocked(name, "b", b)
	if err != nil {
		return err
	}
	for _, o := range []struct {
		n string
		s []int
	}{{"cond", c.shape}, {"a", x.shape}, {"b", y.shape}} {
		if !sameShape(d.shape, o.s) {
			return shapeErr(name, "dst and "+o.n, d.shape, o.s)
		}
	}
	if c.b.dt != dtype.Bool {
		return errs.New("webgpu", name, errs.ErrDType, "cond must be bool, is %s", c.b.dt)
	}
	if x.b.dt != d.b.dt || y.b.dt != d.b.dt {
		return errs.New("webgpu", name, errs.ErrDType, "dst, a and b must share a dtype, have %s, %s, %s", d.b.dt, x.b.dt, y.b.dt)
	}
	if d.b.dt == dtype.I64 {
		return errs.New("webgpu", name, errs.ErrDType, "Where is not defined for i64 on WebGPU")
	}
	if err := noAlias(name, d, c, x, y); err != nil {
		return err
	}
	if d.numel == 0 {
		return nil
	}
	vars := map[string]string{}
	dstVars(vars, d.b.dt, true)
	srcVars(vars, d.b.dt, true)
	k, err := g.kernelLocked(name, "where.wgsl", vars, 1, 3)
	if err != nil {
		return err
	}
	return g.ewLocked(name, k, d.shape, []ewArg{argOf(d), argOf(x), argOf(y), argOf(c)}, [4]uint32{})
}
