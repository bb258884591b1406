//go:build !cgo || !linux

package gl

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
)

func TestStubUnavailable(t *testing.T) {
	if _, err := OpenWith(Options{}); !errors.Is(err, errs.ErrUnavailable) {
		t.Errorf("OpenWith: %v, want ErrUnavailable", err)
	}
	if _, err := device.Open("gl:software"); !errors.Is(err, errs.ErrUnavailable) {
		t.Errorf("device.Open: %v, want ErrUnavailable", err)
	}
	if infos, err := (stubDriver{}).Enumerate(); err != nil || len(infos) != 0 {
		t.Errorf("Enumerate: %v, %v", infos, err)
	}
}
