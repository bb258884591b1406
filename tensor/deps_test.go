package tensor_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCPUOnlyProgramLinksNoGPU proves that importing tensor alone links no
// GPU backend: neither tessera's WebGPU package nor the wgpu-native
// binding nor the OpenGL package is among tensor's dependencies, so a CPU-only program needs no
// GPU libraries even when cgo is on.
func TestCPUOnlyProgramLinksNoGPU(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list dependencies with")
	}
	out, err := exec.Command(gobin, "list", "-deps", "github.com/tessera-go/tessera/tensor").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 5 {
		t.Fatalf("go list -deps printed too little to judge: %q", out)
	}
	for _, dep := range deps {
		if strings.Contains(dep, "device/webgpu") || strings.Contains(dep, "go-webgpu") || strings.HasSuffix(dep, "device/gl") {
			t.Errorf("tensor depends on %s; GPU backends must be opt-in imports", dep)
		}
	}
}
