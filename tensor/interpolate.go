package tensor

import (
	"math"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// InterpolateOptions are the options of Interpolate, PyTorch's
// F.interpolate: the output size, or scale factors from which it is
// floor(in·scale); a mode; and align_corners.
type InterpolateOptions struct {
	// Size is the output's spatial size: (H, W) of a 4-D input, (L) of a
	// 3-D one (the first entry). Zero entries take Scale instead.
	Size [2]int
	// Scale holds the scale factors used where Size is zero. As in
	// PyTorch (recompute_scale_factor unset), a given factor also sets the
	// source coordinates: output index i reads input position i/scale.
	Scale [2]float64
	// Mode is "nearest" (PyTorch's default: the input index
	// floor(i·in/out)), "nearest-exact" (floor((i+0.5)·in/out)), or
	// "linear" / "bilinear" (interpolation along each spatial axis; the
	// names are interchangeable here, as the input's rank decides).
	Mode string
	// AlignCorners maps the corner pixels' centres onto each other
	// (linear modes only, as in PyTorch).
	AlignCorners bool
}

// Interpolate resizes x [N, C, L] or [N, C, H, W] along its spatial axes:
// PyTorch's F.interpolate (nn.Upsample) in the nearest, nearest-exact and
// (bi)linear modes, with PyTorch's source coordinates (computed in the
// input's precision, float32 for float32 as ATen's) and weights. Each
// axis is one or two IndexSelects and, for the linear modes, a weighted
// sum, so it runs on every device and is differentiable. Floats only.
func Interpolate(x *Tensor, opt InterpolateOptions) *Tensor {
	const op = "Interpolate"
	if err := x.checkOperand(op); err != nil {
		return failed(err)
	}
	if !x.DType().IsFloat() {
		return fail(op, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", x.DType())
	}
	r := x.Rank()
	if r != 3 && r != 4 {
		return fail(op, errs.ErrShape, "input %v must be [N, C, L] or [N, C, H, W]", x.lay.Shape)
	}
	linear := false
	switch opt.Mode {
	case "nearest", "nearest-exact", "":
		if opt.AlignCorners {
			return fail(op, errs.ErrValue, "align_corners applies to the linear modes only, not %q", opt.Mode)
		}
	case "linear", "bilinear":
		linear = true
	default:
		return fail(op, errs.ErrValue, "mode %q: want nearest, nearest-exact, linear or bilinear", opt.Mode)
	}
	single := x.DType() != dtype.F64 // ATen's float arithmetic for float32 and the half types
	y := x
	// The last axis first: ATen's bilinear sum is h0·(w0·x00 + w1·x01) +
	// h1·(w0·x10 + w1·x11), the widths inside.
	for k := r - 3; k >= 0; k-- {
		ax := 2 + k
		in := x.lay.Shape[ax]
		out, scale := opt.Size[k], 0.0
		if out == 0 {
			s := opt.Scale[k]
			if !(s > 0) || math.IsInf(s, 0) {
				return fail(op, errs.ErrValue, "axis %d: give a positive size or scale factor, have size %d and scale %v", ax, opt.Size[k], s)
			}
			f := math.Floor(float64(in) * s)
			if f > 1<<31 {
				return fail(op, errs.ErrOutOfMemory, "axis %d: an output of %v", ax, f)
			}
			out, scale = int(f), 1/s
		}
		if out <= 0 {
			return fail(op, errs.ErrValue, "axis %d: the output size %d must be positive", ax, out)
		}
		if in == 0 {
			return fail(op, errs.ErrShape, "axis %d of %v is empty: nothing to interpolate from", ax, x.lay.Shape)
		}
		if scale == 0 {
			scale = float64(in) / float64(out)
		}
		scale = round32(scale, single)
		if linear {
			y = linearAxis(y, ax, in, out, scale, opt.AlignCorners, single)
		} else {
			y = y.IndexSelect(ax, FromSlice(nearestIndex(in, out, scale, opt.Mode == "nearest-exact", single)).To(x.Device()))
		}
	}
	return retag(op, y) // every axis selected anew: never x itself
}

// round32 rounds v to float32 when single, as ATen's float arithmetic.
func round32(v float64, single bool) float64 {
	if single {
		return float64(float32(v))
	}
	return v
}

// nearestIndex returns the input index each output index reads:
// min(floor(i·scale), in-1), or with exact floor((i+0.5)·scale).
func nearestIndex(in, out int, scale float64, exact, single bool) []int64 {
	idx := make([]int64, out)
	for i := range idx {
		pos := float64(i)
		if exact {
			pos += 0.5
		}
		idx[i] = int64(min(int(math.Floor(round32(pos*scale, single))), in-1))
	}
	return idx
}

// linearAxis interpolates y along ax from in to out positions: output i
// is λ0·y[i0] + λ1·y[i1], with ATen's source coordinate (scale·i with
// align corners, else scale·(i+0.5) - 0.5 clamped at 0), i1 the next
// index (or i0 at the last), λ1 the fraction and λ0 = 1 - λ1.
func linearAxis(y *Tensor, ax, in, out int, scale float64, alignCorners, single bool) *Tensor {
	if alignCorners {
		scale = 0
		if out > 1 {
			scale = round32(float64(in-1)/float64(out-1), single)
		}
	}
	i0s, i1s := make([]int64, out), make([]int64, out)
	l0s, l1s := make([]float64, out), make([]float64, out)
	for i := range out {
		var src float64
		if alignCorners {
			src = round32(scale*float64(i), single)
		} else {
			src = max(round32(round32(scale*round32(float64(i)+0.5, single), single)-0.5, single), 0)
		}
		i0 := min(int(src), in-1)
		i1 := i0
		if i0 < in-1 {
			i1++
		}
		l1 := round32(src-float64(i0), single)
		i0s[i], i1s[i], l0s[i], l1s[i] = int64(i0), int64(i1), round32(1-l1, single), l1
	}
	shape := make([]int, y.Rank())
	for i := range shape {
		shape[i] = 1
	}
	shape[ax] = out
	dev, dt := y.Device(), y.DType()
	w0 := FromSlice(l0s, shape...).Cast(dt).To(dev)
	w1 := FromSlice(l1s, shape...).Cast(dt).To(dev)
	a := y.IndexSelect(ax, FromSlice(i0s).To(dev))
	b := y.IndexSelect(ax, FromSlice(i1s).To(dev))
	return a.Mul(w0).Add(b.Mul(w1))
}
