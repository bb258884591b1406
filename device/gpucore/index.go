package gpucore

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// Plans of Gather, ScatterAdd, Scan and Sort (kernels gather.wgsl,
// scan.wgsl, sort.wgsl). These bind whole buffers: an operand larger than
// one storage binding is refused with ErrUnsupported naming the limit.

// SortRowMax is the longest row one workgroup sorts in workgroup memory (8
// bytes an element within the 16 KiB every WebGPU device offers); longer
// rows are sorted in blocks of this size and merged.
const SortRowMax = 2048

// scanChunk bounds the elements one scan invocation walks per dispatch.
const scanChunk = 4096

// ScatterLoopMax is the longest destination axis a float ScatterAdd sums
// deterministically (see Planner.ScatterAdd).
const ScatterLoopMax = 64

// scatterChunk bounds the indices one float ScatterAdd invocation reads per
// dispatch.
const scatterChunk = 4096

// arg is the argument-rule view of o.
func arg(o Operand) device.Arg { return device.Arg{DType: o.DT(), Shape: o.Shape} }

// fitWhole refuses operands whose buffers exceed one binding.
func (p *Planner) fitWhole(op string, ops ...Operand) error {
	for _, o := range ops {
		if o.Buf.Bytes() > p.Lim.MaxBinding {
			return p.errorf(op, errs.ErrUnsupported, "a %d-byte operand exceeds the %d-byte storage binding limit", o.Buf.Bytes(), p.Lim.MaxBinding)
		}
	}
	return nil
}

// word32 reports whether dt is held in 32-bit words (F32, I32, U8, Bool).
func word32(dt dtype.DType) bool { return ElemBytes(dt) == 4 }

// kernelWalk merges the axes of shape over the operands' strides and
// refuses a walk of more than maxRank axes.
func (p *Planner) kernelWalk(op string, shape []int, strides ...[]int) ([]int, [][]int, error) {
	sh, st := coalesce(shape, strides)
	if len(sh) > maxRank {
		return nil, nil, p.errorf(op, errs.ErrUnsupported, "a view of %d axes after merging (at most %d)", len(sh), maxRank)
	}
	return sh, st, nil
}

func idxVars(v map[string]string, ix Operand) map[string]string {
	if ix.DT() == dtype.I64 {
		v["IDX64"] = "1"
	}
	return v
}

// Gather plans dst[p] = src[p with axis coordinate ix[p]] (see
// device.Indexer).
func (p *Planner) Gather(name string, d, s, ix, st Operand, axis int) (*Plan, error) {
	if err := device.CheckGather(p.Backend, false, arg(s), arg(d), arg(ix), arg(st), axis); err != nil {
		return nil, err
	}
	vars := map[string]string{}
	switch {
	case s.DT() == dtype.I64:
		vars["VAL64"] = "1"
	case !word32(s.DT()):
		return nil, p.errorf(name, errs.ErrDType, "gathers 32-bit words (f32, i32, u8, bool) and i64, have %v (Cast to f32 first)", s.DT())
	}
	if err := p.noAlias(name, d, s, ix, st); err != nil {
		return nil, err
	}
	if err := p.fitWhole(name, d, s, ix, st); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if d.Numel == 0 {
		return pl, nil
	}
	sS := slices.Clone(s.Strides)
	sS[axis] = 0
	sh, str, err := p.kernelWalk(name, ix.Shape, d.Strides, sS, ix.Strides)
	if err != nil {
		return nil, err
	}
	prm := EWParams{N: uint32(d.Numel), Off: [4]int32{int32(d.Off), int32(s.Off), int32(ix.Off)},
		Ex: [4]uint32{uint32(s.Shape[axis]), uint32(int32(s.Strides[axis])), uint32(st.Off)}, W: walk4(sh, str...)}
	k := &Kernel{Template: "gather.wgsl", Vars: idxVars(vars, ix), RW: 2, RO: 2}
	pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: prm,
		Binds: []Binding{whole(d.Buf, true), whole(st.Buf, true), whole(s.Buf, false), whole(ix.Buf, false)},
		Grid:  p.Lim.Grid((uint64(d.Numel) + ewWG - 1) / ewWG)})
	return pl, nil
}

// ScatterAdd plans adding src[p] into dst at p with axis coordinate ix[p]
// (see device.Indexer). I32 adds with atomicAdd, one invocation per index.
// F32 into a destination extent of at most ScatterLoopMax along the axis,
// and I64 (WGSL has no 64-bit atomics) into any, is deterministic: one
// invocation per destination element of the indices' box sums the
// matching sources in index order (cost: that extent times the indices');
// a longer F32 axis takes the atomic kernel's exchange loop, one
// invocation per index, whose order of additions is not fixed.
func (p *Planner) ScatterAdd(name string, d, ix, s, st Operand, axis int) (*Plan, error) {
	if err := device.CheckGather(p.Backend, true, arg(d), arg(s), arg(ix), arg(st), axis); err != nil {
		return nil, err
	}
	if d.DT() != dtype.F32 && d.DT() != dtype.I32 && d.DT() != dtype.I64 {
		return nil, p.errorf(name, errs.ErrDType, "accumulates f32, i32 or i64, have %v (Cast first)", d.DT())
	}
	if err := p.noAlias(name, d, s, ix, st); err != nil {
		return nil, err
	}
	if err := p.fitWhole(name, d, s, ix, st); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if ix.Numel == 0 || d.Numel == 0 {
		return pl, nil
	}
	if d.DT() == dtype.I32 || d.DT() == dtype.F32 && d.Shape[axis] > ScatterLoopMax {
		dS := slices.Clone(d.Strides)
		dS[axis] = 0
		sh, str, err := p.kernelWalk(name, ix.Shape, dS, s.Strides, ix.Strides)
		if err != nil {
			return nil, err
		}
		prm := EWParams{N: uint32(ix.Numel), Off: [4]int32{int32(d.Off), int32(s.Off), int32(ix.Off)},
			Ex: [4]uint32{uint32(d.Shape[axis]), uint32(int32(d.Strides[axis])), uint32(st.Off)}, W: walk4(sh, str...)}
		vars := map[string]string{"ATOMIC": "1"}
		if d.DT() == dtype.F32 {
			vars["FLOAT"] = "1"
		}
		k := &Kernel{Template: "gather.wgsl", Vars: idxVars(vars, ix), RW: 2, RO: 2}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: prm,
			Binds: []Binding{whole(d.Buf, true), whole(st.Buf, true), whole(s.Buf, false), whole(ix.Buf, false)},
			Grid:  p.Lim.Grid((uint64(ix.Numel) + ewWG - 1) / ewWG)})
		return pl, nil
	}
	// The targets: the indices' box with the destination's extent along
	// the axis.
	tgt := slices.Clone(ix.Shape)
	tgt[axis] = d.Shape[axis]
	n := prodInts(tgt)
	inner := prodInts(tgt[axis+1:])
	sS, iS := slices.Clone(s.Strides), slices.Clone(ix.Strides)
	sS[axis], iS[axis] = 0, 0
	sh, str, err := p.kernelWalk(name, tgt, d.Strides, sS, iS)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{"LOOP": "1"}
	if d.DT() == dtype.I64 {
		vars["VAL64"] = "1"
	}
	k := &Kernel{Template: "gather.wgsl", Vars: idxVars(vars, ix), RW: 2, RO: 2}
	K := ix.Shape[axis]
	for start := 0; start < K; start += scatterChunk {
		prm := ScatterParams{N: uint32(n), Ext: uint32(d.Shape[axis]), Inner: uint32(inner),
			Off: [4]int32{int32(d.Off), int32(s.Off), int32(ix.Off), int32(st.Off)},
			Ax:  [4]int32{int32(s.Strides[axis]), int32(ix.Strides[axis]), int32(start), int32(min(scatterChunk, K-start))},
			W:   walk4(sh, str...)}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: prm,
			Binds: []Binding{whole(d.Buf, true), whole(st.Buf, true), whole(s.Buf, false), whole(ix.Buf, false)},
			Grid:  p.Lim.Grid((uint64(n) + ewWG - 1) / ewWG)})
	}
	return pl, nil
}

// rowWalk merges the axes of shape other than axis over the operands'
// strides: the rows of a row kernel.
func (p *Planner) rowWalk(op string, shape []int, axis int, ops ...Operand) ([]int, [][]int, error) {
	var kept []int
	st := make([][]int, len(ops))
	for i, d := range shape {
		if i == axis {
			continue
		}
		kept = append(kept, d)
		for k, o := range ops {
			st[k] = append(st[k], o.Strides[i])
		}
	}
	return p.kernelWalk(op, kept, st...)
}

// Scan plans an inclusive running sum or product along axis (see
// device.Scanner): F32 into F32; I32 (sign-extended), I64, U8 and Bool
// into I64.
// Rows go one per invocation, in dispatches of at most scanChunk elements
// of each row.
func (p *Planner) Scan(op device.ScanOp, d, s Operand, axis int) (*Plan, error) {
	name := op.String()
	if err := device.CheckScan(p.Backend, op, arg(d), arg(s), axis); err != nil {
		return nil, err
	}
	vars := map[string]string{}
	switch s.DT() {
	case dtype.F32:
		vars["FLOAT"] = "1"
	case dtype.I32:
		vars["SIGNED"] = "1"
	case dtype.I64:
		vars["WIDE"] = "1"
	case dtype.U8, dtype.Bool:
	default:
		return nil, p.errorf(name, errs.ErrDType, "scans f32, i32, i64, u8 and bool, have %v (Cast to f32 first)", s.DT())
	}
	if op == device.CumProd {
		vars["PROD"] = "1"
	}
	if err := p.noAlias(name, d, s); err != nil {
		return nil, err
	}
	if err := p.fitWhole(name, d, s); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if d.Numel == 0 {
		return pl, nil
	}
	ksh, kst, err := p.rowWalk(name, s.Shape, axis, s, d)
	if err != nil {
		return nil, err
	}
	rows := prodInts(ksh)
	L, sa, da := s.Shape[axis], s.Strides[axis], d.Strides[axis]
	k := &Kernel{Template: "scan.wgsl", Vars: vars, RW: 1, RO: 1}
	for start := 0; start < L; start += scanChunk {
		prm := SoftmaxParams{NRows: uint32(rows), Len: uint32(min(scanChunk, L-start)),
			Off:  [4]int32{int32(s.Off + start*sa), int32(d.Off + start*da)},
			Ax:   [4]int32{int32(sa), int32(da)},
			Ch:   [4]uint32{uint32(min(start, 1))},
			Kept: walk2(ksh, kst...)}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: prm,
			Binds: []Binding{whole(d.Buf, true), whole(s.Buf, false)}, Grid: p.Lim.Grid((uint64(rows) + 63) / 64)})
	}
	return pl, nil
}

// Sort plans a stable sort of each row along axis (see device.Sorter);
// vals and idx must share a layout (as fresh contiguous outputs do). A row
// of at most SortRowMax elements is sorted by one workgroup in one
// dispatch. Longer rows take blocks of SortRowMax sorted by workgroups into
// a scratch of (key, position) pairs, merge passes that double the sorted
// runs (each pair finds its place by binary search), and a pass writing
// values and indices: 2 + log2(blocks) dispatches.
func (p *Planner) Sort(name string, v, ix, s Operand, axis int, descending bool) (*Plan, error) {
	if err := device.CheckSort(p.Backend, arg(v), arg(ix), arg(s), axis); err != nil {
		return nil, err
	}
	vars := map[string]string{}
	switch s.DT() {
	case dtype.F32:
		vars["KIND_F"] = "1"
	case dtype.I32:
		vars["KIND_I"] = "1"
	case dtype.U8, dtype.Bool:
	default:
		return nil, p.errorf(name, errs.ErrDType, "sorts f32, i32, u8 and bool, have %v (Cast to f32 first)", s.DT())
	}
	if descending {
		vars["DESC"] = "1"
	}
	if !slices.Equal(v.Strides, ix.Strides) {
		return nil, p.errorf(name, errs.ErrValue, "values (strides %v) and indices (strides %v) must share a layout", v.Strides, ix.Strides)
	}
	if err := p.noAlias(name, v, s, ix); err != nil {
		return nil, err
	}
	if err := p.fitWhole(name, v, ix, s); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if v.Numel == 0 {
		return pl, nil
	}
	ksh, kst, err := p.rowWalk(name, s.Shape, axis, s, v)
	if err != nil {
		return nil, err
	}
	L, rows := s.Shape[axis], prodInts(ksh)
	sa, va := s.Strides[axis], v.Strides[axis]
	rowPrm := SoftmaxParams{NRows: uint32(rows), Len: uint32(L),
		Off:  [4]int32{int32(s.Off), int32(v.Off), int32(ix.Off)},
		Ax:   [4]int32{int32(sa), int32(va)},
		Kept: walk2(ksh, kst...)}
	if L <= SortRowMax {
		sn := max(2, 1<<bits.Len(uint(L-1)))
		k := &Kernel{Template: "sort.wgsl", Vars: with(vars, "SN", fmt.Sprint(sn), "WG", fmt.Sprint(min(redWG, sn))), RW: 2, RO: 1}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: rowPrm,
			Binds: []Binding{whole(v.Buf, true), whole(ix.Buf, true), whole(s.Buf, false)}, Grid: p.Lim.Grid(uint64(rows))})
		return pl, nil
	}
	nb := (L + SortRowMax - 1) / SortRowMax
	lp := nb * SortRowMax
	words := int64(rows) * int64(lp) * 2
	if words > math.MaxInt32 || !p.Lim.Fits(0, words, 4) || rows*L > math.MaxInt32 {
		return nil, p.errorf(name, errs.ErrUnsupported, "sorting %d rows of %d elements needs %d scratch words, more than one %d-byte binding holds", rows, L, words, p.Lim.MaxBinding)
	}
	a, b := pl.scratch(p.Lim, dtype.I32, int(words)), pl.scratch(p.Lim, dtype.I32, int(words))
	blk := rowPrm
	blk.NRows, blk.Ch = uint32(rows*nb), [4]uint32{uint32(nb), uint32(lp)}
	kb := &Kernel{Template: "sort.wgsl", Vars: with(vars, "BLOCK", "1", "SN", fmt.Sprint(SortRowMax), "WG", fmt.Sprint(redWG)), RW: 1, RO: 1}
	pl.Steps = append(pl.Steps, Dispatch{Kernel: kb, Params: blk,
		Binds: []Binding{whole(a, true), whole(s.Buf, false)}, Grid: p.Lim.Grid(uint64(rows * nb))})
	km := &Kernel{Template: "sort.wgsl", Vars: map[string]string{"MERGE": "1"}, RW: 1, RO: 1}
	items := uint64(rows) * uint64(lp)
	for w := SortRowMax; w < lp; w *= 2 {
		prm := CombineParams{NItems: uint32(items), NIn: uint32(w), Per: uint32(lp)}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: km, Params: prm,
			Binds: []Binding{whole(b, true), whole(a, false)}, Grid: p.Lim.Grid((items + 255) / 256)})
		a, b = b, a
	}
	em := rowPrm
	em.NRows, em.Ch = uint32(rows*L), [4]uint32{0, uint32(lp)}
	ke := &Kernel{Template: "sort.wgsl", Vars: map[string]string{"EMIT": "1"}, RW: 2, RO: 2}
	pl.Steps = append(pl.Steps, Dispatch{Kernel: ke, Params: em,
		Binds: []Binding{whole(v.Buf, true), whole(ix.Buf, true), whole(s.Buf, false), whole(a, false)},
		Grid:  p.Lim.Grid((uint64(rows*L) + 255) / 256)})
	return pl, nil
}

// with returns a copy of v with the given name, value pairs set.
func with(v map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(v)+len(kv)/2)
	for k, x := range v {
		out[k] = x
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}
