package tensor_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestErrors reaches every error kind through the public API and checks
// that errors.Is works, that the message names the operation and values,
// and that errors are sticky through later operations.
func TestErrors(t *testing.T) {
	x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	y := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 2, 5)
	i := tensor.FromSlice([]int32{1, 2, 3})
	released := tensor.Ones(dtype.F32, 2)
	released.Release()
	huge := math.MaxInt64 / 4

	cases := []struct {
		name string
		got  *tensor.Tensor
		kind error
		msg  string
	}{
		{"matmul inner", x.Matmul(y), tensor.ErrShape, "tensor: Matmul: inner dimensions differ: [2 3] x [2 5]"},
		{"matmul scalar", tensor.Scalar[float32](1).Matmul(x), tensor.ErrShape, "Matmul"},
		{"broadcast", x.Add(y), tensor.ErrShape, "[2 3] and [2 5]"},
		{"reshape", x.Reshape(4, 2), tensor.ErrShape, "Reshape"},
		{"reshape two -1", x.Reshape(-1, -1), tensor.ErrShape, "Reshape"},
		{"negative shape", tensor.Zeros(dtype.F32, 2, -1), tensor.ErrShape, "negative"},
		{"overflow shape", tensor.Zeros(dtype.F32, huge, huge), tensor.ErrShape, "Zeros"},
		{"huge alloc", tensor.Zeros(dtype.F64, 1<<30, 1<<16), tensor.ErrOutOfMemory, "Zeros"},
		{"fromslice count", tensor.FromSlice([]float32{1, 2, 3}, 2, 2), tensor.ErrShape, "3 values"},
		{"axis", x.Sum(2), tensor.ErrAxis, "axis 2 out of range for rank 2"},
		{"repeated axis", x.Sum(0, -2), tensor.ErrAxis, "repeated"},
		{"permute", x.Permute(0, 0), tensor.ErrAxis, "Permute"},
		{"narrow", x.Narrow(1, 2, 2), tensor.ErrAxis, "Narrow"},
		{"squeeze", x.Squeeze(0), tensor.ErrShape, "Squeeze"},
		{"argmax axis", x.ArgMax(-3), tensor.ErrAxis, "ArgMax"},
		{"index range", x.IndexSelect(1, tensor.FromSlice([]int64{0, 3})), tensor.ErrAxis, "index 3 out of range"},
		{"dtype of bool operands", x.GtScalar(1).Sub(x.Cast(dtype.Bool)), tensor.ErrDType, "bool"},
		{"leaky relu of int", i.LeakyRelu(0.1), tensor.ErrDType, "LeakyRelu"},
		{"mean of int", i.Mean(), tensor.ErrDType, "Mean"},
		{"bool subtraction", x.GtScalar(1).Sub(x.GtScalar(2)), tensor.ErrDType, "bool"},
		{"where bool subtraction", tensor.Where(x, x.GtScalar(1), x.GtScalar(2)).Sub(x.GtScalar(0)), tensor.ErrDType, "bool"},
		{"rand int", tensor.Rand(dtype.I32, 1, 3), tensor.ErrDType, "Rand"},
		{"invalid dtype", tensor.Zeros(dtype.Invalid, 3), tensor.ErrDType, "Zeros"},
		{"empty max", tensor.Zeros(dtype.F32, 3, 0).Max(1), tensor.ErrShape, "empty extent"},
		{"empty min", tensor.Zeros(dtype.F32, 0).Min(), tensor.ErrShape, "empty extent"},
		{"empty argmax", tensor.Zeros(dtype.F32, 2, 0).ArgMax(1), tensor.ErrShape, "empty extent"},
		{"released", released.Exp(), tensor.ErrReleased, "released"},
		{"released view", released.T(), tensor.ErrReleased, "released"},
		{"nil", (*tensor.Tensor)(nil).Exp(), tensor.ErrValue, "nil"},
		{"zero value", new(tensor.Tensor).Exp(), tensor.ErrValue, "zero"},
		{"arange step", tensor.Arange(dtype.F32, 0, 1, 0), tensor.ErrValue, "Arange"},
		{"slice step", x.Slice(0, 0, 2, 0), tensor.ErrValue, "step"},
		{"norm NaN order", x.Norm(math.NaN()), tensor.ErrValue, "Norm"},
		{"concat none", tensor.Concat(nil, 0), tensor.ErrValue, "Concat"},
		{"stack shapes", tensor.Stack([]*tensor.Tensor{x, y}, 0), tensor.ErrShape, "Stack"},
		{"nil device", x.To(nil), tensor.ErrDevice, "nil device"},
		{"sticky", x.Matmul(y).Add(x).Relu().Softmax(-1), tensor.ErrShape, "tensor: Matmul: inner dimensions differ"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.got.Err()
			if err == nil {
				t.Fatalf("no error; want %v", c.kind)
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error %q is not %v", err, c.kind)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not mention %q", err, c.msg)
			}
			if !strings.HasPrefix(err.Error(), "tensor: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			// Failed tensors are inert: info methods answer, readback errs.
			if c.got.Shape() != nil || c.got.Numel() != 0 || c.got.DType() != dtype.Invalid {
				t.Errorf("failed tensor reports shape %v numel %d dtype %v", c.got.Shape(), c.got.Numel(), c.got.DType())
			}
			if _, err := tensor.ToSlice[float32](c.got); !errors.Is(err, c.kind) {
				t.Errorf("ToSlice error %v, want %v", err, c.kind)
			}
			if s := c.got.String(); !strings.Contains(s, "error") {
				t.Errorf("String() = %q, want the error", s)
			}
		})
	}
}

func TestReadbackErrors(t *testing.T) {
	x := tensor.FromSlice([]float32{1, 2, 3})
	if _, err := tensor.ToSlice[float64](x); !errors.Is(err, tensor.ErrDType) {
		t.Errorf("ToSlice with the wrong type: %v, want ErrDType", err)
	}
	if _, err := x.Item(); !errors.Is(err, tensor.ErrShape) {
		t.Errorf("Item of 3 elements: %v, want ErrShape", err)
	}
	if v, err := x.Narrow(0, 1, 1).Item(); err != nil || v != 2 {
		t.Errorf("Item = %v, %v; want 2", v, err)
	}
	if _, err := device.Open("no-such-device"); !errors.Is(err, tensor.ErrDevice) {
		t.Errorf("Open unknown: %v, want ErrDevice", err)
	}
	if _, err := device.Open("cpu:7"); !errors.Is(err, tensor.ErrDevice) {
		t.Errorf("Open cpu:7: %v, want ErrDevice", err)
	}
}

// TestDifferentDevices checks that mixing devices is an error, never a
// silent transfer.
func TestDifferentDevices(t *testing.T) {
	// A second CPU device is a different device, so no GPU is needed.
	devs := append(testDevices(t), cpu.New())
	a := tensor.Ones(dtype.F32, 3).To(devs[0])
	b := tensor.Ones(dtype.F32, 3).To(devs[len(devs)-1])
	for name, got := range map[string]*tensor.Tensor{
		"Add": a.Add(b), "Matmul": a.Matmul(b), "Where": tensor.Where(a.GtScalar(0), a, b), "Concat": tensor.Concat([]*tensor.Tensor{a, b}, 0),
	} {
		if err := got.Err(); !errors.Is(err, tensor.ErrDevice) {
			t.Errorf("%s across devices: %v, want ErrDevice", name, err)
		}
	}
}

// TestRelease checks reference counting: views keep storage alive, and
// memory returns to the baseline once every view is released.
func TestRelease(t *testing.T) {
	// A private device, so that garbage collection of other tests' tensors
	// cannot move its memory counter.
	for _, dev := range []device.Device{cpu.New()} {
		t.Run(dev.Name(), func(t *testing.T) {
			be := dev.Backend()
			if err := be.Sync(); err != nil {
				t.Fatal(err)
			}
			base := be.MemoryInUse()
			host := tensor.Arange(dtype.F32, 0, 12, 1)
			x := host.To(dev)
			host.Release()
			r := x.Reshape(3, 4)
			v := r.T()
			r.Release()
			x.Release()
			x.Release() // twice is harmless
			if _, err := tensor.ToSlice[float32](x); !errors.Is(err, tensor.ErrReleased) {
				t.Errorf("released tensor readback: %v", err)
			}
			got, err := tensor.ToSlice[float32](v)
			if err != nil || got[1] != 4 {
				t.Fatalf("view after release of its base: %v %v", got, err)
			}
			for range 100 {
				e := v.Exp()
				y := e.Add(v)
				e.Release()
				y.Release()
			}
			v.Release()
			if err := be.Sync(); err != nil {
				t.Fatal(err)
			}
			if in := be.MemoryInUse(); in != base {
				t.Errorf("memory in use %d after releasing everything, baseline %d", in, base)
			}
		})
	}
}

// TestHugeEmpty checks that empty tensors with enormous extents cost nothing.
func TestHugeEmpty(t *testing.T) {
	for _, dt := range []dtype.DType{dtype.F32, dtype.I32} {
		a := tensor.Zeros(dt, 1<<40, 0, 3)
		b := tensor.Zeros(dt, 3, 2)
		for name, got := range map[string]*tensor.Tensor{
			"Matmul": a.Matmul(b), "Sum": a.Sum(2), "Add": a.Add(tensor.Zeros(dt, 3)), "Cast": a.Cast(dtype.F64),
		} {
			if err := got.Err(); err != nil {
				t.Errorf("%s %v: %v", name, dt, err)
			} else if got.Numel() != 0 {
				t.Errorf("%s %v: %d elements", name, dt, got.Numel())
			}
		}
	}
}
