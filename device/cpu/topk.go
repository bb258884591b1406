package cpu

import (
	"runtime"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
)

// topKChunk is how many elements of a line TopK packs into words at a time
// before filtering them through the heap.
const topKChunk = 512

// TopK implements device.TopKer for 32-bit and narrower dtypes: each line's
// elements become the sort's packed words (key<<32 | position, keyCodec),
// whose order as unsigned integers is the stable sort order, ties broken by
// position. A max-heap of the k smallest words seen so far filters the
// line; a word below the heap's top replaces it, so a line costs about one
// comparison per element when k is small beside it. The k survivors are
// sorted and decoded as Sort decodes its words. F64 and I64 (wider keys)
// are an ErrDType, for the caller to sort instead.
func (d *Device) TopK(vals, idx, src device.Operand, axis, k int, descending bool) error {
	bufs, err := d.operands("TopK", vals, idx, src)
	if err != nil {
		return err
	}
	if err := device.CheckTopK("cpu", vals.Arg(), idx.Arg(), src.Arg(), axis, k); err != nil {
		return err
	}
	if bufs[2].dt.Size() == 8 {
		return errs.New("cpu", "TopK", errs.ErrDType, "selects 32-bit keys and narrower, have %v", bufs[2].dt)
	}
	n, ls, sa, va, ia, err := sortLines("TopK", vals, idx, src, axis)
	if err != nil || k == 0 || len(ls) == 0 {
		return err
	}
	ib := slice[int64](bufs[1])
	kc := newKeyCodec(bufs[0], bufs[2], descending)
	par.For(len(ls), runtime.GOMAXPROCS(0), func(r int) {
		b := ls[r]
		h := smallestWords(kc, b[0], sa, n, k)
		kc.emit(h, b[1], va, b[2], ia, b[0], sa, ib)
	})
	return nil
}

// smallestWords returns, sorted, the k smallest packed words of the line of
// n elements starting at s0 (step ss); 0 < k <= n.
func smallestWords(kc keyCodec, s0, ss, n, k int) []uint64 {
	h := make([]uint64, 0, k)
	var buf [topKChunk]uint64
	for pos := 0; pos < n; pos += topKChunk {
		w := buf[:min(topKChunk, n-pos)]
		kc.pack(w, s0+pos*ss, ss, pos)
		if fill := min(k-len(h), len(w)); fill > 0 {
			h = append(h, w[:fill]...)
			w = w[fill:]
			if len(h) < k {
				continue
			}
			for i := k/2 - 1; i >= 0; i-- {
				siftDown(h, i)
			}
		}
		top := h[0]
		for _, x := range w {
			if x < top {
				h[0] = x
				siftDown(h, 0)
				top = h[0]
			}
		}
	}
	slices.Sort(h)
	return h
}

// siftDown restores the max-heap order of h below position i.
func siftDown(h []uint64, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] > h[c] {
			c++
		}
		if h[i] >= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
