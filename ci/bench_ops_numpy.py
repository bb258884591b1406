# The NumPy side of ci/bench-ops.sh: the ops of BenchmarkOps (tensor
# package) on the same shapes, each timed as the best of 5*ROUNDS calls,
# printed as "name nanoseconds". TopK's anchor is NumPy's default full sort
# of the negated rows (np.partition is faster but gives no order among the
# k, and its ties are unstable).
#   python3 ci/bench_ops_numpy.py ROUNDS
import sys, time
import numpy as np
rounds = int(sys.argv[1])
rng = np.random.default_rng(1)
a = rng.standard_normal((1024, 1024), dtype=np.float32)
b = rng.standard_normal((1024, 1024), dtype=np.float32)
big = rng.standard_normal((2048, 2048), dtype=np.float32)
img = rng.standard_normal((32, 64, 56, 56), dtype=np.float32)
def softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)
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
]
for name, f in cases:
    best = float("inf")
    for _ in range(5 * rounds):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    print(name, best * 1e9)
