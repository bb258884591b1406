//go:build amd64 && !purego

package vec

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

//go:generate go run asmgen.go

// cpuHasAVX2FMA reports whether the CPU (and OS) support AVX2 and FMA3,
// which every assembly kernel needs.
func cpuHasAVX2FMA() bool { return cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3) }

// cpuHasAVX512 reports whether the CPU and the OS (which must save the zmm
// and mask registers; cpuid checks XCR0) support what the AVX-512 kernels
// use: AVX512F for the arithmetic, masks, VSCALEFPS and VRCP14PS,
// AVX512DQ for VPMOVD2M, VEXTRACTF32X8 and VINSERTF32X8. The set also
// uses the AVX2 kernels for what it does not override.
func cpuHasAVX512() bool {
	return cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX2, cpuid.FMA3)
}

// ntBytes is the output size in bytes from which the arithmetic kernels
// (binary, scalar, Axpy, Relu) write with non-temporal stores: the size of
// the last-level cache, so results that could stay cached for the next
// operation do, and results that cannot skip the read-for-ownership of each
// destination line (a third of the memory traffic of an Add). The assembly
// reads it; tests lower it to cover the streaming path.
var ntBytes = ntThreshold()

func ntThreshold() int {
	if l3 := cpuid.CPU.Cache.L3; l3 > 0 {
		return max(l3, 1<<20)
	}
	return 16 << 20
}

// setNTBytes sets the streaming threshold and returns a function restoring
// it; a test hook.
func setNTBytes(n int) (restore func()) {
	prev := ntBytes
	ntBytes = n
	return func() { ntBytes = prev }
}

func p32(s []float32) *float32 { return unsafe.SliceData(s) }
func p64(s []float64) *float64 { return unsafe.SliceData(s) }

func bin32(f func(dst, a, b *float32, n int)) func(dst, a, b []float32) {
	return func(dst, a, b []float32) { f(p32(dst), p32(a), p32(b), len(dst)) }
}

func bin64(f func(dst, a, b *float64, n int)) func(dst, a, b []float64) {
	return func(dst, a, b []float64) { f(p64(dst), p64(a), p64(b), len(dst)) }
}

func sc32(f func(dst, a *float32, s float32, n int)) func(dst, a []float32, s float32) {
	return func(dst, a []float32, s float32) { f(p32(dst), p32(a), s, len(dst)) }
}

func sc64(f func(dst, a *float64, s float64, n int)) func(dst, a []float64, s float64) {
	return func(dst, a []float64, s float64) { f(p64(dst), p64(a), s, len(dst)) }
}

func un32(f func(dst, x *float32, n int)) func(dst, x []float32) {
	return func(dst, x []float32) { f(p32(dst), p32(x), len(dst)) }
}

func un64(f func(dst, x *float64, n int)) func(dst, x []float64) {
	return func(dst, x []float64) { f(p64(dst), p64(x), len(dst)) }
}

// red32 wraps a max/min kernel, which needs at least one full vector.
func red32(f func(x *float32, n int) float32, small func([]float32) float32) func([]float32) float32 {
	return func(x []float32) float32 {
		if len(x) < 8 {
			return small(x)
		}
		return f(p32(x), len(x))
	}
}

func red64(f func(x *float64, n int) float64, small func([]float64) float64) func([]float64) float64 {
	return func(x []float64) float64 {
		if len(x) < 4 {
			return small(x)
		}
		return f(p64(x), len(x))
	}
}

// avx2Kernels is the AVX2+FMA set. float64 transcendentals are the generic
// (package math) ones.
var avx2Kernels = &kernels{
	name:  "avx2",
	bin32: [numBinOps]func(dst, a, b []float32){bin32(addF32AVX2), bin32(subF32AVX2), bin32(mulF32AVX2), bin32(divF32AVX2), bin32(maxF32AVX2), bin32(minF32AVX2)},
	bin64: [numBinOps]func(dst, a, b []float64){bin64(addF64AVX2), bin64(subF64AVX2), bin64(mulF64AVX2), bin64(divF64AVX2), bin64(maxF64AVX2), bin64(minF64AVX2)},
	sc32:  [numBinOps]func(dst, a []float32, s float32){sc32(addScalarF32AVX2), sc32(subScalarF32AVX2), sc32(mulScalarF32AVX2), sc32(divScalarF32AVX2), sc32(maxScalarF32AVX2), sc32(minScalarF32AVX2)},
	sc64:  [numBinOps]func(dst, a []float64, s float64){sc64(addScalarF64AVX2), sc64(subScalarF64AVX2), sc64(mulScalarF64AVX2), sc64(divScalarF64AVX2), sc64(maxScalarF64AVX2), sc64(minScalarF64AVX2)},
	rsc32: [numBinOps]func(dst, a []float32, s float32){opSub: sc32(subRScalarF32AVX2), opDiv: sc32(divRScalarF32AVX2)},
	rsc64: [numBinOps]func(dst, a []float64, s float64){opSub: sc64(subRScalarF64AVX2), opDiv: sc64(divRScalarF64AVX2)},
	axpy32: func(dst []float32, alpha float32, x, y []float32) {
		axpyF32AVX2(p32(dst), alpha, p32(x), p32(y), len(dst))
	},
	axpy64: func(dst []float64, alpha float64, x, y []float64) {
		axpyF64AVX2(p64(dst), alpha, p64(x), p64(y), len(dst))
	},
	un32: [numUnOps]func(dst, x []float32){
		unRelu:     un32(reluF32AVX2),
		unExp:      un32(expF32AVX2),
		unLog:      un32(logF32AVX2),
		unTanh:     un32(tanhF32AVX2),
		unSigmoid:  un32(sigmoidF32AVX2),
		unGeluTanh: un32(geluTanhF32AVX2),
		unGeluErf:  un32(geluErfF32AVX2),
		unErf:      un32(erfF32AVX2),
	},
	un64: [numUnOps]func(dst, x []float64){
		unRelu:     un64(reluF64AVX2),
		unExp:      genericKernels.un64[unExp],
		unLog:      genericKernels.un64[unLog],
		unTanh:     genericKernels.un64[unTanh],
		unSigmoid:  genericKernels.un64[unSigmoid],
		unGeluTanh: genericKernels.un64[unGeluTanh],
		unGeluErf:  genericKernels.un64[unGeluErf],
		unErf:      genericKernels.un64[unErf],
	},
	sum32: func(x []float32) float32 { return sumF32AVX2(p32(x), len(x)) },
	sum64: func(x []float64) float64 { return sumF64AVX2(p64(x), len(x)) },
	dot32: func(a, b []float32) float32 { return dotF32AVX2(p32(a), p32(b), len(a)) },
	dot64: func(a, b []float64) float64 { return dotF64AVX2(p64(a), p64(b), len(a)) },
	max32: red32(maxReduceF32AVX2, maxGo[float32]),
	min32: red32(minReduceF32AVX2, minGo[float32]),
	max64: red64(maxReduceF64AVX2, maxGo[float64]),
	min64: red64(minReduceF64AVX2, minGo[float64]),
}

// avx512Kernels is the AVX-512 set: 512-bit vectors with k-mask tails for
// the float32 and float64 arithmetic, Axpy and Relu, and for the float32
// transcendentals, and Max/Min; Sum and Dot are the AVX2 ones
// (see the package doc for why), the float64 transcendentals package math.
var avx512Kernels = func() *kernels {
	k := *avx2Kernels
	k.name = "avx512"
	k.bin32 = [numBinOps]func(dst, a, b []float32){bin32(addF32AVX512), bin32(subF32AVX512), bin32(mulF32AVX512), bin32(divF32AVX512), bin32(maxF32AVX512), bin32(minF32AVX512)}
	k.bin64 = [numBinOps]func(dst, a, b []float64){bin64(addF64AVX512), bin64(subF64AVX512), bin64(mulF64AVX512), bin64(divF64AVX512), bin64(maxF64AVX512), bin64(minF64AVX512)}
	k.sc32 = [numBinOps]func(dst, a []float32, s float32){sc32(addScalarF32AVX512), sc32(subScalarF32AVX512), sc32(mulScalarF32AVX512), sc32(divScalarF32AVX512), sc32(maxScalarF32AVX512), sc32(minScalarF32AVX512)}
	k.sc64 = [numBinOps]func(dst, a []float64, s float64){sc64(addScalarF64AVX512), sc64(subScalarF64AVX512), sc64(mulScalarF64AVX512), sc64(divScalarF64AVX512), sc64(maxScalarF64AVX512), sc64(minScalarF64AVX512)}
	k.rsc32 = [numBinOps]func(dst, a []float32, s float32){opSub: sc32(subRScalarF32AVX512), opDiv: sc32(divRScalarF32AVX512)}
	k.rsc64 = [numBinOps]func(dst, a []float64, s float64){opSub: sc64(subRScalarF64AVX512), opDiv: sc64(divRScalarF64AVX512)}
	k.axpy32 = func(dst []float32, alpha float32, x, y []float32) {
		axpyF32AVX512(p32(dst), alpha, p32(x), p32(y), len(dst))
	}
	k.axpy64 = func(dst []float64, alpha float64, x, y []float64) {
		axpyF64AVX512(p64(dst), alpha, p64(x), p64(y), len(dst))
	}
	k.un32 = [numUnOps]func(dst, x []float32){
		unRelu:     un32(reluF32AVX512),
		unExp:      un32(expF32AVX512),
		unLog:      un32(logF32AVX512),
		unTanh:     un32(tanhF32AVX512),
		unSigmoid:  un32(sigmoidF32AVX512),
		unGeluTanh: un32(geluTanhF32AVX512),
		unGeluErf:  un32(geluErfF32AVX512),
		unErf:      un32(erfF32AVX512),
	}
	k.un64[unRelu] = un64(reluF64AVX512)
	k.max32 = red512(maxReduceF32AVX512, avx2Kernels.max32)
	k.min32 = red512(minReduceF32AVX512, avx2Kernels.min32)
	k.max64 = red512(maxReduceF64AVX512, avx2Kernels.max64)
	k.min64 = red512(minReduceF64AVX512, avx2Kernels.min64)
	return &k
}()

// red512 wraps an AVX-512 max/min kernel, which gives up (ok false) when the
// input holds a NaN or an infinity; exact then runs, the AVX2 kernel that
// checks for NaN element by element.
func red512[T float32 | float64](f func(x *T, n int) (T, bool), exact func([]T) T) func([]T) T {
	return func(x []T) T {
		if m, ok := f(unsafe.SliceData(x), len(x)); ok {
			return m
		}
		return exact(x)
	}
}
