package tensor_test

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/npy"
	"github.com/tessera-go/tessera/tensor"
)

// TestGolden runs every case of testdata/golden/MANIFEST.txt (made by NumPy,
// see testdata/gen_golden.py) on every device: the golden files pin the
// float64 reference that the conformance table trusts.
func TestGolden(t *testing.T) {
	dir := filepath.Join("..", "testdata", "golden")
	f, err := os.Open(filepath.Join(dir, "MANIFEST.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type gcase struct {
		name, op string
		inputs   []string
		out      string
		params   map[string]string
	}
	var cases []gcase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "case ") {
			continue
		}
		fields := strings.Fields(line)
		c := gcase{name: fields[1], params: map[string]string{}}
		for _, fl := range fields[2:] {
			k, v, _ := strings.Cut(fl, "=")
			switch k {
			case "op":
				c.op = v
			case "inputs":
				c.inputs = strings.Split(v, ",")
			case "out":
				c.out = v
			case "params":
				for kv := range strings.SplitSeq(v, ";") {
					if pk, pv, ok := strings.Cut(kv, "="); ok {
						c.params[pk] = pv
					}
				}
			}
		}
		cases = append(cases, c)
	}
	if len(cases) < 50 {
		t.Fatalf("manifest lists only %d cases", len(cases))
	}
	ints := func(s string) []int {
		if s == "" || s == "none" {
			return nil
		}
		var out []int
		for p := range strings.SplitSeq(s, ",") {
			n, err := strconv.Atoi(p)
			if err != nil {
				t.Fatalf("bad int list %q", s)
			}
			out = append(out, n)
		}
		return out
	}
	for _, dev := range testDevices(t) {
		for _, c := range cases {
			t.Run(dev.Name()+"/"+c.name, func(t *testing.T) {
				var ins []*tensor.Tensor
				for _, name := range c.inputs {
					a, err := npy.ReadFile(filepath.Join(dir, name))
					if err != nil {
						t.Fatal(err)
					}
					if !supports(dev, a.DType) {
						t.Skipf("%s cannot hold %v", dev.Name(), a.DType)
					}
					ins = append(ins, fromNPY(t, a).To(dev))
				}
				want, err := npy.ReadFile(filepath.Join(dir, c.out))
				if err != nil {
					t.Fatal(err)
				}
				axes := ints(c.params["axis"])
				keep := c.params["keepdims"] == "true"
				one := func() int {
					if len(axes) != 1 {
						t.Fatalf("op %s needs one axis, have %v", c.op, axes)
					}
					return axes[0]
				}
				red := map[string][2]func(*tensor.Tensor, ...int) *tensor.Tensor{
					"sum":  {(*tensor.Tensor).Sum, (*tensor.Tensor).SumKeepDims},
					"mean": {(*tensor.Tensor).Mean, (*tensor.Tensor).MeanKeepDims},
					"prod": {(*tensor.Tensor).Prod, (*tensor.Tensor).ProdKeepDims},
					"max":  {(*tensor.Tensor).Max, (*tensor.Tensor).MaxKeepDims},
					"min":  {(*tensor.Tensor).Min, (*tensor.Tensor).MinKeepDims},
				}
				var got *tensor.Tensor
				cl := exactClass
				switch c.op {
				case "matmul":
					got, cl = ins[0].Matmul(ins[1]), matmulClass
				case "softmax":
					got, cl = ins[0].Softmax(one()), reduceClass
				case "log_softmax":
					got, cl = ins[0].LogSoftmax(one()), reduceClass
				case "logsumexp":
					got, cl = ins[0].LogSumExp(axes...), reduceClass
				case "sum", "mean", "prod", "max", "min":
					k := 0
					if keep {
						k = 1
					}
					got, cl = red[c.op][k](ins[0], axes...), reduceClass
				case "argmax":
					got = ins[0].ArgMax(one())
				case "argmin":
					got = ins[0].ArgMin(one())
				case "gelu":
					cl = transClass
					if c.params["approximate"] == "tanh" {
						got = ins[0].GeluTanh()
					} else {
						got = ins[0].Gelu()
					}
				case "erf":
					got, cl = ins[0].Erf(), transClass
				case "log1p":
					got, cl = ins[0].Log1p(), transClass
				case "expm1":
					got, cl = ins[0].Expm1(), transClass
				case "tanh":
					got, cl = ins[0].Tanh(), transClass
				case "sigmoid":
					got, cl = ins[0].Sigmoid(), transClass
				case "add":
					got = ins[0].Add(ins[1])
				case "mul":
					got = ins[0].Mul(ins[1])
				case "maximum":
					got = ins[0].Maximum(ins[1])
				case "eq":
					got = ins[0].Eq(ins[1])
				case "ne":
					got = ins[0].Ne(ins[1])
				case "lt":
					got = ins[0].Lt(ins[1])
				case "le":
					got = ins[0].Le(ins[1])
				case "gt":
					got = ins[0].Gt(ins[1])
				case "ge":
					got = ins[0].Ge(ins[1])
				case "mod":
					got = ins[0].Mod(ins[1])
				case "fmod":
					got = ins[0].Fmod(ins[1])
				case "atan2":
					got, cl = ins[0].Atan2(ins[1]), transClass
				case "pow":
					got = ins[0].Pow(ins[1])
				case "leaky_relu":
					slope, _ := strconv.ParseFloat(c.params["slope"], 64)
					got = ins[0].LeakyRelu(slope)
				case "elu":
					alpha, _ := strconv.ParseFloat(c.params["alpha"], 64)
					got, cl = ins[0].Elu(alpha), transClass
				case "logical_and":
					got = ins[0].And(ins[1])
				case "logical_or":
					got = ins[0].Or(ins[1])
				case "logical_xor":
					got = ins[0].Xor(ins[1])
				case "logical_not":
					got = ins[0].Not()
				case "isinf":
					got = ins[0].IsInf()
				case "isfinite":
					got = ins[0].IsFinite()
				case "any":
					got = ins[0].Any(axes...)
				case "all":
					got = ins[0].All(axes...)
				case "flip":
					got = ins[0].Flip(axes...)
				case "roll":
					shift, _ := strconv.Atoi(c.params["shift"])
					got = ins[0].Roll(shift, axes...)
				case "tile":
					got = ins[0].Tile(ints(c.params["reps"])...)
				case "repeat_interleave":
					n, _ := strconv.Atoi(c.params["repeats"])
					got = ins[0].RepeatInterleave(n, one())
				case "tril", "triu":
					k, _ := strconv.Atoi(c.params["k"])
					if c.op == "tril" {
						got = ins[0].Tril(k)
					} else {
						got = ins[0].Triu(k)
					}
				case "where":
					got = tensor.Where(ins[0], ins[1], ins[2])
				case "concat":
					got = tensor.Concat(ins, one())
				case "stack":
					got = tensor.Stack(ins, one())
				case "permute":
					got = ins[0].Permute(ints(c.params["perm"])...).Contiguous()
				case "transpose":
					d0, _ := strconv.Atoi(c.params["dim0"])
					d1, _ := strconv.Atoi(c.params["dim1"])
					got = ins[0].Transpose(d0, d1)
				case "sort":
					got, _ = ins[0].Sort(one(), false)
				case "argsort":
					got = ins[0].ArgSort(one(), false)
				case "topk_values", "topk_indices":
					k, _ := strconv.Atoi(c.params["k"])
					v, i := ins[0].TopK(k, one(), true)
					got = map[bool]*tensor.Tensor{true: v, false: i}[c.op == "topk_values"]
				case "cumsum":
					got, cl = ins[0].CumSum(one()), reduceClass
				case "cumprod":
					got, cl = ins[0].CumProd(one()), reduceClass
				case "gather":
					got = ins[0].Gather(one(), ins[1])
				case "scatter_add":
					got, cl = ins[0].ScatterAdd(one(), ins[1], ins[2]), reduceClass
				default:
					t.Fatalf("unknown op %q", c.op)
				}
				wv, err := want.Float64s()
				if err != nil {
					t.Fatal(err)
				}
				tl := tolerance(want.DType, cl)
				if want.DType == dtype.F32 && cl != exactClass {
					tl = tol{math.Max(tl.rtol, 2e-5), math.Max(tl.atol, 1e-5)}
				}
				check(t, got, &nd{shape: append([]int{}, want.Shape...), v: wv}, want.DType, tl)
				if signedZeros[c.op] {
					gv, err := got.Float64s()
					if err != nil {
						t.Fatal(err)
					}
					for i, w := range wv {
						if w == 0 && gv[i] == 0 && math.Signbit(w) != math.Signbit(gv[i]) {
							t.Errorf("element %d: got %v, want %v (the sign of zero differs)", i, gv[i], w)
						}
					}
				}
			})
		}
	}
}

// signedZeros lists the golden ops whose zero results' signs NumPy pins.
var signedZeros = map[string]bool{"mod": true, "fmod": true, "atan2": true, "leaky_relu": true, "elu": true}

func fromNPY(t *testing.T, a *npy.Array) *tensor.Tensor {
	t.Helper()
	v, err := a.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.FromSlice(v, a.Shape...)
	if a.DType == dtype.I64 {
		// float64 holds the small golden integers exactly.
		return x.Cast(dtype.I64)
	}
	return x.Cast(a.DType)
}
