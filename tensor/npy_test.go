package tensor_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

func TestNPYRoundTrip(t *testing.T) {
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.I32, dtype.I64, dtype.U8, dtype.Bool} {
		for _, dev := range testDevices(t) {
			if !supports(dev, dt) {
				continue
			}
			// A transposed view on the device: written in logical order.
			x := tensor.Arange(dtype.F64, -3, 9, 1).Reshape(3, 4).Cast(dt).To(dev).T()
			var buf bytes.Buffer
			if err := x.WriteNPY(&buf); err != nil {
				t.Fatalf("%v on %s: %v", dt, dev.Name(), err)
			}
			y := tensor.ReadNPY(&buf)
			if ok, err := tensor.Equal(y, x.To(y.Device())); err != nil || !ok {
				t.Errorf("%v on %s: round trip changed the values (%v)", dt, dev.Name(), err)
			}
		}
	}
	if err := tensor.Ones(dtype.BF16, 2).WriteNPY(new(bytes.Buffer)); !errors.Is(err, tensor.ErrDType) {
		t.Errorf("bf16: %v, want ErrDType", err)
	}
}

func TestReadNPYMalformed(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("..", "testdata", "golden", "matmul_3x4_4x5_a.npy"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"empty":     nil,
		"bad magic": append([]byte("XNUMPY"), good[6:]...),
		"truncated": good[:len(good)-3],
		"header":    good[:20],
	}
	for name, b := range cases {
		if err := tensor.ReadNPY(bytes.NewReader(b)).Err(); !errors.Is(err, tensor.ErrValue) {
			t.Errorf("%s: %v, want ErrValue", name, err)
		}
	}
	if x := tensor.ReadNPY(bytes.NewReader(good)); x.Err() != nil || len(x.Shape()) != 2 {
		t.Errorf("golden file: %v %v", x.Shape(), x.Err())
	}
}

// npyHeader is a version 1.0 .npy preamble and header, padded as NumPy pads
// it.
func npyHeader(descr string, fortran bool, shape string) []byte {
	fo := "False"
	if fortran {
		fo = "True"
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, fo, shape)
	pad := 64 - (10+len(h)+1)%64
	h += strings.Repeat(" ", pad) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	return append(b, h...)
}

// npyStream is a .npy file made up as it is read, so a test can read a
// large array without holding its file in memory: the header, then 4-byte
// elements whose bits elem gives for each file position, stopping after
// limit data bytes (never when limit < 0). It has no Len method: ReadNPY
// cannot know its size in advance.
type npyStream struct {
	hdr       []byte
	elem      func(k int64) uint32
	bigEndian bool
	limit     int64
	pos       int64 // bytes delivered, header included
	data      int64 // data bytes delivered
}

func (s *npyStream) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && s.pos < int64(len(s.hdr)) {
		p[n] = s.hdr[s.pos]
		n, s.pos = n+1, s.pos+1
	}
	for ; n < len(p); n++ {
		if s.limit >= 0 && s.data >= s.limit {
			if n == 0 {
				return 0, io.EOF
			}
			break
		}
		v := s.elem(s.data / 4)
		sh := 8 * (s.data % 4)
		if s.bigEndian {
			sh = 24 - sh
		}
		p[n] = byte(v >> sh)
		s.data++
		s.pos++
	}
	return n, nil
}

// TestReadNPYUnderAllocLimit reads .npy streams in a child process whose
// CPU allocation limit is 96 MiB. An array over the limit must be an
// ErrOutOfMemory before any of its data is read; before the fix ReadNPY
// read the whole file into a growing buffer first (a 2 GiB file peaked near
// 3 GiB under a 768 MiB limit), and a 64 MiB array allocated about 192 MiB.
// A 64 MiB array, in C or big-endian Fortran order, must now cost about
// 64 MiB, and a truncated one must free its storage at once.
func TestReadNPYUnderAllocLimit(t *testing.T) {
	const name = "TestReadNPYUnderAllocLimit"
	if !inChild(name) {
		out := runChild(t, name, 96<<20)
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "allocated") {
				t.Log(strings.TrimSpace(line))
			}
		}
		return
	}
	f32 := func(k int64) uint32 { return math.Float32bits(float32(k)) }
	for _, shape := range []string{"(33554432,)", "(536870912,)", "(65536, 65536)"} { // 128 MiB, 2 GiB, 16 GiB
		s := &npyStream{hdr: npyHeader("<f4", false, shape), elem: f32, limit: -1}
		var err error
		got := allocated(func() { err = tensor.ReadNPY(s).Err() })
		if !errors.Is(err, tensor.ErrOutOfMemory) || !strings.Contains(err.Error(), "ReadNPY") || !strings.Contains(err.Error(), "f32") {
			t.Errorf("shape %s: %v, want an ErrOutOfMemory naming ReadNPY and f32", shape, err)
		}
		if s.data != 0 || got > 1<<20 {
			t.Errorf("shape %s: read %d data bytes and allocated %d before refusing", shape, s.data, got)
		}
		t.Logf("shape %s: %v (%d bytes allocated)", shape, err, got)
	}

	const side = 4096 // 4096 x 4096 f32: 64 MiB
	cases := []struct {
		name string
		s    *npyStream
	}{
		{"C order", &npyStream{hdr: npyHeader("<f4", false, "(4096, 4096)"), elem: f32, limit: -1}},
		// File element k of a Fortran-order array is element (k%side, k/side).
		{"big-endian Fortran order", &npyStream{hdr: npyHeader(">f4", true, "(4096, 4096)"), bigEndian: true, limit: -1,
			elem: func(k int64) uint32 { return f32(k%side*side + k/side) }}},
	}
	for _, c := range cases {
		var x *tensor.Tensor
		got := allocated(func() { x = tensor.ReadNPY(c.s) })
		if err := x.Err(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got > side*side*4+2<<20 {
			t.Errorf("%s: allocated %d bytes for a %d-byte array", c.name, got, side*side*4)
		}
		t.Logf("%s: %d bytes allocated for a %d-byte array", c.name, got, side*side*4)
		for _, at := range [][2]int{{0, 0}, {0, 4088}, {1, 7}, {2047, 3}, {4095, 4088}} {
			row := x.Narrow(0, at[0], 1)
			part := row.Narrow(1, at[1], 8)
			v, err := part.Float64s()
			part.Release()
			row.Release()
			if err != nil {
				t.Fatal(err)
			}
			for j, e := range v {
				if want := float64(at[0]*side + at[1] + j); e != want {
					t.Errorf("%s: element [%d %d] = %v, want %v", c.name, at[0], at[1]+j, e, want)
				}
			}
		}
		x.Release()
	}

	cpu := device.CPU()
	inUse := cpu.Backend().MemoryInUse()
	s := &npyStream{hdr: npyHeader("<f4", true, "(4096, 4096)"), elem: f32, limit: 1 << 20}
	if err := tensor.ReadNPY(s).Err(); !errors.Is(err, tensor.ErrValue) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated stream: %v, want ErrValue", err)
	}
	if now := cpu.Backend().MemoryInUse(); now != inUse {
		t.Errorf("truncated stream: %d bytes of CPU memory in use, %d before", now, inUse)
	}
	if !t.Failed() {
		os.Stdout.WriteString("CHILD OK\n")
	}
}

// TestReadNPYOrders reads every byte and memory order from a bytes.Reader,
// an *os.File and a stream of unknown length, checks the values on every
// device, and that reading costs one copy of the array.
func TestReadNPYOrders(t *testing.T) {
	const rows, cols = 512, 1024 // 2 MiB of f4, several scatter chunks
	for _, c := range []struct {
		descr         string
		fortran, swap bool
	}{{"<f4", false, false}, {">f4", false, true}, {"<f4", true, false}, {">f4", true, true}} {
		data := make([]byte, rows*cols*4)
		for k := range rows * cols {
			i := k // C position of file element k
			if c.fortran {
				i = k%rows*cols + k/rows
			}
			v := math.Float32bits(float32(i) - 1000)
			if c.swap {
				binary.BigEndian.PutUint32(data[4*k:], v)
			} else {
				binary.LittleEndian.PutUint32(data[4*k:], v)
			}
		}
		in := append(npyHeader(c.descr, c.fortran, "(512, 1024)"), data...)
		path := filepath.Join(t.TempDir(), "a.npy")
		if err := os.WriteFile(path, in, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		readers := map[string]io.Reader{"bytes": bytes.NewReader(in), "file": f, "stream": io.MultiReader(bytes.NewReader(in))}
		for rname, r := range readers {
			var x *tensor.Tensor
			got := allocated(func() { x = tensor.ReadNPY(r) })
			if got > uint64(len(data))+512<<10 {
				t.Errorf("%s fortran=%v from %s: allocated %d bytes for %d", c.descr, c.fortran, rname, got, len(data))
			}
			want := tensor.Arange(dtype.F32, -1000, rows*cols-1000, 1).Reshape(rows, cols)
			for _, dev := range testDevices(t) {
				if ok, err := tensor.Equal(x.To(dev), want.To(dev)); err != nil || !ok {
					t.Errorf("%s fortran=%v from %s on %s: wrong values (%v)", c.descr, c.fortran, rname, dev.Name(), err)
				}
			}
		}
		f.Close()
	}
	// A truncated file is refused from its size, before any allocation.
	path := filepath.Join(t.TempDir(), "short.npy")
	if err := os.WriteFile(path, append(npyHeader("<f8", false, "(1048576, 1024)"), make([]byte, 64)...), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rerr error
	got := allocated(func() { rerr = tensor.ReadNPY(f).Err() })
	if !errors.Is(rerr, tensor.ErrValue) || got > 1<<20 {
		t.Errorf("truncated 8 GiB file: %v after allocating %d bytes, want ErrValue", rerr, got)
	}
}
