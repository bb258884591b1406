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
