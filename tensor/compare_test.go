package tensor_test

import (
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/tessera-go/tessera/device/cpu"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

func TestEqualAllClose(t *testing.T) {
	a := tensor.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	at := tensor.FromSlice([]float32{1, 3, 2, 4}, 2, 2).T() // same values, transposed storage
	near := tensor.FromSlice([]float32{1, 2, 3, 4.0001}, 2, 2)
	nan := tensor.FromSlice([]float32{1, 2, 3, float32(math.NaN())}, 2, 2)
	cases := []struct {
		name      string
		x, y      *tensor.Tensor
		equal     bool
		closeTo   bool
		rtol, tol float64
	}{
		{"same values other layout", a, at, true, true, 0, 0},
		{"near", a, near, false, true, 1e-4, 0},
		{"not near", a, near, false, false, 1e-6, 0},
		{"nan", nan, nan, false, false, 1, 1},
		{"shape", a, a.Reshape(4), false, false, 1, 1},
		{"dtype", a, a.Cast(dtype.F64), false, true, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eq, err := tensor.Equal(c.x, c.y)
			if err != nil || eq != c.equal {
				t.Errorf("Equal = %v, %v; want %v", eq, err, c.equal)
			}
			cl, err := tensor.AllClose(c.x, c.y, c.rtol, c.tol)
			if err != nil || cl != c.closeTo {
				t.Errorf("AllClose = %v, %v; want %v", cl, err, c.closeTo)
			}
		})
	}
	if _, err := tensor.Equal(a, a.Matmul(near.Reshape(4))); err == nil {
		t.Error("Equal with a failed operand reported no error")
	}
}

// TestCollectorFrees checks the safety net: tensors dropped without Release
// give their memory back once the garbage collector runs.
func TestCollectorFrees(t *testing.T) {
	dev := cpu.New()
	func() {
		for range 50 {
			x := tensor.Ones(dtype.F32, 256).To(dev)
			_ = x.Exp().Add(x)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for dev.MemoryInUse() != 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := dev.MemoryInUse(); n != 0 {
		t.Errorf("%d bytes still in use after collection", n)
	}
}

// TestRandRange checks that Rand stays in [0, 1) after rounding to every
// float dtype, and that a seed reproduces its values.
func TestRandRange(t *testing.T) {
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16} {
		v, err := tensor.Rand(dt, 3, 1<<16).Float64s()
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range v {
			if x < 0 || x >= 1 {
				t.Fatalf("%v: element %d = %v outside [0, 1)", dt, i, x)
			}
		}
		again, _ := tensor.Rand(dt, 3, 1<<16).Float64s()
		if !slices.Equal(v, again) {
			t.Errorf("%v: the same seed gave different values", dt)
		}
	}
}
