#!/usr/bin/env bash
# Times common tensor ops on the CPU against NumPy (one thread,
# Debian's python3-numpy) in one run and prints the ratios: Softmax and
# LogSoftmax (NumPy: exp(x - max) / sum, and x - max - log(sum)), Where
# (np.where(a > b, a, b)), Tril (np.tril), TopK(10) (NumPy's full sort),
# reflect Pad (np.pad), ArgMax and the sum of a comparison, and the
# operations that ran element by element through the op table's rules or
# one strided line at a time before 2026-12-06: Softmax over axis 0,
# MaskedFill, Any, Not, IsNaN, Max over axis 0, CumSum over either axis,
# int32 Add and Abs, the cast to int32 and a flipped copy; and ArgMax over
# axis 0, Gather along axis 0 with random indices (np.take_along_axis),
# the cast of a Bool mask to float32, a row broadcast to [1024, 1024]
# and copied, the standard deviation over axis 0, a bias added to a
# [64, 128] batch, a batched 256 x [16, 16] @ [16, 16] matmul, the
# float32 and int32 sums over axis 0, the int32 max along rows, and the
# image batch permuted to channels last (ci/bench_ops_numpy.py). Both
# sides take their best single call (BenchmarkOps's best-ns); tessera
# uses every core GOMAXPROCS allows.
# Not part of the test run: benchmarks belong on a quiet machine.
#   bash ci/bench-ops.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/numpy-anchor.sh

echo "$(machine)"
numpy_out=$(OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$PY" ci/bench_ops_numpy.py "$ROUNDS")

go_out=$(go test ./tensor -run XXX -bench '^BenchmarkOps$' -benchtime 10x -count "$ROUNDS" 2>/dev/null |
  awk '/best-ns/ { split($1, p, "/"); f = p[2]; sub(/-[0-9]+$/, "", f); print f, $(NF-1) }')

printf '%-11s %12s %12s %9s\n' op numpy-ms tessera-ms ratio
while read -r name np; do
  ts=$(echo "$go_out" | awk -v n="$name" '$1 == n { if (m == "" || $2 < m) m = $2 } END { print m }')
  printf '%-11s %12.3f %12.3f %8.2fx\n' "$name" "$(awk -v a="$np" 'BEGIN { print a / 1e6 }')" \
    "$(awk -v a="${ts:-0}" 'BEGIN { print a / 1e6 }')" "$(awk -v a="${ts:-0}" -v b="$np" 'BEGIN { print a / b }')"
done <<< "$numpy_out"
echo "ratio: tessera time / NumPy time (lower is better); $(machine)"
