package npy_test

import (
	"bytes"
	"errors"
	"io"
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

// Tests for ReadInto and for reading without full-size staging (issue 7
// item 5).

// fileOrder returns a's data (little-endian, C order) laid out as a file in
// the given memory and byte order holds it.
func fileOrder(a *npy.Array, fortran, bigEndian bool) []byte {
	size := a.DType.Size()
	out := make([]byte, len(a.Data))
	n := len(a.Data) / size
	cstride := make([]int, len(a.Shape))
	acc := 1
	for i := len(a.Shape) - 1; i >= 0; i-- {
		cstride[i] = acc
		acc *= a.Shape[i]
	}
	for k := range n {
		c := k // the C position of file element k
		if fortran {
			c = 0
			rem := k
			for ax, d := range a.Shape {
				c += (rem % d) * cstride[ax]
				rem /= d
			}
		}
		copy(out[k*size:(k+1)*size], a.Data[c*size:(c+1)*size])
		if bigEndian {
			slices.Reverse(out[k*size : (k+1)*size])
		}
	}
	return out
}

// shapeString writes shape as a Python tuple.
func shapeString(shape []int) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = strconv.Itoa(d)
	}
	if len(shape) == 1 {
		return "(" + s[0] + ",)"
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// alloc is a ReadInto callback that allocates a Go slice and records the
// call.
type alloc struct {
	calls int
	dt    dtype.DType
	shape []int
	n     int64
}

func (a *alloc) fn(dt dtype.DType, shape []int, n int64) ([]byte, error) {
	a.calls++
	a.dt, a.shape, a.n = dt, shape, n
	return make([]byte, n), nil
}

// TestReadIntoMatchesRead reads every byte order, memory order and dtype,
// over shapes larger than the scatter scratch, through Read (known and
// unknown length) and ReadInto, and checks all give the C-order array.
func TestReadIntoMatchesRead(t *testing.T) {
	descrs := map[dtype.DType]string{dtype.F64: "f8", dtype.F32: "f4", dtype.F16: "f2", dtype.I32: "i4", dtype.I64: "i8", dtype.U8: "u1", dtype.Bool: "b1"}
	shapes := [][]int{{300, 70}, {7, 1, 5000}, {3, 4, 5, 6}, {1, 1}, {0, 3}, {5}, {}}
	for dt, code := range descrs {
		for _, shape := range shapes {
			n := 1
			for _, d := range shape {
				n *= d
			}
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = float64(i % 97)
				if dt == dtype.Bool {
					vals[i] = float64(i % 3 % 2)
				}
			}
			want := mustFrom(t, dt, shape, vals)
			for _, fortran := range []bool{false, true} {
				for _, be := range []bool{false, true} {
					order := "<"
					if be {
						order = ">"
					}
					if dt.Size() == 1 {
						order = "|"
					}
					in := file(1, dict(order+code, fortran, shapeString(shape)), fileOrder(want, fortran, be && dt.Size() > 1))
					name := order + code + " " + shapeString(shape)
					if fortran {
						name += " fortran"
					}
					got, err := npy.Read(bytes.NewReader(in))
					if err != nil || !equal(got, want) {
						t.Fatalf("%s: Read = %v, %v", name, err, got != nil && equal(got, want))
					}
					got, err = npy.Read(io.MultiReader(bytes.NewReader(in)))
					if err != nil || !equal(got, want) {
						t.Fatalf("%s: streaming Read = %v", name, err)
					}
					var al alloc
					got, err = npy.ReadInto(io.MultiReader(bytes.NewReader(in)), al.fn)
					if err != nil || !equal(got, want) {
						t.Fatalf("%s: ReadInto = %v", name, err)
					}
					if al.calls != 1 || al.dt != dt || !slices.Equal(al.shape, shape) || al.n != int64(len(want.Data)) {
						t.Fatalf("%s: alloc called %d times with %v %v %d", name, al.calls, al.dt, al.shape, al.n)
					}
				}
			}
		}
	}
	// And the files NumPy wrote.
	for _, pattern := range []string{"../testdata/npyformat/*.npy", "../testdata/golden/*.npy"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			want, werr := npy.Read(bytes.NewReader(b))
			var al alloc
			got, err := npy.ReadInto(bytes.NewReader(b), al.fn)
			if (err == nil) != (werr == nil) || err == nil && !equal(got, want) {
				t.Errorf("%s: ReadInto = %v, Read = %v", name, err, werr)
			}
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestReadIntoRefusal checks that an alloc error is returned unchanged
// before any data is read, and that bad callbacks and inputs are typed
// errors.
func TestReadIntoRefusal(t *testing.T) {
	hdr := file(1, dict("<f4", false, "(1099511627776,)"), nil)
	in := &countingReader{r: io.MultiReader(bytes.NewReader(hdr), zeros{})}
	refuse := errs.New("test", "alloc", errs.ErrOutOfMemory, "too big")
	var gotN int64
	_, err := npy.ReadInto(in, func(dt dtype.DType, shape []int, n int64) ([]byte, error) {
		gotN = n
		return nil, refuse
	})
	if err != refuse {
		t.Fatalf("ReadInto = %v, want the alloc error unchanged", err)
	}
	if gotN != 4<<40 || in.n != len(hdr) {
		t.Errorf("alloc saw %d bytes; %d bytes read, want only the %d of the header", gotN, in.n, len(hdr))
	}

	good := file(1, dict("<i4", false, "(2,)"), make([]byte, 8))
	_, err = npy.ReadInto(bytes.NewReader(good), func(dtype.DType, []int, int64) ([]byte, error) { return make([]byte, 4), nil })
	if !errors.Is(err, errs.ErrValue) {
		t.Errorf("ReadInto with a short buffer = %v, want ErrValue", err)
	}

	// A known-length input too short for its shape is refused before alloc.
	var al alloc
	_, err = npy.ReadInto(bytes.NewReader(good[:len(good)-1]), al.fn)
	if !errors.Is(err, errs.ErrValue) || al.calls != 0 {
		t.Errorf("ReadInto of a short input = %v after %d allocs, want ErrValue and none", err, al.calls)
	}

	// Truncated streams, C and Fortran order: ErrValue, io.ErrUnexpectedEOF.
	for _, fortran := range []bool{false, true} {
		in := file(1, dict(">f8", fortran, "(300, 70)"), make([]byte, 300*70*8-3))
		var al alloc
		_, err := npy.ReadInto(io.MultiReader(bytes.NewReader(in)), al.fn)
		if !errors.Is(err, errs.ErrValue) || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("truncated (fortran %v): %v", fortran, err)
		}
	}

	// A failing reader is its own error, not the file's fault.
	r := io.MultiReader(bytes.NewReader(file(1, dict("<f4", true, "(4, 4)"), make([]byte, 8))), errReader{})
	if _, err := npy.ReadInto(r, al.fn); !errors.Is(err, io.ErrNoProgress) || errors.Is(err, errs.ErrValue) {
		t.Errorf("ReadInto from a failing reader = %v", err)
	}

	// Bool bytes other than 0 and 1, in either order.
	for _, fortran := range []bool{false, true} {
		in := file(1, dict("|b1", fortran, "(2, 2)"), []byte{0, 1, 2, 1})
		if _, err := npy.ReadInto(bytes.NewReader(in), al.fn); !errors.Is(err, errs.ErrValue) {
			t.Errorf("bad bool (fortran %v): %v", fortran, err)
		}
	}
}

// zeros is an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestReadMemory checks that reading allocates the array once: no growing
// buffer for an input of known length, and no second copy for Fortran
// order (before, Read of this file allocated about three times its size).
func TestReadMemory(t *testing.T) {
	const rows, cols = 1024, 2048 // 8 MiB of f4
	data := make([]byte, rows*cols*4)
	for i := range data {
		data[i] = byte(i * 7)
	}
	in := file(1, dict(">f4", true, "(1024, 2048)"), data)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a, err := npy.Read(bytes.NewReader(in))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(data))+256<<10 {
		t.Errorf("Read of %d bytes allocated %d", len(data), got)
	}
	dst := make([]byte, len(data))
	runtime.GC()
	runtime.ReadMemStats(&before)
	b, err := npy.ReadInto(bytes.NewReader(in), func(dtype.DType, []int, int64) ([]byte, error) { return dst, nil })
	runtime.ReadMemStats(&after)
	if err != nil || !equal(a, b) {
		t.Fatalf("ReadInto: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 256<<10 {
		t.Errorf("ReadInto into a caller's buffer allocated %d bytes", got)
	}
	if &b.Data[0] != &dst[0] {
		t.Error("ReadInto's Data is not the caller's buffer")
	}
}

// TestReadOSFile reads from an *os.File, whose remaining length Read now
// takes from its size and position: a truncated file is refused before any
// data is read, and arrays read one after another still work.
func TestReadOSFile(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.npy")
	if err := os.WriteFile(short, file(1, dict("<f8", false, "(65536, 65536)"), make([]byte, 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(short)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var al alloc
	if _, err := npy.ReadInto(f, al.fn); !errors.Is(err, errs.ErrValue) || al.calls != 0 || !strings.Contains(err.Error(), "the input has 100") {
		t.Errorf("ReadInto of a truncated file = %v after %d allocs", err, al.calls)
	}

	two := filepath.Join(dir, "two.npy")
	var buf bytes.Buffer
	x := mustFrom(t, dtype.I32, []int{2, 2}, []float64{1, 2, 3, 4})
	y := mustFrom(t, dtype.F16, []int{3}, []float64{-1, 0.5, 8})
	for _, a := range []*npy.Array{x, y} {
		if err := npy.Write(&buf, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(two, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := os.Open(two)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	a, err := npy.Read(g)
	if err != nil || !equal(a, x) {
		t.Fatalf("first array: %v", err)
	}
	b, err := npy.ReadInto(g, al.fn)
	if err != nil || !equal(b, y) {
		t.Fatalf("second array: %v", err)
	}
	if _, err := npy.Read(g); !errors.Is(err, io.EOF) {
		t.Errorf("after the last array: %v, want io.EOF", err)
	}
}
