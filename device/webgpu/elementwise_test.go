//go:build cgo

package webgpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// unaryRef is the float64 reference of each unary op, with the limits the
// kernels are specified to return at infinities.
func unaryRef(op device.UnaryOp, x float64) float64 {
	switch op {
	case device.Neg:
		return -x
	case device.Abs:
		return math.Abs(x)
	case device.Sign:
		if math.IsNaN(x) || x == 0 {
			return x
		}
		if x > 0 {
			return 1
		}
		return -1
	case device.Square:
		return x * x
	case device.Relu:
		if x < 0 {
			return 0
		}
		return x
	case device.Exp:
		return math.Exp(x)
	case device.Log:
		return math.Log(x)
	case device.Sqrt:
		return math.Sqrt(x)
	case device.Rsqrt:
		return 1 / math.Sqrt(x)
	case device.Sin:
		return math.Sin(x)
	case device.Cos:
		return math.Cos(x)
	case device.Tanh:
		return math.Tanh(x)
	case device.Sigmoid:
		return 1 / (1 + math.Exp(-x))
	case device.GeluTanh:
		if math.IsInf(x, -1) {
			return 0
		}
		u := math.Sqrt(2/math.Pi) * (x + 0.044715*x*x*x)
		if math.IsInf(u, 0) {
			if u > 0 {
				return x
			}
			return 0
		}
		return x / (1 + math.Exp(-2*u)) // = 0.5x(1+tanh u), without cancellation
	case device.GeluErf:
		if math.IsInf(x, -1) {
			return 0
		}
		return 0.5 * x * math.Erfc(-x/math.Sqrt2)
	case device.Erf:
		return math.Erf(x)
	case device.Log1p:
		return math.Log1p(x)
	case device.Expm1:
		return math.Expm1(x)
	case device.Floor:
		return math.Floor(x)
	case device.Ceil:
		return math.Ceil(x)
	case device.Round:
		return math.RoundToEven(x)
	case device.Reciprocal:
		return 1 / x
	case device.IsNaN, device.IsInf, device.IsFinite, device.Not:
		b := map[device.UnaryOp]bool{device.IsNaN: math.IsNaN(x), device.IsInf: math.IsInf(x, 0),
			device.IsFinite: !math.IsNaN(x) && !math.IsInf(x, 0), device.Not: x == 0}[op]
		if b {
			return 1
		}
		return 0
	}
	// An op this file does not know: its descriptor's own reference.
	def, _ := op.Def()
	return def.F64(x)
}

// unaryIntRef is the reference for integer dtypes, wrapping like the GPU.
func unaryIntRef(op device.UnaryOp, dt dtype.DType, x float64) float64 {
	if dt == dtype.U8 {
		v := uint8(x)
		switch op {
		case device.Neg:
			return float64(-v)
		case device.Abs, device.Relu:
			return float64(v)
		case device.Sign:
			if v != 0 {
				return 1
			}
			return 0
		case device.Square:
			return float64(v * v)
		}
	}
	v := int32(x)
	switch op {
	case device.Neg:
		return float64(-v)
	case device.Abs:
		if v < 0 {
			return float64(-v)
		}
		return float64(v)
	case device.Sign:
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0
	case device.Square:
		return float64(v * v)
	case device.Relu:
		return float64(max(v, 0))
	}
	panic("no int reference for " + op.String())
}

// unaryTol is the stated f32 tolerance (relative, absolute) of each op on
// the software adapter; exact ops get 1e-6, transcendentals what WGSL's
// builtins and the backend's own formulas guarantee.
func unaryTol(op device.UnaryOp) (float64, float64) {
	switch op {
	case device.Neg, device.Abs, device.Sign, device.Square, device.Relu, device.Floor, device.Ceil, device.Round:
		return 0, 0
	case device.Sqrt, device.Reciprocal, device.Rsqrt:
		return 1e-6, 0
	case device.Not, device.IsNaN, device.IsInf, device.IsFinite:
		return 0, 0
	case device.Sin, device.Cos:
		return 1e-5, 2e-6
	case device.Exp, device.Log, device.Log1p, device.Expm1:
		return 4e-6, 1e-30
	}
	return 1e-5, 1e-6 // Tanh, Sigmoid, Gelu, Erf
}

// unaryInputs are the f32 inputs of op: a random sweep of its useful
// domain plus special values.
func unaryInputs(r *rand.Rand, op device.UnaryOp) []float64 {
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-3, -1e-3, 1e-6, -1e-6, 1e-20,
		1.0001, 0.9999, 1.001, 0.999, 1 + 0x1p-23, 1 - 0x1p-24, 0.75, 1.25,
		math.NaN(), math.Inf(1), math.Inf(-1), 3, -3, 10, -10, 88, -88, 100, -100, 1e30, -1e30}
	lo, hi := -10.0, 10.0
	switch op {
	case device.Log, device.Sqrt, device.Rsqrt:
		lo, hi = 1e-6, 1000
	case device.Log1p:
		lo, hi = -0.999, 10
	case device.Exp, device.Expm1:
		lo, hi = -80, 80
	}
	out := append([]float64(nil), special...)
	for range 300 {
		out = append(out, float64(float32(lo+(hi-lo)*r.Float64())))
	}
	for range 100 { // near zero
		out = append(out, float64(float32((r.Float64()-0.5)*1e-2)))
	}
	if op == device.Sin || op == device.Cos || op == device.Tan {
		// Keep range reduction in the domain the tolerance covers.
		kept := out[:0]
		for _, v := range out {
			if math.Abs(v) <= 100 || math.IsInf(v, 0) || math.IsNaN(v) {
				kept = append(kept, v)
			}
		}
		out = kept
	}
	return out
}

func TestUnaryFloat(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, op := range device.UnaryOps() {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F16} {
			in := unaryInputs(r, op)
			for i := range in {
				in[i] = roundTo(dt, in[i])
			}
			src := upload(t, g, dt, in)
			odt, _ := op.Result("test", dt)
			dst := alloc(t, g, odt, len(in))
			l := contig(len(in))
			if err := g.Unary(op, op2(dst, l), op2(src, l)); err != nil {
				t.Fatalf("%s %s: %v", op, dt, err)
			}
			got := download(t, g, dst)
			want := make([]float64, len(in))
			for i, x := range in {
				want[i] = roundTo(odt, unaryRef(op, x))
			}
			rel, abs := unaryTol(op)
			if dt == dtype.F16 {
				rel, abs = max(rel, 1e-3), max(abs, 6e-8)
			}
			checkClose(t, op.String()+" "+dt.String(), got, want, rel, abs)
		}
	}
}

func op2(b device.Buffer, l layout.Layout) device.Operand { return op(b, l) }

func TestUnaryInt(t *testing.T) {
	g := dev(t)
	in := map[dtype.DType][]float64{
		dtype.I32: {0, 1, -1, 7, -7, 46341, -46341, math.MaxInt32, math.MinInt32, 100000},
		dtype.U8:  {0, 1, 2, 15, 16, 17, 128, 200, 255},
	}
	for _, dt := range []dtype.DType{dtype.I32, dtype.U8} {
		for _, op := range []device.UnaryOp{device.Neg, device.Abs, device.Sign, device.Square, device.Relu} {
			src := upload(t, g, dt, in[dt])
			n := len(in[dt])
			dst := alloc(t, g, dt, n)
			if err := g.Unary(op, op2(dst, contig(n)), op2(src, contig(n))); err != nil {
				t.Fatalf("%s %s: %v", op, dt, err)
			}
			want := make([]float64, n)
			for i, x := range in[dt] {
				want[i] = unaryIntRef(op, dt, x)
			}
			checkClose(t, op.String()+" "+dt.String(), download(t, g, dst), want, 0, 0)
		}
		dst := alloc(t, g, dt, 4)
		src := alloc(t, g, dt, 4)
		wantKind(t, "Exp of "+dt.String(), g.Unary(device.Exp, op2(dst, contig(4)), op2(src, contig(4))), errs.ErrDType)
	}
	b := alloc(t, g, dtype.Bool, 4)
	b2 := alloc(t, g, dtype.Bool, 4)
	wantKind(t, "Neg of bool", g.Unary(device.Neg, op2(b, contig(4)), op2(b2, contig(4))), errs.ErrDType)
	f := alloc(t, g, dtype.F32, 4)
	wantKind(t, "dtype mismatch", g.Unary(device.Neg, op2(f, contig(4)), op2(b2, contig(4))), errs.ErrDType)
	wantKind(t, "shape mismatch", g.Unary(device.Neg, op2(f, contig(4)), op2(alloc(t, g, dtype.F32, 4), contig(2, 2))), errs.ErrShape)
	wantKind(t, "bad op", g.Unary(device.UnaryOp(200), op2(f, contig(4)), op2(alloc(t, g, dtype.F32, 4), contig(4))), errs.ErrUnsupported)
}

func TestUnaryViews(t *testing.T) {
	g := dev(t)
	for _, vc := range views() {
		vals := make([]float64, vc.n)
		for i := range vals {
			vals[i] = float64(i%17) - 8.5
		}
		src := upload(t, g, dtype.F32, vals)
		n := vc.l.Numel()
		// Write through a transposed destination when rank 2.
		dl := contig(vc.l.Shape...)
		dstN := n
		if len(vc.l.Shape) == 2 {
			tr, _ := contig(vc.l.Shape[1], vc.l.Shape[0]).Transpose(0, 1)
			dl = tr
		}
		dst := alloc(t, g, dtype.F32, dstN)
		if err := g.Unary(device.Square, op2(dst, dl), op2(src, vc.l)); err != nil {
			t.Fatalf("%s: %v", vc.name, err)
		}
		got := gather(download(t, g, dst), dl)
		want := gather(vals, vc.l)
		for i := range want {
			want[i] *= want[i]
		}
		checkClose(t, "Square "+vc.name, got, want, 0, 0)
	}
}

func binaryRef(op device.BinaryOp, dt dtype.DType, a, b float64) float64 {
	b2f := func(c bool) float64 {
		if c {
			return 1
		}
		return 0
	}
	switch op {
	case device.Eq:
		return b2f(a == b)
	case device.Ne:
		return b2f(a != b)
	case device.Lt:
		return b2f(a < b)
	case device.Le:
		return b2f(a <= b)
	case device.Gt:
		return b2f(a > b)
	case device.Ge:
		return b2f(a >= b)
	}
	if dt.IsFloat() {
		var r float64
		switch op {
		case device.Add:
			r = a + b
		case device.Sub:
			r = a - b
		case device.Mul:
			r = a * b
		case device.Div:
			r = a / b
		case device.Pow:
			r = math.Pow(a, b)
		case device.Maximum, device.Minimum:
			switch {
			case math.IsNaN(a) || math.IsNaN(b):
				r = math.NaN()
			case op == device.Maximum:
				r = math.Max(a, b)
			default:
				r = math.Min(a, b)
			}
		default: // an op this file does not know: its descriptor's reference
			def, _ := op.Def()
			r = def.F64(a, b)
		}
		return roundTo(dt, float64(float32(r)))
	}
	if dt == dtype.U8 || dt == dtype.Bool {
		x, y := uint8(a), uint8(b)
		switch op {
		case device.Add:
			return float64(x + y)
		case device.Sub:
			return float64(x - y)
		case device.Mul:
			return float64(x * y)
		case device.Div:
			if y == 0 {
				return float64(x)
			}
			return float64(x / y)
		case device.Maximum:
			return float64(max(x, y))
		case device.Minimum:
			return float64(min(x, y))
		}
		def, _ := op.Def()
		return float64(uint8(def.Int(int64(x), int64(y))))
	}
	x, y := int32(a), int32(b)
	switch op {
	case device.Add:
		return float64(x + y)
	case device.Sub:
		return float64(x - y)
	case device.Mul:
		return float64(x * y)
	case device.Div:
		if y == 0 || (x == math.MinInt32 && y == -1) {
			return float64(x)
		}
		return float64(x / y)
	case device.Maximum:
		return float64(max(x, y))
	case device.Minimum:
		return float64(min(x, y))
	}
	// An op this file does not know: its descriptor's own reference.
	def, _ := op.Def()
	return float64(int32(def.Int(int64(x), int64(y))))
}

// binaryPairs returns operand pairs covering signs, zeros, NaN and
// infinities (floats) or wrap-around and division by zero (integers).
func binaryPairs(r *rand.Rand, dt dtype.DType) (as, bs []float64) {
	var pool []float64
	switch dt {
	case dtype.F32, dtype.F16:
		pool = []float64{0, math.Copysign(0, -1), 1, -1, 2, -2, 0.5, 3, -3, 2.5, 10, math.NaN(), math.Inf(1), math.Inf(-1), 1e-3}
	case dtype.I32:
		pool = []float64{0, 1, -1, 2, -2, 7, -7, 65536, math.MaxInt32, math.MinInt32}
	case dtype.U8:
		pool = []float64{0, 1, 2, 7, 16, 128, 200, 255}
	case dtype.Bool:
		pool = []float64{0, 1}
	}
	for i := range pool {
		pool[i] = roundTo(dt, pool[i])
	}
	for _, a := range pool {
		for _, b := range pool {
			as, bs = append(as, a), append(bs, b)
		}
	}
	for range 200 {
		a := randVals(r, dt, 1, -50, 50)[0]
		b := randVals(r, dt, 1, -50, 50)[0]
		as, bs = append(as, a), append(bs, b)
	}
	return as, bs
}

func TestBinary(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16, dtype.I32, dtype.U8, dtype.Bool} {
		as, bs := binaryPairs(r, dt)
		n := len(as)
		a := upload(t, g, dt, as)
		b := upload(t, g, dt, bs)
		for _, op := range device.BinaryOps() {
			odt := dt
			if op.IsComparison() {
				odt = dtype.Bool
			}
			dst := alloc(t, g, odt, n)
			l := contig(n)
			err := g.Binary(op, op2(dst, l), op2(a, l), op2(b, l))
			if def, _ := op.Def(); !def.Accepts.Has(dt) {
				wantKind(t, op.String()+" "+dt.String(), err, errs.ErrDType)
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", op, dt, err)
			}
			want := make([]float64, n)
			for i := range want {
				want[i] = binaryRef(op, dt, as[i], bs[i])
			}
			got := download(t, g, dst)
			if op == device.Pow && dt.IsFloat() {
				// Pow is exp2(y*log2(x)): the rounding of the f32 product
				// y*log2(x) scales the relative error by its magnitude, so
				// the stated f32 tolerance is 1e-6 + 1e-7*|y*log2|x||.
				for i := range want {
					e := math.Abs(bs[i] * math.Log2(math.Abs(as[i])))
					if math.IsNaN(e) || math.IsInf(e, 0) {
						e = 0
					}
					rel := 1e-6 + 1e-7*e
					if dt == dtype.F16 {
						rel = 1e-3
					}
					// Results below the smallest normal f32 may flush to zero (WGSL
					// allows it; lavapipe does).
					checkClose(t, "Pow "+dt.String(), got[i:i+1], want[i:i+1], rel, 0x1p-126)
				}
				continue
			}
			rel := 0.0
			switch {
			case op == device.Div && dt == dtype.F32:
				rel = 3e-7 // WGSL allows 2.5 ulp for f32 division
			case (op == device.Atan2 || op == device.Elu) && dt == dtype.F32:
				rel = 1e-6 // m_atan's and m_expm1's few ulp
			case (op == device.Atan2 || op == device.Elu) && dt == dtype.F16:
				rel = 1e-3
			}
			checkClose(t, op.String()+" "+dt.String(), got, want, rel, 0)
		}
	}
}

func TestBinaryBroadcastViews(t *testing.T) {
	g := dev(t)
	// a: [3,1] column broadcast to [3,4]; b: a reversed row broadcast to
	// [3,4]; dst: a transposed view.
	av := []float64{1, 2, 3}
	bv := []float64{10, 20, 30, 40}
	a := upload(t, g, dtype.F32, av)
	b := upload(t, g, dtype.F32, bv)
	la, _ := contig(3, 1).BroadcastTo(3, 4)
	lb0, _ := contig(4).Slice(0, -1, -5, -1)
	lb, _ := lb0.BroadcastTo(3, 4)
	ld, _ := contig(4, 3).Transpose(0, 1)
	dst := alloc(t, g, dtype.F32, 12)
	if err := g.Binary(device.Sub, op2(dst, ld), op2(a, la), op2(b, lb)); err != nil {
		t.Fatal(err)
	}
	got := gather(download(t, g, dst), ld)
	var want []float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			want = append(want, av[i]-bv[3-j])
		}
	}
	checkClose(t, "broadcast sub", got, want, 0, 0)

	// Rank 0 operands.
	s := upload(t, g, dtype.F32, []float64{7})
	s2 := upload(t, g, dtype.F32, []float64{0, 5})
	d := alloc(t, g, dtype.F32, 1)
	l0 := layout.Layout{Shape: []int{}, Strides: []int{}}
	if err := g.Binary(device.Mul, op2(d, l0), op2(s, l0), op2(s2, layout.Layout{Shape: []int{}, Strides: []int{}, Offset: 1})); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "rank 0", download(t, g, d), []float64{35}, 0, 0)

	// Errors.
	wantKind(t, "dtype mix", g.Binary(device.Add, op2(d, l0), op2(s, l0), op2(upload(t, g, dtype.I32, []float64{1}), l0)), errs.ErrDType)
	wantKind(t, "cmp dst not bool", g.Binary(device.Lt, op2(d, l0), op2(s, l0), op2(s, l0)), errs.ErrDType)
	wantKind(t, "shape", g.Binary(device.Add, op2(dst, contig(12)), op2(a, contig(3)), op2(b, contig(4))), errs.ErrShape)
	wantKind(t, "alias", g.Binary(device.Add, op2(a, contig(3)), op2(a, contig(3)), op2(b, contig(3))), errs.ErrValue)
	wantKind(t, "i64 with i32", g.Binary(device.Add, op2(alloc(t, g, dtype.I64, 1), l0), op2(alloc(t, g, dtype.I64, 1), l0), op2(upload(t, g, dtype.I32, []float64{1}), l0)), errs.ErrDType)
}

func TestWhere(t *testing.T) {
	g := dev(t)
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16, dtype.I32, dtype.U8, dtype.Bool} {
		cv := []float64{1, 0, 1, 1, 0, 0}
		av := []float64{1, 2, 3, 4, 5, 6}
		bv := []float64{0, 1, 0, 0, 1, 1}
		if dt != dtype.Bool {
			bv = []float64{9, 8, 7}
		}
		c := upload(t, g, dtype.Bool, cv)
		a := upload(t, g, dt, av)
		b := upload(t, g, dt, bv)
		lb := contig(2, 3)
		if dt != dtype.Bool {
			lb, _ = contig(3).BroadcastTo(2, 3)
		}
		dst := alloc(t, g, dt, 6)
		if err := g.Where(op2(dst, contig(2, 3)), op2(c, contig(2, 3)), op2(a, contig(2, 3)), op2(b, lb)); err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		bb := gather(bv, lb)
		want := make([]float64, 6)
		for i := range want {
			if cv[i] != 0 {
				want[i] = roundTo(dt, av[i])
			} else {
				want[i] = roundTo(dt, bb[i])
			}
		}
		checkClose(t, "Where "+dt.String(), download(t, g, dst), want, 0, 0)
	}
	f := alloc(t, g, dtype.F32, 2)
	wantKind(t, "cond not bool", g.Where(op2(f, contig(2)), op2(alloc(t, g, dtype.F32, 2), contig(2)), op2(alloc(t, g, dtype.F32, 2), contig(2)), op2(alloc(t, g, dtype.F32, 2), contig(2))), errs.ErrDType)
}

// TestHighRankViews: elementwise kernels on views that keep 11 axes after
// merging (a narrowed, reversed [3]*11 tensor): the dispatches walk the
// axes beyond the kernels' 8.
func TestHighRankViews(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(19, 20))
	shape := make([]int, 11)
	perm := make([]int, 11)
	for i := range shape {
		shape[i], perm[i] = 3, 10-i
	}
	pl := contig(shape...)
	for i := range shape {
		pl, _ = pl.Narrow(i, 0, 2)
	}
	pl, _ = pl.Permute(perm...)
	n := pl.Numel()
	vals := randVals(r, dtype.F32, 177147, -5, 5)
	src := upload(t, g, dtype.F32, vals)
	x := gather(vals, pl)
	cl := contig(pl.Shape...)

	dst := alloc(t, g, dtype.F32, n)
	if err := g.Copy(op2(dst, cl), op2(src, pl)); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "copy rank 11", download(t, g, dst), x, 0, 0)

	if err := g.Unary(device.Neg, op2(dst, cl), op2(src, pl)); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, n)
	for i := range want {
		want[i] = -x[i]
	}
	checkClose(t, "neg rank 11", download(t, g, dst), want, 0, 0)

	ys := randVals(r, dtype.F32, n, -5, 5)
	y := upload(t, g, dtype.F32, ys)
	if err := g.Binary(device.Add, op2(dst, cl), op2(src, pl), op2(y, cl)); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i] = float64(float32(x[i] + ys[i]))
	}
	checkClose(t, "add rank 11", download(t, g, dst), want, 0, 0)

	// Scatter back through the view: write the strided side.
	big := alloc(t, g, dtype.F32, 177147)
	if err := g.Copy(op2(big, pl), op2(y, cl)); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "copy into rank 11 view", gather(download(t, g, big), pl), ys, 0, 0)
}
