package tensor_test

import (
	"errors"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestSoakMLPWithoutRelease runs a small MLP forward pass many times, written
// as natural code (no Release anywhere), under a 256 MiB device budget: it
// must complete, the memory in use must not grow over the second half of
// the run, and after the loop a collection brings memory back to where it
// started.
func TestSoakMLPWithoutRelease(t *testing.T) {
	iters := 2000
	if testing.Short() {
		iters = 300
	}
	defer tensor.SetMemoryLimit(256 << 20)()
	for _, dev := range testDevices(t) {
		be := dev.Backend()
		base := settledMemory(t, be)
		w1 := tensor.RandN(dtype.F32, 1, 64, 128).MulScalar(0.1).To(dev)
		b1 := tensor.Zeros(dtype.F32, 128).To(dev)
		w2 := tensor.RandN(dtype.F32, 2, 128, 10).MulScalar(0.1).To(dev)
		x := tensor.RandN(dtype.F32, 3, 32, 64).To(dev)
		var mid, peak int64
		for i := range iters {
			h := x.Matmul(w1).Add(b1).Relu()
			y := h.Matmul(w2).LogSoftmax(-1)
			loss := y.Mean()
			if err := loss.Err(); err != nil {
				t.Fatalf("%s: iteration %d: %v", dev.Name(), i, err)
			}
			use := be.MemoryInUse()
			if i == iters/2 {
				mid = use
			}
			if i > iters/2 {
				peak = max(peak, use)
			}
		}
		// Growth over the second half: allow the collector's slack (the valve
		// collects after 16 MiB of growth) but not a steady climb.
		if peak > mid+96<<20 {
			t.Errorf("%s: memory in use rose from %d to %d MiB over the second half", dev.Name(), mid>>20, peak>>20)
		}
		x, w1, b1, w2 = nil, nil, nil, nil
		if after := settledMemory(t, be); after > base {
			t.Errorf("%s: %d bytes still in use after the loop and a collection (baseline %d)", dev.Name(), after, base)
		}
		t.Logf("%s: %d iterations, memory in use at half %d KiB, peak after %d KiB", dev.Name(), iters, mid>>10, peak>>10)
	}
}

// TestMemoryBudget refuses an allocation that live tensors leave no room for,
// with ErrOutOfMemory, and succeeds once they are gone.
func TestMemoryBudget(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"", 0}, {"1024", 1024}, {"64MiB", 64 << 20}, {"2GiB", 2 << 30}, {"-5", 0}, {"lots", 0}, {"9999999999GiB", 0}} {
		if got := tensor.ParseMemoryLimit(c.in); got != c.want {
			t.Errorf("ParseMemoryLimit(%q) = %d, want %d", c.in, got, c.want)
		}
	}
	for _, dev := range testDevices(t) {
		base := settledMemory(t, dev.Backend())
		restore := tensor.SetMemoryLimit(base + 8<<20)
		keep := tensor.Zeros(dtype.F32, 1<<20).To(dev) // 4 MiB, live
		if err := keep.Err(); err != nil {
			restore()
			t.Fatal(err)
		}
		big := tensor.Zeros(dtype.F32, 1<<21).To(dev) // 8 MiB more: over the budget
		if err := big.Err(); !errors.Is(err, tensor.ErrOutOfMemory) {
			t.Errorf("%s: allocation over the budget: %v, want ErrOutOfMemory", dev.Name(), err)
		}
		keep.Release()
		big = tensor.Zeros(dtype.F32, 1<<21).To(dev)
		if err := big.Err(); err != nil {
			t.Errorf("%s: allocation within the budget after Release: %v", dev.Name(), err)
		}
		big.Release()
		restore()
	}
}
