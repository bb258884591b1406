package nn

import "github.com/tessera-go/tessera/tensor"

// Activations: parameter-free modules applying one elementwise function,
// as PyTorch's modules of the same names. Their zero values are ready to
// use: nn.ReLU{}.

var (
	_ Module = ReLU{}
	_ Module = GELU{}
	_ Module = SiLU{}
	_ Module = Tanh{}
	_ Module = Sigmoid{}
	_ Module = LeakyReLU{}
	_ Module = ELU{}
	_ Module = Softplus{}
	_ Module = Mish{}
	_ Module = Hardswish{}
	_ Module = Softmax{}
	_ Module = LogSoftmax{}
	_ Module = Identity{}
)

// ReLU is max(x, 0).
type ReLU struct{}

// Forward applies max(x, 0).
func (ReLU) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Relu() }

// Parameters is empty.
func (ReLU) Parameters() []*Parameter { return nil }

// GELU is x·Φ(x) with Φ the standard normal distribution function, in its
// exact erf form (PyTorch's default approximate='none'), or with
// Approximate in the tanh form (approximate='tanh') that GPT-2 used.
type GELU struct {
	Approximate bool
}

// Forward applies x·(1+erf(x/√2))/2, or its tanh approximation.
func (g GELU) Forward(x *tensor.Tensor) *tensor.Tensor {
	if g.Approximate {
		return x.GeluTanh()
	}
	return x.Gelu()
}

// Parameters is empty.
func (GELU) Parameters() []*Parameter { return nil }

// SiLU is x·sigmoid(x) (also called swish).
type SiLU struct{}

// Forward applies x·sigmoid(x).
func (SiLU) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Silu() }

// Parameters is empty.
func (SiLU) Parameters() []*Parameter { return nil }

// Tanh is the hyperbolic tangent.
type Tanh struct{}

// Forward applies tanh(x).
func (Tanh) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Tanh() }

// Parameters is empty.
func (Tanh) Parameters() []*Parameter { return nil }

// Sigmoid is the logistic function 1/(1+exp(-x)).
type Sigmoid struct{}

// Forward applies 1/(1+exp(-x)).
func (Sigmoid) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Sigmoid() }

// Parameters is empty.
func (Sigmoid) Parameters() []*Parameter { return nil }

// LeakyReLU is x where x > 0, else Slope·x. A zero Slope means PyTorch's
// default negative_slope, 0.01 (ReLU is the module for slope 0).
type LeakyReLU struct {
	Slope float64
}

// Forward applies the leaky rectifier.
func (l LeakyReLU) Forward(x *tensor.Tensor) *tensor.Tensor {
	s := l.Slope
	if s == 0 {
		s = 0.01
	}
	return x.LeakyRelu(s)
}

// Parameters is empty.
func (LeakyReLU) Parameters() []*Parameter { return nil }

// ELU is x where x > 0, else Alpha·(exp(x) - 1). A zero Alpha means
// PyTorch's default, 1.
type ELU struct {
	Alpha float64
}

// Forward applies the exponential linear unit.
func (e ELU) Forward(x *tensor.Tensor) *tensor.Tensor {
	a := e.Alpha
	if a == 0 {
		a = 1
	}
	return x.Elu(a)
}

// Parameters is empty.
func (ELU) Parameters() []*Parameter { return nil }

// Softplus is log(1 + exp(x)) (PyTorch's with beta 1), computed without
// overflow.
type Softplus struct{}

// Forward applies softplus.
func (Softplus) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Softplus() }

// Parameters is empty.
func (Softplus) Parameters() []*Parameter { return nil }

// Mish is x·tanh(softplus(x)).
type Mish struct{}

// Forward applies x·tanh(softplus(x)).
func (Mish) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Mul(x.Softplus().Tanh()) }

// Parameters is empty.
func (Mish) Parameters() []*Parameter { return nil }

// Hardswish is x·relu6(x + 3)/6.
type Hardswish struct{}

// Forward applies x·relu6(x + 3)/6.
func (Hardswish) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Hardswish() }

// Parameters is empty.
func (Hardswish) Parameters() []*Parameter { return nil }

// Softmax normalises exp(x) over Axis to sum to one (PyTorch's nn.Softmax
// with dim Axis; the zero value takes axis 0).
type Softmax struct {
	Axis int
}

// Forward applies the softmax over Axis.
func (s Softmax) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Softmax(s.Axis) }

// Parameters is empty.
func (Softmax) Parameters() []*Parameter { return nil }

// LogSoftmax is the logarithm of Softmax over Axis, computed stably.
type LogSoftmax struct {
	Axis int
}

// Forward applies the log-softmax over Axis.
func (s LogSoftmax) Forward(x *tensor.Tensor) *tensor.Tensor { return x.LogSoftmax(s.Axis) }

// Parameters is empty.
func (LogSoftmax) Parameters() []*Parameter { return nil }

// Identity returns its input (PyTorch's nn.Identity, a placeholder).
type Identity struct{}

// Forward returns x.
func (Identity) Forward(x *tensor.Tensor) *tensor.Tensor { return x }

// Parameters is empty.
func (Identity) Parameters() []*Parameter { return nil }
