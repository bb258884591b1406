package main

// The command offers every device, so it links every opt-in backend.
import (
	_ "github.com/tessera-go/tessera/device/gl"
	_ "github.com/tessera-go/tessera/device/webgpu"
)
