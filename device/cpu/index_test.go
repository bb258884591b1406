package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
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
				sortWords(w, make([]uint64, n), 0, or&^and, procs, &hist, wordsInto(got, func(start, j int) {
					if seen[start+j] {
						t.Errorf("n=%d: position %d emitted twice", n, start+j)
					}
					seen[start+j] = true
				}))
				if !slices.Equal(got, want) {
					t.Fatalf("n=%d mask=%#x procs=%d: order differs", n, mask, procs)
				}
			}
		}
	}
}

// wordsInto is a sortSink copying the sorted words into got at their
// offsets, calling mark(start, j) for each word (j: its offset in the
// run).
func wordsInto(got []uint64, mark func(start, j int)) sortSink {
	return func(start int, run []uint64) {
		for j := range run {
			mark(start, j)
		}
		copy(got[start:], run)
	}
}

// TestSortHalfTypes: the backend sorts F16 and BF16 itself (the tensor
// layer widens them first, other callers need not): three lines of 300
// along a strided axis, ties, ±0 and NaN included, both orders. The
// reference is a stable comparison sort of the widened values with NaN
// last (first when descending) and -0 equal to +0; values must be the
// source's bits at the emitted positions.
func TestSortHalfTypes(t *testing.T) {
	const n, lines = 300, 3
	d := New()
	for _, dt := range []dtype.DType{dtype.F16, dtype.BF16} {
		src, _ := d.Alloc(dt, n*lines)
		h := slice[uint16](src.(*Buffer))
		widen := func(b uint16) float32 { return dtype.Float16(b).Float32() }
		from := func(f float64) uint16 { return uint16(dtype.F16FromFloat64(f)) }
		if dt == dtype.BF16 {
			widen = func(b uint16) float32 { return dtype.BFloat16(b).Float32() }
			from = func(f float64) uint16 { return uint16(dtype.BF16FromFloat64(f)) }
		}
		for i := range h {
			switch i % 11 {
			case 0:
				h[i] = from(math.NaN())
			case 1:
				h[i] = from(math.Copysign(0, -1))
			case 2:
				h[i] = from(0)
			default:
				h[i] = from(float64(i*7919%37) - 18)
			}
		}
		sl, _ := layout.Contiguous(lines, n)
		sl, _ = sl.Transpose(0, 1) // [n, lines]: each line along axis 0 has stride lines
		for _, desc := range []bool{false, true} {
			vals, _ := d.Alloc(dt, n*lines)
			idx, _ := d.Alloc(dtype.I64, n*lines)
			ol, _ := layout.Contiguous(n, lines)
			if err := d.Sort(device.Operand{Buf: vals, Layout: ol}, device.Operand{Buf: idx, Layout: ol}, device.Operand{Buf: src, Layout: sl}, 0, desc); err != nil {
				t.Fatal(err)
			}
			gv, gi := slice[uint16](vals.(*Buffer)), slice[int64](idx.(*Buffer))
			for c := range lines {
				order := make([]int, n)
				for i := range order {
					order[i] = i
				}
				key := func(i int) float64 {
					v := float64(widen(h[c*n+i]))
					if v != v {
						return math.Inf(1)
					}
					return v
				}
				rank := func(i int) int { // NaN above +Inf
					if v := widen(h[c*n+i]); v != v {
						return 1
					}
					return 0
				}
				sort.SliceStable(order, func(a, b int) bool {
					ka, kb, ra, rb := key(order[a]), key(order[b]), rank(order[a]), rank(order[b])
					if desc {
						ka, kb, ra, rb = kb, ka, rb, ra
					}
					return ra < rb || ra == rb && ka < kb
				})
				for r, i := range order {
					if gi[r*lines+c] != int64(i) || gv[r*lines+c] != h[c*n+i] {
						t.Fatalf("%v desc=%v line %d: element %d = (%#x, %d), want (%#x, %d)", dt, desc, c, r, gv[r*lines+c], gi[r*lines+c], h[c*n+i], i)
					}
				}
			}
		}
	}
}
