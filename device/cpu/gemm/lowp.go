package gemm

import (
	"sync"
	"unsafe"

	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
)

// BF16 computes C = alpha*op(A)*op(B) + beta*C for bfloat16 A and B and a
// float32 C, with the storage rules, arguments and errors of F32. Products
// are accumulated in float32 (bf16 values and their products are exact in
// float32), so the caller rounds C to bfloat16 once, at the end, if it
// wants a bfloat16 result.
//
// Where the CPU has AMX-BF16 (and the OS grants it), the AVX-512 tier
// multiplies 32x32 tiles with TDPBF16PS: inputs and results that are
// subnormal are taken as zero there, as the tile unit does. Elsewhere the
// operands are widened to float32 while packing and the float32
// micro-kernels run, with F32's accuracy.
func BF16(transA, transB bool, m, n, k int, alpha float32, a []dtype.BFloat16, lda int, b []dtype.BFloat16, ldb int, beta float32, c []float32, ldc int) error {
	if err := check("BF16", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		return err
	}
	st := getLowp()
	st.lowp(true, transA, transB, m, n, k, alpha, halfBits(a), lda, halfBits(b), ldb, beta, c, ldc, nil)
	putLowp(st)
	return nil
}

// F16 is BF16 for IEEE half precision A and B: the operands are widened to
// float32 (VCVTPH2PS on AVX-512) while packing and the float32
// micro-kernels accumulate, so the result has F32's accuracy on the
// f16-rounded inputs. (AVX512-FP16's FMAs would round every partial sum to
// f16; that is not a float32 accumulation, so they are not used.)
func F16(transA, transB bool, m, n, k int, alpha float32, a []dtype.Float16, lda int, b []dtype.Float16, ldb int, beta float32, c []float32, ldc int) error {
	if err := check("F16", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		return err
	}
	st := getLowp()
	st.lowp(false, transA, transB, m, n, k, alpha, halfBits(a), lda, halfBits(b), ldb, beta, c, ldc, nil)
	putLowp(st)
	return nil
}

// BF16To computes C = op(A)*op(B) with A, B and C all bfloat16: the
// products accumulate in float32 as in BF16, and each element of C is
// rounded once to bfloat16 (ties to even) as soon as its part of the
// product is done, while it is still in cache, instead of in a pass over
// a float32 result of its own (which cost more than the AMX multiply at
// 1024). Storage rules and errors are F32's.
func BF16To(transA, transB bool, m, n, k int, a []dtype.BFloat16, lda int, b []dtype.BFloat16, ldb int, c []dtype.BFloat16, ldc int) error {
	if err := check("BF16To", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		return err
	}
	st := getLowp()
	st.lowpTo(true, transA, transB, m, n, k, halfBits(a), lda, halfBits(b), ldb, halfBits(c), ldc)
	putLowp(st)
	return nil
}

// F16To is BF16To for IEEE half precision A, B and C: F16's float32
// accumulation, each element of C rounded once to half precision (ties to
// even, overflow to ±Inf).
func F16To(transA, transB bool, m, n, k int, a []dtype.Float16, lda int, b []dtype.Float16, ldb int, c []dtype.Float16, ldc int) error {
	if err := check("F16To", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		return err
	}
	st := getLowp()
	st.lowpTo(false, transA, transB, m, n, k, halfBits(a), lda, halfBits(b), ldb, halfBits(c), ldc)
	putLowp(st)
	return nil
}

// lowpState is one low-precision call's operand source (one of each kind,
// filled in for the path it takes) and BF16To's rounding state, pooled with
// its rounding func bound once, so that a call allocates nothing in the
// steady state.
type lowpState struct {
	amx   amxSource
	pair  pairSource
	widen widenSource

	// BF16To and F16To: the float32 product tmp (m x n, contiguous) is
	// rounded region by region into c.
	bf      bool
	c       []uint16
	ldc     int
	tmp     []float32
	n       int
	roundFn func(r0, rows, c0, cols int) // st.round, bound once
}

var lowpStates = sync.Pool{New: func() any {
	st := new(lowpState)
	st.roundFn = st.round
	return st
}}

func getLowp() *lowpState { return lowpStates.Get().(*lowpState) }

// putLowp drops st's references to the operands and pools it.
func putLowp(st *lowpState) {
	st.amx, st.pair, st.widen = amxSource{}, pairSource{}, widenSource{}
	st.c, st.tmp = nil, nil
	lowpStates.Put(st)
}

// lowpTo runs a validated BF16To (bf true) or F16To: the float32 product
// goes into a pooled m x n scratch, whose regions the packed path rounds
// into c as they are finished; the other paths round it all at the end.
func (st *lowpState) lowpTo(bf, transA, transB bool, m, n, k int, a []uint16, lda int, b []uint16, ldb int, c []uint16, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	t := getBuf[float32](m * n)
	defer putBuf(t)
	st.bf, st.c, st.ldc, st.tmp, st.n = bf, c, ldc, t.data, n
	if !st.lowp(bf, transA, transB, m, n, k, 1, a, lda, b, ldb, 0, st.tmp, n, st.roundFn) {
		st.round(0, m, 0, n)
	}
}

// round rounds rows [r0, r0+rows) and columns [c0, c0+cols) of the float32
// product into c.
func (st *lowpState) round(r0, rows, c0, cols int) {
	for i := r0; i < r0+rows; i++ {
		d, s := st.c[i*st.ldc+c0:i*st.ldc+c0+cols], st.tmp[i*st.n+c0:i*st.n+c0+cols]
		if narrowFast(st.bf, d, s) {
			continue
		}
		if st.bf {
			for j, v := range s {
				d[j] = uint16(dtype.BF16FromFloat32(v))
			}
		} else {
			for j, v := range s {
				d[j] = uint16(dtype.F16FromFloat32(v))
			}
		}
	}
}

// halfBits views a slice of 16-bit floats as their bits.
func halfBits[H dtype.Float16 | dtype.BFloat16](s []H) []uint16 {
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// LowPrecisionKernel reports how BF16 runs now: "amx" (tile multiply),
// "vdpbf16ps" (AVX512_BF16 dot products, where they measured faster than
// the float32 FMAs), or the name of the float32 kernels it widens for
// ("avx512", "avx2-fma", "generic"). F16 always widens.
func LowPrecisionKernel() string {
	im := active.Load()
	if _, path := bf16Kernels(im); path != "" {
		return path
	}
	return im.name
}

// lowp runs a validated bf16 (bf true) or f16 product. When finish is not
// nil it is handed every finished region of C (job.finish) where the
// packed path runs, and lowp reports whether it was; the caller finishes
// the whole of C itself otherwise.
func (st *lowpState) lowp(bf, transA, transB bool, m, n, k int, alpha float32, a []uint16, lda int, b []uint16, ldb int, beta float32, c []float32, ldc int, finish func(r0, rows, c0, cols int)) bool {
	if m == 0 || n == 0 {
		return false
	}
	if k == 0 || alpha == 0 {
		scaleC(m, n, beta, c, ldc)
		return false
	}
	im := active.Load()
	ks := im.f32
	if useSmall(ks, m, n) && !lowpSkinnyPacked(im, bf, m, n, k) {
		// Skinny: the unpacked float32 path on widened copies (the few
		// rows or columns waste most of a tile), where it is the faster
		// (see lowpSkinnyPacked).
		rowsA, colsA := stored(transA, m, k)
		rowsB, colsB := stored(transB, k, n)
		wa := widenBuf(bf, a, rowsA, colsA, lda)
		wb := widenBuf(bf, b, rowsB, colsB, ldb)
		small(ks, transA, transB, m, n, k, alpha, wa.data, lda, wb.data, ldb, beta, c, ldc)
		putBuf(wa)
		putBuf(wb)
		return false
	}
	ars, acs := lda, 1
	if transA {
		ars, acs = 1, lda
	}
	brs, bcs := ldb, 1
	if transB {
		brs, bcs = 1, ldb
	}
	if bf {
		switch ts, path := bf16Kernels(im); path {
		case "amx":
			src := &st.amx
			*src = amxSource{a: a, b: b, ars: ars, acs: acs, brs: brs, bcs: bcs, k: k}
			// The tile kernel's steps are pairs of k, in groups of 16.
			pairs := roundUp(ceilDiv(k, 2), 16)
			packedFrom(ts, source[float32](src), finish, false, false, m, n, pairs, alpha, nil, 1, nil, 1, beta, c, ldc)
			return true
		case "vdpbf16ps":
			src := &st.pair
			*src = pairSource{a: a, b: b, ars: ars, acs: acs, brs: brs, bcs: bcs, k: k}
			packedFrom(ts, source[float32](src), finish, false, false, m, n, ceilDiv(k, 2), alpha, nil, 1, nil, 1, beta, c, ldc)
			return true
		}
	}
	src := &st.widen
	*src = widenSource{a: a, b: b, ars: ars, acs: acs, brs: brs, bcs: bcs, bf: bf, fast: onAVX512(im)}
	packedFrom(ks, source[float32](src), finish, false, false, m, n, k, alpha, nil, 1, nil, 1, beta, c, ldc)
	return true
}

// onAVX512 reports whether im is this CPU's AVX-512 implementation, the
// only one whose generated widening packers and narrowing stores the
// half-precision paths may call.
func onAVX512(im *impl) bool { return im == fastImpl && im.name == "avx512" }

// stored returns the rows and columns of a stored operand whose op() is
// r x c.
func stored(trans bool, r, c int) (int, int) {
	if trans {
		return c, r
	}
	return r, c
}

// widenBuf returns a pooled float32 copy of the rows x cols matrix stored
// in s with leading dimension ld (same ld).
func widenBuf(bf bool, s []uint16, rows, cols, ld int) *buffer[float32] {
	n := 0
	if rows > 0 && cols > 0 {
		n = (rows-1)*ld + cols
	}
	w := getBuf[float32](max(n, 1))
	widenRun(bf, w.data[:n], s[:n])
	return w
}

// widenRun converts len(d) halves of s (bf16 when bf, else f16) to float32,
// with package vec's vector kernels.
func widenRun(bf bool, d []float32, s []uint16) {
	s = s[:len(d)]
	if bf {
		_ = vec.Widen(d, unsafe.Slice((*dtype.BFloat16)(unsafe.SliceData(s)), len(s)))
		return
	}
	_ = vec.Widen(d, unsafe.Slice((*dtype.Float16)(unsafe.SliceData(s)), len(s)))
}

// widenSource packs f16 or bf16 operands into the float32 panels of the
// float32 micro-kernels, widening on the way. Element (i,p) of op(A) is
// a[i*ars+p*acs], element (p,j) of op(B) is b[p*brs+j*bcs].
type widenSource struct {
	a, b               []uint16
	ars, acs, brs, bcs int
	bf                 bool // bfloat16, else float16
	fast               bool // the AVX-512 widening packers may run
}

func (s *widenSource) packA(dst []float32, i0, p0, rows, width, kc int) {
	s.pack(dst, s.a, i0*s.ars+p0*s.acs, s.ars, s.acs, rows, width, kc)
}

func (s *widenSource) packB(dst []float32, j0, p0, cols, width, kc int) {
	s.pack(dst, s.b, p0*s.brs+j0*s.bcs, s.bcs, s.brs, cols, width, kc)
}

// pack is packPanel with widening: element (r,p), r < rows, is
// src[off+r*rs+p*cs] (rs or cs is 1) and lands at dst[p*width+r]; rows
// rows..width-1 are zero. Full panels of the AVX-512 widths go to the
// generated packers.
func (s *widenSource) pack(dst []float32, src []uint16, off, rs, cs, rows, width, kc int) {
	dst = dst[:kc*width]
	if s.fast && rows == width && widenFast(s.bf, dst, src, off, rs, cs, width, kc) {
		return
	}
	if rows < width {
		clear(dst)
	}
	if rs == 1 {
		for p := range kc {
			widenRun(s.bf, dst[p*width:p*width+rows], src[off+p*cs:off+p*cs+rows])
		}
		return
	}
	// Otherwise cs is 1 (the operands are row- or column-major): rows run
	// along k. Widen a stretch of a row with the vector kernel, then
	// scatter it down the panel's column.
	tmp := getBuf[float32](kc) // pooled: a stack array would escape into vec
	for r := range rows {
		row := src[off+r*rs : off+r*rs+kc]
		widenRun(s.bf, tmp.data, row)
		d := dst[r:]
		for p, v := range tmp.data {
			d[p*width] = v
		}
	}
	putBuf(tmp)
}

// amxSource packs bf16 operands for the AMX micro-kernel (mr = nr = 32,
// steps are pairs of k in groups of 16; k is the real inner size, pairs
// past it are zero). A panel, per group s: rows 0..31, each the 32 bf16
// values of k 32s..32s+31 (one 64-byte tile row). B panel, per group:
// columns 0-15 then 16-31, each as 16 rows (pairs q) of 16 columns of the
// pair (k 32s+2q, 32s+2q+1): the tile unit's pair-interleaved B layout.
type amxSource struct {
	a, b               []uint16
	ars, acs, brs, bcs int
	k                  int
}

// bits16 views a float32 panel as the bf16 values it holds.
func bits16(dst []float32) []uint16 {
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(dst))), 2*len(dst))
}

func (s *amxSource) packA(dst []float32, i0, p0, rows, width, kc int) {
	d := bits16(dst[:kc*width])
	k0 := 2 * p0            // first k of the panel
	kn := min(2*kc, s.k-k0) // real k values in it
	groups := kc / 16
	done := 0 // groups packed by assembly
	if rows == width {
		if s.acs == 1 {
			done = amxPackAFast(d, s.a[i0*s.ars+k0:], s.ars, kn/32)
		} else {
			done = amxPackATFast(d, s.a[k0*s.acs+i0:], s.acs, kn/32)
		}
	}
	if rows < width || kn < 2*kc {
		clear(d[done*32*32:])
	}
	if s.acs == 1 {
		// Rows contiguous along k: 64-byte copies.
		for r := range rows {
			row := s.a[(i0+r)*s.ars+k0:]
			for g := done; g < groups; g++ {
				n := min(32, kn-32*g)
				if n <= 0 {
					break
				}
				copy(d[(g*32+r)*32:(g*32+r)*32+n], row[32*g:32*g+n])
			}
		}
		return
	}
	// Columns contiguous (A stored transposed): element (i,p) is
	// a[i+p*acs].
	p := done * 32
	d32 := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(dst))), kc*width)
	for ; p+1 < kn; p += 2 {
		// Two rows of the stored A^T make one 32-bit pair per row of A.
		c0 := s.a[(k0+p)*s.acs+i0:]
		c0 = c0[:rows]
		c1 := s.a[(k0+p+1)*s.acs+i0:]
		c1 = c1[:rows]
		base := (p/32)*32*16 + p%32/2
		for r, v := range c0 {
			d32[base+r*16] = uint32(v) | uint32(c1[r])<<16
		}
	}
	if p < kn {
		col := s.a[(k0+p)*s.acs+i0:]
		col = col[:rows]
		base := (p/32)*32*32 + p%32
		for r, v := range col {
			d[base+r*32] = v
		}
	}
}

func (s *amxSource) packB(dst []float32, j0, p0, cols, width, kc int) {
	d := bits16(dst[:kc*width])
	k0 := 2 * p0
	kn := min(2*kc, s.k-k0)
	done := 0 // groups packed by assembly
	if cols == width {
		if s.bcs == 1 {
			done = amxPackBFast(d, s.b[k0*s.brs+j0:], s.brs, kn/32)
		} else {
			done = amxPackBTFast(d, s.b[j0*s.bcs+k0:], s.bcs, kn/32)
		}
	}
	if cols < width || kn < 2*kc {
		clear(d[done*32*32:])
	}
	// Element (p, j) of the panel, p < kn, j < cols, lands at
	// d[((p/32*2 + j/16)*16 + p%32/2)*32 + j%16*2 + p%2].
	if s.bcs == 1 {
		// Rows of B contiguous along j.
		for p := done * 32; p < kn; p++ {
			row := s.b[(k0+p)*s.brs+j0:]
			row = row[:cols]
			base := (p/32*2*16+p%32/2)*32 + p%2
			for h := 0; h*16 < cols; h++ {
				seg := row[h*16 : min(cols, h*16+16)]
				dd := d[base+h*16*32:]
				for j, v := range seg {
					dd[2*j] = v
				}
			}
		}
		return
	}
	// B stored transposed: column j contiguous along p, pairs are 32-bit
	// words.
	for j := range cols {
		col := s.b[(j0+j)*s.bcs+k0:]
		col = col[:kn]
		base := (j/16*16)*32 + j%16*2
		for p := done * 32; p < kn; p++ {
			d[base+(p/32*2*16+p%32/2)*32+p%2] = col[p]
		}
	}
}

// pairSource packs bf16 operands for the VDPBF16PS micro-kernel (14x32):
// the float32 panel layout with each step a pair of k (32 bits: the even k
// in the low half, the odd one, or zero past k, in the high half).
type pairSource struct {
	a, b               []uint16
	ars, acs, brs, bcs int
	k                  int
}

func (s *pairSource) packA(dst []float32, i0, p0, rows, width, kc int) {
	off := i0*s.ars + 2*p0*s.acs
	done := 0
	if s.acs == 1 && rows == width {
		done = pairPackAFast(dst, s.a[off:], s.ars, width, min(kc, (s.k-2*p0)/2))
	}
	packPairs(dst, s.a, off, s.ars, s.acs, rows, width, kc, s.k-2*p0, done)
}

func (s *pairSource) packB(dst []float32, j0, p0, cols, width, kc int) {
	off := 2*p0*s.brs + j0*s.bcs
	done := 0
	if cols == width {
		full := min(kc, (s.k-2*p0)/2)
		if s.bcs == 1 {
			done = pairPackBFast(dst, s.b[off:], s.brs, width, full)
		} else {
			done = pairPackAFast(dst, s.b[off:], s.bcs, width, full)
		}
	}
	packPairs(dst, s.b, off, s.bcs, s.brs, cols, width, kc, s.k-2*p0, done)
}

// packPairs packs steps done..kc-1 of a panel of bf16 pairs: element (r, p)
// of the panel, r < rows and p < kn, is src[off+r*rs+p*cs]; pair q of row r
// (elements 2q and 2q+1) lands at dst[q*width+r]; rows past rows and
// values past kn are zero.
func packPairs(dst []float32, src []uint16, off, rs, cs, rows, width, kc, kn, done int) {
	if done >= kc {
		return
	}
	d := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(dst))), kc*width)[done*width:]
	if rows < width || 2*kc > kn {
		clear(d)
	}
	for q := range kc - done {
		p := 2 * (done + q)
		if p >= kn {
			break
		}
		row := d[q*width : q*width+rows]
		lo := off + p*cs
		if p+1 < kn {
			for r := range row {
				row[r] = uint32(src[lo+r*rs]) | uint32(src[lo+cs+r*rs])<<16
			}
			continue
		}
		for r := range row {
			row[r] = uint32(src[lo+r*rs])
		}
	}
}
