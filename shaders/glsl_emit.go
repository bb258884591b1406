package shaders

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// symbol is a name in scope during translation.
type symbol struct {
	t      *typ
	g      string // its GLSL spelling
	global *globalVar
	konst  *constDecl // a module-scope const
	ptr    bool       // a pointer parameter; t is the pointee
	local  bool
	fixed  string // "let" or "parameter": may not be assigned
}

type translator struct {
	m       *module
	structs map[string]*structDecl
	fns     map[string]*fnDecl
	scopes  []map[string]*symbol
	types   map[expr]*typ
	impure  map[string]bool
	helpers map[string]string
	fn      *fnDecl
	entry   *fnDecl
	wgTotal int64
	sb      strings.Builder
	indent  int
	conts   []*loopStmt // enclosing loops; non-nil for loop statements with a continuing block
}

func newTranslator(m *module) (*translator, error) {
	tr := &translator{
		m:       m,
		structs: map[string]*structDecl{},
		fns:     map[string]*fnDecl{},
		types:   map[expr]*typ{},
		impure:  map[string]bool{},
		helpers: map[string]string{},
	}
	tr.scopes = []map[string]*symbol{{}}
	declared := func(line int, name string) error {
		if _, dup := tr.scopes[0][name]; dup {
			return errAt(line, "%s redeclared", name)
		}
		if _, dup := tr.structs[name]; dup {
			return errAt(line, "%s redeclared", name)
		}
		if _, dup := tr.fns[name]; dup {
			return errAt(line, "%s redeclared", name)
		}
		return nil
	}
	for id := range m.idents {
		if g := glslName(id); g != id && m.idents[g] {
			return nil, errAt(1, "cannot rename %s to %s for GLSL: the name is taken", id, g)
		}
	}
	for _, s := range m.structs {
		if err := declared(s.ln, s.name); err != nil {
			return nil, err
		}
		tr.structs[s.name] = s
	}
	for _, f := range m.fns {
		if err := declared(f.ln, f.name); err != nil {
			return nil, err
		}
		tr.fns[f.name] = f
		if f.compute {
			if tr.entry != nil {
				return nil, errAt(f.ln, "more than one compute entry point (%s and %s)", tr.entry.name, f.name)
			}
			tr.entry = f
		}
	}
	if tr.entry == nil {
		return nil, errAt(1, "no @compute entry point")
	}
	for _, s := range m.structs {
		for i := range s.fields {
			t, err := tr.resolve(s.fields[i].t, s.ln)
			if err != nil {
				return nil, err
			}
			s.fields[i].t = t
		}
	}
	for _, d := range m.order {
		switch d := d.(type) {
		case *globalVar:
			if err := declared(d.ln, d.name); err != nil {
				return nil, err
			}
			t, err := tr.resolve(d.t, d.ln)
			if err != nil {
				return nil, err
			}
			d.t = t
			tr.scopes[0][d.name] = &symbol{t: t, g: glslName(d.name), global: d}
		case *constDecl:
			if err := declared(d.ln, d.name); err != nil {
				return nil, err
			}
			t, err := tr.declType(d.ln, "const", d.t, d.init)
			if err != nil {
				return nil, err
			}
			d.t = t
			tr.scopes[0][d.name] = &symbol{t: t, g: glslName(d.name), konst: d}
		}
	}
	for _, f := range m.fns {
		for i := range f.params {
			t, err := tr.resolve(f.params[i].t, f.ln)
			if err != nil {
				return nil, err
			}
			f.params[i].t = t
		}
		if f.ret != nil {
			t, err := tr.resolve(f.ret, f.ln)
			if err != nil {
				return nil, err
			}
			f.ret = t
		} else {
			f.ret = tVoid
		}
	}
	tr.purity()
	return tr, nil
}

// resolve replaces names by their structs or aliases and evaluates array
// lengths.
func (tr *translator) resolve(t *typ, line int) (*typ, error) {
	switch t.k {
	case kNamed:
		if a, ok := tr.m.aliases[t.name]; ok {
			return tr.resolve(a, line)
		}
		if s, ok := tr.structs[t.name]; ok {
			return &typ{k: kStruct, name: s.name, st: s}, nil
		}
		return nil, errAt(t.line, "unknown type %s", t.name)
	case kArray:
		el, err := tr.resolve(t.elem, line)
		if err != nil {
			return nil, err
		}
		a := &typ{k: kArray, elem: el, n: t.n}
		if t.lenExpr != nil {
			v, ok := tr.constInt(t.lenExpr)
			if !ok || v <= 0 || v > 1<<20 {
				return nil, errAt(line, "array length must be a positive constant")
			}
			a.n = int(v)
		}
		return a, nil
	case kAtomic, kPtr:
		el, err := tr.resolve(t.elem, line)
		if err != nil {
			return nil, err
		}
		c := *t
		c.elem = el
		return &c, nil
	}
	return t, nil
}

// constInt evaluates an integer constant expression (literals, consts and
// integer arithmetic).
func (tr *translator) constInt(e expr) (int64, bool) {
	v, ok := tr.constVal(e)
	if !ok || v.float {
		return 0, false
	}
	return v.i, true
}

type cval struct {
	float bool
	i     int64
	f     float64
}

// constVal folds literals, module-scope consts and arithmetic over them.
// Abstract values are folded exactly as WGSL does (int64 and float64).
func (tr *translator) constVal(e expr) (cval, bool) {
	switch e := e.(type) {
	case *litExpr:
		switch e.kind {
		case "absint", "i32", "u32":
			return cval{i: e.ival}, true
		case "absfloat", "f32":
			return cval{float: true, f: e.fval}, true
		}
	case *identExpr:
		s := tr.lookup(e.name)
		if s != nil && s.konst != nil {
			return tr.constVal(s.konst.init)
		}
	case *unaryExpr:
		x, ok := tr.constVal(e.x)
		if !ok {
			return cval{}, false
		}
		switch e.op {
		case "-":
			if x.float {
				return cval{float: true, f: -x.f}, true
			}
			return cval{i: -x.i}, true
		case "~":
			if !x.float {
				return cval{i: ^x.i}, true
			}
		}
	case *binaryExpr:
		x, ok1 := tr.constVal(e.x)
		y, ok2 := tr.constVal(e.y)
		if !ok1 || !ok2 {
			return cval{}, false
		}
		if x.float || y.float {
			a, b := x.f, y.f
			if !x.float {
				a = float64(x.i)
			}
			if !y.float {
				b = float64(y.i)
			}
			switch e.op {
			case "+":
				return cval{float: true, f: a + b}, true
			case "-":
				return cval{float: true, f: a - b}, true
			case "*":
				return cval{float: true, f: a * b}, true
			case "/":
				if b != 0 {
					return cval{float: true, f: a / b}, true
				}
			}
			return cval{}, false
		}
		a, b := x.i, y.i
		switch e.op {
		case "+":
			return cval{i: a + b}, true
		case "-":
			return cval{i: a - b}, true
		case "*":
			return cval{i: a * b}, true
		case "/":
			if b != 0 {
				return cval{i: a / b}, true
			}
		case "%":
			if b != 0 {
				return cval{i: a % b}, true
			}
		case "&":
			return cval{i: a & b}, true
		case "|":
			return cval{i: a | b}, true
		case "^":
			return cval{i: a ^ b}, true
		case "<<":
			if b >= 0 && b < 63 {
				return cval{i: a << uint(b)}, true
			}
		case ">>":
			if b >= 0 && b < 63 {
				return cval{i: a >> uint(b)}, true
			}
		}
	}
	return cval{}, false
}

func (tr *translator) lookup(name string) *symbol {
	for i := len(tr.scopes) - 1; i >= 0; i-- {
		if s, ok := tr.scopes[i][name]; ok {
			return s
		}
	}
	return nil
}

func (tr *translator) push() { tr.scopes = append(tr.scopes, map[string]*symbol{}) }
func (tr *translator) pop()  { tr.scopes = tr.scopes[:len(tr.scopes)-1] }

func (tr *translator) bind(name string, s *symbol) {
	s.local = true
	tr.scopes[len(tr.scopes)-1][name] = s
}

// declType gives the type a let/var/const declaration has: the written one
// (checked against the initializer) or the initializer's, made concrete
// for let and var as WGSL does.
func (tr *translator) declType(line int, kw string, written *typ, init expr) (*typ, error) {
	var t *typ
	if written != nil {
		var err error
		if t, err = tr.resolve(written, line); err != nil {
			return nil, err
		}
	}
	if init != nil {
		it, err := tr.typeOf(init)
		if err != nil {
			return nil, err
		}
		if t != nil && !convertible(it, t) {
			return nil, errAt(line, "cannot initialize %s with %s", t, it)
		}
		if t == nil {
			t = it
			if kw != "const" {
				t = concrete(it)
			}
		}
	}
	if t.k == kPtr {
		return nil, errAt(line, "pointer-typed %s declarations are not supported", kw)
	}
	if t.k == kVoid {
		return nil, errAt(line, "%s initialized with a call that returns nothing", kw)
	}
	return t, nil
}

// ---- purity: which functions have side effects ----

func (tr *translator) purity() {
	for _, f := range tr.m.fns {
		for _, p := range f.params {
			if p.t.k == kPtr {
				tr.impure[f.name] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, f := range tr.m.fns {
			if tr.impure[f.name] {
				continue
			}
			bad := false
			walkStmts(f.body, func(s stmt) {
				var lhs expr
				switch s := s.(type) {
				case *assignStmt:
					lhs = s.lhs
				case *incStmt:
					lhs = s.x
				}
				if lhs != nil {
					if root := rootName(lhs); root != "" {
						if sym, ok := tr.scopes[0][root]; ok && sym.global != nil {
							bad = true
						}
					}
				}
			}, func(e expr) {
				if c, ok := e.(*callExpr); ok && tr.callImpure(c) {
					bad = true
				}
			})
			if bad {
				tr.impure[f.name] = true
				changed = true
			}
		}
	}
}

func (tr *translator) callImpure(c *callExpr) bool {
	if c.tmpl != nil {
		return false
	}
	return tr.impure[c.name] || strings.HasPrefix(c.name, "atomic") || strings.HasSuffix(c.name, "Barrier")
}

// pure reports whether evaluating e has no side effects, so it may be
// evaluated conditionally (as GLSL's ?: does) without changing meaning.
func (tr *translator) pure(e expr) bool {
	ok := true
	walkExpr(e, func(x expr) {
		if c, is := x.(*callExpr); is && tr.callImpure(c) {
			ok = false
		}
	})
	return ok
}

func rootName(e expr) string {
	for {
		switch x := e.(type) {
		case *identExpr:
			return x.name
		case *indexExpr:
			e = x.x
		case *memberExpr:
			e = x.x
		case *unaryExpr:
			e = x.x
		default:
			return ""
		}
	}
}

func walkExpr(e expr, f func(expr)) {
	if e == nil {
		return
	}
	f(e)
	switch x := e.(type) {
	case *unaryExpr:
		walkExpr(x.x, f)
	case *binaryExpr:
		walkExpr(x.x, f)
		walkExpr(x.y, f)
	case *callExpr:
		for _, a := range x.args {
			walkExpr(a, f)
		}
	case *indexExpr:
		walkExpr(x.x, f)
		walkExpr(x.i, f)
	case *memberExpr:
		walkExpr(x.x, f)
	}
}

func walkStmts(ss []stmt, fs func(stmt), fe func(expr)) {
	for _, s := range ss {
		walkStmt(s, fs, fe)
	}
}

func walkStmt(s stmt, fs func(stmt), fe func(expr)) {
	if s == nil {
		return
	}
	fs(s)
	switch s := s.(type) {
	case *declStmt:
		walkExpr(s.init, fe)
	case *assignStmt:
		walkExpr(s.lhs, fe)
		walkExpr(s.rhs, fe)
	case *incStmt:
		walkExpr(s.x, fe)
	case *exprStmt:
		walkExpr(s.x, fe)
	case *returnStmt:
		walkExpr(s.x, fe)
	case *ifStmt:
		walkExpr(s.cond, fe)
		walkStmts(s.then, fs, fe)
		walkStmts(s.els, fs, fe)
	case *loopStmt:
		walkStmts(s.body, fs, fe)
		walkStmts(s.cont, fs, fe)
		walkExpr(s.breakIf, fe)
	case *forStmt:
		walkStmt(s.init, fs, fe)
		walkExpr(s.cond, fe)
		walkStmt(s.update, fs, fe)
		walkStmts(s.body, fs, fe)
	case *whileStmt:
		walkExpr(s.cond, fe)
		walkStmts(s.body, fs, fe)
	case *blockStmt:
		walkStmts(s.body, fs, fe)
	}
}

// ---- type inference ----

func (tr *translator) typeOf(e expr) (*typ, error) {
	if t, ok := tr.types[e]; ok {
		return t, nil
	}
	t, err := tr.infer(e)
	if err != nil {
		return nil, err
	}
	tr.types[e] = t
	return t, nil
}

// deref strips pointer and atomic wrappers off a value's type.
func deref(t *typ) *typ {
	for t.k == kPtr {
		t = t.elem
	}
	return t
}

func (tr *translator) infer(e expr) (*typ, error) {
	switch e := e.(type) {
	case *litExpr:
		return scalarT(e.kind), nil
	case *identExpr:
		s := tr.lookup(e.name)
		if s == nil {
			if _, isFn := tr.fns[e.name]; isFn {
				return nil, errAt(e.ln, "function %s used as a value", e.name)
			}
			return nil, errAt(e.ln, "undeclared identifier %s", e.name)
		}
		if s.ptr {
			return &typ{k: kPtr, elem: s.t, space: "function"}, nil
		}
		return s.t, nil
	case *unaryExpr:
		x, err := tr.typeOf(e.x)
		if err != nil {
			return nil, err
		}
		switch e.op {
		case "&":
			return &typ{k: kPtr, elem: x}, nil
		case "*":
			if x.k != kPtr {
				return nil, errAt(e.ln, "dereference of a non-pointer %s", x)
			}
			return x.elem, nil
		case "!":
			if (x.k != kScalar && x.k != kVec) || x.s != "bool" {
				return nil, errAt(e.ln, "'!' needs a bool operand, not %s", x)
			}
			return x, nil
		case "~":
			if !x.isInt() {
				return nil, errAt(e.ln, "'~' needs an integer operand, not %s", x)
			}
			return x, nil
		}
		if !x.isNumericScalarOrVec() && x.k != kMat || x.s == "u32" {
			return nil, errAt(e.ln, "unary '-' of %s", x)
		}
		return x, nil
	case *binaryExpr:
		return tr.inferBinary(e)
	case *indexExpr:
		x, err := tr.typeOf(e.x)
		if err != nil {
			return nil, err
		}
		it, err := tr.typeOf(e.i)
		if err != nil {
			return nil, err
		}
		if it.k != kScalar || !it.isInt() {
			return nil, errAt(e.ln, "index of type %s", it)
		}
		x = deref(x)
		switch x.k {
		case kArray:
			return x.elem, nil
		case kVec:
			return scalarT(x.s), nil
		case kMat:
			return vecT(x.r, "f32"), nil
		}
		return nil, errAt(e.ln, "cannot index %s", x)
	case *memberExpr:
		x, err := tr.typeOf(e.x)
		if err != nil {
			return nil, err
		}
		x = deref(x)
		switch x.k {
		case kStruct:
			for _, f := range x.st.fields {
				if f.name == e.name {
					return f.t, nil
				}
			}
			return nil, errAt(e.ln, "%s has no member %s", x, e.name)
		case kVec:
			if !validSwizzle(e.name, x.n) {
				return nil, errAt(e.ln, "invalid swizzle .%s of %s", e.name, x)
			}
			if len(e.name) == 1 {
				return scalarT(x.s), nil
			}
			return vecT(len(e.name), x.s), nil
		}
		return nil, errAt(e.ln, "member .%s of %s", e.name, x)
	case *callExpr:
		return tr.inferCall(e)
	}
	return nil, errAt(e.pos(), "unsupported expression")
}

func validSwizzle(s string, n int) bool {
	if len(s) < 1 || len(s) > 4 {
		return false
	}
	for _, set := range []string{"xyzw", "rgba"} {
		ok := true
		for _, c := range s {
			i := strings.IndexRune(set, c)
			if i < 0 || i >= n {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// unify gives the common type of operands that must agree, converting
// abstract values to the concrete one.
func unify(line int, what string, ts ...*typ) (*typ, error) {
	var c *typ
	for _, t := range ts {
		if t.k == kAtomic {
			t = t.elem
		}
		if !t.isAbstract() {
			c = t
			break
		}
	}
	if c == nil {
		c = ts[0]
		for _, t := range ts {
			if t.s == "absfloat" {
				c = t
			}
		}
		for _, t := range ts {
			if !convertible(t, c) && !sameType(t, c) {
				return nil, errAt(line, "%s: mismatched operands %s and %s", what, ts[0], t)
			}
		}
		return c, nil
	}
	for _, t := range ts {
		if !convertible(t, c) {
			return nil, errAt(line, "%s: mismatched operands %s and %s", what, c, t)
		}
	}
	return c, nil
}

func (tr *translator) inferBinary(e *binaryExpr) (*typ, error) {
	x, err := tr.typeOf(e.x)
	if err != nil {
		return nil, err
	}
	y, err := tr.typeOf(e.y)
	if err != nil {
		return nil, err
	}
	switch e.op {
	case "&&", "||":
		if !sameType(x, tBool) || !sameType(y, tBool) {
			return nil, errAt(e.ln, "'%s' needs bool operands, not %s and %s", e.op, x, y)
		}
		return tBool, nil
	case "==", "!=", "<", ">", "<=", ">=":
		t, err := unify(e.ln, e.op, x, y)
		if err != nil {
			return nil, err
		}
		if t.k == kVec {
			return vecT(t.n, "bool"), nil
		}
		if t.k != kScalar {
			return nil, errAt(e.ln, "cannot compare %s", t)
		}
		return tBool, nil
	case "<<", ">>":
		if !x.isInt() || !y.isInt() || y.s == "i32" {
			return nil, errAt(e.ln, "shift of %s by %s", x, y)
		}
		return x, nil
	case "&", "|", "^":
		t, err := unify(e.ln, e.op, x, y)
		if err != nil {
			return nil, err
		}
		if t.k != kScalar && t.k != kVec || t.s == "f32" || t.s == "absfloat" {
			return nil, errAt(e.ln, "'%s' of %s", e.op, t)
		}
		return t, nil
	}
	// + - * / %
	if e.op == "*" {
		switch {
		case x.k == kMat && y.k == kMat:
			if x.n != y.r {
				return nil, errAt(e.ln, "%s * %s", x, y)
			}
			return matT(y.n, x.r), nil
		case x.k == kMat && y.k == kVec:
			if x.n != y.n || !y.isFloat() {
				return nil, errAt(e.ln, "%s * %s", x, y)
			}
			return vecT(x.r, "f32"), nil
		case x.k == kVec && y.k == kMat:
			if x.n != y.r || !x.isFloat() {
				return nil, errAt(e.ln, "%s * %s", x, y)
			}
			return vecT(y.n, "f32"), nil
		case x.k == kMat && y.k == kScalar && y.isFloat():
			return x, nil
		case x.k == kScalar && x.isFloat() && y.k == kMat:
			return y, nil
		}
	}
	if x.k == kMat && y.k == kMat && (e.op == "+" || e.op == "-") && sameType(x, y) {
		return x, nil
	}
	if !x.isNumericScalarOrVec() || !y.isNumericScalarOrVec() {
		return nil, errAt(e.ln, "'%s' of %s and %s", e.op, x, y)
	}
	// vector op scalar
	if x.k == kVec && y.k == kScalar {
		s, err := unify(e.ln, e.op, x.scalar(), y)
		if err != nil {
			return nil, err
		}
		return vecT(x.n, s.s), nil
	}
	if x.k == kScalar && y.k == kVec {
		s, err := unify(e.ln, e.op, x, y.scalar())
		if err != nil {
			return nil, err
		}
		return vecT(y.n, s.s), nil
	}
	return unify(e.ln, e.op, x, y)
}

var mathFloat1 = map[string]string{
	"sqrt": "sqrt", "inverseSqrt": "inversesqrt", "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2",
	"sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh",
	"cosh": "cosh", "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "floor": "floor",
	"ceil": "ceil", "round": "roundEven", "trunc": "trunc", "fract": "fract", "degrees": "degrees",
	"radians": "radians", "normalize": "normalize",
}

var mathFloatN = map[string]struct {
	g string
	n int
}{
	"pow": {"pow", 2}, "atan2": {"atan", 2}, "step": {"step", 2}, "smoothstep": {"smoothstep", 3},
	"fma": {"fma", 3}, "mix": {"mix", 3},
}

var intBits1 = map[string]string{
	"countOneBits": "bitCount", "reverseBits": "bitfieldReverse", "firstLeadingBit": "findMSB", "firstTrailingBit": "findLSB",
}

func (tr *translator) argTypes(c *callExpr) ([]*typ, error) {
	ts := make([]*typ, len(c.args))
	for i, a := range c.args {
		t, err := tr.typeOf(a)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	return ts, nil
}

func (tr *translator) inferCall(c *callExpr) (*typ, error) {
	args, err := tr.argTypes(c)
	if err != nil {
		return nil, err
	}
	nargs := func(n int) error {
		if len(args) != n {
			return errAt(c.ln, "%s takes %d arguments, not %d", c.name, n, len(args))
		}
		return nil
	}
	if c.name == "bitcast" {
		if err := nargs(1); err != nil {
			return nil, err
		}
		if c.tmpl == nil {
			return nil, errAt(c.ln, "bitcast needs a target type: bitcast<T>(x)")
		}
		to, err := tr.resolve(c.tmpl, c.ln)
		if err != nil {
			return nil, err
		}
		from := concrete(args[0])
		if (to.k != kScalar && to.k != kVec) || (from.k != kScalar && from.k != kVec) || to.s == "bool" || from.s == "bool" ||
			(to.k == kVec) != (from.k == kVec) || to.n != from.n {
			return nil, errAt(c.ln, "unsupported bitcast from %s to %s", args[0], to)
		}
		return to, nil
	}
	if t, ok, err := tr.ctorType(c, args); ok || err != nil {
		return t, err
	}
	if f, ok := tr.fns[c.name]; ok {
		if f.compute {
			return nil, errAt(c.ln, "the entry point %s cannot be called", c.name)
		}
		if err := nargs(len(f.params)); err != nil {
			return nil, err
		}
		for i, p := range f.params {
			if !convertible(args[i], p.t) && !(p.t.k == kPtr && args[i].k == kPtr && sameType(args[i].elem, p.t.elem)) {
				return nil, errAt(c.ln, "argument %d of %s: %s, want %s", i+1, c.name, args[i], p.t)
			}
		}
		return f.ret, nil
	}
	if s := tr.lookup(c.name); s != nil {
		return nil, errAt(c.ln, "%s is not a function", c.name)
	}
	name := c.name
	if _, ok := mathFloat1[name]; ok {
		if err := nargs(1); err != nil {
			return nil, err
		}
		if !args[0].isFloat() || args[0].k == kMat {
			return nil, errAt(c.ln, "%s of %s", name, args[0])
		}
		return concrete(args[0]), nil
	}
	if m, ok := mathFloatN[name]; ok {
		if err := nargs(m.n); err != nil {
			return nil, err
		}
		ts := args
		if name == "mix" && args[2].k == kScalar {
			ts = args[:2]
		}
		t, err := unify(c.ln, name, ts...)
		if err != nil {
			return nil, err
		}
		if !t.isFloat() || t.k == kMat {
			return nil, errAt(c.ln, "%s of %s", name, t)
		}
		return concrete(t), nil
	}
	if g, ok := intBits1[name]; ok {
		_ = g
		if err := nargs(1); err != nil {
			return nil, err
		}
		if !args[0].isInt() {
			return nil, errAt(c.ln, "%s of %s", name, args[0])
		}
		return concrete(args[0]), nil
	}
	switch name {
	case "abs", "sign", "saturate":
		if err := nargs(1); err != nil {
			return nil, err
		}
		if !args[0].isNumericScalarOrVec() || (name == "sign" && args[0].s == "u32") || (name == "saturate" && !args[0].isFloat()) {
			return nil, errAt(c.ln, "%s of %s", name, args[0])
		}
		return concrete(args[0]), nil
	case "min", "max", "clamp":
		n := 2
		if name == "clamp" {
			n = 3
		}
		if err := nargs(n); err != nil {
			return nil, err
		}
		t, err := unify(c.ln, name, args...)
		if err != nil {
			return nil, err
		}
		if !t.isNumericScalarOrVec() {
			return nil, errAt(c.ln, "%s of %s", name, t)
		}
		return concrete(t), nil
	case "select":
		if err := nargs(3); err != nil {
			return nil, err
		}
		t, err := unify(c.ln, name, args[0], args[1])
		if err != nil {
			return nil, err
		}
		cond := args[2]
		if cond.s != "bool" || (cond.k != kScalar && !(cond.k == kVec && t.k == kVec && t.n == cond.n)) {
			return nil, errAt(c.ln, "select condition %s for %s", cond, t)
		}
		if t.k != kScalar && t.k != kVec {
			return nil, errAt(c.ln, "select of %s is not supported", t)
		}
		return concrete(t), nil
	case "dot":
		if err := nargs(2); err != nil {
			return nil, err
		}
		t, err := unify(c.ln, name, args...)
		if err != nil {
			return nil, err
		}
		if t.k != kVec || !t.isFloat() {
			return nil, errAt(c.ln, "dot of %s is not supported", t)
		}
		return tF32, nil
	case "length", "distance", "determinant":
		if len(args) < 1 || !args[0].isFloat() {
			return nil, errAt(c.ln, "%s of these arguments is not supported", name)
		}
		return tF32, nil
	case "cross":
		if err := nargs(2); err != nil {
			return nil, err
		}
		return vecT(3, "f32"), nil
	case "transpose":
		if err := nargs(1); err != nil {
			return nil, err
		}
		if args[0].k != kMat {
			return nil, errAt(c.ln, "transpose of %s", args[0])
		}
		return matT(args[0].r, args[0].n), nil
	case "all", "any":
		if err := nargs(1); err != nil {
			return nil, err
		}
		if args[0].s != "bool" {
			return nil, errAt(c.ln, "%s of %s", name, args[0])
		}
		return tBool, nil
	case "arrayLength":
		if err := nargs(1); err != nil {
			return nil, err
		}
		if args[0].k != kPtr || args[0].elem.k != kArray || args[0].elem.n != 0 {
			return nil, errAt(c.ln, "arrayLength needs a pointer to a runtime-sized array")
		}
		return tU32, nil
	case "extractBits":
		if err := nargs(3); err != nil {
			return nil, err
		}
		if !args[0].isInt() {
			return nil, errAt(c.ln, "%s of %s", name, args[0])
		}
		return concrete(args[0]), nil
	case "insertBits":
		if err := nargs(4); err != nil {
			return nil, err
		}
		return unify(c.ln, name, args[0], args[1])
	case "workgroupBarrier", "storageBarrier":
		if err := nargs(0); err != nil {
			return nil, err
		}
		return tVoid, nil
	case "atomicLoad", "atomicStore", "atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicAnd", "atomicOr", "atomicXor", "atomicExchange":
		n := 2
		if name == "atomicLoad" {
			n = 1
		}
		if err := nargs(n); err != nil {
			return nil, err
		}
		if args[0].k != kPtr || args[0].elem.k != kAtomic {
			return nil, errAt(c.ln, "%s needs a pointer to an atomic, not %s", name, args[0])
		}
		el := args[0].elem.elem
		if n == 2 && !convertible(args[1], el) {
			return nil, errAt(c.ln, "%s of %s with %s", name, el, args[1])
		}
		if name == "atomicStore" {
			return tVoid, nil
		}
		return el, nil
	case "pack2x16float", "pack2x16unorm", "pack2x16snorm", "pack4x8unorm", "pack4x8snorm":
		if err := nargs(1); err != nil {
			return nil, err
		}
		return tU32, nil
	case "unpack2x16float", "unpack2x16unorm", "unpack2x16snorm":
		if err := nargs(1); err != nil {
			return nil, err
		}
		return vecT(2, "f32"), nil
	case "unpack4x8unorm", "unpack4x8snorm":
		if err := nargs(1); err != nil {
			return nil, err
		}
		return vecT(4, "f32"), nil
	}
	return nil, errAt(c.ln, "unsupported or unknown function %s", name)
}

// ctorType types value constructors: scalar conversions, vectors,
// matrices, arrays and structs.
func (tr *translator) ctorType(c *callExpr, args []*typ) (*typ, bool, error) {
	var t *typ
	switch {
	case c.tmpl != nil:
		var err error
		if t, err = tr.resolve(c.tmpl, c.ln); err != nil {
			return nil, true, err
		}
	case c.name == "f32" || c.name == "i32" || c.name == "u32" || c.name == "bool":
		t = scalarT(c.name)
	case shorthandType(c.name) != nil:
		t = shorthandType(c.name)
	case c.name == "vec2" || c.name == "vec3" || c.name == "vec4":
		if len(args) == 0 {
			return nil, true, errAt(c.ln, "%s() needs a component type", c.name)
		}
		var comps []*typ
		for _, a := range args {
			comps = append(comps, a.scalar())
		}
		s, err := unify(c.ln, c.name, comps...)
		if err != nil {
			return nil, true, err
		}
		t = vecT(int(c.name[3]-'0'), s.s)
	case c.name == "array":
		if len(args) == 0 {
			return nil, true, errAt(c.ln, "array() needs an element type")
		}
		el, err := unify(c.ln, "array", args...)
		if err != nil {
			return nil, true, err
		}
		t = &typ{k: kArray, elem: concrete(el), n: len(args)}
	default:
		if a, ok := tr.m.aliases[c.name]; ok {
			var err error
			if t, err = tr.resolve(a, c.ln); err != nil {
				return nil, true, err
			}
		} else if s, ok := tr.structs[c.name]; ok {
			t = &typ{k: kStruct, name: s.name, st: s}
		} else {
			return nil, false, nil
		}
	}
	if t.k == kMat && c.tmpl == nil && shorthandType(c.name) == nil {
		return nil, true, errAt(c.ln, "%s needs a component type", c.name)
	}
	if len(args) == 0 {
		return t, true, nil
	}
	switch t.k {
	case kScalar:
		if len(args) != 1 || (args[0].k != kScalar) {
			return nil, true, errAt(c.ln, "%s(%d arguments)", t, len(args))
		}
	case kVec:
		n := 0
		for _, a := range args {
			switch a.k {
			case kScalar:
				n++
			case kVec:
				n += a.n
			default:
				return nil, true, errAt(c.ln, "%s from %s", t, a)
			}
		}
		if n != t.n && !(n == 1 && len(args) == 1) && !(len(args) == 1 && args[0].k == kVec && args[0].n == t.n) {
			return nil, true, errAt(c.ln, "%s from %d components", t, n)
		}
	case kMat:
		if len(args) != t.n && len(args) != t.n*t.r {
			return nil, true, errAt(c.ln, "%s from %d arguments", t, len(args))
		}
	case kArray:
		if t.n == 0 || len(args) != t.n {
			return nil, true, errAt(c.ln, "%s from %d elements", t, len(args))
		}
		for _, a := range args {
			if !convertible(a, t.elem) {
				return nil, true, errAt(c.ln, "%s element of type %s", t, a)
			}
		}
	case kStruct:
		if len(args) != len(t.st.fields) {
			return nil, true, errAt(c.ln, "%s from %d values", t, len(args))
		}
		for i, f := range t.st.fields {
			if !convertible(args[i], f.t) {
				return nil, true, errAt(c.ln, "%s.%s from %s", t, f.name, args[i])
			}
		}
	default:
		return nil, true, errAt(c.ln, "cannot construct %s", t)
	}
	return t, true, nil
}

// ---- emission ----

func (tr *translator) line(format string, args ...any) {
	tr.sb.WriteString(strings.Repeat("    ", tr.indent))
	fmt.Fprintf(&tr.sb, format, args...)
	tr.sb.WriteByte('\n')
}

// lit spells a constant as a GLSL literal of scalar type s, in hexadecimal
// when hex is set and the value is an integer.
func lit(line int, v cval, s string, hex bool) (string, error) {
	switch s {
	case "f32":
		f := v.f
		if !v.float {
			f = float64(v.i)
		}
		f32 := float32(f)
		if math.IsInf(float64(f32), 0) || math.IsNaN(float64(f32)) {
			return "", errAt(line, "constant %v is not a finite f32", f)
		}
		txt := strconv.FormatFloat(float64(f32), 'g', -1, 32)
		if !strings.ContainsAny(txt, ".e") {
			txt += ".0"
		}
		return txt, nil
	case "i32":
		if v.float {
			return "", errAt(line, "float constant used as i32")
		}
		if v.i < math.MinInt32 || v.i > math.MaxInt32 {
			return "", errAt(line, "constant %d out of i32 range", v.i)
		}
		if v.i == math.MinInt32 {
			return "(-2147483647 - 1)", nil
		}
		if hex && v.i >= 0 {
			return fmt.Sprintf("0x%x", v.i), nil
		}
		return strconv.FormatInt(v.i, 10), nil
	case "u32":
		if v.float {
			return "", errAt(line, "float constant used as u32")
		}
		if v.i < 0 || v.i > math.MaxUint32 {
			return "", errAt(line, "constant %d out of u32 range", v.i)
		}
		if hex {
			return fmt.Sprintf("0x%xu", v.i), nil
		}
		return strconv.FormatInt(v.i, 10) + "u", nil
	}
	return "", errAt(line, "constant of type %s", s)
}

// target is the concrete type an expression of type t takes where a value
// of type want is expected: t itself unless t is abstract.
func target(t, want *typ) *typ {
	if !t.isAbstract() {
		return t
	}
	if want != nil && (want.k == kScalar || want.k == kVec || want.k == kAtomic || want.k == kMat) {
		w := want
		if w.k == kAtomic {
			w = w.elem
		}
		s := concreteScalar(w.s)
		if s != "bool" && (t.s == "absint" || s == "f32") {
			return t.withScalar(s)
		}
	}
	return concrete(t)
}

// emit spells e in GLSL; want is the type the context expects (used to
// give abstract literals their concrete type), or nil.
func (tr *translator) emit(e expr, want *typ) (string, error) {
	t, err := tr.typeOf(e)
	if err != nil {
		return "", err
	}
	tg := target(t, want)
	if t.isAbstract() && t.k == kScalar {
		if v, ok := tr.constVal(e); ok {
			l, isLit := e.(*litExpr)
			return lit(e.pos(), v, tg.s, isLit && l.hex)
		}
	}
	switch e := e.(type) {
	case *litExpr:
		if e.kind == "bool" {
			return strconv.FormatBool(e.bval), nil
		}
		v := cval{i: e.ival, f: e.fval, float: e.kind == "f32" || e.kind == "absfloat"}
		return lit(e.ln, v, tg.s, e.hex)
	case *identExpr:
		s := tr.lookup(e.name)
		if s.konst != nil && s.t.isAbstract() {
			return "", errAt(e.ln, "abstract constant %s is not a constant expression", e.name)
		}
		return s.g, nil
	case *unaryExpr:
		switch e.op {
		case "&":
			return "", errAt(e.ln, "pointers are supported only as arguments of functions, atomics and arrayLength")
		case "*":
			x, err := tr.emit(e.x, nil)
			return x, err
		}
		var w *typ
		if t.isAbstract() {
			w = tg
		}
		x, err := tr.emit(e.x, w)
		if err != nil {
			return "", err
		}
		if e.op == "!" && t.k == kVec {
			return "not(" + x + ")", nil
		}
		return "(" + e.op + x + ")", nil
	case *binaryExpr:
		return tr.emitBinary(e, t, tg)
	case *indexExpr:
		x, err := tr.emit(e.x, nil)
		if err != nil {
			return "", err
		}
		i, err := tr.emit(e.i, nil)
		if err != nil {
			return "", err
		}
		return x + "[" + i + "]", nil
	case *memberExpr:
		x, err := tr.emit(e.x, nil)
		if err != nil {
			return "", err
		}
		xt, _ := tr.typeOf(e.x)
		if deref(xt).k == kStruct {
			return x + "." + glslName(e.name), nil
		}
		return x + "." + e.name, nil
	case *callExpr:
		return tr.emitCall(e, t, tg)
	}
	return "", errAt(e.pos(), "unsupported expression")
}

// emitArgs spells operands that must share a type.
func (tr *translator) emitOperands(line int, want *typ, es ...expr) ([]string, error) {
	out := make([]string, len(es))
	for i, e := range es {
		s, err := tr.emit(e, want)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

var vecCompare = map[string]string{
	"==": "equal", "!=": "notEqual", "<": "lessThan", "<=": "lessThanEqual", ">": "greaterThan", ">=": "greaterThanEqual",
}

func (tr *translator) emitBinary(e *binaryExpr, t, tg *typ) (string, error) {
	xt, _ := tr.typeOf(e.x)
	yt, _ := tr.typeOf(e.y)
	// The type each operand is spelled in: abstract operands take the
	// other operand's (or the context's) component type.
	operandWant := func(self, other *typ) *typ {
		if !self.isAbstract() {
			return nil
		}
		if t.isAbstract() {
			return self.withScalar(tg.s)
		}
		o := other
		if o.k == kMat {
			return self.withScalar("f32")
		}
		if o.isAbstract() {
			return concrete(self)
		}
		return self.withScalar(o.s)
	}
	var wx, wy *typ
	switch e.op {
	case "<<", ">>":
		if xt.isAbstract() {
			wx = xt.withScalar(tg.s)
		}
		wy = yt.withScalar("u32")
	case "&&", "||":
	default:
		wx, wy = operandWant(xt, yt), operandWant(yt, xt)
	}
	x, err := tr.emit(e.x, wx)
	if err != nil {
		return "", err
	}
	y, err := tr.emit(e.y, wy)
	if err != nil {
		return "", err
	}
	cx := target(xt, wx)
	cy := target(yt, wy)
	switch e.op {
	case "==", "!=", "<", "<=", ">", ">=":
		if t.k == kVec {
			if cx.k != cy.k {
				return "", errAt(e.ln, "vector compared with scalar")
			}
			return vecCompare[e.op] + "(" + x + ", " + y + ")", nil
		}
	case "<<", ">>":
		if _, isConst := tr.constVal(e.y); isConst {
			v, _ := tr.constVal(e.y)
			if v.i < 0 || v.i > 31 {
				return "", errAt(e.ln, "shift by %d", v.i)
			}
			return "(" + x + " " + e.op + " " + y + ")", nil
		}
		// WGSL shifts by the amount modulo 32; GLSL leaves larger shifts undefined.
		return "(" + x + " " + e.op + " (" + y + " & 31u))", nil
	case "&", "|", "^":
		if tg.s == "bool" {
			if tg.k == kVec {
				return "", errAt(e.ln, "'%s' of bool vectors is not supported", e.op)
			}
			op := map[string]string{"&": "&&", "|": "||", "^": "!="}[e.op]
			if tr.pure(e.x) && tr.pure(e.y) {
				return "(" + x + " " + op + " " + y + ")", nil
			}
			name := "tsr_bool_" + map[string]string{"&": "and", "|": "or", "^": "xor"}[e.op]
			tr.helper(name, fmt.Sprintf("bool %s(bool a, bool b) { return a %s b; }", name, op))
			return name + "(" + x + ", " + y + ")", nil
		}
	case "/", "%":
		if tg.isInt() {
			v, isConst := tr.constVal(e.y)
			if isConst && !v.float && v.i != 0 && !(tg.s == "i32" && v.i == -1) {
				return "(" + x + " " + e.op + " " + y + ")", nil
			}
			if tg.k == kVec || cx.k != cy.k {
				return "", errAt(e.ln, "integer vector '%s' by a non-constant divisor is not supported", e.op)
			}
			return tr.intDivHelper(tg.s, e.op) + "(" + x + ", " + y + ")", nil
		}
		if e.op == "%" {
			g := glslType(tg)
			if cx.k != tg.k {
				x = g + "(" + x + ")"
			}
			if cy.k != tg.k {
				y = g + "(" + y + ")"
			}
			name := "tsr_fmod_" + g
			tr.helper(name, fmt.Sprintf("%s %s(%s a, %s b) { return a - b * trunc(a / b); }", g, name, g, g))
			return name + "(" + x + ", " + y + ")", nil
		}
	}
	return "(" + x + " " + e.op + " " + y + ")", nil
}

// intDivHelper gives WGSL's integer division and remainder: x / 0 is x,
// x % 0 is 0, and the most negative i32 divided by -1 is itself (GLSL
// leaves all of these undefined).
func (tr *translator) intDivHelper(s, op string) string {
	switch {
	case s == "u32" && op == "/":
		tr.helper("tsr_div_u32", "uint tsr_div_u32(uint a, uint b) { return b == 0u ? a : a / b; }")
		return "tsr_div_u32"
	case s == "u32":
		tr.helper("tsr_rem_u32", "uint tsr_rem_u32(uint a, uint b) { return b == 0u ? 0u : a % b; }")
		return "tsr_rem_u32"
	case op == "/":
		tr.helper("tsr_div_i32", "int tsr_div_i32(int a, int b) { return (b == 0 || (a == int(0x80000000u) && b == -1)) ? a : a / b; }")
		return "tsr_div_i32"
	}
	tr.helper("tsr_rem_i32", "int tsr_rem_i32(int a, int b) { return (b == 0 || (a == int(0x80000000u) && b == -1)) ? 0 : a - b * (a / b); }")
	return "tsr_rem_i32"
}

func (tr *translator) helper(name, src string) {
	tr.helpers[name] = src
}

// zero spells the zero value of t (WGSL zero-initializes variables).
func zero(t *typ) string {
	switch t.k {
	case kScalar:
		return map[string]string{"f32": "0.0", "i32": "0", "u32": "0u", "bool": "false"}[concreteScalar(t.s)]
	case kVec:
		return glslType(t) + "(" + zero(scalarT(t.s)) + ")"
	case kMat:
		return glslType(t) + "(0.0)"
	case kAtomic:
		return zero(t.elem)
	case kArray:
		el := zero(t.elem)
		parts := make([]string, t.n)
		for i := range parts {
			parts[i] = el
		}
		return glslType(t) + "(" + strings.Join(parts, ", ") + ")"
	case kStruct:
		parts := make([]string, len(t.st.fields))
		for i, f := range t.st.fields {
			parts[i] = zero(f.t)
		}
		return glslType(t) + "(" + strings.Join(parts, ", ") + ")"
	}
	return "?"
}

func (tr *translator) emitCall(c *callExpr, t, tg *typ) (string, error) {
	args, _ := tr.argTypes(c)
	join := func(ss []string) string { return strings.Join(ss, ", ") }
	each := func(want func(i int) *typ) ([]string, error) {
		out := make([]string, len(c.args))
		for i, a := range c.args {
			s, err := tr.emit(a, want(i))
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	}
	same := func(w *typ) func(int) *typ { return func(int) *typ { return w } }
	if c.name == "bitcast" {
		x, err := tr.emit(c.args[0], nil)
		if err != nil {
			return "", err
		}
		from, to := concrete(args[0]).s, t.s
		switch {
		case from == to:
			return "(" + x + ")", nil
		case to == "f32" && from == "u32":
			return "uintBitsToFloat(" + x + ")", nil
		case to == "f32" && from == "i32":
			return "intBitsToFloat(" + x + ")", nil
		case from == "f32" && to == "u32":
			return "floatBitsToUint(" + x + ")", nil
		case from == "f32" && to == "i32":
			return "floatBitsToInt(" + x + ")", nil
		}
		// i32 <-> u32: GLSL's conversion keeps the bit pattern.
		return glslType(t) + "(" + x + ")", nil
	}
	if _, ok, _ := tr.ctorType(c, args); ok {
		tg = target(t, nil)
		if len(c.args) == 0 {
			return zero(tg), nil
		}
		var ss []string
		var err error
		switch tg.k {
		case kScalar:
			if args[0].isAbstract() {
				return tr.emit(c.args[0], tg)
			}
			ss, err = each(same(nil))
		case kVec, kMat:
			ss, err = each(func(i int) *typ { return args[i].withScalar(tg.s) })
		case kArray:
			ss, err = each(same(tg.elem))
		case kStruct:
			ss, err = each(func(i int) *typ { return tg.st.fields[i].t })
		}
		if err != nil {
			return "", err
		}
		return glslType(tg) + "(" + join(ss) + ")", nil
	}
	if f, ok := tr.fns[c.name]; ok {
		ss := make([]string, len(c.args))
		for i, a := range c.args {
			p := f.params[i]
			if p.t.k == kPtr {
				s, err := tr.pointerArg(a)
				if err != nil {
					return "", err
				}
				ss[i] = s
				continue
			}
			s, err := tr.emit(a, p.t)
			if err != nil {
				return "", err
			}
			ss[i] = s
		}
		return glslName(c.name) + "(" + join(ss) + ")", nil
	}
	name := c.name
	if g, ok := mathFloat1[name]; ok {
		ss, err := each(same(tg))
		if err != nil {
			return "", err
		}
		return g + "(" + join(ss) + ")", nil
	}
	if m, ok := mathFloatN[name]; ok {
		ss, err := each(func(i int) *typ {
			if name == "mix" && i == 2 {
				return args[2].withScalar("f32")
			}
			return tg
		})
		if err != nil {
			return "", err
		}
		return m.g + "(" + join(ss) + ")", nil
	}
	if g, ok := intBits1[name]; ok {
		ss, err := each(same(tg))
		if err != nil {
			return "", err
		}
		if (name == "firstLeadingBit" || name == "firstTrailingBit") && tg.s == "u32" {
			return glslType(tg) + "(" + g + "(" + ss[0] + "))", nil
		}
		if name == "countOneBits" && tg.s == "u32" {
			return glslType(tg) + "(" + g + "(" + ss[0] + "))", nil
		}
		return g + "(" + join(ss) + ")", nil
	}
	switch name {
	case "abs", "sign", "min", "max", "clamp":
		ss, err := each(same(tg))
		if err != nil {
			return "", err
		}
		if name == "abs" && tg.s == "u32" {
			return "(" + ss[0] + ")", nil
		}
		return name + "(" + join(ss) + ")", nil
	case "saturate":
		x, err := tr.emit(c.args[0], tg)
		if err != nil {
			return "", err
		}
		return "clamp(" + x + ", 0.0, 1.0)", nil
	case "select":
		ss, err := each(func(i int) *typ {
			if i == 2 {
				return nil
			}
			return tg
		})
		if err != nil {
			return "", err
		}
		f, tv, cond := ss[0], ss[1], ss[2]
		ct := args[2]
		if ct.k == kScalar && tr.pure(c.args[0]) && tr.pure(c.args[1]) && tr.pure(c.args[2]) {
			return "(" + cond + " ? " + tv + " : " + f + ")", nil
		}
		g, gc := glslType(tg), glslType(ct)
		hname := "tsr_select_" + g + "_" + gc
		var body string
		if ct.k == kScalar {
			body = "c ? t : f"
		} else {
			parts := make([]string, ct.n)
			for i := range parts {
				k := "xyzw"[i : i+1]
				parts[i] = "c." + k + " ? t." + k + " : f." + k
			}
			body = g + "(" + strings.Join(parts, ", ") + ")"
		}
		tr.helper(hname, fmt.Sprintf("%s %s(%s f, %s t, %s c) { return %s; }", g, hname, g, g, gc, body))
		return hname + "(" + f + ", " + tv + ", " + cond + ")", nil
	case "dot", "length", "distance", "determinant", "cross", "transpose":
		ss, err := each(same(nil))
		if err != nil {
			return "", err
		}
		return name + "(" + join(ss) + ")", nil
	case "all", "any":
		x, err := tr.emit(c.args[0], nil)
		if err != nil {
			return "", err
		}
		if args[0].k == kScalar {
			return "(" + x + ")", nil
		}
		return name + "(" + x + ")", nil
	case "arrayLength":
		p, err := tr.pointerArg(c.args[0])
		if err != nil {
			return "", err
		}
		return "uint(" + p + ".length())", nil
	case "extractBits":
		ss, err := each(func(i int) *typ {
			if i == 0 {
				return tg
			}
			return tU32
		})
		if err != nil {
			return "", err
		}
		return "bitfieldExtract(" + ss[0] + ", int(" + ss[1] + "), int(" + ss[2] + "))", nil
	case "insertBits":
		ss, err := each(func(i int) *typ {
			if i < 2 {
				return tg
			}
			return tU32
		})
		if err != nil {
			return "", err
		}
		return "bitfieldInsert(" + ss[0] + ", " + ss[1] + ", int(" + ss[2] + "), int(" + ss[3] + "))", nil
	case "workgroupBarrier":
		return "memoryBarrierShared(); barrier()", nil
	case "storageBarrier":
		return "memoryBarrierBuffer(); barrier()", nil
	case "pack2x16float", "pack2x16unorm", "pack2x16snorm", "pack4x8unorm", "pack4x8snorm",
		"unpack2x16float", "unpack2x16unorm", "unpack2x16snorm", "unpack4x8unorm", "unpack4x8snorm":
		g := map[string]string{
			"pack2x16float": "packHalf2x16", "pack2x16unorm": "packUnorm2x16", "pack2x16snorm": "packSnorm2x16",
			"pack4x8unorm": "packUnorm4x8", "pack4x8snorm": "packSnorm4x8", "unpack2x16float": "unpackHalf2x16",
			"unpack2x16unorm": "unpackUnorm2x16", "unpack2x16snorm": "unpackSnorm2x16",
			"unpack4x8unorm": "unpackUnorm4x8", "unpack4x8snorm": "unpackSnorm4x8",
		}[name]
		ss, err := each(same(nil))
		if err != nil {
			return "", err
		}
		return g + "(" + ss[0] + ")", nil
	}
	if strings.HasPrefix(name, "atomic") {
		p, err := tr.pointerArg(c.args[0])
		if err != nil {
			return "", err
		}
		el := args[0].elem.elem
		if name == "atomicLoad" {
			return "atomicOr(" + p + ", " + zero(el) + ")", nil
		}
		v, err := tr.emit(c.args[1], el)
		if err != nil {
			return "", err
		}
		switch name {
		case "atomicStore":
			return "atomicExchange(" + p + ", " + v + ")", nil
		case "atomicSub":
			if el.s == "u32" {
				return "atomicAdd(" + p + ", 0u - " + v + ")", nil
			}
			return "atomicAdd(" + p + ", -" + v + ")", nil
		}
		return name + "(" + p + ", " + v + ")", nil
	}
	return "", errAt(c.ln, "unsupported function %s", name)
}

// pointerArg spells a pointer argument (&x, &a[i], or a pointer parameter)
// as the lvalue it points to: GLSL passes it by inout or, for atomics and
// arrayLength, names the variable itself.
func (tr *translator) pointerArg(a expr) (string, error) {
	if u, ok := a.(*unaryExpr); ok && u.op == "&" {
		return tr.emit(u.x, nil)
	}
	if id, ok := a.(*identExpr); ok {
		if s := tr.lookup(id.name); s != nil && s.ptr {
			return s.g, nil
		}
	}
	return "", errAt(a.pos(), "unsupported pointer expression")
}

// ---- statements ----

func (tr *translator) stmts(ss []stmt) error {
	for _, s := range ss {
		if err := tr.stmt(s); err != nil {
			return err
		}
	}
	return nil
}

func (tr *translator) block(ss []stmt) error {
	tr.indent++
	tr.push()
	err := tr.stmts(ss)
	tr.pop()
	tr.indent--
	return err
}

// simple spells a declaration, assignment, increment or call without its
// semicolon (also used in for headers).
func (tr *translator) simple(s stmt) (string, error) {
	switch s := s.(type) {
	case *declStmt:
		t, err := tr.declType(s.ln, s.kw, s.t, s.init)
		if err != nil {
			return "", err
		}
		if t.k == kArray && t.n == 0 || t.k == kAtomic {
			return "", errAt(s.ln, "%s of type %s", s.kw, t)
		}
		if s.kw == "const" && t.isAbstract() {
			if _, ok := tr.constVal(s.init); !ok {
				return "", errAt(s.ln, "const %s is not a constant expression", s.name)
			}
			tr.bind(s.name, &symbol{t: t, g: glslName(s.name), konst: &constDecl{ln: s.ln, name: s.name, t: t, init: s.init}})
			return "", nil
		}
		init := zero(t)
		if s.init != nil {
			if init, err = tr.emit(s.init, t); err != nil {
				return "", err
			}
		}
		g := glslName(s.name)
		prefix := ""
		if s.kw == "const" {
			prefix = "const "
		}
		fixed := ""
		if s.kw != "var" {
			fixed = s.kw
		}
		tr.bind(s.name, &symbol{t: t, g: g, fixed: fixed})
		return prefix + glslDecl(t, g) + " = " + init, nil
	case *assignStmt:
		if s.lhs == nil {
			rhs, err := tr.emit(s.rhs, nil)
			return rhs, err
		}
		if err := tr.assignable(s.lhs); err != nil {
			return "", err
		}
		lt, err := tr.typeOf(s.lhs)
		if err != nil {
			return "", err
		}
		lhs, err := tr.emit(s.lhs, nil)
		if err != nil {
			return "", err
		}
		if s.op == "=" {
			rt, err := tr.typeOf(s.rhs)
			if err != nil {
				return "", err
			}
			if !convertible(rt, lt) {
				return "", errAt(s.ln, "cannot assign %s to %s", rt, lt)
			}
			rhs, err := tr.emit(s.rhs, lt)
			if err != nil {
				return "", err
			}
			return lhs + " = " + rhs, nil
		}
		// x op= y is x = x op y, spelled through the binary rules (integer
		// division helpers, shift masks).
		if !tr.pure(s.lhs) {
			return "", errAt(s.ln, "compound assignment to an lvalue with side effects")
		}
		be := &binaryExpr{ln: s.ln, op: strings.TrimSuffix(s.op, "="), x: s.lhs, y: s.rhs}
		rhs, err := tr.emit(be, lt)
		if err != nil {
			return "", err
		}
		return lhs + " = " + rhs, nil
	case *incStmt:
		if err := tr.assignable(s.x); err != nil {
			return "", err
		}
		t, err := tr.typeOf(s.x)
		if err != nil {
			return "", err
		}
		if t.k != kScalar || !t.isInt() {
			return "", errAt(s.ln, "%s of %s", s.op, t)
		}
		x, err := tr.emit(s.x, nil)
		return x + s.op, err
	case *exprStmt:
		return tr.emit(s.x, nil)
	}
	return "", errAt(s.pos(), "unsupported statement")
}

// assignable checks that e is a variable (not a let, parameter or read-only
// buffer) or a part of one.
func (tr *translator) assignable(e expr) error {
	root := rootName(e)
	s := tr.lookup(root)
	if s == nil {
		return errAt(e.pos(), "cannot assign to this expression")
	}
	if s.global != nil {
		if s.global.space == "uniform" || s.global.access == "read" {
			return errAt(e.pos(), "cannot assign to read-only %s", root)
		}
		return nil
	}
	if s.konst != nil {
		return errAt(e.pos(), "cannot assign to const %s", root)
	}
	if s.fixed != "" && !(s.ptr && isDeref(e)) {
		return errAt(e.pos(), "cannot assign to %s %s", s.fixed, root)
	}
	return nil
}

// isDeref reports whether e goes through a pointer dereference (*p).
func isDeref(e expr) bool {
	for {
		switch x := e.(type) {
		case *unaryExpr:
			if x.op == "*" {
				return true
			}
			e = x.x
		case *indexExpr:
			e = x.x
		case *memberExpr:
			e = x.x
		default:
			return false
		}
	}
}

func (tr *translator) stmt(s stmt) error {
	switch s := s.(type) {
	case *declStmt, *assignStmt, *incStmt, *exprStmt:
		txt, err := tr.simple(s)
		if err != nil {
			return err
		}
		if txt != "" {
			tr.line("%s;", txt)
		}
	case *returnStmt:
		if s.x == nil {
			if tr.fn.ret.k != kVoid {
				return errAt(s.ln, "return without a value in %s", tr.fn.name)
			}
			tr.line("return;")
			return nil
		}
		t, err := tr.typeOf(s.x)
		if err != nil {
			return err
		}
		if !convertible(t, tr.fn.ret) {
			return errAt(s.ln, "%s returns %s, not %s", tr.fn.name, tr.fn.ret, t)
		}
		x, err := tr.emit(s.x, tr.fn.ret)
		if err != nil {
			return err
		}
		tr.line("return %s;", x)
	case *ifStmt:
		return tr.ifStmt(s)
	case *blockStmt:
		tr.line("{")
		if err := tr.block(s.body); err != nil {
			return err
		}
		tr.line("}")
	case *breakStmt:
		if len(tr.conts) == 0 {
			return errAt(s.ln, "break outside a loop")
		}
		tr.line("break;")
	case *continueStmt:
		if len(tr.conts) == 0 {
			return errAt(s.ln, "continue outside a loop")
		}
		if l := tr.conts[len(tr.conts)-1]; l != nil {
			// A loop's continuing block runs before the next iteration.
			tr.line("{")
			tr.indent++
			if err := tr.continuing(l); err != nil {
				return err
			}
			tr.line("continue;")
			tr.indent--
			tr.line("}")
			return nil
		}
		tr.line("continue;")
	case *whileStmt:
		cond, err := tr.cond(s.cond)
		if err != nil {
			return err
		}
		tr.line("while (%s) {", cond)
		tr.conts = append(tr.conts, nil)
		err = tr.block(s.body)
		tr.conts = tr.conts[:len(tr.conts)-1]
		if err != nil {
			return err
		}
		tr.line("}")
	case *forStmt:
		tr.push()
		defer tr.pop()
		var init, cond, update string
		var err error
		if s.init != nil {
			if init, err = tr.simple(s.init); err != nil {
				return err
			}
		}
		if s.cond != nil {
			if cond, err = tr.cond(s.cond); err != nil {
				return err
			}
		}
		if s.update != nil {
			if update, err = tr.simple(s.update); err != nil {
				return err
			}
		}
		tr.line("for (%s; %s; %s) {", init, cond, update)
		tr.conts = append(tr.conts, nil)
		// GLSL's for body shares the scope of the loop variable; WGSL's
		// may redeclare it, so such a body gets its own block.
		wrap := false
		if d, ok := s.init.(*declStmt); ok {
			for _, b := range s.body {
				if bd, ok := b.(*declStmt); ok && bd.name == d.name {
					wrap = true
				}
			}
		}
		if wrap {
			tr.indent++
			tr.line("{")
		}
		err = tr.block(s.body)
		if wrap {
			tr.line("}")
			tr.indent--
		}
		tr.conts = tr.conts[:len(tr.conts)-1]
		if err != nil {
			return err
		}
		tr.line("}")
	case *loopStmt:
		tr.line("for (;;) {")
		var l *loopStmt
		if len(s.cont) > 0 || s.breakIf != nil {
			l = s
		}
		tr.conts = append(tr.conts, l)
		tr.indent++
		tr.push()
		err := tr.stmts(s.body)
		if err == nil && l != nil {
			err = tr.continuing(l)
		}
		tr.pop()
		tr.indent--
		tr.conts = tr.conts[:len(tr.conts)-1]
		if err != nil {
			return err
		}
		tr.line("}")
	default:
		return errAt(s.pos(), "unsupported statement")
	}
	return nil
}

// continuing emits a loop's continuing block and its break-if.
func (tr *translator) continuing(l *loopStmt) error {
	saved := tr.conts
	tr.conts = append(tr.conts, nil) // a continue inside continuing is invalid WGSL anyway
	defer func() { tr.conts = saved }()
	tr.push()
	defer tr.pop()
	for _, s := range l.cont {
		if _, isCont := s.(*continueStmt); isCont {
			return errAt(s.pos(), "continue inside a continuing block")
		}
		if err := tr.stmt(s); err != nil {
			return err
		}
	}
	if l.breakIf != nil {
		c, err := tr.cond(l.breakIf)
		if err != nil {
			return err
		}
		tr.line("if (%s) {", c)
		tr.line("    break;")
		tr.line("}")
	}
	return nil
}

func (tr *translator) cond(e expr) (string, error) {
	t, err := tr.typeOf(e)
	if err != nil {
		return "", err
	}
	if !sameType(t, tBool) {
		return "", errAt(e.pos(), "condition of type %s", t)
	}
	c, err := tr.emit(e, nil)
	if err != nil {
		return "", err
	}
	return stripParens(c), nil
}

// stripParens drops one pair of parentheses enclosing all of s.
func stripParens(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s
			}
		}
	}
	return s[1 : len(s)-1]
}

func (tr *translator) ifStmt(s *ifStmt) error {
	kw := "if ("
	for {
		c, err := tr.cond(s.cond)
		if err != nil {
			return err
		}
		tr.line("%s%s) {", kw, c)
		if err := tr.block(s.then); err != nil {
			return err
		}
		if s.els == nil {
			break
		}
		if len(s.els) == 1 {
			if ei, ok := s.els[0].(*ifStmt); ok {
				s, kw = ei, "} else if ("
				continue
			}
		}
		tr.line("} else {")
		if err := tr.block(s.els); err != nil {
			return err
		}
		break
	}
	tr.line("}")
	return nil
}

// ---- module ----

var builtinVars = map[string]struct {
	g string
	t *typ
}{
	"global_invocation_id":   {"gl_GlobalInvocationID", vecT(3, "u32")},
	"local_invocation_id":    {"gl_LocalInvocationID", vecT(3, "u32")},
	"local_invocation_index": {"gl_LocalInvocationIndex", tU32},
	"workgroup_id":           {"gl_WorkGroupID", vecT(3, "u32")},
	"num_workgroups":         {"gl_NumWorkGroups", vecT(3, "u32")},
}

// layoutOf gives the alignment and size of t under WGSL's host-shareable
// layout (mode "wgsl") or GLSL's std140 or std430.
func layoutOf(t *typ, mode string) (align, size int) {
	round := func(x, a int) int { return (x + a - 1) / a * a }
	switch t.k {
	case kScalar, kAtomic:
		return 4, 4
	case kVec:
		a := map[int]int{2: 8, 3: 16, 4: 16}[t.n]
		return a, 4 * t.n
	case kMat:
		col := &typ{k: kArray, elem: vecT(t.r, "f32"), n: t.n}
		return layoutOf(col, mode)
	case kArray:
		a, s := layoutOf(t.elem, mode)
		stride := round(s, a)
		if mode == "std140" {
			a = round(a, 16)
			stride = round(stride, 16)
		}
		return a, t.n * stride
	case kStruct:
		off, maxA := 0, 1
		for _, f := range t.st.fields {
			a, s := layoutOf(f.t, mode)
			off = round(off, a) + s
			maxA = max(maxA, a)
		}
		if mode == "std140" {
			maxA = round(maxA, 16)
		}
		return maxA, round(off, maxA)
	}
	return 4, 4
}

// checkLayout refuses a buffer type that WGSL lays out differently from
// the GLSL block layout mode (std140 for uniforms, std430 for storage), so
// the host's parameter blocks mean the same to both backends. Valid WGSL
// uniforms already satisfy std140; this guards against lenient compilers.
func checkLayout(line int, t *typ, mode, path string) error {
	round := func(x, a int) int { return (x + a - 1) / a * a }
	switch t.k {
	case kArray, kMat:
		el := t.elem
		if t.k == kMat {
			el = vecT(t.r, "f32")
		}
		wa, ws := layoutOf(el, "wgsl")
		ga, gs := layoutOf(el, mode)
		if mode == "std140" {
			ga, gs = round(ga, 16), round(gs, 16)
		}
		if round(ws, wa) != round(gs, ga) {
			return errAt(line, "%s (%s): element stride %d in WGSL but %d in %s", path, t, round(ws, wa), round(gs, ga), mode)
		}
		return checkLayout(line, el, mode, path+"[]")
	case kStruct:
		woff, goff := 0, 0
		for _, f := range t.st.fields {
			wa, ws := layoutOf(f.t, "wgsl")
			ga, gs := layoutOf(f.t, mode)
			woff, goff = round(woff, wa), round(goff, ga)
			if woff != goff {
				return errAt(line, "%s.%s: offset %d in WGSL but %d in %s", path, f.name, woff, goff, mode)
			}
			if err := checkLayout(line, f.t, mode, path+"."+f.name); err != nil {
				return err
			}
			woff += ws
			goff += gs
		}
	}
	return nil
}

func hasRuntimeArray(t *typ) bool {
	switch t.k {
	case kArray:
		return t.n == 0
	case kStruct:
		for _, f := range t.st.fields {
			if hasRuntimeArray(f.t) {
				return true
			}
		}
	}
	return false
}

func (tr *translator) module() (string, error) {
	m := tr.m
	var wg [3]int64
	wg[0], wg[1], wg[2] = 1, 1, 1
	for i, e := range tr.entry.wgsize {
		v, ok := tr.constInt(e)
		if !ok || v < 1 || v > 1024 {
			return "", errAt(tr.entry.ln, "@workgroup_size argument %d must be a constant in 1..1024", i+1)
		}
		wg[i] = v
	}
	tr.wgTotal = wg[0] * wg[1] * wg[2]

	var head strings.Builder
	head.WriteString("#version 430\n// Generated from WGSL by tessera's shaders.GLSL; do not edit.\n")
	fmt.Fprintf(&head, "layout(local_size_x = %d, local_size_y = %d, local_size_z = %d) in;\n", wg[0], wg[1], wg[2])

	// Structs, dependencies first (WGSL allows any order).
	done := map[*structDecl]bool{}
	var emitStruct func(s *structDecl) error
	emitStruct = func(s *structDecl) error {
		if done[s] {
			return nil
		}
		done[s] = true
		st := &typ{k: kStruct, name: s.name, st: s}
		for _, f := range s.fields {
			base, _ := arrayDims(f.t)
			if base.k == kStruct {
				if err := emitStruct(base.st); err != nil {
					return err
				}
			}
		}
		if hasRuntimeArray(st) {
			return nil // only a buffer's type: its members go into the block
		}
		fmt.Fprintf(&head, "\nstruct %s {\n", glslName(s.name))
		for _, f := range s.fields {
			if f.t.k == kAtomic || (f.t.k == kArray && f.t.elem.k == kAtomic) {
				return errAt(s.ln, "atomic struct members are supported only in buffers")
			}
			fmt.Fprintf(&head, "    %s;\n", glslDecl(f.t, glslName(f.name)))
		}
		head.WriteString("};\n")
		return nil
	}
	for _, s := range m.structs {
		if err := emitStruct(s); err != nil {
			return "", err
		}
	}

	var shared []*globalVar
	head.WriteString("\n")
	for _, d := range m.order {
		switch g := d.(type) {
		case *globalVar:
			name := glslName(g.name)
			if g.space == "uniform" || g.space == "storage" {
				if g.group != 0 || g.binding < 0 {
					return "", errAt(g.ln, "%s needs @group(0) @binding(N) (GLSL has one binding space per kind)", g.name)
				}
			} else if g.group >= 0 || g.binding >= 0 {
				return "", errAt(g.ln, "@group/@binding on a %s variable", g.space)
			}
			switch g.space {
			case "uniform":
				if err := checkLayout(g.ln, g.t, "std140", g.name); err != nil {
					return "", err
				}
				if hasRuntimeArray(g.t) || g.t.k == kAtomic {
					return "", errAt(g.ln, "uniform of type %s", g.t)
				}
				fmt.Fprintf(&head, "layout(std140, binding = %d) uniform tsr_block_%s {\n    %s;\n};\n", g.binding, name, glslDecl(g.t, name))
			case "storage":
				if err := checkLayout(g.ln, g.t, "std430", g.name); err != nil {
					return "", err
				}
				ro := ""
				if g.access == "read" {
					ro = "readonly "
				}
				if g.t.k == kStruct && hasRuntimeArray(g.t) {
					fmt.Fprintf(&head, "layout(std430, binding = %d) %sbuffer tsr_block_%s {\n", g.binding, ro, name)
					for _, f := range g.t.st.fields {
						fmt.Fprintf(&head, "    %s;\n", glslDecl(f.t, glslName(f.name)))
					}
					fmt.Fprintf(&head, "} %s;\n", name)
				} else {
					fmt.Fprintf(&head, "layout(std430, binding = %d) %sbuffer tsr_block_%s {\n    %s;\n};\n", g.binding, ro, name, glslDecl(g.t, name))
				}
			case "workgroup":
				if hasRuntimeArray(g.t) {
					return "", errAt(g.ln, "workgroup variable of runtime-sized type")
				}
				fmt.Fprintf(&head, "shared %s;\n", glslDecl(g.t, name))
				shared = append(shared, g)
			case "private":
				if hasRuntimeArray(g.t) || g.t.k == kAtomic {
					return "", errAt(g.ln, "private variable of type %s", g.t)
				}
				init := zero(g.t)
				if g.init != nil {
					var err error
					if init, err = tr.emit(g.init, g.t); err != nil {
						return "", err
					}
				}
				fmt.Fprintf(&head, "%s = %s;\n", glslDecl(g.t, name), init)
			}
		case *constDecl:
			if g.t.isAbstract() {
				if _, ok := tr.constVal(g.init); !ok {
					return "", errAt(g.ln, "const %s is not a constant expression", g.name)
				}
				continue // abstract constants are folded into their uses
			}
			init, err := tr.emit(g.init, g.t)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&head, "const %s = %s;\n", glslDecl(g.t, glslName(g.name)), init)
		}
	}

	// Function bodies, with prototypes first (WGSL allows any order).
	var protos, bodies strings.Builder
	for _, f := range m.fns {
		tr.sb.Reset()
		tr.fn = f
		tr.push()
		if f == tr.entry {
			if err := tr.entryPrologue(f, shared); err != nil {
				return "", err
			}
		} else {
			var ps []string
			for _, p := range f.params {
				if p.builtin != "" {
					return "", errAt(f.ln, "@builtin parameter in %s, which is not the entry point", f.name)
				}
				g := glslName(p.name)
				if p.t.k == kPtr {
					if p.t.space != "function" && p.t.space != "private" {
						return "", errAt(f.ln, "pointer parameter %s into the %s address space is not supported", p.name, p.t.space)
					}
					ps = append(ps, "inout "+glslDecl(p.t.elem, g))
					tr.bind(p.name, &symbol{t: p.t.elem, g: g, ptr: true, fixed: "pointer parameter"})
					continue
				}
				if hasRuntimeArray(p.t) || p.t.k == kAtomic {
					return "", errAt(f.ln, "parameter %s of type %s", p.name, p.t)
				}
				ps = append(ps, glslDecl(p.t, g))
				tr.bind(p.name, &symbol{t: p.t, g: g, fixed: "parameter"})
			}
			sig := fmt.Sprintf("%s %s(%s)", glslType(f.ret), glslName(f.name), strings.Join(ps, ", "))
			protos.WriteString(sig + ";\n")
			tr.line("%s {", sig)
		}
		tr.conts = nil
		tr.indent = 1
		err := tr.stmts(f.body)
		tr.indent = 0
		tr.pop()
		if err != nil {
			return "", err
		}
		if f.ret.k != kVoid && !endsInReturn(f.body) {
			// WGSL proves every path returns; GLSL compilers may warn.
			tr.line("    return %s;", zero(f.ret))
		}
		tr.line("}")
		bodies.WriteString("\n" + tr.sb.String())
	}

	var out strings.Builder
	out.WriteString(head.String())
	if len(tr.helpers) > 0 {
		names := make([]string, 0, len(tr.helpers))
		for n := range tr.helpers {
			names = append(names, n)
		}
		sort.Strings(names)
		out.WriteString("\n")
		for _, n := range names {
			out.WriteString(tr.helpers[n] + "\n")
		}
	}
	if protos.Len() > 0 {
		out.WriteString("\n" + protos.String())
	}
	out.WriteString(bodies.String())
	return out.String(), nil
}

func endsInReturn(ss []stmt) bool {
	if len(ss) == 0 {
		return false
	}
	switch s := ss[len(ss)-1].(type) {
	case *returnStmt:
		return true
	case *ifStmt:
		return s.els != nil && endsInReturn(s.then) && endsInReturn(s.els)
	case *blockStmt:
		return endsInReturn(s.body)
	}
	return false
}

// entryPrologue opens void main(), binds the builtin parameters to locals
// and zero-fills workgroup memory as WGSL requires.
func (tr *translator) entryPrologue(f *fnDecl, shared []*globalVar) error {
	if f.ret != nil && f.ret.k != kVoid {
		return errAt(f.ln, "the entry point must not return a value")
	}
	tr.line("void main() {")
	for _, p := range f.params {
		b, ok := builtinVars[p.builtin]
		if p.builtin == "" {
			return errAt(f.ln, "entry point parameter %s has no @builtin", p.name)
		}
		if !ok {
			return errAt(f.ln, "unsupported builtin %s", p.builtin)
		}
		if !sameType(p.t, b.t) {
			return errAt(f.ln, "@builtin(%s) has type %s, not %s", p.builtin, b.t, p.t)
		}
		g := glslName(p.name)
		tr.line("    %s = %s;", glslDecl(p.t, g), b.g)
		tr.bind(p.name, &symbol{t: p.t, g: g, fixed: "parameter"})
	}
	if len(shared) == 0 {
		return nil
	}
	for _, g := range shared {
		name := glslName(g.name)
		if g.t.k == kArray {
			tr.line("    for (uint tsr_i = gl_LocalInvocationIndex; tsr_i < %du; tsr_i += %du) {", g.t.n, tr.wgTotal)
			tr.line("        %s[tsr_i] = %s;", name, zero(g.t.elem))
			tr.line("    }")
		} else {
			tr.line("    if (gl_LocalInvocationIndex == 0u) {")
			tr.line("        %s = %s;", name, zero(g.t))
			tr.line("    }")
		}
	}
	tr.line("    memoryBarrierShared();")
	tr.line("    barrier();")
	return nil
}
