package tensor_test

// An independent float64 reference: a dense row-major n-d array with plain
// index arithmetic, sharing no code with layout or the backends.

import (
	"math"
	"slices"
)

type nd struct {
	shape []int
	v     []float64
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

func newND(shape []int) *nd { return &nd{shape: slices.Clone(shape), v: make([]float64, numel(shape))} }

// unravel turns a flat row-major position into an index.
func unravel(flat int, shape []int) []int {
	idx := make([]int, len(shape))
	for a := len(shape) - 1; a >= 0; a-- {
		if shape[a] > 0 {
			idx[a] = flat % shape[a]
			flat /= shape[a]
		}
	}
	return idx
}

func ravel(idx, shape []int) int {
	f := 0
	for a := range shape {
		f = f*shape[a] + idx[a]
	}
	return f
}

func (x *nd) mapf(f func(float64) float64) *nd {
	out := newND(x.shape)
	for i, v := range x.v {
		out.v[i] = f(v)
	}
	return out
}

// at reads x at an index of a broadcast shape (right-aligned, extent 1
// stretches).
func (x *nd) at(idx []int) float64 {
	lead := len(idx) - len(x.shape)
	f := 0
	for a, d := range x.shape {
		i := idx[a+lead]
		if d == 1 {
			i = 0
		}
		f = f*d + i
	}
	return x.v[f]
}

func broadcastShape(shapes ...[]int) []int {
	r := 0
	for _, s := range shapes {
		r = max(r, len(s))
	}
	out := make([]int, r)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i, d := range s {
			j := r - len(s) + i
			if d != 1 {
				out[j] = d
			}
		}
	}
	return out
}

func zip(a, b *nd, f func(x, y float64) float64) *nd {
	out := newND(broadcastShape(a.shape, b.shape))
	for i := range out.v {
		idx := unravel(i, out.shape)
		out.v[i] = f(a.at(idx), b.at(idx))
	}
	return out
}

func zip3(c, a, b *nd, f func(c, x, y float64) float64) *nd {
	out := newND(broadcastShape(c.shape, a.shape, b.shape))
	for i := range out.v {
		idx := unravel(i, out.shape)
		out.v[i] = f(c.at(idx), a.at(idx), b.at(idx))
	}
	return out
}

// reduceND folds the given axes (sorted, distinct) with f over the values
// of each output, in row-major order; keep leaves extent-1 axes.
func reduceND(x *nd, axes []int, keep bool, f func(vals []float64) float64) *nd {
	var outShape []int
	for a, d := range x.shape {
		if slices.Contains(axes, a) {
			if keep {
				outShape = append(outShape, 1)
			}
			continue
		}
		outShape = append(outShape, d)
	}
	out := newND(outShape)
	groups := make([][]float64, len(out.v))
	for i, v := range x.v {
		idx := unravel(i, x.shape)
		var oidx []int
		for a := range idx {
			if slices.Contains(axes, a) {
				if keep {
					oidx = append(oidx, 0)
				}
				continue
			}
			oidx = append(oidx, idx[a])
		}
		o := ravel(oidx, outShape)
		groups[o] = append(groups[o], v)
	}
	for o := range out.v {
		out.v[o] = f(groups[o])
	}
	return out
}

func refSum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func refProd(v []float64) float64 {
	p := 1.0
	for _, x := range v {
		p *= x
	}
	return p
}

func refMax(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		if math.IsNaN(x) {
			return x
		}
		m = max(m, x)
	}
	return m
}

func refMin(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		if math.IsNaN(x) {
			return x
		}
		m = min(m, x)
	}
	return m
}

func refArg(better func(x, best float64) bool) func(v []float64) float64 {
	return func(v []float64) float64 {
		at := 0
		for i, x := range v {
			if math.IsNaN(v[at]) {
				break
			}
			if math.IsNaN(x) || better(x, v[at]) {
				at = i
			}
		}
		return float64(at)
	}
}

// refMatmul multiplies with NumPy matmul semantics.
func refMatmul(a, b *nd) *nd {
	as, bs := a.shape, b.shape
	va, vb := len(as) == 1, len(bs) == 1
	if va {
		as = []int{1, as[0]}
	}
	if vb {
		bs = []int{bs[0], 1}
	}
	m, k, n := as[len(as)-2], as[len(as)-1], bs[len(bs)-1]
	batch := broadcastShape(as[:len(as)-2], bs[:len(bs)-2])
	A := &nd{shape: as, v: a.v}
	B := &nd{shape: bs, v: b.v}
	out := newND(append(slices.Clone(batch), m, n))
	for o := range out.v {
		idx := unravel(o, out.shape)
		i, j := idx[len(idx)-2], idx[len(idx)-1]
		s := 0.0
		for p := range k {
			ai := append(slices.Clone(idx[:len(idx)-2]), i, p)
			bi := append(slices.Clone(idx[:len(idx)-2]), p, j)
			s += A.at(ai) * B.at(bi)
		}
		out.v[o] = s
	}
	var shape []int
	r := len(out.shape)
	for i, d := range out.shape {
		if (va && i == r-2) || (vb && i == r-1) {
			continue
		}
		shape = append(shape, d)
	}
	out.shape = append([]int{}, shape...)
	return out
}

// refSoftmax is softmax (or log-softmax) along axis, computed stably.
func refSoftmax(x *nd, axis int, log bool) *nd {
	out := newND(x.shape)
	outer := numel(x.shape[:axis])
	n := x.shape[axis]
	inner := numel(x.shape[axis+1:])
	for o := range outer {
		for in := range inner {
			pos := func(i int) int { return (o*n+i)*inner + in }
			m := math.Inf(-1)
			for i := range n {
				m = max(m, x.v[pos(i)])
			}
			if math.IsInf(m, 0) {
				m = 0
			}
			s := 0.0
			for i := range n {
				s += math.Exp(x.v[pos(i)] - m)
			}
			for i := range n {
				if log {
					out.v[pos(i)] = x.v[pos(i)] - m - math.Log(s)
				} else {
					out.v[pos(i)] = math.Exp(x.v[pos(i)]-m) / s
				}
			}
		}
	}
	return out
}

func refPermute(x *nd, perm []int) *nd {
	shape := make([]int, len(perm))
	for i, p := range perm {
		shape[i] = x.shape[p]
	}
	out := newND(shape)
	for o := range out.v {
		idx := unravel(o, shape)
		src := make([]int, len(perm))
		for i, p := range perm {
			src[p] = idx[i]
		}
		out.v[o] = x.v[ravel(src, x.shape)]
	}
	return out
}

func refConcat(xs []*nd, axis int) *nd {
	shape := slices.Clone(xs[0].shape)
	shape[axis] = 0
	for _, x := range xs {
		shape[axis] += x.shape[axis]
	}
	out := newND(shape)
	for o := range out.v {
		idx := unravel(o, shape)
		at := idx[axis]
		for _, x := range xs {
			if at < x.shape[axis] {
				src := slices.Clone(idx)
				src[axis] = at
				out.v[o] = x.v[ravel(src, x.shape)]
				break
			}
			at -= x.shape[axis]
		}
	}
	return out
}
