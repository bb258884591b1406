package gemm

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tessera-go/tessera/device/cpu/vec"
)

// workScale sets how many goroutines a product of W = m*n*k multiply-adds
// uses: sqrt(W / workScale), at most GOMAXPROCS. Each goroutine saves its
// share of the multiply-adds but costs a hand-over and a share of the
// waiting at the end, so the time W/p + c*p is least at p ~ sqrt(W/c):
// goroutines grow with the square root of the work, not in proportion to
// it. It is a variable so that the benchmarks can sweep it
// (BenchmarkWorkers). Measured (mean of back-to-back calls, GFLOP/s):
//   - on two cores of a Zen 5 EPYC, 64^3 ran at 150 (float32) and 86
//     (float64) on one goroutine against 89 and 73 on two; 96^3 at 172 and
//     91 on one against 205 and 127 on two, with B packed per goroutine
//     (usePrivateB);
//   - on 16 vCPUs of a Xeon (Emerald Rapids, 8 cores with two threads
//     each), before B was packed per goroutine: 128^3 float32 137 on one,
//     127-135 on two, 137-147 on four, 109-117 on eight and 74-78 on 16
//     goroutines; 192^3 211-226 on six against 158-169 on 16.
//
// 2^17 gives 64^3 one goroutine, 96^3 two, 128^3 four, 192^3 seven and
// 256^3 eleven.
var workScale = 1 << 17

// workers returns how many goroutines to use for an m x n x k product.
func workers(m, n, k int) int {
	return scaledWorkers(float64(m)*float64(n)*float64(k), float64(workScale))
}

// scaledWorkers returns sqrt(amount/scale) rounded down, at least 1 and at
// most GOMAXPROCS. Work for one goroutine does not ask GOMAXPROCS, which
// takes the scheduler's lock: in a batch of small products run on every
// core, the calls contended for it (a tenth of the CPU profile of a
// batched [16, 16] @ [16, 16]).
func scaledWorkers(amount, scale float64) int {
	lim := math.Sqrt(amount / scale)
	if lim < 2 {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), int(lim))
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func roundUp(a, b int) int { return ceilDiv(a, b) * b }

// unitsPerProc is how many units of work each goroutine should find per
// phase: more than one, so that a goroutine that starts late or is
// descheduled leaves only a small tail for the others.
const unitsPerProc = 4

// minRowBlock is the fewest rows of C a row block should have: each row
// block streams the whole packed B block through L1 once.
const minRowBlock = 24

// partition splits the m rows into row blocks and each row block's columns
// into column chunks, giving every one of procs goroutines several units of
// work per phase: rows first (a row block's part of A is packed once),
// columns only when there are too few rows (then each chunk packs the row
// block again).
//
// Row blocks are whole row panels (mr rows), claimed in turn, so a phase
// takes as long as the goroutine with the most panels:
// ceil(blocks/procs) * ceil(panels/blocks) panel times. When the usual
// count (unitsPerProc blocks per goroutine of at least minRowBlock rows)
// is more than a tenth slower than the best count up to twice that, the
// largest count within a tenth of the best is taken instead: at 128^3 on
// two goroutines ten panels of 14 rows then go five to each, where five
// blocks of two panels gave one goroutine six and the other four.
func partition(m, mr, mc, procs int) (rowBlocks, colChunks int) {
	blocks := ceilDiv(m, mc)
	if procs <= 1 {
		return blocks, 1
	}
	want := unitsPerProc * procs
	if blocks >= want {
		return blocks, 1
	}
	usual := max(blocks, min(want, m/max(minRowBlock, mr)))
	panels := ceilDiv(m, mr)
	if lo := max(blocks, procs); usual >= procs && panels >= lo {
		span := func(b int) int { return ceilDiv(b, procs) * ceilDiv(panels, b) }
		hi := max(lo, min(panels, 2*want))
		best := span(usual)
		for b := lo; b <= hi; b++ {
			best = min(best, span(b))
		}
		if 10*span(usual) <= 11*best {
			return usual, 1
		}
		for b := hi; b > lo; b-- {
			if 10*span(b) <= 11*best {
				return b, 1
			}
		}
		return lo, 1
	}
	if usual >= procs {
		return usual, 1
	}
	return usual, ceilDiv(want, usual)
}

// privateBBytes is the largest B block that each goroutine packs for
// itself (usePrivateB). Against B shared, on two cores of a Zen 5 EPYC
// (medians of 15 interleaved rounds, GFLOP/s, float32 and float64): 96^3
// 180 and 110 against 120 and 72; 128^3 246 and 143 against 177 and 94;
// 192^3 311 and 162 against 228 and 119; 256^3 369 and 176 against 291 and
// 144 (the float64 blocks of 192^3 and 256^3, 288 and 512 KiB, needed this
// limit; at 256 KiB they ran shared); 384^3 and 512^3 within the rounds'
// spread.
var privateBBytes = 512 << 10

// usePrivateB reports whether a product on procs goroutines with m rows and
// B blocks of bBytes should pack B privately per goroutine. Sharing one
// packed block makes every goroutine read panels another core wrote, line
// by line from that core's cache, and the next call write them again
// while the other cores hold them; for small products those transfers
// cost more than the extra cores save (CPU profiles of 20,000 128^3
// float32 products on a Zen 5 EPYC: on two goroutines the packing copy
// took 190 ms of samples beside the micro-kernel's 530, on one goroutine
// 40 beside 320, and packed per goroutine 40 beside 280). Packing
// privately repeats the packing procs times, which is cheap next to the
// product while the block is small and m is large beside procs.
func usePrivateB(procs, m, bBytes int) bool {
	return procs > 1 && bBytes <= privateBBytes && m >= 16*procs
}

// worker is one goroutine's private state: its packed block of A and a tile
// for edge results.
type worker[T float] struct {
	a    *buffer[T]
	b    *buffer[T] // its own packed B block, when the job's privateB
	tile []T
}

// phase is the shared progress of one (jc, pc) block of the loop nest.
type phase struct {
	packNext atomic.Int64 // next B panel to claim
	packDone atomic.Int64 // B panels packed
	unitNext atomic.Int64 // next unit to claim
	_        [40]byte     // keep phases on separate cache lines
}

// job is one packed product in flight: its operands, its blocking and the
// progress shared by the goroutines working on it. Jobs are pooled, so a
// call allocates nothing in the steady state.
//
// The loop nest is cut into phases, one per (jc, pc) block: B block packed
// panel by panel, then multiplied unit by unit, a unit being one row block
// of C times one chunk of the block's columns. Goroutines claim panels and
// units from atomic counters, so there is no barrier: a goroutine that
// starts late or is descheduled (the machine may be shared) takes less
// work, and nobody waits for it to arrive. The only waits are real data
// dependencies: a unit needs its phase's B block packed and, within a column
// block, the same unit of the previous k block done (it accumulates into the
// same part of C); packing B into one of the two buffers needs the phase two
// before, which used that buffer, done.
type job[T float] struct {
	ks            *kernels[T]
	m, n, k       int
	alpha, beta   T
	a, b, c       []T
	ldc           int
	ars, acs      int // element (i,p) of op(A) is a[i*ars+p*acs]
	brs, bcs      int // element (p,j) of op(B) is b[p*brs+j*bcs]
	mcb, kcb, ncb int // block sizes
	kBlocks       int // phases per column block
	colChunks     int // column chunks each row block is split into
	units         int // units per phase: row blocks * colChunks
	procs         int // goroutines

	// privateB: every goroutine packs each phase's B block into a buffer
	// of its own (worker.b) and takes units through unitShares, instead of
	// the goroutines packing one shared block panel by panel (see
	// usePrivateB).
	privateB   bool
	unitShares []shares // per phase, when privateB

	// src, when set, packs both operands instead of ks.pack reading a and
	// b: the stored elements are another type than T (bf16/f16 operands,
	// widened or laid out for the AMX tiles while packing).
	src source[T]

	// finish, when set, is called with each region of C (rows r0.., columns
	// c0..) as soon as its last k block is done, while it is still in
	// cache: the bf16/f16 products round their float32 C into the caller's
	// half-precision result there, instead of in a pass of their own.
	finish func(r0, rows, c0, cols int)

	phases   []phase
	unitDone []atomic.Bool // [phase*units + unit]
	phDone   []atomic.Int64
	mu       sync.Mutex
	cond     sync.Cond

	bBuf [2]*buffer[T] // B blocks, alternating between phases
	ws   []worker[T]

	workFn func(w int) // j.work, bound once so that a call allocates nothing
}

var (
	jobs32 sync.Pool
	jobs64 sync.Pool
)

func jobPool[T float]() *sync.Pool {
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		return &jobs32
	}
	return &jobs64
}

// packed computes C = alpha*op(A)*op(B) + beta*C with cache blocking,
// packing and the micro-kernel (BLIS loop order: jc, pc, ic, jr, ir).
func packed[T float](ks *kernels[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	packedFrom(ks, nil, nil, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// source packs the operands of a product whose stored elements are not the
// micro-kernel's type T. packA writes rows i0..i0+rows-1 and steps
// p0..p0+kc-1 of op(A) into dst (kc*width values) in the order the
// micro-kernel reads, zero past rows; packB writes steps p0..p0+kc-1 and
// columns j0..j0+cols-1 of op(B) the same way.
type source[T float] interface {
	packA(dst []T, i0, p0, rows, width, kc int)
	packB(dst []T, j0, p0, cols, width, kc int)
}

// packedFrom is packed with the operands packed by src when it is not nil
// (then a and b are not read), and each finished region of C handed to
// finish when it is not nil (see job.finish).
func packedFrom[T float](ks *kernels[T], src source[T], finish func(r0, rows, c0, cols int), transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	j, _ := jobPool[T]().Get().(*job[T])
	if j == nil {
		j = new(job[T])
		j.cond.L = &j.mu
		j.workFn = j.work
	}
	j.setup(ks, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	j.src = src
	j.finish = finish
	if j.procs == 1 {
		j.work(0)
	} else {
		runTeam(j.procs, j.workFn)
	}
	j.release()
	jobPool[T]().Put(j)
}

// setup chooses the blocking and the split over goroutines, and gets the
// buffers.
func (j *job[T]) setup(ks *kernels[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	mr, nr := ks.mr, ks.nr
	procs := workers(m, n, k)
	j.ks, j.m, j.n, j.k = ks, m, n, k
	j.alpha, j.beta = alpha, beta
	j.a, j.b, j.c, j.ldc = a, b, c, ldc
	j.ars, j.acs = lda, 1
	if transA {
		j.ars, j.acs = 1, lda
	}
	j.brs, j.bcs = ldb, 1
	if transB {
		j.brs, j.bcs = 1, ldb
	}

	// Even blocks, so no block is a sliver (a k block of 1 would cost a full
	// pass over C for almost no work).
	j.kBlocks = ceilDiv(k, ks.kc)
	j.kcb = ceilDiv(k, j.kBlocks)
	if ks.kAlign > 1 {
		// The micro-kernel takes steps in groups of kAlign (k is a
		// multiple of it): round the blocks up to whole groups.
		j.kcb = roundUp(j.kcb, ks.kAlign)
		j.kBlocks = ceilDiv(k, j.kcb)
	}
	nBlocks := ceilDiv(n, ks.nc)
	j.ncb = roundUp(ceilDiv(n, nBlocks), nr)
	nBlocks = ceilDiv(n, j.ncb)
	rowBlocks, colChunks := partition(m, mr, ks.mc, procs)
	j.mcb = roundUp(ceilDiv(m, rowBlocks), mr)
	// A chunk has at least one B panel.
	j.colChunks = min(colChunks, ceilDiv(min(j.ncb, n), nr))
	j.units = ceilDiv(m, j.mcb) * j.colChunks
	j.procs = min(procs, j.units)

	phases := nBlocks * j.kBlocks
	if cap(j.phases) < phases {
		j.phases = make([]phase, phases)
	}
	j.phases = j.phases[:phases]
	for i := range j.phases {
		p := &j.phases[i]
		p.packNext.Store(0)
		p.packDone.Store(0)
		p.unitNext.Store(0)
	}
	if cap(j.unitDone) < phases*j.units {
		j.unitDone = make([]atomic.Bool, phases*j.units)
	}
	j.unitDone = j.unitDone[:phases*j.units]
	for i := range j.unitDone {
		j.unitDone[i].Store(false)
	}
	if cap(j.phDone) < phases {
		j.phDone = make([]atomic.Int64, phases)
	}
	j.phDone = j.phDone[:phases]
	for i := range j.phDone {
		j.phDone[i].Store(0)
	}

	bSize := j.kcb * roundUp(min(j.ncb, n), nr)
	j.privateB = usePrivateB(j.procs, m, bSize*int(unsafe.Sizeof(alpha)))
	if j.privateB {
		if cap(j.unitShares) < phases {
			j.unitShares = make([]shares, phases)
		}
		j.unitShares = j.unitShares[:phases]
		for i := range j.unitShares {
			j.unitShares[i].reset(j.units, j.procs)
		}
	} else {
		j.bBuf[0] = getBuf[T](bSize)
		if phases > 1 {
			j.bBuf[1] = getBuf[T](bSize)
		}
	}
	if cap(j.ws) < j.procs {
		j.ws = make([]worker[T], j.procs)
	}
	j.ws = j.ws[:j.procs]
	for w := range j.ws {
		wk := &j.ws[w]
		wk.a = getBuf[T](j.kcb * j.mcb)
		if j.privateB {
			wk.b = getBuf[T](bSize)
		}
		if cap(wk.tile) < mr*nr {
			wk.tile = make([]T, mr*nr)
		}
		wk.tile = wk.tile[:mr*nr] // kernels of different tiles share pooled jobs
	}
}

// release returns the buffers and drops the references to the operands.
func (j *job[T]) release() {
	for i, b := range j.bBuf {
		putBuf(b)
		j.bBuf[i] = nil
	}
	for w := range j.ws {
		putBuf(j.ws[w].a)
		putBuf(j.ws[w].b)
		j.ws[w].a, j.ws[w].b = nil, nil
	}
	j.a, j.b, j.c = nil, nil, nil
	j.src = nil
	j.finish = nil
}

// Waiting: spin first (the awaited work is normally microseconds from
// done, and parking costs tens of microseconds to undo on a virtual
// machine), then yield, then sleep until signalled.
const (
	waitSpins  = 4000
	waitYields = 200
)

// await returns once ready() is true.
func (j *job[T]) await(ready func() bool) {
	for i := 0; i < waitSpins+waitYields; i++ {
		if ready() {
			return
		}
		if i >= waitSpins {
			runtime.Gosched()
		}
	}
	j.mu.Lock()
	for !ready() {
		j.cond.Wait()
	}
	j.mu.Unlock()
}

// signal wakes sleeping waiters after progress they may be waiting for.
func (j *job[T]) signal() {
	j.mu.Lock()
	j.cond.Broadcast()
	j.mu.Unlock()
}

// work is one goroutine's part of the whole loop nest: it walks all phases
// and takes what work is left in each.
func (j *job[T]) work(w int) {
	nr := j.ks.nr
	wk := &j.ws[w]
	ph := 0
	for jc := 0; jc < j.n; jc += j.ncb {
		nc := min(j.ncb, j.n-jc)
		panels := ceilDiv(nc, nr)
		chunk := ceilDiv(panels, j.colChunks)
		for pc := 0; pc < j.k; pc, ph = pc+j.kcb, ph+1 {
			kc := min(j.kcb, j.k-pc)
			st := &j.phases[ph]
			if j.privateB {
				j.privatePhase(w, ph, jc, pc, nc, kc, panels, chunk)
				continue
			}
			bp := j.bBuf[ph%2].data[:panels*nr*kc]

			// Pack B, panel by panel, once the buffer is free.
			if st.packNext.Load() < int64(panels) {
				if ph >= 2 {
					prev := &j.phDone[ph-2]
					j.await(func() bool { return prev.Load() == int64(j.units) })
				}
				for {
					jp := int(st.packNext.Add(1) - 1)
					if jp >= panels {
						break
					}
					j.packBPanel(bp, jc+jp*nr, pc, kc, jp)
					if st.packDone.Add(1) == int64(panels) && j.procs > 1 {
						j.signal()
					}
				}
			}

			// Multiply, unit by unit.
			packedBlock := -1
			for {
				u := int(st.unitNext.Add(1) - 1)
				if u >= j.units {
					break
				}
				if st.packDone.Load() < int64(panels) {
					j.await(func() bool { return st.packDone.Load() == int64(panels) })
				}
				j.runUnit(wk, ph, u, &packedBlock, jc, nc, panels, chunk, pc, kc, bp)
			}
		}
	}
}

// runUnit runs unit u of phase ph on the packed B block bp, once the same
// unit of the previous k block (which writes the same part of C) is done,
// and marks it done.
func (j *job[T]) runUnit(wk *worker[T], ph, u int, packedBlock *int, jc, nc, panels, chunk, pc, kc int, bp []T) {
	if pc > 0 {
		prev := &j.unitDone[(ph-1)*j.units+u]
		if !prev.Load() {
			j.await(prev.Load)
		}
	}
	betaEff := j.beta
	if pc > 0 {
		betaEff = 1
	}
	j.unit(wk, u, packedBlock, jc, panels, chunk, pc, kc, bp, betaEff)
	if j.finish != nil && pc+kc == j.k {
		// The unit's part of C is final: its rows, and its chunk's
		// columns within this column block.
		i0 := u / j.colChunks * j.mcb
		c0 := u % j.colChunks * chunk * j.ks.nr
		c1 := min(c0+chunk*j.ks.nr, nc)
		if c0 < c1 {
			j.finish(i0, min(j.mcb, j.m-i0), jc+c0, c1-c0)
		}
	}
	j.unitDone[ph*j.units+u].Store(true)
	j.phDone[ph].Add(1)
	if j.procs > 1 {
		j.signal()
	}
}

// privatePhase is worker w's part of phase ph when the job packs B
// privately: the whole B block into the worker's own buffer, then the
// units it takes through the phase's shares (its own share first, so a
// worker writes the same rows of C from one call to the next).
func (j *job[T]) privatePhase(w, ph, jc, pc, nc, kc, panels, chunk int) {
	nr := j.ks.nr
	wk := &j.ws[w]
	bp := wk.b.data[:panels*nr*kc]
	packed := false
	packedBlock := -1
	for {
		u, ok := j.unitShares[ph].take(w)
		if !ok {
			return
		}
		if !packed {
			for jp := range panels {
				j.packBPanel(bp, jc+jp*nr, pc, kc, jp)
			}
			packed = true
		}
		j.runUnit(wk, ph, u, &packedBlock, jc, nc, panels, chunk, pc, kc, bp)
	}
}

// packBPanel packs panel jp of a B block, columns j0.. and steps pc..pc+kc
// of op(B), into its place in bp: with src when the operands are another
// type, else with the kernels' packer.
func (j *job[T]) packBPanel(bp []T, j0, pc, kc, jp int) {
	nr := j.ks.nr
	dst := bp[jp*nr*kc : (jp+1)*nr*kc]
	if j.src != nil {
		j.src.packB(dst, j0, pc, min(nr, j.n-j0), nr, kc)
		return
	}
	j.ks.pack(dst, j.b, pc*j.brs+j0*j.bcs, j.bcs, j.brs, min(nr, j.n-j0), nr, kc)
}

// unit multiplies row block u/colChunks of op(A) by column chunk
// u%colChunks of the packed B block bp into C. The row block is packed into
// the worker's buffer unless packedBlock says it is there already.
func (j *job[T]) unit(wk *worker[T], u int, packedBlock *int, jc, panels, chunk, pc, kc int, bp []T, betaEff T) {
	ks := j.ks
	mr, nr := ks.mr, ks.nr
	m, n, ldc, c := j.m, j.n, j.ldc, j.c
	ib, s := u/j.colChunks, u%j.colChunks
	i0 := ib * j.mcb
	rowPanels := ceilDiv(min(j.mcb, m-i0), mr)
	ap := wk.a.data[:rowPanels*mr*kc]
	// The last row panel may be short: it is packed to the width of the
	// narrowest kernel that holds it.
	lastRows := min(j.mcb, m-i0) - (rowPanels-1)*mr
	lastMR, lastMicro := ks.edgeFor(lastRows)
	if ib != *packedBlock {
		for ip := range rowPanels {
			r0 := i0 + ip*mr
			w := mr
			if ip == rowPanels-1 {
				w = lastMR
			}
			if j.src != nil {
				j.src.packA(ap[ip*mr*kc:ip*mr*kc+w*kc], r0, pc, min(mr, m-r0), w, kc)
			} else {
				ks.pack(ap[ip*mr*kc:ip*mr*kc+w*kc], j.a, r0*j.ars+pc*j.acs, j.ars, j.acs, min(mr, m-r0), w, kc)
			}
		}
		*packedBlock = ib
	}
	for jp := s * chunk; jp < min((s+1)*chunk, panels); jp++ {
		j0 := jc + jp*nr
		nv := min(nr, n-j0)
		bpan := &bp[jp*nr*kc]
		for ip := range rowPanels {
			r0 := i0 + ip*mr
			mv := min(mr, m-r0)
			apan := &ap[ip*mr*kc]
			tileMR, micro := mr, ks.micro
			if ip == rowPanels-1 {
				tileMR, micro = lastMR, lastMicro
			}
			if mv == tileMR && nv == nr {
				micro(kc, apan, bpan, &c[r0*ldc+j0], ldc, j.alpha, betaEff)
				continue
			}
			micro(kc, apan, bpan, &wk.tile[0], nr, j.alpha, 0)
			mergeTile(c, r0*ldc+j0, ldc, wk.tile, nr, mv, nv, betaEff)
		}
	}
}

// mergeTile computes C = tile + beta*C on the mv x nv corner of an edge tile,
// writing without reading C when beta is 0.
func mergeTile[T float](c []T, off, ldc int, tile []T, nr, mv, nv int, beta T) {
	for r := range mv {
		crow := c[off+r*ldc : off+r*ldc+nv]
		trow := tile[r*nr : r*nr+nv]
		if beta == 0 {
			copy(crow, trow)
			continue
		}
		for j, t := range trow {
			crow[j] = beta*crow[j] + t
		}
	}
}

// packPanel packs a width x kc panel into dst (kc*width values): element
// (r,p), r < rows, is src[off+r*rs+p*cs] and lands at dst[p*width+r]. Rows
// rows..width-1 are zero, so edge panels can be multiplied as full ones.
// One of rs and cs is 1 (operands are row-major, possibly transposed).
func packPanel[T float](dst, src []T, off, rs, cs, rows, width, kc int) {
	dst = dst[:kc*width]
	if rows < width {
		clear(dst)
	}
	if rs == 1 {
		// Each step is contiguous.
		for p := range kc {
			copy(dst[p*width:p*width+rows], src[off+p*cs:off+p*cs+rows])
		}
		return
	}
	// Each row is contiguous along p (cs == 1): a transposing copy, in
	// vec's tiles where the rows do not overlap (a row-by-row scatter
	// wrote each value a panel's width from the last, and was a quarter
	// of a convolution's filter gradient).
	if rs >= kc && vec.Transpose(dst, width, src[off:], rs, rows, kc) == nil {
		return
	}
	for r := range rows {
		row := src[off+r*rs : off+r*rs+kc]
		d := dst[r:]
		for p, v := range row {
			d[p*width] = v
		}
	}
}
