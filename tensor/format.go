package tensor

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// summariseAbove is the element count past which printing shows only the
// first and last few entries of each axis.
const summariseAbove = 1000

const edgeItems = 3

// maxPrinted bounds the entries a summary may show; past it (only tensors
// of high rank reach it) printing shows the metadata alone.
const maxPrinted = 100000

// String prints t in PyTorch's style, with its dtype and device:
//
//	tensor([[1., 2.],
//	        [3., 4.]], dtype=f32, device=cpu)
//
// Tensors over 1000 elements are summarised with "...". Printing reads the
// values back from the device; a failed tensor prints its error.
func (t *Tensor) String() string { return t.format(-1) }

// Format implements fmt.Formatter: %v and %s print like String, a precision
// (%.2v) sets the number of decimals, and %#v prints GoString.
func (t *Tensor) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, t.GoString())
		return
	}
	prec := -1
	if p, ok := f.Precision(); ok {
		prec = p
	}
	fmt.Fprint(f, t.format(prec))
}

// GoString describes t's metadata only, never its data, so it is cheap and
// safe to log for tensors of any size.
func (t *Tensor) GoString() string {
	if t == nil {
		return "(*tensor.Tensor)(nil)"
	}
	if t.err != nil {
		return fmt.Sprintf("tensor.Tensor{err: %q}", t.err.Error())
	}
	if t.Device() == nil {
		return "tensor.Tensor{}"
	}
	rel := ""
	if t.released.Load() {
		rel = ", released"
	}
	if t.isLazy() && !t.lz.done.Load() {
		rel += ", pending"
	}
	return fmt.Sprintf("tensor.Tensor{shape: %v, strides: %v, offset: %d, dtype: %v, device: %s%s}",
		t.lay.Shape, t.lay.Strides, t.lay.Offset, t.DType(), t.Device().Name(), rel)
}

func (t *Tensor) format(prec int) string {
	if err := t.check("String"); err != nil {
		return "tensor(error: " + err.Error() + ")"
	}
	suffix := fmt.Sprintf("dtype=%v, device=%s)", t.DType(), t.st.dev.Name())
	if t.Numel() == 0 {
		return fmt.Sprintf("tensor([], shape=%s, %s", shapeString(t.lay.Shape), suffix)
	}
	// A summarised tensor reads back only the entries it prints. Each long
	// axis is seen as two blocks (head and tail) of edgeItems entries, a
	// strided view over the same storage, so only those entries are copied,
	// however large (or broadcast) the tensor is.
	summarise := t.Numel() > summariseAbove
	src := t
	if summarise {
		var shape, strides, small []int
		for axis, d := range t.lay.Shape {
			st := t.lay.Strides[axis]
			if d > 2*edgeItems {
				shape = append(shape, 2, edgeItems)
				strides = append(strides, (d-edgeItems)*st, st)
				small = append(small, 2*edgeItems)
			} else {
				shape = append(shape, d)
				strides = append(strides, st)
				small = append(small, d)
			}
		}
		if n, err := layout.Numel(small); err != nil || n > maxPrinted {
			// Even the summary is too large (a high-rank tensor): metadata only.
			return fmt.Sprintf("tensor(..., shape=%s, %s", shapeString(t.lay.Shape), suffix)
		}
		edges := t.view("String", layout.Layout{Shape: shape, Strides: strides, Offset: t.lay.Offset})
		defer edges.Release()
		c := edges.Contiguous()
		defer c.Release()
		src = c.Reshape(small...)
		defer src.Release()
	}
	vals, err := src.Float64s()
	if err != nil {
		return "tensor(error: " + err.Error() + ")"
	}
	var ints []int64
	if t.DType() == dtype.I64 {
		// Read i64 exactly; float64 would round values beyond 2^53.
		if ints, err = ToSlice[int64](src); err != nil {
			return "tensor(error: " + err.Error() + ")"
		}
	}
	p := printer{shape: src.lay.Shape, full: t.lay.Shape, vals: vals, ints: ints, summarise: summarise}
	p.cell = p.formatter(t.DType(), prec)
	p.width = 0
	p.walk(0, 0, func(i int) { p.width = max(p.width, len(p.cell(i))) })
	var sb strings.Builder
	sb.WriteString("tensor(")
	p.write(&sb, 0, 0, len("tensor("))
	sb.WriteString(", ")
	sb.WriteString(suffix)
	return sb.String()
}

type printer struct {
	shape     []int // extents of the values read back
	full      []int // extents of the tensor printed
	vals      []float64
	ints      []int64
	summarise bool
	cell      func(i int) string
	width     int
}

// indices lists the entries of an axis of the values read back to print;
// -1 marks the ellipsis of a summarised axis.
func (p *printer) indices(axis int) []int {
	n := p.shape[axis]
	if p.summarise && p.full[axis] > 2*edgeItems {
		out := []int{}
		for i := range edgeItems {
			out = append(out, i)
		}
		out = append(out, -1)
		for i := edgeItems; i < 2*edgeItems; i++ {
			out = append(out, i)
		}
		return out
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (p *printer) stride(axis int) int {
	s := 1
	for _, d := range p.shape[axis+1:] {
		s *= d
	}
	return s
}

// walk visits the flat index of every printed element.
func (p *printer) walk(axis, base int, visit func(int)) {
	if axis == len(p.shape) {
		visit(base)
		return
	}
	st := p.stride(axis)
	for _, i := range p.indices(axis) {
		if i >= 0 {
			p.walk(axis+1, base+i*st, visit)
		}
	}
}

func (p *printer) write(sb *strings.Builder, axis, base, indent int) {
	if axis == len(p.shape) {
		c := p.cell(base)
		sb.WriteString(strings.Repeat(" ", p.width-len(c)))
		sb.WriteString(c)
		return
	}
	st := p.stride(axis)
	last := axis == len(p.shape)-1
	sb.WriteByte('[')
	for k, i := range p.indices(axis) {
		if k > 0 {
			if last {
				sb.WriteString(", ")
			} else {
				sb.WriteString(",")
				sb.WriteString(strings.Repeat("\n", len(p.shape)-axis-1))
				sb.WriteString(strings.Repeat(" ", indent+axis+1))
			}
		}
		if i < 0 {
			sb.WriteString("...")
			continue
		}
		p.write(sb, axis+1, base+i*st, indent)
	}
	sb.WriteByte(']')
}

// formatter picks one notation for all printed values, as PyTorch does:
// integers as integers, integral floats as "1.", fixed point with 4
// decimals, or scientific when magnitudes span too widely.
func (p *printer) formatter(dt dtype.DType, prec int) func(int) string {
	switch {
	case dt == dtype.Bool:
		return func(i int) string {
			if p.vals[i] != 0 {
				return "true"
			}
			return "false"
		}
	case dt == dtype.I64:
		return func(i int) string { return strconv.FormatInt(p.ints[i], 10) }
	case !dt.IsFloat():
		return func(i int) string { return strconv.FormatFloat(p.vals[i], 'f', 0, 64) }
	}
	integral, maxAbs, minAbs := true, 0.0, math.Inf(1)
	p.walk(0, 0, func(i int) {
		v := p.vals[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		if v != math.Trunc(v) || math.Abs(v) >= 1e16 {
			integral = false
		}
		a := math.Abs(v)
		maxAbs = max(maxAbs, a)
		if a > 0 {
			minAbs = min(minAbs, a)
		}
	})
	special := func(v float64) (string, bool) {
		switch {
		case math.IsNaN(v):
			return "nan", true
		case math.IsInf(v, 1):
			return "inf", true
		case math.IsInf(v, -1):
			return "-inf", true
		}
		return "", false
	}
	sci := maxAbs >= 1e8 || (minAbs < 1e-4 && minAbs > 0) || (minAbs > 0 && maxAbs/minAbs > 1e3 && !integral)
	if prec < 0 {
		prec = 4
	}
	return func(i int) string {
		v := p.vals[i]
		if s, ok := special(v); ok {
			return s
		}
		switch {
		case integral && !sci:
			return strconv.FormatFloat(v, 'f', 0, 64) + "."
		case sci:
			return strconv.FormatFloat(v, 'e', prec, 64)
		}
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
}

// shapeString prints a shape as PyTorch does: [2, 0].
func shapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
