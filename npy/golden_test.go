package npy_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/npy"
)

const goldenDir = "../testdata/golden"

// goldenCase is one `case` line of testdata/golden/MANIFEST.txt.
type goldenCase struct {
	name, op string
	inputs   []string
	out      string
	params   map[string]string
	// data is the case's data dtype (goldenData), set by TestGolden.
	data dtype.DType
}

func readGoldenManifest(t *testing.T) []goldenCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(goldenDir, "MANIFEST.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "case ") {
			continue
		}
		f := strings.Split(line, " ")
		if len(f) != 6 {
			t.Fatalf("manifest line has %d fields: %q", len(f), line)
		}
		c := goldenCase{name: f[1], params: map[string]string{}}
		for _, kv := range f[2:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("manifest field %q in %q", kv, line)
			}
			switch k {
			case "op":
				c.op = v
			case "inputs":
				c.inputs = strings.Split(v, ",")
			case "out":
				c.out = v
			case "params":
				for _, p := range strings.Split(v, ";") {
					if p == "" {
						continue
					}
					pk, pv, _ := strings.Cut(p, "=")
					c.params[pk] = pv
				}
			default:
				t.Fatalf("manifest field %q in %q", k, line)
			}
		}
		cases = append(cases, c)
	}
	if len(cases) < 80 {
		t.Fatalf("manifest lists %d cases", len(cases))
	}
	return cases
}

// nd is a float64 array for the reference computations below.
type nd struct {
	shape []int
	v     []float64
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// unravel returns the C-order multi-index of flat position i.
func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for ax := len(shape) - 1; ax >= 0; ax-- {
		if shape[ax] > 0 {
			idx[ax] = i % shape[ax]
			i /= shape[ax]
		}
	}
	return idx
}

// at reads x at the index idx of a broadcast result whose rank may exceed
// x's: axes align from the right and extent-1 axes repeat.
func (x nd) at(idx []int) float64 {
	off := 0
	skip := len(idx) - len(x.shape)
	for ax, d := range x.shape {
		i := idx[skip+ax]
		if d == 1 {
			i = 0
		}
		off = off*d + i
	}
	return x.v[off]
}

func broadcast(shapes ...[]int) []int {
	r := 0
	for _, s := range shapes {
		r = max(r, len(s))
	}
	out := make([]int, r)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for ax, d := range s {
			o := r - len(s) + ax
			if d != 1 {
				out[o] = d
			}
		}
	}
	return out
}

func mapN(f func(x ...float64) float64, xs ...nd) nd {
	shapes := make([][]int, len(xs))
	for i, x := range xs {
		shapes[i] = x.shape
	}
	shape := broadcast(shapes...)
	out := nd{shape, make([]float64, numel(shape))}
	args := make([]float64, len(xs))
	for i := range out.v {
		idx := unravel(i, shape)
		for j, x := range xs {
			args[j] = x.at(idx)
		}
		out.v[i] = f(args...)
	}
	return out
}

func normAxis(a, rank int) int {
	if a < 0 {
		a += rank
	}
	return a
}

// reduce folds x over axes (nil = all) with f, starting from init.
func reduce(x nd, axes []int, keep bool, init float64, f func(acc, v float64) float64) nd {
	red := make([]bool, len(x.shape))
	for _, a := range axes {
		red[normAxis(a, len(x.shape))] = true
	}
	if axes == nil {
		for i := range red {
			red[i] = true
		}
	}
	var kshape, oshape []int
	for ax, d := range x.shape {
		if red[ax] {
			kshape = append(kshape, 1)
			continue
		}
		kshape = append(kshape, d)
		oshape = append(oshape, d)
	}
	out := nd{kshape, make([]float64, numel(kshape))}
	for i := range out.v {
		out.v[i] = init
	}
	for i, v := range x.v {
		idx := unravel(i, x.shape)
		off := 0
		for ax, d := range kshape {
			if !red[ax] {
				off = off*d + idx[ax]
			}
		}
		out.v[off] = f(out.v[off], v)
	}
	if !keep {
		out.shape = append([]int{}, oshape...)
	}
	return out
}

func parseAxes(s string) []int {
	if s == "none" || s == "" {
		return nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, _ := strconv.Atoi(p)
		out = append(out, n)
	}
	return out
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func matmul(a, b nd) nd {
	as, bs := a.shape, b.shape
	if len(as) == 1 {
		as = []int{1, as[0]}
	}
	if len(bs) == 1 {
		bs = []int{bs[0], 1}
	}
	m, k, n := as[len(as)-2], as[len(as)-1], bs[len(bs)-1]
	batch := broadcast(as[:len(as)-2], bs[:len(bs)-2])
	A, B := nd{as, a.v}, nd{bs, b.v}
	oshape := append(append([]int{}, batch...), m, n)
	out := nd{oshape, make([]float64, numel(oshape))}
	for o := range out.v {
		idx := unravel(o, oshape)
		ai := append(append([]int{}, idx[:len(batch)]...), 0, 0)
		bi := append(append([]int{}, idx[:len(batch)]...), 0, 0)
		r := len(batch)
		s := 0.0
		for p := range k {
			ai[r], ai[r+1] = idx[r], p
			bi[r], bi[r+1] = p, idx[r+1]
			s += A.at(ai) * B.at(bi)
		}
		out.v[o] = s
	}
	switch {
	case len(a.shape) == 1 && len(b.shape) == 1:
		out.shape = []int{}
	case len(a.shape) == 1:
		out.shape = append(append([]int{}, batch...), n)
	case len(b.shape) == 1:
		out.shape = append(append([]int{}, batch...), m)
	}
	return out
}

// reference computes a golden case in float64 from its inputs.
func reference(t *testing.T, c goldenCase, in []nd) nd {
	t.Helper()
	axes := parseAxes(c.params["axis"])
	keep := c.params["keepdims"] == "true"
	add := func(a, v float64) float64 { return a + v }
	unary := func(f func(float64) float64) nd { return mapN(func(x ...float64) float64 { return f(x[0]) }, in[0]) }
	binary := func(f func(a, b float64) float64) nd {
		return mapN(func(x ...float64) float64 { return f(x[0], x[1]) }, in[0], in[1])
	}
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	lse := func(x nd, axes []int, keep bool) nd {
		m := reduce(x, axes, true, math.Inf(-1), math.Max)
		e := mapN(func(v ...float64) float64 { return math.Exp(v[0] - v[1]) }, x, m)
		s := reduce(e, axes, true, 0, add)
		r := mapN(func(v ...float64) float64 { return math.Log(v[0]) + v[1] }, s, m)
		if !keep {
			r.shape = reduce(x, axes, false, 0, add).shape
		}
		return r
	}
	switch c.op {
	case "matmul":
		return matmul(in[0], in[1])
	case "softmax":
		l := lse(in[0], axes, true)
		return mapN(func(v ...float64) float64 { return math.Exp(v[0] - v[1]) }, in[0], l)
	case "log_softmax":
		l := lse(in[0], axes, true)
		return mapN(func(v ...float64) float64 { return v[0] - v[1] }, in[0], l)
	case "logsumexp":
		return lse(in[0], axes, keep)
	case "sum":
		return reduce(in[0], axes, keep, 0, add)
	case "mean":
		s := reduce(in[0], axes, keep, 0, add)
		cnt := float64(len(in[0].v) / len(s.v))
		for i := range s.v {
			s.v[i] /= cnt
		}
		return s
	case "prod":
		return reduce(in[0], axes, keep, 1, func(a, v float64) float64 { return a * v })
	case "max":
		return reduce(in[0], axes, keep, math.Inf(-1), math.Max)
	case "min":
		return reduce(in[0], axes, keep, math.Inf(1), math.Min)
	case "argmax", "argmin":
		x := in[0]
		ax := normAxis(axes[0], len(x.shape))
		// Put the axis last, then scan each row for the first extreme.
		oshape := slices.Delete(slices.Clone(x.shape), ax, ax+1)
		out := nd{oshape, make([]float64, numel(oshape))}
		for o := range out.v {
			idx := slices.Insert(unravel(o, oshape), ax, 0)
			best := 0
			for j := range x.shape[ax] {
				idx[ax] = j
				v := x.at(idx)
				idx[ax] = best
				b := x.at(idx)
				if (c.op == "argmax" && v > b) || (c.op == "argmin" && v < b) {
					best = j
				}
			}
			out.v[o] = float64(best)
		}
		return out
	case "gelu":
		if c.params["approximate"] == "tanh" {
			return unary(func(x float64) float64 {
				u := math.Sqrt(2/math.Pi) * (x + 0.044715*x*x*x)
				return x * sigmoid(2*u)
			})
		}
		return unary(func(x float64) float64 { return 0.5 * x * math.Erfc(-x/math.Sqrt2) })
	case "erf":
		return unary(math.Erf)
	case "tanh":
		return unary(math.Tanh)
	case "sigmoid":
		return unary(sigmoid)
	case "expm1":
		return unary(math.Expm1)
	case "log1p":
		return unary(math.Log1p)
	case "add":
		return binary(func(a, b float64) float64 { return a + b })
	case "mul":
		return binary(func(a, b float64) float64 { return a * b })
	case "maximum":
		return binary(math.Max)
	case "eq":
		return binary(func(a, b float64) float64 { return b2f(a == b) })
	case "ne":
		return binary(func(a, b float64) float64 { return b2f(a != b) })
	case "lt":
		return binary(func(a, b float64) float64 { return b2f(a < b) })
	case "le":
		return binary(func(a, b float64) float64 { return b2f(a <= b) })
	case "gt":
		return binary(func(a, b float64) float64 { return b2f(a > b) })
	case "ge":
		return binary(func(a, b float64) float64 { return b2f(a >= b) })
	case "where":
		return mapN(func(x ...float64) float64 {
			if x[0] != 0 {
				return x[1]
			}
			return x[2]
		}, in...)
	case "concat", "stack":
		parts := in
		ax := normAxis(axes[0], len(in[0].shape))
		if c.op == "stack" {
			ax = normAxis(axes[0], len(in[0].shape)+1)
			parts = nil
			for _, x := range in {
				parts = append(parts, nd{slices.Insert(slices.Clone(x.shape), ax, 1), x.v})
			}
		}
		oshape := slices.Clone(parts[0].shape)
		oshape[ax] = 0
		for _, p := range parts {
			oshape[ax] += p.shape[ax]
		}
		out := nd{oshape, make([]float64, numel(oshape))}
		for o := range out.v {
			idx := unravel(o, oshape)
			for _, p := range parts {
				if idx[ax] < p.shape[ax] {
					out.v[o] = p.at(idx)
					break
				}
				idx[ax] -= p.shape[ax]
			}
		}
		return out
	case "permute", "transpose":
		x := in[0]
		perm := make([]int, len(x.shape))
		for i := range perm {
			perm[i] = i
		}
		if c.op == "permute" {
			perm = parseAxes(c.params["perm"])
		} else {
			d0, _ := strconv.Atoi(c.params["dim0"])
			d1, _ := strconv.Atoi(c.params["dim1"])
			d0, d1 = normAxis(d0, len(perm)), normAxis(d1, len(perm))
			perm[d0], perm[d1] = perm[d1], perm[d0]
		}
		oshape := make([]int, len(perm))
		for i, p := range perm {
			oshape[i] = x.shape[p]
		}
		out := nd{oshape, make([]float64, numel(oshape))}
		for o := range out.v {
			idx := unravel(o, oshape)
			src := make([]int, len(idx))
			for i, p := range perm {
				src[p] = idx[i]
			}
			out.v[o] = x.at(src)
		}
		return out
	}
	if r, ok := moreReference(c, in); ok {
		return r
	}
	t.Fatalf("no reference for op %q", c.op)
	return nd{}
}

// TestGolden reads every file of every case in testdata/golden, checks each
// file's dtype against the op's signature in goldenSigs (with the data dtype
// the case name gives), and recomputes each output in Go: this pins both the
// reader and NumPy's references.
func TestGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range readGoldenManifest(t) {
		t.Run(c.name, func(t *testing.T) {
			sig, ok := goldenSigs[c.op]
			if !ok {
				t.Fatalf("no signature for op %q", c.op)
			}
			if !sig.arity(len(c.inputs)) {
				t.Fatalf("%d inputs for op %q", len(c.inputs), c.op)
			}
			c.data = goldenData(c, sig.def)
			var in []nd
			for i, f := range c.inputs {
				if want := c.name + "_" + string(rune('a'+i)) + ".npy"; f != want {
					t.Errorf("input %d is %s, want %s", i, f, want)
				}
				seen[f] = true
				a := readGolden(t, f)
				if want := sig.inputDType(i, c.data); a.DType != want {
					t.Errorf("input %s is %v, want %v", f, a.DType, want)
				}
				in = append(in, toND(t, a))
			}
			seen[c.out] = true
			out := readGolden(t, c.out)
			if want := sig.out.dtypeOf(c.data); out.DType != want {
				t.Errorf("output is %v, want %v", out.DType, want)
			}
			got := toND(t, out)
			ref := reference(t, c, in)
			if !slices.Equal(got.shape, ref.shape) {
				t.Fatalf("output shape %v, reference %v", got.shape, ref.shape)
			}
			for i, g := range got.v {
				if !sig.match(g, ref.v[i], out.DType) {
					t.Errorf("element %d (%v) = %v, reference %v", i, unravel(i, got.shape), g, ref.v[i])
				}
			}
		})
	}
	// Every file in the folder belongs to a case.
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.npy"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("%s is in no manifest case", f)
		}
	}
}

// near compares an output with the Go reference: float32 outputs within
// 2 ulps (libm functions and summation orders differ by a last bit), float64
// within a few thousand ulps (NumPy sums pairwise and BLAS blocks), the rest
// exactly; infinities must match exactly.
func near(got, want float64, dt dtype.DType) bool {
	if got == want {
		return true
	}
	if math.IsInf(want, 0) || math.IsNaN(got) {
		return false
	}
	switch dt {
	case dtype.F32:
		return math.Abs(got-want) <= 0x1p-22*math.Abs(want)+1e-38
	case dtype.F64:
		return math.Abs(got-want) <= 1e-12*math.Abs(want)+1e-300
	}
	return false
}

func readGolden(t *testing.T, name string) *npy.Array {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	a, err := npy.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// np.save wrote these; Write must reproduce them byte for byte.
	raw, _ := os.ReadFile(path)
	var buf bytes.Buffer
	if err := npy.Write(&buf, a); err != nil || !bytes.Equal(buf.Bytes(), raw) {
		t.Errorf("%s: Write does not reproduce NumPy's bytes (err %v)", name, err)
	}
	return a
}

func toND(t *testing.T, a *npy.Array) nd {
	t.Helper()
	v, err := a.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	return nd{a.Shape, v}
}
