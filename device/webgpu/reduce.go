//go:build cgo

package webgpu

import (
	"fmt"
	"math"

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
// Max, Min and the arg reductions refuse empty extents. Max and Min
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
	count, _ := layout.Numel(rshape)
	if count == 0 && op != device.Sum && op != device.Prod {
		return errs.New("webgpu", name, errs.ErrShape, "%s over an empty extent (shape %v, axes %v)", op, s.shape, axes)
	}
	if d.numel == 0 {
		return nil
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
// chunks each output's reduced range is split into, so that long
// reductions spread over many workgroups and no dispatch runs long.
func planReduce(outs, n int64) (serial bool, chunks int64) {
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
	if outs*chunks >= math.MaxInt32 {
		chunks = 1
	}
	return serial, chunks
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
	rsh, rst := coalesce(j.rshape, [][]int{j.rstS, j.rstI})
	if len(ksh) > maxRank || len(rsh) > maxRank {
		return errs.New("webgpu", op, errs.ErrUnsupported, "reduction keeps %d and reduces %d axes after merging; kernels take at most %d each", len(ksh), len(rsh), maxRank)
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
	bext, ok := g.tileExtents(comb, [][]int{stS, stD}, []int{eszS, eszD}, math.MaxInt32, len(comb))
	if !ok {
		return errs.New("webgpu", op, errs.ErrUnsupported, "a single element does not fit the %d-byte storage binding limit", g.lim.maxBinding)
	}
	kb, rb := bext[:nK], bext[nK:]
	nbr := 1
	for i, d := range rsh {
		nbr *= (d + rb[i] - 1) / rb[i]
	}
	serial, P := planReduce(int64(prodInts(kb)), int64(prodInts(rb)))
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
		p := make([]uint32, 64)
		p[0], p[1], p[2], p[3] = uint32(outs), uint32(n), uint32(P), uint32(chunk)
		p[4], p[5] = uint32(nK), uint32(len(rExt))
		p[6] = math.Float32bits(float32(j.count))
		for i, d := range kExt {
			p[8+i] = uint32(d)
		}
		for i, d := range rExt {
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
		for i := range kExt {
			p[28+i] = uint32(int32(j.kstS[i]))
			p[36+i] = uint32(int32(j.kstD[i]))
		}
		for i := range rExt {
			p[44+i] = uint32(int32(j.rstS[i]))
			p[52+i] = uint32(int32(j.rstI[i]))
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
	if len(ksh) > maxRank {
		return errs.New("webgpu", name, errs.ErrUnsupported, "%d kept axes after merging; kernels take at most %d", len(ksh), maxRank)
	}
	L := s.shape[ax]
	sa, da := s.strides[ax], d.strides[ax]
	full := append(append([]int(nil), ksh...), L)
	stS := append(append([]int(nil), kst[0]...), sa)
	stD := append(append([]int(nil), kst[1]...), da)
	esz := gpuElemBytes(s.b.dt)
	bext, ok := g.tileExtents(full, [][]int{stS, stD}, []int{esz, esz}, math.MaxInt32, len(ksh))
	if !ok {
		return errs.New("webgpu", name, errs.ErrUnsupported, "one row of %d elements along axis %d does not fit the %d-byte storage binding limit", L, ax, g.lim.maxBinding)
	}
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
		kExt := ext[:nK]
		nrows := prodInts(kExt)
		soff, doff := s.off, d.off
		for i, x := range origin {
			soff += x * stS[i]
			doff += x * stD[i]
		}
		lo, hi, _ := spanOf(ext, stS, soff)
		dlo, dhi, _ := spanOf(ext, stD, doff)
		sw, dw := g.windowFor(s.b, lo, hi), g.windowFor(d.b, dlo, dhi)
		p := make([]uint32, 36)
		p[0], p[1], p[2] = uint32(nrows), uint32(L), uint32(nK)
		for i, e := range kExt {
			p[4+i] = uint32(e)
		}
		p[12] = uint32(int32(soff - sw.base))
		p[13] = uint32(int32(doff - dw.base))
		for i := range kExt {
			p[16+i] = uint32(int32(kst[0][i]))
			p[24+i] = uint32(int32(kst[1][i]))
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
