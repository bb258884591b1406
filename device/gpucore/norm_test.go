package gpucore

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// TestNormPlan: rows that exceed the binding limit together are cut into
// dispatches that each bind windows within it and together cover every
// row once; the row count, length, eps and specialisation reach the
// kernel; rows too long for one workgroup's loops, or for one binding, are
// declined with ErrUnsupported (the tensor layer then composes the op).
func TestNormPlan(t *testing.T) {
	l := bigLimits
	l.MaxBinding = 1 << 20
	p := planner(l)
	const rows, n = 1000, 1024 // 4 MiB of f32
	x, y := buffer(p, dtype.F32, rows*n), buffer(p, dtype.F32, rows*n)
	st, w := buffer(p, dtype.F32, rows*2), buffer(p, dtype.F32, n)
	ow := operand(t, p, w, contig(n))
	pl, err := p.Norm("LayerNorm", device.LayerNorm, operand(t, p, y, contig(rows, n)), operand(t, p, st, contig(rows, 2)),
		operand(t, p, x, contig(rows, n)), &ow, nil, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Steps) < 4 {
		t.Fatalf("%d dispatches for 4 MiB of rows under a 1 MiB binding limit", len(pl.Steps))
	}
	covered := 0
	for _, s := range pl.Steps {
		prm := s.Params.(NormParams)
		if prm.Len != n || prm.Eps != 1e-5 || s.Kernel.Vars["CENTRED"] != "1" || s.Kernel.Vars["HAS_W"] != "1" || s.Kernel.Vars["HAS_B"] != "" {
			t.Fatalf("dispatch %+v with vars %v", prm, s.Kernel.Vars)
		}
		if s.Kernel.RW != 2 || s.Kernel.RO != 2 || len(s.Binds) != 4 {
			t.Fatalf("kernel RW %d RO %d with %d bindings, want 2, 2, 4", s.Kernel.RW, s.Kernel.RO, len(s.Binds))
		}
		for _, b := range s.Binds {
			if b.Size > l.MaxBinding {
				t.Fatalf("a binding of %d bytes over the %d limit", b.Size, l.MaxBinding)
			}
		}
		covered += int(prm.NRows)
	}
	if covered != rows {
		t.Fatalf("dispatches cover %d rows, want %d", covered, rows)
	}

	long := redWG*normLoopMax + 1
	xl, yl := buffer(p, dtype.F32, long), buffer(p, dtype.F32, long)
	_, err = p.Norm("RMSNorm", device.RMSNorm, operand(t, p, yl, contig(1, long)), operand(t, p, st, contig(1, 2)),
		operand(t, p, xl, contig(1, long)), nil, nil, 1e-5)
	if !errors.Is(err, errs.ErrUnsupported) {
		t.Fatalf("a row of %d elements: %v, want ErrUnsupported", long, err)
	}
	_, err = p.Norm("LayerNorm", device.LayerNorm, operand(t, p, y, contig(1, rows*n)), operand(t, p, st, contig(1, 2)),
		operand(t, p, x, contig(1, rows*n)), nil, nil, 1e-5)
	if !errors.Is(err, errs.ErrUnsupported) {
		t.Fatalf("a 4 MiB row under a 1 MiB binding: %v, want ErrUnsupported", err)
	}
	x64 := buffer(p, dtype.F64, 4)
	_, err = p.Norm("LayerNorm", device.LayerNorm, operand(t, p, buffer(p, dtype.F64, 4), contig(2, 2)), operand(t, p, buffer(p, dtype.F64, 4), contig(2, 2)),
		operand(t, p, x64, contig(2, 2)), nil, nil, 1e-5)
	if !errors.Is(err, errs.ErrDType) {
		t.Fatalf("f64: %v, want ErrDType", err)
	}
}
