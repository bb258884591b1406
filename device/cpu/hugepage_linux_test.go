//go:build linux

package cpu

import (
	"testing"
	"unsafe"

	"github.com/tessera-go/tessera/internal/hugepage"
)

// TestHugePageAdvice checks that a fresh buffer of 16 MiB has its whole
// 2 MiB pages advised onto transparent huge pages: the mapping that holds
// its middle carries the "hg" flag (MADV_HUGEPAGE).
func TestHugePageAdvice(t *testing.T) {
	if !hugepage.Available() {
		t.Skip("no transparent huge pages on this kernel")
	}
	w := uninitWords(2<<20, 2<<20)
	ok, err := hugepage.Advised(unsafe.Pointer(&w[len(w)/2]))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Error("the mapping holding a fresh 16 MiB buffer has no hg flag")
	}
}
