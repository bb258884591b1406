package tensor_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// semArray is one array of testdata/semantics.json (see gen_semantics.py):
// data holds numbers, or the strings "nan", "inf", "-inf" and "-0".
type semArray struct {
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Data  []any  `json:"data"`
}

type semCase struct {
	Name   string         `json:"name"`
	Op     string         `json:"op"`
	Params map[string]any `json:"params"`
	Inputs []semArray     `json:"inputs"`
	Want   *semArray      `json:"want"`
	Error  string         `json:"error"`
	Rule   string         `json:"rule"`
	Tol    float64        `json:"tol"`
}

// semValue decodes one JSON element.
func semValue(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		switch x {
		case "nan":
			return math.NaN()
		case "inf":
			return math.Inf(1)
		case "-inf":
			return math.Inf(-1)
		case "-0":
			return math.Copysign(0, -1)
		}
	case nil:
		return math.NaN()
	}
	panic(fmt.Sprintf("semantics.json: bad value %#v", v))
}

func semTensor(t *testing.T, a semArray, dev device.Device) *tensor.Tensor {
	t.Helper()
	dt, err := dtype.Parse(a.DType)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]float64, len(a.Data))
	for i, v := range a.Data {
		vals[i] = semValue(v)
	}
	shape := a.Shape
	if shape == nil {
		shape = []int{}
	}
	// Build exactly in float64 and cast: every value in the table is exact
	// in its dtype, and Cast from F64 is exact for those.
	x := tensor.FromSlice(vals, shape...)
	if dt != dtype.F64 {
		x = x.Cast(dt)
	}
	return x.To(dev)
}

// semErrKinds maps the table's error names to the kinds.
var semErrKinds = map[string]error{
	"ErrShape": tensor.ErrShape, "ErrAxis": tensor.ErrAxis, "ErrValue": tensor.ErrValue, "ErrDType": tensor.ErrDType,
}

// semOps runs each op of the table on tensors with its params.
var semOps = map[string]func(in []*tensor.Tensor, p semParams) *tensor.Tensor{
	"sum":  func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return p.red(in[0].Sum, in[0].SumKeepDims) },
	"prod": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return p.red(in[0].Prod, in[0].ProdKeepDims) },
	"mean": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return p.red(in[0].Mean, in[0].MeanKeepDims) },
	"max":  func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return p.red(in[0].Max, in[0].MaxKeepDims) },
	"min":  func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return p.red(in[0].Min, in[0].MinKeepDims) },
	"argmax": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		if p.bool("keepdims") {
			return in[0].ArgMaxKeepDims(p.int("axis"))
		}
		return in[0].ArgMax(p.int("axis"))
	},
	"argmin": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		if p.bool("keepdims") {
			return in[0].ArgMinKeepDims(p.int("axis"))
		}
		return in[0].ArgMin(p.int("axis"))
	},
	"var": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		if p.bool("keepdims") {
			return in[0].VarKeepDims(p.int("ddof"), p.axes("axes")...)
		}
		return in[0].Var(p.int("ddof"), p.axes("axes")...)
	},
	"std": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		if p.bool("keepdims") {
			return in[0].StdKeepDims(p.int("ddof"), p.axes("axes")...)
		}
		return in[0].Std(p.int("ddof"), p.axes("axes")...)
	},
	"norm": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].Norm(p.num("ord"), p.axes("axes")...)
	},
	"logsumexp":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].LogSumExp(p.axes("axes")...) },
	"softmax":     func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Softmax(p.int("axis")) },
	"log_softmax": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].LogSoftmax(p.int("axis")) },
	"cumsum":      func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].CumSum(p.int("axis")) },
	"cumprod":     func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].CumProd(p.int("axis")) },
	"sort": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		v, _ := in[0].Sort(p.int("axis"), false)
		return v
	},
	"argsort":      func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].ArgSort(p.int("axis"), false) },
	"argsort_desc": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].ArgSort(p.int("axis"), true) },
	"topk_indices": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		_, i := in[0].TopK(p.int("k"), p.int("axis"), true)
		return i
	},
	"topk_indices_smallest": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		_, i := in[0].TopK(p.int("k"), p.int("axis"), false)
		return i
	},
	"add":          func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Add(in[1]) },
	"sub":          func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Sub(in[1]) },
	"mul":          func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Mul(in[1]) },
	"div":          func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Div(in[1]) },
	"pow":          func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Pow(in[1]) },
	"mod":          func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Mod(in[1]) },
	"fmod":         func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Fmod(in[1]) },
	"floor_divide": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].FloorDiv(in[1]) },
	"maximum":      func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Maximum(in[1]) },
	"minimum":      func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Minimum(in[1]) },
	"eq":           func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Eq(in[1]) },
	"ne":           func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Ne(in[1]) },
	"lt":           func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Lt(in[1]) },
	"le":           func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Le(in[1]) },
	"gt":           func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Gt(in[1]) },
	"ge":           func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Ge(in[1]) },
	"add_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].AddScalar(p.num("v")) },
	"mul_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].MulScalar(p.num("v")) },
	"mod_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].ModScalar(p.num("v")) },
	"div_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].DivScalar(p.num("v")) },
	"floor_divide_scalar": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].FloorDivScalar(p.num("v"))
	},
	"eq_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].EqScalar(p.num("v")) },
	"ne_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].NeScalar(p.num("v")) },
	"lt_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].LtScalar(p.num("v")) },
	"le_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].LeScalar(p.num("v")) },
	"gt_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].GtScalar(p.num("v")) },
	"ge_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].GeScalar(p.num("v")) },
	"sign":        func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Sign() },
	"round":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Round() },
	"neg":         func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Neg() },
	"abs":         func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Abs() },
	"exp":         func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Exp() },
	"sqrt":        func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Sqrt() },
	"atan2":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Atan2(in[1]) },
	"clamp":       func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Clamp(p.num("lo"), p.num("hi")) },
	"where":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Where(in[0], in[1], in[2]) },
	"matmul":      func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Matmul(in[1]) },
	"concat":      func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.Concat(in, p.int("axis")) },
	"stack":       func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.Stack(in, p.int("axis")) },
	"T":           func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].T() },
	"squeeze":     func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Squeeze(p.axes("axes")...) },
	"unsqueeze":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Unsqueeze(p.int("axis")) },
	"flip":        func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Flip(p.axes("axes")...) },
	"permute":     func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Permute(p.axes("perm")...) },
	"contiguous":  func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].T().Flip(0).Contiguous() },
	"gather":      func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Gather(p.int("axis"), in[1]) },
	"masked_fill": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].MaskedFill(in[1], p.num("value")) },
	"index_select": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].IndexSelect(p.int("axis"), in[1])
	},
	"broadcast_to": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].BroadcastTo(p.axes("shape")...)
	},
	"narrow": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].Narrow(p.int("axis"), p.int("start"), p.int("length"))
	},
	"reshape": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		x := in[0]
		if p.bool("transpose_first") {
			x = x.T()
		}
		return x.Reshape(p.axes("shape")...)
	},
	"slice": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		// Python's None bounds: the extremes in the step's direction.
		step := p.int("step")
		start, stop := math.MinInt, math.MaxInt
		if step < 0 {
			start, stop = math.MaxInt, math.MinInt
		}
		if p["start"] != nil {
			start = p.int("start")
		}
		if p["stop"] != nil {
			stop = p.int("stop")
		}
		return in[0].Slice(1, start, stop, step)
	},
	"item": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		v, err := in[0].Item()
		if err != nil {
			return tensor.Failed(err)
		}
		return tensor.Scalar(float32(v))
	},
	// ops added with the coverage extension
	"cast":  func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Cast(p.dtype("dtype")) },
	"trunc": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Trunc() },
	"ceil":  func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Ceil() },
	"floor": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Floor() },
	"reciprocal": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		return in[0].Reciprocal()
	},
	"rsqrt":     func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Rsqrt() },
	"square":    func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Square() },
	"remainder": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Remainder(in[1]) },
	"remainder_scalar": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].RemainderScalar(p.num("v"))
	},
	"fmod_scalar": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].FmodScalar(p.num("v")) },
	"sub_scalar":  func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].SubScalar(p.num("v")) },
	"and":         func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].And(in[1]) },
	"or":          func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Or(in[1]) },
	"xor":         func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Xor(in[1]) },
	"and_scalar":  func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].AndScalar(p.num("v")) },
	"or_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].OrScalar(p.num("v")) },
	"xor_scalar":  func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].XorScalar(p.num("v")) },
	"not":         func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Not() },
	"isnan":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].IsNaN() },
	"isinf":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].IsInf() },
	"isfinite":    func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].IsFinite() },
	"any":         func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return p.red(in[0].Any, in[0].AnyKeepDims) },
	"all":         func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return p.red(in[0].All, in[0].AllKeepDims) },
	"repeat":      func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Repeat(p.axes("reps")...) },
	"tile":        func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Tile(p.axes("reps")...) },
	"repeat_interleave": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].RepeatInterleave(p.int("repeats"), p.int("axis"))
	},
	"roll": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].Roll(p.int("shift"), p.axes("axes")...)
	},
	"split": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return p.piece(in[0].Split(p.axes("sizes"), p.int("axis")))
	},
	"chunk": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return p.piece(in[0].Chunk(p.int("n"), p.int("axis")))
	},
	"tril":       func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Tril(p.int("k")) },
	"triu":       func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Triu(p.int("k")) },
	"diag":       func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.Diag(in[0], p.int("k")) },
	"diag_embed": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.DiagEmbed(in[0], p.int("k")) },
	"trace":      func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Trace(in[0]) },
	"pad": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		modes := map[string]tensor.PadMode{"constant": tensor.PadConstant, "reflect": tensor.PadReflect, "replicate": tensor.PadReplicate}
		l, _ := p["widths"].([]any)
		widths := make([][2]int, len(l))
		for i, w := range l {
			pair := w.([]any)
			widths[i] = [2]int{int(semValue(pair[0])), int(semValue(pair[1]))}
		}
		return in[0].Pad(widths, modes[p["mode"].(string)], p.num("value"))
	},
	"einsum": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Einsum(p["subscripts"].(string), in...)
	},
	"quantile": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		q := p.num("q")
		return p.red(func(a ...int) *tensor.Tensor { return in[0].Quantile(q, a...) }, func(a ...int) *tensor.Tensor { return in[0].QuantileKeepDims(q, a...) })
	},
	"median": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return p.red(in[0].Median, in[0].MedianKeepDims)
	},
	"lerp": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Lerp(in[0], in[1], in[2]) },
	"diff": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Diff(p.int("n"), p.int("axis")) },
	"cross": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Cross(in[0], in[1], p.int("axis"))
	},
	"kron": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Kron(in[0], in[1]) },
	"meshgrid": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Meshgrid(p["indexing"].(string), in...)[p.int("which")]
	},
	"cdist":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.Cdist(in[0], in[1], p.num("p")) },
	"nansum":  func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].NanSum(p.axes("axes")...) },
	"nanmean": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].NanMean(p.axes("axes")...) },
	"nonzero": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Nonzero(in[0]) },
	"unique_values": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		v, _, _ := in[0].Unique()
		return v
	},
	"unique_inverse": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		_, i, _ := in[0].Unique()
		return i
	},
	"unique_counts": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		_, _, c := in[0].Unique()
		return c
	},
	"searchsorted": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Searchsorted(in[0], in[1], p.bool("right"))
	},
	"bincount": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		var w *tensor.Tensor
		if len(in) > 1 {
			w = in[1]
		}
		return tensor.Bincount(in[0], w, p.int("minlength"))
	},
	// inputs x, then weight and bias when p["affine"]
	"group_norm": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		var w, b *tensor.Tensor
		if p.bool("affine") {
			w, b = in[1], in[2]
		}
		return tensor.GroupNorm(in[0], p.int("groups"), w, b, p.num("eps"))
	},
	"interpolate": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		o := tensor.InterpolateOptions{Size: p.pair("size"), Mode: p["mode"].(string), AlignCorners: p.bool("align_corners")}
		if sc, ok := p["scale"].([]any); ok {
			o.Scale = [2]float64{semValue(sc[0]), semValue(sc[1])}
		}
		return tensor.Interpolate(in[0], o)
	},
	"movedim": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].Movedim(p.axes("src"), p.axes("dst"))
	},
	"unflatten": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].Unflatten(p.int("axis"), p.axes("sizes")...)
	},
	"unbind": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		parts := in[0].Unbind(p.int("axis"))
		if len(parts) == 1 && parts[0].Err() != nil {
			return parts[0]
		}
		return parts[p.int("which")]
	},
	"hstack": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Hstack(in) },
	"vstack": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Vstack(in) },
	"rot90": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		ax := p.axes("axes")
		return in[0].Rot90(p.int("k"), ax[0], ax[1])
	},
	"logit":     func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Logit(p.num("eps")) },
	"xlogy":     func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Xlogy(in[0], in[1]) },
	"logaddexp": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Logaddexp(in[0], in[1]) },
	"isclose": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.IsClose(in[0], in[1], p.num("rtol"), p.num("atol"), p.bool("equal_nan"))
	},
	"count_nonzero": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].CountNonzero(p.axes("axes")...) },
	"normalize": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].Normalize(p.num("p"), p.int("axis"), p.num("eps"))
	},
	"cosine_similarity": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.CosineSimilarity(in[0], in[1], p.int("axis"), p.num("eps"))
	},
	"index_add": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].IndexAdd(p.int("axis"), in[1], in[2])
	},
	"unfold": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.Unfold(in[0], p.unfold()) },
	"fold": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Fold(in[0], p.pair("output_size"), p.unfold())
	},
	"scatter_add": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].ScatterAdd(p.int("axis"), in[1], in[2])
	},
	"one_hot": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.OneHot(in[0], p.int("classes")) },
	"one_hot_as": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].OneHotAs(p.int("classes"), p.dtype("dtype"))
	},
	// the constructors build CPU tensors whatever the device
	"arange": func(_ []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Arange(p.dtype("dtype"), p.num("start"), p.num("stop"), p.num("step"))
	},
	"linspace": func(_ []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Linspace(p.dtype("dtype"), p.num("start"), p.num("stop"), p.int("n"))
	},
	"log1p":      func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Log1p() },
	"expm1":      func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Expm1() },
	"log2":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Log2() },
	"log10":      func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Log10() },
	"exp2":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Exp2() },
	"log":        func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Log() },
	"sinh":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Sinh() },
	"cosh":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Cosh() },
	"tanh":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Tanh() },
	"sin":        func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Sin() },
	"cos":        func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Cos() },
	"tan":        func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Tan() },
	"asin":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Asin() },
	"acos":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Acos() },
	"atan":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Atan() },
	"sigmoid":    func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Sigmoid() },
	"softplus":   func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Softplus() },
	"silu":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Silu() },
	"gelu":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Gelu() },
	"relu":       func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Relu() },
	"hardswish":  func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Hardswish() },
	"elu":        func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Elu(p.num("alpha")) },
	"leaky_relu": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].LeakyRelu(p.num("slope")) },
	// ops added with the second coverage extension: scans, indexing,
	// linear algebra, nn functional
	"sort_desc": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		v, _ := in[0].Sort(p.int("axis"), true)
		return v
	},
	"sort_indices": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		_, i := in[0].Sort(p.int("axis"), false)
		return i
	},
	"topk_values": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		v, _ := in[0].TopK(p.int("k"), p.int("axis"), true)
		return v
	},
	"outer": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Outer(in[1]) },
	"tensordot": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].Tensordot(in[1], p.axes("a"), p.axes("b"))
	},
	"det":    func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Det(in[0]) },
	"logdet": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.LogDet(in[0]) },
	"slogdet_sign": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		s, _ := tensor.SlogDet(in[0])
		return s
	},
	"slogdet_logabs": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		_, l := tensor.SlogDet(in[0])
		return l
	},
	"inv":      func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Inv(in[0]) },
	"solve":    func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Solve(in[0], in[1]) },
	"cholesky": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Cholesky(in[0]) },
	"lstsq":    func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return tensor.Lstsq(in[0], in[1]) },
	"qr_q": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		q, _ := tensor.QR(in[0])
		return q
	},
	"qr_r": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		_, r := tensor.QR(in[0])
		return r
	},
	// Q·R, which is a whatever the signs
	"qr_recon": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		q, r := tensor.QR(in[0])
		return q.Matmul(r)
	},
	// |diag R|, free of the sign convention
	"qr_rdiag_abs": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		_, r := tensor.QR(in[0])
		if err := r.Err(); err != nil {
			return r
		}
		sh := r.Shape()
		k := min(sh[len(sh)-2], sh[len(sh)-1])
		eye := tensor.Eye(r.DType(), k).To(r.Device())
		return r.Narrow(-1, 0, k).Mul(eye).Sum(-1).Abs()
	},
	"svd_s": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		_, s, _ := tensor.SVD(in[0])
		return s
	},
	// U·diag(S)·Vh, which is a
	"svd_recon": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		u, s, vh := tensor.SVD(in[0])
		return u.Mul(s.Unsqueeze(-2)).Matmul(vh)
	},
	"eigh_w": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		w, _ := tensor.Eigh(in[0])
		return w
	},
	// a·v - v·diag(w): zero whatever the eigenvectors' signs
	"eigh_residual": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		w, v := tensor.Eigh(in[0])
		return in[0].Matmul(v).Sub(v.Mul(w.Unsqueeze(-2)))
	},
	"eigh_absv": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		_, v := tensor.Eigh(in[0])
		return v.Abs()
	},
	"conv2d": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Conv2d(in[0], in[1], p.opt(in, 2), p.conv())
	},
	"conv1d": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Conv1d(in[0], in[1], p.opt(in, 2), p.conv())
	},
	"conv_transpose2d": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.ConvTranspose2d(in[0], in[1], p.opt(in, 2), tensor.ConvTranspose2dOptions{
			Stride: p.pair("stride"), Padding: p.pair("padding"), OutputPadding: p.pair("output_padding"),
			Dilation: p.pair("dilation"), Groups: p.int0("groups"),
		})
	},
	"max_pool2d": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.MaxPool2d(in[0], p.pool()) },
	"avg_pool2d": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.AvgPool2d(in[0], p.pool()) },
	"max_pool1d": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.MaxPool1d(in[0], p.pool()) },
	"avg_pool1d": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.AvgPool1d(in[0], p.pool()) },
	"adaptive_max_pool2d": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.AdaptiveMaxPool2d(in[0], p.pair("size"))
	},
	"adaptive_avg_pool2d": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.AdaptiveAvgPool2d(in[0], p.pair("size"))
	},
	// inputs x, then weight when p["weight"], then bias when p["bias"]
	"layer_norm": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		w, b, i := (*tensor.Tensor)(nil), (*tensor.Tensor)(nil), 1
		if p.bool("weight") {
			w, i = in[i], i+1
		}
		if p.bool("bias") {
			b = in[i]
		}
		return tensor.LayerNorm(in[0], p.axes("shape"), w, b, p.num("eps"))
	},
	// inputs x, then the running mean and variance when p["running"],
	// weight when p["weight"], bias when p["bias"]; one op per result
	"batch_norm":      func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return batchNorm(in, p, 0) },
	"batch_norm_mean": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return batchNorm(in, p, 1) },
	"batch_norm_var":  func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return batchNorm(in, p, 2) },
	"rms_norm": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		var w *tensor.Tensor
		if p.bool("weight") {
			w = in[1]
		}
		return tensor.RMSNorm(in[0], p.axes("shape"), w, p.num("eps"))
	},
	// the fused loss where it applies (CPU), else the loss as tensor
	// operations, as its doc tells the caller to write it
	"softmax_xent": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		lv, err := in[1].Float64s()
		if err != nil {
			return tensor.Failed(err)
		}
		labels := make([]int64, len(lv))
		for i, v := range lv {
			labels[i] = int64(v)
		}
		s := p.num("s")
		if loss, ok := tensor.SoftmaxCrossEntropy(in[0], labels, s); ok {
			return loss
		}
		// torch's formula with class indices: (1-s)*nll + s*mean(-log p)
		lp := in[0].LogSoftmax(-1)
		nll := lp.Gather(1, in[1].Unsqueeze(-1)).Squeeze(-1).Neg()
		if s == 0 {
			return nll.Mean()
		}
		return nll.MulScalar(1 - s).Add(lp.Mean(-1).Neg().MulScalar(s)).Mean()
	},
	"sdpa": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.ScaledDotProductAttention(in[0], in[1], in[2], p.opt(in, 3),
			tensor.SDPAOptions{Causal: p.bool("causal"), Scale: p.num0("scale")})
	},
	// ops added with the third coverage extension: half precision, the
	// remaining elementwise ops, constructors, Flatten, Equal, AllClose
	"erf":            func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].Erf() },
	"gelu_tanh":      func(in []*tensor.Tensor, _ semParams) *tensor.Tensor { return in[0].GeluTanh() },
	"maximum_scalar": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].MaximumScalar(p.num("v")) },
	"minimum_scalar": func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].MinimumScalar(p.num("v")) },
	"pow_scalar":     func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].PowScalar(p.num("v")) },
	"atan2_scalar":   func(in []*tensor.Tensor, p semParams) *tensor.Tensor { return in[0].Atan2Scalar(p.num("v")) },
	"eye":            func(_ []*tensor.Tensor, p semParams) *tensor.Tensor { return tensor.Eye(p.dtype("dtype"), p.int("n")) },
	"ones": func(_ []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Ones(p.dtype("dtype"), p.axes("shape")...)
	},
	"full": func(_ []*tensor.Tensor, p semParams) *tensor.Tensor {
		return tensor.Full(p.dtype("dtype"), p.num("v"), p.axes("shape")...)
	},
	"flatten": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		return in[0].Flatten(p.int("start"), p.int("end"))
	},
	// the host answers of Equal and AllClose as a 0-d Bool
	"equal": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		ok, err := tensor.Equal(in[0], in[1])
		if err != nil {
			return tensor.Failed(err)
		}
		return tensor.Scalar(ok)
	},
	"allclose": func(in []*tensor.Tensor, p semParams) *tensor.Tensor {
		ok, err := tensor.AllClose(in[0], in[1], p.num("rtol"), p.num("atol"))
		if err != nil {
			return tensor.Failed(err)
		}
		return tensor.Scalar(ok)
	},
	// dtype rules: an empty tensor of the dtype they give
	"promote_types": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		return tensor.Zeros(tensor.PromoteTypes(in[0].DType(), in[1].DType()), 0)
	},
	"result_type": func(in []*tensor.Tensor, _ semParams) *tensor.Tensor {
		return tensor.Zeros(tensor.ResultType(in[0], in[1]), 0)
	},
}

// semParams reads a case's params.
type semParams map[string]any

func (p semParams) num(k string) float64 { return semValue(p[k]) }
func (p semParams) int(k string) int     { return int(semValue(p[k])) }
func (p semParams) bool(k string) bool   { b, _ := p[k].(bool); return b }

// axes reads a list of ints; null (or absent) is none, which means every axis.
func (p semParams) axes(k string) []int {
	l, _ := p[k].([]any)
	out := make([]int, len(l))
	for i, v := range l {
		out[i] = int(semValue(v))
	}
	return out
}

// dtype reads a dtype name.
func (p semParams) dtype(k string) dtype.DType {
	name, _ := p[k].(string)
	dt, err := dtype.Parse(name)
	if err != nil {
		panic(fmt.Sprintf("semantics.json: bad dtype %q", name))
	}
	return dt
}

// piece picks piece p["piece"] of a Split or Chunk, checking that there are
// p["pieces"] of them; a failed call's first piece carries the error.
func (p semParams) piece(ts []*tensor.Tensor) *tensor.Tensor {
	if len(ts) > 0 && ts[0].Err() != nil {
		return ts[0]
	}
	if len(ts) != p.int("pieces") {
		return tensor.Failed(fmt.Errorf("%d pieces, want %d", len(ts), p.int("pieces")))
	}
	return ts[p.int("piece")]
}

// view takes the first input through the view p["view"] names (see vcase
// in gen_semantics.py), so that the op sees a tensor that is not
// contiguous: "T" swaps the last two axes, "flip" reverses the last,
// "step2" takes every other element of the last.
func (p semParams) view(x *tensor.Tensor) *tensor.Tensor {
	switch p["view"] {
	case nil:
		return x
	case "T":
		return x.T()
	case "flip":
		return x.Flip(-1)
	case "step2":
		return x.Slice(-1, 0, math.MaxInt, 2)
	}
	panic(fmt.Sprintf("semantics.json: bad view %v", p["view"]))
}

// opt is input i, or nil when there are not that many.
func (p semParams) opt(in []*tensor.Tensor, i int) *tensor.Tensor {
	if i < len(in) {
		return in[i]
	}
	return nil
}

// int0 and num0 read an optional number, 0 when absent.
func (p semParams) int0(k string) int {
	if p[k] == nil {
		return 0
	}
	return p.int(k)
}

func (p semParams) num0(k string) float64 {
	if p[k] == nil {
		return 0
	}
	return p.num(k)
}

// pair reads an optional [a, b] (zeros when absent).
func (p semParams) pair(k string) [2]int {
	a := p.axes(k)
	if len(a) == 0 {
		return [2]int{}
	}
	return [2]int{a[0], a[1]}
}

func (p semParams) conv() tensor.Conv2dOptions {
	return tensor.Conv2dOptions{Stride: p.pair("stride"), Padding: p.pair("padding"), Dilation: p.pair("dilation"), Groups: p.int0("groups")}
}

func (p semParams) pool() tensor.Pool2dOptions {
	o := tensor.Pool2dOptions{Kernel: p.pair("kernel"), Stride: p.pair("stride"), Padding: p.pair("padding"), Dilation: p.pair("dilation"),
		CeilMode: p.bool("ceil_mode")}
	if _, ok := p["divisor_override"]; ok {
		o.DivisorOverride = p.int("divisor_override")
	}
	if v, ok := p["count_include_pad"]; ok {
		o.ExcludePad = !v.(bool)
	}
	return o
}

func (p semParams) unfold() tensor.UnfoldOptions {
	return tensor.UnfoldOptions{Kernel: p.pair("kernel"), Stride: p.pair("stride"), Padding: p.pair("padding"), Dilation: p.pair("dilation")}
}

func (p semParams) red(f, keep func(...int) *tensor.Tensor) *tensor.Tensor {
	if p.bool("keepdims") {
		return keep(p.axes("axes")...)
	}
	return f(p.axes("axes")...)
}

// TestSemantics runs the NumPy-made table of edge cases
// (testdata/semantics.json, from testdata/gen_semantics.py) on every
// device: empty and 0-d tensors, negative axes and keepdims, NaN and
// signed zeros, integer division and overflow, dtype promotion, views and
// typed errors. Floats compare within the case's relative tolerance (0:
// exactly, NaN matching NaN, and the sign of a zero checked); integers and
// Bool compare exactly; the dtype and shape must match.
func TestSemantics(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "semantics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		NumPy string    `json:"numpy"`
		Cases []semCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 200 {
		t.Fatalf("semantics.json has only %d cases", len(file.Cases))
	}
	for _, c := range file.Cases {
		if semOps[c.Op] == nil {
			t.Fatalf("case %s: no runner for op %q", c.Name, c.Op)
		}
	}
	for _, dev := range testDevices(t) {
		for _, c := range file.Cases {
			t.Run(dev.Name()+"/"+c.Name, func(t *testing.T) { runSemCase(t, dev, c) })
		}
	}
}

// glZeroTies are the cases whose zero results come from a maximum of -0
// and +0, whose sign the OpenGL backend does not keep: Mesa compiles the
// shaders' compare-and-select (WGSL's select(b, a, a > b), translated)
// into a max instruction, which may return either zero. Their values are
// still checked there; only the sign of their zeros is not.
var glZeroTies = map[string]bool{
	"max_pool2d_signed_zero_tiles":    true,
	"max_pool2d_signed_zero_overlap":  true,
	"adaptive_max_pool2d_signed_zero": true,
}

func runSemCase(t *testing.T, dev device.Device, c semCase) {
	dts := []string{}
	for _, a := range c.Inputs {
		dts = append(dts, a.DType)
	}
	if c.Want != nil {
		dts = append(dts, c.Want.DType)
	}
	gpuLimited := false // a dtype the device holds but does not compute
	for _, name := range dts {
		dt, _ := dtype.Parse(name)
		if !supports(dev, dt) {
			t.Skipf("%s does not hold %v", dev.Name(), dt)
		}
		gpuLimited = gpuLimited || !computes(dev, dt)
	}
	in := make([]*tensor.Tensor, len(c.Inputs))
	for i, a := range c.Inputs {
		in[i] = semTensor(t, a, dev)
		if err := in[i].Err(); err != nil {
			t.Fatal(err)
		}
	}
	var got *tensor.Tensor
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic: %v", r)
			}
		}()
		p := semParams(c.Params)
		if len(in) > 0 {
			in[0] = p.view(in[0])
		}
		got = semOps[c.Op](in, p)
	}()
	err := got.Err()
	if c.Error != "" {
		if !errors.Is(err, semErrKinds[c.Error]) {
			t.Fatalf("error %v, want %s (%s)", err, c.Error, c.Rule)
		}
		return
	}
	if err != nil && semParams(c.Params).bool("skip_unsupported") && errors.Is(err, tensor.ErrUnsupported) {
		t.Skipf("%s: %v", dev.Name(), err) // an op the device does not offer for these dtypes
	}
	if err != nil && gpuLimited && (errors.Is(err, tensor.ErrUnsupported) || errors.Is(err, tensor.ErrDType)) {
		t.Skipf("%s: %v", dev.Name(), err)
	}
	if err != nil {
		t.Fatalf("%v (rule %s)", err, c.Rule)
	}
	want := c.Want
	if got.DType().String() != want.DType {
		t.Fatalf("dtype %v, want %s (rule %s)", got.DType(), want.DType, c.Rule)
	}
	wantShape := want.Shape
	if wantShape == nil {
		wantShape = []int{}
	}
	if !slices.Equal(got.Shape(), wantShape) {
		t.Fatalf("shape %v, want %v", got.Shape(), wantShape)
	}
	vals, err := got.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != len(want.Data) {
		t.Fatalf("%d values, want %d", len(vals), len(want.Data))
	}
	for i, w := range want.Data {
		g, wv := vals[i], semValue(w)
		switch {
		case math.IsNaN(wv) || math.IsNaN(g):
			if math.IsNaN(wv) != math.IsNaN(g) {
				t.Errorf("[%d] = %v, want %v (rule %s)", i, g, wv, c.Rule)
			}
		case wv == 0 && got.DType().IsFloat():
			if g != 0 && (c.Tol == 0 || math.Abs(g) > c.Tol) {
				t.Errorf("[%d] = %v, want %v", i, g, wv)
			} else if g == 0 && c.Tol == 0 && math.Signbit(g) != math.Signbit(wv) && !(glZeroTies[c.Name] && strings.HasPrefix(dev.Name(), "gl:")) {
				t.Errorf("[%d] = %v, want %v (the sign of zero)", i, g, w)
			}
		case math.IsInf(wv, 0) || c.Tol == 0:
			if g != wv {
				t.Errorf("[%d] = %v, want %v (rule %s)", i, g, wv, c.Rule)
			}
		default:
			if math.Abs(g-wv) > c.Tol*math.Abs(wv) {
				t.Errorf("[%d] = %v, want %v within %g relative", i, g, wv, c.Tol)
			}
		}
	}
}

// batchNorm runs the golden's BatchNorm and returns its result number
// which: y, the updated running mean or the updated running variance.
func batchNorm(in []*tensor.Tensor, p semParams, which int) *tensor.Tensor {
	var rm, rv, w, b *tensor.Tensor
	i := 1
	if p.bool("running") {
		rm, rv, i = in[1], in[2], 3
	}
	if p.bool("weight") {
		w, i = in[i], i+1
	}
	if p.bool("bias") {
		b = in[i]
	}
	y, m, v := tensor.BatchNorm(in[0], rm, rv, w, b, p.bool("training"), p.num("momentum"), p.num("eps"))
	return []*tensor.Tensor{y, m, v}[which]
}
