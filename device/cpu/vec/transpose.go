package vec

import (
	"unsafe"

	"github.com/tessera-go/tessera/errs"
)

// Transpose sets dst[c*ldd+r] = src[r*lds+c] for r < rows and c < cols:
// the rows x cols matrix src (rows lds elements apart) transposed into dst
// (rows ldd apart), the copy behind a transposed or permuted view made
// contiguous. It goes in tiles of 16 by 16, so that each tile's source
// lines are read whole while they are in cache and it touches few pages;
// within a tile the vector sets move 4-byte elements in blocks of 8 by 8
// through registers, and Go moves the rest. dst and src must not overlap;
// ldd must be at least rows and lds at least cols.
func Transpose[T Word](dst []T, ldd int, src []T, lds, rows, cols int) error {
	const op = "Transpose"
	if rows < 0 || cols < 0 || ldd < rows || lds < cols {
		return errs.New("vec", op, errs.ErrValue, "rows=%d, cols=%d with ldd=%d and lds=%d: need rows, cols >= 0, ldd >= rows and lds >= cols", rows, cols, ldd, lds)
	}
	if rows == 0 || cols == 0 {
		return nil
	}
	// The last rows end at (rows-1)*lds+cols and (cols-1)*ldd+rows, asked
	// without products that could overflow.
	if rows-1 > (len(src)-cols)/lds || len(src) < cols {
		return errs.New("vec", op, errs.ErrShape, "%d rows of %d, %d apart, need more than len(src)=%d", rows, cols, lds, len(src))
	}
	if cols-1 > (len(dst)-rows)/ldd || len(dst) < rows {
		return errs.New("vec", op, errs.ErrShape, "%d rows of %d, %d apart, need more than len(dst)=%d", cols, rows, ldd, len(dst))
	}
	s, d := src[:(rows-1)*lds+cols], dst[:(cols-1)*ldd+rows]
	if bytesOverlap(d, s) {
		return errs.New("vec", op, errs.ErrValue, "dst and src overlap")
	}
	if unsafe.Sizeof(*new(T)) == 4 {
		transposeTiles(words[uint32](d), ldd, words[uint32](s), lds, rows, cols, active.transpose32)
	} else {
		transposeTiles(d, ldd, s, lds, rows, cols, nil)
	}
	return nil
}

// transposeTile is the side of Transpose's square tiles.
const transposeTile = 16

// transposeTiles is Transpose on checked operands, a strip of tiles of
// source rows at a time (each tile reading 16 source lines and writing 16
// destination lines). With block8 set and at least 8 rows and columns,
// 8 by 8 blocks cover each tile: a part of a tile fewer than 8 rows or
// columns wide is moved by the block that ends at the tile's edge, which
// overlaps one moved already and writes its values again (a copy, so the
// same values). Otherwise, and for 64-bit words, everything is moved in Go.
func transposeTiles[T any](dst []T, ldd int, src []T, lds, rows, cols int, block8 func(dst *T, ldd int, src *T, lds int, n int)) {
	blocks := block8 != nil && rows >= 8 && cols >= 8
	for r0 := 0; r0 < rows; r0 += transposeTile {
		r1 := min(r0+transposeTile, rows)
		for c0 := 0; c0 < cols; c0 += transposeTile {
			c1 := min(c0+transposeTile, cols)
			if !blocks {
				transposeGo(dst, ldd, src, lds, r0, r1, c0, c1)
				continue
			}
			w := (c1 - c0) &^ 7 // columns in whole blocks from c0
			for r := r0; r < r1; {
				r = min(r, r1-8) // may start before r0, in rows >= 0
				if w > 0 {
					block8(&dst[c0*ldd+r], ldd, &src[r*lds+c0], lds, w)
				}
				if w < c1-c0 {
					block8(&dst[(c1-8)*ldd+r], ldd, &src[r*lds+c1-8], lds, 8)
				}
				r += 8
			}
		}
	}
}

// transposeGo moves src's rows [r0, r1) and columns [c0, c1) to dst: a
// destination row (a source column) at a time, or, for fewer than 8 source
// rows (a GEMM's short edge panel), a source row at a time, so that the
// loop runs along the long side.
func transposeGo[T any](dst []T, ldd int, src []T, lds, r0, r1, c0, c1 int) {
	if r1-r0 < 8 {
		for r := r0; r < r1; r++ {
			j := c0*ldd + r
			for _, v := range src[r*lds+c0 : r*lds+c1] {
				dst[j] = v
				j += ldd
			}
		}
		return
	}
	for c := c0; c < c1; c++ {
		d := dst[c*ldd+r0 : c*ldd+r1]
		j := r0*lds + c
		for k := range d {
			d[k] = src[j]
			j += lds
		}
	}
}
