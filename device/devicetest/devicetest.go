// Package devicetest checks a device.Backend against the contract every
// backend shares, in the manner of gonum's list tests: every primitive, on
// several dtypes and layouts, with outputs pre-filled with NaN (to catch
// kernels that read before they write), inputs checked unchanged afterwards,
// results compared with a float64 reference, and every malformed call
// answered with a typed error rather than a panic.
//
// A backend's own tests call Run with an opened device; the tensor-level
// conformance table then covers the composite operations.
package devicetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Run checks dev's backend. Dtypes the device does not list in Info are
// skipped.
func Run(t *testing.T, dev device.Device) {
	h := &harness{t: t, be: dev.Backend(), dev: dev}
	t.Run("Fill", h.fill)
	t.Run("Copy", h.copyCast)
	t.Run("Unary", h.unary)
	t.Run("Binary", h.binary)
	t.Run("Where", h.where)
	t.Run("Reduce", h.reduce)
	t.Run("Matmul", h.matmul)
	t.Run("Indexer", h.indexing)
	t.Run("Scanner", h.scans)
	t.Run("Sorter", h.sorting)
	t.Run("Errors", h.errors)
	t.Run("IndexErrors", h.indexErrors)
	t.Run("Memory", h.memory)
}

type harness struct {
	t   *testing.T
	be  device.Backend
	dev device.Device
}

func (h *harness) supports(dt dtype.DType) bool {
	return slices.Contains(h.dev.Info().DTypes, dt)
}

// computes reports whether the device computes with dt (Info.Compute),
// not merely holds it (a backend may store a dtype it has no kernels for).
func (h *harness) computes(dt dtype.DType) bool {
	return slices.Contains(h.dev.Info().Compute, dt)
}

// encode converts float64 values to the host bytes of dt.
func encode(dt dtype.DType, vals []float64) []byte {
	b := make([]byte, len(vals)*dt.Size())
	for i, v := range vals {
		o := b[i*dt.Size():]
		switch dt {
		case dtype.F32:
			binary.LittleEndian.PutUint32(o, math.Float32bits(float32(v)))
		case dtype.F64:
			binary.LittleEndian.PutUint64(o, math.Float64bits(v))
		case dtype.F16:
			binary.LittleEndian.PutUint16(o, uint16(dtype.F16FromFloat64(v)))
		case dtype.BF16:
			binary.LittleEndian.PutUint16(o, uint16(dtype.BF16FromFloat64(v)))
		case dtype.I32:
			binary.LittleEndian.PutUint32(o, uint32(int32(v)))
		case dtype.I64:
			binary.LittleEndian.PutUint64(o, uint64(int64(v)))
		case dtype.U8:
			o[0] = uint8(v)
		case dtype.Bool:
			if v != 0 {
				o[0] = 1
			} else {
				o[0] = 0
			}
		}
	}
	return b
}

// decode converts host bytes of dt to float64 values.
func decode(dt dtype.DType, b []byte) []float64 {
	n := len(b) / dt.Size()
	out := make([]float64, n)
	for i := range out {
		o := b[i*dt.Size():]
		switch dt {
		case dtype.F32:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(o)))
		case dtype.F64:
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(o))
		case dtype.F16:
			out[i] = float64(dtype.Float16(binary.LittleEndian.Uint16(o)).Float32())
		case dtype.BF16:
			out[i] = float64(dtype.BFloat16(binary.LittleEndian.Uint16(o)).Float32())
		case dtype.I32:
			out[i] = float64(int32(binary.LittleEndian.Uint32(o)))
		case dtype.I64:
			out[i] = float64(int64(binary.LittleEndian.Uint64(o)))
		case dtype.U8, dtype.Bool:
			out[i] = float64(o[0])
		}
	}
	return out
}

// round gives the value dt stores for v.
func round(dt dtype.DType, v float64) float64 { return decode(dt, encode(dt, []float64{v}))[0] }

// buffer uploads vals as a buffer of dt.
func (h *harness) buffer(dt dtype.DType, vals []float64) device.Buffer {
	h.t.Helper()
	b, err := h.be.Alloc(dt, len(vals))
	if err != nil {
		h.t.Fatalf("Alloc(%v, %d): %v", dt, len(vals), err)
	}
	if err := h.be.Upload(b, 0, encode(dt, vals)); err != nil {
		h.t.Fatalf("Upload: %v", err)
	}
	return b
}

// output allocates n elements of dt pre-filled with NaN (0 for integers,
// whose NaN conversion is 0; so integer outputs are pre-filled with 77).
func (h *harness) output(dt dtype.DType, n int) device.Buffer {
	h.t.Helper()
	b, err := h.be.Alloc(dt, n)
	if err != nil {
		h.t.Fatalf("Alloc(%v, %d): %v", dt, n, err)
	}
	l, _ := layout.Contiguous(n)
	v := math.NaN()
	if !dt.IsFloat() {
		v = 77
	}
	if err := h.be.Fill(device.Operand{Buf: b, Layout: l}, v); err != nil {
		h.t.Fatalf("Fill: %v", err)
	}
	return b
}

func (h *harness) read(b device.Buffer) []float64 {
	h.t.Helper()
	out := make([]byte, b.Len()*b.DType().Size())
	if err := h.be.Download(out, b, 0); err != nil {
		h.t.Fatalf("Download: %v", err)
	}
	return decode(b.DType(), out)
}

// safely runs f and turns a panic into a test failure.
func (h *harness) safely(name string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			h.t.Errorf("%s panicked: %v", name, r)
			err = fmt.Errorf("panic")
		}
	}()
	return f()
}

func (h *harness) compare(t *testing.T, what string, got, want []float64, dt dtype.DType, rtol float64) {
	t.Helper()
	for i := range want {
		w := round(dt, want[i])
		g := got[i]
		if g == w || (math.IsNaN(g) && math.IsNaN(w)) {
			continue
		}
		if math.IsInf(w, 0) || math.IsNaN(w) || math.Abs(g-w) > rtol*(1+math.Abs(w)) {
			t.Errorf("%s: element %d = %v, want %v", what, i, g, w)
			return
		}
	}
}

// rtolFor is the relative tolerance of a dtype for transcendental results.
func rtolFor(dt dtype.DType) float64 {
	switch dt {
	case dtype.F64:
		return 1e-12
	case dtype.F32:
		return 2e-5
	case dtype.F16:
		return 2e-3
	case dtype.BF16:
		return 1.6e-2
	}
	return 0
}

// strided lays out a 3x4 logical matrix three ways over 16 stored elements:
// row-major at offset 2, transposed (column-major) and reversed rows.
type view struct {
	name   string
	layout layout.Layout
}

func views() []view {
	return []view{
		{"offset", layout.Layout{Shape: []int{3, 4}, Strides: []int{4, 1}, Offset: 2}},
		{"transposed", layout.Layout{Shape: []int{3, 4}, Strides: []int{1, 3}, Offset: 0}},
		{"reversed", layout.Layout{Shape: []int{3, 4}, Strides: []int{-4, 1}, Offset: 8}},
		{"broadcast", layout.Layout{Shape: []int{3, 4}, Strides: []int{0, 1}, Offset: 1}},
	}
}

// logical reads the 3x4 values of v from stored values.
func logical(v layout.Layout, stored []float64) []float64 {
	out := make([]float64, 0, 12)
	for i := range v.Shape[0] {
		for j := range v.Shape[1] {
			out = append(out, stored[v.OffsetOf([]int{i, j})])
		}
	}
	return out
}

func sample(n int, lo, hi float64, seed int) []float64 {
	out := make([]float64, n)
	x := uint64(seed)*2654435761 + 1
	for i := range out {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		out[i] = lo + (hi-lo)*float64(x%10007)/10007
	}
	return out
}

var contiguous12, _ = layout.Contiguous(3, 4)

func (h *harness) fill(t *testing.T) {
	for _, dt := range dtype.All {
		if !h.supports(dt) || dt == dtype.I64 && !h.computes(dtype.I64) {
			continue
		}
		out := h.output(dt, 12)
		if err := h.be.Fill(device.Operand{Buf: out, Layout: contiguous12}, 2.75); err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		want := round(dt, 2.75)
		if !dt.IsFloat() {
			want = round(dt, 2)
		}
		if dt == dtype.Bool {
			want = 1
		}
		h.compare(t, "Fill "+dt.String(), h.read(out), slices.Repeat([]float64{want}, 12), dt, 0)
		h.be.Free(out)
	}
}

func (h *harness) copyCast(t *testing.T) {
	for _, from := range dtype.All {
		for _, to := range dtype.All {
			if !h.supports(from) || !h.supports(to) || from == dtype.I64 || to == dtype.I64 && !h.computes(dtype.I64) {
				continue
			}
			stored := sample(16, -3, 3, int(from)*9+int(to))
			for i := range stored {
				stored[i] = round(from, stored[i])
				if from == dtype.U8 {
					stored[i] = round(from, math.Abs(stored[i]))
				}
			}
			src := h.buffer(from, stored)
			for _, v := range views() {
				out := h.output(to, 12)
				err := h.safely("Copy", func() error {
					return h.be.Copy(device.Operand{Buf: out, Layout: contiguous12}, device.Operand{Buf: src, Layout: v.layout})
				})
				if err != nil {
					t.Errorf("Copy %v->%v %s: %v", from, to, v.name, err)
					continue
				}
				want := logical(v.layout, stored)
				for i, x := range want {
					switch {
					case to == dtype.Bool:
						want[i] = map[bool]float64{true: 1, false: 0}[x != 0]
					case to.IsInt() && from.IsFloat():
						lim := map[dtype.DType][2]float64{dtype.I32: {math.MinInt32, math.MaxInt32}, dtype.I64: {math.MinInt64, math.MaxInt64}, dtype.U8: {0, 255}}[to]
						want[i] = max(lim[0], min(lim[1], math.Trunc(x)))
					case to == dtype.U8:
						want[i] = float64(uint8(int64(x)))
					}
				}
				h.compare(t, fmt.Sprintf("Copy %v->%v %s", from, to, v.name), h.read(out), want, to, rtolFor(to))
				h.be.Free(out)
			}
			h.compare(t, "Copy input unchanged", h.read(src), stored, from, 0)
			h.be.Free(src)
		}
	}
}

func (h *harness) unary(t *testing.T) {
	ref := map[device.UnaryOp]func(float64) float64{
		device.Neg: func(x float64) float64 { return -x }, device.Abs: math.Abs,
		device.Sign: func(x float64) float64 {
			if x == 0 {
				return 0
			}
			return math.Copysign(1, x)
		},
		device.Square: func(x float64) float64 { return x * x }, device.Relu: func(x float64) float64 { return max(x, 0) },
		device.Exp: math.Exp, device.Log: math.Log, device.Sqrt: math.Sqrt,
		device.Rsqrt: func(x float64) float64 { return 1 / math.Sqrt(x) }, device.Sin: math.Sin, device.Cos: math.Cos,
		device.Tanh: math.Tanh, device.Sigmoid: func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
		device.GeluTanh: func(x float64) float64 {
			return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
		},
		device.GeluErf: func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) },
		device.Erf:     math.Erf, device.Log1p: math.Log1p, device.Expm1: math.Expm1, device.Floor: math.Floor,
		device.Ceil: math.Ceil, device.Round: math.RoundToEven, device.Reciprocal: func(x float64) float64 { return 1 / x },
	}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.I32} {
		if !h.supports(dt) {
			continue
		}
		stored := sample(16, 0.1, 3, int(dt))
		for i := range stored {
			stored[i] = round(dt, stored[i])
		}
		src := h.buffer(dt, stored)
		for _, op := range device.UnaryOps() {
			def, _ := op.Def()
			if !def.Accepts.Has(dt) {
				continue
			}
			// The independent reference where this file has one, else the
			// descriptor's own: a new op is checked with no test edit.
			f, ok := ref[op]
			switch {
			case !ok && dt.IsFloat():
				f = def.F64
			case !ok:
				f = func(x float64) float64 { return float64(def.Int(int64(x))) }
			}
			outDT := dt
			if def.Predicate {
				outDT = dtype.Bool
			}
			for _, v := range views() {
				out := h.output(outDT, 12)
				err := h.safely(op.String(), func() error {
					return h.be.Unary(op, device.Operand{Buf: out, Layout: contiguous12}, device.Operand{Buf: src, Layout: v.layout})
				})
				if err != nil {
					t.Errorf("%v %v %s: %v", op, dt, v.name, err)
					h.be.Free(out)
					continue
				}
				want := logical(v.layout, stored)
				for i := range want {
					want[i] = f(want[i])
				}
				h.compare(t, fmt.Sprintf("%v %v %s", op, dt, v.name), h.read(out), want, outDT, rtolFor(dt))
				h.be.Free(out)
			}
		}
		h.compare(t, "Unary input unchanged", h.read(src), stored, dt, 0)
		h.be.Free(src)
	}
}

func (h *harness) binary(t *testing.T) {
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.I32} {
		if !h.supports(dt) {
			continue
		}
		sa := sample(16, -3, 3, 1)
		sb := sample(16, -3, 3, 2)
		for i := range sa {
			sa[i], sb[i] = round(dt, sa[i]), round(dt, sb[i])
		}
		a, b := h.buffer(dt, sa), h.buffer(dt, sb)
		for _, op := range device.BinaryOps() {
			if def, _ := op.Def(); !def.Accepts.Has(dt) {
				continue
			}
			outDT := dt
			if op.IsComparison() {
				outDT = dtype.Bool
			}
			for _, v := range views() {
				out := h.output(outDT, 12)
				err := h.safely(op.String(), func() error {
					return h.be.Binary(op, device.Operand{Buf: out, Layout: contiguous12},
						device.Operand{Buf: a, Layout: v.layout}, device.Operand{Buf: b, Layout: views()[0].layout})
				})
				if err != nil {
					t.Errorf("%v %v %s: %v", op, dt, v.name, err)
					h.be.Free(out)
					continue
				}
				x, y := logical(v.layout, sa), logical(views()[0].layout, sb)
				want := make([]float64, 12)
				for i := range want {
					want[i] = binaryRef(op, dt, x[i], y[i])
				}
				h.compare(t, fmt.Sprintf("%v %v %s", op, dt, v.name), h.read(out), want, outDT, rtolFor(outDT))
				h.be.Free(out)
			}
		}
		h.be.Free(a)
		h.be.Free(b)
	}
}

func binaryRef(op device.BinaryOp, dt dtype.DType, x, y float64) float64 {
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	switch op {
	case device.Add:
		return x + y
	case device.Sub:
		return x - y
	case device.Mul:
		return x * y
	case device.Div:
		if dt.IsInt() {
			if y == 0 {
				return x
			}
			return math.Trunc(x / y)
		}
		return x / y
	case device.Pow:
		if dt.IsInt() && y < 0 { // the truncated real power (0 for 0); the tensor layer refuses these
			if x == 0 {
				return 0
			}
			return math.Trunc(1 / math.Pow(x, -y))
		}
		return math.Pow(x, y)
	case device.Mod, device.Fmod:
		if y == 0 {
			if dt.IsInt() {
				return 0
			}
			return math.NaN()
		}
		q := math.Trunc(x / y)
		if op == device.Mod {
			q = math.Floor(x / y)
		}
		return x - q*y // exact for these small samples' quotients
	case device.FloorDiv:
		if y == 0 {
			if dt.IsInt() {
				return 0
			}
			return x / y
		}
		return math.Floor(x / y) // exact for these small samples' quotients
	case device.Atan2:
		return math.Copysign(math.Atan2(x, y), x) // math.Atan2 loses y's sign where x/y underflows
	case device.And:
		return b(x != 0 && y != 0)
	case device.Or:
		return b(x != 0 || y != 0)
	case device.Xor:
		return b((x != 0) != (y != 0))
	case device.Maximum:
		return max(x, y)
	case device.Minimum:
		return min(x, y)
	case device.Eq:
		return b(x == y)
	case device.Ne:
		return b(x != y)
	case device.Lt:
		return b(x < y)
	case device.Le:
		return b(x <= y)
	case device.Gt:
		return b(x > y)
	case device.Ge:
		return b(x >= y)
	}
	// An op this file does not know: its descriptor's own reference.
	def, _ := op.Def()
	if dt.IsFloat() {
		return def.F64(x, y)
	}
	return float64(def.Int(int64(x), int64(y)))
}

func (h *harness) where(t *testing.T) {
	dt := dtype.F32
	cond := h.buffer(dtype.Bool, []float64{1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1})
	sa, sb := sample(16, -3, 3, 3), sample(16, -3, 3, 4)
	a, b := h.buffer(dt, sa), h.buffer(dt, sb)
	defer func() {
		h.be.Free(cond)
		h.be.Free(a)
		h.be.Free(b)
	}()
	for _, v := range views() {
		out := h.output(dt, 12)
		c0 := views()[0].layout
		if err := h.be.Where(device.Operand{Buf: out, Layout: contiguous12}, device.Operand{Buf: cond, Layout: c0},
			device.Operand{Buf: a, Layout: v.layout}, device.Operand{Buf: b, Layout: c0}); err != nil {
			t.Fatalf("Where %s: %v", v.name, err)
		}
		c, x, y := logical(c0, h.read(cond)), logical(v.layout, sa), logical(c0, sb)
		want := make([]float64, 12)
		for i := range want {
			want[i] = y[i]
			if c[i] != 0 {
				want[i] = x[i]
			}
		}
		h.compare(t, "Where "+v.name, h.read(out), want, dt, 0)
		h.be.Free(out)
	}
}

func (h *harness) reduce(t *testing.T) {
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.I32, dtype.Bool} {
		if !h.supports(dt) {
			continue
		}
		stored := sample(16, -3, 3, 5)
		for i := range stored {
			if dt == dtype.Bool {
				stored[i] = float64(int(stored[i]+3) % 2) // a mix of 0 and 1
			}
			stored[i] = round(dt, stored[i])
		}
		src := h.buffer(dt, stored)
		for _, op := range device.ReduceOps() {
			if def, _ := op.Def(); !def.Accepts.Has(dt) {
				continue
			}
			for _, axes := range [][]int{{0}, {1}, {0, 1}} {
				if op.IsArg() && len(axes) != 1 {
					continue
				}
				for _, v := range views() {
					outShape := []int{4}
					if axes[0] == 1 {
						outShape = []int{3}
					}
					if len(axes) == 2 {
						outShape = []int{}
					}
					outDT := dt
					if op.IsArg() {
						outDT = dtype.I64
						if !h.supports(dtype.I64) && !h.supports(dtype.F64) {
							outDT = dtype.I64
						}
					}
					ol, _ := layout.Contiguous(outShape...)
					out := h.output(outDT, ol.Numel())
					err := h.safely(op.String(), func() error {
						return h.be.Reduce(op, device.Operand{Buf: out, Layout: ol}, device.Operand{Buf: src, Layout: v.layout}, axes)
					})
					if err != nil {
						t.Errorf("%v%v %v %s: %v", op, axes, dt, v.name, err)
						h.be.Free(out)
						continue
					}
					x := logical(v.layout, stored)
					want := reduceRef(op, x, axes)
					rt := 1e-5
					if dt == dtype.F64 {
						rt = 1e-12
					}
					if dt.IsInt() || op.IsArg() {
						rt = 0
					}
					h.compare(t, fmt.Sprintf("%v%v %v %s", op, axes, dt, v.name), h.read(out), want, outDT, rt)
					h.be.Free(out)
				}
			}
		}
		h.be.Free(src)
	}
}

func reduceRef(op device.ReduceOp, x []float64, axes []int) []float64 {
	var groups [][]float64
	switch {
	case len(axes) == 2:
		groups = [][]float64{x}
	case axes[0] == 0:
		for j := range 4 {
			groups = append(groups, []float64{x[j], x[4+j], x[8+j]})
		}
	default:
		for i := range 3 {
			groups = append(groups, x[i*4:i*4+4])
		}
	}
	out := make([]float64, len(groups))
	for g, vals := range groups {
		switch op {
		case device.Sum, device.Mean:
			s := 0.0
			for _, v := range vals {
				s += v
			}
			if op == device.Mean {
				s /= float64(len(vals))
			}
			out[g] = s
		case device.Prod:
			p := 1.0
			for _, v := range vals {
				p *= v
			}
			out[g] = p
		case device.Max, device.Any: // Any and All see 0 and 1
			out[g] = slices.Max(vals)
		case device.Min, device.All:
			out[g] = slices.Min(vals)
		case device.ArgMax:
			out[g] = float64(slices.Index(vals, slices.Max(vals)))
		case device.ArgMin:
			out[g] = float64(slices.Index(vals, slices.Min(vals)))
		}
	}
	return out
}

func (h *harness) matmul(t *testing.T) {
	dt := dtype.F32
	sa, sb := sample(16, -2, 2, 6), sample(16, -2, 2, 7)
	for i := range sa {
		sa[i], sb[i] = round(dt, sa[i]), round(dt, sb[i])
	}
	a, b := h.buffer(dt, sa), h.buffer(dt, sb)
	// a: 3x4 in each view; b: 4x2 row-major at offset 1 or transposed.
	bViews := []layout.Layout{
		{Shape: []int{4, 2}, Strides: []int{2, 1}, Offset: 1},
		{Shape: []int{4, 2}, Strides: []int{1, 5}, Offset: 0},
	}
	for _, v := range views() {
		for bi, bl := range bViews {
			ol, _ := layout.Contiguous(3, 2)
			out := h.output(dt, 6)
			if err := h.be.Matmul(device.Operand{Buf: out, Layout: ol}, device.Operand{Buf: a, Layout: v.layout}, device.Operand{Buf: b, Layout: bl}); err != nil {
				t.Errorf("Matmul %s/b%d: %v", v.name, bi, err)
				h.be.Free(out)
				continue
			}
			x := logical(v.layout, sa)
			want := make([]float64, 6)
			for i := range 3 {
				for j := range 2 {
					for p := range 4 {
						want[i*2+j] += x[i*4+p] * sb[bl.OffsetOf([]int{p, j})]
					}
				}
			}
			h.compare(t, fmt.Sprintf("Matmul %s/b%d", v.name, bi), h.read(out), want, dt, 1e-5)
			h.be.Free(out)
		}
	}
	h.compare(t, "Matmul input unchanged", h.read(a), sa, dt, 0)
	h.be.Free(a)
	h.be.Free(b)
}

// errors checks that malformed calls fail with the right kind, no panic.
func (h *harness) errors(t *testing.T) {
	f32 := dtype.F32
	a := h.buffer(f32, sample(12, -1, 1, 8))
	out := h.output(f32, 12)
	freed := h.buffer(f32, sample(12, -1, 1, 9))
	h.be.Free(freed)
	c12 := contiguous12
	o := func(b device.Buffer, l layout.Layout) device.Operand { return device.Operand{Buf: b, Layout: l} }
	wrongShape, _ := layout.Contiguous(4, 3)
	outside := layout.Layout{Shape: []int{3, 4}, Strides: []int{4, 1}, Offset: 5}
	ol3, _ := layout.Contiguous(3)
	cases := []struct {
		name string
		kind error
		call func() error
	}{
		{"shape mismatch", errs.ErrShape, func() error { return h.be.Unary(device.Exp, o(out, c12), o(a, wrongShape)) }},
		{"view outside buffer", errs.ErrShape, func() error { return h.be.Copy(o(out, c12), o(a, outside)) }},
		{"dtype mismatch", errs.ErrDType, func() error {
			i := h.output(dtype.I32, 12)
			defer h.be.Free(i)
			return h.be.Binary(device.Add, o(out, c12), o(a, c12), o(i, c12))
		}},
		{"freed buffer", errs.ErrReleased, func() error { return h.be.Unary(device.Neg, o(out, c12), o(freed, c12)) }},
		{"nil buffer", errs.ErrDevice, func() error { return h.be.Unary(device.Neg, o(out, c12), o(nil, c12)) }},
		{"bad axes", errs.ErrAxis, func() error { return h.be.Reduce(device.Sum, o(out, ol3), o(a, c12), []int{2}) }},
		{"matmul inner", errs.ErrShape, func() error {
			return h.be.Matmul(o(out, c12), o(a, c12), o(a, c12))
		}},
		{"negative alloc", errs.ErrShape, func() error { _, err := h.be.Alloc(f32, -1); return err }},
		{"huge alloc", errs.ErrOutOfMemory, func() error { _, err := h.be.Alloc(f32, math.MaxInt64/8); return err }},
		{"upload overflow", errs.ErrShape, func() error { return h.be.Upload(a, 10, make([]byte, 16)) }},
		{"download overflow", errs.ErrShape, func() error { return h.be.Download(make([]byte, 16), a, 11) }},
	}
	for _, c := range cases {
		err := h.safely(c.name, c.call)
		if err == nil || !errors.Is(err, c.kind) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.kind)
		}
	}
	h.be.Free(a)
	h.be.Free(out)
}

// memory checks that freeing returns MemoryInUse to its baseline.
func (h *harness) memory(t *testing.T) {
	if err := h.be.Sync(); err != nil {
		t.Fatal(err)
	}
	base := h.be.MemoryInUse()
	for range 200 {
		b := h.buffer(dtype.F32, sample(64, -1, 1, 1))
		out := h.output(dtype.F32, 64)
		l, _ := layout.Contiguous(64)
		if err := h.be.Unary(device.Exp, device.Operand{Buf: out, Layout: l}, device.Operand{Buf: b, Layout: l}); err != nil {
			t.Fatal(err)
		}
		h.be.Free(b)
		h.be.Free(out)
	}
	if err := h.be.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := h.be.MemoryInUse(); got != base {
		t.Errorf("MemoryInUse %d after freeing everything, baseline %d", got, base)
	}
}
