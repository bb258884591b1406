package cpu

import (
	"unsafe"

	"github.com/tessera-go/tessera/internal/hugepage"
)

// mallocgc is the Go runtime's allocator. Package runtime keeps it
// reachable by linkname for the packages that already use it this way
// (its comment lists them); here it is the only way to get Go memory that
// is not cleared first.
//
//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// uninitWords returns n words of pointer-free, collectable Go memory with
// capacity capacity, not cleared: Alloc's buffers are uninitialised by
// contract (device.Backend), every kernel writes all of its destination,
// and a buffer from the pool is not cleared either. A large realisation's
// output (a parameter's new value, a gradient) thus costs no pass over
// memory before the kernel's own; clearing it took about a tenth of a
// training step's processor time.
//
// Buffers of hugepage.MinBytes and more are advised onto transparent huge
// pages before anything touches them, as NumPy does for its arrays from 4
// MiB: over 1 Mi float64 (8 MiB a side), vec.Log and vec.Exp measured
// 4-13 % faster on them, vec.Add 2 % (docs/benchmarks.md).
func uninitWords(n, capacity int) []uint64 {
	p := mallocgc(uintptr(capacity)*8, nil, false)
	if capacity*8 >= hugepage.MinBytes {
		hugepage.Advise(p, capacity*8)
	}
	return unsafe.Slice((*uint64)(p), capacity)[:n]
}
