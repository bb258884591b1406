package tensor_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/tessera-go/tessera/internal/opgen"
)

// TestGeneratedOpsUpToDate fails when ops_gen.go no longer matches the op
// table: run `go generate ./tensor` after changing device/optable.go.
func TestGeneratedOpsUpToDate(t *testing.T) {
	want, err := opgen.Source()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("ops_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("tensor/ops_gen.go is stale: run `go generate ./tensor`")
	}
}
