package layout_test

import (
	"slices"
	"testing"

	"github.com/tessera-go/tessera/layout"
)

// TestUnsqueezeHugeStride inserts an axis before one whose stride times
// extent overflows an int (a hand-built layout that passes every check: its
// span fits). The product used to wrap to a negative stride; the new axis
// has extent 1, so any stride is correct and the view is unchanged.
func TestUnsqueezeHugeStride(t *testing.T) {
	l := layout.Layout{Shape: []int{2}, Strides: []int{1 << 62}}
	for _, axis := range []int{0, -2} {
		u, err := l.Unsqueeze(axis)
		if err != nil {
			t.Fatalf("Unsqueeze(%d): %v", axis, err)
		}
		if !slices.Equal(u.Shape, []int{1, 2}) || u.Strides[1] != l.Strides[0] || u.Strides[0] <= 0 {
			t.Errorf("Unsqueeze(%d) = %v %v", axis, u.Shape, u.Strides)
		}
		if lo, hi := u.Span(); lo != 0 || hi != 1<<62+1 {
			t.Errorf("Unsqueeze(%d) spans [%d, %d)", axis, lo, hi)
		}
	}
}
