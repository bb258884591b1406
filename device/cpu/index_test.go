package cpu

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortWords: the radix sort of (key << 32 | position) words equals a
// comparison sort of the whole words (the stable order of the keys), for
// lengths around the insertion-sort, 8-bit-digit and in-cache cut-offs and
// past them (most-significant-digit split, on one core and on two), with
// many repeated keys, keys that share digits (skipped passes) and keys
// confined to a few high bits. Every position must be emitted exactly once.
func TestSortWords(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 31, 32, 33, 255, 4095, 4096, 5000, cacheWords, cacheWords + 1, 1 << 18} {
		for _, mask := range []uint32{0, 3, 0x7ff << 11, 0xf0000000, 0x80000001, 1<<32 - 1} {
			for _, procs := range []int{1, 2} {
				w := make([]uint64, n)
				var or, and uint32 = 0, 1<<32 - 1
				for i := range w {
					k := r.Uint32() & mask
					or, and = or|k, and&k
					w[i] = uint64(k)<<32 | uint64(i)
				}
				want := slices.Clone(w)
				slices.Sort(want)
				got := make([]uint64, n)
				seen := make([]bool, n)
				var hist sortHist
				sortWords(w, make([]uint64, n), 0, or&^and, procs, &hist, func(start int, run []uint64) {
					for j := range run {
						if seen[start+j] {
							t.Errorf("n=%d: position %d emitted twice", n, start+j)
						}
						seen[start+j] = true
					}
					copy(got[start:], run)
				})
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d mask=%#x procs=%d: order differs", n, mask, procs)
				}
			}
		}
	}
}
