package cpu

import (
	"math"
	"runtime"
	"sync/atomic"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/gemm"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

var _ device.Attender = (*Device)(nil)

// Attention block sizes: a block of attBr queries meets the keys a block of
// at most attBc at a time, so a worker holds attBr x attBc scores, never
// L x S. attBr is a multiple of the AVX-512 GEMM tile (14 rows); attBc is
// chosen per call so that one block product stays under the GEMM's
// single-thread size (the workers here already cover the cores).
const (
	attBr     = 56
	attBlock  = 458752 // attBr*attBc*max(E, Ev) at most: the GEMM stays on one goroutine
	attBcMax  = 256
	attBcMin  = 16
	attBcStep = 16
)

// Attention is the fused scaled dot-product attention (device.Attender),
// flash-attention style: for each batch element and block of queries, the
// keys are visited in blocks; each block's scores are one GEMM (scaled
// q k^T), masked, folded into a running row maximum and sum of exponentials
// (the online softmax, rescaling the accumulator when the maximum grows),
// and the block's probabilities times v are added to the accumulator by a
// second GEMM. Memory is O(block) per worker whatever S is. F32 and F64;
// q, k and v must have unit stride along their last axis and a row stride
// the GEMM accepts (ErrUnsupported otherwise: the tensor layer copies
// such views first).
func (d *Device) Attention(dst, q, k, v, mask device.Operand, opt device.AttentionOptions) error {
	const name = "Attention"
	ops := []device.Operand{dst, q, k, v}
	var ma *device.Arg
	if mask.Buf != nil {
		ops = append(ops, mask)
		a := mask.Arg()
		ma = &a
	}
	bufs, err := d.operands(name, ops...)
	if err != nil {
		return err
	}
	if err := device.CheckAttention("cpu", dst.Arg(), q.Arg(), k.Arg(), v.Arg(), ma, opt); err != nil {
		return err
	}
	for i, o := range []device.Operand{dst, q, k, v} {
		if !gemmRows(o.Layout) {
			return errs.New("cpu", name, errs.ErrUnsupported, "%s %v with strides %v is not read in place (make it contiguous)",
				[4]string{"dst", "q", "k", "v"}[i], o.Layout.Shape, o.Layout.Strides)
		}
	}
	a := attCall{q: q.Layout, k: k.Layout, v: v.Layout, dst: dst.Layout, opt: opt}
	if mask.Buf != nil {
		a.mask, a.hasMask, a.boolMask = mask.Layout, true, mask.DType() == dtype.Bool
	}
	var mb *Buffer
	if len(bufs) > 4 {
		mb = bufs[4]
	}
	switch q.DType() {
	case dtype.F32:
		attentionRun(a, bufs[0], bufs[1], bufs[2], bufs[3], mb, gemm.F32)
	case dtype.F64:
		attentionRun(a, bufs[0], bufs[1], bufs[2], bufs[3], mb, gemm.F64)
	default:
		return errs.New("cpu", name, errs.ErrUnsupported, "computes f32 and f64, have %v (cast first)", q.DType())
	}
	return nil
}

// gemmRows reports whether the matrices of l ([..., rows, cols]) are row
// major with a leading dimension the GEMM takes: unit stride along the
// last axis and a row stride of at least cols (or a single row).
func gemmRows(l layout.Layout) bool {
	r := l.Rank()
	rows, cols := l.Shape[r-2], l.Shape[r-1]
	if cols > 1 && l.Strides[r-1] != 1 {
		return false
	}
	return rows <= 1 || l.Strides[r-2] >= max(cols, 1)
}

// ld is the leading dimension the GEMM gets for l's matrices.
func ld(l layout.Layout) int {
	r := l.Rank()
	if l.Shape[r-2] <= 1 {
		return max(l.Shape[r-1], 1)
	}
	return l.Strides[r-2]
}

// attCall is one Attention call's geometry.
type attCall struct {
	q, k, v, dst, mask layout.Layout
	hasMask, boolMask  bool
	opt                device.AttentionOptions
}

// batchOffsets returns, for each flat batch index, the offset of l's
// matrix (l's batch axes are the first rank-2).
func batchOffsets(l layout.Layout) []int {
	r := l.Rank()
	batch := l.Shape[:r-2]
	nb := 1
	for _, e := range batch {
		nb *= e
	}
	out := make([]int, nb)
	idx := make([]int, len(batch))
	for b := range nb {
		off := l.Offset
		for a, i := range idx {
			off += i * l.Strides[a]
		}
		out[b] = off
		for a := len(idx) - 1; a >= 0; a-- {
			if idx[a]++; idx[a] < batch[a] {
				break
			}
			idx[a] = 0
		}
	}
	return out
}

type gemmFn[C vec.Float] func(transA, transB bool, m, n, k int, alpha C, a []C, lda int, b []C, ldb int, beta C, c []C, ldc int) error

func attentionRun[C vec.Float](a attCall, db, qb, kb, vb, mb *Buffer, mm gemmFn[C]) {
	r := a.q.Rank()
	L, E := a.q.Shape[r-2], a.q.Shape[r-1]
	S, Ev := a.k.Shape[r-2], a.v.Shape[r-1]
	if L == 0 || Ev == 0 {
		return
	}
	q, k, v, y := slice[C](qb), slice[C](kb), slice[C](vb), slice[C](db)
	qo, ko, vo, yo := batchOffsets(a.q), batchOffsets(a.k), batchOffsets(a.v), batchOffsets(a.dst)
	var mo []int
	var mf []C
	var mbool []uint8
	msL, msS := 0, 0
	if a.hasMask {
		mo = batchOffsets(a.mask)
		msL, msS = a.mask.Strides[r-2], a.mask.Strides[r-1]
		if a.boolMask {
			mbool = slice[uint8](mb)
		} else {
			mf = slice[C](mb)
		}
	}
	ldq, ldk, ldv, ldy := ld(a.q), ld(a.k), ld(a.v), ld(a.dst)
	nb := len(qo)
	// vFinite[b]: every value of batch b's v is finite. Then a key whose
	// probability is 0 contributes exactly 0 and may be skipped; otherwise
	// 0 * v is computed as the unfused formula does (NaN or Inf in v
	// reaches every row).
	vFinite := make([]bool, nb)
	for b := range nb {
		ok := true
		for j := 0; j < S && ok; j++ {
			for _, x := range v[vo[b]+j*ldv : vo[b]+j*ldv+Ev] {
				if x-x != 0 {
					ok = false
					break
				}
			}
		}
		vFinite[b] = ok
	}
	bc := attBcMax
	if w := max(E, Ev, 1); attBlock/(attBr*w) < bc {
		bc = max(attBcMin, attBlock/(attBr*w)/attBcStep*attBcStep)
	}
	bc = max(1, min(bc, S))
	// Query blocks of at most attBr rows, of even size, so that no block is
	// a sliver the GEMM would take by its skinny path.
	qBlocks := (L + attBr - 1) / attBr
	br := (L + qBlocks - 1) / qBlocks
	items := nb * qBlocks
	scale := C(a.opt.Scale)
	ninf := C(math.Inf(-1))
	var next atomic.Int64
	par.Run(min(runtime.GOMAXPROCS(0), items), func(int) {
		sc := make([]C, br*bc)
		acc := make([]C, br*Ev)
		m := make([]C, br)
		l := make([]C, br)
		attends := make([]bool, br)
		mmax := make([]C, br)
		for {
			it := int(next.Add(1)) - 1
			if it >= items {
				return
			}
			b, i0 := it/qBlocks, (it%qBlocks)*br
			rows := min(br, L-i0)
			for i := range rows {
				m[i], l[i], attends[i], mmax[i] = ninf, 0, false, ninf
			}
			clear(acc[:rows*Ev])
			for j0 := 0; j0 < S; j0 += bc {
				cols := min(bc, S-j0)
				if a.opt.Causal && j0 > i0+rows-1 && vFinite[b] {
					break // every key from here on is masked for every row
				}
				mm(false, true, rows, cols, E, scale, q[qo[b]+i0*ldq:], ldq, k[ko[b]+j0*ldk:], ldk, 0, sc, bc)
				for i := range rows {
					srow := sc[i*bc : i*bc+cols]
					gi := i0 + i
					switch {
					case mbool != nil:
						mp := mo[b] + gi*msL + j0*msS
						for j := range srow {
							if mbool[mp+j*msS] == 0 {
								srow[j] = ninf
							} else {
								attends[i] = true
							}
						}
					case mf != nil:
						mp := mo[b] + gi*msL + j0*msS
						for j := range srow {
							mv := mf[mp+j*msS]
							srow[j] += mv
							if mv != mv || mv > mmax[i] {
								if mmax[i] == mmax[i] {
									mmax[i] = mv
								}
							}
						}
					}
					// Causal: keys past the diagonal take no part; their
					// probabilities are 0 and only the others are exponentiated.
					act := srow
					if a.opt.Causal {
						lim := min(cols, max(gi+1-j0, 0))
						clear(srow[lim:])
						if act = srow[:lim]; lim == 0 {
							continue
						}
					}
					mx, _ := vec.Max(act)
					mnew := max(m[i], mx) // NaN wins
					if mnew == ninf {
						clear(act) // nothing to attend yet: probabilities 0
						continue
					}
					var corr C = 1 // the maximum did not grow
					if m[i] != mnew {
						corr = C(math.Exp(float64(m[i] - mnew))) // 0 from -Inf; NaN stays NaN
					}
					vec.SubScalar(act, act, mnew)
					vec.Exp(act, act)
					l[i] = l[i]*corr + vec.Sum(act)
					if corr != 1 {
						arow := acc[i*Ev : (i+1)*Ev]
						vec.MulScalar(arow, arow, corr)
					}
					m[i] = mnew
				}
				mm(false, false, rows, Ev, cols, 1, sc, bc, v[vo[b]+j0*ldv:], ldv, 1, acc, Ev)
			}
			for i := range rows {
				out := y[yo[b]+(i0+i)*ldy : yo[b]+(i0+i)*ldy+Ev]
				none := (a.boolMask && !attends[i]) || (mf != nil && !(mmax[i] > ninf))
				if !none {
					vec.MulScalar(out, acc[i*Ev:(i+1)*Ev], 1/l[i])
					continue
				}
				// No key takes part: 0 (times v, as the unfused formula).
				clear(out)
				if !vFinite[b] {
					for j := range S {
						for e, x := range v[vo[b]+j*ldv : vo[b]+j*ldv+Ev] {
							out[e] += 0 * x
						}
					}
				}
			}
		}
	})
}
