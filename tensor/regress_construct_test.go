package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// Regression tests for issue 7 items 4 and 11: constructors that staged
// every value in a full-size []float64 before any size check (so a huge
// request killed the process and the allocation limit was ignored), and
// Concat lengths that wrapped around.

// childEnv names the test a re-executed test binary runs in its child role.
const childEnv = "TESSERA_TEST_CHILD"

// inChild reports whether this process is the child started by runChild
// for the test named name.
func inChild(name string) bool { return os.Getenv(childEnv) == name }

// runChild re-executes the test binary to run only the test name, with the
// CPU allocation limit set to limit bytes (the CPU backend reads
// TESSERA_CPU_MAX_ALLOC once, at its first allocation, so a limit needs a
// fresh process). It fails t unless the child exits 0 and prints "CHILD OK";
// a child that the runtime kills for memory fails here with its output.
func runChild(t *testing.T, name string, limit int64) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+name, "TESSERA_CPU_MAX_ALLOC="+strconv.FormatInt(limit, 10))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "CHILD OK") {
		t.Fatalf("child %s with TESSERA_CPU_MAX_ALLOC=%d failed (%v):\n%s", name, limit, err, out)
	}
	return string(out)
}

// allocated runs f and returns how many bytes of Go heap it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// bitsOf returns t's elements as their raw bits, so values compare exactly
// (NaN, -0 and rounding included).
func bitsOf(t *testing.T, x *tensor.Tensor) []uint64 {
	t.Helper()
	var out []uint64
	var err error
	switch x.DType() {
	case dtype.F32:
		var v []float32
		if v, err = tensor.ToSlice[float32](x); err == nil {
			for _, e := range v {
				out = append(out, uint64(math.Float32bits(e)))
			}
		}
	case dtype.F64:
		var v []float64
		if v, err = tensor.ToSlice[float64](x); err == nil {
			for _, e := range v {
				out = append(out, math.Float64bits(e))
			}
		}
	case dtype.F16:
		var v []dtype.Float16
		if v, err = tensor.ToSlice[dtype.Float16](x); err == nil {
			for _, e := range v {
				out = append(out, uint64(e))
			}
		}
	case dtype.BF16:
		var v []dtype.BFloat16
		if v, err = tensor.ToSlice[dtype.BFloat16](x); err == nil {
			for _, e := range v {
				out = append(out, uint64(e))
			}
		}
	default:
		var v []float64
		if v, err = x.Cast(dtype.F64).Float64s(); err == nil {
			for _, e := range v {
				out = append(out, math.Float64bits(e))
			}
		}
	}
	if err != nil {
		t.Fatalf("reading %v %v: %v", x.DType(), x.Shape(), err)
	}
	return out
}

// sameBits fails t unless got holds exactly want's dtype, shape and bits.
func sameBits(t *testing.T, what string, got, want *tensor.Tensor) {
	t.Helper()
	if err := got.Err(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) {
		t.Fatalf("%s: %v %v, want %v %v", what, got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, w := bitsOf(t, got), bitsOf(t, want)
	for i := range w {
		if g[i] != w[i] {
			t.Fatalf("%s: element %d has bits %#x, want %#x", what, i, g[i], w[i])
		}
	}
}

// reference builds what the constructors built before: float64 values
// converted to dt by Cast (Copy's rules).
func reference(dt dtype.DType, vals []float64, shape ...int) *tensor.Tensor {
	return tensor.FromSlice(vals, shape...).Cast(dt)
}

// refRandom is the generator stream Rand and RandN draw from.
func refRandom(seed uint64, n int, next func(*rand.Rand) float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x7e55e7a))
	v := make([]float64, n)
	for i := range v {
		v[i] = next(r)
	}
	return v
}

// TestConstructValuesUnchanged checks that generating in blocks straight into
// the destination dtype gives bit for bit what staging every value in
// float64 and casting gave, across block boundaries, for every dtype, and
// that the tensors survive a move to every test device.
func TestConstructValuesUnchanged(t *testing.T) {
	// Blocks of 2048 elements, spans of more than 16 blocks split between
	// goroutines, and a partial block at the end.
	const n = 2*32768 + 2*2048 + 5
	below1 := map[dtype.DType]float64{dtype.F32: 1 - 0x1p-24, dtype.F16: 1 - 0x1p-11, dtype.BF16: 1 - 0x1p-8}
	for _, dt := range dtype.All {
		ar := make([]float64, n)
		for i := range ar {
			ar[i] = -7.5 + float64(i)*0.25
		}
		sameBits(t, "Arange "+dt.String(), tensor.Arange(dt, -7.5, -7.5+n*0.25, 0.25), reference(dt, ar, n))
		desc := []float64{3, 1.5, 0, -1.5}
		sameBits(t, "Arange descending "+dt.String(), tensor.Arange(dt, 3, -3, -1.5), reference(dt, desc, 4))
		sameBits(t, "Arange empty "+dt.String(), tensor.Arange(dt, 1, 0, 1), reference(dt, []float64{}, 0))

		ls := make([]float64, n)
		for i := range ls {
			f := float64(i) / float64(n-1)
			ls[i] = -2*(1-f) + 3*f
			if dt.IsInt() { // NumPy's start + i*step, floored
				ls[i] = math.Floor(-2 + float64(i)*(5/float64(n-1)))
			}
		}
		ls[n-1] = 3
		sameBits(t, "Linspace "+dt.String(), tensor.Linspace(dt, -2, 3, n), reference(dt, ls, n))
		sameBits(t, "Linspace 1 "+dt.String(), tensor.Linspace(dt, 5, 9, 1), reference(dt, []float64{5}, 1))
		sameBits(t, "Linspace 0 "+dt.String(), tensor.Linspace(dt, 5, 9, 0), reference(dt, []float64{}, 0))

		for _, m := range []int{0, 1, 3, 130} { // 130^2 spans three blocks
			eye := make([]float64, m*m)
			for i := range m {
				eye[i*m+i] = 1
			}
			sameBits(t, "Eye "+dt.String(), tensor.Eye(dt, m), reference(dt, eye, m, m))
		}

		// Full fills rows in stretches of 512 elements, and clears for
		// zero bits (-0 is not zero bits).
		for _, v := range []float64{2.5, -3, 0, math.Copysign(0, -1)} {
			fv := make([]float64, 1500)
			for i := range fv {
				fv[i] = v
			}
			sameBits(t, fmt.Sprintf("Full %v %v", v, dt), tensor.Full(dt, v, 3, 500), reference(dt, fv, 3, 500))
		}

		if !dt.IsFloat() {
			continue
		}
		b1 := below1[dt]
		rv := refRandom(42, n, func(r *rand.Rand) float64 {
			v := r.Float64()
			if b1 > 0 {
				v = min(v, b1)
			}
			return v
		})
		sameBits(t, "Rand "+dt.String(), tensor.Rand(dt, 42, 5, n/5), reference(dt, rv[:5*(n/5)], 5, n/5))
		rn := refRandom(42, n, func(r *rand.Rand) float64 { return r.NormFloat64() })
		sameBits(t, "RandN "+dt.String(), tensor.RandN(dt, 42, n), reference(dt, rn, n))
	}

	// Values pinned literally, on every device.
	pinned := []struct {
		name string
		x    *tensor.Tensor
		want []float64
	}{
		{"Arange", tensor.Arange(dtype.F32, 0, 1, 0.25), []float64{0, 0.25, 0.5, 0.75}},
		{"Arange i32", tensor.Arange(dtype.I32, -2.5, 1, 1), []float64{-2, -1, 0, 0}},
		{"Linspace", tensor.Linspace(dtype.F64, 0, 1, 5), []float64{0, 0.25, 0.5, 0.75, 1}},
		{"Eye", tensor.Eye(dtype.F16, 2), []float64{1, 0, 0, 1}},
		{"Full", tensor.Full(dtype.U8, 300, 2), []float64{255, 255}},
		{"Ones", tensor.Ones(dtype.Bool, 2), []float64{1, 1}},
		{"Zeros", tensor.Zeros(dtype.I64, 3), []float64{0, 0, 0}},
		{"Scalar", tensor.Scalar(float32(2.5)), []float64{2.5}},
		{"FromSlice", tensor.FromSlice([]int{4, -5}, 2, 1), []float64{4, -5}},
	}
	for _, dev := range testDevices(t) {
		for _, c := range pinned {
			if !supports(dev, c.x.DType()) {
				continue
			}
			got, err := c.x.To(dev).Float64s()
			if err != nil || len(got) != len(c.want) {
				t.Fatalf("%s on %s: %v %v", c.name, dev.Name(), got, err)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("%s on %s: element %d = %v, want %v", c.name, dev.Name(), i, got[i], c.want[i])
				}
			}
		}
		if supports(dev, dtype.F32) {
			x := tensor.RandN(dtype.F32, 9, 64, 64)
			if ok, err := tensor.Equal(x, x.To(dev).To(device.CPU())); err != nil || !ok {
				t.Errorf("RandN round trip through %s: %v %v", dev.Name(), ok, err)
			}
		}
	}
}

// TestConstructBadArguments checks that invalid arguments are typed errors
// that name the operation, not panics, hangs or fatal out-of-memory aborts.
func TestConstructBadArguments(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		x    *tensor.Tensor
		kind error
		op   string
	}{
		{"arange step 0", tensor.Arange(dtype.F32, 0, 1, 0), tensor.ErrValue, "Arange"},
		{"arange NaN start", tensor.Arange(dtype.F32, nan, 1, 1), tensor.ErrValue, "Arange"},
		{"arange NaN stop", tensor.Arange(dtype.F32, 0, nan, 1), tensor.ErrValue, "Arange"},
		{"arange NaN step", tensor.Arange(dtype.F32, 0, 1, nan), tensor.ErrValue, "Arange"},
		{"arange Inf stop", tensor.Arange(dtype.F32, 0, inf, 1), tensor.ErrValue, "Arange"},
		{"arange -Inf start", tensor.Arange(dtype.F32, -inf, 0, 1), tensor.ErrValue, "Arange"},
		{"arange Inf step", tensor.Arange(dtype.F32, 0, 1, inf), tensor.ErrValue, "Arange"},
		{"arange tiny step", tensor.Arange(dtype.F32, 0, 1, 1e-300), tensor.ErrShape, "Arange"},
		{"arange 2^41", tensor.Arange(dtype.F32, 0, 1<<41, 1), tensor.ErrShape, "Arange"},
		{"arange span overflows", tensor.Arange(dtype.F32, -1e308, 1e308, 1), tensor.ErrShape, "Arange"},
		{"arange bad dtype", tensor.Arange(dtype.Invalid, 0, 3, 1), tensor.ErrDType, "Arange"},
		{"linspace -1", tensor.Linspace(dtype.F32, 0, 1, -1), tensor.ErrShape, "Linspace"},
		{"linspace min int", tensor.Linspace(dtype.F32, 0, 1, math.MinInt), tensor.ErrShape, "Linspace"},
		{"linspace 2^41", tensor.Linspace(dtype.F32, 0, 1, 1<<41), tensor.ErrShape, "Linspace"},
		{"linspace NaN", tensor.Linspace(dtype.F32, nan, 1, 3), tensor.ErrValue, "Linspace"},
		{"linspace Inf", tensor.Linspace(dtype.F32, 0, inf, 3), tensor.ErrValue, "Linspace"},
		{"linspace bad dtype", tensor.Linspace(dtype.Invalid, 0, 1, 3), tensor.ErrDType, "Linspace"},
		{"eye -1", tensor.Eye(dtype.F32, -1), tensor.ErrShape, "Eye"},
		{"eye 2^21", tensor.Eye(dtype.F32, 1<<21), tensor.ErrShape, "Eye"},
		{"eye bad dtype", tensor.Eye(dtype.Invalid, 2), tensor.ErrDType, "Eye"},
		{"rand negative", tensor.Rand(dtype.F32, 1, 2, -3), tensor.ErrShape, "Rand"},
		{"randn overflow", tensor.RandN(dtype.F32, 1, 1<<40, 1<<40), tensor.ErrShape, "RandN"},
		{"rand int", tensor.Rand(dtype.I64, 1, 2), tensor.ErrDType, "Rand"},
		{"zeros negative", tensor.Zeros(dtype.F32, -1), tensor.ErrShape, "Zeros"},
		{"full bad dtype", tensor.Full(dtype.Invalid, 1, 2), tensor.ErrDType, "Full"},
		{"fromslice short", tensor.FromSlice([]float32{1, 2}, 3), tensor.ErrShape, "FromSlice"},
		{"fromslice negative", tensor.FromSlice([]float32{}, 0, -1), tensor.ErrShape, "FromSlice"},
	}
	for _, c := range cases {
		err := c.x.Err()
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.name, err, c.kind)
			continue
		}
		if !strings.Contains(err.Error(), c.op) {
			t.Errorf("%s: %q does not name %s", c.name, err, c.op)
		}
	}
}

// TestConstructHugeRefused asks for tensors no machine can hold and checks
// they are refused as ErrOutOfMemory without first allocating anything
// like their size. Before the fix Eye, Arange and Linspace ended in a fatal
// "runtime: out of memory" (see TestConstructorsUnderAllocLimit for the
// same calls under a small limit, in a child process).
func TestConstructHugeRefused(t *testing.T) {
	cases := []struct {
		name string
		make func() *tensor.Tensor
	}{
		{"Zeros", func() *tensor.Tensor { return tensor.Zeros(dtype.F32, 1<<40) }},
		{"Arange", func() *tensor.Tensor { return tensor.Arange(dtype.F32, 0, 1<<40, 1) }},
		{"Linspace", func() *tensor.Tensor { return tensor.Linspace(dtype.F64, 0, 1, 1<<40) }},
		{"Rand", func() *tensor.Tensor { return tensor.Rand(dtype.F16, 1, 1<<20, 1<<20) }},
		{"RandN", func() *tensor.Tensor { return tensor.RandN(dtype.F32, 1, 1<<40) }},
		{"Eye", func() *tensor.Tensor { return tensor.Eye(dtype.F64, 1<<20) }}, // 8 TiB
	}
	for _, c := range cases {
		var err error
		got := allocated(func() { err = c.make().Err() })
		if !errors.Is(err, tensor.ErrOutOfMemory) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: %v, want an ErrOutOfMemory naming %s", c.name, err, c.name)
		}
		if got > 1<<20 {
			t.Errorf("%s: allocated %d bytes before refusing", c.name, got)
		}
	}
}

// TestConstructorsUnderAllocLimit runs the constructors in a child process
// whose CPU allocation limit is 96 MiB. Requests over the limit must be
// ErrOutOfMemory errors naming the op and dtype, with almost nothing
// allocated (before the fix Eye(F32, 1<<17) and Arange/Linspace of 2^40
// aborted the process, and the rest staged twice their f32 size in f64);
// 64 MiB f32 tensors, which used to fail on their 128 MiB f64 staging, must
// now succeed with about 64 MiB allocated.
func TestConstructorsUnderAllocLimit(t *testing.T) {
	const name = "TestConstructorsUnderAllocLimit"
	if !inChild(name) {
		out := runChild(t, name, 96<<20)
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "allocated") {
				t.Log(strings.TrimSpace(line))
			}
		}
		return
	}
	const big, fits = 1 << 25, 1 << 24 // 128 MiB and 64 MiB of f32
	over := []struct {
		name string
		make func() *tensor.Tensor
	}{
		{"Eye", func() *tensor.Tensor { return tensor.Eye(dtype.F32, 1<<17) }},
		{"Eye", func() *tensor.Tensor { return tensor.Eye(dtype.F32, 1<<13) }},
		{"Arange", func() *tensor.Tensor { return tensor.Arange(dtype.F32, 0, 1<<40, 1) }},
		{"Arange", func() *tensor.Tensor { return tensor.Arange(dtype.F32, 0, big, 1) }},
		{"Linspace", func() *tensor.Tensor { return tensor.Linspace(dtype.F32, 0, 1, 1<<40) }},
		{"Linspace", func() *tensor.Tensor { return tensor.Linspace(dtype.F32, 0, 1, big) }},
		{"Rand", func() *tensor.Tensor { return tensor.Rand(dtype.F32, 1, big) }},
		{"RandN", func() *tensor.Tensor { return tensor.RandN(dtype.F32, 1, 2, big/2) }},
		{"Zeros", func() *tensor.Tensor { return tensor.Zeros(dtype.F32, big) }},
		{"Ones", func() *tensor.Tensor { return tensor.Ones(dtype.F32, big) }},
		{"Full", func() *tensor.Tensor { return tensor.Full(dtype.F32, 2, big) }},
	}
	for _, c := range over {
		var err error
		got := allocated(func() { err = c.make().Err() })
		if !errors.Is(err, tensor.ErrOutOfMemory) || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), "f32") {
			t.Errorf("%s: %v, want an ErrOutOfMemory naming %s and f32", c.name, err, c.name)
		}
		if got > 1<<20 {
			t.Errorf("%s: allocated %d bytes before refusing", c.name, got)
		}
		t.Logf("%s: %v (%d bytes allocated)", c.name, err, got)
	}

	// Just under the limit: built in place, spot-checked at the ends and
	// across a block boundary.
	checked := []int{0, 8190, fits - 8}
	rn := map[int]float64{} // the generator's values at the checked positions
	r := rand.New(rand.NewPCG(5, 0x7e55e7a))
	for i := range fits {
		v := r.NormFloat64()
		for _, at := range checked {
			if i >= at && i < at+8 {
				rn[i] = v
			}
		}
	}
	within := []struct {
		name string
		make func() *tensor.Tensor
		want func(i int) float64
	}{
		{"Arange", func() *tensor.Tensor { return tensor.Arange(dtype.F32, 0, fits, 1) }, func(i int) float64 { return float64(i) }},
		{"Linspace", func() *tensor.Tensor { return tensor.Linspace(dtype.F32, 0, fits-1, fits) }, func(i int) float64 { return float64(i) }},
		{"RandN", func() *tensor.Tensor { return tensor.RandN(dtype.F32, 5, fits) }, func(i int) float64 { return float64(float32(rn[i])) }},
		{"Rand", func() *tensor.Tensor { return tensor.Rand(dtype.F32, 5, fits/4, 4) }, nil},
	}
	for _, c := range within {
		var x *tensor.Tensor
		got := allocated(func() { x = c.make() })
		if err := x.Err(); err != nil {
			t.Fatalf("%s of %d f32 under a 96 MiB limit: %v", c.name, fits, err)
		}
		if got > fits*4+2<<20 {
			t.Errorf("%s: allocated %d bytes for a %d-byte tensor", c.name, got, fits*4)
		}
		t.Logf("%s: %d bytes allocated for %d bytes of f32", c.name, got, fits*4)
		if c.want != nil {
			for _, at := range checked {
				v, err := x.Narrow(0, at, 8).Float64s()
				if err != nil {
					t.Fatal(err)
				}
				for j, e := range v {
					if w := c.want(at + j); e != w {
						t.Errorf("%s: element %d = %v, want %v", c.name, at+j, e, w)
					}
				}
			}
		}
		x.Release()
	}
	if !t.Failed() {
		os.Stdout.WriteString("CHILD OK\n")
	}
}

// TestConcatLengthOverflow joins views whose total length along the axis
// does not fit: 64 broadcast views of 2^58 after 5 elements wrapped around
// to 5 and were reported as an out-of-bounds ErrAxis.
func TestConcatLengthOverflow(t *testing.T) {
	head := tensor.Arange(dtype.F32, 0, 5, 1)
	huge := tensor.Zeros(dtype.F32, 1).BroadcastTo(1 << 58)
	for _, n := range []int{2, 64, 65} {
		ts := []*tensor.Tensor{head}
		for range n {
			ts = append(ts, huge)
		}
		err := tensor.Concat(ts, 0).Err()
		if !errors.Is(err, tensor.ErrShape) || errors.Is(err, tensor.ErrAxis) || !strings.Contains(err.Error(), "overflows") {
			t.Errorf("Concat of 5 + %d x 2^58: %v, want ErrShape saying the length overflows", n, err)
		}
	}
	// A total that fits an int but not a tensor is an ErrShape too.
	top := tensor.Zeros(dtype.U8, 1).BroadcastTo(1 << 58)
	if err := tensor.Concat([]*tensor.Tensor{top, top, top}, -1).Err(); !errors.Is(err, tensor.ErrShape) {
		t.Errorf("Concat of 3 x 2^58: %v, want ErrShape", err)
	}
	// Stack along a new axis of huge views: the product overflows.
	wide := tensor.Zeros(dtype.F32, 1, 1).BroadcastTo(1<<29, 1<<29)
	for _, axis := range []int{0, 1, 2, -1} {
		if err := tensor.Stack([]*tensor.Tensor{wide, wide, wide, wide}, axis).Err(); !errors.Is(err, tensor.ErrShape) {
			t.Errorf("Stack of 4 x 2^58 on axis %d: %v, want ErrShape", axis, err)
		}
	}
	if err := tensor.Stack([]*tensor.Tensor{huge, huge}, 5).Err(); !errors.Is(err, tensor.ErrAxis) {
		t.Errorf("Stack on axis 5 of rank 1: %v, want ErrAxis", err)
	}
	// Ordinary joins still work, on every device.
	for _, dev := range testDevices(t) {
		a := tensor.Arange(dtype.F32, 0, 4, 1).Reshape(2, 2).To(dev)
		b := tensor.Arange(dtype.F32, 4, 6, 1).Reshape(1, 2).To(dev)
		got, err := tensor.Concat([]*tensor.Tensor{a, b}, 0).Float64s()
		if err != nil || !equalFloats(got, []float64{0, 1, 2, 3, 4, 5}) {
			t.Errorf("Concat on %s: %v %v", dev.Name(), got, err)
		}
		got, err = tensor.Stack([]*tensor.Tensor{b, b}, -1).Float64s()
		if err != nil || !equalFloats(got, []float64{4, 4, 5, 5}) {
			t.Errorf("Stack on %s: %v %v", dev.Name(), got, err)
		}
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
