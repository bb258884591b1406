package cpu

import (
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// TestSoftmaxAllocationsPerCall: Softmax and log-softmax over the last
// axis allocate as much for 512 lines as for 8. The line table (lines)
// and log-softmax's log of the sum once cost an allocation per line,
// which made a [64, 10] log-softmax 156 allocations.
func TestSoftmaxAllocationsPerCall(t *testing.T) {
	if raceEnabled {
		t.Skip("a -race build's sync.Pool drops items, so allocation counts vary")
	}
	d := New()
	defer d.Close()
	allocs := func(lines int, log bool) float64 {
		l, err := layout.Contiguous(lines, 10)
		if err != nil {
			t.Fatal(err)
		}
		src, _ := d.Alloc(dtype.F32, l.Numel())
		dst, _ := d.Alloc(dtype.F32, l.Numel())
		s := slice[float32](src.(*Buffer))
		for i := range s {
			s[i] = float32(i%7) - 3
		}
		return testing.AllocsPerRun(20, func() {
			if err := d.Softmax(device.Operand{Buf: dst, Layout: l}, device.Operand{Buf: src, Layout: l}, 1, log); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, log := range []bool{false, true} {
		if few, many := allocs(8, log), allocs(512, log); many > few {
			t.Errorf("log=%v: %.0f allocations for 512 lines, %.0f for 8", log, many, few)
		}
	}
}
