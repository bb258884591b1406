//go:build cgo && linux

package gl

import (
	"sync/atomic"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// gbuf is a shader storage buffer holding n elements of one dtype, stored
// as the kernels expect (gpucore.ElemBytes): U8 and Bool one u32 per
// element, F16 packed in pairs, I64 a (lo, hi) u32 pair.
type gbuf struct {
	g        *gpu
	dt       dtype.DType
	n        int
	size     uint64 // bytes of the GL buffer (its size class)
	id       uint32 // GL buffer name; 0 when n == 0
	freed    atomic.Bool
	internal bool // a temporary of the backend, not counted in MemoryInUse
}

// DType is the element type.
func (b *gbuf) DType() dtype.DType { return b.dt }

// Len is the number of elements.
func (b *gbuf) Len() int { return b.n }

// Bytes is the size of the GL buffer (its size class), for the planner.
func (b *gbuf) Bytes() uint64 { return b.size }

// Alloc returns an uninitialised buffer of n elements.
func (g *gpu) Alloc(dt dtype.DType, n int) (device.Buffer, error) {
	if err := g.plan.CheckStorable("Alloc", dt); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errs.New("gl", "Alloc", errs.ErrShape, "negative element count %d", n)
	}
	var b *gbuf
	err := g.call("Alloc", func() error {
		var err error
		b, err = g.alloc("Alloc", dt, n, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// alloc creates or reuses a buffer (owner thread). Internal buffers are
// the backend's temporaries.
func (g *gpu) alloc(op string, dt dtype.DType, n int, internal bool) (*gbuf, error) {
	b := &gbuf{g: g, dt: dt, n: n, internal: internal}
	if n == 0 {
		return b, nil
	}
	esz := uint64(gpucore.ElemBytes(dt))
	if uint64(n) > g.lim.maxBuffer/esz {
		return nil, errs.New("gl", op, errs.ErrOutOfMemory,
			"%d elements of %s need %d bytes, above the device's %d-byte buffer limit", n, dt, uint64(n)*esz, g.lim.maxBuffer)
	}
	size := g.plan.Lim.AllocBytes(dt, n)
	id, ok := g.pool.Get(size)
	if !ok {
		var err error
		if id, err = g.newBuffer(op, size); err != nil {
			return nil, err
		}
	}
	b.id, b.size = id, size
	if !internal {
		g.inUse.Add(int64(size))
	}
	return b, nil
}

// newBuffer creates a GL buffer of size bytes, giving pooled memory back
// and trying again once when the driver is out of memory.
func (g *gpu) newBuffer(op string, size uint64) (uint32, error) {
	for try := 0; ; try++ {
		id := glNewBuffer(size, glDynamicCopy)
		err := g.checkGL(op)
		if err == nil {
			g.stats.glBuffers.Add(1)
			g.stats.glBytes.Add(int64(size))
			return id, nil
		}
		if id != 0 {
			glDeleteBuffer(id)
		}
		if try > 0 || g.pool.Bytes() == 0 || g.lost.Load() {
			return 0, errs.Wrap("gl", op, errs.ErrOutOfMemory, err, "cannot create a buffer of %d bytes", size)
		}
		g.pool.Drain(g.deleteBuffer)
	}
}

// deleteBuffer deletes a GL buffer. OpenGL keeps its storage until the
// commands already issued that use it have run.
func (g *gpu) deleteBuffer(id uint32, size uint64) {
	glDeleteBuffer(id)
	g.stats.glBytes.Add(-int64(size))
}

// Free returns the buffer's memory to the pool (OpenGL orders later
// writes after the commands that still read it). It queues the release on
// the owner goroutine without waiting. Freeing twice, a nil
// buffer or another device's buffer does nothing; after Close it only
// settles the accounting.
func (g *gpu) Free(buf device.Buffer) {
	b, ok := buf.(*gbuf)
	if !ok || b == nil || b.g != g || !b.freed.CompareAndSwap(false, true) {
		return
	}
	if !b.internal && b.id != 0 {
		g.inUse.Add(-int64(b.size))
	}
	if b.id == 0 {
		return
	}
	g.post(func() { g.release(b) })
}

// release puts a freed buffer's GL storage in the pool (owner thread).
func (g *gpu) release(b *gbuf) {
	id := b.id
	b.id = 0
	if id == 0 || g.ended {
		return
	}
	if !g.pool.Put(id, b.size) {
		g.deleteBuffer(id, b.size)
	}
}

// freeTemp frees an internal buffer (owner thread).
func (g *gpu) freeTemp(b *gbuf) {
	if b != nil && b.freed.CompareAndSwap(false, true) {
		g.release(b)
	}
}

// MemoryInUse is the number of bytes held by live (allocated and not yet
// freed) buffers, counted in the size classes actually reserved.
func (g *gpu) MemoryInUse() int64 { return g.inUse.Load() }

// own checks that buf is a live buffer of this device.
func (g *gpu) own(op, role string, buf device.Buffer) (*gbuf, error) {
	if buf == nil {
		return nil, errs.New("gl", op, errs.ErrDevice, "%s buffer is nil", role)
	}
	b, ok := buf.(*gbuf)
	if !ok || b == nil {
		return nil, errs.New("gl", op, errs.ErrDevice, "%s buffer (%T) does not belong to device %q", role, buf, g.name)
	}
	if b.g != g {
		return nil, errs.New("gl", op, errs.ErrDevice, "%s buffer belongs to device %q, not %q", role, b.g.name, g.name)
	}
	if b.freed.Load() {
		return nil, errs.New("gl", op, errs.ErrReleased, "%s buffer was freed", role)
	}
	return b, nil
}

// hostRange validates an Upload/Download of nbytes host bytes at element
// off of b and returns the element count.
func hostRange(op string, b *gbuf, off, nbytes int) (int, error) {
	hs := b.dt.Size()
	if nbytes%hs != 0 {
		return 0, errs.New("gl", op, errs.ErrShape, "%d bytes is not a whole number of %s elements (%d bytes each)", nbytes, b.dt, hs)
	}
	cnt := nbytes / hs
	if off < 0 || off > b.n || cnt > b.n-off {
		return 0, errs.New("gl", op, errs.ErrShape, "elements [%d, %d) are outside the buffer of %d", off, off+cnt, b.n)
	}
	return cnt, nil
}

// Upload copies len(src) host bytes (1 byte per U8 or Bool element, 2 per
// F16, 4 per F32/I32, 8 per I64) into buf from element off. The bytes go
// from src straight into the buffer with one glBufferSubData (no Go copy,
// no staging), ordered after the work already issued; a transposed or
// narrowed view's storage span is uploaded as is and read in place. U8 and
// Bool are sent packed and widened to 32 bits by a kernel.
func (g *gpu) Upload(buf device.Buffer, off int, src []byte) error {
	const op = "Upload"
	return g.call(op, func() error {
		b, err := g.own(op, "dst", buf)
		if err != nil {
			return err
		}
		cnt, err := hostRange(op, b, off, len(src))
		if err != nil || cnt == 0 {
			return err
		}
		g.bufferBarrier() // the buffers may hold earlier shader writes
		if b.dt == dtype.U8 || b.dt == dtype.Bool {
			tmp, err := g.alloc(op, dtype.U8, (len(src)+3)/4, true)
			if err != nil {
				return err
			}
			defer g.freeTemp(tmp)
			glWrite(tmp.id, 0, src)
			return g.run(op, g.plan.Widen(b, tmp, off, len(src)))
		}
		glWrite(b.id, uint64(off*gpucore.ElemBytes(b.dt)), src)
		return g.checkGL(op)
	})
}

// Download copies len(dst) bytes (host format) out of buf from element
// off, after all work issued before it has finished (a fence with a
// bounded wait), straight into dst.
func (g *gpu) Download(dst []byte, buf device.Buffer, off int) error {
	const op = "Download"
	return g.call(op, func() error {
		b, err := g.own(op, "src", buf)
		if err != nil {
			return err
		}
		cnt, err := hostRange(op, b, off, len(dst))
		if err != nil || cnt == 0 {
			return err
		}
		if b.dt != dtype.U8 && b.dt != dtype.Bool {
			if err := g.waitIdle(op); err != nil {
				return err
			}
			glRead(b.id, uint64(off*gpucore.ElemBytes(b.dt)), dst)
			return g.checkGL(op)
		}
		// Narrow on the GPU, four elements per word, a piece at a time.
		per := g.plan.Lim.PieceElems(4)
		for start := 0; start < cnt; start += per {
			n := min(per, cnt-start)
			tmp, err := g.alloc(op, dtype.U8, (n+3)/4, true)
			if err != nil {
				return err
			}
			err = g.run(op, g.plan.Narrow(tmp, b, off+start, n))
			if err == nil {
				err = g.waitIdle(op)
			}
			if err == nil {
				glRead(tmp.id, 0, dst[start:start+n])
				err = g.checkGL(op)
			}
			g.freeTemp(tmp)
			if err != nil {
				return err
			}
		}
		return nil
	})
}
