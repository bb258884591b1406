package tensor_test

import (
	"os"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// testDevices returns every device the conformance table runs on: the CPU
// always, and the software WebGPU adapter when it can be opened. With
// TESSERA_REQUIRE_WEBGPU=1 a missing adapter fails the test instead of
// skipping it, so CI cannot pass without exercising the GPU backend.
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

// supports reports whether dev can hold dt.
func supports(dev device.Device, dt dtype.DType) bool {
	for _, d := range dev.Info().DTypes {
		if d == dt {
			return true
		}
	}
	return false
}

// computes reports whether dev computes with dt (not merely holds it).
func computes(dev device.Device, dt dtype.DType) bool {
	for _, d := range dev.Info().Compute {
		if d == dt {
			return true
		}
	}
	return false
}
