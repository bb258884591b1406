#!/usr/bin/env bash
# Times the vec kernels on every kernel tier this CPU has (generic, avx2,
# avx512; BenchmarkTiers* in device/cpu/vec) and the same operations in
# NumPy (one thread, Debian's python3-numpy) in one run, and prints them
# side by side with the best tier's ratio to NumPy and the AVX-512 tier's
# ratio to the AVX2 one. Both sides report their fastest call, so a busy
# machine disturbs the comparison less. Not part of the test run.
#   bash ci/bench-vec.sh [benchmark regexp, default Tiers]
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "installing python3-numpy" >&2
  apt-get update -qq && apt-get install -y -qq python3-numpy >/dev/null
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test ./device/cpu/vec -run XXX -bench "${1:-Tiers}" -benchtime 100x -count 1 > "$out"
grep -m1 '^cpu:' "$out" || true
grep -o 'avx512[a-z_0-9]*' /proc/cpuinfo 2>/dev/null | sort -u | tr '\n' ' '; echo
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$PY" ci/bench_vec_numpy.py "$out"
