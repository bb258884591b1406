package tensor_test

import (
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
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

// TestIndexOutOfRange: a bad index is an ErrAxis error naming it, on every
// device; on a GPU it is found by the kernel and surfaces at Err or at a
// readback of the result or of anything computed from it.
func TestIndexOutOfRange(t *testing.T) {
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 3, 2).To(dev)
		ok := tensor.FromSlice([]int64{2, 0}, 1, 2).To(dev)
		cases := []struct {
			name string
			f    func() *tensor.Tensor
			msg  string
		}{
			{"gather/past", func() *tensor.Tensor { return x.Gather(0, tensor.FromSlice([]int64{1, 3}, 1, 2).To(dev)) }, "index 3 out of range for axis 0 of extent 3"},
			{"gather/negative", func() *tensor.Tensor { return x.Gather(0, tensor.FromSlice([]int32{-1, 0}, 1, 2).To(dev)) }, "index -1 out of range"},
			{"gather/huge", func() *tensor.Tensor {
				return x.Gather(1, tensor.FromSlice([]int64{1 << 40, 0}, 1, 2).To(dev))
			}, "index 1099511627776 out of range"},
			{"gather/chained", func() *tensor.Tensor {
				return x.Gather(0, tensor.FromSlice([]int64{1, 7}, 1, 2).To(dev)).Exp().Sum()
			}, "index 7 out of range"},
			{"scatter", func() *tensor.Tensor {
				return x.ScatterAdd(0, tensor.FromSlice([]int64{0, 4}, 1, 2).To(dev), x.Narrow(0, 0, 1))
			}, "index 4 out of range"},
			{"indexselect", func() *tensor.Tensor { return x.IndexSelect(1, tensor.FromSlice([]int64{0, 2}, 2).To(dev)) }, "IndexSelect: index 2 out of range"},
		}
		for _, c := range cases {
			t.Run(dev.Name()+"/"+c.name, func(t *testing.T) {
				y := c.f()
				err := y.Err()
				if !errors.Is(err, tensor.ErrAxis) || !strings.Contains(err.Error(), c.msg) {
					t.Fatalf("Err = %v, want ErrAxis with %q", err, c.msg)
				}
				if _, err := y.Float64s(); !errors.Is(err, tensor.ErrAxis) {
					t.Fatalf("readback error %v, want ErrAxis", err)
				}
			})
		}
		t.Run(dev.Name()+"/readback-first", func(t *testing.T) {
			y := x.Gather(0, tensor.FromSlice([]int64{5, 0}, 1, 2).To(dev)).MulScalar(2)
			if _, err := y.Float64s(); !errors.Is(err, tensor.ErrAxis) {
				t.Fatalf("readback error %v, want ErrAxis", err)
			}
		})
		t.Run(dev.Name()+"/valid", func(t *testing.T) {
			got, err := x.Gather(0, ok).Float64s()
			if err != nil || !slices.Equal(got, []float64{5, 2}) {
				t.Fatalf("Gather = %v, %v; want [5 2]", got, err)
			}
		})
	}
}

// TestIndexBadArguments: malformed calls are typed errors naming the op.
func TestIndexBadArguments(t *testing.T) {
	x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	i2 := tensor.FromSlice([]int64{0, 1}, 1, 2)
	cases := []struct {
		name string
		got  *tensor.Tensor
		kind error
		msg  string
	}{
		{"gather rank", x.Gather(0, tensor.FromSlice([]int64{0}, 1)), tensor.ErrShape, "Gather"},
		{"gather dtype", x.Gather(0, tensor.FromSlice([]float32{0, 1}, 1, 2)), tensor.ErrDType, "i32 or i64"},
		{"gather axis", x.Gather(2, i2), tensor.ErrAxis, "Gather"},
		{"gather extent", x.Gather(0, tensor.FromSlice([]int64{0, 0, 0, 0}, 1, 4)), tensor.ErrShape, "exceed"},
		{"scatter dtype", x.ScatterAdd(0, i2, tensor.FromSlice([]float64{1, 2}, 1, 2)), tensor.ErrDType, "ScatterAdd"},
		{"scatter shape", x.ScatterAdd(0, i2, tensor.FromSlice([]float32{1, 2, 3}, 1, 3)), tensor.ErrShape, "ScatterAdd"},
		{"scatter bool", x.Gt(x).ScatterAdd(0, i2, tensor.FromSlice([]bool{true, false}, 1, 2)), tensor.ErrDType, "bool"},
		{"cumsum axis", x.CumSum(2), tensor.ErrAxis, "CumSum"},
		{"cumprod axis", x.CumProd(-3), tensor.ErrAxis, "CumProd"},
		{"topk k", func() *tensor.Tensor { v, _ := x.TopK(4, 1, true); return v }(), tensor.ErrValue, "k = 4"},
		{"topk negative k", func() *tensor.Tensor { _, i := x.TopK(-1, 1, true); return i }(), tensor.ErrValue, "TopK"},
		{"sort axis", func() *tensor.Tensor { v, _ := x.Sort(5, false); return v }(), tensor.ErrAxis, "Sort"},
		{"argsort released", func() *tensor.Tensor { y := x.Clone(); y.Release(); return y.ArgSort(0, false) }(), tensor.ErrReleased, ""},
	}
	for _, c := range cases {
		err := c.got.Err()
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v containing %q", c.name, err, c.kind, c.msg)
		}
	}
	for _, dev := range testDevices(t)[1:] {
		g := x.To(dev)
		if err := g.Gather(0, i2).Err(); !errors.Is(err, tensor.ErrDevice) {
			t.Errorf("indices on another device: %v, want ErrDevice", err)
		}
	}
}

// TestSortRanksAndEmpty: rank 0 and empty axes.
func TestSortRanksAndEmpty(t *testing.T) {
	for _, dev := range testDevices(t) {
		s := tensor.Scalar(float32(2.5)).To(dev)
		v, i := s.Sort(0, true)
		if got, err := v.Item(); err != nil || got != 2.5 {
			t.Errorf("%s: scalar Sort = %v, %v", dev.Name(), got, err)
		}
		if got, err := i.Item(); err != nil || got != 0 || i.DType() != dtype.I64 {
			t.Errorf("%s: scalar Sort index = %v, %v", dev.Name(), got, err)
		}
		e := tensor.Zeros(dtype.F32, 3, 0).To(dev)
		v, i = e.TopK(0, 1, true)
		if err := v.Err(); err != nil || !slices.Equal(v.Shape(), []int{3, 0}) || !slices.Equal(i.Shape(), []int{3, 0}) {
			t.Errorf("%s: empty TopK: %v %v %v", dev.Name(), err, v.Shape(), i.Shape())
		}
	}
}

// TestSortLongRows: rows longer than a GPU workgroup sorts at once (2048)
// go through the block-and-merge plan; ties and NaN included, both orders,
// along a strided axis.
func TestSortLongRows(t *testing.T) {
	for _, n := range []int{2049, 4096, 5000} {
		vals := make([]float32, 2*n)
		x := uint32(n)
		for i := range vals {
			x = x*1664525 + 1013904223
			vals[i] = float32(x>>24%97) - 40
			if x>>8%211 == 0 {
				vals[i] = float32(math.NaN())
			}
		}
		host := tensor.FromSlice(vals, n, 2) // sorted along axis 0: stride 2
		for _, dev := range testDevices(t) {
			for _, desc := range []bool{false, true} {
				v, i := host.To(dev).Sort(0, desc)
				gv, err := tensor.ToSlice[float32](v)
				if err != nil {
					t.Fatalf("%s n=%d: %v", dev.Name(), n, err)
				}
				gi, err := tensor.ToSlice[int64](i)
				if err != nil {
					t.Fatal(err)
				}
				for c := range 2 {
					line := make([]float64, n)
					for r := range n {
						line[r] = float64(vals[r*2+c])
					}
					for r, from := range stableOrder(line, desc) {
						w := line[from]
						g := float64(gv[r*2+c])
						if gi[r*2+c] != int64(from) || !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
							t.Fatalf("%s n=%d desc=%v col %d: element %d = (%v, %d), want (%v, %d)", dev.Name(), n, desc, c, r, g, gi[r*2+c], w, from)
						}
					}
				}
			}
		}
	}
}

// TestLongAxes: scans longer than one GPU dispatch walks (4096) continue
// from the previous dispatch's last element, and a float ScatterAdd with
// more than 4096 indices along the axis adds over several dispatches.
func TestLongAxes(t *testing.T) {
	const n = 10000
	xs := make([]float32, 2*n)
	is := make([]int32, 2*n)
	for i := range xs {
		xs[i] = float32(i%7) - 3
		is[i] = int32(i%5) - 2
	}
	wantF, wantI := make([]float64, 2*n), make([]float64, 2*n)
	for c := range 2 {
		accF, accI := 0.0, 0.0
		for r := range n {
			accF += float64(xs[r*2+c])
			accI += float64(is[r*2+c])
			wantF[r*2+c], wantI[r*2+c] = accF, accI
		}
	}
	idx := make([]int64, n*2)
	src := make([]float32, n*2)
	wantS := make([]float64, 3*2)
	for i := range idx {
		idx[i] = int64(i * 7 % 3) // row i/2, column i%2
		src[i] = float32(i%4) * 0.25
		wantS[int(idx[i])*2+i%2] += float64(src[i])
	}
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice(xs, n, 2).To(dev)
		check(t, x.CumSum(0), &nd{shape: []int{n, 2}, v: wantF}, dtype.F32, tol{0, 0})
		check(t, tensor.FromSlice(is, n, 2).To(dev).CumSum(0), &nd{shape: []int{n, 2}, v: wantI}, dtype.I64, tol{})
		z := tensor.Zeros(dtype.F32, 3, 2).To(dev)
		got := z.ScatterAdd(0, tensor.FromSlice(idx, n, 2).To(dev), tensor.FromSlice(src, n, 2).To(dev))
		check(t, got, &nd{shape: []int{3, 2}, v: wantS}, dtype.F32, tol{1e-6, 0})
	}
}

// TestIndexCheckConcurrent: goroutines reading one result with a pending
// index check all see the same error (the status is read once).
func TestIndexCheckConcurrent(t *testing.T) {
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice([]float32{1, 2, 3}, 3).To(dev)
		y := x.Gather(0, tensor.FromSlice([]int64{0, 9}, 2).To(dev)).AddScalar(1)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for g := range errs {
			wg.Go(func() {
				if g%2 == 0 {
					errs[g] = y.Err()
				} else {
					_, errs[g] = y.Float64s()
				}
			})
		}
		wg.Wait()
		for g, err := range errs {
			if !errors.Is(err, tensor.ErrAxis) || !strings.Contains(err.Error(), "index 9") {
				t.Errorf("%s goroutine %d: %v", dev.Name(), g, err)
			}
		}
	}
}

// TestScatterAddLongAxis: a float ScatterAdd into an axis longer than the
// GPU's deterministic loop handles (gpucore.ScatterLoopMax) adds with
// atomic exchanges; many indices collide on a few rows. Values are
// multiples of 1/4, so every order of addition gives the exact sum.
func TestScatterAddLongAxis(t *testing.T) {
	const rows, n = 100, 4000
	idx := make([]int32, n)
	src := make([]float32, n*3)
	want := make([]float64, rows*3)
	for i := range idx {
		idx[i] = int32(i * i % 7 * 13 % rows)
	}
	for i := range src {
		src[i] = float32(i%9-4) * 0.25
		want[int(idx[i/3])*3+i%3] += float64(src[i])
	}
	for _, dev := range testDevices(t) {
		ix := tensor.FromSlice(idx, n, 1).To(dev).BroadcastTo(n, 3)
		got := tensor.Zeros(dtype.F32, rows, 3).To(dev).ScatterAdd(0, ix, tensor.FromSlice(src, n, 3).To(dev))
		check(t, got, &nd{shape: []int{rows, 3}, v: want}, dtype.F32, tol{})
		// The gradient of an embedding lookup goes the same way.
		emb := tensor.RandN(dtype.F32, 4, rows, 3).To(dev).RequiresGrad()
		g, err := tensor.Grads(emb.IndexSelect(0, tensor.FromSlice(idx, n).To(dev)).Sum(), emb)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]float64, rows*3)
		for _, r := range idx {
			for c := range 3 {
				counts[int(r)*3+c]++
			}
		}
		check(t, g[0], &nd{shape: []int{rows, 3}, v: counts}, dtype.F32, tol{})
	}
}

// TestSortLongLineSpecials: CPU lines longer than the in-cache radix runs
// (64 Ki words), so most-significant-digit splits are taken, one line
// (sorted by all cores) and two strided lines (one core each), every
// dtype, both orders, with ±0, ±Inf, NaNs of both signs and many ties. The
// order and indices must be the stable float64 reference's, and every value
// the source element it names, sign of zero included (NumPy's sort keeps
// -0 and +0 in source order, being equal).
func TestSortLongLineSpecials(t *testing.T) {
	const n = 1<<17 + 5
	vals := make([]float32, 2*n)
	x := uint64(7)
	for i := range vals {
		x = x*6364136223846793005 + 1442695040888963407
		switch r := x >> 33; r % 16 {
		case 0:
			vals[i] = 0
		case 1:
			vals[i] = float32(math.Copysign(0, -1))
		case 2:
			vals[i] = float32(math.NaN())
			if r%32 >= 16 {
				vals[i] = -vals[i]
			}
		case 3:
			vals[i] = float32(math.Inf(1 - 2*int(r>>4%2)))
		case 4, 5, 6:
			vals[i] = float32(int(r>>4%200) - 100)
		default:
			vals[i] = float32(int64(r>>4%2000001)-1000000) / 4096
		}
	}
	cpu := testDevices(t)[0]
	dts := []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16, dtype.I32, dtype.U8}
	if raceEnabled {
		// The dtypes of up to 4 bytes share the packed sort's goroutines
		// and the 8-byte ones sortWide's: one of each is all the detector
		// watches (the float64 references are the test's time).
		dts = []dtype.DType{dtype.F32, dtype.F64}
	}
	for _, dt := range dts {
		for _, layout := range []string{"one line", "two strided lines"} {
			var x *tensor.Tensor
			lines := 1
			if layout == "one line" {
				x = tensor.FromSlice(vals[:n], n)
			} else {
				x, lines = tensor.FromSlice(vals, 2, n).Transpose(0, 1), 2 // [n, 2], axis 0 of stride 1 in a [2, n] buffer
			}
			x = x.Cast(dt).To(cpu)
			src, err := x.Cast(dtype.F64).Float64s()
			if err != nil {
				t.Fatal(err)
			}
			for _, desc := range []bool{false, true} {
				v, i := x.Sort(0, desc)
				gv, err := v.Cast(dtype.F64).Float64s()
				if err != nil {
					t.Fatalf("%v %s desc=%v: %v", dt, layout, desc, err)
				}
				gi, err := tensor.ToSlice[int64](i)
				if err != nil {
					t.Fatal(err)
				}
				for c := range lines {
					line := make([]float64, n)
					for r := range n {
						line[r] = src[r*lines+c]
					}
					for r, from := range stableOrder(line, desc) {
						w, g := line[from], gv[r*lines+c]
						same := g == w && math.Signbit(g) == math.Signbit(w) || math.IsNaN(g) && math.IsNaN(w)
						if gi[r*lines+c] != int64(from) || !same {
							t.Fatalf("%v %s desc=%v line %d: element %d = (%v, %d), want (%v, %d)", dt, layout, desc, c, r, g, gi[r*lines+c], w, from)
						}
					}
				}
			}
		}
	}
}
