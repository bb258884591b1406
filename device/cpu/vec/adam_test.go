package vec

import (
	"errors"
	"math"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// adamInputs returns a value, gradient and moments of n elements with
// mixed signs and magnitudes (and exact zeros in the gradient).
func adamInputs(n int) (w, g, m, v []float32) {
	w, g, m, v = make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range n {
		f := float64(i)
		w[i] = float32(math.Sin(f*0.37) * 2)
		g[i] = float32(math.Cos(f*1.3) * math.Pow(10, float64(i%7)-4))
		if i%11 == 3 {
			g[i] = 0
		}
		m[i] = float32(math.Sin(f*0.11) * 1e-2)
		v[i] = float32(math.Abs(math.Cos(f*0.07)) * 1e-4)
	}
	return
}

func testCoeffs(t int) AdamCoeffs[float32] {
	const lr, b1, b2, eps = 1e-3, 0.9, 0.999, 1e-8
	bc1, bc2 := 1-math.Pow(b1, float64(t)), 1-math.Pow(b2, float64(t))
	return AdamCoeffs[float32]{B1: b1, OneMinusB1: 1 - b1, B2: b2, OneMinusB2: 1 - b2,
		SqrtBC2: float32(math.Sqrt(bc2)), Eps: eps, Step: float32(lr / bc1)}
}

// TestAdam checks every kernel set's Adam against the update computed in
// float64 from the same float32 inputs (relative error a few float32 ulps)
// and against the same update as separate vector operations (Mul, Add,
// Sqrt, ...) bit for bit, at lengths around the vector and unroll widths,
// in place and not.
func TestAdam(t *testing.T) {
	c := testCoeffs(3)
	for _, ks := range available() {
		restore := useKernels(ks)
		for _, n := range []int{1, 7, 15, 16, 17, 31, 32, 33, 47, 64, 100, 1000, 4099} {
			w, g, m, v := adamInputs(n)
			nw, nm, nv := make([]float32, n), make([]float32, n), make([]float32, n)
			if err := Adam(w, g, m, v, nw, nm, nv, c); err != nil {
				t.Fatal(err)
			}
			// The separate operations, as the optimiser's expression runs them.
			a, b := make([]float32, n), make([]float32, n)
			em, ev, ew := make([]float32, n), make([]float32, n), make([]float32, n)
			MulScalar(a, m, c.B1)
			MulScalar(b, g, c.OneMinusB1)
			Add(em, a, b)
			MulScalar(a, v, c.B2)
			Mul(b, g, g)
			MulScalar(b, b, c.OneMinusB2)
			Add(ev, a, b)
			Sqrt(a, ev)
			DivScalar(a, a, c.SqrtBC2)
			AddScalar(a, a, c.Eps)
			Div(b, em, a)
			MulScalar(b, b, c.Step)
			Sub(ew, w, b)
			for i := range n {
				if math.Float32bits(nm[i]) != math.Float32bits(em[i]) || math.Float32bits(nv[i]) != math.Float32bits(ev[i]) || math.Float32bits(nw[i]) != math.Float32bits(ew[i]) {
					t.Fatalf("%s n=%d [%d]: kernel (w %v, m %v, v %v), separate ops (w %v, m %v, v %v)", ks.name, n, i, nw[i], nm[i], nv[i], ew[i], em[i], ev[i])
				}
				// The float64 reference, with the same float32 coefficients;
				// each result is a sum, so its error bound scales with the
				// magnitudes of its terms (cancellation).
				d := float64(g[i])
				pm, pg := float64(m[i])*float64(c.B1), d*float64(c.OneMinusB1)
				rm := pm + pg
				pv, pgg := float64(v[i])*float64(c.B2), d*d*float64(c.OneMinusB2)
				rv := pv + pgg
				upd := rm / (math.Sqrt(rv)/float64(c.SqrtBC2) + float64(c.Eps)) * float64(c.Step)
				rw := float64(w[i]) - upd
				for _, p := range [][3]float64{{float64(nm[i]), rm, math.Abs(pm) + math.Abs(pg)},
					{float64(nv[i]), rv, pv + pgg}, {float64(nw[i]), rw, math.Abs(float64(w[i])) + 4*math.Abs(upd)}} {
					if math.Abs(p[0]-p[1]) > 3e-7*p[2] {
						t.Fatalf("%s n=%d [%d]: %v, float64 reference %v", ks.name, n, i, p[0], p[1])
					}
				}
			}
			// In place: the outputs are the inputs' slices.
			if err := Adam(w, g, m, v, w, m, v, c); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if w[i] != nw[i] || m[i] != nm[i] || v[i] != nv[i] {
					t.Fatalf("%s n=%d in place [%d] differs", ks.name, n, i)
				}
			}
		}
		restore()
	}
}

// TestAdamErrors: mismatched lengths and overlapping outputs are typed
// errors, not panics.
func TestAdamErrors(t *testing.T) {
	w, g, m, v := adamInputs(32)
	c := testCoeffs(1)
	cases := []struct {
		name       string
		nw, nm, nv []float32
		want       error
	}{
		{"short output", make([]float32, 31), make([]float32, 32), make([]float32, 32), errs.ErrShape},
		{"same output twice", w, w, make([]float32, 32), errs.ErrValue},
		{"shifted alias", w[1:], make([]float32, 31), make([]float32, 31), errs.ErrShape},
		{"outputs overlap", make([]float32, 32), m, v, nil},
	}
	buf := make([]float32, 40)
	cases = append(cases, struct {
		name       string
		nw, nm, nv []float32
		want       error
	}{"partial overlap with input", buf[:32], buf[4:36], make([]float32, 32), errs.ErrValue})
	for _, tc := range cases {
		err := Adam(w, g, m, v, tc.nw, tc.nm, tc.nv, c)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}
