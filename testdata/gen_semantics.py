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
with array = {"dtype": "f32"|"f64"|"i32"|"i64"|"u8"|"bool", "shape": [...],
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
case("add_scalar_bool_integer", "add_scalar", [np.array([True, False])], error="ErrDType", params={"v": 2}, rule="bool arithmetic is an error (NumPy, PyTorch: int64)")
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
    case(name, op, [x], want_fn(VIEWS[view](x)), params=p, **kw)


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

names = [c["name"] for c in cases]
assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)

with open(OUT, "w") as f:
    f.write('{"numpy": "%s", "cases": [\n' % np.__version__)
    f.write(",\n".join(json.dumps(c, sort_keys=True) for c in cases))
    f.write("\n]}\n")
print(f"wrote {len(cases)} cases to {OUT}")
