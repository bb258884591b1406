package cpu

import (
	"runtime"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

var _ device.FusedReducer = (*Device)(nil)

// FusedReduce reduces the result of program p over axes into dst. In
// general it does not materialise the program: the inputs are read through
// their layouts permuted by device.ReduceOrder, so the elements folded into
// one output are consecutive; the program is evaluated block by block on
// per-worker scratch exactly as Fused does, and each block is folded into
// the running reductions of the outputs it covers, straight from the
// scratch; a Sum or Mean of the input alone folds its storage in place
// (directSource). When the reduced axes are not all last and no input
// repeats elements, the program goes instead to a scratch of every element
// in the inputs' own order, which Reduce's kernels fold
// (reduceMaterialized), except that a half-precision Sum or Mean of the
// input alone over a run of axes before the last (column sums) reads its
// rows in place (sumColumns).
//
// The flat range is cut into chunks of redChunk elements that depend only
// on the shape; workers take contiguous runs of chunks, and an output cut
// by chunk boundaries is completed by merging its chunks' partial states
// in order, so the result does not depend on the number of cores. Sums
// are compensated (Neumaier) in float64, as Reduce's.
func (d *Device) FusedReduce(op device.ReduceOp, dst device.Operand, p device.Program, inputs []device.Operand, axes []int) error {
	const name = "FusedReduce"
	if !device.FusesReduce(op) {
		return errs.New("cpu", name, errs.ErrUnsupported, "%v takes no fused prologue", op)
	}
	if len(inputs) == 0 {
		return errs.New("cpu", name, errs.ErrValue, "a fused reduction needs an input to take its shape from")
	}
	bufs, err := d.fusedOperands(name, []device.Operand{dst}, p, inputs, nil)
	if err != nil {
		return err
	}
	if err := sameShape(name, inputs...); err != nil {
		return err
	}
	shape := inputs[0].Layout.Shape
	if err := device.CheckReduce("cpu", op, dst.Arg(), device.Arg{DType: p.DType, Shape: shape}, axes); err != nil {
		return err
	}
	outs := dst.Layout.Numel()
	if outs == 0 {
		return nil
	}
	count := 1
	for _, a := range axes {
		count *= shape[a]
	}
	if count == 0 { // Sum or Prod of nothing (CheckReduce refuses the others)
		ident := 0.0
		if op == device.Prod {
			ident = 1
		}
		return d.Fill(dst, ident)
	}
	ins := bufs[1:]
	permuted := inputs
	if perm := device.ReduceOrder(len(shape), axes); !slices.IsSorted(perm) { // reduced axes not all last
		if p.DType == dtype.F16 || p.DType == dtype.BF16 {
			if outer, rows, ok := columnSums(op, p, inputs, axes); ok {
				// Half-precision column sums of the input itself: the
				// rows are read in place, no float32 copy of the input.
				in := p.Steps[0].Input
				if p.DType == dtype.F16 {
					sumColumns(op, slice[dtype.Float16](bufs[0]), dst.Layout, slice[dtype.Float16](ins[in]), inputs[in].Layout, outer, rows, convF16)
				} else {
					sumColumns(op, slice[dtype.BFloat16](bufs[0]), dst.Layout, slice[dtype.BFloat16](ins[in]), inputs[in].Layout, outer, rows, convBF16)
				}
				return nil
			}
		}
		if !repeats(inputs) || scratchBounded(inputs, p.DType) {
			// The elements of one output lie apart in memory, and folding
			// them one at a time ran a 1024x1024 bf16 sum over axis 0 at
			// 0.8 Gelem/s, and a float32 variance over axis 0 (whose
			// program reads the broadcast mean) at 0.3 Gelem/s. The
			// program's values go to a scratch in their own order
			// instead, when no view repeats elements or the scratch is
			// no larger than twice the inputs anyway, and Reduce's
			// kernels fold it.
			return d.reduceMaterialized(name, op, dst, bufs[0], p, ins, inputs, axes)
		}
		permuted = make([]device.Operand, len(inputs))
		for i, in := range inputs {
			l, err := in.Layout.Permute(perm...)
			if err != nil {
				return errs.Retag("cpu", name, err)
			}
			permuted[i] = device.Operand{Buf: in.Buf, Layout: l}
		}
	}
	inputs = permuted
	switch p.DType {
	case dtype.F32:
		runFusedReduce(op, p, slice[float32](bufs[0]), dst.Layout, bufSlices[float32](ins), inputs, outs, count, conv32)
	case dtype.F64:
		runFusedReduce(op, p, slice[float64](bufs[0]), dst.Layout, bufSlices[float64](ins), inputs, outs, count, conv64)
	case dtype.F16:
		runFusedReduce(op, p, slice[dtype.Float16](bufs[0]), dst.Layout, bufSlices[dtype.Float16](ins), inputs, outs, count, convF16)
	case dtype.BF16:
		runFusedReduce(op, p, slice[dtype.BFloat16](bufs[0]), dst.Layout, bufSlices[dtype.BFloat16](ins), inputs, outs, count, convBF16)
	}
	return nil
}

// repeats reports whether some view among ins repeats elements (a
// broadcast): its storage span is smaller than its element count.
func repeats(ins []device.Operand) bool {
	for _, in := range ins {
		if lo, hi := in.Layout.Span(); hi-lo < in.Layout.Numel() {
			return true
		}
	}
	return false
}

// scratchBounded reports whether reduceMaterialized's scratch (every
// element of the inputs' shape, in float32, or float64 for dt F64) takes
// at most twice the bytes the inputs' views span in storage: true for a
// program that reads small broadcast operands beside a large one (the
// mean in a variance), false for a view repeating a few elements over a
// large shape, which is folded in place instead.
func scratchBounded(ins []device.Operand, dt dtype.DType) bool {
	size := 4
	if dt == dtype.F64 {
		size = 8
	}
	var spans int
	for _, in := range ins {
		lo, hi := in.Layout.Span()
		spans += (hi - lo) * in.DType().Size()
	}
	return ins[0].Layout.Numel()*size <= 2*spans
}

// reduceMaterialized reduces the result of program p over axes into dst
// (whose buffer is db) by evaluating it into a float32 (float64 for F64)
// scratch of every element in the inputs' order, each step rounded to the
// dtype as the fused path folds it, and folding that with Reduce's
// kernels; a half-precision dst takes the results through a float32
// scratch of its shape. It serves reductions whose reduced axes are not
// all last, over views that repeat no element.
func (d *Device) reduceMaterialized(name string, op device.ReduceOp, dst device.Operand, db *Buffer, p device.Program, ins []*Buffer,
	inputs []device.Operand, axes []int) error {
	shape := inputs[0].Layout.Shape
	l, err := layout.Contiguous(shape...)
	if err != nil {
		return errs.Retag("cpu", name, err)
	}
	plan, err := planReduce(name, l, axes)
	if err != nil {
		return err
	}
	cdt := dtype.F32
	if p.DType == dtype.F64 {
		cdt = dtype.F64
	}
	// The scratch comes from the device's pool, uncleared (materialize
	// writes all of it): a fresh one per call was cleared and collected
	// every time, 4 MiB for a 1 Mi-element sum.
	vb, err := d.Alloc(cdt, l.Numel())
	if err != nil {
		return errs.Retag("cpu", name, err)
	}
	defer d.Free(vb)
	vals := vb.(*Buffer)
	switch p.DType {
	case dtype.F32:
		materialize(p, slice[float32](vals), bufSlices[float32](ins), inputs, conv32)
	case dtype.F64:
		materialize(p, slice[float64](vals), bufSlices[float64](ins), inputs, conv64)
	case dtype.F16:
		materialize(p, slice[float32](vals), bufSlices[dtype.Float16](ins), inputs, convF16)
	case dtype.BF16:
		materialize(p, slice[float32](vals), bufSlices[dtype.BFloat16](ins), inputs, convBF16)
	}
	out, ol := db, dst.Layout
	if p.DType != cdt {
		ol, _ = layout.Contiguous(dst.Layout.Shape...)
		out = newTemp(d, cdt, ol.Numel())
	}
	if cdt == dtype.F64 {
		reduceInto(op, out, ol, slice[float64](vals), plan, floatReducer[float64](op))
	} else {
		reduceInto(op, out, ol, slice[float32](vals), plan, floatReducer[float32](op))
	}
	if out != db {
		return d.copyInto(db, dst.Layout, out, ol)
	}
	return nil
}

// materialize evaluates program p's last step into vals, every element in
// the inputs' order, a block at a time on the team as Fused does, each step
// rounded to the dtype.
func materialize[C vec.Float, S any](p device.Program, vals []C, ins [][]S, inputs []device.Operand, cv conv[C, S]) {
	pl := newFusedPlan(p, []int{len(p.Steps) - 1}, ins, inputs, cv)
	defer putPlan(pl)
	n := len(vals)
	nblocks := (n + fuseBlock - 1) / fuseBlock
	workers := 1
	if n >= fusedMinParallel {
		workers = min(runtime.GOMAXPROCS(0), nblocks)
	}
	par.Run(workers, func(w int) {
		scratch := getScratch[C](pl.slots * fuseBlock)
		defer putScratch(scratch)
		slot := func(k, m int) []C { return (*scratch)[k*fuseBlock : k*fuseBlock+m] }
		res := [][]C{nil}
		for k := nblocks * w / workers; k < nblocks*(w+1)/workers; k++ {
			lo := k * fuseBlock
			m := min(fuseBlock, n-lo)
			res[0] = vals[lo : lo+m]
			fusedBlock(p, pl, ins, inputs, lo, m, slot, res, cv, false)
		}
	})
}

// redChunk is the number of consecutive elements (of outputs × reduced
// extent) one worker folds as a unit: large enough to amortise its
// bookkeeping, small enough that two cores share a 1 Mi-element sum.
const redChunk = 1 << 15

// redEdge holds a chunk's partial states of the outputs its boundaries
// cut: head, an output begun by an earlier chunk (ending in this one when
// headEnds), and tail, an output begun here that a later chunk ends.
type redEdge[C vec.Float] struct {
	head, tail       acc[C]
	tailO            int
	hasHead, hasTail bool
	headEnds         bool
}

func runFusedReduce[C vec.Float, S any](op device.ReduceOp, p device.Program, dst []S, dl layout.Layout, ins [][]S, inputs []device.Operand,
	outs, count int, cv conv[C, S]) {
	pl := newFusedPlan(p, []int{len(p.Steps) - 1}, ins, inputs, cv)
	defer putPlan(pl)
	r := floatReducer[C](op)
	merge := r.merge
	if merge == nil { // Prod: merged in chunk order, which the shape fixes
		merge = func(a, b acc[C]) acc[C] { a.s *= b.s; return a }
	}
	fold := segmentFolder[C](op)
	src, direct := directSource(op, p, ins, inputs)
	start := acc[C]{at: -1}
	if op == device.Prod {
		start.s = 1
	}
	rp := &reducePlan{count: count}
	n := outs * count
	nchunks := (n + redChunk - 1) / redChunk
	edges := make([]redEdge[C], nchunks)
	results := make([]C, outs)
	workers := 1
	if n >= fusedMinParallel {
		workers = min(runtime.GOMAXPROCS(0), nchunks)
	}
	block := min(fuseBlock, n)
	par.Run(workers, func(w int) {
		scratch := getScratch[C]((pl.slots + 1) * block)
		defer putScratch(scratch)
		slot := func(k, m int) []C { return (*scratch)[k*block : k*block+m] }
		res := slot(pl.slots, block)
		resB := [][]C{nil} // the program's one result, for fusedBlock
		b := 0             // the block's first flat index
		// foldRun folds the values at flat indices [pos, pos+take) of
		// the block: from the program's results, or from the storage.
		foldRun := func(a acc[C], pos, take int) acc[C] { return fold(a, res[pos-b:pos-b+take]) }
		if direct {
			foldRun = func(a acc[C], pos, take int) acc[C] { return foldSum(a, src[pos:pos+take], cv) }
		}
		for k := nchunks * w / workers; k < nchunks*(w+1)/workers; k++ {
			lo, hi := k*redChunk, min((k+1)*redChunk, n)
			e := &edges[k]
			o := lo / count
			headOpen := lo%count != 0
			a := start
			for b = lo; b < hi; b += block {
				m := min(block, hi-b)
				if !direct {
					resB[0] = res[:m]
					fusedBlock(p, pl, ins, inputs, b, m, slot, resB, cv, false)
				}
				for pos := b; pos < b+m; {
					end := (o + 1) * count
					take := min(b+m-pos, end-pos)
					a = foldRun(a, pos, take)
					pos += take
					if pos < end {
						continue
					}
					if headOpen {
						e.head, e.hasHead, e.headEnds, headOpen = a, true, true, false
					} else {
						results[o], _ = r.done(a, rp)
					}
					o, a = o+1, start
				}
			}
			switch {
			case hi == o*count: // the chunk ends with an output
			case headOpen:
				e.head, e.hasHead = a, true
			default:
				e.tail, e.tailO, e.hasTail = a, o, true
			}
		}
	})
	var open acc[C]
	openO := 0
	for k := range edges {
		e := &edges[k]
		if e.hasHead {
			open = merge(open, e.head)
			if e.headEnds {
				results[openO], _ = r.done(open, rp)
			}
		}
		if e.hasTail {
			open, openO = e.tail, e.tailO
		}
	}
	scatter(dst, dl, 0, results, cv)
}

// columnSums reports whether FusedReduce's arguments are a Sum or Mean of
// a program that is its one contiguous input over a run of adjacent axes
// that are not the last: outer blocks (the kept axes before the run), each
// rows rows (the run) of cols values (the kept axes after it), whose
// column sums are the outputs. It excludes the shapes for which Reduce
// would not fold each column in row order: single columns (Reduce sums
// such a column as one contiguous row) and fewer outputs than cores over
// long columns (Reduce splits each column into chunks, splitAbove).
func columnSums(op device.ReduceOp, p device.Program, inputs []device.Operand, axes []int) (outer, rows int, ok bool) {
	in, ok := inputSum(op, p, inputs)
	if !ok || len(axes) == 0 {
		return 0, 0, false
	}
	l := inputs[in].Layout
	first, last := axes[0], axes[len(axes)-1]
	if last-first+1 != len(axes) || last == len(l.Shape)-1 {
		return 0, 0, false // not one run of axes, or the run ends the shape
	}
	outer, rows = 1, 1
	for i, n := range l.Shape {
		switch {
		case i < first:
			outer *= n
		case i <= last:
			rows *= n
		}
	}
	cols := l.Numel() / max(outer*rows, 1)
	if cols < 2 || (rows >= splitAbove && outer*cols < runtime.GOMAXPROCS(0)) {
		return 0, 0, false
	}
	return outer, rows, true
}

// sumColumns is the Sum or Mean of src (layout sl, contiguous: outer
// blocks of rows rows of cols values) over each block's rows into dst: for
// every output the column's values in row order, each added into a float64
// sum with its TwoSum error compensated, colChunk outputs at a time, and
// done as Reduce does. That is the order and arithmetic of Reduce's column
// path (floatReducer's cols) over the input widened to float32, which
// reduceMaterialized would take, so the results are its bits; each row's
// piece is widened on the stack instead of the whole input into a scratch
// (which cost as much as the sum itself, for a 1024x1024 bfloat16 sum over
// axis 0).
func sumColumns[S vec.Half](op device.ReduceOp, dst []S, dl layout.Layout, src []S, sl layout.Layout, outer, rows int, cv conv[float32, S]) {
	n := sl.Numel()
	cols := n / (outer * rows)
	src = src[sl.Offset : sl.Offset+n]
	r := floatReducer[float32](op)
	rp := &reducePlan{count: rows}
	results := make([]float32, outer*cols)
	per := (cols + colChunk - 1) / colChunk // chunks per block
	units := outer * per
	workers := 1
	if n >= fusedMinParallel {
		workers = min(runtime.GOMAXPROCS(0), units)
	}
	par.Run(workers, func(w int) {
		var s, c [colChunk]float64
		var wide [4 * colChunk]float32
		for u := units * w / workers; u < units*(w+1)/workers; u++ {
			blk, k0 := u/per, u%per*colChunk
			m := min(colChunk, cols-k0)
			ss, cc := s[:m], c[:m]
			clear(ss)
			clear(cc)
			// Rows of the chunk widened per call: one, or as many as
			// fit when the chunk is whole rows (then contiguous), so
			// that narrow blocks (64 columns) do not pay a call per
			// short row.
			g := 1
			if m == cols {
				g = max(1, len(wide)/cols)
			}
			base := blk * rows * cols
			for r0 := 0; r0 < rows; r0 += g {
				gr := min(g, rows-r0)
				j := base + r0*cols + k0
				span := (gr-1)*cols + m
				cv.widen(wide[:span], src[j:j+span])
				for r := range gr {
					_ = vec.TwoSumAdd(ss, cc, wide[r*cols:r*cols+m])
				}
			}
			for k := range m {
				results[blk*cols+k0+k], _ = r.done(acc[float32]{s: ss[k], c: cc[k]}, rp)
			}
		}
	})
	scatter(dst, dl, 0, results, cv)
}

// directSource returns the storage of a program that is its one input,
// contiguous, when op is a Sum or Mean: runFusedReduce then folds runs of
// it in place (foldSum) instead of evaluating the program into scratch,
// which for a half-precision tensor's Sum was a widening pass and a
// float32 sum over each block.
func directSource[S any](op device.ReduceOp, p device.Program, ins [][]S, inputs []device.Operand) ([]S, bool) {
	in, ok := inputSum(op, p, inputs)
	if !ok {
		return nil, false
	}
	l := inputs[in].Layout
	return ins[in][l.Offset : l.Offset+l.Numel()], true
}

// inputSum reports whether op and p are a Sum or Mean of the program's
// one input, read through a contiguous layout, and returns which input:
// the reductions that can read the storage in place.
func inputSum(op device.ReduceOp, p device.Program, inputs []device.Operand) (int, bool) {
	if (op != device.Sum && op != device.Mean) || len(p.Steps) != 1 || p.Steps[0].Kind != device.StepInput {
		return 0, false
	}
	in := p.Steps[0].Input
	return in, inputs[in].Layout.IsContiguous()
}

// foldSum adds a run of one output's values, in storage type S, into its
// compensated sum: each value when the run is short, else the run's rowSum
// (cv.sumRun). segmentFolder's Sum is foldSum over computed values; the
// in-place sums (directSource) are foldSum over the storage.
func foldSum[C vec.Float, S any](a acc[C], run []S, cv conv[C, S]) acc[C] {
	if len(run) >= shortRow {
		a.s, a.c = neumaier(a.s, a.c, cv.sumRun(run))
		return a
	}
	for _, v := range run {
		a.s, a.c = neumaier(a.s, a.c, float64(cv.load(v)))
	}
	return a
}

// computeConv is the conv of compute type C stored as itself (conv32 or
// conv64).
func computeConv[C vec.Float]() conv[C, C] {
	if cv, ok := any(conv32).(conv[C, C]); ok {
		return cv
	}
	return any(conv64).(conv[C, C])
}

// segmentFolder returns the fold of a run of consecutive elements of one
// output into its state, for op's state as floatReducer keeps it.
func segmentFolder[C vec.Float](op device.ReduceOp) func(a acc[C], seg []C) acc[C] {
	switch op {
	case device.Sum, device.Mean:
		cv := computeConv[C]()
		return func(a acc[C], seg []C) acc[C] { return foldSum(a, seg, cv) }
	case device.Prod:
		return func(a acc[C], seg []C) acc[C] {
			for _, x := range seg {
				a.s *= float64(x)
			}
			return a
		}
	}
	better := func(x, best C) bool { return x > best }
	if op == device.Min {
		better = func(x, best C) bool { return x < best }
	}
	return func(a acc[C], seg []C) acc[C] {
		for _, x := range seg {
			if a.at < 0 || (a.v == a.v && (x != x || better(x, a.v))) {
				a.v, a.at = x, 0
			}
		}
		return a
	}
}
