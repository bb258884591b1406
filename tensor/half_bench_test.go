package tensor_test

import (
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// BenchmarkHalfOps times elementwise operations, a reduction and casts on
// 1 Mi elements of f32, bf16 and f16 on the CPU: half-precision tensors
// compute in float32, so the f32 run of the same operation is the anchor
// their conversions are measured against (ratio = f32 time / half time).
// Gelem/s counts elements of the result (of the input for Sum).
//
//	go test ./tensor -run XXX -bench HalfOps -benchtime 100x -count 5
func BenchmarkHalfOps(b *testing.B) {
	const n = 1 << 20
	dev := testDevices(b)[0] // the CPU
	for _, dt := range []dtype.DType{dtype.F32, dtype.BF16, dtype.F16} {
		x := tensor.RandN(dtype.F32, 1, n).Cast(dt).To(dev)
		y := tensor.RandN(dtype.F32, 2, n).Cast(dt).To(dev)
		w := tensor.RandN(dtype.F32, 3, n).To(dev)
		bias := tensor.RandN(dtype.F32, 4, 1024).Cast(dt).To(dev)
		xm := x.Reshape(n/1024, 1024)
		if err := firstErr(x, y, w, bias, xm); err != nil {
			b.Fatal(err)
		}
		ops := []struct {
			name string
			f    func() *tensor.Tensor
		}{
			{"Add", func() *tensor.Tensor { return x.Add(y) }},
			{"AddBias", func() *tensor.Tensor { return xm.Add(bias) }},
			{"MulScalar", func() *tensor.Tensor { return x.MulScalar(0.5) }},
			{"BiasGelu", func() *tensor.Tensor { return xm.Add(bias).Gelu() }},
			{"Tanh", func() *tensor.Tensor { return x.Tanh() }},
			{"MulAddRelu", func() *tensor.Tensor { return x.Mul(y).Add(x).Relu() }},
			{"Sum", func() *tensor.Tensor { return x.Sum() }},
			{"ToF32", func() *tensor.Tensor { return x.Cast(dtype.F32) }},
			{"FromF32", func() *tensor.Tensor { return w.Cast(dt) }},
		}
		for _, op := range ops {
			b.Run(fmt.Sprintf("%s/%s", dt, op.name), func(b *testing.B) {
				for b.Loop() {
					z := op.f()
					if err := z.Err(); err != nil { // realises a pending (fused) result
						b.Fatal(err)
					}
					z.Release()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
		}
		x.Release()
		y.Release()
		w.Release()
		bias.Release()
	}
}

// firstErr returns the first error of ts, realising pending ones.
func firstErr(ts ...*tensor.Tensor) error {
	for _, t := range ts {
		if err := t.Err(); err != nil {
			return err
		}
	}
	return nil
}
