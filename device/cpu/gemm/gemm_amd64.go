//go:build amd64 && !purego

package gemm

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// Assembly kernels (gemm_amd64.s); they need AVX2 and FMA.

// sgemm6x16 computes the 6x16 float32 tile C = alpha*A*B + beta*C from
// panels packed 6 (A) and 16 (B) values per step; beta == 0 never reads C.
//
//go:noescape
func sgemm6x16(k int, a, b, c *float32, ldc int, alpha, beta float32)

// dgemm6x8 is sgemm6x16 for float64 with a 6x8 tile.
//
//go:noescape
func dgemm6x8(k int, a, b, c *float64, ldc int, alpha, beta float64)

// saxpy computes y[i] += alpha*x[i] for i < n.
//
//go:noescape
func saxpy(n int, alpha float32, x, y *float32)

// daxpy computes y[i] += alpha*x[i] for i < n.
//
//go:noescape
func daxpy(n int, alpha float64, x, y *float64)

// sdot returns sum x[i]*y[i] for i < n.
//
//go:noescape
func sdot(n int, x, y *float32) float32

// ddot returns sum x[i]*y[i] for i < n.
//
//go:noescape
func ddot(n int, x, y *float64) float64

// saxpy4 computes y[i] += sum_r s[r]*x[r*ldx+i] for r < 4 and i < n, n a
// multiple of 8.
//
//go:noescape
func saxpy4(n int, s *[4]float32, x *float32, ldx int, y *float32)

// daxpy4 is saxpy4 for float64, n a multiple of 4.
//
//go:noescape
func daxpy4(n int, s *[4]float64, x *float64, ldx int, y *float64)

// axpy4AVX2 computes y[i] += sum_r s[r]*x[r*ldx+i] for r < 4, i < n: the
// assembly takes whole vectors, the Go tail the rest.
func axpy4AVX2[T float](n int, s *[4]T, x *T, ldx int, y *T) {
	var zero T
	step := 32 / int(unsafe.Sizeof(zero))
	done := n &^ (step - 1)
	if done > 0 {
		if step == 8 {
			saxpy4(done, (*[4]float32)(unsafe.Pointer(s)), (*float32)(unsafe.Pointer(x)), ldx, (*float32)(unsafe.Pointer(y)))
		} else {
			daxpy4(done, (*[4]float64)(unsafe.Pointer(s)), (*float64)(unsafe.Pointer(x)), ldx, (*float64)(unsafe.Pointer(y)))
		}
	}
	if done < n {
		xs := unsafe.Slice(x, 3*ldx+n)
		ys := unsafe.Slice(y, n)
		for i := done; i < n; i++ {
			ys[i] += s[0]*xs[i] + s[1]*xs[ldx+i] + s[2]*xs[2*ldx+i] + s[3]*xs[3*ldx+i]
		}
	}
}

// sdot4 computes out[r] = sum_i x[i]*y[r*ldy+i] for r < 4 and i < n, n a
// multiple of 8.
//
//go:noescape
func sdot4(n int, x, y *float32, ldy int, out *[4]float32)

// ddot4 is sdot4 for float64, n a multiple of 4.
//
//go:noescape
func ddot4(n int, x, y *float64, ldy int, out *[4]float64)

// dot4AVX2 computes out[r] = sum_i x[i]*y[r*ldy+i] for r < 4, i < n: the
// assembly takes whole vectors, the Go tail the rest.
func dot4AVX2[T float](n int, x, y *T, ldy int, out *[4]T) {
	var zero T
	step := 32 / int(unsafe.Sizeof(zero))
	done := n &^ (step - 1)
	if done > 0 {
		if step == 8 {
			sdot4(done, (*float32)(unsafe.Pointer(x)), (*float32)(unsafe.Pointer(y)), ldy, (*[4]float32)(unsafe.Pointer(out)))
		} else {
			ddot4(done, (*float64)(unsafe.Pointer(x)), (*float64)(unsafe.Pointer(y)), ldy, (*[4]float64)(unsafe.Pointer(out)))
		}
	} else {
		*out = [4]T{}
	}
	if done < n {
		xs := unsafe.Slice(x, n)[done:]
		ys := unsafe.Slice(y, 3*ldy+n)
		for r := range 4 {
			yr := ys[r*ldy+done : r*ldy+n]
			s := out[r]
			for i, v := range xs {
				s += v * yr[i]
			}
			out[r] = s
		}
	}
}

// axpyGrouped is the kernels' axpy4x4: y[q*ldy+i] += sum_p
// (alpha*s[q*srs+p*scs])*x[p*ldx+i] for q < 4, p < 4*groups and i < n.
type axpyGrouped[T float] func(n, groups int, s *T, scs, srs int, alpha T, x *T, ldx int, y *T, ldy int)

// dot4x4Func is the kernels' dot4x4: out[q*4+r] = sum_i
// x[q*ldx+i]*y[r*ldy+i] for q, r < 4 and i < n, x the operand that streams.
type dot4x4Func[T float] func(n int, x *T, ldx int, y *T, ldy int, out *[16]T, pf *T, ldpf int)

// fetchingDot is an assembly dot4x4 (dot4x4Z, dot4x4Y) that fetches each
// row of x near bytes ahead of its loads into L1 and far bytes ahead into
// L2.
type fetchingDot[T float] func(n int, x *T, ldx int, y *T, ldy int, out *[16]T, pf *T, ldpf, near, far int)

// fetchingDot4x4 returns the kernels' dot4x4 from dot4x4Z, fetching as far
// ahead as dotFetchAhead says.
func fetchingDot4x4[T float](asm fetchingDot[T]) dot4x4Func[T] {
	near, far := dotFetchAhead()
	return func(n int, x *T, ldx int, y *T, ldy int, out *[16]T, pf *T, ldpf int) {
		asm(n, x, ldx, y, ldy, out, pf, ldpf, near, far)
	}
}

// dot4x4Tail returns the kernels' dot4x4 from an assembly one that takes
// whole ymm vectors (dot4x4Y), fetching as far ahead as dotFetchAhead
// says: the assembly runs the whole vectors (and the fetches), the Go tail
// the rest.
func dot4x4Tail[T float](asm fetchingDot[T]) dot4x4Func[T] {
	near, far := dotFetchAhead()
	return func(n int, x *T, ldx int, y *T, ldy int, out *[16]T, pf *T, ldpf int) {
		done := n &^ (32/int(unsafe.Sizeof(*x)) - 1)
		asm(done, x, ldx, y, ldy, out, pf, ldpf, near, far)
		if done == n {
			return
		}
		xs := unsafe.Slice(x, 3*ldx+n)
		ys := unsafe.Slice(y, 3*ldy+n)
		for q := range 4 {
			xq := xs[q*ldx+done : q*ldx+n]
			for r := range 4 {
				yr := ys[r*ldy+done : r*ldy+n][:len(xq)]
				s := out[q*4+r]
				for i, v := range xq {
					s += v * yr[i]
				}
				out[q*4+r] = s
			}
		}
	}
}

// dotFetchAhead returns how many bytes ahead of its loads dot4x4Z and
// dot4x4Y fetch each row they stream, into L1 (near) and into L2 (far).
// On AMD's family 19h (Zen 3 and Zen 4): 512 bytes into L1 and 2 KiB into
// L2. Elsewhere 1 KiB into L1, and far = near, so the L2 fetch asks for a
// line already on its way to L1. The dot forms from memory, two cores,
// paired with the four-stream read, medians of four or five interleaved
// rounds (docs/benchmarks.md, "A Zen 4 EPYC"):
//
//   - On a Zen 4 EPYC, dot4x4Z, the L1 fetch alone: 0.76-0.82x at 1 KiB;
//     0.87-0.90x at 256 bytes, 0.87-0.92x at 384 and 512, 0.83-0.87x at
//     768, 0.75-0.79x at 2 KiB. With 512 into L1, also fetching into L2
//     1.5, 2, 3 or 4 KiB ahead: 0.87-0.96x against 0.74-0.90x without, in
//     two runs, and 0.81-0.96x against 0.67-0.81x in the rounds in which
//     memory was fast (the read at 40 GB/s or more); from L3 up to 8 %
//     either way at 2 KiB, and up to 20 % slower at 4 KiB.
//   - On the same machine, dot4x4Y (TESSERA_CPU=avx2), the L1 fetch
//     alone: 0.79-0.84x at 256 and 512 bytes, 0.74-0.76x at 768.
//   - On a Zen 5 EPYC, the dot4x4Z loop on one goroutine with the L1
//     fetch alone: 1 KiB ran 6-12 % ahead of 512 bytes and 2 KiB, and
//     28-29 % ahead of 4 KiB. The L2 fetch was not tried there.
//
// Zen 3 (AVX2 only, so dot4x4Y) and Intel CPUs take theirs unmeasured.
func dotFetchAhead() (near, far int) {
	if cpuid.CPU.VendorID == cpuid.AMD && cpuid.CPU.Family == 0x19 {
		return 512, 2048
	}
	return 1024, 1024
}

// axpyTail returns the kernels' axpy4x4 from an assembly one that takes
// whole ymm vectors (axpy4x4Y): the assembly runs the whole vectors, the Go
// tail the rest, each output value taking the rows of x in order either
// way.
func axpyTail[T float](asm axpyGrouped[T]) axpyGrouped[T] {
	return func(n, groups int, s *T, scs, srs int, alpha T, x *T, ldx int, y *T, ldy int) {
		done := n &^ (32/int(unsafe.Sizeof(alpha)) - 1)
		if done > 0 {
			asm(done, groups, s, scs, srs, alpha, x, ldx, y, ldy)
		}
		if done == n || groups == 0 {
			return
		}
		rows := 4 * groups
		ss := unsafe.Slice(s, 3*srs+(rows-1)*scs+1)
		xs := unsafe.Slice(x, (rows-1)*ldx+n)
		ys := unsafe.Slice(y, 3*ldy+n)
		for q := range 4 {
			yq := ys[q*ldy+done : q*ldy+n]
			for p := range rows {
				c := alpha * ss[q*srs+p*scs]
				xp := xs[p*ldx+done : p*ldx+n][:len(yq)]
				for i, v := range xp {
					yq[i] += c * v
				}
			}
		}
	}
}

// spack6T packs 8*blocks steps of 6 float32 rows: dst[p*6+r] = src[r*ld+p].
//
//go:noescape
func spack6T(dst, src *float32, ld, blocks int)

// spack16T packs 8*blocks steps of 16 float32 rows: dst[p*16+r] = src[r*ld+p].
//
//go:noescape
func spack16T(dst, src *float32, ld, blocks int)

// dpack6T packs 4*blocks steps of 6 float64 rows: dst[p*6+r] = src[r*ld+p].
//
//go:noescape
func dpack6T(dst, src *float64, ld, blocks int)

// dpack8T packs 4*blocks steps of 8 float64 rows: dst[p*8+r] = src[r*ld+p].
//
//go:noescape
func dpack8T(dst, src *float64, ld, blocks int)

// copy24, copy48 and copy64 copy n steps of 24, 48 or 64 bytes, reading
// them stride bytes apart and writing them back to back.
//
//go:noescape
func copy24(dst, src *byte, stride, n int)

//go:noescape
func copy48(dst, src *byte, stride, n int)

//go:noescape
func copy64(dst, src *byte, stride, n int)

// packAVX2 is packPanel with the full panels of the AVX2 kernels' widths
// moved by assembly: contiguous steps are block copies, rows contiguous
// along k are transposed 8x8 (float32) or 4x4 (float64) in registers. Edge
// panels and leftover steps take the portable code.
func packAVX2[T float](dst, src []T, off, rs, cs, rows, width, kc int) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	dst = dst[:kc*width]
	if rows != width || kc == 0 {
		packPanel(dst, src, off, rs, cs, rows, width, kc)
		return
	}
	d := unsafe.Pointer(unsafe.SliceData(dst))
	if rs == 1 {
		s := src[off : off+(kc-1)*cs+width] // the whole footprint, checked once
		sp := (*byte)(unsafe.Pointer(unsafe.SliceData(s)))
		switch width * size {
		case 24:
			copy24((*byte)(d), sp, cs*size, kc)
			return
		case 48:
			copy48((*byte)(d), sp, cs*size, kc)
			return
		case 64:
			copy64((*byte)(d), sp, cs*size, kc)
			return
		}
	} else if cs == 1 {
		s := src[off : off+(width-1)*rs+kc]
		sp := unsafe.Pointer(unsafe.SliceData(s))
		step := 32 / size // steps per transposed block
		blocks := kc / step
		done := true
		switch {
		case size == 4 && width == 6:
			spack6T((*float32)(d), (*float32)(sp), rs, blocks)
		case size == 4 && width == 16:
			spack16T((*float32)(d), (*float32)(sp), rs, blocks)
		case size == 8 && width == 6:
			dpack6T((*float64)(d), (*float64)(sp), rs, blocks)
		case size == 8 && width == 8:
			dpack8T((*float64)(d), (*float64)(sp), rs, blocks)
		default:
			done = false
		}
		if done {
			if p := blocks * step; p < kc {
				packPanel(dst[p*width:], src, off+p, rs, cs, rows, width, kc-p)
			}
			return
		}
	}
	packPanel(dst, src, off, rs, cs, rows, width, kc)
}

// avx2Impl is the AVX2+FMA implementation. The blocking keeps an A block
// (mc x kc, 144 KiB) in a 512 KiB L2 and a B micro-panel (kc x nr, 16 KiB)
// in a 32 KiB L1; it was tuned on a Zen 3 EPYC, where kc 192..512 and
// mc 72..216 all came within noise of each other. The skinny limits are the
// measured crossovers between the packed and the unpacked paths.
var avx2Impl = &impl{
	name: "avx2-fma",
	f32: &kernels[float32]{
		mr: 6, nr: 16,
		mc: 144, kc: 256, nc: 4080,
		skinnyM: 5, skinnyN: 8,
		micro:   sgemm6x16,
		pack:    packAVX2[float32],
		axpy:    saxpy,
		dot:     sdot,
		dot4:    dot4AVX2[float32],
		axpy4:   axpy4AVX2[float32],
		dot4x4:  dot4x4Tail[float32](sdot4x4Y),
		axpy4x4: axpyTail[float32](saxpy4x4Y),
		// gather4 needs only AVX (generated with the AVX-512 kernels).
		gather4: sgather4,
	},
	f64: &kernels[float64]{
		mr: 6, nr: 8,
		mc: 72, kc: 256, nc: 4080,
		skinnyM: 5, skinnyN: 6,
		micro:   dgemm6x8,
		pack:    packAVX2[float64],
		axpy:    daxpy,
		dot:     ddot,
		dot4:    dot4AVX2[float64],
		axpy4:   axpy4AVX2[float64],
		dot4x4:  dot4x4Tail[float64](ddot4x4Y),
		axpy4x4: axpyTail[float64](daxpy4x4Y),
		gather4: dgather4,
	},
}

// archImpls returns the assembly implementations the CPU (and the OS,
// which must save the vector registers; cpuid checks that) supports,
// fastest first.
func archImpls() []*impl {
	var ts []*impl
	if hasAVX512() {
		ts = append(ts, avx512Impl())
	}
	if cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3) {
		ts = append(ts, avx2Impl)
	}
	return ts
}
