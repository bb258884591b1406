//go:build ignore

// This part of asmgen writes skinny_avx512_amd64.s and
// skinny_avx512_decl_amd64.go, the AVX-512 kernels for small and skinny
// products, kept in their own files so the main micro-kernel files do not
// change with them:
//   - the bandwidth-bound kernels of the unpacked path (products with a
//     few rows or columns, and GEMV); each takes any length: whole vectors
//     in the loop, then one masked vector, so no Go tail loop runs after it;
//   - edge micro-kernels with fewer rows (edgeTiles), for the last row
//     panel of a product whose m is not a multiple of the main tile's 14
//     rows (128 = 9*14 + 2: a 14-row kernel there would waste 12 rows).
//
// It also writes skinny_avx2_amd64.s and skinny_avx2_decl_amd64.go: the
// AVX2 tier's four-row kernels of the unpacked path (whole vectors only,
// a Go tail after them) and the ymm read anchor of the benchmarks.

package main

import (
	"fmt"
	"log"
)

// writeSkinny emits the unpacked-path kernels into dir.
func writeSkinny(dir string) {
	g := &gen{}
	for _, e := range []elem{f32, f64} {
		g.dot4Z(e)
		g.dot4x4Z(e)
		g.axpy4Z(e, 1)
		g.axpy4Z(e, 4)
		g.axpy8x4Z(e, 0)
		g.axpy8x4Z(e, axpyFetchAhead)
		g.axpyStripZ(e)
		g.gather4(e)
	}
	for _, t := range edgeTiles {
		g.micro(t.e, t.mr, t.nv, 4, 0)
	}
	g.readLines(true)
	writeOutputs(dir, g, "skinny_avx512_amd64.s", "skinny_avx512_decl_amd64.go")

	// The AVX2 tier's four-row kernels, in files of their own.
	g = &gen{}
	for _, e := range []elem{f32, f64} {
		g.dot4x4Y(e)
		g.axpy4x4Y(e)
	}
	g.readLines(false)
	writeOutputs(dir, g, "skinny_avx2_amd64.s", "skinny_avx2_decl_amd64.go")
}

// edgeTiles are the edge micro-kernels: the main tiles' width (32 float32,
// 16 float64) with 4 and 8 rows.
var edgeTiles = []struct {
	e      elem
	mr, nv int
}{
	{f32, 4, 2}, {f32, 8, 2},
	{f64, 4, 2}, {f64, 8, 2},
}

// leadLines is how many cache lines of each of the next four rows of the
// streamed operand the four-row kernels fetch ahead (PREFETCHT0) when they
// start a group of four rows. Each row of a skinny product's long operand
// is a fresh stream in fresh 4 KiB pages, which the hardware prefetchers
// learn again from the first misses in each page. On a Zen 5 EPYC, from
// memory, two cores, medians of 10 interleaved rounds paired with a read
// of as many bytes: the four-wide products ran at 0.64-0.68x of the read
// without, 0.76-0.82x with two lines at each row's start and, in the dot
// form, at each further page the row reaches into (float64 rows of 8 KiB:
// 0.80-0.82x against 0.74-0.75x without the pages). Four or eight lines
// did no better, and eight cost up to 6 % from L3, where two cost nothing
// measurable: docs/benchmarks.md, "The first lines of each row".
const leadLines = 2

// prefetchLead fetches the first leadLines lines of four rows, and unless
// nbytes is "" those of each further 4 KiB page within nbytes (a register)
// of each row's start: row 0 at base, the others ld (register), 2*ld and
// 3*ld (ld3) bytes on. p and end are scratch registers; name prefixes the
// labels.
func (g *gen) prefetchLead(name, base, ld, ld3, nbytes, p, end string) {
	rows := []string{"", "(" + ld + "*1)", "(" + ld + "*2)", "(" + ld3 + "*1)"}
	for r, idx := range rows {
		g.ins("LEAQ (%s)%s, %s", base, idx, p)
		for q := range leadLines {
			g.ins("PREFETCHT0 %d(%s)", 64*q, p)
		}
		if nbytes == "" {
			continue
		}
		if r == 0 {
			g.comment("end: the row's end; p: its next page boundary, while below end")
		}
		g.ins("LEAQ (%s)(%s*1), %s", p, nbytes, end)
		g.ins("ADDQ $4096, %s", p)
		g.ins("ANDQ $-4096, %s", p)
		loop, done := fmt.Sprintf("%s_lead%d", name, r), fmt.Sprintf("%s_led%d", name, r)
		g.label(loop)
		g.ins("CMPQ %s, %s", p, end)
		g.ins("JAE %s", done)
		for q := range leadLines {
			g.ins("PREFETCHT0 %d(%s)", 64*q, p)
		}
		g.ins("ADDQ $4096, %s", p)
		g.ins("JMP %s", loop)
		g.label(done)
	}
}

// tailMask loads into K1 a mask of the low CX&(lanes-1) bits (CX is
// clobbered) and jumps to skip when it is empty.
func (g *gen) tailMask(e elem, skip string) {
	g.ins("ANDQ $%d, CX", e.lanes-1)
	g.ins("JZ %s", skip)
	g.ins("MOVL $1, AX")
	g.ins("SHLL CX, AX")
	g.ins("DECL AX")
	g.ins("KMOVW AX, K1")
}

// dot4Z emits <pre>dot4Z(n, x, y, ldy, out): out[r] = sum_i x[i]*y[r*ldy+i]
// for r < 4, i < n: four dot products sharing x, two vectors per step (eight
// accumulators), the four sums reduced together at the end.
func (g *gen) dot4Z(e elem) {
	name := e.pre + "dot4Z"
	g.decl("// %s computes out[r] = sum_i x[i]*y[r*ldy+i] for r < 4 and i < n (any n).", name)
	g.decl("//\n//go:noescape\nfunc %s(n int, x, y *%s, ldy int, out *[4]%s)\n", name, e.goT, e.goT)
	g.comment(fmt.Sprintf("func %s(n int, x, y *%s, ldy int, out *[4]%s)", name, e.goT, e.goT))
	g.comment("SI x   DI y row 0   R8 ldy in bytes   R9 3*ldy   Z0-Z3, Z4-Z7 accumulators")
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-40\n", name)
	g.ins("MOVQ n+0(FP), CX")
	g.ins("MOVQ x+8(FP), SI")
	g.ins("MOVQ y+16(FP), DI")
	g.ins("MOVQ ldy+24(FP), R8")
	g.ins("SHLQ $%d, R8", log2(e.size))
	g.ins("LEAQ (R8)(R8*2), R9")
	g.zeroZ(0, 8)
	mov := "VMOVUP" + e.p[1:]
	fma := "VFMADD231" + e.p
	l := func(s string) string { return name + "_" + s }
	g.ins("MOVQ CX, BX")
	g.ins("SHRQ $%d, BX", log2(2*e.lanes))
	g.ins("JZ %s", l("one"))
	g.label(l("loop"))
	g.ins("%s (SI), Z8", mov)
	g.ins("%s 64(SI), Z9", mov)
	for r := range 4 {
		g.ins("%s (DI)%s, Z8, %s", fma, rowIndex[r], z(r))
		g.ins("%s 64(DI)%s, Z9, %s", fma, rowIndex[r], z(4+r))
	}
	g.ins("ADDQ $128, SI")
	g.ins("ADDQ $128, DI")
	g.ins("DECQ BX")
	g.ins("JNZ %s", l("loop"))
	g.label(l("one"))
	g.ins("TESTQ $%d, CX", e.lanes)
	g.ins("JZ %s", l("mask"))
	g.ins("%s (SI), Z8", mov)
	for r := range 4 {
		g.ins("%s (DI)%s, Z8, %s", fma, rowIndex[r], z(r))
	}
	g.ins("ADDQ $64, SI")
	g.ins("ADDQ $64, DI")
	g.label(l("mask"))
	g.tailMask(e, l("sum"))
	g.ins("%s.Z (SI), K1, Z8", mov)
	for r := range 4 {
		g.ins("%s.Z (DI)%s, K1, Z9", mov, rowIndex[r])
		g.ins("%s Z9, Z8, %s", fma, z(4+r))
	}
	g.label(l("sum"))
	for r := range 4 {
		g.ins("VADD%s %s, %s, %s", e.p, z(4+r), z(r), z(r))
	}
	g.ins("MOVQ out+32(FP), DX")
	g.reduce4(e, [4]int{0, 1, 2, 3}, [4]int{4, 5, 6, 7}, 0)
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// rowIndex addresses rows 0-3 from a base register with R8 = ld and
// R9 = 3*ld in bytes.
var rowIndex = []string{"", "(R8*1)", "(R8*2)", "(R9*1)"}

// rowIndex10 is rowIndex with R10 = ld and R11 = 3*ld.
var rowIndex10 = []string{"", "(R10*1)", "(R10*2)", "(R11*1)"}

// outRow addresses the four output rows of the grouped axpy kernels, DI
// the first, R10 their spacing and AX = DI + 2*R10.
var outRow = []string{"(DI)", "(DI)(R10*1)", "(AX)", "(AX)(R10*1)"}

// reduce4 sums each of the four zmm registers acc across its lanes and
// stores the four sums at off(DX), using the registers tmp as scratch:
// 512 -> 256 -> 128 bits per register, then the four together (combine4).
// Registers above 15 get EVEX encodings (AVX512VL).
func (g *gen) reduce4(e elem, acc, tmp [4]int, off int) {
	add := "VADD" + e.p
	y := func(i int) string { return fmt.Sprintf("Y%d", i) }
	x := func(i int) string { return fmt.Sprintf("X%d", i) }
	for _, r := range acc {
		g.ins("VEXTRACTF64X4 $1, %s, %s", z(r), y(tmp[0]))
		g.ins("%s %s, %s, %s", add, y(tmp[0]), y(r), y(r))
		g.ins("VEXTRACTF32X4 $1, %s, %s", y(r), x(tmp[0]))
		g.ins("%s %s, %s, %s", add, x(tmp[0]), x(r), x(r))
	}
	g.combine4(e, acc, tmp, off)
}

// reduce4Y is reduce4 for ymm registers (AVX only): 256 -> 128 bits per
// register, then combine4.
func (g *gen) reduce4Y(e elem, acc, tmp [4]int, off int) {
	for _, r := range acc {
		g.ins("VEXTRACTF128 $1, Y%d, X%d", r, tmp[0])
		g.ins("VADD%s X%d, X%d, X%d", e.p, tmp[0], r, r)
	}
	g.combine4(e, acc, tmp, off)
}

// combine4 finishes reduce4 and reduce4Y: it sums each of the four xmm
// registers acc across its lanes and stores the four sums at off(DX), with
// unpacks (a0+a2, b0+b2, a1+a3, b1+b3) and shuffles pairing the halves.
func (g *gen) combine4(e elem, acc, tmp [4]int, off int) {
	x := func(i int) string { return fmt.Sprintf("X%d", i) }
	a, b, c, d := x(acc[0]), x(acc[1]), x(acc[2]), x(acc[3])
	t0, t1, t2, t3 := x(tmp[0]), x(tmp[1]), x(tmp[2]), x(tmp[3])
	if e.size == 4 {
		g.ins("VUNPCKLPS %s, %s, %s", b, a, t0)
		g.ins("VUNPCKHPS %s, %s, %s", b, a, t1)
		g.ins("VADDPS %s, %s, %s", t1, t0, t0)
		g.ins("VUNPCKLPS %s, %s, %s", d, c, t1)
		g.ins("VUNPCKHPS %s, %s, %s", d, c, t2)
		g.ins("VADDPS %s, %s, %s", t2, t1, t1)
		g.ins("VSHUFPS $0x44, %s, %s, %s", t1, t0, t2)
		g.ins("VSHUFPS $0xEE, %s, %s, %s", t1, t0, t3)
		g.ins("VADDPS %s, %s, %s", t3, t2, t2)
		g.ins("VMOVUPS %s, %d(DX)", t2, off)
		return
	}
	g.ins("VUNPCKLPD %s, %s, %s", b, a, t0)
	g.ins("VUNPCKHPD %s, %s, %s", b, a, t1)
	g.ins("VADDPD %s, %s, %s", t1, t0, t0)
	g.ins("VUNPCKLPD %s, %s, %s", d, c, t1)
	g.ins("VUNPCKHPD %s, %s, %s", d, c, t2)
	g.ins("VADDPD %s, %s, %s", t2, t1, t1)
	g.ins("VMOVUPD %s, %d(DX)", t0, off)
	g.ins("VMOVUPD %s, %d(DX)", t1, off+16)
}

// dot4x4Z emits <pre>dot4x4Z(n, x, ldx, y, ldy, out): out[q*4+r] =
// sum_i x[q*ldx+i]*y[r*ldy+i] for q, r < 4 and i < n: the sixteen dot
// products of four rows by four rows, each vector of x and y loaded once
// per step for four FMAs, sixteen accumulators, reduced four at a time.
// Each row of x (the operand that streams) is fetched near bytes ahead of
// its loads into L1 and far bytes ahead into L2 (dotFetchAhead chooses
// both per CPU), as the read anchor fetches its streams; the dot form
// gives it rows a quarter of its range apart (smallJob.chunk), so each
// row goes on where the last call's left off.
func (g *gen) dot4x4Z(e elem) {
	name := e.pre + "dot4x4Z"
	args := fmt.Sprintf("n int, x *%s, ldx int, y *%s, ldy int, out *[16]%s, pf *%s, ldpf, near, far int", e.goT, e.goT, e.goT, e.goT)
	g.decl("// %s computes out[q*4+r] = sum_i x[q*ldx+i]*y[r*ldy+i] for q, r < 4 and", name)
	g.decl("// i < n (any n): four rows of x against four rows of y. Unless pf is nil,")
	g.decl("// it first fetches the first lines of the four rows at pf, ldpf apart:")
	g.decl("// the next rows of whichever operand streams. It fetches each row of x")
	g.decl("// near bytes ahead of its loads into L1 and far bytes ahead into L2.")
	g.decl("//\n//go:noescape\nfunc %s(%s)\n", name, args)
	g.comment(fmt.Sprintf("func %s(%s)", name, args))
	g.comment("SI x row 0   R10 ldx, R11 3*ldx   DI y row 0   R8 ldy, R9 3*ldy (bytes)")
	g.comment("AX x row 0 + near, R12 x row 0 + far (the fetches)")
	g.comment("Z(4q+r) accumulators, Z16-Z19 x step, Z20-Z23 y step")
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-80\n", name)
	l := func(s string) string { return name + "_" + s }
	g.dotLead(e, name)
	g.ins("MOVQ n+0(FP), CX")
	g.ins("MOVQ x+8(FP), SI")
	g.ins("MOVQ ldx+16(FP), R10")
	g.ins("MOVQ y+24(FP), DI")
	g.ins("MOVQ ldy+32(FP), R8")
	g.ins("SHLQ $%d, R10", log2(e.size))
	g.ins("SHLQ $%d, R8", log2(e.size))
	g.ins("LEAQ (R10)(R10*2), R11")
	g.ins("LEAQ (R8)(R8*2), R9")
	g.ins("MOVQ near+64(FP), AX")
	g.ins("ADDQ SI, AX")
	g.ins("MOVQ far+72(FP), R12")
	g.ins("ADDQ SI, R12")
	g.zeroZ(0, 16)
	mov := "VMOVUP" + e.p[1:]
	fma := "VFMADD231" + e.p
	step := func(mask bool) {
		ld, k := mov+" ", ""
		if mask {
			ld, k = mov+".Z ", "K1, "
		}
		for q := range 4 {
			g.ins("%s(SI)%s, %s%s", ld, rowIndex10[q], k, z(16+q))
		}
		for r := range 4 {
			g.ins("%s(DI)%s, %s%s", ld, rowIndex[r], k, z(20+r))
		}
		for q := range 4 {
			for r := range 4 {
				g.ins("%s %s, %s, %s", fma, z(20+r), z(16+q), z(4*q+r))
			}
		}
	}
	g.ins("MOVQ CX, BX")
	g.ins("SHRQ $%d, BX", log2(e.lanes))
	g.ins("JZ %s", l("mask"))
	g.ins("PCALIGN $64") // as axpy4Z's loop
	g.label(l("loop"))
	for q := range 4 {
		g.ins("PREFETCHT0 (AX)%s", rowIndex10[q])
		g.ins("PREFETCHT1 (R12)%s", rowIndex10[q])
	}
	step(false)
	g.ins("ADDQ $64, SI")
	g.ins("ADDQ $64, DI")
	g.ins("ADDQ $64, AX")
	g.ins("ADDQ $64, R12")
	g.ins("DECQ BX")
	g.ins("JNZ %s", l("loop"))
	g.label(l("mask"))
	g.tailMask(e, l("sum"))
	step(true)
	g.label(l("sum"))
	g.ins("MOVQ out+40(FP), DX")
	for q := range 4 {
		g.reduce4(e, [4]int{4 * q, 4*q + 1, 4*q + 2, 4*q + 3}, [4]int{16, 17, 18, 19}, 4*q*e.size)
	}
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// axpy4Z emits the axpy form for rows output rows. rows == 1 is
// <pre>axpy4Z(n, s *[4]T, x, ldx, y): y[i] += sum_r s[r]*x[r*ldx+i] for
// r < 4, i < n. rows == 4 is <pre>axpy4x4Z(n, groups, s, scs, srs, alpha,
// x, ldx, y, ldy): y[q*ldy+i] += sum_p (alpha*s[q*srs+p*scs])*x[p*ldx+i]
// for q < 4, p < 4*groups, i < n, four rows of x (a group) at a time. The
// four x vectors of a step are loaded once and applied to every output
// row; a group's coefficients stay broadcast (and scaled) in Z16.. for
// the whole row. The groups run inside one call, which scales the
// coefficients itself: computing them in Go and calling once per group
// ran a two-core 4x1024x1024 float32 kernel loop 5-9 % slower on a Zen 5
// EPYC (138-151 against 152-159 GB/s, docs/benchmarks.md "The grouped
// four-row axpy").
func (g *gen) axpy4Z(e elem, rows int) {
	name := e.pre + "axpy4Z"
	if rows != 1 {
		name = fmt.Sprintf("%saxpy4x%dZ", e.pre, rows)
	}
	if 16+4*rows > 32 {
		log.Fatalf("%s: too many coefficients", name)
	}
	grouped := rows > 1
	args := fmt.Sprintf("n int, s *[4]%s, x *%s, ldx int, y *%s", e.goT, e.goT, e.goT)
	frame := 40
	if grouped {
		args = fmt.Sprintf("n, groups int, s *%s, scs, srs int, alpha %s, x *%s, ldx int, y *%s, ldy int", e.goT, e.goT, e.goT, e.goT)
		frame = 80
		g.decl("// %s computes y[q*ldy+i] += sum_p (alpha*s[q*srs+p*scs])*x[p*ldx+i]", name)
		g.decl("// for q < %d, p < 4*groups and i < n (any n): four axpys into each of", rows)
		g.decl("// %d rows of y per group of four rows of x.", rows)
	} else {
		g.decl("// %s computes y[i] += sum_r s[r]*x[r*ldx+i] for r < 4 and i < n (any n).", name)
	}
	g.decl("//\n//go:noescape\nfunc %s(%s)\n", name, args)
	g.comment(fmt.Sprintf("func %s(%s)", name, args))
	l := func(s string) string { return name + "_" + s }
	mov := "VMOVUP" + e.p[1:]
	fma := "VFMADD231" + e.p
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-%d\n", name, frame)
	if grouped {
		g.comment("SI x row 0   R8 ldx in bytes   R9 3*ldx   DI y   R10 ldy in bytes   Z16.. coefficients")
		g.comment("DX the group's coefficients   R11 scs in bytes   R12 srs in bytes   R13 groups left")
		g.groupedProlog(e, "groups", l("done"))
		g.label(l("group"))
		// Broadcast the group's coefficients (row q of y: AX, step r: BX)
		// and scale them by alpha, broadcast in Z0 until the body loads x.
		g.ins("VBROADCAST%s alpha+40(FP), Z0", e.s)
		g.ins("MOVQ DX, AX")
		for q := range rows {
			g.ins("MOVQ AX, BX")
			for r := range 4 {
				c := 16 + 4*q + r
				g.ins("VBROADCAST%s (BX), %s", e.s, z(c))
				g.ins("VMUL%s Z0, %s, %s", e.p, z(c), z(c))
				if r < 3 {
					g.ins("ADDQ R11, BX")
				}
			}
			if q < rows-1 {
				g.ins("ADDQ R12, AX")
			}
		}
		g.ins("MOVQ x+48(FP), SI")
		g.ins("CMPQ R13, $1")
		g.ins("JEQ %s", l("body"))
		// The rows' first lines only: a call walks one column block, at
		// most 4 KiB of each row (streamBlockBytes), and the page loop
		// measured 2-9 % slower here (float32 rows page-aligned, where it
		// fetches nothing more).
		g.comment("another group follows: fetch its rows' first lines")
		g.ins("LEAQ (SI)(R8*4), AX")
		g.prefetchLead(name, "AX", "R8", "R9", "", "BX", "DI")
		g.label(l("body"))
		g.ins("MOVQ y+64(FP), DI")
		g.ins("MOVQ n+0(FP), CX")
	} else {
		g.comment("SI x row 0   R8 ldx in bytes   R9 3*ldx   DI y   Z16.. coefficients")
		g.ins("MOVQ n+0(FP), CX")
		g.ins("MOVQ s+8(FP), DX")
		g.ins("MOVQ x+16(FP), SI")
		g.ins("MOVQ ldx+24(FP), R8")
		g.ins("MOVQ y+32(FP), DI")
		g.ins("SHLQ $%d, R8", log2(e.size))
		g.ins("LEAQ (R8)(R8*2), R9")
		for c := range 4 {
			g.ins("VBROADCAST%s %d(DX), %s", e.s, c*e.size, z(16+c))
		}
	}
	// body updates every output row with nv vectors of each x row (in
	// Z(r*nv+v)), the output vectors in Z(4*nv+q*nv+v); masked loads and
	// stores (nv == 1) when mask is set. Each output vector takes a chain
	// of four dependent FMAs, so two vectors per step give the core twice
	// the independent chains: saxpy4x4Z in L1 (BenchmarkAxpy4x4) went from
	// 87 to 110-115 GFLOP/s on a Sapphire Rapids class Xeon, 53 % to 70 %
	// of the FMA peak. (Fetching the whole of the next four rows of x
	// ahead with PREFETCHT0, a line per line loaded, measured no faster
	// there. On a Zen 5 EPYC it ran 4x1024x1024 12-16 % faster from memory
	// but 11-22 % slower from L3: docs/benchmarks.md, "Fetching the next
	// group of rows ahead". Only their first leadLines lines are fetched,
	// once per group, above.)
	body := func(nv int, mask bool) {
		ld, st := mov+" ", mov+" "
		if mask {
			ld, st = mov+".Z ", mov+" "
		}
		k := ""
		if mask {
			k = "K1, "
		}
		for r := range 4 {
			for v := range nv {
				g.ins("%s%d(SI)%s, %s%s", ld, 64*v, rowIndex[r], k, z(r*nv+v))
			}
		}
		// Every output vector is loaded before any is stored (as in
		// axpy8x4Z): output rows 4 KiB apart would put each load just
		// behind a store to the same page offset.
		if rows > 1 {
			g.ins("LEAQ (DI)(R10*2), AX")
		}
		for q := range rows {
			for v := range nv {
				g.ins("%s%d%s, %s%s", ld, 64*v, outRow[q], k, z(4*nv+q*nv+v))
			}
		}
		for q := range rows {
			for r := range 4 {
				for v := range nv {
					g.ins("%s %s, %s, %s", fma, z(r*nv+v), z(16+4*q+r), z(4*nv+q*nv+v))
				}
			}
		}
		for q := range rows {
			for v := range nv {
				g.ins("%s%s, %s%d%s", st, z(4*nv+q*nv+v), k, 64*v, outRow[q])
			}
		}
	}
	// Two vectors per step where the x and output vectors fit below the
	// coefficients (Z16..): 8 + 2*rows registers.
	nv := 1
	if 8+2*rows <= 16 {
		nv = 2
	}
	next := l("done")
	if grouped {
		next = l("next")
	}
	g.ins("MOVQ CX, BX")
	g.ins("SHRQ $%d, BX", log2(nv*e.lanes))
	g.ins("JZ %s", l("one"))
	// The loop starts a 64-byte block: without it the float64 kernel ran
	// 4x1024x1024 from L3 at 0.56-0.62x of a read where it had run at
	// 0.68-0.77x, only because the fetching ahead moved it.
	g.ins("PCALIGN $64")
	g.label(l("loop"))
	body(nv, false)
	g.ins("ADDQ $%d, SI", 64*nv)
	g.ins("ADDQ $%d, DI", 64*nv)
	g.ins("DECQ BX")
	g.ins("JNZ %s", l("loop"))
	g.label(l("one"))
	if nv == 2 {
		// One whole vector may be left.
		g.ins("TESTQ $%d, CX", e.lanes)
		g.ins("JZ %s", l("mask"))
		body(1, false)
		g.ins("ADDQ $64, SI")
		g.ins("ADDQ $64, DI")
	}
	g.label(l("mask"))
	g.tailMask(e, next)
	body(1, true)
	if grouped {
		// The next group: four rows of x further, and their coefficients.
		g.label(l("next"))
		g.groupedNext(4, l("group"))
	}
	g.label(l("done"))
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// gather4 emits <pre>gather4(rows int, src *T, ld int, dst *T, ldd int) int:
// dst[c*ldd+p] = src[p*ld+c] for c < 4 and p below the returned count, the
// rows in whole blocks (eight float32 rows or four float64 rows a step),
// so four columns of a matrix become four contiguous rows; the caller
// gathers the rest. Each step transposes 4x4 blocks in registers (per
// 128-bit lane for float32, with a lane swap for float64). It needs only
// AVX, so every amd64 tier with kernels uses it. The dot form gathers B's
// columns before its goroutines start: for 1024x4 float32 it takes 0.23
// µs where the Go loop takes 1.09 (see gatherColumns).
func (g *gen) gather4(e elem) {
	name := e.pre + "gather4"
	args := fmt.Sprintf("rows int, src *%s, ld int, dst *%s, ldd int", e.goT, e.goT)
	g.decl("// %s sets dst[c*ldd+p] = src[p*ld+c] for c < 4 and p below the count it", name)
	g.decl("// returns (rows rounded down to its step): four columns gathered as rows.")
	g.decl("//\n//go:noescape\nfunc %s(%s) int\n", name, args)
	g.comment(fmt.Sprintf("func %s(%s) int", name, args))
	g.comment("SI src row p   BX src row p+4   R8 ld, R9 3*ld   DI dst   R10 ldd, R11 3*ldd (bytes)")
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-48\n", name)
	step := 8 // float32: two 4x4 blocks a step, one per 128-bit lane
	if e.size == 8 {
		step = 4
	}
	l := func(s string) string { return name + "_" + s }
	g.ins("MOVQ rows+0(FP), CX")
	g.ins("MOVQ src+8(FP), SI")
	g.ins("MOVQ ld+16(FP), R8")
	g.ins("MOVQ dst+24(FP), DI")
	g.ins("MOVQ ldd+32(FP), R10")
	g.ins("SHLQ $%d, R8", log2(e.size))
	g.ins("SHLQ $%d, R10", log2(e.size))
	g.ins("LEAQ (R8)(R8*2), R9")
	g.ins("LEAQ (R10)(R10*2), R11")
	g.ins("LEAQ (SI)(R8*4), BX")
	g.ins("SHRQ $%d, CX", log2(step))
	g.ins("MOVQ CX, DX")
	g.ins("SHLQ $%d, DX", log2(step))
	g.ins("MOVQ DX, ret+40(FP)")
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s", l("done"))
	g.label(l("loop"))
	if e.size == 4 {
		// Y_i = rows p+i | p+4+i; transpose each lane's 4x4 block.
		for i := range 4 {
			g.ins("VMOVUPS (SI)%s, X%d", rowIndex[i], i)
			g.ins("VINSERTF128 $1, (BX)%s, Y%d, Y%d", rowIndex[i], i, i)
		}
		g.ins("VUNPCKLPS Y1, Y0, Y4") // a0 b0 a1 b1
		g.ins("VUNPCKHPS Y1, Y0, Y5") // a2 b2 a3 b3
		g.ins("VUNPCKLPS Y3, Y2, Y6") // c0 d0 c1 d1
		g.ins("VUNPCKHPS Y3, Y2, Y7") // c2 d2 c3 d3
		g.ins("VUNPCKLPD Y6, Y4, Y0") // column 0
		g.ins("VUNPCKHPD Y6, Y4, Y1") // column 1
		g.ins("VUNPCKLPD Y7, Y5, Y2") // column 2
		g.ins("VUNPCKHPD Y7, Y5, Y3") // column 3
		g.ins("LEAQ (SI)(R8*8), SI")
		g.ins("LEAQ (BX)(R8*8), BX")
	} else {
		for i := range 4 {
			g.ins("VMOVUPD (SI)%s, Y%d", rowIndex[i], i)
		}
		g.ins("VUNPCKLPD Y1, Y0, Y4")         // a0 b0 | a2 b2
		g.ins("VUNPCKHPD Y1, Y0, Y5")         // a1 b1 | a3 b3
		g.ins("VUNPCKLPD Y3, Y2, Y6")         // c0 d0 | c2 d2
		g.ins("VUNPCKHPD Y3, Y2, Y7")         // c1 d1 | c3 d3
		g.ins("VPERM2F128 $0x20, Y6, Y4, Y0") // column 0
		g.ins("VPERM2F128 $0x20, Y7, Y5, Y1") // column 1
		g.ins("VPERM2F128 $0x31, Y6, Y4, Y2") // column 2
		g.ins("VPERM2F128 $0x31, Y7, Y5, Y3") // column 3
		g.ins("LEAQ (SI)(R8*4), SI")
	}
	for c := range 4 {
		g.ins("VMOVUP%s Y%d, (DI)%s", e.p[1:], c, rowIndex10[c])
	}
	g.ins("ADDQ $32, DI")
	g.ins("DECQ CX")
	g.ins("JNZ %s", l("loop"))
	g.label(l("done"))
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// stripVecs is the width of axpyStripZ's strip in vectors: four rows of C
// by four vectors are sixteen accumulators, leaving registers for one row
// of x (four) and the four broadcast coefficients.
const stripVecs = 4

// axpyStripZ emits <pre>axpyStripZ(k, s, scs, srs, x, ldx, y, ldy, pf, alpha):
// y[q*ldy+j] += alpha * sum_p s[q*srs+p*scs]*x[p*ldx+j] for q < 4, p < k and
// j < 4*lanes: a strip of four output rows, four vectors wide, held in
// registers while k rows of x go past, so each step is one row of x (four
// loads), four broadcast coefficients and sixteen independent FMAs, with no
// load or store of y in the loop (the four-row axpy loads and stores each
// output vector once per four rows of x, and those stores can alias the
// loads of x four KiB apart). The rows of x are strided, one short piece
// per row, which the hardware prefetchers follow poorly, so each step
// fetches the row pf bytes ahead (pf = 0 fetches the row being read).
func (g *gen) axpyStripZ(e elem) {
	name := e.pre + "axpyStripZ"
	args := fmt.Sprintf("k int, s *%s, scs, srs int, x *%s, ldx int, y *%s, ldy int, pf int, alpha %s", e.goT, e.goT, e.goT, e.goT)
	g.decl("// %s computes y[q*ldy+j] += alpha * sum_p s[q*srs+p*scs]*x[p*ldx+j] for", name)
	g.decl("// q < 4, p < k and j < %d: four output rows of a strip %d values wide,", stripVecs*e.lanes, stripVecs*e.lanes)
	g.decl("// kept in registers while k rows of x stream past; each step prefetches")
	g.decl("// the row pf bytes ahead of the one it reads.")
	g.decl("//\n//go:noescape\nfunc %s(%s)\n", name, args)
	g.comment(fmt.Sprintf("func %s(%s)", name, args))
	g.comment("CX k   DX s (row 0)   R9 srs, R10 3*srs   R11 scs (bytes)   SI x   R8 ldx   BX pf   DI y   R12 ldy")
	g.comment("Z(4q+v) accumulators   Z16-Z19 a row of x   Z20-Z23 coefficients")
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-%d\n", name, 9*8+e.size)
	g.ins("MOVQ k+0(FP), CX")
	g.ins("MOVQ s+8(FP), DX")
	g.ins("MOVQ scs+16(FP), R11")
	g.ins("MOVQ srs+24(FP), R9")
	g.ins("MOVQ x+32(FP), SI")
	g.ins("MOVQ ldx+40(FP), R8")
	g.ins("MOVQ y+48(FP), DI")
	g.ins("MOVQ ldy+56(FP), R12")
	g.ins("MOVQ pf+64(FP), BX")
	for _, r := range []string{"R11", "R9", "R8", "R12"} {
		g.ins("SHLQ $%d, %s", log2(e.size), r)
	}
	g.ins("LEAQ (R9)(R9*2), R10")
	g.zeroZ(0, 16)
	mov := "VMOVUP" + e.p[1:]
	fma := "VFMADD231" + e.p
	sIndex := []string{"", "(R9*1)", "(R9*2)", "(R10*1)"}
	l := func(s string) string { return name + "_" + s }
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s", l("store"))
	g.label(l("loop"))
	for v := range stripVecs {
		g.ins("PREFETCHT0 %d(SI)(BX*1)", 64*v)
	}
	for v := range stripVecs {
		g.ins("%s %d(SI), %s", mov, 64*v, z(16+v))
	}
	for q := range 4 {
		g.ins("VBROADCAST%s (DX)%s, %s", e.s, sIndex[q], z(20+q))
	}
	for q := range 4 {
		for v := range stripVecs {
			g.ins("%s %s, %s, %s", fma, z(16+v), z(20+q), z(4*q+v))
		}
	}
	g.ins("ADDQ R8, SI")
	g.ins("ADDQ R11, DX")
	g.ins("DECQ CX")
	g.ins("JNZ %s", l("loop"))
	g.label(l("store"))
	g.ins("VBROADCAST%s alpha+72(FP), Z20", e.s)
	for q := range 4 {
		for v := range stripVecs {
			g.ins("%s %d(DI), %s", mov, 64*v, z(16+v))
			g.ins("%s %s, Z20, %s", fma, z(4*q+v), z(16+v))
			g.ins("%s %s, %d(DI)", mov, z(16+v), 64*v)
		}
		if q < 3 {
			g.ins("ADDQ R12, DI")
		}
	}
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// dot4x4Y emits <pre>dot4x4Y(n, x, ldx, y, ldy, out, pf, ldpf, near,
// far)</pre>, dot4x4Z for AVX2 and n a multiple of the ymm lanes. Sixteen
// accumulators would take all sixteen ymm registers, so it runs the rows
// of x in two pairs (eight accumulators, two x and four y vectors a step)
// that take turns every dotChunk steps of 64 bytes: rows 0 and 1 over a
// stretch of 1 KiB, then rows 2 and 3 over the same stretch, the pair at
// rest keeping its accumulators in the frame. So the four rows of x
// stream side by side, each fetched near and far bytes ahead of its loads
// as in dot4x4Z, and no row of x has to stay in the caches for a second
// pass (y, 16 or 32 KiB, is read twice per stretch). On a Zen 4 EPYC
// (TESSERA_CPU=avx2, two cores, docs/benchmarks.md "A Zen 4 EPYC"),
// fetching into L1 only, this took the dot forms from memory from
// 0.66-0.72x of the four-stream read to 0.79-0.87x (three runs of four
// rounds, 0.83-0.85x in the run beside the old kernel), and float64 from
// L3 from 0.32x to 0.43-0.48x, against two whole passes (the first
// fetching rows 2 and 3, the second the next group's rows 0 and 1); with
// the fetch into L2 as well, to 0.92-0.99x. On the Zen 5 EPYC, where the
// old kernel ran at 0.83-0.85x (float32) and 0.63-0.64x (float64), the
// turns are not measured.
func (g *gen) dot4x4Y(e elem) {
	name := e.pre + "dot4x4Y"
	lanes := e.lanes / 2
	args := fmt.Sprintf("n int, x *%s, ldx int, y *%s, ldy int, out *[16]%s, pf *%s, ldpf, near, far int", e.goT, e.goT, e.goT, e.goT)
	g.decl("// %s is %sdot4x4Z for AVX2, with n a multiple of %d: the rows of x run", name, e.pre, lanes)
	g.decl("// in two pairs that take turns every %d bytes, so each row of y is read", 64*dotChunk)
	g.decl("// twice.")
	g.decl("//\n//go:noescape\nfunc %s(%s)\n", name, args)
	g.comment(fmt.Sprintf("func %s(%s)", name, args))
	g.comment("SI x row 0   R10 ldx, R11 3*ldx   DI y row 0   R8 ldy, R9 3*ldy (bytes)")
	g.comment("AX SI + near, R12 SI + far (the fetches)")
	g.comment("BX steps left   CX steps in this stretch   R13 its count")
	g.comment("Y(4h+r) accumulators of x row 2p+h by y row r (pair p), Y8-Y9 x step, Y10-Y13 y step")
	g.comment("0(SP) pair 0's accumulators, 256(SP) pair 1's")
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $512-80\n", name)
	l := func(s string) string { return name + "_" + s }
	g.dotLead(e, name)
	g.ins("MOVQ x+8(FP), SI")
	g.ins("MOVQ y+24(FP), DI")
	g.ins("MOVQ ldx+16(FP), R10")
	g.ins("MOVQ ldy+32(FP), R8")
	g.ins("SHLQ $%d, R10", log2(e.size))
	g.ins("SHLQ $%d, R8", log2(e.size))
	g.ins("LEAQ (R8)(R8*2), R9")
	g.ins("LEAQ (R10)(R10*2), R11")
	g.ins("MOVQ near+64(FP), AX")
	g.ins("ADDQ SI, AX")
	g.ins("MOVQ far+72(FP), R12")
	g.ins("ADDQ SI, R12")
	g.ins("VXORPS Y0, Y0, Y0")
	for i := range 16 {
		g.ins("VMOVUPS Y0, %d(SP)", 32*i)
	}
	mov := "VMOVUP" + e.p[1:]
	fma := "VFMADD231" + e.p
	step := func(pair, off int) {
		g.ins("%s %d(SI)%s, Y8", mov, off, rowIndex10[2*pair])
		g.ins("%s %d(SI)%s, Y9", mov, off, rowIndex10[2*pair+1])
		for r := range 4 {
			g.ins("%s %d(DI)%s, Y%d", mov, off, rowIndex[r], 10+r)
		}
		for r := range 4 {
			g.ins("%s Y%d, Y8, Y%d", fma, 10+r, r)
			g.ins("%s Y%d, Y9, Y%d", fma, 10+r, 4+r)
		}
	}
	accumulators := func(pair int, store bool) {
		for r := range 8 {
			if store {
				g.ins("VMOVUPS Y%d, %d(SP)", r, 256*pair+32*r)
			} else {
				g.ins("VMOVUPS %d(SP), Y%d", 256*pair+32*r, r)
			}
		}
	}
	g.ins("MOVQ n+0(FP), BX")
	g.ins("SHRQ $%d, BX", log2(2*lanes))
	g.label(l("stretch"))
	g.ins("TESTQ BX, BX")
	g.ins("JZ %s", l("tail"))
	g.ins("MOVQ $%d, CX", dotChunk)
	g.ins("CMPQ BX, $%d", dotChunk)
	g.ins("CMOVQLT BX, CX")
	g.ins("SUBQ CX, BX")
	for pair := range 2 {
		loop := l(fmt.Sprintf("loop%d", pair))
		accumulators(pair, false)
		g.ins("MOVQ CX, R13")
		g.ins("PCALIGN $32")
		g.label(loop)
		g.ins("PREFETCHT0 (AX)%s", rowIndex10[2*pair])
		g.ins("PREFETCHT0 (AX)%s", rowIndex10[2*pair+1])
		g.ins("PREFETCHT1 (R12)%s", rowIndex10[2*pair])
		g.ins("PREFETCHT1 (R12)%s", rowIndex10[2*pair+1])
		step(pair, 0)
		step(pair, 32)
		g.ins("ADDQ $64, SI")
		g.ins("ADDQ $64, DI")
		g.ins("ADDQ $64, AX")
		g.ins("ADDQ $64, R12")
		g.ins("DECQ R13")
		g.ins("JNZ %s", loop)
		accumulators(pair, true)
		if pair == 0 {
			g.comment("back to the stretch's start for rows 2 and 3")
			g.ins("MOVQ CX, R13")
			g.ins("SHLQ $6, R13")
			g.ins("SUBQ R13, SI")
			g.ins("SUBQ R13, DI")
			g.ins("SUBQ R13, AX")
			g.ins("SUBQ R13, R12")
		}
	}
	g.ins("JMP %s", l("stretch"))
	g.label(l("tail"))
	g.ins("MOVQ out+40(FP), DX")
	for pair := range 2 {
		sum := l(fmt.Sprintf("sum%d", pair))
		accumulators(pair, false)
		g.ins("TESTQ $%d, n+0(FP)", lanes)
		g.ins("JZ %s", sum)
		step(pair, 0)
		g.label(sum)
		for h := range 2 {
			g.reduce4Y(e, [4]int{4 * h, 4*h + 1, 4*h + 2, 4*h + 3}, [4]int{8, 9, 10, 11}, (2*pair+h)*4*e.size)
		}
	}
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// dotChunk is how many steps of 64 bytes dot4x4Y runs one pair of rows
// before the other: 1 KiB of each row. On the Zen 4 EPYC 16 and 32 steps
// ran alike from memory and from L3, and 4 steps alike from memory but
// about 15 % slower from L3 in float32.
const dotChunk = 16

// axpy4x4Y emits <pre>axpy4x4Y(n, groups, s, scs, srs, alpha, x, ldx, y,
// ldy)</pre>, axpy4x4Z for AVX2 and n a multiple of the ymm lanes. The
// sixteen scaled coefficients of a group do not fit beside the four x
// vectors of a step: output rows 0 and 1 keep theirs in Y0-Y7, rows 2 and
// 3 take theirs as the memory operands of their FMAs, broadcast once per
// group into a 32-byte aligned block of the frame. Each step then loads
// the four x vectors once for sixteen FMAs, as axpy4x4Z does.
func (g *gen) axpy4x4Y(e elem) {
	name := e.pre + "axpy4x4Y"
	lanes := e.lanes / 2
	args := fmt.Sprintf("n, groups int, s *%s, scs, srs int, alpha %s, x *%s, ldx int, y *%s, ldy int", e.goT, e.goT, e.goT, e.goT)
	g.decl("// %s is %saxpy4x4Z for AVX2, with n a multiple of %d.", name, e.pre, lanes)
	g.decl("//\n//go:noescape\nfunc %s(%s)\n", name, args)
	g.comment(fmt.Sprintf("func %s(%s)", name, args))
	g.comment("SI x row 0   R8 ldx in bytes   R9 3*ldx   DI y   R10 ldy in bytes   BX steps left")
	g.comment("DX the group's coefficients   R11 scs in bytes   R12 srs in bytes   R13 groups left")
	g.comment("Y0-Y7 coefficients of rows 0-1   CX their block for rows 2-3   Y8-Y11 x step   Y12-Y15 y")
	l := func(s string) string { return name + "_" + s }
	mov := "VMOVUP" + e.p[1:]
	fma := "VFMADD231" + e.p
	// 8 coefficients of 32 bytes, and 32 to align them.
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $288-80\n", name)
	g.groupedProlog(e, "groups", l("done"))
	g.ins("LEAQ 32(SP), CX")
	g.ins("ANDQ $-32, CX")
	g.label(l("group"))
	g.ins("VBROADCAST%s alpha+40(FP), Y15", e.s)
	g.ins("MOVQ DX, AX")
	for q := range 4 {
		g.ins("MOVQ AX, BX")
		for r := range 4 {
			c := 4*q + r
			if q < 2 {
				g.ins("VBROADCAST%s (BX), Y%d", e.s, c)
				g.ins("VMUL%s Y15, Y%d, Y%d", e.p, c, c)
			} else {
				g.ins("VBROADCAST%s (BX), Y14", e.s)
				g.ins("VMUL%s Y15, Y14, Y14", e.p)
				g.ins("VMOVAP%s Y14, %d(CX)", e.p[1:], 32*(c-8))
			}
			if r < 3 {
				g.ins("ADDQ R11, BX")
			}
		}
		if q < 3 {
			g.ins("ADDQ R12, AX")
		}
	}
	g.ins("MOVQ x+48(FP), SI")
	g.ins("CMPQ R13, $1")
	g.ins("JEQ %s", l("body"))
	g.comment("another group follows: fetch its rows' first lines (as axpy4x4Z)")
	g.ins("LEAQ (SI)(R8*4), AX")
	g.prefetchLead(name, "AX", "R8", "R9", "", "BX", "DI")
	g.label(l("body"))
	g.ins("MOVQ y+64(FP), DI")
	g.ins("MOVQ n+0(FP), BX")
	g.ins("SHRQ $%d, BX", log2(lanes))
	g.ins("JZ %s", l("next"))
	g.ins("PCALIGN $64")
	g.label(l("loop"))
	for r := range 4 {
		g.ins("%s (SI)%s, Y%d", mov, rowIndex[r], 8+r)
	}
	// The four output vectors are loaded before any is stored (as in
	// axpy8x4Z): output rows 4 KiB apart would put each load just behind
	// a store to the same page offset.
	g.ins("LEAQ (DI)(R10*2), AX")
	for q := range 4 {
		g.ins("%s %s, Y%d", mov, outRow[q], 12+q)
	}
	for q := range 4 {
		for r := range 4 {
			if q < 2 {
				g.ins("%s Y%d, Y%d, Y%d", fma, 4*q+r, 8+r, 12+q)
			} else {
				g.ins("%s %d(CX), Y%d, Y%d", fma, 32*(4*(q-2)+r), 8+r, 12+q)
			}
		}
	}
	for q := range 4 {
		g.ins("%s Y%d, %s", mov, 12+q, outRow[q])
	}
	g.ins("ADDQ $32, SI")
	g.ins("ADDQ $32, DI")
	g.ins("DECQ BX")
	g.ins("JNZ %s", l("loop"))
	g.label(l("next"))
	g.groupedNext(4, l("group"))
	g.label(l("done"))
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// readLinesZ emits readLinesZ(p *byte, lines int) uint64 (zmm, one load a
// line) and readLinesY its AVX2 twin (ymm, two loads a line): they read
// lines 64-byte lines from p and return the sum of their quadwords, the
// read-bandwidth anchor the skinny benchmarks are compared with. The lines
// are read as four streams (the four quarters, one line of each a step,
// the rest after them one by one), each fetched readAhead bytes ahead of
// its loads: on the Zen 5 EPYC (two cores, 4 MiB shares from memory,
// docs/benchmarks.md "A stronger read anchor") that read 13-31 % faster
// than one stream without a fetch, what these anchors did before, and at
// least as fast as one stream with a fetch and two, eight or sixteen
// streams.
func (g *gen) readLines(zmm bool) {
	name, v, ins := "readLinesY", "Y", "VPXOR"
	if zmm {
		name, v, ins = "readLinesZ", "Z", "VPXORQ"
		g.decl("// %s reads lines 64-byte lines from p with zmm loads and returns a checksum", name)
		g.decl("// (the sum of their quadwords): the machine's read bandwidth over the same")
		g.decl("// bytes, for the benchmarks.")
	} else {
		g.decl("// %s is readLinesZ with ymm loads (AVX2).", name)
	}
	g.decl("//\n//go:noescape\nfunc %s(p *byte, lines int) uint64\n", name)
	g.comment(fmt.Sprintf("func %s(p *byte, lines int) uint64", name))
	g.comment("SI quarter 0's next line   R8 a quarter's bytes, R9 three   CX lines, BX steps left")
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-24\n", name)
	l := func(s string) string { return name + "_" + s }
	g.ins("MOVQ p+0(FP), SI")
	g.ins("MOVQ lines+8(FP), CX")
	for i := range 4 {
		g.ins("%s %s%d, %s%d, %s%d", ins, v, i, v, i, v, i)
	}
	add := func(addr string, acc int) {
		if zmm {
			g.ins("VPADDQ %s, Z%d, Z%d", addr, acc, acc)
			return
		}
		g.ins("VPADDQ %s, Y%d, Y%d", addr, acc, acc)
		g.ins("VPADDQ 32%s, Y%d, Y%d", addr, acc, acc)
	}
	g.ins("MOVQ CX, BX")
	g.ins("SHRQ $2, BX")
	g.ins("JZ %s", l("one"))
	g.ins("MOVQ BX, R8")
	g.ins("SHLQ $6, R8")
	g.ins("LEAQ (R8)(R8*2), R9")
	g.label(l("loop"))
	for q, idx := range rowIndex {
		g.ins("PREFETCHT0 %d(SI)%s", readAhead, idx)
		add("(SI)"+idx, q)
	}
	g.ins("ADDQ $64, SI")
	g.ins("DECQ BX")
	g.ins("JNZ %s", l("loop"))
	g.ins("ADDQ R9, SI")
	g.label(l("one"))
	g.ins("ANDQ $3, CX")
	g.ins("JZ %s", l("sum"))
	g.label(l("loop1"))
	add("(SI)", 0)
	g.ins("ADDQ $64, SI")
	g.ins("DECQ CX")
	g.ins("JNZ %s", l("loop1"))
	g.label(l("sum"))
	g.ins("VPADDQ %s1, %s0, %s0", v, v, v)
	g.ins("VPADDQ %s3, %s2, %s2", v, v, v)
	g.ins("VPADDQ %s2, %s0, %s0", v, v, v)
	if zmm {
		g.ins("VEXTRACTI64X4 $1, Z0, Y1")
		g.ins("VPADDQ Y1, Y0, Y0")
	}
	g.ins("VEXTRACTI128 $1, Y0, X1")
	g.ins("VPADDQ X1, X0, X0")
	g.ins("VPSHUFD $0x4E, X0, X1")
	g.ins("VPADDQ X1, X0, X0")
	g.ins("VMOVQ X0, AX")
	g.ins("MOVQ AX, ret+16(FP)")
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// readAhead is how far ahead of its loads the read anchor fetches each of
// its four streams, in bytes: 1 KiB and 2 KiB ran alike on the Zen 5
// EPYC, 512 and 4096 bytes slower; on the Zen 4 EPYC 256, 512 and 1024
// bytes ran alike. (The dot kernels take their distances as arguments:
// the best differ between those two machines, see dotFetchAhead.)
const readAhead = 1024

// axpyFetchAhead is how far ahead along each of its eight rows
// axpy8x4ZFetch fetches, in bytes: the axpy form's eight-row kernel on
// Intel CPUs. Their hardware prefetchers leave the eight rows' streams
// short of memory's speed; on an Emerald Rapids Xeon (two cores,
// 4x1024x1024 from memory, paired with a read of as many bytes) fetching
// 512 or 1024 bytes ahead took the product from 0.75-0.78x of the read
// to 0.78-0.83x (three interleaved rounds), 2048 bytes ahead did not
// (axpyRowBytes has the final figures). AMD CPUs keep axpy8x4Z, unmeasured
// with the fetch: on the Zen 5 EPYC no software fetch paid in axpy4x4Z
// (docs/architecture.md).
const axpyFetchAhead = 512

// axpy8x4Z emits <pre>axpy8x4Z(n, blocks, s, scs, srs, alpha, x, ldx, y,
// ldy)</pre>: axpy4x4Z over blocks of eight rows of x (two groups) at a
// time, y[q*ldy+i] += sum_p (alpha*s[q*srs+p*scs])*x[p*ldx+i] for q < 4,
// p < 8*blocks, i < n (any n). Eight rows of x stream at once, and each
// output vector is loaded and stored once per eight rows. A block's 32
// scaled coefficients do not all fit in registers beside the eight x
// vectors of a step: output rows 0 and 1 keep theirs in Z16-Z31, rows 2
// and 3 take theirs as embedded broadcasts from the frame. Each output
// value takes the rows of x in the same order as axpy4x4Z, with the same
// roundings. On a Zen 5 EPYC (two cores, 4x1024x1024 paired with a read
// of as many bytes, medians of interleaved rounds, docs/benchmarks.md
// "Eight rows of the axpy form at a time") it ran from memory at
// 0.80-0.90x of the read against 0.71-0.79x for axpy4x4Z, and from L3 6-13 %
// slower (0.54-0.60x against 0.62-0.66x); two vectors a step, with only
// row 0's coefficients in registers, ran no faster from L3 and slower
// from memory. A step loads its four output vectors before it stores any
// (as axpy4x4Z and axpy4x4Y do): with output rows a multiple of 4 KiB
// apart, a load just behind a store to the same page offset waits on it.
// On a Zen 4 EPYC (docs/benchmarks.md "A Zen 4 EPYC") that order ran the
// axpy form 6-27 % faster from L3 on the AVX-512 tier and 10-11 % on the
// AVX2 one, and from memory alike or better.
//
// With ahead > 0 it emits <pre>axpy8x4ZFetch instead: the same, each step
// also fetching (PREFETCHT0) the lines ahead bytes further along each of
// the eight rows, except over a row's last ahead bytes (see
// axpyFetchAhead).
func (g *gen) axpy8x4Z(e elem, ahead int) {
	name := e.pre + "axpy8x4Z"
	if ahead > 0 {
		name += "Fetch"
	}
	args := fmt.Sprintf("n, blocks int, s *%s, scs, srs int, alpha %s, x *%s, ldx int, y *%s, ldy int", e.goT, e.goT, e.goT, e.goT)
	g.decl("// %s computes y[q*ldy+i] += sum_p (alpha*s[q*srs+p*scs])*x[p*ldx+i]", name)
	g.decl("// for q < 4, p < 8*blocks and i < n (any n): %saxpy4x4Z eight rows of x at", e.pre)
	if ahead > 0 {
		g.decl("// a time, fetching each row %d bytes ahead of its loads.", ahead)
	} else {
		g.decl("// a time.")
	}
	g.decl("//\n//go:noescape\nfunc %s(%s)\n", name, args)
	g.comment(fmt.Sprintf("func %s(%s)", name, args))
	g.comment("SI x row 0   CX x row 4   R8 ldx in bytes   R9 3*ldx   DI y   R10 ldy in bytes")
	g.comment("DX the block's coefficients   R11 scs in bytes   R12 srs in bytes   R13 blocks left")
	g.comment("Z0-Z7 x step   Z8-Z11 y   Z16-Z31 coefficients of rows 0-1   0(SP).. those of rows 2-3")
	l := func(s string) string { return name + "_" + s }
	mov := "VMOVUP" + e.p[1:]
	fma := "VFMADD231" + e.p
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $%d-80\n", name, 16*e.size)
	g.groupedProlog(e, "blocks", l("done"))
	g.label(l("block"))
	g.ins("VBROADCAST%s alpha+40(FP), Z8", e.s)
	g.ins("MOVQ DX, AX")
	for q := range 4 {
		g.ins("MOVQ AX, BX")
		for p := range 8 {
			if q < 2 {
				c := 16 + 8*q + p
				g.ins("VBROADCAST%s (BX), %s", e.s, z(c))
				g.ins("VMUL%s Z8, %s, %s", e.p, z(c), z(c))
			} else {
				g.ins("VMOV%s (BX), X9", e.s)
				g.ins("VMUL%s X8, X9, X9", e.s)
				g.ins("VMOV%s X9, %d(SP)", e.s, (8*(q-2)+p)*e.size)
			}
			if p < 7 {
				g.ins("ADDQ R11, BX")
			}
		}
		if q < 3 {
			g.ins("ADDQ R12, AX")
		}
	}
	g.ins("MOVQ x+48(FP), SI")
	g.ins("CMPQ R13, $1")
	g.ins("JEQ %s", l("body"))
	g.comment("another block follows: fetch its rows' first lines (as axpy4x4Z)")
	g.ins("LEAQ (SI)(R8*8), AX")
	g.prefetchLead(name+"a", "AX", "R8", "R9", "", "BX", "DI")
	g.ins("LEAQ (AX)(R8*4), AX")
	g.prefetchLead(name+"b", "AX", "R8", "R9", "", "BX", "DI")
	g.label(l("body"))
	g.ins("LEAQ (SI)(R8*4), CX")
	g.ins("MOVQ y+64(FP), DI")
	body := func(mask, fetch bool) {
		ld, k := mov+" ", ""
		if mask {
			ld, k = mov+".Z ", "K1, "
		}
		for r := range 4 {
			g.ins("%s(SI)%s, %s%s", ld, rowIndex[r], k, z(r))
		}
		for r := range 4 {
			g.ins("%s(CX)%s, %s%s", ld, rowIndex[r], k, z(4+r))
		}
		if fetch {
			for _, base := range []string{"SI", "CX"} {
				for r := range 4 {
					g.ins("PREFETCHT0 %d(%s)%s", ahead, base, rowIndex[r])
				}
			}
		}
		g.ins("LEAQ (DI)(R10*2), AX")
		for q := range 4 {
			g.ins("%s%s, %s%s", ld, outRow[q], k, z(8+q))
		}
		for p := range 8 {
			for q := range 4 {
				acc := z(8 + q)
				if q < 2 {
					g.ins("%s %s, %s, %s", fma, z(16+8*q+p), z(p), acc)
				} else {
					g.ins("%s.BCST %d(SP), %s, %s", fma, (8*(q-2)+p)*e.size, z(p), acc)
				}
			}
		}
		for q := range 4 {
			g.ins("%s %s, %s%s", mov, z(8+q), k, outRow[q])
		}
	}
	step := func(loop string, fetch bool) {
		g.ins("PCALIGN $64")
		g.label(l(loop))
		body(false, fetch)
		g.ins("ADDQ $64, SI")
		g.ins("ADDQ $64, CX")
		g.ins("ADDQ $64, DI")
		g.ins("DECQ BX")
		g.ins("JNZ %s", l(loop))
	}
	g.ins("MOVQ n+0(FP), BX")
	g.ins("SHRQ $%d, BX", log2(e.lanes))
	g.ins("JZ %s", l("mask"))
	if ahead > 0 {
		// Steps whose fetch stays within the row, then the last ahead
		// bytes' steps without.
		// (Jumping to a label placed before a PCALIGN can keep the
		// assembler from settling its branches: jump to the loop itself.)
		g.ins("CMPQ BX, $%d", ahead/64)
		g.ins("JLS %s", l("loop"))
		g.ins("SUBQ $%d, BX", ahead/64)
		step("fetch", true)
		g.ins("MOVQ $%d, BX", ahead/64)
	}
	step("loop", false)
	g.label(l("mask"))
	g.ins("MOVQ n+0(FP), BX")
	g.ins("ANDQ $%d, BX", e.lanes-1)
	g.ins("JZ %s", l("next"))
	g.ins("MOVL $1, AX")
	g.ins("SHLXL BX, AX, AX")
	g.ins("DECL AX")
	g.ins("KMOVW AX, K1")
	body(true, false)
	g.label(l("next"))
	g.groupedNext(8, l("block"))
	g.label(l("done"))
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// groupedProlog loads the arguments the grouped axpy kernels share (n,
// count int, s *T, scs, srs int, alpha T, x *T, ldx int, y *T, ldy int):
// R13 the count (jumping to done when it is 0), DX s, R11 scs and R12 srs
// in bytes, R8 ldx and R9 3*ldx in bytes, R10 ldy in bytes.
func (g *gen) groupedProlog(e elem, count, done string) {
	g.ins("MOVQ %s+8(FP), R13", count)
	g.ins("TESTQ R13, R13")
	g.ins("JZ %s", done)
	g.ins("MOVQ s+16(FP), DX")
	g.ins("MOVQ scs+24(FP), R11")
	g.ins("SHLQ $%d, R11", log2(e.size))
	g.ins("MOVQ srs+32(FP), R12")
	g.ins("SHLQ $%d, R12", log2(e.size))
	g.ins("MOVQ ldx+56(FP), R8")
	g.ins("SHLQ $%d, R8", log2(e.size))
	g.ins("LEAQ (R8)(R8*2), R9")
	g.ins("MOVQ ldy+72(FP), R10")
	g.ins("SHLQ $%d, R10", log2(e.size))
}

// groupedNext moves the grouped axpy kernels on by rows rows of x (4 or
// 8): x's argument slot and DX, the coefficients, then loops to loop while
// R13 counts down.
func (g *gen) groupedNext(rows int, loop string) {
	g.ins("MOVQ x+48(FP), SI")
	g.ins("LEAQ (SI)(R8*%d), SI", rows)
	g.ins("MOVQ SI, x+48(FP)")
	g.ins("LEAQ (DX)(R11*%d), DX", rows)
	g.ins("DECQ R13")
	g.ins("JNZ %s", loop)
}

// dotLead starts the four-row dot kernels (arguments n int, x *T, ldx int,
// y *T, ldy int, out *[16]T, pf *T, ldpf int, then their fetch distances):
// unless pf is nil, it fetches the first lines of the four rows at pf,
// ldpf apart, and of each further page within n elements (prefetchLead),
// then falls through to the label name_start.
func (g *gen) dotLead(e elem, name string) {
	start := name + "_start"
	g.ins("MOVQ pf+48(FP), AX")
	g.ins("TESTQ AX, AX")
	g.ins("JZ %s", start)
	g.ins("MOVQ ldpf+56(FP), R8")
	g.ins("SHLQ $%d, R8", log2(e.size))
	g.ins("LEAQ (R8)(R8*2), R9")
	g.ins("MOVQ n+0(FP), CX")
	g.ins("SHLQ $%d, CX", log2(e.size))
	g.prefetchLead(name, "AX", "R8", "R9", "CX", "SI", "DI")
	g.label(start)
}
