package npy_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/npy"
)

// file assembles a .npy file from its parts: the preamble for version
// major.0 with a header length that matches header, then data.
func file(major byte, header string, data []byte) []byte {
	b := []byte("\x93NUMPY")
	b = append(b, major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(header)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(header)))
	}
	b = append(b, header...)
	return append(b, data...)
}

// dict is a header as NumPy writes it (without the padding).
func dict(descr string, fortran bool, shape string) string {
	fo := "False"
	if fortran {
		fo = "True"
	}
	return fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }\n", descr, fo, shape)
}

func TestMalformed(t *testing.T) {
	f4x2 := make([]byte, 8)
	cases := []struct {
		name string
		in   []byte
		kind error
		msg  string // a substring the message must contain
	}{
		{"empty", nil, errs.ErrValue, "no data"},
		{"short preamble", []byte("\x93NUM"), errs.ErrValue, "too short"},
		{"bad magic", file(1, dict("<f4", false, "(2,)"), f4x2)[1:], errs.ErrValue, "bad magic"},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00"), errs.ErrValue, "bad magic"},
		{"version 4.0", bytes.Replace(file(1, dict("<f4", false, "(2,)"), f4x2), []byte{1, 0}, []byte{4, 0}, 1), errs.ErrValue, "version 4.0"},
		{"version 1.1", bytes.Replace(file(1, dict("<f4", false, "(2,)"), f4x2), []byte{1, 0}, []byte{1, 1}, 1), errs.ErrValue, "version 1.1"},
		{"version 0.0", []byte("\x93NUMPY\x00\x00\x10\x00"), errs.ErrValue, "version 0.0"},
		{"no header length", []byte("\x93NUMPY\x01\x00\x10"), errs.ErrValue, "header length"},
		{"no header length v2", []byte("\x93NUMPY\x02\x00\x10\x00"), errs.ErrValue, "header length"},
		{"truncated header", file(1, dict("<f4", false, "(2,)"), nil)[:30], errs.ErrValue, "truncated header"},
		{"header too long", []byte("\x93NUMPY\x02\x00\x00\x00\x00\x40{}"), errs.ErrValue, "exceeds"},
		{"header not a dict", file(1, "[1, 2]\n", nil), errs.ErrValue, "expected '{'"},
		{"empty header", file(1, "", nil), errs.ErrValue, "expected '{'"},
		{"unclosed dict", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", nil), errs.ErrValue, "header"},
		{"unclosed tuple", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, }", nil), errs.ErrValue, "header"},
		{"unterminated string", file(1, "{'descr: '<f4'}", nil), errs.ErrValue, "expected ':'"},
		{"string to end", file(1, "{'descr", nil), errs.ErrValue, "unterminated string"},
		{"escape", file(1, `{'descr': '<f\x34', 'fortran_order': False, 'shape': (2,), }`, f4x2), errs.ErrValue, "escape"},
		{"text after dict", file(1, dict("<f4", false, "(2,)")+"x", f4x2), errs.ErrValue, "after the dict"},
		{"two dicts", file(1, "{}{}", nil), errs.ErrValue, "header"},
		{"missing descr", file(1, "{'fortran_order': False, 'shape': (2,)}", f4x2), errs.ErrValue, `missing key "descr"`},
		{"missing shape", file(1, "{'descr': '<f4', 'fortran_order': False}", f4x2), errs.ErrValue, `missing key "shape"`},
		{"missing fortran_order", file(1, "{'descr': '<f4', 'shape': (2,)}", f4x2), errs.ErrValue, `missing key "fortran_order"`},
		{"extra key", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", f4x2), errs.ErrValue, `unexpected key "x"`},
		{"duplicate key", file(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", f4x2), errs.ErrValue, "duplicate key"},
		{"non-string key", file(1, "{1: 2}", nil), errs.ErrValue, "string key"},
		{"fortran_order int", file(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", f4x2), errs.ErrValue, "fortran_order"},
		{"fortran_order string", file(1, "{'descr': '<f4', 'fortran_order': 'False', 'shape': (2,)}", f4x2), errs.ErrValue, "fortran_order"},
		{"fortran_order lowercase", file(1, "{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", f4x2), errs.ErrValue, "unsupported name"},
		{"shape list", file(1, dict("<f4", false, "[2]"), f4x2), errs.ErrValue, "shape is a list"},
		{"shape int", file(1, dict("<f4", false, "2"), f4x2), errs.ErrValue, "shape is a integer"},
		{"shape parenthesised int", file(1, dict("<f4", false, "(2)"), f4x2), errs.ErrValue, "shape is a integer"},
		{"shape float", file(1, dict("<f4", false, "(2.0,)"), f4x2), errs.ErrValue, "only decimal integers"},
		{"shape hex", file(1, dict("<f4", false, "(0x2,)"), f4x2), errs.ErrValue, "only decimal integers"},
		{"shape bool", file(1, dict("<f4", false, "(True,)"), f4x2), errs.ErrValue, "shape[0] is a bool"},
		{"shape None", file(1, dict("<f4", false, "None"), f4x2), errs.ErrValue, "shape is a None"},
		{"shape nested", file(1, dict("<f4", false, "((2,),)"), f4x2), errs.ErrValue, "shape[0] is a tuple"},
		{"shape bare minus", file(1, dict("<f4", false, "(-,)"), f4x2), errs.ErrValue, "malformed number"},
		{"deep nesting", file(1, "{'descr': "+strings.Repeat("(", 100)+strings.Repeat(")", 100)+"}", nil), errs.ErrValue, "nesting"},
		{"v3 header not utf-8", file(3, "{'descr': '<f4\xff', 'fortran_order': False, 'shape': (2,), }", f4x2), errs.ErrValue, "UTF-8"},
		{"descr i2", file(1, dict("<i2", false, "(2,)"), f4x2), errs.ErrDType, `"<i2"`},
		{"descr c8", file(1, dict("<c8", false, "(1,)"), f4x2), errs.ErrDType, "unsupported descr"},
		{"descr f16", file(1, dict("<f16", false, "(1,)"), make([]byte, 16)), errs.ErrDType, "unsupported descr"},
		{"descr name", file(1, dict("float32", false, "(2,)"), f4x2), errs.ErrDType, "unsupported descr"},
		{"descr no order", file(1, dict("f4", false, "(2,)"), f4x2), errs.ErrDType, "unsupported descr"},
		{"descr native", file(1, dict("=f4", false, "(2,)"), f4x2), errs.ErrDType, "unsupported descr"},
		{"descr pipe f4", file(1, dict("|f4", false, "(2,)"), f4x2), errs.ErrDType, "unsupported descr"},
		{"descr bfloat16", file(1, dict("<bf16", false, "(2,)"), f4x2), errs.ErrDType, "unsupported descr"},
		{"descr object", file(1, dict("|O", false, "(2,)"), f4x2), errs.ErrDType, "unsupported descr"},
		{"descr space", file(1, dict("<f4 ", false, "(2,)"), f4x2), errs.ErrDType, "unsupported descr"},
		{"descr structured", file(1, "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }", f4x2), errs.ErrDType, "structured"},
		{"descr int", file(1, "{'descr': 4, 'fortran_order': False, 'shape': (2,), }", f4x2), errs.ErrDType, "descr is a integer"},
		{"negative extent", file(1, dict("<f4", false, "(-1,)"), f4x2), errs.ErrShape, "negative extent -1"},
		{"negative extent spaced", file(1, dict("<f4", false, "(2, - 3)"), f4x2), errs.ErrShape, "negative extent -3"},
		{"huge negative extent", file(1, dict("<f4", false, "(-99999999999999999999999,)"), f4x2), errs.ErrShape, "negative extent"},
		{"extent beyond int64", file(1, dict("<f4", false, "(99999999999999999999999,)"), f4x2), errs.ErrShape, "too large"},
		{"element count overflows", file(1, dict("<f4", false, "(4294967296, 4294967296)"), f4x2), errs.ErrShape, "elements"},
		{"element count above MaxElements", file(1, dict("<f8", false, "(1152921504606846976,)"), f4x2), errs.ErrShape, "elements"},
		{"too many axes", file(1, dict("<f4", false, "("+strings.Repeat("1, ", 65)+")"), f4x2), errs.ErrShape, "65 axes"},
		{"short data", file(1, dict("<f4", false, "(3,)"), f4x2), errs.ErrValue, "needs 12 bytes"},
		{"short data 2-D", file(1, dict("<f8", true, "(2, 2)"), make([]byte, 31)), errs.ErrValue, "needs 32 bytes"},
		{"no data", file(1, dict("|u1", false, "()"), nil), errs.ErrValue, "needs 1 bytes"},
		{"huge shape short data", file(1, dict("<f4", false, "(1099511627776,)"), f4x2), errs.ErrValue, "needs 4398046511104 bytes"},
		{"bool not 0 or 1", file(1, dict("|b1", false, "(3,)"), []byte{0, 1, 2}), errs.ErrValue, "bool element 2 is 0x02"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Once through a reader that tells its length and once through
			// one that does not, so both the early and the streaming checks
			// are exercised.
			for _, r := range []io.Reader{bytes.NewReader(c.in), bufio.NewReader(bytes.NewReader(c.in))} {
				a, err := npy.Read(r)
				if err == nil {
					t.Fatalf("Read = %v %v, want an error", a.DType, a.Shape)
				}
				if !errors.Is(err, c.kind) {
					t.Errorf("Read error %q is not %v", err, c.kind)
				}
				var e *errs.Error
				if !errors.As(err, &e) || e.Pkg != "npy" || e.Op != "Read" {
					t.Errorf("Read error %q is not an npy Read *errs.Error", err)
				}
				if !strings.Contains(err.Error(), c.msg) {
					t.Errorf("Read error %q does not mention %q", err, c.msg)
				}
				for _, k := range []error{errs.ErrValue, errs.ErrDType, errs.ErrShape} {
					if k != c.kind && errors.Is(err, k) {
						t.Errorf("Read error %q is also %v", err, k)
					}
				}
			}
		})
	}
}

func TestEmptyInputIsEOF(t *testing.T) {
	_, err := npy.Read(bytes.NewReader(nil))
	if !errors.Is(err, io.EOF) || !errors.Is(err, errs.ErrValue) {
		t.Fatalf("Read(empty) = %v, want ErrValue wrapping io.EOF", err)
	}
	_, err = npy.Read(bytes.NewReader([]byte("\x93NU")))
	if errors.Is(err, io.EOF) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Read(truncated) = %v, want io.ErrUnexpectedEOF and not io.EOF", err)
	}
}

// TestHugeShapeNoAlloc checks that a header claiming far more data than the
// input holds is refused without allocating anything like the claimed size.
func TestHugeShapeNoAlloc(t *testing.T) {
	for _, shape := range []string{"(1099511627776,)", "(65536, 65536, 64)", "(576460752303423487,)"} {
		in := file(2, dict("|u1", false, shape), make([]byte, 100))
		for _, wrap := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(in)
			if wrap {
				r = io.MultiReader(r) // hides Len: the streaming path
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := npy.Read(r)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, errs.ErrValue) {
				t.Fatalf("Read shape %s: err = %v, want ErrValue", shape, err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
				t.Errorf("Read shape %s (streaming %v) allocated %d bytes", shape, wrap, got)
			}
		}
	}
}

// TestHeaderSyntax reads headers in the variants Python's literal syntax
// allows and NumPy versions have written.
func TestHeaderSyntax(t *testing.T) {
	data := []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0}
	for _, h := range []string{
		"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
		"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)}",
		"{'descr':'<i4','fortran_order':False,'shape':(2,3)}",
		"{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (2, 3,),}",
		"  {'shape': (2, 3), 'fortran_order': False, 'descr': '<i4'}   \n",
		"{\n 'descr' : '<i4' ,\n\t'fortran_order' : False ,\r\n 'shape' : ( 2 , 3 , ) ,\n}\n",
		"{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }", // Python 2 NumPy
		"{'descr': '<i4', 'fortran_order': False, 'shape': (+2, 3), }",
		"{'descr': '<i4', 'fortran_order': False, 'shape': ((2), 3), }",
		"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 1, 3, 1), }",
	} {
		for _, major := range []byte{1, 2, 3} {
			a, err := npy.Read(bytes.NewReader(file(major, h, data)))
			if err != nil {
				t.Errorf("v%d header %q: %v", major, h, err)
				continue
			}
			v, _ := a.Float64s()
			if a.DType != dtype.I32 || len(a.Data) != 24 || !slices.Equal(v, []float64{1, 2, 3, 4, 5, 6}) {
				t.Errorf("v%d header %q: got %v %v %v", major, h, a.DType, a.Shape, v)
			}
		}
	}
}

func TestFortranOrder(t *testing.T) {
	// A (2, 3) array [[0 1 2] [3 4 5]] in Fortran order is 0 3 1 4 2 5.
	in := file(1, dict("|u1", true, "(2, 3)"), []byte{0, 3, 1, 4, 2, 5})
	a, err := npy.Read(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Shape, []int{2, 3}) || !bytes.Equal(a.Data, []byte{0, 1, 2, 3, 4, 5}) {
		t.Errorf("got %v %v, want [2 3] [0 1 2 3 4 5]", a.Shape, a.Data)
	}
	// Big-endian Fortran order: both conversions at once.
	be := []byte{0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 5}
	a, err = npy.Read(bytes.NewReader(file(1, dict(">i4", true, "(2, 3)"), be)))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Float64s(); !slices.Equal(v, []float64{0, 1, 2, 3, 4, 5}) {
		t.Errorf("big-endian Fortran: got %v", v)
	}
}

// TestSequential reads several arrays written one after another to one
// stream, as np.save to an open file allows.
func TestSequential(t *testing.T) {
	var buf bytes.Buffer
	want := []*npy.Array{
		mustFrom(t, dtype.F32, []int{2}, []float64{1, 2}),
		mustFrom(t, dtype.I64, []int{}, []float64{-7}),
		mustFrom(t, dtype.Bool, []int{3}, []float64{1, 0, 1}),
	}
	for _, a := range want {
		if err := npy.Write(&buf, a); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(&buf)
	for i, w := range want {
		a, err := npy.Read(r)
		if err != nil {
			t.Fatalf("array %d: %v", i, err)
		}
		if !equal(a, w) {
			t.Errorf("array %d: got %v, want %v", i, a, w)
		}
	}
	if _, err := npy.Read(r); !errors.Is(err, io.EOF) {
		t.Errorf("Read after the last array = %v, want io.EOF", err)
	}
}

func mustFrom(t *testing.T, dt dtype.DType, shape []int, v []float64) *npy.Array {
	t.Helper()
	a, err := npy.FromFloat64s(dt, shape, v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// equal reports whether two arrays hold the same dtype, shape and bytes.
func equal(a, b *npy.Array) bool {
	return a.DType == b.DType && slices.Equal(a.Shape, b.Shape) && bytes.Equal(a.Data, b.Data)
}

func TestRoundTrip(t *testing.T) {
	shapes := [][]int{{}, {0}, {1}, {5}, {2, 3}, {3, 0, 2}, {2, 1, 3, 2}, {1, 1, 1, 1, 1, 1, 1, 1}}
	for _, dt := range dtype.All {
		for _, shape := range shapes {
			n := 1
			for _, d := range shape {
				n *= d
			}
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(i*37%11) - 5 // integral, negative and positive
				if dt == dtype.U8 {
					v[i] += 5
				}
				if dt.IsFloat() {
					v[i] += 0.25
				}
			}
			a := mustFrom(t, dt, shape, v)
			var buf bytes.Buffer
			err := npy.Write(&buf, a)
			if dt == dtype.BF16 {
				if !errors.Is(err, errs.ErrDType) {
					t.Errorf("Write bf16 = %v, want ErrDType", err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("Write %v %v: %v", dt, shape, err)
			}
			if buf.Len()%64 != len(a.Data)%64 {
				t.Errorf("Write %v %v: data does not start at a multiple of 64", dt, shape)
			}
			b, err := npy.Read(&buf)
			if err != nil {
				t.Fatalf("Read %v %v: %v", dt, shape, err)
			}
			if !equal(a, b) {
				t.Errorf("%v %v: round trip changed the array: %v -> %v", dt, shape, a, b)
			}
			got, _ := b.Float64s()
			want := v
			if dt == dtype.Bool {
				want = make([]float64, n)
				for i, x := range v {
					if x != 0 {
						want[i] = 1
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%v %v: values %v, want %v", dt, shape, got, want)
			}
		}
	}
}

func TestWriteInvalid(t *testing.T) {
	cases := []struct {
		name string
		a    *npy.Array
		kind error
	}{
		{"nil", nil, errs.ErrValue},
		{"invalid dtype", &npy.Array{Shape: []int{1}, Data: []byte{0}}, errs.ErrDType},
		{"bf16", &npy.Array{DType: dtype.BF16, Shape: []int{1}, Data: []byte{0, 0}}, errs.ErrDType},
		{"short data", &npy.Array{DType: dtype.F32, Shape: []int{2}, Data: make([]byte, 7)}, errs.ErrValue},
		{"long data", &npy.Array{DType: dtype.F32, Shape: []int{}, Data: make([]byte, 5)}, errs.ErrValue},
		{"negative extent", &npy.Array{DType: dtype.U8, Shape: []int{-1}}, errs.ErrShape},
		{"overflow", &npy.Array{DType: dtype.U8, Shape: []int{math.MaxInt, 3}}, errs.ErrShape},
		{"too many axes", &npy.Array{DType: dtype.U8, Shape: make([]int, 65)}, errs.ErrShape},
		{"bool byte", &npy.Array{DType: dtype.Bool, Shape: []int{2}, Data: []byte{1, 255}}, errs.ErrValue},
	}
	dir := t.TempDir()
	for _, c := range cases {
		var buf bytes.Buffer
		if err := npy.Write(&buf, c.a); !errors.Is(err, c.kind) {
			t.Errorf("%s: Write = %v, want %v", c.name, err, c.kind)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: Write wrote %d bytes before failing", c.name, buf.Len())
		}
		p := filepath.Join(dir, c.name+".npy")
		if err := npy.WriteFile(p, c.a); !errors.Is(err, c.kind) {
			t.Errorf("%s: WriteFile = %v, want %v", c.name, err, c.kind)
		}
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: WriteFile created a file", c.name)
		}
		if _, err := c.a.Float64s(); !errors.Is(err, c.kind) && c.name != "bf16" && c.name != "bool byte" {
			t.Errorf("%s: Float64s = %v, want %v", c.name, err, c.kind)
		}
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, io.ErrClosedPipe
	}
	w.n--
	return len(p), nil
}

func TestIOErrors(t *testing.T) {
	a := mustFrom(t, dtype.F32, []int{2}, []float64{1, 2})
	for n := range 2 {
		err := npy.Write(&failWriter{n}, a)
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("Write to a failing writer = %v", err)
		}
		if errors.Is(err, errs.ErrValue) {
			t.Errorf("Write error %v blames the value", err)
		}
	}
	var buf bytes.Buffer
	if err := npy.Write(&buf, a); err != nil {
		t.Fatal(err)
	}
	r := io.MultiReader(bytes.NewReader(buf.Bytes()[:100]), errReader{})
	if _, err := npy.Read(r); !errors.Is(err, io.ErrNoProgress) || errors.Is(err, errs.ErrValue) {
		t.Errorf("Read from a failing reader = %v", err)
	}
	if _, err := npy.ReadFile(filepath.Join(t.TempDir(), "missing.npy")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrNoProgress }

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	a := mustFrom(t, dtype.F64, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6})
	p := filepath.Join(dir, "a.npy")
	if err := npy.WriteFile(p, a); err != nil {
		t.Fatal(err)
	}
	b, err := npy.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !equal(a, b) {
		t.Errorf("ReadFile(WriteFile(a)) = %v, want %v", b, a)
	}
	// A file cut short is refused from its size, before reading the data.
	raw, _ := os.ReadFile(p)
	for _, n := range []int{len(raw) - 1, 128, 70, 9, 0} {
		q := filepath.Join(dir, fmt.Sprintf("cut%d.npy", n))
		if err := os.WriteFile(q, raw[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := npy.ReadFile(q); !errors.Is(err, errs.ErrValue) {
			t.Errorf("ReadFile of %d of %d bytes = %v, want ErrValue", n, len(raw), err)
		}
	}
	var e *errs.Error
	_, err = npy.ReadFile(filepath.Join(dir, "cut70.npy"))
	if !errors.As(err, &e) || e.Op != "ReadFile" {
		t.Errorf("ReadFile error %v does not name ReadFile", err)
	}
}

func TestFloat64s(t *testing.T) {
	le := binary.LittleEndian
	cases := []struct {
		dt   dtype.DType
		data []byte
		want []float64
	}{
		{dtype.F32, le.AppendUint32(le.AppendUint32(nil, math.Float32bits(1.5)), math.Float32bits(float32(math.Inf(-1)))), []float64{1.5, math.Inf(-1)}},
		{dtype.F64, le.AppendUint64(nil, math.Float64bits(0.1)), []float64{0.1}},
		{dtype.F16, le.AppendUint16(le.AppendUint16(nil, 0x3c00), 0x0001), []float64{1, 0x1p-24}},
		{dtype.BF16, le.AppendUint16(nil, 0xc040), []float64{-3}},
		{dtype.I32, le.AppendUint32(nil, uint32(0xffffffff)), []float64{-1}},
		{dtype.I64, le.AppendUint64(nil, 1<<62), []float64{1 << 62}},
		{dtype.U8, []byte{255, 0}, []float64{255, 0}},
		{dtype.Bool, []byte{1, 0}, []float64{1, 0}},
	}
	for _, c := range cases {
		a := &npy.Array{DType: c.dt, Shape: []int{len(c.want)}, Data: c.data}
		got, err := a.Float64s()
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%v Float64s = %v, %v; want %v", c.dt, got, err, c.want)
		}
		back, err := npy.FromFloat64s(c.dt, a.Shape, c.want)
		if err != nil || !equal(back, a) {
			t.Errorf("%v FromFloat64s(%v) = %v, %v; want %v", c.dt, c.want, back, err, a.Data)
		}
	}
	for _, c := range []struct {
		dt dtype.DType
		v  float64
	}{{dtype.I32, 0.5}, {dtype.I32, 1 << 31}, {dtype.I64, 1 << 63}, {dtype.I64, math.NaN()}, {dtype.U8, -1}, {dtype.U8, 256}} {
		if _, err := npy.FromFloat64s(c.dt, []int{1}, []float64{c.v}); !errors.Is(err, errs.ErrValue) {
			t.Errorf("FromFloat64s(%v, %v) = %v, want ErrValue", c.dt, c.v, err)
		}
	}
	if _, err := npy.FromFloat64s(dtype.F32, []int{2}, []float64{1}); !errors.Is(err, errs.ErrValue) {
		t.Errorf("FromFloat64s with a count mismatch = %v, want ErrValue", err)
	}
	if _, err := npy.FromFloat64s(dtype.F32, []int{-2}, nil); !errors.Is(err, errs.ErrShape) {
		t.Errorf("FromFloat64s with a negative extent = %v, want ErrShape", err)
	}
	if _, err := npy.FromFloat64s(dtype.Invalid, []int{}, []float64{1}); !errors.Is(err, errs.ErrDType) {
		t.Errorf("FromFloat64s(Invalid) = %v, want ErrDType", err)
	}
}

// formatLine is one line of testdata/npyformat/MANIFEST.txt.
type formatLine struct {
	name, descr, order, version, expect string
	shape                               []int
}

func readFormatManifest(t *testing.T) []formatLine {
	t.Helper()
	raw, err := os.ReadFile("../testdata/npyformat/MANIFEST.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []formatLine
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "file" {
			continue
		}
		l := formatLine{name: f[1]}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "descr":
				l.descr = v
			case "order":
				l.order = v
			case "version":
				l.version = v
			case "expect":
				l.expect = v
			case "shape":
				l.shape = ints(t, v)
			}
		}
		out = append(out, l)
	}
	if len(out) < 30 {
		t.Fatalf("npyformat manifest lists %d files", len(out))
	}
	return out
}

func ints(t *testing.T, s string) []int {
	t.Helper()
	out := []int{}
	if s == "" {
		return out
	}
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatalf("bad integer list %q", s)
		}
		out = append(out, n)
	}
	return out
}

// TestNumPyFormatFiles reads every file NumPy wrote in testdata/npyformat and
// checks dtype, shape and each value against the formula in its manifest.
func TestNumPyFormatFiles(t *testing.T) {
	for _, l := range readFormatManifest(t) {
		t.Run(l.name, func(t *testing.T) {
			path := filepath.Join("../testdata/npyformat", l.name)
			a, err := npy.ReadFile(path)
			if l.expect == "dtype" {
				if !errors.Is(err, errs.ErrDType) {
					t.Fatalf("ReadFile = %v, want ErrDType", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]dtype.DType{"f2": dtype.F16, "f4": dtype.F32, "f8": dtype.F64, "i4": dtype.I32, "i8": dtype.I64, "u1": dtype.U8, "b1": dtype.Bool}[l.descr[1:]]
			if a.DType != want || !slices.Equal(a.Shape, l.shape) {
				t.Fatalf("got %v %v, want %v %v", a.DType, a.Shape, want, l.shape)
			}
			v, err := a.Float64s()
			if err != nil {
				t.Fatal(err)
			}
			for k, x := range v {
				var w float64
				switch {
				case a.DType.IsFloat():
					w = 0.25*float64(k) - 2
				case a.DType == dtype.U8:
					w = float64(5 * k % 256)
				case a.DType == dtype.Bool:
					if k%3 == 0 {
						w = 1
					}
				default:
					w = float64(7*k - 50)
				}
				if x != w {
					t.Fatalf("element %d = %v, want %v", k, x, w)
				}
			}
			// Little-endian C-order version 1.0 files are what Write makes:
			// re-encoding must give NumPy's bytes exactly.
			raw, _ := os.ReadFile(path)
			var buf bytes.Buffer
			if err := npy.Write(&buf, a); err != nil {
				t.Fatal(err)
			}
			same := bytes.Equal(buf.Bytes(), raw)
			if native := l.descr[0] != '>' && l.order == "C" && l.version == "1.0"; native != same {
				t.Errorf("Write reproduces NumPy's bytes: %v, want %v", same, native)
			}
		})
	}
}
