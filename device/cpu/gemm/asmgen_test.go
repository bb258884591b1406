package gemm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedInSync runs the generator (asmgen.go with its skinny and
// low-precision parts, as go generate does) into a temporary directory and
// checks that every committed output is identical, so an edit to the
// generator cannot be forgotten (run `go generate` in this directory to
// update them).
func TestGeneratedInSync(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	dir := t.TempDir()
	cmd := exec.Command(goBin, "run", "asmgen.go", "asmgen_skinny.go", "asmgen_lowp.go", "-dir", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run asmgen.go asmgen_skinny.go asmgen_lowp.go: %v\n%s", err, out)
	}
	for _, name := range []string{"gemm_avx512_amd64.s", "avx512_amd64.go", "skinny_avx512_amd64.s", "skinny_avx512_decl_amd64.go", "gemm_lowp_amd64.s", "lowp_decl_amd64.go", "shifted_avx512_amd64.s", "shifted_avx512_decl_amd64.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with asmgen.go: run `go generate` in device/cpu/gemm", name)
		}
	}
}
