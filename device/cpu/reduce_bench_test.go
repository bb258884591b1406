package cpu_test

import (
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// BenchmarkSum times Reduce(Sum) over common layouts: whole contiguous
// tensors, one axis of a matrix, a transposed view, f16 (widened), a
// broadcast view with many short rows, and many small outputs.
func BenchmarkSum(b *testing.B) {
	d := cpu.New()
	mat := func(b *testing.B, dt dtype.DType, shape ...int) device.Operand {
		l, _ := layout.Contiguous(shape...)
		buf, err := d.Alloc(dt, l.Numel())
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Fill(device.Operand{Buf: buf, Layout: l}, 0.5); err != nil {
			b.Fatal(err)
		}
		return device.Operand{Buf: buf, Layout: l}
	}
	out := func(b *testing.B, dt dtype.DType, shape ...int) device.Operand {
		return mat(b, dt, shape...)
	}
	run := func(b *testing.B, src device.Operand, axes []int, outShape ...int) {
		dst := out(b, src.Buf.DType(), outShape...)
		b.SetBytes(int64(src.Layout.Numel() * src.Buf.DType().Size()))
		b.ResetTimer()
		for range b.N {
			if err := d.Reduce(device.Sum, dst, src, axes); err != nil {
				b.Fatal(err)
			}
		}
	}
	const n = 1024
	b.Run("all-f32-1024x1024", func(b *testing.B) { run(b, mat(b, dtype.F32, n, n), []int{0, 1}) })
	b.Run("all-f64-1024x1024", func(b *testing.B) { run(b, mat(b, dtype.F64, n, n), []int{0, 1}) })
	b.Run("axis1-f32-1024x1024", func(b *testing.B) { run(b, mat(b, dtype.F32, n, n), []int{1}, n) })
	b.Run("axis0-f32-1024x1024", func(b *testing.B) { run(b, mat(b, dtype.F32, n, n), []int{0}, n) })
	b.Run("axis1-f32-65536x16", func(b *testing.B) { run(b, mat(b, dtype.F32, 65536, 16), []int{1}, 65536) })
	b.Run("transposed-all-f32-1024x1024", func(b *testing.B) {
		src := mat(b, dtype.F32, n, n)
		src.Layout, _ = src.Layout.Transpose(0, 1)
		run(b, src, []int{0, 1})
	})
	b.Run("all-f16-1024x1024", func(b *testing.B) { run(b, mat(b, dtype.F16, n, n), []int{0, 1}) })
	b.Run("all-bf16-1024x1024", func(b *testing.B) { run(b, mat(b, dtype.BF16, n, n), []int{0, 1}) })
	b.Run("axis1-bf16-1024x1024", func(b *testing.B) { run(b, mat(b, dtype.BF16, n, n), []int{1}, n) })
	b.Run("axis0-bf16-1024x1024", func(b *testing.B) { run(b, mat(b, dtype.BF16, n, n), []int{0}, n) })
	// A mean over a sequence, [batch, time, channels] over time.
	b.Run("axis1-f32-16x1024x64", func(b *testing.B) { run(b, mat(b, dtype.F32, 16, n, 64), []int{1}, 16, 64) })
	b.Run("axis1-bf16-16x1024x64", func(b *testing.B) { run(b, mat(b, dtype.BF16, 16, n, 64), []int{1}, 16, 64) })
	b.Run("broadcast-all-f32-1M-rows", func(b *testing.B) {
		src := mat(b, dtype.F32, 1, 2)
		src.Layout, _ = src.Layout.BroadcastTo(1<<20, 2)
		run(b, src, []int{0, 1})
	})
}
