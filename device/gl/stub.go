//go:build !cgo || !linux

package gl

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
)

func init() { device.Register(stubDriver{}) }

// stubDriver stands in for the backend in builds without cgo (or outside
// Linux, where no headless EGL path is implemented), so the device name is
// known and its absence is reported as a typed error.
type stubDriver struct{}

func (stubDriver) Name() string                      { return DriverName }
func (stubDriver) Enumerate() ([]device.Info, error) { return nil, nil }
func (stubDriver) Open(name string) (device.Device, error) {
	return nil, unavailable("Open")
}

// OpenWith reports errs.ErrUnavailable: this build has no cgo (or is not
// for Linux), and the EGL/OpenGL binding needs both.
func OpenWith(o Options) (device.Device, error) { return nil, unavailable("OpenWith") }

func unavailable(op string) error {
	return errs.New("gl", op, errs.ErrUnavailable, "built without cgo or not for Linux; the OpenGL backend needs CGO_ENABLED=1 on Linux with libEGL (Debian: libegl1 libgl1 libgl1-mesa-dri)")
}
