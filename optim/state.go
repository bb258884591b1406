package optim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// Stateful is implemented by optimisers that can save their state and
// restore it, to resume training where it stopped. The state is a map of
// named tensors, so tensor.Save writes it as .safetensors or .npz.
//
// Keys follow PyTorch's state_dict: "lr" (a rank-0 f64 tensor), and per
// parameter, by its index i in Params: "i.momentum_buffer" (SGD), or
// "i.step" (rank-0 i64), "i.exp_avg", "i.exp_avg_sq" and, with AMSGrad,
// "i.max_exp_avg_sq" (Adam, AdamW). A parameter without state (no step
// taken yet) has no keys.
type Stateful interface {
	// StateDict returns the state. Its tensors are views of the
	// optimiser's own (immutable; later steps do not change them).
	StateDict() map[string]*tensor.Tensor
	// LoadStateDict replaces the state with sd, checked against the
	// parameters' current values: each state tensor must have its
	// parameter's shape, and is converted to its dtype and moved to its
	// device (a state saved on the CPU resumes on a GPU). Missing,
	// unknown or malformed entries are typed errors (ErrValue, ErrShape),
	// and then nothing changes.
	LoadStateDict(sd map[string]*tensor.Tensor) error
}

// stateKeys splits "i.name" keys per parameter index, checking every key
// is "lr" or one of names for an index in range.
func (b *base) stateKeys(sd map[string]*tensor.Tensor, names ...string) (map[int]map[string]*tensor.Tensor, error) {
	out := map[int]map[string]*tensor.Tensor{}
	for k, x := range sd {
		if k == "lr" {
			continue
		}
		idx, name, ok := strings.Cut(k, ".")
		i, err := strconv.Atoi(idx)
		if !ok || err != nil || i < 0 || i >= len(b.params) || !slices.Contains(names, name) {
			return nil, errs.New("optim", "LoadStateDict", errs.ErrValue, "%s: unknown state entry %q (want lr or i.name with i < %d, name in %v)", b.op, k, len(b.params), names)
		}
		if x == nil {
			return nil, errs.New("optim", "LoadStateDict", errs.ErrValue, "%s: state entry %q is nil", b.op, k)
		}
		if out[i] == nil {
			out[i] = map[string]*tensor.Tensor{}
		}
		out[i][name] = x
	}
	return out, nil
}

// loadLR reads the "lr" entry, which must be present.
func (b *base) loadLR(sd map[string]*tensor.Tensor) (float64, error) {
	x, ok := sd["lr"]
	if !ok || x == nil {
		return 0, errs.New("optim", "LoadStateDict", errs.ErrValue, "%s: the state has no lr", b.op)
	}
	lr, err := scalar(b.op, "lr", x)
	if err != nil {
		return 0, err
	}
	if err := checkRate(b.op, "learning rate", lr); err != nil {
		return 0, err
	}
	return lr, nil
}

func scalar(op, key string, x *tensor.Tensor) (float64, error) {
	if x.Numel() != 1 {
		return 0, errs.New("optim", "LoadStateDict", errs.ErrShape, "%s: state entry %q has shape %v, want a scalar", op, key, x.Shape())
	}
	v, err := x.Item()
	if err != nil {
		return 0, wrap("LoadStateDict", err, "%s: state entry %q", op, key)
	}
	return v, nil
}

// stateFor converts saved state x of parameter i to the parameter's value's
// dtype and device, after checking its shape.
func (b *base) stateFor(i int, key string, x *tensor.Tensor) (*tensor.Tensor, error) {
	p := b.params[i]
	v := p.Value
	if v == nil {
		return nil, errs.New("optim", "LoadStateDict", errs.ErrValue, "%s: parameter %q has no value", b.op, p.Name)
	}
	if err := v.Err(); err != nil {
		return nil, wrap("LoadStateDict", err, "%s: parameter %q", b.op, p.Name)
	}
	if !slices.Equal(x.Shape(), v.Shape()) {
		return nil, errs.New("optim", "LoadStateDict", errs.ErrShape, "%s: state entry %q has shape %v, parameter %q has %v", b.op, key, x.Shape(), p.Name, v.Shape())
	}
	y := x
	if y.DType() != v.DType() {
		y = y.To(device.CPU()).Cast(v.DType()) // the CPU converts between every dtype
	}
	y = y.To(v.Device()).Detach() // a tensor of the optimiser's own, whatever sd's holder does
	if err := y.Err(); err != nil {
		return nil, wrap("LoadStateDict", err, "%s: state entry %q", b.op, key)
	}
	return y, nil
}

func key(i int, name string) string { return fmt.Sprintf("%d.%s", i, name) }

// stepOf checks that parameter i's saved state st has every entry of need
// and returns its "step" count (an integer >= 1).
func (b *base) stepOf(i int, st map[string]*tensor.Tensor, need []string) (int, error) {
	for _, name := range need {
		if st[name] == nil {
			return 0, errs.New("optim", "LoadStateDict", errs.ErrValue, "%s: parameter %d's state has no %s", b.op, i, name)
		}
	}
	s, err := scalar(b.op, key(i, "step"), st["step"])
	if err != nil {
		return 0, err
	}
	if !(s >= 1 && s <= math.MaxInt32 && s == math.Trunc(s)) {
		return 0, errs.New("optim", "LoadStateDict", errs.ErrValue, "%s: state entry %q is %v, want a step count >= 1", b.op, key(i, "step"), s)
	}
	return int(s), nil
}

// view returns a view of x for a state dict (nil for nil).
func view(x *tensor.Tensor) *tensor.Tensor {
	if x == nil {
		return nil
	}
	return x.Detach()
}

// StateDict returns the learning rate and the momentum buffers (see
// Stateful).
func (o *SGD) StateDict() map[string]*tensor.Tensor {
	sd := map[string]*tensor.Tensor{"lr": tensor.Scalar(o.lr)}
	for i, b := range o.buf {
		if b != nil {
			sd[key(i, "momentum_buffer")] = view(b)
		}
	}
	return sd
}

// LoadStateDict restores a state saved by StateDict (see Stateful).
func (o *SGD) LoadStateDict(sd map[string]*tensor.Tensor) error {
	lr, err := o.loadLR(sd)
	if err != nil {
		return err
	}
	per, err := o.stateKeys(sd, "momentum_buffer")
	if err != nil {
		return err
	}
	buf := make([]*tensor.Tensor, len(o.params))
	for i, st := range per {
		if buf[i], err = o.stateFor(i, key(i, "momentum_buffer"), st["momentum_buffer"]); err != nil {
			return err
		}
	}
	o.lr, o.buf, o.own = lr, buf, make([]bool, len(buf))
	for i := range buf {
		o.own[i] = buf[i] != nil
	}
	return nil
}

// StateDict returns the learning rate, step counts and moments (see
// Stateful).
func (o *Adam) StateDict() map[string]*tensor.Tensor {
	sd := map[string]*tensor.Tensor{"lr": tensor.Scalar(o.lr)}
	for i := range o.params {
		if o.step[i] == 0 {
			continue
		}
		sd[key(i, "step")] = tensor.Scalar(int64(o.step[i]))
		sd[key(i, "exp_avg")] = view(o.m[i])
		sd[key(i, "exp_avg_sq")] = view(o.v[i])
		if o.vm[i] != nil {
			sd[key(i, "max_exp_avg_sq")] = view(o.vm[i])
		}
	}
	return sd
}

// LoadStateDict restores a state saved by StateDict (see Stateful). Each
// parameter with a step count needs both moments, and the running maximum
// when the optimiser uses AMSGrad.
func (o *Adam) LoadStateDict(sd map[string]*tensor.Tensor) error {
	lr, err := o.loadLR(sd)
	if err != nil {
		return err
	}
	per, err := o.stateKeys(sd, "step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq")
	if err != nil {
		return err
	}
	n := len(o.params)
	step, m, v, vm := make([]int, n), make([]*tensor.Tensor, n), make([]*tensor.Tensor, n), make([]*tensor.Tensor, n)
	for i, st := range per {
		need := []string{"step", "exp_avg", "exp_avg_sq"}
		if o.opt.AMSGrad {
			need = append(need, "max_exp_avg_sq")
		}
		if step[i], err = o.stepOf(i, st, need); err != nil {
			return err
		}
		if m[i], err = o.stateFor(i, key(i, "exp_avg"), st["exp_avg"]); err != nil {
			return err
		}
		if v[i], err = o.stateFor(i, key(i, "exp_avg_sq"), st["exp_avg_sq"]); err != nil {
			return err
		}
		if o.opt.AMSGrad {
			if vm[i], err = o.stateFor(i, key(i, "max_exp_avg_sq"), st["max_exp_avg_sq"]); err != nil {
				return err
			}
		}
	}
	o.lr, o.step, o.m, o.v, o.vm = lr, step, m, v, vm
	return nil
}

// StateDict returns the wrapped optimiser's state (when it is Stateful)
// and the schedule's position, as "schedule_step" (rank-0 i64).
func (s *ScheduledOptimizer) StateDict() map[string]*tensor.Tensor {
	sd := map[string]*tensor.Tensor{}
	if st, ok := s.opt.(Stateful); ok {
		sd = st.StateDict()
	}
	sd["schedule_step"] = tensor.Scalar(int64(s.n))
	return sd
}

// LoadStateDict restores the schedule's position and passes the rest to
// the wrapped optimiser, which must be Stateful (else ErrUnsupported).
func (s *ScheduledOptimizer) LoadStateDict(sd map[string]*tensor.Tensor) error {
	st, ok := s.opt.(Stateful)
	if !ok {
		return errs.New("optim", "LoadStateDict", errs.ErrUnsupported, "the wrapped %T cannot load a state", s.opt)
	}
	x, ok := sd["schedule_step"]
	if !ok || x == nil {
		return errs.New("optim", "LoadStateDict", errs.ErrValue, "the state has no schedule_step")
	}
	n, err := scalar("Scheduled", "schedule_step", x)
	if err != nil {
		return err
	}
	if !(n >= 0 && n <= math.MaxInt32 && n == math.Trunc(n)) {
		return errs.New("optim", "LoadStateDict", errs.ErrValue, "schedule_step is %v, want a step count >= 0", n)
	}
	rest := make(map[string]*tensor.Tensor, len(sd))
	for k, v := range sd {
		if k != "schedule_step" {
			rest[k] = v
		}
	}
	if err := st.LoadStateDict(rest); err != nil {
		return err
	}
	s.n = int(n)
	return nil
}
