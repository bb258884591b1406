//go:build amd64 && !purego

package vec

import (
	"math"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

//go:generate go run asmgen.go

// cpuHasAVX2FMA reports whether the CPU (and OS) support AVX2 and FMA3,
// which every assembly kernel needs.
func cpuHasAVX2FMA() bool { return cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3) }

// cpuHasAVX512 reports whether the CPU and the OS (which must save the zmm
// and mask registers; cpuid checks XCR0) support what the AVX-512 kernels
// use: AVX512F for the arithmetic, masks, VSCALEFPS/PD, VRCP14PS/PD,
// VGETEXPPD, VGETMANTPD, VFIXUPIMMPD and VPERMI2PD, AVX512DQ for
// VPMOVD2M, VPMOVQ2M, VEXTRACTF32X8 and VINSERTF32X8. The set also uses
// the AVX2 kernels for what it does not override.
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

// tierAsm holds one tier's generated elementwise kernels by operation;
// asmgen.go writes asmAVX2 and asmAVX512 (asm_amd64.go). un32 has every
// float32 unary but Relu, Sqrt and Sign, whose kernels (both types) are
// relu32/relu64, sqrt32/sqrt64 and sign32/sign64.
type tierAsm struct {
	bin32       [numBinOps]func(dst, a, b *float32, n int)
	bin64       [numBinOps]func(dst, a, b *float64, n int)
	sc32, rsc32 [numBinOps]func(dst, a *float32, s float32, n int)
	sc64, rsc64 [numBinOps]func(dst, a *float64, s float64, n int)
	axpy32      func(dst *float32, alpha float32, x, y *float32, n int)
	axpy64      func(dst *float64, alpha float64, x, y *float64, n int)
	un32        [numUnOps]func(dst, x *float32, n int)
	// un64 has the float64 unaries the tier vectorises (both: Relu, Sqrt,
	// Sign, the exact ones, Asin, Acos, Atan, Exp, Exp2, Expm1, Log, Log2,
	// Log10, Log1p, Sinh, Cosh, Tanh, Sigmoid, GeluTanh and Erf; Sin, Cos
	// and Tan are in trig64, GeluErf is geluErf64); the others stay the
	// generic set's.
	un64 [numUnOps]func(dst, x *float64, n int)
	// geluErf64 is the float64 GeluErf, which leaves the lanes outside
	// its range to Go (geluErfVia).
	geluErf64 func(dst, x *float64, n int) (ok bool)
	// trig32 has the float32 Sin, Cos and Tan, which leave lanes of 2^30
	// and above to Go (trigVia).
	trig32 [numUnOps]func(dst, x *float32, n int) (ok bool)
	// trig64 has the float64 Sin, Cos and Tan, likewise.
	trig64 [numUnOps]func(dst, x *float64, n int) (ok bool)
	// atan232 is the float32 Atan2 (computed in float64 lanes).
	atan232 func(dst, y, x *float32, n int)
	// atan2Place64 is the float64 Atan2's last step (atan2Via).
	atan2Place64 func(dst, q, y, x *float64, n int) bool
	// pow64 and powScalar64 are the float64 Pow of ordinary lanes
	// (powVia).
	pow64       func(dst, x, y *float64, n int) (ok bool)
	powScalar64 func(dst, x *float64, y float64, n int) (ok bool)
	// pow32 and powScalar32 are the float32 Pow of ordinary lanes,
	// likewise.
	pow32       func(dst, x, y *float32, n int) (ok bool)
	powScalar32 func(dst, x *float32, y float32, n int) (ok bool)
	// wide32 has the float32 kernels that compute in float64 lanes and
	// have no special cases for Go: Asin, Acos, Atan, Sinh, Cosh and
	// Softplus.
	wide32 [numUnOps]func(dst, x *float32, n int)
	// cmp32 and cmp64 are Compare's kernels, cmpScalar32 and cmpScalar64
	// CompareScalar's, by relation (whole vectors only: cmpVia).
	cmp32       [numCmpOps]func(dst *uint8, a, b *float32, n int)
	cmp64       [numCmpOps]func(dst *uint8, a, b *float64, n int)
	cmpScalar32 [numCmpOps]func(dst *uint8, a *float32, s float32, n int)
	cmpScalar64 [numCmpOps]func(dst *uint8, a *float64, s float64, n int)
	// cmpI32, cmpI64, cmpScalarI32 and cmpScalarI64 are CompareInt's and
	// CompareIntScalar's, likewise.
	cmpI32       [numCmpOps]func(dst *uint8, a, b *int32, n int)
	cmpI64       [numCmpOps]func(dst *uint8, a, b *int64, n int)
	cmpScalarI32 [numCmpOps]func(dst *uint8, a *int32, s int32, n int)
	cmpScalarI64 [numCmpOps]func(dst *uint8, a *int64, s int64, n int)
	// binBF16 and binF16 are the one-pass binary operations on half
	// values, unBF16 and unF16 (AVX-512 only) the unary ones
	// (halfKernels.binBF16, halfKernels.unBF16).
	binBF16, binF16 [numBinOps]func(dst, a, b *uint16, n int)
	unBF16, unF16   [numUnOps]func(dst, x *uint16, n int)
	// sel8, sel16, sel32 and sel64 are Select's kernels on 8-bit to
	// 64-bit elements, selElse8 to selElse64 SelectElse's, selThen8 to
	// selThen64 SelectThen's (whole vectors only: selectVia).
	sel8      func(dst *uint8, c *uint8, a, b *uint8, n int)
	sel16     func(dst *uint16, c *uint8, a, b *uint16, n int)
	selElse8  func(dst *uint8, c *uint8, a *uint8, s uint8, n int)
	selElse16 func(dst *uint16, c *uint8, a *uint16, s uint16, n int)
	selThen8  func(dst *uint8, c *uint8, s uint8, b *uint8, n int)
	selThen16 func(dst *uint16, c *uint8, s uint16, b *uint16, n int)
	sel32     func(dst *uint32, c *uint8, a, b *uint32, n int)
	sel64     func(dst *uint64, c *uint8, a, b *uint64, n int)
	selElse32 func(dst *uint32, c *uint8, a *uint32, s uint32, n int)
	selElse64 func(dst *uint64, c *uint8, a *uint64, s uint64, n int)
	selThen32 func(dst *uint32, c *uint8, s uint32, b *uint32, n int)
	selThen64 func(dst *uint64, c *uint8, s uint64, b *uint64, n int)
}

// asmKernels builds a kernel set from a tier's elementwise kernels; the
// float64 transcendentals the tier has no kernel for (t.un64, t.trig64)
// are the generic ones (package math, mended where it is wrong), the
// float64 Softplus is built on the set's float64 Abs, Neg, Exp, Log1p,
// Relu and Add (softplusVia), the float32 and float64 Sin, Cos and Tan
// wrap their kernels in trigVia (the float64 Tan also in inPlaceVia), the
// wide32 kernels go in as they are, and the caller fills in the
// reductions.
func asmKernels(name string, t *tierAsm) *kernels {
	k := &kernels{name: name, un64: genericKernels.un64}
	for op := range numBinOps {
		k.bin32[op], k.bin64[op] = bin32(t.bin32[op]), bin64(t.bin64[op])
		k.sc32[op], k.sc64[op] = sc32(t.sc32[op]), sc64(t.sc64[op])
		if t.rsc32[op] != nil {
			k.rsc32[op], k.rsc64[op] = sc32(t.rsc32[op]), sc64(t.rsc64[op])
		}
	}
	k.axpy32 = func(dst []float32, alpha float32, x, y []float32) {
		t.axpy32(p32(dst), alpha, p32(x), p32(y), len(dst))
	}
	k.axpy64 = func(dst []float64, alpha float64, x, y []float64) {
		t.axpy64(p64(dst), alpha, p64(x), p64(y), len(dst))
	}
	for op, f := range t.un32 {
		if f != nil {
			k.un32[op] = un32(f)
		}
	}
	for op, f := range t.un64 {
		if f != nil {
			k.un64[op] = un64(f)
		}
	}
	for op, f := range t.trig32 {
		if f != nil {
			k.un32[op] = trigVia(f, genericKernels.un32[op])
		}
	}
	for op, f := range t.trig64 {
		if f != nil {
			k.un64[op] = trigVia(f, genericKernels.un64[op])
		}
	}
	k.un64[unTan] = inPlaceVia(k.un64[unTan])
	k.un64[unGeluErf] = geluErfVia(t.geluErf64)
	k.un64[unSilu] = siluVia(k.un64[unSigmoid], k.bin64[opMul])
	k.atan232 = func(dst, y, x []float32) { t.atan232(p32(dst), p32(y), p32(x), len(dst)) }
	k.atan264 = atan2Via(atan2Kernels{abs: k.un64[unAbs], atan: k.un64[unAtan],
		minimum: k.bin64[opMin], maximum: k.bin64[opMax], div: k.bin64[opDiv],
		place: placeVia(func(dst, q, y, x []float64) bool { return t.atan2Place64(p64(dst), p64(q), p64(y), p64(x), len(dst)) })})
	k.pow64 = genericKernels.pow64
	if t.pow64 != nil {
		k.pow64 = powVia(t.pow64, t.powScalar64, &pow64Pool)
	}
	k.pow32 = powVia(t.pow32, t.powScalar32, &pow32Pool)
	k.un64[unSoftplus] = softplusVia(softplusKernels{abs: k.un64[unAbs], neg: k.un64[unNeg], exp: k.un64[unExp],
		log1p: k.un64[unLog1p], relu: k.un64[unRelu], add: k.bin64[opAdd]})
	for op, f := range t.wide32 {
		if f != nil {
			k.un32[op] = un32(f)
		}
	}
	for op := range numCmpOps {
		k.cmp.vv32[op] = cmpVia(t.cmp32[op], 32, cmpGoKernels.vv32[op])
		k.cmp.vv64[op] = cmpVia(t.cmp64[op], 8, cmpGoKernels.vv64[op])
		k.cmp.vs32[op] = cmpScalarVia(t.cmpScalar32[op], 32, cmpGoKernels.vs32[op])
		k.cmp.vs64[op] = cmpScalarVia(t.cmpScalar64[op], 8, cmpGoKernels.vs64[op])
		k.cmp.vvI32[op] = cmpVia(t.cmpI32[op], 32, cmpGoKernels.vvI32[op])
		k.cmp.vvI64[op] = cmpVia(t.cmpI64[op], 8, cmpGoKernels.vvI64[op])
		k.cmp.vsI32[op] = cmpScalarVia(t.cmpScalarI32[op], 32, cmpGoKernels.vsI32[op])
		k.cmp.vsI64[op] = cmpScalarVia(t.cmpScalarI64[op], 8, cmpGoKernels.vsI64[op])
	}
	k.sel = selectKernels{
		vv8: selectVia(t.sel8, 32, selectGo[uint8]), vv16: selectVia(t.sel16, 16, selectGo[uint16]),
		vv32: selectVia(t.sel32, 16, selectGo[uint32]), vv64: selectVia(t.sel64, 8, selectGo[uint64]),
		else8: selectElseVia(t.selElse8, 32, selectElseGo[uint8]), else16: selectElseVia(t.selElse16, 16, selectElseGo[uint16]),
		else32: selectElseVia(t.selElse32, 16, selectElseGo[uint32]), else64: selectElseVia(t.selElse64, 8, selectElseGo[uint64]),
		then8: selectThenVia(t.selThen8, 32, selectThenGo[uint8]), then16: selectThenVia(t.selThen16, 16, selectThenGo[uint16]),
		then32: selectThenVia(t.selThen32, 16, selectThenGo[uint32]), then64: selectThenVia(t.selThen64, 8, selectThenGo[uint64]),
	}
	return k
}

// selectVia runs a select kernel on the whole multiples of lanes (32
// bytes, 16 words, 16 32-bit or 8 64-bit elements: whole vectors of
// either tier) and tail, the generic loop, on the rest.
func selectVia[T uword](f func(dst *T, c *uint8, a, b *T, n int), lanes int, tail func([]T, []uint8, []T, []T)) func([]T, []uint8, []T, []T) {
	return func(dst []T, c []uint8, a, b []T) {
		m := len(dst) / lanes * lanes
		if m > 0 {
			f(unsafe.SliceData(dst), unsafe.SliceData(c), unsafe.SliceData(a), unsafe.SliceData(b), m)
		}
		tail(dst[m:], c[m:len(dst)], a[m:len(dst)], b[m:len(dst)])
	}
}

// selectElseVia is selectVia for SelectElse's kernels.
func selectElseVia[T uword](f func(dst *T, c *uint8, a *T, s T, n int), lanes int, tail func([]T, []uint8, []T, T)) func([]T, []uint8, []T, T) {
	return func(dst []T, c []uint8, a []T, s T) {
		m := len(dst) / lanes * lanes
		if m > 0 {
			f(unsafe.SliceData(dst), unsafe.SliceData(c), unsafe.SliceData(a), s, m)
		}
		tail(dst[m:], c[m:len(dst)], a[m:len(dst)], s)
	}
}

// selectThenVia is selectVia for SelectThen's kernels.
func selectThenVia[T uword](f func(dst *T, c *uint8, s T, b *T, n int), lanes int, tail func([]T, []uint8, T, []T)) func([]T, []uint8, T, []T) {
	return func(dst []T, c []uint8, s T, b []T) {
		m := len(dst) / lanes * lanes
		if m > 0 {
			f(unsafe.SliceData(dst), unsafe.SliceData(c), s, unsafe.SliceData(b), m)
		}
		tail(dst[m:], c[m:len(dst)], s, b[m:len(dst)])
	}
}

// cmpVia runs a comparison kernel on the whole multiples of lanes (32
// 4-byte elements, the AVX2 kernel's step, or 8 8-byte ones, whole vectors
// of either tier) and tail, the generic loop, on the rest.
func cmpVia[T float32 | float64 | int32 | int64](f func(dst *uint8, a, b *T, n int), lanes int, tail func([]uint8, []T, []T)) func([]uint8, []T, []T) {
	return func(dst []uint8, a, b []T) {
		m := len(dst) / lanes * lanes
		if m > 0 {
			f(unsafe.SliceData(dst), unsafe.SliceData(a), unsafe.SliceData(b), m)
		}
		tail(dst[m:], a[m:len(dst)], b[m:len(dst)])
	}
}

// cmpScalarVia is cmpVia for CompareScalar's kernels.
func cmpScalarVia[T float32 | float64 | int32 | int64](f func(dst *uint8, a *T, s T, n int), lanes int, tail func([]uint8, []T, T)) func([]uint8, []T, T) {
	return func(dst []uint8, a []T, s T) {
		m := len(dst) / lanes * lanes
		if m > 0 {
			f(unsafe.SliceData(dst), unsafe.SliceData(a), s, m)
		}
		tail(dst[m:], a[m:len(dst)], s)
	}
}

// avx2Kernels is the AVX2+FMA set.
var avx2Kernels = func() *kernels {
	k := asmKernels("avx2", &asmAVX2)
	k.sum32 = func(x []float32) float32 { return sumF32AVX2(p32(x), len(x)) }
	k.sum64 = func(x []float64) float64 { return sumF64AVX2(p64(x), len(x)) }
	k.dot32 = func(a, b []float32) float32 { return dotF32AVX2(p32(a), p32(b), len(a)) }
	k.dot64 = func(a, b []float64) float64 { return dotF64AVX2(p64(a), p64(b), len(a)) }
	k.max32 = red32(maxReduceF32AVX2, maxGo[float32])
	k.min32 = red32(minReduceF32AVX2, minGo[float32])
	k.max64 = red64(maxReduceF64AVX2, maxGo[float64])
	k.min64 = red64(minReduceF64AVX2, minGo[float64])
	k.halves = asmHalves(8, widenBF16AVX2, widenF16AVX2, narrowBF16AVX2, narrowF16AVX2, roundBF16AVX2, roundF16AVX2)
	k.halves.lanes, k.halves.binBF16, k.halves.binF16 = 8, asmAVX2.binBF16, asmAVX2.binF16
	k.halves.sumBF16, k.halves.sumF16 = sumHalfAsm(sumBF16AVX2), sumHalfAsm(sumF16AVX2)
	k.widenF32, k.narrowF64 = vectorRuns(widenF32AVX2, 8, widenF32Go), vectorRuns(narrowF64AVX2, 8, narrowF64Go)
	k.truncF32I32 = vectorRuns(truncF32I32AVX2, 8, truncF32I32Go)
	k.widenU8F32 = vectorRuns(widenU8F32AVX2, 8, widenU8F32Go)
	k.absI32, k.negI32 = vectorRuns(absI32AVX2, 8, absIntGo[int32]), vectorRuns(negI32AVX2, 8, negIntGo[int32])
	k.rev32, k.rev64 = reverseVia(reverse32AVX2, 8), reverseVia(reverse64AVX2, 4)
	k.transpose32 = transpose32AVX2
	k.maxI32, k.minI32 = extremeI32Via(maxReduceI32AVX2, true), extremeI32Via(minReduceI32AVX2, false)
	k.notU8 = notBytesVia(notU8AVX2)     // AVX2's on both tiers (VPCMPEQB on zmm needs AVX512BW)
	if !cpuid.CPU.Supports(cpuid.F16C) { // VCVTPH2PS and VCVTPS2PH
		k.halves.widenF16, k.halves.narrowF16, k.halves.roundF16 = halfGo.widenF16, halfGo.narrowF16, halfGo.roundF16
		k.halves.sumF16 = halfGo.sumF16
		k.halves.binF16 = [numBinOps]func(dst, a, b *uint16, n int){} // through float32 blocks, on the generic conversions
	}
	return k
}()

// avx512Kernels is the AVX-512 set: 512-bit vectors with k-mask tails for
// the float32 and float64 arithmetic, Axpy and Relu, the float32
// transcendentals, the float64 Exp, Exp2, Expm1, Log, Log2, Log10, Log1p,
// Sinh, Cosh, Tanh, Sigmoid, GeluTanh, Erf, GeluErf, Sin, Cos and Tan, and
// Max/Min; Sum and Dot are the AVX2 ones (see the package doc for why).
var avx512Kernels = func() *kernels {
	k := asmKernels("avx512", &asmAVX512)
	k.sum32, k.sum64, k.dot32, k.dot64 = avx2Kernels.sum32, avx2Kernels.sum64, avx2Kernels.dot32, avx2Kernels.dot64
	k.max32 = red512(maxReduceF32AVX512, avx2Kernels.max32)
	k.min32 = red512(minReduceF32AVX512, avx2Kernels.min32)
	k.max64 = red512(maxReduceF64AVX512, avx2Kernels.max64)
	k.min64 = red512(minReduceF64AVX512, avx2Kernels.min64)
	k.adam32 = func(w, g, m, v, nw, nm, nv []float32, c *[7]float32) {
		adamF32AVX512(p32(w), p32(g), p32(m), p32(v), p32(nw), p32(nm), p32(nv), c, len(w))
	}
	k.twoSum32 = func(s, c []float64, x []float32) { twoSumF32AVX512(p64(s), p64(c), p32(x), len(s)) }
	k.twoSum64 = func(s, c []float64, x []float64) { twoSumF64AVX512(p64(s), p64(c), p64(x), len(s)) }
	k.twoSumRows32 = func(s, c []float64, x []float32, ldx, rows int) {
		twoSumRowsF32AVX512(p64(s), p64(c), p32(x), ldx, rows, len(s))
	}
	k.twoSumRows64 = func(s, c []float64, x []float64, ldx, rows int) {
		twoSumRowsF64AVX512(p64(s), p64(c), p64(x), ldx, rows, len(s))
	}
	k.maxPool2 = func(dst, x []float32, rows, ow, kh, ldr, ldl int) {
		kOut, kLo, kHi := pool2Masks(ow)
		maxPool2F32AVX512(p32(dst), p32(x), rows, ow/16, ow, kh, ldr, ldl, kOut, kLo, kHi)
	}
	k.maxPool2Grad = func(dx, x, y, g []float32, rows, ow, kh, ldr, ldl int) {
		kOut, kLo, kHi := pool2Masks(ow)
		maxPool2GradF32AVX512(p32(dx), p32(x), p32(y), p32(g), rows, ow/16, ow, kh, ldr, ldl, kOut, kLo, kHi)
	}
	k.halves = asmHalves(16, widenBF16AVX512, widenF16AVX512, narrowBF16AVX512, narrowF16AVX512, roundBF16AVX512, roundF16AVX512)
	k.halves.lanes, k.halves.binBF16, k.halves.binF16 = 16, asmAVX512.binBF16, asmAVX512.binF16
	k.halves.unBF16, k.halves.unF16 = asmAVX512.unBF16, asmAVX512.unF16
	k.halves.sumBF16, k.halves.sumF16 = sumHalfAsm(sumBF16AVX512), sumHalfAsm(sumF16AVX512) // Sum's order, in zmm halves
	k.widenF32, k.narrowF64 = vectorRuns(widenF32AVX512, 16, widenF32Go), vectorRuns(narrowF64AVX512, 16, narrowF64Go)
	k.truncF32I32 = vectorRuns(truncF32I32AVX512, 16, truncF32I32Go)
	k.widenU8F32 = vectorRuns(widenU8F32AVX512, 16, widenU8F32Go)
	k.absI32, k.negI32 = vectorRuns(absI32AVX512, 16, absIntGo[int32]), vectorRuns(negI32AVX512, 16, negIntGo[int32])
	k.rev32, k.rev64 = reverseVia(reverse32AVX512, 16), reverseVia(reverse64AVX512, 8)
	k.transpose32 = transpose32AVX2 // AVX2's on both tiers: a block row is eight elements
	k.maxI32, k.minI32 = avx2Kernels.maxI32, avx2Kernels.minI32
	k.notU8 = notBytesVia(notU8AVX2) // AVX2's on both tiers (VPCMPEQB on zmm needs AVX512BW)
	return k
}()

// extremeI32Via runs an int32 extreme kernel (of the maxima when isMax)
// on rows of at least eight elements, and extremeGo on shorter ones.
func extremeI32Via(f func(x *int32, n int) int32, isMax bool) func(x []int32) int32 {
	return func(x []int32) int32 {
		if len(x) < 8 {
			return extremeGo(x, isMax)
		}
		return f(&x[0], len(x))
	}
}

// reverseVia runs a Reverse kernel on whole vectors of lanes elements:
// dst's start from src's end, then reverseGo on the rest (dst's end from
// src's start).
func reverseVia[T uword](f func(dst, src *T, n int), lanes int) func(dst, x []T) {
	return func(dst, x []T) {
		n := len(dst)
		whole := n / lanes * lanes
		if whole > 0 {
			f(&dst[0], &x[n-whole], whole)
		}
		reverseGo(dst[whole:], x[:n-whole])
	}
}

// notBytesVia runs the AVX2 Not kernel on the whole 32-byte vectors of a
// row (it counts groups of four bytes) and Go on the rest.
func notBytesVia(f func(dst, src *uint8, n int)) func(dst, x []uint8) {
	return func(dst, x []uint8) {
		whole := len(dst) &^ 31
		if whole > 0 {
			f(unsafe.SliceData(dst), unsafe.SliceData(x), whole/4)
		}
		notBytesGo(dst[whole:], x[whole:len(dst)])
	}
}

// geluErfVia builds the float64 GeluErf from a tier's kernel, which leaves
// x below geluErfFar, and from -geluErfFar to geluErfNear, to the generic
// geluErf64 (leftVia). The kernel's own results lie in [-0.17,
// -geluErfFar) for the x it computes below -geluErfFar, and are x from
// geluErfNear on, so in place too the elements it left are those whose
// value is still in the ranges it leaves.
func geluErfVia(f func(dst, x *float64, n int) bool) func(dst, x []float64) {
	return leftVia(f, genericKernels.un64[unGeluErf], func(v float64) bool {
		return v < geluErfFar || v >= -geluErfFar && v < geluErfNear
	})
}

// siluVia builds the float64 Silu, x*sigmoid(x), from a set's Sigmoid and
// Mul kernels, through inPlaceVia so that x survives the first: the
// sigmoid rounded (0.66 ulp for the AVX-512 kernel), then the product
// rounded. Below x = -700, where sigmoid(x) nears the subnormals and
// rounding it first would cost relative accuracy, and for -Inf (where
// x*0 is NaN), the element is silu64's.
func siluVia(sigmoid func(dst, x []float64), mul func(dst, a, b []float64)) func(dst, x []float64) {
	return inPlaceVia(func(dst, x []float64) {
		sigmoid(dst, x)
		mul(dst, dst, x)
		for i, v := range x {
			if v < -700 {
				dst[i] = silu64(v)
			}
		}
	})
}

// asmHalves builds a tier's half-precision conversions from its kernels,
// which take whole vectors of lanes elements.
func asmHalves(lanes int, widenBF16, widenF16 func(*float32, *uint16, int), narrowBF16, narrowF16 func(*uint16, *float32, int), roundBF16, roundF16 func(*float32, *float32, int)) halfKernels {
	return halfKernels{
		widenBF16: vectorRuns(widenBF16, lanes, halfGo.widenBF16), widenF16: vectorRuns(widenF16, lanes, halfGo.widenF16),
		narrowBF16: vectorRuns(narrowBF16, lanes, halfGo.narrowBF16), narrowF16: vectorRuns(narrowF16, lanes, halfGo.narrowF16),
		roundBF16: vectorRuns(roundBF16, lanes, halfGo.roundBF16), roundF16: vectorRuns(roundF16, lanes, halfGo.roundF16),
	}
}

// sumHalfAsm wraps a widening sum kernel, which reads its last len(x)%8
// values from a zero-padded copy.
func sumHalfAsm(f func(x *uint16, n int, tail *[8]uint16) float32) func([]uint16) float32 {
	return func(x []uint16) float32 {
		var tail [8]uint16
		copy(tail[:], x[len(x)/8*8:])
		return f(unsafe.SliceData(x), len(x), &tail)
	}
}

// vectorRuns wraps a conversion kernel f, which takes whole vectors of
// lanes elements: f runs over the longest such prefix, tail (the generic
// loop) over the rest.
func vectorRuns[D, S any](f func(dst *D, src *S, n int), lanes int, tail func([]D, []S)) func([]D, []S) {
	return func(dst []D, src []S) {
		m := len(dst) / lanes * lanes
		if m > 0 {
			f(unsafe.SliceData(dst), unsafe.SliceData(src), m)
		}
		tail(dst[m:], src[m:])
	}
}

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

// trigVia wraps a Sin, Cos or Tan kernel, which leaves x[i] in dst[i]
// where |x[i]| >= 2^30 or is infinite and then returns ok = false: scalar
// (package math, through the generic set's function) recomputes exactly
// those elements (leftVia). In place, that takes every result of the
// kernel's own below 2^30: true of Sin and Cos and the float32 Tan (at
// most 2.39e8 below 2^30, asmgen.go's trigs), not of the float64 Tan (up
// to about 2^62 near odd multiples of pi/2), which therefore runs through
// inPlaceVia.
func trigVia[T float32 | float64](f func(dst, x *T, n int) bool, scalar func(dst, x []T)) func(dst, x []T) {
	return leftVia(f, scalar, func(v float64) bool { return math.Abs(v) >= trigBound })
}

// leftVia wraps a kernel that leaves x[i] in dst[i] for the elements
// where left(x[i]) holds and then returns ok = false: scalar recomputes
// exactly those elements, found by x[i] or, in place, by dst[i] (x[i]
// survives only in those elements there), so in place the kernel's own
// results must never satisfy left.
func leftVia[T float32 | float64](f func(dst, x *T, n int) bool, scalar func(dst, x []T), left func(float64) bool) func(dst, x []T) {
	return func(dst, x []T) {
		if f(unsafe.SliceData(dst), unsafe.SliceData(x), len(dst)) {
			return
		}
		for i, v := range x {
			if left(float64(v)) {
				scalar(dst[i:i+1], x[i:i+1])
			}
		}
	}
}

// inPlaceVia runs f, whose dst must not be its x, on a copy of x taken a
// block at a time (on the stack) where the caller's dst is x; vec's
// functions refuse any other overlap.
func inPlaceVia[T float32 | float64](f func(dst, x []T)) func(dst, x []T) {
	return func(dst, x []T) {
		if len(x) == 0 || &dst[0] != &x[0] {
			f(dst, x)
			return
		}
		var buf [512]T
		for i := 0; i < len(x); i += len(buf) {
			n := copy(buf[:], x[i:])
			f(dst[i:i+n], buf[:n])
		}
	}
}

// pool2Masks returns the lane masks of the ow%16 tiles at the end of a
// row of MaxPool2's AVX-512 kernels: the tiles, and the first and second
// sixteen of their 2*(ow%16) elements.
func pool2Masks(ow int) (kOut, kLo, kHi int) {
	t := ow % 16
	return 1<<t - 1, 1<<min(2*t, 16) - 1, 1<<max(2*t-16, 0) - 1
}
