package gpucore

import (
	"fmt"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// normLoopMax bounds the elements one invocation of norm.wgsl visits in a
// loop (lavapipe stops loops after 65535 iterations).
const normLoopMax = 65535

// Norm plans a row normalisation (device.Normer): norm.wgsl, one workgroup
// per row, in dispatches of as many rows as the binding limits allow. w
// and b are nil when absent. Rows longer than redWG * normLoopMax, or one
// row beyond a binding, are declined with ErrUnsupported (the tensor layer
// then composes the operation from reductions).
func (p *Planner) Norm(name string, op device.NormOp, d, st, s Operand, w, b *Operand, eps float64) (*Plan, error) {
	arg := func(o *Operand) *device.Arg {
		if o == nil {
			return nil
		}
		return &device.Arg{DType: o.DT(), Shape: o.Shape}
	}
	if err := device.CheckNorm(p.Backend, op, *arg(&d), *arg(&st), *arg(&s), arg(w), arg(b), eps); err != nil {
		return nil, err
	}
	if s.DT() != dtype.F32 && s.DT() != dtype.F16 {
		return nil, p.errorf(name, errs.ErrDType, "computes f32 and f16, have %v (Cast to f32 first)", s.DT())
	}
	srcs := []Operand{s}
	if w != nil {
		srcs = append(srcs, *w)
	}
	if b != nil {
		srcs = append(srcs, *b)
	}
	if err := p.noAlias(name, d, srcs...); err != nil {
		return nil, err
	}
	if err := p.noAlias(name, st, srcs...); err != nil {
		return nil, err
	}
	rows, n := s.Shape[0], s.Shape[1]
	pl := &Plan{}
	if rows == 0 {
		return pl, nil
	}
	if n > redWG*normLoopMax {
		return nil, p.errorf(name, errs.ErrUnsupported, "rows of %d elements exceed the %d one workgroup may loop over", n, redWG*normLoopMax)
	}
	def, _ := op.Def()
	vars := ewVars(d.DT(), s.DT(), false)
	vars["WG"] = fmt.Sprint(redWG)
	if def.Centred {
		vars["CENTRED"] = "1"
	}
	ro := 1
	if w != nil {
		vars["HAS_W"] = "1"
		ro++
	}
	if b != nil {
		vars["HAS_B"] = "1"
		ro++
	}
	k := &Kernel{Template: "norm.wgsl", Vars: vars, RW: 2, RO: ro}
	// The weight and bias are bound whole (checked here); rows are cut
	// into dispatches whose windows fit.
	var aff [4]int32
	var affBinds []Binding
	for i, o := range []*Operand{w, b} {
		if o == nil {
			continue
		}
		lo, hi, _ := spanOf(o.Shape, o.Strides, o.Off)
		if !p.Lim.Fits(lo, hi, ElemBytes(o.DT())) {
			return nil, p.errorf(name, errs.ErrUnsupported, "a %d-element %s exceeds one binding", n, [2]string{"weight", "bias"}[i])
		}
		bw, base := p.Lim.Window(o.Buf, lo, hi, false)
		aff[2*i], aff[2*i+1] = int32(o.Off-base), int32(o.Strides[0])
		affBinds = append(affBinds, bw)
	}
	fits := func(r0, nr int) bool {
		for _, o := range []Operand{s, d, st} {
			lo, hi, ok := spanOf([]int{nr, o.Shape[1]}, o.Strides, o.Off+r0*o.Strides[0])
			if !ok || !p.Lim.Fits(lo, hi, ElemBytes(o.DT())) {
				return false
			}
		}
		return true
	}
	for r0 := 0; r0 < rows; {
		nr := rows - r0
		for nr > 1 && !fits(r0, nr) {
			nr = (nr + 1) / 2
		}
		if !fits(r0, nr) {
			return nil, p.errorf(name, errs.ErrUnsupported, "one row of %d elements exceeds a binding", n)
		}
		var binds []Binding
		var off [4]int32
		for i, o := range []Operand{d, st, s} {
			o0 := o.Off + r0*o.Strides[0]
			lo, hi, _ := spanOf([]int{nr, o.Shape[1]}, o.Strides, o0)
			bw, base := p.Lim.Window(o.Buf, lo, hi, i < 2)
			binds = append(binds, bw)
			off[[3]int{1, 2, 0}[i]] = int32(o0 - base)
		}
		binds = append(binds, affBinds...)
		prm := NormParams{
			NRows: uint32(nr), Len: uint32(n), Eps: float32(eps),
			Off: off,
			Rs:  [4]int32{int32(s.Strides[0]), int32(d.Strides[0]), int32(st.Strides[0])},
			Cs:  [4]int32{int32(s.Strides[1]), int32(d.Strides[1]), int32(st.Strides[1])},
			Aff: aff,
		}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: prm, Binds: binds, Grid: p.Lim.Grid(uint64(nr))})
		r0 += nr
	}
	return pl, nil
}
