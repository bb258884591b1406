#!/usr/bin/env bash
# Times tessera's CPU GEMM against NumPy's (OpenBLAS, Debian's python3-numpy)
# on the same square shapes and prints tessera/OpenBLAS-best, next to the
# machine's measured FMA peak. Not part of the test run: benchmarks belong on
# a quiet machine.
#   bash ci/bench-openblas.sh                  # all shapes, 3 rounds
#   SHAPES="512 1024" ROUNDS=5 bash ci/bench-openblas.sh
#
# OpenBLAS is compared at its best on this CPU: an old OpenBLAS may not
# recognise a newer CPU and fall back to slow generic kernels (0.3.21 runs
# its SSE3 "Prescott" kernels on Sapphire Rapids), so the script tries the
# default and every OPENBLAS_CORETYPE the CPU flags allow (Haswell with
# AVX2+FMA, SkylakeX with AVX-512, Cooperlake with AVX-512 BF16), checks
# each one's products against a float64 reference computed without BLAS
# (a core type that gives wrong results is dropped), and keeps the fastest
# per shape, printing which. The measurement is interleaved: every round
# times each core type and then tessera, and each figure is the best single
# call (NumPy: calls repeated for 0.5 s; tessera: 10 benchmark runs of one
# call, after an untimed one) over the rounds, so a busy neighbour on a
# shared machine hurts all sides alike.
set -euo pipefail
cd "$(dirname "$0")/.."

SHAPES="${SHAPES:-128 256 512 1024 2048}"
. ci/numpy-anchor.sh

cat > "$tmp/np.py" <<'PYEOF'
# usage: np.py CORETYPE N... ; prints "n dtype GFLOP/s" per shape, or
# "n dtype WRONG" when the product disagrees with the reference.
import sys, time
import numpy as np
rng = np.random.default_rng(1)
ct = sys.argv[1]
for n in map(int, sys.argv[2:]):
    for dt in (np.float32, np.float64):
        name = "f32" if dt == np.float32 else "f64"
        a = rng.standard_normal((n, n)).astype(dt)
        b = rng.standard_normal((n, n)).astype(dt)
        c = a @ b
        # Reference without BLAS: 64 entries as float64 sums of products.
        idx = rng.integers(0, n, size=(64, 2))
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        tol = 1e-5 if dt == np.float32 else 1e-13
        ok = True
        for i, j in idx:
            prod = a64[i, :] * b64[:, j]
            if abs(float(c[i, j]) - prod.sum()) > tol * np.sqrt(n) * np.abs(prod).sum() + 1e-300:
                ok = False
        if not ok:
            print(n, name, "WRONG", flush=True)
            continue
        best = float("inf")
        start = time.perf_counter()
        runs = 0
        while time.perf_counter() - start < 0.5 or runs < 3:
            t0 = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - t0)
            runs += 1
        print(n, name, 2 * n**3 / best / 1e9, flush=True)
PYEOF

# tessera: the gemm package's benchmarks for the same square shapes, and
# the FMA-throughput loops, from one test binary built once.
go test -c -o "$tmp/gemm.test" ./device/cpu/gemm
pattern=$(printf '%sx%sx%s|' $(for n in $SHAPES; do echo "$n $n $n"; done) | sed 's/|$//')
kernel=""

for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  for ct in $coretypes; do
    with_coretype "$ct" "$PY" "$tmp/np.py" "$ct" $SHAPES | awk -v ct="$ct" '{ print "np", ct, $0 }' >> "$tmp/results"
  done
  (cd device/cpu/gemm && "$tmp/gemm.test" -test.run XXX -test.bench "^Benchmark(F32|F64)\$/^($pattern)\$/tessera" -test.benchtime 1x -test.count 10) |
    awk '/GFLOP\/s/ { split($1, p, "/"); sub(/^Benchmark/, "", p[1]); split(p[2], s, "x"); k = p[3]; sub(/^tessera-/, "", k); sub(/-[0-9]+$/, "", k)
         for (i = 2; i <= NF; i++) if ($i == "GFLOP/s") print "go", k, s[1], (p[1] == "F32" ? "f32" : "f64"), $(i-1) }' >> "$tmp/results"
  (cd device/cpu/gemm && "$tmp/gemm.test" -test.run XXX -test.bench '^BenchmarkFMAPeak$' -test.benchtime 20x -test.count 3) |
    awk '/GFLOP\/s/ { split($1, p, "/"); sub(/-[0-9]+$/, "", p[3]); for (i = 2; i <= NF; i++) if ($i == "GFLOP/s") print "peak", p[2], p[3], $(i-1) }' >> "$tmp/results"
done

kernel=$(awk '$1 == "go" { print $2; exit }' "$tmp/results")
wrong=$(awk '$1 == "np" && $5 == "WRONG" { print $2 }' "$tmp/results" | sort -u | tr '\n' ' ')
[ -n "$wrong" ] && echo "OpenBLAS core types with wrong results (not used): $wrong"

# Best over the rounds of each figure.
awk '
  $1 == "np" && $5 != "WRONG" { k = $3 " " $4; if ($5 > np[k]) { np[k] = $5; npct[k] = $2 } }
  $1 == "go" { k = $3 " " $4; if ($5 > go[k]) go[k] = $5 }
  $1 == "peak" { k = $2 " " $3; if ($4 > peak[k]) peak[k] = $4 }
  END {
    for (k in peak) print "PEAK", k, peak[k]
    for (k in go) print "ROW", k, go[k], (k in np ? np[k] : 0), (k in npct ? npct[k] : "-")
  }' "$tmp/results" > "$tmp/best"

threads=$(awk '$1 == "PEAK" && $2 == "zmm" { sub(/threads=/, "", $3); if ($3 + 0 > t) t = $3 + 0 } END { print t + 0 }' "$tmp/best")
[ "$threads" -gt 0 ] || threads=$(awk '$1 == "PEAK" { sub(/threads=/, "", $3); if ($3 + 0 > t) t = $3 + 0 } END { print t + 0 }' "$tmp/best")
peak_of() { awk -v w="$1" -v t="threads=$threads" '$1 == "PEAK" && $2 == w && $3 == t { print $4 }' "$tmp/best"; }
zmm=$(peak_of zmm); ymm=$(peak_of ymm)
# The peak the figures are compared with: the widest vectors the CPU has.
p32=${zmm:-${ymm:-0}}

default_core=$(env -u OPENBLAS_CORETYPE OPENBLAS_VERBOSE=2 "$PY" -c 'import numpy' 2>&1 | sed -n 's/^Core: //p' | head -1)
echo "$(machine); tessera kernels: $kernel; OpenBLAS core types tried: $coretypes (default detects ${default_core:-?}); best of $ROUNDS rounds"
printf 'measured FMA peak, %s threads, f32 GFLOP/s: 512-bit %s, 256-bit %s (f64: half)\n' "$threads" "${zmm:-n/a}" "${ymm:-n/a}"
printf '%-6s %-5s %10s %10s %-11s %8s %8s\n' size dtype tessera openblas coretype ratio '%peak'
for n in $SHAPES; do
  for dt in f32 f64; do
    awk -v n="$n" -v d="$dt" -v p32="$p32" '$1 == "ROW" && $2 == n && $3 == d {
      peak = (d == "f32" ? p32 : p32 / 2)
      printf "%-6s %-5s %10.1f %10.1f %-11s %7.2fx %7.0f%%\n", n, d, $4, $5, $6, ($5 > 0 ? $4 / $5 : 0), (peak > 0 ? 100 * $4 / peak : 0) }' "$tmp/best"
  done
done
