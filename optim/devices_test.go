package optim_test

import (
	"os"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"

	// The tests run every device, so they link the opt-in GPU backend as a
	// program that wants the GPU would.
	_ "github.com/tessera-go/tessera/device/webgpu"
)

// testDevices returns the CPU and, when it can be opened, the software
// WebGPU adapter. With TESSERA_REQUIRE_WEBGPU=1 a missing adapter fails
// the test instead of skipping the GPU.
func testDevices(t testing.TB) []device.Device {
	t.Helper()
	devs := []device.Device{device.CPU()}
	gpu, err := device.Open("webgpu:software")
	switch {
	case err == nil:
		devs = append(devs, gpu)
	case os.Getenv("TESSERA_REQUIRE_WEBGPU") == "1":
		t.Fatalf("TESSERA_REQUIRE_WEBGPU=1 but the WebGPU software adapter is unavailable: %v", err)
	default:
		t.Logf("WebGPU not tested: %v", err)
	}
	return devs
}

// computes reports whether dev computes with dt.
func computes(dev device.Device, dt dtype.DType) bool {
	for _, d := range dev.Info().Compute {
		if d == dt {
			return true
		}
	}
	return false
}

// tol is a comparison tolerance for one dtype: |got-want| <= atol + rtol*|want|.
type tol struct{ rtol, atol float64 }

// tolFor is the tolerance of a few optimiser steps (or one MLP pass)
// computed in dt against a float64 reference.
func tolFor(dt dtype.DType) tol {
	if dt == dtype.F64 {
		return tol{1e-12, 1e-13}
	}
	return tol{2e-5, 2e-6}
}

// onDevice builds a tensor of dt on dev holding vals (float64, row-major).
func onDevice(t testing.TB, dev device.Device, dt dtype.DType, vals []float64, shape ...int) *tensor.Tensor {
	t.Helper()
	x := tensor.FromSlice(vals, shape...).Cast(dt).To(dev)
	if err := x.Err(); err != nil {
		t.Fatal(err)
	}
	return x
}

// values reads x back as float64s.
func values(t testing.TB, x *tensor.Tensor) []float64 {
	t.Helper()
	v, err := x.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// closeTo reports the first element of got that differs from want beyond tl.
func closeTo(t testing.TB, what string, got, want []float64, tl tol) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		d := got[i] - want[i]
		if d < 0 {
			d = -d
		}
		if !(d <= tl.atol+tl.rtol*abs(want[i])) {
			t.Fatalf("%s[%d] = %.17g, want %.17g (|diff| %.3g, rtol %g, atol %g)", what, i, got[i], want[i], d, tl.rtol, tl.atol)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// rounded returns vals rounded to dt (the values a dt tensor holds), so a
// float64 reference starts from exactly the tested inputs.
func rounded(dt dtype.DType, vals []float64) []float64 {
	out := make([]float64, len(vals))
	for i, v := range vals {
		if dt == dtype.F32 {
			v = float64(float32(v))
		}
		out[i] = v
	}
	return out
}
