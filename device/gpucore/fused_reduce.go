package gpucore

import (
	"fmt"
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// fusedRedChunk is the most elements one invocation of a fused reduction
// folds: well under the per-invocation loop limits of drivers (lavapipe
// stops at 65535 iterations), and small enough that a single long sum
// spreads over many invocations.
const fusedRedChunk = 1024

// FusedReduce plans reduction rop of program prog's values (over inputs
// ins of one shape) along axes into d, without materialising them: one
// specialisation of fused.wgsl (REDUCE) evaluates the program at each
// element and folds it into an f32 partial result per (output, chunk of at
// most fusedRedChunk elements), and the reduce kernel combines the
// partials into d (dividing for Mean, rounding to f16). The elements are
// walked in device.ReduceOrder, kept axes first, so each output's elements
// are consecutive in one flat index.
//
// It refuses with ErrUnsupported what the single pass cannot cover — the
// arg reductions, more than 2^31 elements, views that keep more than
// maxRank axes after merging, inputs or partials beyond one storage
// binding — and the caller then realises the program and reduces it.
func (p *Planner) FusedReduce(op string, rop device.ReduceOp, d Operand, prog device.Program, ins []Operand, axes []int, cache FusedCache) (*Plan, error) {
	if !device.FusesReduce(rop) {
		return nil, p.errorf(op, errs.ErrUnsupported, "%v takes no fused prologue", rop)
	}
	if len(ins) == 0 {
		return nil, p.errorf(op, errs.ErrValue, "a fused reduction needs an input to take its shape from")
	}
	prm, err := p.fusedParams(op, prog, ins)
	if err != nil {
		return nil, err
	}
	for i, in := range ins[1:] {
		if err := p.sameShapes(op, []string{"input 0", fmt.Sprintf("input %d", i+1)}, ins[0], in); err != nil {
			return nil, err
		}
	}
	shape := ins[0].Shape
	if err := device.CheckReduce(p.Backend, rop, device.Arg{DType: d.DT(), Shape: d.Shape}, device.Arg{DType: prog.DType, Shape: shape}, axes); err != nil {
		return nil, err
	}
	if err := p.noAlias(op, d, ins...); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if d.Numel == 0 {
		return pl, nil
	}
	count := 1
	for _, a := range axes {
		count *= shape[a]
	}
	if count == 0 { // Sum or Prod of nothing: the identity
		ident := 0.0
		if rop == device.Prod {
			ident = 1
		}
		return pl, p.fill(pl, op, d, ident)
	}
	outs := d.Numel
	if int64(outs)*int64(count) > math.MaxInt32 {
		return nil, p.errorf(op, errs.ErrUnsupported, "%d×%d elements exceed a fused reduction's index range", outs, count)
	}

	// Walk order: kept axes, then reduced; operand 0 (the destination of
	// the elementwise kernel) is not walked.
	perm := device.ReduceOrder(len(shape), axes)
	psh := make([]int, len(perm))
	strides := make([][]int, 1+len(ins))
	strides[0] = make([]int, len(perm))
	for i := range ins {
		strides[1+i] = make([]int, len(perm))
	}
	for k, a := range perm {
		psh[k] = shape[a]
		for i, in := range ins {
			strides[1+i][k] = in.Strides[a]
		}
	}
	sh, st := coalesce(psh, strides)
	if len(sh) > maxRank {
		return nil, p.errorf(op, errs.ErrUnsupported, "%d axes after merging, a fused reduction walks at most %d", len(sh), maxRank)
	}
	esz := ElemBytes(prog.DType)
	scalar := make([]bool, len(ins))
	walkOf := []int{0}
	binds := make([]Binding, 1+len(ins))
	for i, in := range ins {
		scalar[i] = true
		for _, s := range st[1+i] {
			if s != 0 {
				scalar[i] = false
				break
			}
		}
		if !scalar[i] {
			walkOf = append(walkOf, 1+i)
		}
		lo, hi, ok := spanOf(sh, st[1+i], in.Off)
		if !ok || !p.Lim.Fits(lo, hi, esz) {
			return nil, p.errorf(op, errs.ErrUnsupported, "input %d spans more than one %d-byte storage binding", i, p.Lim.MaxBinding)
		}
		var base int
		binds[1+i], base = p.Lim.Window(in.Buf, lo, hi, false)
		prm.Off[(1+i)/4][(1+i)%4] = int32(in.Off - base)
	}
	q := (count + fusedRedChunk - 1) / fusedRedChunk
	if !p.Lim.Fits(0, int64(outs)*int64(q), 4) {
		return nil, p.errorf(op, errs.ErrUnsupported, "%d partial results exceed a storage binding", outs*q)
	}
	tmp := pl.scratch(p.Lim, dtype.F32, outs*q)
	binds[0], _ = p.Lim.Window(tmp, 0, int64(outs*q), true)
	prm.N, prm.NRed, prm.NChunk, prm.Chunk = uint32(outs*q), uint32(count), uint32(q), uint32((count+q-1)/q)
	var walkA, walkB [][]int
	for slot, o := range walkOf {
		if slot < 4 {
			walkA = append(walkA, st[o])
		} else {
			walkB = append(walkB, st[o])
		}
	}
	kext, ka := squeezeBox(sh, walkA...)
	prm.WA = walk4(kext, ka...)
	if len(walkB) > 0 {
		_, kb := squeezeBox(sh, walkB...)
		prm.WB = walk4(kext, kb...)
	}
	key := FusedReduceKey(prog, scalar, rop)
	var k *Kernel
	if cache != nil {
		k = cache(key, func() *Kernel { return FusedReduceKernel(prog, scalar, rop) })
	} else {
		k = FusedReduceKernel(prog, scalar, rop)
	}
	pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: prm.bytes(), Binds: binds, Grid: p.Lim.Grid((uint64(outs*q) + ewWG - 1) / ewWG)})

	// Combine each output's q partials.
	rowQ := layout.RowMajorStrides(d.Shape)
	for i := range rowQ {
		rowQ[i] *= q
	}
	return pl, p.reduce(pl, op, redJob{
		op: rop, srcDT: prog.DType, src: tmp, partialIn: true,
		dst: d.Buf, outDT: d.DT(),
		kshape: d.Shape, kstS: rowQ, kstD: d.Strides,
		rshape: []int{q}, rstS: []int{1}, rstI: []int{0},
		offD: d.Off, count: count,
	})
}
