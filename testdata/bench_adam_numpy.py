#!/usr/bin/python3
"""NumPy anchor of optim's BenchmarkAdamStep: one Adam update (PyTorch's
rule, bias-corrected) of 235,146 float32 values (the MLP 784-256-128-10's
parameters) from a fixed gradient, written as NumPy array expressions on
one thread. Prints ms per step, GB/s of the algorithm's traffic (28 bytes
per value: read p, g, m, v; write p, m, v) and CPU ms per step, as the Go
benchmark does.

Run: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 testdata/bench_adam_numpy.py
"""

import time

import numpy as np

N = 235146
STEPS = 300
LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8


def main():
    p = np.sin(np.arange(N)).astype(np.float32)
    g = np.cos(np.arange(N)).astype(np.float32)
    m = np.zeros(N, np.float32)
    v = np.zeros(N, np.float32)
    f32 = np.float32
    t0, c0 = time.perf_counter(), time.process_time()
    for t in range(1, STEPS + 1):
        m *= f32(B1)
        m += f32(1 - B1) * g
        v *= f32(B2)
        v += f32(1 - B2) * g * g
        denom = np.sqrt(v) / f32(np.sqrt(1 - B2**t)) + f32(EPS)
        p -= f32(LR / (1 - B1**t)) * m / denom
    dt = (time.perf_counter() - t0) / STEPS
    cpu = (time.process_time() - c0) / STEPS
    print(f"numpy adam step: {dt * 1e3:.2f} ms, {N * 28 / dt / 1e9:.2f} GB/s, {cpu * 1e3:.2f} cpu-ms/op")


if __name__ == "__main__":
    main()
