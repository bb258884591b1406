//go:build cgo

package webgpu

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

// accType is the accumulator a reduction of dt computes in: f32 for floats
// (F16 included), i32 for I32, u32 for U8 and Bool. The dtype returned is
// the one whose storage holds it in partial-result buffers.
func accType(dt dtype.DType) (string, dtype.DType) {
	switch dt {
	case dtype.F32, dtype.F16:
		return "f32", dtype.F32
	case dtype.I32:
		return "i32", dtype.I32
	}
	return "u32", dtype.U8
}

func redName(op device.ReduceOp) string {
	switch op {
	case device.Sum, device.Mean:
		return "sum"
	case device.Prod:
		return "prod"
	case device.Max:
		return "max"
	case device.Min:
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
	src, srci  *gbuf
	partialIn  bool
	dst, dsti  *gbuf
	partialOut bool
	outDT      dtype.DType
	kshape     []int
	kstS, kstD []int
	rshape     []int
	rstS, rstI []int
	offS, offD int
	count      int
}

// Reduce reduces src over axes (sorted, distinct) into dst, whose shape is
// src's without those axes. Sum over an empty extent is 0, Prod 1; Mean,
// Max, Min and the arg reductions refuse empty extents unless the output
// is empty too. Max and Min
// propagate NaN; ArgMax and ArgMin take one axis, write I64 and return the
// first occurrence, a NaN counting as the extreme.
func (g *gpu) Reduce(op device.ReduceOp, dst, src device.Operand, axes []int) error {
	const name = "Reduce"
	if op >= device.ReduceOp(len(device.ReduceOps())) {
		return errs.New("webgpu", name, errs.ErrUnsupported, "unknown reduction %d", op)
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
	rank := len(s.shape)
	red := make([]bool, rank)
	for i, a := range axes {
		if a < 0 || a >= rank {
			return errs.New("webgpu", name, errs.ErrAxis, "%s: axis %d out of range for rank %d", op, a, rank)
		}
		if i > 0 && a <= axes[i-1] {
			return errs.New("webgpu", name, errs.ErrAxis, "%s: axes %v must be sorted and distinct", op, axes)
		}
		red[a] = true
	}
	if op.IsArg() && len(axes) != 1 {
		return errs.New("webgpu", name, errs.ErrAxis, "%s reduces exactly one axis, have axes %v", op, axes)
	}
	sdt := s.b.dt
	switch {
	case sdt == dtype.I64:
		return errs.New("webgpu", name, errs.ErrDType, "%s is not defined for i64 on WebGPU", op)
	case op == device.Mean && !sdt.IsFloat():
		return errs.New("webgpu", name, errs.ErrDType, "Mean needs a float operand, have %s", sdt)
	case sdt == dtype.Bool:
		return errs.New("webgpu", name, errs.ErrDType, "%s is not defined for bool; cast first", op)
	}
	want := sdt
	if op.IsArg() {
		want = dtype.I64
	}
	if d.b.dt != want {
		return errs.New("webgpu", name, errs.ErrDType, "%s of %s writes %s, dst is %s", op, sdt, want, d.b.dt)
	}
	var kshape, kstS, rshape, rstS []int
	for i := range s.shape {
		if red[i] {
			rshape = append(rshape, s.shape[i])
			rstS = append(rstS, s.strides[i])
		} else {
			kshape = append(kshape, s.shape[i])
			kstS = append(kstS, s.strides[i])
		}
	}
	if !sameShape(d.shape, kshape) && !(len(d.shape) == 0 && len(kshape) == 0) {
		return errs.New("webgpu", name, errs.ErrShape, "%s of %v over axes %v gives shape %v, dst has %v", op, s.shape, axes, kshape, d.shape)
	}
	if err := noAlias(name, d, s); err != nil {
		return err
	}
	if d.numel == 0 { // nothing to write, even over an empty extent
		return nil
	}
	count, _ := layout.Numel(rshape)
	if count == 0 && op != device.Sum && op != device.Prod {
		return errs.New("webgpu", name, errs.ErrShape, "%s over an empty extent (shape %v, axes %v)", op, s.shape, axes)
	}
	if count == 0 { // Sum or Prod of nothing: the identity
		ident := 0.0
		if op == device.Prod {
			ident = 1
		}
		return g.fillLocked(name, d, fillBits(d.b.dt, ident))
	}
	return g.reduceLocked(name, redJob{
		op: op, srcDT: sdt, src: s.b, dst: d.b, outDT: d.b.dt,
		kshape: kshape, kstS: kstS, kstD: d.strides,
		rshape: rshape, rstS: rstS, rstI: layout.RowMajorStrides(rshape),
		offS: s.off, offD: d.off, count: count,
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

func prodInts(s []int) int {
	p := 1
	for _, d := range s {
		p *= d
	}
	return p
}

func (g *gpu) reduceLocked(op string, j redJob) error {
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
	if kst == nil {
		kst = [][]int{nil, nil}
	}
	if rst == nil {
		rst = [][]int{nil, nil}
	}
	nK := len(ksh)
	O := prodInts(ksh)
	comb := append(append([]int(nil), ksh...), rsh...)
	stS := append(append([]int(nil), kst[0]...), rst[0]...)
	stD := append(append([]int(nil), kst[1]...), make([]int, len(rsh))...)
	eszS := gpuElemBytes(j.srcDT)
	if j.partialIn {
		eszS = 4
	}
	eszD := gpuElemBytes(j.outDT)
	if j.partialOut {
		eszD = 4
	}
	// Axes beyond maxRank (kept or reduced) are walked by the boxes; the
	// reduced blocks that makes write separate partial results.
	bext := append([]int(nil), comb...)
	hostAxes(bext, 0, nK, maxRank)
	hostAxes(bext, nK, len(comb), maxRank)
	bext, ok := g.tileFrom(bext, [][]int{stS, stD}, []int{eszS, eszD}, math.MaxInt32, len(comb))
	if !ok {
		return errs.New("webgpu", op, errs.ErrUnsupported, "a single element does not fit the %d-byte storage binding limit", g.lim.maxBinding)
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

	acc, accDT := accType(j.srcDT)
	if Q > 1 && !j.partialOut {
		// Two phases: partial results [O, Q], then reduce them over Q.
		tmp, err := g.tempLocked(op, accDT, O*Q)
		if err != nil {
			return err
		}
		defer g.releaseTempLocked(tmp)
		var tmpi *gbuf
		if j.op.IsArg() {
			if tmpi, err = g.tempLocked(op, dtype.U8, O*Q); err != nil {
				return err
			}
			defer g.releaseTempLocked(tmpi)
		}
		rowQ := layout.RowMajorStrides(ksh)
		for i := range rowQ {
			rowQ[i] *= Q
		}
		p1 := j
		p1.kshape, p1.kstS, p1.kstD = ksh, kst[0], rowQ
		p1.rshape, p1.rstS, p1.rstI = rsh, rst[0], rst[1]
		p1.dst, p1.dsti, p1.partialOut, p1.offD = tmp, tmpi, true, 0
		if err := g.reducePassLocked(op, p1, bext, serial, P, Q, acc); err != nil {
			return err
		}
		p2 := redJob{
			op: j.op, srcDT: j.srcDT, src: tmp, srci: tmpi, partialIn: true,
			dst: j.dst, outDT: j.outDT,
			kshape: ksh, kstS: rowQ, kstD: kst[1],
			rshape: []int{Q}, rstS: []int{1}, rstI: []int{0},
			offS: 0, offD: j.offD, count: j.count,
		}
		return g.reduceLocked(op, p2)
	}
	j.kshape, j.kstS, j.kstD = ksh, kst[0], kst[1]
	j.rshape, j.rstS, j.rstI = rsh, rst[0], rst[1]
	return g.reducePassLocked(op, j, bext, serial, P, Q, acc)
}

// reducePassLocked dispatches one pass over the boxes of a tiling (bext
// over kept then reduced axes). With partial output, box (kept origin,
// reduced block rb) writes columns rb*P .. rb*P+P-1 of a [O, Q] buffer.
func (g *gpu) reducePassLocked(op string, j redJob, bext []int, serial bool, P int64, Q int, acc string) error {
	nK := len(j.kshape)
	vars := map[string]string{
		"ACC": acc,
		"RED": redName(j.op) + "_" + acc,
		"WG":  fmt.Sprint(redWG),
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
	k, err := g.kernelLocked(op, "reduce.wgsl", vars, nrw, nro)
	if err != nil {
		return err
	}
	full := append(append([]int(nil), j.kshape...), j.rshape...)
	stS := append(append([]int(nil), j.kstS...), j.rstS...)
	rowR := layout.RowMajorStrides(blocksOf(j.rshape, bext[nK:]))
	var calls []call
	err = boxes(full, bext, func(origin, ext []int) error {
		kExt, rExt := ext[:nK], ext[nK:]
		outs, n := prodInts(kExt), prodInts(rExt)
		chunk := (int64(n) + P - 1) / P
		// The kernel sees only the axes of the box longer than 1.
		kE, ks := squeezeBox(kExt, j.kstS, j.kstD)
		rE, rs := squeezeBox(rExt, j.rstS, j.rstI)
		p := make([]uint32, 64)
		p[0], p[1], p[2], p[3] = uint32(outs), uint32(n), uint32(P), uint32(chunk)
		p[4], p[5] = uint32(len(kE)), uint32(len(rE))
		p[6] = math.Float32bits(float32(j.count))
		for i, d := range kE {
			p[8+i] = uint32(d)
		}
		for i, d := range rE {
			p[16+i] = uint32(d)
		}
		// Source window.
		soff := j.offS
		for i, x := range origin {
			soff += x * stS[i]
		}
		lo, hi, _ := spanOf(ext, stS, soff)
		sw := g.windowFor(j.src, lo, hi)
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
		dw := g.windowFor(j.dst, dlo, dhi)
		idxBase := 0
		for i, x := range origin[nK:] {
			idxBase += x * j.rstI[i]
		}
		p[24] = uint32(int32(soff - sw.base))
		p[25] = uint32(int32(doff - dw.base))
		p[26] = uint32(int32(idxBase))
		for i := range kE {
			p[28+i] = uint32(int32(ks[0][i]))
			p[36+i] = uint32(int32(ks[1][i]))
		}
		for i := range rE {
			p[44+i] = uint32(int32(rs[0][i]))
			p[52+i] = uint32(int32(rs[1][i]))
		}
		if j.partialOut {
			p[60] = 1
		}
		binds := []bind{dw.bind}
		if j.partialOut && j.op.IsArg() {
			iw := g.windowFor(j.dsti, dlo, dhi)
			binds = append(binds, iw.bind)
		}
		binds = append(binds, sw.bind)
		if j.partialIn && j.op.IsArg() {
			binds = append(binds, g.windowFor(j.srci, lo, hi).bind)
		}
		items := uint64(outs) * uint64(P)
		groups := items
		if serial {
			groups = (items + 63) / 64
		}
		calls = append(calls, call{k: k, params: p, binds: binds, grid: g.gridFor(groups)})
		return nil
	})
	if err != nil {
		return err
	}
	return g.runLocked(op, calls)
}

// blocksOf is the number of boxes along each axis of a tiling.
func blocksOf(shape, bext []int) []int {
	out := make([]int, len(shape))
	for i, d := range shape {
		out[i] = (d + bext[i] - 1) / bext[i]
	}
	return out
}

// Softmax row plans. A row of at most smRowMax elements (and whose span
// fits one binding) is done by one workgroup in one dispatch; each
// invocation then loops at most 3*smRowMax/redWG times. Longer rows take
// the multi-pass plan of softmaxLongLocked, whose loops are bounded by
// smChunk and smCombine whatever the row length. They are variables only
// so that tests can exercise the long plan on small rows.
var (
	smRowMax  = 1 << 16     // longest row of the one-dispatch kernel
	smChunk   = redWG * 256 // row elements per workgroup in the stats pass
	smCombine = redWG * 64  // partial (max, sum) pairs per combining workgroup
)

// Softmax writes softmax (log-softmax when log is set) of src along axis
// into dst; both are F32 or F16 views of the same shape.
func (g *gpu) Softmax(dst, src device.Operand, axis int, log bool) error {
	const name = "Softmax"
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
		return shapeErr(name, "dst and src", d.shape, s.shape)
	}
	ax, err := layout.NormalizeAxis(name, axis, len(s.shape))
	if err != nil {
		return errs.New("webgpu", name, errs.ErrAxis, "axis %d out of range for rank %d", axis, len(s.shape))
	}
	if !s.b.dt.IsFloat() || d.b.dt != s.b.dt {
		return errs.New("webgpu", name, errs.ErrDType, "needs float dst and src of one dtype, have %s and %s", d.b.dt, s.b.dt)
	}
	if err := noAlias(name, d, s); err != nil {
		return err
	}
	if d.numel == 0 {
		return nil
	}
	var kshape, kS, kD []int
	for i := range s.shape {
		if i != ax {
			kshape = append(kshape, s.shape[i])
			kS = append(kS, s.strides[i])
			kD = append(kD, d.strides[i])
		}
	}
	ksh, kst := coalesce(kshape, [][]int{kS, kD})
	if kst == nil {
		kst = [][]int{nil, nil}
	}
	L := s.shape[ax]
	if L <= smRowMax {
		full := append(append([]int(nil), ksh...), L)
		stS := append(append([]int(nil), kst[0]...), s.strides[ax])
		stD := append(append([]int(nil), kst[1]...), d.strides[ax])
		esz := gpuElemBytes(s.b.dt)
		bext := append([]int(nil), full...)
		hostAxes(bext, 0, len(ksh), maxRank)
		if bext, ok := g.tileFrom(bext, [][]int{stS, stD}, []int{esz, esz}, math.MaxInt32, len(ksh)); ok {
			return g.softmaxRowsLocked(name, d, s, ax, ksh, kst, bext, log)
		}
		// One row does not fit a binding: the long plan splits rows too.
	}
	return g.softmaxLongLocked(name, d, s, ax, ksh, kst, log)
}

// softmaxRowsLocked runs the one-dispatch kernel: a workgroup per row (or,
// for short rows, SERIAL: an invocation per row) over the boxes bext of
// [kept..., row].
func (g *gpu) softmaxRowsLocked(name string, d, s opnd, ax int, ksh []int, kst [][]int, bext []int, log bool) error {
	L := s.shape[ax]
	sa, da := s.strides[ax], d.strides[ax]
	full := append(append([]int(nil), ksh...), L)
	stS := append(append([]int(nil), kst[0]...), sa)
	stD := append(append([]int(nil), kst[1]...), da)
	rows := prodInts(ksh)
	serial := L <= 128 && rows >= 64
	vars := map[string]string{"WG": fmt.Sprint(redWG)}
	dstVars(vars, d.b.dt, false)
	srcVars(vars, s.b.dt, false)
	if serial {
		vars["SERIAL"] = "1"
	}
	if log {
		vars["LOG"] = "1"
	}
	k, err := g.kernelLocked(name, "softmax.wgsl", vars, 1, 1)
	if err != nil {
		return err
	}
	nK := len(ksh)
	var calls []call
	err = boxes(full, bext, func(origin, ext []int) error {
		nrows := prodInts(ext[:nK])
		kE, ks := squeezeBox(ext[:nK], kst[0], kst[1])
		soff, doff := s.off, d.off
		for i, x := range origin {
			soff += x * stS[i]
			doff += x * stD[i]
		}
		lo, hi, _ := spanOf(ext, stS, soff)
		dlo, dhi, _ := spanOf(ext, stD, doff)
		sw, dw := g.windowFor(s.b, lo, hi), g.windowFor(d.b, dlo, dhi)
		p := make([]uint32, 40)
		p[0], p[1], p[2] = uint32(nrows), uint32(L), uint32(len(kE))
		for i, e := range kE {
			p[4+i] = uint32(e)
		}
		p[12] = uint32(int32(soff - sw.base))
		p[13] = uint32(int32(doff - dw.base))
		for i := range kE {
			p[16+i] = uint32(int32(ks[0][i]))
			p[24+i] = uint32(int32(ks[1][i]))
		}
		p[32], p[33] = uint32(int32(sa)), uint32(int32(da))
		groups := uint64(nrows)
		if serial {
			groups = (groups + 63) / 64
		}
		calls = append(calls, call{k: k, params: p, binds: []bind{dw.bind, sw.bind}, grid: g.gridFor(groups)})
		return nil
	})
	if err != nil {
		return err
	}
	return g.runLocked(name, calls)
}

// softmaxLongLocked computes softmax for rows too long for one workgroup
// or one binding, in passes whose per-invocation work is bounded:
//
//  1. stats: rows are cut into chunks of smChunk elements (boxes split
//     rows that do not fit a binding, at chunk boundaries); a workgroup
//     writes each chunk's maximum m and sum of exp(x - m) to a scratch
//     [rows, C] array of pairs.
//  2. combine: while C > 1, workgroups merge up to smCombine pairs of a row
//     into one (M = max m, S = sum of s*exp(m - M)), giving [rows, C'].
//  3. emit: an elementwise pass over the whole view writes exp(x - M)/S
//     (or x - M - log S), reading its row's pair through a zero stride.
//
// NaN, infinities and -Inf rows come out as from the one-dispatch kernel.
func (g *gpu) softmaxLongLocked(name string, d, s opnd, ax int, ksh []int, kst [][]int, log bool) error {
	L := s.shape[ax]
	sa := s.strides[ax]
	nK := len(ksh)
	rows := prodInts(ksh)
	full := append(append([]int(nil), ksh...), L)
	stS := append(append([]int(nil), kst[0]...), sa)
	esz := gpuElemBytes(s.b.dt)
	bext := append([]int(nil), full...)
	hostAxes(bext, 0, nK, maxRank)
	bext, ok := g.tileFrom(bext, [][]int{stS}, []int{esz}, math.MaxInt32, len(full))
	if !ok {
		return errs.New("webgpu", name, errs.ErrUnsupported, "a single element does not fit the %d-byte storage binding limit", g.lim.maxBinding)
	}
	// Row pieces of a box start at multiples of the chunk length.
	ch := min(smChunk, bext[nK])
	if bext[nK] > ch {
		bext[nK] -= bext[nK] % ch
	}
	C := (L + ch - 1) / ch
	pairs := int64(rows) * int64(C) * 2
	if pairs > math.MaxInt32 || !g.fits(0, pairs, 4) {
		return errs.New("webgpu", name, errs.ErrUnsupported, "softmax of %d rows of %d elements needs %d partial results, more than one %d-byte binding holds", rows, L, pairs/2, g.lim.maxBinding)
	}
	tmp, err := g.tempLocked(name, dtype.F32, int(pairs))
	if err != nil {
		return err
	}
	defer func() { g.releaseTempLocked(tmp) }() // the last scratch in use

	// Pass 1: chunk statistics.
	vars := map[string]string{"WG": fmt.Sprint(redWG), "STATS": "1"}
	dstVars(vars, dtype.F32, false)
	srcVars(vars, s.b.dt, false)
	k, err := g.kernelLocked(name, "softmax.wgsl", vars, 1, 1)
	if err != nil {
		return err
	}
	rowT := layout.RowMajorStrides(ksh) // scratch strides of the kept axes, in pairs
	for i := range rowT {
		rowT[i] *= 2 * C
	}
	var calls []call
	err = boxes(full, bext, func(origin, ext []int) error {
		nrows := prodInts(ext[:nK])
		nch := (ext[nK] + ch - 1) / ch
		kE, ks := squeezeBox(ext[:nK], kst[0], rowT)
		soff, toff := s.off, 2*(origin[nK]/ch)
		for i, x := range origin {
			soff += x * stS[i]
		}
		for i, x := range origin[:nK] {
			toff += x * rowT[i]
		}
		lo, hi, _ := spanOf(ext, stS, soff)
		sw := g.windowFor(s.b, lo, hi)
		p := make([]uint32, 40)
		p[0], p[1], p[2] = uint32(nrows*nch), uint32(ext[nK]), uint32(len(kE))
		for i, e := range kE {
			p[4+i] = uint32(e)
		}
		p[12] = uint32(int32(soff - sw.base))
		p[13] = uint32(int32(toff))
		for i := range kE {
			p[16+i] = uint32(int32(ks[0][i]))
			p[24+i] = uint32(int32(ks[1][i]))
		}
		p[32] = uint32(int32(sa))
		p[36], p[37] = uint32(ch), uint32(nch)
		calls = append(calls, call{k: k, params: p, binds: []bind{whole(tmp), sw.bind}, grid: g.gridFor(uint64(nrows * nch))})
		return nil
	})
	if err != nil {
		return err
	}
	if err := g.runLocked(name, calls); err != nil {
		return err
	}

	// Pass 2: combine the pairs of each row until one is left.
	if C > 1 {
		kc, err := g.kernelLocked(name, "softmax.wgsl", map[string]string{"WG": fmt.Sprint(redWG), "COMBINE": "1"}, 1, 1)
		if err != nil {
			return err
		}
		for C > 1 {
			nout := (C + smCombine - 1) / smCombine
			next, err := g.tempLocked(name, dtype.F32, rows*nout*2)
			if err != nil {
				return err
			}
			p := []uint32{uint32(rows * nout), uint32(C), uint32(smCombine), uint32(nout)}
			err = g.runLocked(name, []call{{k: kc, params: p, binds: []bind{whole(next), whole(tmp)}, grid: g.gridFor(uint64(rows * nout))}})
			g.releaseTempLocked(tmp)
			tmp, C = next, nout
			if err != nil {
				return err
			}
		}
	}

	// Pass 3: write every element from its row's (M, S).
	vars = map[string]string{"EMIT": "1"}
	dstVars(vars, d.b.dt, false)
	srcVars(vars, s.b.dt, false)
	if log {
		vars["LOG"] = "1"
	}
	ke, err := g.kernelLocked(name, "softmax.wgsl", vars, 1, 2)
	if err != nil {
		return err
	}
	stT := make([]int, len(s.shape)) // the pair of each element's row
	row := 2
	for i := len(s.shape) - 1; i >= 0; i-- {
		if i != ax {
			stT[i] = row
			row *= s.shape[i]
		}
	}
	return g.ewLocked(name, ke, s.shape, []ewArg{argOf(d), argOf(s), {b: tmp, strides: stT}}, [4]uint32{})
}
