package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/dtype"
)

// BenchmarkLowp times BF16 and F16 next to F32 on the same shapes in one
// run: "f32" is F32 on the active kernels, "bf16" BF16 as it runs by
// default (LowPrecisionKernel: AMX tiles where available), the other bf16
// paths of the AVX-512 tier forced ("bf16-vdpbf16ps-forced",
// "bf16-widen-forced": widened while packing for the float32 kernels) and
// "f16" F16. GFLOP/s counts 2*m*n*k.
func BenchmarkLowp(b *testing.B) {
	shapes := []benchShape{
		{m: 1024, n: 1024, k: 1024},
		{m: 2048, n: 2048, k: 2048},
		{m: 1024, n: 1024, k: 1024, transA: true, transB: true},
	}
	for _, s := range shapes {
		rng := rand.New(rand.NewPCG(3, 4))
		ra, ca := stored(s.transA, s.m, s.k)
		rb, cb := stored(s.transB, s.k, s.n)
		a32 := make([]float32, ra*ca)
		b32 := make([]float32, rb*cb)
		for i := range a32 {
			a32[i] = float32(rng.Float64() - 0.5)
		}
		for i := range b32 {
			b32[i] = float32(rng.Float64() - 0.5)
		}
		abf, bbf := make([]dtype.BFloat16, len(a32)), make([]dtype.BFloat16, len(b32))
		ah, bh := make([]dtype.Float16, len(a32)), make([]dtype.Float16, len(b32))
		for i, v := range a32 {
			abf[i], ah[i] = dtype.BF16FromFloat32(v), dtype.F16FromFloat32(v)
		}
		for i, v := range b32 {
			bbf[i], bh[i] = dtype.BF16FromFloat32(v), dtype.F16FromFloat32(v)
		}
		c := make([]float32, s.m*s.n)
		run := func(name string, f func() error) {
			b.Run(fmt.Sprintf("%s/%s", s, name), func(b *testing.B) {
				if err := f(); err != nil { // untimed: fills the pools
					b.Fatal(err)
				}
				for b.Loop() {
					if err := f(); err != nil {
						b.Fatal(err)
					}
				}
				reportGFLOPS(b, s)
			})
		}
		run("f32-"+Kernel(), func() error {
			return F32(s.transA, s.transB, s.m, s.n, s.k, 1, a32, ca, b32, cb, 0, c, s.n)
		})
		bf := func() error {
			return BF16(s.transA, s.transB, s.m, s.n, s.k, 1, abf, ca, bbf, cb, 0, c, s.n)
		}
		run("bf16-"+LowPrecisionKernel(), bf)
		if Kernel() == "avx512" {
			// The other bf16 paths of the AVX-512 tier, forced.
			for _, p := range []string{"vdpbf16ps", "widen"} {
				prev := setBF16Path(p)
				if p == "widen" || LowPrecisionKernel() == p {
					run("bf16-"+p+"-forced", bf)
				}
				setBF16Path(prev)
			}
		}
		run("f16", func() error {
			return F16(s.transA, s.transB, s.m, s.n, s.k, 1, ah, ca, bh, cb, 0, c, s.n)
		})
	}
}
