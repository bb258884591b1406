package gpucore

import (
	"github.com/tessera-go/tessera/dtype"
)

// Buffer is the planner's view of a device buffer: an executor's buffer
// type implements it, and so does Scratch.
type Buffer interface {
	DType() dtype.DType
	Len() int
	// Bytes is the size of the device allocation (see Limits.AllocBytes).
	Bytes() uint64
}

// Scratch is a temporary buffer a plan needs: the executor allocates it
// before the plan's dispatches and frees it once they have run. It stands
// for that buffer in the plan's bindings.
type Scratch struct {
	Index int // position in Plan.Scratch
	DT    dtype.DType
	N     int
	size  uint64
}

// DType is the scratch buffer's element type.
func (s *Scratch) DType() dtype.DType { return s.DT }

// Len is its element count.
func (s *Scratch) Len() int { return s.N }

// Bytes is the size the executor must allocate (Limits.AllocBytes).
func (s *Scratch) Bytes() uint64 { return s.size }

// Binding is one storage binding of a dispatch: a byte window of a buffer.
type Binding struct {
	Buf       Buffer
	Off, Size uint64
	Write     bool // read-write (bindings list read-write ones first)
}

// Kernel names a kernel: a template of package shaders specialised by
// Vars, whose bind group has a uniform then RW read-write and RO read-only
// storage bindings. Dispatches of one plan share Kernel pointers, so an
// executor may resolve each once.
type Kernel struct {
	Template string
	Vars     map[string]string
	RW, RO   int
}

// Dispatch is one kernel launch.
type Dispatch struct {
	Kernel *Kernel
	Params any // a parameter block of params.go, packed by Pack
	Binds  []Binding
	Grid   [3]uint32
}

// Plan is the work of one operation: scratch buffers, then dispatches run
// in order.
type Plan struct {
	Scratch []*Scratch
	Steps   []Dispatch
}

// scratch adds a scratch buffer of n elements of dt to the plan.
func (p *Plan) scratch(l Limits, dt dtype.DType, n int) *Scratch {
	s := &Scratch{Index: len(p.Scratch), DT: dt, N: n, size: l.AllocBytes(dt, n)}
	p.Scratch = append(p.Scratch, s)
	return s
}

// whole binds all of b.
func whole(b Buffer, write bool) Binding {
	return Binding{Buf: b, Off: 0, Size: b.Bytes(), Write: write}
}
