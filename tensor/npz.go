package tensor

import (
	"archive/zip"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/npy"
)

// maxDeflateRatio bounds how far a deflate stream can expand: a 258-byte
// match costs at least two bits, so no member can hold more than 1032
// bytes per compressed byte (plus a little for the smallest streams).
const maxDeflateRatio = 1032

// ReadNPZ reads every array of the .npz archive held in r, size bytes long
// (NumPy's np.savez or np.savez_compressed: a zip of .npy members, stored
// or deflated), into CPU tensors keyed by member name without ".npy".
//
// Nothing sized by the archive is allocated before it is checked: a
// member's declared size must be possible for its compressed size (a
// deflate stream expands at most 1032 times, a stored one not at all), the
// .npy header's shape must fit in the member, and the tensor's storage is
// allocated, and checked against the CPU allocation limit, before the data
// is decompressed straight into it; decompression stops at the declared
// size and the member's checksum is verified. So a zip bomb is refused with
// ErrValue or ErrOutOfMemory, having allocated at most what the limit
// allows. A member that is not a .npy file, a duplicate name, a malformed
// .npy or trailing bytes after the array are ErrValue errors naming the
// member. On error nothing is returned and the tensors read so far are
// released.
func ReadNPZ(r io.ReaderAt, size int64) (map[string]*Tensor, error) {
	return readNPZ("ReadNPZ", r, size)
}

// LoadNPZ reads every array of the .npz file at path (see ReadNPZ).
func LoadNPZ(path string) (map[string]*Tensor, error) {
	const op = "LoadNPZ"
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.Wrap("tensor", op, nil, err, "open")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, errs.Wrap("tensor", op, nil, err, "stat")
	}
	return readNPZ(op, f, st.Size())
}

func readNPZ(op string, r io.ReaderAt, size int64) (map[string]*Tensor, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		if errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrAlgorithm) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, errs.Wrap("tensor", op, errs.ErrValue, err, "not a valid .npz (zip) archive")
		}
		if errors.Is(err, zip.ErrInsecurePath) {
			// Names like "../x.npy" are only names here: nothing is
			// written to disk, so the archive is read as it is.
			err = nil
		} else {
			return nil, errs.Wrap("tensor", op, nil, err, "read the archive")
		}
	}
	out := make(map[string]*Tensor, len(zr.File))
	fail := func(err error) (map[string]*Tensor, error) {
		for _, t := range out {
			t.Release()
		}
		return nil, err
	}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			return fail(errs.New("tensor", op, errs.ErrValue, "member %q is not a .npy file", f.Name))
		}
		if _, dup := out[name]; dup {
			return fail(errs.New("tensor", op, errs.ErrValue, "duplicate member %q", f.Name))
		}
		t, err := readMember(op, f, size)
		if err != nil {
			return fail(err)
		}
		out[name] = t
	}
	return out, nil
}

// readMember reads one .npy member of an archive of size bytes into a CPU
// tensor.
func readMember(op string, f *zip.File, size int64) (*Tensor, error) {
	declared := f.UncompressedSize64
	start, err := f.DataOffset()
	if err != nil {
		return nil, errs.Wrap("tensor", op, errs.ErrValue, err, "member %q", f.Name)
	}
	if start < 0 || start > size || f.CompressedSize64 > uint64(size-start) {
		return nil, errs.New("tensor", op, errs.ErrValue, "member %q: %d compressed bytes at offset %d run past the end of the %d-byte archive", f.Name, f.CompressedSize64, start, size)
	}
	switch f.Method {
	case zip.Store:
		if declared != f.CompressedSize64 {
			return nil, errs.New("tensor", op, errs.ErrValue, "member %q: stored member declares %d bytes but holds %d", f.Name, declared, f.CompressedSize64)
		}
	case zip.Deflate:
		if declared/maxDeflateRatio > f.CompressedSize64+16 {
			return nil, errs.New("tensor", op, errs.ErrValue, "member %q: declares %d bytes, more than %d compressed bytes can inflate to", f.Name, declared, f.CompressedSize64)
		}
	default:
		return nil, errs.New("tensor", op, errs.ErrValue, "member %q: unsupported compression method %d (want stored or deflate)", f.Name, f.Method)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, errs.Wrap("tensor", op, errs.ErrValue, err, "member %q", f.Name)
	}
	defer rc.Close()
	// The member reader reports its declared size as its length, so npy
	// refuses a shape that needs more before calling alloc.
	mr := &memberReader{r: rc, left: int64(min(declared, 1<<62))}
	var t *Tensor
	_, err = npy.ReadInto(mr, func(dt dtype.DType, shape []int, nbytes int64) ([]byte, error) {
		t = hostTensor(op, dt, shape, nil)
		if t.err != nil {
			return nil, t.err
		}
		return t.hostBytes(), nil
	})
	if err != nil {
		t.Release()
		return nil, named(op, corrupt(err), "member %q", f.Name)
	}
	// Read to the end: trailing bytes are an error, and the zip reader
	// checks the CRC only at the end of the member.
	var one [1]byte
	if n, err := io.ReadFull(rc, one[:]); n > 0 || !errors.Is(err, io.EOF) {
		t.Release()
		if n > 0 {
			return nil, errs.New("tensor", op, errs.ErrValue, "member %q: trailing bytes after the array", f.Name)
		}
		return nil, errs.Wrap("tensor", op, errs.ErrValue, err, "member %q", f.Name)
	}
	return t, nil
}

// corrupt gives the kind ErrValue to an error without a kind whose cause
// is corrupt compressed data or a bad checksum: the archive is malformed.
func corrupt(err error) error {
	var e *errs.Error
	var ce flate.CorruptInputError
	if !errors.As(err, &e) || e.Kind != nil {
		return err
	}
	if errors.As(err, &ce) || errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrAlgorithm) {
		c := *e
		c.Kind = errs.ErrValue
		return &c
	}
	return err
}

// named returns err as an error of op whose message starts with what
// (formatted), keeping its kind and cause.
func named(op string, err error, format string, args ...any) error {
	what := fmt.Sprintf(format, args...)
	var e *errs.Error
	if !errors.As(err, &e) {
		return errs.Wrap("tensor", op, nil, err, "%s", what)
	}
	c := *e
	c.Pkg, c.Op = "tensor", op
	c.Msg = what + ": " + c.Msg
	return &c
}

// memberReader reads a zip member and reports how many of its declared
// bytes are left (npy's size check reads it through Len).
type memberReader struct {
	r    io.Reader
	left int64
}

func (m *memberReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.left -= int64(n)
	return n, err
}

func (m *memberReader) Len() int { return int(max(m.left, 0)) }

// WriteNPZ writes ts to w as an uncompressed .npz archive, as np.savez
// does: one .npy member per tensor, named after its key with ".npy", in
// sorted order. Tensors may be on any device and any view; each is read
// back to the host in turn. BF16 has no .npy type (Cast first).
func WriteNPZ(w io.Writer, ts map[string]*Tensor) error {
	return writeNPZ("WriteNPZ", w, ts, zip.Store)
}

// WriteNPZCompressed writes ts as WriteNPZ does, with deflated members, as
// np.savez_compressed does.
func WriteNPZCompressed(w io.Writer, ts map[string]*Tensor) error {
	return writeNPZ("WriteNPZCompressed", w, ts, zip.Deflate)
}

// SaveNPZ writes ts to a new uncompressed .npz file at path (see WriteNPZ).
// On error the partial file is removed.
func SaveNPZ(path string, ts map[string]*Tensor) error {
	return saveFile(path, "SaveNPZ", func(w io.Writer) error { return writeNPZ("SaveNPZ", w, ts, zip.Store) })
}

// SaveNPZCompressed writes ts to a new .npz file at path with deflated
// members (see WriteNPZCompressed).
func SaveNPZCompressed(path string, ts map[string]*Tensor) error {
	return saveFile(path, "SaveNPZCompressed", func(w io.Writer) error { return writeNPZ("SaveNPZCompressed", w, ts, zip.Deflate) })
}

func writeNPZ(op string, w io.Writer, ts map[string]*Tensor, method uint16) error {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range ts {
			if !yield(k) {
				return
			}
		}
	})
	// Check every tensor before writing anything.
	for _, name := range names {
		t := ts[name]
		if err := t.check(op); err != nil {
			return named(op, err, "tensor %q", name)
		}
		if t.DType() == dtype.BF16 {
			return errs.New("tensor", op, errs.ErrDType, "tensor %q: bf16 has no .npy type (Cast to f32 first)", name)
		}
	}
	zw := zip.NewWriter(w)
	for _, name := range names {
		mw, err := zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: method})
		if err != nil {
			return errs.Wrap("tensor", op, nil, err, "tensor %q", name)
		}
		if err := ts[name].WriteNPY(mw); err != nil {
			return named(op, err, "tensor %q", name)
		}
	}
	if err := zw.Close(); err != nil {
		return errs.Wrap("tensor", op, nil, err, "finish the archive")
	}
	return nil
}
