package tensor_test

import (
	azip "archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestNPZGolden reads the archives np.savez and np.savez_compressed wrote
// (zip64 local headers, a Fortran-order and a big-endian member included)
// and checks every value exactly.
func TestNPZGolden(t *testing.T) {
	for _, name := range []string{"plain.npz", "compressed.npz"} {
		got, err := tensor.LoadNPZ(filepath.Join("..", "testdata", "io", name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameTensors(t, name, got, ioGoldenWant(true, false))
	}
}

func TestNPZRoundTrip(t *testing.T) {
	for _, dev := range testDevices(t) {
		want := ioGoldenWant(true, false)
		in := map[string]*tensor.Tensor{}
		for name, x := range want {
			if supports(dev, x.DType()) {
				in[name] = x.To(dev)
			} else {
				delete(want, name)
			}
		}
		for _, compressed := range []bool{false, true} {
			var buf bytes.Buffer
			write := tensor.WriteNPZ
			if compressed {
				write = tensor.WriteNPZCompressed
			}
			if err := write(&buf, in); err != nil {
				t.Fatal(err)
			}
			got, err := tensor.ReadNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			sameTensors(t, dev.Name(), got, want)
			var again bytes.Buffer
			if err := write(&again, got); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
				t.Errorf("%s: second write differs (err %v)", dev.Name(), err)
			}
		}
	}
	bf := tensor.Ones(dtype.BF16, 2)
	var buf bytes.Buffer
	if err := tensor.WriteNPZ(&buf, map[string]*tensor.Tensor{"a": tensor.Ones(dtype.F32, 1), "w": bf}); !errors.Is(err, tensor.ErrDType) || !strings.Contains(err.Error(), `tensor "w"`) || buf.Len() != 0 {
		t.Errorf("bf16: %v (%d bytes written), want an ErrDType naming w, nothing written", err, buf.Len())
	}
	path := filepath.Join(t.TempDir(), "x.npz")
	if err := tensor.SaveNPZ(path, map[string]*tensor.Tensor{"w": bf}); err == nil {
		t.Error("SaveNPZ of bf16 succeeded")
	} else if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed SaveNPZ left the file (%v)", err)
	}
}

// npyBytes encodes x as a .npy file.
func npyBytes(t testing.TB, x *tensor.Tensor) []byte {
	var b bytes.Buffer
	if err := x.WriteNPY(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// npyHeaderF32 returns the .npy header (no data) of an f32 array of the
// given shape tuple, made by editing a real one.
func npyHeaderF32(t testing.TB, shape string) []byte {
	b := npyBytes(t, tensor.Zeros(dtype.F32, 2))
	b = b[:len(b)-8]
	pad := strings.Repeat(" ", len(shape)-len("(2,)")) + "\n"
	if !bytes.Contains(b, []byte(pad)) {
		t.Fatalf("no room for shape %s in %q", shape, b)
	}
	b = bytes.Replace(b, []byte(pad), []byte("\n"), 1) // keep the header length
	return bytes.Replace(b, []byte("(2,)"), []byte(shape), 1)
}

// member is one entry of a hand-made zip archive.
type member struct {
	name string
	data []byte
	raw  *azip.FileHeader // when set, data is written raw under this header
}

func zipOf(t testing.TB, ms ...member) []byte {
	var b bytes.Buffer
	zw := azip.NewWriter(&b)
	for _, m := range ms {
		if m.raw != nil {
			w, err := zw.CreateRaw(m.raw)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(m.data)
			continue
		}
		w, err := zw.CreateHeader(&azip.FileHeader{Name: m.name, Method: azip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// deflate compresses b.
func deflate(b []byte) []byte {
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.BestCompression)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func TestNPZRejects(t *testing.T) {
	one := npyBytes(t, tensor.Ones(dtype.F32, 3))
	stored := func(name string, data []byte, declared uint64, crc uint32) member {
		return member{data: data, raw: &azip.FileHeader{Name: name, Method: azip.Store, CompressedSize64: uint64(len(data)), UncompressedSize64: declared, CRC32: crc}}
	}
	// A deflated member claiming 1 TiB from a few bytes.
	tiny := deflate(make([]byte, 1000))
	bomb := member{data: tiny, raw: &azip.FileHeader{Name: "b.npy", Method: azip.Deflate, CompressedSize64: uint64(len(tiny)), UncompressedSize64: 1 << 40}}
	// A .npy header claiming 64 MiB of data, in a member declaring only
	// the few bytes it really holds.
	liar := append(npyHeaderF32(t, "(16777216,)"), make([]byte, 8)...)
	badCRC := stored("c.npy", one, uint64(len(one)), crc32.ChecksumIEEE(one)+1)
	cases := []struct {
		name string
		in   []byte
		kind error
		msg  string
	}{
		{"empty", nil, tensor.ErrValue, "not a valid .npz"},
		{"garbage", []byte("PK\x03\x04 definitely not a zip file, but long enough to look"), tensor.ErrValue, "not a valid .npz"},
		{"not npy member", zipOf(t, member{name: "a.txt", data: []byte("x")}), tensor.ErrValue, `member "a.txt" is not a .npy file`},
		{"directory", zipOf(t, member{name: "d/", data: nil}), tensor.ErrValue, `"d/"`},
		{"duplicate", zipOf(t, member{name: "a.npy", data: one}, member{name: "a.npy", data: one}), tensor.ErrValue, `duplicate member "a.npy"`},
		{"bad npy", zipOf(t, member{name: "a.npy", data: []byte("\x93NUMPY\x01\x00\x02\x00{}")}), tensor.ErrValue, `member "a.npy"`},
		{"trailing bytes", zipOf(t, member{name: "a.npy", data: append(append([]byte{}, one...), 0)}), tensor.ErrValue, "trailing bytes"},
		{"bad checksum", zipOf(t, badCRC), tensor.ErrValue, `member "c.npy"`},
		{"stored size lie", zipOf(t, stored("s.npy", one, 1<<40, 0)), tensor.ErrValue, "stored member declares"},
		{"deflate bomb", zipOf(t, bomb), tensor.ErrValue, "more than"},
		{"span past the archive", zipOf(t, member{data: tiny, raw: &azip.FileHeader{Name: "p.npy", Method: azip.Deflate, CompressedSize64: 1 << 40, UncompressedSize64: 1 << 40}}), tensor.ErrValue, "run past the end"},
		{"npy header beyond the member", zipOf(t, member{name: "l.npy", data: liar}), tensor.ErrValue, "needs 67108864 bytes"},
		{"unsupported dtype", zipOf(t, member{name: "u.npy", data: bytes.Replace(one, []byte("<f4"), []byte("<u4"), 1)}), tensor.ErrDType, `member "u.npy"`},
		{"unsupported method", zipOf(t, member{data: one, raw: &azip.FileHeader{Name: "m.npy", Method: 99, CompressedSize64: uint64(len(one)), UncompressedSize64: uint64(len(one))}}), tensor.ErrValue, "compression method 99"},
	}
	for _, c := range cases {
		ts, err := tensor.ReadNPZ(bytes.NewReader(c.in), int64(len(c.in)))
		if ts != nil || !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v containing %q", c.name, err, c.kind, c.msg)
		}
	}
}

// TestNPZUnderAllocLimit reads, under a 16 MiB CPU allocation limit, a
// genuine deflated member of 64 MiB of zeros (64 KiB compressed): it must
// be refused with ErrOutOfMemory naming the member, before decompressing
// it, having allocated almost nothing.
func TestNPZUnderAllocLimit(t *testing.T) {
	const name = "TestNPZUnderAllocLimit"
	if !inChild(name) {
		runChild(t, name, 16<<20)
		return
	}
	hdr := npyHeaderF32(t, "(16777216,)")
	var b bytes.Buffer
	zw := azip.NewWriter(&b)
	w, _ := zw.CreateHeader(&azip.FileHeader{Name: "z.npy", Method: azip.Deflate})
	w.Write(hdr)
	zero := make([]byte, 1<<20)
	for range 64 {
		w.Write(zero)
	}
	zw.Close()
	in := b.Bytes()
	var err error
	got := allocated(func() { _, err = tensor.ReadNPZ(bytes.NewReader(in), int64(len(in))) })
	if !errors.Is(err, tensor.ErrOutOfMemory) || !strings.Contains(err.Error(), `member "z.npy"`) {
		t.Errorf("64 MiB member: %v, want an ErrOutOfMemory naming z.npy", err)
	}
	if got > 1<<20 {
		t.Errorf("allocated %d bytes before refusing", got)
	}
	t.Logf("%d-byte archive: %v (%d bytes allocated)", len(in), err, got)
	if !t.Failed() {
		os.Stdout.WriteString("CHILD OK\n")
	}
}

// FuzzNPZ decodes arbitrary bytes with ReadNPZ and round-trips what
// decodes through WriteNPZ. Errors must be typed; nothing may panic.
func FuzzNPZ(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "io", "*.npz"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ts, err := tensor.ReadNPZ(bytes.NewReader(in), int64(len(in)))
		if err != nil {
			if !errors.Is(err, tensor.ErrValue) && !errors.Is(err, tensor.ErrDType) && !errors.Is(err, tensor.ErrShape) && !errors.Is(err, tensor.ErrOutOfMemory) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		var enc bytes.Buffer
		if err := tensor.WriteNPZ(&enc, ts); err != nil {
			t.Fatalf("write of decoded tensors: %v", err)
		}
		ts2, err := tensor.ReadNPZ(bytes.NewReader(enc.Bytes()), int64(enc.Len()))
		if err != nil {
			t.Fatalf("read of re-encoded tensors: %v", err)
		}
		sameTensors(t, "round trip", ts2, ts)
	})
}
