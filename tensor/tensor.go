// Package tensor is tessera's user-facing n-dimensional array.
//
// A Tensor has a shape, a dtype and a device. Views (Transpose, Permute,
// Narrow, BroadcastTo, Reshape where strides allow, ...) are metadata over
// shared storage, and storage is never modified after an operation returns,
// so sharing it between views and goroutines is always safe.
//
// Errors are sticky values: an operation that fails returns a Tensor that
// carries the error, every later operation passes it on, and Err or a
// readback reports it. Model code chains operations and checks once:
//
//	y := x.Matmul(w).Add(b).Relu()
//	if err := y.Err(); err != nil { ... }
//
// Errors wrap the kinds ErrShape, ErrAxis, ErrDType, ErrDevice,
// ErrUnsupported, ErrOutOfMemory, ErrReleased and ErrDeviceLost, for
// errors.Is. No function panics on bad input.
//
// Constructors build tensors on the CPU; To moves them to another device.
// Operands of one operation must live on the same device.
//
// The package links the CPU backend only. GPU backends are opt-in, like
// database/sql drivers: a program that wants the GPU adds
//
//	import _ "github.com/tessera-go/tessera/device/webgpu"
//
// and device.Open("webgpu") without that import reports ErrUnavailable
// naming it. A CPU-only program so builds without cgo's GPU libraries,
// stays small and cross-compiles.
package tensor

import (
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tessera-go/tessera/device"
	_ "github.com/tessera-go/tessera/device/cpu" // the CPU backend is always linked
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Error kinds, for errors.Is: the values of package errs, re-exported here
// (their one re-export) so that users need no other import. An error made
// in any tessera package, backends included, matches them.
var (
	ErrShape       = errs.ErrShape
	ErrAxis        = errs.ErrAxis
	ErrDType       = errs.ErrDType
	ErrDevice      = errs.ErrDevice
	ErrUnsupported = errs.ErrUnsupported
	ErrOutOfMemory = errs.ErrOutOfMemory
	ErrReleased    = errs.ErrReleased
	ErrDeviceLost  = errs.ErrDeviceLost
	ErrUnavailable = errs.ErrUnavailable
	ErrValue       = errs.ErrValue
)

// Tensor is an n-dimensional array on a device. The zero value and nil are
// not valid tensors; operations on them return an ErrValue tensor.
type Tensor struct {
	st       *storage
	lay      layout.Layout
	err      error
	released atomic.Bool
	escaped  atomic.Bool // never released by a Scope (a leaf's gradient); packs beside released
	cleanup  runtime.Cleanup

	lz   lazyState                  // a recorded elementwise result (lazy.go)
	leaf atomic.Pointer[leafHandle] // the handle graphs read t through
	ag   *gradInfo                  // t's place in an autograd graph, nil outside any (autograd.go)
	chk  []*idxCheck                // index checks not yet read from the device (index.go)
}

// storage is a device buffer shared by every view of it; it is freed when
// the last tensor referring to it is released or collected.
type storage struct {
	dev  device.Device
	buf  device.Buffer
	refs atomic.Int64
}

// acquire takes a reference unless the storage is already freed.
func (s *storage) acquire() bool {
	for {
		n := s.refs.Load()
		if n <= 0 {
			return false
		}
		if s.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (s *storage) release() {
	if s.refs.Add(-1) == 0 {
		s.dev.Backend().Free(s.buf)
	}
}

func fail(op string, kind error, format string, args ...any) *Tensor {
	return &Tensor{err: errs.New("tensor", op, kind, format, args...)}
}

func failed(err error) *Tensor { return &Tensor{err: err} }

// wrap returns a tensor over st (whose reference the caller hands over) with
// layout l, and arranges for the reference to be dropped if the tensor is
// garbage collected without Release.
//
// That arrangement is a cleanup only for buffers the collector cannot see
// (a GPU's), which must be freed. Buffers in Go memory that settle their
// own accounting when collected (the CPU's) need none: once the last view
// is unreachable the storage and its buffer go in the same cycle, whatever
// their count says, and a count left high by a collected view costs only
// a later Release its early return of the buffer to the device's pool.
// (A cleanup's argument also stays reachable until the cleanup has run,
// so a cleanup holding such storage would keep its memory one cycle
// longer; and each cleanup is a special record the runtime adds, finds and
// removes under a lock, most of what recording an operation cost.)
//
// The tensor joins the innermost Scope open on the calling goroutine;
// wrapUntracked makes the runtime's own views, which no scope may free.
func wrap(st *storage, l layout.Layout) *Tensor {
	t := wrapUntracked(st, l)
	track(t)
	return t
}

func wrapUntracked(st *storage, l layout.Layout) *Tensor {
	t := &Tensor{st: st, lay: l}
	t.cleanup = holdRef(t, st)
	return t
}

// holdRef arranges for obj's reference to st to be dropped once obj is
// collected, for storage the collector does not reclaim itself (see wrap);
// for the rest it returns the zero Cleanup, whose Stop does nothing.
func holdRef[T any](obj *T, st *storage) runtime.Cleanup {
	if collected(st) {
		return runtime.Cleanup{}
	}
	return runtime.AddCleanup(obj, (*storage).release, st)
}

// collected reports whether st's buffer is reclaimed by the Go collector
// with its last reference, with no Free needed (the CPU's).
func collected(st *storage) bool { return collectedBuf(st.buf) }

func collectedBuf(buf device.Buffer) bool {
	c, ok := buf.(collectable)
	return ok && c.Collectable()
}

// collectable is implemented by buffers that need no Free once unreachable
// (cpu.Buffer).
type collectable interface{ Collectable() bool }

// newStorage allocates a buffer of n elements on dev, within the memory
// budget (TESSERA_MEMORY_LIMIT) when one is set.
func newStorage(op string, dev device.Device, dt dtype.DType, n int) (*storage, error) {
	if err := withinBudget(op, dev, int64(n)*int64(dt.Size())); err != nil {
		return nil, err
	}
	buf, err := dev.Backend().Alloc(dt, n)
	if err != nil {
		return nil, errs.Retag("tensor", op, err)
	}
	if !collectedBuf(buf) {
		relieve(dev)
	}
	st := &storage{dev: dev, buf: buf}
	st.refs.Store(1)
	return st, nil
}

// Device memory that the Go collector cannot see (a GPU's) is freed by the
// cleanups of collected tensors, but the collector, pacing itself by the
// small Go heap, may not run for a long time while device memory grows.
// relieve is the pressure valve: when a device's MemoryInUse has grown by
// more than valveStep (or half again, for a large working set) since the
// last time, it runs a collection and gives the cleanups a moment to free
// what was found, before the caller allocates more. It costs two atomic
// loads per allocation otherwise.
const valveStep = 16 << 20

type valve struct {
	mark atomic.Int64 // MemoryInUse that triggers the next collection
	busy atomic.Bool
}

var valves sync.Map // device.Device -> *valve

func relieve(dev device.Device) {
	v, ok := valves.Load(dev)
	if !ok {
		v, _ = valves.LoadOrStore(dev, &valve{})
		v.(*valve).mark.Store(dev.Backend().MemoryInUse() + valveStep)
	}
	vv := v.(*valve)
	be := dev.Backend()
	if be.MemoryInUse() < vv.mark.Load() || !vv.busy.CompareAndSwap(false, true) {
		return
	}
	defer vv.busy.Store(false)
	used := collectAndSettle(be, 0)
	vv.mark.Store(used + max(valveStep, used/2))
}

// collectAndSettle runs a collection and lets the cleanups free what it
// found: it waits (at most 50 ms) until be's MemoryInUse stops falling, or
// has fallen to goal, and returns it.
func collectAndSettle(be device.Backend, goal int64) int64 {
	collect()
	used := be.MemoryInUse()
	for range 50 {
		if used <= goal {
			break
		}
		time.Sleep(time.Millisecond)
		now := be.MemoryInUse()
		if now >= used {
			break
		}
		used = now
	}
	return used
}

// memoryLimit is the per-device budget of TESSERA_MEMORY_LIMIT, in bytes
// (0: none): a number with an optional KiB, MiB or GiB suffix.
var memoryLimit atomic.Int64

func init() { memoryLimit.Store(parseMemoryLimit(os.Getenv("TESSERA_MEMORY_LIMIT"))) }

func parseMemoryLimit(s string) int64 {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.m
			break
		}
	}
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || v <= 0 || v > math.MaxInt64/mult {
		return 0
	}
	return v * mult
}

// withinBudget makes room for an allocation of need bytes on dev under the
// memory budget: when it would not fit, it collects unreachable tensors and
// waits for their memory to come back, and refuses with ErrOutOfMemory only
// when live tensors really hold the budget.
func withinBudget(op string, dev device.Device, need int64) error {
	limit := memoryLimit.Load()
	if limit <= 0 {
		return nil
	}
	be := dev.Backend()
	if be.MemoryInUse()+need <= limit {
		return nil
	}
	for range 3 {
		if collectAndSettle(be, limit-need) <= limit-need {
			return nil
		}
	}
	if used := be.MemoryInUse(); used+need > limit {
		return errs.New("tensor", op, errs.ErrOutOfMemory, "%d bytes more on %s would exceed TESSERA_MEMORY_LIMIT (%d bytes): live tensors hold %d", need, dev.Name(), limit, used)
	}
	return nil
}

// collect runs a garbage collection and waits (briefly) for the cleanups it
// queued to start running: a sentinel collected in the same cycle signals
// when its own cleanup runs.
func collect() {
	done := make(chan struct{})
	runtime.AddCleanup(&sentinel{}, func(c chan struct{}) { close(c) }, done)
	runtime.GC()
	select {
	case <-done:
	case <-time.After(100 * time.Millisecond):
	}
}

// sentinel is large enough not to be batched by the tiny allocator, whose
// objects' cleanups may be delayed.
type sentinel struct {
	_ [32]byte
	_ *byte
}

// check reports why t cannot be used as an operand, or nil. A pending
// tensor is realised first: its storage is set when check returns nil.
func (t *Tensor) check(op string) error {
	if err := t.checkOperand(op); err != nil {
		return err
	}
	if t.isLazy() {
		return t.realize()
	}
	return nil
}

// checkOperand is check without realising: what recording an operand of a
// new pending tensor needs (errors of a pending graph surface when it is
// realised).
func (t *Tensor) checkOperand(op string) error {
	switch {
	case t == nil:
		return errs.New("tensor", op, errs.ErrValue, "nil tensor")
	case t.err != nil:
		return t.err
	case !t.isLazy() && t.st == nil: // a pending tensor's st is set by realize, under its lock
		return errs.New("tensor", op, errs.ErrValue, "zero Tensor value; build tensors with the constructors")
	case t.released.Load():
		return errs.New("tensor", op, errs.ErrReleased, "tensor %v was released", t.lay.Shape)
	case t.isLazy() && t.lz.done.Load() && t.lz.err != nil:
		return t.lz.err
	}
	return nil
}

// view returns a tensor sharing t's storage with layout l.
func (t *Tensor) view(op string, l layout.Layout) *Tensor {
	if !t.st.acquire() {
		return fail(op, errs.ErrReleased, "tensor storage was released")
	}
	v := wrap(t.st, l)
	v.chk = t.chk
	return v
}

// Err returns the first error of the chain that produced t, or nil.
func (t *Tensor) Err() error {
	if t == nil {
		return errs.New("tensor", "Err", errs.ErrValue, "nil tensor")
	}
	if t.isLazy() {
		if err := t.realize(); err != nil {
			return err
		}
		return t.settleChecks()
	}
	if t.err == nil && t.st == nil {
		return errs.New("tensor", "Err", errs.ErrValue, "zero Tensor value")
	}
	if t.err == nil && t.chk != nil {
		return t.settleChecks()
	}
	return t.err
}

// Release drops t's reference to its storage. The storage is freed (on a GPU,
// returned to the pool) when its last view is released; tensors that are
// never released are freed by the garbage collector. Using t afterwards is
// an ErrReleased error; releasing twice is harmless.
func (t *Tensor) Release() {
	if t == nil || (!t.isLazy() && t.st == nil) || !t.released.CompareAndSwap(false, true) {
		return
	}
	if h := t.leaf.Swap(nil); h != nil {
		h.orphan() // pending graphs that read t keep its storage until they are done
	}
	if t.isLazy() {
		// A pending tensor is not computed just to be freed: its operation
		// is dropped once no pending graph reads it. Once realised, its
		// storage goes as any other tensor's.
		if !t.lz.done.Load() {
			if t.lz.users.Load() == 0 {
				t.dropNode()
			}
			return
		}
		if t.st == nil {
			return
		}
	}
	t.cleanup.Stop()
	t.st.release()
}

// Shape returns a copy of the extents of each axis (nil for a failed tensor).
func (t *Tensor) Shape() []int {
	if t == nil || t.err != nil {
		return nil
	}
	return append([]int{}, t.lay.Shape...)
}

// Strides returns a copy of the strides, in elements, of each axis.
func (t *Tensor) Strides() []int {
	if t == nil || t.err != nil {
		return nil
	}
	return append([]int{}, t.lay.Strides...)
}

// Offset is the storage position, in elements, of the first element.
func (t *Tensor) Offset() int {
	if t == nil || t.err != nil {
		return 0
	}
	return t.lay.Offset
}

// Layout returns the tensor's layout (shape, strides and offset).
func (t *Tensor) Layout() layout.Layout {
	if t == nil || t.err != nil {
		return layout.Layout{}
	}
	return t.lay
}

// DType is the element type (dtype.Invalid for a failed tensor).
func (t *Tensor) DType() dtype.DType {
	switch {
	case t == nil:
		return dtype.Invalid
	case t.isLazy():
		return t.lz.dt
	case t.st == nil:
		return dtype.Invalid
	}
	return t.st.buf.DType()
}

// Device is the device holding the storage (nil for a failed tensor).
func (t *Tensor) Device() device.Device {
	switch {
	case t == nil:
		return nil
	case t.isLazy():
		return t.lz.dev
	case t.st == nil:
		return nil
	}
	return t.st.dev
}

// Rank is the number of axes.
func (t *Tensor) Rank() int {
	if t == nil || t.err != nil {
		return 0
	}
	return t.lay.Rank()
}

// Numel is the number of elements (0 for a failed tensor).
func (t *Tensor) Numel() int {
	if t == nil || t.err != nil {
		return 0
	}
	return t.lay.Numel()
}

// IsContiguous reports whether the elements sit in row-major order without
// gaps, so the tensor can be handed to code that expects a flat array.
func (t *Tensor) IsContiguous() bool {
	if t == nil || t.err != nil {
		return false
	}
	return t.lay.IsContiguous()
}

func (t *Tensor) operand() device.Operand { return device.Operand{Buf: t.st.buf, Layout: t.lay} }

// compute runs one backend call: it validates the inputs (not failed, not
// released, same device), keeps their storage alive during the call,
// allocates a contiguous output of dt and shape, and frees it if the call
// fails.
func compute(op string, dt dtype.DType, shape []int, ins []*Tensor, run func(be device.Backend, dst device.Operand, src []device.Operand) error) *Tensor {
	for _, in := range ins {
		if err := in.check(op); err != nil {
			return failed(err)
		}
	}
	dev := ins[0].st.dev
	for _, in := range ins[1:] {
		if in.st.dev != dev {
			return fail(op, errs.ErrDevice, "operands on different devices: %s and %s (move one with To)", dev.Name(), in.st.dev.Name())
		}
	}
	l, err := layout.Contiguous(shape...)
	if err != nil {
		return failed(errs.Retag("tensor", op, err))
	}
	srcs := make([]device.Operand, len(ins))
	for i, in := range ins {
		if !in.st.acquire() {
			for _, done := range ins[:i] {
				done.st.release()
			}
			return fail(op, errs.ErrReleased, "operand %d was released", i)
		}
		srcs[i] = in.operand()
	}
	defer func() {
		for _, in := range ins {
			in.st.release()
		}
	}()
	st, err := newStorage(op, dev, dt, l.Numel())
	if err != nil {
		return failed(err)
	}
	if err := run(dev.Backend(), device.Operand{Buf: st.buf, Layout: l}, srcs); err != nil {
		st.release()
		return failed(errs.Retag("tensor", op, err))
	}
	out := wrap(st, l)
	out.chk = inheritChecks(ins)
	return out
}

// withLayouts returns operands whose layouts are replaced by ls (broadcast
// views of the same buffers).
func withLayouts(srcs []device.Operand, ls ...layout.Layout) []device.Operand {
	out := make([]device.Operand, len(srcs))
	for i := range srcs {
		out[i] = device.Operand{Buf: srcs[i].Buf, Layout: ls[i]}
	}
	return out
}
