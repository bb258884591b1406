// Package proctime reads the processor time the process has used, which
// the benchmarks report beside wall time: on a machine shared with other
// work it measures a kernel's own work, where the wall clock also counts
// the wait for a core.
package proctime
