package tensor_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// Regression tests for WebGPU issue 7 item 1: a matmul with a long inner
// dimension k lost every term past the driver's per-invocation loop limit
// (Ones(1, 300000) x Ones(300000, 1) gave 262136 on lavapipe). Every case
// runs on every device. The values are small integers (or multiples of
// 2^-8), so every partial sum is exact in f32 whatever the order of
// accumulation: f32 results must equal the float64 reference exactly, and
// f16 results must equal it rounded to f16 once.

// mmRegressK are inner dimensions past every kernel's old limit (the
// default 4x4 kernel stopped after 65,535 steps of 4, k = 262,140).
var mmRegressK = []int{300000, 1 << 20}

// mmRoundF16 rounds v to the nearest binary16 value, ties to even, written
// independently of the library's conversion. |v| must stay below 65504.
func mmRoundF16(v float64) float64 {
	if v == 0 {
		return 0
	}
	e := max(math.Floor(math.Log2(math.Abs(v))), -14)
	ulp := math.Ldexp(1, int(e)-10)
	return math.RoundToEven(v/ulp) * ulp
}

// mmWant is the expected result of an f32 or f16 product whose exact value
// is v.
func mmWant(dt dtype.DType, v float64) float64 {
	if dt == dtype.F16 {
		return mmRoundF16(v)
	}
	return v
}

// mmDTypes lists the dtypes a device's matmul is checked in.
func mmDTypes(dev device.Device) []dtype.DType {
	dts := []dtype.DType{dtype.F32}
	if computes(dev, dtype.F16) {
		dts = append(dts, dtype.F16)
	}
	return dts
}

// mmOnDevice builds a tensor of the given shape and dtype from vals (small
// integers or multiples of 2^-8, exact in f16) on dev.
func mmOnDevice(t *testing.T, dev device.Device, dt dtype.DType, vals []float32, shape ...int) *tensor.Tensor {
	t.Helper()
	cpu := tensor.FromSlice(vals, shape...)
	defer cpu.Release()
	c := cpu.Cast(dt)
	defer c.Release()
	x := c.To(dev)
	if err := x.Err(); err != nil {
		t.Fatalf("upload %v to %s: %v", shape, dev.Info().Name, err)
	}
	return x
}

// mmSmallInts returns n integers drawn uniformly from [-r, r].
func mmSmallInts(rng *rand.Rand, n, r int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.IntN(2*r+1) - r)
	}
	return v
}

// mmCheck reads got and compares it element by element, exactly, with want.
func mmCheck(t *testing.T, what string, got *tensor.Tensor, shape []int, want []float64) {
	t.Helper()
	if err := got.Err(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if fmt.Sprint(got.Shape()) != fmt.Sprint(shape) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape(), shape)
	}
	vals, err := got.Float64s()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	bad := 0
	for i := range want {
		if vals[i] != want[i] {
			if bad < 5 {
				t.Errorf("%s: element %d = %v, want %v", what, i, vals[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements wrong", what, bad, len(want))
	}
}

// TestRegressMatmulLongKOnes is the reproduction: Ones(1, k) times
// Ones(k, 1) must be exactly k in f32. In f16 (whose largest value is
// 65504) the right operand holds 2^-8 instead, so the result is k/256
// rounded to f16 once.
func TestRegressMatmulLongKOnes(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, dt := range mmDTypes(dev) {
			for _, k := range mmRegressK {
				what := fmt.Sprintf("%s %s Ones(1,%d) x Ones(%d,1)", dev.Info().Name, dt, k, k)
				bv, exact := 1.0, float64(k)
				if dt == dtype.F16 {
					bv, exact = 1.0/256, float64(k)/256
				}
				a := tensor.Ones(dt, 1, k).To(dev)
				b := tensor.Full(dt, bv, k, 1).To(dev)
				got := a.Matmul(b)
				mmCheck(t, what, got, []int{1, 1}, []float64{mmWant(dt, exact)})
				// The vector forms take the same kernels.
				dot := a.Reshape(k).Matmul(b.Reshape(k))
				mmCheck(t, what+" as 1-D", dot, []int{}, []float64{mmWant(dt, exact)})
				for _, x := range []*tensor.Tensor{a, b, got, dot} {
					x.Release()
				}
			}
		}
	}
}

// mmRef is the float64 product of a [batch, m, k] and b [batch, k, n], both
// row-major, as [batch, m, n].
func mmRef(av, bv []float32, batch, m, k, n int) []float64 {
	out := make([]float64, batch*m*n)
	for bt := 0; bt < batch; bt++ {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for p := 0; p < k; p++ {
					s += float64(av[(bt*m+i)*k+p]) * float64(bv[(bt*k+p)*n+j])
				}
				out[(bt*m+i)*n+j] = s
			}
		}
	}
	return out
}

// mmTranspose returns the row-major [batch, cols, rows] transpose of the
// row-major [batch, rows, cols] v.
func mmTranspose(v []float32, batch, rows, cols int) []float32 {
	out := make([]float32, len(v))
	for bt := 0; bt < batch; bt++ {
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				out[(bt*cols+j)*rows+i] = v[(bt*rows+i)*cols+j]
			}
		}
	}
	return out
}

// TestRegressMatmulLongKValues multiplies random small-integer matrices
// with a long inner dimension: plain row-major operands, transposed views
// (read in place by the GPU), and a batch with the left operand's batch
// axis broadcast.
func TestRegressMatmulLongKValues(t *testing.T) {
	type tc struct {
		name       string
		batch      int // 0: plain 2-D operands
		m, k, n    int
		transA     bool
		transB     bool
		broadcastA bool
		ra, rb     int // values are integers in [-ra, ra] and [-rb, rb]
	}
	cases := []tc{
		{name: "3x200003x5", m: 3, k: 200003, n: 5, ra: 4, rb: 4},
		// k odd and past the old 262,140 limit of the default kernel.
		{name: "3x300007x5 A^T B^T", m: 3, k: 300007, n: 5, transA: true, transB: true, ra: 4, rb: 4},
		{name: "batched 2x4x270001x4 B^T", batch: 2, m: 4, k: 270001, n: 4, transB: true, ra: 3, rb: 3},
		{name: "batched 3x2x280000x3 A broadcast", batch: 3, m: 2, k: 280000, n: 3, broadcastA: true, ra: 3, rb: 3},
	}
	for _, dev := range testDevices(t) {
		for _, dt := range mmDTypes(dev) {
			rng := rand.New(rand.NewPCG(7, 1))
			for _, c := range cases {
				what := fmt.Sprintf("%s %s %s", dev.Info().Name, dt, c.name)
				nb := max(c.batch, 1)
				ab := nb
				if c.broadcastA {
					ab = 1
				}
				av := mmSmallInts(rng, ab*c.m*c.k, c.ra)
				bv := mmSmallInts(rng, nb*c.k*c.n, c.rb)
				// The reference sees A with its batch repeated.
				full := av
				if c.broadcastA {
					full = make([]float32, 0, nb*len(av))
					for range nb {
						full = append(full, av...)
					}
				}
				exact := mmRef(full, bv, nb, c.m, c.k, c.n)
				want := make([]float64, len(exact))
				for i, v := range exact {
					want[i] = mmWant(dt, v)
				}
				shape := func(rows, cols, b int) []int {
					if c.batch == 0 {
						return []int{rows, cols}
					}
					return []int{b, rows, cols}
				}
				// A transposed operand is the transposed view of its
				// transpose, stored on the device.
				var a, b *tensor.Tensor
				if c.transA {
					st := mmOnDevice(t, dev, dt, mmTranspose(av, ab, c.m, c.k), shape(c.k, c.m, ab)...)
					a = st.T()
					st.Release()
				} else {
					a = mmOnDevice(t, dev, dt, av, shape(c.m, c.k, ab)...)
				}
				if c.transB {
					st := mmOnDevice(t, dev, dt, mmTranspose(bv, nb, c.k, c.n), shape(c.n, c.k, nb)...)
					b = st.T()
					st.Release()
				} else {
					b = mmOnDevice(t, dev, dt, bv, shape(c.k, c.n, nb)...)
				}
				got := a.Matmul(b)
				mmCheck(t, what, got, shape(c.m, c.n, nb), want)
				a.Release()
				b.Release()
				got.Release()
			}
		}
	}
}
