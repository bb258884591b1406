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
// documented one (floatKey for floats; complemented for descending order).
// Keys of at most 32 bits travel packed with their position in one word,
// key<<32 | position, and are ordered by sortWords (sortLong for lines
// longer than the cache): a radix sort that is stable, so equal keys keep
// their positions ascending and the order of the keys is also the order of
// the whole words. Sorted words go to a sortSink, which decodes them into
// values and positions (keyCodec.emit). Wider keys (F64, I64) take sortLine, a byte-wise
// radix sort of keys and positions side by side.

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
	n, ls, sa, va, ia, err := sortLines("Sort", vals, idx, src, axis)
	if err != nil || n == 0 || len(ls) == 0 {
		return err
	}
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
		out := func(start int, run []uint64) {
			kc.emit(run, b[1]+start*va, va, b[2]+start*ia, ia, b[0], sa, ib)
		}
		w, tmp := s.w[:min(n, cap(s.w))], s.tmp[:min(n, cap(s.tmp))]
		if n >= poolMinWords { // long lines: the device's pool, which outlives a collection
			w, tmp = d.pool.get(n), d.pool.get(n)
			defer d.pool.put(w)
			defer d.pool.put(tmp)
		}
		if n > cacheWords {
			sortLong(kc, w, tmp, b[0], sa, inner, &s.hist, out)
			return
		}
		or, and := packChunks(kc, w, b[0], sa, inner)
		sortWords(w, tmp, 0, or&^and, inner, &s.hist, out)
	})
	return nil
}

// sortLines is the geometry Sort and TopK share: the length n of the lines
// along axis (at most maxSortLine: positions are packed in 31 bits), the
// start offsets of each line in src, vals and idx, and their strides along
// axis.
func sortLines(op string, vals, idx, src device.Operand, axis int) (n int, ls [][]int, sa, va, ia int, err error) {
	n = src.Layout.Shape[axis]
	if n > maxSortLine {
		return 0, nil, 0, 0, 0, errs.New("cpu", op, errs.ErrShape, "a line of %d elements along axis %d exceeds the %d the CPU sort takes", n, axis, maxSortLine)
	}
	ls = lines(src.Layout.Shape, axis, src.Layout, vals.Layout, idx.Layout)
	return n, ls, src.Layout.Strides[axis], vals.Layout.Strides[axis], idx.Layout.Strides[axis], nil
}

// packChunks packs the line starting at s0 (step ss) into w with kc.pack,
// on up to p cores, and returns the OR and the AND of the keys.
func packChunks(kc keyCodec, w []uint64, s0, ss, p int) (or, and uint32) {
	var o, a atomic.Uint32
	a.Store(math.MaxUint32)
	chunks(len(w), p, func(lo, hi int) {
		x, y := kc.pack(w[lo:hi], s0+lo*ss, ss, lo)
		o.Or(x)
		a.And(y)
	})
	return o.Load(), a.Load()
}

// chunks calls fn concurrently on consecutive, nearly equal parts of
// [0, n): p parts, fewer when a part would hold under 4096 elements, and
// fn(0, n) alone on the calling goroutine when one part remains.
func chunks(n, p int, fn func(lo, hi int)) {
	p = max(min(p, n/4096), 1)
	par.Run(p, func(c int) { fn(c*n/p, (c+1)*n/p) })
}

// floatKey maps the bits b of an IEEE float (F32 in a uint32, F64 in a
// uint64) to an unsigned key in the documented order: -Inf first, -0
// equal to +0, every NaN equal and last. Without branches on the sign: the
// sign bit of a positive value is set, every bit of a negative one
// flipped. special reports ±0 and NaN, the only values whose key does not
// give back their bits (floatBits).
func floatKey[U uint32 | uint64](b U) (key U, special bool) {
	sign := ^(^U(0) >> 1)
	mant := U(52)
	if ^U(0) == math.MaxUint32 {
		mant = 23
	}
	inf := (sign - 1) &^ (1<<mant - 1) // the exponent's bits
	key = b ^ (-(b / sign) | sign)
	if a := b &^ sign; a-1 >= inf { // ±0 (a-1 wraps) or NaN
		key, special = sign|-((a|-a)/sign), true // +0's key, or all ones
	}
	return key, special
}

// floatBits is the inverse of floatKey for keys of values that are not
// special.
func floatBits[U uint32 | uint64](key U) U {
	sign := ^(^U(0) >> 1)
	return key ^ (key/sign - 1 | sign)
}

// sortSink receives a line's sorted words in runs, each with its offset in
// the line; with several cores at once, always on disjoint runs.
type sortSink func(start int, run []uint64)

// digitCounts holds the running offsets of one radix pass's buckets.
type digitCounts = [1 << digitBits]uint32

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
				return packF32(w, s, s0, ss, pos0, flip)
			},
			emit: func(run []uint64, v0, vs, i0, is, s0, ss int, ib []int64) {
				emitF32(run, v, v0, vs, ib, i0, is, s, s0, ss, flip)
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
				k, _ := floatKey(math.Float32bits(widen(s[s0+i*ss])))
				k ^= flip
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

// packF32 is the F32 codec's pack: keys by floatKey, ±0 and NaN flagged.
// Out of line, with a loop of its own for a contiguous line, so that the
// loops keep their variables in registers.
//
//go:noinline
func packF32(w []uint64, s []uint32, s0, ss, pos0 int, flip uint32) (or, and uint32) {
	and = math.MaxUint32
	word := func(b uint32, pos int) uint64 {
		k, sp := floatKey(b)
		p := uint32(pos)
		if sp {
			p |= 1 << 31
		}
		k ^= flip
		or, and = or|k, and&k
		return uint64(k)<<32 | uint64(p)
	}
	if ss == 1 {
		for i, b := range s[s0 : s0+len(w)] {
			w[i] = word(b, pos0+i)
		}
		return or, and
	}
	for i := range w {
		w[i] = word(s[s0+i*ss], pos0+i)
	}
	return or, and
}

// emitF32 is the F32 codec's emit: values by floatBits, or for flagged ±0
// and NaN the source's bits (so -0 and NaN payloads come back bit-exact).
// Out of line like packF32.
//
//go:noinline
func emitF32(run []uint64, v []uint32, v0, vs int, ib []int64, i0, is int, s []uint32, s0, ss int, flip uint32) {
	value := func(x uint64) (uint32, int64) {
		pos := uint32(x)
		if pos>>31 != 0 { // ±0, NaN
			pos &^= 1 << 31
			return s[s0+int(pos)*ss], int64(pos)
		}
		return floatBits(uint32(x>>32) ^ flip), int64(pos)
	}
	if vs == 1 && is == 1 {
		vv, ii := v[v0:v0+len(run)], ib[i0:i0+len(run)]
		for j, x := range run {
			vv[j], ii[j] = value(x)
		}
		return
	}
	for j, x := range run {
		v[v0+j*vs], ib[i0+j*is] = value(x)
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
	// splitBits: the first digit of a line longer than cacheWords, the
	// top bits of its keys (sortLong).
	splitBits = digitBits
	// packBlock: sortLong packs this many words (8 KiB, in the L1 cache) at
	// a time and counts them before they leave the cache.
	packBlock = 1024
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

// sortLong sorts a line longer than cacheWords starting at s0 (step ss)
// into out, with w and tmp (as long as the line) as scratch. procs cores
// pack their contiguous parts of the line into w, a block of packBlock
// words at a time, counting the top splitBits of every key while the block
// is in the L1 cache (no separate counting pass); then scatter their parts
// by that digit into tmp with their own offsets (so the split is stable),
// and the buckets are sorted by sortBuckets. Keys that all share their top
// digit (small integers, a narrow range of floats) are left to sortWords,
// whose split takes the highest bits that vary.
func sortLong(kc keyCodec, w, tmp []uint64, s0, ss, procs int, hist *sortHist, out sortSink) {
	const nb, sh = 1 << splitBits, 64 - splitBits
	n := len(w)
	p := max(min(procs, n/(1<<16)), 1)
	cnt := make([]uint32, p*nb)
	ors, ands := make([]uint32, p), make([]uint32, p)
	par.Run(p, func(c int) {
		h := (*digitCounts)(cnt[c*nb:])
		or, and := uint32(0), uint32(math.MaxUint32)
		for i, hi := c*n/p, (c+1)*n/p; i < hi; i += packBlock {
			m := w[i:min(i+packBlock, hi)]
			o, a := kc.pack(m, s0+i*ss, ss, i)
			or, and = or|o, and&a
			countDigit(h, m, sh, nb-1)
		}
		ors[c], ands[c] = or, and
	})
	or, and := uint32(0), uint32(math.MaxUint32)
	for c := range p {
		or, and = or|ors[c], and&ands[c]
	}
	varying := or &^ and
	if varying>>(32-splitBits) == 0 { // one bucket
		sortWords(w, tmp, 0, varying, procs, hist, out)
		return
	}
	starts := prefixStarts(cnt, p, n)
	par.Run(p, func(c int) {
		scatterPass(tmp, w[c*n/p:(c+1)*n/p], (*digitCounts)(cnt[c*nb:]), sh, nb-1)
	})
	sortBuckets(tmp, w, starts, 0, varying&(1<<(32-splitBits)-1), procs, hist, out)
}

// prefixStarts turns the counts of p parts' digits (cnt[c*nb + digit], nb
// = len(cnt)/p) into each part's first offset for each digit, in digit
// order and within a digit in part order (a stable split), and returns the
// buckets' starts, with n appended.
func prefixStarts(cnt []uint32, p, n int) []int {
	nb := len(cnt) / p
	starts := make([]int, nb+1)
	sum := uint32(0)
	for dg := range nb {
		starts[dg] = int(sum)
		for c := range p {
			cnt[c*nb+dg], sum = sum, sum+cnt[c*nb+dg]
		}
	}
	starts[nb] = n
	return starts
}

// sortWords sorts the words of w (key<<32 | position, positions ascending
// among equal keys) by key, stably, with tmp (as long as w) as scratch, and
// hands them to out in consecutive runs, each with its offset start+i in
// the line (w's own offset is start); runs may come in any order. varying
// has a bit set for every key bit that differs between some words. A run
// longer than cacheWords is split by a most-significant-digit pass on its
// highest 11 varying bits (counted and scattered by procs cores, each over
// its own part, so the pass stays stable) and its buckets are sorted on
// procs cores; shorter runs take least-significant-digit passes over the
// remaining varying bits (lsdWords) or, below insertionMax, insertion
// sort. With procs > 1 out may be called concurrently, on disjoint runs.
func sortWords(w, tmp []uint64, start int, varying uint32, procs int, hist *sortHist, out sortSink) {
	n := len(w)
	switch {
	case varying == 0 || n <= 1:
		out(start, w)
		return
	case n <= insertionMax:
		insertionWords(w)
		out(start, w)
		return
	case n <= cacheWords:
		lsdWords(w, tmp, start, varying, hist, out)
		return
	}
	hi := bits.Len32(varying)
	lo := max(hi-digitBits, 0)
	sh, nb := uint(32+lo), 1<<(hi-lo)
	mask := uint64(nb - 1)
	p := max(min(procs, n/(1<<16)), 1)
	cnt := make([]uint32, p*1<<digitBits)
	par.Run(p, func(c int) {
		countDigit((*digitCounts)(cnt[c<<digitBits:]), w[c*n/p:(c+1)*n/p], sh, mask)
	})
	starts := prefixStarts(cnt, p, n)
	par.Run(p, func(c int) {
		scatterPass(tmp, w[c*n/p:(c+1)*n/p], (*digitCounts)(cnt[c<<digitBits:]), sh, mask)
	})
	sortBuckets(tmp, w, starts, start, varying&(1<<lo-1), procs, hist, out)
}

// sortBuckets sorts the buckets src[starts[i]:starts[i+1]] of a split, each
// by the key bits in rest with the same part of dst as scratch, on procs
// cores, which claim buckets from a counter, largest first (so that no
// core is left finishing a large bucket alone); start is src's offset in
// the line.
func sortBuckets(src, dst []uint64, starts []int, start int, rest uint32, procs int, hist *sortHist, out sortSink) {
	var order []int32
	for dg := range len(starts) - 1 {
		if starts[dg] < starts[dg+1] {
			order = append(order, int32(dg))
		}
	}
	size := func(dg int32) int { return starts[dg+1] - starts[dg] }
	if procs > 1 {
		slices.SortFunc(order, func(a, b int32) int { return size(b) - size(a) })
	}
	var next atomic.Int64
	par.Run(min(procs, len(order)), func(c int) {
		hc := hist
		if c > 0 {
			hc = new(sortHist)
		}
		for {
			i := int(next.Add(1)) - 1
			if i >= len(order) {
				return
			}
			a, b := starts[order[i]], starts[order[i]+1]
			sortWords(src[a:b], dst[a:b], start+a, rest, 1, hc, out)
		}
	})
}

// lsdWords sorts w (at offset start in the line) by the varying bits of
// its keys, stably, in least-significant-digit passes of at most 11 bits
// (8 for short runs, where counting 2048 buckets would cost more than the
// passes it saves), all counted in one read, and hands the result to out.
// A pass whose digit every word shares is skipped.
func lsdWords(w, tmp []uint64, start int, varying uint32, hist *sortHist, out sortSink) {
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
	countPasses(hist, w, sh, uint(d), passes, mask)
	var active uint // passes whose digit some words do not share
	for p := range passes {
		c := h[p*nb : (p+1)*nb]
		if int(c[uint32(w[0]>>(sh+uint(p*d)))&mask]) == n { // every word shares this digit
			continue
		}
		active |= 1 << p
		var sum uint32
		for i, v := range c {
			c[i], sum = sum, sum+v
		}
	}
	src, dst := w, tmp
	for p := range passes {
		if active&(1<<p) == 0 {
			continue
		}
		scatterPass(dst, src, (*digitCounts)(hist[p*nb:]), sh+uint(p*d), uint64(mask))
		src, dst = dst, src
	}
	out(start, src)
}

// countPasses counts the digits of every word of w for passes least-
// significant-digit passes of d bits from bit sh (mask = 1<<d - 1): pass
// p's counts in hist[p << d:], which must be cleared. Apart from lsdWords,
// so that its loops keep their variables in registers.
func countPasses(hist *sortHist, w []uint64, sh, d uint, passes int, mask uint32) {
	nb, h := 1<<d, hist[:]
	sh &= 63
	switch passes {
	case 1:
		h0 := (*digitCounts)(h)
		for _, x := range w {
			h0[uint32(x>>sh)&mask&(1<<digitBits-1)]++
		}
	case 2:
		h0, h1 := (*digitCounts)(h), (*digitCounts)(h[nb:])
		for _, x := range w {
			k := uint32(x >> sh)
			h0[k&mask&(1<<digitBits-1)]++
			h1[(k>>d)&mask&(1<<digitBits-1)]++
		}
	case 3:
		h0, h1, h2 := (*digitCounts)(h), (*digitCounts)(h[nb:]), (*digitCounts)(h[2*nb:])
		for _, x := range w {
			k := uint32(x >> sh)
			h0[k&mask&(1<<digitBits-1)]++
			h1[(k>>d)&mask&(1<<digitBits-1)]++
			h2[(k>>(2*d))&mask&(1<<digitBits-1)]++
		}
	default: // 4 passes of at most 8 bits
		h0, h1, h2, h3 := (*[256]uint32)(h), (*[256]uint32)(h[nb:]), (*[256]uint32)(h[2*nb:]), (*[256]uint32)(h[3*nb:])
		m := uint8(mask)
		for _, x := range w {
			k := uint32(x >> sh)
			h0[uint8(k)&m]++
			h1[uint8(k>>d)&m]++
			h2[uint8(k>>(2*d))&m]++
			h3[uint8(k>>(3*d))&m]++
		}
	}
}

// countDigit adds the count of every word's digit (x >> sh) & mask (at
// most 11 bits) to h. Out of line like scatterPass.
//
//go:noinline
func countDigit(h *digitCounts, w []uint64, sh uint, mask uint64) {
	sh &= 63
	mask &= 1<<digitBits - 1
	for _, x := range w {
		h[(x>>sh)&mask]++
	}
}

// scatterPass moves every word x of src to dst[c[digit]], digit = (x >>
// sh) & mask (at most 11 bits), advancing that digit's offset: one radix
// pass. Apart from its callers, so that the loop keeps its variables in
// registers.
//
//go:noinline
func scatterPass(dst, src []uint64, c *digitCounts, sh uint, mask uint64) {
	sh &= 63
	mask &= 1<<digitBits - 1
	for _, x := range src {
		dg := (x >> sh) & mask
		i := c[dg]
		dst[i] = x
		c[dg] = i + 1
	}
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
	key := func(x uint64) uint64 { k, _ := floatKey(x); return k }
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
