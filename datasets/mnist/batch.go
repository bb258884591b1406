package mnist

import (
	"math/bits"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/tensor"
)

// Mean and Std are the mean and standard deviation of MNIST's training
// pixels scaled to [0, 1], the constants PyTorch's MNIST example normalises
// with.
const (
	Mean = 0.1307
	Std  = 0.3081
)

// BatchOptions says how Batch and Batches shape the tensors they build.
// The zero value gives flat, unshuffled, unnormalised batches of one sample
// on the CPU; set Size.
type BatchOptions struct {
	// Size is the number of samples per batch (Batches needs Size >= 1).
	Size int
	// Shuffle visits the samples in a permutation drawn from Seed and Epoch
	// instead of in file order.
	Shuffle bool
	// Seed and Epoch pick the permutation: the same pair always gives the
	// same order, and each epoch of one seed a different one.
	Seed  uint64
	Epoch int
	// DropLast drops a final batch smaller than Size instead of serving it.
	DropLast bool
	// NCHW shapes images [B, 1, Rows, Cols] for convolutions instead of
	// [B, Rows*Cols].
	NCHW bool
	// Normalize maps a pixel p/255 to (p/255 - Mean) / Std instead of
	// leaving it in [0, 1].
	Normalize bool
	// Device, when not nil, is where the batch tensors are placed (the
	// default is the CPU).
	Device device.Device
}

// pixelTable maps each byte value to the f32 a batch holds for it, so
// building a batch is one table look-up per pixel.
func pixelTable(normalize bool) *[256]float32 {
	var t [256]float32
	for v := range t {
		x := float64(v) / 255
		if normalize {
			x = (x - Mean) / Std
		}
		t[v] = float32(x)
	}
	return &t
}

// batcher owns the scratch one batch is assembled in, reused across
// batches so no per-sample memory is allocated.
type batcher struct {
	set *Set
	opt BatchOptions
	lut *[256]float32
	pix []float32
	lab []int32
}

func newBatcher(s *Set, opt BatchOptions) *batcher {
	return &batcher{set: s, opt: opt, lut: pixelTable(opt.Normalize)}
}

// build returns the images and labels of samples idx, which are in range.
func (b *batcher) build(idx []int) (images, labels *tensor.Tensor) {
	s, n := b.set, len(idx)
	f := s.Features()
	if cap(b.pix) < n*f {
		b.pix = make([]float32, n*f)
		b.lab = make([]int32, n)
	}
	pix, lab, lut := b.pix[:n*f], b.lab[:n], b.lut
	for k, i := range idx {
		src := s.Pixels[i*f : (i+1)*f]
		dst := pix[k*f : k*f+len(src)]
		for j, p := range src {
			dst[j] = lut[p]
		}
		lab[k] = int32(s.Labels[i])
	}
	shape := []int{n, f}
	if b.opt.NCHW {
		shape = []int{n, 1, s.Rows, s.Cols}
	}
	images, labels = tensor.FromSlice(pix, shape...), tensor.FromSlice(lab, n)
	if d := b.opt.Device; d != nil {
		hi, hl := images, labels
		images, labels = hi.To(d), hl.To(d)
		hi.Release()
		hl.Release()
	}
	return images, labels
}

// Batch returns the samples idx (in that order, repeats allowed) as images,
// f32 [len(idx), Rows*Cols] or [len(idx), 1, Rows, Cols] scaled as opt says,
// and labels, i32 [len(idx)]. I32 is the label dtype every device computes
// with (WebGPU has no 64-bit integer compare); compare it with
// ArgMax(...).Cast(dtype.I32). An index outside [0, N) or an empty idx is
// an ErrValue; opt.Size, Shuffle, Seed, Epoch and DropLast are ignored.
func (s *Set) Batch(idx []int, opt BatchOptions) (images, labels *tensor.Tensor, err error) {
	if len(idx) == 0 {
		return nil, nil, errs.New("mnist", "Batch", errs.ErrValue, "no indices")
	}
	for k, i := range idx {
		if i < 0 || i >= s.N {
			return nil, nil, errs.New("mnist", "Batch", errs.ErrValue, "index %d (position %d) outside [0, %d)", i, k, s.N)
		}
	}
	images, labels = newBatcher(s, opt).build(idx)
	if err = images.Err(); err == nil {
		err = labels.Err()
	}
	return images, labels, err
}

// Iterator serves one epoch of a Set in batches, like bufio.Scanner: call
// Next until it returns false, read each batch with Batch, then check Err.
// The caller owns the tensors of each batch (Release frees device memory
// early; otherwise it is freed when they become unreachable).
type Iterator struct {
	b      *batcher
	order  []int
	pos    int
	cur    []int
	images *tensor.Tensor
	labels *tensor.Tensor
	err    error
}

// Batches returns an iterator over one epoch of s. With opt.Shuffle the
// order is a permutation drawn from opt.Seed and opt.Epoch, the same on
// every run and platform; every sample appears exactly once per epoch
// (except the ones a dropped last batch holds). opt.Size < 1 makes the
// iterator yield nothing and Err report an ErrValue.
func (s *Set) Batches(opt BatchOptions) *Iterator {
	it := &Iterator{b: newBatcher(s, opt)}
	if opt.Size < 1 {
		it.err = errs.New("mnist", "Batches", errs.ErrValue, "batch size %d, want >= 1", opt.Size)
		return it
	}
	it.order = make([]int, s.N)
	for i := range it.order {
		it.order[i] = i
	}
	if opt.Shuffle {
		shuffle(it.order, opt.Seed, uint64(opt.Epoch))
	}
	if opt.DropLast {
		it.order = it.order[:s.N/opt.Size*opt.Size]
	}
	return it
}

// Len is the number of batches the epoch holds.
func (it *Iterator) Len() int {
	if it.err != nil && it.order == nil {
		return 0
	}
	sz := it.b.opt.Size
	return (len(it.order) + sz - 1) / sz
}

// Samples is the number of samples the epoch holds (N, less a dropped last
// batch), the total a progress display counts towards.
func (it *Iterator) Samples() int { return len(it.order) }

// Next builds the next batch and reports whether there is one.
func (it *Iterator) Next() bool {
	if it.err != nil || it.pos >= len(it.order) {
		it.cur, it.images, it.labels = nil, nil, nil
		return false
	}
	end := min(it.pos+it.b.opt.Size, len(it.order))
	it.cur = it.order[it.pos:end:end]
	it.pos = end
	it.images, it.labels = it.b.build(it.cur)
	if err := it.images.Err(); err != nil {
		it.err = err
	} else if err := it.labels.Err(); err != nil {
		it.err = err
	}
	return it.err == nil
}

// Batch returns the current batch: images f32 [B, Rows*Cols] (or
// [B, 1, Rows, Cols] with NCHW) and labels i32 [B], B = Size except
// perhaps for the last batch.
func (it *Iterator) Batch() (images, labels *tensor.Tensor) { return it.images, it.labels }

// Indices returns the sample indices of the current batch, in batch order;
// the slice is only valid until the next call of Next.
func (it *Iterator) Indices() []int { return it.cur }

// Err returns the first error met, or nil after a complete epoch.
func (it *Iterator) Err() error { return it.err }

// shuffle permutes order with Fisher–Yates driven by a PCG generator seeded
// with (seed, stream): written out here, not taken from math/rand, so the
// permutation of a seed never changes with the Go release.
func shuffle(order []int, seed, stream uint64) {
	r := pcg{state: seed, inc: stream<<1 | 1}
	r.next()
	r.state += seed
	r.next()
	for i := len(order) - 1; i > 0; i-- {
		j := r.below(uint64(i + 1))
		order[i], order[j] = order[j], order[i]
	}
}

// pcg is a 64-bit linear congruential generator whose state is scrambled by
// PCG's RXS-M-XS output permutation (O'Neill's 64-bit-state, 64-bit-output
// member of the family); inc selects one of 2^63 independent streams.
type pcg struct{ state, inc uint64 }

func (p *pcg) next() uint64 {
	const mul = 6364136223846793005
	old := p.state
	p.state = old*mul + p.inc
	w := ((old >> ((old >> 59) + 5)) ^ old) * 12605985483714917081
	return (w >> 43) ^ w
}

// below returns a uniform value in [0, n) by Lemire's multiply-and-reject
// method, which has no modulo bias.
func (p *pcg) below(n uint64) uint64 {
	hi, lo := bits.Mul64(p.next(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(p.next(), n)
		}
	}
	return hi
}
