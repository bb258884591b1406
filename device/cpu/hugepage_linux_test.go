//go:build linux

package cpu

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping holding addr, from
// /proc/self/smaps.
func vmFlags(t *testing.T, addr uintptr) []string {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 0:
		case !strings.HasSuffix(fields[0], ":"): // a mapping's header: lo-hi perms ...
			var lo, hi uintptr
			if _, err := fmt.Sscanf(fields[0], "%x-%x", &lo, &hi); err != nil {
				t.Fatalf("smaps header %q: %v", sc.Text(), err)
			}
			in = lo <= addr && addr < hi
		case in && fields[0] == "VmFlags:":
			return fields[1:]
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return nil
}

// TestHugePageAdvice checks that a fresh buffer of 16 MiB has its whole
// 2 MiB pages advised onto transparent huge pages: the mapping that holds
// its middle carries the "hg" flag (MADV_HUGEPAGE). Whether the kernel then
// finds huge pages is the machine's business, so the test does not ask.
func TestHugePageAdvice(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages on this kernel")
	}
	w := uninitWords(2<<20, 2<<20)
	mid := uintptr(unsafe.Pointer(&w[len(w)/2]))
	flags := vmFlags(t, mid)
	for _, f := range flags {
		if f == "hg" {
			return
		}
	}
	t.Errorf("the mapping holding a fresh 16 MiB buffer has VmFlags %v, no hg", flags)
}
