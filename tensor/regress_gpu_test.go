package tensor_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// Regression tests for WebGPU issue 7 (items 2, 8, 9, 10): long softmax
// rows, rows wider than a storage binding, empty reductions and views of
// more than 8 axes. Every case runs on every device against float64
// references.

// f32s reads t (F32) to the host or fails the test.
func f32s(t *testing.T, x *tensor.Tensor) []float32 {
	t.Helper()
	v, err := tensor.ToSlice[float32](x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// rowStats is the float64 max and sum of exp(x - max) of one row.
func rowStats(n int, x func(i int) float64) (m, s float64) {
	m = math.Inf(-1)
	for i := 0; i < n; i++ {
		m = math.Max(m, x(i))
	}
	for i := 0; i < n; i++ {
		s += math.Exp(x(i) - m)
	}
	return m, s
}

// checkSoftmaxRow compares one row of a device result (got(i)) with the
// float64 softmax or log-softmax of x, element by element, and checks that
// a softmax row sums to 1.
func checkSoftmaxRow(t *testing.T, what string, log bool, n int, x func(i int) float64, got func(i int) float32) {
	t.Helper()
	m, s := rowStats(n, x)
	sum, bad := 0.0, 0
	for i := 0; i < n; i++ {
		g := float64(got(i))
		var want float64
		if log {
			want = x(i) - m - math.Log(s)
		} else {
			want = math.Exp(x(i)-m) / s
			sum += g
		}
		if !(math.Abs(g-want) <= 2e-5*math.Abs(want)+1e-5*math.Abs(x(i)-m)/float64(max(n, 1))+1e-30) && !(log && math.Abs(g-want) <= 1e-5*(1+math.Abs(want))) {
			if bad < 5 {
				t.Errorf("%s: element %d = %g, want %g", what, i, g, want)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements wrong", what, bad, n)
	}
	if !log && math.Abs(sum-1) > 1e-4 {
		t.Errorf("%s: row sums to %g, want 1", what, sum)
	}
}

// TestRegressSoftmaxLongRow: rows of 2^21 elements were mostly unwritten
// on WebGPU (per-invocation loops stopped by the driver).
func TestRegressSoftmaxLongRow(t *testing.T) {
	const n = 1 << 21
	ramp := func(i int) float64 { return float64(float32(i%5003) * (1.0 / 256)) }
	zero := func(int) float64 { return 0 }
	for _, dev := range testDevices(t) {
		for _, c := range []struct {
			name string
			x    func(int) float64
		}{{"zeros", zero}, {"ramp", ramp}} {
			host := make([]float32, n)
			for i := range host {
				host[i] = float32(c.x(i))
			}
			x := tensor.FromSlice(host).To(dev)
			for _, log := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/log=%v", dev.Name(), c.name, log), func(t *testing.T) {
					var y *tensor.Tensor
					if log {
						y = x.LogSoftmax(0)
					} else {
						y = x.Softmax(0)
					}
					defer y.Release()
					got := f32s(t, y)
					checkSoftmaxRow(t, "row", log, n, c.x, func(i int) float32 { return got[i] })
					if !log {
						s := y.Sum()
						defer s.Release()
						v, err := s.Item()
						if err != nil || math.Abs(v-1) > 1e-4 {
							t.Errorf("Softmax(0).Sum() = %v, %v; want 1", v, err)
						}
					}
				})
			}
			x.Release()
		}
	}
}

// TestRegressSoftmaxLongRows: [3, ~2.2M] along axis 1, and the same data
// transposed along axis 0 (strided rows).
func TestRegressSoftmaxLongRows(t *testing.T) {
	const rows, n = 3, 2_200_003
	val := func(r, i int) float64 { return float64(float32((i*7+r*13)%1009) * (1.0 / 128)) }
	host := make([]float32, rows*n)
	for r := 0; r < rows; r++ {
		for i := 0; i < n; i++ {
			host[r*n+i] = float32(val(r, i))
		}
	}
	for _, dev := range testDevices(t) {
		x := tensor.FromSlice(host, rows, n).To(dev)
		for _, log := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/log=%v", dev.Name(), log), func(t *testing.T) {
				for _, tr := range []bool{false, true} {
					v, axis := x, 1
					if tr {
						v, axis = x.T(), 0
					}
					var y *tensor.Tensor
					if log {
						y = v.LogSoftmax(axis)
					} else {
						y = v.Softmax(axis)
					}
					got := f32s(t, y)
					y.Release()
					for r := 0; r < rows; r++ {
						at := func(i int) float32 { return got[r*n+i] }
						if tr {
							at = func(i int) float32 { return got[i*rows+r] }
						}
						checkSoftmaxRow(t, fmt.Sprintf("transposed=%v row %d", tr, r), log, n, func(i int) float64 { return val(r, i) }, at)
					}
				}
			})
		}
		x.Release()
	}
}

// bindingLimit is the device's storage binding limit, or the WebGPU
// default for devices without one.
func bindingLimit(dev device.Device) int {
	for _, l := range dev.Info().Limits {
		if l.Name == "maxStorageBufferBindingSize" {
			return int(l.Value)
		}
	}
	return 128 << 20
}

// TestRegressSoftmaxRowBeyondBinding: Softmax(0) of a tall tensor whose one
// column spans more than a storage binding was refused on WebGPU. The
// narrow view keeps the output small; the full tensor runs unless -short.
func TestRegressSoftmaxRowBeyondBinding(t *testing.T) {
	for _, dev := range testDevices(t) {
		const w = 8192
		l := bindingLimit(dev)/(4*w) + 1 // rows: one column spans > the limit
		cv := func(i int) float64 { return float64(float32(i%97) / 16) }
		rv := func(j int) float64 { return float64(float32(j%5) / 4) }
		ch := make([]float32, l)
		for i := range ch {
			ch[i] = float32(cv(i))
		}
		rh := make([]float32, w)
		for j := range rh {
			rh[j] = float32(rv(j))
		}
		c := tensor.FromSlice(ch, l, 1).To(dev)
		r := tensor.FromSlice(rh, 1, w).To(dev)
		big := c.Add(r) // [l, w], built on the device
		c.Release()
		r.Release()
		if err := big.Err(); err != nil {
			t.Fatal(err)
		}
		val := func(i, j int) float64 { return float64(float32(cv(i) + rv(j))) }
		t.Run(dev.Name()+"/narrow", func(t *testing.T) {
			for _, log := range []bool{false, true} {
				const j0, nc = w - 3, 3
				v := big.Narrow(1, j0, nc)
				var y *tensor.Tensor
				if log {
					y = v.LogSoftmax(0)
				} else {
					y = v.Softmax(0)
				}
				got := f32s(t, y)
				y.Release()
				v.Release()
				for j := 0; j < nc; j++ {
					checkSoftmaxRow(t, fmt.Sprintf("log=%v column %d", log, j0+j), log, l, func(i int) float64 { return val(i, j0+j) },
						func(i int) float32 { return got[i*nc+j] })
				}
			}
		})
		t.Run(dev.Name()+"/full", func(t *testing.T) {
			if testing.Short() {
				t.Skip("128 MiB softmax skipped with -short")
			}
			y := big.Softmax(0)
			defer y.Release()
			sums := y.Sum(0)
			defer sums.Release()
			for j, s := range f32s(t, sums) {
				if math.Abs(float64(s)-1) > 1e-4 {
					t.Fatalf("column %d sums to %g, want 1", j, s)
				}
			}
			for _, j0 := range []int{0, 4099, w - 2} {
				part := y.Narrow(1, j0, 2)
				got := f32s(t, part)
				part.Release()
				for j := 0; j < 2; j++ {
					checkSoftmaxRow(t, fmt.Sprintf("column %d", j0+j), false, l, func(i int) float64 { return val(i, j0+j) },
						func(i int) float32 { return got[i*2+j] })
				}
			}
		})
		big.Release()
	}
}

// TestRegressEmptyReduction: reducing an empty extent into an empty output
// gives an empty result, as on the CPU and in NumPy.
func TestRegressEmptyReduction(t *testing.T) {
	ops := map[string]func(x *tensor.Tensor, axis int) *tensor.Tensor{
		"Max":       func(x *tensor.Tensor, a int) *tensor.Tensor { return x.Max(a) },
		"Min":       func(x *tensor.Tensor, a int) *tensor.Tensor { return x.Min(a) },
		"ArgMax":    func(x *tensor.Tensor, a int) *tensor.Tensor { return x.ArgMax(a) },
		"ArgMin":    func(x *tensor.Tensor, a int) *tensor.Tensor { return x.ArgMin(a) },
		"LogSumExp": func(x *tensor.Tensor, a int) *tensor.Tensor { return x.LogSumExp(a) },
		"Sum":       func(x *tensor.Tensor, a int) *tensor.Tensor { return x.Sum(a) },
		"Mean":      func(x *tensor.Tensor, a int) *tensor.Tensor { return x.Mean(a) },
		"Softmax":   func(x *tensor.Tensor, a int) *tensor.Tensor { return x.Softmax(a) },
	}
	for _, dev := range testDevices(t) {
		for name, f := range ops {
			for _, c := range []struct {
				shape []int
				axis  int
				want  []int
			}{{[]int{0, 0}, 1, []int{0}}, {[]int{0, 0}, 0, []int{0}}, {[]int{0, 3}, 1, []int{0}}} {
				t.Run(fmt.Sprintf("%s/%s/%v/%d", dev.Name(), name, c.shape, c.axis), func(t *testing.T) {
					x := tensor.Zeros(dtype.F32, c.shape...).To(dev)
					defer x.Release()
					y := f(x, c.axis)
					defer y.Release()
					if err := y.Err(); err != nil {
						t.Fatal(err)
					}
					want := c.want
					if name == "Softmax" {
						want = c.shape
					}
					if fmt.Sprint(y.Shape()) != fmt.Sprint(want) {
						t.Fatalf("shape %v, want %v", y.Shape(), want)
					}
					if _, err := y.Float64s(); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
		// A non-empty output over an empty extent stays an error for the
		// extremes (NumPy's ValueError); LogSumExp of nothing is -Inf and
		// Mean NaN (semantics_test.go).
		x := tensor.Zeros(dtype.F32, 3, 0).To(dev)
		for _, y := range []*tensor.Tensor{x.Max(1), x.ArgMax(1), x.Min(1)} {
			if y.Err() == nil {
				t.Errorf("%s: reduction of [3 0] over axis 1 succeeded, want ErrShape", dev.Name())
			}
		}
		x.Release()
	}
}

// permuted returns the reversed-axes view of an arange of shape [2]*rank,
// plus the host value of each of its logical elements (row-major).
func permuted(dev device.Device, rank int, start float64) (*tensor.Tensor, []float64) {
	n := 1 << rank
	x := tensor.Arange(dtype.F32, start, start+float64(n), 1).Reshape(twos(rank)...).To(dev)
	perm := make([]int, rank)
	for i := range perm {
		perm[i] = rank - 1 - i
	}
	v := x.Permute(perm...)
	x.Release()
	// Logical element with index bits i_0..i_{r-1} (i_0 the most
	// significant) sits at storage position sum i_k 2^k.
	want := make([]float64, n)
	for g := 0; g < n; g++ {
		pos := 0
		for k := 0; k < rank; k++ {
			bit := (g >> (rank - 1 - k)) & 1
			pos |= bit << k
		}
		want[g] = start + float64(pos)
	}
	return v, want
}

func twos(rank int) []int {
	s := make([]int, rank)
	for i := range s {
		s[i] = 2
	}
	return s
}

func checkVals(t *testing.T, what string, x *tensor.Tensor, want []float64, rel float64) {
	t.Helper()
	got, err := x.Float64s()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > rel*math.Abs(want[i]) {
			t.Fatalf("%s: element %d = %g, want %g", what, i, got[i], want[i])
		}
	}
}

// TestRegressHighRankViews: views keeping more than 8 axes after merging
// failed on WebGPU for every op.
func TestRegressHighRankViews(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, rank := range []int{9, 12} {
			t.Run(fmt.Sprintf("%s/rank%d", dev.Name(), rank), func(t *testing.T) {
				v, want := permuted(dev, rank, 0)
				defer v.Release()
				w, want2 := permuted(dev, rank, 1000)
				defer w.Release()
				n := len(want)

				c := v.Contiguous()
				checkVals(t, "Contiguous", c, want, 0)
				c.Release()

				sum := make([]float64, n)
				ex := make([]float64, n)
				for i := range sum {
					sum[i] = want[i] + want2[i]
					ex[i] = float64(float32(math.Exp(want[i] / 256)))
				}
				a := v.Add(w)
				checkVals(t, "Add", a, sum, 0)
				a.Release()

				sc := v.MulScalar(1.0 / 256)
				e := sc.Exp()
				checkVals(t, "Exp", e, ex, 1e-6)
				e.Release()
				sc.Release()

				// Add into a permuted destination: copy a contiguous result
				// back through the view's layout.
				vc := v.Contiguous()
				back := vc.Permute(reversedPerm(rank)...).Contiguous()
				checkVals(t, "Contiguous of re-permuted", back, arangeVals(n), 0)
				back.Release()
				vc.Release()

				// Sum along one axis, several, and all.
				for _, axes := range [][]int{{3}, {0, rank - 1}, nil} {
					s := v.Sum(axes...)
					checkVals(t, fmt.Sprintf("Sum%v", axes), s, refSumTwos(want, rank, axes), 0)
					s.Release()
				}
				am := v.ArgMax(rank - 2)
				got, err := am.Float64s()
				if err != nil {
					t.Fatal(err)
				}
				// Along any axis of the reversed arange, the larger element
				// is the one whose bit for that axis is set: index 1.
				for i := range got {
					if got[i] != 1 {
						t.Fatalf("ArgMax: element %d = %g, want 1", i, got[i])
					}
				}
				if len(got) != n/2 {
					t.Fatalf("ArgMax: %d values, want %d", len(got), n/2)
				}
				am.Release()
			})
		}
	}
}

func reversedPerm(rank int) []int {
	p := make([]int, rank)
	for i := range p {
		p[i] = rank - 1 - i
	}
	return p
}

func arangeVals(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	return v
}

// refSumTwos sums vals (row-major over [2]*rank) over axes (all when nil).
func refSumTwos(vals []float64, rank int, axes []int) []float64 {
	red := make([]bool, rank)
	if axes == nil {
		for i := range red {
			red[i] = true
		}
	}
	for _, a := range axes {
		red[a] = true
	}
	nk := 0
	for _, r := range red {
		if !r {
			nk++
		}
	}
	out := make([]float64, 1<<nk)
	for g, v := range vals {
		o := 0
		for k := 0; k < rank; k++ {
			if !red[k] {
				o = o<<1 | (g>>(rank-1-k))&1
			}
		}
		out[o] += v
	}
	return out
}

// TestRegressLongSum: reductions over 2^24 elements, one output and a few.
func TestRegressLongSum(t *testing.T) {
	const n = 1 << 24
	for _, dev := range testDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			ones := tensor.Ones(dtype.F32, n).To(dev)
			defer ones.Release()
			s := ones.Sum()
			checkVals(t, "Sum of 2^24 ones", s, []float64{n}, 0)
			s.Release()
			// Few outputs, long reduced extent: [4, 2^22] along 1 and,
			// transposed, along 0.
			m := ones.Reshape(4, n/4)
			s = m.Sum(1)
			checkVals(t, "Sum(1) of [4, 2^22]", s, []float64{n / 4, n / 4, n / 4, n / 4}, 0)
			s.Release()
			mt := m.T()
			s = mt.Sum(0)
			checkVals(t, "Sum(0) of [2^22, 4]", s, []float64{n / 4, n / 4, n / 4, n / 4}, 0)
			s.Release()
			mt.Release()
			m.Release()

			// Small integers: max near the end, exact sums.
			host := make([]float32, n)
			for i := range host {
				host[i] = float32(i % 2)
			}
			host[n-5] = 7
			x := tensor.FromSlice(host).To(dev)
			defer x.Release()
			want := 0.0
			for _, v := range host {
				want += float64(v)
			}
			s = x.Sum()
			checkVals(t, "Sum of 0,1,0,1,...", s, []float64{want}, 0)
			s.Release()
			mx := x.Max()
			checkVals(t, "Max", mx, []float64{7}, 0)
			mx.Release()
			am := x.ArgMax(0)
			checkVals(t, "ArgMax", am, []float64{n - 5}, 0)
			am.Release()
			ls := x.LogSumExp()
			lw := 0.0
			for _, v := range host {
				lw += math.Exp(float64(v) - 7)
			}
			lw = 7 + math.Log(lw)
			checkVals(t, "LogSumExp", ls, []float64{lw}, 1e-5)
			ls.Release()
		})
	}
}
