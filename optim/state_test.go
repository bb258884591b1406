package optim_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

// stateful is an optimiser that saves and restores its state.
type stateful interface {
	optim.Optimizer
	optim.Stateful
}

func resumeMakers() map[string]func([]*nn.Parameter) (stateful, error) {
	ams := optim.DefaultAdam()
	ams.AMSGrad, ams.WeightDecay = true, 0.1
	return map[string]func([]*nn.Parameter) (stateful, error){
		"SGD": func(ps []*nn.Parameter) (stateful, error) {
			return optim.NewSGD(ps, 0.05, optim.SGDOptions{Momentum: 0.9, Dampening: 0.1})
		},
		"Adam":          func(ps []*nn.Parameter) (stateful, error) { return optim.NewAdam(ps, 0.05, optim.DefaultAdam()) },
		"AdamW/amsgrad": func(ps []*nn.Parameter) (stateful, error) { return optim.NewAdamW(ps, 0.05, ams) },
		"RMSprop/centered-momentum": func(ps []*nn.Parameter) (stateful, error) {
			o := optim.DefaultRMSprop()
			o.Centered, o.Momentum = true, 0.5
			return optim.NewRMSprop(ps, 0.01, o)
		},
		"Scheduled/Adam": func(ps []*nn.Parameter) (stateful, error) {
			a, err := optim.NewAdam(ps, 0.05, optim.DefaultAdam())
			if err != nil {
				return nil, err
			}
			s, err := optim.CosineAnnealing(0.05, 6, optim.CosineOptions{Warmup: 2, WarmupStart: 0.5})
			return optim.Scheduled(a, s), err
		},
	}
}

// TestResumeFromStateDict: training 3 steps, saving the parameters and the
// optimiser state to a file, loading both into a fresh model and optimiser
// and training 3 more steps gives exactly the values of 6 uninterrupted
// steps. The second parameter gets no gradient at step 1, so the
// per-parameter step counts differ. (Conversion of dtype and device on load
// is TestStateDictConverts.)
func TestResumeFromStateDict(t *testing.T) {
	for name, mk := range resumeMakers() {
		t.Run(name, func(t *testing.T) {
			newParams := func(vals [][]float64) []*nn.Parameter {
				var ps []*nn.Parameter
				for p, v := range vals {
					ps = append(ps, nn.NewParameter(fmt.Sprintf("p%d", p), tensor.FromSlice(v, ruleShapes[p]...)))
				}
				return ps
			}
			initVals := [][]float64{ruleInit(0, 12), ruleInit(1, 5)}
			step := func(o stateful, ps []*nn.Parameter, k int) {
				t.Helper()
				loss := ps[0].Value.Square().Mul(tensor.FromSlice(ruleCoef(k, 0, 12), 3, 4)).Sum()
				if k != 1 {
					loss = loss.Add(ps[1].Value.Square().Mul(tensor.FromSlice(ruleCoef(k, 1, 5))).Sum())
				}
				if err := loss.Backward(); err != nil {
					t.Fatal(err)
				}
				if err := o.Step(); err != nil {
					t.Fatal(err)
				}
				o.ZeroGrad()
			}
			// Uninterrupted.
			ps := newParams(initVals)
			o, err := mk(ps)
			if err != nil {
				t.Fatal(err)
			}
			for k := range 6 {
				step(o, ps, k)
			}
			// Interrupted after 3 steps, through a file.
			qs := newParams(initVals)
			o1, err := mk(qs)
			if err != nil {
				t.Fatal(err)
			}
			for k := range 3 {
				step(o1, qs, k)
			}
			file := filepath.Join(t.TempDir(), "state.safetensors")
			sd := o1.StateDict()
			for _, q := range qs {
				sd["param."+q.Name] = q.Value
			}
			if err := tensor.Save(file, sd); err != nil {
				t.Fatal(err)
			}
			loaded, err := tensor.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			var rs []*nn.Parameter
			for p := range initVals {
				name := fmt.Sprintf("p%d", p)
				rs = append(rs, nn.NewParameter(name, loaded["param."+name]))
				delete(loaded, "param."+name)
			}
			o2, err := mk(rs)
			if err != nil {
				t.Fatal(err)
			}
			if err := o2.LoadStateDict(loaded); err != nil {
				t.Fatal(err)
			}
			for k := 3; k < 6; k++ {
				step(o2, rs, k)
			}
			for p := range ps {
				closeTo(t, "resumed "+ps[p].Name, values(t, rs[p].Value), values(t, ps[p].Value), tol{})
			}
		})
	}
}

// TestStateDictConverts: a state saved from an f64 optimiser loads into an
// f32 one on every device, converted to the parameters' dtype and device.
func TestStateDictConverts(t *testing.T) {
	for _, dev := range testDevices(t) {
		src := nn.NewParameter("w", tensor.FromSlice([]float64{1, -2, 3}))
		a, err := optim.NewAdam([]*nn.Parameter{src}, 0.1, optim.DefaultAdam())
		if err != nil {
			t.Fatal(err)
		}
		if err := src.Value.Square().Sum().Backward(); err != nil {
			t.Fatal(err)
		}
		if err := a.Step(); err != nil {
			t.Fatal(err)
		}
		dst := nn.NewParameter("w", tensor.FromSlice([]float32{1, -2, 3}).To(dev))
		b, err := optim.NewAdam([]*nn.Parameter{dst}, 0.5, optim.DefaultAdam())
		if err != nil {
			t.Fatal(err)
		}
		if err := b.LoadStateDict(a.StateDict()); err != nil {
			t.Fatal(err)
		}
		sd := b.StateDict()
		m := sd["0.exp_avg"]
		if m.DType() != dtype.F32 || m.Device() != dev || b.LR() != 0.1 {
			t.Fatalf("%s: loaded state is %v on %s, lr %v", dev.Name(), m.DType(), m.Device().Name(), b.LR())
		}
		// m = 0.1·g with g = 2w.
		closeTo(t, dev.Name()+" exp_avg", values(t, m), []float64{0.2, -0.4, 0.6}, tol{1e-6, 0})
	}
}

// TestLoadStateDictErrors: malformed states are typed errors, and the
// optimiser keeps its state.
func TestLoadStateDictErrors(t *testing.T) {
	w := nn.NewParameter("w", tensor.FromSlice([]float64{1, 2, 3}))
	a, err := optim.NewAdam([]*nn.Parameter{w}, 0.1, optim.DefaultAdam())
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]*tensor.Tensor{
		"lr": tensor.Scalar(0.2), "0.step": tensor.Scalar(int64(2)),
		"0.exp_avg": tensor.Zeros(dtype.F64, 3), "0.exp_avg_sq": tensor.Zeros(dtype.F64, 3),
	}
	with := func(k string, v *tensor.Tensor) map[string]*tensor.Tensor {
		sd := map[string]*tensor.Tensor{}
		for kk, vv := range good {
			sd[kk] = vv
		}
		if v == nil {
			delete(sd, k)
		} else {
			sd[k] = v
		}
		return sd
	}
	cases := []struct {
		name string
		sd   map[string]*tensor.Tensor
		kind error
		want string
	}{
		{"no lr", with("lr", nil), errs.ErrValue, "no lr"},
		{"negative lr", with("lr", tensor.Scalar(-1.0)), errs.ErrValue, "learning rate -1"},
		{"unknown key", with("0.momentum", tensor.Zeros(dtype.F64, 3)), errs.ErrValue, `unknown state entry "0.momentum"`},
		{"index out of range", with("1.exp_avg", tensor.Zeros(dtype.F64, 3)), errs.ErrValue, `unknown state entry "1.exp_avg"`},
		{"missing moment", with("0.exp_avg_sq", nil), errs.ErrValue, "no exp_avg_sq"},
		{"zero step", with("0.step", tensor.Scalar(int64(0))), errs.ErrValue, `"0.step" is 0`},
		{"wrong shape", with("0.exp_avg", tensor.Zeros(dtype.F64, 4)), errs.ErrShape, `"0.exp_avg" has shape [4], parameter "w" has [3]`},
		{"step not a scalar", with("0.step", tensor.Zeros(dtype.I64, 2)), errs.ErrShape, `"0.step" has shape [2]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := a.LoadStateDict(c.sd)
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %v mentioning %q", err, c.kind, c.want)
			}
			if a.LR() != 0.1 || len(a.StateDict()) != 1 {
				t.Errorf("a failed load changed the optimiser: lr %v, %d state entries", a.LR(), len(a.StateDict()))
			}
		})
	}
	if err := a.LoadStateDict(good); err != nil {
		t.Fatal(err)
	}
	if a.LR() != 0.2 || len(a.StateDict()) != 4 {
		t.Errorf("after a good load: lr %v, %d entries", a.LR(), len(a.StateDict()))
	}
}
