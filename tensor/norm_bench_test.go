package tensor_test

import (
	"math"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// BenchmarkNormFused times LayerNorm and RMSNorm of [4096, 1024] f32 with
// an affine weight (and bias) on the CPU: the fused kernel (device.Normer)
// and the composite it replaced, in the same run. GB/s counts one read of
// x and one write of y. ci/bench-norm.sh sets NumPy beside it.
func BenchmarkNormFused(b *testing.B) {
	const rows, n = 4096, 1024
	x := tensor.RandN(dtype.F32, 1, rows, n)
	w := tensor.RandN(dtype.F32, 2, n)
	bias := tensor.RandN(dtype.F32, 3, n)
	cases := []struct {
		name string
		f    func() *tensor.Tensor
	}{
		{"LayerNorm/fused", func() *tensor.Tensor { return tensor.LayerNorm(x, []int{n}, w, bias, 1e-5) }},
		{"LayerNorm/composite", func() *tensor.Tensor { return tensor.LayerNormComposite(x, []int{n}, w, bias, 1e-5) }},
		{"RMSNorm/fused", func() *tensor.Tensor { return tensor.RMSNorm(x, []int{n}, w, 1e-5) }},
		{"RMSNorm/composite", func() *tensor.Tensor { return tensor.RMSNormComposite(x, []int{n}, w, 1e-5) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				y := c.f()
				if err := y.Err(); err != nil {
					b.Fatal(err)
				}
				y.Release()
			}
			b.ReportMetric(2*4*float64(rows*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkAttentionFused times attention with batch 8, 8 heads and
// L = S = 512, E = Ev = 64, f32, on the CPU: the fused (flash-style) kernel
// and the composite that materialises the scores, in the same run, plain
// and causal. GFLOP/s counts the two products, 4 L S E per head, for both
// (the causal kernel skips the masked half, the composite does not).
func BenchmarkAttentionFused(b *testing.B) {
	const B, H, L, E = 8, 8, 512, 64
	q := tensor.RandN(dtype.F32, 1, B, H, L, E)
	k := tensor.RandN(dtype.F32, 2, B, H, L, E)
	v := tensor.RandN(dtype.F32, 3, B, H, L, E)
	scale := 1 / math.Sqrt(E)
	cases := []struct {
		name string
		f    func() *tensor.Tensor
	}{
		{"fused", func() *tensor.Tensor { return tensor.ScaledDotProductAttention(q, k, v, nil, tensor.SDPAOptions{}) }},
		{"composite", func() *tensor.Tensor { return tensor.SDPAComposite(q, k, v, nil, scale, false) }},
		{"causal/fused", func() *tensor.Tensor {
			return tensor.ScaledDotProductAttention(q, k, v, nil, tensor.SDPAOptions{Causal: true})
		}},
		{"causal/composite", func() *tensor.Tensor { return tensor.SDPAComposite(q, k, v, nil, scale, true) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				y := c.f()
				if err := y.Err(); err != nil {
					b.Fatal(err)
				}
				y.Release()
			}
			b.ReportMetric(4*float64(B*H*L*L*E)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkAttentionFusedGPU times attention (batch 2, 4 heads, L = S =
// 256, E = 64, f32) on each GPU device: the fused kernel (forced: at this
// size ScaledDotProductAttention runs the composite, which is faster on
// the software drivers) and the composite, in the same run.
func BenchmarkAttentionFusedGPU(b *testing.B) {
	const B, H, L, E = 2, 4, 256, 64
	for _, dev := range testDevices(b)[1:] {
		q := tensor.RandN(dtype.F32, 1, B, H, L, E).To(dev)
		k := tensor.RandN(dtype.F32, 2, B, H, L, E).To(dev)
		v := tensor.RandN(dtype.F32, 3, B, H, L, E).To(dev)
		for _, fused := range []bool{true, false} {
			name := dev.Name() + "/composite"
			if fused {
				name = dev.Name() + "/fused"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					var y *tensor.Tensor
					if fused {
						y = tensor.AttentionKernel(q, k, v, nil, 1/math.Sqrt(E), false)
					} else {
						y = tensor.SDPAComposite(q, k, v, nil, 1/math.Sqrt(E), false)
					}
					if err := y.Err(); err != nil {
						b.Fatal(err)
					}
					if err := dev.Backend().Sync(); err != nil {
						b.Fatal(err)
					}
					y.Release()
				}
				b.ReportMetric(4*float64(B*H*L*L*E)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
