package hugepage

import (
	"testing"
	"unsafe"
)

// TestAdvise checks that advising a fresh 16 MiB buffer flags the mapping
// that holds its middle (nothing else in this test binary advises, so
// without Advise the flag is absent). Whether the kernel then finds huge
// pages is the machine's business, so the test does not ask.
func TestAdvise(t *testing.T) {
	if !Available() {
		t.Skip("no transparent huge pages on this kernel")
	}
	b := make([]byte, 16<<20)
	mid := unsafe.Pointer(&b[len(b)/2])
	Advise(unsafe.Pointer(&b[0]), len(b))
	ok, err := Advised(mid)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Error("a 16 MiB buffer advised: its mapping has no hg flag")
	}
}
