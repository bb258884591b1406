package gpucore

import (
	"math"
	"math/bits"
	"slices"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Operand is a validated operand: a buffer and a layout whose span lies
// inside it.
type Operand struct {
	Buf     Buffer
	Shape   []int
	Strides []int
	Off     int
	Numel   int
}

// DT is the operand's element type.
func (o Operand) DT() dtype.DType { return o.Buf.DType() }

// NewOperand validates a view l of buffer b (which the executor has
// already checked is live and its own) for operation op; role names it in
// errors.
func (p *Planner) NewOperand(op, role string, b Buffer, l layout.Layout) (Operand, error) {
	if len(l.Shape) != len(l.Strides) {
		return Operand{}, p.errorf(op, errs.ErrShape, "%s layout has shape %v but strides %v", role, l.Shape, l.Strides)
	}
	n, err := layout.Numel(l.Shape)
	if err != nil {
		return Operand{}, p.errorf(op, errs.ErrShape, "%s shape %v is invalid", role, l.Shape)
	}
	if n > 0 {
		lo, hi, ok := spanOf(l.Shape, l.Strides, l.Offset)
		if !ok || lo < 0 || hi > int64(b.Len()) {
			return Operand{}, p.errorf(op, errs.ErrShape, "%s view (shape %v, strides %v, offset %d) reaches outside its buffer of %d elements",
				role, l.Shape, l.Strides, l.Offset, b.Len())
		}
		if hi > math.MaxInt32 {
			return Operand{}, p.errorf(op, errs.ErrUnsupported, "%s view reaches element %d, beyond the 2^31 positions a kernel addresses", role, hi)
		}
	}
	return Operand{Buf: b, Shape: l.Shape, Strides: l.Strides, Off: l.Offset, Numel: n}, nil
}

// contiguous is a row-major view of the first n elements of b as shape.
func contiguous(b Buffer, shape []int, n int) Operand {
	cl, _ := layout.Contiguous(shape...)
	return Operand{Buf: b, Shape: cl.Shape, Strides: cl.Strides, Numel: n}
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
	for i := range st {
		if st[i] == nil {
			st[i] = []int{}
		}
	}
	return sh, st
}

// tileFrom chooses box extents, starting from bext (at most the shape,
// shrunk in place and returned), such that every operand's span within a
// box fits one binding and a box has at most maxN elements. It halves the
// axis that stretches the worst span most until all fit; only the first
// split axes may be divided. It reports false when even the smallest
// allowed box does not fit.
func (l Limits) tileFrom(bext []int, strides [][]int, esz []int, maxN int64, split int) ([]int, bool) {
	for {
		worstOp := -1
		for o := range strides {
			lo, hi, _ := spanOf(bext, strides[o], 0)
			if !l.Fits(lo, hi, esz[o]) {
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
func boxes(shape, bext []int, fn func(origin, ext []int)) {
	r := len(shape)
	origin := make([]int, r)
	ext := make([]int, r)
	for {
		for i := range ext {
			ext[i] = min(bext[i], shape[i]-origin[i])
		}
		fn(origin, ext)
		i := r - 1
		for ; i >= 0; i-- {
			origin[i] += bext[i]
			if origin[i] < shape[i] {
				break
			}
			origin[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// blocksOf is the number of boxes along each axis of a tiling.
func blocksOf(shape, bext []int) []int {
	out := make([]int, len(shape))
	for i, d := range shape {
		out[i] = (d + bext[i] - 1) / bext[i]
	}
	return out
}

func prodInts(s []int) int {
	p := 1
	for _, d := range s {
		p *= d
	}
	return p
}

// walk4 and walk2 describe a walk over extents ext with the strides of
// each operand (ext and every stride list have at most maxRank entries).
func walk4(ext []int, st ...[]int) (w Walk4) {
	w.Rank = fillWalk(&w.Shape, w.St[:], ext, st)
	return w
}

func walk2(ext []int, st ...[]int) (w Walk2) {
	w.Rank = fillWalk(&w.Shape, w.St[:], ext, st)
	return w
}

// fillWalk writes the extents and strides of a walk (operand k's stride
// along axis i at st[2k + i/4][i%4]) and returns its rank.
func fillWalk(shape *[2][4]uint32, dst [][4]int32, ext []int, st [][]int) uint32 {
	for i, d := range ext {
		shape[i/4][i%4] = uint32(d)
		for k, s := range st {
			dst[2*k+i/4][i%4] = int32(s[i])
		}
	}
	return uint32(len(ext))
}
