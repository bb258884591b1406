package shaders

import (
	"fmt"
	"strings"
)

// Types of the WGSL subset the GLSL translator understands.

type kind int

const (
	kVoid kind = iota
	kScalar
	kVec
	kMat
	kArray
	kStruct
	kAtomic
	kPtr
	kNamed // an unresolved name (struct or alias), resolved by the translator
)

type typ struct {
	k       kind
	s       string // kScalar, kVec: f32 i32 u32 bool absint absfloat
	n       int    // kVec: components; kMat: columns; kArray: length (0: runtime-sized)
	r       int    // kMat: rows
	elem    *typ   // kArray, kAtomic, kPtr
	name    string // kStruct, kNamed
	st      *structDecl
	space   string // kPtr
	lenExpr expr   // kArray: length as written
	line    int    // kNamed: where it was written
}

func scalarT(s string) *typ     { return &typ{k: kScalar, s: s} }
func vecT(n int, s string) *typ { return &typ{k: kVec, n: n, s: s} }
func matT(c, r int) *typ        { return &typ{k: kMat, n: c, r: r, s: "f32"} }

var (
	tF32      = scalarT("f32")
	tI32      = scalarT("i32")
	tU32      = scalarT("u32")
	tBool     = scalarT("bool")
	tAbsInt   = scalarT("absint")
	tAbsFloat = scalarT("absfloat")
	tVoid     = &typ{k: kVoid}
)

// shorthandType resolves WGSL's predeclared aliases (vec4f, mat4x4f, …).
func shorthandType(name string) *typ {
	suffix := map[byte]string{'f': "f32", 'i': "i32", 'u': "u32"}
	if len(name) == 5 && strings.HasPrefix(name, "vec") && name[3] >= '2' && name[3] <= '4' {
		if s, ok := suffix[name[4]]; ok {
			return vecT(int(name[3]-'0'), s)
		}
	}
	if len(name) == 7 && strings.HasPrefix(name, "mat") && name[4] == 'x' && name[6] == 'f' &&
		name[3] >= '2' && name[3] <= '4' && name[5] >= '2' && name[5] <= '4' {
		return matT(int(name[3]-'0'), int(name[5]-'0'))
	}
	return nil
}

func (t *typ) String() string {
	if t == nil {
		return "<nil>"
	}
	switch t.k {
	case kVoid:
		return "void"
	case kScalar:
		switch t.s {
		case "absint":
			return "abstract-int"
		case "absfloat":
			return "abstract-float"
		}
		return t.s
	case kVec:
		return fmt.Sprintf("vec%d<%s>", t.n, scalarT(t.s))
	case kMat:
		return fmt.Sprintf("mat%dx%d<f32>", t.n, t.r)
	case kArray:
		if t.n == 0 {
			return fmt.Sprintf("array<%s>", t.elem)
		}
		return fmt.Sprintf("array<%s, %d>", t.elem, t.n)
	case kAtomic:
		return fmt.Sprintf("atomic<%s>", t.elem)
	case kPtr:
		return fmt.Sprintf("ptr<%s, %s>", t.space, t.elem)
	}
	return t.name
}

func (t *typ) isAbstract() bool {
	return (t.k == kScalar || t.k == kVec) && (t.s == "absint" || t.s == "absfloat")
}

func (t *typ) isNumericScalarOrVec() bool {
	return (t.k == kScalar || t.k == kVec) && t.s != "bool"
}

func (t *typ) isFloat() bool {
	return (t.k == kScalar || t.k == kVec) && (t.s == "f32" || t.s == "absfloat") || t.k == kMat
}

func (t *typ) isInt() bool {
	return (t.k == kScalar || t.k == kVec) && (t.s == "i32" || t.s == "u32" || t.s == "absint")
}

// scalar returns the component type of a scalar or vector.
func (t *typ) scalar() *typ {
	if t.k == kVec || t.k == kMat {
		return scalarT(t.s)
	}
	return t
}

// withScalar returns t (scalar or vector) with component type s.
func (t *typ) withScalar(s string) *typ {
	if t.k == kVec {
		return vecT(t.n, s)
	}
	return scalarT(s)
}

func concreteScalar(s string) string {
	switch s {
	case "absint":
		return "i32"
	case "absfloat":
		return "f32"
	}
	return s
}

// concrete gives the type an abstract value takes by default.
func concrete(t *typ) *typ {
	if t.isAbstract() {
		return t.withScalar(concreteScalar(t.s))
	}
	return t
}

func sameType(a, b *typ) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.k != b.k {
		return false
	}
	switch a.k {
	case kScalar:
		return a.s == b.s
	case kVec:
		return a.s == b.s && a.n == b.n
	case kMat:
		return a.n == b.n && a.r == b.r
	case kArray:
		return a.n == b.n && sameType(a.elem, b.elem)
	case kAtomic, kPtr:
		return sameType(a.elem, b.elem)
	case kStruct:
		return a.st == b.st
	}
	return true
}

// convertible reports whether a value of type from can be used where to is
// expected (equal types, or an abstract value that converts).
func convertible(from, to *typ) bool {
	if sameType(from, to) {
		return true
	}
	if from.k == kAtomic {
		return convertible(from.elem, to)
	}
	if !from.isAbstract() || (from.k != to.k) || (from.k == kVec && from.n != to.n) {
		return false
	}
	switch from.s {
	case "absint":
		return to.s == "i32" || to.s == "u32" || to.s == "f32" || to.s == "absfloat"
	case "absfloat":
		return to.s == "f32"
	}
	return false
}

var glslScalar = map[string]string{"f32": "float", "i32": "int", "u32": "uint", "bool": "bool"}
var glslVecPrefix = map[string]string{"f32": "", "i32": "i", "u32": "u", "bool": "b"}

// glslType is the GLSL spelling of a non-array type; arrays give T[N].
func glslType(t *typ) string {
	switch t.k {
	case kVoid:
		return "void"
	case kScalar:
		return glslScalar[concreteScalar(t.s)]
	case kVec:
		return fmt.Sprintf("%svec%d", glslVecPrefix[concreteScalar(t.s)], t.n)
	case kMat:
		if t.n == t.r {
			return fmt.Sprintf("mat%d", t.n)
		}
		return fmt.Sprintf("mat%dx%d", t.n, t.r)
	case kAtomic:
		return glslType(t.elem)
	case kArray:
		base, dims := arrayDims(t)
		return glslType(base) + dims
	case kStruct:
		return glslName(t.name)
	}
	return "?" + t.String()
}

// arrayDims splits an array type into its innermost element and the GLSL
// dimension suffix: array<array<f32, 3>, 2> is float and [2][3].
func arrayDims(t *typ) (*typ, string) {
	var sb strings.Builder
	for t.k == kArray {
		if t.n == 0 {
			sb.WriteString("[]")
		} else {
			fmt.Fprintf(&sb, "[%d]", t.n)
		}
		t = t.elem
	}
	return t, sb.String()
}

// glslDecl declares name with type t ("float x", "float a[4]").
func glslDecl(t *typ, name string) string {
	if t.k == kArray {
		base, dims := arrayDims(t)
		return glslType(base) + " " + name + dims
	}
	return glslType(t) + " " + name
}

// glslName maps a WGSL identifier to one that is legal and not reserved in
// GLSL (names the translator invents start with tsr_; WGSL names that
// would collide with them, with GLSL words or builtins, or with the gl_
// namespace get a suffix or prefix).
func glslName(name string) string {
	if strings.HasPrefix(name, "gl_") || strings.HasPrefix(name, "tsr_") || strings.Contains(name, "__") {
		return "w" + strings.ReplaceAll(name, "__", "_0_")
	}
	if glslReserved[name] {
		return name + "_"
	}
	return name
}

// glslReserved holds GLSL 4.30 keywords, reserved words and built-in
// function names a WGSL identifier must not take.
var glslReserved = func() map[string]bool {
	words := `attribute const uniform varying buffer shared coherent volatile restrict readonly writeonly
atomic_uint layout centroid flat smooth noperspective patch sample break continue do for while switch case
default if else subroutine in out inout float double int void bool true false invariant precise discard return
mat2 mat3 mat4 dmat2 dmat3 dmat4 mat2x2 mat2x3 mat2x4 dmat2x2 dmat2x3 dmat2x4 mat3x2 mat3x3 mat3x4 dmat3x2
dmat3x3 dmat3x4 mat4x2 mat4x3 mat4x4 dmat4x2 dmat4x3 dmat4x4 vec2 vec3 vec4 ivec2 ivec3 ivec4 bvec2 bvec3 bvec4
dvec2 dvec3 dvec4 uint uvec2 uvec3 uvec4 lowp mediump highp precision struct common partition active asm class
union enum typedef template this resource goto inline noinline public static extern external interface long
short half fixed unsigned superp input output hvec2 hvec3 hvec4 fvec2 fvec3 fvec4 filter sizeof cast namespace
using sampler1D sampler2D sampler3D samplerCube image1D image2D image3D texture main
radians degrees sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh pow exp log exp2 log2 sqrt
inversesqrt abs sign floor trunc round roundEven ceil fract mod modf min max clamp mix step smoothstep isnan
isinf floatBitsToInt floatBitsToUint intBitsToFloat uintBitsToFloat fma frexp ldexp packUnorm2x16
packSnorm2x16 packUnorm4x8 packSnorm4x8 unpackUnorm2x16 unpackSnorm2x16 unpackUnorm4x8 unpackSnorm4x8
packHalf2x16 unpackHalf2x16 packDouble2x32 unpackDouble2x32 length distance dot cross normalize faceforward
reflect refract matrixCompMult outerProduct transpose determinant inverse lessThan lessThanEqual greaterThan
greaterThanEqual equal notEqual any all not uaddCarry usubBorrow umulExtended imulExtended bitfieldExtract
bitfieldInsert bitfieldReverse bitCount findLSB findMSB atomicAdd atomicMin atomicMax atomicAnd atomicOr
atomicXor atomicExchange atomicCompSwap barrier memoryBarrier memoryBarrierAtomicCounter memoryBarrierBuffer
memoryBarrierShared memoryBarrierImage groupMemoryBarrier atomicCounter atomicCounterIncrement
atomicCounterDecrement texelFetch imageLoad imageStore imageSize textureSize`
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}()
