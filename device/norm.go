package device

import (
	"fmt"
	"math"
	"slices"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// Row-wise normalisation (LayerNorm, RMSNorm) as one fused kernel: an
// optional backend capability, Normer, whose argument rule (CheckNorm) and
// float64 reference (NormOp.Ref) are written once here. The table of
// operations is in optable.go.

// NormOp names a normalisation over the last axis of a [rows, n] operand.
type NormOp uint8

// NormDef describes a normalisation.
type NormDef struct {
	Name string
	// Centred subtracts the row mean before scaling (LayerNorm); otherwise
	// the row is divided by its root mean square (RMSNorm) and the mean
	// statistic is written as 0.
	Centred bool
	// Affine is how many per-column operands the op takes: 1 for a weight,
	// 2 for a weight and a bias. Each may be absent in a call.
	Affine int
}

// Def returns the operation's descriptor and whether o names one.
func (o NormOp) Def() (NormDef, bool) {
	if int(o) < len(normTable) && normTable[o].Name != "" {
		return normTable[o], true
	}
	return NormDef{}, false
}

// String names the operation as the tensor function does.
func (o NormOp) String() string {
	if d, ok := o.Def(); ok {
		return d.Name
	}
	return fmt.Sprintf("NormOp(%d)", uint8(o))
}

// NormStats is the dtype of the statistics a normalisation of dt writes:
// F64 for F64, F32 for every other float (F16 and BF16 compute in F32).
func NormStats(dt dtype.DType) dtype.DType {
	if dt == dtype.F64 {
		return dtype.F64
	}
	return dtype.F32
}

// Normer is implemented by backends with fused row normalisation.
type Normer interface {
	// Norm normalises each row of src [rows, n] into dst (same shape and
	// dtype): LayerNorm gives (x - mean) * rstd, RMSNorm x * rstd, where
	// rstd = 1/sqrt(var + eps) and var is the biased variance (LayerNorm)
	// or the mean of squares (RMSNorm); then times weight[j] and plus
	// bias[j] where those are given (a zero Operand, Buf nil, is absent;
	// both are [n] of src's dtype). stats [rows, 2] of NormStats(dtype)
	// receives each row's mean (0 for RMSNorm) and rstd, which the
	// gradient reads instead of recomputing them. F16 and BF16 compute in
	// F32 and round once into dst. Operands are views (any strides); dst
	// and stats must not overlap the sources.
	Norm(op NormOp, dst, stats, src, weight, bias Operand, eps float64) error
}

// CheckNorm validates a Norm call; weight and bias are nil when absent.
func CheckNorm(pkg string, op NormOp, dst, stats, src Arg, weight, bias *Arg, eps float64) error {
	def, ok := op.Def()
	if !ok {
		return errs.New(pkg, op.String(), errs.ErrUnsupported, "unknown normalisation")
	}
	name := def.Name
	if !src.DType.IsFloat() {
		return errs.New(pkg, name, errs.ErrDType, "needs a floating dtype, have %v (Cast first)", src.DType)
	}
	if len(src.Shape) != 2 {
		return errs.New(pkg, name, errs.ErrShape, "source must be [rows, n], have %v", src.Shape)
	}
	if dst.DType != src.DType || !slices.Equal(dst.Shape, src.Shape) {
		return errs.New(pkg, name, errs.ErrShape, "destination %v %v, source %v %v", dst.DType, dst.Shape, src.DType, src.Shape)
	}
	rows, n := src.Shape[0], src.Shape[1]
	if sd := NormStats(src.DType); stats.DType != sd || !slices.Equal(stats.Shape, []int{rows, 2}) {
		return errs.New(pkg, name, errs.ErrShape, "statistics must be %v [%d 2], have %v %v", sd, rows, stats.DType, stats.Shape)
	}
	if n == 0 && rows > 0 {
		return errs.New(pkg, name, errs.ErrShape, "rows of %v are empty: no statistics to take", src.Shape)
	}
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return errs.New(pkg, name, errs.ErrValue, "eps %v must be finite and not negative", eps)
	}
	for i, p := range []*Arg{weight, bias} {
		if p == nil {
			continue
		}
		role := [2]string{"weight", "bias"}[i]
		if i >= def.Affine {
			return errs.New(pkg, name, errs.ErrValue, "takes no %s", role)
		}
		if p.DType != src.DType || !slices.Equal(p.Shape, []int{n}) {
			return errs.New(pkg, name, errs.ErrShape, "%s must be %v [%d], have %v %v", role, src.DType, n, p.DType, p.Shape)
		}
	}
	return nil
}

// Ref is the float64 reference of one row: it writes the normalised x
// into y (len(x)) and returns the row's mean (0 for RMSNorm) and rstd.
// The variance is two-pass, the mean of squared deviations. w and b may
// be nil.
func (o NormOp) Ref(y, x, w, b []float64, eps float64) (mean, rstd float64) {
	d, _ := o.Def()
	n := float64(len(x))
	if d.Centred {
		for _, v := range x {
			mean += v
		}
		mean /= n
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	rstd = 1 / math.Sqrt(ss/n+eps)
	for i, v := range x {
		r := (v - mean) * rstd
		if w != nil {
			r *= w[i]
		}
		if b != nil {
			r += b[i]
		}
		y[i] = r
	}
	return mean, rstd
}

// NormBackwarder is implemented by backends with a fused gradient of Norm.
type NormBackwarder interface {
	// NormBackward writes the gradients of Norm(op) given the gradient g of
	// its result [rows, n], its source x and the statistics stats it
	// saved: with xhat = (x - mean) * rstd and gw = g * weight (g when the
	// forward had no weight; weight.Buf nil),
	//
	//	dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))   (RMSNorm: no mean(gw) term)
	//	dweight = sum over rows of g * xhat, dbias = sum over rows of g.
	//
	// dx is [rows, n] and dweight, dbias [n], all of x's dtype; an output
	// whose Buf is nil is not wanted. F16 and BF16 compute in F32.
	NormBackward(op NormOp, dx, dweight, dbias, g, x, stats, weight Operand) error
}

// CheckNormBackward validates a NormBackward call; the pointers are nil
// for operands that are absent.
func CheckNormBackward(pkg string, op NormOp, dx, dweight, dbias *Arg, g, x, stats Arg, weight *Arg) error {
	def, ok := op.Def()
	if !ok {
		return errs.New(pkg, op.String()+"Backward", errs.ErrUnsupported, "unknown normalisation")
	}
	name := def.Name + "Backward"
	if err := CheckNorm(pkg, op, g, stats, x, weight, nil, 0); err != nil {
		return errs.Retag(pkg, name, err)
	}
	n := x.Shape[1]
	for i, p := range []*Arg{dx, dweight, dbias} {
		if p == nil {
			continue
		}
		want := []int{n}
		if i == 0 {
			want = x.Shape
		}
		if p.DType != x.DType || !slices.Equal(p.Shape, want) {
			return errs.New(pkg, name, errs.ErrShape, "%s must be %v %v, have %v %v", [3]string{"dx", "dweight", "dbias"}[i], x.DType, want, p.DType, p.Shape)
		}
	}
	if dbias != nil && def.Affine < 2 {
		return errs.New(pkg, name, errs.ErrValue, "takes no bias")
	}
	return nil
}
