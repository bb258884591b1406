#!/usr/bin/env bash
# Times the float64 Exp, Log, Tanh, Sigmoid, Sin, Cos, Tan, Exp2, Log2,
# Log10, Log1p, Sinh, Cosh, Expm1, Asin, Acos and Atan of device/cpu/vec (the AVX-512 tier's vector kernels, and
# a plain package math loop) against
# NumPy (one thread, Debian's python3-numpy: np.exp, np.log, np.tanh, and
# 1/(1+exp(-x)) as four ufunc calls, np.sin, ... np.log1p) on 64 Ki and
# 1 Mi float64, the inputs of BenchmarkTiersUnary and BenchmarkExpF64,
# LogF64, ... OPS picks the functions (default "exp log tanh sigmoid";
# "sin cos tan exp2 log2 log10 log1p sinh cosh expm1 asin acos atan" for
# the others). The Go and
# NumPy runs alternate ROUNDS times (default 6) and each side keeps its
# best, so a neighbour that slows one run does not decide the ratio.
# At 1 Mi both sides' arrays are advised onto transparent huge pages
# (NumPy does so from 4 MiB; the Go benchmark as the CPU device does).
# TIER=avx2 times the AVX2 set's kernels instead (where it has one; the
# others are its package math loops) against NumPy with its AVX-512
# dispatch targets disabled (NPY_DISABLE_CPU_FEATURES), as on an AVX2-only
# machine. Not part of the test run.
#   bash ci/bench-vec-f64.sh
#   TIER=avx2 OPS="exp exp2 log log2 log10" bash ci/bench-vec-f64.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
ROUNDS=${ROUNDS:-6}
TIER=${TIER:-avx512}
if [ "$TIER" = avx2 ]; then
  export NPY_DISABLE_CPU_FEATURES="AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"
fi
bin=$(mktemp)
npy=$(mktemp)
trap 'rm -f "$bin" "$npy"' EXIT
go test -c -o "$bin" ./device/cpu/vec
cat > "$npy" <<'EOF'
import sys, timeit
import numpy as np
op, n, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
i = np.arange(n)
x = (i % 2000) * 0.01 - 10
xl = (i % 2000) * 0.01 + 0.005
x1 = (i % 2000) * 0.01 - 0.995
xa = (i % 2000) * 0.001 - 0.9995
d, t = np.empty(n), np.empty(n)
def sigmoid():
    np.negative(x, out=t); np.exp(t, out=t); np.add(t, 1, out=t); np.reciprocal(t, out=d)
f = {"exp": lambda: np.exp(x, out=d), "log": lambda: np.log(xl, out=d), "tanh": lambda: np.tanh(x, out=d),
     "sigmoid": sigmoid, "sin": lambda: np.sin(x, out=d), "cos": lambda: np.cos(x, out=d),
     "tan": lambda: np.tan(x, out=d), "exp2": lambda: np.exp2(x, out=d), "log2": lambda: np.log2(xl, out=d),
     "log10": lambda: np.log10(xl, out=d), "log1p": lambda: np.log1p(x1, out=d), "sinh": lambda: np.sinh(x, out=d),
     "cosh": lambda: np.cosh(x, out=d), "expm1": lambda: np.expm1(x, out=d),
     "asin": lambda: np.arcsin(xa, out=d), "acos": lambda: np.arccos(xa, out=d), "atan": lambda: np.arctan(x, out=d)}[op]
print("%.4f" % (n / min(timeit.repeat(f, number=1, repeat=calls)) / 1e9))
EOF
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b) ? a : b }'; }
gelem() { awk '{ for (i = 1; i < NF; i++) if ($(i+1) == "Gelem/s") { print $i; exit } }'; }
uptime
printf '%-8s %8s %10s %10s %10s %9s %9s\n' op n "$TIER" math numpy x_numpy x_math
for op in ${OPS:-exp log tanh sigmoid}; do
  Op=$(echo "${op:0:1}" | tr a-z A-Z)${op:1}
  for n in 65536 1048576; do
    g=0 m=0 p=0
    for _ in $(seq "$ROUNDS"); do
      if [ "$n" = 65536 ]; then
        a=$("$bin" -test.run XXX -test.bench "TiersUnary/${op}_f64/n=65536/$TIER" -test.benchtime 1000x | grep "$TIER" | gelem)
        c=0
      else
        out=$("$bin" -test.run XXX -test.bench "${Op}F64/($TIER|math)" -test.benchtime 20x)
        a=$(echo "$out" | grep "$TIER" | gelem)
        c=$(echo "$out" | grep /math | gelem)
      fi
      b=$("$PY" "$npy" "$op" "$n" $((n > 65536 ? 60 : 1000)))
      g=$(max "$g" "$a") m=$(max "$m" "$c") p=$(max "$p" "$b")
    done
    awk -v op="$op" -v n="$n" -v g="$g" -v m="$m" -v p="$p" 'BEGIN {
      printf "%-8s %8d %10.3f %10s %10.3f %8.2fx %9s\n", op, n, g, (m > 0 ? sprintf("%.3f", m) : "-"), p, g / p, (m > 0 ? sprintf("%.1fx", g / m) : "-") }'
  done
done
uptime
