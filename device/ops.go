package device

// UnaryOp names an elementwise function of one operand.
type UnaryOp uint8

// The unary operations. Those marked float-only reject integer and bool
// operands with ErrDType.
const (
	Neg        UnaryOp = iota // -x
	Abs                       // |x|
	Sign                      // -1, 0 or 1 (NaN stays NaN)
	Square                    // x*x
	Relu                      // max(x, 0); NaN stays NaN
	Exp                       // float-only
	Log                       // float-only
	Sqrt                      // float-only
	Rsqrt                     // 1/sqrt(x), float-only
	Sin                       // float-only
	Cos                       // float-only
	Tanh                      // float-only
	Sigmoid                   // 1/(1+exp(-x)), float-only
	GeluTanh                  // Gelu, tanh approximation, float-only
	GeluErf                   // Gelu, exact erf form, float-only
	Erf                       // float-only
	Log1p                     // log(1+x), float-only
	Expm1                     // exp(x)-1, float-only
	Floor                     // float-only (identity would hide a mistake)
	Ceil                      // float-only
	Round                     // half to even, as NumPy and PyTorch; float-only
	Reciprocal                // 1/x, float-only
	numUnary
)

var unaryNames = [...]string{"Neg", "Abs", "Sign", "Square", "Relu", "Exp", "Log", "Sqrt", "Rsqrt",
	"Sin", "Cos", "Tanh", "Sigmoid", "GeluTanh", "GeluErf", "Erf", "Log1p", "Expm1", "Floor", "Ceil",
	"Round", "Reciprocal"}

// UnaryOps lists every unary operation; tests range over it.
func UnaryOps() []UnaryOp {
	out := make([]UnaryOp, numUnary)
	for i := range out {
		out[i] = UnaryOp(i)
	}
	return out
}

// String names the operation as the tensor method does, for messages and tests.
func (o UnaryOp) String() string {
	if o < numUnary {
		return unaryNames[o]
	}
	return "UnaryOp(?)"
}

// FloatOnly reports whether the operation is defined for floating dtypes
// only.
func (o UnaryOp) FloatOnly() bool { return o >= Exp }

// BinaryOp names an elementwise function of two same-shaped operands.
type BinaryOp uint8

// The binary operations. Comparisons produce Bool.
const (
	Add BinaryOp = iota
	Sub
	Mul
	Div // integer division truncates; x/0 gives x for integers (as in WGSL)
	Pow // float-only
	Maximum
	Minimum
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
	numBinary
)

var binaryNames = [...]string{"Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum", "Eq", "Ne", "Lt", "Le", "Gt", "Ge"}

// BinaryOps lists every binary operation; tests range over it.
func BinaryOps() []BinaryOp {
	out := make([]BinaryOp, numBinary)
	for i := range out {
		out[i] = BinaryOp(i)
	}
	return out
}

// String names the operation as the tensor method does, for messages and tests.
func (o BinaryOp) String() string {
	if o < numBinary {
		return binaryNames[o]
	}
	return "BinaryOp(?)"
}

// IsComparison reports whether the operation yields Bool.
func (o BinaryOp) IsComparison() bool { return o >= Eq && o < numBinary }

// ReduceOp names a reduction over a set of axes.
type ReduceOp uint8

// The reductions. ArgMax and ArgMin reduce exactly one axis and yield I64.
const (
	Sum ReduceOp = iota
	Mean
	Prod
	Max
	Min
	ArgMax
	ArgMin
	numReduce
)

var reduceNames = [...]string{"Sum", "Mean", "Prod", "Max", "Min", "ArgMax", "ArgMin"}

// ReduceOps lists every reduction; tests range over it.
func ReduceOps() []ReduceOp {
	out := make([]ReduceOp, numReduce)
	for i := range out {
		out[i] = ReduceOp(i)
	}
	return out
}

// String names the reduction as the tensor method does, for messages and tests.
func (o ReduceOp) String() string {
	if o < numReduce {
		return reduceNames[o]
	}
	return "ReduceOp(?)"
}

// IsArg reports whether the reduction returns indices.
func (o ReduceOp) IsArg() bool { return o == ArgMax || o == ArgMin }
