// Package webgpu is tessera's GPU backend. It runs WGSL compute shaders
// (package shaders) through wgpu-native: Vulkan on Linux and Windows, Metal
// on macOS, and Mesa's software Vulkan adapter (lavapipe) where no GPU is
// present, which is how CI runs every GPU test.
//
// Importing the package registers the driver "webgpu" with package device.
// Device names are "webgpu" (the best adapter; a software one only when it
// is all there is) and "webgpu:software" (the fallback adapter). OpenWith
// opens a device with explicit Options, for instance with shrunken limits
// in tests.
//
// Work is encoded into a pending command encoder and submitted in batches;
// the host waits only in Download and Sync. Every kernel reads its
// operands' shapes, strides and offsets from a uniform, so strided,
// transposed, broadcast and offset views run with no copy. Work larger than
// a storage binding is split into pieces that fit, or refused with a typed
// error naming the limit. No wgpu type appears in the API.
//
// Without cgo the driver is still registered, but Open reports
// errs.ErrUnavailable and Enumerate lists nothing.
package webgpu

import "time"

// DriverName is the name the backend registers with package device, and the
// prefix of its device names.
const DriverName = "webgpu"

// Options configures OpenWith. The zero value opens the best adapter with
// its own limits.
type Options struct {
	// Software asks for the fallback (software) adapter, as the device name
	// "webgpu:software" does.
	Software bool
	// MaxBindingSize caps the bytes one storage binding may cover; 0 keeps
	// the adapter's maxStorageBufferBindingSize. Tests shrink it to exercise
	// the chunking of large work.
	MaxBindingSize uint64
	// MaxBufferSize caps the bytes of one buffer; 0 keeps the adapter's
	// maxBufferSize.
	MaxBufferSize uint64
	// MaxWorkgroupsPerDim caps the workgroups per grid dimension; 0 keeps
	// the adapter's limit. Tests shrink it to exercise grid folding.
	MaxWorkgroupsPerDim uint32
	// Matmul picks the matmul kernel: "" chooses per adapter ("regblock" on
	// software adapters, "shared" on GPUs); "regblock" (4x4 register
	// blocking, vec4 loads where aligned), "shared" (workgroup-memory tiles)
	// or "naive" (one invocation per output) force one.
	Matmul string
	// PoolBytes bounds the bytes of freed buffers kept for reuse; 0 means
	// 256 MiB, a negative value disables pooling.
	PoolBytes int64
	// WaitTimeout bounds a single wait for the GPU; when it passes, the
	// device is declared lost rather than letting the caller hang. 0 means
	// two minutes.
	WaitTimeout time.Duration
	// Name overrides the name Device.Name reports; empty means "webgpu" or
	// "webgpu:software".
	Name string
}
