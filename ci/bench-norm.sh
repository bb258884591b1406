#!/usr/bin/env bash
# Times LayerNorm and RMSNorm of [4096, 1024] f32 (weight and bias) and
# attention (batch 8, 8 heads, L = S = 512, E = 64, f32; plain and causal)
# in NumPy (the usual expressions: mean, centred variance, scale; scores
# q k^T, max-shifted softmax, times v; one thread, as the other NumPy
# anchors of docs/benchmarks.md, while tessera uses every core), then
# tessera's fused kernels and the composites they replaced
# (BenchmarkNormFused, BenchmarkAttentionFused, one run), and prints the
# ratios. Not part of the test run: benchmarks belong on a quiet machine.
#   bash ci/bench-norm.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
numpy_out=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$PY" - <<'PYEOF'
import time
import numpy as np
rng = np.random.default_rng(5)

def best(fn, n):
    fn()
    b = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        b = min(b, time.perf_counter() - t0)
    return b

x = rng.standard_normal((4096, 1024)).astype(np.float32)
w = rng.standard_normal(1024).astype(np.float32)
bb = rng.standard_normal(1024).astype(np.float32)
eps = np.float32(1e-5)

def layer_norm():
    m = x.mean(-1, keepdims=True)
    xc = x - m
    var = (xc * xc).mean(-1, keepdims=True)
    return xc / np.sqrt(var + eps) * w + bb

def rms_norm():
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w

q = rng.standard_normal((8, 8, 512, 64)).astype(np.float32)
k = rng.standard_normal((8, 8, 512, 64)).astype(np.float32)
v = rng.standard_normal((8, 8, 512, 64)).astype(np.float32)
causal = np.tril(np.ones((512, 512), dtype=bool))

def attention(mask=None):
    s = (q @ k.swapaxes(-1, -2)) * np.float32(1 / 8)
    if mask is not None:
        s = np.where(mask, s, np.float32(-np.inf))
    s -= s.max(-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(-1, keepdims=True)
    return p @ v

print("LayerNorm/fused", best(layer_norm, 10) * 1e9)
print("RMSNorm/fused", best(rms_norm, 10) * 1e9)
print("AttentionFused/fused", best(attention, 3) * 1e9)
print("AttentionFused/causal/fused", best(lambda: attention(causal), 3) * 1e9)
PYEOF
)

go_out=$(go test ./tensor -run XXX -bench '^Benchmark(NormFused|AttentionFused)$' -benchtime 10x -count 3 2>/dev/null |
  awk '/ns\/op/ { n = $1; sub(/^Benchmark/, "", n); sub(/-[0-9]+$/, "", n); sub(/^NormFused\//, "", n); print n, $3 }')

echo "load: $(uptime)"
echo "numpy (best, ns):"
echo "$numpy_out"
echo "tessera cpu (ns/op, 3 runs):"
echo "$go_out"
for c in LayerNorm/fused RMSNorm/fused AttentionFused/fused AttentionFused/causal/fused; do
  comp=${c%/fused}/composite
  np=$(echo "$numpy_out" | awk -v s="$c" '$1 == s { print $2 }')
  f=$(echo "$go_out" | awk -v s="$c" '$1 == s { if (m == "" || $2 < m) m = $2 } END { print m }')
  o=$(echo "$go_out" | awk -v s="$comp" '$1 == s { if (m == "" || $2 < m) m = $2 } END { print m }')
  awk -v c="$c" -v np="$np" -v f="$f" -v o="$o" 'BEGIN { printf "%-28s numpy %8.2f ms  fused %8.2f ms  composite %8.2f ms  fused/composite speed %.2fx  fused/numpy speed %.2fx\n", c, np / 1e6, f / 1e6, o / 1e6, o / f, np / f }'
done
