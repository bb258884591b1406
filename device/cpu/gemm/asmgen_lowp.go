//go:build ignore

// This file is part of the generator (`go run asmgen.go asmgen_skinny.go
// asmgen_lowp.go`, the go:generate line in gemm_avx512_amd64.go): it writes gemm_lowp_amd64.s and
// lowp_decl_amd64.go, the low-precision (bf16/f16) kernels:
//
//   - bgemm32x32AMX, the AMX-BF16 micro-kernel: a 32x32 float32 tile of C in
//     four tile registers, A and B panels in the tile layout (see lowp.go);
//   - bpackAMXB and bpackDP32, packers of full B panels into the tile
//     unit's pair layout and the VDPBF16PS kernel's;
//   - bfgemm14x32Z, the 14x32 micro-kernel of asmgen.go on bf16 pairs with
//     VDPBF16PS (the gen.madd hook) instead of FMAs;
//   - hcvtC<w>Z and hcvtT<w>Z / bcvtC<w>Z and bcvtT<w>Z, packers that widen
//     f16 (VCVTPH2PS) or bf16 (zero-extend and shift) to float32 for the
//     float32 micro-kernels, for steps contiguous (C) or rows contiguous
//     along k (T, transposed 16x16 in registers);
//   - dpbf16Peak512, a VDPBF16PS throughput loop for the benchmarks.
//
// Go's assembler knows neither AMX nor AVX512_BF16, so those instructions
// are emitted as BYTE sequences by the encoders below, each followed by its
// Intel-syntax mnemonic in a comment; the kernel tests check the results
// (a wrong byte gives a wrong product or a fault) and the encodings were
// compared with GNU objdump's disassembly.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func init() { extraOutputs = append(extraOutputs, genLowp) }

// gpr numbers the general registers as the instruction encodings do.
var gpr = map[string]int{
	"AX": 0, "CX": 1, "DX": 2, "BX": 3, "SI": 6, "DI": 7,
	"R8": 8, "R9": 9, "R10": 10, "R11": 11, "R12": 12, "R13": 13, "R14": 14, "R15": 15,
}

func byteList(b []byte) string {
	s := make([]string, len(b))
	for i, x := range b {
		s[i] = fmt.Sprintf("BYTE $0x%02X", x)
	}
	return strings.Join(s, "; ")
}

// vex38 encodes a three-byte VEX instruction of map 0F38, W0, L0 (all AMX
// instructions): pp is the implied prefix (0 none, 1 66, 2 F3, 3 F2), vvvv
// the extra register operand (0 when unused), reg the ModRM.reg field, index
// and base the registers of a SIB memory operand (-1 when absent) and the
// rest the ModRM byte onwards.
func vex38(pp, vvvv, reg, index, base int, op byte, rest ...byte) string {
	b1 := byte(0x02) // map 0F38
	if reg&8 == 0 {
		b1 |= 0x80
	}
	if index < 0 || index&8 == 0 {
		b1 |= 0x40
	}
	if base < 0 || base&8 == 0 {
		b1 |= 0x20
	}
	b2 := byte((^vvvv&15)<<3 | pp)
	return byteList(append([]byte{0xC4, b1, b2, op}, rest...))
}

// tileMem encodes a TILELOADD (pp 3) or TILESTORED (pp 2) of tile t at
// disp(base)(index*1).
func tileMem(pp, t int, base, index string, disp int) string {
	bi, ii := gpr[base], gpr[index]
	if bi&7 == 4 || bi&7 == 5 || ii == 4 {
		log.Fatalf("tileMem: base %s or index %s needs another encoding", base, index)
	}
	sib := byte((ii&7)<<3 | bi&7)
	switch {
	case disp == 0:
		return vex38(pp, 0, t, ii, bi, 0x4B, byte(0x04|t<<3), sib)
	case disp >= -128 && disp < 128:
		return vex38(pp, 0, t, ii, bi, 0x4B, byte(0x44|t<<3), sib, byte(int8(disp)))
	}
	d := uint32(int32(disp))
	return vex38(pp, 0, t, ii, bi, 0x4B, byte(0x84|t<<3), sib, byte(d), byte(d>>8), byte(d>>16), byte(d>>24))
}

func (g *gen) ldtilecfg(base string) {
	b := gpr[base]
	if b&7 == 4 || b&7 == 5 {
		log.Fatalf("ldtilecfg: base %s needs another encoding", base)
	}
	g.ins("%s // LDTILECFG [%s]", vex38(0, 0, 0, -1, b, 0x49, byte(b&7)), strings.ToLower(base))
}
func (g *gen) tilerelease() { g.ins("%s // TILERELEASE", vex38(0, 0, 0, -1, -1, 0x49, 0xC0)) }
func (g *gen) tilezero(t int) {
	g.ins("%s // TILEZERO tmm%d", vex38(3, 0, t, -1, -1, 0x49, byte(0xC0|t<<3)), t)
}
func (g *gen) tileload(t int, base, index string, disp int) {
	g.ins("%s // TILELOADD tmm%d, [%s+%s+%d]", tileMem(3, t, base, index, disp), t, strings.ToLower(base), strings.ToLower(index), disp)
}
func (g *gen) tilestore(t int, base, index string, disp int) {
	g.ins("%s // TILESTORED [%s+%s+%d], tmm%d", tileMem(2, t, base, index, disp), strings.ToLower(base), strings.ToLower(index), disp, t)
}

// tdpbf16ps emits c += a*b on tiles (a: rows x 32 bf16, b: 16 pairs x 16
// columns of bf16 pairs, c: rows x 16 float32).
func (g *gen) tdpbf16ps(c, a, b int) {
	g.ins("%s // TDPBF16PS tmm%d, tmm%d, tmm%d", vex38(2, b, c, -1, a, 0x5C, byte(0xC0|c<<3|a)), c, a, b)
}

// vdpbf16ps emits the register form of VDPBF16PS zmm(dst), zmm(src1),
// zmm(src2): EVEX.512.F3.0F38.W0 52 /r.
func (g *gen) vdpbf16ps(dst, src1, src2 int) {
	p0 := byte(0x02) // map 0F38
	if dst&8 == 0 {
		p0 |= 0x80
	}
	if src2&16 == 0 {
		p0 |= 0x40
	}
	if src2&8 == 0 {
		p0 |= 0x20
	}
	if dst&16 == 0 {
		p0 |= 0x10
	}
	p1 := byte((^src1&15)<<3) | 0x04 | 0x02 // W0, pp F3
	p2 := byte(0x40)                        // 512 bits, no masking
	if src1&16 == 0 {
		p2 |= 0x08
	}
	modrm := byte(0xC0 | (dst&7)<<3 | src2&7)
	g.ins("%s // VDPBF16PS zmm%d, zmm%d, zmm%d", byteList([]byte{0x62, p0, p1, p2, 0x52, modrm}), dst, src1, src2)
}

// amxMicro emits bgemm32x32AMX: the 32x32 float32 tile of C in tmm0 (rows
// 0-15, columns 0-15), tmm1 (rows 0-15, columns 16-31), tmm2 and tmm3 (rows
// 16-31); each group of 16 k pairs loads two A tiles (tmm4, tmm5: 16 rows
// of 32 bf16) and two B tiles (tmm6, tmm7: 16 pairs of 16 columns) and runs
// four TDPBF16PS. Panels are group after group of 2 KiB: A rows 0-31 (64
// bytes each), B columns 0-15 then 16-31 (16 rows of 64 bytes each).
func (g *gen) amxMicro() {
	const name = "bgemm32x32AMX"
	g.decl("// %s computes the 32x32 float32 tile C = A*B (+ C when acc) with AMX,", name)
	g.decl("// from panels of k bf16 pairs (k a multiple of 16) in the tile layout; cfg")
	g.decl("// is the 64-byte tile configuration (amxConfig).")
	g.decl("//\n//go:noescape\nfunc %s(cfg *byte, k int, a, b, c *float32, ldc int, acc bool)\n", name)
	g.comment(fmt.Sprintf("func %s(cfg *byte, k int, a, b, c *float32, ldc int, acc bool)", name))
	g.comment("CX groups of 16 pairs   SI A panel   DX B panel   DI C rows 0-15   R9 C rows 16-31")
	g.comment("AX ldc in bytes   R10 64, the panel row stride")
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-49\n", name)
	g.ins("MOVQ cfg+0(FP), DI")
	g.ldtilecfg("DI")
	g.ins("MOVQ k+8(FP), CX")
	g.ins("MOVQ a+16(FP), SI")
	g.ins("MOVQ b+24(FP), DX")
	g.ins("MOVQ c+32(FP), DI")
	g.ins("MOVQ ldc+40(FP), AX")
	g.ins("SHLQ $2, AX")
	g.ins("MOVQ AX, R9")
	g.ins("SHLQ $4, R9")
	g.ins("ADDQ DI, R9")
	g.ins("MOVQ $64, R10")
	g.ins("MOVBLZX acc+48(FP), BX")
	g.ins("TESTQ BX, BX")
	g.ins("JZ %s_zero", name)
	g.tileload(0, "DI", "AX", 0)
	g.tileload(1, "DI", "AX", 64)
	g.tileload(2, "R9", "AX", 0)
	g.tileload(3, "R9", "AX", 64)
	g.ins("JMP %s_start", name)
	g.label(name + "_zero")
	for t := range 4 {
		g.tilezero(t)
	}
	g.label(name + "_start")
	g.ins("SHRQ $4, CX")
	g.ins("JZ %s_done", name)
	g.label(name + "_loop")
	g.tileload(4, "SI", "R10", 0)
	g.tileload(6, "DX", "R10", 0)
	g.tdpbf16ps(0, 4, 6)
	g.tileload(7, "DX", "R10", 1024)
	g.tdpbf16ps(1, 4, 7)
	g.tileload(5, "SI", "R10", 1024)
	g.tdpbf16ps(2, 5, 6)
	g.tdpbf16ps(3, 5, 7)
	g.ins("ADDQ $2048, SI")
	g.ins("ADDQ $2048, DX")
	g.ins("DECQ CX")
	g.ins("JNZ %s_loop", name)
	g.label(name + "_done")
	g.tilestore(0, "DI", "AX", 0)
	g.tilestore(1, "DI", "AX", 64)
	g.tilestore(2, "R9", "AX", 0)
	g.tilestore(3, "R9", "AX", 64)
	g.tilerelease()
	g.ins("RET")
	g.s.WriteString("\n")
}

// dpbf16Peak emits a loop of independent VDPBF16PS (as many chains as
// fmaPeak512 has FMAs), for comparing its throughput with the FMA's.
func (g *gen) dpbf16Peak() {
	const name, chains = "dpbf16Peak512", 12
	g.decl("// %s runs n iterations of %d independent 512-bit VDPBF16PS.", name, chains)
	g.decl("//\n//go:noescape\nfunc %s(n int)\n", name)
	g.comment(fmt.Sprintf("func %s(n int)", name))
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-8\n", name)
	g.ins("MOVQ n+0(FP), CX")
	g.zeroZ(0, chains+2)
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s_done", name)
	g.label(name + "_loop")
	for i := range chains {
		g.vdpbf16ps(i, chains, chains+1)
	}
	g.ins("DECQ CX")
	g.ins("JNZ %s_loop", name)
	g.label(name + "_done")
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// half is a 16-bit format of the widening packers and the narrowing
// stores.
type half struct {
	pre, goName string
	// widen converts the 16 halves in Y(reg) to float32 in Z(reg).
	widen func(g *gen, reg int)
	// narrow rounds the 16 float32 values in Z0 to halves (ties to even)
	// and stores them at (DI), under mask K1 when masked; it may use Z1-Z4
	// and K2, and the constants narrowConsts loaded.
	narrow func(g *gen, masked bool)
}

var halves = []half{
	{"h", "float16", func(g *gen, r int) { g.ins("VCVTPH2PS Y%d, Z%d", r, r) }, func(g *gen, masked bool) {
		// Immediate 0: round to nearest even, whatever MXCSR says; NaN
		// payloads keep their top bits, quieted, as F16FromFloat32 does.
		if masked {
			g.ins("VCVTPS2PH $0, Z0, K1, (DI)")
		} else {
			g.ins("VCVTPS2PH $0, Z0, (DI)")
		}
	}},
	{"b", "bfloat16", func(g *gen, r int) {
		g.ins("VPMOVZXWD Y%d, Z%d", r, r)
		g.ins("VPSLLD $16, Z%d, Z%d", r, r)
	}, func(g *gen, masked bool) {
		// BF16FromFloat32's integer rounding, lane by lane: (b + 0x7fff +
		// lsb) >> 16, and NaN (|b| > 0x7f800000) as b>>16 | 0x40.
		g.ins("VPSRLD $16, Z0, Z1")      // b >> 16
		g.ins("VPANDD Z10, Z1, Z2")      // lsb
		g.ins("VPADDD Z11, Z0, Z3")      // b + 0x7fff
		g.ins("VPADDD Z2, Z3, Z3")       // + lsb
		g.ins("VPSRLD $16, Z3, Z3")      // rounded
		g.ins("VPANDD Z12, Z0, Z4")      // |b|
		g.ins("VPCMPUD $6, Z13, Z4, K2") // |b| > 0x7f800000: NaN
		g.ins("VPORD Z14, Z1, Z1")       // b>>16 | 0x40
		g.ins("VMOVDQA32 Z1, K2, Z3")
		if masked {
			g.ins("VPMOVDW Z3, K1, (DI)")
		} else {
			g.ins("VPMOVDW Z3, (DI)")
		}
	}},
}

// narrowConsts are the constants of the bf16 narrowing, broadcast into
// Z10-Z14.
var narrowConsts = []uint32{1, 0x7fff, 0x7fffffff, 0x7f800000, 0x40}

// narrow emits <pre>narrowZ: dst[i] = round(src[i]) for i < n, float32 to
// the half format, 16 values per step and a masked last step.
func (g *gen) narrow(h half) {
	name := h.pre + "narrowZ"
	g.decl("// %s rounds n float32 values to %s (ties to even), bit for bit as the\n// scalar conversion of package dtype does.", name, h.goName)
	g.decl("//\n//go:noescape\nfunc %s(dst *uint16, src *float32, n int)\n", name)
	g.comment(fmt.Sprintf("func %s(dst *uint16, src *float32, n int)", name))
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-24\n", name)
	g.ins("MOVQ dst+0(FP), DI")
	g.ins("MOVQ src+8(FP), SI")
	g.ins("MOVQ n+16(FP), CX")
	if h.pre == "b" {
		for i, c := range narrowConsts {
			g.ins("MOVL $0x%x, AX", c)
			g.ins("VPBROADCASTD AX, Z%d", 10+i)
		}
	}
	g.ins("CMPQ CX, $16")
	g.ins("JLT %s_tail", name)
	g.label(name + "_loop")
	g.ins("VMOVDQU32 (SI), Z0")
	h.narrow(g, false)
	g.ins("ADDQ $64, SI")
	g.ins("ADDQ $32, DI")
	g.ins("SUBQ $16, CX")
	g.ins("CMPQ CX, $16")
	g.ins("JGE %s_loop", name)
	g.label(name + "_tail")
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s_done", name)
	g.ins("MOVL $1, AX")
	g.ins("SHLL CX, AX")
	g.ins("DECL AX")
	g.ins("KMOVW AX, K1")
	g.ins("VMOVDQU32.Z (SI), K1, Z0")
	h.narrow(g, true)
	g.label(name + "_done")
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// cvtC emits <pre>cvtC<w>Z: n steps of w halves, read stride bytes apart,
// widened and written back to back as float32 (w a multiple of 16 or
// below 16; the short vector is moved masked).
func (g *gen) cvtC(h half, w int) {
	name := fmt.Sprintf("%scvtC%dZ", h.pre, w)
	full, rem := w/16, w%16
	if full > 0 && rem != 0 {
		log.Fatalf("%s: width %d", name, w)
	}
	g.decl("// %s widens n steps of %d %s values, stride bytes apart, to float32.", name, w, h.goName)
	g.decl("//\n//go:noescape\nfunc %s(dst *float32, src *uint16, stride, n int)\n", name)
	g.comment(fmt.Sprintf("func %s(dst *float32, src *uint16, stride, n int)", name))
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-32\n", name)
	g.ins("MOVQ dst+0(FP), DI")
	g.ins("MOVQ src+8(FP), SI")
	g.ins("MOVQ stride+16(FP), R8")
	g.ins("MOVQ n+24(FP), CX")
	if rem != 0 {
		g.setMask(rem) // K1: rem words on load, rem dwords on store
	}
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s_done", name)
	g.label(name + "_loop")
	for i := range full {
		g.ins("VMOVDQU16 %d(SI), Y%d", 32*i, i)
		h.widen(g, i)
	}
	if rem != 0 {
		g.ins("VMOVDQU16.Z (SI), K1, Y0")
		h.widen(g, 0)
		g.ins("VMOVUPS Z0, K1, (DI)")
	}
	for i := range full {
		g.ins("VMOVUPS Z%d, %d(DI)", i, 64*i)
	}
	g.ins("ADDQ R8, SI")
	g.ins("ADDQ $%d, DI", 4*w)
	g.ins("DECQ CX")
	g.ins("JNZ %s_loop", name)
	g.label(name + "_done")
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// cvtT emits <pre>cvtT<w>Z: w rows contiguous along k, 16*blocks steps:
// dst[p*w+r] = widen(src[r*ld+p]). Each group of 16 rows is widened and
// transposed 16x16 in registers (transpose16 of asmgen.go).
func (g *gen) cvtT(h half, w int) {
	name := fmt.Sprintf("%scvtT%dZ", h.pre, w)
	groups := (w + 15) / 16
	nb := (w + 3) / 4
	if nb > len(rowBases) || (w%16 != 0 && nb > 5) {
		log.Fatalf("%s: too many rows", name)
	}
	g.decl("// %s packs 16*blocks steps of %d %s rows, widened: dst[p*%d+r] = src[r*ld+p].", name, w, h.goName, w)
	g.decl("//\n//go:noescape\nfunc %s(dst *float32, src *uint16, ld, blocks int)\n", name)
	g.comment(fmt.Sprintf("func %s(dst *float32, src *uint16, ld, blocks int)", name))
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-32\n", name)
	g.ins("MOVQ dst+0(FP), DI")
	g.ins("MOVQ src+8(FP), SI")
	g.ins("MOVQ ld+16(FP), R8")
	g.ins("MOVQ blocks+24(FP), CX")
	g.ins("SHLQ $1, R8")
	g.ins("LEAQ (R8)(R8*2), R9")
	for q := 1; q < nb; q++ {
		g.ins("LEAQ (%s)(R8*4), %s", rowBases[q-1], rowBases[q])
	}
	if rem := w % 16; rem != 0 {
		g.setMask(rem)
	}
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s_done", name)
	g.label(name + "_loop")
	for gr := range groups {
		rows := min(16, w-gr*16)
		for i := range 16 {
			if i < rows {
				g.ins("VMOVDQU16 %s, Y%d", rowAddr(gr*16+i), i)
				h.widen(g, i)
			} else {
				g.zeroReg(i)
			}
		}
		cols := g.transpose16()
		for p := range 16 {
			off := p*w*4 + gr*64
			if rows == 16 {
				g.ins("VMOVUPS %s, %d(DI)", z(cols[p]), off)
			} else {
				g.ins("VMOVUPS %s, K1, %d(DI)", z(cols[p]), off)
			}
		}
	}
	g.ins("ADDQ $%d, DI", 16*w*4)
	for q := range nb {
		g.ins("ADDQ $32, %s", rowBases[q])
	}
	g.ins("DECQ CX")
	g.ins("JNZ %s_loop", name)
	g.label(name + "_done")
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// pairPackB emits a packer of full 32-column bf16 B panels (k along
// rows, ld values apart) into a pair layout, 16 pairs of rows (32 k) per
// loop: each pair is interleaved word by word (zero-extended to dwords, the
// second row shifted up 16 bits) and columns 0-15 and 16-31 of pair q are
// stored at off(q, 0) and off(q, 1) bytes into the loop's 2 KiB.
func (g *gen) pairPackB(name, doc string, off func(q, h int) int) {
	g.decl("// %s packs groups of 32 rows (k) of a 32-column bf16 B panel, rows ld values", name)
	g.decl("// apart, into %s (2 KiB per group).", doc)
	g.decl("//\n//go:noescape\nfunc %s(dst *float32, src *uint16, ld, groups int)\n", name)
	g.comment(fmt.Sprintf("func %s(dst *float32, src *uint16, ld, groups int)", name))
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-32\n", name)
	g.ins("MOVQ dst+0(FP), DI")
	g.ins("MOVQ src+8(FP), SI")
	g.ins("MOVQ ld+16(FP), R8")
	g.ins("MOVQ groups+24(FP), CX")
	g.ins("SHLQ $1, R8")
	g.ins("TESTQ CX, CX")
	g.ins("JZ %s_done", name)
	g.label(name + "_loop")
	for q := range 16 {
		g.ins("VPMOVZXWD (SI), Z0")
		g.ins("VPMOVZXWD 32(SI), Z1")
		g.ins("VPMOVZXWD (SI)(R8*1), Z2")
		g.ins("VPMOVZXWD 32(SI)(R8*1), Z3")
		g.ins("VPSLLD $16, Z2, Z2")
		g.ins("VPSLLD $16, Z3, Z3")
		g.ins("VPORD Z2, Z0, Z0")
		g.ins("VPORD Z3, Z1, Z1")
		g.ins("VMOVDQU32 Z0, %d(DI)", off(q, 0))
		g.ins("VMOVDQU32 Z1, %d(DI)", off(q, 1))
		g.ins("LEAQ (SI)(R8*2), SI")
	}
	g.ins("ADDQ $2048, DI")
	g.ins("DECQ CX")
	g.ins("JNZ %s_loop", name)
	g.label(name + "_done")
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.s.WriteString("\n")
}

// zreg returns the number of a zmm register named "Z<n>".
func zreg(name string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "Z"))
	if err != nil || !strings.HasPrefix(name, "Z") {
		log.Fatalf("zreg %q", name)
	}
	return n
}

// dpMicro emits bfgemm14x32Z, asmgen.go's 14x32 float32 micro-kernel with
// each step a pair of bf16 along k (32 bits, so the float32 panel layout and
// broadcasts apply unchanged) and VDPBF16PS in place of the FMA.
func dpMicro() (asm, decls []byte) {
	t := &gen{}
	t.madd = func(b, a, acc string) { t.vdpbf16ps(zreg(acc), zreg(b), zreg(a)) }
	t.micro(bfPairs, 14, 2, 4, 0)
	d := strings.Replace(t.decls.String(), "values per step;", "bf16 pairs (k counts pairs) per step with VDPBF16PS;", 1)
	return t.s.Bytes(), []byte(d)
}

// bfPairs is the element of the VDPBF16PS micro-kernel: a pair of bf16, 32
// bits, laid out and broadcast as a float32.
var bfPairs = elem{"bf", "float32", "PS", "SS", 4, 16}

// genLowp writes gemm_lowp_amd64.s and lowp_decl_amd64.go.
func genLowp(dir string) {
	g := &gen{}
	g.amxMicro()
	g.pairPackB("bpackAMXB", "the AMX pair layout", func(q, h int) int { return h*1024 + q*64 })
	g.pairPackB("bpackDP32", "the VDPBF16PS kernel's panel (32 pairs per step)", func(q, h int) int { return q*128 + h*64 })
	asm, decls := dpMicro()
	g.s.Write(asm)
	g.decls.Write(decls)
	for _, h := range halves {
		// The panel widths of the AVX-512 float32 micro-kernel.
		for _, t := range microTiles {
			if t.e != f32 {
				continue
			}
			for _, w := range []int{t.mr, t.nv * t.e.lanes} {
				g.cvtC(h, w)
				g.cvtT(h, w)
			}
		}
	}
	for _, h := range halves {
		g.narrow(h)
	}
	g.dpbf16Peak()

	var s bytes.Buffer
	s.WriteString("// Code generated by asmgen.go asmgen_lowp.go; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\n#include \"textflag.h\"\n\n")
	s.Write(g.s.Bytes())
	if err := os.WriteFile(filepath.Join(dir, "gemm_lowp_amd64.s"), s.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	var d bytes.Buffer
	d.WriteString("// Code generated by asmgen.go asmgen_lowp.go; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\npackage gemm\n\n")
	d.Write(g.decls.Bytes())
	src, err := format.Source(d.Bytes())
	if err != nil {
		log.Fatalf("%v\n%s", err, d.Bytes())
	}
	if err := os.WriteFile(filepath.Join(dir, "lowp_decl_amd64.go"), src, 0o644); err != nil {
		log.Fatal(err)
	}
}
