package optim_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

// TestSchedules checks StepLR and CosineAnnealing against values worked
// out by hand from PyTorch's formulas.
func TestSchedules(t *testing.T) {
	must := func(s optim.Schedule, err error) optim.Schedule {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		name  string
		s     optim.Schedule
		steps []int
		want  []float64
	}{
		// torch StepLR(lr=0.1, step_size=30, gamma=0.1): 0.1 for epochs 0..29, 0.01 for 30..59...
		{"StepLR", must(optim.StepLR(0.1, 30, 0.1)), []int{-1, 0, 29, 30, 59, 60, 95}, []float64{0.1, 0.1, 0.1, 0.01, 0.01, 0.001, 0.0001}},
		{"StepLR/gamma 0.5", must(optim.StepLR(2, 1, 0.5)), []int{0, 1, 2, 3}, []float64{2, 1, 0.5, 0.25}},
		// torch CosineAnnealingLR(T_max=10, eta_min=0) from lr 1: periodic past T_max.
		{"Cosine", must(optim.CosineAnnealing(1, 10, optim.CosineOptions{})), []int{0, 5, 10, 15, 20}, []float64{1, 0.5, 0, 0.5, 1}},
		{"Cosine/min", must(optim.CosineAnnealing(1, 4, optim.CosineOptions{Min: 0.1})), []int{0, 1, 2, 4}, []float64{1, 0.1 + 0.9*(1+math.Sqrt2/2)/2, 0.55, 0.1}},
		// LinearLR(start_factor=0.25, total_iters=4) then the cosine from step 4.
		{"Cosine/warm-up", must(optim.CosineAnnealing(2, 10, optim.CosineOptions{Warmup: 4, WarmupStart: 0.25})),
			[]int{0, 1, 2, 3, 4, 9, 14}, []float64{0.5, 0.875, 1.25, 1.625, 2, 1, 0}},
		{"Cosine/warm-up from 0", must(optim.CosineAnnealing(1, 2, optim.CosineOptions{Warmup: 2})), []int{0, 1, 2, 3, 4}, []float64{0, 0.5, 1, 0.5, 0}},
		// torch ExponentialLR(gamma=0.5) from lr 4.
		{"ExponentialLR", must(optim.ExponentialLR(4, 0.5)), []int{-3, 0, 1, 3}, []float64{4, 4, 2, 0.5}},
		// torch MultiStepLR(milestones=[5, 2, 5], gamma=0.1) from lr 1: the repeat counts twice.
		{"MultiStepLR", must(optim.MultiStepLR(1, []int{5, 2, 5}, 0.1)), []int{0, 1, 2, 4, 5, 9}, []float64{1, 1, 0.1, 0.1, 0.001, 0.001}},
		// torch OneCycleLR(max_lr=1, total_steps=10) (pct_start 0.3, div 25, final 1e4):
		// 0.04 up to 1 at step 2 (the half-way step 1 is 0.52), then down to 4e-6 at step 9.
		{"OneCycleLR", must(optim.OneCycleLR(1, 10, 0.3, 25, 1e4)), []int{0, 1, 2, 6, 9, 12},
			[]float64{0.04, 0.52, 1, 4e-6 + (1-4e-6)/2*(math.Cos(math.Pi*4/7)+1), 4e-6, 4e-6 + (1-4e-6)/2*(math.Cos(math.Pi*8/7)+1)}},
		// pct_start·total = 1: the first phase is step 0 alone.
		{"OneCycleLR/one-step rise", must(optim.OneCycleLR(2, 4, 0.25, 4, 2)), []int{0, 3}, []float64{2, 0.25}},
	}
	for _, c := range cases {
		for i, step := range c.steps {
			if got := c.s(step); math.Abs(got-c.want[i]) > 1e-15 {
				t.Errorf("%s: step %d: lr %.17g, want %.17g", c.name, step, got, c.want[i])
			}
		}
	}
}

// second returns a constructor's error.
func second(_ optim.Schedule, err error) error { return err }

// TestScheduleErrors: invalid schedule parameters are ErrValue errors.
func TestScheduleErrors(t *testing.T) {
	cos := func(base float64, tMax int, o optim.CosineOptions) error {
		_, err := optim.CosineAnnealing(base, tMax, o)
		return err
	}
	step := func(base float64, size int, gamma float64) error {
		_, err := optim.StepLR(base, size, gamma)
		return err
	}
	for i, err := range []error{
		step(-1, 1, 0.1), step(0.1, 0, 0.1), step(0.1, 1, -0.5), step(0.1, 1, math.NaN()),
		cos(-1, 10, optim.CosineOptions{}), cos(1, 0, optim.CosineOptions{}), cos(1, 10, optim.CosineOptions{Min: 2}),
		cos(1, 10, optim.CosineOptions{Warmup: -1}), cos(1, 10, optim.CosineOptions{WarmupStart: 1.5}),
		second(optim.ExponentialLR(1, -0.5)), second(optim.MultiStepLR(1, []int{3, -1}, 0.1)),
		second(optim.OneCycleLR(1, 1, 0.3, 25, 1e4)), second(optim.OneCycleLR(1, 10, 1, 25, 1e4)), second(optim.OneCycleLR(1, 10, 0.3, 0, 1e4)),
	} {
		if !errors.Is(err, errs.ErrValue) {
			t.Errorf("case %d: err = %v, want ErrValue", i, err)
		}
	}
}

// TestScheduledSteps: the k-th Step of a Scheduled optimiser runs with the
// schedule's rate for k. With plain SGD and the loss Σw (gradient 1), each
// step lowers w by exactly that rate.
func TestScheduledSteps(t *testing.T) {
	p := nn.NewParameter("w", tensor.FromSlice([]float64{10}))
	sgd, err := optim.NewSGD([]*nn.Parameter{p}, 123, optim.SGDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := optim.StepLR(1, 2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	opt := optim.Scheduled(sgd, s)
	want := 10.0
	for k := range 6 {
		if got := opt.LR(); got != s(k) {
			t.Fatalf("step %d: LR %v, want %v", k, got, s(k))
		}
		if err := p.Value.Sum().Backward(); err != nil {
			t.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
		opt.ZeroGrad()
		want -= s(k)
		closeTo(t, fmt.Sprintf("w after step %d", k), values(t, p.Value), []float64{want}, tol{0, 1e-14})
	}
	if opt.Steps() != 6 || opt.Unwrap() != sgd || len(opt.Params()) != 1 {
		t.Errorf("Steps %d, Unwrap %v, %d params", opt.Steps(), opt.Unwrap(), len(opt.Params()))
	}
	// Apply sets the rate for an epoch explicitly.
	s.Apply(sgd, 4)
	if sgd.LR() != 0.25 {
		t.Errorf("after Apply(4): LR %v, want 0.25", sgd.LR())
	}
}

// TestReduceLROnPlateau follows PyTorch's algorithm by hand: patience 2,
// factor 0.5, cooldown 1, a floor of 0.3, on a metric that stalls at 9;
// then the "max" mode with an absolute threshold.
func TestReduceLROnPlateau(t *testing.T) {
	p := nn.NewParameter("w", tensor.Zeros(dtype.F32, 1))
	sgd, err := optim.NewSGD([]*nn.Parameter{p}, 1, optim.SGDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := optim.DefaultPlateau()
	o.Patience, o.Factor, o.Threshold, o.Cooldown, o.MinLR = 2, 0.5, 0, 1, 0.3
	s, err := optim.NewReduceLROnPlateau(sgd, o)
	if err != nil {
		t.Fatal(err)
	}
	metrics := []float64{10, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}
	// Step 5 exceeds the patience (1 → 0.5); step 6 is the cooldown; step 9
	// exceeds it again (0.25, floored at 0.3); step 13 would go below the
	// floor and changes nothing.
	want := []float64{1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.3, 0.3, 0.3, 0.3, 0.3}
	for i, m := range metrics {
		s.Step(m)
		if lr := sgd.LR(); math.Abs(lr-want[i]) > 1e-15 {
			t.Fatalf("step %d: lr %v, want %v", i+1, lr, want[i])
		}
	}

	up := optim.DefaultPlateau()
	up.Max, up.AbsThreshold, up.Threshold, up.Patience = true, true, 0.5, 0
	sgd.SetLR(1)
	m, err := optim.NewReduceLROnPlateau(sgd, up)
	if err != nil {
		t.Fatal(err)
	}
	// 1 improves on -Inf; 1.4 is not 0.5 better; 2 is.
	for i, c := range []struct {
		metric  float64
		reduced bool
	}{{1, false}, {1.4, true}, {2, false}, {math.NaN(), true}} {
		if got := m.Step(c.metric); got != c.reduced {
			t.Errorf("max mode, step %d (%v): reduced %v, want %v", i+1, c.metric, got, c.reduced)
		}
	}
	for _, bad := range []optim.PlateauOptions{{Factor: 1}, {Factor: 0.5, Patience: -1}, {Factor: 0.5, Threshold: -1}} {
		if _, err := optim.NewReduceLROnPlateau(sgd, bad); !errors.Is(err, errs.ErrValue) {
			t.Errorf("%+v: %v, want ErrValue", bad, err)
		}
	}
	if _, err := optim.NewReduceLROnPlateau(nil, optim.DefaultPlateau()); !errors.Is(err, errs.ErrValue) {
		t.Errorf("nil optimiser: %v", err)
	}
}
