package tensor_test

import (
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// BenchmarkUnaries times every non-predicate unary operation of the op
// table on 1 Mi float32, float64 and bfloat16 elements on the CPU, one
// sub-benchmark per dtype and operation (Unaries/f32/Silu), so that an
// operation the CPU backend evaluates through scalar float64 math instead
// of a vector kernel shows as an outlier beside Neg (a copy with a sign
// flip, the memory-bound ceiling) and Exp (a vector transcendental).
// Gelem/s counts result elements.
//
//	go test ./tensor -run XXX -bench Unaries -benchtime 100x
func BenchmarkUnaries(b *testing.B) {
	const n = 1 << 20
	dev := testDevices(b)[0] // the CPU
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.BF16} {
		x := tensor.RandN(dtype.F32, 1, n).Cast(dt).To(dev)
		if err := x.Err(); err != nil {
			b.Fatal(err)
		}
		for _, op := range device.UnaryOps() {
			if op.IsPredicate() {
				continue
			}
			b.Run(dt.String()+"/"+op.String(), func(b *testing.B) {
				for b.Loop() {
					z := x.Unary(op)
					if err := z.Err(); err != nil {
						b.Fatal(err)
					}
					z.Release()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
		}
		x.Release()
	}
}

// BenchmarkScalarOps times binary ops with a constant second operand on
// BenchmarkUnaries' 1 Mi elements (f32/LeakyRelu, ...): the activations
// LeakyRelu(0.01) and Elu(1), beside which Relu's figure there is the
// ceiling, and PowScalar with the exponents 2, 0.5 and -0.5, which the
// CPU computes as a product, a square root and its reciprocal, and 3, per
// element. Gelem/s
// counts result elements.
//
//	go test ./tensor -run XXX -bench ScalarOps -benchtime 100x
func BenchmarkScalarOps(b *testing.B) {
	const n = 1 << 20
	dev := testDevices(b)[0] // the CPU
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.BF16} {
		x := tensor.RandN(dtype.F32, 1, n).Cast(dt).To(dev)
		for _, c := range []struct {
			name string
			f    func() *tensor.Tensor
		}{{"LeakyRelu", func() *tensor.Tensor { return x.LeakyRelu(0.01) }}, {"Elu", func() *tensor.Tensor { return x.Elu(1) }},
			{"Pow2", func() *tensor.Tensor { return x.PowScalar(2) }}, {"Pow0.5", func() *tensor.Tensor { return x.PowScalar(0.5) }},
			{"Pow-0.5", func() *tensor.Tensor { return x.PowScalar(-0.5) }},
			{"Pow3", func() *tensor.Tensor { return x.PowScalar(3) }}} {
			b.Run(dt.String()+"/"+c.name, func(b *testing.B) {
				for b.Loop() {
					z := c.f()
					if err := z.Err(); err != nil {
						b.Fatal(err)
					}
					z.Release()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
		}
		x.Release()
	}
}
