//go:build linux

package cpu

import (
	"syscall"
	"unsafe"
)

// hugePageSize is the size of a transparent huge page on amd64 and arm64
// with 4 KiB base pages.
const hugePageSize = 2 << 20

// madvHugePage is Linux's MADV_HUGEPAGE.
const madvHugePage = 14

// adviseHugePages asks the kernel to back the whole 2 MiB pages inside
// [p, p+bytes) with transparent huge pages. Where the machine's THP mode is
// "madvise" (a common default), nothing else in a Go program asks for them,
// and a pass over a large buffer in 4 KiB pages misses the TLB about every
// 4 KiB. The advice only helps pages not yet touched, so it is given when a
// buffer is first allocated; failure (THP off, an old kernel) is ignored,
// as the advice changes speed only.
func adviseHugePages(p unsafe.Pointer, bytes int) {
	skip := int(-uintptr(p) & (hugePageSize - 1)) // to the first page boundary
	if bytes-skip < hugePageSize {
		return
	}
	whole := (bytes - skip) &^ (hugePageSize - 1)
	_ = syscall.Madvise(unsafe.Slice((*byte)(p), bytes)[skip:skip+whole], madvHugePage)
}
