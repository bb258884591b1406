package gpucore

import (
	"fmt"
	"math"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

const redWG = 64 // workgroup size of the tree-reduction and softmax kernels

// accType is the accumulator a reduction of dt computes in, as a WGSL
// type and the short name of the combiners (reduce_ops.wgsl): f32 for
// floats (F16 included), i32 for I32, u32 for U8 and Bool, and (lo, hi)
// pairs of u32 ("w64") for I64 (and the integer Sum and Prod). The dtype
// returned is the one whose storage holds it in partial-result buffers.
func accType(dt dtype.DType) (acc, short string, storage dtype.DType) {
	switch dt {
	case dtype.F32, dtype.F16:
		return "f32", "f32", dtype.F32
	case dtype.I32:
		return "i32", "i32", dtype.I32
	case dtype.I64:
		return "vec2<u32>", "w64", dtype.I64
	}
	return "u32", "u32", dtype.U8
}

func redName(op device.ReduceOp) string {
	switch op {
	case device.Sum, device.Mean:
		return "sum"
	case device.Prod:
		return "prod"
	case device.Max, device.Any: // Any and All reduce Bool: 0 or 1
		return "max"
	case device.Min, device.All:
		return "min"
	case device.ArgMax:
		return "argmax"
	}
	return "argmin"
}

// redJob is one reduction: kept axes index the outputs, reduced axes are
// combined. Sources are raw values of srcDT, or partial accumulators (and
// indices) of an earlier pass; outputs are final values of outDT, or
// partial accumulators for a later pass.
type redJob struct {
	op         device.ReduceOp
	srcDT      dtype.DType
	src, srci  Buffer
	partialIn  bool
	dst, dsti  Buffer
	partialOut bool
	outDT      dtype.DType
	kshape     []int
	kstS, kstD []int
	rshape     []int
	rstS, rstI []int
	offS, offD int
	count      int
}

// Reduce plans reducing src over axes (sorted, distinct) into dst, whose
// shape is src's without those axes. Sum over an empty extent is 0, Prod
// 1; Mean, Max, Min and the arg reductions refuse empty extents unless the
// output is empty too. Max and Min propagate NaN; ArgMax and ArgMin take
// one axis, write I64 and return the first occurrence, a NaN counting as
// the extreme.
func (p *Planner) Reduce(name string, op device.ReduceOp, d, s Operand, axes []int) (*Plan, error) {
	if err := device.CheckReduce(p.Backend, op, device.Arg{DType: d.DT(), Shape: d.Shape}, device.Arg{DType: s.DT(), Shape: s.Shape}, axes); err != nil {
		return nil, err
	}
	sdt := s.DT()
	red := make([]bool, len(s.Shape))
	for _, a := range axes {
		red[a] = true
	}
	var kshape, kstS, rshape, rstS []int
	for i := range s.Shape {
		if red[i] {
			rshape = append(rshape, s.Shape[i])
			rstS = append(rstS, s.Strides[i])
		} else {
			kshape = append(kshape, s.Shape[i])
			kstS = append(kstS, s.Strides[i])
		}
	}
	if err := p.noAlias(name, d, s); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if d.Numel == 0 { // nothing to write, even over an empty extent
		return pl, nil
	}
	count, _ := layout.Numel(rshape)
	if count == 0 { // CheckReduce allowed it (EmptyOK): the identity
		ident := 0.0
		if op == device.Prod || op == device.All {
			ident = 1
		}
		return pl, p.fill(pl, name, d, ident)
	}
	return pl, p.reduce(pl, name, redJob{
		op: op, srcDT: sdt, src: s.Buf, dst: d.Buf, outDT: d.DT(),
		kshape: kshape, kstS: kstS, kstD: d.Strides,
		rshape: rshape, rstS: rstS, rstI: layout.RowMajorStrides(rshape),
		offS: s.Off, offD: d.Off, count: count,
	})
}

// planReduce picks the kernel (serial or workgroup) and the number of
// chunks each output's reduced range of n elements is split into, so that
// long reductions spread over many workgroups and no invocation loops
// long: drivers stop or time out long per-invocation loops (lavapipe after
// 65535 iterations), so a chunk is at most maxIter elements per invocation
// whatever n is, and the partial results are reduced again by a later pass.
// rrank is the number of reduced axes the kernel walks (each element then
// costs a loop over them).
func planReduce(outs, n int64, rrank int) (serial bool, chunks int64) {
	serial = n <= 32 || (outs >= 1024 && n <= 512)
	per := int64(4096)
	if serial {
		per = 1024
	}
	chunks = (n + per - 1) / per
	if outs >= 256 {
		chunks = (n + per*64 - 1) / (per * 64)
	}
	chunks = min(max(chunks, 1), 4096)
	maxIter := int64(2048)
	if rrank > 1 {
		maxIter = 512
	}
	if !serial {
		maxIter *= redWG
	}
	return serial, max(chunks, (n+maxIter-1)/maxIter)
}

func (p *Planner) reduce(pl *Plan, op string, j redJob) error {
	ksh, kst := coalesce(j.kshape, [][]int{j.kstS, j.kstD})
	var rsh []int
	var rst [][]int
	if j.op.IsArg() {
		rsh, rst = coalesce(j.rshape, [][]int{j.rstS, j.rstI})
	} else {
		// Without indices the order of the reduced axes is free: walk them
		// in storage order, so that permuted views merge.
		ord := make([]int, len(j.rshape))
		for i := range ord {
			ord[i] = i
		}
		abs := func(x int) int { return max(x, -x) }
		slices.SortStableFunc(ord, func(a, b int) int { return abs(j.rstS[b]) - abs(j.rstS[a]) })
		sh, st := make([]int, len(ord)), make([]int, len(ord))
		for i, a := range ord {
			sh[i], st[i] = j.rshape[a], j.rstS[a]
		}
		var rs [][]int
		rsh, rs = coalesce(sh, [][]int{st})
		rst = [][]int{rs[0], make([]int, len(rsh))} // indices unused
	}
	nK := len(ksh)
	O := prodInts(ksh)
	comb := append(append([]int(nil), ksh...), rsh...)
	stS := append(append([]int(nil), kst[0]...), rst[0]...)
	stD := append(append([]int(nil), kst[1]...), make([]int, len(rsh))...)
	acc, short, accDT := accType(j.srcDT)
	eszS := ElemBytes(j.srcDT)
	if j.partialIn {
		eszS = ElemBytes(accDT)
	}
	eszD := ElemBytes(j.outDT)
	if j.partialOut {
		eszD = ElemBytes(accDT)
	}
	// Axes beyond maxRank (kept or reduced) are walked by the boxes; the
	// reduced blocks that makes write separate partial results.
	bext := append([]int(nil), comb...)
	hostAxes(bext, 0, nK, maxRank)
	hostAxes(bext, nK, len(comb), maxRank)
	bext, ok := p.Lim.tileFrom(bext, [][]int{stS, stD}, []int{eszS, eszD}, math.MaxInt32, len(comb))
	if !ok {
		return p.errorf(op, errs.ErrUnsupported, "a single element does not fit the %d-byte storage binding limit", p.Lim.MaxBinding)
	}
	kb, rb := bext[:nK], bext[nK:]
	nbr := 1
	for i, d := range rsh {
		nbr *= (d + rb[i] - 1) / rb[i]
	}
	rr := 0
	for _, d := range rb {
		if d > 1 {
			rr++
		}
	}
	serial, P := planReduce(int64(prodInts(kb)), int64(prodInts(rb)), rr)
	Q := nbr * int(P)

	if Q > 1 && !j.partialOut {
		// Two phases: partial results [O, Q], then reduce them over Q.
		tmp := pl.scratch(p.Lim, accDT, O*Q)
		var tmpi Buffer
		if j.op.IsArg() {
			tmpi = pl.scratch(p.Lim, dtype.U8, O*Q)
		}
		rowQ := layout.RowMajorStrides(ksh)
		for i := range rowQ {
			rowQ[i] *= Q
		}
		p1 := j
		p1.kshape, p1.kstS, p1.kstD = ksh, kst[0], rowQ
		p1.rshape, p1.rstS, p1.rstI = rsh, rst[0], rst[1]
		p1.dst, p1.dsti, p1.partialOut, p1.offD = tmp, tmpi, true, 0
		p.reducePass(pl, p1, bext, serial, P, acc, short)
		p2 := redJob{
			op: j.op, srcDT: j.srcDT, src: tmp, srci: tmpi, partialIn: true,
			dst: j.dst, outDT: j.outDT,
			kshape: ksh, kstS: rowQ, kstD: kst[1],
			rshape: []int{Q}, rstS: []int{1}, rstI: []int{0},
			offS: 0, offD: j.offD, count: j.count,
		}
		return p.reduce(pl, op, p2)
	}
	j.kshape, j.kstS, j.kstD = ksh, kst[0], kst[1]
	j.rshape, j.rstS, j.rstI = rsh, rst[0], rst[1]
	p.reducePass(pl, j, bext, serial, P, acc, short)
	return nil
}

// reduceKernel is the kernel of one reduction pass.
func reduceKernel(j redJob, serial bool, acc, short string) *Kernel {
	vars := map[string]string{
		"ACC": acc,
		"RED": redName(j.op) + "_" + short,
		"WG":  fmt.Sprint(redWG),
	}
	if short == "w64" {
		vars["W64"] = "1"
	}
	nrw := 1
	if j.partialOut {
		vars["DST_PARTIAL"] = "1"
		if j.op.IsArg() {
			nrw = 2
		}
	} else if !j.op.IsArg() {
		switch j.outDT {
		case dtype.F16:
			vars["D_PACKED"] = "1"
		case dtype.F32:
			vars["FIN"] = "fin_f32"
		case dtype.I32:
			vars["FIN"] = "fin_i32"
		case dtype.U8:
			vars["FIN"] = "fin_u8"
		case dtype.Bool:
			vars["FIN"] = "fin_bool"
		}
		if j.op == device.Mean {
			vars["MEAN"] = "1"
		}
	}
	if j.op.IsArg() {
		vars["ARG"] = "1"
	}
	nro := 1
	vars["B_SRC"] = fmt.Sprint(nrw + 1)
	if j.partialIn {
		vars["SRC_PARTIAL"] = "1"
		if j.op.IsArg() {
			nro = 2
			vars["B_SRCI"] = fmt.Sprint(nrw + 2)
		}
	} else if j.srcDT == dtype.F16 {
		vars["S_PACKED"] = "1"
	}
	if serial {
		vars["SERIAL"] = "1"
	}
	return &Kernel{Template: "reduce.wgsl", Vars: vars, RW: nrw, RO: nro}
}

// reducePass appends one pass over the boxes of a tiling (bext over kept
// then reduced axes). With partial output, box (kept origin, reduced block
// rb) writes columns rb*P .. rb*P+P-1 of a [O, Q] buffer.
func (p *Planner) reducePass(pl *Plan, j redJob, bext []int, serial bool, P int64, acc, short string) {
	nK := len(j.kshape)
	k := reduceKernel(j, serial, acc, short)
	full := append(append([]int(nil), j.kshape...), j.rshape...)
	stS := append(append([]int(nil), j.kstS...), j.rstS...)
	rowR := layout.RowMajorStrides(blocksOf(j.rshape, bext[nK:]))
	boxes(full, bext, func(origin, ext []int) {
		kExt, rExt := ext[:nK], ext[nK:]
		outs, n := prodInts(kExt), prodInts(rExt)
		chunk := (int64(n) + P - 1) / P
		// The kernel sees only the axes of the box longer than 1.
		kE, ks := squeezeBox(kExt, j.kstS, j.kstD)
		rE, rs := squeezeBox(rExt, j.rstS, j.rstI)
		prm := ReduceParams{
			NOut: uint32(outs), NRed: uint32(n), NChunk: uint32(P), Chunk: uint32(chunk),
			Count: float32(j.count),
			Kept:  walk2(kE, ks...),
			Red:   walk2(rE, rs...),
		}
		// Source window.
		soff := j.offS
		for i, x := range origin {
			soff += x * stS[i]
		}
		lo, hi, _ := spanOf(ext, stS, soff)
		sw, sbase := p.Lim.Window(j.src, lo, hi, false)
		// Destination window: the kept box, plus the chunk columns.
		doff := j.offD
		for i, x := range origin[:nK] {
			doff += x * j.kstD[i]
		}
		dshape, dstr := append([]int(nil), kExt...), append([]int(nil), j.kstD...)
		if j.partialOut {
			rbIndex := 0
			for i, x := range origin[nK:] {
				rbIndex += x / bext[nK+i] * rowR[i]
			}
			doff += rbIndex * int(P)
			dshape, dstr = append(dshape, int(P)), append(dstr, 1)
		}
		dlo, dhi, _ := spanOf(dshape, dstr, doff)
		dw, dbase := p.Lim.Window(j.dst, dlo, dhi, true)
		idxBase := 0
		for i, x := range origin[nK:] {
			idxBase += x * j.rstI[i]
		}
		prm.Off = [4]int32{int32(soff - sbase), int32(doff - dbase), int32(idxBase)}
		if j.partialOut {
			prm.Pst[0] = 1
		}
		binds := []Binding{dw}
		if j.partialOut && j.op.IsArg() {
			iw, _ := p.Lim.Window(j.dsti, dlo, dhi, true)
			binds = append(binds, iw)
		}
		binds = append(binds, sw)
		if j.partialIn && j.op.IsArg() {
			iw, _ := p.Lim.Window(j.srci, lo, hi, false)
			binds = append(binds, iw)
		}
		items := uint64(outs) * uint64(P)
		groups := items
		if serial {
			groups = (items + 63) / 64
		}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: prm, Binds: binds, Grid: p.Lim.Grid(groups)})
	})
}
