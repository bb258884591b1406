//go:build cgo

package webgpu

import (
	"runtime"
	"time"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/shaders"
)

const (
	arenaSize   = 256 << 10 // bytes of one uniform arena
	batchOps    = 64        // dispatches per submission
	maxInflight = 8         // submitted batches before the host waits
)

// kernel is a compiled compute pipeline with its bind group layout:
// binding 0 is the uniform, then nrw read-write and nro read-only storage
// buffers.
type kernel struct {
	name     string
	pipe     *wgpu.ComputePipeline
	bgl      *wgpu.BindGroupLayout
	nrw, nro int
}

// bglLocked returns the bind group layout for nrw read-write and nro
// read-only storage bindings after the uniform.
func (g *gpu) bglLocked(nrw, nro int) (*wgpu.BindGroupLayout, error) {
	key := [2]int{nrw, nro}
	if l, ok := g.bgls[key]; ok {
		return l, nil
	}
	ents := []wgpu.BindGroupLayoutEntry{{
		Binding:    0,
		Visibility: wgpu.ShaderStage_Compute,
		Buffer:     wgpu.BufferBindingLayout{Type: wgpu.BufferBindingType_Uniform},
	}}
	for i := 0; i < nrw+nro; i++ {
		t := wgpu.BufferBindingType_Storage
		if i >= nrw {
			t = wgpu.BufferBindingType_ReadOnlyStorage
		}
		ents = append(ents, wgpu.BindGroupLayoutEntry{
			Binding:    uint32(i + 1),
			Visibility: wgpu.ShaderStage_Compute,
			Buffer:     wgpu.BufferBindingLayout{Type: t},
		})
	}
	l, err := g.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: "tessera", Entries: ents})
	if err != nil {
		return nil, g.wgpuError("CreateBindGroupLayout", err)
	}
	g.bgls[key] = l
	return l, nil
}

// kernelLocked returns the pipeline for a template specialised by vars,
// compiling it on first use. Pipelines are cached by specialisation, never
// by shape.
func (g *gpu) kernelLocked(op, tmpl string, vars map[string]string, nrw, nro int) (*kernel, error) {
	key := shaders.Key(tmpl, vars)
	if k, ok := g.kernels[key]; ok {
		return k, nil
	}
	src, err := shaders.Render(tmpl, vars)
	if err != nil {
		return nil, errs.Wrap("webgpu", op, errs.ErrUnsupported, err, "cannot build kernel %s", key)
	}
	mod, err := g.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          tmpl,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: src},
	})
	if err != nil {
		return nil, errs.Wrap("webgpu", op, errs.ErrUnsupported, err, "kernel %s does not compile", key)
	}
	defer mod.Release()
	bgl, err := g.bglLocked(nrw, nro)
	if err != nil {
		return nil, err
	}
	pl, err := g.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{BindGroupLayouts: []*wgpu.BindGroupLayout{bgl}})
	if err != nil {
		return nil, g.wgpuError("CreatePipelineLayout", err)
	}
	defer pl.Release()
	pipe, err := g.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
		Label:   tmpl,
		Layout:  pl,
		Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: "main"},
	})
	if err != nil {
		return nil, errs.Wrap("webgpu", op, errs.ErrUnsupported, err, "kernel %s has no pipeline", key)
	}
	k := &kernel{name: key, pipe: pipe, bgl: bgl, nrw: nrw, nro: nro}
	g.kernels[key] = k
	return k, nil
}

// wgpuError turns an error wgpu returned from a call into a typed error.
func (g *gpu) wgpuError(op string, err error) error {
	if e := g.lostError(op); e != nil {
		return e
	}
	return errs.Wrap("webgpu", op, errs.ErrUnsupported, err, "wgpu rejected the call")
}

// encoderLocked returns the pending command encoder, creating it if needed.
func (g *gpu) encoderLocked(op string) (*wgpu.CommandEncoder, error) {
	if g.enc != nil {
		return g.enc, nil
	}
	enc, err := g.dev.CreateCommandEncoder(nil)
	if err != nil {
		return nil, g.wgpuError(op, err)
	}
	g.enc = enc
	return enc, nil
}

// uniformLocked appends the bytes of parameter block params to the
// pending batch's uniform arena and returns their offset and size, or
// false when the arena is full.
func (g *gpu) uniformLocked(params any) (uint64, uint64, bool, error) {
	size := uint64(gpucore.Size(params))
	size = (size + 15) &^ 15
	off := (uint64(len(g.arenaHost)) + g.lim.uniformAlign - 1) &^ (g.lim.uniformAlign - 1)
	if off+size > arenaSize {
		return 0, 0, false, nil
	}
	if g.arena == nil {
		if n := len(g.arenas); n > 0 {
			g.arena = g.arenas[n-1]
			g.arenas = g.arenas[:n-1]
		} else {
			b, err := g.dev.CreateBuffer(&wgpu.BufferDescriptor{
				Label: "tessera uniforms",
				Usage: wgpu.BufferUsage_Uniform | wgpu.BufferUsage_CopyDst,
				Size:  arenaSize,
			})
			if err != nil {
				return 0, 0, false, g.wgpuError("CreateBuffer", err)
			}
			g.stats.gpuBytes.Add(arenaSize)
			g.arena = b
		}
	}
	for uint64(len(g.arenaHost)) < off {
		g.arenaHost = append(g.arenaHost, 0)
	}
	g.arenaHost = gpucore.Pack(g.arenaHost, params)
	for uint64(len(g.arenaHost)) < off+size {
		g.arenaHost = append(g.arenaHost, 0)
	}
	return off, size, true, nil
}

// passLocked returns the open compute pass of the pending batch, opening
// one if needed. Dispatches of consecutive operations share one pass (wgpu
// still places barriers between dependent dispatches), which halves the
// per-operation cost on lavapipe compared with a pass per operation.
func (g *gpu) passLocked(op string) (*wgpu.ComputePassEncoder, error) {
	if g.pass != nil {
		return g.pass, nil
	}
	enc, err := g.encoderLocked(op)
	if err != nil {
		return nil, err
	}
	g.pass = enc.BeginComputePass(nil)
	return g.pass, nil
}

// endPassLocked closes the open compute pass, if any, so copy commands can
// be encoded or the batch submitted. wgpu validates a pass's dispatches
// here; a failure drops the batch and is reported by Sync.
func (g *gpu) endPassLocked() {
	if g.pass == nil {
		return
	}
	err := g.pass.End()
	g.pass.Release()
	g.pass = nil
	for i, bg := range g.passGroups {
		bg.Release()
		g.passGroups[i] = nil
	}
	g.passGroups = g.passGroups[:0]
	if err != nil {
		g.asyncError("Submit", "a batch of queued work was dropped: "+err.Error())
	}
}

// runLocked runs a plan: it allocates the plan's scratch buffers, encodes
// its dispatches into the pending batch (submitting when the batch is
// large) and frees the scratch once the batch completes. Errors creating a
// dispatch's bind group are returned typed.
func (g *gpu) runLocked(op string, pl *gpucore.Plan) error {
	var temps []*gbuf
	defer func() {
		for _, t := range temps {
			g.releaseTempLocked(t)
		}
	}()
	for _, s := range pl.Scratch {
		t, err := g.tempLocked(op, s.DT, s.N)
		if err != nil {
			return err
		}
		temps = append(temps, t)
	}
	var spec *gpucore.Kernel
	var k *kernel
	var ents []wgpu.BindGroupEntry
	for _, d := range pl.Steps {
		if d.Kernel != spec {
			var err error
			if k, err = g.kernelLocked(op, d.Kernel.Template, d.Kernel.Vars, d.Kernel.RW, d.Kernel.RO); err != nil {
				return err
			}
			spec = d.Kernel
		}
		uoff, usize, ok, err := g.uniformLocked(d.Params)
		if err != nil {
			return err
		}
		if !ok {
			g.flushLocked()
			if uoff, usize, ok, err = g.uniformLocked(d.Params); err != nil {
				return err
			}
			if !ok {
				return errs.New("webgpu", op, errs.ErrUnsupported, "uniform data does not fit an arena")
			}
		}
		ents = append(ents[:0], wgpu.BindGroupEntry{Binding: 0, Buffer: g.arena, Offset: uoff, Size: usize})
		for j, b := range d.Binds {
			ents = append(ents, wgpu.BindGroupEntry{Binding: uint32(j + 1), Buffer: resolve(b.Buf, temps).b, Offset: b.Off, Size: b.Size})
		}
		bg, err := g.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Layout: k.bgl, Entries: ents})
		if err != nil {
			return g.wgpuError(op, err)
		}
		pass, err := g.passLocked(op)
		if err != nil {
			bg.Release()
			return err
		}
		for _, b := range d.Binds {
			resolve(b.Buf, temps).lastUse = g.seq
		}
		g.passGroups = append(g.passGroups, bg)
		pass.SetPipeline(k.pipe)
		pass.SetBindGroup(0, bg, nil)
		pass.DispatchWorkgroups(d.Grid[0], d.Grid[1], d.Grid[2])
		g.stats.dispatches.Add(1)
		g.pendingOps++
		if g.pendingOps >= batchOps {
			g.flushLocked()
		}
	}
	return nil
}

// resolve maps a planned buffer to the device buffer it stands for.
func resolve(b gpucore.Buffer, temps []*gbuf) *gbuf {
	if s, ok := b.(*gpucore.Scratch); ok {
		return temps[s.Index]
	}
	return b.(*gbuf)
}

// flushLocked submits the pending batch, if any.
func (g *gpu) flushLocked() {
	if g.enc == nil {
		g.arenaHost = g.arenaHost[:0] // no dispatch reads the arena yet
		return
	}
	g.endPassLocked()
	// The uniforms land before the batch runs: queue writes are ordered
	// before the next submission. (For these few kilobytes WriteBuffer
	// measured faster than staging through an upload buffer.)
	if len(g.arenaHost) > 0 {
		if err := g.queue.WriteBuffer(g.arena, 0, g.arenaHost); err != nil {
			g.asyncError("Submit", "uniforms not written: "+err.Error())
		}
	}
	cb, err := g.enc.Finish(nil)
	g.enc.Release()
	g.enc = nil
	seq := g.seq
	if err != nil {
		g.asyncError("Submit", "a batch of queued work was dropped: "+err.Error())
	} else {
		g.queue.Submit(cb)
		cb.Release()
		g.stats.submits.Add(1)
	}
	g.seq++
	g.submitted = seq
	onSubmittedWorkDone(g.queue, func(st wgpu.QueueWorkDoneStatus) {
		if st == wgpu.QueueWorkDoneStatus_DeviceLost {
			g.markLost("queue reported device lost")
		}
		g.complete(seq)
	})
	if g.arena != nil {
		g.retired = append(g.retired, retired{seq: seq, buf: g.arena, size: arenaSize, kind: retireArena})
		g.arena = nil
	}
	g.arenaHost = g.arenaHost[:0]
	g.pendingOps = 0
	// Back-pressure: do not let the host run far ahead of the GPU.
	if g.submitted-g.completed.Load() > maxInflight {
		g.waitLocked(g.submitted - maxInflight/2)
	}
	g.reapLocked()
}

// complete records that batch seq (and so every earlier one) finished.
func (g *gpu) complete(seq uint64) {
	for {
		c := g.completed.Load()
		if c >= seq || g.completed.CompareAndSwap(c, seq) {
			return
		}
	}
}

// reapLocked recycles resources whose batches have completed.
func (g *gpu) reapLocked() {
	c := g.completed.Load()
	keep := g.retired[:0]
	for _, r := range g.retired {
		if r.seq > c {
			keep = append(keep, r)
			continue
		}
		switch r.kind {
		case retireArena:
			if len(g.arenas) < 2*maxInflight {
				g.arenas = append(g.arenas, r.buf)
			} else {
				g.destroyBuffer(r.buf, r.size)
			}
		case retireStorage:
			g.poolPutLocked(r.buf, r.size)
		case retireStage:
			g.stagePutLocked(r.buf, r.size)
		case retireUpload:
			g.remapLocked(r.buf, r.size)
		}
	}
	for i := len(keep); i < len(g.retired); i++ {
		g.retired[i] = retired{}
	}
	g.retired = keep
	g.collectRemappedLocked()
}

// poll lets wgpu run callbacks. It never blocks: Poll(true) is not trusted
// (on wgpu 0.17 it gives up after about 5 s and lets the caller free
// buffers still in use; docs/architecture.md, "The WebGPU backend").
func (g *gpu) pollLocked() {
	if !g.closed {
		g.dev.Poll(false, nil)
	}
}

// waitLocked waits, holding the lock, until batch seq completes.
func (g *gpu) waitLocked(seq uint64) error {
	return g.waitUntil("wait", func() bool { return g.completed.Load() >= seq }, true)
}

// waitSeq waits, without holding the lock between polls, until batch seq
// completes.
func (g *gpu) waitSeq(seq uint64) error {
	return g.waitUntil("wait", func() bool { return g.completed.Load() >= seq }, false)
}

// waitUntil polls until done reports true, the device is lost, or the wait
// timeout passes (which marks the device lost). locked says whether the
// caller holds g.mu.
func (g *gpu) waitUntil(op string, done func() bool, locked bool) error {
	start := time.Now()
	for {
		if done() {
			return nil
		}
		if err := g.lostError(op); err != nil {
			return err
		}
		if locked {
			g.pollLocked()
		} else {
			g.mu.Lock()
			if g.closed {
				g.mu.Unlock()
				return errs.New("webgpu", op, errs.ErrDeviceLost, "device %q was closed while waiting", g.name)
			}
			g.pollLocked()
			g.reapLocked()
			g.mu.Unlock()
		}
		if done() {
			return nil
		}
		if time.Since(start) > g.timeout {
			g.markLost("timed out waiting for the GPU after " + g.timeout.String())
			return g.lostError(op)
		}
		// Spin briefly (a small dispatch completes in tens of
		// microseconds, far below the granularity of a sleep), then back
		// off so a long wait does not take a CPU from the driver.
		switch waited := time.Since(start); {
		case waited < time.Millisecond:
			runtime.Gosched()
		case waited < 20*time.Millisecond:
			time.Sleep(50 * time.Microsecond)
		default:
			time.Sleep(time.Millisecond)
		}
	}
}

// Sync submits pending work, waits for all of it, and reports the first
// asynchronous error since the last Sync.
func (g *gpu) Sync() error {
	g.mu.Lock()
	if err := g.usableLocked("Sync"); err != nil {
		g.mu.Unlock()
		return err
	}
	g.flushLocked()
	last := g.submitted
	g.mu.Unlock()
	if err := g.waitSeq(last); err != nil {
		return err
	}
	g.mu.Lock()
	g.reapLocked()
	g.mu.Unlock()
	return g.takeAsyncError()
}
