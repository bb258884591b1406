package device

import (
	"fmt"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// The op table. Every elementwise and reduce operation is described once,
// by a UnaryDef, BinaryDef or ReduceDef in the tables of optable.go: its
// name, the dtypes it accepts and returns, its float64 (and integer)
// reference, and its shader expression. The tensor layer, every backend,
// the backend contract (devicetest) and the conformance table read these
// descriptors; none keeps its own list of ops or dtype rules. An op
// without a complete descriptor fails TestOpTable.

// Kinds is a set of dtype classes an operation accepts.
type Kinds uint8

// The dtype classes.
const (
	Floats  Kinds           = 1 << iota // F32, F64, F16, BF16
	Ints                                // I32, I64, U8
	Bools                               // Bool
	Numeric = Floats | Ints             // every dtype but Bool
)

// KindOf is the class of dt (0 for an invalid dtype).
func KindOf(dt dtype.DType) Kinds {
	switch {
	case !dt.Valid():
		return 0
	case dt.IsFloat():
		return Floats
	case dt == dtype.Bool:
		return Bools
	}
	return Ints
}

// Has reports whether dt is of a class in k.
func (k Kinds) Has(dt dtype.DType) bool { return k&KindOf(dt) != 0 }

// String lists the classes, for messages: "floats", "floats or ints".
func (k Kinds) String() string {
	names := []string{}
	for _, c := range []struct {
		k    Kinds
		name string
	}{{Floats, "floats"}, {Ints, "integers"}, {Bools, "bool"}} {
		if k&c.k != 0 {
			names = append(names, c.name)
		}
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	case 2:
		return names[0] + " or " + names[1]
	}
	return names[0] + ", " + names[1] + " or " + names[2]
}

// Shader holds an operation's body in the shading language of the GPU
// backends, one expression per compute type, in the operands x (unary) or
// a and b (binary). F32 serves F32 and F16 (decoded to f32); I32 serves
// I32; U8 serves U8 and Bool, held in u32 with values 0..255, and must
// keep its result in that range. I64 serves I64, held as a vec2<u32> of
// (lo, hi) words in two's complement and computed with the functions of
// shaders/int64.wgsl (WGSL has no 64-bit integers). Comparisons and
// predicates return a u32 0 or 1. Expressions may call the functions of
// shaders/math.wgsl and common.wgsl.
type Shader struct {
	F32, I32, U8, I64 string
}

// UnaryDef describes a unary elementwise operation.
type UnaryDef struct {
	// Name names the operation in messages and tests ("Tanh").
	Name string
	// Method is the tensor method that applies it; empty means Name.
	Method string
	// Doc documents the tensor method: one or more sentences that follow
	// "Method returns" or stand alone when they start with the method name.
	Doc string
	// Accepts is the set of dtype classes the operation is defined for;
	// the result has the operand's dtype, or is Bool for a predicate.
	Accepts Kinds
	// IntegerIdentity marks float operations that are the identity on
	// integer values (Floor, Ceil, Round, Trunc): the tensor layer returns
	// an integer operand as it is, in its dtype (the rule of PyTorch and of
	// the array API), where another float operation computes integers in F32.
	IntegerIdentity bool
	// Predicate marks tests (IsNaN, Not, ...), whose result is Bool: F64
	// and Int return 0 or 1, and the shader expressions a u32 0 or 1.
	// Predicates do not join fused programs, which keep one dtype.
	Predicate bool
	// F64 is the float reference: backends compute floats with it where
	// they have no faster kernel, and tests compare every device with it.
	F64 func(x float64) float64
	// Int is the integer semantics, wrapping in the operand's width
	// (results are computed in int64 and truncated); required when
	// Accepts has Ints.
	Int func(x int64) int64
	// Shader is the GPU expression in x.
	Shader Shader
}

// BinaryDef describes a binary elementwise operation of two operands of
// one dtype (broadcasting happens above the backends).
type BinaryDef struct {
	Name   string
	Method string
	Doc    string
	// Accepts is the set of dtype classes the operation is defined for.
	Accepts Kinds
	// Compare marks comparisons and the logical operations, whose result
	// is Bool (F64 and Int return 0 or 1).
	Compare bool
	// Param names the scalar parameter of an operation that is applied
	// with a constant second operand only (LeakyRelu's slope): the tensor
	// method takes a float64 of that name, and no tensor-tensor method is
	// generated. Backends still accept any second operand.
	Param string
	// NonNegativeIntB marks integer forms defined only for b >= 0 (Pow, as
	// NumPy and PyTorch refuse integers to negative integer powers): the
	// tensor method refuses a negative b with ErrValue. Backends compute
	// whatever Int says for a negative b.
	NonNegativeIntB bool
	// F64 is the float reference, as for UnaryDef; for F32 operands it is
	// exact wherever one rounding of the float64 result is (the four
	// arithmetic operations are).
	F64 func(a, b float64) float64
	// Int is the integer semantics (wrapping), required when Accepts has
	// Ints or Bools.
	Int func(a, b int64) int64
	// Shader is the GPU expression in a and b.
	Shader Shader
}

// ReduceDef describes a reduction over a set of axes.
type ReduceDef struct {
	Name string
	// Accepts is the set of dtype classes the reduction is defined for.
	Accepts Kinds
	// Arg marks ArgMax/ArgMin: exactly one axis, an I64 result.
	Arg bool
	// EmptyOK marks reductions with an identity (Sum 0, Prod 1, Any
	// false, All true), defined over an empty extent; the others refuse
	// one.
	EmptyOK bool
}

// UnaryOp names a unary elementwise operation: an index into the unary table.
type UnaryOp uint8

// BinaryOp names a binary elementwise operation.
type BinaryOp uint8

// ReduceOp names a reduction.
type ReduceOp uint8

// Def returns the operation's descriptor, or ok == false for a value that
// names no operation.
func (o UnaryOp) Def() (UnaryDef, bool) {
	if d := o.def(); d != nil {
		return *d, true
	}
	return UnaryDef{}, false
}

// Def returns the operation's descriptor, or ok == false.
func (o BinaryOp) Def() (BinaryDef, bool) {
	if d := o.def(); d != nil {
		return *d, true
	}
	return BinaryDef{}, false
}

// Def returns the reduction's descriptor, or ok == false.
func (o ReduceOp) Def() (ReduceDef, bool) {
	if d := o.def(); d != nil {
		return *d, true
	}
	return ReduceDef{}, false
}

// def is Def without the copy, for the per-operation paths; nil for a value
// that names no operation.
func (o UnaryOp) def() *UnaryDef {
	if int(o) < len(unaryTable) && unaryTable[o].Name != "" {
		return &unaryTable[o]
	}
	return nil
}

func (o BinaryOp) def() *BinaryDef {
	if int(o) < len(binaryTable) && binaryTable[o].Name != "" {
		return &binaryTable[o]
	}
	return nil
}

func (o ReduceOp) def() *ReduceDef {
	if int(o) < len(reduceTable) && reduceTable[o].Name != "" {
		return &reduceTable[o]
	}
	return nil
}

// String names the operation as the tensor method does; any value formats.
func (o UnaryOp) String() string {
	if d := o.def(); d != nil {
		return d.Name
	}
	return fmt.Sprintf("UnaryOp(%d)", uint8(o))
}

// String names the operation; any value formats.
func (o BinaryOp) String() string {
	if d := o.def(); d != nil {
		return d.Name
	}
	return fmt.Sprintf("BinaryOp(%d)", uint8(o))
}

// String names the reduction; any value formats.
func (o ReduceOp) String() string {
	if d := o.def(); d != nil {
		return d.Name
	}
	return fmt.Sprintf("ReduceOp(%d)", uint8(o))
}

// UnaryOps lists every unary operation; tests range over it.
func UnaryOps() []UnaryOp {
	out := make([]UnaryOp, 0, len(unaryTable))
	for i := range unaryTable {
		out = append(out, UnaryOp(i))
	}
	return out
}

// BinaryOps lists every binary operation.
func BinaryOps() []BinaryOp {
	out := make([]BinaryOp, 0, len(binaryTable))
	for i := range binaryTable {
		out = append(out, BinaryOp(i))
	}
	return out
}

// ReduceOps lists every reduction.
func ReduceOps() []ReduceOp {
	out := make([]ReduceOp, 0, len(reduceTable))
	for i := range reduceTable {
		out = append(out, ReduceOp(i))
	}
	return out
}

// IsPredicate reports whether the unary operation yields Bool.
func (o UnaryOp) IsPredicate() bool {
	d := o.def()
	return d != nil && d.Predicate
}

// FloatOnly reports whether the operation is defined for floating dtypes
// only.
func (o UnaryOp) FloatOnly() bool {
	d := o.def()
	return d != nil && d.Accepts == Floats
}

// IsComparison reports whether the operation yields Bool.
func (o BinaryOp) IsComparison() bool {
	d := o.def()
	return d != nil && d.Compare
}

// IsArg reports whether the reduction returns indices.
func (o ReduceOp) IsArg() bool {
	d := o.def()
	return d != nil && d.Arg
}

// Result applies the operation's dtype rule: the dtype of op(x) for an
// operand of dtype dt (Bool for a predicate), or an error (kind ErrDType,
// or ErrUnsupported for a value that names no operation) reported as
// package pkg's.
func (o UnaryOp) Result(pkg string, dt dtype.DType) (dtype.DType, error) {
	d := o.def()
	if d == nil {
		return 0, errs.New(pkg, o.String(), errs.ErrUnsupported, "unknown unary operation")
	}
	if !d.Accepts.Has(dt) {
		return 0, errs.New(pkg, d.Name, errs.ErrDType, "defined for %v, have %v (Cast first)", d.Accepts, dt)
	}
	if d.Predicate {
		return dtype.Bool, nil
	}
	return dt, nil
}

// Result applies the operation's dtype rule to operands of dtypes a and b:
// they must be equal (no implicit promotion) and accepted; comparisons
// yield Bool.
func (o BinaryOp) Result(pkg string, a, b dtype.DType) (dtype.DType, error) {
	d := o.def()
	if d == nil {
		return 0, errs.New(pkg, o.String(), errs.ErrUnsupported, "unknown binary operation")
	}
	if a != b {
		return 0, errs.New(pkg, d.Name, errs.ErrDType, "dtypes differ: %v and %v (Cast one first)", a, b)
	}
	if !d.Accepts.Has(a) {
		return 0, errs.New(pkg, d.Name, errs.ErrDType, "defined for %v, have %v (Cast first)", d.Accepts, a)
	}
	if d.Compare {
		return dtype.Bool, nil
	}
	return a, nil
}

// Result applies the reduction's dtype rule: the result dtype for a
// source of dtype dt (I64 indices for ArgMax/ArgMin, else dt).
func (o ReduceOp) Result(pkg string, dt dtype.DType) (dtype.DType, error) {
	d := o.def()
	if d == nil {
		return 0, errs.New(pkg, o.String(), errs.ErrUnsupported, "unknown reduction")
	}
	if !d.Accepts.Has(dt) {
		return 0, errs.New(pkg, d.Name, errs.ErrDType, "defined for %v, have %v (Cast first)", d.Accepts, dt)
	}
	if d.Arg {
		return dtype.I64, nil
	}
	return dt, nil
}

// MethodName is the tensor method of a unary operation.
func (d UnaryDef) MethodName() string {
	if d.Method != "" {
		return d.Method
	}
	return d.Name
}

// MethodName is the tensor method of a binary operation.
func (d BinaryDef) MethodName() string {
	if d.Method != "" {
		return d.Method
	}
	return d.Name
}
