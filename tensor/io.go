package tensor

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tessera-go/tessera/errs"
)

// Load reads the tensors of a file, picking the format from its extension:
// .safetensors (metadata dropped; use LoadSafetensors to keep it), .npz
// (NumPy's savez and savez_compressed), or .npy, read as a one-entry map
// whose key is the file name without its extension. Tensors are on the CPU.
func Load(path string) (map[string]*Tensor, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".safetensors":
		ts, _, err := LoadSafetensors(path)
		return ts, err
	case ".npz":
		return LoadNPZ(path)
	case ".npy":
		f, err := os.Open(path)
		if err != nil {
			return nil, errs.Wrap("tensor", "Load", errs.ErrValue, err, "%v", err)
		}
		defer f.Close()
		t := ReadNPY(f)
		if err := t.Err(); err != nil {
			return nil, err
		}
		return map[string]*Tensor{npyKey(path): t}, nil
	default:
		return nil, errs.New("tensor", "Load", errs.ErrValue, "%s: unknown extension %q (want .safetensors, .npz or .npy)", path, ext)
	}
}

// Save writes ts to path in the format its extension names, as Load reads
// it: .safetensors, .npz (stored, as NumPy's savez) or .npy, which holds
// exactly one tensor. A failed save leaves no partial file.
func Save(path string, ts map[string]*Tensor) error {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".safetensors":
		return SaveSafetensors(path, ts, nil)
	case ".npz":
		return SaveNPZ(path, ts)
	case ".npy":
		if len(ts) != 1 {
			return errs.New("tensor", "Save", errs.ErrValue, "%s: a .npy file holds one tensor, have %d", path, len(ts))
		}
		var t *Tensor
		for _, v := range ts {
			t = v
		}
		if err := t.checkOperand("Save"); err != nil {
			return err
		}
		f, err := os.Create(path)
		if err != nil {
			return errs.Wrap("tensor", "Save", errs.ErrValue, err, "%v", err)
		}
		werr := t.WriteNPY(f)
		cerr := f.Close()
		if werr == nil && cerr != nil {
			werr = errs.Wrap("tensor", "Save", errs.ErrValue, cerr, "%v", cerr)
		}
		if werr != nil {
			os.Remove(path)
		}
		return werr
	default:
		return errs.New("tensor", "Save", errs.ErrValue, "%s: unknown extension %q (want .safetensors, .npz or .npy)", path, ext)
	}
}

// npyKey is the key Load gives the tensor of a .npy file.
func npyKey(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
