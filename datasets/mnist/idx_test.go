package mnist_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/datasets/mnist"
	"github.com/tessera-go/tessera/errs"
)

// encodeIDX writes an IDX stream by the format's definition: two zero
// bytes, the type, the rank, big-endian uint32 extents, then the data.
func encodeIDX(ty byte, dims []uint32, data []byte) []byte {
	b := []byte{0, 0, ty, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, data...)
}

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(3*i + 1)
	}
	return b
}

// TestDecodeIDXValid decodes small arrays of every element type, raw and
// gzipped, and checks type, extents and bytes.
func TestDecodeIDXValid(t *testing.T) {
	for _, c := range []struct {
		ty   byte
		dims []uint32
		esz  int
	}{
		{mnist.IDXUint8, []uint32{5}, 1},
		{mnist.IDXUint8, []uint32{2, 3, 4}, 1},
		{mnist.IDXInt8, []uint32{3, 1}, 1},
		{mnist.IDXInt16, []uint32{2, 2}, 2},
		{mnist.IDXInt32, []uint32{3}, 4},
		{mnist.IDXFloat32, []uint32{1, 2, 1, 2}, 4},
		{mnist.IDXFloat64, []uint32{2}, 8},
		{mnist.IDXUint8, []uint32{0, 28, 28}, 1}, // an empty set is valid
	} {
		n := c.esz
		dims := make([]int, len(c.dims))
		for i, d := range c.dims {
			n *= int(d)
			dims[i] = int(d)
		}
		data := seq(n)
		raw := encodeIDX(c.ty, c.dims, data)
		for _, in := range [][]byte{raw, gz(t, raw)} {
			a, err := mnist.DecodeIDX(bytes.NewReader(in), "x.idx", 0)
			if err != nil {
				t.Fatalf("type 0x%02x dims %v: %v", c.ty, c.dims, err)
			}
			if a.Type != c.ty || !slices.Equal(a.Dims, dims) || !bytes.Equal(a.Data, data) {
				t.Errorf("type 0x%02x dims %v: got type 0x%02x dims %v data %v", c.ty, c.dims, a.Type, a.Dims, a.Data)
			}
		}
	}
}

// TestDecodeIDXMalformed feeds broken streams and checks each is an
// ErrValue whose message names the stream and the offending values.
func TestDecodeIDXMalformed(t *testing.T) {
	valid := encodeIDX(mnist.IDXUint8, []uint32{2, 3}, seq(6))
	badCRC := gz(t, valid)
	badCRC[len(badCRC)-6] ^= 0xff // inside the CRC-32 of the trailer
	for _, c := range []struct {
		name  string
		in    []byte
		limit int64
		want  []string // substrings of the message
	}{
		{"empty", nil, 0, []string{"truncated IDX magic"}},
		{"short magic", []byte{0, 0, 8}, 0, []string{"truncated IDX magic"}},
		{"wrong magic", []byte{0x12, 0x34, 8, 1, 0, 0, 0, 0}, 0, []string{"bad IDX magic", "12 34 08 01"}},
		{"unknown type", encodeIDX(0x07, []uint32{1}, []byte{1}), 0, []string{"unknown IDX element type 0x07"}},
		{"rank 0", []byte{0, 0, 8, 0}, 0, []string{"rank 0"}},
		{"rank 17", []byte{0, 0, 8, 17}, 0, []string{"rank 17"}},
		{"truncated dims", []byte{0, 0, 8, 3, 0, 0, 0, 2, 0, 0}, 0, []string{"truncated IDX header", "rank 3"}},
		{"truncated data", valid[:len(valid)-2], 0, []string{"truncated IDX data", "[2 3]", "need 6 bytes", "holds 4"}},
		{"trailing bytes", append(slices.Clone(valid), 9), 0, []string{"bytes after the IDX data", "[2 3]"}},
		{"huge declared", encodeIDX(mnist.IDXFloat64, []uint32{1 << 31, 1 << 31, 1 << 31}, nil), 0,
			[]string{"[2147483648 2147483648 2147483648]", "exceed the limit"}},
		{"above limit", encodeIDX(mnist.IDXUint8, []uint32{60000, 28, 28}, nil), 1 << 20,
			[]string{"[60000 28 28]", "limit of 1048576 bytes"}},
		{"gzip truncated", gz(t, valid)[:20], 0, []string{"x.idx"}},
		{"gzip bad header", []byte{0x1f, 0x8b, 0, 0, 0}, 0, []string{"bad gzip header"}},
		{"gzip bad crc", badCRC, 0, []string{"checksum"}},
	} {
		_, err := mnist.DecodeIDX(bytes.NewReader(c.in), "x.idx", c.limit)
		if !errors.Is(err, errs.ErrValue) {
			t.Errorf("%s: err = %v, want ErrValue", c.name, err)
			continue
		}
		for _, w := range append([]string{"mnist: ReadIDX: x.idx"}, c.want...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
}

// TestReadIDXFileChecksLength writes files whose header disagrees with the
// file's length (raw) or the gzip trailer, and checks that they fail with
// the path and both sizes in the message.
func TestReadIDXFileChecksLength(t *testing.T) {
	dir := t.TempDir()
	valid := encodeIDX(mnist.IDXUint8, []uint32{4, 2}, seq(8))
	liar := encodeIDX(mnist.IDXUint8, []uint32{400, 2}, seq(8)) // header says 800 bytes
	bomb := gz(t, encodeIDX(mnist.IDXUint8, []uint32{1 << 20}, nil))
	// Make the trailer agree with the 1 MiB declared: only the
	// compression-ratio bound can then catch it.
	binary.LittleEndian.PutUint32(bomb[len(bomb)-4:], 8+1<<20)
	for _, c := range []struct {
		name string
		b    []byte
		want []string
	}{
		{"ok.idx", valid, nil},
		{"ok.idx.gz", gz(t, valid), nil},
		{"long.idx", liar, []string{"[400 2]", "800 data bytes", "file holds 20 bytes"}},
		{"long.idx.gz", gz(t, liar), []string{"[400 2]", "(812 bytes)", "trailer records 20"}},
		{"bomb.idx.gz", bomb, []string{"[1048576]", "more than", "compressed bytes can hold"}},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.b, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := mnist.ReadIDXFile(p, 0)
		if c.want == nil {
			if err != nil || !bytes.Equal(a.Data, seq(8)) || !slices.Equal(a.Dims, []int{4, 2}) {
				t.Errorf("%s: %v %v", c.name, a, err)
			}
			continue
		}
		if !errors.Is(err, errs.ErrValue) {
			t.Errorf("%s: err = %v, want ErrValue", c.name, err)
			continue
		}
		for _, w := range append([]string{p}, c.want...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
	if _, err := mnist.ReadIDXFile(filepath.Join(dir, "missing"), 0); !errors.Is(err, errs.ErrValue) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestDecodeIDXBoundedAllocation: a header that declares MNIST's 47 MB of
// training images in front of ten bytes must fail having allocated little,
// raw or gzipped, since the buffer grows only as data arrives.
func TestDecodeIDXBoundedAllocation(t *testing.T) {
	short := encodeIDX(mnist.IDXUint8, []uint32{60000, 28, 28}, seq(10))
	for _, in := range [][]byte{short, gz(t, short)} {
		var err error
		n := allocated(func() { _, err = mnist.DecodeIDX(bytes.NewReader(in), "short", 0) })
		if !errors.Is(err, errs.ErrValue) {
			t.Errorf("err = %v, want ErrValue", err)
		}
		if n > 4<<20 {
			t.Errorf("allocated %d bytes for a %d-byte stream declaring 47 MB", n, len(in))
		}
	}
}

// FuzzDecodeIDX decodes arbitrary bytes: it must never panic, must allocate
// at most a small multiple of the 1 MiB limit, and what decodes must be
// consistent and re-encode to a stream that decodes the same.
func FuzzDecodeIDX(f *testing.F) {
	valid := encodeIDX(mnist.IDXUint8, []uint32{2, 3}, seq(6))
	for _, s := range [][]byte{
		valid, gz(f, valid),
		encodeIDX(mnist.IDXFloat32, []uint32{2}, seq(8)),
		encodeIDX(mnist.IDXUint8, []uint32{60000, 28, 28}, seq(10)),
		encodeIDX(mnist.IDXInt16, []uint32{1 << 31, 1 << 31}, nil),
		valid[:5], {}, {0x1f, 0x8b}, {0, 0, 8, 0}, {0, 0, 0x0e, 16},
	} {
		f.Add(s)
	}
	const limit = 1 << 20
	f.Fuzz(func(t *testing.T, in []byte) {
		var a *mnist.IDX
		var err error
		n := allocated(func() { a, err = mnist.DecodeIDX(bytes.NewReader(in), "fuzz", limit) })
		if n > 8*limit+uint64(8*len(in)) {
			t.Fatalf("allocated %d bytes for %d input bytes", n, len(in))
		}
		if err != nil {
			if !errors.Is(err, errs.ErrValue) {
				t.Fatalf("error of the wrong kind: %v", err)
			}
			return
		}
		size := map[byte]int{mnist.IDXUint8: 1, mnist.IDXInt8: 1, mnist.IDXInt16: 2, mnist.IDXInt32: 4, mnist.IDXFloat32: 4, mnist.IDXFloat64: 8}[a.Type]
		dims := make([]uint32, len(a.Dims))
		for i, d := range a.Dims {
			size *= d
			dims[i] = uint32(d)
		}
		if size != len(a.Data) || size > limit {
			t.Fatalf("type 0x%02x dims %v with %d data bytes", a.Type, a.Dims, len(a.Data))
		}
		b, err := mnist.DecodeIDX(bytes.NewReader(encodeIDX(a.Type, dims, a.Data)), "again", limit)
		if err != nil || b.Type != a.Type || !slices.Equal(b.Dims, a.Dims) || !bytes.Equal(b.Data, a.Data) {
			t.Fatalf("re-encoded array decodes differently: %v", err)
		}
	})
}

// writeSet writes the four files of a tiny set into a new folder: two 2×2
// training images and one test image, each overridable by name.
func writeSet(t *testing.T, override map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"train-images-idx3-ubyte": encodeIDX(mnist.IDXUint8, []uint32{2, 2, 2}, []byte{0, 1, 2, 3, 252, 253, 254, 255}),
		"train-labels-idx1-ubyte": encodeIDX(mnist.IDXUint8, []uint32{2}, []byte{9, 0}),
		"t10k-images-idx3-ubyte":  encodeIDX(mnist.IDXUint8, []uint32{1, 2, 2}, []byte{7, 7, 7, 7}),
		"t10k-labels-idx1-ubyte":  encodeIDX(mnist.IDXUint8, []uint32{1}, []byte{3}),
	}
	for n, b := range override {
		files[n] = b
	}
	for n, b := range files {
		if b == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadTinySet(t *testing.T) {
	train, test, err := mnist.Load(writeSet(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 2 || train.Rows != 2 || train.Cols != 2 || !bytes.Equal(train.Pixels, []byte{0, 1, 2, 3, 252, 253, 254, 255}) || !bytes.Equal(train.Labels, []byte{9, 0}) {
		t.Errorf("train = %+v", train)
	}
	if test.N != 1 || !bytes.Equal(test.Labels, []byte{3}) {
		t.Errorf("test = %+v", test)
	}
}

// TestLoadMalformed: each inconsistency is an ErrValue naming the file and
// the values.
func TestLoadMalformed(t *testing.T) {
	for _, c := range []struct {
		name     string
		override map[string][]byte
		want     []string
	}{
		{"label not a digit", map[string][]byte{"train-labels-idx1-ubyte": encodeIDX(mnist.IDXUint8, []uint32{2}, []byte{9, 10})},
			[]string{"train-labels-idx1-ubyte", "label 10 of image 1"}},
		{"counts differ", map[string][]byte{"t10k-labels-idx1-ubyte": encodeIDX(mnist.IDXUint8, []uint32{2}, []byte{3, 4})},
			[]string{"t10k-images-idx3-ubyte holds 1 images", "2 labels"}},
		{"images 2-D", map[string][]byte{"train-images-idx3-ubyte": encodeIDX(mnist.IDXUint8, []uint32{2, 4}, seq(8))},
			[]string{"train-images-idx3-ubyte", "3-D", "[2 4]"}},
		{"labels i32", map[string][]byte{"train-labels-idx1-ubyte": encodeIDX(mnist.IDXInt32, []uint32{2}, make([]byte, 8))},
			[]string{"train-labels-idx1-ubyte", "type 0x0c"}},
		{"missing file", map[string][]byte{"t10k-images-idx3-ubyte": nil},
			[]string{"no t10k-images-idx3-ubyte[.gz]"}},
		{"truncated file", map[string][]byte{"train-images-idx3-ubyte": encodeIDX(mnist.IDXUint8, []uint32{2, 2, 2}, seq(7))},
			[]string{"train-images-idx3-ubyte", "[2 2 2]", "file holds 23 bytes"}},
	} {
		_, _, err := mnist.Load(writeSet(t, c.override))
		if !errors.Is(err, errs.ErrValue) {
			t.Errorf("%s: %v, want ErrValue", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
}
