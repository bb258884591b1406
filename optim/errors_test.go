package optim_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

// TestConstructorErrors: invalid hyperparameters are ErrValue errors that
// name the offending value, as PyTorch's constructors refuse them.
func TestConstructorErrors(t *testing.T) {
	p := nn.NewParameter("w", tensor.Zeros(dtype.F64, 3))
	ps := []*nn.Parameter{p}
	sgd := func(lr float64, o optim.SGDOptions) error { _, err := optim.NewSGD(ps, lr, o); return err }
	adam := func(lr float64, mod func(*optim.AdamOptions)) error {
		o := optim.DefaultAdam()
		mod(&o)
		_, err := optim.NewAdam(ps, lr, o)
		return err
	}
	adamw := func(lr float64, mod func(*optim.AdamOptions)) error {
		o := optim.DefaultAdam()
		mod(&o)
		_, err := optim.NewAdamW(ps, lr, o)
		return err
	}
	none := func(*optim.AdamOptions) {}
	cases := []struct {
		name string
		err  error
		want string // in the message
	}{
		{"SGD/negative lr", sgd(-0.1, optim.SGDOptions{}), "learning rate -0.1"},
		{"SGD/NaN lr", sgd(math.NaN(), optim.SGDOptions{}), "learning rate NaN"},
		{"SGD/infinite lr", sgd(math.Inf(1), optim.SGDOptions{}), "learning rate +Inf"},
		{"SGD/negative momentum", sgd(0.1, optim.SGDOptions{Momentum: -0.5}), "momentum -0.5"},
		{"SGD/negative dampening", sgd(0.1, optim.SGDOptions{Momentum: 0.9, Dampening: -1}), "dampening -1"},
		{"SGD/negative weight decay", sgd(0.1, optim.SGDOptions{WeightDecay: -0.01}), "weight decay -0.01"},
		{"SGD/Nesterov without momentum", sgd(0.1, optim.SGDOptions{Nesterov: true}), "momentum 0"},
		{"SGD/Nesterov with dampening", sgd(0.1, optim.SGDOptions{Nesterov: true, Momentum: 0.9, Dampening: 0.1}), "dampening 0.1"},
		{"Adam/negative lr", adam(-1, none), "learning rate -1"},
		{"Adam/beta1 = 1", adam(0.1, func(o *optim.AdamOptions) { o.Beta1 = 1 }), "beta1 1"},
		{"Adam/negative beta1", adam(0.1, func(o *optim.AdamOptions) { o.Beta1 = -0.1 }), "beta1 -0.1"},
		{"Adam/beta2 > 1", adam(0.1, func(o *optim.AdamOptions) { o.Beta2 = 1.5 }), "beta2 1.5"},
		{"Adam/NaN beta2", adam(0.1, func(o *optim.AdamOptions) { o.Beta2 = math.NaN() }), "beta2 NaN"},
		{"Adam/negative eps", adam(0.1, func(o *optim.AdamOptions) { o.Eps = -1e-8 }), "eps -1e-08"},
		{"Adam/negative weight decay", adam(0.1, func(o *optim.AdamOptions) { o.WeightDecay = -0.1 }), "weight decay -0.1"},
		{"AdamW/beta1 = 1", adamw(0.1, func(o *optim.AdamOptions) { o.Beta1 = 1 }), "beta1 1"},
		{"AdamW/infinite eps", adamw(0.1, func(o *optim.AdamOptions) { o.Eps = math.Inf(1) }), "eps +Inf"},
		{"nil parameter", sgd2([]*nn.Parameter{p, nil}), "parameter 1 is nil"},
		{"duplicate parameter", sgd2([]*nn.Parameter{p, p}), `parameter 1 ("w") appears more than once`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !errors.Is(c.err, errs.ErrValue) {
				t.Fatalf("err = %v, want an ErrValue", c.err)
			}
			if !strings.Contains(c.err.Error(), c.want) {
				t.Errorf("err = %q, want it to mention %q", c.err, c.want)
			}
		})
	}
}

func sgd2(ps []*nn.Parameter) error { _, err := optim.NewSGD(ps, 0.1, optim.SGDOptions{}); return err }

// TestStepErrors: a parameter whose value, gradient or state does not fit
// is a typed error naming it, and then no parameter changes. A parameter
// without a gradient is skipped.
func TestStepErrors(t *testing.T) {
	other := countingCPU() // a device other than the CPU
	cases := []struct {
		name string
		// spoil, after one good step, breaks parameter "b" (or the optimiser)
		spoil func(t *testing.T, o optim.Optimizer, b *nn.Parameter)
		kind  error
		want  string
		late  bool // spoil after the second Backward rather than before
	}{
		{"negative lr", func(t *testing.T, o optim.Optimizer, b *nn.Parameter) { o.SetLR(-2) }, errs.ErrValue, "learning rate -2", false},
		{"NaN lr", func(t *testing.T, o optim.Optimizer, b *nn.Parameter) { o.SetLR(math.NaN()) }, errs.ErrValue, "learning rate NaN", false},
		{"state shape", func(t *testing.T, o optim.Optimizer, b *nn.Parameter) {
			b.Set(tensor.Ones(dtype.F64, 2, 2))
		}, errs.ErrShape, `parameter "b": optimiser state shape [4] differs from the value's [2 2]`, false},
		{"state dtype", func(t *testing.T, o optim.Optimizer, b *nn.Parameter) {
			b.Set(tensor.Ones(dtype.F32, 4))
		}, errs.ErrDType, `parameter "b": optimiser state dtype f64 differs from the value's f32`, false},
		{"state device", func(t *testing.T, o optim.Optimizer, b *nn.Parameter) {
			b.Set(tensor.Ones(dtype.F64, 4).To(other))
		}, errs.ErrDevice, `parameter "b": optimiser state on cpu, value on counting`, false},
		{"released value", func(t *testing.T, o optim.Optimizer, b *nn.Parameter) {
			b.Value.Release()
		}, errs.ErrReleased, `parameter "b"`, true},
		{"nil value", func(t *testing.T, o optim.Optimizer, b *nn.Parameter) {
			b.Value = nil
		}, errs.ErrValue, `parameter "b" has no value`, false},
		{"value carrying an error", func(t *testing.T, o optim.Optimizer, b *nn.Parameter) {
			b.Value = tensor.Ones(dtype.F64, 4).Matmul(tensor.Ones(dtype.F64, 3))
		}, errs.ErrShape, `parameter "b"`, false},
	}
	makers := map[string]func([]*nn.Parameter) (optim.Optimizer, error){
		"SGD": func(ps []*nn.Parameter) (optim.Optimizer, error) {
			return optim.NewSGD(ps, 0.1, optim.SGDOptions{Momentum: 0.9})
		},
		"Adam": func(ps []*nn.Parameter) (optim.Optimizer, error) { return optim.NewAdam(ps, 0.1, optim.DefaultAdam()) },
	}
	for oname, mk := range makers {
		for _, c := range cases {
			t.Run(oname+"/"+c.name, func(t *testing.T) {
				a := nn.NewParameter("a", tensor.FromSlice([]float64{1, 2, 3}))
				b := nn.NewParameter("b", tensor.FromSlice([]float64{4, 5, 6, 7}))
				o, err := mk([]*nn.Parameter{a, b})
				if err != nil {
					t.Fatal(err)
				}
				backward := func() {
					t.Helper()
					if err := a.Value.Square().Sum().Backward(); err != nil {
						t.Fatal(err)
					}
					if b.Value != nil {
						_ = b.Value.Square().Sum().Backward() // fails for a released or failed value
					}
				}
				backward()
				if err := o.Step(); err != nil {
					t.Fatal(err)
				}
				if !c.late {
					c.spoil(t, o, b)
				}
				backward()
				if c.late {
					c.spoil(t, o, b)
				}
				before := values(t, a.Value)
				err = o.Step()
				if !errors.Is(err, c.kind) {
					t.Fatalf("err = %v, want %v", err, c.kind)
				}
				if !strings.Contains(err.Error(), c.want) {
					t.Errorf("err = %q, want it to mention %q", err, c.want)
				}
				if a.Grad() == nil {
					t.Fatal("the failed step changed parameter a (its gradient is gone)")
				}
				closeTo(t, "a after the failed step", values(t, a.Value), before, tol{})
			})
		}
	}
}

// TestStepSkipsParametersWithoutGradient: a parameter Backward did not
// reach keeps its value, and gets no state (a later first step still
// initialises its momentum buffer with the gradient).
func TestStepSkipsParametersWithoutGradient(t *testing.T) {
	a := nn.NewParameter("a", tensor.FromSlice([]float64{1, 2}))
	b := nn.NewParameter("b", tensor.FromSlice([]float64{3, 4}))
	o, err := optim.NewSGD([]*nn.Parameter{a, b}, 0.5, optim.SGDOptions{Momentum: 0.9, Dampening: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for step := range 2 {
		if err := a.Value.Sum().Backward(); err != nil {
			t.Fatal(err)
		}
		if err := o.Step(); err != nil {
			t.Fatal(err)
		}
		o.ZeroGrad()
		// buf = 1 then 0.9·1 + 0.5·1 = 1.4: a = 1 - 0.5, then - 0.7.
		want := [][]float64{{0.5, 1.5}, {-0.2, 0.8}}[step]
		closeTo(t, "a", values(t, a.Value), want, tol{0, 1e-15})
		closeTo(t, "b", values(t, b.Value), []float64{3, 4}, tol{})
	}
	if err := b.Value.Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	if err := o.Step(); err != nil {
		t.Fatal(err)
	}
	closeTo(t, "b after its first step", values(t, b.Value), []float64{2.5, 3.5}, tol{0, 1e-15})
	closeTo(t, "a without a gradient", values(t, a.Value), []float64{-0.2, 0.8}, tol{0, 1e-15})
}

// TestZeroGrad: ZeroGrad drops every parameter's gradient, so the next Step
// changes nothing.
func TestZeroGrad(t *testing.T) {
	a := nn.NewParameter("a", tensor.FromSlice([]float64{1, 2}))
	b := nn.NewParameter("b", tensor.FromSlice([]float64{3}))
	o, err := optim.NewAdamW([]*nn.Parameter{a, b}, 0.5, optim.DefaultAdam())
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Value.Sum().Add(b.Value.Sum()).Backward(); err != nil {
		t.Fatal(err)
	}
	o.ZeroGrad()
	if a.Grad() != nil || b.Grad() != nil {
		t.Fatal("a gradient survived ZeroGrad")
	}
	if err := o.Step(); err != nil {
		t.Fatal(err)
	}
	closeTo(t, "a", values(t, a.Value), []float64{1, 2}, tol{})
	closeTo(t, "b", values(t, b.Value), []float64{3}, tol{})
	if got := o.Params(); len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("Params() = %v", got)
	}
}

// TestGradientsOutliveStep: as in PyTorch, a gradient survives Step until
// ZeroGrad, so Backward calls without ZeroGrad accumulate across steps
// (SGD, lr 0.5, loss sum(a): a = [1, 2] - 0.5·1, then - 0.5·2), and Set
// drops it only for a value it no longer fits.
func TestGradientsOutliveStep(t *testing.T) {
	a := nn.NewParameter("a", tensor.FromSlice([]float64{1, 2}))
	o, err := optim.NewSGD([]*nn.Parameter{a}, 0.5, optim.SGDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for step, want := range [][]float64{{0.5, 1.5}, {-0.5, 0.5}} {
		if err := a.Value.Sum().Backward(); err != nil {
			t.Fatal(err)
		}
		if err := o.Step(); err != nil {
			t.Fatal(err)
		}
		closeTo(t, fmt.Sprint("a after step ", step), values(t, a.Value), want, tol{0, 1e-15})
		g := a.Grad()
		if g == nil {
			t.Fatalf("step %d: the gradient did not survive Step", step)
		}
		closeTo(t, fmt.Sprint("grad after step ", step), values(t, g), []float64{float64(step + 1), float64(step + 1)}, tol{})
	}
	o.ZeroGrad()
	if a.Grad() != nil {
		t.Fatal("ZeroGrad left a gradient")
	}
	if err := a.Value.Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	a.Set(tensor.FromSlice([]float64{1, 2, 3}))
	if a.Grad() != nil {
		t.Fatal("a value of another shape kept the old gradient")
	}
}
