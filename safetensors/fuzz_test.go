package safetensors_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tessera-go/tessera/safetensors"
)

// FuzzOpen decodes arbitrary bytes and, when they decode, re-encodes every
// tensor tessera has a dtype for with Write and decodes again: the result
// must hold the same tensors and metadata, and encoding it again must give
// the same bytes. Open must never panic.
func FuzzOpen(f *testing.F) {
	files, _ := filepath.Glob("../testdata/io/*.safetensors")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(file(`{"__metadata__":{"a":"b"},"x":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}}`, []byte{1, 0}))
	f.Add(file(`{"x":{"dtype":"I8","shape":[1],"data_offsets":[0,1]}}`, []byte{1}))
	f.Fuzz(func(t *testing.T, in []byte) {
		sf, err := open(in)
		if err != nil {
			return
		}
		ts := map[string]safetensors.Tensor{}
		for _, info := range sf.Tensors {
			data := make([]byte, info.Size())
			if err := sf.ReadInto(info.Name, data); err != nil || !info.DType.Valid() {
				continue // a bad bool byte, or a dtype tessera lacks
			}
			ts[info.Name] = safetensors.Tensor{DType: info.DType, Shape: info.Shape, Data: data}
		}
		var enc bytes.Buffer
		if err := safetensors.Write(&enc, ts, sf.Metadata); err != nil {
			t.Fatalf("Write of decoded tensors: %v", err)
		}
		sf2, err := open(enc.Bytes())
		if err != nil {
			t.Fatalf("Open of re-encoded file: %v", err)
		}
		if len(sf2.Tensors) != len(ts) || (len(sf.Metadata) > 0 || len(sf2.Metadata) > 0) && !reflect.DeepEqual(sf.Metadata, sf2.Metadata) {
			t.Fatalf("round trip: %d tensors -> %d, metadata %v -> %v", len(ts), len(sf2.Tensors), sf.Metadata, sf2.Metadata)
		}
		ts2 := map[string]safetensors.Tensor{}
		for _, info := range sf2.Tensors {
			data := make([]byte, info.Size())
			if err := sf2.ReadInto(info.Name, data); err != nil {
				t.Fatalf("ReadInto %q after round trip: %v", info.Name, err)
			}
			want := ts[info.Name]
			if info.DType != want.DType || !reflect.DeepEqual(append([]int{}, info.Shape...), append([]int{}, want.Shape...)) || !bytes.Equal(data, want.Data) {
				t.Fatalf("tensor %q changed in the round trip", info.Name)
			}
			ts2[info.Name] = safetensors.Tensor{DType: info.DType, Shape: info.Shape, Data: data}
		}
		var enc2 bytes.Buffer
		if err := safetensors.Write(&enc2, ts2, sf2.Metadata); err != nil || !bytes.Equal(enc.Bytes(), enc2.Bytes()) {
			t.Fatalf("second encoding differs (err %v)", err)
		}
	})
}
