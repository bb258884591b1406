//go:build ignore

// asmgen writes vec_amd64.s (the AVX2+FMA and AVX-512 kernels of package
// vec) and asm_amd64.go (their Go declarations). Run it with `go generate`
// in this directory; both outputs are committed, so building never needs
// it.
//
// Generating the assembly keeps the hundred-odd kernels consistent: every
// elementwise kernel of both tiers shares one loop skeleton (an unrolled
// main loop, a one-vector loop, and a masked tail so no scalar code is
// needed: VMASKMOV with AVX2, a k-register with AVX-512), the arithmetic of
// both tiers comes from one description (binaries), and every
// transcendental shares one exp core per tier and the same coefficient
// tables. Operands follow Go's assembler order (sources first, destination
// last), which reverses Intel's.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/internal/bigmath"
)

// elem describes one element type.
type elem struct {
	name  string // "F32" or "F64"
	goT   string // "float32" or "float64"
	p     string // packed suffix: "PS" or "PD"
	s     string // scalar suffix: "SS" or "SD"
	size  int    // bytes per element
	lanes int    // elements per YMM register
	// integer marks the signed integer elements of the comparison
	// kernels, which move their bits with the float moves of their size.
	integer bool
}

var (
	f32 = elem{"F32", "float32", "PS", "SS", 4, 8, false}
	f64 = elem{"F64", "float64", "PD", "SD", 8, 4, false}
	i32 = elem{"I32", "int32", "PS", "SS", 4, 8, true}
	i64 = elem{"I64", "int64", "PD", "SD", 8, 4, true}
)

type gen struct {
	s      bytes.Buffer
	decls  bytes.Buffer
	consts map[string][]string // symbol -> DATA lines
	labels int                 // labels made by uniq so far
	// okResult makes the next text() declare a second result, ok bool,
	// after ret.
	okResult bool
}

// uniq returns a label not used before: a body emitted at several places in
// one function (main loop, tail) needs its own labels at each.
func (g *gen) uniq(base string) string {
	g.labels++
	return fmt.Sprintf("%s%d", base, g.labels)
}

func (g *gen) ins(format string, a ...any) { fmt.Fprintf(&g.s, "\t"+format+"\n", a...) }
func (g *gen) label(l string)              { fmt.Fprintf(&g.s, "%s:\n", l) }
func (g *gen) comment(c string)            { fmt.Fprintf(&g.s, "\t// %s\n", c) }

// v32 registers a 32-byte constant holding eight copies of the 32-bit
// pattern bits, and returns it as a memory operand.
func (g *gen) v32(name string, bits uint32) string {
	sym := name + "<>"
	if d, ok := g.consts[sym]; ok && !strings.HasSuffix(d[0], fmt.Sprintf("$0x%08x", bits)) {
		log.Fatalf("constant %s registered with two values", name)
	}
	if _, ok := g.consts[sym]; !ok {
		var d []string
		for i := 0; i < 8; i++ {
			d = append(d, fmt.Sprintf("DATA %s+%d(SB)/4, $0x%08x", sym, 4*i, bits))
		}
		d = append(d, fmt.Sprintf("GLOBL %s(SB), RODATA|NOPTR, $32", sym))
		g.consts[sym] = d
	}
	return sym + "(SB)"
}

// v64 registers a 32-byte constant holding four copies of the 64-bit pattern.
func (g *gen) v64(name string, bits uint64) string {
	sym := name + "<>"
	if d, ok := g.consts[sym]; ok && !strings.HasSuffix(d[0], fmt.Sprintf("$0x%016x", bits)) {
		log.Fatalf("constant %s registered with two values", name)
	}
	if _, ok := g.consts[sym]; !ok {
		var d []string
		for i := 0; i < 4; i++ {
			d = append(d, fmt.Sprintf("DATA %s+%d(SB)/8, $0x%016x", sym, 8*i, bits))
		}
		d = append(d, fmt.Sprintf("GLOBL %s(SB), RODATA|NOPTR, $32", sym))
		g.consts[sym] = d
	}
	return sym + "(SB)"
}

func (g *gen) f(name string, v float32) string    { return g.v32(name, math.Float32bits(v)) }
func (g *gen) d(name string, v float64) string    { return g.v64(name, math.Float64bits(v)) }
func (g *gen) i(name string, v int32) string      { return g.v32(name, uint32(v)) }
func (g *gen) fb(name string, bits uint32) string { return g.v32(name, bits) }

func y(i int) string { return fmt.Sprintf("Y%d", i) }
func z(i int) string { return fmt.Sprintf("Z%d", i) }

// kmask sets K1 to select the first cnt (< 16) lanes of a zmm vector:
// (1<<cnt)-1. It clobbers AX and, when cnt is not CX, swaps CX with cnt
// around the shift (whose count must be in CL).
func (g *gen) kmask(cnt string) {
	if cnt != "CX" {
		g.ins("XCHGQ CX, %s", cnt)
	}
	g.ins("MOVL $1, AX")
	g.ins("SHLL CX, AX")
	if cnt != "CX" {
		g.ins("XCHGQ CX, %s", cnt)
	}
	g.ins("DECL AX")
	g.ins("KMOVW AX, K1")
}
func x(i int) string { return fmt.Sprintf("X%d", i) }

// arg is one argument of an assembly function.
type arg struct {
	name string
	typ  string // Go type
	size int
}

// frame lays out args and an optional result under Go's ABI0 and returns the
// offset of each name (the result is "ret") and the frame size.
func frame(args []arg, ret *arg) (map[string]int, int) {
	off := map[string]int{}
	o := 0
	for _, a := range args {
		o = (o + a.size - 1) / a.size * a.size
		off[a.name] = o
		o += a.size
	}
	if ret != nil {
		o = (o + 7) / 8 * 8
		off["ret"] = o
		o += ret.size
	}
	return off, o
}

// text starts an assembly function and writes its Go declaration.
func (g *gen) text(name string, args []arg, ret *arg, doc string) map[string]int {
	off, size := frame(args, ret)
	ok := g.okResult
	g.okResult = false
	if ok {
		off["ok"] = size
		size++
	}
	fmt.Fprintf(&g.s, "\n// func %s(", name)
	var ps []string
	for _, a := range args {
		ps = append(ps, a.name+" "+a.typ)
	}
	sig := strings.Join(ps, ", ") + ")"
	if ok && ret == nil {
		sig += " (ok bool)"
	} else if ok {
		sig += " (ret " + ret.typ + ", ok bool)"
	} else if ret != nil {
		sig += " " + ret.typ
	}
	fmt.Fprintf(&g.s, "%s\n", sig)
	fmt.Fprintf(&g.s, "TEXT ·%s(SB), NOSPLIT, $0-%d\n", name, size)
	fmt.Fprintf(&g.decls, "\n// %s %s\n//\n//go:noescape\nfunc %s(%s\n", name, doc, name, sig)
	return off
}

func (g *gen) load(off map[string]int, name, reg string) {
	g.ins("MOVQ %s+%d(FP), %s", name, off[name], reg)
}

// tailMask loads into Y15 a lane mask selecting the first CX elements
// (0 < CX < lanes), from the 64-byte table maskTab of eight -1 and eight 0
// dwords.
func (g *gen) tailMask(e elem) { g.maskFor(e, "CX") }

// maskFor is tailMask for a count in register cnt.
func (g *gen) maskFor(e elem, cnt string) {
	g.ins("LEAQ maskTab<>(SB), R8")
	if e.size == 4 {
		g.ins("MOVQ $8, R9")
		g.ins("SUBQ %s, R9", cnt)
		g.ins("VMOVDQU (R8)(R9*4), Y15")
	} else {
		g.ins("MOVQ $4, R9")
		g.ins("SUBQ %s, R9", cnt)
		g.ins("VMOVDQU (R8)(R9*8), Y15")
	}
}

// ewKernel describes an elementwise kernel: the pointer arguments after dst
// are the inputs; scalars are broadcast before the loop.
type ewKernel struct {
	name    string
	doc     string
	e       elem
	inputs  []string // names of input pointer arguments
	scalars []string // names of scalar arguments (type e), broadcast to Y12, Y13
	args    []arg    // the argument list, when not dst, inputs[0], scalars, other inputs, n
	unroll  int
	// nt enables non-temporal stores when the output is at least
	// ·ntBytes long: streaming a large result past the caches saves the
	// read-for-ownership of every destination line.
	nt    bool
	setup func(g *gen)
	// slotReg, if set, names the register input i of unroll slot u is
	// loaded into (default: register i*unroll+u).
	slotReg func(u, i int) string
	// z selects AVX-512: zmm registers (the body gets Z names), 64-byte
	// vectors and tails masked with K1 instead of VMASKMOV.
	z bool
	// body computes one vector for unroll slot u from the input registers
	// in (in[i] holds input i) and returns the register holding the result.
	body func(g *gen, u int, in []string) string
	// half, when set (AVX-512 float32 kernels only), makes the kernel read
	// and write 16-bit values of that type: each vector is widened as it
	// is loaded and rounded to the type (ties to even, as Narrow) as it is
	// stored, with Z29 and Z30 as scratch, which no body may use. Such a
	// kernel takes whole vectors only (n a multiple of 16) and has no
	// non-temporal path.
	half halfSrc
	// group, when set, computes the slots of one step together in place
	// of body (so that their instructions can interleave): in[u] holds
	// slot u's input registers, and it returns each slot's result register.
	group func(g *gen, in [][]string) []string
	// okFlag, when set, names a register the body ORs a lane mask into
	// (a k-register with zmm, "Y14" with ymm; the loop zeroes it first) and makes
	// the kernel return ok = false when any lane of it was set.
	okFlag string
}

var ptrRegs = []string{"SI", "DX", "BX"}

func (g *gen) elementwise(k ewKernel) {
	ptrT := k.e.goT
	if k.half != noHalf {
		ptrT = "uint16"
	}
	args := []arg{{"dst", "*" + ptrT, 8}}
	for i, in := range k.inputs {
		args = append(args, arg{in, "*" + ptrT, 8})
		if i == 0 {
			for _, s := range k.scalars {
				args = append(args, arg{s, k.e.goT, k.e.size})
			}
		}
	}
	if len(k.inputs) == 0 {
		for _, s := range k.scalars {
			args = append(args, arg{s, k.e.goT, k.e.size})
		}
	}
	args = append(args, arg{"n", "int", 8})
	if k.args != nil {
		args = k.args
	}
	g.okResult = k.okFlag != ""
	off := g.text(k.name, args, nil, k.doc)
	g.load(off, "dst", "DI")
	for i, in := range k.inputs {
		g.load(off, in, ptrRegs[i])
	}
	g.load(off, "n", "CX")
	reg, vb, L := y, 32, k.e.lanes
	if k.z {
		reg, vb, L = z, 64, 2*k.e.lanes
	}
	for i, s := range k.scalars {
		g.ins("VBROADCAST%s %s+%d(FP), %s", k.e.s, s, off[s], reg(12+i))
	}
	switch {
	case k.okFlag == "":
	case k.okFlag[0] == 'K':
		g.ins("KXORW %[1]s, %[1]s, %[1]s", k.okFlag)
	default:
		g.ins("VXORPS %s, %s, %s", k.okFlag, k.okFlag, k.okFlag)
	}
	if k.setup != nil {
		start := g.s.Len()
		k.setup(g)
		if k.half != noHalf {
			g.noScratch(k.name, g.s.String()[start:])
		}
	}
	U := k.unroll
	inReg := func(u, i int) string { return reg(i*U + u) }
	if k.slotReg != nil {
		inReg = k.slotReg
	}
	if k.half != noHalf {
		g.halfElementwise(k, U, inReg)
		return
	}
	vec := func(slots int, store string) {
		outs := make([]string, slots)
		for u := 0; u < slots; u++ {
			for i := range k.inputs {
				g.ins("VMOVUP%s %d(%s), %s", k.e.p[1:], vb*u, ptrRegs[i], inReg(u, i))
			}
		}
		var ins [][]string
		for u := 0; u < slots; u++ {
			var in []string
			for i := range k.inputs {
				in = append(in, inReg(u, i))
			}
			ins = append(ins, in)
		}
		if k.group != nil {
			outs = k.group(g, ins)
		} else {
			for u, in := range ins {
				outs[u] = k.body(g, u, in)
			}
		}
		for u := 0; u < slots; u++ {
			g.ins("%s %s, %d(DI)", store, outs[u], vb*u)
		}
		g.ins("ADDQ $%d, DI", vb*slots)
		for i := range k.inputs {
			g.ins("ADDQ $%d, %s", vb*slots, ptrRegs[i])
		}
		g.ins("SUBQ $%d, CX", slots*L)
	}
	// masked processes the first cnt (< L) elements with masked loads and
	// stores.
	masked := func() {
		var in []string
		for i := range k.inputs {
			if k.z {
				g.ins("VMOVUP%s.Z (%s), K1, %s", k.e.p[1:], ptrRegs[i], inReg(0, i))
			} else {
				g.ins("VMASKMOV%s (%s), Y15, %s", k.e.p, ptrRegs[i], inReg(0, i))
			}
			in = append(in, inReg(0, i))
		}
		var out string
		if k.group != nil {
			out = k.group(g, [][]string{in})[0]
		} else {
			out = k.body(g, 0, in)
		}
		if k.z {
			g.ins("VMOVUP%s %s, K1, (DI)", k.e.p[1:], out)
		} else {
			g.ins("VMASKMOV%s %s, Y15, (DI)", k.e.p, out)
		}
	}
	mask := func(cnt string) {
		if k.z {
			g.kmask(cnt)
		} else {
			g.maskFor(k.e, cnt)
		}
	}
	shift := map[int]int{4: 2, 8: 3}[k.e.size]
	if k.nt {
		g.ins("MOVQ CX, AX")
		g.ins("SHLQ $%d, AX", shift)
		g.ins("CMPQ AX, ·ntBytes(SB)")
		g.ins("JB   loop")
		g.comment(fmt.Sprintf("large output: align dst to %d bytes with one masked vector, then stream", vb))
		g.ins("MOVQ DI, R10")
		g.ins("NEGQ R10")
		g.ins("ANDQ $%d, R10", vb-1)
		g.ins("SHRQ $%d, R10", shift)
		g.ins("CMPQ R10, CX")
		g.ins("CMOVQHI CX, R10")
		g.ins("TESTQ R10, R10")
		g.ins("JEQ  ntloop")
		mask("R10")
		masked()
		g.ins("LEAQ (DI)(R10*%d), DI", k.e.size)
		for i := range k.inputs {
			g.ins("LEAQ (%s)(R10*%d), %s", ptrRegs[i], k.e.size, ptrRegs[i])
		}
		g.ins("SUBQ R10, CX")
		g.label("ntloop")
		g.ins("CMPQ CX, $%d", U*L)
		g.ins("JB   ntdone")
		vec(U, "VMOVNTP"+k.e.p[1:])
		g.ins("JMP  ntloop")
		g.label("ntdone")
		g.ins("SFENCE")
	}
	if U > 1 {
		g.label("loop")
		g.ins("CMPQ CX, $%d", U*L)
		g.ins("JB   one")
		vec(U, "VMOVUP"+k.e.p[1:])
		g.ins("JMP  loop")
	}
	g.label("one")
	g.ins("CMPQ CX, $%d", L)
	g.ins("JB   tail")
	vec(1, "VMOVUP"+k.e.p[1:])
	g.ins("JMP  one")
	g.label("tail")
	g.ins("TESTQ CX, CX")
	g.ins("JEQ  done")
	mask("CX")
	masked()
	g.label("done")
	switch {
	case k.okFlag == "":
	case k.okFlag[0] == 'K':
		g.ins("KORTESTW %[1]s, %[1]s", k.okFlag)
		g.ins("SETEQ ok+%d(FP)", off["ok"])
	default:
		g.ins("VMOVMSKPS %s, AX", k.okFlag)
		g.ins("TESTL AX, AX")
		g.ins("SETEQ ok+%d(FP)", off["ok"])
	}
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// halfElementwise emits the loop of an ewKernel with half-precision
// storage (k.half): U vectors of 16 at a time while they last, then one,
// each input widened into its slot register, every slot's result narrowed
// and stored after the bodies.
func (g *gen) halfElementwise(k ewKernel, U int, inReg func(u, i int) string) {
	if !k.z || k.e != f32 || k.nt {
		log.Fatalf("%s: half-precision storage needs an AVX-512 float32 kernel without non-temporal stores", k.name)
	}
	const L, vb = 16, 32 // lanes, and bytes of 16-bit values per vector
	vec := func(slots int) {
		outs := make([]string, slots)
		for u := range slots {
			for i := range k.inputs {
				g.widenHalf(k.half, fmt.Sprintf("%d(%s)", vb*u, ptrRegs[i]), inReg(u, i))
			}
		}
		for u := range slots {
			var in []string
			for i := range k.inputs {
				in = append(in, inReg(u, i))
			}
			start := g.s.Len()
			outs[u] = k.body(g, u, in)
			g.noScratch(k.name, g.s.String()[start:])
		}
		for u := range slots {
			g.narrowHalf512(k.half, outs[u], fmt.Sprintf("%d(DI)", vb*u), "Z29", "Z30")
		}
		g.ins("ADDQ $%d, DI", vb*slots)
		for i := range k.inputs {
			g.ins("ADDQ $%d, %s", vb*slots, ptrRegs[i])
		}
		g.ins("SUBQ $%d, CX", slots*L)
	}
	g.label("loop")
	g.ins("CMPQ CX, $%d", U*L)
	g.ins("JB   one")
	vec(U)
	g.ins("JMP  loop")
	g.label("one")
	g.ins("CMPQ CX, $%d", L)
	g.ins("JB   done")
	vec(1)
	g.ins("JMP  one")
	g.label("done")
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// noScratch stops the generator when text, part of kernel name's setup
// or body, uses Z29 or Z30, the half-precision narrowing's scratch.
func (g *gen) noScratch(name, text string) {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '\t' }) {
		if f == "Z29" || f == "Z30" {
			log.Fatalf("%s uses %s, the half-precision narrowing's scratch", name, f)
		}
	}
}

// narrowHalf512 rounds the float32 values of zmm register r to the half
// type (ties to even, NaN quieted, as Narrow) and stores the sixteen 16-bit
// values at mem; bfloat16 uses t1 and t2 as scratch and K2, and takes its
// constants from memory (embedded broadcasts), so it needs no register
// beyond them.
func (g *gen) narrowHalf512(h halfSrc, r, mem, t1, t2 string) {
	if h == srcF16 {
		g.ins("VCVTPS2PH $0, %s, %s", r, mem)
		return
	}
	g.ins("VPSRLD $16, %s, %s", r, t1)
	g.ins("VPANDD.BCST %s, %s, %s", g.v32("half_one", 1), t1, t1)
	g.ins("VPADDD %s, %s, %s", r, t1, t1)
	g.ins("VPADDD.BCST %s, %s, %s", g.v32("half_round", 0x7fff), t1, t1) // x + 0x7fff + lsb
	g.ins("VPANDD.BCST %s, %s, %s", g.v32("half_abs", 0x7fffffff), r, t2)
	g.ins("VPCMPGTD.BCST %s, %s, K2", g.v32("half_inf", 0x7f800000), t2) // NaN lanes: |x| > Inf's bits
	g.ins("VPORD.BCST %s, %s, K2, %s", g.v32("half_quiet", 0x00400000), r, t1)
	g.ins("VPSRLD $16, %s, %s", t1, t1)
	g.ins("VPMOVDW %s, %s", t1, mem)
}

// binop emits D = A op B for the six binary operations; T and M are
// scratch registers (M may equal B when B is dead afterwards). With zmm
// operands the NaN mask of max/min lives in K2 and M is unused.
func (g *gen) binop(e elem, op, A, B, D, T, M string) {
	p := e.p
	switch op {
	case "add", "sub", "mul", "div":
		g.ins("V%s%s %s, %s, %s", strings.ToUpper(op), p, B, A, D)
	case "max", "min":
		// VMAX/VMIN return the second source (B) when either is NaN, so a
		// NaN in B propagates; a NaN in A is blended back in.
		g.ins("V%s%s %s, %s, %s", strings.ToUpper(op), p, B, A, T)
		if strings.HasPrefix(A, "Z") {
			g.ins("VCMP%s $3, %s, %s, K2", p, A, A)
			g.ins("VMOVAP%s %s, K2, %s", p[1:], A, T)
			if D != T {
				g.ins("VMOVAP%s %s, %s", p[1:], T, D)
			}
			return
		}
		g.ins("VCMP%s $3, %s, %s, %s", p, A, A, M)
		g.ins("VBLENDV%s %s, %s, %s, %s", p, M, A, T, D)
	default:
		log.Fatalf("unknown op %s", op)
	}
}

// binOps are the binary operations in the order of the binOp constants
// (dispatch.go); rscalarOps those with a reversed scalar form.
var (
	binOps     = []string{"add", "sub", "mul", "div", "max", "min"}
	rscalarOps = []string{"sub", "div"}
	// unOps maps the float32 transcendental kernels to their unOp
	// constants.
	unOps = [][2]string{{"exp", "unExp"}, {"exp2", "unExp2"}, {"log", "unLog"}, {"log2", "unLog2"}, {"log10", "unLog10"}, {"log1p", "unLog1p"}, {"expm1", "unExpm1"}, {"tanh", "unTanh"},
		{"sigmoid", "unSigmoid"}, {"geluTanh", "unGeluTanh"}, {"geluErf", "unGeluErf"}, {"erf", "unErf"},
		{"silu", "unSilu"}}
	// exactUnOps maps the unary kernels of both element types and both
	// tiers (Relu, Sqrt, Sign, wideOps and exactUnaries), whose results
	// are the float64 reference rounded once, to their unOp constants.
	exactUnOps = func() [][2]string {
		ops := [][2]string{{"relu", "unRelu"}, {"sqrt", "unSqrt"}, {"sign", "unSign"}}
		for _, w := range wideOps {
			ops = append(ops, [2]string{w.name, w.op})
		}
		for _, u := range exactUnaries {
			ops = append(ops, [2]string{u.name, u.op})
		}
		return ops
	}()
)

// exactUnary is a unary kernel of one instruction, exact in every lane
// (its result is the float64 reference rounded to the element type, bit
// for bit, NaN staying NaN): konst, if set, names the constant the setup
// broadcasts into register 13, ins the instruction that turns the vector
// in register x into the result in place.
type exactUnary struct {
	name, op, doc string
	konst         func(g *gen, e elem) string
	ins           func(g *gen, e elem, t tier, x string)
}

// exactUnaries are the sign-bit operations, the roundings to an integer
// (VROUNDPS/PD on AVX2, VRNDSCALEPS/PD on AVX-512, imm8 bit 3 set so no
// precision exception is raised; -0 and NaN pass through as IEEE says)
// and the reciprocal, a correctly rounded division (as 1/x in float64
// rounded to float32: double rounding is harmless for a quotient when the
// wider format has 2p+2 bits).
var exactUnaries = []exactUnary{
	{name: "neg", op: "unNeg", doc: "computes dst[i] = -x[i] (the sign bit flipped, NaN included), for i < n.",
		konst: signBits,
		ins: func(g *gen, e elem, t tier, x string) {
			if t.z {
				g.ins("VPXORD Z13, %s, %s", x, x)
			} else {
				g.ins("VXORP%s Y13, %s, %s", e.p[1:], x, x)
			}
		}},
	{name: "abs", op: "unAbs", doc: "computes dst[i] = |x[i]| (the sign bit cleared, NaN included), for i < n.",
		konst: func(g *gen, e elem) string {
			if e.size == 8 {
				return g.v64("absmask64", 1<<63-1)
			}
			return g.fb("absmask", 0x7fffffff)
		},
		ins: func(g *gen, e elem, t tier, x string) {
			if t.z {
				g.ins("VPANDD Z13, %s, %s", x, x)
			} else {
				g.ins("VANDP%s Y13, %s, %s", e.p[1:], x, x)
			}
		}},
	roundUnary("floor", "unFloor", 9, "toward -Inf"),
	roundUnary("ceil", "unCeil", 10, "toward +Inf"),
	roundUnary("trunc", "unTrunc", 11, "toward zero"),
	roundUnary("roundEven", "unRoundEven", 8, "to the nearest integer, halves to even"),
	{name: "recip", op: "unRecip", doc: "computes dst[i] = 1/x[i] correctly rounded (IEEE), for i < n.",
		konst: func(g *gen, e elem) string {
			if e.size == 8 {
				return g.d("done", 1)
			}
			return g.f("one", 1)
		},
		ins: func(g *gen, e elem, t tier, x string) {
			g.ins("VDIV%s %s, %s, %s", e.p, x, t.reg(13), x)
		}},
}

// signBits is the sign bit of e, as a constant.
func signBits(g *gen, e elem) string {
	if e.size == 8 {
		return g.v64("signmask64", 1<<63)
	}
	return g.fb("signmask", 0x80000000)
}

// roundUnary is the exactUnary rounding each lane to an integer in the
// direction imm (VROUNDPS/VRNDSCALEPS imm8: 0 nearest even, 1 down, 2 up,
// 3 toward zero, plus 8 to suppress the precision exception).
func roundUnary(name, op string, imm int, how string) exactUnary {
	return exactUnary{name: name, op: op, doc: "computes dst[i] = x[i] rounded " + how + ", for i < n.",
		ins: func(g *gen, e elem, t tier, x string) {
			if t.z {
				g.ins("VRNDSCALE%s $%d, %s, %s", e.p, imm, x, x)
			} else {
				g.ins("VROUND%s $%d, %s, %s", e.p, imm, x, x)
			}
		}}
}

// tierTable writes the Go table (a tierAsm, see dispatch_amd64.go) of one
// tier's generated elementwise kernels, so the dispatch code lists no
// kernel names by hand.
func tierTable(d *bytes.Buffer, t tier) {
	fmt.Fprintf(d, "\n// asm%s lists the %s elementwise kernels by operation.\nvar asm%s = tierAsm{\n", t.suffix, t.suffix, t.suffix)
	for _, e := range []elem{f32, f64} {
		b := strings.ToLower(e.name)
		var bins, scs, rscs []string
		for _, op := range binOps {
			bins = append(bins, op+e.name+t.suffix)
			scs = append(scs, op+"Scalar"+e.name+t.suffix)
		}
		for _, op := range rscalarOps {
			rscs = append(rscs, fmt.Sprintf("op%s: %sRScalar%s%s", strings.ToUpper(op[:1])+op[1:], op, e.name, t.suffix))
		}
		fmt.Fprintf(d, "bin%s: [numBinOps]func(dst, a, b *%s, n int){%s},\n", b[1:], e.goT, strings.Join(bins, ", "))
		fmt.Fprintf(d, "sc%s: [numBinOps]func(dst, a *%s, s %s, n int){%s},\n", b[1:], e.goT, e.goT, strings.Join(scs, ", "))
		fmt.Fprintf(d, "rsc%s: [numBinOps]func(dst, a *%s, s %s, n int){%s},\n", b[1:], e.goT, e.goT, strings.Join(rscs, ", "))
		fmt.Fprintf(d, "axpy%s: axpy%s%s,\n", b[1:], e.name, t.suffix)
	}
	f32Ops := append(exactUnOps, unOps...)
	var uns []string
	for _, u := range f32Ops {
		uns = append(uns, fmt.Sprintf("%s: %sF32%s", u[1], u[0], t.suffix))
	}
	fmt.Fprintf(d, "un32: [numUnOps]func(dst, x *float32, n int){%s},\n", strings.Join(uns, ", "))
	for _, h := range []string{"BF16", "F16"} {
		var hs []string
		for _, op := range binOps {
			hs = append(hs, op+h+t.suffix)
		}
		fmt.Fprintf(d, "bin%s: [numBinOps]func(dst, a, b *uint16, n int){%s},\n", h, strings.Join(hs, ", "))
		if t.z {
			uns = nil
			for _, u := range f32Ops {
				uns = append(uns, fmt.Sprintf("%s: %s%s%s", u[1], u[0], h, t.suffix))
			}
			fmt.Fprintf(d, "un%s: [numUnOps]func(dst, x *uint16, n int){%s},\n", h, strings.Join(uns, ", "))
		}
	}
	uns = nil
	ops64 := append(exactUnOps, arcOps64...)
	if t.z {
		ops64 = append(ops64, unOps64...)
	} else {
		ops64 = append(ops64, [][2]string{{"exp", "unExp"}, {"exp2", "unExp2"}, {"log", "unLog"}, {"log2", "unLog2"}, {"log10", "unLog10"}, {"sigmoid", "unSigmoid"}, {"geluTanh", "unGeluTanh"}, {"erf", "unErf"}, {"tanh", "unTanh"}, {"expm1", "unExpm1"}, {"log1p", "unLog1p"}, {"sinh", "unSinh"}, {"cosh", "unCosh"}}...)
	}
	for _, u := range ops64 {
		uns = append(uns, fmt.Sprintf("%s: %sF64%s", u[1], u[0], t.suffix))
	}
	fmt.Fprintf(d, "un64: [numUnOps]func(dst, x *float64, n int){%s},\n", strings.Join(uns, ", "))
	fmt.Fprintf(d, "trig32: [numUnOps]func(dst, x *float32, n int) bool{unSin: sinF32%[1]s, unCos: cosF32%[1]s, unTan: tanF32%[1]s},\n", t.suffix)
	fmt.Fprintf(d, "trig64: [numUnOps]func(dst, x *float64, n int) bool{unSin: sinF64%[1]s, unCos: cosF64%[1]s, unTan: tanF64%[1]s},\n", t.suffix)
	fmt.Fprintf(d, "atan232: atan2F32%s,\n", t.suffix)
	fmt.Fprintf(d, "atan2Place64: atan2PlaceF64%s,\n", t.suffix)
	fmt.Fprintf(d, "geluErf64: geluErfF64%s,\n", t.suffix)
	fmt.Fprintf(d, "pow64: powF64%[1]s, powScalar64: powScalarF64%[1]s,\n", t.suffix)
	fmt.Fprintf(d, "pow32: powF32%[1]s, powScalar32: powScalarF32%[1]s,\n", t.suffix)
	fmt.Fprintf(d, "wide32: [numUnOps]func(dst, x *float32, n int){unAsin: asinF32%[1]s, unAcos: acosF32%[1]s, unAtan: atanF32%[1]s, unSinh: sinhF32%[1]s, unCosh: coshF32%[1]s, unSoftplus: softplusF32%[1]s},\n", t.suffix)
	for _, e := range []elem{f32, f64, i32, i64} {
		var vv, vs []string
		for _, p := range cmpPreds {
			vv = append(vv, "cmp"+p.name+e.name+t.suffix)
			vs = append(vs, "cmp"+p.name+"Scalar"+e.name+t.suffix)
		}
		field := e.name[1:] // cmp32, cmpScalar64; cmpI32 for the integers
		if e.integer {
			field = e.name
		}
		fmt.Fprintf(d, "cmp%s: [numCmpOps]func(dst *uint8, a, b *%s, n int){%s},\n", field, e.goT, strings.Join(vv, ", "))
		fmt.Fprintf(d, "cmpScalar%s: [numCmpOps]func(dst *uint8, a *%s, s %s, n int){%s},\n", field, e.goT, e.goT, strings.Join(vs, ", "))
	}
	for _, bits := range []int{8, 16, 32, 64} {
		suffix := t.suffix
		if bits < 32 {
			suffix = tierAVX2.suffix // selects' narrow kernels are AVX2's
		}
		fmt.Fprintf(d, "sel%[1]d: select%[1]d%[2]s, selElse%[1]d: selectElse%[1]d%[2]s, selThen%[1]d: selectThen%[1]d%[2]s,\n", bits, suffix)
	}
	fmt.Fprintf(d, "}\n")
}

var opNames = map[string]string{"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Maximum", "min": "Minimum"}

// tier names one instruction set the kernels are generated for.
type tier struct {
	suffix string // kernel name suffix: "AVX2" or "AVX512"
	z      bool   // zmm registers and k-mask tails
	reg    func(int) string
}

var (
	tierAVX2   = tier{"AVX2", false, y}
	tierAVX512 = tier{"AVX512", true, z}
)

// binaries emits the binary, scalar, Axpy, Relu, Sign, Sqrt and
// exactUnaries kernels of one tier from one description: the loop skeleton
// and the operation are shared.
func (g *gen) binaries(e elem, t tier) {
	r := t.reg
	for _, op := range binOps {
		op := op
		g.elementwise(ewKernel{
			name: op + e.name + t.suffix, doc: fmt.Sprintf("computes dst[i] = %s(a[i], b[i]) for i < n.", opNames[op]),
			e: e, inputs: []string{"a", "b"}, unroll: 4, nt: true, z: t.z,
			body: func(g *gen, u int, in []string) string {
				g.binop(e, op, in[0], in[1], in[0], r(8+u), in[1])
				return in[0]
			},
		})
		g.elementwise(ewKernel{
			name: op + "Scalar" + e.name + t.suffix, doc: fmt.Sprintf("computes dst[i] = %s(a[i], s) for i < n.", opNames[op]),
			e: e, inputs: []string{"a"}, scalars: []string{"s"}, unroll: 4, nt: true, z: t.z,
			body: func(g *gen, u int, in []string) string {
				g.binop(e, op, in[0], r(12), in[0], r(8+u), r(4+u))
				return in[0]
			},
		})
	}
	for _, op := range rscalarOps {
		op := op
		g.elementwise(ewKernel{
			name: op + "RScalar" + e.name + t.suffix, doc: fmt.Sprintf("computes dst[i] = %s(s, a[i]) for i < n.", opNames[op]),
			e: e, inputs: []string{"a"}, scalars: []string{"s"}, unroll: 4, nt: true, z: t.z,
			body: func(g *gen, u int, in []string) string {
				g.binop(e, op, r(12), in[0], in[0], r(8+u), r(4+u))
				return in[0]
			},
		})
	}
	g.elementwise(ewKernel{
		name: "axpy" + e.name + t.suffix, doc: "computes dst[i] = alpha*x[i] + y[i] with one rounding, for i < n.",
		e: e, inputs: []string{"x", "y"}, scalars: []string{"alpha"}, unroll: 4, nt: true, z: t.z,
		args: []arg{{"dst", "*" + e.goT, 8}, {"alpha", e.goT, e.size}, {"x", "*" + e.goT, 8}, {"y", "*" + e.goT, 8}, {"n", "int", 8}},
		body: func(g *gen, u int, in []string) string {
			g.ins("VFMADD231%s %s, %s, %s", e.p, in[0], r(12), in[1])
			return in[1]
		},
	})
	relu := ewKernel{
		name: "relu" + e.name + t.suffix, doc: "computes dst[i] = x[i] > 0 ? x[i] : 0, keeping NaN, for i < n.",
		e: e, inputs: []string{"x"}, unroll: 4, nt: true, z: t.z,
		setup: func(g *gen) {
			if t.z {
				g.ins("VPXORD Z13, Z13, Z13")
			} else {
				g.ins("VXORP%s Y13, Y13, Y13", e.p[1:])
			}
		},
		body: func(g *gen, u int, in []string) string {
			// predicate 6 (NLE_US): true when x > 0 or x is NaN.
			if t.z {
				g.ins("VCMP%s $6, Z13, %s, K2", e.p, in[0])
				g.ins("VMOVAP%s.Z %s, K2, %s", e.p[1:], in[0], in[0])
				return in[0]
			}
			g.ins("VCMP%s $6, Y13, %s, %s", e.p, in[0], y(8+u))
			g.ins("VAND%s %s, %s, %s", e.p, y(8+u), in[0], in[0])
			return in[0]
		},
	}
	g.elementwise(relu)
	g.halfVariants(relu, "relu", t)
	sign := ewKernel{
		name: "sign" + e.name + t.suffix, doc: "computes dst[i] = 1 if x[i] > 0, -1 if x[i] < 0, +0 for ±0 and NaN for NaN (NumPy's sign), for i < n.",
		e: e, inputs: []string{"x"}, unroll: 4, nt: true, z: t.z,
		setup: func(g *gen) {
			one, mone := g.f("one", 1), g.f("mone", -1)
			if e.size == 8 {
				one, mone = g.d("done", 1), g.d("dmone", -1)
			}
			if t.z {
				g.ins("VPXORD Z13, Z13, Z13")
			} else {
				g.ins("VXORP%s Y13, Y13, Y13", e.p[1:])
			}
			g.ins("VBROADCAST%s %s, %s", e.s, one, r(14))
			g.ins("VBROADCAST%s %s, %s", e.s, mone, r(12))
		},
		body: func(g *gen, u int, in []string) string {
			// x + (+0) turns -0 into +0 and leaves the rest as it is;
			// predicates 0x1E (GT_OQ) and 0x11 (LT_OQ) are false for NaN,
			// which stays as it is, as does +0.
			if t.z {
				g.ins("VADDP%s Z13, %s, %s", e.p[1:], in[0], in[0])
				g.ins("VCMP%s $0x1E, Z13, %s, K2", e.p, in[0])
				g.ins("VCMP%s $0x11, Z13, %s, K3", e.p, in[0])
				g.ins("VMOVAP%s Z14, K2, %s", e.p[1:], in[0])
				g.ins("VMOVAP%s Z12, K3, %s", e.p[1:], in[0])
				return in[0]
			}
			g.ins("VADDP%s Y13, %s, %s", e.p[1:], in[0], in[0])
			g.ins("VCMP%s $0x1E, Y13, %s, %s", e.p, in[0], y(8+u))
			g.ins("VCMP%s $0x11, Y13, %s, %s", e.p, in[0], y(4+u))
			g.ins("VBLENDV%s %s, Y14, %s, %s", e.p, y(8+u), in[0], in[0])
			g.ins("VBLENDV%s %s, Y12, %s, %s", e.p, y(4+u), in[0], in[0])
			return in[0]
		},
	}
	g.elementwise(sign)
	g.halfVariants(sign, "sign", t)
	sqrt := ewKernel{
		name: "sqrt" + e.name + t.suffix, doc: "computes dst[i] = sqrt(x[i]) correctly rounded (IEEE), for i < n.",
		e: e, inputs: []string{"x"}, unroll: 4, nt: true, z: t.z,
		body: func(g *gen, u int, in []string) string {
			g.ins("VSQRT%s %s, %s", e.p, in[0], in[0])
			return in[0]
		},
	}
	g.elementwise(sqrt)
	g.halfVariants(sqrt, "sqrt", t)
	for _, u := range exactUnaries {
		k := ewKernel{
			name: u.name + e.name + t.suffix, doc: u.doc,
			e: e, inputs: []string{"x"}, unroll: 4, nt: true, z: t.z,
			body: func(g *gen, _ int, in []string) string {
				u.ins(g, e, t, in[0])
				return in[0]
			},
		}
		if u.konst != nil {
			k.setup = func(g *gen) { g.ins("VBROADCAST%s %s, %s", e.s, u.konst(g, e), r(13)) }
		}
		g.elementwise(k)
		g.halfVariants(k, u.name, t)
	}
	for _, w := range wideOps {
		g.wideExact(e, t, w)
	}
}

// wideOp is a unary operation computed in float64 lanes, each step an
// IEEE operation of the float64 reference formula in the same order, so
// that the result rounded to the element type is the reference's bit for
// bit: float64 vectors as they are, float32 vectors widened into two
// float64 halves and rounded back once.
type wideOp struct {
	name, op, doc string
	// consts (name and value) are broadcast into registers 13, 14, ... in
	// the setup.
	consts []wideConst
	// apply computes the operation on float64 register h in place, with
	// register tmp as scratch.
	apply func(g *gen, t tier, h, tmp string)
	// z32, when set, replaces apply for float32 vectors on AVX-512: it
	// computes the operation on float64 register h in place with the five
	// registers in tmp and K2 as scratch, giving the same bits as apply
	// does on every float32 input (an exhaustive test holds that).
	z32 func(g *gen, h string, tmp []string)
	// y32, when set, replaces the whole float32 step on AVX2: eight
	// float32 values in Y0 in, their results in Y0 out, registers 1-12
	// and AX as scratch, with the same bits as apply gives (an exhaustive
	// test holds that).
	y32 func(g *gen)
}

// wideConst is a named float64 constant of a wideOp.
type wideConst struct {
	name string
	v    float64
}

// wideOps are the float64-lane exact unaries: Rsqrt (1/math.Sqrt(x):
// VSQRTPD then VDIVPD; float32 from an estimate refined in one step,
// rsqrtRefined on AVX-512 and rsqrtRefinedAVX2)
// and Hardswish (x * min(max(x+3, 0), 6) / 6, the max and min with x's
// side as the source NaN passes through, as Go's min and max propagate
// NaN).
var wideOps = []wideOp{
	{name: "rsqrt", op: "unRsqrt", consts: []wideConst{{"done", 1}},
		doc: "computes dst[i] = 1/sqrt(x[i]) as float64 1/math.Sqrt rounded to the type, for i < n.",
		apply: func(g *gen, t tier, h, _ string) {
			g.ins("VSQRTPD %s, %s", h, h)
			g.ins("VDIVPD %s, %s, %s", h, t.reg(13), h)
		},
		z32: (*gen).rsqrtRefined, y32: (*gen).rsqrtRefinedAVX2},
	{name: "hardswish", op: "unHardswish", consts: []wideConst{{"dzero", 0}, {"dsix", 6}},
		doc: "computes dst[i] = x[i] * min(max(x[i]+3, 0), 6) / 6 in float64, rounded to the type, for i < n.",
		apply: func(g *gen, t tier, h, tmp string) {
			g.withConst(t, "VADDPD", g.d("three64", 3), h+", "+tmp)
			g.ins("VMAXPD %s, %s, %s", tmp, t.reg(13), tmp)
			g.ins("VMINPD %s, %s, %s", tmp, t.reg(14), tmp)
			g.ins("VMULPD %s, %s, %s", tmp, h, h)
			g.ins("VDIVPD %s, %s, %s", t.reg(14), h, h)
		}},
}

// rsqrtRefined computes 1/sqrt(h) in place for float64 lanes that hold
// float32 values, in place of VSQRTPD and VDIVPD (each occupies its pipe
// for several cycles): the estimate VRSQRT14PD(h) (relative error below
// 2^-14) refined by one fifth-order step (rsqrtStep), which leaves far
// less than the roundings of the last operations, about 2^-52 as the
// reference's. Both then round to float32 alike unless the exact value
// lies within about 2^-27 float32 ulp of a tie, which no float32 input
// does (TestExhaustiveExactF32 checks all 2^32 against 1/math.Sqrt).
// Two Newton steps, the method before, ran at 3.95-4.07 Gelem/s against
// 4.08-4.21 for the one step, their chain being eight operations long
// against five; with the step cut to the third order about a thousand
// inputs differ. Lanes where h is a zero, an infinity, negative or NaN
// take VRSQRT14PD's own exact answer (+-Inf, +0, NaN), as 1/math.Sqrt
// gives. Register 13 holds 1.0.
func (g *gen) rsqrtRefined(h string, tmp []string) {
	t := tierAVX512
	s, a, b, y, d := tmp[0], tmp[1], tmp[2], tmp[3], tmp[4]
	g.ins("VRSQRT14PD %s, %s", h, s)
	g.rsqrtStep(t, h, s, a, b, y, d)
	g.comment("zeros, infinities, negatives and NaN: VRSQRT14PD's exact answer")
	g.ins("VFPCLASSPDZ $0xdf, %s, K2", h)
	g.ins("VRSQRT14PD %s, K2, %s", h, y)
	g.ins("VMOVAPD %s, %s", y, h)
}

// rsqrtStep sets y to 1/sqrt(h) from an estimate s of it off by a
// relative d (float64 registers of tier t, registers a, b and d scratch,
// register 13 holding 1.0): one step of the fifth order,
// y = s + s*e*(1/2 + 3e/8 + 5e^2/16 + 35e^3/128) with e = 1 - h*s^2
// (about 2d), the series of s*(1-e)^(-1/2) to e^4. It leaves about
// (63/256)(2d)^5: 2^-54 from VRSQRTPS's d of 1.5*2^-12, 2^-67 from
// VRSQRT14PD's 2^-14. The polynomial's two halves run side by side and
// join in one FMA, so the chain from s to y is five operations long
// where two Newton steps take eight.
func (g *gen) rsqrtStep(t tier, h, s, a, b, y, d string) {
	g.comment("e = 1 - h*s^2; y = s + s*e*(1/2 + 3e/8 + e^2*(5/16 + 35e/128))")
	g.ins("VMULPD %s, %s, %s", s, h, a)
	g.ins("VFNMADD213PD %s, %s, %s", t.reg(13), s, a)
	g.loadPD(t, g.d("rsqrtc2", 3.0/8), b)
	g.withConst(t, "VFMADD213PD", g.d("half64", 0.5), a+", "+b)
	g.loadPD(t, g.d("rsqrtc4", 35.0/128), y)
	g.withConst(t, "VFMADD213PD", g.d("rsqrtc3", 5.0/16), a+", "+y)
	g.ins("VMULPD %s, %s, %s", a, a, d)
	g.ins("VMULPD %s, %s, %s", s, a, a)
	g.ins("VFMADD231PD %s, %s, %s", d, y, b)
	g.ins("VMOVAPD %s, %s", s, y)
	g.ins("VFMADD231PD %s, %s, %s", a, b, y)
}

// rsqrtRefinedAVX2 computes 1/sqrt(x) for the eight float32 values in
// Y0, in place, with float64 lanes for the arithmetic, as rsqrtRefined
// does on AVX-512 but from VRSQRTPS, the float32 estimate (relative error
// below 1.5*2^-12, the architectural bound), refined by the same
// fifth-order step. VRSQRTPS takes a subnormal for zero (on the Zen 5
// EPYC, without the scaling, 3.7e-39 gave NaN), so where a vector holds a
// value below the least normal float32 (a branch, rarely taken) those are
// scaled by 2^32 for it and their estimates by 2^16. Lanes not in
// (0, +Inf), where the step would give NaN, take the widened estimate,
// which there is the exact answer (+-Inf for +-0, +0 for +Inf, NaN for
// negatives and NaN). On the Zen 5 EPYC's AVX2 tier this runs at 2.05
// Gelem/s where VSQRTPD and VDIVPD ran at 1.2; the scaling done without
// the branch, or a third-order step and Newton's in place of the one
// step, each lengthen the chain and measured 1.4-1.8 (docs/benchmarks.md,
// "Float32 Rsqrt by one fifth-order step"). Register 13 holds 1.0
// (float64); AX is scratch.
func (g *gen) rsqrtRefinedAVX2() {
	t := tierAVX2
	g.comment("s = VRSQRTPS(x); where some x is below the least normal, those scaled by 2^32 and their s by 2^16")
	join := g.uniq("rsqrtjoin")
	g.ins("VCMPPS $1, %s, Y0, Y3", g.f("rsqrtmin32", 0x1p-126))
	g.ins("VRSQRTPS Y0, Y4")
	g.ins("VMOVMSKPS Y3, AX")
	g.ins("TESTL AX, AX")
	g.ins("JZ %s", join)
	g.ins("VMULPS %s, Y0, Y4", g.f("rsqrtup32", 0x1p32))
	g.ins("VBLENDVPS Y3, Y4, Y0, Y4")
	g.ins("VRSQRTPS Y4, Y4")
	g.ins("VMULPS %s, Y4, Y5", g.f("rsqrtdown32", 0x1p16))
	g.ins("VBLENDVPS Y3, Y5, Y4, Y4")
	g.label(join)
	g.comment("widen x into Y1, Y2 and s into Y3, Y4")
	g.ins("VCVTPS2PD X0, Y1")
	g.ins("VEXTRACTF128 $1, Y0, X2")
	g.ins("VCVTPS2PD X2, Y2")
	g.ins("VEXTRACTF128 $1, Y4, X5")
	g.ins("VCVTPS2PD X4, Y3")
	g.ins("VCVTPS2PD X5, Y4")
	for half := range 2 {
		h, s := t.reg(1+half), t.reg(3+half)
		a, b, y, d := t.reg(5+4*half), t.reg(6+4*half), t.reg(7+4*half), t.reg(8+4*half)
		g.rsqrtStep(t, h, s, a, b, y, d)
		g.comment("h in (0, +Inf): y; else the estimate")
		g.ins("VCMPPD $14, %s, %s, %s", g.d("dzero", 0), h, a)
		g.ins("VCMPPD $17, %s, %s, %s", g.d("dposinf", math.Inf(1)), h, b)
		g.ins("VANDPD %s, %s, %s", a, b, a)
		g.ins("VBLENDVPD %s, %s, %s, %s", a, y, s, h)
	}
	g.ins("VCVTPD2PSY Y1, X1")
	g.ins("VCVTPD2PSY Y2, X2")
	g.ins("VINSERTF128 $1, X2, Y1, Y0")
}

// wideExact emits w's kernel for e and tier t (and, on AVX-512 float32,
// its half-precision variants): float64 vectors four per iteration
// (registers 0-3, scratch 4-7), float32 ones widened into float64
// registers 1 and 2 (scratch 3 and 4).
func (g *gen) wideExact(e elem, t tier, w wideOp) {
	r := t.reg
	k := ewKernel{name: w.name + e.name + t.suffix, e: e, inputs: []string{"x"}, z: t.z, nt: e == f64, doc: w.doc,
		setup: func(g *gen) {
			for i, c := range w.consts {
				g.ins("VBROADCASTSD %s, %s", g.d(c.name, c.v), r(13+i))
			}
		}}
	if e == f64 {
		k.unroll = 4
		k.body = func(g *gen, u int, in []string) string {
			w.apply(g, t, in[0], r(4+u))
			return in[0]
		}
		g.elementwise(k)
		return
	}
	body := func(g *gen) {
		if !t.z && w.y32 != nil {
			w.y32(g)
			return
		}
		if t.z {
			g.ins("VCVTPS2PD Y0, Z1")
			g.ins("VEXTRACTF32X8 $1, Z0, Y2")
			g.ins("VCVTPS2PD Y2, Z2")
		} else {
			g.ins("VCVTPS2PD X0, Y1")
			g.ins("VEXTRACTF128 $1, Y0, X2")
			g.ins("VCVTPS2PD X2, Y2")
		}
		if t.z && w.z32 != nil {
			w.z32(g, r(1), []string{r(3), r(5), r(7), r(8), r(9)})
			w.z32(g, r(2), []string{r(4), r(6), r(10), r(11), r(12)})
		} else {
			w.apply(g, t, r(1), r(3))
			w.apply(g, t, r(2), r(4))
		}
		if t.z {
			g.ins("VCVTPD2PS Z1, Y1")
			g.ins("VCVTPD2PS Z2, Y2")
			g.ins("VINSERTF32X8 $1, Y2, Z1, Z0")
		} else {
			g.ins("VCVTPD2PSY Y1, X1")
			g.ins("VCVTPD2PSY Y2, X2")
			g.ins("VINSERTF128 $1, X2, Y1, Y0")
		}
	}
	k = bodyPerTier(k, t, body)
	g.elementwise(k)
	g.halfVariants(k, w.name, t)
}

// halfVariants emits float32 kernel k (of tier t) again on bfloat16 and
// binary16 storage as name+"BF16"+suffix and name+"F16"+suffix, where t is
// AVX-512 and k a float32 kernel (ewKernel.half).
func (g *gen) halfVariants(k ewKernel, name string, t tier) {
	if !t.z || k.e != f32 {
		return
	}
	for _, h := range []halfSrc{srcBF16, srcF16} {
		v := k
		v.name, v.half, v.nt = name+string(h)+t.suffix, h, false
		v.doc = strings.TrimSuffix(k.doc, " for i < n.") + fmt.Sprintf(" on %s values, computed in float32 and rounded once, for i < n, a multiple of 16.", halfNames[h])
		g.elementwise(v)
	}
}

// The reductions do not prefetch: on the machine this was tuned on, software
// prefetch at 512-4096 bytes ahead (T0 or NTA) lowered a 64 MiB Sum from
// ~18 to 12-16 GB/s, the hardware prefetcher already keeping a core's
// misses in flight.

// halfSrc names the half-precision source of a widening sum: the float32
// sum of the values widened, read as 16-bit storage.
type halfSrc string

const (
	noHalf  halfSrc = ""
	srcBF16 halfSrc = "BF16"
	srcF16  halfSrc = "F16"
)

// halfNames are the types' names in doc comments.
var halfNames = map[halfSrc]string{srcBF16: "bfloat16", srcF16: "binary16"}

// widenHalf loads the half-precision values at mem into register r as
// float32, eight into a ymm register and sixteen into a zmm one: exactly
// for bfloat16; for binary16 with VCVTPH2PS, which quiets a signalling NaN
// (a sum with a NaN in it is a NaN either way, and adding the quieted
// value gives the NaN that adding the signalling one does).
func (g *gen) widenHalf(src halfSrc, mem, r string) {
	if src == srcBF16 {
		g.ins("VPMOVZXWD %s, %s", mem, r)
		g.ins("VPSLLD $16, %s, %s", r, r)
		return
	}
	g.ins("VCVTPH2PS %s, %s", mem, r)
}

// reduceSum emits the blocked, fixed-order sum (dot=false) or dot product.
// See sumF32Go / sumF64Go / dotF32Go / dotF64Go for the order it follows.
// With a half-precision src (e float32, dot false) it emits the same sum
// over 16-bit storage, each vector widened as it is loaded: the bits of
// widening x and summing that, without the float32 copy. Its last n%8
// values come from tail, a copy padded with zeros, as a masked load would
// give them (AVX2 has no 16-bit masked load). With wide set (a half src
// only) it keeps the eight groups of eight lanes in four zmm registers,
// groups 2j and 2j+1 in the low and high halves of Zj, and extracts them
// into Y0-Y7 before the same fold: the same additions, lane for lane, with
// half the instructions per value (a widening load, a shift and an add
// per sixteen values instead of eight).
func (g *gen) reduceSum(e elem, dot bool, src halfSrc, wide bool) {
	name := "sum" + e.name + "AVX2"
	args := []arg{{"x", "*" + e.goT, 8}, {"n", "int", 8}}
	doc := "returns the blocked fixed-order sum of x[:n] (see sum" + e.name + "Go)."
	if dot {
		name = "dot" + e.name + "AVX2"
		args = []arg{{"a", "*" + e.goT, 8}, {"b", "*" + e.goT, 8}, {"n", "int", 8}}
		doc = "returns the blocked fixed-order dot product of a[:n] and b[:n] (see dot" + e.name + "Go)."
	}
	half := src != noHalf
	if half {
		if dot || e.size != 4 {
			log.Fatalf("reduceSum: a %s source sums into float32 and has no dot product", src)
		}
		name = "sum" + string(src) + "AVX2"
		if wide {
			name = "sum" + string(src) + "AVX512"
		}
		args = []arg{{"x", "*uint16", 8}, {"n", "int", 8}, {"tail", "*[8]uint16", 8}}
		doc = "returns sumF32AVX2 of x[:n] widened from " + string(src) + " to float32, bit for bit; tail holds x's last n%8 values and zeros."
	} else if wide {
		log.Fatalf("reduceSum: only a half-precision source has a zmm form")
	}
	off := g.text(name, args, &arg{"ret", e.goT, e.size}, doc)
	if dot {
		g.load(off, "a", "SI")
		g.load(off, "b", "DX")
	} else {
		g.load(off, "x", "SI")
	}
	if half {
		g.load(off, "tail", "DX")
	}
	g.load(off, "n", "CX")
	if wide {
		g.ins("MOVL $0xff, AX") // K1: the low eight lanes, group 0 of Z0
		g.ins("KMOVW AX, K1")
	}
	L := e.lanes
	block := 32 * 8 * L // 32 rounds of 8 vectors
	p := e.p
	step := 32 // bytes of x per vector
	if half {
		step = 16
	}
	g.ins("VXORPD Y8, Y8, Y8")
	g.ins("VXORPD Y9, Y9, Y9")
	zero := func() {
		if wide {
			for j := range 4 {
				g.ins("VXORPS %s, %s, %s", z(j), z(j), z(j))
			}
			return
		}
		for k := 0; k < 8; k++ {
			g.ins("VXORP%s %s, %s, %s", p[1:], y(k), y(k), y(k))
		}
	}
	round8 := func() {
		if wide {
			for j := range 4 {
				g.widenHalf(src, fmt.Sprintf("%d(SI)", 2*step*j), z(10+j))
				g.ins("VADDPS %s, %s, %s", z(10+j), z(j), z(j))
			}
			g.ins("ADDQ $%d, SI", 8*step)
			return
		}
		for k := 0; k < 8; k++ {
			switch {
			case dot:
				t := y(10 + k%4)
				g.ins("VMOVUP%s %d(DX), %s", p[1:], 32*k, t)
				g.ins("VFMADD231%s %d(SI), %s, %s", p, 32*k, t, y(k))
			case half:
				t := y(10 + k%4)
				g.widenHalf(src, fmt.Sprintf("%d(SI)", step*k), t)
				g.ins("VADD%s %s, %s, %s", p, t, y(k), y(k))
			default:
				g.ins("VADD%s %d(SI), %s, %s", p, 32*k, y(k), y(k))
			}
		}
		g.ins("ADDQ $%d, SI", 8*step)
		if dot {
			g.ins("ADDQ $256, DX")
		}
	}
	fold := func() {
		if wide {
			// Groups 0-7 from the halves of Z0-Z3 into Y0-Y7, each
			// register read before it is overwritten.
			for j := 3; j >= 0; j-- {
				g.ins("VEXTRACTF32X8 $1, %s, %s", z(j), y(2*j+1))
				if j > 0 {
					g.ins("VMOVAPS %s, %s", y(j), y(2*j))
				}
			}
		}
		g.ins("VADD%s Y1, Y0, Y0", p)
		g.ins("VADD%s Y3, Y2, Y2", p)
		g.ins("VADD%s Y5, Y4, Y4", p)
		g.ins("VADD%s Y7, Y6, Y6", p)
		g.ins("VADD%s Y2, Y0, Y0", p)
		g.ins("VADD%s Y6, Y4, Y4", p)
		g.ins("VADD%s Y4, Y0, Y0", p)
		if e.size == 4 {
			g.ins("VCVTPS2PD X0, Y1")
			g.ins("VEXTRACTF128 $1, Y0, X2")
			g.ins("VCVTPS2PD X2, Y2")
			g.ins("VADDPD Y1, Y8, Y8")
			g.ins("VADDPD Y2, Y9, Y9")
		} else {
			g.ins("VADDPD Y0, Y8, Y8")
		}
	}
	g.label("block")
	g.ins("CMPQ CX, $%d", block)
	g.ins("JB   last")
	zero()
	g.ins("MOVQ $32, BX")
	g.label("inner")
	round8()
	g.ins("DECQ BX")
	g.ins("JNZ  inner")
	fold()
	g.ins("SUBQ $%d, CX", block)
	g.ins("JMP  block")
	g.label("last")
	g.ins("TESTQ CX, CX")
	g.ins("JEQ  final")
	zero()
	g.label("l8")
	g.ins("CMPQ CX, $%d", 8*L)
	g.ins("JB   l1")
	round8()
	g.ins("SUBQ $%d, CX", 8*L)
	g.ins("JMP  l8")
	g.label("l1")
	g.ins("CMPQ CX, $%d", L)
	g.ins("JB   lmask")
	switch {
	case dot:
		g.ins("VMOVUP%s (DX), Y10", p[1:])
		g.ins("VFMADD231%s (SI), Y10, Y0", p)
		g.ins("ADDQ $32, DX")
	case half:
		g.widenHalf(src, "(SI)", "Y10")
		if wide {
			g.ins("VADDPS Z10, Z0, K1, Z0")
		} else {
			g.ins("VADD%s Y10, Y0, Y0", p)
		}
	default:
		g.ins("VADD%s (SI), Y0, Y0", p)
	}
	g.ins("ADDQ $%d, SI", step)
	g.ins("SUBQ $%d, CX", L)
	g.ins("JMP  l1")
	g.label("lmask")
	g.ins("TESTQ CX, CX")
	g.ins("JEQ  lfold")
	switch {
	case half:
		g.widenHalf(src, "(DX)", "Y10")
	default:
		g.tailMask(e)
		g.ins("VMASKMOV%s (SI), Y15, Y10", p)
	}
	switch {
	case dot:
		g.ins("VMASKMOV%s (DX), Y15, Y11", p)
		g.ins("VFMADD231%s Y10, Y11, Y0", p)
	case wide:
		g.ins("VADDPS Z10, Z0, K1, Z0")
	default:
		g.ins("VADD%s Y10, Y0, Y0", p)
	}
	g.label("lfold")
	fold()
	g.label("final")
	if e.size == 4 {
		g.ins("VADDPD Y9, Y8, Y8")
	}
	g.ins("VEXTRACTF128 $1, Y8, X1")
	g.ins("VADDPD X1, X8, X8")
	g.ins("VPERMILPD $1, X8, X1")
	g.ins("VADDSD X1, X8, X8")
	if e.size == 4 {
		g.ins("VCVTSD2SS X8, X8, X8")
		g.ins("VMOVSS X8, ret+%d(FP)", off["ret"])
	} else {
		g.ins("VMOVSD X8, ret+%d(FP)", off["ret"])
	}
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// foldY0 emits the fold of Y0's lanes of size bytes by OP (a maximum,
// minimum or sum of float or integer lanes: the moves are bit moves) into
// its first lane, stored to the result.
func (g *gen) foldY0(OP string, size int, off map[string]int) {
	g.ins("VEXTRACTF128 $1, Y0, X1")
	g.ins("%s X1, X0, X0", OP)
	if size == 4 {
		g.ins("VPERMILPS $0x4e, X0, X1")
		g.ins("%s X1, X0, X0", OP)
		g.ins("VPERMILPS $0xb1, X0, X1")
		g.ins("%s X1, X0, X0", OP)
		g.ins("VMOVSS X0, ret+%d(FP)", off["ret"])
	} else {
		g.ins("VPERMILPD $1, X0, X1")
		g.ins("%s X1, X0, X0", OP)
		g.ins("VMOVSD X0, ret+%d(FP)", off["ret"])
	}
}

// reduceMax emits the NaN-propagating maximum (or minimum) of x[:n], n >= lanes.
func (g *gen) reduceMax(e elem, op string) {
	name := op + "Reduce" + e.name + "AVX2"
	off := g.text(name, []arg{{"x", "*" + e.goT, 8}, {"n", "int", 8}}, &arg{"ret", e.goT, e.size},
		"returns the "+op+"imum of x[:n], or NaN if any element is NaN; it requires n >= "+fmt.Sprint(e.lanes)+".")
	g.load(off, "x", "SI")
	g.load(off, "n", "CX")
	p, L := e.p, e.lanes
	OP := "V" + strings.ToUpper(op) + p
	g.ins("VMOVUP%s (SI), Y0", p[1:])
	for k := 1; k < 4; k++ {
		g.ins("VMOVAP%s Y0, %s", p[1:], y(k))
	}
	for k := 4; k < 8; k++ {
		g.ins("VXORP%s %s, %s, %s", p[1:], y(k), y(k), y(k))
	}
	// Y4..Y7 are NaN flags: predicate 3 (UNORD) of a flag with the data is
	// all ones once the flag or the data is NaN, and all ones is itself a
	// NaN, so a flag stays set.
	g.label("loop")
	g.ins("CMPQ CX, $%d", 4*L)
	g.ins("JB   one")
	for k := 0; k < 4; k++ {
		g.ins("%s %d(SI), %s, %s", OP, 32*k, y(k), y(k))
		g.ins("VCMP%s $3, %d(SI), %s, %s", p, 32*k, y(4+k), y(4+k))
	}
	g.ins("ADDQ $128, SI")
	g.ins("SUBQ $%d, CX", 4*L)
	g.ins("JMP  loop")
	g.label("one")
	g.ins("CMPQ CX, $%d", L)
	g.ins("JB   tail")
	g.ins("%s (SI), Y0, Y0", OP)
	g.ins("VCMP%s $3, (SI), Y4, Y4", p)
	g.ins("ADDQ $32, SI")
	g.ins("SUBQ $%d, CX", L)
	g.ins("JMP  one")
	g.label("tail")
	g.ins("TESTQ CX, CX")
	g.ins("JEQ  combine")
	g.comment("the last full vector, overlapping elements already seen")
	g.ins("LEAQ -32(SI)(CX*%d), SI", e.size)
	g.ins("%s (SI), Y1, Y1", OP)
	g.ins("VCMP%s $3, (SI), Y5, Y5", p)
	g.label("combine")
	g.ins("%s Y1, Y0, Y0", OP)
	g.ins("%s Y3, Y2, Y2", OP)
	g.ins("%s Y2, Y0, Y0", OP)
	g.ins("VORP%s Y5, Y4, Y4", p[1:])
	g.ins("VORP%s Y7, Y6, Y6", p[1:])
	g.ins("VORP%s Y6, Y4, Y4", p[1:])
	g.ins("VMOVMSKP%s Y4, AX", p[1:])
	g.ins("TESTL AX, AX")
	g.ins("JNE  nan")
	g.foldY0(OP, e.size, off)
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.label("nan")
	if e.size == 4 {
		g.ins("MOVL $0x7fc00000, ret+%d(FP)", off["ret"])
	} else {
		g.ins("MOVQ $0x7ff8000000000000, AX")
		g.ins("MOVQ AX, ret+%d(FP)", off["ret"])
	}
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// reduceMax512 emits the AVX-512 maximum (or minimum) of x[:n], n >= 1.
// VMAX/VMIN drop a NaN that is already in the accumulator, so alongside
// each accumulator a flag collects x*0 + flag, which is NaN once any x was
// NaN or infinite; a set flag returns ok = false and the caller runs the
// exact NaN-checking kernel instead (inputs with infinities take that path
// too, correctly if more slowly). Two instructions per 64 bytes, against
// four for the AVX2 kernel's compare-and-flag. The first element
// broadcast is the start value; the last partial vector is merged in
// under a k-mask.
func (g *gen) reduceMax512(e elem, op string) {
	name := op + "Reduce" + e.name + "AVX512"
	g.okResult = true
	off := g.text(name, []arg{{"x", "*" + e.goT, 8}, {"n", "int", 8}}, &arg{"ret", e.goT, e.size},
		"returns the "+op+"imum of x[:n] and ok = true when no element is NaN or\n// infinite (otherwise ok is false and the result meaningless); n >= 1.")
	okOff := off["ok"]
	g.load(off, "x", "SI")
	g.load(off, "n", "CX")
	p, L := e.p, 2*e.lanes
	OP := "V" + strings.ToUpper(op) + p
	g.ins("VBROADCASTS%s (SI), Z0", p[1:])
	for k := 1; k < 4; k++ {
		g.ins("VMOVAP%s Z0, %s", p[1:], z(k))
	}
	for k := 4; k < 9; k++ {
		g.ins("VPXORQ %s, %s, %s", z(k), z(k), z(k))
	}
	g.label("loop")
	g.ins("CMPQ CX, $%d", 4*L)
	g.ins("JB   one")
	for k := 0; k < 4; k++ {
		g.ins("VMOVUP%s %d(SI), %s", p[1:], 64*k, z(10+k))
		g.ins("%s %s, %s, %s", OP, z(10+k), z(k), z(k))
		g.ins("VFMADD231%s %s, Z8, %s", p, z(10+k), z(4+k))
	}
	g.ins("ADDQ $256, SI")
	g.ins("SUBQ $%d, CX", 4*L)
	g.ins("JMP  loop")
	g.label("one")
	g.ins("CMPQ CX, $%d", L)
	g.ins("JB   tail")
	g.ins("VMOVUP%s (SI), Z10", p[1:])
	g.ins("%s Z10, Z0, Z0", OP)
	g.ins("VFMADD231%s Z10, Z8, Z4", p)
	g.ins("ADDQ $64, SI")
	g.ins("SUBQ $%d, CX", L)
	g.ins("JMP  one")
	g.label("tail")
	g.ins("TESTQ CX, CX")
	g.ins("JEQ  combine")
	g.kmask("CX")
	g.ins("VMOVUP%s.Z (SI), K1, Z10", p[1:])
	g.ins("%s Z10, Z1, K1, Z1", OP)
	g.ins("VFMADD231%s Z10, Z8, Z5", p)
	g.label("combine")
	g.ins("VADD%s Z5, Z4, Z4", p)
	g.ins("VADD%s Z7, Z6, Z6", p)
	g.ins("VADD%s Z6, Z4, Z4", p)
	g.ins("VCMP%s $3, Z4, Z4, K2", p)
	g.ins("KORTESTW K2, K2")
	g.ins("JNE  flagged")
	g.ins("%s Z1, Z0, Z0", OP)
	g.ins("%s Z3, Z2, Z2", OP)
	g.ins("%s Z2, Z0, Z0", OP)
	g.ins("VEXTRACTF64X4 $1, Z0, Y1")
	g.ins("%s Y1, Y0, Y0", OP)
	g.foldY0(OP, e.size, off)
	g.ins("MOVB $1, ok+%d(FP)", okOff)
	g.ins("VZEROUPPER")
	g.ins("RET")
	g.label("flagged")
	g.ins("MOVB $0, ok+%d(FP)", okOff)
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// ---- float32 transcendentals ----

// Constants shared by the exp core. ln2 is split so that n*ln2Hi is exact
// for |n| < 512.
var (
	ln2Hi32 = math.Float32frombits(0x3f317200)
	ln2Lo32 = float32(math.Ln2 - float64(ln2Hi32))
	// e^r = 1 + r*q(r) on |r| <= ln2/2, q fitted for relative error
	// (Lawson-weighted least squares, coefficients rounded one at a time).
	expQ = []uint32{0x3f800000, 0x3efffffe, 0x3e2aaa4a, 0x3d2aac5f, 0x3c091c2b, 0x3ab51e82}
	// 2^r = 1 + r*q(r) on |r| <= 1/2, for Exp2, whose r = x - round(x)
	// is exact (`go run fitcoeffs.go exp2`, degree 5: within 0.050 x
	// 2^-24 of the weighted target).
	exp2Q = []uint32{0x3f317218, 0x3e75fdee, 0x3d6357be, 0x3c1d96f0, 0x3aaf8417, 0x3920b5a9}
	// log1p(f) = f - f^2/2 + f^3*P(f) on [sqrt(1/2)-1, sqrt(2)-1].
	logP = []uint32{0x3eaaaaaa, 0xbe800113, 0x3e4cd00e, 0xbe2a3945, 0x3e116c97, 0xbe06c121, 0x3e02af63, 0xbd9c64ef}
	// logP8 is P of degree 8 from the same fit (`go run fitcoeffs.go
	// log`, within 0.013 x 2^-24 of the weighted target against 0.098 for
	// logP's degree 7), for Log2 and Log10, whose multiplication by
	// 1/ln(base) would otherwise carry logP's error past 1 ulp.
	logP8 = []uint32{0x3eaaaaa4, 0xbe800003, 0x3e4cd23b, 0xbe2aae22, 0x3e119dd1, 0xbdfe1465, 0x3df36006, 0xbdef00f1, 0x3d8a39a0}
	// tanh(a) = a + a^3*P(a^2) on [0, 0.625].
	tanhP = []uint32{0xbeaaaa99, 0x3e08837b, 0xbd5c1ad2, 0x3ca8fc67, 0xbbba8671}
	// erf(a) = a + a*P(a^2) on [0, 0.875].
	erfP = []uint32{0x3e0375d4, 0xbec093a0, 0x3de716ad, 0xbcdbff9c, 0x3baa1635, 0xba5248e0, 0x38a476b7}
	// erfc(z) = t*exp(-z^2 + Q(t-0.575)), t = 2/(2+z), fitted on t in [0.15, 1]
	// (z in [0, 11.3]) for absolute error in Q.
	erfcQ = []uint32{0xbf11eb31, 0x3faefe79, 0x3dce930f, 0xbecfe5e0, 0xbd41a98b, 0x3e987a51, 0xbd0e2c3c, 0xbe836955, 0x3de326ab, 0x3e26e305, 0xbdce13be}
)

const erfcCenter = 0.575

// geluC is float32(2*sqrt2); GeluErf uses t = geluC/(geluC+|x|), which is
// 2/(2+|x|/sqrt2) up to the rounding of the constant, and geluQ is Q fitted
// for exactly that t.
var (
	geluC = math.Float32frombits(0x403504f3)
	geluQ = []uint32{0xbf11eb30, 0x3faefe79, 0x3dce8db6, 0xbecfe5ba, 0xbd402263, 0x3e9872ce, 0xbd226bee, 0xbe831ce1, 0x3e0da411, 0x3e25274c, 0xbe1e8980}
)

// horner emits acc = P(u) for coefficients c (lowest order first), named
// name0, name1, ... in the constant table.
// With zmm registers the coefficients are broadcast from the same table.
func (g *gen) horner(name string, c []uint32, u, acc string) {
	n := len(c) - 1
	if strings.HasPrefix(acc, "Z") {
		g.ins("VBROADCASTSS %s, %s", g.fb(fmt.Sprintf("%s%d", name, n), c[n]), acc)
		for k := n - 1; k >= 0; k-- {
			g.ins("VFMADD213PS.BCST %s, %s, %s", g.fb(fmt.Sprintf("%s%d", name, k), c[k]), u, acc)
		}
		return
	}
	g.ins("VMOVUPS %s, %s", g.fb(fmt.Sprintf("%s%d", name, n), c[n]), acc)
	for k := n - 1; k >= 0; k-- {
		g.ins("VFMADD213PS %s, %s, %s", g.fb(fmt.Sprintf("%s%d", name, k), c[k]), u, acc)
	}
}

// expFinish turns a reduced argument r (|r| <= ~0.35, float32) and n (int32
// lanes) into r = e^r * 2^n. 2^n is applied as two factors 2^(n>>1) and
// 2^(n-(n>>1)) so that results that overflow become +Inf and results in the
// subnormal range are rounded once, for n in [-252, 254]. Clobbers n, p, t.
// With split, r = e^r * 2^(n>>1) is left in the normal range and n holds the
// second factor 2^(n-(n>>1)) as a float, for callers that multiply further
// before the final scaling (so a subnormal intermediate loses no bits).
func (g *gen) expFinish(r, n, p, t string, split bool) {
	g.expFinishQ("expq", expQ, r, n, p, t, split)
}

// expFinishQ is expFinish with e^r - 1 = r*q(r) replaced by the
// polynomial q named name: Exp2 passes exp2Q for 2^r.
func (g *gen) expFinishQ(name string, q []uint32, r, n, p, t string, split bool) {
	g.horner(name, q, r, p)
	g.ins("VFMADD213PS %s, %s, %s", g.f("one", 1), r, p)
	g.ins("VPSRAD $1, %s, %s", n, t)
	g.ins("VPSUBD %s, %s, %s", t, n, n)
	g.ins("VPADDD %s, %s, %s", g.i("i127", 127), t, t)
	g.ins("VPADDD %s, %s, %s", g.i("i127", 127), n, n)
	g.ins("VPSLLD $23, %s, %s", t, t)
	g.ins("VPSLLD $23, %s, %s", n, n)
	if split {
		g.ins("VMULPS %s, %s, %s", t, p, r)
		return
	}
	g.ins("VMULPS %s, %s, %s", t, p, p)
	g.ins("VMULPS %s, %s, %s", n, p, r)
}

// expCore computes xr = exp(xr + lo) (lo == "" for none) for xr in
// [-130, 89] and |lo| < 2, or NaN. Clobbers t1, t2, t3. With split, see
// expFinish: xr*t1 is the result.
func (g *gen) expCore(xr, lo, t1, t2, t3 string, split bool) {
	g.expCoreN(xr, lo, "", t1, t2, t3, split)
}

// expCoreN is expCore that also scales by 2^m, m the int32 lanes of
// register addN (none if ""): m joins the reduction's own power of two,
// so the one rounding of expFinish covers it, for a total power in
// [-252, 254].
func (g *gen) expCoreN(xr, lo, addN, t1, t2, t3 string, split bool) {
	if lo != "" {
		g.ins("VADDPS %s, %s, %s", lo, xr, t1)
		g.ins("VMULPS %s, %s, %s", g.f("log2e", math.Log2E), t1, t1)
	} else {
		g.ins("VMULPS %s, %s, %s", g.f("log2e", math.Log2E), xr, t1)
	}
	g.ins("VROUNDPS $0, %s, %s", t1, t1)
	g.ins("VFNMADD231PS %s, %s, %s", g.f("ln2hi", ln2Hi32), t1, xr)
	if lo != "" {
		g.ins("VADDPS %s, %s, %s", lo, xr, xr)
	}
	g.ins("VFNMADD231PS %s, %s, %s", g.f("ln2lo", ln2Lo32), t1, xr)
	g.ins("VCVTPS2DQ %s, %s", t1, t1)
	if addN != "" {
		g.ins("VPADDD %s, %s, %s", addN, t1, t1)
	}
	g.expFinish(xr, t1, t2, t3, split)
}

// onePlusExact sets s = 1+e rounded and lo = (1-s)+e, its rounding error
// (exact for 0 <= e <= 1), leaving 1 in register o; z selects zmm
// registers.
func (g *gen) onePlusExact(z bool, e, s, lo, o string) {
	if z {
		g.ins("VADDPS.BCST %s, %s, %s", g.f("one", 1), e, s)
		g.ins("VBROADCASTSS %s, %s", g.f("one", 1), o)
	} else {
		g.ins("VADDPS %s, %s, %s", g.f("one", 1), e, s)
		g.ins("VMOVUPS %s, %s", g.f("one", 1), o)
	}
	g.ins("VSUBPS %s, %s, %s", s, o, lo)
	g.ins("VADDPS %s, %s, %s", e, lo, lo)
}

// refinedQuotient sets q = num/(s+lo): the division num/s, then one Newton
// step on the residual num - q*s - q*lo with VRCPPS's estimate of 1/s (in
// rcp). num is clobbered.
func (g *gen) refinedQuotient(q, num, s, lo, rcp string) {
	g.ins("VDIVPS %s, %s, %s", s, num, q)
	g.ins("VFNMADD231PS %s, %s, %s", q, s, num)
	g.ins("VFNMADD231PS %s, %s, %s", q, lo, num)
	g.ins("VRCPPS %s, %s", s, rcp)
	g.ins("VFMADD231PS %s, %s, %s", num, rcp, q)
}

// gatedBySigmoid finishes the AVX2 Silu and GeluTanh: with x in Y0 and
// e^-|v| split as eh*Y6 (Y6 the power of two, expCore's split form), it
// sets Y0 = x*sigmoid(v) as x*(m/(1+e)) times (x<0 ? Y6 : 1), m = x<0 ? eh
// : 1, so a result near the underflow is scaled last. Clobbers Y1-Y7.
func (g *gen) gatedBySigmoid(eh string) {
	g.comment("e = eh*Y6; sigmoid = m/(s+lo), m = x<0 ? eh : 1: q = m/s plus one Newton step")
	g.comment("on the residual m - q*s - q*lo; then *x and *(x<0 ? Y6 : 1)")
	g.ins("VMULPS Y6, %s, Y3", eh)
	g.onePlusExact(false, "Y3", "Y5", "Y7", "Y4")
	g.ins("VBLENDVPS Y0, %s, Y4, Y2", eh)
	g.ins("VBLENDVPS Y0, Y6, Y4, Y6")
	g.refinedQuotient("Y3", "Y2", "Y5", "Y7", "Y1")
	g.ins("VMULPS Y0, Y3, Y3")
	g.ins("VMULPS Y6, Y3, Y0")
}

// gatedBySigmoid512 is gatedBySigmoid for the AVX-512 Silu and GeluTanh:
// with x in Z0 and e^-|v| = p*2^n (p in register p, n in Z6), it sets
// Z0 = x*sigmoid(v) as x*(m/(1+e)), m = x<0 ? p : 1, scaled by 2^n last
// for x < 0. Clobbers Z1, Z2, Z4-Z9 and K2.
func (g *gen) gatedBySigmoid512(p string) {
	g.ins("VSCALEFPS Z6, %s, Z4", p)
	g.onePlusExact(true, "Z4", "Z5", "Z7", "Z2")
	g.comment("sigmoid(v) = m/(s+lo), m = x<0 ? p : 1; then *x and, for x < 0, *2^n")
	g.ins("VPMOVD2M Z0, K2")
	g.ins("VMOVAPS %s, K2, Z2", p)
	g.ins("VMOVAPS.Z Z6, K2, Z6")
	g.recip512("Z1", "Z2", "Z5", "Z7", "Z8", "Z9")
	g.ins("VMULPS Z0, Z1, Z1")
	g.ins("VSCALEFPS Z6, Z1, Z0")
}

func (g *gen) transcendentals() {
	e := f32
	absMask := func() string { return g.fb("absmask", 0x7fffffff) }
	signMask := func() string { return g.fb("signmask", 0x80000000) }
	one := func() string { return g.f("one", 1) }
	two := func() string { return g.f("two", 2) }
	// One vector per iteration: a second copy of a body on other registers
	// (as the AVX-512 kernels run, see twoSlots) measured no faster with
	// 256-bit vectors for exp, log and sigmoid, and the others need more
	// than half of the 16 ymm registers.
	un := func(name, doc string, setup func(g *gen), body func(g *gen)) {
		g.elementwise(ewKernel{name: name + "F32AVX2", doc: doc, e: e, inputs: []string{"x"}, unroll: 1, setup: setup,
			body: func(g *gen, u int, in []string) string { body(g); return "Y0" }})
	}

	un("exp", "computes dst[i] = e**x[i] for i < n.", func(g *gen) {
		g.ins("VMOVUPS %s, Y13", g.f("c89", 89))
		g.ins("VMOVUPS %s, Y14", g.f("cm104", -104))
	}, func(g *gen) {
		// Clamp with x as the second source so NaN passes through.
		g.ins("VMINPS Y0, Y13, Y0")
		g.ins("VMAXPS Y0, Y14, Y0")
		g.expCore("Y0", "", "Y1", "Y2", "Y3", false)
	})

	un("exp2", "computes dst[i] = 2**x[i] for i < n.", func(g *gen) {
		g.ins("VMOVUPS %s, Y13", g.f("c129", 129))
		g.ins("VMOVUPS %s, Y14", g.f("cm151", -151))
	}, func(g *gen) {
		g.comment("as the AVX-512 kernel: clamp to [-151, 129] (NaN passes), n = round(x),")
		g.comment("r = x - n exactly, 2^r = 1 + r*q(r), times 2^n in two factors (one rounding)")
		g.ins("VMINPS Y0, Y13, Y0")
		g.ins("VMAXPS Y0, Y14, Y0")
		g.ins("VROUNDPS $0, Y0, Y3")
		g.ins("VSUBPS Y3, Y0, Y0")
		g.ins("VCVTPS2DQ Y3, Y3")
		g.expFinishQ("exp2q", exp2Q, "Y0", "Y3", "Y1", "Y2", false)
	})

	for _, lb := range logBases {
		un(lb.name, lb.doc, nil, func(g *gen) { g.logBody(tierAVX2, lb) })
	}
	un("expm1", "computes dst[i] = e**x[i] - 1 for i < n.", nil, func(g *gen) { g.expm1Body(tierAVX2) })

	un("tanh", "computes dst[i] = tanh(x[i]) for i < n.", func(g *gen) {
		g.ins("VMOVUPS %s, Y13", g.f("c20", 20))
	}, func(g *gen) {
		small, join := g.uniq("small"), g.uniq("join")
		g.ins("VANDPS %s, Y0, Y1", absMask())
		g.ins("VANDPS %s, Y0, Y7", signMask())
		g.comment("each branch runs only when some lane needs it (AX: lanes below 0.625)")
		g.ins("VCMPPS $1, %s, Y1, Y6", g.f("c0625", 0.625))
		g.ins("VMOVMSKPS Y6, AX")
		g.ins("CMPL AX, $0xff")
		g.ins("JEQ  %s", small)
		g.comment("|x| >= 0.625: 1 - 2/(e^(2|x|)+1)")
		g.ins("VADDPS Y1, Y1, Y2")
		g.ins("VMINPS Y2, Y13, Y2")
		g.expCore("Y2", "", "Y3", "Y4", "Y5", false)
		g.ins("VADDPS %s, Y2, Y2", one())
		g.ins("VMOVUPS %s, Y3", two())
		g.ins("VDIVPS Y2, Y3, Y3")
		g.ins("VMOVUPS %s, Y2", one())
		g.ins("VSUBPS Y3, Y2, Y2")
		g.ins("TESTL AX, AX")
		g.ins("JEQ  %s", join)
		g.label(small)
		g.comment("|x| < 0.625: |x| + |x|^3 P(x^2)")
		g.ins("VMULPS Y1, Y1, Y4")
		g.horner("tanhp", tanhP, "Y4", "Y5")
		g.ins("VMULPS Y1, Y4, Y4")
		g.ins("VFMADD213PS Y1, Y4, Y5")
		g.ins("VBLENDVPS Y6, Y5, Y2, Y2")
		g.label(join)
		g.ins("VORPS Y7, Y2, Y0")
	})

	un("sigmoid", "computes dst[i] = 1/(1+e**-x[i]) for i < n.", func(g *gen) {
		g.ins("VMOVUPS %s, Y14", g.f("cm104", -104))
	}, func(g *gen) {
		g.comment("e = exp(-|x|); x >= 0: 1/(1+e), x < 0: e/(1+e)")
		g.ins("VORPS %s, Y0, Y1", signMask())
		g.ins("VMAXPS Y1, Y14, Y1")
		g.expCore("Y1", "", "Y2", "Y3", "Y4", false)
		g.comment("1+e = s+lo exactly; q = num/s plus one Newton step on num - q*s - q*lo")
		g.onePlusExact(false, "Y1", "Y2", "Y4", "Y3")
		g.ins("VBLENDVPS Y0, Y1, Y3, Y3")
		g.refinedQuotient("Y0", "Y3", "Y2", "Y4", "Y5")
	})

	un("silu", "computes dst[i] = x[i]*sigmoid(x[i]) for i < n.", func(g *gen) {
		g.ins("VMOVUPS %s, Y14", g.f("cm120", -120))
	}, func(g *gen) {
		g.comment("silu = x*sigmoid(x), x clamped at -120 (below, x*e^x rounds to -0; NaN passes):")
		g.comment("e = exp(-|x|) = Y1*Y6 (split); x >= 0: x/(1+e); x < 0: (x*(Y1/(1+e)))*Y6")
		g.ins("VMAXPS Y0, Y14, Y0")
		g.ins("VORPS %s, Y0, Y1", signMask())
		g.ins("VMAXPS Y1, Y14, Y1")
		g.expCore("Y1", "", "Y6", "Y2", "Y3", true)
		g.gatedBySigmoid("Y1")
	})

	un("geluTanh", "computes dst[i] = 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))), x = x[i], for i < n.", func(g *gen) {
		g.ins("VMOVUPS %s, Y13", g.f("c12", 12))
		g.ins("VMOVUPS %s, Y14", g.f("cm12", -12))
	}, func(g *gen) {
		g.comment("gelu = x*sigmoid(v), v = x*(c1 + c2*x^2); v and its reduction in float64")
		g.ins("VMAXPS Y0, Y14, Y0")
		g.ins("VMINPS Y0, Y13, Y1")
		g.ins("VCVTPS2PD X1, Y2")
		g.ins("VEXTRACTF128 $1, Y1, X3")
		g.ins("VCVTPS2PD X3, Y3")
		c1 := 2 * math.Sqrt(2/math.Pi)
		for h, n := range []int{2, 3} {
			hr := y(n)
			g.ins("VMULPD %s, %s, Y4", hr, hr)
			g.ins("VMOVUPD %s, Y5", g.d("gc2", c1*0.044715))
			g.ins("VFMADD213PD %s, Y4, Y5", g.d("gc1", c1))
			g.ins("VMULPD Y5, %s, %s", hr, hr)
			g.ins("VORPD %s, %s, %s", g.v64("signmask64", 1<<63), hr, hr)
			g.ins("VMULPD %s, %s, Y4", g.d("log2e64", math.Log2E), hr)
			g.ins("VROUNDPD $0, Y4, Y4")
			g.ins("VFNMADD231PD %s, Y4, %s", g.d("ln2hi64", ln2Hi64), hr)
			g.ins("VFNMADD231PD %s, Y4, %s", g.d("ln2lo64", ln2Lo64), hr)
			g.ins("VCVTPD2PSY %s, %s", hr, x(n))
			g.ins("VCVTPD2DQY Y4, %s", x(6+h))
		}
		g.ins("VINSERTF128 $1, X3, Y2, Y2")
		g.ins("VINSERTI128 $1, X7, Y6, Y6")
		g.expFinish("Y2", "Y6", "Y3", "Y4", true)
		g.gatedBySigmoid("Y2")
	})

	un("geluErf", "computes dst[i] = 0.5x(1+erf(x/sqrt(2))), x = x[i], for i < n.", func(g *gen) {
		g.ins("VMOVUPS %s, Y13", g.f("c16", 16))
		g.ins("VMOVUPS %s, Y14", g.f("cm16", -16))
	}, func(g *gen) {
		g.comment("gelu = 0.5x*erfc(-x/sqrt2); E = erfc(|x|/sqrt2) = t*exp(-x^2/2 + Q(t)),")
		g.comment("t = c/(c+|x|) with c = float32(2*sqrt2), refined by one Newton step")
		g.ins("VMAXPS Y0, Y14, Y0")
		g.ins("VMINPS Y0, Y13, Y1")
		g.ins("VMULPS Y1, Y1, Y2")
		g.ins("VMOVAPS Y2, Y3")
		g.ins("VFMSUB231PS Y1, Y1, Y3")
		g.ins("VMULPS %s, Y2, Y2", g.f("mhalf", -0.5))
		g.ins("VANDPS %s, Y1, Y4", absMask())
		g.ins("VMOVUPS %s, Y5", g.f("cgelu", geluC))
		g.ins("VMAXPS Y4, Y5, Y6")
		g.ins("VMINPS Y4, Y5, Y7")
		g.ins("VADDPS Y4, Y5, Y5")
		g.ins("VSUBPS Y6, Y5, Y6")
		g.ins("VSUBPS Y6, Y7, Y7")
		g.ins("VMOVUPS %s, Y6", g.f("cgelu", geluC))
		g.ins("VDIVPS Y5, Y6, Y6")
		g.ins("VMOVUPS %s, Y8", g.f("cgelu", geluC))
		g.ins("VFNMADD231PS Y6, Y5, Y8")
		g.ins("VFNMADD231PS Y6, Y7, Y8")
		g.ins("VMULPS %s, Y8, Y8", g.f("rcgelu", 1/geluC))
		g.ins("VFMADD231PS Y8, Y6, Y6")
		g.ins("VSUBPS %s, Y6, Y4", g.f("qctr", erfcCenter))
		g.horner("geluq", geluQ, "Y4", "Y5")
		g.ins("VFMADD231PS %s, Y3, Y5", g.f("mhalf", -0.5))
		g.expCore("Y2", "Y5", "Y3", "Y4", "Y7", true)
		g.comment("E' = t*Y2, E = E'*Y3; x >= 0: x*(1-E/2); x < 0: ((x/2)*E')*Y3")
		g.ins("VMULPS Y6, Y2, Y2")
		g.ins("VMULPS Y3, Y2, Y4")
		g.ins("VMULPS %s, Y4, Y4", g.f("half", 0.5))
		g.ins("VMOVUPS %s, Y5", one())
		g.ins("VSUBPS Y4, Y5, Y5")
		g.ins("VMULPS Y0, Y5, Y5")
		g.ins("VMULPS %s, Y0, Y4", g.f("half", 0.5))
		g.ins("VMULPS Y2, Y4, Y4")
		g.ins("VMULPS Y3, Y4, Y4")
		g.ins("VBLENDVPS Y0, Y4, Y5, Y0")
	})

	un("erf", "computes dst[i] = erf(x[i]) for i < n.", func(g *gen) {
		g.ins("VMOVUPS %s, Y13", g.f("c10", 10))
	}, func(g *gen) {
		g.ins("VANDPS %s, Y0, Y1", absMask())
		g.ins("VANDPS %s, Y0, Y7", signMask())
		g.ins("VMINPS Y1, Y13, Y1")
		g.ins("VMULPS Y1, Y1, Y2")
		g.comment("|x| < 0.875: a + a*P(a^2)")
		g.horner("erfp", erfP, "Y2", "Y3")
		g.ins("VFMADD213PS Y1, Y1, Y3")
		g.comment("otherwise 1 - t*exp(-a^2 + Q(t)), t = 2/(2+a), a^2 carried as hi+lo")
		g.ins("VMOVAPS Y2, Y4")
		g.ins("VFMSUB231PS Y1, Y1, Y4")
		g.ins("VADDPS %s, Y1, Y5", two())
		g.ins("VMOVUPS %s, Y6", two())
		g.ins("VDIVPS Y5, Y6, Y5")
		g.ins("VSUBPS %s, Y5, Y6", g.f("qctr", erfcCenter))
		g.horner("erfcq", erfcQ, "Y6", "Y8")
		g.ins("VSUBPS Y4, Y8, Y8")
		g.ins("VXORPS %s, Y2, Y2", signMask())
		g.expCore("Y2", "Y8", "Y4", "Y6", "Y9", false)
		g.ins("VMULPS Y5, Y2, Y2")
		g.ins("VMOVUPS %s, Y4", one())
		g.ins("VSUBPS Y2, Y4, Y4")
		g.ins("VCMPPS $1, %s, Y1, Y6", g.f("c0875", 0.875))
		g.ins("VBLENDVPS Y6, Y3, Y4, Y4")
		g.ins("VORPS Y7, Y4, Y0")
	})
}

// float64 split of ln2 for the GeluTanh reduction: ln2Hi64 keeps 32
// significant bits so n*ln2Hi64 is exact; ln2Lo64 is the rest.
var ln2Hi64, ln2Lo64 = splitLn2()

func splitLn2() (float64, float64) {
	exact := bigmath.Ln2
	ln2, _ := exact.Float64()
	hi := math.Float64frombits(math.Float64bits(ln2) &^ (1<<21 - 1))
	lo, _ := new(big.Float).Sub(exact, big.NewFloat(hi)).Float64()
	return hi, lo
}

func main() {
	dir := flag.String("dir", ".", "directory to write the outputs to")
	powDir := flag.String("pow64", "../../../internal/pow64", "internal/pow64, relative to dir, for its tables.go")
	flag.Parse()
	g := &gen{consts: map[string][]string{}}
	for _, e := range []elem{f32, f64} {
		g.binaries(e, tierAVX2)
		g.binaries(e, tierAVX512)
		g.reduceSum(e, false, noHalf, false)
		g.reduceSum(e, true, noHalf, false)
		g.reduceMax(e, "max")
		g.reduceMax(e, "min")
		g.reduceMax512(e, "max")
		g.reduceMax512(e, "min")
	}
	for _, wide := range []bool{false, true} {
		g.reduceSum(f32, false, srcBF16, wide)
		g.reduceSum(f32, false, srcF16, wide)
	}
	g.transcendentals()
	g.transcendentals512()
	g.transcendentals512F64()
	g.pow512F64()
	g.pow512F32()
	g.expF64AVX2()
	g.logF64AVX2()
	g.powAVX2()
	g.powF32AVX2()
	g.sigmoidF64AVX2()
	g.geluTanhF64AVX2()
	g.erfF64AVX2()
	g.geluErfF64AVX2()
	g.tanhF64AVX2()
	g.expm1F64AVX2()
	g.hyperbolicF64AVX2()
	g.trigs(tierAVX2)
	g.trigs(tierAVX512)
	g.trigs64(tierAVX2)
	g.trigs64(tierAVX512)
	g.arcs(tierAVX2)
	g.arcs(tierAVX512)
	g.arcs64(tierAVX2)
	g.arcs64(tierAVX512)
	g.atan2F32(tierAVX2)
	g.atan2F32(tierAVX512)
	g.atan2Place64(tierAVX2)
	g.atan2Place64(tierAVX512)
	g.hyperbolics(tierAVX2)
	g.hyperbolics(tierAVX512)
	g.adam512()
	g.twoSum512(f32)
	g.twoSum512(f64)
	g.twoSumRows512(f32)
	g.twoSumRows512(f64)
	g.maxPool2(false)
	g.maxPool2(true)
	g.halves(tierAVX2)
	g.halves(tierAVX512)
	g.compares(tierAVX2)
	g.compares(tierAVX512)
	g.selects(tierAVX2)
	g.selects(tierAVX512)
	for _, bits := range []int{32, 64} {
		g.reverseKernel(tierAVX2, bits)
		g.reverseKernel(tierAVX512, bits)
	}
	g.transpose8x8()
	g.reduceExtremeI32("max")
	g.reduceExtremeI32("min")

	var s bytes.Buffer
	s.WriteString("// Code generated by asmgen.go; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\n#include \"textflag.h\"\n\n")
	s.WriteString("// maskTab: eight -1 dwords then eight 0 dwords; a load at dword 8-k\n// selects the first k float32 lanes (or k/2 float64 lanes).\n")
	for i := 0; i < 16; i++ {
		v := uint32(0xffffffff)
		if i >= 8 {
			v = 0
		}
		fmt.Fprintf(&s, "DATA maskTab<>+%d(SB)/4, $0x%08x\n", 4*i, v)
	}
	s.WriteString("GLOBL maskTab<>(SB), RODATA|NOPTR, $64\n\n")
	var names []string
	for k := range g.consts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		s.WriteString(strings.Join(g.consts[k], "\n") + "\n")
	}
	s.Write(g.s.Bytes())
	if err := os.WriteFile(filepath.Join(*dir, "vec_amd64.s"), s.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}

	var d bytes.Buffer
	d.WriteString("// Code generated by asmgen.go; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\npackage vec\n")
	d.Write(g.decls.Bytes())
	tierTable(&d, tierAVX2)
	tierTable(&d, tierAVX512)
	writeGoSource(filepath.Join(*dir, "asm_amd64.go"), d.Bytes())
	writeGeluConsts(*dir)
	writeTrigConsts(*dir)
	writePow32Consts(*dir)
	writePowConsts(filepath.Join(*dir, *powDir))
}

// writePowConsts writes tables.go of package internal/pow64 (every
// architecture): the AVX-512 float64 Pow kernels' tables and coefficients
// (pow512F64), for pow64.Pow, which repeats the kernels' steps in Go.
func writePowConsts(dir string) {
	var b bytes.Buffer
	b.WriteString("// Code generated by device/cpu/vec/asmgen.go; DO NOT EDIT.\n\npackage pow64\n\n")
	list := func(name, doc string, bits []uint64) {
		fmt.Fprintf(&b, "// %s %s\nvar %s = [...]float64{", name, doc, name)
		for i, v := range bits {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatFloat(math.Float64frombits(v), 'x', -1, 64))
		}
		b.WriteString("}\n\n")
	}
	bitsOf := func(c []float64) []uint64 {
		var u []uint64
		for _, v := range c {
			u = append(u, math.Float64bits(v))
		}
		return u
	}
	invc, thi, tlo := logTableBits()
	list("logInvC", "is 1/c for each of the log's 32 bins of m in [0.75, 1.5) (logTables64).", invc)
	list("logTHi", "is -log(c) on the 2^-43 grid, plus ln2Hi for bins 16-31.", thi)
	list("logTLo", "is the rest of -log(c) (+ ln2 for bins 16-31).", tlo)
	hi, lo := exp2Table()
	list("exp2Hi", "is 2^(j/16) rounded, j < 16.", hi)
	list("exp2Lo", "is the rest of 2^(j/16).", lo)
	list("logFine", "is P with log1p(r) = r - r^2/2 + r^3*P(r) (logFineCoeffs).", bitsOf(logFineCoeffs()))
	list("expQ", "is P with e^r - 1 = r + r^2*P(r) (expCoeffs64).", bitsOf(expCoeffs64()))
	x := func(v float64) string { return strconv.FormatFloat(v, 'x', -1, 64) }
	fmt.Fprintf(&b, "// ln2Hi + ln2Lo = ln 2, ln2Hi with 21 low zero bits; the exp's reduction by\n// ln2/16 and its shifter.\nconst (\n\tln2Hi = %s\n\tln2Lo = %s\n\tlog2e16 = %s\n\tln2Hi16 = %s\n\tln2Lo16 = %s\n\tshifter = %s\n)\n",
		x(ln2Hi64), x(ln2Lo64), x(expTab*math.Log2E), x(ln2Hi64/expTab), x(ln2Lo64/expTab), x(0x1.8p52))
	writeGoSource(filepath.Join(dir, "tables.go"), b.Bytes())
}

// writeGoSource formats the Go source src (a generated file) and writes
// it to path.
func writeGoSource(path string, src []byte) {
	out, err := format.Source(src)
	if err != nil {
		log.Fatalf("%v\n%s", err, src)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		log.Fatal(err)
	}
}

// hexFloats lists c as Go hexadecimal float literals (exact), comma
// separated.
func hexFloats(c []float64) string {
	var s []string
	for _, v := range c {
		s = append(s, strconv.FormatFloat(v, 'x', -1, 64))
	}
	return strings.Join(s, ", ")
}

// writePow32Consts writes pow32const.go (every architecture): the float32
// Pow kernel's offset, tables and polynomials (pow512F32), for powF32Lane,
// which repeats the kernel's steps in Go.
func writePow32Consts(dir string) {
	var b bytes.Buffer
	b.WriteString("// Code generated by asmgen.go; DO NOT EDIT.\n\npackage vec\n\n")
	list := hexFloats
	invc, logc, exp2 := pow32Tables()
	b.WriteString("// The float32 Pow kernel's constants (asmgen.go's pow512F32): the log's\n")
	b.WriteString("// offset, its rounding to 2^-37, its bins' invc and -log2(invc), 2^(j/16),\n")
	b.WriteString("// and the polynomials P (log2(1+r) = r*P(r)) and Q (2^r = 1 + r*Q(r)),\n// lowest order first.\n")
	fmt.Fprintf(&b, "const (\n\tpow32Off = 0x%X\n\tpow32Snap = %s\n)\n\nvar (\n", uint64(pow32Off), hexFloats([]float64{pow32Snap}))
	fmt.Fprintf(&b, "\tpow32InvC = [16]float64{%s}\n\tpow32LogC = [16]float64{%s}\n\tpow32Exp2 = [16]float64{%s}\n", list(invc), list(logc), list(exp2))
	fmt.Fprintf(&b, "\tpow32P = [...]float64{%s}\n\tpow32Q = [...]float64{%s}\n)\n", list(pow32P), list(pow32Q))
	writeGoSource(filepath.Join(dir, "pow32const.go"), b.Bytes())
}

// writeTrigConsts writes trigconst.go (every architecture): the float64
// Sin, Cos and Tan kernels' pi/2 parts and series (trigs64), and the
// Asin, Acos and Atan kernels' constants (arcs64), for the generic sin64,
// cos64, tan64, asin64, acos64 and atan64, which repeat the kernels' steps.
func writeTrigConsts(dir string) {
	var b bytes.Buffer
	b.WriteString("// Code generated by asmgen.go; DO NOT EDIT.\n\npackage vec\n\n")
	list := hexFloats
	b.WriteString("// trigHalfPi holds pi/2 = P1 + P2 + P3 (asmgen.go's halfPiSplit); trigSin and\n")
	b.WriteString("// trigCos the series sin r = r + r^3*S(r^2) and cos r = 1 - r^2/2 +\n// r^4*C(r^2), lowest order first (taylorCoeffs).\n")
	fmt.Fprintf(&b, "var (\n\ttrigHalfPi = [...]float64{%s}\n\ttrigSin = [...]float64{%s}\n\ttrigCos = [...]float64{%s}\n)\n",
		list(halfPiSplit(3)), list(trigSinCoeffs()), list(trigCosCoeffs()))
	atanB, _, _ := arcPairs()
	var from, ps, qs, hi, lo []float64
	for i, r := range atanRegions {
		from, ps, qs = append(from, r.from), append(ps, r.p), append(qs, r.q)
		hi, lo = append(hi, atanB[i][0]), append(lo, atanB[i][1])
	}
	b.WriteString("\n// The float64 Asin, Acos and Atan kernels' constants (asmgen.go's arcs64):\n")
	b.WriteString("// Atan's regions (from, p, q, b = hi + lo), its clamp, the divisor floor\n")
	b.WriteString("// of Asin's yl, and the polynomials P, lowest order first; pi/2 is\n// trigHalfPi's first two parts, pi twice them.\n")
	fmt.Fprintf(&b, "var (\n\tatanFrom = [...]float64{%s}\n\tatanP = [...]float64{%s}\n\tatanQ = [...]float64{%s}\n\tatanHi = [...]float64{%s}\n\tatanLo = [...]float64{%s}\n",
		list(from), list(ps), list(qs), list(hi), list(lo))
	fmt.Fprintf(&b, "\tatanPoly = [...]float64{%s}\n\tasinPoly = [...]float64{%s}\n)\n", list(atanCoeffsF64()), list(asinCoeffsF64()))
	fmt.Fprintf(&b, "const (\n\tatanClamp = %x\n\tasinTiny = %x\n)\n", atanClamp, asinTiny)
	writeGoSource(filepath.Join(dir, "trigconst.go"), b.Bytes())
}

// writeGeluConsts writes geluconst.go (every architecture): the pairs of
// geluTanhCoeffs for the generic geluTanh64, so that it and the AVX-512
// kernel take their coefficients from one computation, and the bound
// below which the AVX-512 GeluErf kernel leaves elements to Go.
func writeGeluConsts(dir string) {
	c1, c2 := geluTanhCoeffs()
	var b bytes.Buffer
	b.WriteString("// Code generated by asmgen.go; DO NOT EDIT.\n\npackage vec\n\n")
	b.WriteString("// GeluTanh(x) = x*sigmoid(v), v = x*(c1 + c2*x^2): c1 = 2*sqrt(2/pi) and\n")
	b.WriteString("// c2 = 0.044715*c1, each a float64 pair hi+lo (asmgen.go's geluTanhCoeffs).\n")
	fmt.Fprintf(&b, "const (\n\tgeluTanhC1Hi = %x\n\tgeluTanhC1Lo = %x\n\tgeluTanhC2Hi = %x\n\tgeluTanhC2Lo = %x\n)\n", c1[0], c1[1], c2[0], c2[1])
	b.WriteString("\n// The AVX-512 float64 GeluErf kernel leaves x below geluErfFar, and from\n// -geluErfFar to geluErfNear, to Go (asmgen.go's geluErf512F64).\n")
	fmt.Fprintf(&b, "const (\n\tgeluErfFar = %v\n\tgeluErfNear = %v\n)\n", geluErfFar, geluErfNear)
	writeGoSource(filepath.Join(dir, "geluconst.go"), b.Bytes())
}

// ---- float32 transcendentals, AVX-512 ----
//
// The same algorithms and coefficients as the AVX2 kernels above, on 16
// lanes: branch selections are k-masks, constants are broadcast from the
// shared table, and 2^n is applied with VSCALEFPS, which rounds a result
// in the subnormal range once and overflows to +Inf, so the two-factor
// scaling of expFinish is not needed. Every kernel keeps Z31 = 1.5*2^23,
// the round-to-integer shifter (exact for |t| < 2^22).

// expCore512 computes xr = exp(xr + lo) (lo == "" for none) for xr in
// [-150, 89] and |lo| < 2, or NaN. With scale false, xr is left as
// e^r in [0.7, 1.42] and t1 as n (a float), and exp is xr*2^t1, for
// callers that multiply further before scaling. Clobbers t1, t2.
func (g *gen) expCore512(xr, lo, t1, t2 string, scale bool) {
	g.ins("VMOVAPS Z31, %s", t1)
	if lo != "" {
		g.ins("VADDPS %s, %s, %s", lo, xr, t2)
		g.ins("VFMADD231PS.BCST %s, %s, %s", g.f("log2e", math.Log2E), t2, t1)
	} else {
		g.ins("VFMADD231PS.BCST %s, %s, %s", g.f("log2e", math.Log2E), xr, t1)
	}
	g.ins("VSUBPS Z31, %s, %s", t1, t1)
	g.ins("VFNMADD231PS.BCST %s, %s, %s", g.f("ln2hi", ln2Hi32), t1, xr)
	if lo != "" {
		g.ins("VADDPS %s, %s, %s", lo, xr, xr)
	}
	g.ins("VFNMADD231PS.BCST %s, %s, %s", g.f("ln2lo", ln2Lo32), t1, xr)
	g.horner("expq", expQ, xr, t2)
	g.ins("VFMADD213PS.BCST %s, %s, %s", g.f("one", 1), xr, t2)
	if scale {
		g.ins("VSCALEFPS %s, %s, %s", t1, t2, xr)
	} else {
		g.ins("VMOVAPS %s, %s", t2, xr)
	}
}

// recip512 sets q = num/d without VDIVPS: VRCP14PS
// (relative error < 2^-14), one Newton step on the reciprocal r, q0 = num*r,
// and one correction of q0 by the residual num - q0*d, which leaves q within
// about half an ulp plus 2^-27 relative of the quotient. Clobbers r, t.
// The residual uses dlo, if given, as a low part of the divisor (d+dlo).
func (g *gen) recip512(q, num, d, dlo, r, t string) {
	g.ins("VRCP14PS %s, %s", d, r)
	g.ins("VBROADCASTSS %s, %s", g.f("one", 1), t)
	g.ins("VFNMADD231PS %s, %s, %s", r, d, t)
	g.ins("VFMADD231PS %s, %s, %s", t, r, r) // r += r*(1-d*r)
	g.ins("VMULPS %s, %s, %s", r, num, q)
	g.ins("VMOVAPS %s, %s", num, t)
	g.ins("VFNMADD231PS %s, %s, %s", q, d, t)
	if dlo != "" {
		g.ins("VFNMADD231PS %s, %s, %s", q, dlo, t)
	}
	g.ins("VFMADD231PS %s, %s, %s", t, r, q)
}

// shiftRegs renames, in the assembly text of one transcendental body, the
// working registers X/Y/Z 0 to below-1 to by registers higher and the mask
// K2 to K3, leaving the loop constants (registers from below on) and K1
// alone, so a second copy of the body runs on independent registers. A
// body's other masks (K5, short-lived in each slot) are not renamed;
// none may use K3.
func shiftRegs(text string, below, by int) string {
	re := regexp.MustCompile(`\b([XYZ])([0-9]+)\b|\bK2\b`)
	return re.ReplaceAllStringFunc(text, func(m string) string {
		if m == "K2" {
			return "K3"
		}
		n, _ := strconv.Atoi(m[1:])
		if n >= below {
			return m
		}
		return fmt.Sprintf("%c%d", m[0], n+by)
	})
}

// twoSlots returns the ewKernel fields that run body twice per iteration
// on one input each: slot 0 on registers 0 to below-1, slot 1 on the same
// registers moved up by by (input register by), for unroll 2.
func twoSlots(k ewKernel, reg func(int) string, below, by int, body func(g *gen)) ewKernel {
	k.unroll = 2
	k.slotReg = func(u, i int) string { return reg(by * u) }
	k.body = func(g *gen, u int, in []string) string {
		start := g.s.Len()
		body(g)
		if u == 1 {
			text := shiftRegs(g.s.String()[start:], below, by)
			g.s.Truncate(start)
			g.s.WriteString(text)
		}
		return reg(by * u)
	}
	return k
}

func (g *gen) transcendentals512() {
	e := f32
	absMask := func() string { return g.fb("absmask", 0x7fffffff) }
	signMask := func() string { return g.fb("signmask", 0x80000000) }
	one := func() string { return g.f("one", 1) }
	two := func() string { return g.f("two", 2) }
	bcast := func(c, r string) { g.ins("VBROADCASTSS %s, %s", c, r) }
	un := func(name, doc string, setup func(g *gen), body func(g *gen)) {
		// Two vectors per iteration: slot 1 runs the same body with every
		// working register (Z0-Z12) moved up by 16. The same kernel is
		// emitted on float32 storage and, widening and narrowing each
		// vector, on bfloat16 and binary16 storage.
		for _, h := range []halfSrc{noHalf, srcBF16, srcF16} {
			kname, kdoc := name+"F32AVX512", doc
			if h != noHalf {
				kname = name + string(h) + "AVX512"
				kdoc = strings.TrimSuffix(doc, " for i < n.") + fmt.Sprintf(" on %s values, computed in float32 and rounded once, for i < n, a multiple of 16.", halfNames[h])
			}
			g.elementwise(twoSlots(ewKernel{name: kname, doc: kdoc, e: e, inputs: []string{"x"}, z: true, half: h,
				setup: func(g *gen) {
					bcast(g.f("shifter", 0x1.8p23), "Z31")
					if setup != nil {
						setup(g)
					}
				}}, z, 13, 16, body))
		}
	}

	un("exp", "computes dst[i] = e**x[i] for i < n.", func(g *gen) {
		bcast(g.f("c89", 89), "Z13")
		bcast(g.f("cm104", -104), "Z14")
	}, func(g *gen) {
		g.ins("VMINPS Z0, Z13, Z0")
		g.ins("VMAXPS Z0, Z14, Z0")
		g.expCore512("Z0", "", "Z1", "Z2", true)
	})

	un("exp2", "computes dst[i] = 2**x[i] for i < n.", func(g *gen) {
		bcast(g.f("c129", 129), "Z13")
		bcast(g.f("cm151", -151), "Z14")
	}, func(g *gen) {
		g.comment("clamp to [-151, 129] (x the second source, so NaN passes): beyond,")
		g.comment("2^x rounds to 0 or +Inf, and so does the clamped value")
		g.ins("VMINPS Z0, Z13, Z0")
		g.ins("VMAXPS Z0, Z14, Z0")
		g.comment("n = round(x) by the shifter, r = x - n exactly (|r| <= 1/2)")
		g.ins("VADDPS Z31, Z0, Z3")
		g.ins("VSUBPS Z31, Z3, Z3")
		g.ins("VSUBPS Z3, Z0, Z0")
		g.comment("2^r = 1 + r*q(r), then 2^n by VSCALEFPS (one rounding where the result is subnormal)")
		g.horner("exp2q", exp2Q, "Z0", "Z1")
		g.ins("VFMADD213PS.BCST %s, Z0, Z1", g.f("one", 1))
		g.ins("VSCALEFPS Z3, Z1, Z0")
	})

	for _, lb := range logBases {
		un(lb.name, lb.doc, nil, func(g *gen) { g.logBody(tierAVX512, lb) })
	}
	un("expm1", "computes dst[i] = e**x[i] - 1 for i < n.", nil, func(g *gen) { g.expm1Body(tierAVX512) })

	un("tanh", "computes dst[i] = tanh(x[i]) for i < n.", func(g *gen) {
		bcast(g.f("c20", 20), "Z13")
	}, func(g *gen) {
		small, join, sign := g.uniq("small"), g.uniq("join"), g.uniq("sign")
		// |x| < 0.625 exactly when x^2 < 0.390625 (= 0.625^2): the
		// largest float32 below 0.625 squares, rounded, to 2.5 ulp below
		// it, and NaN compares false. The square is the polynomial's
		// argument, so a vector whose lanes are all small (the common case
		// in a chain of activations) costs 9 vector operations: no |x|,
		// no blend.
		g.ins("VMULPS Z0, Z0, Z8")
		g.comment("each branch runs only when some lane needs it (K2: lanes below 0.625)")
		g.ins("VCMPPS.BCST $1, %s, Z8, K2", g.f("c0390625", 0.390625))
		g.ins("KORTESTW K2, K2")
		g.ins("JCS  %s", small)
		g.comment("|x| >= 0.625: 1 - 2/(e^(2|x|)+1)")
		g.ins("VPANDD.BCST %s, Z0, Z1", absMask())
		g.ins("VADDPS Z1, Z1, Z2")
		g.ins("VMINPS Z2, Z13, Z2")
		g.expCore512("Z2", "", "Z3", "Z4", true)
		g.ins("VADDPS.BCST %s, Z2, Z2", one())
		bcast(two(), "Z3")
		g.ins("VDIVPS Z2, Z3, Z3")
		bcast(one(), "Z2")
		g.ins("VSUBPS Z3, Z2, Z2")
		g.ins("KORTESTW K2, K2")
		g.ins("JEQ  %s", join)
		g.comment("the small lanes of a mixed vector")
		g.horner("tanhp", tanhP, "Z8", "Z5")
		g.ins("VMULPS Z0, Z8, Z8")
		g.ins("VFMADD213PS Z0, Z8, Z5")
		g.ins("VMOVAPS Z5, K2, Z2")
		g.label(join)
		g.ins("VMOVAPS Z2, Z5")
		g.ins("JMP  %s", sign)
		g.label(small)
		g.comment("|x| < 0.625: x + x^3 P(x^2), the bits of |x| + |x|^3 P(x^2) with x's sign, as")
		g.comment("rounding is symmetric, but for x = -0, where the sum is +0: the sign is copied below")
		g.horner("tanhp", tanhP, "Z8", "Z5")
		g.ins("VMULPS Z0, Z8, Z8")
		g.ins("VFMADD213PS Z0, Z8, Z5")
		g.label(sign)
		g.comment("x's sign onto the result's magnitude: a bit select on the sign mask")
		g.ins("VPTERNLOGD.BCST $0xe4, %s, Z5, Z0", signMask())
	})

	un("sigmoid", "computes dst[i] = 1/(1+e**-x[i]) for i < n.", func(g *gen) {
		bcast(g.f("cm104", -104), "Z14")
	}, func(g *gen) {
		g.comment("e = exp(-|x|); x >= 0: 1/(1+e), x < 0: e/(1+e)")
		g.ins("VPORD.BCST %s, Z0, Z1", signMask())
		g.ins("VMAXPS Z1, Z14, Z1")
		g.expCore512("Z1", "", "Z2", "Z3", true)
		g.comment("1+e = s+lo exactly; q = num/(s+lo) by reciprocal and residual")
		g.onePlusExact(true, "Z1", "Z2", "Z4", "Z3")
		g.ins("VPMOVD2M Z0, K2")
		g.ins("VMOVAPS Z1, K2, Z3")
		g.recip512("Z0", "Z3", "Z2", "Z4", "Z5", "Z6")
	})

	un("silu", "computes dst[i] = x[i]*sigmoid(x[i]) for i < n.", func(g *gen) {
		bcast(g.f("cm120", -120), "Z14")
	}, func(g *gen) {
		g.comment("silu = x*sigmoid(x), x clamped at -120 (below, x*e^x rounds to -0; NaN passes):")
		g.comment("e = exp(-|x|) = p*2^n; x >= 0: x/(1+e); x < 0: (x*(p/(1+e)))*2^n")
		g.ins("VMAXPS Z0, Z14, Z0")
		g.ins("VPORD.BCST %s, Z0, Z1", signMask())
		g.ins("VMAXPS Z1, Z14, Z1")
		g.expCore512("Z1", "", "Z6", "Z2", false)
		g.gatedBySigmoid512("Z1")
	})

	un("geluTanh", "computes dst[i] = 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))), x = x[i], for i < n.", func(g *gen) {
		bcast(g.f("c12", 12), "Z13")
		bcast(g.f("cm12", -12), "Z14")
	}, func(g *gen) {
		g.comment("gelu = x*sigmoid(v), v = x*(c1 + c2*x^2); v and its reduction in float64")
		g.ins("VMAXPS Z0, Z14, Z0")
		g.ins("VMINPS Z0, Z13, Z1")
		g.ins("VCVTPS2PD Y1, Z2")
		g.ins("VEXTRACTF32X8 $1, Z1, Y3")
		g.ins("VCVTPS2PD Y3, Z3")
		c1 := 2 * math.Sqrt(2/math.Pi)
		for h, n := range []int{2, 3} {
			hr := z(n)
			g.ins("VMULPD %s, %s, Z4", hr, hr)
			g.ins("VBROADCASTSD %s, Z5", g.d("gc2", c1*0.044715))
			g.ins("VFMADD213PD.BCST %s, Z4, Z5", g.d("gc1", c1))
			g.ins("VMULPD Z5, %s, %s", hr, hr)
			g.ins("VPORQ.BCST %s, %s, %s", g.v64("signmask64", 1<<63), hr, hr)
			g.ins("VMULPD.BCST %s, %s, Z4", g.d("log2e64", math.Log2E), hr)
			g.ins("VRNDSCALEPD $0, Z4, Z4")
			g.ins("VFNMADD231PD.BCST %s, Z4, %s", g.d("ln2hi64", ln2Hi64), hr)
			g.ins("VFNMADD231PD.BCST %s, Z4, %s", g.d("ln2lo64", ln2Lo64), hr)
			g.ins("VCVTPD2PS %s, %s", hr, y(n))
			g.ins("VCVTPD2PS Z4, %s", y(6+h))
		}
		g.ins("VINSERTF32X8 $1, Y3, Z2, Z2")
		g.ins("VINSERTF32X8 $1, Y7, Z6, Z6")
		g.comment("p = e^r (Z3), e = p*2^n = e^-|v| (Z4)")
		g.horner("expq", expQ, "Z2", "Z3")
		g.ins("VFMADD213PS.BCST %s, Z2, Z3", one())
		g.gatedBySigmoid512("Z3")
	})

	un("geluErf", "computes dst[i] = 0.5x(1+erf(x/sqrt(2))), x = x[i], for i < n.", func(g *gen) {
		bcast(g.f("c16", 16), "Z13")
		bcast(g.f("cm16", -16), "Z14")
	}, func(g *gen) {
		g.comment("gelu = 0.5x*erfc(-x/sqrt2); E = erfc(|x|/sqrt2) = t*exp(-x^2/2 + Q(t)),")
		g.comment("t = c/(c+|x|) with c = float32(2*sqrt2), refined by one Newton step")
		g.ins("VMAXPS Z0, Z14, Z0")
		g.ins("VMINPS Z0, Z13, Z1")
		g.ins("VMULPS Z1, Z1, Z2")
		g.ins("VMOVAPS Z2, Z3")
		g.ins("VFMSUB231PS Z1, Z1, Z3")
		g.ins("VMULPS.BCST %s, Z2, Z2", g.f("mhalf", -0.5))
		g.ins("VPANDD.BCST %s, Z1, Z4", absMask())
		bcast(g.f("cgelu", geluC), "Z5")
		g.ins("VMAXPS Z4, Z5, Z6")
		g.ins("VMINPS Z4, Z5, Z7")
		g.ins("VADDPS Z4, Z5, Z5")
		g.ins("VSUBPS Z6, Z5, Z6")
		g.ins("VSUBPS Z6, Z7, Z7")
		bcast(g.f("cgelu", geluC), "Z6")
		g.ins("VDIVPS Z5, Z6, Z6")
		bcast(g.f("cgelu", geluC), "Z8")
		g.ins("VFNMADD231PS Z6, Z5, Z8")
		g.ins("VFNMADD231PS Z6, Z7, Z8")
		g.ins("VMULPS.BCST %s, Z8, Z8", g.f("rcgelu", 1/geluC))
		g.ins("VFMADD231PS Z8, Z6, Z6")
		g.ins("VSUBPS.BCST %s, Z6, Z4", g.f("qctr", erfcCenter))
		g.horner("geluq", geluQ, "Z4", "Z5")
		g.ins("VFMADD231PS.BCST %s, Z3, Z5", g.f("mhalf", -0.5))
		g.expCore512("Z2", "Z5", "Z3", "Z4", false)
		g.comment("E' = t*p, E = E'*2^n; x >= 0: x*(1-E/2); x < 0: ((x/2)*E')*2^n")
		g.ins("VMULPS Z6, Z2, Z2")
		g.ins("VSCALEFPS Z3, Z2, Z4")
		g.ins("VMULPS.BCST %s, Z4, Z4", g.f("half", 0.5))
		bcast(one(), "Z5")
		g.ins("VSUBPS Z4, Z5, Z5")
		g.ins("VMULPS Z0, Z5, Z5")
		g.ins("VMULPS.BCST %s, Z0, Z4", g.f("half", 0.5))
		g.ins("VMULPS Z2, Z4, Z4")
		g.ins("VSCALEFPS Z3, Z4, Z4")
		g.ins("VPMOVD2M Z0, K2")
		g.ins("VMOVAPS Z4, K2, Z5")
		g.ins("VMOVAPS Z5, Z0")
	})

	un("erf", "computes dst[i] = erf(x[i]) for i < n.", func(g *gen) {
		bcast(g.f("c10", 10), "Z13")
	}, func(g *gen) {
		g.ins("VPANDD.BCST %s, Z0, Z1", absMask())
		g.ins("VPANDD.BCST %s, Z0, Z7", signMask())
		g.ins("VMINPS Z1, Z13, Z1")
		g.ins("VMULPS Z1, Z1, Z2")
		g.comment("|x| < 0.875: a + a*P(a^2)")
		g.horner("erfp", erfP, "Z2", "Z3")
		g.ins("VFMADD213PS Z1, Z1, Z3")
		g.comment("otherwise 1 - t*exp(-a^2 + Q(t)), t = 2/(2+a), a^2 carried as hi+lo")
		g.ins("VMOVAPS Z2, Z4")
		g.ins("VFMSUB231PS Z1, Z1, Z4")
		g.ins("VADDPS.BCST %s, Z1, Z5", g.f("two", 2))
		bcast(g.f("two", 2), "Z6")
		g.ins("VDIVPS Z5, Z6, Z5")
		g.ins("VSUBPS.BCST %s, Z5, Z6", g.f("qctr", erfcCenter))
		g.horner("erfcq", erfcQ, "Z6", "Z8")
		g.ins("VSUBPS Z4, Z8, Z8")
		g.ins("VPXORD.BCST %s, Z2, Z2", signMask())
		g.expCore512("Z2", "Z8", "Z4", "Z6", true)
		g.ins("VMULPS Z5, Z2, Z2")
		bcast(one(), "Z4")
		g.ins("VSUBPS Z2, Z4, Z4")
		g.ins("VCMPPS.BCST $1, %s, Z1, K2", g.f("c0875", 0.875))
		g.ins("VMOVAPS Z3, K2, Z4")
		g.ins("VPORD Z7, Z4, Z0")
	})
}

// ---- float64 exp, log, tanh and sigmoid, AVX-512 ----
//
// Eight float64 lanes per vector, two vectors per iteration (twoSlots), the
// tail masked with K1; constants are broadcast from the shared table. The
// exp polynomial is a truncated Taylor series (coefficients 1/k! rounded
// once, expCoeffs64), log's a fitted log1p beside 32-entry tables
// (logTabCoeffs64, logTables64); both truncation errors are below 0.05
// ulp. Exp reduces by ln2/16 and multiplies by 2^(j/16) from a 16-entry
// table kept in two pairs of registers (VPERMI2PD), which halves its
// polynomial; log splits m in [0.75, 1.5) into 32 bins, half of each
// table in registers and half read from memory by the same VPERMI2PD.
// Sigmoid is the exp core (expCore512F64) on -|x|, its result kept as
// hi+lo, and a division corrected by its residual; Tanh the same core on
// 2|x| above |x| = 0.25 and a fitted odd polynomial (tanhCoeffs64) below.

// expTab is the number of entries of the exp kernel's table of 2^(j/expTab).
const expTab = 16

// expCoeffs64 is P with e^r = 1 + r + r^2*P(r): P's coefficient k is
// 1/(k+2)!, up to r^5 (the series truncated after r^7, whose first
// omitted term is below 1.3e-18 for |r| <= ln2/32).
func expCoeffs64() []float64 {
	c := make([]float64, 6)
	fact := 1.0
	for k := 1; k <= 7; k++ {
		fact *= float64(k) // exact
		if k >= 2 {
			c[k-2] = 1 / fact
		}
	}
	return c
}

// exp2Table returns 2^(j/expTab) for j < expTab as hi + lo: hi rounded to
// float64, lo the rest rounded (computed with math/big to 300 bits).
func exp2Table() (hi, lo []uint64) {
	const prec = 300
	root := new(big.Float).SetPrec(prec).SetInt64(2)
	for k := expTab; k > 1; k /= 2 {
		root.Sqrt(root)
	}
	v := new(big.Float).SetPrec(prec).SetInt64(1)
	for range expTab {
		h, _ := v.Float64()
		l, _ := new(big.Float).SetPrec(prec).Sub(v, big.NewFloat(h)).Float64()
		hi, lo = append(hi, math.Float64bits(h)), append(lo, math.Float64bits(l))
		v.Mul(v, root)
	}
	return hi, lo
}

// table registers a constant holding the 64-bit patterns bits in order
// and returns its symbol (without (SB), for offsets).
func (g *gen) table(name string, bits []uint64) string {
	sym := name + "<>"
	if _, ok := g.consts[sym]; !ok {
		var d []string
		for i, b := range bits {
			d = append(d, fmt.Sprintf("DATA %s+%d(SB)/8, $0x%016x", sym, 8*i, b))
		}
		d = append(d, fmt.Sprintf("GLOBL %s(SB), RODATA|NOPTR, $%d", sym, 8*len(bits)))
		g.consts[sym] = d
	}
	return sym
}

// logTabCoeffs64 is Q with log1p(r) = r + r^2*Q(r) for r in [-0.0205,
// 1/32] (the range logTables64 leaves): Q(r) = -1/2 + r/3 + r^2*H(r), H's
// six coefficients fitted by `go run fitcoeffs.go logtab64`; the fit's
// error is below 0.04*2^-53 relative to log1p(r) (the Taylor series would
// need eleven more terms).
func logTabCoeffs64() []float64 {
	return append([]float64{-0.5, 1.0 / 3}, fromBits(0xbfcfffffffff4f4f, 0x3fc9999998781c51, 0xbfc555555bcc790a,
		0x3fc2493dee46e406, 0xbfc00152e328ad99, 0x3fbb5cac5ec66175)...)
}

// logTabRegs holds, for each of the log kernel's tables (invc, Thi, Tlo),
// the registers with its entries 0-7 and 16-23; slot 1 of the kernel
// works in Z16-Z26, below Z29.
var logTabRegs = [3][2]string{{"Z13", "Z14"}, {"Z15", "Z29"}, {"Z30", "Z31"}}

// logRMin and logRMax bound r = m*invc[j] - 1 over every bin j: the range
// logTabCoeffs64 is fitted on.
const logRMin, logRMax = -0.0205078125, 1.0 / 32

// logTables64 registers the float64 log kernel's three 32-entry tables and
// returns their symbols: invc, Thi and Tlo. Bin j covers m in [1+j/32,
// 1+(j+1)/32) for j < 16 and [(1+j/32)/2, (1+(j+1)/32)/2) (m < 1) above.
// invc[j] is near 1/m over the bin, a multiple of 2^-6 (j < 16) or 2^-5, so
// that r = m*invc - 1 is exact: m*invc is a multiple of 2^-58 and |r| < 2^-5;
// the two bins beside 1 take invc = 1, so that near x = 1 the result is
// log1p(r) alone. Thi + Tlo = -log(invc), plus ln2 for j >= 16 (where the
// kernel's exponent is one short); Thi is on the 2^-43 grid, so k*ln2Hi64
// + Thi is exact for every exponent k. It checks each property it relies on
// and stops the generator if one fails.
func logTables64(g *gen) [3]string {
	invc, thi, tlo := logTableBits()
	return [3]string{g.table("dloginvc", invc), g.table("dlogthi", thi), g.table("dlogtlo", tlo)}
}

// logTableBits computes logTables64's three tables, as bit patterns.
func logTableBits() (invc, thi, tlo []uint64) {
	const prec = 300
	newF := func() *big.Float { return new(big.Float).SetPrec(prec) }
	ln2 := bigmath.Ln2
	ln2hi := newF().SetFloat64(ln2Hi64)
	for j := range 32 {
		a, width, q := 1+float64(j)/32, 1.0/32, 6 // m's bin [a, a+width), invc's grid 2^-q
		if j >= 16 {
			a, width, q = (1+float64(j)/32)/2, 1.0/64, 5
		}
		span := func(c float64) (float64, float64) { return a*c - 1, (a+width)*c - 1 } // exact: few bits
		c := 1.0
		if j != 0 && j != 31 {
			best := math.Inf(1)
			for k := 1; k < 1<<(q+1); k++ {
				ck := float64(k) / float64(int(1)<<q)
				if lo, hi := span(ck); math.Max(-lo, hi) < best {
					best, c = math.Max(-lo, hi), ck
				}
			}
		}
		rlo, rhi := span(c)
		if rlo < logRMin || rhi > logRMax || (j != 0 && math.Max(-rlo, rhi) >= 0x1p-5) {
			log.Fatalf("log table: bin %d: r in [%g, %g]", j, rlo, rhi)
		}
		// -log(c) = 2*atanh(s), s = (1-c)/(1+c), by its series
		s := newF().Quo(newF().SetFloat64(1-c), newF().SetFloat64(1+c))
		s2 := newF().Mul(s, s)
		t, pow := newF(), newF().Set(s)
		for i := int64(0); pow.Sign() != 0 && pow.MantExp(nil) > -prec; i++ {
			t.Add(t, newF().Quo(pow, newF().SetInt64(2*i+1)))
			pow.Mul(pow, s2)
		}
		t.Mul(t, newF().SetInt64(2))
		// Thi: -log(c) rounded to the 2^-43 grid (+ln2hi); Tlo the rest
		th, _ := newF().SetMantExp(t, 43).Float64()
		th = math.Round(th)
		h := newF().SetMantExp(newF().SetFloat64(th), -43)
		rest := newF().Sub(t, h)
		if j >= 16 {
			h.Add(h, ln2hi)
			rest.Add(rest, newF().Sub(ln2, ln2hi))
		}
		hf, acc := h.Float64()
		if acc != big.Exact {
			log.Fatalf("log table: bin %d: Thi inexact", j)
		}
		lf, _ := rest.Float64()
		if th != 0 && math.Abs(th)*0x1p-43 < math.Max(-rlo, rhi) {
			log.Fatalf("log table: bin %d: |Thi| below |r|, Fast2Sum fails", j)
		}
		invc, thi, tlo = append(invc, math.Float64bits(c)), append(thi, math.Float64bits(hf)), append(tlo, math.Float64bits(lf))
	}
	return invc, thi, tlo
}

// logFixup is log's VFIXUPIMMPD table: one 4-bit token per class of x
// (QNaN, SNaN, ±0, +1, -Inf, +Inf, negative, positive, from bit 0), where
// 0 keeps the computed result, 2 is x quieted, 3 the default NaN, 4 -Inf
// and 5 +Inf.
const logFixup = 2 | 2<<4 | 4<<8 | 0<<12 | 3<<16 | 5<<20 | 3<<24 | 0<<28

// hornerPD emits acc = P(u) for float64 coefficients c (lowest order
// first) on zmm registers, named name0, name1, ... in the constant table.
func (g *gen) hornerPD(name string, c []float64, u, acc string) {
	g.hornerPDOn(tierAVX512, name, c, u, acc)
}

// hornerPDOn is hornerPD on tier t's registers: broadcast coefficients on
// zmm, whole 32-byte constants on ymm.
func (g *gen) hornerPDOn(t tier, name string, c []float64, u, acc string) {
	n := len(c) - 1
	coef := func(k int) string { return g.d(fmt.Sprintf("%s%d", name, k), c[k]) }
	if t.z {
		g.ins("VBROADCASTSD %s, %s", coef(n), acc)
	} else {
		g.ins("VMOVUPD %s, %s", coef(n), acc)
	}
	for k := n - 1; k >= 0; k-- {
		if t.z {
			g.ins("VFMADD213PD.BCST %s, %s, %s", coef(k), u, acc)
		} else {
			g.ins("VFMADD213PD %s, %s, %s", coef(k), u, acc)
		}
	}
}

// estrinPDOn evaluates sum c[k] u^k into acc on tier t's float64
// registers in pairs: q_i = c[2i] + c[2i+1]*u, each independent of the
// others, summed by Horner's rule in u^2 (u2 and tmp scratch), so the
// dependent chain is about half of hornerPDOn's. The pairs are built in
// tmp one at a time; the core's reordering overlaps them with the chain.
func (g *gen) estrinPDOn(t tier, name string, c []float64, u, acc, u2, tmp string) {
	coef := func(k int) string { return g.d(fmt.Sprintf("%s%d", name, k), c[k]) }
	// pair sets dst = c[i] + c[i+1]*u (or c[i] alone past the end).
	pair := func(i int, dst string) {
		g.loadPD(t, coef(i), dst)
		if i+1 < len(c) {
			g.withConst(t, "VFMADD231PD", coef(i+1), u+", "+dst)
		}
	}
	g.ins("VMULPD %s, %s, %s", u, u, u2)
	last := (len(c) - 1) / 2 * 2
	pair(last, acc)
	for i := last - 2; i >= 0; i -= 2 {
		pair(i, tmp)
		g.ins("VFMADD213PD %s, %s, %s", tmp, u2, acc)
	}
}

// tanhCoeffs64 is P with tanh a = a + a^3*P(a^2) for |a| < 0.25, fitted by
// `go run fitcoeffs.go tanh64` (degree 7 in a^2; the fit's error is below
// 2^-58 relative to the result).
func tanhCoeffs64() []float64 {
	return fromBits(0xbfd555555555555c, 0x3fc1111111111bf6, 0xbfaba1ba1baaae41, 0x3f9664f487d70ac2,
		0xbf8226e212b45fa5, 0x3f6d6c72f3b6f756, 0xbf57bd286551d17b, 0x3f414339d277339a)
}

// arcOps64 lists the float64 Asin, Acos and Atan kernels, which both
// tiers have (arcs64).
var arcOps64 = [][2]string{{"asin", "unAsin"}, {"acos", "unAcos"}, {"atan", "unAtan"}}

// unOps64 lists the float64 unary kernels only the AVX-512 tier has
// besides the exact ones, arcOps64 and the trig64 kernels (the AVX2 tier
// takes the generic set's for these).
var unOps64 = [][2]string{{"exp", "unExp"}, {"exp2", "unExp2"}, {"expm1", "unExpm1"}, {"sinh", "unSinh"}, {"cosh", "unCosh"}, {"log", "unLog"}, {"log2", "unLog2"}, {"log10", "unLog10"}, {"log1p", "unLog1p"}, {"tanh", "unTanh"}, {"sigmoid", "unSigmoid"}, {"geluTanh", "unGeluTanh"}, {"erf", "unErf"}}

// geluTanhCoeffs returns c1 = 2*sqrt(2/pi) and c2 = 0.044715*c1, each as
// a float64 pair hi+lo (the sum within 2^-106 relative), computed in
// 300-bit arithmetic, for the AVX-512 kernel and (through geluconst.go)
// the generic geluTanh64.
func geluTanhCoeffs() (c1, c2 [2]float64) {
	const prec = 300
	two := new(big.Float).SetPrec(prec).SetInt64(2)
	b1 := new(big.Float).SetPrec(prec).Quo(two, bigmath.Pi)
	b1.Sqrt(b1).Mul(b1, two)
	k, _, _ := big.ParseFloat("0.044715", 10, prec, big.ToNearestEven)
	b2 := new(big.Float).SetPrec(prec).Mul(b1, k)
	return bigSplit(b1), bigSplit(b2)
}

// expSetup512F64 loads the constants of expCore512F64: Z13-Z15 and the
// 2^(j/16) tables in Z27-Z30.
func (g *gen) expSetup512F64() {
	g.expSetupClamp512F64(g.d("d710", 710), g.d("dm746", -746))
}

// exp2Setup512F64 is expSetup512F64 for Exp2: the clamp is [-1080, 1025],
// past which 2^x rounds to 0 or +Inf.
func (g *gen) exp2Setup512F64() {
	g.expSetupClamp512F64(g.d("d1025", 1025), g.d("dm1080", -1080))
}

// expSetupClamp512F64 loads the exp core's constants: the clamp's upper
// and lower ends (Z13, Z14), the shifter (Z15) and the 2^(j/16) tables
// (Z27-Z30).
func (g *gen) expSetupClamp512F64(top, bottom string) {
	bcast := func(c, r string) { g.ins("VBROADCASTSD %s, %s", c, r) }
	bcast(top, "Z13")
	bcast(bottom, "Z14")
	bcast(g.d("shifter64", 0x1.8p52), "Z15")
	hi, lo := exp2Table()
	th, tl := g.table("dexp2hi", hi), g.table("dexp2lo", lo)
	g.ins("VMOVUPD %s+0(SB), Z27", th)
	g.ins("VMOVUPD %s+64(SB), Z28", th)
	g.ins("VMOVUPD %s+0(SB), Z29", tl)
	g.ins("VMOVUPD %s+64(SB), Z30", tl)
}

// expLo is what expCore512F64 keeps of its result's rounding error.
type expLo int

const (
	expNoLo       expLo = iota // nothing
	expLoScaled                // Z6, scaled by 2^n as the result is
	expLoUnscaled              // Z6 unscaled, beside the unscaled result (Z5) and n (Z2)
	expSplit                   // no sum: Thi (Z5) and Thi*q + Tlo (Z1) unscaled, n in Z2
)

// expCore512F64 sets Z0 = e^Z0, clobbering Z1-Z6; the float64 Exp,
// Sigmoid, Tanh and GeluTanh kernels share it. With lo, Z6 holds what the
// rounding of the sum Thi + (Thi*q + Tlo) lost, so Z0+Z6 carries that sum
// exactly (e^x to within its truncation and reduction errors, about 2^-58
// relative, where the result is normal). With expLoUnscaled, Z5 and Z6
// hold the sum and its error before the scaling by 2^n, n in Z2, so that
// a caller can scale last and round a tiny result once.
func (g *gen) expCore512F64(lo expLo) {
	// Working registers Z0-Z6 only: slot 1's (Z16-Z22) stay below the
	// tables in Z27-Z30.
	g.expCore512F64Reduce()
	g.expTail512F64(lo)
}

// expCore512F64Reduce is expCore512F64's clamp and reduction: r in Z0, the
// shifted k in Z1 (j in its low bits), k/16 in Z2.
func (g *gen) expCore512F64Reduce() {
	g.comment("clamp to [Z14, Z13] = [-746, 710] (GeluTanh: [-760, 710]; x the second source, so NaN passes): beyond, e^x")
	g.comment("rounds to 0 or +Inf, and so does the clamped value through VSCALEFPD")
	g.ins("VMINPD Z0, Z13, Z0")
	g.ins("VMAXPD Z0, Z14, Z0")
	g.comment("k = round(x*16/ln2) by the 1.5*2^52 shifter, whose low four bits are")
	g.comment("j = k mod 16; r = x - k*ln2/16 in two parts (|r| <= ln2/32)")
	g.ins("VMOVAPD Z15, Z1")
	g.ins("VFMADD231PD.BCST %s, Z0, Z1", g.d("log2e16", expTab*math.Log2E))
	g.ins("VSUBPD Z15, Z1, Z2")
	g.ins("VFNMADD231PD.BCST %s, Z2, Z0", g.d("ln2hi16", ln2Hi64/expTab))
	g.ins("VFNMADD231PD.BCST %s, Z2, Z0", g.d("ln2lo16", ln2Lo64/expTab))
	g.ins("VMULPD.BCST %s, Z2, Z2", g.d("d1by16", 1.0/expTab))
}

// exp2Core512F64 sets Z0 = 2^Z0 as expCore512F64 sets e^x (clamped to
// exp2Setup512F64's range): k = round(16x), r = (x - k/16)*ln2 (the
// difference exact, |r| <= ln2/32, the product rounded once: 2^-58 of the
// result at most), then expTail512F64. Clobbers Z1-Z6.
func (g *gen) exp2Core512F64() {
	g.comment("clamp to [Z14, Z13] = [-1080, 1025] (x the second source, so NaN passes)")
	g.ins("VMINPD Z0, Z13, Z0")
	g.ins("VMAXPD Z0, Z14, Z0")
	g.comment("k = round(16x) by the shifter (16x exact), j = k mod 16 in its low bits;")
	g.comment("r = (x - k/16)*ln2, the difference exact")
	g.ins("VMOVAPD Z15, Z1")
	g.ins("VFMADD231PD.BCST %s, Z0, Z1", g.d("d16", expTab))
	g.ins("VSUBPD Z15, Z1, Z2")
	g.ins("VMULPD.BCST %s, Z2, Z2", g.d("d1by16", 1.0/expTab))
	g.ins("VSUBPD Z2, Z0, Z0")
	g.ins("VMULPD.BCST %s, Z0, Z0", g.d("dln2", math.Ln2))
	g.expTail512F64(expNoLo)
}

// expTail512F64 finishes expCore512F64 from r (Z0), the shifted k (Z1,
// j in its low bits) and k/16 (Z2).
func (g *gen) expTail512F64(lo expLo) {
	g.expTail512F64From(lo, func(g *gen) {
		g.comment("T = 2^(j/16) = Thi + Tlo from the tables in Z27-Z30")
		g.ins("VPERMI2PD Z28, Z27, Z5")
		g.ins("VPERMI2PD Z30, Z29, Z1")
	})
}

// expTail512F64From is expTail512F64 with the table lookups emitted by
// lookup, which sets Z5 = Thi[j] and Z1 = Tlo[j] from the index j in both
// (Z6 is free to it): the exp core's tables in Z27-Z30, or the Pow
// kernels', which read them from memory.
func (g *gen) expTail512F64From(lo expLo, lookup func(g *gen)) {
	g.comment("q = e^r - 1 = r + r^2*P(r)")
	g.hornerPD("dexpp", expCoeffs64(), "Z0", "Z3")
	g.ins("VMULPD Z0, Z0, Z4")
	g.ins("VFMADD213PD Z0, Z4, Z3")
	g.ins("VMOVAPD Z1, Z5")
	lookup(g)
	g.comment("T*e^r = Thi + (Thi*q + Tlo)")
	g.ins("VFMADD231PD Z3, Z5, Z1")
	if lo == expSplit {
		return
	}
	if lo != expNoLo {
		g.ins("VMOVAPD Z5, Z6")
	}
	g.ins("VADDPD Z1, Z5, Z5")
	if lo != expNoLo {
		g.comment("the sum's rounding error (Fast2Sum: |Thi| >= |Thi*q + Tlo|)")
		g.ins("VSUBPD Z5, Z6, Z6")
		g.ins("VADDPD Z1, Z6, Z6")
	}
	if lo == expLoScaled {
		g.ins("VSCALEFPD Z2, Z6, Z6")
	}
	g.comment("* 2^floor(k/16), rounded once (overflow to +Inf, subnormal results)")
	g.ins("VSCALEFPD Z2, Z5, Z0")
}

// tanhLarge emits tanh's side from |x| = 0.25 on, on tier t, from E =
// e^(2a) as hi (register 0) + lo (register 6): d = E+1 and dlo by
// Fast2Sum, 2/(d + dlo) = qh + ql with qh = 2/d and ql = (2 - qh*d -
// qh*dlo)*(1/d) (VRCP14PD; rcpAVX2 on ymm), then 1 - qh - ql with 1 - qh's
// error by Fast2Sum, the magnitude into register 2; registers 1-5 scratch.
func (g *gen) tanhLarge(t tier) {
	R := t.reg
	one := g.d("done", 1)
	g.comment("d = E+1 rounded, dlo = (E-d)+1+lo (Fast2Sum, E > 1)")
	g.withConst(t, "VADDPD", one, R(0)+", "+R(1))
	g.ins("VSUBPD %s, %s, %s", R(1), R(0), R(2))
	g.withConst(t, "VADDPD", one, R(2)+", "+R(2))
	g.ins("VADDPD %s, %s, %s", R(6), R(2), R(2))
	g.comment("2/(d+dlo) = qh + ql: qh = 2/d, ql = (2 - qh*d - qh*dlo) * 1/d")
	g.loadPD(t, g.d("dtwo", 2), R(3))
	g.ins("VDIVPD %s, %s, %s", R(1), R(3), R(4))
	g.ins("VFNMADD231PD %s, %s, %s", R(4), R(1), R(3))
	g.ins("VFNMADD231PD %s, %s, %s", R(4), R(2), R(3))
	if t.z {
		g.ins("VRCP14PD %s, %s", R(1), R(5))
	} else {
		g.rcpAVX2(R(1), R(5))
	}
	g.ins("VMULPD %s, %s, %s", R(5), R(3), R(3))
	g.comment("1 - qh - ql: s = 1-qh and its exact error (Fast2Sum, qh < 1), then s + (err - ql)")
	g.loadPD(t, one, R(5))
	g.ins("VSUBPD %s, %s, %s", R(4), R(5), R(2))
	g.ins("VSUBPD %s, %s, %s", R(2), R(5), R(5))
	g.ins("VSUBPD %s, %s, %s", R(4), R(5), R(5))
	g.ins("VSUBPD %s, %s, %s", R(3), R(5), R(5))
	g.ins("VADDPD %s, %s, %s", R(5), R(2), R(2))
}

// hyperRecip emits the hyperbolics' q = 1/S (register 1) and its
// correction ql = q*(1 - S*q - Sl*q) (register 3, the residual exact by
// FMA) on tier t, from e^a unscaled as S (register 5) + Sl (register 6).
func (g *gen) hyperRecip(t tier) {
	R := t.reg
	one := g.d("done", 1)
	g.comment("q = 1/S and its correction ql = q*(1 - S*q - Sl*q) (the residual exact by FMA)")
	g.loadPD(t, one, R(1))
	g.ins("VDIVPD %s, %s, %s", R(5), R(1), R(1))
	g.loadPD(t, one, R(3))
	g.ins("VFNMADD231PD %s, %s, %s", R(1), R(5), R(3))
	g.ins("VFNMADD231PD %s, %s, %s", R(1), R(6), R(3))
	g.ins("VMULPD %s, %s, %s", R(1), R(3), R(3))
}

// hyperSum emits cosh's sum or sinh's difference (op) on tier t of e^a/2
// = h + hl (registers 8, 9) and e^-a/2 = i + il (registers 1, 3): h ± i =
// s + e by Fast2Sum (h >= i), the result s + (e + hl ± il) into register
// 5, register 6 scratch.
func (g *gen) hyperSum(t tier, op string) {
	R := t.reg
	add := "VADDPD"
	if op == "sinh" {
		add = "VSUBPD"
	}
	g.comment("h ± i = s + e (Fast2Sum: h >= i), result s + (e + hl ± il)")
	g.ins("%s %s, %s, %s", add, R(1), R(8), R(5))
	g.ins("VSUBPD %s, %s, %s", R(5), R(8), R(6))
	g.ins("%s %s, %s, %s", add, R(1), R(6), R(6))
	g.ins("VADDPD %s, %s, %s", R(9), R(6), R(6))
	g.ins("%s %s, %s, %s", add, R(3), R(6), R(6))
	g.ins("VADDPD %s, %s, %s", R(6), R(5), R(5))
}

// hyperbolic512F64 computes cosh or sinh (op) of Z0 into Z0. With a = |x|
// (clamped to 712 by the exp core, past which both overflow), the exp
// core gives e^a = (S + Sl)*2^n unscaled; then e^a/2 = (S + Sl)*2^(n-1)
// and e^-a/2 = (q + q*(1 - S*q - Sl*q))*2^(-n-1), q = 1/S rounded, each
// scaled by VSCALEFPD without overflowing early (cosh 710.4 is finite
// where e^710.4 is not), summed (cosh) or subtracted (sinh) by Fast2Sum with the low
// parts added before the one rounding. Sinh below a = 1/2, where the
// difference would cancel, is a + a^3*P(a^2), P the Taylor series to a^17;
// each side runs only when some lane needs it, and x's sign is copied last.
// Registers Z0-Z10 only (slot 1's stay below the exp tables in Z27-Z30).
func (g *gen) hyperbolic512F64(op string) {
	one := g.d("done", 1)
	small, join, sign := g.uniq("small"), g.uniq("join"), g.uniq("sign")
	g.ins("VMOVAPD Z0, Z7")
	g.ins("VPANDQ.BCST %s, Z0, Z0", g.v64("absmask64", 1<<63-1))
	if op == "sinh" {
		g.comment("K2: lanes with a < 1/2 (NaN compares false), the series' side")
		g.ins("VCMPPD.BCST $1, %s, Z0, K2", g.d("dhalf", 0.5))
		g.ins("VMOVAPD Z0, Z10")
		g.ins("KORTESTB K2, K2")
		g.ins("JCS  %s", small)
	}
	g.expCore512F64(expLoUnscaled)
	g.hyperRecip(tierAVX512)
	g.comment("scales: n-1 for e^a/2 (VSCALEFPD floors k/16 itself), -(n+1) for e^-a/2")
	g.ins("VRNDSCALEPD $1, Z2, Z4")
	g.ins("VSUBPD.BCST %s, Z2, Z2", one)
	g.ins("VADDPD.BCST %s, Z4, Z4", one)
	g.ins("VPXORQ.BCST %s, Z4, Z4", g.v64("signmask64", 1<<63))
	g.ins("VSCALEFPD Z2, Z5, Z8")
	g.ins("VSCALEFPD Z2, Z6, Z9")
	g.ins("VSCALEFPD Z4, Z1, Z1")
	g.ins("VSCALEFPD Z4, Z3, Z3")
	g.hyperSum(tierAVX512, op)
	g.comment("where e^a/2 overflowed, +Inf (the Fast2Sum made it NaN): VFPCLASSPD 0x08 is +Inf")
	g.ins("VFPCLASSPDZ $0x08, Z8, K5")
	g.ins("VMOVAPD Z8, K5, Z5")
	if op == "cosh" {
		g.ins("VMOVAPD Z5, Z0")
		return
	}
	g.seriesSideSigned512F64(small, join, sign, func(dst string) { g.sinhSeries(tierAVX512, "Z10", dst) })
}

// seriesSideSigned512F64 finishes a float64 kernel that has computed its
// large side into Z5 with K2 marking the lanes of its series side: the
// series (series(dst)) for a mixed vector's K2 lanes, or alone for a
// vector that jumped to small, then x's sign (x in Z7) copied onto the
// result (which has it already but for -0), into Z0.
func (g *gen) seriesSideSigned512F64(small, join, sign string, series func(dst string)) {
	g.ins("KORTESTB K2, K2")
	g.ins("JEQ  %s", join)
	g.comment("the small lanes of a mixed vector")
	series("Z1")
	g.ins("VMOVAPD Z1, K2, Z5")
	g.label(join)
	g.ins("JMP  %s", sign)
	g.label(small)
	series("Z5")
	g.label(sign)
	g.comment("x's sign onto the result: a bit select on the sign mask")
	g.ins("VPTERNLOGQ.BCST $0xe4, %s, Z5, Z7", g.v64("signmask64", 1<<63))
	g.ins("VMOVAPD Z7, Z0")
}

// expm1Cut is where the float64 Expm1 kernel leaves its series for the
// exp core: ln2/2, from which |e^x - 1| >= 0.29, so the core's absolute
// error (about 2^-57 of e^x) stays below a quarter ulp of the result.
const expm1Cut = math.Ln2 / 2

// expm1512F64 computes e^x - 1 of Z0 into Z0. Below |x| = expm1Cut: x +
// x^2/2 + x^3*P(x), P the Taylor series to x^14 (truncation below 2^-56
// of the result), x^2 an exact pair and x + x^2/2 summed by Fast2Sum, so
// one rounding counts. From there on: the exp core's 2^n*Thi and
// 2^n*(Thi*q + Tlo) (expSplit, scaled by VSCALEFPD: 2^n*Thi is exact or
// 0), 2^n*Thi - 1 by TwoSum, the rest added before the one rounding;
// from x = 38 on, e^x as the Exp kernel computes it (e^x - 1 rounds to
// e^x there, and 2^n*Thi alone may overflow where e^x does not).
// e^x - 1 has x's sign, which is copied last (so -0 gives -0). Each side
// runs only when some lane needs it. Registers Z0-Z10.
func (g *gen) expm1512F64() {
	one := g.d("done", 1)
	small, join, sign := g.uniq("small"), g.uniq("join"), g.uniq("sign")
	g.ins("VMOVAPD Z0, Z7")
	g.comment("K2: lanes with |x| < ln2/2 (NaN compares false), the series' side")
	g.ins("VPANDQ.BCST %s, Z0, Z8", g.v64("absmask64", 1<<63-1))
	g.ins("VCMPPD.BCST $1, %s, Z8, K2", g.d("dexpm1cut", expm1Cut))
	g.ins("KORTESTB K2, K2")
	g.ins("JCS  %s", small)
	g.expCore512F64Reduce()
	g.expTail512F64(expSplit)
	g.comment("e^x as the Exp kernel rounds it (Z8): the result from x > 38 on, where")
	g.comment("e^x - 1 rounds to e^x and 2^n*Thi alone may overflow before e^x does")
	g.ins("VADDPD Z1, Z5, Z8")
	g.ins("VSCALEFPD Z2, Z8, Z8")
	g.ins("VSCALEFPD Z2, Z5, Z5")
	g.ins("VSCALEFPD Z2, Z1, Z1")
	g.comment("A - 1 = s + e (TwoSum, A = 2^n*Thi), result s + (e + B)")
	g.ins("VSUBPD.BCST %s, Z5, Z3", one)
	g.ins("VSUBPD Z5, Z3, Z4")
	g.ins("VSUBPD Z4, Z3, Z6")
	g.ins("VSUBPD Z6, Z5, Z6")
	g.ins("VADDPD.BCST %s, Z4, Z4", one)
	g.ins("VSUBPD Z4, Z6, Z6")
	g.ins("VADDPD Z1, Z6, Z6")
	g.ins("VADDPD Z6, Z3, Z5")
	g.ins("VCMPPD.BCST $0x1e, %s, Z7, K5", g.d("d38", 38))
	g.ins("VMOVAPD Z8, K5, Z5")
	g.seriesSideSigned512F64(small, join, sign, func(dst string) { g.expm1Series(tierAVX512, "Z7", dst) })
}

// expm1Series sets dst = x + x^2/2 + x^3*P(x) for x in register x on
// tier t (expm1512F64, expm1F64AVX2), with registers 2-4, 6 and 8-10 as
// scratch.
func (g *gen) expm1Series(t tier, x, dst string) {
	R := t.reg
	var c []float64
	for k := 3; k <= 14; k++ {
		f := 1.0
		for i := 2; i <= k; i++ {
			f *= float64(i)
		}
		c = append(c, 1/f)
	}
	g.estrinPDOn(t, "dexpm1p", c, x, dst, R(3), R(4))
	g.comment(fmt.Sprintf("x^2 = %s + %s exactly; h = x^2/2; x + h = s + e (Fast2Sum, |h| <= |x|)", R(2), R(6)))
	g.ins("VMULPD %s, %s, %s", x, x, R(2))
	g.ins("VMOVAPD %s, %s", R(2), R(6))
	g.ins("VFMSUB231PD %s, %s, %s", x, x, R(6))
	g.withConst(t, "VMULPD", g.d("dhalf", 0.5), R(2)+", "+R(8))
	g.ins("VADDPD %s, %s, %s", R(8), x, R(9))
	g.ins("VSUBPD %s, %s, %s", R(9), x, R(10))
	g.ins("VADDPD %s, %s, %s", R(8), R(10), R(10))
	g.comment("result s + (e + xl/2 + x^3*P)")
	g.ins("VMULPD %s, %s, %s", x, R(2), R(2))
	g.ins("VMULPD %s, %s, %s", dst, R(2), dst)
	g.withConst(t, "VFMADD231PD", g.d("dhalf", 0.5), R(6)+", "+dst)
	g.ins("VADDPD %s, %s, %s", R(10), dst, dst)
	g.ins("VADDPD %s, %s, %s", R(9), dst, dst)
}

// sinhSeries sets dst = a + a^3*P(a^2) for a in register a (a >= 0) on
// tier t, P the Taylor series of sinh to a^17, with registers 2-4 as
// scratch.
func (g *gen) sinhSeries(t tier, a, dst string) {
	R := t.reg
	var c []float64
	for k := 1; k <= 8; k++ {
		c = append(c, math.Abs(taylorCoeffs(1, k, k)[0]))
	}
	g.ins("VMULPD %s, %s, %s", a, a, R(2))
	g.estrinPDOn(t, "dsinhp", c, R(2), dst, R(3), R(4))
	g.ins("VMULPD %s, %s, %s", a, R(2), R(2))
	g.ins("VFMADD213PD %s, %s, %s", a, R(2), dst)
}

// sigmoidQuotient finishes a float64 sigmoid on tier t, register 0 =
// num/(1+e): e (scaled, at most 1) is in register 0 with its rounding
// error in eLo, and num (1, or e where the result is e/(1+e): the lanes in
// neg, a k-mask on zmm, a register whose sign bits mark them on ymm) in
// num, with its error numLo counted in neg's lanes. 1+e = d + dlo by
// Fast2Sum; the quotient q = num/d is corrected by the residual num - q*d
// - q*dlo + numLo times 1/d to 14 bits (VRCP14PD; 12 on ymm, rcpAVX2),
// or with newton to 28 (23 on ymm) by one Newton step on it: for a numLo
// of many ulps, as GeluTanh's (up to 760), where 2^-12 or 2^-14 of the
// residual would be a tenth or a twentieth of an ulp.
// Clobbers registers 1, 3, 4 and num.
func (g *gen) sigmoidQuotient(t tier, eLo, num, numLo, neg string, newton bool) {
	R := t.reg
	one := g.d("done", 1)
	g.withConst(t, "VADDPD", one, R(0)+", "+R(1))
	g.loadPD(t, one, R(3))
	g.ins("VSUBPD %s, %s, %s", R(1), R(3), R(3))
	g.ins("VADDPD %s, %s, %s", R(0), R(3), R(3))
	g.ins("VADDPD %s, %s, %s", eLo, R(3), R(3))
	g.ins("VDIVPD %s, %s, %s", R(1), num, R(0))
	g.ins("VFNMADD231PD %s, %s, %s", R(0), R(1), num)
	g.ins("VFNMADD231PD %s, %s, %s", R(0), R(3), num)
	if t.z {
		g.ins("VADDPD %s, %s, %s, %s", numLo, num, neg, num)
		g.ins("VRCP14PD %s, %s", R(1), R(4))
	} else {
		g.ins("VADDPD %s, %s, %s", numLo, num, R(4))
		g.ins("VBLENDVPD %s, %s, %s, %s", neg, R(4), num, num)
		g.rcpAVX2(R(1), R(4))
	}
	if newton {
		g.comment("1/d refined: r += r*(1 - d*r)")
		g.loadPD(t, one, R(3))
		g.ins("VFNMADD231PD %s, %s, %s", R(4), R(1), R(3))
		g.ins("VFMADD231PD %s, %s, %s", R(3), R(4), R(4))
	}
	g.ins("VFMADD231PD %s, %s, %s", R(4), num, R(0))
}

// geluTanhArg starts the float64 GeluTanh kernels on tier t: gelu =
// x*sigmoid(v), v = x*(c1 + c2*x^2) = vh+vl carried in double-double (c1 =
// 2*sqrt(2/pi), c2 = 0.044715*c1, each a hi+lo pair, geluTanhCoeffs), so
// that e^-|v| keeps its relative accuracy up to |v| = 760. From x in
// register 0 it leaves the multiplier xm = max(x, -30) in xm, vh in
// register 0 and vl in register 9, with v's argument xc = min(xm, 30)
// (x the second source, so NaN passes; beyond, sigmoid(v) rounds to 0 or
// 1); registers 1-7 are scratch.
func (g *gen) geluTanhArg(t tier, xm string) {
	R := t.reg
	c1, c2 := geluTanhCoeffs()
	g.comment("xm = max(x, -30), xc = min(xm, 30) (x the second source, so NaN passes)")
	g.loadPD(t, g.d("dm30", -30), R(9))
	g.ins("VMAXPD %s, %s, %s", R(0), R(9), xm)
	g.loadPD(t, g.d("d30", 30), R(9))
	g.ins("VMINPD %s, %s, %s", xm, R(9), R(0))
	g.comment("x^2 = R1 + R2 exactly; c2*x^2 = R3 + R4")
	g.ins("VMULPD %s, %s, %s", R(0), R(0), R(1))
	g.ins("VMOVAPD %s, %s", R(1), R(2))
	g.ins("VFMSUB231PD %s, %s, %s", R(0), R(0), R(2))
	g.withConst(t, "VMULPD", g.d("gc2hi", c2[0]), R(1)+", "+R(3))
	g.ins("VMOVAPD %s, %s", R(3), R(4))
	g.withConst(t, "VFMSUB231PD", g.d("gc2hi", c2[0]), R(1)+", "+R(4))
	g.withConst(t, "VFMADD231PD", g.d("gc2hi", c2[0]), R(2)+", "+R(4))
	g.withConst(t, "VFMADD231PD", g.d("gc2lo", c2[1]), R(1)+", "+R(4))
	g.comment("s = c1 + c2*x^2 = R5 + R1 (TwoSum of the high parts)")
	g.loadPD(t, g.d("gc1hi", c1[0]), R(6))
	g.ins("VADDPD %s, %s, %s", R(6), R(3), R(5))
	g.ins("VSUBPD %s, %s, %s", R(6), R(5), R(7))
	g.ins("VSUBPD %s, %s, %s", R(7), R(5), R(1))
	g.ins("VSUBPD %s, %s, %s", R(1), R(6), R(1))
	g.ins("VSUBPD %s, %s, %s", R(7), R(3), R(7))
	g.ins("VADDPD %s, %s, %s", R(7), R(1), R(1))
	g.ins("VADDPD %s, %s, %s", R(4), R(1), R(1))
	g.withConst(t, "VADDPD", g.d("gc1lo", c1[1]), R(1)+", "+R(1))
	g.comment("v = xc*s = R0 + R9")
	g.ins("VMULPD %s, %s, %s", R(5), R(0), R(2))
	g.ins("VMOVAPD %s, %s", R(2), R(9))
	g.ins("VFMSUB231PD %s, %s, %s", R(5), R(0), R(9))
	g.ins("VFMADD231PD %s, %s, %s", R(1), R(0), R(9))
	g.ins("VMOVAPD %s, %s", R(2), R(0))
}

// The float64 erf kernel's shape (fitcoeffs.go's erf64 states the same):
// x + x*Q(x^2) below |x| = erf64Cut; above, 1 - erfc(a), a = min(|x|,
// erf64Top), erfc(a) = e^-a^2 * (R0 + u*P(u)) with R0 and P taken from bin
// i = min(floor((a - erf64Cut)/erf64Width), erf64Bins-1), u = a - c_i, c_i
// = erf64Cut + erf64Width*(i + 1/2) (the last bin reaches erf64Top, where
// erfc(a) < 2^-54, so 1 - erfc rounds to 1 from there on).
const (
	erf64Cut   = 0.75
	erf64Width = 0.5
	erf64Bins  = 8
	erf64Top   = 6.0
)

// erfQ64 is Q(t) = erf(x)/x - 1, t = x^2 < erf64Cut^2, degree 10: c0 =
// 2/sqrt(pi) - 1 rounded, the rest fitted by `go run fitcoeffs.go erf64`
// against math/big values (within 0.3*2^-53 relative to erf(x), less
// near 0, on the fit's float64 grid).
var erfQ64 = []float64{0.1283791670955126, -0.37612638903183887, 0.11283791670959244, -0.026866170645626228, 0.0052239776274276215, -0.0008548326917847658, 0.00012055317413390129, -1.4924868233348467e-05, 1.6440613329335343e-06, -1.6022010444994032e-07, 1.1761590835659376e-08}

// erfR064 is R0 = erfc(c_i)*e^(c_i^2) rounded, for each bin, and erfP64
// the bins' P, degree 12, from the same fit: R = R0 + u*P(u) is
// erfc(a)*e^(a^2) to within 0.1*2^-53 of erf's value once multiplied by
// e^-a^2 (bin 0; the others are closer).
var erfR064 = []float64{0.427583576155807, 0.3215854164543175, 0.25539567631050575, 0.2108063640611436, 0.17900115118138996, 0.1552936556088943, 0.13699945762506138, 0.12248480427384142}

var erfP64 = [][]float64{
	{-0.2732120147838984, 0.15437156137190386, -0.07922696894142749, 0.03757229621667798, -0.016661869074907826, 0.006970142258898007, -0.002769065714049262, 0.0010502736144952758, -0.0003819279192380796, 0.00013358990621180998, -4.5497786655793174e-05, 1.532352740503909e-05, -2.9218916727024544e-06},
	{-0.16362291773256046, 0.07615103985548315, -0.03293090529939314, 0.013377340952552367, -0.0051459575655444095, 0.001886134893906703, -0.0006619293023467256, 0.0002233097994873006, -7.267485352594104e-05, 2.2861887843581847e-05, -6.818228711731578e-06, 2.1124152734489102e-06, -1.1773075543452487e-06},
	{-0.10679646185348933, 0.04180275260351486, -0.01546063776446481, 0.005440738539968038, -0.0018316642496420364, 0.0005924698129503445, -0.00018477994015494414, 5.573422044400157e-05, -1.624909976188089e-05, 4.54088966043805e-06, -1.8760402831869538e-06, 8.270845655137916e-07, 2.942213584008681e-06},
	{-0.07434734678979477, 0.024937997086650326, -0.008001569382084532, 0.002467036816858527, -0.0007335909372975091, 0.00021101974720494232, -5.886903978972853e-05, 1.5964210643287204e-05, -4.21051254409061e-06, 1.0517357588428996e-06, -3.401769039635798e-07, 2.46402165137587e-07, 3.9275427677487587e-07},
	{-0.054372260007172483, 0.0158843711598728, -0.004479431018512029, 0.0012230390515835196, -0.00032412553200911415, 8.355421929971078e-05, -2.0989873028689565e-05, 5.1433513080602975e-06, -1.2290500006691212e-06, 3.4047889143560897e-07, -4.7589355791633354e-08, -2.9082737444501154e-07, -4.1712401689170983e-07},
	{-0.04132357783325279, 0.010661133192519677, -0.0026730744395265793, 0.0006526863249510112, -0.00015546893348314817, 3.618183850430382e-05, -8.237111464049546e-06, 1.8330712224411215e-06, -4.260631972161415e-07, 1.4402081763131993e-07, 3.038884795256858e-07, -2.9994366182971945e-07, -1.629580689401739e-06},
	{-0.03238350609502133, 0.007465433244979876, -0.001681182076786724, 0.0003703524681560685, -7.990887733322699e-05, 1.6905714659352565e-05, -3.510409006186617e-06, 7.137307501260037e-07, -1.4565924855837184e-07, 6.54631628648536e-08, 6.034925507021544e-08, -2.1828527087643372e-07, -5.089609436233092e-07},
	{-0.026015928630939752, 0.005413125434613534, -0.0011045761167866512, 0.0002212664543730343, -4.3550829045370435e-05, 8.429246508723414e-06, -1.6054893258248365e-06, 3.01067292440343e-07, -5.564283058187897e-08, 1.0430141838594625e-08, -2.3261359396280302e-09, 6.426027836271395e-10, -1.1496792671345993e-10},
}

// geluR064 and geluP64 are the float64 GeluErf kernel's bins, as erfR064
// and erfP64 but fitted for erfc's relative error (`go run fitcoeffs.go
// gelu64`: within 0.74*2^-53 of R, 0.25-0.5 in all but the first bin),
// the last bin ending at geluBinsTop.
var geluR064 = []float64{0.427583576155807, 0.3215854164543175, 0.25539567631050575, 0.2108063640611436, 0.17900115118138996, 0.1552936556088943, 0.13699945762506138, 0.12248480427384142}

var geluP64 = [][]float64{
	{-0.27321201478389895, 0.15437156137190736, -0.07922696894117022, 0.037572296215685155, -0.01666186910669142, 0.006970142336572392, -0.0027690640083497552, 0.001050271053238848, -0.0003819728015730665, 0.00013362773833349982, -4.4927816958580496e-05, 1.5116842023261995e-05, -5.715057714707644e-06},
	{-0.16362291773255982, 0.07615103985548513, -0.03293090529964843, 0.01337734095216009, -0.005145957539096569, 0.0018861349224478501, -0.0006619304841916658, 0.0002233088435332433, -7.264895483117204e-05, 2.2876539267988286e-05, -7.0925632352189565e-06, 2.0291485714782618e-06, -5.4543920090968714e-08},
	{-0.1067964618534897, 0.04180275260352559, -0.015460637764269232, 0.005440738537535582, -0.0018316642775187107, 0.0005924699939214131, -0.00018477829743837276, 5.5728315572884616e-05, -1.629514836651183e-05, 4.6284305585760245e-06, -1.2647286191731101e-06, 3.4469351802905037e-07, -1.5218874425435204e-07},
	{-0.07434734678979478, 0.024937997086653747, -0.008001569382077741, 0.002467036816081237, -0.0007335909392617799, 0.00021101980504596095, -5.8868865606094573e-05, 1.5962332422790115e-05, -4.216765197524843e-06, 1.0793810550815843e-06, -2.4207178021883276e-07, 9.5282484807145e-08, -1.6814176911850092e-07},
	{-0.05437226000717282, 0.01588437115986996, -0.004479431018381766, 0.0012230390525003584, -0.00032412554361587083, 8.355413412828315e-05, -2.09895043789732e-05, 5.146564190120789e-06, -1.232441582015092e-06, 2.8778178481357786e-07, -7.7094637265104e-08, 2.1865238615464453e-08, 4.4455917528450245e-08},
	{-0.04132357783325254, 0.010661133192509272, -0.0026730744396190067, 0.0006526863271053965, -0.0001554689213171462, 3.618168934537322e-05, -8.237819932438496e-06, 1.837645044131154e-06, -4.061492631753651e-07, 7.974596195323835e-08, 3.822340234297177e-08, 3.83363237836571e-08, -2.7945057227242347e-07},
	{-0.032383506095021414, 0.007465433244978141, -0.0016811820767497153, 0.0003703524687219271, -7.990888031280596e-05, 1.6905662207649252e-05, -3.5103545722112554e-06, 7.1574066700007e-07, -1.4409797945433656e-07, 3.1835741995411303e-08, 2.435818719830073e-09, -1.4601553201565713e-08, -4.4683997096197354e-08},
	{-0.026015928630939808, 0.005413125434609293, -0.0011045761167945143, 0.0002212664548897314, -4.3550827896317726e-05, 8.429223159026453e-06, -1.6055369367854228e-06, 3.0160340523394866e-07, -5.4499027834392154e-08, 4.357704400151102e-09, -1.7687204159626344e-08, 2.7191698726270374e-08, 8.361207282197977e-08},
}

// geluBinsTop is where the GeluErf kernel's bins end.
const geluBinsTop = erf64Cut + erf64Width*erf64Bins

// erfTables64 registers the erf kernel's lookup tables (binTables64).
func erfTables64(g *gen) (r0, p string) { return binTables64(g, "derf", erfR064, erfP64) }

// geluTables64 registers the GeluErf kernel's lookup tables (binTables64).
func geluTables64(g *gen) (r0, p string) { return binTables64(g, "dgelu", geluR064, geluP64) }

// binTables64 registers lookup tables of erfc bins, checking first that
// R0 is erfc(c_i)*e^(c_i^2) for the bins the kernels compute (so that
// they and fitcoeffs.go agree on the bins): R0's entries as one table,
// and P's coefficient k of every bin as 64 bytes at offset 64k of the
// other.
func binTables64(g *gen, name string, r0s []float64, ps [][]float64) (r0, p string) {
	if len(r0s) != erf64Bins || len(ps) != erf64Bins {
		log.Fatalf("%s: %d R0 and %d P for %d bins", name, len(r0s), len(ps), erf64Bins)
	}
	var r0b, pb []uint64
	for i, v := range r0s {
		c := erf64Cut + erf64Width*(float64(i)+0.5)
		if want := math.Erfc(c) * math.Exp(c*c); math.Abs(v-want) > 1e-13*want {
			log.Fatalf("%s bin %d: R0 = %v, erfc(%v)*e^(%v^2) = %v", name, i, v, c, c, want)
		}
		r0b = append(r0b, math.Float64bits(v))
	}
	for k := range ps[0] {
		for _, c := range ps {
			pb = append(pb, math.Float64bits(c[k]))
		}
	}
	return g.table(name+"r0", r0b), g.table(name+"p", pb)
}

// erf512F64 emits the float64 erf body (see erf64Cut): Z0 = erf(Z0), on
// Z0-Z10, with the exp kernel's constants in Z13-Z15 and Z27-Z30.
func (g *gen) erf512F64(r0, p string) {
	one := g.d("done", 1)
	small, join := g.uniq("erfsmall"), g.uniq("erfjoin")
	g.ins("VMOVAPD Z0, Z7")
	g.comment("a = min(|x|, erf64Top) (a the second source, so NaN passes); K2: lanes with")
	g.comment("a < erf64Cut (NaN compares false)")
	g.ins("VPANDQ.BCST %s, Z0, Z8", g.v64("absmask64", 1<<63-1))
	g.ins("VCMPPD.BCST $1, %s, Z8, K2", g.d("derfcut", erf64Cut))
	g.ins("VBROADCASTSD %s, Z1", g.d("derftop", erf64Top))
	g.ins("VMINPD Z8, Z1, Z8")
	g.ins("KORTESTB K2, K2")
	g.ins("JCS  %s", small)
	g.erfcBins(tierAVX512, r0, p)
	g.erfcProduct(tierAVX512, "Z8", func(g *gen) { g.expCore512F64(expLoScaled) })
	g.comment("1 - p1 = s + err (Fast2Sum: p1 < 1), erf = s + (err - p1e - corr), then x's")
	g.comment("sign: a bit select on the sign mask, into Z5")
	g.ins("VBROADCASTSD %s, Z4", one)
	g.ins("VSUBPD Z1, Z4, Z3")
	g.ins("VSUBPD Z3, Z4, Z4")
	g.ins("VSUBPD Z1, Z4, Z4")
	g.ins("VSUBPD Z2, Z4, Z4")
	g.ins("VSUBPD Z9, Z4, Z4")
	g.ins("VADDPD Z4, Z3, Z3")
	g.ins("VMOVAPD Z7, Z5")
	g.ins("VPTERNLOGQ.BCST $0xe4, %s, Z3, Z5", g.v64("signmask64", 1<<63))
	g.ins("KORTESTB K2, K2")
	g.ins("JEQ  %s", join)
	g.label(small)
	g.comment("|x| < erf64Cut: x + x*Q(t), t = x^2 = t + tl exactly, Q(t+tl) = Q(t) + Q'(0)*tl")
	g.comment("(Q' varies by less than 0.2 over the range: the neglected part is below")
	g.comment("2^-60); only K2's lanes are kept, and a vector without such lanes skips this")
	g.erfQ(tierAVX512, "Z7")
	g.ins("VFMADD213PD Z7, Z7, Z3")
	g.ins("VMOVAPD Z3, K2, Z5")
	g.label(join)
	g.ins("VMOVAPD Z5, Z0")
}

// erfQ sets register 3 of tier t to Q(t + tl), erf's small-argument
// polynomial (erf(x) = x + x*Q(x^2)), from x in register x: t = x^2 in
// register 1 and its exact residual tl in register 2, Q(t+tl) = Q(t) +
// Q'(0)*tl. The float64 Erf and GeluErf kernels share it.
func (g *gen) erfQ(t tier, x string) {
	R := t.reg
	g.ins("VMULPD %s, %s, %s", x, x, R(1))
	g.ins("VMOVAPD %s, %s", R(1), R(2))
	g.ins("VFMSUB231PD %s, %s, %s", x, x, R(2))
	g.hornerPDOn(t, "derfq", erfQ64, R(1), R(3))
	g.withConst(t, "VFMADD231PD", g.d("derfq1", erfQ64[1]), R(2)+", "+R(3))
}

// erfcBins looks up a's bin on tier t (a in register 8, at least erf64Cut
// and at most erf64Top; see erf64Cut) for erfc(a) = e^-a^2 * (R0 +
// u*P(u)): u*P(u) in register 9 and R0 in register 10, clobbering
// registers 1-4 (and 5-7 on ymm). The tables are read by VPERMPD on zmm
// (eight bins, one register's lanes) and by two VPERMPS and a blend on
// ymm (four bins a register). The float64 Erf and GeluErf kernels share
// it.
func (g *gen) erfcBins(t tier, r0, p string) {
	R := t.reg
	g.comment("the bin: q = 1.5*2^52 + i (i in q's low bits), i = round(a/w - cut/w - 1/2) (a tie")
	g.comment("at a bin's edge may go either way: the fit covers the edges from both")
	g.comment("sides), at most erf64Bins-1")
	g.loadPD(t, g.d("derfshift", 0x1.8p52-erf64Cut/erf64Width-0.5), R(1))
	g.withConst(t, "VFMADD231PD", g.d("derfinvw", 1/erf64Width), R(8)+", "+R(1))
	g.withConst(t, "VMINPD", g.d("derflast", 0x1.8p52+erf64Bins-1), R(1)+", "+R(1))
	g.comment("u = a - c_i, c_i = (q - 1.5*2^52)*w + cut + w/2 (exact: Sterbenz)")
	if t.z {
		g.ins("VSUBPD Z15, Z1, Z2")
	} else {
		g.withConst(t, "VSUBPD", g.d("shifter64", 0x1.8p52), "Y1, Y2")
	}
	g.loadPD(t, g.d("derfc0", erf64Cut+erf64Width/2), R(3))
	g.withConst(t, "VFMADD231PD", g.d("derfw", erf64Width), R(2)+", "+R(3))
	g.ins("VSUBPD %s, %s, %s", R(3), R(8), R(2))
	lookup := func(table string, k int, dst string) {
		g.ins("VPERMPD %s+%d(SB), Z1, %s", table, 64*k, dst)
	}
	if t.z {
		g.comment("u*P(u), P's coefficients looked up by bin (Horner; VPERMPD reads i from q's")
		g.comment("low three bits), and R0")
	} else {
		g.comment("u*P(u), P's coefficients looked up by bin (Horner), and R0: VPERMPS picks")
		g.comment("float32 pairs from the first four bins' entries and from the last four's by")
		g.comment("the pair (2j, 2j+1), j = i mod 4, in Y5; VBLENDVPD takes the second where i")
		g.comment(">= 4 (bit 2 of q shifted into the sign, Y7)")
		g.withConst(t, "VPAND", g.v64("q3", 3), "Y1, Y5")
		g.ins("VPSLLQ $1, Y5, Y5")
		g.ins("VPSLLQ $32, Y5, Y6")
		g.ins("VPADDQ Y6, Y5, Y5")
		g.withConst(t, "VPADDQ", g.v64("q1shl32", 1<<32), "Y5, Y5")
		g.ins("VPSLLQ $61, Y1, Y7")
		lookup = func(table string, k int, dst string) {
			g.ins("VPERMPS %s+%d(SB), Y5, %s", table, 64*k, dst)
			g.ins("VPERMPS %s+%d(SB), Y5, Y6", table, 64*k+32)
			g.ins("VBLENDVPD Y7, Y6, %s, %s", dst, dst)
		}
	}
	deg := len(erfP64[0]) - 1
	lookup(p, deg, R(3))
	for k := deg - 1; k >= 0; k-- {
		lookup(p, k, R(4))
		g.ins("VFMADD213PD %s, %s, %s", R(4), R(2), R(3))
	}
	g.ins("VMULPD %s, %s, %s", R(3), R(2), R(9))
	lookup(r0, 0, R(10))
}

// erfcProduct finishes erfcBins on tier t: erfc(a) = p1 + p1e + corr in
// registers 1, 2 and 9 (p1 + p1e = e^-h*R0 exactly), from a (register 8),
// u*P(u) (9, which a caller may have adjusted) and R0 (10), through the
// exp core that exp emits (e^x of register 0 into register 0, with the
// error of its sum, scaled, in register 6: expCore512F64 or expTailAVX2
// with expLoScaled), which clobbers registers 0-6 (and 7 and 8 on ymm).
// a^2's low part l is kept in register l.
func (g *gen) erfcProduct(t tier, l string, exp func(g *gen)) {
	R := t.reg
	g.comment("a^2 = h + l exactly; e = e^-h = R0 + R6 from the exp kernel")
	g.ins("VMULPD %s, %s, %s", R(8), R(8), R(0))
	g.ins("VMOVAPD %s, %s", R(0), R(1))
	g.ins("VFMSUB231PD %s, %s, %s", R(8), R(8), R(1))
	g.ins("VMOVAPD %s, %s", R(1), l)
	sign := g.v64("signmask64", 1<<63)
	if t.z {
		g.ins("VPXORQ.BCST %s, Z0, Z0", sign)
	} else {
		g.ins("VXORPD %s, Y0, Y0", sign)
	}
	exp(g)
	g.comment("erfc = (R0 + R6)(1 - l)(R0 + uP) = p1 + p1e + corr: p1 + p1e = e*R0 exactly,")
	g.comment("corr = e*(uP - l*R) + R6*R, R = R0 + uP rounded (the product R6*l left")
	g.comment("out is below 2^-100 of the result; l*uP is not, where a^2 is large)")
	g.ins("VADDPD %s, %s, %s", R(9), R(10), R(3))
	g.ins("VFNMADD231PD %s, %s, %s", l, R(3), R(9))
	g.ins("VMULPD %s, %s, %s", R(0), R(9), R(9))
	g.ins("VFMADD231PD %s, %s, %s", R(6), R(3), R(9))
	g.ins("VMULPD %s, %s, %s", R(10), R(0), R(1))
	g.ins("VMOVAPD %s, %s", R(1), R(2))
	g.ins("VFMSUB231PD %s, %s, %s", R(0), R(10), R(2))
}

// The GeluErf kernel computes x with |x| < -geluErfFar (|a| = |x|/sqrt2
// below about 4.74, where its erfc bins end at geluBinsTop); from
// geluErfNear on the result is x (erfc(-a) rounds to 2: erfc(6) < 2^-54);
// the others (x below geluErfFar, or from -geluErfFar to geluErfNear) it
// leaves in dst for Go (leftVia).
const (
	geluErfFar  = -6.7
	geluErfNear = 8.49
)

// invSqrt2Pair returns 1/sqrt(2) as a float64 pair hi + lo.
func invSqrt2Pair() [2]float64 {
	return bigSplit(new(big.Float).SetPrec(300).Sqrt(big.NewFloat(0.5)))
}

// geluErf512F64 emits the float64 GeluErf body, 0.5x*erfc(a) with a =
// -x/sqrt2, on one vector per iteration (it needs more registers than a
// slot of twoSlots has): Z0 = geluErf(Z0), with Z0-Z10 and Z16-Z21 as
// scratch, the exp kernel's constants in Z13-Z15 and Z27-Z30, and K2 and
// K5-K7. a = ah + al is carried as a pair (FMA), since erfc's relative
// error is about 2a times a's; al enters to first order, erfc(ah + al) =
// erfc(ah) - al*(2/sqrt(pi))*e^-ah^2. With b = |ah| (bl: al signed as
// ah was):
//
//   - b < erf64Cut: erfc(a) = 1 - ah - (ah*Q(t) + al*(2/sqrt(pi))*(1 - t +
//     t^2/2)), t = ah^2 (the erf kernel's Q; e^-t to three terms is
//     plenty for the tiny al term), 1 - ah by Fast2Sum;
//   - above: erfc(b + bl) = e^-b^2 * (R0 + u*P(u) - bl*2/sqrt(pi)) from
//     the erf kernel's bins (erfcBins, erfcProduct), which is
//     erfc(a) for positive a (x < 0) and 2 minus erfc(a) for negative a.
//
// Either way erfc(a)/2 = eh + el, and the result is x*eh + x*el in one
// FMA. Lanes below geluErfFar or from -geluErfFar to geluErfNear keep x
// and are flagged in K4; lanes from geluErfNear on are x (so +Inf stays
// +Inf).
func (g *gen) geluErf512F64(r0, p string) {
	small, join := g.uniq("gelusmall"), g.uniq("gelujoin")
	sign := g.v64("signmask64", 1<<63)
	twoOverSqrtPi := g.d("dtwooversqrtpi", 2/math.SqrtPi)
	g.comment("x in Z16; K7: x >= geluErfNear (the result x); K6: x < geluErfFar or")
	g.comment("-geluErfFar <= x < geluErfNear (left to Go)")
	g.ins("VMOVAPD Z0, Z16")
	g.geluErfLanes(tierAVX512, "Z16", "K7", "K6", "K5")
	g.ins("KORW K6, K4, K4")
	g.geluErfArg(tierAVX512, "Z17", "Z18")
	g.comment("b = |ah| (Z8), bl = al with ah's sign taken off (Z19); K2: b < erf64Cut")
	g.ins("VPANDQ.BCST %s, Z17, Z8", g.v64("absmask64", 1<<63-1))
	g.ins("VPANDQ.BCST %s, Z17, Z19", sign)
	g.ins("VPXORQ Z18, Z19, Z19")
	g.ins("VCMPPD.BCST $1, %s, Z8, K2", g.d("derfcut", erf64Cut))
	g.ins("VBROADCASTSD %s, Z1", g.d("dgelutop", geluBinsTop))
	g.ins("VMINPD Z8, Z1, Z8")
	g.ins("KORTESTB K2, K2")
	g.ins("JCS  %s", small)
	g.erfcBins(tierAVX512, r0, p)
	g.ins("VFNMADD231PD.BCST %s, Z19, Z9", twoOverSqrtPi)
	g.erfcProduct(tierAVX512, "Z8", func(g *gen) { g.expCore512F64(expLoScaled) })
	g.comment("erfc(b) = p1 + (p1e + corr) for ah > 0; 2 - erfc(b) = s + (err - p1e - corr),")
	g.comment("2 - p1 = s + err (Fast2Sum: p1 < 2), for ah < 0 (K5); halved into Z20 + Z21")
	g.ins("VADDPD Z9, Z2, Z2")
	g.ins("VMOVAPD Z1, Z20")
	g.ins("VMOVAPD Z2, Z21")
	g.twoMinusErfc(tierAVX512)
	g.ins("VPMOVQ2M Z17, K5")
	g.ins("VMOVAPD Z3, K5, Z20")
	g.ins("VMOVAPD Z4, K5, Z21")
	g.ins("KORTESTB K2, K2")
	g.ins("JEQ  %s", join)
	g.label(small)
	g.comment("b < erf64Cut: erfc(a) = s + (err - (ah*Q(t) + al*c*(1 - t + t^2/2))), c = 2/sqrt(pi),")
	g.comment("t = ah^2 = t + tl exactly, Q(t+tl) = Q(t) + Q'(0)*tl as in the erf kernel, and")
	g.comment("1 - ah = s + err (Fast2Sum: |ah| < 1); only K2's lanes are kept")
	g.geluErfSmall(tierAVX512, "Z17", "Z18")
	g.ins("VMOVAPD Z5, K2, Z20")
	g.ins("VMOVAPD Z4, K2, Z21")
	g.label(join)
	g.geluErfJoin(tierAVX512, "Z16", "Z20", "Z21")
	g.comment("x where K7, x left for Go where K6")
	g.ins("VMOVAPD Z16, K6, Z21")
	g.ins("VMOVAPD Z16, K7, Z21")
	g.ins("VMOVAPD Z21, Z0")
}

// geluErfArg starts the float64 GeluErf kernels on tier t: from x in
// register 0, a = ah + al = -xc/sqrt2 with xc = x clamped to [-10, 10]
// (x the second source, so NaN passes) in register 0, ah = -xc*s rounded
// in ah and al = (-xc*s - ah) - xc*sl in al (s + sl = 1/sqrt2), exact to
// first order; register 1 is scratch.
func (g *gen) geluErfArg(t tier, ah, al string) {
	R := t.reg
	g.comment("a = ah + al = -xc/sqrt2, xc = x clamped to [-10, 10] (x the second source, so")
	g.comment("NaN passes): ah = -xc*s, al = (-xc*s - ah) - xc*sl exactly to first order")
	g.loadPD(t, g.d("d10", 10), R(1))
	g.ins("VMINPD %s, %s, %s", R(0), R(1), R(0))
	g.loadPD(t, g.d("dm10", -10), R(1))
	g.ins("VMAXPD %s, %s, %s", R(0), R(1), R(0))
	is2 := invSqrt2Pair()
	g.withConst(t, "VMULPD", g.d("dneginvsqrt2hi", -is2[0]), R(0)+", "+ah)
	g.ins("VMOVAPD %s, %s", ah, al)
	g.withConst(t, "VFMSUB231PD", g.d("dneginvsqrt2hi", -is2[0]), R(0)+", "+al)
	g.withConst(t, "VFNMADD231PD", g.d("dinvsqrt2lo", is2[1]), R(0)+", "+al)
}

// geluErfSmall is the GeluErf kernels' side below |ah| = erf64Cut on tier
// t: erfc(a) = s + (err - (ah*Q(t) + al*c*(1 - t + t^2/2))), c =
// 2/sqrt(pi), t = ah^2 = t + tl exactly, Q(t+tl) = Q(t) + Q'(0)*tl as in
// the erf kernel (erfQ), and 1 - ah = s + err (Fast2Sum: |ah| < 1),
// leaving s in register 5 and the rest in register 4; registers 1-3 are
// scratch.
func (g *gen) geluErfSmall(t tier, ah, al string) {
	R := t.reg
	one := g.d("done", 1)
	g.erfQ(t, ah)
	g.ins("VMULPD %s, %s, %s", ah, R(3), R(3))
	g.comment("e^-t to three terms: 1 - t + t^2/2, times c*al, added to ah*Q")
	g.loadPD(t, g.d("dhalf", 0.5), R(4))
	g.withConst(t, "VFMSUB213PD", one, R(1)+", "+R(4))
	g.withConst(t, "VFMADD213PD", one, R(1)+", "+R(4))
	g.withConst(t, "VMULPD", g.d("dtwooversqrtpi", 2/math.SqrtPi), al+", "+R(5))
	g.ins("VFMADD231PD %s, %s, %s", R(5), R(4), R(3))
	g.loadPD(t, one, R(4))
	g.ins("VSUBPD %s, %s, %s", ah, R(4), R(5))
	g.ins("VSUBPD %s, %s, %s", R(5), R(4), R(4))
	g.ins("VSUBPD %s, %s, %s", ah, R(4), R(4))
	g.ins("VSUBPD %s, %s, %s", R(3), R(4), R(4))
}

// geluErfLanes sets near to the lanes of x (tier t) at or above
// geluErfNear, whose result is x, and left to those the GeluErf kernels
// leave to Go, below geluErfFar or from -geluErfFar to geluErfNear (NaN
// in neither); k-masks on zmm, registers on ymm, tmp as scratch.
func (g *gen) geluErfLanes(t tier, x, near, left, tmp string) {
	cmp := func(imm int, c, dst string) {
		if t.z {
			g.ins("VCMPPD.BCST $%d, %s, %s, %s", imm, c, x, dst)
		} else {
			g.ins("VCMPPD $%d, %s, %s, %s", imm, c, x, dst)
		}
	}
	cmp(29, g.d("dgelunear", geluErfNear), near)
	cmp(29, g.d("dgelufarpos", -geluErfFar), tmp)
	if t.z {
		g.ins("KANDNW %s, %s, %s", tmp, near, tmp)
	} else {
		g.ins("VANDNPD %s, %s, %s", tmp, near, tmp)
	}
	cmp(17, g.d("dgelufar", geluErfFar), left)
	if t.z {
		g.ins("KORW %s, %s, %s", tmp, left, left)
	} else {
		g.ins("VORPD %s, %s, %s", tmp, left, left)
	}
}

// geluErfJoin ends the GeluErf kernels on tier t: from erfc(a) = eh + el,
// el = x*(eh + el)/2 as x*eh' + x*el' (the halving exact) in one FMA.
func (g *gen) geluErfJoin(t tier, x, eh, el string) {
	g.comment("x*(eh + el)/2 = x*eh' + x*el' (halving exact)")
	half := g.d("dhalf", 0.5)
	g.withConst(t, "VMULPD", half, eh+", "+eh)
	g.withConst(t, "VMULPD", half, el+", "+el)
	g.ins("VMULPD %s, %s, %s", el, x, el)
	g.ins("VFMADD231PD %s, %s, %s", eh, x, el)
}

// twoMinusErfc sets registers 3 and 4 of tier t to 2 - erfc(b) = s +
// err, from erfc(b) = p1 + pe in registers 1 and 2: 2 - p1 = s + e by
// Fast2Sum (p1 < 2), err = e - pe.
func (g *gen) twoMinusErfc(t tier) {
	R := t.reg
	g.loadPD(t, g.d("dtwo", 2), R(4))
	g.ins("VSUBPD %s, %s, %s", R(1), R(4), R(3))
	g.ins("VSUBPD %s, %s, %s", R(3), R(4), R(4))
	g.ins("VSUBPD %s, %s, %s", R(1), R(4), R(4))
	g.ins("VSUBPD %s, %s, %s", R(2), R(4), R(4))
}

func (g *gen) transcendentals512F64() {
	e := f64
	one := func() string { return g.d("done", 1) }
	bcast := func(c, r string) { g.ins("VBROADCASTSD %s, %s", c, r) }
	un := func(name, doc string, setup func(g *gen), body func(g *gen)) {
		g.elementwise(twoSlots(ewKernel{name: name + "F64AVX512", doc: doc, e: e, inputs: []string{"x"}, z: true,
			setup: setup}, z, 13, 16, body))
	}

	un("exp", "computes dst[i] = e**x[i] for i < n.", (*gen).expSetup512F64, func(g *gen) { g.expCore512F64(expNoLo) })
	un("exp2", "computes dst[i] = 2**x[i] for i < n.", (*gen).exp2Setup512F64, (*gen).exp2Core512F64)

	un("sigmoid", "computes dst[i] = 1/(1+e**-x[i]) for i < n.", (*gen).expSetup512F64, func(g *gen) {
		g.comment("e = exp(-|x|); x >= 0: 1/(1+e), x < 0: e/(1+e)")
		g.ins("VMOVAPD Z0, Z7")
		g.ins("VPORQ.BCST %s, Z0, Z0", g.v64("signmask64", 1<<63))
		g.expCore512F64(expLoScaled)
		g.comment("e = Z0+Z6; the numerator: e where x < 0 (K2), else 1")
		g.ins("VPMOVQ2M Z7, K2")
		bcast(one(), "Z2")
		g.ins("VMOVAPD Z0, K2, Z2")
		g.sigmoidQuotient(tierAVX512, "Z6", "Z2", "Z6", "K2", false)
	})

	un("tanh", "computes dst[i] = tanh(x[i]) for i < n.", (*gen).expSetup512F64, func(g *gen) {
		small, join, sign := g.uniq("small"), g.uniq("join"), g.uniq("sign")
		g.comment("K2: lanes with x^2 < 0.0625 (|x| < 0.25; NaN compares false); each branch")
		g.comment("runs only when some lane needs it")
		g.ins("VMOVAPD Z0, Z7")
		g.ins("VMULPD Z0, Z0, Z8")
		g.ins("VCMPPD.BCST $1, %s, Z8, K2", g.d("d00625", 0.0625))
		g.ins("KORTESTB K2, K2")
		g.ins("JCS  %s", small)
		g.comment("|x| >= 0.25: 1 - 2/(E+1), E = e^(2a), a = min(|x|, 20) (x the second")
		g.comment("source, so NaN passes; above 20 the result rounds to 1)")
		g.ins("VPANDQ.BCST %s, Z0, Z0", g.v64("absmask64", 1<<63-1))
		bcast(g.d("d20", 20), "Z9")
		g.ins("VMINPD Z0, Z9, Z0")
		g.ins("VADDPD Z0, Z0, Z0")
		g.expCore512F64(expLoScaled)
		g.comment("E = Z0+Z6")
		g.tanhLarge(tierAVX512)
		g.ins("KORTESTB K2, K2")
		g.ins("JEQ  %s", join)
		g.comment("the small lanes of a mixed vector")
		g.hornerPD("dtanhp", tanhCoeffs64(), "Z8", "Z5")
		g.ins("VMULPD Z7, Z8, Z8")
		g.ins("VFMADD213PD Z7, Z8, Z5")
		g.ins("VMOVAPD Z5, K2, Z2")
		g.label(join)
		g.ins("VMOVAPD Z2, Z5")
		g.ins("JMP  %s", sign)
		g.label(small)
		g.comment("|x| < 0.25: x + x^3*P(x^2), exactly x where x^3*P is below half an ulp")
		g.comment("(x subnormal too); rounding is symmetric, and -0's sign is copied below")
		g.hornerPD("dtanhp", tanhCoeffs64(), "Z8", "Z5")
		g.ins("VMULPD Z7, Z8, Z8")
		g.ins("VFMADD213PD Z7, Z8, Z5")
		g.label(sign)
		g.comment("x's sign onto the magnitude: a bit select on the sign mask")
		g.ins("VPTERNLOGQ.BCST $0xe4, %s, Z5, Z7", g.v64("signmask64", 1<<63))
		g.ins("VMOVAPD Z7, Z0")
	})

	un("expm1", "computes dst[i] = e**x[i] - 1 for i < n.", (*gen).expSetup512F64, (*gen).expm1512F64)
	for _, op := range []string{"cosh", "sinh"} {
		un(op, fmt.Sprintf("computes dst[i] = %s(x[i]) for i < n.", op), func(g *gen) {
			g.expSetupClamp512F64(g.d("d712", 712), g.d("dm746", -746))
		}, func(g *gen) { g.hyperbolic512F64(op) })
	}

	un("geluTanh", "computes dst[i] = 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))), x = x[i], for i < n.", func(g *gen) {
		g.expSetup512F64()
		bcast(g.d("dm760", -760), "Z14") // e^-760*30 rounds to 0 after the scaling, which comes last
	}, func(g *gen) {
		g.geluTanhArg(tierAVX512, "Z8")
		g.comment("K2: lanes with v < 0; e = e^-|v| = e^-|vh| * (1 + ul), ul = vl there, -vl elsewhere")
		g.ins("VPMOVQ2M Z0, K2")
		g.ins("VPXORQ.BCST %s, Z9, Z10", g.v64("signmask64", 1<<63))
		g.ins("VMOVAPD Z9, K2, Z10")
		g.ins("VPORQ.BCST %s, Z0, Z0", g.v64("signmask64", 1<<63))
		g.expCore512F64(expLoUnscaled)
		g.comment("e = (Z5 + Z6)*2^n unscaled, Z0 scaled; the unscaled error gains e*ul")
		g.ins("VFMADD231PD Z10, Z5, Z6")
		g.ins("VSCALEFPD Z2, Z6, Z4")
		g.comment("sigmoid = m/(1+e), m = 1 where v >= 0, the unscaled e where v < 0 (then")
		g.comment("*2^n last)")
		bcast(one(), "Z9")
		g.ins("VMOVAPD Z5, K2, Z9")
		g.sigmoidQuotient(tierAVX512, "Z4", "Z9", "Z6", "K2", false)
		g.comment("*xm, then *2^n where v < 0: a tiny result is rounded once")
		g.ins("VMULPD Z8, Z0, Z0")
		g.ins("VSCALEFPD Z2, Z0, K2, Z0")
	})

	erfR0, erfP := erfTables64(g)
	un("erf", "computes dst[i] = erf(x[i]) for i < n.", (*gen).expSetup512F64, func(g *gen) { g.erf512F64(erfR0, erfP) })
	geluR0, geluP := geluTables64(g)
	g.elementwise(ewKernel{name: "geluErfF64AVX512", e: e, inputs: []string{"x"}, z: true, unroll: 1, okFlag: "K4",
		setup: (*gen).expSetup512F64,
		doc:   fmt.Sprintf("computes dst[i] = 0.5x*erfc(-x/sqrt2), x = x[i], for i < n, leaving x[i] in\n// dst[i] where x[i] < %v or %v <= x[i] < %v; ok is false if it left any.", geluErfFar, -geluErfFar, geluErfNear),
		body:  func(g *gen, u int, in []string) string { g.geluErf512F64(geluR0, geluP); return "Z0" }})

	tabs := logTables64(g) // computed once: the body is emitted for each slot and the tail
	loadTabs := func(g *gen) {
		g.comment("the tables' entries 0-7 and 16-23 (8-15 and 24-31 are read from memory)")
		for i, t := range tabs {
			g.ins("VMOVUPD %s+0(SB), %s", t, logTabRegs[i][0])
			g.ins("VMOVUPD %s+128(SB), %s", t, logTabRegs[i][1])
		}
	}
	fixup := func(g *gen, in string) {
		g.comment("log(±0) = -Inf, log(+Inf) = +Inf, log(x<0) = log(-Inf) = NaN, log(NaN) = NaN:")
		g.comment("VFIXUPIMMPD picks by the input's class (logFixup), positive finite ones keep the result")
		g.ins("VFIXUPIMMPD.BCST $0, %s, %s, Z1", g.v64("dlogfix", logFixup), in)
	}
	un("log", "computes dst[i] = ln(x[i]) for i < n.", loadTabs, func(g *gen) {
		g.logPair512F64(tabs, "Z0", false)
		g.ins("VADDPD Z8, Z9, Z1")
		fixup(g, "Z0")
		g.ins("VMOVAPD Z1, Z0")
	})
	for _, c := range []struct {
		name, doc string
		scale     [2]float64
	}{{"log2", "log2", bigRecipSplit(bigmath.Ln2)}, {"log10", "log10", bigRecipSplit(bigmath.Log(big.NewFloat(10)))}} {
		un(c.name, fmt.Sprintf("computes dst[i] = %s(x[i]) for i < n.", c.doc), loadTabs, func(g *gen) {
			g.logPair512F64(tabs, "Z0", false)
			g.comment("(t + e)*(c + cl), c + cl = 1/ln(base): p = t*c exactly as Z1 + Z2, plus e*c + t*cl")
			hi, lo := g.d(c.name+"chi", c.scale[0]), g.d(c.name+"clo", c.scale[1])
			g.ins("VMULPD.BCST %s, Z9, Z1", hi)
			g.ins("VMOVAPD Z1, Z2")
			g.ins("VFMSUB231PD.BCST %s, Z9, Z2", hi)
			g.ins("VFMADD231PD.BCST %s, Z8, Z2", hi)
			g.ins("VFMADD231PD.BCST %s, Z9, Z2", lo)
			g.ins("VADDPD Z2, Z1, Z1")
			fixup(g, "Z0")
			g.ins("VMOVAPD Z1, Z0")
		})
	}
	un("log1p", "computes dst[i] = ln(1+x[i]) for i < n.", loadTabs, func(g *gen) {
		g.comment("u = 1+x rounded, cor = (x - (u-1))/u (u-1 exact where it matters): log1p x = log u + cor")
		g.ins("VADDPD.BCST %s, Z0, Z11", g.d("done", 1))
		g.ins("VSUBPD.BCST %s, Z11, Z12", g.d("done", 1))
		g.ins("VSUBPD Z12, Z0, Z12")
		g.ins("VDIVPD Z11, Z12, Z12")
		g.logPair512F64(tabs, "Z11", false)
		g.ins("VADDPD Z12, Z8, Z8")
		g.ins("VADDPD Z8, Z9, Z1")
		fixup(g, "Z11")
		g.comment("log1p(±0) = x (the sum gives +0 for -0)")
		g.ins("VPTESTNMQ.BCST %s, Z0, K5", g.v64("absmask64", 1<<63-1))
		g.ins("VMOVAPD Z0, K5, Z1")
		g.ins("VMOVAPD Z1, Z0")
	})
}

// bigRecipSplit returns 1/v as a float64 pair hi + lo.
func bigRecipSplit(v *big.Float) [2]float64 {
	return bigSplit(new(big.Float).SetPrec(300).Quo(big.NewFloat(1), v))
}

// logPair512F64 computes ln of the float64 vector in register in as an
// unrounded pair Z9 + Z8 (the float64 Log rounds their sum; Log2, Log10
// and Log1p work on the pair first), with Z1-Z10 as scratch and the
// tables of logTables64 (tabs, half of each in logTabRegs). Its error is
// about 2^-63 absolute, mostly r^2*Q's rounding; with fine set the tail is
// logPairFine's, about 2^-68.
func (g *gen) logPair512F64(tabs [3]string, in string, fine bool) {
	one := g.d("done", 1)
	g.comment("x = m*2^k, m in [0.75, 1.5), k = exponent(x) (subnormal x too): where m < 1,")
	g.comment("the true exponent is k+1, and the tables' entries 16-31 add that ln2")
	g.ins("VGETMANTPD $3, %s, Z1", in)
	g.ins("VGETEXPPD %s, Z2", in)
	g.comment("j = m's top five fraction bits (its exponent bit above them is ignored):")
	g.comment("bins 1/32 wide above 1 (j < 16), 1/64 below; K2: j >= 16, K4: j < 16")
	g.ins("VPSRLQ $47, Z1, Z3")
	g.ins("VPTESTMQ.BCST %s, Z3, K2", g.v64("q16", 16))
	g.ins("KNOTB K2, K4")
	g.comment("c = invc[j], T = Thi[j] + Tlo[j] = -log(c) (+ln2): two lookups of 16 each")
	for i, dst := range []string{"Z4", "Z5", "Z3"} {
		if dst != "Z3" {
			g.ins("VMOVDQA64 Z3, %s", dst)
		}
		g.ins("VPERMI2PD %s+192(SB), %s, K2, %s", tabs[i], logTabRegs[i][1], dst)
		g.ins("VPERMI2PD %s+64(SB), %s, K4, %s", tabs[i], logTabRegs[i][0], dst)
	}
	g.comment("r = m*c - 1, exact (c has at most 7 significant bits and |r| < 2^-5);")
	g.comment("log1p(r) = r + r^2*Q(r)")
	g.ins("VFMSUB213PD.BCST %s, Z1, Z4", one)
	g.ins("VMULPD Z4, Z4, Z7")
	if fine {
		g.logPairFine(tierAVX512)
		return
	}
	ev, od := logTabHalves()
	g.comment("Q by its even and odd halves in r^2, two shorter chains: Q = E(r^2) + r*O(r^2)")
	g.hornerPD("dlogqe", ev, "Z7", "Z8")
	g.hornerPD("dlogqo", od, "Z7", "Z10")
	g.ins("VFMADD231PD Z10, Z4, Z8")
	g.comment("hi = k*ln2hi + Thi (exact: both on the 2^-43 grid), lo = k*ln2lo + Tlo,")
	g.comment("y = r^2*Q + lo")
	g.ins("VFMADD231PD.BCST %s, Z2, Z5", g.d("ln2hi64", ln2Hi64))
	g.ins("VFMADD231PD.BCST %s, Z2, Z3", g.d("ln2lo64", ln2Lo64))
	g.ins("VFMADD213PD Z3, Z7, Z8")
	g.comment("hi + r = t + err (Fast2Sum: hi = 0, or |hi| > |r|): the pair t (Z9) + (y + err) (Z8)")
	g.ins("VADDPD Z4, Z5, Z9")
	g.ins("VSUBPD Z9, Z5, Z5")
	g.ins("VADDPD Z4, Z5, Z5")
	g.ins("VADDPD Z5, Z8, Z8")
}

// pow512F64 emits the AVX-512 float64 Pow kernels of ordinary lanes,
// <pre>powF64AVX512(dst, x, y *float64, n int) (ok bool) and
// <pre>powScalarF64AVX512(dst, x *float64, y float64, n int) (ok bool): dst
// = x**y where x is finite and not zero (subnormal too) and y finite, and
// ok = false when some lane is not (x NaN, zero or infinite; in the vector
// form y NaN, infinite or one of pow64.Pow's shortcut exponents ±0.5, ±1
// and 2), whose results are meaningless: vec's powVia computes those lanes
// again with pow64.Pow (the scalar form is never called with a shortcut
// exponent). |x|**y = e^(y*ln|x|): ln|x|
// is logPair512F64's fine pair, normalised to hi + lo (about 2^-68
// absolute), y*(hi + lo) the pair ph + pl (ph = y*hi rounded, pl its error
// by an FMA plus y*lo), e^ph the exp core's reduction and tail with pl
// added to the reduced argument, so the product is never rounded to one
// float64 (which would cost up to |y*ln x|*2^-53 relative: 80 ulp near
// overflow). Where the clamp to [-746, 710] moves ph the result is 0 or
// +Inf and pl is dropped. A negative x takes C99's sign: NaN (math.NaN's
// bits) for a y that is not an integer, the sign bit for an odd one (every
// float64 of 2^53 and above is even). Two slots (Z0-Z12, y in Z11 or the
// scalar in Z12, and the same 16 up) beside the log tables in logTabRegs;
// the exp tables are loaded where they are used. K7 collects the lanes for
// Go; K5 (x's sign) and K6 live within one slot. powAVX2 is the same on
// ymm registers.
func (g *gen) pow512F64() {
	tabs := logTables64(g)
	hi, lo := exp2Table()
	th, tl := g.table("dexp2hi", hi), g.table("dexp2lo", lo)
	setup := func(scalar bool) func(g *gen) {
		return func(g *gen) {
			g.comment("the log tables' entries 0-7 and 16-23 (8-15 and 24-31 are read from memory)")
			for i, t := range tabs {
				g.ins("VMOVUPD %s+0(SB), %s", t, logTabRegs[i][0])
				g.ins("VMOVUPD %s+128(SB), %s", t, logTabRegs[i][1])
			}
			if scalar {
				g.comment("the exponent for slot 1 too")
				g.ins("VMOVAPD Z12, Z28")
			}
			g.comment("K1 all ones until the tail sets its mask: the lane checks below look at K1's")
			g.comment("lanes only, so that the tail's zeroed lanes raise nothing")
			g.ins("KXNORW K1, K1, K1")
		}
	}
	body := func(yr string, vector bool) func(g *gen) {
		return func(g *gen) {
			g.comment("K7 |= the lanes that are not ordinary: x NaN, zero or infinite")
			g.ins("VFPCLASSPDZ $0x9f, Z0, K1, K6")
			g.ins("KORB K6, K7, K7")
			if vector {
				g.comment("or y NaN or infinite, or one of pow64.Pow's shortcuts: ±0.5, ±1, 2")
				g.ins("VFPCLASSPDZ $0x99, %s, K1, K6", yr)
				g.ins("KORB K6, K7, K7")
				g.ins("VPANDQ.BCST %s, %s, Z1", g.v64("absmask64", 1<<63-1), yr)
				g.ins("VCMPPD.BCST $0, %s, Z1, K1, K6", g.d("half64", 0.5))
				g.ins("KORB K6, K7, K7")
				g.ins("VCMPPD.BCST $0, %s, Z1, K1, K6", g.d("done", 1))
				g.ins("KORB K6, K7, K7")
				g.ins("VCMPPD.BCST $0, %s, %s, K1, K6", g.d("dtwo", 2), yr)
				g.ins("KORB K6, K7, K7")
			}
			g.comment("K5: x < 0; x = |x|")
			g.ins("VPMOVQ2M Z0, K5")
			g.ins("VPANDQ.BCST %s, Z0, Z0", g.v64("absmask64", 1<<63-1))
			g.logPair512F64(tabs, "Z0", true)
			g.powReduce(tierAVX512, yr)
			g.expTail512F64From(expNoLo, func(g *gen) {
				g.comment("T = 2^(j/16) = Thi + Tlo: two lookups of 16, one half of each table loaded here")
				g.ins("VMOVUPD %s+0(SB), Z6", th)
				g.ins("VPERMI2PD %s+64(SB), Z6, Z5", th)
				g.ins("VMOVUPD %s+0(SB), Z6", tl)
				g.ins("VPERMI2PD %s+64(SB), Z6, Z1", tl)
			})
			g.comment("x < 0 (K5): the sign bit where y is odd (y/2 not an integer), then NaN where y")
			g.comment("is not an integer")
			g.ins("VMULPD.BCST %s, %s, Z1", g.d("half64", 0.5), yr)
			g.ins("VRNDSCALEPD $8, Z1, Z2")
			g.ins("VCMPPD $4, Z2, Z1, K5, K6")
			g.ins("VPORQ.BCST %s, Z0, K6, Z0", g.v64("signmask64", 1<<63))
			g.ins("VRNDSCALEPD $8, %s, Z1", yr)
			g.ins("VCMPPD $4, Z1, %s, K5, K6", yr)
			g.ins("VBROADCASTSD %s, K6, Z0", g.v64("gonan64", math.Float64bits(math.NaN())))
		}
	}
	vk := twoSlots(ewKernel{name: "powF64AVX512", e: f64, inputs: []string{"x", "y"}, z: true, okFlag: "K7",
		doc:   "sets dst[i] = x[i]**y[i] for i < n where x[i] is finite and not zero and y[i] finite and not ±0.5, ±1 or 2; ok is false when some lane is not.",
		setup: setup(false)}, z, 13, 16, body("Z11", true))
	vk.slotReg = func(u, i int) string { return z([]int{0, 11}[i] + 16*u) }
	g.elementwise(vk)
	g.elementwise(twoSlots(ewKernel{name: "powScalarF64AVX512", e: f64, inputs: []string{"x"}, scalars: []string{"y"}, z: true, okFlag: "K7",
		doc:   "sets dst[i] = x[i]**y for i < n where x[i] is finite and not zero (y finite); ok is false when some lane is not.",
		setup: setup(true)}, z, 13, 16, body("Z12", false)))
}

// expF64AVX2 emits the AVX2 float64 Exp and Exp2 kernels: the AVX-512
// kernels' steps (expCore512F64Reduce or exp2Core512F64's reduction, then
// expTail512F64) on ymm registers, with the table entries fetched by
// VGATHERQPD (the tables' bases in R12 and R13; the tail mask takes R8 and R9) and the scaling by
// 2^floor(k/16), which VSCALEFPD does in one step there, split into two
// powers of two built from exponent bits: s*2^n1 is exact, *2^n2 rounds
// once, so a subnormal or overflowing result is rounded as there and the
// kernels give the AVX-512 ones' bits (TestExpLogF64AVX2). Two slots, Y0-Y7
// and Y8-Y15; every constant is read from memory.
func (g *gen) expF64AVX2() {
	setup := g.expTablesAVX2()
	shifter := g.d("shifter64", 0x1.8p52)
	tail := func(g *gen) { g.expTailAVX2("R12", "R13", expNoLo) }
	clamp := func(g *gen, top, bottom float64) {
		g.comment(fmt.Sprintf("clamp to [%g, %g] (x the second source, so NaN passes)", bottom, top))
		g.ins("VMOVUPD %s, Y1", g.d(fmt.Sprintf("d%g", top), top))
		g.ins("VMINPD Y0, Y1, Y0")
		g.ins("VMOVUPD %s, Y1", g.d(fmt.Sprintf("dm%g", -bottom), bottom))
		g.ins("VMAXPD Y0, Y1, Y0")
	}
	exp := func(g *gen) {
		clamp(g, 710, -746)
		g.expReduce(tierAVX2, "")
		tail(g)
	}
	exp2 := func(g *gen) {
		clamp(g, 1025, -1080)
		g.comment("k = round(16x) by the shifter, j = k mod 16 in its low bits; r = (x - k/16)*ln2")
		g.ins("VMOVUPD %s, Y1", shifter)
		g.withConst(tierAVX2, "VFMADD231PD", g.d("d16", expTab), "Y0, Y1")
		g.withConst(tierAVX2, "VSUBPD", shifter, "Y1, Y2")
		g.withConst(tierAVX2, "VMULPD", g.d("d1by16", 1.0/expTab), "Y2, Y2")
		g.ins("VSUBPD Y2, Y0, Y0")
		g.withConst(tierAVX2, "VMULPD", g.d("dln2", math.Ln2), "Y0, Y0")
		tail(g)
	}
	for _, c := range []struct {
		name, doc string
		body      func(g *gen)
	}{{"expF64AVX2", "computes dst[i] = e**x[i] for i < n.", exp}, {"exp2F64AVX2", "computes dst[i] = 2**x[i] for i < n.", exp2}} {
		g.elementwise(twoSlots(ewKernel{name: c.name, doc: c.doc, e: f64, inputs: []string{"x"}, setup: setup}, y, 8, 8, c.body))
	}
}

// logF64AVX2 emits the AVX2 float64 Log, Log2, Log10 and Log1p kernels: the
// AVX-512 kernels' steps (logPair512F64, the pair's sum or its product
// with 1/ln 2 or 1/ln 10 as a pair, logFixup's special values) on ymm
// registers. VGETMANTPD and VGETEXPPD become bit operations (a subnormal
// x scaled by 2^54 first, its exponent 54 less), the three 32-entry
// tables are read by VGATHERQPD (bases in R11, R12 and R13; the tail mask
// takes R8 and R9), and the special values are blends, so the kernels give
// the AVX-512 bits (TestExpLogF64AVX2). One slot: Y0 (x, kept for the
// special values) to Y14.
func (g *gen) logF64AVX2() {
	tabs := logTables64(g)
	pair := func(g *gen) { g.logPairAVX2(false) }
	fixup := func(g *gen) {
		g.comment("logFixup's values: x < 0 (-Inf too): the default NaN; ±0: -Inf; +Inf: +Inf;")
		g.comment("NaN: x quieted")
		zero := g.d("dzero", 0)
		g.ins("VCMPPD $17, %s, Y0, Y6", zero)
		g.ins("VBLENDVPD Y6, %s, Y1, Y1", g.v64("dnanindef", 0xfff8000000000000))
		g.ins("VCMPPD $0, %s, Y0, Y6", zero)
		g.ins("VBLENDVPD Y6, %s, Y1, Y1", g.d("dneginf", math.Inf(-1)))
		g.ins("VCMPPD $0, %s, Y0, Y6", g.d("dposinf", math.Inf(1)))
		g.ins("VBLENDVPD Y6, Y0, Y1, Y1")
		g.ins("VCMPPD $3, Y0, Y0, Y6")
		g.withConst(tierAVX2, "VORPD", g.v64("quietbit64", 1<<51), "Y0, Y7")
		g.ins("VBLENDVPD Y6, Y7, Y1, Y1")
	}
	kernel := func(name, doc string, fromPair func(g *gen)) {
		k := ewKernel{name: name, doc: doc, e: f64, inputs: []string{"x"}, unroll: 1,
			setup: func(g *gen) {
				for i, r := range []string{"R11", "R12", "R13"} {
					g.ins("LEAQ %s(SB), %s", tabs[i], r)
				}
			}}
		k.body = func(g *gen, u int, in []string) string {
			pair(g)
			fromPair(g)
			fixup(g)
			return "Y1"
		}
		g.elementwise(k)
	}
	kernel("logF64AVX2", "computes dst[i] = ln(x[i]) for i < n.", func(g *gen) { g.ins("VADDPD Y8, Y9, Y1") })
	g.elementwise(ewKernel{name: "log1pF64AVX2", doc: "computes dst[i] = ln(1+x[i]) for i < n.", e: f64, inputs: []string{"x"}, unroll: 1,
		setup: func(g *gen) {
			for i, r := range []string{"R11", "R12", "R13"} {
				g.ins("LEAQ %s(SB), %s", tabs[i], r)
			}
		},
		body: func(g *gen, u int, in []string) string {
			one := g.d("done", 1)
			g.comment("the AVX-512 Log1p's steps: u = 1+x rounded (Y0; x kept in Y11), cor = (x -")
			g.comment("(u-1))/u (Y12, u-1 exact where it matters): log1p x = log u + cor")
			g.ins("VMOVAPD Y0, Y11")
			g.withConst(tierAVX2, "VADDPD", one, "Y11, Y0")
			g.withConst(tierAVX2, "VSUBPD", one, "Y0, Y12")
			g.ins("VSUBPD Y12, Y11, Y12")
			g.ins("VDIVPD Y0, Y12, Y12")
			pair(g)
			g.ins("VADDPD Y12, Y8, Y8")
			g.ins("VADDPD Y8, Y9, Y1")
			fixup(g)
			g.comment("log1p(±0) = x (the sum gives +0 for -0)")
			g.withConst(tierAVX2, "VANDPD", g.v64("absmask64", 1<<63-1), "Y11, Y2")
			g.ins("VCMPPD $0, %s, Y2, Y2", g.d("dzero", 0))
			g.ins("VBLENDVPD Y2, Y11, Y1, Y1")
			return "Y1"
		}})
	for _, c := range []struct {
		name, doc string
		scale     [2]float64
	}{{"log2", "log2", bigRecipSplit(bigmath.Ln2)}, {"log10", "log10", bigRecipSplit(bigmath.Log(big.NewFloat(10)))}} {
		kernel(c.name+"F64AVX2", fmt.Sprintf("computes dst[i] = %s(x[i]) for i < n.", c.doc), func(g *gen) {
			g.comment("(t + e)*(c + cl), c + cl = 1/ln(base): p = t*c exactly as Y1 + Y2, plus e*c + t*cl")
			hi, lo := g.d(c.name+"chi", c.scale[0]), g.d(c.name+"clo", c.scale[1])
			g.withConst(tierAVX2, "VMULPD", hi, "Y9, Y1")
			g.ins("VMOVAPD Y1, Y2")
			g.withConst(tierAVX2, "VFMSUB231PD", hi, "Y9, Y2")
			g.withConst(tierAVX2, "VFMADD231PD", hi, "Y8, Y2")
			g.withConst(tierAVX2, "VFMADD231PD", lo, "Y9, Y2")
			g.ins("VADDPD Y2, Y1, Y1")
		})
	}
}

// logPairAVX2 is logPair512F64 on ymm registers, of x in Y0 (kept): ln x
// as the unrounded pair Y9 + Y8, with Y1-Y10 as scratch; the three tables
// (tabs, logTables64's) are read by VGATHERQPD from R11, R12 and R13, which
// the kernel's setup loads. With fine set the tail is logPairFine's. For x
// zero, negative, infinite or NaN the pair is meaningless.
func (g *gen) logPairAVX2(fine bool) {
	one := g.d("done", 1)
	g.comment("a subnormal x (x < 2^-1022; zeros and negatives are mended last) is scaled by")
	g.comment("2^54 into Y1, its exponent lowered by 54 (Y7)")
	g.ins("VCMPPD $1, %s, Y0, Y6", g.d("dtiny", 0x1p-1022))
	g.withConst(tierAVX2, "VMULPD", g.d("d2p54", 0x1p54), "Y0, Y1")
	g.ins("VBLENDVPD Y6, Y1, Y0, Y1")
	g.withConst(tierAVX2, "VANDPD", g.d("dm54", -54), "Y6, Y7")
	g.comment("k = exponent (the biased field, by 2^52 + field - (2^52 + 1023)); m = the")
	g.comment("significand in [1, 2), halved from 1.5 on into [0.75, 1) (bins 16-31, whose")
	g.comment("table entries add the ln2 that k lacks): VGETEXPPD's and VGETMANTPD $3's values")
	g.ins("VPSRLQ $52, Y1, Y2")
	g.withConst(tierAVX2, "VPOR", g.v64("d2p52bits", math.Float64bits(0x1p52)), "Y2, Y2")
	g.withConst(tierAVX2, "VSUBPD", g.d("d2p52bias", 0x1p52+1023), "Y2, Y2")
	g.ins("VADDPD Y7, Y2, Y2")
	g.withConst(tierAVX2, "VANDPD", g.v64("mantmask64", 1<<52-1), "Y1, Y1")
	g.withConst(tierAVX2, "VORPD", one, "Y1, Y1")
	g.ins("VCMPPD $13, %s, Y1, Y6", g.d("d1p5", 1.5))
	g.withConst(tierAVX2, "VMULPD", g.d("half64", 0.5), "Y1, Y3")
	g.ins("VBLENDVPD Y6, Y3, Y1, Y1")
	g.comment("j = m's top five fraction bits; c = invc[j], Thi[j], Tlo[j] by gathers")
	g.ins("VPSRLQ $47, Y1, Y3")
	g.withConst(tierAVX2, "VPAND", g.v64("q31", 31), "Y3, Y3")
	for i, dst := range []string{"Y4", "Y5", "Y6"} {
		g.ins("VPCMPEQQ Y10, Y10, Y10")
		g.ins("VGATHERQPD Y10, (%s)(Y3*8), %s", []string{"R11", "R12", "R13"}[i], dst)
	}
	g.comment("r = m*c - 1, exact; r^2")
	g.withConst(tierAVX2, "VFMSUB213PD", one, "Y1, Y4")
	g.ins("VMULPD Y4, Y4, Y7")
	if fine {
		g.logPairFine(tierAVX2)
		return
	}
	g.comment("log1p(r) = r + r^2*Q(r), Q = E(r^2) + r*O(r^2)")
	ev, od := logTabHalves()
	g.hornerPDOn(tierAVX2, "dlogqe", ev, "Y7", "Y8")
	g.hornerPDOn(tierAVX2, "dlogqo", od, "Y7", "Y9")
	g.ins("VFMADD231PD Y9, Y4, Y8")
	g.comment("hi = k*ln2hi + Thi (exact), lo = k*ln2lo + Tlo; y = r^2*Q + lo")
	g.withConst(tierAVX2, "VFMADD231PD", g.d("ln2hi64", ln2Hi64), "Y2, Y5")
	g.withConst(tierAVX2, "VFMADD231PD", g.d("ln2lo64", ln2Lo64), "Y2, Y6")
	g.ins("VFMADD213PD Y6, Y7, Y8")
	g.comment("hi + r = t + err (Fast2Sum): the pair t (Y9) + (y + err) (Y8)")
	g.ins("VADDPD Y4, Y5, Y9")
	g.ins("VSUBPD Y9, Y5, Y5")
	g.ins("VADDPD Y4, Y5, Y5")
	g.ins("VADDPD Y5, Y8, Y8")
}

// expTailAVX2 is expTail512F64 on ymm registers (AVX2's Exp, Pow,
// Sigmoid, Tanh and Expm1): from r (Y0), the shifted k (Y1, j = k mod 16
// in its low bits) and k/16 (Y2), Y0 = 2^(j/16)*e^r*2^floor(k/16), the
// table entries gathered from the bases in hiBase and loBase, the scaling
// in two steps that round once (so each scaled value is VSCALEFPD's);
// Y3-Y7 scratch. lo as there: expLoScaled leaves the sum's rounding error,
// scaled, in Y6; expSplit leaves 2^n*Thi in Y5, 2^n*(Thi*q + Tlo) in Y6
// and the sum e^x (rounded, then scaled) in Y8 instead of Y0; and
// expLoUnscaled leaves the sum and its error unscaled in Y5 and Y6, with
// k/16 still in Y2. All but expNoLo take Y8 as scratch too.
func (g *gen) expTailAVX2(hiBase, loBase string, lo expLo) {
	g.comment("q = e^r - 1 = r + r^2*P(r) (r in Y0, the shifted k in Y1, k/16 in Y2)")
	g.hornerPDOn(tierAVX2, "dexpp", expCoeffs64(), "Y0", "Y3")
	g.ins("VMULPD Y0, Y0, Y4")
	g.ins("VFMADD213PD Y0, Y4, Y3")
	g.comment("T = 2^(j/16) = Thi + Tlo by gathers (j = k mod 16); T*e^r = Thi + (Thi*q + Tlo)")
	g.ins("VANDPD %s, Y1, Y4", g.v64("q15", 15))
	g.ins("VPCMPEQQ Y7, Y7, Y7")
	g.ins("VGATHERQPD Y7, (%s)(Y4*8), Y5", hiBase)
	g.ins("VPCMPEQQ Y7, Y7, Y7")
	g.ins("VGATHERQPD Y7, (%s)(Y4*8), Y6", loBase)
	g.ins("VFMADD231PD Y3, Y5, Y6")
	switch lo {
	case expLoScaled, expLoUnscaled:
		g.ins("VMOVAPD Y5, Y8")
		g.ins("VADDPD Y6, Y5, Y5")
		g.comment("the sum's rounding error (Fast2Sum: |Thi| >= |Thi*q + Tlo|)")
		g.ins("VSUBPD Y5, Y8, Y8")
		g.ins("VADDPD Y6, Y8, Y6")
	case expSplit:
		g.ins("VADDPD Y6, Y5, Y8")
	default:
		g.ins("VADDPD Y6, Y5, Y5")
	}
	if lo == expLoUnscaled {
		return
	}
	g.scalesAVX2("Y2", "Y3", "Y2")
	scale := func(src, dst string) {
		g.ins("VMULPD Y3, %s, %s", src, dst)
		g.ins("VMULPD Y2, %s, %s", dst, dst)
	}
	switch lo {
	case expSplit:
		scale("Y8", "Y8")
		scale("Y5", "Y5")
		scale("Y6", "Y6")
	case expLoScaled:
		scale("Y5", "Y0")
		scale("Y6", "Y6")
	default:
		scale("Y5", "Y0")
	}
}

// expm1F64AVX2 emits the AVX2 float64 Expm1 kernel: expm1512F64's two
// sides on ymm registers, both computed and blended (the AVX-512 one
// branches on the lanes' mix), so its bits (TestExpLogF64AVX2): below
// |x| = expm1Cut the series (expm1Series); from there on 2^n*Thi - 1 by
// TwoSum plus 2^n*(Thi*q + Tlo) (expTailAVX2's split, x clamped to [-746,
// 710]), and e^x itself from x = 38 on; then x's sign, and a NaN x
// quieted. One slot: x in Y11, the side mask in Y12.
func (g *gen) expm1F64AVX2() {
	one := g.d("done", 1)
	g.expKernelAVX2("expm1F64AVX2", "computes dst[i] = e**x[i] - 1 for i < n.", func(g *gen) string {
		g.comment("Y12: lanes with |x| < ln2/2 (NaN compares false), the series' side")
		g.ins("VMOVAPD Y0, Y11")
		g.withConst(tierAVX2, "VANDPD", g.v64("absmask64", 1<<63-1), "Y0, Y1")
		g.ins("VCMPPD $1, %s, Y1, Y12", g.d("dexpm1cut", expm1Cut))
		g.comment("x clamped to [-746, 710] (x the second source, so NaN passes)")
		g.ins("VMOVUPD %s, Y1", g.d("d710", 710))
		g.ins("VMINPD Y0, Y1, Y0")
		g.ins("VMOVUPD %s, Y1", g.d("dm746", -746))
		g.ins("VMAXPD Y0, Y1, Y0")
		g.expReduce(tierAVX2, "")
		g.expTailAVX2("R12", "R13", expSplit)
		g.comment("A - 1 = s + e (TwoSum, A = 2^n*Thi), result s + (e + B); from x = 38 on, e^x (Y8)")
		g.withConst(tierAVX2, "VSUBPD", one, "Y5, Y3")
		g.ins("VSUBPD Y5, Y3, Y4")
		g.ins("VSUBPD Y4, Y3, Y7")
		g.ins("VSUBPD Y7, Y5, Y7")
		g.withConst(tierAVX2, "VADDPD", one, "Y4, Y4")
		g.ins("VSUBPD Y4, Y7, Y7")
		g.ins("VADDPD Y6, Y7, Y7")
		g.ins("VADDPD Y7, Y3, Y5")
		g.ins("VCMPPD $0x1e, %s, Y11, Y4", g.d("d38", 38))
		g.ins("VBLENDVPD Y4, Y8, Y5, Y5")
		g.comment("the series' side, blended in by Y12")
		g.expm1Series(tierAVX2, "Y11", "Y1")
		g.ins("VBLENDVPD Y12, Y1, Y5, Y5")
		g.comment("x's sign onto the result; a NaN x quieted")
		g.copySignAVX2("Y5", "Y11", "Y3", "Y0")
		g.quietNaNAVX2("Y11", "Y0", "Y0", "Y3", "Y4", false)
		return "Y0"
	})
}

// expKernelAVX2 emits an AVX2 float64 kernel built on expTailAVX2: one
// slot, x in Y0, the exp tables' bases in R12 and R13 (the gathers'), body
// returning the register of the result.
func (g *gen) expKernelAVX2(name, doc string, body func(g *gen) string) {
	g.elementwise(ewKernel{name: name, doc: doc, e: f64, inputs: []string{"x"}, unroll: 1,
		setup: g.expTablesAVX2(),
		body:  func(g *gen, u int, in []string) string { return body(g) }})
}

// expTablesAVX2 registers the exp tail's 2^(j/16) tables and returns the
// setup that loads their bases into R12 and R13, where expTailAVX2's
// gathers read them.
func (g *gen) expTablesAVX2() func(g *gen) {
	hi, lo := exp2Table()
	th, tl := g.table("dexp2hi", hi), g.table("dexp2lo", lo)
	return func(g *gen) {
		g.ins("LEAQ %s(SB), R12", th)
		g.ins("LEAQ %s(SB), R13", tl)
	}
}

// copySignAVX2 sets dst to the magnitude of mag with x's sign (tmp is
// scratch; mag becomes its magnitude).
func (g *gen) copySignAVX2(mag, x, tmp, dst string) {
	g.withConst(tierAVX2, "VANDPD", g.v64("absmask64", 1<<63-1), mag+", "+mag)
	g.withConst(tierAVX2, "VANDPD", g.v64("signmask64", 1<<63), x+", "+tmp)
	g.ins("VORPD %s, %s, %s", tmp, mag, dst)
}

// quietNaNAVX2 sets dst to res, or to x quieted where x is NaN (its
// magnitude with abs): the AVX-512 kernels' NaN, which keeps x's payload,
// where the two-step scaling of a NaN k can make a NaN of its own (a NaN's
// bits shifted into an exponent read as an infinity times 0). t1 and t2
// are scratch.
func (g *gen) quietNaNAVX2(x, res, dst, t1, t2 string, abs bool) {
	g.ins("VCMPPD $3, %s, %s, %s", x, x, t1)
	g.withConst(tierAVX2, "VORPD", g.v64("quietbit64", 1<<51), x+", "+t2)
	if abs {
		g.withConst(tierAVX2, "VANDPD", g.v64("absmask64", 1<<63-1), t2+", "+t2)
	}
	g.ins("VBLENDVPD %s, %s, %s, %s", t1, t2, res, dst)
}

// rcpAVX2 sets dst to 1/d within 1.5*2^-12 (VRCPPS on d rounded to
// float32; AVX2 has no float64 estimate), for the corrections of the
// Tanh and Sigmoid quotients, where VRCP14PD serves on AVX-512.
func (g *gen) rcpAVX2(d, dst string) {
	x := "X" + dst[1:]
	g.ins("VCVTPD2PSY %s, %s", d, x)
	g.ins("VRCPPS %s, %s", x, x)
	g.ins("VCVTPS2PD %s, %s", x, dst)
}

// scalesAVX2 sets f1 and f2 to the powers of two whose product scales by
// 2^floor(m) for the float64 m in register m (which may be f2): m =
// floor(m), n1 = floor(m/2), 2^n1 and 2^(m - n1), each from its exponent
// in the low bits of the value plus 1.5*2^52 + 1023. Multiplying by f1 and
// then f2 rounds once (the first product is exact for the values the
// kernels scale), as VSCALEFPD does, where 2^m alone could overflow.
func (g *gen) scalesAVX2(m, f1, f2 string) {
	g.comment("n = floor(m) = n1 + n2, n1 = floor(n/2): (s*2^n1)*2^n2, the first product")
	g.comment("exact, the second rounded once; 2^m from m + 1023 in the shifter's low bits")
	g.ins("VROUNDPD $1, %s, %s", m, f2)
	g.withConst(tierAVX2, "VMULPD", g.d("half64", 0.5), f2+", "+f1)
	g.ins("VROUNDPD $1, %s, %s", f1, f1)
	g.ins("VSUBPD %s, %s, %s", f1, f2, f2)
	bias := g.d("shifterbias64", 0x1.8p52+1023)
	for _, r := range []string{f1, f2} {
		g.withConst(tierAVX2, "VADDPD", bias, r+", "+r)
		g.ins("VPSLLQ $52, %s, %s", r, r)
	}
}

// hyperbolicF64AVX2 emits the AVX2 float64 Cosh and Sinh kernels:
// hyperbolic512F64's steps on ymm registers, e^a unscaled as S + Sl
// (expTailAVX2's expLoUnscaled), q = 1/S with its correction, the scalings
// by 2^(n-1) and 2^-(n+1) in two steps each (scalesAVX2, VSCALEFPD's
// values), the Fast2Sum and +Inf where e^a/2 overflowed; Sinh's series
// side below a = 1/2 computed too and blended, then x's sign, and a NaN x
// quieted (Cosh: |x|). The AVX-512 bits (TestExpLogF64AVX2). One slot: x in Y11, a
// in Y10 (Sinh), the side mask in Y12, the scales in Y13 and Y14.
func (g *gen) hyperbolicF64AVX2() {
	one := g.d("done", 1)
	for _, op := range []string{"cosh", "sinh"} {
		g.expKernelAVX2(op+"F64AVX2", fmt.Sprintf("computes dst[i] = %s(x[i]) for i < n.", op), func(g *gen) string {
			g.ins("VMOVAPD Y0, Y11")
			g.withConst(tierAVX2, "VANDPD", g.v64("absmask64", 1<<63-1), "Y0, Y0")
			if op == "sinh" {
				g.comment("Y12: lanes with a < 1/2 (NaN compares false), the series' side")
				g.ins("VCMPPD $1, %s, Y0, Y12", g.d("dhalf", 0.5))
				g.ins("VMOVAPD Y0, Y10")
			}
			g.comment("a clamped to 712 (x the second source, so NaN passes), past which both overflow")
			g.ins("VMOVUPD %s, Y1", g.d("d712", 712))
			g.ins("VMINPD Y0, Y1, Y0")
			g.expReduce(tierAVX2, "")
			g.expTailAVX2("R12", "R13", expLoUnscaled)
			g.hyperRecip(tierAVX2)
			g.comment("scales: n-1 for e^a/2, -(n+1) for e^-a/2")
			g.ins("VROUNDPD $1, Y2, Y4")
			g.withConst(tierAVX2, "VSUBPD", one, "Y2, Y2")
			g.withConst(tierAVX2, "VADDPD", one, "Y4, Y4")
			g.withConst(tierAVX2, "VXORPD", g.v64("signmask64", 1<<63), "Y4, Y4")
			g.scalesAVX2("Y2", "Y13", "Y14")
			for _, r := range [][2]string{{"Y5", "Y8"}, {"Y6", "Y9"}} {
				g.ins("VMULPD Y13, %s, %s", r[0], r[1])
				g.ins("VMULPD Y14, %s, %s", r[1], r[1])
			}
			g.scalesAVX2("Y4", "Y13", "Y14")
			for _, r := range []string{"Y1", "Y3"} {
				g.ins("VMULPD Y13, %s, %s", r, r)
				g.ins("VMULPD Y14, %s, %s", r, r)
			}
			g.hyperSum(tierAVX2, op)
			g.comment("where e^a/2 overflowed, +Inf (the Fast2Sum made it NaN)")
			g.ins("VCMPPD $0, %s, Y8, Y4", g.d("dposinf", math.Inf(1)))
			g.ins("VBLENDVPD Y4, Y8, Y5, Y5")
			if op == "sinh" {
				g.comment("the series' side, blended in by Y12; then x's sign")
				g.sinhSeries(tierAVX2, "Y10", "Y1")
				g.ins("VBLENDVPD Y12, Y1, Y5, Y5")
				g.copySignAVX2("Y5", "Y11", "Y3", "Y5")
			}
			g.comment("a NaN x quieted (|x| for Cosh)")
			g.quietNaNAVX2("Y11", "Y5", "Y0", "Y3", "Y4", op == "cosh")
			return "Y0"
		})
	}
}

// tanhF64AVX2 emits the AVX2 float64 Tanh kernel: the AVX-512 kernel's
// two sides on ymm registers, both computed and blended (the AVX-512 one
// branches on the lanes' mix): below |x| = 0.25 x + x^3*P(x^2); above, 1 -
// 2/(E + 1) with E = e^(2a), a = min(|x|, 20), as hi + lo (expReduce and
// expTailAVX2 with lo, tables from R12 and R13), 2/(d + dlo) = qh + ql,
// qh = 2/d rounded, ql = (2 - qh*d - qh*dlo)*(1/d) with 1/d from VRCPPS
// (2^-12; VRCP14PD's 2^-14 there), and 1 - qh - ql by Fast2Sum; then x's
// sign. Within 1 ulp of the exact tanh as the AVX-512 kernel
// (TestExpLogF64AVX2); the large side is tanhLarge, the AVX-512 kernel's.
// One slot: x in Y11, x^2 in Y9, the side mask in Y10.
func (g *gen) tanhF64AVX2() {
	g.expKernelAVX2("tanhF64AVX2", "computes dst[i] = tanh(x[i]) for i < n.", func(g *gen) string {
		g.comment("Y10: lanes with x^2 < 0.0625 (|x| < 0.25; NaN compares false)")
		g.ins("VMOVAPD Y0, Y11")
		g.ins("VMULPD Y0, Y0, Y9")
		g.ins("VCMPPD $1, %s, Y9, Y10", g.d("d00625", 0.0625))
		g.comment("E = e^(2a) = Y0 + Y6, a = min(|x|, 20) (x the second source, so NaN passes;")
		g.comment("above 20 the result rounds to 1)")
		g.withConst(tierAVX2, "VANDPD", g.v64("absmask64", 1<<63-1), "Y0, Y0")
		g.ins("VMOVUPD %s, Y1", g.d("d20", 20))
		g.ins("VMINPD Y0, Y1, Y0")
		g.ins("VADDPD Y0, Y0, Y0")
		g.expReduce(tierAVX2, "")
		g.expTailAVX2("R12", "R13", expLoScaled)
		g.tanhLarge(tierAVX2)
		g.comment("|x| < 0.25: x + x^3*P(x^2), blended in by Y10")
		g.hornerPDOn(tierAVX2, "dtanhp", tanhCoeffs64(), "Y9", "Y5")
		g.ins("VMULPD Y11, Y9, Y9")
		g.ins("VFMADD213PD Y11, Y9, Y5")
		g.ins("VBLENDVPD Y10, Y5, Y2, Y2")
		g.comment("x's sign onto the magnitude")
		g.copySignAVX2("Y2", "Y11", "Y3", "Y0")
		return "Y0"
	})
}

// sigmoidF64AVX2 emits the AVX2 float64 Sigmoid kernel: the AVX-512
// kernel's steps on ymm registers. e = e^-|x| as hi + lo (expReduce and
// expTailAVX2 with lo, the tables gathered from R12 and R13); the quotient
// num/(1 + e), num = 1 (x >= 0) or e (x < 0, a blend on x's sign), as q =
// num/d rounded, d = 1 + e, then q + res*(1/d) with res = num - q*d -
// q*dlo (+ lo where num is e) exact to the FMAs, dlo = (1 - d) + e + lo
// (Fast2Sum), and 1/d from VRCPPS: its 2^-12 (VRCP14PD's 2^-14 there)
// errs by 2^-65 of the result, so the kernel is within 1 ulp of the exact
// sigmoid as the AVX-512 one (TestExpLogF64AVX2). One slot: x in Y0, kept
// in Y11.
func (g *gen) sigmoidF64AVX2() {
	one := g.d("done", 1)
	g.expKernelAVX2("sigmoidF64AVX2", "computes dst[i] = 1/(1+e**-x[i]) for i < n.", func(g *gen) string {
		g.comment("e = e^-|x| = Y0 + Y6, -|x| clamped at -746 (x the second source, so NaN passes)")
		g.ins("VMOVAPD Y0, Y11")
		g.withConst(tierAVX2, "VORPD", g.v64("signmask64", 1<<63), "Y0, Y0")
		g.ins("VMOVUPD %s, Y1", g.d("dm746", -746))
		g.ins("VMAXPD Y0, Y1, Y0")
		g.expReduce(tierAVX2, "")
		g.expTailAVX2("R12", "R13", expLoScaled)
		g.comment("num = e where x < 0 (x's sign), else 1; the quotient num/(1 + e + lo)")
		g.ins("VMOVUPD %s, Y2", one)
		g.ins("VBLENDVPD Y11, Y0, Y2, Y2")
		g.sigmoidQuotient(tierAVX2, "Y6", "Y2", "Y6", "Y11", false)
		return "Y0"
	})
}

// geluTanhF64AVX2 emits the AVX2 float64 GeluTanh kernel: the AVX-512
// kernel's steps on ymm registers. v = vh + vl from x (geluTanhArg, the
// multiplier xm in Y11), e = e^-|vh| unscaled as hi + lo (expReduce and
// expTailAVX2's expLoUnscaled, -|vh| clamped at -760) with the error
// gaining e*ul, ul = vl where v < 0 and -vl elsewhere; the quotient
// sigmoid(v) = num/(1 + e) of the Sigmoid kernels (sigmoidQuotient, num
// = 1, or the unscaled e where v < 0), times xm, and then the scaling by
// 2^n where v < 0, in two steps (scalesAVX2, VSCALEFPD's values), so
// that a tiny result is rounded once. One slot: vh's sign in Y12, the
// scales in Y13 and Y14.
func (g *gen) geluTanhF64AVX2() {
	sign := g.v64("signmask64", 1<<63)
	g.expKernelAVX2("geluTanhF64AVX2", "computes dst[i] = 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))), x = x[i], for i < n.", func(g *gen) string {
		g.geluTanhArg(tierAVX2, "Y11")
		g.comment("Y12: vh (its sign marks v < 0); ul = vl there, -vl elsewhere (Y10)")
		g.ins("VMOVAPD Y0, Y12")
		g.withConst(tierAVX2, "VXORPD", sign, "Y9, Y10")
		g.ins("VBLENDVPD Y0, Y9, Y10, Y10")
		g.comment("e = e^-|vh|, -|vh| clamped at -760 (vh the second source, so NaN passes):")
		g.comment("e^-760*30 rounds to 0 after the scaling, which comes last")
		g.withConst(tierAVX2, "VORPD", sign, "Y0, Y0")
		g.ins("VMOVUPD %s, Y1", g.d("dm760", -760))
		g.ins("VMAXPD Y0, Y1, Y0")
		g.expReduce(tierAVX2, "")
		g.expTailAVX2("R12", "R13", expLoUnscaled)
		g.comment("e = (Y5 + Y6)*2^n unscaled; the error gains e*ul; scaled into Y0 and Y4")
		g.ins("VFMADD231PD Y10, Y5, Y6")
		g.scalesAVX2("Y2", "Y13", "Y14")
		for _, r := range [][2]string{{"Y5", "Y0"}, {"Y6", "Y4"}} {
			g.ins("VMULPD Y13, %s, %s", r[0], r[1])
			g.ins("VMULPD Y14, %s, %s", r[1], r[1])
		}
		g.comment("sigmoid = m/(1+e), m = 1 where v >= 0, the unscaled e where v < 0 (then")
		g.comment("*2^n last)")
		g.ins("VMOVUPD %s, Y9", g.d("done", 1))
		g.ins("VBLENDVPD Y12, Y5, Y9, Y9")
		g.sigmoidQuotient(tierAVX2, "Y4", "Y9", "Y6", "Y12", true)
		g.comment("*xm, then *2^n where v < 0: a tiny result is rounded once")
		g.ins("VMULPD Y11, Y0, Y0")
		g.ins("VMULPD Y13, Y0, Y1")
		g.ins("VMULPD Y14, Y1, Y1")
		g.ins("VBLENDVPD Y12, Y1, Y0, Y0")
		return "Y0"
	})
}

// erfF64AVX2 emits the AVX2 float64 Erf kernel: erf512F64's steps on ymm
// registers, with its branches (a vector whose lanes are all below
// erf64Cut skips the erfc side, one with none skips the series; VMOVMSKPD
// for KORTESTB): the bins' coefficients and R0 gathered (erfcBins), e^-h
// from expReduce and expTailAVX2 with expLoScaled (erfcProduct, a^2's low
// part kept in Y13), 1 - erfc by Fast2Sum with x's sign, and below the
// cut x + x*Q(x^2) (erfQ), blended in. One slot: x in Y11, the cut's mask
// in Y12.
func (g *gen) erfF64AVX2() {
	r0, p := erfTables64(g)
	one := g.d("done", 1)
	g.expKernelAVX2("erfF64AVX2", "computes dst[i] = erf(x[i]) for i < n.", func(g *gen) string {
		small, join := g.uniq("erfsmall"), g.uniq("erfjoin")
		g.ins("VMOVAPD Y0, Y11")
		g.comment("a = min(|x|, erf64Top) (a the second source, so NaN passes); Y12: lanes with")
		g.comment("a < erf64Cut (NaN compares false), one bit per lane in AX")
		g.withConst(tierAVX2, "VANDPD", g.v64("absmask64", 1<<63-1), "Y0, Y8")
		g.ins("VCMPPD $1, %s, Y8, Y12", g.d("derfcut", erf64Cut))
		g.ins("VMOVUPD %s, Y1", g.d("derftop", erf64Top))
		g.ins("VMINPD Y8, Y1, Y8")
		g.ins("VMOVMSKPD Y12, AX")
		g.ins("CMPL AX, $15")
		g.ins("JEQ  %s", small)
		g.erfcBins(tierAVX2, r0, p)
		g.erfcProduct(tierAVX2, "Y13", func(g *gen) {
			g.expReduce(tierAVX2, "")
			g.expTailAVX2("R12", "R13", expLoScaled)
		})
		g.comment("1 - p1 = s + err (Fast2Sum: p1 < 1), erf = s + (err - p1e - corr), then x's")
		g.comment("sign (erf of a is positive), into Y5")
		g.ins("VMOVUPD %s, Y4", one)
		g.ins("VSUBPD Y1, Y4, Y3")
		g.ins("VSUBPD Y3, Y4, Y4")
		g.ins("VSUBPD Y1, Y4, Y4")
		g.ins("VSUBPD Y2, Y4, Y4")
		g.ins("VSUBPD Y9, Y4, Y4")
		g.ins("VADDPD Y4, Y3, Y3")
		g.withConst(tierAVX2, "VANDPD", g.v64("signmask64", 1<<63), "Y11, Y5")
		g.ins("VORPD Y3, Y5, Y5")
		g.ins("VMOVMSKPD Y12, AX")
		g.ins("TESTL AX, AX")
		g.ins("JEQ  %s", join)
		g.label(small)
		g.comment("|x| < erf64Cut: x + x*Q(t), t = x^2 = t + tl exactly, Q(t+tl) = Q(t) + Q'(0)*tl;")
		g.comment("only Y12's lanes are kept")
		g.erfQ(tierAVX2, "Y11")
		g.ins("VFMADD213PD Y11, Y11, Y3")
		g.ins("VBLENDVPD Y12, Y3, Y5, Y5")
		g.label(join)
		return "Y5"
	})
}

// geluErfF64AVX2 emits the AVX2 float64 GeluErf kernel, geluErf512F64's
// contract and steps on ymm registers: a = ah + al (geluErfArg), the erfc
// side from erf's bins (erfcBins, the VPERMPS lookups, and erfcProduct,
// e^-b^2 from expReduce and expTailAVX2), halved where ah < 0 into 2 -
// erfc (twoMinusErfc), the series side below b = erf64Cut (geluErfSmall),
// each skipped by a branch when no lane takes it, and x*(eh + el)/2. With
// fewer registers than on zmm, al is computed again for the series side
// (the same operations, so the same bits) and the lane masks are taken
// where they are used: b < erf64Cut from ah, and at the end the lanes for
// Go (ORed into the ok flag Y14) and those from geluErfNear on from x.
// One slot: x in Y11, ah in Y12, al and then a^2's low part in Y13, the
// halves of erfc/2 in Y9 and Y10.
func (g *gen) geluErfF64AVX2() {
	t := tierAVX2
	r0, p := geluTables64(g)
	abs, sign := g.v64("absmask64", 1<<63-1), g.v64("signmask64", 1<<63)
	cut := g.d("derfcut", erf64Cut)
	body := func(g *gen) string {
		small, join := g.uniq("gelusmall"), g.uniq("gelujoin")
		g.ins("VMOVAPD Y0, Y11")
		g.geluErfArg(t, "Y12", "Y13")
		g.comment("b = |ah| (Y8, clamped to the bins' top); all lanes b < erf64Cut (NaN compares")
		g.comment("false): the series side alone")
		g.withConst(t, "VANDPD", abs, "Y12, Y8")
		g.ins("VCMPPD $1, %s, Y8, Y1", cut)
		g.ins("VMOVMSKPD Y1, AX")
		g.ins("CMPL AX, $15")
		g.ins("JEQ  %s", small)
		g.ins("VMOVUPD %s, Y1", g.d("dgelutop", geluBinsTop))
		g.ins("VMINPD Y8, Y1, Y8")
		g.erfcBins(t, r0, p)
		g.comment("bl = al with ah's sign taken off; uP - bl*2/sqrt(pi)")
		g.withConst(t, "VANDPD", sign, "Y12, Y1")
		g.ins("VXORPD Y13, Y1, Y1")
		g.withConst(t, "VFNMADD231PD", g.d("dtwooversqrtpi", 2/math.SqrtPi), "Y1, Y9")
		g.erfcProduct(t, "Y13", func(g *gen) {
			g.expReduce(t, "")
			g.expTailAVX2("R12", "R13", expLoScaled)
		})
		g.comment("erfc(b) = p1 + (p1e + corr) for ah > 0, 2 - erfc(b) for ah < 0 (its sign),")
		g.comment("into Y9 + Y10")
		g.ins("VADDPD Y9, Y2, Y2")
		g.twoMinusErfc(t)
		g.ins("VBLENDVPD Y12, Y3, Y1, Y9")
		g.ins("VBLENDVPD Y12, Y4, Y2, Y10")
		g.label(small)
		g.comment("Y8: lanes with b < erf64Cut; none: done")
		g.withConst(t, "VANDPD", abs, "Y12, Y1")
		g.ins("VCMPPD $1, %s, Y1, Y8", cut)
		g.ins("VMOVMSKPD Y8, AX")
		g.ins("TESTL AX, AX")
		g.ins("JEQ  %s", join)
		g.comment("the series side (al again, from x), blended in by Y8")
		g.ins("VMOVAPD Y11, Y0")
		g.geluErfArg(t, "Y12", "Y13")
		g.geluErfSmall(t, "Y12", "Y13")
		g.ins("VBLENDVPD Y8, Y5, Y9, Y9")
		g.ins("VBLENDVPD Y8, Y4, Y10, Y10")
		g.label(join)
		g.geluErfJoin(t, "Y11", "Y9", "Y10")
		g.comment("x where x >= geluErfNear (Y1); x left for Go, flagged in Y14, where x <")
		g.comment("geluErfFar or -geluErfFar <= x < geluErfNear (Y3)")
		g.geluErfLanes(t, "Y11", "Y1", "Y3", "Y2")
		g.ins("VORPD Y3, Y14, Y14")
		g.ins("VBLENDVPD Y3, Y11, Y10, Y10")
		g.ins("VBLENDVPD Y1, Y11, Y10, Y10")
		return "Y10"
	}
	g.elementwise(ewKernel{name: "geluErfF64AVX2", e: f64, inputs: []string{"x"}, unroll: 1, okFlag: "Y14",
		doc:   fmt.Sprintf("computes dst[i] = 0.5x*erfc(-x/sqrt2), x = x[i], for i < n, leaving x[i] in\n// dst[i] where x[i] < %v or %v <= x[i] < %v; ok is false if it left any.", geluErfFar, -geluErfFar, geluErfNear),
		setup: g.expTablesAVX2(),
		body:  func(g *gen, u int, in []string) string { return body(g) }})
}

// powAVX2 emits the AVX2 float64 Pow kernels of ordinary lanes,
// powF64AVX2 and powScalarF64AVX2, with pow512F64's contract and steps on
// ymm registers: |x| = logPairAVX2's fine pair (tables gathered from
// R11-R13), the product pair, the clamp, the exp reduction with the low
// part added and expTailAVX2 (tables from AX and BX), then a negative x's
// sign or NaN from y's parity with blends. The lanes for Go are ORed into
// Y14 (the ok flag) through Y15, all ones until the tail loads its mask
// there, so the tail's zeroed lanes raise nothing. The kernels give
// pow64.Pow's bits (TestPowF64Kernels). One slot: x in Y0 (kept in Y11),
// y in Y13 (vector form) or Y12 (the scalar).
func (g *gen) powAVX2() {
	t := tierAVX2
	tabs := logTables64(g)
	hi, lo := exp2Table()
	th, tl := g.table("dexp2hi", hi), g.table("dexp2lo", lo)
	setup := func(g *gen) {
		for i, r := range []string{"R11", "R12", "R13"} {
			g.ins("LEAQ %s(SB), %s", tabs[i], r)
		}
		g.ins("LEAQ %s(SB), AX", th)
		g.ins("LEAQ %s(SB), BX", tl)
		g.ins("VPCMPEQQ Y15, Y15, Y15")
	}
	absMask, inf := g.v64("absmask64", 1<<63-1), g.d("dposinf", math.Inf(1))
	body := func(yr string, vector bool) func(g *gen, u int, in []string) string {
		return func(g *gen, u int, in []string) string {
			g.comment("Y2: the lanes that are not ordinary (x NaN, zero or infinite; y NaN or")
			g.comment("infinite or one of pow64.Pow's shortcuts ±0.5, ±1, 2), within Y15's, into Y14")
			g.withConst(t, "VANDPD", absMask, "Y0, Y1")
			g.ins("VCMPPD $5, %s, Y1, Y2", inf)
			g.ins("VCMPPD $0, %s, Y1, Y3", g.d("dzero", 0))
			g.ins("VORPD Y3, Y2, Y2")
			if vector {
				g.withConst(t, "VANDPD", absMask, yr+", Y3")
				for _, c := range []struct {
					imm int
					c   string
				}{{5, inf}, {0, g.d("half64", 0.5)}, {0, g.d("done", 1)}} {
					g.ins("VCMPPD $%d, %s, Y3, Y4", c.imm, c.c)
					g.ins("VORPD Y4, Y2, Y2")
				}
				g.ins("VCMPPD $0, %s, %s, Y4", g.d("dtwo", 2), yr)
				g.ins("VORPD Y4, Y2, Y2")
			}
			g.ins("VANDPD Y15, Y2, Y2")
			g.ins("VORPD Y2, Y14, Y14")
			g.comment("x kept in Y11 (its sign decides below); ln|x| as a pair")
			g.ins("VMOVAPD Y0, Y11")
			g.ins("VMOVAPD Y1, Y0")
			g.logPairAVX2(true)
			g.powReduce(tierAVX2, yr)
			g.expTailAVX2("AX", "BX", expNoLo)
			g.comment("x < 0 (Y11's sign): the sign bit where y is odd (y/2 not an integer), then")
			g.comment("math.NaN's bits where y is not an integer")
			g.withConst(t, "VMULPD", g.d("half64", 0.5), yr+", Y1")
			g.ins("VROUNDPD $8, Y1, Y2")
			g.ins("VCMPPD $4, Y2, Y1, Y1")
			g.ins("VANDPD Y11, Y1, Y1")
			g.withConst(t, "VANDPD", g.v64("signmask64", 1<<63), "Y1, Y1")
			g.ins("VORPD Y1, Y0, Y0")
			g.ins("VROUNDPD $8, %s, Y1", yr)
			g.ins("VCMPPD $4, Y1, %s, Y1", yr)
			g.ins("VANDPD Y11, Y1, Y1")
			g.ins("VBLENDVPD Y1, %s, Y0, Y0", g.v64("gonan64", math.Float64bits(math.NaN())))
			return "Y0"
		}
	}
	g.elementwise(ewKernel{name: "powF64AVX2", e: f64, inputs: []string{"x", "y"}, unroll: 1, okFlag: "Y14",
		doc:     "sets dst[i] = x[i]**y[i] for i < n where x[i] is finite and not zero and y[i] finite and not ±0.5, ±1 or 2; ok is false when some lane is not.",
		setup:   setup,
		slotReg: func(u, i int) string { return []string{"Y0", "Y13"}[i] },
		body:    body("Y13", true)})
	g.elementwise(ewKernel{name: "powScalarF64AVX2", e: f64, inputs: []string{"x"}, scalars: []string{"y"}, unroll: 1, okFlag: "Y14",
		doc:   "sets dst[i] = x[i]**y for i < n where x[i] is finite and not zero (y finite); ok is false when some lane is not.",
		setup: setup,
		body:  body("Y12", false)})
}

// powReduce emits the middle of the Pow kernels on tier t, from ln|x| as
// the pair in registers 9 and 8 and y in yr: the pair normalised to hi +
// lo (Fast2Sum, |9| >= |8|: register 8 alone can reach r^2/2, which y
// would carry past the exp's reduction); y*(hi + lo) = ph + pl, ph = y*hi
// rounded, pl its error by an FMA plus y*lo; ph clamped to [-746, 710],
// beyond which e^ph rounds to 0 or +Inf as the clamped value's does, and
// pl = 0 where the clamp moved ph; k = round(ph*16/ln2) by the shifter, r
// = ph - k*ln2/16 in two parts plus pl (|r| <= ln2/32 + 2^-43, rounded by
// 2^-60 at most). It leaves r in register 0, the shifted k (j = k mod 16
// in its low bits) in 1 and k/16 in 2, for the exp tail, with 9 and 10 as
// scratch (and K6 on zmm).
func (g *gen) powReduce(t tier, yr string) {
	R := t.reg
	g.comment("hi + lo, normalised (Fast2Sum); ph + pl = y*(hi + lo)")
	g.ins("VADDPD %s, %s, %s", R(8), R(9), R(10))
	g.ins("VSUBPD %s, %s, %s", R(10), R(9), R(9))
	g.ins("VADDPD %s, %s, %s", R(9), R(8), R(8))
	g.ins("VMULPD %s, %s, %s", R(10), yr, R(0))
	g.ins("VMOVAPD %s, %s", R(0), R(9))
	g.ins("VFMSUB231PD %s, %s, %s", R(10), yr, R(9))
	g.ins("VFMADD231PD %s, %s, %s", R(8), yr, R(9))
	g.comment("ph clamped to [-746, 710]; pl = 0 where the clamp moved ph")
	g.ins("VMOVAPD %s, %s", R(0), R(10))
	g.withConst(t, "VMINPD", g.d("d710", 710), R(0)+", "+R(0))
	g.withConst(t, "VMAXPD", g.d("dm746", -746), R(0)+", "+R(0))
	if t.z {
		g.ins("VCMPPD $0, Z0, Z10, K6")
		g.ins("VMOVAPD.Z Z9, K6, Z9")
	} else {
		g.ins("VCMPPD $0, Y0, Y10, Y1")
		g.ins("VANDPD Y1, Y9, Y9")
	}
	g.expReduce(t, R(9))
}

// expReduce emits the exp kernels' reduction on tier t (the AVX2 Exp's
// and the Pow kernels'; expCore512F64Reduce keeps its constants in
// registers): k = round(x*16/ln2) by the shifter, whose low bits then hold
// j = k mod 16, r = x - k*ln2/16 in two parts, plus the register pl where
// it is named, with x and r in register 0, the shifted k left in 1 and
// k/16 in 2.
func (g *gen) expReduce(t tier, pl string) {
	R := t.reg
	g.comment("k = round(x*16/ln2) by the shifter (j = k mod 16 in its low bits); r = x -")
	g.comment("k*ln2/16 in two parts" + map[bool]string{true: ", plus pl", false: ""}[pl != ""])
	shifter := g.d("shifter64", 0x1.8p52)
	g.loadPD(t, shifter, R(1))
	g.withConst(t, "VFMADD231PD", g.d("log2e16", expTab*math.Log2E), R(0)+", "+R(1))
	g.withConst(t, "VSUBPD", shifter, R(1)+", "+R(2))
	g.withConst(t, "VFNMADD231PD", g.d("ln2hi16", ln2Hi64/expTab), R(2)+", "+R(0))
	g.withConst(t, "VFNMADD231PD", g.d("ln2lo16", ln2Lo64/expTab), R(2)+", "+R(0))
	if pl != "" {
		g.ins("VADDPD %s, %s, %s", pl, R(0), R(0))
	}
	g.withConst(t, "VMULPD", g.d("d1by16", 1.0/expTab), R(2)+", "+R(2))
}

// logTabHalves splits logTabCoeffs64's Q into its even and odd
// coefficients: Q(r) = E(r^2) + r*O(r^2).
func logTabHalves() (ev, od []float64) {
	for i, c := range logTabCoeffs64() {
		if i%2 == 0 {
			ev = append(ev, c)
		} else {
			od = append(od, c)
		}
	}
	return ev, od
}

// logFineCoeffs returns P with log1p(r) = r - r^2/2 + r^3*P(r) to r^13:
// (-1)^i/(i+3) for i = 0..10. The next term, r^14/14, is below 2^-73 for
// |r| <= 1/32 (the range logTables64 leaves, [-0.0205, 1/32]).
func logFineCoeffs() []float64 {
	var c []float64
	for i := range 11 {
		c = append(c, math.Pow(-1, float64(i))/float64(i+3))
	}
	return c
}

// logPairFine is the tail of logPair512F64 and logPairAVX2 for Pow, on
// tier t, from r (register 4), r^2 rounded (7), k (2) and the table
// entries Thi (5) and Tlo (3 on zmm, 6 on ymm):
// log1p(r) = r - r^2/2 + r^2*Q'(r), Q' = r*P(r) the Taylor series from
// r^3/3 to r^13/13 (logFineCoeffs: logTabCoeffs64's fit errs by 0.04*2^-53
// of log1p(r), 2^-63 absolute at r = 1/32, too much here), with r^2 carried exactly (its rounding error by an FMA) and r - r^2/2
// summed by Fast2Sum, so that only r^2*Q' (below 2^-16) is rounded: about
// 2^-68 absolute, where the plain tail's r^2*Q errs by 2^-63, which a
// large exponent multiplies (y*ln x near 700 with ln x near 1/32 takes y
// near 2^14.5).
func (g *gen) logPairFine(t tier) {
	R := t.reg
	// Tlo and r2lo: Z3 and Z6 on zmm (logPair512F64's), Y6 and Y3 on ymm
	// (logPairAVX2's, whose Y3 held the gather index).
	tlo, r2lo := R(3), R(6)
	if !t.z {
		tlo, r2lo = R(6), R(3)
	}
	g.comment(fmt.Sprintf("r2lo = r*r - r^2 exactly (%s); hi = k*ln2hi + Thi (exact), lo = k*ln2lo + Tlo - r2lo/2", r2lo))
	g.ins("VMOVAPD %s, %s", R(7), r2lo)
	g.ins("VFMSUB231PD %s, %s, %s", R(4), R(4), r2lo)
	g.withConst(t, "VFMADD231PD", g.d("ln2hi64", ln2Hi64), R(2)+", "+R(5))
	g.withConst(t, "VFMADD231PD", g.d("ln2lo64", ln2Lo64), R(2)+", "+tlo)
	g.withConst(t, "VFNMADD231PD", g.d("half64", 0.5), r2lo+", "+tlo)
	g.comment("t = hi + r and its error (Fast2Sum: hi = 0, or |hi| > |r|) into lo")
	g.ins("VADDPD %s, %s, %s", R(4), R(5), R(9))
	g.ins("VSUBPD %s, %s, %s", R(9), R(5), R(5))
	g.ins("VADDPD %s, %s, %s", R(4), R(5), R(5))
	g.ins("VADDPD %s, %s, %s", R(5), tlo, tlo)
	g.comment("t2 = t + (-r^2/2) (an exact product) and its error (Fast2Sum: |t| > r^2/2) into lo")
	g.withConst(t, "VMULPD", g.d("dmhalf", -0.5), R(7)+", "+r2lo)
	g.ins("VADDPD %s, %s, %s", r2lo, R(9), R(10))
	g.ins("VSUBPD %s, %s, %s", R(10), R(9), R(9))
	g.ins("VADDPD %s, %s, %s", r2lo, R(9), R(9))
	g.ins("VADDPD %s, %s, %s", R(9), tlo, tlo)
	g.comment("d = r^2*Q'(r), Q' = r*P(r): log1p's series from r^3/3 to r^13/13, P by its even")
	g.comment("and odd halves in r^2 (two shorter chains): P = Pe(r^2) + r*Po(r^2); the sums")
	g.comment("above do not wait for it")
	var pe, po []float64
	for i, c := range logFineCoeffs() {
		if i%2 == 0 {
			pe = append(pe, c)
		} else {
			po = append(po, c)
		}
	}
	g.hornerPDOn(t, "dlogfe", pe, R(7), R(8))
	g.hornerPDOn(t, "dlogfo", po, R(7), R(2))
	g.ins("VFMADD231PD %s, %s, %s", R(2), R(4), R(8))
	g.ins("VMULPD %s, %s, %s", R(4), R(8), R(8))
	g.comment(fmt.Sprintf("the pair t2 (%s) + (d + lo) (%s)", R(9), R(8)))
	g.ins("VFMADD213PD %s, %s, %s", tlo, R(7), R(8))
	g.ins("VMOVAPD %s, %s", R(10), R(9))
}

// withConst emits ins with a constant as its first operand on tier t:
// broadcast from the table (.BCST) on zmm, the whole 32-byte constant on
// ymm.
func (g *gen) withConst(t tier, ins, c, rest string) {
	if t.z {
		g.ins("%s.BCST %s, %s", ins, c, rest)
	} else {
		g.ins("%s %s, %s", ins, c, rest)
	}
}

// fast2Sum emits s = a + b rounded and e = (a - s) + b, its exact error
// when |a| >= |b| (or a = 0), for float32 registers; e may be a.
func (g *gen) fast2Sum(a, b, s, e string) {
	g.ins("VADDPS %s, %s, %s", b, a, s)
	g.ins("VSUBPS %s, %s, %s", s, a, e)
	g.ins("VADDPS %s, %s, %s", b, e, e)
}

// loadPD and loadPS load a float64 or float32 constant into every lane of
// register r on tier t.
func (g *gen) loadPD(t tier, c, r string) {
	if t.z {
		g.ins("VBROADCASTSD %s, %s", c, r)
	} else {
		g.ins("VMOVUPD %s, %s", c, r)
	}
}

func (g *gen) loadPS(t tier, c, r string) {
	if t.z {
		g.ins("VBROADCASTSS %s, %s", c, r)
	} else {
		g.ins("VMOVUPS %s, %s", c, r)
	}
}

// logBase is one of the float32 logarithm kernels: the natural one, or
// log2/log10 computed from the same reduction and polynomial.
type logBase struct {
	name, doc string
	// mul is the base's 1/ln(base) (0 for the natural log), kmul its
	// log(2) (1 for log2), each split into a float32 hi+lo pair.
	mul, kmul float64
	// onePlus makes the kernel log(1+x) (natural base only).
	onePlus bool
}

var logBases = []logBase{
	{"log", "computes dst[i] = ln(x[i]) for i < n.", 0, 0, false},
	{"log2", "computes dst[i] = log2(x[i]) for i < n.", math.Log2E, 1, false},
	{"log10", "computes dst[i] = log10(x[i]) for i < n.", math.Log10E, math.Ln2 / math.Ln10, false},
	{"log1p", "computes dst[i] = log(1+x[i]) for i < n.", 0, 0, true},
}

// split32 returns v as hi + lo, hi rounded to float32 with its low zeros
// fraction bits cleared (so small integers times hi are exact) and lo the
// float32 rounding of the rest.
func split32(v float64, zeros uint) (hi, lo float32) {
	hi = math.Float32frombits(math.Float32bits(float32(v)) &^ (1<<zeros - 1))
	return hi, float32(v - float64(hi))
}

// logBody computes lb on the float32 vector in register 0 of tier t: x =
// m*2^k with m in [sqrt(1/2), sqrt(2)) (subnormal x scaled first), f =
// m-1, log(m) = f + c with c = f^3*P(f) - f^2/2. The natural log is
// k*ln2hi + (f + (c + k*ln2lo)); log2 and log10 are K + f*L + c*L with L
// = 1/ln(base) and K = k*log(2) in that base, f*L carried exactly (FMA) as
// hi+lo and K + hi by Fast2Sum (|K| >= log10(2) > |hi| whenever k != 0),
// so the one rounding that matters is the last. log1p takes the natural
// log of u = 1+x (never subnormal: 0 or at least 2^-24) and adds the
// rounding of u back as (x - (u-1))/u, exact to first order (x - (u-1)
// is exact), so that tiny x gives x. Registers 1-10 are scratch; special
// values (±0, +Inf, x < 0, NaN) are set last.
func (g *gen) logBody(t tier, lb logBase) {
	r := t.reg
	one := g.f("one", 1)
	src := r(0)
	if lb.onePlus {
		src = r(9)
		g.comment("u = 1+x; its rounding as corr = (x - (u-1))/u")
		g.withConst(t, "VADDPS", one, r(0)+", "+src)
		g.withConst(t, "VSUBPS", one, src+", "+r(10))
		g.ins("VSUBPS %s, %s, %s", r(10), r(0), r(10))
		g.ins("VDIVPS %s, %s, %s", src, r(10), r(10))
		g.ins("VMOVAPS %s, %s", src, r(2))
	} else {
		g.logSubnormal(t)
	}
	g.logReduce(t, lb, src)
}

// logSubnormal leaves x (register 0) in register 2 with a subnormal x
// scaled by 2^23, and the 23 to take off the exponent in K2 (zmm) or
// register 1 (ymm).
func (g *gen) logSubnormal(t tier) {
	g.comment("subnormal x: scale by 2^23 and take 23 off the exponent")
	if t.z {
		g.ins("VCMPPS.BCST $1, %s, Z0, K2", g.fb("fltmin", 0x00800000))
		g.ins("VMOVAPS Z0, Z2")
		g.ins("VMULPS.BCST %s, Z0, K2, Z2", g.f("two23", 1<<23))
	} else {
		g.ins("VCMPPS $1, %s, Y0, Y1", g.fb("fltmin", 0x00800000))
		g.ins("VMULPS %s, Y0, Y2", g.f("two23", 1<<23))
		g.ins("VBLENDVPS Y1, Y2, Y0, Y2")
		g.ins("VPAND %s, Y1, Y1", g.i("i23", 23))
	}
}

// logReduce continues logBody from register 2 (the value whose log is
// taken, src's bits with a subnormal scaled) to the result in register 0;
// special values are decided on src.
func (g *gen) logReduce(t tier, lb logBase, src string) {
	r := t.reg
	one := g.f("one", 1)
	g.comment("x = m * 2^k with m in [sqrt(1/2), sqrt(2))")
	g.withConst(t, "VPSUBD", g.fb("sqrthalf", 0x3f3504f3), r(2)+", "+r(2))
	g.ins("VPSRAD $23, %s, %s", r(2), r(3))
	switch {
	case lb.onePlus && t.z:
		g.ins("VPANDD.BCST %s, Z2, Z2", g.fb("mantmask", 0x007fffff))
	case lb.onePlus:
		g.ins("VPAND %s, Y2, Y2", g.fb("mantmask", 0x007fffff))
	case t.z:
		g.ins("VPSUBD.BCST %s, Z3, K2, Z3", g.i("i23", 23))
		g.ins("VPANDD.BCST %s, Z2, Z2", g.fb("mantmask", 0x007fffff))
	default:
		g.ins("VPSUBD Y1, Y3, Y3")
		g.ins("VPAND %s, Y2, Y2", g.fb("mantmask", 0x007fffff))
	}
	g.withConst(t, "VPADDD", g.fb("sqrthalf", 0x3f3504f3), r(2)+", "+r(2))
	g.withConst(t, "VSUBPS", one, r(2)+", "+r(2))
	g.ins("VCVTDQ2PS %s, %s", r(3), r(3))
	if lb.mul == 0 {
		g.horner("logp", logP, r(2), r(4))
	} else {
		g.horner("logp8", logP8, r(2), r(4))
	}
	g.ins("VMULPS %s, %s, %s", r(2), r(2), r(5))
	g.ins("VMULPS %s, %s, %s", r(2), r(5), r(6))
	g.ins("VMULPS %s, %s, %s", r(6), r(4), r(4))
	if lb.mul == 0 {
		g.withConst(t, "VFMADD231PS", g.f("ln2lo", ln2Lo32), r(3)+", "+r(4))
		g.withConst(t, "VFNMADD231PS", g.f("half", 0.5), r(5)+", "+r(4))
		if lb.onePlus {
			g.ins("VADDPS %s, %s, %s", r(10), r(4), r(4))
		}
		g.ins("VADDPS %s, %s, %s", r(2), r(4), r(4))
		g.withConst(t, "VFMADD231PS", g.f("ln2hi", ln2Hi32), r(3)+", "+r(4))
	} else {
		lh, ll := split32(lb.mul, 0)
		kh, kl := split32(lb.kmul, 12)
		g.comment("hi + lo = f*L exactly (to L's lo); lo += L*f^3*P - (L/2)*f^2, with f^2 = h + hl")
		g.comment("exactly (FMA), each term added on its own")
		g.ins("VMOVAPS %s, %s", r(5), r(9))
		g.ins("VFMSUB231PS %s, %s, %s", r(2), r(2), r(9))
		g.withConst(t, "VMULPS", g.f(lb.name+"L", lh), r(2)+", "+r(7))
		g.ins("VMOVAPS %s, %s", r(7), r(8))
		g.withConst(t, "VFMSUB231PS", g.f(lb.name+"L", lh), r(2)+", "+r(8))
		g.withConst(t, "VFMADD231PS", g.f(lb.name+"Llo", ll), r(2)+", "+r(8))
		g.withConst(t, "VFMADD231PS", g.f(lb.name+"L", lh), r(4)+", "+r(8))
		g.withConst(t, "VFNMADD231PS", g.f(lb.name+"Lhalf", lh/2), r(5)+", "+r(8))
		g.withConst(t, "VFNMADD231PS", g.f(lb.name+"Lhalf", lh/2), r(9)+", "+r(8))
		if lb.kmul != 1 {
			g.comment("K = k*log(2) in the base: k*Khi exact, k*Klo into lo")
			g.withConst(t, "VFMADD231PS", g.f(lb.name+"Klo", kl), r(3)+", "+r(8))
			g.withConst(t, "VMULPS", g.f(lb.name+"K", kh), r(3)+", "+r(3))
		}
		g.comment("s = K + hi and its error e (Fast2Sum); result s + (e + lo)")
		g.fast2Sum(r(3), r(7), r(4), r(6))
		g.ins("VADDPS %s, %s, %s", r(8), r(6), r(6))
		g.ins("VADDPS %s, %s, %s", r(6), r(4), r(4))
	}
	g.comment("log(±0) = -Inf, log(+Inf) = +Inf, log(x<0) = log(NaN) = NaN")
	if t.z {
		g.ins("VPXORD Z1, Z1, Z1")
		g.ins("VCMPPS $0, Z1, %s, K2", src)
		g.ins("VBROADCASTSS %s, K2, Z4", g.fb("ninf", 0xff800000))
		g.ins("VCMPPS.BCST $0, %s, %s, K2", g.fb("pinf", 0x7f800000), src)
		g.ins("VBROADCASTSS %s, K2, Z4", g.fb("pinf", 0x7f800000))
		g.ins("VCMPPS $9, Z1, %s, K2", src)
		g.ins("VPTERNLOGD $0xff, Z4, Z4, K2, Z4")
		if lb.onePlus {
			g.comment("log1p(±0) = ±0")
			g.ins("VCMPPS $0, Z1, Z0, K2")
			g.ins("VMOVAPS Z0, K2, Z4")
		}
		g.ins("VMOVAPS Z4, Z0")
	} else {
		g.ins("VCMPPS $0, %s, %s, Y1", g.f("zero", 0), src)
		g.ins("VBLENDVPS Y1, %s, Y4, Y4", g.fb("ninf", 0xff800000))
		g.ins("VCMPPS $0, %s, %s, Y1", g.fb("pinf", 0x7f800000), src)
		g.ins("VBLENDVPS Y1, %s, Y4, Y4", g.fb("pinf", 0x7f800000))
		g.ins("VCMPPS $9, %s, %s, Y1", g.f("zero", 0), src)
		if lb.onePlus {
			g.ins("VORPS Y1, Y4, Y4")
			g.comment("log1p(±0) = ±0")
			g.ins("VCMPPS $0, %s, Y0, Y1", g.f("zero", 0))
			g.ins("VBLENDVPS Y1, Y0, Y4, Y0")
		} else {
			g.ins("VORPS Y1, Y4, Y0")
		}
	}
}

// expm1Body computes e^x - 1 on the float32 vector in register 0 of tier
// t. x is clamped to [-18, 89] (x the second source, so NaN passes; below,
// the result rounds to -1, above it overflows), k = round(x/ln2) and r = x
// - k*ln2 as exp's core reduces (its rounding kept as rl), p = e^r - 1 = r
// + rl + r^2*q'(r) with q' exp's q past its constant 1 (the leading r
// exact, r^2 carried as an exact pair), and the result is
// 2^k*(1+p) - 1 = 2*(t + t*r + t*c - 1/2) with t = 2^(k-1) and c = p - r
// (rounded): four float32 terms, summed with their rounding errors so
// that one rounding counts, and the doubling is exact (it overflows
// exactly when the result does). |x| < 2^-24, where e^x - 1 rounds to x,
// returns x, which also keeps -0 and subnormal x exact. Registers 1-6 are
// scratch.
func (g *gen) expm1Body(t tier) {
	r := t.reg
	g.loadPS(t, g.f("c89", 89), r(1))
	g.ins("VMINPS %s, %s, %s", r(0), r(1), r(1))
	g.loadPS(t, g.f("cm18", -18), r(2))
	g.ins("VMAXPS %s, %s, %s", r(1), r(2), r(1))
	g.comment("k = round(x/ln2), r = x - k*ln2hi - k*ln2lo")
	g.withConst(t, "VMULPS", g.f("log2e", math.Log2E), r(1)+", "+r(2))
	if t.z {
		g.ins("VRNDSCALEPS $0, Z2, Z2")
	} else {
		g.ins("VROUNDPS $0, Y2, Y2")
	}
	g.withConst(t, "VFNMADD231PS", g.f("ln2hi", ln2Hi32), r(2)+", "+r(1))
	g.comment("r = r0 - c (c = k*ln2lo), rl = (r0 - r) - c exactly (Fast2Sum)")
	g.withConst(t, "VMULPS", g.f("ln2lo", ln2Lo32), r(2)+", "+r(6))
	g.ins("VSUBPS %s, %s, %s", r(6), r(1), r(5))
	g.ins("VSUBPS %s, %s, %s", r(5), r(1), r(1))
	g.ins("VSUBPS %s, %s, %s", r(6), r(1), r(6))
	g.comment("p = r + c, c = rl + r^2*q'(r), r^2 = rr + rre exactly and q' ~ 1/2 on rre")
	g.horner("expq1_", expQ[1:], r(5), r(3))
	g.ins("VMULPS %s, %s, %s", r(5), r(5), r(4))
	g.ins("VMOVAPS %s, %s", r(4), r(1))
	g.ins("VFMSUB231PS %s, %s, %s", r(5), r(5), r(1))
	g.withConst(t, "VFMADD231PS", g.f("half", 0.5), r(1)+", "+r(6))
	g.ins("VFMADD213PS %s, %s, %s", r(6), r(4), r(3))
	g.comment("t = 2^(k-1); result 2*(t + t*r + t*c - 1/2), four exact terms summed as")
	g.comment("s1 = t - 1/2, s2 = s1 + t*r, each with its error (Fast2Sum: |t - 1/2| >= |t*r|),")
	g.comment("then s2 + (e1 + e2 + t*c): p is never rounded on its own, one rounding")
	g.comment("counts")
	g.ins("VCVTPS2DQ %s, %s", r(2), r(2))
	g.withConst(t, "VPADDD", g.i("i126", 126), r(2)+", "+r(2))
	g.ins("VPSLLD $23, %s, %s", r(2), r(2))
	g.withConst(t, "VSUBPS", g.f("half", 0.5), r(2)+", "+r(1))
	g.ins("VSUBPS %s, %s, %s", r(1), r(2), r(4))
	g.withConst(t, "VSUBPS", g.f("half", 0.5), r(4)+", "+r(4))
	g.ins("VMULPS %s, %s, %s", r(2), r(5), r(5))
	g.fast2Sum(r(1), r(5), r(6), r(1))
	g.ins("VADDPS %s, %s, %s", r(4), r(1), r(1))
	g.ins("VFMADD231PS %s, %s, %s", r(2), r(3), r(1))
	g.ins("VADDPS %s, %s, %s", r(6), r(1), r(1))
	g.ins("VADDPS %s, %s, %s", r(1), r(1), r(5))
	g.comment("|x| < 2^-24: x")
	if t.z {
		g.ins("VPANDD.BCST %s, Z0, Z6", g.fb("absmask", 0x7fffffff))
		g.ins("VCMPPS.BCST $1, %s, Z6, K2", g.f("tiny24", 0x1p-24))
		g.ins("VMOVAPS Z0, K2, Z5")
		g.ins("VMOVAPS Z5, Z0")
	} else {
		g.ins("VANDPS %s, Y0, Y6", g.fb("absmask", 0x7fffffff))
		g.ins("VCMPPS $1, %s, Y6, Y6", g.f("tiny24", 0x1p-24))
		g.ins("VBLENDVPS Y6, Y0, Y5, Y0")
	}
}

// ---- float32 Sin, Cos and Tan in float64 lanes, both tiers ----
//
// Each float32 vector is widened into two float64 vectors. Sin and Cos
// reduce by pi and take one series (sinCosCore, below); Tan as follows.
// With n =
// round(x*2/pi) (from x*2/pi + 1.5*2^52 in one FMA, which leaves n in the
// low bits of the sum) and P1+P2 = pi/2 to about 107 bits, r = x - n*P1 -
// n*P2; the first FMA is exact (x and n*P1 are multiples of 2^-52 and
// their difference is below 2), and for |x| < 2^30 |r| <= pi/4 + 2^-22
// with an error below 2^-77, against |r| >= 2^-28 (Tan's largest result
// below, 1/|r|, is 2.39e8). sin r = r + r^3*S(r^2) and cos r = 1 - r^2/2
// + r^4*C(r^2), S and C of degree 3 fitted to within 2^-37.6 of r and
// 2^-43 of cos r (tanSinCoeffs, tanCosCoeffs; 2^-12 ulp of float32), are
// chosen by n mod 4 and divided, and the result is rounded once to float32:
// the exact value correctly rounded, except within about 2^-12 ulp of a
// tie. Lanes with |x| >= 2^30 or infinite keep
// x in dst and the kernel returns ok = false; the Go side (trigVia) then
// recomputes every element of dst at or above 2^30 in magnitude with
// package math. No result of an in-range lane gets there: Tan's largest
// over every float32 below 2^30 is 2.39e8, at x = 252.89821.

// trigBound is the magnitude from which the kernels leave a lane to the
// Go side (the same value as vec's trigBound).
const trigBound = 0x1p30

// halfPiSplit returns pi/2 as n float64 parts: pi/2 rounded, the rounded
// rest, and so on.
func halfPiSplit(n int) []float64 {
	const prec = 400
	rest := new(big.Float).SetPrec(prec).Quo(bigmath.Pi, new(big.Float).SetPrec(prec).SetInt64(2))
	p := make([]float64, n)
	for i := range p {
		p[i], _ = rest.Float64()
		rest.Sub(rest, new(big.Float).SetPrec(prec).SetFloat64(p[i]))
	}
	return p
}

// taylorCoeffs returns (-1)^k/(2k+odd)! for k = from..to, rounded to
// float64: the sine's series (odd 1) or the cosine's (odd 0).
func taylorCoeffs(odd, from, to int) []float64 {
	var c []float64
	for k := from; k <= to; k++ {
		f := new(big.Rat).SetInt64(1)
		for i := 2; i <= 2*k+odd; i++ {
			f.Mul(f, new(big.Rat).SetInt64(int64(i)))
		}
		f.Inv(f)
		if k%2 == 1 {
			f.Neg(f)
		}
		v, _ := f.Float64()
		c = append(c, v)
	}
	return c
}

// trigs emits sinF32, cosF32 and tanF32 for tier t (trigKernel; the
// ymm body takes Y0-Y12).
func (g *gen) trigs(t tier) {
	for _, op := range []string{"sin", "cos", "tan"} {
		doc := fmt.Sprintf("computes dst[i] = %s(x[i]) for i < n in float64 lanes, leaving\n// x[i] in dst[i] where |x[i]| >= 2^30 or is infinite; ok is false if it left any.", op)
		g.trigKernel(t, f32, op+"F32", doc, func(g *gen) { g.trigBody(t, op) })
	}
}

// trigKernel emits one Sin, Cos or Tan kernel of element type e for tier
// t: one input vector per iteration with ymm registers (body's
// registers up to Y13, Y14 collects the lanes left to Go, Y15 is the
// tail mask), two with zmm (twoSlots, K4 collecting the lanes).
func (g *gen) trigKernel(t tier, e elem, name, doc string, body func(g *gen)) {
	k := ewKernel{name: name + t.suffix, doc: doc, e: e, inputs: []string{"x"}, z: t.z, okFlag: "Y14"}
	if t.z {
		k.okFlag = "K4"
		k = twoSlots(k, z, 13, 16, body)
	} else {
		k.unroll = 1
		k.body = func(g *gen, u int, in []string) string { body(g); return "Y0" }
	}
	g.elementwise(k)
}

// trigBody computes op on the float32 vector in register 0 of tier t,
// leaving the result there: both float64 halves through trigCore
// (registers 1-6 and 7-12), narrowed, and the lanes at or above trigBound
// (or NaN-free infinite) replaced by x and flagged in the okFlag register;
// for sin and tan, ±0 lanes replaced by x too.
func (g *gen) trigBody(t tier, op string) {
	absMask, bound := g.fb("absmask", 0x7fffffff), g.f("trigbound", trigBound)
	g.widenHalves(t)
	g.trigCore(t, op, 1)
	g.trigCore(t, op, 7)
	g.comment("|x| >= 2^30 or infinite (NaN compares false): keep x, flag the lane")
	if t.z {
		g.ins("VCVTPD2PS Z1, Y1")
		g.ins("VCVTPD2PS Z7, Y7")
		g.ins("VINSERTF32X8 $1, Y7, Z1, Z1")
		if op != "cos" {
			g.comment("sin and tan of ±0 are x (the series gives +0 for -0)")
			g.ins("VPTESTNMD.BCST %s, Z0, K5", absMask)
			g.ins("VMOVAPS Z0, K5, Z1")
		}
		g.ins("VPANDD.BCST %s, Z0, Z2", absMask)
		g.ins("VCMPPS.BCST $13, %s, Z2, K2", bound)
		g.ins("VMOVAPS Z0, K2, Z1")
		g.ins("KORW K2, K4, K4")
		g.ins("VMOVAPS Z1, Z0")
	} else {
		g.ins("VCVTPD2PSY Y1, X1")
		g.ins("VCVTPD2PSY Y7, X7")
		g.ins("VINSERTF128 $1, X7, Y1, Y1")
		if op != "cos" {
			g.comment("sin and tan of ±0 are x (the series gives +0 for -0)")
			g.ins("VXORPS Y3, Y3, Y3")
			g.ins("VCMPPS $0, Y3, Y0, Y3")
			g.ins("VBLENDVPS Y3, Y0, Y1, Y1")
		}
		g.ins("VANDPS %s, Y0, Y2", absMask)
		g.ins("VCMPPS $13, %s, Y2, Y2", bound)
		g.ins("VBLENDVPS Y2, Y0, Y1, Y0")
		g.ins("VORPS Y2, Y14, Y14")
	}
}

// trigCore computes op (sin, cos or tan) of the float64 vector in register
// b of tier t into the same register, with registers b+1 to b+5 (and, on
// zmm, K2) as scratch.
func (g *gen) trigCore(t tier, op string, b int) {
	if op != "tan" {
		g.sinCosCore(t, op, b)
		return
	}
	X, T, N, Q, S, C := t.reg(b), t.reg(b+1), t.reg(b+2), t.reg(b+3), t.reg(b+4), t.reg(b+5)
	p := halfPiSplit(2)
	shifter := g.d("shifter64", 0x1.8p52)
	g.comment("n = round(x*2/pi) in the low bits of T, r = x - n*(P1+P2)")
	g.loadPD(t, shifter, T)
	g.withConst(t, "VFMADD231PD", g.d("twooverpi", 2/math.Pi), X+", "+T)
	g.withConst(t, "VSUBPD", shifter, T+", "+N)
	g.subtractParts(t, "halfpi", p, N, X)
	g.comment("z = r^2; S = sin r = r + r*z*S(z); C = cos r = (1 - z/2) + z^2*C(z)")
	g.sineSeries(t, "tansin", tanSinCoeffs(), X, Q, S, N)
	g.hornerPDOn(t, "tancos", tanCosCoeffs(), Q, C)
	g.ins("VMULPD %s, %s, %s", Q, Q, N)
	g.loadPD(t, g.d("mhalf64", -0.5), X)
	g.withConst(t, "VFMADD213PD", g.d("one64", 1), Q+", "+X)
	g.ins("VFMADD213PD %s, %s, %s", X, N, C)
	one := g.v64("onebit64", 1)
	sign := g.v64("signmask64", 1<<63)
	if op == "cos" {
		g.comment("cos x = sin(x + pi/2): the quadrant n+1")
		g.withConst(t, "VPADDQ", one, T+", "+T)
	}
	if op == "tan" {
		g.comment("n even: S/C; n odd: -C/S")
		if t.z {
			g.ins("VPTESTMQ.BCST %s, %s, K2", one, T)
			g.ins("VMOVAPD %s, %s", S, Q)
			g.ins("VMOVAPD %s, K2, %s", C, Q)
			g.ins("VMOVAPD %s, K2, %s", S, C)
			g.ins("VDIVPD %s, %s, %s", C, Q, Q)
			g.ins("VPSLLQ $63, %s, %s", T, T)
			g.ins("VPXORQ %s, %s, %s", T, Q, X)
		} else {
			g.ins("VPSLLQ $63, %s, %s", T, N)
			g.ins("VBLENDVPD %s, %s, %s, %s", N, C, S, Q)
			g.ins("VBLENDVPD %s, %s, %s, %s", N, S, C, C)
			g.ins("VDIVPD %s, %s, %s", C, Q, Q)
			g.ins("VXORPD %s, %s, %s", N, Q, X)
		}
		return
	}
	g.comment("quadrant odd: C for S; bit 1 of the quadrant: negate")
	if t.z {
		g.ins("VPTESTMQ.BCST %s, %s, K2", one, T)
		g.ins("VMOVAPD %s, K2, %s", C, S)
		g.ins("VPSLLQ $62, %s, %s", T, T)
		g.comment("S ^= T & sign")
		g.ins("VPTERNLOGQ.BCST $0x78, %s, %s, %s", sign, T, S)
	} else {
		g.ins("VPSLLQ $63, %s, %s", T, N)
		g.ins("VBLENDVPD %s, %s, %s, %s", N, C, S, S)
		g.ins("VPSLLQ $62, %s, %s", T, T)
		g.ins("VANDPD %s, %s, %s", sign, T, T)
		g.ins("VXORPD %s, %s, %s", T, S, S)
	}
	g.ins("VMOVAPD %s, %s", S, X)
}

// sinCosCore computes sin or cos (op) of the float64 vector in register b
// of tier t into the same register, with registers b+1 to b+4 as
// scratch, from one polynomial: with P1+P2 = pi to about 107 bits, sin x
// = (-1)^n sin r, n = round(x/pi), r = x - n*P1 - n*P2, and cos x =
// (-1)^(m+1) sin r, m = round(x/pi - 1/2), r = x - (m+1/2)*(P1+P2);
// |r| <= pi/2 (a rounding of x/pi next to a half may take the neighbour,
// by far less than the fit's margin), sin r = r + r^3*S(r^2), S of degree
// 4 (sinPiCoeffs, within 2^-35.6 of r). The
// first FMA is exact as in trigCore's pi/2 steps (x, n*P1 and (m+1/2)*P1
// are multiples of 2^-52 wherever the difference is small, and it is
// below 2), and the distance of a float32 to a multiple of pi/2, at least
// 2^-28 below 2^30, bounds r away from 0.
func (g *gen) sinCosCore(t tier, op string, b int) {
	X, T, N, Q, S := t.reg(b), t.reg(b+1), t.reg(b+2), t.reg(b+3), t.reg(b+4)
	p := piSplit()
	shifter := g.d("shifter64", 0x1.8p52)
	invPi := g.d("invpi64", 1/math.Pi)
	if op == "sin" {
		g.comment("n = round(x/pi) in the low bits of T, r = x - n*(P1+P2)")
		g.loadPD(t, shifter, T)
		g.withConst(t, "VFMADD231PD", invPi, X+", "+T)
		g.withConst(t, "VSUBPD", shifter, T+", "+N)
	} else {
		g.comment("m = round(x/pi - 1/2) in the low bits of T, r = x - (m+1/2)*(P1+P2)")
		half := g.d("half64", 0.5)
		g.loadPD(t, half, N)
		g.withConst(t, "VFMSUB231PD", invPi, X+", "+N)
		g.withConst(t, "VADDPD", shifter, N+", "+T)
		g.withConst(t, "VSUBPD", shifter, T+", "+N)
		g.withConst(t, "VADDPD", half, N+", "+N)
		g.comment("cos x = -(-1)^m sin r: the sign of m+1")
		g.withConst(t, "VPADDQ", g.v64("onebit64", 1), T+", "+T)
	}
	g.subtractParts(t, "pisplit", p, N, X)
	g.comment("z = r^2; sin r = r + r*z*S(z)")
	g.sineSeries(t, "sinpic", sinPiCoeffs(), X, Q, S, N)
	g.comment("the sign: T's low bit into the sign bit")
	g.ins("VPSLLQ $63, %s, %s", T, T)
	g.xorPD(t, T, S, X)
}

// subtractParts sets x -= n*c for each part c of a constant split into
// parts (registered as name1, name2, ...), one FMA each, on tier t.
func (g *gen) subtractParts(t tier, name string, parts []float64, n, x string) {
	for i, c := range parts {
		g.withConst(t, "VFNMADD231PD", g.d(fmt.Sprintf("%s%d", name, i+1), c), n+", "+x)
	}
}

// sineSeries sets s = sin r = r + r*z*S(z) on tier t, z = r^2 (left in
// z), S's coefficients c (registered as name0, name1, ...), tmp scratch.
func (g *gen) sineSeries(t tier, name string, c []float64, r, z, s, tmp string) {
	g.ins("VMULPD %s, %s, %s", r, r, z)
	g.hornerPDOn(t, name, c, z, s)
	g.ins("VMULPD %s, %s, %s", z, r, tmp)
	g.ins("VFMADD213PD %s, %s, %s", r, tmp, s)
}

// sinPiCoeffs is S with sin r = r + r*z*S(z), z = r^2 <= (pi/2)^2, fitted
// by `go run fitcoeffs.go sin32` (degree 4; the error below 2^-35.6 of r,
// where the Taylor series to r^15 it replaces reached 2^-37.9 with seven
// terms).
func sinPiCoeffs() []float64 {
	return fromBits(0xbfc5555554959bde, 0x3f811110cc18045b, 0xbf2a017fda072099, 0x3ec7174ca9f890b1, 0xbe59ac3069376677)
}

// tanSinCoeffs and tanCosCoeffs are S and C with sin r = r + r*z*S(z)
// and cos r = 1 - z/2 + z^2*C(z), z = r^2 <= (pi/4)^2, fitted by `go run
// fitcoeffs.go tan32` (degree 3 each; within 2^-37.6 of r and 2^-43 of
// cos r, where the Taylor series to r^11 and r^12 they replace took five
// terms each).
func tanSinCoeffs() []float64 {
	return fromBits(0xbfc5555554cb9ed1, 0x3f8111108964eb0f, 0xbf2a00f9da957514, 0x3ec6cd85918bd8d9)
}

func tanCosCoeffs() []float64 {
	return fromBits(0x3fa5555554f4e475, 0xbf56c16b898cd770, 0x3efa0112028b346a, 0xbe9242ad64e74f2b)
}

// piSplit returns pi as two float64 parts, pi rounded and the rounded rest.
func piSplit() []float64 {
	h := halfPiSplit(2)
	return []float64{2 * h[0], 2 * h[1]}
}

// ---- float64 Sin, Cos and Tan, both tiers ----
//
// With n = round(x*2/pi) (from x*2/pi + 1.5*2^52 in one FMA, as for
// float32) and P1+P2+P3 = pi/2 to about 160 bits, r = x - n*pi/2 is
// carried as rh + rl: t = x - n*P1 in one FMA is exact (t is a multiple
// of 2^-52 below 2 in magnitude), n*P2 = p + pe exactly (the FMA's
// residual), t - p = rh + e by TwoSum, and rl = e - pe - n*P3. For |x| <
// 2^30 the neglected n*(pi/2 - P1 - P2 - P3) and roundings of rl stay
// below 2^-125, against |r| >= 2^-62 for every float64 there, and |r| <=
// pi/4 + 2^-22. With z = rh^2 (and its exact residual zl):
//
//	sin r = rh + (rh*z*S(z) + rl*(1 - z/2))
//	cos r = w + (we - zl/2 - rl*rh + z^2*C(z)),  w + we = 1 - z/2 exactly
//
// S and C the Taylor series of sin to r^19 and cos to r^18 (truncation
// below 2^-70 of the result), so each is one rounding of a sum whose
// tail is about a tenth of it: within 0.7 ulp. n mod 4 picks and signs
// them as for float32. Tan divides the two, each kept as hi+lo (the
// final sums' Fast2Sum residuals), with the quotient corrected by its
// FMA residual: within 0.8 ulp. Sin and Tan keep ±0 as x. Lanes with
// |x| >= 2^30 or infinite keep x in dst and the kernel returns ok =
// false, and trigVia recomputes them with package math (Payne-Hanek
// reduction from 2^29 on).

// trigSinCoeffs and trigCosCoeffs are the float64 kernels' S and C.
func trigSinCoeffs() []float64 { return taylorCoeffs(1, 1, 9) }
func trigCosCoeffs() []float64 { return taylorCoeffs(0, 2, 9) }

// trigs64 emits sinF64, cosF64 and tanF64 for tier t (trigKernel; the
// ymm body takes Y0-Y13).
func (g *gen) trigs64(t tier) {
	for _, op := range []string{"sin", "cos", "tan"} {
		doc := fmt.Sprintf("computes dst[i] = %s(x[i]) for i < n, leaving x[i] in dst[i]\n// where |x[i]| >= 2^30 or is infinite; ok is false if it left any.", op)
		g.trigKernel(t, f64, op+"F64", doc, func(g *gen) { g.trig64Body(t, op) })
	}
}

// trig64Body computes op (sin, cos or tan) of the float64 vector in
// register 0 of tier t into register 0, with registers 1-12 (and, on zmm,
// K2 and K5) as scratch.
func (g *gen) trig64Body(t tier, op string) {
	r := t.reg
	X, T, N, R, P, E, A, B, L := r(0), r(1), r(2), r(3), r(4), r(5), r(6), r(7), r(8)
	p := halfPiSplit(3)
	shifter := g.d("shifter64", 0x1.8p52)
	one := g.d("done", 1)
	g.comment("n = round(x*2/pi) in the low bits of T; r = rh + rl = x - n*(P1+P2+P3)")
	g.loadPD(t, shifter, T)
	g.withConst(t, "VFMADD231PD", g.d("twooverpi", 2/math.Pi), X+", "+T)
	g.withConst(t, "VSUBPD", shifter, T+", "+N)
	g.ins("VMOVAPD %s, %s", X, R)
	g.withConst(t, "VFNMADD231PD", g.d("halfpi1", p[0]), N+", "+R)
	g.withConst(t, "VMULPD", g.d("halfpi2", p[1]), N+", "+P)
	g.ins("VMOVAPD %s, %s", P, E)
	g.withConst(t, "VFMSUB231PD", g.d("halfpi2", p[1]), N+", "+E)
	g.comment("TwoSum: t - p = rh + e")
	g.ins("VSUBPD %s, %s, %s", P, R, L)
	g.ins("VSUBPD %s, %s, %s", R, L, A)
	g.ins("VSUBPD %s, %s, %s", A, L, B)
	g.ins("VSUBPD %s, %s, %s", B, R, B)
	g.ins("VADDPD %s, %s, %s", P, A, A)
	g.ins("VSUBPD %s, %s, %s", A, B, B)
	g.ins("VMOVAPD %s, %s", L, R)
	g.ins("VSUBPD %s, %s, %s", E, B, L)
	g.withConst(t, "VFNMADD231PD", g.d("halfpi3", p[2]), N+", "+L)
	Z, ZL, H := r(2), r(4), r(5)
	SH, SL, CS := r(6), r(7), r(10)
	W, CO, CH := r(9), r(11), r(12)
	g.comment("z = rh^2 = z + zl exactly, h = z/2")
	g.ins("VMULPD %s, %s, %s", R, R, Z)
	g.ins("VMOVAPD %s, %s", Z, ZL)
	g.ins("VFMSUB231PD %s, %s, %s", R, R, ZL)
	g.withConst(t, "VMULPD", g.d("dhalf", 0.5), Z+", "+H)
	sinPart := func() {
		g.comment("sin r = rh + cs, cs = rh*z*S(z) + rl*(1 - h)")
		g.estrinPDOn(t, "dsinc", trigSinCoeffs(), Z, SH, SL, W)
		g.ins("VMOVAPD %s, %s", L, CS)
		g.ins("VFNMADD231PD %s, %s, %s", H, L, CS)
		g.ins("VMULPD %s, %s, %s", Z, R, SL)
		g.ins("VFMADD231PD %s, %s, %s", SH, SL, CS)
		g.ins("VADDPD %s, %s, %s", CS, R, SH)
	}
	cosPart := func() {
		g.comment("cos r = w + co: w = 1 - h, co = (1 - w - h) - zl/2 - rl*rh + z^2*C(z)")
		g.loadPD(t, one, W)
		g.ins("VSUBPD %s, %s, %s", H, W, W)
		g.loadPD(t, one, CO)
		g.ins("VSUBPD %s, %s, %s", W, CO, CO)
		g.ins("VSUBPD %s, %s, %s", H, CO, CO)
		g.withConst(t, "VFNMADD231PD", g.d("dhalf", 0.5), ZL+", "+CO)
		g.ins("VFNMADD231PD %s, %s, %s", L, R, CO)
		g.estrinPDOn(t, "dcosc", trigCosCoeffs(), Z, CH, H, ZL)
		g.comment("the estrin left z^2 in h")
		g.ins("VFMADD231PD %s, %s, %s", CH, H, CO)
		g.ins("VADDPD %s, %s, %s", CO, W, CH)
	}
	oneBit := g.v64("onebit64", 1)
	sign := g.v64("signmask64", 1<<63)
	res, M := SH, r(2) // M: a mask register once z is spent
	if op == "tan" {
		sinPart()
		cosPart()
		g.comment("sin and cos as hi+lo: sl = (rh - sh) + cs, cl = (w - ch) + co")
		g.ins("VSUBPD %s, %s, %s", SH, R, SL)
		g.ins("VADDPD %s, %s, %s", CS, SL, SL)
		CL := W
		g.ins("VSUBPD %s, %s, %s", CH, W, CL)
		g.ins("VADDPD %s, %s, %s", CO, CL, CL)
		g.comment("n even: (sh+sl)/(ch+cl); n odd: -(ch+cl)/(sh+sl); the quotient q")
		g.comment("corrected by (nh - q*dh + nl - q*dl)/dh (the residual exact by FMA)")
		NH, NL, DH, DL, Q, RM := r(2), r(3), r(4), r(5), r(8), r(10)
		odd := r(11) // co, spent: the odd-quadrant mask on ymm
		if t.z {
			g.ins("VPTESTMQ.BCST %s, %s, K2", oneBit, T)
			g.ins("VMOVAPD %s, %s", SH, NH)
			g.ins("VMOVAPD %s, K2, %s", CH, NH)
			g.ins("VMOVAPD %s, %s", SL, NL)
			g.ins("VMOVAPD %s, K2, %s", CL, NL)
			g.ins("VMOVAPD %s, %s", CH, DH)
			g.ins("VMOVAPD %s, K2, %s", SH, DH)
			g.ins("VMOVAPD %s, %s", CL, DL)
			g.ins("VMOVAPD %s, K2, %s", SL, DL)
		} else {
			g.ins("VPSLLQ $63, %s, %s", T, odd)
			g.ins("VBLENDVPD %s, %s, %s, %s", odd, CH, SH, NH)
			g.ins("VBLENDVPD %s, %s, %s, %s", odd, CL, SL, NL)
			g.ins("VBLENDVPD %s, %s, %s, %s", odd, SH, CH, DH)
			g.ins("VBLENDVPD %s, %s, %s, %s", odd, SL, CL, DL)
		}
		g.comment("one division: inv = 1/dh, q = nh*inv, then q + rm*inv")
		INV := r(6) // sh, copied into nh or dh above
		g.loadPD(t, one, INV)
		g.ins("VDIVPD %s, %s, %s", DH, INV, INV)
		g.ins("VMULPD %s, %s, %s", INV, NH, Q)
		g.ins("VMOVAPD %s, %s", NH, RM)
		g.ins("VFNMADD231PD %s, %s, %s", DH, Q, RM)
		g.ins("VADDPD %s, %s, %s", NL, RM, RM)
		g.ins("VFNMADD231PD %s, %s, %s", DL, Q, RM)
		g.ins("VFMADD231PD %s, %s, %s", INV, RM, Q)
		g.ins("VPSLLQ $63, %s, %s", T, T)
		if t.z {
			g.ins("VPXORQ %s, %s, %s", T, Q, SH)
		} else {
			g.ins("VXORPD %s, %s, %s", T, Q, SH)
		}
	} else {
		if op == "cos" {
			g.comment("cos x = sin(x + pi/2): the quadrant n+1")
			g.withConst(t, "VPADDQ", oneBit, T+", "+T)
		}
		sinOnly, cosOnly, signs := g.uniq("sinonly"), g.uniq("cosonly"), g.uniq("signs")
		odd := "Y13" // ymm: the odd-quadrant mask, kept through both parts
		g.comment("quadrant odd: ch for sh, even: sh; a vector whose lanes all take one")
		g.comment("computes only that one")
		if t.z {
			g.ins("VPTESTMQ.BCST %s, %s, K2", oneBit, T)
			g.ins("KORTESTB K2, K2")
			g.ins("JEQ  %s", sinOnly)
			g.ins("JCS  %s", cosOnly)
		} else {
			g.ins("VPSLLQ $63, %s, %s", T, odd)
			g.ins("VMOVMSKPD %s, AX", odd)
			g.ins("TESTL AX, AX")
			g.ins("JEQ  %s", sinOnly)
			g.ins("CMPL AX, $15")
			g.ins("JEQ  %s", cosOnly)
		}
		sinPart()
		cosPart()
		if t.z {
			g.ins("VMOVAPD %s, K2, %s", CH, SH)
		} else {
			g.ins("VBLENDVPD %s, %s, %s, %s", odd, CH, SH, SH)
		}
		g.ins("JMP  %s", signs)
		g.label(sinOnly)
		sinPart()
		g.ins("JMP  %s", signs)
		g.label(cosOnly)
		cosPart()
		g.ins("VMOVAPD %s, %s", CH, SH)
		g.label(signs)
		g.comment("bit 1 of the quadrant: negate")
		if t.z {
			g.ins("VPSLLQ $62, %s, %s", T, T)
			g.ins("VPTERNLOGQ.BCST $0x78, %s, %s, %s", sign, T, SH)
		} else {
			g.ins("VPSLLQ $62, %s, %s", T, T)
			g.ins("VANDPD %s, %s, %s", sign, T, T)
			g.ins("VXORPD %s, %s, %s", T, SH, SH)
		}
	}
	absMask, bound := g.v64("absmask64", 1<<63-1), g.d("trigbound64", trigBound)
	if t.z {
		if op != "cos" {
			g.comment("sin and tan of ±0 are x (the sums give +0 for -0)")
			g.ins("VPTESTNMQ.BCST %s, %s, K5", absMask, X)
			g.ins("VMOVAPD %s, K5, %s", X, res)
		}
		g.comment("|x| >= 2^30 or infinite (NaN compares false): keep x, flag the lane")
		g.ins("VPANDQ.BCST %s, %s, %s", absMask, X, M)
		g.ins("VCMPPD.BCST $13, %s, %s, K2", bound, M)
		g.ins("VMOVAPD %s, K2, %s", X, res)
		g.ins("VMOVAPD %s, %s", res, X)
		g.ins("KORW K2, K4, K4")
	} else {
		if op != "cos" {
			g.comment("sin and tan of ±0 are x (the sums give +0 for -0)")
			g.ins("VXORPD %s, %s, %s", M, M, M)
			g.ins("VCMPPD $0, %s, %s, %s", M, X, M)
			g.ins("VBLENDVPD %s, %s, %s, %s", M, X, res, res)
		}
		g.comment("|x| >= 2^30 or infinite (NaN compares false): keep x, flag the lane")
		g.ins("VANDPD %s, %s, %s", absMask, X, M)
		g.ins("VCMPPD $13, %s, %s, %s", bound, M, M)
		g.ins("VBLENDVPD %s, %s, %s, %s", M, X, res, X)
		g.ins("VORPD %s, Y14, Y14", M)
	}
}

// ---- float64 Asin, Acos and Atan, both tiers ----
//
// Atan: a = |x|, at most 2^60 (past 2^54 atan rounds to pi/2's double
// either way), is reduced by its region (atanRegions, 0 to 4: the number
// of region starts a reaches) to t = num/den with atan a = b + atan t and
// |t| <= 0.2076:
//
//	num = a*p - q,  den = p + q*a,  (p, q) = (1, c) in regions 0-3, (0, 1) in 4
//
// that is t = (a - c)/(1 + c*a) with b = atan c, c = 0, 13/32, 1 and 39/16
// from 0, 13/64, 21/32 and 3/2 (a - c exact by Sterbenz in each), and t =
// -1/a with b = pi/2 from 39/8. den is carried as dh + dl (q*a exact by
// FMA, p + q*a by TwoSum), t as th + tl (inv = 1/dh, th = num*inv, tl =
// (num - th*dh - th*dl)*inv, the residual by FMA), b as bh + bl, and then
//
//	atan a = r + (((e + bl) + tl) + th*s*P(s)),  r + e = bh + th (Fast2Sum), s = th^2,
//
// P fitted by `go run fitcoeffs.go atanF64` (degree 7): one rounding of a
// sum whose tail is small beside it. x's sign is copied last. The AVX-512
// kernel reads p, q, bh and bl from 8-entry tables by the region number
// (VPERMPD), the AVX2 kernel blends them region by region.
//
// Asin and Acos: with a = |x|, y = a and z = a^2 up to 1/2, else z =
// (1-a)/2 (exact) and y = sqrt(z) carried as yh + yl (yl = (z -
// yh^2)/(2yh), the residual by FMA). With u = a or 2yh, ul = 0 or 2yl and
// q = u*z*P(z) (P fitted by `go run fitcoeffs.go asinF64`, degree 13):
//
//	asin:  u + q up to 1/2; pi/2 - (u + ul + q) above; x's sign copied last
//	acos:  pi/2 - (x + q*sign(x)) up to 1/2; u + ul + q above for positive
//	       x, pi - (u + ul + q) for negative
//
// each as b + v (b = 0, pi/2 or pi as a float64 pair): r + e = bh + vh by
// Fast2Sum (|bh| >= |vh| where b is not 0), the result r + ((e + bl) +
// vl). NaN stays NaN, |x| > 1 gives NaN through the square root, and the
// generic asin64, acos64 and atan64 repeat every step, so all sets give
// the same bits.

// atanRegions are the float64 Atan's reduction regions (the comment
// above): each from a = from on, t = (a*p - q)/(p + q*a) and b = atan c
// (c = q/p, the last region's pi/2).
var atanRegions = [...]struct{ from, p, q float64 }{{0, 1, 0}, {13.0 / 64, 1, 13.0 / 32}, {21.0 / 32, 1, 1}, {1.5, 1, 39.0 / 16}, {39.0 / 8, 0, 1}}

const (
	atanClamp = 0x1p60   // |x| is clamped here (infinities included)
	asinTiny  = 0x1p-600 // yl's divisor at least this: z = 0 (|x| = 1) gives yl = 0
)

// atanCoeffsF64 is P with atan t = t + t*s*P(s), s = t^2 <= 0.0431,
// fitted by `go run fitcoeffs.go atanF64` (degree 7; its weighted error
// 0.022 x 2^-53).
func atanCoeffsF64() []float64 {
	return fromBits(0xbfd555555555554d, 0x3fc99999999968c7, 0xbfc24924921899f1, 0x3fbc71c6ed94bde5,
		0xbfb745c4e02ea27c, 0x3fb3af407b46e379, 0xbfb0e2701f6b4f6c, 0x3fa96adc5a807d6d)
}

// asinCoeffsF64 is P with asin y = y + y*z*P(z), z = y^2 <= 1/4, fitted
// by `go run fitcoeffs.go asinF64` (degree 13; its weighted error 0.063 x
// 2^-53).
func asinCoeffsF64() []float64 {
	return fromBits(0x3fc555555555554b, 0x3fb3333333334938, 0x3fa6db6db6c94244, 0x3f9f1c71cf0e65ad,
		0x3f96e8b9208cdaa7, 0x3f91c503cb311fc1, 0x3f8c96cbfa6c6239, 0x3f87c6a774b2f1e7, 0x3f8315e8e5e3d07a,
		0x3f862731d1016857, 0xbf60b22dde8a80ce, 0x3f9f91ef887cec76, 0xbfa163426960c826, 0x3fa38cdf1222ec81)
}

// fromBits returns the float64 values of bit patterns.
func fromBits(bits ...uint64) []float64 {
	c := make([]float64, len(bits))
	for i, b := range bits {
		c[i] = math.Float64frombits(b)
	}
	return c
}

// bigSplit returns v as a float64 pair hi + lo.
func bigSplit(v *big.Float) [2]float64 {
	hi, _ := v.Float64()
	lo, _ := new(big.Float).SetPrec(v.Prec()).Sub(v, big.NewFloat(hi)).Float64()
	return [2]float64{hi, lo}
}

// arcPairs returns b of each of atanRegions (atan c; pi/2 for the last),
// pi/2 and pi as float64 pairs (pi/2's the first two parts of
// halfPiSplit, pi's twice those).
func arcPairs() (atanB [len(atanRegions)][2]float64, halfPi, pi [2]float64) {
	h := halfPiSplit(2)
	halfPi, pi = [2]float64{h[0], h[1]}, [2]float64{2 * h[0], 2 * h[1]}
	for i, r := range atanRegions {
		atanB[i] = halfPi
		if r.p != 0 {
			atanB[i] = bigSplit(bigmath.Atan(big.NewFloat(r.q / r.p)))
		}
	}
	return atanB, halfPi, pi
}

// arcs64 emits asinF64, acosF64 and atanF64 for tier t: one vector per
// iteration on ymm, two on zmm (bodyPerTier), each body on registers 0-12.
func (g *gen) arcs64(t tier) {
	for _, op := range []string{"asin", "acos", "atan"} {
		k := ewKernel{name: op + "F64" + t.suffix, e: f64, inputs: []string{"x"}, z: t.z,
			doc: fmt.Sprintf("computes dst[i] = %s(x[i]) for i < n.", op)}
		body := func(g *gen) { g.asinAcos64(t, op) }
		if op == "atan" {
			body = func(g *gen) { g.atan64(t) }
		}
		g.elementwise(bodyPerTier(k, t, body))
	}
}

// blendConst sets dst to the constant c in the lanes of cmpMask's mask.
func (g *gen) blendConst(t tier, mask, c, dst string) {
	if t.z {
		g.ins("VBROADCASTSD %s, K2, %s", c, dst)
	} else {
		g.ins("VBLENDVPD %s, %s, %s, %s", mask, c, dst, dst)
	}
}

// xorPD sets dst = a ^ b on tier t.
func (g *gen) xorPD(t tier, a, b, dst string) {
	if t.z {
		g.ins("VPXORQ %s, %s, %s", a, b, dst)
	} else {
		g.ins("VXORPD %s, %s, %s", a, b, dst)
	}
}

// atan64 computes atan of the float64 vector in register 0 of tier t into
// register 0, with registers 1-12 (and, on zmm, K2) as scratch.
func (g *gen) atan64(t tier) {
	r := t.reg
	X, A, PR, QS, BH, BL, N, DH, DL, T, U := r(0), r(1), r(2), r(3), r(4), r(5), r(6), r(7), r(8), r(9), r(10)
	P, P2, PT := r(11), r(12), r(2) // the estrin's; PT reuses p's register once spent
	atanB, _, _ := arcPairs()
	var tabs [4][]float64 // p, q, bh, bl by region
	for i, rg := range atanRegions {
		tabs[0], tabs[1] = append(tabs[0], rg.p), append(tabs[1], rg.q)
		tabs[2], tabs[3] = append(tabs[2], atanB[i][0]), append(tabs[3], atanB[i][1])
	}
	g.comment("a = min(|x|, 2^60) (NaN stays: VMINPD returns its first operand then)")
	g.withConst(t, "VANDPD", g.v64("absmask64", 1<<63-1), X+", "+A)
	g.loadPD(t, g.d("atanclamp", atanClamp), T)
	g.ins("VMINPD %s, %s, %s", A, T, A)
	g.comment("p, q, bh and bl of a's region")
	from := func(i int) string { return g.d(fmt.Sprintf("atanfrom%d", i), atanRegions[i].from) }
	if t.z {
		g.ins("VPXORQ %s, %s, %s", T, T, T)
		for i := 1; i < len(atanRegions); i++ {
			g.ins("VCMPPD.BCST $29, %s, %s, K2", from(i), A)
			g.ins("VPADDQ.BCST %s, %s, K2, %s", g.v64("onebit64", 1), T, T)
		}
		for i, dst := range []string{PR, QS, BH, BL} {
			bits := make([]uint64, 8)
			for j := range bits {
				bits[j] = math.Float64bits(tabs[i][min(j, len(atanRegions)-1)])
			}
			g.ins("VPERMPD %s(SB), %s, %s", g.table(fmt.Sprintf("atantab%d", i), bits), T, dst)
		}
	} else {
		g.loadPD(t, g.d("done", 1), PR)
		for _, reg := range []string{QS, BH, BL} {
			g.ins("VXORPD %s, %s, %s", reg, reg, reg)
		}
		for i := 1; i < len(atanRegions); i++ {
			g.cmpMask(t, 29, from(i), A, T)
			for j, dst := range []string{PR, QS, BH, BL} {
				if j > 0 || tabs[0][i] != tabs[0][i-1] {
					g.blendConst(t, T, g.d(fmt.Sprintf("atantab%d_%d", j, i), tabs[j][i]), dst)
				}
			}
		}
	}
	g.comment("num = a*p - q (exact); dh + dl = p + q*a: q*a = ph + pl (FMA), p + ph by TwoSum")
	g.ins("VMOVAPD %s, %s", PR, N)
	g.ins("VFMSUB213PD %s, %s, %s", QS, A, N)
	g.ins("VMULPD %s, %s, %s", A, QS, DH)
	g.ins("VMOVAPD %s, %s", DH, DL)
	g.ins("VFMSUB231PD %s, %s, %s", A, QS, DL)
	g.ins("VADDPD %s, %s, %s", DH, PR, T)
	g.ins("VSUBPD %s, %s, %s", PR, T, U)
	g.ins("VSUBPD %s, %s, %s", U, T, QS)
	g.ins("VSUBPD %s, %s, %s", QS, PR, PR)
	g.ins("VSUBPD %s, %s, %s", U, DH, DH)
	g.ins("VADDPD %s, %s, %s", DH, PR, DH)
	g.ins("VADDPD %s, %s, %s", DH, DL, DL)
	g.ins("VMOVAPD %s, %s", T, DH)
	g.comment("th + tl = num/(dh + dl): inv = 1/dh, th = num*inv, tl = (num - th*dh - th*dl)*inv")
	g.loadPD(t, g.d("done", 1), T)
	g.ins("VDIVPD %s, %s, %s", DH, T, T)
	g.ins("VMULPD %s, %s, %s", T, N, U)
	g.ins("VFNMADD231PD %s, %s, %s", DH, U, N)
	g.ins("VFNMADD231PD %s, %s, %s", DL, U, N)
	g.ins("VMULPD %s, %s, %s", T, N, N)
	g.comment("s = th^2, q = th*s*P(s); r + e = bh + th; r + (((e + bl) + tl) + q)")
	S := QS
	g.ins("VMULPD %s, %s, %s", U, U, S)
	g.estrinPDOn(t, "atanf64c", atanCoeffsF64(), S, P, P2, PT)
	g.ins("VMULPD %s, %s, %s", S, U, DH)
	g.ins("VMULPD %s, %s, %s", P, DH, DH)
	g.baseSum(BH, BL, U, DL, N, DH)
	g.copySign(t, DL, X)
}

// baseSum sets r = (bh + bl) + v for a base b = bh + bl and a value v =
// vh + lows[0] + lows[1] + ..., the arcs64 kernels' last step: r + e = bh
// + vh by Fast2Sum (|bh| >= |vh| where bh is not 0), then r + ((((e + bl)
// + lows[0]) + ...)) with one rounding that counts. bh is clobbered.
func (g *gen) baseSum(bh, bl, vh, r string, lows ...string) {
	g.ins("VADDPD %s, %s, %s", vh, bh, r)
	g.ins("VSUBPD %s, %s, %s", r, bh, bh)
	g.ins("VADDPD %s, %s, %s", vh, bh, bh)
	g.ins("VADDPD %s, %s, %s", bl, bh, bh)
	for _, lo := range lows {
		g.ins("VADDPD %s, %s, %s", lo, bh, bh)
	}
	g.ins("VADDPD %s, %s, %s", bh, r, r)
}

// asinAcos64 computes op (asin or acos) of the float64 vector in register
// 0 of tier t into register 0, with registers 1-12 (and, on zmm, K2 and
// K5) as scratch.
func (g *gen) asinAcos64(t tier, op string) {
	r := t.reg
	X, A, M, Z, YH, UL, P, P2, PT, BH, BL, SG, T := r(0), r(1), r(2), r(3), r(4), r(5), r(6), r(7), r(8), r(9), r(10), r(11), r(12)
	_, halfPi, pi := arcPairs()
	sign := g.v64("signmask64", 1<<63)
	g.comment("a = |x|; z = a^2, or (1-a)/2 above 1/2 (the mask M, or K2)")
	g.withConst(t, "VANDPD", g.v64("absmask64", 1<<63-1), X+", "+A)
	g.ins("VMULPD %s, %s, %s", A, A, Z)
	g.loadPD(t, g.d("done", 1), T)
	g.ins("VSUBPD %s, %s, %s", A, T, T)
	g.withConst(t, "VMULPD", g.d("dhalf", 0.5), T+", "+T)
	g.cmpMask(t, 30, g.d("dhalf", 0.5), A, M)
	g.blendMask(t, M, T, Z)
	g.comment("above 1/2: u = 2yh, ul = 2yl = (z - yh^2)/yh (divisor at least 2^-600); else u = a, ul = 0")
	g.ins("VSQRTPD %s, %s", Z, YH)
	g.withConst(t, "VMAXPD", g.d("asintiny", asinTiny), YH+", "+T)
	g.ins("VMOVAPD %s, %s", Z, UL)
	g.ins("VFNMADD231PD %s, %s, %s", YH, YH, UL)
	g.ins("VDIVPD %s, %s, %s", T, UL, UL)
	g.ins("VADDPD %s, %s, %s", YH, YH, T)
	g.ins("VMOVAPD %s, %s", A, YH)
	g.blendMask(t, M, T, YH)
	g.ins("VXORPD %s, %s, %s", T, T, T)
	g.blendMask(t, M, UL, T)
	U := YH
	g.comment("q = u*z*P(z); vl = ul + q")
	g.estrinPDOn(t, "asinf64c", asinCoeffsF64(), Z, P, P2, PT)
	g.ins("VMULPD %s, %s, %s", Z, U, UL)
	g.ins("VMULPD %s, %s, %s", P, UL, UL)
	g.ins("VADDPD %s, %s, %s", T, UL, UL)
	VL := UL
	if op == "asin" {
		g.comment("above 1/2: b = pi/2, v negated")
		for _, reg := range []string{BH, BL, SG} {
			g.ins("VXORPD %s, %s, %s", reg, reg, reg)
		}
		g.blendConst(t, M, g.d("halfpi1", halfPi[0]), BH)
		g.blendConst(t, M, g.d("halfpihlo", halfPi[1]), BL)
		g.blendConst(t, M, sign, SG)
	} else {
		g.comment("b = pi/2 up to 1/2, above 0 or (negative x) pi; v's sign: x's, flipped up to 1/2")
		g.withConst(t, "VANDPD", sign, X+", "+SG)
		g.withConst(t, "VXORPD", sign, SG+", "+T)
		g.blendMask(t, M, SG, T)
		g.ins("VMOVAPD %s, %s", T, SG)
		g.loadPD(t, g.d("halfpi1", halfPi[0]), BH)
		g.loadPD(t, g.d("halfpihlo", halfPi[1]), BL)
		g.ins("VXORPD %s, %s, %s", P, P, P)
		g.ins("VXORPD %s, %s, %s", P2, P2, P2)
		if t.z {
			g.ins("VCMPPD.BCST $17, %s, %s, K5", g.d("dzero", 0), X)
			g.ins("VBROADCASTSD %s, K5, %s", g.d("pihi", pi[0]), P)
			g.ins("VBROADCASTSD %s, K5, %s", g.d("pilo", pi[1]), P2)
		} else {
			g.ins("VCMPPD $17, %s, %s, %s", g.d("dzero", 0), X, PT)
			g.ins("VANDPD %s, %s, %s", g.d("pihi", pi[0]), PT, P)
			g.ins("VANDPD %s, %s, %s", g.d("pilo", pi[1]), PT, P2)
		}
		g.blendMask(t, M, P, BH)
		g.blendMask(t, M, P2, BL)
	}
	g.comment("v = ±(u + vl); r + e = bh + vh; r + ((e + bl) + vl)")
	g.xorPD(t, SG, U, U)
	g.xorPD(t, SG, VL, VL)
	g.baseSum(BH, BL, U, P, VL)
	if op == "asin" {
		g.copySign(t, P, X)
	} else {
		g.ins("VMOVAPD %s, %s", P, X)
	}
}

// ---- float32 Asin, Acos and Atan in float64 lanes, both tiers ----
//
// As Sin, each float32 vector is widened into two float64 vectors and the
// result rounded once. atan(a), a = |x|, is reduced by one division to t
// with |t| <= tan(pi/8): t = a below tan(pi/8), (a-1)/(a+1) (plus pi/4)
// below tan(3pi/8), -1/a (plus pi/2) above, a-1 and a+1 exact for a
// float32 a; atan t = t + t^3*A(t^2), A of degree 6 fitted to within
// 2^-40 of the result (atanCoeffs), and x's sign is copied last.
// Asin and Acos take no division (asinCore): a polynomial for asin on
// [0, 1/2], applied to |x| or to sqrt((1-|x|)/2), fitted to within 2^-44.
// Every float64 step errs by a few 2^-53, so the result is the exact value
// correctly rounded but within about 2^-20 ulp of a tie. |x| > 1 gives
// NaN through the square root, and asin(±1) = ±pi/2, acos(1) = 0 and
// acos(-1) = pi through y = 0.

// atanCoeffs is A with atan t = t + t*s*A(s), s = t^2 <= tan(pi/8)^2,
// fitted by `go run fitcoeffs.go atan32` (degree 6; the error below
// 2^-40.2 of the result, where the Taylor series to t^25 it replaces
// reached 2^-38 with twelve terms).
func atanCoeffs() []float64 {
	return fromBits(0xbfd5555554efe90f, 0x3fc99999217af654, 0xbfc2490c71166b3d, 0x3fbc6d27777112a7,
		0xbfb70877d9f633fe, 0x3fb1e70cf7bf982c, 0xbfa36f24a680de45)
}

// wideOp32 is a float32 kernel computed in float64 lanes: core turns
// the float64 vector in register b (of two halves, b = 1 and 7) into its
// result there, with registers b+1 to b+5 and K2 as scratch.
type wideOp32 struct {
	name string
	core func(g *gen, t tier, b int)
}

// wideF32 emits each op's kernel (name+"F32"+suffix) for tier t, shaped
// as trigs: the vector widened into two float64 halves, the core on
// each, the halves rounded back once.
func (g *gen) wideF32(t tier, ops []wideOp32) {
	for _, op := range ops {
		k := ewKernel{name: op.name + "F32" + t.suffix, e: f32, inputs: []string{"x"}, z: t.z,
			doc: fmt.Sprintf("computes dst[i] = %s(x[i]) for i < n in float64 lanes.", op.name)}
		body := func(g *gen) {
			g.widenHalves(t)
			for _, b := range []int{1, 7} {
				op.core(g, t, b)
			}
			g.narrowHalves(t)
		}
		k = bodyPerTier(k, t, body)
		g.elementwise(k)
	}
}

// arcs emits asinF32, acosF32 and atanF32 for tier t.
func (g *gen) arcs(t tier) {
	g.wideF32(t, []wideOp32{
		{"asin", func(g *gen, t tier, b int) { g.asinCore(t, "asin", b) }},
		{"acos", func(g *gen, t tier, b int) { g.asinCore(t, "acos", b) }},
		{"atan", (*gen).atanCore},
	})
}

// bodyPerTier sets k's loop for a body that turns the float32 vector in
// register 0 into its result there: two vectors per iteration on zmm
// (twoSlots, registers 0-12 and 16-28), one on ymm.
func bodyPerTier(k ewKernel, t tier, body func(g *gen)) ewKernel {
	if t.z {
		return twoSlots(k, z, 13, 16, body)
	}
	k.unroll = 1
	k.body = func(g *gen, u int, in []string) string { body(g); return "Y0" }
	return k
}

// widenHalves widens the float32 vector in register 0 of tier t into
// float64 registers 1 (low half) and 7 (high half).
func (g *gen) widenHalves(t tier) { g.widenHalvesOf(t, 0, 1, 7) }

// widenHalvesOf widens the float32 vector in register src of tier t into
// float64 registers lo (low half) and hi (high half).
func (g *gen) widenHalvesOf(t tier, src, lo, hi int) {
	if t.z {
		g.ins("VCVTPS2PD Y%d, Z%d", src, lo)
		g.ins("VEXTRACTF32X8 $1, Z%d, Y%d", src, hi)
		g.ins("VCVTPS2PD Y%d, Z%d", hi, hi)
	} else {
		g.ins("VCVTPS2PD X%d, Y%d", src, lo)
		g.ins("VEXTRACTF128 $1, Y%d, X%d", src, hi)
		g.ins("VCVTPS2PD X%d, Y%d", hi, hi)
	}
}

// narrowHalves rounds float64 registers 1 and 7 of tier t back into the
// float32 register 0, low half first.
func (g *gen) narrowHalves(t tier) { g.narrowHalvesOf(t, 1, 7, 0) }

// narrowHalvesOf rounds float64 registers lo and hi of tier t into the
// float32 register dst, low half first.
func (g *gen) narrowHalvesOf(t tier, lo, hi, dst int) {
	if t.z {
		g.ins("VCVTPD2PS Z%d, Y%d", lo, lo)
		g.ins("VCVTPD2PS Z%d, Y%d", hi, hi)
		g.ins("VINSERTF32X8 $1, Y%d, Z%d, Z%d", hi, lo, dst)
	} else {
		g.ins("VCVTPD2PSY Y%d, X%d", lo, lo)
		g.ins("VCVTPD2PSY Y%d, X%d", hi, hi)
		g.ins("VINSERTF128 $1, X%d, Y%d, Y%d", hi, lo, dst)
	}
}

// atan2F32 emits atan2F32 for tier t: dst = atan2(y, x) of two float32
// inputs in float64 lanes, one vector per iteration. Per half, atan q/p of
// q = min(|y|, 2^1000) and p = min(max(|x|, 2^-1000), 2^1000) (so 0/0 is
// 0 and Inf/Inf is 1, where atan2 takes 0 and pi/4 by C99), by
// atanOfRatio, pi - that where x's sign bit is set (x = -0 too), y's sign
// copied last, rounded once to float32. NaN in either gives NaN.
func (g *gen) atan2F32(t tier) {
	r := t.reg
	k := ewKernel{name: "atan2F32" + t.suffix, e: f32, inputs: []string{"y", "x"}, z: t.z, unroll: 1,
		doc: "computes dst[i] = atan2(y[i], x[i]) for i < n in float64 lanes."}
	k.body = func(g *gen, u int, in []string) string {
		g.widenHalvesOf(t, 0, 2, 11)
		g.widenHalvesOf(t, 1, 3, 12)
		for _, yx := range [][2]int{{2, 3}, {11, 12}} {
			Y, X := r(yx[0]), r(yx[1])
			A, S1, S2 := r(4), r(5), r(6)
			abs := g.v64("absmask64", 1<<63-1)
			g.comment("a = min(|y|, big)/min(max(|x|, tiny), big) (the operand order passes NaN)")
			g.withConst(t, "VANDPD", abs, Y+", "+A)
			g.loadPD(t, g.d("datan2big", 0x1p1000), S1)
			g.ins("VMINPD %s, %s, %s", A, S1, A)
			g.withConst(t, "VANDPD", abs, X+", "+S2)
			g.ins("VMINPD %s, %s, %s", S2, S1, S2)
			g.loadPD(t, g.d("datan2tiny", 0x1p-1000), S1)
			g.ins("VMAXPD %s, %s, %s", S2, S1, S1)
			g.atanOfRatio(t, 4)
			g.comment("pi - atan a where x's sign bit is set; y's sign")
			g.loadPD(t, g.d("pi64", math.Pi), S1)
			if t.z {
				g.ins("VPMOVQ2M %s, K2", X)
				g.ins("VSUBPD %s, %s, K2, %s", A, S1, A)
			} else {
				g.ins("VSUBPD %s, %s, %s", A, S1, S1)
				g.ins("VBLENDVPD %s, %s, %s, %s", X, S1, A, A)
			}
			g.copySign(t, A, Y)
		}
		g.narrowHalvesOf(t, 2, 11, 0)
		return r(0)
	}
	g.elementwise(k)
}

// atan2Place64 emits atan2PlaceF64 for tier t, the last step of the
// float64 Atan2 (vec's atan2Via; atan2Place is its Go twin, with the same
// operations and bits): from r = atan(min(|y|,|x|)/max(|y|,|x|)) in q, dst
// = ((b + ±r) + b_lo) with y's sign, b = 0, pi or pi/2 as pi/2 = hi + lo
// (halfPiSplit), pi/2 where |y| > |x| and pi where not and x's sign bit is
// set, r's sign flipped where exactly one of those holds. It returns
// false when some r is NaN (0/0, Inf/Inf or a NaN input), which the Go
// side then takes from math.Atan2.
func (g *gen) atan2Place64(t tier) {
	r := t.reg
	k := ewKernel{name: "atan2PlaceF64" + t.suffix, e: f64, inputs: []string{"q", "y", "x"}, z: t.z, unroll: 1, okFlag: "Y14",
		doc: "sets dst[i] to atan2(y[i], x[i]) from q[i] = atan(min(|y[i]|, |x[i]|)/max(|y[i]|, |x[i]|)) for i < n."}
	if t.z {
		k.okFlag = "K4"
	}
	hp := halfPiSplit(2)
	k.body = func(g *gen, u int, in []string) string {
		Q, Y, X := in[0], in[1], in[2]
		AY, AX, B, L, S, F := r(3), r(4), r(5), r(6), r(7), r(8)
		abs, sign := g.v64("absmask64", 1<<63-1), g.v64("signmask64", 1<<63)
		piHi, piLo := g.d("atan2pihi", 2*hp[0]), g.d("atan2pilo", 2*hp[1])
		halfHi, halfLo := g.d("atan2halfpihi", hp[0]), g.d("atan2halfpilo", hp[1])
		g.comment("|y|, |x|; NaN lanes of q into the flag")
		g.withConst(t, "VANDPD", abs, Y+", "+AY)
		g.withConst(t, "VANDPD", abs, X+", "+AX)
		g.ins("VXORPD %s, %s, %s", B, B, B)
		g.ins("VXORPD %s, %s, %s", L, L, L)
		if t.z {
			g.ins("VCMPPD $3, %s, %s, K2", Q, Q)
			g.ins("KORB K2, K4, K4")
			g.comment("K2: |y| > |x|; K3: x's sign bit; r's sign flipped where exactly one holds")
			g.ins("VCMPPD $0x1e, %s, %s, K2", AX, AY)
			g.ins("VPMOVQ2M %s, K3", X)
			g.ins("KXORB K2, K3, K5")
			g.ins("VXORPD.BCST %s, %s, K5, %s", sign, Q, Q)
			g.comment("base: pi where x's sign bit is set, pi/2 where |y| > |x|")
			g.loadPD(t, piHi, S)
			g.ins("VMOVAPD %s, K3, %s", S, B)
			g.loadPD(t, piLo, S)
			g.ins("VMOVAPD %s, K3, %s", S, L)
			g.loadPD(t, halfHi, S)
			g.ins("VMOVAPD %s, K2, %s", S, B)
			g.loadPD(t, halfLo, S)
			g.ins("VMOVAPD %s, K2, %s", S, L)
		} else {
			g.ins("VCMPPD $3, %s, %s, %s", Q, Q, S)
			g.ins("VORPD %s, Y14, Y14", S)
			g.comment("F: |y| > |x|; r's sign flipped where exactly one of F and x's sign bit holds")
			g.ins("VCMPPD $0x1e, %s, %s, %s", AX, AY, F)
			g.ins("VXORPD %s, %s, %s", X, F, S)
			g.withConst(t, "VANDPD", sign, S+", "+S)
			g.ins("VXORPD %s, %s, %s", S, Q, Q)
			g.comment("base: pi where x's sign bit is set, pi/2 where |y| > |x|")
			g.loadPD(t, piHi, S)
			g.ins("VBLENDVPD %s, %s, %s, %s", X, S, B, B)
			g.loadPD(t, piLo, S)
			g.ins("VBLENDVPD %s, %s, %s, %s", X, S, L, L)
			g.loadPD(t, halfHi, S)
			g.ins("VBLENDVPD %s, %s, %s, %s", F, S, B, B)
			g.loadPD(t, halfLo, S)
			g.ins("VBLENDVPD %s, %s, %s, %s", F, S, L, L)
		}
		g.comment("(b + r) + b_lo, with y's sign")
		g.ins("VADDPD %s, %s, %s", Q, B, B)
		g.ins("VADDPD %s, %s, %s", L, B, B)
		g.copySign(t, B, Y)
		return Y
	}
	g.elementwise(k)
}

// atanCore computes atan of the float64 vector in register b of tier t
// into the same register, with registers b+1 to b+5 (and, on zmm, K2) as
// scratch.
func (g *gen) atanCore(t tier, b int) {
	X, A, N, D, Z, P := t.reg(b), t.reg(b+1), t.reg(b+2), t.reg(b+3), t.reg(b+4), t.reg(b+5)
	one := g.d("done", 1)
	lo, hi := g.d("tanpi8", math.Sqrt2-1), g.d("tan3pi8", math.Sqrt2+1)
	// above sets dst to src in the lanes where a > c.
	above := func(c, src, dst string) { g.blendWhere(t, 30, c, A, Z, src, dst) }
	g.comment("a = |w|; t = a, (a-1)/(a+1) above tan(pi/8), -1/a above tan(3pi/8)")
	g.withConst(t, "VANDPD", g.v64("absmask64", 1<<63-1), X+", "+A)
	g.ins("VMOVAPD %s, %s", A, N)
	g.loadPD(t, one, D)
	if t.z {
		// The two tests once, in K2 (above tan(pi/8)) and K5 (above
		// tan(3pi/8)), each selection a masked instruction: the values
		// of the blends below, in fewer instructions.
		g.ins("VCMPPD.BCST $30, %s, %s, K2", lo, A)
		g.ins("VCMPPD.BCST $30, %s, %s, K5", hi, A)
		g.ins("VSUBPD.BCST %s, %s, K2, %s", one, A, N)
		g.ins("VADDPD.BCST %s, %s, K2, %s", one, A, D)
		g.ins("VBROADCASTSD %s, K5, %s", g.d("dm1", -1), N)
		g.ins("VMOVAPD %s, K5, %s", A, D)
		g.ins("VDIVPD %s, %s, %s", D, N, N)
		g.comment("base 0, pi/4 or pi/2 by the same tests")
		g.ins("VXORPD %s, %s, %s", D, D, D)
		g.ins("VBROADCASTSD %s, K2, %s", g.d("pi4", math.Pi/4), D)
		g.ins("VBROADCASTSD %s, K5, %s", g.d("pi2", math.Pi/2), D)
		g.atanSeries(t, X, A, N, D, Z, P)
		return
	}
	g.withConst(t, "VSUBPD", one, A+", "+P)
	above(lo, P, N)
	g.withConst(t, "VADDPD", one, A+", "+P)
	above(lo, P, D)
	g.loadPD(t, g.d("dm1", -1), P)
	above(hi, P, N)
	above(hi, A, D)
	g.ins("VDIVPD %s, %s, %s", D, N, N)
	g.comment("base 0, pi/4 or pi/2 by the same tests")
	g.ins("VXORPD %s, %s, %s", D, D, D)
	g.loadPD(t, g.d("pi4", math.Pi/4), P)
	above(lo, P, D)
	g.loadPD(t, g.d("pi2", math.Pi/2), P)
	above(hi, P, D)
	g.atanSeries(t, X, A, N, D, Z, P)
}

// atanOfRatio computes atan(q/p) for the float64 vectors q >= 0 in
// register b and p > 0 in register b+1 (NaN in either gives NaN) into
// register b, with registers b+1 to b+5, 13 and 14 (and, on zmm, K2 and
// K5) as scratch. It reduces as atanCore does, with one division where
// atanCore's a = q/p would be a second: t = q/p, (q-p)/(q+p) where q >
// p*tan(pi/8), -p/q where q > p*tan(3pi/8). The tests' products round,
// so a lane beside a bound may take either side, where |t| exceeds
// tan(pi/8) by an ulp at most and the series is as accurate.
func (g *gen) atanOfRatio(t tier, b int) {
	Q, Pd, N, D, Z, P := t.reg(b), t.reg(b+1), t.reg(b+2), t.reg(b+3), t.reg(b+4), t.reg(b+5)
	lo, hi := g.d("tanpi8", math.Sqrt2-1), g.d("tan3pi8", math.Sqrt2+1)
	pi4, pi2 := g.d("pi4", math.Pi/4), g.d("pi2", math.Pi/2)
	g.comment("t = q/p, (q-p)/(q+p) above tan(pi/8), -p/q above tan(3pi/8); base 0, pi/4, pi/2")
	if t.z {
		g.ins("VMULPD.BCST %s, %s, %s", lo, Pd, Z)
		g.ins("VCMPPD $30, %s, %s, K2", Z, Q)
		g.ins("VMULPD.BCST %s, %s, %s", hi, Pd, Z)
		g.ins("VCMPPD $30, %s, %s, K5", Z, Q)
		g.ins("VMOVAPD %s, %s", Q, N)
		g.ins("VMOVAPD %s, %s", Pd, D)
		g.ins("VSUBPD %s, %s, K2, %s", Pd, Q, N)
		g.ins("VADDPD %s, %s, K2, %s", Pd, Q, D)
		g.ins("VXORPD %s, %s, %s", Z, Z, Z)
		g.ins("VSUBPD %s, %s, K5, %s", Pd, Z, N)
		g.ins("VMOVAPD %s, K5, %s", Q, D)
		g.ins("VDIVPD %s, %s, %s", D, N, N)
		g.ins("VXORPD %s, %s, %s", D, D, D)
		g.ins("VBROADCASTSD %s, K2, %s", pi4, D)
		g.ins("VBROADCASTSD %s, K5, %s", pi2, D)
	} else {
		M1, M2 := t.reg(13), t.reg(14)
		g.loadPD(t, lo, M1)
		g.ins("VMULPD %s, %s, %s", Pd, M1, M1)
		g.ins("VCMPPD $30, %s, %s, %s", M1, Q, M1)
		g.loadPD(t, hi, M2)
		g.ins("VMULPD %s, %s, %s", Pd, M2, M2)
		g.ins("VCMPPD $30, %s, %s, %s", M2, Q, M2)
		g.ins("VSUBPD %s, %s, %s", Pd, Q, P)
		g.ins("VBLENDVPD %s, %s, %s, %s", M1, P, Q, N)
		g.ins("VADDPD %s, %s, %s", Pd, Q, P)
		g.ins("VBLENDVPD %s, %s, %s, %s", M1, P, Pd, D)
		g.ins("VXORPD %s, %s, %s", P, P, P)
		g.ins("VSUBPD %s, %s, %s", Pd, P, P)
		g.ins("VBLENDVPD %s, %s, %s, %s", M2, P, N, N)
		g.ins("VBLENDVPD %s, %s, %s, %s", M2, Q, D, D)
		g.ins("VDIVPD %s, %s, %s", D, N, N)
		g.ins("VXORPD %s, %s, %s", D, D, D)
		g.loadPD(t, pi4, P)
		g.ins("VBLENDVPD %s, %s, %s, %s", M1, P, D, D)
		g.loadPD(t, pi2, P)
		g.ins("VBLENDVPD %s, %s, %s, %s", M2, P, D, D)
	}
	g.atanSeries(t, Q, Pd, N, D, Z, P)
}

// atanSeries ends atanCore: the series of the reduced t (N) plus the base
// (D), with x's sign (X), into P; A and Z scratch.
func (g *gen) atanSeries(t tier, X, A, N, D, Z, P string) {
	g.comment("atan t = t + t*z*A(z), z = t^2; plus the base; x's sign")
	g.ins("VMULPD %s, %s, %s", N, N, Z)
	g.estrinPDOn(t, "atanc", atanCoeffs(), Z, P, t.reg(13), t.reg(14))
	g.ins("VMULPD %s, %s, %s", Z, N, A)
	g.ins("VFMADD213PD %s, %s, %s", N, A, P)
	g.ins("VADDPD %s, %s, %s", D, P, P)
	g.copySign(t, P, X)
}

// asinCoeffs64 is P with asin y = y + y*z*P(z), z = y^2 <= 1/4, fitted by
// `go run fitcoeffs.go asin64` (degree 8; the error below 2^-44 of the
// result).
func asinCoeffs64() []float64 {
	return fromBits(0x3fc55555556600e9, 0x3fb333331ece25d5, 0x3fa6db7649eee7fa, 0x3f9f1aaf10d834e6,
		0x3f9702bbc76a2b4d, 0x3f90df6f7d07600b, 0x3f9314464150bcf3, 0xbf6771d79da567f9, 0x3fa05d69fd6745df)
}

// asinCore computes op (asin or acos) of the float64 vector in register b
// of tier t into the same register, with registers b+1 to b+5 (and, on
// zmm, K2) as scratch. With a = |x|: y = a below 1/2, else y =
// sqrt((1-a)/2) (1-a exact for a float32 a, the halving exact), and p =
// asin y = y + y*z*P(z), z = y^2. Then asin x = ±p or ±(pi/2 - 2p), and
// acos x = pi/2 - asin x below 1/2, 2p above (pi - 2p for negative x):
// no division, one square root.
func (g *gen) asinCore(t tier, op string, b int) {
	X, A, Y, Z, P, M := t.reg(b), t.reg(b+1), t.reg(b+2), t.reg(b+3), t.reg(b+4), t.reg(b+5)
	half := g.d("half64", 0.5)
	// large is the mask of a > 1/2, set once for the blends that take it.
	large := func(src, dst string) { g.blendMask(t, M, src, dst) }
	g.comment("a = |x|; y = a, z = a^2; above 1/2: z = (1-a)/2, y = sqrt(z)")
	g.withConst(t, "VANDPD", g.v64("absmask64", 1<<63-1), X+", "+A)
	g.ins("VMOVAPD %s, %s", A, Y)
	g.ins("VMULPD %s, %s, %s", A, A, P)
	g.loadPD(t, g.d("one64", 1), Z)
	g.ins("VSUBPD %s, %s, %s", A, Z, Z)
	g.withConst(t, "VMULPD", half, Z+", "+Z)
	g.cmpMask(t, 30, half, A, M)
	large(Z, P)
	g.ins("VSQRTPD %s, %s", Z, Z)
	large(Z, Y)
	g.comment("p = y + y*z*P(z)")
	g.hornerPDOn(t, "asinc", asinCoeffs64(), P, Z)
	g.ins("VMULPD %s, %s, %s", P, Y, P)
	g.ins("VFMADD213PD %s, %s, %s", Y, P, Z)
	pi2 := g.d("pi2", math.Pi/2)
	if op == "asin" {
		g.comment("above 1/2: pi/2 - 2p; x's sign")
		g.ins("VADDPD %s, %s, %s", Z, Z, Y)
		g.loadPD(t, pi2, P)
		g.ins("VSUBPD %s, %s, %s", Y, P, Y)
		large(Y, Z)
		g.copySign(t, Z, X)
		return
	}
	g.comment("below 1/2: pi/2 - (p with x's sign); above: 2p, or pi - 2p for negative x")
	g.ins("VMOVAPD %s, %s", X, Y)
	g.copySign(t, Z, Y)
	g.loadPD(t, pi2, P)
	g.ins("VSUBPD %s, %s, %s", Y, P, Y)
	g.ins("VADDPD %s, %s, %s", Z, Z, Z)
	g.loadPD(t, g.d("pi64", math.Pi), P)
	g.ins("VSUBPD %s, %s, %s", Z, P, P)
	g.blendWhere(t, 1, g.d("dzero", 0), X, M, P, Z)
	g.blendWhere(t, 18, half, A, M, Y, Z)
	g.ins("VMOVAPD %s, %s", Z, X)
}

// blendWhere sets dst to src in the float64 lanes where reg compares
// true against the constant c by predicate imm (VCMPPD's; NaN compares
// false under the ordered ones used here): cmpMask, then blendMask.
func (g *gen) blendWhere(t tier, imm int, c, reg, mask, src, dst string) {
	g.cmpMask(t, imm, c, reg, mask)
	g.blendMask(t, mask, src, dst)
}

// cmpMask sets the lane mask of reg compared against the constant c by
// predicate imm: in K2 on zmm, in mask (a scratch register, which may be
// reg) on ymm.
func (g *gen) cmpMask(t tier, imm int, c, reg, mask string) {
	if t.z {
		g.ins("VCMPPD.BCST $%d, %s, %s, K2", imm, c, reg)
	} else {
		g.ins("VCMPPD $%d, %s, %s, %s", imm, c, reg, mask)
	}
}

// blendMask sets dst to src in the lanes of cmpMask's mask.
func (g *gen) blendMask(t tier, mask, src, dst string) {
	if t.z {
		g.ins("VMOVAPD %s, K2, %s", src, dst)
	} else {
		g.ins("VBLENDVPD %s, %s, %s, %s", mask, src, dst, dst)
	}
}

// copySign sets dst to mag with dst's sign bit (mag's sign bit clear).
func (g *gen) copySign(t tier, mag, dst string) {
	sign := g.v64("signmask64", 1<<63)
	if t.z {
		g.ins("VPTERNLOGQ.BCST $0xe4, %s, %s, %s", sign, mag, dst)
	} else {
		g.ins("VANDPD %s, %s, %s", sign, dst, dst)
		g.ins("VORPD %s, %s, %s", mag, dst, dst)
	}
}

// ---- float32 Sinh and Cosh in float64 lanes, both tiers ----
//
// As Sin, each float32 vector is widened into two float64 vectors and the
// result rounded once. With a = min(|x|, 100), k = round(a/ln2) (from
// a*log2e + 1.5*2^52, k in the low bits) and r = a - k*ln2 (|r| <= ln2/2,
// ln2 in two parts), e^r = E + O and e^-r = E - O for the even and odd
// parts of the Taylor series (E to r^10, O to r^9: truncation below 2^-40
// relative), so e^a = 2^k (E+O) and e^-a = 2^-k (E-O) without a
// division: cosh a = 2^(k-1) (E+O) + 2^(-k-1) (E-O) and sinh a =
// 2^(k-1) (E+O) - 2^(-k-1) (E-O), the scaling exact and each a fused
// multiply-add. Where k = 0 (a < ln2/2) sinh a is O itself, so the
// difference, which would cancel, is not taken; for k >= 1 the first term
// is at least twice the second and at most one bit cancels. With every
// step's few 2^-53, the result is the exact value correctly rounded but
// within about 2^-16 ulp of a tie (0.500 ulp on all 2^32 inputs, both
// tiers). Sinh copies x's sign (sinh(-0) = -0), a beyond float32's
// overflow (89.4) gives infinity when narrowed, and NaN stays NaN (the
// clamp keeps it, the compares are false).

// hyperbolics emits sinhF32, coshF32 and softplusF32 for tier t.
func (g *gen) hyperbolics(t tier) {
	g.wideF32(t, []wideOp32{
		{"sinh", func(g *gen, t tier, b int) { g.hypCore(t, "sinh", b) }},
		{"cosh", func(g *gen, t tier, b int) { g.hypCore(t, "cosh", b) }},
		{"softplus", (*gen).softplusCore},
	})
}

// hypCoeffs returns 1/(2k+odd)! for k = from..to, rounded to float64: the
// hyperbolic sine's series (odd 1) or cosine's (odd 0).
func hypCoeffs(odd, from, to int) []float64 {
	c := taylorCoeffs(odd, from, to)
	for i := range c {
		c[i] = math.Abs(c[i])
	}
	return c
}

// expParts starts hypCore and softplusCore on the float64 vector x of
// tier t: a = min(|x|, clamp) (NaN stays), k = round(a/ln2) in the low
// bits of T (the 1.5*2^52 shifter), r = a - k*ln2, and e^r = E + O from
// the even and odd parts of the series, leaving E in Z, O in O and k in T
// (A and E are clobbered).
func (g *gen) expParts(t tier, clamp float64, x, A, T, Z, O, E string) {
	shifter := g.d("shifter64", 0x1.8p52)
	g.comment(fmt.Sprintf("a = min(|x|, %g) (NaN stays); k = round(a/ln2) in the low bits of T", clamp))
	g.loadPD(t, g.d(fmt.Sprintf("expmax%g", clamp), clamp), A)
	g.withConst(t, "VANDPD", g.v64("absmask64", 1<<63-1), x+", "+Z)
	g.ins("VMINPD %s, %s, %s", Z, A, A)
	g.loadPD(t, shifter, T)
	g.withConst(t, "VFMADD231PD", g.d("log2e64", math.Log2E), A+", "+T)
	g.withConst(t, "VSUBPD", shifter, T+", "+Z)
	g.comment("r = a - k*ln2 in two parts, the first product exact")
	g.withConst(t, "VFNMADD231PD", g.d("ln2hi64", ln2Hi64), Z+", "+A)
	g.withConst(t, "VFNMADD231PD", g.d("ln2lo64", ln2Lo64), Z+", "+A)
	g.comment("z = r^2; O = r + r*z*S(z); E = (1 + z/2) + z^2*C(z)")
	g.ins("VMULPD %s, %s, %s", A, A, Z)
	g.hornerPDOn(t, "sinhc", hypCoeffs(1, 1, 4), Z, O)
	g.ins("VMULPD %s, %s, %s", Z, A, E)
	g.ins("VFMADD213PD %s, %s, %s", A, E, O)
	g.hornerPDOn(t, "coshc", hypCoeffs(0, 2, 5), Z, E)
	g.ins("VMULPD %s, %s, %s", Z, Z, A)
	g.withConst(t, "VMULPD", g.d("half64", 0.5), Z+", "+Z)
	g.withConst(t, "VADDPD", g.d("one64", 1), Z+", "+Z)
	g.ins("VFMADD231PD %s, %s, %s", A, E, Z)
}

// powerOfTwo sets dst to 2^(bias-1023+sign*k), k in the low bits of T
// (sign +1 or -1), from the exponent bits.
func (g *gen) powerOfTwo(t tier, T string, bias uint64, sign int, dst string) {
	c := g.v64(fmt.Sprintf("bias%d", bias), bias)
	if sign > 0 {
		g.withConst(t, "VPADDQ", c, T+", "+dst)
	} else {
		g.loadPD(t, c, dst)
		g.ins("VPSUBQ %s, %s, %s", T, dst, dst)
	}
	g.ins("VPSLLQ $52, %s, %s", dst, dst)
}

// hypCore computes op (sinh or cosh) of the float64 vector in register b
// of tier t into the same register, with registers b+1 to b+5 (and, on
// zmm, K2) as scratch.
func (g *gen) hypCore(t tier, op string, b int) {
	X, A, T, Z, O, E := t.reg(b), t.reg(b+1), t.reg(b+2), t.reg(b+3), t.reg(b+4), t.reg(b+5)
	g.expParts(t, 100, X, A, T, Z, O, E)
	g.comment("E-O, E+O (E in Z); scaled by 2^(-k-1) and 2^(k-1) (exponent bits from k)")
	g.ins("VSUBPD %s, %s, %s", O, Z, A)
	g.ins("VADDPD %s, %s, %s", O, Z, E)
	g.powerOfTwo(t, T, 1022, -1, Z)
	g.ins("VMULPD %s, %s, %s", Z, A, A)
	g.powerOfTwo(t, T, 1022, 1, Z)
	if op == "cosh" {
		g.ins("VFMADD231PD %s, %s, %s", Z, E, A)
		g.ins("VMOVAPD %s, %s", A, X)
		return
	}
	g.ins("VFMSUB231PD %s, %s, %s", Z, E, A)
	g.comment("k = 0: O; x's sign")
	g.blendWhere(t, 0, g.d("shifter64", 0x1.8p52), T, T, O, A)
	g.copySign(t, A, X)
}

// softplusCoeffs returns 2/(2k+1) for k = 1..9: log1p(f) = 2 atanh(s) =
// 2s + s^3 P(s^2) with s = f/(2+f), truncated below 2^-50 for |s| <=
// 0.1716.
func softplusCoeffs() []float64 {
	var c []float64
	for k := 1; k <= 9; k++ {
		c = append(c, 2/float64(2*k+1))
	}
	return c
}

// softplusCore computes softplus of the float64 vector in register b of
// tier t into the same register, with registers b+1 to b+5 (and, on zmm,
// K2) as scratch: e = e^-a (a = min(|x|, 200), expParts' E-O scaled by
// 2^-k), then log1p(e) for e in (0, 1]: with f = e, or f = (e-1)/2 (exact)
// and ln2 added where e > sqrt2-1, so that |s| <= 0.1716 for s =
// f/(2+f), log1p(f) = 2s + s^3 P(s^2); the result max(x, 0) + (base +
// log1p(f)).
func (g *gen) softplusCore(t tier, b int) {
	X, A, T, Z, O, E := t.reg(b), t.reg(b+1), t.reg(b+2), t.reg(b+3), t.reg(b+4), t.reg(b+5)
	g.expParts(t, 200, X, A, T, Z, O, E)
	g.comment("e = e^-a = (E-O)*2^-k (E in Z)")
	g.ins("VSUBPD %s, %s, %s", O, Z, A)
	g.powerOfTwo(t, T, 1023, -1, Z)
	g.ins("VMULPD %s, %s, %s", Z, A, A)
	g.comment("e > sqrt2-1: f = (e-1)/2, base ln2; else f = e, base 0")
	g.withConst(t, "VSUBPD", g.d("one64", 1), A+", "+O)
	g.withConst(t, "VMULPD", g.d("half64", 0.5), O+", "+O)
	g.ins("VXORPD %s, %s, %s", E, E, E)
	g.loadPD(t, g.d("ln2d", math.Ln2), T)
	g.cmpMask(t, 30, g.d("sqrt2m1", math.Sqrt2-1), A, Z)
	g.blendMask(t, Z, O, A)
	g.blendMask(t, Z, T, E)
	g.comment("s = f/(2+f); log1p(f) = 2s + s*z*P(z), z = s^2")
	g.withConst(t, "VADDPD", g.d("two64", 2), A+", "+T)
	g.ins("VDIVPD %s, %s, %s", T, A, O)
	g.ins("VMULPD %s, %s, %s", O, O, Z)
	g.hornerPDOn(t, "softplusc", softplusCoeffs(), Z, T)
	g.ins("VMULPD %s, %s, %s", Z, O, A)
	g.ins("VADDPD %s, %s, %s", O, O, O)
	g.ins("VFMADD213PD %s, %s, %s", O, A, T)
	g.ins("VADDPD %s, %s, %s", T, E, E)
	g.comment("max(x, 0) + that (NaN: E is NaN)")
	g.ins("VXORPD %s, %s, %s", Z, Z, Z)
	g.ins("VMAXPD %s, %s, %s", Z, X, X)
	g.ins("VADDPD %s, %s, %s", E, X, X)
}

// ---- the Adam update, AVX-512 ----

// adam512 emits adamF32AVX512, one pass of Adam over n float32 elements
// (see Adam in adam.go for the arithmetic, which this follows operation by
// operation, each rounded to float32, with no fused multiply-adds, so that
// it equals the generic loop and the unfused operations bit for bit). The
// seven coefficients are broadcast from c[0..6] into Z20-Z26; two vectors
// are in flight per iteration (registers Z0-Z7 and Z8-Z15), and the last
// n%16 elements run masked with K1.
func (g *gen) adam512() {
	e := f32
	ptr := func(name string) arg { return arg{name, "*float32", 8} }
	args := []arg{ptr("w"), ptr("grad"), ptr("m"), ptr("v"), ptr("nw"), ptr("nm"), ptr("nv"), {"c", "*[7]float32", 8}, {"n", "int", 8}}
	off := g.text("adamF32AVX512", args, nil, "is Adam's update for float32 with AVX-512 (see adam512 in asmgen.go).")
	regs := map[string]string{"w": "SI", "grad": "DX", "m": "BX", "v": "R8", "nw": "DI", "nm": "R9", "nv": "R10"}
	order := []string{"w", "grad", "m", "v", "nw", "nm", "nv"}
	for _, name := range order {
		g.load(off, name, regs[name])
	}
	g.load(off, "c", "AX")
	g.load(off, "n", "CX")
	for i := 0; i < 7; i++ {
		g.ins("VBROADCASTSS %d(AX), %s", 4*i, z(20+i))
	}
	const b1, c1, b2, c2, sbc2, eps, step = "Z20", "Z21", "Z22", "Z23", "Z24", "Z25", "Z26"
	// one computes a vector with registers base..base+7; load and store
	// are the move instructions ("VMOVUPS" or the masked forms) and at the
	// memory offset of this vector.
	one := func(base int, load, store func(src, reg string), at int) {
		r := func(i int) string { return z(base + i) }
		mem := func(name string) string { return fmt.Sprintf("%d(%s)", at, regs[name]) }
		load(mem("grad"), r(0))
		load(mem("m"), r(1))
		load(mem("v"), r(2))
		load(mem("w"), r(3))
		g.ins("VMULPS %s, %s, %s", b1, r(1), r(1)) // m*b1
		g.ins("VMULPS %s, %s, %s", c1, r(0), r(4)) // g*(1-b1)
		g.ins("VADDPS %s, %s, %s", r(4), r(1), r(1))
		store(r(1), mem("nm"))
		g.ins("VMULPS %s, %s, %s", b2, r(2), r(2))   // v*b2
		g.ins("VMULPS %s, %s, %s", r(0), r(0), r(5)) // g*g
		g.ins("VMULPS %s, %s, %s", c2, r(5), r(5))   // g*g*(1-b2)
		g.ins("VADDPS %s, %s, %s", r(5), r(2), r(2))
		store(r(2), mem("nv"))
		g.ins("VSQRTPS %s, %s", r(2), r(6))
		g.ins("VDIVPS %s, %s, %s", sbc2, r(6), r(6)) // sqrt(v)/sqrt(1-b2^t)
		g.ins("VADDPS %s, %s, %s", eps, r(6), r(6))
		g.ins("VDIVPS %s, %s, %s", r(6), r(1), r(7)) // m/denominator
		g.ins("VMULPS %s, %s, %s", step, r(7), r(7))
		g.ins("VSUBPS %s, %s, %s", r(7), r(3), r(3))
		store(r(3), mem("nw"))
	}
	plainLoad := func(src, reg string) { g.ins("VMOVUPS %s, %s", src, reg) }
	plainStore := func(reg, dst string) { g.ins("VMOVUPS %s, %s", reg, dst) }
	advance := func(bytes, elems int) {
		for _, name := range order {
			g.ins("ADDQ $%d, %s", bytes, regs[name])
		}
		g.ins("SUBQ $%d, CX", elems)
	}
	L := 2 * e.lanes
	g.label("loop")
	g.ins("CMPQ CX, $%d", 2*L)
	g.ins("JB   one")
	one(0, plainLoad, plainStore, 0)
	one(8, plainLoad, plainStore, 64)
	advance(128, 2*L)
	g.ins("JMP  loop")
	g.label("one")
	g.ins("CMPQ CX, $%d", L)
	g.ins("JB   tail")
	one(0, plainLoad, plainStore, 0)
	advance(64, L)
	g.label("tail")
	g.ins("TESTQ CX, CX")
	g.ins("JEQ  done")
	g.kmask("CX")
	one(0, func(src, reg string) { g.ins("VMOVUPS.Z %s, K1, %s", src, reg) },
		func(reg, dst string) { g.ins("VMOVUPS %s, K1, %s", reg, dst) }, 0)
	g.label("done")
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// ---- compensated accumulation, AVX-512 ----

// twoSum512 emits twoSumF32AVX512 or twoSumF64AVX512: for each k < n,
// s[k] += x[k] in float64 with the rounding error of that addition added
// to c[k] (Knuth's TwoSum, branch-free), eight lanes at a time, the same
// operations in the same order as the scalar loop of TwoSumAdd, so the
// sums and compensations are equal bit for bit. A column sum calls it once
// per source row with the running sums of a chunk of columns.
func (g *gen) twoSum512(e elem) {
	name := "twoSum" + e.name + "AVX512"
	args := []arg{{"s", "*float64", 8}, {"c", "*float64", 8}, {"x", "*" + e.goT, 8}, {"n", "int", 8}}
	off := g.text(name, args, nil, "is TwoSumAdd with AVX-512 (see twoSum512 in asmgen.go).")
	g.load(off, "s", "DI")
	g.load(off, "c", "DX")
	g.load(off, "x", "SI")
	g.load(off, "n", "CX")
	body := func(masked bool) {
		k, kz := "", ""
		if masked {
			k, kz = "K1, ", ".Z"
		}
		g.ins("VMOVUPD%s (DI), %sZ0", kz, k) // a
		if e.size == 4 {
			g.ins("VCVTPS2PD%s (SI), %sZ1", kz, k) // b, widened
		} else {
			g.ins("VMOVUPD%s (SI), %sZ1", kz, k)
		}
		g.ins("VMOVUPD%s (DX), %sZ6", kz, k) // the compensation so far
		g.ins("VADDPD Z1, Z0, Z2")           // t = a + b
		g.ins("VSUBPD Z0, Z2, Z3")           // z = t - a
		g.ins("VSUBPD Z3, Z2, Z4")           // t - z
		g.ins("VSUBPD Z4, Z0, Z4")           // a - (t - z)
		g.ins("VSUBPD Z3, Z1, Z5")           // b - z
		g.ins("VADDPD Z5, Z4, Z4")           // the error of a + b
		g.ins("VADDPD Z4, Z6, Z6")           // c += error
		g.ins("VMOVUPD Z6, %s(DX)", k)
		g.ins("VMOVUPD Z2, %s(DI)", k)
	}
	g.label("loop")
	g.ins("CMPQ CX, $8")
	g.ins("JB   tail")
	body(false)
	g.ins("ADDQ $64, DI")
	g.ins("ADDQ $64, DX")
	g.ins("ADDQ $%d, SI", 8*e.size)
	g.ins("SUBQ $8, CX")
	g.ins("JMP  loop")
	g.label("tail")
	g.ins("TESTQ CX, CX")
	g.ins("JEQ  done")
	g.kmask("CX")
	body(true)
	g.label("done")
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// twoSumRows512 emits twoSumRowsF32AVX512 or twoSumRowsF64AVX512:
// TwoSumAdd of rows rows of x in turn (row r at x + r*ldx elements) into
// the n sums s and compensations c, with twoSum512's operations in its
// order, so the bits are those of one twoSum512 call per row. Where a call
// per row loads and stores s and c for every row, this keeps them in
// registers down all the rows of a block of 32 columns (four blocks of
// eight lanes: eight accumulators and five temporaries per block, 28 of
// the 32 zmm registers), then of eight, then of the last few under a mask.
func (g *gen) twoSumRows512(e elem) {
	name := "twoSumRows" + e.name + "AVX512"
	args := []arg{{"s", "*float64", 8}, {"c", "*float64", 8}, {"x", "*" + e.goT, 8}, {"ldx", "int", 8}, {"rows", "int", 8}, {"n", "int", 8}}
	off := g.text(name, args, nil, "is TwoSumAddRows with AVX-512 (see twoSumRows512 in asmgen.go).")
	g.load(off, "s", "DI")
	g.load(off, "c", "DX")
	g.load(off, "x", "SI")
	g.load(off, "ldx", "BX")
	g.load(off, "rows", "R10")
	g.load(off, "n", "CX")
	g.ins("SHLQ $%d, BX", map[int]int{4: 2, 8: 3}[e.size]) // ldx in bytes
	// block emits the loop over the rows for blocks of eight columns:
	// s in Z0.., c in Z4.., block b's temporaries from Z(8+5b).
	block := func(label string, blocks int, masked bool) {
		k, kz := "", ""
		if masked {
			k, kz = "K1, ", ".Z"
		}
		for b := range blocks {
			g.ins("VMOVUPD%s %d(DI), %sZ%d", kz, 64*b, k, b)
			g.ins("VMOVUPD%s %d(DX), %sZ%d", kz, 64*b, k, 4+b)
		}
		g.ins("MOVQ SI, R8")
		g.ins("MOVQ R10, R9")
		g.label(label + "rows")
		g.ins("TESTQ R9, R9")
		g.ins("JEQ  %sstore", label)
		for b := range blocks {
			sr, cr := fmt.Sprintf("Z%d", b), fmt.Sprintf("Z%d", 4+b)
			r := func(i int) string { return fmt.Sprintf("Z%d", 8+5*b+i) }
			xv, t, z, w, v := r(0), r(1), r(2), r(3), r(4)
			if e.size == 4 {
				g.ins("VCVTPS2PD%s %d(R8), %s%s", kz, 32*b, k, xv) // b, widened
			} else {
				g.ins("VMOVUPD%s %d(R8), %s%s", kz, 64*b, k, xv)
			}
			g.ins("VADDPD %s, %s, %s", xv, sr, t) // t = a + b
			g.ins("VSUBPD %s, %s, %s", sr, t, z)  // z = t - a
			g.ins("VSUBPD %s, %s, %s", z, t, w)   // t - z
			g.ins("VSUBPD %s, %s, %s", w, sr, w)  // a - (t - z)
			g.ins("VSUBPD %s, %s, %s", z, xv, v)  // b - z
			g.ins("VADDPD %s, %s, %s", v, w, w)   // the error of a + b
			g.ins("VADDPD %s, %s, %s", w, cr, cr) // c += error
			g.ins("VMOVAPD %s, %s", t, sr)        // s = t
		}
		g.ins("ADDQ BX, R8")
		g.ins("DECQ R9")
		g.ins("JMP  %srows", label)
		g.label(label + "store")
		for b := range blocks {
			g.ins("VMOVUPD Z%d, %s%d(DI)", b, k, 64*b)
			g.ins("VMOVUPD Z%d, %s%d(DX)", 4+b, k, 64*b)
		}
	}
	for _, w := range []int{32, 8} {
		l := fmt.Sprintf("w%d", w)
		g.label(l)
		g.ins("CMPQ CX, $%d", w)
		g.ins("JB   %s", map[int]string{32: "w8", 8: "tail"}[w])
		block(l, w/8, false)
		g.ins("ADDQ $%d, DI", 8*w)
		g.ins("ADDQ $%d, DX", 8*w)
		g.ins("ADDQ $%d, SI", w*e.size)
		g.ins("SUBQ $%d, CX", w)
		g.ins("JMP  %s", l)
	}
	g.label("tail")
	g.ins("TESTQ CX, CX")
	g.ins("JEQ  done")
	g.kmask("CX")
	block("tail", 1, true)
	g.label("done")
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// maxPool2 emits maxPool2F32AVX512 (grad false) or
// maxPool2GradF32AVX512: MaxPool2 and MaxPool2Grad for float32 on
// AVX-512. Each row of tiles (rows ldr elements apart) holds kh lines (ldl
// apart) of ow adjacent pairs; sixteen tiles at a time, a line's 32
// elements are loaded and split into the pairs' first and second
// elements (VPERMI2PS with the tables of even and odd indices), so that
// lane o holds tile o's elements in the row-major order MaxPool2 folds
// them in. The forward kernel folds them as PyTorch's scan does (acc
// takes v where v > acc or v is NaN: VCMPPS, KORW, VBLENDMPS). The gradient
// kernel counts each tile's NaNs (masked adds of 1), then on a second
// pass over the lines routes g to the first element equal to y (a mask
// of the tiles already served) or the NaN that brings the running count
// to the tile's (the last), +0 elsewhere, interleaving the two halves
// back (VPERMI2PS) into dx's lines. The ow%16 tiles at a row's end
// go under the masks kOut (tiles), kLo and kHi (the two halves of their
// elements), which the caller computes; ow/16 whole groups (full) go
// without. Operands in order: dst (or dx), x, [y, gy (g),] then the
// counts and strides in elements; y, g and dst are contiguous rows of ow,
// dx rows of kh lines of 2*ow.
func (g *gen) maxPool2(grad bool) {
	name := "maxPool2F32AVX512"
	args := []arg{{"dst", "*float32", 8}, {"x", "*float32", 8}}
	doc := "is MaxPool2 for float32 with AVX-512 (see maxPool2 in asmgen.go)."
	if grad {
		name = "maxPool2GradF32AVX512"
		args = []arg{{"dx", "*float32", 8}, {"x", "*float32", 8}, {"y", "*float32", 8}, {"gy", "*float32", 8}}
		doc = "is MaxPool2Grad for float32 with AVX-512 (see maxPool2 in asmgen.go)."
	}
	for _, a := range []string{"rows", "full", "ow", "kh", "ldr", "ldl", "kOut", "kLo", "kHi"} {
		args = append(args, arg{a, "int", 8})
	}
	off := g.text(name, args, nil, doc)
	mem := func(a string) string { return fmt.Sprintf("%s+%d(FP)", a, off[a]) }
	idx := func(tab string, f func(i int) int) string {
		var words []uint64
		for i := 0; i < 16; i += 2 {
			words = append(words, uint64(f(i))|uint64(f(i+1))<<32)
		}
		return g.table(tab, words) + "(SB)"
	}
	g.ins("VMOVDQU32 %s, Z30", idx("pool2even", func(i int) int { return 2 * i }))
	g.ins("VMOVDQU32 %s, Z31", idx("pool2odd", func(i int) int { return 2*i + 1 }))
	if grad {
		g.ins("VMOVDQU32 %s, Z28", idx("pool2lo", func(i int) int { return i/2 + 16*(i%2) }))
		g.ins("VMOVDQU32 %s, Z29", idx("pool2hi", func(i int) int { return 8 + i/2 + 16*(i%2) }))
		g.ins("VBROADCASTSS %s, Z27", g.f("fone", 1))
		g.load(off, "y", "AX")
		g.load(off, "gy", "BX") // g, y's gradient
		g.load(off, "dx", "DI")
	} else {
		g.load(off, "dst", "DI")
	}
	g.load(off, "x", "R11") // the row of tiles
	g.load(off, "rows", "R8")
	g.load(off, "ldl", "R9")
	g.ins("SHLQ $2, R9")
	g.ins("MOVQ %s, CX", mem("kOut"))
	g.ins("KMOVW CX, K1")
	g.ins("MOVQ %s, CX", mem("kLo"))
	g.ins("KMOVW CX, K2")
	g.ins("MOVQ %s, CX", mem("kHi"))
	g.ins("KMOVW CX, K3")
	if grad {
		g.ins("MOVQ %s, R12", mem("ow")) // a line of dx, in bytes
		g.ins("SHLQ $3, R12")
	}
	// split loads the line at R14 (32 elements, or the masked tail's) and
	// leaves the pairs' first elements in Z2 and second in Z3.
	split := func(masked bool) {
		if masked {
			g.ins("VMOVUPS.Z (R14), K2, Z0")
			g.ins("VMOVUPS.Z 64(R14), K3, Z1")
		} else {
			g.ins("VMOVUPS (R14), Z0")
			g.ins("VMOVUPS 64(R14), Z1")
		}
		g.ins("VMOVAPS Z30, Z2")
		g.ins("VPERMI2PS Z1, Z0, Z2")
		g.ins("VMOVAPS Z31, Z3")
		g.ins("VPERMI2PS Z1, Z0, Z3")
	}
	// fold sets acc (Z4) to Maximum(v, acc): v where v > acc or v is NaN.
	fold := func(v string) {
		g.ins("VCMPPS $0x1e, Z4, %s, K5", v) // v > acc
		g.ins("VCMPPS $3, %s, %s, K6", v, v) // v is NaN
		g.ins("KORW K6, K5, K5")
		g.ins("VBLENDMPS %s, Z4, K5, Z4", v)
	}
	// lines runs body over the kh lines of the group at SI, R14 each line.
	lines := func(l string, body func()) {
		g.ins("MOVQ SI, R14")
		g.ins("MOVQ %s, R10", mem("kh"))
		g.label(l)
		body()
		g.ins("ADDQ R9, R14")
		g.ins("DECQ R10")
		g.ins("JNE  %s", l)
	}
	// group handles sixteen tiles (or the masked tail's) at SI, with its
	// outputs at DI (dx: DI's lines, R12 apart) and, for grad, y and g at
	// AX and BX.
	group := func(l string, masked bool) {
		kz, k := "", ""
		if masked {
			kz, k = ".Z", "K1, "
		}
		if !grad {
			g.ins("MOVQ SI, R14")
			split(masked)
			g.ins("VMOVAPS Z2, Z4")
			fold("Z3")
			g.ins("MOVQ %s, R10", mem("kh"))
			g.ins("DECQ R10")
			g.label(l + "lines")
			g.ins("TESTQ R10, R10")
			g.ins("JEQ  %sstore", l)
			g.ins("ADDQ R9, R14")
			split(masked)
			fold("Z2")
			fold("Z3")
			g.ins("DECQ R10")
			g.ins("JMP  %slines", l)
			g.label(l + "store")
			g.ins("VMOVUPS Z4, %s(DI)", k)
			return
		}
		g.ins("VMOVUPS%s (AX), %sZ10", kz, k)
		g.ins("VMOVUPS%s (BX), %sZ11", kz, k)
		// Z12: the tile's NaNs (a first pass over the lines).
		g.ins("VXORPS Z12, Z12, Z12")
		lines(l+"count", func() {
			split(masked)
			g.ins("VCMPPS $3, Z2, Z2, K5") // unordered: NaN
			g.ins("VADDPS Z27, Z12, K5, Z12")
			g.ins("VCMPPS $3, Z3, Z3, K6")
			g.ins("VADDPS Z27, Z12, K6, Z12")
		})
		// K4: the tiles whose first element equal to y has gone by; Z13:
		// the NaNs gone by, so that the one that makes them Z12 is the
		// last.
		g.ins("KXORW K4, K4, K4")
		g.ins("VXORPS Z13, Z13, Z13")
		g.ins("MOVQ DI, DX")
		// route sets out to g where v is the element the gradient goes
		// to, +0 elsewhere.
		route := func(v, out string) {
			g.ins("VCMPPS $0, Z10, %s, K5", v) // v == y (never for NaN)
			g.ins("KANDNW K5, K4, K6")         // ... and the first
			g.ins("KORW K5, K4, K4")
			g.ins("VCMPPS $3, %s, %s, K5", v, v) // v is NaN
			g.ins("VADDPS Z27, Z13, K5, Z13")
			g.ins("VCMPPS $0, Z12, Z13, K7") // ... and the last
			g.ins("KANDW K5, K7, K7")
			g.ins("KORW K6, K7, K7")
			g.ins("VMOVAPS.Z Z11, K7, %s", out)
		}
		lines(l+"out", func() {
			split(masked)
			route("Z2", "Z4")
			route("Z3", "Z5")
			g.ins("VMOVAPS Z28, Z6")
			g.ins("VPERMI2PS Z5, Z4, Z6")
			g.ins("VMOVAPS Z29, Z7")
			g.ins("VPERMI2PS Z5, Z4, Z7")
			if masked {
				g.ins("VMOVUPS Z6, K2, (DX)")
				g.ins("VMOVUPS Z7, K3, 64(DX)")
			} else {
				g.ins("VMOVUPS Z6, (DX)")
				g.ins("VMOVUPS Z7, 64(DX)")
			}
			g.ins("ADDQ R12, DX")
		})
	}
	// advance moves the outputs (and y and g) past CX tiles; x's group
	// pointer moves with the groups only, the tail being a row's last.
	advance := func() {
		if grad {
			g.ins("LEAQ (AX)(CX*4), AX")
			g.ins("LEAQ (BX)(CX*4), BX")
			g.ins("LEAQ (DI)(CX*8), DI")
		} else {
			g.ins("LEAQ (DI)(CX*4), DI")
		}
	}
	g.label("row")
	g.ins("TESTQ R8, R8")
	g.ins("JEQ  done")
	g.ins("MOVQ R11, SI")
	g.ins("MOVQ %s, R13", mem("full"))
	g.label("groups")
	g.ins("TESTQ R13, R13")
	g.ins("JEQ  tail")
	group("g", false)
	g.ins("ADDQ $128, SI")
	g.ins("MOVQ $16, CX")
	advance()
	g.ins("DECQ R13")
	g.ins("JMP  groups")
	g.label("tail")
	g.ins("KORTESTW K1, K1")
	g.ins("JEQ  next")
	group("t", true)
	g.ins("MOVQ %s, CX", mem("ow")) // the tail's tiles: ow%16
	g.ins("ANDQ $15, CX")
	advance()
	g.label("next")
	if grad {
		// DI is a line past the row's start; the next row starts kh
		// lines after it.
		g.ins("MOVQ %s, CX", mem("kh"))
		g.ins("DECQ CX")
		g.ins("IMULQ R12, CX")
		g.ins("ADDQ CX, DI")
	}
	g.ins("MOVQ %s, CX", mem("ldr"))
	g.ins("LEAQ (R11)(CX*4), R11")
	g.ins("DECQ R8")
	g.ins("JMP  row")
	g.label("done")
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// halves emits one tier's half-precision conversions, each over n
// elements, n a multiple of the tier's lanes (the Go wrappers finish the
// rest): widening bfloat16 and binary16 to float32, narrowing float32 to
// them, and rounding float32 to them in place (dst = widen(narrow(x)));
// and, in the same loop, float32 to float64 and back.
// Every kernel gives the bits of the dtype package's scalar conversions,
// NaN included:
//
//   - bfloat16 narrows with integer arithmetic, ties to even as
//     dtype.BF16FromFloat32 rounds (x + 0x7fff + lsb, then the high half),
//     and a NaN keeps its high half with the quiet bit set;
//   - binary16 narrows with VCVTPS2PH, rounding from its immediate (ties to
//     even, MXCSR unused), which quiets a NaN as dtype.F16FromFloat32 does;
//   - binary16 widens with VCVTPH2PS, which sets the quiet bit of a
//     signalling NaN; dtype.Float16.Float32 keeps the payload as it is, so
//     the kernel puts the half's own bit 9 back in bit 22 of NaN lanes.
func (g *gen) halves(t tier) {
	r := t.reg
	half := x // the register holding a vector's halves
	L, unroll := 8, 2
	if t.z {
		half = y
		L, unroll = 16, 4
	}
	args := func(dstT, srcT string) []arg {
		return []arg{{"dst", "*" + dstT, 8}, {"src", "*" + srcT, 8}, {"n", "int", 8}}
	}
	// Constants: broadcast into the top six registers (the slots use the
	// first twelve).
	top := 10
	if t.z {
		top = 26
	}
	one, round, abs, inf, quiet, high := r(top), r(top+1), r(top+2), r(top+3), r(top+4), r(top+5)
	consts := func(names ...string) {
		// two31 (2^31 as a float32) shares round's register, and bytes1
		// (a 1 in every byte) one's: no kernel takes both.
		vals := map[string]uint32{"one": 1, "round": 0x7fff, "abs": 0x7fffffff, "inf": 0x7f800000, "quiet": 0x00400000, "high": 0xffff0000, "two31": 0x4f000000, "bytes1": 0x01010101}
		regs := map[string]string{"one": one, "round": round, "abs": abs, "inf": inf, "quiet": quiet, "high": high, "two31": round, "bytes1": one}
		for _, n := range names {
			g.ins("VPBROADCASTD %s, %s", g.v32("half_"+n, vals[n]), regs[n])
		}
	}
	andD, xorD := "VPAND", "VPXOR"
	if t.z {
		andD, xorD = "VPANDD", "VPXORD"
	}
	// bf16Round leaves in c the bfloat16 rounding of a's float32 bits, in
	// the high half of each lane, clobbering a and b.
	bf16Round := func(a, b, c string) {
		g.ins("VPSRLD $16, %s, %s", a, c)
		g.ins("%s %s, %s, %s", andD, one, c, c)
		g.ins("VPADDD %s, %s, %s", a, c, c)
		g.ins("VPADDD %s, %s, %s", round, c, c) // x + 0x7fff + lsb
		g.ins("%s %s, %s, %s", andD, abs, a, b)
		if t.z {
			g.ins("VPCMPGTD %s, %s, K2", inf, b) // NaN lanes: |x| > Inf's bits
			g.ins("VPORD %s, %s, K2, %s", quiet, a, c)
			return
		}
		g.ins("VPCMPGTD %s, %s, %s", inf, b, b)
		g.ins("VPOR %s, %s, %s", quiet, a, a)
		g.ins("VPBLENDVB %s, %s, %s, %s", b, a, c, c)
	}
	// bf16Store stores the bfloat16 roundings bf16Round left in register c
	// (number ci) at dst; AVX2 packs them through the xmm registers of c
	// and spare.
	bf16Store := func(c string, ci, spare int, dst string) {
		g.ins("VPSRLD $16, %s, %s", c, c)
		if t.z {
			g.ins("VPMOVDW %s, %s", c, dst)
			return
		}
		g.ins("VEXTRACTI128 $1, %s, %s", c, x(spare))
		g.ins("VPACKUSDW %s, %s, %s", x(spare), x(ci), x(ci))
		g.ins("VMOVDQU %s, %s", x(ci), dst)
	}
	type conv struct {
		name, doc  string
		dstT, srcT string
		in, out    int // bytes read and written per vector
		consts     []string
		body       func(u int, src, dst string)
	}
	convs := []conv{
		{"widenBF16", "widens bfloat16 to float32 (shifted into the high half).", "float32", "uint16", 2 * L, 4 * L, nil,
			func(u int, src, dst string) {
				a := r(u)
				g.ins("VPMOVZXWD %s, %s", src, a)
				g.ins("VPSLLD $16, %s, %s", a, a)
				g.ins("VMOVUPS %s, %s", a, dst)
			}},
		{"widenF16", "widens binary16 to float32 (VCVTPH2PS, NaN payloads kept).", "float32", "uint16", 2 * L, 4 * L, []string{"quiet"},
			func(u int, src, dst string) {
				a, b, c := r(3*u), r(3*u+1), r(3*u+2)
				g.ins("VCVTPH2PS %s, %s", src, a)
				g.ins("VPMOVZXWD %s, %s", src, b)
				g.ins("VPSLLD $13, %s, %s", b, b) // the half's bit 9 at bit 22
				g.ins("%s %s, %s, %s", xorD, a, b, b)
				g.ins("%s %s, %s, %s", andD, quiet, b, b) // where bit 22 differs
				if t.z {
					g.ins("VCMPPS $3, %s, %s, K2", a, a) // NaN lanes
					g.ins("VPXORD %s, %s, K2, %s", b, a, a)
				} else {
					g.ins("VCMPPS $3, %s, %s, %s", a, a, c)
					g.ins("VPAND %s, %s, %s", c, b, b)
					g.ins("VPXOR %s, %s, %s", b, a, a)
				}
				g.ins("VMOVUPS %s, %s", a, dst)
			}},
		{"narrowBF16", "rounds float32 to bfloat16, ties to even.", "uint16", "float32", 4 * L, 2 * L, []string{"one", "round", "abs", "inf", "quiet"},
			func(u int, src, dst string) {
				a, b, c := r(3*u), r(3*u+1), r(3*u+2)
				g.ins("VMOVUPS %s, %s", src, a)
				bf16Round(a, b, c)
				bf16Store(c, 3*u+2, 3*u+1, dst)
			}},
		{"narrowF16", "rounds float32 to binary16, ties to even (VCVTPS2PH).", "uint16", "float32", 4 * L, 2 * L, nil,
			func(u int, src, dst string) {
				a := r(u)
				g.ins("VMOVUPS %s, %s", src, a)
				g.ins("VCVTPS2PH $0, %s, %s", a, dst)
			}},
		{"roundBF16", "rounds float32 to bfloat16 values, ties to even.", "float32", "float32", 4 * L, 4 * L, []string{"one", "round", "abs", "inf", "quiet", "high"},
			func(u int, src, dst string) {
				a, b, c := r(3*u), r(3*u+1), r(3*u+2)
				g.ins("VMOVUPS %s, %s", src, a)
				bf16Round(a, b, c)
				g.ins("%s %s, %s, %s", andD, high, c, c)
				g.ins("VMOVUPS %s, %s", c, dst)
			}},
		{"roundF16", "rounds float32 to binary16 values, ties to even.", "float32", "float32", 4 * L, 4 * L, nil,
			func(u int, src, dst string) {
				a := r(u)
				g.ins("VMOVUPS %s, %s", src, a)
				g.ins("VCVTPS2PH $0, %s, %s", a, half(u))
				g.ins("VCVTPH2PS %s, %s", half(u), a)
				g.ins("VMOVUPS %s, %s", a, dst)
			}},
		// float32 <-> float64, as Go's conversions (CVTSS2SD and CVTSD2SS:
		// exact, or rounded to nearest even; a NaN quieted, its payload
		// kept or truncated): L elements a slot, in two vectors of
		// float64.
		{"widenF32", "converts float32 to float64 (VCVTPS2PD).", "float64", "float32", 4 * L, 8 * L, nil,
			func(u int, src, dst string) {
				a, b := r(3*u), r(3*u+1)
				g.ins("VMOVUPS %s, %s", src, half(3*u))
				g.ins("VMOVUPS %s, %s", shiftAddr(src, 2*L), half(3*u+1))
				g.ins("VCVTPS2PD %s, %s", half(3*u), a)
				g.ins("VCVTPS2PD %s, %s", half(3*u+1), b)
				g.ins("VMOVUPD %s, %s", a, dst)
				g.ins("VMOVUPD %s, %s", b, shiftAddr(dst, 4*L))
			}},
		// float32 -> int32, truncated and saturating: VCVTTPS2DQ gives
		// 0x80000000 (MinInt32) for NaN and for values out of range, which
		// is right below -2^31; lanes at or above 2^31 take MaxInt32 and
		// NaN lanes 0.
		{"truncF32I32", "converts float32 to int32, truncated toward zero and saturated, NaN to 0 (VCVTTPS2DQ).", "int32", "float32", 4 * L, 4 * L, []string{"two31", "abs"},
			func(u int, src, dst string) {
				a, b, c := r(3*u), r(3*u+1), r(3*u+2)
				g.ins("VMOVUPS %s, %s", src, a)
				g.ins("VCVTTPS2DQ %s, %s", a, b)
				if t.z {
					g.ins("VCMPPS $0x1d, %s, %s, K1", round, a) // a >= 2^31
					g.ins("VMOVDQA32 %s, K1, %s", abs, b)
					g.ins("VCMPPS $0x07, %s, %s, K2", a, a) // ordered: not NaN
					g.ins("VMOVDQA32.Z %s, K2, %s", b, b)
					g.ins("VMOVDQU32 %s, %s", b, dst)
					return
				}
				g.ins("VCMPPS $0x1d, %s, %s, %s", round, a, c) // all ones where a >= 2^31
				g.ins("VPXOR %s, %s, %s", c, b, b)             // 0x80000000 there becomes 0x7fffffff
				g.ins("VCMPPS $0x07, %s, %s, %s", a, a, a)     // all ones unless NaN
				g.ins("VPAND %s, %s, %s", a, b, b)
				g.ins("VMOVDQU %s, %s", b, dst)
			}},
		// int32 -> int32, wrapping as Go's arithmetic does: Abs of
		// MinInt32 is MinInt32 (VPABSD leaves it), and so is its Neg.
		{"absI32", "computes dst[i] = |src[i]| for int32, MinInt32 staying MinInt32 (VPABSD).", "int32", "int32", 4 * L, 4 * L, nil,
			func(u int, src, dst string) {
				a := r(3 * u)
				g.ins("VPABSD %s, %s", src, a)
				g.ins("VMOVDQU%s %s, %s", map[bool]string{true: "32"}[t.z], a, dst)
			}},
		{"negI32", "computes dst[i] = -src[i] for int32, wrapping (VPSUBD from zero).", "int32", "int32", 4 * L, 4 * L, nil,
			func(u int, src, dst string) {
				a, b := r(3*u), r(3*u+1)
				g.ins("%s %s, %s, %s", xorD, b, b, b)
				g.ins("VPSUBD %s, %s, %s", src, b, a)
				g.ins("VMOVDQU%s %s, %s", map[bool]string{true: "32"}[t.z], a, dst)
			}},
		// bytes -> float32, exact: L bytes a slot, zero-extended to
		// int32 lanes and converted (every byte is exact in float32).
		{"widenU8F32", "converts bytes (U8 and Bool elements) to float32, exactly (VPMOVZXBD, VCVTDQ2PS).", "float32", "uint8", L, 4 * L, nil,
			func(u int, src, dst string) {
				a := r(3 * u)
				g.ins("VPMOVZXBD %s, %s", src, a)
				g.ins("VCVTDQ2PS %s, %s", a, a)
				g.ins("VMOVUPS %s, %s", a, dst)
			}},
		{"narrowF64", "rounds float64 to float32, ties to even (VCVTPD2PS).", "float32", "float64", 8 * L, 4 * L, nil,
			func(u int, src, dst string) {
				a, b := r(3*u), r(3*u+1)
				cvt := "VCVTPD2PSY" // the register form: Y to X
				if t.z {
					cvt = "VCVTPD2PS"
				}
				g.ins("VMOVUPD %s, %s", src, a)
				g.ins("VMOVUPD %s, %s", shiftAddr(src, 4*L), b)
				g.ins("%s %s, %s", cvt, a, half(3*u))
				g.ins("%s %s, %s", cvt, b, half(3*u+1))
				g.ins("VMOVUPS %s, %s", half(3*u), dst)
				g.ins("VMOVUPS %s, %s", half(3*u+1), shiftAddr(dst, 2*L))
			}},
	}
	if !t.z {
		// Bytes -> bytes, Bool's Not: 4L bytes (one ymm) a slot, n
		// counting groups of four. AVX2 only: comparing bytes in zmm
		// lanes needs AVX512BW, which the AVX-512 tier does not require,
		// so that tier runs this kernel too.
		convs = append(convs, conv{"notU8", "sets dst[i] to 1 where src[i] is 0 and to 0 elsewhere, for 4n bytes (VPCMPEQB).", "uint8", "uint8", 4 * L, 4 * L, []string{"bytes1"},
			func(u int, src, dst string) {
				a, b := r(3*u), r(3*u+1)
				g.ins("VPXOR %s, %s, %s", b, b, b)
				g.ins("VPCMPEQB %s, %s, %s", src, b, a) // all ones where the byte is 0
				g.ins("VPAND %s, %s, %s", one, a, a)
				g.ins("VMOVDQU %s, %s", a, dst)
			}})
	}
	for _, c := range convs {
		off := g.text(c.name+t.suffix, args(c.dstT, c.srcT), nil, c.doc+" n is a multiple of the vector's lanes.")
		g.load(off, "dst", "DI")
		g.load(off, "src", "SI")
		g.load(off, "n", "CX")
		consts(c.consts...)
		g.halfLoop(L, unroll, c.out, []int{c.in}, []string{"SI"}, func(u int, src []string, dst string) { c.body(u, src[0], dst) })
	}

	// The one-pass binary kernels: dst = narrow(widen(a) op widen(b)),
	// the bits of Widen, the float32 operation and Narrow in turn. A
	// binary16 operand widens with VCVTPH2PS alone: where it quiets a
	// signalling NaN that Widen would keep, the operation (or, for
	// max/min, which may pass a NaN through, the narrowing) quiets it the
	// same way, keeping the payload, so the half result is the same.
	// Each unrolled slot u takes registers 5u to 5u+4.
	binArgs := []arg{{"dst", "*uint16", 8}, {"a", "*uint16", 8}, {"b", "*uint16", 8}, {"n", "int", 8}}
	for _, op := range binOps {
		for _, bf := range []bool{true, false} {
			name, ty := op+"F16"+t.suffix, "binary16"
			if bf {
				name, ty = op+"BF16"+t.suffix, "bfloat16"
			}
			doc := fmt.Sprintf("computes dst[i] = %s(a[i], b[i]) on %s values in float32, rounded once to %s, for i < n, a multiple of the vector's lanes.", opNames[op], ty, ty)
			off := g.text(name, binArgs, nil, doc)
			g.load(off, "dst", "DI")
			g.load(off, "a", "SI")
			g.load(off, "b", "DX")
			g.load(off, "n", "CX")
			if bf {
				consts("one", "round", "abs", "inf", "quiet")
			}
			g.halfLoop(L, unroll, 2*L, []int{2 * L, 2 * L}, []string{"SI", "DX"}, func(u int, src []string, dst string) {
				a, b, tmp, m, c := r(5*u), r(5*u+1), r(5*u+2), r(5*u+3), r(5*u+4)
				if !bf {
					g.ins("VCVTPH2PS %s, %s", src[0], a)
					g.ins("VCVTPH2PS %s, %s", src[1], b)
					g.binop(f32, op, a, b, a, tmp, m)
					g.ins("VCVTPS2PH $0, %s, %s", a, dst)
					return
				}
				for i, v := range []string{a, b} {
					g.ins("VPMOVZXWD %s, %s", src[i], v)
					g.ins("VPSLLD $16, %s, %s", v, v)
				}
				g.binop(f32, op, a, b, a, tmp, m)
				bf16Round(a, b, c)
				bf16Store(c, 5*u+4, 5*u+1, dst)
			})
		}
	}
}

// shiftAddr returns the memory operand "N(REG)" moved by d bytes.
func shiftAddr(a string, d int) string {
	n, rest, ok := strings.Cut(a, "(")
	v, err := strconv.Atoi(n)
	if !ok || err != nil {
		log.Fatalf("shiftAddr: %q is not N(REG)", a)
	}
	return fmt.Sprintf("%d(%s", v+d, rest)
}

// halfLoop emits the loop of a conversion kernel over CX elements, a
// multiple of L: unroll vectors a step while they last, then one. body
// emits slot u's vector, reading the operands at the memory operands it is
// given (in[i] bytes a vector from the register ptrs[i]) and writing out
// bytes at the one for DI.
func (g *gen) halfLoop(L, unroll, out int, in []int, ptrs []string, body func(u int, src []string, dst string)) {
	step := func(slots int) {
		for u := range slots {
			src := make([]string, len(ptrs))
			for i, p := range ptrs {
				src[i] = fmt.Sprintf("%d(%s)", u*in[i], p)
			}
			body(u, src, fmt.Sprintf("%d(DI)", u*out))
		}
		for i, p := range ptrs {
			g.ins("ADDQ $%d, %s", slots*in[i], p)
		}
		g.ins("ADDQ $%d, DI", slots*out)
		g.ins("SUBQ $%d, CX", slots*L)
	}
	g.unrolledLoop("h", L, unroll, step)
}

// unrolledLoop emits a kernel's loop and return: step(unroll) while CX
// (the elements left) holds unroll*L or more, then step(1) while it holds
// L or more. step emits the slots' work and moves the pointers and CX on.
// prefix starts the labels' names.
func (g *gen) unrolledLoop(prefix string, L, unroll int, step func(slots int)) {
	loop, one, done := g.uniq(prefix+"loop"), g.uniq(prefix+"one"), g.uniq(prefix+"done")
	g.label(loop)
	g.ins("CMPQ CX, $%d", unroll*L)
	g.ins("JB   %s", one)
	step(unroll)
	g.ins("JMP  %s", loop)
	g.label(one)
	g.ins("CMPQ CX, $%d", L)
	g.ins("JB   %s", done)
	step(1)
	g.ins("JMP  %s", one)
	g.label(done)
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// pow32Off is the float32 Pow kernel's log reduction offset, as float64
// bits: x = 2^k*z with z in [pow32Off, 2*pow32Off) (about [0.734, 1.469)),
// k = (bits(x) - pow32Off) >> 52, and z's bin the next 4 bits, so that 1
// lies inside a bin of its own (bin 8, z in [0.984, 1.031)) whose invc is
// 1 and log2 c 0: x near 1 keeps the relative accuracy of r itself.
const pow32Off = 0x3FE7800000000000

// pow32Snap rounds a value in [0.5, 2^15) to a multiple of 2^-37 by (v +
// pow32Snap) - pow32Snap.
const pow32Snap = 0x1.8p15

// pow32P is P with log2(1+r) = r*P(r), |r| <= 1/32, relative error
// 2^-49.7 (degree 6, at 2^-44.0, errs by 2^-37.3 where y*log2 x nears the
// range's ends with x within 1/32 of 1); pow32Q is Q with 2^r = 1 +
// r*Q(r), |r| <= 1/32, error 2^-47.4 (`go run fitcoeffs.go pow32`).
var (
	pow32P = []float64{1.4426950408889625, -0.7213475204444736, 0.48089834699886286, -0.3606737603484993, 0.2885388177860747, -0.24044879194583466, 0.20641341564488921, -0.18074148110100616}
	pow32Q = []float64{0.6931471805599472, 0.24022650689577774, 0.055504108649880195, 0.009618338611681607, 0.001333383836035472}
)

// pow32Tables returns the float32 Pow kernel's 16-entry tables: per bin of
// z (pow32Off), invc, the multiple of 2^-9 closest to minimising |z*invc -
// 1| over the bin (1 for bin 8), so that z*invc, 24 + 10 bits, is exact;
// logc = -log2(invc) rounded once; and 2^(j/16) rounded once (exp2Table's
// high parts).
func pow32Tables() (invc, logc, exp2 []float64) {
	const prec = 300
	for i := range uint64(16) {
		lo := math.Float64frombits(pow32Off + i<<48)
		hi := math.Float64frombits(pow32Off + (i+1)<<48)
		c := 1.0
		if i != 8 {
			best := math.Inf(1)
			for k := 256; k <= 1024; k++ {
				ck := float64(k) / 512
				if m := math.Max(math.Abs(lo*ck-1), math.Abs(hi*ck-1)); m < best {
					best, c = m, ck
				}
			}
		}
		if m := math.Max(math.Abs(lo*c-1), math.Abs(hi*c-1)); m > 1.0/32 {
			log.Fatalf("pow32 table: bin %d: |r| up to %g", i, m)
		}
		l := new(big.Float).SetPrec(prec).Quo(bigmath.Log(new(big.Float).SetPrec(prec).SetFloat64(c)), bigmath.Ln2)
		lc, _ := l.Neg(l).Float64()
		lc += 0 // +0, not -0, for bin 8
		invc, logc = append(invc, c), append(logc, lc)
	}
	hi, _ := exp2Table()
	for _, b := range hi {
		exp2 = append(exp2, math.Float64frombits(b))
	}
	return invc, logc, exp2
}

// pow512F32 emits the AVX-512 float32 Pow kernels of ordinary lanes,
// powF32AVX512 (two rows) and powScalarF32AVX512 (a row and one exponent),
// which compute in float64 lanes: log2|x| = (k + log2 c) + r*P(r) with c
// from a 16-entry table (VPERMT2PD) and r = z*invc - 1 exact, t =
// y*log2|x| (clamped to ±160, past float32's range), 2^t = T + T*r*Q(r)
// with n = round(16t) (VRNDSCALEPD), T = 2^((n mod 16)/16) and r = t -
// n/16 exact, rounded to a multiple of 2^-37, scaled by 2^floor(n/16)
// (VSCALEFPD)
// and rounded to float32 once. Before that rounding the power errs by at
// most about 2^-38 of itself, and an exact power that is a float32 tie
// (25 significant bits, as small integer powers of bases of few bits
// give) is exact, so the result is the correctly rounded power but where
// the power lies within 2^-38 of a tie without being one. A
// negative x takes the sign bit where y is an odd integer and NaN where y
// is no integer (C99's pow). Lanes that pow64.Ordinary turns away (x zero,
// infinite or NaN; y infinite, NaN, ±0.5, ±1 or 2) are ORed into K7 and
// left to Go. powF32Wide and powF32Lane repeat these steps in Go, bit for
// bit (TestPowF32Kernels).
//
// Each vector of 16 is two float64 chains of about 45 dependent steps, so
// the main loop takes two vectors and interleaves their four chains
// instruction by instruction (zip): one chain alone keeps the out-of-order
// window full of waiting instructions. Every chain has six registers; the
// tables and constants are read from memory. Registers: slot u's x and y
// (float32) and chains from powSlotRegs; the scalar exponent in Z12,
// widened in Z13; the sign masks of negative x in K4 and K5.
func (g *gen) pow512F32() {
	tabs := pow32TableSyms(g)
	chain := func(g *gen, xf, yf string, hi bool, r [6]string) { g.powF32Chain(tierAVX512, tabs, xf, yf, hi, r) }
	// group computes every slot of one step: the lane checks and signs
	// slot by slot, the chains of all slots interleaved, then each slot's
	// halves joined and its negative bases mended.
	group := func(vector bool) func(g *gen, in [][]string) []string {
		return func(g *gen, in [][]string) []string {
			signs := []string{"K5", "K4"}
			var streams []func(g *gen)
			var outs []string
			for u, slot := range in {
				xf, yf := slot[0], "Z12"
				if vector {
					yf = slot[1]
				}
				regs := powSlotRegs(u)
				ra, rb := [6]string(regs[0:6]), [6]string(regs[6:12])
				g.comment(fmt.Sprintf("slot %d: K7 |= the lanes pow64.Ordinary turns away: x NaN, zero or infinite", u))
				g.ins("VFPCLASSPSZ $0x9f, %s, K1, K6", xf)
				g.ins("KORW K6, K7, K7")
				if vector {
					g.comment("or y NaN or infinite, ±0.5, ±1 or 2")
					g.ins("VFPCLASSPSZ $0x99, %s, K1, K6", yf)
					g.ins("KORW K6, K7, K7")
					g.ins("VPANDD.BCST %s, %s, %s", g.fb("absmask", 0x7fffffff), yf, ra[0])
					g.ins("VCMPPS.BCST $0, %s, %s, K1, K6", g.f("half", 0.5), ra[0])
					g.ins("KORW K6, K7, K7")
					g.ins("VCMPPS.BCST $0, %s, %s, K1, K6", g.f("one", 1), ra[0])
					g.ins("KORW K6, K7, K7")
					g.ins("VCMPPS.BCST $0, %s, %s, K1, K6", g.f("two", 2), yf)
					g.ins("KORW K6, K7, K7")
				}
				g.comment(fmt.Sprintf("%s: x < 0; x = |x|", signs[u]))
				g.ins("VPMOVD2M %s, %s", xf, signs[u])
				g.ins("VPANDD.BCST %s, %s, %s", g.fb("absmask", 0x7fffffff), xf, xf)
				ya := ""
				if vector {
					ya = yf
				}
				streams = append(streams,
					func(g *gen) { chain(g, xf, ya, false, ra) },
					func(g *gen) { chain(g, xf, ya, true, rb) })
				outs = append(outs, ra[3])
			}
			g.comment("the chains of every slot interleaved, an instruction of each in turn")
			g.zip(streams...)
			for u, slot := range in {
				yf := "Z12"
				if vector {
					yf = slot[1]
				}
				regs := powSlotRegs(u)
				out, t1, t2 := outs[u], regs[0], regs[1]
				g.comment(fmt.Sprintf("slot %d: the halves joined; x < 0 (%s): the sign bit where y is odd (y/2", u, signs[u]))
				g.comment("not an integer), then NaN where y is not an integer")
				g.ins("VINSERTF32X8 $1, %s, %s, %s", "Y"+regs[9][1:], out, out)
				g.ins("VMULPS.BCST %s, %s, %s", g.f("half", 0.5), yf, t1)
				g.ins("VRNDSCALEPS $8, %s, %s", t1, t2)
				g.ins("VCMPPS $4, %s, %s, %s, K6", t2, t1, signs[u])
				g.ins("VPORD.BCST %s, %s, K6, %s", g.fb("signmask", 0x80000000), out, out)
				g.ins("VRNDSCALEPS $8, %s, %s", yf, t1)
				g.ins("VCMPPS $4, %s, %s, %s, K6", t1, yf, signs[u])
				g.ins("VBROADCASTSS %s, K6, %s", g.fb("gonan32", 0x7fc00000), out)
			}
			return outs
		}
	}
	setup := func(scalar bool) func(g *gen) {
		return func(g *gen) {
			if scalar {
				g.ins("VCVTPS2PD Y12, Z13")
			}
			g.comment("the tables' entries 0-7 in Z28-Z30 (8-15 are read from memory)")
			for i, tab := range tabs {
				g.ins("VMOVUPD %s+0(SB), Z%d", tab, 28+i)
			}
			g.comment("K1 all ones until the tail sets its mask: the lane checks look at K1's lanes")
			g.comment("only, so that the tail's zeroed lanes raise nothing")
			g.ins("KXNORW K1, K1, K1")
		}
	}
	for _, vector := range []bool{true, false} {
		k := ewKernel{name: "powF32AVX512", e: f32, inputs: []string{"x", "y"}, z: true, okFlag: "K7", unroll: 2,
			doc:   "sets dst[i] = x[i]**y[i] for i < n where x[i] is finite and not zero and y[i] finite and not ±0.5, ±1 or 2; ok is false when some lane is not.",
			setup: setup(false), group: group(true)}
		if !vector {
			k = ewKernel{name: "powScalarF32AVX512", e: f32, inputs: []string{"x"}, scalars: []string{"y"}, z: true, okFlag: "K7", unroll: 2,
				doc:   "sets dst[i] = x[i]**y for i < n where x[i] is finite and not zero (y finite); ok is false when some lane is not.",
				setup: setup(true), group: group(false)}
		}
		k.slotReg = func(u, i int) string {
			regs := powSlotRegs(u)
			return []string{regs[5], regs[12]}[i] // x is chain a's sixth register
		}
		g.elementwise(k)
	}
}

// powF32AVX2 emits the AVX2 float32 Pow kernels of ordinary lanes,
// powF32AVX2 and powScalarF32AVX2, with pow512F32's contract, steps and
// bits on ymm registers: k's conversion by the exponent-field trick in
// place of VPSRAQ and VCVTQQ2PD, the three tables read by VGATHERQPD
// (bases in R11, R12 and R13; each chain's sixth register is the gather
// mask), m = round(16t)/16 by VROUNDPD between the scalings by 16, and
// 2^floor(m) built from exponent bits in place of VSCALEFPD (m is within
// ±160, so the product is exact as there). The lanes for Go are ORed into
// Y14 through Y15, all ones until the tail loads its mask there. A
// vector of eight is two chains of four, interleaved (zip): x in Y0
// (chain a's sixth register), y in Y1 (the vector form; the scalar's
// widened in Y13, and the bits a negative base takes from it, negBaseBits',
// in Y12), the chains in Y2-Y6 and Y7-Y11 (the sixth Y12, or Y1 in the
// scalar form); x's sign is read from memory again at the end.
func (g *gen) powF32AVX2() {
	tabs := pow32TableSyms(g)
	chain := func(g *gen, yf string, hi bool, r [6]string) { g.powF32Chain(tierAVX2, tabs, "Y0", yf, hi, r) }
	// negFix sets dst to negBaseBits(y) of the float32 exponents in yf:
	// the sign bit where y is odd (y/2 not an integer), NaN's bits where y
	// is not an integer, else 0; t is scratch.
	negFix := func(yf, dst, t string) {
		g.ins("VMULPS %s, %s, %s", g.f("half", 0.5), yf, dst)
		g.ins("VROUNDPS $8, %s, %s", dst, t)
		g.ins("VCMPPS $4, %s, %s, %s", t, dst, dst)
		g.ins("VANDPS %s, %s, %s", g.fb("signmask", 0x80000000), dst, dst)
		g.ins("VROUNDPS $8, %s, %s", yf, t)
		g.ins("VCMPPS $4, %s, %s, %s", t, yf, t)
		g.ins("VBLENDVPS %s, %s, %s, %s", t, g.fb("gonan32", 0x7fc00000), dst, dst)
	}
	body := func(vector bool) func(g *gen, u int, in []string) string {
		return func(g *gen, u int, in []string) string {
			inf := g.f("inf", float32(math.Inf(1)))
			g.comment("Y3: the lanes pow64.Ordinary turns away (x NaN, zero or infinite; y NaN,")
			g.comment("infinite, ±0.5, ±1 or 2), within Y15's, into Y14; x = |x|")
			g.ins("VANDPS %s, Y0, Y0", g.fb("absmask", 0x7fffffff))
			g.ins("VCMPPS $5, %s, Y0, Y3", inf)
			g.ins("VCMPPS $0, %s, Y0, Y4", g.f("zero", 0))
			g.ins("VORPS Y4, Y3, Y3")
			if vector {
				g.ins("VANDPS %s, Y1, Y2", g.fb("absmask", 0x7fffffff))
				for _, c := range []struct {
					imm int
					c   string
				}{{5, inf}, {0, g.f("half", 0.5)}, {0, g.f("one", 1)}} {
					g.ins("VCMPPS $%d, %s, Y2, Y4", c.imm, c.c)
					g.ins("VORPS Y4, Y3, Y3")
				}
				g.ins("VCMPPS $0, %s, Y1, Y4", g.f("two", 2))
				g.ins("VORPS Y4, Y3, Y3")
			}
			g.ins("VANDPS Y15, Y3, Y3")
			g.ins("VORPS Y3, Y14, Y14")
			ya, eb := "", "Y1"
			if vector {
				ya, eb = "Y1", "Y12"
			}
			g.comment("the two chains interleaved, an instruction of each in turn")
			g.zip(func(g *gen) { chain(g, ya, false, [6]string{"Y2", "Y3", "Y4", "Y5", "Y6", "Y0"}) },
				func(g *gen) { chain(g, ya, true, [6]string{"Y7", "Y8", "Y9", "Y10", "Y11", eb}) })
			g.ins("VINSERTF128 $1, X10, Y5, Y5")
			g.comment("x < 0 (x's sign, read again): negBaseBits(y) there, NaN's in place of the power")
			g.ins("VMASKMOVPS (SI), Y15, Y2")
			g.ins("VPSRAD $31, Y2, Y2")
			fix := "Y12"
			if vector {
				negFix("Y1", "Y3", "Y4")
				fix = "Y3"
			}
			g.ins("VANDPS %s, Y2, Y2", fix)
			g.ins("VPSLLD $1, Y2, Y3")
			g.ins("VPSRAD $31, Y3, Y3")
			g.ins("VANDNPS Y5, Y3, Y5")
			g.ins("VORPS Y2, Y5, Y5")
			return "Y5"
		}
	}
	setup := func(scalar bool) func(g *gen) {
		return func(g *gen) {
			for i, r := range []string{"R11", "R12", "R13"} {
				g.ins("LEAQ %s(SB), %s", tabs[i], r)
			}
			if scalar {
				g.comment("Y13: y widened; Y12: negBaseBits(y)")
				g.ins("VCVTPS2PD X12, Y13")
				g.ins("VMOVAPS Y12, Y0")
				negFix("Y0", "Y12", "Y1")
			}
			g.ins("VPCMPEQD Y15, Y15, Y15")
		}
	}
	g.elementwise(ewKernel{name: "powF32AVX2", e: f32, inputs: []string{"x", "y"}, unroll: 1, okFlag: "Y14",
		doc:     "sets dst[i] = x[i]**y[i] for i < n where x[i] is finite and not zero and y[i] finite and not ±0.5, ±1 or 2; ok is false when some lane is not.",
		setup:   setup(false),
		slotReg: func(u, i int) string { return []string{"Y0", "Y1"}[i] },
		body:    body(true)})
	g.elementwise(ewKernel{name: "powScalarF32AVX2", e: f32, inputs: []string{"x"}, scalars: []string{"y"}, unroll: 1, okFlag: "Y14",
		doc:     "sets dst[i] = x[i]**y for i < n where x[i] is finite and not zero (y finite); ok is false when some lane is not.",
		setup:   setup(true),
		slotReg: func(u, i int) string { return "Y0" },
		body:    body(false)})
}

// pow32TableSyms registers the float32 Pow kernels' tables (pow32Tables:
// invc, log2 c, 2^(j/16)) and returns their symbols.
func pow32TableSyms(g *gen) [3]string {
	invc, logc, exp2 := pow32Tables()
	var syms [3]string
	for i, t := range [][]float64{invc, logc, exp2} {
		var b []uint64
		for _, x := range t {
			b = append(b, math.Float64bits(x))
		}
		syms[i] = g.table([]string{"p32invc", "p32logc", "p32exp2"}[i], b)
	}
	return syms
}

// powF32Chain emits one chain of the float32 Pow kernels on tier t: the
// float64 power of one half (hi: the upper) of the float32 |x| in xf, to
// the y in yf (float32; empty: the scalar exponent, widened, in register
// 13), into the low half of r[3], with r's six registers (r[5] may be xf,
// which is read first). The tiers differ in how they widen, convert k
// (VPSRAQ and VCVTQQ2PD; on AVX2 by 2^52 + 1024 + k read as a float), look
// up the tables (VPERMI2PD with entries 0-7 in Z28-Z30; VGATHERQPD from
// R11-R13, r[5] the mask), round 16t (VRNDSCALEPD to four fraction bits;
// VROUNDPD between the scalings by 16) and scale by 2^floor(m) (VSCALEFPD;
// a power of two from exponent bits, exact as m is within ±160): every
// step gives the same value on both (powF32Wide's).
func (g *gen) powF32Chain(t tier, tabs [3]string, xf, yf string, hi bool, r [6]string) {
	X, a, b, c, d, e := r[0], r[1], r[2], r[3], r[4], r[5]
	half, extract, and, cvt := "X", "VEXTRACTF128", "VPAND", "VCVTPD2PSY"
	if t.z {
		half, extract, and, cvt = "Y", "VEXTRACTF32X8", "VPANDQ", "VCVTPD2PS"
	}
	low := func(reg string) string { return half + reg[1:] }
	widen := func(src, dst string) {
		if hi {
			g.ins("%s $1, %s, %s", extract, src, low(dst))
			src = dst
		}
		g.ins("VCVTPS2PD %s, %s", low(src), dst)
	}
	cst := func(name string, c []float64, i int) string { return g.d(fmt.Sprintf("%s%d", name, i), c[i]) }
	load := func(c, dst string) {
		if t.z {
			g.ins("VBROADCASTSD %s, %s", c, dst)
		} else {
			g.ins("VMOVUPD %s, %s", c, dst)
		}
	}
	idx15 := func(reg string) {
		if !t.z {
			g.ins("VPAND %s, %s, %s", g.v64("p32idx15", 15), reg, reg)
		}
	}
	lookup := func(i int, idx, dst string) {
		if t.z {
			g.ins("VMOVAPD %s, %s", idx, dst)
			g.ins("VPERMI2PD %s+64(SB), Z%d, %s", tabs[i], 28+i, dst)
			return
		}
		g.ins("VPCMPEQQ %s, %s, %s", e, e, e)
		g.ins("VGATHERQPD %s, (R%d)(%s*8), %s", e, 11+i, idx, dst)
	}
	widen(xf, X)
	g.comment("x = 2^k*z: k = (bits - off) >> 52, bin = the next 4 bits, z = bits - k<<52")
	g.withConst(t, "VPSUBQ", g.v64("p32off", pow32Off), X+", "+a)
	g.withConst(t, and, g.v64("p32kmask", 0xfff<<52), a+", "+c)
	g.ins("VPSUBQ %s, %s, %s", c, X, c)
	if t.z {
		g.ins("VPSRAQ $52, %s, %s", a, b)
		g.ins("VCVTQQ2PD %s, %s", b, b)
	} else {
		g.ins("VPADDQ %s, %s, %s", g.v64("p32k1024", 1024<<52), a, b)
		g.ins("VPSRLQ $52, %s, %s", b, b)
		g.ins("VPOR %s, %s, %s", g.v64("p32two52", 0x4330000000000000), b, b)
		g.ins("VSUBPD %s, %s, %s", g.d("p32kbias", 0x1p52+1024), b, b)
	}
	g.ins("VPSRLQ $48, %s, %s", a, a)
	idx15(a)
	lookup(0, a, d)
	lookup(1, a, X)
	g.ins("VADDPD %s, %s, %s", X, b, b)
	g.comment("r = z*invc - 1 (exact); log2 x = (k + log2 c) + r*P(r), P by halves in r^2")
	g.withConst(t, "VFMSUB213PD", g.d("done", 1), d+", "+c)
	g.ins("VMULPD %s, %s, %s", c, c, d)
	load(cst("p32p", pow32P, 6), a)
	load(cst("p32p", pow32P, 7), X)
	for i := 4; i >= 0; i -= 2 {
		g.withConst(t, "VFMADD213PD", cst("p32p", pow32P, i), d+", "+a)
		g.withConst(t, "VFMADD213PD", cst("p32p", pow32P, i+1), d+", "+X)
	}
	g.ins("VFMADD213PD %s, %s, %s", a, c, X)
	g.ins("VFMADD231PD %s, %s, %s", X, c, b)
	g.comment("t = y*log2 x, clamped to [-160, 160]; m = round(16t)/16, r = t - m (exact); j =")
	g.comment("16m mod 16 in the low bits of m + 1.5*2^48")
	if yf != "" {
		widen(yf, a)
		g.ins("VMULPD %s, %s, %s", a, b, b)
	} else {
		g.ins("VMULPD %s, %s, %s", t.reg(13), b, b)
	}
	g.withConst(t, "VMINPD", g.d("d160", 160), b+", "+b)
	g.withConst(t, "VMAXPD", g.d("dm160", -160), b+", "+b)
	if t.z {
		g.ins("VRNDSCALEPD $0x48, %s, %s", b, d)
	} else {
		g.ins("VMULPD %s, %s, %s", g.d("d16", 16), b, d)
		g.ins("VROUNDPD $8, %s, %s", d, d)
		g.ins("VMULPD %s, %s, %s", g.d("d1by16", 1.0/16), d, d)
	}
	g.ins("VSUBPD %s, %s, %s", d, b, b)
	g.withConst(t, "VADDPD", g.d("p32shift", 0x1.8p48), d+", "+a)
	idx15(a)
	lookup(2, a, c)
	g.comment("2^t = (T + T*r*Q(r))*2^floor(m), Q = (q0 + q1 r) + r^2((q2 + q3 r) + r^2 q4)")
	g.ins("VMULPD %s, %s, %s", b, b, X)
	load(cst("p32q", pow32Q, 1), e)
	load(cst("p32q", pow32Q, 3), a)
	g.withConst(t, "VFMADD213PD", cst("p32q", pow32Q, 0), b+", "+e)
	g.withConst(t, "VFMADD213PD", cst("p32q", pow32Q, 2), b+", "+a)
	g.withConst(t, "VFMADD231PD", cst("p32q", pow32Q, 4), X+", "+a)
	g.ins("VFMADD213PD %s, %s, %s", e, X, a)
	g.ins("VMULPD %s, %s, %s", c, b, b)
	g.ins("VFMADD213PD %s, %s, %s", c, b, a)
	g.comment("rounded to a multiple of 2^-37 (it lies in [0.97, 2.05)): an exact power that is a")
	g.comment("float32 tie lands on it, which the last rounding then takes to even")
	g.withConst(t, "VADDPD", g.d("p32snap", pow32Snap), a+", "+a)
	g.withConst(t, "VSUBPD", g.d("p32snap", pow32Snap), a+", "+a)
	if t.z {
		g.ins("VSCALEFPD %s, %s, %s", d, a, a)
	} else {
		g.comment("2^floor(m) from floor(m) + 1023 in the low bits of floor(m) + 1.5*2^52")
		g.ins("VROUNDPD $9, %s, %s", d, d)
		g.ins("VADDPD %s, %s, %s", g.d("shifterbias64", 0x1.8p52+1023), d, d)
		g.ins("VPSLLQ $52, %s, %s", d, d)
		g.ins("VMULPD %s, %s, %s", d, a, a)
	}
	g.ins("%s %s, %s", cvt, a, low(c))
}

// powSlotRegs returns the registers of slot u of the float32 Pow kernels:
// two chains of six (0-5 and 6-11; x arrives in 5) and y's (12, vector
// form), from Z0-Z31 without the scalar exponent's Z12 and Z13.
func powSlotRegs(u int) []string {
	var all []string
	for i := 0; i < 32; i++ {
		if i != 12 && i != 13 {
			all = append(all, z(i))
		}
	}
	return all[13*u : 13*u+13]
}

// zip emits the instructions of each stream in turn, one of each (the
// streams' comments go with the instruction after them), so that
// independent chains of the same steps overlap in the out-of-order window
// rather than one following the other.
func (g *gen) zip(streams ...func(g *gen)) {
	var lines [][][]string
	for _, emit := range streams {
		start := g.s.Len()
		emit(g)
		text := g.s.String()[start:]
		g.s.Truncate(start)
		var groups [][]string
		var pending []string
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			pending = append(pending, l)
			if !strings.HasPrefix(strings.TrimSpace(l), "//") {
				groups, pending = append(groups, pending), nil
			}
		}
		if pending != nil {
			groups = append(groups, pending)
		}
		lines = append(lines, groups)
	}
	for i := 0; ; i++ {
		more := false
		for j, groups := range lines {
			if i < len(groups) {
				more = true
				for _, l := range groups[i] {
					if j > 0 && strings.HasPrefix(strings.TrimSpace(l), "//") {
						continue // the first stream's comments stand for all
					}
					g.s.WriteString(l + "\n")
				}
			}
		}
		if !more {
			return
		}
	}
}

// cmpPreds are Compare's relations in CmpOp order (vec.go) with their Go
// operators and VCMPPS/VCMPPD predicates: ordered and quiet for the four
// orderings and equality (false where an operand is NaN), unordered for
// inequality (true there), as Go, NumPy and PyTorch compare.
var cmpPreds = []struct {
	name, op string
	imm      int
}{{"Eq", "==", 0x00}, {"Ne", "!=", 0x04}, {"Lt", "<", 0x11}, {"Le", "<=", 0x12}, {"Gt", ">", 0x1e}, {"Ge", ">=", 0x1d}}

// dq is the dword or qword suffix of integer instructions on e's size.
func dq(e elem) string {
	if e.size == 4 {
		return "D"
	}
	return "Q"
}

// intPreds are the integer comparisons of cmpPreds' relations, in the same
// order: VPCMPD/VPCMPQ's predicate on AVX-512, and on AVX2 the comparison
// that exists (VPCMPEQ, or VPCMPGT with the operands in either order:
// swap, b > a) and whether its result is negated (a != b is not a == b,
// a <= b is not a > b, a >= b is not b > a).
var intPreds = []struct {
	imm           int
	gt, swap, not bool
}{{0, false, false, false}, {4, false, false, true}, {1, true, true, false}, {2, true, false, true}, {6, true, false, false}, {5, true, true, true}}

// cmpLUT is the byte-spreading table of the AVX2 float64 comparisons:
// entry m holds, in byte i, bit i of m, so that the VMOVMSKPD of a
// comparison (four lanes, the entry's low four bytes) becomes its 0/1
// bytes in one load.
func cmpLUT() []uint64 {
	t := make([]uint64, 16)
	for m := range t {
		for i := range 4 {
			t[m] |= uint64(m>>i&1) << (8 * i)
		}
	}
	return t
}

// compares emits Compare's and CompareScalar's kernels of tier t, for
// float32 and float64, and CompareInt's and CompareIntScalar's for int32
// and int64, each relation of cmpPreds (compareKernel).
func (g *gen) compares(t tier) {
	for _, e := range []elem{f32, f64, i32, i64} {
		for _, scalar := range []bool{false, true} {
			for _, p := range cmpPreds {
				g.compareKernel(t, e, p.name, p.op, p.imm, scalar)
			}
		}
	}
}

// compareKernel emits one comparison kernel: dst[i] = 1 where a[i] op b[i]
// (or a[i] op s, scalar) holds, else 0, n a multiple of the kernel's step.
// AVX-512 turns the comparison's k-mask into 0/1 dwords or qwords
// (VMOVDQA32.Z/VMOVDQA64.Z of ones) and narrows them to bytes (VPMOVDB,
// VPMOVQB; AVX512F alone), a vector a slot; AVX2 packs four float32
// comparisons to bytes (VPACKSSDW, VPACKSSWB, then VPERMD to undo the
// 128-bit halves' interleaving; 32 elements a slot) and looks a float64
// one's VMOVMSKPD bits up in cmpLUT.
//
// The integer elements compare with VPCMPD/VPCMPQ on AVX-512, and on AVX2
// with VPCMPEQ or VPCMPGT (intPreds), whose negated relations clear the
// result's ones with VPANDN (float32 width) or flip the VMOVMSKPD bits
// (float64 width) instead of setting them.
func (g *gen) compareKernel(t tier, e elem, name, op string, imm int, scalar bool) {
	r := t.reg
	var ip struct {
		imm           int
		gt, swap, not bool
	}
	if e.integer {
		ip = intPreds[slices.IndexFunc(cmpPreds, func(p struct {
			name, op string
			imm      int
		}) bool {
			return p.name == name
		})]
	}
	// vcmp compares the vector in register v with b (a register or memory
	// operand: other) into v's own lanes, AVX2 only: all ones where the
	// relation holds, or, for the integers' negated relations, where it
	// does not.
	vcmp := func(b, v string) {
		switch {
		case !e.integer:
			g.ins("VCMP%s $%#x, %s, %s, %s", e.p, imm, b, v, v)
		case !ip.gt:
			g.ins("VPCMPEQ%s %s, %s, %s", dq(e), b, v, v)
		case ip.swap:
			// b > a: VPCMPGT wants b in a register.
			if strings.Contains(b, "(") {
				g.ins("VMOVDQU %s, Y12", b)
				b = "Y12"
			}
			g.ins("VPCMPGT%s %s, %s, %s", dq(e), v, b, v)
		default:
			g.ins("VPCMPGT%s %s, %s, %s", dq(e), b, v, v)
		}
	}
	L := e.lanes // elements a slot
	if t.z {
		L *= 2
	}
	packed := !t.z && e.size == 4
	if packed {
		L = 32
	}
	args, form := []arg{{"dst", "*uint8", 8}, {"a", "*" + e.goT, 8}}, "b[i]"
	kname := "cmp" + name
	if scalar {
		kname, form = kname+"Scalar", "s"
		args = append(args, arg{"s", e.goT, e.size})
	} else {
		args = append(args, arg{"b", "*" + e.goT, 8})
	}
	args = append(args, arg{"n", "int", 8})
	kname += e.name + t.suffix
	how := fmt.Sprintf("VCMP%s $%#x", e.p, imm)
	if e.integer {
		how = fmt.Sprintf("VPCMP%s $%d on AVX-512", dq(e), ip.imm)
	}
	off := g.text(kname, args, nil, fmt.Sprintf("sets dst[i] to 1 where a[i] %s %s holds, else 0 (%s), for i < n, a multiple of %d.", op, form, how, L))
	g.load(off, "dst", "DI")
	g.load(off, "a", "SI")
	g.load(off, "n", "CX")
	// Registers: the slots' from 0; the scalar in 14; on AVX-512 the ones
	// in Z15, on AVX2 the pack's order in Y13 and its byte ones in Y15, or
	// the table's base in R8.
	ptrs, in := []string{"SI"}, []int{e.size * L}
	other := func(src []string, off int) string { return r(14) }
	if scalar {
		g.ins("VBROADCASTS%s s+%d(FP), %s", e.s[1:], off["s"], r(14))
	} else {
		g.load(off, "b", "DX")
		ptrs, in = append(ptrs, "DX"), append(in, in[0])
		other = func(src []string, off int) string { return shiftAddr(src[1], off) }
	}
	switch {
	case t.z && e.size == 4:
		g.ins("VPBROADCASTD %s, Z15", g.i("cmp_one32", 1))
	case t.z:
		g.ins("VPBROADCASTQ %s, Z15", g.v64("cmp_one64", 1))
	case packed:
		g.ins("VMOVDQU %s(SB), Y13", g.table("cmpPackOrder", []uint64{4 << 32, 5<<32 | 1, 6<<32 | 2, 7<<32 | 3}))
		g.ins("VMOVDQU %s, Y15", g.v32("cmp_one8", 0x01010101))
	default:
		g.ins("LEAQ %s(SB), R8", g.table("cmpLUT", cmpLUT()))
	}
	if packed {
		g.halfLoop(L, 2, L, in, ptrs, func(u int, src []string, dst string) {
			v := func(i int) string { return r(4*u + i) }
			for i := range 4 {
				g.ins("VMOVUPS %s, %s", shiftAddr(src[0], 32*i), v(i))
				vcmp(other(src, 32*i), v(i))
			}
			g.ins("VPACKSSDW %s, %s, %s", v(1), v(0), v(0))
			g.ins("VPACKSSDW %s, %s, %s", v(3), v(2), v(2))
			g.ins("VPACKSSWB %s, %s, %s", v(2), v(0), v(0))
			g.ins("VPERMD %s, Y13, %s", v(0), v(0))
			if ip.not {
				g.ins("VPANDN Y15, %s, %s", v(0), v(0))
			} else {
				g.ins("VPAND Y15, %s, %s", v(0), v(0))
			}
			g.ins("VMOVDQU %s, %s", v(0), dst)
		})
		return
	}
	g.halfLoop(L, 4, L, in, ptrs, func(u int, src []string, dst string) {
		a := r(u)
		g.ins("VMOVUP%s %s, %s", e.p[1:], src[0], a)
		if !t.z {
			vcmp(other(src, 0), a)
			g.ins("VMOVMSKPD %s, R10", a)
			if ip.not {
				g.ins("XORQ $15, R10")
			}
			g.ins("MOVL (R8)(R10*8), R11")
			g.ins("MOVL R11, %s", dst)
			return
		}
		k := fmt.Sprintf("K%d", u+1)
		if e.integer {
			g.ins("VPCMP%s $%d, %s, %s, %s", dq(e), ip.imm, other(src, 0), a, k)
		} else {
			g.ins("VCMP%s $%#x, %s, %s, %s", e.p, imm, other(src, 0), a, k)
		}
		if e.size == 4 {
			g.ins("VMOVDQA32.Z Z15, %s, %s", k, a)
			g.ins("VPMOVDB %s, %s", a, x(u))
			g.ins("VMOVDQU %s, %s", x(u), dst)
			return
		}
		g.ins("VMOVDQA64.Z Z15, %s, %s", k, a)
		g.ins("VPMOVQB %s, %s", a, x(u))
		g.ins("VMOVQ %s, %s", x(u), dst)
	})
}

// selectForms are Select's kernels by where b's values come from: a row
// ("", dst = c ? a : b), one value in the else position ("Else", dst = c ?
// a : s) or one value in the then position ("Then", dst = c ? s : b).
var selectForms = []string{"", "Else", "Then"}

// selects emits Select's, SelectElse's and SelectThen's kernels of tier t
// (selectKernel): for 32-bit and 64-bit elements on both tiers, and for
// 8-bit and 16-bit ones on AVX2 alone, whose kernels the AVX-512 tier
// takes too (widening bytes to words, or testing bytes, in zmm lanes needs
// AVX512BW, which that tier does not require).
func (g *gen) selects(t tier) {
	widths := []int{32, 64}
	if !t.z {
		widths = []int{8, 16, 32, 64}
	}
	for _, bits := range widths {
		for _, form := range selectForms {
			g.selectKernel(t, bits, form)
		}
	}
}

// selectWidths are the element widths of the select kernels, with the
// suffix of their integer instructions.
var selectWidths = map[int]string{8: "B", 16: "W", 32: "D", 64: "Q"}

// selectKernel emits one select kernel on elements of bits bits: dst[i] =
// a[i] where c[i] is nonzero, else b[i] (form "", or s for "Else"; "Then"
// takes s where c[i] is nonzero, else b[i]), for i < n, a multiple of the
// kernel's step. Each slot widens its condition bytes to the element width
// (VPMOVZXBW, VPMOVZXBD, VPMOVZXBQ; bytes stay bytes) and blends whole
// elements: on AVX-512 a k-mask
// from VPTESTMD/VPTESTMQ (VPTESTNM for "Then") and VPBLENDMD/VPBLENDMQ,
// on AVX2 a lane mask of c == 0 (VPCMPEQB/W/D/Q against zero) and
// VPBLENDVB. The elements are only moved, so any type of the width
// (float, integer) takes the same kernel, NaN payloads and -0 included.
func (g *gen) selectKernel(t tier, bits int, form string) {
	r := t.reg
	size := bits / 8
	L := 32 / size // elements a slot: a ymm
	if t.z {
		L *= 2
	}
	goT := fmt.Sprintf("uint%d", bits)
	args := []arg{{"dst", "*" + goT, 8}, {"c", "*uint8", 8}}
	var doc string
	switch form {
	case "":
		args = append(args, arg{"a", "*" + goT, 8}, arg{"b", "*" + goT, 8})
		doc = "a[i] where c[i] != 0, else b[i]"
	case "Else":
		args = append(args, arg{"a", "*" + goT, 8}, arg{"s", goT, size})
		doc = "a[i] where c[i] != 0, else s"
	case "Then":
		args = append(args, arg{"s", goT, size}, arg{"b", "*" + goT, 8})
		doc = "s where c[i] != 0, else b[i]"
	}
	args = append(args, arg{"n", "int", 8})
	kname := fmt.Sprintf("select%s%d%s", form, bits, t.suffix)
	off := g.text(kname, args, nil, fmt.Sprintf("sets dst[i] to %s, for i < n, a multiple of %d.", doc, L))
	g.load(off, "dst", "DI")
	g.load(off, "c", "BX")
	g.load(off, "n", "CX")
	// Pointers: c in BX, a in SI, b in DX (those the form has); s in
	// register 14; on AVX2 zero in register 13.
	ptrs, in := []string{"BX"}, []int{L}
	if form != "Then" {
		g.load(off, "a", "SI")
		ptrs, in = append(ptrs, "SI"), append(in, size*L)
	}
	if form != "Else" {
		g.load(off, "b", "DX")
		ptrs, in = append(ptrs, "DX"), append(in, size*L)
	}
	q := selectWidths[bits]
	if form != "" {
		// The float broadcasts move the bits as they are (and vet knows
		// their operand size); a byte or a word goes through AX.
		switch bits {
		case 8, 16:
			g.ins("MOV%sLZX s+%d(FP), AX", q, off["s"])
			g.ins("VMOVD AX, X14")
			g.ins("VPBROADCAST%s X14, Y14", q)
		case 32:
			g.ins("VBROADCASTSS s+%d(FP), %s", off["s"], r(14))
		default:
			g.ins("VBROADCASTSD s+%d(FP), %s", off["s"], r(14))
		}
	}
	if !t.z {
		g.ins("VPXOR Y13, Y13, Y13")
	}
	g.halfLoop(L, 4, size*L, in, ptrs, func(u int, src []string, dst string) {
		cv, v := r(u), r(4+u)
		// a and b as operands: memory where the form has a row, else the
		// broadcast s.
		var a, b string
		switch form {
		case "":
			a, b = src[1], src[2]
		case "Else":
			a, b = src[1], r(14)
		case "Then":
			a, b = r(14), src[1]
		}
		if bits == 8 {
			g.ins("VMOVDQU %s, %s", src[0], cv)
		} else {
			g.ins("VPMOVZXB%s %s, %s", q, src[0], cv)
		}
		if t.z {
			k := fmt.Sprintf("K%d", u+1)
			// K = c != 0, and the blend takes its first operand there; for
			// Then, K = c == 0, picking b there and s elsewhere.
			test, first, second := "VPTESTM", a, b
			if form == "Then" {
				test, first, second = "VPTESTNM", b, a
			}
			if strings.Contains(second, "(") {
				g.ins("VMOVDQU%d %s, %s", bits, second, v)
				second = v
			}
			g.ins("%s%s %s, %s, %s", test, q, cv, cv, k)
			g.ins("VPBLENDM%s %s, %s, %s, %s", q, first, second, k, v)
			g.ins("VMOVDQU%d %s, %s", bits, v, dst)
			return
		}
		// The mask is c == 0, where VPBLENDVB takes its second operand (b).
		g.ins("VPCMPEQ%s Y13, %s, %s", q, cv, cv)
		if strings.Contains(a, "(") {
			g.ins("VMOVDQU %s, %s", a, v)
			a = v
		}
		g.ins("VPBLENDVB %s, %s, %s, %s", cv, b, a, v)
		g.ins("VMOVDQU %s, %s", v, dst)
	})
}

// reverseKernel emits Reverse's kernel for elements of bits bits (32 or
// 64) on tier t: dst[i] = src[n-1-i] for i < n, a multiple of the
// vector's lanes. src is read from its end down, a vector at a time, and
// each vector's lanes reversed (VPERMD, or VPERMQ, with an index vector;
// AVX2's VPERMQ takes an immediate) as it is stored from dst's start up.
// The elements are only moved, so any type of the width takes it.
func (g *gen) reverseKernel(t tier, bits int) {
	r := t.reg
	size := bits / 8
	V := 32 // bytes a vector
	mov := "VMOVDQU"
	if t.z {
		V = 64
		mov = fmt.Sprintf("VMOVDQU%d", bits)
	}
	L := V / size
	goT := fmt.Sprintf("uint%d", bits)
	name := fmt.Sprintf("reverse%d%s", bits, t.suffix)
	off := g.text(name, []arg{{"dst", "*" + goT, 8}, {"src", "*" + goT, 8}, {"n", "int", 8}}, nil,
		fmt.Sprintf("sets dst[i] to src[n-1-i] for i < n, a multiple of %d.", L))
	g.load(off, "dst", "DI")
	g.load(off, "src", "SI")
	g.load(off, "n", "CX")
	g.ins("LEAQ (SI)(CX*%d), SI", size) // src's end
	idx := r(15)
	perm := func(mem, dst string) {
		switch {
		case bits == 64 && !t.z:
			g.ins("VPERMQ $0x1B, %s, %s", mem, dst)
		case bits == 64:
			g.ins("VPERMQ %s, %s, %s", mem, idx, dst)
		default:
			g.ins("VPERMD %s, %s, %s", mem, idx, dst)
		}
	}
	if bits == 32 || t.z {
		// Lane k of the index vector is L-1-k, packed by the element width.
		var words []uint64
		for k := 0; k < L; k += 64 / bits {
			var w uint64
			for j := range 64 / bits {
				w |= uint64(L-1-k-j) << (bits * j)
			}
			words = append(words, w)
		}
		g.ins("%s %s(SB), %s", mov, g.table(fmt.Sprintf("rev%dx%d", bits, L), words), idx)
	}
	const unroll = 4
	step := func(slots int) {
		for u := range slots {
			perm(fmt.Sprintf("-%d(SI)", (u+1)*V), r(u))
			g.ins("%s %s, %d(DI)", mov, r(u), u*V)
		}
		g.ins("SUBQ $%d, SI", slots*V)
		g.ins("ADDQ $%d, DI", slots*V)
		g.ins("SUBQ $%d, CX", slots*L)
	}
	g.unrolledLoop("r", L, unroll, step)
}

// transpose8x8 emits transpose32AVX2, Transpose's block kernel for 4-byte
// elements: dst[c*ldd+r] = src[r*lds+c] for r < 8 and c < n (n a multiple
// of 8; ldd and lds in elements), an 8 by 8 block at a time. Eight rows of
// eight are loaded, interleaved in pairs (VUNPCKLPS/VUNPCKHPS: within each
// 128-bit half, columns 0, 1 (4, 5) and 2, 3 (6, 7) of two rows), the pairs
// combined in fours (VSHUFPS: one column of four rows per half), and the
// halves of two such vectors joined (VPERM2F128), giving the eight columns
// as rows. The moves are bit moves, so the kernel serves every 4-byte
// type; on AVX-512 machines too, where eight lanes already fill the lines
// a block touches.
func (g *gen) transpose8x8() {
	off := g.text("transpose32AVX2", []arg{{"dst", "*uint32", 8}, {"ldd", "int", 8}, {"src", "*uint32", 8}, {"lds", "int", 8}, {"n", "int", 8}}, nil,
		"is Transpose's 8 by 8 block kernel (see transpose8x8 in asmgen.go).")
	g.load(off, "dst", "DI")
	g.load(off, "ldd", "BX")
	g.load(off, "src", "SI")
	g.load(off, "lds", "DX")
	g.load(off, "n", "CX")
	g.ins("SHLQ $2, BX")
	g.ins("SHLQ $2, DX")
	g.ins("LEAQ (DX)(DX*2), R8")  // 3 source rows
	g.ins("LEAQ (BX)(BX*2), R10") // 3 destination rows
	g.label("loop")
	g.ins("CMPQ CX, $8")
	g.ins("JB   done")
	g.ins("LEAQ (SI)(DX*4), R9") // source rows 4-7
	for i, a := range []string{"(SI)", "(SI)(DX*1)", "(SI)(DX*2)", "(SI)(R8*1)", "(R9)", "(R9)(DX*1)", "(R9)(DX*2)", "(R9)(R8*1)"} {
		g.ins("VMOVUPS %s, Y%d", a, i)
	}
	for p := range 4 { // rows 2p and 2p+1 interleaved
		g.ins("VUNPCKLPS Y%d, Y%d, Y%d", 2*p+1, 2*p, 8+2*p)
		g.ins("VUNPCKHPS Y%d, Y%d, Y%d", 2*p+1, 2*p, 9+2*p)
	}
	for q := range 2 { // rows 4q to 4q+3: columns j (j+4) in Y(4q+j)
		lo, hi := 8+4*q, 9+4*q // the pairs' low and high columns
		g.ins("VSHUFPS $0x44, Y%d, Y%d, Y%d", lo+2, lo, 4*q)
		g.ins("VSHUFPS $0xEE, Y%d, Y%d, Y%d", lo+2, lo, 4*q+1)
		g.ins("VSHUFPS $0x44, Y%d, Y%d, Y%d", hi+2, hi, 4*q+2)
		g.ins("VSHUFPS $0xEE, Y%d, Y%d, Y%d", hi+2, hi, 4*q+3)
	}
	for j := range 4 { // column j from the low halves, column j+4 from the high
		g.ins("VPERM2F128 $0x20, Y%d, Y%d, Y%d", 4+j, j, 8+j)
		g.ins("VPERM2F128 $0x31, Y%d, Y%d, Y%d", 4+j, j, 12+j)
	}
	g.ins("LEAQ (DI)(BX*4), R11") // destination rows 4-7
	for i, a := range []string{"(DI)", "(DI)(BX*1)", "(DI)(BX*2)", "(DI)(R10*1)", "(R11)", "(R11)(BX*1)", "(R11)(BX*2)", "(R11)(R10*1)"} {
		g.ins("VMOVUPS Y%d, %s", 8+i, a)
	}
	g.ins("ADDQ $32, SI")
	g.ins("LEAQ (DI)(BX*8), DI")
	g.ins("SUBQ $8, CX")
	g.ins("JMP  loop")
	g.label("done")
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// reduceExtremeI32 emits maxReduceI32AVX2 or minReduceI32AVX2: the largest
// (smallest) element of x[:n], n >= 8, in four running vectors of eight
// lanes (VPMAXSD or VPMINSD), the last whole vector overlapping elements
// already seen, then folded across the lanes. MaxInt's and MinInt's int32
// kernel on both vector tiers.
func (g *gen) reduceExtremeI32(op string) {
	name := op + "ReduceI32AVX2"
	off := g.text(name, []arg{{"x", "*int32", 8}, {"n", "int", 8}}, &arg{"ret", "int32", 4},
		"returns the "+op+"imum of x[:n]; it requires n >= 8.")
	g.load(off, "x", "SI")
	g.load(off, "n", "CX")
	OP := "VP" + strings.ToUpper(op) + "SD"
	g.ins("VMOVDQU (SI), Y0")
	for k := 1; k < 4; k++ {
		g.ins("VMOVDQA Y0, %s", y(k))
	}
	g.label("loop")
	g.ins("CMPQ CX, $32")
	g.ins("JB   one")
	for k := range 4 {
		g.ins("%s %d(SI), %s, %s", OP, 32*k, y(k), y(k))
	}
	g.ins("ADDQ $128, SI")
	g.ins("SUBQ $32, CX")
	g.ins("JMP  loop")
	g.label("one")
	g.ins("CMPQ CX, $8")
	g.ins("JB   tail")
	g.ins("%s (SI), Y0, Y0", OP)
	g.ins("ADDQ $32, SI")
	g.ins("SUBQ $8, CX")
	g.ins("JMP  one")
	g.label("tail")
	g.ins("TESTQ CX, CX")
	g.ins("JEQ  combine")
	g.comment("the last full vector, overlapping elements already seen")
	g.ins("LEAQ -32(SI)(CX*4), SI")
	g.ins("%s (SI), Y1, Y1", OP)
	g.label("combine")
	g.ins("%s Y1, Y0, Y0", OP)
	g.ins("%s Y3, Y2, Y2", OP)
	g.ins("%s Y2, Y0, Y0", OP)
	g.foldY0(OP, 4, off)
	g.ins("VZEROUPPER")
	g.ins("RET")
}
