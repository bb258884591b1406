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
// What to run is decided by package gpucore, the planner shared by GPU
// backends (validation, axis merging, limit splitting, kernel strategies,
// parameter blocks); this package executes its plans with wgpu.
//
// Without cgo the driver is still registered, but Open reports
// errs.ErrUnavailable and Enumerate lists nothing.
//
// # Accuracy
//
// Float32 results of the unary functions, measured against float64 math
// on Mesa's lavapipe (TestUnaryAccuracyF32 holds every op to the bound
// column), in units in the last place of the result, for normal results:
//
//	function     domain       measured  bound    function  domain      measured  bound
//	Neg Abs Relu any          exact     0        Tanh      [-20, 20]   2.89      3.5
//	Floor Ceil   any          exact     0        Sigmoid   [-87, 40]   2.14      3
//	Round        any          exact     0        Erf       [-5, 5]     2.52      3
//	Square Sqrt  any          0.50      0.5/1    GeluTanh  [-5, 20]    35.5      40
//	Reciprocal   any          0.50      1        GeluTanh  [-10, -5]   202       240
//	Exp          [-87, 88.7]  1.27      2        GeluErf   [-5, 20]    22.1      26
//	Expm1        [-87, 88.7]  1.97      3        GeluErf   [-10, -5]   83.4      100
//	Log          (0, max]     2.02      3        Sin Cos   [-100, 100] 7.4e-8 absolute
//	Log1p        (-1, max]    2.61      3
//	Rsqrt        (0, max]     1.47      2        Tan       [-1.5, 1.5] 2.64      4
//	Asin Acos    [-1, 1]      3.17      4        Atan      any         2.52      4
//	Sinh         [-20, 20]    4.69      5        Cosh      [-20, 20]   3.08      4
//	Exp2         [-126, 128)  1.26      2        Log2 Log10 (0, max]   3.10      4
//	Silu         [-20, 20]    3.28      4        Softplus  [-20, 20]   3.85      4
//
// Exp and everything built on it (Expm1, Sigmoid, Erf, Gelu) use the
// backend's own range-reduced exp rather than the WGSL builtin, which
// lavapipe computes as exp2(x*log2 e) with up to ~100 ulp of error near
// the overflow threshold. Gelu of negative x exponentiates an argument
// rounded in float32 (WGSL has no wider type), so its relative error grows
// with |x|; its absolute error stays under 6e-7. Sin, Cos, Log and Sqrt are
// WGSL builtins, so on hardware they carry the vendor's accuracy (WGSL
// guarantees far less: an absolute 2^-11 for sin and cos on [-pi, pi]).
// Tan is sin/cos, accurate where they are (|x| <= 100 here). Atan, Asin
// and Acos use the backend's own arctangent: lavapipe's builtins lose
// relative accuracy near 0 (atan) or are off by 4e-4 (asin, acos).
//
// Results below the normal float32 range may be flushed to zero, as WGSL
// allows and lavapipe does: Sigmoid(-100) is 0 here and 3.8e-44 on the
// CPU. Signed zeros match the CPU backend: Relu(-0) is +0, Gelu(-Inf) and
// Gelu of very negative x are -0, Tanh(-0) is -0.
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
