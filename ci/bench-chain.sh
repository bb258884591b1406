#!/usr/bin/env bash
# Times the loop x = tanh((x + b) * b), written as natural code, per
# operation: NumPy (one thread, Debian's python3-numpy) and tessera on the
# CPU with fusion on and off (BenchmarkChain, best of COUNT=3 runs), one
# after the other in one run, and prints tessera/NumPy speed ratios and
# tessera's peak memory.
# Not part of the test run: benchmarks belong on a quiet machine.
#   bash ci/bench-chain.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "installing python3-numpy" >&2
  apt-get update -qq && apt-get install -y -qq python3-numpy >/dev/null
fi
SIZES="16 1024 65536 1048576"

numpy_out=$(OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$PY" - $SIZES <<'PYEOF'
import sys, time
import numpy as np
for n in map(int, sys.argv[1:]):
    x = np.full(n, 0.5, dtype=np.float32)
    b = np.full(n, 0.25, dtype=np.float32)
    iters = max(20, int(2e7 // (3 * n + 2000)))
    best = float("inf")
    for _ in range(5):
        y = x.copy()
        t0 = time.perf_counter()
        for _ in range(iters):
            y = np.tanh((y + b) * b)
        best = min(best, (time.perf_counter() - t0) / (3 * iters))
    print(n, best * 1e9)
PYEOF
)

# Best of COUNT runs of each benchmark (NumPy above is best of 5), the
# peak memory the largest of them: on a machine shared with other work a
# single run measures the neighbours as much as the loop.
COUNT=${COUNT:-3}
go_out=$(go test ./tensor -run XXX -bench '^BenchmarkChain$/^cpu$/' -benchtime 1s -count "$COUNT" 2>/dev/null |
  awk '/ns\/op-each/ { split($1, p, "/"); f = p[4]; sub(/-[0-9]+$/, "", f); for (i = 2; i <= NF; i++) { if ($i == "ns/op-each") ns = $(i-1); if ($i == "peak-MiB") mib = $(i-1) }
         k = p[3] " " f; if (!(k in best) || ns + 0 < best[k] + 0) best[k] = ns; if (!(k in peak) || mib + 0 > peak[k] + 0) peak[k] = mib; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
       END { for (i = 1; i <= n; i++) print order[i], best[order[i]], peak[order[i]] }')

printf '%-8s %14s %14s %14s %10s %10s %12s\n' elements numpy-ns/op fused-ns/op eager-ns/op fused/np eager/np fused-peak
while read -r n np; do
  f=$(echo "$go_out" | awk -v n="$n" '$1 == n && $2 == "fused=true" { print $3, $4 }')
  e=$(echo "$go_out" | awk -v n="$n" '$1 == n && $2 == "fused=false" { print $3 }')
  fns=${f% *}; fmib=${f#* }
  printf '%-8s %14.0f %14.0f %14.0f %9.2fx %9.2fx %9.1f MiB\n' "$n" "$np" "${fns:-0}" "${e:-0}" \
    "$(awk -v a="$np" -v b="${fns:-1}" 'BEGIN { print a / b }')" "$(awk -v a="$np" -v b="${e:-1}" 'BEGIN { print a / b }')" "${fmib:-0}"
done <<< "$numpy_out"
