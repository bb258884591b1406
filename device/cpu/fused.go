package cpu

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

// Fused runs a fused elementwise program (device.Program) in cache-sized
// blocks, numexpr style: for each block of fuseBlock consecutive elements
// of the result, every step runs over the block with the same vectorised
// kernels the single operations use, on a per-worker scratch that stays in
// the L1/L2 cache, and the last step writes the result. Each input is read
// once and the output written once, whatever the length of the chain;
// blocks are spread over the cores.
//
// F16 and BF16 programs compute in float32 and round every step's result
// to the dtype, so they give the same values as the single operations.
// Inputs read in place when they are row-major in the result's order, as a
// scalar when every stride is zero, and are gathered into the block
// otherwise. A half-precision program whose every step has one of package
// vec's one-pass kernels (AddHalf, TanhHalf and the rest, which widen,
// compute and narrow each vector) runs as a chain of those kernels on
// 16-bit values, with no float32 block in between: the same bits, fewer
// passes (planChain).
func (d *Device) Fused(dst device.Operand, p device.Program, inputs []device.Operand) error {
	var dsts [1]device.Operand
	var outs [1]int
	dsts[0], outs[0] = dst, len(p.Steps)-1
	return d.fused("Fused", dsts[:], p, outs[:], inputs)
}

// FusedMulti computes several results of one program in one pass
// (device.MultiFuser): dsts[k] receives step outs[k]. It runs as Fused
// does, block by block; a result step is computed straight into its
// destination (or into scratch scattered to it), where the steps after it
// read it, so an optimiser's moments and new value are one pass over the
// memory they read and write.
func (d *Device) FusedMulti(dsts []device.Operand, p device.Program, outs []int, inputs []device.Operand) error {
	if err := p.ValidateOutputs("cpu", outs, len(dsts)); err != nil {
		return err
	}
	return d.fused("FusedMulti", dsts, p, outs, inputs)
}

// fused checks and runs a call of Fused or FusedMulti.
func (d *Device) fused(name string, dsts []device.Operand, p device.Program, outs []int, inputs []device.Operand) error {
	var arr [2 * maxInline]*Buffer
	bufs, err := d.fusedOperands(name, dsts, p, inputs, arr[:0])
	if err != nil {
		return err
	}
	shape := dsts[0].Layout.Shape
	for k, b := range bufs[:len(dsts)] {
		if b.dt != p.DType {
			return errs.New("cpu", name, errs.ErrDType, "destination %d is %v, the program computes %v", k, b.dt, p.DType)
		}
	}
	for k := 1; k < len(dsts)+len(inputs); k++ {
		if o := operandAt(dsts, inputs, k); !slices.Equal(o.Layout.Shape, shape) {
			return errs.New("cpu", name, errs.ErrShape, "operand shapes differ: %v and %v", shape, o.Layout.Shape)
		}
	}
	if dsts[0].Layout.Numel() == 0 {
		return nil
	}
	switch p.DType {
	case dtype.F32:
		fusedInto(p, outs, bufs, dsts, inputs, conv32)
	case dtype.F64:
		fusedInto(p, outs, bufs, dsts, inputs, conv64)
	case dtype.F16:
		fusedInto(p, outs, bufs, dsts, inputs, convF16)
	case dtype.BF16:
		fusedInto(p, outs, bufs, dsts, inputs, convBF16)
	}
	return nil
}

// maxInline is the number of inputs whose tables a fused call keeps on
// the stack; more (which the tensor layer never sends) cost an allocation.
const maxInline = 8

// fusedInto runs p's results outs into the destinations (the first
// len(dsts) of bufs) from the inputs (the rest) as storage type S.
func fusedInto[C vec.Float, S any](p device.Program, outs []int, bufs []*Buffer, dsts, inputs []device.Operand, cv conv[C, S]) {
	var arr [maxInline][]S
	var darr [maxInline][]S
	var larr [maxInline]layout.Layout
	ins, ds, dls := arr[:0], darr[:0], larr[:0]
	for k, b := range bufs[:len(dsts)] {
		ds, dls = append(ds, slice[S](b)), append(dls, dsts[k].Layout)
	}
	for _, b := range bufs[len(dsts):] {
		ins = append(ins, slice[S](b))
	}
	runFused(p, fusedOuts[S]{steps: outs, dst: ds, dl: dls}, ins, inputs, cv)
}

// fusedOperands checks a fused call's operands (the destinations first,
// then the inputs, which must be of the program's dtype and share no
// buffer with a destination or destinations with each other) and the
// program, and returns their buffers appended to bufs.
func (d *Device) fusedOperands(name string, dsts []device.Operand, p device.Program, inputs []device.Operand, bufs []*Buffer) ([]*Buffer, error) {
	for k := range len(dsts) + len(inputs) {
		o := operandAt(dsts, inputs, k)
		b, err := d.operand(name, o)
		if err != nil {
			return nil, err
		}
		for j, prev := range bufs[:min(k, len(dsts))] {
			if b == prev {
				if k < len(dsts) {
					return nil, errs.New("cpu", name, errs.ErrValue, "destinations %d and %d share a buffer", j, k)
				}
				return nil, errs.New("cpu", name, errs.ErrValue, "destination %d shares its buffer with input %d", j, k-len(dsts))
			}
		}
		bufs = append(bufs, b)
	}
	if err := p.Validate("cpu", len(inputs)); err != nil {
		return nil, err
	}
	for i, b := range bufs[len(dsts):] {
		if b.dt != p.DType {
			return nil, errs.New("cpu", name, errs.ErrDType, "input %d is %v, the program computes %v", i, b.dt, p.DType)
		}
	}
	return bufs, nil
}

// operandAt is operand k of dsts followed by inputs.
func operandAt(dsts, inputs []device.Operand, k int) device.Operand {
	if k < len(dsts) {
		return dsts[k]
	}
	return inputs[k-len(dsts)]
}

// conv is how a fused program reads and writes storage type S computing
// in C: load and store convert, and round (nil for F32 and F64) rounds a
// computed value to the dtype after every step. widen, narrow and
// roundRun do the same over contiguous runs with package vec's vector
// kernels (nil for F32 and F64); the methods below pick them where they
// apply. sumRun is rowSum of a run's values in C, read straight from
// storage (a run shorter than rowSum's parallel split). binary and unary,
// where set, return package vec's one-pass kernel for an operation on
// storage values (nil for an operation it has none for): widening, the
// operation and narrowing over each vector, the bits of the three passes
// (a unary kernel takes the binary form's arguments and ignores b).
type conv[C vec.Float, S any] struct {
	load     func(S) C
	store    func(C) S
	round    func(C) C
	widen    func(dst []C, src []S)
	narrow   func(dst []S, src []C)
	roundRun func(x []C)
	sumRun   func(src []S) float64
	binary   func(op device.BinaryOp) func(dst, a, b []S) error
	unary    func(op device.UnaryOp) func(dst, a, b []S) error // b unused
}

var (
	conv32  = conv[float32, float32]{load: ident[float32], store: ident[float32], sumRun: rowSum[float32]}
	conv64  = conv[float64, float64]{load: ident[float64], store: ident[float64], sumRun: rowSum[float64]}
	convF16 = conv[float32, dtype.Float16]{load: dtype.Float16.Float32, store: dtype.F16FromFloat32,
		round:    func(x float32) float32 { return dtype.F16FromFloat32(x).Float32() },
		widen:    func(d []float32, s []dtype.Float16) { _ = vec.Widen(d, s) },
		narrow:   func(d []dtype.Float16, s []float32) { _ = vec.Narrow(d, s) },
		roundRun: func(x []float32) { _ = vec.RoundF16(x, x) },
		sumRun:   func(s []dtype.Float16) float64 { return halfRowSum(s, dtype.Float16.Float32) },
		binary:   halfBinaries[dtype.Float16](),
		unary:    halfUnaries[dtype.Float16]()}
	convBF16 = conv[float32, dtype.BFloat16]{load: dtype.BFloat16.Float32, store: dtype.BF16FromFloat32,
		round:    func(x float32) float32 { return dtype.BF16FromFloat32(x).Float32() },
		widen:    func(d []float32, s []dtype.BFloat16) { _ = vec.Widen(d, s) },
		narrow:   func(d []dtype.BFloat16, s []float32) { _ = vec.Narrow(d, s) },
		roundRun: func(x []float32) { _ = vec.RoundBF16(x, x) },
		sumRun:   func(s []dtype.BFloat16) float64 { return halfRowSum(s, dtype.BFloat16.Float32) },
		binary:   halfBinaries[dtype.BFloat16](),
		unary:    halfUnaries[dtype.BFloat16]()}
)

// halfBinaries returns package vec's one-pass kernels on half values by
// binary operation (nil for an operation it has none for). The tables are
// built once: a generic function taken as a value allocates.
func halfBinaries[H vec.Half]() func(op device.BinaryOp) func(dst, a, b []H) error {
	table := opTable(len(device.BinaryOps()), map[device.BinaryOp]func(dst, a, b []H) error{
		device.Add: vec.AddHalf[H], device.Sub: vec.SubHalf[H], device.Mul: vec.MulHalf[H],
		device.Div: vec.DivHalf[H], device.Maximum: vec.MaximumHalf[H], device.Minimum: vec.MinimumHalf[H],
	})
	return func(op device.BinaryOp) func(dst, a, b []H) error { return table[op] }
}

// halfUnaries is halfBinaries for the unary operations package vec has
// one-pass kernels for, in the binary form (b unused).
func halfUnaries[H vec.Half]() func(op device.UnaryOp) func(dst, a, b []H) error {
	table := opTable(len(device.UnaryOps()), map[device.UnaryOp]func(dst, x []H) error{
		device.Relu: vec.ReluHalf[H], device.Exp: vec.ExpHalf[H], device.Log: vec.LogHalf[H], device.Tanh: vec.TanhHalf[H],
		device.Sigmoid: vec.SigmoidHalf[H], device.GeluTanh: vec.GeluTanhHalf[H], device.Exp2: vec.Exp2Half[H],
		device.GeluErf: vec.GeluErfHalf[H], device.Erf: vec.ErfHalf[H], device.Silu: vec.SiluHalf[H],
		device.Sqrt: vec.SqrtHalf[H], device.Sign: vec.SignHalf[H],
		device.Neg: vec.NegHalf[H], device.Abs: vec.AbsHalf[H], device.Floor: vec.FloorHalf[H], device.Ceil: vec.CeilHalf[H],
		device.Trunc: vec.TruncHalf[H], device.Round: vec.RoundEvenHalf[H], device.Reciprocal: vec.ReciprocalHalf[H],
		device.Rsqrt: vec.RsqrtHalf[H], device.Hardswish: vec.HardswishHalf[H], device.Log2: vec.Log2Half[H], device.Log10: vec.Log10Half[H], device.Log1p: vec.Log1pHalf[H], device.Expm1: vec.Expm1Half[H],
		device.Square: func(dst, x []H) error { return vec.MulHalf(dst, x, x) },
	})
	binary := make([]func(dst, a, b []H) error, len(table))
	for op, f := range table {
		if f != nil {
			binary[op] = func(dst, a, _ []H) error { return f(dst, a) }
		}
	}
	return func(op device.UnaryOp) func(dst, a, b []H) error { return binary[op] }
}

// opTable turns a map from operations to functions into a table indexed
// by the operation, n long (nil where the map has none).
func opTable[O ~uint8, F any](n int, m map[O]F) []F {
	t := make([]F, n)
	for op, f := range m {
		t[op] = f
	}
	return t
}

// halfRowSum is rowSum of src widened to float32 by load, without the
// float32 copy: vec.SumHalf gives Sum's bits of the widened values, and a
// sum that is not finite is redone in float64, as rowSum does.
func halfRowSum[H vec.Half](src []H, load func(H) float32) float64 {
	if s := float64(vec.SumHalf(src)); finite(s) {
		return s
	}
	s := 0.0
	for _, v := range src {
		s += float64(load(v))
	}
	return s
}

// loadRun sets dst[j] to the compute value of src[pos+j*stride]. A source
// of the compute type itself is copied without a call of load per element.
func (cv conv[C, S]) loadRun(dst []C, src []S, pos, stride int) {
	if stride == 1 && cv.widen != nil {
		cv.widen(dst, src[pos:pos+len(dst)])
		return
	}
	if same, ok := any(src).([]C); ok {
		for j := range dst {
			dst[j] = same[pos]
			pos += stride
		}
		return
	}
	for j := range dst {
		dst[j] = cv.load(src[pos])
		pos += stride
	}
}

// storeRun sets dst[pos+j*stride] to src[j] in storage form. A
// destination of the compute type itself is written without a call of
// store per element.
func (cv conv[C, S]) storeRun(dst []S, pos, stride int, src []C) {
	if stride == 1 && cv.narrow != nil {
		cv.narrow(dst[pos:pos+len(src)], src)
		return
	}
	if same, ok := any(dst).([]C); ok {
		for _, v := range src {
			same[pos] = v
			pos += stride
		}
		return
	}
	for _, v := range src {
		dst[pos] = cv.store(v)
		pos += stride
	}
}

// roundAll rounds every element of x to the dtype (nothing for F32 and
// F64).
func (cv conv[C, S]) roundAll(x []C) {
	switch {
	case cv.roundRun != nil:
		cv.roundRun(x)
	case cv.round != nil:
		for k, v := range x {
			x[k] = cv.round(v)
		}
	}
}

func bufSlices[T any](bufs []*Buffer) [][]T {
	out := make([][]T, len(bufs))
	for i, b := range bufs {
		out[i] = slice[T](b)
	}
	return out
}

// fuseBlock is the number of elements a step covers at a time: 2048
// float32 are 8 KiB, so a few live steps stay in the L1 cache.
const fuseBlock = 2048

// computeSteps counts the unary and binary steps of p.
func computeSteps(p device.Program) int {
	n := 0
	for _, s := range p.Steps {
		if s.Kind == device.StepUnary || s.Kind == device.StepBinary {
			n++
		}
	}
	return n
}

// fusedMinParallel is the size below which a program runs on the caller's
// goroutine only: waking another core costs more than it saves.
const fusedMinParallel = 1 << 15

type valKind uint8

const (
	valSlot   valKind = iota // a block in scratch slot slot
	valDirect                // input in, read in place
	valScalar                // the same value for every element
)

// fusedVal says where a step's value lives for the current block.
type fusedVal struct {
	kind valKind
	slot int
	in   int
	s    float64 // valScalar: the value, already rounded to the dtype
}

// fusedPlan is the block-independent part of running a program: where each
// step's value lives and the kernels each step calls.
type fusedPlan[C vec.Float] struct {
	vals   []fusedVal
	slots  int
	direct []bool          // per input: row-major in the result's order
	kern   []*fusedKern[C] // per step, looked up once per call (pointers into the table: one store each, not a copy of five funcs)
	outAt  []int           // per step: 1 + the index of the result it is, 0 for none
	last   []int           // planning tables, kept for reuse
	free   []int
}

// planPools recycle the plans of float32 and float64 programs, so that a
// small realisation allocates no tables.
var planPools = [2]sync.Pool{}

func getPlan[C vec.Float]() *fusedPlan[C] {
	if v, ok := planPools[typeIndex[C]()].Get().(*fusedPlan[C]); ok {
		return v
	}
	return new(fusedPlan[C])
}

func putPlan[C vec.Float](pl *fusedPlan[C]) {
	clear(pl.kern)
	planPools[typeIndex[C]()].Put(pl)
}

func typeIndex[C vec.Float]() int {
	if is32[C]() {
		return 0
	}
	return 1
}

// sized returns s with length n, zeroed, reusing its storage.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// fusedKern holds a step's kernels: the vector ones where vec has them,
// and the per-element forms of the op table's reference otherwise.
type fusedKern[C vec.Float] struct {
	un     func(dst, x []C) error
	unF    func(C) C
	vv     func(dst, a, b []C) error
	vs, sv func(dst, a []C, s C) error
	binF   func(C, C) C
}

// planFused plans p with results outs: each result step is computed into
// its result's block (fusedBlock's res), not into a scratch slot, and is
// kept to the end, as later steps may read it.
func planFused[C vec.Float](pl *fusedPlan[C], p device.Program, outs []int, inputs []device.Operand, roundS func(float64) float64, sameType bool) {
	pl.vals, pl.direct, pl.kern = sized(pl.vals, len(p.Steps)), sized(pl.direct, len(inputs)), sized(pl.kern, len(p.Steps))
	pl.outAt = sized(pl.outAt, len(p.Steps))
	pl.slots = 0
	table := fusedKernels[C]()
	for i, s := range p.Steps {
		switch s.Kind {
		case device.StepUnary:
			pl.kern[i] = &table.unary[s.Unary]
		case device.StepBinary:
			pl.kern[i] = &table.binary[s.Binary]
		}
	}
	for i, in := range inputs {
		pl.direct[i] = sameType && rowMajor(in.Layout)
	}
	pl.last = p.LastUsesInto(pl.last)
	last := pl.last
	for k, o := range outs {
		pl.outAt[o] = k + 1
		last[o] = len(p.Steps)
	}
	free := pl.free[:0]
	defer func() { pl.free = free }()
	alloc := func() int {
		if n := len(free); n > 0 {
			s := free[n-1]
			free = free[:n-1]
			return s
		}
		pl.slots++
		return pl.slots - 1
	}
	release := func(i, at int) {
		if last[i] == at && pl.vals[i].kind == valSlot {
			free = append(free, pl.vals[i].slot)
		}
	}
	for i, s := range p.Steps {
		v := &pl.vals[i]
		switch s.Kind {
		case device.StepInput:
			in := inputs[s.Input].Layout
			switch {
			case allZero(in.Strides):
				v.kind, v.in = valScalar, s.Input // read once per call
			case pl.direct[s.Input]:
				v.kind, v.in = valDirect, s.Input
			case pl.outAt[i] > 0: // gathered straight into its result
				v.kind, v.in, v.slot = valSlot, s.Input, -1
			default:
				v.kind, v.in, v.slot = valSlot, s.Input, alloc()
			}
		case device.StepConst:
			v.kind, v.s = valScalar, roundS(s.Const)
		case device.StepUnary:
			if pl.vals[s.A].kind == valScalar {
				v.kind = valScalar
				break
			}
			release(s.A, i) // in place when this is the operand's last use
			v.kind, v.slot = valSlot, pl.slotFor(i, alloc)
		case device.StepBinary:
			if pl.vals[s.A].kind == valScalar && pl.vals[s.B].kind == valScalar {
				v.kind = valScalar
				break
			}
			release(s.A, i)
			if s.B != s.A {
				release(s.B, i)
			}
			v.kind, v.slot = valSlot, pl.slotFor(i, alloc)
		}
	}
}

// slotFor returns the scratch slot of step i: none (-1) for a result,
// which is computed into its result's block.
func (pl *fusedPlan[C]) slotFor(i int, alloc func() int) int {
	if pl.outAt[i] > 0 {
		return -1
	}
	return alloc()
}

// rowMajor reports whether l's elements sit in row-major order without
// gaps (from any offset), ignoring the strides of extent-1 axes.
func rowMajor(l layout.Layout) bool {
	want := 1
	for i := l.Rank() - 1; i >= 0; i-- {
		if d := l.Shape[i]; d > 1 {
			if l.Strides[i] != want {
				return false
			}
			want *= d
		}
	}
	return true
}

// kernelTable holds, per op, a fused step's kernels for one compute type,
// and the element rule for what they do not cover, built once: looking
// them up per call would allocate (fused steps and the unfused float
// operations both read it).
type kernelTable[C vec.Float] struct {
	unary  []fusedKern[C]
	binary []fusedKern[C]
}

var (
	kernels32 = newKernelTable[float32]()
	kernels64 = newKernelTable[float64]()
)

func newKernelTable[C vec.Float]() *kernelTable[C] {
	t := &kernelTable[C]{}
	for _, op := range device.UnaryOps() {
		t.unary = append(t.unary, fusedKern[C]{un: unaryKernel[C](op), unF: floatUnary[C](op)})
	}
	for _, op := range device.BinaryOps() {
		k := fusedKern[C]{binF: floatBinary[C](op)} // for the forms and strides without a kernel
		k.vv, k.vs, k.sv = binaryKernels[C](op)
		t.binary = append(t.binary, k)
	}
	return t
}

func fusedKernels[C vec.Float]() *kernelTable[C] {
	if is32[C]() {
		return any(kernels32).(*kernelTable[C])
	}
	return any(kernels64).(*kernelTable[C])
}

func allZero(s []int) bool {
	for _, v := range s {
		if v != 0 {
			return false
		}
	}
	return true
}

// scratchPool recycles the per-worker blocks of float32 and float64.
var scratchPool = [2]sync.Pool{}

func getScratch[C vec.Float](n int) *[]C {
	k := 0
	if !is32[C]() {
		k = 1
	}
	if v, ok := scratchPool[k].Get().(*[]C); ok && cap(*v) >= n {
		*v = (*v)[:n]
		return v
	}
	s := make([]C, n)
	return &s
}

func putScratch[C vec.Float](s *[]C) {
	k := 0
	if !is32[C]() {
		k = 1
	}
	scratchPool[k].Put(s)
}

func is32[C vec.Float]() bool {
	var z C
	return any(z) == any(float32(0))
}

// newFusedPlan plans p over inputs (storage ins) and computes its scalar
// values: constants, zero-stride inputs, and steps on scalars, once per
// call in float64 and rounded like the kernels.
//
// Hand the plan back with putPlan when the program has run.
func newFusedPlan[C vec.Float, S any](p device.Program, outs []int, ins [][]S, inputs []device.Operand, cv conv[C, S]) *fusedPlan[C] {
	roundS := func(x float64) float64 {
		if cv.round == nil {
			return float64(C(x))
		}
		return float64(cv.round(C(x)))
	}
	pl := getPlan[C]()
	planFused(pl, p, outs, inputs, roundS, cv.round == nil)
	for i, s := range p.Steps {
		v := &pl.vals[i]
		if v.kind != valScalar {
			continue
		}
		switch s.Kind {
		case device.StepInput:
			v.s = float64(cv.load(ins[s.Input][inputs[s.Input].Layout.Offset]))
		case device.StepUnary:
			def, _ := s.Unary.Def()
			v.s = roundS(def.F64(pl.vals[s.A].s))
		case device.StepBinary:
			def, _ := s.Binary.Def()
			v.s = roundS(def.F64(pl.vals[s.A].s, pl.vals[s.B].s))
		}
	}
	return pl
}

// fusedOuts are the results of a fused call: step steps[k] goes to
// dst[k] (storage) through layout dl[k].
type fusedOuts[S any] struct {
	steps []int
	dst   [][]S
	dl    []layout.Layout
}

// runFused evaluates p block by block into the results outs. S is the
// storage type, C the compute type (see conv).
func runFused[C vec.Float, S any](p device.Program, outs fusedOuts[S], ins [][]S, inputs []device.Operand, cv conv[C, S]) {
	n := outs.dl[0].Numel()
	workers := 1
	if n >= fusedMinParallel {
		workers = min(runtime.GOMAXPROCS(0), (n+fuseBlock-1)/fuseBlock)
	}
	if ch := getChain[S](); ch != nil {
		defer chainPool[S]().Put(ch)
		if planChain(ch, p, outs, ins, inputs, cv) {
			// Every step has a one-pass kernel on half values: each step
			// reads and writes 16-bit values, with no float32 block between
			// steps; a result is stored as a step rounds it, so the bits are
			// those of the blocked path.
			f := fusedRun[C, S]{n: n, block: fuseBlock, workers: workers, chain: ch}
			if len(outs.steps) == 1 && ch.steps == 1+ch.sources {
				f.block = (n + workers - 1) / workers // one kernel call per worker where nothing cuts the runs
			}
			f.nblocks = (n + f.block - 1) / f.block
			f.start(ins, outs)
			return
		}
	}
	sameType := cv.round == nil
	pl := newFusedPlan(p, outs.steps, ins, inputs, cv)
	defer putPlan(pl)
	var direct uint64 // bit k: result k is written in place
	for k, l := range outs.dl {
		if sameType && rowMajor(l) && k < 64 {
			direct |= 1 << k
		}
	}
	block := min(fuseBlock, n)
	if len(outs.steps) == 1 && pl.slots == 0 && direct == 1 && computeSteps(p) == 1 {
		// One operation on operands read and written in place: each
		// worker's whole range is one kernel call, which streams large
		// results past the cache with non-temporal stores as the unfused
		// operation does.
		block = (n + workers - 1) / workers
	}
	nblocks := (n + block - 1) / block
	// Each worker takes a contiguous run of blocks, so every core streams
	// through its own part of memory (blocks claimed in turn from a shared
	// counter interleave the cores' accesses and cost bandwidth). A worker
	// that finishes its run takes the blocks another has not started yet,
	// from the front of that run: on a machine shared with other work, a
	// worker whose core is busy, or whose goroutine is slow to start, no
	// longer holds the realisation up by its whole share.
	f := fusedRun[C, S]{p: p, pl: pl, inputs: inputs, cv: cv,
		n: n, block: block, nblocks: nblocks, workers: workers, direct: direct}
	f.start(ins, outs)
}

// start runs f's workers: on the caller's goroutine when there is one.
func (f fusedRun[C, S]) start(ins [][]S, outs fusedOuts[S]) {
	if f.workers == 1 {
		f.worker(0, ins, outs) // no closure, no goroutine: a small realisation allocates nothing here
		return
	}
	f.runs = splitRuns(f.nblocks, f.workers)
	// These escape to the workers; f, ins and outs stay on the stack.
	g, insH := f, slices.Clone(ins)
	outsH := fusedOuts[S]{steps: slices.Clone(outs.steps), dst: slices.Clone(outs.dst), dl: slices.Clone(outs.dl)}
	par.RunClaimed(f.workers, func(w int) { g.worker(w, insH, outsH) })
}

// halfSource is where an input or constant of a program run on 16-bit
// values (halfChain) reads a run of the result's elements: in place from
// storage row-major in the result's order, row by row from storage contiguous
// along the last axis only (a bias row broadcast over a batch, a narrowed
// view), or from a block filled with a constant (a StepConst, an input
// broadcast from one element).
type halfSource[S any] struct {
	data  []S // nil for a constant
	l     layout.Layout
	rows  bool
	konst S
}

// minHalfRow is the shortest last axis read row by row: a kernel call per
// shorter row costs more than the blocked path's gather.
const minHalfRow = 32

// maxChain is the longest program halfChain runs.
const maxChain = 16

// halfChain is a half-precision program planned for package vec's
// one-pass kernels: per program step, an input's or constant's source, or
// a compute step's kernel and operands.
type halfChain[S any] struct {
	steps, sources int
	src            [maxChain]halfSource[S]
	kernel         [maxChain]func(dst, a, b []S) error
	a, b           [maxChain]int // operand steps; b is -1 for a unary step
	outAt          [maxChain]int // 1 + the result the step is, 0 for none
	rows           bool          // a source is read row by row
}

// needsBlock reports whether step i's values live in a 16-bit block of
// chainWorker's: a constant, or a compute step that is not a result.
func (ch *halfChain[S]) needsBlock(i int) bool {
	if ch.kernel[i] != nil {
		return ch.outAt[i] == 0
	}
	return ch.src[i].data == nil
}

// chainPools recycle the plans of bf16 and f16 programs (a halfChain is
// a few KiB), so that a realisation allocates none.
var chainPools = [2]sync.Pool{
	{New: func() any { return new(halfChain[dtype.BFloat16]) }},
	{New: func() any { return new(halfChain[dtype.Float16]) }},
}

// chainPool returns the pool of plans over storage type S (nil for a type
// without one-pass kernels).
func chainPool[S any]() *sync.Pool {
	switch any(*new(S)).(type) {
	case dtype.BFloat16:
		return &chainPools[0]
	case dtype.Float16:
		return &chainPools[1]
	}
	return nil
}

// getChain returns a cleared plan over S from its pool, nil for a storage
// type without one-pass kernels.
func getChain[S any]() *halfChain[S] {
	p := chainPool[S]()
	if p == nil {
		return nil
	}
	ch := p.Get().(*halfChain[S])
	*ch = halfChain[S]{}
	return ch
}

// planChain fills ch for p with results outs and reports whether the
// chain can run it: at most maxChain steps, every result row-major, every
// input a halfSource, every compute step one of cv's one-pass kernels on
// at least one operand that is not a constant.
func planChain[C vec.Float, S any](ch *halfChain[S], p device.Program, outs fusedOuts[S], ins [][]S, inputs []device.Operand, cv conv[C, S]) bool {
	if cv.binary == nil || len(p.Steps) > maxChain {
		return false
	}
	for _, l := range outs.dl {
		if !rowMajor(l) {
			return false
		}
	}
	var konst [maxChain]bool // the step's value is the same for every element
	ch.steps = len(p.Steps)
	for i, s := range p.Steps {
		h := &ch.src[i]
		switch s.Kind {
		case device.StepConst:
			h.konst, konst[i] = cv.store(C(s.Const)), true
			ch.sources++
		case device.StepInput:
			l := inputs[s.Input].Layout
			r := l.Rank()
			switch {
			case allZero(l.Strides):
				h.konst, konst[i] = ins[s.Input][l.Offset], true
			case rowMajor(l):
				h.data, h.l = ins[s.Input], l
			case r > 0 && l.Strides[r-1] == 1 && l.Shape[r-1] >= minHalfRow:
				h.data, h.l, h.rows = ins[s.Input], l, true
				ch.rows = true
			default:
				return false
			}
			ch.sources++
		case device.StepUnary:
			ch.kernel[i], ch.a[i], ch.b[i] = cv.unary(s.Unary), s.A, -1
			if ch.kernel[i] == nil || konst[s.A] {
				return false
			}
		case device.StepBinary:
			ch.kernel[i], ch.a[i], ch.b[i] = cv.binary(s.Binary), s.A, s.B
			if ch.kernel[i] == nil || konst[s.A] && konst[s.B] {
				return false
			}
		}
	}
	for k, o := range outs.steps {
		ch.outAt[o] = k + 1
	}
	return true
}

// halfScratch recycles chainWorker's 16-bit blocks: constants and the
// values of steps that are not results.
var halfScratch = sync.Pool{New: func() any { return new([]uint16) }}

// chainWorker is worker for a program on 16-bit values (halfChain): each
// block is cut into runs that no row of a row-by-row source and no
// constant block crosses, and each step is one kernel call on each run,
// from its operands' values (a source's run, a constant block, an earlier
// step's scratch or result) into its scratch or its result.
func (f *fusedRun[C, S]) chainWorker(w int, outs fusedOuts[S]) {
	ch := f.chain
	// The steps that need a 16-bit block (a constant, a step that is not a
	// result) take one of fuseBlock values each, from one pooled slice (S
	// is a 16-bit type: only half programs have one-pass kernels); without
	// any, a run is the whole block.
	var blk [maxChain][]S
	need, run := 0, min(fuseBlock, f.block)
	for i := range ch.steps {
		if ch.needsBlock(i) {
			need += run
		}
	}
	if need == 0 {
		run = f.block
	} else {
		sp := halfScratch.Get().(*[]uint16)
		defer halfScratch.Put(sp)
		if cap(*sp) < need {
			*sp = make([]uint16, need)
		}
		all := unsafe.Slice((*S)(unsafe.Pointer(unsafe.SliceData(*sp))), need)
		for i := range ch.steps {
			if ch.needsBlock(i) {
				blk[i], all = all[:run:run], all[run:]
			}
			if ch.kernel[i] == nil && ch.src[i].data == nil {
				for k := range blk[i] {
					blk[i][k] = ch.src[i].konst
				}
			}
		}
	}
	c := 1 // the row length
	if ld := outs.dl[0]; ld.Rank() > 0 {
		c = ld.Shape[ld.Rank()-1]
	}
	var vals [maxChain][]S
	blocks := f.blocks(w)
	for b, ok := blocks.next(); ok; b, ok = blocks.next() {
		lo := b * f.block
		for i, end := lo, min(lo+f.block, f.n); i < end; {
			m := min(end-i, run)
			if ch.rows {
				m = min(m, c-i%c)
			}
			for s := range ch.steps {
				h := &ch.src[s]
				switch {
				case ch.kernel[s] != nil:
					var out []S
					if o := ch.outAt[s] - 1; o >= 0 {
						off := outs.dl[o].Offset + i
						out = outs.dst[o][off : off+m]
					} else {
						out = blk[s][:m]
					}
					var b []S
					if ch.b[s] >= 0 {
						b = vals[ch.b[s]]
					}
					_ = ch.kernel[s](out, vals[ch.a[s]], b)
					vals[s] = out
				case h.data == nil:
					vals[s] = blk[s][:m]
				case h.rows:
					p := rowStart(h.l, i/c) + i%c
					vals[s] = h.data[p : p+m]
				default:
					vals[s] = h.data[h.l.Offset+i : h.l.Offset+i+m]
				}
			}
			i += m
		}
	}
}

// rowStart returns the storage position of the first element of row r of
// l, the rows being l's last axis and r counting them in row-major order.
func rowStart(l layout.Layout, r int) int {
	pos := l.Offset
	for a := l.Rank() - 2; a >= 0 && r > 0; a-- {
		pos += r % l.Shape[a] * l.Strides[a]
		r /= l.Shape[a]
	}
	return pos
}

// blockRun is one worker's run of blocks [next, end), claimed a few
// blocks at a time by its owner and, once the owner's own run is done, by
// the others. The padding keeps two runs' counters off one cache line.
type blockRun struct {
	next atomic.Int64
	end  int64
	_    [48]byte
}

// splitRuns cuts nblocks blocks into one contiguous run per worker.
func splitRuns(nblocks, workers int) []blockRun {
	runs := make([]blockRun, workers)
	for w := range runs {
		runs[w].next.Store(int64(nblocks * w / workers))
		runs[w].end = int64(nblocks * (w + 1) / workers)
	}
	return runs
}

// claimBlocks is the most blocks one claim takes. A claim is a locked
// instruction, which waits for every store before it to leave the core:
// claimed one at a time, the 2048-element blocks of a CNN training step's
// elementwise programs spent 4.6 % of the step's CPU samples in their
// claims, about 3 % more than in chunks (docs/benchmarks.md, 2026-12-06).
const claimBlocks = 8

// claimChunk claims the next blocks [lo, hi) for worker w: from its own
// run first, else from the first other run with blocks left; at most
// claimBlocks and at most half of what is left of the run (at least one),
// so that the last blocks are still shared out finely. false when every
// block is taken.
func claimChunk(runs []blockRun, w int) (lo, hi int, ok bool) {
	for v := range runs {
		r := &runs[(w+v)%len(runs)]
		for {
			next := r.next.Load()
			left := r.end - next
			if left <= 0 {
				break
			}
			take := min(claimBlocks, max(1, left/2))
			if r.next.CompareAndSwap(next, next+take) {
				return int(next), int(next + take), true
			}
		}
	}
	return 0, 0, false
}

// blockClaimer hands one worker its blocks in order, claiming them a chunk
// at a time (claimChunk); with no runs (one worker) it hands out [0,
// nblocks) without claims. Fused programs and AdamStep split their work
// this way.
type blockClaimer struct {
	runs    []blockRun
	w       int
	cur, hi int
}

// newBlockClaimer returns worker w's claimer over runs, or over [0,
// nblocks) when runs is nil.
func newBlockClaimer(runs []blockRun, w, nblocks int) blockClaimer {
	if runs == nil {
		return blockClaimer{hi: nblocks}
	}
	return blockClaimer{runs: runs, w: w}
}

// next returns the worker's next block; false when none is left.
func (c *blockClaimer) next() (int, bool) {
	if c.cur >= c.hi {
		lo, hi, ok := claimChunk(c.runs, c.w)
		if !ok {
			return 0, false
		}
		c.cur, c.hi = lo, hi
	}
	c.cur++
	return c.cur - 1, true
}

// fusedRun is one call of runFused, split over workers.
type fusedRun[C vec.Float, S any] struct {
	p                          device.Program
	pl                         *fusedPlan[C]
	inputs                     []device.Operand
	cv                         conv[C, S]
	n, block, nblocks, workers int
	direct                     uint64     // bit k: result k is row-major in the compute type, written in place
	runs                       []blockRun // per worker, when there are several
	// chain, where set, runs the program on 16-bit values with one-pass
	// kernel calls (planChain, chainWorker).
	chain *halfChain[S]
}

// blocks returns worker w's claimer of blocks.
func (f *fusedRun[C, S]) blocks(w int) blockClaimer {
	return newBlockClaimer(f.runs, w, f.nblocks)
}

// worker evaluates worker w's contiguous run of blocks, then any block of
// the others' runs not yet started (claim), reading the inputs' storage
// ins and writing the results outs.
func (f *fusedRun[C, S]) worker(w int, ins [][]S, outs fusedOuts[S]) {
	if f.chain != nil {
		f.chainWorker(w, outs)
		return
	}
	pl, block := f.pl, f.block
	slots := pl.slots
	for k := range outs.steps {
		if f.direct&(1<<k) == 0 {
			slots++ // a result scattered into its destination after each block
		}
	}
	scratch := getScratch[C](slots * block)
	defer putScratch(scratch)
	slot := func(k, m int) []C { return (*scratch)[k*block : k*block+m] }
	var arr [maxInline][]C
	res := arr[:0]
	if len(outs.steps) > len(arr) {
		res = make([][]C, 0, len(outs.steps))
	}
	blocks := f.blocks(w)
	for b, ok := blocks.next(); ok; b, ok = blocks.next() {
		lo := b * block
		m := min(block, f.n-lo)
		res, extra := res[:0], pl.slots
		for k := range outs.steps {
			if f.direct&(1<<k) != 0 {
				off := outs.dl[k].Offset + lo
				res = append(res, any(outs.dst[k]).([]C)[off:off+m])
			} else {
				res = append(res, slot(extra, m))
				extra++
			}
		}
		fusedBlock(f.p, pl, ins, f.inputs, lo, m, slot, res, f.cv, true)
		for k := range outs.steps {
			if f.direct&(1<<k) == 0 {
				scatter(outs.dst[k], outs.dl[k], lo, res[k], f.cv)
			}
		}
	}
}

// fusedBlock computes elements [lo, lo+m) of the results into res (res[k]
// of length m for the plan's k-th result). stored says that every result
// goes to storage of the program's dtype: then the last step, which no
// step reads, is not rounded here, since storing it rounds it the same.
func fusedBlock[C vec.Float, S any](p device.Program, pl *fusedPlan[C], ins [][]S, inputs []device.Operand, lo, m int,
	slot func(k, m int) []C, res [][]C, cv conv[C, S], stored bool) {
	val := func(i int) []C {
		v := pl.vals[i]
		switch {
		case v.kind == valDirect:
			in := inputs[v.in].Layout
			return any(ins[v.in]).([]C)[in.Offset+lo : in.Offset+lo+m]
		case pl.outAt[i] > 0:
			return res[pl.outAt[i]-1]
		}
		return slot(v.slot, m)
	}
	for i, s := range p.Steps {
		v := pl.vals[i]
		o := pl.outAt[i] - 1
		var out []C
		switch {
		case o >= 0:
			out = res[o]
		case v.kind == valSlot:
			out = slot(v.slot, m)
		}
		switch {
		case v.kind == valScalar:
			if o >= 0 {
				for k := range out {
					out[k] = C(v.s)
				}
			}
			continue
		case s.Kind == device.StepInput:
			if v.kind == valSlot {
				gather(out, ins[v.in], inputs[v.in].Layout, lo, cv)
			} else if o >= 0 {
				copy(out, val(i))
			}
			continue
		case s.Kind == device.StepUnary:
			pl.kern[i].unary(out, val(s.A))
		case s.Kind == device.StepBinary:
			a, b := pl.vals[s.A], pl.vals[s.B]
			switch {
			case b.kind == valScalar:
				pl.kern[i].scalar(out, val(s.A), C(b.s), false)
			case a.kind == valScalar:
				pl.kern[i].scalar(out, val(s.B), C(a.s), true)
			default:
				pl.kern[i].binary(out, val(s.A), val(s.B))
			}
		}
		if !stored || i < len(p.Steps)-1 {
			cv.roundAll(out)
		}
	}
}

func (k *fusedKern[C]) unary(out, x []C) {
	if k.un != nil {
		_ = k.un(out, x)
		return
	}
	for i, v := range x {
		out[i] = k.unF(v)
	}
}

func (k *fusedKern[C]) binary(out, a, b []C) {
	if k.vv != nil {
		_ = k.vv(out, a, b)
		return
	}
	for i := range out {
		out[i] = k.binF(a[i], b[i])
	}
}

// scalar computes out = a op s, or s op a when reversed.
func (k *fusedKern[C]) scalar(out, a []C, s C, reversed bool) {
	switch {
	case reversed && k.sv != nil:
		_ = k.sv(out, a, s)
	case !reversed && k.vs != nil:
		_ = k.vs(out, a, s)
	case reversed:
		for i := range out {
			out[i] = k.binF(s, a[i])
		}
	default:
		for i := range out {
			out[i] = k.binF(a[i], s)
		}
	}
}

// gather reads elements [lo, lo+len(out)) (in row-major order of l's
// shape) of the view l of src into out, a run along the innermost axis at
// a time: a broadcast run is one value repeated, a contiguous run of the
// compute type one copy (a bias row, a narrowed view), of a half type one
// vector conversion.
func gather[C vec.Float, S any](out []C, src []S, l layout.Layout, lo int, cv conv[C, S]) {
	var sarr, tarr [8]int
	l = l.Merged(sarr[:0], tarr[:0])
	if gatherRepeated(out, src, l, lo, cv) {
		return
	}
	same, isSame := any(src).([]C)
	walkRuns(l, lo, len(out), func(k, pos, cnt, stride int) {
		o := out[k : k+cnt]
		switch {
		case stride == 0 && cnt >= minFillRun:
			fillRow(o, cv.load(src[pos]))
		case stride == 0:
			v := cv.load(src[pos])
			for j := range o {
				o[j] = v
			}
		case stride == 1 && isSame:
			copy(o, same[pos:pos+cnt])
		default:
			cv.loadRun(o, src, pos, stride)
		}
	})
}

// minFillRun is the shortest broadcast run gather writes with fillRow
// (memmove's doublings) rather than a loop storing one element at a time:
// a convolution's bias spread over its 784-pixel planes had taken 3.8 %
// of a CNN training step's CPU samples in that loop.
const minFillRun = 32

// maxRepeat is the longest broadcast innermost axis gatherRepeated takes:
// longer ones make runs long enough for gather's own walk.
const maxRepeat = 8

// gatherRepeated is gather for a merged view (layout.Layout.Merged)
// whose innermost axis is a short broadcast one, each element of the axis
// above repeated rep times (a pooling tile's maximum spread over the
// tile): it walks the view without that axis and writes each element rep
// times, where gather's walk would make a run, and a call, of every rep
// elements. It reports false, doing nothing, for other views and for
// ranges that do not start and end on a whole repeat.
func gatherRepeated[C vec.Float, S any](out []C, src []S, l layout.Layout, lo int, cv conv[C, S]) bool {
	shape, strides := l.Shape, l.Strides
	r := len(shape)
	if r < 2 || strides[r-1] != 0 || shape[r-1] > maxRepeat {
		return false
	}
	rep := shape[r-1]
	if lo%rep != 0 || len(out)%rep != 0 {
		return false
	}
	above := layout.Layout{Shape: shape[:r-1], Strides: strides[:r-1], Offset: l.Offset}
	walkRuns(above, lo/rep, len(out)/rep, func(k, pos, cnt, stride int) {
		o := out[k*rep : (k+cnt)*rep]
		for e := range cnt {
			v := cv.load(src[pos+e*stride])
			for t := range o[e*rep : (e+1)*rep] {
				o[e*rep+t] = v
			}
		}
	})
	return true
}

// scatter writes res to elements [lo, lo+len(res)) of the view l of dst,
// a run along the innermost axis at a time.
func scatter[C vec.Float, S any](dst []S, l layout.Layout, lo int, res []C, cv conv[C, S]) {
	var sarr, tarr [8]int
	l = l.Merged(sarr[:0], tarr[:0])
	same, isSame := any(dst).([]C)
	walkRuns(l, lo, len(res), func(k, pos, cnt, stride int) {
		r := res[k : k+cnt]
		if stride == 1 && isSame {
			copy(same[pos:pos+cnt], r)
			return
		}
		cv.storeRun(dst, pos, stride, r)
	})
}

// walkRuns calls fn(k, position, count, stride) for runs covering the n
// consecutive elements of l from flat index lo, each along l's innermost
// axis: the k-th element of the range sits at position, the next count-1
// at stride steps after it. An odometer steps over the outer axes. Its
// callers hand it a merged view (layout.Layout.Merged), whose runs are as
// long as the view's contiguous stretches, not as short as its last
// extent.
func walkRuns(l layout.Layout, lo, n int, fn func(k, pos, cnt, stride int)) {
	if n <= 0 {
		return // nothing to walk (and an empty view has no index to unravel)
	}
	var iarr [8]int
	shape, strides := l.Shape, l.Strides
	r := len(shape)
	if r == 0 {
		fn(0, l.Offset, 1, 0)
		return
	}
	idx := iarr[:0]
	if r > len(iarr) {
		idx = make([]int, r)
	} else {
		idx = iarr[:r]
	}
	pos := l.Offset
	rem := lo
	for a := r - 1; a >= 0; a-- {
		idx[a] = rem % shape[a]
		rem /= shape[a]
		pos += idx[a] * strides[a]
	}
	inner, is := shape[r-1], strides[r-1]
	for k := 0; k < n; {
		cnt := min(inner-idx[r-1], n-k)
		fn(k, pos, cnt, is)
		k += cnt
		if k == n {
			return
		}
		pos -= idx[r-1] * is
		idx[r-1] = 0
		for a := r - 2; a >= 0; a-- {
			idx[a]++
			pos += strides[a]
			if idx[a] < shape[a] {
				break
			}
			pos -= shape[a] * strides[a]
			idx[a] = 0
		}
	}
}
