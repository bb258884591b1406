package gpucore

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

func contiguousOp(t *testing.T, p *Planner, dt dtype.DType, shape ...int) Operand {
	t.Helper()
	l, _ := layout.Contiguous(shape...)
	return operand(t, p, buffer(p, dt, max(l.Numel(), 1)), l)
}

// TestSortPlans: a row that fits a workgroup is one dispatch; longer rows
// take a block pass, log2(blocks) merge passes and an emitting pass, with
// two scratch buffers of (key, position) pairs.
func TestSortPlans(t *testing.T) {
	p := planner(bigLimits)
	for _, c := range []struct {
		n, steps int
	}{{1, 1}, {2048, 1}, {2049, 3}, {4096, 3}, {4097, 4}, {1 << 20, 11}} {
		src := contiguousOp(t, p, dtype.F32, 3, c.n)
		v := contiguousOp(t, p, dtype.F32, 3, c.n)
		ix := contiguousOp(t, p, dtype.I64, 3, c.n)
		pl, err := p.Sort("Sort", v, ix, src, 1, false)
		if err != nil {
			t.Fatalf("n=%d: %v", c.n, err)
		}
		if len(pl.Steps) != c.steps {
			t.Errorf("n=%d: %d dispatches, want %d", c.n, len(pl.Steps), c.steps)
		}
		if c.steps > 1 && len(pl.Scratch) != 2 {
			t.Errorf("n=%d: %d scratch buffers, want 2", c.n, len(pl.Scratch))
		}
	}
}

// TestIndexPlanRules: dtypes the kernels do not take are refused with
// ErrDType, and a float ScatterAdd picks the deterministic loop for short
// destination axes and the atomic kernel for long ones.
func TestIndexPlanRules(t *testing.T) {
	p := planner(bigLimits)
	st := contiguousOp(t, p, dtype.I32, 4)
	ix := contiguousOp(t, p, dtype.I64, 5, 2)
	h := contiguousOp(t, p, dtype.F16, 5, 2)
	if _, err := p.Gather("Gather", h, contiguousOp(t, p, dtype.F16, 6, 2), ix, st, 0); !errors.Is(err, errs.ErrDType) {
		t.Errorf("f16 Gather: %v, want ErrDType", err)
	}
	if _, err := p.Scan(0, contiguousOp(t, p, dtype.F16, 5, 2), h, 0); !errors.Is(err, errs.ErrDType) {
		t.Errorf("f16 Scan: %v, want ErrDType", err)
	}
	for _, c := range []struct {
		rows int
		mode string
	}{{8, "LOOP"}, {ScatterLoopMax, "LOOP"}, {ScatterLoopMax + 1, "ATOMIC"}} {
		d := contiguousOp(t, p, dtype.F32, c.rows, 2)
		pl, err := p.ScatterAdd("ScatterAdd", d, ix, contiguousOp(t, p, dtype.F32, 5, 2), st, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(pl.Steps) != 1 || pl.Steps[0].Kernel.Vars[c.mode] != "1" {
			t.Errorf("%d rows: kernel %v, want %s", c.rows, pl.Steps[0].Kernel.Vars, c.mode)
		}
	}
}
