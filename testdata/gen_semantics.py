#!/usr/bin/python3
"""Make testdata/semantics.json: NumPy's answers to the edge cases of tessera's
tensor API (empty and 0-d tensors, negative axes, NaN, signed zeros, integer
division and overflow, dtype promotion, views), one table case each.

Run with an interpreter that has NumPy (Debian's python3-numpy):

    /usr/bin/python3 testdata/gen_semantics.py

The output is deterministic (no random data). tensor/semantics_test.go runs
every case on every device and compares.

Where tessera follows PyTorch instead of NumPy (docs/architecture.md,
"Semantics: where tessera follows NumPy and where PyTorch"), the case says so
in its "rule" field and the reference is NumPy's computation on the operands
cast to the dtype that rule picks: an integer with a float computes in the
float's dtype (NumPy would widen I32 with F32 to F64), integer true division
computes in F32, Mean of integers is an error. Every other case is NumPy's
own result, dtype included.

Format: a JSON list of cases
  {"name", "op", "params": {...}, "inputs": [array...], "want": array | null,
   "error": "" | "ErrShape" | "ErrAxis" | "ErrValue" | "ErrDType", "rule", "tol"}
with array = {"dtype": "f32"|"f64"|"f16"|"bf16"|"i32"|"i64"|"u8"|"bool", "shape": [...],
"data": [...]} in C order; floats that JSON cannot hold are the strings
"nan", "inf", "-inf", and "-0" marks a negative zero whose sign is checked.
tol is the relative tolerance for floats (0: exact).
"""

import json
import math
import os
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "semantics.json")

warnings.simplefilter("ignore")
np.seterr(all="ignore")

DT = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.int32): "i32",
      np.dtype(np.int64): "i64", np.dtype(np.uint8): "u8", np.dtype(np.bool_): "bool"}

nan, inf = float("nan"), float("inf")
cases = []


def enc(a):
    a = np.asarray(a)
    out = []
    for v in a.reshape(-1).tolist():
        if isinstance(v, bool):
            out.append(1 if v else 0)
        elif isinstance(v, float):
            if math.isnan(v):
                out.append("nan")
            elif math.isinf(v):
                out.append("inf" if v > 0 else "-inf")
            elif v == 0 and math.copysign(1, v) < 0:
                out.append("-0")
            else:
                out.append(v)
        else:
            out.append(int(v))
    return {"dtype": DT[a.dtype], "shape": list(a.shape), "data": out}


def case(name, op, inputs, want=None, error="", params=None, rule="numpy", tol=0.0):
    if error == "" and want is None:
        raise ValueError(name)
    cases.append({"name": name, "op": op, "params": params or {},
                  "inputs": [enc(x) for x in inputs],
                  "want": None if error else enc(want), "error": error, "rule": rule, "tol": tol})


def raises(f):
    try:
        f()
    except Exception:
        return True
    return False


f32, f64, i32, i64, u8, b_ = np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_
x23 = np.arange(1, 7, dtype=f32).reshape(2, 3)
e03 = np.zeros((0, 3), f32)
e0 = np.zeros((0,), f32)
s3 = np.array(3, f32)
nanv = np.array([1, nan, 3, nan, -1], f32)
TR = 2e-6  # transcendental results, f32

# --- reductions: axes, keepdims, empties, 0-d -------------------------------
RED = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "max": np.max, "min": np.min}
for name, fn in RED.items():
    t = TR if name == "mean" else 0.0
    case(f"{name}_all", name, [x23], fn(x23), params={"axes": None}, tol=t)
    case(f"{name}_neg1", name, [x23], fn(x23, axis=-1), params={"axes": [-1]}, tol=t)
    case(f"{name}_neg2_neg1", name, [x23], fn(x23, axis=(-2, -1)), params={"axes": [-2, -1]}, tol=t)
    case(f"{name}_keep_neg1", name, [x23], fn(x23, axis=-1, keepdims=True), params={"axes": [-1], "keepdims": True}, tol=t)
    case(f"{name}_keep_all", name, [x23], fn(x23, keepdims=True), params={"axes": None, "keepdims": True}, tol=t)
    case(f"{name}_0d", name, [s3], fn(s3), params={"axes": None})
    case(f"{name}_axis_oob", name, [x23], error="ErrAxis", params={"axes": [2]})
    case(f"{name}_axis_repeated", name, [x23], error="ErrAxis", params={"axes": [0, -2]})
    assert raises(lambda: fn(x23, axis=2)) and raises(lambda: fn(x23, axis=(0, -2)))
    # 0-d with axis 0 or -1: NumPy's sum, prod, max and min allow it, its
    # mean raises; PyTorch allows it everywhere, and so does tessera.
    r = "numpy" if name != "mean" else "pytorch (NumPy's mean raises AxisError)"
    case(f"{name}_0d_axis0", name, [s3], s3, params={"axes": [0]}, rule=r)
    case(f"{name}_0d_axis_neg1_keep", name, [s3], s3, params={"axes": [-1], "keepdims": True}, rule=r)
    # empty output: fine for every reduction
    case(f"{name}_empty_out", name, [e03], fn(e03, axis=1), params={"axes": [1]})
for name in ("sum", "prod", "mean"):
    fn = RED[name]
    case(f"{name}_empty_all", name, [e0], fn(e0), params={"axes": None})
    case(f"{name}_empty_axis0", name, [e03], fn(e03, axis=0), params={"axes": [0]})
    case(f"{name}_empty_keep", name, [e03], fn(e03, axis=0, keepdims=True), params={"axes": [0], "keepdims": True})
for name in ("max", "min"):
    assert raises(lambda: RED[name](e0))
    case(f"{name}_empty", name, [e0], error="ErrShape", params={"axes": None})
    case(f"{name}_empty_axis0", name, [e03], error="ErrShape", params={"axes": [0]})
    case(f"{name}_nan", name, [nanv], RED[name](nanv), params={"axes": None})
    case(f"{name}_inf", name, [np.array([-inf, inf, 0], f32)], RED[name](np.array([-inf, inf, 0], f32)), params={"axes": None})
for name, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    case(f"{name}_neg1", name, [x23], fn(x23, axis=-1), params={"axis": -1})
    case(f"{name}_keep", name, [x23], fn(x23, axis=0, keepdims=True), params={"axis": 0, "keepdims": True})
    case(f"{name}_nan_first", name, [nanv], fn(nanv), params={"axis": 0})
    ties = np.array([[1, 5, 5, 1], [2, 2, 0, 0]], f32)
    case(f"{name}_ties_first", name, [ties], fn(ties, axis=1), params={"axis": 1})
    assert raises(lambda: fn(e0))
    case(f"{name}_empty", name, [e0], error="ErrShape", params={"axis": 0})
    case(f"{name}_i32", name, [np.array([3, 9, -2, 9], i32)], fn(np.array([3, 9, -2, 9], i32)), params={"axis": 0})
    case(f"{name}_0d", name, [s3], fn(s3, axis=0), params={"axis": 0})
    case(f"{name}_0d_neg1", name, [s3], fn(s3, axis=-1), params={"axis": -1})
# integer sums and products are int64, exact past 2^31 (NumPy and PyTorch).
# NumPy gives uint64 for u8; tessera has no uint64 and follows PyTorch
# (int64), the reference being NumPy's sum in int64. Results stay below
# 2^53 so JSON holds them exactly; tensor/intreduce_test.go checks the
# wrap at 2^64.
# sum: values near +-2^31 whose sums pass the int32 range; prod: factors
# whose products pass it (65536 * -65536 * 3 = -3 * 2^32).
INTS = {"sum": np.array([[2**31 - 1, 2**31 - 2, 7], [-2**31, -2**31, -1]], i32),
        "prod": np.array([[65536, -65536, 3], [46341, 46341, -1]], i32)}
for name in ("sum", "prod"):
    fn, big = RED[name], INTS[name]
    ax = {"axes": None}
    case(f"{name}_i32_small", name, [np.array([1, 2, -3], i32)], fn(np.array([1, 2, -3], i32)), params=ax)
    case(f"{name}_i32_all", name, [big[:1]], fn(big[:1]), params=ax)
    case(f"{name}_i32_neg1", name, [big], fn(big, axis=-1), params={"axes": [-1]})
    case(f"{name}_i32_keep_neg2", name, [big], fn(big, axis=-2, keepdims=True), params={"axes": [-2], "keepdims": True})
    case(f"{name}_i32_transposed", name, [big.T], fn(big.T, axis=0), params={"axes": [0]})
    case(f"{name}_i32_empty", name, [np.zeros((0,), i32)], fn(np.zeros((0,), i32)), params=ax)
    case(f"{name}_i32_empty_axis0", name, [np.zeros((0, 2), i32)], fn(np.zeros((0, 2), i32), axis=0), params={"axes": [0]})
    case(f"{name}_i32_0d", name, [np.array(-5, i32)], fn(np.array(-5, i32)), params=ax)
    case(f"{name}_i32_0d_axis0", name, [np.array(-5, i32)], fn(np.array(-5, i32), axis=0), params={"axes": [0]})
    uu = np.array([[200, 255, 3], [250, 250, 1]], u8)
    case(f"{name}_u8", name, [uu], fn(uu, axis=1, dtype=i64), params={"axes": [1]}, rule="pytorch (NumPy: uint64)")
    case(f"{name}_u8_all", name, [uu], fn(uu, dtype=i64), params=ax, rule="pytorch (NumPy: uint64)")
    case(f"{name}_u8_empty", name, [np.zeros((0,), u8)], fn(np.zeros((0,), u8), dtype=i64), params=ax, rule="pytorch (NumPy: uint64)")
    case(f"{name}_i64", name, [np.array([3, -4, 2**40], i64)], fn(np.array([3, -4, 2**40], i64)), params=ax)
bb = np.array([[True, False, True], [False, False, False]])
case("sum_bool_counts", "sum", [bb], np.sum(bb), params={"axes": None})
case("sum_bool_axis", "sum", [bb], np.sum(bb, axis=-1), params={"axes": [-1]})
case("sum_bool_keep", "sum", [bb], np.sum(bb, axis=0, keepdims=True), params={"axes": [0], "keepdims": True})
case("prod_bool", "prod", [bb], np.prod(bb, axis=0), params={"axes": [0]})
case("max_bool", "max", [bb], np.max(bb, axis=1), params={"axes": [1]})
case("min_bool", "min", [bb], np.min(bb, axis=0), params={"axes": [0]})
case("argmax_bool", "argmax", [bb], np.argmax(bb, axis=1), params={"axis": 1})
case("argmin_bool", "argmin", [bb], np.argmin(bb, axis=1), params={"axis": 1})
case("sum_bool_empty", "sum", [np.zeros((0,), b_)], np.sum(np.zeros((0,), b_)), params={"axes": None})
case("mean_bool_error", "mean", [bb], error="ErrDType", params={"axes": None}, rule="pytorch (NumPy: F64)")
case("mean_i32_error", "mean", [np.array([1, 2], i32)], error="ErrDType", params={"axes": None}, rule="pytorch")

# --- var / std / norm / logsumexp --------------------------------------------
v = np.array([[1, 2, 4, 7], [0, 0, 0, 0]], f32)
for ddof in (0, 1, 3, 4, 5):
    case(f"var_ddof{ddof}", "var", [v], np.var(v, axis=-1, ddof=ddof), params={"ddof": ddof, "axes": [-1]}, tol=TR)
    case(f"std_ddof{ddof}", "std", [v], np.std(v, axis=-1, ddof=ddof), params={"ddof": ddof, "axes": [-1]}, tol=TR)
case("var_all", "var", [v], np.var(v), params={"ddof": 0, "axes": None}, tol=TR)
case("var_keep", "var", [v], np.var(v, axis=0, ddof=1, keepdims=True), params={"ddof": 1, "axes": [0], "keepdims": True}, tol=TR)
case("var_empty", "var", [e0], np.var(e0), params={"ddof": 0, "axes": None})
case("std_empty_axis0", "std", [e03], np.std(e03, axis=0, ddof=1), params={"ddof": 1, "axes": [0]})
case("var_0d", "var", [s3], np.var(s3), params={"ddof": 0, "axes": None})
case("var_0d_ddof1", "var", [s3], np.var(s3, ddof=1), params={"ddof": 1, "axes": None})
case("var_nan", "var", [nanv], np.var(nanv), params={"ddof": 0, "axes": None})
nv = np.array([[3, 0, -4, 1], [0, 0, 0, 0]], f32)
for ordname, o in (("1", 1), ("2", 2), ("inf", inf), ("neginf", -inf), ("0", 0), ("3", 3), ("neg1", -1), ("half", 0.5)):
    case(f"norm_{ordname}_neg1", "norm", [nv], np.linalg.norm(nv, ord=o, axis=-1), params={"ord": enc(np.array(o, f64))["data"][0], "axes": [-1]}, tol=TR)
case("norm_2_all", "norm", [nv], np.linalg.norm(nv.reshape(-1)), params={"ord": 2, "axes": None}, tol=TR)
case("norm_2_empty", "norm", [e0], np.linalg.norm(e0), params={"ord": 2, "axes": None})
case("norm_1_empty", "norm", [e0], np.linalg.norm(e0, 1), params={"ord": 1, "axes": None})
assert raises(lambda: np.linalg.norm(e0, inf))
case("norm_inf_empty", "norm", [e0], error="ErrShape", params={"ord": "inf", "axes": None})


def lse(a, axis=None):
    a = a.astype(f64)
    m = np.max(a, axis=axis, keepdims=True) if a.size else np.float64(0)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(all="ignore"):
        r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return np.squeeze(r, axis=axis) if axis is not None else r.reshape(())


mi = -inf
case("logsumexp_rows", "logsumexp", [np.array([[mi, mi], [1, 2]], f32)], lse(np.array([[mi, mi], [1, 2]], f32), 1).astype(f32), params={"axes": [-1]}, tol=TR)
case("logsumexp_all_neginf", "logsumexp", [np.array([mi, mi], f32)], np.array(mi, f32), params={"axes": None})
case("logsumexp_large", "logsumexp", [np.array([1000, 1000], f32)], lse(np.array([1000, 1000], f32)).astype(f32), params={"axes": None}, tol=TR)
case("logsumexp_inf", "logsumexp", [np.array([inf, 1], f32)], np.array(inf, f32), params={"axes": None})
case("logsumexp_nan", "logsumexp", [np.array([nan, 1], f32)], np.array(nan, f32), params={"axes": None})
case("logsumexp_empty", "logsumexp", [e0], np.array(mi, f32), params={"axes": None})
case("logsumexp_0d", "logsumexp", [s3], s3, params={"axes": None})


def softmax(a, axis):
    a = a.astype(f64)
    m = np.max(a, axis=axis, keepdims=True)
    e = np.exp(a - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(a, axis):
    a = a.astype(f64)
    m = np.max(a, axis=axis, keepdims=True)
    return a - m - np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True))


for nm, arr in (("large", np.array([[1000, 1001], [-1000, -1001]], f32)),
                ("some_neginf", np.array([[mi, 0], [1, 2]], f32)),
                ("all_neginf", np.array([[mi, mi], [1, 2]], f32)),
                ("posinf", np.array([[inf, 1], [nan, 1]], f32))):
    case(f"softmax_{nm}", "softmax", [arr], softmax(arr, -1).astype(f32), params={"axis": -1}, tol=TR, rule="numpy formula (torch.softmax agrees: an all -Inf row is NaN)")
    case(f"log_softmax_{nm}", "log_softmax", [arr], log_softmax(arr, -1).astype(f32), params={"axis": -1}, tol=TR)
case("softmax_axis0", "softmax", [x23], softmax(x23, 0).astype(f32), params={"axis": 0}, tol=TR)
case("softmax_0d", "softmax", [s3], np.array(1, f32), params={"axis": 0}, rule="pytorch (a 0-d tensor is its own axis)")
case("softmax_empty", "softmax", [e03], e03, params={"axis": 1})
case("softmax_axis_oob", "softmax", [x23], error="ErrAxis", params={"axis": -3})

# --- scans and sorting --------------------------------------------------------
case("cumsum_neg1", "cumsum", [x23], np.cumsum(x23, axis=-1), params={"axis": -1})
case("cumsum_empty", "cumsum", [e0], np.cumsum(e0), params={"axis": 0})
case("cumprod_empty", "cumprod", [np.zeros((2, 0), f32)], np.cumprod(np.zeros((2, 0), f32), axis=1), params={"axis": 1})
case("cumsum_nan", "cumsum", [nanv], np.cumsum(nanv), params={"axis": 0})
case("cumsum_i32", "cumsum", [np.array([2**31 - 1, 1], i32)], np.cumsum(np.array([2**31 - 1, 1], i32)), params={"axis": 0})
case("cumsum_bool", "cumsum", [np.array([True, False, True])], np.cumsum(np.array([True, False, True])), params={"axis": 0})
case("cumprod_i32", "cumprod", [np.array([65536, 65536, 2], i32)], np.cumprod(np.array([65536, 65536, 2], i32)), params={"axis": 0})
uu2 = np.array([[200, 255], [250, 3]], u8)
case("cumsum_u8", "cumsum", [uu2], np.cumsum(uu2, axis=-2, dtype=i64), params={"axis": -2}, rule="pytorch (NumPy: uint64)")
case("cumprod_u8", "cumprod", [uu2], np.cumprod(uu2, axis=1, dtype=i64), params={"axis": 1}, rule="pytorch (NumPy: uint64)")
case("cumsum_i64", "cumsum", [np.array([2**40, -3, 2**41], i64)], np.cumsum(np.array([2**40, -3, 2**41], i64)), params={"axis": 0})
case("cumprod_i64", "cumprod", [np.array([[2**20, -3], [2**21, 5]], i64)], np.cumprod(np.array([[2**20, -3], [2**21, 5]], i64), axis=0), params={"axis": 0})
case("cumsum_0d", "cumsum", [s3], s3, params={"axis": 0}, rule="pytorch (a 0-d tensor is its own axis)")
srt = np.array([3, nan, 1, -0.0, 0.0, -inf, 3, inf, nan, 1], f32)
case("sort_nan_last", "sort", [srt], np.sort(srt, kind="stable"), params={"axis": 0})
case("argsort_stable_nan", "argsort", [srt], np.argsort(srt, kind="stable"), params={"axis": 0})
ties = np.array([3, 1, 3, 2, 3, 1], f32)
case("argsort_stable", "argsort", [ties], np.argsort(ties, kind="stable"), params={"axis": 0})
# descending: stable on the reversed order, NaN first (torch.sort(descending=True))
desc = np.argsort(-ties, kind="stable")
case("argsort_desc_stable", "argsort_desc", [ties], desc, params={"axis": 0}, rule="pytorch (stable descending)")
case("sort_2d_neg1", "sort", [np.array([[3, 1, 2], [nan, -1, 0]], f32)], np.sort(np.array([[3, 1, 2], [nan, -1, 0]], f32), axis=-1), params={"axis": -1})
case("sort_empty", "sort", [e0], np.sort(e0), params={"axis": 0})
case("argsort_empty", "argsort", [e03], np.argsort(e03, axis=0), params={"axis": 0})
case("topk_ties_index_order", "topk_indices", [ties], np.argsort(-ties, kind="stable")[:3], params={"k": 3, "axis": 0}, rule="pytorch topk; ties in index order")
case("topk_smallest", "topk_indices_smallest", [ties], np.argsort(ties, kind="stable")[:3], params={"k": 3, "axis": 0})
case("topk_k_too_big", "topk_indices", [ties], error="ErrValue", params={"k": 7, "axis": 0}, rule="pytorch (k > n is an error)")

# --- elementwise: NaN, signed zero, rounding, division -------------------------
a = np.array([1, nan, 3, nan, -1, -0.0], f32)
b = np.array([nan, 0, 5, 0, -2, -0.0], f32)  # max/min of -0 and +0 is either zero
for nm, fn in (("maximum", np.maximum), ("minimum", np.minimum)):
    case(f"{nm}_nan", nm, [a, b], fn(a, b))
for nm, fn in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)):
    case(f"{nm}_nan", nm, [a, b], fn(a, b))
sg = np.array([nan, -0.0, 0.0, -2, inf, -inf, 1e-30], f32)
case("sign", "sign", [sg], np.sign(sg))
rd = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999998, 1e8 + 1, -0.0, nan, inf], f32)
case("round_half_even", "round", [rd], np.round(rd))
case("round_i32", "round", [np.array([-3, 2**24 + 1, -2**31], i32)], np.round(np.array([-3, 2**24 + 1, -2**31], i32)))
cl = np.array([-1, 0.5, 3, nan, -inf, inf], f32)
case("clip", "clamp", [cl], np.clip(cl, 0, 2), params={"lo": 0, "hi": 2})
case("clip_lo_above_hi", "clamp", [cl], np.clip(cl, 2, 1), params={"lo": 2, "hi": 1})
case("clip_nan_lo", "clamp", [cl], np.clip(cl, nan, 1), params={"lo": "nan", "hi": 1}, rule="numpy (a NaN bound is no bound)")
case("clip_nan_hi", "clamp", [cl], np.clip(cl, 0, nan), params={"lo": 0, "hi": "nan"}, rule="numpy (a NaN bound is no bound)")
case("clip_i32", "clamp", [np.array([-4, 4, 9], i32)], np.clip(np.array([-4, 4, 9], i32), 0, 5), params={"lo": 0, "hi": 5})
case("clip_i32_fraction", "clamp", [np.array([-4, 4, 9], i32)], np.clip(np.array([-4, 4, 9], f32), 0.5, 5.5), params={"lo": 0.5, "hi": 5.5}, rule="pytorch (F32, not F64)")
num = np.array([7, -7, 7, -7, 1, -1, 0, 5, -0.0, inf, 1, 3, nan], f32)
den = np.array([2, 2, -2, -2, 0, 0, 0, inf, 3, 2, 0.1, -inf, 1], f32)
case("floor_divide_f32", "floor_divide", [num, den], np.floor_divide(num, den))
case("mod_f32", "mod", [num, den], np.mod(num, den))
case("fmod_f32", "fmod", [num, den], np.fmod(num, den))
case("div_f32", "div", [num, den], np.true_divide(num, den))
inum = np.array([7, -7, 7, -7, 7, 0, -2**31, -2**31, 5], i32)
iden = np.array([2, 2, -2, -2, 0, 0, -1, 1, 7], i32)
case("floor_divide_i32", "floor_divide", [inum, iden], np.floor_divide(inum, iden))
case("mod_i32", "mod", [inum, iden], np.mod(inum, iden))
case("fmod_i32", "fmod", [inum, iden], np.fmod(inum, iden))
case("div_i32_true", "div", [inum, iden], np.true_divide(inum.astype(f32), iden.astype(f32)), rule="pytorch (true division in F32; NumPy: F64)")
un = np.array([7, 200, 0, 255], u8)
ud = np.array([2, 0, 0, 16], u8)
case("floor_divide_u8", "floor_divide", [un, ud], np.floor_divide(un, ud))
case("mod_u8", "mod", [un, ud], np.mod(un, ud))
pb = np.array([-8, -8, 0, 0, -2, 2, nan, 1], f32)
pe = np.array([1 / 3, 2, 0, -1, 0.5, -inf, 0, nan], f32)
case("pow_f32", "pow", [pb, pe], np.power(pb, pe), tol=TR)
case("pow_i32_wraps", "pow", [np.array([2, -3, 0, 7, -1], i32), np.array([31, 3, 0, 12, 5], i32)],
     np.power(np.array([2, -3, 0, 7, -1], i32), np.array([31, 3, 0, 12, 5], i32)))
assert raises(lambda: np.power(np.array([2], i32), np.array([-1], i32)))
case("pow_i32_negative_exponent", "pow", [np.array([2], i32), np.array([-1], i32)], error="ErrValue")
case("add_i32_wraps", "add", [np.array([2**31 - 1, -2**31], i32), np.array([1, -1], i32)], np.add(np.array([2**31 - 1, -2**31], i32), np.array([1, -1], i32)))
case("mul_i32_wraps", "mul", [np.array([65536, 46341], i32), np.array([65536, 46341], i32)], np.multiply(np.array([65536, 46341], i32), np.array([65536, 46341], i32)))
case("neg_i32_min", "neg", [np.array([-2**31, 5], i32)], np.negative(np.array([-2**31, 5], i32)))
case("abs_i32_min", "abs", [np.array([-2**31, -5], i32)], np.abs(np.array([-2**31, -5], i32)))
case("add_u8_wraps", "add", [np.array([200, 10], u8), np.array([100, 250], u8)], np.add(np.array([200, 10], u8), np.array([100, 250], u8)))
case("sub_u8_wraps", "sub", [np.array([1], u8), np.array([2], u8)], np.subtract(np.array([1], u8), np.array([2], u8)))

# --- dtype promotion -----------------------------------------------------------
ia = np.array([1, 2, -3], i32)
fa = np.array([0.5, -0.5, 0.25], f32)
case("add_i32_f32", "add", [ia, fa], np.add(ia.astype(f32), fa), rule="pytorch (the float's dtype; NumPy: F64)")
case("add_i32_i64", "add", [ia, np.array([2**40, 1, 1], i64)], np.add(ia, np.array([2**40, 1, 1], i64)))
case("add_u8_i32", "add", [np.array([200, 1, 0], u8), ia], np.add(np.array([200, 1, 0], u8), ia))
case("add_bool_i32", "add", [np.array([True, False, True]), ia], np.add(np.array([True, False, True]), ia))
case("mul_bool_f32", "mul", [np.array([True, False, True]), fa], np.multiply(np.array([True, False, True]), fa))
case("add_f32_f64", "add", [fa, np.array([1e-10, 0, 0], f64)], np.add(fa, np.array([1e-10, 0, 0], f64)))
case("lt_i32_f32", "lt", [ia, np.array([1.5, 2, -3.5], f32)], np.less(ia, np.array([1.5, 2, -3.5], f32)))
case("eq_i32_f32", "eq", [ia, np.array([1, 2.5, -3], f32)], np.equal(ia, np.array([1, 2.5, -3], f32)))
case("eq_bool_i32", "eq", [np.array([True, False, True]), np.array([1, 0, 2], i32)], np.equal(np.array([True, False, True]), np.array([1, 0, 2], i32)))
case("maximum_i32_f32", "maximum", [ia, fa], np.maximum(ia.astype(f32), fa), rule="pytorch (the float's dtype)")
case("sqrt_i32", "sqrt", [np.array([4, 9, -1, 0], i32)], np.sqrt(np.array([4, 9, -1, 0], f32)), rule="pytorch (F32; NumPy: F64)")
case("exp_bool", "exp", [np.array([True, False])], np.exp(np.array([1, 0], f32)), tol=TR, rule="pytorch (F32; NumPy: F16)")
# a negative y over a negative x whose quotient underflows keeps y's sign: -pi
case("atan2_underflow_f64", "atan2", [np.array([-1e-200, 1e-200, -5e-324, -0.0, 5e-324], f64), np.array([-1e200, -1e200, -3, -1, 3], f64)],
     np.arctan2(np.array([-1e-200, 1e-200, -5e-324, -0.0, 5e-324], f64), np.array([-1e200, -1e200, -3, -1, 3], f64)))
case("atan2_underflow_f32", "atan2", [np.array([-1e-30, 1e-30, -1e-45], f32), np.array([-1e30, -1e30, -3], f32)],
     np.arctan2(np.array([-1e-30, 1e-30, -1e-45], f32), np.array([-1e30, -1e30, -3], f32)), tol=TR)
case("atan2_i32", "atan2", [np.array([1, -1, 0], i32), np.array([0, 0, -1], i32)], np.arctan2(np.array([1, -1, 0], f32), np.array([0, 0, -1], f32)), tol=TR, rule="pytorch (F32; NumPy: F64)")
case("where_i32_f32", "where", [np.array([True, False, True]), ia, fa], np.where(np.array([True, False, True]), ia.astype(f32), fa), rule="pytorch (the float's dtype)")
# a 0-d operand (a Scalar) does not widen an operand with axes in its own or a lower category
case("add_f32_0d_f64", "add", [fa, np.array(0.1, f64)], np.add(fa, np.array(0.1, f64)), rule="pytorch result_type (NumPy 1.24 agrees)")
case("add_0d_f64_f32", "add", [np.array(0.1, f64), fa], np.add(np.array(0.1, f64), fa), rule="pytorch result_type (NumPy 1.24 agrees)")
case("add_i32_0d_i64", "add", [ia, np.array(5, i64)], np.add(ia, np.array(5, i64)), rule="pytorch result_type (NumPy 1.24 agrees for a value that fits)")
case("add_u8_0d_i32", "add", [np.array([1, 250], u8), np.array(10, i32)], np.array([11, 4], u8), rule="pytorch result_type (wraps in u8)")
case("add_f16_0d_f32", "add", [np.array([1, 2], np.float16).astype(f32), np.array(0.5, f32)], np.array([1.5, 2.5], f32), rule="check the f32 path; f16 is not in the JSON dtypes")
case("mul_i32_0d_f64", "mul", [ia, np.array(1.5, f64)], np.multiply(ia, np.array(1.5, f64)), rule="pytorch result_type: the 0-d operand's higher category wins")
case("add_bool_0d_i32", "add", [np.array([True, False]), np.array(5, i32)], np.array([6, 5], i32), rule="pytorch result_type")
case("where_f32_0d_f64", "where", [np.array([True, False, True]), fa, np.array(0, f64)], np.where(np.array([True, False, True]), fa, f32(0)), rule="pytorch result_type (NumPy 1.24 agrees)")
case("eq_0d_0d", "eq", [np.array(1, i32), np.array(1.0, f64)], np.equal(np.array(1, i32), np.array(1.0, f64)))
case("where_numeric_cond", "where", [np.array([0.5, 0, nan], f32), ia, np.array([9, 9, 9], i32)], np.where(np.array([0.5, 0, nan], f32), ia, np.array([9, 9, 9], i32)))
# scalars act as Python scalars: an integer value keeps the dtype, a fraction promotes
case("add_scalar_i32_int", "add_scalar", [ia], ia + 2, params={"v": 2})
case("add_scalar_i32_fraction", "add_scalar", [ia], ia.astype(f32) + f32(0.5), params={"v": 0.5}, rule="pytorch (F32; NumPy: F64)")
case("mul_scalar_i32_fraction", "mul_scalar", [ia], ia.astype(f32) * f32(1.5), params={"v": 1.5}, rule="pytorch (F32)")
case("div_scalar_i32", "div_scalar", [np.array([1, 3, -3], i32)], np.array([1, 3, -3], f32) / f32(2), params={"v": 2}, rule="pytorch (true division in F32)")
case("floor_divide_scalar_i32", "floor_divide_scalar", [np.array([1, 3, -3], i32)], np.floor_divide(np.array([1, 3, -3], i32), 2), params={"v": 2})
for nm, fn in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)):
    for sv, tag in ((1.5, "fraction"), (-2.5, "negfraction"), (1e10, "huge"), (-1e10, "neghuge"), ("nan", "nan"), ("inf", "inf")):
        pv = float(sv) if isinstance(sv, str) else sv
        case(f"{nm}_scalar_i32_{tag}", f"{nm}_scalar", [ia], fn(ia, pv), params={"v": sv})
# an integer scalar outside the dtype wraps as the dtype's arithmetic does
case("add_scalar_u8_negative_wraps", "add_scalar", [np.array([0, 1, 200], u8)], np.array([0, 1, 200], u8) + np.uint8(255), params={"v": -1}, rule="wrapping arithmetic (NumPy 1.24 would widen to int16)")
case("add_scalar_i32_huge_wraps", "add_scalar", [ia], (ia.astype(i64) + 3 * 10**9).astype(i32), params={"v": 3e9}, rule="wrapping arithmetic (NumPy 1.24 would widen to int64)")
case("clip_i32_huge_bounds", "clamp", [ia], ia, params={"lo": -1e10, "hi": 1e10})
case("mod_scalar_i32_huge", "mod_scalar", [ia], error="ErrValue", params={"v": 1e10}, rule="pytorch (overflow check)")
# a Bool tensor with an integer scalar computes in int64 (NumPy's and PyTorch's Python int)
bt2 = np.array([True, False])
case("add_scalar_bool_integer", "add_scalar", [bt2], bt2 + 2, params={"v": 2})
case("mul_scalar_bool_integer", "mul_scalar", [bt2], bt2 * 3, params={"v": 3})
case("sub_scalar_bool_integer", "sub_scalar", [bt2], bt2 - 1, params={"v": 1})
case("maximum_scalar_bool_integer", "maximum_scalar", [bt2], np.maximum(bt2, 1), params={"v": 1})
case("pow_scalar_bool_integer", "pow_scalar", [bt2], np.power(bt2, 2), params={"v": 2})
# two Bool tensors: add and multiply are the logical or and and; subtract is an error
bp, bq = np.array([True, True, False, False]), np.array([True, False, True, False])
case("add_bool_bool", "add", [bp, bq], np.add(bp, bq))
case("mul_bool_bool", "mul", [bp, bq], np.multiply(bp, bq))
case("sub_bool_bool", "sub", [bp, bq], error="ErrDType")
case("add_scalar_bool_fraction", "add_scalar", [np.array([True, False])], np.array([1.5, 0.5], f32), params={"v": 0.5}, rule="pytorch (F32; NumPy: F64)")
case("lt_scalar_u8_negative", "lt_scalar", [np.array([0, 5], u8)], np.less(np.array([0, 5], u8), -1), params={"v": -1})
case("gt_scalar_f32_nan", "gt_scalar", [fa], np.greater(fa, nan), params={"v": "nan"})
case("ne_scalar_f32_nan", "ne_scalar", [fa], np.not_equal(fa, nan), params={"v": "nan"})

# --- empty tensors through elementwise, matmul, joins ---------------------------
case("add_empty_broadcast", "add", [e03, np.ones((1, 3), f32)], e03 + np.ones((1, 3), f32))
case("exp_empty", "exp", [e0], np.exp(e0))
case("eq_empty", "eq", [e0, e0], np.equal(e0, e0))
case("where_empty", "where", [np.zeros((0,), b_), e0, e0], np.where(np.zeros((0,), b_), e0, e0))
case("matmul_k0", "matmul", [np.zeros((2, 0), f32), np.zeros((0, 3), f32)], np.zeros((2, 0), f32) @ np.zeros((0, 3), f32))
case("matmul_m0", "matmul", [np.zeros((0, 4), f32), np.ones((4, 3), f32)], np.zeros((0, 4), f32) @ np.ones((4, 3), f32))
case("matmul_1d_k0", "matmul", [e0, e0], np.array(e0 @ e0, f32))
case("matmul_1d_2d", "matmul", [np.array([1, 2], f32), x23], np.array([1, 2], f32) @ x23)
case("matmul_2d_1d", "matmul", [x23, np.array([1, 2, 3], f32)], x23 @ np.array([1, 2, 3], f32))
case("matmul_batch_broadcast", "matmul", [np.ones((2, 1, 2, 3), f32), np.ones((4, 3, 5), f32)], np.ones((2, 1, 2, 3), f32) @ np.ones((4, 3, 5), f32))
assert raises(lambda: x23 @ x23) and raises(lambda: np.matmul(s3, s3))
case("matmul_mismatch", "matmul", [x23, x23], error="ErrShape")
case("matmul_0d", "matmul", [s3, s3], error="ErrShape")
case("concat_with_empty", "concat", [e03, np.array([[1, 2, 3]], f32)], np.concatenate([e03, np.array([[1, 2, 3]], f32)]), params={"axis": 0})
case("concat_all_empty", "concat", [e03, e03], np.concatenate([e03, e03]), params={"axis": 0})
case("concat_neg_axis", "concat", [x23, x23], np.concatenate([x23, x23], axis=-1), params={"axis": -1})
assert raises(lambda: np.concatenate([s3, s3]))
case("concat_0d", "concat", [s3, s3], error="ErrAxis", params={"axis": 0})
case("concat_i32_f32", "concat", [np.array([1, 2], i32), np.array([0.5], f32)], np.array([1, 2, 0.5], f32), params={"axis": 0}, rule="pytorch (the float's dtype; NumPy: F64)")
case("concat_bool_u8", "concat", [np.array([True], b_), np.array([7], u8)], np.concatenate([np.array([True], b_), np.array([7], u8)]), params={"axis": 0})
case("stack_u8_i32", "stack", [np.array([1, 2], u8), np.array([-1, 300], i32)], np.stack([np.array([1, 2], u8), np.array([-1, 300], i32)]), params={"axis": 0})
case("stack_empties", "stack", [e0, e0], np.stack([e0, e0]), params={"axis": 0})
case("stack_0d", "stack", [s3, s3], np.stack([s3, s3]), params={"axis": 0})
case("stack_neg_axis", "stack", [x23, x23], np.stack([x23, x23], axis=-1), params={"axis": -1})

# --- views and shapes ----------------------------------------------------------
case("reshape_infer", "reshape", [x23], x23.reshape(3, -1), params={"shape": [3, -1]})
case("reshape_to_0d", "reshape", [np.array([3], f32)], np.array([3], f32).reshape(()), params={"shape": []})
case("reshape_from_0d", "reshape", [s3], s3.reshape(1, 1), params={"shape": [1, 1]})
case("reshape_0d_infer", "reshape", [s3], s3.reshape(-1), params={"shape": [-1]})
case("reshape_empty_infer", "reshape", [e03], e03.reshape(-1, 3), params={"shape": [-1, 3]})
assert raises(lambda: e03.reshape(0, -1)) and raises(lambda: x23.reshape(4, -1)) and raises(lambda: x23.reshape(-1, -1))
case("reshape_empty_ambiguous", "reshape", [e03], error="ErrShape", params={"shape": [0, -1]})
case("reshape_infer_bad", "reshape", [x23], error="ErrShape", params={"shape": [4, -1]})
case("reshape_two_infer", "reshape", [x23], error="ErrShape", params={"shape": [-1, -1]})
case("reshape_transposed", "reshape", [x23], x23.T.reshape(-1), params={"shape": [-1], "transpose_first": True})
for start, stop, step in ((None, None, -1), (2, -4, -1), (-1, None, -2), (0, 3, 2), (-2, 3, 1), (1, 100, 1), (2, 1, 1), (-100, 100, 1), (100, -100, -1)):
    s = slice(start, stop, step)
    py = {"start": start, "stop": stop, "step": step}
    case(f"slice_{start}_{stop}_{step}", "slice", [x23], x23[:, s], params=py)
case("slice_step0", "slice", [x23], error="ErrValue", params={"start": 0, "stop": 3, "step": 0})
case("transpose_1d", "T", [np.array([1, 2], f32)], np.array([1, 2], f32).T)
case("transpose_0d", "T", [s3], s3.T)
case("transpose_3d_last_two", "T", [np.arange(24, dtype=f32).reshape(2, 3, 4)], np.swapaxes(np.arange(24, dtype=f32).reshape(2, 3, 4), -1, -2), rule="pytorch mT (NumPy's .T would reverse every axis: use Permute)")
case("broadcast_to", "broadcast_to", [np.array([1, 2, 3], f32)], np.broadcast_to(np.array([1, 2, 3], f32), (2, 3)), params={"shape": [2, 3]})
case("broadcast_to_0d", "broadcast_to", [s3], np.broadcast_to(s3, (2, 2)), params={"shape": [2, 2]})
assert raises(lambda: np.broadcast_to(np.array([1, 2, 3], f32), (3, 2)))
case("broadcast_to_keep_extent", "broadcast_to", [np.ones((3, 1), f32)], np.ones((2, 3, 4), f32), params={"shape": [2, -1, 4]}, rule="pytorch expand (-1 keeps an extent)")
case("broadcast_to_new_axis_neg1", "broadcast_to", [np.ones((3,), f32)], error="ErrShape", params={"shape": [-1, 3]}, rule="pytorch expand")
case("broadcast_to_bad", "broadcast_to", [np.array([1, 2, 3], f32)], error="ErrShape", params={"shape": [3, 2]})
case("squeeze_all", "squeeze", [np.ones((1, 3, 1), f32)], np.squeeze(np.ones((1, 3, 1), f32)), params={"axes": None})
case("squeeze_neg", "squeeze", [np.ones((1, 3, 1), f32)], np.squeeze(np.ones((1, 3, 1), f32), axis=-1), params={"axes": [-1]})
assert raises(lambda: np.squeeze(x23, axis=0))
case("squeeze_not_one", "squeeze", [x23], error="ErrShape", params={"axes": [0]}, rule="numpy (torch: no-op)")
case("unsqueeze_neg", "unsqueeze", [x23], np.expand_dims(x23, -1), params={"axis": -1})
case("unsqueeze_0d", "unsqueeze", [s3], np.expand_dims(s3, 0), params={"axis": 0})
case("narrow_neg_start", "narrow", [x23], x23[:, 1:3], params={"axis": -1, "start": -2, "length": 2}, rule="pytorch narrow")
case("flip_neg", "flip", [x23], np.flip(x23, -1), params={"axes": [-1]})
case("flip_all", "flip", [x23], np.flip(x23), params={"axes": None})
case("permute_neg", "permute", [x23], np.transpose(x23, (-1, 0)), params={"perm": [-1, 0]})
case("contiguous_after_view", "contiguous", [x23], np.ascontiguousarray(x23.T[::-1]), params={"transpose_flip": True})

# --- gather / index_select / masked_fill ----------------------------------------
case("index_select", "index_select", [x23, np.array([2, 0, 2], i64)], np.take(x23, [2, 0, 2], axis=1), params={"axis": -1})
case("index_select_negative", "index_select", [x23, np.array([-1], i64)], error="ErrAxis", params={"axis": 1}, rule="pytorch (numpy's take would wrap)")
case("gather", "gather", [x23, np.array([[2, 0], [1, 1]], i64)], np.take_along_axis(x23, np.array([[2, 0], [1, 1]], i64), axis=1), params={"axis": 1})
case("gather_negative", "gather", [x23, np.array([[-1], [0]], i64)], error="ErrAxis", params={"axis": 1}, rule="pytorch")
mask = np.array([True, False, True])
case("masked_fill_broadcast", "masked_fill", [x23, mask], np.where(mask, f32(-1), x23), params={"value": -1})
case("masked_fill_nan", "masked_fill", [x23, mask], np.where(mask, f32(nan), x23), params={"value": "nan"})
case("masked_fill_mask_too_big", "masked_fill", [np.array([1, 2, 3], f32), np.ones((2, 3), b_)], error="ErrShape", params={"value": 0}, rule="pytorch")

# --- readback of 0-d ----------------------------------------------------------------
case("item_0d", "item", [s3], s3)
case("item_empty", "item", [e0], error="ErrShape")
case("item_two", "item", [np.array([1, 2], f32)], error="ErrShape")

# === coverage extension: casts, rounding, logic, tiling, triangles, pads, =====
# scatters, constructors, special values of the float functions, promotion.
# Ops whose doc comment picks a rule NumPy leaves undefined (Cast of NaN, ±Inf
# and out-of-range floats) or answers otherwise say so in "rule"; the
# reference is then that documented rule, computed here in NumPy.

VIEWS = {"T": lambda a: np.swapaxes(a, -1, -2), "flip": lambda a: a[..., ::-1], "step2": lambda a: a[..., ::2]}


def vcase(name, op, x, view, want_fn, params=None, **kw):
    """A case whose first input is taken through a view first (view in
    params: "T" swaps the last two axes, "flip" reverses the last, "step2"
    takes every other element of the last): the tensor the op sees is not
    contiguous."""
    p = dict(params or {})
    p["view"] = view
    vx = BF16(VIEWS[view](x.a)) if type(x).__name__ == "BF16" else VIEWS[view](x)  # BF16: coverage extension 3
    case(name, op, [x], want_fn(vx), params=p, **kw)


# --- Cast ------------------------------------------------------------------------
II = {i32: np.iinfo(i32), i64: np.iinfo(i64), u8: np.iinfo(u8)}


def cast_doc(a, dt):
    """Cast's documented float-to-integer rule: truncate toward zero, saturate,
    NaN gives 0. NumPy agrees where the truncated value fits."""
    lo, hi = int(II[dt].min), int(II[dt].max)
    out = []
    for x in np.asarray(a, f64).reshape(-1).tolist():
        out.append(0 if math.isnan(x) else lo if x == -inf else hi if x == inf else min(max(int(x), lo), hi))
    return np.array(out, dt).reshape(np.shape(a))


cf = np.array([1.9, -1.9, 0.5, -0.5, -0.0, 2.5, -2.5, 100.99, -2147483520], f32)
for dn, dt in (("i32", i32), ("i64", i64)):
    case(f"cast_f32_{dn}_truncates", "cast", [cf], cf.astype(dt), params={"dtype": dn})
case("cast_f64_i32_truncates", "cast", [cf.astype(f64)], cf.astype(f64).astype(i32), params={"dtype": "i32"})
cbig = np.array([nan, inf, -inf, 3e9, -3e9, 1e20, -1e20], f32)
case("cast_f32_i32_saturates", "cast", [cbig], cast_doc(cbig, i32), params={"dtype": "i32"}, rule="tessera doc: saturate, NaN gives 0 (NumPy: undefined)")
case("cast_f64_i64_saturates", "cast", [cbig.astype(f64)], cast_doc(cbig, i64), params={"dtype": "i64"}, rule="tessera doc: saturate, NaN gives 0 (NumPy: undefined)")
# the saturation bounds themselves: 2^31 and 2^63 are floats one past the
# largest integer, -2^31 and -2^63 are the smallest integers
cedge = np.array([2**31, -2**31, 2147483520, -2147483904], f32)
case("cast_f32_i32_bounds", "cast", [cedge], cast_doc(cedge, i32), params={"dtype": "i32"}, rule="tessera doc: saturate (NumPy: undefined past the range)")
cedge64 = np.array([2.0**63, -2.0**63, 2.0**63 - 1024, -2.0**63 - 2048, 2.0**31, -2.0**31 - 1], f64)
case("cast_f64_i64_bounds", "cast", [cedge64], cast_doc(cedge64, i64), params={"dtype": "i64"}, rule="tessera doc: saturate (NumPy: undefined past the range)")
case("cast_f64_i32_bounds", "cast", [cedge64], cast_doc(cedge64, i32), params={"dtype": "i32"}, rule="tessera doc: saturate (NumPy: undefined past the range)")
case("cast_f32_i64_bounds", "cast", [cedge64.astype(f32)], cast_doc(cedge64.astype(f32), i64), params={"dtype": "i64"}, rule="tessera doc: saturate (NumPy: undefined past the range)")
case("cast_f64_u8_bounds", "cast", [np.array([255.99999, 256, -0.99999, -1, 0.5], f64)], cast_doc(np.array([255.99999, 256, -0.99999, -1, 0.5], f64), u8), params={"dtype": "u8"}, rule="tessera doc: saturate (NumPy: undefined past the range)")
cu = np.array([0.9, 255.5, -0.9, -1, -200.5, 256, 1e10, nan, inf, -inf], f32)
case("cast_f32_u8_saturates", "cast", [cu], cast_doc(cu, u8), params={"dtype": "u8"}, rule="tessera doc: saturate, NaN gives 0 (NumPy: undefined for negatives and > 255)")
case("cast_f32_u8_in_range", "cast", [np.array([0.9, 255.5, 7.99, 128.5, -0.0], f32)], np.array([0.9, 255.5, 7.99, 128.5, -0.0], f32).astype(u8), params={"dtype": "u8"})
ciw = np.array([-1, 255, 256, 257, -256, 1000, -129], i32)
case("cast_i32_u8_wraps", "cast", [ciw], ciw.astype(u8), params={"dtype": "u8"})
ci64 = np.array([2**31, -2**31 - 1, 2**40 + 5, -2**40 - 7, 2**32 - 1], i64)
case("cast_i64_i32_wraps", "cast", [ci64], ci64.astype(i32), params={"dtype": "i32"})
case("cast_i32_i64_sign_extends", "cast", [np.array([-1, -2**31, 2**31 - 1], i32)], np.array([-1, -2**31, 2**31 - 1], i32).astype(i64), params={"dtype": "i64"})
case("cast_u8_i32_zero_extends", "cast", [np.array([200, 255, 0], u8)], np.array([200, 255, 0], u8).astype(i32), params={"dtype": "i32"})
cr = np.array([2**24 + 1, 2**24 + 3, -2**24 - 1, 2**31 - 1, -2**31], i32)
case("cast_i32_f32_rounds_even", "cast", [cr], cr.astype(f32), params={"dtype": "f32"})
case("cast_i64_f64", "cast", [np.array([2**53, -2**53, 2**62], i64)], np.array([2**53, -2**53, 2**62], i64).astype(f64), params={"dtype": "f64"})
cn = np.array([0.1, 1e40, -1e40, 1e-50, -1e-50, nan, 3.4028235677973366e38, 16777217.0, 16777219.0, -0.0], f64)
case("cast_f64_f32_rounds", "cast", [cn], cn.astype(f32), params={"dtype": "f32"})
cb = np.array([0, -0.0, nan, 0.5, -inf, 1e-30], f32)
case("cast_f32_bool", "cast", [cb], cb.astype(b_), params={"dtype": "bool"})
case("cast_i32_bool", "cast", [np.array([0, -1, 2, 256], i32)], np.array([0, -1, 2, 256], i32).astype(b_), params={"dtype": "bool"})
case("cast_u8_bool", "cast", [np.array([0, 1, 255], u8)], np.array([0, 1, 255], u8).astype(b_), params={"dtype": "bool"})
bt = np.array([True, False, True])
for dn, dt in (("f32", f32), ("i32", i32), ("u8", u8), ("i64", i64), ("f64", f64)):
    case(f"cast_bool_{dn}", "cast", [bt], bt.astype(dt), params={"dtype": dn})
case("cast_u8_f32", "cast", [np.array([0, 128, 255], u8)], np.array([0, 128, 255], u8).astype(f32), params={"dtype": "f32"})
case("cast_empty", "cast", [e03], e03.astype(i32), params={"dtype": "i32"})
case("cast_0d", "cast", [np.array(-2.7, f32)], np.array(-2.7, f32).astype(i32), params={"dtype": "i32"})
vcase("cast_transposed_f32_i32", "cast", np.array([[1.5, -2.5, 3.9], [-0.1, 7.7, -8.8]], f32), "T", lambda a: a.astype(i32), params={"dtype": "i32"})
vcase("cast_strided_i32_u8", "cast", np.array([[-1, 2, 300, 4], [5, -6, 7, 256]], i32), "step2", lambda a: a.astype(u8), params={"dtype": "u8"})

# --- rounding, reciprocal ------------------------------------------------------------
rf = np.array([1.5, -1.5, 0.5, -0.5, 0.4, -0.4, -0.0, 0.0, 2.5, -2.5, 8388609.0, -8388609.0, 1e30, nan, inf, -inf, 0.9999999], f32)
for nm, fn in (("trunc", np.trunc), ("ceil", np.ceil), ("floor", np.floor)):
    case(f"{nm}_f32", nm, [rf], fn(rf))
    case(f"{nm}_f64", nm, [rf.astype(f64) + np.where(np.isfinite(rf), 1e-9, 0)], fn(rf.astype(f64) + np.where(np.isfinite(rf), 1e-9, 0)))
    case(f"{nm}_empty", nm, [e03], fn(e03))
    case(f"{nm}_0d", nm, [np.array(-0.5, f32)], fn(np.array(-0.5, f32)))
    vcase(f"{nm}_transposed", nm, np.array([[1.5, -1.5, 2.2], [-0.2, 3.7, -3.7]], f32), "T", fn)
    # Rounding an integer leaves it as it is, in its dtype (PyTorch and the
    # array API; NumPy 1.24 gives F64 of the same values). 2^24 + 1 is not
    # an F32 value: a detour through F32 would lose it. (The table's
    # numbers pass through JSON as float64, so I64 cases hold F64 values.)
    for dn, dt, vals in (("i32", i32, [-3, 0, 7, -2**31, 2**24 + 1]), ("i64", i64, [-3, 2**62, -2**62]), ("u8", u8, [0, 255])):
        case(f"{nm}_{dn}", nm, [np.array(vals, dt)], np.array(vals, dt),
             rule="pytorch (integers unchanged, in their dtype; NumPy: F64)")
rc = np.array([2, -0.0, 0.0, inf, -inf, nan, -4, 0.5, 1e-30], f32)
case("reciprocal_f32_exact", "reciprocal", [rc[:8]], np.reciprocal(rc[:8]))
case("reciprocal_f32", "reciprocal", [np.array([3, -7, 1e-30, 1e30, 0.1], f32)], np.reciprocal(np.array([3, -7, 1e-30, 1e30, 0.1], f32)), tol=TR)
case("reciprocal_i32", "reciprocal", [np.array([2, -4, 0, 1], i32)], np.reciprocal(np.array([2, -4, 0, 1], f32)), rule="pytorch (F32; NumPy: integer 1//x)")
case("rsqrt_f32", "rsqrt", [np.array([4, 0.25, 0.0, inf, -1, nan], f32)], 1 / np.sqrt(np.array([4, 0.25, 0.0, inf, -1, nan], f32)), rule="1/sqrt(x)")
case("rsqrt_neg0", "rsqrt", [np.array([-0.0], f32)], 1 / np.sqrt(np.array([-0.0], f32)), rule="1/sqrt(x): sqrt(-0) = -0, 1/-0 = -Inf (torch.rsqrt agrees)")
case("square_f32", "square", [np.array([-0.0, -3, nan, -inf, 1e20], f32)], np.square(np.array([-0.0, -3, nan, -inf, 1e20], f32)))
case("square_i32_wraps", "square", [np.array([46341, -65536, -7], i32)], np.square(np.array([46341, -65536, -7], i32)))
case("square_u8_wraps", "square", [np.array([16, 15, 255], u8)], np.square(np.array([16, 15, 255], u8)))

# --- remainder, fmod with scalars ------------------------------------------------------
case("remainder_f32", "remainder", [num, den], np.remainder(num, den))
case("remainder_i32", "remainder", [inum, iden], np.remainder(inum, iden))
case("remainder_broadcast", "remainder", [np.array([[-7], [7]], f32), np.array([3, -3, 0.5], f32)], np.remainder(np.array([[-7], [7]], f32), np.array([3, -3, 0.5], f32)))
rs = np.array([7, -7, -0.0, 0.0, 3, -3, inf, nan, 1e-30], f32)
for sv, tag in ((3, "3"), (-3, "neg3"), (0.75, "frac"), (inf, "inf")):
    case(f"remainder_scalar_f32_{tag}", "remainder_scalar", [rs], np.remainder(rs, f32(sv)), params={"v": enc(np.array(sv, f64))["data"][0]})
    case(f"fmod_scalar_f32_{tag}", "fmod_scalar", [rs], np.fmod(rs, f32(sv)), params={"v": enc(np.array(sv, f64))["data"][0]})
case("remainder_scalar_f32_zero", "remainder_scalar", [rs], np.remainder(rs, f32(0)), params={"v": 0})
ri = np.array([7, -7, 0, -2**31, 2**31 - 1, 5], i32)
for sv in (3, -3, 1, -1):
    case(f"remainder_scalar_i32_{sv}", "remainder_scalar", [ri], np.remainder(ri, i32(sv)), params={"v": sv})
    case(f"fmod_scalar_i32_{sv}", "fmod_scalar", [ri], np.fmod(ri, i32(sv)), params={"v": sv})
case("remainder_scalar_i32_zero", "remainder_scalar", [ri], np.zeros(6, i32), params={"v": 0}, rule="numpy (0, with a warning; PyTorch raises)")
case("remainder_scalar_i32_frac", "remainder_scalar", [ri[:3]], np.remainder(ri[:3].astype(f32), f32(2.5)), params={"v": 2.5}, rule="pytorch (F32; NumPy: F64)")
case("remainder_scalar_u8", "remainder_scalar", [np.array([7, 200, 0], u8)], np.remainder(np.array([7, 200, 0], u8), u8(3)), params={"v": 3})

# --- integer arithmetic: I64 wrap, division, U8 -----------------------------------------
# values are powers of two or small so that JSON's float64 holds them exactly
I64MIN = -2**63
a64 = np.array([2**62, I64MIN, I64MIN, 2**62, -2**62], i64)
b64 = np.array([2**62, -1, -2**62, -2**62, -2**62], i64)
case("add_i64_wraps", "add", [a64, b64], np.add(a64, b64))
case("sub_i64_wraps", "sub", [np.array([I64MIN, 2**62, I64MIN], i64), np.array([2**62, -2**62, I64MIN], i64)],
     np.subtract(np.array([I64MIN, 2**62, I64MIN], i64), np.array([2**62, -2**62, I64MIN], i64)))
m64a = np.array([2**32, 2**62, I64MIN, 3, -2**40], i64)
m64b = np.array([2**32, 3, -1, -5, 2**30], i64)
case("mul_i64_wraps", "mul", [m64a, m64b], np.multiply(m64a, m64b))
case("neg_i64_min", "neg", [np.array([I64MIN, 5, -2**62], i64)], np.negative(np.array([I64MIN, 5, -2**62], i64)))
case("abs_i64_min", "abs", [np.array([I64MIN, -5], i64)], np.abs(np.array([I64MIN, -5], i64)))
fn64 = np.array([-7, 7, -7, 7, I64MIN, I64MIN, 2**62 + 1, -2**40, 0, 5], i64)
fd64 = np.array([2, -2, -2, 0, -1, 4, -2**40, 3, -3, -2**40], i64)
# 2**62 + 1 is not a float64: replace it by one that is
fn64[6] = 2**62
case("floor_divide_i64", "floor_divide", [fn64, fd64], np.floor_divide(fn64, fd64))
case("mod_i64", "mod", [fn64, fd64], np.mod(fn64, fd64))
case("fmod_i64", "fmod", [fn64, fd64], np.fmod(fn64, fd64))
case("div_i64_true", "div", [np.array([7, -7, 0, 1, 2**40], i64), np.array([2, 0, 0, -4, 2**20], i64)],
     np.true_divide(np.array([7, -7, 0, 1, 2**40], f32), np.array([2, 0, 0, -4, 2**20], f32)), rule="pytorch (true division in F32; NumPy: F64)")
case("div_u8_true", "div", [np.array([7, 0, 200, 255], u8), np.array([2, 0, 0, 16], u8)],
     np.true_divide(np.array([7, 0, 200, 255], f32), np.array([2, 0, 0, 16], f32)), rule="pytorch (true division in F32; NumPy: F64)")
case("div_bool_true", "div", [np.array([True, False, True]), np.array([True, True, False])],
     np.true_divide(np.array([1, 0, 1], f32), np.array([1, 1, 0], f32)), rule="pytorch (true division in F32; NumPy: F64)")
case("mul_u8_wraps", "mul", [np.array([16, 200, 3], u8), np.array([16, 2, 85], u8)], np.multiply(np.array([16, 200, 3], u8), np.array([16, 2, 85], u8)))
case("neg_u8_wraps", "neg", [np.array([1, 0, 200], u8)], np.negative(np.array([1, 0, 200], u8)), rule="numpy (wraps; PyTorch agrees)")
case("sub_i32_wraps", "sub", [np.array([-2**31, 2**31 - 1], i32), np.array([1, -1], i32)], np.subtract(np.array([-2**31, 2**31 - 1], i32), np.array([1, -1], i32)))
case("floor_divide_i32_broadcast", "floor_divide", [np.array([[-7], [7], [0]], i32), np.array([3, -3, 1, -1], i32)],
     np.floor_divide(np.array([[-7], [7], [0]], i32), np.array([3, -3, 1, -1], i32)))
case("mod_i32_broadcast", "mod", [np.array([[-7], [7], [0]], i32), np.array([3, -3, 1, -1], i32)],
     np.mod(np.array([[-7], [7], [0]], i32), np.array([3, -3, 1, -1], i32)))
case("floor_divide_u8_i32", "floor_divide", [np.array([200, 7], u8), np.array([-3, -1], i32)], np.floor_divide(np.array([200, 7], u8), np.array([-3, -1], i32)))
case("floor_divide_scalar_i32_neg", "floor_divide_scalar", [np.array([7, -7, 0, -2**31], i32)], np.floor_divide(np.array([7, -7, 0, -2**31], i32), -2), params={"v": -2})
case("mod_scalar_i32_neg", "mod_scalar", [np.array([7, -7, 0, -2**31], i32)], np.mod(np.array([7, -7, 0, -2**31], i32), -2), params={"v": -2})
case("sub_scalar_i32", "sub_scalar", [np.array([-2**31, 5], i32)], np.array([-2**31, 5], i32) - i32(1), params={"v": 1})

# --- logic ------------------------------------------------------------------------------
la = np.array([0, -0.0, nan, 1, -inf, 0, 2, 0.0], f32)
lb = np.array([0, 1, 0, nan, 0, -0.0, 3, inf], f32)
for nm, fn in (("and", np.logical_and), ("or", np.logical_or), ("xor", np.logical_xor)):
    case(f"{nm}_f32", nm, [la, lb], fn(la, lb))
    case(f"{nm}_i32_u8_broadcast", nm, [np.array([[0], [-5], [256]], i32), np.array([0, 1, 255], u8)], fn(np.array([[0], [-5], [256]], i32), np.array([0, 1, 255], u8)))
    case(f"{nm}_bool", nm, [np.array([True, True, False, False]), np.array([True, False, True, False])], fn(np.array([True, True, False, False]), np.array([True, False, True, False])))
    case(f"{nm}_bool_f32", nm, [np.array([True, False, True]), np.array([0, nan, -0.0], f32)], fn(np.array([True, False, True]), np.array([0, nan, -0.0], f32)))
    case(f"{nm}_empty", nm, [e03, np.ones((1, 3), f32)], fn(e03, np.ones((1, 3), f32)))
    case(f"{nm}_0d", nm, [np.array(nan, f32), np.array(0, i32)], fn(np.array(nan, f32), np.array(0, i32)))
    case(f"{nm}_shape_mismatch", nm, [np.ones(3, f32), np.ones(2, f32)], error="ErrShape")
    for sv, tag in ((0, "0"), (1, "1"), ("nan", "nan"), (0.5, "frac"), ("-0", "negzero"), ("inf", "inf"), (1e10, "huge")):
        pv = semv = sv
        if isinstance(sv, str):
            pv = {"nan": nan, "-0": -0.0, "inf": inf}[sv]
        case(f"{nm}_scalar_f32_{tag}", f"{nm}_scalar", [la], fn(la, pv), params={"v": sv})
        case(f"{nm}_scalar_i32_{tag}", f"{nm}_scalar", [np.array([0, 3, -1], i32)], fn(np.array([0, 3, -1], i32), pv), params={"v": sv})
    case(f"{nm}_scalar_bool", f"{nm}_scalar", [np.array([True, False])], fn(np.array([True, False]), True), params={"v": 1})
ln = np.array([0, -0.0, nan, 1, -inf, 1e-45 if False else 1e-30], f32)
case("not_f32", "not", [ln], np.logical_not(ln))
case("not_i32", "not", [np.array([0, 1, -1, 256], i32)], np.logical_not(np.array([0, 1, -1, 256], i32)))
case("not_u8", "not", [np.array([0, 1, 255], u8)], np.logical_not(np.array([0, 1, 255], u8)))
case("not_bool", "not", [np.array([True, False])], np.logical_not(np.array([True, False])))
case("not_empty", "not", [e03], np.logical_not(e03))
case("not_0d", "not", [np.array(0, i64)], np.logical_not(np.array(0, i64)))
vcase("not_transposed", "not", np.array([[0, 1, 0], [2, 0, nan]], f32), "T", np.logical_not)

# --- IsNaN / IsInf / IsFinite --------------------------------------------------------------
sv_ = np.array([nan, inf, -inf, 0, -0.0, 1, -3.4028235e38, 1e-30], f32)
for nm, fn in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
    case(f"{nm}_f32", nm, [sv_], fn(sv_))
    case(f"{nm}_f64", nm, [sv_.astype(f64) * 1e300], fn(sv_.astype(f64) * 1e300))
    case(f"{nm}_i32", nm, [np.array([0, -2**31, 2**31 - 1], i32)], fn(np.array([0, -2**31, 2**31 - 1], i32)))
    case(f"{nm}_u8", nm, [np.array([0, 255], u8)], fn(np.array([0, 255], u8)))
    case(f"{nm}_i64", nm, [np.array([0, I64MIN], i64)], fn(np.array([0, I64MIN], i64)))
    case(f"{nm}_bool", nm, [np.array([True, False])], fn(np.array([True, False])))
    case(f"{nm}_empty", nm, [e03], fn(e03))
    case(f"{nm}_0d", nm, [np.array(nan, f32)], fn(np.array(nan, f32)))
    vcase(f"{nm}_strided", nm, np.array([[nan, 1, inf, 2], [-inf, nan, 0, 3]], f32), "step2", fn)

# --- Any / All ---------------------------------------------------------------------------------
aa = np.array([[0, -0.0, nan], [0, 0, 0], [1, 0, 2]], f32)
for nm, fn in (("any", np.any), ("all", np.all)):
    case(f"{nm}_all", nm, [aa], fn(aa), params={"axes": None})
    case(f"{nm}_neg1", nm, [aa], fn(aa, axis=-1), params={"axes": [-1]})
    case(f"{nm}_axis0", nm, [aa], fn(aa, axis=0), params={"axes": [0]})
    case(f"{nm}_keep", nm, [aa], fn(aa, axis=1, keepdims=True), params={"axes": [1], "keepdims": True})
    case(f"{nm}_keep_all", nm, [aa], fn(aa, keepdims=True), params={"axes": None, "keepdims": True})
    case(f"{nm}_two_axes", nm, [aa], fn(aa, axis=(0, 1)), params={"axes": [0, -1]})
    case(f"{nm}_nan_only", nm, [np.array([nan], f32)], fn(np.array([nan], f32)), params={"axes": None})
    case(f"{nm}_negzero_only", nm, [np.array([-0.0, -0.0], f32)], fn(np.array([-0.0, -0.0], f32)), params={"axes": None})
    case(f"{nm}_empty", nm, [e0], fn(e0), params={"axes": None})
    case(f"{nm}_empty_axis0", nm, [e03], fn(e03, axis=0), params={"axes": [0]})
    case(f"{nm}_empty_out", nm, [e03], fn(e03, axis=1), params={"axes": [1]})
    case(f"{nm}_0d", nm, [np.array(0, f32)], fn(np.array(0, f32)), params={"axes": None})
    case(f"{nm}_0d_axis0", nm, [np.array(2, i32)], fn(np.array(2, i32), axis=0), params={"axes": [0]})
    case(f"{nm}_i32", nm, [np.array([[0, 5], [-1, 0]], i32)], fn(np.array([[0, 5], [-1, 0]], i32), axis=0), params={"axes": [0]})
    case(f"{nm}_u8", nm, [np.array([0, 255, 1], u8)], fn(np.array([0, 255, 1], u8)), params={"axes": None})
    case(f"{nm}_i64", nm, [np.array([I64MIN, 0], i64)], fn(np.array([I64MIN, 0], i64)), params={"axes": None})
    case(f"{nm}_bool", nm, [bb], fn(bb, axis=1), params={"axes": [1]})
    case(f"{nm}_axis_oob", nm, [aa], error="ErrAxis", params={"axes": [2]})
    case(f"{nm}_axis_repeated", nm, [aa], error="ErrAxis", params={"axes": [1, -1]})
    vcase(f"{nm}_transposed", nm, np.array([[0, 0, 1], [0, 0, 0]], f32), "T", lambda a: fn(a, axis=-1), params={"axes": [-1]})

# --- more reductions: keepdims with NaN, Std keepdims, Var/Std of integers, f64 ---------------
mk = np.array([[1, nan, 3], [-inf, 2, 0]], f32)
for nm, fn in (("max", np.max), ("min", np.min)):
    case(f"{nm}_keep_nan_axis1", nm, [mk], fn(mk, axis=1, keepdims=True), params={"axes": [1], "keepdims": True})
    case(f"{nm}_keep_nan_axis0", nm, [mk], fn(mk, axis=0, keepdims=True), params={"axes": [-2], "keepdims": True})
    case(f"{nm}_i64", nm, [np.array([[I64MIN, 2**62], [5, -5]], i64)], fn(np.array([[I64MIN, 2**62], [5, -5]], i64), axis=0), params={"axes": [0]})
    case(f"{nm}_u8", nm, [np.array([[0, 255], [7, 200]], u8)], fn(np.array([[0, 255], [7, 200]], u8), axis=-1), params={"axes": [-1]})
    case(f"{nm}_signed_zero", nm, [np.array([-0.0, -0.0], f32)], fn(np.array([-0.0, -0.0], f32)), params={"axes": None})
    vcase(f"{nm}_transposed", nm, np.array([[1, 9, -3], [4, -5, 6]], f32), "T", lambda a: fn(a, axis=-1), params={"axes": [-1]})
sv2 = np.array([[1, 2, 4, 7], [0, 0, 0, 0], [1e10, 1e10 + 1024, 1e10, 1e10 + 1024]], f64)
for ddof in (0, 1, 2):
    case(f"std_keep_ddof{ddof}", "std", [v], np.std(v, axis=0, ddof=ddof, keepdims=True), params={"ddof": ddof, "axes": [0], "keepdims": True}, tol=TR)
    case(f"var_f64_ddof{ddof}", "var", [sv2], np.var(sv2, axis=1, ddof=ddof), params={"ddof": ddof, "axes": [1]}, tol=1e-12)
    case(f"std_all_ddof{ddof}", "std", [v], np.std(v, ddof=ddof), params={"ddof": ddof, "axes": None}, tol=TR)
case("var_two_axes", "var", [np.arange(24, dtype=f32).reshape(2, 3, 4)], np.var(np.arange(24, dtype=f32).reshape(2, 3, 4), axis=(0, 2), ddof=1), params={"ddof": 1, "axes": [0, -1]}, tol=TR)
case("var_inf", "var", [np.array([1, inf, 2], f32)], np.var(np.array([1, inf, 2], f32)), params={"ddof": 0, "axes": None})
case("std_inf", "std", [np.array([inf, inf], f32)], np.std(np.array([inf, inf], f32)), params={"ddof": 0, "axes": None})
case("var_i32_error", "var", [np.array([1, 2], i32)], error="ErrDType", params={"ddof": 0, "axes": None}, rule="pytorch (NumPy: F64)")
case("std_bool_error", "std", [np.array([True, False])], error="ErrDType", params={"ddof": 0, "axes": None}, rule="pytorch (NumPy: F64)")
case("var_axis_oob", "var", [v], error="ErrAxis", params={"ddof": 0, "axes": [2]})
vcase("var_transposed", "var", v, "T", lambda a: np.var(a, axis=-1, ddof=1), params={"ddof": 1, "axes": [-1]}, tol=TR)

# --- Repeat (torch.repeat = np.tile with len(reps) >= ndim), Tile, RepeatInterleave ------------
r2 = np.array([[1, 2, 3], [4, 5, 6]], f32)
for reps in ((2, 1), (1, 3), (2, 2), (3, 1, 2), (0, 2), (1, 0)):
    tag = "_".join(map(str, reps))
    case(f"repeat_{tag}", "repeat", [r2], np.tile(r2, reps), params={"reps": list(reps)}, rule="pytorch repeat (np.tile)")
case("repeat_too_few", "repeat", [r2], error="ErrShape", params={"reps": [2]}, rule="pytorch repeat")
case("repeat_0d", "repeat", [s3], np.tile(s3, (2, 3)), params={"reps": [2, 3]}, rule="pytorch repeat (np.tile)")
case("repeat_0d_noreps", "repeat", [s3], np.tile(s3, ()), params={"reps": []}, rule="pytorch repeat (np.tile)")
case("repeat_i64", "repeat", [np.array([I64MIN, 7], i64)], np.tile(np.array([I64MIN, 7], i64), 2), params={"reps": [2]})
case("repeat_bool", "repeat", [bt], np.tile(bt, (2, 1)), params={"reps": [2, 1]})
case("repeat_empty", "repeat", [e03], np.tile(e03, (2, 2)), params={"reps": [2, 2]})
vcase("repeat_transposed", "repeat", r2, "T", lambda a: np.tile(a, (1, 2)), params={"reps": [1, 2]})
for reps in ((2,), (2, 1), (1, 1, 2), (3, 1, 1, 1), (0,), ()):
    tag = "_".join(map(str, reps)) or "none"
    case(f"tile_{tag}", "tile", [r2], np.tile(r2, reps), params={"reps": list(reps)})
case("tile_0d", "tile", [s3], np.tile(s3, 3), params={"reps": [3]})
case("tile_0d_none", "tile", [s3], np.tile(s3, ()), params={"reps": []})
case("tile_1d_2reps", "tile", [np.array([1, 2], i32)], np.tile(np.array([1, 2], i32), (2, 2)), params={"reps": [2, 2]})
case("tile_empty", "tile", [e0], np.tile(e0, 3), params={"reps": [3]})
case("tile_nan", "tile", [np.array([nan, -0.0], f32)], np.tile(np.array([nan, -0.0], f32), 2), params={"reps": [2]})
vcase("tile_strided", "tile", np.arange(8, dtype=f32).reshape(2, 4), "step2", lambda a: np.tile(a, 2), params={"reps": [2]})
assert raises(lambda: np.tile(r2, -1))
for nm in ("tile", "repeat"):
    case(f"{nm}_negative", nm, [r2], error="ErrValue", params={"reps": [1, -1]}, rule="numpy raises ValueError")
for rep, ax in ((2, -1), (2, 0), (0, 1), (1, 0), (3, -2)):
    case(f"repeat_interleave_{rep}_ax{ax}", "repeat_interleave", [r2], np.repeat(r2, rep, axis=ax), params={"repeats": rep, "axis": ax})
case("repeat_interleave_1d", "repeat_interleave", [np.array([nan, -0.0, 5], f32)], np.repeat(np.array([nan, -0.0, 5], f32), 2), params={"repeats": 2, "axis": 0})
case("repeat_interleave_i32", "repeat_interleave", [np.array([-2**31, 9], i32)], np.repeat(np.array([-2**31, 9], i32), 3), params={"repeats": 3, "axis": 0})
case("repeat_interleave_bool", "repeat_interleave", [bt], np.repeat(bt, 2), params={"repeats": 2, "axis": 0})
case("repeat_interleave_0d", "repeat_interleave", [s3], np.repeat(s3, 2, axis=0), params={"repeats": 2, "axis": 0}, rule="numpy (a 0-d tensor repeats as a 1-element vector)")
case("repeat_interleave_0d_neg1", "repeat_interleave", [np.array(True)], np.repeat(np.array(True), 3, axis=-1), params={"repeats": 3, "axis": -1}, rule="numpy (a 0-d tensor repeats as a 1-element vector)")
case("repeat_interleave_0d_zero", "repeat_interleave", [s3], np.repeat(s3, 0, axis=0), params={"repeats": 0, "axis": 0}, rule="numpy")
case("repeat_interleave_0d_axis1", "repeat_interleave", [s3], error="ErrAxis", params={"repeats": 2, "axis": 1})
case("repeat_interleave_empty", "repeat_interleave", [e03], np.repeat(e03, 2, axis=0), params={"repeats": 2, "axis": 0})
case("repeat_interleave_axis_oob", "repeat_interleave", [r2], error="ErrAxis", params={"repeats": 2, "axis": 2})
assert raises(lambda: np.repeat(r2, -1, axis=0))
case("repeat_interleave_negative", "repeat_interleave", [r2], error="ErrValue", params={"repeats": -1, "axis": 0})
vcase("repeat_interleave_transposed", "repeat_interleave", r2, "T", lambda a: np.repeat(a, 2, axis=-1), params={"repeats": 2, "axis": -1})

# --- Roll ---------------------------------------------------------------------------------------
ro = np.arange(12, dtype=f32).reshape(3, 4)
for sh, axes in ((1, [1]), (-1, [1]), (5, [-1]), (-9, [1]), (0, [0]), (4, [1]), (1, [0, 1]), (2, None), (-13, None), (14, None)):
    tag = f"{sh}_" + ("flat" if axes is None else "_".join(map(str, axes)))
    case(f"roll_{tag}", "roll", [ro], np.roll(ro, sh, axis=None if axes is None else tuple(axes)), params={"shift": sh, "axes": axes})
case("roll_repeated_axis", "roll", [ro], np.roll(ro, 1, axis=(1, 1)), params={"shift": 1, "axes": [1, -1]}, rule="numpy (a repeated axis rolls twice)")
case("roll_empty", "roll", [e03], np.roll(e03, 1, axis=0), params={"shift": 1, "axes": [0]})
case("roll_empty_flat", "roll", [e03], np.roll(e03, 2), params={"shift": 2, "axes": None})
case("roll_0d", "roll", [s3], np.roll(s3, 1), params={"shift": 1, "axes": None})
case("roll_i64", "roll", [np.array([I64MIN, 1, 2], i64)], np.roll(np.array([I64MIN, 1, 2], i64), 1), params={"shift": 1, "axes": [0]})
case("roll_axis_oob", "roll", [ro], error="ErrAxis", params={"shift": 1, "axes": [2]})
vcase("roll_transposed", "roll", ro, "T", lambda a: np.roll(a, 1, axis=-1), params={"shift": 1, "axes": [-1]})
vcase("roll_transposed_flat", "roll", ro, "T", lambda a: np.roll(a, 5), params={"shift": 5, "axes": None})

# --- Split / Chunk (PyTorch: sizes, and ceil(extent/n) chunks) -----------------------------------
sp = np.arange(14, dtype=f32).reshape(2, 7)


def torch_split(a, sizes, axis):
    cuts = np.cumsum(sizes)[:-1]
    return np.split(a, cuts, axis=axis)


def torch_chunk(a, n, axis):
    ext = a.shape[axis]
    if ext == 0:
        return [a] * n  # tessera doc: an empty axis gives n empty pieces
    size = -(-ext // n)
    cuts = list(range(size, ext, size))
    return np.split(a, cuts, axis=axis)


for sizes, ax in (([2, 5], 1), ([7], -1), ([0, 3, 4], 1), ([1, 1], 0), ([3, 0, 4], -1)):
    pieces = torch_split(sp, sizes, ax)
    for i, pc in enumerate(pieces):
        case(f"split_{'_'.join(map(str, sizes))}_ax{ax}_piece{i}", "split", [sp], pc, params={"sizes": sizes, "axis": ax, "piece": i, "pieces": len(pieces)}, rule="pytorch split (list of sizes)")
case("split_bad_sum", "split", [sp], error="ErrShape", params={"sizes": [2, 4], "axis": 1, "piece": 0, "pieces": 2})
case("split_negative", "split", [sp], error="ErrShape", params={"sizes": [-1, 8], "axis": 1, "piece": 0, "pieces": 2})
case("split_axis_oob", "split", [sp], error="ErrAxis", params={"sizes": [7], "axis": 2, "piece": 0, "pieces": 1})
for n, ax in ((3, 1), (4, 1), (7, 1), (10, 1), (1, 1), (2, 0), (3, 0)):
    pieces = torch_chunk(sp, n, ax)
    for i, pc in enumerate(pieces):
        case(f"chunk_{n}_ax{ax}_piece{i}", "chunk", [sp], pc, params={"n": n, "axis": ax, "piece": i, "pieces": len(pieces)}, rule="pytorch chunk")
six = np.arange(6, dtype=f32)
for i, pc in enumerate(torch_chunk(six, 4, 0)):  # the doc's example: 3 pieces of 2
    case(f"chunk_6_in_4_piece{i}", "chunk", [six], pc, params={"n": 4, "axis": 0, "piece": i, "pieces": 3}, rule="pytorch chunk")
for i, pc in enumerate(torch_chunk(e03, 3, 0)):
    case(f"chunk_empty_piece{i}", "chunk", [e03], pc, params={"n": 3, "axis": 0, "piece": i, "pieces": 3}, rule="tessera doc: n empty pieces")
case("chunk_zero", "chunk", [sp], error="ErrValue", params={"n": 0, "axis": 0, "piece": 0, "pieces": 1})
vcase("split_transposed_piece1", "split", sp, "T", lambda a: torch_split(a, [3, 4], 0)[1], params={"sizes": [3, 4], "axis": 0, "piece": 1, "pieces": 2})

# --- Tril / Triu ------------------------------------------------------------------------------------
tr = np.arange(1, 13, dtype=f32).reshape(3, 4)
for k in (0, 1, -1, 2, -2, 5, -5):
    case(f"tril_k{k}", "tril", [tr], np.tril(tr, k), params={"k": k})
    case(f"triu_k{k}", "triu", [tr], np.triu(tr, k), params={"k": k})
tb = np.arange(24, dtype=f32).reshape(2, 4, 3) - 10
tn = np.array([[nan, nan], [-0.0, inf]], f32)
for nm, fn in (("tril", np.tril), ("triu", np.triu)):
    case(f"{nm}_batch", nm, [tb], fn(tb, -1), params={"k": -1})
    case(f"{nm}_nan_zeroed", nm, [tn], fn(tn), params={"k": 0})
    case(f"{nm}_i32", nm, [np.array([[1, -2], [-3, 4]], i32)], fn(np.array([[1, -2], [-3, 4]], i32)), params={"k": 0})
    case(f"{nm}_bool", nm, [np.ones((2, 3), b_)], fn(np.ones((2, 3), b_), 1), params={"k": 1})
    case(f"{nm}_empty", nm, [e03], fn(e03), params={"k": 0})
    case(f"{nm}_1d", nm, [np.array([1, 2, 3], f32)], error="ErrShape", params={"k": 0}, rule="pytorch (NumPy broadcasts a 1-D input to a matrix)")
    vcase(f"{nm}_transposed", nm, tr, "T", lambda a: fn(a, 1), params={"k": 1})

# --- Diag / DiagEmbed / Trace ---------------------------------------------------------------------------
d1 = np.array([1, nan, -0.0], f32)
for k in (0, 2, -1):
    case(f"diag_1d_k{k}", "diag", [d1], np.diag(d1, k), params={"k": k})
for k in (0, 1, -1, 3, -2, 4, -3):
    case(f"diag_2d_k{k}", "diag", [tr], np.diag(tr, k), params={"k": k})
case("diag_empty_1d", "diag", [e0], np.diag(e0), params={"k": 0})
case("diag_empty_1d_k2", "diag", [e0], np.diag(e0, 2), params={"k": 2})
case("diag_i32", "diag", [np.array([5, -7], i32)], np.diag(np.array([5, -7], i32)), params={"k": 0})
case("diag_bool", "diag", [bt], np.diag(bt, -1), params={"k": -1})
assert raises(lambda: np.diag(s3)) and raises(lambda: np.diag(tb))
case("diag_0d", "diag", [s3], error="ErrShape", params={"k": 0})
case("diag_3d", "diag", [tb], error="ErrShape", params={"k": 0})
vcase("diag_transposed", "diag", tr, "T", lambda a: np.diag(a, 1), params={"k": 1})
vcase("diag_strided_1d", "diag", np.array([1, 2, 3, 4, 5], f32), "step2", lambda a: np.diag(a, 1), params={"k": 1})


def diag_embed(a, k):
    n = a.shape[-1] + abs(k)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    for i in range(a.shape[-1]):
        r, c = (i, i + k) if k >= 0 else (i - k, i)
        out[..., r, c] = a[..., i]
    return out


de = np.array([[1, 2], [nan, -0.0], [3, 4]], f32)
for k in (0, 1, -2):
    case(f"diag_embed_k{k}", "diag_embed", [de], diag_embed(de, k), params={"k": k}, rule="pytorch diag_embed")
case("diag_embed_1d", "diag_embed", [np.array([1, 2, 3], i32)], diag_embed(np.array([1, 2, 3], i32), 0), params={"k": 0}, rule="pytorch diag_embed")
case("diag_embed_empty", "diag_embed", [np.zeros((2, 0), f32)], diag_embed(np.zeros((2, 0), f32), 1), params={"k": 1}, rule="pytorch diag_embed")
vcase("diag_embed_transposed", "diag_embed", de, "T", lambda a: diag_embed(a, 0), params={"k": 0}, rule="pytorch diag_embed")
case("trace_square", "trace", [np.arange(9, dtype=f32).reshape(3, 3)], np.trace(np.arange(9, dtype=f32).reshape(3, 3)))
case("trace_wide", "trace", [tr], np.trace(tr))
case("trace_tall", "trace", [tr.T.copy()], np.trace(tr.T))
case("trace_batch", "trace", [tb], np.trace(tb, axis1=-2, axis2=-1))
case("trace_nan", "trace", [tn], np.trace(tn))
case("trace_i32", "trace", [np.array([[2**31 - 1, 0], [0, 2**31 - 1]], i32)], np.trace(np.array([[2**31 - 1, 0], [0, 2**31 - 1]], i32)))
case("trace_u8", "trace", [np.array([[200, 0], [0, 100]], u8)], np.trace(np.array([[200, 0], [0, 100]], u8), dtype=i64), rule="pytorch (I64; NumPy: uint64)")
case("trace_bool", "trace", [np.ones((2, 2), b_)], np.trace(np.ones((2, 2), b_)))
case("trace_i64", "trace", [np.array([[2**40, 1], [1, -3]], i64)], np.trace(np.array([[2**40, 1], [1, -3]], i64)))
case("trace_empty", "trace", [e03], np.trace(e03))
case("trace_empty_batch", "trace", [np.zeros((0, 2, 2), f32)], np.trace(np.zeros((0, 2, 2), f32), axis1=-2, axis2=-1))
assert raises(lambda: np.trace(np.array([1, 2], f32)))
case("trace_0d", "trace", [s3], error="ErrShape")
case("tril_0x0", "tril", [np.zeros((0, 0), f32)], np.tril(np.zeros((0, 0), f32)), params={"k": -3})
case("pad_constant_i32_fraction", "pad", [np.array([1, 2], i32)], np.pad(np.array([1, 2], i32), (1, 1), constant_values=2.7), params={"widths": [[1, 1]], "mode": "constant", "value": 2.7}, rule="numpy (the value cast to the dtype: truncated)")
case("split_0d", "split", [s3], error="ErrAxis", params={"sizes": [1], "axis": 0, "piece": 0, "pieces": 1}, rule="pytorch (a 0-d tensor has no axis to split)")
case("trace_1d", "trace", [np.array([1, 2], f32)], error="ErrShape")
vcase("trace_transposed", "trace", tr, "T", np.trace)

# --- Pad --------------------------------------------------------------------------------------------------
pm = np.array([[1, 2, 3], [4, 5, 6]], f32)
NPMODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}
for mode in ("constant", "reflect", "replicate"):
    for w in (((0, 0), (2, 2)), ((1, 1), (0, 1)), ((1, 0), (2, 0)), ((0, 0), (0, 0))):
        tag = "_".join(f"{a}{b}" for a, b in w)
        kw = {"constant_values": 7} if mode == "constant" else {}
        case(f"pad_{mode}_{tag}", "pad", [pm], np.pad(pm, w, NPMODE[mode], **kw), params={"widths": [list(x) for x in w], "mode": mode, "value": 7})
    vcase(f"pad_{mode}_transposed", "pad", pm, "T", lambda a, m=mode: np.pad(a, ((1, 1), (1, 0)), NPMODE[m], **({"constant_values": 7} if m == "constant" else {})),
          params={"widths": [[1, 1], [1, 0]], "mode": mode, "value": 7})
    case(f"pad_{mode}_i32", "pad", [np.array([-2**31, 5, 9], i32)], np.pad(np.array([-2**31, 5, 9], i32), (2, 1), NPMODE[mode], **({"constant_values": -3} if mode == "constant" else {})),
         params={"widths": [[2, 1]], "mode": mode, "value": -3})
    case(f"pad_{mode}_nan", "pad", [np.array([nan, -0.0, inf], f32)], np.pad(np.array([nan, -0.0, inf], f32), (2, 2), NPMODE[mode], **({"constant_values": 0} if mode == "constant" else {})),
         params={"widths": [[2, 2]], "mode": mode, "value": 0})
    case(f"pad_{mode}_0d", "pad", [s3], s3, params={"widths": [], "mode": mode, "value": 0})
    case(f"pad_{mode}_negative", "pad", [pm], error="ErrValue", params={"widths": [[0, 0], [-1, 0]], "mode": mode, "value": 0}, rule="numpy raises ValueError")
    case(f"pad_{mode}_wrong_rank", "pad", [pm], error="ErrShape", params={"widths": [[1, 1]], "mode": mode, "value": 0}, rule="tessera doc: len(widths) must be the rank")
case("pad_constant_nan_value", "pad", [pm], np.pad(pm, ((0, 0), (1, 1)), constant_values=nan), params={"widths": [[0, 0], [1, 1]], "mode": "constant", "value": "nan"})
case("pad_constant_negzero_value", "pad", [np.array([1], f32)], np.pad(np.array([1], f32), (1, 1), constant_values=-0.0), params={"widths": [[1, 1]], "mode": "constant", "value": "-0"})
case("pad_constant_empty_axis", "pad", [e03], np.pad(e03, ((2, 1), (0, 0)), constant_values=4), params={"widths": [[2, 1], [0, 0]], "mode": "constant", "value": 4})
case("pad_constant_u8", "pad", [np.array([1, 2], u8)], np.pad(np.array([1, 2], u8), (1, 1), constant_values=255), params={"widths": [[1, 1]], "mode": "constant", "value": 255})
case("pad_constant_bool", "pad", [bt], np.pad(bt, (1, 1), constant_values=True), params={"widths": [[1, 1]], "mode": "constant", "value": 1})
case("pad_reflect_max_width", "pad", [np.array([1, 2, 3], f32)], np.pad(np.array([1, 2, 3], f32), (2, 2), "reflect"), params={"widths": [[2, 2]], "mode": "reflect", "value": 0})
case("pad_reflect_too_wide", "pad", [np.array([1, 2, 3], f32)], error="ErrValue", params={"widths": [[3, 0]], "mode": "reflect", "value": 0}, rule="tessera doc: each width below the extent (NumPy reflects repeatedly)")
case("pad_reflect_one", "pad", [np.array([[1], [2]], f32)], error="ErrValue", params={"widths": [[0, 0], [1, 0]], "mode": "reflect", "value": 0}, rule="tessera doc: each width below the extent (NumPy repeats the element)")
case("pad_replicate_width_past_extent", "pad", [np.array([1, 2], f32)], np.pad(np.array([1, 2], f32), (5, 3), "edge"), params={"widths": [[5, 3]], "mode": "replicate", "value": 0})
assert raises(lambda: np.pad(e03, ((1, 0), (0, 0)), "edge"))
case("pad_replicate_empty_axis", "pad", [e03], error="ErrValue", params={"widths": [[1, 0], [0, 0]], "mode": "replicate", "value": 0}, rule="numpy raises ValueError")
case("pad_reflect_empty_axis_zero_width", "pad", [e03], np.pad(e03, ((0, 0), (1, 1)), "reflect"), params={"widths": [[0, 0], [1, 1]], "mode": "reflect", "value": 0})

# --- ScatterAdd (np.add.at along an axis), OneHot --------------------------------------------------------


def scatter_add(t, axis, idx, src):
    out = t.copy()
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[axis] = idx[pos]
        np.add.at(out, tuple(tgt), src[pos])
    return out


st = np.zeros((3, 4), f32)
sidx = np.array([[0, 1, 2, 0], [0, 0, 2, 2]], i64)
ssrc = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], f32)
case("scatter_add_axis0", "scatter_add", [st, sidx, ssrc], scatter_add(st, 0, sidx, ssrc), params={"axis": 0}, rule="torch.scatter_add (np.add.at)")
sidx1 = np.array([[3, 3, 0], [1, 1, 1], [0, 2, 3]], i32)
ssrc1 = np.array([[1, 2, 3], [4, 5, 6], [nan, -0.0, inf]], f32)
st1 = np.arange(12, dtype=f32).reshape(3, 4)
case("scatter_add_axis1_repeats", "scatter_add", [st1, sidx1, ssrc1], scatter_add(st1, 1, sidx1, ssrc1), params={"axis": -1}, rule="torch.scatter_add (np.add.at)")
case("scatter_add_smaller_src", "scatter_add", [st1, np.array([[2], [0]], i64), np.array([[10], [20]], f32)],
     scatter_add(st1, 1, np.array([[2], [0]], i64), np.array([[10], [20]], f32)), params={"axis": 1}, rule="torch.scatter_add")
case("scatter_add_i32", "scatter_add", [np.array([2**31 - 1, 0], i32), np.array([0, 0, 1], i64), np.array([1, 5, -3], i32)],
     scatter_add(np.array([2**31 - 1, 0], i32), 0, np.array([0, 0, 1], i64), np.array([1, 5, -3], i32)), params={"axis": 0}, rule="torch.scatter_add (wraps)")
case("scatter_add_u8_wraps", "scatter_add", [np.array([250, 0], u8), np.array([0, 0, 1], i64), np.array([5, 5, 255], u8)],
     scatter_add(np.array([250, 0], u8), 0, np.array([0, 0, 1], i64), np.array([5, 5, 255], u8)), params={"axis": 0}, rule="tessera doc: U8 wraps")
case("scatter_add_empty_idx", "scatter_add", [st1, np.zeros((0, 4), i64), np.zeros((0, 4), f32)], st1, params={"axis": 0})
case("scatter_add_oob", "scatter_add", [st1, np.array([[4]], i64), np.array([[1]], f32)], error="ErrAxis", params={"axis": 1}, rule="tessera doc (as Gather)")
case("scatter_add_negative", "scatter_add", [st1, np.array([[-1]], i64), np.array([[1]], f32)], error="ErrAxis", params={"axis": 1}, rule="pytorch (an error; np.add.at would wrap)")
case("scatter_add_dtype_mismatch", "scatter_add", [st1, np.array([[0]], i64), np.array([[1]], f64)], error="ErrDType", params={"axis": 1}, rule="tessera doc: src has t's dtype")
case("scatter_add_float_idx", "scatter_add", [st1, np.array([[0]], f32), np.array([[1]], f32)], error="ErrDType", params={"axis": 1}, rule="tessera doc: idx is I32 or I64")
case("scatter_add_src_too_big", "scatter_add", [np.zeros((2, 2), f32), np.zeros((3, 2), i64), np.ones((3, 2), f32)],
     scatter_add(np.zeros((2, 2), f32), 0, np.zeros((3, 2), i64), np.ones((3, 2), f32)), params={"axis": 0}, rule="torch.scatter_add (the scatter axis may be longer)")
case("scatter_add_other_axis_too_big", "scatter_add", [np.zeros((2, 2), f32), np.zeros((1, 3), i64), np.ones((1, 3), f32)], error="ErrShape", params={"axis": 0}, rule="tessera doc: at most t's extent on the other axes")


def one_hot(lab, n, dt):
    return (np.asarray(lab)[..., None] == np.arange(n)).astype(dt)


ol = np.array([0, 2, 1, 2], i64)
case("one_hot", "one_hot", [ol], one_hot(ol, 3, f32), params={"classes": 3}, rule="pytorch one_hot (F32 here; torch: int64)")
case("one_hot_extra_classes", "one_hot", [ol], one_hot(ol, 5, f32), params={"classes": 5}, rule="pytorch one_hot")
case("one_hot_2d_i32", "one_hot", [np.array([[0, 1], [1, 0]], i32)], one_hot(np.array([[0, 1], [1, 0]], i32), 2, f32), params={"classes": 2}, rule="pytorch one_hot")
case("one_hot_0d", "one_hot", [np.array(1, i64)], one_hot(np.array(1, i64), 3, f32), params={"classes": 3}, rule="pytorch one_hot")
case("one_hot_empty", "one_hot", [np.zeros((0,), i64)], one_hot(np.zeros((0,), i64), 3, f32), params={"classes": 3}, rule="pytorch one_hot")
case("one_hot_u8", "one_hot", [np.array([2, 0], u8)], one_hot(np.array([2, 0], u8), 3, f32), params={"classes": 3}, rule="pytorch one_hot")
case("one_hot_zero_classes", "one_hot", [np.zeros((0,), i64)], one_hot(np.zeros((0,), i64), 0, f32), params={"classes": 0}, rule="pytorch one_hot")
case("one_hot_zero_classes_label", "one_hot", [np.array([0], i64)], error="ErrValue", params={"classes": 0}, rule="pytorch one_hot (an error)")
case("one_hot_too_big", "one_hot", [ol], error="ErrValue", params={"classes": 2}, rule="pytorch one_hot (an error)")
case("one_hot_negative", "one_hot", [np.array([0, -1], i64)], error="ErrValue", params={"classes": 3}, rule="pytorch one_hot (an error)")
for dn, dt in (("i64", i64), ("bool", b_), ("u8", u8), ("f64", f64), ("i32", i32)):
    case(f"one_hot_as_{dn}", "one_hot_as", [ol], one_hot(ol, 3, dt), params={"classes": 3, "dtype": dn})
vcase("one_hot_strided", "one_hot", np.array([2, 9, 0, 9, 1], i64), "step2", lambda a: one_hot(a, 3, f32), params={"classes": 3}, rule="pytorch one_hot")

# --- Arange / Linspace (constructors: CPU tensors) --------------------------------------------------------
for args, dn, dt in (((0, 1, 0.1), "f64", f64), ((1, 1.3, 0.1), "f64", f64), ((1, 0, -0.25), "f64", f64), ((0, 5, 1.5), "f64", f64),
                     ((0, 1, 0.1), "f32", f32), ((-1, 1, 0.5), "f32", f32), ((3, 3, 1), "f32", f32), ((5, 0, 1), "f32", f32),
                     ((0, 10, 3), "i32", i32), ((5, -5, -3), "i64", i64), ((-3, 3, 1), "i32", i32), ((0, 1, 2), "i64", i64),
                     ((0, 256, 64), "u8", u8), ((10, 0.5, -2.5), "f64", f64), ((0, 0.3, 0.1), "f64", f64), ((-0.5, 0.5, 0.25), "f64", f64)):
    tag = "_".join(str(x) for x in args).replace(".", "p").replace("-", "m")
    want = np.arange(*args, dtype=dt)
    exact = dt not in (f32, f64) or all(float(x).is_integer() or float(x * 4).is_integer() for x in args)
    case(f"arange_{dn}_{tag}", "arange", [], want, params={"dtype": dn, "start": args[0], "stop": args[1], "step": args[2]}, tol=0 if exact else 1e-6)
for args in ((0, 1, 0), (0, "nan", 1), (0, "inf", 1), ("-inf", 0, 1), (0, 1, "inf")):
    tag = "_".join(str(x) for x in args)
    case(f"arange_error_{tag}", "arange", [], error="ErrValue", params={"dtype": "f32", "start": args[0], "stop": args[1], "step": args[2]}, rule="tessera doc (NumPy raises for 0 and NaN/Inf lengths)")
for (a0, a1, n), dn, dt in (((0, 1, 5), "f32", f32), ((1, 0, 4), "f64", f64), ((2, 3, 1), "f32", f32), ((0, 1, 0), "f32", f32),
                            ((-1, 1, 7), "f64", f64), ((0, 1, 2), "f64", f64), ((5, 5, 3), "f32", f32), ((0, 1, 10), "f32", f32),
                            ((0, 10, 4), "i32", i32), ((0, 100, 3), "i64", i64), ((-10, 0, 4), "i32", i32), ((10, -10, 4), "i64", i64), ((0, 255, 4), "u8", u8),
                            ((0.5, 2.5, 3), "i32", i32), ((-2.5, 2.5, 6), "i64", i64), ((0, 1, 7), "i32", i32), ((-1, 0, 7), "i32", i32), ((-0.5, -0.5, 2), "i32", i32)):
    want = np.linspace(a0, a1, n, dtype=dt)
    exact = dt not in (f32, f64) or n <= 2 or (a1 - a0) % (n - 1) == 0 and (a1 - a0) // (n - 1) in (0, 1, 2, 4, 8)
    rule = "numpy (integer dtypes take the floor of the float values, NumPy >= 1.20)" if dt in (i32, i64, u8) else "numpy"
    case(f"linspace_{dn}_{a0}_{a1}_{n}".replace("-", "m"), "linspace", [], want, params={"dtype": dn, "start": a0, "stop": a1, "n": n}, tol=0 if exact else 1e-6, rule=rule)
case("linspace_negative_n", "linspace", [], error="ErrShape", params={"dtype": "f32", "start": 0, "stop": 1, "n": -1})
case("linspace_nan", "linspace", [], error="ErrValue", params={"dtype": "f32", "start": "nan", "stop": 1, "n": 3})
case("linspace_inf", "linspace", [], error="ErrValue", params={"dtype": "f32", "start": 0, "stop": "inf", "n": 3})

# --- special values of the float functions -----------------------------------------------------------------


def f64ref(fn, x, dt=f32):
    """fn on x in float64 (NumPy's float32 loops may be one ulp off), cast."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(np.asarray(x, f64))).astype(dt)


SPECIAL = np.array([nan, inf, -inf, 0.0, -0.0], f32)
UN = {
    "log1p": (np.log1p, [1e-7, -1e-7, 1, -0.5, -1, -2, 1e30, 3]),
    "expm1": (np.expm1, [1e-7, -1e-7, 1, -1, 88, 89, -100, 10]),
    "log2": (np.log2, [8, 0.125, -1, 1, 1e-30, 3e38, 10]),
    "log10": (np.log10, [1000, 0.001, -1, 1, 1e-30, 7]),
    "exp2": (np.exp2, [3, -3, 0.5, 128, 127.5, -126, -160, 10]),
    "sinh": (np.sinh, [1e-7, -1e-7, 1, -1, 89, 90, -90, 10]),
    "cosh": (np.cosh, [1e-7, 1, -1, 89, 90, -90, 10]),
    "tan": (np.tan, [1e-7, -1e-7, 1, -1, 1.5, -1.5, 0.5]),
    "asin": (np.arcsin, [1, -1, 0.5, -0.5, 1.0000001, -2, 1e-7]),
    "acos": (np.arccos, [1, -1, 0.5, -0.5, 1.0000001, -2, 1e-7]),
    "atan": (np.arctan, [1, -1, 1e-7, -1e-7, 1e30, -1e30, 0.5]),
    "log": (np.log, [1, 2, -1, 1e-30, 3e38, 0.5]),
    "sin": (np.sin, [1e-7, -1e-7, 1, -1, 3, 0.5]),
    "cos": (np.cos, [1e-7, 1, -1, 3, 0.5]),
    "tanh": (np.tanh, [1e-7, -1e-7, 1, -1, 10, -10, 20, 0.5]),
    "exp": (np.exp, [88, 89, -87, -110, 1, -1]),
}
for nm, (fn, vals) in UN.items():
    # the special values are exact (signed zeros checked), the others within TR
    case(f"{nm}_special", nm, [SPECIAL], f64ref(fn, SPECIAL))
    x = np.array(vals, f32)
    case(f"{nm}_values", nm, [x], f64ref(fn, x), tol=TR)
    case(f"{nm}_f64", nm, [x.astype(f64)], fn(x.astype(f64)), tol=1e-12)
    if nm != "exp":  # exp_empty is above
        case(f"{nm}_empty", nm, [e03], fn(e03))
for nm in ("log2", "exp2", "log1p"):
    xi = np.array([8, 0, -1, 1], i32)
    case(f"{nm}_i32", nm, [xi], f64ref(UN[nm][0], xi), tol=TR, rule="pytorch (F32; NumPy: F64)")


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softplus(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def hardswish(x):
    return x * np.minimum(np.maximum(x + 3, 0), 6) / 6


def silu(x):
    return x * sigmoid(x)


def gelu(x):
    erf = np.vectorize(math.erf, otypes=[f64])
    return x / 2 * (1 + erf(x / math.sqrt(2)))


ACT = {
    "sigmoid": (sigmoid, [nan, inf, -inf, 0.0, -0.0, 100, -80, -50, 20, 40, 1e-7]),
    "softplus": (softplus, [nan, inf, -inf, 0.0, -0.0, 100, -80, -50, 20, 1e-7, -1e-7, 1]),
    "silu": (silu, [nan, inf, 0.0, 100, -80, -50, 20, 1e-7, 1, -1]),
    "gelu": (gelu, [nan, inf, 0.0, 100, -5, -10, 20, 1e-7, 1, -1]),
    "elu": (lambda x: np.where(x > 0, x, np.expm1(x)), [nan, inf, -inf, 100, -100, -1e-7, 1e-7, 1, -1, 0.0]),
    "hardswish": (hardswish, [nan, inf, 0.0, 3, -3, 6, -5, 1, -1, 2.5]),
    "relu": (lambda x: np.maximum(x, 0) + 0.0, [nan, inf, -inf, 0.0, -0.0, -1, 1]),
    "tanh": (np.tanh, [nan, inf, -inf, 0.0, -0.0, 1e-7, 10]),
}
for nm, (fn, vals) in ACT.items():
    x = np.array(vals, f32)
    exact = [i for i, v in enumerate(vals) if not math.isfinite(v) or v == 0 or v >= 40 and nm not in ("sigmoid", "softplus")]
    rest = [i for i in range(len(vals)) if i not in exact]
    if exact:
        case(f"{nm}_act_exact", nm, [x[exact]], f64ref(fn, x[exact]), params={"alpha": 1})
    case(f"{nm}_act_values", nm, [x[rest]], f64ref(fn, x[rest]), tol=TR, params={"alpha": 1})
# the activations' signed zeros and -Inf, from their doc comments
case("silu_neginf", "silu", [np.array([-inf], f32)], np.array([-0.0], f32), rule="tessera doc: Silu(-Inf) is -0, the limit")
case("relu_negzero", "relu", [np.array([-0.0, -inf], f32)], np.array([0.0, 0.0], f32), rule="tessera doc: -0 gives +0")
case("elu_negzero", "elu", [np.array([-0.0], f32)], np.array([-0.0], f32), params={"alpha": 1}, rule="pytorch elu: alpha*expm1(-0) = -0")
case("elu_alpha", "elu", [np.array([-inf, -1, 2, -0.5], f32)], f64ref(lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), np.array([-inf, -1, 2, -0.5], f32)), params={"alpha": 0.5}, tol=TR)
for slope in (0.01, 0.2, 0):
    lx = np.array([nan, inf, -inf, 0.0, -0.0, -2, 3], f32)
    case(f"leaky_relu_{slope}".replace(".", "p"), "leaky_relu", [lx], np.where(lx > 0, lx, lx * f32(slope)) if slope else np.where(lx > 0, lx, lx * f32(0)),
         params={"slope": slope}, rule="pytorch leaky_relu (doc: -0 gives -0*slope)")
case("hardswish_neginf", "hardswish", [np.array([-inf], f32)], hardswish(np.array([-inf], f32)), rule="tessera doc formula: -Inf * 0 is NaN (torch agrees)")
# Not here: Gelu(-Inf). The doc's formula x/2 * (1 + erf(x/sqrt 2)) and
# torch.gelu give NaN (-Inf * 0); tessera gives -0, the limit (as its Silu
# documents for Silu(-Inf)), and documents neither.
case("hardswish_negzero", "hardswish", [np.array([-0.0, -3, -5], f32)], hardswish(np.array([-0.0, -3, -5], f32)), rule="tessera doc formula t*min(max(t+3,0),6)/6 (gives -0; torch agrees)")
case("sigmoid_i32", "sigmoid", [np.array([0, 1, -1], i32)], f64ref(sigmoid, np.array([0, 1, -1], f32)), tol=TR, rule="pytorch (F32)")
case("softplus_f64", "softplus", [np.array([-700, 700, 1e-20, -40], f64)], softplus(np.array([-700, 700, 1e-20, -40], f64)), tol=1e-12)
case("sigmoid_f64", "sigmoid", [np.array([-700, 700, -40, 1e-20], f64)], sigmoid(np.array([-700, 700, -40, 1e-20], f64)), tol=1e-12)

# --- PromoteTypes / ResultType ---------------------------------------------------------------------------------
# tessera documents PyTorch's rule (tensor/promote.go): the reference is that
# rule; where NumPy's promote_types / result_type differ the rule says so.
JD = [("bool", b_), ("u8", u8), ("i32", i32), ("i64", i64), ("f32", f32), ("f64", f64)]


def cat(dt):
    return 0 if dt == b_ else 2 if np.dtype(dt).kind == "f" else 1


def torch_promote(x, y):
    if cat(x) == 2 and cat(y) == 1:
        return np.dtype(x)
    if cat(y) == 2 and cat(x) == 1:
        return np.dtype(y)
    return np.promote_types(x, y)


for an, at in JD:
    for bn, btp in JD:
        got = torch_promote(at, btp)
        npv = np.promote_types(at, btp)
        rule = "numpy" if got == npv else f"pytorch promote_types (NumPy: {npv})"
        case(f"promote_types_{an}_{bn}", "promote_types", [np.zeros((0,), at), np.zeros((0,), btp)], np.zeros((0,), got), rule=rule)


def torch_result_type(a, b):
    if a.ndim == 0 and b.ndim > 0 and cat(a.dtype) <= cat(b.dtype):
        return b.dtype
    if b.ndim == 0 and a.ndim > 0 and cat(b.dtype) <= cat(a.dtype):
        return a.dtype
    return torch_promote(a.dtype, b.dtype)


for an, at in JD:
    for bn, btp in JD:
        a0, b0 = np.ones((2,), at), np.array(1, btp)
        got = torch_result_type(a0, b0)
        npv = np.result_type(a0, b0)
        rule = "numpy" if got == npv else f"pytorch result_type (NumPy 1.24: {npv})"
        case(f"result_type_{an}_0d{bn}", "result_type", [a0, b0], np.zeros((0,), got), rule=rule)
for an, at in (("i32", i32), ("f32", f32), ("u8", u8)):
    for bn, btp in (("i64", i64), ("f64", f64), ("bool", b_)):
        a0, b0 = np.array(1, at), np.array(1, btp)
        got = torch_result_type(a0, b0)
        npv = np.result_type(a0, b0)
        rule = "numpy" if got == npv else f"pytorch result_type (NumPy 1.24: {npv})"
        case(f"result_type_0d{an}_0d{bn}", "result_type", [a0, b0], np.zeros((0,), got), rule=rule)

# === coverage extension 2: scans, indexing, linear algebra, nn functional ========
# References are NumPy's results; where tessera documents PyTorch's semantics
# (the nn ops, indexing errors) the reference is PyTorch's documented formula
# computed here in NumPy float64 and cast, and "rule" says so.
LA32, LA64 = 2e-5, 1e-10  # linear algebra / nn: relative (or, for a zero, absolute) tolerance


def clean(a, dt):
    """a in dt with the rounding residue of exact zeros (below 1e-12 of the
    largest magnitude) set to 0, which the test then compares absolutely."""
    a = np.asarray(a, f64)
    big = np.max(np.abs(a[np.isfinite(a)])) if np.isfinite(a).any() else 0
    return np.where(np.abs(a) < 1e-12 * big, 0, a).astype(dt)

# --- CumSum / CumProd: dtypes, NaN, views ------------------------------------------
ci = np.array([[3, -2, 2**30], [2**30, 2**30, -5]], i32)
case("cumsum_i32_axis0", "cumsum", [ci], np.cumsum(ci, axis=0), params={"axis": 0})
case("cumsum_i32_neg1", "cumsum", [ci], np.cumsum(ci, axis=-1), params={"axis": -1})
case("cumprod_i32_neg1", "cumprod", [np.array([[3, -2, 7], [-1, 0, 5]], i32)], np.cumprod(np.array([[3, -2, 7], [-1, 0, 5]], i32), axis=-1), params={"axis": -1})
cbo = np.array([[True, True, False], [False, True, True]])
case("cumsum_bool_axis0", "cumsum", [cbo], np.cumsum(cbo, axis=0), params={"axis": 0})
case("cumprod_bool", "cumprod", [cbo], np.cumprod(cbo, axis=-1), params={"axis": -1})
case("cumsum_bool_empty", "cumsum", [np.zeros((0,), b_)], np.cumsum(np.zeros((0,), b_)), params={"axis": 0})
case("cumprod_i32_empty", "cumprod", [np.zeros((2, 0), i32)], np.cumprod(np.zeros((2, 0), i32), axis=1), params={"axis": 1})
cpn = np.array([2, nan, 3, inf, 0, -1], f32)
case("cumprod_nan", "cumprod", [cpn], np.cumprod(cpn), params={"axis": 0})
case("cumprod_inf_zero", "cumprod", [np.array([inf, 0, 2], f32)], np.cumprod(np.array([inf, 0, 2], f32)), params={"axis": 0})
case("cumsum_inf", "cumsum", [np.array([inf, 1, -inf, 2], f32)], np.cumsum(np.array([inf, 1, -inf, 2], f32)), params={"axis": 0})
case("cumsum_f64", "cumsum", [np.array([1e16, 1, -1e16, 0.5], f64)], np.cumsum(np.array([1e16, 1, -1e16, 0.5], f64)), params={"axis": 0})
case("cumsum_axis_oob", "cumsum", [x23], error="ErrAxis", params={"axis": 2})
case("cumprod_axis_oob", "cumprod", [x23], error="ErrAxis", params={"axis": -3})
cvx = np.array([[1, 2, -3, 4], [5, nan, 7, -8], [0.5, 0.25, 2, 4]], f32)
for vw in ("T", "flip", "step2"):
    vcase(f"cumsum_view_{vw}", "cumsum", cvx, vw, lambda a: np.cumsum(a, axis=-1), params={"axis": -1})
    vcase(f"cumprod_view_{vw}", "cumprod", cvx, vw, lambda a: np.cumprod(a, axis=0), params={"axis": 0})
vcase("cumsum_view_T_i32", "cumsum", np.array([[1, -2, 3], [2**30, 2**30, 2**30]], i32), "T", lambda a: np.cumsum(a, axis=0), params={"axis": 0})
vcase("cumsum_view_step2_u8", "cumsum", np.array([[200, 1, 200, 1, 200]], u8), "step2", lambda a: np.cumsum(a, axis=-1, dtype=i64), params={"axis": -1}, rule="pytorch (NumPy: uint64)")

# --- LogSumExp with ±Inf, axes, keepdims-free -----------------------------------------
lx = np.array([[inf, -inf, 0], [-inf, -inf, 1], [inf, inf, 2], [1, 2, 3]], f32)
case("logsumexp_inf_rows", "logsumexp", [lx], lse(lx, 1).astype(f32), params={"axes": [-1]}, tol=TR)
case("logsumexp_inf_cols", "logsumexp", [lx], lse(lx, 0).astype(f32), params={"axes": [0]}, tol=TR)
case("logsumexp_posinf_neginf", "logsumexp", [np.array([inf, -inf], f32)], np.array(inf, f32), params={"axes": None})
case("logsumexp_empty_axis0", "logsumexp", [e03], np.full(3, -inf, f32), params={"axes": [0]})
case("logsumexp_f64", "logsumexp", [np.array([[-1000, -1000.5], [700, 710]], f64)], lse(np.array([[-1000, -1000.5], [700, 710]], f64), 1), params={"axes": [1]}, tol=1e-12)
case("logsumexp_axis_oob", "logsumexp", [x23], error="ErrAxis", params={"axes": [2]})
vcase("logsumexp_view_T", "logsumexp", lx, "T", lambda a: lse(a, 1).astype(f32), params={"axes": [-1]}, tol=TR)

# --- Norm orders over views and axes; Var/Std ddof ---------------------------------------
nv2 = np.array([[3, -4, 0, 1], [nan, 1, 2, 3], [inf, -1, 0, 0]], f32)
for ordname, o in (("1", 1), ("2", 2), ("inf", inf), ("neginf", -inf), ("0", 0), ("3", 3), ("neg2", -2)):
    case(f"norm_{ordname}_nan_inf", "norm", [nv2], np.linalg.norm(nv2.astype(f64), ord=o, axis=-1).astype(f32), params={"ord": enc(np.array(o, f64))["data"][0], "axes": [-1]}, tol=TR)
    case(f"norm_{ordname}_axis0", "norm", [nv[:, :3]], np.linalg.norm(nv[:, :3].astype(f64), ord=o, axis=0).astype(f32), params={"ord": enc(np.array(o, f64))["data"][0], "axes": [0]}, tol=TR)
case("norm_2_two_axes", "norm", [x23], np.array(np.sqrt(np.sum(x23.astype(f64) ** 2)), f32), params={"ord": 2, "axes": [0, 1]}, tol=TR, rule="pytorch vector_norm over two axes")
case("norm_i32_error", "norm", [np.array([3, 4], i32)], error="ErrDType", params={"ord": 2, "axes": None}, rule="tessera doc: floats only")
case("norm_0d", "norm", [np.array(-3, f32)], np.array(3, f32), params={"ord": 2, "axes": None})
case("norm_f64_large", "norm", [np.array([1e200, 1e200], f64)], np.linalg.norm(np.array([1e200, 1e200], f64)), params={"ord": 2, "axes": None}, tol=1e-12)
vcase("norm_1_view_T", "norm", nv, "T", lambda a: np.linalg.norm(a, ord=1, axis=-1), params={"ord": 1, "axes": [-1]}, tol=TR)
vcase("norm_2_view_step2", "norm", nv, "step2", lambda a: np.linalg.norm(a, axis=-1), params={"ord": 2, "axes": [-1]}, tol=TR)
vd = np.array([[1, 2, 4, 7, -3], [0, 0, 0, 0, 1]], f32)
for ddof in (0, 1, 2):
    vcase(f"var_view_flip_ddof{ddof}", "var", vd, "flip", lambda a: np.var(a, axis=-1, ddof=ddof), params={"ddof": ddof, "axes": [-1]}, tol=TR)
    vcase(f"std_view_step2_ddof{ddof}", "std", vd, "step2", lambda a: np.std(a, axis=-1, ddof=ddof), params={"ddof": ddof, "axes": [-1]}, tol=TR)
case("std_f64_ddof1_keep", "std", [sv2], np.std(sv2, axis=-1, ddof=1, keepdims=True), params={"ddof": 1, "axes": [-1], "keepdims": True}, tol=1e-12)
# a negative ddof divides by N - ddof > N (NumPy; PyTorch's correction alike)
for ddof in (-1, -3):
    vcase(f"var_view_flip_ddofm{-ddof}", "var", vd, "flip", lambda a: np.var(a, axis=-1, ddof=ddof), params={"ddof": ddof, "axes": [-1]}, tol=TR)
    case(f"std_ddofm{-ddof}_all", "std", [vd], np.std(vd, ddof=ddof), params={"ddof": ddof, "axes": None}, tol=TR)

# --- ArgMax / ArgMin keepdims ---------------------------------------------------------------------
am = np.array([[[1, 5, 5], [nan, 0, 2]], [[-inf, -inf, 3], [7, 7, 7]]], f32)
for name, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    for ax in (0, 1, -1):
        case(f"{name}_keep_3d_axis{ax}", name, [am], fn(am, axis=ax, keepdims=True), params={"axis": ax, "keepdims": True})
    case(f"{name}_keep_0d", name, [s3], fn(s3, axis=0, keepdims=True), params={"axis": 0, "keepdims": True}, rule="pytorch (a 0-d tensor is its own axis)")
    case(f"{name}_keep_empty_out", name, [np.zeros((0, 3), f32)], fn(np.zeros((0, 3), f32), axis=1, keepdims=True), params={"axis": 1, "keepdims": True})
    case(f"{name}_keep_axis_oob", name, [x23], error="ErrAxis", params={"axis": 2, "keepdims": True})
    case(f"{name}_u8_keep", name, [np.array([[0, 255, 255], [9, 3, 0]], u8)], fn(np.array([[0, 255, 255], [9, 3, 0]], u8), axis=-1, keepdims=True), params={"axis": -1, "keepdims": True})
    case(f"{name}_i64", name, [np.array([I64MIN, 2**62, -2**62], i64)], fn(np.array([I64MIN, 2**62, -2**62], i64)), params={"axis": 0})
    vcase(f"{name}_view_T", name, am[0], "T", lambda a: fn(a, axis=-1), params={"axis": -1})
    vcase(f"{name}_view_flip_ties", name, np.array([[1, 5, 5, 1]], f32), "flip", lambda a: fn(a, axis=-1), params={"axis": -1})

# --- indexing: Gather, IndexSelect, ScatterAdd, MaskedFill, Where ------------------------------------
g3 = np.arange(24, dtype=f32).reshape(2, 3, 4)
gi = np.array([[[3, 0], [1, 1], [2, 3]], [[0, 0], [3, 2], [1, 0]]], i32)
case("gather_3d_neg1_i32", "gather", [g3, gi], np.take_along_axis(g3, gi, axis=-1), params={"axis": -1})
gi0 = np.array([[[1, 0, 1, 0]], [[0, 0, 1, 1]]], i64)
case("gather_3d_axis0_smaller", "gather", [g3, gi0], np.take_along_axis(g3[:, :1], gi0, axis=0), params={"axis": 0}, rule="torch.gather (idx smaller on the other axes)")
case("gather_empty_idx", "gather", [x23, np.zeros((2, 0), i64)], np.zeros((2, 0), f32), params={"axis": 1})
case("gather_oob", "gather", [x23, np.array([[3], [0]], i64)], error="ErrAxis", params={"axis": 1}, rule="pytorch (an error)")
case("gather_axis_oob", "gather", [x23, np.array([[0], [0]], i64)], error="ErrAxis", params={"axis": 2})
case("gather_float_idx", "gather", [x23, np.array([[0], [0]], f32)], error="ErrDType", params={"axis": 1}, rule="tessera doc: idx is I32 or I64")
case("gather_rank_mismatch", "gather", [x23, np.array([0, 1], i64)], error="ErrShape", params={"axis": 1}, rule="tessera doc: idx has t's rank (torch raises)")
case("gather_other_axis_too_big", "gather", [x23, np.zeros((3, 1), i64)], error="ErrShape", params={"axis": 1}, rule="tessera doc: at most t's extent on other axes (torch raises)")
case("gather_i64_values", "gather", [np.array([[I64MIN, 2**62], [5, -5]], i64), np.array([[1, 1, 0]], i64)],
     np.take_along_axis(np.array([[I64MIN, 2**62], [5, -5]], i64)[:1], np.array([[1, 1, 0]], i64), axis=1), params={"axis": 1})
case("gather_bool", "gather", [bb, np.array([[2, 1], [0, 0]], i64)], np.take_along_axis(bb, np.array([[2, 1], [0, 0]], i64), axis=1), params={"axis": 1})
case("index_select_axis0_repeats", "index_select", [x23, np.array([1, 1, 0, 1], i32)], np.take(x23, [1, 1, 0, 1], axis=0), params={"axis": 0})
case("index_select_empty", "index_select", [x23, np.zeros((0,), i64)], np.take(x23, np.zeros((0,), i64), axis=1), params={"axis": 1})
case("index_select_oob", "index_select", [x23, np.array([0, 3], i64)], error="ErrAxis", params={"axis": 1}, rule="pytorch (an error; np.take raises too)")
case("index_select_axis_oob", "index_select", [x23, np.array([0], i64)], error="ErrAxis", params={"axis": -3})
case("index_select_float_idx", "index_select", [x23, np.array([0], f32)], error="ErrDType", params={"axis": 1}, rule="tessera doc: I32 or I64")
case("index_select_3d_mid", "index_select", [g3, np.array([2, 0], i64)], np.take(g3, [2, 0], axis=1), params={"axis": -2})
case("index_select_u8_values", "index_select", [np.array([[1, 255], [7, 0]], u8), np.array([1, 0, 1], i64)], np.take(np.array([[1, 255], [7, 0]], u8), [1, 0, 1], axis=1), params={"axis": 1})
case("scatter_add_3d_neg1", "scatter_add", [np.zeros((2, 2, 3), f32), np.array([[[2, 2]], [[0, 1]]], i64), np.array([[[1.5, 2.5]], [[-1, 4]]], f32)],
     scatter_add(np.zeros((2, 2, 3), f32), 2, np.array([[[2, 2]], [[0, 1]]], i64), np.array([[[1.5, 2.5]], [[-1, 4]]], f32)), params={"axis": -1}, rule="torch.scatter_add")
case("scatter_add_f64", "scatter_add", [np.array([1e16, 0], f64), np.array([0, 0, 1], i64), np.array([1, 1, 0.5], f64)],
     scatter_add(np.array([1e16, 0], f64), 0, np.array([0, 0, 1], i64), np.array([1, 1, 0.5], f64)), params={"axis": 0}, rule="torch.scatter_add (in index order)")
case("scatter_add_i64", "scatter_add", [np.array([2**62, 0], i64), np.array([0, 0], i64), np.array([2**62, 2**62], i64)],
     scatter_add(np.array([2**62, 0], i64), 0, np.array([0, 0], i64), np.array([2**62, 2**62], i64)), params={"axis": 0}, rule="torch.scatter_add (wraps)")
case("scatter_add_shape_mismatch", "scatter_add", [st1, np.array([[0, 1]], i64), np.array([[1]], f32)], error="ErrShape", params={"axis": 1}, rule="tessera doc: idx and src have one shape")
case("scatter_add_axis_oob", "scatter_add", [st1, np.array([[0]], i64), np.array([[1]], f32)], error="ErrAxis", params={"axis": 2})
# views of the first input with a second input: params "view" (see vcase)
xv = np.arange(12, dtype=f32).reshape(3, 4)
case("gather_view_flip", "gather", [xv, np.array([[0, 3], [1, 1], [2, 0]], i64)], np.take_along_axis(xv[:, ::-1], np.array([[0, 3], [1, 1], [2, 0]], i64), axis=1), params={"axis": 1, "view": "flip"})
case("index_select_view_step2", "index_select", [xv, np.array([1, 0, 1], i64)], np.take(xv[:, ::2], [1, 0, 1], axis=1), params={"axis": -1, "view": "step2"})
case("scatter_add_view_T", "scatter_add", [xv, np.array([[0, 2, 2]], i64), np.array([[1, 2, 3]], f32)], scatter_add(xv.T.copy(), 1, np.array([[0, 2, 2]], i64), np.array([[1, 2, 3]], f32)), params={"axis": 1, "view": "T"}, rule="torch.scatter_add")
case("masked_fill_view_T", "masked_fill", [xv, np.array([True, False, True])], np.where(np.array([True, False, True]), f32(-1), xv.T), params={"value": -1, "view": "T"})
case("where_view_T_cond", "where", [np.array([[True, False, True], [False, False, True]]), np.ones((3, 2), f32), np.zeros((3, 1), f32)], np.where(np.array([[True, False, True], [False, False, True]]).T, f32(1), f32(0)), params={"view": "T"})
mf = np.array([[1, 2, 3], [4, 5, 6]], i32)
case("masked_fill_i32", "masked_fill", [mf, np.array([[True], [False]])], np.where(np.array([[True], [False]]), i32(-7), mf), params={"value": -7})
case("masked_fill_u8", "masked_fill", [mf.astype(u8), np.array([False, True, True])], np.where(np.array([False, True, True]), u8(9), mf.astype(u8)), params={"value": 9})
case("masked_fill_bool", "masked_fill", [bb, np.array([True, False, False])], np.where(np.array([True, False, False]), True, bb), params={"value": 1})
case("masked_fill_inf", "masked_fill", [x23, np.array([[True, False, False], [False, False, True]])], np.where(np.array([[True, False, False], [False, False, True]]), f32(-inf), x23), params={"value": "-inf"})
case("masked_fill_0d_mask", "masked_fill", [x23, np.array(True)], np.full((2, 3), 0.5, f32), params={"value": 0.5})
case("masked_fill_empty", "masked_fill", [e03, np.array([True, False, True])], e03, params={"value": 1})
case("masked_fill_float_mask", "masked_fill", [x23, np.array([1, 0, 1], f32)], error="ErrDType", params={"value": 0}, rule="tessera doc: mask must be Bool (torch raises)")
case("masked_fill_mask_bad_shape", "masked_fill", [x23, np.array([True, False])], error="ErrShape", params={"value": 0})
wc = np.array([[True], [False]])
case("where_broadcast_3way", "where", [wc, np.array([1, 2, 3], f32), np.array(9, f32)], np.where(wc, np.array([1, 2, 3], f32), np.array(9, f32)))
case("where_i32_i64", "where", [np.array([True, False]), np.array([1, 2], i32), np.array([2**40, -1], i64)], np.where(np.array([True, False]), np.array([1, 2], i32), np.array([2**40, -1], i64)))
case("where_u8_i32", "where", [np.array([True, False]), np.array([200, 1], u8), np.array([-1, -2], i32)], np.where(np.array([True, False]), np.array([200, 1], u8), np.array([-1, -2], i32)))
case("where_bool_bool", "where", [np.array([True, False]), np.array([True, True]), np.array([False, False])], np.where(np.array([True, False]), np.array([True, True]), np.array([False, False])))
case("where_bool_f32", "where", [np.array([True, False]), np.array([True, False]), np.array([0.5, 0.5], f32)], np.where(np.array([True, False]), np.array([True, False]), np.array([0.5, 0.5], f32)))
case("where_f32_f64", "where", [np.array([True, False]), np.array([1.5, 2], f32), np.array([0.1, 0.2], f64)], np.where(np.array([True, False]), np.array([1.5, 2], f32), np.array([0.1, 0.2], f64)))
case("where_0d_all", "where", [np.array(False), np.array(1, f32), np.array(2, f32)], np.where(np.array(False), np.array(1, f32), np.array(2, f32)))
case("where_nan_values", "where", [np.array([True, False, True]), np.array([nan, 1, -0.0], f32), np.array([0, nan, 0], f32)], np.where(np.array([True, False, True]), np.array([nan, 1, -0.0], f32), np.array([0, nan, 0], f32)))
case("where_shape_mismatch", "where", [np.array([True, False]), np.ones(3, f32), np.ones(3, f32)], error="ErrShape")
case("where_i32_cond", "where", [np.array([[0], [-3]], i32), np.array([1, 2], u8), np.array([7, 8], u8)], np.where(np.array([[0], [-3]], i32), np.array([1, 2], u8), np.array([7, 8], u8)))

# --- Sort / ArgSort / TopK with NaN and ties -------------------------------------------------------


def desc_order(a):
    """torch.sort(descending=True, stable=True): NaN first, ties in source order."""
    a = np.asarray(a, f64)
    return np.array(sorted(range(len(a)), key=lambda i: (0, 0, i) if math.isnan(a[i]) else (1, -a[i], i)), i64)


tn = np.array([2, nan, 5, 5, -0.0, 0.0, nan, -inf, 5], f32)
case("argsort_desc_nan", "argsort_desc", [tn], desc_order(tn), params={"axis": 0}, rule="pytorch sort(descending, stable): NaN first")
case("sort_desc_nan", "sort_desc", [tn], tn[desc_order(tn)], params={"axis": 0}, rule="pytorch sort(descending): NaN first")
case("sort_indices_nan", "sort_indices", [tn], np.argsort(tn, kind="stable"), params={"axis": 0})
for k in (0, 1, 3, 5, 9):
    case(f"topk_nan_k{k}", "topk_indices", [tn], desc_order(tn)[:k], params={"k": k, "axis": 0}, rule="pytorch topk: NaN largest, ties in index order")
    case(f"topk_values_nan_k{k}", "topk_values", [tn], tn[desc_order(tn)[:k]], params={"k": k, "axis": 0}, rule="pytorch topk")
    case(f"topk_smallest_nan_k{k}", "topk_indices_smallest", [tn], np.argsort(tn, kind="stable")[:k], params={"k": k, "axis": 0}, rule="pytorch topk(largest=False): NaN last")
t2 = np.array([[3, 1, 3, nan], [0, 0, -1, 0]], f32)
case("topk_2d_axis0", "topk_indices", [t2], np.stack([desc_order(t2[:, j]) for j in range(4)], axis=1)[:1], params={"k": 1, "axis": 0}, rule="pytorch topk")
case("topk_2d_neg1", "topk_indices", [t2], np.stack([desc_order(r)[:2] for r in t2]), params={"k": 2, "axis": -1}, rule="pytorch topk")
case("topk_negative_k", "topk_indices", [ties], error="ErrValue", params={"k": -1, "axis": 0}, rule="pytorch (an error)")
case("topk_axis_oob", "topk_indices", [ties], error="ErrAxis", params={"k": 1, "axis": 1})
case("topk_i32", "topk_values", [np.array([3, -2**31, 2**31 - 1, 3], i32)], np.array([2**31 - 1, 3], i32), params={"k": 2, "axis": 0}, rule="pytorch topk")
case("topk_0d", "topk_values", [s3], s3, params={"k": 1, "axis": 0}, rule="pytorch topk (a 0-d tensor is its own axis)")
case("sort_i32", "sort", [np.array([[3, -2**31, 7], [0, 0, -1]], i32)], np.sort(np.array([[3, -2**31, 7], [0, 0, -1]], i32), axis=-1), params={"axis": -1})
case("sort_u8_axis0", "sort", [np.array([[3, 255], [200, 0]], u8)], np.sort(np.array([[3, 255], [200, 0]], u8), axis=0), params={"axis": 0})
case("sort_bool", "sort", [np.array([True, False, True, False])], np.sort(np.array([True, False, True, False])), params={"axis": 0})
case("sort_f64_nan", "sort", [tn.astype(f64)], np.sort(tn.astype(f64)), params={"axis": 0})
case("sort_axis_oob", "sort", [x23], error="ErrAxis", params={"axis": 2})
case("sort_0d", "sort", [s3], s3, params={"axis": 0}, rule="pytorch (a 0-d tensor is its own axis)")
case("argsort_0d", "argsort", [s3], np.array(0, i64), params={"axis": -1}, rule="pytorch (a 0-d tensor is its own axis)")
sv3 = np.array([[nan, 1, 1, -inf], [2, nan, 2, 0], [0, 0, nan, nan]], f32)
for vw in ("T", "flip", "step2"):
    vcase(f"sort_view_{vw}", "sort", sv3, vw, lambda a: np.sort(a, axis=-1, kind="stable"), params={"axis": -1})
    vcase(f"argsort_view_{vw}", "argsort", sv3, vw, lambda a: np.argsort(a, axis=-1, kind="stable"), params={"axis": -1})
    vcase(f"argsort_desc_view_{vw}", "argsort_desc", sv3, vw, lambda a: np.stack([desc_order(r) for r in a]), params={"axis": -1}, rule="pytorch sort(descending, stable)")
    vcase(f"topk_view_{vw}", "topk_indices", sv3, vw, lambda a: np.stack([desc_order(r)[:2] for r in a]), params={"k": 2, "axis": -1}, rule="pytorch topk")

# --- linear algebra ------------------------------------------------------------------------------------
A3 = np.array([[4, 1, 2], [1, 5, 3], [2, 3, 6]], f64)      # symmetric positive definite
B3 = np.array([[0, 2, 1], [3, -1, 4], [1, 1, -2]], f64)    # regular, needs pivoting
S3 = np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], f64)      # singular
Ab = np.stack([A3, B3])                                     # a batch [2, 3, 3]
for dn, dt, tl in (("f32", f32, LA32), ("f64", f64, LA64)):
    a32 = Ab.astype(dt)
    case(f"matmul_3d_1d_{dn}", "matmul", [a32, np.array([1, -2, 0.5], dt)], a32 @ np.array([1, -2, 0.5], dt), tol=tl)
    case(f"matmul_1d_3d_{dn}", "matmul", [np.array([1, -2, 0.5], dt), a32], np.array([1, -2, 0.5], dt) @ a32, tol=tl)
    case(f"outer_{dn}", "outer", [np.array([1, -2, 0.5], dt), np.array([3, 0, -1, 2], dt)], np.outer(np.array([1, -2, 0.5], dt), np.array([3, 0, -1, 2], dt)))
    case(f"det_{dn}", "det", [a32], np.linalg.det(Ab).astype(dt), tol=tl)
    case(f"det_singular_{dn}", "det", [S3.astype(dt)], np.array(0, dt), tol=tl, rule="tessera doc: a singular matrix has determinant 0")
    case(f"slogdet_sign_{dn}", "slogdet_sign", [a32], np.linalg.slogdet(Ab)[0].astype(dt))
    case(f"slogdet_logabs_{dn}", "slogdet_logabs", [a32], np.linalg.slogdet(Ab)[1].astype(dt), tol=tl)
    case(f"inv_{dn}", "inv", [a32], np.linalg.inv(Ab).astype(dt), tol=tl * 10)
    case(f"inv_singular_{dn}", "inv", [S3.astype(dt)], error="ErrValue", rule="tessera doc (NumPy raises LinAlgError)")
    case(f"solve_vec_{dn}", "solve", [a32, np.array([[1, 2, 3], [-1, 0, 2]], dt)], clean(np.linalg.solve(Ab, np.array([[1, 2, 3], [-1, 0, 2]], f64)[..., None])[..., 0], dt), tol=tl * 10, rule="torch.linalg.solve (b's shape is a's without the last axis: vectors)")
    case(f"solve_1d_broadcast_{dn}", "solve", [a32, np.array([1, 2, 3], dt)], clean(np.linalg.solve(Ab, np.broadcast_to(np.array([1, 2, 3], f64)[:, None], (2, 3, 1)))[..., 0], dt), tol=tl * 10, rule="torch.linalg.solve (1-D b broadcasts)")
    bm = np.array([[1, 0], [2, -1], [0.5, 4]], dt)
    case(f"solve_matrix_broadcast_{dn}", "solve", [a32, bm], clean(np.linalg.solve(Ab, np.broadcast_to(bm.astype(f64), (2, 3, 2))), dt), tol=tl * 10, rule="torch.linalg.solve (a [n, k] b broadcasts; NumPy 1.24 would read it as vectors)")
    case(f"solve_singular_{dn}", "solve", [S3.astype(dt), np.array([1, 2, 3], dt)], error="ErrValue", rule="tessera doc (NumPy raises LinAlgError)")
    case(f"cholesky_{dn}", "cholesky", [np.stack([A3, A3 * 2]).astype(dt)], np.linalg.cholesky(np.stack([A3, A3 * 2])).astype(dt), tol=tl)
    case(f"cholesky_not_pd_{dn}", "cholesky", [B3.astype(dt)], error="ErrValue", rule="tessera doc (NumPy raises LinAlgError)")
    q_, r_ = np.linalg.qr(B3)
    case(f"qr_q_{dn}", "qr_q", [B3.astype(dt)], q_.astype(dt), tol=tl * 10, rule="tessera doc: LAPACK Householder signs, as NumPy")
    case(f"qr_r_{dn}", "qr_r", [B3.astype(dt)], r_.astype(dt), tol=tl * 10, rule="tessera doc: LAPACK Householder signs, as NumPy")
    tall = np.array([[1, 2], [3, 4], [5, 7], [-1, 0]], f64)
    wide = tall.T.copy()
    for nm, m in (("tall", tall), ("wide", wide), ("batch", Ab)):
        q_, r_ = np.linalg.qr(m)
        case(f"qr_recon_{nm}_{dn}", "qr_recon", [m.astype(dt)], m.astype(dt), tol=tl * 10)
        case(f"qr_rdiag_abs_{nm}_{dn}", "qr_rdiag_abs", [m.astype(dt)], np.abs(np.diagonal(r_, axis1=-2, axis2=-1)).astype(dt), tol=tl * 10)
        case(f"svd_s_{nm}_{dn}", "svd_s", [m.astype(dt)], np.linalg.svd(m, compute_uv=False).astype(dt), tol=tl * 10)
        case(f"svd_recon_{nm}_{dn}", "svd_recon", [m.astype(dt)], m.astype(dt), tol=tl * 10)
    case(f"svd_s_rank_deficient_{dn}", "svd_s", [S3.astype(dt)], clean(np.linalg.svd(S3, compute_uv=False), dt), tol=tl * 10, rule="numpy (the zero singular value within tol, absolute)")
    Sb = np.stack([A3, B3 + B3.T])  # symmetric: the residual uses all of a
    ew, ev = np.linalg.eigh(Sb)
    case(f"eigh_w_{dn}", "eigh_w", [Sb.astype(dt)], ew.astype(dt), tol=tl * 10)
    case(f"eigh_w_lower_of_nonsymmetric_{dn}", "eigh_w", [Ab.astype(dt)], np.linalg.eigh(Ab)[0].astype(dt), tol=tl * 10, rule="numpy eigh UPLO='L'")
    case(f"eigh_residual_{dn}", "eigh_residual", [Sb.astype(dt)], np.zeros((2, 3, 3), dt), tol=tl * 100, rule="a v = w v (eigenvector signs are free)")
    case(f"eigh_absv_{dn}", "eigh_absv", [Sb.astype(dt)], np.abs(ev).astype(dt), tol=tl * 100, rule="|v| (distinct eigenvalues; signs are free)")
    # only the lower triangle is read: junk above the diagonal
    junk = np.tril(A3) + np.triu(np.full((3, 3), 100.0), 1)
    case(f"eigh_lower_only_{dn}", "eigh_w", [junk.astype(dt)], np.linalg.eigh(junk)[0].astype(dt), tol=tl * 10, rule="numpy eigh UPLO='L'")
    case(f"cholesky_lower_only_{dn}", "cholesky", [junk.astype(dt)], np.linalg.cholesky(A3).astype(dt), tol=tl, rule="numpy/torch cholesky: the lower triangle is read")
    ov = np.array([[1, 2], [3, 4], [5, 7], [-1, 0]], f64)
    case(f"lstsq_over_{dn}", "lstsq", [ov.astype(dt), np.array([1, 0, 2, 1], dt)], np.linalg.lstsq(ov, np.array([1, 0, 2, 1], f64), rcond=None)[0].astype(dt), tol=tl * 10)
    case(f"lstsq_under_{dn}", "lstsq", [ov.T.astype(dt), np.array([1, 2], dt)], np.linalg.lstsq(ov.T, np.array([1, 2], f64), rcond=None)[0].astype(dt), tol=tl * 10, rule="numpy lstsq (minimum norm)")
    case(f"lstsq_rank_deficient_{dn}", "lstsq", [S3.astype(dt), np.array([[1], [2], [0]], dt)], np.linalg.lstsq(S3, np.array([[1], [2], [0]], f64), rcond=None)[0].astype(dt), tol=tl * 10, rule="numpy lstsq (gelsd: minimum norm)")
    case(f"tensordot_{dn}", "tensordot", [np.arange(24, dtype=dt).reshape(2, 3, 4), np.arange(12, dtype=dt).reshape(4, 3)],
         np.tensordot(np.arange(24, dtype=dt).reshape(2, 3, 4), np.arange(12, dtype=dt).reshape(4, 3), axes=([1, 2], [1, 0])), params={"a": [1, 2], "b": [1, 0]})
    case(f"trace_{dn}", "trace", [a32], np.trace(a32, axis1=-2, axis2=-1))
case("det_0x0", "det", [np.zeros((0, 0), f32)], np.array(1, f32), rule="tessera doc (NumPy agrees)")
case("det_batch_empty", "det", [np.zeros((0, 2, 2), f32)], np.zeros((0,), f32))
case("det_not_square", "det", [np.ones((2, 3), f32)], error="ErrShape")
case("det_1d", "det", [np.ones((3,), f32)], error="ErrShape")
case("det_large", "det", [np.eye(3, dtype=f64) * 1e200], np.array(inf, f64), rule="numpy (the determinant overflows)")
case("det_f64_scaled", "det", [np.diag([1e200, 1e-200, 3.0])], np.array(3.0, f64), tol=1e-12, rule="tessera doc: separate exponents")
case("slogdet_singular_sign", "slogdet_sign", [S3.astype(f32)], np.array(0, f32), rule="numpy slogdet")
case("slogdet_singular_logabs", "slogdet_logabs", [S3.astype(f32)], np.array(-inf, f32), rule="numpy slogdet")
case("slogdet_0x0_logabs", "slogdet_logabs", [np.zeros((0, 0), f32)], np.array(0, f32))
case("slogdet_negative", "slogdet_sign", [np.array([[0, 1], [1, 0]], f32)], np.array(-1, f32))
case("solve_not_square", "solve", [np.ones((2, 3), f32), np.ones((2,), f32)], error="ErrShape")
case("solve_b_mismatch", "solve", [A3.astype(f32), np.ones((4,), f32)], error="ErrShape")
case("solve_dtype_mismatch", "solve", [A3.astype(f32), np.ones((3,), f64)], error="ErrDType", rule="tessera doc: a and b share dtype")
case("inv_0x0", "inv", [np.zeros((0, 0), f32)], np.zeros((0, 0), f32))
case("inv_not_square", "inv", [np.ones((2, 3), f32)], error="ErrShape")
case("inv_batch_singular", "inv", [np.stack([A3, S3]).astype(f32)], error="ErrValue", rule="tessera doc")
case("cholesky_nan", "cholesky", [np.array([[nan, 0], [0, 1]], f32)], error="ErrValue", rule="tessera doc")
case("cholesky_semidefinite", "cholesky", [np.array([[1, 1], [1, 1]], f64)], error="ErrValue", rule="numpy/torch: not positive definite")
case("svd_nan", "svd_s", [np.array([[nan, 0], [0, 1]], f32)], error="ErrValue", rule="tessera doc (NumPy raises)")
case("eigh_inf", "eigh_w", [np.array([[inf, 0], [0, 1]], f32)], error="ErrValue", rule="tessera doc")
case("lstsq_nan", "lstsq", [np.array([[nan, 0], [0, 1]], f32), np.ones(2, f32)], error="ErrValue", rule="tessera doc")
vcase("det_view_T", "det", B3.astype(f32), "T", lambda a: np.array(np.linalg.det(a.astype(f64)), f32), tol=LA32)
vcase("inv_view_T", "inv", B3.astype(f32), "T", lambda a: np.linalg.inv(a.astype(f64)).astype(f32), tol=LA32 * 10)
case("solve_view_flip", "solve", [B3.astype(f32), np.array([1, 2, 3], f32)], np.linalg.solve(B3[:, ::-1], np.array([1, 2, 3], f64)).astype(f32), params={"view": "flip"}, tol=LA32 * 10)
case("matmul_view_T", "matmul", [x23, x23], (x23.T @ x23), params={"view": "T"})
case("matmul_i32", "matmul", [np.array([[1, 2], [3, 4]], i32), np.array([[2**30, 1], [1, -1]], i32)], np.array([[1, 2], [3, 4]], i32) @ np.array([[2**30, 1], [1, -1]], i32),
     params={"skip_unsupported": True}, rule="numpy (wraps); GPUs: ErrUnsupported, skipped")
case("matmul_i32_f32", "matmul", [np.array([[1, 2]], i32), np.array([[0.5], [0.25]], f32)], error="ErrDType", rule="pytorch (torch.matmul raises for mixed dtypes; NumPy promotes to F64)")
case("matmul_batch_mismatch", "matmul", [np.ones((2, 2, 3), f32), np.ones((3, 3, 2), f32)], error="ErrShape")
case("matmul_nan_inf", "matmul", [np.array([[inf, 0], [nan, 1]], f32), np.array([[1, 0], [0, 1]], f32)], np.array([[inf, 0], [nan, 1]], f32) @ np.array([[1, 0], [0, 1]], f32), rule="numpy (inf*0 = nan)")
case("outer_empty", "outer", [e0, np.ones(3, f32)], np.outer(e0, np.ones(3, f32)))
case("outer_2d", "outer", [x23, np.ones(3, f32)], error="ErrShape", rule="torch.outer: 1-D only (np.outer flattens)")
case("tensordot_mismatch", "tensordot", [x23, x23], error="ErrShape", params={"a": [0], "b": [1]})
case("tensordot_scalar_axes", "tensordot", [x23, np.ones((3, 2), f32)], np.tensordot(x23, np.ones((3, 2), f32), axes=([1], [0])), params={"a": [-1], "b": [0]})

# --- nn functional: PyTorch's documented formulas in float64 --------------------------------------------


def conv2d_ref(x, w, b=None, stride=(1, 1), pad=(0, 0), dil=(1, 1), groups=1):
    """torch.nn.functional.conv2d: cross-correlation, zero padding."""
    x, w = x.astype(f64), w.astype(f64)
    N, C, H, W = x.shape
    O, Cg, KH, KW = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    OH = (H + 2 * pad[0] - dil[0] * (KH - 1) - 1) // stride[0] + 1
    OW = (W + 2 * pad[1] - dil[1] * (KW - 1) - 1) // stride[1] + 1
    out = np.zeros((N, O, OH, OW))
    og = O // groups
    for o in range(O):
        g = o // og
        for i in range(OH):
            for j in range(OW):
                win = xp[:, g * Cg:(g + 1) * Cg, i * stride[0]:i * stride[0] + dil[0] * (KH - 1) + 1:dil[0], j * stride[1]:j * stride[1] + dil[1] * (KW - 1) + 1:dil[1]]
                out[:, o, i, j] = np.sum(win * w[o], axis=(1, 2, 3))
    if b is not None:
        out += b.astype(f64)[None, :, None, None]
    return out


def conv_t2d_ref(x, w, b=None, stride=(1, 1), pad=(0, 0), opad=(0, 0), dil=(1, 1), groups=1):
    """torch.nn.functional.conv_transpose2d: each input element adds its
    products with the kernel at (i*stride - pad + u*dil)."""
    x, w = x.astype(f64), w.astype(f64)
    N, Cin, H, W = x.shape
    _, Cog, KH, KW = w.shape
    FH = (H - 1) * stride[0] + dil[0] * (KH - 1) + 1 + opad[0]
    FW = (W - 1) * stride[1] + dil[1] * (KW - 1) + 1 + opad[1]
    full = np.zeros((N, Cog * groups, FH, FW))
    cg = Cin // groups
    for c in range(Cin):
        g = c // cg
        for i in range(H):
            for j in range(W):
                for u in range(KH):
                    for v_ in range(KW):
                        full[:, g * Cog:(g + 1) * Cog, i * stride[0] + u * dil[0], j * stride[1] + v_ * dil[1]] += x[:, c, i, j][:, None] * w[c, :, u, v_][None, :]
    out = full[:, :, pad[0]:FH - pad[0], pad[1]:FW - pad[1]]
    if b is not None:
        out = out + b.astype(f64)[None, :, None, None]
    return out


def pool_out_size(n, k, s, p, d, ceil):
    """torch's pooling_output_shape: floor or ceil, and in ceil mode one
    window fewer if the last would start past the input and its left
    padding."""
    span = n + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def pool_ref(x, k, stride=None, pad=(0, 0), dil=(1, 1), kind="max", ceil=False, include_pad=True, divisor=None):
    """torch max_pool2d (windows over the input only, so padding never
    wins; NaN propagates) / avg_pool2d (the sum of a window's input
    elements over its size clipped to the padded input, or to the input
    without count_include_pad, or over divisor_override), with ceil_mode,
    written as ATen's CPU loops compute them."""
    stride = stride or k
    x = x.astype(f64)
    N, C, H, W = x.shape
    OH = pool_out_size(H, k[0], stride[0], pad[0], dil[0], ceil)
    OW = pool_out_size(W, k[1], stride[1], pad[1], dil[1], ceil)
    out = np.zeros((N, C, OH, OW))
    for i in range(OH):
        for j in range(OW):
            h0, w0 = i * stride[0] - pad[0], j * stride[1] - pad[1]
            if kind == "max":
                # ATen's scan: the next element where it is greater or
                # NaN, so of equal elements (-0 and +0) the first stays.
                m = np.full((N, C), -inf)
                for r in (h0 + a * dil[0] for a in range(k[0])):
                    for c in (w0 + b * dil[1] for b in range(k[1])):
                        if 0 <= r < H and 0 <= c < W:
                            v = x[:, :, r, c]
                            m = np.where((v > m) | np.isnan(v), v, m)
                out[:, :, i, j] = m
                continue
            h1, w1 = min(h0 + k[0], H + pad[0]), min(w0 + k[1], W + pad[1])
            size = (h1 - h0) * (w1 - w0)
            h0c, w0c, h1c, w1c = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            total = np.sum(x[:, :, h0c:h1c, w0c:w1c], axis=(2, 3))
            if divisor is not None:
                size = divisor
            elif not include_pad:
                size = (h1c - h0c) * (w1c - w0c)
            out[:, :, i, j] = total / size
    return out


cx = (np.arange(2 * 4 * 5 * 6, dtype=f64).reshape(2, 4, 5, 6) % 7 - 3).astype(f32) / 2
cw = (np.arange(6 * 4 * 3 * 3, dtype=f64).reshape(6, 4, 3, 3) % 5 - 2).astype(f32) / 4
cb = np.array([0.5, -1, 0, 2, 0.25, -0.75], f32)
NN = "torch.nn.functional formula (NumPy float64)"
for tag, o in (("plain", {}), ("stride2", {"stride": [2, 2]}), ("pad1", {"padding": [1, 1]}), ("pad_asym", {"padding": [2, 0], "stride": [1, 2]}),
               ("dil2", {"dilation": [2, 2], "padding": [1, 2]}), ("all", {"stride": [2, 1], "padding": [1, 1], "dilation": [1, 2]})):
    kw = {"stride": tuple(o.get("stride", (1, 1))), "pad": tuple(o.get("padding", (0, 0))), "dil": tuple(o.get("dilation", (1, 1)))}
    case(f"conv2d_{tag}", "conv2d", [cx, cw, cb], conv2d_ref(cx, cw, cb, **kw).astype(f32), params=o, tol=LA32, rule=NN)
cwg = cw[:, :2]  # groups=2: [6, 2, 3, 3]
case("conv2d_groups2", "conv2d", [cx, cwg, cb], conv2d_ref(cx, cwg, cb, groups=2).astype(f32), params={"groups": 2}, tol=LA32, rule=NN)
cwd = cw[:4, :1]  # depthwise: [4, 1, 3, 3]
case("conv2d_depthwise", "conv2d", [cx, cwd], conv2d_ref(cx, cwd, groups=4, pad=(1, 1)).astype(f32), params={"groups": 4, "padding": [1, 1]}, tol=LA32, rule=NN)
case("conv2d_no_bias_f64", "conv2d", [cx.astype(f64), cw.astype(f64)], conv2d_ref(cx, cw, stride=(2, 2)), params={"stride": [2, 2]}, tol=LA64, rule=NN)
cxn = cx.copy()
cxn[0, 0, 2, 2] = nan
cxn[1, 1, 0, 0] = inf
case("conv2d_nan_inf", "conv2d", [cxn, cw[:, :, :1, :1].copy()], conv2d_ref(cxn, cw[:, :, :1, :1]).astype(f32), tol=LA32, rule=NN)
case("conv2d_channels_mismatch", "conv2d", [cx, cw[:, :3].copy()], error="ErrShape", rule="pytorch (an error)")
case("conv2d_groups_indivisible", "conv2d", [cx, cw[:, :2].copy()], error="ErrShape", params={"groups": 3}, rule="pytorch (an error)")
case("conv2d_kernel_too_big", "conv2d", [cx[:, :, :2, :2].copy(), cw], error="ErrShape", rule="pytorch (an error: output would be empty)")
case("conv2d_3d_input", "conv2d", [cx[0].copy(), cw], error="ErrShape", rule="tessera doc: x is [N, C, H, W] (torch also takes unbatched [C, H, W])")
case("conv2d_bias_bad", "conv2d", [cx, cw, np.ones(5, f32)], error="ErrShape", rule="pytorch (an error)")
case("conv2d_dtype_mismatch", "conv2d", [cx, cw.astype(f64)], error="ErrDType", rule="pytorch (an error)")
case("conv2d_empty_batch", "conv2d", [np.zeros((0, 4, 5, 6), f32), cw], np.zeros((0, 6, 3, 4), f32), rule=NN)
vcase_x = cx.transpose(0, 1, 3, 2).copy()  # viewed back through "T"
case("conv2d_view_T", "conv2d", [vcase_x, cw, cb], conv2d_ref(cx, cw, cb, pad=(1, 0)).astype(f32), params={"padding": [1, 0], "view": "T"}, tol=LA32, rule=NN)
c1x = cx[:, :, 0, :].copy()         # [2, 4, 6]
c1w = cw[:, :, 0, :].copy()         # [6, 4, 3]
for tag, o in (("plain", {}), ("stride2_pad1", {"stride": [2, 1], "padding": [1, 0]}), ("dil2", {"dilation": [2, 1]}), ("groups2", {"groups": 2})):
    w1 = c1w[:, :2].copy() if o.get("groups") else c1w
    ref = conv2d_ref(c1x[:, :, None, :].transpose(0, 1, 3, 2), w1[:, :, :, None], cb, stride=(o.get("stride", [1])[0], 1),
                     pad=(o.get("padding", [0])[0], 0), dil=(o.get("dilation", [1])[0], 1), groups=o.get("groups", 1))[..., 0]
    case(f"conv1d_{tag}", "conv1d", [c1x, w1, cb], ref.astype(f32), params=o, tol=LA32, rule=NN)
case("conv1d_bad_rank", "conv1d", [cx, c1w], error="ErrShape", rule="tessera doc: x is [N, C, L]")
tx = (np.arange(2 * 4 * 3 * 3, dtype=f64).reshape(2, 4, 3, 3) % 5 - 2).astype(f32) / 2
tw = (np.arange(4 * 3 * 3 * 2, dtype=f64).reshape(4, 3, 3, 2) % 7 - 3).astype(f32) / 4
tb = np.array([1, -0.5, 0.25], f32)
for tag, o in (("plain", {}), ("stride2", {"stride": [2, 2]}), ("stride2_pad1", {"stride": [2, 2], "padding": [1, 1]}),
               ("outpad", {"stride": [2, 3], "padding": [1, 0], "output_padding": [1, 2]}), ("dil2", {"dilation": [2, 1], "padding": [1, 0]})):
    kw = {"stride": tuple(o.get("stride", (1, 1))), "pad": tuple(o.get("padding", (0, 0))), "opad": tuple(o.get("output_padding", (0, 0))), "dil": tuple(o.get("dilation", (1, 1)))}
    case(f"conv_transpose2d_{tag}", "conv_transpose2d", [tx, tw, tb], conv_t2d_ref(tx, tw, tb, **kw).astype(f32), params=o, tol=LA32, rule=NN)
case("conv_transpose2d_groups2", "conv_transpose2d", [tx, tw], conv_t2d_ref(tx, tw, groups=2, stride=(2, 1)).astype(f32), params={"groups": 2, "stride": [2, 1]}, tol=LA32, rule=NN)
case("conv_transpose2d_outpad_too_big", "conv_transpose2d", [tx, tw], error="ErrValue", params={"stride": [2, 2], "output_padding": [2, 0]}, rule="pytorch (output padding must be below stride or dilation)")
px = (np.arange(2 * 3 * 5 * 6, dtype=f64).reshape(2, 3, 5, 6) * 7 % 11 - 5).astype(f32)
pxn = px.copy()
pxn[0, 0, 1, 1] = nan
pxn[1, 2, 4, 5] = -inf
for tag, o in (("k2", {"kernel": [2, 2]}), ("k3_s2", {"kernel": [3, 3], "stride": [2, 2]}), ("k3_pad1", {"kernel": [3, 3], "stride": [1, 1], "padding": [1, 1]}),
               ("k2x3_s1x2_pad1x0", {"kernel": [2, 3], "stride": [1, 2], "padding": [1, 0]}), ("k3_dil2", {"kernel": [3, 2], "dilation": [2, 1], "stride": [1, 1]})):
    kw = {"k": tuple(o["kernel"]), "stride": tuple(o["stride"]) if "stride" in o else None, "pad": tuple(o.get("padding", (0, 0))), "dil": tuple(o.get("dilation", (1, 1)))}
    case(f"max_pool2d_{tag}", "max_pool2d", [pxn], pool_ref(pxn, kind="max", **kw).astype(f32), params=o, rule=NN + ": -Inf padding, NaN propagates")
    if "dilation" not in o:
        case(f"avg_pool2d_{tag}", "avg_pool2d", [px], pool_ref(px, kind="avg", **kw).astype(f32), params=o, tol=TR, rule=NN + ": count_include_pad")
# ceil_mode, count_include_pad=False and divisor_override: windows past the
# padding (8 columns by a 3-kernel at stride 2 with ceil_mode: 4 windows,
# the last covering two columns and one past them), a window the rule
# drops (7 rows, kernel 2, stride 2, padding 1: rounding up gives 5, the
# last starting in the bottom padding, so 4), tiles (stride = kernel),
# dilation, and a ceil_mode that changes nothing.
pxc = (np.arange(2 * 3 * 7 * 8, dtype=f64).reshape(2, 3, 7, 8) * 5 % 13 - 6).astype(f32)
pxcn = pxc.copy()
pxcn[0, 1, 6, 7] = nan
pxcn[1, 0, 0, 0] = -inf
for tag, o in (("ceil_k3_s2", {"kernel": [3, 3], "stride": [2, 2], "ceil_mode": True}),
               ("ceil_k2_tiles", {"kernel": [2, 3], "ceil_mode": True}),
               ("ceil_k3_s2_pad1", {"kernel": [3, 3], "stride": [2, 2], "padding": [1, 1], "ceil_mode": True}),
               ("ceil_k2_s2_pad1_drop", {"kernel": [2, 2], "stride": [2, 2], "padding": [1, 1], "ceil_mode": True}),
               ("ceil_k2_s3_dil2x1", {"kernel": [2, 2], "stride": [3, 3], "dilation": [2, 1], "ceil_mode": True}),
               ("ceil_noop", {"kernel": [2, 2], "stride": [1, 1], "ceil_mode": True})):
    kw = {"k": tuple(o["kernel"]), "stride": tuple(o["stride"]) if "stride" in o else None, "pad": tuple(o.get("padding", (0, 0))),
          "dil": tuple(o.get("dilation", (1, 1))), "ceil": True}
    case(f"max_pool2d_{tag}", "max_pool2d", [pxcn], pool_ref(pxcn, kind="max", **kw).astype(f32), params=o, rule=NN + ": ceil_mode")
    if "dilation" not in o:
        case(f"avg_pool2d_{tag}", "avg_pool2d", [pxc], pool_ref(pxc, kind="avg", **kw).astype(f32), params=o, tol=TR, rule=NN + ": ceil_mode, count_include_pad")
        o2 = dict(o, count_include_pad=False)
        case(f"avg_pool2d_{tag}_exclude_pad", "avg_pool2d", [pxc], pool_ref(pxc, kind="avg", include_pad=False, **kw).astype(f32), params=o2, tol=TR, rule=NN + ": ceil_mode, count_include_pad=False")
for tag, o in (("k3_pad1", {"kernel": [3, 3], "stride": [1, 1], "padding": [1, 1]}), ("k2x3_s2_pad1x0", {"kernel": [2, 3], "stride": [2, 2], "padding": [1, 0]})):
    kw = {"k": tuple(o["kernel"]), "stride": tuple(o["stride"]), "pad": tuple(o.get("padding", (0, 0)))}
    case(f"avg_pool2d_{tag}_exclude_pad", "avg_pool2d", [pxc], pool_ref(pxc, kind="avg", include_pad=False, **kw).astype(f32), params=dict(o, count_include_pad=False), tol=TR, rule=NN + ": count_include_pad=False")
    case(f"avg_pool2d_{tag}_divisor3", "avg_pool2d", [pxc], pool_ref(pxc, kind="avg", divisor=3, **kw).astype(f32), params=dict(o, divisor_override=3), tol=TR, rule=NN + ": divisor_override")
case("avg_pool2d_ceil_f64", "avg_pool2d", [pxc.astype(f64)], pool_ref(pxc, (3, 2), stride=(2, 3), pad=(1, 1), kind="avg", ceil=True, include_pad=False),
     params={"kernel": [3, 2], "stride": [2, 3], "padding": [1, 1], "ceil_mode": True, "count_include_pad": False}, tol=1e-12, rule=NN)
# Signed zeros tie: the scan keeps the first of -0 and +0 (np.max's pick
# is unspecified), in tiles and in overlapping windows.
pz = np.array([[[[-0.0, 0.0, 0.0, -0.0, -0.0], [0.0, -0.0, -0.0, 0.0, -1.0], [-0.0, -0.0, 0.0, 0.0, -0.0]]]], f32)
case("max_pool2d_signed_zero_tiles", "max_pool2d", [pz], pool_ref(pz, (1, 2)).astype(f32), params={"kernel": [1, 2]}, rule=NN + ": the first of equal elements")
case("max_pool2d_signed_zero_overlap", "max_pool2d", [pz], pool_ref(pz, (2, 2), stride=(1, 1)).astype(f32), params={"kernel": [2, 2], "stride": [1, 1]}, rule=NN + ": the first of equal elements")


def adaptive_ref(x, size, kind):
    """torch adaptive_avg_pool2d / adaptive_max_pool2d (its values): window
    i of an axis of n into out spans floor(i*n/out) up to ceil((i+1)*n/out);
    the maximum is ATen's scan (the next element where greater or NaN)."""
    x = x.astype(f64)
    N, C, H, W = x.shape
    OH, OW = size
    out = np.zeros((N, C, OH, OW))
    for i in range(OH):
        h0, h1 = (i * H) // OH, -((-(i + 1) * H) // OH)
        for j in range(OW):
            w0, w1 = (j * W) // OW, -((-(j + 1) * W) // OW)
            if kind == "avg":
                out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
                continue
            m = np.full((N, C), -inf)
            for r in range(h0, h1):
                for c in range(w0, w1):
                    v = x[:, :, r, c]
                    m = np.where((v > m) | np.isnan(v), v, m)
            out[:, :, i, j] = m
    return out


for tag, sz in (("global", (1, 1)), ("divides_7x4", (7, 4)), ("3x4", (3, 4)), ("4x5_overlap", (4, 5)), ("up_7x9", (7, 9)), ("1x5", (1, 5))):
    case(f"adaptive_max_pool2d_{tag}", "adaptive_max_pool2d", [pxcn], adaptive_ref(pxcn, sz, "max").astype(f32), params={"size": list(sz)},
         rule=NN + ": adaptive_max_pool2d's windows, NaN propagates")
case("adaptive_max_pool2d_signed_zero", "adaptive_max_pool2d", [pz], adaptive_ref(pz, (2, 3), "max").astype(f32), params={"size": [2, 3]}, rule=NN + ": the first of equal elements")
case("adaptive_max_pool2d_all_neginf", "adaptive_max_pool2d", [np.full((1, 1, 3, 3), -inf, f32)], np.full((1, 1, 2, 2), -inf, f32), params={"size": [2, 2]}, rule=NN)
case("adaptive_max_pool2d_negative", "adaptive_max_pool2d", [pxc], error="ErrValue", params={"size": [2, -2]}, rule="pytorch (an error)")
case("adaptive_max_pool2d_i32", "adaptive_max_pool2d", [pxc.astype(i32)], error="ErrDType", params={"size": [2, 2]}, rule="tessera: floats only (torch's CPU kernel also takes integers)")
for tag, sz in (("global", (1, 1)), ("divides_7x4", (7, 4)), ("3x4", (3, 4)), ("4x5_overlap", (4, 5)), ("up_7x9", (7, 9)),
                ("identity", (7, 8)), ("1x5", (1, 5))):
    case(f"adaptive_avg_pool2d_{tag}", "adaptive_avg_pool2d", [pxc], adaptive_ref(pxc, sz, "avg").astype(f32), params={"size": list(sz)}, tol=LA32,
         rule=NN + ": adaptive_avg_pool2d's windows")
case("adaptive_avg_pool2d_f64", "adaptive_avg_pool2d", [pxc.astype(f64)], adaptive_ref(pxc, (3, 5), "avg"), params={"size": [3, 5]}, tol=LA64, rule=NN)
case("adaptive_avg_pool2d_nan", "adaptive_avg_pool2d", [pxcn], adaptive_ref(pxcn, (3, 3), "avg").astype(f32), params={"size": [3, 3]}, tol=LA32, rule=NN + ": NaN and -Inf spread to their windows")
case("adaptive_avg_pool2d_zero_size", "adaptive_avg_pool2d", [pxc], np.zeros((2, 3, 0, 4), f32), params={"size": [0, 4]}, rule="an empty output")
case("adaptive_avg_pool2d_negative", "adaptive_avg_pool2d", [pxc], error="ErrValue", params={"size": [-1, 2]}, rule="pytorch (an error)")
case("adaptive_avg_pool2d_empty_h", "adaptive_avg_pool2d", [np.zeros((1, 2, 0, 3), f32)], error="ErrShape", params={"size": [2, 2]}, rule="pytorch (an error: nothing to average)")
case("adaptive_avg_pool2d_3d", "adaptive_avg_pool2d", [pxc[0].copy()], error="ErrShape", params={"size": [2, 2]}, rule="tessera doc: x is [N, C, H, W] (torch also takes [C, H, W])")
case("adaptive_avg_pool2d_i32", "adaptive_avg_pool2d", [pxc.astype(i32)], error="ErrDType", params={"size": [2, 2]}, rule="pytorch (floats only)")
# The 1-D pools: the 2-D ones on [N, C, L, 1] with a one-column kernel.
p1 = pxcn[:, :, :, 0].copy()  # [2, 3, 7], a NaN and a -Inf
p1a = pxc[:, :, 0, :].copy()  # [2, 3, 8]
for tag, o in (("k2", {"kernel": [2, 0]}), ("k3_s2_pad1_ceil", {"kernel": [3, 0], "stride": [2, 0], "padding": [1, 0], "ceil_mode": True}),
               ("k2_dil3", {"kernel": [2, 0], "stride": [1, 0], "dilation": [3, 0]})):
    k1 = (o["kernel"][0], 1)
    kw = {"stride": (o["stride"][0], 1) if "stride" in o else None, "pad": (o.get("padding", [0])[0], 0), "dil": (o.get("dilation", [1])[0], 1),
          "ceil": o.get("ceil_mode", False)}
    case(f"max_pool1d_{tag}", "max_pool1d", [p1], pool_ref(p1[..., None], k1, kind="max", **kw)[..., 0].astype(f32), params=o, rule=NN + ": max_pool1d")
    if "dilation" not in o:
        case(f"avg_pool1d_{tag}", "avg_pool1d", [p1a], pool_ref(p1a[..., None], k1, kind="avg", **kw)[..., 0].astype(f32), params=o, tol=TR, rule=NN + ": avg_pool1d")
        case(f"avg_pool1d_{tag}_exclude_pad", "avg_pool1d", [p1a], pool_ref(p1a[..., None], k1, kind="avg", include_pad=False, **kw)[..., 0].astype(f32),
             params=dict(o, count_include_pad=False), tol=TR, rule=NN + ": avg_pool1d, count_include_pad=False")
case("max_pool1d_4d", "max_pool1d", [pxc], error="ErrShape", params={"kernel": [2, 0]}, rule="tessera doc: x is [N, C, L]")
case("max_pool2d_exclude_pad", "max_pool2d", [px], error="ErrValue", params={"kernel": [2, 2], "count_include_pad": False}, rule="tessera: ExcludePad is AvgPool2d's (torch's max_pool2d has no count_include_pad)")
case("max_pool2d_divisor", "max_pool2d", [px], error="ErrValue", params={"kernel": [2, 2], "divisor_override": 2}, rule="tessera: DivisorOverride is AvgPool2d's")
case("max_pool2d_i32", "max_pool2d", [px.astype(i32)], error="ErrDType", params={"kernel": [2, 2]}, rule="tessera: floats only (not in MaxPool2d's doc; torch's CPU max_pool2d takes integers)")
case("max_pool2d_view_T", "max_pool2d", [pxn], pool_ref(pxn.transpose(0, 1, 3, 2), (3, 2)).astype(f32), params={"kernel": [3, 2], "view": "T"}, rule=NN)
case("avg_pool2d_f64", "avg_pool2d", [px.astype(f64)], pool_ref(px, (2, 3), pad=(1, 1), kind="avg"), params={"kernel": [2, 3], "padding": [1, 1]}, tol=1e-12, rule=NN)
case("max_pool2d_pad_too_big", "max_pool2d", [px], error="ErrValue", params={"kernel": [2, 2], "padding": [2, 2]}, rule="pytorch (pad at most half the kernel)")
case("max_pool2d_kernel_too_big", "max_pool2d", [px], error="ErrShape", params={"kernel": [6, 6]}, rule="pytorch (an error: output would be empty)")
case("avg_pool2d_3d", "avg_pool2d", [px[0].copy()], error="ErrShape", params={"kernel": [2, 2]}, rule="tessera doc: x is [N, C, H, W]")

# LayerNorm / RMSNorm
lnx = np.array([[[1, 2, 3, 4], [-1, 0, 1, 10]], [[5, 5, 5, 5], [1e3, -1e3, 0, 1]]], f32)
lnw = np.array([1, 0.5, -2, 3], f32)
lnb = np.array([0, 1, -1, 0.25], f32)


def layer_norm(x, n, w=None, b=None, eps=1e-5):
    x = x.astype(f64)
    ax = tuple(range(-n, 0))
    m = x.mean(axis=ax, keepdims=True)
    var = ((x - m) ** 2).mean(axis=ax, keepdims=True)
    y = (x - m) / np.sqrt(var + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def rms_norm(x, n, w=None, eps=1e-5):
    x = x.astype(f64)
    ax = tuple(range(-n, 0))
    y = x / np.sqrt((x * x).mean(axis=ax, keepdims=True) + eps)
    return y * w if w is not None else y


for eps in (1e-5, 0.0, 1.0):
    et = str(eps).replace(".", "p").replace("-", "m")
    case(f"layer_norm_wb_eps{et}", "layer_norm", [lnx, lnw, lnb], layer_norm(lnx, 1, lnw, lnb, eps).astype(f32), params={"shape": [4], "eps": eps, "weight": True, "bias": True}, tol=LA32, rule=NN)
    case(f"rms_norm_w_eps{et}", "rms_norm", [lnx, lnw], rms_norm(lnx, 1, lnw, eps).astype(f32), params={"shape": [4], "eps": eps, "weight": True}, tol=LA32, rule=NN)
case("layer_norm_two_axes", "layer_norm", [lnx], layer_norm(lnx, 2).astype(f32), params={"shape": [2, 4], "eps": 1e-5}, tol=LA32, rule=NN)
case("layer_norm_bias_only", "layer_norm", [lnx, lnb], layer_norm(lnx, 1, None, lnb).astype(f32), params={"shape": [4], "eps": 1e-5, "bias": True}, tol=LA32, rule=NN)
case("layer_norm_f64", "layer_norm", [lnx.astype(f64), lnw.astype(f64), lnb.astype(f64)], layer_norm(lnx, 1, lnw, lnb), params={"shape": [4], "eps": 1e-5, "weight": True, "bias": True}, tol=LA64, rule=NN)
case("layer_norm_constant_eps0", "layer_norm", [np.full((1, 3), 2, f32)], np.full((1, 3), nan, f32), params={"shape": [3], "eps": 0}, rule=NN + " (0/0)")
case("layer_norm_nan", "layer_norm", [np.array([[1, nan, 3], [1, 2, 3]], f32)], layer_norm(np.array([[1, nan, 3], [1, 2, 3]], f32), 1).astype(f32), params={"shape": [3], "eps": 1e-5}, tol=LA32, rule=NN)
case("layer_norm_shape_mismatch", "layer_norm", [lnx], error="ErrShape", params={"shape": [3], "eps": 1e-5}, rule="pytorch (an error)")
case("layer_norm_weight_shape", "layer_norm", [lnx, lnw[:3].copy()], error="ErrShape", params={"shape": [4], "eps": 1e-5, "weight": True}, rule="tessera doc")
case("layer_norm_negative_eps", "layer_norm", [lnx], error="ErrValue", params={"shape": [4], "eps": -1}, rule="tessera doc: eps finite, not negative")
case("layer_norm_i32", "layer_norm", [lnx.astype(i32)], error="ErrDType", params={"shape": [4], "eps": 1e-5}, rule="tessera doc: floats only")
case("layer_norm_empty_batch", "layer_norm", [np.zeros((0, 4), f32)], np.zeros((0, 4), f32), params={"shape": [4], "eps": 1e-5}, rule=NN)
case("layer_norm_view_T", "layer_norm", [lnx], layer_norm(lnx.swapaxes(-1, -2), 1).astype(f32), params={"shape": [2], "eps": 1e-5, "view": "T"}, tol=LA32, rule=NN)
case("rms_norm_two_axes", "rms_norm", [lnx], rms_norm(lnx, 2).astype(f32), params={"shape": [2, 4], "eps": 1e-6}, tol=LA32, rule=NN)
case("rms_norm_zero_eps0", "rms_norm", [np.zeros((1, 3), f32)], np.full((1, 3), nan, f32), params={"shape": [3], "eps": 0}, rule=NN + " (0/0)")
case("rms_norm_view_step2", "rms_norm", [lnx], rms_norm(lnx[..., ::2], 1).astype(f32), params={"shape": [2], "eps": 1e-5, "view": "step2"}, tol=LA32, rule=NN)
case("rms_norm_f64", "rms_norm", [lnx.astype(f64), lnw.astype(f64)], rms_norm(lnx, 1, lnw), params={"shape": [4], "eps": 1e-5, "weight": True}, tol=LA64, rule=NN)
case("rms_norm_i32", "rms_norm", [lnx.astype(i32)], error="ErrDType", params={"shape": [4], "eps": 1e-5}, rule="tessera doc: floats only")

# Softmax / LogSoftmax along other axes with -Inf
smx = np.array([[[mi, 1, 2], [mi, mi, 0]], [[mi, mi, mi], [0, 0, inf]]], f32)
for ax in (0, 1, -1):
    case(f"softmax_3d_axis{ax}", "softmax", [smx], softmax(smx, ax).astype(f32), params={"axis": ax}, tol=TR, rule="numpy formula (torch.softmax agrees)")
    case(f"log_softmax_3d_axis{ax}", "log_softmax", [smx], log_softmax(smx, ax).astype(f32), params={"axis": ax}, tol=TR, rule="numpy formula (torch.log_softmax agrees)")
case("softmax_f64", "softmax", [np.array([[-745, 0], [1e300, 1e300]], f64)], softmax(np.array([[-745, 0], [1e300, 1e300]], f64), -1), params={"axis": -1}, tol=1e-12)
case("log_softmax_axis_oob", "log_softmax", [x23], error="ErrAxis", params={"axis": 2})
case("softmax_i32", "softmax", [np.array([1, 2], i32)], error="ErrDType", params={"axis": 0}, rule="pytorch (softmax of integers is an error without dtype)")
vcase("softmax_view_T", "softmax", smx[1], "T", lambda a: softmax(a, -1).astype(f32), params={"axis": -1}, tol=TR)
vcase("log_softmax_view_flip", "log_softmax", smx[0], "flip", lambda a: log_softmax(a, 0).astype(f32), params={"axis": 0}, tol=TR)

# SoftmaxCrossEntropy: mean over rows of -sum target * log_softmax


def xent(logits, labels, s=0.0):
    """torch cross_entropy with class indices: (1-s)*nll + s*mean_c(-log p),
    so that a -Inf logit off the label gives a finite loss when s = 0."""
    lp = log_softmax(logits, -1)
    nll = -lp[np.arange(len(labels)), labels]
    loss = nll if s == 0 else (1 - s) * nll + s * -np.mean(lp, axis=-1)
    return np.array(np.mean(loss))


xl = np.array([[1, 2, 3, 0.5], [-1000, 1000, 0, 1], [0, 0, 0, 0]], f32)
xlab = np.array([2, 1, 3], i64)
for s_ in (0.0, 0.1, 1.0):
    st_ = str(s_).replace(".", "p")
    case(f"softmax_xent_s{st_}", "softmax_xent", [xl, xlab], xent(xl, xlab, s_).astype(f32), params={"s": s_}, tol=TR, rule="torch cross_entropy(reduction='mean', label_smoothing=s)")
    case(f"softmax_xent_f64_s{st_}", "softmax_xent", [xl.astype(f64), xlab], xent(xl, xlab, s_), params={"s": s_}, tol=1e-12, rule="torch cross_entropy(reduction='mean', label_smoothing=s)")
case("softmax_xent_neginf_logit", "softmax_xent", [np.array([[mi, 0, 1]], f32), np.array([2], i64)], xent(np.array([[mi, 0, 1]], f32), [2]).astype(f32), params={"s": 0}, tol=TR, rule="torch cross_entropy")
case("softmax_xent_neginf_logit_s0p1", "softmax_xent", [np.array([[mi, 0, 1]], f32), np.array([2], i64)], np.array(inf, f32), params={"s": 0.1}, rule="torch cross_entropy(label_smoothing=0.1): -log 0 weighs s/C")
case("softmax_xent_label_neginf", "softmax_xent", [np.array([[mi, 0, 1]], f32), np.array([0], i64)], np.array(inf, f32), params={"s": 0}, rule="torch cross_entropy (-log 0)")

# ScaledDotProductAttention


def sdpa(q, k, v, mask=None, scale=None, causal=False):
    q, k, v = q.astype(f64), k.astype(f64), v.astype(f64)
    E = q.shape[-1]
    sc = (q @ np.swapaxes(k, -1, -2)) * (scale if scale else 1 / math.sqrt(E))
    L, S = sc.shape[-2:]
    if causal:
        sc = np.where(np.tril(np.ones((L, S), bool)), sc, -inf)
    if mask is not None:
        sc = np.where(mask, sc, -inf) if mask.dtype == b_ else sc + mask
    m = np.max(sc, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(sc - m)
    den = np.sum(e, axis=-1, keepdims=True)
    p = np.where(den > 0, e / np.where(den > 0, den, 1), 0)  # PyTorch >= 2.5: a fully masked row gives 0
    return p @ v


aq = ((np.arange(2 * 3 * 4, dtype=f64).reshape(2, 3, 4) % 5 - 2) / 3).astype(f32)
ak = ((np.arange(2 * 5 * 4, dtype=f64).reshape(2, 5, 4) % 7 - 3) / 4).astype(f32)
av = ((np.arange(2 * 5 * 2, dtype=f64).reshape(2, 5, 2) % 3 - 1)).astype(f32)
bm = np.array([[True, False, True, True, False], [False, False, False, False, False], [True, True, True, True, True]])
am_ = np.array([[0, -1, 0.5, mi, 0], [mi, mi, mi, mi, mi], [0, 0, 0, 0, 2]], f32)
SD = "torch scaled_dot_product_attention (>= 2.5: a fully masked row gives 0)"
case("sdpa_plain", "sdpa", [aq, ak, av], sdpa(aq, ak, av).astype(f32), tol=LA32, rule=SD)
case("sdpa_scale", "sdpa", [aq, ak, av], sdpa(aq, ak, av, scale=2.0).astype(f32), params={"scale": 2.0}, tol=LA32, rule=SD)
case("sdpa_bool_mask", "sdpa", [aq, ak, av, bm], sdpa(aq, ak, av, mask=bm).astype(f32), tol=LA32, rule=SD)
case("sdpa_additive_mask", "sdpa", [aq, ak, av, am_], sdpa(aq, ak, av, mask=am_).astype(f32), tol=LA32, rule=SD)
case("sdpa_causal_L_lt_S", "sdpa", [aq, ak, av], sdpa(aq, ak, av, causal=True).astype(f32), params={"causal": True}, tol=LA32, rule=SD + ", is_causal top-left")
case("sdpa_causal_L_gt_S", "sdpa", [ak, aq, aq[..., :2].copy()], sdpa(ak, aq, aq[..., :2], causal=True).astype(f32), params={"causal": True}, tol=LA32, rule=SD + ", is_causal top-left")
case("sdpa_causal_and_mask", "sdpa", [aq, ak, av, bm], error="ErrValue", params={"causal": True}, rule="tessera doc: causal cannot be combined with a mask")
case("sdpa_batch_broadcast", "sdpa", [aq[:1].copy(), ak, av], sdpa(aq[:1], ak, av).astype(f32), tol=LA32, rule=SD)
case("sdpa_f64", "sdpa", [aq.astype(f64), ak.astype(f64), av.astype(f64), am_.astype(f64)], sdpa(aq, ak, av, mask=am_), tol=LA64, rule=SD)
case("sdpa_dtype_mismatch", "sdpa", [aq, ak.astype(f64), av], error="ErrDType", rule="tessera doc: q, k and v share a floating dtype")
case("sdpa_shape_mismatch", "sdpa", [aq, ak[..., :3].copy(), av], error="ErrShape", rule="pytorch (an error)")
case("sdpa_mask_bad_shape", "sdpa", [aq, ak, av, bm[:, :4].copy()], error="ErrShape", rule="tessera doc: mask broadcasts to [..., L, S]")
case("sdpa_view_T_q", "sdpa", [aq.swapaxes(-1, -2).copy(), ak, av], sdpa(aq, ak, av).astype(f32), params={"view": "T"}, tol=LA32, rule=SD)
case("sdpa_nan_v", "sdpa", [aq, ak, np.where(np.arange(10).reshape(5, 2) == 3, nan, av).astype(f32), bm],
     sdpa(aq, ak, np.where(np.arange(10).reshape(5, 2) == 3, nan, av), mask=bm).astype(f32), tol=LA32, rule=SD + "; NaN propagates")
case("one_hot_i32_negative", "one_hot", [np.array([1, -1], i32)], error="ErrValue", rule="pytorch one_hot (an error)", params={"classes": 3})
case("one_hot_float_labels", "one_hot", [np.array([1, 0], f32)], error="ErrDType", rule="pytorch one_hot (integer labels only)", params={"classes": 3})
case("one_hot_u8_too_big", "one_hot", [np.array([255], u8)], error="ErrValue", rule="pytorch one_hot (an error)", params={"classes": 255})

# --- more edges: empty matrices, dtypes the docs leave open, option limits -------------------------------
case("det_i32", "det", [np.array([[2, 1], [1, 3]], i32)], error="ErrDType", rule="pytorch (linalg takes floats; NumPy: F64 det)")
case("inv_1x1_zero", "inv", [np.zeros((1, 1), f32)], error="ErrValue", rule="tessera doc: singular is ErrValue")
case("eigh_0x0", "eigh_w", [np.zeros((0, 0), f32)], np.zeros((0,), f32), rule="numpy eigh")
case("cholesky_0x0", "cholesky", [np.zeros((0, 0), f32)], np.zeros((0, 0), f32), rule="numpy cholesky")
case("svd_s_empty", "svd_s", [np.zeros((0, 3), f32)], np.zeros((0,), f32), rule="numpy svd")
case("qr_r_empty", "qr_r", [np.zeros((0, 3), f32)], np.zeros((0, 3), f32), rule="numpy qr")
case("slogdet_f64_huge", "slogdet_logabs", [np.diag([1e200, 1e200, -1e200])], np.array(np.linalg.slogdet(np.diag([1e200, 1e200, -1e200]))[1]), tol=1e-12)
case("slogdet_f64_huge_sign", "slogdet_sign", [np.diag([1e200, 1e200, -1e200])], np.array(-1.0))
case("lstsq_batch_matrix", "lstsq", [np.stack([tall, tall * 2]).astype(f32), np.array([[1, 0], [0, 1], [1, 1], [2, -1]], f32)],
     clean(np.linalg.lstsq(tall, np.array([[1, 0], [0, 1], [1, 1], [2, -1]], f64), rcond=None)[0][None] / np.array([1, 2])[:, None, None], f32), tol=LA32 * 10, rule="numpy lstsq per matrix, b broadcast")
case("solve_i32_error", "solve", [np.array([[2, 1], [1, 3]], i32), np.array([1, 2], i32)], error="ErrDType", rule="pytorch (linalg takes floats; NumPy: F64)")
case("outer_i32_f32", "outer", [np.array([1, 2], i32), np.array([0.5, 1.5], f32)], np.outer(np.array([1, 2], f32), np.array([0.5, 1.5], f32)), rule="pytorch outer (the float's dtype; NumPy: F64)")
case("outer_0d", "outer", [s3, np.ones(2, f32)], error="ErrShape", rule="torch.outer: 1-D only")
case("tensordot_neg_axes", "tensordot", [np.arange(24, dtype=f32).reshape(2, 3, 4), np.arange(12, dtype=f32).reshape(4, 3)],
     np.tensordot(np.arange(24, dtype=f32).reshape(2, 3, 4), np.arange(12, dtype=f32).reshape(4, 3), axes=([-1], [0])), params={"a": [-1], "b": [-2]})
case("tensordot_none", "tensordot", [np.array([1, 2], f32), np.array([3, 4, 5], f32)], np.tensordot(np.array([1, 2], f32), np.array([3, 4, 5], f32), axes=0), params={"a": [], "b": []})
case("tensordot_axes_len_mismatch", "tensordot", [x23, x23], error="ErrAxis", params={"a": [0, 1], "b": [0]}, rule="numpy/torch (an error; tessera's kind: the axis lists)")
case("tensordot_repeated_axis", "tensordot", [x23, np.ones((3, 3), f32)], error="ErrAxis", params={"a": [1, 1], "b": [0, 1]}, rule="numpy/torch (an error)")
case("gather_longer_axis", "gather", [x23, np.array([[2, 2, 0, 1, 1], [0, 0, 0, 0, 2]], i64)], np.take_along_axis(x23, np.array([[2, 2, 0, 1, 1], [0, 0, 0, 0, 2]], i64), axis=1), params={"axis": 1}, rule="torch.gather (idx may be longer on the gather axis)")
case("gather_0d", "gather", [s3, np.array(0, i64)], s3, params={"axis": 0}, rule="torch.gather of a 0-d tensor")
case("index_select_0d_idx", "index_select", [x23, np.array(1, i64)], error="ErrShape", params={"axis": 1}, rule="tessera doc: idx is 1-D (torch also takes 0-d, keeping the axis)")
case("cumsum_0d_i32", "cumsum", [np.array(-4, i32)], np.array(-4, i64), params={"axis": 0}, rule="pytorch (I64, 0-d)")
case("cumprod_0d_bool", "cumprod", [np.array(True)], np.array(1, i64), params={"axis": -1}, rule="pytorch (I64, 0-d)")
case("conv2d_pad_bigger_than_kernel", "conv2d", [cx, cw[:, :, :1, :1].copy()], conv2d_ref(cx, cw[:, :, :1, :1], pad=(2, 1)).astype(f32), params={"padding": [2, 1]}, tol=LA32, rule=NN)
case("conv2d_stride_bigger_than_kernel", "conv2d", [cx, cw[:, :, :2, :2].copy()], conv2d_ref(cx, cw[:, :, :2, :2], stride=(3, 4)).astype(f32), params={"stride": [3, 4]}, tol=LA32, rule=NN)
case("conv2d_bias_dtype", "conv2d", [cx, cw, cb.astype(f64)], error="ErrDType", rule="pytorch (an error)")
case("conv2d_zero_stride_default", "conv2d", [cx, cw], conv2d_ref(cx, cw).astype(f32), params={"stride": [0, 0]}, tol=LA32, rule="tessera doc: zero means stride 1")
case("conv2d_negative_padding", "conv2d", [cx, cw], error="ErrValue", params={"padding": [-1, 0]}, rule="pytorch (an error)")
case("conv1d_groups2_pad", "conv1d", [c1x, c1w[:, :2].copy()], conv2d_ref(c1x[:, :, :, None], c1w[:, :2, :, None], pad=(2, 0), groups=2)[..., 0].astype(f32), params={"groups": 2, "padding": [2, 0]}, tol=LA32, rule=NN)
case("conv_transpose2d_outpad_below_dil", "conv_transpose2d", [tx, tw], conv_t2d_ref(tx, tw, stride=(1, 1), dil=(3, 1), opad=(2, 0)).astype(f32), params={"dilation": [3, 1], "output_padding": [2, 0]}, tol=LA32, rule=NN + " (output_padding below the dilation is allowed)")
case("conv_transpose2d_pad_crops_all", "conv_transpose2d", [tx[:, :, :1, :1].copy(), tw[:, :, :1, :1].copy()], error="ErrShape", params={"padding": [1, 1]}, rule="pytorch (an error: empty output)")
case("conv_transpose2d_f64_all", "conv_transpose2d", [tx.astype(f64), tw.astype(f64), tb.astype(f64)], conv_t2d_ref(tx, tw, tb, stride=(2, 2), pad=(1, 0), opad=(1, 1), dil=(1, 2)),
     params={"stride": [2, 2], "padding": [1, 0], "output_padding": [1, 1], "dilation": [1, 2]}, tol=LA64, rule=NN)
case("conv_transpose2d_view_T", "conv_transpose2d", [tx, tw], conv_t2d_ref(tx.swapaxes(-1, -2), tw, stride=(2, 1)).astype(f32), params={"stride": [2, 1], "view": "T"}, tol=LA32, rule=NN)
case("avg_pool2d_pad_too_big", "avg_pool2d", [px], error="ErrValue", params={"kernel": [2, 2], "padding": [2, 0]}, rule="pytorch (pad at most half the kernel)")
case("max_pool2d_stride_gt_kernel", "max_pool2d", [pxn], pool_ref(pxn, (2, 1), stride=(3, 4)).astype(f32), params={"kernel": [2, 1], "stride": [3, 4]}, rule=NN)
case("avg_pool2d_stride_gt_kernel", "avg_pool2d", [px], pool_ref(px, (2, 1), stride=(3, 4), kind="avg").astype(f32), params={"kernel": [2, 1], "stride": [3, 4]}, tol=TR, rule=NN)
case("max_pool2d_empty_batch", "max_pool2d", [np.zeros((0, 3, 4, 4), f32)], np.zeros((0, 3, 2, 2), f32), params={"kernel": [2, 2]}, rule=NN)
case("avg_pool2d_nan_inf", "avg_pool2d", [pxn], pool_ref(pxn, (2, 2), kind="avg").astype(f32), params={"kernel": [2, 2]}, tol=TR, rule=NN)
case("max_pool2d_all_neginf", "max_pool2d", [np.full((1, 1, 2, 2), -inf, f32)], pool_ref(np.full((1, 1, 2, 2), -inf, f32), (2, 2), pad=(1, 1)).astype(f32), params={"kernel": [2, 2], "padding": [1, 1]}, rule=NN)
case("max_pool2d_kernel_zero", "max_pool2d", [px], error="ErrValue", params={"kernel": [0, 2]}, rule="pytorch (an error)")
case("layer_norm_empty_shape", "layer_norm", [lnx], error="ErrShape", params={"shape": [], "eps": 1e-5}, rule="pytorch (an error)")
case("layer_norm_nan_eps", "layer_norm", [lnx], error="ErrValue", params={"shape": [4], "eps": "nan"}, rule="tessera doc: eps finite")
case("layer_norm_inf_input", "layer_norm", [np.array([[1, inf, 3]], f32)], np.full((1, 3), nan, f32), params={"shape": [3], "eps": 1e-5}, rule=NN + " (inf - inf)")
case("rms_norm_inf_input", "rms_norm", [np.array([[1, inf, 3]], f32)], rms_norm(np.array([[1, inf, 3]], f32), 1).astype(f32), params={"shape": [3], "eps": 1e-5}, rule=NN)
case("layer_norm_0d_input", "layer_norm", [s3], error="ErrShape", params={"shape": [1], "eps": 1e-5}, rule="pytorch (an error)")
case("sdpa_mask_broadcast_batch", "sdpa", [np.stack([aq, aq]), np.stack([ak, ak]), np.stack([av, av]), bm[None, None]], np.stack([sdpa(aq, ak, av, mask=bm), sdpa(aq, ak, av, mask=bm)]).astype(f32), tol=LA32, rule=SD)
case("sdpa_causal_L_eq_S", "sdpa", [aq, aq, aq], sdpa(aq, aq, aq, causal=True).astype(f32), params={"causal": True}, tol=LA32, rule=SD)
case("sdpa_mask_i32", "sdpa", [aq, ak, av, bm.astype(i32)], error="ErrDType", rule="tessera doc: a Bool mask or one of q's dtype")
case("sdpa_1d", "sdpa", [np.ones(4, f32), np.ones(4, f32), np.ones(4, f32)], error="ErrShape", rule="pytorch (an error)")
case("sdpa_i32", "sdpa", [aq.astype(i32), ak.astype(i32), av.astype(i32)], error="ErrDType", rule="tessera doc: a floating dtype")
case("softmax_xent_one_class", "softmax_xent", [np.array([[3], [-1]], f32), np.array([0, 0], i64)], np.array(0, f32), params={"s": 0.2}, rule="torch cross_entropy")
case("softmax_xent_nan", "softmax_xent", [np.array([[nan, 0], [1, 2]], f32), np.array([1, 0], i64)], np.array(nan, f32), params={"s": 0}, rule="torch cross_entropy (NaN propagates)")
case("one_hot_classes_negative", "one_hot", [np.array([0, 1], i64)], error="ErrValue", params={"classes": -1}, rule="tessera: an error (torch's one_hot infers the count from num_classes=-1)")
case("masked_fill_i32_fraction", "masked_fill", [mf, np.array([True, False, False])], np.where(np.array([True, False, False]), i32(2), mf), params={"value": 2.7}, rule="tessera doc: value converted to t's dtype (truncates, as torch)")
case("where_u8_cond_f64", "where", [np.array([0, 2, 255], u8), np.array([1, 2, 3], f64), np.array(0.5, f32)], np.where(np.array([0, 2, 255], u8), np.array([1, 2, 3], f64), 0.5))
case("topk_k_equals_n_view", "topk_values", [sv3], np.stack([r[desc_order(r)] for r in sv3[..., ::-1]]), params={"k": 4, "axis": -1, "view": "flip"}, rule="pytorch topk")
case("sort_desc_0d", "sort_desc", [s3], s3, params={"axis": 0})
case("argsort_desc_i32_ties", "argsort_desc", [np.array([1, 3, 1, 3, -2**31], i32)], desc_order(np.array([1, 3, 1, 3, -2**31], i32)), params={"axis": 0}, rule="pytorch sort(descending, stable)")
case("argsort_desc_u8", "argsort_desc", [np.array([0, 255, 7, 255], u8)], desc_order(np.array([0, 255, 7, 255], u8)), params={"axis": 0}, rule="pytorch sort(descending, stable)")
case("argsort_desc_bool", "argsort_desc", [np.array([False, True, False, True])], desc_order(np.array([0, 1, 0, 1])), params={"axis": 0}, rule="pytorch sort(descending, stable)")
case("argsort_i64_large", "argsort", [np.array([2**62, -2**62, 2**62 + 2**40, I64MIN], i64)], np.argsort(np.array([2**62, -2**62, 2**62 + 2**40, I64MIN], i64), kind="stable"), params={"axis": 0})

# --- long axes: past the CPU's partial selection (64) and the GPUs' workgroups (64, 256) --------------------
# deterministic values with many ties, NaN and ±Inf spread over the axis
LN = 700
lv = ((np.arange(LN) * 37) % 101 - 50).astype(f32) / 4
lv[::97] = nan
lv[5::131] = inf
lv[11::151] = -inf
for k in (63, 64, 65, 130, LN):
    case(f"topk_long_k{k}", "topk_indices", [lv], desc_order(lv)[:k], params={"k": k, "axis": 0}, rule="pytorch topk: NaN largest, ties in index order")
    case(f"topk_long_smallest_k{k}", "topk_indices_smallest", [lv], np.argsort(lv, kind="stable")[:k], params={"k": k, "axis": 0}, rule="pytorch topk(largest=False)")
case("sort_long", "sort", [lv], np.sort(lv, kind="stable"), params={"axis": 0})
case("argsort_long", "argsort", [lv], np.argsort(lv, kind="stable"), params={"axis": 0})
case("argsort_desc_long", "argsort_desc", [lv], desc_order(lv), params={"axis": 0}, rule="pytorch sort(descending, stable)")
lv2 = np.stack([lv, lv[::-1]])
vcase("argsort_long_view_flip", "argsort", lv2, "flip", lambda a: np.argsort(a, axis=-1, kind="stable"), params={"axis": -1})
vcase("topk_long_view_T", "topk_indices", lv2.T.copy(), "T", lambda a: np.stack([desc_order(r)[:70] for r in a]), params={"k": 70, "axis": -1}, rule="pytorch topk")
lvf = np.where(np.isfinite(lv), lv, 0).astype(f32)
case("argmax_long_ties", "argmax", [lvf], np.argmax(lvf), params={"axis": 0})
case("argmin_long_ties", "argmin", [lvf], np.argmin(lvf), params={"axis": 0})
lvn = lvf.copy()
lvn[[300, 500]] = nan
case("argmax_long_nan", "argmax", [lvn], np.argmax(lvn), params={"axis": 0})
case("argmin_long_nan", "argmin", [lvn], np.argmin(lvn), params={"axis": 0})
ci_long = ((np.arange(2000) * 7919) % 2**30 + 2**29).astype(i32)
case("cumsum_long_i32", "cumsum", [ci_long], np.cumsum(ci_long), params={"axis": 0}, rule="numpy (I64, exact past 2^32)")
case("cumsum_long_i32_neg", "cumsum", [-ci_long], np.cumsum(-ci_long), params={"axis": 0}, rule="numpy (I64)")
vcase("cumsum_long_i32_view_flip", "cumsum", np.stack([ci_long, -ci_long]), "flip", lambda a: np.cumsum(a, axis=-1), params={"axis": -1})
cfl = (((np.arange(1500) * 13) % 17) - 8).astype(f32) / 8  # exact partial sums in f32
case("cumsum_long_f32", "cumsum", [cfl], np.cumsum(cfl), params={"axis": 0})
cfl2 = cfl.copy()
cfl2[800] = nan
case("cumsum_long_nan", "cumsum", [cfl2], np.cumsum(cfl2), params={"axis": 0})
cb_long = (np.arange(1000) % 3 == 0)
case("cumsum_long_bool", "cumsum", [cb_long], np.cumsum(cb_long), params={"axis": 0})
sl = np.stack([lvf, np.full(LN, -inf, f32), np.where(np.arange(LN) == 650, 0, -inf).astype(f32)])
case("softmax_long_rows", "softmax", [sl], softmax(sl, -1).astype(f32), params={"axis": -1}, tol=TR, rule="numpy formula (torch.softmax agrees)")
case("log_softmax_long_rows", "log_softmax", [sl], log_softmax(sl, -1).astype(f32), params={"axis": -1}, tol=TR, rule="numpy formula")
case("logsumexp_long_rows", "logsumexp", [sl], lse(sl, 1).astype(f32), params={"axes": [-1]}, tol=TR)
case("norm_long_inf", "norm", [lvf], np.array(np.max(np.abs(lvf)), f32), params={"ord": "inf", "axes": None})
case("norm_long_0", "norm", [lvn], np.array(np.count_nonzero(lvn), f32), params={"ord": 0, "axes": None})
case("var_long", "var", [lvf.reshape(7, 100)], np.var(lvf.reshape(7, 100).astype(f64), axis=-1, ddof=1).astype(f32), params={"ddof": 1, "axes": [-1]}, tol=1e-5)

# --- operand dtypes and broadcasting of the nn and linalg ops -------------------------------------------------
case("layer_norm_weight_dtype", "layer_norm", [lnx, lnw.astype(f64)], error="ErrDType", params={"shape": [4], "eps": 1e-5, "weight": True}, rule="tessera doc: weight has x's dtype (torch raises)")
case("rms_norm_weight_dtype", "rms_norm", [lnx, lnw.astype(f64)], error="ErrDType", params={"shape": [4], "eps": 1e-5, "weight": True}, rule="tessera doc: weight has x's dtype (torch raises)")
case("sdpa_mask_f64_for_f32", "sdpa", [aq, ak, av, am_.astype(f64)], error="ErrDType", rule="tessera doc: a Bool mask or one of q's dtype (torch raises)")
case("sdpa_negative_scale", "sdpa", [aq, ak, av], sdpa(aq, ak, av, scale=-0.5).astype(f32), params={"scale": -0.5}, tol=LA32, rule=SD)
case("sdpa_mask_2d_broadcast", "sdpa", [np.stack([aq, aq]), np.stack([ak, ak]), np.stack([av, av]), am_], np.stack([sdpa(aq, ak, av, mask=am_)] * 2).astype(f32), tol=LA32, rule=SD)
case("solve_b_batch_larger", "solve", [B3.astype(f32), np.stack([np.eye(3), 2 * np.eye(3)])[:, :, :2].astype(f32)],
     clean(np.linalg.solve(B3, np.stack([np.eye(3), 2 * np.eye(3)])[:, :, :2]), f32), tol=LA32 * 10, rule="torch.linalg.solve (batches broadcast)")
case("lstsq_under_batch", "lstsq", [np.stack([tall.T, 2 * tall.T]).astype(f32), np.array([1, 2], f32)],
     clean(np.stack([np.linalg.lstsq(tall.T, np.array([1, 2], f64), rcond=None)[0], np.linalg.lstsq(2 * tall.T, np.array([1, 2], f64), rcond=None)[0]]), f32), tol=LA32 * 10, rule="numpy lstsq (minimum norm), b broadcast")
case("gather_i32_negative", "gather", [x23, np.array([[0], [-1]], i32)], error="ErrAxis", params={"axis": 1}, rule="pytorch (an error)")
case("scatter_add_i32_negative", "scatter_add", [st1, np.array([[-2]], i32), np.array([[1]], f32)], error="ErrAxis", params={"axis": 0}, rule="pytorch (an error)")
case("index_select_i32_negative", "index_select", [x23, np.array([0, -3], i32)], error="ErrAxis", params={"axis": 1}, rule="pytorch (an error; np.take would wrap)")
case("gather_empty_source_axis", "gather", [np.zeros((2, 0), f32), np.zeros((2, 0), i64)], np.zeros((2, 0), f32), params={"axis": 1})
case("gather_empty_source_oob", "gather", [np.zeros((2, 0), f32), np.zeros((2, 1), i64)], error="ErrAxis", params={"axis": 1}, rule="pytorch (index 0 out of an empty axis)")
case("gather_empty_source_oob_i32", "gather", [np.zeros((2, 0), f32), np.zeros((2, 1), i32)], error="ErrAxis", params={"axis": 1}, rule="pytorch (index 0 out of an empty axis)")
case("index_select_empty_source_oob", "index_select", [np.zeros((2, 0), f32), np.zeros((1,), i64)], error="ErrAxis", params={"axis": 1}, rule="pytorch (index 0 out of an empty axis)")
case("scatter_add_empty_target_oob", "scatter_add", [np.zeros((2, 0), f32), np.zeros((2, 1), i64), np.ones((2, 1), f32)], error="ErrAxis", params={"axis": 1}, rule="pytorch (index 0 out of an empty axis)")
# MaskedFill's value "is converted to t's dtype": here by Cast's rule (truncate, saturate, NaN gives 0);
# torch raises for a value outside the dtype's range
MF = "tessera doc: value converted to t's dtype, as Cast does (torch raises on overflow)"
case("masked_fill_u8_negative", "masked_fill", [np.array([1, 2], u8), np.array([True, False])], np.array([cast_doc(np.array([-1.0]), u8)[0], 2], u8), params={"value": -1}, rule=MF)
case("masked_fill_i32_huge", "masked_fill", [np.array([1, 2], i32), np.array([True, False])], np.array([cast_doc(np.array([3e9]), i32)[0], 2], i32), params={"value": 3e9}, rule=MF)
case("masked_fill_i32_nan", "masked_fill", [np.array([1, 2], i32), np.array([True, False])], np.array([0, 2], i32), params={"value": "nan"}, rule=MF)
case("masked_fill_u8_fraction", "masked_fill", [np.array([1, 2], u8), np.array([True, False])], np.array([255, 2], u8), params={"value": 255.9}, rule=MF)
case("where_cond_view_broadcast", "where", [np.array([[True, False], [False, True], [True, True]]), np.arange(3, dtype=f32), np.array([[-1], [-2]], f32)],
     np.where(np.array([[True, False], [False, True], [True, True]]).T, np.arange(3, dtype=f32), np.array([[-1], [-2]], f32)), params={"view": "T"})
case("one_hot_i64_large", "one_hot", [np.array([2**40], i64)], error="ErrValue", params={"classes": 3}, rule="pytorch one_hot (an error)")
case("cholesky_batch_second_bad", "cholesky", [np.stack([A3, -A3]).astype(f32)], error="ErrValue", rule="tessera doc")
case("eigh_batch_empty", "eigh_w", [np.zeros((0, 2, 2), f32)], np.zeros((0, 2), f32), rule="numpy eigh")
case("inv_f64_hilbert", "inv", [1 / (np.arange(4)[:, None] + np.arange(4)[None, :] + 1.0)], np.linalg.inv(1 / (np.arange(4)[:, None] + np.arange(4)[None, :] + 1.0)), tol=1e-8)

# === coverage extension 3: half precision, the remaining ops, demanding edges ====
# F16 is NumPy's float16. BF16 has no NumPy dtype: a BF16 holds float32 values
# already on the bfloat16 grid (written with dtype "bf16"), and bf16() rounds
# to that grid, ties to even (PyTorch's rule, c10::BFloat16's round_to_nearest_even).
# tessera computes both in float32 and rounds once into the result (docs/
# architecture.md, "Dtype rules"), which is PyTorch's opmath rule: for +, -, *, /
# that is the correctly rounded result, NumPy's float16 result too, so those
# cases are exact; a sum or mean accumulates in float32 and rounds once, where
# NumPy's float16 sum rounds every step, and those cases say so.
f16 = np.float16
DT[np.dtype(f16)] = "f16"


def round_grid(x, mant, emin, emax):
    """x rounded once (from float64, exactly) to the binary format with mant
    fraction bits, minimum normal exponent emin and maximum exponent emax:
    ties to even, subnormals below 2^emin, overflow to ±Inf, NaN kept."""
    x = np.asarray(x, f64)
    _, e = np.frexp(x)
    q = np.maximum(e - 1, emin) - mant
    y = np.ldexp(np.rint(np.ldexp(x, -q)), q)
    big = (2 - 2.0**-mant) * 2.0**emax
    return np.where(np.abs(y) > big, np.copysign(inf, x), y)


class BF16:
    """A bfloat16 array: float32 values on the bfloat16 grid."""

    def __init__(self, a):
        a = np.asarray(a, f32)
        r = bf16_grid(a)
        assert np.array_equal(r, a, equal_nan=True), a
        self.a = a
        self.shape = a.shape

    @property
    def T(self):
        return BF16(np.swapaxes(self.a, -1, -2))


def bf16_grid(x):
    return round_grid(x, 7, -126, 127).astype(f32)


def bf16(x):
    """x rounded once to bfloat16 (from float32 this is PyTorch's rounding)."""
    return BF16(bf16_grid(x))


def f16r(x):
    """x rounded once to float16 from float64 (NumPy's double-to-half)."""
    return np.asarray(x, f64).astype(f16)


_enc0 = enc


def enc(a):  # noqa: F811 (extends enc with BF16)
    if isinstance(a, BF16):
        d = _enc0(a.a)
        d["dtype"] = "bf16"
        return d
    return _enc0(a)


def F(a):
    """the float32 values of a half array (exact)."""
    return a.a if isinstance(a, BF16) else np.asarray(a, f32)


# the rounding helper agrees with NumPy's float16 on the hard cases
_chk = np.array([1 + 2.0**-11, 1 + 3 * 2.0**-11, 2.0**-25, 3 * 2.0**-26, 2.0**-24 * 1.5, 65519.99, 65520, 1e-8, -2.0**-25, nan, inf, -0.0,
                 1 + 2.0**-11 + 2.0**-40, 0.1, 2049, 2051], f64)
assert np.array_equal(round_grid(_chk, 10, -14, 15), _chk.astype(f16).astype(f64), equal_nan=True)
assert all(np.signbit(round_grid(_chk, 10, -14, 15)) == np.signbit(_chk.astype(f16)))
HALF = (("f16", f16r, 1e-3), ("bf16", bf16, 8e-3))  # name, rounding, one ulp relative (2^-10, 2^-7)
HR = "pytorch (computed in float32, rounded once)"

# --- Cast into and out of the half types ---------------------------------------------
hc16 = np.array([0.1, 1 + 2.0**-11, 1 + 3 * 2.0**-11, 2049, 2051, 65504, 65519, 65520, 1e5, -1e5, 2.0**-14, 2.0**-24, 2.0**-25, 3 * 2.0**-26,
                 2.0**-24 * 1.5, 2.0**-24 * 2.5, 1e-8, -1e-8, -0.0, nan, inf, -inf, -65520, 6.1e-5], f32)
case("cast_f32_f16_rounds", "cast", [hc16], hc16.astype(f16), params={"dtype": "f16"}, rule="numpy (ties to even, overflow to Inf, subnormals)")
hcb = np.array([0.1, 1 + 2.0**-8, 1 + 3 * 2.0**-8, 1 + 2.0**-8 + 2.0**-20, 257, 259, 3.3895313e38, 3.3961775e38, 3.4e38, -3.4e38, 2.0**-126,
                2.0**-133, 2.0**-134, 3 * 2.0**-135, 1e-45, -0.0, nan, inf, -inf, 65520, 1e-8], f32)
case("cast_f32_bf16_rounds", "cast", [hcb], bf16(hcb), params={"dtype": "bf16"}, rule="pytorch (round to nearest even from float32; overflow to Inf; subnormals kept)")
case("cast_f16_f32_exact", "cast", [hc16.astype(f16)], hc16.astype(f16).astype(f32), params={"dtype": "f32"})
case("cast_bf16_f32_exact", "cast", [bf16(hcb)], bf16(hcb).a, params={"dtype": "f32"}, rule="pytorch (exact)")
case("cast_f16_f64_exact", "cast", [hc16.astype(f16)], hc16.astype(f16).astype(f64), params={"dtype": "f64"})
case("cast_bf16_f64_exact", "cast", [bf16(hcb)], bf16(hcb).a.astype(f64), params={"dtype": "f64"}, rule="pytorch (exact)")
# from float64 in one rounding: through float32 these would tie and go to even
h64 = np.array([1 + 2.0**-11 + 2.0**-40, 1 + 2.0**-11 - 2.0**-40, -(1 + 2.0**-11 + 2.0**-40), 65519.999999, 65520.0, 1e-300, 2.0**-25 + 2.0**-60, 0.1], f64)
case("cast_f64_f16_one_rounding", "cast", [h64], h64.astype(f16), params={"dtype": "f16"}, rule="numpy (one rounding from float64)")
b64 = np.array([1 + 2.0**-8 + 2.0**-40, 1 + 2.0**-8 - 2.0**-40, -(1 + 2.0**-8 + 2.0**-40), 1e300, 1e-300, 2.0**-134 + 2.0**-160, 0.1], f64)
case("cast_f64_bf16_one_rounding", "cast", [b64], bf16(b64), params={"dtype": "bf16"},
     rule="tessera doc: one rounding from float64 (PyTorch rounds through float32, so its 1+2^-8+2^-40 gives 1)")
hb = np.array([1 + 2.0**-8 + 2.0**-10, 1 + 2.0**-8, 1 + 3 * 2.0**-8, 65504, 2.0**-24, -0.0, nan, inf, 0.1], f16)
case("cast_f16_bf16", "cast", [hb], bf16(hb.astype(f32)), params={"dtype": "bf16"}, rule=HR)
bh = bf16(np.array([1 + 2.0**-7, 3.3895313e38, 65536, 65504, 2.0**-26, 2.0**-126, -0.0, nan, -inf, 0.1], f32))
case("cast_bf16_f16", "cast", [bh], bh.a.astype(f16), params={"dtype": "f16"}, rule=HR)
hi = np.array([1.9, -1.9, 0.5, -0.5, 65504, -65504, 2.5, -0.0, nan, inf, -inf, 300.5], f16)
case("cast_f16_i32", "cast", [hi], cast_doc(hi.astype(f64), i32), params={"dtype": "i32"}, rule="tessera doc: truncate, saturate, NaN gives 0")
case("cast_f16_u8", "cast", [hi], cast_doc(hi.astype(f64), u8), params={"dtype": "u8"}, rule="tessera doc: truncate, saturate, NaN gives 0")
bi = bf16(np.array([1.9, -1.9, 3e9, -3e9, 1e20, 255.5, nan, inf, -inf], f32))
case("cast_bf16_i32", "cast", [bi], cast_doc(bi.a.astype(f64), i32), params={"dtype": "i32"}, rule="tessera doc: truncate, saturate, NaN gives 0")
case("cast_bf16_i64", "cast", [bi], cast_doc(bi.a.astype(f64), i64), params={"dtype": "i64"}, rule="tessera doc: truncate, saturate, NaN gives 0")
ih = np.array([2049, 2051, 65519, 65520, -70000, 1, 0, 16777217], i32)
case("cast_i32_f16", "cast", [ih], ih.astype(f16), params={"dtype": "f16"}, rule="numpy (one rounding, overflow to Inf)")
case("cast_i32_bf16", "cast", [ih], bf16(ih.astype(f64)), params={"dtype": "bf16"}, rule="tessera doc: one rounding (PyTorch through float32 agrees for these)")
case("cast_bool_f16", "cast", [np.array([True, False])], np.array([1, 0], f16), params={"dtype": "f16"})
case("cast_f16_bool", "cast", [np.array([0, -0.0, nan, 2.0**-24, -inf], f16)], np.array([0, -0.0, nan, 2.0**-24, -inf], f16).astype(b_), params={"dtype": "bool"})
case("cast_bf16_bool", "cast", [bf16(np.array([0, -0.0, nan, 1e-40, -inf], f32))], np.array([False, False, True, True, True]), params={"dtype": "bool"})
vcase("cast_f32_f16_transposed", "cast", np.array([[0.1, 2049, 65520], [2.0**-25, -0.0, 3.14159]], f32), "T", lambda a: a.astype(f16), params={"dtype": "f16"})
case("cast_f16_empty", "cast", [np.zeros((0, 2), f16)], np.zeros((0, 2), f32), params={"dtype": "f32"})
case("cast_f32_f16_0d", "cast", [np.array(65520, f32)], np.array(inf, f16), params={"dtype": "f16"})

# --- arithmetic: one rounding of the exact result, so exact references ----------------------------
ha = np.array([2048, 2048, 65504, 0.1, 1, -0.0, 2.0**-14, 1e-4, 1, 0, -1, inf, inf, 3, 1000, 2.0**-24], f64)
hb_ = np.array([1, 3, 16, 0.2, 3, -0.0, 2.0**-5, 1e-4, 0, 0, 0, -inf, 2, 7, 0.001, 0.5], f64)
for hn, rnd, _ in HALF:
    x, y = rnd(ha), rnd(hb_)
    fx, fy = F(x).astype(f64), F(y).astype(f64)
    for nm, fn in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)):
        case(f"{nm}_{hn}", nm, [x, y], rnd(fn(fx, fy)), rule=HR + ": the correctly rounded result")
    case(f"add_{hn}_broadcast_T", "add", [rnd(np.array([[1, 2.5, 2048], [0.1, -3, 65504]], f64)), rnd(np.array([1, 0.3], f64))],
         rnd(F(rnd(np.array([[1, 2.5, 2048], [0.1, -3, 65504]], f64))).astype(f64).T + F(rnd(np.array([1, 0.3], f64))).astype(f64)),
         params={"view": "T"}, rule=HR)
    case(f"mul_{hn}_0d", "mul", [rnd(np.array(3.0)), rnd(np.array(0.1))], rnd(3 * F(rnd(np.array(0.1))).astype(f64)), rule=HR)
case("add_f16_bf16_promotes_f32", "add", [f16r([0.1, 2049]), bf16([0.1, 2049])], (f16r([0.1, 2049]).astype(f32) + bf16([0.1, 2049]).a), rule="pytorch promote_types: f16 with bf16 is f32")
case("mul_f16_f32_promotes", "mul", [f16r([0.1, 3]), np.array([3, 0.1], f32)], f16r([0.1, 3]).astype(f32) * np.array([3, 0.1], f32), rule="numpy (f16 with f32 is f32)")
case("add_i32_f16", "add", [np.array([2049, 1], i32), f16r([1, 0.5])], f16r(np.array([2048 + 1, 1.5])), rule="pytorch (the float's dtype: the i32 operand is cast to f16 first, 2049 to 2048; NumPy: f64)")
case("add_f16_0d_f32_keeps_f16", "add", [f16r([2048, 1]), np.array(1, f32)], f16r([2048, 2]), rule="pytorch result_type (a 0-d f32 does not widen f16; NumPy 1.24 agrees)")
case("add_bf16_0d_f64_keeps_bf16", "add", [bf16([256, 1]), np.array(1, f64)], bf16([256, 2]), rule="pytorch result_type (a 0-d f64 does not widen bf16)")
case("add_scalar_f16_rounds", "add_scalar", [f16r([2048, 1, 65504])], f16r([2048, 1.099609375, 65504]), params={"v": 0.1},
     rule="numpy and pytorch (2048+0.1 and 65504+0.1 round back; 1+0.1 to f16 either way)")

# --- reductions: float32 accumulation, one rounding -----------------------------------------------
hs = np.array([2048, 1, 1, 1, 1, 1, 1, 1, 1], f64)  # f16 steps lose every 1; float32 keeps them
case("sum_f16_f32_accumulation", "sum", [f16r(hs)], f16r(np.sum(hs)), params={"axes": None},
     rule="pytorch and numpy (float32 accumulation, one rounding; rounding every step to f16 would give 2048)")
case("mean_f16_f32_accumulation", "mean", [f16r(hs)], f16r(np.float32(np.sum(hs)) / np.float32(hs.size)), params={"axes": None},
     rule="pytorch and numpy (float32 accumulation, one rounding)")
bs = np.array([256, 1, 1, 1, 1, 0.5, 0.5], f64)
case("sum_bf16_f32_accumulation", "sum", [bf16(bs)], bf16(np.sum(bs)), params={"axes": None}, rule="pytorch (float32 accumulation, one rounding)")
case("mean_bf16_f32_accumulation", "mean", [bf16(bs)], bf16(np.float32(np.sum(bs)) / np.float32(bs.size)), params={"axes": None}, rule="pytorch (float32 accumulation, one rounding)")
hm = np.array([[1, 2, 3, 2048], [0.5, 0.25, 0.125, 65504], [1, 1, 1, 1]], f64)
hm2 = np.array([[0.1, 0.2, 0.3], [1e4, 2e4, 3e4], [-1, 1, -0.0]], f64)
for hn, rnd, ulp in HALF:
    x = rnd(hm)
    fx = F(x).astype(f64)  # exact sums: float32 holds them
    case(f"sum_{hn}_neg1", "sum", [x], rnd(np.sum(fx, axis=-1)), params={"axes": [-1]}, rule=HR)
    case(f"sum_{hn}_axis0_keep", "sum", [x], rnd(np.sum(fx, axis=0, keepdims=True)), params={"axes": [0], "keepdims": True}, rule=HR)
    case(f"mean_{hn}_neg1", "mean", [x], rnd(np.sum(fx, axis=-1).astype(f32) / f32(4)), params={"axes": [-1]}, rule=HR)
    case(f"mean_{hn}_keep_all", "mean", [x], rnd(np.array([[np.float32(np.sum(fx)) / f32(12)]])), params={"axes": None, "keepdims": True}, rule=HR)
    case(f"sum_{hn}_overflow", "sum", [rnd(np.array([65504, 65504], f64) if hn == "f16" else np.array([3e38, 3e38]))], np.array(inf, f32).astype(f16) if hn == "f16" else BF16(np.array(inf, f32)),
         params={"axes": None}, rule=HR + " (overflow to Inf)")
    case(f"sum_{hn}_empty", "sum", [rnd(np.zeros((0, 2)))], rnd(np.zeros(2)), params={"axes": [0]})
    case(f"mean_{hn}_empty", "mean", [rnd(np.zeros((0, 2)))], rnd(np.full(2, nan)), params={"axes": [0]})
    x2 = rnd(hm2)
    vcase(f"sum_{hn}_view_T", "sum", x2, "T", lambda a, r=rnd: r(np.sum(F(a).astype(f32), axis=-1, dtype=f32)), params={"axes": [-1]}, tol=ulp, rule=HR)
    xn = rnd(np.array([[1, nan, 3, nan], [-inf, 2, 0, 5], [7, 7, -1, -1]], f64))
    fn_ = F(xn)
    for nm, fn in (("max", np.max), ("min", np.min)):
        case(f"{nm}_{hn}_nan", nm, [xn], rnd(fn(fn_, axis=-1)), params={"axes": [-1]}, rule="numpy (NaN wins)")
        case(f"{nm}_{hn}_keep_axis0", nm, [xn], rnd(fn(fn_, axis=0, keepdims=True)), params={"axes": [0], "keepdims": True}, rule="numpy (NaN wins)")
    for nm, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
        case(f"{nm}_{hn}_nan_first", nm, [xn], fn(fn_, axis=-1), params={"axis": -1}, rule="numpy (the first NaN; ties: the first)")
        case(f"{nm}_{hn}_keep_axis0", nm, [xn], fn(fn_, axis=0, keepdims=True), params={"axis": 0, "keepdims": True})
    case(f"prod_{hn}", "prod", [rnd(np.array([[2, 3, 0.5], [256, 256, 2]]))], rnd(np.prod(np.array([[2, 3, 0.5], [256, 256, 2]]), axis=-1)), params={"axes": [-1]}, rule=HR + " (overflow to Inf)" if hn == "f16" else HR)
    cs = np.array([2048, 1, 1, 1, 0.5, 0.25], f64) if hn == "f16" else np.array([256, 1, 1, 1, 0.5, 0.25], f64)
    case(f"cumsum_{hn}", "cumsum", [rnd(cs)], rnd(np.cumsum(cs)), params={"axis": 0}, rule="pytorch (scans accumulate in float32, each output rounded once)")

# --- matmul: float32 accumulation of exact products, one rounding ---------------------------------
ma = np.array([[1, 2, 3], [0.5, 0.25, 2048], [-1, 65504 / 4096, 7]], f64)
mb = np.array([[1, 0.5], [3, -1], [1, 0.125]], f64)
for hn, rnd, _ in HALF:
    A, B = rnd(ma), rnd(mb)
    fa_, fb_ = F(A).astype(f64), F(B).astype(f64)
    ref = fa_ @ fb_
    assert np.array_equal(ref, (F(A) @ F(B)).astype(f64))  # float32 exact, so any order
    case(f"matmul_{hn}", "matmul", [A, B], rnd(ref), rule=HR)
    case(f"matmul_{hn}_1d", "matmul", [rnd(ma[0]), B], rnd(fa_[0] @ fb_), rule=HR)
    case(f"matmul_{hn}_view_T", "matmul", [A, rnd(ma)], rnd(fa_.T @ F(rnd(ma)).astype(f64)), params={"view": "T"}, rule=HR)
    case(f"matmul_{hn}_batch", "matmul", [rnd(np.stack([ma, -ma])), B], rnd(np.stack([ref, -ref])), rule=HR)
    case(f"matmul_{hn}_k0", "matmul", [rnd(np.zeros((2, 0))), rnd(np.zeros((0, 3)))], rnd(np.zeros((2, 3))))
# a sum that float32 holds and half does not: 2048 + 1 + 1 = 2050 (f16 steps: 2048)
case("matmul_f16_f32_accumulation", "matmul", [f16r([[2048, 1, 1]]), f16r([[1], [1], [1]])], f16r([[2050]]), rule=HR)
case("matmul_f16_f32_mixed", "matmul", [f16r([[1, 2]]), np.array([[1], [2]], f32)], error="ErrDType", rule="tessera doc: Matmul of mixed dtypes is an ErrDType (PyTorch raises)")

# --- elementwise functions: the float64 value rounded once, within one ulp (float32 compute) ----------
hu = np.array([0.5, -0.5, 1, -1, 2, 3, -3, 0.1, 10, -10], f64)
hspec = np.array([nan, inf, -inf, 0.0, -0.0], f64)
for hn, rnd, ulp in HALF:
    for nm, fn in (("exp", np.exp), ("tanh", np.tanh), ("sigmoid", sigmoid)):
        x = rnd(hu)
        case(f"{nm}_{hn}_values", nm, [x], rnd(fn(F(x).astype(f64))), tol=ulp, rule=HR)
        case(f"{nm}_{hn}_special", nm, [rnd(hspec)], rnd(fn(hspec)), rule=HR)
    case(f"relu_{hn}", "relu", [rnd(np.array([nan, inf, -inf, -0.0, 0.0, -1, 0.1, 65504]))], rnd(np.array([nan, inf, 0, 0, 0, 0, F(rnd(np.array(0.1))).item(), 65504])), rule="tessera doc: -0 gives +0")
    case(f"exp_{hn}_overflow", "exp", [rnd(np.array([12, 89, -18, -110]))], rnd(np.exp(F(rnd(np.array([12, 89, -18, -110]))).astype(f64))), tol=ulp, rule=HR)
    vcase(f"tanh_{hn}_view_T", "tanh", rnd(np.array([[0.5, 1, 2], [-0.5, -1, -2]])), "T", lambda a, r=rnd: r(np.tanh(F(a).astype(f64))), tol=ulp, rule=HR)

# --- comparisons, Where, Concat, views -------------------------------------------------------------
ca = np.array([1, nan, 2049, 0.1, -0.0, inf, 65504], f64)
cb_ = np.array([1, nan, 2048, 0.1, 0.0, inf, 65520], f64)
for hn, rnd, _ in HALF:
    x, y = rnd(ca), rnd(cb_)
    fx, fy = F(x), F(y)
    for nm, fn in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)):
        case(f"{nm}_{hn}", nm, [x, y], fn(fx, fy), rule="numpy (on the rounded values)")
    case(f"eq_{hn}_f32", "eq", [x, np.array([1, nan, 2049, 0.1, 0, inf, 65504], f32)], np.equal(fx, np.array([1, nan, 2049, 0.1, 0, inf, 65504], f32)),
         rule="numpy (compared in f32: the rounded 0.1 is not f32's 0.1)")
    case(f"lt_scalar_{hn}", "lt_scalar", [x], np.less(fx, F(rnd(np.array(0.1)))), params={"v": 0.1}, rule="numpy and pytorch (the scalar in the tensor's dtype: 0.1 rounded to it)")
    w_ = np.array([True, False, True, False, True, False, True])
    case(f"where_{hn}", "where", [w_, x, y], np.where(w_, fx, fy).astype(f16) if hn == "f16" else BF16(np.where(w_, fx, fy)))
    case(f"where_{hn}_f32", "where", [w_, x, np.zeros(7, f32)], np.where(w_, fx, f32(0)), rule="numpy (f32)")
    c1 = rnd(np.array([[1, 2], [3, 0.1]]))
    c2 = rnd(np.array([[2049, nan]]))
    case(f"concat_{hn}", "concat", [c1, c2], rnd(np.concatenate([F(c1), F(c2)]).astype(f64)), params={"axis": 0})
    c2t = rnd(F(c2).T.astype(f64))
    case(f"concat_{hn}_view_T", "concat", [c1, c2t], rnd(np.concatenate([F(c1).T, F(c2t)], axis=1).astype(f64)), params={"axis": 1, "view": "T"})
    case(f"concat_{hn}_f32", "concat", [c1, np.array([[7, 8]], f32)], np.concatenate([F(c1), np.array([[7, 8]], f32)]), params={"axis": 0}, rule="pytorch (f32)")
    xc = rnd(np.array([[1, 2, 3], [4, 5, 0.1]]))
    case(f"contiguous_{hn}", "contiguous", [xc], rnd(F(xc).T[::-1].astype(f64)), rule="numpy (T then flip(0), copied)")
    vcase(f"neg_{hn}_view_flip", "neg", rnd(np.array([[1, -0.0, 3], [nan, 0.0, -inf]])), "flip", lambda a, r=rnd: r(-F(a).astype(f64)))
    x6 = rnd(np.array([[1, 9, nan, 9, 3, 9], [-0.0, 1, 2.5, 1, 0.1, 1]]))
    case(f"maximum_{hn}_view_step2", "maximum", [x6, rnd(np.array([2.0]))], rnd(np.maximum(F(x6)[..., ::2], 2).astype(f64)), params={"view": "step2"}, rule="numpy (NaN wins)")
case("concat_f16_bf16", "concat", [f16r([0.1]), bf16([0.1])], np.concatenate([f16r([0.1]).astype(f32), bf16([0.1]).a]), params={"axis": 0}, rule="pytorch promote_types (f32)")
case("clamp_f16_lo_above_hi", "clamp", [f16r([-1, 0.5, 3, nan])], f16r(np.clip(np.array([-1, 0.5, 3, nan]), 2, 1)), params={"lo": 2, "hi": 1}, rule="numpy clip (lo > hi gives hi)")
case("clamp_bf16", "clamp", [bf16([-1, 0.5, 3, nan, -inf])], bf16(np.clip(np.array([-1, 0.5, 3, nan, -inf], f32), f32(0.1), f32(2))), params={"lo": 0.1, "hi": 2},
     rule="pytorch (the bound rounded in float32, the result rounded once)")

# --- Erf, GeluTanh --------------------------------------------------------------------------------
erf_ = np.vectorize(math.erf, otypes=[f64])
case("erf_special", "erf", [SPECIAL], erf_(SPECIAL.astype(f64)).astype(f32), rule="math.erf (erf(±Inf) = ±1, signed zeros kept)")
ev = np.array([1e-7, -1e-7, 0.5, -0.5, 1, -1, 2, 3.5, -3.5, 6, -6, 1e-30, 0.0625], f32)
case("erf_values", "erf", [ev], erf_(ev.astype(f64)).astype(f32), tol=TR, rule="math.erf")
case("erf_f64", "erf", [ev.astype(f64)], erf_(ev.astype(f64)), tol=1e-12, rule="math.erf")
case("erf_f64_special", "erf", [SPECIAL.astype(f64)], erf_(SPECIAL.astype(f64)), rule="math.erf")
case("erf_i32", "erf", [np.array([0, 1, -2, 100], i32)], erf_(np.array([0, 1, -2, 100], f64)).astype(f32), tol=TR, rule="pytorch (F32; NumPy/scipy: F64)")
case("erf_empty", "erf", [e03], e03)
case("erf_0d", "erf", [np.array(-0.5, f32)], np.array(math.erf(-0.5), f32), tol=TR)
vcase("erf_view_T", "erf", np.array([[0.1, -0.2, 0.3], [1.5, -2.5, 4]], f32), "T", lambda a: erf_(a.astype(f64)).astype(f32), tol=TR)
for hn, rnd, ulp in HALF:
    case(f"erf_{hn}", "erf", [rnd(ev.astype(f64))], rnd(erf_(F(rnd(ev.astype(f64))).astype(f64))), tol=ulp, rule=HR)


def gelu_tanh(x):
    """PyTorch's gelu(approximate='tanh'): x/2 * (1 + tanh(v)), v = sqrt(2/pi) *
    (x + 0.044715 x^3), written as x * sigmoid(2v), the same value without the
    cancellation of 1 + tanh(v) for negative x (float64 throughout)."""
    x = np.asarray(x, f64)
    v = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
    with np.errstate(all="ignore"):
        return np.where(v >= 0, x / (1 + np.exp(-2 * v)), x * np.exp(2 * v) / (1 + np.exp(2 * v)))


gv = np.array([0.5, -0.5, 1, -1, 2, -2, 3, -3, 5, -5, 10, -8, 1e-7, -1e-7, 0.01], f32)
case("gelu_tanh_values", "gelu_tanh", [gv], gelu_tanh(gv).astype(f32), tol=TR, rule="pytorch gelu(approximate='tanh')")
case("gelu_tanh_f64", "gelu_tanh", [gv.astype(f64)], gelu_tanh(gv.astype(f64)), tol=1e-12, rule="pytorch gelu(approximate='tanh')")
case("gelu_tanh_exact", "gelu_tanh", [np.array([nan, inf, 0.0, -0.0, 100, 1e30], f32)], np.array([nan, inf, 0.0, -0.0, 100, 1e30], f32),
     rule="pytorch gelu(approximate='tanh') (x/2*(1+tanh(v)): ±0 kept, x for large x)")
case("gelu_tanh_large_negative", "gelu_tanh", [np.array([-30, -100, -1e30], f32)], np.array([-0.0, -0.0, -0.0], f32),
     rule="pytorch gelu(approximate='tanh') (tanh(v) = -1: x/2 * 0 = -0)")
case("gelu_tanh_i32", "gelu_tanh", [np.array([0, 1, -1], i32)], gelu_tanh(np.array([0, 1, -1])).astype(f32), tol=TR, rule="pytorch (F32)")
case("gelu_tanh_empty", "gelu_tanh", [e03], e03)
vcase("gelu_tanh_view_flip", "gelu_tanh", np.array([[0.5, -1.5, 2.5], [3, -0.25, 0.75]], f32), "flip", lambda a: gelu_tanh(a).astype(f32), tol=TR)
for hn, rnd, ulp in HALF:
    case(f"gelu_tanh_{hn}", "gelu_tanh", [rnd(gv[:12].astype(f64))], rnd(gelu_tanh(F(rnd(gv[:12].astype(f64))))), tol=ulp, rule=HR)
# Not here: GeluTanh(-Inf). The doc's formula and torch give NaN (-Inf * 0);
# tessera gives -0, the limit (device/optable.go says so in a code comment),
# which its doc comment does not mention, as for Gelu(-Inf) above.

# --- MaximumScalar / MinimumScalar / PowScalar / Atan2Scalar --------------------------------------
ms = np.array([1, nan, -3, 0.0, -0.0, inf, -inf, 2.5], f32)
for nm, fn in (("maximum", np.maximum), ("minimum", np.minimum)):
    for sv, tag in ((0.5, "half"), (-3, "neg3"), ("nan", "nan"), ("inf", "inf"), ("-inf", "neginf")):
        pv = semv = sv if not isinstance(sv, str) else {"nan": nan, "inf": inf, "-inf": -inf}[sv]
        case(f"{nm}_scalar_f32_{tag}", f"{nm}_scalar", [ms[[0, 1, 2, 5, 6, 7]]], fn(ms[[0, 1, 2, 5, 6, 7]], f32(pv)), params={"v": sv}, rule="numpy (NaN wins)")
    case(f"{nm}_scalar_f64", f"{nm}_scalar", [ms.astype(f64)[[0, 1, 2, 7]]], fn(ms.astype(f64)[[0, 1, 2, 7]], 0.1), params={"v": 0.1})
    case(f"{nm}_scalar_i32_int", f"{nm}_scalar", [np.array([-5, 0, 7, -2**31], i32)], fn(np.array([-5, 0, 7, -2**31], i32), i32(2)), params={"v": 2})
    case(f"{nm}_scalar_i32_fraction", f"{nm}_scalar", [np.array([-5, 0, 7], i32)], fn(np.array([-5, 0, 7], f32), f32(0.5)), params={"v": 0.5},
         rule="pytorch (a fraction computes in F32; NumPy: F64)")
    case(f"{nm}_scalar_u8", f"{nm}_scalar", [np.array([0, 7, 255], u8)], fn(np.array([0, 7, 255], u8), u8(7)), params={"v": 7})
    case(f"{nm}_scalar_empty", f"{nm}_scalar", [e03], e03, params={"v": 1})
    case(f"{nm}_scalar_0d", f"{nm}_scalar", [np.array(nan, f32)], np.array(nan, f32), params={"v": 1}, rule="numpy (NaN wins)")
    vcase(f"{nm}_scalar_view_T", f"{nm}_scalar", np.array([[1, 5, nan], [-2, 3, 0]], f32), "T", lambda a, fn=fn: fn(a, f32(2)), params={"v": 2})
    for hn, rnd, _ in HALF:
        x = rnd(np.array([1, nan, -3, 2049, 0.1]))
        case(f"{nm}_scalar_{hn}", f"{nm}_scalar", [x], rnd(fn(F(x), F(rnd(np.array(0.1)))).astype(f64)), params={"v": 0.1},
             rule="numpy (the scalar rounded to the tensor's dtype; NaN wins)")
# Maximum/Minimum of two Bool tensors: the logical or/and (NumPy, torch).
# Not here: their scalar forms on Bool, an ErrDType as Bool arithmetic with
# an integer is (NumPy's Python int makes the result int64).
bt = np.array([[True, False, True, False]])
bu = np.array([[True], [False]])
for nm, fn in (("maximum", np.maximum), ("minimum", np.minimum)):
    case(f"{nm}_bool", nm, [bt[0], bt[0][::-1].copy()], fn(bt[0], bt[0][::-1]))
    case(f"{nm}_bool_broadcast", nm, [bt, bu], fn(bt, bu))
    case(f"{nm}_bool_empty", nm, [np.zeros((0, 2), bool), np.ones(2, bool)], fn(np.zeros((0, 2), bool), np.ones(2, bool)))
    case(f"{nm}_bool_i32", nm, [bt[0], np.array([2, 0, -1, 1], np.int32)], fn(bt[0].astype(np.int32), np.array([2, 0, -1, 1], np.int32)))
# an out-of-range integer bound: no bound where it never binds, else ErrValue (tessera doc)
case("maximum_scalar_u8_negative_never_binds", "maximum_scalar", [np.array([0, 7, 255], u8)], np.array([0, 7, 255], u8), params={"v": -1},
     rule="tessera doc: an out-of-range bound that never binds is no bound (NumPy 1.24 widens to int16)")
case("minimum_scalar_u8_negative_binds", "minimum_scalar", [np.array([0, 7, 255], u8)], error="ErrValue", params={"v": -1},
     rule="tessera doc: an out-of-range bound that binds is an ErrValue (torch: overflow error)")
case("minimum_scalar_i32_huge_never_binds", "minimum_scalar", [np.array([-5, 2**31 - 1], i32)], np.array([-5, 2**31 - 1], i32), params={"v": 1e10},
     rule="tessera doc: an out-of-range bound that never binds is no bound")
case("maximum_scalar_i32_huge_binds", "maximum_scalar", [np.array([-5, 2**31 - 1], i32)], error="ErrValue", params={"v": 1e10},
     rule="tessera doc: an out-of-range bound that binds is an ErrValue")

pw = np.array([2, -2, 0.0, -0.0, 0.5, 4, nan, inf, -inf, 1, -8], f32)
for sv, tag in ((2, "2"), (0.5, "half"), (-1, "neg1"), (0, "0"), (3, "3"), (-0.5, "neghalf"), ("inf", "inf"), ("nan", "nan"), (1.5, "1p5")):
    pv = sv if not isinstance(sv, str) else {"nan": nan, "inf": inf}[sv]
    exact = pv in (2, 0, -1, 3, inf) or pv != pv
    case(f"pow_scalar_f32_{tag}", "pow_scalar", [pw], f64ref(lambda a: np.power(a, pv), pw), params={"v": sv}, tol=0 if exact else TR, rule="numpy (C99 pow special values)")
case("pow_scalar_f64_third", "pow_scalar", [np.array([8, 27, 2, 1e-300, 1e300], f64)], np.power(np.array([8, 27, 2, 1e-300, 1e300], f64), 1 / 3), params={"v": 1 / 3}, tol=1e-15)
case("pow_scalar_i32_wraps", "pow_scalar", [np.array([2, -3, 7, 0, -1], i32)], np.power(np.array([2, -3, 7, 0, -1], i32), 31), params={"v": 31}, rule="numpy (wraps in i32)")
case("pow_scalar_i32_zero", "pow_scalar", [np.array([2, -3, 0], i32)], np.power(np.array([2, -3, 0], i32), 0), params={"v": 0})
assert raises(lambda: np.power(np.array([2], i32), -1))
case("pow_scalar_i32_negative", "pow_scalar", [np.array([2, 1], i32)], error="ErrValue", params={"v": -1}, rule="numpy and pytorch (an integer to a negative integer power raises)")
case("pow_scalar_i32_fraction", "pow_scalar", [np.array([4, 2, 0], i32)], np.power(np.array([4, 2, 0], f32), f32(0.5)), params={"v": 0.5}, tol=TR, rule="pytorch (F32; NumPy: F64)")
case("pow_scalar_u8_wraps", "pow_scalar", [np.array([2, 3, 16], u8)], np.power(np.array([2, 3, 16], u8), 2), params={"v": 2})
case("pow_scalar_empty", "pow_scalar", [e03], e03, params={"v": 2})
vcase("pow_scalar_view_step2", "pow_scalar", np.array([[1, 9, 2, 9, 3]], f32), "step2", lambda a: np.power(a, f32(2)), params={"v": 2})
for hn, rnd, ulp in HALF:
    x = rnd(np.array([2, 3, 0.5, 255, 300, -2, nan]))
    case(f"pow_scalar_{hn}", "pow_scalar", [x], rnd(np.power(F(x).astype(f64), 2)), params={"v": 2}, rule=HR + " (300^2 overflows f16)")

at = np.array([1, -1, 0.0, -0.0, inf, -inf, nan, 1e-30, -2], f32)
for sv, tag in ((1, "1"), (-1, "neg1"), (0, "0"), ("-0", "negzero"), ("inf", "inf"), ("-inf", "neginf"), ("nan", "nan")):
    pv = sv if not isinstance(sv, str) else {"nan": nan, "inf": inf, "-inf": -inf, "-0": -0.0}[sv]
    case(f"atan2_scalar_f32_{tag}", "atan2_scalar", [at], f64ref(lambda a: np.arctan2(a, pv), at), params={"v": sv}, tol=TR, rule="numpy arctan2(t, v) (C99 special values)")
case("atan2_scalar_f64", "atan2_scalar", [at.astype(f64)], np.arctan2(at.astype(f64), -1.0), params={"v": -1}, tol=1e-15)
case("atan2_scalar_i32", "atan2_scalar", [np.array([1, -1, 0], i32)], f64ref(lambda a: np.arctan2(a, 2.0), np.array([1, -1, 0], f32)), params={"v": 2}, tol=TR, rule="pytorch (F32; NumPy: F64)")
case("atan2_scalar_bool", "atan2_scalar", [np.array([True, False])], f64ref(lambda a: np.arctan2(a, 1.0), np.array([1, 0], f32)), params={"v": 1}, tol=TR, rule="pytorch (F32; NumPy: F16)")
case("atan2_scalar_i32_huge", "atan2_scalar", [np.array([1, -1], i32)], f64ref(lambda a: np.arctan2(a, 1e10), np.array([1, -1], f32)), params={"v": 1e10}, tol=TR, rule="pytorch (F32, the scalar in F32)")
case("atan2_scalar_empty", "atan2_scalar", [e03], e03, params={"v": 1})
for hn, rnd, ulp in HALF:
    x = rnd(np.array([1, -1, 0.0, -0.0, inf, 0.5]))
    case(f"atan2_scalar_{hn}", "atan2_scalar", [x], rnd(np.arctan2(F(x).astype(f64), -1.0)), params={"v": -1}, tol=ulp, rule=HR)

# --- Eye / Full / Ones (constructors: CPU tensors) ----------------------------------------------------
for dn, dt in (("f32", f32), ("f64", f64), ("i32", i32), ("i64", i64), ("u8", u8), ("bool", b_), ("f16", f16)):
    case(f"eye_{dn}", "eye", [], np.eye(3, dtype=dt), params={"dtype": dn, "n": 3})
    case(f"ones_{dn}", "ones", [], np.ones((2, 3), dt), params={"dtype": dn, "shape": [2, 3]})
case("eye_bf16", "eye", [], BF16(np.eye(2, dtype=f32)), params={"dtype": "bf16", "n": 2})
case("ones_bf16", "ones", [], BF16(np.ones(3, f32)), params={"dtype": "bf16", "shape": [3]})
case("eye_0", "eye", [], np.eye(0, dtype=f32), params={"dtype": "f32", "n": 0})
case("eye_1", "eye", [], np.eye(1, dtype=i64), params={"dtype": "i64", "n": 1})
assert raises(lambda: np.eye(-1))
case("eye_negative", "eye", [], error="ErrShape", params={"dtype": "f32", "n": -1})
case("ones_0d", "ones", [], np.ones((), f32), params={"dtype": "f32", "shape": []})
case("ones_empty", "ones", [], np.ones((0, 3), i32), params={"dtype": "i32", "shape": [0, 3]})
assert raises(lambda: np.ones((-1, 2)))
case("ones_negative_shape", "ones", [], error="ErrShape", params={"dtype": "f32", "shape": [-1, 2]})
case("full_negative_shape", "full", [], error="ErrShape", params={"dtype": "f32", "v": 1, "shape": [2, -3]})
for v_, dn, dt in ((2.5, "f32", f32), (0.1, "f64", f64), (-7, "i32", i32), ("nan", "f32", f32), ("-inf", "f64", f64), ("-0", "f32", f32), (0.1, "f16", f16), (65520, "f16", f16), (200, "u8", u8)):
    pv = v_ if not isinstance(v_, str) else {"nan": nan, "-inf": -inf, "-0": -0.0}[v_]
    tag = str(v_).replace(".", "p").replace("-", "m")
    case(f"full_{dn}_{tag}", "full", [], np.full((2, 2), pv, dt), params={"dtype": dn, "v": v_, "shape": [2, 2]}, rule="numpy (one rounding into the dtype)")
case("full_bf16_0p1", "full", [], bf16(np.full((2,), 0.1)), params={"dtype": "bf16", "v": 0.1, "shape": [2]}, rule="pytorch (the value rounded to nearest even)")
case("full_0d", "full", [], np.full((), 3, i64), params={"dtype": "i64", "v": 3, "shape": []})
case("full_empty", "full", [], np.full((3, 0), 1, f32), params={"dtype": "f32", "v": 1, "shape": [3, 0]})
FD = "tessera doc: converted to dt, floats to integers truncate and saturate (NaN gives 0), nonzero is true"
case("full_i32_fraction", "full", [], cast_doc(np.full(2, -2.7), i32), params={"dtype": "i32", "v": -2.7, "shape": [2]}, rule=FD + " (torch.full infers F32 from a float)")
case("full_i32_saturates", "full", [], cast_doc(np.full(2, 1e10), i32), params={"dtype": "i32", "v": 1e10, "shape": [2]}, rule=FD)
case("full_u8_negative_saturates", "full", [], cast_doc(np.full(2, -1.0), u8), params={"dtype": "u8", "v": -1, "shape": [2]}, rule=FD + " (NumPy 1.24 wraps to 255)")
case("full_i64_nan", "full", [], cast_doc(np.full(2, nan), i64), params={"dtype": "i64", "v": "nan", "shape": [2]}, rule=FD)
for v_, tag in ((0.5, "half"), ("nan", "nan"), ("-0", "negzero"), (0, "0")):
    pv = v_ if not isinstance(v_, str) else {"nan": nan, "-0": -0.0}[v_]
    case(f"full_bool_{tag}", "full", [], np.full(2, pv, b_), params={"dtype": "bool", "v": v_, "shape": [2]}, rule="numpy (nonzero is true, NaN too)")

# --- Flatten (PyTorch: start..end inclusive) ----------------------------------------------------------
fl = np.arange(24, dtype=f32).reshape(2, 3, 4)


def torch_flatten(a, s, e):
    if a.ndim == 0:
        return a.reshape(1)
    s, e = s % a.ndim, e % a.ndim
    return a.reshape(a.shape[:s] + (-1 if a.size else int(np.prod(a.shape[s:e + 1])),) + a.shape[e + 1:])


for s_, e_ in ((0, -1), (1, 2), (0, 1), (-2, -1), (1, 1), (-3, -3), (2, 2)):
    case(f"flatten_{s_}_{e_}".replace("-", "m"), "flatten", [fl], torch_flatten(fl, s_, e_), params={"start": s_, "end": e_}, rule="pytorch flatten")
vcase("flatten_view_T", "flatten", fl, "T", lambda a: torch_flatten(a, 1, 2), params={"start": 1, "end": 2}, rule="pytorch flatten (copies)")
vcase("flatten_view_flip", "flatten", fl, "flip", lambda a: torch_flatten(a, 0, -1), params={"start": 0, "end": -1}, rule="pytorch flatten (copies)")
vcase("flatten_view_T_outer", "flatten", fl, "T", lambda a: torch_flatten(a, 0, 1), params={"start": 0, "end": 1}, rule="pytorch flatten (a view)")
case("flatten_empty", "flatten", [np.zeros((2, 0, 3), f32)], np.zeros((2, 0), f32), params={"start": 1, "end": 2}, rule="pytorch flatten")
case("flatten_empty_all", "flatten", [np.zeros((0, 3), i32)], np.zeros((0,), i32), params={"start": 0, "end": -1}, rule="pytorch flatten")
case("flatten_0d", "flatten", [s3], s3.reshape(1), params={"start": 0, "end": -1}, rule="pytorch flatten (a 0-d tensor gives one element)")
case("flatten_1d", "flatten", [np.array([1, 2], f32)], np.array([1, 2], f32), params={"start": 0, "end": 0}, rule="pytorch flatten")
case("flatten_start_after_end", "flatten", [fl], error="ErrAxis", params={"start": 2, "end": 0}, rule="pytorch (an error)")
case("flatten_axis_oob", "flatten", [fl], error="ErrAxis", params={"start": 0, "end": 3}, rule="pytorch (an error)")
case("flatten_axis_oob_neg", "flatten", [fl], error="ErrAxis", params={"start": -4, "end": -1}, rule="pytorch (an error)")
case("flatten_bf16", "flatten", [bf16(np.array([[1, 2], [3, 0.1]]))], bf16(np.array([1, 2, 3, 0.1])), params={"start": 0, "end": 1})

# --- Equal / AllClose (host answers: a 0-d Bool) --------------------------------------------------------
EQ = "torch.equal (tessera doc: same shape, dtype and values; NaN unequal)"
ea = np.array([[1, 2, nan], [-0.0, inf, 3]], f32)
case("equal_same", "equal", [x23, x23.copy()], np.array(True), rule=EQ)
case("equal_nan", "equal", [ea, ea.copy()], np.array(False), rule=EQ)
case("equal_signed_zero", "equal", [np.array([0.0, 1], f32), np.array([-0.0, 1], f32)], np.array(True), rule=EQ)
case("equal_value_differs", "equal", [x23, x23 + np.array([[0, 0, 0], [0, 0, 1]], f32)], np.array(False), rule=EQ)
case("equal_shape_differs", "equal", [x23, x23.reshape(3, 2)], np.array(False), rule=EQ)
case("equal_broadcastable_shape", "equal", [np.ones((1, 3), f32), np.ones((2, 3), f32)], np.array(False), rule=EQ + " (no broadcasting)")
case("equal_dtype_differs", "equal", [np.array([1, 2], i32), np.array([1, 2], f32)], np.array(False), rule="tessera doc: the dtypes must match too")
case("equal_empty", "equal", [e03, e03], np.array(True), rule=EQ)
case("equal_0d", "equal", [s3, s3], np.array(True), rule=EQ)
case("equal_view_T", "equal", [x23, x23.T.copy()], np.array(True), params={"view": "T"}, rule=EQ + " (whatever the layouts)")
case("equal_i64", "equal", [np.array([I64MIN, 2**62], i64), np.array([I64MIN, 2**62], i64)], np.array(True), rule=EQ)
case("equal_f16", "equal", [f16r([0.1, 2049]), f16r([0.1, 2048])], np.array(True), rule=EQ + " (2049 rounds to 2048 in f16)")
case("equal_bf16", "equal", [bf16([0.1, 257]), bf16([0.1, 256])], np.array(True), rule=EQ + " (257 rounds to 256 in bf16)")
AC = "np.allclose: |t - u| <= atol + rtol*|u|, NaN never close, equal infinities close (tessera doc: in float64)"
ac1 = np.array([1, 100, -inf, inf, 0], f64)
for tag, u_, rtol, atol in (("close", np.array([1 + 1e-6, 100.001, -inf, inf, 1e-9], f64), 1e-5, 1e-8),
                            ("far", np.array([1 + 1e-4, 100, -inf, inf, 0], f64), 1e-5, 1e-8),
                            ("inf_sign", np.array([1, 100, inf, inf, 0], f64), 1e-5, 1e-8),
                            ("inf_vs_big", np.array([1, 100, -1e308, inf, 0], f64), 1, 1e300),
                            ("atol_only", np.array([1.5, 100.5, -inf, inf, -0.5], f64), 0, 0.5),
                            ("asym_rtol", np.array([1.1, 110, -inf, inf, 0], f64), 0.095, 0),
                            ("zero_tol", ac1.copy(), 0, 0)):
    want = np.allclose(ac1, u_, rtol=rtol, atol=atol)
    case(f"allclose_{tag}", "allclose", [ac1, u_], np.array(want), params={"rtol": rtol, "atol": atol}, rule=AC)
# the same pair the other way round: the tolerance scales with |u|
case("allclose_asym_rtol_swapped", "allclose", [np.array([1.1, 110], f64), np.array([1, 100], f64)], np.array(np.allclose([1.1, 110], [1, 100], rtol=0.095, atol=0)),
     params={"rtol": 0.095, "atol": 0}, rule=AC)
assert np.allclose([1.1, 110], [1, 100], rtol=0.095, atol=0) != np.allclose([1, 100], [1.1, 110], rtol=0.095, atol=0)
case("allclose_nan", "allclose", [np.array([1, nan], f32), np.array([1, nan], f32)], np.array(False), params={"rtol": 1e-5, "atol": 1e-8}, rule=AC + " (equal_nan=False)")
case("allclose_shape_differs", "allclose", [np.ones((1, 3), f32), np.ones((2, 3), f32)], np.array(False), params={"rtol": 1e-5, "atol": 1e-8},
     rule="tessera doc: the shapes must match (np.allclose broadcasts and gives True)")
case("allclose_mixed_dtypes", "allclose", [np.array([1, 2], i32), np.array([1, 2.0000001], f64)], np.array(np.allclose(np.array([1, 2], i32), np.array([1, 2.0000001]))),
     params={"rtol": 1e-5, "atol": 1e-8}, rule=AC)
case("allclose_empty", "allclose", [e03, e03], np.array(True), params={"rtol": 0, "atol": 0}, rule=AC)
case("allclose_0d", "allclose", [np.array(1, f32), np.array(1.5, f32)], np.array(True), params={"rtol": 0, "atol": 0.5}, rule=AC)
case("allclose_view_T", "allclose", [x23, x23.T + f32(1e-6)], np.array(np.allclose(x23.T, x23.T + f32(1e-6))), params={"rtol": 1e-5, "atol": 1e-8, "view": "T"}, rule=AC)
case("allclose_f16_f32", "allclose", [f16r([0.1, 1]), np.array([0.1, 1], f32)], np.array(np.allclose(f16r([0.1, 1]).astype(f64), np.array([0.1, 1], f32).astype(f64), rtol=1e-3, atol=0)),
     params={"rtol": 1e-3, "atol": 0}, rule=AC)

# --- demanding edges: keepdims over empty axes and 0-d, negative axes, NaN, Clamp, CumSum overflow ------
e203 = np.zeros((2, 0, 3), f32)
for nm, fn in (("sum", np.sum), ("prod", np.prod), ("mean", np.mean)):
    case(f"{nm}_keep_empty_axis", nm, [e203], fn(e203, axis=1, keepdims=True), params={"axes": [-2], "keepdims": True})
    case(f"{nm}_keep_empty_two_axes", nm, [e203], fn(e203, axis=(0, 2), keepdims=True), params={"axes": [-1, 0], "keepdims": True})
    case(f"{nm}_keep_empty_all", nm, [e203], fn(e203, keepdims=True), params={"axes": None, "keepdims": True})
    case(f"{nm}_keep_0d_all", nm, [np.array(-2.5, f32)], fn(np.array(-2.5, f32), keepdims=True), params={"axes": None, "keepdims": True})
for nm, fn in (("max", np.max), ("min", np.min)):
    case(f"{nm}_keep_empty_out", nm, [e203], fn(e203, axis=2, keepdims=True), params={"axes": [-1], "keepdims": True})
    case(f"{nm}_keep_empty_axis", nm, [e203], error="ErrShape", params={"axes": [1], "keepdims": True})
    case(f"{nm}_keep_0d", nm, [np.array(nan, f32)], np.array(nan, f32), params={"axes": [-1], "keepdims": True}, rule="pytorch (a 0-d tensor is its own axis)")
    case(f"{nm}_keep_two_neg_axes", nm, [np.arange(24, dtype=f32).reshape(2, 3, 4)], fn(np.arange(24, dtype=f32).reshape(2, 3, 4), axis=(0, 2), keepdims=True), params={"axes": [-1, -3], "keepdims": True})
    case(f"{nm}_f64_nan", nm, [np.array([[1, nan], [inf, -inf]], f64)], fn(np.array([[1, nan], [inf, -inf]], f64), axis=-1), params={"axes": [-1]}, rule="numpy (NaN wins)")
    case(f"{nm}_nan_only_column", nm, [np.array([[nan, 1], [nan, 2]], f32)], fn(np.array([[nan, 1], [nan, 2]], f32), axis=0, keepdims=True), params={"axes": [0], "keepdims": True})
for nm, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    an_ = np.array([[1, nan, 5, nan], [inf, 2, inf, -inf], [-inf, -inf, nan, 0]], f32)
    case(f"{nm}_nan_rows", nm, [an_], fn(an_, axis=-1), params={"axis": -1}, rule="numpy (the first NaN wins; ties: the first)")
    case(f"{nm}_nan_cols_keep", nm, [an_], fn(an_, axis=-2, keepdims=True), params={"axis": -2, "keepdims": True}, rule="numpy (the first NaN wins)")
    case(f"{nm}_f64_nan", nm, [an_.astype(f64)], fn(an_.astype(f64), axis=1), params={"axis": 1}, rule="numpy (the first NaN wins)")
    case(f"{nm}_keep_empty_axis", nm, [np.zeros((2, 0), f32)], error="ErrShape", params={"axis": -1, "keepdims": True})
    case(f"{nm}_keep_0d_neg1", nm, [s3], np.array(0, i64), params={"axis": -1, "keepdims": True}, rule="pytorch (a 0-d tensor is its own axis)")
    case(f"{nm}_axis_oob_neg", nm, [x23], error="ErrAxis", params={"axis": -3})
for nm, fn in (("std", np.std), ("var", np.var)):
    case(f"{nm}_keep_empty_axis", nm, [e203], fn(e203, axis=1, keepdims=True), params={"ddof": 0, "axes": [1], "keepdims": True})
    case(f"{nm}_keep_empty_out", nm, [e203], fn(e203, axis=2, keepdims=True), params={"ddof": 1, "axes": [-1], "keepdims": True})
    case(f"{nm}_keep_0d", nm, [np.array(2, f32)], np.array(0, f32), params={"ddof": 0, "axes": [0], "keepdims": True}, rule="pytorch (a 0-d tensor is its own axis)")
    case(f"{nm}_keep_two_neg_axes", nm, [np.arange(24, dtype=f32).reshape(2, 3, 4)], fn(np.arange(24, dtype=f32).reshape(2, 3, 4), axis=(-1, 0), ddof=1, keepdims=True), params={"ddof": 1, "axes": [-1, 0], "keepdims": True}, tol=TR)
    case(f"{nm}_keep_nan", nm, [np.array([[1, nan, 3], [1, 2, 3]], f32)], fn(np.array([[1, nan, 3], [1, 2, 3]], f32), axis=-1, keepdims=True), params={"ddof": 0, "axes": [-1], "keepdims": True}, tol=TR)
for nm, fn in (("any", np.any), ("all", np.all)):
    case(f"{nm}_keep_empty_axis", nm, [e203], fn(e203, axis=1, keepdims=True), params={"axes": [-2], "keepdims": True})
    case(f"{nm}_keep_empty_all", nm, [e203], fn(e203, keepdims=True), params={"axes": None, "keepdims": True})
    case(f"{nm}_keep_0d", nm, [np.array(nan, f32)], fn(np.array(nan, f32), keepdims=True), params={"axes": [0], "keepdims": True}, rule="pytorch (a 0-d tensor is its own axis)")
    case(f"{nm}_keep_two_neg_axes", nm, [np.array([[[0, 1], [0, 0]], [[1, 1], [1, 1]]], f32)], fn(np.array([[[0, 1], [0, 0]], [[1, 1], [1, 1]]], f32), axis=(-1, -2), keepdims=True), params={"axes": [-1, -2], "keepdims": True})
case("sum_i32_keep_empty", "sum", [np.zeros((2, 0), i32)], np.sum(np.zeros((2, 0), i32), axis=-1, keepdims=True), params={"axes": [-1], "keepdims": True})
case("prod_u8_keep_0d", "prod", [np.array(200, u8)], np.array(200, i64), params={"axes": None, "keepdims": True}, rule="pytorch (I64; NumPy: uint64)")
case("sum_keep_repeated_axis", "sum", [x23], error="ErrAxis", params={"axes": [1, -1], "keepdims": True})
case("mean_keep_axis_oob", "mean", [x23], error="ErrAxis", params={"axes": [-3], "keepdims": True})
# Clamp with lo > hi: hi everywhere (NumPy's clip, torch.clamp), NaN kept
case("clip_lo_above_hi_i32", "clamp", [np.array([-5, 0, 3, 9, -2**31], i32)], np.clip(np.array([-5, 0, 3, 9, -2**31], i32), 4, 1), params={"lo": 4, "hi": 1})
case("clip_lo_above_hi_nan", "clamp", [np.array([nan, -inf, inf, -0.0], f32)], np.clip(np.array([nan, -inf, inf, -0.0], f32), 1, -1), params={"lo": 1, "hi": -1})
case("clip_lo_above_hi_f64", "clamp", [np.array([0.5, 2, 3], f64)], np.clip(np.array([0.5, 2, 3], f64), 2.5, 0.5), params={"lo": 2.5, "hi": 0.5})
case("clip_lo_above_hi_u8", "clamp", [np.array([0, 100, 255], u8)], np.clip(np.array([0, 100, 255], u8), 200, 50), params={"lo": 200, "hi": 50})
case("clip_equal_bounds", "clamp", [np.array([nan, -1, 5], f32)], np.clip(np.array([nan, -1, 5], f32), 2, 2), params={"lo": 2, "hi": 2})
case("clip_lo_above_hi_empty", "clamp", [e03], e03, params={"lo": 1, "hi": 0})
vcase("clip_lo_above_hi_view_T", "clamp", np.array([[1, 2, 3], [4, 5, nan]], f32), "T", lambda a: np.clip(a, 3, 2), params={"lo": 3, "hi": 2})
# CumSum of I32 past 2^31: I64, exact (NumPy int64 on 64-bit Linux; torch int64)
ci_ov = np.array([[2**31 - 1, 2**31 - 1, 2**31 - 1, -2**31], [-2**31, -2**31, -2**31, 5]], i32)
case("cumsum_i32_overflow_neg1", "cumsum", [ci_ov], np.cumsum(ci_ov, axis=-1), params={"axis": -1}, rule="numpy and pytorch (I64, exact past 2^31)")
case("cumsum_i32_overflow_axis0", "cumsum", [ci_ov], np.cumsum(ci_ov, axis=-2), params={"axis": -2}, rule="numpy and pytorch (I64)")
vcase("cumsum_i32_overflow_view_T", "cumsum", ci_ov, "T", lambda a: np.cumsum(a, axis=0), params={"axis": 0}, rule="numpy and pytorch (I64)")
case("cumprod_i32_overflow", "cumprod", [np.array([2**30, 4, -2**20, 3], i32)], np.cumprod(np.array([2**30, 4, -2**20, 3], i32)), params={"axis": 0}, rule="numpy and pytorch (I64, exact past 2^31)")
case("cumsum_i32_0d", "cumsum", [np.array(2**31 - 1, i32)], np.array(2**31 - 1, i64), params={"axis": -1}, rule="pytorch (I64; a 0-d tensor is its own axis)")

# BatchNorm: PyTorch's F.batch_norm (ATen's CPU rules written out in float64): per-channel
# statistics over every axis but 1; training normalises by the biased variance and updates the
# running statistics with the unbiased one; evaluation normalises by the running statistics.
def batch_norm_ref(x, rm, rv, w, b, training, momentum, eps):
    x = x.astype(f64)
    ax = tuple(i for i in range(x.ndim) if i != 1)
    st = [1] * x.ndim
    st[1] = x.shape[1]
    if training:
        m = x.mean(axis=ax)
        n = x.size // x.shape[1]
        ss = ((x - m.reshape(st)) ** 2).sum(axis=ax)
        var = ss / n
        if rm is not None:
            rm = momentum * m + (1 - momentum) * rm.astype(f64)
            rv = momentum * (ss / (n - 1)) + (1 - momentum) * rv.astype(f64)
    else:
        m, var = rm.astype(f64), rv.astype(f64)
    y = (x - m.reshape(st)) / np.sqrt(var.reshape(st) + eps)
    if w is not None:
        y = y * w.astype(f64).reshape(st)
    if b is not None:
        y = y + b.astype(f64).reshape(st)
    return y, rm, rv


bnx = (np.sin(np.arange(24) * 1.3).reshape(2, 3, 2, 2) * np.array([1, 10, 0.5]).reshape(1, 3, 1, 1) + np.array([0, 5, -1]).reshape(1, 3, 1, 1)).astype(f32)
bnrm = np.array([0.5, -1, 2], f32)
bnrv = np.array([1, 4, 0.25], f32)
bnw = np.array([1.5, -0.5, 2], f32)
bnb = np.array([0.1, 0, -1], f32)


def bn_cases(tag, x, rm=None, rv=None, w=None, b=None, training=True, momentum=0.1, eps=1e-5, tol=LA32, out=f32):
    ins = [x] + ([rm, rv] if rm is not None else []) + ([w] if w is not None else []) + ([b] if b is not None else [])
    prm = {"running": rm is not None, "weight": w is not None, "bias": b is not None, "training": training, "momentum": momentum, "eps": eps}
    y, nm, nv = batch_norm_ref(x, rm, rv, w, b, training, momentum, eps)
    rule = "torch.nn.functional.batch_norm (ATen's CPU formula, NumPy float64)"
    case(f"batch_norm_{tag}", "batch_norm", ins, y.astype(out), params=prm, tol=tol, rule=rule)
    if rm is not None and training:
        case(f"batch_norm_{tag}_mean", "batch_norm_mean", ins, nm.astype(rm.dtype), params=prm, tol=tol, rule=rule + ": running_mean updated")
        case(f"batch_norm_{tag}_var", "batch_norm_var", ins, nv.astype(rv.dtype), params=prm, tol=tol, rule=rule + ": running_var updated with the unbiased variance")


bn_cases("train_4d", bnx, bnrm, bnrv, bnw, bnb)
bn_cases("train_4d_momentum0p3", bnx, bnrm, bnrv, momentum=0.3)
bn_cases("train_2d_plain", bnx[:, :, 0, 0].copy())
bn_cases("train_3d_weight", bnx[:, :, 0, :].copy(), bnrm, bnrv, w=bnw, eps=0.5)
bn_cases("eval_4d", bnx, bnrm, bnrv, bnw, bnb, training=False)
bn_cases("eval_3d_plain", bnx[:, :, :, 0].copy(), bnrm, bnrv, training=False, eps=0.0)
bn_cases("train_f64", bnx.astype(f64), bnrm.astype(f64), bnrv.astype(f64), bnw.astype(f64), bnb.astype(f64), tol=LA64, out=f64)
bn_cases("train_f64_stats", bnx, bnrm.astype(f64), bnrv.astype(f64), bnw, bnb)
bnn = bnx.copy()
bnn[1, 2, 0, 1] = nan
bn_cases("train_nan", bnn, bnrm, bnrv, bnw, bnb)
bnc = bnx.copy()
bnc[:, 1] = 7
bn_cases("train_constant_eps0", bnc, bnrm, bnrv, eps=0.0)
case("batch_norm_empty_batch", "batch_norm", [np.zeros((0, 3, 2), f32), bnrm, bnrv, bnw, bnb], np.zeros((0, 3, 2), f32),
     params={"running": True, "weight": True, "bias": True, "training": True, "momentum": 0.1, "eps": 1e-5}, rule="pytorch (an empty batch: an empty result)")
case("batch_norm_empty_batch_mean", "batch_norm_mean", [np.zeros((0, 3, 2), f32), bnrm, bnrv], bnrm,
     params={"running": True, "training": True, "momentum": 0.1, "eps": 1e-5}, rule="pytorch (an empty batch leaves the running statistics)")
bnt = bnx.swapaxes(-1, -2).copy()
y_, _, _ = batch_norm_ref(bnt.swapaxes(-1, -2), bnrm, bnrv, bnw, bnb, True, 0.1, 1e-5)
case("batch_norm_view_T", "batch_norm", [bnt, bnrm, bnrv, bnw, bnb], y_.astype(f32),
     params={"running": True, "weight": True, "bias": True, "training": True, "momentum": 0.1, "eps": 1e-5, "view": "T"}, tol=LA32, rule="torch.nn.functional.batch_norm")
bnp = {"training": True, "momentum": 0.1, "eps": 1e-5}
case("batch_norm_i32", "batch_norm", [bnx.astype(i32)], error="ErrDType", params=bnp, rule="pytorch (floats only)")
case("batch_norm_1d_input", "batch_norm", [bnrm], error="ErrShape", params=bnp, rule="tessera doc: x is [N, C, ...]")
case("batch_norm_one_value", "batch_norm", [bnx[:1, :, 0, 0].copy()], error="ErrValue", params=bnp, rule="pytorch (an error: one value per channel when training)")
case("batch_norm_eval_no_stats", "batch_norm", [bnx], error="ErrValue", params=dict(bnp, training=False), rule="pytorch (an error: evaluation needs running statistics)")
case("batch_norm_weight_shape", "batch_norm", [bnx, bnw[:2].copy()], error="ErrShape", params=dict(bnp, weight=True), rule="pytorch (an error)")
case("batch_norm_stats_shape", "batch_norm", [bnx, bnrm[:2].copy(), bnrv[:2].copy()], error="ErrShape", params=dict(bnp, running=True), rule="pytorch (an error)")
case("batch_norm_weight_dtype", "batch_norm", [bnx, bnw.astype(f64)], error="ErrDType", params=dict(bnp, weight=True), rule="tessera doc: weight and bias have x's dtype")
case("batch_norm_negative_eps", "batch_norm", [bnx], error="ErrValue", params=dict(bnp, eps=-1), rule="tessera doc: eps finite, not negative")
case("batch_norm_nan_momentum", "batch_norm", [bnx], error="ErrValue", params=dict(bnp, momentum="nan"), rule="tessera doc: momentum finite")

# Unfold / Fold (F.unfold, F.fold: im2col and col2im written out), IndexAdd (np.add.at), LogDet
def block_map(c, h, w, k, s, p, d):
    """The sliding blocks of a padded [c, h, w] image: the block counts, and for each column entry
    (row, column) the channel and the padded position (y, x) it holds."""
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    entries = [((ci * k[0] + i) * k[1] + j, r * ow + q, ci, i * d[0] + r * s[0], j * d[1] + q * s[1])
               for ci in range(c) for i in range(k[0]) for j in range(k[1]) for r in range(oh) for q in range(ow)]
    return oh, ow, entries


def unfold_ref(x, k, s=(1, 1), p=(0, 0), d=(1, 1)):
    n, c, h, w = x.shape
    xp = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]), x.dtype)
    xp[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = x
    oh, ow, entries = block_map(c, h, w, k, s, p, d)
    out = np.zeros((n, c * k[0] * k[1], oh * ow), x.dtype)
    for row, col, ci, y, xx in entries:
        out[:, row, col] = xp[:, ci, y, xx]
    return out


def fold_ref(cols, size, k, s=(1, 1), p=(0, 0), d=(1, 1)):
    n, ck, L = cols.shape
    c = ck // (k[0] * k[1])
    h, w = size
    oh, ow, entries = block_map(c, h, w, k, s, p, d)
    assert oh * ow == L
    out = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]), f64)
    for row, col, ci, y, xx in entries:
        out[:, ci, y, xx] += cols[:, row, col]
    return out[:, :, p[0]:p[0] + h, p[1]:p[1] + w].astype(cols.dtype)


ux = (np.sin(np.arange(120) * 0.7) * 4).astype(f32).reshape(2, 3, 5, 4)
ux[1, 2, 3, 1] = inf
ux[0, 1, 0, 0] = nan
UF = "torch.nn.functional.unfold (im2col written out)"
FF = "torch.nn.functional.fold (col2im written out)"
for tag, o in (("k2x3", {"kernel": [2, 3]}), ("k3_s2x1_p1x0_d1x2", {"kernel": [3, 2], "stride": [2, 1], "padding": [1, 0], "dilation": [1, 2]}),
               ("k1", {"kernel": [1, 1]}), ("k2_s3_p2", {"kernel": [2, 2], "stride": [3, 3], "padding": [2, 2]})):
    kw = {"k": o["kernel"], "s": o.get("stride", (1, 1)), "p": o.get("padding", (0, 0)), "d": o.get("dilation", (1, 1))}
    case(f"unfold_{tag}", "unfold", [ux], unfold_ref(ux, **kw), params=o, rule=UF + ": values copied, NaN and Inf stay where they are")
    cols = unfold_ref(np.nan_to_num(ux, nan=0.5, posinf=2.0), **kw)
    case(f"fold_{tag}", "fold", [cols], fold_ref(cols, (5, 4), **kw), params=dict(o, output_size=[5, 4]), tol=1e-6, rule=FF + ": overlapping blocks add up")
case("unfold_unbatched", "unfold", [ux[0]], unfold_ref(ux[:1], (2, 2))[0], params={"kernel": [2, 2]}, rule=UF + " ([C, H, W] gives [C*K, L])")
case("unfold_i32", "unfold", [np.arange(24, dtype=i32).reshape(1, 2, 3, 4)], unfold_ref(np.arange(24, dtype=i32).reshape(1, 2, 3, 4), (2, 2), p=(1, 1)),
     params={"kernel": [2, 2], "padding": [1, 1]}, rule="tessera doc: a copy, any dtype")
case("unfold_view_T", "unfold", [ux], unfold_ref(ux.swapaxes(-1, -2), (2, 3)), params={"kernel": [2, 3], "view": "T"}, rule=UF)
case("unfold_f64", "unfold", [ux.astype(f64)], unfold_ref(ux.astype(f64), (3, 3), p=(1, 1)), params={"kernel": [3, 3], "padding": [1, 1]}, rule=UF)
case("unfold_kernel_too_big", "unfold", [ux], error="ErrShape", params={"kernel": [6, 2]}, rule="pytorch (an error: no block fits)")
case("unfold_kernel_zero", "unfold", [ux], error="ErrValue", params={"kernel": [0, 2]}, rule="pytorch (an error)")
case("unfold_negative_padding", "unfold", [ux], error="ErrValue", params={"kernel": [2, 2], "padding": [-1, 0]}, rule="pytorch (an error)")
case("unfold_2d", "unfold", [ux[0, 0]], error="ErrShape", params={"kernel": [2, 2]}, rule="pytorch (an error: 3-D or 4-D input)")
fc = unfold_ref(np.nan_to_num(ux, nan=0.5, posinf=2.0), (2, 2))
case("fold_unbatched", "fold", [fc[1]], fold_ref(fc[1:], (5, 4), (2, 2))[0], params={"kernel": [2, 2], "output_size": [5, 4]}, tol=1e-6, rule=FF)
fci = np.ones((1, 4, 12), f32)
fci[0, 0, 5] = inf
case("fold_inf", "fold", [fci], fold_ref(fci, (4, 5), (2, 2)), params={"kernel": [2, 2], "output_size": [4, 5]}, rule=FF + ": an Inf adds into its positions only")
case("fold_wrong_blocks", "fold", [fc], error="ErrShape", params={"kernel": [2, 2], "output_size": [5, 5]}, rule="pytorch (an error: L must match the output size)")
case("fold_rows_not_multiple", "fold", [fc[:, :10]], error="ErrShape", params={"kernel": [2, 2], "output_size": [5, 4]}, rule="pytorch (an error)")
case("fold_4d_input", "fold", [ux], error="ErrShape", params={"kernel": [2, 2], "output_size": [5, 4]}, rule="pytorch (an error: 2-D or 3-D input)")


def index_add_ref(t, axis, idx, src):
    out = np.moveaxis(t.copy(), axis, 0)
    np.add.at(out, idx, np.moveaxis(src, axis, 0))
    return np.moveaxis(out, 0, axis)


it_ = np.arange(12, dtype=f32).reshape(3, 4)
IA = "torch.Tensor.index_add (np.add.at)"
case("index_add_axis0_repeats", "index_add", [it_, np.array([2, 0, 2], i64), np.array([[1, 2, 3, 4], [10, 20, 30, 40], [nan, 0.5, -0.0, inf]], f32)],
     index_add_ref(it_, 0, np.array([2, 0, 2]), np.array([[1, 2, 3, 4], [10, 20, 30, 40], [nan, 0.5, -0.0, inf]], f32)), params={"axis": 0}, rule=IA)
case("index_add_axis_last", "index_add", [it_, np.array([3, 3], i32), np.array([[1, 2], [3, 4], [5, 6]], f32)],
     index_add_ref(it_, 1, np.array([3, 3]), np.array([[1, 2], [3, 4], [5, 6]], f32)), params={"axis": -1}, rule=IA)
case("index_add_i32", "index_add", [np.array([2**31 - 1, 5], i32), np.array([0, 1, 0], i64), np.array([1, -7, 3], i32)],
     index_add_ref(np.array([2**31 - 1, 5], i32), 0, np.array([0, 1, 0]), np.array([1, -7, 3], i32)), params={"axis": 0}, rule=IA + " (wraps)")
case("index_add_empty_index", "index_add", [it_, np.zeros((0,), i64), np.zeros((3, 0), f32)], it_, params={"axis": 1}, rule=IA)
case("index_add_out_of_range", "index_add", [it_, np.array([3], i64), np.ones((1, 4), f32)], error="ErrAxis", params={"axis": 0}, rule="pytorch (an error)")
case("index_add_negative_index", "index_add", [it_, np.array([-1], i64), np.ones((1, 4), f32)], error="ErrAxis", params={"axis": 0}, rule="pytorch (an error)")
case("index_add_src_shape", "index_add", [it_, np.array([0, 1], i64), np.ones((2, 3), f32)], error="ErrShape", params={"axis": 0}, rule="pytorch (an error)")
case("index_add_index_2d", "index_add", [it_, np.array([[0, 1]], i64), np.ones((2, 4), f32)], error="ErrShape", params={"axis": 0}, rule="pytorch (an error: a vector of indices)")
case("index_add_index_f32", "index_add", [it_, np.array([0.0], f32), np.ones((1, 4), f32)], error="ErrDType", params={"axis": 0}, rule="pytorch (an error)")
case("index_add_src_dtype", "index_add", [it_, np.array([0], i64), np.ones((1, 4), f64)], error="ErrDType", params={"axis": 0}, rule="tessera doc: src has t's dtype")
case("index_add_bad_axis", "index_add", [it_, np.array([0], i64), np.ones((1, 4), f32)], error="ErrAxis", params={"axis": 2}, rule="pytorch (an error)")
case("index_add_0d", "index_add", [np.array(2, f32), np.array([0, 0], i64), np.array([1, 3], f32)], np.array(6, f32), params={"axis": 0}, rule="pytorch (a 0-d tensor is one element)")


def logdet_ref(a):
    sgn, la = np.linalg.slogdet(a)
    return np.where(sgn > 0, la, np.where(sgn == 0, -inf, nan))


LD = "torch.logdet (NaN for a negative determinant, -Inf for zero)"
for dn, dt, tl in (("f32", f32, LA32), ("f64", f64, LA64)):
    case(f"logdet_{dn}", "logdet", [Ab.astype(dt)], logdet_ref(Ab).astype(dt), tol=tl, rule=LD)
case("logdet_singular", "logdet", [S3.astype(f32)], np.array(-inf, f32), rule=LD)
case("logdet_negative", "logdet", [np.array([[0, 1], [1, 0]], f32)], np.array(nan, f32), rule=LD)
case("logdet_0x0", "logdet", [np.zeros((0, 0), f32)], np.array(0, f32), rule=LD)
case("logdet_large", "logdet", [np.eye(3) * 1e200], np.array(3 * np.log(1e200)), tol=LA64, rule=LD + " (no overflow)")
case("logdet_not_square", "logdet", [np.ones((2, 3), f32)], error="ErrShape", rule="pytorch (an error)")

# Einsum (numpy.einsum; torch.einsum agrees on these)
EI = "numpy.einsum"
ea = np.arange(6, dtype=f32).reshape(2, 3) - 2
eb = (np.arange(12, dtype=f32).reshape(3, 4) * 0.5 - 1).astype(f32)
esq = np.arange(9, dtype=f32).reshape(3, 3)
eb3 = np.sin(np.arange(24)).astype(f32).reshape(2, 3, 4)
ec3 = np.cos(np.arange(24)).astype(f32).reshape(2, 4, 3)
for tag, sub, ins in (("matmul", "ij,jk->ik", [ea, eb]), ("implicit_matmul", "ij,jk", [ea, eb]), ("trace", "ii", [esq]),
                      ("diagonal", "ii->i", [esq]), ("transpose", "ij->ji", [ea]), ("sum_all", "ij->", [ea]), ("sum_rows", "ij->i", [ea]),
                      ("outer", "i,j->ij", [ea[0], eb[0]]), ("batched", "bij,bjk->bik", [eb3, ec3]), ("implicit_order", "Ba,ab", [ea, eb]),
                      ("ellipsis_broadcast", "...ij,...jk->...ik", [eb3[:, None], np.stack([ec3[0]] * 3)]), ("diag_3d", "ijj->ij", [np.arange(18, dtype=f32).reshape(2, 3, 3)]),
                      ("three", "ij,jk,kl->il", [ea, eb, eb.T.copy()]), ("label_broadcast", "i,i->i", [np.array([2], f32), np.arange(3, dtype=f32)]),
                      ("dot", "i,i", [eb[1], eb[2]]), ("bilinear", "i,ij,j->", [ea[0], ea.T.copy(), ea[1, :2].copy()]), ("spaces", "ij , jk -> ik", [ea, eb]),
                      ("scalar", "", [np.array(3, f32)]), ("scalar_times", ",ij->ij", [np.array(2, f32), ea]), ("empty_sum", "i->", [np.zeros(0, f32)]),
                      ("ellipsis_implicit", "...i,...i", [eb3, eb3]), ("ellipsis_middle", "i...j->j...i", [eb3]),
                      ("nan", "ij,jk->ik", [np.where(ea == 0, nan, ea).astype(f32), eb])):
    case(f"einsum_{tag}", "einsum", ins, np.einsum(sub.replace(" ", ""), *[x.astype(f64) for x in ins]).astype(f32), params={"subscripts": sub}, tol=1e-6, rule=EI)
case("einsum_i32", "einsum", [ea.astype(i32), (eb * 2).astype(i32)], np.einsum("ij,jk->ik", ea.astype(i32), (eb * 2).astype(i32)), params={"subscripts": "ij,jk->ik", "skip_unsupported": True}, rule=EI + " (the GPUs have no integer matmul)")
case("einsum_f64", "einsum", [ea.astype(f64), eb.astype(f64)], np.einsum("ij,jk", ea.astype(f64), eb.astype(f64)), params={"subscripts": "ij,jk"}, tol=1e-12, rule=EI)
case("einsum_mixed_dtypes", "einsum", [ea, eb.astype(f64)], np.einsum("ij,jk", ea.astype(f64), eb.astype(f64)), params={"subscripts": "ij,jk"}, tol=1e-12, rule=EI + " (promoted to float64)")
for tag, sub, ins, err in (("label_count", "ijk", [ea], "ErrShape"), ("extent_mismatch", "ij,ij->i", [ea, eb], "ErrShape"),
                           ("output_unknown", "ij->k", [ea], "ErrValue"), ("output_twice", "ij->ii", [ea], "ErrValue"),
                           ("bad_char", "i1,jk", [ea, eb], "ErrValue"), ("operand_count", "ij,jk", [ea], "ErrValue"),
                           ("no_output_ellipsis", "...i->i", [ea], "ErrValue"), ("two_ellipses", "......", [ea], "ErrValue")):
    case(f"einsum_err_{tag}", "einsum", ins, error=err, params={"subscripts": sub}, rule="numpy (an error)")

# Quantile / Median (numpy.quantile's linear method, which torch.quantile shares; numpy.median)
QU = "numpy.quantile (linear; torch.quantile agrees)"
qx = (np.sin(np.arange(24) * 2.1) * 10).astype(f32).reshape(2, 3, 4)
qn = qx.copy()
qn[1, 2, 0] = nan
qi = np.array([[1, inf, -inf, 2], [3, 3, 3, 3]], f32)
for q in (0.0, 0.25, 0.3, 0.5, 0.9, 1.0):
    qt = str(q).replace(".", "p")
    case(f"quantile_{qt}_all", "quantile", [qx], np.quantile(qx.astype(f64), q).astype(f32), params={"q": q, "axes": None}, tol=1e-6, rule=QU)
    case(f"quantile_{qt}_axis1", "quantile", [qx], np.quantile(qx.astype(f64), q, axis=1).astype(f32), params={"q": q, "axes": [1]}, tol=1e-6, rule=QU)
case("quantile_axes_0_2_keepdims", "quantile", [qx], np.quantile(qx.astype(f64), 0.4, axis=(0, 2), keepdims=True).astype(f32), params={"q": 0.4, "axes": [0, 2], "keepdims": True}, tol=1e-6, rule=QU)
case("quantile_nan_line", "quantile", [qn], np.quantile(qn.astype(f64), 0.5, axis=-1).astype(f32), params={"q": 0.5, "axes": [-1]}, tol=1e-6, rule=QU + ": a line with NaN gives NaN")
case("quantile_inf", "quantile", [qi], np.quantile(qi.astype(f64), 0.25, axis=1).astype(f32), params={"q": 0.25, "axes": [1]}, rule=QU + ": infinities sort to the ends")
case("quantile_f64", "quantile", [qx.astype(f64)], np.quantile(qx.astype(f64), 0.7, axis=2), params={"q": 0.7, "axes": [2]}, tol=1e-12, rule=QU)
case("quantile_one_value", "quantile", [np.array([[7.5]], f32)], np.array([7.5], f32), params={"q": 0.3, "axes": [1]}, rule=QU)
case("quantile_0d", "quantile", [np.array(2.5, f32)], np.array(2.5, f32), params={"q": 0.5, "axes": None}, rule=QU)
case("quantile_view_T", "quantile", [qx[0].copy()], np.quantile(qx[0].T.astype(f64), 0.5, axis=1).astype(f32), params={"q": 0.5, "axes": [1], "view": "T"}, tol=1e-6, rule=QU)
case("quantile_empty", "quantile", [np.zeros((2, 0), f32)], error="ErrShape", params={"q": 0.5, "axes": [1]}, rule="torch (an error: numpy raises too)")
case("quantile_q_above_1", "quantile", [qx], error="ErrValue", params={"q": 1.5, "axes": None}, rule="numpy (an error)")
case("quantile_q_nan", "quantile", [qx], error="ErrValue", params={"q": "nan", "axes": None}, rule="numpy (an error)")
case("quantile_i32", "quantile", [qx.astype(i32)], error="ErrDType", params={"q": 0.5, "axes": None}, rule="torch (floats only)")
case("quantile_bad_axis", "quantile", [qx], error="ErrAxis", params={"q": 0.5, "axes": [3]}, rule="numpy (an error)")
MD = "numpy.median (the mean of the two middle values)"
case("median_all_even", "median", [qx], np.median(qx.astype(f64)).astype(f32), params={"axes": None}, tol=1e-6, rule=MD)
case("median_axis0_even", "median", [qx], np.median(qx.astype(f64), axis=0).astype(f32), params={"axes": [0]}, tol=1e-6, rule=MD)
case("median_axis1_odd", "median", [qx], np.median(qx.astype(f64), axis=1).astype(f32), params={"axes": [1]}, tol=1e-6, rule=MD)
case("median_keepdims", "median", [qx], np.median(qx.astype(f64), axis=(1, 2), keepdims=True).astype(f32), params={"axes": [1, 2], "keepdims": True}, tol=1e-6, rule=MD)
case("median_nan", "median", [qn], np.median(qn.astype(f64), axis=2).astype(f32), params={"axes": [2]}, tol=1e-6, rule=MD + ": NaN propagates")

# Lerp, Diff, Cross, Kron, Meshgrid, Cdist, NanSum/NanMean; Nonzero, Unique, Searchsorted, Bincount
def lerp_ref(a, b, w):
    a, b, w = np.broadcast_arrays(a.astype(f64), b.astype(f64), w.astype(f64))
    d = b - a
    return np.where(np.abs(w) < 0.5, a + w * d, b - d * (1 - w))


la_ = np.array([[0, 1, -2], [3, inf, 5]], f32)
lb_ = np.array([[10, -1, 2], [3, 4, nan]], f32)
lw_ = np.array([0.25, 0.5, 1.0], f32)
case("lerp_broadcast", "lerp", [la_, lb_, lw_], lerp_ref(la_, lb_, lw_).astype(f32), tol=1e-6, rule="torch.lerp (its two-sided formula)")
case("lerp_scalar_weight", "lerp", [la_[0].copy(), lb_[0].copy(), np.array(0.75, f32)], lerp_ref(la_[0], lb_[0], np.array(0.75)).astype(f32), tol=1e-6, rule="torch.lerp")
case("lerp_weight_1_exact", "lerp", [np.array([1e8, 3], f32), np.array([1, 7e-8], f32), np.array(1, f32)], np.array([1, 7e-8], f32), rule="torch.lerp (weight 1 gives end exactly)")
case("lerp_i32", "lerp", [la_.astype(i32) * 0, lb_[:1].astype(i32) * 0, lw_], error="ErrDType", rule="torch (floats only)")
dx = np.array([[1, 4, 9, 16, 25], [2, 3, 5, 7, 11]], f32)
for n in (1, 2, 5, 6):
    case(f"diff_n{n}", "diff", [dx], np.diff(dx, n=n, axis=-1), params={"n": n, "axis": -1}, rule="numpy.diff")
case("diff_axis0", "diff", [dx], np.diff(dx, axis=0), params={"n": 1, "axis": 0}, rule="numpy.diff")
case("diff_n0", "diff", [dx], dx, params={"n": 0, "axis": 0}, rule="numpy.diff (n=0: the input)")
case("diff_bool", "diff", [np.array([True, True, False, True])], np.diff(np.array([True, True, False, True])), params={"n": 1, "axis": 0}, rule="numpy.diff (xor)")
case("diff_i32", "diff", [dx.astype(i32)], np.diff(dx.astype(i32), axis=1), params={"n": 1, "axis": 1}, rule="numpy.diff")
case("diff_negative_n", "diff", [dx], error="ErrValue", params={"n": -1, "axis": 0}, rule="numpy (an error)")
case("diff_0d", "diff", [np.array(1, f32)], error="ErrShape", params={"n": 1, "axis": 0}, rule="numpy (an error)")
ca = np.array([[1, 0, 0], [1, 2, 3]], f32)
cb = np.array([[0, 1, 0], [-4, 5.5, 6]], f32)
case("cross_rows", "cross", [ca, cb], np.cross(ca, cb), params={"axis": -1}, rule="numpy.cross (torch.linalg.cross)")
case("cross_broadcast", "cross", [ca, cb[1]], np.cross(ca, cb[1]), params={"axis": -1}, rule="numpy.cross")
case("cross_axis0", "cross", [ca.T.copy(), cb.T.copy()], np.cross(ca.T, cb.T, axis=0), params={"axis": 0}, rule="numpy.cross")
case("cross_not_3", "cross", [ca[:, :2].copy(), cb[:, :2].copy()], error="ErrShape", params={"axis": -1}, rule="torch.linalg.cross (an error; numpy takes 2-vectors)")
ka = np.array([[1, 2], [3, 4]], f32)
kb = np.array([[0, 5, 1], [6, 7, -1]], f32)
case("kron_2d", "kron", [ka, kb], np.kron(ka, kb), rule="numpy.kron")
case("kron_1d_2d", "kron", [np.array([1, -1], f32), kb], np.kron(np.array([1, -1], f32), kb), rule="numpy.kron (fewer axes padded in front)")
case("kron_i32", "kron", [ka.astype(i32), kb.astype(i32)], np.kron(ka.astype(i32), kb.astype(i32)), rule="numpy.kron")
mx, my, mz = np.arange(3, dtype=f32), np.array([10, 20], f32), np.array([-1, 0, 1, 2], f32)
for ind in ("ij", "xy"):
    g = np.meshgrid(mx, my, mz, indexing=ind)
    for w_ in range(3):
        case(f"meshgrid_{ind}_{w_}", "meshgrid", [mx, my, mz], g[w_], params={"indexing": ind, "which": w_}, rule=f"numpy.meshgrid(indexing={ind!r})")
case("meshgrid_bad_indexing", "meshgrid", [mx, my], error="ErrValue", params={"indexing": "yx", "which": 0}, rule="numpy (an error)")
case("meshgrid_2d_input", "meshgrid", [ka], error="ErrShape", params={"indexing": "ij", "which": 0}, rule="torch (an error: 1-D inputs)")
c1 = np.array([[0, 0], [1, 1], [3, -4]], f32)
c2 = np.array([[0, 0], [1, 2]], f32)
def cdist_ref(a, b, p):
    d = np.abs(a[..., :, None, :].astype(f64) - b[..., None, :, :].astype(f64))
    if p == inf:
        return d.max(-1)
    if p == 0:
        return (d != 0).sum(-1).astype(f64)
    return (d ** p).sum(-1) ** (1 / p)
for pv, pt in ((2.0, "2"), (1.0, "1"), (inf, "inf"), (3.0, "3"), (0.0, "0"), (0.5, "0p5")):
    case(f"cdist_p{pt}", "cdist", [c1, c2], cdist_ref(c1, c2, pv).astype(f32), params={"p": "inf" if pv == inf else pv}, tol=1e-6, rule="torch.cdist")
case("cdist_batch", "cdist", [np.stack([c1, c1 * 2]), c2], cdist_ref(np.stack([c1, c1 * 2]), c2, 2.0).astype(f32), params={"p": 2.0}, tol=1e-6, rule="torch.cdist (batch axes broadcast)")
case("cdist_width", "cdist", [c1, np.ones((2, 3), f32)], error="ErrShape", params={"p": 2.0}, rule="torch (an error)")
case("cdist_negative_p", "cdist", [c1, c2], error="ErrValue", params={"p": -1.0}, rule="torch (an error)")
nx_ = np.array([[1, nan, 3], [nan, nan, nan]], f32)
case("nansum_all", "nansum", [nx_], np.nansum(nx_), params={"axes": None}, rule="numpy.nansum")
case("nansum_rows", "nansum", [nx_], np.nansum(nx_, axis=1), params={"axes": [1]}, rule="numpy.nansum (all NaN: 0)")
with np.errstate(all="ignore"):
    import warnings
    warnings.simplefilter("ignore")
    case("nanmean_rows", "nanmean", [nx_], np.nanmean(nx_, axis=1), params={"axes": [1]}, rule="numpy.nanmean (all NaN: NaN)")
    case("nanmean_cols", "nanmean", [nx_], np.nanmean(nx_, axis=0), params={"axes": [0]}, rule="numpy.nanmean")
case("nansum_i32", "nansum", [dx.astype(i32)], error="ErrDType", params={"axes": None}, rule="tessera doc: floats only (numpy sums integers)")
zx = np.array([[0, 1.5, 0], [nan, 0, -0.0], [0, 0, 2]], f32)
case("nonzero_2d", "nonzero", [zx], np.argwhere(zx).astype(i64), rule="numpy.argwhere (torch.nonzero; NaN is nonzero, -0 zero)")
case("nonzero_bool_1d", "nonzero", [np.array([False, True, True, False])], np.argwhere(np.array([False, True, True, False])).astype(i64), rule="numpy.argwhere")
case("nonzero_none", "nonzero", [np.zeros((2, 3), i32)], np.zeros((0, 2), i64), rule="numpy.argwhere")
case("nonzero_0d", "nonzero", [np.array(5, f32)], np.zeros((1, 0), i64), rule="numpy.argwhere (a 0-d nonzero: one row of no indices)")
ux_ = np.array([[3, 1, nan], [1, -0.0, 0], [nan, 3, 2]], f32)
uv, ui, uc = np.unique(ux_, return_inverse=True, return_counts=True)
case("unique_values_nan", "unique_values", [ux_], uv, rule="numpy.unique (NaNs are one value, last)")
case("unique_inverse_nan", "unique_inverse", [ux_], ui.reshape(ux_.shape).astype(i64), rule="numpy.unique (inverse in the input's shape, as torch's)")
case("unique_counts_nan", "unique_counts", [ux_], uc.astype(i64), rule="numpy.unique")
ui32 = np.array([5, -2, 5, 7, -2, 5], i32)
case("unique_values_i32", "unique_values", [ui32], np.unique(ui32), rule="numpy.unique")
case("unique_counts_i32", "unique_counts", [ui32], np.unique(ui32, return_counts=True)[1].astype(i64), rule="numpy.unique")
case("unique_values_empty", "unique_values", [np.zeros((0,), f32)], np.zeros((0,), f32), rule="numpy.unique")
ss_ = np.array([1, 2, 2, 2, 5, inf, nan], f32)
sv_ = np.array([[0, 2, 2.5], [5, 9, nan]], f32)
for right in (False, True):
    case(f"searchsorted_{'right' if right else 'left'}", "searchsorted", [ss_, sv_], np.searchsorted(ss_, sv_, side="right" if right else "left").astype(i64),
         params={"right": right}, rule="numpy.searchsorted (NaN sorts last)")
sb_ = np.array([[1, 3, 5], [2, 4, 6]], i64)
vb_ = np.array([[3, 6], [0, 7]], i64)
case("searchsorted_batched", "searchsorted", [sb_, vb_], np.stack([np.searchsorted(sb_[i], vb_[i]) for i in range(2)]).astype(i64), params={"right": False}, rule="torch.searchsorted (batched rows)")
case("searchsorted_i32_in_f32", "searchsorted", [ss_, np.array([2, 3], i32)], np.searchsorted(ss_, np.array([2, 3])).astype(i64), params={"right": False}, rule="numpy.searchsorted")
case("searchsorted_batch_mismatch", "searchsorted", [sb_, vb_[:1].copy()], error="ErrShape", params={"right": False}, rule="torch (an error)")
bx_ = np.array([0, 1, 1, 3, 1, 0], i64)
bw_ = np.array([0.5, 1, 1, 2, -1, 0.25], f32)
case("bincount", "bincount", [bx_], np.bincount(bx_).astype(i64), params={"minlength": 0}, rule="numpy.bincount")
case("bincount_minlength", "bincount", [bx_.astype(i32)], np.bincount(bx_, minlength=7).astype(i64), params={"minlength": 7}, rule="numpy.bincount")
case("bincount_weights", "bincount", [bx_, bw_], np.bincount(bx_, weights=bw_).astype(f32), params={"minlength": 0}, rule="torch.bincount (the weights' dtype; numpy: float64)")
case("bincount_empty", "bincount", [np.zeros((0,), i64)], np.zeros((0,), i64), params={"minlength": 0}, rule="numpy.bincount")
case("bincount_negative", "bincount", [np.array([1, -1], i64)], error="ErrValue", params={"minlength": 0}, rule="numpy (an error)")
case("bincount_float", "bincount", [bw_], error="ErrDType", params={"minlength": 0}, rule="numpy (an error)")
case("bincount_2d", "bincount", [bx_.reshape(2, 3)], error="ErrShape", params={"minlength": 0}, rule="numpy (an error)")

# GroupNorm (F.group_norm written out in float64)
def group_norm_ref(x, g, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    xg = x.astype(f64).reshape(n, g, -1)
    m = xg.mean(-1, keepdims=True)
    v = ((xg - m) ** 2).mean(-1, keepdims=True)
    y = ((xg - m) / np.sqrt(v + eps)).reshape(x.shape)
    st = [1] * x.ndim
    st[1] = c
    if w is not None:
        y = y * w.astype(f64).reshape(st) + b.astype(f64).reshape(st)
    return y


gx = (np.sin(np.arange(48) * 2.3) * 3 + np.arange(48) % 5).astype(f32).reshape(2, 4, 3, 2)
gw = np.array([1, -0.5, 2, 0.25], f32)
gb = np.array([0.1, 3, -7, 2], f32)
GN = "torch.nn.functional.group_norm (NumPy float64)"
for g in (1, 2, 4):
    case(f"group_norm_g{g}", "group_norm", [gx], group_norm_ref(gx, g).astype(f32), params={"groups": g, "eps": 1e-5}, tol=LA32, rule=GN)
    case(f"group_norm_g{g}_affine", "group_norm", [gx, gw, gb], group_norm_ref(gx, g, gw, gb).astype(f32), params={"groups": g, "eps": 1e-5, "affine": True}, tol=LA32, rule=GN)
case("group_norm_3d", "group_norm", [gx[:, :, :, 0].copy()], group_norm_ref(gx[:, :, :, 0], 2, eps=0.5).astype(f32), params={"groups": 2, "eps": 0.5}, tol=LA32, rule=GN)
case("group_norm_f64", "group_norm", [gx.astype(f64), gw.astype(f64), gb.astype(f64)], group_norm_ref(gx, 2, gw, gb), params={"groups": 2, "eps": 1e-5, "affine": True}, tol=LA64, rule=GN)
case("group_norm_empty_batch", "group_norm", [np.zeros((0, 4, 2), f32)], np.zeros((0, 4, 2), f32), params={"groups": 2, "eps": 1e-5}, rule=GN)
case("group_norm_not_dividing", "group_norm", [gx], error="ErrValue", params={"groups": 3, "eps": 1e-5}, rule="pytorch (an error)")
case("group_norm_1d", "group_norm", [gw], error="ErrShape", params={"groups": 1, "eps": 1e-5}, rule="pytorch (an error)")
case("group_norm_weight_shape", "group_norm", [gx, gw[:2].copy(), gb[:2].copy()], error="ErrShape", params={"groups": 2, "eps": 1e-5, "affine": True}, rule="pytorch (an error)")
case("group_norm_negative_eps", "group_norm", [gx], error="ErrValue", params={"groups": 2, "eps": -1}, rule="tessera doc: eps finite, not negative")
case("group_norm_i32", "group_norm", [gx.astype(i32)], error="ErrDType", params={"groups": 2, "eps": 1e-5}, rule="pytorch (floats only)")

# Interpolate (F.interpolate: ATen's nearest, nearest-exact and linear source indices written out,
# in float32 arithmetic for float32 inputs as ATen's)
def interp_axis(x, ax, out, mode, align, scale_factor=None):
    f = np.float32 if x.dtype == f32 else np.float64
    n_in = x.shape[ax]
    scale = f(1 / scale_factor) if scale_factor else f(n_in / out)
    if mode in ("nearest", "nearest-exact"):
        off = f(0.5) if mode == "nearest-exact" else f(0)
        idx = np.array([min(int(np.floor(f(f(i) + off) * scale)), n_in - 1) for i in range(out)])
        return np.take(x, idx, axis=ax)
    if align:
        scale = f((n_in - 1) / (out - 1)) if out > 1 else f(0)
    i0s, i1s, l0s, l1s = [], [], [], []
    for i in range(out):
        if align:
            src = f(scale * f(i))
        else:
            src = max(f(f(scale * f(f(i) + f(0.5))) - f(0.5)), f(0))
        i0 = min(int(src), n_in - 1)
        i1 = i0 + 1 if i0 < n_in - 1 else i0
        l1 = f(src - f(i0))
        i0s.append(i0); i1s.append(i1); l0s.append(f(1) - l1); l1s.append(l1)
    sh = [1] * x.ndim
    sh[ax] = out
    a = np.take(x, i0s, axis=ax).astype(f64) * np.array(l0s, f64).reshape(sh)
    b = np.take(x, i1s, axis=ax).astype(f64) * np.array(l1s, f64).reshape(sh)
    return (a + b).astype(x.dtype)


def interp_ref(x, size=None, scale=None, mode="nearest", align=False):
    y = x
    for k in reversed(range(x.ndim - 2)):
        ax = 2 + k
        out = size[k] if size else int(np.floor(x.shape[ax] * scale[k]))
        y = interp_axis(y, ax, out, mode, align, scale[k] if not size else None)
    return y


ix4 = (np.sin(np.arange(2 * 2 * 3 * 4) * 0.8) * 5).astype(f32).reshape(2, 2, 3, 4)
ix3 = ix4[:, :, 0, :].copy()
IP = "torch.nn.functional.interpolate (ATen's source indices)"
for mode in ("nearest", "nearest-exact", "bilinear"):
    mt = mode.replace("-", "_")
    for tag, kw in (("up_5x7", {"size": (5, 7)}), ("down_2x3", {"size": (2, 3)}), ("scale_1p7x2p5", {"scale": (1.7, 2.5)}), ("same", {"size": (3, 4)})):
        prm = {"mode": mode}
        if "size" in kw:
            prm["size"] = list(kw["size"])
        else:
            prm["scale"] = list(kw["scale"])
        # the linear modes add two products of values up to 5: float32 results near 0 are good to
        # about 5 x 2^-23 absolutely, so a relative tolerance of LA32 on outputs above ~0.02
        case(f"interpolate_{mt}_{tag}", "interpolate", [ix4], interp_ref(ix4, mode=mode, **kw), params=prm, tol=LA32 if mode == "bilinear" else 0, rule=IP)
    if mode == "bilinear":
        for tag, size in (("up_5x7", (5, 7)), ("down_2x3", (2, 3)), ("one_1x1", (1, 1))):
            case(f"interpolate_bilinear_align_{tag}", "interpolate", [ix4], interp_ref(ix4, size=size, mode=mode, align=True),
                 params={"mode": mode, "size": list(size), "align_corners": True}, tol=LA32, rule=IP + " (align_corners=True)")
case("interpolate_linear_3d", "interpolate", [ix3], interp_ref(ix3, size=(9,), mode="linear"), params={"mode": "linear", "size": [9, 0]}, tol=LA32, rule=IP)
case("interpolate_nearest_3d_scale", "interpolate", [ix3], interp_ref(ix3, scale=(2.5,), mode="nearest"), params={"mode": "nearest", "scale": [2.5, 0]}, rule=IP)
case("interpolate_bilinear_f64", "interpolate", [ix4.astype(f64)], interp_ref(ix4.astype(f64), size=(5, 6), mode="bilinear"), params={"mode": "bilinear", "size": [5, 6]}, tol=1e-12, rule=IP)
ixn = ix4.copy()
ixn[0, 0, 1, 1] = nan
case("interpolate_bilinear_nan", "interpolate", [ixn], interp_ref(ixn, size=(6, 8), mode="bilinear"), params={"mode": "bilinear", "size": [6, 8]}, tol=LA32, rule=IP + ": NaN reaches the outputs that weigh it, 0 x NaN included")
case("interpolate_bad_mode", "interpolate", [ix4], error="ErrValue", params={"mode": "bicubic", "size": [5, 5]}, rule="tessera doc: nearest, nearest-exact, linear, bilinear")
case("interpolate_align_nearest", "interpolate", [ix4], error="ErrValue", params={"mode": "nearest", "size": [5, 5], "align_corners": True}, rule="pytorch (an error)")
case("interpolate_no_size", "interpolate", [ix4], error="ErrValue", params={"mode": "nearest"}, rule="pytorch (an error)")
case("interpolate_2d_input", "interpolate", [ix4[0, 0]], error="ErrShape", params={"mode": "nearest", "size": [5, 5]}, rule="tessera doc: [N, C, L] or [N, C, H, W]")
case("interpolate_i32", "interpolate", [ix4.astype(i32)], error="ErrDType", params={"mode": "bilinear", "size": [5, 5]}, rule="tessera doc: floats only")

# Movedim, Unflatten, Unbind, Hstack, Vstack, Rot90; Logit, Xlogy, Logaddexp, IsClose, CountNonzero
ar = np.arange(24, dtype=f32).reshape(2, 3, 4)
for tag, src, dst in (("one", [0], [2]), ("two", [0, 1], [-1, 0]), ("negative", [-1], [0])):
    case(f"movedim_{tag}", "movedim", [ar], np.moveaxis(ar, src, dst), params={"src": src, "dst": dst}, rule="numpy.moveaxis")
case("movedim_repeat", "movedim", [ar], error="ErrAxis", params={"src": [0, 0], "dst": [1, 2]}, rule="numpy (an error)")
case("movedim_lengths", "movedim", [ar], error="ErrValue", params={"src": [0], "dst": [1, 2]}, rule="numpy (an error)")
case("unflatten", "unflatten", [ar], ar.reshape(2, 3, 2, 2), params={"axis": 2, "sizes": [2, -1]}, rule="torch.unflatten")
case("unflatten_bad", "unflatten", [ar], error="ErrShape", params={"axis": 1, "sizes": [2, 2]}, rule="torch (an error)")
for w in range(3):
    case(f"unbind_axis1_{w}", "unbind", [ar], ar[:, w, :], params={"axis": 1, "which": w}, rule="torch.unbind")
case("unbind_bad_axis", "unbind", [ar], error="ErrAxis", params={"axis": 3, "which": 0}, rule="torch (an error)")
case("hstack_1d", "hstack", [np.array([1, 2], f32), np.array([3], f32), np.array(4, f32)], np.hstack([np.array([1, 2], f32), np.array([3], f32), np.array(4, f32)]), rule="numpy.hstack")
case("hstack_2d", "hstack", [ar[0], ar[1, :, :2].copy()], np.hstack([ar[0], ar[1, :, :2]]), rule="numpy.hstack")
case("vstack_1d", "vstack", [np.array([1, 2], f32), np.array([3, 4], f32)], np.vstack([np.array([1, 2], f32), np.array([3, 4], f32)]), rule="numpy.vstack")
case("vstack_mixed", "vstack", [ar[0], np.array([9, 8, 7, 6], f32)], np.vstack([ar[0], np.array([9, 8, 7, 6], f32)]), rule="numpy.vstack")
case("hstack_mismatch", "hstack", [ar[0], ar[1, :2].copy()], error="ErrShape", rule="numpy (an error)")
for k in (-1, 0, 1, 2, 3, 5):
    case(f"rot90_k{k}", "rot90", [ar], np.rot90(ar, k, axes=(1, 2)), params={"k": k, "axes": [1, 2]}, rule="numpy.rot90")
case("rot90_axes_0_2", "rot90", [ar], np.rot90(ar, 1, axes=(0, 2)), params={"k": 1, "axes": [0, 2]}, rule="numpy.rot90")
case("rot90_same_axes", "rot90", [ar], error="ErrAxis", params={"k": 1, "axes": [1, 1]}, rule="numpy (an error)")
lp = np.array([0, 0.1, 0.5, 0.9, 1, 1.5, nan], f32)
with np.errstate(all="ignore"):
    case("logit", "logit", [lp], np.log(lp.astype(f64) / (1 - lp.astype(f64))).astype(f32), params={"eps": 0}, tol=TR, rule="torch.logit")
    lc = np.clip(lp.astype(f64), 0.05, 0.95)
    case("logit_eps", "logit", [lp], np.where(np.isnan(lp), nan, np.log(lc / (1 - lc))).astype(f32), params={"eps": 0.05}, tol=TR, rule="torch.logit(eps): clamped first")
    xl = np.array([0, 0, 0, 2, -1, 0.5], f32)
    yl = np.array([0, nan, 3, 0, 2, inf], f32)
    case("xlogy", "xlogy", [xl, yl], np.where((xl == 0) & ~np.isnan(yl), 0, xl.astype(f64) * np.log(yl.astype(f64))).astype(f32), tol=TR, rule="scipy.special.xlogy (torch.special.xlogy)")
la2 = np.array([0, 1000, -1000, inf, -inf, inf, nan, 2], f32)
lb2 = np.array([0, 999, -1001, inf, -inf, -inf, 1, -3], f32)
with np.errstate(all="ignore"):
    case("logaddexp", "logaddexp", [la2, lb2], np.logaddexp(la2.astype(f64), lb2.astype(f64)).astype(f32), tol=TR, rule="numpy.logaddexp")
ia = np.array([1, 1, inf, inf, nan, 0, 1e-9, 100], f32)
ib = np.array([1.00001, 1.1, inf, -inf, nan, 1e-9, 0, 100.5], f32)
for en in (False, True):
    case(f"isclose_nan{en}", "isclose", [ia, ib], np.isclose(ia, ib, rtol=1e-4, atol=1e-8, equal_nan=en), params={"rtol": 1e-4, "atol": 1e-8, "equal_nan": en}, rule="numpy.isclose")
case("isclose_broadcast", "isclose", [ar, np.array([0, 1.00001, 2.5, 3], f32)], np.isclose(ar, np.array([0, 1.00001, 2.5, 3], f32), rtol=1e-5, atol=0), params={"rtol": 1e-5, "atol": 0}, rule="numpy.isclose")
cz = np.array([[0, 1, nan], [-0.0, 0, 2]], f32)
case("count_nonzero_all", "count_nonzero", [cz], np.array(np.count_nonzero(cz), i64), params={"axes": None}, rule="numpy.count_nonzero (NaN counts)")
case("count_nonzero_axis0", "count_nonzero", [cz], np.count_nonzero(cz, axis=0).astype(i64), params={"axes": [0]}, rule="numpy.count_nonzero")

# Normalize, CosineSimilarity (F.normalize, F.cosine_similarity written out)
def normalize_ref(x, p, axis, eps):
    x = x.astype(f64)
    n = (np.abs(x) ** p).sum(axis=axis, keepdims=True) ** (1 / p)
    return x / np.maximum(n, eps)


nz_ = np.array([[3, 4, 0], [0, 0, 0], [1, -2, 2]], f32)
case("normalize_p2_rows", "normalize", [nz_], normalize_ref(nz_, 2, 1, 1e-12).astype(f32), params={"p": 2, "axis": 1, "eps": 1e-12}, tol=1e-6, rule="torch.nn.functional.normalize (a zero row stays zero)")
case("normalize_p1_cols", "normalize", [nz_], normalize_ref(nz_, 1, 0, 1e-12).astype(f32), params={"p": 1, "axis": 0, "eps": 1e-12}, tol=1e-6, rule="torch.nn.functional.normalize")
case("normalize_eps_floor", "normalize", [nz_ * 1e-3], normalize_ref(nz_ * 1e-3, 2, -1, 0.5).astype(f32), params={"p": 2, "axis": -1, "eps": 0.5}, tol=1e-6, rule="torch.nn.functional.normalize (norms below eps divide by eps)")
case("normalize_negative_eps", "normalize", [nz_], error="ErrValue", params={"p": 2, "axis": 1, "eps": -1}, rule="tessera doc: eps not negative")
ca_ = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0]], f32)
cb_ = np.array([[0, 2, 0]], f32)
def cos_ref(a, b, axis, eps):
    a, b = np.broadcast_arrays(a.astype(f64), b.astype(f64))
    return (normalize_ref(a, 2, axis, eps) * normalize_ref(b, 2, axis, eps)).sum(axis=axis)
case("cosine_similarity_broadcast", "cosine_similarity", [ca_, cb_], cos_ref(ca_, cb_, 1, 1e-8).astype(f32), params={"axis": 1, "eps": 1e-8}, tol=1e-6, rule="torch.nn.functional.cosine_similarity (a zero vector gives 0)")
case("cosine_similarity_axis0", "cosine_similarity", [ca_, ca_[::-1].copy()], cos_ref(ca_, ca_[::-1], 0, 1e-8).astype(f32), params={"axis": 0, "eps": 1e-8}, tol=1e-6, rule="torch.nn.functional.cosine_similarity")
case("cosine_similarity_shapes", "cosine_similarity", [ca_, np.ones((2, 3), f32)], error="ErrShape", params={"axis": 1, "eps": 1e-8}, rule="pytorch (an error)")

# --- half precision on long axes: past the GPUs' workgroups and passes (64, 256, 1024) and the
# matmul's k chunk (16384); every partial result stays in float32 until the one rounding
for hn, rnd, ulp in HALF:
    lo = np.ones(1100)
    lo[0] = 2048 if hn == "f16" else 256
    case(f"sum_{hn}_long", "sum", [rnd(lo)], rnd(np.sum(lo)), params={"axes": None}, rule=HR + " (partial sums in float32)")
    case(f"mean_{hn}_long", "mean", [rnd(lo)], rnd(np.float32(np.sum(lo)) / np.float32(lo.size)), params={"axes": None}, rule=HR + " (partial sums in float32)")
    lo2 = np.stack([lo, lo[::-1] * 2])
    case(f"sum_{hn}_long_rows_T", "sum", [rnd(lo2.T.copy())], rnd(np.sum(lo2, axis=-1)), params={"axes": [-1], "view": "T"}, rule=HR)
    case(f"cumsum_{hn}_long", "cumsum", [rnd(np.ones(2100))], rnd(np.cumsum(np.ones(2100))), params={"axis": 0}, rule="pytorch (the scan in float32, each output rounded once)")
    ln_ = np.zeros(1100)
    ln_[[700, 1000]] = nan
    ln_[300] = 5
    case(f"argmax_{hn}_long_nan", "argmax", [rnd(ln_)], np.argmax(ln_), params={"axis": 0}, rule="numpy (the first NaN)")
    case(f"max_{hn}_long_nan", "max", [rnd(ln_)], rnd(np.max(ln_)), params={"axes": None}, rule="numpy (NaN wins)")
# matmul with k past 16384: a first chunk summing to 2049 and a second adding -2048 gives 1 only
# if the chunks' partial sums stay in float32 (rounded to f16 they give 0)
mk_ = np.zeros((1, 17000))
mk_[0, :2049] = 1
mk_[0, 16900] = -2048
case("matmul_f16_long_k", "matmul", [f16r(mk_), f16r(np.ones((17000, 1)))], f16r(np.array([[1.0]])), rule=HR + " (k chunks accumulate in float32)")

names = [c["name"] for c in cases]
assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)

with open(OUT, "w") as f:
    f.write('{"numpy": "%s", "cases": [\n' % np.__version__)
    f.write(",\n".join(json.dumps(c, sort_keys=True) for c in cases))
    f.write("\n]}\n")
print(f"wrote {len(cases)} cases to {OUT}")
