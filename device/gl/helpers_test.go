//go:build cgo && linux

package gl

import (
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// openOrSkip opens a software device with options o, skipping the test
// when OpenGL is unavailable unless TESSERA_REQUIRE_GL=1 (as CI sets).
func openOrSkip(t testing.TB, o Options) *gpu {
	t.Helper()
	o.Software = true
	d, err := OpenWith(o)
	if err != nil {
		if errors.Is(err, errs.ErrUnavailable) && os.Getenv("TESSERA_REQUIRE_GL") != "1" {
			t.Skipf("no software OpenGL device: %v", err)
		}
		t.Fatalf("OpenWith: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d.(*gpu)
}

var (
	sharedOnce sync.Once
	sharedDev  *gpu
	sharedErr  error
)

// dev returns a software device shared by the tests that need no special
// options, so programs compile once.
func dev(t testing.TB) *gpu {
	t.Helper()
	sharedOnce.Do(func() {
		d, err := OpenWith(Options{Software: true})
		if err == nil {
			sharedDev = d.(*gpu)
		}
		sharedErr = err
	})
	if sharedErr != nil {
		if errors.Is(sharedErr, errs.ErrUnavailable) && os.Getenv("TESSERA_REQUIRE_GL") != "1" {
			t.Skipf("no software OpenGL device: %v", sharedErr)
		}
		t.Fatalf("OpenWith: %v", sharedErr)
	}
	return sharedDev
}
