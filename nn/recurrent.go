package nn

import (
	"math"
	"strconv"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

var (
	_ Module = (*LSTM)(nil)
	_ Module = (*GRU)(nil)
)

// recurrent holds what LSTM and GRU share: the stacked layers' weights
// with PyTorch's names (weight_ih_l0 [G·H, in], weight_hh_l0 [G·H, H],
// bias_ih_l0, bias_hh_l0, …, G gates a cell), their shapes and the input
// layout.
type recurrent struct {
	name       string
	gates      int
	Input      int
	Hidden     int
	BatchFirst bool
	WeightIH   []*Parameter // one a layer
	WeightHH   []*Parameter
	BiasIH     []*Parameter // nil entries with NoBias
	BiasHH     []*Parameter
	err        error
}

func newRecurrent(name string, gates, input, hidden, layers int, opts []Option) recurrent {
	c, err := newConfig(name, opts)
	if err == nil && (input <= 0 || hidden <= 0 || layers <= 0) {
		err = errs.New("nn", name, errs.ErrShape, "input size %d, hidden size %d and %d layers must be positive", input, hidden, layers)
	}
	r := recurrent{name: name, gates: gates, Input: input, Hidden: hidden, BatchFirst: c.batchFirst, err: err}
	h := max(hidden, 1)
	bound := 1 / math.Sqrt(float64(h))
	for l := range max(layers, 1) {
		in := max(input, 1)
		if l > 0 {
			in = h
		}
		sfx := "_l" + strconv.Itoa(l)
		draw := func(k uint64, shape ...int) *tensor.Tensor {
			if err != nil {
				return nil
			}
			return Uniform(c.dt, subSeed(c.seed, uint64(4*l)+k), -bound, bound, shape...)
		}
		r.WeightIH = append(r.WeightIH, newParam("weight_ih"+sfx, draw(0, gates*h, in), err))
		r.WeightHH = append(r.WeightHH, newParam("weight_hh"+sfx, draw(1, gates*h, h), err))
		if c.bias {
			r.BiasIH = append(r.BiasIH, newParam("bias_ih"+sfx, draw(2, gates*h), err))
			r.BiasHH = append(r.BiasHH, newParam("bias_hh"+sfx, draw(3, gates*h), err))
		} else {
			r.BiasIH, r.BiasHH = append(r.BiasIH, nil), append(r.BiasHH, nil)
		}
	}
	return r
}

// Parameters lists PyTorch's order: weight_ih_l0, weight_hh_l0,
// bias_ih_l0, bias_hh_l0, then the next layer's.
func (r *recurrent) Parameters() []*Parameter {
	var ps []*Parameter
	for l := range r.WeightIH {
		ps = append(ps, params(r.WeightIH[l], r.WeightHH[l], r.BiasIH[l], r.BiasHH[l])...)
	}
	return ps
}

// sequence checks x and returns it as [T, N, in] and whether it was
// unbatched [T, in].
func (r *recurrent) sequence(x *tensor.Tensor) (*tensor.Tensor, bool, error) {
	if r.err != nil {
		return nil, false, r.err
	}
	if len(r.WeightIH) == 0 {
		return nil, false, errs.New("nn", r.name, errs.ErrValue, "no layers (build it with New%s)", r.name)
	}
	if err := x.Err(); err != nil {
		return nil, false, err
	}
	s := x.Shape()
	switch {
	case len(s) == 2 && s[1] == r.Input:
		return x.Unsqueeze(1), true, nil
	case len(s) == 3 && s[2] == r.Input:
		if r.BatchFirst {
			x = x.Transpose(0, 1)
		}
		return x, false, nil
	}
	return nil, false, errs.New("nn", r.name, errs.ErrShape, "input %v must be [T, N, %d] (batch first: [N, T, %d]) or [T, %d]", s, r.Input, r.Input, r.Input)
}

// state checks an initial state [layers, N, H] (nil: zeros) and returns
// its per-layer [N, H] slices.
func (r *recurrent) state(what string, s *tensor.Tensor, x *tensor.Tensor, unbatched bool) ([]*tensor.Tensor, error) {
	layers, n := len(r.WeightIH), x.Shape()[1]
	out := make([]*tensor.Tensor, layers)
	if s == nil {
		z := tensor.Zeros(x.DType(), n, r.Hidden).To(x.Device())
		for l := range out {
			out[l] = z
		}
		return out, nil
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if unbatched {
		s = s.Unsqueeze(1)
	}
	if sh := s.Shape(); len(sh) != 3 || sh[0] != layers || sh[1] != n || sh[2] != r.Hidden {
		return nil, errs.New("nn", r.name, errs.ErrShape, "%s %v must be [%d, %d, %d]", what, s.Shape(), layers, n, r.Hidden)
	}
	for l := range out {
		out[l] = s.Narrow(0, l, 1).Squeeze(0)
	}
	return out, nil
}

// run feeds x [T, N, in] through the layers with the given cell, which
// maps a step's input projection and the previous state to the new one
// (h first); it returns the last layer's h at every step and each layer's
// final state.
func (r *recurrent) run(x *tensor.Tensor, states [][]*tensor.Tensor, cell func(l int, xw, h *tensor.Tensor, st []*tensor.Tensor) []*tensor.Tensor) (*tensor.Tensor, [][]*tensor.Tensor) {
	t, n := x.Shape()[0], x.Shape()[1]
	seq := x
	final := make([][]*tensor.Tensor, len(states))
	for l := range r.WeightIH {
		// The input projections of every step in one product.
		xw := seq.Reshape(t*n, seq.Shape()[2]).Matmul(r.WeightIH[l].Value.Transpose(0, 1))
		if b := r.BiasIH[l]; b != nil {
			xw = xw.Add(b.Value)
		}
		xw = xw.Reshape(t, n, r.gates*r.Hidden)
		st := states[l]
		hs := make([]*tensor.Tensor, t)
		for i := range t {
			st = cell(l, xw.Narrow(0, i, 1).Squeeze(0), st[0], st)
			hs[i] = st[0]
		}
		final[l] = st
		if t == 0 {
			seq = tensor.Zeros(x.DType(), 0, n, r.Hidden).To(x.Device())
			continue
		}
		seq = tensor.Stack(hs, 0)
	}
	return seq, final
}

// hiddenProjection is h·W_hhᵀ + b_hh of layer l.
func (r *recurrent) hiddenProjection(l int, h *tensor.Tensor) *tensor.Tensor {
	hw := h.Matmul(r.WeightHH[l].Value.Transpose(0, 1))
	if b := r.BiasHH[l]; b != nil {
		hw = hw.Add(b.Value)
	}
	return hw
}

// output lays the result out as the input was: batch first or unbatched.
func (r *recurrent) output(y *tensor.Tensor, unbatched bool) *tensor.Tensor {
	switch {
	case unbatched:
		return y.Squeeze(1)
	case r.BatchFirst:
		return y.Transpose(0, 1)
	}
	return y
}

// stacked joins per-layer states into [layers, N, H] ([layers, H]
// unbatched).
func stacked(states [][]*tensor.Tensor, k int, unbatched bool) *tensor.Tensor {
	parts := make([]*tensor.Tensor, len(states))
	for l, st := range states {
		parts[l] = st[k]
	}
	s := tensor.Stack(parts, 0)
	if unbatched {
		s = s.Squeeze(1)
	}
	return s
}

// LSTM is PyTorch's nn.LSTM (unidirectional, no dropout between layers, no
// projection): for each step, with the four gates of one product,
//
//	i, f, g, o = σ, σ, tanh, σ of x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh
//	c' = f·c + i·g,  h' = o·tanh(c')
//
// layer by layer. Weights have PyTorch's names and shapes (weight_ih_l0
// [4H, in], …) and initialisation (uniform in ±1/√H), so its checkpoints
// load. Inputs are [T, N, in] (PyTorch's default), [N, T, in] with the
// BatchFirst option, or unbatched [T, in]; it is composed of tensor
// operations, so it runs on every device and trains through Backward.
type LSTM struct{ recurrent }

// NewLSTM returns an LSTM of the given sizes and number of stacked layers.
// Options: Seed, DType, NoBias, BatchFirst.
func NewLSTM(input, hidden, layers int, opts ...Option) *LSTM {
	return &LSTM{newRecurrent("LSTM", 4, input, hidden, layers, opts)}
}

// Forward returns the last layer's hidden state at every step, from zero
// initial states.
func (m *LSTM) Forward(x *tensor.Tensor) *tensor.Tensor {
	y, _, _ := m.Run(x, nil, nil)
	return y
}

// Run returns the output (the last layer's h at every step) and the final
// h and c of every layer ([layers, N, H]), from the initial states h0 and
// c0 ([layers, N, H]; nil for zeros), as PyTorch's (output, (h_n, c_n)).
func (m *LSTM) Run(x, h0, c0 *tensor.Tensor) (y, hn, cn *tensor.Tensor) {
	seq, unbatched, err := m.sequence(x)
	if err != nil {
		f := tensor.Failed(err)
		return f, f, f
	}
	hs, err := m.state("h0", h0, seq, unbatched)
	if err == nil {
		var cs []*tensor.Tensor
		if cs, err = m.state("c0", c0, seq, unbatched); err == nil {
			states := make([][]*tensor.Tensor, len(hs))
			for l := range states {
				states[l] = []*tensor.Tensor{hs[l], cs[l]}
			}
			hsz := m.Hidden
			out, final := m.run(seq, states, func(l int, xw, h *tensor.Tensor, st []*tensor.Tensor) []*tensor.Tensor {
				z := xw.Add(m.hiddenProjection(l, h))
				gate := func(k int) *tensor.Tensor { return z.Narrow(1, k*hsz, hsz) }
				i, f, g, o := gate(0).Sigmoid(), gate(1).Sigmoid(), gate(2).Tanh(), gate(3).Sigmoid()
				c := f.Mul(st[1]).Add(i.Mul(g))
				return []*tensor.Tensor{o.Mul(c.Tanh()), c}
			})
			return m.output(out, unbatched), stacked(final, 0, unbatched), stacked(final, 1, unbatched)
		}
	}
	f := tensor.Failed(err)
	return f, f, f
}

// GRU is PyTorch's nn.GRU (unidirectional, no dropout between layers):
// for each step, with the gates r, z, n in PyTorch's order,
//
//	r, z = σ of (x·W_irᵀ + b_ir + h·W_hrᵀ + b_hr), (… z …)
//	n = tanh(x·W_inᵀ + b_in + r·(h·W_hnᵀ + b_hn))
//	h' = (1 - z)·n + z·h
//
// layer by layer, with PyTorch's names, shapes ([3H, in], …),
// initialisation and input layouts (see LSTM).
type GRU struct{ recurrent }

// NewGRU returns a GRU of the given sizes and number of stacked layers.
// Options: Seed, DType, NoBias, BatchFirst.
func NewGRU(input, hidden, layers int, opts ...Option) *GRU {
	return &GRU{newRecurrent("GRU", 3, input, hidden, layers, opts)}
}

// Forward returns the last layer's hidden state at every step, from a
// zero initial state.
func (m *GRU) Forward(x *tensor.Tensor) *tensor.Tensor {
	y, _ := m.Run(x, nil)
	return y
}

// Run returns the output and the final h of every layer ([layers, N, H]),
// from h0 ([layers, N, H]; nil for zeros), as PyTorch's (output, h_n).
func (m *GRU) Run(x, h0 *tensor.Tensor) (y, hn *tensor.Tensor) {
	seq, unbatched, err := m.sequence(x)
	if err != nil {
		f := tensor.Failed(err)
		return f, f
	}
	hs, err := m.state("h0", h0, seq, unbatched)
	if err != nil {
		f := tensor.Failed(err)
		return f, f
	}
	states := make([][]*tensor.Tensor, len(hs))
	for l := range states {
		states[l] = []*tensor.Tensor{hs[l]}
	}
	hsz := m.Hidden
	out, final := m.run(seq, states, func(l int, xw, h *tensor.Tensor, _ []*tensor.Tensor) []*tensor.Tensor {
		hw := m.hiddenProjection(l, h)
		part := func(t *tensor.Tensor, k int) *tensor.Tensor { return t.Narrow(1, k*hsz, hsz) }
		r := part(xw, 0).Add(part(hw, 0)).Sigmoid()
		z := part(xw, 1).Add(part(hw, 1)).Sigmoid()
		n := part(xw, 2).Add(r.Mul(part(hw, 2))).Tanh()
		return []*tensor.Tensor{z.Neg().AddScalar(1).Mul(n).Add(z.Mul(h))}
	})
	return m.output(out, unbatched), stacked(final, 0, unbatched)
}
