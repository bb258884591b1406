#!/usr/bin/env bash
# Times tessera's CPU GEMM against NumPy's (OpenBLAS, Debian's python3-numpy)
# on the same square shapes and prints tessera/OpenBLAS-best, next to the
# machine's measured FMA peak. Not part of the test run: benchmarks belong on
# a quiet machine.
#   bash ci/bench-openblas.sh                  # all shapes, 5 paired rounds
#   SHAPES="512 1024" ROUNDS=9 bash ci/bench-openblas.sh
#   SHAPES="16x1024x1024 24x512x512" bash ci/bench-openblas.sh  # m x n x k
#   TESSERA_CPU=avx2 bash ci/bench-openblas.sh # AVX2 on both sides
#
# OpenBLAS is compared at its best on this CPU: an old OpenBLAS may not
# recognise a newer CPU and fall back to slow generic kernels (0.3.21 runs
# its SSE3 "Prescott" kernels on Sapphire Rapids), so a first pass tries the
# default and every OPENBLAS_CORETYPE the CPU flags allow (Haswell with
# AVX2+FMA, SkylakeX with AVX-512, Cooperlake with AVX-512 BF16), checks
# each one's products against a float64 reference computed without BLAS
# (a core type that gives wrong results is dropped), and keeps the fastest
# per shape and type, printing which.
#
# The comparison itself is paired: in every round, for each shape and
# type, OpenBLAS and tessera run the same number of timed calls back to
# back (after an untimed one; which side goes first alternates by round),
# and the round's ratio is tessera's best call over OpenBLAS's best call.
# The "paired" column is the median of those ratios. On a shared virtual
# machine the speed of the whole machine drifts by up to a third within
# seconds, so two figures taken seconds apart, or best-of figures over
# unequal numbers of calls (the best of more samples is higher), compare
# the drift, not the libraries; the paired median cancels both. The best single call of each
# side over all rounds is printed too, with %peak from tessera's. The FMA
# peak is measured again at the end of every round, so %peak is given
# both ways: tessera's best call over the best peak of all rounds, and
# paired, the median over rounds of tessera's best call in the round over
# that round's peak (the drift moves both).
set -euo pipefail
cd "$(dirname "$0")/.."

SHAPES="${SHAPES:-128 256 512 1024 2048}"
ROUNDS="${ROUNDS:-5}" # set before numpy-anchor.sh, whose default is 3
. ci/numpy-anchor.sh

# A shape is N (N x N x N) or MxNxK, as BenchmarkF32 names it.
dims() { case "$1" in *x*) echo "$1" ;; *) echo "$1x$1x$1" ;; esac; }

# calls SHAPE: timed calls per side per round, about 8e9 multiply-adds (at
# least 8 calls, at most 400).
calls() { awk -v s="$(dims "$1")" 'BEGIN { split(s, d, "x"); c = int(8e9 / (d[1] * d[2] * d[3])); if (c < 8) c = 8; if (c > 400) c = 400; print c }'; }

cat > "$tmp/np.py" <<'PYEOF'
# usage: np.py check CORETYPE SHAPE...  prints "shape dtype GFLOP/s" per
#                                   shape (N or MxNxK), or "shape dtype
#                                   WRONG" when the product disagrees with
#                                   the reference;
#        np.py time SHAPE DTYPE CALLS  prints the best GFLOP/s of CALLS
#                                   calls after an untimed one.
import sys, time
import numpy as np
rng = np.random.default_rng(1)

def dims(shape):
    d = [int(x) for x in shape.split("x")]
    return d * 3 if len(d) == 1 else d

def operands(shape, dt):
    m, n, k = dims(shape)
    return rng.standard_normal((m, k)).astype(dt), rng.standard_normal((k, n)).astype(dt)

def flops(shape):
    m, n, k = dims(shape)
    return 2 * m * n * k

if sys.argv[1] == "time":
    shape, dt, calls = sys.argv[2], np.float32 if sys.argv[3] == "f32" else np.float64, int(sys.argv[4])
    a, b = operands(shape, dt)
    a @ b
    best = float("inf")
    for _ in range(calls):
        t0 = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - t0)
    print(flops(shape) / best / 1e9)
    sys.exit()

for shape in sys.argv[3:]:
    m, n, k = dims(shape)
    for dt in (np.float32, np.float64):
        name = "f32" if dt == np.float32 else "f64"
        a, b = operands(shape, dt)
        c = a @ b
        # Reference without BLAS: 64 entries as float64 sums of products.
        idx = np.stack([rng.integers(0, m, size=64), rng.integers(0, n, size=64)], axis=1)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        tol = 1e-5 if dt == np.float32 else 1e-13
        ok = True
        for i, j in idx:
            prod = a64[i, :] * b64[:, j]
            if abs(float(c[i, j]) - prod.sum()) > tol * np.sqrt(k) * np.abs(prod).sum() + 1e-300:
                ok = False
        if not ok:
            print(shape, name, "WRONG", flush=True)
            continue
        best = float("inf")
        start = time.perf_counter()
        runs = 0
        while time.perf_counter() - start < 0.2 or runs < 3:
            t0 = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - t0)
            runs += 1
        print(shape, name, flops(shape) / best / 1e9, flush=True)
PYEOF

# tessera: the gemm package's benchmarks for the same square shapes, and
# the FMA-throughput loops, from one test binary built once.
test_binary ./device/cpu/gemm "$tmp/gemm.test"

# gobest SHAPE DTYPE CALLS: tessera's best GFLOP/s over CALLS single calls.
gobest() {
  local bench=F32; [ "$2" = f64 ] && bench=F64
  (cd device/cpu/gemm && "$tmp/gemm.test" -test.run XXX -test.bench "^Benchmark$bench\$/^$(dims "$1")\$/tessera" -test.benchtime 1x -test.count "$3") |
    awk '/GFLOP\/s/ { if (kernel == "") { k = $1; sub(/.*\/tessera-/, "", k); sub(/-[0-9]+$/, "", k); kernel = k }
         for (i = 2; i <= NF; i++) if ($i == "GFLOP/s" && $(i-1) > best) best = $(i-1) }
         END { print best + 0, kernel }'
}

# Pass 1: the best OpenBLAS core type per shape and type.
echo "choosing OpenBLAS core types" >&2
for ct in $coretypes; do
  with_coretype "$ct" "$PY" "$tmp/np.py" check "$ct" $SHAPES | awk -v ct="$ct" '{ print ct, $0 }' >> "$tmp/check"
done
wrong=$(awk '$4 == "WRONG" { print $1 }' "$tmp/check" | sort -u | tr '\n' ' ')
[ -n "$wrong" ] && echo "OpenBLAS core types with wrong results (not used): $wrong"
awk '$4 != "WRONG" { k = $2 " " $3; if ($4 > best[k]) { best[k] = $4; ct[k] = $1 } } END { for (k in ct) print k, ct[k] }' "$tmp/check" > "$tmp/coretype"

# Pass 2: paired rounds.
kernel=""
for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  for n in $SHAPES; do
    for dt in f32 f64; do
      ct=$(awk -v n="$n" -v d="$dt" '$1 == n && $2 == d { print $3 }' "$tmp/coretype")
      [ -n "$ct" ] || continue
      c=$(calls "$n")
      if [ $((round % 2)) -eq 1 ]; then
        np=$(with_coretype "$ct" "$PY" "$tmp/np.py" time "$n" "$dt" "$c")
        read -r go kernel < <(gobest "$n" "$dt" "$c")
      else
        read -r go kernel < <(gobest "$n" "$dt" "$c")
        np=$(with_coretype "$ct" "$PY" "$tmp/np.py" time "$n" "$dt" "$c")
      fi
      echo "pair $n $dt $go $np $ct $round" >> "$tmp/results"
    done
  done
  (cd device/cpu/gemm && "$tmp/gemm.test" -test.run XXX -test.bench '^BenchmarkFMAPeak$' -test.benchtime 20x -test.count 2) |
    awk -v r="$round" '/GFLOP\/s/ { split($1, p, "/"); sub(/-[0-9]+$/, "", p[3]); for (i = 2; i <= NF; i++) if ($i == "GFLOP/s") print "peak", p[2], p[3], $(i-1), r }' >> "$tmp/results"
done

awk '$1 == "peak" { k = $2 " " $3; if ($4 > peak[k]) peak[k] = $4 } END { for (k in peak) print "PEAK", k, peak[k] }' "$tmp/results" > "$tmp/best"
threads=$(awk '$1 == "PEAK" && $2 == "zmm" { sub(/threads=/, "", $3); if ($3 + 0 > t) t = $3 + 0 } END { print t + 0 }' "$tmp/best")
[ "$threads" -gt 0 ] || threads=$(awk '$1 == "PEAK" { sub(/threads=/, "", $3); if ($3 + 0 > t) t = $3 + 0 } END { print t + 0 }' "$tmp/best")
peak_of() { awk -v w="$1" -v t="threads=$threads" '$1 == "PEAK" && $2 == w && $3 == t { print $4 }' "$tmp/best"; }
zmm=$(peak_of zmm); ymm=$(peak_of ymm)
# The peak the figures are compared with: the widest vectors the CPU has,
# or 256-bit ones with tessera capped at its AVX2 tier.
p32=${zmm:-${ymm:-0}}
pw=zmm; [ -n "$zmm" ] || pw=ymm
[ "$tier" = avx2 ] && p32=${ymm:-0} && pw=ymm

default_core=$(env -u OPENBLAS_CORETYPE OPENBLAS_VERBOSE=2 "$PY" -c 'import numpy' 2>&1 | sed -n 's/^Core: //p' | head -1)
echo "$(machine); tessera kernels: $kernel; OpenBLAS core types tried: $coretypes (default detects ${default_core:-?}); $ROUNDS paired rounds"
printf 'measured FMA peak, %s threads, f32 GFLOP/s: 512-bit %s, 256-bit %s (f64: half)\n' "$threads" "${zmm:-n/a}" "${ymm:-n/a}"
printf '%-12s %-5s %6s %10s %10s %-11s %8s %8s %-13s %6s %7s\n' size dtype calls tessera openblas coretype best paired 'paired range' '%peak' 'paired'
for n in $SHAPES; do
  for dt in f32 f64; do
    awk -v n="$n" -v d="$dt" -v p32="$p32" -v c="$(calls "$n")" -v w="$pw" -v t="threads=$threads" '
      $1 == "peak" && $2 == w && $3 == t && $4 > pk[$5] { pk[$5] = $4 }
      $1 == "pair" && $2 == n && $3 == d && $5 > 0 {
        r[++k] = $4 / $5; if ($4 > go) go = $4; if ($5 > np) np = $5; ct = $6; g[$7] = $4 }
      END {
        if (k == 0) exit
        # paired %peak: per round, tessera over that round'"'"'s peak (f64: half)
        for (x in g) if (pk[x] > 0) q[++m] = 100 * g[x] / (d == "f32" ? pk[x] : pk[x] / 2)
        for (i = 2; i <= m; i++) { v = q[i]; for (j = i - 1; j >= 1 && q[j] > v; j--) q[j+1] = q[j]; q[j+1] = v }
        pmed = (m == 0 ? 0 : (m % 2 ? q[(m+1)/2] : (q[m/2] + q[m/2+1]) / 2))
        # median of the per-round ratios (insertion sort: a handful)
        for (i = 2; i <= k; i++) { v = r[i]; for (j = i - 1; j >= 1 && r[j] > v; j--) r[j+1] = r[j]; r[j+1] = v }
        med = (k % 2 ? r[(k+1)/2] : (r[k/2] + r[k/2+1]) / 2)
        peak = (d == "f32" ? p32 : p32 / 2)
        printf "%-12s %-5s %6d %10.1f %10.1f %-11s %7.2fx %7.2fx %5.2f-%5.2fx %5.0f%% %6.0f%%\n", n, d, c, go, np, ct, go / np, med, r[1], r[k], (peak > 0 ? 100 * go / peak : 0), pmed }' "$tmp/results"
  done
done
echo "best: best single call of each side over all rounds; paired: median over rounds of the ratio of the two sides' best calls in that round (range: lowest and highest round)"
echo "%peak: tessera's best call over the best peak of all rounds; paired: median over rounds of tessera's best call over that round's peak"
