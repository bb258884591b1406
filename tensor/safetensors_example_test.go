package tensor_test

import (
	"bytes"
	"fmt"

	"github.com/tessera-go/tessera/tensor"
)

// ExampleWriteSafetensors saves two tensors with metadata and loads them
// back, first one at a time, then all at once.
func ExampleWriteSafetensors() {
	ts := map[string]*tensor.Tensor{
		"w": tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3).Transpose(0, 1), // views are written in row-major order
		"b": tensor.FromSlice([]int64{7, 8}, 2),
	}
	var buf bytes.Buffer
	if err := tensor.WriteSafetensors(&buf, ts, map[string]string{"format": "pt"}); err != nil {
		fmt.Println(err)
		return
	}

	f, err := tensor.NewSafetensorsReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range f.Names() {
		info, _ := f.Info(name)
		fmt.Println(name, info.Format, info.Shape)
	}
	w := f.Load("w")
	fmt.Println(tensor.ToSlice[float32](w))

	all, md, err := tensor.ReadSafetensors(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	fmt.Println(len(all), md, err)
	// Output:
	// b I64 [2]
	// w F32 [3 2]
	// [1 4 2 5 3 6] <nil>
	// 2 map[format:pt] <nil>
}
