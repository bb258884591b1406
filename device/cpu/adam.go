package cpu

import (
	"runtime"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/internal/par"
)

// AdamStep runs Adam's update (device.AdamStepper) as one pass of
// vec.Adam over contiguous float32 or float64 operands, split over the
// cores like a fused elementwise program. Other dtypes and layouts report
// ok false.
func (d *Device) AdamStep(dsts [3]device.Operand, ins [4]device.Operand, c device.AdamCoeffs) (bool, error) {
	all := append(dsts[:], ins[:]...)
	bufs, err := d.operands("AdamStep", all...)
	if err != nil {
		return false, err
	}
	if err := sameShape("AdamStep", all...); err != nil {
		return false, err
	}
	dt := bufs[0].dt
	for k, o := range all {
		if bufs[k].dt != dt || !o.Layout.IsContiguous() {
			return false, nil
		}
	}
	switch dt {
	case dtype.F32:
		adamInto(all, bufs, vec.AdamCoeffs[float32]{B1: float32(c.B1), OneMinusB1: float32(1 - c.B1), B2: float32(c.B2), OneMinusB2: float32(1 - c.B2),
			SqrtBC2: float32(c.SqrtBC2), Eps: float32(c.Eps), Step: float32(c.Step)})
	case dtype.F64:
		adamInto(all, bufs, vec.AdamCoeffs[float64]{B1: c.B1, OneMinusB1: 1 - c.B1, B2: c.B2, OneMinusB2: 1 - c.B2,
			SqrtBC2: c.SqrtBC2, Eps: c.Eps, Step: c.Step})
	default:
		return false, nil
	}
	return true, nil
}

// adamBlock is the number of elements a worker updates per vec.Adam call
// in adamInto, a multiple of the vector width: blocks are claimed as a
// fused program's are, so a worker that is late (its core busy with other
// work) leaves its unstarted blocks to the others.
const adamBlock = 1 << 14

// adamInto runs vec.Adam over the operands all (the three destinations,
// then the four inputs, every layout contiguous) in blocks of adamBlock
// elements, each worker taking its own contiguous run of blocks first and
// then the blocks the others have not started (blockClaimer).
func adamInto[T vec.Float](all []device.Operand, bufs []*Buffer, c vec.AdamCoeffs[T]) {
	n := all[0].Layout.Numel()
	var s [7][]T
	for k, o := range all {
		s[k] = slice[T](bufs[k])[o.Layout.Offset : o.Layout.Offset+n]
	}
	block := func(lo, hi int) {
		// The inputs are read-only and the outputs fresh and unaliased:
		// vec.Adam's checks cannot fail.
		_ = vec.Adam(s[3][lo:hi], s[4][lo:hi], s[5][lo:hi], s[6][lo:hi], s[0][lo:hi], s[1][lo:hi], s[2][lo:hi], c)
	}
	nblocks := (n + adamBlock - 1) / adamBlock
	workers := 1
	if n >= fusedMinParallel {
		workers = min(runtime.GOMAXPROCS(0), nblocks)
	}
	if workers == 1 {
		block(0, n)
		return
	}
	runs := splitRuns(nblocks, workers)
	par.RunClaimed(workers, func(w int) {
		blocks := newBlockClaimer(runs, w, nblocks)
		for b, ok := blocks.next(); ok; b, ok = blocks.next() {
			block(b*adamBlock, min(n, (b+1)*adamBlock))
		}
	})
}

var _ device.AdamStepper = (*Device)(nil)
