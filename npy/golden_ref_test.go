package npy_test

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/dtype"
)

// operand says which dtype one file of a golden case holds, relative to the
// case's data dtype (see goldenData).
type operand int

const (
	data    operand = iota // the case's data dtype
	boolean                // dtype.Bool: conditions, predicates, logical results
	index                  // dtype.I64: NumPy's index arrays (argsort, take_along_axis)
	accum                  // NumPy's cumsum dtype: data for floats, int64 for bool and integers
)

// comparison says how an output is compared with its float64 reference.
// Integer and bool outputs are always compared exactly.
type comparison int

const (
	// tolerant: float outputs within near's per-dtype tolerance (libm
	// functions and summation orders differ in the last bits).
	tolerant comparison = iota
	// signedZero: tolerant, and a zero result must carry the reference's
	// sign (the manifest header pins the sign of zero results of mod, fmod,
	// atan2, leaky_relu and elu; the exact ones pin it anyway).
	signedZero
	// exact: the output is the reference rounded once to the output dtype,
	// bit for bit (sign of zero and NaN placement included). For ops that
	// copy elements, or do per element the same one float64 operation (or
	// the same sequential chain of them) as the generator before its single
	// rounding.
	exact
)

// goldenSig is what testdata/gen_golden.py promises about one op: the dtype
// of each input and of the output, and how exactly the output is known.
type goldenSig struct {
	in       []operand // one per input
	variadic bool      // the last input repeats (concat, stack)
	out      operand
	// def is the data dtype of a case whose name carries no dtype marker.
	def dtype.DType
	cmp comparison
}

// goldenSigs holds every op of the manifest; a case of an op missing here
// fails. The dtypes follow the generator: float32 data by default, outputs
// as NumPy makes them (bool for comparisons and logical ops, int64 for
// indices, int64 for cumsum of bool or int32).
var goldenSigs = func() map[string]goldenSig {
	same := func(n int, cmp comparison) goldenSig {
		in := make([]operand, n)
		return goldenSig{in: in, out: data, def: dtype.F32, cmp: cmp}
	}
	m := map[string]goldenSig{
		"where":        {in: []operand{boolean, data, data}, out: data, def: dtype.F32, cmp: exact},
		"any":          {in: []operand{data}, out: boolean, def: dtype.Bool},
		"all":          {in: []operand{data}, out: boolean, def: dtype.Bool},
		"cumsum":       {in: []operand{data}, out: accum, def: dtype.F32},
		"gather":       {in: []operand{data, index}, out: data, def: dtype.F32, cmp: exact},
		"scatter_add":  {in: []operand{data, index, data}, out: data, def: dtype.F32, cmp: exact},
		"topk_indices": {in: []operand{data}, out: index, def: dtype.F32},
	}
	for _, op := range []string{"softmax", "log_softmax", "logsumexp", "sum", "mean", "prod",
		"gelu", "erf", "tanh", "sigmoid", "expm1", "log1p"} {
		m[op] = same(1, tolerant)
	}
	for _, op := range []string{"max", "min", "flip", "roll", "tile", "repeat_interleave",
		"tril", "triu", "sort", "topk_values", "permute", "transpose", "leaky_relu", "cumprod"} {
		m[op] = same(1, exact)
	}
	m["elu"] = same(1, signedZero)
	for _, op := range []string{"matmul", "add", "mul"} {
		m[op] = same(2, tolerant)
	}
	for _, op := range []string{"maximum", "mod", "fmod", "pow", "concat", "stack"} {
		m[op] = same(2, exact)
	}
	for _, op := range []string{"concat", "stack"} {
		s := m[op]
		s.variadic = true
		m[op] = s
	}
	m["atan2"] = same(2, signedZero)
	for _, op := range []string{"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"} {
		m[op] = goldenSig{in: []operand{data, data}, out: boolean, def: dtype.F32}
	}
	for _, op := range []string{"logical_not", "isinf", "isfinite"} {
		m[op] = goldenSig{in: []operand{data}, out: boolean, def: dtype.F32}
	}
	for _, op := range []string{"argmax", "argmin", "argsort"} {
		m[op] = goldenSig{in: []operand{data}, out: index, def: dtype.F32}
	}
	return m
}()

// goldenData is the data dtype of case c, from the markers the generator
// puts in case names: a trailing _f64 (float64 data), an _i32 or _bool part
// (int32 or bool data), and _numbers for any/all of float32 numbers;
// otherwise the op's default.
func goldenData(c goldenCase, def dtype.DType) dtype.DType {
	parts := strings.Split(c.name, "_")
	switch {
	case parts[len(parts)-1] == "f64":
		return dtype.F64
	case slices.Contains(parts, "i32"):
		return dtype.I32
	case slices.Contains(parts, "bool"):
		return dtype.Bool
	case slices.Contains(parts, "numbers"):
		return dtype.F32
	}
	return def
}

// dtypeOf resolves an operand of a case whose data dtype is d.
func (o operand) dtypeOf(d dtype.DType) dtype.DType {
	switch o {
	case boolean:
		return dtype.Bool
	case index:
		return dtype.I64
	case accum:
		if d.IsFloat() {
			return d
		}
		return dtype.I64
	}
	return d
}

// arity reports whether n inputs suit the op.
func (s goldenSig) arity(n int) bool {
	return n == len(s.in) || (s.variadic && n > len(s.in))
}

// inputDType is the dtype input i of a case of this op must have.
func (s goldenSig) inputDType(i int, d dtype.DType) dtype.DType {
	return s.in[min(i, len(s.in)-1)].dtypeOf(d)
}

// match compares one output element with its reference.
func (s goldenSig) match(got, want float64, dt dtype.DType) bool {
	if !dt.IsFloat() {
		return got == want
	}
	switch s.cmp {
	case exact:
		if dt == dtype.F32 {
			want = float64(float32(want))
		}
		if math.IsNaN(want) {
			return math.IsNaN(got)
		}
		return got == want && math.Signbit(got) == math.Signbit(want)
	case signedZero:
		if want == 0 {
			return got == 0 && math.Signbit(got) == math.Signbit(want)
		}
	}
	return near(got, want, dt)
}

func ravel(idx, shape []int) int {
	off := 0
	for ax, d := range shape {
		off = off*d + idx[ax]
	}
	return off
}

// remap builds an array of shape oshape whose element at idx is x at the
// index src rewrites idx into (in place).
func remap(x nd, oshape []int, src func(idx []int)) nd {
	out := nd{oshape, make([]float64, numel(oshape))}
	for o := range out.v {
		idx := unravel(o, oshape)
		src(idx)
		out.v[o] = x.v[ravel(idx, x.shape)]
	}
	return out
}

// lanes applies f to every 1-D lane of x along axis ax; f returns the
// output lane, of length m.
func lanes(x nd, ax, m int, f func(lane []float64) []float64) nd {
	oshape := slices.Clone(x.shape)
	oshape[ax] = m
	out := nd{oshape, make([]float64, numel(oshape))}
	rest := slices.Clone(x.shape)
	rest[ax] = 1
	lane := make([]float64, x.shape[ax])
	for r := range numel(rest) {
		idx := unravel(r, rest)
		for j := range lane {
			idx[ax] = j
			lane[j] = x.v[ravel(idx, x.shape)]
		}
		res := f(lane)
		for j := range m {
			idx[ax] = j
			out.v[ravel(idx, oshape)] = res[j]
		}
	}
	return out
}

// nanLast orders floats ascending with every NaN after every number (and
// NaNs equal among themselves), NumPy's sort order.
func nanLast(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0 // -0 and +0 tie: a stable sort keeps their order
}

// stableOrder returns the positions of lane in the stable order of cmp.
func stableOrder(lane []float64, cmp func(a, b float64) int) []int {
	order := make([]int, len(lane))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp(lane[i], lane[j]) })
	return order
}

func intParam(c goldenCase, key string) int {
	n, _ := strconv.Atoi(c.params[key])
	return n
}

func floatParam(c goldenCase, key string) float64 {
	v, _ := strconv.ParseFloat(c.params[key], 64)
	return v
}

func truth(x float64) bool { return x != 0 } // NaN and ±Inf are true, ±0 false

// floorMod is np.mod for floats: the remainder with the sign of b (a zero
// takes b's sign too); a ±Inf divisor leaves a when the signs agree and
// gives the divisor itself when they differ.
func floorMod(a, b float64) float64 {
	r := math.Mod(a, b) // truncated, sign of a, exact
	switch {
	case b == 0 || math.IsNaN(r):
		return math.NaN()
	case r == 0:
		return math.Copysign(0, b)
	case (r < 0) != (b < 0):
		return r + b
	}
	return r
}

// moreReference computes the ops added after the first set of goldens
// (remainders, integer pow, activations, logical ops, shape ops, sorting and
// indexing), each as NumPy defines it; ok is false for an unknown op.
func moreReference(c goldenCase, in []nd) (out nd, ok bool) {
	isInt := c.data.IsInt()
	unary := func(f func(float64) float64) nd {
		return mapN(func(x ...float64) float64 { return f(x[0]) }, in[0])
	}
	binary := func(f func(a, b float64) float64) nd {
		return mapN(func(x ...float64) float64 { return f(x[0], x[1]) }, in[0], in[1])
	}
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	x := in[0]
	rank := len(x.shape)
	axes := parseAxes(c.params["axis"])
	ax := 0
	if len(axes) > 0 {
		ax = normAxis(axes[0], rank)
	}
	switch c.op {
	case "mod", "fmod":
		if isInt {
			// NumPy's integer remainders: x%0 is 0; MinInt32 % -1 is 0 (as in Go).
			return binary(func(a, b float64) float64 {
				p, q := int32(a), int32(b)
				if q == 0 {
					return 0
				}
				r := p % q
				if c.op == "mod" && r != 0 && (r < 0) != (q < 0) {
					r += q
				}
				return float64(r)
			}), true
		}
		if c.op == "fmod" {
			return binary(math.Mod), true
		}
		return binary(floorMod), true
	case "pow":
		// int32 power by repeated multiplication, wrapping modulo 2^32.
		return binary(func(a, b float64) float64 {
			base, p := int32(a), int32(1)
			for range int(b) {
				p *= base
			}
			return float64(p)
		}), true
	case "atan2":
		return binary(math.Atan2), true
	case "leaky_relu":
		slope := floatParam(c, "slope")
		return unary(func(v float64) float64 {
			if v > 0 {
				return v
			}
			return v * slope
		}), true
	case "elu":
		alpha := floatParam(c, "alpha")
		return unary(func(v float64) float64 {
			if v > 0 {
				return v
			}
			return alpha * math.Expm1(v)
		}), true
	case "logical_and":
		return binary(func(a, b float64) float64 { return b2f(truth(a) && truth(b)) }), true
	case "logical_or":
		return binary(func(a, b float64) float64 { return b2f(truth(a) || truth(b)) }), true
	case "logical_xor":
		return binary(func(a, b float64) float64 { return b2f(truth(a) != truth(b)) }), true
	case "logical_not":
		return unary(func(v float64) float64 { return b2f(!truth(v)) }), true
	case "isinf":
		return unary(func(v float64) float64 { return b2f(math.IsInf(v, 0)) }), true
	case "isfinite":
		return unary(func(v float64) float64 { return b2f(!math.IsInf(v, 0) && !math.IsNaN(v)) }), true
	case "any":
		return reduce(x, axes, false, 0, func(acc, v float64) float64 { return b2f(truth(acc) || truth(v)) }), true
	case "all":
		return reduce(x, axes, false, 1, func(acc, v float64) float64 { return b2f(truth(acc) && truth(v)) }), true
	case "flip":
		flip := make([]bool, rank)
		for i := range flip {
			flip[i] = axes == nil
		}
		for _, a := range axes {
			flip[normAxis(a, rank)] = true
		}
		return remap(x, x.shape, func(idx []int) {
			for a, f := range flip {
				if f {
					idx[a] = x.shape[a] - 1 - idx[a]
				}
			}
		}), true
	case "roll":
		shift := intParam(c, "shift")
		back := func(i, n int) int { return ((i-shift)%n + n) % n }
		if axes == nil { // np.roll of the flattened array, reshaped back
			out := nd{x.shape, make([]float64, len(x.v))}
			for i := range out.v {
				out.v[i] = x.v[back(i, len(x.v))]
			}
			return out, true
		}
		return remap(x, x.shape, func(idx []int) { idx[ax] = back(idx[ax], x.shape[ax]) }), true
	case "tile":
		reps := parseAxes(c.params["reps"])
		d := max(len(reps), rank)
		xs := slices.Concat(slices.Repeat([]int{1}, d-rank), x.shape)
		rs := slices.Concat(slices.Repeat([]int{1}, d-len(reps)), reps)
		oshape := make([]int, d)
		for i := range oshape {
			oshape[i] = xs[i] * rs[i]
		}
		return remap(nd{xs, x.v}, oshape, func(idx []int) {
			for i := range idx {
				idx[i] %= xs[i]
			}
		}), true
	case "repeat_interleave":
		r := intParam(c, "repeats")
		oshape := slices.Clone(x.shape)
		oshape[ax] *= r
		return remap(x, oshape, func(idx []int) { idx[ax] /= r }), true
	case "tril", "triu":
		k := intParam(c, "k")
		out := nd{x.shape, slices.Clone(x.v)}
		for o := range out.v {
			idx := unravel(o, x.shape)
			d := idx[rank-1] - idx[rank-2] // column minus row
			if (c.op == "tril" && d > k) || (c.op == "triu" && d < k) {
				out.v[o] = 0
			}
		}
		return out, true
	case "sort":
		return lanes(x, ax, x.shape[ax], func(lane []float64) []float64 {
			res := make([]float64, len(lane))
			for j, p := range stableOrder(lane, nanLast) {
				res[j] = lane[p]
			}
			return res
		}), true
	case "argsort":
		return lanes(x, ax, x.shape[ax], func(lane []float64) []float64 {
			res := make([]float64, len(lane))
			for j, p := range stableOrder(lane, nanLast) {
				res[j] = float64(p)
			}
			return res
		}), true
	case "topk_values", "topk_indices":
		// The k largest, largest first; equal values in index order.
		k := intParam(c, "k")
		desc := func(a, b float64) int { return nanLast(-a, -b) }
		return lanes(x, ax, k, func(lane []float64) []float64 {
			res := make([]float64, k)
			for j, p := range stableOrder(lane, desc)[:k] {
				res[j] = float64(p)
				if c.op == "topk_values" {
					res[j] = lane[p]
				}
			}
			return res
		}), true
	case "cumsum", "cumprod":
		return lanes(x, ax, x.shape[ax], func(lane []float64) []float64 {
			res := make([]float64, len(lane))
			acc, iacc := 1.0, int64(1)
			if c.op == "cumsum" {
				acc, iacc = 0, 0
			}
			for j, v := range lane {
				switch {
				case c.data.IsFloat() && c.op == "cumsum":
					acc += v
				case c.data.IsFloat():
					acc *= v
				case c.op == "cumsum": // int64 accumulator, as NumPy's for int32 and bool
					iacc += int64(v)
				default:
					iacc *= int64(v)
				}
				res[j] = acc
				if !c.data.IsFloat() {
					res[j] = float64(iacc)
				}
			}
			return res
		}), true
	case "gather": // np.take_along_axis
		ix := in[1]
		return remap(x, ix.shape, func(idx []int) {
			i := int(ix.v[ravel(idx, ix.shape)])
			if i < 0 {
				i += x.shape[ax]
			}
			idx[ax] = i
		}), true
	case "scatter_add": // np.add.at(base, index along axis, src), in C order of src
		ix, src := in[1], in[2]
		out := nd{x.shape, slices.Clone(x.v)}
		for p := range src.v {
			idx := unravel(p, src.shape)
			i := int(ix.v[ravel(idx, ix.shape)])
			if i < 0 {
				i += x.shape[ax]
			}
			idx[ax] = i
			out.v[ravel(idx, x.shape)] += src.v[p]
		}
		return out, true
	}
	return nd{}, false
}
