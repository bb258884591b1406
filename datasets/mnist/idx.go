package mnist

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"

	"github.com/tessera-go/tessera/errs"
)

// IDX element types, the third byte of an IDX file's magic number.
const (
	IDXUint8   = 0x08 // unsigned byte (MNIST's pixels and labels)
	IDXInt8    = 0x09 // signed byte
	IDXInt16   = 0x0B // big-endian int16
	IDXInt32   = 0x0C // big-endian int32
	IDXFloat32 = 0x0D // big-endian float32
	IDXFloat64 = 0x0E // big-endian float64
)

// DefaultMaxBytes bounds the data an IDX file may declare unless the caller
// passes its own limit: 1 GiB, twenty times MNIST's largest file, so a
// corrupt header cannot make the reader allocate without bound.
const DefaultMaxBytes = 1 << 30

// maxDims bounds the rank an IDX header may declare (the format stores it in
// one byte; real files use 1 to 4).
const maxDims = 16

// IDX is one decoded IDX array: the element type, the extent of each
// dimension (outermost first) and the element bytes exactly as stored
// (big-endian for multi-byte types).
type IDX struct {
	Type byte   // one of the IDX* element types
	Dims []int  // extents, outermost first
	Data []byte // len(Data) == product(Dims) * element size

	path string // the file it came from, for Load's messages
}

// idxElemSize is the size in bytes of one element of IDX type ty, or 0 for a
// type the format does not define.
func idxElemSize(ty byte) int {
	switch ty {
	case IDXUint8, IDXInt8:
		return 1
	case IDXInt16:
		return 2
	case IDXInt32, IDXFloat32:
		return 4
	case IDXFloat64:
		return 8
	}
	return 0
}

// limit is the data limit to apply: DefaultMaxBytes for 0 or less, and
// never more than an int can count (on 32-bit platforms).
func limit(maxBytes int64) int64 {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return min(maxBytes, math.MaxInt)
}

// idxHeader is the parsed fixed part of an IDX stream.
type idxHeader struct {
	ty     byte
	dims   []int
	hdrLen int64 // bytes of magic plus dimension words
	data   int64 // bytes of element data the dimensions declare
}

// parseHeader reads and checks the magic number and the dimensions, and the
// declared data size against maxBytes, before anything large is allocated.
func parseHeader(r io.Reader, name string, maxBytes int64) (idxHeader, error) {
	const op = "ReadIDX"
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return idxHeader{}, errs.Wrap("mnist", op, errs.ErrValue, err, "%s: truncated IDX magic number", name)
	}
	if magic[0] != 0 || magic[1] != 0 {
		return idxHeader{}, errs.New("mnist", op, errs.ErrValue, "%s: bad IDX magic number % x (want 00 00 <type> <rank>)", name, magic)
	}
	h := idxHeader{ty: magic[2]}
	esz := idxElemSize(h.ty)
	if esz == 0 {
		return idxHeader{}, errs.New("mnist", op, errs.ErrValue, "%s: unknown IDX element type 0x%02x", name, h.ty)
	}
	rank := int(magic[3])
	if rank == 0 || rank > maxDims {
		return idxHeader{}, errs.New("mnist", op, errs.ErrValue, "%s: IDX rank %d outside [1, %d]", name, rank, maxDims)
	}
	var words [4 * maxDims]byte
	if _, err := io.ReadFull(r, words[:4*rank]); err != nil {
		return idxHeader{}, errs.Wrap("mnist", op, errs.ErrValue, err, "%s: truncated IDX header: rank %d needs %d dimension bytes", name, rank, 4*rank)
	}
	h.dims = make([]int, rank)
	total := int64(esz)
	for i := range rank {
		d := binary.BigEndian.Uint32(words[4*i:])
		h.dims[i] = int(d)
		// Check before multiplying so the product never overflows: every
		// factor is below 2^32 and the running total stays <= maxBytes.
		if d != 0 && total > maxBytes/int64(d) {
			return idxHeader{}, errs.New("mnist", op, errs.ErrValue, "%s: IDX dimensions %v of %d-byte elements exceed the limit of %d bytes", name, dimWords(words[:4*rank]), esz, maxBytes)
		}
		total *= int64(d)
	}
	h.hdrLen = 4 + 4*int64(rank)
	h.data = total
	return h, nil
}

// dimWords decodes every dimension word for an error message.
func dimWords(words []byte) []uint32 {
	out := make([]uint32, len(words)/4)
	for i := range out {
		out[i] = binary.BigEndian.Uint32(words[4*i:])
	}
	return out
}

// readData reads exactly n bytes. When prealloc is false the buffer grows
// as data arrives (doubling from 1 MiB), so a header that declares more than
// the stream holds costs at most about twice the bytes actually present.
func readData(r io.Reader, n int64, prealloc bool) ([]byte, error) {
	const chunk = 1 << 20
	c := n
	if !prealloc {
		c = min(n, chunk)
	}
	buf := make([]byte, 0, c)
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(n, 2*int64(cap(buf))))
			copy(nb, buf)
			buf = nb
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil {
			if err == io.EOF && int64(len(buf)) == n {
				break
			}
			return buf, err
		}
	}
	return buf, nil
}

// DecodeIDX decodes one IDX array from r, which holds it raw or
// gzip-compressed (told apart by the gzip magic bytes). name labels errors;
// maxBytes bounds the element data the header may declare (0 means
// DefaultMaxBytes). A truncated stream, bytes after the data, a wrong magic
// number, an unknown element type or a declared size above the limit is an
// ErrValue error naming the file and the values; memory stays bounded by
// about twice the bytes actually present.
func DecodeIDX(r io.Reader, name string, maxBytes int64) (*IDX, error) {
	return decodeIDX(r, name, maxBytes, -1)
}

// decodeIDX is DecodeIDX with the expected uncompressed length, when the
// caller knows it (-1 otherwise): a header that disagrees with it fails
// before the data is read, and the data buffer is allocated at once.
func decodeIDX(r io.Reader, name string, maxBytes, wantLen int64) (*IDX, error) {
	maxBytes = limit(maxBytes)
	br := bufio.NewReader(r)
	if m, err := br.Peek(2); err == nil && m[0] == 0x1f && m[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, errs.Wrap("mnist", "ReadIDX", errs.ErrValue, err, "%s: bad gzip header", name)
		}
		defer zr.Close()
		zr.Multistream(false)
		// wantLen counts the stream's own bytes, not what they expand to.
		return decodeRaw(zr, name, maxBytes, -1)
	}
	return decodeRaw(br, name, maxBytes, wantLen)
}

// decodeRaw decodes an uncompressed IDX stream.
func decodeRaw(r io.Reader, name string, maxBytes, wantLen int64) (*IDX, error) {
	const op = "ReadIDX"
	h, err := parseHeader(r, name, maxBytes)
	if err != nil {
		return nil, err
	}
	if wantLen >= 0 && h.hdrLen+h.data != wantLen {
		return nil, errs.New("mnist", op, errs.ErrValue, "%s: IDX header declares dimensions %v (%d header + %d data bytes) but the file holds %d bytes",
			name, h.dims, h.hdrLen, h.data, wantLen)
	}
	data, err := readData(r, h.data, wantLen >= 0)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errs.New("mnist", op, errs.ErrValue, "%s: truncated IDX data: dimensions %v need %d bytes, the stream holds %d", name, h.dims, h.data, len(data))
		}
		return nil, errs.Wrap("mnist", op, errs.ErrValue, err, "%s: reading IDX data (%d of %d bytes read)", name, len(data), h.data)
	}
	// The array must end the stream: trailing bytes mean the header lies.
	var one [1]byte
	if m, err := io.ReadFull(r, one[:]); m != 0 {
		return nil, errs.New("mnist", op, errs.ErrValue, "%s: bytes after the IDX data: dimensions %v declare %d bytes", name, h.dims, h.data)
	} else if err != nil && err != io.EOF {
		return nil, errs.Wrap("mnist", op, errs.ErrValue, err, "%s: after the IDX data", name)
	}
	return &IDX{Type: h.ty, Dims: h.dims, Data: data}, nil
}

// ReadIDXFile reads the IDX array in the file at path, raw or
// gzip-compressed. It checks the header against the file's length (a raw
// file) or the gzip trailer's recorded length before allocating the data, so
// a corrupt or hostile file fails fast with an ErrValue naming the path.
func ReadIDXFile(path string, maxBytes int64) (*IDX, error) {
	const op = "ReadIDX"
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.Wrap("mnist", op, errs.ErrValue, err, "cannot open %s", path)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, errs.Wrap("mnist", op, errs.ErrValue, err, "cannot stat %s", path)
	}
	size := st.Size()
	var head [2]byte
	if _, err := f.ReadAt(head[:], 0); err == nil && head[0] == 0x1f && head[1] == 0x8b && size >= 18 {
		// RFC 1952: the last four bytes are the uncompressed length mod 2^32.
		var trailer [4]byte
		if _, err := f.ReadAt(trailer[:], size-4); err != nil {
			return nil, errs.Wrap("mnist", op, errs.ErrValue, err, "%s: cannot read the gzip trailer", path)
		}
		isize := int64(binary.LittleEndian.Uint32(trailer[:]))
		return decodeGzipChecked(f, path, maxBytes, size, isize)
	}
	return decodeIDX(f, path, maxBytes, size)
}

// maxDeflateRatio bounds how far deflate can expand its input (about 1032:1
// for long runs of one byte); a header declaring more data than the file
// could expand to is corrupt.
const maxDeflateRatio = 1032

// decodeGzipChecked decodes a gzip file of zsize bytes whose trailer records
// isize, the uncompressed length mod 2^32: a header whose total disagrees
// with it, or that the file is too small to expand to, fails before the data
// is allocated.
func decodeGzipChecked(r io.Reader, name string, maxBytes, zsize, isize int64) (*IDX, error) {
	const op = "ReadIDX"
	maxBytes = limit(maxBytes)
	zr, err := gzip.NewReader(bufio.NewReader(r))
	if err != nil {
		return nil, errs.Wrap("mnist", op, errs.ErrValue, err, "%s: bad gzip header", name)
	}
	defer zr.Close()
	zr.Multistream(false)
	// Read the header through a small buffer, then the data straight from
	// the decompressor once the header agrees with the trailer.
	var hb bytes.Buffer
	h, err := parseHeader(io.TeeReader(zr, &hb), name, maxBytes)
	if err != nil {
		return nil, err
	}
	if (h.hdrLen+h.data)&0xffffffff != isize {
		return nil, errs.New("mnist", op, errs.ErrValue, "%s: IDX header declares dimensions %v (%d bytes) but the gzip trailer records %d uncompressed bytes",
			name, h.dims, h.hdrLen+h.data, isize)
	}
	if h.hdrLen+h.data > maxDeflateRatio*zsize+1024 {
		return nil, errs.New("mnist", op, errs.ErrValue, "%s: IDX header declares dimensions %v (%d bytes), more than %d compressed bytes can hold",
			name, h.dims, h.hdrLen+h.data, zsize)
	}
	return decodeRaw(io.MultiReader(&hb, zr), name, maxBytes, h.hdrLen+h.data)
}
