package mnist_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/datasets/mnist"
	"github.com/tessera-go/tessera/device"
	_ "github.com/tessera-go/tessera/device/webgpu" // batches are checked on every device
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// testDevices is the CPU, plus the software WebGPU adapter when it opens
// (required with TESSERA_REQUIRE_WEBGPU=1).
func testDevices(t testing.TB) []device.Device {
	t.Helper()
	devs := []device.Device{device.CPU()}
	gpu, err := device.Open("webgpu:software")
	switch {
	case err == nil:
		devs = append(devs, gpu)
	case os.Getenv("TESSERA_REQUIRE_WEBGPU") == "1":
		t.Fatalf("TESSERA_REQUIRE_WEBGPU=1 but the WebGPU software adapter is unavailable: %v", err)
	default:
		t.Logf("WebGPU not tested: %v", err)
	}
	return devs
}

// checkBatch compares a batch with the set's bytes through float64 math:
// p/255, or (p/255 - 0.1307) / 0.3081 when normalised, within f32 rounding.
func checkBatch(t *testing.T, s *mnist.Set, idx []int, x, y *tensor.Tensor, opt mnist.BatchOptions) {
	t.Helper()
	f := s.Rows * s.Cols
	wantShape := []int{len(idx), f}
	if opt.NCHW {
		wantShape = []int{len(idx), 1, s.Rows, s.Cols}
	}
	if x.DType() != dtype.F32 || !slices.Equal(x.Shape(), wantShape) || y.DType() != dtype.I32 || !slices.Equal(y.Shape(), []int{len(idx)}) {
		t.Fatalf("batch is %v %v and %v %v, want f32 %v and i32 [%d]", x.DType(), x.Shape(), y.DType(), y.Shape(), wantShape, len(idx))
	}
	xs, err := tensor.ToSlice[float32](x)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := tensor.ToSlice[int32](y)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range idx {
		if ys[k] != int32(s.Labels[i]) {
			t.Fatalf("label %d (sample %d) = %d, want %d", k, i, ys[k], s.Labels[i])
		}
		for j := range f {
			want := float64(s.Pixels[i*f+j]) / 255
			if opt.Normalize {
				want = (want - 0.1307) / 0.3081
			}
			if got := float64(xs[k*f+j]); math.Abs(got-want) > 1e-7*math.Max(1, math.Abs(want)) {
				t.Fatalf("pixel %d of sample %d = %v, want %v", j, i, got, want)
			}
		}
	}
}

func TestBatchValues(t *testing.T) {
	train, _ := load(t)
	idx := []int{0, 59999, 7, 7, 30000}
	for _, dev := range testDevices(t) {
		for _, opt := range []mnist.BatchOptions{
			{Device: dev},
			{Device: dev, Normalize: true},
			{Device: dev, NCHW: true, Normalize: true},
		} {
			x, y, err := train.Batch(idx, opt)
			if err != nil {
				t.Fatalf("%s: %v", dev.Name(), err)
			}
			if x.Device() != dev || y.Device() != dev {
				t.Errorf("batch on %s and %s, want %s", x.Device().Name(), y.Device().Name(), dev.Name())
			}
			checkBatch(t, train, idx, x, y, opt)
		}
	}
}

func TestBatchErrors(t *testing.T) {
	train, _ := load(t)
	for _, c := range []struct {
		idx  []int
		want string
	}{
		{nil, "mnist: Batch: no indices"},
		{[]int{0, 60000}, "mnist: Batch: index 60000 (position 1) outside [0, 60000)"},
		{[]int{-1}, "mnist: Batch: index -1 (position 0) outside [0, 60000)"},
	} {
		x, y, err := train.Batch(c.idx, mnist.BatchOptions{})
		if !errors.Is(err, errs.ErrValue) || err.Error() != c.want || x != nil || y != nil {
			t.Errorf("Batch(%v) = %v, %v, %v; want %q", c.idx, x, y, err, c.want)
		}
	}
	it := train.Batches(mnist.BatchOptions{Size: 0})
	if it.Next() || !errors.Is(it.Err(), errs.ErrValue) || it.Len() != 0 {
		t.Errorf("size 0: Next true or Err %v, Len %d", it.Err(), it.Len())
	}
	for _, r := range [][2]int{{-1, 3}, {5, 4}, {0, 60001}} {
		if _, err := train.Slice(r[0], r[1]); !errors.Is(err, errs.ErrValue) {
			t.Errorf("Slice(%d, %d): %v, want ErrValue", r[0], r[1], err)
		}
	}
}

// epochOrder runs one epoch and returns the indices in visiting order, the
// sizes of its batches, and checks each batch against its indices.
func epochOrder(t *testing.T, s *mnist.Set, opt mnist.BatchOptions, check bool) ([]int, []int) {
	t.Helper()
	it := s.Batches(opt)
	var order, sizes []int
	for it.Next() {
		x, y := it.Batch()
		if check {
			checkBatch(t, s, it.Indices(), x, y, opt)
		}
		order = append(order, it.Indices()...)
		sizes = append(sizes, len(it.Indices()))
		x.Release()
		y.Release()
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if len(sizes) != it.Len() || len(order) != it.Samples() {
		t.Errorf("%d batches of %d samples; Len says %d, Samples %d", len(sizes), len(order), it.Len(), it.Samples())
	}
	return order, sizes
}

// TestBatchesEpoch: every sample exactly once per epoch, batch sizes as
// asked (last one partial or dropped), and a shuffled order that depends
// only on (seed, epoch).
func TestBatchesEpoch(t *testing.T) {
	train, _ := load(t)
	sub, err := train.Slice(100, 1100) // 1000 samples: 7 full batches of 128 and 104
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opt   mnist.BatchOptions
		sizes []int
	}{
		{mnist.BatchOptions{Size: 128}, []int{128, 128, 128, 128, 128, 128, 128, 104}},
		{mnist.BatchOptions{Size: 128, DropLast: true}, []int{128, 128, 128, 128, 128, 128, 128}},
		{mnist.BatchOptions{Size: 128, Shuffle: true, Seed: 3, NCHW: true}, []int{128, 128, 128, 128, 128, 128, 128, 104}},
		{mnist.BatchOptions{Size: 128, Shuffle: true, Seed: 3, DropLast: true}, []int{128, 128, 128, 128, 128, 128, 128}},
		{mnist.BatchOptions{Size: 1000}, []int{1000}},
		{mnist.BatchOptions{Size: 5000}, []int{1000}},
		{mnist.BatchOptions{Size: 5000, DropLast: true}, nil},
	} {
		order, sizes := epochOrder(t, sub, c.opt, true)
		if !slices.Equal(sizes, c.sizes) {
			t.Errorf("%+v: batch sizes %v, want %v", c.opt, sizes, c.sizes)
		}
		seen := make([]int, sub.N)
		for _, i := range order {
			seen[i]++
		}
		for i, n := range seen {
			if n > 1 || (n == 0 && !c.opt.DropLast) {
				t.Fatalf("%+v: sample %d visited %d times", c.opt, i, n)
			}
		}
		if !c.opt.Shuffle && !slices.IsSorted(order) {
			t.Errorf("%+v: unshuffled order is not the file order", c.opt)
		}
	}

	// The full training set: a permutation, reproducible, different per
	// epoch and per seed.
	opt := mnist.BatchOptions{Size: 128, Shuffle: true, Seed: 42, Epoch: 1}
	a, _ := epochOrder(t, train, opt, false)
	b, _ := epochOrder(t, train, opt, false)
	if !slices.Equal(a, b) {
		t.Error("the same seed and epoch gave two orders")
	}
	if s := slices.Sorted(slices.Values(a)); len(s) != train.N || s[0] != 0 || s[len(s)-1] != train.N-1 || len(slices.Compact(s)) != train.N {
		t.Error("a shuffled epoch of the training set is not a permutation of 0..59999")
	}
	for _, o := range []mnist.BatchOptions{{Size: 128, Shuffle: true, Seed: 42, Epoch: 2}, {Size: 128, Shuffle: true, Seed: 43, Epoch: 1}} {
		c, _ := epochOrder(t, train, o, false)
		same := 0
		for i := range a {
			if a[i] == c[i] {
				same++
			}
		}
		if same > 50 { // a random permutation fixes about 1 point
			t.Errorf("seed %d epoch %d shares %d positions with seed 42 epoch 1", o.Seed, o.Epoch, same)
		}
	}
}

// TestShuffleUniform checks that each of 5 samples lands first in about a
// fifth of 20,000 seeded permutations (5 standard deviations allowed).
func TestShuffleUniform(t *testing.T) {
	s := &mnist.Set{N: 5, Rows: 1, Cols: 1, Pixels: []uint8{0, 1, 2, 3, 4}, Labels: []uint8{0, 1, 2, 3, 4}}
	const trials = 20000
	var first [5]int
	for seed := range uint64(trials) {
		it := s.Batches(mnist.BatchOptions{Size: 5, Shuffle: true, Seed: seed})
		if !it.Next() {
			t.Fatal(it.Err())
		}
		first[it.Indices()[0]]++
	}
	mean, sd := trials/5.0, math.Sqrt(trials*0.2*0.8)
	for i, n := range first {
		if math.Abs(float64(n)-mean) > 5*sd {
			t.Errorf("sample %d first in %d of %d permutations, want %.0f ± %.0f", i, n, trials, mean, 5*sd)
		}
	}
}

// TestBatchesAllocation: a batch costs its two tensors and no per-sample
// memory or fresh scratch. Each Next is measured alternately with building
// the same two tensors from ready slices, so both see the same state of the
// CPU buffer pool; over 50 batches the iterator may allocate at most a
// quarter of a payload per batch more (a fresh scratch would add a whole
// one) and at most a few more allocations per batch (per-sample garbage
// would add 128).
func TestBatchesAllocation(t *testing.T) {
	train, _ := load(t)
	const size, batches = 128, 50
	pix, lab := make([]float32, size*784), make([]int32, size)
	it := train.Batches(mnist.BatchOptions{Size: size, Shuffle: true, Seed: 1})
	it.Next() // the first batch allocates the scratch
	var baseN, baseB, n, b uint64
	for range batches {
		dn, db := allocs(func() {
			x, y := tensor.FromSlice(pix, size, 784), tensor.FromSlice(lab, size)
			x.Release()
			y.Release()
		})
		baseN, baseB = baseN+dn, baseB+db
		dn, db = allocs(func() {
			if !it.Next() {
				t.Fatal(it.Err())
			}
			x, y := it.Batch()
			x.Release()
			y.Release()
		})
		n, b = n+dn, b+db
	}
	payload := float64(size*784*4 + size*4)
	if n > baseN+3*batches || float64(b) > float64(baseB)+0.25*payload*batches {
		t.Errorf("per batch: %.1f allocations of %.0f bytes; the two tensors alone: %.1f of %.0f bytes (payload %.0f)",
			float64(n)/batches, float64(b)/batches, float64(baseN)/batches, float64(baseB)/batches, payload)
	}
}

// allocs returns the number of heap allocations f makes and their bytes.
func allocs(f func()) (n, bytes uint64) {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.Mallocs - a.Mallocs, b.TotalAlloc - a.TotalAlloc
}

// ExampleSet_Batches walks the first batches of an epoch in file order.
func ExampleSet_Batches() {
	train, _, err := mnist.LoadDefault()
	if err != nil {
		fmt.Println(err)
		return
	}
	it := train.Batches(mnist.BatchOptions{Size: 4, NCHW: true})
	for b := 0; b < 2 && it.Next(); b++ {
		x, y := it.Batch()
		labels, _ := tensor.ToSlice[int32](y)
		fmt.Println(x.DType(), x.Shape(), labels)
	}
	fmt.Println(it.Len(), "batches in an epoch")
	// Output:
	// f32 [4 1 28 28] [5 0 4 1]
	// f32 [4 1 28 28] [9 2 1 3]
	// 15000 batches in an epoch
}

// BenchmarkEpoch builds a shuffled epoch of 128-sample batches and, in the
// same run, the anchor: a raw loop converting the same bytes to f32 in file
// order through a 256-entry table, with no tensors and no shuffling, the
// least any loader must do.
func BenchmarkEpoch(b *testing.B) {
	train, _ := load(b)
	b.Run("tessera", func(b *testing.B) {
		for b.Loop() {
			it := train.Batches(mnist.BatchOptions{Size: 128, Shuffle: true, Seed: 1, Normalize: true})
			for it.Next() {
				x, y := it.Batch()
				x.Release()
				y.Release()
			}
		}
		b.ReportMetric(float64(train.N)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	})
	b.Run("rawloop", func(b *testing.B) {
		dst := make([]float32, 128*784)
		var lut [256]float32
		for v := range lut {
			lut[v] = (float32(v)/255 - 0.1307) / 0.3081
		}
		for b.Loop() {
			for at := 0; at < len(train.Pixels); at += len(dst) {
				src := train.Pixels[at:min(at+len(dst), len(train.Pixels))]
				for j, p := range src {
					dst[j] = lut[p]
				}
			}
		}
		b.ReportMetric(float64(train.N)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	})
}
