// Package gpucore is the planning half of tessera's GPU backends: every
// decision about how an operation runs on a GPU that does not need the GPU
// API itself. It has no cgo and imports no GPU binding, so it builds and is
// tested everywhere, and every GPU backend (WebGPU today, OpenGL compute
// next) shares it instead of copying it.
//
// A Planner validates operands, merges their axes, splits work by the
// device's limits (bytes per storage binding, workgroups per grid
// dimension, work per invocation, axes per kernel) and chooses the
// strategy of reductions, softmax and matmul. The result is a Plan: the
// scratch buffers it needs and an ordered list of Dispatches, each naming a
// kernel template and its specialisation variables, a parameter block (a Go
// struct value, packed by Pack), the storage bindings (which buffer, which
// byte window, read or write) and the grid. A backend is then an executor:
// it compiles and caches the kernels, allocates the scratch, packs the
// parameters, binds, dispatches, and synchronises.
//
// Parameter blocks are defined once, as the Go structs in params.go. The
// WGSL declarations of those structs (shaders/params.wgsl) are generated
// from them by WGSL (go generate in this package), which also checks that
// each Go field sits at the offset the uniform layout rules give it, so
// packing the struct's fields in order gives the bytes the shader reads.
//
// The pool policy (size classes, bounds) lives here too, as the generic
// Pool; the executor keeps the device handles in it.
package gpucore

//go:generate go test -run TestParamsWGSLUpToDate -update
