//go:build !cgo

package webgpu

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
)

func init() { device.Register(stubDriver{}) }

// stubDriver stands in for the backend in builds without cgo, so that the
// device name is known and its absence is reported as a typed error.
type stubDriver struct{}

func (stubDriver) Name() string                      { return DriverName }
func (stubDriver) Enumerate() ([]device.Info, error) { return nil, nil }
func (stubDriver) Open(name string) (device.Device, error) {
	return nil, unavailable("Open")
}

// OpenWith reports errs.ErrUnavailable: this build has no cgo, and wgpu
// needs it.
func OpenWith(o Options) (device.Device, error) { return nil, unavailable("OpenWith") }

func unavailable(op string) error {
	return errs.New("webgpu", op, errs.ErrUnavailable, "built without cgo; rebuild with CGO_ENABLED=1 to use WebGPU")
}
