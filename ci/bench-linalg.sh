#!/usr/bin/env bash
# Times Solve and Cholesky on the CPU against numpy.linalg.solve and
# numpy.linalg.cholesky (Debian's NumPy with OpenBLAS, default threads) on
# the same kind of matrices: n = 64, 256, 1024 in f32 and f64, and a batch
# of 100 matrices of 16; Solve with one right-hand side on standard normal
# matrices plus n on the diagonal, Cholesky on G·Gᵀ + n·I for a standard
# normal G. NumPy is timed with
# its default OpenBLAS core type and with every other core type the CPU
# allows (ci/numpy-anchor.sh: 0.3.21 detects Sapphire Rapids as the
# SSE3 "Prescott"); the table gives tessera's speed over the default's and
# over the best's. Rounds alternate NumPy and tessera (BenchmarkSolve,
# BenchmarkCholesky) and
# every figure is the fastest single call over the rounds (best-ns on
# tessera's side), so a busy neighbour on a shared machine hurts all sides
# alike. Not part of the test run.
#   bash ci/bench-linalg.sh            # 3 rounds
#   ROUNDS=5 bash ci/bench-linalg.sh
set -euo pipefail
cd "$(dirname "$0")/.."

. ci/numpy-anchor.sh

cat > "$tmp/np.py" <<'PYEOF'
# prints "op case seconds" per case: the best single call over 0.3 s.
import time
import numpy as np
rng = np.random.default_rng(11)

def best(f):
    f()
    t, start, runs = float("inf"), time.perf_counter(), 0
    while time.perf_counter() - start < 0.3 or runs < 5:
        t0 = time.perf_counter(); f(); t = min(t, time.perf_counter() - t0)
        runs += 1
    return t

for batch, n in ((1, 64), (1, 256), (1, 1024), (100, 16)):
    g = rng.standard_normal((batch, n, n))
    spd = g @ g.transpose(0, 2, 1) + n * np.eye(n)
    for dt, name in ((np.float32, "f32"), (np.float64, "f64")):
        a = (rng.standard_normal((batch, n, n)) + n * np.eye(n)).astype(dt)
        b = rng.standard_normal((batch, n)).astype(dt)
        s = spd.astype(dt)
        if batch == 1:
            a, b, s = a[0], b[0], s[0]
            case = f"{name}/{n}"
        else:
            case = f"{name}/{batch}x{n}x{n}"
        print("Solve", case, best(lambda: np.linalg.solve(a, b)), flush=True)
        print("Cholesky", case, best(lambda: np.linalg.cholesky(s)), flush=True)
PYEOF

go test -c -o "$tmp/tensor.test" ./tensor
for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  for ct in $coretypes; do
    with_coretype "$ct" "$PY" "$tmp/np.py" | awk -v ct="$ct" '{ print "np", ct, $1, $2, $3 }' >> "$tmp/results"
  done
  (cd tensor && "$tmp/tensor.test" -test.run XXX -test.bench '^Benchmark(Solve|Cholesky)$' -test.benchtime 200ms -test.count 1) |
    awk '/best-ns/ { split($1, p, "/"); sub(/^Benchmark/, "", p[1]); sub(/-[0-9]+$/, "", p[3]); for (i = 4; i <= NF; i++) if ($i == "best-ns") print "go", "-", p[1], p[2] "/" p[3], $(i-1) / 1e9 }' >> "$tmp/results"
done

echo "$(machine); best of $ROUNDS rounds"
printf '%-9s %-16s %12s %12s %12s %-11s %9s %9s\n' op case tessera-ms numpy-ms np-best-ms coretype 'vs-dflt' 'vs-best'
awk '
  { k = $3 " " $4 }
  $1 == "go" { if (!(k in go) || $5 < go[k]) go[k] = $5 }
  $1 == "np" && $2 == "default" { if (!(k in dflt) || $5 < dflt[k]) dflt[k] = $5 }
  $1 == "np" { if (!(k in best) || $5 < best[k]) { best[k] = $5; ct[k] = $2 } }
  END {
    for (k in go) { split(k, f, " "); printf "%-9s %-16s %12.3f %12.3f %12.3f %-11s %8.2fx %8.2fx\n", f[1], f[2], go[k] * 1e3, dflt[k] * 1e3, best[k] * 1e3, ct[k], dflt[k] / go[k], best[k] / go[k] }
  }' "$tmp/results" | sort -k1,1 -k2,2V
