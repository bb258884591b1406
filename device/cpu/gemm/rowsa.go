package gemm

import (
	"runtime"
	"sync/atomic"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
)

// F32RowsA computes C = A_0*B_0 + A_1*B_1 + ... over the items i <
// len(origins) (overwriting C), where A_i is the m x k matrix whose row p
// is the k values at a[origins[i]+rows[p]:], read in place; B_i is k x n,
// supplied by src one packed panel at a time (src.PackB(dst, i, k0, j0,
// kc, cols, width)); and C is m x n, row-major with leading dimension
// ldc. It is the weights' gradient of a stride-1 convolution over a
// padded image, whose im2col matrix has one row per kernel tap and
// channel, each a window of the image, and whose B is the output's
// gradient transposed.
//
// Rows are multiplied 8 at a time, a last group of at most 4 by a
// 4-row micro-kernel, in column panels of the kernels' width or, for the
// last columns where they fit, of half of it. The items are shared out
// among the cores, each summing into C or a copy of its own, and the
// copies are added at the end. It reports false, computing nothing,
// where the active kernels have no form for A in place (only the AVX-512
// set has one). Bad sizes or offsets are errors, as in F32, and nothing
// is written.
func F32RowsA(m, n, k int, a []float32, rows, origins []int, src Panels[float32], c []float32, ldc int) (bool, error) {
	return rowsAGemm(active.Load().f32, "F32RowsA", m, n, k, a, rows, origins, src, c, ldc)
}

// F64RowsA is F32RowsA for float64.
func F64RowsA(m, n, k int, a []float64, rows, origins []int, src Panels[float64], c []float64, ldc int) (bool, error) {
	return rowsAGemm(active.Load().f64, "F64RowsA", m, n, k, a, rows, origins, src, c, ldc)
}

// rowsAKernel is a micro-kernel of A read in place: row r at a +
// offs[r] elements, for as many rows as the kernel has.
type rowsAKernel[T float] func(k int, a, b, c *T, ldc int, alpha, beta T, offs *int)

// rowsAPanel are the micro-kernels of A read in place for B panels width
// wide: 8 rows and 4.
type rowsAPanel[T float] struct {
	width        int
	rows8, rows4 rowsAKernel[T]
}

// rowGroup is one micro-kernel call's rows of F32RowsA: count rows from
// first, at offs from the first's (as many as the kernel has rows, the
// last repeated where count is fewer).
type rowGroup struct {
	first, count int
	offs         []int
}

// rowGroups splits rows into groups of 8 in order, the last of at most 4
// rows going to a 4-row kernel.
func rowGroups(rows []int) []rowGroup {
	var groups []rowGroup
	for p := 0; p < len(rows); p += 8 {
		count := min(8, len(rows)-p)
		offs := make([]int, 8)
		if count <= 4 {
			offs = offs[:4]
		}
		for r := range offs {
			offs[r] = rows[p+min(r, count-1)] - rows[p]
		}
		groups = append(groups, rowGroup{p, count, offs})
	}
	return groups
}

// rowsAGemm validates and runs F32RowsA or F64RowsA with kernel set ks.
func rowsAGemm[T float](ks *kernels[T], op string, m, n, k int, a []T, rows, origins []int, src bPacker[T], c []T, ldc int) (bool, error) {
	if m < 0 || n < 0 || k < 0 || len(rows) != m {
		return false, errs.New("gemm", op, errs.ErrShape, "m=%d n=%d k=%d with %d row offsets: need sizes >= 0 and one offset a row", m, n, k, len(rows))
	}
	if err := checkMatrix(op, "C", false, m, n, len(c), ldc); err != nil {
		return false, err
	}
	if m > 0 && len(origins) > 0 {
		rlo, rhi := minMax(rows)
		olo, ohi := minMax(origins)
		// Every row of every item lies in a: olo+rlo >= 0 and
		// ohi+rhi+k <= len(a), asked without sums that could overflow.
		if olo < 0 || rlo < -olo || ohi > len(a) || rhi > len(a)-ohi || k > len(a)-ohi-rhi {
			return false, errs.New("gemm", op, errs.ErrShape, "rows at offsets %d..%d from origins %d..%d, %d values each, reach outside len(a)=%d", rlo, rhi, olo, ohi, k, len(a))
		}
	}
	if len(ks.rowsA) == 0 {
		return false, nil
	}
	if m == 0 || n == 0 {
		return true, nil
	}
	scaleC(m, n, 0, c, ldc)
	if k == 0 || len(origins) == 0 {
		return true, nil
	}
	rowsA(ks, m, n, k, a, rows, origins, src, c, ldc)
	return true, nil
}

// minMax returns the least and greatest of xs (not empty).
func minMax(xs []int) (int, int) {
	lo, hi := xs[0], xs[0]
	for _, x := range xs[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// rowsA runs a validated rowsAGemm into a cleared C. Each goroutine takes
// items in turn; for each of an item's column panels and k blocks it
// packs B's panel and multiplies it by every row group, adding the
// products into its sums (C for the first goroutine).
func rowsA[T float](ks *kernels[T], m, n, k int, a []T, rows, origins []int, src bPacker[T], c []T, ldc int) {
	wide := ks.rowsA[0]
	kBlocks := ceilDiv(k, ks.kc)
	kcb := ceilDiv(k, kBlocks)
	groups := rowGroups(rows)
	procs := max(1, min(runtime.GOMAXPROCS(0), len(origins), workers(m, n*len(origins), k)))
	sums := make([][]T, procs)
	sums[0] = c
	var next atomic.Int64
	par.Run(procs, func(w int) {
		sum, lds := sums[w], ldc
		if w > 0 {
			sum, lds = make([]T, m*n), n
			sums[w] = sum
		}
		bb := getBuf[T](kcb * wide.width)
		defer putBuf(bb)
		tile := getBuf[T](8 * wide.width)
		defer putBuf(tile)
		bp, tl := bb.data, tile.data
		for {
			i := int(next.Add(1) - 1)
			if i >= len(origins) {
				return
			}
			for j0 := 0; j0 < n; {
				ps := rowsAPanelFor(ks.rowsA, n-j0)
				nr := ps.width
				nv := min(nr, n-j0)
				for pc := 0; pc < k; pc += kcb {
					kc := min(kcb, k-pc)
					src.PackB(bp[:kc*nr], i, pc, j0, kc, nv, nr)
					for _, g := range groups {
						micro := ps.rows8
						if len(g.offs) == 4 {
							micro = ps.rows4
						}
						ap := &a[origins[i]+rows[g.first]+pc]
						if g.count == len(g.offs) && nv == nr {
							micro(kc, ap, &bp[0], &sum[g.first*lds+j0], lds, 1, 1, &g.offs[0])
							continue
						}
						micro(kc, ap, &bp[0], &tl[0], nr, 1, 0, &g.offs[0])
						for r := range g.count {
							row := sum[(g.first+r)*lds+j0:][:nv]
							for j, v := range tl[r*nr : r*nr+nv] {
								row[j] += v
							}
						}
					}
				}
				j0 += nv
			}
		}
	})
	for _, s := range sums[1:] {
		if s == nil {
			continue
		}
		for r := range m {
			row := c[r*ldc : r*ldc+n]
			for j, v := range s[r*n : r*n+n] {
				row[j] += v
			}
		}
	}
}

// rowsAPanelFor returns the narrowest of panels (widest first) that holds
// cols columns, or the widest.
func rowsAPanelFor[T float](panels []rowsAPanel[T], cols int) rowsAPanel[T] {
	best := panels[0]
	for _, p := range panels[1:] {
		if p.width >= cols {
			best = p
		}
	}
	return best
}
