package tensor

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// SetFusion turns the recording of elementwise chains on or off for a test
// (as TESSERA_FUSION does at start-up) and returns a function restoring the
// previous setting.
func SetFusion(on bool) (restore func()) {
	old := fusionOn.Swap(on)
	return func() { fusionOn.Store(old) }
}

// IsPending reports whether t is a recorded elementwise result not yet
// computed.
func IsPending(t *Tensor) bool { return t.isLazy() && !t.lz.done.Load() }

// SetMemoryLimit sets the device memory budget (TESSERA_MEMORY_LIMIT) for a
// test and returns a function restoring the previous one.
func SetMemoryLimit(bytes int64) (restore func()) {
	old := memoryLimit.Swap(bytes)
	return func() { memoryLimit.Store(old) }
}

// ParseMemoryLimit exposes the TESSERA_MEMORY_LIMIT parser to tests.
var ParseMemoryLimit = parseMemoryLimit

// BinaryTensors applies a binary operation to two tensors, for the
// operations whose public method takes a scalar parameter only
// (LeakyRelu, Elu): their gradient with respect to the parameter is
// checked through it.
func BinaryTensors(op device.BinaryOp, a, b *Tensor) *Tensor { return binary(op, a, b) }

// SharesStorage reports whether a and b are views of the same storage.
func SharesStorage(a, b *Tensor) bool { return a.st != nil && a.st == b.st }

// The composite LayerNorm, RMSNorm and attention, which the fused kernels
// are tested and benchmarked against.
var (
	LayerNormComposite = layerNormComposite
	RMSNormComposite   = rmsNormComposite
)

// SDPAComposite is ScaledDotProductAttention through the composite path
// (scale resolved: 0 is not the default here).
func SDPAComposite(q, k, v, mask *Tensor, scale float64, causal bool) *Tensor {
	L, S := q.Shape()[q.Rank()-2], k.Shape()[k.Rank()-2]
	return sdpaComposite(q, k, v, mask, L, S, scale, causal)
}

// NormKernel runs the backend's fused normalisation on x [rows, n] with
// weight and bias [n] (nil for none) and returns the result and the
// per-row statistics (mean, rstd) it saved for the gradient.
func NormKernel(op device.NormOp, x, w, b *Tensor, eps float64) (y, stats *Tensor) {
	be, ok := x.Device().Backend().(device.Normer)
	if !ok {
		e := fail(op.String(), ErrUnsupported, "no Normer on %s", x.Device().Name())
		return e, e
	}
	return normRun(be, op, x, w, b, eps)
}

// NormGradKernel runs the backend's fused Norm gradient on g and x
// [rows, n] with the statistics Norm saved and its weight (nil for
// none), returning dx, dweight and dbias [n] (nil where not wanted).
func NormGradKernel(op device.NormOp, g, x, stats, w *Tensor, want [3]bool) ([]*Tensor, error) {
	be, ok := x.Device().Backend().(device.NormBackwarder)
	if !ok {
		return nil, errs.New("tensor", op.String(), ErrUnsupported, "no NormBackwarder on %s", x.Device().Name())
	}
	return normGradFused(be, op == device.LayerNorm, g, x, stats, w, want, x.Shape(), x.Shape()[1:])
}

// AttentionKernel runs attention through the backend's fused kernel
// (device.Attender, with Force) only, failing with ErrUnsupported where the backend
// has none or declines, so tests can tell the kernel from the fallback.
func AttentionKernel(q, k, v, mask *Tensor, scale float64, causal bool) *Tensor {
	at, ok := q.Device().Backend().(device.Attender)
	if !ok {
		return fail("Attention", ErrUnsupported, "no Attender on %s", q.Device().Name())
	}
	batch, err := layout.BroadcastShapes(q.Shape()[:q.Rank()-2], k.Shape()[:k.Rank()-2], v.Shape()[:v.Rank()-2])
	if err != nil {
		return failed(err)
	}
	if y := attentionFused(at, q, k, v, mask, batch, scale, causal, true); y != nil {
		return y
	}
	return fail("Attention", ErrUnsupported, "declined by %s", q.Device().Name())
}
