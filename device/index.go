package device

import (
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// Indexing, scans and sorting along one axis. These are optional backend
// capabilities (a backend without them makes the tensor operations fail with
// ErrUnsupported); the CPU and WebGPU backends implement all three. Their
// argument rules are written once here (CheckGather, CheckScan, CheckSort)
// and every implementation calls them first.

// StatusLen is the number of I32 elements of an index status operand: a
// flag (nonzero once an out-of-range index was seen) and the low and high
// 32-bit words of one offending index, then a spare word.
const StatusLen = 4

// Indexer is implemented by backends that gather and scatter along an axis
// with the indices on the device, so no index is read back to the host.
//
// Index operands are I32 or I64. An index outside [0, extent) (negative ones
// included, as in PyTorch) is never followed: Gather writes 0 for it,
// ScatterAdd skips it, and either records it in status, an I32 operand of
// StatusLen elements the caller has zeroed: status[0] becomes 1 and
// status[1:3] the low and high words of one offending index. The caller
// reads status when it needs the result's values, so the fast path costs
// no synchronisation.
type Indexer interface {
	// Gather writes dst[p] = src[p with its axis coordinate replaced by
	// idx[p]]: torch.gather. dst and idx have one shape; src has the same
	// rank and, on every axis but axis, at least idx's extent.
	Gather(dst, src, idx, status Operand, axis int) error
	// ScatterAdd adds src[p] into dst[p with its axis coordinate replaced by
	// idx[p]] for every p of idx's shape: torch.scatter_add_ on dst, which
	// holds the initial values. src has idx's shape; dst the same rank and
	// at least idx's extent on every axis but axis. The order in which
	// colliding float additions happen is unspecified on a GPU.
	ScatterAdd(dst, idx, src, status Operand, axis int) error
}

// ScanOp names an inclusive scan.
type ScanOp uint8

// The scans.
const (
	CumSum ScanOp = iota
	CumProd
)

// String names the scan as the tensor method does.
func (o ScanOp) String() string {
	switch o {
	case CumSum:
		return "CumSum"
	case CumProd:
		return "CumProd"
	}
	return fmt.Sprintf("ScanOp(%d)", uint8(o))
}

// ScanResult is the dtype a scan of dt writes: floats keep their dtype,
// integers and Bool accumulate in I64 (NumPy's rule on 64-bit platforms).
func ScanResult(dt dtype.DType) dtype.DType {
	if dt.IsFloat() {
		return dt
	}
	return dtype.I64
}

// Scanner is implemented by backends with inclusive scans along an axis.
type Scanner interface {
	// Scan writes the inclusive running sum or product of src along axis
	// into dst, which has src's shape and the dtype ScanResult(src). A
	// reversed view of both scans from the end.
	Scan(op ScanOp, dst, src Operand, axis int) error
}

// Sorter is implemented by backends that sort along an axis.
type Sorter interface {
	// Sort writes src sorted along axis into vals (src's dtype) and the
	// source positions of the sorted elements into idx (I64); both have
	// src's shape, and every element of both is written (the caller need
	// not initialise them). The sort is stable; ascending order puts NaN
	// last, and descending is the reverse order with ties still in source
	// order (NaN first, as PyTorch). -0 and +0 are equal.
	Sort(vals, idx, src Operand, axis int, descending bool) error
}

// TopKer is implemented by backends that select the first k elements of
// each line's sort order without sorting the whole line (a CPU's partial
// selection; a GPU's sort is already parallel over the line).
type TopKer interface {
	// TopK writes the first k elements of Sorter's order along axis
	// (stable: ties in source order; NaN last ascending, first descending;
	// -0 equal to +0) into vals (src's dtype) and their source positions
	// into idx (I64); both have src's shape with extent k along axis, and
	// every element of both is written. A backend may decline a dtype or
	// a line length with ErrDType or ErrShape; the caller then sorts.
	TopK(vals, idx, src Operand, axis, k int, descending bool) error
}

// CheckTopK validates a TopK call.
func CheckTopK(pkg string, vals, idx, src Arg, axis, k int) error {
	if vals.DType != src.DType || idx.DType != dtype.I64 {
		return errs.New(pkg, "TopK", errs.ErrDType, "writes %v values and i64 indices for a %v source, have %v and %v", src.DType, src.DType, vals.DType, idx.DType)
	}
	if axis < 0 || axis >= len(src.Shape) {
		return errs.New(pkg, "TopK", errs.ErrAxis, "axis %d out of range for rank %d", axis, len(src.Shape))
	}
	if k < 0 || k > src.Shape[axis] {
		return errs.New(pkg, "TopK", errs.ErrValue, "k = %d out of range for an axis of extent %d", k, src.Shape[axis])
	}
	want := slices.Clone(src.Shape)
	want[axis] = k
	if !slices.Equal(vals.Shape, want) || !slices.Equal(idx.Shape, want) {
		return errs.New(pkg, "TopK", errs.ErrShape, "values %v and indices %v must have shape %v (the source's, k along axis %d)", vals.Shape, idx.Shape, want, axis)
	}
	return nil
}

// CheckGather validates a Gather (scatter false) or ScatterAdd (scatter
// true) call: data is src for Gather and dst for ScatterAdd, other is dst
// for Gather and src for ScatterAdd.
func CheckGather(pkg string, scatter bool, data, other, idx, status Arg, axis int) error {
	name, dataRole, otherRole := "Gather", "src", "dst"
	if scatter {
		name, dataRole, otherRole = "ScatterAdd", "dst", "src"
	}
	if idx.DType != dtype.I32 && idx.DType != dtype.I64 {
		return errs.New(pkg, name, errs.ErrDType, "indices must be i32 or i64, have %v", idx.DType)
	}
	if status.DType != dtype.I32 || !slices.Equal(status.Shape, []int{StatusLen}) {
		return errs.New(pkg, name, errs.ErrShape, "status must be an i32 vector of %d, have %v %v", StatusLen, status.DType, status.Shape)
	}
	if data.DType != other.DType {
		return errs.New(pkg, name, errs.ErrDType, "%s is %v and %s %v", dataRole, data.DType, otherRole, other.DType)
	}
	if !slices.Equal(other.Shape, idx.Shape) {
		return errs.New(pkg, name, errs.ErrShape, "%s shape %v differs from the indices' %v", otherRole, other.Shape, idx.Shape)
	}
	r := len(idx.Shape)
	if len(data.Shape) != r {
		return errs.New(pkg, name, errs.ErrShape, "%s has rank %d, indices rank %d", dataRole, len(data.Shape), r)
	}
	if axis < 0 || axis >= r {
		return errs.New(pkg, name, errs.ErrAxis, "axis %d out of range for rank %d", axis, r)
	}
	for i := range r {
		if i != axis && idx.Shape[i] > data.Shape[i] {
			return errs.New(pkg, name, errs.ErrShape, "indices %v exceed %s %v on axis %d", idx.Shape, dataRole, data.Shape, i)
		}
	}
	return nil
}

// CheckScan validates a Scan call.
func CheckScan(pkg string, op ScanOp, dst, src Arg, axis int) error {
	if op != CumSum && op != CumProd {
		return errs.New(pkg, op.String(), errs.ErrUnsupported, "unknown scan")
	}
	if !src.DType.Valid() || dst.DType != ScanResult(src.DType) {
		return errs.New(pkg, op.String(), errs.ErrDType, "a %v source scans into %v, destination is %v", src.DType, ScanResult(src.DType), dst.DType)
	}
	if !slices.Equal(dst.Shape, src.Shape) {
		return errs.New(pkg, op.String(), errs.ErrShape, "destination shape %v, source %v", dst.Shape, src.Shape)
	}
	if axis < 0 || axis >= len(src.Shape) {
		return errs.New(pkg, op.String(), errs.ErrAxis, "axis %d out of range for rank %d", axis, len(src.Shape))
	}
	return nil
}

// CheckSort validates a Sort call.
func CheckSort(pkg string, vals, idx, src Arg, axis int) error {
	if vals.DType != src.DType || idx.DType != dtype.I64 {
		return errs.New(pkg, "Sort", errs.ErrDType, "writes %v values and i64 indices for a %v source, have %v and %v", src.DType, vals.DType, idx.DType, src.DType)
	}
	if !slices.Equal(vals.Shape, src.Shape) || !slices.Equal(idx.Shape, src.Shape) {
		return errs.New(pkg, "Sort", errs.ErrShape, "values %v and indices %v must have the source's shape %v", vals.Shape, idx.Shape, src.Shape)
	}
	if axis < 0 || axis >= len(src.Shape) {
		return errs.New(pkg, "Sort", errs.ErrAxis, "axis %d out of range for rank %d", axis, len(src.Shape))
	}
	return nil
}
