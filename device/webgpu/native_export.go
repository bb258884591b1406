//go:build cgo

package webgpu

/*
#include <stdint.h>
*/
import "C"

import "github.com/rajveermalviya/go-webgpu/wgpu"

//export tesseraUncapturedError
func tesseraUncapturedError(typ C.uint32_t, msg *C.char, id C.uintptr_t) {
	g := lookupSink(uintptr(id))
	if g == nil {
		return
	}
	text := C.GoString(msg)
	if wgpu.ErrorType(typ) == wgpu.ErrorType_DeviceLost {
		g.markLost(text)
		return
	}
	g.asyncError("uncaptured "+wgpu.ErrorType(typ).String()+" error", text)
}

//export tesseraStatus
func tesseraStatus(status C.uint32_t, id C.uintptr_t) {
	if fn := take(uintptr(id)); fn != nil {
		fn(uint32(status))
	}
}
