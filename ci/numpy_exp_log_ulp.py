#!/usr/bin/python3
"""Largest error of NumPy's float64 np.exp, np.log and np.tanh, in ulps of the
result, against Python's decimal module at 40 digits (exact enough to
round), on 30,000 random inputs each (seeded): the yardstick for the
accuracy of device/cpu/vec's float64 kernels (TestExactF64), quoted in
docs/benchmarks.md. Not part of the test run.
    /usr/bin/python3 ci/numpy_exp_log_ulp.py
"""
import math
from decimal import Decimal, getcontext

import numpy as np

getcontext().prec = 40
rng = np.random.default_rng(1)


def ulp_err(got, exact):
    w = float(exact)
    u = math.ulp(w) if w != 0 else 5e-324
    return abs((Decimal(got) - exact) / Decimal(u))


cases = [
    ("exp", np.exp, np.concatenate([rng.uniform(-745, 709.7, 20000), rng.uniform(-1, 1, 10000)]),
     lambda x: Decimal(x).exp()),
    ("log", np.log, np.concatenate([rng.uniform(0.5, 2, 15000), np.exp(rng.uniform(-700, 700, 15000))]),
     lambda x: Decimal(x).ln()),
    # (e^2x - 1)/(e^2x + 1): the subtraction cancels about -log10|2x|
    # digits, at most 4 here, of the 40
    ("tanh", np.tanh, np.concatenate([rng.uniform(-1, 1, 15000), rng.uniform(-20, 20, 15000)]),
     lambda x: (Decimal(2 * x).exp() - 1) / (Decimal(2 * x).exp() + 1)),
]
print("numpy", np.__version__)
for name, f, xs, exact in cases:
    worst, at = 0, None
    for x, g in zip(xs.tolist(), f(xs).tolist()):
        e = ulp_err(g, exact(x))
        if e > worst:
            worst, at = e, x
    print("%s: max %.3f ulp at %r over %d inputs" % (name, worst, at, len(xs)))
