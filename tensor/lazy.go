package tensor

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Lazy elementwise execution.
//
// A float elementwise operation (unary, binary arithmetic, the Scalar
// forms, Clamp) does not run when it is called: it validates its operands
// as always (shape, dtype, device errors are returned at once) and returns
// a pending tensor that records the operation and its operands. Pending
// tensors chain into a graph, which is realised, as one fused kernel, when
// something needs its values: any other operation (matmul, reduce, views,
// Cast, comparisons...), readback, To, Err, printing, or a size budget
// (maxGraphSteps steps or maxGraphInputs distinct inputs), which keeps a
// loop of ten thousand operations from building one enormous graph. The
// graph reads each input once and writes only its result; intermediate
// tensors are never allocated. A view of a pending tensor realises it
// first. A pending tensor shared by goroutines is realised once: the first
// to need it computes, the others wait and share its result or error.
//
// Inputs are held by leaf handles that keep a reference to their storage,
// so releasing an input before the result is realised is safe.
// TESSERA_FUSION=0 turns recording off: every operation runs at once, as
// one backend call, which is the baseline the fused path is measured and
// tested against.

// Budgets of one graph: steps bound the work of a realisation and the
// depth of the flattening walk; inputs bound the storage bindings of a
// fused GPU kernel (a WebGPU stage has at least 8; one goes to the output
// and one to the parameters).
const (
	maxGraphSteps  = 64
	maxGraphInputs = 6
)

var fusionOn atomic.Bool

func init() { fusionOn.Store(os.Getenv("TESSERA_FUSION") != "0") }

// lazyState is the recording of a pending tensor, embedded in Tensor. dev
// and dt are set once at recording (a non-nil dev marks a lazy tensor);
// everything else is guarded by mu until done is set.
//
// The fields are ordered to pack: a Tensor is allocated for every recorded
// operation, and its size class is most of what recording costs the
// allocator and the collector.
type lazyState struct {
	dev device.Device
	dt  dtype.DType
	// dropped: released and forgotten before being realised (a pending
	// graph can only reach it through a use that raced with Release)
	dropped bool
	nleaf   uint8       // inputs held inline in leaves
	done    atomic.Bool // realised (st or err set)
	steps   int32       // an upper bound on the graph's steps other than inputs, for the budget

	mu    sync.Mutex
	n     node  // the operation; cleared when realised or dropped
	err   error // the realisation error, if any
	users atomic.Int64
	// The graph's distinct inputs: up to two inline (most graphs, and no
	// allocation), more in an immutable set shared along a chain that adds
	// none.
	leaves [2]*leafHandle
	more   *leafSet
}

// inputs returns the distinct inputs of t's graph (t pending).
func (lz *lazyState) inputs() []*leafHandle {
	if lz.more != nil {
		return lz.more.h[:lz.more.n]
	}
	return lz.leaves[:lz.nleaf]
}

// node is one recorded operation. Each operand is either a pending tensor
// of the same shape (t) or a realised input (h), read through its layout
// broadcast to the node's shape.
type node struct {
	kind   device.StepKind
	unary  device.UnaryOp
	binary device.BinaryOp
	ops    [2]operandRef
}

// useOperands and unuseOperands count n as a reader of its operands, or
// stop counting it.
func (n *node) useOperands() {
	for _, ref := range n.ops {
		switch {
		case ref.t != nil:
			ref.t.use()
		case ref.h != nil:
			ref.h.use()
		}
	}
}

func (n *node) unuseOperands() {
	for _, ref := range n.ops {
		switch {
		case ref.t != nil:
			ref.t.unuse()
		case ref.h != nil:
			ref.h.unuse()
		}
	}
}

type operandRef struct {
	t *Tensor     // pending operand
	h *leafHandle // realised operand
	c float64     // with neither t nor h, the constant c (the Scalar forms)
}

// isConst reports whether an operand in use is the constant c.
func (r *operandRef) isConst() bool { return r.t == nil && r.h == nil }

// leafHandle holds one storage reference for the pending graphs that read
// a realised tensor, so the tensor may be released before they are
// realised. A tensor caches its handle (for its own layout). The reference
// is dropped as soon as the tensor is released and no pending node uses
// the handle (counted in users), or else, for storage that must be freed,
// when the handle is collected (heldRef).
type leafHandle struct {
	st        *storage
	lay       layout.Layout
	users     atomic.Int64
	ownerGone atomic.Bool
	ref       *heldRef
}

// heldRef is a storage reference dropped exactly once, by whichever comes
// first: the deterministic path or, for storage that must be freed (a
// GPU's), the collector. Storage the collector reclaims itself (the CPU's)
// has no collector path, as wrap explains: a handle collected undropped
// leaves its count high, and the storage goes with its last reference.
type heldRef struct {
	st   *storage
	held atomic.Bool
}

func newHeldRef(st *storage) *heldRef {
	r := &heldRef{st: st}
	r.held.Store(true)
	return r
}

func (r *heldRef) drop() {
	if r.held.CompareAndSwap(true, false) {
		r.st.release()
	}
}

func (h *leafHandle) use() { h.users.Add(1) }

func (h *leafHandle) unuse() {
	if h.users.Add(-1) == 0 && h.ownerGone.Load() {
		h.ref.drop()
	}
}

// orphan is called when the handle's tensor is released.
func (h *leafHandle) orphan() {
	h.ownerGone.Store(true)
	if h.users.Load() == 0 {
		h.ref.drop()
	}
}

// leafOf returns t's handle (t realised and checked), creating it once.
func (t *Tensor) leafOf() (*leafHandle, error) {
	if h := t.leaf.Load(); h != nil {
		return h, nil
	}
	if !t.st.acquire() {
		return nil, errs.New("tensor", "leaf", errs.ErrReleased, "tensor storage was released")
	}
	h := &leafHandle{st: t.st, lay: t.lay, ref: newHeldRef(t.st)}
	if !collected(t.st) {
		runtime.AddCleanup(h, (*heldRef).drop, h.ref)
	}
	if !t.leaf.CompareAndSwap(nil, h) {
		h.ref.drop() // another goroutine won
		return t.leaf.Load(), nil
	}
	return h, nil
}

// use and unuse count the pending nodes that read a pending tensor; a
// released pending tensor drops its own node when the count reaches zero.
func (t *Tensor) use() { t.lz.users.Add(1) }

func (t *Tensor) unuse() {
	if t.lz.users.Add(-1) == 0 && t.released.Load() {
		t.dropNode()
	}
}

// dropNode forgets t's operation (t realised, or released with no pending
// reader): its operands' counts go down, which may free their storage.
func (t *Tensor) dropNode() {
	t.lz.mu.Lock()
	n := t.lz.n
	t.lz.n = node{}
	t.lz.dropped = !t.lz.done.Load()
	t.lz.mu.Unlock()
	n.unuseOperands()
}

// isLazy reports whether t was recorded rather than computed (realised or
// not).
func (t *Tensor) isLazy() bool { return t.lz.dev != nil }

// fusible reports whether an elementwise operation on dtype dt may be
// recorded: fusion is on and dt is a float dtype.
func fusible(dt dtype.DType) bool { return fusionOn.Load() && dt.IsFloat() }

// operandFor prepares x as an operand of a node of shape: a pending tensor
// of that shape stays pending, anything else is realised (a pending
// operand that must broadcast, too) and read through a leaf handle. It
// returns the operand's step count other than inputs (0 for an input,
// which the budget counts once per distinct input).
func operandFor(op string, x *Tensor, shape []int) (operandRef, int, error) {
	if x.isLazy() && !x.lz.done.Load() && slices.Equal(x.lay.Shape, shape) {
		return operandRef{t: x}, int(x.lz.steps), nil
	}
	if err := x.check(op); err != nil {
		return operandRef{}, 0, err
	}
	h, err := x.leafOf()
	if err != nil {
		return operandRef{}, 0, errs.Retag("tensor", op, err)
	}
	return operandRef{h: h}, 0, nil
}

// leafSet is the set of distinct inputs of a graph, at most maxGraphInputs.
type leafSet struct {
	h [maxGraphInputs]*leafHandle
	n int
}

// add merges in one input; false when the set would overflow.
func (s *leafSet) add(h *leafHandle) bool {
	for _, x := range s.h[:s.n] {
		if x == h {
			return true
		}
	}
	if s.n == len(s.h) {
		return false
	}
	s.h[s.n] = h
	s.n++
	return true
}

// record returns a pending tensor for n over operands xs, of dtype dt and
// shape (whose contiguous layout is lay). When the graph would exceed a
// budget, the largest pending operand is realised first.
//
// The step budget counts what the flattened program holds: each operation
// and constant of the graph (an operation shared by two branches twice, an
// upper bound) and each distinct input once, so a loop that reads the same
// operand every iteration (x = x.Add(b).Mul(b).Tanh()) fits 20 iterations
// in one graph rather than 12.
func record(op string, dev device.Device, dt dtype.DType, lay layout.Layout, n node, xs ...*Tensor) *Tensor {
	var steps int
	var set leafSet
	konst := 0 // the Scalar forms: a binary node with one tensor operand
	if n.kind == device.StepBinary && len(xs) == 1 {
		konst = 1
	}
	for {
		steps, set = 1+konst, leafSet{}
		fits := true
		for i, x := range xs {
			ref, s, err := operandFor(op, x, lay.Shape)
			if err != nil {
				return failed(err)
			}
			n.ops[i] = ref
			steps += s
			if ref.h != nil {
				fits = fits && set.add(ref.h)
			} else {
				for _, h := range ref.t.lz.inputs() {
					fits = fits && set.add(h)
				}
			}
		}
		if steps+set.n <= maxGraphSteps && fits {
			break
		}
		big := -1
		for i, x := range xs {
			if n.ops[i].t != nil && (big < 0 || x.lz.steps > xs[big].lz.steps) {
				big = i
			}
		}
		if big < 0 {
			break // only realised operands: this node alone is within budget
		}
		if err := xs[big].realize(); err != nil {
			return failed(err)
		}
	}
	n.useOperands()
	// Field by field: while the collector marks, copying a struct that
	// holds pointers into the heap (a layout, a node, the leaf array) goes
	// through the runtime's bulk write barrier, which cost a tenth of
	// recording an operation; single pointer stores take the fast one.
	t := new(Tensor)
	t.lay.Shape, t.lay.Strides, t.lay.Offset = lay.Shape, lay.Strides, lay.Offset
	t.lz.dev, t.lz.dt = dev, dt
	t.lz.n.kind, t.lz.n.unary, t.lz.n.binary = n.kind, n.unary, n.binary
	for k := range n.ops {
		o, r := &t.lz.n.ops[k], &n.ops[k]
		if r.t != nil {
			o.t = r.t
		}
		if r.h != nil {
			o.h = r.h
		}
		o.c = r.c
	}
	t.lz.steps = int32(steps)
	if set.n <= len(t.lz.leaves) {
		for i := range set.n {
			t.lz.leaves[i] = set.h[i]
		}
		t.lz.nleaf = uint8(set.n)
	} else {
		t.lz.more = sharedLeaves(&set, n.ops[:len(xs)])
	}
	for _, x := range xs {
		if x != nil && len(x.chk) > 0 {
			t.chk = inheritChecks(xs)
			break
		}
	}
	track(t)
	return t
}

// sharedLeaves returns set (of more inputs than a Tensor holds inline) as
// an immutable leafSet: a pending operand's own when it holds the same
// inputs (set merges the operands' sets, so one of equal size is equal),
// which a chain of operations on the same inputs shares, else a new copy.
func sharedLeaves(set *leafSet, ops []operandRef) *leafSet {
	for _, r := range ops {
		if r.t != nil && r.t.lz.more != nil && r.t.lz.more.n == set.n {
			return r.t.lz.more
		}
	}
	p := new(leafSet)
	for i := range set.n {
		p.h[i] = set.h[i]
	}
	p.n = set.n
	return p
}

// layoutFor returns a contiguous layout of shape, reusing an operand's when
// it is one (layouts are immutable), so recording allocates nothing more.
func layoutFor(shape []int, xs ...*Tensor) (layout.Layout, error) {
	for _, x := range xs {
		// A recorded tensor's layout is contiguous from its creation.
		if slices.Equal(x.lay.Shape, shape) && (x.isLazy() || x.lay.Offset == 0 && x.lay.IsContiguous()) {
			return x.lay, nil
		}
	}
	return layout.Contiguous(shape...)
}

// realize computes a pending tensor once; later calls return at once with
// the stored outcome. It is a no-op for tensors that were computed eagerly.
func (t *Tensor) realize() error {
	if !t.isLazy() || t.lz.done.Load() {
		return t.lz.err
	}
	t.lz.mu.Lock()
	defer t.lz.mu.Unlock()
	if t.lz.done.Load() {
		return t.lz.err
	}
	if t.lz.dropped { // released before anything computed it: its operation is gone
		return errs.New("tensor", "realize", errs.ErrReleased, "the tensor %v was released before it was computed", t.lay.Shape)
	}
	st, err := runGraph(t)
	if err != nil {
		t.lz.err = err
	} else {
		t.st = st
		t.cleanup = holdRef(t, st)
	}
	// Drop the graph, so its inputs may be freed now. Releasing them
	// locks only tensors below t, as every graph walk does, so holding
	// t's lock here cannot deadlock.
	n := t.lz.n
	t.lz.n = node{}
	t.lz.done.Store(true)
	n.unuseOperands()
	return err
}

// Realize computes the pending tensors among ts together and returns the
// first error Err reports for any of them (nil when every one is computed
// and valid).
//
// Pending tensors of one device, dtype and shape are computed by one fused
// kernel where the backend can (device.MultiFuser; the CPU's): their
// graphs are flattened into one program, shared subexpressions computed
// once, and a tensor that another one reads is read from the kernel's own
// result instead of from memory. An optimiser computing a moment and the
// new value that reads it thus makes one pass over its state instead of
// one per result. Elsewhere (other backends, TESSERA_FUSION=0, a tensor
// realised or locked meanwhile by another goroutine) each is realised in
// the order given, a later one reading the results of the earlier ones,
// with the same values.
func Realize(ts ...*Tensor) error {
	realizeTogether(ts)
	var first error
	for _, t := range ts {
		if err := t.Err(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// realizeTogether computes in one MultiFuser call the pending tensors of
// ts that share the first one's device, dtype and shape, when there are
// at least two; it leaves everything else to Err.
func realizeTogether(ts []*Tensor) {
	if len(ts) < 2 || !fusionOn.Load() {
		return
	}
	var arr [8]*Tensor
	roots := arr[:0]
	for _, t := range ts {
		if t == nil || !t.isLazy() || t.lz.done.Load() || t.released.Load() || slices.Contains(roots, t) {
			continue
		}
		if len(roots) > 0 {
			r := roots[0]
			if t.lz.dev != r.lz.dev || t.lz.dt != r.lz.dt || !slices.Equal(t.lay.Shape, r.lay.Shape) {
				continue
			}
		}
		roots = append(roots, t)
	}
	if len(roots) < 2 || roots[0].lay.Numel() == 0 {
		return
	}
	mf, ok := roots[0].lz.dev.Backend().(device.MultiFuser)
	if !ok {
		return
	}
	// Lock the roots: the first waits, the others only try, so two calls
	// that lock the same tensors in other orders cannot deadlock; a call
	// that loses leaves its tensors to Err.
	roots[0].lz.mu.Lock()
	locked := 1
	for locked < len(roots) && roots[locked].lz.mu.TryLock() {
		locked++
	}
	unlock := func() {
		for _, t := range roots[:locked] {
			t.lz.mu.Unlock()
		}
		locked = 0
	}
	defer func() { unlock() }()
	if locked < len(roots) {
		return
	}
	for _, t := range roots {
		if t.lz.done.Load() || t.lz.dropped {
			return
		}
	}
	g, ins, err := flattenAll(roots...)
	if err != nil {
		return // each root's own realisation reports it
	}
	defer g.free()
	dev, dt, lay := roots[0].lz.dev, roots[0].lz.dt, roots[0].lay
	var sarr [8]*storage
	var darr [8]device.Operand
	sts, dsts := sarr[:0], darr[:0]
	for range roots {
		st, err := newStorage("realize", dev, dt, lay.Numel())
		if err != nil {
			break
		}
		sts, dsts = append(sts, st), append(dsts, device.Operand{Buf: st.buf, Layout: lay})
	}
	if len(sts) == len(roots) {
		err = mf.FusedMulti(dsts, g.prog, g.outs, ins)
	}
	if len(sts) < len(roots) || err != nil {
		for _, st := range sts {
			st.release()
		}
		return // realised one by one, which reports any error
	}
	var narr [8]node
	nodes := narr[:0]
	for k, t := range roots {
		t.st = sts[k]
		t.cleanup = holdRef(t, sts[k])
		nodes = append(nodes, t.lz.n)
		t.lz.n = node{}
		t.lz.done.Store(true)
	}
	// Drop the graphs once every root is done and unlocked (a root's node
	// may count another root as a reader, which may drop its node).
	unlock()
	for _, n := range nodes {
		n.unuseOperands()
	}
}

// graph is a pending tensor flattened into a device.Program. The inputs
// are few (maxGraphInputs), so their table is a short slice searched
// linearly; the visited tensors are as many as the steps, and are looked
// up in a small open-addressing table keyed by address (a linear search
// made flattening a 64-step chain quadratic).
type graph struct {
	prog   device.Program
	roots  []*Tensor // the tensors being realised (their locks held)
	outs   []int     // the step computing each root
	inputs []*leafHandle
	leafAt []int // step reading inputs[i]
	ins    []device.Operand
	memo   []visit // open addressing; length a power of two, at most half full
	memoN  int
}

type visit struct {
	t    *Tensor
	step int
}

// graphs recycles flattening state: a realisation then allocates no
// tables of its own. Backends do not keep a Program or its inputs past
// the call (device.Fuser), so a graph goes back once the call returns.
var graphs = sync.Pool{New: func() any { return new(graph) }}

// flatten turns pending t's graph into a program over its inputs, read
// through their layouts broadcast to t's shape. t's lock is held. Hand
// the graph back with g.free when the program has run.
func (t *Tensor) flatten() (*graph, []device.Operand, error) {
	return flattenAll(t)
}

// flattenAll flattens the graphs of pending roots (of one dtype and shape,
// their locks held) into one program, each shared subexpression once,
// with g.outs[k] the step computing roots[k]; a root that another reads
// is read from its own step.
func flattenAll(roots ...*Tensor) (*graph, []device.Operand, error) {
	g := graphs.Get().(*graph)
	g.prog = device.Program{DType: roots[0].lz.dt, Steps: g.prog.Steps[:0]}
	g.inputs, g.leafAt, g.ins = g.inputs[:0], g.leafAt[:0], g.ins[:0]
	g.roots, g.outs = append(g.roots[:0], roots...), g.outs[:0]
	for _, t := range roots {
		i, err := g.add(t, true)
		if err != nil {
			g.free()
			return nil, nil, err
		}
		g.outs = append(g.outs, i)
	}
	shape := roots[0].lay.Shape
	for _, h := range g.inputs {
		l := h.lay
		if !slices.Equal(l.Shape, shape) {
			var err error
			if l, err = h.lay.BroadcastTo(shape...); err != nil {
				g.free()
				return nil, nil, errs.Retag("tensor", "realize", err)
			}
		}
		g.ins = append(g.ins, device.Operand{Buf: h.st.buf, Layout: l})
	}
	return g, g.ins, nil
}

// free drops g's references and returns it to the pool.
func (g *graph) free() {
	clear(g.roots)
	clear(g.memo)
	g.memoN = 0
	clear(g.inputs)
	clear(g.ins)
	graphs.Put(g)
}

// runGraph flattens t's graph and runs it: as one Fused call when the
// backend has one (and fusion is on), else one Unary/Binary call per step.
func runGraph(t *Tensor) (*storage, error) {
	g, ins, err := t.flatten()
	if err != nil {
		return nil, err
	}
	defer g.free()
	dev := t.lz.dev
	st, err := newStorage("realize", dev, t.lz.dt, t.lay.Numel())
	if err != nil {
		return nil, err
	}
	dst := device.Operand{Buf: st.buf, Layout: t.lay}
	if t.lay.Numel() > 0 {
		if f, ok := dev.Backend().(device.Fuser); ok && fusionOn.Load() {
			err = f.Fused(dst, g.prog, ins)
		} else {
			err = runSteps(dev, dst, g.prog, ins)
		}
	}
	if err != nil {
		st.release()
		return nil, errs.Retag("tensor", "realize", err)
	}
	return st, nil
}

// reducePending reduces pending t over axes (normalised) into a new tensor
// of dtype dt and shape outShape without realising t: the backend runs t's
// program as the reduction's prologue (device.FusedReducer). ok is false
// when that does not apply (t realised, fusion off, an arg reduction, a
// backend without it, or one that declines this program); the caller then
// realises t and reduces as usual. t stays pending: a later consumer of
// its values computes them (elementwise work is cheap to redo; memory for
// an intermediate is what this saves).
func (t *Tensor) reducePending(name string, op device.ReduceOp, axes []int, dt dtype.DType, outShape []int) (r *Tensor, ok bool) {
	if !t.isLazy() || t.lz.done.Load() || !fusionOn.Load() || !device.FusesReduce(op) || t.lay.Numel() == 0 {
		return nil, false
	}
	fr, can := t.lz.dev.Backend().(device.FusedReducer)
	if !can {
		return nil, false
	}
	t.lz.mu.Lock()
	defer t.lz.mu.Unlock()
	if t.lz.done.Load() {
		return nil, false
	}
	g, ins, err := t.flatten()
	if err != nil {
		return failed(err), true
	}
	defer g.free()
	l, err := layout.Contiguous(outShape...)
	if err != nil {
		return failed(errs.Retag("tensor", name, err)), true
	}
	st, err := newStorage(name, t.lz.dev, dt, l.Numel())
	if err != nil {
		return failed(err), true
	}
	if err := fr.FusedReduce(op, device.Operand{Buf: st.buf, Layout: l}, g.prog, ins, axes); err != nil {
		st.release()
		if errors.Is(err, errs.ErrUnsupported) {
			return nil, false
		}
		return failed(errs.Retag("tensor", name, err)), true
	}
	r = wrap(st, l)
	r.chk = inheritChecks([]*Tensor{t}) // index checks the graph's inputs carry
	return r, true
}

// add appends the steps computing x (the root when root is set; otherwise a
// pending operand, or one realised meanwhile by another goroutine) and
// returns the index of its result.
func (g *graph) add(x *Tensor, root bool) (int, error) {
	if i, ok := g.visitedAt(x); ok {
		return i, nil
	}
	var n node
	if root || slices.Contains(g.roots, x) { // locked by the caller
		n = x.lz.n
	} else {
		x.lz.mu.Lock()
		done, dropped := x.lz.done.Load(), x.lz.dropped
		n = x.lz.n
		x.lz.mu.Unlock()
		if dropped {
			return 0, errs.New("tensor", "realize", errs.ErrReleased, "an operand %v was released while in use", x.lay.Shape)
		}
		if done { // realised since it was recorded: read its result
			if x.lz.err != nil {
				return 0, x.lz.err
			}
			h, err := x.leafOf()
			if err != nil {
				return 0, err
			}
			return g.leaf(h), nil
		}
	}
	s := device.Step{Kind: n.kind, Unary: n.unary, Binary: n.binary}
	args := 0
	switch n.kind {
	case device.StepUnary:
		args = 1
	case device.StepBinary:
		args = 2
	}
	for k := range args {
		ref := n.ops[k]
		var i int
		if ref.isConst() {
			g.prog.Steps = append(g.prog.Steps, device.Step{Kind: device.StepConst, Const: ref.c})
			i = len(g.prog.Steps) - 1
		} else if ref.t != nil {
			var err error
			if i, err = g.add(ref.t, false); err != nil {
				return 0, err
			}
		} else {
			i = g.leaf(ref.h)
		}
		if k == 0 {
			s.A = i
		} else {
			s.B = i
		}
	}
	g.prog.Steps = append(g.prog.Steps, s)
	i := len(g.prog.Steps) - 1
	g.remember(x, i)
	return i, nil
}

// memoSlot is where x's entry in a memo table of length mask+1 starts its
// probe: the address, multiplied by a 64-bit odd constant, top bits.
func memoSlot(x *Tensor, mask int) int {
	return int((uint64(uintptr(unsafe.Pointer(x))) * 0x9e3779b97f4a7c15) >> 40 & uint64(mask))
}

// visitedAt returns the step computing x if x was added already.
func (g *graph) visitedAt(x *Tensor) (int, bool) {
	if len(g.memo) == 0 {
		return 0, false
	}
	mask := len(g.memo) - 1
	for i := memoSlot(x, mask); ; i = (i + 1) & mask {
		switch g.memo[i].t {
		case nil:
			return 0, false
		case x:
			return g.memo[i].step, true
		}
	}
}

// remember records that step computes x, growing the table to stay at
// most half full.
func (g *graph) remember(x *Tensor, step int) {
	if 2*(g.memoN+1) > len(g.memo) {
		old := g.memo
		g.memo = make([]visit, max(128, 2*len(old)))
		g.memoN = 0
		for _, v := range old {
			if v.t != nil {
				g.remember(v.t, v.step)
			}
		}
	}
	mask := len(g.memo) - 1
	i := memoSlot(x, mask)
	for g.memo[i].t != nil {
		i = (i + 1) & mask
	}
	g.memo[i] = visit{x, step}
	g.memoN++
}

// leaf returns the step reading input h, adding it once.
func (g *graph) leaf(h *leafHandle) int {
	for k, x := range g.inputs {
		if x == h {
			return g.leafAt[k]
		}
	}
	g.inputs = append(g.inputs, h)
	g.prog.Steps = append(g.prog.Steps, device.Step{Kind: device.StepInput, Input: len(g.inputs) - 1})
	i := len(g.prog.Steps) - 1
	g.leafAt = append(g.leafAt, i)
	return i
}

// runSteps runs a program one backend call per step, for backends without
// a Fuser and for TESSERA_FUSION=0: each step's result is a temporary,
// freed after its last use; a constant is a rank-0 fill read with zero
// strides.
func runSteps(dev device.Device, dst device.Operand, p device.Program, ins []device.Operand) error {
	be := dev.Backend()
	shape := dst.Layout.Shape
	last := p.LastUses()
	vals := make([]device.Operand, len(p.Steps))
	owned := make([]device.Buffer, len(p.Steps))
	defer func() {
		for _, b := range owned {
			if b != nil {
				be.Free(b)
			}
		}
	}()
	free := func(i int) {
		if owned[i] != nil {
			be.Free(owned[i])
			owned[i] = nil
		}
	}
	contig, err := layout.Contiguous(shape...)
	if err != nil {
		return err
	}
	zeros := make([]int, len(shape))
	for i, s := range p.Steps {
		out := dst
		if i != len(p.Steps)-1 && s.Kind != device.StepInput {
			n := contig.Numel()
			if s.Kind == device.StepConst {
				n = 1
			}
			b, err := be.Alloc(p.DType, n)
			if err != nil {
				return err
			}
			owned[i] = b
			out = device.Operand{Buf: b, Layout: contig}
		}
		switch s.Kind {
		case device.StepInput:
			vals[i] = ins[s.Input]
			if i == len(p.Steps)-1 {
				err = be.Copy(dst, ins[s.Input])
			}
		case device.StepConst:
			one := device.Operand{Buf: out.Buf, Layout: layout.Layout{Shape: []int{}, Strides: []int{}}}
			if out.Buf == dst.Buf {
				err = be.Fill(dst, s.Const)
				break
			}
			err = be.Fill(one, s.Const)
			vals[i] = device.Operand{Buf: out.Buf, Layout: layout.Layout{Shape: shape, Strides: zeros}}
		case device.StepUnary:
			err = be.Unary(s.Unary, out, vals[s.A])
			vals[i] = out
		case device.StepBinary:
			err = be.Binary(s.Binary, out, vals[s.A], vals[s.B])
			vals[i] = out
		}
		if err != nil {
			return err
		}
		for j := range i {
			if last[j] == i {
				free(j)
			}
		}
	}
	return nil
}
