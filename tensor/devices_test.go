package tensor_test

import (
	"os"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// gpuDevices are the software GPU devices the tests run on when they can
// be opened, with the variable that makes a missing one fail the run
// instead of skipping it (CI sets both, so it cannot pass without
// exercising every GPU backend).
var gpuDevices = []struct{ name, require string }{
	{"webgpu:software", "TESSERA_REQUIRE_WEBGPU"},
	{"gl:software", "TESSERA_REQUIRE_GL"},
}

// testDevices returns every device the conformance table runs on: the CPU
// always, then each software GPU device of gpuDevices that can be opened,
// unless TESSERA_TEST_DEVICES=cpu keeps the tests on the CPU alone (CI's
// reruns with a forced CPU kernel tier, which changes nothing a GPU
// kernel computes).
func testDevices(t testing.TB) []device.Device {
	t.Helper()
	devs := []device.Device{device.CPU()}
	switch only := os.Getenv("TESSERA_TEST_DEVICES"); only {
	case "", "all":
	case "cpu":
		return devs
	default:
		t.Fatalf("TESSERA_TEST_DEVICES=%q: want cpu or all", only)
	}
	for _, g := range gpuDevices {
		gpu, err := device.Open(g.name)
		switch {
		case err == nil:
			devs = append(devs, gpu)
		case os.Getenv(g.require) == "1":
			t.Fatalf("%s=1 but %s is unavailable: %v", g.require, g.name, err)
		default:
			t.Logf("%s not tested: %v", g.name, err)
		}
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
