package gpucore

import (
	"fmt"
	"math"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Softmax plans softmax (log-softmax when log is set) of src along axis
// into dst; both are F32 or F16 views of the same shape.
func (p *Planner) Softmax(name string, d, s Operand, axis int, log bool) (*Plan, error) {
	if err := p.sameShapes(name, []string{"dst", "src"}, d, s); err != nil {
		return nil, err
	}
	ax, err := layout.NormalizeAxis(name, axis, len(s.Shape))
	if err != nil {
		return nil, p.errorf(name, errs.ErrAxis, "axis %d out of range for rank %d", axis, len(s.Shape))
	}
	if !s.DT().IsFloat() || d.DT() != s.DT() {
		return nil, p.errorf(name, errs.ErrDType, "needs float dst and src of one dtype, have %s and %s", d.DT(), s.DT())
	}
	if err := p.noAlias(name, d, s); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if d.Numel == 0 {
		return pl, nil
	}
	var kshape, kS, kD []int
	for i := range s.Shape {
		if i != ax {
			kshape = append(kshape, s.Shape[i])
			kS = append(kS, s.Strides[i])
			kD = append(kD, d.Strides[i])
		}
	}
	ksh, kst := coalesce(kshape, [][]int{kS, kD})
	L := s.Shape[ax]
	if L <= p.SoftmaxRowMax {
		full := append(append([]int(nil), ksh...), L)
		stS := append(append([]int(nil), kst[0]...), s.Strides[ax])
		stD := append(append([]int(nil), kst[1]...), d.Strides[ax])
		esz := ElemBytes(s.DT())
		bext := append([]int(nil), full...)
		hostAxes(bext, 0, len(ksh), maxRank)
		if bext, ok := p.Lim.tileFrom(bext, [][]int{stS, stD}, []int{esz, esz}, math.MaxInt32, len(ksh)); ok {
			p.softmaxRows(pl, d, s, ax, ksh, kst, bext, log)
			return pl, nil
		}
		// One row does not fit a binding: the long plan splits rows too.
	}
	return pl, p.softmaxLong(pl, name, d, s, ax, ksh, kst, log)
}

// softmaxKernel is a softmax.wgsl kernel with the given switches.
func softmaxKernel(dst, src dtype.DType, ro int, switches ...string) *Kernel {
	vars := ewVars(dst, src, false)
	vars["WG"] = fmt.Sprint(redWG)
	for _, s := range switches {
		vars[s] = "1"
	}
	return &Kernel{Template: "softmax.wgsl", Vars: vars, RW: 1, RO: ro}
}

// softmaxRows appends the one-dispatch kernel: a workgroup per row (or,
// for short rows, SERIAL: an invocation per row) over the boxes bext of
// [kept..., row].
func (p *Planner) softmaxRows(pl *Plan, d, s Operand, ax int, ksh []int, kst [][]int, bext []int, log bool) {
	L := s.Shape[ax]
	sa, da := s.Strides[ax], d.Strides[ax]
	full := append(append([]int(nil), ksh...), L)
	stS := append(append([]int(nil), kst[0]...), sa)
	stD := append(append([]int(nil), kst[1]...), da)
	rows := prodInts(ksh)
	serial := L <= 128 && rows >= 64
	var sw []string
	if serial {
		sw = append(sw, "SERIAL")
	}
	if log {
		sw = append(sw, "LOG")
	}
	k := softmaxKernel(d.DT(), s.DT(), 1, sw...)
	nK := len(ksh)
	boxes(full, bext, func(origin, ext []int) {
		nrows := prodInts(ext[:nK])
		kE, ks := squeezeBox(ext[:nK], kst[0], kst[1])
		soff, doff := s.Off, d.Off
		for i, x := range origin {
			soff += x * stS[i]
			doff += x * stD[i]
		}
		lo, hi, _ := spanOf(ext, stS, soff)
		dlo, dhi, _ := spanOf(ext, stD, doff)
		sw, sbase := p.Lim.Window(s.Buf, lo, hi, false)
		dw, dbase := p.Lim.Window(d.Buf, dlo, dhi, true)
		prm := SoftmaxParams{
			NRows: uint32(nrows), Len: uint32(L),
			Off:  [4]int32{int32(soff - sbase), int32(doff - dbase)},
			Ax:   [4]int32{int32(sa), int32(da)},
			Kept: walk2(kE, ks...),
		}
		groups := uint64(nrows)
		if serial {
			groups = (groups + 63) / 64
		}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: prm, Binds: []Binding{dw, sw}, Grid: p.Lim.Grid(groups)})
	})
}

// softmaxLong plans softmax for rows too long for one workgroup or one
// binding, in passes whose per-invocation work is bounded:
//
//  1. stats: rows are cut into chunks of SoftmaxChunk elements (boxes
//     split rows that do not fit a binding, at chunk boundaries); a
//     workgroup writes each chunk's maximum m and sum of exp(x - m) to a
//     scratch [rows, C] array of pairs.
//  2. combine: while C > 1, workgroups merge up to SoftmaxCombine pairs of
//     a row into one (M = max m, S = sum of s*exp(m - M)), giving
//     [rows, C'].
//  3. emit: an elementwise pass over the whole view writes exp(x - M)/S
//     (or x - M - log S), reading its row's pair through a zero stride.
//
// NaN, infinities and -Inf rows come out as from the one-dispatch kernel.
func (p *Planner) softmaxLong(pl *Plan, name string, d, s Operand, ax int, ksh []int, kst [][]int, log bool) error {
	L := s.Shape[ax]
	sa := s.Strides[ax]
	nK := len(ksh)
	rows := prodInts(ksh)
	full := append(append([]int(nil), ksh...), L)
	stS := append(append([]int(nil), kst[0]...), sa)
	esz := ElemBytes(s.DT())
	bext := append([]int(nil), full...)
	hostAxes(bext, 0, nK, maxRank)
	bext, ok := p.Lim.tileFrom(bext, [][]int{stS}, []int{esz}, math.MaxInt32, len(full))
	if !ok {
		return p.errorf(name, errs.ErrUnsupported, "a single element does not fit the %d-byte storage binding limit", p.Lim.MaxBinding)
	}
	// Row pieces of a box start at multiples of the chunk length.
	ch := min(p.SoftmaxChunk, bext[nK])
	if bext[nK] > ch {
		bext[nK] -= bext[nK] % ch
	}
	C := (L + ch - 1) / ch
	pairs := int64(rows) * int64(C) * 2
	if pairs > math.MaxInt32 || !p.Lim.Fits(0, pairs, 4) {
		return p.errorf(name, errs.ErrUnsupported, "softmax of %d rows of %d elements needs %d partial results, more than one %d-byte binding holds", rows, L, pairs/2, p.Lim.MaxBinding)
	}
	tmp := pl.scratch(p.Lim, dtype.F32, int(pairs))

	// Pass 1: chunk statistics.
	k := softmaxKernel(dtype.F32, s.DT(), 1, "STATS")
	rowT := layout.RowMajorStrides(ksh) // scratch strides of the kept axes, in pairs
	for i := range rowT {
		rowT[i] *= 2 * C
	}
	boxes(full, bext, func(origin, ext []int) {
		nrows := prodInts(ext[:nK])
		nch := (ext[nK] + ch - 1) / ch
		kE, ks := squeezeBox(ext[:nK], kst[0], rowT)
		soff, toff := s.Off, 2*(origin[nK]/ch)
		for i, x := range origin {
			soff += x * stS[i]
		}
		for i, x := range origin[:nK] {
			toff += x * rowT[i]
		}
		lo, hi, _ := spanOf(ext, stS, soff)
		sw, sbase := p.Lim.Window(s.Buf, lo, hi, false)
		prm := SoftmaxParams{
			NRows: uint32(nrows * nch), Len: uint32(ext[nK]),
			Off:  [4]int32{int32(soff - sbase), int32(toff)},
			Ax:   [4]int32{int32(sa)},
			Ch:   [4]uint32{uint32(ch), uint32(nch)},
			Kept: walk2(kE, ks...),
		}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: prm, Binds: []Binding{whole(tmp, true), sw}, Grid: p.Lim.Grid(uint64(nrows * nch))})
	})

	// Pass 2: combine the pairs of each row until one is left.
	if C > 1 {
		kc := &Kernel{Template: "softmax.wgsl", Vars: map[string]string{"WG": fmt.Sprint(redWG), "COMBINE": "1"}, RW: 1, RO: 1}
		for C > 1 {
			nout := (C + p.SoftmaxCombine - 1) / p.SoftmaxCombine
			next := pl.scratch(p.Lim, dtype.F32, rows*nout*2)
			prm := CombineParams{NItems: uint32(rows * nout), NIn: uint32(C), Per: uint32(p.SoftmaxCombine), NOut: uint32(nout)}
			pl.Steps = append(pl.Steps, Dispatch{Kernel: kc, Params: prm, Binds: []Binding{whole(next, true), whole(tmp, false)}, Grid: p.Lim.Grid(uint64(rows * nout))})
			tmp, C = next, nout
		}
	}

	// Pass 3: write every element from its row's (M, S).
	sw := []string{"EMIT"}
	if log {
		sw = append(sw, "LOG")
	}
	ke := softmaxKernel(d.DT(), s.DT(), 2, sw...)
	delete(ke.Vars, "WG")
	stT := make([]int, len(s.Shape)) // the pair of each element's row
	row := 2
	for i := len(s.Shape) - 1; i >= 0; i-- {
		if i != ax {
			stT[i] = row
			row *= s.Shape[i]
		}
	}
	return p.elementwise(pl, name, ke, s.Shape, []ewArg{argOf(d), argOf(s), {b: tmp, strides: stT}}, [4]uint32{})
}
