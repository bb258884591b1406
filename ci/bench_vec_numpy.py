#!/usr/bin/python3
"""NumPy side of ci/bench-vec.sh.

Times the NumPy (one thread) equivalents of the vec kernels that
BenchmarkTiers* in device/cpu/vec times, with the same sizes and the same
rule (the fastest of many calls, so other work on the machine does not
count), then joins them with the Go benchmark output read from the file
named by argv[1] and prints one table: Gelem/s (elementwise) or GB/s
(reductions) per tier and NumPy, and the best tier's ratio to NumPy.
"""
import re
import sys
import time

import numpy as np


def best(fn, n_calls):
    fn()
    b = float("inf")
    for _ in range(n_calls):
        t0 = time.perf_counter()
        fn()
        b = min(b, time.perf_counter() - t0)
    return b


def numpy_rates(n):
    np.seterr(all="ignore")  # reciprocal of the zeros in x
    i = np.arange(n)
    x = ((i % 2000) * 0.01 - 10).astype(np.float32)
    xl = ((i % 2000) * 0.01 + 0.005).astype(np.float32)
    xa = ((i % 2000) * 0.001 - 0.9995).astype(np.float32)
    xs = ((i % 2000) * 0.0006 - 0.6).astype(np.float32)
    a32 = (i % 100 + 1).astype(np.float32)
    b32 = np.full(n, 1.5, np.float32)
    a64 = (i % 100 + 1).astype(np.float64)
    b64 = np.full(n, 1.5, np.float64)
    d32 = np.empty(n, np.float32)
    d64 = np.empty(n, np.float64)
    dbool = np.empty(n, np.bool_)
    t32 = np.empty(n, np.float32)
    s32 = (i % 100).astype(np.float32)
    h32 = np.full(n, 0.5, np.float32)
    s64 = (i % 100).astype(np.float64)
    x64 = (i % 2000) * 0.01 - 10
    xl64 = (i % 2000) * 0.01 + 0.005

    def sigmoid():
        np.negative(x, out=t32)
        np.exp(t32, out=t32)
        np.add(t32, 1, out=t32)
        np.reciprocal(t32, out=d32)

    def silu():
        np.negative(x, out=t32)
        np.exp(t32, out=t32)
        np.add(t32, 1, out=t32)
        np.divide(x, t32, out=d32)

    d64b = np.empty(n, np.float64)

    def sigmoid64():
        np.negative(x64, out=d64b)
        np.exp(d64b, out=d64b)
        np.add(d64b, 1, out=d64b)
        np.reciprocal(d64b, out=d64)

    def axpy():
        np.multiply(a32, 1.5, out=t32)
        np.add(t32, b32, out=d32)

    # np.where has no out argument, so these allocate their result, as a
    # NumPy program's where does; the condition's pattern is Go's (every
    # third element).
    cond = np.arange(n) % 3 == 0
    ai32 = (np.arange(n) % 100).astype(np.int32)
    bi32 = np.full(n, 50, np.int32)
    ai64 = (np.arange(n) % 100).astype(np.int64)
    zero32 = np.float32(0)
    h16 = (1 + np.arange(n) % 100 / 1024).astype(np.float16)
    zero16 = np.float16(0)

    # name -> (function, bytes per element or 0 for Gelem/s)
    ops = {
        "exp": (lambda: np.exp(x, out=d32), 0),
        "log": (lambda: np.log(xl, out=d32), 0),
        "exp_f64": (lambda: np.exp(x64, out=d64), 0),
        "log_f64": (lambda: np.log(xl64, out=d64), 0),
        "tanh_f64": (lambda: np.tanh(x64, out=d64), 0),
        "sigmoid_f64": (sigmoid64, 0),
        "tanh": (lambda: np.tanh(x, out=d32), 0),
        "tanh_small": (lambda: np.tanh(xs, out=d32), 0),
        "sigmoid": (sigmoid, 0),
        "silu": (silu, 0),
        "relu": (lambda: np.maximum(x, 0, out=d32), 0),
        "neg": (lambda: np.negative(x, out=d32), 0),
        "abs": (lambda: np.abs(x, out=d32), 0),
        "floor": (lambda: np.floor(x, out=d32), 0),
        "round_even": (lambda: np.rint(x, out=d32), 0),
        "recip": (lambda: np.reciprocal(x, out=d32), 0),
        "softplus": (lambda: np.logaddexp(0, x, out=d32), 0),
        "log1p": (lambda: np.log1p(xl, out=d32), 0),
        "expm1": (lambda: np.expm1(x, out=d32), 0),
        "exp2": (lambda: np.exp2(x, out=d32), 0),
        "log2": (lambda: np.log2(xl, out=d32), 0),
        "sinh": (lambda: np.sinh(x, out=d32), 0),
        "cosh": (lambda: np.cosh(x, out=d32), 0),
        "sin": (lambda: np.sin(x, out=d32), 0),
        "cos": (lambda: np.cos(x, out=d32), 0),
        "tan": (lambda: np.tan(x, out=d32), 0),
        "rsqrt": (lambda: np.divide(1, np.sqrt(xl, out=d32), out=d32), 0),
        "asin": (lambda: np.arcsin(xa, out=d32), 0),
        "acos": (lambda: np.arccos(xa, out=d32), 0),
        "atan": (lambda: np.arctan(x, out=d32), 0),
        "add_f32": (lambda: np.add(a32, b32, out=d32), 12),
        "mul_f32": (lambda: np.multiply(a32, b32, out=d32), 12),
        "div_f32": (lambda: np.divide(a32, b32, out=d32), 12),
        "mulscalar_f32": (lambda: np.multiply(a32, np.float32(1.5), out=d32), 8),
        "axpy_f32": (axpy, 12),
        "maximum_f32": (lambda: np.maximum(a32, b32, out=d32), 12),
        "gt_f32": (lambda: np.greater(a32, b32, out=dbool), 9),
        "gtscalar_f32": (lambda: np.greater(a32, np.float32(1.5), out=dbool), 5),
        "gt_f64": (lambda: np.greater(a64, b64, out=dbool), 17),
        "gt_i32": (lambda: np.greater(ai32, bi32, out=dbool), 9),
        "eqscalar_i64": (lambda: np.equal(ai64, np.int64(7), out=dbool), 9),
        "where_f32": (lambda: np.where(cond, a32, b32), 13),
        "whereelse_f32": (lambda: np.where(cond, a32, zero32), 9),
        "whereelse_f16": (lambda: np.where(cond, h16, zero16), 5),
        "where_f64": (lambda: np.where(cond, a64, b64), 25),
        "add_f64": (lambda: np.add(a64, b64, out=d64), 24),
        "div_f64": (lambda: np.divide(a64, b64, out=d64), 24),
        "sum_f32": (lambda: np.add.reduce(s32), 4),
        "dot_f32": (lambda: np.dot(s32, h32), 8),
        "max_f32": (lambda: np.max(s32), 4),
        "sum_f64": (lambda: np.add.reduce(s64), 8),
    }
    calls = max(5, min(2000, int(2e8 // (n * 10))))
    out = {}
    for name, (fn, bpe) in ops.items():
        t = best(fn, calls)
        out[name] = (n / t / 1e9, bpe * n / t / 1e9 if bpe else None)
    return out


def main():
    go = {}  # (op, n) -> {tier: (gelem, gbs)}
    pat = re.compile(r"^BenchmarkTiers\w+/(\w+)/n=(\d+)/(\w+)-\d+\s")
    for line in open(sys.argv[1]):
        m = pat.match(line)
        if not m:
            continue
        f = line.split()
        metrics = {f[k + 1]: float(f[k]) for k in range(2, len(f) - 1) if f[k + 1].endswith("/s")}
        go.setdefault((m.group(1), int(m.group(2))), {})[m.group(3)] = (
            metrics.get("Gelem/s"), metrics.get("GB/s"))
    sizes = sorted({n for _, n in go})
    tiers = [t for t in ("generic", "avx2", "avx512") if any(t in v for v in go.values())]
    print("%-14s %9s %-7s" % ("op", "n", "unit") + "".join("%9s" % t for t in tiers)
          + "%9s %9s %9s" % ("numpy", "best/np", "512/avx2"))
    for n in sizes:
        np_rates = numpy_rates(n)
        for (op, m), v in go.items():
            if m != n:
                continue
            gb = all(r[1] is not None for r in v.values())
            unit, idx = ("GB/s", 1) if gb else ("Gelem/s", 0)
            row = "%-14s %9d %-7s" % (op, n, unit)
            vals = [v.get(t, (None, None))[idx] for t in tiers]
            row += "".join("%9.2f" % x if x is not None else "%9s" % "-" for x in vals)
            npv = np_rates.get(op, (None, None))[idx]
            bestv = max(x for x in vals if x is not None)
            row += "%9.2f" % npv if npv is not None else "%9s" % "-"
            row += "%8.2fx" % (bestv / npv) if npv else "%9s" % "-"
            if "avx512" in v and "avx2" in v:
                row += "%8.2fx" % (v["avx512"][idx] / v["avx2"][idx])
            print(row)


if __name__ == "__main__":
    main()
