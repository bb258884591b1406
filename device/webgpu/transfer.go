//go:build cgo

package webgpu

import (
	"sync/atomic"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/gpucore"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// hostRange validates an Upload/Download of nbytes host bytes at element
// off of b and returns the element count.
func hostRange(op string, b *gbuf, off, nbytes int) (int, error) {
	hs := b.dt.Size()
	if nbytes%hs != 0 {
		return 0, errs.New("webgpu", op, errs.ErrShape, "%d bytes is not a whole number of %s elements (%d bytes each)", nbytes, b.dt, hs)
	}
	cnt := nbytes / hs
	if off < 0 || off > b.n || cnt > b.n-off {
		return 0, errs.New("webgpu", op, errs.ErrShape, "elements [%d, %d) are outside the buffer of %d", off, off+cnt, b.n)
	}
	return cnt, nil
}

// Upload copies len(src) host bytes (in the host format: 1 byte per U8 or
// Bool element, 2 per F16, 4 per F32/I32, 8 per I64) into buf starting at
// element off. The bytes are copied once, straight from src into a mapped
// upload buffer (no intermediate Go copy), and moved by a command in the
// pending batch, so the upload keeps its order with queued work. U8 and
// Bool are widened to their 32-bit GPU form by a kernel.
func (g *gpu) Upload(buf device.Buffer, off int, src []byte) error {
	const op = "Upload"
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usableLocked(op); err != nil {
		return err
	}
	b, err := g.ownLocked(op, "dst", buf)
	if err != nil {
		return err
	}
	cnt, err := hostRange(op, b, off, len(src))
	if err != nil || cnt == 0 {
		return err
	}
	switch {
	case b.dt == dtype.U8 || b.dt == dtype.Bool:
		return g.uploadWidenLocked(op, b, off, src)
	case b.dt == dtype.F16 && (off%2 != 0 || cnt%2 != 0):
		return g.uploadHalvesLocked(op, b, off, src)
	}
	return g.writeLocked(op, b, uint64(off*gpucore.ElemBytes(b.dt)), src)
}

// uploadWidenLocked sends U8/Bool bytes packed and widens them on the GPU,
// in pieces whose bindings fit the device limit.
func (g *gpu) uploadWidenLocked(op string, b *gbuf, off int, src []byte) error {
	tmp, err := g.tempLocked(op, dtype.U8, (len(src)+3)/4)
	if err != nil {
		return err
	}
	defer g.releaseTempLocked(tmp)
	if err := g.writeLocked(op, tmp, 0, src); err != nil {
		return err
	}
	return g.runLocked(op, g.plan.Widen(b, tmp, off, len(src)))
}

// uploadHalvesLocked handles F16 data whose byte offset or length is not
// word aligned: the bytes go to a temporary, and a bit-moving copy places
// them.
func (g *gpu) uploadHalvesLocked(op string, b *gbuf, off int, src []byte) error {
	cnt := len(src) / 2
	tmp, err := g.tempLocked(op, dtype.F16, cnt)
	if err != nil {
		return err
	}
	defer g.releaseTempLocked(tmp)
	if err := g.writeLocked(op, tmp, 0, src); err != nil {
		return err
	}
	pl, err := g.plan.CopyContiguous(op, b, off, tmp, cnt)
	if err != nil {
		return err
	}
	return g.runLocked(op, pl)
}

// downloadPiece is the most host bytes one staging round trip moves.
const downloadPiece = 32 << 20

// Download copies len(dst) bytes (host format) out of buf starting at
// element off, after all work queued before it has finished.
func (g *gpu) Download(dst []byte, buf device.Buffer, off int) error {
	const op = "Download"
	g.mu.Lock()
	if err := g.usableLocked(op); err != nil {
		g.mu.Unlock()
		return err
	}
	b, err := g.ownLocked(op, "src", buf)
	if err != nil {
		g.mu.Unlock()
		return err
	}
	cnt, err := hostRange(op, b, off, len(dst))
	g.mu.Unlock()
	if err != nil || cnt == 0 {
		return err
	}
	hs := b.dt.Size()
	per := max(downloadPiece/hs, 1024)
	if b.dt == dtype.U8 || b.dt == dtype.Bool {
		per = min(per, g.plan.Lim.PieceElems(4))
	}
	for start := 0; start < cnt; start += per {
		n := min(per, cnt-start)
		if err := g.downloadPiece(op, dst[start*hs:(start+n)*hs], b, off+start, n); err != nil {
			return err
		}
	}
	return nil
}

func (g *gpu) downloadPiece(op string, dst []byte, b *gbuf, off, n int) error {
	g.mu.Lock()
	if err := g.usableLocked(op); err != nil {
		g.mu.Unlock()
		return err
	}
	if b.freed {
		g.mu.Unlock()
		return errs.New("webgpu", op, errs.ErrReleased, "src buffer was freed")
	}
	src := b
	var lo, hi uint64 // byte range of src to read
	var tmp *gbuf
	switch b.dt {
	case dtype.U8, dtype.Bool:
		// Narrow on the GPU: four elements per word.
		var err error
		tmp, err = g.tempLocked(op, dtype.U8, (n+3)/4)
		if err == nil {
			err = g.runLocked(op, g.plan.Narrow(tmp, b, off, n))
		}
		if err != nil {
			g.releaseTempLocked(tmp)
			g.mu.Unlock()
			return err
		}
		src, lo, hi = tmp, 0, uint64((n+3)/4*4)
	default:
		esz := uint64(gpucore.ElemBytes(b.dt))
		lo = uint64(off) * esz
		hi = uint64(off+n) * esz
	}
	skip := lo & 3
	lo &^= 3
	hi = (hi + 3) &^ 3
	size := hi - lo
	stage, cls, err := g.stagingLocked(op, size)
	if err != nil {
		g.releaseTempLocked(tmp)
		g.mu.Unlock()
		return err
	}
	g.endPassLocked()
	enc, err := g.encoderLocked(op)
	if err == nil {
		err = enc.CopyBufferToBuffer(src.b, lo, stage, 0, size)
		src.lastUse = g.seq
	}
	g.releaseTempLocked(tmp)
	if err != nil {
		g.stagePutLocked(stage, cls)
		g.mu.Unlock()
		return g.wgpuError(op, err)
	}
	g.flushLocked()
	var status atomic.Int32
	status.Store(-1)
	if !mapAsync(stage, size, func(st wgpu.BufferMapAsyncStatus) { status.Store(int32(st)) }) {
		g.retired = append(g.retired, retired{seq: g.submitted, buf: stage, size: cls, kind: retireStage})
		g.mu.Unlock()
		return errs.New("webgpu", op, errs.ErrUnsupported, "cannot map the readback buffer")
	}
	g.mu.Unlock()
	werr := g.waitUntil(op, func() bool { return status.Load() >= 0 }, false)
	g.mu.Lock()
	defer g.mu.Unlock()
	if werr != nil {
		// The stage may still be mapped or in use: drop it rather than reuse.
		stage.Release()
		return werr
	}
	if st := wgpu.BufferMapAsyncStatus(status.Load()); st != wgpu.BufferMapAsyncStatus_Success {
		stage.Release()
		if e := g.lostError(op); e != nil {
			return e
		}
		return errs.New("webgpu", op, errs.ErrUnsupported, "mapping the readback buffer failed: %s", st)
	}
	data := stage.GetMappedRange(0, uint(size))
	copy(dst, data[skip:])
	stage.Unmap()
	g.stagePutLocked(stage, cls)
	return nil
}
