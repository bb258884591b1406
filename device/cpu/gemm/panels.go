package gemm

import (
	"sync/atomic"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
)

// Panels supplies the B operands of F32Panels and F64Panels one packed
// panel at a time, for a B that is never stored as a matrix: a
// convolution's im2col matrix is gathered from the image (padding,
// stride and dilation applied) as each panel is packed, so it is never
// written out.
type Panels[T float32 | float64] interface {
	// PackB writes the kc x width panel of item's B whose first element
	// is B(k0, j0): dst[p*width+j] = B(k0+p, j0+j) for p < kc and
	// j < cols, and 0 for cols <= j < width. It is called from several
	// goroutines at once, each with its own dst.
	PackB(dst []T, item, k0, j0, kc, cols, width int)
}

// Item is one product of a batch given to F32Panels or F64Panels: the
// offsets of its A in a and of its C in c.
type Item struct{ A, C int }

// F32Panels computes C_i = A_i * B_i for every item i (overwriting C_i),
// where A_i is the m x k row-major matrix a[items[i].A:] with leading
// dimension lda, B_i is k x n and supplied panel by panel by src, and C_i
// is the m x n row-major matrix c[items[i].C:] with leading dimension ldc.
// The C_i must not overlap. Each distinct A is packed once; each B panel
// is packed by the goroutine that multiplies it, straight into its L1
// buffer, and multiplied by every row panel of A (which stays in cache)
// before the next is packed: the loop nest of a product with few rows
// and many columns, run over the whole batch in one parallel region.
// Bad sizes or offsets are reported as in F32, and nothing is written.
func F32Panels(m, n, k int, a []float32, lda int, src Panels[float32], items []Item, c []float32, ldc int) error {
	if err := checkPanels("F32Panels", m, n, k, len(a), lda, items, len(c), ldc); err != nil {
		return err
	}
	panelGemm(active.Load().f32, m, n, k, a, lda, src, items, c, ldc)
	return nil
}

// F64Panels is F32Panels for float64.
func F64Panels(m, n, k int, a []float64, lda int, src Panels[float64], items []Item, c []float64, ldc int) error {
	if err := checkPanels("F64Panels", m, n, k, len(a), lda, items, len(c), ldc); err != nil {
		return err
	}
	panelGemm(active.Load().f64, m, n, k, a, lda, src, items, c, ldc)
	return nil
}

// checkPanels validates the sizes and every item's offsets against the
// slices.
func checkPanels(op string, m, n, k, lenA, lda int, items []Item, lenC, ldc int) error {
	if m < 0 || n < 0 || k < 0 {
		return errs.New("gemm", op, errs.ErrShape, "negative size: m=%d n=%d k=%d", m, n, k)
	}
	for i, it := range items {
		if it.A < 0 || it.A > lenA || it.C < 0 || it.C > lenC {
			return errs.New("gemm", op, errs.ErrShape, "item %d: offsets A=%d C=%d outside len(a)=%d, len(c)=%d", i, it.A, it.C, lenA, lenC)
		}
		if err := checkMatrix(op, "A", false, m, k, lenA-it.A, lda); err != nil {
			return err
		}
		if err := checkMatrix(op, "C", false, m, n, lenC-it.C, ldc); err != nil {
			return err
		}
	}
	return nil
}

// bPacker is Panels for the element types of the kernels.
type bPacker[T float] interface {
	PackB(dst []T, item, k0, j0, kc, cols, width int)
}

// minPanelWork is the fewest multiply-adds one claimed unit of
// panelGemm should hold, so that claiming stays a small part of the work.
const minPanelWork = 1 << 18

// panelGemm runs a validated F32Panels or F64Panels with kernel set ks.
// A unit of work is one item's run of column panels; a goroutine packs
// each B panel of its unit k block by k block and multiplies it by all of
// A's row panels for that k block, so the C strip (m x nr) accumulates in
// cache and A (m x k, packed) is read from cache or streamed.
func panelGemm[T float](ks *kernels[T], m, n, k int, a []T, lda int, src bPacker[T], items []Item, c []T, ldc int) {
	if m == 0 || n == 0 || len(items) == 0 {
		return
	}
	if k == 0 {
		for _, it := range items {
			scaleC(m, n, 0, c[it.C:], ldc)
		}
		return
	}
	mr, nr := ks.mr, ks.nr
	kBlocks := ceilDiv(k, ks.kc)
	kcb := ceilDiv(k, kBlocks)
	mp := roundUp(m, mr)
	// The last row panel may be short: it is packed to the width of the
	// narrowest kernel that holds it (as the packed path's unit does), so
	// fewer padding rows are multiplied: C of 32 rows, a convolution of 32
	// output channels, is two panels of 14 rows and one of 4, not 14.
	rowPanels := ceilDiv(m, mr)
	lastMR, lastMicro := ks.edgeFor(m - (rowPanels-1)*mr)

	aOffs := make([]int, len(items))
	for i, it := range items {
		aOffs[i] = it.A
	}
	aIdx, ab := packDistinctA(ks, m, k, kcb, mr, lastMR, a, lda, aOffs)
	defer putBuf(ab)
	ap := ab.data

	panels := ceilDiv(n, nr)
	per := max(1, min(panels, ceilDiv(minPanelWork, m*k*nr)))
	chunks := ceilDiv(panels, per)
	units := len(items) * chunks
	procs := min(workers(m, n*len(items), k), units)
	var next atomic.Int64
	par.Run(procs, func(int) {
		bb := getBuf[T](kcb * nr)
		defer putBuf(bb)
		tile := getBuf[T](mr * nr)
		defer putBuf(tile)
		bp, tl := bb.data, tile.data
		for {
			u := int(next.Add(1) - 1)
			if u >= units {
				return
			}
			it, ch := u/chunks, u%chunks
			abase, cbase := aIdx[it]*mp*k, items[it].C
			for jp := ch * per; jp < min((ch+1)*per, panels); jp++ {
				j0 := jp * nr
				nv := min(nr, n-j0)
				for pc := 0; pc < k; pc += kcb {
					kc := min(kcb, k-pc)
					src.PackB(bp[:kc*nr], it, pc, j0, kc, nv, nr)
					var beta T
					if pc > 0 {
						beta = 1
					}
					for ip := range rowPanels {
						r0 := ip * mr
						mv := min(mr, m-r0)
						apan := &ap[abase+pc*mp+ip*mr*kc]
						tileMR, micro := mr, ks.micro
						if ip == rowPanels-1 {
							tileMR, micro = lastMR, lastMicro
						}
						if mv == tileMR && nv == nr {
							micro(kc, apan, &bp[0], &c[cbase+r0*ldc+j0], ldc, 1, beta)
							continue
						}
						micro(kc, apan, &bp[0], &tl[0], nr, 1, 0)
						mergeTile(c, cbase+r0*ldc+j0, ldc, tl, nr, mv, nv, beta)
					}
				}
			}
		}
	})
}

// packDistinctA packs each distinct A (m x k, row-major, lda) of a batch
// once, the A of item i starting at aOffs[i]: for each k block of kcb
// steps at pc, its row panels of mr rows at pc*mp + ip*mr*kc of that A's
// part (mp*k values, mp = m rounded up to mr), the last one lastMR wide.
// It returns the index of each item's packed A and the buffer holding
// them.
func packDistinctA[T float](ks *kernels[T], m, k, kcb, mr, lastMR int, a []T, lda int, aOffs []int) ([]int, *buffer[T]) {
	mp := roundUp(m, mr)
	rowPanels := ceilDiv(m, mr)
	aIdx := make([]int, len(aOffs))
	seen := map[int]int{}
	var offs []int
	for i, o := range aOffs {
		j, ok := seen[o]
		if !ok {
			j = len(offs)
			seen[o] = j
			offs = append(offs, o)
		}
		aIdx[i] = j
	}
	ab := getBuf[T](len(offs) * mp * k)
	ap := ab.data
	for j, off := range offs {
		base := j * mp * k
		for pc := 0; pc < k; pc += kcb {
			kc := min(kcb, k-pc)
			for ip := range rowPanels {
				r0, w := ip*mr, mr
				if ip == rowPanels-1 {
					w = lastMR
				}
				d := ap[base+pc*mp+ip*mr*kc:][:w*kc]
				ks.pack(d, a, off+r0*lda+pc, lda, 1, min(mr, m-r0), w, kc)
			}
		}
	}
	return aIdx, ab
}
