#!/usr/bin/env bash
# Times sum(square(x)) on f32: NumPy's np.sum(np.square(x)) (one thread,
# Debian's python3-numpy) and tessera on the CPU with fusion on (the square
# is the reduction's prologue, never stored) and off (BenchmarkSumSquares),
# one after the other in one run, and prints the ratios.
# Not part of the test run: benchmarks belong on a quiet machine.
#   bash ci/bench-reduce.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "installing python3-numpy" >&2
  apt-get update -qq && apt-get install -y -qq python3-numpy >/dev/null
fi
SIZES="1024 65536 1048576 16777216"

numpy_out=$(OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$PY" - $SIZES <<'PYEOF'
import sys, time
import numpy as np
rng = np.random.default_rng(1)
for n in map(int, sys.argv[1:]):
    x = rng.standard_normal(n).astype(np.float32)
    iters = max(5, int(2e8 // (n + 20000)))
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            np.sum(np.square(x))
        best = min(best, (time.perf_counter() - t0) / iters)
    print(n, best * 1e9)
PYEOF
)

go_out=$(go test ./tensor -run XXX -bench '^BenchmarkSumSquares$/^cpu$/' -benchtime 1s -count 1 2>/dev/null |
  awk '/GB\/s/ { split($1, p, "/"); f = p[4]; sub(/-[0-9]+$/, "", f); print p[3], f, $3 }')

printf '%-9s %14s %14s %14s %10s %10s\n' elements numpy-ns fused-ns unfused-ns np/fused unfused/fused
while read -r n np; do
  f=$(echo "$go_out" | awk -v n="$n" '$1 == n && $2 == "fused=true" { print $3 }')
  e=$(echo "$go_out" | awk -v n="$n" '$1 == n && $2 == "fused=false" { print $3 }')
  printf '%-9s %14.0f %14.0f %14.0f %9.2fx %9.2fx\n' "$n" "$np" "${f:-0}" "${e:-0}" \
    "$(awk -v a="$np" -v b="${f:-1}" 'BEGIN { print a / b }')" "$(awk -v a="${e:-0}" -v b="${f:-1}" 'BEGIN { print a / b }')"
done <<< "$numpy_out"
