package tensor_test

// The tests run every device, so they link the opt-in GPU backends as a
// program that wants the GPU would.
import (
	_ "github.com/tessera-go/tessera/device/gl"
	_ "github.com/tessera-go/tessera/device/webgpu"
)
