package nn_test

import (
	"math"
	"os"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// gpu returns the software WebGPU device, skipping the test when it cannot
// be opened unless TESSERA_REQUIRE_WEBGPU=1, which makes that a failure.
func gpu(t testing.TB) device.Device {
	t.Helper()
	dev, err := device.Open("webgpu:software")
	switch {
	case err == nil:
		return dev
	case os.Getenv("TESSERA_REQUIRE_WEBGPU") == "1":
		t.Fatalf("TESSERA_REQUIRE_WEBGPU=1 but the WebGPU software adapter is unavailable: %v", err)
	default:
		t.Skipf("WebGPU not tested: %v", err)
	}
	return nil
}

// testDevices is the CPU and, when it opens, the software WebGPU device.
func testDevices(t testing.TB) []device.Device {
	t.Helper()
	devs := []device.Device{device.CPU()}
	dev, err := device.Open("webgpu:software")
	switch {
	case err == nil:
		devs = append(devs, dev)
	case os.Getenv("TESSERA_REQUIRE_WEBGPU") == "1":
		t.Fatalf("TESSERA_REQUIRE_WEBGPU=1 but the WebGPU software adapter is unavailable: %v", err)
	default:
		t.Logf("WebGPU not tested: %v", err)
	}
	return devs
}

// vals reads x's values as float64, failing the test on an error.
func vals(t testing.TB, x *tensor.Tensor) []float64 {
	t.Helper()
	if x == nil {
		t.Fatal("nil tensor")
	}
	v, err := x.To(device.CPU()).Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// randn is a seeded standard normal F64 tensor on the CPU and its values.
func randn(t testing.TB, seed uint64, shape ...int) (*tensor.Tensor, []float64) {
	t.Helper()
	x := tensor.RandN(dtype.F64, seed, shape...)
	return x, vals(t, x)
}

// near fails unless got and want agree to within atol + rtol·|want| each.
func near(t testing.TB, what string, got, want []float64, rtol, atol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(got[i] - want[i]); !(d <= atol+rtol*math.Abs(want[i])) {
			t.Fatalf("%s: element %d is %v, want %v (difference %g)", what, i, got[i], want[i], d)
		}
	}
}

// shapeOf fails unless x has the given shape.
func shapeOf(t testing.TB, x *tensor.Tensor, shape ...int) {
	t.Helper()
	if err := x.Err(); err != nil {
		t.Fatal(err)
	}
	got := x.Shape()
	if len(got) != len(shape) {
		t.Fatalf("shape %v, want %v", got, shape)
	}
	for i := range got {
		if got[i] != shape[i] {
			t.Fatalf("shape %v, want %v", got, shape)
		}
	}
}
