package cpu

import (
	"runtime"
	"sync"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/gemm"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/internal/par"
	"github.com/tessera-go/tessera/layout"
)

// Matmul multiplies batches of matrices: a [..., m, k] times b [..., k, n]
// into dst [..., m, n]. F32 and F64 run the packed SIMD GEMM of package
// gemm, F16 and BF16 its half-precision products (float32 accumulation,
// one rounding into dst); transposed and narrowed operands are passed to it
// as trans flags and leading dimensions (its packing reads either order at
// full speed), and only General views are copied first.
func (d *Device) Matmul(dst, a, b device.Operand) error {
	bufs, err := d.operands("Matmul", dst, a, b)
	if err != nil {
		return err
	}
	db, ab, bb := bufs[0], bufs[1], bufs[2]
	al, bl, dl := a.Layout, b.Layout, dst.Layout
	if err := device.CheckMatmul("cpu", dst.Arg(), a.Arg(), b.Arg()); err != nil {
		return err
	}
	switch ab.dt {
	case dtype.F32:
		return d.gemmBatched(db, dl, ab, al, bb, bl, func(m mat, x, y mat) error {
			return gemm.F32(x.trans, y.trans, m.rows, m.cols, x.inner, 1,
				slice[float32](x.buf)[x.off:], x.ld, slice[float32](y.buf)[y.off:], y.ld, 0, slice[float32](m.buf)[m.off:], m.ld)
		})
	case dtype.F64:
		return d.gemmBatched(db, dl, ab, al, bb, bl, func(m mat, x, y mat) error {
			return gemm.F64(x.trans, y.trans, m.rows, m.cols, x.inner, 1,
				slice[float64](x.buf)[x.off:], x.ld, slice[float64](y.buf)[y.off:], y.ld, 0, slice[float64](m.buf)[m.off:], m.ld)
		})
	case dtype.F16, dtype.BF16:
		// The half-precision GEMM reads the operands as they are,
		// accumulates in float32 and rounds each region of the result
		// once, while it is in cache (gemm.BF16To/F16To). A destination
		// that is not contiguous gets a contiguous result copied in.
		out, ol := db, dl
		if !dl.IsContiguous() {
			ol, _ = layout.Contiguous(dl.Shape...)
			out = newTemp(d, ab.dt, dl.Numel())
		}
		mul := func(m mat, x, y mat) error {
			return gemm.F16To(x.trans, y.trans, m.rows, m.cols, x.inner,
				slice[dtype.Float16](x.buf)[x.off:], x.ld, slice[dtype.Float16](y.buf)[y.off:], y.ld, slice[dtype.Float16](m.buf)[m.off:], m.ld)
		}
		if ab.dt == dtype.BF16 {
			mul = func(m mat, x, y mat) error {
				return gemm.BF16To(x.trans, y.trans, m.rows, m.cols, x.inner,
					slice[dtype.BFloat16](x.buf)[x.off:], x.ld, slice[dtype.BFloat16](y.buf)[y.off:], y.ld, slice[dtype.BFloat16](m.buf)[m.off:], m.ld)
			}
		}
		if err := d.gemmBatched(out, ol, ab, al, bb, bl, mul); err != nil {
			return err
		}
		if out != db {
			return d.copyInto(db, dl, out, ol)
		}
	case dtype.I32:
		naiveMatmul(slice[int32](db), dl, slice[int32](ab), al, slice[int32](bb), bl)
	case dtype.I64:
		naiveMatmul(slice[int64](db), dl, slice[int64](ab), al, slice[int64](bb), bl)
	case dtype.U8:
		naiveMatmul(slice[uint8](db), dl, slice[uint8](ab), al, slice[uint8](bb), bl)
	default:
		return errs.New("cpu", "Matmul", errs.ErrDType, "not defined for %v", ab.dt)
	}
	return nil
}

// mat is one matrix operand as a GEMM sees it.
type mat struct {
	buf        *Buffer
	off, ld    int
	trans      bool
	rows, cols int
	inner      int // k, for the left operand
}

// gemmBatched classifies each operand once, copies General ones to a
// contiguous scratch buffer, and runs gemm per matrix of the batch,
// spreading matrices over cores when there are several.
func (d *Device) gemmBatched(db *Buffer, dl layout.Layout, ab *Buffer, al layout.Layout, bb *Buffer, bl layout.Layout, mul func(m mat, x, y mat) error) error {
	r := dl.Rank()
	rows, cols, k := dl.Shape[r-2], dl.Shape[r-1], al.Shape[r-1]
	if dl.Numel() == 0 {
		return nil
	}
	if k == 0 {
		return d.Fill(device.Operand{Buf: db, Layout: dl}, 0)
	}
	prep := func(b *Buffer, l layout.Layout) (*Buffer, layout.Layout, layout.Matrix, error) {
		m, _ := l.Classify2D()
		if m.Kind == layout.General {
			cl, _ := layout.Contiguous(l.Shape...)
			t := newTemp(d, b.dt, cl.Numel())
			if err := d.copyInto(t, cl, b, l); err != nil {
				return nil, l, m, err
			}
			b, l = t, cl
			m, _ = l.Classify2D()
		}
		return b, l, m, nil
	}
	ab, al, am, err := prep(ab, al)
	if err != nil {
		return err
	}
	bb, bl, bm, err := prep(bb, bl)
	if err != nil {
		return err
	}
	dm, _ := dl.Classify2D()
	if dm.Kind != layout.RowMajor {
		return errs.New("cpu", "Matmul", errs.ErrShape, "destination layout %v must be row-major", dl.Strides)
	}
	aOffs, bOffs, dOffs := al.BatchOffsets(), bl.BatchOffsets(), dl.BatchOffsets()
	bo := batchOperands{
		d:     mat{buf: db, ld: dm.LD, rows: rows, cols: cols},
		a:     operandMat(ab, am, k),
		b:     operandMat(bb, bm, k),
		dOffs: dOffs, aOffs: aOffs, bOffs: bOffs,
	}
	workers := min(runtime.GOMAXPROCS(0), len(dOffs))
	if workers <= 1 || rows*cols*k >= 1<<18 {
		// Large matrices: the GEMM spreads each one over the cores.
		for i := range dOffs {
			if err := mul(bo.at(i)); err != nil {
				return errs.Retag("cpu", "Matmul", err)
			}
		}
		return nil
	}
	// Many small matrices: spread the batch instead.
	var first error
	var once sync.Once
	shared := bo // escapes to the workers; bo stays on the stack
	par.For(len(dOffs), workers, func(i int) {
		if err := mul(shared.at(i)); err != nil {
			once.Do(func() { first = err })
		}
	})
	return errs.Retag("cpu", "Matmul", first)
}

// operandMat is the GEMM operand of matrix m of b, with inner dimension k
// (its offset set per batch element).
func operandMat(b *Buffer, m layout.Matrix, k int) mat {
	return mat{buf: b, ld: m.LD, trans: m.Kind == layout.ColMajor, rows: m.Rows, cols: m.Cols, inner: k}
}

// batchOperands are the destination and operands of a batched product,
// and each one's offset for every batch element.
type batchOperands struct {
	d, a, b             mat
	dOffs, aOffs, bOffs []int
}

// at returns the matrices of batch element i.
func (bo *batchOperands) at(i int) (d, a, b mat) {
	d, a, b = bo.d, bo.a, bo.b
	d.off, a.off, b.off = bo.dOffs[i], bo.aOffs[i], bo.bOffs[i]
	return d, a, b
}

func naiveMatmul[T ~int32 | ~int64 | ~uint8](dst []T, dl layout.Layout, a []T, al layout.Layout, b []T, bl layout.Layout) {
	if dl.Numel() == 0 {
		return
	}
	r := dl.Rank()
	m, n, k := dl.Shape[r-2], dl.Shape[r-1], al.Shape[r-1]
	aOffs, bOffs, dOffs := al.BatchOffsets(), bl.BatchOffsets(), dl.BatchOffsets()
	ars, acs := al.Strides[r-2], al.Strides[r-1]
	brs, bcs := bl.Strides[r-2], bl.Strides[r-1]
	drs, dcs := dl.Strides[r-2], dl.Strides[r-1]
	for t := range dOffs {
		for i := range m {
			for j := range n {
				var s T
				for p := range k {
					s += a[aOffs[t]+i*ars+p*acs] * b[bOffs[t]+p*brs+j*bcs]
				}
				dst[dOffs[t]+i*drs+j*dcs] = s
			}
		}
	}
}
