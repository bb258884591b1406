//go:build !amd64 || purego

package gemm

// fmaLoop reports that this build has no FMA loop to measure.
func fmaLoop() (loop func(n int), flops float64, vectors string) { return nil, 0, "" }
