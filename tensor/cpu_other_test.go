//go:build !unix

package tensor_test

// cpuSeconds has no portable source outside Unix: the benchmarks report
// zero processor time there.
func cpuSeconds() float64 { return 0 }
