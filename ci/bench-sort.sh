#!/usr/bin/env bash
# Times sorting random f32 on the CPU against NumPy (Debian's python3-numpy,
# one thread: np.sort has no threads) in alternating rounds:
#   1048576    tessera Sort (values and I64 indices, stable) of 1 Mi along
#              one row against np.sort (default quicksort: on AVX-512 CPUs
#              NumPy's vectorised quicksort, values only);
#   1024x1024  the same for Sort along the last axis of [1024, 1024];
#   argsort    tessera ArgSort of 1 Mi against np.argsort(kind="stable").
# Wall-clock and processor time (all threads) are both given; each
# figure is the best over the rounds (NumPy: the fastest of 7 calls a
# round; tessera: BenchmarkSort / BenchmarkArgSort, 10 sorts a run, their
# fastest single sort (best-ns) and mean processor time), so a busy
# neighbour on the shared machine hurts both sides alike. Prints the
# tessera/NumPy speed ratio (above 1: tessera faster) and the load average.
# Not part of the test run.
#   bash ci/bench-sort.sh            # 3 rounds
#   ROUNDS=5 bash ci/bench-sort.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
ROUNDS="${ROUNDS:-3}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/np.py" <<'PYEOF'
import time
import numpy as np
rng = np.random.default_rng(3)
def best(f):
    b, c = float("inf"), float("inf")
    for _ in range(7):
        t0, c0 = time.perf_counter(), time.process_time(); f()
        b, c = min(b, time.perf_counter() - t0), min(c, time.process_time() - c0)
    return f"{b * 1e9} {c * 1e9}"
x = rng.standard_normal(1 << 20).astype(np.float32)
y = rng.standard_normal((1024, 1024)).astype(np.float32)
print("1048576", best(lambda: np.sort(x)))
print("1024x1024", best(lambda: np.sort(y, axis=-1)))
print("argsort", best(lambda: np.argsort(x, kind="stable")))
print("argsort-quick", best(lambda: np.argsort(x)))
PYEOF

go test -c -o "$tmp/tensor.test" ./tensor
for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  OMP_NUM_THREADS=1 "$PY" "$tmp/np.py" | awk '{ print "np", $1, $2, $3 }' >> "$tmp/results"
  (cd tensor && "$tmp/tensor.test" -test.run XXX -test.bench '^Benchmark(Sort|ArgSort)$/^cpu' -test.benchtime 10x -test.count 1) |
    awk '/ns\/op/ { n = split($1, p, "/"); s = (p[1] ~ /ArgSort/) ? "argsort" : p[3]; sub(/-[0-9]+$/, "", s); gsub(/[\[\]]/, "", s); gsub(/[ _]/, "x", s)
      cpu = 0; best = $3; for (i = 4; i <= NF; i++) { if ($i == "cpu-ms/op") cpu = $(i-1) * 1e6; if ($i == "best-ns") best = $(i-1) }
      print "go", s, best, cpu }' >> "$tmp/results"
done

echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); best of $ROUNDS rounds"
echo "wall: fastest single call; cpu: processor time of a call, all threads (NumPy: least of 7; tessera: mean of 10)"
printf '%-11s %-30s %9s %9s %7s %9s %9s %7s\n' case numpy np-wall go-wall speed np-cpu go-cpu cpu-rat
awk '
  $1 == "np" { if (!($2 in np) || $3 < np[$2]) np[$2] = $3; if (!($2 in npc) || $4 < npc[$2]) npc[$2] = $4 }
  $1 == "go" { if (!($2 in go) || $3 < go[$2]) go[$2] = $3; if (!($2 in goc) || $4 < goc[$2]) goc[$2] = $4 }
  END {
    split("1048576 1024x1024 argsort", cs, " ")
    name["1048576"] = "np.sort (quicksort)"; name["1024x1024"] = "np.sort(axis=-1) (quicksort)"; name["argsort"] = "np.argsort(kind=\"stable\")"
    for (i = 1; i <= 3; i++) { c = cs[i]; printf "%-11s %-30s %9.2f %9.2f %6.2fx %9.2f %9.2f %6.2fx\n", c, name[c], np[c] / 1e6, go[c] / 1e6, np[c] / go[c], npc[c] / 1e6, goc[c] / 1e6, npc[c] / goc[c] }
    printf "(np.argsort default quicksort: %.2f ms)\n", np["argsort-quick"] / 1e6
  }' "$tmp/results"
