// Package safetensors reads and writes Hugging Face's safetensors format.
//
// A file is an 8-byte little-endian length N, an N-byte UTF-8 JSON header
// (possibly padded with spaces), and a byte buffer. The header maps each
// tensor name to {"dtype", "shape", "data_offsets": [begin, end]}, the
// offsets counting from the start of the buffer, plus an optional
// "__metadata__" object of string values. Elements are little-endian in
// row-major order.
//
// Open validates the whole header against the file's size before any tensor
// data is read or any buffer sized by the header is allocated: the length
// prefix (at most MaxHeaderLen and within the file), UTF-8, JSON syntax,
// duplicate names and fields, the dtype (a name the format defines; tessera
// holds f32, f64, f16, bf16, i32, i64, u8 and bool, and reading another is
// an ErrDType naming it), non-negative dimensions and an element count that
// does not overflow, data offsets that match dtype size times the element
// count, and offsets that tile the buffer exactly, in order, with no gap or
// overlap (the reference implementation's rule). Every failure is an
// *errs.Error of kind errs.ErrValue, errs.ErrDType or errs.ErrShape that
// names the tensor and the offending values; nothing panics.
//
// Writing lays tensors out as the reference implementation does (by
// decreasing dtype alignment, then by name), writes the header as compact
// JSON with "__metadata__" first and tensors in file order, and pads it with
// spaces to a multiple of 8 bytes, so the output is deterministic.
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// MaxHeaderLen is the largest JSON header Open accepts, the reference
// implementation's limit (100 MB).
const MaxHeaderLen = 100_000_000

// MaxRank is the largest number of axes a tensor may have.
const MaxRank = 64

// MetadataKey is the reserved header key of the string-to-string metadata.
const MetadataKey = "__metadata__"

// format is one element type the safetensors format defines.
type format struct {
	name string
	bits int         // element size in bits (sub-byte types exist)
	dt   dtype.DType // tessera's dtype, or Invalid
}

// formats lists the format's dtypes in the reference implementation's
// order, which is increasing alignment: writers place tensors in decreasing
// order of this index.
var formats = []format{
	{"BOOL", 8, dtype.Bool},
	{"F4", 4, dtype.Invalid},
	{"F6_E2M3", 6, dtype.Invalid},
	{"F6_E3M2", 6, dtype.Invalid},
	{"U8", 8, dtype.U8},
	{"I8", 8, dtype.Invalid},
	{"F8_E5M2", 8, dtype.Invalid},
	{"F8_E4M3", 8, dtype.Invalid},
	{"F8_E8M0", 8, dtype.Invalid},
	{"F8_E4M3FNUZ", 8, dtype.Invalid},
	{"F8_E5M2FNUZ", 8, dtype.Invalid},
	{"I16", 16, dtype.Invalid},
	{"U16", 16, dtype.Invalid},
	{"F16", 16, dtype.F16},
	{"BF16", 16, dtype.BF16},
	{"I32", 32, dtype.I32},
	{"U32", 32, dtype.Invalid},
	{"F32", 32, dtype.F32},
	{"C64", 64, dtype.Invalid},
	{"F64", 64, dtype.F64},
	{"I64", 64, dtype.I64},
	{"U64", 64, dtype.Invalid},
}

// lookup returns the index in formats of the dtype named name, or -1.
func lookup(name string) int {
	for i, f := range formats {
		if f.name == name {
			return i
		}
	}
	return -1
}

// rankOf returns the index in formats of tessera's dtype dt, or -1.
func rankOf(dt dtype.DType) int {
	for i, f := range formats {
		if f.dt == dt && dt.Valid() {
			return i
		}
	}
	return -1
}

// Name returns the safetensors name of tessera's dtype dt ("F32", "BOOL"),
// or "" for an invalid dtype.
func Name(dt dtype.DType) string {
	if i := rankOf(dt); i >= 0 {
		return formats[i].name
	}
	return ""
}

// Info describes one tensor of a file.
type Info struct {
	Name   string
	Format string      // the dtype as the file names it: "F32", "I8", ...
	DType  dtype.DType // tessera's dtype, or dtype.Invalid when it has none for Format
	Shape  []int       // empty for a scalar
	Begin  int64       // data_offsets[0], from the start of the data buffer
	End    int64       // data_offsets[1]
}

// Size is the byte length of the tensor's data.
func (in Info) Size() int64 { return in.End - in.Begin }

// Header is a parsed and validated safetensors header.
type Header struct {
	Tensors  []Info            // in file order (increasing offsets)
	Metadata map[string]string // nil when the file has no "__metadata__"
	Len      int64             // N, the JSON header's length in bytes, padding included
}

// DataOffset is the file position of the data buffer: 8 + Len.
func (h *Header) DataOffset() int64 { return 8 + h.Len }

// DataSize is the byte length of the data buffer.
func (h *Header) DataSize() int64 {
	if len(h.Tensors) == 0 {
		return 0
	}
	return h.Tensors[len(h.Tensors)-1].End
}

// Find returns the tensor called name (its Shape is a copy).
func (h *Header) Find(name string) (Info, bool) {
	for _, in := range h.Tensors {
		if in.Name == name {
			in.Shape = slices.Clone(in.Shape)
			return in, true
		}
	}
	return Info{}, false
}

// Names returns the tensor names, sorted.
func (h *Header) Names() []string {
	out := make([]string, len(h.Tensors))
	for i, in := range h.Tensors {
		out[i] = in.Name
	}
	slices.Sort(out)
	return out
}

func newErr(op string, kind error, format string, args ...any) error {
	return errs.New("safetensors", op, kind, format, args...)
}

// ioErr turns a failed read into an error: running out of input is an
// ErrValue (a truncated file); any other failure is returned as the cause,
// without a kind.
func ioErr(op string, err error, format string, args ...any) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errs.Wrap("safetensors", op, errs.ErrValue, io.ErrUnexpectedEOF, format, args...)
	}
	return errs.Wrap("safetensors", op, nil, err, format, args...)
}

// readAt fills b from r at off; a full read that also reports io.EOF (as
// the io.ReaderAt contract allows at the end of the input) succeeds.
func readAt(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// ReadHeader reads and validates the header of the safetensors file held in
// r, which is size bytes long (see the package doc for what is checked).
// It allocates nothing sized by the file beyond the header itself, whose
// length is checked against size first.
func ReadHeader(r io.ReaderAt, size int64) (*Header, error) {
	const op = "ReadHeader"
	if size < 8 {
		return nil, newErr(op, errs.ErrValue, "file of %d bytes is too short for the 8-byte header length", max(size, 0))
	}
	var pre [8]byte
	if err := readAt(r, pre[:], 0); err != nil {
		return nil, ioErr(op, err, "read the header length")
	}
	n := binary.LittleEndian.Uint64(pre[:])
	if n > MaxHeaderLen {
		return nil, newErr(op, errs.ErrValue, "header length %d exceeds the limit of %d bytes", n, MaxHeaderLen)
	}
	if int64(n) > size-8 {
		return nil, newErr(op, errs.ErrValue, "header length %d exceeds the %d bytes after the length prefix", n, size-8)
	}
	hb := make([]byte, n)
	if err := readAt(r, hb, 8); err != nil {
		return nil, ioErr(op, err, "read the %d-byte header", n)
	}
	h, err := ParseHeader(hb)
	if err != nil {
		return nil, err
	}
	if data := size - 8 - int64(n); h.DataSize() != data {
		if len(h.Tensors) == 0 {
			return nil, newErr(op, errs.ErrValue, "the header lists no tensors but %d data bytes follow it", data)
		}
		last := h.Tensors[len(h.Tensors)-1]
		if last.End > data {
			return nil, newErr(op, errs.ErrValue, "tensor %q: data_offsets [%d, %d] end beyond the %d-byte data buffer", last.Name, last.Begin, last.End, data)
		}
		return nil, newErr(op, errs.ErrValue, "the tensors cover %d bytes of the %d-byte data buffer (the last, %q, ends at %d): %d trailing bytes", last.End, data, last.Name, last.End, data-last.End)
	}
	return h, nil
}

// ParseHeader parses and validates the JSON header b (the N bytes after
// the length prefix). It checks everything ReadHeader does except that the
// offsets end at the end of the file.
func ParseHeader(b []byte) (*Header, error) {
	const op = "ParseHeader"
	if !utf8.Valid(b) {
		return nil, newErr(op, errs.ErrValue, "header is not valid UTF-8")
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, newErr(op, errs.ErrValue, "header does not start with '{' (first bytes %q)", b[:min(len(b), 16)])
	}
	p := &parser{dec: json.NewDecoder(bytes.NewReader(b))}
	p.dec.UseNumber()
	h := &Header{Len: int64(len(b))}
	if err := p.delim('{', "the header"); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for p.dec.More() {
		key, err := p.str("a header key")
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, newErr(op, errs.ErrValue, "duplicate key %q in the header", key)
		}
		seen[key] = true
		if key == MetadataKey {
			m, err := p.metadata()
			if err != nil {
				return nil, err
			}
			h.Metadata = m
			continue
		}
		in, err := p.tensor(key)
		if err != nil {
			return nil, err
		}
		h.Tensors = append(h.Tensors, in)
	}
	if err := p.delim('}', "the header"); err != nil {
		return nil, err
	}
	// Only JSON whitespace (the padding) may follow the object.
	rest := b[p.dec.InputOffset():]
	if t := bytes.TrimLeft(rest, " \t\r\n"); len(t) > 0 {
		return nil, newErr(op, errs.ErrValue, "unexpected %q after the header's JSON object", t[:min(len(t), 16)])
	}
	if err := validate(h.Tensors); err != nil {
		return nil, err
	}
	return h, nil
}

// validate sorts tensors by offset and checks that they tile the data
// buffer from 0 with no gap or overlap, each as long as its dtype and shape
// say.
func validate(ts []Info) error {
	const op = "ParseHeader"
	slices.SortStableFunc(ts, func(a, b Info) int {
		if c := a.Begin - b.Begin; c != 0 {
			return int(max(min(c, 1), -1))
		}
		return int(max(min(a.End-b.End, 1), -1))
	})
	var pos int64
	prev := ""
	for _, in := range ts {
		switch {
		case in.Begin < pos:
			return newErr(op, errs.ErrValue, "tensor %q: data_offsets [%d, %d] overlap tensor %q, which ends at %d", in.Name, in.Begin, in.End, prev, pos)
		case in.Begin > pos:
			if prev == "" {
				return newErr(op, errs.ErrValue, "tensor %q: data_offsets [%d, %d] leave the %d bytes at the start of the data buffer unused", in.Name, in.Begin, in.End, in.Begin)
			}
			return newErr(op, errs.ErrValue, "tensor %q: data_offsets [%d, %d] leave a gap after tensor %q, which ends at %d", in.Name, in.Begin, in.End, prev, pos)
		}
		pos, prev = in.End, in.Name
	}
	return nil
}

// parser walks the header's JSON tokens, so that duplicate keys and fields
// are found (encoding/json keeps the last of each).
type parser struct {
	dec *json.Decoder
}

func (p *parser) token(what string) (json.Token, error) {
	tok, err := p.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, newErr("ParseHeader", errs.ErrValue, "header JSON ends inside %s", what)
		}
		return nil, errs.Wrap("safetensors", "ParseHeader", errs.ErrValue, err, "malformed header JSON in %s", what)
	}
	return tok, nil
}

func (p *parser) delim(d json.Delim, what string) error {
	tok, err := p.token(what)
	if err != nil {
		return err
	}
	if tok != d {
		return newErr("ParseHeader", errs.ErrValue, "%s: want %q, found %s", what, d, describe(tok))
	}
	return nil
}

func (p *parser) str(what string) (string, error) {
	tok, err := p.token(what)
	if err != nil {
		return "", err
	}
	s, ok := tok.(string)
	if !ok {
		return "", newErr("ParseHeader", errs.ErrValue, "%s: want a string, found %s", what, describe(tok))
	}
	return s, nil
}

// describe names a JSON token for an error message.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(v))
	case string:
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return fmt.Sprintf("string %q", v)
	case json.Number:
		return "number " + v.String()
	case bool:
		return fmt.Sprintf("%v", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// metadata parses the "__metadata__" value: an object of strings, or null.
func (p *parser) metadata() (map[string]string, error) {
	const op = "ParseHeader"
	tok, err := p.token(MetadataKey)
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, nil
	}
	if tok != json.Delim('{') {
		return nil, newErr(op, errs.ErrValue, "%s: want an object of strings, found %s", MetadataKey, describe(tok))
	}
	m := map[string]string{}
	for p.dec.More() {
		k, err := p.str(MetadataKey + " key")
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, newErr(op, errs.ErrValue, "%s: duplicate key %q", MetadataKey, k)
		}
		v, err := p.str(fmt.Sprintf("%s[%q]", MetadataKey, k))
		if err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, p.delim('}', MetadataKey)
}

// tensor parses one tensor entry and checks it on its own: a known dtype,
// a valid shape, and offsets consistent with both.
func (p *parser) tensor(name string) (Info, error) {
	const op = "ParseHeader"
	in := Info{Name: name}
	what := fmt.Sprintf("tensor %q", name)
	if err := p.delim('{', what); err != nil {
		return in, err
	}
	var haveDType, haveShape, haveOffsets bool
	var offsets []int64
	for p.dec.More() {
		field, err := p.str(what + " field name")
		if err != nil {
			return in, err
		}
		fwhat := fmt.Sprintf("tensor %q field %q", name, field)
		switch field {
		case "dtype":
			if haveDType {
				return in, newErr(op, errs.ErrValue, "tensor %q: duplicate field \"dtype\"", name)
			}
			haveDType = true
			if in.Format, err = p.str(fwhat); err != nil {
				return in, err
			}
		case "shape":
			if haveShape {
				return in, newErr(op, errs.ErrValue, "tensor %q: duplicate field \"shape\"", name)
			}
			haveShape = true
			dims, err := p.ints(fwhat, MaxRank)
			if err != nil {
				return in, err
			}
			in.Shape = make([]int, len(dims))
			for i, d := range dims {
				if d > math.MaxInt || d > layout.MaxElements {
					return in, newErr(op, errs.ErrShape, "tensor %q: dimension %d of shape %v is too large", name, d, dims)
				}
				in.Shape[i] = int(d)
			}
		case "data_offsets":
			if haveOffsets {
				return in, newErr(op, errs.ErrValue, "tensor %q: duplicate field \"data_offsets\"", name)
			}
			haveOffsets = true
			if offsets, err = p.ints(fwhat, 2); err != nil {
				return in, err
			}
			if len(offsets) != 2 {
				return in, newErr(op, errs.ErrValue, "tensor %q: data_offsets %v must be [begin, end]", name, offsets)
			}
		default:
			// Unknown fields are skipped, as the reference reader does.
			var skip json.RawMessage
			if err := p.dec.Decode(&skip); err != nil {
				return in, errs.Wrap("safetensors", op, errs.ErrValue, err, "malformed header JSON in %s", fwhat)
			}
		}
	}
	if err := p.delim('}', what); err != nil {
		return in, err
	}
	switch {
	case !haveDType:
		return in, newErr(op, errs.ErrValue, "tensor %q has no \"dtype\"", name)
	case !haveShape:
		return in, newErr(op, errs.ErrValue, "tensor %q has no \"shape\"", name)
	case !haveOffsets:
		return in, newErr(op, errs.ErrValue, "tensor %q has no \"data_offsets\"", name)
	}
	fi := lookup(in.Format)
	if fi < 0 {
		return in, newErr(op, errs.ErrDType, "tensor %q: unknown dtype %q", name, in.Format)
	}
	in.DType = formats[fi].dt
	in.Begin, in.End = offsets[0], offsets[1]
	if in.End < in.Begin {
		return in, newErr(op, errs.ErrValue, "tensor %q: data_offsets [%d, %d] end before they begin", name, in.Begin, in.End)
	}
	numel, err := layout.Numel(in.Shape)
	if err != nil {
		return in, errs.Wrap("safetensors", op, errs.ErrShape, err, "tensor %q: shape %v", name, in.Shape)
	}
	// numel <= layout.MaxElements (2^59), so numel*bits fits in a uint64.
	hi, nbits := bits.Mul64(uint64(numel), uint64(formats[fi].bits))
	if hi != 0 || nbits%8 != 0 {
		return in, newErr(op, errs.ErrShape, "tensor %q: shape %v of %s is not a whole number of bytes", name, in.Shape, in.Format)
	}
	if want := nbits / 8; uint64(in.End-in.Begin) != want {
		return in, newErr(op, errs.ErrValue, "tensor %q: data_offsets [%d, %d] hold %d bytes, but shape %v of %s needs %d", name, in.Begin, in.End, in.End-in.Begin, in.Shape, in.Format, want)
	}
	return in, nil
}

// ints parses an array of at most limit non-negative integers.
func (p *parser) ints(what string, limit int) ([]int64, error) {
	const op = "ParseHeader"
	if err := p.delim('[', what); err != nil {
		return nil, err
	}
	out := []int64{}
	for p.dec.More() {
		tok, err := p.token(what)
		if err != nil {
			return nil, err
		}
		num, ok := tok.(json.Number)
		if !ok {
			return nil, newErr(op, errs.ErrValue, "%s: want a non-negative integer, found %s", what, describe(tok))
		}
		v, err := strconv.ParseInt(string(num), 10, 64)
		if err != nil {
			if strings.HasPrefix(string(num), "-") {
				return nil, newErr(op, errs.ErrShape, "%s: %s is negative", what, num)
			}
			return nil, newErr(op, errs.ErrValue, "%s: %s is not an integer in [0, 2^63)", what, num)
		}
		if v < 0 {
			return nil, newErr(op, errs.ErrShape, "%s: %d is negative", what, v)
		}
		if len(out) == limit {
			return nil, newErr(op, errs.ErrValue, "%s: more than %d values", what, limit)
		}
		out = append(out, v)
	}
	return out, p.delim(']', what)
}

// File is an open safetensors file: its validated header and the reader
// its tensors are read from, one at a time.
type File struct {
	Header
	r    io.ReaderAt
	c    io.Closer
	byNm map[string]int
}

// Open reads and validates the header of the safetensors file held in r,
// size bytes long. Tensors are read later, one at a time, with ReadInto, from any
// number of goroutines.
func Open(r io.ReaderAt, size int64) (*File, error) {
	h, err := ReadHeader(r, size)
	if err != nil {
		return nil, errs.Retag("safetensors", "Open", err)
	}
	f := &File{Header: *h, r: r, byNm: make(map[string]int, len(h.Tensors))}
	for i, in := range h.Tensors {
		f.byNm[in.Name] = i
	}
	return f, nil
}

// OpenFile opens the safetensors file at path (see Open). Close it when
// done.
func OpenFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, errs.Wrap("safetensors", "OpenFile", nil, err, "open")
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, errs.Wrap("safetensors", "OpenFile", nil, err, "stat")
	}
	f, err := Open(fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, errs.Retag("safetensors", "OpenFile", err)
	}
	f.c = fh
	return f, nil
}

// Close closes the file OpenFile opened; for a File from Open it does
// nothing.
func (f *File) Close() error {
	if f.c == nil {
		return nil
	}
	c := f.c
	f.c = nil
	return c.Close()
}

// Find returns the tensor called name (its Shape is a copy).
func (f *File) Find(name string) (Info, bool) {
	i, ok := f.byNm[name]
	if !ok {
		return Info{}, false
	}
	in := f.Tensors[i]
	in.Shape = slices.Clone(in.Shape)
	return in, true
}

// ReadInto reads the data of the tensor called name into dst, which must be
// exactly its Size() bytes. BOOL data must be 0s and 1s.
func (f *File) ReadInto(name string, dst []byte) error {
	const op = "ReadInto"
	i, ok := f.byNm[name]
	if !ok {
		return newErr(op, errs.ErrValue, "no tensor %q in the file", name)
	}
	in := f.Tensors[i]
	if int64(len(dst)) != in.Size() {
		return newErr(op, errs.ErrValue, "tensor %q: buffer of %d bytes for %d bytes of data", in.Name, len(dst), in.Size())
	}
	if err := readAt(f.r, dst, f.DataOffset()+in.Begin); err != nil {
		return ioErr(op, err, "tensor %q: read %d bytes at offset %d", in.Name, len(dst), f.DataOffset()+in.Begin)
	}
	if in.Format == "BOOL" {
		for i, b := range dst {
			if b > 1 {
				return newErr(op, errs.ErrValue, "tensor %q: bool element %d is 0x%02x, want 0 or 1", in.Name, i, b)
			}
		}
	}
	return nil
}

// Spec describes a tensor to write: its name, dtype and shape.
type Spec struct {
	Name  string
	DType dtype.DType
	Shape []int
}

// NewHeader lays out the tensors of specs for writing: in decreasing order
// of dtype alignment, then by name, each directly after the previous one.
// It refuses duplicate or invalid UTF-8 names, the name "__metadata__",
// invalid dtypes and shapes, and metadata that is not valid UTF-8.
func NewHeader(specs []Spec, metadata map[string]string) (*Header, error) {
	const op = "NewHeader"
	order := make([]int, len(specs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ra, rb := rankOf(specs[a].DType), rankOf(specs[b].DType)
		if ra != rb {
			return rb - ra
		}
		return strings.Compare(specs[a].Name, specs[b].Name)
	})
	h := &Header{Tensors: make([]Info, 0, len(specs))}
	if metadata != nil {
		h.Metadata = make(map[string]string, len(metadata))
		for k, v := range metadata {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return nil, newErr(op, errs.ErrValue, "metadata %q: %q is not valid UTF-8", k, v)
			}
			h.Metadata[k] = v
		}
	}
	seen := make(map[string]bool, len(specs))
	for _, s := range specs {
		if seen[s.Name] {
			return nil, newErr(op, errs.ErrValue, "duplicate tensor name %q", s.Name)
		}
		seen[s.Name] = true
	}
	var pos int64
	for _, j := range order {
		s := specs[j]
		switch {
		case !utf8.ValidString(s.Name):
			return nil, newErr(op, errs.ErrValue, "tensor name %q is not valid UTF-8", s.Name)
		case s.Name == MetadataKey:
			return nil, newErr(op, errs.ErrValue, "tensor name %q is reserved for the metadata", s.Name)
		case rankOf(s.DType) < 0:
			return nil, newErr(op, errs.ErrDType, "tensor %q: invalid dtype %v", s.Name, s.DType)
		case len(s.Shape) > MaxRank:
			return nil, newErr(op, errs.ErrShape, "tensor %q: shape %v has more than %d axes", s.Name, s.Shape, MaxRank)
		}
		numel, err := layout.Numel(s.Shape)
		if err != nil {
			return nil, errs.Wrap("safetensors", op, errs.ErrShape, err, "tensor %q: shape %v", s.Name, s.Shape)
		}
		size := int64(numel) * int64(s.DType.Size())
		if pos > math.MaxInt64-size {
			return nil, newErr(op, errs.ErrShape, "tensor %q: the data exceeds 2^63 bytes", s.Name)
		}
		h.Tensors = append(h.Tensors, Info{Name: s.Name, Format: Name(s.DType), DType: s.DType, Shape: slices.Clone(s.Shape), Begin: pos, End: pos + size})
		pos += size
	}
	h.Len = int64(len(h.encodeJSON()))
	return h, nil
}

// encodeJSON returns the padded JSON header: compact, "__metadata__" first
// (keys sorted), then the tensors in file order.
func (h *Header) encodeJSON() []byte {
	var b []byte
	b = append(b, '{')
	if h.Metadata != nil {
		b = appendString(b, MetadataKey)
		b = append(b, ":{"...)
		for i, k := range slices.Sorted(mapKeys(h.Metadata)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendString(b, h.Metadata[k])
		}
		b = append(b, '}')
	}
	for i, in := range h.Tensors {
		if i > 0 || h.Metadata != nil {
			b = append(b, ',')
		}
		b = appendString(b, in.Name)
		b = append(b, `:{"dtype":`...)
		b = appendString(b, in.Format)
		b = append(b, `,"shape":[`...)
		for j, d := range in.Shape {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(d), 10)
		}
		b = append(b, `],"data_offsets":[`...)
		b = strconv.AppendInt(b, in.Begin, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, in.End, 10)
		b = append(b, "]}"...)
	}
	b = append(b, '}')
	for len(b)%8 != 0 {
		b = append(b, ' ')
	}
	return b
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// appendString appends s as a JSON string, escaping only what JSON
// requires (quote, backslash, control characters), as serde_json and
// Python's json.dumps(ensure_ascii=False) do.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// Encode returns the first 8 + Len bytes of the file: the length prefix
// and the padded JSON header.
func (h *Header) Encode() []byte {
	js := h.encodeJSON()
	out := make([]byte, 8, 8+len(js))
	binary.LittleEndian.PutUint64(out, uint64(len(js)))
	return append(out, js...)
}

// Tensor is a tensor to write: its dtype, shape and data (little-endian
// elements in row-major order).
type Tensor struct {
	DType dtype.DType
	Shape []int
	Data  []byte
}

// Write writes tensors and metadata (which may be nil) to w as one
// safetensors file (see NewHeader for the layout).
func Write(w io.Writer, tensors map[string]Tensor, metadata map[string]string) error {
	const op = "Write"
	specs := make([]Spec, 0, len(tensors))
	for name, t := range tensors {
		specs = append(specs, Spec{Name: name, DType: t.DType, Shape: t.Shape})
	}
	h, err := NewHeader(specs, metadata)
	if err != nil {
		return errs.Retag("safetensors", op, err)
	}
	for _, in := range h.Tensors {
		if got := int64(len(tensors[in.Name].Data)); got != in.Size() {
			return newErr(op, errs.ErrValue, "tensor %q: %d data bytes for shape %v %s, want %d", in.Name, got, in.Shape, in.Format, in.Size())
		}
	}
	if _, err := w.Write(h.Encode()); err != nil {
		return errs.Wrap("safetensors", op, nil, err, "write the header")
	}
	for _, in := range h.Tensors {
		if _, err := w.Write(tensors[in.Name].Data); err != nil {
			return errs.Wrap("safetensors", op, nil, err, "write tensor %q", in.Name)
		}
	}
	return nil
}
