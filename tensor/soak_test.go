package tensor_test

import (
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tessera-go/tessera/device/devicetest"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// soakIters is the soak test's iteration count: 10,000 by default (about
// 10 s for both devices on two busy cores, 8.6 s of it on webgpu:software),
// 1,000 with -short, or TESSERA_SOAK_ITERS.
func soakIters(t *testing.T) int {
	if s := os.Getenv("TESSERA_SOAK_ITERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 8 {
			t.Fatalf("TESSERA_SOAK_ITERS=%q: want a count of at least 8", s)
		}
		return n
	}
	if testing.Short() {
		return 1000
	}
	return 10000
}

// TestSoakMLPWithoutRelease runs a small MLP forward pass many times, written
// as natural code (no Release anywhere), under a 256 MiB device budget: it
// must complete, the memory in use must be flat over the second half of
// the run (the last quarter's peak no higher than the third quarter's, but
// for the collector's slack), and after the loop a collection brings
// memory back to where it started.
func TestSoakMLPWithoutRelease(t *testing.T) {
	iters := soakIters(t)
	defer tensor.SetMemoryLimit(256 << 20)()
	for _, dev := range testDevices(t) {
		be := dev.Backend()
		base := devicetest.SettledMemory(t, be)
		w1 := tensor.RandN(dtype.F32, 1, 64, 128).MulScalar(0.1).To(dev)
		b1 := tensor.Zeros(dtype.F32, 128).To(dev)
		w2 := tensor.RandN(dtype.F32, 2, 128, 10).MulScalar(0.1).To(dev)
		x := tensor.RandN(dtype.F32, 3, 32, 64).To(dev)
		var peak3, peak4 int64 // peaks over the third and the last quarter
		start := time.Now()
		for i := range iters {
			h := x.Matmul(w1).Add(b1).Relu()
			y := h.Matmul(w2).LogSoftmax(-1)
			loss := y.Mean()
			if err := loss.Err(); err != nil {
				t.Fatalf("%s: iteration %d: %v", dev.Name(), i, err)
			}
			use := be.MemoryInUse()
			switch {
			case i >= 3*iters/4:
				peak4 = max(peak4, use)
			case i >= iters/2:
				peak3 = max(peak3, use)
			}
		}
		elapsed := time.Since(start)
		// The valve lets memory grow by 16 MiB (or half the working set)
		// between collections: a flat run stays within one such step.
		if peak4 > peak3+16<<20+peak3/2 {
			t.Errorf("%s: memory in use rose from a peak of %d KiB in the third quarter to %d KiB in the last", dev.Name(), peak3>>10, peak4>>10)
		}
		x, w1, b1, w2 = nil, nil, nil, nil
		if after := devicetest.MemoryBackTo(t, be, base); after > base {
			t.Errorf("%s: %d bytes still in use after the loop and a collection (baseline %d)", dev.Name(), after, base)
		}
		t.Logf("%s: %d iterations in %v, peak memory in use: third quarter %d KiB, last quarter %d KiB", dev.Name(), iters, elapsed.Round(time.Millisecond), peak3>>10, peak4>>10)
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
		base := devicetest.SettledMemory(t, dev.Backend())
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
