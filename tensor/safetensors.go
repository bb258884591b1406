package tensor

import (
	"bufio"
	"io"
	"os"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/safetensors"
)

// Safetensors is an open safetensors file whose header has been read and
// validated; its tensors are loaded one at a time with Load, so a large
// checkpoint need not be read whole. See OpenSafetensors. Its methods may
// be called from several goroutines at once (reads go through ReadAt).
type Safetensors struct {
	f *safetensors.File
}

// OpenSafetensors opens the safetensors file at path and validates its
// header (see package safetensors for every check) without reading any
// tensor data. Close it when done.
func OpenSafetensors(path string) (*Safetensors, error) {
	f, err := safetensors.OpenFile(path)
	if err != nil {
		return nil, errs.Retag("tensor", "OpenSafetensors", err)
	}
	return &Safetensors{f: f}, nil
}

// NewSafetensorsReader reads and validates the header of the safetensors
// file held in r, size bytes long, without reading any tensor data.
func NewSafetensorsReader(r io.ReaderAt, size int64) (*Safetensors, error) {
	f, err := safetensors.Open(r, size)
	if err != nil {
		return nil, errs.Retag("tensor", "NewSafetensorsReader", err)
	}
	return &Safetensors{f: f}, nil
}

// Close closes the file OpenSafetensors opened (a no-op for a reader from
// NewSafetensorsReader). Tensors already loaded stay valid.
func (s *Safetensors) Close() error { return s.f.Close() }

// Names returns the names of the file's tensors, sorted.
func (s *Safetensors) Names() []string { return s.f.Names() }

// Info describes the tensor called name (dtype, shape, byte range) without
// reading it. A tensor whose dtype tessera lacks (I8, U16, F8_E4M3, ...)
// is listed with Info.DType dtype.Invalid and Info.Format naming it.
func (s *Safetensors) Info(name string) (safetensors.Info, bool) { return s.f.Find(name) }

// Metadata returns the file's "__metadata__" map (nil when it has none).
func (s *Safetensors) Metadata() map[string]string { return s.f.Metadata }

// Load reads the tensor called name into a new CPU tensor. Its storage is
// allocated before any data is read (so one over the CPU allocation limit
// is an ErrOutOfMemory that reads nothing) and the data is read straight
// into it. An unknown name is an ErrValue; a dtype tessera has no type for
// is an ErrDType naming it.
func (s *Safetensors) Load(name string) *Tensor {
	const op = "LoadSafetensors"
	in, ok := s.f.Find(name)
	if !ok {
		return fail(op, errs.ErrValue, "no tensor %q in the file", name)
	}
	return s.load(op, in)
}

func (s *Safetensors) load(op string, in safetensors.Info) *Tensor {
	if !in.DType.Valid() {
		return fail(op, errs.ErrDType, "tensor %q: dtype %s has no tessera type (f32, f64, f16, bf16, i32, i64, u8 and bool do)", in.Name, in.Format)
	}
	t := hostTensor(op, in.DType, in.Shape, nil)
	if t.err != nil {
		return failed(named(op, t.err, "tensor %q", in.Name))
	}
	if err := s.f.ReadInto(in.Name, t.hostBytes()); err != nil {
		t.Release()
		return failed(errs.Retag("tensor", op, err))
	}
	return t
}

// LoadAll reads every tensor of the file into CPU tensors, keyed by name.
// On error the tensors read so far are released.
func (s *Safetensors) LoadAll() (map[string]*Tensor, error) {
	const op = "LoadSafetensors"
	out := make(map[string]*Tensor, len(s.f.Tensors))
	for _, in := range s.f.Tensors {
		t := s.load(op, in)
		if t.err != nil {
			for _, u := range out {
				u.Release()
			}
			return nil, t.err
		}
		out[in.Name] = t
	}
	return out, nil
}

// ReadSafetensors reads every tensor of the safetensors file held in r,
// size bytes long, into CPU tensors, and returns them keyed by name with
// the file's metadata (nil when it has none). The header is validated
// against size before anything sized by it is allocated; each tensor's
// storage is allocated (and checked against the CPU allocation limit)
// before its data is read into it. Errors are typed: ErrValue for a
// malformed file, ErrDType for a dtype tessera lacks, ErrShape for a bad
// shape, ErrOutOfMemory for a tensor over the limit.
func ReadSafetensors(r io.ReaderAt, size int64) (map[string]*Tensor, map[string]string, error) {
	s, err := NewSafetensorsReader(r, size)
	if err != nil {
		return nil, nil, errs.Retag("tensor", "ReadSafetensors", err)
	}
	ts, err := s.LoadAll()
	if err != nil {
		return nil, nil, errs.Retag("tensor", "ReadSafetensors", err)
	}
	return ts, s.Metadata(), nil
}

// LoadSafetensors reads every tensor of the safetensors file at path (see
// ReadSafetensors); OpenSafetensors loads them one at a time instead.
func LoadSafetensors(path string) (map[string]*Tensor, map[string]string, error) {
	s, err := OpenSafetensors(path)
	if err != nil {
		return nil, nil, errs.Retag("tensor", "LoadSafetensors", err)
	}
	defer s.Close()
	ts, err := s.LoadAll()
	if err != nil {
		return nil, nil, errs.Retag("tensor", "LoadSafetensors", err)
	}
	return ts, s.Metadata(), nil
}

// WriteSafetensors writes ts and metadata (which may be nil) to w as one
// safetensors file. The output is deterministic: tensors are laid out by
// decreasing dtype alignment, then by name, as Hugging Face's library does,
// and the header is padded to 8 bytes. Tensors may be on any device and
// any view (transposed, narrowed, broadcast): each is written in row-major
// order, read back to the host one at a time. A failed or released tensor
// or the name "__metadata__" is an error naming it, found before anything
// is written.
func WriteSafetensors(w io.Writer, ts map[string]*Tensor, metadata map[string]string) error {
	const op = "WriteSafetensors"
	specs := make([]safetensors.Spec, 0, len(ts))
	for name, t := range ts {
		if err := t.check(op); err != nil {
			return named(op, err, "tensor %q", name)
		}
		specs = append(specs, safetensors.Spec{Name: name, DType: t.DType(), Shape: t.Shape()})
	}
	h, err := safetensors.NewHeader(specs, metadata)
	if err != nil {
		return errs.Retag("tensor", op, err)
	}
	if _, err := w.Write(h.Encode()); err != nil {
		return errs.Wrap("tensor", op, nil, err, "write the header")
	}
	for _, in := range h.Tensors {
		if err := writeHost(w, op, in.Name, ts[in.Name], in.Size()); err != nil {
			return err
		}
	}
	return nil
}

// writeHost writes t's elements in row-major order, little-endian, to w,
// checking that they are size bytes.
func writeHost(w io.Writer, op, name string, t *Tensor, size int64) error {
	c, err := t.hostContiguous(op)
	if err != nil {
		return named(op, err, "tensor %q", name)
	}
	defer c.Release()
	b := c.hostBytes()
	if int64(len(b)) != size {
		return errs.New("tensor", op, errs.ErrValue, "tensor %q: %d bytes, want %d", name, len(b), size)
	}
	if _, err := w.Write(b); err != nil {
		return errs.Wrap("tensor", op, nil, err, "write tensor %q", name)
	}
	return nil
}

// SaveSafetensors writes ts and metadata to a new safetensors file at path
// (see WriteSafetensors). On error the partial file is removed.
func SaveSafetensors(path string, ts map[string]*Tensor, metadata map[string]string) error {
	return saveFile(path, "SaveSafetensors", func(w io.Writer) error { return WriteSafetensors(w, ts, metadata) })
}

// saveFile creates path, lets write fill it through a buffer, and removes
// it if anything fails.
func saveFile(path, op string, write func(w io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return errs.Wrap("tensor", op, nil, err, "create")
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = errs.Wrap("tensor", op, nil, cerr, "close")
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw); err != nil {
		return errs.Retag("tensor", op, err)
	}
	if err := bw.Flush(); err != nil {
		return errs.Wrap("tensor", op, nil, err, "write")
	}
	return nil
}
