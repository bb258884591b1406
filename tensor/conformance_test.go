package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// The conformance table: every operation, on every available device, on
// several shapes (rank 0, size-1 and empty axes) and view kinds
// (contiguous, transposed, narrowed, broadcast, reversed, offset), compared
// with the float64 reference in ref_test.go.
//
// Tolerances, |got - want| <= atol + rtol*|want|, by dtype and class:
//
//	class            f64          f32          f16          bf16    ints, bool
//	exact ops        1e-12        2e-6         1e-3         8e-3    exact
//	transcendental   1e-12        2e-5 (+1e-6) 2e-3         1.6e-2  -
//	reduction        1e-10        2e-5 (+1e-5) 1e-2         5e-2    exact
//	matmul           1e-10        1e-4 (+1e-4) 1e-2         5e-2    exact
//
// f32 transcendentals are looser than arithmetic because GPU kernels use
// approximations; f16/bf16 are bounded by their 11- and 8-bit significands.

type class int

const (
	exactClass class = iota
	transClass
	reduceClass
	matmulClass
)

type tol struct{ rtol, atol float64 }

func tolerance(dt dtype.DType, c class) tol {
	switch dt {
	case dtype.F64:
		if c == exactClass || c == transClass {
			return tol{1e-12, 1e-12}
		}
		return tol{1e-10, 1e-10}
	case dtype.F32:
		return [...]tol{{2e-6, 1e-7}, {2e-5, 1e-6}, {2e-5, 1e-5}, {1e-4, 1e-4}}[c]
	case dtype.F16:
		return [...]tol{{1e-3, 1e-4}, {2e-3, 1e-3}, {1e-2, 1e-2}, {1e-2, 1e-2}}[c]
	case dtype.BF16:
		return [...]tol{{8e-3, 1e-3}, {1.6e-2, 1e-2}, {5e-2, 5e-2}, {5e-2, 5e-2}}[c]
	}
	return tol{}
}

// viewKind says how a test operand's logical values are laid out.
type viewKind int

const (
	contiguous viewKind = iota
	transposed          // the .T() of a stored transpose (rank >= 2)
	narrowed            // a Narrow of a wider tensor padded with NaN
	reversed            // Slice with step -1 along axis 0 (rank >= 1)
	offset              // contiguous but starting 5 elements into storage
	broadcast           // axis 0 stored with extent 1 (rank >= 1)
	numViews
)

func (v viewKind) String() string {
	return [...]string{"contig", "T", "narrow", "rev", "offset", "bcast"}[v]
}

func (v viewKind) fits(shape []int) bool {
	switch v {
	case transposed:
		return len(shape) >= 2
	case reversed, narrowed, broadcast:
		return len(shape) >= 1
	}
	return true
}

type operand struct {
	shape  []int
	view   viewKind
	lo, hi float64 // value domain
}

// roundTo rounds v to a value dt holds exactly, so the reference sees the
// same inputs as the device.
func roundTo(dt dtype.DType, v float64) float64 {
	switch dt {
	case dtype.F32:
		return float64(float32(v))
	case dtype.F16:
		return float64(dtype.F16FromFloat64(v).Float32())
	case dtype.BF16:
		return float64(dtype.BF16FromFloat64(v).Float32())
	case dtype.I32, dtype.I64:
		return math.Round(v)
	case dtype.U8:
		return math.Mod(math.Abs(math.Round(v)), 256)
	case dtype.Bool:
		if v > 0 {
			return 1
		}
		return 0
	}
	return v
}

// build makes a tensor of dt on dev whose logical values are those of the
// returned reference, laid out as op.view says.
func build(t *testing.T, dev device.Device, dt dtype.DType, op operand, rng *rand.Rand) (*tensor.Tensor, *nd) {
	t.Helper()
	gen := func(shape []int) *nd {
		x := newND(shape)
		for i := range x.v {
			x.v[i] = roundTo(dt, op.lo+(op.hi-op.lo)*rng.Float64())
		}
		return x
	}
	host := func(x *nd) *tensor.Tensor {
		return tensor.FromSlice(slices.Clone(x.v), x.shape...).Cast(dt)
	}
	var ref *nd
	var h *tensor.Tensor
	shape := op.shape
	switch op.view {
	case contiguous:
		ref = gen(shape)
		h = host(ref)
	case transposed:
		ref = gen(shape)
		r := len(shape)
		perm := make([]int, r)
		for i := range perm {
			perm[i] = i
		}
		perm[r-1], perm[r-2] = r-2, r-1
		h = host(refPermute(ref, perm)).T()
	case narrowed:
		ref = gen(shape)
		wide := slices.Clone(shape)
		wide[len(wide)-1] += 3
		w := newND(wide)
		for i := range w.v {
			idx := unravel(i, wide)
			last := idx[len(idx)-1]
			if last >= 1 && last <= shape[len(shape)-1] {
				idx[len(idx)-1]--
				w.v[i] = ref.v[ravel(idx, shape)]
			} else {
				w.v[i] = roundTo(dt, math.NaN())
				if !dt.IsFloat() {
					w.v[i] = roundTo(dt, 99)
				}
			}
		}
		h = host(w).Narrow(-1, 1, shape[len(shape)-1])
	case reversed:
		ref = gen(shape)
		rev := newND(shape)
		for i := range rev.v {
			idx := unravel(i, shape)
			idx[0] = shape[0] - 1 - idx[0]
			rev.v[i] = ref.v[ravel(idx, shape)]
		}
		h = host(rev).Slice(0, -1, -shape[0]-1, -1)
	case offset:
		ref = gen(shape)
		vals := append(make([]float64, 5), ref.v...)
		h = tensor.FromSlice(vals).Cast(dt).Narrow(0, 5, len(ref.v)).Reshape(shape...)
	case broadcast:
		base := slices.Clone(shape)
		base[0] = 1
		b := gen(base)
		ref = newND(shape)
		for i := range ref.v {
			ref.v[i] = b.at(unravel(i, shape))
		}
		h = host(b).BroadcastTo(shape...)
	}
	d := h.To(dev)
	if err := d.Err(); err != nil {
		t.Fatalf("building %v %v %v on %s: %v", dt, shape, op.view, dev.Name(), err)
	}
	return d, ref
}

// check compares got with want under the tolerance of dt and class.
func check(t *testing.T, got *tensor.Tensor, want *nd, wantDT dtype.DType, tl tol) {
	t.Helper()
	if err := got.Err(); err != nil {
		t.Fatalf("op failed: %v", err)
	}
	if got.DType() != wantDT {
		t.Fatalf("dtype %v, want %v", got.DType(), wantDT)
	}
	if !slices.Equal(got.Shape(), want.shape) {
		t.Fatalf("shape %v, want %v", got.Shape(), want.shape)
	}
	vals, err := got.Float64s()
	if err != nil {
		t.Fatalf("readback: %v", err)
	}
	bad := 0
	for i, g := range vals {
		w := want.v[i]
		if wantDT.IsFloat() {
			w = roundTo(wantDT, w) // overflow to Inf and underflow as the dtype does
		}
		ok := g == w || (math.IsNaN(g) && math.IsNaN(w)) ||
			(!math.IsInf(w, 0) && !math.IsNaN(w) && math.Abs(g-w) <= tl.atol+tl.rtol*math.Abs(w))
		if !ok {
			if bad < 5 {
				t.Errorf("element %d (index %v): got %v, want %v (rtol %g, atol %g)", i, unravel(i, want.shape), g, w, tl.rtol, tl.atol)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d elements differ", bad, len(vals))
	}
}

// confCase is one row of the table.
type confCase struct {
	name   string
	dtypes []dtype.DType
	ins    []operand
	class  class
	outDT  func(dtype.DType) dtype.DType // nil: same as the inputs
	run    func(ins []*tensor.Tensor) *tensor.Tensor
	ref    func(ins []*nd, dt dtype.DType) *nd
}

var (
	floats  = []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16}
	ints    = []dtype.DType{dtype.I32, dtype.I64, dtype.U8}
	numeric = append(slices.Clone(floats), ints...)
)

// shapes used for single-operand ops.
var unaryShapes = [][]int{{}, {1}, {0}, {7}, {3, 4}, {2, 3, 5}, {1, 4}, {4, 0, 2}}

// operandsFor expands shapes into every view kind that fits them.
func operandsFor(shapes [][]int, lo, hi float64) [][]operand {
	var out [][]operand
	for _, s := range shapes {
		for v := range numViews {
			if v.fits(s) && (v == contiguous || numel(s) > 0) {
				out = append(out, []operand{{shape: s, view: v, lo: lo, hi: hi}})
			}
		}
	}
	return out
}

func runTable(t *testing.T, cases []confCase) {
	for _, dev := range testDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			for _, c := range cases {
				for _, dt := range c.dtypes {
					if !supports(dev, dt) || (c.outDT != nil && !supports(dev, c.outDT(dt))) {
						continue
					}
					name := fmt.Sprintf("%s/%v", c.name, dt)
					for _, in := range c.ins {
						name += fmt.Sprintf("/%v%v", in.shape, in.view)
					}
					t.Run(name, func(t *testing.T) {
						rng := rand.New(rand.NewPCG(uint64(len(name)), 7))
						var ts []*tensor.Tensor
						var refs []*nd
						for _, in := range c.ins {
							x, r := build(t, dev, dt, in, rng)
							ts = append(ts, x)
							refs = append(refs, r)
						}
						got := c.run(ts)
						if err := got.Err(); err != nil && !computes(dev, dt) {
							// A dtype the device only stores must be refused with a
							// typed error, never computed wrongly.
							if !errors.Is(err, tensor.ErrDType) && !errors.Is(err, tensor.ErrUnsupported) {
								t.Fatalf("%v on %s: %v, want ErrDType or ErrUnsupported", dt, dev.Name(), err)
							}
							return
						}
						if err := got.Err(); errors.Is(err, tensor.ErrUnsupported) && c.name == "Matmul" && dt.IsInt() && dev.Info().Type != "cpu" {
							t.Skipf("integer matmul is not offered by %s: %v", dev.Name(), err)
						}
						if got.Err() == nil && got.Device() != dev {
							t.Fatalf("result on %v, want %v", got.Device().Name(), dev.Name())
						}
						want := c.ref(refs, dt)
						out := dt
						if c.outDT != nil {
							out = c.outDT(dt)
						}
						check(t, got, want, out, tolerance(out, c.class))
						// Inputs are never modified.
						for i, x := range ts {
							check(t, x, refs[i], dt, tol{})
						}
					})
				}
			}
		})
	}
}

// unaryRef is the float64 definition of each unary op.
var unaryRef = map[device.UnaryOp]func(float64) float64{
	device.Neg: func(x float64) float64 { return -x },
	device.Abs: math.Abs,
	device.Sign: func(x float64) float64 {
		return map[bool]float64{true: 1, false: -1}[x > 0] * b2f(x != 0 && !math.IsNaN(x))
	},
	device.Square: func(x float64) float64 { return x * x },
	device.Relu: func(x float64) float64 {
		if x < 0 {
			return 0
		}
		return x
	},
	device.Exp:     math.Exp,
	device.Log:     math.Log,
	device.Sqrt:    math.Sqrt,
	device.Rsqrt:   func(x float64) float64 { return 1 / math.Sqrt(x) },
	device.Sin:     math.Sin,
	device.Cos:     math.Cos,
	device.Tanh:    math.Tanh,
	device.Sigmoid: func(x float64) float64 { return 1 / (1 + math.Exp(-x)) },
	device.GeluTanh: func(x float64) float64 {
		if math.IsInf(x, -1) {
			return 0 // the limit; the formula would give -Inf*0
		}
		return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	},
	device.GeluErf: func(x float64) float64 {
		if math.IsInf(x, -1) {
			return 0
		}
		return 0.5 * x * (1 + math.Erf(x/math.Sqrt2))
	},
	device.Erf:   math.Erf,
	device.Log1p: math.Log1p,
	device.Expm1: math.Expm1,
	device.Floor: math.Floor,
	device.Ceil:  math.Ceil,
	device.Round: math.RoundToEven,
	device.Reciprocal: func(x float64) float64 {
		return 1 / x
	},
	device.Not:      func(x float64) float64 { return b2f(x == 0) },
	device.IsNaN:    func(x float64) float64 { return b2f(math.IsNaN(x)) },
	device.IsInf:    func(x float64) float64 { return b2f(math.IsInf(x, 0)) },
	device.IsFinite: func(x float64) float64 { return b2f(!math.IsNaN(x) && !math.IsInf(x, 0)) },
}

// dtypesOf lists the dtypes of the classes an operation accepts.
func dtypesOf(k device.Kinds) []dtype.DType {
	var out []dtype.DType
	if k&device.Floats != 0 {
		out = append(out, floats...)
	}
	if k&device.Ints != 0 {
		out = append(out, ints...)
	}
	if k&device.Bools != 0 {
		out = append(out, dtype.Bool)
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var unaryMethod = map[device.UnaryOp]func(*tensor.Tensor) *tensor.Tensor{
	device.Neg: (*tensor.Tensor).Neg, device.Abs: (*tensor.Tensor).Abs, device.Sign: (*tensor.Tensor).Sign,
	device.Square: (*tensor.Tensor).Square, device.Relu: (*tensor.Tensor).Relu, device.Exp: (*tensor.Tensor).Exp,
	device.Log: (*tensor.Tensor).Log, device.Sqrt: (*tensor.Tensor).Sqrt, device.Rsqrt: (*tensor.Tensor).Rsqrt,
	device.Sin: (*tensor.Tensor).Sin, device.Cos: (*tensor.Tensor).Cos, device.Tanh: (*tensor.Tensor).Tanh,
	device.Sigmoid: (*tensor.Tensor).Sigmoid, device.GeluTanh: (*tensor.Tensor).GeluTanh, device.GeluErf: (*tensor.Tensor).Gelu,
	device.Erf: (*tensor.Tensor).Erf, device.Log1p: (*tensor.Tensor).Log1p, device.Expm1: (*tensor.Tensor).Expm1,
	device.Floor: (*tensor.Tensor).Floor, device.Ceil: (*tensor.Tensor).Ceil, device.Round: (*tensor.Tensor).Round,
	device.Reciprocal: (*tensor.Tensor).Reciprocal,
}

// unaryMethodOf returns the tensor method of op: from unaryMethod, or, for
// an op added to the table since, the generated method found by its name,
// so a new op runs through the table with no edit here.
func unaryMethodOf(op device.UnaryOp) func(*tensor.Tensor) *tensor.Tensor {
	if m, ok := unaryMethod[op]; ok {
		return m
	}
	def, _ := op.Def()
	return func(x *tensor.Tensor) *tensor.Tensor {
		m := reflect.ValueOf(x).MethodByName(def.MethodName())
		if !m.IsValid() {
			panic("tensor has no method " + def.MethodName() + " for op " + def.Name)
		}
		return m.Call(nil)[0].Interface().(*tensor.Tensor)
	}
}

// unaryRefOf returns the reference of op: this file's independent one, or
// the op table's float64 reference for an op added since.
func unaryRefOf(op device.UnaryOp) func(float64) float64 {
	if f, ok := unaryRef[op]; ok {
		return f
	}
	def, _ := op.Def()
	return def.F64
}

// binaryMethodOf is unaryMethodOf for binary ops.
func binaryMethodOf(op device.BinaryOp) func(a, b *tensor.Tensor) *tensor.Tensor {
	if m, ok := binaryMethod[op]; ok {
		return m
	}
	def, _ := op.Def()
	return func(a, b *tensor.Tensor) *tensor.Tensor {
		m := reflect.ValueOf(a).MethodByName(def.MethodName())
		if !m.IsValid() {
			panic("tensor has no method " + def.MethodName() + " for op " + def.Name)
		}
		return m.Call([]reflect.Value{reflect.ValueOf(b)})[0].Interface().(*tensor.Tensor)
	}
}

// binaryRefOf is unaryRefOf for binary ops.
func binaryRefOf(op device.BinaryOp) func(x, y float64) float64 {
	if f, ok := binaryRef[op]; ok {
		return f
	}
	def, _ := op.Def()
	return def.F64
}

// wrapInt reduces an exact integer result to dt's range the way two's
// complement arithmetic does.
func wrapInt(dt dtype.DType, v float64) float64 {
	switch dt {
	case dtype.U8:
		return float64(uint8(int64(v)))
	case dtype.I32:
		return float64(int32(int64(v)))
	}
	return v
}

func unaryCases() []confCase {
	var cases []confCase
	for _, op := range device.UnaryOps() {
		f := unaryRefOf(op)
		def, _ := op.Def()
		dts := dtypesOf(def.Accepts)
		var outDT func(dtype.DType) dtype.DType
		if def.Predicate {
			outDT = func(dtype.DType) dtype.DType { return dtype.Bool }
		}
		lo, hi := -3.0, 3.0
		switch op {
		case device.Log, device.Sqrt, device.Rsqrt, device.Log1p:
			lo = -0.5 // some NaN results too
		case device.Round:
			lo, hi = -4, 4
		}
		cl := transClass
		if !op.FloatOnly() || op == device.Floor || op == device.Ceil || op == device.Round {
			cl = exactClass
		}
		for _, ins := range operandsFor(unaryShapes, lo, hi) {
			cases = append(cases, confCase{
				name: op.String(), dtypes: dts, ins: ins, class: cl, outDT: outDT,
				run: func(ts []*tensor.Tensor) *tensor.Tensor { return unaryMethodOf(op)(ts[0]) },
				ref: func(xs []*nd, dt dtype.DType) *nd {
					return xs[0].mapf(func(v float64) float64 {
						if dt.IsInt() {
							return wrapInt(dt, f(v))
						}
						return f(v)
					})
				},
			})
		}
	}
	return cases
}

var binaryRef = map[device.BinaryOp]func(x, y float64) float64{
	device.Add: func(x, y float64) float64 { return x + y },
	device.Sub: func(x, y float64) float64 { return x - y },
	device.Mul: func(x, y float64) float64 { return x * y },
	device.Div: func(x, y float64) float64 { return x / y },
	device.Pow: math.Pow,
	device.Maximum: func(x, y float64) float64 {
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.NaN()
		}
		return max(x, y)
	},
	device.Minimum: func(x, y float64) float64 {
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.NaN()
		}
		return min(x, y)
	},
	device.Eq:    func(x, y float64) float64 { return b2f(x == y) },
	device.Ne:    func(x, y float64) float64 { return b2f(x != y) },
	device.Lt:    func(x, y float64) float64 { return b2f(x < y) },
	device.Le:    func(x, y float64) float64 { return b2f(x <= y) },
	device.Gt:    func(x, y float64) float64 { return b2f(x > y) },
	device.Ge:    func(x, y float64) float64 { return b2f(x >= y) },
	device.And:   func(x, y float64) float64 { return b2f(x != 0 && y != 0) },
	device.Or:    func(x, y float64) float64 { return b2f(x != 0 || y != 0) },
	device.Xor:   func(x, y float64) float64 { return b2f((x != 0) != (y != 0)) },
	device.Atan2: math.Atan2,
	// x - floor(x/y)*y and x - trunc(x/y)*y in float64 (integer operands by
	// zero are handled in binaryCases).
	device.Mod:  func(x, y float64) float64 { return x - math.Floor(x/y)*y },
	device.Fmod: func(x, y float64) float64 { return x - math.Trunc(x/y)*y },
	device.FloorDiv: func(x, y float64) float64 {
		if y == 0 {
			return x / y
		}
		return math.Floor(x / y) // these samples' quotients are far from integers or exact
	},
	device.LeakyRelu: func(x, s float64) float64 {
		if x > 0 {
			return x
		}
		return s * x
	},
	device.Elu: func(x, a float64) float64 {
		if x > 0 {
			return x
		}
		return a * (math.Exp(x) - 1)
	},
}

var binaryMethod = map[device.BinaryOp]func(a, b *tensor.Tensor) *tensor.Tensor{
	device.Add: (*tensor.Tensor).Add, device.Sub: (*tensor.Tensor).Sub, device.Mul: (*tensor.Tensor).Mul,
	device.Div: (*tensor.Tensor).Div, device.Pow: (*tensor.Tensor).Pow, device.Maximum: (*tensor.Tensor).Maximum,
	device.Minimum: (*tensor.Tensor).Minimum, device.Eq: (*tensor.Tensor).Eq, device.Ne: (*tensor.Tensor).Ne,
	device.Lt: (*tensor.Tensor).Lt, device.Le: (*tensor.Tensor).Le, device.Gt: (*tensor.Tensor).Gt,
	device.Ge: (*tensor.Tensor).Ge,
}

// binaryShapes are operand shape pairs, broadcasting included.
var binaryShapes = [][2][]int{
	{{}, {}}, {{5}, {5}}, {{3, 4}, {3, 4}}, {{3, 1, 5}, {4, 1}}, {{5}, {2, 3, 5}}, {{}, {2, 2}},
	{{2, 3}, {}}, {{0, 3}, {1, 3}}, {{2, 3, 4}, {2, 3, 4}},
}

func binaryCases() []confCase {
	var cases []confCase
	for _, op := range device.BinaryOps() {
		f := binaryRefOf(op)
		def, _ := op.Def()
		dts := dtypesOf(def.Accepts)
		lo, hi := -3.0, 3.0
		cl := exactClass
		switch op {
		case device.Pow: // integer powers: TestIntPow
			dts, lo, hi, cl = floats, 0.1, 3, transClass
		case device.Eq, device.Ne, device.And, device.Or, device.Xor:
			lo, hi = -1.5, 1.5 // small integers so equal pairs and zeros occur
		case device.Atan2:
			cl = transClass
		}
		if def.Param != "" { // a scalar parameter: binaryParamCases
			continue
		}
		for _, sp := range binaryShapes {
			for _, va := range []viewKind{contiguous, transposed, reversed, narrowed} {
				a := operand{shape: sp[0], view: va, lo: lo, hi: hi}
				b := operand{shape: sp[1], view: contiguous, lo: lo, hi: hi}
				if !va.fits(sp[0]) || (va != contiguous && numel(sp[0]) == 0) {
					continue
				}
				if va == transposed && b.view.fits(sp[1]) && len(sp[1]) >= 2 {
					b.view = narrowed
				}
				var outDT func(dtype.DType) dtype.DType
				if op.IsComparison() {
					outDT = func(dtype.DType) dtype.DType { return dtype.Bool }
				}
				if op == device.Div { // true division: integers give F32
					outDT = func(dt dtype.DType) dtype.DType {
						if dt.IsFloat() {
							return dt
						}
						return dtype.F32
					}
				}
				cases = append(cases, confCase{
					name: op.String(), dtypes: dts, ins: []operand{a, b}, class: cl, outDT: outDT,
					run: func(ts []*tensor.Tensor) *tensor.Tensor { return binaryMethodOf(op)(ts[0], ts[1]) },
					ref: func(xs []*nd, dt dtype.DType) *nd {
						return zip(xs[0], xs[1], func(x, y float64) float64 {
							if dt.IsInt() {
								x, y = x+0, y+0 // an integer zero is +0 when cast for true division
							}
							if dt.IsInt() && (op == device.Mod || op == device.Fmod || op == device.FloorDiv) && y == 0 {
								return 0 // NumPy's integer remainder by zero
							}
							v := f(x, y)
							if dt.IsInt() && !op.IsComparison() && op != device.Div {
								return wrapInt(dt, v)
							}
							return v
						})
					},
				})
			}
		}
	}
	return cases
}

// binaryParamCases are the operations applied with a scalar parameter
// (LeakyRelu's slope, Elu's alpha), one value each.
func binaryParamCases() []confCase {
	var cases []confCase
	for _, op := range device.BinaryOps() {
		def, _ := op.Def()
		if def.Param == "" {
			continue
		}
		f := binaryRefOf(op)
		cl := transClass
		if op == device.LeakyRelu {
			cl = exactClass
		}
		for _, p := range []float64{0.25, 1.5} {
			for _, ins := range operandsFor(unaryShapes, -3, 3) {
				cases = append(cases, confCase{
					name: fmt.Sprintf("%s(%v)", op, p), dtypes: dtypesOf(def.Accepts), ins: ins, class: cl,
					run: func(ts []*tensor.Tensor) *tensor.Tensor {
						return reflect.ValueOf(ts[0]).MethodByName(def.MethodName()).Call([]reflect.Value{reflect.ValueOf(p)})[0].Interface().(*tensor.Tensor)
					},
					ref: func(xs []*nd, dt dtype.DType) *nd {
						return xs[0].mapf(func(v float64) float64 { return f(v, p) })
					},
				})
			}
		}
	}
	return cases
}

func TestConformanceUnary(t *testing.T)  { runTable(t, unaryCases()) }
func TestConformanceBinary(t *testing.T) { runTable(t, append(binaryCases(), binaryParamCases()...)) }

func TestConformanceScalarAndWhere(t *testing.T) {
	var cases []confCase
	scalar := []struct {
		name string
		run  func(*tensor.Tensor) *tensor.Tensor
		f    func(float64) float64
		cmp  bool
	}{
		{"AddScalar", func(x *tensor.Tensor) *tensor.Tensor { return x.AddScalar(2) }, func(v float64) float64 { return v + 2 }, false},
		{"SubScalar", func(x *tensor.Tensor) *tensor.Tensor { return x.SubScalar(1) }, func(v float64) float64 { return v - 1 }, false},
		{"MulScalar", func(x *tensor.Tensor) *tensor.Tensor { return x.MulScalar(3) }, func(v float64) float64 { return v * 3 }, false},
		{"DivScalar", func(x *tensor.Tensor) *tensor.Tensor { return x.DivScalar(4) }, func(v float64) float64 { return v / 4 }, false},
		{"MaximumScalar", func(x *tensor.Tensor) *tensor.Tensor { return x.MaximumScalar(0.5) }, func(v float64) float64 { return max(v, 0.5) }, false},
		{"MinimumScalar", func(x *tensor.Tensor) *tensor.Tensor { return x.MinimumScalar(0.5) }, func(v float64) float64 { return min(v, 0.5) }, false},
		{"Clamp", func(x *tensor.Tensor) *tensor.Tensor { return x.Clamp(-1, 1) }, func(v float64) float64 { return max(-1, min(v, 1)) }, false},
		{"GtScalar", func(x *tensor.Tensor) *tensor.Tensor { return x.GtScalar(0.25) }, func(v float64) float64 { return b2f(v > 0.25) }, true},
		{"LeScalar", func(x *tensor.Tensor) *tensor.Tensor { return x.LeScalar(0.25) }, func(v float64) float64 { return b2f(v <= 0.25) }, true},
		{"EqScalar", func(x *tensor.Tensor) *tensor.Tensor { return x.EqScalar(1) }, func(v float64) float64 { return b2f(v == 1) }, true},
		{"PowScalar", func(x *tensor.Tensor) *tensor.Tensor { return x.PowScalar(2) }, func(v float64) float64 { return v * v }, false},
	}
	for _, s := range scalar {
		for _, ins := range operandsFor([][]int{{}, {6}, {3, 4}}, -3, 3) {
			var outDT func(dtype.DType) dtype.DType
			if s.cmp {
				outDT = func(dtype.DType) dtype.DType { return dtype.Bool }
			}
			cases = append(cases, confCase{
				name: s.name, dtypes: floats, ins: ins, class: exactClass, outDT: outDT,
				run: func(ts []*tensor.Tensor) *tensor.Tensor { return s.run(ts[0]) },
				ref: func(xs []*nd, dt dtype.DType) *nd {
					// The scalar is first rounded to the dtype, as the device sees it.
					return xs[0].mapf(s.f)
				},
			})
		}
	}
	for _, sp := range [][3][]int{{{3, 4}, {3, 4}, {3, 4}}, {{4}, {3, 4}, {}}, {{3, 1}, {1, 4}, {3, 4}}} {
		cases = append(cases, confCase{
			name: "Where", dtypes: append(slices.Clone(numeric), dtype.Bool),
			ins: []operand{{shape: sp[0], lo: -1, hi: 1}, {shape: sp[1], lo: -3, hi: 3}, {shape: sp[2], view: offset, lo: -3, hi: 3}},
			run: func(ts []*tensor.Tensor) *tensor.Tensor {
				c := ts[0].GtScalar(0)
				if ts[0].DType() == dtype.Bool {
					c = ts[0]
				}
				return tensor.Where(c, ts[1], ts[2])
			},
			ref: func(xs []*nd, dt dtype.DType) *nd {
				return zip3(xs[0], xs[1], xs[2], func(c, x, y float64) float64 {
					if c > 0 {
						return x
					}
					return y
				})
			},
		})
	}
	runTable(t, cases)
}

// reduceAxes are the axis sets tried per rank.
var reduceAxes = map[int][][]int{
	0: {nil},
	1: {nil, {0}, {-1}},
	2: {nil, {0}, {1}, {0, 1}},
	3: {nil, {0}, {1}, {2}, {0, 2}, {-1, 0}},
}

func TestConformanceReduce(t *testing.T) {
	type red struct {
		name string
		run  func(x *tensor.Tensor, keep bool, axes []int) *tensor.Tensor
		f    func([]float64) float64
		dts  []dtype.DType
	}
	m := func(plain, keep func(*tensor.Tensor, ...int) *tensor.Tensor) func(*tensor.Tensor, bool, []int) *tensor.Tensor {
		return func(x *tensor.Tensor, k bool, axes []int) *tensor.Tensor {
			if k {
				return keep(x, axes...)
			}
			return plain(x, axes...)
		}
	}
	reds := []red{
		{"Sum", m((*tensor.Tensor).Sum, (*tensor.Tensor).SumKeepDims), refSum, numeric},
		{"Mean", m((*tensor.Tensor).Mean, (*tensor.Tensor).MeanKeepDims), func(v []float64) float64 { return refSum(v) / float64(len(v)) }, floats},
		{"Prod", m((*tensor.Tensor).Prod, (*tensor.Tensor).ProdKeepDims), refProd, numeric},
		{"Max", m((*tensor.Tensor).Max, (*tensor.Tensor).MaxKeepDims), refMax, numeric},
		{"Min", m((*tensor.Tensor).Min, (*tensor.Tensor).MinKeepDims), refMin, numeric},
	}
	var cases []confCase
	for _, r := range reds {
		lo, hi := -3.0, 3.0
		if r.name == "Prod" {
			lo, hi = 0.5, 1.5
		}
		for _, ins := range operandsFor([][]int{{}, {7}, {3, 4}, {2, 3, 5}, {3, 0}}, lo, hi) {
			for _, axes := range reduceAxes[len(ins[0].shape)] {
				if r.name != "Sum" && r.name != "Prod" && emptyReduction(ins[0].shape, axes) {
					continue // an error, tested in errors_test.go
				}
				// Integer Sum and Prod are I64 (NumPy and PyTorch).
				var outDT func(dtype.DType) dtype.DType
				if r.name == "Sum" || r.name == "Prod" {
					outDT = func(dt dtype.DType) dtype.DType {
						if dt.IsInt() {
							return dtype.I64
						}
						return dt
					}
				}
				for _, keep := range []bool{false, true} {
					name := fmt.Sprintf("%s%v", r.name, axes)
					if keep {
						name += "keep"
					}
					cases = append(cases, confCase{
						name: name, dtypes: r.dts, ins: ins, class: reduceClass, outDT: outDT,
						run: func(ts []*tensor.Tensor) *tensor.Tensor { return r.run(ts[0], keep, axes) },
						ref: func(xs []*nd, dt dtype.DType) *nd {
							ax := normalise(axes, len(xs[0].shape))
							// Integer sums and products of values in [-3, 3] are exact
							// in float64 and within I64: no wrapping to model.
							return reduceND(xs[0], ax, keep, r.f)
						},
					})
				}
			}
		}
	}
	for _, name := range []string{"ArgMax", "ArgMin"} {
		better := func(x, b float64) bool { return x > b }
		run := (*tensor.Tensor).ArgMax
		if name == "ArgMin" {
			better = func(x, b float64) bool { return x < b }
			run = (*tensor.Tensor).ArgMin
		}
		for _, ins := range operandsFor([][]int{{7}, {3, 4}, {2, 3, 5}}, -2, 2) {
			for axis := range len(ins[0].shape) {
				cases = append(cases, confCase{
					name: fmt.Sprintf("%s[%d]", name, axis), dtypes: numeric, ins: ins, class: exactClass,
					outDT: func(dtype.DType) dtype.DType { return dtype.I64 },
					run:   func(ts []*tensor.Tensor) *tensor.Tensor { return run(ts[0], axis) },
					ref: func(xs []*nd, dt dtype.DType) *nd {
						return reduceND(xs[0], []int{axis}, false, refArg(better))
					},
				})
			}
		}
	}
	runTable(t, cases)
}

func normalise(axes []int, rank int) []int {
	if len(axes) == 0 {
		out := make([]int, rank)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, len(axes))
	for i, a := range axes {
		if a < 0 {
			a += rank
		}
		out[i] = a
	}
	slices.Sort(out)
	return out
}

func TestConformanceSoftmax(t *testing.T) {
	var cases []confCase
	for _, ins := range operandsFor([][]int{{5}, {3, 4}, {2, 3, 4}}, -50, 50) {
		for axis := range len(ins[0].shape) {
			for _, log := range []bool{false, true} {
				name := "Softmax"
				if log {
					name = "LogSoftmax"
				}
				cases = append(cases, confCase{
					name: fmt.Sprintf("%s[%d]", name, axis), dtypes: floats, ins: ins, class: reduceClass,
					run: func(ts []*tensor.Tensor) *tensor.Tensor {
						if log {
							return ts[0].LogSoftmax(axis)
						}
						return ts[0].Softmax(axis)
					},
					ref: func(xs []*nd, dt dtype.DType) *nd { return refSoftmax(xs[0], axis, log) },
				})
			}
			cases = append(cases, confCase{
				name: fmt.Sprintf("LogSumExp[%d]", axis), dtypes: floats, ins: ins, class: reduceClass,
				run: func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].LogSumExp(axis) },
				ref: func(xs []*nd, dt dtype.DType) *nd {
					return reduceND(xs[0], []int{axis}, false, func(v []float64) float64 {
						m := refMax(v)
						s := 0.0
						for _, x := range v {
							s += math.Exp(x - m)
						}
						return m + math.Log(s)
					})
				},
			})
		}
	}
	runTable(t, cases)
}

func TestConformanceMatmul(t *testing.T) {
	pairs := [][2][]int{
		{{3, 4}, {4, 5}}, {{1, 1}, {1, 1}}, {{4}, {4, 3}}, {{3, 4}, {4}}, {{4}, {4}},
		{{2, 3, 4}, {4, 5}}, {{2, 1, 3, 4}, {3, 4, 2}}, {{0, 3}, {3, 2}}, {{3, 0}, {0, 2}},
		{{17, 33}, {33, 9}}, {{2, 5, 6}, {2, 6, 3}},
	}
	var cases []confCase
	for _, p := range pairs {
		for _, va := range []viewKind{contiguous, transposed, narrowed} {
			for _, vb := range []viewKind{contiguous, transposed, narrowed, broadcast} {
				a := operand{shape: p[0], view: va, lo: -2, hi: 2}
				b := operand{shape: p[1], view: vb, lo: -2, hi: 2}
				if !va.fits(p[0]) || !vb.fits(p[1]) || (va != contiguous && numel(p[0]) == 0) || (vb != contiguous && numel(p[1]) == 0) {
					continue
				}
				cases = append(cases, confCase{
					name: "Matmul", dtypes: []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16, dtype.I32, dtype.I64},
					ins: []operand{a, b}, class: matmulClass,
					run: func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].Matmul(ts[1]) },
					ref: func(xs []*nd, dt dtype.DType) *nd { return refMatmul(xs[0], xs[1]) },
				})
			}
		}
	}
	cases = append(cases, confCase{
		name: "Outer", dtypes: numeric, ins: []operand{{shape: []int{3}, lo: -2, hi: 2}, {shape: []int{4}, view: reversed, lo: -2, hi: 2}},
		run: func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].Outer(ts[1]) },
		ref: func(xs []*nd, dt dtype.DType) *nd {
			a := &nd{shape: []int{3, 1}, v: xs[0].v}
			return zip(a, xs[1], func(x, y float64) float64 { return wrapInt(dt, x*y) })
		},
	}, confCase{
		name: "Tensordot", dtypes: []dtype.DType{dtype.F32, dtype.F64}, class: matmulClass,
		ins: []operand{{shape: []int{2, 3, 4}, view: transposed, lo: -2, hi: 2}, {shape: []int{4, 3, 5}, lo: -2, hi: 2}},
		run: func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].Tensordot(ts[1], []int{1, 2}, []int{1, 0}) },
		ref: func(xs []*nd, dt dtype.DType) *nd {
			a := refPermute(xs[0], []int{0, 1, 2})
			b := refPermute(xs[1], []int{1, 0, 2}) // [3,4,5]
			return refMatmul(&nd{shape: []int{2, 12}, v: a.v}, &nd{shape: []int{12, 5}, v: b.v})
		},
	})
	runTable(t, cases)
}

func TestConformanceCopyJoin(t *testing.T) {
	var cases []confCase
	all := append(slices.Clone(numeric), dtype.Bool)
	for _, to := range all {
		for _, ins := range operandsFor([][]int{{}, {5}, {3, 4}}, -300, 300) {
			cases = append(cases, confCase{
				name: "Cast->" + to.String(), dtypes: all, ins: ins, class: exactClass,
				outDT: func(dtype.DType) dtype.DType { return to },
				run:   func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].Cast(to) },
				ref: func(xs []*nd, from dtype.DType) *nd {
					return xs[0].mapf(func(v float64) float64 { return castRef(v, from, to) })
				},
			})
		}
	}
	for _, ins := range operandsFor([][]int{{3, 4}, {2, 3, 4}}, -3, 3) {
		cases = append(cases, confCase{
			name: "Contiguous", dtypes: all, ins: ins,
			run: func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].Contiguous() },
			ref: func(xs []*nd, dt dtype.DType) *nd { return xs[0] },
		}, confCase{
			name: "Reshape", dtypes: all, ins: ins,
			run: func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].Reshape(-1) },
			ref: func(xs []*nd, dt dtype.DType) *nd { return &nd{shape: []int{len(xs[0].v)}, v: xs[0].v} },
		}, confCase{
			name: "Permute", dtypes: all, ins: ins,
			run: func(ts []*tensor.Tensor) *tensor.Tensor {
				if ts[0].Rank() == 2 {
					return ts[0].Permute(1, 0).Contiguous()
				}
				return ts[0].Permute(2, 0, 1).Contiguous()
			},
			ref: func(xs []*nd, dt dtype.DType) *nd {
				if len(xs[0].shape) == 2 {
					return refPermute(xs[0], []int{1, 0})
				}
				return refPermute(xs[0], []int{2, 0, 1})
			},
		})
	}
	concatIns := []operand{{shape: []int{2, 3}, lo: -3, hi: 3}, {shape: []int{4, 3}, view: transposed, lo: -3, hi: 3}, {shape: []int{1, 3}, view: narrowed, lo: -3, hi: 3}}
	cases = append(cases, confCase{
		name: "Concat", dtypes: all, ins: concatIns,
		run: func(ts []*tensor.Tensor) *tensor.Tensor { return tensor.Concat(ts, 0) },
		ref: func(xs []*nd, dt dtype.DType) *nd { return refConcat(xs, 0) },
	}, confCase{
		name: "Stack", dtypes: all,
		ins: []operand{{shape: []int{2, 3}, lo: -3, hi: 3}, {shape: []int{2, 3}, view: reversed, lo: -3, hi: 3}},
		run: func(ts []*tensor.Tensor) *tensor.Tensor { return tensor.Stack(ts, 1) },
		ref: func(xs []*nd, dt dtype.DType) *nd {
			a := &nd{shape: []int{2, 1, 3}, v: xs[0].v}
			b := &nd{shape: []int{2, 1, 3}, v: xs[1].v}
			return refConcat([]*nd{a, b}, 1)
		},
	}, confCase{
		name: "IndexSelect", dtypes: all, ins: []operand{{shape: []int{4, 3}, view: transposed, lo: -3, hi: 3}},
		run: func(ts []*tensor.Tensor) *tensor.Tensor {
			return ts[0].IndexSelect(0, tensor.FromSlice([]int64{3, 0, 1, 2, 3}))
		},
		ref: func(xs []*nd, dt dtype.DType) *nd {
			rows := []*nd{}
			for _, i := range []int{3, 0, 1, 2, 3} {
				rows = append(rows, &nd{shape: []int{1, 3}, v: xs[0].v[i*3 : i*3+3]})
			}
			return refConcat(rows, 0)
		},
	})
	runTable(t, cases)
}

// castRef is Cast's documented conversion.
func castRef(v float64, from, to dtype.DType) float64 {
	switch to {
	case dtype.Bool:
		return b2f(v != 0)
	case dtype.F32, dtype.F64, dtype.F16, dtype.BF16:
		return roundTo(to, v)
	}
	lo, hi := map[dtype.DType][2]float64{dtype.I32: {math.MinInt32, math.MaxInt32}, dtype.I64: {math.MinInt64, math.MaxInt64}, dtype.U8: {0, 255}}[to][0],
		map[dtype.DType][2]float64{dtype.I32: {math.MinInt32, math.MaxInt32}, dtype.I64: {math.MinInt64, math.MaxInt64}, dtype.U8: {0, 255}}[to][1]
	if from.IsFloat() {
		if math.IsNaN(v) {
			return 0
		}
		return max(lo, min(hi, math.Trunc(v)))
	}
	return wrapInt(to, v)
}

func TestConformanceSpecialValues(t *testing.T) {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 0.5, -2.5, 100, -100}
	for _, dev := range testDevices(t) {
		for _, dt := range floats {
			if !supports(dev, dt) {
				continue
			}
			x := tensor.FromSlice(specials).Cast(dt).To(dev)
			ref := &nd{shape: []int{len(specials)}, v: make([]float64, len(specials))}
			for i, v := range specials {
				ref.v[i] = roundTo(dt, v)
			}
			for _, op := range device.UnaryOps() {
				t.Run(fmt.Sprintf("%s/%v/%v", dev.Name(), op, dt), func(t *testing.T) {
					want := ref.mapf(unaryRefOf(op))
					if op == device.Sign {
						want = ref.mapf(func(v float64) float64 {
							if math.IsNaN(v) || v == 0 {
								return v
							}
							return math.Copysign(1, v)
						})
					}
					out := dt
					if op.IsPredicate() {
						out = dtype.Bool
					}
					check(t, unaryMethodOf(op)(x), want, out, tolerance(dt, transClass))
				})
			}
			t.Run(fmt.Sprintf("%s/reduce/%v", dev.Name(), dt), func(t *testing.T) {
				check(t, x.Max(), &nd{shape: []int{}, v: []float64{math.NaN()}}, dt, tol{})
				check(t, x.Sum(), &nd{shape: []int{}, v: []float64{math.NaN()}}, dt, tol{})
				check(t, x.ArgMax(0), &nd{shape: []int{}, v: []float64{0}}, dtype.I64, tol{})
				inf := tensor.FromSlice([]float64{math.Inf(-1), math.Inf(-1), 1}).Cast(dt).To(dev)
				check(t, inf.Softmax(0), &nd{shape: []int{3}, v: []float64{0, 0, 1}}, dt, tol{})
				check(t, inf.Narrow(0, 0, 2).LogSumExp(0), &nd{shape: []int{}, v: []float64{math.Inf(-1)}}, dt, tol{})
			})
		}
	}
}

// emptyReduction reports whether reducing axes of shape folds an empty
// extent into a non-empty output.
func emptyReduction(shape []int, axes []int) bool {
	ax := normalise(axes, len(shape))
	count, out := 1, 1
	for i, d := range shape {
		if slices.Contains(ax, i) {
			count *= d
		} else {
			out *= d
		}
	}
	return count == 0 && out > 0
}
