#!/usr/bin/env bash
# Times the float64 Pow of device/cpu/vec (BenchmarkPowF64: PowF64 with a
# vector exponent, PowScalarF64 with y = 1.7, on 1 Mi elements; the best
# kernel set the CPU has, and a package math loop), or with DTYPE=f32 the
# float32 one (BenchmarkPowF32, NumPy on float32 arrays),
# against NumPy's np.power on the same kinds of operands (one thread):
# "positive" bases |N(0,1)|, "mixed" bases N(0,1), whose negative half
# gives NaN for a non-integer exponent; exponents N(0,1). Go and NumPy
# alternate ROUNDS times (default 3) and each side keeps its best, so a
# neighbour that slows one run does not decide the ratio. One core on both
# sides (-test.cpu 1, a process of its own). TIER=avx2 takes the AVX2
# set's figures instead of the best set's, against NumPy with its AVX-512
# dispatch targets disabled (NPY_DISABLE_CPU_FEATURES), as on an AVX2-only
# machine. Not part of the test run.
#   bash ci/bench-pow.sh
#   TIER=avx2 bash ci/bench-pow.sh
#   DTYPE=f32 bash ci/bench-pow.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/numpy-anchor.sh
sets="generic|avx2|avx512"
DTYPE="${DTYPE:-f64}"
case "$DTYPE" in
  f64) bench=PowF64 npdt=float64 ;;
  f32) bench=PowF32 npdt=float32 ;;
  *) echo "DTYPE must be f64 or f32" >&2; exit 2 ;;
esac
if [ "${TIER:-}" = avx2 ]; then
  sets=avx2
  export NPY_DISABLE_CPU_FEATURES="AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"
fi

test_binary ./device/cpu/vec "$tmp/vec.test"
cat > "$tmp/np.py" <<'EOF'
import sys, timeit
import numpy as np
np.seterr(all="ignore")
n = 1 << 20
rng = np.random.default_rng(1)
dt = np.dtype(sys.argv[1])
x, y, d = rng.standard_normal(n).astype(dt), rng.standard_normal(n).astype(dt), np.empty(n, dt)
ax = np.abs(x)
for name, f in [("positive/vector", lambda: np.power(ax, y, out=d)), ("positive/scalar", lambda: np.power(ax, dt.type(1.7), out=d)),
                ("mixed/vector", lambda: np.power(x, y, out=d)), ("mixed/scalar", lambda: np.power(x, dt.type(1.7), out=d))]:
    print(name, "%.4f" % (n / min(timeit.repeat(f, number=1, repeat=20)) / 1e9))
EOF
machine
# rate PATTERN: the highest Gelem/s among the benchmark lines matching it.
rate() { grep -E "$1" | awk '{ for (i = 1; i < NF; i++) if ($(i+1) == "Gelem/s") print $i }' | sort -g | tail -1; }
declare -A go ma np
for _ in $(seq "$ROUNDS"); do
  out=$(OPENBLAS_NUM_THREADS=1 "$tmp/vec.test" -test.run XXX -test.bench "$bench" -test.benchtime 20x -test.cpu 1)
  for k in positive/vector positive/scalar mixed/vector mixed/scalar; do
    best=$(echo "$out" | rate "$bench/$k/($sets) ")
    go[$k]=$(awk -v a="${go[$k]:-0}" -v b="$best" 'BEGIN { print (a > b) ? a : b }')
  done
  for k in positive mixed; do
    m=$(echo "$out" | rate "$bench/$k/vector/math ")
    ma[$k]=$(awk -v a="${ma[$k]:-0}" -v b="$m" 'BEGIN { print (a > b) ? a : b }')
  done
  while read -r k v; do
    np[$k]=$(awk -v a="${np[$k]:-0}" -v b="$v" 'BEGIN { print (a > b) ? a : b }')
  done < <(OPENBLAS_NUM_THREADS=1 "$PY" "$tmp/np.py" "$npdt")
done
printf '%-16s %10s %10s %10s %9s\n' "$DTYPE Gelem/s" tessera math.Pow numpy x_numpy
for k in positive/vector positive/scalar mixed/vector mixed/scalar; do
  m=${ma[${k%%/*}]}
  [ "${k#*/}" = scalar ] && m=-
  awk -v k="$k" -v g="${go[$k]}" -v m="$m" -v p="${np[$k]}" 'BEGIN { printf "%-16s %10.3f %10s %10.3f %8.2fx\n", k, g, m, p, g / p }'
done
uptime
