package nn_test

// The tests run every device, so they link the opt-in GPU backend as a
// program that wants the GPU would.
import _ "github.com/tessera-go/tessera/device/webgpu"
