package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/devicetest"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

func grad64(t *testing.T, x *tensor.Tensor) []float64 {
	t.Helper()
	g := x.Grad()
	if g == nil {
		t.Fatal("Grad is nil")
	}
	v, err := g.To(device.CPU()).Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestBackwardAccumulatesAndZeroGrad(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2, 3}, 3).RequiresGrad()
	if x.Grad() != nil {
		t.Fatal("Grad before any Backward is not nil")
	}
	for range 2 {
		if err := x.Square().Sum().Backward(); err != nil {
			t.Fatal(err)
		}
	}
	if got := grad64(t, x); !reflect.DeepEqual(got, []float64{4, 8, 12}) {
		t.Errorf("two Backward calls accumulated %v, want [4 8 12]", got)
	}
	x.ZeroGrad()
	if x.Grad() != nil {
		t.Error("Grad after ZeroGrad is not nil")
	}
	if err := x.MulScalar(3).Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	if got := grad64(t, x); !reflect.DeepEqual(got, []float64{3, 3, 3}) {
		t.Errorf("after ZeroGrad: %v, want [3 3 3]", got)
	}
	// The gradient of a broadcast is a tensor of its own, contiguous.
	if !x.Grad().IsContiguous() {
		t.Error("a leaf's gradient is not contiguous")
	}
}

func TestBackwardFreesGraph(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2}, 2).RequiresGrad()
	loss := x.Exp().Mul(x).Sum()
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	if err := loss.Backward(); !errors.Is(err, tensor.ErrReleased) || !strings.Contains(err.Error(), "BackwardRetain") {
		t.Errorf("second Backward through a freed graph: %v, want ErrReleased naming BackwardRetain", err)
	}
	x.ZeroGrad()
	loss = x.Exp().Mul(x).Sum()
	for range 2 {
		if err := loss.BackwardRetain(nil); err != nil {
			t.Fatal(err)
		}
	}
	got := grad64(t, x)
	for i, v := range []float64{1, 2} {
		want := 2 * (math.Exp(v) + v*math.Exp(v))
		if math.Abs(got[i]-want) > 1e-12*want {
			t.Errorf("BackwardRetain twice: grad[%d] = %v, want %v", i, got[i], want)
		}
	}
	if err := loss.Backward(); err != nil { // and once more, freeing it
		t.Fatal(err)
	}
}

func TestBackwardWithSeed(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2).RequiresGrad()
	y := x.Square()
	seed := tensor.FromSlice([]float64{1, 0, 0, 2}, 2, 2)
	if err := y.BackwardWith(seed); err != nil {
		t.Fatal(err)
	}
	if got := grad64(t, x); !reflect.DeepEqual(got, []float64{2, 0, 0, 16}) {
		t.Errorf("BackwardWith: %v, want [2 0 0 16]", got)
	}
	if err := x.Square().BackwardWith(tensor.Ones(dtype.F64, 4)); !errors.Is(err, tensor.ErrShape) {
		t.Errorf("seed of the wrong shape: %v, want ErrShape", err)
	}
	if err := x.Square().BackwardWith(tensor.Ones(dtype.F32, 2, 2)); !errors.Is(err, tensor.ErrDType) {
		t.Errorf("seed of the wrong dtype: %v, want ErrDType", err)
	}
}

func TestDetach(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2, 3}, 3).RequiresGrad()
	d := x.Detach()
	if d.Grad() != nil {
		t.Error("a detached tensor has a gradient")
	}
	// x * detach(x): the gradient is x, not 2x.
	if err := x.Mul(d).Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	if got := grad64(t, x); !reflect.DeepEqual(got, []float64{1, 2, 3}) {
		t.Errorf("gradient through Detach: %v, want [1 2 3]", got)
	}
	// Operations on detached tensors record nothing.
	if err := d.Exp().Sum().Backward(); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("Backward of a detached computation: %v, want ErrValue", err)
	}
	// A pending tensor is detached too (computed first, as for every view).
	p := x.MulScalar(2)
	if got, _ := p.Detach().Float64s(); !reflect.DeepEqual(got, []float64{2, 4, 6}) {
		t.Errorf("Detach of a pending tensor: %v", got)
	}
}

func TestGradsFunctional(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2}, 2).RequiresGrad()
	w := tensor.FromSlice([]float64{3, 4}, 2).RequiresGrad()
	unused := tensor.FromSlice([]float64{5}, 1).RequiresGrad()
	h := x.Mul(w)
	y := h.Sum()
	for range 2 { // the graph is kept
		gs, err := tensor.Grads(y, x, w, h, unused)
		if err != nil {
			t.Fatal(err)
		}
		want := [][]float64{{3, 4}, {1, 2}, {1, 1}, {0}}
		for i, g := range gs {
			v, _ := g.Float64s()
			if !reflect.DeepEqual(v, want[i]) {
				t.Errorf("Grads[%d] = %v, want %v", i, v, want[i])
			}
		}
	}
	if x.Grad() != nil || w.Grad() != nil {
		t.Error("Grads touched a leaf's Grad")
	}
	if _, err := tensor.Grads(y, tensor.Ones(dtype.F64, 2)); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("Grads wrt a tensor that does not require grad: %v, want ErrValue", err)
	}
	if _, err := tensor.Grads(y, tensor.Ones(dtype.I32, 2)); !errors.Is(err, tensor.ErrDType) {
		t.Errorf("Grads wrt an integer tensor: %v, want ErrDType", err)
	}
	if _, err := tensor.Grads(h, x); !errors.Is(err, tensor.ErrShape) {
		t.Errorf("Grads of a non-scalar: %v, want ErrShape", err)
	}
}

func TestAutogradErrors(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2).RequiresGrad()

	err := x.Exp().Backward()
	if !errors.Is(err, tensor.ErrShape) || !strings.Contains(err.Error(), "[2 2]") {
		t.Errorf("Backward of a non-scalar: %v, want ErrShape naming [2 2]", err)
	}
	for _, dt := range []dtype.DType{dtype.I32, dtype.I64, dtype.U8, dtype.Bool} {
		if err := tensor.Ones(dt, 2).RequiresGrad().Err(); !errors.Is(err, tensor.ErrDType) {
			t.Errorf("RequiresGrad on %v: %v, want ErrDType", dt, err)
		}
	}
	// Integer and boolean results are not differentiable.
	if err := x.ArgMax(1).Sum().Backward(); !errors.Is(err, tensor.ErrDType) {
		t.Errorf("Backward of an integer result: %v, want ErrDType", err)
	}
	if err := x.GtScalar(2).Backward(); !errors.Is(err, tensor.ErrDType) {
		t.Errorf("Backward of a bool result: %v, want ErrDType", err)
	}
	// Through a cast to an integer dtype nothing flows either.
	if err := x.Cast(dtype.I32).Cast(dtype.F64).Sum().Backward(); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("Backward through an integer cast: %v, want ErrValue", err)
	}
	if err := tensor.Ones(dtype.F64).Backward(); !errors.Is(err, tensor.ErrValue) {
		t.Errorf("Backward of a tensor outside any graph: %v, want ErrValue", err)
	}
	// A released loss, and a released value the graph saved.
	loss := x.Sum()
	loss.Release()
	if err := loss.Backward(); !errors.Is(err, tensor.ErrReleased) {
		t.Errorf("Backward of a released tensor: %v, want ErrReleased", err)
	}
	e := x.Exp() // saves its result, pending when fused
	pending := tensor.IsPending(e)
	s := e.Sum()                    // a fused reduction: e stays pending
	if err := e.Err(); err != nil { // computes e
		t.Fatal(err)
	}
	e.Release() // frees it, unless the graph saved it computed
	switch err := s.Backward(); {
	case pending && !errors.Is(err, tensor.ErrReleased):
		t.Errorf("Backward needing a released value: %v, want ErrReleased", err)
	case !pending && err != nil:
		t.Errorf("Backward after releasing a value saved computed: %v", err)
	}
	// A saved value that was never computed (a fused reduction read it
	// as its prologue) and then released is computed from its graph.
	e2 := x.Exp()
	s2 := e2.Sum()
	e2.Release()
	if err := s2.Backward(); err != nil {
		t.Errorf("Backward needing a released value that was never computed: %v", err)
	}
	// Releasing a computed input, or a pending one before it is computed,
	// is safe: the graph holds what it needs.
	a := tensor.FromSlice([]float64{1, 2}, 2).RequiresGrad()
	b := tensor.FromSlice([]float64{3, 4}, 2)
	m := a.Mul(b)
	p := m.Tanh()
	b.Release()
	m.Release()
	if err := p.Sum().Backward(); err != nil {
		t.Errorf("Backward after releasing inputs the graph holds: %v", err)
	}
	// Errors stay sticky through RequiresGrad.
	if err := tensor.Ones(dtype.F32, 2).Reshape(3).RequiresGrad().Err(); !errors.Is(err, tensor.ErrShape) {
		t.Errorf("RequiresGrad of a failed tensor: %v", err)
	}
}

// TestAutogradKeepsFusion: a forward chain on tensors that require grad is
// still recorded (pending) and fused, and so is its backward.
func TestAutogradKeepsFusion(t *testing.T) {
	defer tensor.SetFusion(true)()
	x := tensor.RandN(dtype.F32, 1, 64).RequiresGrad()
	b := tensor.RandN(dtype.F32, 2, 64)
	y := x.Mul(b).Add(b).Tanh().MulScalar(2)
	if !tensor.IsPending(y) {
		t.Fatal("the forward chain was computed while recording")
	}
	gs, err := tensor.Grads(y.Sum(), x)
	if err != nil {
		t.Fatal(err)
	}
	if gs[0].Numel() != 64 {
		t.Fatal(gs[0].Shape())
	}
}

// TestAutogradNoGradAllocs: operations on tensors outside any graph
// allocate nothing more than before (the fusion test holds them to two per
// recorded operation); with a graph, recording costs a few allocations
// more.
func TestAutogradNoGradAllocs(t *testing.T) {
	defer tensor.SetFusion(true)()
	x := tensor.Ones(dtype.F32, 1024)
	b := tensor.Ones(dtype.F32, 1024)
	_ = x.Add(b).Err()
	plain := testing.AllocsPerRun(50, func() {
		y := x.Add(b)
		for range 9 {
			y = y.Mul(b)
		}
	}) / 10
	if plain > 2 {
		t.Errorf("recording without grad: %.2f allocations per operation, want at most 2", plain)
	}
	w := tensor.Ones(dtype.F32, 1024).RequiresGrad()
	withGrad := testing.AllocsPerRun(50, func() {
		y := w.Add(b)
		for range 9 {
			y = y.Mul(b)
		}
	}) / 10
	t.Logf("allocations per recorded operation: %.1f without grad, %.1f with", plain, withGrad)
}

// TestAutogradConcurrent trains two tiny models at once on two goroutines
// (run it with -race): each must reach the result of training it alone.
func TestAutogradConcurrent(t *testing.T) {
	train := func(seed uint64) ([]float64, error) {
		x := tensor.RandN(dtype.F64, seed, 16, 3)
		target := x.Matmul(tensor.FromSlice([]float64{1, -2, 0.5}, 3, 1))
		w := tensor.Zeros(dtype.F64, 3, 1).RequiresGrad()
		var first, last float64
		for i := range 60 {
			loss := x.Matmul(w).Sub(target).Square().Mean()
			if err := loss.Backward(); err != nil {
				return nil, err
			}
			v, err := loss.Item()
			if err != nil {
				return nil, err
			}
			if i == 0 {
				first = v
			}
			last = v
			w = w.Detach().Sub(w.Grad().MulScalar(0.1)).RequiresGrad()
		}
		if !(last < first/100) {
			return nil, errors.New("the loss did not fall")
		}
		return w.Float64s()
	}
	want := make([][]float64, 2)
	for i := range want {
		w, err := train(uint64(i + 1))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = w
	}
	var wg sync.WaitGroup
	got := make([][]float64, 2)
	errs := make([]error, 2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = train(uint64(i + 1))
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("model %d trained concurrently: %v, alone: %v", i, got[i], want[i])
		}
	}
	// One leaf shared by two goroutines' graphs: both gradients arrive.
	shared := tensor.FromSlice([]float64{1, 2}, 2).RequiresGrad()
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = shared.MulScalar(float64(i + 1)).Sum().Backward()
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if g := grad64(t, shared); !reflect.DeepEqual(g, []float64{3, 3}) {
		t.Errorf("shared leaf: %v, want [3 3]", g)
	}
}

// TestAutogradMemoryBounded runs forward and backward of a small MLP 200
// times on each device with no Release anywhere: memory in use stays
// bounded, and comes back after a collection.
func TestAutogradMemoryBounded(t *testing.T) {
	iters := 200
	for _, dev := range testDevices(t) {
		be := dev.Backend()
		base := devicetest.SettledMemory(t, be)
		w1 := tensor.RandN(dtype.F32, 1, 64, 128).MulScalar(0.1).To(dev).RequiresGrad()
		b1 := tensor.Zeros(dtype.F32, 128).To(dev).RequiresGrad()
		w2 := tensor.RandN(dtype.F32, 2, 128, 10).MulScalar(0.1).To(dev).RequiresGrad()
		x := tensor.RandN(dtype.F32, 3, 32, 64).To(dev)
		var mid, peak int64
		for i := range iters {
			h := x.Matmul(w1).Add(b1).Relu()
			loss := h.Matmul(w2).LogSoftmax(-1).Mean().Neg()
			if err := loss.Backward(); err != nil {
				t.Fatalf("%s: iteration %d: %v", dev.Name(), i, err)
			}
			use := be.MemoryInUse()
			if i == iters/2 {
				mid = use
			}
			if i > iters/2 {
				peak = max(peak, use)
			}
		}
		if w1.Grad() == nil || b1.Grad() == nil || w2.Grad() == nil {
			t.Fatalf("%s: a parameter got no gradient", dev.Name())
		}
		if peak > mid+96<<20 {
			t.Errorf("%s: memory in use rose from %d to %d MiB over the second half", dev.Name(), mid>>20, peak>>20)
		}
		x, w1, b1, w2 = nil, nil, nil, nil
		if after := devicetest.MemoryBackTo(t, be, base); after > base {
			t.Errorf("%s: %d bytes still in use after the loop and a collection (baseline %d)", dev.Name(), after, base)
		}
		t.Logf("%s: %d steps, memory in use at half %d KiB, peak after %d KiB", dev.Name(), iters, mid>>10, peak>>10)
	}
}

// TestBackwardDeepChain: the graph walk is iterative, so a long chain is
// fine.
func TestBackwardDeepChain(t *testing.T) {
	x := tensor.FromSlice([]float64{1}, 1).RequiresGrad()
	y := x
	for range 5000 {
		y = y.MulScalar(1)
	}
	if err := y.Sum().Backward(); err != nil {
		t.Fatal(err)
	}
	if got := grad64(t, x); got[0] != 1 {
		t.Errorf("gradient through 5000 steps: %v", got)
	}
}

// TestSetGrad checks SetGrad against PyTorch's grad assignment: the new
// gradient is what Grad returns and what the next Backward adds to, nil
// clears it, and a gradient of the wrong shape, dtype or device, or a
// tensor that is not a leaf requiring grad, is a typed error that changes
// nothing.
func TestSetGrad(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2, 3}).RequiresGrad()
	if err := x.SetGrad(tensor.FromSlice([]float64{10, 20, 30})); err != nil {
		t.Fatal(err)
	}
	if err := x.Mul(x).Sum().Backward(); err != nil { // adds 2x
		t.Fatal(err)
	}
	got, err := tensor.ToSlice[float64](x.Grad())
	if err != nil || fmt.Sprint(got) != "[12 24 36]" {
		t.Fatalf("Grad after SetGrad and Backward = %v, %v; want [12 24 36]", got, err)
	}
	for name, c := range map[string]struct {
		t, g *tensor.Tensor
		kind error
	}{
		"shape":    {x, tensor.FromSlice([]float64{1, 2}), tensor.ErrShape},
		"dtype":    {x, tensor.FromSlice([]float32{1, 2, 3}), tensor.ErrDType},
		"not leaf": {x.MulScalar(2), tensor.FromSlice([]float64{1, 2, 3}), tensor.ErrValue},
		"no grad":  {tensor.FromSlice([]float64{1, 2, 3}), tensor.FromSlice([]float64{1, 2, 3}), tensor.ErrValue},
	} {
		if err := c.t.SetGrad(c.g); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", name, err, c.kind)
		}
	}
	if got, _ := tensor.ToSlice[float64](x.Grad()); fmt.Sprint(got) != "[12 24 36]" {
		t.Fatalf("a refused SetGrad changed the gradient to %v", got)
	}
	if err := x.SetGrad(nil); err != nil || x.Grad() != nil {
		t.Fatalf("SetGrad(nil): %v, gradient %v", err, x.Grad())
	}
}
