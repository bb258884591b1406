package gpucore

import (
	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// matmulCap bounds the multiply-adds of one dispatch, so no single GPU call
// runs for long (long calls and wgpu's Poll do not mix).
const matmulCap = 1 << 27

// MatmulChunk is the most of the inner dimension k one dispatch covers.
// The kernels loop over k inside an invocation, and drivers stop or kill
// long per-invocation loops: lavapipe ends all of a shader's loops
// together after 65,535 iterations, and real drivers have watchdogs. At
// 16384 the longest loop nest (naive: 16384 iterations; shared: 1024 steps
// of 21 loop iterations; regblock: 4096 steps) stays well below that
// limit, while re-reading and re-writing C once per chunk costs under
// 1/16384 of the multiply-adds. A multiple of 16, so chunks keep shared's
// 16-wide k-steps whole and vec4 loads aligned.
const MatmulChunk = 1 << 14

// mmOperand is a matrix operand read in place: element (i, j) of batch b at
// off + b*bs + i*ld + j, or off + b*bs + j*ld + i when trans.
type mmOperand struct {
	b          Buffer
	off, ld    int
	bs         int
	trans      bool
	rows, cols int
	batch      int
}

// vecOK reports whether 16-byte vector loads of the operand are aligned.
func (o mmOperand) vecOK() bool {
	return o.b.DType() == dtype.F32 && o.off%4 == 0 && o.ld%4 == 0 && o.bs%4 == 0
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

// Matmul plans dst = a x b for a [..., m, k], b [..., k, n] and dst
// [..., m, n], sharing the batch shape (a broadcast batch has stride 0),
// with kernel variant ("" for the planner's default). Row-major, transposed
// (column-major) and narrowed operands are read in place; only general
// views, or batch axes that do not collapse to one stride, are first copied
// to a contiguous scratch buffer. An inner dimension above MatmulChunk runs
// as several dispatches that accumulate (see run).
func (p *Planner) Matmul(name string, d, x, y Operand, variant string) (*Plan, error) {
	arg := func(o Operand) device.Arg { return device.Arg{DType: o.DT(), Shape: o.Shape} }
	if err := device.CheckMatmul(p.Backend, arg(d), arg(x), arg(y)); err != nil {
		return nil, err
	}
	r := len(x.Shape)
	m, k, n := x.Shape[r-2], x.Shape[r-1], y.Shape[r-1]
	dt := x.DT()
	switch dt {
	case dtype.F32, dtype.F16:
	case dtype.I32, dtype.U8, dtype.I64:
		return nil, p.errorf(name, errs.ErrUnsupported, "integer matmul (%s) is not implemented on %s; cast to f32", dt, p.Display)
	default:
		return nil, p.errorf(name, errs.ErrDType, "matmul is not defined for %s", dt)
	}
	if err := p.noAlias(name, d, x, y); err != nil {
		return nil, err
	}
	pl := &Plan{}
	if d.Numel == 0 {
		return pl, nil
	}
	if k == 0 {
		return pl, p.fill(pl, name, d, 0)
	}
	if variant == "" {
		variant = p.MatmulVariant
	}
	A, err := p.mmOperand(pl, name, x)
	if err != nil {
		return nil, err
	}
	B, err := p.mmOperand(pl, name, y)
	if err != nil {
		return nil, err
	}
	dl := layout.Layout{Shape: d.Shape, Strides: d.Strides, Offset: d.Off}
	cm, _ := dl.Classify2D()
	switch {
	case dt == dtype.F16 && k > MatmulChunk:
		// Chunks accumulate in an f32 scratch, rounded to f16 once by the
		// final copy (packed f16 is stored with atomics and would round
		// once per chunk).
	case cm.Kind == layout.RowMajor && (cm.Collapsed || cm.Batch <= 1) && (cm.Batch <= 1 || cm.BatchStride != 0):
		C := mmOperand{b: d.Buf, off: cm.Offset, ld: cm.LD, bs: cm.BatchStride, rows: m, cols: n, batch: cm.Batch}
		return pl, p.mmRun(pl, name, variant, C, A, B)
	default:
		// The destination must be row-major with one batch stride;
		// otherwise compute into a contiguous scratch and copy.
	}
	accDT := dt
	if k > MatmulChunk {
		accDT = dtype.F32
	}
	acc := pl.scratch(p.Lim, accDT, d.Numel)
	C := mmOperand{b: acc, off: 0, ld: n, bs: m * n, rows: m, cols: n, batch: d.Numel / (m * n)}
	if err := p.mmRun(pl, name, variant, C, A, B); err != nil {
		return nil, err
	}
	return pl, p.copy(pl, name, d, contiguous(acc, d.Shape, d.Numel))
}

// mmOperand classifies an operand; general layouts are copied to a
// contiguous scratch first.
func (p *Planner) mmOperand(pl *Plan, name string, o Operand) (mmOperand, error) {
	l := layout.Layout{Shape: o.Shape, Strides: o.Strides, Offset: o.Off}
	mx, err := l.Classify2D()
	if err != nil {
		return mmOperand{}, errs.Retag(p.Backend, name, err)
	}
	if mx.Kind != layout.General && (mx.Collapsed || mx.Batch <= 1) {
		return mmOperand{b: o.Buf, off: mx.Offset, ld: mx.LD, bs: mx.BatchStride, trans: mx.Kind == layout.ColMajor,
			rows: mx.Rows, cols: mx.Cols, batch: mx.Batch}, nil
	}
	tmp := pl.scratch(p.Lim, o.DT(), o.Numel)
	if err := p.copy(pl, name, contiguous(tmp, o.Shape, o.Numel), o); err != nil {
		return mmOperand{}, err
	}
	return mmOperand{b: tmp, off: 0, ld: mx.Cols, bs: mx.Rows * mx.Cols, rows: mx.Rows, cols: mx.Cols, batch: mx.Batch}, nil
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

// mmRun plans C = A x B. An inner dimension above MatmulChunk is split
// into near-equal chunks (multiples of 16, at most MatmulChunk),
// dispatched in order on the same C: the first writes it, the later ones
// add to it, so no invocation loops over more than MatmulChunk positions
// of k. A k of at most MatmulChunk is one pass, exactly as without
// chunking. C must be f32 when k is split (Matmul gives an f16 product an
// f32 scratch).
func (p *Planner) mmRun(pl *Plan, name, variant string, C, A, B mmOperand) error {
	k := A.cols
	if k <= MatmulChunk {
		return p.mmPass(pl, name, variant, C, A, B, false)
	}
	if C.b.DType() != dtype.F32 {
		return p.errorf(name, errs.ErrUnsupported, "cannot accumulate a split inner dimension (k = %d) into %s", k, C.b.DType())
	}
	chunks := (k + MatmulChunk - 1) / MatmulChunk
	kc := ((k+chunks-1)/chunks + 15) &^ 15
	for k0 := 0; k0 < k; k0 += kc {
		w := min(kc, k-k0)
		if err := p.mmPass(pl, name, variant, C, A.kSlice(true, k0, w), B.kSlice(false, k0, w), k0 > 0); err != nil {
			return err
		}
	}
	return nil
}

// matmulKernel is the matmul.wgsl kernel for a variant and operands.
func matmulKernel(variant string, C, A, B mmOperand, accum bool) *Kernel {
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
		if o.o.b.DType() == dtype.F16 {
			vars[o.packed] = "1"
		} else if variant == "regblock" && o.o.vecOK() {
			vars[o.vecv] = "1"
		}
	}
	return &Kernel{Template: "matmul.wgsl", Vars: vars, RW: 1, RO: 2}
}

// mmPass plans the kernel over batch ranges whose bindings fit the device
// limit and row bands that keep each dispatch short; accum adds the
// product to C instead of overwriting it (f32 C only).
func (p *Planner) mmPass(pl *Plan, name, variant string, C, A, B mmOperand, accum bool) error {
	m, n, k := C.rows, C.cols, A.cols
	batch := C.batch
	tile := mmTile(variant)
	kern := matmulKernel(variant, C, A, B, accum)
	fits := func(o mmOperand, b0, b1 int) bool {
		lo, hi := o.span(b0, b1)
		return p.Lim.Fits(lo, hi, ElemBytes(o.b.DType()))
	}
	for _, o := range []struct {
		n string
		o mmOperand
	}{{"a", A}, {"b", B}, {"dst", C}} {
		if !fits(o.o, 0, 1) {
			lo, hi := o.o.span(0, 1)
			return p.errorf(name, errs.ErrOutOfMemory,
				"one %dx%d matrix of %s spans %d bytes, above the %d-byte storage binding limit (maxStorageBufferBindingSize)",
				o.o.rows, o.o.cols, o.n, (hi-lo)*int64(ElemBytes(o.o.b.DType())), p.Lim.MaxBinding)
		}
	}
	maxWG := int(p.Lim.MaxWG)
	perMat := int64(m) * int64(n) * int64(k)
	for b0 := 0; b0 < batch; {
		// Batches in this binding window.
		nb := min(batch-b0, maxWG)
		if perMat > 0 {
			nb = min(nb, max(1, int(matmulCap/perMat)))
		}
		for nb > 1 && !(fits(A, b0, b0+nb) && fits(B, b0, b0+nb) && fits(C, b0, b0+nb)) {
			nb = (nb + 1) / 2
		}
		var ws [3]Binding
		var base [3]int
		for i, o := range []mmOperand{C, A, B} {
			lo, hi := o.span(b0, b0+nb)
			ws[i], base[i] = p.Lim.Window(o.b, lo, hi, i == 0)
		}
		// Rows per dispatch: a multiple of the tile, bounded by the grid
		// limit and the work cap.
		rowsPer := m
		if nb == 1 && perMat > matmulCap {
			rowsPer = max(tile, int(matmulCap/(int64(n)*int64(k)))/tile*tile)
		}
		rowsPer = min(rowsPer, maxWG*tile)
		colsPer := min(n, maxWG*tile)
		mat := func(o mmOperand, base int) [4]int32 {
			return [4]int32{int32(o.off + b0*o.bs - base), int32(o.ld), int32(o.bs)}
		}
		for r0 := 0; r0 < m; r0 += rowsPer {
			rows := min(rowsPer, m-r0)
			for c0 := 0; c0 < n; c0 += colsPer {
				cols := min(colsPer, n-c0)
				prm := MatmulParams{
					M: uint32(m), N: uint32(n), K: uint32(k), Rows: uint32(rows),
					A: mat(A, base[1]), B: mat(B, base[2]), C: mat(C, base[0]),
					Base: [4]uint32{uint32(r0), 0, uint32(c0)},
				}
				gx := (cols + tile - 1) / tile
				gy := (rows + tile - 1) / tile
				pl.Steps = append(pl.Steps, Dispatch{Kernel: kern, Params: prm, Binds: []Binding{ws[0], ws[1], ws[2]},
					Grid: [3]uint32{uint32(gx), uint32(gy), uint32(nb)}})
			}
		}
		b0 += nb
	}
	return nil
}
