package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// ExampleScope frees a layer's intermediates when the scope closes and
// keeps only its result.
func ExampleScope() {
	x := tensor.FromSlice([]float32{1, -2, 3, -4}, 2, 2)
	w := tensor.FromSlice([]float32{0.5, 0, 0, 0.5}, 2, 2)
	var y *tensor.Tensor
	func() {
		s := tensor.NewScope()
		defer s.Close() // releases x.Matmul(w) and every other tensor made here
		h := x.Matmul(w).Relu()
		y = s.Keep(h.MulScalar(2).AddScalar(1))
	}()
	v, err := tensor.ToSlice[float32](y)
	fmt.Println(v, err)
	// Output: [2 1 4 1] <nil>
}

// ExampleWithScope is the function form: what fn keeps survives.
func ExampleWithScope() {
	x := tensor.FromSlice([]float64{1, 2, 3}, 3)
	var total *tensor.Tensor
	err := tensor.WithScope(func(s *tensor.Scope) error {
		sq := x.Square()
		total = s.Keep(sq.Sum())
		return total.Err()
	})
	v, _ := total.Item()
	fmt.Println(v, err)
	// Output: 14 <nil>
}

// mlpInputs builds x [8,16], w1 [16,32], b1 [32], w2 [32,4] on dev.
func mlpInputs(dev device.Device) (x, w1, b1, w2 *tensor.Tensor) {
	return tensor.RandN(dtype.F32, 1, 8, 16).To(dev), tensor.RandN(dtype.F32, 2, 16, 32).MulScalar(0.25).To(dev),
		tensor.RandN(dtype.F32, 3, 32).To(dev), tensor.RandN(dtype.F32, 4, 32, 4).MulScalar(0.25).To(dev)
}

// refMLP computes tanh(relu(x·w1 + b1)·w2) in float64.
func refMLP(t *testing.T, x, w1, b1, w2 *tensor.Tensor) []float64 {
	t.Helper()
	get := func(a *tensor.Tensor) []float64 {
		v, err := tensor.ToSlice[float64](a.To(device.CPU()).Cast(dtype.F64))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	xv, w1v, b1v, w2v := get(x), get(w1), get(b1), get(w2)
	out := make([]float64, 8*4)
	for i := range 8 {
		h := make([]float64, 32)
		for j := range 32 {
			s := b1v[j]
			for k := range 16 {
				s += xv[i*16+k] * w1v[k*32+j]
			}
			h[j] = math.Max(s, 0)
		}
		for j := range 4 {
			s := 0.0
			for k := range 32 {
				s += h[k] * w2v[k*4+j]
			}
			out[i*4+j] = math.Tanh(s)
		}
	}
	return out
}

func checkClose(t *testing.T, name string, got *tensor.Tensor, want []float64, tol float64) {
	t.Helper()
	v, err := tensor.ToSlice[float64](got.To(device.CPU()).Cast(dtype.F64))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i := range want {
		if math.Abs(v[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("%s: [%d] = %v, want %v", name, i, v[i], want[i])
		}
	}
}

// TestScopeFreesIntermediates: after Close, device memory holds only what
// was kept (the intermediates — matmul results, realised chains — are
// released at once, without a collection), and the kept values are right,
// with fusion on and off, whether the kept result is pending or realised.
func TestScopeFreesIntermediates(t *testing.T) {
	for _, dev := range testDevices(t) {
		x, w1, b1, w2 := mlpInputs(dev)
		want := refMLP(t, x, w1, b1, w2)
		for _, fuse := range []bool{true, false} {
			for _, realise := range []bool{true, false} {
				name := fmt.Sprintf("%s/fusion=%v/realised=%v", dev.Name(), fuse, realise)
				restore := tensor.SetFusion(fuse)
				runtime.GC()
				base := dev.Backend().MemoryInUse()
				var y *tensor.Tensor
				func() {
					s := tensor.NewScope()
					defer s.Close()
					h := x.Matmul(w1).Add(b1).Relu()
					y = s.Keep(h.Matmul(w2).Tanh())
					if realise {
						if err := y.Err(); err != nil {
							t.Fatal(err)
						}
					}
				}()
				restore()
				kept := dev.Backend().MemoryInUse() - base
				if realise && kept > 8*4*4+256 {
					t.Errorf("%s: %d bytes in use after Close, want only the kept [8,4] result", name, kept)
				}
				if !realise && kept > 8*4*4+256 {
					// A pending result holds its inputs (h·w2, [8,4]) and nothing more.
					t.Errorf("%s: %d bytes in use after Close, want only the pending result's input", name, kept)
				}
				checkClose(t, name, y, want, 1e-4)
				y.Release()
			}
		}
	}
}

// TestScopeAutograd: a loss kept from a scope back-propagates after Close,
// with the gradients of a run without scope; gradients outlive the scope.
func TestScopeAutograd(t *testing.T) {
	for _, dev := range testDevices(t) {
		x, w1, b1, w2 := mlpInputs(dev)
		grads := func(scoped bool) [][]float64 {
			p1, p2 := w1.Detach().RequiresGrad(), w2.Detach().RequiresGrad()
			forward := func() *tensor.Tensor { return x.Matmul(p1).Add(b1).Relu().Matmul(p2).Tanh().Square().Mean() }
			var loss *tensor.Tensor
			if scoped {
				s := tensor.NewScope()
				loss = s.Keep(forward())
				s.Close()
			} else {
				loss = forward()
			}
			if err := loss.Backward(); err != nil {
				t.Fatalf("%s scoped=%v: Backward: %v", dev.Name(), scoped, err)
			}
			var out [][]float64
			for _, p := range []*tensor.Tensor{p1, p2} {
				v, err := tensor.ToSlice[float64](p.Grad().To(device.CPU()).Cast(dtype.F64))
				if err != nil {
					t.Fatalf("%s scoped=%v: %v", dev.Name(), scoped, err)
				}
				out = append(out, v)
			}
			return out
		}
		plain, scoped := grads(false), grads(true)
		for k := range plain {
			for i := range plain[k] {
				if math.Abs(plain[k][i]-scoped[k][i]) > 1e-5*math.Max(1, math.Abs(plain[k][i])) {
					t.Fatalf("%s: grad %d [%d] = %v in a scope, %v without", dev.Name(), k, i, scoped[k][i], plain[k][i])
				}
			}
		}
		// Backward inside a scope: the leaves' gradients survive Close.
		p := w1.Detach().RequiresGrad()
		tensor.WithScope(func(s *tensor.Scope) error {
			return x.Matmul(p).Square().Sum().Backward()
		})
		if _, err := tensor.ToSlice[float32](p.Grad()); err != nil {
			t.Errorf("%s: a gradient accumulated in a scope did not survive Close: %v", dev.Name(), err)
		}
	}
}

// TestScopeNestingAndGoroutines: Keep hands a tensor to the enclosing
// scope, which frees it in turn; released tensors report ErrReleased;
// tensors made by another goroutine are not tracked.
func TestScopeNestingAndGoroutines(t *testing.T) {
	x := tensor.FromSlice([]float32{1, 2, 3}, 3)
	outer := tensor.NewScope()
	inner := tensor.NewScope()
	a := x.MulScalar(2)
	b := inner.Keep(x.AddScalar(1))
	var other *tensor.Tensor
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); other = x.SubScalar(1) }()
	wg.Wait()
	inner.Close()
	if _, err := tensor.ToSlice[float32](a); !errors.Is(err, tensor.ErrReleased) {
		t.Errorf("a tensor of the inner scope survived its Close: %v", err)
	}
	if v, err := tensor.ToSlice[float32](b); err != nil || v[0] != 2 {
		t.Errorf("kept tensor: %v, %v", v, err)
	}
	outer.Close()
	if _, err := tensor.ToSlice[float32](b); !errors.Is(err, tensor.ErrReleased) {
		t.Errorf("the outer scope did not free the tensor kept from the inner one: %v", err)
	}
	if v, err := tensor.ToSlice[float32](other); err != nil || v[0] != 0 {
		t.Errorf("another goroutine's tensor: %v, %v", v, err)
	}
	if err := x.Err(); err != nil {
		t.Errorf("a tensor made outside every scope was freed: %v", err)
	}
	outer.Close() // twice: harmless
}
