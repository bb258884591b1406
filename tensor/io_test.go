package tensor_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestLoadSaveByExtension round-trips tensors through every format Load and
// Save pick by extension, and refuses unknown extensions and a .npy of
// several tensors with typed errors.
func TestLoadSaveByExtension(t *testing.T) {
	dir := t.TempDir()
	w := tensor.Arange(dtype.F32, 0, 6, 1).Reshape(2, 3)
	b := tensor.FromSlice([]int32{7, -8})
	for _, name := range []string{"m.safetensors", "m.npz", "w.npy"} {
		path := filepath.Join(dir, name)
		ts := map[string]*tensor.Tensor{"w": w, "b": b}
		if filepath.Ext(name) == ".npy" {
			ts = map[string]*tensor.Tensor{"w": w.T()}
		}
		if err := tensor.Save(path, ts); err != nil {
			t.Fatalf("Save %s: %v", name, err)
		}
		got, err := tensor.Load(path)
		if err != nil {
			t.Fatalf("Load %s: %v", name, err)
		}
		if len(got) != len(ts) {
			t.Fatalf("Load %s: %d tensors, want %d", name, len(got), len(ts))
		}
		for k, want := range ts {
			g := got[k]
			if g == nil {
				t.Fatalf("%s: tensor %q missing", name, k)
			}
			if eq, err := tensor.Equal(g, want); err != nil || !eq {
				t.Errorf("%s: tensor %q = %v, want %v (%v)", name, k, g, want, err)
			}
		}
	}
	for _, c := range []struct {
		name string
		err  error
	}{
		{"load unknown", func() error { _, err := tensor.Load(filepath.Join(dir, "m.pt")); return err }()},
		{"save unknown", tensor.Save(filepath.Join(dir, "m.bin"), map[string]*tensor.Tensor{"w": w})},
		{"npy of two", tensor.Save(filepath.Join(dir, "two.npy"), map[string]*tensor.Tensor{"w": w, "b": b})},
	} {
		if !errors.Is(c.err, tensor.ErrValue) {
			t.Errorf("%s: %v, want ErrValue", c.name, c.err)
		}
	}
	for _, name := range []string{"none.npz", "none.npy", "none.safetensors"} {
		if _, err := tensor.Load(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Load of a missing %s: %v, want an error matching fs.ErrNotExist", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "two.npy")); err == nil {
		t.Error("a refused .npy save left a file")
	}
}
