package gemm

import "testing"

// mlpShapes are the products of one training step of the MNIST MLP
// 784-256-128-10 at batch 128 (cmd/tessera's BenchmarkTrainStep): the
// forward products x·Wᵀ, and backward dX = g·W and dW = gᵀ·x (the first
// layer has no dX: the input needs no gradient).
var mlpShapes = []benchShape{
	{m: 128, n: 256, k: 784, transB: true}, // layer 1 forward
	{m: 128, n: 128, k: 256, transB: true}, // layer 2 forward
	{m: 128, n: 10, k: 128, transB: true},  // layer 3 forward
	{m: 128, n: 128, k: 10},                // layer 3 dX
	{m: 10, n: 128, k: 128, transA: true},  // layer 3 dW
	{m: 128, n: 256, k: 128},               // layer 2 dX
	{m: 128, n: 256, k: 128, transA: true}, // layer 2 dW
	{m: 256, n: 784, k: 128, transA: true}, // layer 1 dW
}

// BenchmarkMLPStep is BenchmarkF32 on the products of the MLP training
// step, each beside gonum's, so a change to the blocking or the team can
// be judged on the shapes the step spends its GEMM time in.
func BenchmarkMLPStep(b *testing.B) { benchF32(b, mlpShapes) }
