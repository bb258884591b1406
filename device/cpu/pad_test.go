package cpu

import (
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/layout"
)

// TestPadPlanes checks that padPlanes writes every element of its
// destination (filled with a sentinel first, as uninitialised memory may
// be): each plane of x at its place, zeros around it and after the last
// plane, for contiguous, row-strided, flipped (negative strides) and
// one-column inputs, with and without padding, on one core and several.
func TestPadPlanes(t *testing.T) {
	for _, c := range []struct {
		name       string
		n, c, h, w int
		pad        [2]int
		view       func(base layout.Layout) layout.Layout
	}{
		{"contiguous", 2, 3, 4, 5, [2]int{1, 2}, nil},
		{"no pad", 2, 3, 4, 5, [2]int{0, 0}, nil},
		{"rows only", 1, 2, 3, 4, [2]int{2, 0}, nil},
		{"columns only", 1, 2, 3, 4, [2]int{0, 3}, nil},
		{"row stride", 2, 2, 3, 4, [2]int{1, 1}, func(b layout.Layout) layout.Layout {
			b.Strides = []int{2 * 3 * 7, 3 * 7, 7, 1}
			return b
		}},
		{"flipped", 2, 3, 4, 5, [2]int{2, 1}, func(b layout.Layout) layout.Layout {
			// Images, channels and rows in reverse.
			b.Offset = (2-1)*60 + (3-1)*20 + (4-1)*5
			b.Strides = []int{-60, -20, -5, 1}
			return b
		}},
		{"one column", 2, 2, 3, 1, [2]int{1, 1}, func(b layout.Layout) layout.Layout {
			b.Strides = []int{6, 3, 1, 9}
			return b
		}},
		{"many planes", 8, 64, 14, 14, [2]int{2, 2}, nil}, // shared out among the cores
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := layout.Contiguous(c.n, c.c, c.h, c.w)
			if err != nil {
				t.Fatal(err)
			}
			if c.view != nil {
				l = c.view(l)
			}
			x := make([]uint32, 4096*64)
			for i := range x {
				x[i] = uint32(i + 1)
			}
			hp, wp := c.h+2*c.pad[0], c.w+2*c.pad[1]
			const slack, sentinel = 5, 0xdeadbeef
			dst := make([]uint32, c.n*c.c*hp*wp+slack)
			for i := range dst {
				dst[i] = sentinel
			}
			padPlanes(dst, x, l, c.pad)
			for i, got := range dst {
				want := uint32(0)
				if i < c.n*c.c*hp*wp {
					p, y, col := i/(hp*wp), i%(hp*wp)/wp-c.pad[0], i%wp-c.pad[1]
					if y >= 0 && y < c.h && col >= 0 && col < c.w {
						want = x[l.Offset+p/c.c*l.Strides[0]+p%c.c*l.Strides[1]+y*l.Strides[2]+col*l.Strides[3]]
					}
				}
				if got != want {
					t.Fatalf("%s: dst[%d] = %#x, want %#x", fmt.Sprint(c.pad), i, got, want)
				}
			}
		})
	}
}
