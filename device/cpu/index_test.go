package cpu

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRadixPacked: the radix sort of (key << 32 | position) words equals a
// comparison sort of the whole words (the stable order of the keys), for
// lengths around the comparison-sort cut-off, with many repeated keys and
// with keys that share digits (skipped passes).
func TestRadixPacked(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 255, 256, 257, 5000, 1 << 17} {
		for _, mask := range []uint32{3, 0x7ff << 11, 1<<32 - 1} {
			w := make([]uint64, n)
			for i := range w {
				w[i] = uint64(r.Uint32()&mask)<<32 | uint64(i)
			}
			want := slices.Clone(w)
			slices.Sort(want)
			radixPacked(w)
			if !slices.Equal(w, want) {
				t.Fatalf("n=%d mask=%#x: order differs", n, mask)
			}
		}
	}
}
