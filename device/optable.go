package device

import (
	"math"

	"github.com/tessera-go/tessera/internal/pow64"
)

// The unary operations, in table order. Adding one means adding a constant
// here and its descriptor to unaryTable; see docs/architecture.md.
const (
	Neg UnaryOp = iota
	Abs
	Sign
	Square
	Relu
	Exp
	Log
	Sqrt
	Rsqrt
	Sin
	Cos
	Tanh
	Sigmoid
	GeluTanh
	GeluErf
	Erf
	Log1p
	Expm1
	Floor
	Ceil
	Round
	Reciprocal
	Silu
	Softplus
	Hardswish
	Tan
	Asin
	Acos
	Atan
	Sinh
	Cosh
	Exp2
	Log2
	Log10
	Trunc
	Not
	IsNaN
	IsInf
	IsFinite
)

var unaryTable = [...]UnaryDef{
	Neg: {Name: "Neg", Doc: "Neg returns -t.", Accepts: Numeric,
		F64:    func(x float64) float64 { return -x },
		Int:    func(x int64) int64 { return -x },
		Shader: Shader{F32: "-x", I32: "0 - x", U8: "(0u - x) & 0xffu", I64: "neg64(x)"}},
	Abs: {Name: "Abs", Doc: "Abs returns |t|.", Accepts: Numeric,
		F64: math.Abs,
		Int: func(x int64) int64 {
			if x < 0 {
				return -x
			}
			return x
		},
		Shader: Shader{F32: "bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu)", I32: "select(x, 0 - x, x < 0)", U8: "x", I64: "abs64(x)"}},
	Sign: {Name: "Sign", Doc: "Sign returns -1, 0 or 1 for each element; NaN stays NaN and -0 gives +0\n(NumPy's sign).", Accepts: Numeric,
		F64: func(x float64) float64 {
			switch {
			case x > 0:
				return 1
			case x < 0:
				return -1
			case x == 0:
				return 0 // -0 too
			}
			return x // NaN
		},
		Int: func(x int64) int64 {
			switch {
			case x > 0:
				return 1
			case x < 0:
				return -1
			}
			return 0
		},
		Shader: Shader{F32: "m_sign(x)", I32: "select(select(0, 1, x > 0), -1, x < 0)", U8: "select(0u, 1u, x != 0u)", I64: "sign64(x)"}},
	Square: {Name: "Square", Doc: "Square returns t*t.", Accepts: Numeric,
		F64:    func(x float64) float64 { return x * x },
		Int:    func(x int64) int64 { return x * x },
		Shader: Shader{F32: "x * x", I32: "x * x", U8: "(x * x) & 0xffu", I64: "mul64(x, x)"}},
	Relu: {Name: "Relu", Doc: "Relu returns max(t, 0): -0 gives +0, NaN stays NaN.", Accepts: Numeric,
		F64: func(x float64) float64 {
			if x <= 0 {
				return 0 // -0 too
			}
			return x // NaN stays NaN
		},
		Int:    func(x int64) int64 { return max(x, 0) },
		Shader: Shader{F32: "select(x, 0.0, x < 0.0 || bitcast<u32>(x) == 0x80000000u)", I32: "max(x, 0)", U8: "x", I64: "max64(x, vec2<u32>(0u, 0u))"}},
	Exp: {Name: "Exp", Doc: "Exp returns e^t.", Accepts: Floats,
		F64: math.Exp, Shader: Shader{F32: "m_exp(x)"}},
	Log: {Name: "Log", Doc: "Log returns the natural logarithm (NaN below 0, -Inf at 0).", Accepts: Floats,
		F64: math.Log, Shader: Shader{F32: "m_log(x)"}},
	Sqrt: {Name: "Sqrt", Doc: "Sqrt returns the square root (NaN below 0).", Accepts: Floats,
		F64: math.Sqrt, Shader: Shader{F32: "m_sqrt(x)"}},
	Rsqrt: {Name: "Rsqrt", Doc: "Rsqrt returns 1/sqrt(t).", Accepts: Floats,
		F64: func(x float64) float64 { return 1 / math.Sqrt(x) }, Shader: Shader{F32: "m_rsqrt(x)"}},
	Sin: {Name: "Sin", Doc: "Sin returns the sine.", Accepts: Floats,
		F64: math.Sin, Shader: Shader{F32: "m_sin(x)"}},
	Cos: {Name: "Cos", Doc: "Cos returns the cosine.", Accepts: Floats,
		F64: math.Cos, Shader: Shader{F32: "m_cos(x)"}},
	Tanh: {Name: "Tanh", Doc: "Tanh returns the hyperbolic tangent.", Accepts: Floats,
		F64: math.Tanh, Shader: Shader{F32: "m_tanh(x)"}},
	Sigmoid: {Name: "Sigmoid", Doc: "Sigmoid returns 1/(1+e^-t), without overflow for large |t|.", Accepts: Floats,
		F64: sigmoid, Shader: Shader{F32: "m_sigmoid(x)"}},
	GeluTanh: {Name: "GeluTanh", Doc: "GeluTanh returns Gelu's tanh approximation,\nx/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), and -0 at -Inf\n(the limit, where the formula gives -Inf*0 = NaN).", Accepts: Floats,
		F64: func(x float64) float64 {
			if math.IsInf(x, -1) {
				return math.Copysign(0, -1) // the limit, where the formula gives -Inf*0
			}
			return 0.5 * x * (1 + math.Tanh(sqrt2OverPi*(x+0.044715*x*x*x)))
		},
		Shader: Shader{F32: "m_gelu_tanh(x)"}},
	GeluErf: {Name: "GeluErf", Method: "Gelu", Doc: "Gelu returns the Gaussian error linear unit in its exact erf form,\nx/2 * (1 + erf(x/sqrt 2)), and -0 at -Inf (the limit, where the\nformula gives -Inf*0 = NaN).", Accepts: Floats,
		F64: func(x float64) float64 {
			if math.IsInf(x, -1) {
				return math.Copysign(0, -1)
			}
			return 0.5 * x * math.Erfc(-x*invSqrt2)
		},
		Shader: Shader{F32: "m_gelu_erf(x)"}},
	Erf: {Name: "Erf", Doc: "Erf returns the error function.", Accepts: Floats,
		F64: math.Erf, Shader: Shader{F32: "m_erf(x)"}},
	Log1p: {Name: "Log1p", Doc: "Log1p returns log(1+t), accurate for small t.", Accepts: Floats,
		F64: math.Log1p, Shader: Shader{F32: "m_log1p(x)"}},
	Expm1: {Name: "Expm1", Doc: "Expm1 returns e^t - 1, accurate for small t.", Accepts: Floats,
		F64: math.Expm1, Shader: Shader{F32: "m_expm1(x)"}},
	Floor: {Name: "Floor", Doc: "Floor rounds toward -Inf. Integers are returned as they are (a copy in their\ndtype, as PyTorch does; NumPy gives F64).", Accepts: Floats, IntegerIdentity: true,
		F64: math.Floor, Shader: Shader{F32: "floor(x)"}},
	Ceil: {Name: "Ceil", Doc: "Ceil rounds toward +Inf. Integers are returned as they are (a copy in their\ndtype, as PyTorch does; NumPy gives F64).", Accepts: Floats, IntegerIdentity: true,
		F64: math.Ceil, Shader: Shader{F32: "ceil(x)"}},
	Round: {Name: "Round", Doc: "Round rounds to the nearest integer, halves to even (as NumPy and PyTorch).\nIntegers are returned as they are (a copy in their dtype, as both do).", Accepts: Floats, IntegerIdentity: true,
		F64: math.RoundToEven, Shader: Shader{F32: "round(x)"}},
	Reciprocal: {Name: "Reciprocal", Doc: "Reciprocal returns 1/t.", Accepts: Floats,
		F64: func(x float64) float64 { return 1 / x }, Shader: Shader{F32: "1.0 / x"}},
	Silu: {Name: "Silu", Doc: "Silu returns t*sigmoid(t) (also called swish); Silu(-Inf) is -0, the limit.", Accepts: Floats,
		F64: func(x float64) float64 {
			if math.IsInf(x, -1) {
				return math.Copysign(0, -1)
			}
			return x * sigmoid(x)
		},
		Shader: Shader{F32: "select(x * m_sigmoid(x), f32_neg_zero(), x == -f32_inf())"}},
	Softplus: {Name: "Softplus", Doc: "Softplus returns log(1+e^t), computed as max(t, 0) + log1p(e^-|t|) so that it neither overflows nor loses small results.", Accepts: Floats,
		F64: func(x float64) float64 {
			if math.IsNaN(x) {
				return x
			}
			return max(x, 0) + math.Log1p(math.Exp(-math.Abs(x)))
		},
		Shader: Shader{F32: "select(max(x, 0.0) + m_log1p(m_exp(-abs(x))), x, is_nan(x))"}},
	Hardswish: {Name: "Hardswish", Doc: "Hardswish returns t * min(max(t+3, 0), 6) / 6, a piecewise approximation of Silu.", Accepts: Floats,
		F64:    func(x float64) float64 { return x * min(max(x+3, 0), 6) / 6 },
		Shader: Shader{F32: "x * min(max(x + 3.0, 0.0), 6.0) / 6.0"}},
	Tan: {Name: "Tan", Doc: "Tan returns the tangent.", Accepts: Floats,
		F64: math.Tan, Shader: Shader{F32: "m_sin(x) / m_cos(x)"}},
	Asin: {Name: "Asin", Doc: "Asin returns the arcsine (NaN outside [-1, 1]).", Accepts: Floats,
		F64: math.Asin, Shader: Shader{F32: "m_asin(x)"}},
	Acos: {Name: "Acos", Doc: "Acos returns the arccosine (NaN outside [-1, 1]).", Accepts: Floats,
		F64: math.Acos, Shader: Shader{F32: "m_acos(x)"}},
	Atan: {Name: "Atan", Doc: "Atan returns the arctangent.", Accepts: Floats,
		F64: math.Atan, Shader: Shader{F32: "m_atan(x)"}},
	Sinh: {Name: "Sinh", Doc: "Sinh returns the hyperbolic sine.", Accepts: Floats,
		F64: math.Sinh, Shader: Shader{F32: "m_sinh(x)"}},
	Cosh: {Name: "Cosh", Doc: "Cosh returns the hyperbolic cosine.", Accepts: Floats,
		F64: math.Cosh, Shader: Shader{F32: "m_cosh(x)"}},
	Exp2: {Name: "Exp2", Doc: "Exp2 returns 2^t.", Accepts: Floats,
		F64: math.Exp2, Shader: Shader{F32: "m_exp2(x)"}},
	Log2: {Name: "Log2", Doc: "Log2 returns the base-2 logarithm.", Accepts: Floats,
		F64: math.Log2, Shader: Shader{F32: "m_log(x) * 1.4426950408889634"}},
	Log10: {Name: "Log10", Doc: "Log10 returns the base-10 logarithm.", Accepts: Floats,
		F64: math.Log10, Shader: Shader{F32: "m_log(x) * 0.4342944819032518"}},
	Trunc: {Name: "Trunc", Doc: "Trunc rounds toward zero. Integers are returned as they are (a copy in their\ndtype, as PyTorch does; NumPy gives F64).", Accepts: Floats, IntegerIdentity: true,
		F64: math.Trunc, Shader: Shader{F32: "trunc(x)"}},
	Not: {Name: "Not", Doc: "Not returns the logical negation as Bool (NumPy's logical_not): true where t is\nfalse or zero. Any dtype: a nonzero number, NaN included, counts as true.", Accepts: Numeric | Bools, Predicate: true,
		F64:    func(x float64) float64 { return b2f(x == 0) },
		Int:    func(x int64) int64 { return b2i(x == 0) },
		Shader: Shader{F32: "select(1u, 0u, m_nonzero(x))", I32: "select(0u, 1u, x == 0)", U8: "select(0u, 1u, x == 0u)", I64: "select(0u, 1u, !nz64(x))"}},
	IsNaN: {Name: "IsNaN", Doc: "IsNaN reports, as Bool, which elements are NaN (always false for integers and\nBool, as in NumPy and PyTorch).", Accepts: Numeric | Bools, Predicate: true,
		F64:    func(x float64) float64 { return b2f(x != x) },
		Int:    func(int64) int64 { return 0 },
		Shader: Shader{F32: "select(0u, 1u, is_nan(x))", I32: "0u", U8: "0u", I64: "0u"}},
	IsInf: {Name: "IsInf", Doc: "IsInf reports, as Bool, which elements are +Inf or -Inf (always false for\nintegers and Bool, as in NumPy and PyTorch).", Accepts: Numeric | Bools, Predicate: true,
		F64:    func(x float64) float64 { return b2f(math.IsInf(x, 0)) },
		Int:    func(int64) int64 { return 0 },
		Shader: Shader{F32: "select(0u, 1u, is_inf(x))", I32: "0u", U8: "0u", I64: "0u"}},
	IsFinite: {Name: "IsFinite", Doc: "IsFinite reports, as Bool, which elements are neither infinite nor NaN\n(always true for integers and Bool, as in NumPy and PyTorch).", Accepts: Numeric | Bools, Predicate: true,
		F64:    func(x float64) float64 { return b2f(!math.IsInf(x, 0) && x == x) },
		Int:    func(int64) int64 { return 1 },
		Shader: Shader{F32: "select(0u, 1u, (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u)", I32: "1u", U8: "1u", I64: "1u"}},
}

// The binary operations, in table order.
const (
	Add BinaryOp = iota
	Sub
	Mul
	Div
	Pow
	Maximum
	Minimum
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
	And
	Or
	Xor
	Atan2
	Mod
	Fmod
	LeakyRelu
	Elu
	FloorDiv
)

var binaryTable = [...]BinaryDef{
	Add: {Name: "Add", Doc: "Add returns t + u, broadcasting by NumPy's rule. Of two Bool tensors it is\ntheir logical or, as NumPy's add and PyTorch's.", Accepts: Numeric,
		F64:    func(a, b float64) float64 { return a + b },
		Int:    func(a, b int64) int64 { return a + b },
		Shader: Shader{F32: "a + b", I32: "a + b", U8: "(a + b) & 0xffu", I64: "add64(a, b)"}},
	Sub: {Name: "Sub", Doc: "Sub returns t - u, broadcasting.", Accepts: Numeric,
		F64:    func(a, b float64) float64 { return a - b },
		Int:    func(a, b int64) int64 { return a - b },
		Shader: Shader{F32: "a - b", I32: "a - b", U8: "(a - b) & 0xffu", I64: "sub64(a, b)"}},
	Mul: {Name: "Mul", Doc: "Mul returns t * u elementwise, broadcasting. Of two Bool tensors it is their\nlogical and, as NumPy's multiply and PyTorch's.", Accepts: Numeric,
		F64:    func(a, b float64) float64 { return a * b },
		Int:    func(a, b int64) int64 { return a * b },
		Shader: Shader{F32: "a * b", I32: "a * b", U8: "(a * b) & 0xffu", I64: "mul64(a, b)"}},
	Div: {Name: "Div", Doc: "Div returns t / u, broadcasting: true division, so integer and Bool operands\ngive F32 (PyTorch's div; NumPy's true_divide gives F64), and a float divided\nby zero is ±Inf or NaN. FloorDiv is the floored quotient. (The backends'\ninteger Div truncates toward zero and gives the dividend for a zero divisor,\nas WGSL defines it; the tensor layer never asks for it.)", Accepts: Numeric,
		F64: func(a, b float64) float64 { return a / b },
		Int: func(a, b int64) int64 {
			if b == 0 {
				return a
			}
			return a / b // MinInt64 / -1 is MinInt64 in Go, as in WGSL
		},
		Shader: Shader{F32: "a / b", I32: "m_div_i32(a, b)", U8: "m_div_u32(a, b)", I64: "div_i64(a, b)"}},
	Pow: {Name: "Pow", Doc: "Pow returns t raised to u, broadcasting. Integer powers are exact (wrapping\nin the dtype, as NumPy's), and, as in NumPy and PyTorch, an integer\nexponent must not be negative: a negative one is an ErrValue (checking a\ntensor exponent reads its minimum back to the host, a sync on a GPU). Float\npowers take C99's values at zeros, infinities, NaN and negative bases; on\nthe CPU an F64 power is within 1 ulp of the exact value.", Accepts: Numeric, NonNegativeIntB: true,
		F64: pow64.Pow, Int: ipow,
		Shader: Shader{F32: "m_pow(a, b)", I32: "m_ipow_i32(a, b)", U8: "m_ipow_u32(a, b) & 0xffu", I64: "ipow_i64(a, b)"}},
	Maximum: {Name: "Maximum", Doc: "Maximum returns the elementwise maximum; NaN in either operand wins. Of two\nBool tensors it is their logical or, as NumPy's maximum.", Accepts: Numeric,
		F64: func(a, b float64) float64 {
			if a != a || a > b {
				return a
			}
			return b
		},
		Int:    func(a, b int64) int64 { return max(a, b) },
		Shader: Shader{F32: "m_maximum(a, b)", I32: "max(a, b)", U8: "max(a, b)", I64: "max64(a, b)"}},
	Minimum: {Name: "Minimum", Doc: "Minimum returns the elementwise minimum; NaN in either operand wins. Of two\nBool tensors it is their logical and, as NumPy's minimum.", Accepts: Numeric,
		F64: func(a, b float64) float64 {
			if a != a || a < b {
				return a
			}
			return b
		},
		Int:    func(a, b int64) int64 { return min(a, b) },
		Shader: Shader{F32: "m_minimum(a, b)", I32: "min(a, b)", U8: "min(a, b)", I64: "min64(a, b)"}},
	Eq: {Name: "Eq", Doc: "Eq returns t == u as Bool, broadcasting.", Accepts: Numeric | Bools, Compare: true,
		F64:    func(a, b float64) float64 { return b2f(a == b) },
		Int:    func(a, b int64) int64 { return b2i(a == b) },
		Shader: Shader{F32: "select(0u, 1u, m_ordered(a, b) && a == b)", I32: "select(0u, 1u, a == b)", U8: "select(0u, 1u, a == b)", I64: "select(0u, 1u, eq64(a, b))"}},
	Ne: {Name: "Ne", Doc: "Ne returns t != u as Bool, broadcasting.", Accepts: Numeric | Bools, Compare: true,
		F64:    func(a, b float64) float64 { return b2f(a != b) },
		Int:    func(a, b int64) int64 { return b2i(a != b) },
		Shader: Shader{F32: "select(1u, 0u, m_ordered(a, b) && a == b)", I32: "select(0u, 1u, a != b)", U8: "select(0u, 1u, a != b)", I64: "select(1u, 0u, eq64(a, b))"}},
	Lt: {Name: "Lt", Doc: "Lt returns t < u as Bool, broadcasting.", Accepts: Numeric, Compare: true,
		F64:    func(a, b float64) float64 { return b2f(a < b) },
		Int:    func(a, b int64) int64 { return b2i(a < b) },
		Shader: Shader{F32: "select(0u, 1u, m_ordered(a, b) && a < b)", I32: "select(0u, 1u, a < b)", U8: "select(0u, 1u, a < b)", I64: "select(0u, 1u, lt64(a, b))"}},
	Le: {Name: "Le", Doc: "Le returns t <= u as Bool, broadcasting.", Accepts: Numeric, Compare: true,
		F64:    func(a, b float64) float64 { return b2f(a <= b) },
		Int:    func(a, b int64) int64 { return b2i(a <= b) },
		Shader: Shader{F32: "select(0u, 1u, m_ordered(a, b) && a <= b)", I32: "select(0u, 1u, a <= b)", U8: "select(0u, 1u, a <= b)", I64: "select(1u, 0u, lt64(b, a))"}},
	Gt: {Name: "Gt", Doc: "Gt returns t > u as Bool, broadcasting.", Accepts: Numeric, Compare: true,
		F64:    func(a, b float64) float64 { return b2f(a > b) },
		Int:    func(a, b int64) int64 { return b2i(a > b) },
		Shader: Shader{F32: "select(0u, 1u, m_ordered(a, b) && a > b)", I32: "select(0u, 1u, a > b)", U8: "select(0u, 1u, a > b)", I64: "select(0u, 1u, lt64(b, a))"}},
	Ge: {Name: "Ge", Doc: "Ge returns t >= u as Bool, broadcasting.", Accepts: Numeric, Compare: true,
		F64:    func(a, b float64) float64 { return b2f(a >= b) },
		Int:    func(a, b int64) int64 { return b2i(a >= b) },
		Shader: Shader{F32: "select(0u, 1u, m_ordered(a, b) && a >= b)", I32: "select(0u, 1u, a >= b)", U8: "select(0u, 1u, a >= b)", I64: "select(1u, 0u, lt64(a, b))"}},
	And: {Name: "And", Doc: "And returns the logical and of t and u as Bool (NumPy's logical_and),\nbroadcasting. Any dtype: a nonzero number, NaN included, counts as true.", Accepts: Numeric | Bools, Compare: true,
		F64:    func(a, b float64) float64 { return b2f(a != 0 && b != 0) },
		Int:    func(a, b int64) int64 { return b2i(a != 0 && b != 0) },
		Shader: Shader{F32: "select(0u, 1u, m_nonzero(a) && m_nonzero(b))", I32: "select(0u, 1u, a != 0 && b != 0)", U8: "select(0u, 1u, a != 0u && b != 0u)", I64: "select(0u, 1u, nz64(a) && nz64(b))"}},
	Or: {Name: "Or", Doc: "Or returns the logical or of t and u as Bool (NumPy's logical_or), broadcasting;\nnonzero counts as true.", Accepts: Numeric | Bools, Compare: true,
		F64:    func(a, b float64) float64 { return b2f(a != 0 || b != 0) },
		Int:    func(a, b int64) int64 { return b2i(a != 0 || b != 0) },
		Shader: Shader{F32: "select(0u, 1u, m_nonzero(a) || m_nonzero(b))", I32: "select(0u, 1u, a != 0 || b != 0)", U8: "select(0u, 1u, a != 0u || b != 0u)", I64: "select(0u, 1u, nz64(a) || nz64(b))"}},
	Xor: {Name: "Xor", Doc: "Xor returns the logical exclusive or of t and u as Bool (NumPy's logical_xor),\nbroadcasting; nonzero counts as true.", Accepts: Numeric | Bools, Compare: true,
		F64:    func(a, b float64) float64 { return b2f((a != 0) != (b != 0)) },
		Int:    func(a, b int64) int64 { return b2i((a != 0) != (b != 0)) },
		Shader: Shader{F32: "select(0u, 1u, m_nonzero(a) != m_nonzero(b))", I32: "select(0u, 1u, (a != 0) != (b != 0))", U8: "select(0u, 1u, (a != 0u) != (b != 0u))", I64: "select(0u, 1u, nz64(a) != nz64(b))"}},
	Atan2: {Name: "Atan2", Doc: "Atan2 returns the angle of the point (u, t), atan(t/u) in the right quadrant,\nin [-pi, pi] (NumPy's arctan2(t, u), PyTorch's atan2): t is the y coordinate.\nSigned zeros and infinities follow C99 (Atan2(0, -0) = pi).", Accepts: Floats,
		F64: atan2, Shader: Shader{F32: "m_atan2(a, b)"}},
	Mod: {Name: "Mod", Doc: "Mod returns the remainder of floor division, t - floor(t/u)*u, which has the\nsign of u (NumPy's mod and remainder, PyTorch's remainder, Python's %);\nFmod is the truncated one. Floats: a zero result is +0 or -0 after u, a\nzero u gives NaN. Integers: a zero u gives 0, as in NumPy.", Accepts: Numeric,
		F64: floorMod, Int: floorModInt,
		Shader: Shader{F32: "m_mod(a, b)", I32: "m_mod_i32(a, b)", U8: "m_mod_u32(a, b)", I64: "mod_i64(a, b)"}},
	Fmod: {Name: "Fmod", Doc: "Fmod returns the remainder of truncated division, t - trunc(t/u)*u, which has the\nsign of t (C's fmod, NumPy's fmod, PyTorch's fmod); Mod is the floored one.\nFloats are exact; a zero u gives NaN for floats and 0 for integers, as in NumPy.", Accepts: Numeric,
		F64: math.Mod, Int: truncModInt,
		Shader: Shader{F32: "m_fmod(a, b)", I32: "m_fmod_i32(a, b)", U8: "m_mod_u32(a, b)", I64: "fmod_i64(a, b)"}},
	LeakyRelu: {Name: "LeakyRelu", Param: "slope", Doc: "LeakyRelu returns t where t > 0 and slope*t elsewhere (PyTorch's leaky_relu;\nits default slope is 0.01). NaN stays NaN; -0 gives -0*slope.", Accepts: Floats,
		F64: func(a, b float64) float64 {
			if a > 0 {
				return a
			}
			return a * b
		},
		Shader: Shader{F32: "select(a * b, a, a > 0.0)"}},
	Elu: {Name: "Elu", Param: "alpha", Doc: "Elu returns t where t > 0 and alpha*(e^t - 1) elsewhere (PyTorch's elu; its\ndefault alpha is 1), computed with Expm1 so that small |t| keep their digits.", Accepts: Floats,
		F64: func(a, b float64) float64 {
			if a > 0 {
				return a
			}
			return b * math.Expm1(a)
		},
		Shader: Shader{F32: "select(b * m_expm1(a), a, a > 0.0)"}},
	FloorDiv: {Name: "FloorDiv", Doc: "FloorDiv returns the floored quotient floor(t/u), broadcasting (NumPy's\nfloor_divide and //, PyTorch's floor_divide): t == FloorDiv(t, u)*u + Mod(t, u).\nFloats follow NumPy's divmod, so FloorDiv(1, 0.1) is 9 (0.1 is slightly above\n1/10), and a zero u gives ±Inf, or NaN for 0/0. Integers: a zero u gives 0,\nas NumPy does (PyTorch raises an error there), and the most negative value\ndivided by -1 wraps to itself.", Accepts: Numeric,
		F64: floorDiv, Int: floorDivInt,
		Shader: Shader{F32: "m_floordiv(a, b)", I32: "m_floordiv_i32(a, b)", U8: "m_floordiv_u32(a, b)", I64: "floordiv_i64(a, b)"}},
}

// The reductions, in table order.
const (
	Sum ReduceOp = iota
	Mean
	Prod
	Max
	Min
	ArgMax
	ArgMin
	Any
	All
)

var reduceTable = [...]ReduceDef{
	Sum:    {Name: "Sum", Accepts: Numeric, EmptyOK: true},
	Mean:   {Name: "Mean", Accepts: Floats},
	Prod:   {Name: "Prod", Accepts: Numeric, EmptyOK: true},
	Max:    {Name: "Max", Accepts: Numeric},
	Min:    {Name: "Min", Accepts: Numeric},
	ArgMax: {Name: "ArgMax", Accepts: Numeric, Arg: true},
	ArgMin: {Name: "ArgMin", Accepts: Numeric, Arg: true},
	// Any and All take Bool; the tensor methods turn other dtypes into
	// Bool first (nonzero is true, as NumPy's any and all).
	Any: {Name: "Any", Accepts: Bools, EmptyOK: true},
	All: {Name: "All", Accepts: Bools, EmptyOK: true},
}

const (
	sqrt2OverPi = 0.7978845608028654 // sqrt(2/pi)
	invSqrt2    = 0.7071067811865476
)

// sigmoid is 1/(1+exp(-x)), evaluated without overflow for any x.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// atan2 is math.Atan2 with y's sign, which C99 gives every result:
// math.Atan2 returns +pi where a negative y over a negative x underflows
// to +0 (math.Atan2(-1e-200, -1e200) is +pi; NumPy's arctan2 -pi).
func atan2(y, x float64) float64 { return math.Copysign(math.Atan2(y, x), y) }

// floorMod is NumPy's float remainder: fmod, moved by b when its sign
// differs from b's, a zero taking b's sign.
func floorMod(a, b float64) float64 { return FloorModRem(b, math.Mod(a, b)) }

// FloorModRem is the op table's float Mod of some a by b given m =
// fmod(a, b), exact: the rule after the remainder, for a backend with a
// faster exact fmod (the CPU's fmod32 and fmod64) to share.
func FloorModRem(b, m float64) float64 {
	switch {
	case m == 0:
		return math.Copysign(0, b)
	case (m < 0) != (b < 0) && b == b:
		return m + b
	}
	return m // NaN too
}

// floorDiv is NumPy's float floor division (npy_divmod): the quotient of
// a - fmod(a, b), which is a multiple of b, moved down by one when the
// remainder's sign differs from b's and rounded to the nearest integer; a
// zero quotient takes the sign of a/b, and b == 0 gives a/b.
func floorDiv(a, b float64) float64 {
	if b == 0 {
		return a / b
	}
	return FloorDivRem(a, b, math.Mod(a, b))
}

// FloorDivRem is floorDiv for b != 0 given m = fmod(a, b), exact: the
// rule after the remainder, for a backend with a faster exact fmod (the
// CPU's fmod32 and fmod64) to share.
func FloorDivRem(a, b, m float64) float64 {
	d := (a - m) / b
	if m != 0 && (b < 0) != (m < 0) { // NaN m is true in C's test; m < 0 is false for it
		d--
	}
	if d == 0 {
		return math.Copysign(0, a/b)
	}
	f := math.Floor(d)
	if d-f > 0.5 {
		f++
	}
	return f // NaN stays NaN
}

// floorDivInt is the integer floored quotient; 0 for b == 0 (NumPy's), and
// MinInt64 / -1 is MinInt64 in Go.
func floorDivInt(a, b int64) int64 {
	if b == 0 {
		return 0
	}
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// floorModInt is the integer floored remainder; 0 for b == 0 (NumPy's).
func floorModInt(a, b int64) int64 {
	m := truncModInt(a, b)
	if m != 0 && (m < 0) != (b < 0) {
		m += b
	}
	return m
}

// truncModInt is the integer truncated remainder; 0 for b == 0 (NumPy's),
// and MinInt64 % -1 is 0 in Go.
func truncModInt(a, b int64) int64 {
	if b == 0 {
		return 0
	}
	return a % b
}

// ipow is a^b by squaring, wrapping in int64 (and so in any narrower
// width once truncated). A negative b, which the tensor layer refuses,
// gives the truncated real power: 1 or -1 for a base of 1 or -1, else 0.
func ipow(a, b int64) int64 {
	if b < 0 {
		switch {
		case a == 1:
			return 1
		case a == -1 && b%2 == 0:
			return 1
		case a == -1:
			return -1
		}
		return 0
	}
	r := int64(1)
	for ; b > 0; b >>= 1 {
		if b&1 == 1 {
			r *= a
		}
		a *= a
	}
	return r
}

func b2f(v bool) float64 {
	if v {
		return 1
	}
	return 0
}

func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

// The row-wise normalisations, in table order (device.Normer runs them).
const (
	LayerNorm NormOp = iota
	RMSNorm
)

var normTable = [...]NormDef{
	LayerNorm: {Name: "LayerNorm", Centred: true, Affine: 2},
	RMSNorm:   {Name: "RMSNorm", Affine: 1},
}
