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
		if def.Accepts&device.Floats == 0 || def.Predicate { // predicates yield Bool
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

// TestReduceGradRulesComplete: every reduction of the op table that
// returns values (not indices) has a gradient; one without fails here.
func TestReduceGradRulesComplete(t *testing.T) {
	for _, op := range device.ReduceOps() {
		def, _ := op.Def()
		if def.Accepts&device.Floats == 0 || op.IsArg() {
			continue
		}
		x := FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3).RequiresGrad()
		if _, err := Grads(x.reduce(op, false, []int{1}).Sum(), x); err != nil {
			t.Errorf("reduction %s: %v", op, err)
		}
	}
}
