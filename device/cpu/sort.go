package cpu

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
)

// The CPU sort. Every element becomes an unsigned key whose order is the
// documented one (floatKey32, floatKey64; complemented for descending
// order). Keys of at most 32 bits travel packed with their position in one
// word, key<<32 | position, and are ordered by sortWords: a radix sort that
// is stable, so equal keys keep their positions ascending and the order of
// the keys is also the order of the whole words. Wider keys (F64, I64)
// take sortLine, a byte-wise radix sort of keys and positions side by side.

// maxSortLine is the longest line the packed sort takes: positions use the
// low 31 bits of a word, the 32nd marks an element whose value is read back
// from the source rather than decoded from its key.
const maxSortLine = 1<<31 - 1

// Sort sorts every line along axis, stably, in the order documented on
// device.Sorter. Lines are spread over the cores one line each; when there
// are fewer lines than cores (one long row), each line is sorted by all
// cores at once.
func (d *Device) Sort(vals, idx, src device.Operand, axis int, descending bool) error {
	bufs, err := d.operands("Sort", vals, idx, src)
	if err != nil {
		return err
	}
	if err := device.CheckSort("cpu", vals.Arg(), idx.Arg(), src.Arg(), axis); err != nil {
		return err
	}
	n := src.Layout.Shape[axis]
	if n > maxSortLine {
		return errs.New("cpu", "Sort", errs.ErrShape, "a line of %d elements along axis %d exceeds the %d the CPU sort takes", n, axis, maxSortLine)
	}
	ls := lines(src.Layout.Shape, axis, src.Layout, vals.Layout, idx.Layout)
	if n == 0 || len(ls) == 0 {
		return nil
	}
	sa, va, ia := src.Layout.Strides[axis], vals.Layout.Strides[axis], idx.Layout.Strides[axis]
	ib := slice[int64](bufs[1])
	procs := runtime.GOMAXPROCS(0)
	if bufs[2].dt.Size() == 8 {
		sortWide(bufs, ls, n, sa, va, ia, ib, descending, procs)
		return nil
	}
	kc := newKeyCodec(bufs[0], bufs[2], descending)
	inner := 1
	if len(ls) < procs {
		inner = procs
	}
	par.For(len(ls), procs, func(r int) {
		b := ls[r]
		s := getSortScratch(n)
		defer sortScratchPool.Put(s)
		w, tmp := s.w[:min(n, cap(s.w))], s.tmp[:min(n, cap(s.tmp))]
		if n >= poolMinWords { // long lines: the device's pool, which outlives a collection
			w, tmp = d.pool.get(n), d.pool.get(n)
			defer d.pool.put(w)
			defer d.pool.put(tmp)
		}
		var or, and atomic.Uint32
		and.Store(math.MaxUint32)
		chunks(n, inner, func(lo, hi int) {
			o, a := kc.pack(w[lo:hi], b[0]+lo*sa, sa, lo)
			or.Or(o)
			and.And(a)
		})
		sortWords(w, tmp, 0, or.Load()&^and.Load(), inner, &s.hist, func(start int, run []uint64) {
			kc.emit(run, b[1]+start*va, va, b[2]+start*ia, ia, b[0], sa, ib)
		})
	})
	return nil
}

// chunks calls fn concurrently on consecutive, nearly equal parts of
// [0, n): p parts, fewer when a part would hold under 4096 elements, and
// fn(0, n) alone on the calling goroutine when one part remains.
func chunks(n, p int, fn func(lo, hi int)) {
	p = max(min(p, n/4096), 1)
	par.Run(p, func(c int) { fn(c*n/p, (c+1)*n/p) })
}

// keyCodec turns one dtype's elements into 32-bit keys and sorted keys back
// into elements.
type keyCodec struct {
	// pack writes w[i] = key(src[s0 + i*ss]) << 32 | (pos0 + i), with bit
	// 31 set on elements whose value emit must read from the source, and
	// returns the OR and the AND of the keys.
	pack func(w []uint64, s0, ss, pos0 int) (or, and uint32)
	// emit writes the values and positions of sorted words to the values
	// (from v0, step vs) and indices (from i0, step is); the line's source
	// starts at s0 with step ss.
	emit func(run []uint64, v0, vs, i0, is, s0, ss int, ib []int64)
}

// newKeyCodec returns the codec of src's dtype (a 32-, 16- or 8-bit type)
// writing into vals. F32, I32, U8 and Bool decode values from the keys,
// reading the source only for ±0 and NaN (whose keys merge bit patterns);
// F16 and BF16 read every value from the source.
func newKeyCodec(vals, src *Buffer, descending bool) keyCodec {
	var flip uint32
	if descending {
		flip = math.MaxUint32
	}
	switch src.dt {
	case dtype.F32:
		s, v := slice[uint32](src), slice[uint32](vals)
		return keyCodec{
			pack: func(w []uint64, s0, ss, pos0 int) (uint32, uint32) {
				or, and := uint32(0), uint32(math.MaxUint32)
				p := s0
				for i := range w {
					b := s[p]
					p += ss
					k, pos := b^(uint32(int32(b)>>31)|1<<31), uint32(pos0+i)
					if a := b &^ (1 << 31); a-1 >= 0x7f800000 { // ±0 or NaN
						k, pos = 1<<31, pos|1<<31
						if a != 0 {
							k = math.MaxUint32
						}
					}
					k ^= flip
					or, and = or|k, and&k
					w[i] = uint64(k)<<32 | uint64(pos)
				}
				return or, and
			},
			emit: func(run []uint64, v0, vs, i0, is, s0, ss int, ib []int64) {
				for j, x := range run {
					k, pos := uint32(x>>32)^flip, uint32(x)
					var b uint32
					switch {
					case pos>>31 != 0:
						pos &^= 1 << 31
						b = s[s0+int(pos)*ss]
					case k>>31 != 0:
						b = k ^ 1<<31
					default:
						b = ^k
					}
					v[v0+j*vs], ib[i0+j*is] = b, int64(pos)
				}
			},
		}
	case dtype.I32:
		s, v := slice[uint32](src), slice[uint32](vals)
		return keyCodec{
			pack: func(w []uint64, s0, ss, pos0 int) (uint32, uint32) {
				or, and := uint32(0), uint32(math.MaxUint32)
				p := s0
				for i := range w {
					k := s[p] ^ 1<<31 ^ flip
					p += ss
					or, and = or|k, and&k
					w[i] = uint64(k)<<32 | uint64(pos0+i)
				}
				return or, and
			},
			emit: func(run []uint64, v0, vs, i0, is, _, _ int, ib []int64) {
				for j, x := range run {
					v[v0+j*vs], ib[i0+j*is] = uint32(x>>32)^flip^1<<31, int64(uint32(x))
				}
			},
		}
	case dtype.U8, dtype.Bool:
		s, v := slice[uint8](src), slice[uint8](vals)
		return keyCodec{
			pack: func(w []uint64, s0, ss, pos0 int) (uint32, uint32) {
				or, and := uint32(0), uint32(math.MaxUint32)
				p := s0
				for i := range w {
					k := uint32(s[p]) ^ flip
					p += ss
					or, and = or|k, and&k
					w[i] = uint64(k)<<32 | uint64(pos0+i)
				}
				return or, and
			},
			emit: func(run []uint64, v0, vs, i0, is, _, _ int, ib []int64) {
				for j, x := range run {
					v[v0+j*vs], ib[i0+j*is] = uint8(uint32(x>>32)^flip), int64(uint32(x))
				}
			},
		}
	}
	// F16, BF16: keys of the values widened to F32, values copied.
	s, v := slice[uint16](src), slice[uint16](vals)
	widen := func(h uint16) float32 { return dtype.Float16(h).Float32() }
	if src.dt == dtype.BF16 {
		widen = func(h uint16) float32 { return dtype.BFloat16(h).Float32() }
	}
	return keyCodec{
		pack: func(w []uint64, s0, ss, pos0 int) (uint32, uint32) {
			or, and := uint32(0), uint32(math.MaxUint32)
			for i := range w {
				k := floatKey32(widen(s[s0+i*ss])) ^ flip
				or, and = or|k, and&k
				w[i] = uint64(k)<<32 | uint64(pos0+i)
			}
			return or, and
		},
		emit: func(run []uint64, v0, vs, i0, is, s0, ss int, ib []int64) {
			for j, x := range run {
				pos := int(uint32(x))
				v[v0+j*vs], ib[i0+j*is] = s[s0+pos*ss], int64(pos)
			}
		},
	}
}

const (
	// insertionMax: runs this short are finished by insertion sort.
	insertionMax = 32
	// cacheWords: runs this short (512 KiB) are finished by least-
	// significant-digit passes, which then stay in the core's L2 cache.
	cacheWords = 1 << 16
	// digitBits: the widest radix digit (2048 buckets).
	digitBits = 11
)

// sortHist holds the digit counts of up to three 11-bit or four 8-bit LSD
// passes.
type sortHist [3 << digitBits]uint32

// sortScratch is a line's counters and, for lines shorter than
// poolMinWords, its words; reused through a sync.Pool. Longer lines take
// their words from the device's pool of large buffers, which survives a
// garbage collection (a sync.Pool does not), so a loop of large sorts does
// not allocate and zero them again after every collection.
type sortScratch struct {
	w, tmp []uint64
	hist   sortHist
}

var sortScratchPool sync.Pool

func getSortScratch(n int) *sortScratch {
	s, ok := sortScratchPool.Get().(*sortScratch)
	if !ok {
		s = new(sortScratch)
	}
	if n < poolMinWords && cap(s.w) < n {
		s.w, s.tmp = make([]uint64, n), make([]uint64, n)
	}
	return s
}

// sortWords sorts the words of w (key<<32 | position, positions ascending
// among equal keys) by key, stably, with tmp (as long as w) as scratch, and
// hands the sorted words to emit in consecutive runs, each with its offset
// in w; runs may be emitted in any order. varying has a bit set for every
// key bit that differs between some words. A run longer than cacheWords is
// split by a most-significant-digit pass on its highest 11 varying bits
// (counted and scattered by procs cores, each over its own part, so the
// pass stays stable) and its buckets are sorted on procs cores; shorter
// runs take least-significant-digit passes over the remaining varying bits
// (lsdWords) or, below insertionMax, insertion sort. With procs > 1 emit
// may be called concurrently, always on disjoint runs.
func sortWords(w, tmp []uint64, start int, varying uint32, procs int, hist *sortHist, emit func(int, []uint64)) {
	n := len(w)
	switch {
	case varying == 0 || n <= 1:
		emit(start, w)
		return
	case n <= insertionMax:
		insertionWords(w)
		emit(start, w)
		return
	case n <= cacheWords:
		emit(start, lsdWords(w, tmp, varying, hist))
		return
	}
	hi := bits.Len32(varying)
	lo := max(hi-digitBits, 0)
	sh, nb := uint(32+lo), 1<<(hi-lo)
	mask := uint64(nb - 1)
	p := max(min(procs, n/(1<<16)), 1)
	cnt := make([]int, p*nb)
	par.Run(p, func(c int) {
		h := cnt[c*nb : (c+1)*nb]
		for _, x := range w[c*n/p : (c+1)*n/p] {
			h[(x>>sh)&mask]++
		}
	})
	starts := make([]int, nb+1)
	sum := 0
	for dg := range nb {
		starts[dg] = sum
		for c := range p {
			cnt[c*nb+dg], sum = sum, sum+cnt[c*nb+dg]
		}
	}
	starts[nb] = n
	par.Run(p, func(c int) {
		h := cnt[c*nb : (c+1)*nb]
		for _, x := range w[c*n/p : (c+1)*n/p] {
			dg := (x >> sh) & mask
			tmp[h[dg]] = x
			h[dg]++
		}
	})
	rest := varying & (1<<lo - 1)
	var next atomic.Int64
	par.Run(procs, func(c int) {
		hc := hist
		if c > 0 {
			hc = new(sortHist)
		}
		for {
			dg := int(next.Add(1)) - 1
			if dg >= nb {
				return
			}
			a, b := starts[dg], starts[dg+1]
			if a < b {
				sortWords(tmp[a:b], w[a:b], start+a, rest, 1, hc, emit)
			}
		}
	})
}

// lsdWords sorts w by the varying bits of its keys, stably, in least-
// significant-digit passes of at most 11 bits (8 for short runs, where
// counting 2048 buckets would cost more than the passes it saves), all
// counted in one read; a pass whose digit every word shares is skipped. It
// returns the slice, w or tmp, that holds the result.
func lsdWords(w, tmp []uint64, varying uint32, hist *sortHist) []uint64 {
	n := len(w)
	lo := bits.TrailingZeros32(varying)
	span := bits.Len32(varying) - lo
	d := digitBits
	if n < 1<<12 {
		d = 8
	}
	passes := (span + d - 1) / d
	d = (span + passes - 1) / passes
	nb := 1 << d
	mask := uint32(nb - 1)
	h := hist[:passes*nb]
	clear(h)
	sh := uint(32 + lo)
	switch passes {
	case 1:
		for _, x := range w {
			h[uint32(x>>sh)&mask]++
		}
	case 2:
		h1 := h[nb:]
		for _, x := range w {
			k := uint32(x >> sh)
			h[k&mask]++
			h1[(k>>d)&mask]++
		}
	case 3:
		h1, h2 := h[nb:], h[2*nb:]
		for _, x := range w {
			k := uint32(x >> sh)
			h[k&mask]++
			h1[(k>>d)&mask]++
			h2[(k>>(2*d))&mask]++
		}
	default: // 4 passes of 8 bits
		h1, h2, h3 := h[nb:], h[2*nb:], h[3*nb:]
		for _, x := range w {
			k := uint32(x >> sh)
			h[k&mask]++
			h1[(k>>d)&mask]++
			h2[(k>>(2*d))&mask]++
			h3[(k>>(3*d))&mask]++
		}
	}
	src, dst := w, tmp
	for p := range passes {
		c := h[p*nb : (p+1)*nb]
		s := sh + uint(p*d)
		if int(c[uint32(src[0]>>s)&mask]) == n {
			continue
		}
		var sum uint32
		for i, v := range c {
			c[i], sum = sum, sum+v
		}
		for _, x := range src {
			dg := uint32(x>>s) & mask
			dst[c[dg]] = x
			c[dg]++
		}
		src, dst = dst, src
	}
	return src
}

// insertionWords sorts a short run of distinct words in place.
func insertionWords(w []uint64) {
	for i := 1; i < len(w); i++ {
		x := w[i]
		j := i
		for ; j > 0 && w[j-1] > x; j-- {
			w[j] = w[j-1]
		}
		w[j] = x
	}
}

// sortWide sorts lines of 64-bit elements (F64, I64): keys and positions
// side by side (sortLine), one line per core at a time, values copied from
// the source by position.
func sortWide(bufs []*Buffer, ls [][]int, n, sa, va, ia int, ib []int64, descending bool, procs int) {
	s := slice[uint64](bufs[2])
	key := func(x uint64) uint64 { return floatKey64(math.Float64frombits(x)) }
	if bufs[2].dt == dtype.I64 {
		key = func(x uint64) uint64 { return x ^ 1<<63 }
	}
	var flip uint64
	if descending {
		flip = math.MaxUint64
	}
	emit := permuter(bufs[0], bufs[2])
	par.For(len(ls), procs, func(r int) {
		b := ls[r]
		keys, order := make([]uint64, n), make([]int32, n)
		for i := range n {
			keys[i], order[i] = key(s[b[0]+i*sa])^flip, int32(i)
		}
		sortLine(keys, order, 8)
		emit(order, b[1], va, b[0], sa)
		for j, i := range order {
			ib[b[2]+j*ia] = int64(i)
		}
	})
}

// permuter returns a function writing dst[d0 + j*ds] = src[s0 + order[j]*ss]
// for every j, moving elements of the buffers' size as raw bits.
func permuter(dst, src *Buffer) func(order []int32, d0, ds, s0, ss int) {
	switch src.dt.Size() {
	case 1:
		return permute(slice[uint8](dst), slice[uint8](src))
	case 2:
		return permute(slice[uint16](dst), slice[uint16](src))
	case 4:
		return permute(slice[uint32](dst), slice[uint32](src))
	}
	return permute(slice[uint64](dst), slice[uint64](src))
}

func permute[T uint8 | uint16 | uint32 | uint64](d, s []T) func(order []int32, d0, ds, s0, ss int) {
	return func(order []int32, d0, ds, s0, ss int) {
		for j, i := range order {
			d[d0+j*ds] = s[s0+int(i)*ss]
		}
	}
}

// floatKey32 maps f32 to an unsigned key in the sort order: -Inf first,
// -0 equal to +0, every NaN equal and last.
func floatKey32(x float32) uint32 {
	b := math.Float32bits(x)
	switch {
	case x != x:
		return math.MaxUint32
	case x == 0:
		b = 0
	}
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// floatKey64 is floatKey32 for f64.
func floatKey64(x float64) uint64 {
	b := math.Float64bits(x)
	switch {
	case x != x:
		return math.MaxUint64
	case x == 0:
		b = 0
	}
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// sortLine orders keys (and order alongside) stably: a least-significant-
// digit radix sort over the key's width bytes, skipping bytes every key
// shares, or a stable comparison sort for short lines.
func sortLine(keys []uint64, order []int32, width int) {
	n := len(keys)
	if n < 64 {
		type kv struct {
			k uint64
			i int32
		}
		t := make([]kv, n)
		for i := range t {
			t[i] = kv{keys[i], order[i]}
		}
		slices.SortStableFunc(t, func(a, b kv) int {
			switch {
			case a.k < b.k:
				return -1
			case a.k > b.k:
				return 1
			}
			return 0
		})
		for i := range t {
			keys[i], order[i] = t[i].k, t[i].i
		}
		return
	}
	var counts [8][256]int
	for _, k := range keys {
		for by := range width {
			counts[by][byte(k>>(8*by))]++
		}
	}
	k2, o2 := make([]uint64, n), make([]int32, n)
	src, dst, so, do := keys, k2, order, o2
	for by := range width {
		c := &counts[by]
		if c[byte(src[0]>>(8*by))] == n {
			continue // every key shares this byte
		}
		sum := 0
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		sh := 8 * by
		for i, k := range src {
			bk := byte(k >> sh)
			dst[c[bk]], do[c[bk]] = k, so[i]
			c[bk]++
		}
		src, dst, so, do = dst, src, do, so
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
		copy(order, so)
	}
}
