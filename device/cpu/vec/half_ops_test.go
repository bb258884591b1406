package vec

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// halfBinaryOps are the one-pass half-precision operations with the
// float32 operation each must match and a scalar float32 reference for it
// (nil for Maximum and Minimum, whose result for +0 and -0 may be either).
var halfBinaryOps = []struct {
	name  string
	bf16  func(dst, a, b []dtype.BFloat16) error
	f16   func(dst, a, b []dtype.Float16) error
	f32   func(dst, a, b []float32) error
	exact func(a, b float32) float32
}{
	{"Add", AddHalf[dtype.BFloat16], AddHalf[dtype.Float16], Add[float32], func(a, b float32) float32 { return a + b }},
	{"Sub", SubHalf[dtype.BFloat16], SubHalf[dtype.Float16], Sub[float32], func(a, b float32) float32 { return a - b }},
	{"Mul", MulHalf[dtype.BFloat16], MulHalf[dtype.Float16], Mul[float32], func(a, b float32) float32 { return a * b }},
	{"Div", DivHalf[dtype.BFloat16], DivHalf[dtype.Float16], Div[float32], func(a, b float32) float32 { return a / b }},
	{"Maximum", MaximumHalf[dtype.BFloat16], MaximumHalf[dtype.Float16], Maximum[float32], nil},
	{"Minimum", MinimumHalf[dtype.BFloat16], MinimumHalf[dtype.Float16], Minimum[float32], nil},
}

// halfPairs returns operands covering every 16-bit pattern as a (NaNs of
// both kinds, infinities, zeros, subnormals) against b drawn from all
// patterns, from small integers (exact sums, ties when narrowed) and from
// a's own neighbours, so that sums round, cancel and overflow.
func halfPairs() (a, b []uint16) {
	rng := rand.New(rand.NewPCG(7, 13))
	for rep := range 3 {
		for v := range 1 << 16 {
			a = append(a, uint16(v))
			switch rep {
			case 0:
				b = append(b, uint16(rng.Uint32()))
			case 1:
				b = append(b, uint16(v)^uint16(rng.IntN(4)))
			default:
				b = append(b, []uint16{0x3f80, 0x4000, 0xbf80, 0x3c00, 0x8000, 0}[rng.IntN(6)])
			}
		}
	}
	return a, b
}

// TestBinaryHalf checks the one-pass operations on every tier: bit for
// bit against Widen, the float32 operation and Narrow on the same tier
// (each checked against the dtype package and float32 arithmetic in its
// own test), and, for the four arithmetic operations, against scalar
// float32 arithmetic on the dtype package's conversions (NaN as NaN). The
// lengths and offsets cover the unrolled loop, the one-vector loop and
// the float32-block remainder; dst == a is checked too.
func TestBinaryHalf(t *testing.T) {
	ua, ub := halfPairs()
	n := len(ua)
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, op := range halfBinaryOps {
				for _, bf := range []bool{true, false} {
					got, want := make([]uint16, n), make([]uint16, n)
					run, ref := halfBinaryRun(op.bf16, op.f16, op.f32, bf)
					if err := run(got, ua, ub); err != nil {
						t.Fatal(err)
					}
					ref(want, ua, ub)
					load, store := halfScalars(bf)
					bad := 0
					for i := range got {
						ok := got[i] == want[i]
						if op.exact != nil {
							e := op.exact(load(ua[i]), load(ub[i]))
							r := load(got[i])
							ok = ok && (sameBits(r, load(store(e))) || r != r && e != e)
						}
						if !ok {
							if bad++; bad <= 5 {
								t.Errorf("%s bf16=%v: a %#04x b %#04x: got %#04x, want %#04x", op.name, bf, ua[i], ub[i], got[i], want[i])
							}
						}
					}
					// Short lengths at odd offsets, and in place.
					for m := 0; m <= 70; m++ {
						lo := 3*m + 1
						d := make([]uint16, m)
						if err := run(d, ua[lo:lo+m], ub[lo:lo+m]); err != nil {
							t.Fatal(err)
						}
						for i := range d {
							if d[i] != want[lo+i] {
								t.Fatalf("%s bf16=%v length %d element %d: got %#04x, want %#04x", op.name, bf, m, i, d[i], want[lo+i])
							}
						}
					}
					in := append([]uint16(nil), ua[:1000]...)
					if err := run(in, in, ub[:1000]); err != nil {
						t.Fatal(err)
					}
					for i := range in {
						if in[i] != want[i] {
							t.Fatalf("%s bf16=%v in place, element %d: got %#04x, want %#04x", op.name, bf, i, in[i], want[i])
						}
					}
				}
			}
		})
	}
}

// halfBinaryRun returns the one-pass operation on 16-bit patterns of the
// half type (bfloat16 when bf) and the same operation as Widen, the
// float32 kernel and Narrow in turn.
func halfBinaryRun(fb func(dst, a, b []dtype.BFloat16) error, fh func(dst, a, b []dtype.Float16) error, f32 func(dst, a, b []float32) error, bf bool) (run func(dst, a, b []uint16) error, ref func(dst, a, b []uint16)) {
	ref = func(dst, a, b []uint16) {
		x, y := make([]float32, len(a)), make([]float32, len(b))
		if bf {
			_ = Widen(x, asBF16(a))
			_ = Widen(y, asBF16(b))
			_ = f32(x, x, y)
			_ = Narrow(asBF16(dst), x)
			return
		}
		_ = Widen(x, asF16(a))
		_ = Widen(y, asF16(b))
		_ = f32(x, x, y)
		_ = Narrow(asF16(dst), x)
	}
	if bf {
		return func(dst, a, b []uint16) error { return fb(asBF16(dst), asBF16(a), asBF16(b)) }, ref
	}
	return func(dst, a, b []uint16) error { return fh(asF16(dst), asF16(a), asF16(b)) }, ref
}

// halfScalars returns the dtype package's scalar conversions of the half
// type (bfloat16 when bf) on 16-bit patterns.
func halfScalars(bf bool) (load func(uint16) float32, store func(float32) uint16) {
	if bf {
		return func(v uint16) float32 { return dtype.BFloat16(v).Float32() },
			func(x float32) uint16 { return uint16(dtype.BF16FromFloat32(x)) }
	}
	return func(v uint16) float32 { return dtype.Float16(v).Float32() },
		func(x float32) uint16 { return uint16(dtype.F16FromFloat32(x)) }
}

// asHalf views 16-bit patterns as values of a half type.
func asHalf[H Half](s []uint16) []H {
	return unsafe.Slice((*H)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func asBF16(s []uint16) []dtype.BFloat16 { return asHalf[dtype.BFloat16](s) }

func asF16(s []uint16) []dtype.Float16 { return asHalf[dtype.Float16](s) }

// TestBinaryHalfErrors checks the typed errors: lengths that differ, and
// a dst that overlaps an input at another offset.
func TestBinaryHalfErrors(t *testing.T) {
	a := make([]dtype.BFloat16, 40)
	if err := AddHalf(a[:3], a[10:13], a[20:22]); !errors.Is(err, errs.ErrShape) {
		t.Errorf("lengths 3, 3, 2: %v", err)
	}
	if err := MulHalf(a[1:33], a[0:32], a[0:32]); !errors.Is(err, errs.ErrValue) {
		t.Errorf("overlap at another offset: %v", err)
	}
	if err := MulHalf(a[0:32], a[0:32], a[0:32]); err != nil {
		t.Errorf("dst == a == b: %v", err)
	}
}

// halfUnaryOps are the one-pass unary operations with the float32
// operation each must match and a float64 reference.
var halfUnaryOps = []struct {
	name string
	bf16 func(dst, x []dtype.BFloat16) error
	f16  func(dst, x []dtype.Float16) error
	f32  func(dst, x []float32) error
	ref  func(x float64) float64
}{
	{"Relu", ReluHalf[dtype.BFloat16], ReluHalf[dtype.Float16], Relu[float32], func(x float64) float64 {
		if x > 0 || x != x {
			return x
		}
		return 0
	}},
	{"Sqrt", SqrtHalf[dtype.BFloat16], SqrtHalf[dtype.Float16], Sqrt[float32], math.Sqrt},
	{"Sign", SignHalf[dtype.BFloat16], SignHalf[dtype.Float16], Sign[float32], func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x + 0 // +0 for ±0, NaN for NaN
	}},
	{"Exp", ExpHalf[dtype.BFloat16], ExpHalf[dtype.Float16], Exp[float32], math.Exp},
	{"Log", LogHalf[dtype.BFloat16], LogHalf[dtype.Float16], Log[float32], math.Log},
	{"Tanh", TanhHalf[dtype.BFloat16], TanhHalf[dtype.Float16], Tanh[float32], math.Tanh},
	{"Sigmoid", SigmoidHalf[dtype.BFloat16], SigmoidHalf[dtype.Float16], Sigmoid[float32], func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }},
	{"GeluTanh", GeluTanhHalf[dtype.BFloat16], GeluTanhHalf[dtype.Float16], GeluTanh[float32], func(x float64) float64 {
		return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	}},
	{"GeluErf", GeluErfHalf[dtype.BFloat16], GeluErfHalf[dtype.Float16], GeluErf[float32], func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }},
	{"Erf", ErfHalf[dtype.BFloat16], ErfHalf[dtype.Float16], Erf[float32], math.Erf},
	{"Silu", SiluHalf[dtype.BFloat16], SiluHalf[dtype.Float16], Silu[float32], refSilu},
	{"Exp2", Exp2Half[dtype.BFloat16], Exp2Half[dtype.Float16], Exp2[float32], math.Exp2},
	{"Log2", Log2Half[dtype.BFloat16], Log2Half[dtype.Float16], Log2[float32], math.Log2},
	{"Log10", Log10Half[dtype.BFloat16], Log10Half[dtype.Float16], Log10[float32], math.Log10},
	{"Log1p", Log1pHalf[dtype.BFloat16], Log1pHalf[dtype.Float16], Log1p[float32], math.Log1p},
	{"Expm1", Expm1Half[dtype.BFloat16], Expm1Half[dtype.Float16], Expm1[float32], math.Expm1},
	{"Softplus", SoftplusHalf[dtype.BFloat16], SoftplusHalf[dtype.Float16], Softplus[float32], refSoftplus},
	{"Neg", NegHalf[dtype.BFloat16], NegHalf[dtype.Float16], Neg[float32], func(x float64) float64 { return -x }},
	{"Abs", AbsHalf[dtype.BFloat16], AbsHalf[dtype.Float16], Abs[float32], math.Abs},
	{"Floor", FloorHalf[dtype.BFloat16], FloorHalf[dtype.Float16], Floor[float32], math.Floor},
	{"Ceil", CeilHalf[dtype.BFloat16], CeilHalf[dtype.Float16], Ceil[float32], math.Ceil},
	{"Trunc", TruncHalf[dtype.BFloat16], TruncHalf[dtype.Float16], Trunc[float32], math.Trunc},
	{"RoundEven", RoundEvenHalf[dtype.BFloat16], RoundEvenHalf[dtype.Float16], RoundEven[float32], math.RoundToEven},
	{"Reciprocal", ReciprocalHalf[dtype.BFloat16], ReciprocalHalf[dtype.Float16], Reciprocal[float32], func(x float64) float64 { return 1 / x }},
	{"Rsqrt", RsqrtHalf[dtype.BFloat16], RsqrtHalf[dtype.Float16], Rsqrt[float32], rsqrt64},
	{"Hardswish", HardswishHalf[dtype.BFloat16], HardswishHalf[dtype.Float16], Hardswish[float32], hardswish64},
}

// TestUnaryHalf checks the one-pass unary operations on every tier, over
// every 16-bit pattern of both half types: bit for bit against Widen, the
// float32 kernel and Narrow on the same tier, and within two steps of the
// half type (or 1e-6, the float32 kernels' absolute bound in GELU's far
// tails) of the float64 function rounded to the type (NaN as NaN). Lengths and offsets cover the unrolled loop, the
// one-vector loop and the float32-block remainder; dst == x is checked too.
func TestUnaryHalf(t *testing.T) {
	skipSweepUnderRace(t)
	all := make([]uint16, 1<<16)
	for i := range all {
		all[i] = uint16(i)
	}
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, op := range halfUnaryOps {
				for _, bf := range []bool{true, false} {
					load, store := halfScalars(bf)
					run := func(dst, x []uint16) error { return op.f16(asF16(dst), asF16(x)) }
					if bf {
						run = func(dst, x []uint16) error { return op.bf16(asBF16(dst), asBF16(x)) }
					}
					got, want := make([]uint16, len(all)), make([]uint16, len(all))
					if err := run(got, all); err != nil {
						t.Fatal(err)
					}
					w := make([]float32, len(all))
					if bf {
						_ = Widen(w, asBF16(all))
						_ = op.f32(w, w)
						_ = Narrow(asBF16(want), w)
					} else {
						_ = Widen(w, asF16(all))
						_ = op.f32(w, w)
						_ = Narrow(asF16(want), w)
					}
					bad := 0
					for i, v := range all {
						x := float64(load(v))
						r, g := float64(load(store(float32(op.ref(x))))), float64(load(got[i]))
						// Within two steps of the half type, or 1e-6 where
						// the float32 kernels' bound is absolute (the far
						// tails of GELU); infinite x is the float32 kernels'
						// convention (GELU(-Inf) = -0), checked in their tests.
						step := math.Abs(r) * math.Pow(2, -10)
						if bf {
							step = math.Abs(r) * math.Pow(2, -7)
						}
						near := math.IsInf(x, 0) || g != g && r != r || g == r ||
							math.Abs(g-r) <= 2*step+1e-6
						if got[i] != want[i] || !near {
							if bad++; bad <= 5 {
								t.Errorf("%s bf16=%v: x %#04x (%v): got %#04x (%v), want %#04x; float64 gives %v", op.name, bf, v, x, got[i], g, want[i], r)
							}
						}
					}
					for m := 0; m <= 70; m++ {
						lo := 3*m + 1
						d := make([]uint16, m)
						if err := run(d, all[lo:lo+m]); err != nil {
							t.Fatal(err)
						}
						for i := range d {
							if d[i] != want[lo+i] {
								t.Fatalf("%s bf16=%v length %d element %d: got %#04x, want %#04x", op.name, bf, m, i, d[i], want[lo+i])
							}
						}
					}
					in := append([]uint16(nil), all[:1000]...)
					if err := run(in, in); err != nil {
						t.Fatal(err)
					}
					for i := range in {
						if in[i] != want[i] {
							t.Fatalf("%s bf16=%v in place, element %d: got %#04x, want %#04x", op.name, bf, i, in[i], want[i])
						}
					}
				}
			}
		})
	}
}
