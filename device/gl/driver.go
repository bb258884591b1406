//go:build cgo && linux

package gl

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
)

func init() { device.Register(driver{}) }

// driver is the registry entry for OpenGL devices.
type driver struct{}

// Name is the registry prefix of the driver's device names.
func (driver) Name() string { return DriverName }

// Enumerate lists "gl" and "gl:software" when a context can be created for
// them (each is opened briefly to read its description). Having none, or
// no libEGL, is not an error.
func (driver) Enumerate() ([]device.Info, error) {
	var out []device.Info
	for _, sw := range []bool{false, true} {
		d, err := OpenWith(Options{Software: sw})
		if err != nil {
			continue
		}
		out = append(out, d.Info())
		d.Close()
	}
	return out, nil
}

// Open opens "gl" or "gl:software".
func (driver) Open(name string) (device.Device, error) {
	switch name {
	case DriverName:
		return OpenWith(Options{Name: name})
	case DriverName + ":software":
		return OpenWith(Options{Software: true, Name: name})
	}
	return nil, errs.New("gl", "Open", errs.ErrDevice, "unknown device %q (known: %q, %q)", name, DriverName, DriverName+":software")
}
