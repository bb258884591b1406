#!/usr/bin/python3
"""How often NumPy's float32 np.power is not the correctly rounded power,
and its largest error in ulps of the result, against the float64 power
(np.power on float64 operands, within an ulp of float64, so exact enough
to tell the float32 rounding apart but within about 2^-29 ulp of a tie) on
4 Mi seeded pairs: |N(0,1)| + 10^-3 bases and N(0,16) exponents, results
in float32's normal range. The yardstick for device/cpu/vec's float32 Pow
(TestPowF32Accuracy), quoted in docs/benchmarks.md. Not part of the test
run.
    /usr/bin/python3 ci/numpy_pow32_ulp.py
"""
import numpy as np

rng = np.random.default_rng(3)
n = 1 << 22
x = np.abs(rng.standard_normal(n)).astype(np.float32) + np.float32(1e-3)
y = (rng.standard_normal(n) * 4).astype(np.float32)
got = np.power(x, y)
exact = np.power(x.astype(np.float64), y.astype(np.float64))
ok = np.isfinite(exact) & (exact > 1.2e-38) & (exact < 3e38)
rounded = exact[ok].astype(np.float32)
ulps = np.abs(got[ok].astype(np.float64) - exact[ok]) / np.spacing(rounded).astype(np.float64)
print("numpy %s float32 power: %.4f%% of %d results not correctly rounded, largest error %.3f ulp"
      % (np.__version__, 100 * np.mean(got[ok] != rounded), ok.sum(), ulps.max()))
