package tensor

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// TestGradRulesComplete: every operation of the op table that accepts
// floats has a gradient rule (or, for a comparison, yields Bool and is
// not differentiable), so a new op without one fails here; the finite
// difference checks (TestGradUnaryOps, TestGradBinaryOps) range over the
// same table and fail for a wrong one.
func TestGradRulesComplete(t *testing.T) {
	for _, op := range device.UnaryOps() {
		def, _ := op.Def()
		if def.Accepts&device.Floats == 0 {
			continue
		}
		r, ok := unaryGrads[op]
		if !ok {
			t.Errorf("unary %s accepts floats but has no gradient rule in unaryGrads", op)
			continue
		}
		if !r.zero && r.f == nil {
			t.Errorf("unary %s: a rule neither zero nor with a function", op)
		}
	}
	for _, op := range device.BinaryOps() {
		def, _ := op.Def()
		if def.Accepts&device.Floats == 0 {
			continue
		}
		_, ok := binaryGrads[op]
		switch {
		case nonDifferentiable(op) && ok:
			t.Errorf("binary %s yields Bool but has a gradient rule", op)
		case !nonDifferentiable(op) && !ok:
			t.Errorf("binary %s accepts floats but has no gradient rule in binaryGrads", op)
		}
	}
}

// TestMissingGradRule: an operation recorded without a rule fails at
// Backward with ErrUnsupported, never with a silent zero.
func TestMissingGradRule(t *testing.T) {
	saved := unaryGrads[device.Exp]
	delete(unaryGrads, device.Exp)
	defer func() { unaryGrads[device.Exp] = saved }()
	x := Ones(dtype.F64, 2).RequiresGrad()
	if err := x.Exp().Sum().Backward(); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Backward through an op without a rule: %v, want ErrUnsupported", err)
	}
}
