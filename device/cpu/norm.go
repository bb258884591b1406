package cpu

import (
	"math"
	"slices"
	"sync"

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
	cv.loadRun(buf[:n], x, p0, st)
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
				cv.storeRun(y, k.dst.Offset+r*ys0, ys1, out)
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

var _ device.NormBackwarder = (*Device)(nil)

// NormBackward is the fused gradient of Norm (device.NormBackwarder): per
// row, g and x are read once into L1-resident scratch, xhat is rebuilt
// from the saved mean and rstd, the two row means come from vec.Sum and
// vec.Dot, and dx is written once; the weight and bias gradients are
// accumulated per worker over its rows and the workers' partial sums added
// in worker order (so the result depends only on GOMAXPROCS).
func (d *Device) NormBackward(op device.NormOp, dx, dweight, dbias, g, x, stats, weight device.Operand) error {
	name := op.String() + "Backward"
	ops := []device.Operand{g, x, stats}
	args := [4]*device.Arg{}
	for i, o := range []device.Operand{dx, dweight, dbias, weight} {
		if o.Buf != nil {
			ops = append(ops, o)
			a := o.Arg()
			args[i] = &a
		}
	}
	bufs, err := d.operands(name, ops...)
	if err != nil {
		return err
	}
	if err := device.CheckNormBackward("cpu", op, args[0], args[1], args[2], g.Arg(), x.Arg(), stats.Arg(), args[3]); err != nil {
		return err
	}
	def, _ := op.Def()
	k := normBackKernel{centred: def.Centred, rows: x.Layout.Shape[0], n: x.Layout.Shape[1], g: g.Layout, x: x.Layout, stats: stats.Layout}
	var outs [4]*Buffer // dx, dweight, dbias, weight
	i := 3
	for j, o := range []device.Operand{dx, dweight, dbias, weight} {
		if o.Buf != nil {
			outs[j] = bufs[i]
			k.lays[j] = o.Layout
			i++
		}
	}
	gb, xb, sb := bufs[0], bufs[1], bufs[2]
	switch xb.dt {
	case dtype.F32:
		normBackRun(k, gb, xb, sb, outs, conv32)
	case dtype.F64:
		normBackRun(k, gb, xb, sb, outs, conv64)
	case dtype.F16:
		normBackRun(k, gb, xb, sb, outs, convF16)
	case dtype.BF16:
		normBackRun(k, gb, xb, sb, outs, convBF16)
	}
	return nil
}

// normBackKernel is one NormBackward call's geometry; lays holds the
// layouts of dx, dweight, dbias and weight (valid where given).
type normBackKernel struct {
	centred     bool
	rows, n     int
	g, x, stats layout.Layout
	lays        [4]layout.Layout
}

func normBackRun[C vec.Float, S any](k normBackKernel, gb, xb, sb *Buffer, outs [4]*Buffer, cv conv[C, S]) {
	n := k.n
	g, x, stats := slice[S](gb), slice[S](xb), slice[C](sb)
	var w []C
	if outs[3] != nil {
		w = loadRow(slice[S](outs[3]), k.lays[3].Offset, k.lays[3].Strides[0], n, make([]C, n), cv)
	}
	var dx []S
	if outs[0] != nil {
		dx = slice[S](outs[0])
	}
	wantW, wantB := outs[1] != nil, outs[2] != nil
	inv := C(1 / float64(n))
	grainRows := max(1, grain/max(n, 1))
	var mu sync.Mutex
	partial := map[int][2][]C{} // by first row: dweight, dbias sums
	vec.Parallel(k.rows, grainRows, func(lo, hi int) {
		gbuf, xbuf, xhat, gw := make([]C, n), make([]C, n), make([]C, n), make([]C, n)
		var pw, pb []C
		if wantW {
			pw = make([]C, n)
		}
		if wantB {
			pb = make([]C, n)
		}
		for r := lo; r < hi; r++ {
			grow := loadRow(g, k.g.Offset+r*k.g.Strides[0], k.g.Strides[1], n, gbuf, cv)
			xrow := loadRow(x, k.x.Offset+r*k.x.Strides[0], k.x.Strides[1], n, xbuf, cv)
			sp := k.stats.Offset + r*k.stats.Strides[0]
			mean, rstd := stats[sp], stats[sp+k.stats.Strides[1]]
			vec.SubScalar(xhat, xrow, mean)
			vec.MulScalar(xhat, xhat, rstd)
			if wantW {
				vec.Mul(gw, grow, xhat)
				vec.Add(pw, pw, gw)
			}
			if wantB {
				vec.Add(pb, pb, grow)
			}
			if dx == nil {
				continue
			}
			gwr := grow
			if w != nil {
				vec.Mul(gw, grow, w)
				gwr = gw
			}
			c, _ := vec.Dot(gwr, xhat)
			vec.MulScalar(xhat, xhat, c*inv)
			vec.Sub(xhat, gwr, xhat) // gw - xhat mean(gw xhat)
			if k.centred {
				vec.SubScalar(xhat, xhat, vec.Sum(gwr)*inv)
			}
			vec.MulScalar(xhat, xhat, rstd)
			cv.storeRun(dx, k.lays[0].Offset+r*k.lays[0].Strides[0], k.lays[0].Strides[1], xhat)
		}
		if wantW || wantB {
			mu.Lock()
			partial[lo] = [2][]C{pw, pb}
			mu.Unlock()
		}
	})
	if !wantW && !wantB {
		return
	}
	los := make([]int, 0, len(partial))
	for lo := range partial {
		los = append(los, lo)
	}
	slices.Sort(los)
	for j := 1; j <= 2; j++ {
		if outs[j] == nil {
			continue
		}
		sum := make([]C, n) // no rows: zero
		for _, lo := range los {
			vec.Add(sum, sum, partial[lo][j-1])
		}
		out, l := slice[S](outs[j]), k.lays[j]
		for i, v := range sum {
			out[l.Offset+i*l.Strides[0]] = cv.store(v)
		}
	}
}
