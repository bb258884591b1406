package optim_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

// The update rules are checked against float64 references written here as
// plain loops over PyTorch's documented algorithms, on two parameters over
// four steps. The loss of step k is Σ c·w²/2 per parameter, so the gradient
// is c·w (it depends on the current value); parameter "b" is left out of
// step 1's loss, so it has no gradient then and must be skipped (its value
// and state untouched, and for Adam its own step count not advanced).

const ruleSteps = 4

var ruleShapes = [][]int{{3, 4}, {5}}

func ruleInit(p, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Sin(float64(7*p+3*i+1)) * 1.5
	}
	return v
}

func ruleCoef(step, p, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 0.5 + math.Cos(float64(11*step+5*p+2*i))*0.9
	}
	return v
}

func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// ruleOpt is an optimiser under test and its float64 reference: ref
// updates w in place from gradient g for parameter p (keeping its own
// state), and is called only for parameters that have a gradient.
type ruleOpt struct {
	make func(ps []*nn.Parameter) (optim.Optimizer, error)
	ref  func(p int, w, g []float64)
}

// checkRule runs the four steps on dev in dt and compares every value
// after every step with the reference started from the same (rounded)
// initial values.
func checkRule(t *testing.T, dev device.Device, dt dtype.DType, r ruleOpt) {
	t.Helper()
	tl := tolFor(dt)
	var ps []*nn.Parameter
	var ref [][]float64
	for p, shape := range ruleShapes {
		init := rounded(dt, ruleInit(p, numel(shape)))
		ps = append(ps, nn.NewParameter(fmt.Sprintf("p%d", p), onDevice(t, dev, dt, init, shape...)))
		ref = append(ref, init)
	}
	opt, err := r.make(ps)
	if err != nil {
		t.Fatal(err)
	}
	for step := range ruleSteps {
		var loss *tensor.Tensor
		for p, shape := range ruleShapes {
			if p == 1 && step == 1 {
				continue
			}
			c := rounded(dt, ruleCoef(step, p, numel(shape)))
			term := ps[p].Value.Square().Mul(onDevice(t, dev, dt, c, shape...)).Sum().DivScalar(2)
			if loss == nil {
				loss = term
			} else {
				loss = loss.Add(term)
			}
			g := make([]float64, len(c))
			for i := range g {
				g[i] = c[i] * ref[p][i]
			}
			r.ref(p, ref[p], g)
		}
		if err := loss.Backward(); err != nil {
			t.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		opt.ZeroGrad()
		for p := range ps {
			if got := ps[p].Value; got.Device() != dev || got.DType() != dt {
				t.Fatalf("step %d: parameter %d moved to %s %v", step, p, got.Device().Name(), got.DType())
			}
			closeTo(t, fmt.Sprintf("step %d, parameter %d", step, p), values(t, ps[p].Value), ref[p], tl)
		}
	}
}

// ruleCases lists the devices and dtypes the rules run on: f64 on the CPU,
// f32 everywhere.
func ruleCases(t *testing.T) []struct {
	dev device.Device
	dt  dtype.DType
} {
	var out []struct {
		dev device.Device
		dt  dtype.DType
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F64, dtype.F32} {
			if computes(dev, dt) {
				out = append(out, struct {
					dev device.Device
					dt  dtype.DType
				}{dev, dt})
			}
		}
	}
	return out
}

// sgdRef is torch.optim.SGD's algorithm for one parameter.
func sgdRef(lr float64, o optim.SGDOptions) func(p int, w, g []float64) {
	bufs := map[int][]float64{}
	return func(p int, w, g []float64) {
		d := make([]float64, len(w))
		for i := range w {
			d[i] = g[i]
			if o.Maximize {
				d[i] = -d[i]
			}
			d[i] += o.WeightDecay * w[i]
		}
		if o.Momentum != 0 {
			b, ok := bufs[p]
			if !ok {
				b = append([]float64(nil), d...)
				bufs[p] = b
			} else {
				for i := range b {
					b[i] = o.Momentum*b[i] + (1-o.Dampening)*d[i]
				}
			}
			for i := range d {
				if o.Nesterov {
					d[i] += o.Momentum * b[i]
				} else {
					d[i] = b[i]
				}
			}
		}
		for i := range w {
			w[i] -= lr * d[i]
		}
	}
}

// adamRef is torch.optim.Adam's (decoupled: AdamW's) algorithm for one
// parameter, with its own step count.
func adamRef(lr float64, o optim.AdamOptions, decoupled bool) func(p int, w, g []float64) {
	type st struct {
		t          int
		m, v, vmax []float64
	}
	states := map[int]*st{}
	return func(p int, w, g []float64) {
		s, ok := states[p]
		if !ok {
			s = &st{m: make([]float64, len(w)), v: make([]float64, len(w)), vmax: make([]float64, len(w))}
			states[p] = s
		}
		s.t++
		bc1 := 1 - math.Pow(o.Beta1, float64(s.t))
		bc2 := 1 - math.Pow(o.Beta2, float64(s.t))
		for i := range w {
			d := g[i]
			if o.Maximize {
				d = -d
			}
			if decoupled {
				w[i] *= 1 - lr*o.WeightDecay
			} else {
				d += o.WeightDecay * w[i]
			}
			s.m[i] = o.Beta1*s.m[i] + (1-o.Beta1)*d
			s.v[i] = o.Beta2*s.v[i] + (1-o.Beta2)*d*d
			v := s.v[i]
			if o.AMSGrad {
				s.vmax[i] = math.Max(s.vmax[i], v)
				v = s.vmax[i]
			}
			w[i] -= lr / bc1 * s.m[i] / (math.Sqrt(v)/math.Sqrt(bc2) + o.Eps)
		}
	}
}

// TestSGDRule checks every combination of SGD's options.
func TestSGDRule(t *testing.T) {
	const lr = 0.07
	var cases []optim.SGDOptions
	for _, mom := range []float64{0, 0.9} {
		for _, damp := range []float64{0, 0.3} {
			for _, nest := range []bool{false, true} {
				for _, wd := range []float64{0, 0.1} {
					for _, maxi := range []bool{false, true} {
						if nest && (mom == 0 || damp != 0) {
							continue
						}
						cases = append(cases, optim.SGDOptions{Momentum: mom, Dampening: damp, Nesterov: nest, WeightDecay: wd, Maximize: maxi})
					}
				}
			}
		}
	}
	for _, dc := range ruleCases(t) {
		for _, o := range cases {
			t.Run(fmt.Sprintf("%s/%v/%+v", dc.dev.Name(), dc.dt, o), func(t *testing.T) {
				checkRule(t, dc.dev, dc.dt, ruleOpt{
					make: func(ps []*nn.Parameter) (optim.Optimizer, error) { return optim.NewSGD(ps, lr, o) },
					ref:  sgdRef(lr, o),
				})
			})
		}
	}
}

// TestAdamRule checks Adam and AdamW, with and without weight decay,
// AMSGrad and Maximize.
func TestAdamRule(t *testing.T) {
	const lr = 0.03
	type adamCase struct {
		name      string
		o         optim.AdamOptions
		decoupled bool
	}
	def := optim.DefaultAdam()
	wd, ams, maxi, beta := def, def, def, def
	wd.WeightDecay = 0.2
	ams.AMSGrad, ams.WeightDecay = true, 0.05
	maxi.Maximize = true
	beta.Beta1, beta.Beta2, beta.Eps = 0.5, 0.8, 1e-3
	cases := []adamCase{
		{"Adam", def, false}, {"Adam/wd", wd, false}, {"Adam/amsgrad", ams, false},
		{"Adam/maximize", maxi, false}, {"Adam/betas", beta, false},
		{"AdamW", def, true}, {"AdamW/wd", wd, true}, {"AdamW/amsgrad", ams, true},
	}
	for _, dc := range ruleCases(t) {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%v/%s", dc.dev.Name(), dc.dt, c.name), func(t *testing.T) {
				checkRule(t, dc.dev, dc.dt, ruleOpt{
					make: func(ps []*nn.Parameter) (optim.Optimizer, error) {
						if c.decoupled {
							return optim.NewAdamW(ps, lr, c.o)
						}
						return optim.NewAdam(ps, lr, c.o)
					},
					ref: adamRef(lr, c.o, c.decoupled),
				})
			})
		}
	}
}

// rmspropRef is torch.optim.RMSprop's algorithm for one parameter,
// written out in float64 (the lerp of the centred average in PyTorch's
// two forms).
func rmspropRef(lr float64, o optim.RMSpropOptions) func(p int, w, g []float64) {
	type st struct{ s, a, b []float64 }
	states := map[int]*st{}
	return func(p int, w, g []float64) {
		s, ok := states[p]
		if !ok {
			s = &st{make([]float64, len(w)), make([]float64, len(w)), make([]float64, len(w))}
			states[p] = s
		}
		for i := range w {
			d := g[i]
			if o.Maximize {
				d = -d
			}
			d += o.WeightDecay * w[i]
			s.s[i] = o.Alpha*s.s[i] + (1-o.Alpha)*d*d
			q := s.s[i]
			if o.Centered {
				if wt := 1 - o.Alpha; wt < 0.5 {
					s.a[i] += wt * (d - s.a[i])
				} else {
					s.a[i] = d - (d-s.a[i])*(1-wt)
				}
				q -= s.a[i] * s.a[i]
			}
			q = math.Sqrt(q) + o.Eps
			if o.Momentum > 0 {
				s.b[i] = o.Momentum*s.b[i] + d/q
				w[i] -= lr * s.b[i]
			} else {
				w[i] -= lr * d / q
			}
		}
	}
}

// TestRMSpropRule checks RMSprop's options against the algorithm written
// out, on every device.
func TestRMSpropRule(t *testing.T) {
	const lr = 0.01
	def := optim.DefaultRMSprop()
	all, low := def, def
	all.Centered, all.Momentum, all.WeightDecay, all.Maximize = true, 0.9, 0.1, true
	low.Alpha, low.Centered, low.Eps = 0.3, true, 1e-3 // the lerp's second form
	cases := map[string]optim.RMSpropOptions{"default": def, "centered-momentum-wd-maximize": all, "alpha-0.3-centered": low}
	for _, dc := range ruleCases(t) {
		for name, c := range cases {
			t.Run(fmt.Sprintf("%s/%v/%s", dc.dev.Name(), dc.dt, name), func(t *testing.T) {
				checkRule(t, dc.dev, dc.dt, ruleOpt{
					make: func(ps []*nn.Parameter) (optim.Optimizer, error) { return optim.NewRMSprop(ps, lr, c) },
					ref:  rmspropRef(lr, c),
				})
			})
		}
	}
	bad := def
	bad.Alpha = 1
	if _, err := optim.NewRMSprop(nil, lr, bad); err == nil {
		t.Error("alpha 1 accepted")
	}
}
