package npy_test

import (
	"bytes"
	"fmt"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/npy"
)

// Write an array in NumPy's format and read it back. A file from
// np.save(path, numpy.arange(6, dtype=numpy.float32).reshape(2, 3)) reads the
// same way, with npy.ReadFile(path).
func Example() {
	a, err := npy.FromFloat64s(dtype.F32, []int{2, 3}, []float64{0, 1, 2, 3, 4, 5})
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := npy.Write(&buf, a); err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", buf.Bytes()[10:bytes.IndexByte(buf.Bytes(), '}')+1])

	b, err := npy.Read(&buf)
	if err != nil {
		panic(err)
	}
	v, _ := b.Float64s()
	fmt.Println(b.DType, b.Shape, v)
	// Output:
	// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
	// f32 [2 3] [0 1 2 3 4 5]
}

// Malformed input gives a typed error, never a panic.
func ExampleRead_error() {
	_, err := npy.Read(bytes.NewReader([]byte("\x93NUMPY\x01\x00\x39\x00{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }")))
	fmt.Println(err)
	// Output:
	// npy: Read: unsupported descr "<i2"; tessera reads '<f2' '<f4' '<f8' '<i4' '<i8' '|u1' '|b1' and the big-endian ('>') forms
}
