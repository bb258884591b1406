# The NumPy side of ci/bench-ops.sh: the ops of BenchmarkOps (tensor
# package) on the same shapes, each timed as the best of 5*ROUNDS calls,
# printed as "name nanoseconds". TopK's anchor is NumPy's default full sort
# of the negated rows (np.partition is faster but gives no order among the
# k, and its ties are unstable). NumPy's astype to int32 does not saturate
# (tessera's Cast does); MaskedFill's anchor is np.where.
#   python3 ci/bench_ops_numpy.py ROUNDS
import sys, time
import numpy as np
rounds = int(sys.argv[1])
rng = np.random.default_rng(1)
a = rng.standard_normal((1024, 1024), dtype=np.float32)
b = rng.standard_normal((1024, 1024), dtype=np.float32)
big = rng.standard_normal((2048, 2048), dtype=np.float32)
img = rng.standard_normal((32, 64, 56, 56), dtype=np.float32)
ai = (a * 100).astype(np.int32)
bi = (b * 100).astype(np.int32)
mask = a > b
ridx = rng.integers(0, 1024, (1024, 1024))
row = rng.standard_normal((1, 1024), dtype=np.float32)
small = rng.standard_normal((64, 128), dtype=np.float32)
bias = rng.standard_normal(128, dtype=np.float32)
x16 = rng.standard_normal((256, 16, 16), dtype=np.float32)
y16 = rng.standard_normal((256, 16, 16), dtype=np.float32)
def softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)
def softmax0(x):
    e = np.exp(x - x.max(0, keepdims=True))
    return e / e.sum(0, keepdims=True)
def logsoftmax(x):
    s = x - x.max(1, keepdims=True)
    return s - np.log(np.exp(s).sum(1, keepdims=True))
cases = [
    ("softmax", lambda: softmax(a)),
    ("logsoftmax", lambda: logsoftmax(a)),
    ("where", lambda: np.where(a > b, a, b)),
    ("tril", lambda: np.tril(big)),
    ("topk", lambda: -np.sort(-a, 1)[:, :10]),
    ("padreflect", lambda: np.pad(img, ((0, 0), (0, 0), (2, 2), (2, 2)), mode="reflect")),
    ("argmax", lambda: big.argmax(1)),
    ("gtsum", lambda: (a > b).sum()),
    ("softmax0", lambda: softmax0(a)),
    ("maskedfill", lambda: np.where(mask, np.float32(-1e30), a)),
    ("any", lambda: mask.any()),
    ("not", lambda: np.logical_not(mask)),
    ("isnan", lambda: np.isnan(a)),
    ("max0", lambda: a.max(0)),
    ("cumsum0", lambda: a.cumsum(0)),
    ("cumsum1", lambda: a.cumsum(1)),
    ("addi32", lambda: ai + bi),
    ("absi32", lambda: np.abs(ai)),
    ("casti32", lambda: a.astype(np.int32)),
    ("flip", lambda: np.ascontiguousarray(a[:, ::-1])),
    ("argmax0", lambda: a.argmax(0)),
    ("gather0", lambda: np.take_along_axis(a, ridx, 0)),
    ("castbool", lambda: mask.astype(np.float32)),
    ("bcast", lambda: np.ascontiguousarray(np.broadcast_to(row, (1024, 1024)))),
    ("std0", lambda: a.std(0)),
    ("addsmall", lambda: small + bias),
    ("bmm16", lambda: x16 @ y16),
    ("sum0", lambda: a.sum(0)),
    ("sumi32_0", lambda: ai.sum(0)),
    ("maxi32_1", lambda: ai.max(1)),
    ("nhwc", lambda: np.ascontiguousarray(img.transpose(0, 2, 3, 1))),
    ("arange", lambda: np.arange(1 << 20, dtype=np.float32)),
    ("linspace", lambda: np.linspace(0, 1, 1 << 20, dtype=np.float32)),
    ("eye", lambda: np.eye(1024, dtype=np.float32)),
    ("rand", lambda: rng.random((1024, 1024), dtype=np.float32)),
    ("randn", lambda: rng.standard_normal((1024, 1024), dtype=np.float32)),
    ("atan2", lambda: np.arctan2(a, b)),
]
for name, f in cases:
    best = float("inf")
    for _ in range(5 * rounds):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    print(name, best * 1e9)
