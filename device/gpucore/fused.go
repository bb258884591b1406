package gpucore

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// Fused programs (device.Program) run as one kernel, fused.wgsl,
// specialised by the program's structure: the dtype, the sequence of step
// kinds and ops with their operand steps, the number of inputs and whether
// each is a scalar (all strides zero, read at one position) or walked.
// Shapes, strides, offsets and constant values are never part of the
// kernel: they travel in the parameter block, so a loop that changes a
// scalar reuses one pipeline.

// Fused kernel limits: inputs (one storage binding each, after the output;
// a WebGPU stage has at least 8), constants (slots of the parameter block)
// and steps (the size of the generated kernel).
const (
	MaxFusedInputs = 6
	MaxFusedConsts = 64
	MaxFusedSteps  = 256
)

// FusedParams is the uniform of fused.wgsl. Operand k (0 is the
// destination, 1+i input i) starts at position Off[k/4][k%4] of its
// binding window; constant slot j is C[j/4][j%4]; WA walks the destination
// and the first three walked (non-scalar) inputs, WB the next three.
// A fused reduction (REDUCE) has N work items, each folding elements
// [c*Chunk, min((c+1)*Chunk, NRed)) of output o's NRed elements, where
// o, c = item / NChunk, item % NChunk; its destination is not walked.
//
// Its WGSL declaration (struct FParams) sits in shaders/fused.wgsl;
// TestFusedParamsWGSL checks it against FusedParamsWGSL, which generates
// it from this struct and checks every field's uniform offset.
type FusedParams struct {
	N      uint32                         `wgsl:"n"`
	NRed   uint32                         `wgsl:"nred"`
	NChunk uint32                         `wgsl:"nchunk"`
	Chunk  uint32                         `wgsl:"chunk"`
	Off    [2][4]int32                    `wgsl:"off"`
	C      [MaxFusedConsts / 4][4]float32 `wgsl:"c"`
	WA     Walk4                          `wgsl:"wa"`
	WB     Walk4                          `wgsl:"wb"`
}

// FusedParamsWGSL returns the WGSL declaration of FusedParams (struct
// FParams), or an error when a field is not at its uniform offset.
func FusedParamsWGSL() (string, error) {
	var sb strings.Builder
	names := map[reflect.Type]string{reflect.TypeFor[Walk4](): "Walk4"}
	if err := declare(&sb, "FParams", reflect.TypeFor[FusedParams](), names); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// bytes packs f as the uniform holds it. A fused dispatch carries these
// bytes as its Params, which Pack and Size pass through unchanged
// (encoding/binary copies a []byte), so the block is defined here, in its
// own file, without a reflective walk per dispatch.
func (f *FusedParams) bytes() []byte {
	if littleEndian {
		return appendRaw(nil, f)
	}
	return packPortable(nil, *f)
}

// FusedKey is the structural key of a program over inputs whose access
// kinds are scalar (true: every stride zero) or walked: what the fused
// kernel is specialised by, and so what executors cache its pipeline by.
func FusedKey(p device.Program, scalar []bool) string { return fusedKey(p, scalar, "") }

// FusedReduceKey is FusedKey for the program as the prologue of reduction
// op (see Planner.FusedReduce).
func FusedReduceKey(p device.Program, scalar []bool, op device.ReduceOp) string {
	return fusedKey(p, scalar, redName(op))
}

func fusedKey(p device.Program, scalar []bool, red string) string {
	b := make([]byte, 0, 8+len(red)+len(scalar)+4*len(p.Steps))
	b = append(b, red...)
	b = append(b, '/', byte(p.DType), byte(len(scalar)))
	for _, s := range scalar {
		if s {
			b = append(b, 's')
		} else {
			b = append(b, 'w')
		}
	}
	for _, s := range p.Steps {
		switch s.Kind {
		case device.StepInput:
			b = append(b, 'i', byte(s.Input))
		case device.StepConst:
			b = append(b, 'c')
		case device.StepUnary:
			b = append(b, 'u', byte(s.Unary))
			b = strconv.AppendInt(b, int64(s.A), 36)
		case device.StepBinary:
			b = append(b, 'b', byte(s.Binary))
			b = strconv.AppendInt(b, int64(s.A), 36)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(s.B), 36)
		}
	}
	return string(b)
}

// FusedKernel builds the specialisation of fused.wgsl for a valid program
// (see Planner.Fused) over inputs whose access kinds are given by scalar.
// Each distinct op becomes one small function whose body is its op-table
// shader expression; each step one let in main. F16 programs decode their
// inputs to f32 and round every step's result to f16 and back, so the
// result equals the unfused operations' bit for bit.
func FusedKernel(p device.Program, scalar []bool) *Kernel { return fusedKernel(p, scalar, "") }

// FusedReduceKernel is the specialisation of fused.wgsl that folds the
// program's values into partial results of reduction op (REDUCE): one f32
// accumulator per work item, which the reduce kernel then combines.
func FusedReduceKernel(p device.Program, scalar []bool, op device.ReduceOp) *Kernel {
	return fusedKernel(p, scalar, redName(op))
}

func fusedKernel(p device.Program, scalar []bool, red string) *Kernel {
	v := map[string]string{}
	f16 := p.DType == dtype.F16
	if red != "" {
		v["REDUCE"] = "1"
		v["RED"] = red + "_f32"
	} else {
		storageVars(v, "D", p.DType, false)
	}
	if f16 {
		v["S_PACKED"] = "1"
	}
	walked := 0
	pos := make([]string, len(scalar))
	for i, s := range scalar {
		v["IN"+strconv.Itoa(i)] = "1"
		off := fmt.Sprintf("P.off[%d][%d]", (i+1)/4, (i+1)%4)
		switch {
		case s:
			pos[i] = off
		case walked < 3:
			pos[i] = off + " + pa[" + strconv.Itoa(walked+1) + "]"
			walked++
		default:
			pos[i] = off + " + pb[" + strconv.Itoa(walked-3) + "]"
			walked++
		}
	}
	if walked > 3 {
		v["WALK_B"] = "1"
	}
	var fns, body strings.Builder
	seenU := map[device.UnaryOp]bool{}
	seenB := map[device.BinaryOp]bool{}
	round := func(e string) string {
		if f16 {
			return "r16(" + e + ")"
		}
		return e
	}
	consts := 0
	for i, s := range p.Steps {
		fmt.Fprintf(&body, "    let v%d = ", i)
		switch s.Kind {
		case device.StepInput:
			fmt.Fprintf(&body, "load_in%d(%s);\n", s.Input, pos[s.Input])
		case device.StepConst:
			fmt.Fprintf(&body, "P.c[%d][%d];\n", consts/4, consts%4)
			consts++
		case device.StepUnary:
			if !seenU[s.Unary] {
				seenU[s.Unary] = true
				def, _ := s.Unary.Def()
				fmt.Fprintf(&fns, "fn un_%d(x: f32) -> f32 {\n    return %s;\n}\n\n", s.Unary, def.Shader.F32)
			}
			fmt.Fprintf(&body, "%s;\n", round(fmt.Sprintf("un_%d(v%d)", s.Unary, s.A)))
		case device.StepBinary:
			if !seenB[s.Binary] {
				seenB[s.Binary] = true
				def, _ := s.Binary.Def()
				fmt.Fprintf(&fns, "fn bin_%d(a: f32, b: f32) -> f32 {\n    return %s;\n}\n\n", s.Binary, def.Shader.F32)
			}
			fmt.Fprintf(&body, "%s;\n", round(fmt.Sprintf("bin_%d(v%d, v%d)", s.Binary, s.A, s.B)))
		}
	}
	v["FUNCS"] = strings.TrimSuffix(fns.String(), "\n")
	v["BODY"] = strings.TrimSuffix(body.String(), "\n")
	v["RESULT"] = "v" + strconv.Itoa(len(p.Steps)-1)
	return &Kernel{Template: "fused.wgsl", Vars: v, RW: 1, RO: len(scalar)}
}

// FusedCache finds or builds the kernel of a structural key; executors
// pass one to Planner.Fused to keep kernels (and their pipelines) across
// calls. A nil cache builds the kernel every time.
type FusedCache func(key string, build func() *Kernel) *Kernel

// fusedParams checks a program and its inputs against the fused kernel's
// limits (see Fused) and returns the parameter block holding its
// constants.
func (p *Planner) fusedParams(op string, prog device.Program, ins []Operand) (FusedParams, error) {
	var prm FusedParams
	if err := prog.Validate(p.Backend, len(ins)); err != nil {
		return prm, err
	}
	dt := prog.DType
	if dt != dtype.F32 && dt != dtype.F16 {
		return prm, p.errorf(op, errs.ErrDType, "%s is not supported on %s (WGSL has no %s); Cast to f32 first", dt, p.Display, dt)
	}
	if len(ins) > MaxFusedInputs {
		return prm, p.errorf(op, errs.ErrUnsupported, "%d inputs, a fused kernel takes at most %d", len(ins), MaxFusedInputs)
	}
	if len(prog.Steps) > MaxFusedSteps {
		return prm, p.errorf(op, errs.ErrUnsupported, "%d steps, a fused kernel takes at most %d", len(prog.Steps), MaxFusedSteps)
	}
	consts := 0
	for _, s := range prog.Steps {
		if s.Kind != device.StepConst {
			continue
		}
		if consts == MaxFusedConsts {
			return prm, p.errorf(op, errs.ErrUnsupported, "more than %d constants in a fused kernel", MaxFusedConsts)
		}
		c := float32(s.Const)
		if dt == dtype.F16 {
			c = dtype.F16FromFloat64(s.Const).Float32()
		}
		prm.C[consts/4][consts%4] = c
		consts++
	}
	for i, in := range ins {
		if in.DT() != dt {
			return prm, p.errorf(op, errs.ErrDType, "input %d is %s but the program computes in %s", i, in.DT(), dt)
		}
	}
	return prm, nil
}

// Fused plans program prog over inputs ins (dst's shape, the program's
// dtype; broadcasting is a zero stride) into d, as one dispatch per box of
// the limit split. Malformed programs are refused as Program.Validate
// says; F64 and BF16 with ErrDType, as every WebGPU operation refuses
// them; programs beyond the kernel limits with ErrUnsupported.
func (p *Planner) Fused(op string, d Operand, prog device.Program, ins []Operand, cache FusedCache) (*Plan, error) {
	prm, err := p.fusedParams(op, prog, ins)
	if err != nil {
		return nil, err
	}
	dt := prog.DType
	if d.DT() != dt {
		return nil, p.errorf(op, errs.ErrDType, "dst is %s but the program computes in %s", d.DT(), dt)
	}
	for i, in := range ins {
		if err := p.sameShapes(op, []string{"dst", fmt.Sprintf("input %d", i)}, d, in); err != nil {
			return nil, err
		}
	}
	if err := p.noAlias(op, d, ins...); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if d.Numel == 0 {
		return pl, nil
	}

	// Merge axes over every operand, then classify inputs: a scalar reads
	// one position and takes no place in the walks.
	args := make([]ewArg, 1+len(ins))
	args[0] = argOf(d)
	for i, in := range ins {
		args[1+i] = argOf(in)
	}
	strides := make([][]int, len(args))
	esz := make([]int, len(args))
	for i, a := range args {
		strides[i] = a.strides
		esz[i] = ElemBytes(dt)
	}
	sh, st := coalesce(d.Shape, strides)
	scalar := make([]bool, len(ins))
	walkOf := []int{0} // operands walked: the first four by WA, the rest by WB
	for i := range ins {
		scalar[i] = true
		for _, s := range st[1+i] {
			if s != 0 {
				scalar[i] = false
				break
			}
		}
		if !scalar[i] {
			walkOf = append(walkOf, 1+i)
		}
	}
	key := FusedKey(prog, scalar)
	var k *Kernel
	if cache != nil {
		k = cache(key, func() *Kernel { return FusedKernel(prog, scalar) })
	} else {
		k = FusedKernel(prog, scalar)
	}

	bext := append([]int(nil), sh...)
	hostAxes(bext, 0, len(sh), maxRank)
	bext, ok := p.Lim.tileFrom(bext, st, esz, math.MaxInt32, len(sh))
	if !ok {
		return nil, p.errorf(op, errs.ErrUnsupported, "a single element does not fit the %d-byte storage binding limit", p.Lim.MaxBinding)
	}
	boxes(sh, bext, func(origin, ext []int) {
		cnt := prodInts(ext)
		box := prm
		box.N = uint32(cnt)
		walkA := make([][]int, 0, 4)
		walkB := make([][]int, 0, 3)
		for slot, o := range walkOf {
			if slot < 4 {
				walkA = append(walkA, st[o])
			} else {
				walkB = append(walkB, st[o])
			}
		}
		kext, ka := squeezeBox(ext, walkA...)
		box.WA = walk4(kext, ka...)
		if len(walkB) > 0 {
			_, kb := squeezeBox(ext, walkB...)
			box.WB = walk4(kext, kb...)
		}
		binds := make([]Binding, len(args))
		for o, a := range args {
			boff := a.off
			for i, x := range origin {
				boff += x * st[o][i]
			}
			lo, hi, _ := spanOf(ext, st[o], boff)
			var base int
			binds[o], base = p.Lim.Window(a.b, lo, hi, o == 0)
			box.Off[o/4][o%4] = int32(boff - base)
		}
		pl.Steps = append(pl.Steps, Dispatch{Kernel: k, Params: box.bytes(), Binds: binds, Grid: p.Lim.Grid((uint64(cnt) + ewWG - 1) / ewWG)})
	})
	return pl, nil
}
