package nn

import (
	"sync/atomic"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// Option configures a layer's constructor. Every option applies to every
// constructor; one a layer has no use for (Eps for Linear) is ignored.
type Option func(*config)

type config struct {
	seed       uint64
	seeded     bool
	dt         dtype.DType
	bias       bool
	eps        float64
	noAfine    bool
	batchFirst bool // MultiheadAttention's
	// BatchNorm's
	momentum   float64
	cumulative bool
	noStats    bool
}

// Seed makes a layer's initial values those of seed, so a model built with
// the same seeds is the same on every run and platform. Without it a layer
// takes the next value of a process-wide counter: reproducible for a
// program that builds its layers in a fixed order.
func Seed(seed uint64) Option { return func(c *config) { c.seed, c.seeded = seed, true } }

// DType sets the dtype of a layer's parameters (F32 by default; F64 for
// gradient checks and reference work).
func DType(dt dtype.DType) Option { return func(c *config) { c.dt = dt } }

// NoBias leaves out the additive bias of Linear, Conv2d and LayerNorm
// (PyTorch's bias=False).
func NoBias() Option { return func(c *config) { c.bias = false } }

// Eps sets the value LayerNorm and BatchNorm add to the variance (1e-5 by
// default).
func Eps(eps float64) Option { return func(c *config) { c.eps = eps } }

// NoAffine leaves out the learned scale and shift of LayerNorm (PyTorch's
// elementwise_affine=False) and BatchNorm (affine=False).
func NoAffine() Option { return func(c *config) { c.noAfine = true } }

// BatchFirst makes MultiheadAttention take and return [N, L, E] rather
// than PyTorch's default [L, N, E] (batch_first=True).
func BatchFirst() Option { return func(c *config) { c.batchFirst = true } }

// Momentum sets the weight BatchNorm gives each batch's statistics in its
// running ones (0.1 by default, as PyTorch's).
func Momentum(m float64) Option { return func(c *config) { c.momentum, c.cumulative = m, false } }

// CumulativeAverage makes BatchNorm's running statistics the plain average
// of every batch's (PyTorch's momentum=None): batch k weighs 1/k.
func CumulativeAverage() Option { return func(c *config) { c.cumulative = true } }

// NoRunningStats makes BatchNorm keep no running statistics and normalise
// by the batch's in evaluation mode too (PyTorch's
// track_running_stats=False).
func NoRunningStats() Option { return func(c *config) { c.noStats = true } }

// nextSeed hands out the seeds of layers built without Seed.
var nextSeed atomic.Uint64

func newConfig(op string, opts []Option) (config, error) {
	c := config{dt: dtype.F32, bias: true, eps: 1e-5, momentum: 0.1}
	for _, o := range opts {
		o(&c)
	}
	if !c.seeded {
		c.seed = nextSeed.Add(1) - 1
	}
	if !c.dt.IsFloat() {
		return c, errs.New("nn", op, errs.ErrDType, "parameters need a floating dtype, have %v", c.dt)
	}
	return c, nil
}

// subSeed derives the seed of a layer's i-th parameter from the layer's
// seed (SplitMix64's finaliser), so that a weight and a bias drawn from
// one layer seed are independent.
func subSeed(seed uint64, i uint64) uint64 {
	z := seed + (i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// fail returns a tensor carrying an nn error of kind.
func fail(op string, kind error, format string, args ...any) *tensor.Tensor {
	return tensor.Failed(errs.New("nn", op, kind, format, args...))
}

// valid reports whether x is a tensor whose shape and dtype can be checked:
// a failed, nil or zero tensor is passed on to the tensor operations, which
// report its own error.
func valid(x *tensor.Tensor) bool { return x != nil && x.DType().Valid() }
