package device_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
)

// This test binary links no backend, as a program that forgot an import.
func TestOpenUnlinkedBackendNamesImport(t *testing.T) {
	for _, name := range []string{"webgpu", "webgpu:software", "webgpu:1"} {
		_, err := device.Open(name)
		if !errors.Is(err, errs.ErrUnavailable) {
			t.Fatalf("Open(%q) = %v, want ErrUnavailable", name, err)
		}
		if !strings.Contains(err.Error(), `import _ "github.com/tessera-go/tessera/device/webgpu"`) {
			t.Errorf("Open(%q) error %q does not name the import to add", name, err)
		}
	}
	for _, name := range []string{"gl", "gl:software"} {
		_, err := device.Open(name)
		if !errors.Is(err, errs.ErrUnavailable) || !strings.Contains(err.Error(), `import _ "github.com/tessera-go/tessera/device/gl"`) {
			t.Errorf("Open(%q) = %v, want ErrUnavailable naming the import", name, err)
		}
	}
	_, err := device.Open("tpu")
	if !errors.Is(err, errs.ErrDevice) || errors.Is(err, errs.ErrUnavailable) {
		t.Errorf("Open(\"tpu\") = %v, want ErrDevice (an unknown name, not a missing import)", err)
	}
}
