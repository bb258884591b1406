//go:build cgo

package webgpu

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// matmulCap bounds the multiply-adds of one dispatch, so no single GPU call
// runs for long (see DESIGN.md: long calls and wgpu's Poll do not mix).
const matmulCap = 1 << 27

// mmChunk is the most of the inner dimension k one dispatch covers. The
// kernels loop over k inside an invocation, and drivers stop or kill long
// per-invocation loops: lavapipe ends all of a shader's loops together
// after 65,535 iterations, and real drivers have watchdogs. At 16384 the
// longest loop nest (naive: 16384 iterations; shared: 1024 steps of 21
// loop iterations; regblock: 4096 steps) stays well below that limit,
// while re-reading and re-writing C once per chunk costs under 1/16384 of
// the multiply-adds. A multiple of 16, so chunks keep shared's 16-wide
// k-steps whole and vec4 loads aligned.
const mmChunk = 1 << 14

// mmOperand is a matrix operand read in place: element (i, j) of batch b at
// off + b*bs + i*ld + j, or off + b*bs + j*ld + i when trans.
type mmOperand struct {
	b          *gbuf
	off, ld    int
	bs         int
	trans      bool
	rows, cols int
	batch      int
}

// vecOK reports whether 16-byte vector loads of the operand are aligned.
func (o mmOperand) vecOK() bool {
	return o.b.dt == dtype.F32 && o.off%4 == 0 && o.ld%4 == 0 && o.bs%4 == 0
}

// kSlice returns the operand restricted to inner-dimension positions
// [k0, k0+kc): those columns of a left operand (left), or those rows of a
// right one.
func (o mmOperand) kSlice(left bool, k0, kc int) mmOperand {
	// Element (i, j) is at off + i*ld + j, or off + j*ld + i when trans:
	// the next column is 1 position on (ld when trans), the next row ld
	// (1 when trans).
	colStep, rowStep := 1, o.ld
	if o.trans {
		colStep, rowStep = o.ld, 1
	}
	if left {
		o.off += k0 * colStep
		o.cols = kc
	} else {
		o.off += k0 * rowStep
		o.rows = kc
	}
	return o
}

// span returns the positions batches [b0, b1) touch.
func (o mmOperand) span(b0, b1 int) (int64, int64) {
	rs, cs := o.ld, 1
	if o.trans {
		rs, cs = 1, o.ld
	}
	lo, hi, _ := spanOf([]int{b1 - b0, o.rows, o.cols}, []int{o.bs, rs, cs}, o.off+b0*o.bs)
	return lo, hi
}

// Matmul multiplies a [..., m, k] by b [..., k, n] into dst [..., m, n];
// all share the batch shape (a broadcast batch has stride 0). Row-major,
// transposed (column-major) and narrowed operands are read in place; only
// general views, or batch axes that do not collapse to one stride, are first
// copied to a contiguous buffer on the GPU. An inner dimension above
// mmChunk runs as several dispatches that accumulate (see mmRunLocked).
func (g *gpu) Matmul(dst, a, b device.Operand) error {
	return g.matmulWith("Matmul", dst, a, b, "")
}

// matmulWith runs Matmul with a kernel variant ("" for the device's choice).
func (g *gpu) matmulWith(name string, dst, a, b device.Operand, variant string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.usableLocked(name); err != nil {
		return err
	}
	d, err := g.operandLocked(name, "dst", dst)
	if err != nil {
		return err
	}
	x, err := g.operandLocked(name, "a", a)
	if err != nil {
		return err
	}
	y, err := g.operandLocked(name, "b", b)
	if err != nil {
		return err
	}
	r := len(x.shape)
	if r < 2 || len(y.shape) != r || len(d.shape) != r {
		return errs.New("webgpu", name, errs.ErrShape, "need operands of one rank >= 2, have %v x %v -> %v", x.shape, y.shape, d.shape)
	}
	m, k, n := x.shape[r-2], x.shape[r-1], y.shape[r-1]
	if y.shape[r-2] != k || d.shape[r-2] != m || d.shape[r-1] != n || !sameShape(x.shape[:r-2], y.shape[:r-2]) || !sameShape(x.shape[:r-2], d.shape[:r-2]) {
		return errs.New("webgpu", name, errs.ErrShape, "cannot multiply %v by %v into %v", x.shape, y.shape, d.shape)
	}
	dt := x.b.dt
	if y.b.dt != dt || d.b.dt != dt {
		return errs.New("webgpu", name, errs.ErrDType, "operands must share a dtype, have %s x %s -> %s", dt, y.b.dt, d.b.dt)
	}
	switch dt {
	case dtype.F32, dtype.F16:
	case dtype.I32, dtype.U8:
		return errs.New("webgpu", name, errs.ErrUnsupported, "integer matmul (%s) is not implemented on WebGPU; cast to f32", dt)
	default:
		return errs.New("webgpu", name, errs.ErrDType, "matmul is not defined for %s", dt)
	}
	if err := noAlias(name, d, x, y); err != nil {
		return err
	}
	if d.numel == 0 {
		return nil
	}
	if k == 0 {
		return g.fillLocked(name, d, 0)
	}
	if variant == "" {
		variant = g.mmVariant
	}
	A, tmpA, err := g.mmOperandLocked(name, x)
	if err != nil {
		return err
	}
	defer g.releaseTempLocked(tmpA)
	B, tmpB, err := g.mmOperandLocked(name, y)
	if err != nil {
		return err
	}
	defer g.releaseTempLocked(tmpB)
	if dt == dtype.F16 && k > mmChunk {
		// Chunks accumulate in an f32 scratch, rounded to f16 once by the
		// final copy (packed f16 is stored with atomics and would round
		// once per chunk).
		acc, err := g.tempLocked(name, dtype.F32, d.numel)
		if err != nil {
			return err
		}
		defer g.releaseTempLocked(acc)
		C := mmOperand{b: acc, off: 0, ld: n, bs: m * n, rows: m, cols: n, batch: d.numel / (m * n)}
		if err := g.mmRunLocked(name, variant, C, A, B); err != nil {
			return err
		}
		cl, _ := layout.Contiguous(d.shape...)
		return g.copyLocked(name, d, opnd{b: acc, shape: cl.Shape, strides: cl.Strides, numel: d.numel})
	}
	// The destination must be row-major with one batch stride; otherwise
	// compute into a contiguous temporary and copy.
	dl := layout.Layout{Shape: d.shape, Strides: d.strides, Offset: d.off}
	cm, _ := dl.Classify2D()
	if cm.Kind == layout.RowMajor && (cm.Collapsed || cm.Batch <= 1) && (cm.Batch <= 1 || cm.BatchStride != 0) {
		C := mmOperand{b: d.b, off: cm.Offset, ld: cm.LD, bs: cm.BatchStride, rows: m, cols: n, batch: cm.Batch}
		return g.mmRunLocked(name, variant, C, A, B)
	}
	tmp, err := g.tempLocked(name, dt, d.numel)
	if err != nil {
		return err
	}
	defer g.releaseTempLocked(tmp)
	C := mmOperand{b: tmp, off: 0, ld: n, bs: m * n, rows: m, cols: n, batch: cm.Batch}
	if err := g.mmRunLocked(name, variant, C, A, B); err != nil {
		return err
	}
	cl, _ := layout.Contiguous(d.shape...)
	return g.copyLocked(name, d, opnd{b: tmp, shape: cl.Shape, strides: cl.Strides, numel: d.numel})
}

// mmOperandLocked classifies an operand; general layouts are copied to a
// contiguous temporary (returned so the caller frees it).
func (g *gpu) mmOperandLocked(name string, o opnd) (mmOperand, *gbuf, error) {
	l := layout.Layout{Shape: o.shape, Strides: o.strides, Offset: o.off}
	mx, err := l.Classify2D()
	if err != nil {
		return mmOperand{}, nil, errs.Retag("webgpu", name, err)
	}
	if mx.Kind != layout.General && (mx.Collapsed || mx.Batch <= 1) {
		return mmOperand{b: o.b, off: mx.Offset, ld: mx.LD, bs: mx.BatchStride, trans: mx.Kind == layout.ColMajor,
			rows: mx.Rows, cols: mx.Cols, batch: mx.Batch}, nil, nil
	}
	tmp, err := g.tempLocked(name, o.b.dt, o.numel)
	if err != nil {
		return mmOperand{}, nil, err
	}
	cl, _ := layout.Contiguous(o.shape...)
	if err := g.copyLocked(name, opnd{b: tmp, shape: cl.Shape, strides: cl.Strides, numel: o.numel}, o); err != nil {
		g.releaseTempLocked(tmp)
		return mmOperand{}, nil, err
	}
	return mmOperand{b: tmp, off: 0, ld: mx.Cols, bs: mx.Rows * mx.Cols, rows: mx.Rows, cols: mx.Cols, batch: mx.Batch}, tmp, nil
}

// mmTile is the output tile one workgroup of a variant computes.
func mmTile(variant string) int {
	switch variant {
	case "naive":
		return 16
	case "shared":
		return 64
	}
	return 32
}

// mmRunLocked computes C = A x B. An inner dimension above mmChunk is split
// into near-equal chunks (multiples of 16, at most mmChunk), dispatched in
// order on the same C: the first writes it, the later ones add to it, so no
// invocation loops over more than mmChunk positions of k. A k of at most
// mmChunk is one pass, exactly as without chunking. C must be f32 when k is
// split (Matmul gives an f16 product an f32 scratch).
func (g *gpu) mmRunLocked(name, variant string, C, A, B mmOperand) error {
	k := A.cols
	if k <= mmChunk {
		return g.mmPassLocked(name, variant, C, A, B, false)
	}
	if C.b.dt != dtype.F32 {
		return errs.New("webgpu", name, errs.ErrUnsupported, "cannot accumulate a split inner dimension (k = %d) into %s", k, C.b.dt)
	}
	chunks := (k + mmChunk - 1) / mmChunk
	kc := ((k+chunks-1)/chunks + 15) &^ 15
	for k0 := 0; k0 < k; k0 += kc {
		w := min(kc, k-k0)
		if err := g.mmPassLocked(name, variant, C, A.kSlice(true, k0, w), B.kSlice(false, k0, w), k0 > 0); err != nil {
			return err
		}
	}
	return nil
}

// mmPassLocked dispatches the kernel over batch ranges whose bindings fit
// the device limit and row bands that keep each dispatch short; accum adds
// the product to C instead of overwriting it (f32 C only).
func (g *gpu) mmPassLocked(name, variant string, C, A, B mmOperand, accum bool) error {
	m, n, k := C.rows, C.cols, A.cols
	batch := C.batch
	tile := mmTile(variant)
	vars := map[string]string{}
	switch variant {
	case "naive":
		vars["NAIVE"] = "1"
	case "shared":
		vars["SHARED"] = "1"
	default:
		vars["REGBLOCK"] = "1"
	}
	if A.trans {
		vars["TRANS_A"] = "1"
	}
	if B.trans {
		vars["TRANS_B"] = "1"
	}
	if accum {
		vars["ACCUM"] = "1"
	}
	// F16 operands are packed pairs; f32 ones may take vec4 loads under
	// regblock. (C is f32 whenever k was split, even for f16 inputs.)
	for _, o := range []struct {
		o            mmOperand
		packed, vecv string
	}{{A, "A_PACKED", "VEC_A"}, {B, "B_PACKED", "VEC_B"}, {C, "C_PACKED", "VEC_C"}} {
		if o.o.b.dt == dtype.F16 {
			vars[o.packed] = "1"
		} else if variant == "regblock" && o.o.vecOK() {
			vars[o.vecv] = "1"
		}
	}
	kern, err := g.kernelLocked(name, "matmul.wgsl", vars, 1, 2)
	if err != nil {
		return err
	}
	fits := func(o mmOperand, b0, b1 int) bool {
		lo, hi := o.span(b0, b1)
		return g.fits(lo, hi, gpuElemBytes(o.b.dt))
	}
	for _, o := range []struct {
		n string
		o mmOperand
	}{{"a", A}, {"b", B}, {"dst", C}} {
		if !fits(o.o, 0, 1) {
			lo, hi := o.o.span(0, 1)
			return errs.New("webgpu", name, errs.ErrOutOfMemory,
				"one %dx%d matrix of %s spans %d bytes, above the %d-byte storage binding limit (maxStorageBufferBindingSize)",
				o.o.rows, o.o.cols, o.n, (hi-lo)*int64(gpuElemBytes(o.o.b.dt)), g.lim.maxBinding)
		}
	}
	maxWG := int(g.lim.maxWG)
	perMat := int64(m) * int64(n) * int64(k)
	var calls []call
	for b0 := 0; b0 < batch; {
		// Batches in this binding window.
		nb := min(batch-b0, maxWG)
		if perMat > 0 {
			nb = min(nb, max(1, int(matmulCap/perMat)))
		}
		for nb > 1 && !(fits(A, b0, b0+nb) && fits(B, b0, b0+nb) && fits(C, b0, b0+nb)) {
			nb = (nb + 1) / 2
		}
		ws := [3]window{}
		for i, o := range []mmOperand{C, A, B} {
			lo, hi := o.span(b0, b0+nb)
			ws[i] = g.windowFor(o.b, lo, hi)
		}
		// Rows per dispatch: a multiple of the tile, bounded by the grid
		// limit and the work cap.
		rowsPer := m
		if nb == 1 && perMat > matmulCap {
			rowsPer = max(tile, int(matmulCap/(int64(n)*int64(k)))/tile*tile)
		}
		rowsPer = min(rowsPer, maxWG*tile)
		colsPer := min(n, maxWG*tile)
		for r0 := 0; r0 < m; r0 += rowsPer {
			rows := min(rowsPer, m-r0)
			for c0 := 0; c0 < n; c0 += colsPer {
				cols := min(colsPer, n-c0)
				p := make([]uint32, 20)
				p[0], p[1], p[2], p[3] = uint32(m), uint32(n), uint32(k), uint32(rows)
				for i, o := range []mmOperand{A, B, C} {
					w := ws[(i+1)%3]
					p[4+4*i] = uint32(int32(o.off + b0*o.bs - w.base))
					p[5+4*i] = uint32(int32(o.ld))
					p[6+4*i] = uint32(int32(o.bs))
				}
				p[16], p[17], p[18] = uint32(r0), 0, uint32(c0)
				gx := (cols + tile - 1) / tile
				gy := (rows + tile - 1) / tile
				calls = append(calls, call{k: kern, params: p, binds: []bind{ws[0].bind, ws[1].bind, ws[2].bind},
					grid: [3]uint32{uint32(gx), uint32(gy), uint32(nb)}})
			}
		}
		b0 += nb
	}
	return g.runLocked(name, calls)
}
