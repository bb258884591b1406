package safetensors_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/safetensors"
)

// file assembles a safetensors file from a JSON header (padded to 8 bytes
// as writers do) and a data buffer.
func file(header string, data []byte) []byte {
	for len(header)%8 != 0 {
		header += " "
	}
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, data...)
}

func open(b []byte) (*safetensors.File, error) {
	return safetensors.Open(bytes.NewReader(b), int64(len(b)))
}

func TestOpenValid(t *testing.T) {
	b := file(`{"__metadata__":{"format":"pt"},"b":{"dtype":"U8","shape":[2],"data_offsets":[8,10]},`+
		`"a":{"dtype":"F64","shape":[],"data_offsets":[0,8]},"z":{"dtype":"I8","shape":[0,3],"data_offsets":[10,10]},`+
		`"q":{"dtype":"F4","shape":[4],"data_offsets":[10,12],"extra":[1,{"x":null}]}}`, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 7, 9, 1, 2})
	f, err := open(b)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"format": "pt"}; !reflect.DeepEqual(f.Metadata, want) {
		t.Errorf("metadata %v, want %v", f.Metadata, want)
	}
	if got, want := f.Names(), []string{"a", "b", "q", "z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	var order []string
	for _, in := range f.Tensors {
		order = append(order, in.Name)
	}
	if want := []string{"a", "b", "z", "q"}; !reflect.DeepEqual(order, want) {
		t.Errorf("file order %v, want %v", order, want)
	}
	in, ok := f.Find("b")
	if !ok || in.DType != dtype.U8 || in.Format != "U8" || !reflect.DeepEqual(in.Shape, []int{2}) || in.Begin != 8 || in.End != 10 {
		t.Fatalf("Find(b) = %+v, %v", in, ok)
	}
	dst := make([]byte, 2)
	if err := f.ReadInto(in.Name, dst); err != nil || !bytes.Equal(dst, []byte{7, 9}) {
		t.Errorf("ReadInto(b) = %v, %v", dst, err)
	}
	if in, _ := f.Find("z"); in.DType != dtype.Invalid || in.Format != "I8" {
		t.Errorf("I8 tensor: %+v, want Format I8 and no tessera dtype", in)
	}
	if err := f.ReadInto(in.Name, make([]byte, 3)); !errors.Is(err, errs.ErrValue) {
		t.Errorf("ReadInto with a short buffer: %v", err)
	}
	if err := f.ReadInto("nope", nil); !errors.Is(err, errs.ErrValue) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("ReadInto of an unknown name: %v", err)
	}
}

// TestOpenRejects covers the header checks: each input is refused with the
// given kind and a message containing the given text.
func TestOpenRejects(t *testing.T) {
	f32x2 := make([]byte, 8)
	hdr := func(s string) []byte { return file(s, f32x2) }
	long := binary.LittleEndian.AppendUint64(nil, 1<<40)
	cases := []struct {
		name string
		in   []byte
		kind error
		msg  string
	}{
		{"empty", nil, errs.ErrValue, "too short"},
		{"short", []byte{1, 2, 3}, errs.ErrValue, "too short"},
		{"header length beyond the limit", long, errs.ErrValue, "exceeds the limit"},
		{"header length beyond the file", binary.LittleEndian.AppendUint64(nil, 100), errs.ErrValue, "exceeds the 0 bytes"},
		{"max uint64 header length", binary.LittleEndian.AppendUint64(nil, ^uint64(0)), errs.ErrValue, "exceeds the limit"},
		{"not UTF-8", file("{\"a\xff\":1}", nil), errs.ErrValue, "UTF-8"},
		{"not an object", file(`[1,2]`, nil), errs.ErrValue, "start with '{'"},
		{"leading space", file(` {}`, nil), errs.ErrValue, "start with '{'"},
		{"bad JSON", hdr(`{"a":{"dtype":"F32",}}`), errs.ErrValue, "malformed header JSON"},
		{"truncated JSON", hdr(`{"a":{"dtype":"F32"`), errs.ErrValue, "ends inside"},
		{"trailing garbage", file(`{}x`, nil), errs.ErrValue, "after the header"},
		{"two objects", file(`{}{}`, nil), errs.ErrValue, "after the header"},
		{"duplicate tensor", hdr(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`), errs.ErrValue, `duplicate key "a"`},
		{"duplicate field", hdr(`{"a":{"dtype":"F32","dtype":"F64","shape":[2],"data_offsets":[0,8]}}`), errs.ErrValue, `duplicate field "dtype"`},
		{"duplicate metadata key", file(`{"__metadata__":{"k":"1","k":"2"}}`, nil), errs.ErrValue, `duplicate key "k"`},
		{"metadata not string", file(`{"__metadata__":{"k":1}}`, nil), errs.ErrValue, "want a string"},
		{"metadata not object", file(`{"__metadata__":[]}`, nil), errs.ErrValue, "object of strings"},
		{"entry not object", hdr(`{"a":[1]}`), errs.ErrValue, `tensor "a"`},
		{"missing dtype", hdr(`{"a":{"shape":[2],"data_offsets":[0,8]}}`), errs.ErrValue, `no "dtype"`},
		{"missing shape", hdr(`{"a":{"dtype":"F32","data_offsets":[0,8]}}`), errs.ErrValue, `no "shape"`},
		{"missing offsets", hdr(`{"a":{"dtype":"F32","shape":[2]}}`), errs.ErrValue, `no "data_offsets"`},
		{"unknown dtype", hdr(`{"w":{"dtype":"F128","shape":[1],"data_offsets":[0,8]}}`), errs.ErrDType, `tensor "w": unknown dtype "F128"`},
		{"lower-case dtype", hdr(`{"w":{"dtype":"f32","shape":[2],"data_offsets":[0,8]}}`), errs.ErrDType, `unknown dtype "f32"`},
		{"negative dim", hdr(`{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`), errs.ErrShape, "negative"},
		{"fractional dim", hdr(`{"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}}`), errs.ErrValue, "not an integer"},
		{"string dim", hdr(`{"a":{"dtype":"F32","shape":["2"],"data_offsets":[0,8]}}`), errs.ErrValue, "want a non-negative integer"},
		{"huge dim", hdr(`{"a":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,8]}}`), errs.ErrValue, "not an integer"},
		{"shape overflow", hdr(`{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`), errs.ErrShape, `tensor "a"`},
		{"rank too large", hdr(`{"a":{"dtype":"F32","shape":[` + strings.Repeat("1,", 64) + `1],"data_offsets":[0,8]}}`), errs.ErrValue, "more than 64"},
		{"size mismatch", hdr(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`), errs.ErrValue, "needs 12"},
		{"sub-byte dtype", hdr(`{"a":{"dtype":"F4","shape":[3],"data_offsets":[0,1]}}`), errs.ErrShape, "whole number of bytes"},
		{"end before begin", hdr(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`), errs.ErrValue, "end before"},
		{"three offsets", hdr(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8,8]}}`), errs.ErrValue, "more than 2"},
		{"one offset", hdr(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[8]}}`), errs.ErrValue, "[begin, end]"},
		{"negative offset", hdr(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}}`), errs.ErrShape, "negative"},
		{"overlap", hdr(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`), errs.ErrValue, `tensor "b": data_offsets [4, 8] overlap tensor "a"`},
		{"gap", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}`, make([]byte, 12)), errs.ErrValue, `leave a gap after tensor "a"`},
		{"hole at start", hdr(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`), errs.ErrValue, "at the start"},
		{"beyond the file", hdr(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`), errs.ErrValue, "beyond the 8-byte data buffer"},
		{"huge offsets", hdr(`{"a":{"dtype":"U8","shape":[1000000000000],"data_offsets":[0,1000000000000]}}`), errs.ErrValue, "beyond"},
		{"trailing data", hdr(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`), errs.ErrValue, "4 trailing bytes"},
		{"data without tensors", hdr(`{}`), errs.ErrValue, "lists no tensors"},
		{"deep nesting", hdr(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`), errs.ErrValue, "malformed"},
	}
	for _, c := range cases {
		_, err := open(c.in)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %v containing %q", c.name, err, c.kind, c.msg)
		}
	}
}

func TestReadIntoBool(t *testing.T) {
	f, err := open(file(`{"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}}`, []byte{1, 0, 2}))
	if err != nil {
		t.Fatal(err)
	}
	in, _ := f.Find("m")
	if err := f.ReadInto(in.Name, make([]byte, 3)); !errors.Is(err, errs.ErrValue) || !strings.Contains(err.Error(), "element 2 is 0x02") {
		t.Errorf("bool byte 2: %v", err)
	}
}

// TestTruncatedReader: a ReaderAt shorter than the size it was opened
// with is a typed error when the data is read, not a panic.
func TestTruncatedReader(t *testing.T) {
	b := file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, make([]byte, 8))
	f, err := safetensors.Open(bytes.NewReader(b[:len(b)-4]), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	in, _ := f.Find("a")
	if err := f.ReadInto(in.Name, make([]byte, 8)); !errors.Is(err, errs.ErrValue) {
		t.Errorf("truncated: %v", err)
	}
}

// TestWriteMatchesReference checks Write byte for byte against the files
// the reference implementation's own tests pin: compact JSON, metadata
// first, padding with spaces to 8 bytes.
func TestWriteMatchesReference(t *testing.T) {
	data := make([]byte, 24)
	for i, v := range []float32{0, 1, 2, 3, 4, 5} {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	for _, c := range []struct {
		ts   map[string]safetensors.Tensor
		md   map[string]string
		want string
	}{
		{map[string]safetensors.Tensor{"attn.0": {DType: dtype.F32, Shape: []int{1, 2, 3}, Data: data}}, nil,
			`{"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}}`},
		{map[string]safetensors.Tensor{"attn0": {DType: dtype.F32, Shape: []int{1, 1, 2, 3}, Data: data}}, nil,
			`{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       `},
		{nil, nil, `{}      `},
		{nil, map[string]string{"framework": "pt"}, `{"__metadata__":{"framework":"pt"}}     `},
	} {
		var buf bytes.Buffer
		if err := safetensors.Write(&buf, c.ts, c.md); err != nil {
			t.Fatal(err)
		}
		want := binary.LittleEndian.AppendUint64(nil, uint64(len(c.want)))
		want = append(want, c.want...)
		for _, tt := range c.ts {
			want = append(want, tt.Data...)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("Write:\n got %q\nwant %q", buf.Bytes(), want)
		}
	}
}

// TestWriteOrderAndEscapes: tensors are laid out by decreasing alignment,
// then by name; names are escaped as JSON requires and read back exactly.
func TestWriteOrderAndEscapes(t *testing.T) {
	odd := "q\"\\\n\x01é<>&\u2028"
	ts := map[string]safetensors.Tensor{
		"b":  {DType: dtype.U8, Shape: []int{1}, Data: []byte{1}},
		"a":  {DType: dtype.U8, Shape: []int{1}, Data: []byte{2}},
		"f":  {DType: dtype.F64, Shape: []int{}, Data: make([]byte, 8)},
		"h":  {DType: dtype.F16, Shape: []int{1}, Data: []byte{0, 0x3c}},
		odd:  {DType: dtype.Bool, Shape: []int{2}, Data: []byte{1, 0}},
		"i":  {DType: dtype.I64, Shape: []int{1}, Data: make([]byte, 8)},
		"z0": {DType: dtype.F32, Shape: []int{0, 5}, Data: nil},
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, ts, map[string]string{"k\x00": "v\t"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"q\"\\\n\u0001é<>&`+"\u2028"+`"`)) || !bytes.Contains(buf.Bytes(), []byte(`{"k\u0000":"v\t"}`)) {
		t.Errorf("escapes: %q", buf.Bytes())
	}
	if n := binary.LittleEndian.Uint64(buf.Bytes()); n%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8", n)
	}
	f, err := open(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, in := range f.Tensors {
		order = append(order, in.Name)
		dst := make([]byte, in.Size())
		if err := f.ReadInto(in.Name, dst); err != nil || !bytes.Equal(dst, ts[in.Name].Data) && len(dst) > 0 {
			t.Errorf("%q: %v %v", in.Name, dst, err)
		}
	}
	if want := []string{"i", "f", "z0", "h", "a", "b", odd}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}
	if f.Metadata["k\x00"] != "v\t" {
		t.Errorf("metadata %q", f.Metadata)
	}
}

func TestWriteRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		ts   map[string]safetensors.Tensor
		md   map[string]string
		kind error
	}{
		{"reserved name", map[string]safetensors.Tensor{"__metadata__": {DType: dtype.U8, Shape: []int{0}}}, nil, errs.ErrValue},
		{"bad UTF-8 name", map[string]safetensors.Tensor{"\xff": {DType: dtype.U8, Shape: []int{0}}}, nil, errs.ErrValue},
		{"bad UTF-8 metadata", nil, map[string]string{"k": "\xfe"}, errs.ErrValue},
		{"invalid dtype", map[string]safetensors.Tensor{"a": {DType: dtype.Invalid, Shape: []int{0}}}, nil, errs.ErrDType},
		{"negative dim", map[string]safetensors.Tensor{"a": {DType: dtype.U8, Shape: []int{-1}}}, nil, errs.ErrShape},
		{"data size", map[string]safetensors.Tensor{"a": {DType: dtype.F32, Shape: []int{2}, Data: make([]byte, 7)}}, nil, errs.ErrValue},
	} {
		var buf bytes.Buffer
		if err := safetensors.Write(&buf, c.ts, c.md); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
		} else if buf.Len() != 0 {
			t.Errorf("%s: wrote %d bytes before failing", c.name, buf.Len())
		}
	}
}

// TestGoldenHeader reads the header of the file written by the script's
// independent writer (json.dumps spacing, name order).
func TestGoldenHeader(t *testing.T) {
	f, err := safetensors.OpenFile("../testdata/io/golden.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Tensors) != 10 || f.Metadata["source"] != "gen_io.py" {
		t.Errorf("%d tensors, metadata %v", len(f.Tensors), f.Metadata)
	}
	if _, err := safetensors.OpenFile("../testdata/io/nonexistent.safetensors"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
