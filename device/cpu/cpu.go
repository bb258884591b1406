// Package cpu is tessera's CPU backend: pure Go, always available (it builds
// with CGO_ENABLED=0), and the reference every other backend is tested
// against.
//
// Kernels read strided layouts in place through layout.Rows, so views are
// never materialised to compute on them. Contiguous rows of float data go to
// the SIMD kernels of package vec; the rest compute with the op table's
// references (device/optable.go). Matrix products of F32 and F64 go through
// the packed GEMM of package gemm, fed by layout.Classify2D (transposed and
// narrowed operands pass as trans flags and leading dimensions, without a
// copy). Large elementwise work and reductions are split across cores.
package cpu

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/klauspost/cpuid/v2"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

func init() { device.Register(driver{}) }

type driver struct{}

func (driver) Name() string { return "cpu" }

func (driver) Enumerate() ([]device.Info, error) { return []device.Info{info()}, nil }

func (driver) Open(name string) (device.Device, error) {
	if name != "cpu" {
		return nil, errs.New("cpu", "Open", errs.ErrDevice, "unknown CPU device %q (use \"cpu\")", name)
	}
	return New(), nil
}

func info() device.Info {
	return device.Info{
		Name:     "cpu",
		Type:     "cpu",
		Hardware: true,
		Backend:  "go",
		Adapter:  strings.TrimSpace(cpuid.CPU.BrandName),
		Vendor:   cpuid.CPU.VendorString,
		Driver:   runtime.Version() + " " + runtime.GOARCH,
		DTypes:   append([]dtype.DType{}, dtype.All...),
		Compute:  append([]dtype.DType{}, dtype.All...),
		Limits: []device.Limit{
			{Name: "cores", Value: uint64(runtime.GOMAXPROCS(0))},
			{Name: "maxAllocBytes", Value: uint64(maxAllocBytes())},
		},
	}
}

// Device is the CPU device. The zero value is not usable; call New or
// device.Open("cpu").
type Device struct {
	inUse    atomic.Int64
	closed   atomic.Bool
	pool     pool
	trimOnce sync.Once // arms the pool's trimming at the first buffer pooled

	batchMu sync.Mutex
	open    weak.Pointer[batch] // the batch new small buffers join
}

// New returns a fresh CPU device with its own memory accounting. Most code
// uses the shared one from device.Open("cpu") or device.CPU() instead.
func New() *Device { return &Device{} }

var (
	_ device.Device  = (*Device)(nil)
	_ device.Backend = (*Device)(nil)
)

// Name returns "cpu".
func (d *Device) Name() string { return "cpu" }

// Info describes the processor.
func (d *Device) Info() device.Info { return info() }

// Backend returns d itself: the CPU device runs its own kernels.
func (d *Device) Backend() device.Backend { return d }

// Close marks the device closed and removes it from the registry cache.
// Buffers stay readable (they are Go memory), but new allocations fail.
func (d *Device) Close() error {
	d.closed.Store(true)
	device.Forget(d)
	return nil
}

// MemoryInUse is the number of bytes held by buffers neither freed nor
// collected (the pool of freed buffers is not counted; a collected buffer
// below 512 bytes is counted until the rest of its batch is collected too, see
// batch).
func (d *Device) MemoryInUse() int64 { return d.inUse.Load() }

// Sync has nothing to wait for: CPU kernels finish before they return.
func (d *Device) Sync() error { return nil }

// Buffer is CPU storage. Its memory is 8-byte aligned so it can be viewed as
// any element type.
//
// The memory is an ordinary Go allocation, so the garbage collector sees it
// and paces itself by it. A buffer that becomes unreachable without Free is
// reclaimed by the collector like any Go value, and its bytes leave
// MemoryInUse when the collector has found it, or, below 512 bytes, the
// buffers allocated beside it as well (see Collectable and batch).
type Buffer struct {
	dt    dtype.DType
	n     int
	data  []byte
	words []uint64 // the allocation behind data, returned to the pool
	dev   *Device
	acct  *account // where the buffer's bytes are settled; nil for scratch outside the accounting
	batch *batch   // a small buffer's batch, kept reachable while the buffer is
	freed atomic.Bool
}

// account is what a cleanup needs to settle the accounting of one large
// buffer or one batch of small ones: the bytes not yet freed. It holds no
// reference to the memory, so the collector reclaims that in the cycle
// that finds the buffers unreachable.
type account struct {
	dev   *Device
	bytes atomic.Int64
}

// settle removes what a collected buffer or batch left unfreed from the
// accounting.
func (a *account) settle() { a.dev.inUse.Add(-a.bytes.Swap(0)) }

// A batch settles the accounting of up to batchBuffers small buffers
// (below smallBuffer bytes, batchBytes together) with one cleanup, where
// each would otherwise add a cleanup of its own: the runtime adds, finds
// and removes every cleanup record under a lock, and for the small
// tensors of ordinary code that was a fifth of an operation's cost. Each
// buffer keeps its batch reachable; the device holds the open batch only
// weakly, so a batch whose buffers are all gone is collected and settles
// at once, full or not. The price: a small buffer collected without Free
// leaves MemoryInUse when the last of its batch goes, so live small
// buffers can keep up to batchBytes each of collected neighbours counted;
// the batches are kept small so that a loop keeping one small result a
// step (a history of losses) overstates its memory by 4 KiB a step at
// most. Free settles a buffer at once, as before.
type batch struct {
	acct    *account
	buffers int
	bytes   int
}

const (
	smallBuffer  = 512
	batchBytes   = 4 << 10
	batchBuffers = 16
)

// account returns the account a new buffer of size bytes settles through,
// and the batch it must keep reachable (nil for a buffer of its own
// account, whose cleanup the caller adds).
func (d *Device) account(size int) (*account, *batch) {
	if size >= smallBuffer {
		a := &account{dev: d}
		a.bytes.Store(int64(size))
		return a, nil
	}
	d.batchMu.Lock()
	defer d.batchMu.Unlock()
	bt := d.open.Value()
	if bt == nil || bt.buffers == batchBuffers || bt.bytes+size > batchBytes {
		bt = &batch{acct: &account{dev: d}}
		runtime.AddCleanup(bt, (*account).settle, bt.acct)
		d.open = weak.Make(bt)
	}
	bt.buffers++
	bt.bytes += size
	bt.acct.bytes.Add(int64(size))
	return bt.acct, bt
}

func (b *Buffer) isFreed() bool { return b.acct != nil && b.freed.Load() }

// Collectable reports that the buffer needs no Free once it is unreachable:
// its memory is Go memory and its accounting is settled by a cleanup (its
// own, or its batch's). (Free still returns a buffer to the pool at once.)
// The tensor layer adds no cleanup of its own for such buffers, which
// would cost a runtime record per tensor and keep the memory of a
// collected tensor reachable for a whole collection cycle more.
func (b *Buffer) Collectable() bool { return b.acct != nil }

var _ device.HostBuffer = (*Buffer)(nil)

// DType is the element type.
func (b *Buffer) DType() dtype.DType { return b.dt }

// Len is the number of elements.
func (b *Buffer) Len() int { return b.n }

// Bytes is the storage itself (not a copy).
func (b *Buffer) Bytes() []byte { return b.data }

var memLimit = sync.OnceValue(func() int64 {
	if v, err := strconv.ParseInt(os.Getenv("TESSERA_CPU_MAX_ALLOC"), 10, 64); err == nil && v > 0 {
		return v
	}
	// Refuse single allocations larger than physical memory: the Go runtime
	// would otherwise abort the process, which no caller can recover from.
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 64 << 30
})

func maxAllocBytes() int64 { return memLimit() }

// checkAvailableAbove is the allocation size from which Alloc consults the
// memory the system has available.
const checkAvailableAbove = 256 << 20

// memAvailable reads MemAvailable from /proc/meminfo (Linux only).
func memAvailable() (int64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemAvailable:" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return kb * 1024, true
			}
		}
	}
	return 0, false
}

// Alloc returns a buffer of n elements. Its contents are unspecified: a
// buffer may come from the pool of freed ones.
func (d *Device) Alloc(dt dtype.DType, n int) (device.Buffer, error) {
	if d.closed.Load() {
		return nil, errs.New("cpu", "Alloc", errs.ErrDeviceLost, "device is closed")
	}
	if !dt.Valid() {
		return nil, errs.New("cpu", "Alloc", errs.ErrDType, "invalid dtype %v", dt)
	}
	if n < 0 {
		return nil, errs.New("cpu", "Alloc", errs.ErrShape, "negative element count %d", n)
	}
	limit := maxAllocBytes()
	if int64(n) > limit/int64(dt.Size()) {
		return nil, errs.New("cpu", "Alloc", errs.ErrOutOfMemory, "%d elements of %v (%d bytes each) exceed the %d-byte allocation limit", n, dt, dt.Size(), limit)
	}
	size := n * dt.Size()
	if size >= checkAvailableAbove {
		// A large request the machine cannot satisfy would make the Go
		// runtime abort the whole process; refuse it while we still can.
		if avail, ok := memAvailable(); ok && int64(size) > avail {
			return nil, errs.New("cpu", "Alloc", errs.ErrOutOfMemory, "%d bytes requested, %d available", size, avail)
		}
	}
	words := d.pool.get((size + 7) / 8)
	var data []byte
	if size > 0 {
		data = unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), size)
	} else {
		data = []byte{}
	}
	d.inUse.Add(int64(size))
	acct, bt := d.account(size)
	b := &Buffer{dt: dt, n: n, data: data, words: words, dev: d, acct: acct, batch: bt}
	if bt == nil {
		runtime.AddCleanup(b, (*account).settle, acct)
	}
	return b, nil
}

// Free releases the buffer; large buffers go back to the device's pool for
// reuse, others to the garbage collector. Freeing twice is harmless.
func (d *Device) Free(b device.Buffer) {
	cb, ok := b.(*Buffer)
	if !ok || cb == nil || cb.dev != d || cb.acct == nil {
		return
	}
	if cb.freed.CompareAndSwap(false, true) {
		size := int64(len(cb.data))
		cb.acct.bytes.Add(-size)
		d.inUse.Add(-size)
		if d.pool.put(cb.words) {
			d.trimOnce.Do(func() { armTrim(weak.Make(d)) })
		}
	}
}

// pool keeps freed large buffers by power-of-two size class, so that a
// chain of elementwise operations on big tensors does not pay for fresh
// pages (and the collector for their garbage) on every step; a fresh
// buffer is not cleared either (uninitWords). It holds at most poolLimit() bytes, and each
// garbage collection ages it: buffers not reused within two collections are
// dropped, so an idle pool does not keep memory (or the collector's heap
// goal, which counts it as live) up.
type pool struct {
	mu    sync.Mutex
	free  map[int][][]uint64 // class (log2 of words) -> buffers
	old   map[int][][]uint64 // buffers that have survived a collection
	bytes int
}

// poolMinWords: smaller buffers (4 KiB) are cheap to allocate. Buffers
// from 4 KiB up are pooled because a freshly allocated one is cleared and
// its garbage brings collections on: a [64, 128] float32 Add (a 32 KiB
// output, a small training step's size) took 13.6-14.1 us a call when
// only buffers from 64 KiB up were pooled, 6.8-6.9 us with this limit.
const poolMinWords = 1 << 9

// poolLimit is the most the pool holds: 256 MiB, or 1/16 of the
// machine's memory if that is less.
var poolLimit = sync.OnceValue(func() int {
	return int(min(256<<20, maxAllocBytes()/16))
})

func sizeClass(words int) int {
	c := 0
	for 1<<c < words {
		c++
	}
	return c
}

func (p *pool) get(words int) []uint64 {
	if words < poolMinWords {
		return make([]uint64, words)
	}
	c := sizeClass(words)
	p.mu.Lock()
	for _, m := range []map[int][][]uint64{p.free, p.old} {
		if list := m[c]; len(list) > 0 {
			w := list[len(list)-1]
			list[len(list)-1] = nil
			m[c] = list[:len(list)-1]
			p.bytes -= 8 * cap(w)
			p.mu.Unlock()
			return w[:words]
		}
	}
	p.mu.Unlock()
	return uninitWords(words, 1<<c)
}

// put keeps w for reuse and reports whether it did.
func (p *pool) put(w []uint64) bool {
	if cap(w) < poolMinWords || cap(w)&(cap(w)-1) != 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bytes+8*cap(w) > poolLimit() {
		return false
	}
	if p.free == nil {
		p.free = map[int][][]uint64{}
	}
	c := sizeClass(cap(w))
	p.free[c] = append(p.free[c], w[:cap(w)])
	p.bytes += 8 * cap(w)
	return true
}

// age drops the buffers that survived the previous collection unused and
// marks the rest as old.
func (p *pool) age() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, list := range p.old {
		for _, w := range list {
			p.bytes -= 8 * cap(w)
		}
	}
	p.old, p.free = p.free, nil
}

// gcSentinel is an object whose cleanup runs once per collection cycle
// (large enough not to share a tiny-allocator block, whose cleanups may be
// delayed).
type gcSentinel struct {
	_ [32]byte
	_ *byte
}

// armTrim ages d's pool after every garbage collection for as long as d
// exists: a fresh unreachable sentinel's cleanup runs after each cycle and
// arms the next one. The weak pointer lets a device that is no longer used
// be collected, which ends the chain.
func armTrim(wd weak.Pointer[Device]) {
	runtime.AddCleanup(&gcSentinel{}, func(wd weak.Pointer[Device]) {
		d := wd.Value()
		if d == nil {
			return
		}
		d.pool.age()
		armTrim(wd)
	}, wd)
}

// own checks that b is a live buffer of this device.
func (d *Device) own(op string, b device.Buffer) (*Buffer, error) {
	cb, ok := b.(*Buffer)
	if !ok || cb == nil {
		return nil, errs.New("cpu", op, errs.ErrDevice, "buffer %T does not belong to the CPU device", b)
	}
	if cb.dev != d {
		return nil, errs.New("cpu", op, errs.ErrDevice, "buffer belongs to another CPU device")
	}
	if cb.isFreed() {
		return nil, errs.New("cpu", op, errs.ErrReleased, "buffer was freed")
	}
	return cb, nil
}

// Upload copies src into b at element off.
func (d *Device) Upload(b device.Buffer, off int, src []byte) error {
	cb, err := d.own("Upload", b)
	if err != nil {
		return err
	}
	start := off * cb.dt.Size()
	if off < 0 || start > len(cb.data) || len(src) > len(cb.data)-start {
		return errs.New("cpu", "Upload", errs.ErrShape, "%d bytes at element %d overflow a buffer of %d bytes", len(src), off, len(cb.data))
	}
	copy(cb.data[start:], src)
	return nil
}

// Download copies len(dst) bytes out of b from element off.
func (d *Device) Download(dst []byte, b device.Buffer, off int) error {
	cb, err := d.own("Download", b)
	if err != nil {
		return err
	}
	start := off * cb.dt.Size()
	if off < 0 || start > len(cb.data) || len(dst) > len(cb.data)-start {
		return errs.New("cpu", "Download", errs.ErrShape, "%d bytes at element %d overflow a buffer of %d bytes", len(dst), off, len(cb.data))
	}
	copy(dst, cb.data[start:])
	return nil
}
