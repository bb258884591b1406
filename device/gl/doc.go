// Package gl is tessera's OpenGL backend: the kernels of package shaders,
// translated to GLSL 4.30 compute shaders (shaders.RenderGLSL), run over
// shader storage buffers in a headless OpenGL 4.3 core context that EGL
// creates without a window (EGL device platform, or Mesa's surfaceless
// platform). It reaches GPUs whose only accelerated API is OpenGL, and
// Mesa's llvmpipe, on which CI runs it as "gl:software".
//
// Importing the package registers the driver "gl" with package device:
//
//	import _ "github.com/tessera-go/tessera/device/gl"
//
// Device names are "gl" (a hardware EGL device when enumeration finds one,
// else the software rasteriser) and "gl:software" (Mesa's llvmpipe).
// OpenWith opens a device with explicit Options.
//
// What to run is decided by package gpucore, the planner the WebGPU
// backend shares (validation, axis merging, limit splitting, kernel
// strategies, parameter blocks); this package is only its executor. An
// OpenGL context belongs to one OS thread, so each device owns one
// goroutine, locked to its thread, that makes every GL call and serves a
// queue of requests: the device is safe for concurrent use from any
// goroutine.
//
// Dispatches are issued as they are planned and ordered by
// glMemoryBarrier; the host waits only in Download and Sync, on a fence
// with a bounded wait (Options.WaitTimeout): a wait that times out, like a
// lost context, marks the device lost and every later call returns
// errs.ErrDeviceLost. Uploads and downloads move a view's storage span
// straight between Go memory and the buffer (glBufferSubData,
// glGetBufferSubData), and kernels read strided, transposed and broadcast
// views in place through the layouts in their parameter blocks.
//
// libEGL is loaded with dlopen on first use and every GL function is found
// through eglGetProcAddress, so a program that imports the package links
// no GL library and starts on machines without one; there, and in builds
// without cgo or outside Linux, the driver is registered but Open reports
// errs.ErrUnavailable naming what is missing (on Debian: libegl1, libgl1
// and libgl1-mesa-dri).
//
// Dtypes are those of the WebGPU backend, stored the same way (the kernels
// are the same): F32, I32, U8 and Bool (widened to 32 bits) compute; F16 is
// stored packed and computed in f32; I64 is stored and computed as (lo, hi)
// pairs of 32-bit words. F64 and BF16 are refused with errs.ErrDType.
package gl

import "time"

// DriverName is the name the backend registers with package device, and
// the prefix of its device names.
const DriverName = "gl"

// Options configures OpenWith. The zero value opens the best device with
// its own limits.
type Options struct {
	// Software asks for Mesa's software rasteriser (llvmpipe), as the
	// device name "gl:software" does.
	Software bool
	// MaxBindingSize caps the bytes one storage binding may cover; 0 keeps
	// GL_MAX_SHADER_STORAGE_BLOCK_SIZE. Tests shrink it to exercise the
	// splitting of large work.
	MaxBindingSize uint64
	// MaxWorkgroupsPerDim caps the workgroups per grid dimension; 0 keeps
	// GL_MAX_COMPUTE_WORK_GROUP_COUNT. Tests shrink it to exercise grid
	// folding.
	MaxWorkgroupsPerDim uint32
	// Matmul picks the matmul kernel: "" chooses per device ("regblock" on
	// software rasterisers, "shared" on GPUs); "regblock", "shared" or
	// "naive" force one.
	Matmul string
	// PoolBytes bounds the bytes of freed buffers kept for reuse; 0 means
	// 256 MiB, a negative value disables pooling.
	PoolBytes int64
	// WaitTimeout bounds a single wait for the GPU; when it passes, the
	// device is declared lost rather than letting the caller hang. 0 means
	// two minutes.
	WaitTimeout time.Duration
	// Name overrides the name Device.Name reports; empty means "gl" or
	// "gl:software".
	Name string
}
