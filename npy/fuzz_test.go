package npy_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/npy"
)

// FuzzRead decodes arbitrary bytes and, when they decode, round-trips the
// array through Write and Read again: the second decode must give the same
// array and re-encoding it the same bytes. Read must never panic. The corpus
// is seeded from the NumPy-made files in testdata, as image/png's is.
func FuzzRead(f *testing.F) {
	for _, pattern := range []string{"../testdata/npyformat/*.npy", "../testdata/golden/*.npy"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add(file(1, dict("|b1", true, "(2, 2)"), []byte{1, 0, 0, 1}))
	f.Add(file(3, "{'descr': '>i8', 'fortran_order': True, 'shape': (1L, 2L, 1L), }", make([]byte, 16)))
	// Fortran order across the scatter scratch, whole and truncated.
	big := file(1, dict(">f4", true, "(130, 130)"), make([]byte, 130*130*4))
	f.Add(big)
	f.Add(big[:len(big)-5])
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := npy.Read(bytes.NewReader(in))
		if err != nil {
			return
		}
		var enc bytes.Buffer
		if err := npy.Write(&enc, a); err != nil {
			t.Fatalf("Write of a decoded array: %v", err)
		}
		b, err := npy.Read(bytes.NewReader(enc.Bytes()))
		if err != nil {
			t.Fatalf("Read of a re-encoded array: %v", err)
		}
		if !equal(a, b) {
			t.Fatalf("round trip changed the array: %v %v -> %v %v", a.DType, a.Shape, b.DType, b.Shape)
		}
		var enc2 bytes.Buffer
		if err := npy.Write(&enc2, b); err != nil || !bytes.Equal(enc.Bytes(), enc2.Bytes()) {
			t.Fatalf("second encoding differs (err %v)", err)
		}
		if _, err := a.Float64s(); err != nil {
			t.Fatalf("Float64s of a decoded array: %v", err)
		}
	})
}
