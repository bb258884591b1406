package nn_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// TestErrors: bad input gives a typed error, never a panic or a value.
func TestErrors(t *testing.T) {
	f32 := func(shape ...int) *tensor.Tensor { return tensor.Zeros(dtype.F32, shape...) }
	i64 := func(v ...int64) *tensor.Tensor { return tensor.FromSlice(v, len(v)) }
	cases := []struct {
		name string
		y    *tensor.Tensor
		kind error
		msg  string // a fragment the message must contain
	}{
		{"Linear in features", nn.NewLinear(3, 2).Forward(f32(4, 2)), tensor.ErrShape, "end in 3 features"},
		{"Linear scalar", nn.NewLinear(3, 2).Forward(tensor.Scalar[float32](1)), tensor.ErrShape, "Linear"},
		{"Linear zero size", nn.NewLinear(0, 2).Forward(f32(1, 0)), tensor.ErrShape, "positive"},
		{"Linear int dtype", nn.NewLinear(3, 2, nn.DType(dtype.I32)).Forward(f32(1, 3)), tensor.ErrDType, "floating"},
		{"Linear dtype mismatch", nn.NewLinear(3, 2).Forward(tensor.Zeros(dtype.F64, 1, 3)), tensor.ErrDType, ""},
		{"Linear failed input", nn.NewLinear(3, 2).Forward(f32(-1)), tensor.ErrShape, ""},
		{"Linear nil input", nn.NewLinear(3, 2).Forward(nil), tensor.ErrValue, "nil"},
		{"Conv2d channels", nn.NewConv2d(3, 2, [2]int{3, 3}, tensor.Conv2dOptions{}).Forward(f32(1, 2, 5, 5)), tensor.ErrShape, "[N, 3, H, W]"},
		{"Conv2d rank", nn.NewConv2d(3, 2, [2]int{3, 3}, tensor.Conv2dOptions{}).Forward(f32(3, 5, 5)), tensor.ErrShape, "Conv2d"},
		{"Conv2d groups", nn.NewConv2d(3, 2, [2]int{3, 3}, tensor.Conv2dOptions{Groups: 2}).Forward(f32(1, 3, 5, 5)), tensor.ErrShape, "groups"},
		{"Conv2d kernel too big", nn.NewConv2d(1, 1, [2]int{7, 7}, tensor.Conv2dOptions{}).Forward(f32(1, 1, 5, 5)), tensor.ErrShape, ""},
		{"MaxPool2d rank", nn.MaxPool2d{Kernel: [2]int{2, 2}}.Forward(f32(4, 4)), tensor.ErrShape, ""},
		{"MaxPool2d kernel", nn.MaxPool2d{}.Forward(f32(1, 1, 4, 4)), tensor.ErrValue, ""},
		{"Flatten scalar", nn.Flatten{}.Forward(tensor.Scalar[float32](1)), tensor.ErrShape, "batch axis"},
		{"Embedding out of range", nn.NewEmbedding(4, 2).Forward(i64(1, 4)), tensor.ErrAxis, "4"},
		{"Embedding negative", nn.NewEmbedding(4, 2).Forward(i64(-1)), tensor.ErrAxis, "-1"},
		{"Embedding float indices", nn.NewEmbedding(4, 2).Forward(f32(3)), tensor.ErrDType, "integers"},
		{"Embedding size", nn.NewEmbedding(0, 2).Forward(i64(0)), tensor.ErrShape, "positive"},
		{"LayerNorm shape", nn.NewLayerNorm([]int{4}).Forward(f32(2, 3)), tensor.ErrShape, "normalised shape [4]"},
		{"LayerNorm empty shape", nn.NewLayerNorm(nil).Forward(f32(2, 3)), tensor.ErrShape, "normalised"},
		{"LayerNorm eps", nn.NewLayerNorm([]int{3}, nn.Eps(-1)).Forward(f32(2, 3)), tensor.ErrValue, "eps"},
		{"Dropout p=1", nn.NewDropout(1, 0).Forward(f32(3)), tensor.ErrValue, "[0, 1)"},
		{"Dropout p<0", nn.NewDropout(-0.1, 0).Forward(f32(3)), tensor.ErrValue, "[0, 1)"},
		{"Dropout NaN", nn.NewDropout(math.NaN(), 0).Forward(f32(3)), tensor.ErrValue, "[0, 1)"},
		{"Dropout int input", nn.NewDropout(0.5, 0).Forward(i64(1, 2)), tensor.ErrDType, ""},
		{"CrossEntropy label high", nn.CrossEntropy(f32(2, 3), i64(0, 3)), tensor.ErrAxis, "label 3 of sample 1"},
		{"CrossEntropy label negative", nn.CrossEntropy(f32(2, 3), i64(-1, 0)), tensor.ErrAxis, "label -1 of sample 0"},
		{"CrossEntropy float labels", nn.CrossEntropy(f32(2, 3), f32(2)), tensor.ErrDType, "integer"},
		{"CrossEntropy int logits", nn.CrossEntropy(tensor.Zeros(dtype.I32, 2, 3), i64(0, 1)), tensor.ErrDType, "floating"},
		{"CrossEntropy batch", nn.CrossEntropy(f32(2, 3), i64(0, 1, 2)), tensor.ErrShape, "[N, C]"},
		{"CrossEntropy rank", nn.CrossEntropy(f32(6), i64(0)), tensor.ErrShape, ""},
		{"CrossEntropy no classes", nn.CrossEntropy(f32(2, 0), i64(0, 0)), tensor.ErrShape, "C > 0"},
		{"CrossEntropy smoothing", nn.CrossEntropySmoothed(f32(2, 3), i64(0, 1), 1.5), tensor.ErrValue, "smoothing"},
		{"CrossEntropy failed logits", nn.CrossEntropy(f32(-2, 3), i64(0, 1)), tensor.ErrShape, ""},
		{"MSE shape", nn.MSE(f32(2, 3), f32(3, 2)), tensor.ErrShape, "differ in shape"},
		{"MSE dtype", nn.MSE(f32(2), tensor.Zeros(dtype.F64, 2)), tensor.ErrDType, ""},
		{"MSE ints", nn.MSE(i64(1), i64(2)), tensor.ErrDType, "floating"},
		{"Kaiming rank", nn.KaimingUniform(dtype.F32, 0, 0, nn.FanIn, 5), tensor.ErrShape, "two axes"},
		{"Xavier rank", nn.XavierNormal(dtype.F32, 0, 1, 5), tensor.ErrShape, "two axes"},
		{"Uniform dtype", nn.Uniform(dtype.I32, 0, 0, 1, 5), tensor.ErrDType, ""},
		{"Normal dtype", nn.Normal(dtype.Bool, 0, 1, 5), tensor.ErrDType, ""},
		{"zero Linear", (&nn.Linear{}).Forward(f32(1, 3)), tensor.ErrValue, "NewLinear"},
		{"zero Conv2d", (&nn.Conv2d{}).Forward(f32(1, 1, 3, 3)), tensor.ErrValue, "NewConv2d"},
		{"zero Embedding", (&nn.Embedding{}).Forward(i64(0)), tensor.ErrValue, "NewEmbedding"},
		{"zero LayerNorm", (&nn.LayerNorm{}).Forward(f32(2, 3)), tensor.ErrShape, "NewLayerNorm"},
		{"nil layer", nn.NewSequential(nn.ReLU{}, nil).Forward(f32(2)), tensor.ErrValue, "layer 1 is nil"},
		{"CrossEntropy nil", nn.CrossEntropy(nil, i64(0)), tensor.ErrValue, "nil"},
		{"MSE nil", nn.MSE(f32(1), nil), tensor.ErrValue, "nil"},
	}
	for _, tc := range cases {
		err := tc.y.Err()
		switch {
		case err == nil:
			t.Errorf("%s: no error", tc.name)
		case !errors.Is(err, tc.kind):
			t.Errorf("%s: %v, want kind %v", tc.name, err, tc.kind)
		case !strings.Contains(err.Error(), tc.msg):
			t.Errorf("%s: %q does not say %q", tc.name, err, tc.msg)
		}
	}
	if err := nn.To(nil, nil); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("To(nil): %v", err)
	}
	if err := nn.To(nn.NewLinear(2, 2), nil); err == nil {
		t.Error("To(nil device): no error")
	}
	if err := nn.LoadStateDict(nil, nil); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("LoadStateDict(nil): %v", err)
	}
	if nn.NumParams(nil) != 0 || len(nn.StateDict(nil)) != 0 {
		t.Error("a nil module has parameters")
	}
	// A failed layer fails every later layer's output, not only its own.
	seq := nn.NewSequential(nn.NewLinear(3, 4), nn.ReLU{}, nn.NewLinear(5, 2))
	if err := seq.Forward(tensor.Zeros(dtype.F32, 1, 3)).Err(); !errors.Is(err, tensor.ErrShape) || !strings.Contains(err.Error(), "nn: Linear") {
		t.Errorf("Sequential with mismatched layers: %v", err)
	}
}

// TestStateDict round-trips a model's state through a .safetensors file
// and checks every kind of mismatch LoadStateDict reports.
func TestStateDict(t *testing.T) {
	build := func(seed uint64) *nn.Sequential {
		return nn.NewSequential(
			nn.NewConv2d(1, 2, [2]int{3, 3}, tensor.Conv2dOptions{}, nn.Seed(seed)), nn.ReLU{}, nn.Flatten{},
			nn.NewLinear(8, 3, nn.Seed(seed+1)), nn.NewLayerNorm([]int{3}), nn.NewEmbedding(4, 3, nn.Seed(seed+2)),
		)
	}
	src, dst := build(1), build(100)
	path := filepath.Join(t.TempDir(), "model.safetensors")
	if err := nn.Save(src, path); err != nil {
		t.Fatal(err)
	}
	if err := nn.Load(dst, path); err != nil {
		t.Fatal(err)
	}
	want := nn.StateDict(src)
	got := nn.StateDict(dst)
	if len(got) != 7 || len(want) != 7 {
		t.Fatalf("state dicts of %d and %d entries, want 7", len(got), len(want))
	}
	for k, v := range want {
		near(t, k, vals(t, got[k]), vals(t, v), 0, 0)
	}
	for _, p := range dst.Parameters() {
		if _, err := tensor.Grads(p.Value.Sum(), p.Value); err != nil {
			t.Fatalf("%s does not require grad after Load: %v", p.Name, err)
		}
	}

	// Mismatches: each is reported, naming its key, and nothing is set.
	sd := nn.StateDict(src)
	delete(sd, "0.bias")
	sd["3.weight"] = tensor.Zeros(dtype.F32, 3, 7)
	sd["4.weight"] = tensor.Zeros(dtype.F64, 3)
	sd["extra"] = tensor.Zeros(dtype.F32, 1)
	before := vals(t, dst.Parameters()[0].Value)
	err := nn.LoadStateDict(dst, sd)
	for _, want := range []struct {
		kind error
		frag string
	}{
		{tensor.ErrValue, `missing key "0.bias"`},
		{tensor.ErrShape, `"3.weight": shape [3 7]`},
		{tensor.ErrDType, `"4.weight": dtype f64`},
		{tensor.ErrValue, `unexpected key "extra"`},
	} {
		if !errors.Is(err, want.kind) || err == nil || !strings.Contains(err.Error(), want.frag) {
			t.Errorf("LoadStateDict: %v; want %v saying %s", err, want.kind, want.frag)
		}
	}
	near(t, "after a failed load", vals(t, dst.Parameters()[0].Value), before, 0, 0)

	if err := nn.Load(dst, filepath.Join(t.TempDir(), "absent.safetensors")); err == nil {
		t.Error("Load of a missing file: no error")
	}
	junk := filepath.Join(t.TempDir(), "junk.safetensors")
	if err := os.WriteFile(junk, []byte("not a safetensors file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := nn.Load(dst, junk); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("Load of a malformed file: %v", err)
	}
	if err := nn.Save(src, filepath.Join(t.TempDir(), "model.txt")); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("Save with an unknown extension: %v", err)
	}
}
