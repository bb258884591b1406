package tensor_test

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/npy"
	"github.com/tessera-go/tessera/tensor"
)

// Tolerances of the linear algebra tests.
//
// Golden files (NumPy's LAPACK in float64 on inputs exactly representable
// in float32): every element within rtol·max|reference| of the reference
// array. F64 results come from another LAPACK (gonum's), so they differ by
// rounding amplified by the condition number (the worst case, Hilbert 5,
// cond ~5e5, measured 1.3e-12): laGoldenF64 = 1e-10. F32 results are the
// float64 result rounded once, so they are within half an f32 ulp of the
// reference (measured 5e-8, Trace's f32 sum included): laGoldenF32 =
// 1.2e-7, one f32 ulp of the array's largest element.
//
// Identities, checked in float64 on the results read back (F32 results
// widened exactly): a residual such as max|A - L·Lᵀ| must be within
// tol·n·max|A|·max|other factor| (n the inner dimension), and an
// orthonormality residual such as max|QᵀQ - I| within tol·n. Measured:
// 9e-16 (F64) and 2e-8 (F32; the results' f32 rounding); laIdentF64 =
// 1e-13, laIdentF32 = 1e-6.
const (
	laGoldenF64 = 1e-10
	laGoldenF32 = 1.2e-7
	laIdentF64  = 1e-13
	laIdentF32  = 1e-6
)

// laDTypes are the dtypes the linear algebra functions are tested in on
// dev: F64 and F32 where the device holds them (WebGPU holds no F64).
func laDTypes(dev device.Device) []dtype.DType {
	var out []dtype.DType
	for _, dt := range []dtype.DType{dtype.F64, dtype.F32} {
		if supports(dev, dt) {
			out = append(out, dt)
		}
	}
	return out
}

type laCase struct {
	name, op string
	inputs   []string
	outs     []string
	k        int
}

func laManifest(t *testing.T, dir string) []laCase {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "MANIFEST.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []laCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "case" {
			continue
		}
		c := laCase{name: fields[1]}
		for _, fl := range fields[2:] {
			k, v, _ := strings.Cut(fl, "=")
			switch k {
			case "op":
				c.op = v
			case "inputs":
				c.inputs = strings.Split(v, ",")
			case "outs":
				c.outs = strings.Split(v, ",")
			case "params":
				if kv, ok := strings.CutPrefix(v, "k="); ok {
					if c.k, err = strconv.Atoi(kv); err != nil {
						t.Fatalf("case %s: bad k %q", c.name, kv)
					}
				}
			}
		}
		cases = append(cases, c)
	}
	return cases
}

// laRun runs one golden case's op.
func laRun(t *testing.T, c laCase, ins []*tensor.Tensor) []*tensor.Tensor {
	t.Helper()
	switch c.op {
	case "cholesky":
		return []*tensor.Tensor{tensor.Cholesky(ins[0])}
	case "solve":
		return []*tensor.Tensor{tensor.Solve(ins[0], ins[1])}
	case "inv":
		return []*tensor.Tensor{tensor.Inv(ins[0])}
	case "det":
		return []*tensor.Tensor{tensor.Det(ins[0])}
	case "slogdet":
		s, l := tensor.SlogDet(ins[0])
		return []*tensor.Tensor{s, l}
	case "eigh":
		w, v := tensor.Eigh(ins[0])
		return []*tensor.Tensor{w, v}
	case "svd":
		u, s, vh := tensor.SVD(ins[0])
		return []*tensor.Tensor{u, s, vh}
	case "qr":
		q, r := tensor.QR(ins[0])
		return []*tensor.Tensor{q, r}
	case "lstsq":
		return []*tensor.Tensor{tensor.Lstsq(ins[0], ins[1])}
	case "diag":
		return []*tensor.Tensor{tensor.Diag(ins[0], c.k)}
	case "diag_embed":
		return []*tensor.Tensor{tensor.DiagEmbed(ins[0], c.k)}
	case "trace":
		return []*tensor.Tensor{tensor.Trace(ins[0])}
	}
	t.Fatalf("unknown op %q", c.op)
	return nil
}

// laAlignSigns flips the sign of vector j of got (column j of the matrices
// in got[vec], and with it row j of got[paired] when paired >= 0) wherever
// it points away from the reference's, and reports whether any flip was
// needed. Eigenvectors and singular vectors are unique only up to sign.
func laAlignSigns(got, want [][]float64, shapes [][]int, vec, paired int) (flipped bool) {
	sh := shapes[vec]
	rows, cols := sh[len(sh)-2], sh[len(sh)-1]
	count := len(want[vec]) / max(1, rows*cols)
	for b := range count {
		g, w := got[vec][b*rows*cols:], want[vec][b*rows*cols:]
		for j := range cols {
			dot := 0.0
			for i := range rows {
				dot += g[i*cols+j] * w[i*cols+j]
			}
			if dot >= 0 {
				continue
			}
			flipped = true
			for i := range rows {
				g[i*cols+j] = -g[i*cols+j]
			}
			if paired >= 0 {
				psh := shapes[paired]
				pc := psh[len(psh)-1]
				p := got[paired][b*cols*pc:]
				for i := range pc {
					p[j*pc+i] = -p[j*pc+i]
				}
			}
		}
	}
	return flipped
}

// TestLinalgGolden checks every function against NumPy's results
// (testdata/golden/linalg, made by testdata/gen_linalg.py) on every device,
// in F64 and F32.
func TestLinalgGolden(t *testing.T) {
	dir := filepath.Join("..", "testdata", "golden", "linalg")
	cases := laManifest(t, dir)
	if len(cases) < 20 {
		t.Fatalf("manifest lists only %d cases", len(cases))
	}
	ops := map[string]bool{}
	for _, c := range cases {
		ops[c.op] = true
	}
	if len(ops) != 12 {
		t.Errorf("manifest covers %d ops, want 12: %v", len(ops), ops)
	}
	for _, dev := range testDevices(t) {
		for _, dt := range laDTypes(dev) {
			for _, c := range cases {
				t.Run(fmt.Sprintf("%s/%v/%s", dev.Name(), dt, c.name), func(t *testing.T) {
					var ins []*tensor.Tensor
					for _, name := range c.inputs {
						a, err := npy.ReadFile(filepath.Join(dir, name))
						if err != nil {
							t.Fatal(err)
						}
						// The stored values are float32-exact: the cast loses nothing.
						ins = append(ins, fromNPY(t, a).Cast(dt).To(dev))
					}
					outs := laRun(t, c, ins)
					if len(outs) != len(c.outs) {
						t.Fatalf("%d results, %d reference files", len(outs), len(c.outs))
					}
					var got, want [][]float64
					var shapes [][]int
					for j, name := range c.outs {
						ref, err := npy.ReadFile(filepath.Join(dir, name))
						if err != nil {
							t.Fatal(err)
						}
						o := outs[j]
						if err := o.Err(); err != nil {
							t.Fatalf("result %d: %v", j, err)
						}
						if o.Device() != dev || o.DType() != dt || !slices.Equal(o.Shape(), ref.Shape) {
							t.Fatalf("result %d: %v %v on %s, want %v %v on %s", j, o.Shape(), o.DType(), o.Device().Name(), ref.Shape, dt, dev.Name())
						}
						g, err := o.Float64s()
						if err != nil {
							t.Fatal(err)
						}
						w, err := ref.Float64s()
						if err != nil {
							t.Fatal(err)
						}
						got, want, shapes = append(got, g), append(want, w), append(shapes, ref.Shape)
					}
					switch c.op {
					case "eigh":
						laAlignSigns(got, want, shapes, 1, -1)
					case "svd":
						laAlignSigns(got, want, shapes, 0, 2)
					case "qr":
						// LAPACK's Householder signs, as NumPy's: no flip may be needed.
						if laAlignSigns(got, want, shapes, 0, 1) {
							t.Errorf("QR signs differ from NumPy's")
						}
					}
					rtol := laGoldenF64
					if dt == dtype.F32 {
						rtol = laGoldenF32
					}
					for j := range got {
						scale := 0.0
						for _, v := range want[j] {
							scale = math.Max(scale, math.Abs(v))
						}
						for i, g := range got[j] {
							w := want[j][i]
							if g == w || math.Abs(g-w) <= rtol*scale {
								continue
							}
							t.Errorf("result %d element %d = %v, NumPy %v (|diff| %.3g > %.3g)", j, i, g, w, math.Abs(g-w), rtol*scale)
						}
					}
				})
			}
		}
	}
}

// ---------------------------------------------------------- identities

// laBatch is a batch of row-major matrices read back in float64.
type laBatch struct {
	v          []float64
	rows, cols int
}

func (b laBatch) count() int             { return len(b.v) / max(1, b.rows*b.cols) }
func (b laBatch) mat(i int) []float64    { return b.v[i*b.rows*b.cols : (i+1)*b.rows*b.cols] }
func (b laBatch) at(i, r, c int) float64 { return b.v[i*b.rows*b.cols+r*b.cols+c] }
func laRead(t *testing.T, x *tensor.Tensor) []float64 {
	t.Helper()
	v, err := x.Float64s()
	laNoErr(t, err)
	return v
}

func laNoErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// laMatrices reads x ([..., r, c]) back.
func laMatrices(t *testing.T, x *tensor.Tensor) laBatch {
	t.Helper()
	laNoErr(t, x.Err())
	s := x.Shape()
	return laBatch{v: laRead(t, x), rows: s[len(s)-2], cols: s[len(s)-1]}
}

// laMul returns a·b for row-major a (m x k) and b (k x n), with a or b
// transposed when ta or tb is set (then a is stored k x m, b n x k).
func laMul(a, b []float64, m, k, n int, ta, tb bool) []float64 {
	out := make([]float64, m*n)
	for i := range m {
		for j := range n {
			s := 0.0
			for p := range k {
				av, bv := a[i*k+p], b[p*n+j]
				if ta {
					av = a[p*m+i]
				}
				if tb {
					bv = b[j*k+p]
				}
				s += av * bv
			}
			out[i*n+j] = s
		}
	}
	return out
}

func laMaxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// laClose fails unless max|got - want| <= tol.
func laClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	worst, at := 0.0, -1
	for i := range got {
		if d := math.Abs(got[i] - want[i]); d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	if at >= 0 && !(worst <= tol) {
		t.Errorf("%s: element %d is %v, want %v (|diff| %.3g > tol %.3g)", what, at, got[at], want[at], worst, tol)
	}
}

func laEye(n int) []float64 {
	e := make([]float64, n*n)
	for i := range n {
		e[i*n+i] = 1
	}
	return e
}

// laInputs builds test matrices on dev in dt from float64 values, and
// returns them with their values as the device holds them.
func laInput(t *testing.T, dev device.Device, dt dtype.DType, v []float64, shape ...int) (*tensor.Tensor, []float64) {
	t.Helper()
	x := tensor.FromSlice(v, shape...).Cast(dt).To(dev)
	laNoErr(t, x.Err())
	return x, laRead(t, x)
}

// laRandom returns count n x m matrices of standard normal values plus
// shift on the diagonal (which keeps square ones well conditioned).
func laRandom(seed uint64, count, rows, cols int, shift float64) []float64 {
	v, _ := tensor.RandN(dtype.F64, seed, count, rows, cols).Float64s()
	for b := range count {
		for i := range min(rows, cols) {
			v[b*rows*cols+i*cols+i] += shift
		}
	}
	return v
}

// laSPD returns count symmetric positive-definite n x n matrices G·Gᵀ + n·I.
func laSPD(seed uint64, count, n int) []float64 {
	g := laRandom(seed, count, n, n, 0)
	out := make([]float64, 0, count*n*n)
	for b := range count {
		m := g[b*n*n : (b+1)*n*n]
		p := laMul(m, m, n, n, n, false, true)
		for i := range n {
			p[i*n+i] += float64(n)
		}
		out = append(out, p...)
	}
	return out
}

// TestLinalgIdentities checks the defining identities of each
// decomposition in float64 on random batched inputs, on every device.
func TestLinalgIdentities(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, dt := range laDTypes(dev) {
			tol := laIdentF64
			if dt == dtype.F32 {
				tol = laIdentF32
			}
			name := fmt.Sprintf("%s/%v/", dev.Name(), dt)
			check := func(x *tensor.Tensor) {
				t.Helper()
				laNoErr(t, x.Err())
				if x.Device() != dev || x.DType() != dt {
					t.Fatalf("result on %s in %v, want %s in %v", x.Device().Name(), x.DType(), dev.Name(), dt)
				}
			}

			t.Run(name+"Cholesky", func(t *testing.T) {
				const n = 5
				a, av := laInput(t, dev, dt, laSPD(1, 6, n), 2, 3, n, n)
				l := tensor.Cholesky(a)
				check(l)
				lb := laMatrices(t, l)
				for b := range 6 {
					for i := range n {
						for j := i + 1; j < n; j++ {
							if lb.at(b, i, j) != 0 {
								t.Fatalf("matrix %d: L[%d,%d] = %v above the diagonal", b, i, j, lb.at(b, i, j))
							}
						}
					}
					am := av[b*n*n : (b+1)*n*n]
					llt := laMul(lb.mat(b), lb.mat(b), n, n, n, false, true)
					laClose(t, fmt.Sprintf("matrix %d: L·Lᵀ", b), llt, am, tol*n*laMaxAbs(am))
				}
			})

			t.Run(name+"SolveInv", func(t *testing.T) {
				const n = 6
				a, av := laInput(t, dev, dt, laRandom(2, 3, n, n, 4), 3, n, n)
				amax := laMaxAbs(av)
				// b a batch of matrices broadcast over a's batch, then a batch of vectors.
				b, bv := laInput(t, dev, dt, laRandom(3, 1, n, 2, 0), n, 2)
				x := tensor.Solve(a, b)
				check(x)
				if !slices.Equal(x.Shape(), []int{3, n, 2}) {
					t.Fatalf("Solve shape %v", x.Shape())
				}
				xb := laMatrices(t, x)
				for i := range 3 {
					ax := laMul(av[i*n*n:(i+1)*n*n], xb.mat(i), n, n, 2, false, false)
					laClose(t, fmt.Sprintf("matrix %d: A·X", i), ax, bv, tol*n*amax*laMaxAbs(xb.v))
				}
				bvec, bvv := laInput(t, dev, dt, laRandom(4, 1, 3, n, 0), 3, n)
				x = tensor.Solve(a, bvec)
				check(x)
				if !slices.Equal(x.Shape(), []int{3, n}) {
					t.Fatalf("Solve (vectors) shape %v", x.Shape())
				}
				xv := laRead(t, x)
				for i := range 3 {
					ax := laMul(av[i*n*n:(i+1)*n*n], xv[i*n:(i+1)*n], n, n, 1, false, false)
					laClose(t, fmt.Sprintf("vector %d: A·x", i), ax, bvv[i*n:(i+1)*n], tol*n*amax*laMaxAbs(xv))
				}
				inv := tensor.Inv(a)
				check(inv)
				ib := laMatrices(t, inv)
				for i := range 3 {
					ai := laMul(av[i*n*n:(i+1)*n*n], ib.mat(i), n, n, n, false, false)
					laClose(t, fmt.Sprintf("matrix %d: A·Inv(A)", i), ai, laEye(n), tol*n*amax*laMaxAbs(ib.v))
				}
			})

			t.Run(name+"EighDet", func(t *testing.T) {
				const n = 5
				g := laRandom(5, 4, n, n, 0)
				sym := make([]float64, len(g))
				for b := range 4 {
					for i := range n {
						for j := range n {
							sym[b*n*n+i*n+j] = g[b*n*n+i*n+j] + g[b*n*n+j*n+i]
						}
					}
				}
				a, av := laInput(t, dev, dt, sym, 4, n, n)
				amax := laMaxAbs(av)
				w, v := tensor.Eigh(a)
				check(w)
				check(v)
				wv, vb := laRead(t, w), laMatrices(t, v)
				det := tensor.Det(a)
				check(det)
				dv := laRead(t, det)
				sign, logabs := tensor.SlogDet(a)
				check(sign)
				check(logabs)
				sv, lv := laRead(t, sign), laRead(t, logabs)
				for b := range 4 {
					ws := wv[b*n : (b+1)*n]
					if !slices.IsSorted(ws) {
						t.Errorf("matrix %d: eigenvalues %v not ascending", b, ws)
					}
					diag := make([]float64, n*n)
					prod := 1.0
					for i, x := range ws {
						diag[i*n+i] = x
						prod *= x
					}
					am, vm := av[b*n*n:(b+1)*n*n], vb.mat(b)
					laClose(t, fmt.Sprintf("matrix %d: A·V vs V·diag(w)", b), laMul(am, vm, n, n, n, false, false), laMul(vm, diag, n, n, n, false, false), tol*n*amax)
					laClose(t, fmt.Sprintf("matrix %d: VᵀV", b), laMul(vm, vm, n, n, n, true, false), laEye(n), tol*n)
					detTol := tol * n * math.Pow(amax, n)
					laClose(t, fmt.Sprintf("matrix %d: Det vs product of eigenvalues", b), dv[b:b+1], []float64{prod}, detTol)
					laClose(t, fmt.Sprintf("matrix %d: sign·exp(logabsdet) vs Det", b), []float64{sv[b] * math.Exp(lv[b])}, dv[b:b+1], detTol)
				}
			})

			for _, sh := range [][2]int{{7, 4}, {4, 7}, {5, 5}} {
				m, n := sh[0], sh[1]
				k := min(m, n)
				t.Run(fmt.Sprintf("%sSVDQR/%dx%d", name, m, n), func(t *testing.T) {
					a, av := laInput(t, dev, dt, laRandom(6, 6, m, n, 0), 3, 2, m, n)
					amax := laMaxAbs(av)
					u, s, vh := tensor.SVD(a)
					check(u)
					check(s)
					check(vh)
					ub, sv, vb := laMatrices(t, u), laRead(t, s), laMatrices(t, vh)
					if ub.rows != m || ub.cols != k || vb.rows != k || vb.cols != n || len(sv) != 6*k {
						t.Fatalf("SVD shapes %v %v %v", u.Shape(), s.Shape(), vh.Shape())
					}
					q, r := tensor.QR(a)
					check(q)
					check(r)
					qb, rb := laMatrices(t, q), laMatrices(t, r)
					if qb.rows != m || qb.cols != k || rb.rows != k || rb.cols != n {
						t.Fatalf("QR shapes %v %v", q.Shape(), r.Shape())
					}
					for b := range 6 {
						am := av[b*m*n : (b+1)*m*n]
						ss := sv[b*k : (b+1)*k]
						if !slices.IsSortedFunc(ss, func(x, y float64) int { return -cmpF(x, y) }) || ss[k-1] < 0 {
							t.Errorf("matrix %d: singular values %v not descending and non-negative", b, ss)
						}
						us := slices.Clone(ub.mat(b))
						for i := range m {
							for j := range k {
								us[i*k+j] *= ss[j]
							}
						}
						laClose(t, fmt.Sprintf("matrix %d: U·diag(S)·Vh", b), laMul(us, vb.mat(b), m, k, n, false, false), am, tol*float64(k)*amax)
						laClose(t, fmt.Sprintf("matrix %d: UᵀU", b), laMul(ub.mat(b), ub.mat(b), k, m, k, true, false), laEye(k), tol*float64(m))
						laClose(t, fmt.Sprintf("matrix %d: Vh·Vhᵀ", b), laMul(vb.mat(b), vb.mat(b), k, n, k, false, true), laEye(k), tol*float64(n))

						laClose(t, fmt.Sprintf("matrix %d: Q·R", b), laMul(qb.mat(b), rb.mat(b), m, k, n, false, false), am, tol*float64(k)*amax)
						laClose(t, fmt.Sprintf("matrix %d: QᵀQ", b), laMul(qb.mat(b), qb.mat(b), k, m, k, true, false), laEye(k), tol*float64(m))
						for i := range k {
							for j := range min(i, n) {
								if rb.at(b, i, j) != 0 {
									t.Fatalf("matrix %d: R[%d,%d] = %v below the diagonal", b, i, j, rb.at(b, i, j))
								}
							}
						}
					}
				})
			}

			t.Run(name+"Lstsq", func(t *testing.T) {
				const m, n = 8, 3
				a, av := laInput(t, dev, dt, laRandom(7, 2, m, n, 0), 2, m, n)
				b, bv := laInput(t, dev, dt, laRandom(8, 2, m, 2, 0), 2, m, 2)
				x := tensor.Lstsq(a, b)
				check(x)
				xb := laMatrices(t, x)
				if xb.rows != n || xb.cols != 2 {
					t.Fatalf("Lstsq shape %v", x.Shape())
				}
				for i := range 2 {
					am := av[i*m*n : (i+1)*m*n]
					res := laMul(am, xb.mat(i), m, n, 2, false, false)
					for j := range res {
						res[j] -= bv[i*m*2+j]
					}
					// The residual is orthogonal to the column space: Aᵀ·(A·x - b) = 0.
					laClose(t, fmt.Sprintf("matrix %d: Aᵀ·(A·x - b)", i), laMul(am, res, n, m, 2, true, false), make([]float64, n*2), tol*m*laMaxAbs(am)*(laMaxAbs(bv)+laMaxAbs(am)*laMaxAbs(xb.v)))
				}
			})
		}
	}
}

func cmpF(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// ---------------------------------------------------------------- errors

func laWantErr(t *testing.T, what string, x *tensor.Tensor, kind error, msg string) {
	t.Helper()
	err := x.Err()
	if !errors.Is(err, kind) {
		t.Errorf("%s: error %v, want kind %v", what, err, kind)
		return
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: error %q does not say %q", what, err, msg)
	}
}

// TestLinalgErrors checks that bad inputs give typed errors naming the
// matrix, and that singular inputs of Det and SlogDet give 0 and -Inf.
func TestLinalgErrors(t *testing.T) {
	for _, dev := range testDevices(t) {
		dt := dtype.F32
		t.Run(dev.Name(), func(t *testing.T) {
			// Matrix 3 of the batch is singular (exactly: its LU has a zero pivot).
			sing := []float64{1, 0, 0, 1, 2, 0, 0, 2, 3, 1, 1, 3, 1, 2, 2, 4}
			a := tensor.FromSlice(sing, 4, 2, 2).Cast(dt).To(dev)
			b := tensor.Ones(dt, 4, 2).To(dev)
			laWantErr(t, "Solve", tensor.Solve(a, b), tensor.ErrValue, "Solve: matrix 3 of the batch is singular")
			laWantErr(t, "Inv", tensor.Inv(a), tensor.ErrValue, "Inv: matrix 3 of the batch is singular")
			a4 := a.Reshape(2, 2, 2, 2)
			laWantErr(t, "Inv 2x2 batch", tensor.Inv(a4), tensor.ErrValue, "matrix 3 of the batch (index [1 1] of batch shape [2 2]) is singular")
			laWantErr(t, "Inv one matrix", tensor.Inv(tensor.FromSlice([]float64{1, 2, 2, 4}, 2, 2)), tensor.ErrValue, "the matrix is singular")
			d := tensor.Det(a)
			laNoErr(t, d.Err())
			if v := laRead(t, d); v[3] != 0 || math.Signbit(v[3]) || v[0] != 1 || v[1] != 4 || v[2] != 8 {
				t.Errorf("Det = %v, want [1 4 8 0]", v)
			}
			s, l := tensor.SlogDet(a)
			if sv, lv := laRead(t, s), laRead(t, l); sv[3] != 0 || !math.IsInf(lv[3], -1) || sv[1] != 1 || lv[1] != float32Log(4) {
				t.Errorf("SlogDet = %v, %v; want sign 0 and -Inf for matrix 3", sv, lv)
			}

			// Matrix 1 is not positive definite.
			npd := tensor.FromSlice([]float64{4, 0, 0, 4, 1, 2, 2, 1, 1, 0, 0, 1}, 3, 2, 2).Cast(dt).To(dev)
			laWantErr(t, "Cholesky", tensor.Cholesky(npd), tensor.ErrValue, "Cholesky: matrix 1 of the batch is not positive definite")
			laWantErr(t, "Cholesky one matrix", tensor.Cholesky(tensor.FromSlice([]float64{-1}, 1, 1)), tensor.ErrValue, "the matrix is not positive definite")
			nan := tensor.FromSlice([]float64{1, 0, 0, 1, math.NaN(), 0, 0, 1}, 2, 2, 2).Cast(dt).To(dev)
			laWantErr(t, "Cholesky NaN", tensor.Cholesky(nan), tensor.ErrValue, "matrix 1 of the batch is not positive definite")
			w, v := tensor.Eigh(nan)
			laWantErr(t, "Eigh NaN", w, tensor.ErrValue, "matrix 1 of the batch holds NaN or Inf")
			laWantErr(t, "Eigh NaN vectors", v, tensor.ErrValue, "NaN")
			u, sv, vh := tensor.SVD(nan)
			for _, x := range []*tensor.Tensor{u, sv, vh} {
				laWantErr(t, "SVD NaN", x, tensor.ErrValue, "matrix 1 of the batch holds NaN or Inf")
			}
			laWantErr(t, "Lstsq NaN", tensor.Lstsq(nan, tensor.Ones(dt, 2).To(dev)), tensor.ErrValue, "matrix 1 of the batch holds NaN or Inf")

			// Shapes.
			rect := tensor.Ones(dt, 2, 3).To(dev)
			for name, x := range map[string]*tensor.Tensor{
				"Cholesky": tensor.Cholesky(rect), "Solve": tensor.Solve(rect, tensor.Ones(dt, 2).To(dev)), "Inv": tensor.Inv(rect),
				"Det": tensor.Det(rect), "SlogDet": first(tensor.SlogDet(rect)), "Eigh": first(tensor.Eigh(rect)),
			} {
				laWantErr(t, name, x, tensor.ErrShape, "square matrices, have shape [2 3]")
			}
			vec := tensor.Ones(dt, 3).To(dev)
			q, _ := tensor.QR(vec)
			laWantErr(t, "QR of a vector", q, tensor.ErrShape, "at least two axes")
			u, _, _ = tensor.SVD(vec)
			laWantErr(t, "SVD of a vector", u, tensor.ErrShape, "at least two axes")
			laWantErr(t, "Trace of a vector", tensor.Trace(vec), tensor.ErrShape, "at least two axes")
			laWantErr(t, "Diag of 3-D", tensor.Diag(tensor.Ones(dt, 2, 2, 2).To(dev), 0), tensor.ErrShape, "1-D or 2-D")
			laWantErr(t, "DiagEmbed of a scalar", tensor.DiagEmbed(tensor.Ones(dt).To(dev), 0), tensor.ErrShape, "at least one axis")
			sq := tensor.Ones(dt, 2, 3, 3).To(dev)
			laWantErr(t, "Solve b rows", tensor.Solve(sq, tensor.Ones(dt, 4).To(dev)), tensor.ErrShape, "b does not match a")
			laWantErr(t, "Solve b matrix rows", tensor.Solve(sq, tensor.Ones(dt, 2, 2, 2).To(dev)), tensor.ErrShape, "b does not match a")
			laWantErr(t, "Solve batch", tensor.Solve(sq, tensor.Ones(dt, 3, 3, 1).To(dev)), tensor.ErrShape, "batch axes do not broadcast")
			laWantErr(t, "Lstsq b rows", tensor.Lstsq(rect, tensor.Ones(dt, 3).To(dev)), tensor.ErrShape, "b does not match a")
			laWantErr(t, "Solve scalar b", tensor.Solve(sq, tensor.Ones(dt).To(dev)), tensor.ErrShape, "at least one axis")

			// Dtypes.
			ints := tensor.FromSlice([]int32{1, 0, 0, 1}, 2, 2).To(dev)
			for name, x := range map[string]*tensor.Tensor{
				"Cholesky": tensor.Cholesky(ints), "Solve": tensor.Solve(ints, ints), "Inv": tensor.Inv(ints),
				"Det": tensor.Det(ints), "SlogDet": first(tensor.SlogDet(ints)), "Eigh": first(tensor.Eigh(ints)),
				"SVD": first(tensor.SVD(ints)), "QR": first(tensor.QR(ints)), "Lstsq": tensor.Lstsq(ints, ints),
			} {
				laWantErr(t, name, x, tensor.ErrDType, "takes f32 or f64")
			}
			if supports(dev, dtype.F16) {
				laWantErr(t, "Inv f16", tensor.Inv(tensor.Ones(dtype.F16, 2, 2).To(dev)), tensor.ErrDType, "f16")
			}
			eye := tensor.Eye(dtype.F64, 2)
			laWantErr(t, "Solve dtypes", tensor.Solve(eye, tensor.Ones(dtype.F32, 2)), tensor.ErrDType, "dtypes differ")
			if dev != device.CPU() {
				laWantErr(t, "Solve devices", tensor.Solve(tensor.Eye(dt, 2).To(dev), tensor.Ones(dt, 2)), tensor.ErrDevice, "different devices")
			}

			// Released, failed and nil inputs.
			rel := tensor.Eye(dt, 2).To(dev)
			rel.Release()
			laWantErr(t, "Inv released", tensor.Inv(rel), tensor.ErrReleased, "released")
			laWantErr(t, "Solve released b", tensor.Solve(tensor.Eye(dt, 2).To(dev), rel), tensor.ErrReleased, "released")
			laWantErr(t, "Trace released", tensor.Trace(rel), tensor.ErrReleased, "released")
			bad := tensor.Ones(dt, 2, 2).To(dev).Reshape(3)
			laWantErr(t, "Det of failed", tensor.Det(bad), tensor.ErrShape, "Det")
			laWantErr(t, "Diag of failed", tensor.Diag(bad, 0), tensor.ErrShape, "Diag")
			laWantErr(t, "Cholesky nil", tensor.Cholesky(nil), tensor.ErrValue, "nil")
			laWantErr(t, "Solve nil b", tensor.Solve(tensor.Eye(dt, 2).To(dev), nil), tensor.ErrValue, "nil")
			laWantErr(t, "Trace nil", tensor.Trace(nil), tensor.ErrValue, "nil")
		})
	}
}

func first[T any](x T, _ ...any) T { return x }

// float32Log is log(x) rounded to float32, as an F32 SlogDet returns it.
func float32Log(x float64) float64 { return float64(float32(math.Log(x))) }

// TestLinalgEmpty checks empty batches and 0x0 matrices.
func TestLinalgEmpty(t *testing.T) {
	for _, dev := range testDevices(t) {
		for _, dt := range laDTypes(dev) {
			t.Run(fmt.Sprintf("%s/%v", dev.Name(), dt), func(t *testing.T) {
				e := tensor.Zeros(dt, 0, 3, 3).To(dev)
				shapeIs := func(what string, x *tensor.Tensor, want ...int) {
					t.Helper()
					laNoErr(t, x.Err())
					if !slices.Equal(x.Shape(), want) || x.DType() != dt || x.Device() != dev {
						t.Errorf("%s: %v %v on %s, want %v", what, x.Shape(), x.DType(), x.Device().Name(), want)
					}
				}
				shapeIs("Cholesky", tensor.Cholesky(e), 0, 3, 3)
				shapeIs("Solve", tensor.Solve(e, tensor.Zeros(dt, 3, 2).To(dev)), 0, 3, 2)
				shapeIs("Inv", tensor.Inv(e), 0, 3, 3)
				shapeIs("Det", tensor.Det(e), 0)
				s, l := tensor.SlogDet(e)
				shapeIs("SlogDet sign", s, 0)
				shapeIs("SlogDet log", l, 0)
				w, v := tensor.Eigh(e)
				shapeIs("Eigh w", w, 0, 3)
				shapeIs("Eigh v", v, 0, 3, 3)
				er := tensor.Zeros(dt, 0, 4, 2).To(dev)
				u, sv, vh := tensor.SVD(er)
				shapeIs("SVD u", u, 0, 4, 2)
				shapeIs("SVD s", sv, 0, 2)
				shapeIs("SVD vh", vh, 0, 2, 2)
				q, r := tensor.QR(er)
				shapeIs("QR q", q, 0, 4, 2)
				shapeIs("QR r", r, 0, 2, 2)
				shapeIs("Lstsq", tensor.Lstsq(er, tensor.Zeros(dt, 0, 4).To(dev)), 0, 2)
				shapeIs("Trace", tensor.Trace(e), 0)
				shapeIs("DiagEmbed", tensor.DiagEmbed(tensor.Zeros(dt, 0, 2).To(dev), 1), 0, 3, 3)

				// 0x0 matrices: det 1, as NumPy.
				z := tensor.Zeros(dt, 2, 0, 0).To(dev)
				d := tensor.Det(z)
				shapeIs("Det 0x0", d, 2)
				if v := laRead(t, d); v[0] != 1 || v[1] != 1 {
					t.Errorf("Det of 0x0 = %v, want [1 1]", v)
				}
				shapeIs("Inv 0x0", tensor.Inv(z), 2, 0, 0)
				shapeIs("Cholesky 0x0", tensor.Cholesky(z), 2, 0, 0)
				shapeIs("Trace 0x0", tensor.Trace(z), 2)
				shapeIs("Lstsq m=0", tensor.Lstsq(tensor.Zeros(dt, 0, 3).To(dev), tensor.Zeros(dt, 0).To(dev)), 3)
				shapeIs("Diag 0x3", tensor.Diag(tensor.Zeros(dt, 0, 3).To(dev), 0), 0)
			})
		}
	}
}

// TestLinalgDiagDTypes checks that Diag, DiagEmbed and Trace take any
// dtype and views, on the tensor's device.
func TestLinalgDiagDTypes(t *testing.T) {
	for _, dev := range testDevices(t) {
		t.Run(dev.Name(), func(t *testing.T) {
			m := tensor.Arange(dtype.I64, 0, 12, 1).Reshape(3, 4).Cast(dtype.I32).To(dev)
			d := tensor.Diag(m.T(), -1) // a transposed view: [4, 3], diagonal below
			laNoErr(t, d.Err())
			if v, _ := tensor.ToSlice[int32](d); !slices.Equal(v, []int32{1, 6, 11}) {
				t.Errorf("Diag(mᵀ, -1) = %v, want [1 6 11]", v)
			}
			tr := tensor.Trace(m)
			if v, err := tensor.ToSlice[int64](tr); err != nil || !slices.Equal(v, []int64{15}) || len(tr.Shape()) != 0 {
				t.Errorf("Trace = %v %v (shape %v), want 15 as an i64 scalar (numpy.trace)", v, err, tr.Shape())
			}
			bools := tensor.FromSlice([]bool{true, false}, 2).To(dev)
			e := tensor.DiagEmbed(bools, -1)
			if v, err := tensor.ToSlice[bool](e); err != nil || !slices.Equal(v, []bool{false, false, false, true, false, false, false, false, false}) {
				t.Errorf("DiagEmbed(bool, -1) = %v %v", v, err)
			}
			if e.Device() != dev {
				t.Errorf("DiagEmbed on %s, want %s", e.Device().Name(), dev.Name())
			}
		})
	}
}

// Solving a linear system; a singular matrix is an error that names it.
func ExampleSolve() {
	a := tensor.FromSlice([]float64{3, 1, 1, 2}, 2, 2)
	b := tensor.FromSlice([]float64{9, 8}, 2)
	x := tensor.Solve(a, b) // 3x + y = 9, x + 2y = 8
	fmt.Println(x)

	batch := tensor.FromSlice([]float64{1, 0, 0, 1, 1, 2, 2, 4}, 2, 2, 2)
	err := tensor.Solve(batch, b).Err()
	fmt.Println(errors.Is(err, tensor.ErrValue), err)
	// Output:
	// tensor([2., 3.], dtype=f64, device=cpu)
	// true tensor: Solve: matrix 1 of the batch is singular
}

// TestLinalgViews checks that views (transposed, narrowed, broadcast) and
// pending (fused) tensors give the same results as contiguous copies.
func TestLinalgViews(t *testing.T) {
	for _, dev := range testDevices(t) {
		dt := dtype.F32
		t.Run(dev.Name(), func(t *testing.T) {
			base := tensor.FromSlice(laRandom(9, 2, 4, 5, 3), 2, 4, 5).Cast(dt).To(dev)
			view := base.Narrow(2, 1, 4).Transpose(1, 2) // [2, 4, 4], strided
			lazy := view.MulScalar(1)                    // a pending elementwise result
			copyOf := view.Contiguous()
			b := tensor.FromSlice([]float64{1, 2, 3, 4}, 4).Cast(dt).To(dev).BroadcastTo(2, 4) // stride-0 batch
			same := func(what string, got, want *tensor.Tensor) {
				t.Helper()
				if ok, err := tensor.Equal(got, want); err != nil || !ok {
					t.Errorf("%s: view result %v differs from the contiguous one %v (%v)", what, got, want, err)
				}
			}
			for _, in := range []*tensor.Tensor{view, lazy} {
				same("Solve", tensor.Solve(in, b), tensor.Solve(copyOf, b.Contiguous()))
				same("Inv", tensor.Inv(in), tensor.Inv(copyOf))
				same("Det", tensor.Det(in), tensor.Det(copyOf))
				q, r := tensor.QR(in)
				q2, r2 := tensor.QR(copyOf)
				same("QR q", q, q2)
				same("QR r", r, r2)
				same("Trace", tensor.Trace(in), tensor.Trace(copyOf))
				same("Diag", tensor.Diag(in.Narrow(0, 1, 1).Squeeze(0), 1), tensor.Diag(copyOf.Narrow(0, 1, 1).Squeeze(0), 1))
			}
		})
	}
}

// TestLinalgLargeBatch runs a batch large enough to be split across cores:
// each matrix's result equals that of the matrix alone, and of two singular
// matrices the error names the first, whichever core finds it.
func TestLinalgLargeBatch(t *testing.T) {
	const count, n = 64, 16
	v := laRandom(10, count, n, n, 4)
	a := tensor.FromSlice(v, count, n, n)
	inv := tensor.Inv(a)
	laNoErr(t, inv.Err())
	for _, i := range []int{0, 17, 63} {
		one := tensor.Inv(a.Narrow(0, i, 1).Squeeze(0))
		if ok, err := tensor.Equal(inv.Narrow(0, i, 1).Squeeze(0), one); err != nil || !ok {
			t.Errorf("matrix %d of the batch differs from its inverse alone (%v)", i, err)
		}
	}
	for _, i := range []int{40, 50} {
		for j := range n * n {
			v[i*n*n+j] = float64(j % n) // equal rows: singular
		}
	}
	for range 5 {
		laWantErr(t, "Inv", tensor.Inv(tensor.FromSlice(v, count, n, n)), tensor.ErrValue, "matrix 40 of the batch is singular")
	}
}

// BenchmarkLinalg1024 times Solve (one right-hand side) and Cholesky on a
// 1024x1024 f64 matrix on the CPU, the sizes issue 11 compares with NumPy.
func BenchmarkLinalg1024(b *testing.B) {
	const n = 1024
	g := tensor.RandN(dtype.F64, 11, n, n)
	spd := g.Matmul(g.T()).Add(tensor.Eye(dtype.F64, n).MulScalar(n))
	rhs := tensor.RandN(dtype.F64, 12, n)
	b.Run("Solve", func(b *testing.B) {
		for b.Loop() {
			x := tensor.Solve(spd, rhs)
			if err := x.Err(); err != nil {
				b.Fatal(err)
			}
			x.Release()
		}
	})
	b.Run("Cholesky", func(b *testing.B) {
		for b.Loop() {
			l := tensor.Cholesky(spd)
			if err := l.Err(); err != nil {
				b.Fatal(err)
			}
			l.Release()
		}
	})
}

// BenchmarkSolve times Solve with one right-hand side on the CPU for the
// sizes ci/bench-linalg.sh compares with numpy.linalg.solve: square
// matrices of n = 64, 256 and 1024 in f32 and f64, and a batch of 100
// systems of 16. The matrices are standard normal plus n on the diagonal.
// best-ns is the fastest single call, the figure NumPy's side reports
// (on a shared machine the mean also counts the waits for a core).
func BenchmarkSolve(b *testing.B) {
	for _, c := range []struct {
		batch, n int
	}{{1, 64}, {1, 256}, {1, 1024}, {100, 16}} {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			a := tensor.RandN(dtype.F64, 11, c.batch, c.n, c.n).Add(tensor.Eye(dtype.F64, c.n).MulScalar(float64(c.n))).Cast(dt)
			rhs := tensor.RandN(dt, 12, c.batch, c.n)
			name := fmt.Sprintf("%v/%d", dt, c.n)
			if c.batch == 1 {
				a, rhs = a.Squeeze(0), rhs.Squeeze(0)
			} else {
				name = fmt.Sprintf("%v/%dx%dx%d", dt, c.batch, c.n, c.n)
			}
			b.Run(name, func(b *testing.B) {
				benchLinalg(b, float64(c.batch)*2*math.Pow(float64(c.n), 3)/3, func() *tensor.Tensor { return tensor.Solve(a, rhs) })
			})
		}
	}
}

// benchLinalg times call (one factorisation or solve of flops floating
// point operations) per iteration, releasing its result, and reports
// GFLOP/s and best-ns, the fastest single call: the figure NumPy's side of
// ci/bench-linalg.sh reports (on a shared machine the mean also counts the
// waits for a core).
func benchLinalg(b *testing.B, flops float64, call func() *tensor.Tensor) {
	best := time.Duration(math.MaxInt64)
	for b.Loop() {
		t0 := time.Now()
		x := call()
		if err := x.Err(); err != nil {
			b.Fatal(err)
		}
		best = min(best, time.Since(t0))
		x.Release()
	}
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	b.ReportMetric(float64(best.Nanoseconds()), "best-ns")
}

// TestCholeskyRecursive: matrices above the size gonum's Potrf handles
// whole (97 and 200, where tessera's recursive factorisation runs), in
// batches of three, f32 and f64, on the CPU: L·Lᵀ rebuilds a in float64
// within laIdent·n·max|a| with the upper triangle of a filled with NaN
// (never read) and L's zeroed; a matrix that is not positive definite, or
// has a NaN in its lower triangle, at any index of the batch is named.
func TestCholeskyRecursive(t *testing.T) {
	for _, n := range []int{97, 200} {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			tol := laIdentF64
			if dt == dtype.F32 {
				tol = laIdentF32
			}
			v := laSPD(7, 3, n)
			junk := slices.Clone(v)
			for b := range 3 {
				for i := range n {
					for j := i + 1; j < n; j++ {
						junk[b*n*n+i*n+j] = math.NaN()
					}
				}
			}
			a, av := laInput(t, device.CPU(), dt, junk, 3, n, n)
			l := tensor.Cholesky(a)
			laNoErr(t, l.Err())
			lb := laMatrices(t, l)
			for b := range 3 {
				for i := range n {
					for j := i + 1; j < n; j++ {
						if lb.at(b, i, j) != 0 {
							t.Fatalf("n=%d %v matrix %d: L[%d,%d] = %v above the diagonal", n, dt, b, i, j, lb.at(b, i, j))
						}
					}
				}
				want := slices.Clone(av[b*n*n : (b+1)*n*n]) // the lower triangle, mirrored
				for i := range n {
					for j := i + 1; j < n; j++ {
						want[i*n+j] = want[j*n+i]
					}
				}
				llt := laMul(lb.mat(b), lb.mat(b), n, n, n, false, true)
				laClose(t, fmt.Sprintf("n=%d %v matrix %d: L·Lᵀ", n, dt, b), llt, want, tol*float64(n)*laMaxAbs(want))
			}
			for bad := range 3 {
				for _, spoil := range []struct {
					i, j int
					v    float64
				}{{n - 1, n - 1, -1}, {n / 2, n / 2, 0}, {n - 1, 3, math.NaN()}, {40, 39, math.NaN()}} {
					w := slices.Clone(v)
					w[bad*n*n+spoil.i*n+spoil.j] = spoil.v
					x, _ := laInput(t, device.CPU(), dt, w, 3, n, n)
					laWantErr(t, fmt.Sprintf("n=%d %v a[%d][%d,%d] = %v", n, dt, bad, spoil.i, spoil.j, spoil.v), tensor.Cholesky(x),
						tensor.ErrValue, fmt.Sprintf("matrix %d of the batch is not positive definite", bad))
				}
			}
		}
	}
}

// BenchmarkCholesky times Cholesky on the CPU for the sizes
// ci/bench-linalg.sh compares with numpy.linalg.cholesky: n = 64, 256 and
// 1024 in f32 and f64, and a batch of 100 matrices of 16. The matrices are
// G·Gᵀ + n·I for a standard normal G. best-ns is the fastest single call.
func BenchmarkCholesky(b *testing.B) {
	for _, c := range []struct {
		batch, n int
	}{{1, 64}, {1, 256}, {1, 1024}, {100, 16}} {
		g := tensor.RandN(dtype.F64, 11, c.batch, c.n, c.n)
		spd := g.Matmul(g.Transpose(1, 2)).Add(tensor.Eye(dtype.F64, c.n).MulScalar(float64(c.n)))
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			a := spd.Cast(dt)
			if err := a.Err(); err != nil { // realised here, not in the first timed call
				b.Fatal(err)
			}
			name := fmt.Sprintf("%v/%d", dt, c.n)
			if c.batch == 1 {
				a = a.Squeeze(0)
			} else {
				name = fmt.Sprintf("%v/%dx%dx%d", dt, c.batch, c.n, c.n)
			}
			b.Run(name, func(b *testing.B) {
				benchLinalg(b, float64(c.batch)*math.Pow(float64(c.n), 3)/3, func() *tensor.Tensor { return tensor.Cholesky(a) })
			})
		}
	}
}

// TestSolveBlocked: systems large enough for the recursive LU's products
// (n = 100 and 300, one and 40 right-hand sides), f32 and f64, solved to
// the backward error LU with partial pivoting guarantees: the residual
// |a·x - b| (in float64) within 16·n·eps·(|a|·|x| + |b|) row by row; and a
// singular matrix in a batch of such sizes is named.
func TestSolveBlocked(t *testing.T) {
	for _, c := range []struct{ n, k int }{{100, 1}, {300, 1}, {100, 40}} {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F64} {
			a := tensor.RandN(dt, 21, c.n, c.n)
			b := tensor.RandN(dt, 22, c.n, c.k)
			x := tensor.Solve(a, b)
			laNoErr(t, x.Err())
			av, bv, xv := laRead(t, a), laRead(t, b), laRead(t, x)
			eps := 0x1p-52
			if dt == dtype.F32 {
				eps = 0x1p-23
			}
			for i := range c.n {
				for j := range c.k {
					r, s := -bv[i*c.k+j], math.Abs(bv[i*c.k+j])
					for q := range c.n {
						r += av[i*c.n+q] * xv[q*c.k+j]
						s += math.Abs(av[i*c.n+q] * xv[q*c.k+j])
					}
					if math.Abs(r) > 16*float64(c.n)*eps*s {
						t.Fatalf("%v n=%d k=%d: residual %g in row %d column %d (scale %g)", dt, c.n, c.k, r, i, j, s)
					}
				}
			}
		}
	}
	const n = 120
	v := make([]float64, 3*n*n)
	for i := range v {
		v[i] = math.Sin(float64(i) * 0.7)
	}
	clear(v[n*n+17*n : n*n+18*n]) // matrix 1: row 17 zero
	x := tensor.Solve(tensor.FromSlice(v, 3, n, n), tensor.Ones(dtype.F64, 3, n))
	laWantErr(t, "Solve", x, tensor.ErrValue, "matrix 1 of the batch is singular")
}
