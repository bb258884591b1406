// Package device defines what a compute device is to tessera: a Device
// identifies itself and owns a Backend, which allocates buffers and runs the
// few primitives every tensor operation is built from (copy/cast, fill,
// elementwise, reduce, matmul).
//
// The interface is shaped for a GPU: buffers are opaque handles, not Go
// slices; every operand carries its own layout so kernels read strided views
// in place; and work may run asynchronously until Sync or a Download.
//
// Backends register a Driver in their init function; Open, List and Default
// find devices through the registry. The tensor package links the CPU and
// WebGPU backends, so importing tensor is enough to use them.
package device

import (
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// Info describes a device for listing and selection.
type Info struct {
	Name     string        // the name Open accepts: "cpu", "webgpu", "webgpu:software"
	Type     string        // "cpu", "discrete-gpu", "integrated-gpu", "software", "virtual-gpu"
	Hardware bool          // a real accelerator; Default prefers these
	Backend  string        // the API underneath: "go", "vulkan", "metal", "dx12"
	Adapter  string        // the adapter or processor name
	Vendor   string        // vendor name or id
	Driver   string        // driver name and version
	DTypes   []dtype.DType // dtypes the device can hold, copy and cast
	// Compute lists the dtypes the device computes with (elementwise,
	// reduce, matmul); a dtype in DTypes but not here can only be stored,
	// moved and cast (a WebGPU device holds I64 for ArgMax results).
	Compute []dtype.DType
	Limits  []Limit // sizes that bound what one call can do
}

// Limit is one named device limit, such as the largest storage binding.
type Limit struct {
	Name  string
	Value uint64
}

// Device is an opened compute device. A Device is safe for concurrent use.
type Device interface {
	// Name is the name Open accepted, such as "cpu" or "webgpu:software".
	Name() string
	// Info describes the device.
	Info() Info
	// Backend runs the primitives.
	Backend() Backend
	// Close releases the device; later calls on its buffers fail with
	// ErrDeviceLost or ErrReleased. Closing twice is harmless.
	Close() error
}

// Buffer is device storage for a number of elements of one dtype. Its
// contents are reachable only through its Backend.
type Buffer interface {
	DType() dtype.DType
	Len() int // elements
}

// HostBuffer is a Buffer whose bytes live in Go memory (the CPU backend's).
// The transfer package uploads from and downloads into it without staging.
type HostBuffer interface {
	Buffer
	// Bytes is the buffer's storage, Len()*DType().Size() bytes.
	Bytes() []byte
}

// Operand is a buffer seen through a layout: the unit every kernel reads or
// writes. Positions in the layout are in elements of the buffer's dtype.
type Operand struct {
	Buf    Buffer
	Layout layout.Layout
}

// DType is the operand's element type.
func (o Operand) DType() dtype.DType { return o.Buf.DType() }

// Backend runs the primitives for one device. Destination operands are
// always freshly allocated by the caller and never alias a source; all
// operands of one call share a shape except where a method says otherwise
// (broadcasting is expressed in the layouts with stride 0). Implementations
// must be safe for concurrent use and must validate what they rely on:
// a bad call returns a typed error, never panics.
type Backend interface {
	// Alloc returns an uninitialised buffer of n elements.
	Alloc(dt dtype.DType, n int) (Buffer, error)
	// Free returns the buffer's memory once work that uses it completes.
	Free(b Buffer)
	// Upload copies len(src) bytes into buf starting at element off.
	Upload(buf Buffer, off int, src []byte) error
	// Download copies len(dst) bytes out of buf starting at element off,
	// after all work queued before it has finished.
	Download(dst []byte, buf Buffer, off int) error
	// Fill writes v, converted to the operand's dtype, to every element.
	Fill(dst Operand, v float64) error
	// Copy writes src into dst element by element, converting the dtype:
	// floats to integers truncate toward zero and saturate (NaN gives 0),
	// integers wrap, nonzero is true for Bool.
	Copy(dst, src Operand) error
	// Unary applies op elementwise.
	Unary(op UnaryOp, dst, src Operand) error
	// Binary applies op elementwise; dst is Bool for comparisons.
	Binary(op BinaryOp, dst, a, b Operand) error
	// Where picks a where cond (Bool) is true, else b.
	Where(dst, cond, a, b Operand) error
	// Reduce reduces src over axes (sorted, distinct, in range) into dst,
	// whose shape is src's with those axes removed. Arg reductions take one
	// axis and write I64 indices.
	Reduce(op ReduceOp, dst, src Operand, axes []int) error
	// Matmul multiplies a [..., m, k] by b [..., k, n] into dst [..., m, n];
	// a, b and dst have the same batch shape.
	Matmul(dst, a, b Operand) error
	// Sync waits for all queued work and reports the first asynchronous
	// error.
	Sync() error
	// MemoryInUse is the number of bytes held by live buffers.
	MemoryInUse() int64
}

// WideSummer is implemented by backends that sum a narrow integer operand
// straight into I64; the tensor package uses it for Bool, U8 and I32 sums
// when present and widens the source to I64 first otherwise (eight bytes
// written and read again for every element).
type WideSummer interface {
	// SumWide writes into dst (I64) the sum of src (Bool, U8 or I32) over
	// axes (sorted, distinct, in range), exact in 64 bits; of Bool it
	// counts the true (nonzero) elements. dst's shape is src's with those
	// axes removed.
	SumWide(dst, src Operand, axes []int) error
}

// Softmaxer is implemented by backends with a fused softmax; the tensor
// package uses it when present and composes softmax from reductions
// otherwise.
type Softmaxer interface {
	// Softmax writes softmax (or log-softmax when log is set) of src along
	// axis into dst.
	Softmax(dst, src Operand, axis int, log bool) error
}
