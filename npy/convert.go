package npy

import (
	"encoding/binary"
	"math"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// Float64s returns the elements of a in C order, each converted to float64:
// exactly for every dtype except I64 values beyond ±2^53, which round to the
// nearest float64. Bool gives 0 or 1. It reports ErrDType for an invalid
// dtype and ErrValue when len(Data) does not match Shape.
func (a *Array) Float64s() ([]float64, error) {
	n, err := a.check("Float64s")
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	d, le := a.Data, binary.LittleEndian
	switch a.DType {
	case dtype.F32:
		for i := range out {
			out[i] = float64(math.Float32frombits(le.Uint32(d[4*i:])))
		}
	case dtype.F64:
		for i := range out {
			out[i] = math.Float64frombits(le.Uint64(d[8*i:]))
		}
	case dtype.F16:
		for i := range out {
			out[i] = float64(dtype.Float16(le.Uint16(d[2*i:])).Float32())
		}
	case dtype.BF16:
		for i := range out {
			out[i] = float64(dtype.BFloat16(le.Uint16(d[2*i:])).Float32())
		}
	case dtype.I32:
		for i := range out {
			out[i] = float64(int32(le.Uint32(d[4*i:])))
		}
	case dtype.I64:
		for i := range out {
			out[i] = float64(int64(le.Uint64(d[8*i:])))
		}
	case dtype.U8, dtype.Bool:
		for i := range out {
			out[i] = float64(d[i])
		}
	}
	return out, nil
}

// FromFloat64s builds an Array of dtype dt and the given shape from values in
// C order, rounding each to dt: to nearest (ties to even) for the float
// dtypes, nonzero to true for Bool. Integer dtypes need integral values in
// range; anything else (a fraction, NaN, overflow) is an ErrValue. It also
// reports ErrShape for a bad shape and ErrValue when len(v) does not match.
func FromFloat64s(dt dtype.DType, shape []int, v []float64) (*Array, error) {
	const op = "FromFloat64s"
	if !dt.Valid() {
		return nil, errs.New("npy", op, errs.ErrDType, "invalid dtype %v", dt)
	}
	n, err := layout.Numel(shape)
	if err != nil {
		return nil, errs.Retag("npy", op, err)
	}
	if len(v) != n {
		return nil, errs.New("npy", op, errs.ErrValue, "%d values for shape %v, want %d", len(v), shape, n)
	}
	size := dt.Size()
	data := make([]byte, n*size)
	le := binary.LittleEndian
	for i, x := range v {
		b := data[i*size:]
		switch dt {
		case dtype.F32:
			le.PutUint32(b, math.Float32bits(float32(x)))
		case dtype.F64:
			le.PutUint64(b, math.Float64bits(x))
		case dtype.F16:
			le.PutUint16(b, uint16(dtype.F16FromFloat64(x)))
		case dtype.BF16:
			le.PutUint16(b, uint16(dtype.BF16FromFloat64(x)))
		case dtype.Bool:
			if x != 0 {
				b[0] = 1
			}
		default:
			lo, hi := intRange(dt)
			if x != math.Trunc(x) || !(x >= lo && x <= hi) {
				return nil, errs.New("npy", op, errs.ErrValue, "value %v at %d does not fit %v", x, i, dt)
			}
			switch dt {
			case dtype.I32:
				le.PutUint32(b, uint32(int32(x)))
			case dtype.I64:
				le.PutUint64(b, uint64(int64(x)))
			case dtype.U8:
				b[0] = uint8(x)
			}
		}
	}
	return &Array{DType: dt, Shape: append([]int{}, shape...), Data: data}, nil
}

// intRange is the range of float64 values that convert exactly to dt.
func intRange(dt dtype.DType) (lo, hi float64) {
	switch dt {
	case dtype.I32:
		return math.MinInt32, math.MaxInt32
	case dtype.I64:
		// 2^63 is a float64 but not an int64; the largest below it is.
		return math.MinInt64, math.Nextafter(math.MaxInt64, 0)
	}
	return 0, math.MaxUint8
}
