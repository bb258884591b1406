package mnist_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/datasets/mnist"
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
