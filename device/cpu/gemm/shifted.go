package gemm

import (
	"sync/atomic"

	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
)

// Shifted describes B operands that are shifted windows of one array,
// such as the im2col matrix of a stride-1 convolution over a padded
// image, whose row for one kernel tap and channel is the image moved by
// that tap. Row p of a B at origin o has n = Rows*Width columns: column
// r*Width+j (r < Rows, j < Width) holds b[o+Offs[p]+r*Pitch+j], Rows runs
// of Width values, Pitch apart (Pitch >= Width), k = len(Offs).
type Shifted struct {
	Offs               []int
	Rows, Width, Pitch int
}

// ShiftedItem is one product of a batch given to F32Shifted or
// F64Shifted: the offsets of its A in a, of its B's origin in b, and of
// its C in c.
type ShiftedItem struct{ A, B, C int }

// F32Shifted computes C_i = A_i * B_i for every item i (overwriting C_i),
// where A_i is the m x k row-major matrix a[items[i].A:] with leading
// dimension lda, B_i is the k x n matrix s describes with origin
// items[i].B in b, and C_i is the m x n row-major matrix c[items[i].C:]
// with leading dimension ldc. The C_i must not overlap.
//
// B is never packed: the micro-kernel reads each k step's values from b
// at that step's offset, across whole runs of Pitch values (the Pitch -
// Width between two rows are computed and dropped as the tile is stored),
// so b must hold one micro-tile's width (32 float32, 16 float64) past the
// end of every item's last row. It reports false, computing nothing,
// where the active kernels have no form for shifted B (only the AVX-512
// set has one), where Pitch exceeds Width by more than half (the dropped
// columns would cost more than packing saves), or where b is too short
// for those reads: the caller then packs B (F32Panels). Bad sizes or
// offsets are errors, as in F32, and nothing is written.
func F32Shifted(m int, a []float32, lda int, b []float32, s Shifted, items []ShiftedItem, c []float32, ldc int) (bool, error) {
	return shiftedGemm(active.Load().f32, "F32Shifted", m, a, lda, b, s, items, c, ldc)
}

// F64Shifted is F32Shifted for float64.
func F64Shifted(m int, a []float64, lda int, b []float64, s Shifted, items []ShiftedItem, c []float64, ldc int) (bool, error) {
	return shiftedGemm(active.Load().f64, "F64Shifted", m, a, lda, b, s, items, c, ldc)
}

// shiftedKernel is a micro-kernel of shifted B: step p of B is the nr
// values at b + offs[p] elements.
type shiftedKernel[T float] func(k int, a, b, c *T, ldc int, alpha, beta T, offs *int)

// shiftedEdge is an edge micro-kernel of shifted B with mr rows.
type shiftedEdge[T float] struct {
	mr    int
	micro shiftedKernel[T]
}

// panelRows returns the rows of the row panels F32Shifted splits m rows
// into, the tile's columns, and the kernel of a whole panel: the main
// tile's rows, or the 8-row edge kernel's where panels of 8 multiply
// fewer rows (m = 16: two of 8, not 14 and an edge of 4 for 2 rows).
func (ks *kernels[T]) panelRows(m int) (int, int, shiftedKernel[T]) {
	computed := func(mr int) int {
		last, _ := ks.shiftedFor(m - (ceilDiv(m, mr)-1)*mr)
		return (ceilDiv(m, mr)-1)*mr + last
	}
	for _, e := range ks.shiftedEdges {
		if e.mr == 8 && computed(8) < computed(ks.mr) {
			return 8, ks.nr, e.micro
		}
	}
	return ks.mr, ks.nr, ks.shifted
}

// shiftedFor returns the narrowest shifted kernel of ks that holds rows
// rows, and its row count.
func (ks *kernels[T]) shiftedFor(rows int) (int, shiftedKernel[T]) {
	for _, e := range ks.shiftedEdges {
		if rows <= e.mr {
			return e.mr, e.micro
		}
	}
	return ks.mr, ks.shifted
}

// shiftedGemm validates and runs F32Shifted or F64Shifted with kernel set
// ks.
func shiftedGemm[T float](ks *kernels[T], op string, m int, a []T, lda int, b []T, s Shifted, items []ShiftedItem, c []T, ldc int) (bool, error) {
	k, n := len(s.Offs), s.Rows*s.Width
	if m < 0 || s.Rows < 0 || s.Width < 0 || s.Pitch < s.Width {
		return false, errs.New("gemm", op, errs.ErrShape, "m=%d, rows=%d, width=%d, pitch=%d: need m, rows, width >= 0 and pitch >= width", m, s.Rows, s.Width, s.Pitch)
	}
	if s.Rows > 0 && s.Width > 0 && s.Pitch > (len(b)-s.Width)/s.Rows {
		// The rows alone do not fit in b (this also bounds n and the
		// extent below away from overflow).
		return false, nil
	}
	lo, hi := 0, 0
	if k > 0 {
		lo, hi = minMax(s.Offs)
	}
	if lo < 0 {
		return false, errs.New("gemm", op, errs.ErrShape, "offset %d is negative", lo)
	}
	for i, it := range items {
		if it.A < 0 || it.A > len(a) || it.C < 0 || it.C > len(c) || it.B < 0 {
			return false, errs.New("gemm", op, errs.ErrShape, "item %d: offsets A=%d B=%d C=%d outside len(a)=%d, len(b)=%d, len(c)=%d", i, it.A, it.B, it.C, len(a), len(b), len(c))
		}
		if err := checkMatrix(op, "A", false, m, k, len(a)-it.A, lda); err != nil {
			return false, err
		}
		if err := checkMatrix(op, "C", false, m, n, len(c)-it.C, ldc); err != nil {
			return false, err
		}
	}
	if ks.shifted == nil || 2*(s.Pitch-s.Width) > s.Width {
		return false, nil
	}
	if m == 0 || n == 0 || len(items) == 0 {
		return true, nil
	}
	if k == 0 {
		for _, it := range items {
			scaleC(m, n, 0, c[it.C:], ldc)
		}
		return true, nil
	}
	// Every tile reads nr values at each step's offset from its first
	// column, which is at most ext-1 (shiftedTiles).
	ext := (s.Rows-1)*s.Pitch + s.Width
	reach := ext - 1 + ks.nr
	for _, it := range items {
		if it.B > len(b) || hi > len(b)-it.B || reach > len(b)-it.B-hi {
			return false, nil
		}
	}
	shifted(ks, m, k, a, lda, b, s, ext, items, c, ldc)
	return true, nil
}

// shiftedTile is one tile of a shifted product: its first column of the
// rows' extent, and the runs that copy its wanted columns from the tile
// buffer into C (one for each row of B it meets; Src a column of the
// tile, Dst one of C).
type shiftedTile struct {
	start int
	runs  []Run
}

// shiftedTiles returns the tiles of nr columns that cover the wanted
// columns of the rows' extent, the same for every item: each starts at
// the first wanted column the last did not reach, so no tile starts among
// the dropped ones (rows of 14 with a pitch of 18 take 7 tiles, each two
// whole rows, not 8), and none is without a wanted column.
func shiftedTiles(s Shifted, ext, nr int) []shiftedTile {
	var tiles []shiftedTile
	for q0 := 0; q0 < ext; {
		t := shiftedTile{start: q0}
		for q := q0; q < min(q0+nr, ext); {
			r, j := q/s.Pitch, q%s.Pitch
			if j >= s.Width {
				q = (r + 1) * s.Pitch
				continue
			}
			nq := min(s.Width-j, q0+nr-q)
			t.runs = append(t.runs, Run{Dst: r*s.Width + j, Src: q - q0, N: nq})
			q += nq
		}
		tiles = append(tiles, t)
		if q0 += nr; q0%s.Pitch >= s.Width {
			q0 += s.Pitch - q0%s.Pitch
		}
	}
	return tiles
}

// shifted runs a validated shiftedGemm. Each distinct A is packed once
// (row panels of the whole k, as panelGemm packs them); a unit of work is
// one item's run of tiles of nr columns of the rows' extent (ext
// columns, the dropped ones included, shiftedTiles); each tile is computed into a
// buffer by every row panel and its wanted columns copied into C
// (gemm.GatherRuns, one run per row of B the tile meets).
func shifted[T float](ks *kernels[T], m, k int, a []T, lda int, b []T, s Shifted, ext int, items []ShiftedItem, c []T, ldc int) {
	mr, nr, main := ks.panelRows(m)
	aOffs := make([]int, len(items))
	for i, it := range items {
		aOffs[i] = it.A
	}
	mp := roundUp(m, mr)
	rowPanels := ceilDiv(m, mr)
	lastMR, lastMicro := ks.shiftedFor(m - (rowPanels-1)*mr)
	aIdx, ab := packDistinctA(ks, m, k, k, mr, lastMR, a, lda, aOffs)
	defer putBuf(ab)
	ap := ab.data

	tileList := shiftedTiles(s, ext, nr)
	tiles := len(tileList)
	procs := workers(m, s.Rows*s.Width*len(items), k)
	per := max(1, min(tiles, ceilDiv(minPanelWork, m*k*nr)))
	if len(items) >= 4*procs {
		// Enough items to share: a unit is a whole item, whose rows of b
		// and A's panels then stay in cache from tile to tile.
		per = tiles
	}
	chunks := ceilDiv(tiles, per)
	units := len(items) * chunks
	procs = min(procs, units)
	var rowOffs [32]int // the tile buffer's rows, nr apart (mr <= 32)
	for r := range rowOffs {
		rowOffs[r] = r * nr
	}
	var next atomic.Int64
	par.Run(procs, func(int) {
		tile := getBuf[T](mr * nr)
		defer putBuf(tile)
		tl := tile.data
		for {
			u := int(next.Add(1) - 1)
			if u >= units {
				return
			}
			it, ch := u/chunks, u%chunks
			abase, bbase, cbase := aIdx[it]*mp*k, items[it].B, items[it].C
			// Row panel by row panel, so that one panel of A and the item's
			// rows of b stay in L1 across the tiles.
			for ip := range rowPanels {
				r0 := ip * mr
				mv := min(mr, m-r0)
				micro := main
				if ip == rowPanels-1 {
					micro = lastMicro
				}
				for _, t := range tileList[ch*per : min((ch+1)*per, tiles)] {
					micro(k, &ap[abase+ip*mr*k], &b[bbase+t.start], &tl[0], nr, 1, 0, &s.Offs[0])
					// In bounds by construction (the checks of shiftedGemm).
					GatherRuns(c[cbase+r0*ldc:], ldc, tl, rowOffs[:mv], t.runs)
				}
			}
		}
	})
}

// HasShifted reports whether the active kernels multiply shifted B
// operands and A read in place, so that F32Shifted, F32RowsA and their
// float64 forms do not decline for want of a kernel (the AVX-512 set has
// both).
func HasShifted() bool { return active.Load().f32.shifted != nil }
