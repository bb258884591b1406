//go:build !amd64 || purego

package gemm

// bf16Kernels reports that this build has no bf16 kernels: BF16 widens.
func bf16Kernels(*impl) (*kernels[float32], string) { return nil, "" }

// widenFast reports that this build has no assembly widening packers.
func widenFast(bool, []float32, []uint16, int, int, int, int, int) bool { return false }

// lowpSkinnyPacked reports that skinny products take the unpacked path:
// this build's packers widen in Go.
func lowpSkinnyPacked(*impl, bool, int, int, int) bool { return false }

// setBF16Path is the bf16 path test hook; this build always widens.
func setBF16Path(string) string { return "" }

// amxPackAFast, amxPackATFast, amxPackBFast and amxPackBTFast pack
// nothing without assembly (and AMX).
func amxPackAFast(d, src []uint16, ld, groups int) int  { return 0 }
func amxPackBFast(d, src []uint16, ld, groups int) int  { return 0 }
func amxPackBTFast(d, src []uint16, ld, groups int) int { return 0 }
func amxPackATFast(d, src []uint16, ld, groups int) int { return 0 }

// pairPackAFast and pairPackBFast pack nothing without assembly.
func pairPackAFast([]float32, []uint16, int, int, int) int { return 0 }
func pairPackBFast([]float32, []uint16, int, int, int) int { return 0 }

// narrowFast reports that this build has no assembly narrowing stores.
func narrowFast(bool, []uint16, []float32) bool { return false }
