//go:build cgo

package webgpu

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/errs"
)

// gpu is an opened WebGPU device: the executor half of the backend. It is
// both the device.Device and its device.Backend. Every decision that does
// not need wgpu (validation, axis merging, splitting by limits, reduce,
// softmax and matmul strategies, parameter blocks) is made by plan, a
// gpucore.Planner; gpu owns only what touches wgpu: the adapter, device
// and queue, the effective limits, compiled pipelines and bind group
// layouts, device buffers (live, pooled, staging for readback and upload,
// uniform arenas), the pending encoder, pass and batch, submission
// sequence numbers and the resources retired until their batch completes,
// and device-lost and asynchronous error state. One mutex serialises
// encoding and the queue; waits for the GPU release it between polls, so
// goroutines keep encoding while another waits.
type gpu struct {
	name        string
	info        device.Info
	lim         limits
	adapter     *wgpu.Adapter
	dev         *wgpu.Device
	queue       *wgpu.Queue
	sinkID      uintptr
	timeout     time.Duration
	plan        *gpucore.Planner
	gpucore.Ops // the operations: this device's plans, run by g.Run

	mu          sync.Mutex
	closed      bool
	enc         *wgpu.CommandEncoder     // pending work, nil when none
	pass        *wgpu.ComputePassEncoder // open pass of the pending batch
	passGroups  []*wgpu.BindGroup        // bind groups the open pass uses
	pendingOps  int
	seq         uint64 // sequence number of the pending batch
	submitted   uint64 // last submitted batch
	completed   atomic.Uint64
	arena       *wgpu.Buffer // uniform arena of the pending batch
	arenaHost   []byte       // its contents, written just before submission
	arenas      []*wgpu.Buffer
	retired     []retired                   // resources waiting for their batch to complete
	pool        *gpucore.Pool[*wgpu.Buffer] // freed storage buffers
	stage       *gpucore.Pool[*wgpu.Buffer] // readback staging buffers
	upReady     *gpucore.Pool[*wgpu.Buffer] // mapped upload buffers
	upBytes     int64                       // bytes of upload buffers, any state
	upRemapping int                         // upload buffers being mapped again
	upMu        sync.Mutex                  // guards upArrived (filled by map callbacks)
	upArrived   []remapped
	kernels     map[string]*kernel
	fused       gpucore.KernelCache // fused-program kernels by structure (fused.go)
	bgls        map[[2]int]*wgpu.BindGroupLayout

	lost     gpucore.Lost // set once the device stops working
	errMu    sync.Mutex
	firstErr error

	inUse atomic.Int64 // bytes of live user buffers
	stats stats
}

// stats counts events tests assert on.
type stats struct {
	gpuAllocs  atomic.Int64 // GPU buffers created
	tempAllocs atomic.Int64 // internal temporary buffers taken
	gpuBytes   atomic.Int64 // bytes of GPU buffers existing (live, pooled, retired)
	dispatches atomic.Int64
	submits    atomic.Int64
}

// retired is a resource that may be reused or destroyed once batch seq has
// completed.
type retired struct {
	seq  uint64
	buf  *wgpu.Buffer
	size uint64
	kind int // retireStorage, retireArena, retireStage, retireUpload
}

const (
	retireStorage = iota
	retireArena
	retireStage
	retireUpload
)

var (
	_ device.Device    = (*gpu)(nil)
	_ device.Backend   = (*gpu)(nil)
	_ device.Softmaxer = (*gpu)(nil)
	_ device.Buffer    = (*gbuf)(nil)
)

// OpenWith opens a WebGPU device with explicit options. It reports
// errs.ErrUnavailable when no suitable adapter exists.
func OpenWith(o Options) (device.Device, error) {
	switch o.Matmul {
	case "", "regblock", "shared", "naive":
	default:
		return nil, errs.New("webgpu", "Open", errs.ErrValue, "unknown matmul kernel %q (want regblock, shared or naive)", o.Matmul)
	}
	ad, err := requestAdapter(o.Software)
	if err != nil {
		return nil, err
	}
	raw := ad.GetLimits().Limits
	var feats []wgpu.FeatureName
	if ad.HasFeature(wgpu.FeatureName_ShaderF16) {
		feats = append(feats, wgpu.FeatureName_ShaderF16)
	}
	g := &gpu{
		lim:     effectiveLimits(raw, o),
		adapter: ad,
		seq:     1,
		stage:   gpucore.NewPool[*wgpu.Buffer](maxStageBytes),
		upReady: gpucore.NewPool[*wgpu.Buffer](0), // bounded by upBytes
		kernels: map[string]*kernel{},
		bgls:    map[[2]int]*wgpu.BindGroupLayout{},
		timeout: o.WaitTimeout,
	}
	if g.timeout <= 0 {
		g.timeout = 2 * time.Minute
	}
	poolMax := o.PoolBytes
	if poolMax == 0 {
		poolMax = 256 << 20
	}
	g.pool = gpucore.NewPool[*wgpu.Buffer](poolMax)
	g.name = o.Name
	if g.name == "" {
		g.name = DriverName
		if o.Software {
			g.name += ":software"
		}
	}
	dev, err := ad.RequestDevice(&wgpu.DeviceDescriptor{
		Label:            "tessera",
		RequiredFeatures: feats,
		RequiredLimits:   &wgpu.RequiredLimits{Limits: raw},
		// No DeviceLostCallback: go-webgpu v0.17.1 passes its handle in Go
		// memory, which cgo's pointer check rejects with a panic. Loss is
		// detected instead from queue and map statuses, uncaptured
		// device-lost errors and the wait timeout.
	})
	if err != nil {
		ad.Release()
		return nil, errs.New("webgpu", "Open", errs.ErrUnavailable, "adapter %q refused a device: %v", ad.GetProperties().Name, err)
	}
	g.dev = dev
	g.queue = dev.GetQueue()
	g.info = adapterInfo(ad, g.name, raw, g.lim)
	// The raw handles are needed for the callbacks go-webgpu gets wrong; a
	// go-webgpu whose layout hides them cannot be used safely.
	id, ok := installErrorSink(g)
	if _, qok := rawHandle(g.queue); !ok || !qok {
		g.queue.Release()
		dev.Release()
		ad.Release()
		return nil, errs.New("webgpu", "Open", errs.ErrUnavailable, "unsupported go-webgpu version: wgpu handles are not reachable")
	}
	g.sinkID = id
	variant := o.Matmul
	if variant == "" {
		variant = "shared"
		if g.info.Type == "software" {
			variant = "regblock"
		}
	}
	g.plan = gpucore.NewPlanner("webgpu", "WebGPU", g.lim.core(), variant)
	g.Ops = gpucore.Ops{Executor: g, Planner: g.plan, FusedKernel: g.fusedKernelLocked}
	return g, nil
}

// Name is the name the device was opened with.
func (g *gpu) Name() string { return g.name }

// Info describes the adapter and the limits in effect.
func (g *gpu) Info() device.Info { return g.info }

// Backend returns the device itself: it implements device.Backend.
func (g *gpu) Backend() device.Backend { return g }

// Close waits for queued work (bounded by the wait timeout), releases every
// GPU resource and the device. Later calls fail with errs.ErrDeviceLost.
func (g *gpu) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	if !g.lost.Load() {
		g.flushLocked()
	}
	last := g.submitted
	g.mu.Unlock()
	if !g.lost.Load() {
		g.waitSeq(last)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.endPassLocked()
	if g.enc != nil {
		g.enc.Release()
		g.enc = nil
	}
	if g.sinkID != 0 {
		removeErrorSink(g.sinkID)
	}
	for _, r := range g.retired {
		r.buf.Release()
	}
	g.retired = nil
	release := func(b *wgpu.Buffer, _ uint64) { b.Release() }
	g.pool.Drain(release)
	g.stage.Drain(release)
	g.collectRemappedLocked()
	g.upReady.Drain(release)
	for _, a := range g.arenas {
		a.Release()
	}
	if g.arena != nil {
		g.arena.Release()
	}
	g.arenas, g.arena = nil, nil
	for _, k := range g.kernels {
		k.pipe.Release()
	}
	g.kernels = nil
	for _, l := range g.bgls {
		l.Release()
	}
	g.bgls = nil
	g.queue.Release()
	g.dev.Release()
	g.adapter.Release()
	device.Forget(g)
	return nil
}

// markLost records that the device stopped working; every later call
// reports errs.ErrDeviceLost.
func (g *gpu) markLost(msg string) { g.lost.Mark(msg) }

// lostError is the error every call returns once the device is lost.
func (g *gpu) lostError(op string) error { return g.lost.Err("webgpu", op) }

// usableLocked reports why the device cannot take work, if it cannot.
func (g *gpu) usableLocked(op string) error {
	if g.closed {
		return errs.New("webgpu", op, errs.ErrDeviceLost, "device %q is closed", g.name)
	}
	return g.lostError(op)
}

// asyncError records the first error that happened outside any call that
// could return it; Sync reports it.
func (g *gpu) asyncError(op, msg string) {
	g.errMu.Lock()
	defer g.errMu.Unlock()
	if g.firstErr == nil {
		g.firstErr = errs.New("webgpu", op, errs.ErrUnsupported, "%s", msg)
	}
}

func (g *gpu) takeAsyncError() error {
	g.errMu.Lock()
	defer g.errMu.Unlock()
	err := g.firstErr
	g.firstErr = nil
	return err
}
