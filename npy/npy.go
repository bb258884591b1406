// Package npy reads and writes NumPy .npy files.
//
// Read accepts format versions 1.0, 2.0 and 3.0, the element types tessera
// has a dtype for ('<f2' '<f4' '<f8' '<i4' '<i8' '|u1' '|b1', little- or
// big-endian) and both C and Fortran order. It always returns an Array in one
// canonical form: little-endian bytes in C (row-major) order, whatever the
// file held, so callers never see byte order or Fortran order.
//
// Write produces exactly the bytes NumPy's np.save writes for the same array
// (version 1.0, or 2.0 when the header needs it; C order; little-endian).
// bfloat16 has no .npy type code, so writing BF16 is an ErrDType.
//
// Malformed input never panics: every failure is an *errs.Error whose kind
// says what is wrong (errs.ErrValue for a bad file, errs.ErrDType for an
// unsupported element type, errs.ErrShape for a bad shape), and a file that
// declares a huge shape is refused once its bytes run out, without first
// allocating what the header claims. ReadInto lets the caller allocate the
// destination once the header is known (and refuse it), then reads the data
// straight into it.
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"unicode/utf8"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// MaxRank is the largest number of axes Read and Write accept (NumPy 2's
// limit).
const MaxRank = 64

// MaxHeaderLen bounds the header dict Read accepts. Headers for the element
// types tessera reads are a few hundred bytes; a larger declared length is
// an ErrValue, so a corrupt length field cannot make Read allocate gigabytes.
const MaxHeaderLen = 1 << 16

// magic is the first six bytes of every .npy file.
const magic = "\x93NUMPY"

// Array is a dense n-dimensional array as stored in a .npy file.
//
// Data holds the elements in C order (last axis fastest), each in its
// little-endian byte form (Bool as one byte, 0 or 1; F16 and BF16 as the
// bits of dtype.Float16 and dtype.BFloat16), so len(Data) is the element
// count times DType.Size(). A rank-0 Shape is a scalar with one element.
type Array struct {
	DType dtype.DType // element type
	Shape []int       // extent of each axis; empty for a scalar
	Data  []byte      // little-endian elements in C order
}

// Read decodes one array from r, consuming exactly its bytes, so several
// arrays written one after another to a stream can be read back in turn.
// At the very end of r it returns an ErrValue error that also wraps io.EOF.
// The result is little-endian and in C order: big-endian data is swapped and
// Fortran-order data transposed while reading. When r tells how much it holds
// (a Len method, as bytes.Reader, strings.Reader and bytes.Buffer have, or a
// regular file's size and position), a shape that needs more bytes is
// refused before any data is read; otherwise the buffer grows only with the
// bytes that actually arrive. ReadInto reads into memory the caller
// allocates instead.
func Read(r io.Reader) (*Array, error) {
	return read(r, "Read", available(r))
}

// ReadFile reads the first array of the .npy file at path (see Read). It
// checks the file's size against the shape in the header before reading the
// data.
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.Wrap("npy", "ReadFile", nil, err, "open")
	}
	defer f.Close()
	avail := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		avail = st.Size()
	}
	return read(f, "ReadFile", avail)
}

// available reports how many bytes r can still deliver when r knows it
// (bytes.Reader, strings.Reader, bytes.Buffer, or a regular file such as an
// *os.File, from its size and read position), or -1.
func available(r io.Reader) int64 {
	switch f := r.(type) {
	case interface{ Len() int }:
		return int64(f.Len())
	case interface {
		Stat() (os.FileInfo, error)
		Seek(int64, int) (int64, error)
	}:
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return -1
		}
		pos, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return max(st.Size()-pos, 0)
	}
	return -1
}

// ReadInto decodes one array from r as Read does, but into memory the
// caller provides, so that a large array is neither staged nor copied: once
// the header is parsed (and, when r tells how much it holds, checked against
// it), alloc is called with the element type, the shape and the byte size of
// the data, and must return a buffer of exactly that many bytes. The data is
// read straight into it, in the canonical form of Array.Data: big-endian
// elements are swapped in place and Fortran-order ones scattered to their C
// positions through a small fixed-size scratch. The returned Array's Data is
// that buffer.
//
// An error from alloc is returned unchanged, so the caller can refuse an
// array before any of its data is read. On any later error the buffer holds
// partial data; it still belongs to the caller, who should release it.
func ReadInto(r io.Reader, alloc func(dt dtype.DType, shape []int, nbytes int64) ([]byte, error)) (*Array, error) {
	const op = "ReadInto"
	h, nbytes, err := readHeader(r, op, available(r))
	if err != nil {
		return nil, err
	}
	buf, err := alloc(h.dt, append([]int{}, h.shape...), nbytes)
	if err != nil {
		return nil, err
	}
	if int64(len(buf)) != nbytes {
		return nil, errs.New("npy", op, errs.ErrValue, "alloc returned %d bytes for shape %v %v, want %d", len(buf), h.shape, h.dt, nbytes)
	}
	if err := readBody(r, op, h, buf); err != nil {
		return nil, err
	}
	return &Array{DType: h.dt, Shape: h.shape, Data: buf}, nil
}

// read decodes one array. avail is the number of bytes r holds, or -1 when
// unknown; when known, a shape that needs more is refused before any data is
// read and the data is read into one buffer of its exact size.
func read(r io.Reader, op string, avail int64) (*Array, error) {
	h, nbytes, err := readHeader(r, op, avail)
	if err != nil {
		return nil, err
	}
	if avail >= 0 {
		// The input holds the bytes (checked in readHeader): allocating
		// them is no bigger than what the reader already has.
		data := make([]byte, nbytes)
		if err := readBody(r, op, h, data); err != nil {
			return nil, err
		}
		return &Array{DType: h.dt, Shape: h.shape, Data: data}, nil
	}
	size := h.dt.Size()
	data, err := readData(r, nbytes)
	if err != nil {
		return nil, ioErr(op, err, "truncated data: shape %v %v needs %d bytes, the input has %d", h.shape, h.dt, nbytes, len(data))
	}
	if h.bigEndian {
		swapBytes(data, size)
	}
	if h.fortran && len(h.shape) > 1 && len(data) > size {
		data = fortranToC(data, h.shape, size)
	}
	if err := checkBool(op, h.dt, data); err != nil {
		return nil, err
	}
	return &Array{DType: h.dt, Shape: h.shape, Data: data}, nil
}

// readHeader reads the preamble and header of one array and returns the
// header and the byte size of the data. avail is the number of bytes r
// holds, or -1 when unknown; when known, a shape that needs more than the
// input holds is an ErrValue.
func readHeader(r io.Reader, op string, avail int64) (header, int64, error) {
	var pre [8]byte
	n, err := io.ReadFull(r, pre[:])
	if err != nil {
		if n == 0 && err == io.EOF {
			return header{}, 0, errs.Wrap("npy", op, errs.ErrValue, io.EOF, "no data: not a .npy file")
		}
		return header{}, 0, ioErr(op, err, "file of %d bytes is too short for a .npy preamble", n)
	}
	if string(pre[:6]) != magic {
		return header{}, 0, errs.New("npy", op, errs.ErrValue, "bad magic %q: not a .npy file", pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen int64
	switch {
	case major == 1 && minor == 0:
		var l [2]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return header{}, 0, ioErr(op, err, "truncated header length")
		}
		hlen = int64(binary.LittleEndian.Uint16(l[:]))
	case (major == 2 || major == 3) && minor == 0:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return header{}, 0, ioErr(op, err, "truncated header length")
		}
		hlen = int64(binary.LittleEndian.Uint32(l[:]))
	default:
		return header{}, 0, errs.New("npy", op, errs.ErrValue, "unsupported format version %d.%d (want 1.0, 2.0 or 3.0)", major, minor)
	}
	if hlen > MaxHeaderLen {
		return header{}, 0, errs.New("npy", op, errs.ErrValue, "header length %d exceeds the limit of %d bytes", hlen, MaxHeaderLen)
	}
	prefix := int64(10)
	if major > 1 {
		prefix = 12
	}
	if avail >= 0 {
		avail -= prefix
		if avail < hlen {
			return header{}, 0, errs.New("npy", op, errs.ErrValue, "truncated header: %d of %d bytes", max(avail, 0), hlen)
		}
		avail -= hlen
	}
	hb := make([]byte, hlen)
	if n, err := io.ReadFull(r, hb); err != nil {
		return header{}, 0, ioErr(op, err, "truncated header: %d of %d bytes", n, hlen)
	}
	if major == 3 && !utf8.Valid(hb) {
		return header{}, 0, errs.New("npy", op, errs.ErrValue, "header is not valid UTF-8")
	}
	// Versions 1 and 2 are latin-1; every byte the parser accepts is ASCII,
	// so the raw bytes can be parsed as they are.
	h, err := parseHeader(op, string(hb))
	if err != nil {
		return header{}, 0, err
	}
	numel, err := layout.Numel(h.shape)
	if err != nil {
		return header{}, 0, errs.Retag("npy", op, err)
	}
	nbytes := int64(numel) * int64(h.dt.Size()) // no overflow: numel <= layout.MaxElements
	if avail >= 0 && avail < nbytes {
		return header{}, 0, errs.New("npy", op, errs.ErrValue, "data of shape %v %v needs %d bytes, the input has %d", h.shape, h.dt, nbytes, avail)
	}
	return h, nbytes, nil
}

// scatterChunk is the size of the scratch through which readBody reads
// Fortran-order data (a multiple of every element size).
const scatterChunk = 64 << 10

// readBody reads the data of an array with header h into dst, which has
// exactly its byte size, leaving it little-endian and in C order.
func readBody(r io.Reader, op string, h header, dst []byte) error {
	size := h.dt.Size()
	if !h.fortran || len(h.shape) < 2 || len(dst) <= size {
		if n, err := io.ReadFull(r, dst); err != nil {
			return ioErr(op, err, "truncated data: shape %v %v needs %d bytes, the input has %d", h.shape, h.dt, len(dst), n)
		}
		if h.bigEndian {
			swapBytes(dst, size)
		}
		return checkBool(op, h.dt, dst)
	}
	// Fortran order: the file holds the elements first axis fastest. Read
	// them a chunk at a time and scatter each to its C position, keeping
	// that position in step with an odometer over the index.
	shape := h.shape
	cstride := layout.RowMajorStrides(shape)
	for i := range cstride {
		cstride[i] *= size
	}
	idx := make([]int, len(shape))
	scratch := make([]byte, min(scatterChunk, len(dst)))
	off, done := 0, 0
	for done < len(dst) {
		n, err := io.ReadFull(r, scratch[:min(len(scratch), len(dst)-done)])
		chunk := scratch[:n-n%size]
		if h.bigEndian {
			swapBytes(chunk, size)
		}
		for p := 0; p < len(chunk); p += size {
			copy(dst[off:off+size], chunk[p:p+size])
			for ax := range shape {
				idx[ax]++
				off += cstride[ax]
				if idx[ax] < shape[ax] {
					break
				}
				off -= idx[ax] * cstride[ax]
				idx[ax] = 0
			}
		}
		done += n
		if err != nil {
			return ioErr(op, err, "truncated data: shape %v %v needs %d bytes, the input has %d", h.shape, h.dt, len(dst), done)
		}
	}
	return checkBool(op, h.dt, dst)
}

// checkBool reports a Bool array whose bytes are not all 0 or 1.
func checkBool(op string, dt dtype.DType, data []byte) error {
	if dt == dtype.Bool {
		if i := badBool(data); i >= 0 {
			return errs.New("npy", op, errs.ErrValue, "bool element %d is 0x%02x, want 0 or 1", i, data[i])
		}
	}
	return nil
}

// badBool returns the index of the first byte of data that is neither 0 nor
// 1, or -1.
func badBool(data []byte) int {
	for i, b := range data {
		if b > 1 {
			return i
		}
	}
	return -1
}

// ioErr turns a read failure into an error: running out of input is an
// ErrValue (the file is truncated); any other failure is returned as the
// cause with no kind, since the file itself may be fine.
func ioErr(op string, err error, format string, args ...any) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errs.Wrap("npy", op, errs.ErrValue, io.ErrUnexpectedEOF, format, args...)
	}
	return errs.Wrap("npy", op, nil, err, "read")
}

// readChunk is the most readData allocates ahead of the bytes it has
// actually received.
const readChunk = 1 << 20

// readData reads exactly n bytes. The buffer grows with the bytes that
// arrive, never more than readChunk or double what has arrived, so a header
// claiming terabytes over a short input costs almost nothing. On failure it
// returns what it read.
func readData(r io.Reader, n int64) ([]byte, error) {
	buf := make([]byte, 0, min(n, readChunk))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			grow := min(n-int64(len(buf)), max(int64(len(buf)), readChunk))
			nb := make([]byte, len(buf), int64(len(buf))+grow)
			copy(nb, buf)
			buf = nb
		}
		m, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// swapBytes reverses the bytes of each size-byte element of data in place.
func swapBytes(data []byte, size int) {
	switch size {
	case 2:
		for i := 0; i+1 < len(data); i += 2 {
			data[i], data[i+1] = data[i+1], data[i]
		}
	case 4:
		for i := 0; i+3 < len(data); i += 4 {
			binary.LittleEndian.PutUint32(data[i:], binary.BigEndian.Uint32(data[i:]))
		}
	case 8:
		for i := 0; i+7 < len(data); i += 8 {
			binary.LittleEndian.PutUint64(data[i:], binary.BigEndian.Uint64(data[i:]))
		}
	}
}

// fortranToC reorders Fortran-order (first axis fastest) elements into C
// order. It walks the destination in C order with an odometer over the
// index, keeping the source offset in step.
func fortranToC(src []byte, shape []int, size int) []byte {
	rank := len(shape)
	fstride := make([]int, rank) // Fortran strides, in elements
	acc := 1
	for i, d := range shape {
		fstride[i] = acc
		acc *= d
	}
	dst := make([]byte, len(src))
	idx := make([]int, rank)
	last := rank - 1
	inner, innerStride := shape[last], fstride[last]*size
	so := 0 // source byte offset of idx with idx[last] = 0
	for do := 0; do < len(dst); {
		s := so
		for j := 0; j < inner; j++ {
			copy(dst[do:do+size], src[s:s+size])
			do += size
			s += innerStride
		}
		// Advance the odometer over the outer axes.
		for ax := last - 1; ax >= 0; ax-- {
			idx[ax]++
			so += fstride[ax] * size
			if idx[ax] < shape[ax] {
				break
			}
			so -= idx[ax] * fstride[ax] * size
			idx[ax] = 0
		}
	}
	return dst
}

// check validates a for Write and returns its element count.
func (a *Array) check(op string) (int, error) {
	if a == nil {
		return 0, errs.New("npy", op, errs.ErrValue, "nil Array")
	}
	if !a.DType.Valid() {
		return 0, errs.New("npy", op, errs.ErrDType, "invalid dtype %v", a.DType)
	}
	if len(a.Shape) > MaxRank {
		return 0, errs.New("npy", op, errs.ErrShape, "shape has %d axes, more than %d", len(a.Shape), MaxRank)
	}
	numel, err := layout.Numel(a.Shape)
	if err != nil {
		return 0, errs.Retag("npy", op, err)
	}
	if want := int64(numel) * int64(a.DType.Size()); int64(len(a.Data)) != want {
		return 0, errs.New("npy", op, errs.ErrValue, "data has %d bytes, shape %v %v needs %d", len(a.Data), a.Shape, a.DType, want)
	}
	return numel, nil
}

// Write encodes a as a .npy file: format version 1.0 (2.0 if the header
// would not fit), C order, little-endian, byte for byte what np.save writes.
// It refuses an Array whose Data length does not match its shape and dtype
// (ErrValue), whose Bool bytes are not 0 or 1 (ErrValue), or whose dtype has
// no .npy code, which is the case of BF16 (ErrDType).
func Write(w io.Writer, a *Array) error {
	hdr, err := a.header("Write")
	if err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return errs.Wrap("npy", "Write", nil, err, "write header")
	}
	if _, err := w.Write(a.Data); err != nil {
		return errs.Wrap("npy", "Write", nil, err, "write data")
	}
	return nil
}

// header validates a and returns the bytes of its .npy preamble and header.
func (a *Array) header(op string) ([]byte, error) {
	if _, err := a.check(op); err != nil {
		return nil, err
	}
	descr, ok := descrOf(a.DType)
	if !ok {
		return nil, errs.New("npy", op, errs.ErrDType, "%v has no .npy type code", a.DType)
	}
	if a.DType == dtype.Bool {
		if i := badBool(a.Data); i >= 0 {
			return nil, errs.New("npy", op, errs.ErrValue, "bool element %d is 0x%02x, want 0 or 1", i, a.Data[i])
		}
	}
	h := formatHeader(descr, a.Shape)
	// Pad with spaces and a final newline so the data starts at a multiple
	// of 64 bytes, as NumPy does (a full 64 when already aligned).
	const align = 64
	hlen := len(h) + 1
	prefix := 10
	pad := align - (prefix+hlen)%align
	if hlen+pad > 0xffff {
		prefix = 12
		pad = align - (prefix+hlen)%align
	}
	buf := make([]byte, 0, prefix+hlen+pad)
	buf = append(buf, magic...)
	if prefix == 10 {
		buf = append(buf, 1, 0)
		buf = binary.LittleEndian.AppendUint16(buf, uint16(hlen+pad))
	} else {
		buf = append(buf, 2, 0)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(hlen+pad))
	}
	buf = append(buf, h...)
	buf = append(buf, bytes.Repeat([]byte{' '}, pad)...)
	return append(buf, '\n'), nil
}

// WriteFile writes a to a new .npy file at path (see Write), replacing any
// file there. Nothing is created when a is invalid.
func WriteFile(path string, a *Array) error {
	hdr, err := a.header("WriteFile")
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return errs.Wrap("npy", "WriteFile", nil, err, "create")
	}
	_, err = f.Write(hdr)
	if err == nil {
		_, err = f.Write(a.Data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errs.Wrap("npy", "WriteFile", nil, err, "write")
	}
	return nil
}
