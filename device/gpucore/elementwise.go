package gpucore

import (
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

const ewWG = 256 // workgroup size of the elementwise kernels

// ewArg is one operand of an elementwise kernel over a common shape.
type ewArg struct {
	b       Buffer
	strides []int
	off     int
}

func argOf(o Operand) ewArg { return ewArg{b: o.Buf, strides: o.Strides, off: o.Off} }

// elementwise appends the dispatches of kernel k over shape to the plan.
// args[0] is the destination. Work whose bindings exceed the device limit
// is split into boxes that fit, one dispatch each; so are views that keep
// more than maxRank axes after merging (see hostAxes).
func (p *Planner) elementwise(pl *Plan, op string, k *Kernel, shape []int, args []ewArg, ex [4]uint32) error {
	if prodInts(shape) == 0 {
		return nil
	}
	strides := make([][]int, len(args))
	esz := make([]int, len(args))
	for i, a := range args {
		strides[i] = a.strides
		esz[i] = ElemBytes(a.b.DType())
	}
	sh, st := coalesce(shape, strides)
	bext := append([]int(nil), sh...)
	hostAxes(bext, 0, len(sh), maxRank)
	bext, ok := p.Lim.tileFrom(bext, st, esz, math.MaxInt32, len(sh))
	if !ok {
		return p.errorf(op, errs.ErrUnsupported, "a single element does not fit the %d-byte storage binding limit", p.Lim.MaxBinding)
	}
	boxes(sh, bext, func(origin, ext []int) {
		cnt := prodInts(ext)
		kext, kst := squeezeBox(ext, st...)
		prm := EWParams{N: uint32(cnt), Ex: ex, W: walk4(kext, kst...)}
		binds := make([]Binding, len(args))
		for o, a := range args {
			boff := a.off
			for i, x := range origin {
				boff += x * st[o][i]
			}
			lo, hi, _ := spanOf(ext, st[o], boff)
			var base int
			binds[o], base = p.Lim.Window(a.b, lo, hi, o < k.RW)
			prm.Off[o] = int32(boff - base)
		}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: prm, Binds: binds, Grid: p.Lim.Grid((uint64(cnt) + ewWG - 1) / ewWG)})
	})
	return nil
}

// Storage kinds: how a dtype sits in a binding and what type kernels
// compute in. Raw kinds move stored bits without interpreting them.

// storageVars sets the variables of one side of an elementwise kernel:
// prefix "D" for the destination (its encoder) or "S" for sources (their
// decoder).
func storageVars(v map[string]string, prefix string, dt dtype.DType, raw bool) {
	ty, conv, f16 := prefix+"C", prefix+"_ENC", "f32_to_f16"
	if prefix == "S" {
		conv, f16 = "S_DEC", "f16_to_f32"
	}
	switch {
	case dt == dtype.F16:
		v[prefix+"_PACKED"] = "1"
		if raw {
			v[ty], v[conv] = "u32", "u32"
		} else {
			v[ty], v[conv] = "f32", f16
		}
	case dt == dtype.I64:
		v[prefix+"_WIDE"] = "1"
	case raw:
		v[ty] = "u32"
	default:
		v[ty] = computeType(dt)
	}
}

// ewVars are the storage variables of a kernel writing dst and reading
// src.
func ewVars(dst, src dtype.DType, raw bool) map[string]string {
	v := map[string]string{}
	storageVars(v, "D", dst, raw)
	storageVars(v, "S", src, raw)
	return v
}

// computeType is the WGSL type a kernel computes a dtype in: I64 as
// (lo, hi) pairs of u32 (shaders/int64.wgsl).
func computeType(dt dtype.DType) string {
	switch dt {
	case dtype.F32, dtype.F16:
		return "f32"
	case dtype.I32:
		return "i32"
	case dtype.I64:
		return "vec2<u32>"
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
	case dtype.I64:
		return s.I64
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

// FillBits converts v to dt's stored bits (two words for I64): floats
// round to nearest even, integers truncate toward zero and saturate (NaN
// gives 0), Bool is v != 0.
func FillBits(dt dtype.DType, v float64) [2]uint32 {
	switch dt {
	case dtype.F32:
		return [2]uint32{math.Float32bits(float32(v))}
	case dtype.F16:
		return [2]uint32{uint32(dtype.F16FromFloat64(v))}
	case dtype.I32:
		switch {
		case math.IsNaN(v):
			return [2]uint32{}
		case v >= math.MaxInt32:
			return [2]uint32{math.MaxInt32}
		case v <= math.MinInt32:
			return [2]uint32{uint32(1) << 31}
		}
		return [2]uint32{uint32(int32(v))}
	case dtype.U8:
		switch {
		case math.IsNaN(v) || v <= 0:
			return [2]uint32{}
		case v >= 255:
			return [2]uint32{255}
		}
		return [2]uint32{uint32(v)}
	case dtype.Bool:
		if v != 0 {
			return [2]uint32{1}
		}
	case dtype.I64:
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
	return [2]uint32{}
}

// Fill plans writing v, converted to the operand's dtype, to every element
// (I64 included: its outputs are pre-filled by callers).
func (p *Planner) Fill(op string, d Operand, v float64) (*Plan, error) {
	pl := &Plan{}
	return pl, p.fill(pl, op, d, v)
}

func (p *Planner) fill(pl *Plan, op string, d Operand, v float64) error {
	if d.Numel == 0 {
		return nil
	}
	vars := map[string]string{}
	storageVars(vars, "D", d.DT(), true)
	k := &Kernel{Template: "fill.wgsl", Vars: vars, RW: 1}
	bits := FillBits(d.DT(), v)
	return p.elementwise(pl, op, k, d.Shape, []ewArg{argOf(d)}, [4]uint32{bits[0], bits[1]})
}

// Copy plans writing src into dst element by element, converting the
// dtype. Same-dtype copies move bits (NaN payloads and subnormals
// survive).
func (p *Planner) Copy(op string, d, s Operand) (*Plan, error) {
	if err := p.sameShapes(op, []string{"dst", "src"}, d, s); err != nil {
		return nil, err
	}
	if err := p.noAlias(op, d, s); err != nil {
		return nil, err
	}
	pl := &Plan{}
	return pl, p.copy(pl, op, d, s)
}

func (p *Planner) copy(pl *Plan, op string, d, s Operand) error {
	if d.Numel == 0 {
		return nil
	}
	raw := d.DT() == s.DT()
	vars := ewVars(d.DT(), s.DT(), raw)
	switch {
	case raw && d.DT() == dtype.I64:
		vars["CVT"] = "cvt_l_l"
	case raw:
		vars["CVT"] = "cvt_raw"
	default:
		vars["CVT"] = "cvt_" + cvtFrom(s.DT()) + "_" + cvtTo(d.DT())
	}
	k := &Kernel{Template: "copy.wgsl", Vars: vars, RW: 1, RO: 1}
	return p.elementwise(pl, op, k, d.Shape, []ewArg{argOf(d), argOf(s)}, [4]uint32{})
}

// opVars are the variables of a unary or binary kernel computing shader s
// on operands of dt into dst: the storage of both sides, the expression
// (OP_EXPR), its operand and result types (OP_T, OP_R; a caller makes a
// predicate's result u32), and OP_W64 to include the 64-bit helpers.
func opVars(dst, dt dtype.DType, s device.Shader) map[string]string {
	v := ewVars(dst, dt, false)
	v["OP_EXPR"], v["OP_T"], v["OP_R"] = shaderExpr(s, dt), computeType(dt), computeType(dt)
	if dt == dtype.I64 {
		v["OP_W64"] = "1"
	}
	return v
}

// Unary plans op elementwise; dst has src's dtype, or Bool for a predicate.
func (p *Planner) Unary(name string, op device.UnaryOp, d, s Operand) (*Plan, error) {
	def, ok := op.Def()
	if !ok {
		return nil, p.errorf(name, errs.ErrUnsupported, "unknown unary op %v", op)
	}
	if err := p.sameShapes(name+" "+op.String(), []string{"dst", "src"}, d, s); err != nil {
		return nil, err
	}
	dt := s.DT()
	want, err := op.Result(p.Backend, dt)
	if err != nil {
		return nil, err
	}
	if d.DT() != want {
		return nil, p.errorf(name, errs.ErrDType, "%s of %s writes %s, dst is %s", op, dt, want, d.DT())
	}
	if shaderExpr(def.Shader, dt) == "" {
		return nil, p.errorf(name, errs.ErrDType, "%s is not defined for %s on %s", op, dt, p.Display)
	}
	if err := p.noAlias(name, d, s); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if d.Numel == 0 {
		return pl, nil
	}
	vars := opVars(d.DT(), dt, def.Shader)
	if def.Predicate {
		vars["OP_R"] = "u32"
	}
	k := &Kernel{Template: "unary.wgsl", Vars: vars, RW: 1, RO: 1}
	return pl, p.elementwise(pl, name, k, d.Shape, []ewArg{argOf(d), argOf(s)}, [4]uint32{})
}

// Binary plans op elementwise on a and b, which have dst's shape
// (broadcasting is a zero stride). Comparisons write Bool; Bool operands
// take only Eq and Ne.
func (p *Planner) Binary(name string, op device.BinaryOp, d, x, y Operand) (*Plan, error) {
	def, ok := op.Def()
	if !ok {
		return nil, p.errorf(name, errs.ErrUnsupported, "unknown binary op %v", op)
	}
	if err := p.sameShapes(name+" "+op.String(), []string{"dst", "a", "b"}, d, x, y); err != nil {
		return nil, err
	}
	dt := x.DT()
	want, err := op.Result(p.Backend, dt, y.DT())
	if err != nil {
		return nil, err
	}
	if d.DT() != want {
		return nil, p.errorf(name, errs.ErrDType, "%s of %s writes %s, dst is %s", op, dt, want, d.DT())
	}
	if shaderExpr(def.Shader, dt) == "" {
		return nil, p.errorf(name, errs.ErrDType, "%s is not defined for %s on %s", op, dt, p.Display)
	}
	if err := p.noAlias(name, d, x, y); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if d.Numel == 0 {
		return pl, nil
	}
	vars := opVars(d.DT(), dt, def.Shader)
	if def.Compare {
		vars["OP_R"] = "u32"
	}
	k := &Kernel{Template: "binary.wgsl", Vars: vars, RW: 1, RO: 2}
	return pl, p.elementwise(pl, name, k, d.Shape, []ewArg{argOf(d), argOf(x), argOf(y)}, [4]uint32{})
}

// Where plans dst = a where cond (Bool) is true, else b.
func (p *Planner) Where(name string, d, c, x, y Operand) (*Plan, error) {
	if err := p.sameShapes(name, []string{"dst", "cond", "a", "b"}, d, c, x, y); err != nil {
		return nil, err
	}
	if c.DT() != dtype.Bool {
		return nil, p.errorf(name, errs.ErrDType, "cond must be bool, is %s", c.DT())
	}
	if x.DT() != d.DT() || y.DT() != d.DT() {
		return nil, p.errorf(name, errs.ErrDType, "dst, a and b must share a dtype, have %s, %s, %s", d.DT(), x.DT(), y.DT())
	}
	if err := p.noAlias(name, d, c, x, y); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if d.Numel == 0 {
		return pl, nil
	}
	k := &Kernel{Template: "where.wgsl", Vars: ewVars(d.DT(), d.DT(), true), RW: 1, RO: 3}
	return pl, p.elementwise(pl, name, k, d.Shape, []ewArg{argOf(d), argOf(x), argOf(y), argOf(c)}, [4]uint32{})
}
