#!/usr/bin/python3
"""Make tessera's NumPy golden files.

Run from anywhere with an interpreter that has NumPy (Debian's python3-numpy;
`/usr/bin/python3 testdata/gen_golden.py`). The script is deterministic: it
uses numpy.random.default_rng(12345) and writes nothing that depends on time
or on the machine, so re-running it with the same NumPy reproduces every file
byte for byte (`git status testdata/` shows no change).

It writes two folders beside itself, removing their old .npy files first:

golden/     reference results of tensor ops, one case per line in
            golden/MANIFEST.txt (the format is described at the top of
            that file, see MANIFEST_HEAD below).
npyformat/  small arrays in every .npy variant tessera's npy package
            reads (byte orders, Fortran order, format versions 1.0, 2.0,
            3.0, scalars, empty arrays) and some it must reject, listed in
            npyformat/MANIFEST.txt.

References are computed in float64 from the float32 inputs (upcast exactly),
then rounded once to float32, so each output is the correctly rounded (or
nearly so, for libm functions) float32 value of the op on the stored inputs.
"""

import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden")
FORMAT = os.path.join(HERE, "npyformat")

rng = np.random.default_rng(12345)

MANIFEST_HEAD = """\
# tessera golden reference files, made by testdata/gen_golden.py with NumPy {version}.
# Do not edit: change the script and re-run it (the output is deterministic).
#
# Files: every case <name> has inputs <name>_a.npy, <name>_b.npy, <name>_c.npy (in
# argument order) and one output <name>_out.npy. Arrays are C order, little-endian.
# Data is float32 unless the case name marks it: _f64 (float64), _i32 (int32, as
# an ending or a middle part), _bool (bool), or the op says so: comparisons and
# logical ops write bool; argmax, argmin, argsort and topk_indices write int64;
# where's condition is bool; any/all read bool (or numbers, _numbers) and write
# bool; gather and scatter_add take int64 indices; cumsum and cumprod of int32 or
# bool write int64, as NumPy does. References are computed in float64 from the
# stored inputs and rounded once to the output dtype. Some unary outputs are
# +-Inf (e.g. log1p(-1)); compare those exactly. Only the sort and argsort cases
# named _nan_ hold NaN (sorted last, as NumPy does).
#
# Machine-readable lines (one per case; fields separated by one space):
#   case <name> op=<op> inputs=<file>[,<file>...] out=<file> params=[<k>=<v>[;<k>=<v>...]]
# Params (absent keys take the default):
#   axis=none|<int>|<int>,<int>  reduction / softmax / concat / stack axis (none = all axes)
#   keepdims=true|false          reductions keep reduced axes with extent 1 (default false)
#   approximate=none|tanh        gelu: exact erf form or tanh form
#   perm=<int>,<int>,...         permute: output axis i is input axis perm[i]
#   dim0=<int>;dim1=<int>        transpose: swap two axes
# Ops: matmul (numpy.matmul semantics, incl. 1-D operands and batch broadcasting);
#   softmax, log_softmax, logsumexp; sum, mean, prod, max, min, argmax, argmin;
#   gelu, erf, log1p, expm1, tanh, sigmoid; add, mul, maximum (broadcasting);
#   eq, ne, lt, le, gt, ge (broadcasting, bool out); where(cond, x, y) (broadcasting);
#   concat, stack; transpose, permute;
#   mod (floored, np.mod), fmod (truncated, np.fmod), atan2 (np.arctan2), pow (int32,
#   wrapping); leaky_relu (slope=<v>), elu (alpha=<v>); logical_and, logical_or,
#   logical_xor, logical_not, isinf, isfinite (bool out); any, all (bool in or numbers,
#   bool out); flip, roll (shift=<int>; axis=none rolls the flattened array), tile
#   (reps=<int>,...), repeat_interleave (np.repeat; repeats=<int>), tril, triu (k=<int>);
#   sort, argsort (stable, NaN last), topk_values, topk_indices (k=<int>, largest
#   first, ties in index order); cumsum, cumprod; gather (torch.gather semantics),
#   scatter_add (torch.scatter_add semantics). The sign of a zero result of mod,
#   fmod, atan2, leaky_relu and elu is part of the reference.
# A comment line after each case line gives the shapes and dtypes for people.
"""

FORMAT_HEAD = """\
# .npy format coverage files, made by testdata/gen_golden.py with NumPy {version}.
# Do not edit: change the script and re-run it.
#
# Lines: file <name> descr=<descr> order=C|F version=<major.minor> shape=<d,d,...> expect=ok|<kind>
# For expect=ok, element k in C order (row-major index of the logical array) holds:
#   float dtypes (f2, f4, f8):   0.25*k - 2
#   signed ints (i4, i8):        7*k - 50
#   u1:                          (5*k) mod 256
#   b1:                          k mod 3 == 0
# expect=<kind> names the errs kind a reader must return (dtype: unsupported element type).
"""


def f32(x):
    """Round float64 values to float32 once."""
    return np.asarray(x, dtype=np.float64).astype(np.float32)


def up(x):
    """Upcast stored inputs exactly to float64 for the reference."""
    return np.asarray(x).astype(np.float64)


def normal(*shape, scale=1.0):
    return f32(rng.standard_normal(shape) * scale)


def fmt_shape(a):
    return "(" + ",".join(str(d) for d in a.shape) + ")"


def dname(a):
    return {
        np.dtype(np.float32): "f32",
        np.dtype(np.float64): "f64",
        np.dtype(np.bool_): "bool",
        np.dtype(np.int64): "i64",
        np.dtype(np.int32): "i32",
    }[a.dtype]


class Manifest:
    def __init__(self):
        self.lines = []
        self.names = set()

    def case(self, name, op, inputs, out, params=(), nan_ok=False):
        """Save inputs and output of one case and list it. NaN is refused
        unless the case is about NaN (nan_ok)."""
        if name in self.names:
            raise SystemExit("duplicate case " + name)
        self.names.add(name)
        files = []
        for tag, arr in zip("abcdefgh", inputs):
            fn = "%s_%s.npy" % (name, tag)
            save(os.path.join(GOLDEN, fn), arr, nan_ok)
            files.append(fn)
        outfn = name + "_out.npy"
        save(os.path.join(GOLDEN, outfn), out, nan_ok)
        ps = ";".join("%s=%s" % kv for kv in params)
        self.lines.append("case %s op=%s inputs=%s out=%s params=%s" % (name, op, ",".join(files), outfn, ps))
        desc = ", ".join("%s%s" % (dname(a), fmt_shape(a)) for a in inputs)
        self.lines.append("#   %s(%s) -> %s%s" % (op, desc, dname(out), fmt_shape(out)))


def save(path, arr, nan_ok=False):
    arr = np.asarray(arr)
    if not nan_ok and arr.dtype.kind == "f" and not np.all(np.isfinite(arr) | np.isinf(arr)):
        raise SystemExit("NaN in " + path)
    if arr.dtype.byteorder == ">":
        raise SystemExit("big-endian golden " + path)
    np.save(path, arr.copy(order="C"))  # (ascontiguousarray would make 0-d arrays 1-d)


def fmt_axis(axis):
    if axis is None:
        return "none"
    if isinstance(axis, tuple):
        return ",".join(str(a) for a in axis)
    return str(axis)


def axis_tag(axis):
    return "axis" + fmt_axis(axis).replace(",", "_").replace("-", "m")


# ---------------------------------------------------------------- references


def softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def logsumexp(x, axis, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    s = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        s = np.squeeze(s, axis=axis) if axis is not None else s.reshape(())
    return s


def log_softmax(x, axis):
    return x - logsumexp(x, axis, keepdims=True)


def sigmoid(x):
    # Stable in both directions: never exp of a large positive number.
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1.0 + e)
    return out


_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def gelu_erf(x):
    # 0.5*x*(1+erf(x/sqrt2)) == 0.5*x*erfc(-x/sqrt2), which does not cancel for x << 0.
    return 0.5 * x * _erfc(-x / math.sqrt(2.0))


def gelu_tanh(x):
    # 0.5*x*(1+tanh(u)) == x*sigmoid(2u), which does not cancel for x << 0.
    u = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)
    return x * sigmoid(2.0 * u)


# --------------------------------------------------------------------- cases


def matmul_cases(m):
    shapes = [
        ("3x4_4x5", (3, 4), (4, 5)),
        ("2x3x4_4x5", (2, 3, 4), (4, 5)),
        ("1x2x3x4_3x1x4x2", (1, 2, 3, 4), (3, 1, 4, 2)),
        ("4_4x5", (4,), (4, 5)),
        ("3x4_4", (3, 4), (4,)),
        ("4_4", (4,), (4,)),
        ("17x33_33x9", (17, 33), (33, 9)),
    ]
    for tag, sa, sb in shapes:
        a, b = normal(*sa), normal(*sb)
        m.case("matmul_" + tag, "matmul", [a, b], f32(np.matmul(up(a), up(b))))
    for tag, sa, sb in [("3x4_4x5", (3, 4), (4, 5)), ("17x33_33x9", (17, 33), (33, 9))]:
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        m.case("matmul_%s_f64" % tag, "matmul", [a, b], np.matmul(a, b))


def softmax_cases(m):
    # Scaled by 50: a naive exp overflows float32 (and the spread underflows).
    x = normal(4, 7, scale=50.0)
    for axis in (-1, 0):
        p = [("axis", fmt_axis(axis))]
        t = axis_tag(axis)
        m.case("softmax_4x7_" + t, "softmax", [x], f32(softmax(up(x), axis)), p)
        m.case("log_softmax_4x7_" + t, "log_softmax", [x], f32(log_softmax(up(x), axis)), p)
        m.case("logsumexp_4x7_" + t, "logsumexp", [x], f32(logsumexp(up(x), axis)), p)
    m.case("logsumexp_4x7_axisnone", "logsumexp", [x], f32(logsumexp(up(x), None)), [("axis", "none")])
    x64 = rng.standard_normal((4, 7)) * 50.0
    m.case("softmax_4x7_axism1_f64", "softmax", [x64], softmax(x64, -1), [("axis", "-1")])
    m.case("log_softmax_4x7_axism1_f64", "log_softmax", [x64], log_softmax(x64, -1), [("axis", "-1")])


def reduction_cases(m):
    x = f32(rng.uniform(-2.0, 2.0, (3, 4, 5)))
    fns = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min}
    for op, fn in fns.items():
        for axis in (None, 0, 1, (0, 2)):
            p = [("axis", fmt_axis(axis)), ("keepdims", "false")]
            m.case("%s_3x4x5_%s" % (op, axis_tag(axis)), op, [x], f32(fn(up(x), axis=axis)), p)
    for op, axis in (("sum", 1), ("max", (0, 2)), ("mean", None)):
        p = [("axis", fmt_axis(axis)), ("keepdims", "true")]
        out = f32(fns[op](up(x), axis=axis, keepdims=True))
        m.case("%s_3x4x5_%s_keepdims" % (op, axis_tag(axis)), op, [x], out, p)
    for op, fn in (("argmax", np.argmax), ("argmin", np.argmin)):
        p = [("axis", "1"), ("keepdims", "false")]
        m.case("%s_3x4x5_axis1" % op, op, [x], fn(x, axis=1).astype(np.int64), p)
    x64 = rng.uniform(-2.0, 2.0, (3, 4, 5))
    for op in ("sum", "mean"):
        for axis in (None, 1):
            p = [("axis", fmt_axis(axis)), ("keepdims", "false")]
            m.case("%s_3x4x5_%s_f64" % (op, axis_tag(axis)), op, [x64], fns[op](x64, axis=axis), p)


def unary_cases(m):
    grid = np.linspace(-6.0, 6.0, 97)
    small = [0.0, -0.0, 1e-8, -1e-8, 1e-4, -1e-4, 0.5, -0.5]
    big = [10.0, -10.0, 20.0, -20.0, 50.0, -50.0]
    inf = [np.inf, -np.inf]

    def inp(*extra):
        return f32(np.concatenate([grid] + [np.array(e, dtype=np.float64) for e in extra]))

    with np.errstate(divide="ignore", over="ignore"):
        x = inp(small, big)
        m.case("gelu_erf", "gelu", [x], f32(gelu_erf(up(x))), [("approximate", "none")])
        m.case("gelu_tanh", "gelu", [x], f32(gelu_tanh(up(x))), [("approximate", "tanh")])
        x = inp(small, big, inf)
        m.case("erf", "erf", [x], f32(_erf(up(x))))
        m.case("tanh", "tanh", [x], f32(np.tanh(up(x))))
        m.case("sigmoid", "sigmoid", [x], f32(sigmoid(up(x))))
        x = inp(small, [10.0, -10.0, 20.0, -20.0, 50.0, -50.0, 88.0, -88.0, -np.inf])
        m.case("expm1", "expm1", [x], f32(np.expm1(up(x))))
        x = f32(np.concatenate([np.linspace(-0.99, 6.0, 97), small, [-1.0, -0.999999, 10.0, 1e10, 1e30, np.inf]]))
        m.case("log1p", "log1p", [x], f32(np.log1p(up(x))))
        x64 = np.concatenate([grid, np.array(small), np.array(big)])
        m.case("gelu_erf_f64", "gelu", [x64], gelu_erf(x64), [("approximate", "none")])
        m.case("gelu_tanh_f64", "gelu", [x64], gelu_tanh(x64), [("approximate", "tanh")])
        m.case("erf_f64", "erf", [x64], _erf(x64))


def broadcast_cases(m):
    pairs = [("3x1x5_4x1", (3, 1, 5), (4, 1)), ("5_2x3x5", (5,), (2, 3, 5)), ("scalar_2x2", (), (2, 2))]
    fns = {"add": np.add, "mul": np.multiply, "maximum": np.maximum}
    for op, fn in fns.items():
        for tag, sa, sb in pairs:
            a, b = normal(*sa), normal(*sb)
            m.case("%s_%s" % (op, tag), op, [a, b], f32(fn(up(a), up(b))))
    a, b = rng.standard_normal((3, 1, 5)), rng.standard_normal((4, 1))
    m.case("add_3x1x5_4x1_f64", "add", [a, b], a + b)
    # Small integers so that eq/ne/le/ge see ties.
    cmps = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
            "gt": np.greater, "ge": np.greater_equal}
    a = f32(rng.integers(-2, 3, (3, 1, 5)))
    b = f32(rng.integers(-2, 3, (4, 1)))
    for op, fn in cmps.items():
        m.case("%s_3x1x5_4x1" % op, op, [a, b], fn(a, b))
    a, b = f32(rng.integers(-2, 3, ())), f32(rng.integers(-2, 3, (2, 2)))
    m.case("lt_scalar_2x2", "lt", [a, b], np.less(a, b))


def structural_cases(m):
    cond = rng.integers(0, 2, (2, 3, 4)).astype(np.bool_)
    x, y = normal(2, 3, 4), normal(2, 3, 4)
    m.case("where_2x3x4", "where", [cond, x, y], np.where(cond, x, y))
    cond = rng.integers(0, 2, (2, 1, 4)).astype(np.bool_)
    x, y = normal(2, 3, 4), normal(3, 1)
    m.case("where_2x1x4_2x3x4_3x1", "where", [cond, x, y], np.where(cond, x, y))

    a, b, c = normal(2, 3, 4), normal(2, 5, 4), normal(2, 1, 4)
    m.case("concat_2x3x4_2x5x4_2x1x4_axis1", "concat", [a, b, c], np.concatenate([a, b, c], axis=1), [("axis", "1")])
    a, b = normal(2, 3, 4), normal(1, 3, 4)
    m.case("concat_2x3x4_1x3x4_axis0", "concat", [a, b], np.concatenate([a, b], axis=0), [("axis", "0")])
    a, b = normal(2, 3, 4), normal(2, 3, 2)
    m.case("concat_2x3x4_2x3x2_axism1", "concat", [a, b], np.concatenate([a, b], axis=-1), [("axis", "-1")])

    xs = [normal(2, 3) for _ in range(3)]
    for axis in (0, 1, -1):
        m.case("stack_3x_2x3_%s" % axis_tag(axis), "stack", xs, np.stack(xs, axis=axis), [("axis", fmt_axis(axis))])

    x = normal(2, 3, 4)
    for perm in ((2, 0, 1), (1, 0, 2), (2, 1, 0), (0, 1, 2)):
        tag = "".join(str(p) for p in perm)
        m.case("permute_2x3x4_%s" % tag, "permute", [x], np.transpose(x, perm), [("perm", fmt_axis(perm))])
    for d0, d1 in ((0, 2), (1, 2), (-1, 0)):
        tag = "%s_%s" % (str(d0).replace("-", "m"), d1)
        m.case("transpose_2x3x4_%s" % tag, "transpose", [x], np.swapaxes(x, d0, d1), [("dim0", d0), ("dim1", d1)])


def semantics_cases(m):
    """Remainders, atan2, the parameterised activations, integer powers and
    the logical operations, on grids of signed zeros, infinities and exact
    integers where NumPy's definitions differ between libraries. A generator
    of their own keeps the earlier cases' files unchanged."""
    r = np.random.default_rng(2024)
    a = f32([-7.5, -3, -2.5, -1, -0.0, 0.0, 0.5, 1, 2.5, 3, 7.5, 1e30, -1e30, 3.3e-3]).reshape(-1, 1)
    b = f32([-3, -2.5, -1, -0.5, 0.5, 1, 2.5, 3, np.inf, -np.inf, 0.1, 7])
    # np.mod is the floored remainder (sign of b), np.fmod the truncated one
    # (sign of a); both exact, so the float64 result rounds to itself.
    m.case("mod_grid", "mod", [a, b], f32(np.mod(up(a), up(b))))
    m.case("fmod_grid", "fmod", [a, b], f32(np.fmod(up(a), up(b))))
    m.case("mod_grid_f64", "mod", [up(a), up(b)], np.mod(up(a), up(b)))
    x = normal(4, 5, scale=4.0)
    y = f32(r.uniform(0.3, 3.0, (5,)) * np.where(r.integers(0, 2, (5,)) == 1, 1, -1))
    m.case("mod_4x5_5", "mod", [x, y], f32(np.mod(up(x), up(y))))
    m.case("fmod_4x5_5", "fmod", [x, y], f32(np.fmod(up(x), up(y))))
    v = f32([-np.inf, -2, -1, -0.0, 0.0, 1e-3, 1, 3, np.inf])
    m.case("atan2_grid", "atan2", [v.reshape(-1, 1), v], f32(np.arctan2(up(v).reshape(-1, 1), up(v))))
    m.case("atan2_4x5_5", "atan2", [x, y], f32(np.arctan2(up(x), up(y))))
    ia = np.array([-9, -7, -4, -1, 0, 1, 4, 7, 9, 2147483647, -2147483648], dtype=np.int32).reshape(-1, 1)
    ib = np.array([-4, -3, -1, 0, 1, 3, 4], dtype=np.int32)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # NumPy's integer remainders by zero are 0 (with a warning).
        m.case("mod_grid_i32", "mod", [ia, ib], np.mod(ia, ib))
        m.case("fmod_grid_i32", "fmod", [ia, ib], np.fmod(ia, ib))
        pa = np.array([-3, -2, -1, 0, 1, 2, 3, 7], dtype=np.int32).reshape(-1, 1)
        pb = np.array([0, 1, 2, 5, 20, 25, 31], dtype=np.int32)
        m.case("pow_grid_i32", "pow", [pa, pb], np.power(pa, pb))  # wraps in int32
    s = f32(np.concatenate([[-np.inf, -3, -1e-3, -0.0, 0.0, 1e-3, 2, np.inf], r.standard_normal(12) * 3]))
    for slope in (0.01, 0.2):
        m.case("leaky_relu_%g" % slope, "leaky_relu", [s], f32(np.where(up(s) > 0, up(s), up(s) * slope)),
               [("slope", "%g" % slope)])
    for alpha in (1.0, 0.5):
        with np.errstate(over="ignore", invalid="ignore"):
            # expm1 of the nonpositive part only (keeping -0: expm1(-0) = -0)
            e = np.where(up(s) > 0, up(s), alpha * np.expm1(np.where(up(s) > 0, 0, up(s))))
        m.case("elu_%g" % alpha, "elu", [s], f32(e), [("alpha", "%g" % alpha)])
    la = f32([-0.0, 0.0, 1, -2.5, np.inf, -np.inf]).reshape(-1, 1)
    lb = f32([0.0, -0.0, 3, -np.inf])
    for op, fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or), ("logical_xor", np.logical_xor)):
        m.case("%s_grid" % op, op, [la, lb], fn(la, lb))
    m.case("logical_not", "logical_not", [la], np.logical_not(la))
    m.case("isinf", "isinf", [la], np.isinf(la))
    m.case("isfinite", "isfinite", [la], np.isfinite(la))
    bx = r.integers(0, 2, (3, 4, 5)).astype(np.bool_)
    bx[1] = True
    for op, fn in (("any", np.any), ("all", np.all)):
        for axis in (None, 0, 1, (0, 2)):
            m.case("%s_3x4x5_%s" % (op, axis_tag(axis)), op, [bx], np.asarray(fn(bx, axis=axis)), [("axis", fmt_axis(axis))])
    # NumPy's any/all of numbers: nonzero (-0 is zero, Inf is not) is true.
    m.case("any_numbers", "any", [la], np.asarray(np.any(la, axis=1)), [("axis", "1")])
    m.case("all_numbers", "all", [la], np.asarray(np.all(la, axis=1)), [("axis", "1")])


def shape_cases(m):
    """NumPy's flip, roll (flattened when axis is None; negative shifts),
    tile, repeat (element-wise, tessera's RepeatInterleave) and tril/triu
    with diagonal offsets on a batch of matrices."""
    r = np.random.default_rng(2025)
    x = f32(r.standard_normal((2, 3, 4)))
    for axis in (None, 0, (0, 2), -1):
        m.case("flip_2x3x4_%s" % axis_tag(axis), "flip", [x], np.flip(x, axis=axis), [("axis", fmt_axis(axis))])
    for shift, axis in ((3, None), (-5, None), (1, 2), (-1, 2), (7, 1), (-4, 0)):
        tag = "%s_%s" % (str(shift).replace("-", "m"), axis_tag(axis))
        m.case("roll_2x3x4_%s" % tag, "roll", [x], np.roll(x, shift, axis=axis), [("shift", shift), ("axis", fmt_axis(axis))])
    for reps in ((2,), (1, 3), (2, 1, 2), (2, 1, 1, 3)):
        m.case("tile_2x3x4_%s" % "_".join(map(str, reps)), "tile", [x], np.tile(x, reps), [("reps", fmt_axis(reps))])
    for repeats, axis in ((2, 0), (3, 2), (2, -2)):
        m.case("repeat_2x3x4_%d_%s" % (repeats, axis_tag(axis)), "repeat_interleave", [x], np.repeat(x, repeats, axis=axis),
               [("repeats", repeats), ("axis", fmt_axis(axis))])
    y = f32(r.standard_normal((2, 4, 5)))
    for k in (0, 1, -1, 3, -4):
        t = str(k).replace("-", "m")
        m.case("tril_2x4x5_k%s" % t, "tril", [y], np.tril(y, k), [("k", k)])
        m.case("triu_2x4x5_k%s" % t, "triu", [y], np.triu(y, k), [("k", k)])
def index_cases(m):
    """Sort (NaN and ties), argsort, top-k ties, integer cumsum, gather and
    scatter_add. A generator of its own keeps the earlier files unchanged."""
    r = np.random.default_rng(2024)
    nan = np.float32("nan")
    x = np.array([[3, 1, nan, 1, -0.0, 0.0, -np.inf, nan, 2, 1],
                  [nan, 5, 5, -1, 5, np.inf, -1, 0.0, -0.0, 2]], dtype=np.float32)
    m.case("sort_nan_ties_2x10", "sort", [x], np.sort(x, axis=-1, kind="stable"), [("axis", "-1")], nan_ok=True)
    m.case("argsort_nan_ties_2x10", "argsort", [x], np.argsort(x, axis=-1, kind="stable").astype(np.int64), [("axis", "-1")], nan_ok=True)
    y = r.integers(-3, 4, (6, 4)).astype(np.int32)
    m.case("argsort_i32_ties_6x4_axis0", "argsort", [y], np.argsort(y, axis=0, kind="stable").astype(np.int64), [("axis", "0")])
    t = r.integers(0, 4, (3, 8)).astype(np.float32)
    order = np.argsort(-t, axis=1, kind="stable")[:, :3]
    m.case("topk_ties_3x8_k3_values", "topk_values", [t], np.take_along_axis(t, order, 1), [("axis", "1"), ("k", "3")])
    m.case("topk_ties_3x8_k3_indices", "topk_indices", [t], order.astype(np.int64), [("axis", "1"), ("k", "3")])
    c = r.integers(-100, 100, (4, 5)).astype(np.int32)
    m.case("cumsum_i32_4x5_axis1", "cumsum", [c], np.cumsum(c, axis=1), [("axis", "1")])
    b = r.integers(0, 2, (7,)).astype(np.bool_)
    m.case("cumsum_bool_7", "cumsum", [b], np.cumsum(b), [("axis", "0")])
    f = normal(3, 5)
    m.case("cumprod_3x5_axis0", "cumprod", [f], f32(np.cumprod(f.astype(np.float64), axis=0)), [("axis", "0")])
    g = normal(4, 3)
    gi = r.integers(0, 4, (5, 3)).astype(np.int64)
    m.case("gather_4x3_axis0", "gather", [g, gi], np.take_along_axis(g, gi, 0), [("axis", "0")])
    base, src = normal(4, 3), normal(5, 3)
    out = base.astype(np.float64)
    cols = np.broadcast_to(np.arange(3), gi.shape)
    np.add.at(out, (gi, cols), src.astype(np.float64))
    m.case("scatter_add_4x3_axis0", "scatter_add", [base, gi, src], f32(out), [("axis", "0")])


# ------------------------------------------------------------ format files


def format_values(dt, shape):
    n = int(np.prod(shape, dtype=np.int64))
    k = np.arange(n, dtype=np.int64)
    if dt.kind == "f":
        v = 0.25 * k - 2
    elif dt.kind == "i":
        v = 7 * k - 50
    elif dt.kind == "u":
        v = (5 * k) % 256
    elif dt.kind == "b":
        v = k % 3 == 0
    else:
        raise SystemExit("no values for " + str(dt))
    return v.astype(dt).reshape(shape)


def format_files():
    lines = []

    def put(name, arr, order, version=None, expect="ok", descr=None):
        path = os.path.join(FORMAT, name + ".npy")
        with open(path, "wb") as f:
            np.lib.format.write_array(f, arr, version=version, allow_pickle=(arr.dtype == object))
        with open(path, "rb") as f:
            major, minor = np.lib.format.read_magic(f)
        if arr.dtype != object:
            back = np.load(path, mmap_mode="r")
            fortran = back.flags.f_contiguous and not back.flags.c_contiguous
            if fortran != (order == "F") or not np.array_equal(back, arr):
                raise SystemExit("%s: not stored as %s order" % (name, order))
        shape = ",".join(str(d) for d in arr.shape)
        descr = descr or np.lib.format.dtype_to_descr(arr.dtype)
        lines.append("file %s.npy descr=%s order=%s version=%d.%d shape=%s expect=%s"
                     % (name, descr, order, major, minor, shape, expect))

    for code in ("f2", "f4", "f8", "i4", "i8"):
        for bo, tag in (("<", "le"), (">", "be")):
            dt = np.dtype(bo + code)
            put("%s_%s" % (code, tag), format_values(dt, (2, 3, 4)), "C")
            put("%s_%s_fortran" % (code, tag), np.asfortranarray(format_values(dt, (2, 3, 4))), "F")
    for code in ("u1", "b1"):
        dt = np.dtype("|" + code)
        put(code, format_values(dt, (3, 5)), "C")
        put(code + "_fortran", np.asfortranarray(format_values(dt, (3, 5))), "F")
    put("f8_scalar", format_values(np.dtype("<f8"), ()), "C")
    put("f4_1d", format_values(np.dtype("<f4"), (7,)), "C")
    put("f4_empty_0x3", format_values(np.dtype("<f4"), (0, 3)), "C")
    put("i8_empty_3x0", format_values(np.dtype("<i8"), (3, 0)), "C")
    put("f4_2x1x3_fortran", np.asfortranarray(format_values(np.dtype("<f4"), (2, 1, 3))), "F")
    put("f4_v2", format_values(np.dtype("<f4"), (3, 4)), "C", version=(2, 0))
    put("f4_v3", format_values(np.dtype("<f4"), (3, 4)), "C", version=(3, 0))
    put("f8_be_v2_fortran", np.asfortranarray(format_values(np.dtype(">f8"), (4, 2))), "F", version=(2, 0))
    # Element types tessera has no dtype for: a reader must refuse them.
    put("reject_i2", np.arange(6, dtype="<i2"), "C", expect="dtype")
    put("reject_u4", np.arange(6, dtype="<u4"), "C", expect="dtype")
    put("reject_c8", np.arange(6, dtype="<c8"), "C", expect="dtype")
    put("reject_f16", np.arange(6, dtype=np.longdouble), "C", expect="dtype")
    put("reject_U3", np.array(["a", "bc", "def"]), "C", expect="dtype")
    put("reject_struct", np.zeros(3, dtype=[("a", "<f4"), ("b", "<i4")]), "C", expect="dtype",
        descr="struct")
    put("reject_object", np.array([1, "x", None], dtype=object), "C", expect="dtype")
    return lines


def clean(folder):
    os.makedirs(folder, exist_ok=True)
    for fn in sorted(os.listdir(folder)):
        if fn.endswith(".npy") or fn == "MANIFEST.txt":
            os.remove(os.path.join(folder, fn))


def main():
    clean(GOLDEN)
    clean(FORMAT)
    m = Manifest()
    matmul_cases(m)
    softmax_cases(m)
    reduction_cases(m)
    unary_cases(m)
    broadcast_cases(m)
    structural_cases(m)
    semantics_cases(m)
    shape_cases(m)
    index_cases(m)
    with open(os.path.join(GOLDEN, "MANIFEST.txt"), "w", newline="\n") as f:
        f.write(MANIFEST_HEAD.format(version=np.__version__))
        f.write("\n".join(m.lines) + "\n")
    lines = format_files()
    with open(os.path.join(FORMAT, "MANIFEST.txt"), "w", newline="\n") as f:
        f.write(FORMAT_HEAD.format(version=np.__version__))
        f.write("\n".join(lines) + "\n")
    print("%d cases in %s, %d files in %s" % (len(m.names), GOLDEN, len(lines), FORMAT), file=sys.stderr)


if __name__ == "__main__":
    main()
