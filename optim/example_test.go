package optim_test

import (
	"fmt"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

// ExampleAdam fits y = 2x - 1 by least squares: a weight and a bias are
// parameters, the loss is the mean squared error, and Adam moves them to
// the exact solution.
func ExampleAdam() {
	x := tensor.FromSlice([]float64{-2, -1, 0, 1, 2, 3}, 6, 1)
	y := x.MulScalar(2).SubScalar(1)
	w := nn.NewParameter("w", tensor.Zeros(dtype.F64, 1, 1))
	b := nn.NewParameter("b", tensor.Zeros(dtype.F64, 1))
	opt, err := optim.NewAdam([]*nn.Parameter{w, b}, 0.1, optim.DefaultAdam())
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 500 {
		loss := x.Matmul(w.Value).Add(b.Value).Sub(y).Square().Mean()
		if err := loss.Backward(); err != nil {
			fmt.Println(err)
			return
		}
		if err := opt.Step(); err != nil {
			fmt.Println(err)
			return
		}
		opt.ZeroGrad()
	}
	wv, _ := w.Value.Item()
	bv, _ := b.Value.Item()
	fmt.Printf("w = %.3f, b = %.3f\n", wv, bv)
	// Output: w = 2.000, b = -1.000
}

// ExampleSGD minimises (w - 3)² with momentum and a step decay of the
// learning rate: each Step of the scheduled optimiser uses the schedule's
// rate.
func ExampleSGD() {
	w := nn.NewParameter("w", tensor.FromSlice([]float64{0}))
	sgd, err := optim.NewSGD([]*nn.Parameter{w}, 0.1, optim.SGDOptions{Momentum: 0.9, Nesterov: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	decay, err := optim.StepLR(0.1, 50, 0.5) // halve the rate every 50 steps
	if err != nil {
		fmt.Println(err)
		return
	}
	opt := optim.Scheduled(sgd, decay)
	for range 200 {
		loss := w.Value.SubScalar(3).Square().Sum()
		if err := loss.Backward(); err != nil {
			fmt.Println(err)
			return
		}
		if err := opt.Step(); err != nil {
			fmt.Println(err)
			return
		}
		opt.ZeroGrad()
	}
	v, _ := w.Value.Item()
	fmt.Printf("w = %.4f after %d steps, learning rate now %.4f\n", v, opt.Steps(), opt.LR())
	// Output: w = 3.0000 after 200 steps, learning rate now 0.0063
}
