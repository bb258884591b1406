package gpucore

import (
	"slices"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// StorableDTypes are the dtypes a GPU device built on this core holds,
// copies and casts (its Info.DTypes); ComputeDTypes those its kernels
// compute with (Info.Compute). I64 is held and computed as (lo, hi) pairs
// of u32 words (shaders/int64.wgsl), since the kernel source has no 64-bit
// integers. The one kernel source (WGSL, and the GLSL rendered from it)
// has no f64 or bf16.
var (
	StorableDTypes = []dtype.DType{dtype.F32, dtype.F16, dtype.I32, dtype.I64, dtype.U8, dtype.Bool}
	ComputeDTypes  = []dtype.DType{dtype.F32, dtype.F16, dtype.I32, dtype.I64, dtype.U8, dtype.Bool}
)

// CheckStorable reports, as an error of p's backend, whether a buffer of
// dt can live on the device.
func (p *Planner) CheckStorable(op string, dt dtype.DType) error {
	switch {
	case slices.Contains(StorableDTypes, dt):
		return nil
	case dt == dtype.F64 || dt == dtype.BF16:
		return p.errorf(op, errs.ErrDType, "%s is not supported on %s (its kernels have no %s); Cast to f32 first", dt, p.Display, dt)
	}
	return p.errorf(op, errs.ErrDType, "invalid dtype %s", dt)
}
