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

// TestAttentionPlan: one dispatch per batch element, a workgroup per query
// row, each element's positions in its own parameter block (a broadcast
// k is read at the same position by every element); the mask kind and
// causality select the specialisation; oversized work is declined.
func TestAttentionPlan(t *testing.T) {
	p := planner(bigLimits)
	const B, L, S, E = 3, 5, 7, 4
	q, v, y := buffer(p, dtype.F32, B*L*E), buffer(p, dtype.F32, B*S*E), buffer(p, dtype.F32, B*L*E)
	k := buffer(p, dtype.F32, S*E)
	kl := contig(1, S, E)
	kl.Shape[0], kl.Strides[0] = B, 0 // broadcast over the batch
	m := buffer(p, dtype.Bool, L*S)
	ml := contig(1, L, S)
	ml.Shape[0], ml.Strides[0] = B, 0
	om := operand(t, p, m, ml)
	pl, err := p.Attention("Attention", operand(t, p, y, contig(B, L, E)), operand(t, p, q, contig(B, L, E)),
		operand(t, p, k, kl), operand(t, p, v, contig(B, S, E)), &om, device.AttentionOptions{Scale: 0.5, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Steps) != B {
		t.Fatalf("%d dispatches, want %d", len(pl.Steps), B)
	}
	for b, s := range pl.Steps {
		prm := s.Params.(AttnParams)
		if prm.L != L || prm.S != S || prm.E != E || prm.Ev != E || prm.Scale != 0.5 || s.Grid[0] != L {
			t.Fatalf("dispatch %d: %+v grid %v", b, prm, s.Grid)
		}
		if prm.Off[0] != int32(b*L*E) || prm.Off[1] != 0 || prm.Off[2] != int32(b*S*E) || prm.Dst[0] != int32(b*L*E) {
			t.Fatalf("dispatch %d: positions %v dst %v", b, prm.Off, prm.Dst)
		}
		if s.Kernel.Vars["MASK_BOOL"] != "1" || s.Kernel.Vars["EXPLICIT"] != "1" || s.Kernel.RO != 4 || len(s.Binds) != 5 {
			t.Fatalf("dispatch %d: vars %v RO %d binds %d", b, s.Kernel.Vars, s.Kernel.RO, len(s.Binds))
		}
	}
	_, err = p.Attention("Attention", operand(t, p, y, contig(B, L, E)), operand(t, p, q, contig(B, L, E)),
		operand(t, p, k, kl), operand(t, p, v, contig(B, S, E)), nil, device.AttentionOptions{})
	if !errors.Is(err, errs.ErrUnsupported) {
		t.Fatalf("small scores without Force: %v, want ErrUnsupported (the composite is faster)", err)
	}
	l := bigLimits
	l.MaxBinding = 1 << 10
	small := planner(l)
	_, err = small.Attention("Attention", operand(t, small, y, contig(B, L, E)), operand(t, small, q, contig(B, L, E)),
		operand(t, small, buffer(small, dtype.F32, 1024), contig(1, 256, 4)), operand(t, small, buffer(small, dtype.F32, 1024), contig(1, 256, 4)), nil, device.AttentionOptions{Causal: true})
	if !errors.Is(err, errs.ErrShape) {
		t.Fatalf("mismatched batch: %v, want ErrShape", err)
	}
	kb := buffer(small, dtype.F32, 1024)
	_, err = small.Attention("Attention", operand(t, small, buffer(small, dtype.F32, 4), contig(1, 1, 4)), operand(t, small, buffer(small, dtype.F32, 4), contig(1, 1, 4)),
		operand(t, small, kb, contig(1, 256, 4)), operand(t, small, buffer(small, dtype.F32, 1024), contig(1, 256, 4)), nil, device.AttentionOptions{Causal: true, Force: true})
	if !errors.Is(err, errs.ErrUnsupported) {
		t.Fatalf("a 4 KiB k under a 1 KiB binding: %v, want ErrUnsupported", err)
	}
}
