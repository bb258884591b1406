package tensor_test

import (
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// i64Values are I64 operands that exercise both 32-bit halves of the GPU's
// (lo, hi) pairs: zero, ±1, the int64 and int32 limits, values either
// side of 2^32 (a carry or borrow between the halves), large magnitudes
// of both signs and numbers that divide each other.
var i64Values = []int64{
	0, 1, -1, 2, -2, 3, 7, -7, 1000003,
	math.MaxInt32, math.MinInt32, 1 << 32, 1<<32 - 1, -(1 << 32), -(1 << 32) + 1,
	1<<40 + 12345, -(1 << 40) - 999, 6 << 33, -(3 << 35),
	math.MaxInt64, math.MinInt64, math.MinInt64 + 1, math.MaxInt64 - 6,
}

// TestI64Elementwise checks every elementwise op the table defines for
// integers on I64 operands, on every device, against the op table's
// int64 rule applied in Go (wrapping, NumPy's zero-divisor results):
// unary ops over i64Values, binary ops over all their pairs (a [n,1] by
// [1,n] broadcast), and Where. The GPUs compute I64 as pairs of u32
// words (shaders/int64.wgsl), so this is where their carries, signed
// comparisons and 64-bit division meet an independent reference. Div of
// integers is true division in the tensor layer (tested with the floats)
// and Pow takes non-negative exponents below 70.
func TestI64Elementwise(t *testing.T) {
	n := len(i64Values)
	for _, dev := range testDevices(t) {
		if !computes(dev, dtype.I64) {
			t.Errorf("%s does not compute I64", dev.Name())
			continue
		}
		x := tensor.FromSlice(i64Values, n).To(dev)
		for _, op := range device.UnaryOps() {
			def, _ := op.Def()
			if def.Int == nil || !def.Accepts.Has(dtype.I64) {
				continue
			}
			got := x.Unary(op)
			want := make([]int64, n)
			for i, v := range i64Values {
				want[i] = def.Int(v)
			}
			checkI64(t, dev.Name()+" "+def.Name, got, want, def.Predicate)
		}
		a := tensor.FromSlice(i64Values, n, 1).To(dev)
		for _, op := range device.BinaryOps() {
			def, _ := op.Def()
			if def.Int == nil || !def.Accepts.Has(dtype.I64) || op == device.Div {
				continue
			}
			bv := i64Values
			if op == device.Pow {
				bv = make([]int64, n)
				for i, v := range i64Values {
					bv[i] = int64(uint64(v) % 70)
				}
			}
			b := tensor.FromSlice(bv, 1, n).To(dev)
			got := tensor.BinaryTensors(op, a, b)
			want := make([]int64, 0, n*n)
			for _, u := range i64Values {
				for _, v := range bv {
					want = append(want, def.Int(u, v))
				}
			}
			checkI64(t, dev.Name()+" "+def.Name, got, want, def.Compare)
		}
		cond := tensor.FromSlice([]bool{true, false}, 1, 2).To(dev)
		pos := tensor.FromSlice(i64Values, n, 1).To(dev)
		neg := tensor.FromSlice(i64Values, n, 1).To(dev).Neg()
		w := tensor.Where(cond, pos, neg)
		want := make([]int64, 0, 2*n)
		for _, v := range i64Values {
			want = append(want, v, -v)
		}
		checkI64(t, dev.Name()+" Where", w, want, false)
	}
}

// checkI64 compares an I64 (or, for a predicate, Bool) result exactly
// with want.
func checkI64(t *testing.T, name string, got *tensor.Tensor, want []int64, predicate bool) {
	t.Helper()
	if predicate {
		b, err := tensor.ToSlice[bool](got)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		for i, v := range b {
			if (want[i] != 0) != v {
				t.Errorf("%s: element %d = %v, want %v", name, i, v, want[i] != 0)
				return
			}
		}
		return
	}
	g, err := tensor.ToSlice[int64](got)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if len(g) != len(want) {
		t.Errorf("%s: %d elements, want %d", name, len(g), len(want))
		return
	}
	for i := range g {
		if g[i] != want[i] {
			t.Errorf("%s: element %d (operands %d, %d) = %d, want %d", name, i, i/len(i64Values), i%len(i64Values), g[i], want[i])
			return
		}
	}
}

// TestI64Sort checks Sort, ArgSort and TopK of I64 on every device against
// a stable sort in Go: on the GPUs, whose sort keys are 32-bit, I64 is
// sorted as two stable passes over its 32-bit digits (sortI64Digits), so
// the values repeat (ties must keep source order) and differ in either
// word, in both directions and along both axes of a matrix.
func TestI64Sort(t *testing.T) {
	const rows, cols = 3, 40
	vals := make([]int64, rows*cols)
	for i := range vals {
		vals[i] = i64Values[(i*7)%len(i64Values)]
		if i%5 == 0 {
			vals[i] = i64Values[i%4] // extra ties among the small values
		}
	}
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice(vals, rows, cols).To(dev)
		for _, axis := range []int{0, 1} {
			for _, desc := range []bool{false, true} {
				v, idx := x.Sort(axis, desc)
				gotV, err := tensor.ToSlice[int64](v)
				if err != nil {
					t.Fatalf("%s Sort axis %d: %v", dev.Name(), axis, err)
				}
				gotI, err := tensor.ToSlice[int64](idx)
				if err != nil {
					t.Fatalf("%s Sort indices axis %d: %v", dev.Name(), axis, err)
				}
				lines, n := cols, rows // the sorted lines and their length
				at := func(line, k int) int { return k*cols + line }
				if axis == 1 {
					lines, n = rows, cols
					at = func(line, k int) int { return line*cols + k }
				}
				for line := range lines {
					perm := make([]int, n)
					for k := range perm {
						perm[k] = k
					}
					sort.SliceStable(perm, func(a, b int) bool {
						va, vb := vals[at(line, perm[a])], vals[at(line, perm[b])]
						if desc {
							return va > vb
						}
						return va < vb
					})
					for k, p := range perm {
						if gotI[at(line, k)] != int64(p) || gotV[at(line, k)] != vals[at(line, p)] {
							t.Fatalf("%s Sort axis %d desc %v line %d position %d: (%d from %d), want (%d from %d)",
								dev.Name(), axis, desc, line, k, gotV[at(line, k)], gotI[at(line, k)], vals[at(line, p)], p)
						}
					}
				}
			}
		}
		top, ti := x.TopK(3, 1, true)
		gotT, err := tensor.ToSlice[int64](top)
		if err != nil {
			t.Fatalf("%s TopK: %v", dev.Name(), err)
		}
		gotTI, _ := tensor.ToSlice[int64](ti)
		for r := range rows {
			row := slices.Clone(vals[r*cols : (r+1)*cols])
			slices.Sort(row)
			for k := range 3 {
				if want := row[cols-1-k]; gotT[r*3+k] != want || vals[r*cols+int(gotTI[r*3+k])] != want {
					t.Fatalf("%s TopK row %d: %v at %v", dev.Name(), r, gotT[r*3:r*3+3], gotTI[r*3:r*3+3])
				}
			}
		}
	}
}
