package tensor_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// The composites of shape_ops.go against references written here as index
// loops over a row-major array (NumPy's definitions), on every device, on
// contiguous and strided inputs, in f32 and an integer dtype.

// arr is a row-major array with its shape, for the references.
type arr struct {
	shape []int
	v     []float64
}

func counting(shape ...int) arr {
	n := 1
	for _, d := range shape {
		n *= d
	}
	a := arr{shape: shape, v: make([]float64, n)}
	for i := range a.v {
		a.v[i] = float64(i + 1)
	}
	return a
}

// mapIdx builds an array of outShape whose element at idx is a's element
// at src(idx), or 0 where src reports false.
func (a arr) mapIdx(outShape []int, src func(idx []int) ([]int, bool)) arr {
	o := counting(outShape...)
	for i := range o.v {
		j, ok := src(unravel(i, outShape))
		o.v[i] = 0
		if ok {
			o.v[i] = a.v[ravel(j, a.shape)]
		}
	}
	return o
}

// shapeInputs gives each test's input on dev as a contiguous tensor and as
// the same values read through a transposed view.
func shapeInputs(a arr, dt dtype.DType, devName string, t *testing.T) map[string]*tensor.Tensor {
	t.Helper()
	out := map[string]*tensor.Tensor{}
	for _, dev := range testDevices(t) {
		if dev.Name() != devName {
			continue
		}
		x := tensor.FromSlice(slices.Clone(a.v), a.shape...).Cast(dt).To(dev)
		out["contiguous"] = x
		if r := len(a.shape); r >= 2 {
			// Store the transpose, read it back transposed: same values,
			// strided layout.
			perm := make([]int, r)
			for i := range perm {
				perm[i] = i
			}
			perm[r-1], perm[r-2] = r-2, r-1
			out["transposed"] = x.Permute(perm...).Contiguous().Permute(perm...)
		}
	}
	return out
}

func expect(t *testing.T, what string, got *tensor.Tensor, want arr) {
	t.Helper()
	if err := got.Err(); err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if !slices.Equal(got.Shape(), want.shape) {
		t.Errorf("%s: shape %v, want %v", what, got.Shape(), want.shape)
		return
	}
	v, err := got.Float64s()
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if !slices.Equal(v, want.v) {
		t.Errorf("%s: got %v, want %v", what, v, want.v)
	}
}

func TestShapeOps(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.I32} {
			a := counting(2, 3, 4)
			ins := shapeInputs(a, dt, dev.Name(), t)
			for view, x := range ins {
				name := func(op string) string { return fmt.Sprintf("%s %v %s %s", dev.Name(), dt, view, op) }
				// Flip
				for _, axes := range [][]int{{0}, {-1}, {0, 2}, nil} {
					flipped := map[int]bool{}
					for _, ax := range axes {
						flipped[(ax+3)%3] = true
					}
					if axes == nil {
						flipped = map[int]bool{0: true, 1: true, 2: true}
					}
					want := a.mapIdx(a.shape, func(idx []int) ([]int, bool) {
						j := slices.Clone(idx)
						for k := range j {
							if flipped[k] {
								j[k] = a.shape[k] - 1 - j[k]
							}
						}
						return j, true
					})
					expect(t, name(fmt.Sprintf("Flip%v", axes)), x.Flip(axes...), want)
				}
				// Roll along an axis: out[i] = in[(i - shift) mod d].
				for _, c := range []struct{ shift, axis int }{{1, 2}, {-1, 2}, {5, 1}, {-7, 0}, {0, 1}, {4, -1}} {
					ax := (c.axis + 3) % 3
					want := a.mapIdx(a.shape, func(idx []int) ([]int, bool) {
						j := slices.Clone(idx)
						d := a.shape[ax]
						j[ax] = ((idx[ax]-c.shift)%d + d) % d
						return j, true
					})
					expect(t, name(fmt.Sprintf("Roll(%d, %d)", c.shift, c.axis)), x.Roll(c.shift, c.axis), want)
				}
				// Roll flattened, NumPy's default.
				for _, shift := range []int{3, -5, 24, 0} {
					want := arr{shape: a.shape, v: make([]float64, len(a.v))}
					for i := range want.v {
						want.v[i] = a.v[((i-shift)%24+24)%24]
					}
					expect(t, name(fmt.Sprintf("Roll(%d)", shift)), x.Roll(shift), want)
				}
				// Roll over two axes by the same shift.
				want := a.mapIdx(a.shape, func(idx []int) ([]int, bool) {
					return []int{(idx[0] + 1) % 2, (idx[1] + 2) % 3, idx[2]}, true // shift 1: i-1 mod d
				})
				expect(t, name("Roll(1, 0, 1)"), x.Roll(1, 0, 1), want)
				// Tril/Triu over the last two axes, batched over the first.
				for _, k := range []int{0, 1, -1, 2, -3, 9, -9} {
					tri := func(keep func(r, c int) bool) arr {
						return a.mapIdx(a.shape, func(idx []int) ([]int, bool) { return idx, keep(idx[1], idx[2]) })
					}
					expect(t, name(fmt.Sprintf("Tril(%d)", k)), x.Tril(k), tri(func(r, c int) bool { return c-r <= k }))
					expect(t, name(fmt.Sprintf("Triu(%d)", k)), x.Triu(k), tri(func(r, c int) bool { return c-r >= k }))
				}
				// Tile and Repeat: out[idx] = in[idx mod shape], with padding.
				tile := func(reps []int) arr {
					rank := max(len(reps), 3)
					in := slices.Concat(make([]int, rank-3), a.shape)
					rs := slices.Concat(make([]int, rank-len(reps)), reps)
					out := make([]int, rank)
					for i := range rank {
						if i < rank-3 {
							in[i] = 1
						}
						if i < rank-len(reps) {
							rs[i] = 1
						}
						out[i] = in[i] * rs[i]
					}
					return a.mapIdx(out, func(idx []int) ([]int, bool) {
						j := make([]int, 3)
						for k := range 3 {
							j[k] = idx[k+rank-3] % a.shape[k]
						}
						return j, true
					})
				}
				for _, reps := range [][]int{{2}, {1, 2}, {2, 1, 3}, {2, 1, 1, 2}, {1, 0, 1}} {
					expect(t, name(fmt.Sprintf("Tile%v", reps)), x.Tile(reps...), tile(reps))
					if len(reps) >= 3 {
						expect(t, name(fmt.Sprintf("Repeat%v", reps)), x.Repeat(reps...), tile(reps))
					}
				}
				// RepeatInterleave: out[..., i, ...] = in[..., i / r, ...].
				for _, c := range []struct{ r, axis int }{{2, 0}, {3, 2}, {1, 1}, {0, 1}, {2, -2}} {
					ax := (c.axis + 3) % 3
					out := slices.Clone(a.shape)
					out[ax] *= c.r
					want := a.mapIdx(out, func(idx []int) ([]int, bool) {
						j := slices.Clone(idx)
						j[ax] /= c.r
						return j, true
					})
					expect(t, name(fmt.Sprintf("RepeatInterleave(%d, %d)", c.r, c.axis)), x.RepeatInterleave(c.r, c.axis), want)
				}
				// MaskedFill with a mask broadcast along the first axis.
				mvals := []bool{true, false, false, true, false, true, true, false, false, false, true, false}
				mask := tensor.FromSlice(mvals, 3, 4).To(dev)
				want = a.mapIdx(a.shape, func(idx []int) ([]int, bool) { return idx, true })
				for i := range want.v {
					if idx := unravel(i, a.shape); mvals[idx[1]*4+idx[2]] {
						want.v[i] = -5
					}
				}
				expect(t, name("MaskedFill"), x.MaskedFill(mask, -5), want)
				// Split and Chunk: consecutive pieces, views of x.
				for _, c := range []struct {
					sizes []int
					axis  int
				}{{[]int{1, 2}, 1}, {[]int{4}, 2}, {[]int{0, 3, 1}, -1}, {[]int{1, 1}, 0}} {
					ax := (c.axis + 3) % 3
					at := 0
					for i, p := range x.Split(c.sizes, c.axis) {
						out := slices.Clone(a.shape)
						out[ax] = c.sizes[i]
						off := at
						want := a.mapIdx(out, func(idx []int) ([]int, bool) {
							j := slices.Clone(idx)
							j[ax] += off
							return j, true
						})
						expect(t, name(fmt.Sprintf("Split(%v, %d)[%d]", c.sizes, c.axis, i)), p, want)
						at += c.sizes[i]
					}
				}
			}
		}
	}
}

// TestChunkSizes pins PyTorch's chunk sizes: ceil(d/n) each, the last
// shorter, and possibly fewer than n pieces.
func TestChunkSizes(t *testing.T) {
	for _, c := range []struct {
		d, n int
		want []int
	}{
		{6, 3, []int{2, 2, 2}}, {6, 4, []int{2, 2, 2}}, {7, 3, []int{3, 3, 1}}, {5, 5, []int{1, 1, 1, 1, 1}},
		{5, 8, []int{1, 1, 1, 1, 1}}, {10, 4, []int{3, 3, 3, 1}}, {0, 3, []int{0, 0, 0}}, {1, 1, []int{1}},
	} {
		x := tensor.Arange(dtype.F32, 0, float64(c.d), 1).Reshape(1, c.d)
		var got []int
		at := 0
		for _, p := range x.Chunk(c.n, 1) {
			if err := p.Err(); err != nil {
				t.Fatalf("Chunk(%d) of %d: %v", c.n, c.d, err)
			}
			got = append(got, p.Shape()[1])
			v, _ := p.Float64s()
			for i, e := range v {
				if e != float64(at+i) {
					t.Errorf("Chunk(%d) of %d: piece at %d holds %v", c.n, c.d, at, v)
					break
				}
			}
			at += p.Shape()[1]
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Chunk(%d) of extent %d: sizes %v, want %v", c.n, c.d, got, c.want)
		}
	}
}

// TestOneHot checks the encoding on every device and label dtype, the
// result dtype, and out-of-range labels.
func TestOneHot(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.I32, dtype.I64, dtype.U8} {
			if !computes(dev, dt) {
				continue
			}
			labels := tensor.FromSlice([]float64{2, 0, 3, 3, 1, 0}, 2, 3).Cast(dt).To(dev)
			got := tensor.OneHot(labels, 4)
			want := arr{shape: []int{2, 3, 4}, v: make([]float64, 24)}
			for i, l := range []int{2, 0, 3, 3, 1, 0} {
				want.v[i*4+l] = 1
			}
			if got.DType() != dtype.F32 {
				t.Errorf("%s OneHot dtype %v, want f32", dev.Name(), got.DType())
			}
			expect(t, dev.Name()+" OneHot "+dt.String(), got, want)
			expect(t, dev.Name()+" OneHot transposed "+dt.String(), tensor.OneHot(labels.T(), 4),
				arr{shape: []int{3, 2, 4}, v: want.mapIdx([]int{3, 2, 4}, func(idx []int) ([]int, bool) { return []int{idx[1], idx[0], idx[2]}, true }).v})
			b := labels.OneHotAs(5, dtype.Bool)
			if b.DType() != dtype.Bool || !slices.Equal(b.Shape(), []int{2, 3, 5}) {
				t.Errorf("%s OneHotAs(5, bool): %v %v %v", dev.Name(), b.DType(), b.Shape(), b.Err())
			}
			for _, c := range []struct {
				labels  []float64
				classes int
			}{{[]float64{0, 4}, 4}, {[]float64{-1, 2}, 4}, {[]float64{0}, 0}} {
				if dt == dtype.U8 && c.labels[0] < 0 {
					continue
				}
				l := tensor.FromSlice(c.labels).Cast(dt).To(dev)
				if err := tensor.OneHot(l, c.classes).Err(); !errors.Is(err, tensor.ErrValue) {
					t.Errorf("%s OneHot(%v, %d): %v, want ErrValue", dev.Name(), c.labels, c.classes, err)
				}
			}
		}
	}
	// 300 classes from u8 labels (the comparison runs in i32).
	got, err := tensor.OneHot(tensor.FromSlice([]uint8{255}), 300).Float64s()
	if err != nil || len(got) != 300 || got[255] != 1 || slices.Index(got, 1) != 255 {
		t.Errorf("OneHot(u8 255, 300): %v", err)
	}
}

// TestShapeOpsViews: Flip, Split and Chunk share storage (views); the
// others copy.
func TestShapeOpsViews(t *testing.T) {
	x := tensor.Arange(dtype.F32, 0, 24, 1).Reshape(2, 3, 4)
	for name, v := range map[string]*tensor.Tensor{
		"Flip": x.Flip(1), "Split": x.Split([]int{1, 3}, 2)[1], "Chunk": x.Chunk(2, 0)[1],
	} {
		if err := v.Err(); err != nil {
			t.Fatal(err)
		}
		if !tensor.SharesStorage(x, v) {
			t.Errorf("%s copied; want a view", name)
		}
	}
	if st := x.Flip(2).Strides(); st[2] != -1 {
		t.Errorf("Flip(2) strides %v, want a negative innermost stride", st)
	}
}

// TestShapeOpsBadInput: typed errors, never panics.
func TestShapeOpsBadInput(t *testing.T) {
	x := tensor.Ones(dtype.F32, 2, 3)
	v := tensor.Ones(dtype.F32, 3)
	first := func(ts []*tensor.Tensor) *tensor.Tensor { return ts[0] }
	for _, c := range []struct {
		name string
		got  *tensor.Tensor
		kind error
	}{
		{"Flip axis", x.Flip(2), tensor.ErrAxis},
		{"Flip repeated", x.Flip(0, -2), tensor.ErrAxis},
		{"Split sum", first(x.Split([]int{1, 1}, 1)), tensor.ErrShape},
		{"Split negative", first(x.Split([]int{4, -1}, 1)), tensor.ErrShape},
		{"Split none", first(x.Split(nil, 1)), tensor.ErrValue},
		{"Split axis", first(x.Split([]int{2}, 5)), tensor.ErrAxis},
		{"Chunk zero", first(x.Chunk(0, 1)), tensor.ErrValue},
		{"Chunk axis", first(x.Chunk(2, -3)), tensor.ErrAxis},
		{"Roll axis", x.Roll(1, 2), tensor.ErrAxis},
		{"Tril 1-D", v.Tril(0), tensor.ErrShape},
		{"Triu 0-D", tensor.Scalar(float32(1)).Triu(0), tensor.ErrShape},
		{"Tile negative", x.Tile(-1, 2), tensor.ErrValue},
		{"Repeat too few", x.Repeat(2), tensor.ErrShape},
		{"Tile huge", x.Tile(1<<40, 1<<40), tensor.ErrShape},
		{"RepeatInterleave negative", x.RepeatInterleave(-1, 0), tensor.ErrValue},
		{"RepeatInterleave huge", x.RepeatInterleave(1<<62, 0), tensor.ErrShape},
		{"MaskedFill float mask", x.MaskedFill(x, 1), tensor.ErrDType},
		{"MaskedFill shapes", x.MaskedFill(tensor.Ones(dtype.Bool, 4), 1), tensor.ErrShape},
		{"OneHot float", tensor.OneHot(x, 3), tensor.ErrDType},
		{"OneHot negative classes", tensor.OneHot(tensor.Ones(dtype.I32, 2), -2), tensor.ErrValue},
		{"Flip released", released().Flip(), tensor.ErrReleased},
	} {
		if err := c.got.Err(); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
		}
	}
	// Every piece of a failed Split carries the error.
	for i, p := range x.Split([]int{1, 1, 5}, 1) {
		if p.Err() == nil {
			t.Errorf("failed Split piece %d has no error", i)
		}
	}
}

// ExampleTensor_Tril builds a causal attention mask: position i may see
// positions j <= i.
func ExampleTensor_Tril() {
	scores := tensor.Zeros(dtype.F32, 3, 3)
	mask := tensor.Ones(dtype.Bool, 3, 3).Triu(1) // true above the diagonal
	fmt.Println(tensor.ToSlice[float32](scores.MaskedFill(mask, -1e9)))
	// Output:
	// [0 -1e+09 -1e+09 0 0 -1e+09 0 0 0] <nil>
}

// ExampleTensor_Repeat contrasts the two repetitions: Repeat (PyTorch's
// Tensor.repeat, NumPy's tile) repeats the whole tensor, RepeatInterleave
// (NumPy's repeat) each element.
func ExampleTensor_Repeat() {
	x := tensor.FromSlice([]float32{1, 2})
	fmt.Println(tensor.ToSlice[float32](x.Repeat(2)))
	fmt.Println(tensor.ToSlice[float32](x.RepeatInterleave(2, 0)))
	// Output:
	// [1 2 1 2] <nil>
	// [1 1 2 2] <nil>
}

// TestGradShapeOps: finite-difference checks of the composites, which are
// differentiated through the rules of the views, Concat and Where they are
// built from.
func TestGradShapeOps(t *testing.T) {
	mask := []bool{true, false, false, true, false, true}
	checkGradCases(t, []gradCase{
		{name: "Flip", in: []gcIn{gstd(2, 3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Flip(0, 2) }},
		{name: "Roll", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Roll(-3, 1) }},
		{name: "Roll-flat", in: []gcIn{gstd(3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].T().Roll(5) }},
		{name: "Tril", in: []gcIn{gstd(2, 3, 4)}, f: func(x gcTs) *tensor.Tensor { return x[0].Tril(1) }},
		{name: "Triu", in: []gcIn{gstd(3, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].Triu(-1) }},
		{name: "MaskedFill", in: []gcIn{gstd(2, 2, 3)}, f: func(x gcTs) *tensor.Tensor {
			m := tensor.FromSlice(mask, 2, 3).To(x[0].Device())
			return x[0].MaskedFill(m, 0.5)
		}},
		{name: "Tile", in: []gcIn{gstd(2, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].Tile(2, 1, 2) }},
		{name: "Repeat", in: []gcIn{gstd(2, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].T().Repeat(1, 3) }},
		{name: "RepeatInterleave", in: []gcIn{gstd(2, 3)}, f: func(x gcTs) *tensor.Tensor { return x[0].RepeatInterleave(3, 1) }},
		{name: "Split", in: []gcIn{gstd(2, 5)}, f: func(x gcTs) *tensor.Tensor {
			p := x[0].Split([]int{2, 3}, 1)
			return p[1].Sum(1).Mul(p[0].Sum(1))
		}},
		{name: "Chunk", in: []gcIn{gstd(5, 2)}, f: func(x gcTs) *tensor.Tensor { return x[0].Chunk(2, 0)[1] }},
		{name: "OneHot-weights", in: []gcIn{gstd(4)}, f: func(x gcTs) *tensor.Tensor {
			labels := tensor.FromSlice([]int32{3, 0, 3}).To(x[0].Device())
			return labels.OneHotAs(4, x[0].DType()).Matmul(x[0])
		}},
	})
}
