package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// minWorkPerThread is the number of multiply-adds (m*n*k) below which one
// more goroutine costs more than it saves.
const minWorkPerThread = 48 * 48 * 48

// workers returns how many goroutines to use for an m x n x k product.
func workers(m, n, k int) int {
	p := runtime.GOMAXPROCS(0)
	if lim := float64(m) * float64(n) * float64(k) / minWorkPerThread; lim < float64(p) {
		p = int(lim)
	}
	return max(p, 1)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func roundUp(a, b int) int { return ceilDiv(a, b) * b }

// parallel runs fn(0..p-1) concurrently, fn(0) on the calling goroutine, and
// returns when all have finished.
func parallel(p int, fn func(w int)) {
	if p <= 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	wg.Add(p - 1)
	for w := 1; w < p; w++ {
		go func() {
			defer wg.Done()
			fn(w)
		}()
	}
	fn(0)
	wg.Wait()
}

// partition splits the m rows into row blocks and each row block's columns
// into column chunks, so that every one of procs goroutines has work:
// rows first (each goroutine then packs its own part of A once), columns
// only when there are fewer row blocks than goroutines.
func partition(m, mr, mc, procs int) (rowBlocks, colChunks int) {
	blocks := ceilDiv(m, mc)
	if procs <= 1 {
		return blocks, 1
	}
	if blocks >= procs || m >= procs*mr*8 {
		// A multiple of procs keeps the goroutines evenly loaded.
		return roundUp(max(blocks, procs), procs), 1
	}
	return blocks, ceilDiv(procs, blocks)
}

// worker is one goroutine's private state: its packed block of A and a tile
// for edge results.
type worker[T float] struct {
	a    *buffer[T]
	tile []T
}

// job is one packed product in flight: its operands, its blocking, and the
// state of the current (jc, pc) block, shared by the goroutines working on
// it. Jobs are pooled so a call allocates nothing in the steady state.
type job[T float] struct {
	ks            *kernels[T]
	m, n, k       int
	alpha, beta   T
	a, b, c       []T
	ldc           int
	ars, acs      int // element (i,p) of op(A) is a[i*ars+p*acs]
	brs, bcs      int // element (p,j) of op(B) is b[p*brs+j*bcs]
	mcb, kcb, ncb int // block sizes
	rowBlocks     int // row blocks of C per (jc, pc) block
	colChunks     int // column chunks each row block is split into
	units         int // rowBlocks * colChunks
	procs         int // goroutines

	// The current (jc, pc) block.
	jc, nc, panels, chunk int
	pc, kc                int
	betaEff               T
	bp                    []T // packed B block
	next                  atomic.Int64

	bBuf *buffer[T]
	ws   []worker[T]
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
	j, _ := jobPool[T]().Get().(*job[T])
	if j == nil {
		j = new(job[T])
	}
	j.setup(ks, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	j.run()
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
	j.kcb = ceilDiv(k, ceilDiv(k, ks.kc))
	j.ncb = roundUp(ceilDiv(n, ceilDiv(n, ks.nc)), nr)
	rowBlocks, colChunks := partition(m, mr, ks.mc, procs)
	j.mcb = roundUp(ceilDiv(m, rowBlocks), mr)
	j.rowBlocks = ceilDiv(m, j.mcb)
	j.colChunks = colChunks
	j.units = j.rowBlocks * colChunks
	j.procs = min(procs, j.units)

	j.bBuf = getBuf[T](j.kcb * roundUp(min(j.ncb, n), nr))
	if cap(j.ws) < j.procs {
		j.ws = make([]worker[T], j.procs)
	}
	j.ws = j.ws[:j.procs]
	for w := range j.ws {
		wk := &j.ws[w]
		wk.a = getBuf[T](j.kcb * j.mcb)
		if len(wk.tile) != mr*nr {
			wk.tile = make([]T, mr*nr)
		}
	}
}

// release returns the buffers and drops the references to the operands.
func (j *job[T]) release() {
	putBuf(j.bBuf)
	j.bBuf = nil
	for w := range j.ws {
		putBuf(j.ws[w].a)
		j.ws[w].a = nil
	}
	j.a, j.b, j.c, j.bp = nil, nil, nil, nil
}

// run walks the (jc, pc) blocks; within each, the goroutines first pack the
// B block together, then share out the multiply.
func (j *job[T]) run() {
	nr := j.ks.nr
	for jc := 0; jc < j.n; jc += j.ncb {
		j.jc = jc
		j.nc = min(j.ncb, j.n-jc)
		j.panels = ceilDiv(j.nc, nr)
		j.chunk = ceilDiv(j.panels, j.colChunks)
		for pc := 0; pc < j.k; pc += j.kcb {
			j.pc = pc
			j.kc = min(j.kcb, j.k-pc)
			j.betaEff = j.beta
			if pc > 0 {
				j.betaEff = 1
			}
			j.bp = j.bBuf.data[:j.panels*nr*j.kc]
			j.next.Store(0)
			if j.procs == 1 {
				j.packB(0, 1)
				j.multiply(0)
				continue
			}
			packers := min(j.procs, j.panels)
			parallel(packers, func(w int) { j.packB(w, packers) })
			parallel(j.procs, j.multiply)
		}
	}
}

// packB packs share w of parts of the current kc x nc block of B.
func (j *job[T]) packB(w, parts int) {
	nr, kc := j.ks.nr, j.kc
	for jp := w * j.panels / parts; jp < (w+1)*j.panels/parts; jp++ {
		j0 := j.jc + jp*nr
		j.ks.pack(j.bp[jp*nr*kc:(jp+1)*nr*kc], j.b, j.pc*j.brs+j0*j.bcs, j.bcs, j.brs, min(nr, j.n-j0), nr, kc)
	}
}

// multiply is goroutine w's share of the current block: it takes units
// (row block, column chunk) in order until none are left, so a goroutine
// that is slowed down (the machine may be shared) simply takes fewer.
func (j *job[T]) multiply(w int) {
	ks := j.ks
	mr, nr, kc := ks.mr, ks.nr, j.kc
	m, n, ldc, c := j.m, j.n, j.ldc, j.c
	wk := &j.ws[w]
	packedBlock := -1
	for {
		u := int(j.next.Add(1) - 1)
		if u >= j.units {
			return
		}
		ib, s := u/j.colChunks, u%j.colChunks
		i0 := ib * j.mcb
		rowPanels := ceilDiv(min(j.mcb, m-i0), mr)
		ap := wk.a.data[:rowPanels*mr*kc]
		if ib != packedBlock {
			for ip := range rowPanels {
				r0 := i0 + ip*mr
				ks.pack(ap[ip*mr*kc:(ip+1)*mr*kc], j.a, r0*j.ars+j.pc*j.acs, j.ars, j.acs, min(mr, m-r0), mr, kc)
			}
			packedBlock = ib
		}
		for jp := s * j.chunk; jp < min((s+1)*j.chunk, j.panels); jp++ {
			j0 := j.jc + jp*nr
			nv := min(nr, n-j0)
			bpan := &j.bp[jp*nr*kc]
			for ip := range rowPanels {
				r0 := i0 + ip*mr
				mv := min(mr, m-r0)
				apan := &ap[ip*mr*kc]
				if mv == mr && nv == nr {
					ks.micro(kc, apan, bpan, &c[r0*ldc+j0], ldc, j.alpha, j.betaEff)
					continue
				}
				ks.micro(kc, apan, bpan, &wk.tile[0], nr, j.alpha, 0)
				mergeTile(c, r0*ldc+j0, ldc, wk.tile, nr, mv, nv, j.betaEff)
			}
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
func packPanel[T float](dst, src []T, off, rs, cs, rows, width, kc int) {
	dst = dst[:kc*width]
	var zero T
	size := int(unsafe.Sizeof(zero))
	if rs == 1 && rows == width {
		// Each step is width contiguous values: copy them as one block.
		switch width * size {
		case 64:
			for p := range kc {
				s := src[off+p*cs : off+p*cs+width]
				*(*[64]byte)(unsafe.Pointer(&dst[p*width])) = *(*[64]byte)(unsafe.Pointer(&s[0]))
			}
		case 48:
			for p := range kc {
				s := src[off+p*cs : off+p*cs+width]
				*(*[48]byte)(unsafe.Pointer(&dst[p*width])) = *(*[48]byte)(unsafe.Pointer(&s[0]))
			}
		case 24:
			for p := range kc {
				s := src[off+p*cs : off+p*cs+width]
				*(*[24]byte)(unsafe.Pointer(&dst[p*width])) = *(*[24]byte)(unsafe.Pointer(&s[0]))
			}
		default:
			for p := range kc {
				copy(dst[p*width:(p+1)*width], src[off+p*cs:off+p*cs+width])
			}
		}
		return
	}
	if rows < width {
		clear(dst)
	}
	if cs == 1 {
		// Each row is contiguous along p: a transposing copy.
		for r := range rows {
			row := src[off+r*rs : off+r*rs+kc]
			d := dst[r:]
			for p, v := range row {
				d[p*width] = v
			}
		}
		return
	}
	for p := range kc {
		d := dst[p*width : p*width+rows]
		for r := range d {
			d[r] = src[off+r*rs+p*cs]
		}
	}
}
