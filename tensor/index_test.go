package tensor_test

import (
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// Conformance of Gather, ScatterAdd, CumSum, CumProd, Sort, ArgSort and
// TopK on every device and view kind, against float64 references.

// refLines applies f to every line of x along axis (f returns the new line
// of the same length), giving an nd of x's shape.
func refLines(x *nd, axis int, f func(line []float64) []float64) *nd {
	out := newND(x.shape)
	if len(x.shape) == 0 {
		copy(out.v, f(slices.Clone(x.v)))
		return out
	}
	n := x.shape[axis]
	for flat := range x.v {
		idx := unravel(flat, x.shape)
		if idx[axis] != 0 {
			continue
		}
		line := make([]float64, n)
		for i := range n {
			idx[axis] = i
			line[i] = x.at(idx)
		}
		res := f(line)
		for i := range n {
			idx[axis] = i
			out.v[ravel(idx, x.shape)] = res[i]
		}
	}
	return out
}

// sortKey orders like NumPy's sort: NaN after everything, -0 == +0.
func stableOrder(line []float64, descending bool) []int {
	ord := make([]int, len(line))
	for i := range ord {
		ord[i] = i
	}
	less := func(a, b float64) bool {
		if math.IsNaN(a) {
			return false
		}
		return math.IsNaN(b) || a < b
	}
	sort.SliceStable(ord, func(i, j int) bool {
		a, b := line[ord[i]], line[ord[j]]
		if descending {
			return less(b, a)
		}
		return less(a, b)
	})
	return ord
}

func refCum(prod bool) func([]float64) []float64 {
	return func(line []float64) []float64 {
		out := make([]float64, len(line))
		acc := 0.0
		if prod {
			acc = 1
		}
		for i, v := range line {
			if prod {
				acc *= v
			} else {
				acc += v
			}
			out[i] = acc
		}
		return out
	}
}

func scanDT(dt dtype.DType) dtype.DType {
	if dt.IsFloat() {
		return dt
	}
	return dtype.I64
}

func i64(dtype.DType) dtype.DType { return dtype.I64 }

func TestConformanceIndexing(t *testing.T) {
	withBool := append(slices.Clone(numeric), dtype.Bool)
	shapes := [][]int{{}, {1}, {0}, {7}, {3, 4}, {2, 3, 5}, {4, 0, 2}}
	var cases []confCase
	for _, axis := range []int{0, -1} {
		for _, in := range operandsFor(shapes, -3, 3) {
			ax := axis
			rank := len(in[0].shape)
			norm := func() int {
				if ax < 0 {
					return max(rank, 1) + ax
				}
				return ax
			}
			cases = append(cases, confCase{
				name: "CumSum", dtypes: withBool, ins: in, class: reduceClass, outDT: scanDT,
				run: func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].CumSum(ax) },
				ref: func(xs []*nd, dt dtype.DType) *nd { return refLines(xs[0], norm(), refCum(false)) },
			}, confCase{
				name: "Sort", dtypes: withBool, ins: in,
				run: func(ts []*tensor.Tensor) *tensor.Tensor { v, _ := ts[0].Sort(ax, false); return v },
				ref: func(xs []*nd, dt dtype.DType) *nd {
					return refLines(xs[0], norm(), func(l []float64) []float64 {
						out := []float64{}
						for _, i := range stableOrder(l, false) {
							out = append(out, l[i])
						}
						return out
					})
				},
			})
			for _, desc := range []bool{false, true} {
				cases = append(cases, confCase{
					name: "ArgSort", dtypes: withBool, ins: in, outDT: i64,
					run: func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].ArgSort(ax, desc) },
					ref: func(xs []*nd, dt dtype.DType) *nd {
						return refLines(xs[0], norm(), func(l []float64) []float64 {
							out := []float64{}
							for _, i := range stableOrder(l, desc) {
								out = append(out, float64(i))
							}
							return out
						})
					},
				})
			}
		}
		for _, in := range operandsFor([][]int{{5}, {3, 4}, {2, 3, 4}}, -1.5, 1.5) {
			ax := axis
			rank := len(in[0].shape)
			cases = append(cases, confCase{
				name: "CumProd", dtypes: floats, ins: in, class: reduceClass,
				run: func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].CumProd(ax) },
				ref: func(xs []*nd, dt dtype.DType) *nd {
					return refLines(xs[0], (rank+ax)%rank, refCum(true))
				},
			})
		}
	}
	// Integer CumProd: small factors, exact in int64.
	cases = append(cases, confCase{
		name: "CumProd", dtypes: []dtype.DType{dtype.I32, dtype.I64, dtype.U8}, outDT: scanDT,
		ins: []operand{{shape: []int{3, 6}, view: transposed, lo: 0, hi: 4}},
		run: func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0].CumProd(1) },
		ref: func(xs []*nd, dt dtype.DType) *nd { return refLines(xs[0], 1, refCum(true)) },
	})
	// TopK: values and indices (indices encoded after the values).
	for _, largest := range []bool{true, false} {
		cases = append(cases, confCase{
			name: "TopK", dtypes: numeric, ins: []operand{{shape: []int{4, 6}, view: transposed, lo: -2, hi: 2}},
			run: func(ts []*tensor.Tensor) *tensor.Tensor {
				v, i := ts[0].TopK(3, 1, largest)
				return tensor.Concat([]*tensor.Tensor{v.Cast(dtype.F64), i.Cast(dtype.F64)}, 1)
			},
			outDT: func(dtype.DType) dtype.DType { return dtype.F64 },
			ref: func(xs []*nd, dt dtype.DType) *nd {
				out := newND([]int{4, 6})
				for r := range 4 {
					line := xs[0].v[r*6 : r*6+6]
					ord := stableOrder(line, largest)
					for j := range 3 {
						out.v[r*6+j] = line[ord[j]]
						out.v[r*6+3+j] = float64(ord[j])
					}
				}
				return out
			},
		})
	}
	// Gather and ScatterAdd with fixed indices (repeats included).
	idx := []int64{2, 0, 2, 1, 3, 3, 0, 0}
	cases = append(cases, confCase{
		name: "Gather", dtypes: withBool, ins: []operand{{shape: []int{4, 3}, view: transposed, lo: -3, hi: 3}},
		run: func(ts []*tensor.Tensor) *tensor.Tensor {
			return ts[0].Gather(0, tensor.FromSlice(idx, 4, 2).To(ts[0].Device()))
		},
		ref: func(xs []*nd, dt dtype.DType) *nd {
			out := newND([]int{4, 2})
			for i := range 4 {
				for j := range 2 {
					out.v[i*2+j] = xs[0].v[int(idx[i*2+j])*3+j]
				}
			}
			return out
		},
	}, confCase{
		name: "Gather/rev", dtypes: withBool, ins: []operand{{shape: []int{2, 5}, view: reversed, lo: -3, hi: 3}},
		run: func(ts []*tensor.Tensor) *tensor.Tensor {
			return ts[0].Gather(-1, tensor.FromSlice([]int32{4, 4, 0, 1, 2, 3}, 2, 3).To(ts[0].Device()))
		},
		ref: func(xs []*nd, dt dtype.DType) *nd {
			ix := []int{4, 4, 0, 1, 2, 3}
			out := newND([]int{2, 3})
			for i := range 2 {
				for j := range 3 {
					out.v[i*3+j] = xs[0].v[i*5+ix[i*3+j]]
				}
			}
			return out
		},
	}, confCase{
		name: "ScatterAdd", dtypes: numeric, class: reduceClass,
		ins: []operand{{shape: []int{4, 3}, view: transposed, lo: 0, hi: 3}, {shape: []int{4, 2}, view: narrowed, lo: 0, hi: 3}},
		run: func(ts []*tensor.Tensor) *tensor.Tensor {
			return ts[0].ScatterAdd(0, tensor.FromSlice(idx, 4, 2).To(ts[0].Device()), ts[1])
		},
		ref: func(xs []*nd, dt dtype.DType) *nd {
			out := &nd{shape: []int{4, 3}, v: slices.Clone(xs[0].v)}
			for i := range 4 {
				for j := range 2 {
					out.v[int(idx[i*2+j])*3+j] += xs[1].v[i*2+j]
				}
			}
			if dt == dtype.U8 {
				for i := range out.v {
					out.v[i] = math.Mod(out.v[i], 256)
				}
			}
			return out
		},
	})
	runTable(t, cases)
}
