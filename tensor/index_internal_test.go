package tensor

import (
	"testing"

	"github.com/tessera-go/tessera/device"
)

// TestIndexChecksBounded: a loop that folds gathered values into one
// running tensor without Release keeps at most maxChecks pending index
// checks on it, on every device.
func TestIndexChecksBounded(t *testing.T) {
	devs := []device.Device{device.CPU()}
	if g, err := device.Open("webgpu:software"); err == nil {
		devs = append(devs, g)
	}
	for _, dev := range devs {
		x := FromSlice([]float32{1, 2, 3, 4}, 4).To(dev)
		idx := FromSlice([]int32{3, 0}, 2).To(dev)
		h := FromSlice([]float32{0, 0}, 2).To(dev)
		for range 100 {
			h = h.Add(x.Gather(0, idx))
			if len(h.chk) > maxChecks {
				t.Fatalf("%s: %d pending checks", dev.Name(), len(h.chk))
			}
		}
		got, err := ToSlice[float32](h)
		if err != nil || got[0] != 400 || got[1] != 100 {
			t.Fatalf("%s: %v, %v; want [400 100]", dev.Name(), got, err)
		}
	}
}
