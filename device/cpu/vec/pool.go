package vec

import (
	"math/bits"

	"github.com/tessera-go/tessera/errs"
)

// MaxPool2 is the forward pass of max pooling over tiles of kh lines of
// two adjacent elements, the tiles of a line adjacent (a pool whose kernel
// and stride are kh x 2): for r < rows and o < ow, dst[r*ow+o] is the
// maximum of x[r*ldr + i*ldl + 2*o + j] for i < kh and j < 2, folded in
// that (row-major) order as PyTorch's max_pool2d scans a window: the
// running maximum takes the next element where that is greater or NaN,
// else stays (so a NaN wins, and of equal elements, such as -0 and +0, the
// first). Pooling builds it from Maximum passes over strided views
// (Maximum(next, running)); the vector sets split each line's pairs in
// registers instead (AVX-512, float32). rows, ow and kh must not
// be negative, ldr and ldl neither, and dst must not overlap x.
func MaxPool2[T Float](dst, x []T, rows, ow, kh, ldr, ldl int) error {
	const op = "MaxPool2"
	xs, err := pool2Span(op, x, rows, ow, kh, ldr, ldl)
	if err != nil || rows == 0 || ow == 0 {
		return err
	}
	if len(dst) < rows*ow {
		return errs.New("vec", op, errs.ErrShape, "len(dst)=%d, want %d rows of %d", len(dst), rows, ow)
	}
	dst = dst[:rows*ow]
	if bytesOverlap(dst, xs) {
		return errs.New("vec", op, errs.ErrValue, "dst and x overlap")
	}
	if kh == 0 {
		return errs.New("vec", op, errs.ErrValue, "kh=0: a tile has no elements")
	}
	if is32[T]() && active.maxPool2 != nil {
		active.maxPool2(as32(dst), as32(xs), rows, ow, kh, ldr, ldl)
		return nil
	}
	maxPool2Go(dst, xs, rows, ow, kh, ldr, ldl)
	return nil
}

// MaxPool2Grad is MaxPool2's gradient: with y = MaxPool2(x) and g its
// gradient (both contiguous [rows, ow]), it sets dx (contiguous [rows, kh,
// 2*ow], the tiles' elements) to g at one element of each tile and +0 at
// the others. That element is where PyTorch's max_pool2d routes the
// gradient (its scan keeps the first strict maximum, and any later NaN):
// the first element in row-major order equal to the tile's y, or where y
// is NaN, the tile's last NaN; none where no element qualifies. dx must
// not overlap the inputs.
func MaxPool2Grad[T Float](dx, x, y, g []T, rows, ow, kh, ldr, ldl int) error {
	const op = "MaxPool2Grad"
	xs, err := pool2Span(op, x, rows, ow, kh, ldr, ldl)
	if err != nil || rows == 0 || ow == 0 || kh == 0 {
		return err
	}
	if len(y) < rows*ow || len(g) < rows*ow {
		return errs.New("vec", op, errs.ErrShape, "len(y)=%d, len(g)=%d, want %d rows of %d", len(y), len(g), rows, ow)
	}
	n := rows * kh * 2 * ow
	if hi, lo := bits.Mul64(uint64(rows*ow), uint64(2*kh)); hi != 0 || lo > uint64(len(dx)) {
		return errs.New("vec", op, errs.ErrShape, "len(dx)=%d, want %d rows of %d lines of %d", len(dx), rows, kh, 2*ow)
	}
	dx, y, g = dx[:n], y[:rows*ow], g[:rows*ow]
	if bytesOverlap(dx, xs) || bytesOverlap(dx, y) || bytesOverlap(dx, g) {
		return errs.New("vec", op, errs.ErrValue, "dx overlaps an input")
	}
	if is32[T]() && active.maxPool2Grad != nil {
		active.maxPool2Grad(as32(dx), as32(xs), as32(y), as32(g), rows, ow, kh, ldr, ldl)
		return nil
	}
	maxPool2GradGo(dx, xs, y, g, rows, ow, kh, ldr, ldl)
	return nil
}

// pool2Span checks MaxPool2's sizes and strides and returns the part of x
// its tiles span: rows*ow*kh*2 elements at most 2^62, without products
// that overflow, and the last line's end within x.
func pool2Span[T any](op string, x []T, rows, ow, kh, ldr, ldl int) ([]T, error) {
	if rows < 0 || ow < 0 || kh < 0 || ldr < 0 || ldl < 0 {
		return nil, errs.New("vec", op, errs.ErrValue, "rows=%d, ow=%d, kh=%d, ldr=%d and ldl=%d must not be negative", rows, ow, kh, ldr, ldl)
	}
	if rows == 0 || ow == 0 || kh == 0 {
		return nil, nil
	}
	// The last element is at (rows-1)*ldr + (kh-1)*ldl + 2*ow - 1.
	end := uint64(2 * uint64(ow))
	for _, t := range [][2]uint64{{uint64(rows - 1), uint64(ldr)}, {uint64(kh - 1), uint64(ldl)}} {
		hi, lo := bits.Mul64(t[0], t[1])
		var c uint64
		end, c = bits.Add64(end, lo, 0)
		if hi != 0 || c != 0 || end > 1<<62 {
			return nil, errs.New("vec", op, errs.ErrShape, "%d rows of %d lines (strides %d and %d) of %d pairs overflow", rows, kh, ldr, ldl, ow)
		}
	}
	if end > uint64(len(x)) || uint64(rows)*uint64(ow) > 1<<40 {
		return nil, errs.New("vec", op, errs.ErrShape, "%d rows of %d lines (strides %d and %d) of %d pairs need %d elements, len(x)=%d", rows, kh, ldr, ldl, ow, end, len(x))
	}
	return x[:end], nil
}

// maxPool2Go is MaxPool2 in Go: the generic set's, and float64's.
func maxPool2Go[T Float](dst, x []T, rows, ow, kh, ldr, ldl int) {
	for r := range rows {
		out := dst[r*ow : (r+1)*ow]
		for o := range out {
			t := r*ldr + 2*o
			acc := x[t]
			for i := range kh {
				for _, v := range x[t+i*ldl : t+i*ldl+2] {
					if MaxScanTakes(acc, v) {
						acc = v
					}
				}
			}
			out[o] = acc
		}
	}
}

// MaxScanTakes reports whether max pooling's scan of a window takes next
// over the running maximum: where next is greater or NaN, as PyTorch's
// max_pool2d scans (so of equal elements, such as -0 and +0, the first
// stays, and a NaN wins). MaxPool2 and the CPU backend's tile pooling
// fold by it.
func MaxScanTakes[T Float](running, next T) bool { return next > running || next != next }

// MaxRouteTakes reports whether max pooling's gradient goes to element v
// of a window whose maximum is y, given whether an element before it (in
// row-major order) took it already (routed): the first element equal to
// y, or where y is NaN every NaN in turn, so that the last one keeps it
// (PyTorch's max_pool2d). MaxPool2Grad and the CPU backend's tile pooling
// route by it.
func MaxRouteTakes[T Float](y, v T, routed bool) bool {
	return y != y && v != v || v == y && !routed
}

// maxPool2GradGo is MaxPool2Grad in Go: the generic set's, and float64's.
func maxPool2GradGo[T Float](dx, x, y, g []T, rows, ow, kh, ldr, ldl int) {
	for r := range rows {
		for o := range ow {
			t, m := r*ldr+2*o, y[r*ow+o]
			// The routed element: line ai, element aj of the tile.
			ai, aj := -1, 0
			for i := range kh {
				for j, v := range x[t+i*ldl : t+i*ldl+2] {
					if MaxRouteTakes(m, v, ai >= 0) {
						ai, aj = i, j
					}
				}
			}
			for i := range kh {
				line := dx[(r*kh+i)*2*ow+2*o:][:2]
				line[0], line[1] = 0, 0
				if i == ai {
					line[aj] = g[r*ow+o]
				}
			}
		}
	}
}
