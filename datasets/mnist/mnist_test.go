package mnist_test

import (
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/datasets/mnist"
	"github.com/tessera-go/tessera/tensor"
)

// The real sets, loaded once for every test that reads them.
var (
	loadOnce          sync.Once
	trainSet, testSet *mnist.Set
	loadErr           error
)

func load(t testing.TB) (train, test *mnist.Set) {
	t.Helper()
	loadOnce.Do(func() { trainSet, testSet, loadErr = mnist.LoadDefault() })
	if loadErr != nil {
		t.Fatalf("LoadDefault: %v", loadErr)
	}
	return trainSet, testSet
}

// TestLoadReal checks the real files against facts published with MNIST:
// the split sizes, the image size, the first training labels and the
// per-digit counts of both splits (LeCun's page and every loader agree).
func TestLoadReal(t *testing.T) {
	train, test := load(t)
	for _, c := range []struct {
		name   string
		s      *mnist.Set
		n      int
		counts [10]int
	}{
		{"train", train, 60000, [10]int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949}},
		{"test", test, 10000, [10]int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}},
	} {
		s := c.s
		if s.N != c.n || s.Rows != 28 || s.Cols != 28 || len(s.Pixels) != c.n*784 || len(s.Labels) != c.n {
			t.Fatalf("%s: N=%d %dx%d, %d pixels, %d labels; want %d 28x28", c.name, s.N, s.Rows, s.Cols, len(s.Pixels), len(s.Labels), c.n)
		}
		var counts [10]int
		for _, l := range s.Labels {
			counts[l]++
		}
		if counts != c.counts {
			t.Errorf("%s label histogram %v, want %v", c.name, counts, c.counts)
		}
		lo, hi := slices.Min(s.Pixels), slices.Max(s.Pixels)
		if lo != 0 || hi != 255 {
			t.Errorf("%s pixel range [%d, %d], want [0, 255]", c.name, lo, hi)
		}
	}
	if got, want := train.Labels[:10], []uint8{5, 0, 4, 1, 9, 2, 1, 3, 1, 4}; !slices.Equal(got, want) {
		t.Errorf("first training labels %v, want %v", got, want)
	}
	if got, want := test.Labels[:10], []uint8{7, 2, 1, 0, 4, 1, 4, 9, 5, 9}; !slices.Equal(got, want) {
		t.Errorf("first test labels %v, want %v", got, want)
	}
}

// TestImagesMatchLabels classifies the test set by the nearest class mean
// of the training images, read through batches: about 82% is known for
// this classifier, while an image paired with the wrong label (an off-by-one
// read, a shuffle applied to one side only) would score about 10%.
func TestImagesMatchLabels(t *testing.T) {
	train, test := load(t)
	const f = 784
	var means [10][f]float64
	var counts [10]float64
	for i := range train.N {
		l := train.Labels[i]
		counts[l]++
		for j, p := range train.Pixels[i*f : (i+1)*f] {
			means[l][j] += float64(p) / 255
		}
	}
	for c := range means {
		for j := range means[c] {
			means[c][j] /= counts[c]
		}
	}
	right := 0
	it := test.Batches(mnist.BatchOptions{Size: 1000, Shuffle: true, Seed: 7})
	for it.Next() {
		x, y := it.Batch()
		xs, err := tensor.ToSlice[float32](x)
		if err != nil {
			t.Fatal(err)
		}
		ys, err := tensor.ToSlice[int32](y)
		if err != nil {
			t.Fatal(err)
		}
		for k, label := range ys {
			best, bestD := -1, math.Inf(1)
			for c := range means {
				d := 0.0
				for j, v := range xs[k*f : (k+1)*f] {
					e := float64(v) - means[c][j]
					d += e * e
				}
				if d < bestD {
					best, bestD = c, d
				}
			}
			if int32(best) == label {
				right++
			}
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	acc := float64(right) / float64(test.N)
	t.Logf("nearest class mean: %.2f%% of the test set", 100*acc)
	if acc < 0.80 || acc > 0.85 {
		t.Errorf("nearest class mean classifies %.2f%% of the test set, want about 82%%", 100*acc)
	}
}
