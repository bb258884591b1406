// Package hugepage asks the kernel to back large buffers with transparent
// huge pages. Where the machine's THP mode is "madvise" (a common
// default), nothing else in a Go program asks for them, and a pass over a
// large buffer in 4 KiB pages misses the TLB about every 4 KiB; NumPy
// advises its arrays of 4 MiB and more. The CPU device advises its fresh
// buffers from MinBytes, and the kernel benchmarks their arrays, so both
// stream over the pages NumPy's do.
package hugepage

// MinBytes is the buffer size from which advising pays.
const MinBytes = 4 << 20
