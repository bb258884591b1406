package npy

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// The header of a .npy file is the repr of a Python dict, e.g.
//
//	{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
//
// parseHeader reads the subset of Python literal syntax that NumPy writes
// (and that ast.literal_eval, which NumPy reads it with, accepts): strings
// without escapes, True, False, None, decimal integers (with a Python 2 "L"
// suffix tolerated), tuples, lists and a top-level dict, with any whitespace
// and trailing commas. Anything else is an ErrValue naming the offset.

// maxDepth bounds nesting of tuples and lists, so a header of brackets
// cannot exhaust the stack.
const maxDepth = 16

type pyKind uint8

const (
	pyStr pyKind = iota + 1
	pyInt
	pyBool
	pyNone
	pyTuple
	pyList
)

func (k pyKind) String() string {
	switch k {
	case pyStr:
		return "string"
	case pyInt:
		return "integer"
	case pyBool:
		return "bool"
	case pyNone:
		return "None"
	case pyTuple:
		return "tuple"
	case pyList:
		return "list"
	}
	return "value"
}

// pyValue is one parsed literal. Integers keep their text (sign included) so
// that values beyond int64 are reported as too large rather than misparsed.
type pyValue struct {
	kind  pyKind
	str   string // pyStr: the contents; pyInt: the digits with optional '-'
	b     bool
	items []pyValue
}

// header is the validated content of a .npy header dict.
type header struct {
	dt        dtype.DType
	bigEndian bool
	fortran   bool
	shape     []int
}

type parser struct {
	op  string
	s   string
	pos int
}

func (p *parser) errf(format string, args ...any) error {
	return errs.New("npy", p.op, errs.ErrValue, "header: "+format+" at byte %d of %q", append(args, p.pos, clip(p.s))...)
}

// clip shortens a header for error messages.
func clip(s string) string {
	s = strings.TrimRight(s, " \n")
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

func (p *parser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (p *parser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *parser) expect(c byte) error {
	if p.peek() != c {
		return p.errf("expected %q", c)
	}
	p.pos++
	return nil
}

func (p *parser) value(depth int) (pyValue, error) {
	if depth > maxDepth {
		return pyValue{}, p.errf("nesting deeper than %d", maxDepth)
	}
	c := p.peek()
	switch {
	case c == '\'' || c == '"':
		return p.str()
	case c == '(' || c == '[':
		return p.sequence(depth)
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		return p.integer()
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		start := p.pos
		for p.pos < len(p.s) && isIdent(p.s[p.pos]) {
			p.pos++
		}
		switch word := p.s[start:p.pos]; word {
		case "True", "False":
			return pyValue{kind: pyBool, b: word == "True"}, nil
		case "None":
			return pyValue{kind: pyNone}, nil
		}
		p.pos = start
		return pyValue{}, p.errf("unsupported name")
	case c == 0:
		return pyValue{}, p.errf("unexpected end")
	}
	return pyValue{}, p.errf("unexpected character %q", c)
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

func (p *parser) str() (pyValue, error) {
	q := p.s[p.pos]
	start := p.pos
	p.pos++
	for p.pos < len(p.s) {
		switch c := p.s[p.pos]; c {
		case q:
			p.pos++
			return pyValue{kind: pyStr, str: p.s[start+1 : p.pos-1]}, nil
		case '\\':
			return pyValue{}, p.errf("escape sequences in strings are not supported")
		case '\n', '\r':
			p.pos = start
			return pyValue{}, p.errf("unterminated string")
		}
		p.pos++
	}
	p.pos = start
	return pyValue{}, p.errf("unterminated string")
}

func (p *parser) integer() (pyValue, error) {
	start := p.pos
	neg := false
	if c := p.s[p.pos]; c == '-' || c == '+' {
		neg = c == '-'
		p.pos++
		p.skipSpace()
	}
	d0 := p.pos
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	digits := p.s[d0:p.pos]
	if digits == "" {
		p.pos = start
		return pyValue{}, p.errf("malformed number")
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'L' || p.s[p.pos] == 'l') {
		p.pos++ // Python 2 long, as old NumPy wrote shapes: (3L, 4L)
	}
	if p.pos < len(p.s) && (isIdent(p.s[p.pos]) || p.s[p.pos] == '.') {
		p.pos = start
		return pyValue{}, p.errf("unsupported number (only decimal integers)")
	}
	if neg {
		digits = "-" + digits
	}
	return pyValue{kind: pyInt, str: digits}, nil
}

// sequence parses a tuple, a list or a parenthesised value: "(3)" is the
// integer 3 and "(3,)" a one-element tuple, as in Python.
func (p *parser) sequence(depth int) (pyValue, error) {
	open := p.s[p.pos]
	closer, kind := byte(')'), pyTuple
	if open == '[' {
		closer, kind = ']', pyList
	}
	p.pos++
	var items []pyValue
	comma := false
	for {
		if p.peek() == closer {
			p.pos++
			break
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return pyValue{}, err
		}
		items = append(items, v)
		switch p.peek() {
		case ',':
			p.pos++
			comma = true
			continue
		case closer:
			p.pos++
		default:
			return pyValue{}, p.errf("expected ',' or %q", closer)
		}
		break
	}
	if kind == pyTuple && len(items) == 1 && !comma {
		return items[0], nil
	}
	return pyValue{kind: kind, items: items}, nil
}

// dict parses the whole header: one dict with string keys and nothing after
// it but whitespace.
func (p *parser) dict() (map[string]pyValue, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	d := map[string]pyValue{}
	for {
		if p.peek() == '}' {
			p.pos++
			break
		}
		if c := p.peek(); c != '\'' && c != '"' {
			return nil, p.errf("expected a string key")
		}
		at := p.pos
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := d[k.str]; dup {
			p.pos = at
			return nil, p.errf("duplicate key %q", k.str)
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		v, err := p.value(1)
		if err != nil {
			return nil, err
		}
		d[k.str] = v
		switch p.peek() {
		case ',':
			p.pos++
			continue
		case '}':
			p.pos++
		default:
			return nil, p.errf("expected ',' or '}'")
		}
		break
	}
	if p.peek() != 0 {
		return nil, p.errf("unexpected text after the dict")
	}
	return d, nil
}

// parseHeader parses and validates a header dict.
func parseHeader(op, s string) (header, error) {
	p := &parser{op: op, s: s}
	d, err := p.dict()
	if err != nil {
		return header{}, err
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if _, ok := d[k]; !ok {
			return header{}, errs.New("npy", op, errs.ErrValue, "header: missing key %q in %q", k, clip(s))
		}
	}
	if len(d) != 3 {
		for k := range d {
			if k != "descr" && k != "fortran_order" && k != "shape" {
				return header{}, errs.New("npy", op, errs.ErrValue, "header: unexpected key %q in %q", k, clip(s))
			}
		}
	}
	var h header
	if h.dt, h.bigEndian, err = parseDescr(op, d["descr"]); err != nil {
		return header{}, err
	}
	fo := d["fortran_order"]
	if fo.kind != pyBool {
		return header{}, errs.New("npy", op, errs.ErrValue, "header: fortran_order is a %v, want True or False", fo.kind)
	}
	h.fortran = fo.b
	if h.shape, err = parseShape(op, d["shape"]); err != nil {
		return header{}, err
	}
	return h, nil
}

// descrs maps NumPy type codes (without the byte-order character) to dtypes.
var descrs = map[string]dtype.DType{
	"f2": dtype.F16,
	"f4": dtype.F32,
	"f8": dtype.F64,
	"i4": dtype.I32,
	"i8": dtype.I64,
	"u1": dtype.U8,
	"b1": dtype.Bool,
}

func parseDescr(op string, v pyValue) (dtype.DType, bool, error) {
	if v.kind != pyStr {
		what := v.kind.String()
		if v.kind == pyList {
			what = "list (a structured dtype)"
		}
		return dtype.Invalid, false, errs.New("npy", op, errs.ErrDType, "header: descr is a %s; tessera reads %s", what, supported)
	}
	s := v.str
	if len(s) == 3 {
		if dt, ok := descrs[s[1:]]; ok {
			switch s[0] {
			case '<':
				return dt, false, nil
			case '>':
				return dt, dt.Size() > 1, nil
			case '|':
				if dt.Size() == 1 {
					return dt, false, nil
				}
			}
		}
	}
	return dtype.Invalid, false, errs.New("npy", op, errs.ErrDType, "unsupported descr %q; tessera reads %s", s, supported)
}

const supported = "'<f2' '<f4' '<f8' '<i4' '<i8' '|u1' '|b1' and the big-endian ('>') forms"

func parseShape(op string, v pyValue) ([]int, error) {
	if v.kind != pyTuple {
		return nil, errs.New("npy", op, errs.ErrValue, "header: shape is a %v, want a tuple of integers", v.kind)
	}
	if len(v.items) > MaxRank {
		return nil, errs.New("npy", op, errs.ErrShape, "shape has %d axes, more than %d", len(v.items), MaxRank)
	}
	shape := make([]int, len(v.items))
	for i, it := range v.items {
		if it.kind != pyInt {
			return nil, errs.New("npy", op, errs.ErrValue, "header: shape[%d] is a %v, want an integer", i, it.kind)
		}
		n, err := strconv.ParseInt(it.str, 10, 64)
		switch {
		case strings.HasPrefix(it.str, "-") && (err != nil || n < 0):
			return nil, errs.New("npy", op, errs.ErrShape, "negative extent %s in shape", it.str)
		case err != nil || n > math.MaxInt:
			return nil, errs.New("npy", op, errs.ErrShape, "extent %s in shape is too large", it.str)
		}
		shape[i] = int(n)
	}
	return shape, nil
}

// descrOf is the NumPy type string Write uses for dt, little-endian.
func descrOf(dt dtype.DType) (string, bool) {
	switch dt {
	case dtype.F16:
		return "<f2", true
	case dtype.F32:
		return "<f4", true
	case dtype.F64:
		return "<f8", true
	case dtype.I32:
		return "<i4", true
	case dtype.I64:
		return "<i8", true
	case dtype.U8:
		return "|u1", true
	case dtype.Bool:
		return "|b1", true
	}
	return "", false
}

// formatHeader renders the header dict exactly as NumPy's np.save does, so
// that tessera's files are byte-identical to NumPy's for the same array:
// sorted keys, repr of each value, and spare spaces after the dict so the
// first extent can grow in place (NumPy's GROWTH_AXIS_MAX_DIGITS = 21).
func formatHeader(descr string, shape []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr)
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteString("), }")
	if len(shape) > 0 {
		if pad := 21 - len(strconv.Itoa(shape[0])); pad > 0 {
			b.WriteString(strings.Repeat(" ", pad))
		}
	}
	return b.String()
}
