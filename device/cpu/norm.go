package cpu

import (
	"math"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

var _ device.Normer = (*Device)(nil)

// Norm normalises each row of src [rows, n] (device.Normer): per row, one
// read of the row into an L1-resident scratch (or the row itself when it is
// contiguous and needs no widening), the mean by vec.Sum (accumulated per
// lane, added in float64), the variance as the dot product of the centred
// scratch with itself (two passes over data already in L1, so it never
// cancels the way E[x^2]-E[x]^2 would), then the scaled, weighted and
// shifted row written once. Rows are split across cores; F16 and BF16 are
// widened to float32 per row and rounded once.
func (d *Device) Norm(op device.NormOp, dst, stats, src, weight, bias device.Operand, eps float64) error {
	name := op.String()
	ops := []device.Operand{dst, stats, src}
	var wa, ba *device.Arg
	if weight.Buf != nil {
		ops = append(ops, weight)
		a := weight.Arg()
		wa = &a
	}
	if bias.Buf != nil {
		ops = append(ops, bias)
		a := bias.Arg()
		ba = &a
	}
	bufs, err := d.operands(name, ops...)
	if err != nil {
		return err
	}
	if err := device.CheckNorm("cpu", op, dst.Arg(), stats.Arg(), src.Arg(), wa, ba, eps); err != nil {
		return err
	}
	def, _ := op.Def()
	k := normKernel{centred: def.Centred, eps: eps, rows: src.Layout.Shape[0], n: src.Layout.Shape[1],
		dst: dst.Layout, stats: stats.Layout, src: src.Layout}
	var wb, bb *Buffer
	i := 3
	if weight.Buf != nil {
		wb, k.w = bufs[i], weight.Layout
		i++
	}
	if bias.Buf != nil {
		bb, k.b = bufs[i], bias.Layout
	}
	db, sb, xb := bufs[0], bufs[1], bufs[2]
	switch xb.dt {
	case dtype.F32:
		normRun(k, db, sb, xb, wb, bb, conv32)
	case dtype.F64:
		normRun(k, db, sb, xb, wb, bb, conv64)
	case dtype.F16:
		normRun(k, db, sb, xb, wb, bb, convF16)
	case dtype.BF16:
		normRun(k, db, sb, xb, wb, bb, convBF16)
	}
	return nil
}

// normKernel is one Norm call's geometry.
type normKernel struct {
	centred         bool
	eps             float64
	rows, n         int
	dst, stats, src layout.Layout
	w, b            layout.Layout // valid only when the buffer is given
}

// normGrainRows is how many rows one worker takes at least: about grain
// elements, so small calls stay on one goroutine.
func (k normKernel) grainRows() int { return max(1, grain/max(k.n, 1)) }

// loadRow returns row (positions p0 + j*st) of x as compute values: the
// storage itself when it is contiguous and of the compute type, else a
// gathered copy in buf.
func loadRow[C vec.Float, S any](x []S, p0, st, n int, buf []C, cv conv[C, S]) []C {
	if cv.round == nil && st == 1 {
		if xs, ok := any(x[p0 : p0+n]).([]C); ok {
			return xs
		}
	}
	for j := range n {
		buf[j] = cv.load(x[p0+j*st])
	}
	return buf
}

func normRun[C vec.Float, S any](k normKernel, db, sb, xb, wb, bb *Buffer, cv conv[C, S]) {
	x, y := slice[S](xb), slice[S](db)
	stats := slice[C](sb)
	n := k.n
	var w, b []C
	if wb != nil {
		w = loadRow(slice[S](wb), k.w.Offset, k.w.Strides[0], n, make([]C, n), cv)
	}
	if bb != nil {
		b = loadRow(slice[S](bb), k.b.Offset, k.b.Strides[0], n, make([]C, n), cv)
	}
	xs0, xs1 := k.src.Strides[0], k.src.Strides[1]
	ys0, ys1 := k.dst.Strides[0], k.dst.Strides[1]
	ss0, ss1 := k.stats.Strides[0], k.stats.Strides[1]
	inv := 1 / float64(n)
	vec.Parallel(k.rows, k.grainRows(), func(lo, hi int) {
		xbuf, tmp := make([]C, n), make([]C, n)
		for r := lo; r < hi; r++ {
			row := loadRow(x, k.src.Offset+r*xs0, xs1, n, xbuf, cv)
			out := tmp
			direct := cv.round == nil && ys1 == 1
			if direct {
				out = any(y[k.dst.Offset+r*ys0 : k.dst.Offset+r*ys0+n]).([]C)
			}
			mean := 0.0
			var ss C
			if k.centred {
				mean = rowSumF64(row) * inv
				vec.SubScalar(tmp, row, C(mean))
				ss, _ = vec.Dot(tmp, tmp)
				row = tmp
			} else {
				ss, _ = vec.Dot(row, row)
			}
			rstd := 1 / math.Sqrt(float64(ss)*inv+k.eps)
			vec.MulScalar(out, row, C(rstd))
			if w != nil {
				vec.Mul(out, out, w)
			}
			if b != nil {
				vec.Add(out, out, b)
			}
			if !direct {
				p := k.dst.Offset + r*ys0
				for j, v := range out {
					y[p+j*ys1] = cv.store(v)
				}
			}
			sp := k.stats.Offset + r*ss0
			stats[sp], stats[sp+ss1] = C(mean), C(rstd)
		}
	})
}

// rowSumF64 is the sum of a row that fits a cache: vec.Sum's lanes, in
// float64 when float32 lanes overflow (rowSum's rule without the split).
func rowSumF64[C vec.Float](x []C) float64 {
	s := float64(vec.Sum(x))
	if !math.IsInf(s, 0) && !math.IsNaN(s) {
		return s
	}
	s = 0
	for _, v := range x {
		s += float64(v)
	}
	return s
}
