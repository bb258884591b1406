//go:build cgo && linux

package gl

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/errs"
)

// gpu is an opened OpenGL device: the executor of gpucore plans. It is both
// the device.Device and its device.Backend.
//
// Every GL call happens on one goroutine, locked to its OS thread, that
// owns the context (serve). Entry points wrap their work in a closure and
// hand it to that goroutine through reqs (call), so the state below the
// "owner" line needs no lock: only the owner touches it.
type gpu struct {
	name        string
	info        device.Info
	lim         limits
	plan        *gpucore.Planner
	gpucore.Ops // the operations: this device's plans, run by g.Run
	timeout     time.Duration

	mu     sync.RWMutex // guards closed against sends on reqs
	closed bool
	reqs   chan func()

	// owner: touched only by the goroutine that serves reqs.
	ctx        context
	pool       *gpucore.Pool[uint32]
	programs   map[string]uint32 // compiled programs by shaders.Key
	fused      gpucore.KernelCache
	arena      uint32 // uniform arena buffer
	arenaOff   uint64 // next free byte of the arena
	packed     []byte // parameter block being packed
	fences     []unsafe.Pointer
	sinceFence int  // dispatches since the last back-pressure fence
	dirty      bool // shader writes not yet made visible to buffer reads/writes
	ended      bool // the context is destroyed; serve returns

	lost gpucore.Lost // set once the device stops working

	inUse atomic.Int64 // bytes of live user buffers
	stats stats
}

// stats counts events tests assert on.
type stats struct {
	glBuffers  atomic.Int64 // GL buffers created
	glBytes    atomic.Int64 // bytes of GL buffers existing (live and pooled)
	dispatches atomic.Int64
	programs   atomic.Int64 // programs compiled
}

const (
	arenaSize      = 256 << 10 // bytes of the uniform arena
	fenceEvery     = 64        // dispatches between back-pressure fences
	maxFences      = 8         // fences in flight before the host waits
	defaultTimeout = 2 * time.Minute
)

var (
	_ device.Device    = (*gpu)(nil)
	_ device.Backend   = (*gpu)(nil)
	_ device.Softmaxer = (*gpu)(nil)
	_ device.Fuser     = (*gpu)(nil)
	_ device.Buffer    = (*gbuf)(nil)
)

// limits are the sizes the backend works within: the context's, possibly
// shrunk by Options.
type limits struct {
	maxBinding   uint64
	maxBuffer    uint64
	maxWG        uint32
	storageAlign uint64
	uniformAlign uint64
	raw          []device.Limit // as the context reports them, for Info
}

func (l limits) core() gpucore.Limits {
	return gpucore.Limits{MaxBinding: l.maxBinding, MaxBuffer: l.maxBuffer, MaxWG: l.maxWG, StorageAlign: l.storageAlign}
}

// maxBufferBytes caps one buffer: OpenGL has no query for it, and the
// kernels address at most 2^31 positions.
const maxBufferBytes = 2 << 30

var libMu sync.Mutex

// libEGL is the EGL library the backend opens: TESSERA_GL_LIBEGL (a file
// name or path, read at the first Open) or the system's libEGL.so.1.
func libEGL() string {
	if p := os.Getenv("TESSERA_GL_LIBEGL"); p != "" {
		return p
	}
	return "libEGL.so.1"
}

// load opens libEGL once and reports what is missing as ErrUnavailable.
func load(op string) error {
	libMu.Lock()
	defer libMu.Unlock()
	if msg, ok := loadLibs(libEGL()); !ok {
		return errs.New("gl", op, errs.ErrUnavailable, "%s (on Debian/Ubuntu install libegl1 libgl1 libgl1-mesa-dri)", msg)
	}
	return nil
}

// candidates lists the EGL devices to try, best first (GPUs with a DRM
// node, other non-software devices, the software rasteriser): -1 stands
// for Mesa's surfaceless platform, which picks a device itself.
func candidates(software bool) []int {
	libMu.Lock()
	devs := eglDevices()
	libMu.Unlock()
	var hw, other, sw []int
	for _, d := range devs {
		switch {
		case d.software():
			sw = append(sw, d.index)
		case d.drm != "":
			hw = append(hw, d.index) // a GPU with a DRM node first
		default:
			other = append(other, d.index)
		}
	}
	if software {
		return append(sw, -1)
	}
	return append(append(append(hw, other...), sw...), -1)
}

// isSoftware reports whether a GL_RENDERER string names a software
// rasteriser.
func isSoftware(renderer string) bool {
	r := strings.ToLower(renderer)
	return strings.Contains(r, "llvmpipe") || strings.Contains(r, "softpipe") || strings.Contains(r, "swrast")
}

// OpenWith opens an OpenGL device with explicit options. It reports
// errs.ErrUnavailable when no OpenGL 4.3 context can be created.
func OpenWith(o Options) (device.Device, error) {
	switch o.Matmul {
	case "", "regblock", "shared", "naive":
	default:
		return nil, errs.New("gl", "Open", errs.ErrValue, "unknown matmul kernel %q (want regblock, shared or naive)", o.Matmul)
	}
	if err := load("Open"); err != nil {
		return nil, err
	}
	var why []string
	for _, dev := range candidates(o.Software) {
		g, err := open(o, dev)
		if err == nil {
			return g, nil
		}
		why = append(why, err.Error())
	}
	kind := "an OpenGL 4.3 context"
	if o.Software {
		kind = "a software (llvmpipe) OpenGL 4.3 context"
	}
	return nil, errs.New("gl", "Open", errs.ErrUnavailable, "cannot create %s: %s (on Debian/Ubuntu install libegl1 libgl1 libgl1-mesa-dri)", kind, strings.Join(why, "; "))
}

// open starts the owner goroutine on EGL device dev and waits until its
// context is ready.
func open(o Options, dev int) (*gpu, error) {
	g := &gpu{
		timeout:  o.WaitTimeout,
		reqs:     make(chan func(), 16),
		programs: map[string]uint32{},
	}
	if g.timeout <= 0 {
		g.timeout = defaultTimeout
	}
	poolMax := o.PoolBytes
	if poolMax == 0 {
		poolMax = 256 << 20
	}
	g.pool = gpucore.NewPool[uint32](poolMax)
	ready := make(chan error, 1)
	go g.serve(o, dev, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return g, nil
}

// serve is the owner goroutine: it creates the context on its locked
// thread, reports readiness, then runs requests until Close destroys the
// context. It never unlocks the thread, so the thread, with whatever
// state the driver left on it, ends with the goroutine.
func (g *gpu) serve(o Options, dev int, ready chan<- error) {
	runtime.LockOSThread()
	ctx, msg, ok := openContext(dev)
	if !ok {
		ready <- fmt.Errorf("%s", msg)
		return
	}
	g.ctx = ctx
	if err := g.setup(o); err != nil {
		ctx.close()
		ready <- err
		return
	}
	ready <- nil
	for fn := range g.reqs {
		fn()
		if g.ended {
			return
		}
	}
}

// setup reads the context's description and limits (on the owner thread).
func (g *gpu) setup(o Options) error {
	renderer, vendor, version := glString(glRenderer), glString(glVendor), glString(glVersion)
	sw := isSoftware(renderer)
	if o.Software && !sw {
		return fmt.Errorf("renderer %q is not a software rasteriser", renderer)
	}
	raw := []device.Limit{
		{Name: "GL_MAX_SHADER_STORAGE_BLOCK_SIZE", Value: uint64(glInt64(glMaxShaderStorageBlockSize))},
		{Name: "GL_MAX_COMPUTE_WORK_GROUP_COUNT[0]", Value: uint64(glIntI(glMaxComputeWorkGroupCount, 0))},
		{Name: "GL_MAX_COMPUTE_WORK_GROUP_COUNT[1]", Value: uint64(glIntI(glMaxComputeWorkGroupCount, 1))},
		{Name: "GL_MAX_COMPUTE_WORK_GROUP_COUNT[2]", Value: uint64(glIntI(glMaxComputeWorkGroupCount, 2))},
		{Name: "GL_MAX_COMPUTE_WORK_GROUP_SIZE[0]", Value: uint64(glIntI(glMaxComputeWorkGroupSize, 0))},
		{Name: "GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS", Value: uint64(glInt(glMaxComputeInvocations))},
		{Name: "GL_MAX_COMPUTE_SHARED_MEMORY_SIZE", Value: uint64(glInt(glMaxComputeSharedMemory))},
		{Name: "GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS", Value: uint64(glInt(glMaxComputeSSBOBlocks))},
		{Name: "GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT", Value: uint64(glInt(glSSBOOffsetAlignment))},
		{Name: "GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT", Value: uint64(glInt(glUBOOffsetAlignment))},
		{Name: "GL_MAX_UNIFORM_BLOCK_SIZE", Value: uint64(glInt(glMaxUniformBlockSize))},
	}
	if e := glError(); e != 0 {
		return fmt.Errorf("querying the context's limits failed (GL error 0x%x)", e)
	}
	l := limits{
		maxBinding:   raw[0].Value,
		maxBuffer:    maxBufferBytes,
		maxWG:        uint32(min(raw[1].Value, raw[2].Value, raw[3].Value, 1<<31-1)),
		storageAlign: max(raw[8].Value, 4),
		uniformAlign: max(raw[9].Value, 4),
	}
	if raw[7].Value < 8 || raw[5].Value < 256 {
		return fmt.Errorf("%s offers %d storage blocks and %d invocations per workgroup; the kernels need 8 and 256", renderer, raw[7].Value, raw[5].Value)
	}
	if o.MaxBindingSize > 0 && o.MaxBindingSize < l.maxBinding {
		l.maxBinding = o.MaxBindingSize
	}
	if o.MaxWorkgroupsPerDim > 0 && o.MaxWorkgroupsPerDim < l.maxWG {
		l.maxWG = o.MaxWorkgroupsPerDim
	}
	// Keep the binding limit a multiple of the alignments, so windows
	// built from it stay aligned.
	// (The floor keeps a U8 readback piece, gpucore's PieceElems, above
	// zero.)
	l.maxBinding &^= 255
	l.maxBinding = max(l.maxBinding, 64<<10)
	l.maxBuffer = max(l.maxBuffer, l.maxBinding)
	if l.maxWG == 0 {
		l.maxWG = 65535
	}
	l.raw = raw
	g.lim = l

	g.name = o.Name
	if g.name == "" {
		g.name = DriverName
		if o.Software {
			g.name += ":software"
		}
	}
	// OpenGL does not say whether a GPU is discrete or integrated.
	typ := "gpu"
	if sw {
		typ = "software"
	}
	g.info = device.Info{
		Name:     g.name,
		Type:     typ,
		Hardware: !sw,
		Backend:  "opengl",
		Adapter:  renderer,
		Vendor:   vendor,
		Driver:   version + " (GLSL " + glString(glShadingLanguageVersion) + ")",
		DTypes:   slices.Clone(gpucore.StorableDTypes),
		Compute:  slices.Clone(gpucore.ComputeDTypes),
		Limits: append([]device.Limit{
			{Name: "maxStorageBufferBindingSize", Value: l.maxBinding},
			{Name: "maxBufferSize", Value: l.maxBuffer},
			{Name: "maxComputeWorkgroupsPerDimension", Value: uint64(l.maxWG)},
		}, raw...),
	}
	variant := o.Matmul
	if variant == "" {
		variant = "shared"
		if sw {
			variant = "regblock"
		}
	}
	g.plan = gpucore.NewPlanner("gl", "OpenGL", l.core(), variant)
	g.Ops = gpucore.Ops{Executor: g, Planner: g.plan, FusedKernel: g.fusedKernel}
	g.arena = glNewBuffer(arenaSize, glStreamDraw)
	if e := glError(); e != 0 {
		return fmt.Errorf("cannot create the uniform buffer (GL error 0x%x)", e)
	}
	return nil
}

// call runs fn on the owner goroutine and returns its error. A panic in fn
// (a bug) becomes an error instead of taking the process down.
func (g *gpu) call(op string, fn func() error) error {
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return errs.New("gl", op, errs.ErrDeviceLost, "device %q is closed", g.name)
	}
	res := make(chan error, 1)
	g.reqs <- func() { res <- g.guard(op, fn) }
	g.mu.RUnlock()
	return <-res
}

// post queues fn on the owner goroutine without waiting for it (Free,
// which the collector's cleanups call, need not wait for the GPU). Requests
// run in the order they are queued. It reports false on a closed device.
func (g *gpu) post(fn func()) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return false
	}
	g.reqs <- func() {
		defer func() { recover() }() // a bug must not end the owner goroutine
		fn()
	}
	return true
}

func (g *gpu) guard(op string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errs.New("gl", op, errs.ErrUnsupported, "internal error: %v", r)
		}
	}()
	if err := g.lostError(op); err != nil {
		return err
	}
	return fn()
}

// Name is the name the device was opened with.
func (g *gpu) Name() string { return g.name }

// Info describes the context (renderer, vendor, version) and the limits in
// effect.
func (g *gpu) Info() device.Info { return g.info }

// Backend returns the device itself: it implements device.Backend.
func (g *gpu) Backend() device.Backend { return g }

// Close waits for queued work (bounded by the wait timeout), deletes every
// GL object with the context and ends the owner goroutine. Later calls
// fail with errs.ErrDeviceLost; closing twice is harmless.
func (g *gpu) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	res := make(chan struct{})
	g.reqs <- func() {
		defer close(res)
		if !g.lost.Load() {
			g.waitIdle("Close")
		}
		for _, f := range g.fences {
			glDeleteSync(f)
		}
		g.fences = nil
		// Destroying the context deletes its buffers and programs.
		g.pool.Drain(func(uint32, uint64) {})
		g.programs = nil
		g.ctx.close()
		g.ended = true
	}
	g.mu.Unlock()
	<-res
	device.Forget(g)
	return nil
}

// markLost records that the device stopped working; every later call
// reports errs.ErrDeviceLost.
func (g *gpu) markLost(msg string) { g.lost.Mark(msg) }

// lostError is the error every call returns once the device is lost.
func (g *gpu) lostError(op string) error { return g.lost.Err("gl", op) }

// checkGL drains the GL error flags after op and turns the first into a
// typed error: GL_OUT_OF_MEMORY is ErrOutOfMemory, a lost context marks
// the device lost, anything else (a backend bug) is ErrUnsupported.
func (g *gpu) checkGL(op string) error {
	var first uint32
	for i := 0; i < 16; i++ {
		e := glError()
		if e == 0 {
			break
		}
		if first == 0 {
			first = e
		}
		if e == glContextLost {
			first = e
			break
		}
	}
	switch first {
	case 0:
		return nil
	case glOutOfMemory:
		return errs.New("gl", op, errs.ErrOutOfMemory, "OpenGL is out of memory (GL_OUT_OF_MEMORY)")
	case glContextLost:
		g.markLost("the OpenGL context was lost (GL_CONTEXT_LOST)")
		return g.lostError(op)
	}
	return errs.New("gl", op, errs.ErrUnsupported, "OpenGL reported error 0x%04x", first)
}
