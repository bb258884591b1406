package main

import (
	"strings"
	"testing"
)

// TestNumpyMatmul runs the OpenBLAS comparison of `tessera bench` on one
// small size under the default core type: a positive figure, and the core
// type and python named, where a python3 with NumPy is installed (skipped
// otherwise, as bench then leaves the column out).
func TestNumpyMatmul(t *testing.T) {
	cts := openBLASCoreTypes()
	if len(cts) == 0 || cts[0] != "default" {
		t.Fatalf("openBLASCoreTypes() = %v, want \"default\" first", cts)
	}
	if numpyPython() == "" {
		t.Skip("no python3 with NumPy")
	}
	var seen []string
	res, note := numpyMatmul([]int{64}, []string{"default"}, func(ct string) { seen = append(seen, ct) })
	if r := res[64]; !(r.gflops > 0) || r.coreType != "default" {
		t.Errorf("numpyMatmul: %+v (note %q), want a positive figure under \"default\"", res, note)
	}
	if len(seen) != 1 || !strings.Contains(note, "NumPy (") {
		t.Errorf("progress calls %v, note %q", seen, note)
	}
}
