package gpucore

import (
	"sync/atomic"

	"github.com/tessera-go/tessera/errs"
)

// Lost records that a device stopped working (a driver error, a lost
// context, a wait that timed out): once marked, every later call on the
// device reports ErrDeviceLost with the first reason, instead of hanging
// or crashing. The zero value is a working device; it is safe for
// concurrent use.
type Lost struct {
	lost atomic.Bool
	msg  atomic.Pointer[string]
}

// Mark records that the device is lost, keeping the first reason given.
func (l *Lost) Mark(reason string) {
	if l.lost.CompareAndSwap(false, true) {
		l.msg.Store(&reason)
	}
}

// Load reports whether the device is lost.
func (l *Lost) Load() bool { return l.lost.Load() }

// Err is the error of op on a lost device (naming backend), or nil.
func (l *Lost) Err(backend, op string) error {
	if !l.lost.Load() {
		return nil
	}
	msg := "device lost"
	if p := l.msg.Load(); p != nil {
		msg = "device lost: " + *p
	}
	return errs.New(backend, op, errs.ErrDeviceLost, "%s", msg)
}
