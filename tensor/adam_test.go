package tensor_test

import (
	"math"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// adamExpr is Adam's update as tensor operations, the way package optim
// writes it: FusedAdam must equal it bit for bit.
func adamExpr(w, g, m, v *tensor.Tensor, c device.AdamCoeffs) (nw, nm, nv *tensor.Tensor) {
	nm = m.MulScalar(c.B1).Add(g.MulScalar(1 - c.B1))
	nv = v.MulScalar(c.B2).Add(g.Mul(g).MulScalar(1 - c.B2))
	den := nv.Sqrt().DivScalar(c.SqrtBC2).AddScalar(c.Eps)
	nw = w.Sub(nm.Div(den).MulScalar(c.Step))
	return
}

// TestFusedAdam checks the one-kernel Adam update against the same update
// as tensor operations, bit for bit, for float32 and float64, on sizes
// below and above the CPU's parallel split, and against a float64
// reference; devices without a kernel (the GPUs) and mismatched operands
// report ok false.
func TestFusedAdam(t *testing.T) {
	// The expression is the fused one optim's kernel stands for: with
	// TESSERA_FUSION=0 the eager ops round the scalar coefficients to the
	// dtype first, a last-bit difference the float64 check below covers.
	defer tensor.SetFusion(true)()
	t0 := 4.0
	c := device.AdamCoeffs{B1: 0.9, B2: 0.999, Eps: 1e-8, SqrtBC2: math.Sqrt(1 - math.Pow(0.999, t0)), Step: 1e-3 / (1 - math.Pow(0.9, t0))}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			if !computes(dev, dt) {
				continue
			}
			for _, shape := range [][]int{{3}, {7, 5}, {256, 784}} {
				mk := func(seed uint64, scale float64) *tensor.Tensor {
					return tensor.RandN(dt, seed, shape...).MulScalar(scale).To(dev)
				}
				w, g, m := mk(1, 1), mk(2, 1e-2), mk(3, 1e-3)
				v := mk(4, 1e-3).Square()
				if dev != device.CPU() {
					if _, _, _, ok := tensor.FusedAdam(w, g, m, v, c); ok {
						t.Fatalf("%s: FusedAdam reports a kernel", dev.Name())
					}
					continue
				}
				// Everything the checks read is taken before the call:
				// FusedAdam may write the new moments over m's and v's
				// storage (TestFusedAdamInPlace), after which they read
				// the new values.
				ew, em, ev := adamExpr(w, g, m, v, c)
				var want [3][]float64
				for k, e := range []*tensor.Tensor{ew, em, ev} {
					var err error
					if want[k], err = tensor.ToSlice[float64](e.Cast(dtype.F64)); err != nil {
						t.Fatal(err)
					}
				}
				ws, _ := tensor.ToSlice[float64](w.Cast(dtype.F64))
				gs, _ := tensor.ToSlice[float64](g.Cast(dtype.F64))
				ms, _ := tensor.ToSlice[float64](m.Cast(dtype.F64))
				vs, _ := tensor.ToSlice[float64](v.Cast(dtype.F64))
				ew.Release()
				em.Release()
				ev.Release()
				nw, nm, nv, ok := tensor.FusedAdam(w, g, m, v, c)
				if !ok {
					t.Fatalf("cpu %v %v: no kernel", dt, shape)
				}
				for k, r := range []*tensor.Tensor{nw, nm, nv} {
					got, err := tensor.ToSlice[float64](r.Cast(dtype.F64))
					if err != nil {
						t.Fatal(err)
					}
					for i := range want[k] {
						if got[i] != want[k][i] && !(math.IsNaN(got[i]) && math.IsNaN(want[k][i])) {
							t.Fatalf("%v %v result %d [%d]: kernel %v, expression %v", dt, shape, k, i, got[i], want[k][i])
						}
					}
				}
				// float64 reference for the new value.
				got, _ := tensor.ToSlice[float64](nw.Cast(dtype.F64))
				tol := map[dtype.DType]float64{dtype.F32: 1e-6, dtype.F64: 1e-14}[dt]
				for i := range ws {
					rm := ms[i]*c.B1 + gs[i]*(1-c.B1)
					rv := vs[i]*c.B2 + gs[i]*gs[i]*(1-c.B2)
					upd := rm / (math.Sqrt(rv)/c.SqrtBC2 + c.Eps) * c.Step
					rw := ws[i] - upd
					if math.Abs(got[i]-rw) > tol*(math.Abs(ws[i])+math.Abs(upd)) {
						t.Fatalf("%v %v [%d]: %v, float64 reference %v", dt, shape, i, got[i], rw)
					}
				}
			}
		}
	}
	// Mismatched operands, failed and released ones: no kernel call.
	w := tensor.RandN(dtype.F32, 1, 4, 4)
	other := []*tensor.Tensor{
		tensor.RandN(dtype.F32, 2, 4, 5),
		tensor.RandN(dtype.F64, 2, 4, 4),
		w.Reshape(2, 8).Reshape(4, 4).Add(tensor.RandN(dtype.F32, 1, 5)),
	}
	rel := tensor.RandN(dtype.F32, 3, 4, 4)
	rel.Release()
	other = append(other, rel)
	for i, x := range other {
		if _, _, _, ok := tensor.FusedAdam(w, x, w, w, c); ok {
			t.Errorf("operand %d (%v %v, err %v): ok", i, x.DType(), x.Shape(), x.Err())
		}
	}
	// A transposed (non-contiguous) gradient: the CPU declines, nothing leaks.
	gt := tensor.RandN(dtype.F32, 5, 4, 4).Transpose(0, 1)
	if _, _, _, ok := tensor.FusedAdam(w, gt, w, w, c); ok {
		t.Errorf("transposed gradient: ok")
	}
}

// TestFusedAdamInPlace: moments held by nothing but their own tensor are
// updated over their storage (the results still equal the expression's),
// and a moment that a view shares is left as it was.
func TestFusedAdamInPlace(t *testing.T) {
	c := device.AdamCoeffs{B1: 0.9, B2: 0.999, Eps: 1e-8, SqrtBC2: 0.1, Step: 1e-3}
	w, g := tensor.RandN(dtype.F32, 1, 300, 70), tensor.RandN(dtype.F32, 2, 300, 70)
	// Moments made by FusedAdam itself are computed tensors of their own.
	m0, v0 := tensor.RandN(dtype.F32, 3, 300, 70), tensor.RandN(dtype.F32, 4, 300, 70).Square()
	_, m, v, ok := tensor.FusedAdam(w, g, m0, v0, c)
	if !ok {
		t.Fatal("no kernel")
	}
	m0.Release() // the caller drops the old moments, as the optimiser does
	v0.Release()
	// The expected values from copies (an expression reading m or v
	// would itself share their storage).
	mOld, _ := tensor.ToSlice[float32](m)
	vOld, _ := tensor.ToSlice[float32](v)
	ew, em, ev := adamExpr(w, g, tensor.FromSlice(mOld, 300, 70), tensor.FromSlice(vOld, 300, 70), c)
	want := make([][]float32, 3)
	for k, x := range []*tensor.Tensor{ew, em, ev} {
		var err error
		if want[k], err = tensor.ToSlice[float32](x); err != nil {
			t.Fatal(err)
		}
	}
	shared := v.Detach() // v's storage now has a second holder
	nw, nm, nv, ok := tensor.FusedAdam(w, g, m, v, c)
	if !ok {
		t.Fatal("no kernel")
	}
	for k, x := range []*tensor.Tensor{nw, nm, nv} {
		got, err := tensor.ToSlice[float32](x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != want[k][i] {
				t.Fatalf("result %d [%d]: %v, expression %v", k, i, got[i], want[k][i])
			}
		}
	}
	// m was alone on its storage: it now reads the new moment.
	if got, _ := tensor.ToSlice[float32](m); got[0] != want[1][0] || got[0] == mOld[0] {
		t.Errorf("m was not updated in place: %v (old %v, new %v)", got[0], mOld[0], want[1][0])
	}
	// v was shared: neither v nor its view changed.
	for _, x := range []*tensor.Tensor{v, shared} {
		got, _ := tensor.ToSlice[float32](x)
		for i := range got {
			if got[i] != vOld[i] {
				t.Fatalf("shared v changed at %d: %v, was %v", i, got[i], vOld[i])
			}
		}
	}
}
