//go:build linux

package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"
)

// pageSize is the size of a transparent huge page on amd64 and arm64 with
// 4 KiB base pages.
const pageSize = 2 << 20

// madvHugePage is Linux's MADV_HUGEPAGE.
const madvHugePage = 14

// Available reports whether the kernel has transparent huge pages at all
// (whatever its mode), so that Advise can take effect.
func Available() bool {
	_, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil
}

// Advise asks for huge pages over the whole 2 MiB pages inside [p,
// p+bytes). The advice only helps pages not yet touched, so give it when a
// buffer is first allocated. Failure (THP off, an old kernel) is ignored:
// the advice changes speed only.
func Advise(p unsafe.Pointer, bytes int) {
	skip := int(-uintptr(p) & (pageSize - 1)) // to the first page boundary
	if bytes-skip < pageSize {
		return
	}
	whole := (bytes - skip) &^ (pageSize - 1)
	_ = syscall.Madvise(unsafe.Slice((*byte)(p), bytes)[skip:skip+whole], madvHugePage)
}

// Advised reports whether the mapping holding p carries the huge-page
// advice (the "hg" flag of /proc/self/smaps).
func Advised(p unsafe.Pointer) (bool, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return false, err
	}
	defer f.Close()
	addr, in := uintptr(p), false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 0:
		case !strings.HasSuffix(fields[0], ":"): // a mapping's header: lo-hi perms ...
			var lo, hi uintptr
			if _, err := fmt.Sscanf(fields[0], "%x-%x", &lo, &hi); err != nil {
				return false, fmt.Errorf("hugepage: smaps header %q: %w", sc.Text(), err)
			}
			in = lo <= addr && addr < hi
		case in && fields[0] == "VmFlags:":
			for _, fl := range fields[1:] {
				if fl == "hg" {
					return true, nil
				}
			}
			return false, nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	return false, fmt.Errorf("hugepage: no mapping holds %#x", addr)
}
