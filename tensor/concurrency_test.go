package tensor_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/device/cpu"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
	"github.com/tessera-go/tessera/transfer"
)

// TestConcurrentUse shares tensors between 8 goroutines on every device:
// each computes with the shared operands and releases its own results, one
// also releases a shared view mid-way. Run under -race in CI.
func TestConcurrentUse(t *testing.T) {
	for _, dev := range testDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			a := tensor.RandN(dtype.F32, 1, 16, 16).To(dev)
			b := tensor.RandN(dtype.F32, 2, 16, 16).To(dev)
			want, err := a.Matmul(b.T()).Add(a).Sum(1).Float64s()
			if err != nil {
				t.Fatal(err)
			}
			shared := b.T()
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for g := range 8 {
				wg.Go(func() {
					for i := range 20 {
						m := a.Matmul(shared)
						s := m.Add(a)
						r := s.Sum(1)
						got, err := r.Float64s()
						m.Release()
						s.Release()
						r.Release()
						if err != nil {
							errs <- err
							return
						}
						if !slices.Equal(got, want) {
							t.Errorf("goroutine %d iteration %d: result differs", g, i)
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestToMovesSpan checks that moving a narrowed or transposed view sends
// exactly the storage span it touches, and keeps the logical values.
func TestToMovesSpan(t *testing.T) {
	other := cpu.New()
	base := tensor.Arange(dtype.F32, 0, 100, 1).Reshape(10, 10)
	cases := []struct {
		name  string
		x     *tensor.Tensor
		bytes int64
	}{
		{"narrowed", base.Narrow(0, 2, 3).Narrow(1, 1, 4), 4 * (2*10 + 4)}, // rows 2..4, cols 1..4
		{"transposed", base.T(), 4 * 100},
		{"row", base.Narrow(0, 7, 1), 4 * 10},
		{"empty", base.Narrow(0, 3, 0), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := transfer.Stats()
			moved := c.x.To(other)
			after := transfer.Stats()
			if d := after.HostCopied - before.HostCopied; d != c.bytes {
				t.Errorf("moved %d bytes, want the span's %d", d, c.bytes)
			}
			if moved.Device() != other {
				t.Errorf("on %v", moved.Device())
			}
			if !slices.Equal(moved.Strides(), c.x.Strides()) {
				t.Errorf("strides %v, want the view's %v kept", moved.Strides(), c.x.Strides())
			}
			w, _ := c.x.Float64s()
			g, err := moved.Float64s()
			if err != nil || !slices.Equal(g, w) {
				t.Errorf("values %v, want %v (%v)", g, w, err)
			}
		})
	}
}
