#!/usr/bin/env bash
# Times sorting 1 Mi random f32 (one row, and 1024 rows of 1024): NumPy's
# np.sort (default quicksort, one thread, Debian's python3-numpy) and
# tessera's Sort on the CPU (BenchmarkSort, values and indices, stable),
# one after the other in one run, and prints the tessera/NumPy speed ratio.
# Not part of the test run: benchmarks belong on a quiet machine.
#   bash ci/bench-sort.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
numpy_out=$(OMP_NUM_THREADS=1 "$PY" - <<'PYEOF'
import time
import numpy as np
rng = np.random.default_rng(3)
for shape in ((1 << 20,), (1024, 1024)):
    x = rng.standard_normal(shape).astype(np.float32)
    for kind in ("quicksort", "stable"):
        best = float("inf")
        for _ in range(7):
            t0 = time.perf_counter()
            np.sort(x, axis=-1, kind=kind)
            best = min(best, time.perf_counter() - t0)
        print("x".join(map(str, shape)), kind, best * 1e9)
PYEOF
)

go_out=$(go test ./tensor -run XXX -bench '^BenchmarkSort$/^cpu/' -benchtime 20x -count 3 2>/dev/null |
  awk '/ns\/op/ { split($1, p, "/"); s = p[3]; sub(/-[0-9]+$/, "", s); gsub(/[\[\]]/, "", s); gsub(/[ _]/, "x", s); print s, $3 }')

echo "numpy (best of 7, ns):"
echo "$numpy_out"
echo "tessera cpu Sort (values + indices, ns/op, 3 runs):"
echo "$go_out"
for shape in 1048576 1024x1024; do
  np=$(echo "$numpy_out" | awk -v s="$shape" '$1 == s && $2 == "quicksort" { print $3 }')
  best=$(echo "$go_out" | awk -v s="$shape" '$1 == s { if (m == "" || $2 < m) m = $2 } END { print m }')
  awk -v s="$shape" -v np="$np" -v go="$best" 'BEGIN { printf "%-10s numpy %.2f ms  tessera %.2f ms  tessera/numpy speed %.2fx\n", s, np / 1e6, go / 1e6, np / go }'
done
