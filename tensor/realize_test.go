package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// realizeChain builds three pending results that read one another, as an
// optimiser's update does: m from a, v from m and a broadcast b, w from m
// and v.
func realizeChain(a, b *tensor.Tensor) (m, v, w *tensor.Tensor) {
	m = a.MulScalar(0.5)
	v = m.Mul(m).Add(b.Square())
	w = a.Sub(m.Div(v.Sqrt().AddScalar(1e-3)).MulScalar(0.1))
	return m, v, w
}

// TestRealizeTogether checks that Realize computes several pending tensors
// that read one another (in any order, on every device and float dtype)
// with the values each has when computed eagerly (TESSERA_FUSION=0), and
// leaves none pending.
func TestRealizeTogether(t *testing.T) {
	vals := make([]float64, 4*300)
	for i := range vals {
		vals[i] = math.Sin(float64(i)*0.37) * 1.5
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16} {
			if !computes(dev, dt) {
				continue
			}
			a := tensor.FromSlice(vals, 4, 300).Cast(dt).To(dev)
			b := tensor.FromSlice(vals[:300], 300).Cast(dt).To(dev)
			restore := tensor.SetFusion(false)
			em, ev, ew := realizeChain(a, b)
			restore()
			want := []*tensor.Tensor{em, ev, ew}
			for _, order := range [][3]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}} {
				name := fmt.Sprintf("%s/%v/%v", dev.Name(), dt, order)
				m, v, w := realizeChain(a, b)
				got := []*tensor.Tensor{m, v, w}
				if err := tensor.Realize(got[order[0]], got[order[1]], got[order[2]]); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for k := range got {
					if tensor.IsPending(got[k]) {
						t.Fatalf("%s: result %d still pending", name, k)
					}
					// The CPU's fused kernel runs the eager kernels on
					// contiguous blocks: equal bits. GPUs' fused kernels
					// may contract or reorder a few ulps.
					tol := 0.0
					if dev.Info().Type != "cpu" {
						tol = map[dtype.DType]float64{dtype.F32: 1e-5, dtype.F64: 1e-12, dtype.F16: 4e-3}[dt]
					}
					ev, _ := tensor.ToSlice[float64](want[k].To(device.CPU()).Cast(dtype.F64))
					fv, err := tensor.ToSlice[float64](got[k].To(device.CPU()).Cast(dtype.F64))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for i := range ev {
						if math.Abs(ev[i]-fv[i]) > tol*math.Max(1, math.Abs(ev[i])) {
							t.Fatalf("%s: result %d element %d = %v, eager %v", name, k, i, fv[i], ev[i])
						}
					}
				}
			}
		}
	}
}

// TestRealizeMixed checks Realize on what it does not fuse together:
// computed tensors, other shapes and dtypes, duplicates, and that it
// reports a released or nil tensor as Err does while computing the rest.
func TestRealizeMixed(t *testing.T) {
	a := tensor.FromSlice([]float32{1, 4, 9, 16}, 4)
	x := a.Sqrt()                                         // pending [4] f32
	y := a.Reshape(2, 2).AddScalar(1)                     // another shape
	z := a.Cast(dtype.F64).MulScalar(2)                   // another dtype
	if err := tensor.Realize(x, y, a, x, z); err != nil { // a is computed, x twice
		t.Fatal(err)
	}
	for _, c := range []struct {
		t    *tensor.Tensor
		want []float64
	}{{x, []float64{1, 2, 3, 4}}, {y, []float64{2, 5, 10, 17}}, {z, []float64{2, 8, 18, 32}}} {
		got, err := tensor.ToSlice[float64](c.t.Cast(dtype.F64))
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("got %v (%v), want %v", got, err, c.want)
		}
	}
	r := a.AddScalar(1)
	r.Release()
	p := a.MulScalar(3)
	// A pending tensor released before it was computed is ErrReleased;
	// with TESSERA_FUSION=0 r was computed at once, and Err of a released
	// computed tensor reports nothing.
	err := tensor.Realize(p, r)
	if want := r.Err(); (want == nil) != (err == nil) || (want != nil && !errors.Is(err, errs.ErrReleased)) {
		t.Errorf("Realize with a released tensor: %v, want %v", err, want)
	}
	if os.Getenv("TESSERA_FUSION") != "0" && !errors.Is(err, errs.ErrReleased) {
		t.Errorf("Realize with a released pending tensor: %v, want ErrReleased", err)
	}
	if got, _ := tensor.ToSlice[float32](p); fmt.Sprint(got) != "[3 12 27 48]" {
		t.Errorf("the valid tensor next to a released one: %v", got)
	}
	if err := tensor.Realize(a.AddScalar(1), nil); !errors.Is(err, errs.ErrValue) {
		t.Errorf("Realize with nil: %v, want ErrValue", err)
	}
	if err := tensor.Realize(); err != nil {
		t.Errorf("Realize(): %v", err)
	}
}

// TestRealizeConcurrent realises the same pending tensors from several
// goroutines in opposite orders (and one by one with Err): no deadlock,
// and every goroutine sees the same values.
func TestRealizeConcurrent(t *testing.T) {
	vals := make([]float64, 5000)
	for i := range vals {
		vals[i] = float64(i%97) - 40
	}
	a := tensor.FromSlice(vals, 5000).Cast(dtype.F32)
	b := tensor.FromSlice(vals[:1], 1).Cast(dtype.F32)
	for round := range 50 {
		m, v, w := realizeChain(a, b)
		var wg sync.WaitGroup
		errc := make(chan error, 4)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch g {
				case 0:
					errc <- tensor.Realize(m, v, w)
				case 1:
					errc <- tensor.Realize(w, v, m)
				case 2:
					errc <- v.Err()
				default:
					errc <- tensor.Realize(v, w)
				}
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		got, _ := tensor.ToSlice[float32](w)
		restore := tensor.SetFusion(false)
		_, _, ew := realizeChain(a, b)
		restore()
		want, _ := tensor.ToSlice[float32](ew)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: values differ from the eager ones", round)
		}
	}
}

// ExampleRealize computes an update and the state it reads in one pass.
func ExampleRealize() {
	w := tensor.FromSlice([]float32{1, 2, 3}, 3)
	g := tensor.FromSlice([]float32{0.5, -1, 2}, 3)
	m := g.MulScalar(0.1)                         // a moment, pending
	nw := w.Sub(m.MulScalar(10))                  // the new value reads it, pending
	if err := tensor.Realize(m, nw); err != nil { // one kernel on the CPU
		fmt.Println(err)
	}
	fmt.Println(m)
	fmt.Println(nw)
	// Output:
	// tensor([ 0.0500, -0.1000,  0.2000], dtype=f32, device=cpu)
	// tensor([0.5000, 3.0000, 1.0000], dtype=f32, device=cpu)
}
