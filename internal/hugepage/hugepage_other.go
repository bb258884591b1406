//go:build !linux

package hugepage

import (
	"errors"
	"unsafe"
)

// Available reports false: there are no transparent huge pages to ask for.
func Available() bool { return false }

// Advise does nothing where transparent huge pages are not a madvise away.
func Advise(p unsafe.Pointer, bytes int) {}

// Advised reports errors.ErrUnsupported off Linux.
func Advised(p unsafe.Pointer) (bool, error) { return false, errors.ErrUnsupported }
