// Package errs defines the error kinds shared by every tessera package.
//
// Each kind is a sentinel usable with errors.Is. Packages wrap a kind in an
// *Error that names the package, the operation and the offending values, so a
// message reads like "tensor: Matmul: inner dimensions differ: [2 3] x [4 5]"
// while errors.Is(err, errs.ErrShape) still holds. Package tensor
// re-exports these sentinels, so most users never import errs.
package errs

import (
	"errors"
	"fmt"
)

// Sentinel error kinds. Compare with errors.Is, never with ==, because every
// error tessera returns wraps one of these with context.
var (
	// ErrShape reports incompatible or invalid shapes (mismatched extents,
	// negative sizes, element counts that overflow).
	ErrShape = errors.New("shape error")
	// ErrAxis reports an axis or index out of range.
	ErrAxis = errors.New("axis error")
	// ErrDType reports a dtype that an operation or device does not accept.
	ErrDType = errors.New("dtype error")
	// ErrDevice reports operands on different devices, or an unknown device.
	ErrDevice = errors.New("device error")
	// ErrUnsupported reports an operation a backend or adapter cannot run.
	ErrUnsupported = errors.New("unsupported")
	// ErrOutOfMemory reports an allocation that is too large or that failed.
	ErrOutOfMemory = errors.New("out of memory")
	// ErrReleased reports use of a tensor or buffer after Release.
	ErrReleased = errors.New("released")
	// ErrDeviceLost reports a device that stopped working; every later call on
	// it fails with this kind instead of hanging.
	ErrDeviceLost = errors.New("device lost")
	// ErrUnavailable reports a backend that is not built in or has no adapter
	// on this machine.
	ErrUnavailable = errors.New("unavailable")
	// ErrValue reports an invalid argument value (a bad file, a bad count).
	ErrValue = errors.New("invalid value")
)

// Error is the concrete error tessera returns: a kind plus context.
type Error struct {
	Pkg  string // package prefix, e.g. "tensor"
	Op   string // operation, e.g. "Matmul"
	Kind error  // one of the sentinels above
	Msg  string // what went wrong, with the offending values
	Err  error  // an underlying cause, if any
}

// Error formats as "pkg: Op: msg".
func (e *Error) Error() string {
	s := e.Pkg + ": "
	if e.Op != "" {
		s += e.Op + ": "
	}
	if e.Msg != "" {
		s += e.Msg
	} else if e.Kind != nil {
		s += e.Kind.Error()
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap exposes both the kind and the cause to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	out := make([]error, 0, 2)
	if e.Kind != nil {
		out = append(out, e.Kind)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}

// New builds an *Error of the given kind with a formatted message.
func New(pkg, op string, kind error, format string, args ...any) error {
	return &Error{Pkg: pkg, Op: op, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Wrap builds an *Error that carries cause; if cause is already an *Error of
// another operation, the new message names both operations.
func Wrap(pkg, op string, kind error, cause error, format string, args ...any) error {
	return &Error{Pkg: pkg, Op: op, Kind: kind, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// Retag returns err re-labelled with a new package and operation while keeping
// its kind and message, so an error from a lower layer reads as the caller's.
// An error that is not an *Error gets no kind: it is wrapped as the cause,
// so errors.Is and errors.As still reach it.
func Retag(pkg, op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.Pkg, c.Op = pkg, op
		return &c
	}
	return &Error{Pkg: pkg, Op: op, Err: err}
}
