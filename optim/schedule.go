package optim

import (
	"math"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
)

// Schedule gives the learning rate for a step (0 for the first step or
// epoch; negative steps count as 0). Any func is a schedule; StepLR and
// CosineAnnealing build PyTorch's. A schedule is applied per optimiser
// step by Scheduled, or per epoch by calling Apply.
type Schedule func(step int) float64

// Apply sets opt's learning rate to the schedule's rate for step, as a
// PyTorch scheduler's step() does at the end of epoch step-1.
func (s Schedule) Apply(opt Optimizer, step int) { opt.SetLR(s(max(step, 0))) }

// StepLR decays the rate base by gamma every stepSize steps:
// base·gamma^⌊step/stepSize⌋, as torch.optim.lr_scheduler.StepLR. A
// negative or non-finite base or gamma, or a stepSize < 1, is an ErrValue
// error.
func StepLR(base float64, stepSize int, gamma float64) (Schedule, error) {
	const op = "StepLR"
	if err := checkRate(op, "base learning rate", base); err != nil {
		return nil, err
	}
	if err := checkRate(op, "gamma", gamma); err != nil {
		return nil, err
	}
	if stepSize < 1 {
		return nil, errs.New("optim", op, errs.ErrValue, "invalid step size %d: want >= 1", stepSize)
	}
	return func(step int) float64 {
		return base * math.Pow(gamma, float64(max(step, 0)/stepSize))
	}, nil
}

// CosineOptions are CosineAnnealing's optional parts; the zero value
// anneals to 0 with no warm-up.
type CosineOptions struct {
	Min         float64 // the rate at the end of the cosine (PyTorch's eta_min), in [0, base]
	Warmup      int     // steps of linear warm-up before the cosine starts (>= 0)
	WarmupStart float64 // the warm-up's first rate as a fraction of base, in [0, 1]
}

// CosineAnnealing returns PyTorch's CosineAnnealingLR (closed form) over
// tMax steps from base down to o.Min,
//
//	Min + (base − Min)·(1 + cos(π·t/tMax))/2,
//
// which continues periodically past tMax as PyTorch's does. With a
// warm-up of W steps it is preceded by LinearLR from base·WarmupStart
// towards base, base·(s + (1−s)·step/W) for step < W, and the cosine's t
// is step − W: PyTorch's SequentialLR([LinearLR(s, 1, W),
// CosineAnnealingLR(tMax, Min)], milestones=[W]). Invalid values (a
// negative or non-finite rate, tMax < 1, Min above base, a negative
// warm-up, a start fraction outside [0, 1]) are ErrValue errors.
func CosineAnnealing(base float64, tMax int, o CosineOptions) (Schedule, error) {
	const op = "CosineAnnealing"
	if err := checkRate(op, "base learning rate", base); err != nil {
		return nil, err
	}
	if err := checkRate(op, "minimum learning rate", o.Min); err != nil {
		return nil, err
	}
	switch {
	case o.Min > base:
		return nil, errs.New("optim", op, errs.ErrValue, "minimum learning rate %v exceeds the base %v", o.Min, base)
	case tMax < 1:
		return nil, errs.New("optim", op, errs.ErrValue, "invalid tMax %d: want >= 1", tMax)
	case o.Warmup < 0:
		return nil, errs.New("optim", op, errs.ErrValue, "invalid warm-up %d: want >= 0 steps", o.Warmup)
	case !(o.WarmupStart >= 0 && o.WarmupStart <= 1):
		return nil, errs.New("optim", op, errs.ErrValue, "invalid warm-up start %v: want a fraction in [0, 1]", o.WarmupStart)
	}
	return func(step int) float64 {
		step = max(step, 0)
		if step < o.Warmup {
			return base * (o.WarmupStart + (1-o.WarmupStart)*float64(step)/float64(o.Warmup))
		}
		t := float64(step - o.Warmup)
		return o.Min + (base-o.Min)*(1+math.Cos(math.Pi*t/float64(tMax)))/2
	}, nil
}

// ScheduledOptimizer is an Optimizer whose learning rate follows a
// Schedule, one schedule step per optimiser step; Scheduled makes one.
type ScheduledOptimizer struct {
	opt   Optimizer
	sched Schedule
	n     int
}

// Scheduled wraps opt so that its k-th Step (from 0) runs with the rate
// s(k): use it in place of opt.
func Scheduled(opt Optimizer, s Schedule) *ScheduledOptimizer {
	return &ScheduledOptimizer{opt: opt, sched: s}
}

// Step sets the wrapped optimiser's rate to the schedule's for this step
// and runs its Step; the step counts only when it succeeds.
func (s *ScheduledOptimizer) Step() error {
	s.opt.SetLR(s.sched(s.n))
	if err := s.opt.Step(); err != nil {
		return err
	}
	s.n++
	return nil
}

// ZeroGrad clears the gradient of every parameter.
func (s *ScheduledOptimizer) ZeroGrad() { s.opt.ZeroGrad() }

// LR is the rate the next Step uses: the schedule's.
func (s *ScheduledOptimizer) LR() float64 { return s.sched(s.n) }

// SetLR sets the wrapped optimiser's rate; the next Step replaces it with
// the schedule's (a schedule owns the rate).
func (s *ScheduledOptimizer) SetLR(lr float64) { s.opt.SetLR(lr) }

// Params lists the wrapped optimiser's parameters.
func (s *ScheduledOptimizer) Params() []*nn.Parameter { return s.opt.Params() }

// Steps is the number of steps taken, the schedule's position.
func (s *ScheduledOptimizer) Steps() int { return s.n }

// SetSteps moves the schedule to position n (>= 0), to resume training.
func (s *ScheduledOptimizer) SetSteps(n int) { s.n = max(n, 0) }

// Unwrap returns the wrapped optimiser.
func (s *ScheduledOptimizer) Unwrap() Optimizer { return s.opt }
