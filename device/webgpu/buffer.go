//go:build cgo

package webgpu

import (
	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// gbuf is GPU storage for n elements of one dtype. U8 and Bool occupy one
// u32 per element, F16 two bytes (packed in pairs), I64 a (lo, hi) u32 pair.
type gbuf struct {
	g        *gpu
	dt       dtype.DType
	n        int
	size     uint64       // bytes of the GPU buffer (its size class)
	b        *wgpu.Buffer // nil when n == 0
	lastUse  uint64       // batch that last used it; guarded by g.mu
	freed    bool         // guarded by g.mu
	internal bool         // a temporary of the backend, not counted in MemoryInUse
}

// DType is the element type.
func (b *gbuf) DType() dtype.DType { return b.dt }

// Len is the number of elements.
func (b *gbuf) Len() int { return b.n }

// Bytes is the size of the GPU buffer (its size class), for the planner.
func (b *gbuf) Bytes() uint64 { return b.size }

// Alloc returns an uninitialised buffer of n elements.
func (g *gpu) Alloc(dt dtype.DType, n int) (device.Buffer, error) {
	if err := g.plan.CheckStorable("Alloc", dt); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errs.New("webgpu", "Alloc", errs.ErrShape, "negative element count %d", n)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usableLocked("Alloc"); err != nil {
		return nil, err
	}
	b, err := g.allocLocked("Alloc", dt, n, false)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// allocLocked creates or reuses a buffer. Internal buffers are the
// backend's temporaries.
func (g *gpu) allocLocked(op string, dt dtype.DType, n int, internal bool) (*gbuf, error) {
	b := &gbuf{g: g, dt: dt, n: n, internal: internal}
	if internal {
		g.stats.tempAllocs.Add(1)
	}
	if n == 0 {
		return b, nil
	}
	esz := uint64(gpucore.ElemBytes(dt))
	if uint64(n) > g.lim.maxBuffer/esz {
		return nil, errs.New("webgpu", op, errs.ErrOutOfMemory,
			"%d elements of %s need %d bytes, above the device's maxBufferSize of %d bytes", n, dt, uint64(n)*esz, g.lim.maxBuffer)
	}
	size := g.plan.Lim.AllocBytes(dt, n)
	buf, err := g.poolGetLocked(op, size)
	if err != nil {
		return nil, err
	}
	b.b, b.size = buf, size
	if !internal {
		g.inUse.Add(int64(size))
	}
	return b, nil
}

func (g *gpu) poolGetLocked(op string, size uint64) (*wgpu.Buffer, error) {
	if buf, ok := g.pool.Get(size); ok {
		return buf, nil
	}
	buf, err := g.dev.CreateBuffer(&wgpu.BufferDescriptor{
		Label: "tessera",
		Usage: wgpu.BufferUsage_Storage | wgpu.BufferUsage_CopySrc | wgpu.BufferUsage_CopyDst,
		Size:  size,
	})
	if err != nil && g.pool.Bytes() > 0 {
		// Give pooled memory back and try once more.
		g.drainPoolLocked()
		buf, err = g.dev.CreateBuffer(&wgpu.BufferDescriptor{
			Label: "tessera",
			Usage: wgpu.BufferUsage_Storage | wgpu.BufferUsage_CopySrc | wgpu.BufferUsage_CopyDst,
			Size:  size,
		})
	}
	if err != nil {
		if e := g.lostError(op); e != nil {
			return nil, e
		}
		return nil, errs.Wrap("webgpu", op, errs.ErrOutOfMemory, err, "cannot create a buffer of %d bytes", size)
	}
	g.stats.gpuAllocs.Add(1)
	g.stats.gpuBytes.Add(int64(size))
	return buf, nil
}

func (g *gpu) poolPutLocked(buf *wgpu.Buffer, size uint64) {
	if g.closed || !g.pool.Put(buf, size) {
		g.destroyBuffer(buf, size)
	}
}

func (g *gpu) drainPoolLocked() { g.pool.Drain(g.destroyBuffer) }

// destroyBuffer frees GPU memory of a buffer no queued work uses.
func (g *gpu) destroyBuffer(buf *wgpu.Buffer, size uint64) {
	buf.Destroy()
	buf.Release()
	g.stats.gpuBytes.Add(-int64(size))
}

// Free returns the buffer's memory to the pool once the work that uses it
// has completed. Freeing twice, a nil buffer or another device's buffer does
// nothing.
func (g *gpu) Free(buf device.Buffer) {
	b, ok := buf.(*gbuf)
	if !ok || b == nil || b.g != g {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.freeLocked(b)
}

func (g *gpu) freeLocked(b *gbuf) {
	if b.freed {
		return
	}
	b.freed = true
	if !b.internal && b.b != nil {
		g.inUse.Add(-int64(b.size))
	}
	if b.b == nil {
		return
	}
	if g.closed {
		b.b.Release()
		b.b = nil
		return
	}
	if b.lastUse > g.completed.Load() {
		g.retired = append(g.retired, retired{seq: b.lastUse, buf: b.b, size: b.size, kind: retireStorage})
	} else {
		g.poolPutLocked(b.b, b.size)
	}
	b.b = nil
}

// MemoryInUse is the number of bytes held by live (allocated and not yet
// freed) buffers, counted in the size classes actually reserved.
func (g *gpu) MemoryInUse() int64 { return g.inUse.Load() }

// tempLocked allocates an internal buffer that is freed when the pending
// batch completes.
func (g *gpu) tempLocked(op string, dt dtype.DType, n int) (*gbuf, error) {
	return g.allocLocked(op, dt, n, true)
}

// releaseTempLocked frees an internal buffer after the pending batch.
func (g *gpu) releaseTempLocked(b *gbuf) {
	if b == nil {
		return
	}
	if b.b != nil && b.lastUse < g.seq {
		b.lastUse = g.seq // queued writes target it in the pending batch
	}
	g.freeLocked(b)
}

// stagingLocked returns a mappable buffer of at least size bytes for
// readback.
func (g *gpu) stagingLocked(op string, size uint64) (*wgpu.Buffer, uint64, error) {
	cls := gpucore.SizeClass(size)
	if buf, ok := g.stage.Get(cls); ok {
		return buf, cls, nil
	}
	buf, err := g.dev.CreateBuffer(&wgpu.BufferDescriptor{
		Label: "tessera staging",
		Usage: wgpu.BufferUsage_MapRead | wgpu.BufferUsage_CopyDst,
		Size:  cls,
	})
	if err != nil {
		if e := g.lostError(op); e != nil {
			return nil, 0, e
		}
		return nil, 0, errs.Wrap("webgpu", op, errs.ErrOutOfMemory, err, "cannot create a staging buffer of %d bytes", cls)
	}
	g.stats.gpuBytes.Add(int64(cls))
	return buf, cls, nil
}

const maxStageBytes = 128 << 20

func (g *gpu) stagePutLocked(buf *wgpu.Buffer, size uint64) {
	if g.closed || !g.stage.Put(buf, size) {
		g.destroyBuffer(buf, size)
	}
}

// Upload staging: buffers mapped for writing, filled on the host and copied
// to their destination by a command in the pending batch (so uploads keep
// their order with queued work without a submission). After their batch
// completes they are mapped again in the background and reused; this beats
// Queue.WriteBuffer, which allocates a fresh staging buffer every call.

const maxUploadStage = 256 << 20 // bytes of upload staging kept around

// upStageLocked returns a mapped upload buffer of at least size bytes.
func (g *gpu) upStageLocked(op string, size uint64) (*wgpu.Buffer, uint64, error) {
	cls := gpucore.SizeClass(size)
	if cls > g.lim.maxBuffer {
		cls = (size + 15) &^ 15
	}
	g.collectRemappedLocked()
	buf, ok := g.upReady.Get(cls)
	if !ok && g.upRemapping > 0 {
		// A buffer whose batch finished is being mapped again; the map
		// completes without GPU work, a poll delivers it.
		g.reapLocked()
		g.pollLocked()
		g.collectRemappedLocked()
		buf, ok = g.upReady.Get(cls)
	}
	if ok {
		return buf, cls, nil
	}
	buf, err := g.dev.CreateBuffer(&wgpu.BufferDescriptor{
		Label:            "tessera upload",
		Usage:            wgpu.BufferUsage_MapWrite | wgpu.BufferUsage_CopySrc,
		Size:             cls,
		MappedAtCreation: true,
	})
	if err != nil {
		if e := g.lostError(op); e != nil {
			return nil, 0, e
		}
		return nil, 0, errs.Wrap("webgpu", op, errs.ErrOutOfMemory, err, "cannot create an upload buffer of %d bytes", cls)
	}
	g.stats.gpuBytes.Add(int64(cls))
	g.upBytes += int64(cls)
	return buf, cls, nil
}

// remapLocked maps a used upload buffer again; it becomes ready when the
// map completes. Beyond the staging bound it is destroyed instead.
func (g *gpu) remapLocked(buf *wgpu.Buffer, size uint64) {
	if g.closed || g.upBytes > maxUploadStage {
		g.upBytes -= int64(size)
		g.destroyBuffer(buf, size)
		return
	}
	g.upRemapping++
	ok := mapWrite(buf, size, func(st wgpu.BufferMapAsyncStatus) {
		g.upMu.Lock()
		g.upArrived = append(g.upArrived, remapped{buf: buf, size: size, ok: st == wgpu.BufferMapAsyncStatus_Success})
		g.upMu.Unlock()
	})
	if !ok {
		g.upRemapping--
		g.upBytes -= int64(size)
		g.destroyBuffer(buf, size)
	}
}

// remapped is an upload buffer whose background map finished.
type remapped struct {
	buf  *wgpu.Buffer
	size uint64
	ok   bool
}

// collectRemappedLocked moves upload buffers whose map finished into the
// ready pool.
func (g *gpu) collectRemappedLocked() {
	g.upMu.Lock()
	arrived := g.upArrived
	g.upArrived = nil
	g.upMu.Unlock()
	for _, r := range arrived {
		g.upRemapping--
		if !r.ok || g.closed {
			g.upBytes -= int64(r.size)
			g.destroyBuffer(r.buf, r.size)
			continue
		}
		g.upReady.Put(r.buf, r.size)
	}
}

// writeLocked copies src to byte offset off of dst through an upload
// buffer, in the pending batch. len(src) need not be a multiple of 4: the
// copy rounds up, so dst must have room for the padding.
func (g *gpu) writeLocked(op string, dst *gbuf, off uint64, src []byte) error {
	for len(src) > 0 {
		piece := src[:min(len(src), 64<<20)]
		n := (uint64(len(piece)) + 3) &^ 3
		st, cls, err := g.upStageLocked(op, n)
		if err != nil {
			return err
		}
		copy(st.GetMappedRange(0, uint(cls)), piece)
		if err := st.Unmap(); err != nil {
			g.upBytes -= int64(cls)
			g.destroyBuffer(st, cls)
			return g.wgpuError(op, err)
		}
		g.endPassLocked()
		enc, err := g.encoderLocked(op)
		if err == nil {
			err = enc.CopyBufferToBuffer(st, 0, dst.b, off, n)
		}
		g.retired = append(g.retired, retired{seq: g.seq, buf: st, size: cls, kind: retireUpload})
		if err != nil {
			return g.wgpuError(op, err)
		}
		dst.lastUse = g.seq
		g.pendingOps++
		src = src[len(piece):]
		off += n
	}
	return nil
}
