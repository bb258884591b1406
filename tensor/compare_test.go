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

// TestAllCloseBlocks checks AllClose across its blocks of 2^15 elements: a
// difference in the last, partial block only (float32 and float64, whose
// blocks are views rather than converted copies), a transposed operand
// against its copy, infinities and a NaN late, and the 0-d and empty
// cases.
func TestAllCloseBlocks(t *testing.T) {
	const n = 2<<15 + 5
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = math.Sin(float64(i))
	}
	vals[n/2] = math.Inf(1)
	vals[n-3] = math.Inf(-1)
	far := slices.Clone(vals)
	far[n-1] += 1e-3
	nan := slices.Clone(vals)
	nan[n-2] = math.NaN()
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
		a := tensor.FromSlice(vals, n).Cast(dt)
		cases := []struct {
			name string
			y    *tensor.Tensor
			want bool
		}{
			{"equal", tensor.FromSlice(slices.Clone(vals), n).Cast(dt), true},
			{"far in the last block", tensor.FromSlice(far, n).Cast(dt), false},
			{"nan in the last block", tensor.FromSlice(nan, n).Cast(dt), false},
		}
		for _, c := range cases {
			if got, err := tensor.AllClose(a, c.y, 1e-5, 1e-8); err != nil || got != c.want {
				t.Errorf("%v %s: %v, %v; want %v", dt, c.name, got, err, c.want)
			}
		}
		m := tensor.FromSlice(vals[:600*100], 600, 100).Cast(dt)
		mt := m.T()
		if got, err := tensor.AllClose(mt, mt.Contiguous(), 0, 0); err != nil || !got {
			t.Errorf("%v transposed: %v, %v", dt, got, err)
		}
	}
	s, e := tensor.Scalar(1.5), tensor.Zeros(dtype.F32, 0, 3)
	if got, err := tensor.AllClose(s, tensor.Scalar(1.5+1e-12), 0, 1e-9); err != nil || !got {
		t.Errorf("0-d: %v, %v", got, err)
	}
	if got, err := tensor.AllClose(e, tensor.Zeros(dtype.F64, 0, 3), 0, 0); err != nil || !got {
		t.Errorf("empty: %v, %v", got, err)
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
