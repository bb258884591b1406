//go:build !amd64 || purego

package gemm

// archImpl reports that this build has no assembly kernels (another
// architecture, or the purego build tag), so the portable Go kernels run.
func archImpl() *impl { return nil }
