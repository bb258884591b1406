package optim_test

import (
	"runtime"
	"testing"

	"github.com/tessera-go/tessera/device/devicetest"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestTrainingMemoryFlat trains a small MLP for 1,000 steps (forward,
// backward, an optimiser step, ZeroGrad) written as natural code, with no
// Release anywhere, on every device and with each optimiser: the device
// memory in use must not grow over the second half of the run, the Go heap
// after a collection must not grow between the middle and the end (state
// chained into a growing lazy graph, or graphs kept alive, would show
// there), and a collection after the loop returns device memory to its
// baseline.
func TestTrainingMemoryFlat(t *testing.T) {
	iters := 1000
	if testing.Short() {
		iters = 200
	}
	makers := map[string]func([]*nn.Parameter) (optim.Optimizer, error){
		"SGD": func(ps []*nn.Parameter) (optim.Optimizer, error) {
			return optim.NewSGD(ps, 0.05, optim.SGDOptions{Momentum: 0.9, WeightDecay: 1e-4})
		},
		"AdamW": func(ps []*nn.Parameter) (optim.Optimizer, error) {
			o := optim.DefaultAdam()
			o.AMSGrad, o.WeightDecay = true, 0.01
			return optim.NewAdamW(ps, 1e-3, o)
		},
		"RMSprop": func(ps []*nn.Parameter) (optim.Optimizer, error) {
			o := optim.DefaultRMSprop()
			o.Centered, o.Momentum = true, 0.9
			return optim.NewRMSprop(ps, 1e-3, o)
		},
	}
	for _, dev := range testDevices(t) {
		for name, mk := range makers {
			t.Run(dev.Name()+"/"+name, func(t *testing.T) {
				be := dev.Backend()
				base := devicetest.SettledMemory(t, be)
				ps := []*nn.Parameter{
					nn.NewParameter("w1", tensor.RandN(dtype.F32, 1, 32, 16).MulScalar(0.3).To(dev)),
					nn.NewParameter("b1", tensor.Zeros(dtype.F32, 32).To(dev)),
					nn.NewParameter("w2", tensor.RandN(dtype.F32, 2, 4, 32).MulScalar(0.2).To(dev)),
					nn.NewParameter("b2", tensor.Zeros(dtype.F32, 4).To(dev)),
				}
				x := tensor.RandN(dtype.F32, 3, 64, 16).To(dev)
				target := tensor.RandN(dtype.F32, 4, 64, 4).To(dev)
				opt, err := mk(ps)
				if err != nil {
					t.Fatal(err)
				}
				var mid, peak int64
				var heapMid uint64
				var first, last float64
				for i := range iters {
					h := x.Matmul(ps[0].Value.T()).Add(ps[1].Value).Relu()
					loss := h.Matmul(ps[2].Value.T()).Add(ps[3].Value).Sub(target).Square().Mean()
					if err := loss.Backward(); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if err := opt.Step(); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					opt.ZeroGrad()
					if i == 0 || i == iters-1 {
						v, err := loss.Item()
						if err != nil {
							t.Fatal(err)
						}
						if i == 0 {
							first = v
						} else {
							last = v
						}
					}
					use := be.MemoryInUse()
					if i == iters/2 {
						mid, heapMid = use, heapInUse()
					}
					if i > iters/2 {
						peak = max(peak, use)
					}
				}
				heapEnd := heapInUse()
				if !(last < first) {
					t.Errorf("loss went from %g to %g: training did not progress", first, last)
				}
				// Allow the collector's slack (the valve collects after 16 MiB of
				// growth) but not a steady climb.
				if peak > mid+32<<20 {
					t.Errorf("device memory in use rose from %d KiB to %d KiB over the second half", mid>>10, peak>>10)
				}
				if heapEnd > heapMid+1<<20 {
					t.Errorf("Go heap after collection grew from %d KiB at step %d to %d KiB at the end", heapMid>>10, iters/2, heapEnd>>10)
				}
				ps, x, target, opt = nil, nil, nil, nil
				if after := devicetest.MemoryBackTo(t, be, base); after > base {
					t.Errorf("%d bytes still in use after the loop and a collection (baseline %d)", after, base)
				}
				t.Logf("%d steps: loss %.4g -> %.4g; device memory at half %d KiB, peak after %d KiB; heap %d -> %d KiB",
					iters, first, last, mid>>10, peak>>10, heapMid>>10, heapEnd>>10)
			})
		}
	}
}
