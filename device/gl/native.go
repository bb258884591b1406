//go:build cgo && linux

package gl

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The EGL and OpenGL entry points the backend uses, declared here with
// plain C types so that building needs no EGL/GL headers and the program
// links no GL library: libEGL is opened with dlopen the first time a
// device is wanted, and every GL function is looked up through
// eglGetProcAddress. A machine without libEGL then reports the device
// unavailable instead of failing to start.

typedef void *EGLDisplay, *EGLContext, *EGLConfig, *EGLSurface, *EGLDeviceEXT;
typedef int32_t EGLint;
typedef unsigned int EGLBoolean, EGLenum;
typedef void (*tgl_proc)(void);

#define EGL_NONE 0x3038
#define EGL_EXTENSIONS 0x3055
#define EGL_OPENGL_API 0x30A2
#define EGL_CONTEXT_MAJOR_VERSION 0x3098
#define EGL_CONTEXT_MINOR_VERSION 0x30FB
#define EGL_CONTEXT_OPENGL_PROFILE_MASK 0x30FD
#define EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT 0x1
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#define EGL_PLATFORM_DEVICE_EXT 0x313F
#define EGL_DRM_DEVICE_FILE_EXT 0x3233

static void *egl_lib;
static char tgl_err[512];

static tgl_proc (*p_eglGetProcAddress)(const char *);
static EGLint (*p_eglGetError)(void);
static EGLBoolean (*p_eglInitialize)(EGLDisplay, EGLint *, EGLint *);
static EGLBoolean (*p_eglBindAPI)(EGLenum);
static EGLContext (*p_eglCreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint *);
static EGLBoolean (*p_eglDestroyContext)(EGLDisplay, EGLContext);
static EGLBoolean (*p_eglMakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
static EGLBoolean (*p_eglReleaseThread)(void);
static const char *(*p_eglQueryString)(EGLDisplay, EGLint);
static EGLDisplay (*p_eglGetPlatformDisplayEXT)(EGLenum, void *, const EGLint *);
static EGLBoolean (*p_eglQueryDevicesEXT)(EGLint, EGLDeviceEXT *, EGLint *);
static const char *(*p_eglQueryDeviceStringEXT)(EGLDeviceEXT, EGLint);

typedef unsigned int GLenum, GLuint, GLbitfield;
typedef int GLint, GLsizei;
typedef intptr_t GLintptr;
typedef ptrdiff_t GLsizeiptr;
typedef int64_t GLint64;
typedef uint64_t GLuint64;
typedef void *GLsync;
typedef char GLchar;

#define GLFN(ret, name, args) static ret (*p_##name) args;
#define GL_FUNCS \
	GLFN(GLenum, glGetError, (void)) \
	GLFN(const unsigned char *, glGetString, (GLenum)) \
	GLFN(void, glGetIntegerv, (GLenum, GLint *)) \
	GLFN(void, glGetInteger64v, (GLenum, GLint64 *)) \
	GLFN(void, glGetIntegeri_v, (GLenum, GLuint, GLint *)) \
	GLFN(void, glGenBuffers, (GLsizei, GLuint *)) \
	GLFN(void, glDeleteBuffers, (GLsizei, const GLuint *)) \
	GLFN(void, glBindBuffer, (GLenum, GLuint)) \
	GLFN(void, glBufferData, (GLenum, GLsizeiptr, const void *, GLenum)) \
	GLFN(void, glBufferSubData, (GLenum, GLintptr, GLsizeiptr, const void *)) \
	GLFN(void, glGetBufferSubData, (GLenum, GLintptr, GLsizeiptr, void *)) \
	GLFN(void, glCopyBufferSubData, (GLenum, GLenum, GLintptr, GLintptr, GLsizeiptr)) \
	GLFN(void, glBindBufferRange, (GLenum, GLuint, GLuint, GLintptr, GLsizeiptr)) \
	GLFN(GLuint, glCreateShader, (GLenum)) \
	GLFN(void, glShaderSource, (GLuint, GLsizei, const GLchar *const *, const GLint *)) \
	GLFN(void, glCompileShader, (GLuint)) \
	GLFN(void, glGetShaderiv, (GLuint, GLenum, GLint *)) \
	GLFN(void, glGetShaderInfoLog, (GLuint, GLsizei, GLsizei *, GLchar *)) \
	GLFN(void, glDeleteShader, (GLuint)) \
	GLFN(GLuint, glCreateProgram, (void)) \
	GLFN(void, glAttachShader, (GLuint, GLuint)) \
	GLFN(void, glLinkProgram, (GLuint)) \
	GLFN(void, glGetProgramiv, (GLuint, GLenum, GLint *)) \
	GLFN(void, glGetProgramInfoLog, (GLuint, GLsizei, GLsizei *, GLchar *)) \
	GLFN(void, glDeleteProgram, (GLuint)) \
	GLFN(void, glUseProgram, (GLuint)) \
	GLFN(void, glDispatchCompute, (GLuint, GLuint, GLuint)) \
	GLFN(void, glMemoryBarrier, (GLbitfield)) \
	GLFN(GLsync, glFenceSync, (GLenum, GLbitfield)) \
	GLFN(GLenum, glClientWaitSync, (GLsync, GLbitfield, GLuint64)) \
	GLFN(void, glDeleteSync, (GLsync)) \
	GLFN(void, glFlush, (void))
GL_FUNCS
#undef GLFN
// Optional (OpenGL 4.5 / KHR_robustness): NULL when absent.
static GLenum (*p_glGetGraphicsResetStatus)(void);

static int tgl_sym(void **dst, const char *name) {
	*dst = dlsym(egl_lib, name);
	if (*dst == NULL) {
		snprintf(tgl_err, sizeof tgl_err, "libEGL lacks %s", name);
		return 0;
	}
	return 1;
}

// tgl_load opens the EGL library name and resolves the EGL and GL entry
// points, once per process. It returns 1 on success, else 0 with tgl_err
// set.
static int tgl_load(const char *name) {
	static int state; // 0 untried, 1 ok, -1 failed
	if (state != 0) return state > 0;
	state = -1;
	egl_lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (egl_lib == NULL) {
		const char *e = dlerror();
		snprintf(tgl_err, sizeof tgl_err, "cannot load %s: %s", name, e ? e : "not found");
		return 0;
	}
	if (!tgl_sym((void **)&p_eglGetProcAddress, "eglGetProcAddress") ||
	    !tgl_sym((void **)&p_eglGetError, "eglGetError") ||
	    !tgl_sym((void **)&p_eglInitialize, "eglInitialize") ||
	    !tgl_sym((void **)&p_eglBindAPI, "eglBindAPI") ||
	    !tgl_sym((void **)&p_eglCreateContext, "eglCreateContext") ||
	    !tgl_sym((void **)&p_eglDestroyContext, "eglDestroyContext") ||
	    !tgl_sym((void **)&p_eglMakeCurrent, "eglMakeCurrent") ||
	    !tgl_sym((void **)&p_eglReleaseThread, "eglReleaseThread") ||
	    !tgl_sym((void **)&p_eglQueryString, "eglQueryString")) {
		return 0;
	}
	p_eglGetPlatformDisplayEXT = (void *)p_eglGetProcAddress("eglGetPlatformDisplayEXT");
	p_eglQueryDevicesEXT = (void *)p_eglGetProcAddress("eglQueryDevicesEXT");
	p_eglQueryDeviceStringEXT = (void *)p_eglGetProcAddress("eglQueryDeviceStringEXT");
	if (p_eglGetPlatformDisplayEXT == NULL) {
		snprintf(tgl_err, sizeof tgl_err, "libEGL has no eglGetPlatformDisplayEXT (EGL_EXT_platform_base)");
		return 0;
	}
#define GLFN(ret, name, args) \
	p_##name = (void *)p_eglGetProcAddress(#name); \
	if (p_##name == NULL) { snprintf(tgl_err, sizeof tgl_err, "OpenGL function %s not found", #name); return 0; }
	GL_FUNCS
#undef GLFN
	p_glGetGraphicsResetStatus = (void *)p_eglGetProcAddress("glGetGraphicsResetStatus");
	state = 1;
	return 1;
}

static const char *tgl_error(void) { return tgl_err; }

// tgl_device_count lists the EGL devices (EGL_EXT_device_enumeration);
// 0 when the extension is missing.
static int tgl_device_count(void) {
	EGLint n = 0;
	if (p_eglQueryDevicesEXT == NULL || !p_eglQueryDevicesEXT(0, NULL, &n)) return 0;
	return n;
}

static EGLDeviceEXT tgl_device(int i) {
	EGLDeviceEXT devs[64];
	EGLint n = 0;
	if (p_eglQueryDevicesEXT == NULL || !p_eglQueryDevicesEXT(64, devs, &n) || i >= n) return NULL;
	return devs[i];
}

// tgl_device_string returns the device's extension list (what) or DRM
// device file; NULL when absent.
static const char *tgl_device_string(int i, int drm) {
	EGLDeviceEXT d = tgl_device(i);
	if (d == NULL || p_eglQueryDeviceStringEXT == NULL) return NULL;
	return p_eglQueryDeviceStringEXT(d, drm ? EGL_DRM_DEVICE_FILE_EXT : EGL_EXTENSIONS);
}

// tgl_open creates an OpenGL 4.3 core context on device index dev (or on
// Mesa's surfaceless platform when dev < 0) and makes it current on the
// calling thread with no surface. It returns NULL with tgl_err set on
// failure.
static EGLContext tgl_open(int dev, EGLDisplay *out) {
	EGLDisplay dpy;
	if (dev >= 0) {
		EGLDeviceEXT d = tgl_device(dev);
		if (d == NULL) { snprintf(tgl_err, sizeof tgl_err, "EGL device %d not found", dev); return NULL; }
		dpy = p_eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, d, NULL);
	} else {
		dpy = p_eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, NULL, NULL);
	}
	if (dpy == NULL) { snprintf(tgl_err, sizeof tgl_err, "no EGL display (error 0x%x)", p_eglGetError()); return NULL; }
	EGLint major, minor;
	if (!p_eglInitialize(dpy, &major, &minor)) { snprintf(tgl_err, sizeof tgl_err, "eglInitialize failed (error 0x%x)", p_eglGetError()); return NULL; }
	if (!p_eglBindAPI(EGL_OPENGL_API)) { snprintf(tgl_err, sizeof tgl_err, "eglBindAPI(EGL_OPENGL_API) failed (error 0x%x)", p_eglGetError()); return NULL; }
	const EGLint attrs[] = {
		EGL_CONTEXT_MAJOR_VERSION, 4,
		EGL_CONTEXT_MINOR_VERSION, 3,
		EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
		EGL_NONE,
	};
	EGLContext ctx = p_eglCreateContext(dpy, NULL, NULL, attrs);
	if (ctx == NULL) { snprintf(tgl_err, sizeof tgl_err, "no OpenGL 4.3 core context (eglCreateContext error 0x%x)", p_eglGetError()); return NULL; }
	if (!p_eglMakeCurrent(dpy, NULL, NULL, ctx)) {
		snprintf(tgl_err, sizeof tgl_err, "eglMakeCurrent without a surface failed (error 0x%x)", p_eglGetError());
		p_eglDestroyContext(dpy, ctx);
		return NULL;
	}
	*out = dpy;
	return ctx;
}

// tgl_close releases the context current on this thread. The display is
// not terminated: other contexts may share it.
static void tgl_close(EGLDisplay dpy, EGLContext ctx) {
	p_eglMakeCurrent(dpy, NULL, NULL, NULL);
	p_eglDestroyContext(dpy, ctx);
	p_eglReleaseThread();
}

static const char *tgl_string(GLenum name) { return (const char *)p_glGetString(name); }
static GLint tgl_int(GLenum name) { GLint v = 0; p_glGetIntegerv(name, &v); return v; }
static GLint64 tgl_int64(GLenum name) { GLint64 v = 0; p_glGetInteger64v(name, &v); return v; }
static GLint tgl_inti(GLenum name, GLuint i) { GLint v = 0; p_glGetIntegeri_v(name, i, &v); return v; }
static GLenum tgl_get_error(void) { return p_glGetError(); }
static GLenum tgl_reset_status(void) { return p_glGetGraphicsResetStatus ? p_glGetGraphicsResetStatus() : 0; }

// tgl_new_buffer creates a buffer of size bytes for shader storage.
static GLuint tgl_new_buffer(GLsizeiptr size, GLenum usage) {
	GLuint id = 0;
	p_glGenBuffers(1, &id);
	p_glBindBuffer(0x8F37, id); // GL_COPY_WRITE_BUFFER
	p_glBufferData(0x8F37, size, NULL, usage);
	return id;
}
static void tgl_orphan(GLuint id, GLsizeiptr size, GLenum usage) {
	p_glBindBuffer(0x8F37, id);
	p_glBufferData(0x8F37, size, NULL, usage);
}
static void tgl_delete_buffer(GLuint id) { p_glDeleteBuffers(1, &id); }
static void tgl_write(GLuint id, GLintptr off, GLsizeiptr n, const void *src) {
	p_glBindBuffer(0x8F37, id);
	p_glBufferSubData(0x8F37, off, n, src);
}
static void tgl_read(GLuint id, GLintptr off, GLsizeiptr n, void *dst) {
	p_glBindBuffer(0x8F36, id); // GL_COPY_READ_BUFFER
	p_glGetBufferSubData(0x8F36, off, n, dst);
}
static void tgl_bind_range(GLenum target, GLuint index, GLuint id, GLintptr off, GLsizeiptr n) {
	p_glBindBufferRange(target, index, id, off, n);
}

// tgl_program compiles and links a compute shader; on failure it returns
// 0 and writes the log (truncated) to log.
static GLuint tgl_program(const char *src, char *log, int loglen) {
	GLuint sh = p_glCreateShader(0x91B9); // GL_COMPUTE_SHADER
	if (sh == 0) { snprintf(log, loglen, "glCreateShader failed (error 0x%x)", p_glGetError()); return 0; }
	p_glShaderSource(sh, 1, &src, NULL);
	p_glCompileShader(sh);
	GLint ok = 0;
	p_glGetShaderiv(sh, 0x8B81, &ok); // GL_COMPILE_STATUS
	if (!ok) {
		p_glGetShaderInfoLog(sh, loglen, NULL, log);
		p_glDeleteShader(sh);
		return 0;
	}
	GLuint prog = p_glCreateProgram();
	p_glAttachShader(prog, sh);
	p_glLinkProgram(prog);
	p_glDeleteShader(sh);
	p_glGetProgramiv(prog, 0x8B82, &ok); // GL_LINK_STATUS
	if (!ok) {
		p_glGetProgramInfoLog(prog, loglen, NULL, log);
		p_glDeleteProgram(prog);
		return 0;
	}
	return prog;
}
static void tgl_delete_program(GLuint p) { p_glDeleteProgram(p); }
static void tgl_use(GLuint p) { p_glUseProgram(p); }
static void tgl_dispatch(GLuint x, GLuint y, GLuint z) { p_glDispatchCompute(x, y, z); }
static void tgl_barrier(GLbitfield bits) { p_glMemoryBarrier(bits); }
static GLsync tgl_fence(void) {
	GLsync s = p_glFenceSync(0x9117, 0); // GL_SYNC_GPU_COMMANDS_COMPLETE
	p_glFlush();
	return s;
}
static GLenum tgl_wait(GLsync s, GLuint64 ns) { return p_glClientWaitSync(s, 0x1, ns); } // GL_SYNC_FLUSH_COMMANDS_BIT
static void tgl_delete_sync(GLsync s) { p_glDeleteSync(s); }
*/
import "C"

import (
	"unsafe"
)

// GL enums the Go side uses.
const (
	glVendor                    = 0x1F00
	glRenderer                  = 0x1F01
	glVersion                   = 0x1F02
	glShadingLanguageVersion    = 0x8B8C
	glShaderStorageBuffer       = 0x90D2
	glUniformBuffer             = 0x8A11
	glDynamicCopy               = 0x88EA
	glStreamDraw                = 0x88E0
	glShaderStorageBarrierBit   = 0x2000
	glBufferUpdateBarrierBit    = 0x0200
	glAlreadySignaled           = 0x911A
	glTimeoutExpired            = 0x911B
	glConditionSatisfied        = 0x911C
	glWaitFailed                = 0x911D
	glOutOfMemory               = 0x0505
	glContextLost               = 0x0507
	glMaxShaderStorageBlockSize = 0x90DE
	glMaxComputeWorkGroupCount  = 0x91BE
	glMaxComputeWorkGroupSize   = 0x91BF
	glSSBOOffsetAlignment       = 0x90DF
	glUBOOffsetAlignment        = 0x8A34
	glMaxUniformBlockSize       = 0x8A30
	glMaxComputeSharedMemory    = 0x8262
	glMaxComputeInvocations     = 0x90EB
	glMaxComputeSSBOBlocks      = 0x90DB
)

// loadLibs opens the EGL library name and resolves every function, once
// per process (later calls report the first outcome). It returns a
// message when it cannot.
func loadLibs(name string) (string, bool) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if C.tgl_load(cname) == 0 {
		return C.GoString(C.tgl_error()), false
	}
	return "", true
}

// eglDevice describes one EGL device of EGL_EXT_device_enumeration.
type eglDevice struct {
	index int
	exts  string
	drm   string // DRM device file; empty for a software device
}

// software reports whether the device is Mesa's software rasteriser.
func (d eglDevice) software() bool {
	return containsWord(d.exts, "EGL_MESA_device_software")
}

// eglDevices lists the EGL devices (empty when enumeration is missing).
func eglDevices() []eglDevice {
	n := int(C.tgl_device_count())
	out := make([]eglDevice, 0, n)
	for i := 0; i < n; i++ {
		d := eglDevice{index: i}
		if s := C.tgl_device_string(C.int(i), 0); s != nil {
			d.exts = C.GoString(s)
		}
		if containsWord(d.exts, "EGL_EXT_device_drm") {
			if s := C.tgl_device_string(C.int(i), 1); s != nil {
				d.drm = C.GoString(s)
			}
		}
		out = append(out, d)
	}
	return out
}

func containsWord(list, w string) bool {
	for len(list) > 0 {
		i := 0
		for i < len(list) && list[i] != ' ' {
			i++
		}
		if list[:i] == w {
			return true
		}
		for i < len(list) && list[i] == ' ' {
			i++
		}
		list = list[i:]
	}
	return false
}

// context is an EGL display and OpenGL context, current on the thread
// that created it.
type context struct {
	dpy C.EGLDisplay
	ctx C.EGLContext
}

// openContext creates a 4.3 core context current on the calling (locked)
// thread: on EGL device dev, or on the surfaceless platform when dev < 0.
func openContext(dev int) (context, string, bool) {
	var dpy C.EGLDisplay
	ctx := C.tgl_open(C.int(dev), &dpy)
	if ctx == nil {
		return context{}, C.GoString(C.tgl_error()), false
	}
	return context{dpy: dpy, ctx: ctx}, "", true
}

func (c context) close() { C.tgl_close(c.dpy, c.ctx) }

func glString(name uint32) string {
	s := C.tgl_string(C.GLenum(name))
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

func glInt(name uint32) int64       { return int64(C.tgl_int(C.GLenum(name))) }
func glInt64(name uint32) int64     { return int64(C.tgl_int64(C.GLenum(name))) }
func glIntI(name, i uint32) int64   { return int64(C.tgl_inti(C.GLenum(name), C.GLuint(i))) }
func glError() uint32               { return uint32(C.tgl_get_error()) }
func glResetStatus() uint32         { return uint32(C.tgl_reset_status()) }
func glDeleteBuffer(id uint32)      { C.tgl_delete_buffer(C.GLuint(id)) }
func glDeleteProgram(p uint32)      { C.tgl_delete_program(C.GLuint(p)) }
func glUse(p uint32)                { C.tgl_use(C.GLuint(p)) }
func glBarrier(bits uint32)         { C.tgl_barrier(C.GLbitfield(bits)) }
func glDispatch(x, y, z uint32)     { C.tgl_dispatch(C.GLuint(x), C.GLuint(y), C.GLuint(z)) }
func glDeleteSync(s unsafe.Pointer) { C.tgl_delete_sync(C.GLsync(s)) }

// glNewBuffer creates a buffer of size bytes (contents undefined).
func glNewBuffer(size uint64, usage uint32) uint32 {
	return uint32(C.tgl_new_buffer(C.GLsizeiptr(size), C.GLenum(usage)))
}

// glOrphan gives buffer id fresh storage of size bytes; commands already
// issued keep reading the old storage.
func glOrphan(id uint32, size uint64, usage uint32) {
	C.tgl_orphan(C.GLuint(id), C.GLsizeiptr(size), C.GLenum(usage))
}

// glWrite copies src into buffer id at byte off, straight from Go memory.
func glWrite(id uint32, off uint64, src []byte) {
	if len(src) == 0 {
		return
	}
	C.tgl_write(C.GLuint(id), C.GLintptr(off), C.GLsizeiptr(len(src)), unsafe.Pointer(&src[0]))
}

// glRead copies len(dst) bytes of buffer id from byte off into dst.
func glRead(id uint32, off uint64, dst []byte) {
	if len(dst) == 0 {
		return
	}
	C.tgl_read(C.GLuint(id), C.GLintptr(off), C.GLsizeiptr(len(dst)), unsafe.Pointer(&dst[0]))
}

func glBindRange(target, index, id uint32, off, size uint64) {
	C.tgl_bind_range(C.GLenum(target), C.GLuint(index), C.GLuint(id), C.GLintptr(off), C.GLsizeiptr(size))
}

// glProgram compiles and links a compute shader, returning 0 and the
// driver's log on failure.
func glProgram(src string) (uint32, string) {
	cs := C.CString(src)
	defer C.free(unsafe.Pointer(cs))
	var log [4096]C.char
	p := C.tgl_program(cs, &log[0], C.int(len(log)))
	if p == 0 {
		return 0, C.GoString(&log[0])
	}
	return uint32(p), ""
}

// glFence inserts a fence after the commands issued so far and flushes.
func glFence() unsafe.Pointer { return unsafe.Pointer(C.tgl_fence()) }

// glWaitFence waits up to ns nanoseconds for a fence.
func glWaitFence(s unsafe.Pointer, ns uint64) uint32 {
	return uint32(C.tgl_wait(C.GLsync(s), C.GLuint64(ns)))
}
