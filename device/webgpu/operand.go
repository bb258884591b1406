//go:build cgo

package webgpu

import (
	"math"
	"math/bits"
	"slices"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// maxRank is the most axes a kernel's uniform describes. Layouts are
// merged first; axes beyond maxRank that still remain are covered by
// dispatches (see hostAxes), so any rank runs.
const maxRank = 8

// opnd is a validated operand: a live buffer and a layout whose span lies
// inside it.
type opnd struct {
	b       *gbuf
	shape   []int
	strides []int
	off     int
	numel   int
}

// operandLocked validates an operand for op; role names it in errors.
func (g *gpu) operandLocked(op, role string, o device.Operand) (opnd, error) {
	b, err := g.ownLocked(op, role, o.Buf)
	if err != nil {
		return opnd{}, err
	}
	l := o.Layout
	if len(l.Shape) != len(l.Strides) {
		return opnd{}, errs.New("webgpu", op, errs.ErrShape, "%s layout has shape %v but strides %v", role, l.Shape, l.Strides)
	}
	n, err := layout.Numel(l.Shape)
	if err != nil {
		return opnd{}, errs.New("webgpu", op, errs.ErrShape, "%s shape %v is invalid", role, l.Shape)
	}
	if n > 0 {
		lo, hi, ok := spanOf(l.Shape, l.Strides, l.Offset)
		if !ok || lo < 0 || hi > int64(b.n) {
			return opnd{}, errs.New("webgpu", op, errs.ErrShape, "%s view (shape %v, strides %v, offset %d) reaches outside its buffer of %d elements",
				role, l.Shape, l.Strides, l.Offset, b.n)
		}
		if hi > math.MaxInt32 {
			return opnd{}, errs.New("webgpu", op, errs.ErrUnsupported, "%s view reaches element %d, beyond the 2^31 positions a kernel addresses", role, hi)
		}
	}
	return opnd{b: b, shape: l.Shape, strides: l.Strides, off: l.Offset, numel: n}, nil
}

// spanOf returns the half-open range of positions a non-empty view touches,
// reporting false on overflow.
func spanOf(shape, strides []int, off int) (lo, hi int64, ok bool) {
	lo, hi = int64(off), int64(off)
	for i, d := range shape {
		if d <= 1 {
			continue
		}
		s := strides[i]
		a := s
		if a < 0 {
			a = -a
		}
		h, l := bits.Mul64(uint64(a), uint64(d-1))
		if h != 0 || l > math.MaxInt64/4 {
			return 0, 0, false
		}
		if s < 0 {
			lo -= int64(l)
		} else {
			hi += int64(l)
		}
		if lo < -math.MaxInt64/4 || hi > math.MaxInt64/4 {
			return 0, 0, false
		}
	}
	return lo, hi + 1, true
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// coalesce drops extent-1 axes and merges neighbouring axes that are
// contiguous with each other in every operand, so most views reach the
// kernel with rank 1 (no index arithmetic).
func coalesce(shape []int, strides [][]int) ([]int, [][]int) {
	k := len(strides)
	var sh []int
	st := make([][]int, k)
	for a, d := range shape {
		if d == 1 {
			continue
		}
		if n := len(sh); n > 0 {
			merge := true
			for i := 0; i < k; i++ {
				if st[i][n-1] != strides[i][a]*d {
					merge = false
					break
				}
			}
			if merge {
				sh[n-1] *= d
				for i := 0; i < k; i++ {
					st[i][n-1] = strides[i][a]
				}
				continue
			}
		}
		sh = append(sh, d)
		for i := 0; i < k; i++ {
			st[i] = append(st[i], strides[i][a])
		}
	}
	return sh, st
}

// window is the byte range of a buffer one binding covers, and the element
// position that range starts at.
type window struct {
	bind
	base int // element position of the window's first byte
}

// windowFor returns a binding covering positions [lo, hi) of b, aligned as
// the device requires.
func (g *gpu) windowFor(b *gbuf, lo, hi int64) window {
	esz := uint64(gpuElemBytes(b.dt))
	align := max(g.lim.storageAlign, esz, 16)
	start := (uint64(lo) * esz) &^ (align - 1)
	end := (uint64(hi)*esz + 15) &^ 15
	if end > b.size {
		end = b.size
	}
	if b.size <= g.lim.maxBinding {
		return window{bind: whole(b), base: 0}
	}
	return window{bind: bind{b: b, off: start, size: end - start}, base: int(start / esz)}
}

// fits reports whether a view spanning [lo, hi) positions of a buffer with
// elements of esz bytes fits in one binding, allowing for alignment slack.
func (g *gpu) fits(lo, hi int64, esz int) bool {
	bytes := uint64(hi-lo)*uint64(esz) + max(g.lim.storageAlign, 16) + 16
	return bytes <= g.lim.maxBinding
}

// pieceElems is how many contiguous elements of esz bytes one binding
// surely holds, whatever their alignment: a multiple of 1024.
func (g *gpu) pieceElems(esz int) int {
	slack := max(g.lim.storageAlign, 16) + 32
	return int((g.lim.maxBinding-slack)/uint64(esz)) &^ 1023
}

// tileExtents chooses box extents over shape such that every operand's
// span within a box fits one binding and a box has at most maxN elements.
// It halves the axis that stretches the worst span most until all fit;
// only the first split axes may be divided. It reports false when even the
// smallest allowed box does not fit.
func (g *gpu) tileExtents(shape []int, strides [][]int, esz []int, maxN int64, split int) ([]int, bool) {
	return g.tileFrom(append([]int(nil), shape...), strides, esz, maxN, split)
}

// tileFrom is tileExtents starting from box extents bext (at most the
// shape), which it shrinks in place and returns.
func (g *gpu) tileFrom(bext []int, strides [][]int, esz []int, maxN int64, split int) ([]int, bool) {
	for {
		worstOp := -1
		for o := range strides {
			lo, hi, _ := spanOf(bext, strides[o], 0)
			if !g.fits(lo, hi, esz[o]) {
				worstOp = o
				break
			}
		}
		n := int64(1)
		for _, d := range bext {
			n *= int64(d)
		}
		if worstOp < 0 && n <= maxN {
			return bext, true
		}
		axis, best := -1, int64(-1)
		for i, d := range bext[:split] {
			if d <= 1 {
				continue
			}
			var w int64
			if worstOp >= 0 {
				s := int64(strides[worstOp][i])
				if s < 0 {
					s = -s
				}
				w = s * int64(d-1)
				if w == 0 {
					continue
				}
			} else {
				w = int64(d)
			}
			if w > best {
				axis, best = i, w
			}
		}
		if axis < 0 {
			return bext, false
		}
		bext[axis] = (bext[axis] + 1) / 2
	}
}

// hostAxes sets to 1 the box extent of the smallest axes among bext[lo:hi]
// beyond the keep largest, so that a kernel sees at most keep of those axes
// and the boxes (one dispatch each) walk the rest. Views that still keep
// more than maxRank axes after merging are rare; this costs one dispatch per
// index of the walked axes, which are chosen to make that count smallest.
func hostAxes(bext []int, lo, hi, keep int) {
	var ax []int
	for i := lo; i < hi; i++ {
		if bext[i] > 1 {
			ax = append(ax, i)
		}
	}
	if len(ax) <= keep {
		return
	}
	slices.SortStableFunc(ax, func(a, b int) int { return bext[a] - bext[b] })
	for _, i := range ax[:len(ax)-keep] {
		bext[i] = 1
	}
}

// squeezeBox drops the axes of a box with extent 1 (their origin is already
// in the caller's offsets), returning the remaining extents and, for each
// stride list, the remaining strides.
func squeezeBox(ext []int, strides ...[]int) ([]int, [][]int) {
	var e []int
	st := make([][]int, len(strides))
	for i, d := range ext {
		if d == 1 {
			continue
		}
		e = append(e, d)
		for k, s := range strides {
			st[k] = append(st[k], s[i])
		}
	}
	return e, st
}

// boxes calls fn with the origin and extents of every box of a tiling of
// shape by bext, in row-major order of boxes.
func boxes(shape, bext []int, fn func(origin, ext []int) error) error {
	r := len(shape)
	origin := make([]int, r)
	ext := make([]int, r)
	for {
		for i := range ext {
			ext[i] = min(bext[i], shape[i]-origin[i])
		}
		if err := fn(origin, ext); err != nil {
			return err
		}
		i := r - 1
		for ; i >= 0; i-- {
			origin[i] += bext[i]
			if origin[i] < shape[i] {
				break
			}
			origin[i] = 0
		}
		if i < 0 {
			return nil
		}
	}
}
