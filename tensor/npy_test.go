package tensor_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

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
