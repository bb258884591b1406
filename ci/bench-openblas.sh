#!/usr/bin/env bash
# Times tessera's CPU GEMM and NumPy's (OpenBLAS, Debian's python3-numpy) on
# the same shapes, one after the other, and prints tessera/OpenBLAS.
# Not part of the test run: benchmarks belong on a quiet machine.
#   bash ci/bench-openblas.sh            # all shapes
#   SHAPES="512 1024" bash ci/bench-openblas.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
# NumPy links the reference BLAS unless OpenBLAS is installed, which then
# takes over through Debian's alternatives.
if ! "$PY" -c 'import numpy' 2>/dev/null || ! ls /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3 >/dev/null 2>&1; then
  echo "installing python3-numpy and libopenblas0-pthread" >&2
  apt-get update -qq && apt-get install -y -qq python3-numpy libopenblas0-pthread >/dev/null
fi
SHAPES="${SHAPES:-128 256 512 1024 2048}"

# NumPy: best of several runs per shape, GFLOP/s. OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE, set on some machines to work around old OpenBLAS bugs,
# slow a current one down: unset them for this measurement only.
numpy_out=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$PY" - $SHAPES <<'PYEOF'
import sys, time
import numpy as np
rng = np.random.default_rng(1)
for n in map(int, sys.argv[1:]):
    for dt in (np.float32, np.float64):
        a = rng.standard_normal((n, n)).astype(dt)
        b = rng.standard_normal((n, n)).astype(dt)
        a @ b
        best = float("inf")
        start = time.perf_counter()
        while time.perf_counter() - start < 1.0 or best == float("inf"):
            t0 = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - t0)
        print(n, "f32" if dt == np.float32 else "f64", 2 * n**3 / best / 1e9)
PYEOF
)

# tessera: the gemm package's benchmarks for the same square shapes.
pattern=$(printf '%sx%sx%s|' $(for n in $SHAPES; do echo "$n $n $n"; done) | sed 's/|$//')
go_out=$(go test ./device/cpu/gemm -run XXX -bench "^Benchmark(F32|F64)\$/^($pattern)\$/tessera" -benchtime 3x -count 1 2>/dev/null |
  awk '/GFLOP\/s/ { split($1, p, "/"); sub(/^Benchmark/, "", p[1]); split(p[2], s, "x"); for (i = 2; i <= NF; i++) if ($i == "GFLOP/s") print s[1], (p[1] == "F32" ? "f32" : "f64"), $(i-1) }')

printf '%-6s %-5s %12s %12s %10s\n' size dtype tessera openblas ratio
while read -r n dt np; do
  tg=$(echo "$go_out" | awk -v n="$n" -v d="$dt" '$1 == n && $2 == d { print $3 }')
  printf '%-6s %-5s %12.1f %12.1f %9.2fx\n' "$n" "$dt" "${tg:-0}" "$np" "$(awk -v a="${tg:-0}" -v b="$np" 'BEGIN { print a / b }')"
done <<< "$numpy_out"
