#!/usr/bin/env bash
# Times common f32 tensor ops on the CPU against NumPy (one thread,
# Debian's python3-numpy) in one run and prints the ratios: Softmax and
# LogSoftmax (NumPy: exp(x - max) / sum, and x - max - log(sum)), Where
# (np.where(a > b, a, b)), Tril (np.tril), TopK(10) (NumPy's full sort, the
# cheapest it offers with stable ties), reflect Pad (np.pad), ArgMax and the
# sum of a comparison. Both sides take their best single call
# (BenchmarkOps's best-ns); tessera uses every core GOMAXPROCS allows.
# Not part of the test run: benchmarks belong on a quiet machine.
#   bash ci/bench-ops.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/numpy-anchor.sh

echo "$(machine)"
numpy_out=$(OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$PY" - "$ROUNDS" <<'PYEOF'
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
    ("topk", lambda: -np.sort(-a, 1, kind="stable")[:, :10]),
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
PYEOF
)

go_out=$(go test ./tensor -run XXX -bench '^BenchmarkOps$' -benchtime 10x -count "$ROUNDS" 2>/dev/null |
  awk '/best-ns/ { split($1, p, "/"); f = p[2]; sub(/-[0-9]+$/, "", f); print f, $(NF-1) }')

printf '%-11s %12s %12s %9s\n' op numpy-ms tessera-ms ratio
while read -r name np; do
  ts=$(echo "$go_out" | awk -v n="$name" '$1 == n { if (m == "" || $2 < m) m = $2 } END { print m }')
  printf '%-11s %12.3f %12.3f %8.2fx\n' "$name" "$(awk -v a="$np" 'BEGIN { print a / 1e6 }')" \
    "$(awk -v a="${ts:-0}" 'BEGIN { print a / 1e6 }')" "$(awk -v a="${ts:-0}" -v b="$np" 'BEGIN { print a / b }')"
done <<< "$numpy_out"
echo "ratio: tessera time / NumPy time (lower is better); $(machine)"
