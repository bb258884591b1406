package gpucore

import (
	"slices"

	"github.com/tessera-go/tessera/errs"
)

// Planner turns validated operations into Plans for one device. It holds
// no state beyond its configuration, so one may be shared by goroutines.
type Planner struct {
	// Backend names the backend in errors ("webgpu").
	Backend string
	// Display names the backend in messages ("WebGPU").
	Display string
	Lim     Limits
	// MatmulVariant is the default matmul variant: "regblock", "shared" or
	// "naive".
	MatmulVariant string
	// Softmax row plans. A row of at most SoftmaxRowMax elements (whose
	// span fits one binding) is done by one workgroup in one dispatch;
	// longer rows take the multi-pass plan whose loops are bounded by
	// SoftmaxChunk and SoftmaxCombine. NewPlanner sets the defaults; tests
	// shrink them to exercise the long plan on small rows.
	SoftmaxRowMax, SoftmaxChunk, SoftmaxCombine int
}

// NewPlanner returns a planner with the default tunables.
func NewPlanner(backend, display string, lim Limits, matmul string) *Planner {
	return &Planner{
		Backend: backend, Display: display, Lim: lim, MatmulVariant: matmul,
		SoftmaxRowMax:  1 << 16,
		SoftmaxChunk:   redWG * 256,
		SoftmaxCombine: redWG * 64,
	}
}

func (p *Planner) errorf(op string, kind error, format string, args ...any) error {
	return errs.New(p.Backend, op, kind, format, args...)
}

// noAlias refuses a destination that shares its buffer with a source: one
// dispatch may not bind a buffer both writable and readable.
func (p *Planner) noAlias(op string, dst Operand, srcs ...Operand) error {
	for _, s := range srcs {
		if s.Buf == dst.Buf {
			return p.errorf(op, errs.ErrValue, "destination shares its buffer with a source; write to a fresh buffer")
		}
	}
	return nil
}

// sameShapes checks that every operand after the first has the first's
// shape; roles name them in the error.
func (p *Planner) sameShapes(op string, roles []string, ops ...Operand) error {
	for i := 1; i < len(ops); i++ {
		if !slices.Equal(ops[0].Shape, ops[i].Shape) {
			return p.errorf(op, errs.ErrShape, "%s and %s: shapes %v and %v differ", roles[0], roles[i], ops[0].Shape, ops[i].Shape)
		}
	}
	return nil
}
