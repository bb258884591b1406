package tensor

import (
	"math"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// The gradient rules. Elementwise rules are keyed by the op table: every
// float unary and binary operation has an entry (TestGradRulesComplete),
// and an operation recorded without one fails at Backward with
// ErrUnsupported rather than giving a silent zero.

// unaryGrad is the rule of a unary operation: given x (the input), y (the
// result) and the gradient g of y, the gradient of x. Only the values the
// rule names in uses are saved for it.
type unaryGrad struct {
	uses uses
	// zero: the gradient is zero almost everywhere (the operation is
	// piecewise constant: Floor, Ceil, Round, Trunc, Sign), and is given as
	// zero everywhere, as PyTorch does; f is unused.
	zero bool
	f    func(x, y, g *Tensor) *Tensor
}

type uses uint8

const (
	useX uses = 1 << iota
	useY
	useA        = useX // binary: first operand
	useB        = useY // binary: second operand
	useOut uses = 4
)

const (
	ln2  = math.Ln2
	ln10 = math.Ln10
)

// The tables are filled in init: their rules call the operations whose
// hooks read them.
var (
	unaryGrads  map[device.UnaryOp]unaryGrad
	binaryGrads map[device.BinaryOp]binaryGrad
)

func init() {
	unaryGrads = unaryGradTable()
	binaryGrads = binaryGradTable()
}

func unaryGradTable() map[device.UnaryOp]unaryGrad {
	return map[device.UnaryOp]unaryGrad{
		device.Neg:    {0, false, func(x, y, g *Tensor) *Tensor { return g.Neg() }},
		device.Abs:    {useX, false, func(x, y, g *Tensor) *Tensor { return g.Mul(x.Sign()) }}, // 0 at 0, as PyTorch
		device.Sign:   {zero: true},
		device.Square: {useX, false, func(x, y, g *Tensor) *Tensor { return g.Mul(x).MulScalar(2) }},
		// y = max(x, 0) is +0 or positive, so sign(y) is the step function.
		device.Relu:  {useY, false, func(x, y, g *Tensor) *Tensor { return g.Mul(y.Sign()) }},
		device.Exp:   {useY, false, func(x, y, g *Tensor) *Tensor { return g.Mul(y) }},
		device.Log:   {useX, false, func(x, y, g *Tensor) *Tensor { return g.Div(x) }},
		device.Sqrt:  {useY, false, func(x, y, g *Tensor) *Tensor { return g.Div(y).MulScalar(0.5) }},
		device.Rsqrt: {useY, false, func(x, y, g *Tensor) *Tensor { return g.Mul(y.Square().Mul(y)).MulScalar(-0.5) }},
		device.Sin:   {useX, false, func(x, y, g *Tensor) *Tensor { return g.Mul(x.Cos()) }},
		device.Cos:   {useX, false, func(x, y, g *Tensor) *Tensor { return g.Mul(x.Sin()).Neg() }},
		device.Tanh:  {useY, false, func(x, y, g *Tensor) *Tensor { return g.Mul(y.Square().Neg().AddScalar(1)) }},
		device.Sigmoid: {useY, false, func(x, y, g *Tensor) *Tensor {
			return g.Mul(y.Mul(y.Neg().AddScalar(1)))
		}},
		device.GeluTanh: {useX, false, func(x, y, g *Tensor) *Tensor {
			const c, k = 0.7978845608028654, 0.044715 // sqrt(2/pi)
			x2 := x.Square()
			t := x.Mul(x2.MulScalar(k).AddScalar(1)).MulScalar(c).Tanh()
			du := x2.MulScalar(3 * k).AddScalar(1).MulScalar(c) // d/dx of the tanh argument
			d := t.AddScalar(1).MulScalar(0.5).Add(x.Mul(t.Square().Neg().AddScalar(1)).Mul(du).MulScalar(0.5))
			return g.Mul(d)
		}},
		device.GeluErf: {useX, false, func(x, y, g *Tensor) *Tensor {
			// Phi(x) + x phi(x)
			cdf := x.MulScalar(1 / math.Sqrt2).Erf().AddScalar(1).MulScalar(0.5)
			pdf := x.Square().MulScalar(-0.5).Exp().MulScalar(1 / math.Sqrt(2*math.Pi))
			return g.Mul(cdf.Add(x.Mul(pdf)))
		}},
		device.Erf: {useX, false, func(x, y, g *Tensor) *Tensor {
			return g.Mul(x.Square().Neg().Exp().MulScalar(2 / math.SqrtPi))
		}},
		device.Log1p: {useX, false, func(x, y, g *Tensor) *Tensor { return g.Div(x.AddScalar(1)) }},
		device.Expm1: {useY, false, func(x, y, g *Tensor) *Tensor { return g.Mul(y.AddScalar(1)) }},
		device.Floor: {zero: true},
		device.Ceil:  {zero: true},
		device.Round: {zero: true},
		device.Trunc: {zero: true},
		device.Reciprocal: {useY, false, func(x, y, g *Tensor) *Tensor {
			return g.Mul(y.Square()).Neg()
		}},
		device.Silu: {useX, false, func(x, y, g *Tensor) *Tensor {
			s := x.Sigmoid() // s (1 + x (1 - s))
			return g.Mul(s.Mul(x.Mul(s.Neg().AddScalar(1)).AddScalar(1)))
		}},
		device.Softplus: {useX, false, func(x, y, g *Tensor) *Tensor { return g.Mul(x.Sigmoid()) }},
		device.Hardswish: {useX, false, func(x, y, g *Tensor) *Tensor {
			// x h(x) with h = clamp(x+3, 0, 6)/6: h + x h', where h' is 1/6
			// inside (-3, 3), written with Sign so that it fuses.
			h := x.AddScalar(3).MaximumScalar(0).MinimumScalar(6).MulScalar(1.0 / 6)
			dh := x.AddScalar(3).Sign().Sub(x.SubScalar(3).Sign()).MulScalar(1.0 / 12)
			return g.Mul(h.Add(x.Mul(dh)))
		}},
		device.Tan:  {useY, false, func(x, y, g *Tensor) *Tensor { return g.Mul(y.Square().AddScalar(1)) }},
		device.Asin: {useX, false, func(x, y, g *Tensor) *Tensor { return g.Mul(x.Square().Neg().AddScalar(1).Rsqrt()) }},
		device.Acos: {useX, false, func(x, y, g *Tensor) *Tensor {
			return g.Mul(x.Square().Neg().AddScalar(1).Rsqrt()).Neg()
		}},
		device.Atan:  {useX, false, func(x, y, g *Tensor) *Tensor { return g.Div(x.Square().AddScalar(1)) }},
		device.Sinh:  {useX, false, func(x, y, g *Tensor) *Tensor { return g.Mul(x.Cosh()) }},
		device.Cosh:  {useX, false, func(x, y, g *Tensor) *Tensor { return g.Mul(x.Sinh()) }},
		device.Exp2:  {useY, false, func(x, y, g *Tensor) *Tensor { return g.Mul(y).MulScalar(ln2) }},
		device.Log2:  {useX, false, func(x, y, g *Tensor) *Tensor { return g.Div(x).MulScalar(1 / ln2) }},
		device.Log10: {useX, false, func(x, y, g *Tensor) *Tensor { return g.Div(x).MulScalar(1 / ln10) }},
	}
}

// binaryGrad is the rule of a binary operation: given the operands a and b
// (already broadcast against each other by the operation, so the rule may
// combine them freely), the result y and its gradient g, the gradients of
// a and b before they are summed back over broadcast axes. wa and wb say
// which are wanted. Comparisons yield Bool and are not differentiable.
type binaryGrad struct {
	uses uses
	f    func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor)
}

// stepOf returns 1 where d > 0, 0 where d < 0 and 1/2 at ties (where the
// gradient of a maximum is split evenly, as PyTorch does).
func stepOf(d *Tensor) *Tensor { return d.Sign().AddScalar(1).MulScalar(0.5) }

func binaryGradTable() map[device.BinaryOp]binaryGrad {
	return map[device.BinaryOp]binaryGrad{
		device.Add: {0, func(a, b, y, g *Tensor, wa, wb bool) (*Tensor, *Tensor) { return g, g }},
		device.Sub: {0, func(a, b, y, g *Tensor, wa, wb bool) (*Tensor, *Tensor) {
			if !wb {
				return g, nil
			}
			return g, g.Neg()
		}},
		device.Mul: {useA | useB, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			if wa {
				ga = g.Mul(b)
			}
			if wb {
				gb = g.Mul(a)
			}
			return ga, gb
		}},
		device.Div: {useA | useB, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			if wa {
				ga = g.Div(b)
			}
			if wb {
				gb = g.Mul(a).Div(b.Square()).Neg()
			}
			return ga, gb
		}},
		device.Pow: {useA | useB | useOut, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			if wa {
				ga = g.Mul(b).Mul(a.Pow(b.AddScalar(-1)))
			}
			if wb {
				gb = g.Mul(y).Mul(a.Log()) // defined for a > 0
			}
			return ga, gb
		}},
		device.Maximum: {useA | useB, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			m := stepOf(a.Sub(b))
			if wa {
				ga = g.Mul(m)
			}
			if wb {
				gb = g.Mul(m.Neg().AddScalar(1))
			}
			return ga, gb
		}},
		device.Minimum: {useA | useB, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			m := stepOf(b.Sub(a))
			if wa {
				ga = g.Mul(m)
			}
			if wb {
				gb = g.Mul(m.Neg().AddScalar(1))
			}
			return ga, gb
		}},
		device.Atan2: {useA | useB, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			// atan2(a, b): d/da = b/(a²+b²), d/db = -a/(a²+b²)
			r := g.Div(a.Square().Add(b.Square()))
			if wa {
				ga = r.Mul(b)
			}
			if wb {
				gb = r.Mul(a).Neg()
			}
			return ga, gb
		}},
		// a - floor(a/b)*b and a - trunc(a/b)*b: the quotient is piecewise
		// constant, so d/da = 1 and d/db = -quotient (PyTorch's rules).
		device.Mod: {useA | useB, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			if wb {
				gb = g.Mul(a.FloorDiv(b)).Neg() // a == FloorDiv(a, b)*b + Mod(a, b)
			}
			return g, gb
		}},
		device.Fmod: {useA | useB, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			if wb {
				gb = g.Mul(a.Div(b).Trunc()).Neg()
			}
			return g, gb
		}},
		// floor(a/b) is piecewise constant: zero almost everywhere, and
		// given as zero everywhere (PyTorch's floor_divide).
		device.FloorDiv: {0, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			z := filled("FloorDiv", g.Device(), g.DType(), 0, g.lay.Shape)
			return z, z
		}},
		// The parameterised activations: m is 1 where a > 0 and 0 elsewhere
		// (at 0 too, as PyTorch), written with Sign and Relu so that it fuses.
		device.LeakyRelu: {useA | useB, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			m := a.Sign().Relu()
			if wa {
				ga = g.Mul(m.Add(m.Neg().AddScalar(1).Mul(b)))
			}
			if wb {
				gb = g.Mul(a.Mul(m.Neg().AddScalar(1)))
			}
			return ga, gb
		}},
		device.Elu: {useA | useB, func(a, b, y, g *Tensor, wa, wb bool) (ga, gb *Tensor) {
			m := a.Sign().Relu()
			neg := a.MinimumScalar(0) // the exponentials stay finite where a > 0
			if wa {
				ga = g.Mul(m.Add(m.Neg().AddScalar(1).Mul(b.Mul(neg.Exp()))))
			}
			if wb {
				gb = g.Mul(neg.Expm1())
			}
			return ga, gb
		}},
		// Comparisons and logical operations: Bool results, not
		// differentiable (no entry needed; see nonDifferentiable).
	}
}

// nonDifferentiable reports whether a binary operation's result is never
// part of a graph (it is Bool).
func nonDifferentiable(op device.BinaryOp) bool { return op.IsComparison() }

// missingRule is the gradient rule of an operation that has none: Backward
// reports it, typed.
func missingRule(op string) backFn {
	return func(g *Tensor, _ []*Tensor) []*Tensor {
		return []*Tensor{fail("Backward", errs.ErrUnsupported, "no gradient rule for %s", op)}
	}
}

// gradUnary records y = op(x).
func gradUnary(op device.UnaryOp, x, y *Tensor) *Tensor {
	name := op.String()
	r, ok := unaryGrads[op]
	if !ok {
		return attach(y, name, missingRule(name), nil, x)
	}
	if r.zero {
		return attach(y, name, func(g *Tensor, _ []*Tensor) []*Tensor {
			return []*Tensor{filled(name, g.Device(), g.DType(), 0, g.lay.Shape)}
		}, nil, x)
	}
	var save []*Tensor
	if r.uses&useX != 0 {
		save = append(save, x)
	}
	if r.uses&useY != 0 {
		save = append(save, y)
	}
	return attach(y, name, func(g *Tensor, s []*Tensor) []*Tensor {
		var xv, yv *Tensor
		if r.uses&useX != 0 {
			xv, s = s[0], s[1:]
		}
		if r.uses&useY != 0 {
			yv = s[0]
		}
		return []*Tensor{r.f(xv, yv, g)}
	}, save, x)
}

// gradBinary records y = op(a, b) (b nil: the scalar form with constant c).
func gradBinary(op device.BinaryOp, a, b *Tensor, c float64, y *Tensor) *Tensor {
	name := op.String()
	r, ok := binaryGrads[op]
	if !ok {
		return attach(y, name, missingRule(name), nil, a, b)
	}
	var save []*Tensor
	if r.uses&useA != 0 {
		save = append(save, a)
	}
	if r.uses&useB != 0 && b != nil {
		save = append(save, b)
	}
	if r.uses&useOut != 0 {
		save = append(save, y)
	}
	wa, wb := a.wantsGrad(), b.wantsGrad()
	dev, dt := y.Device(), y.DType()
	aShape, bShape := a.lay.Shape, []int(nil)
	if b != nil {
		bShape = b.lay.Shape
	}
	return attach(y, name, func(g *Tensor, s []*Tensor) []*Tensor {
		var av, bv, yv *Tensor
		if r.uses&useA != 0 {
			av, s = s[0], s[1:]
		}
		if r.uses&useB != 0 {
			if b != nil {
				bv, s = s[0], s[1:]
			} else {
				bv = filled(name, dev, dt, c, []int{})
			}
		}
		if r.uses&useOut != 0 {
			yv = s[0]
		}
		ga, gb := r.f(av, bv, yv, g, wa, wb)
		out := []*Tensor{nil, nil}
		if wa {
			out[0] = sumTo(ga, aShape)
		}
		if wb {
			out[1] = sumTo(gb, bShape)
		}
		return out
	}, save, a, b)
}

// sumTo sums g (of a broadcast result's shape) back to shape, the shape of
// an operand that was broadcast: over the leading axes it lacked and the
// axes where it had extent 1.
func sumTo(g *Tensor, shape []int) *Tensor {
	if g == nil || g.err != nil || slices.Equal(g.lay.Shape, shape) {
		return g
	}
	lead := g.Rank() - len(shape)
	var axes []int
	for i, d := range g.lay.Shape {
		if i < lead || (shape[i-lead] == 1 && d != 1) {
			axes = append(axes, i)
		}
	}
	s := g
	if len(axes) > 0 {
		// The gradient reaching a broadcast operand is usually read again
		// by the other operand's rule (a bias's by the matmul before it),
		// so it is computed once here instead of being fused into this
		// sum and recomputed for that reader.
		if err := g.realize(); err != nil {
			return failed(err)
		}
		s = g.SumKeepDims(axes...)
	}
	return s.Reshape(slices.Clone(shape)...)
}

// gradReduce records y = op(x) over axes (normalised; y without the kept
// axes).
func gradReduce(op device.ReduceOp, x *Tensor, ax []int, y *Tensor) *Tensor {
	name := op.String()
	xShape := x.lay.Shape
	kept := slices.Clone(xShape)
	n := 1
	for _, a := range ax {
		kept[a] = 1
		n *= xShape[a]
	}
	expand := func(g *Tensor) *Tensor { return g.Reshape(kept...).BroadcastTo(xShape...) }
	switch op {
	case device.Sum:
		return attach(y, name, func(g *Tensor, _ []*Tensor) []*Tensor { return []*Tensor{expand(g)} }, nil, x)
	case device.Mean:
		return attach(y, name, func(g *Tensor, _ []*Tensor) []*Tensor {
			return []*Tensor{expand(g).DivScalar(float64(n))}
		}, nil, x)
	case device.Prod:
		// g y / x: an input of zero gives a NaN or infinite gradient.
		return attach(y, name, func(g *Tensor, s []*Tensor) []*Tensor {
			return []*Tensor{expand(g.Mul(s[1])).Div(s[0])}
		}, []*Tensor{x, y}, x)
	case device.Max, device.Min:
		// Split evenly between the elements equal to the extremum.
		return attach(y, name, func(g *Tensor, s []*Tensor) []*Tensor {
			mask := s[0].Eq(s[1].Reshape(kept...)).Cast(g.DType())
			count := mask.SumKeepDims(ax...)
			return []*Tensor{mask.Mul(g.Reshape(kept...).Div(count))}
		}, []*Tensor{x, y}, x)
	}
	return attach(y, name, missingRule(name), nil, x)
}

// gradSoftmax computes Softmax or LogSoftmax of x along axis (on a detached
// x, so the composite records nothing) and records it.
func gradSoftmax(name string, x *Tensor, axis int, log bool) *Tensor {
	d := x.Detach()
	defer d.Release()
	y := d.softmax(name, axis, log)
	if x.Rank() == 0 || y.err != nil {
		// The softmax of a scalar is the constant 1 (0 for LogSoftmax).
		return attach(retag(name, y), name, func(g *Tensor, _ []*Tensor) []*Tensor {
			return []*Tensor{filled(name, g.Device(), g.DType(), 0, g.lay.Shape)}
		}, nil, x)
	}
	ax, _ := layout.NormalizeAxis(name, axis, x.Rank())
	return attach(y, name, func(g *Tensor, s []*Tensor) []*Tensor {
		y := s[0]
		if log { // g - softmax * sum(g)
			return []*Tensor{g.Sub(y.Exp().Mul(g.SumKeepDims(ax)))}
		}
		// y (g - sum(g y))
		return []*Tensor{y.Mul(g.Sub(g.Mul(y).SumKeepDims(ax)))}
	}, []*Tensor{y}, x)
}

// gradLogSumExp computes LogSumExp of x over axes on a detached x and
// records it: the gradient is g exp(x - y).
func gradLogSumExp(x *Tensor, axes []int) *Tensor {
	const name = "LogSumExp"
	d := x.Detach()
	defer d.Release()
	y := d.LogSumExp(axes...)
	if y.err != nil {
		return y
	}
	ax, _ := normAxes(name, axes, x.Rank())
	kept := slices.Clone(x.lay.Shape)
	for _, a := range ax {
		kept[a] = 1
	}
	return attach(y, name, func(g *Tensor, s []*Tensor) []*Tensor {
		w := s[0].Sub(s[1].Reshape(kept...)).Exp()
		return []*Tensor{w.Mul(g.Reshape(kept...))}
	}, []*Tensor{x, y}, x)
}

// gradMatmul records y = a @ b, y of the broadcast shape batch+[m, n]
// (before a 1-D operand's axis is squeezed away).
func gradMatmul(a, b, y *Tensor) *Tensor {
	aShape, bShape := a.lay.Shape, b.lay.Shape
	// The operands as the product saw them: a 1-D a is a row, b a column.
	a2, b2 := aShape, bShape
	if len(a2) == 1 {
		a2 = []int{1, a2[0]}
	}
	if len(b2) == 1 {
		b2 = []int{b2[0], 1}
	}
	yShape := y.lay.Shape
	wa, wb := a.wantsGrad(), b.wantsGrad()
	// A transposed matrix b (a Linear layer's weight, used as Wᵀ) gets its
	// gradient as (gᵀ·a)ᵀ: the same values, computed in the layout of the
	// weight itself, so accumulating it needs no transposing copy.
	bTransposed := false
	if len(bShape) == 2 {
		m, err := b.lay.Classify2D()
		bTransposed = err == nil && m.Kind == layout.ColMajor && m.Rows > 1 && m.Cols > 1
	}
	var save []*Tensor
	if wb {
		save = append(save, a)
	}
	if wa {
		save = append(save, b)
	}
	return attach(y, "Matmul", func(g *Tensor, s []*Tensor) []*Tensor {
		g = g.Reshape(yShape...)
		var av, bv *Tensor
		if wb {
			av, s = s[0].Reshape(a2...), s[1:]
		}
		if wa {
			bv = s[0].Reshape(b2...)
		}
		out := []*Tensor{nil, nil}
		if wa {
			out[0] = sumTo(g.Matmul(bv.T()), a2).Reshape(aShape...)
		}
		if wb && bTransposed && len(yShape) == 2 && len(aShape) == 2 {
			out[1] = g.T().Matmul(av).T()
		} else if wb {
			out[1] = sumTo(av.T().Matmul(g), b2).Reshape(bShape...)
		}
		return out
	}, save, a, b)
}

// gradView records a view or copy y of x whose gradient is back(g).
func gradView(op string, x, y *Tensor, back func(g *Tensor) *Tensor) *Tensor {
	return attach(y, op, func(g *Tensor, _ []*Tensor) []*Tensor { return []*Tensor{back(g)} }, nil, x)
}

// inversePerm returns the permutation undoing perm (axes may be negative).
func inversePerm(perm []int) []int {
	inv := make([]int, len(perm))
	for i, p := range perm {
		if p < 0 {
			p += len(perm)
		}
		inv[p] = i
	}
	return inv
}

// unslice places g, the elements start, start+step, ... of an axis of
// extent d, back into an axis of extent d, with zeros elsewhere (the
// adjoint of Slice and Narrow). start and step are normalised as Slice
// does.
func unslice(g *Tensor, axis, d, start, step int) *Tensor {
	ax, err := layout.NormalizeAxis("Slice", axis, g.Rank())
	if err != nil {
		return failed(errs.Retag("tensor", "Backward", err))
	}
	n := g.lay.Shape[ax]
	shape := func(k int) []int { s := slices.Clone(g.lay.Shape); s[ax] = k; return s }
	zeros := func(k int) *Tensor { return filled("Backward", g.Device(), g.DType(), 0, shape(k)) }
	if n == 0 {
		return zeros(d)
	}
	if step < 0 { // the same positions walked forwards
		start += (n - 1) * step
		step = -step
		g = g.Slice(ax, -1, -n-1, -1)
	}
	if step > 1 {
		// Interleave: [n, step] with g in column 0, then keep the span.
		parts := []*Tensor{g.Unsqueeze(ax + 1)}
		z := zeros(n).Unsqueeze(ax + 1)
		for range step - 1 {
			parts = append(parts, z)
		}
		g = Concat(parts, ax+1).Reshape(shape(n * step)...)
		n = min(n*step, d-start)
		g = g.Narrow(ax, 0, n)
	}
	var parts []*Tensor
	if start > 0 {
		parts = append(parts, zeros(start))
	}
	parts = append(parts, g)
	if after := d - start - n; after > 0 {
		parts = append(parts, zeros(after))
	}
	if len(parts) == 1 {
		return g
	}
	return Concat(parts, ax)
}

// sliceStart normalises Slice's start for an axis of extent d, as
// layout.Slice does.
func sliceStart(start, d, step int) int {
	if start < 0 {
		start += d
	}
	if step > 0 {
		return min(max(start, 0), d)
	}
	return min(max(start, -1), d-1)
}

// gradSlice records y = x.Slice(axis, start, end, step).
func gradSlice(x, y *Tensor, axis, start, step int) *Tensor {
	ax, _ := layout.NormalizeAxis("Slice", axis, x.Rank())
	d := x.lay.Shape[ax]
	s := sliceStart(start, d, step)
	return gradView("Slice", x, y, func(g *Tensor) *Tensor { return unslice(g, ax, d, s, step) })
}

// gradNarrow records y = x.Narrow(axis, start, length).
func gradNarrow(x, y *Tensor, axis, start int) *Tensor {
	ax, _ := layout.NormalizeAxis("Narrow", axis, x.Rank())
	d := x.lay.Shape[ax]
	return gradView("Narrow", x, y, func(g *Tensor) *Tensor { return unslice(g, ax, d, start, 1) })
}

// gradWhere records y = Where(cond, a, b).
func gradWhere(cond, a, b, y *Tensor) *Tensor {
	aShape, bShape := a.lay.Shape, b.lay.Shape
	wa, wb := a.wantsGrad(), b.wantsGrad()
	return attach(y, "Where", func(g *Tensor, s []*Tensor) []*Tensor {
		zero := filled("Backward", g.Device(), g.DType(), 0, []int{})
		out := []*Tensor{nil, nil}
		if wa {
			out[0] = sumTo(Where(s[0], g, zero), aShape)
		}
		if wb {
			out[1] = sumTo(Where(s[0], zero, g), bShape)
		}
		return out
	}, []*Tensor{cond}, a, b)
}

// gradGather records y = x.Gather(ax, idx): the gradient scatters g back
// to the positions it was gathered from, adding where indices repeat.
// IndexSelect is a Gather and shares this rule.
func gradGather(x, y *Tensor, ax int, idx *Tensor) *Tensor {
	shape, dt := slices.Clone(x.lay.Shape), x.DType()
	return attach(y, "Gather", func(g *Tensor, s []*Tensor) []*Tensor {
		zero := filled("Backward", g.Device(), dt, 0, shape)
		defer zero.Release()
		return []*Tensor{zero.scatterAdd("Backward", ax, s[0], g)}
	}, []*Tensor{idx}, x)
}

// gradScatterAdd records y = x.ScatterAdd(ax, idx, src): x's gradient is
// g, src's is g gathered at the indices.
func gradScatterAdd(x, src, y *Tensor, ax int, idx *Tensor) *Tensor {
	return attach(y, "ScatterAdd", func(g *Tensor, s []*Tensor) []*Tensor {
		return []*Tensor{g, g.gather("Backward", ax, s[0])}
	}, []*Tensor{idx}, x, src)
}

// gradConcat records y = Concat(ts, ax): each input's gradient is its
// slice of g.
func gradConcat(ts []*Tensor, y *Tensor, ax int) *Tensor {
	lens := make([]int, len(ts))
	for i, t := range ts {
		lens[i] = t.lay.Shape[ax]
	}
	return attach(y, "Concat", func(g *Tensor, _ []*Tensor) []*Tensor {
		out := make([]*Tensor, len(ts))
		at := 0
		for i, n := range lens {
			out[i] = g.Narrow(ax, at, n)
			at += n
		}
		return out
	}, nil, ts...)
}

// gradScan records y = x.CumSum(ax) or x.CumProd(ax). CumSum's gradient is
// the running sum of g from the end; CumProd's is that of g*y, divided by
// x (not finite where x is zero; see CumProd).
func gradScan(op device.ScanOp, x, y *Tensor, ax int) *Tensor {
	if op == device.CumSum {
		return attach(y, "CumSum", func(g *Tensor, _ []*Tensor) []*Tensor {
			return []*Tensor{g.scan(device.CumSum, ax, true)}
		}, nil, x)
	}
	return attach(y, "CumProd", func(g *Tensor, s []*Tensor) []*Tensor {
		gy := g.Mul(s[1])
		defer gy.Release()
		r := gy.scan(device.CumSum, ax, true)
		defer r.Release()
		return []*Tensor{r.Div(s[0])}
	}, []*Tensor{x, y}, x)
}
