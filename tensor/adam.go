package tensor

import (
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/layout"
)

// FusedAdam computes one Adam update of a parameter w with gradient g and
// moments m and v in one kernel of the device (device.AdamStepper), and
// returns the new value and moments:
//
//	nm = m*B1 + g*(1-B1)
//	nv = v*B2 + (g*g)*(1-B2)
//	nw = w - (nm / (sqrt(nv)/SqrtBC2 + Eps)) * Step
//
// every operation rounded to the dtype in this order, so that the results
// equal those of the same update written as tensor operations (which is
// how package optim states it, and what it runs where this reports ok
// false). The CPU's kernel makes one pass over the seven arrays where the
// expression's fused program makes a dozen over its blocks.
//
// m and v are the caller's to drop afterwards, as an optimiser replaces
// its moments: where one of them is the only tensor on its storage
// (no view, no pending operation, no autograd graph reads it), the new
// moment is written over that storage instead of a fresh one, and m or v
// then reads the new values until dropped. Storage that anything else
// shares is never written.
//
// ok is false, and nothing is computed, when the device has no such
// kernel, or the operands do not all share a device, dtype and shape, or
// one of them is failed or released: the caller then writes the update
// as tensor operations, which report any error.
func FusedAdam(w, g, m, v *Tensor, c device.AdamCoeffs) (nw, nm, nv *Tensor, ok bool) {
	const op = "FusedAdam"
	ins := []*Tensor{w, g, m, v}
	for _, x := range ins {
		if x.checkOperand(op) != nil {
			return nil, nil, nil, false
		}
	}
	dev, dt, shape := w.Device(), w.DType(), w.Shape()
	for _, x := range ins[1:] {
		if x.Device() != dev || x.DType() != dt || !slices.Equal(x.Shape(), shape) {
			return nil, nil, nil, false
		}
	}
	ks, has := dev.Backend().(device.AdamStepper)
	if !has {
		return nil, nil, nil, false
	}
	for _, x := range ins {
		if x.check(op) != nil {
			return nil, nil, nil, false
		}
	}
	var srcs [4]device.Operand
	for i, x := range ins {
		if !x.st.acquire() {
			for _, done := range ins[:i] {
				done.st.release()
			}
			return nil, nil, nil, false
		}
		srcs[i] = x.operand()
	}
	defer func() {
		for _, x := range ins {
			x.st.release()
		}
	}()
	l, err := layout.Contiguous(shape...)
	if err != nil {
		return nil, nil, nil, false
	}
	var sts [3]*storage
	var dsts [3]device.Operand
	var lays [3]layout.Layout
	release := func() {
		for _, st := range sts {
			if st != nil {
				st.release()
			}
		}
	}
	for k := range sts {
		if x := ins[k+1]; k > 0 && x.soleOwner() && x.st.acquire() {
			// The moment's storage is referenced by x alone (and by this
			// call): nothing else can see it change, and the caller
			// drops x, so the new moment is written over it.
			sts[k], dsts[k], lays[k] = x.st, x.operand(), x.lay
			continue
		}
		st, err := newStorage(op, dev, dt, l.Numel())
		if err != nil {
			release()
			return nil, nil, nil, false
		}
		sts[k], dsts[k], lays[k] = st, device.Operand{Buf: st.buf, Layout: l}, l
	}
	if done, err := ks.AdamStep(dsts, srcs, c); !done || err != nil {
		release()
		return nil, nil, nil, false
	}
	return wrap(sts[0], lays[0]), wrap(sts[1], lays[1]), wrap(sts[2], lays[2]), true
}

// soleOwner reports whether t, a computed tensor that no pending graph
// reads, holds its storage alone, with one reference taken by the caller
// (views, saved gradient values and graph inputs each hold another).
func (t *Tensor) soleOwner() bool {
	return !t.isLazy() && t.leaf.Load() == nil && t.st.refs.Load() == 2
}
