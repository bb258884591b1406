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

with open(OUT, "w") as f:
    f.write('{"numpy": "%s", "cases": [\n' % np.__version__)
    f.write(",\n".join(json.dumps(c, sort_keys=True) for c in cases))
    f.write("\n]}\n")
print(f"wrote {len(cases)} cases to {OUT}")
