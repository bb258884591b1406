//go:build cgo && linux

package gl

import (
	"testing"

	"github.com/tessera-go/tessera/device/devicetest"
)

// TestContract runs the contract every backend shares (package devicetest)
// on the software OpenGL device.
func TestContract(t *testing.T) {
	devicetest.Run(t, openOrSkip(t, Options{}))
}
