package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// TestReduceColumns checks the column path of Sum and Mean (reduced
// elements of neighbouring outputs adjacent in memory: a bias gradient's
// sum over the batch) against a float64 reference, and bit for bit
// against the same reduction of a copy laid out so that it takes the
// one-output-at-a-time strided path: every other element of a buffer twice
// the size, so neighbouring outputs are not adjacent.
func TestReduceColumns(t *testing.T) {
	d := New()
	cases := []struct {
		shape []int // the source's shape
		from  []int // the shape of the storage it is narrowed from (nil: contiguous)
		axes  []int
		flip  bool // axis 0 walked backwards (a negative stride)
	}{
		{[]int{128, 256}, nil, []int{0}, false},
		{[]int{3, 700}, nil, []int{0}, false},                  // more outputs than one chunk holds
		{[]int{4, 6, 33}, nil, []int{0, 1}, false},             // reduced axes merged into one
		{[]int{4, 6, 33}, []int{4, 9, 40}, []int{0, 1}, false}, // narrowed: rows of 6 under an outer axis of 4
		{[]int{5, 3, 17}, nil, []int{0}, false},                // a kept axis above the columns
		{[]int{40, 70}, nil, []int{0}, true},                   // rows summed from the last
		{[]int{6, 50, 45}, nil, []int{1}, false},               // blocks of 32 and 8 columns and a tail of 5
	}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
		for _, op := range []device.ReduceOp{device.Sum, device.Mean} {
			for _, c := range cases {
				name := fmt.Sprintf("%v/%v/%v/axes=%v", dt, op, c.shape, c.axes)
				from := c.from
				if from == nil {
					from = c.shape
				}
				full := contiguous(from...)
				src := full
				src.Shape = c.shape // the leading corner of the storage
				if c.flip {
					var err error
					if src, err = src.Slice(0, -1, -c.shape[0]-1, -1); err != nil {
						t.Fatal(err)
					}
				}
				sb, _ := d.Alloc(dt, full.Numel())
				rng := rand.New(rand.NewPCG(3, uint64(full.Numel())))
				for i := range full.Numel() {
					setF(sb.(*Buffer), i, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(7)-3)))
				}
				var outShape []int
				red := map[int]bool{}
				for _, a := range c.axes {
					red[a] = true
				}
				for i, n := range c.shape {
					if !red[i] {
						outShape = append(outShape, n)
					}
				}
				ol := contiguous(outShape...)
				got, _ := d.Alloc(dt, ol.Numel())
				if err := d.Reduce(op, device.Operand{Buf: got, Layout: ol}, device.Operand{Buf: sb, Layout: src}, c.axes); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				// The same values spread out: one strided walk per output.
				r := len(c.shape)
				cm := contiguous(c.shape...)
				for i := range cm.Strides {
					cm.Strides[i] *= 2
				}
				cb, _ := d.Alloc(dt, 2*cm.Numel())
				if err := d.Copy(device.Operand{Buf: cb, Layout: cm}, device.Operand{Buf: sb, Layout: src}); err != nil {
					t.Fatal(err)
				}
				want, _ := d.Alloc(dt, ol.Numel())
				if err := d.Reduce(op, device.Operand{Buf: want, Layout: ol}, device.Operand{Buf: cb, Layout: cm}, c.axes); err != nil {
					t.Fatal(err)
				}
				// A float64 reference for each output.
				ref := make([]float64, ol.Numel())
				cnt := make([]int, ol.Numel())
				mag := make([]float64, ol.Numel()) // sum |x|: the reference's own error is within 1e-16 of it
				idx := make([]int, r)
				for range src.Numel() {
					pos, o := src.Offset, 0
					for i := range r {
						pos += idx[i] * src.Strides[i]
						if !red[i] {
							o = o*c.shape[i] + idx[i]
						}
					}
					ref[o] += getF(sb.(*Buffer), pos)
					mag[o] += math.Abs(getF(sb.(*Buffer), pos))
					cnt[o]++
					for i := r - 1; i >= 0; i-- {
						if idx[i]++; idx[i] < c.shape[i] {
							break
						}
						idx[i] = 0
					}
				}
				tol := map[dtype.DType]float64{dtype.F32: 1e-6, dtype.F64: 1e-13}[dt]
				for o := range ref {
					if op == device.Mean {
						ref[o] /= float64(cnt[o])
						mag[o] /= float64(cnt[o])
					}
					g, w := getF(got.(*Buffer), o), getF(want.(*Buffer), o)
					if math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("%s: output %d = %v, the strided walk gives %v", name, o, g, w)
					}
					if math.Abs(g-ref[o]) > tol*math.Max(1, mag[o]) {
						t.Fatalf("%s: output %d = %v, want %v", name, o, g, ref[o])
					}
				}
				for _, b := range []device.Buffer{sb, got, cb, want} {
					d.Free(b)
				}
			}
		}
	}
}

// TestExtremeColumns checks the column path of Max and Min (extremeCols)
// against a reference that folds each output's elements in storage order,
// keeping the first of equal values and the first NaN, as fold does: bit
// for bit, so the sign of a zero extreme counts. Columns are built to hit
// the cases the vector kernels treat differently: extremes of -0 and +0
// (walked again by fold), NaN anywhere in a column, infinities; F32 and
// F64 take the vector Maximum and Minimum, I32 and I64 an inline loop.
func TestExtremeColumns(t *testing.T) {
	d := New()
	shapes := [][]int{{128, 256}, {3, 700}, {9, 300}, {4, 6, 33}}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.I32, dtype.I64} {
		for _, op := range []device.ReduceOp{device.Max, device.Min} {
			for _, shape := range shapes {
				name := fmt.Sprintf("%v/%v/%v", dt, op, shape)
				l := contiguous(shape...)
				cols := shape[len(shape)-1]
				rows := l.Numel() / cols
				sign := 1.0 // Max: zero extremes from non-positive columns
				if op == device.Min {
					sign = -1
				}
				rng := rand.New(rand.NewPCG(5, uint64(l.Numel())))
				vals := make([]float64, l.Numel())
				for i := range vals {
					c := i % cols
					v := float64(rng.IntN(2001) - 1000)
					switch c % 7 {
					case 0: // only zeros of either sign and values beyond them
						v = []float64{0, math.Copysign(0, -1), -sign * float64(1+rng.IntN(9))}[rng.IntN(3)]
					case 1:
						if rng.IntN(rows) == 0 {
							v = math.NaN()
						}
					case 2:
						if rng.IntN(4) == 0 {
							v = math.Inf(1 - 2*rng.IntN(2))
						}
					}
					if dt == dtype.I32 || dt == dtype.I64 {
						if math.IsNaN(v) || math.IsInf(v, 0) {
							v = 7
						}
					}
					vals[i] = v
				}
				sb := valuesBuffer(d, dt, vals)
				axes := make([]int, len(shape)-1)
				for i := range axes {
					axes[i] = i
				}
				ol := contiguous(cols)
				got, _ := d.Alloc(dt, cols)
				if err := d.Reduce(op, device.Operand{Buf: got, Layout: ol}, device.Operand{Buf: sb, Layout: l}, axes); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for c := range cols {
					best := vals[c]
					for r := 1; r < rows; r++ {
						x := vals[r*cols+c]
						if best == best && (x != x || (op == device.Max && x > best) || (op == device.Min && x < best)) {
							best = x
						}
					}
					var g float64
					switch dt {
					case dtype.I32:
						g = float64(slice[int32](got.(*Buffer))[c])
					case dtype.I64:
						g = float64(slice[int64](got.(*Buffer))[c])
					default:
						g = getF(got.(*Buffer), c)
					}
					same := g == best && math.Signbit(g) == math.Signbit(best) || g != g && best != best
					if dt == dtype.I32 || dt == dtype.I64 {
						same = g == best
					}
					if !same {
						t.Fatalf("%s: column %d = %v, want %v", name, c, g, best)
					}
				}
				d.Free(sb)
				d.Free(got)
			}
		}
	}
}

// TestArgExtremeColumns checks ArgMax and ArgMin over a leading or middle
// axis (argExtremeCols, which folds whole rows at a time) against a
// first-wins reference walking each line in order: many ties, -0 beside
// +0, infinities, and NaN (whose first occurrence wins).
func TestArgExtremeColumns(t *testing.T) {
	d := New()
	cases := []struct {
		shape []int
		axis  int
	}{{[]int{128, 256}, 0}, {[]int{3, 700}, 0}, {[]int{9, 300}, 0}, {[]int{4, 6, 33}, 0}, {[]int{4, 6, 33}, 1}, {[]int{2, 1}, 0}}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.I32, dtype.I64} {
		for _, op := range []device.ReduceOp{device.ArgMax, device.ArgMin} {
			for _, tc := range cases {
				name := fmt.Sprintf("%v/%v/%v/axis=%d", dt, op, tc.shape, tc.axis)
				l := contiguous(tc.shape...)
				rng := rand.New(rand.NewPCG(9, uint64(l.Numel()+tc.axis)))
				vals := make([]float64, l.Numel())
				for i := range vals {
					v := []float64{-2, -1, math.Copysign(0, -1), 0, 1, 2}[rng.IntN(6)]
					if dt.IsFloat() {
						switch rng.IntN(40) {
						case 0:
							v = math.NaN()
						case 1, 2:
							v = math.Inf(1 - 2*rng.IntN(2))
						}
					}
					vals[i] = v
				}
				sb := valuesBuffer(d, dt, vals)
				outShape := slices.Delete(slices.Clone(tc.shape), tc.axis, tc.axis+1)
				ol := contiguous(outShape...)
				got, _ := d.Alloc(dtype.I64, ol.Numel())
				if err := d.Reduce(op, device.Operand{Buf: got, Layout: ol}, device.Operand{Buf: sb, Layout: l}, []int{tc.axis}); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				ext, step := tc.shape[tc.axis], l.Strides[tc.axis] // step: the elements after the axis
				for o := range ol.Numel() {
					start := (o/step)*ext*step + o%step // first element of output o's line
					best, at := vals[start], 0
					for i := 1; i < ext; i++ {
						x := vals[start+i*step]
						if best == best && (x != x || (op == device.ArgMax && x > best) || (op == device.ArgMin && x < best)) {
							best, at = x, i
						}
					}
					if g := slice[int64](got.(*Buffer))[o]; g != int64(at) {
						t.Fatalf("%s: output %d = %d, want %d", name, o, g, at)
					}
				}
				d.Free(sb)
				d.Free(got)
			}
		}
	}
}

// valuesBuffer returns a buffer of dtype dt (F32, F64, I32 or I64) holding
// vals.
func valuesBuffer(d *Device, dt dtype.DType, vals []float64) device.Buffer {
	sb, _ := d.Alloc(dt, len(vals))
	for i, v := range vals {
		switch dt {
		case dtype.I32:
			slice[int32](sb.(*Buffer))[i] = int32(v)
		case dtype.I64:
			slice[int64](sb.(*Buffer))[i] = int64(v)
		default:
			setF(sb.(*Buffer), i, v)
		}
	}
	return sb
}
