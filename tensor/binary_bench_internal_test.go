package tensor

import (
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// BenchmarkBinaries times every binary operation of the op table on two
// 1 Mi float32 and float64 tensors of RandN values on the CPU, one
// sub-benchmark per dtype and operation (Binaries/f32/Atan2), as
// BenchmarkUnaries does for the unary ones: an operation the CPU runs
// per element through its float64 formula shows as an outlier beside Add.
// The ops whose second operand must be a constant (LeakyRelu, Elu) take
// 0.5. Gelem/s counts result elements.
//
//	go test ./tensor -run XXX -bench Binaries -benchtime 30x
func BenchmarkBinaries(b *testing.B) {
	const n = 1 << 20
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
		x := RandN(dtype.F32, 1, n).Cast(dt)
		y := RandN(dtype.F32, 2, n).Cast(dt)
		for _, op := range device.BinaryOps() {
			def, _ := op.Def()
			b.Run(dt.String()+"/"+op.String(), func(b *testing.B) {
				for b.Loop() {
					var z *Tensor
					if def.Param != "" {
						z = x.binaryScalar(op, 0.5)
					} else {
						z = binary(op, x, y)
					}
					if err := z.Err(); err != nil {
						b.Fatal(err)
					}
					z.Release()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
		}
		x.Release()
		y.Release()
	}
}
