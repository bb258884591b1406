package device

// AdamCoeffs are the scalars of one Adam update step t, as float64: the
// decay rates B1 and B2, Eps, SqrtBC2 = sqrt(1 - B2^t) and Step =
// lr/(1 - B1^t). A backend rounds each (and 1-B1, 1-B2, computed in
// float64) to the operands' dtype, as the scalar operations of the
// update's expression do.
type AdamCoeffs struct {
	B1, B2, Eps, SqrtBC2, Step float64
}

// AdamStepper is implemented by backends with a one-pass kernel for
// Adam's update (the optimiser's hot loop, which as a fused expression is
// a dozen operations per element). AdamStep reads ins (the value, the
// gradient, the first and the second moment) and writes dsts (the new
// value, first and second moment):
//
//	m' = m*B1 + g*(1-B1)
//	v' = v*B2 + (g*g)*(1-B2)
//	w' = w - (m' / (sqrt(v')/SqrtBC2 + Eps)) * Step
//
// each operation rounded to the dtype in this order, so the result equals
// the expression's. All operands have one shape and dtype; dsts alias no
// input, except that dsts[1] may be the very operand ins[2] (m) and
// dsts[2] the very operand ins[3] (v), for an update in place. It returns ok false, having written nothing, for
// operands it has no kernel for (a dtype, a layout), and the caller
// computes the expression instead.
type AdamStepper interface {
	AdamStep(dsts [3]Operand, ins [4]Operand, c AdamCoeffs) (ok bool, err error)
}
