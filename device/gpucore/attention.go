package gpucore

import (
	"fmt"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// attLoopMax bounds every loop of attention.wgsl (lavapipe stops loops
// after 65535 iterations).
const attLoopMax = 65535

// Attention plans fused attention (device.Attender): attention.wgsl, one
// dispatch per batch element and one workgroup per query row. m is nil
// without a mask. Sizes beyond the loop limit, a matrix beyond one
// binding, and (unless opt.Force) scores small enough to store are
// declined with ErrUnsupported (the tensor layer then runs the
// composite).
func (p *Planner) Attention(name string, d, q, k, v Operand, m *Operand, opt device.AttentionOptions) (*Plan, error) {
	arg := func(o Operand) device.Arg { return device.Arg{DType: o.DT(), Shape: o.Shape} }
	var ma *device.Arg
	if m != nil {
		a := arg(*m)
		ma = &a
	}
	if err := device.CheckAttention(p.Backend, arg(d), arg(q), arg(k), arg(v), ma, opt); err != nil {
		return nil, err
	}
	if q.DT() != dtype.F32 && q.DT() != dtype.F16 {
		return nil, p.errorf(name, errs.ErrDType, "computes f32 and f16, have %v (Cast to f32 first)", q.DT())
	}
	srcs := []Operand{q, k, v}
	if m != nil {
		srcs = append(srcs, *m)
	}
	if err := p.noAlias(name, d, srcs...); err != nil {
		return nil, err
	}
	r := len(q.Shape)
	L, E, S, Ev := q.Shape[r-2], q.Shape[r-1], k.Shape[r-2], v.Shape[r-1]
	pl := &Plan{}
	if d.Numel == 0 {
		return pl, nil
	}
	if S/redWG >= attLoopMax || E >= attLoopMax || Ev/redWG >= attLoopMax {
		return nil, p.errorf(name, errs.ErrUnsupported, "S %d, E %d or Ev %d beyond the kernel's loop limit", S, E, Ev)
	}
	// Where the [..., L, S] scores fit half a binding the composite (the
	// tiled matmul and the softmax kernels) runs, and on the software
	// drivers it is 5-20x faster than this kernel, which recomputes the
	// scores and reads k and v once per query row; the kernel is for
	// scores too large to store.
	if scores := uint64(prodInts(d.Shape[:r-2])) * uint64(L) * uint64(S) * 4; !opt.Force && scores <= p.Lim.MaxBinding/2 {
		return nil, p.errorf(name, errs.ErrUnsupported, "scores of %d bytes fit a binding: the composite is faster", scores)
	}
	vars := ewVars(d.DT(), q.DT(), false)
	vars["WG"] = fmt.Sprint(redWG)
	ro := 3
	if opt.Causal {
		vars["CAUSAL"] = "1"
	}
	if m != nil {
		vars["EXPLICIT"] = "1"
		if m.DT() == dtype.Bool {
			vars["MASK_BOOL"] = "1"
		} else {
			vars["MASK_FLOAT"] = "1"
		}
		ro++
	}
	kern := &Kernel{Template: "attention.wgsl", Vars: vars, RW: 1, RO: ro}
	ops := append([]Operand{d}, srcs...)
	batch := q.Shape[:r-2]
	nb := prodInts(batch)
	idx := make([]int, len(batch))
	for range nb {
		var binds []Binding
		var pos [5]int32
		for i, o := range ops {
			off := o.Off
			for a, x := range idx {
				off += x * o.Strides[a]
			}
			lo, hi, ok := spanOf(o.Shape[r-2:], o.Strides[r-2:], off)
			if !ok || !p.Lim.Fits(lo, hi, ElemBytes(o.DT())) {
				return nil, p.errorf(name, errs.ErrUnsupported, "a %v matrix exceeds one binding", o.Shape[r-2:])
			}
			bw, base := p.Lim.Window(o.Buf, lo, hi, i == 0)
			binds = append(binds, bw)
			pos[i] = int32(off - base)
		}
		st := func(i, a int) int32 {
			if i >= len(ops) {
				return 0
			}
			return int32(ops[i].Strides[r-2+a])
		}
		prm := AttnParams{
			L: uint32(L), S: uint32(S), E: uint32(E), Ev: uint32(Ev), Scale: float32(opt.Scale),
			Off: [4]int32{pos[1], pos[2], pos[3], pos[4]},
			Ld:  [4]int32{st(1, 0), st(2, 0), st(3, 0), st(4, 0)},
			Cs:  [4]int32{st(1, 1), st(2, 1), st(3, 1), st(4, 1)},
			Dst: [4]int32{pos[0], st(0, 0), st(0, 1)},
		}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: kern, Params: prm, Binds: binds, Grid: p.Lim.Grid(uint64(L))})
		for a := len(idx) - 1; a >= 0; a-- {
			if idx[a]++; idx[a] < batch[a] {
				break
			}
			idx[a] = 0
		}
	}
	return pl, nil
}
