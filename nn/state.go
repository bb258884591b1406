package nn

import (
	"errors"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// NumParams is the number of trainable scalars in m.
func NumParams(m Module) int {
	if m == nil {
		return 0
	}
	n := 0
	for _, p := range m.Parameters() {
		n += p.Value.Numel()
	}
	return n
}

// To moves every parameter and buffer of m to dev. It moves all or
// nothing: if one cannot move (a dtype dev cannot hold, a failed
// parameter), m is left as it was and the error is returned. Moved
// parameters start with no gradient (Set keeps a gradient only on the
// value's own device).
func To(m Module, dev device.Device) error {
	if m == nil {
		return errs.New("nn", "To", errs.ErrValue, "nil module")
	}
	ss := slotsOf(m)
	moved := make([]*tensor.Tensor, len(ss))
	for i, sl := range ss {
		moved[i] = sl.value.To(dev)
		if err := moved[i].Err(); err != nil {
			return errs.Wrap("nn", "To", nil, err, "%s %q", sl.kind(), sl.name) // the cause keeps its kind
		}
	}
	for i, sl := range ss {
		sl.set(moved[i])
	}
	return nil
}

// slot is a parameter or a buffer seen by the state functions.
type slot struct {
	name  string
	value *tensor.Tensor
	param *Parameter // nil for a buffer
	buf   *Buffer
}

func (sl slot) kind() string {
	if sl.param != nil {
		return "parameter"
	}
	return "buffer"
}

// set puts v in the slot: Set for a parameter, the detached value for a
// buffer.
func (sl slot) set(v *tensor.Tensor) {
	if sl.param != nil {
		sl.param.Set(v)
		return
	}
	sl.buf.Value = v.Detach()
}

// slotsOf lists m's parameters, then its buffers.
func slotsOf(m Module) []slot {
	var ss []slot
	for _, p := range m.Parameters() {
		ss = append(ss, slot{name: p.Name, value: p.Value, param: p})
	}
	for _, b := range Buffers(m) {
		ss = append(ss, slot{name: b.Name, value: b.Value, buf: b})
	}
	return ss
}

// StateDict maps the name of each parameter and buffer to its current
// value, detached from any graph: what Save writes and LoadStateDict
// reads.
func StateDict(m Module) map[string]*tensor.Tensor {
	sd := make(map[string]*tensor.Tensor)
	if m == nil {
		return sd
	}
	for _, sl := range slotsOf(m) {
		sd[sl.name] = sl.value.Detach()
	}
	return sd
}

// LoadStateDict sets every parameter and buffer of m from the entry of sd
// named as it, moved to its device. The keys must match exactly and each
// entry must have its slot's shape and dtype; otherwise nothing
// is set and the error lists every offending key: a missing or unexpected
// key is an ErrValue, a shape an ErrShape, a dtype an ErrDType error.
func LoadStateDict(m Module, sd map[string]*tensor.Tensor) error {
	const op = "LoadStateDict"
	if m == nil {
		return errs.New("nn", op, errs.ErrValue, "nil module")
	}
	ps := slotsOf(m)
	var problems []error
	known := make(map[string]bool, len(ps))
	vals := make([]*tensor.Tensor, len(ps))
	for i, p := range ps {
		known[p.name] = true
		v, ok := sd[p.name]
		switch {
		case !ok:
			problems = append(problems, errs.New("nn", op, errs.ErrValue, "missing key %q", p.name))
			continue
		case v.Err() != nil:
			problems = append(problems, errs.Wrap("nn", op, nil, v.Err(), "key %q", p.name))
			continue
		case !slices.Equal(v.Shape(), p.value.Shape()):
			problems = append(problems, errs.New("nn", op, errs.ErrShape, "key %q: shape %v, the %s is %v", p.name, v.Shape(), p.kind(), p.value.Shape()))
			continue
		case v.DType() != p.value.DType():
			problems = append(problems, errs.New("nn", op, errs.ErrDType, "key %q: dtype %v, the %s is %v", p.name, v.DType(), p.kind(), p.value.DType()))
			continue
		}
		vals[i] = v.To(p.value.Device())
		if err := vals[i].Err(); err != nil {
			problems = append(problems, errs.Wrap("nn", op, nil, err, "key %q", p.name))
		}
	}
	var extra []string
	for k := range sd {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		problems = append(problems, errs.New("nn", op, errs.ErrValue, "unexpected key %q", k))
	}
	if len(problems) > 0 {
		return errors.Join(problems...)
	}
	for i, p := range ps {
		p.set(vals[i])
	}
	return nil
}

// Save writes m's state dict to path in the format of its extension
// (.safetensors, .npz), as tensor.Save does.
func Save(m Module, path string) error {
	if err := tensor.Save(path, StateDict(m)); err != nil {
		return errs.Retag("nn", "Save", err)
	}
	return nil
}

// Load reads a file that Save wrote (or any with the same keys, such as a
// PyTorch state dict saved as safetensors) into m's parameters, as
// LoadStateDict does.
func Load(m Module, path string) error {
	sd, err := tensor.Load(path)
	if err != nil {
		return errs.Retag("nn", "Load", err)
	}
	return LoadStateDict(m, sd)
}
