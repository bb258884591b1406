package nn

import (
	"math"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// Seeded initialisers, computed as PyTorch's torch.nn.init computes them.
// Each returns a new CPU tensor of dtype dt and the given shape whose values
// depend only on seed; a bad shape or dtype gives a failed tensor.

// FanMode picks which fan Kaiming initialisation preserves the variance of.
type FanMode int

const (
	// FanIn keeps the variance of the forward pass (PyTorch's default).
	FanIn FanMode = iota
	// FanOut keeps the variance of the backward pass.
	FanOut
)

// Fans returns the fan-in and fan-out of a weight of the given shape, as
// PyTorch computes them: shape[1] and shape[0] times the product of the
// remaining (receptive field) extents. A shape of fewer than two axes is an
// ErrShape error.
func Fans(shape ...int) (fanIn, fanOut int, err error) {
	if len(shape) < 2 {
		return 0, 0, errs.New("nn", "Fans", errs.ErrShape, "fans need a shape of at least two axes, have %v", shape)
	}
	receptive := 1
	for _, n := range shape[2:] {
		receptive *= n
	}
	return shape[1] * receptive, shape[0] * receptive, nil
}

// Uniform returns values uniform in [lo, hi).
func Uniform(dt dtype.DType, seed uint64, lo, hi float64, shape ...int) *tensor.Tensor {
	if !dt.IsFloat() {
		return fail("Uniform", errs.ErrDType, "needs a floating dtype, have %v", dt)
	}
	return tensor.Rand(dt, seed, shape...).MulScalar(hi - lo).AddScalar(lo)
}

// Normal returns values normal with mean 0 and standard deviation std.
func Normal(dt dtype.DType, seed uint64, std float64, shape ...int) *tensor.Tensor {
	if !dt.IsFloat() {
		return fail("Normal", errs.ErrDType, "needs a floating dtype, have %v", dt)
	}
	return tensor.RandN(dt, seed, shape...).MulScalar(std)
}

// kaimingStd is gain/sqrt(fan) with the leaky-ReLU gain sqrt(2/(1+a²)).
func kaimingStd(op string, a float64, mode FanMode, shape []int) (float64, error) {
	in, out, err := Fans(shape...)
	if err != nil {
		return 0, errs.Retag("nn", op, err)
	}
	fan := in
	if mode == FanOut {
		fan = out
	}
	if fan <= 0 {
		return 0, errs.New("nn", op, errs.ErrShape, "shape %v has no fan", shape)
	}
	return math.Sqrt(2/(1+a*a)) / math.Sqrt(float64(fan)), nil
}

// KaimingUniform is He initialisation (kaiming_uniform_): uniform in
// ±sqrt(3)·gain/sqrt(fan) with gain sqrt(2/(1+a²)), the gain of a leaky
// ReLU of negative slope a (a = 0 for ReLU).
func KaimingUniform(dt dtype.DType, seed uint64, a float64, mode FanMode, shape ...int) *tensor.Tensor {
	std, err := kaimingStd("KaimingUniform", a, mode, shape)
	if err != nil {
		return tensor.Failed(err)
	}
	b := math.Sqrt(3) * std
	return Uniform(dt, seed, -b, b, shape...)
}

// KaimingNormal is He initialisation (kaiming_normal_): normal with
// standard deviation gain/sqrt(fan), gain as for KaimingUniform.
func KaimingNormal(dt dtype.DType, seed uint64, a float64, mode FanMode, shape ...int) *tensor.Tensor {
	std, err := kaimingStd("KaimingNormal", a, mode, shape)
	if err != nil {
		return tensor.Failed(err)
	}
	return Normal(dt, seed, std, shape...)
}

// xavierStd is gain·sqrt(2/(fan_in+fan_out)).
func xavierStd(op string, gain float64, shape []int) (float64, error) {
	in, out, err := Fans(shape...)
	if err != nil {
		return 0, errs.Retag("nn", op, err)
	}
	if in+out <= 0 {
		return 0, errs.New("nn", op, errs.ErrShape, "shape %v has no fan", shape)
	}
	return gain * math.Sqrt(2/float64(in+out)), nil
}

// XavierUniform is Glorot initialisation (xavier_uniform_): uniform in
// ±gain·sqrt(6/(fan_in+fan_out)).
func XavierUniform(dt dtype.DType, seed uint64, gain float64, shape ...int) *tensor.Tensor {
	std, err := xavierStd("XavierUniform", gain, shape)
	if err != nil {
		return tensor.Failed(err)
	}
	b := math.Sqrt(3) * std
	return Uniform(dt, seed, -b, b, shape...)
}

// XavierNormal is Glorot initialisation (xavier_normal_): normal with
// standard deviation gain·sqrt(2/(fan_in+fan_out)).
func XavierNormal(dt dtype.DType, seed uint64, gain float64, shape ...int) *tensor.Tensor {
	std, err := xavierStd("XavierNormal", gain, shape)
	if err != nil {
		return tensor.Failed(err)
	}
	return Normal(dt, seed, std, shape...)
}

// defaultInit returns PyTorch's default parameters of Linear, Conv2d and
// ConvTranspose2d: the weight of shape kaiming_uniform_ with a = sqrt(5)
// (uniform in ±1/sqrt(fan_in), fan_in computed from shape as PyTorch does,
// which for a transposed convolution's [in, out/groups, KH, KW] weight is
// out/groups·KH·KW) and the bias [nb], when bias is set, uniform in
// ±1/sqrt(fan_in).
func defaultInit(c config, bias bool, nb int, shape ...int) (w, b *tensor.Tensor) {
	w = KaimingUniform(c.dt, subSeed(c.seed, 0), math.Sqrt(5), FanIn, shape...)
	if !bias {
		return w, nil
	}
	in, _, _ := Fans(shape...)
	bound := 0.0
	if in > 0 {
		bound = 1 / math.Sqrt(float64(in))
	}
	return w, Uniform(c.dt, subSeed(c.seed, 1), -bound, bound, nb)
}
