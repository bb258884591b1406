package optim

import (
	"math"
	"slices"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/nn"
)

// Schedule gives the learning rate for a step (0 for the first step or
// epoch; negative steps count as 0). Any func is a schedule; StepLR,
// ExponentialLR, MultiStepLR, CosineAnnealing and OneCycleLR build
// PyTorch's. A schedule is applied per optimiser
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

// ExponentialLR decays the rate base by gamma every step: base·gamma^step,
// as torch.optim.lr_scheduler.ExponentialLR. A negative or non-finite
// base or gamma is an ErrValue error.
func ExponentialLR(base, gamma float64) (Schedule, error) {
	const op = "ExponentialLR"
	if err := checkRates(op, rate{"base learning rate", base}, rate{"gamma", gamma}); err != nil {
		return nil, err
	}
	return func(step int) float64 { return base * math.Pow(gamma, float64(max(step, 0))) }, nil
}

// MultiStepLR decays the rate base by gamma once for each milestone the
// step has reached: base·gamma^k, k the number of milestones <= step
// (repeats count), as torch.optim.lr_scheduler.MultiStepLR. Negative
// milestones, or a negative or non-finite base or gamma, are ErrValue
// errors.
func MultiStepLR(base float64, milestones []int, gamma float64) (Schedule, error) {
	const op = "MultiStepLR"
	if err := checkRates(op, rate{"base learning rate", base}, rate{"gamma", gamma}); err != nil {
		return nil, err
	}
	ms := slices.Clone(milestones)
	slices.Sort(ms)
	if len(ms) > 0 && ms[0] < 0 {
		return nil, errs.New("optim", op, errs.ErrValue, "invalid milestone %d: want >= 0", ms[0])
	}
	return func(step int) float64 {
		k, _ := slices.BinarySearch(ms, max(step, 0)+1) // milestones <= step
		return base * math.Pow(gamma, float64(k))
	}, nil
}

// OneCycleLR is PyTorch's OneCycleLR with cosine annealing over total
// steps: from maxLR/div up to maxLR over the first pctStart of the steps,
// then down to maxLR/(div·finalDiv) (PyTorch's defaults: pctStart 0.3, div
// 25, finalDiv 1e4), each phase a half cosine. Steps past total keep the
// last rate (PyTorch raises). Invalid values (a negative or non-finite
// rate or factor, total < 2, pctStart outside (0, 1)) are ErrValue errors.
func OneCycleLR(maxLR float64, total int, pctStart, div, finalDiv float64) (Schedule, error) {
	const op = "OneCycleLR"
	if err := checkRates(op, rate{"maximum learning rate", maxLR}, rate{"div factor", div}, rate{"final div factor", finalDiv}); err != nil {
		return nil, err
	}
	switch {
	case total < 2:
		return nil, errs.New("optim", op, errs.ErrValue, "invalid total %d: want >= 2 steps", total)
	case !(pctStart > 0 && pctStart < 1):
		return nil, errs.New("optim", op, errs.ErrValue, "invalid pctStart %v: want a fraction in (0, 1)", pctStart)
	case div == 0 || finalDiv == 0:
		return nil, errs.New("optim", op, errs.ErrValue, "div factors %v and %v must be positive", div, finalDiv)
	}
	initial := maxLR / div
	final := initial / finalDiv
	up := pctStart*float64(total) - 1 // the first phase's last step, as PyTorch's (a float)
	last := float64(total - 1)
	cos := func(from, to, pct float64) float64 { return to + (from-to)/2*(math.Cos(math.Pi*pct)+1) }
	return func(step int) float64 {
		s := float64(min(max(step, 0), total))
		if s <= up {
			if up == 0 { // a first phase of step 0 alone (PyTorch divides by zero)
				return maxLR
			}
			return cos(initial, maxLR, s/up)
		}
		return cos(maxLR, final, (s-up)/(last-up))
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

// PlateauOptions are ReduceLROnPlateau's; DefaultPlateau gives PyTorch's
// defaults.
type PlateauOptions struct {
	Max          bool    // the metric improves upwards (mode "max"); else downwards
	Factor       float64 // the rate is multiplied by it on a plateau, in (0, 1)
	Patience     int     // steps without improvement tolerated before reducing (>= 0)
	Threshold    float64 // the least improvement that counts (>= 0)
	AbsThreshold bool    // Threshold is absolute (threshold_mode "abs"); else relative
	Cooldown     int     // steps after a reduction before counting again (>= 0)
	MinLR        float64 // the rate is never reduced below it (>= 0)
	Eps          float64 // a reduction smaller than it is skipped (>= 0)
}

// DefaultPlateau returns PyTorch's defaults: mode "min", factor 0.1,
// patience 10, relative threshold 1e-4, no cooldown, min_lr 0, eps 1e-8.
func DefaultPlateau() PlateauOptions {
	return PlateauOptions{Factor: 0.1, Patience: 10, Threshold: 1e-4, Eps: 1e-8}
}

// ReduceLROnPlateau lowers an optimiser's learning rate when a metric
// stops improving, as torch.optim.lr_scheduler.ReduceLROnPlateau: Step is
// called with the metric once per epoch (not through Scheduled, since the
// rate depends on the metric, not the step).
type ReduceLROnPlateau struct {
	opt      Optimizer
	o        PlateauOptions
	best     float64
	bad      int // steps since the last improvement
	cooldown int // steps of cooldown left
}

// NewReduceLROnPlateau returns the scheduler for opt. Invalid options are
// ErrValue errors.
func NewReduceLROnPlateau(opt Optimizer, o PlateauOptions) (*ReduceLROnPlateau, error) {
	const op = "ReduceLROnPlateau"
	switch {
	case opt == nil:
		return nil, errs.New("optim", op, errs.ErrValue, "nil optimiser")
	case !(o.Factor > 0 && o.Factor < 1):
		return nil, errs.New("optim", op, errs.ErrValue, "invalid factor %v: want 0 < factor < 1", o.Factor)
	case o.Patience < 0 || o.Cooldown < 0:
		return nil, errs.New("optim", op, errs.ErrValue, "invalid patience %d or cooldown %d: want >= 0", o.Patience, o.Cooldown)
	}
	if err := checkRates(op, rate{"threshold", o.Threshold}, rate{"minimum learning rate", o.MinLR}, rate{"eps", o.Eps}); err != nil {
		return nil, err
	}
	best := math.Inf(1)
	if o.Max {
		best = math.Inf(-1)
	}
	return &ReduceLROnPlateau{opt: opt, o: o, best: best}, nil
}

// Step records one epoch's metric and reduces the learning rate to
// max(lr·Factor, MinLR) after more than Patience epochs without an
// improvement, then waits Cooldown epochs before counting again. It
// reports whether it reduced the rate. A NaN metric counts as no
// improvement, as in PyTorch.
func (s *ReduceLROnPlateau) Step(metric float64) bool {
	if s.better(metric) {
		s.best, s.bad = metric, 0
	} else {
		s.bad++
	}
	if s.cooldown > 0 {
		s.cooldown--
		s.bad = 0
	}
	if s.bad <= s.o.Patience {
		return false
	}
	s.cooldown, s.bad = s.o.Cooldown, 0
	old := s.opt.LR()
	lr := math.Max(old*s.o.Factor, s.o.MinLR)
	if old-lr <= s.o.Eps {
		return false
	}
	s.opt.SetLR(lr)
	return true
}

// better reports whether metric improves on the best so far by the
// threshold, in the options' direction and mode.
func (s *ReduceLROnPlateau) better(metric float64) bool {
	t := s.o.Threshold
	switch {
	case !s.o.Max && !s.o.AbsThreshold:
		return metric < s.best*(1-t)
	case !s.o.Max:
		return metric < s.best-t
	case !s.o.AbsThreshold:
		return metric > s.best*(1+t)
	}
	return metric > s.best+t
}
