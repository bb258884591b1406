//go:build !linux

package cpu

import "unsafe"

// adviseHugePages does nothing where transparent huge pages are not a
// madvise away.
func adviseHugePages(p unsafe.Pointer, bytes int) {}
