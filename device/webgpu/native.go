//go:build cgo

package webgpu

/*
#include <stddef.h>
#include <stdint.h>

typedef void (*tessera_error_cb)(uint32_t typ, char const *msg, void *userdata);
typedef void (*tessera_status_cb)(uint32_t status, void *userdata);

// Declared here rather than through wgpu.h: the symbols come from the
// wgpu-native library the wgpu package links.
extern void wgpuDeviceSetUncapturedErrorCallback(void *device, tessera_error_cb cb, void *userdata);
extern void wgpuQueueOnSubmittedWorkDone(void *queue, tessera_status_cb cb, void *userdata);
extern void wgpuBufferMapAsync(void *buffer, uint32_t mode, size_t offset, size_t size, tessera_status_cb cb, void *userdata);

extern void tesseraUncapturedError(uint32_t typ, char *msg, uintptr_t id);
extern void tesseraStatus(uint32_t status, uintptr_t id);

static void tessera_uncaptured_trampoline(uint32_t typ, char const *msg, void *userdata) {
	tesseraUncapturedError(typ, (char *)msg, (uintptr_t)userdata);
}

static void tessera_status_trampoline(uint32_t status, void *userdata) {
	tesseraStatus(status, (uintptr_t)userdata);
}

static void tessera_set_uncaptured(void *device, uintptr_t id) {
	wgpuDeviceSetUncapturedErrorCallback(device, tessera_uncaptured_trampoline, (void *)id);
}

static void tessera_on_done(void *queue, uintptr_t id) {
	wgpuQueueOnSubmittedWorkDone(queue, tessera_status_trampoline, (void *)id);
}

static void tessera_map_async(void *buffer, uint32_t mode, size_t offset, size_t size, uintptr_t id) {
	wgpuBufferMapAsync(buffer, mode, offset, size, tessera_status_trampoline, (void *)id);
}
*/
import "C"

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/rajveermalviya/go-webgpu/wgpu"
)

// go-webgpu v0.17.1 hands C a pointer to a Go variable as the userdata of
// deferred callbacks (OnSubmittedWorkDone, MapAsync); the variable can be
// collected before the callback runs, which then crashes (seen under
// -race). It also lacks the uncaptured-error setter, and wgpu-native's
// default handler aborts the process. So the backend calls these three
// entry points itself, passing plain integer ids as userdata.

// rawHandle extracts the C handle (the unexported field "ref") from a
// go-webgpu object. The field is looked up by reflection, so a version with
// another layout makes it report false instead of misbehaving.
func rawHandle[T any](obj *T) (unsafe.Pointer, bool) {
	if obj == nil {
		return nil, false
	}
	f, ok := reflect.TypeFor[T]().FieldByName("ref")
	if !ok || f.Type.Kind() != reflect.Pointer {
		return nil, false
	}
	p := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(obj), f.Offset))
	return p, p != nil
}

var (
	cbMu   sync.Mutex
	cbNext uintptr
	cbs    = map[uintptr]func(uint32){}
	sinks  = map[uintptr]*gpu{}
)

func register(fn func(uint32)) uintptr {
	cbMu.Lock()
	defer cbMu.Unlock()
	cbNext++
	cbs[cbNext] = fn
	return cbNext
}

func take(id uintptr) func(uint32) {
	cbMu.Lock()
	defer cbMu.Unlock()
	fn := cbs[id]
	delete(cbs, id)
	return fn
}

// onSubmittedWorkDone calls fn with the queue status once all work
// submitted so far has finished (from inside a later Poll or Submit).
func onSubmittedWorkDone(q *wgpu.Queue, fn func(wgpu.QueueWorkDoneStatus)) bool {
	raw, ok := rawHandle(q)
	if !ok {
		return false
	}
	id := register(func(st uint32) { fn(wgpu.QueueWorkDoneStatus(st)) })
	C.tessera_on_done(raw, C.uintptr_t(id))
	return true
}

// mapAsync maps size bytes of b for reading and calls fn with the status.
func mapAsync(b *wgpu.Buffer, size uint64, fn func(wgpu.BufferMapAsyncStatus)) bool {
	raw, ok := rawHandle(b)
	if !ok {
		return false
	}
	id := register(func(st uint32) { fn(wgpu.BufferMapAsyncStatus(st)) })
	C.tessera_map_async(raw, C.uint32_t(wgpu.MapMode_Read), 0, C.size_t(size), C.uintptr_t(id))
	return true
}

// installErrorSink routes g's uncaptured errors to g.asyncError.
func installErrorSink(g *gpu) (uintptr, bool) {
	raw, ok := rawHandle(g.dev)
	if !ok {
		return 0, false
	}
	cbMu.Lock()
	cbNext++
	id := cbNext
	sinks[id] = g
	cbMu.Unlock()
	C.tessera_set_uncaptured(raw, C.uintptr_t(id))
	return id, true
}

func removeErrorSink(id uintptr) {
	cbMu.Lock()
	delete(sinks, id)
	cbMu.Unlock()
}

func lookupSink(id uintptr) *gpu {
	cbMu.Lock()
	defer cbMu.Unlock()
	return sinks[id]
}

// mapWrite maps size bytes of b for writing and calls fn with the status.
func mapWrite(b *wgpu.Buffer, size uint64, fn func(wgpu.BufferMapAsyncStatus)) bool {
	raw, ok := rawHandle(b)
	if !ok {
		return false
	}
	id := register(func(st uint32) { fn(wgpu.BufferMapAsyncStatus(st)) })
	C.tessera_map_async(raw, C.uint32_t(wgpu.MapMode_Write), 0, C.size_t(size), C.uintptr_t(id))
	return true
}
