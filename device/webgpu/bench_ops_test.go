//go:build cgo

package webgpu

import (
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// BenchmarkOps times representative elementwise, reduce and softmax calls
// (each followed by Sync) on 1M-element f32 views, for comparing the
// planner/executor split with what came before.
func BenchmarkOps(b *testing.B) {
	g := dev(b)
	r := rand.New(rand.NewPCG(2, 2))
	const side = 1024
	vals := randVals(r, dtype.F32, side*side, -4, 4)
	x := upload(b, g, dtype.F32, vals)
	y := upload(b, g, dtype.F32, vals)
	d := alloc(b, g, dtype.F32, side*side)
	row := alloc(b, g, dtype.F32, side)
	one := alloc(b, g, dtype.F32, 1)
	l := contig(side, side)
	t, _ := l.Transpose(0, 1)
	flat := contig(side * side)
	long := contig(1, side*side)
	cases := []struct {
		name string
		fn   func() error
	}{
		{"add", func() error { return g.Binary(device.Add, op(d, l), op(x, l), op(y, l)) }},
		{"exp", func() error { return g.Unary(device.Exp, op(d, l), op(x, l)) }},
		{"copy-transposed", func() error { return g.Copy(op(d, l), op(x, t)) }},
		{"sum-rows", func() error { return g.Reduce(device.Sum, op(row, contig(side)), op(x, l), []int{1}) }},
		{"sum-cols", func() error { return g.Reduce(device.Sum, op(row, contig(side)), op(x, l), []int{0}) }},
		{"sum-all", func() error { return g.Reduce(device.Sum, op(one, contig()), op(x, flat), []int{0}) }},
		{"softmax-rows", func() error { return g.Softmax(op(d, l), op(x, l), 1, false) }},
		{"softmax-long", func() error { return g.Softmax(op(d, long), op(x, long), 1, false) }},
		{"neg-small", func() error { return g.Unary(device.Neg, op(row, contig(side)), op(x, contig(side))) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.fn(); err != nil {
					b.Fatal(err)
				}
				if err := g.Sync(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
