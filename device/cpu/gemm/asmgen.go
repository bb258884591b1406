//go:build ignore

// asmgen writes gemm_avx512_amd64.s (the AVX-512 kernels of package gemm)
// and avx512_amd64.go (their Go declarations), and with asmgen_skinny.go
// the unpacked path's kernels (skinny_avx512_amd64.s and
// skinny_avx512_decl_amd64.go). Run it with `go generate` in this
// directory; the outputs are committed, so building never needs it, and
// TestGeneratedInSync fails when they differ from what this program
// writes.
//
// It emits:
//   - the register-blocked micro-kernels: the mr x (nv*lanes) tile of C
//     stays in zmm registers for the whole k loop; each step loads nv
//     vectors of the B panel and broadcasts mr values of the A panel;
//   - packers: contiguous steps copied with whole and masked zmm moves, and
//     rows contiguous along k transposed 16x16 (float32) or 8x8 (float64)
//     in registers;
//   - fmaPeak512/fmaPeak256, FMA-throughput loops that measure the machine's
//     peak for the benchmarks.
//
// Operands follow Go's assembler order (sources first, destination last),
// which reverses Intel's.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
)

// elem describes one element type.
type elem struct {
	pre   string // "s" or "d"
	goT   string // "float32" or "float64"
	p     string // packed suffix: "PS" or "PD"
	s     string // scalar suffix: "SS" or "SD"
	size  int    // bytes per element
	lanes int    // elements per zmm register
}

var (
	f32 = elem{"s", "float32", "PS", "SS", 4, 16}
	f64 = elem{"d", "float64", "PD", "SD", 8, 8}
)

type gen struct {
	s     bytes.Buffer
	decls bytes.Buffer
	// madd, when set, replaces VFMADD231 (acc += b*a) in the k loop of the
	// micro-kernels (asmgen_lowp.go: VDPBF16PS on bf16 pairs).
	madd func(b, a, acc string)
	// shifted makes micro emit the kernels of shifted B operands: step p
	// of B is the nr values at b + offs[p] elements (a last argument),
	// not the next nr values of a packed panel.
	shifted bool
	// rowsA makes micro emit the kernels of A read in place: row r of A is
	// at a + offs[r] elements (offs a last argument, mr offsets), step p
	// at its p-th value, not a packed panel. At most 8 rows, one base
	// register each.
	rowsA bool
}

func (g *gen) ins(format string, a ...any) { fmt.Fprintf(&g.s, "\t"+format+"\n", a...) }
func (g *gen) label(l string)              { fmt.Fprintf(&g.s, "%s:\n", l) }
func (g *gen) comment(c string)            { fmt.Fprintf(&g.s, "// %s\n", c) }
func (g *gen) decl(format string, a ...any) {
	fmt.Fprintf(&g.decls, format+"\n", a...)
}

func z(i int) string { return fmt.Sprintf("Z%d", i) }

// zeroZ clears the zmm registers Z(lo) to Z(hi-1).
func (g *gen) zeroZ(lo, hi int) {
	for i := lo; i < hi; i++ {
		g.zeroReg(i)
	}
}

// zeroReg clears Z(i).
func (g *gen) zeroReg(i int) { g.ins("VPXORD %s, %s, %s", z(i), z(i), z(i)) }

// microName is the Go name of a micro-kernel.
func microName(e elem, mr, nv, pf int) string {
	if pf > 0 {
		return fmt.Sprintf("%sgemm%dx%dZp%d", e.pre, mr, nv*e.lanes, pf)
	}
	return fmt.Sprintf("%sgemm%dx%dZ", e.pre, mr, nv*e.lanes)
}

// micro emits C = alpha*A*B + beta*C for one mr x nv*lanes tile. The
// accumulators are Z0..Z(mr*nv-1) (row r, vector v in Z(r*nv+v)), the B step
// is in the next nv registers and two more hold broadcast A values, so
// mr*nv + nv + 2 <= 32. The k loop is unrolled unroll times. With beta == 0
// C is never read.
//
// The kernels of A in place keep at least 16 accumulators, so that the
// FMAs' latency is hidden (two issued a cycle, four cycles each): a tile
// of fewer, 8x16 or 4x32, has sets copies of them, step u of an unrolled
// iteration adding into copy u%sets, and the copies are summed after the
// loop.
func (g *gen) micro(e elem, mr, nv, unroll, pf int) {
	sets := 1
	if g.rowsA {
		sets = max(1, min(unroll, 16/(mr*nv)))
	}
	if sets*mr*nv+nv+2 > 32 {
		log.Fatalf("micro %dx%d: needs more than 32 registers", mr, nv)
	}
	name := microName(e, mr, nv, pf)
	if g.shifted {
		name = fmt.Sprintf("%sgemm%dx%dS", e.pre, mr, nv*e.lanes)
	}
	if g.rowsA {
		if mr > len(aBases) || pf > 0 {
			log.Fatalf("micro %dx%d with rows of A in place: at most %d rows, no prefetch", mr, nv, len(aBases))
		}
		name = fmt.Sprintf("%sgemm%dx%dA", e.pre, mr, nv*e.lanes)
	}
	nr := nv * e.lanes
	bReg := func(v int) string { return z(sets*mr*nv + v) }
	tReg := func(i int) string { return z(sets*mr*nv + nv + i%2) }
	accIn := func(s, r, v int) string { return z(s*mr*nv + r*nv + v) }
	acc := func(r, v int) string { return accIn(0, r, v) }
	aStep, bStep := mr*e.size, nv*64
	if g.rowsA {
		aStep = e.size // each row moves one value a step
	}
	betaOff := 44
	frame := 48
	if e.size == 8 {
		betaOff, frame = 48, 56
	}

	args := fmt.Sprintf("k int, a, b, c *%s, ldc int, alpha, beta %s", e.goT, e.goT)
	if g.shifted {
		args += ", offs *int"
		frame += 8
		g.decl("// %s computes the %dx%d %s tile C = alpha*A*B + beta*C from an A panel", name, mr, nr, e.goT)
		g.decl("// packed %d values per step and B steps of %d values at b+offs[p]", mr, nr)
		g.decl("// elements; beta == 0 never reads C.")
	} else if g.rowsA {
		args += ", offs *int"
		frame += 8
		g.decl("// %s computes the %dx%d %s tile C = alpha*A*B + beta*C from rows of A", name, mr, nr, e.goT)
		g.decl("// at a+offs[r] elements, read in place, and a B panel packed %d values per", nr)
		g.decl("// step; beta == 0 never reads C.")
	} else {
		g.decl("// %s computes the %dx%d %s tile C = alpha*A*B + beta*C from panels", name, mr, nr, e.goT)
		g.decl("// packed %d (A) and %d (B) values per step; beta == 0 never reads C.", mr, nr)
	}
	g.decl("//\n//go:noescape\nfunc %s(%s)\n", name, args)

	g.comment(fmt.Sprintf("func %s(%s)", name, args))
	g.comment(fmt.Sprintf("Accumulators Z0-Z%d, B step %s-%s, A broadcasts %s/%s.", sets*mr*nv-1, bReg(0), bReg(nv-1), tReg(0), tReg(1)))
	if g.shifted {
		g.comment("CX k   SI A panel   DX B   R10 offs   R11 a step's offset   DI C   R8 ldc in bytes   AX C row   BX, R9 iterations")
	} else if g.rowsA {
		g.comment(fmt.Sprintf("CX k   %v A's rows   R13 the step's byte offset in each   DX B panel   BX iterations;", aBases[:mr]))
		g.comment("after the loop DI C   R8 ldc in bytes   AX C row")
	} else {
		g.comment("CX k   SI A panel   DX B panel   DI C   R8 ldc in bytes   AX C row   BX, R9 iterations")
	}
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-%d\n", name, frame)
	if g.shifted {
		g.ins("MOVQ offs+%d(FP), R10", frame-8)
	}
	// loadC puts C's address in DI and ldc in bytes in R8.
	loadC := func() {
		g.ins("MOVQ c+24(FP), DI")
		g.ins("MOVQ ldc+32(FP), R8")
		g.ins("SHLQ $%d, R8", log2(e.size))
	}
	g.ins("MOVQ k+0(FP), CX")
	if g.rowsA {
		// No registers are left for fetching C's rows in the loop, as
		// prefetchingLoop does; they are fetched here, before it.
		loadC()
		for range mr {
			for off := 0; off < nv*64; off += 64 {
				g.ins("PREFETCHT0 %d(DI)", off)
			}
			g.ins("PREFETCHT0 %d(DI)", nv*64-1)
			g.ins("ADDQ R8, DI")
		}
		// Row r's address, a + offs[r] elements, in aBases[r]; DI and R8
		// are among them, so C is loaded again after the loop.
		g.ins("MOVQ offs+%d(FP), R13", frame-8)
		g.ins("MOVQ a+8(FP), DX")
		for r := range mr {
			g.ins("MOVQ %d(R13), %s", 8*r, aBases[r])
			g.ins("LEAQ (DX)(%s*%d), %s", aBases[r], e.size, aBases[r])
		}
		g.ins("XORQ R13, R13")
	} else {
		g.ins("MOVQ a+8(FP), SI")
	}
	g.ins("MOVQ b+16(FP), DX")
	if !g.rowsA {
		loadC()
	}
	for s := range sets {
		for r := range mr {
			for v := range nv {
				g.zeroReg(s*mr*nv + r*nv + v)
			}
		}
	}
	step := func(ao, bo int) {
		set := (bo / bStep) % sets
		if g.shifted {
			g.ins("MOVQ %d(R10), R11", bo/bStep*8)
		}
		for v := range nv {
			if g.shifted {
				g.ins("VMOVUP%s %d(DX)(R11*%d), %s", e.p[1:], 64*v, e.size, bReg(v))
				continue
			}
			g.ins("VMOVUP%s %d(DX), %s", e.p[1:], bo+64*v, bReg(v))
		}
		for r := range mr {
			if g.rowsA {
				g.ins("VBROADCAST%s %d(%s)(R13*1), %s", e.s, ao, aBases[r], tReg(r))
			} else {
				g.ins("VBROADCAST%s %d(SI), %s", e.s, ao+r*e.size, tReg(r))
			}
			for v := range nv {
				if g.madd != nil {
					g.madd(bReg(v), tReg(r), accIn(set, r, v))
				} else {
					g.ins("VFMADD231%s %s, %s, %s", e.p, bReg(v), tReg(r), accIn(set, r, v))
				}
			}
		}
	}
	lbl := func(s string) string { return name + "_" + s }
	// body emits one unrolled iteration of the k loop.
	body := func() {
		for u := range unroll {
			if pf > 0 {
				// Fetch the A panel pf bytes ahead into L1, one line per
				// 64 bytes consumed.
				for off := u * aStep; off < (u+1)*aStep; off += 64 {
					g.ins("PREFETCHT0 %d(SI)", pf+off)
				}
			}
			step(u*aStep, u*bStep)
		}
		g.advanceA(mr, unroll*aStep)
		g.advanceB(unroll, bStep)
	}
	g.ins("MOVQ CX, BX")
	g.ins("SHRQ $%d, BX", log2(unroll))
	g.ins("JZ %s", lbl("tail"))
	if g.rowsA {
		g.plainLoop(lbl, body)
	} else {
		g.prefetchingLoop(mr, nv, lbl, body)
	}
	g.label(lbl("tail"))
	g.ins("ANDQ $%d, CX", unroll-1)
	g.ins("JZ %s", lbl("done"))
	g.label(lbl("loop1"))
	step(0, 0)
	g.advanceA(mr, aStep)
	g.advanceB(1, bStep)
	g.ins("DECQ CX")
	g.ins("JNZ %s", lbl("loop1"))

	g.label(lbl("done"))
	if g.rowsA {
		loadC()
	}
	for s := 1; s < sets; s++ {
		for r := range mr {
			for v := range nv {
				g.ins("VADD%s %s, %s, %s", e.p, accIn(s, r, v), acc(r, v), acc(r, v))
			}
		}
	}
	g.store(e, mr, nv, betaOff, tReg, acc, lbl)
}

// prefetchingLoop emits micro's unrolled k loop, BX iterations of body
// (BX > 0), the first min(BX, mr) of them fetching a row of the C tile
// at DI (R8 bytes apart) each; it uses AX and R9.
func (g *gen) prefetchingLoop(mr, nv int, lbl func(string) string, body func()) {
	// The C tile is needed only after the k loop. Its lines are fetched
	// into L1 one row per iteration over the first min(k/unroll, mr)
	// iterations (loopc, R9 of them; then BX-R9 plain ones): issued all
	// at once before the loop, as this kernel first did, they took every
	// L1 fill buffer for the latency of memory, stalling the loads of
	// the panels behind them, and with ldc a multiple of 4 KiB (all rows
	// in one L1 set) evicted one another. Spread, the kernel ran 3-4 %
	// faster on a Sapphire Rapids class Xeon, and steadier.
	g.ins("MOVQ DI, AX")
	g.ins("MOVQ $%d, R9", mr)
	g.ins("CMPQ BX, R9")
	g.ins("CMOVQLT BX, R9")
	g.ins("SUBQ R9, BX")
	g.label(lbl("loopc"))
	for off := 0; off < nv*64; off += 64 {
		g.ins("PREFETCHT0 %d(AX)", off)
	}
	g.ins("PREFETCHT0 %d(AX)", nv*64-1) // the row's last line, when not aligned
	g.ins("ADDQ R8, AX")
	body()
	g.ins("DECQ R9")
	g.ins("JNZ %s", lbl("loopc"))
	g.ins("TESTQ BX, BX")
	g.ins("JZ %s", lbl("tail"))
	g.plainLoop(lbl, body)
}

// plainLoop emits micro's unrolled k loop without fetches: BX iterations
// of body (BX > 0).
func (g *gen) plainLoop(lbl func(string) string, body func()) {
	g.label(lbl("loop"))
	body()
	g.ins("DECQ BX")
	g.ins("JNZ %s", lbl("loop"))
}

// store emits micro's end: the accumulators (acc) times alpha, plus beta
// times the C tile at DI (rows R8 bytes apart) unless beta is zero, into
// that tile.
func (g *gen) store(e elem, mr, nv, betaOff int, tReg func(int) string, acc func(r, v int) string, lbl func(string) string) {
	g.ins("VBROADCAST%s alpha+40(FP), %s", e.s, tReg(0))
	for r := range mr {
		for v := range nv {
			g.ins("VMUL%s %s, %s, %s", e.p, tReg(0), acc(r, v), acc(r, v))
		}
	}
	g.comment("beta == +0 or -0: overwrite C without reading it.")
	if e.size == 4 {
		g.ins("MOVL beta+%d(FP), AX", betaOff)
		g.ins("ANDL $0x7fffffff, AX")
	} else {
		g.ins("MOVQ beta+%d(FP), AX", betaOff)
		g.ins("SHLQ $1, AX")
	}
	g.ins("JZ %s", lbl("store"))
	g.ins("VBROADCAST%s beta+%d(FP), %s", e.s, betaOff, tReg(1))
	g.ins("MOVQ DI, AX")
	for r := range mr {
		for v := range nv {
			g.ins("VFMADD231%s %d(AX), %s, %s", e.p, 64*v, tReg(1), acc(r, v))
			g.ins("VMOVUP%s %s, %d(AX)", e.p[1:], acc(r, v), 64*v)
		}
		if r < mr-1 {
			g.ins("ADDQ R8, AX")
		}
	}
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.label(lbl("store"))
	g.ins("MOVQ DI, AX")
	for r := range mr {
		for v := range nv {
			g.ins("VMOVUP%s %s, %d(AX)", e.p[1:], acc(r, v), 64*v)
		}
		if r < mr-1 {
			g.ins("ADDQ R8, AX")
		}
	}
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// aBases are the registers holding the addresses of rows 0 to 7 of an A
// read in place.
var aBases = []string{"SI", "DI", "AX", "R8", "R9", "R10", "R11", "R12"}

// advanceA moves the micro-kernel's A on by bytes: the panel pointer, or
// for rows in place the step's offset in every row (R13).
func (g *gen) advanceA(mr, bytes int) {
	if !g.rowsA {
		g.ins("ADDQ $%d, SI", bytes)
		return
	}
	g.ins("ADDQ $%d, R13", bytes)
}

// advanceB moves the micro-kernel's B past steps k steps: the panel
// pointer, or for shifted B the offsets.
func (g *gen) advanceB(steps, bStep int) {
	if g.shifted {
		g.ins("ADDQ $%d, R10", steps*8)
		return
	}
	g.ins("ADDQ $%d, DX", steps*bStep)
}

func log2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	if 1<<l != n {
		log.Fatalf("%d is not a power of two", n)
	}
	return l
}

// setMask loads a mask of the low n bits into K1.
func (g *gen) setMask(n int) {
	g.ins("MOVL $0x%x, AX", 1<<n-1)
	g.ins("KMOVW AX, K1")
}

// copyW emits copyW<w>: n steps of w bytes, read stride bytes apart and
// written back to back; whole zmm moves and one masked one for the rest.
func (g *gen) copyW(w int) {
	name := fmt.Sprintf("copy%dZ", w)
	g.decl("//go:noescape\nfunc %s(dst, src *byte, stride, n int)\n", name)
	g.comment(fmt.Sprintf("func %s(dst, src *byte, stride, n int)", name))
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-32\n", name)
	g.ins("MOVQ dst+0(FP), DI")
	g.ins("MOVQ src+8(FP), SI")
	g.ins("MOVQ stride+16(FP), R8")
	g.ins("MOVQ n+24(FP), CX")
	full, rem := w/64, w%64
	if rem%4 != 0 {
		log.Fatalf("copy%d: not whole dwords", w)
	}
	if rem != 0 {
		g.setMask(rem / 4)
	}
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s_done", name)
	g.label(name + "_loop")
	for i := range full {
		g.ins("VMOVDQU32 %d(SI), %s", 64*i, z(i))
	}
	if rem != 0 {
		g.ins("VMOVDQU32.Z %d(SI), K1, %s", 64*full, z(full))
	}
	for i := range full {
		g.ins("VMOVDQU32 %s, %d(DI)", z(i), 64*i)
	}
	if rem != 0 {
		g.ins("VMOVDQU32 %s, K1, %d(DI)", z(full), 64*full)
	}
	g.ins("ADDQ R8, SI")
	g.ins("ADDQ $%d, DI", w)
	g.ins("DECQ CX")
	g.ins("JNZ %s_loop", name)
	g.label(name + "_done")
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// rowBases are the registers holding the address of rows 0, 4, 8, ... of
// the source in the transposing packers (row 4q+i is base q + i*ld, with
// R8 = ld and R9 = 3*ld in bytes).
var rowBases = []string{"SI", "R10", "R11", "R12", "R13", "AX", "BX", "DX"}

func rowAddr(r int) string {
	b := rowBases[r/4]
	switch r % 4 {
	case 0:
		return fmt.Sprintf("(%s)", b)
	case 1:
		return fmt.Sprintf("(%s)(R8*1)", b)
	case 2:
		return fmt.Sprintf("(%s)(R8*2)", b)
	}
	return fmt.Sprintf("(%s)(R9*1)", b)
}

// packT emits <pre>packT<w>Z: w rows contiguous along k, blocks of lanes
// steps: dst[p*w+r] = src[r*ld+p] for r < w, p < lanes*blocks. Each group of
// lanes rows is transposed in registers (16x16 for float32, 8x8 for
// float64) and stored as lanes steps, masked when the group is short.
func (g *gen) packT(e elem, w int) {
	name := fmt.Sprintf("%spackT%dZ", e.pre, w)
	L := e.lanes
	groups := (w + L - 1) / L
	if (groups*L+3)/4 > len(rowBases) {
		log.Fatalf("%s: too many rows", name)
	}
	g.decl("// %s packs %d*blocks steps of %d %s rows: dst[p*%d+r] = src[r*ld+p].", name, L, w, e.goT, w)
	g.decl("//\n//go:noescape\nfunc %s(dst, src *%s, ld, blocks int)\n", name, e.goT)
	g.comment(fmt.Sprintf("func %s(dst, src *%s, ld, blocks int)", name, e.goT))
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-32\n", name)
	g.ins("MOVQ dst+0(FP), DI")
	g.ins("MOVQ src+8(FP), SI")
	g.ins("MOVQ ld+16(FP), R8")
	g.ins("MOVQ blocks+24(FP), CX")
	g.ins("SHLQ $%d, R8", log2(e.size))
	g.ins("LEAQ (R8)(R8*2), R9")
	nb := (w + 3) / 4
	for q := 1; q < nb; q++ {
		g.ins("LEAQ (%s)(R8*4), %s", rowBases[q-1], rowBases[q])
	}
	if rem := w % L; rem != 0 {
		if nb > 5 {
			log.Fatalf("%s: AX is a row base, no scratch for the mask", name)
		}
		g.setMask(rem)
	}
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s_done", name)
	g.label(name + "_loop")
	for gr := range groups {
		rows := min(L, w-gr*L)
		// Inputs Z0..Z(L-1), temporaries Z16..
		for i := range L {
			if i < rows {
				g.ins("VMOVUP%s %s, %s", e.p[1:], rowAddr(gr*L+i), z(i))
			} else {
				g.zeroReg(i)
			}
		}
		var cols []int // cols[p] = register holding step p
		if e.size == 4 {
			cols = g.transpose16()
		} else {
			cols = g.transpose8()
		}
		for p := range L {
			off := p*w*e.size + gr*64
			if rows == L {
				g.ins("VMOVUP%s %s, %d(DI)", e.p[1:], z(cols[p]), off)
			} else {
				g.ins("VMOVUP%s %s, K1, %d(DI)", e.p[1:], z(cols[p]), off)
			}
		}
	}
	g.ins("ADDQ $%d, DI", L*w*e.size)
	for q := range nb {
		g.ins("ADDQ $64, %s", rowBases[q])
	}
	g.ins("DECQ CX")
	g.ins("JNZ %s_loop", name)
	g.label(name + "_done")
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// transpose16 transposes the 16x16 float32 block in Z0..Z15 (row i in Zi)
// and returns the register holding each column.
func (g *gen) transpose16() []int {
	// Stage 1: interleave row pairs (Z16..Z31).
	for i := 0; i < 16; i += 2 {
		g.ins("VUNPCKLPS %s, %s, %s", z(i+1), z(i), z(16+i))
		g.ins("VUNPCKHPS %s, %s, %s", z(i+1), z(i), z(16+i+1))
	}
	// Stage 2: within 128-bit lanes, 4 rows of one column (Z0..Z15).
	for q := 0; q < 4; q++ {
		t := 16 + 4*q // t, t+1 from rows 4q,4q+1; t+2, t+3 from 4q+2, 4q+3
		g.ins("VSHUFPS $0x44, %s, %s, %s", z(t+2), z(t), z(4*q))
		g.ins("VSHUFPS $0xEE, %s, %s, %s", z(t+2), z(t), z(4*q+1))
		g.ins("VSHUFPS $0x44, %s, %s, %s", z(t+3), z(t+1), z(4*q+2))
		g.ins("VSHUFPS $0xEE, %s, %s, %s", z(t+3), z(t+1), z(4*q+3))
	}
	// Now Z(4q+c) holds, in lane l (128 bits), rows 4q..4q+3 of column
	// 4l+c. Stage 3 (Z16..Z31): pair row quads (0,1) and (2,3).
	for h := 0; h < 2; h++ {
		for c := 0; c < 4; c++ {
			a, b := z(8*h+c), z(8*h+4+c)
			g.ins("VSHUFF32X4 $0x88, %s, %s, %s", b, a, z(16+8*h+c))
			g.ins("VSHUFF32X4 $0xDD, %s, %s, %s", b, a, z(16+8*h+4+c))
		}
	}
	// Z(16+8h+c): lanes = quads (2h, 2h+1) of columns c and 8+c;
	// Z(16+8h+4+c): columns 4+c and 12+c. Stage 4 (Z0..Z15).
	cols := make([]int, 16)
	for c := 0; c < 8; c++ {
		a, b := z(16+c), z(24+c)
		g.ins("VSHUFF32X4 $0x88, %s, %s, %s", b, a, z(c))
		g.ins("VSHUFF32X4 $0xDD, %s, %s, %s", b, a, z(8+c))
		// Z(16+c), c < 4: columns c | 8+c; c >= 4: columns c | 8+c.
		cols[c] = c
		cols[8+c] = 8 + c
	}
	return cols
}

// transpose8 transposes the 8x8 float64 block in Z0..Z7 and returns the
// register holding each column.
func (g *gen) transpose8() []int {
	for i := 0; i < 8; i += 2 {
		g.ins("VUNPCKLPD %s, %s, %s", z(i+1), z(i), z(16+i))
		g.ins("VUNPCKHPD %s, %s, %s", z(i+1), z(i), z(16+i+1))
	}
	// Z16: r0r1 of cols 0,2,4,6; Z17: cols 1,3,5,7; Z18/Z19 rows 2,3; ...
	for h := 0; h < 2; h++ {
		t := 16 + 4*h
		g.ins("VSHUFF64X2 $0x88, %s, %s, %s", z(t+2), z(t), z(8+4*h))   // cols 0,4 of rows 4h..4h+3
		g.ins("VSHUFF64X2 $0x88, %s, %s, %s", z(t+3), z(t+1), z(9+4*h)) // cols 1,5
		g.ins("VSHUFF64X2 $0xDD, %s, %s, %s", z(t+2), z(t), z(10+4*h))  // cols 2,6
		g.ins("VSHUFF64X2 $0xDD, %s, %s, %s", z(t+3), z(t+1), z(11+4*h))
	}
	cols := make([]int, 8)
	for c := 0; c < 4; c++ {
		a, b := z(8+c), z(12+c)
		g.ins("VSHUFF64X2 $0x88, %s, %s, %s", b, a, z(c))
		g.ins("VSHUFF64X2 $0xDD, %s, %s, %s", b, a, z(4+c))
		cols[c] = c
		cols[4+c] = 4 + c
	}
	return cols
}

// fmaPeak emits a loop of independent FMAs (chains accumulators, enough to
// cover the latency on two FMA ports) on vectors of the given width.
func (g *gen) fmaPeak(bits int) {
	name := fmt.Sprintf("fmaPeak%d", bits)
	reg, zero := "Z", "VPXORD"
	if bits == 256 {
		reg, zero = "Y", "VPXOR" // plain AVX2: no EVEX encoding
	}
	const chains = 12
	g.decl("// %s runs n iterations of %d independent %d-bit float32 FMAs.", name, chains, bits)
	g.decl("//\n//go:noescape\nfunc %s(n int)\n", name)
	g.comment(fmt.Sprintf("func %s(n int)", name))
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-8\n", name)
	g.ins("MOVQ n+0(FP), CX")
	for i := range chains + 2 {
		g.ins("%s %s%d, %s%d, %s%d", zero, reg, i, reg, i, reg, i)
	}
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s_done", name)
	g.label(name + "_loop")
	for i := range chains {
		g.ins("VFMADD231PS %s%d, %s%d, %s%d", reg, chains, reg, chains+1, reg, i)
	}
	g.ins("DECQ CX")
	g.ins("JNZ %s_loop", name)
	g.label(name + "_done")
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

func main() {
	dir := flag.String("dir", ".", "directory to write the outputs to")
	flag.Parse()
	g := &gen{}
	for _, t := range microTiles {
		g.micro(t.e, t.mr, t.nv, 4, 0)
	}
	for _, t := range microTiles {
		// Panel widths mr (A) and nr (B): contiguous steps are copied,
		// rows contiguous along k are transposed.
		for _, w := range []int{t.mr, t.nv * t.e.lanes} {
			if !copied[w*t.e.size] {
				copied[w*t.e.size] = true
				g.copyW(w * t.e.size)
			}
			g.packT(t.e, w)
		}
	}
	g.fmaPeak(512)
	g.fmaPeak(256)
	writeOutputs(*dir, g, "gemm_avx512_amd64.s", "avx512_amd64.go")
	writeSkinny(*dir)
	// The micro-kernels of shifted B operands (F32Shifted), main and edge
	// tiles, in files of their own.
	g = &gen{shifted: true}
	for _, t := range microTiles {
		g.micro(t.e, t.mr, t.nv, 4, 0)
	}
	for _, t := range edgeTiles {
		g.micro(t.e, t.mr, t.nv, 4, 0)
	}
	// And those of A read in place (F32RowsA), 8 and 4 rows, panels of
	// two vectors and of one.
	g.rowsA, g.shifted = true, false
	for _, t := range edgeTiles {
		g.micro(t.e, t.mr, t.nv, 4, 0)
		g.micro(t.e, t.mr, 1, 4, 0)
	}
	writeOutputs(*dir, g, "shifted_avx512_amd64.s", "shifted_avx512_decl_amd64.go")
	for _, f := range extraOutputs {
		f(*dir)
	}
}

// writeOutputs writes g's assembly to dir/asmName and its Go declarations
// to dir/goName, both marked as generated.
func writeOutputs(dir string, g *gen, asmName, goName string) {
	var s bytes.Buffer
	s.WriteString("// Code generated by asmgen.go; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\n#include \"textflag.h\"\n\n")
	s.Write(g.s.Bytes())
	if err := os.WriteFile(filepath.Join(dir, asmName), s.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}

	var d bytes.Buffer
	d.WriteString("// Code generated by asmgen.go; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\npackage gemm\n\n")
	d.Write(g.decls.Bytes())
	src, err := format.Source(d.Bytes())
	if err != nil {
		log.Fatalf("%v\n%s", err, d.Bytes())
	}
	if err := os.WriteFile(filepath.Join(dir, goName), src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// extraOutputs are generators in other files of this program (go run
// asmgen.go asmgen_skinny.go asmgen_lowp.go) that register themselves,
// each writing its own files into dir.
var extraOutputs []func(dir string)

// microTiles are the micro-kernels emitted, with the packers for their
// panel widths. 14x32 (float32) and 14x16 (float64) keep 28 accumulators
// in zmm registers; on a Sapphire Rapids class Xeon they ran within noise
// of 12x32/12x16, 6x64/6x32 and 8x48/8x24 in cache and 5-10 % ahead of
// them in whole products. Prefetching the A panel ahead in the k loop
// (256-1024 bytes) measured slower and is off (pf 0); so, within noise
// (float64, one unit of a 2048 product), were FMAs with embedded
// broadcasts ({1to8}, freeing the two broadcast registers), a 15x16
// float64 tile in the 30 accumulators that frees, and fetching the next
// tile's C into L2 (PREFETCHT1) while computing this one.
var microTiles = []struct {
	e      elem
	mr, nv int
}{
	{f32, 14, 2},
	{f64, 14, 2},
}

// copied records the contiguous packers already emitted, by step bytes.
var copied = map[int]bool{}
