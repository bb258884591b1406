package cpu

import (
	endian "encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

// Reduce reduces src over axes into dst.
func (d *Device) Reduce(op device.ReduceOp, dst, src device.Operand, axes []int) error {
	name := op.String()
	bufs, err := d.operands(name, dst, src)
	if err != nil {
		return err
	}
	db, sb := bufs[0], bufs[1]
	if err := device.CheckReduce("cpu", op, dst.Arg(), src.Arg(), axes); err != nil {
		return err
	}
	plan, err := planReduce(name, src.Layout, axes)
	if err != nil {
		return err
	}
	switch sb.dt {
	case dtype.F32:
		reduceInto(op, db, dst.Layout, slice[float32](sb), plan, floatReducer[float32](op))
	case dtype.F64:
		reduceInto(op, db, dst.Layout, slice[float64](sb), plan, floatReducer[float64](op))
	case dtype.F16, dtype.BF16:
		if device.FusesReduce(op) {
			// The fused reduction of the input alone widens a block at a
			// time into per-worker scratch (vector runs), instead of the
			// whole source into a float32 copy first.
			p := device.Program{DType: sb.dt, Steps: []device.Step{{Kind: device.StepInput}}}
			return d.FusedReduce(op, dst, p, []device.Operand{src}, axes)
		}
		// Arg reductions widen to float32: only the storage span when the
		// view repeats elements (a broadcast), so the scratch never
		// exceeds the source.
		bufs, lays, err := d.widen(src)
		if err != nil {
			return err
		}
		wplan, _ := planReduce(name, lays[0], axes)
		reduceInto(op, db, dst.Layout, slice[float32](bufs[0]), wplan, floatReducer[float32](op))
	case dtype.I32:
		reduceInto(op, db, dst.Layout, slice[int32](sb), intPlan(op, plan), intReducer[int32](op))
	case dtype.I64:
		reduceInto(op, db, dst.Layout, slice[int64](sb), intPlan(op, plan), intReducer[int64](op))
	case dtype.U8, dtype.Bool:
		reduceInto(op, db, dst.Layout, slice[uint8](sb), intPlan(op, plan), intReducer[uint8](op))
	}
	return nil
}

// reducePlan splits a source layout into kept axes (walked once per output)
// and reduced axes. The reduced axes are merged where contiguous and walked
// as rows of rowLen elements (stride rowStride) whose starts an odometer
// over outer/outerStride produces, so no per-row state is ever stored.
type reducePlan struct {
	outShape    []int
	keptStride  []int
	offset      int
	outer       []int // extents of the reduced axes above the row
	outerStride []int
	rows        int // rows per output
	rowLen      int
	rowStride   int
	count       int // elements reduced per output: rows*rowLen
}

func planReduce(name string, l layout.Layout, axes []int) (reducePlan, error) {
	reduced := make([]bool, l.Rank())
	for i, a := range axes {
		if a < 0 || a >= l.Rank() || (i > 0 && axes[i-1] >= a) {
			return reducePlan{}, errs.New("cpu", name, errs.ErrAxis, "axes %v must be sorted, distinct and in [0, %d)", axes, l.Rank())
		}
		reduced[a] = true
	}
	p := reducePlan{offset: l.Offset, outShape: []int{}, keptStride: []int{}}
	var red []int // the reduced axes, in walking order
	for i, dim := range l.Shape {
		if !reduced[i] {
			p.outShape = append(p.outShape, dim)
			p.keptStride = append(p.keptStride, l.Strides[i])
			continue
		}
		red = append(red, i)
	}
	// Walk the reduced elements in storage order (broadcast axes outermost,
	// then by decreasing stride), so that a transposed view is read
	// contiguously. Only the rounding of a sum or product depends on the
	// order; arg reductions, whose index follows the logical order, reduce
	// one axis.
	slices.SortStableFunc(red, func(a, b int) int {
		sa, sb := abs(l.Strides[a]), abs(l.Strides[b])
		switch {
		case sa == sb:
			return 0
		case sa == 0:
			return -1
		case sb == 0:
			return 1
		case sa > sb:
			return -1
		}
		return 1
	})
	var shape, stride []int // reduced axes, extent-1 axes dropped, merged
	empty := false
	for _, i := range red {
		dim := l.Shape[i]
		switch {
		case dim == 0:
			empty = true
		case dim == 1:
		case len(shape) > 0 && stride[len(stride)-1] == l.Strides[i]*dim:
			shape[len(shape)-1] *= dim
			stride[len(stride)-1] = l.Strides[i]
		default:
			shape = append(shape, dim)
			stride = append(stride, l.Strides[i])
		}
	}
	switch {
	case empty:
		p.rows, p.rowLen = 0, 0
	case len(shape) == 0:
		p.rows, p.rowLen = 1, 1
	default:
		last := len(shape) - 1
		p.rowLen, p.rowStride = shape[last], stride[last]
		p.outer, p.outerStride = shape[:last], stride[:last]
		p.rows = 1
		for _, dim := range p.outer {
			p.rows *= dim
		}
	}
	p.count = p.rows * p.rowLen
	return p, nil
}

// intPlan is an integer reduction's plan: splitLongRow's unless op is an
// Arg reduction.
func intPlan(op device.ReduceOp, p reducePlan) reducePlan {
	if op.IsArg() {
		return p
	}
	return splitLongRow(p)
}

// splitLongRow rewrites a plan whose reduced elements form one long row
// (a whole contiguous tensor, say) as rows of a power-of-two length from
// chunkElems down to 4096 that divides it, so that reduceInto can fold
// them on several cores: its split needs more than one row per output.
// Only for the integer reductions that are not Arg ones, whose result
// does not depend on the order (wrapping sums and products, Max, Min,
// Any, All, counts); a float sum would round differently.
func splitLongRow(p reducePlan) reducePlan {
	if p.rows != 1 || p.rowLen < splitAbove {
		return p
	}
	for c := chunkElems; c >= 4096; c /= 2 {
		if p.rowLen%c == 0 {
			p.outer = append(slices.Clone(p.outer), p.rowLen/c)
			p.outerStride = append(slices.Clone(p.outerStride), c*p.rowStride)
			p.rows, p.rowLen = p.rowLen/c, c
			return p
		}
	}
	return p
}

// cursor walks the storage start (relative to an output's base) of
// consecutive reduced rows. Up to 8 outer axes it keeps its index inline, so
// a walk does not allocate.
type cursor struct {
	p     *reducePlan
	pos   int
	small [8]int
	big   []int // the index when there are more than 8 outer axes
}

func (c *cursor) index() []int {
	if n := len(c.p.outer); n > len(c.small) {
		return c.big
	}
	return c.small[:len(c.p.outer)]
}

// start places c at row lo of p.
func (c *cursor) start(p *reducePlan, lo int) {
	c.p, c.pos = p, 0
	n := len(p.outer)
	if n == 0 {
		return
	}
	if n > len(c.small) && len(c.big) != n {
		c.big = make([]int, n)
	}
	idx := c.index()
	for a := n - 1; a >= 0; a-- {
		idx[a] = lo % p.outer[a]
		lo /= p.outer[a]
		c.pos += idx[a] * p.outerStride[a]
	}
}

// next moves c to the following row.
func (c *cursor) next() {
	p := c.p
	if len(p.outer) == 0 {
		return
	}
	idx := c.index()
	for a := len(idx) - 1; a >= 0; a-- {
		idx[a]++
		c.pos += p.outerStride[a]
		if idx[a] < p.outer[a] {
			return
		}
		c.pos -= p.outer[a] * p.outerStride[a]
		idx[a] = 0
	}
}

// acc is the running state of one output's reduction over some of its rows.
// It has at most four fields, so the compiler keeps it in registers.
type acc[T num] struct {
	s, c float64 // float Sum/Mean: Neumaier sum and compensation; float Prod: product in s
	v    T       // integer Sum/Prod; Max/Min/Arg: the best element so far
	at   int64   // Max/Min/Arg: the flat index of v in the reduced axes, -1 before the first
}

// reducer folds rows [lo, hi) of the output whose reduced elements start
// at base; merge combines the states of consecutive row ranges (nil when
// the result would depend on the split); done gives the value and, for Arg
// reductions, the index. Each fold walks its rows with cur (which the
// caller provides, so that it is not set up anew for every output) and
// keeps its running state in locals: a call per row, or a state passed
// through memory, would cost more than the row itself on broadcast views
// with rows of a few elements.
type reducer[T num] struct {
	fold  func(src []T, base int, p *reducePlan, lo, hi int, cur *cursor) acc[T]
	merge func(a, b acc[T]) acc[T]
	done  func(a acc[T], p *reducePlan) (T, int64)
	// cols, where set, computes n outputs whose reduced elements start at
	// consecutive positions base, base+1, ... of src (a column sum: the
	// bias gradient's Sum over the batch axis), writing output k to
	// out[oi+k*ostride]. It folds every output's elements in fold's order,
	// so the results are fold's bit for bit, but walks the source a row at
	// a time across the outputs instead of one strided column after another.
	cols func(out []T, oi, ostride int, src []T, base, n int, p *reducePlan)
	// cols64 is cols for the reducers whose result is done's int64: the
	// Arg reductions (the positions of the extremes, fold's, the first of
	// equal ones), counts and wide sums.
	cols64 func(out []int64, oi, ostride int, src []T, base, n int, p *reducePlan)
	// wide marks a reducer whose result is done's int64 (wideSumReducer's),
	// written to an I64 destination as the Arg reductions' indices are.
	wide bool
}

// splitAbove is the number of elements folded into one output from which
// the output's rows are split into chunks of about chunkElems elements and
// folded on several cores. The chunks depend only on the shape, so the
// result does not depend on the number of cores.
const (
	splitAbove = 1 << 18
	chunkElems = 1 << 16
)

func reduceInto[T num](op device.ReduceOp, db *Buffer, dl layout.Layout, src []T, p reducePlan, r reducer[T]) {
	rows := layout.NewRows(p.outShape, dl.Offset, dl.Strides, p.offset, p.keptStride)
	outputs := rows.Count() * rows.Len()
	workers := runtime.GOMAXPROCS(0)
	split := r.merge != nil && p.count >= splitAbove && p.rows > 1 && outputs < workers && workers > 1
	one := func(base int, cur *cursor) (T, int64) {
		if !split {
			return r.done(r.fold(src, base, &p, 0, p.rows, cur), &p)
		}
		per := max(1, chunkElems/max(p.rowLen, 1))
		parts := make([]acc[T], (p.rows+per-1)/per)
		par.For(len(parts), runtime.GOMAXPROCS(0), func(i int) {
			var cur cursor
			parts[i] = r.fold(src, base, &p, i*per, min((i+1)*per, p.rows), &cur)
		})
		a := parts[0]
		for _, b := range parts[1:] {
			a = r.merge(a, b)
		}
		return r.done(a, &p)
	}
	walk := runRowsCost
	if split {
		walk = func(rows layout.Rows, _ int, fn func(offs []int, n int, inner []int)) {
			rows.Each(0, rows.Count(), fn)
		}
	}
	if op.IsArg() || r.wide {
		out := slice[int64](db)
		cols := r.cols64 != nil && !split && p.rowStride != 1 && p.count > 0
		walk(rows, max(p.count, 1), func(offs []int, n int, inner []int) {
			if cols && inner[1] == 1 && n >= 2 {
				r.cols64(out, offs[0], inner[0], src, offs[1], n, &p)
				return
			}
			var cur cursor
			i, j := offs[0], offs[1]
			for range n {
				_, out[i] = one(j, &cur)
				i += inner[0]
				j += inner[1]
			}
		})
		return
	}
	out := slice[T](db)
	cols := r.cols != nil && !split && p.rowStride != 1 && p.count > 0
	walk(rows, max(p.count, 1), func(offs []int, n int, inner []int) {
		if cols && inner[1] == 1 && n >= 2 {
			r.cols(out, offs[0], inner[0], src, offs[1], n, &p)
			return
		}
		var cur cursor
		i, j := offs[0], offs[1]
		for range n {
			out[i], _ = one(j, &cur)
			i += inner[0]
			j += inner[1]
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// finite reports whether x is neither infinite nor NaN.
func finite(x float64) bool { return x-x == 0 }

// neumaier adds x to the compensated sum (s, c). Once the running total
// overflows, or an operand is infinite or NaN, the compensation becomes
// meaningless ((x-t)+s turns +Inf into NaN); the total is then the IEEE
// result and never becomes finite again, so done uses c only while s is
// finite.
func neumaier(s, c, x float64) (float64, float64) {
	t := s + x
	if math.Abs(s) >= math.Abs(x) {
		c += (s - t) + x
	} else {
		c += (x - t) + s
	}
	return t, c
}

// colChunk is the number of outputs a column sum (reducer.cols) keeps
// running at once.
const colChunk = 256

// sumRowBlock is how many source rows a float column sum adds while its
// running sums of 32 columns stay in registers (vec.TwoSumAddRows).
const sumRowBlock = 8

// shortRow is the length below which a contiguous row is added element by
// element rather than by vec.Sum, whose call costs more than it saves.
const shortRow = 16

// floatReducers hold newFloatReducer's reducer of every op for float32
// and float64, built once: their closures allocated on every reduction.
var floatReducers = [2]any{reducerTable[float32](), reducerTable[float64]()}

func reducerTable[T float]() []reducer[T] {
	ops := device.ReduceOps()
	t := make([]reducer[T], len(ops))
	for _, op := range ops {
		t[op] = newFloatReducer[T](op)
	}
	return t
}

// floatReducer returns the reducer of op on float32 or float64.
func floatReducer[T float](op device.ReduceOp) reducer[T] {
	k := 0
	if !is32[T]() {
		k = 1
	}
	return floatReducers[k].([]reducer[T])[op]
}

func newFloatReducer[T float](op device.ReduceOp) reducer[T] {
	switch op {
	case device.Sum, device.Mean:
		mean := op == device.Mean
		done := func(a acc[T], p *reducePlan) (T, int64) {
			s := a.s
			if finite(s) {
				s += a.c
			}
			if mean {
				// The mean of a sum that overflows the compute type
				// is infinite, as in NumPy and on the GPU.
				if t := T(s); !finite(float64(t)) {
					return t, 0
				}
				s /= float64(p.count)
			}
			return T(s), 0 // rounds a float32 total beyond MaxFloat32 to ±Inf
		}
		return reducer[T]{
			// Neumaier's compensated sum in float64 (of whole rows' sums
			// when rows are contiguous and long, which vec adds in
			// fixed-order lanes): accurate and the same on every run.
			fold: func(src []T, base int, p *reducePlan, lo, hi int, cur *cursor) acc[T] {
				var s, c float64
				cur.start(p, lo)
				if p.rowStride == 1 && p.rowLen >= shortRow {
					for range hi - lo {
						j := base + cur.pos
						s, c = neumaier(s, c, rowSumAny(src[j:j+p.rowLen]))
						cur.next()
					}
					return acc[T]{s: s, c: c}
				}
				for range hi - lo {
					j := base + cur.pos
					for range p.rowLen {
						s, c = neumaier(s, c, float64(src[j]))
						j += p.rowStride
					}
					cur.next()
				}
				return acc[T]{s: s, c: c}
			},
			merge: func(a, b acc[T]) acc[T] {
				a.s, a.c = neumaier(a.s, a.c, b.s)
				a.c += b.c
				return a
			},
			done: done,
			cols: func(out []T, oi, ostride int, src []T, base, n int, p *reducePlan) {
				// fold's strided loop, for up to colChunk outputs at once:
				// their running sums stay in L1 while each source row
				// streams past.
				var s, c [colChunk]float64
				var cur cursor
				for k0 := 0; k0 < n; k0 += colChunk {
					m := min(colChunk, n-k0)
					ss, cc := s[:m], c[:m]
					clear(ss)
					clear(cc)
					cur.start(p, 0)
					for range p.rows {
						// Knuth's TwoSum: the exact error of ss[k]+x,
						// which is neumaier's compensation, without its
						// branch. With AVX-512 the sums of 32 columns
						// stay in registers down sumRowBlock rows
						// (TwoSumAddRows); rows that run backwards
						// (a flipped view) go one at a time.
						j := base + k0 + cur.pos
						if p.rowStride >= 0 {
							for r := 0; r < p.rowLen; r += sumRowBlock {
								_ = vec.TwoSumAddRows(ss, cc, src[j+r*p.rowStride:], p.rowStride, min(sumRowBlock, p.rowLen-r))
							}
						} else {
							for range p.rowLen {
								_ = vec.TwoSumAdd(ss, cc, src[j:j+len(ss)])
								j += p.rowStride
							}
						}
						cur.next()
					}
					for k := range m {
						out[oi+(k0+k)*ostride], _ = done(acc[T]{s: ss[k], c: cc[k]}, p)
					}
				}
			},
		}
	case device.Prod:
		return reducer[T]{
			// No merge: a product's rounding depends on its order.
			fold: func(src []T, base int, p *reducePlan, lo, hi int, cur *cursor) acc[T] {
				prod := 1.0
				cur.start(p, lo)
				for range hi - lo {
					j := base + cur.pos
					for range p.rowLen {
						prod *= float64(src[j])
						j += p.rowStride
					}
					cur.next()
				}
				return acc[T]{s: prod}
			},
			done: func(a acc[T], _ *reducePlan) (T, int64) { return T(a.s), 0 },
		}
	}
	return extremeReducer[T](op)
}

func intReducer[T ~int32 | ~int64 | ~uint8](op device.ReduceOp) reducer[T] {
	switch op {
	case device.Any, device.All:
		// Bool sources (0 or 1): Any is an or from false, All an and from
		// true, so an empty extent gives the identity.
		var ident T
		if op == device.All {
			ident = 1
		}
		all := op == device.All
		return reducer[T]{
			fold: func(src []T, base int, p *reducePlan, lo, hi int, cur *cursor) acc[T] {
				// found: an element that decides the result (a nonzero
				// one for Any, a zero one for All); the loops set it
				// without a branch, since a random mask would defeat the
				// branch predictor, and stop after the row that found it.
				found := false
				bs, bytes := any(src).([]uint8)
				cur.start(p, lo)
				for range hi - lo {
					j := base + cur.pos
					if bytes && p.rowStride == 1 {
						found = decides(bs[j:j+p.rowLen], all)
					} else {
						var hit uint8
						for range p.rowLen {
							hit |= b2u8((src[j] == 0) == all)
							j += p.rowStride
						}
						found = hit != 0
					}
					if found {
						break
					}
					cur.next()
				}
				if found {
					return acc[T]{v: 1 - ident}
				}
				return acc[T]{v: ident}
			},
			merge: func(a, b acc[T]) acc[T] {
				if b.v != ident {
					a.v = b.v
				}
				return a
			},
			done: func(a acc[T], _ *reducePlan) (T, int64) { return a.v, 0 },
		}
	case device.Sum, device.Prod:
		// Wrapping arithmetic, as integer sums and products do in every
		// dtype-preserving library; exact, so any split gives the same.
		prod := op == device.Prod
		return reducer[T]{
			fold: func(src []T, base int, p *reducePlan, lo, hi int, cur *cursor) acc[T] {
				var s T
				if prod {
					s = 1
				}
				cur.start(p, lo)
				for range hi - lo {
					j := base + cur.pos
					if prod {
						for range p.rowLen {
							s *= src[j]
							j += p.rowStride
						}
					} else if p.rowStride == 1 {
						s += sumInts[T](src[j : j+p.rowLen])
					} else {
						for range p.rowLen {
							s += src[j]
							j += p.rowStride
						}
					}
					cur.next()
				}
				return acc[T]{v: s}
			},
			merge: func(a, b acc[T]) acc[T] {
				if prod {
					a.v *= b.v
				} else {
					a.v += b.v
				}
				return a
			},
			done: func(a acc[T], _ *reducePlan) (T, int64) { return a.v, 0 },
			cols: func(out []T, oi, ostride int, src []T, base, n int, p *reducePlan) {
				intCols(out, oi, ostride, src, base, n, p, prod)
			},
		}
	}
	return extremeReducer[T](op)
}

// intCols is the integer Sum's and Prod's reducer.cols (foldCols, from 0
// or 1). Wrapping arithmetic is exact in any order, so the results are
// fold's.
func intCols[T integer](out []T, oi, ostride int, src []T, base, n int, p *reducePlan, prod bool) {
	if prod {
		foldCols(out, oi, ostride, src, base, n, p, 1, mulInto[T])
		return
	}
	foldCols(out, oi, ostride, src, base, n, p, 0, addInto[T, T])
}

// foldCols is a column path (reducer.cols, cols64) for reductions that do
// not depend on the order: up to colChunk outputs' running values at once,
// each starting at init, each source row folded into them by fold (whose
// row is at least as long as its running values).
func foldCols[S, T any](out []S, oi, ostride int, src []T, base, n int, p *reducePlan, init S, fold func(s []S, row []T)) {
	var buf [colChunk]S
	var cur cursor
	for k0 := 0; k0 < n; k0 += colChunk {
		s := buf[:min(colChunk, n-k0)]
		for k := range s {
			s[k] = init
		}
		cur.start(p, 0)
		for range p.rows {
			j := base + k0 + cur.pos
			for range p.rowLen {
				fold(s, src[j:j+len(s)])
				j += p.rowStride
			}
			cur.next()
		}
		copyStrided(out, oi+k0*ostride, ostride, s)
	}
}

// sumInts adds a contiguous row of integers into S (T itself, or int64
// for a wide sum) with wrapping arithmetic in four independent sums, which
// wrapping makes exact in any order.
func sumInts[S, T integer](x []T) S {
	var s0, s1, s2, s3 S
	for len(x) >= 4 {
		s0 += S(x[0])
		s1 += S(x[1])
		s2 += S(x[2])
		s3 += S(x[3])
		x = x[4:]
	}
	for _, v := range x {
		s0 += S(v)
	}
	return s0 + s1 + s2 + s3
}

// rowSumAny sums a contiguous row of float32 or float64 with vec.
func rowSumAny[T float](x []T) float64 {
	switch v := any(x).(type) {
	case []float32:
		return rowSum(v)
	case []float64:
		return rowSum(v)
	}
	return 0
}

// extremeReducer folds Max, Min, ArgMax and ArgMin for every dtype: NaN
// wins (a test that is constant false for integers), and the first
// occurrence wins ties. Rows of adjacent elements go through extremeRow.
func extremeReducer[T num](op device.ReduceOp) reducer[T] {
	isMax := op == device.Max || op == device.ArgMax
	arg := op.IsArg()
	better := func(x, best T) bool { return x > best }
	if !isMax {
		better = func(x, best T) bool { return x < best }
	}
	r := reducer[T]{
		fold: func(src []T, base int, p *reducePlan, lo, hi int, cur *cursor) acc[T] {
			a := acc[T]{at: -1}
			k := int64(lo) * int64(p.rowLen)
			cur.start(p, lo)
			for range hi - lo {
				j := base + cur.pos
				if p.rowStride == 1 {
					a = extremeRow(a, src[j:j+p.rowLen], k, isMax, arg)
				} else {
					a = extremeStrided(a, src, j, p.rowLen, p.rowStride, k, isMax)
				}
				k += int64(p.rowLen)
				cur.next()
			}
			return a
		},
		merge: func(a, b acc[T]) acc[T] {
			if a.at < 0 || (a.v == a.v && b.at >= 0 && (b.v != b.v || better(b.v, a.v))) {
				return b
			}
			return a
		},
		done: func(a acc[T], _ *reducePlan) (T, int64) { return a.v, a.at },
	}
	if arg {
		r.cols64 = func(out []int64, oi, ostride int, src []T, base, n int, p *reducePlan) {
			argExtremeCols(out, oi, ostride, src, base, n, p, isMax)
		}
	} else {
		r.cols = func(out []T, oi, ostride int, src []T, base, n int, p *reducePlan) {
			extremeCols(out, oi, ostride, src, base, n, p, isMax, r.fold)
		}
	}
	return r
}

// argExtremeCols is ArgMax's and ArgMin's reducer.cols64: up to colChunk
// running extremes and their positions at once, each source row folded
// into them with fold's test (extremeStrided's: a NaN is kept, else a
// strictly better element replaces the extreme), so the positions are
// fold's, the first of equal elements, -0 and +0 being equal.
func argExtremeCols[T num](out []int64, oi, ostride int, src []T, base, n int, p *reducePlan, isMax bool) {
	var best [colChunk]T
	var at [colChunk]int64
	var cur cursor
	for k0 := 0; k0 < n; k0 += colChunk {
		m := min(colChunk, n-k0)
		b, a := best[:m], at[:m]
		pos := int64(0)
		cur.start(p, 0)
		for range p.rows {
			j := base + k0 + cur.pos
			for range p.rowLen {
				row := src[j : j+m]
				switch {
				case pos == 0:
					copy(b, row)
					clear(a)
				case isMax:
					b, a := b[:len(row)], a[:len(row)]
					for k, x := range row {
						if v := b[k]; v == v && (x != x || x > v) {
							b[k], a[k] = x, pos
						}
					}
				default:
					b, a := b[:len(row)], a[:len(row)]
					for k, x := range row {
						if v := b[k]; v == v && (x != x || x < v) {
							b[k], a[k] = x, pos
						}
					}
				}
				pos++
				j += p.rowStride
			}
			cur.next()
		}
		copyStrided(out, oi+k0*ostride, ostride, a)
	}
}

// extremeCols is Max's and Min's reducer.cols: up to colChunk running
// extremes at once, each source row folded into them with the vector
// Maximum or Minimum (NaN-propagating, as fold is) or an inline loop for
// integers. Of -0 and +0 the vector kernels may keep either, where fold
// keeps the first it meets, so a float output whose extreme is zero is
// walked again by fold alone: the results are fold's, bit for bit but for
// which NaN's payload an output of NaN carries.
func extremeCols[T num](out []T, oi, ostride int, src []T, base, n int, p *reducePlan, isMax bool, fold func(src []T, base int, p *reducePlan, lo, hi int, cur *cursor) acc[T]) {
	var buf [colChunk]T
	var cur cursor
	float := isFloat[T]() // integers have one zero
	for k0 := 0; k0 < n; k0 += colChunk {
		m := min(colChunk, n-k0)
		s := buf[:m]
		first := true
		cur.start(p, 0)
		for range p.rows {
			j := base + k0 + cur.pos
			for range p.rowLen {
				if row := src[j : j+m]; first {
					copy(s, row)
					first = false
				} else {
					foldExtremes(s, row, isMax)
				}
				j += p.rowStride
			}
			cur.next()
		}
		for k, v := range s {
			if v == 0 && float {
				var c cursor
				v = fold(src, base+k0+k, p, 0, p.rows, &c).v
			}
			out[oi+(k0+k)*ostride] = v
		}
	}
}

// foldExtremes sets s[k] to the larger (isMax) or smaller of s[k] and
// row[k], NaN if either is NaN.
func foldExtremes[T num](s, row []T, isMax bool) {
	switch sv := any(s).(type) {
	case []float32:
		if isMax {
			_ = vec.Maximum(sv, sv, any(row).([]float32))
		} else {
			_ = vec.Minimum(sv, sv, any(row).([]float32))
		}
	case []float64:
		if isMax {
			_ = vec.Maximum(sv, sv, any(row).([]float64))
		} else {
			_ = vec.Minimum(sv, sv, any(row).([]float64))
		}
	default:
		row = row[:len(s)]
		if isMax {
			for k, v := range row {
				s[k] = max(s[k], v)
			}
		} else {
			for k, v := range row {
				s[k] = min(s[k], v)
			}
		}
	}
}

// extremeRow folds a row of adjacent elements, the first at position k0,
// into a (at < 0: nothing seen yet). The row is first reduced whole
// (vecExtreme: the vector kernels for floats, NaN if any is NaN); only a
// row that beats a is walked again, to its first element equal to the
// row's extreme (for ArgMax, ArgMin). A float zero extreme takes the
// scalar walk, so that which of -0 and +0 comes first decides, as it does
// elsewhere.
func extremeRow[T num](a acc[T], row []T, k0 int64, isMax, arg bool) acc[T] {
	if len(row) == 0 {
		return a
	}
	if m, lo, ok := vecExtremeFirst(row, isMax, arg); ok && (m != 0 || !isFloat[T]()) {
		if a.at >= 0 && (a.v != a.v || !(m != m || (isMax && m > a.v) || (!isMax && m < a.v))) {
			return a
		}
		if !arg {
			return acc[T]{v: m, at: k0}
		}
		for i, x := range row[lo:] {
			if x == m || (m != m && x != x) {
				return acc[T]{v: x, at: k0 + int64(lo+i)}
			}
		}
	}
	return extremeStrided(a, row, 0, len(row), 1, k0, isMax)
}

// argBlock is how many elements vecExtremeFirst reduces at a time: few
// enough that the scalar walk to the first extreme element stays short,
// enough that a vector call's fixed cost is small beside its work.
const argBlock = 256

// vecExtremeFirst is vecExtreme of a row and, when arg is set, the
// start lo of the first argBlock-long block holding that extreme (a
// block's extreme replaces the running one only when strictly better, or
// NaN, so the first occurrence is in block lo); lo is 0 when arg is not
// set, the row then being reduced in one call. False for an empty row.
func vecExtremeFirst[T num](row []T, isMax, arg bool) (m T, lo int, ok bool) {
	if !arg || len(row) <= 2*argBlock {
		m, ok = vecExtreme(row, isMax)
		return m, 0, ok
	}
	if m, ok = vecExtreme(row[:argBlock], isMax); !ok {
		return 0, 0, false
	}
	for j := argBlock; j < len(row) && m == m; j += argBlock {
		bm, _ := vecExtreme(row[j:min(j+argBlock, len(row))], isMax)
		if bm != bm || (isMax && bm > m) || (!isMax && bm < m) {
			m, lo = bm, j
		}
	}
	return m, lo, true
}

// extremeStrided folds n elements of src from j, step apart, the first
// at position k0, into a, one comparison at a time.
func extremeStrided[T num](a acc[T], src []T, j, n, step int, k0 int64, isMax bool) acc[T] {
	best, at := a.v, a.at
	if isMax {
		for i := range n {
			if x := src[j+i*step]; at < 0 || (best == best && (x != x || x > best)) {
				best, at = x, k0+int64(i)
			}
		}
	} else {
		for i := range n {
			if x := src[j+i*step]; at < 0 || (best == best && (x != x || x < best)) {
				best, at = x, k0+int64(i)
			}
		}
	}
	return acc[T]{v: best, at: at}
}

// vecExtreme is the largest (isMax) or smallest element of a row by the
// vector kernels: of a float row NaN if any is NaN; of an integer row by
// vecIntExtreme. False for an empty row.
func vecExtreme[T num](row []T, isMax bool) (T, bool) {
	var m float64
	switch v := any(row).(type) {
	case []float32:
		f := vec.Min[float32]
		if isMax {
			f = vec.Max[float32]
		}
		x, _ := f(v)
		m = float64(x)
	case []float64:
		f := vec.Min[float64]
		if isMax {
			f = vec.Max[float64]
		}
		m, _ = f(v)
	case []int32:
		return vecIntExtreme[T](v, isMax)
	case []int64:
		return vecIntExtreme[T](v, isMax)
	case []uint8:
		return vecIntExtreme[T](v, isMax)
	default:
		return 0, false
	}
	return T(m), true
}

// vecIntExtreme is vecExtreme of an integer row: vec.MaxInt or
// vec.MinInt (the vector sets' kernels for int32, four branch-free running
// extremes for the others); false for an empty row.
func vecIntExtreme[T num, I vec.Integer](row []I, isMax bool) (T, bool) {
	f := vec.MinInt[I]
	if isMax {
		f = vec.MaxInt[I]
	}
	m, err := f(row)
	return T(m), err == nil
}

// SumWide implements device.WideSummer: the sum over axes of a Bool, U8
// or I32 source, added into I64 straight from the source's elements (a
// Bool counts its nonzero bytes, eight at a time on contiguous rows), with
// Sum's rules for shapes and axes.
func (d *Device) SumWide(dst, src device.Operand, axes []int) error {
	const name = "SumWide"
	bufs, err := d.operands(name, dst, src)
	if err != nil {
		return err
	}
	sdt := src.DType()
	if (sdt != dtype.Bool && sdt != dtype.U8 && sdt != dtype.I32) || dst.DType() != dtype.I64 {
		return errs.New("cpu", name, errs.ErrDType, "sums a Bool, U8 or I32 source into I64, have %v into %v", sdt, dst.DType())
	}
	// Sum's shape and axis rules, on the I64 source they would widen to.
	wide := src.Arg()
	wide.DType = dtype.I64
	if err := device.CheckReduce("cpu", device.Sum, dst.Arg(), wide, axes); err != nil {
		return errs.Retag("cpu", name, err)
	}
	plan, err := planReduce(name, src.Layout, axes)
	if err != nil {
		return err
	}
	plan = splitLongRow(plan)
	switch sdt {
	case dtype.Bool:
		reduceInto(device.Sum, bufs[0], dst.Layout, slice[uint8](bufs[1]), plan, wideSumReducer[uint8](true))
	case dtype.U8:
		reduceInto(device.Sum, bufs[0], dst.Layout, slice[uint8](bufs[1]), plan, wideSumReducer[uint8](false))
	case dtype.I32:
		reduceInto(device.Sum, bufs[0], dst.Layout, slice[int32](bufs[1]), plan, wideSumReducer[int32](false))
	}
	return nil
}

// narrowInt is the element types SumWide adds into int64.
type narrowInt interface{ ~int32 | ~uint8 }

// wideSumReducer adds int32 or uint8 elements into done's int64, or, with
// count, counts the nonzero ones (a Bool source's true elements).
func wideSumReducer[T narrowInt](count bool) reducer[T] {
	return reducer[T]{
		wide: true,
		fold: func(src []T, base int, p *reducePlan, lo, hi int, cur *cursor) acc[T] {
			var n int64
			cur.start(p, lo)
			for range hi - lo {
				j := base + cur.pos
				switch {
				case p.rowStride != 1:
					for range p.rowLen {
						n += wideTerm(src[j], count)
						j += p.rowStride
					}
				case count:
					n += countNonzero(any(src[j : j+p.rowLen]).([]uint8))
				default:
					n += sumInts[int64](src[j : j+p.rowLen])
				}
				cur.next()
			}
			return acc[T]{at: n}
		},
		merge: func(a, b acc[T]) acc[T] {
			a.at += b.at
			return a
		},
		done: func(a acc[T], _ *reducePlan) (T, int64) { return 0, a.at },
		cols64: func(out []int64, oi, ostride int, src []T, base, n int, p *reducePlan) {
			wideCols(out, oi, ostride, src, base, n, p, count)
		},
	}
}

// wideTerm is what element v adds to a wide sum: itself, or with count 1
// when it is nonzero.
func wideTerm[T narrowInt](v T, count bool) int64 {
	if count {
		return int64(b2u8(v != 0))
	}
	return int64(v)
}

// wideCols is wideSumReducer's reducer.cols64 (foldCols, from 0). The
// sums are exact, so the results are fold's.
func wideCols[T narrowInt](out []int64, oi, ostride int, src []T, base, n int, p *reducePlan, count bool) {
	if count {
		foldCols(out, oi, ostride, src, base, n, p, 0, countInto[T])
		return
	}
	foldCols(out, oi, ostride, src, base, n, p, 0, addInto[int64, T])
}

// addInto adds row[k] to s[k] for every k < len(s), four at a time; row
// is at least as long as s.
func addInto[S, T integer](s []S, row []T) {
	row = row[:len(s)]
	k := 0
	for ; k+4 <= len(s); k += 4 {
		s4, r4 := s[k:k+4:k+4], row[k:k+4:k+4]
		s4[0] += S(r4[0])
		s4[1] += S(r4[1])
		s4[2] += S(r4[2])
		s4[3] += S(r4[3])
	}
	for ; k < len(s); k++ {
		s[k] += S(row[k])
	}
}

// mulInto multiplies s[k] by row[k] for every k < len(s), wrapping; row is
// at least as long as s.
func mulInto[T integer](s, row []T) {
	row = row[:len(s)]
	for k, v := range row {
		s[k] *= v
	}
}

// countInto adds 1 to s[k] where row[k] is nonzero, for every k < len(s);
// row is at least as long as s.
func countInto[T narrowInt](s []int64, row []T) {
	row = row[:len(s)]
	for k := range s {
		s[k] += int64(b2u8(row[k] != 0))
	}
}

// copyStrided writes s[k] to out[oi+k*ostride].
func copyStrided[T any](out []T, oi, ostride int, s []T) {
	for k, v := range s {
		out[oi+k*ostride] = v
	}
}

// countNonzero counts the nonzero bytes of b, eight at a time: in each
// byte, (x&0x7f) + 0x7f carries into bit 7 where the low seven bits are
// not all zero (never into the next byte), and or-ing x adds its own bit
// 7, so bit 7 is set exactly where x != 0.
func countNonzero(b []uint8) int64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	n := 0
	for len(b) >= 8 {
		w := endian.LittleEndian.Uint64(b)
		n += bits.OnesCount64(((w & low7) + low7 | w) &^ low7)
		b = b[8:]
	}
	for _, v := range b {
		if v != 0 {
			n++
		}
	}
	return int64(n)
}

// decides reports whether row holds a byte that decides a Bool reduction:
// a nonzero one for Any, a zero one for All (all set). It reads eight
// bytes a word and stops at the first block of 256 bytes that has one.
func decides(row []uint8, all bool) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(row) >= 256 {
		var hit uint64
		for w := 0; w < 256; w += 8 {
			v := endian.LittleEndian.Uint64(row[w:])
			if all {
				hit |= (v - ones) &^ v & highs // a zero byte in v
			} else {
				hit |= v
			}
		}
		if hit != 0 {
			return true
		}
		row = row[256:]
	}
	var hit uint8
	for _, v := range row {
		hit |= b2u8((v == 0) == all)
	}
	return hit != 0
}
