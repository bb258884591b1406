package device

import (
	"slices"
	"testing"
)

// TestDriverOrder checks the order List (and so Default's choice of a
// hardware GPU) visits drivers in: the CPU, WebGPU before OpenGL, then
// any other by name.
func TestDriverOrder(t *testing.T) {
	names := []string{"zz", "gl", "aa", "webgpu", "cpu"}
	sortDrivers(names)
	if want := []string{"cpu", "webgpu", "gl", "aa", "zz"}; !slices.Equal(names, want) {
		t.Errorf("driver order %v, want %v", names, want)
	}
}
