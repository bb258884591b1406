// Package transfer moves tensor storage between devices.
//
// A view moves as the span of storage it touches, [lo, hi) of its layout,
// straight from the source buffer: a transposed or narrowed view is not
// materialised first, and the destination keeps the view's layout rebased to
// the new buffer. Host memory (device.HostBuffer) is read and written in
// place; two non-host devices exchange data through one host buffer.
// Every byte moved is counted, so tests can prove what a transfer sent.
package transfer

import (
	"sync/atomic"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Counters are totals of bytes moved since the process started.
type Counters struct {
	Uploaded   int64 // host memory to a device buffer
	Downloaded int64 // device buffer to host memory
	HostCopied int64 // host memory to host memory (two CPU devices)
}

var up, down, host atomic.Int64

// Stats returns the byte counters.
func Stats() Counters {
	return Counters{Uploaded: up.Load(), Downloaded: down.Load(), HostCopied: host.Load()}
}

// Move copies the storage span of src (a buffer of device from, seen through
// a layout) into a new buffer on device to. It returns the new buffer and the
// layout that reads the same logical elements from it.
func Move(to, from device.Device, src device.Operand) (device.Buffer, layout.Layout, error) {
	dt := src.DType()
	lo, hi := src.Layout.Span()
	n := hi - lo
	size := dt.Size()
	buf, err := to.Backend().Alloc(dt, n)
	if err != nil {
		return nil, layout.Layout{}, err
	}
	fail := func(err error) (device.Buffer, layout.Layout, error) {
		to.Backend().Free(buf)
		return nil, layout.Layout{}, errs.Retag("transfer", "Move", err)
	}
	sh, srcHost := src.Buf.(device.HostBuffer)
	dh, dstHost := buf.(device.HostBuffer)
	switch {
	case n == 0:
	case srcHost && dstHost:
		copy(dh.Bytes(), sh.Bytes()[lo*size:hi*size])
		host.Add(int64(n * size))
	case srcHost:
		if err := to.Backend().Upload(buf, 0, sh.Bytes()[lo*size:hi*size]); err != nil {
			return fail(err)
		}
		up.Add(int64(n * size))
	case dstHost:
		if err := from.Backend().Download(dh.Bytes(), src.Buf, lo); err != nil {
			return fail(err)
		}
		down.Add(int64(n * size))
	default:
		staging := make([]byte, n*size)
		if err := from.Backend().Download(staging, src.Buf, lo); err != nil {
			return fail(err)
		}
		down.Add(int64(n * size))
		if err := to.Backend().Upload(buf, 0, staging); err != nil {
			return fail(err)
		}
		up.Add(int64(n * size))
	}
	return buf, src.Layout.Rebase(-lo), nil
}
