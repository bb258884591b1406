//go:build !amd64 || purego

package gemm

// archImpls reports that this build has no assembly kernels (another
// architecture, or the purego build tag), so the portable Go kernels run.
func archImpls() []*impl { return nil }
