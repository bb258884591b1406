package tensor_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// ioGoldenWant builds the arrays of testdata/gen_io.py (its arrays() and
// BF16_VALUES) from the same formulas. Some are views (transposed,
// narrowed, broadcast) so that writers are tested on non-contiguous input.
// npzOnly adds the cases only the .npz goldens hold; bf16 the one only the
// safetensors golden holds.
func ioGoldenWant(npzOnly, bf16 bool) map[string]*tensor.Tensor {
	f32 := make([]float32, 6)
	for i := range f32 {
		f32[i] = (float32(i) - 2.5) * 0.75
	}
	// f32 is stored transposed: [3, 2] viewed as [2, 3].
	f32T := make([]float32, 6)
	for r := range 2 {
		for c := range 3 {
			f32T[c*2+r] = f32[r*3+c]
		}
	}
	m := map[string]*tensor.Tensor{
		"f32":    tensor.FromSlice(f32T, 3, 2).Transpose(0, 1),
		"f64":    tensor.FromSlice([]float64{1.0 / 3.0, -2.0, 1e-300, 1e300}, 2, 2),
		"f16":    tensor.FromSlice([]dtype.Float16{dtype.F16FromFloat64(0.5), dtype.F16FromFloat64(-1.25), dtype.F16FromFloat64(65504), dtype.F16FromFloat64(math.Ldexp(1, -24))}, 4),
		"i32":    tensor.FromSlice([]int32{99, -3, -2, -1, 0, 1, 2, 99}, 8).Narrow(0, 1, 6).Reshape(3, 2),
		"i64":    tensor.FromSlice([]int64{-(1 << 62), 0, 1<<62 + 1}, 3),
		"u8":     tensor.FromSlice([]uint8{0, 7, 255}, 3),
		"bool":   tensor.FromSlice([]bool{true, false, false, true}, 2, 2),
		"scalar": tensor.Scalar[float32](2.5),
		"empty":  tensor.Zeros(dtype.F32, 1, 4).BroadcastTo(0, 4),
	}
	if npzOnly {
		m["fortran"] = tensor.Arange(dtype.F64, 0, 6, 1).Reshape(2, 3)
		m["bigendian"] = tensor.FromSlice([]int32{0, 1, 2, 3}, 4)
	}
	if bf16 {
		vals := []float32{1, -2.5, 3.140625, 0.0078125}
		b := make([]dtype.BFloat16, len(vals))
		for i, v := range vals {
			b[i] = dtype.BFloat16(math.Float32bits(v) >> 16)
		}
		m["bf16"] = tensor.FromSlice(b, 4)
	}
	return m
}

// sameTensors fails t unless got holds exactly the tensors of want: the
// same names, dtypes, shapes and bits.
func sameTensors(t *testing.T, what string, got, want map[string]*tensor.Tensor) {
	t.Helper()
	if g, w := slices.Sorted(keys(got)), slices.Sorted(keys(want)); !slices.Equal(g, w) {
		t.Fatalf("%s: tensors %q, want %q", what, g, w)
	}
	for name, w := range want {
		g := got[name]
		if err := g.Err(); err != nil {
			t.Fatalf("%s: %s: %v", what, name, err)
		}
		if g.DType() != w.DType() || !slices.Equal(g.Shape(), w.Shape()) {
			t.Errorf("%s: %s is %v %v, want %v %v", what, name, g.DType(), g.Shape(), w.DType(), w.Shape())
			continue
		}
		if gb, wb := bitsOf(t, g), bitsOf(t, w); !slices.Equal(gb, wb) {
			t.Errorf("%s: %s holds bits %x, want %x", what, name, gb, wb)
		}
	}
}

func keys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

var goldenMetadata = map[string]string{"format": "np", "source": "gen_io.py"}

// TestSafetensorsGolden reads the file written by gen_io.py's independent
// writer and checks every value exactly.
func TestSafetensorsGolden(t *testing.T) {
	got, md, err := tensor.LoadSafetensors(filepath.Join("..", "testdata", "io", "golden.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	sameTensors(t, "golden.safetensors", got, ioGoldenWant(false, true))
	if !reflect.DeepEqual(md, goldenMetadata) {
		t.Errorf("metadata %v, want %v", md, goldenMetadata)
	}
}

// TestSafetensorsRoundTrip writes tensors held on every device, as views,
// reads them back, and checks that writing is deterministic.
func TestSafetensorsRoundTrip(t *testing.T) {
	for _, dev := range testDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			want := ioGoldenWant(false, true)
			in := map[string]*tensor.Tensor{}
			for name, x := range want {
				if supports(dev, x.DType()) {
					in[name] = x.To(dev) // keeps the view's layout
				} else {
					delete(want, name)
				}
			}
			var buf bytes.Buffer
			if err := tensor.WriteSafetensors(&buf, in, map[string]string{"dev": dev.Name()}); err != nil {
				t.Fatal(err)
			}
			got, md, err := tensor.ReadSafetensors(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			sameTensors(t, "round trip", got, want)
			if md["dev"] != dev.Name() {
				t.Errorf("metadata %v", md)
			}
			var again bytes.Buffer
			if err := tensor.WriteSafetensors(&again, got, md); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
				t.Errorf("second write differs (err %v)", err)
			}
			for _, x := range got {
				if x.Device() != device.CPU() {
					t.Errorf("loaded tensor on %v, want the CPU", x.Device())
				}
			}
		})
	}
}

func TestSafetensorsFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.safetensors")
	want := ioGoldenWant(false, true)
	if err := tensor.SaveSafetensors(path, want, nil); err != nil {
		t.Fatal(err)
	}
	got, md, err := tensor.LoadSafetensors(path)
	if err != nil || md != nil {
		t.Fatalf("LoadSafetensors: %v, metadata %v", err, md)
	}
	sameTensors(t, "file", got, want)

	// A failed tensor is an error naming it, and no file is left behind.
	bad := filepath.Join(dir, "bad.safetensors")
	err = tensor.SaveSafetensors(bad, map[string]*tensor.Tensor{"ok": tensor.Ones(dtype.F32, 2), "w": tensor.Ones(dtype.F32, 2).Reshape(3)}, nil)
	if !errors.Is(err, tensor.ErrShape) || !strings.Contains(err.Error(), `tensor "w"`) {
		t.Errorf("failed tensor: %v, want an ErrShape naming w", err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed save left %s behind (%v)", bad, err)
	}
	rel := tensor.Ones(dtype.F32, 2)
	rel.Release()
	var buf bytes.Buffer
	for name, ts := range map[string]map[string]*tensor.Tensor{
		"released": {"r": rel},
		"nil":      {"r": nil},
		"reserved": {"__metadata__": tensor.Ones(dtype.F32, 1)},
	} {
		if err := tensor.WriteSafetensors(&buf, ts, nil); err == nil || buf.Len() != 0 {
			t.Errorf("%s: err %v, %d bytes written", name, err, buf.Len())
		}
	}
	if _, _, err := tensor.LoadSafetensors(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// stFile assembles a safetensors file from a JSON header and data.
func stFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(b, header...), data...)
}

// TestSafetensorsLazy loads tensors one at a time from an open file.
func TestSafetensorsLazy(t *testing.T) {
	b := stFile(`{"q":{"dtype":"I8","shape":[2],"data_offsets":[0,2]},"w":{"dtype":"F32","shape":[1],"data_offsets":[2,6]},"m":{"dtype":"BOOL","shape":[1],"data_offsets":[6,7]}}`,
		[]byte{1, 2, 0, 0, 0x80, 0x3f, 3})
	s, err := tensor.NewSafetensorsReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Names(); !slices.Equal(got, []string{"m", "q", "w"}) {
		t.Errorf("names %v", got)
	}
	if in, ok := s.Info("q"); !ok || in.Format != "I8" || in.DType != dtype.Invalid {
		t.Errorf("Info(q) = %+v, %v", in, ok)
	}
	if v, err := tensor.ToSlice[float32](s.Load("w")); err != nil || !slices.Equal(v, []float32{1}) {
		t.Errorf("Load(w) = %v, %v", v, err)
	}
	if err := s.Load("q").Err(); !errors.Is(err, tensor.ErrDType) || !strings.Contains(err.Error(), `tensor "q": dtype I8`) {
		t.Errorf("Load(q): %v, want an ErrDType naming q and I8", err)
	}
	if err := s.Load("m").Err(); !errors.Is(err, tensor.ErrValue) || !strings.Contains(err.Error(), "0x03") {
		t.Errorf("Load(m) with bool byte 3: %v", err)
	}
	if err := s.Load("nope").Err(); !errors.Is(err, tensor.ErrValue) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Load(nope): %v", err)
	}
	if _, _, err := tensor.ReadSafetensors(bytes.NewReader(b), int64(len(b))); !errors.Is(err, tensor.ErrDType) {
		t.Errorf("ReadSafetensors of a file with an I8 tensor: %v, want ErrDType", err)
	}
	if _, err := tensor.OpenSafetensors(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// sparseFile is an io.ReaderAt over a header followed by size zero bytes,
// holding none of them.
type sparseFile struct {
	head []byte
	size int64
}

func (s *sparseFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), s.size-off))
	for i := range n {
		if o := off + int64(i); o < int64(len(s.head)) {
			p[i] = s.head[o]
		} else {
			p[i] = 0
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestSafetensorsUnderAllocLimit reads, under a 16 MiB CPU allocation
// limit, a valid file whose tensor is 1 GiB: it must be an ErrOutOfMemory
// naming the tensor, having read none of its data and allocated almost
// nothing; an 8 MiB tensor must cost about 8 MiB (read straight into its
// storage).
func TestSafetensorsUnderAllocLimit(t *testing.T) {
	const name = "TestSafetensorsUnderAllocLimit"
	if !inChild(name) {
		runChild(t, name, 16<<20)
		return
	}
	for _, n := range []int64{1 << 30, 8 << 20} {
		head := stFile(`{"big":{"dtype":"U8","shape":[`+itoa(n)+`],"data_offsets":[0,`+itoa(n)+`]}}`, nil)
		f := &sparseFile{head: head, size: int64(len(head)) + n}
		var err error
		got := allocated(func() {
			var ts map[string]*tensor.Tensor
			ts, _, err = tensor.ReadSafetensors(f, f.size)
			for _, x := range ts {
				x.Release()
			}
		})
		switch {
		case n > 16<<20 && (!errors.Is(err, tensor.ErrOutOfMemory) || !strings.Contains(err.Error(), `tensor "big"`)):
			t.Errorf("%d bytes: %v, want an ErrOutOfMemory naming big", n, err)
		case n > 16<<20 && got > 1<<20:
			t.Errorf("%d bytes: allocated %d before refusing", n, got)
		case n <= 16<<20 && (err != nil || got > uint64(n)+1<<20):
			t.Errorf("%d bytes: err %v, allocated %d", n, err, got)
		}
		t.Logf("%d-byte tensor: %v (%d bytes allocated)", n, err, got)
	}
	if !t.Failed() {
		os.Stdout.WriteString("CHILD OK\n")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// numpyPython returns a Python interpreter that imports NumPy, or "".
func numpyPython() string {
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import numpy").Run() == nil {
			return py
		}
	}
	return ""
}

// TestIOReadByNumPy writes .npz (stored and deflated) and safetensors
// files with tessera and has testdata/gen_io.py check them: np.load for the
// .npz, and the script's spec-following reader for the safetensors file.
func TestIOReadByNumPy(t *testing.T) {
	py := numpyPython()
	if py == "" {
		t.Skip("no python3 with NumPy (apt-get install python3-numpy): files tessera writes are not checked by NumPy")
	}
	dir := t.TempDir()
	if err := tensor.SaveNPZ(filepath.Join(dir, "tessera.npz"), ioGoldenWant(true, false)); err != nil {
		t.Fatal(err)
	}
	if err := tensor.SaveNPZCompressed(filepath.Join(dir, "tessera_compressed.npz"), ioGoldenWant(true, false)); err != nil {
		t.Fatal(err)
	}
	if err := tensor.SaveSafetensors(filepath.Join(dir, "tessera.safetensors"), ioGoldenWant(false, true), goldenMetadata); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join("..", "testdata", "gen_io.py"), "--check", dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("gen_io.py --check: %v\n%s", err, out)
	}
}

// FuzzSafetensors decodes arbitrary bytes with ReadSafetensors and, when
// they decode, writes the tensors back and decodes again: the tensors and
// metadata must survive, and the second encoding must equal the first.
// Errors must be typed; nothing may panic. Seeded from testdata/io.
func FuzzSafetensors(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "io", "*.safetensors"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(stFile(`{"a":{"dtype":"F16","shape":[1,1],"data_offsets":[0,2]},"__metadata__":null}`, []byte{0, 0x7c}))
	f.Fuzz(func(t *testing.T, in []byte) {
		ts, md, err := tensor.ReadSafetensors(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			if !errors.Is(err, tensor.ErrValue) && !errors.Is(err, tensor.ErrDType) && !errors.Is(err, tensor.ErrShape) && !errors.Is(err, tensor.ErrOutOfMemory) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		var enc bytes.Buffer
		if err := tensor.WriteSafetensors(&enc, ts, md); err != nil {
			t.Fatalf("write of decoded tensors: %v", err)
		}
		ts2, md2, err := tensor.ReadSafetensors(bytes.NewReader(enc.Bytes()), int64(enc.Len()))
		if err != nil {
			t.Fatalf("read of re-encoded tensors: %v", err)
		}
		if (len(md) > 0 || len(md2) > 0) && !reflect.DeepEqual(md, md2) {
			t.Fatalf("metadata %v -> %v", md, md2)
		}
		sameTensors(t, "round trip", ts2, ts)
		var enc2 bytes.Buffer
		if err := tensor.WriteSafetensors(&enc2, ts2, md2); err != nil || !bytes.Equal(enc.Bytes(), enc2.Bytes()) {
			t.Fatalf("second encoding differs (err %v)", err)
		}
	})
}
