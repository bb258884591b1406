package shaders

// The WGSL side of the GLSL translator (glsl.go): a lexer and a
// recursive-descent parser for the subset of WGSL tessera's kernels use.
// Anything outside the subset is an error naming the line.

import (
	"fmt"
	"strconv"
	"strings"
)

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tInt   // integer literal, text as written (suffix included)
	tFloat // float literal, text as written (suffix included)
	tPunct
)

type token struct {
	kind tokKind
	text string
	line int
}

// lineError is a translation error tied to a line of the WGSL source.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func errAt(line int, format string, args ...any) *lineError {
	return &lineError{line: line, msg: fmt.Sprintf(format, args...)}
}

var puncts3 = []string{"<<=", ">>="}
var puncts2 = []string{"->", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--"}

const puncts1 = "(){}[]<>,;:.=+-*/%&|^!~@"

func lex(src string) ([]token, error) {
	var toks []token
	line := 1
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			depth := 0
			start := line
			for {
				if i >= len(src) {
					return nil, errAt(start, "unterminated block comment")
				}
				if strings.HasPrefix(src[i:], "/*") {
					depth++
					i += 2
				} else if strings.HasPrefix(src[i:], "*/") {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					if src[i] == '\n' {
						line++
					}
					i++
				}
			}
		case c == '_' || isLetter(c):
			j := i
			for j < len(src) && (src[j] == '_' || isLetter(src[j]) || isDigit(src[j])) {
				j++
			}
			toks = append(toks, token{tIdent, src[i:j], line})
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			t, n, err := lexNumber(src[i:], line)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i += n
		default:
			matched := ""
			for _, p := range puncts3 {
				if strings.HasPrefix(src[i:], p) {
					matched = p
				}
			}
			if matched == "" {
				for _, p := range puncts2 {
					if strings.HasPrefix(src[i:], p) {
						matched = p
						break
					}
				}
			}
			if matched == "" && strings.IndexByte(puncts1, c) >= 0 {
				matched = string(c)
			}
			if matched == "" {
				return nil, errAt(line, "unexpected character %q", c)
			}
			toks = append(toks, token{tPunct, matched, line})
			i += len(matched)
		}
	}
	toks = append(toks, token{tEOF, "", line})
	return toks, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func lexNumber(s string, line int) (token, int, error) {
	i := 0
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		i = 2
		for i < len(s) && isHex(s[i]) {
			i++
		}
		if i < len(s) && (s[i] == '.' || s[i] == 'p' || s[i] == 'P') {
			return token{}, 0, errAt(line, "hexadecimal float literals are not supported")
		}
		if i < len(s) && (s[i] == 'u' || s[i] == 'i') {
			i++
		}
		return token{tInt, s[:i], line}, i, nil
	}
	float := false
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '.' {
		float = true
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			float = true
			i = j
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
	}
	if i < len(s) {
		switch s[i] {
		case 'f':
			float = true
			i++
		case 'h':
			return token{}, 0, errAt(line, "f16 literals are not supported")
		case 'u', 'i':
			if !float {
				i++
			}
		}
	}
	if i < len(s) && (s[i] == '_' || isLetter(s[i]) || isDigit(s[i])) {
		return token{}, 0, errAt(line, "malformed number %q", s[:i+1])
	}
	if float {
		return token{tFloat, s[:i], line}, i, nil
	}
	return token{tInt, s[:i], line}, i, nil
}

// ---- syntax tree ----

type expr interface{ pos() int }

type identExpr struct {
	ln   int
	name string
}
type litExpr struct {
	ln   int
	kind string // "absint", "absfloat", "i32", "u32", "f32", "bool"
	ival int64
	fval float64
	bval bool
	hex  bool // written in hexadecimal
}
type unaryExpr struct {
	ln int
	op string // - ! ~ & *
	x  expr
}
type binaryExpr struct {
	ln   int
	op   string
	x, y expr
}
type callExpr struct {
	ln   int
	name string // function, builtin or type name
	tmpl *typ   // vec4<f32>(…), array<f32, 4>(…), bitcast<T>(…)
	args []expr
}
type indexExpr struct {
	ln   int
	x, i expr
}
type memberExpr struct {
	ln   int
	x    expr
	name string
}

func (e *identExpr) pos() int  { return e.ln }
func (e *litExpr) pos() int    { return e.ln }
func (e *unaryExpr) pos() int  { return e.ln }
func (e *binaryExpr) pos() int { return e.ln }
func (e *callExpr) pos() int   { return e.ln }
func (e *indexExpr) pos() int  { return e.ln }
func (e *memberExpr) pos() int { return e.ln }

type stmt interface{ pos() int }

type declStmt struct {
	ln   int
	kw   string // let, var, const
	name string
	t    *typ // nil: inferred
	init expr // nil: zero value (var only)
}
type assignStmt struct {
	ln  int
	lhs expr // nil for `_ = e`
	op  string
	rhs expr
}
type incStmt struct {
	ln int
	x  expr
	op string
}
type exprStmt struct {
	ln int
	x  expr
}
type returnStmt struct {
	ln int
	x  expr
}
type ifStmt struct {
	ln   int
	cond expr
	then []stmt
	els  []stmt // nil: no else; one *ifStmt with elseIf: else if
}
type loopStmt struct {
	ln      int
	body    []stmt
	cont    []stmt
	breakIf expr
}
type forStmt struct {
	ln     int
	init   stmt
	cond   expr
	update stmt
	body   []stmt
}
type whileStmt struct {
	ln   int
	cond expr
	body []stmt
}
type breakStmt struct{ ln int }
type continueStmt struct{ ln int }
type blockStmt struct {
	ln   int
	body []stmt
}

func (s *declStmt) pos() int     { return s.ln }
func (s *assignStmt) pos() int   { return s.ln }
func (s *incStmt) pos() int      { return s.ln }
func (s *exprStmt) pos() int     { return s.ln }
func (s *returnStmt) pos() int   { return s.ln }
func (s *ifStmt) pos() int       { return s.ln }
func (s *loopStmt) pos() int     { return s.ln }
func (s *forStmt) pos() int      { return s.ln }
func (s *whileStmt) pos() int    { return s.ln }
func (s *breakStmt) pos() int    { return s.ln }
func (s *continueStmt) pos() int { return s.ln }
func (s *blockStmt) pos() int    { return s.ln }

type field struct {
	name string
	t    *typ
}

type structDecl struct {
	ln     int
	name   string
	fields []field
}

type globalVar struct {
	ln      int
	name    string
	space   string // uniform, storage, workgroup, private
	access  string // read, read_write (storage)
	group   int
	binding int
	t       *typ
	init    expr
}

type constDecl struct {
	ln   int
	name string
	t    *typ
	init expr
}

type param struct {
	name    string
	t       *typ
	builtin string
}

type fnDecl struct {
	ln      int
	name    string
	params  []param
	ret     *typ
	body    []stmt
	compute bool
	wgsize  []expr
}

type module struct {
	structs []*structDecl
	globals []*globalVar
	consts  []*constDecl
	fns     []*fnDecl
	aliases map[string]*typ
	order   []any // top-level declarations in source order
	idents  map[string]bool
}

// ---- parser ----

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}
func (p *parser) is(text string) bool {
	t := p.peek()
	return (t.kind == tPunct || t.kind == tIdent) && t.text == text
}
func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.next()
		return true
	}
	return false
}
func (p *parser) expect(text string) error {
	if !p.accept(text) {
		t := p.peek()
		return errAt(t.line, "expected %q, found %s", text, describe(t))
	}
	return nil
}
func (p *parser) ident() (string, error) {
	t := p.peek()
	if t.kind != tIdent {
		return "", errAt(t.line, "expected a name, found %s", describe(t))
	}
	p.next()
	return t.text, nil
}

// closeAngle consumes one '>' of a template list, splitting '>>', '>=' and
// '>>=' as WGSL's template disambiguation does.
func (p *parser) closeAngle() error {
	t := &p.toks[p.i]
	if t.kind == tPunct {
		switch t.text {
		case ">":
			p.next()
			return nil
		case ">>":
			t.text = ">"
			return nil
		case ">=":
			t.text = "="
			return nil
		case ">>=":
			t.text = ">="
			return nil
		}
	}
	return errAt(t.line, "expected '>' closing a template list, found %s", describe(*t))
}

func describe(t token) string {
	if t.kind == tEOF {
		return "end of input"
	}
	return strconv.Quote(t.text)
}

var wgslKeywordsUnsupported = map[string]string{
	"switch":       "switch statements",
	"discard":      "discard",
	"override":     "override declarations",
	"enable":       "enable directives",
	"requires":     "requires directives",
	"diagnostic":   "diagnostic directives",
	"const_assert": "const_assert",
}

func parseModule(src string) (*module, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	m := &module{aliases: map[string]*typ{}, idents: map[string]bool{}}
	for _, t := range toks {
		if t.kind == tIdent {
			m.idents[t.text] = true
		}
	}
	p := &parser{toks: toks}
	for p.peek().kind != tEOF {
		if p.accept(";") {
			continue
		}
		attrs, err := p.attributes()
		if err != nil {
			return nil, err
		}
		t := p.peek()
		if what, bad := wgslKeywordsUnsupported[t.text]; bad && t.kind == tIdent {
			return nil, errAt(t.line, "unsupported: %s", what)
		}
		switch {
		case p.is("struct"):
			if len(attrs) > 0 {
				return nil, errAt(t.line, "attributes on a struct are not supported")
			}
			s, err := p.structDecl()
			if err != nil {
				return nil, err
			}
			m.structs = append(m.structs, s)
			m.order = append(m.order, s)
		case p.is("var"):
			g, err := p.globalVar(attrs)
			if err != nil {
				return nil, err
			}
			m.globals = append(m.globals, g)
			m.order = append(m.order, g)
		case p.is("const"):
			if len(attrs) > 0 {
				return nil, errAt(t.line, "attributes on a const are not supported")
			}
			p.next()
			d, err := p.declRest(t.line, "const")
			if err != nil {
				return nil, err
			}
			if err := p.expect(";"); err != nil {
				return nil, err
			}
			c := &constDecl{ln: t.line, name: d.name, t: d.t, init: d.init}
			m.consts = append(m.consts, c)
			m.order = append(m.order, c)
		case p.is("alias"):
			p.next()
			name, err := p.ident()
			if err != nil {
				return nil, err
			}
			if err := p.expect("="); err != nil {
				return nil, err
			}
			ty, err := p.typeDecl()
			if err != nil {
				return nil, err
			}
			if err := p.expect(";"); err != nil {
				return nil, err
			}
			m.aliases[name] = ty
		case p.is("fn"):
			f, err := p.fnDecl(attrs)
			if err != nil {
				return nil, err
			}
			m.fns = append(m.fns, f)
			m.order = append(m.order, f)
		default:
			return nil, errAt(t.line, "unsupported top-level declaration starting with %s", describe(t))
		}
	}
	return m, nil
}

type attr struct {
	line int
	name string
	args []expr
}

func (p *parser) attributes() ([]attr, error) {
	var out []attr
	for p.is("@") {
		line := p.next().line
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		a := attr{line: line, name: name}
		if p.accept("(") {
			for !p.is(")") {
				e, err := p.expr()
				if err != nil {
					return nil, err
				}
				a.args = append(a.args, e)
				if !p.accept(",") {
					break
				}
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
		}
		out = append(out, a)
	}
	return out, nil
}

func attrInt(a attr) (int, error) {
	if len(a.args) != 1 {
		return 0, errAt(a.line, "@%s needs one argument", a.name)
	}
	l, ok := a.args[0].(*litExpr)
	if !ok || (l.kind != "absint" && l.kind != "i32" && l.kind != "u32") {
		return 0, errAt(a.line, "@%s needs an integer literal", a.name)
	}
	return int(l.ival), nil
}

func attrName(a attr) (string, error) {
	if len(a.args) != 1 {
		return "", errAt(a.line, "@%s needs one argument", a.name)
	}
	id, ok := a.args[0].(*identExpr)
	if !ok {
		return "", errAt(a.line, "@%s needs a name", a.name)
	}
	return id.name, nil
}

func (p *parser) structDecl() (*structDecl, error) {
	line := p.next().line
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	s := &structDecl{ln: line, name: name}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	for !p.accept("}") {
		attrs, err := p.attributes()
		if err != nil {
			return nil, err
		}
		if len(attrs) > 0 {
			return nil, errAt(attrs[0].line, "unsupported struct member attribute @%s", attrs[0].name)
		}
		fname, err := p.ident()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		ft, err := p.typeDecl()
		if err != nil {
			return nil, err
		}
		s.fields = append(s.fields, field{fname, ft})
		if !p.accept(",") {
			if err := p.expect("}"); err != nil {
				return nil, err
			}
			break
		}
	}
	return s, nil
}

func (p *parser) globalVar(attrs []attr) (*globalVar, error) {
	line := p.next().line
	g := &globalVar{ln: line, space: "private", group: -1, binding: -1}
	if p.accept("<") {
		sp, err := p.ident()
		if err != nil {
			return nil, err
		}
		g.space = sp
		if p.accept(",") {
			acc, err := p.ident()
			if err != nil {
				return nil, err
			}
			g.access = acc
		}
		if err := p.closeAngle(); err != nil {
			return nil, err
		}
	}
	switch g.space {
	case "uniform", "workgroup", "private":
	case "storage":
		if g.access == "" {
			g.access = "read"
		}
		if g.access != "read" && g.access != "read_write" {
			return nil, errAt(line, "unsupported storage access mode %q", g.access)
		}
	default:
		return nil, errAt(line, "unsupported address space %q", g.space)
	}
	for _, a := range attrs {
		var err error
		switch a.name {
		case "group":
			g.group, err = attrInt(a)
		case "binding":
			g.binding, err = attrInt(a)
		default:
			err = errAt(a.line, "unsupported attribute @%s on a variable", a.name)
		}
		if err != nil {
			return nil, err
		}
	}
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	g.name = name
	if p.accept(":") {
		if g.t, err = p.typeDecl(); err != nil {
			return nil, err
		}
	}
	if p.accept("=") {
		if g.init, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if g.t == nil {
		return nil, errAt(line, "module-scope var %s needs a type", name)
	}
	return g, p.expect(";")
}

func (p *parser) fnDecl(attrs []attr) (*fnDecl, error) {
	line := p.next().line
	f := &fnDecl{ln: line}
	for _, a := range attrs {
		switch a.name {
		case "compute":
			f.compute = true
		case "workgroup_size":
			if len(a.args) < 1 || len(a.args) > 3 {
				return nil, errAt(a.line, "@workgroup_size needs 1 to 3 arguments")
			}
			f.wgsize = a.args
		case "must_use":
		default:
			return nil, errAt(a.line, "unsupported function attribute @%s (only compute entry points are translated)", a.name)
		}
	}
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	f.name = name
	if err := p.expect("("); err != nil {
		return nil, err
	}
	for !p.is(")") {
		pattrs, err := p.attributes()
		if err != nil {
			return nil, err
		}
		pn, err := p.ident()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		pt, err := p.typeDecl()
		if err != nil {
			return nil, err
		}
		prm := param{name: pn, t: pt}
		for _, a := range pattrs {
			if a.name != "builtin" {
				return nil, errAt(a.line, "unsupported parameter attribute @%s", a.name)
			}
			if prm.builtin, err = attrName(a); err != nil {
				return nil, err
			}
		}
		f.params = append(f.params, prm)
		if !p.accept(",") {
			break
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	if p.accept("->") {
		ra, err := p.attributes()
		if err != nil {
			return nil, err
		}
		if len(ra) > 0 {
			return nil, errAt(ra[0].line, "unsupported return attribute @%s", ra[0].name)
		}
		if f.ret, err = p.typeDecl(); err != nil {
			return nil, err
		}
	}
	if f.body, err = p.block(); err != nil {
		return nil, err
	}
	return f, nil
}

// typeDecl parses a type. Names not known as builtin types stay unresolved
// (kind kNamed) until translation, since structs may be declared later.
func (p *parser) typeDecl() (*typ, error) {
	t := p.peek()
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	if ty := shorthandType(name); ty != nil {
		return ty, nil
	}
	switch name {
	case "f32", "i32", "u32", "bool":
		return scalarT(name), nil
	case "f16", "f64", "i64", "u64":
		return nil, errAt(t.line, "unsupported type %s", name)
	case "vec2", "vec3", "vec4":
		if !p.accept("<") {
			return nil, errAt(t.line, "%s needs a component type", name)
		}
		el, err := p.typeDecl()
		if err != nil {
			return nil, err
		}
		if err := p.closeAngle(); err != nil {
			return nil, err
		}
		if el.k != kScalar {
			return nil, errAt(t.line, "vector of %s", el)
		}
		return vecT(int(name[3]-'0'), el.s), nil
	case "mat2x2", "mat2x3", "mat2x4", "mat3x2", "mat3x3", "mat3x4", "mat4x2", "mat4x3", "mat4x4":
		if !p.accept("<") {
			return nil, errAt(t.line, "%s needs a component type", name)
		}
		el, err := p.typeDecl()
		if err != nil {
			return nil, err
		}
		if err := p.closeAngle(); err != nil {
			return nil, err
		}
		if el.k != kScalar || el.s != "f32" {
			return nil, errAt(t.line, "matrices of %s are not supported", el)
		}
		return matT(int(name[3]-'0'), int(name[5]-'0')), nil
	case "atomic":
		if err := p.expect("<"); err != nil {
			return nil, err
		}
		el, err := p.typeDecl()
		if err != nil {
			return nil, err
		}
		if err := p.closeAngle(); err != nil {
			return nil, err
		}
		if el.k != kScalar || (el.s != "u32" && el.s != "i32") {
			return nil, errAt(t.line, "atomic<%s> is not supported", el)
		}
		return &typ{k: kAtomic, elem: el}, nil
	case "array":
		if err := p.expect("<"); err != nil {
			return nil, err
		}
		el, err := p.typeDecl()
		if err != nil {
			return nil, err
		}
		a := &typ{k: kArray, elem: el}
		if p.accept(",") {
			if a.lenExpr, err = p.additive(); err != nil {
				return nil, err
			}
		}
		if err := p.closeAngle(); err != nil {
			return nil, err
		}
		return a, nil
	case "ptr":
		if err := p.expect("<"); err != nil {
			return nil, err
		}
		sp, err := p.ident()
		if err != nil {
			return nil, err
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
		el, err := p.typeDecl()
		if err != nil {
			return nil, err
		}
		if p.accept(",") {
			if _, err := p.ident(); err != nil {
				return nil, err
			}
		}
		if err := p.closeAngle(); err != nil {
			return nil, err
		}
		return &typ{k: kPtr, elem: el, space: sp}, nil
	case "sampler", "sampler_comparison":
		return nil, errAt(t.line, "unsupported type %s", name)
	}
	if strings.HasPrefix(name, "texture") {
		return nil, errAt(t.line, "unsupported type %s", name)
	}
	return &typ{k: kNamed, name: name, line: t.line}, nil
}

func (p *parser) block() ([]stmt, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var out []stmt
	for !p.accept("}") {
		if p.peek().kind == tEOF {
			return nil, errAt(p.peek().line, "unexpected end of input in a block")
		}
		if p.accept(";") {
			continue
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (p *parser) statement() (stmt, error) {
	t := p.peek()
	if t.kind == tPunct && t.text == "@" {
		return nil, errAt(t.line, "statement attributes are not supported")
	}
	if t.kind == tIdent {
		if what, bad := wgslKeywordsUnsupported[t.text]; bad {
			return nil, errAt(t.line, "unsupported: %s", what)
		}
	}
	switch {
	case p.is("{"):
		b, err := p.block()
		return &blockStmt{ln: t.line, body: b}, err
	case p.is("return"):
		p.next()
		r := &returnStmt{ln: t.line}
		if !p.is(";") {
			var err error
			if r.x, err = p.expr(); err != nil {
				return nil, err
			}
		}
		return r, p.expect(";")
	case p.is("if"):
		return p.ifStmt()
	case p.is("loop"):
		return p.loopStmt()
	case p.is("for"):
		return p.forStmt()
	case p.is("while"):
		p.next()
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		body, err := p.block()
		return &whileStmt{ln: t.line, cond: cond, body: body}, err
	case p.is("break"):
		p.next()
		if p.is("if") {
			return nil, errAt(t.line, "break if is only allowed at the end of a continuing block")
		}
		return &breakStmt{ln: t.line}, p.expect(";")
	case p.is("continue"):
		p.next()
		return &continueStmt{ln: t.line}, p.expect(";")
	case p.is("continuing"):
		return nil, errAt(t.line, "continuing must be the last statement of a loop")
	}
	s, err := p.simpleStmt()
	if err != nil {
		return nil, err
	}
	return s, p.expect(";")
}

// simpleStmt parses a declaration, assignment, increment or call (without
// the semicolon), as allowed in for headers.
func (p *parser) simpleStmt() (stmt, error) {
	t := p.peek()
	if p.is("let") || p.is("var") || p.is("const") {
		kw := p.next().text
		if kw == "var" && p.is("<") {
			return nil, errAt(t.line, "function-scope var with an address space is not supported")
		}
		return p.declRest(t.line, kw)
	}
	if p.is("_") {
		p.next()
		if err := p.expect("="); err != nil {
			return nil, err
		}
		e, err := p.expr()
		return &assignStmt{ln: t.line, op: "=", rhs: e}, err
	}
	lhs, err := p.unary()
	if err != nil {
		return nil, err
	}
	op := p.peek()
	if op.kind == tPunct {
		switch op.text {
		case "++", "--":
			p.next()
			return &incStmt{ln: t.line, x: lhs, op: op.text}, nil
		case "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=":
			p.next()
			rhs, err := p.expr()
			return &assignStmt{ln: t.line, lhs: lhs, op: op.text, rhs: rhs}, err
		}
	}
	if _, ok := lhs.(*callExpr); ok {
		return &exprStmt{ln: t.line, x: lhs}, nil
	}
	return nil, errAt(t.line, "expected a statement, found %s", describe(op))
}

func (p *parser) declRest(line int, kw string) (*declStmt, error) {
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	d := &declStmt{ln: line, kw: kw, name: name}
	if p.accept(":") {
		if d.t, err = p.typeDecl(); err != nil {
			return nil, err
		}
	}
	if p.accept("=") {
		if d.init, err = p.expr(); err != nil {
			return nil, err
		}
	} else if kw != "var" {
		return nil, errAt(line, "%s %s needs an initializer", kw, name)
	}
	if d.t == nil && d.init == nil {
		return nil, errAt(line, "var %s needs a type or an initializer", name)
	}
	return d, nil
}

func (p *parser) ifStmt() (stmt, error) {
	line := p.next().line
	cond, err := p.expr()
	if err != nil {
		return nil, err
	}
	then, err := p.block()
	if err != nil {
		return nil, err
	}
	s := &ifStmt{ln: line, cond: cond, then: then}
	if p.accept("else") {
		if p.is("if") {
			e, err := p.ifStmt()
			if err != nil {
				return nil, err
			}
			s.els = []stmt{e}
		} else {
			if s.els, err = p.block(); err != nil {
				return nil, err
			}
			if s.els == nil {
				s.els = []stmt{}
			}
		}
	}
	return s, nil
}

func (p *parser) loopStmt() (stmt, error) {
	line := p.next().line
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	l := &loopStmt{ln: line}
	for !p.accept("}") {
		if p.peek().kind == tEOF {
			return nil, errAt(line, "unterminated loop")
		}
		if p.accept(";") {
			continue
		}
		if p.is("continuing") {
			cl := p.next().line
			if err := p.expect("{"); err != nil {
				return nil, err
			}
			for !p.accept("}") {
				if p.peek().kind == tEOF {
					return nil, errAt(cl, "unterminated continuing block")
				}
				if p.is("break") && p.peekAt(1).text == "if" {
					p.next()
					p.next()
					e, err := p.expr()
					if err != nil {
						return nil, err
					}
					l.breakIf = e
					if err := p.expect(";"); err != nil {
						return nil, err
					}
					if err := p.expect("}"); err != nil {
						return nil, errAt(cl, "break if must end the continuing block")
					}
					break
				}
				s, err := p.statement()
				if err != nil {
					return nil, err
				}
				l.cont = append(l.cont, s)
			}
			if err := p.expect("}"); err != nil {
				return nil, errAt(cl, "continuing must be the last statement of a loop")
			}
			return l, nil
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		l.body = append(l.body, s)
	}
	return l, nil
}

func (p *parser) forStmt() (stmt, error) {
	line := p.next().line
	if err := p.expect("("); err != nil {
		return nil, err
	}
	f := &forStmt{ln: line}
	var err error
	if !p.is(";") {
		if f.init, err = p.simpleStmt(); err != nil {
			return nil, err
		}
	}
	if err := p.expect(";"); err != nil {
		return nil, err
	}
	if !p.is(";") {
		if f.cond, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if err := p.expect(";"); err != nil {
		return nil, err
	}
	if !p.is(")") {
		if f.update, err = p.simpleStmt(); err != nil {
			return nil, err
		}
		if _, ok := f.update.(*declStmt); ok {
			return nil, errAt(line, "a declaration cannot be a for loop's update")
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	f.body, err = p.block()
	return f, err
}

// Binary operators by precedence, lowest first. WGSL forbids mixing the
// levels where C precedence would be surprising, so C precedence parses
// every valid WGSL expression the same way.
var binLevels = [][]string{
	{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
}

func (p *parser) expr() (expr, error) { return p.binary(0) }

func (p *parser) additive() (expr, error) { return p.binary(8) }

func (p *parser) binary(level int) (expr, error) {
	if level == len(binLevels) {
		return p.unary()
	}
	x, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		found := false
		if t.kind == tPunct {
			for _, op := range binLevels[level] {
				if t.text == op {
					found = true
				}
			}
		}
		if !found {
			return x, nil
		}
		p.next()
		y, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		x = &binaryExpr{ln: t.line, op: t.text, x: x, y: y}
	}
}

func (p *parser) unary() (expr, error) {
	t := p.peek()
	if t.kind == tPunct {
		switch t.text {
		case "-", "!", "~", "&", "*":
			p.next()
			x, err := p.unary()
			if err != nil {
				return nil, err
			}
			return &unaryExpr{ln: t.line, op: t.text, x: x}, nil
		case "--":
			return nil, errAt(t.line, "'--' is not an operator in expressions")
		}
	}
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch {
		case p.is("["):
			p.next()
			i, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			x = &indexExpr{ln: t.line, x: x, i: i}
		case p.is("."):
			p.next()
			name, err := p.ident()
			if err != nil {
				return nil, err
			}
			x = &memberExpr{ln: t.line, x: x, name: name}
		default:
			return x, nil
		}
	}
}

// templated lists the names that take a template list in expressions.
var templated = map[string]bool{
	"vec2": true, "vec3": true, "vec4": true, "array": true, "bitcast": true,
	"mat2x2": true, "mat2x3": true, "mat2x4": true, "mat3x2": true, "mat3x3": true,
	"mat3x4": true, "mat4x2": true, "mat4x3": true, "mat4x4": true,
}

func (p *parser) primary() (expr, error) {
	t := p.peek()
	switch t.kind {
	case tInt:
		p.next()
		return parseIntLit(t)
	case tFloat:
		p.next()
		return parseFloatLit(t)
	case tIdent:
		switch t.text {
		case "true", "false":
			p.next()
			return &litExpr{ln: t.line, kind: "bool", bval: t.text == "true"}, nil
		}
		if templated[t.text] && p.peekAt(1).text == "<" {
			var tmpl *typ
			var err error
			if t.text == "bitcast" {
				p.next()
				p.next()
				if tmpl, err = p.typeDecl(); err != nil {
					return nil, err
				}
				if err := p.closeAngle(); err != nil {
					return nil, err
				}
			} else if tmpl, err = p.typeDecl(); err != nil {
				return nil, err
			}
			if !p.is("(") {
				return nil, errAt(t.line, "expected '(' after %s", tmpl)
			}
			args, err := p.args()
			if err != nil {
				return nil, err
			}
			return &callExpr{ln: t.line, name: t.text, tmpl: tmpl, args: args}, nil
		}
		p.next()
		if p.is("(") {
			args, err := p.args()
			if err != nil {
				return nil, err
			}
			return &callExpr{ln: t.line, name: t.text, args: args}, nil
		}
		return &identExpr{ln: t.line, name: t.text}, nil
	case tPunct:
		if t.text == "(" {
			p.next()
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			return x, p.expect(")")
		}
	}
	return nil, errAt(t.line, "expected an expression, found %s", describe(t))
}

func (p *parser) args() ([]expr, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var out []expr
	for !p.is(")") {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if !p.accept(",") {
			break
		}
	}
	return out, p.expect(")")
}

func parseIntLit(t token) (expr, error) {
	s := t.text
	kind := "absint"
	switch {
	case strings.HasSuffix(s, "u"):
		kind, s = "u32", s[:len(s)-1]
	case strings.HasSuffix(s, "i"):
		kind, s = "i32", s[:len(s)-1]
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil || (kind == "absint" && v > 1<<63-1) {
		return nil, errAt(t.line, "integer literal %s out of range", t.text)
	}
	if (kind == "u32" && v > 0xffffffff) || (kind == "i32" && v > 0x7fffffff) {
		return nil, errAt(t.line, "integer literal %s out of range", t.text)
	}
	return &litExpr{ln: t.line, kind: kind, ival: int64(v), hex: strings.HasPrefix(strings.ToLower(s), "0x")}, nil
}

func parseFloatLit(t token) (expr, error) {
	s := t.text
	kind := "absfloat"
	if strings.HasSuffix(s, "f") {
		kind, s = "f32", s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, errAt(t.line, "float literal %s out of range", t.text)
	}
	if kind == "f32" {
		v = float64(float32(v))
	}
	return &litExpr{ln: t.line, kind: kind, fval: v}, nil
}
